//! Arbor's live protocol (docs/PROTOCOL.md) spoken by programs with no Arbor code in them:
//! tests/protocol/game.py, a game in Python, against the editor's listener; and
//! tests/protocol/editor.py, an editor in Python, against a Rust game's `GameLink`. Each
//! side follows the document alone, so what passes here is what a game in any language
//! can rely on.
#![cfg(feature = "remote")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use common::until;

use arbor::debug::{BreakOn, GameBreakpoint, GameCommand, Replay};
use arbor::io::TraceFile;
use arbor::remote::{EditorAddress, GameLink, Hello, Listener};
use arbor::runtime::{EventKindOf, Instance, Status, ValueOf};

/// A Python script of tests/protocol, running, and what it printed, a JSON object a line.
struct Script {
    child: Child,
    lines: Receiver<serde_json::Value>,
}

impl Script {
    fn start(name: &str, args: &[&str]) -> Self {
        let mut child = Command::new("python3")
            .arg(common::repo().join("tests/protocol").join(name))
            .args(args)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                let v: serde_json::Value = serde_json::from_str(&line).unwrap();
                if send.send(v).is_err() {
                    break;
                }
            }
        });
        Self { child, lines }
    }

    /// The next thing it printed for which `want` holds (those before are passed over),
    /// within `within`.
    fn wait(
        &self,
        within: Duration,
        want: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let end = Instant::now() + within;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(v) if want(&v) => return v,
                Ok(_) => {}
                Err(_) => panic!("the script did not print it within {within:?}"),
            }
        }
    }
}

impl Drop for Script {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The newest step of `bot` the listener holds of game `id`.
fn last_step(listener: &Listener, id: u64) -> u64 {
    let got = listener.since(id, 0, 0).unwrap();
    got.events.iter().map(|e| e.step).max().unwrap_or(0)
}

#[test]
fn a_game_in_python_alone_is_shown_held_and_stepped_by_the_editor() {
    let listener = Listener::local(0).unwrap();
    let address = listener.address().clone();
    let port = address.addr.port().to_string();
    let game = Script::start("game.py", &["127.0.0.1", &port, &address.token, "100000"]);
    game.wait(Duration::from_secs(10), |v| v["welcome"] == true);
    until("the game listed", || {
        listener.games().iter().any(|g| g.connected)
    });
    let info = listener.games().remove(0);
    assert_eq!(info.name, "pygame");
    assert_eq!(info.hello.agent_names().collect::<Vec<_>>(), vec!["bot"]);
    let id = info.id;
    until("ten steps", || last_step(&listener, id) >= 10);
    // What came is what the game sent, step by step, and it replays.
    let got = listener.since(id, 0, 0).unwrap();
    for (i, e) in got.events.iter().take(30).enumerate() {
        let k = (i / 3 + 1) as u64;
        assert_eq!(e.step, k, "{e:?}");
        let status = if k.is_multiple_of(3) {
            Status::Failure
        } else {
            Status::Success
        };
        let want = match i % 3 {
            0 => EventKindOf::Enter,
            1 => EventKindOf::Exit(status, None),
            _ => EventKindOf::Context("laps".into(), Some(ValueOf::Number(k as f64))),
        };
        assert_eq!(e.kind, want, "event {i}");
    }
    let mut replay = Replay::new(TraceFile {
        header: Some(info.hello.run.clone()),
        agents: got.agents.clone(),
        events: got.events.clone(),
        cut: None,
    });
    replay.seek(6);
    let patrol = &replay.agent(0).unwrap().nodes["patrol"];
    assert_eq!(
        (patrol.entries, patrol.successes, patrol.failures),
        (6, 4, 2)
    );
    // A breakpoint on patrol's failure holds the game's agent after a step of a multiple
    // of 3, and it sends nothing more.
    assert!(listener.send(
        id,
        &GameCommand::Breakpoints(vec![GameBreakpoint {
            node: "patrol".into(),
            on: BreakOn::Failure,
            agents: None,
        }])
    ));
    let held = game.wait(Duration::from_secs(10), |v| v.get("held").is_some());
    let at = held["held"].as_u64().unwrap();
    assert_eq!(at % 3, 0, "{held}");
    until("the hold said", || {
        listener.game(id).unwrap().paused.contains("bot")
    });
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(last_step(&listener, id), at, "held");
    // Step: one step, held again.
    assert!(listener.send(id, &GameCommand::Step("bot".into())));
    until("the step", || last_step(&listener, id) == at + 1);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(last_step(&listener, id), at + 1, "held again");
    // Continue: it goes on (and holds at the next failure; the breakpoint is cleared
    // first).
    assert!(listener.send(id, &GameCommand::Breakpoints(Vec::new())));
    assert!(listener.send(id, &GameCommand::Continue(None)));
    until("steps again", || last_step(&listener, id) > at + 5);
    // The editor goes away: the game says its connection ended.
    assert!(listener.send(id, &GameCommand::Pause(Some("bot".into()))));
    game.wait(Duration::from_secs(10), |v| {
        v.get("held").is_some() || v["command"]["pause"] == "bot"
    });
    drop(listener);
    game.wait(Duration::from_secs(10), |v| v["ended"] == true);
    game.wait(Duration::from_secs(10), |v| v.get("released").is_some());
}

#[test]
fn a_game_in_python_with_another_token_is_refused_and_told_why() {
    let listener = Listener::local(0).unwrap();
    let port = listener.address().addr.port().to_string();
    let game = Script::start("game.py", &["127.0.0.1", &port, "wrong", "10"]);
    let refused = game.wait(Duration::from_secs(10), |v| v.get("refused").is_some());
    assert!(
        refused["refused"].as_str().unwrap().contains("token"),
        "{refused}"
    );
    assert!(listener.games().is_empty());
}

#[test]
fn a_rust_games_link_does_what_an_editor_in_python_asks() {
    let token = "0123abcd";
    let editor = Script::start("editor.py", &[token, "a", "rest"]);
    let listening = editor.wait(Duration::from_secs(10), |v| v.get("listening").is_some());
    let port = u16::try_from(listening["listening"].as_u64().unwrap()).unwrap();
    let tree = common::repo().join("sample_trees/mock_sketch.json");
    let hello = Hello::new("rusty", 0.1, 0, &[("a".into(), tree.clone())], &[tree]);
    let address = EditorAddress {
        addr: std::net::SocketAddr::from(([127, 0, 0, 1], port)),
        token: token.into(),
    };
    // The game: agent `a` steps every 10 ms while its link lets it.
    let stop = Arc::new(AtomicBool::new(false));
    let game = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let link = GameLink::connect_to(&hello, address);
            let mut a = Instance::new(common::mock_sketch(), 0);
            while !stop.load(Ordering::Relaxed) {
                if link.may_step("a") {
                    a.step(0.1, &mut (), Some(&mut link.watch("a")));
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        })
    };
    let done = editor.wait(Duration::from_secs(60), |v| {
        v.get("report").is_some() || v.get("failed").is_some()
    });
    stop.store(true, Ordering::Relaxed);
    game.join().unwrap();
    assert!(done.get("failed").is_none(), "{done}");
    let report = &done["report"];
    assert_eq!(report["hello"]["game"], "rusty");
    assert_eq!(report["hello"]["agents"], serde_json::json!(["a"]));
    assert_eq!(report["held"]["steps_while_held"], 0, "{report}");
    assert_eq!(report["stepped"], 1, "{report}");
    let released = report["released_after"].as_f64().unwrap();
    assert!((4.9..9.0).contains(&released), "{report}");
}
