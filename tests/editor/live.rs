//! A game shown live, driven through the input a person uses: a game chosen in the panel,
//! breakpoints that hold the game's agents (and only those of the tree they are set on),
//! Step and Run / Pause on a live game, the Watch list, streaming an agent the game does
//! not stream, Clear Ended Games, the live address, a game whose tree or kinds the editor
//! lacks or declares otherwise, and refusals said in the status line.

use crate::common;
use crate::support::*;

use std::path::PathBuf;
use std::time::Duration;

use arbor::editor::EditorApp;
use arbor::model::NodeId;
use arbor::remote::{EditorAddress, GameLink, Hello, Listener};
use arbor::runtime::Instance;
use eframe::egui::accesskit::Role;
use eframe::egui::{Key, Modifiers, PointerButton};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use common::harness;
use common::input::{click_at, copied, key, on_node};

fn tree() -> PathBuf {
    common::repo().join("sample_trees/mock_sketch.json")
}

fn hello(game: &str, agents: &[&str]) -> Hello {
    let agents: Vec<(String, PathBuf)> = agents.iter().map(|a| ((*a).into(), tree())).collect();
    Hello::new(game, 0.1, 0, &agents, &[tree()])
}

/// A game of the sketch's agents: each frame it steps every agent the link lets it,
/// watched, then the editor draws a frame.
struct Game {
    link: GameLink,
    agents: Vec<(&'static str, Instance<()>)>,
}

impl Game {
    fn new(link: GameLink, names: &[&'static str]) -> Self {
        let program = common::mock_sketch();
        let agents = names
            .iter()
            .enumerate()
            .map(|(i, n)| (*n, Instance::new(program.clone(), i as u64)))
            .collect();
        Self { link, agents }
    }

    fn frame(&mut self, h: &mut Harness<'static, EditorApp>) {
        for (name, a) in &mut self.agents {
            if self.link.may_step(name) {
                a.step(0.1, &mut (), Some(&mut self.link.watch(name)));
            }
        }
        h.run_steps(1);
        std::thread::sleep(Duration::from_millis(15));
    }

    /// Frames until `done` holds (at most 300).
    fn until(
        &mut self,
        h: &mut Harness<'static, EditorApp>,
        what: &str,
        mut done: impl FnMut(&Self, &Harness<'static, EditorApp>) -> bool,
    ) {
        for _ in 0..300 {
            self.frame(h);
            if done(self, h) {
                return;
            }
        }
        panic!("waited 300 frames for {what}");
    }

    fn steps(&self, agent: usize) -> u64 {
        self.agents[agent].1.step_number()
    }
}

/// Chooses game `name` in the panel's Game list, once it is listed.
fn choose(h: &mut Harness<'static, EditorApp>, game: &mut Game, name: &str) {
    game.until(h, "the Game list", |_, h| {
        h.query_by_role_and_label(Role::ComboBox, "Game").is_some()
    });
    pick(h, name);
}

/// Chooses game `name` in the panel's Game list, which lists it.
fn pick(h: &mut Harness<'static, EditorApp>, name: &str) {
    h.get_by_role_and_label(Role::ComboBox, "Game").click();
    h.run_steps(2);
    h.get_by_label(name).click();
    h.run_steps(3);
}

/// Clicks node `id` (brought into view) and presses F9.
fn break_on(h: &mut Harness<'static, EditorApp>, id: &str) {
    key(h, Modifiers::COMMAND, Key::Num0);
    h.state_mut().focus(&NodeId::new(id));
    h.state_mut().select(None);
    h.run_steps(3);
    let at = on_node(h, id);
    click_at(h, at, PointerButton::Primary, Modifiers::NONE);
    key(h, Modifiers::NONE, Key::F9);
}

fn watched(h: &Harness<'static, EditorApp>) -> String {
    h.state()
        .simulation()
        .unwrap()
        .watched_name()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_live_games_held_agents_step_in_the_game_and_pause_holds_the_game() {
    let listener = Listener::local(0).unwrap();
    let addr = listener.address().clone();
    let mut h = harness(EditorApp::open(&tree()).unwrap().with_listener(listener));
    let mut game = Game::new(
        GameLink::connect_to(&hello("drill", &["unit-1", "unit-2"]), addr),
        &["unit-1", "unit-2"],
    );
    // unit-2 runs three steps ahead of unit-1.
    for _ in 0..3 {
        let (name, a) = &mut game.agents[1];
        a.step(0.1, &mut (), Some(&mut game.link.watch(name)));
    }
    choose(&mut h, &mut game, "drill");
    assert_eq!(watched(&h), "unit-1");
    // A breakpoint on Rest: unit-2 gets there first and the game holds it; the view stops
    // there and stays on unit-1.
    break_on(&mut h, "rest");
    game.until(&mut h, "unit-2 held", |_, h| {
        h.query_by_label_contains("held in the game: unit-2")
            .is_some()
    });
    assert_eq!(watched(&h), "unit-1", "the watched agent stays");
    h.get_by_label_contains("unit-2 is held in the game; still watching unit-1");
    // Run game: unit-2 goes on; both are held at Rest in their next runs.
    key(&mut h, Modifiers::NONE, Key::Space);
    game.until(&mut h, "both held", |_, h| {
        h.query_by_label_contains("held in the game: unit-1, unit-2")
            .is_some()
    });
    let held = game.steps(0);
    for _ in 0..5 {
        game.frame(&mut h);
    }
    assert_eq!(game.steps(0), held, "unit-1 waits");
    // The view goes back three steps; N steps unit-1 in the game (not the view through
    // steps it already has), and the view shows the newest step.
    for _ in 0..3 {
        key(&mut h, Modifiers::SHIFT, Key::ArrowLeft);
    }
    let run = h.state().simulation().unwrap();
    let head = run.source().unwrap().head();
    assert_eq!(run.step_number(), head - 3);
    key(&mut h, Modifiers::NONE, Key::N);
    game.until(&mut h, "the game's step", |g, h| {
        let run = h.state().simulation().unwrap();
        g.steps(0) == held + 1 && run.step_number() == run.source().unwrap().head()
    });
    for _ in 0..5 {
        game.frame(&mut h);
    }
    assert_eq!(game.steps(0), held + 1, "one step, then held again");
    // Without the breakpoint, Run game, then Pause game: every agent is held before its
    // next step.
    break_on(&mut h, "rest");
    h.get_by_label_contains("no breakpoint on rest");
    key(&mut h, Modifiers::NONE, Key::Space);
    game.until(&mut h, "both on their way", |g, _| g.steps(0) > held + 5);
    h.get_by_role_and_label(Role::Button, "Pause game").click();
    game.until(&mut h, "both held by Pause", |_, h| {
        h.query_by_label_contains("held in the game: unit-1, unit-2")
            .is_some()
    });
    let at = (game.steps(0), game.steps(1));
    for _ in 0..5 {
        game.frame(&mut h);
    }
    assert_eq!((game.steps(0), game.steps(1)), at, "the game is paused");
    h.get_by_role_and_label(Role::Button, "Run game");
}

#[test]
fn an_agent_the_game_does_not_stream_is_said_and_streamed_when_asked() {
    let listener = Listener::local(0).unwrap();
    let addr = listener.address().clone();
    let mut h = harness(EditorApp::open(&tree()).unwrap().with_listener(listener));
    let hello = hello("crowd", &["unit-1", "unit-2"]).streaming_only(&["unit-1"]);
    let mut game = Game::new(GameLink::connect_to(&hello, addr), &["unit-1", "unit-2"]);
    choose(&mut h, &mut game, "crowd");
    game.until(&mut h, "unit-1 lit", |_, h| {
        h.state().live_status(&NodeId::new("root")).is_some()
    });
    // Watch unit-2: nothing of it has come; the panel says why and offers to stream it.
    h.get_by_role_and_label(Role::ComboBox, "Watch").click();
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, "unit-2").click();
    h.run_steps(3);
    h.get_by_label_contains("The game does not stream unit-2");
    assert_eq!(h.state().live_status(&NodeId::new("root")), None);
    h.get_by_role_and_label(Role::Button, "Stream unit-2")
        .click();
    game.until(&mut h, "unit-2 lit", |_, h| {
        h.state().live_status(&NodeId::new("root")).is_some()
    });
    assert!(h.query_by_label_contains("does not stream").is_none());
}

#[test]
fn an_ended_game_is_cleared_from_the_menu_and_the_live_address_is_copied() {
    let listener = Listener::local(0).unwrap();
    let addr = listener.address().clone();
    let said = format!("ARBOR_LIVE={addr}");
    let mut h = harness(EditorApp::open(&tree()).unwrap().with_listener(listener));
    // Simulation > Copy Live Address.
    h.get_by_role_and_label(Role::Button, "Simulation").click();
    h.run_steps(2);
    h.get_by_label("Copy Live Address").click();
    h.step();
    let text = common::input::copied_now(&h);
    assert_eq!(text.as_deref(), Some(said.as_str()));
    h.run_steps(2);
    let _ = copied(&h);
    let mut game = Game::new(
        GameLink::connect_to(&hello("brief", &["unit-1"]), addr),
        &["unit-1"],
    );
    choose(&mut h, &mut game, "brief");
    drop(game.link);
    game.link = GameLink::connect_to(
        &hello("other", &["unit-1"]),
        EditorAddress {
            addr: std::net::SocketAddr::from(([127, 0, 0, 1], 9)),
            token: "x".into(),
        },
    );
    game.until(&mut h, "the game to end", |_, h| {
        h.query_by_label_contains("live: brief, ended").is_some()
    });
    h.get_by_role_and_label(Role::Button, "Simulation").click();
    h.run_steps(2);
    h.get_by_label("Clear Ended Games").click();
    h.run_steps(3);
    assert!(h.state().listener().unwrap().games().is_empty());
    assert!(
        h.state().status().contains("Cleared 1 ended game"),
        "{}",
        h.state().status()
    );
    // What the game sent stays to scrub through.
    key(&mut h, Modifiers::SHIFT, Key::ArrowLeft);
    assert!(h.state().simulation().unwrap().source().is_some());
}

#[test]
fn a_game_refused_for_its_token_is_said_in_the_status_line() {
    let listener = Listener::local(0).unwrap();
    let wrong = EditorAddress {
        addr: listener.addr(),
        token: "feedfacefeedface".into(),
    };
    let mut h = harness(EditorApp::open(&tree()).unwrap().with_listener(listener));
    let link = GameLink::connect_to(&hello("stray", &["unit-1"]), wrong);
    let mut said = String::new();
    for _ in 0..300 {
        h.run_steps(1);
        said = h.state().status().to_owned();
        if said.contains("refused") {
            break;
        }
        std::thread::sleep(Duration::from_millis(15));
    }
    assert!(
        said.contains("refused the game 'stray'") && said.contains("token"),
        "{said}"
    );
    assert!(!link.connected());
    assert!(h.query_by_role_and_label(Role::ComboBox, "Game").is_none());
}

#[test]
fn a_second_editor_listens_on_another_port_and_each_game_finds_its_own_editor() {
    let cards = tempfile::tempdir().unwrap();
    let projects = tempfile::tempdir().unwrap();
    let folder = |name: &str| {
        let f = projects.path().join(name);
        std::fs::create_dir_all(&f).unwrap();
        std::fs::copy(tree(), f.join("guard.json")).unwrap();
        std::fs::canonicalize(f).unwrap()
    };
    let (a, b) = (folder("a"), folder("b"));
    let first = arbor::editor::start_listening(None, Some(a.clone()), Some(cards.path()))
        .unwrap()
        .live
        .unwrap();
    let arbor::editor::Listening { live, said } =
        arbor::editor::start_listening(None, Some(b.clone()), Some(cards.path())).unwrap();
    let second = live.unwrap();
    assert_ne!(first.listener().addr(), second.listener().addr());
    assert!(
        said.as_ref().is_some_and(|s| s
            .as_ref()
            .is_ok_and(|s| s.starts_with("Live attach on port"))),
        "said quietly: {said:?}"
    );
    assert!(second.card().is_some_and(|c| c.starts_with(cards.path())));
    // A game of project b finds the second editor.
    let guard = b.join("guard.json");
    let hello = Hello::new("b-game", 0.1, 0, &[("u".into(), guard.clone())], &[guard]);
    let link = GameLink::connect_via(&hello, cards.path());
    for _ in 0..1500 {
        if link.connected() && second.listener().games().len() == 1 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(link.connected());
    assert_eq!(second.listener().games().len(), 1);
    assert!(first.listener().games().is_empty());
}

#[test]
fn the_timeline_of_a_game_spans_the_steps_the_editor_keeps_and_says_from_where() {
    let listener = Listener::local(0).unwrap();
    listener.set_window(arbor::debug::EventWindow {
        events: 400,
        bytes: usize::MAX,
    });
    let addr = listener.address().clone();
    let mut h = harness(EditorApp::open(&tree()).unwrap().with_listener(listener));
    let mut game = Game::new(
        GameLink::connect_to(&hello("long", &["unit-1"]), addr),
        &["unit-1"],
    );
    choose(&mut h, &mut game, "long");
    game.until(&mut h, "steps let go", |_, h| {
        h.state()
            .simulation()
            .and_then(|d| d.source())
            .is_some_and(|s| s.first_step() > 50)
    });
    let first = h
        .state()
        .simulation()
        .unwrap()
        .source()
        .unwrap()
        .first_step();
    h.get_by_label_contains(&format!("from step {}", first + 1));
    // The left end of the timeline is the first step kept, not step 0.
    let bar = h.get_by_label("Timeline").rect();
    let left = eframe::egui::Pos2::new(bar.left() + 6.5, bar.center().y);
    click_at(&mut h, left, PointerButton::Primary, Modifiers::NONE);
    let shown = h.state().simulation().unwrap().step_number();
    assert!(
        shown >= first && shown <= first + 5,
        "{shown}, the first kept {first}"
    );
}

#[test]
fn a_game_that_declares_thousands_of_kinds_is_said_in_one_line_and_its_kinds_are_found_by_name() {
    let listener = Listener::local(0).unwrap();
    let addr = listener.address().clone();
    let mut h = harness(EditorApp::open(&tree()).unwrap().with_listener(listener));
    let mut hello = hello("bazaar", &["unit-1"]);
    hello.libraries.push(arbor::remote::SentLibrary {
        name: "big".into(),
        text: common::big_trees::small_library(20_000),
    });
    let mut game = Game::new(GameLink::connect_to(&hello, addr), &["unit-1"]);
    choose(&mut h, &mut game, "bazaar");
    let status = h.state().status().to_owned();
    assert!(
        status.ends_with(
            "bazaar declares 20,000 kinds this project's libraries lack, shown as it declares them: Kind0, Kind1, Kind2 and 19,997 more"
        ),
        "{status}"
    );
    // The palette lists them, laying out those in view only; the last is found by name
    // and Enter adds it.
    assert!(
        h.query_by_role_and_label(Role::Button, "Kind19999")
            .is_none()
    );
    h.get_by_label("Find a kind").click();
    h.run_steps(2);
    h.get_by_label("Find a kind").type_text("kind19999");
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, "Kind19999");
    h.key_press(Key::Enter);
    h.run_steps(4);
    assert_eq!(h.state().tree().nodes().last().unwrap().kind, "Kind19999");
}

/// Types `text` at the end of the selected node's title in the inspector.
fn type_title(h: &mut Harness<'static, EditorApp>, text: &str) {
    h.get_by_label("title").click();
    h.run_steps(2);
    h.get_by_label("title").type_text(text);
    h.run_steps(3);
}

#[test]
fn a_tree_of_many_kinds_neither_the_project_nor_the_game_declares_looks_for_a_few_near_kinds_once()
{
    // The game declares 20,000 kinds; its tree has 400 nodes of them and 60 of kinds it
    // does not declare, each a slip of one of its names (Kidn0 for Kind0).
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.json");
    std::fs::write(&file, common::big_trees::game_tree(400, 60)).unwrap();
    let listener = Listener::local(0).unwrap();
    let addr = listener.address().clone();
    let mut app = EditorApp::open(&file).unwrap().with_listener(listener);
    app.select(Some(NodeId::new("all")));
    let mut h = harness(app);
    let mut hello = Hello::new(
        "bazaar",
        0.1,
        0,
        &[("unit-1".into(), file.clone())],
        &[file],
    );
    hello.libraries.push(arbor::remote::SentLibrary {
        name: "big".into(),
        text: common::big_trees::small_library(20_000),
    });
    let mut game = Game::new(GameLink::connect_to(&hello, addr), &[]);
    choose(&mut h, &mut game, "bazaar");
    let unknown = |h: &Harness<'static, EditorApp>| -> Vec<String> {
        h.state()
            .diagnostics()
            .iter()
            .filter(|d| d.rule == arbor::model::Rule::UnknownKind)
            .map(|d| d.message.clone())
            .collect()
    };
    let said = unknown(&h);
    assert_eq!(said.len(), 60, "{said:?}");
    assert!(said[0].ends_with("did you mean 'Kind0'?"), "{}", said[0]);
    // The first few names each get a near kind, looked for once among the 20,000; the
    // others none.
    let hinted = said.iter().filter(|m| m.contains("did you mean")).count();
    assert_eq!(hinted, arbor::model::HINTED_KINDS);
    assert_eq!(
        h.state().catalog().kinds_looked_for(),
        arbor::model::HINTED_KINDS
    );
    // Edits check the tree again without looking again.
    for text in [" one", " two", " three"] {
        type_title(&mut h, text);
    }
    let title = &h.state().tree().node(&NodeId::new("all")).unwrap().title;
    assert_eq!(title.len(), " one two three".len(), "{title}");
    assert_eq!(unknown(&h), said);
    assert_eq!(
        h.state().catalog().kinds_looked_for(),
        arbor::model::HINTED_KINDS
    );
}

/// The hello of a game of one agent, `unit-1`, that names `named` as the tree file it runs,
/// with the sketch's text as that file's.
fn hello_naming(game: &str, named: &std::path::Path) -> Hello {
    let mut hello = hello(game, &["unit-1"]);
    let path = named.display().to_string();
    hello.run.agents[0].tree = path.clone();
    hello.run.files[0].path = path.clone();
    hello.trees[0].path = path;
    hello
}

/// Runs `body` on a thread of its own, waiting for it at most `secs` seconds: an editor
/// that waits on a file for ever fails the test instead of hanging it.
fn within(secs: u64, what: &str, body: impl FnOnce() + Send + 'static) {
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        body();
        let _ = done.send(());
    });
    match finished.recv_timeout(Duration::from_secs(secs)) {
        Ok(()) => {}
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: still waiting after {secs} s")
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => panic!("{what} failed"),
    }
}

