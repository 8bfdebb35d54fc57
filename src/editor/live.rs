//! Games shown live: each frame the listener's games are listed in the Simulation panel,
//! what the shown game sent is fed to its debugger and what the debugger asks is sent back;
//! a game chosen in the panel is attached to (its tree, its node kinds). What the
//! listener refused, and why, goes to the status line.
//!
//! A tree file a game names is read only when it lies in the folder of the project open
//! (the project file's, else the tree's, else the folder the editor started in), and then
//! off the UI thread, as every file is read ([`crate::io::read_text`]: a regular file of at
//! most 64 MiB); one elsewhere is not read: the tree the game sent is shown, unsaved.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, TryRecvError};

use super::simulate::GameChoice;
use super::{EditorApp, SimPanel};
use crate::debug::{Debugger, GameRow, LiveStart};
use crate::io::parse_tree;
use crate::remote::{GameInfo, Listener};

/// Live attach in the editor: where games connect, and the card that lets them find it.
pub struct LiveAttach {
    listener: Listener,
    /// Removed when the editor ends.
    card: Option<crate::io::CardFile>,
    /// The window's context, set at the first frame: the listener wakes it when a game
    /// comes, sends or ends, and so does a tree file read for a game; an idle editor draws
    /// nothing.
    wake: Option<eframe::egui::Context>,
    /// A tree file a game names, being read off the UI thread.
    reading: Option<Reading>,
    /// The BehaviorTree.CPP program attached to, shown as one of the games.
    pub(super) program: super::program::ProgramAttach,
}

/// What reading a game's tree file gives: the tree, the stamp of its text and the SHA-256
/// of its bytes.
type Read = Result<
    (
        crate::model::Tree,
        crate::io::Stamp,
        String,
        crate::io::Kept,
    ),
    crate::io::LoadError,
>;

/// A tree file a game names, read off the UI thread.
struct Reading {
    /// The game it is read for.
    game: u64,
    /// The file, as the game names it.
    path: PathBuf,
    /// Whether it is to be opened when read; else it is the tree open, and only compared
    /// with the file the game read.
    open: bool,
    /// What the read gives.
    done: Receiver<Read>,
}

impl LiveAttach {
    /// Where games connect.
    pub fn listener(&self) -> &Listener {
        &self.listener
    }

    /// The window's context, once the first frame set it: what wakes the editor.
    pub fn waker(&self) -> Option<&eframe::egui::Context> {
        self.wake.as_ref()
    }

    /// The card games find this editor by, when it left one.
    pub fn card(&self) -> Option<&Path> {
        self.card.as_ref().map(crate::io::CardFile::path)
    }
}

/// A game as the panel lists it.
fn row_of(g: &GameInfo) -> GameRow {
    GameRow {
        id: g.id,
        name: g.name.clone(),
        run: g.run,
        connected: g.connected,
        problem: g.problem.clone(),
        dropped: g.dropped,
        paused: g.paused.iter().cloned().collect(),
        forces: g.hello.forces,
    }
}

impl EditorApp {
    /// Listens for games on `listener`: those that connect are listed in the Simulation
    /// panel, and one chosen there is shown live.
    #[must_use]
    pub fn with_listener(self, listener: Listener) -> Self {
        self.with_live(LiveAttach {
            listener,
            card: None,
            wake: None,
            reading: None,
            program: Default::default(),
        })
    }

    /// Live attach on, as [`start_listening`] started it.
    #[must_use]
    pub fn with_live(mut self, live: LiveAttach) -> Self {
        self.live = Some(live);
        self
    }

    /// Where games connect, when live attach is on.
    pub fn listener(&self) -> Option<&Listener> {
        self.live.as_ref().map(LiveAttach::listener)
    }

    /// Shows the game named `name` live as soon as it connects.
    pub fn show_game_when_it_comes(&mut self, name: &str) {
        self.show_game = Some(name.to_owned());
    }

    /// Live attach, when it is on.
    pub fn live_attach(&self) -> Option<&LiveAttach> {
        self.live.as_ref()
    }

    /// The folder of the project edited, for games to find this editor by: its project
    /// file's, else the tree's, else the folder the editor started in.
    pub fn project_folder(&self) -> Option<PathBuf> {
        self.project
            .folder()
            .or_else(|| std::env::current_dir().ok())
    }

    /// At the first frame: the listener wakes the window whenever a game comes, sends,
    /// ends or is refused, so the editor redraws for games only then.
    pub(super) fn wake_for_games(&mut self, ctx: &eframe::egui::Context) {
        if let Some(live) = &mut self.live
            && live.wake.is_none()
        {
            let woken = ctx.clone();
            live.listener.set_waker(move || woken.request_repaint());
            live.wake = Some(ctx.clone());
        }
    }

