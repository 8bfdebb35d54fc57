//! Attaching to a running BehaviorTree.CPP program through its Groot2Publisher
//! (docs/BTCPP.md, "Live attach"), against the real BehaviorTree.CPP 4: tests/btcpp/
//! publish.py runs a patrol tree with scripted leaves in the behaviortreepy bindings that
//! scripts/setup.sh installs, and reports what it did; what Arbor saw must be that.
//! A publisher of our own, speaking ZeroMQ from the test, plays the bad peers.
#![cfg(feature = "groot2")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::program::{Program, ports};

use arbor::io::TracedEvent;
use arbor::remote::groot2::{Fault, PublisherAddress, Watch};
use arbor::runtime::{EventKindOf, ValueOf};

const WITHIN: Duration = Duration::from_secs(5);

/// One tick of the program, done: what it reports of it.
fn tick(program: &mut Program) -> serde_json::Value {
    program.say("tick 1 0");
    program.json(Duration::from_secs(30)).unwrap()
}

/// Polls `watch` every 50 ms until `done` says so of what came (at most 30 s), then once
/// more; every event seen, in order.
fn poll_until(
    watch: &mut Watch,
    events: &mut Vec<TracedEvent>,
    mut done: impl FnMut(&[TracedEvent]) -> bool,
) {
    let until = Instant::now() + Duration::from_secs(30);
    while !done(events) {
        assert!(Instant::now() < until, "not seen in 30 s: {events:#?}");
        std::thread::sleep(Duration::from_millis(50));
        events.extend(watch.poll().unwrap().events);
    }
    std::thread::sleep(Duration::from_millis(50));
    events.extend(watch.poll().unwrap().events);
}

/// Each exit of node `id`, in order: its status, as BehaviorTree.CPP's names it.
fn exits(events: &[TracedEvent], id: &str) -> Vec<String> {
    events
        .iter()
        .filter(|e| e.node.as_deref() == Some(id))
        .filter_map(|e| match &e.kind {
            EventKindOf::Exit(s, _) => Some(s.to_string().to_uppercase()),
            _ => None,
        })
        .collect()
}

/// The values key `key` was seen holding, in order.
fn values(events: &[TracedEvent], key: &str) -> Vec<ValueOf<String>> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKindOf::Context(k, Some(v)) if &**k == key => Some(v.map(|t| t.to_string())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_behaviortree_cpp_program_watched_live_shows_what_it_reports() {
    let mut program = Program::start();
    let (mut watch, mut events) = Watch::attach(&program.address(), WITHIN).unwrap();
    assert_eq!(watch.name(), "Patrol");
    assert!(
        watch.xml().contains("<Walk name=\"walk\""),
        "{}",
        watch.xml()
    );
    // Six ticks, one at a time, each polled once it is done. (BehaviorTree.CPP 4.8's
    // publisher can garble a change made while it answers; such a change is passed over,
    // but then the events could not be compared exit for exit.)
    let mut ticks = Vec::new();
    for _ in 0..6 {
        ticks.push(tick(&mut program));
        events.extend(watch.poll().unwrap().events);
    }
    assert_eq!(watch.passed_over(), 0);
    program.say("counts");
    let counts = program.json(WITHIN).unwrap();
    poll_until(&mut watch, &mut events, |e| {
        e.iter()
            .filter(|e| matches!(e.kind, EventKindOf::Complete(_)))
            .count()
            >= 2
    });
    // Each leaf's results, as the program counts them, but RUNNING (a running leaf
    // changes no status): its exits, in order.
    for (leaf, id) in [
        ("walk", "walk"),
        ("see_enemy", "sub_tree/see_enemy"),
        ("done", "done"),
    ] {
        let reported: Vec<String> = counts["counts"][leaf]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap().to_owned())
            .filter(|r| r != "RUNNING")
            .collect();
        assert_eq!(exits(&events, id), reported, "{leaf}");
        assert!(!reported.is_empty(), "{leaf}");
    }
    // The runs of the tree: each tick that finished it.
    let finished: Vec<String> = ticks
        .iter()
        .map(|t| t["status"].as_str().unwrap().to_owned())
        .filter(|s| s != "RUNNING")
        .collect();
    let completes: Vec<String> = events
        .iter()
        .filter_map(|e| match e.kind {
            EventKindOf::Complete(s) => Some(s.to_string().to_uppercase()),
            _ => None,
        })
        .collect();
    assert_eq!(completes, finished);
    // The blackboard: `laps` at 0 when attached, then each value the ticks left, at least
    // the last; `label` as the script wrote it. (Each is written again after a run
    // completes, which clears an Arbor tree's context and not a blackboard.)
    let mut laps: Vec<f64> = values(&events, "laps")
        .into_iter()
        .map(|v| match v {
            ValueOf::Number(n) => n,
            other => panic!("laps is {other:?}"),
        })
        .collect();
    laps.dedup();
    let last = ticks.last().unwrap()["laps"].as_f64().unwrap();
    assert_eq!(laps.first(), Some(&0.0), "{laps:?}");
    assert_eq!(laps.last(), Some(&last), "{laps:?}");
    assert!(laps.windows(2).all(|w| w[0] < w[1]), "{laps:?}");
    assert!(laps.len() >= 3, "a value a poll: {laps:?}");
    let mut labels = values(&events, "label");
    labels.dedup();
    assert_eq!(labels, vec![ValueOf::Text("lap".to_owned())]);
    // Steps never go back, and the replay of what came ends with the program's state.
    assert!(events.windows(2).all(|w| w[0].step <= w[1].step));
    let trace = arbor::io::TraceFile {
        header: Some(watch.header("patrol.xml")),
        agents: vec!["Patrol".into()],
        events: events.clone(),
        cut: None,
    };
    let mut replay = arbor::debug::Replay::new(trace);
    replay.seek(u64::MAX);
    let rows = replay.context_rows(0);
    let laps_row = rows.iter().find(|r| r.key == "laps").unwrap();
    assert_eq!(laps_row.value.as_deref(), Some(&*format!("{last}")));
    watch.detach().unwrap();
}

