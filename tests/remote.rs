//! Live attach: a game connects to the editor's listener and sends its watched agents'
//! events as it runs; what arrives replays to what the game's agents showed; bad and
//! hostile peers end their own connection only, cannot keep a game out, and every
//! refusal is said on both sides.
#![cfg(feature = "remote")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::until;

use arbor::debug::{BreakOn, GameBreakpoint, GameCommand, GameTrigger, Replay};
use arbor::io::TraceFile;
use arbor::remote::{EditorAddress, GameLink, Hello, Listener};
use arbor::runtime::{Instance, Status};

fn hello(game: &str, agents: &[&str]) -> Hello {
    let tree = common::repo().join("sample_trees/mock_sketch.json");
    let agents: Vec<(String, std::path::PathBuf)> = agents
        .iter()
        .map(|a| ((*a).to_owned(), tree.clone()))
        .collect();
    Hello::new(game, 0.1, 0, &agents, std::slice::from_ref(&tree))
}

/// A game's link to `listener`, with its token.
fn link_to(listener: &Listener, hello: &Hello) -> GameLink {
    GameLink::connect_to(hello, listener.address().clone())
}

/// The hello line a raw peer sends to `listener` (with its token).
fn hello_line(listener: &Listener, game: &str, agents: &[&str]) -> String {
    let mut h = hello(game, agents);
    h.token = listener.address().token.clone();
    serde_json::to_string(&h).unwrap() + "\n"
}

/// The id of the only game listed.
fn only(listener: &Listener) -> u64 {
    let games = listener.games();
    assert_eq!(games.len(), 1, "{games:?}");
    games[0].id
}

#[test]
fn a_game_sends_its_watched_agents_and_the_editor_replays_what_they_showed() {
    let listener = Listener::local(0).unwrap();
    let names = ["guard-1", "guard-2", "guard-3"];
    let link = link_to(&listener, &hello("my_game", &names));
    until("the game to connect", || link.connected());
    let program = common::mock_sketch();
    let mut agents: Vec<Instance<()>> = (0..3)
        .map(|i| {
            let mut a = Instance::new(program.clone(), i);
            a.record_states(true);
            a
        })
        .collect();
    // Two agents watched, the third not.
    let mut sent = 0;
    for step in 0..60 {
        for (i, a) in agents.iter_mut().enumerate() {
            if i < 2 {
                let mut watch = link.watch(names[i]);
                let mut count = |e: &arbor::runtime::Event<'_>| {
                    sent += 1;
                    arbor::runtime::Observer::event(&mut watch, e);
                };
                a.step(0.1, &mut (), Some(&mut count));
            } else {
                a.step(0.1, &mut (), None);
            }
            if step == 30 && i == 0 {
                a.trigger("alarm", None);
            }
        }
    }
    until("every event to arrive", || {
        listener
            .games()
            .first()
            .is_some_and(|g| g.received == sent as u64)
    });
    let game = listener.games()[0].clone();
    assert_eq!((game.name.as_str(), game.run), ("my_game", 1));
    assert_eq!(game.dropped, 0);
    let got = listener.since(game.id, 0, 0).unwrap();
    assert_eq!((got.missed, got.next), (0, sent as u64));
    let mut replay = Replay::new(TraceFile {
        header: Some(game.hello.run.clone()),
        agents: got.agents,
        events: got.events,
        cut: None,
    });
    replay.seek(60);
    for (i, name) in names.iter().enumerate().take(2) {
        let a = replay.agent(i).unwrap();
        assert_eq!(replay.agent_names()[i], *name);
        for (id, state) in program.node_ids().iter().zip(agents[i].node_states()) {
            if state.status == Status::Idle && state.entries == 0 {
                continue;
            }
            let got = &a.nodes[&Arc::from(id.as_str())];
            assert_eq!(got.status, state.status, "{name} {id}");
            assert_eq!(got.entries, state.entries, "{name} {id}");
        }
    }
    // The unwatched agent sent nothing.
    assert!(replay.agent(2).is_none_or(|a| a.nodes.is_empty()));
    // Asked from where it has got to, nothing new.
    let again = listener.since(game.id, sent as u64, 3).unwrap();
    assert!(again.events.is_empty() && again.agents.is_empty());
}

