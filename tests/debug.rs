//! The debugging core, headless: its event buffer is the trace `arbor run --trace` writes,
//! breakpoints stop at the step the trace shows their event, a trigger from the core is a
//! `--trigger`, and any past step rebuilt from the history is the state a fresh run of
//! that many steps reaches.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};

use arbor::debug::{BreakOn, Breakpoint, CHECKPOINT_EVERY, LoggedKind, MarkerKind, Session};
use arbor::model::Catalog;
use arbor::world::Simulation;

const SCENARIOS: [&str; 6] = [
    "chase_flee",
    "door_room",
    "droid_arena",
    "guard_patrol",
    "hungry_agent",
    "pass_receive",
];

fn sample(name: &str) -> PathBuf {
    common::repo().join("sample_trees").join(name)
}

fn scenario_session(name: &str, seed: u64) -> Session {
    let sim = Simulation::load(
        &sample(&format!("{name}.scenario.json")),
        &Catalog::builtin(),
        seed,
        None,
    )
    .unwrap();
    Session::new(sim, 0.1)
}

fn solo_session(path: &Path, seed: u64) -> Session {
    let tree = arbor::io::load_tree(path).unwrap();
    let sim = Simulation::solo(Some(path), &tree, &Catalog::builtin(), seed).unwrap();
    Session::new(sim, 0.1)
}

/// What `arbor run FILE --steps N --seed S --trigger … --trace OUT` writes.
fn cli_trace(file: &Path, steps: u64, seed: u64, triggers: &[String]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("trace.jsonl");
    let args = arbor::cli::RunArgs {
        seed,
        triggers,
        trace: Some(&out),
        ..arbor::cli::RunArgs::new(file, steps)
    };
    let (mut o, mut e) = (Vec::new(), Vec::new());
    let code = arbor::cli::run(&args, &Catalog::builtin(), &mut o, &mut e);
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&e));
    // The events, after the header.
    std::fs::read_to_string(out)
        .unwrap()
        .lines()
        .skip(1)
        .map(str::to_owned)
        .collect()
}

/// The session's events as trace lines, step by step from its step 0 (the start's events
/// come with step 1's: the start happens in the first step).
fn session_trace(s: &mut Session, steps: u64, mut before: impl FnMut(&mut Session)) -> Vec<String> {
    let mut lines = Vec::new();
    for _ in 0..steps {
        before(s);
        s.step(&[]);
        let at = s.step_number();
        let fresh: Vec<String> = s
            .events()
            .filter(|e| e.step == at || (at == 1 && e.step == 0))
            .map(|e| s.trace_line(e))
            .collect();
        lines.extend(fresh);
    }
    lines
}