/// Polls `watch` every 50 ms until the program is held (at most 30 s): the node it is
/// held at.
fn held_within(watch: &mut Watch) -> String {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        assert!(Instant::now() < until, "never held");
        std::thread::sleep(Duration::from_millis(50));
        if let Some(node) = watch.poll().unwrap().held {
            return node.to_string();
        }
    }
}

#[test]
fn a_breakpoint_holds_the_program_until_it_is_let_go() {
    let mut program = Program::start();
    let (mut watch, _) = Watch::attach(&program.address(), WITHIN).unwrap();
    let unknown = watch.set_breakpoints(["walk", "no_such_node"]).unwrap();
    assert_eq!(unknown, vec!["no_such_node".to_owned()]);
    program.say("tick 3 0");
    // Held as `walk` is entered, before the first tick ends.
    assert_eq!(held_within(&mut watch), "walk");
    assert!(watch.held());
    // It stays held: the program says nothing of the tick.
    for _ in 0..6 {
        std::thread::sleep(Duration::from_millis(50));
        assert!(watch.poll().unwrap().held.is_none());
    }
    assert_eq!(program.line(Duration::from_millis(100)), None);
    // Let go, it finishes the tick; the next two tick `walk` running, which is no entry:
    // not held again.
    watch.go_on().unwrap();
    let mut done = Vec::new();
    let until = Instant::now() + Duration::from_secs(30);
    while done.len() < 3 {
        assert!(Instant::now() < until, "held again: {done:?}");
        assert!(watch.poll().unwrap().held.is_none());
        if let Some(t) = program.line(Duration::from_millis(50)) {
            done.push(t);
        }
    }
    // Pause: held before the next tick, at the top node; a step lets one tick through.
    watch.set_breakpoints([]).unwrap();
    watch.pause().unwrap();
    program.say("tick 2 0");
    assert_eq!(held_within(&mut watch), "patrol");
    assert_eq!(program.line(Duration::from_millis(200)), None);
    watch.step().unwrap();
    let tick = program.json(Duration::from_secs(30)).unwrap();
    assert_eq!(tick["tick"], 4);
    assert_eq!(held_within(&mut watch), "patrol");
    assert_eq!(program.line(Duration::from_millis(200)), None);
    // Continue after a pause: the tick ends, and the program is not held again.
    watch.go_on().unwrap();
    let tick = program.json(Duration::from_secs(30)).unwrap();
    assert_eq!(tick["tick"], 5);
    for _ in 0..10 {
        std::thread::sleep(Duration::from_millis(20));
        assert!(watch.poll().unwrap().held.is_none());
    }
    program.say("tick 3 0");
    for t in 6..9 {
        assert_eq!(program.json(Duration::from_secs(30)).unwrap()["tick"], t);
        assert!(watch.poll().unwrap().held.is_none());
    }
    // Held again, then detaching lets the program go on.
    watch.pause().unwrap();
    program.say("tick 1 0");
    assert_eq!(held_within(&mut watch), "patrol");
    watch.detach().unwrap();
    let tick = program.json(Duration::from_secs(30)).unwrap();
    assert_eq!(tick["tick"], 9);
}