#[test]
fn a_game_started_before_the_editor_connects_when_it_comes() {
    let addr = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let token = arbor::remote::new_token().unwrap();
    let link = GameLink::connect_to(
        &hello("early", &["a"]),
        EditorAddress {
            addr,
            token: token.clone(),
        },
    );
    std::thread::sleep(Duration::from_millis(700));
    assert!(!link.connected());
    // Stepping with no editor sends nothing and never waits.
    let program = common::mock_sketch();
    let mut a = Instance::new(program, 0);
    let started = Instant::now();
    for _ in 0..1000 {
        a.step(0.1, &mut (), Some(&mut link.watch("a")));
    }
    assert!(started.elapsed() < Duration::from_secs(5));
    let listener = Listener::bind(addr, token).unwrap();
    until("the game to connect", || link.connected());
    until("the editor to list it", || listener.games().len() == 1);
    assert_eq!(listener.games()[0].name, "early");
}

/// A raw connection that sends `lines`, as a broken or hostile game would.
fn raw(listener: &Listener, lines: &[&[u8]]) -> TcpStream {
    let mut s = TcpStream::connect(listener.addr()).unwrap();
    for l in lines {
        s.write_all(l).unwrap();
    }
    s
}

#[test]
fn bad_messages_end_only_their_own_connection_with_the_reason() {
    let listener = Listener::local(0).unwrap();
    let hello_g = hello_line(&listener, "g", &["a"]);
    let _first = raw(
        &listener,
        &[
            hello_g.as_bytes(),
            b"{\"step\":1,\"agent\":\"a\",\"event\":\"jump\",\"node\":\"n\"}\n",
        ],
    );
    until("the first game to end", || {
        listener.games().first().is_some_and(|g| !g.connected)
    });
    let problem = listener.games()[0].problem.clone().unwrap();
    assert!(
        problem.contains("message 2: unknown event 'jump'"),
        "{problem}"
    );
    // A game of the same name connects again: it takes the ended game's place, its
    // first run listed under it.
    let live = link_to(&listener, &hello("g", &["a"]));
    until("g to connect", || live.connected());
    let g = &listener.games()[0];
    assert_eq!((g.run, g.earlier.len(), listener.games().len()), (2, 1, 1));
    assert!(
        g.earlier[0]
            .problem
            .as_deref()
            .is_some_and(|p| p.contains("jump"))
    );
    // A second game of the same name while the first is connected is told apart.
    let twin = link_to(&listener, &hello("g", &["a"]));
    until("the twin to connect", || twin.connected());
    until("both listed", || listener.games().len() == 2);
    let names: Vec<String> = listener.games().iter().map(|g| g.name.clone()).collect();
    assert_eq!(names, ["g", "g (2)"]);
    // Too long a message; a game that goes away in the middle of one; a message that is
    // neither an event nor a game's.
    let long = vec![b'x'; arbor::io::MAX_TRACE_LINE + 10];
    let h1 = hello_line(&listener, "long", &["a"]);
    let h2 = hello_line(&listener, "cut", &["a"]);
    let h3 = hello_line(&listener, "odd", &["a"]);
    drop(raw(&listener, &[h1.as_bytes(), &long]));
    drop(raw(
        &listener,
        &[h2.as_bytes(), b"{\"step\":1,\"agent\":\"a\""],
    ));
    drop(raw(&listener, &[h3.as_bytes(), b"{\"jump\":1}\n"]));
    until("the three to end", || {
        let g = listener.games();
        g.len() == 5 && g[2..].iter().all(|g| !g.connected)
    });
    let problem = |name: &str| {
        listener
            .games()
            .iter()
            .find(|g| g.name == name)
            .and_then(|g| g.problem.clone())
            .unwrap_or_default()
    };
    assert!(
        problem("long").contains("longer than"),
        "{}",
        problem("long")
    );
    assert!(
        problem("cut").contains("middle of a message"),
        "{}",
        problem("cut")
    );
    assert!(
        problem("odd").contains("neither an event nor a game's message"),
        "{}",
        problem("odd")
    );
    // What is not a game at all is not listed, and the editor says so.
    let _http = raw(&listener, &[b"GET / HTTP/1.1\r\n\r\n"]);
    until("the notice", || {
        listener
            .take_notices()
            .iter()
            .any(|n| n.contains("not a game's hello") && n.contains("it was closed"))
    });
    assert_eq!(listener.games().len(), 5);
    assert!(live.connected() && twin.connected());
    // Clear Ended Games: the three ended go, the two connected stay.
    assert_eq!(listener.clear_ended(), 3);
    assert_eq!(listener.games().len(), 2);
}