#[test]
fn the_event_buffer_is_the_trace_arbor_run_writes_for_every_sample() {
    for name in SCENARIOS {
        let file = sample(&format!("{name}.scenario.json"));
        let want = cli_trace(&file, 300, 7, &[]);
        let mut s = scenario_session(name, 7);
        let got = session_trace(&mut s, 300, |_| {});
        assert_eq!(got.len(), want.len(), "{name}");
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn a_trigger_from_the_core_is_a_trigger_on_the_command_line() {
    // A tree without a scenario, alone in an empty world, as `arbor run TREE` runs it.
    let file = sample("mock_sketch.json");
    let want = cli_trace(&file, 40, 3, &["12:alarm:north gate".to_owned()]);
    let mut s = solo_session(&file, 3);
    let got = session_trace(&mut s, 40, |s| {
        // Given while step 11 is shown: queued before step 12.
        if s.step_number() == 11 {
            assert_eq!(s.trigger(None, "alarm", Some("north gate")), 1);
        }
    });
    assert!(want.iter().any(|l| l.contains("\"interrupt\"")));
    assert_eq!(got, want);
    // In a scenario, by agent: the winger of pass_receive receives a pass at step 30.
    let file = sample("pass_receive.scenario.json");
    let want = cli_trace(&file, 60, 1, &["30:receive_pass@winger:striker".to_owned()]);
    let mut s = scenario_session("pass_receive", 1);
    let got = session_trace(&mut s, 60, |s| {
        if s.step_number() == 29 {
            assert_eq!(
                s.trigger(Some("winger"), "receive_pass", Some("striker")),
                1
            );
        }
    });
    assert_eq!(got, want);
    assert_eq!(s.trigger(Some("winger"), "no_such_interrupt", None), 0);
}

#[test]
fn a_breakpoint_pauses_at_the_step_where_the_trace_shows_its_event() {
    let cases = [
        (
            "droid_arena",
            "attack",
            BreakOn::Enter,
            "\"event\":\"enter\"",
        ),
        (
            "droid_arena",
            "weaker",
            BreakOn::Failure,
            "\"status\":\"failure\"",
        ),
        (
            "droid_arena",
            "hit",
            BreakOn::Failure,
            "\"status\":\"failure\"",
        ),
        (
            "pass_receive",
            "receive",
            BreakOn::Interrupt,
            "\"event\":\"interrupt\"",
        ),
        (
            "pass_receive",
            "move",
            BreakOn::Abort,
            "\"event\":\"abort\"",
        ),
        // A service (the guard's Look out), which runs beside its Selector's children.
        (
            "guard_patrol",
            "spot",
            BreakOn::Failure,
            "\"status\":\"failure\"",
        ),
    ];
    for (name, node, on, event) in cases {
        let trace = cli_trace(&sample(&format!("{name}.scenario.json")), 400, 5, &[]);
        let first = trace
            .iter()
            .find(|l| l.contains(&format!("\"node\":\"{node}\"")) && l.contains(event))
            .unwrap_or_else(|| panic!("{node} {on:?} is in the trace"));
        let step: u64 = first
            .split("\"step\":")
            .nth(1)
            .and_then(|s| s.split(',').next())
            .unwrap()
            .parse()
            .unwrap();
        let mut s = scenario_session(name, 5);
        let breaks = [Breakpoint {
            node: node.to_owned(),
            on,
        }];
        let hits = s.run(400, &breaks);
        // The start's events (step 0) happen in the first step.
        assert_eq!(s.step_number(), step.max(1), "{node} {on:?}");
        assert_eq!(hits[0].breakpoint.node, node);
        assert!(
            s.markers()
                .iter()
                .any(|m| m.kind == MarkerKind::Breakpoint && m.step == step.max(1))
        );
        // Run again: it goes on to the next time.
        let later = s.run(400, &breaks);
        assert!(later.is_empty() || s.step_number() > step.max(1));
    }
}

#[test]
fn a_past_step_rebuilt_from_the_history_is_a_fresh_run_of_that_many_steps() {
    let steps = 3 * CHECKPOINT_EVERY + 40;
    for name in SCENARIOS {
        let mut s = scenario_session(name, 11);
        s.run(steps, &[]);
        assert_eq!(s.head(), steps);
        for k in [
            0,
            1,
            2,
            57,
            CHECKPOINT_EVERY - 1,
            CHECKPOINT_EVERY,
            CHECKPOINT_EVERY + 1,
            300,
            steps - 1,
            steps,
        ] {
            s.seek(k);
            let mut fresh = scenario_session(name, 11);
            fresh.run(k, &[]);
            assert_eq!(s.step_number(), k);
            assert_eq!(s.sim().summary(), fresh.sim().summary(), "{name} at {k}");
            assert_eq!(s.sim().render(), fresh.sim().render(), "{name} at {k}");
            for a in s.agent_names().to_vec() {
                let (x, y) = (
                    s.sim().instance(&a).unwrap(),
                    fresh.sim().instance(&a).unwrap(),
                );
                assert_eq!(x.node_states(), y.node_states(), "{name} {a} at {k}");
                assert_eq!(x.active_leaves(), y.active_leaves());
                assert_eq!(format!("{:?}", x.context()), format!("{:?}", y.context()));
            }
            // The log holds the steps before it, as the fresh run saw them.
            let log: Vec<String> = s.events().map(|e| s.trace_line(e)).collect();
            let tail: Vec<String> = fresh.events().map(|e| fresh.trace_line(e)).collect();
            assert_eq!(log.len(), tail.len(), "{name} at {k}");
            assert!(log == tail, "{name} at {k}: the log differs");
        }
        // Forward from the past replays the same future.
        s.seek(100);
        s.run(steps - 100, &[]);
        let mut fresh = scenario_session(name, 11);
        fresh.run(steps, &[]);
        assert_eq!(s.sim().summary(), fresh.sim().summary(), "{name}");
    }
}

#[test]
fn a_trigger_given_at_a_past_step_starts_a_new_future() {
    let mut s = scenario_session("pass_receive", 2);
    s.run(200, &[]);
    s.seek(50);
    assert_eq!(
        s.trigger(Some("winger"), "receive_pass", Some("striker")),
        1
    );
    assert_eq!(s.head(), 50, "the old future is dropped");
    s.run(10, &[]);
    let mut fresh = scenario_session("pass_receive", 2);
    fresh.run(50, &[]);
    fresh.trigger(Some("winger"), "receive_pass", Some("striker"));
    fresh.run(10, &[]);
    assert_eq!(s.sim().summary(), fresh.sim().summary());
    assert!(
        s.events()
            .any(|e| matches!(&e.kind, LoggedKind::Interrupt(id) if &**id == "receive_pass"))
    );
    assert!(
        s.markers()
            .iter()
            .any(|m| m.kind == MarkerKind::Interrupt && m.step == 51)
    );
}

#[test]
fn run_until_something_changes_stops_when_the_running_leaf_changes() {
    let mut s = scenario_session("door_room", 0);
    s.step(&[]);
    let agent = s.agent_names()[0].clone();
    let before = s.sim().instance(&agent).unwrap().active_leaves().to_vec();
    let (hits, taken) = s.run_until_change(&agent, &[]);
    assert!(hits.is_empty());
    assert!(taken >= 1);
    assert_ne!(
        s.sim().instance(&agent).unwrap().active_leaves(),
        &before[..]
    );
    // One step before, it had not changed yet.
    s.seek(s.step_number() - 1);
    assert_eq!(
        s.sim().instance(&agent).unwrap().active_leaves(),
        &before[..]
    );
}

#[test]
fn a_tree_of_world_nodes_without_a_scenario_says_what_it_needs() {
    let path = sample("door_room.json");
    let tree = arbor::io::load_tree(&path).unwrap();
    let e = Simulation::solo(Some(&path), &tree, &Catalog::builtin(), 0)
        .err()
        .expect("a world tree does not run alone");
    let text = e.to_string();
    assert!(
        text.contains("MoveTo") && text.contains("OpenDoor"),
        "{text}"
    );
    assert!(text.contains("scenario"), "{text}");
}

/// Node `n` of `program` as the log names it: by its title in `tree`, else by its id.
fn title_of<A>(tree: &arbor::model::Tree, program: &arbor::runtime::Program<A>, n: u32) -> String {
    let id = &program.node_ids()[n as usize];
    tree.node(&arbor::model::NodeId::new(id.as_str()))
        .map(|n| n.label().to_owned())
        .unwrap_or_else(|| id.clone())
}

#[test]
fn a_failure_explains_itself_in_one_line() {
    let file = sample("mock_sketch.json");
    let tree = arbor::io::load_tree(&file).unwrap();
    let mut s = solo_session(&file, 0);
    s.run(8, &[]);
    let events: Vec<_> = s.events().cloned().collect();
    let agent = s.agent_names()[0].clone();
    let program = s.sim().instance(&agent).unwrap().program().clone();
    let title = |n: u32| title_of(&tree, &program, n);
    let at = events
        .iter()
        .position(|e| {
            e.step == 8 && e.kind == LoggedKind::Exit(arbor::runtime::Status::Failure, None)
        })
        .expect("work fails at step 8");
    assert_eq!(
        arbor::debug::describe(&events, at, &title, &|_| false),
        "Work while allowed failed: guard 'Allowed?' was false"
    );
}

#[test]
fn a_failure_with_a_reason_says_it_in_the_log() {
    let tree = arbor::io::load_tree(&sample("droid_arena.json")).unwrap();
    let mut s = scenario_session("droid_arena", 0);
    s.run(2, &[]);
    let events: Vec<_> = s.events().cloned().collect();
    let program = s
        .sim()
        .instance(&s.agent_names()[0])
        .unwrap()
        .program()
        .clone();
    let title = |n: u32| title_of(&tree, &program, n);
    let at = events
        .iter()
        .position(|e| {
            matches!(
                &e.kind,
                LoggedKind::Exit(arbor::runtime::Status::Failure, Some(why)) if &**why == "none in reach"
            )
        })
        .expect("a droid finds no threat at step 2");
    let line = arbor::debug::describe(&events, at, &title, &|_| false);
    assert!(line.ends_with(" failed: none in reach"), "{line}");
}

#[test]
fn a_take_over_by_a_higher_priority_explains_itself_in_one_line() {
    let tree = arbor::io::load_tree(&sample("guard_patrol.json")).unwrap();
    let mut s = scenario_session("guard_patrol", 0);
    s.run(150, &[]);
    let events: Vec<_> = s.events().cloned().collect();
    let guard = s.agent_names().iter().position(|a| a == "guard").unwrap();
    let program = s.sim().instance("guard").unwrap().program().clone();
    let title = |n: u32| title_of(&tree, &program, n);
    let intercept = program
        .node_ids()
        .iter()
        .position(|id| id == "intercept")
        .unwrap() as u32;
    // An entry of Intercept after the start: the intruder came near during the guard's
    // patrol, and the observer took over.
    let at = events
        .iter()
        .position(|e| {
            e.agent == guard
                && e.step > 0
                && e.node == Some(intercept)
                && e.kind == LoggedKind::Enter
        })
        .expect("Intercept takes over within 150 steps");
    assert_eq!(
        arbor::debug::describe(&events, at, &title, &|n| program.is_observer(n)),
        "Intercept took over from Patrol route: guard 'Intruder near?' holds"
    );
    // An ordinary entry (at the start) says only that.
    let mut s = scenario_session("guard_patrol", 0);
    s.run(1, &[]);
    let events: Vec<_> = s.events().cloned().collect();
    let plain = events
        .iter()
        .position(|e| e.agent == guard && e.step == 0 && e.node == Some(intercept))
        .unwrap();
    assert_eq!(
        arbor::debug::describe(&events, plain, &title, &|_| false),
        "Intercept entered"
    );
}

#[test]
fn a_long_run_thins_its_history_and_still_rebuilds_every_step() {
    let load = || {
        Simulation::load(
            &sample("droid_arena.scenario.json"),
            &Catalog::builtin(),
            4,
            None,
        )
        .unwrap()
    };
    // A copy every 4 steps, at most 8 copies: 600 steps thin them out several times.
    let mut s = Session::with_history(load(), 0.1, 4, 8);
    s.run(600, &[]);
    let (kept, every) = s.checkpoints();
    assert!(kept <= 9, "{kept} copies");
    assert!(every >= 64, "spacing {every}");
    for k in [0, 3, 64, 65, 127, 128, 300, 511, 512, 599, 600] {
        s.seek(k);
        let mut fresh = Session::new(load(), 0.1);
        fresh.run(k, &[]);
        assert_eq!(s.sim().summary(), fresh.sim().summary(), "at {k}");
    }
}

#[test]
fn the_world_keeps_the_path_an_agent_walks_for_display() {
    let mut s = scenario_session("door_room", 0);
    s.run(3, &[]);
    let world = s.sim().world();
    let me = s.sim().agents().next().unwrap().entity;
    let plan: Vec<_> = world.plan_of(me).collect();
    assert!(!plan.is_empty(), "walking to the door, it has a path");
    // The next tile is next to where it stands, the last one is where it goes.
    let here = world.position_of(me).unwrap();
    let first = plan[0];
    assert!(
        (f64::from(first.0) - here[0]).abs() <= 1.5 && (f64::from(first.1) - here[1]).abs() <= 1.5
    );
    // Going back rebuilds it as it was.
    s.run(20, &[]);
    s.seek(3);
    assert_eq!(s.sim().world().plan_of(me).collect::<Vec<_>>(), plan);
}

#[test]
fn a_forward_only_session_keeps_the_same_memory_however_long_it_runs() {
    let sim = Simulation::load(
        &sample("droid_arena.scenario.json"),
        &Catalog::builtin(),
        3,
        None,
    )
    .unwrap();
    let mut s = Session::forward_only(sim, 0.1);
    s.run(2_000, &[]);
    let early = s.history_bytes();
    s.run(20_000, &[]);
    assert!(s.markers().is_empty());
    assert_eq!(s.checkpoints().0, 1, "only the start is kept");
    // The same, but for the world's own small changes (a droid's plan, what it holds).
    assert!(
        s.history_bytes() <= early + early / 10,
        "{early} bytes after 2,000 steps, {} after 22,000",
        s.history_bytes()
    );
}

/// A breakpoint on entering `node`.
fn on_entering(node: &str) -> [Breakpoint; 1] {
    [Breakpoint {
        node: node.to_owned(),
        on: BreakOn::Enter,
    }]
}

/// The debugger's controller (what the Simulation panel draws), without a window: a
/// scenario's run of the tree `name`, shown on that tree.
fn debugger(name: &str) -> (arbor::debug::Debugger, arbor::model::Tree, PathBuf) {
    let tree_path = sample(&format!("{name}.json"));
    let tree = arbor::io::load_tree(&tree_path).unwrap();
    let mut d = arbor::debug::Debugger::open(&sample(&format!("{name}.scenario.json"))).unwrap();
    d.pair_with(Some(&tree_path));
    d.reset(&Catalog::builtin(), &tree, &tree_path);
    d.set_shown_file(Some(&tree_path));
    assert!(d.error().is_none(), "{:?}", d.error());
    (d, tree, tree_path)
}

#[test]
fn the_controller_paces_a_run_by_the_clock_and_a_late_frame_runs_no_burst() {
    let (mut d, _, _) = debugger("door_room");
    d.run_pause();
    d.set_speed(10.0);
    d.pace(100.0, &[]);
    assert_eq!(d.step_number(), 0, "the first frame only reads the clock");
    // Sixty frames of a sixtieth of a second at ten steps a second: ten steps.
    for i in 1..=60 {
        d.pace(100.0 + f64::from(i) / 60.0, &[]);
    }
    assert_eq!(d.step_number(), 10);
    // A frame ten seconds late counts a quarter second: two steps, not a hundred.
    d.pace(111.0, &[]);
    assert_eq!(d.step_number(), 12);
    // Paused, the clock owes nothing.
    d.run_pause();
    d.pace(200.0, &[]);
    assert_eq!(d.step_number(), 12);
}

#[test]
fn the_controller_stops_a_paced_run_at_a_breakpoint_selects_its_node_and_says_why() {
    let (mut d, _, _) = debugger("droid_arena");
    let breaks = on_entering("attack");
    // Past the start (which enters Attack at once), to the next time.
    let mut core = scenario_session("droid_arena", 0);
    core.run(1, &[]);
    d.step_by(1, &[]);
    let want = core.run(1000, &breaks)[0].clone();
    assert!(want.step > 2);
    d.run_pause();
    d.set_speed(60.0);
    let mut t = 0.0;
    while d.is_running() && t < 100.0 {
        t += 0.25;
        d.pace(t, &breaks);
    }
    assert!(!d.is_running(), "the breakpoint stopped the run");
    assert_eq!(d.step_number(), want.step);
    assert_eq!(d.watched(), want.agent, "the agent that hit is watched");
    assert_eq!(
        d.take_select().map(|n| n.as_str().to_owned()).as_deref(),
        Some("attack")
    );
    let news = d.take_news().unwrap();
    assert!(news.starts_with("Breakpoint: attack on enter"), "{news}");
    // The lights are the core's node states for the watched agent at that step.
    let name = core.agent_names()[want.agent].clone();
    let program = core.sim().instance(&name).unwrap().program().clone();
    let attack = program
        .node_ids()
        .iter()
        .position(|i| i == "attack")
        .unwrap();
    let state = &core.sim().instance(&name).unwrap().node_states()[attack];
    let light = &d.live()[&arbor::model::NodeId::new("attack")];
    assert_eq!(light.state.status, state.status);
    assert_eq!(light.state.entries, state.entries);
    assert_eq!(light.age, 0, "changed in the shown step");
}

#[test]
fn inside_a_subtree_the_controller_maps_the_runs_ids_to_the_assets_and_back() {
    let (mut d, tree, tree_path) = debugger("guard_patrol");
    d.step_by(27, &[]);
    let guard = d
        .source()
        .unwrap()
        .agent_names()
        .iter()
        .position(|n| n == "guard")
        .unwrap();
    d.watch(guard);
    let outer: Vec<String> = d.running_leaves().to_vec();
    d.enter(
        &tree,
        arbor::debug::TreeSource {
            file: Some(tree_path.clone()),
            ..Default::default()
        },
        &arbor::model::NodeId::new("patrol"),
    );
    assert_eq!(
        d.traced(&arbor::model::NodeId::new("look_b")),
        "patrol/look_b"
    );
    assert_eq!(
        d.shown("patrol/look_b")
            .map(|n| n.as_str().to_owned())
            .as_deref(),
        Some("look_b")
    );
    assert!(
        d.shown("watch").is_none(),
        "an outer node is not in the asset"
    );
    // The asset's nodes are lit by the SubTree's inner nodes; an outer node is not.
    assert!(d.live().keys().all(|k| !k.as_str().contains('/')));
    assert!(!d.live().contains_key(&arbor::model::NodeId::new("watch")));
    for leaf in &outer {
        if let Some(inner) = leaf.strip_prefix("patrol/") {
            assert!(d.running_leaves().iter().any(|l| l == inner), "{leaf}");
        }
    }
    // A breakpoint on the asset's node, as the panel sets it (by its trace id), stops
    // the run where the core stops.
    let breaks = [Breakpoint {
        node: d.traced(&arbor::model::NodeId::new("look_b")),
        on: BreakOn::Enter,
    }];
    let mut core = scenario_session("guard_patrol", 0);
    core.run(27, &[]);
    let want = core.run(2000, &breaks)[0].step;
    d.step_by(2000, &breaks);
    assert_eq!(d.step_number(), want);
    assert_eq!(
        d.take_select().map(|n| n.as_str().to_owned()).as_deref(),
        Some("look_b")
    );
    // Back to the run's own tree: its ids again.
    let inside = d.leave().unwrap();
    assert_eq!(inside.file.as_deref(), Some(tree_path.as_path()));
    assert_eq!(d.traced(&arbor::model::NodeId::new("look_b")), "look_b");
    assert!(d.live().contains_key(&arbor::model::NodeId::new("patrol")));
}

#[test]
fn when_several_agents_hit_at_once_the_view_stays_on_the_watched_one() {
    let (mut d, _, _) = debugger("droid_arena");
    let breaks = on_entering("attack");
    let mut core = scenario_session("droid_arena", 0);
    let hits = core.run(1, &breaks);
    assert!(hits.len() >= 2, "several droids enter Attack at the start");
    let second = hits[1].agent;
    d.watch(second);
    d.step_by(1, &breaks);
    assert_eq!(d.watched(), second);
    // Watching one that did not hit: the first hit is shown.
    let other = (0..core.agent_names().len()).find(|a| hits.iter().all(|h| h.agent != *a));
    if let Some(other) = other {
        let (mut d, _, _) = debugger("droid_arena");
        d.watch(other);
        d.step_by(1, &breaks);
        assert_eq!(d.watched(), hits[0].agent);
    }
}

#[test]
fn an_edit_that_breaks_the_tree_starts_the_run_over_and_undo_brings_it_back() {
    let (mut d, tree, tree_path) = debugger("door_room");
    let catalog = Catalog::builtin();
    d.step_by(15, &[]);
    // Root loses its child: the tree no longer validates.
    let mut broken = tree.clone();
    let root = broken
        .nodes()
        .iter()
        .find(|n| n.kind == "Root")
        .unwrap()
        .id
        .clone();
    let child = broken
        .node(&root)
        .unwrap()
        .linked(arbor::model::Port::Child)[0]
        .clone();
    broken
        .apply(arbor::model::Edit::Unlink { child }, &catalog)
        .unwrap();
    let said = d.fork(&catalog, &broken, &tree_path, 1).unwrap();
    assert!(
        said.contains("cannot run") && said.contains("starts over"),
        "{said}"
    );
    assert!(d.error().is_some());
    assert_eq!(d.step_number(), 0);
    // Undo: the run before the edit, at step 15.
    let said = d.fork(&catalog, &tree, &tree_path, 0).unwrap();
    assert!(
        said.starts_with("Back to the run before the edit"),
        "{said}"
    );
    assert_eq!(d.step_number(), 15);
    assert!(d.error().is_none());
    // A title changes nothing that runs: no re-run.
    let mut titled = tree.clone();
    titled
        .apply(
            arbor::model::Edit::SetTitle {
                id: root,
                title: "Top".into(),
            },
            &catalog,
        )
        .unwrap();
    assert_eq!(d.fork(&catalog, &titled, &tree_path, 2), None);
    assert_eq!(d.step_number(), 15);
}

/// A trace of `steps` steps of the scenario `name` (seed 0), as `arbor run --trace` writes
/// it, in a new folder.
fn recorded(name: &str, steps: u64) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
    let scenario = sample(&format!("{name}.scenario.json"));
    let args = arbor::cli::RunArgs {
        trace: Some(&path),
        ..arbor::cli::RunArgs::new(&scenario, steps)
    };
    let (mut o, mut e) = (Vec::new(), Vec::new());
    assert_eq!(
        arbor::cli::run(&args, &Catalog::builtin(), &mut o, &mut e),
        0
    );
    (dir, path)
}

/// Each node of agent `agent`'s log at the shown step, with its title where the run says.
fn titled_log(d: &arbor::debug::Debugger, agent: usize) -> Vec<(String, Option<String>)> {
    let run = d.source().unwrap();
    run.log(agent)
        .iter()
        .filter_map(|e| {
            let n = e.node?;
            let id = run.node_id(agent, n)?.to_owned();
            Some((id, run.node_name(agent, n)))
        })
        .collect()
}

#[test]
fn a_replay_and_a_games_later_agents_name_their_nodes_by_the_titles_in_their_trees() {
    let (_dir, path) = recorded("guard_patrol", 5);
    let subtree_node = |log: &[(String, Option<String>)]| {
        log.iter()
            .find(|(id, _)| id == "patrol/to_a")
            .map(|(_, title)| title.clone())
    };
    // A recorded trace: the titles from the files its header names, SubTree's included.
    let trace = arbor::io::read_trace(&path).unwrap();
    let mut replay = arbor::debug::Debugger::replay(&path, trace.clone());
    replay.seek(3);
    assert_eq!(
        subtree_node(&titled_log(&replay, 0)),
        Some(None),
        "no titles asked"
    );
    replay.learn_titles(&Catalog::builtin());
    assert_eq!(
        subtree_node(&titled_log(&replay, 0)),
        Some(Some("Go to the first post".to_owned()))
    );
    // A game that names its agent only after the editor attached: its titles come then.
    let mut header = trace.header.clone().unwrap();
    for a in &mut header.agents {
        a.tree = sample(&a.tree).display().to_string();
    }
    let mut game = arbor::debug::Debugger::game(arbor::debug::LiveStart {
        id: 1,
        run: 1,
        name: "game".into(),
        header,
        streamed: None,
        agents: Vec::new(),
        events: Vec::new(),
        next: 0,
        window: arbor::debug::EventWindow {
            events: 1_000_000,
            bytes: 1 << 30,
        },
    });
    game.learn_titles(&Catalog::builtin());
    let sent = trace.events.len() as u64;
    game.feed(&trace.agents, trace.events.clone(), sent, &[]);
    game.seek(3);
    assert_eq!(
        subtree_node(&titled_log(&game, 0)),
        Some(Some("Go to the first post".to_owned()))
    );
}

#[test]
fn previous_and_next_hit_go_to_the_steps_a_forward_run_hits_even_for_a_breakpoint_set_later() {
    let breaks = on_entering("attack");
    // Every step where the breakpoint hits, in a run that stops nowhere.
    let mut forward = scenario_session("droid_arena", 0);
    let mut hit_steps = Vec::new();
    for _ in 0..700 {
        if let Some(h) = forward.step(&breaks).first() {
            hit_steps.push(h.step);
        }
    }
    assert!(hit_steps.len() > 3, "{hit_steps:?}");
    // The same run taken to step 700 without the breakpoint: its timeline has no hit
    // marked, yet going back finds each hit, the last first.
    let (mut d, _, _) = debugger("droid_arena");
    d.step_by(700, &[]);
    let mut back = Vec::new();
    loop {
        let before = d.step_number();
        d.previous_hit(&breaks);
        let news = d.take_news().unwrap();
        if d.step_number() == before {
            assert_eq!(news, format!("No breakpoint hit before step {before}"));
            break;
        }
        assert!(news.starts_with("Breakpoint: attack on enter"), "{news}");
        assert_eq!(
            d.take_select().map(|n| n.as_str().to_owned()).as_deref(),
            Some("attack")
        );
        back.push(d.step_number());
    }
    back.reverse();
    assert_eq!(back, hit_steps);
    // Forward again from the first hit: each next one, through the history and past it.
    let mut ahead = vec![d.step_number()];
    for _ in 1..hit_steps.len() {
        d.next_hit(&breaks);
        ahead.push(d.step_number());
    }
    assert_eq!(ahead, hit_steps);
    // A step shown rebuilt: the lights are a fresh run's at that step.
    let at = *hit_steps.last().unwrap();
    let mut fresh = scenario_session("droid_arena", 0);
    fresh.run(at, &[]);
    let agent = d.watched();
    let attack = fresh
        .instance(agent)
        .unwrap()
        .program()
        .index_of("attack")
        .unwrap();
    let state = &fresh.instance(agent).unwrap().node_states()[attack as usize];
    assert_eq!(
        d.live()[&arbor::model::NodeId::new("attack")].state.entries,
        state.entries
    );
    // Without breakpoints, both say so and stay.
    d.next_hit(&[]);
    assert!(
        d.take_news()
            .unwrap()
            .starts_with("No breakpoint on this tree")
    );
    assert_eq!(d.step_number(), at);
}

#[test]
fn go_to_step_rebuilds_a_past_step_runs_to_a_later_one_and_clamps_a_replay() {
    let (mut d, _, _) = debugger("door_room");
    assert_eq!(d.go_to_step(40).unwrap(), "At step 40");
    assert_eq!(d.step_number(), 40);
    assert_eq!(d.go_to_step(12).unwrap(), "At step 12");
    assert_eq!(d.step_number(), 12);
    let err = d.go_to_step(u64::MAX).unwrap_err();
    assert!(err.contains("at most"), "{err}");
    assert_eq!(d.step_number(), 12);
    // A recorded run: a step past its end shows the last.
    let (_dir, path) = recorded("door_room", 30);
    let mut r = arbor::debug::Debugger::replay(&path, arbor::io::read_trace(&path).unwrap());
    assert_eq!(
        r.go_to_step(500).unwrap(),
        "Step 500 is past the end of the recording: at its last step, 30"
    );
    assert_eq!(r.step_number(), 30);
    assert_eq!(r.go_to_step(7).unwrap(), "At step 7");
    assert_eq!(r.step_number(), 7);
}

/// The history's entries as (step, change, value).
fn entries(h: &arbor::debug::KeyHistory) -> Vec<(u64, arbor::debug::KeyChange, Option<String>)> {
    h.writes
        .iter()
        .map(|w| (w.step, w.change.clone(), w.value.clone()))
        .collect()
}

#[test]
fn a_declared_key_shows_its_type_and_default_before_the_run_and_its_history_after() {
    use arbor::debug::{KeyChange, Source};
    use arbor::runtime::Status;
    let dir = tempfile::tempdir().unwrap();
    let path = common::moody_tree(dir.path());
    let mut run = Source::Simulation(Box::new(solo_session(&path, 0)));
    // Before the first step: the declared key, its type, its default, marked so.
    let row = |run: &Source| {
        run.context(0)
            .into_iter()
            .find(|r| r.key == "mood")
            .unwrap()
    };
    let r = row(&run);
    assert_eq!(r.value.as_deref(), Some("\"calm\""));
    assert_eq!(r.ty, Some(arbor::model::KeyType::Text));
    assert!(r.default);
    run.run(12, &[]);
    run.seek(2);
    let r = row(&run);
    assert_eq!(r.value.as_deref(), Some("\"angry\""));
    assert!(!r.default && r.written);
    // Its history, from the first step to the newest, while step 5 is shown.
    run.seek(5);
    run.follow_key(0, "mood");
    assert_eq!(
        run.step_number(),
        5,
        "following a key leaves the shown step"
    );
    let got = entries(run.key_history().unwrap());
    let n = |id: &str| {
        let Source::Simulation(s) = &run else {
            unreachable!()
        };
        s.instance(0).unwrap().program().index_of(id)
    };
    assert_eq!(got[0], (0, KeyChange::Start, Some("\"calm\"".into())));
    assert_eq!(
        got[1],
        (2, KeyChange::Written(n("set")), Some("\"angry\"".into()))
    );
    assert_eq!(
        got[2],
        (
            4,
            KeyChange::Completed(Status::Success),
            Some("\"calm\"".into())
        )
    );
    // A write, then the clear, every run: steps 2, 4, then again.
    assert!(got.len() > 5, "{got:?}");
    for w in &got[1..] {
        run.seek(w.0);
        assert_eq!(row(&run).value, w.2, "at step {}", w.0);
    }
    // Going on extends it; a fresh session's history of the longer run is the same.
    run.run(30, &[]);
    run.follow_key(0, "mood");
    let longer = entries(run.key_history().unwrap());
    let mut fresh = Source::Simulation(Box::new(solo_session(&path, 0)));
    fresh.run(run.head(), &[]);
    fresh.follow_key(0, "mood");
    assert_eq!(longer, entries(fresh.key_history().unwrap()));
    assert!(longer.len() > got.len());
}

#[test]
fn a_keys_history_is_the_traces_context_events_live_and_replayed() {
    use arbor::debug::{KeyChange, Source};
    let (_dir, path) = recorded("door_room", 200);
    let mut live = Source::Simulation(Box::new(scenario_session("door_room", 0)));
    live.run(200, &[]);
    live.seek(60);
    let mut replay = Source::replay(arbor::debug::Replay::new(
        arbor::io::read_trace(&path).unwrap(),
    ));
    replay.seek(60);
    for key in ["room", "door"] {
        live.follow_key(0, key);
        replay.follow_key(0, key);
        let a = live.key_history().unwrap().clone();
        let b = replay.key_history().unwrap();
        // Each write the trace records, at its step, by its node: the same both ways.
        let who = |run: &Source, h: &arbor::debug::KeyHistory| -> Vec<(u64, Option<String>)> {
            h.writes
                .iter()
                .filter_map(|w| match w.change {
                    KeyChange::Written(n) => {
                        Some((w.step, n.and_then(|n| run.node_id(0, n)).map(str::to_owned)))
                    }
                    KeyChange::Start => None,
                    _ => Some((w.step, None)),
                })
                .collect()
        };
        assert_eq!(who(&live, &a), who(&replay, b), "{key}");
        assert!(!a.writes.is_empty(), "{key} is written in 200 steps");
        // The trace's context events of the key, one for one.
        let trace = arbor::io::read_trace(&path).unwrap();
        let written: Vec<u64> = trace
            .events
            .iter()
            .filter(|e| e.agent == 0)
            .filter(|e| matches!(&e.kind, LoggedKind::Context(k, _) if &**k == key))
            .map(|e| e.frame())
            .collect();
        let listed: Vec<u64> = a
            .writes
            .iter()
            .filter(|w| matches!(w.change, KeyChange::Written(_) | KeyChange::Removed))
            .map(|w| w.step)
            .collect();
        assert_eq!(listed, written, "{key}");
        // Each entry's value is the one the context shows at its step.
        for w in a.writes.iter().filter(|w| w.change != KeyChange::Start) {
            live.seek(w.step);
            let row = live.context(0).into_iter().find(|r| r.key == key).unwrap();
            assert_eq!(row.value, w.value, "{key} at step {}", w.step);
        }
        assert_eq!(live.step_number(), a.writes.back().unwrap().step);
    }
}

#[test]
fn the_debugger_follows_the_key_shown_across_steps_agents_and_runs() {
    let (mut d, tree, tree_path) = debugger("door_room");
    d.step_by(40, &[]);
    d.show_history(Some("room".into()));
    let first = d.key_history().unwrap().writes.clone();
    assert!(!first.is_empty());
    // A click on an entry goes to its step (Go to Step).
    let step = first[0].step;
    d.go_to_step(step).unwrap();
    assert_eq!(d.step_number(), step);
    // Going on takes in the new steps.
    d.go_to_step(150).unwrap();
    let later = d.key_history().unwrap().writes.clone();
    assert!(later.len() >= first.len());
    assert!(later.iter().zip(&first).all(|(a, b)| a == b));
    // A new run (Reset) is followed again.
    d.reset(&Catalog::builtin(), &tree, &tree_path);
    assert!(d.key_history().unwrap().writes.iter().all(|w| w.step == 0));
    d.show_history(None);
    assert!(d.key_history().is_none());
}

#[test]
fn a_keys_history_keeps_its_newest_entries_and_counts_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let path = common::moody_tree(dir.path());
    let mut s = solo_session(&path, 0);
    s.run(10_000, &[]);
    s.follow(0, "mood");
    let h = s.key_history().unwrap();
    assert_eq!(h.writes.len(), arbor::debug::KEY_HISTORY_KEEP);
    assert!(h.earlier > 0);
    assert_eq!(h.writes.back().unwrap().step, s.head().min(10_000));
}