#[test]
fn arbor_attach_records_the_program_into_a_trace_that_replays() {
    let mut program = Program::start();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("patrol.jsonl");
    let arbor = std::process::Command::new(env!("CARGO_BIN_EXE_arbor"))
        .arg("attach")
        .arg(program.port.to_string())
        .arg("--record")
        .arg(&record)
        .arg("--seconds")
        .arg("4")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1_000));
    program.say("tick 3 100");
    for _ in 0..3 {
        program.json(Duration::from_secs(30)).unwrap();
    }
    program.say("counts");
    let counts = program.json(WITHIN).unwrap();
    let out = arbor.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("patrol.recorded.xml"), "{said}");
    let tree = dir.path().join("patrol.recorded.xml");
    assert!(
        std::fs::read_to_string(&tree)
            .unwrap()
            .contains("BTCPP_format=\"4\"")
    );
    // The trace reads, names its tree, and its coverage is what the program did.
    let trace = arbor::io::read_trace(&record).unwrap();
    let header = trace.header.clone().unwrap();
    assert_eq!(header.agents[0].tree, "patrol.recorded.xml");
    let walk_successes = counts["counts"]["walk"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| *r == "SUCCESS")
        .count();
    // (Unless the publisher garbled a change made as it answered, which arbor attach
    // passes over and says.)
    let warned = String::from_utf8_lossy(&out.stderr);
    if !warned.contains("passed over") {
        assert_eq!(
            exits(&trace.events, "walk"),
            vec!["SUCCESS".to_owned(); walk_successes]
        );
    }
    let coverage = std::process::Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(["coverage", "--json"])
        .arg(&record)
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&coverage.stdout);
    assert!(coverage.status.success(), "{table}");
    let json: serde_json::Value = serde_json::from_str(&table).unwrap();
    let text = json.to_string();
    assert!(text.contains("\"walk\""), "{text}");
}

#[test]
fn nothing_listening_is_said_at_once() {
    let address: PublisherAddress = ports().to_string().parse().unwrap();
    let started = Instant::now();
    let e = Watch::attach(&address, Duration::from_millis(500))
        .err()
        .unwrap();
    assert_eq!(e.fault, Fault::Absent, "{e}");
    assert!(e.message.contains("nothing answers at 127.0.0.1:"), "{e}");
    // Said when the send's time is up.
    assert!(
        started.elapsed() < Duration::from_millis(1_500),
        "{:?}",
        started.elapsed()
    );
}

/// What a publisher of our own answers to a request, by its header.
type Reply = fn(&[u8]) -> Vec<Vec<u8>>;

/// A publisher of our own on `port`: it answers each request with what `reply` makes of
/// the request's header, until the test ends.
fn fake_publisher(port: u16, reply: Reply) {
    std::thread::spawn(move || {
        let context = zmq::Context::new();
        let socket = context.socket(zmq::REP).unwrap();
        socket.bind(&format!("tcp://127.0.0.1:{port}")).unwrap();
        loop {
            let Ok(request) = socket.recv_multipart(0) else {
                return;
            };
            let answer = reply(&request[0]);
            if answer.is_empty() {
                // Silent: never answers.
                std::thread::sleep(Duration::from_secs(3600));
            }
            if socket.send_multipart(answer, 0).is_err() {
                return;
            }
        }
    });
    std::thread::sleep(Duration::from_millis(100));
}