/// Sends `command` to game `id` and waits until the game has it.
fn tell(listener: &Listener, id: u64, link: &GameLink, command: &GameCommand) {
    let before = link.told();
    assert!(listener.send(id, command));
    until("the game to hear it", || link.told() > before);
}

/// A breakpoint on entering `node`, for `agents` (`None`: every agent).
fn on_enter(node: &str, agents: Option<&[&str]>) -> GameCommand {
    GameCommand::Breakpoints(vec![GameBreakpoint {
        node: node.into(),
        on: BreakOn::Enter,
        agents: agents.map(|a| a.iter().map(|n| (*n).to_owned()).collect()),
    }])
}

/// The game's frame: each agent it may step, stepped and watched.
fn frame(link: &GameLink, agents: &mut [(&str, Instance<()>)]) {
    for (name, a) in agents.iter_mut() {
        if link.may_step(name) {
            a.step(0.1, &mut (), Some(&mut link.watch(name)));
        }
    }
}

/// Frames until the game holds an agent (at most 50).
fn until_held(link: &GameLink, agents: &mut [(&str, Instance<()>)]) {
    for _ in 0..50 {
        frame(link, agents);
        if !link.paused().is_empty() {
            return;
        }
    }
}

#[test]
fn the_editor_pauses_a_game_agent_at_a_breakpoint_steps_and_continues_it() {
    let listener = Listener::local(0).unwrap();
    let link = link_to(&listener, &hello("g", &["a", "b"]));
    until("the game to connect", || link.connected());
    until("the editor to list it", || listener.games().len() == 1);
    let id = only(&listener);
    // A breakpoint on entering `build`, for agent a only.
    tell(&listener, id, &link, &on_enter("build", Some(&["a"])));
    let program = common::mock_sketch();
    let mut agents: Vec<(&str, Instance<()>)> = ["a", "b"]
        .into_iter()
        .map(|n| (n, Instance::new(program.clone(), 0)))
        .collect();
    until_held(&link, &mut agents);
    assert_eq!(link.paused(), ["a"], "a stopped at its breakpoint");
    let (held, other) = (agents[0].1.step_number(), agents[1].1.step_number());
    for _ in 0..10 {
        frame(&link, &mut agents);
    }
    assert_eq!(agents[0].1.step_number(), held, "a waits");
    assert_eq!(agents[1].1.step_number(), other + 10, "b goes on");
    until("the editor to hear of the pause", || {
        listener.games()[0].paused.iter().eq(["a"].iter())
    });
    // Step: one step, then paused again. A step for an agent not held does nothing.
    tell(&listener, id, &link, &GameCommand::Step("b".into()));
    tell(&listener, id, &link, &GameCommand::Step("a".into()));
    for _ in 0..5 {
        frame(&link, &mut agents);
    }
    assert_eq!(agents[0].1.step_number(), held + 1);
    // A trigger, for the game to give; one for an agent it does not have is not kept.
    let trigger = |agent: &str| {
        GameCommand::Trigger(GameTrigger {
            agent: agent.into(),
            id: "alarm".into(),
            payload: Some("north gate".into()),
        })
    };
    tell(&listener, id, &link, &trigger("ghost"));
    tell(&listener, id, &link, &trigger("b"));
    let given = link.take_triggers();
    assert_eq!(given.len(), 1);
    assert_eq!(
        (given[0].agent.as_str(), given[0].id.as_str()),
        ("b", "alarm")
    );
    assert_eq!(given[0].payload.as_deref(), Some("north gate"));
    // Continue: a runs on.
    tell(&listener, id, &link, &GameCommand::Continue(None));
    frame(&link, &mut agents);
    assert_eq!(agents[0].1.step_number(), held + 2);
    assert!(listener.games()[0].paused.is_empty());
    // Pause: every agent the game asks about is held, and the editor hears of each.
    tell(&listener, id, &link, &GameCommand::Pause(None));
    let (a_at, b_at) = (agents[0].1.step_number(), agents[1].1.step_number());
    frame(&link, &mut agents);
    assert_eq!(
        (agents[0].1.step_number(), agents[1].1.step_number()),
        (a_at, b_at),
        "both held"
    );
    until("the editor to hear of both", || {
        listener.games()[0].paused.len() == 2
    });
    // A breakpoint for every agent (none named): both held at `rest` in turn.
    tell(&listener, id, &link, &GameCommand::Continue(None));
    tell(&listener, id, &link, &on_enter("rest", None));
    for _ in 0..60 {
        frame(&link, &mut agents);
        if link.paused().len() == 2 {
            break;
        }
    }
    assert_eq!(link.paused(), ["a", "b"]);
    // The editor's heartbeat keeps them held past five seconds of no command.
    std::thread::sleep(arbor::remote::RELEASE_AFTER + Duration::from_millis(700));
    assert!(!link.may_step("a"), "held while the editor is there");
}