/// An editor on a copy of the sketch in a project folder of its own, listening.
fn editor_in_project(project: &std::path::Path) -> Harness<'static, EditorApp> {
    common::copy_samples(project, &["mock_sketch.json"]);
    let listener = Listener::local(0).unwrap();
    harness(
        EditorApp::open(&project.join("mock_sketch.json"))
            .unwrap()
            .with_listener(listener),
    )
}

/// Connects game `name`, whose one agent runs the file `named`, to the editor of `h`,
/// chooses it and waits until it is shown; the game, and what the status line says.
fn show_game_naming(
    h: &mut Harness<'static, EditorApp>,
    name: &str,
    named: &std::path::Path,
) -> (Game, String) {
    let addr = h.state().listener().unwrap().address().clone();
    let mut game = Game::new(
        GameLink::connect_to(&hello_naming(name, named), addr),
        &["unit-1"],
    );
    choose(h, &mut game, name);
    let said = format!("Showing {name} live");
    game.until(h, "the game shown", |_, h| {
        h.state().status().contains(&said)
    });
    let status = h.state().status().to_owned();
    (game, status)
}

#[cfg(unix)]
#[test]
fn a_game_naming_a_fifo_in_the_project_never_stops_the_editor_and_the_tree_it_sent_is_shown() {
    within(120, "the editor, a game naming a FIFO", || {
        let project = tempfile::tempdir().unwrap();
        let mut h = editor_in_project(project.path());
        let fifo = project.path().join("guard.json");
        common::mkfifo(&fifo);
        let (_game, said) = show_game_naming(&mut h, "piped", &fifo);
        assert!(
            said.contains(&format!(
                "{}: cannot read: it is a FIFO (named pipe), not a regular file: this is the tree piped sent",
                fifo.display()
            )),
            "{said}"
        );
        assert!(h.state().document().path().is_none(), "shown unsaved");
        assert_eq!(
            h.state().tree().len(),
            arbor::io::load_tree(&tree()).unwrap().len()
        );
    });
}