#[test]
fn a_replay_lists_its_trees_keys_with_their_defaults_and_their_history_as_live() {
    let dir = tempfile::tempdir().unwrap();
    let tree = common::moody_tree(dir.path());
    let path = dir.path().join("moody.jsonl");
    let args = arbor::cli::RunArgs {
        trace: Some(&path),
        ..arbor::cli::RunArgs::new(&tree, 40)
    };
    let (mut o, mut e) = (Vec::new(), Vec::new());
    assert_eq!(
        arbor::cli::run(&args, &Catalog::builtin(), &mut o, &mut e),
        0,
        "{}",
        String::from_utf8_lossy(&e)
    );
    let mut d = arbor::debug::Debugger::replay(&path, arbor::io::read_trace(&path).unwrap());
    d.learn_titles(&Catalog::builtin());
    let row = |d: &arbor::debug::Debugger| {
        d.source()
            .unwrap()
            .context(0)
            .into_iter()
            .find(|r| r.key == "mood")
            .unwrap()
    };
    // Before the first step, and after each clear: the default, so marked.
    let r = row(&d);
    assert_eq!(
        (r.value.as_deref(), r.ty, r.default),
        (Some("\"calm\""), Some(arbor::model::KeyType::Text), true)
    );
    d.go_to_step(2).unwrap();
    assert_eq!(row(&d).value.as_deref(), Some("\"angry\""));
    assert!(!row(&d).default);
    d.go_to_step(4).unwrap();
    assert!(row(&d).default);
    // The history is the live run's, entry for entry.
    d.show_history(Some("mood".into()));
    let replayed = entries(d.key_history().unwrap());
    let mut live = solo_session(&tree, 0);
    live.run(40, &[]);
    live.follow(0, "mood");
    let lived = entries(live.key_history().unwrap());
    assert_eq!(replayed.len(), lived.len());
    for (a, b) in replayed.iter().zip(&lived) {
        assert_eq!((a.0, &a.2), (b.0, &b.2));
    }
    // Each entry in words, the node by its title.
    let h = d.key_history().unwrap();
    let run = d.source().unwrap();
    let said: Vec<String> = h
        .writes
        .iter()
        .take(3)
        .map(|w| w.words(&|n| run.node_name(0, n).unwrap_or_default()))
        .collect();
    assert_eq!(
        said,
        [
            "\"calm\" from the start (default)",
            "Get angry wrote \"angry\"",
            "run succeeded, back to \"calm\""
        ]
    );
}