    /// Each frame: the games connected are listed in the panel, the one shown live gets
    /// what it sent (a game that connected again is shown from its new run), what the
    /// debugger asks of it is sent, and a game chosen in the panel is attached to.
    pub(super) fn live_games(&mut self) {
        self.program_news();
        self.poll_reading();
        let Some(live) = &self.live else { return };
        let listener = &live.listener;
        let notices = listener.take_notices();
        let games = listener.games();
        let key = self.breakpoints_key();
        let breakpoints = self.breakpoints.of(&key);
        let mut again = None;
        if let Some(panel) = &mut self.sim {
            let run = &mut panel.debugger;
            run.set_games(games.iter().map(row_of).collect());
            if let Some(id) = run.live_game() {
                let known = run.source().map_or(0, |s| s.agent_names().len());
                match listener.since(id, run.next_event(), known) {
                    Some(r) if Some(r.run) == run.live_run() && r.missed == 0 => {
                        run.feed(&r.agents, r.events, r.next, breakpoints);
                    }
                    // The editor fell behind the window (it was not drawn for long): the
                    // run is shown again from what is kept.
                    Some(r) if Some(r.run) == run.live_run() => again = Some((id, None)),
                    // The game connected again: its new run is shown.
                    Some(r) => again = Some((id, Some(r.run))),
                    // It left the list: what came stays to scrub through.
                    None => {}
                }
                if let Some(c) = run.breakpoints_for_game(breakpoints) {
                    listener.send(id, &c);
                }
                for c in run.take_game_asks() {
                    listener.send(id, &c);
                }
            }
        }
        for n in notices {
            self.say_problem(n);
        }
        if let Some((id, run)) = again
            && self.attach(id)
        {
            let name = games
                .iter()
                .find(|g| g.id == id)
                .map_or("The game", |g| g.name.as_str());
            self.say(match run {
                Some(run) => format!("{name} connected again: its run {run} is shown"),
                None => format!(
                    "The editor fell behind {name} by more than it keeps: shown again from its last steps"
                ),
            });
        }
        // `arbor edit --game NAME`: shown as soon as it connects.
        if let Some(wanted) = &self.show_game
            && let Some(g) = games.iter().find(|g| &g.name == wanted && g.connected)
            && self.attach(g.id)
        {
            self.show_game = None;
        }
    }

    /// Shows what the panel's Game list chose: a game live, or the tree's own run again.
    pub(super) fn choose_run(&mut self, choice: GameChoice) {
        match choice {
            GameChoice::OwnRun => {
                if let Some(live) = &mut self.live {
                    live.reading = None;
                }
                self.sim = Some(self.own_panel());
                if self.project.has_game_kinds() {
                    // The game's kinds go with it (reloading restarts the run).
                    self.project.set_game_kinds(Vec::new());
                    self.reload_kinds();
                } else {
                    self.restart_sim();
                }
                self.say("Back to this tree's own run");
            }
            GameChoice::Game(id) => {
                self.attach(id);
            }
        }
    }

    /// Shows game `id` of the listener live. The tree file its first agent runs is opened
    /// when it lies in this project's folder, once it is read off the UI thread (unless the
    /// tree open has unsaved changes); else, or when it does not read, the tree the game
    /// sent is shown, unsaved, and the status line says why. A tree that differs from the
    /// one the game runs is said. The game's node kinds that the project lacks are taken
    /// from the library it sent, and those it declares otherwise are said. Returns whether
    /// the game is shown, or its tree file being read to show it.
    pub fn attach(&mut self, id: u64) -> bool {
        let Some(game) = self.listener().and_then(|l| l.game(id)) else {
            return false;
        };
        if let Some(live) = &mut self.live {
            live.reading = None;
        }
        let (name, agent) = (game.name.clone(), game.hello.run.agents.first().cloned());
        let Some(agent) = agent else {
            return self.show_game(id, None);
        };
        let tree = PathBuf::from(&agent.tree);
        if self.shows(&tree) {
            // The file is the one open: shown at once, compared with what the game read
            // when it is read.
            self.read_for_game(id, &tree, false);
            return self.show_game(id, None);
        }
        if self.doc.is_dirty() || self.may_read(&tree).is_err() {
            return self.show_game(id, None);
        }
        self.read_for_game(id, &tree, true);
        self.say(format!("Reading {}, which {name} runs", agent.tree));
        true
    }