#[cfg(unix)]
#[test]
fn a_tree_file_a_game_names_outside_the_project_is_not_read_and_ctrl_s_never_writes_it() {
    let project = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let outside = elsewhere.path().join("guard.json");
    std::fs::copy(tree(), &outside).unwrap();
    let before = std::fs::read(&outside).unwrap();
    let mut h = editor_in_project(project.path());
    let (game, said) = show_game_naming(&mut h, "far", &outside);
    assert!(
        said.contains(&format!(
            "{} lies outside this project's folder",
            outside.display()
        )) && said.contains("this is the tree far sent (Save As keeps it)"),
        "{said}"
    );
    assert!(h.state().document().path().is_none(), "shown unsaved");
    // Edited, then Ctrl+S: the editor asks where to save it; the game's file stays.
    key(&mut h, Modifiers::COMMAND, Key::A);
    key(&mut h, Modifiers::COMMAND, Key::D);
    assert!(h.state().is_dirty());
    key(&mut h, Modifiers::COMMAND, Key::S);
    h.get_by_label("Save the tree as");
    assert_eq!(std::fs::read(&outside).unwrap(), before, "not written");
    h.key_press(Key::Escape);
    h.run_steps(2);
    // A link in the project to a device is outside it too: never read.
    drop(game);
    let zero = project.path().join("zero.json");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let mut h = editor_in_project(project.path());
    let (_game, said) = show_game_naming(&mut h, "zero", &zero);
    assert!(
        said.contains(&format!(
            "{} lies outside this project's folder",
            zero.display()
        )),
        "{said}"
    );
}