/// A tree the runtime cannot build, though it validates (a library's composite without
/// `runs_as`, a warning only): the debugger says why, not "the Problems panel lists
/// them", which lists no error.
#[test]
fn a_tree_the_runtime_cannot_build_says_why_in_the_debugger() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("game.nodes.json"),
        r#"{"format": "arbor.nodes", "version": 1, "library": "game",
            "kinds": [{"kind": "PipelineSequence", "category": "composite"}]}"#,
    )
    .unwrap();
    let project = dir.path().join("arbor.project.json");
    std::fs::write(
        &project,
        r#"{"format": "arbor.project", "version": 1, "nodes": ["game.nodes.json"]}"#,
    )
    .unwrap();
    let catalog = arbor::io::ProjectCatalog::load(Some(&project), &Catalog::builtin()).catalog;
    let mut root = arbor::model::Node::new("root", "Root");
    root.inputs.insert(
        arbor::model::Port::Child,
        vec![arbor::model::NodeId::new("p")],
    );
    let mut p = arbor::model::Node::new("p", "PipelineSequence");
    p.inputs.insert(
        arbor::model::Port::Children,
        vec![arbor::model::NodeId::new("a")],
    );
    let tree =
        arbor::model::Tree::from_nodes(vec![root, p, arbor::model::Node::new("a", "MockAction")])
            .unwrap();
    let path = std::path::Path::new("pipeline.json");
    let mut d = arbor::debug::Debugger::solo(Some(path));
    d.start_over(&catalog, &tree, path, 0);
    let why = d.error().unwrap_or_default();
    assert!(why.contains("runs_as"), "{why}");
}