    /// Whether the tree open is the file at `tree`.
    fn shows(&self, tree: &Path) -> bool {
        self.doc
            .path()
            .is_some_and(|p| crate::io::same_file(p, tree))
    }

    /// Whether the tree file `tree` a game names may be read: it lies in the folder of the
    /// project open. `Err` says why not, naming the file.
    fn may_read(&self, tree: &Path) -> Result<(), String> {
        // A hello names files by absolute paths: one that is not names no file at all (a
        // BehaviorTree.CPP program's tree, which only the program has), and there is
        // nothing more to say.
        if tree.is_relative() {
            return Err(String::new());
        }
        let Ok(real) = std::fs::canonicalize(tree) else {
            return Err(format!("{} is not on this machine", tree.display()));
        };
        let folder = self
            .project_folder()
            .map(|f| std::fs::canonicalize(&f).unwrap_or(f));
        match folder {
            Some(f) if real.starts_with(&f) => Ok(()),
            Some(f) => Err(format!(
                "{} lies outside this project's folder ({}), so it is not read",
                tree.display(),
                f.display()
            )),
            None => Err(format!(
                "{} is not read: this editor has no project folder",
                tree.display()
            )),
        }
    }

    /// Reads the tree file `tree` off the UI thread for game `id`, to open it (`open`) or
    /// to compare it with the file the game read; the window is woken when it is read.
    fn read_for_game(&mut self, id: u64, tree: &Path, open: bool) {
        let Some(live) = &mut self.live else {
            return;
        };
        let (send, done) = std::sync::mpsc::channel();
        let (path, wake) = (tree.to_owned(), live.wake.clone());
        let spawned = std::thread::Builder::new()
            .name("arbor-read-game-tree".into())
            .spawn(move || {
                let _ = send.send(crate::io::load_tree_digested(&path));
                if let Some(ctx) = wake {
                    ctx.request_repaint();
                }
            });
        live.reading = match spawned {
            Ok(_) => Some(Reading {
                game: id,
                path: tree.to_owned(),
                open,
                done,
            }),
            Err(e) => {
                let (send, done) = std::sync::mpsc::channel();
                let _ = send.send(Err(crate::io::LoadError::Read {
                    path: tree.to_owned(),
                    source: std::sync::Arc::new(e),
                }));
                Some(Reading {
                    game: id,
                    path: tree.to_owned(),
                    open,
                    done,
                })
            }
        };
    }

    /// Each frame: a game's tree file read is opened (and the game shown), or compared
    /// with the file the game read.
    fn poll_reading(&mut self) {
        let Some(live) = &mut self.live else { return };
        let Some(reading) = &live.reading else { return };
        let read = match reading.done.try_recv() {
            Ok(read) => read,
            Err(TryRecvError::Empty) => return,
            Err(TryRecvError::Disconnected) => {
                let path = reading.path.clone();
                Err(crate::io::LoadError::Read {
                    path,
                    source: std::sync::Arc::new(std::io::Error::other("the read stopped")),
                })
            }
        };
        let Some(reading) = live.reading.take() else {
            return;
        };
        if reading.open {
            self.show_game(reading.game, Some(read));
            return;
        }
        let shown = self.simulation().and_then(Debugger::live_game) == Some(reading.game);
        let recorded = self
            .listener()
            .and_then(|l| l.game(reading.game))
            .and_then(|g| {
                let path = reading.path.display().to_string();
                g.hello.run.files.iter().find(|f| f.path == path).cloned()
            });
        let differs = match (&read, recorded) {
            (Ok((_, _, sha, _)), Some(f)) => *sha != f.sha256,
            _ => false,
        };
        if shown && differs {
            let note = format!(
                "{} differs from the tree the game runs; its nodes are matched by id",
                reading.path.display()
            );
            if let Some(panel) = &mut self.sim {
                let run = &mut panel.debugger;
                let joined = match run.note() {
                    Some(n) => format!("{n}; {note}"),
                    None => note.clone(),
                };
                run.set_note(Some(joined));
            }
            self.say(note);
        }
    }