/// The header of a reply to `request`: the request's, then a program id.
fn header(request: &[u8], protocol: u8) -> Vec<u8> {
    let mut h = request.to_vec();
    h[0] = protocol;
    h.extend_from_slice(&[7; 16]);
    h
}

#[test]
fn a_bad_publisher_is_said_in_time_and_bounded() {
    let cases: [(Reply, Fault, &str); 7] = [
        // Another version of the protocol.
        (
            |r| vec![header(r, 3), b"<root/>".to_vec()],
            Fault::Version,
            "speaks version 3",
        ),
        // Garbage for a header.
        (
            |_| vec![b"hello".to_vec()],
            Fault::Garbled,
            "a reply header of 5 bytes",
        ),
        // An answer to another request.
        (
            |r| {
                let mut h = header(r, 2);
                h[2] ^= 1;
                vec![h, Vec::new()]
            },
            Fault::Garbled,
            "a reply to another request",
        ),
        // Refused.
        (
            |_| vec![b"error".to_vec(), b"no".to_vec()],
            Fault::Refused,
            "refused the request: no",
        ),
        // Too many parts.
        (
            |r| vec![header(r, 2); 9],
            Fault::Garbled,
            "more than 4 parts",
        ),
        // A part longer than a reply may be: libzmq drops the peer, and nothing comes.
        (
            |r| {
                vec![
                    header(r, 2),
                    vec![b'x'; arbor::remote::groot2::MAX_REPLY + 1],
                ]
            },
            Fault::Silent,
            "did not answer within",
        ),
        // Silent.
        (
            |_| Vec::new(),
            Fault::Silent,
            "did not answer within 500 ms",
        ),
    ];
    for (reply, fault, words) in cases {
        let port = ports();
        fake_publisher(port, reply);
        let address: PublisherAddress = port.to_string().parse().unwrap();
        let started = Instant::now();
        let e = Watch::attach(&address, Duration::from_millis(500))
            .err()
            .unwrap();
        assert_eq!(e.fault, fault, "{e}");
        assert!(e.message.contains(words), "{e}");
        assert!(started.elapsed() < Duration::from_secs(5), "{e}");
    }
}

/// A publisher's answer to request `r` of a tree of one node (an AlwaysSuccess of uid 1),
/// with these statuses and changes, and no blackboard value.
fn one_node(r: &[u8], statuses: &[u8], changes: &[u8]) -> Vec<Vec<u8>> {
    let tree = r#"<root BTCPP_format="4"><BehaviorTree ID="T"><AlwaysSuccess _uid="1"/></BehaviorTree></root>"#;
    let answer = match r[1] {
        b'T' => tree.as_bytes().to_vec(),
        b'S' => statuses.to_vec(),
        b't' => changes.to_vec(),
        // An empty map, in MessagePack.
        b'B' => vec![0x80],
        _ => Vec::new(),
    };
    vec![header(r, 2), answer]
}

#[test]
fn a_change_that_names_no_node_is_passed_over_and_the_nodes_set_right() {
    // The tree: AlwaysSuccess, uid 1, running by its statuses; the changes: one of uid 0,
    // one of uid 1 to status 9.
    let port = ports();
    fake_publisher(port, |r| {
        one_node(
            r,
            &[1, 0, 1],
            &[0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 1, 0, 9],
        )
    });
    let address: PublisherAddress = port.to_string().parse().unwrap();
    let (mut watch, first) = Watch::attach(&address, Duration::from_millis(500)).unwrap();
    assert!(first.iter().any(|e| e.kind == EventKindOf::Enter));
    let polled = watch.poll().unwrap();
    assert_eq!(watch.passed_over(), 2);
    // Set right from the statuses: still running, so nothing to say.
    assert!(
        polled
            .events
            .iter()
            .all(|e| matches!(e.kind, EventKindOf::Context(..))),
        "{:?}",
        polled.events
    );
}

