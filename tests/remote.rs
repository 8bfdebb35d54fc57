//! Live attach: a game connects to the editor's listener and sends its watched agents'
//! events as it runs; what arrives replays to what the game's agents showed; bad peers
//! end their own connection only.
#![cfg(feature = "remote")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write;
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arbor::debug::Replay;
use arbor::io::TraceFile;
use arbor::model::{Catalog, NoAssets};
use arbor::remote::{GameLink, Hello, Listener};
use arbor::runtime::{Behaviours, Instance, Program, Status};

/// Waits (at most 10 s) until `f` holds.
fn until(what: &str, mut f: impl FnMut() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "waited 10 s for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn hello(game: &str, agents: &[&str]) -> Hello {
    let tree = common::repo().join("sample_trees/mock_sketch.json");
    let agents: Vec<(String, std::path::PathBuf)> = agents
        .iter()
        .map(|a| ((*a).to_owned(), tree.clone()))
        .collect();
    Hello::new(game, 0.1, 0, &agents, std::slice::from_ref(&tree))
}

fn program() -> Arc<Program<()>> {
    let tree = arbor::io::load_tree(&common::repo().join("sample_trees/mock_sketch.json")).unwrap();
    Arc::new(
        Program::compile(
            &tree,
            &Catalog::builtin(),
            &NoAssets,
            &Behaviours::with_builtins(),
        )
        .unwrap(),
    )
}

#[test]
fn a_game_sends_its_watched_agents_and_the_editor_replays_what_they_showed() {
    let listener = Listener::local(0).unwrap();
    let names = ["guard-1", "guard-2", "guard-3"];
    let link = GameLink::connect(&hello("my_game", &names), listener.addr());
    until("the game to connect", || link.connected());
    let program = program();
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
            .is_some_and(|g| g.events.len() == sent)
    });
    let game = listener.games()[0].clone();
    assert_eq!(game.name, "my_game");
    assert_eq!(game.dropped, 0);
    let (agent_names, events) = listener.since(0, 0);
    let mut replay = Replay::new(TraceFile {
        header: Some(game.hello.run.clone()),
        agents: agent_names,
        events,
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
}

#[test]
fn a_game_started_before_the_editor_connects_when_it_comes() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let link = GameLink::connect(&hello("early", &["a"]), GameLink::local(port));
    std::thread::sleep(Duration::from_millis(700));
    assert!(!link.connected());
    // Stepping with no editor sends nothing and never waits.
    let program = program();
    let mut a = Instance::new(program, 0);
    let started = Instant::now();
    for _ in 0..1000 {
        a.step(0.1, &mut (), Some(&mut link.watch("a")));
    }
    assert!(started.elapsed() < Duration::from_secs(5));
    let listener = Listener::local(port).unwrap();
    until("the game to connect", || link.connected());
    until("the editor to list it", || listener.games().len() == 1);
    assert_eq!(listener.games()[0].name, "early");
}

/// A raw connection that sends `lines`, as a broken or hostile game would.
fn raw(listener: &Listener, lines: &[&[u8]]) {
    let mut s = TcpStream::connect(listener.addr()).unwrap();
    for l in lines {
        s.write_all(l).unwrap();
    }
}