    /// Shows game `id` live, with the tree file its first agent runs as `read` gave it
    /// (`None`: not read), or else the tree it sent (see [`EditorApp::attach`]).
    fn show_game(&mut self, id: u64, read: Option<Read>) -> bool {
        let Some(game) = self.listener().and_then(|l| l.game(id)) else {
            return false;
        };
        let (name, hello) = (game.name.clone(), game.hello.clone());
        let mut notes = Vec::new();
        if let Some(agent) = hello.run.agents.first() {
            let tree = PathBuf::from(&agent.tree);
            let sent = hello.trees.iter().find(|t| Path::new(&t.path) == tree);
            let recorded = hello.run.files.iter().find(|f| Path::new(&f.path) == tree);
            // Why the file is not shown, when the tree the game sent may be shown instead.
            let mut not_read = None;
            match read {
                Some(Ok((t, stamp, sha256, kept))) if !self.doc.is_dirty() => {
                    let opened = Self::read_from(&tree, t, (stamp, kept), self.project.explicit());
                    self.replace_with(opened);
                    if recorded.is_some_and(|f| f.sha256 != sha256) {
                        notes.push(format!(
                            "{} differs from the tree the game runs; its nodes are matched by id",
                            agent.tree
                        ));
                    }
                }
                // Changed meanwhile: the work open stays.
                Some(Ok(_)) => {}
                Some(Err(e)) => not_read = Some(e.to_string()),
                None if !self.shows(&tree) && !self.doc.is_dirty() => {
                    not_read = self.may_read(&tree).err();
                }
                None => {}
            }
            let mut shown_sent = false;
            match (not_read, sent) {
                (Some(why), Some(sent)) if !self.doc.is_dirty() => {
                    match parse_tree(&sent.text, &tree) {
                        Ok(t) => {
                            self.replace_with(Self::new(t, None));
                            shown_sent = true;
                            notes.push(match why.is_empty() {
                                true => format!("this is the tree {name} sent (Save As keeps it)"),
                                false => format!(
                                    "{why}: this is the tree {name} sent (Save As keeps it)"
                                ),
                            });
                        }
                        Err(e) => {
                            notes.extend(Some(why).filter(|w| !w.is_empty()));
                            notes.push(format!("the tree {name} sent does not read: {e}"));
                        }
                    }
                }
                (Some(why), _) => notes.extend(Some(why).filter(|w| !w.is_empty())),
                (None, _) => {}
            }
            if !self.shows(&tree) && !shown_sent {
                notes.push(format!(
                    "{} runs {}; its nodes are matched by id",
                    name, agent.tree
                ));
            }
        }
        notes.extend(self.take_game_kinds(&name, &hello.libraries));
        let Some(received) = self.listener().and_then(|l| l.since(id, 0, 0)) else {
            return false;
        };
        let window = self
            .listener()
            .map_or(crate::remote::WINDOW, Listener::window);
        if received.missed > 0 {
            notes.push(format!(
                "the editor keeps a game's last {} events: its first {} are gone",
                super::simulate::grouped(window.events as u64),
                super::simulate::grouped(received.missed)
            ));
        }
        let mut run = Debugger::game(LiveStart {
            id,
            run: received.run,
            name: name.clone(),
            header: hello.run.clone(),
            streamed: hello.streamed.clone(),
            agents: received.agents,
            events: received.events,
            next: received.next,
            window,
        });
        run.learn_titles(&self.catalog);
        run.set_games(
            self.simulation()
                .map(|d| d.games().to_vec())
                .unwrap_or_default(),
        );
        run.set_shown_file(self.doc.path());
        if !notes.is_empty() {
            run.set_note(Some(notes.join("; ")));
        }
        self.sim = Some(SimPanel::new(run));
        let mut said = format!("Showing {name} live");
        for n in notes {
            said = format!("{said}; {n}");
        }
        self.say(said);
        true
    }

    /// Puts `ARBOR_LIVE=PORT/TOKEN` on the clipboard: a game started with it in its
    /// environment connects to this editor.
    pub(super) fn copy_live_address(&mut self, ctx: &eframe::egui::Context) {
        let Some(live) = &self.live else {
            return;
        };
        let text = format!("ARBOR_LIVE={}", live.listener.address());
        ctx.copy_text(text.clone());
        self.say(format!(
            "Copied {text}: a game started with it connects to this editor"
        ));
    }

    /// Drops the games that ended from the panel's list.
    pub(super) fn clear_ended_games(&mut self) {
        let Some(listener) = self.listener() else {
            return;
        };
        let n = listener.clear_ended();
        self.say(match n {
            0 => "No game has ended".to_owned(),
            1 => "Cleared 1 ended game".to_owned(),
            n => format!("Cleared {n} ended games"),
        });
    }