/// An editor that says the welcome and `lines`, then nothing, the connection open.
fn silent_editor(lines: &'static [u8]) -> EditorAddress {
    let fake = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = fake.local_addr().unwrap();
    std::thread::spawn(move || {
        let (stream, _) = fake.accept().unwrap();
        let mut line = String::new();
        BufReader::new(stream.try_clone().unwrap())
            .read_line(&mut line)
            .unwrap();
        let mut out = stream;
        out.write_all(b"{\"welcome\":{}}\n").unwrap();
        out.write_all(lines).unwrap();
        std::thread::sleep(Duration::from_secs(30));
        drop(out);
    });
    EditorAddress {
        addr,
        token: "t".into(),
    }
}

#[test]
fn an_editor_silent_for_five_seconds_lets_the_games_held_agent_go() {
    let link = GameLink::connect_to(
        &hello("g", &["a"]),
        silent_editor(b"{\"breakpoints\":[{\"node\":\"build\",\"on\":\"enter\"}]}\n"),
    );
    until("the game to hear the breakpoint", || link.told() == 1);
    let mut agents = vec![("a", Instance::new(common::mock_sketch(), 0))];
    until_held(&link, &mut agents);
    assert_eq!(link.paused(), ["a"]);
    assert!(!link.may_step("a"));
    until("the hold to end", || link.paused().is_empty());
    assert!(link.may_step("a"));
    assert!(
        link.connected(),
        "the editor is still connected, only silent"
    );
}

#[test]
fn a_game_with_another_editors_token_is_refused_and_both_sides_say_why() {
    let listener = Listener::local(0).unwrap();
    let wrong = GameLink::connect_to(
        &hello("stray", &["a"]),
        EditorAddress {
            addr: listener.addr(),
            token: "0123456789abcdef".into(),
        },
    );
    until("the game to hear why", || wrong.problem().is_some());
    let why = wrong.problem().unwrap();
    assert!(
        why.contains("refused this game") && why.contains("token is not this editor's"),
        "{why}"
    );
    assert!(!wrong.connected());
    until("the editor's notice", || {
        listener.take_notices().iter().any(|n| {
            n.contains("refused the game 'stray'") && n.contains("token is not this editor's")
        })
    });
    // Without a token, or of another version: refused, said.
    let mut untokened = hello("bare", &["a"]);
    untokened.token.clear();
    let line = serde_json::to_string(&untokened).unwrap() + "\n";
    let mut s = raw(&listener, &[line.as_bytes()]);
    let mut answer = String::new();
    BufReader::new(&mut s).read_line(&mut answer).unwrap();
    assert!(
        answer.contains("\"refused\"") && answer.contains("no token"),
        "{answer}"
    );
    let old = hello_line(&listener, "old", &["a"]).replace("\"arbor_live\":2", "\"arbor_live\":1");
    let _old = raw(&listener, &[old.as_bytes()]);
    until("the version notice", || {
        listener
            .take_notices()
            .iter()
            .any(|n| n.contains("speaks live attach version 1; this editor speaks 2"))
    });
    assert!(listener.games().is_empty());
}

