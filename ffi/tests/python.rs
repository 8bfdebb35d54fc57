//! The C library driven from Python through ctypes alone (tests/python/game.py: no Rust,
//! no Arbor code): its leaf and condition are Python callbacks, its agent is shown live to
//! the editor's listener, held there by a breakpoint and let go, and let go again when
//! the editor vanishes; and its trace reads.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use arbor::debug::{BreakOn, GameBreakpoint, GameCommand};
use arbor::io::read_trace;
use arbor::remote::Listener;
use arbor::runtime::{EventKindOf, Status};

/// The Python game, running, and what it printed, a JSON object a line.
struct Game {
    child: Child,
    lines: Receiver<serde_json::Value>,
}

impl Game {
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
                Err(_) => panic!("the game did not print it within {within:?}"),
            }
        }
    }
}

impl Drop for Game {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn until(what: &str, mut done: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < end, "waited 20 s for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_python_game_runs_its_callbacks_and_is_shown_and_held_by_the_editor() {
    let listener = Listener::local(0).unwrap();
    let address = listener.address().to_string();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("runner.jsonl");
    let mut child = Command::new("python3")
        .arg(common::repo().join("ffi/tests/python/game.py"))
        .arg(common::lib_dir().join(common::library_file()))
        .arg(&address)
        .arg("600")
        .arg(&trace)
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
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
    let game = Game { child, lines };
    game.wait(Duration::from_secs(20), |v| v["ready"] == true);
    // The editor lists the game, its agent and the kinds it declared.
    until("the game listed", || {
        listener.games().iter().any(|g| g.connected)
    });
    let info = listener.games().remove(0);
    assert_eq!(info.name, "pygame-ffi");
    assert_eq!(info.hello.agent_names().collect::<Vec<_>>(), ["runner"]);
    let sent: String = info
        .hello
        .libraries
        .iter()
        .map(|l| l.text.clone())
        .collect();
    assert!(
        sent.contains("\"Lap\"") && sent.contains("\"Fresh\""),
        "{sent}"
    );
    // Its steps arrive: the Python leaf's laps.
    let id = info.id;
    until("a lap", || {
        let got = listener.since(id, 0, 0).unwrap();
        got.events
            .iter()
            .any(|e| e.kind == EventKindOf::Exit(Status::Success, None))
    });
    // A breakpoint on the leaf's entry holds the Python game's agent.
    let break_at_lap = GameCommand::Breakpoints(vec![GameBreakpoint {
        node: "lap".into(),
        on: BreakOn::Enter,
        agents: None,
    }]);
    assert!(listener.send(id, &break_at_lap));
    let held = game.wait(Duration::from_secs(20), |v| v.get("held").is_some());
    until("the hold said", || {
        listener.game(id).unwrap().paused.contains("runner")
    });
    // Let go: it steps on to the end.
    assert!(listener.send(id, &GameCommand::Breakpoints(Vec::new())));
    assert!(listener.send(id, &GameCommand::Continue(None)));
    let resumed = game.wait(Duration::from_secs(20), |v| v.get("resumed").is_some());
    assert_eq!(resumed["resumed"], held["held"]);
    // Held again, then the editor vanishes: the link lets the game go on by itself.
    assert!(listener.send(id, &break_at_lap));
    let again = game.wait(Duration::from_secs(20), |v| v.get("held").is_some());
    drop(listener);
    let freed = game.wait(Duration::from_secs(20), |v| v.get("resumed").is_some());
    assert_eq!(freed["resumed"], again["held"]);
    let done = game.wait(Duration::from_secs(60), |v| v.get("done").is_some());
    assert_eq!(done["steps"], 600);
    // Laps of 3 steps: the tree's runs are the Python callback's laps.
    let laps = done["done"].as_u64().unwrap();
    assert!(laps >= 199, "{done}");
    assert_eq!(done["succeeded"].as_u64().unwrap(), laps, "{done}");
    // A freed handle is refused with its code and message.
    assert_eq!(done["freed"], arbor_ffi::ARBOR_ERR_HANDLE);
    assert!(
        done["freed_says"]
            .as_str()
            .unwrap()
            .contains("not a live handle"),
        "{done}"
    );
    // The trace it wrote reads, with a success of `lap` for each lap.
    let read = read_trace(&trace).unwrap();
    let successes = read
        .events
        .iter()
        .filter(|e| {
            e.node.as_deref() == Some("lap") && e.kind == EventKindOf::Exit(Status::Success, None)
        })
        .count() as u64;
    assert_eq!(successes, laps);
}