#[test]
fn a_tree_that_names_nodes_it_lacks_is_refused() {
    // A tree without uids, then a status naming uid 9.
    let port = ports();
    fake_publisher(port, |r| one_node(r, &[9, 0, 1], &[]));
    let address: PublisherAddress = port.to_string().parse().unwrap();
    let e = Watch::attach(&address, Duration::from_millis(500))
        .err()
        .unwrap();
    assert_eq!(e.fault, Fault::Garbled, "{e}");
    assert!(
        e.message
            .contains("is of node uid 9, which its tree does not have"),
        "{e}"
    );
}

#[test]
fn a_program_is_shown_to_the_editor_as_a_game() {
    use arbor::remote::Listener;
    use arbor::remote::groot2::{Bridge, Polling, game_name};
    let mut program = Program::start();
    let listener = Listener::local(0).unwrap();
    let bridge = Bridge::start(
        program.address(),
        listener.address().clone(),
        Polling::default(),
        || {},
    )
    .unwrap();
    let until = Instant::now() + Duration::from_secs(30);
    let game = loop {
        assert!(
            Instant::now() < until,
            "never came: {:?}",
            bridge.take_news()
        );
        std::thread::sleep(Duration::from_millis(50));
        if let Some(g) = listener.games().into_iter().find(|g| g.connected) {
            break g;
        }
    };
    assert_eq!(game.name, game_name(&program.address()));
    assert_eq!(game.hello.agent_names().collect::<Vec<_>>(), vec!["Patrol"]);
    assert!(game.hello.trees[0].text.contains("<Walk name=\"walk\""));
    assert_eq!(game.hello.libraries.len(), 1, "{:?}", game.hello.libraries);
    program.say("tick 3 100");
    for _ in 0..3 {
        program.json(Duration::from_secs(30)).unwrap();
    }
    std::thread::sleep(Duration::from_millis(300));
    let got = listener.since(game.id, 0, 0).unwrap();
    assert!(
        got.events
            .iter()
            .any(|e| matches!(e.kind, EventKindOf::Complete(_))),
        "{:?} {:?}",
        got.events,
        bridge.take_news()
    );
    assert!(
        listener.game(game.id).unwrap().connected,
        "{:?}",
        bridge.take_news()
    );
    // A breakpoint the editor sets holds the program, and dropping the bridge lets it go.
    assert!(listener.send(
        game.id,
        &arbor::debug::GameCommand::Breakpoints(vec![arbor::debug::GameBreakpoint {
            node: "walk".into(),
            on: arbor::debug::BreakOn::Enter,
            agents: None,
        }])
    ));
    let until = Instant::now() + Duration::from_secs(30);
    while !listener.game(game.id).unwrap().paused.contains("Patrol") {
        assert!(Instant::now() < until, "never held");
        // One tick at a time, until the bridge has set the breakpoint and `walk` is
        // entered (a tick held prints nothing).
        program.say("tick 1 0");
        let _ = program.line(Duration::from_millis(300));
    }
    assert_eq!(program.line(Duration::from_millis(300)), None, "held");
    drop(bridge);
    assert!(program.json(Duration::from_secs(10)).is_some(), "let go");
}