#[test]
fn bad_messages_end_only_their_own_connection_with_the_reason() {
    let listener = Listener::local(0).unwrap();
    let hello = serde_json::to_string(&hello("g", &["a"])).unwrap() + "\n";
    raw(
        &listener,
        &[
            hello.as_bytes(),
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
    // A second game of the same name while the first is connected is told apart.
    let live = GameLink::connect(&self::hello("g", &["a"]), listener.addr());
    until("g to connect", || live.connected());
    let twin = GameLink::connect(&self::hello("g", &["a"]), listener.addr());
    until("the twin to connect", || twin.connected());
    until("both listed", || listener.games().len() == 3);
    let mut names: Vec<String> = listener.games()[1..]
        .iter()
        .map(|g| g.name.clone())
        .collect();
    names.sort();
    assert_eq!(names, ["g", "g (2)"]);
    // Too long a message; a game that goes away in the middle of one.
    let long = vec![b'x'; arbor::io::MAX_TRACE_LINE + 10];
    raw(&listener, &[hello.as_bytes(), &long]);
    raw(
        &listener,
        &[hello.as_bytes(), b"{\"step\":1,\"agent\":\"a\""],
    );
    until("both to end", || {
        let g = listener.games();
        g.len() == 5 && g[3..].iter().all(|g| !g.connected)
    });
    // The two connections end in either order.
    let g = listener.games();
    let problems: Vec<&str> = g[3..].iter().filter_map(|g| g.problem.as_deref()).collect();
    assert!(
        problems.iter().any(|p| p.contains("longer than")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.contains("went away")),
        "{problems:?}"
    );
    // What is not a game at all is not listed.
    drop(g);
    raw(&listener, &[b"GET / HTTP/1.1\r\n\r\n"]);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(listener.games().len(), 5);
    assert!(live.connected() && twin.connected());
}

#[test]
fn the_editor_pauses_a_game_agent_at_a_breakpoint_steps_and_continues_it_and_silence_lets_it_go() {
    let listener = Listener::local(0).unwrap();
    let link = GameLink::connect(&hello("g", &["a", "b"]), listener.addr());
    until("the game to connect", || link.connected());
    until("the editor to list it", || listener.games().len() == 1);
    // A breakpoint on entering `build`, for agent a only.
    let breaks =
        serde_json::json!({"breakpoints": [{"agent": "a", "node": "build", "on": "enter"}]});
    assert!(listener.send(0, &breaks));
    std::thread::sleep(Duration::from_millis(100));
    let program = program();
    let mut agents: Vec<(&str, Instance<()>)> = ["a", "b"]
        .into_iter()
        .map(|n| (n, Instance::new(program.clone(), 0)))
        .collect();
    // The game's frame: each agent it may step, stepped and watched.
    let frame = |agents: &mut Vec<(&str, Instance<()>)>| {
        for (name, a) in agents.iter_mut() {
            if link.may_step(name) {
                a.step(0.1, &mut (), Some(&mut link.watch(name)));
            }
        }
    };
    for _ in 0..50 {
        frame(&mut agents);
        if !link.paused().is_empty() {
            break;
        }
    }
    assert_eq!(link.paused(), ["a"], "a stopped at its breakpoint");
    let (held, other) = (agents[0].1.step_number(), agents[1].1.step_number());
    for _ in 0..10 {
        frame(&mut agents);
    }
    assert_eq!(agents[0].1.step_number(), held, "a waits");
    assert_eq!(agents[1].1.step_number(), other + 10, "b goes on");
    until("the editor to hear of the pause", || {
        listener.games()[0].paused == ["a"]
    });
    // Step: one step, then paused again.
    assert!(listener.send(0, &serde_json::json!({"step": "a"})));
    std::thread::sleep(Duration::from_millis(100));
    for _ in 0..5 {
        frame(&mut agents);
    }
    assert_eq!(agents[0].1.step_number(), held + 1);
    // A trigger, for the game to give.
    let trigger =
        serde_json::json!({"trigger": {"agent": "b", "id": "alarm", "payload": "north gate"}});
    assert!(listener.send(0, &trigger));
    std::thread::sleep(Duration::from_millis(100));
    let given = link.take_triggers();
    assert_eq!(given.len(), 1);
    assert_eq!(
        (given[0].agent.as_str(), given[0].id.as_str()),
        ("b", "alarm")
    );
    assert_eq!(given[0].payload.as_deref(), Some("north gate"));
    // Continue: a runs on.
    assert!(listener.send(0, &serde_json::json!({"continue": null})));
    std::thread::sleep(Duration::from_millis(100));
    frame(&mut agents);
    assert_eq!(agents[0].1.step_number(), held + 2);
    assert!(listener.games()[0].paused.is_empty());
    // Paused again (the sketch's guard fails from step 8 on, so `rest` runs), then the
    // editor says nothing: the game lets it go after five seconds.
    let rest = serde_json::json!({"breakpoints": [{"agent": "a", "node": "rest", "on": "enter"}]});
    assert!(listener.send(0, &rest));
    std::thread::sleep(Duration::from_millis(100));
    for _ in 0..50 {
        frame(&mut agents);
        if !link.paused().is_empty() {
            break;
        }
    }
    assert_eq!(link.paused(), ["a"], "a stopped again");
    assert!(!link.may_step("a"));
    std::thread::sleep(arbor::remote::RELEASE_AFTER + Duration::from_millis(300));
    assert!(link.may_step("a"), "a silent editor's pause ends");
}

#[test]
fn one_agent_recorded_and_streamed_at_once_gives_both_the_same_events() {
    use arbor::runtime::{BinaryTrace, Observer};
    let listener = Listener::local(0).unwrap();
    let link = GameLink::connect(&hello("recorder", &["guard-1"]), listener.addr());
    until("the game to connect", || link.connected());
    let mut agent = Instance::new(program(), 3);
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
            .is_some_and(|g| g.events.len() >= recorded.events.len())
    });
    let (names, streamed) = listener.since(0, 0);
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