#[test]
fn a_game_finds_the_editor_of_its_project_by_the_cards_editors_leave() {
    let cards = tempfile::tempdir().unwrap();
    let projects = tempfile::tempdir().unwrap();
    let (ours, theirs) = (projects.path().join("ours"), projects.path().join("theirs"));
    for p in [&ours, &theirs] {
        std::fs::create_dir_all(p).unwrap();
        std::fs::copy(
            common::repo().join("sample_trees/mock_sketch.json"),
            p.join("guard.json"),
        )
        .unwrap();
    }
    let editor_of = |folder: &std::path::Path| {
        let l = Listener::local(0).unwrap();
        let card = arbor::io::LiveCard::new(
            l.addr(),
            &l.address().token,
            Some(std::fs::canonicalize(folder).unwrap()),
        )
        .write(cards.path())
        .unwrap();
        (l, card)
    };
    let (mine, _c1) = editor_of(&ours);
    let (other, _c2) = editor_of(&theirs);
    let tree = ours.join("guard.json");
    let hello = Hello::new(
        "finder",
        0.1,
        0,
        &[("a".into(), tree.clone())],
        std::slice::from_ref(&tree),
    );
    let link = GameLink::connect_via(&hello, cards.path());
    until("the game to connect", || link.connected());
    until("its editor to list it", || mine.games().len() == 1);
    assert!(other.games().is_empty(), "the other project's editor");
}

#[test]
fn seventy_short_games_then_one_more_are_all_listed_within_the_bounds() {
    let listener = Listener::local(0).unwrap();
    let event = b"{\"step\":1,\"agent\":\"a\",\"event\":\"enter\",\"node\":\"root\"}\n";
    // Seventy games of seventy names, each connecting, sending an event and ending.
    for k in 0..70 {
        let line = hello_line(&listener, &format!("g-{k}"), &["a"]);
        drop(raw(&listener, &[line.as_bytes(), event]));
        until("the game to end", || {
            listener
                .games()
                .iter()
                .any(|g| g.name == format!("g-{k}") && !g.connected && g.received == 1)
        });
    }
    let games = listener.games();
    assert_eq!(
        games.len(),
        arbor::remote::MAX_LISTED,
        "the list is bounded"
    );
    assert_eq!(games[0].name, "g-6", "the first to end left it first");
    let windows = games.iter().filter(|g| g.kept > 0).count();
    assert_eq!(
        windows,
        arbor::remote::KEPT_ENDED,
        "only the newest ended keep their events"
    );
    // One more is taken, and shown.
    let link = link_to(&listener, &hello("one-more", &["a"]));
    until("the last game to connect", || link.connected());
    assert!(
        listener
            .games()
            .iter()
            .any(|g| g.name == "one-more" && g.connected)
    );
    // Seventy runs of one game: one row, its runs under it.
    for run in 1..=70 {
        let line = hello_line(&listener, "again", &["a"]);
        drop(raw(&listener, &[line.as_bytes(), event]));
        until("the run to end", || {
            listener
                .games()
                .iter()
                .any(|g| g.name == "again" && g.run == run && !g.connected)
        });
    }
    let again: Vec<_> = listener
        .games()
        .into_iter()
        .filter(|g| g.name.starts_with("again"))
        .collect();
    assert_eq!(again.len(), 1, "one row");
    assert_eq!(again[0].earlier.len(), arbor::remote::KEPT_RUNS);
    assert!(listener.take_notices().is_empty(), "nothing was refused");
}