#[test]
fn a_game_of_thousands_of_agents_is_shown_live_and_edits_look_at_no_agents_tree_file_again() {
    // 5,000 agents, each running one of 50 copies of the sketch; the editor shows the first
    // copy, opened by a path of its own spelling, so only a look on disk tells the files.
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = (0..50)
        .map(|k| {
            let f = dir.path().join(format!("unit_{k}.json"));
            std::fs::copy(tree(), &f).unwrap();
            f
        })
        .collect();
    let agents: Vec<(String, PathBuf)> = (0..5_000)
        .map(|i| (format!("unit-{i}"), files[i % 50].clone()))
        .collect();
    let hello = Hello::new("horde", 0.1, 0, &agents, &files);
    let listener = Listener::local(0).unwrap();
    let addr = listener.address().clone();
    let shown = dir.path().join(".").join("unit_0.json");
    let mut app = EditorApp::open(&shown).unwrap().with_listener(listener);
    app.select(Some(NodeId::new("main")));
    let mut h = harness(app);
    let mut game = Game::new(GameLink::connect_to(&hello, addr), &["unit-0"]);
    choose(&mut h, &mut game, "horde");
    game.until(&mut h, "unit-0 lit", |_, h| {
        h.state().live_status(&NodeId::new("root")).is_some()
    });
    let looked =
        |h: &Harness<'static, EditorApp>| h.state().simulation().unwrap().tree_files_looked_at();
    // Each of the 50 files is looked at once, not once an agent.
    assert!(looked(&h) <= 50, "{} looks", looked(&h));
    let before = looked(&h);
    for text in [" one", " two", " three"] {
        type_title(&mut h, text);
        game.frame(&mut h);
    }
    let title = &h.state().tree().node(&NodeId::new("main")).unwrap().title;
    assert_eq!(title.len(), "Main one two three".len(), "{title}");
    assert_eq!(looked(&h), before, "edits and frames look at no file again");
}