    /// Compares a game's node libraries with the project's kinds: the kinds the project
    /// lacks are taken from the game (until another tree or run is shown), and each
    /// difference is said, as are libraries that do not read. Returns what to say.
    fn take_game_kinds(
        &mut self,
        game: &str,
        libraries: &[crate::remote::SentLibrary],
    ) -> Vec<String> {
        let mut notes = Vec::new();
        let (mut lacked, mut differ) = (Vec::new(), Vec::new());
        for sent in libraries {
            let label = PathBuf::from(format!("{game}: {}.nodes.json", sent.name));
            match crate::io::parse_library(&sent.text, &label) {
                Err(p) => notes.push(format!("the node library {game} sent does not read: {p}")),
                Ok((library, _)) => {
                    for kind in library.kinds {
                        match self.project.kind(&kind.name) {
                            None => lacked.push(kind),
                            Some(ours) if !crate::io::declared_alike(ours, &kind) => {
                                differ.push(kind.name.clone());
                            }
                            Some(_) => {}
                        }
                    }
                }
            }
        }
        let count = |n: usize| match n {
            1 => "a kind".to_owned(),
            n => format!("{} kinds", super::simulate::grouped(n as u64)),
        };
        if !lacked.is_empty() {
            let names: Vec<&str> = lacked.iter().map(|k| k.name.as_str()).collect();
            notes.push(format!(
                "{game} declares {} this project's libraries lack, shown as it declares them: {}",
                count(names.len()),
                super::messages::a_few(&names, names.len())
            ));
        }
        if !differ.is_empty() {
            let names: Vec<&str> = differ.iter().map(String::as_str).collect();
            notes.push(format!(
                "{game} declares {} otherwise than this project's libraries (its code and the library file differ)",
                super::messages::a_few(&names, names.len())
            ));
        }
        if !lacked.is_empty() || self.project.has_game_kinds() {
            self.project.set_game_kinds(lacked);
            self.reload_kinds();
        }
        notes
    }
}

/// Live attach as the editor starts: on (or off), and what to say of it.
pub struct Listening {
    /// Live attach; none when it is off.
    pub live: Option<LiveAttach>,
    /// What to say, if anything: news (`Ok`) or a problem (`Err`).
    pub said: Option<Result<String, String>>,
}

/// Listens for games as `arbor edit --listen` says (`listen`: `None` for the default) and
/// leaves the card games find the editor by (for the project in `folder`), in `cards` or
/// the user's live folder. Without
/// `--listen`, an editor that finds the default port taken takes the next free one
/// quietly; a port given that is taken turns live attach off. `Err` when `listen` does not
/// read.
pub fn start_listening(
    listen: Option<&str>,
    folder: Option<PathBuf>,
    cards: Option<&Path>,
) -> Result<Listening, String> {
    let Some(addr) = super::listen_address(listen)? else {
        return Ok(Listening {
            live: None,
            said: None,
        });
    };
    let token = match crate::remote::new_token() {
        Ok(t) => t,
        Err(e) => {
            return Ok(Listening {
                live: None,
                said: Some(Err(format!("Live attach is off: no token ({e})"))),
            });
        }
    };
    let tries: Vec<std::net::SocketAddr> = if listen.is_none() {
        // The default port, the next ones, then any.
        (0..16)
            .map(|k| std::net::SocketAddr::new(addr.ip(), addr.port().saturating_add(k)))
            .chain([std::net::SocketAddr::new(addr.ip(), 0)])
            .collect()
    } else {
        vec![addr]
    };
    let mut failed = None;
    for at in tries {
        let listener = match Listener::bind(at, token.clone()) {
            Ok(l) => l,
            Err(e) => {
                failed = Some(format!(
                    "Live attach is off: cannot listen on {at} ({e}); arbor edit --listen PORT picks another port"
                ));
                continue;
            }
        };
        let moved = listen.is_none() && listener.addr().port() != crate::remote::DEFAULT_PORT;
        let mut said = moved.then(|| {
            Ok(format!(
                "Live attach on port {} (port {} is taken)",
                listener.addr().port(),
                crate::remote::DEFAULT_PORT
            ))
        });
        let dir = cards.map_or_else(crate::io::LiveCard::default_dir, |d| Ok(d.to_owned()));
        let card = dir.and_then(|dir| {
            crate::io::LiveCard::new(listener.addr(), &token, folder.clone())
                .write(&dir)
                .map_err(|e| e.to_string())
        });
        let card = match card {
            Ok(c) => Some(c),
            Err(why) => {
                said = Some(Err(format!(
                    "Games find this editor only by ARBOR_LIVE={} ({why})",
                    listener.address()
                )));
                None
            }
        };
        return Ok(Listening {
            live: Some(LiveAttach {
                listener,
                card,
                wake: None,
                reading: None,
                program: Default::default(),
            }),
            said,
        });
    }
    Ok(Listening {
        live: None,
        said: failed.map(Err),
    })
}