#[test]
fn sixteen_peers_that_trickle_their_hello_cannot_keep_a_real_game_out() {
    let listener = Listener::local(0).unwrap();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let tricklers: Vec<_> = (0..16)
        .map(|_| {
            let mut s = TcpStream::connect(listener.addr()).unwrap();
            let stop = stop.clone();
            std::thread::spawn(move || {
                // One byte of a hello every half second, for as long as it is let.
                for b in b"{\"arbor_live\":2,\"game\":\"slow\"".iter().cycle() {
                    if stop.load(std::sync::atomic::Ordering::Relaxed)
                        || s.write_all(&[*b]).is_err()
                    {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(500));
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let link = link_to(&listener, &hello("real", &["a"]));
    until("the real game to connect", || link.connected());
    assert_eq!(listener.games().len(), 1);
    // The tricklers do not outlast the hello's deadline.
    for t in tricklers {
        t.join().unwrap();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let notices = listener.take_notices().join("\n");
    assert!(
        notices.contains(&format!(
            "said no hello within {} s",
            arbor::remote::HELLO_WITHIN.as_secs()
        )),
        "{notices}"
    );
}

#[test]
fn a_flood_of_events_keeps_the_last_steps_whole_and_they_replay_as_sent() {
    let listener = Listener::local(0).unwrap();
    listener.set_window(arbor::debug::EventWindow {
        events: 50_000,
        bytes: usize::MAX,
    });
    let line = hello_line(&listener, "flood", &["a"]);
    let mut s = raw(&listener, &[line.as_bytes()]);
    // 100,000 steps of three events: 300,000 events.
    let mut text = String::new();
    for step in 1..=100_000u64 {
        text += &format!(
            "{{\"step\":{step},\"agent\":\"a\",\"event\":\"enter\",\"node\":\"root\"}}\n\
             {{\"step\":{step},\"agent\":\"a\",\"event\":\"enter\",\"node\":\"n{}\"}}\n\
             {{\"step\":{step},\"agent\":\"a\",\"event\":\"exit\",\"node\":\"root\",\"status\":\"success\"}}\n",
            step % 7
        );
    }
    s.write_all(text.as_bytes()).unwrap();
    until("every event to arrive", || {
        listener
            .games()
            .first()
            .is_some_and(|g| g.received == 300_000)
    });
    let g = listener.games()[0].clone();
    assert!(g.connected);
    assert!(g.kept <= 50_000 && g.kept >= 40_000, "kept {}", g.kept);
    assert_eq!(g.kept % 3, 0, "whole steps");
    let got = listener.since(g.id, 0, 0).unwrap();
    assert_eq!(got.missed, 300_000 - g.kept as u64);
    assert_eq!(got.events.len(), g.kept);
    let first = got.events[0].step;
    assert_eq!(
        got.events[0].node.as_deref(),
        Some("root"),
        "a step begins the window"
    );
    // Each node id is kept once, however many events name it.
    assert!(Arc::ptr_eq(
        got.events[0].node.as_ref().unwrap(),
        got.events[3].node.as_ref().unwrap()
    ));
    // The window's replay shows at its steps what the whole run's does.
    let header = g.hello.run.clone();
    let whole =
        arbor::io::parse_trace(text.as_bytes(), std::path::Path::new("flood.jsonl")).unwrap();
    let mut all = Replay::new(whole);
    let mut window = Replay::new(TraceFile {
        header: Some(header),
        agents: vec!["a".into()],
        events: got.events,
        cut: None,
    });
    for step in [first, first + 1_000, 100_000] {
        all.seek(step);
        window.seek(step);
        let (x, y) = (all.agent(0).unwrap(), window.agent(0).unwrap());
        let root = Arc::<str>::from("root");
        assert_eq!(x.nodes[&root].status, y.nodes[&root].status, "step {step}");
        assert_eq!(x.nodes[&root].step, y.nodes[&root].step, "step {step}");
    }
}

#[test]
fn a_replay_that_lets_its_oldest_steps_go_shows_every_later_step_as_before() {
    let mut text = String::new();
    for step in 0..20_000u64 {
        for agent in ["a", "b"] {
            text += &format!(
                "{{\"step\":{step},\"agent\":\"{agent}\",\"event\":\"enter\",\"node\":\"n{}\"}}\n\
                 {{\"step\":{step},\"agent\":\"{agent}\",\"event\":\"exit\",\"node\":\"n{}\",\"status\":\"failure\",\"reason\":\"no path\"}}\n",
                step % 5,
                step % 5
            );
        }
    }
    let trace = arbor::io::parse_trace(text.as_bytes(), std::path::Path::new("t.jsonl")).unwrap();
    let mut all = Replay::new(trace.clone());
    let mut kept = Replay::new(TraceFile {
        events: Vec::new(),
        ..trace.clone()
    });
    kept.seek(0);
    // Fed in pieces, as a game sends them, keeping about 10,000 events; the shown step is
    // the newest, or (every other piece) one of the steps before it when steps go.
    for (k, piece) in trace.events.chunks(3_000).enumerate() {
        kept.extend(&trace.agents, piece.to_vec());
        if k % 2 == 1 {
            kept.seek(kept.last_step().saturating_sub(700));
        }
        kept.keep_last(arbor::debug::EventWindow {
            events: 10_000,
            bytes: usize::MAX,
        });
        if k % 2 == 0 {
            kept.seek(kept.last_step());
        }
    }
    assert!(
        kept.trace().events.len() <= 12_500,
        "{}",
        kept.trace().events.len()
    );
    assert!(kept.forgotten() > 0 && kept.first_step() > 0);
    let first = kept.first_step();
    for step in [first + 1, first + 100, 17_000, 19_999, first + 2_345] {
        all.seek(step);
        kept.seek(step);
        assert_eq!(all.agent(0), kept.agent(0), "a at step {step}");
        assert_eq!(all.agent(1), kept.agent(1), "b at step {step}");
    }
    // A step before the window shows the first kept.
    kept.seek(3);
    assert_eq!(kept.step_number(), kept.first_step());
}

#[test]
fn one_agent_recorded_and_streamed_at_once_gives_both_the_same_events() {
    use arbor::runtime::{BinaryTrace, Observer};
    let listener = Listener::local(0).unwrap();
    let link = link_to(&listener, &hello("recorder", &["guard-1"]));
    until("the game to connect", || link.connected());
    let mut agent = Instance::new(common::mock_sketch(), 3);
    let mut trace = BinaryTrace::new(Vec::new(), "guard-1");
    for step in 0..60 {
        if step == 30 {
            agent.trigger("alarm", None);
        }
        let mut watch = link.watch("guard-1");
        let mut both: [&mut dyn Observer; 2] = [&mut trace, &mut watch];
        agent.step(0.1, &mut (), Some(&mut both));
    }
    let recorded = trace.finish().unwrap();
    let recorded =
        arbor::io::parse_trace(&recorded[..], std::path::Path::new("guard-1.arbtrace")).unwrap();
    assert!(recorded.events.len() > 100, "{}", recorded.events.len());
    until("every event to arrive", || {
        listener
            .games()
            .first()
            .is_some_and(|g| g.received >= recorded.events.len() as u64)
    });
    let got = listener.since(only(&listener), 0, 0).unwrap();
    let (names, streamed) = (got.agents, got.events);
    let seen = |names: &[String], events: &[arbor::io::TracedEvent]| -> Vec<_> {
        events
            .iter()
            .map(|e| {
                (
                    names[e.agent].clone(),
                    e.step,
                    e.node.clone(),
                    e.kind.clone(),
                )
            })
            .collect()
    };
    assert_eq!(
        seen(&names, &streamed),
        seen(&recorded.agents, &recorded.events)
    );
}

#[test]
fn an_agent_held_while_the_others_run_on_is_shown_at_the_games_newest_step_when_it_steps() {
    let listener = Listener::local(0).unwrap();
    listener.set_window(arbor::debug::EventWindow {
        events: 2_000,
        bytes: usize::MAX,
    });
    let link = link_to(&listener, &hello("g", &["a", "b"]));
    until("the game to connect", || link.connected());
    until("the editor to list it", || listener.games().len() == 1);
    let id = only(&listener);
    tell(&listener, id, &link, &on_enter("build", Some(&["a"])));
    let mut agents: Vec<(&str, Instance<()>)> = ["a", "b"]
        .into_iter()
        .map(|n| (n, Instance::new(common::mock_sketch(), 0)))
        .collect();
    until_held(&link, &mut agents);
    assert_eq!(link.paused(), ["a"]);
    // b runs on far past the window; a stays at its own step.
    for _ in 0..2_000 {
        frame(&link, &mut agents);
    }
    let a_own = agents[0].1.step_number();
    assert!(a_own < 20, "{a_own}");
    until("b's steps to arrive", || {
        listener.games()[0].received >= 4_000
    });
    tell(&listener, id, &link, &GameCommand::Step("a".into()));
    frame(&link, &mut agents);
    assert_eq!(agents[0].1.step_number(), a_own + 1);
    let a_sent = |got: &arbor::remote::Received| {
        let a = got.agents.iter().position(|n| n == "a");
        got.events.iter().any(|e| Some(e.agent) == a)
    };
    until("a's step to arrive", || {
        listener.since(id, 0, 0).is_some_and(|got| a_sent(&got))
    });
    let got = listener.since(id, 0, 0).unwrap();
    assert!(got.missed > 0, "the window moved on");
    let newest = got.events.iter().map(|e| e.step).max().unwrap();
    let a = got.agents.iter().position(|n| n == "a").unwrap();
    let a_events: Vec<_> = got.events.iter().filter(|e| e.agent == a).collect();
    assert!(!a_events.is_empty(), "a's step is in the window");
    // Shown where the game ran it: at the newest step then (b stepped once more since),
    // not at a's own count of steps, which the window let go long ago.
    assert!(
        a_events
            .iter()
            .all(|e| e.step + 1 >= newest && e.step > a_own + 1),
        "a's step is shown at the game's newest step"
    );
    // The events stay in step order, as a replay needs them.
    assert!(got.events.windows(2).all(|w| w[0].step <= w[1].step));
}

#[test]
fn what_the_editor_cannot_send_in_one_message_is_said_not_sent() {
    let listener = Listener::local(0).unwrap();
    let link = link_to(&listener, &hello("g", &["a"]));
    until("the game to connect", || link.connected());
    until("the editor to list it", || listener.games().len() == 1);
    let id = only(&listener);
    let many: Vec<GameBreakpoint> = (0..3_000)
        .map(|k| GameBreakpoint {
            node: format!("node-{k}-with-a-long-enough-id"),
            on: BreakOn::Failure,
            agents: None,
        })
        .collect();
    assert!(!listener.send(id, &GameCommand::Breakpoints(many)));
    let notices = listener.take_notices().join("\n");
    assert!(notices.contains("is not sent"), "{notices}");
    assert!(link.connected(), "the game is still connected");
    tell(&listener, id, &link, &on_enter("build", None));
}

#[test]
fn a_games_name_and_what_it_says_are_cut_to_a_readable_length() {
    let listener = Listener::local(0).unwrap();
    let mut long = hello(&"N".repeat(100_000), &["a"]);
    long.token = listener.address().token.clone();
    let line = serde_json::to_string(&long).unwrap() + "\n";
    let _game = raw(&listener, &[line.as_bytes()]);
    until("the game to be listed", || listener.games().len() == 1);
    assert_eq!(listener.games()[0].name.chars().count(), 80);
    // A refusal repeats at most a line of what the peer sent.
    let bad = format!(
        "{{\"arbor_live\":2,\"game\":\"x\",\"run\":\"{}\"}}\n",
        "y".repeat(100_000)
    );
    let _bad = raw(&listener, &[bad.as_bytes()]);
    until("the notice", || {
        listener
            .take_notices()
            .iter()
            .any(|n| n.contains("does not read") && n.len() < 400)
    });
}

#[test]
fn a_games_window_is_bounded_by_the_bytes_its_events_hold_too() {
    let listener = Listener::local(0).unwrap();
    listener.set_window(arbor::debug::EventWindow {
        events: usize::MAX,
        bytes: 1 << 20,
    });
    let line = hello_line(&listener, "wordy", &["a"]);
    let mut s = raw(&listener, &[line.as_bytes()]);
    let text = "z".repeat(10_000);
    let mut lines = String::new();
    for step in 1..=1_000u64 {
        lines += &format!(
            "{{\"step\":{step},\"agent\":\"a\",\"event\":\"context\",\"node\":\"n\",\"key\":\"k\",\"value\":\"{text}\"}}\n"
        );
    }
    s.write_all(lines.as_bytes()).unwrap();
    until("every event to arrive", || {
        listener
            .games()
            .first()
            .is_some_and(|g| g.received == 1_000)
    });
    let g = &listener.games()[0];
    assert!(g.kept < 110 && g.kept > 50, "kept {}", g.kept);
}