#[test]
fn a_tree_file_of_the_project_a_game_names_is_read_off_the_ui_thread_and_opened() {
    let project = tempfile::tempdir().unwrap();
    let mut h = editor_in_project(project.path());
    let guard = project.path().join("guard.json");
    std::fs::copy(tree(), &guard).unwrap();
    let _game = show_game_naming(&mut h, "near", &guard);
    let shown = h.state().document().path().unwrap().to_owned();
    assert!(arbor::io::same_file(&shown, &guard), "{}", shown.display());
    assert!(!h.state().is_dirty());
    assert_eq!(watched(&h), "unit-1");
}

#[test]
fn a_game_connected_to_the_editor_is_chosen_in_the_panel_and_shown_live() {
    use arbor::remote::{GameLink, Hello, Listener};
    let tree = common::repo().join("sample_trees/mock_sketch.json");
    let listener = Listener::local(0).unwrap();
    let addr = listener.address().clone();
    let mut h = harness(EditorApp::open(&tree).unwrap().with_listener(listener));
    // The game: two agents of the tree open in the editor, both watched.
    let names = ["unit-1", "unit-2"];
    let agents: Vec<(String, std::path::PathBuf)> = names
        .iter()
        .map(|n| ((*n).to_owned(), tree.clone()))
        .collect();
    let hello = Hello::new("skirmish", 0.1, 0, &agents, std::slice::from_ref(&tree));
    let link = GameLink::connect_to(&hello, addr);
    let program = program_of(&tree);
    let mut units: Vec<arbor::runtime::Instance<()>> = (0..2)
        .map(|i| {
            let mut u = arbor::runtime::Instance::new(program.clone(), i);
            u.record_states(true);
            u
        })
        .collect();
    let play = |units: &mut Vec<arbor::runtime::Instance<()>>, steps: u32| {
        for _ in 0..steps {
            for (u, name) in units.iter_mut().zip(names) {
                u.step(0.1, &mut (), Some(&mut link.watch(name)));
            }
        }
    };
    for _ in 0..200 {
        if link.connected() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    play(&mut units, 20);
    // The panel lists the game; choosing it shows it live.
    choose_game(&mut h, "skirmish");
    h.get_by_label_contains("live: skirmish, connected");
    let shows = |h: &Harness<'static, EditorApp>, unit: &arbor::runtime::Instance<()>| {
        program
            .node_ids()
            .iter()
            .zip(unit.node_states())
            .all(|(id, s)| {
                let want =
                    (s.status != arbor::runtime::Status::Idle || s.entries > 0).then_some(s.status);
                h.state().live_status(&NodeId::new(id.as_str())) == want
            })
    };
    let mut matched = false;
    for _ in 0..100 {
        h.run_steps(1);
        if shows(&h, &units[0]) {
            matched = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(matched, "the canvas shows unit-1 at step 20");
    // It follows the game as it runs on.
    play(&mut units, 17);
    let mut followed = false;
    for _ in 0..100 {
        h.run_steps(1);
        if h.state().simulation().unwrap().step_number() == 37 && shows(&h, &units[0]) {
            followed = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(followed, "the canvas follows the game to step 37");
    // The game stops: the panel says its run ended; the recording stays to scrub through.
    drop(link);
    let mut ended = false;
    for _ in 0..100 {
        h.run_steps(1);
        if h.query_by_label_contains("live: skirmish, ended").is_some() {
            ended = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(ended, "the panel says the game ended");
    key(&mut h, Modifiers::SHIFT, Key::ArrowLeft);
    assert_eq!(h.state().simulation().unwrap().step_number(), 36);
}

#[test]
fn a_breakpoint_stops_only_the_agents_of_the_tree_it_is_set_on_and_another_trees_agent_is_not_lit()
{
    // guard_patrol: the guard runs this tree, the intruder chase_flee.json; both trees have
    // a node with the id "chase" (the guard's a MoveTo, the intruder's a Sequence).
    let (_dir, trace) = recorded_guard_patrol();
    let mut h = harness(EditorApp::sample());
    open_trace_through_the_menu(&mut h, &trace);
    break_on_and_run(&mut h, "chase");
    // The intruder enters its own "chase" at step 67: the run goes on to the guard's, at 74.
    assert_eq!(h.state().simulation().unwrap().step_number(), 74);
    h.get_by_label_contains("Breakpoint: chase on enter of guard, step 74");
    // Watching the intruder: its nodes are another tree's, so nothing here is lit.
    h.get_by_role_and_label(Role::ComboBox, "Watch").click();
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, "intruder").click();
    h.run_steps(3);
    h.get_by_label_contains("intruder runs chase_flee.json, not this tree");
    assert_eq!(h.state().live_status(&NodeId::new("chase")), None);
    assert_eq!(h.state().live_status(&NodeId::new("root")), None);
    // The same in the live run of the scenario.
    let mut h = open_sample("guard_patrol");
    break_on_and_run(&mut h, "chase");
    assert_eq!(h.state().simulation().unwrap().step_number(), 74);
}

#[test]
fn a_breakpoint_set_in_the_editor_pauses_the_games_agent_and_n_and_space_step_and_release_it() {
    use arbor::remote::{GameLink, Hello, Listener};
    let tree = common::repo().join("sample_trees/mock_sketch.json");
    let listener = Listener::local(0).unwrap();
    let addr = listener.address().clone();
    let mut h = harness(EditorApp::open(&tree).unwrap().with_listener(listener));
    let agents = [("unit-1".to_owned(), tree.clone())];
    let link = GameLink::connect_to(
        &Hello::new("drill", 0.1, 0, &agents, std::slice::from_ref(&tree)),
        addr,
    );
    let program = program_of(&tree);
    let mut unit = arbor::runtime::Instance::new(program, 0);
    // The game's frame: the unit steps when the editor lets it.
    let mut frame = |h: &mut Harness<'static, EditorApp>| {
        if link.may_step("unit-1") {
            unit.step(0.1, &mut (), Some(&mut link.watch("unit-1")));
        }
        h.run_steps(1);
        std::thread::sleep(std::time::Duration::from_millis(20));
        unit.step_number()
    };
    let mut listed = false;
    for _ in 0..200 {
        frame(&mut h);
        if h.query_by_role_and_label(Role::ComboBox, "Game").is_some() {
            listed = true;
            break;
        }
    }
    assert!(listed);
    h.get_by_role_and_label(Role::ComboBox, "Game").click();
    h.run_steps(2);
    h.get_by_label("drill").click();
    h.run_steps(3);
    // F9 on Rest (the sketch's guard fails from step 8 on, so the unit rests every run):
    // the game's unit pauses when it enters it.
    h.state_mut().focus(&NodeId::new("rest"));
    h.state_mut().select(None);
    h.run_steps(3);
    let at = on_node(&h, "rest");
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    key(&mut h, Modifiers::NONE, Key::F9);
    let mut paused = false;
    for _ in 0..200 {
        frame(&mut h);
        if h.query_by_label_contains("held in the game: unit-1")
            .is_some()
        {
            paused = true;
            break;
        }
    }
    assert!(paused, "the game paused its unit at the breakpoint");
    let held = frame(&mut h);
    for _ in 0..10 {
        assert_eq!(frame(&mut h), held, "the unit waits");
    }
    // N at the newest step: the game steps it once.
    key(&mut h, Modifiers::NONE, Key::N);
    let mut stepped = held;
    for _ in 0..50 {
        stepped = frame(&mut h);
        if stepped > held {
            break;
        }
    }
    assert_eq!(stepped, held + 1);
    for _ in 0..10 {
        assert_eq!(frame(&mut h), held + 1, "then waits again");
    }
    // Space: it runs on, to the next time it rests (every run: the breakpoint again).
    key(&mut h, Modifiers::NONE, Key::Space);
    let mut ran = held + 1;
    for _ in 0..50 {
        ran = frame(&mut h);
        if ran >= held + 2 {
            break;
        }
    }
    assert!(ran >= held + 2, "the unit runs on after Run");
    // A trigger button of the tree's Interrupt sends it to the game, for the unit.
    h.get_by_role_and_label(Role::Button, "⚡ alarm").click();
    let mut given = Vec::new();
    for _ in 0..100 {
        frame(&mut h);
        given.extend(link.take_triggers());
        if !given.is_empty() {
            break;
        }
    }
    assert_eq!(given.len(), 1, "the game got the trigger");
    assert_eq!(
        (given[0].agent.as_str(), given[0].id.as_str()),
        ("unit-1", "alarm")
    );
}

/// The tree file `tree` compiled with the built-in behaviours, as a game would run it.
fn program_of(tree: &std::path::Path) -> std::sync::Arc<arbor::runtime::Program<()>> {
    let loaded = arbor::io::load_tree(tree).unwrap();
    std::sync::Arc::new(
        arbor::runtime::Program::compile(
            &loaded,
            &arbor::model::Catalog::builtin(),
            &arbor::model::NoAssets,
            &arbor::runtime::Behaviours::<()>::with_builtins(),
        )
        .unwrap(),
    )
}

/// Brings `node` into view (a tree opens at a readable zoom, part of it off the canvas),
/// clicks it, sets a breakpoint with F9, and runs (Space) until the run stops (at most 80
/// frames).
fn break_on_and_run(h: &mut Harness<'static, EditorApp>, node: &str) {
    break_on(h, node);
    key(h, Modifiers::NONE, Key::Space);
    for _ in 0..80 {
        h.run_steps(1);
        if !h.state().simulation().unwrap().is_running() {
            break;
        }
    }
}

/// Waits for the panel to list game `name`, and chooses it in the Game list.
fn choose_game(h: &mut Harness<'static, EditorApp>, name: &str) {
    let mut listed = false;
    for _ in 0..100 {
        h.run_steps(1);
        if h.query_by_role_and_label(Role::ComboBox, "Game").is_some() {
            listed = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(listed, "the panel lists the game");
    pick(h, name);
}

/// The node library of examples/my_game, as its code registers it.
fn my_game_library() -> arbor::io::Library {
    let path = common::repo().join("examples/my_game/ai/my_game.nodes.json");
    let text = std::fs::read_to_string(&path).unwrap();
    arbor::io::parse_library(&text, &path).unwrap().0
}

#[test]
fn a_game_whose_tree_and_kinds_this_editor_lacks_is_shown_with_the_tree_and_kinds_it_sent() {
    use arbor::remote::{GameLink, Hello, Listener};
    // The game runs a tree of its own kinds from a folder this editor will not find.
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("guard.json");
    std::fs::copy(common::repo().join("examples/my_game/guard.json"), &tree).unwrap();
    let agents = [("soldier-1".to_owned(), tree.clone())];
    let hello = Hello::new("far_game", 0.1, 0, &agents, std::slice::from_ref(&tree))
        .with_library(&my_game_library())
        .unwrap();
    drop(dir);
    assert!(!tree.exists());
    let listener = Listener::local(0).unwrap();
    let addr = listener.address().clone();
    let door_room = common::repo().join("sample_trees/door_room.json");
    let mut h = harness(EditorApp::open(&door_room).unwrap().with_listener(listener));
    assert!(h.state().catalog().kind("FireWeapon").is_none());
    let link = GameLink::connect_to(&hello, addr);
    choose_game(&mut h, "far_game");
    // The tree shown is the one the game sent, unsaved, drawn with the game's kinds.
    let app = h.state();
    assert!(app.document().path().is_none());
    assert_eq!(
        app.tree().node(&NodeId::new("fire")).unwrap().kind,
        "FireWeapon"
    );
    for kind in ["FireWeapon", "TakeCover", "IsUnderFire"] {
        let spec = app.catalog().kind(kind).unwrap();
        assert!(
            !spec.is_placeholder(),
            "{kind} is the game's, not a placeholder"
        );
    }
    assert!(
        app.status().contains("is not on this machine"),
        "{}",
        app.status()
    );
    assert!(
        app.status()
            .contains("shown as it declares them: FireWeapon, TakeCover, IsUnderFire"),
        "{}",
        app.status()
    );
    assert_eq!(
        h.query_all_by_label_contains("this is the tree far_game sent")
            .count(),
        2,
        "the panel's note and the status line say so"
    );
    // Back to the tree's own run: the game's kinds go with the game.
    h.get_by_role_and_label(Role::ComboBox, "Game").click();
    h.run_steps(2);
    h.get_by_label("this tree's own run").click();
    h.run_steps(3);
    assert!(
        h.state()
            .catalog()
            .kind("FireWeapon")
            .unwrap()
            .is_placeholder()
    );
    drop(link);
}

#[test]
fn a_game_whose_code_declares_a_kind_otherwise_than_the_projects_library_is_flagged() {
    use arbor::remote::{GameLink, Hello, Listener};
    let tree = common::repo().join("examples/my_game/guard.json");
    // The game's code changed FireWeapon since its library file was written.
    let mut library = my_game_library();
    let fire = library
        .kinds
        .iter_mut()
        .find(|k| k.name == "FireWeapon")
        .unwrap();
    fire.help = "Fires twice as fast.".into();
    let agents = [("soldier-1".to_owned(), tree.clone())];
    let hello = Hello::new("my_game", 0.1, 0, &agents, std::slice::from_ref(&tree))
        .with_library(&library)
        .unwrap();
    let listener = Listener::local(0).unwrap();
    let addr = listener.address().clone();
    let mut h = harness(EditorApp::open(&tree).unwrap().with_listener(listener));
    let link = GameLink::connect_to(&hello, addr);
    choose_game(&mut h, "my_game");
    let status = h.state().status().to_owned();
    assert!(
        status.contains("my_game declares FireWeapon otherwise than this project's libraries"),
        "{status}"
    );
    assert!(
        !status.contains("lack"),
        "the project has every kind: {status}"
    );
    // The project's own declaration stays in use.
    let ours = h.state().catalog().kind("FireWeapon").unwrap();
    assert_eq!(
        ours.help,
        "Fires the equipped weapon at the target in context."
    );
    drop(link);
}

#[test]
fn what_a_live_game_sent_is_saved_from_the_file_menu_as_a_trace_that_replays() {
    let listener = Listener::local(0).unwrap();
    let addr = listener.address().clone();
    let mut h = harness(EditorApp::open(&tree()).unwrap().with_listener(listener));
    let mut game = Game::new(
        GameLink::connect_to(&hello("saver", &["unit-1"]), addr),
        &["unit-1"],
    );
    choose(&mut h, &mut game, "saver");
    game.until(&mut h, "twenty steps", |g, h| {
        g.steps(0) >= 20
            && h.state()
                .simulation()
                .and_then(|s| s.source())
                .is_some_and(|s| s.head() >= 20)
    });
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("saver.arbtrace");
    save_recording_as(&mut h, &record);
    assert!(record.is_file(), "{}", h.state().last_message());
    // The game's tree is on this machine: the trace names it, and nothing is written
    // beside it. Its events are those the editor holds of the game, in order.
    let trace = arbor::io::read_trace(&record).unwrap();
    let named = &trace.header.as_ref().unwrap().agents[0].tree;
    assert!(std::path::Path::new(named).is_file(), "{named}");
    assert!(!dir.path().join("saver.recorded.json").exists());
    let held = h
        .state()
        .simulation()
        .unwrap()
        .source()
        .unwrap()
        .replayed()
        .unwrap()
        .trace()
        .events
        .clone();
    assert_eq!(trace.events.len(), held.len());
    for (a, b) in trace.events.iter().zip(&held) {
        assert_eq!((a.step, &a.node, &a.kind), (b.step, &b.node, &b.kind));
    }
}