#[test]
fn a_program_that_stops_and_starts_again_is_shown_again_as_its_next_run() {
    use arbor::remote::Listener;
    use arbor::remote::groot2::{Bridge, Polling};
    let program = Program::start();
    let port = program.port;
    let listener = Listener::local(0).unwrap();
    let polling = Polling::new(20.0, Duration::from_millis(500)).unwrap();
    let bridge = Bridge::start(
        program.address(),
        listener.address().clone(),
        polling,
        || {},
    )
    .unwrap();
    let until = |what: &str, done: &dyn Fn() -> bool| {
        let end = Instant::now() + Duration::from_secs(30);
        while !done() {
            assert!(
                Instant::now() < end,
                "never {what}: {:?}",
                bridge.take_news()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    until("shown", &|| listener.games().iter().any(|g| g.connected));
    // The program ends: its run ends, and the bridge says so.
    drop(program);
    until("ended", &|| listener.games().iter().all(|g| !g.connected));
    // Started again on its port: shown again, as the game's next run.
    let _again = Program::start_on(port);
    until("shown again", &|| {
        listener.games().iter().any(|g| g.connected && g.run == 2)
    });
    let news = bridge.take_news().join("; ");
    assert!(
        news.contains("its run ends here; waiting for it again"),
        "{news}"
    );
}

#[test]
fn a_node_forced_reports_its_status_instead_of_running() {
    use arbor::debug::Forced;
    let mut program = Program::start();
    let (mut watch, _) = Watch::attach(&program.address(), WITHIN).unwrap();
    // `done` (a condition that succeeds) made to fail: its Inverter succeeds, and so does
    // the run, at its third tick; the program's own `done` is never called.
    assert!(watch.force("done", Some(Forced::Failure)).unwrap());
    assert!(!watch.force("no_such_node", Some(Forced::Success)).unwrap());
    let mut events = Vec::new();
    let mut ticks = Vec::new();
    for _ in 0..3 {
        ticks.push(tick(&mut program));
        events.extend(watch.poll().unwrap().events);
    }
    assert_eq!(ticks[2]["status"], "SUCCESS", "{ticks:?}");
    poll_until(&mut watch, &mut events, |e| {
        e.iter().any(|e| matches!(e.kind, EventKindOf::Complete(_)))
    });
    assert_eq!(exits(&events, "done"), vec!["FAILURE".to_owned()]);
    assert_eq!(exits(&events, "not_done"), vec!["SUCCESS".to_owned()]);
    // Set back: it runs as it is again.
    assert!(watch.force("done", None).unwrap());
    for _ in 0..3 {
        tick(&mut program);
        events.extend(watch.poll().unwrap().events);
    }
    assert_eq!(watch.passed_over(), 0);
    program.say("counts");
    let counts = program.json(WITHIN).unwrap();
    assert_eq!(counts["counts"]["done"], serde_json::json!(["SUCCESS"]));
    poll_until(&mut watch, &mut events, |e| exits(e, "done").len() == 2);
    assert_eq!(exits(&events, "done"), vec!["FAILURE", "SUCCESS"]);
}

/// What `arbor coverage --json` counts of node `id` of the one tree of `json`: entered,
/// succeeded, failed.
fn counted(json: &serde_json::Value, id: &str) -> (u64, u64, u64) {
    let nodes = json["trees"][0]["nodes"].as_array().unwrap();
    let n = nodes
        .iter()
        .find(|n| n["id"] == id)
        .unwrap_or_else(|| panic!("{id} in {json}"));
    let get = |k: &str| n[k].as_u64().unwrap_or(0);
    (get("entered"), get("succeeded"), get("failed"))
}

/// A leaf's results, as the program counts them: the ticks that entered it (a first
/// tick, or one after it finished), its successes and its failures.
fn reported(results: &serde_json::Value) -> (u64, u64, u64) {
    let mut finished = true;
    let (mut entered, mut succeeded, mut failed) = (0, 0, 0);
    for r in results.as_array().unwrap() {
        if finished {
            entered += 1;
        }
        finished = r != "RUNNING";
        match r.as_str() {
            Some("SUCCESS") => succeeded += 1,
            Some("FAILURE") => failed += 1,
            _ => {}
        }
    }
    (entered, succeeded, failed)
}

#[test]
fn a_btlog_the_program_wrote_is_counted_as_the_program_counts_its_leaves() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("patrol.btlog");
    let mut program = Program::start_logging(&log);
    program.say("tick 10 5");
    for _ in 0..10 {
        program.json(Duration::from_secs(30)).unwrap();
    }
    program.say("counts");
    let counts = program.json(WITHIN).unwrap();
    program.say("quit");
    assert_eq!(
        program.line(Duration::from_secs(30)).as_deref(),
        Some("bye")
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(["coverage", "--json"])
        .arg(&log)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    for (leaf, id) in [
        ("walk", "walk"),
        ("see_enemy", "sub_tree/see_enemy"),
        ("done", "done"),
    ] {
        let program_says = reported(&counts["counts"][leaf]);
        assert!(program_says.0 > 0, "{leaf}");
        assert_eq!(counted(&json, id), program_says, "{leaf}: {json}");
    }
}
