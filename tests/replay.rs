//! Traces replayed: a recorded run read back shows, at every step, what the live run
//! showed (each node's state, each agent's context), and a trace says clearly what is
//! wrong with it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::PathBuf;
use std::sync::Arc;

use arbor::debug::{BreakOn, Breakpoint, Replay};
use arbor::io::{parse_trace, read_trace, trace_header};
use arbor::model::Catalog;
use arbor::runtime::{JsonlTrace, NodeStateOf, Observer, Status};
use arbor::world::Simulation;
use common::repo;

const DT: f64 = 0.1;

/// What an agent showed at a step: each node's state by trace id, and its context.
type Shown = Vec<(
    String,
    Vec<(String, NodeStateOf<String>)>,
    Vec<(String, String)>,
)>;

fn shown(sim: &Simulation) -> Shown {
    sim.agents()
        .map(|a| {
            let i = sim.instance(&a.name).unwrap();
            let p = i.program();
            let nodes = p
                .node_ids()
                .iter()
                .zip(i.node_states())
                .filter(|(_, s)| s.status != Status::Idle)
                .map(|(id, s)| (id.clone(), s.map_reason(String::from)))
                .collect();
            let context = p
                .keys()
                .iter()
                .enumerate()
                .filter_map(|(k, name)| {
                    let v = i.context().get(k as u16)?;
                    Some((name.clone(), v.to_string()))
                })
                .collect();
            (a.name.clone(), nodes, context)
        })
        .collect()
}

fn replayed(r: &Replay) -> Shown {
    r.agent_names()
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let a = r.agent(i).unwrap();
            let mut nodes: Vec<(String, NodeStateOf<String>)> = a
                .nodes
                .iter()
                .filter(|(_, n)| n.status != Status::Idle)
                .map(|(id, n)| (id.to_string(), n.clone().map_reason(|r| r.to_string())))
                .collect();
            nodes.sort_by(|x, y| x.0.cmp(&y.0));
            let context = a
                .context
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            (name.clone(), nodes, context)
        })
        .collect()
}

/// The live run's view with its nodes and context sorted by name, as a replay's are.
fn comparable(mut s: Shown) -> Shown {
    for (_, nodes, context) in &mut s {
        nodes.sort_by(|x, y| x.0.cmp(&y.0));
        context.sort();
    }
    s
}

/// Runs sample scenario `name` for `steps` steps with its trace written to a file, and
/// returns the trace's path and what the run showed at each step.
fn record(name: &str, steps: u64, dir: &std::path::Path) -> (PathBuf, Vec<Shown>) {
    let scenario = repo().join(format!("sample_trees/{name}.scenario.json"));
    let mut sim = Simulation::load(&scenario, &Catalog::builtin(), 7, None)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let path = dir.join(format!("{name}.jsonl"));
    let file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let agents: Vec<(String, PathBuf)> = sim
        .agents()
        .map(|a| (a.name.clone(), a.tree.clone()))
        .collect();
    let mut trace = JsonlTrace::new(file, &agents[0].0);
    trace.write_header(&trace_header(DT, 7, &agents, sim.inputs(), Some(&path)));
    let mut seen = Vec::new();
    for _ in 0..steps {
        sim.step(DT, Some(&mut trace as &mut dyn Observer));
        seen.push(comparable(shown(&sim)));
    }
    trace.finish().unwrap();
    (path, seen)
}

#[test]
fn a_replayed_trace_shows_at_every_step_what_the_live_run_showed() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "guard_patrol",
        "droid_arena",
        "chase_flee",
        "pass_receive",
        "door_room",
        "hungry_agent",
    ] {
        let (path, seen) = record(name, 300, dir.path());
        let trace = read_trace(&path).unwrap_or_else(|e| panic!("{e}"));
        let header = trace.header.clone().expect("a header");
        assert_eq!(header.dt, DT);
        assert!(header.files.iter().all(|f| f.sha256.len() == 64), "{name}");
        let mut r = Replay::new(trace);
        // Forward, then back and forth across kept states.
        for k in (1..=300u64).chain([299, 3, 257, 256, 255, 1, 300]) {
            r.seek(k);
            assert_eq!(replayed(&r), seen[k as usize - 1], "{name} at step {k}");
        }
    }
}

#[test]
fn continue_goes_to_the_next_breakpoint_hit_and_markers_cover_the_trace() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = record("guard_patrol", 200, dir.path());
    let mut r = Replay::new(read_trace(&path).unwrap());
    // The guard intercepts during its rounds (its observer takes over) at step 80.
    let breaks = [Breakpoint {
        node: "intercept".into(),
        on: BreakOn::Enter,
    }];
    // The start enters it (its guard fails at once), as the live run's first step does.
    let start = r
        .continue_to_hit(&breaks)
        .expect("intercept is entered at the start");
    assert_eq!((start.step, r.step_number()), (1, 1));
    let hit = r.continue_to_hit(&breaks).expect("intercept is entered");
    assert_eq!((hit.step, r.step_number()), (80, 80));
    let guard = r.agent_names().iter().position(|n| n == "guard").unwrap();
    assert_eq!(hit.agent, guard);
    let node = &r.agent(guard).unwrap().nodes[&Arc::from("intercept")];
    assert_eq!(node.status, Status::Running);
    // The next Continue goes past this hit.
    let later = r.continue_to_hit(&breaks);
    assert!(later.is_none_or(|h| h.step > hit.step));
    assert!(r.markers().windows(2).all(|w| w[0].step <= w[1].step));
    let marks = r.hit_markers(&breaks);
    assert!(marks.iter().any(|m| m.step == 80 && m.agent == guard));
    assert!(
        marks.windows(2).all(|w| w[0] != w[1]),
        "one mark a step and agent"
    );
}

#[test]
fn a_trace_without_a_header_still_loads_and_bad_lines_are_named() {
    let old = r#"{"step":0,"agent":"a","event":"enter","node":"root"}
{"step":1,"agent":"b","event":"context","node":"x","key":"target","value":{"entity":3}}
"#;
    let t = parse_trace(old.as_bytes(), std::path::Path::new("old.jsonl")).unwrap();
    assert!(t.header.is_none());
    assert_eq!(t.agents, ["a", "b"]);
    let cases = [
        (
            "{\"step\":0,\"agent\":\"a\",\"event\":\"exit\",\"node\":\"n\"}\n",
            "old.jsonl:1: a 'exit' event needs its \"status\"",
        ),
        (
            "{\"step\":0,\"agent\":\"a\",\"event\":\"enter\",\"node\":\"n\"}\n{\"step\":1,\"agent\":\"a\",\"event\":\"jump\",\"node\":\"n\"}\n",
            "old.jsonl:2: unknown event 'jump'",
        ),
        (
            "{\"format\": \"arbor.tree\", \"version\": 1, \"nodes\": []}\n",
            "is it a tree file?",
        ),
        (
            "{\"arbor_trace\":9,\"dt\":0.1,\"agents\":[]}\n",
            "old.jsonl:1: a trace of version 9",
        ),
        (
            "{\"step\":1,\"agent\":\"a\",\"event\":\"context\",\"node\":\"n\",\"key\":\"k\",\"value\":{\"x\":1}}\n",
            "\"value\" is",
        ),
    ];
    for (text, expected) in cases {
        let e = parse_trace(text.as_bytes(), std::path::Path::new("old.jsonl"))
            .expect_err(expected)
            .to_string();
        assert!(e.contains(expected), "{e}");
    }
    let long = format!(
        "{{\"step\":0,\"agent\":\"{}\",\"event\":\"enter\",\"node\":\"n\"}}\n",
        "a".repeat(100_000)
    );
    let e = parse_trace(long.as_bytes(), std::path::Path::new("old.jsonl")).unwrap_err();
    assert!(e.to_string().contains("a line longer than"), "{e}");
}

#[test]
fn cut_and_spliced_traces_read_or_say_why_never_panic() {
    for entry in std::fs::read_dir(repo().join("tests/golden")).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        common::exercise::trace_bytes(&bytes);
        for cut in (0..bytes.len()).step_by(97) {
            common::exercise::trace_bytes(&bytes[..cut]);
            let mut spliced = bytes[..cut].to_vec();
            spliced.extend_from_slice(b"{\"step\":-1,\"value\":[1]}\n\xff");
            spliced.extend_from_slice(&bytes[cut..]);
            common::exercise::trace_bytes(&spliced);
        }
    }
}

#[test]
fn a_breakpoint_a_later_agent_hits_at_the_start_lets_step_and_run_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = record("guard_patrol", 40, dir.path());
    let mut run = arbor::debug::Source::replay(Replay::new(read_trace(&path).unwrap()));
    // The intruder, the second agent, enters its Selector at its start and each run.
    let breaks = [Breakpoint {
        node: "choose".into(),
        on: BreakOn::Enter,
    }];
    let mut steps = Vec::new();
    for _ in 0..5 {
        let hits = run.run(1, &breaks);
        steps.push((run.step_number(), hits.len()));
    }
    assert_eq!(
        steps.iter().map(|s| s.0).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5],
        "every Step moves on"
    );
    assert_eq!(steps[0].1, 1, "the hit at the start is reported once");
}

#[test]
fn events_that_come_as_a_game_sends_them_replay_as_the_whole_trace_does() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["guard_patrol", "droid_arena"] {
        let (path, seen) = record(name, 300, dir.path());
        let all = read_trace(&path).unwrap();
        // One message an agent's step, as a game sends them; the view shows the newest
        // step as soon as the first agent's part of it comes.
        let mut live = Replay::new(arbor::io::TraceFile {
            header: all.header.clone(),
            agents: all.agents.clone(),
            events: Vec::new(),
        });
        let mut i = 0;
        while i < all.events.len() {
            let (step, agent) = (all.events[i].step.max(1), all.events[i].agent);
            let mut j = i;
            while j < all.events.len()
                && all.events[j].agent == agent
                && (all.events[j].step.max(1) == step)
            {
                j += 1;
            }
            live.extend(&all.agents, all.events[i..j].iter().cloned());
            live.seek(live.last_step());
            i = j;
        }
        for k in (1..=300u64).rev().step_by(37).chain([300, 1]) {
            live.seek(k);
            assert_eq!(replayed(&live), seen[k as usize - 1], "{name} at step {k}");
        }
    }
}

#[test]
fn a_step_past_any_run_is_refused_and_a_far_step_seeks_at_once() {
    let far = "{\"step\":1000000000,\"agent\":\"a\",\"event\":\"enter\",\"node\":\"n\"}\n";
    let mut r =
        Replay::new(parse_trace(far.as_bytes(), std::path::Path::new("far.jsonl")).unwrap());
    r.seek(r.last_step());
    assert_eq!(r.step_number(), 1_000_000_000);
    r.seek(3);
    r.seek(999_999_999);
    let past =
        "{\"step\":18446744073709551615,\"agent\":\"a\",\"event\":\"enter\",\"node\":\"n\"}\n";
    let e = parse_trace(past.as_bytes(), std::path::Path::new("past.jsonl")).unwrap_err();
    assert!(e.to_string().contains("past any run"), "{e}");
}

#[test]
fn a_node_renamed_while_a_trace_is_replayed_keeps_its_lights_and_its_breakpoint() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = record("guard_patrol", 200, dir.path());
    let mut d = arbor::debug::Debugger::replay(&path, read_trace(&path).unwrap());
    let guard = d
        .source()
        .unwrap()
        .agent_names()
        .iter()
        .position(|n| n == "guard")
        .unwrap();
    d.watch(guard);
    d.seek(100);
    let before = d.live()[&arbor::model::NodeId::new("intercept")].clone();
    // The designer renames intercept to chase_down in the tree shown.
    d.renamed(
        &arbor::model::NodeId::new("intercept"),
        &arbor::model::NodeId::new("chase_down"),
    );
    // The trace still says intercept; the canvas's node is chase_down, lit as before.
    assert!(
        !d.live()
            .contains_key(&arbor::model::NodeId::new("intercept"))
    );
    assert_eq!(d.live()[&arbor::model::NodeId::new("chase_down")], before);
    // A breakpoint on the new id stops where one on the recorded id does.
    // (Past the start, where intercept is entered at once.)
    let mut by_old = Replay::new(read_trace(&path).unwrap());
    by_old.seek(2);
    let want = by_old
        .continue_to_hit(&[Breakpoint {
            node: "intercept".into(),
            on: BreakOn::Enter,
        }])
        .map(|h| h.step);
    assert!(want.is_some_and(|s| s > 2));
    d.seek(2);
    d.step_by(
        1_000,
        &[Breakpoint {
            node: "chase_down".into(),
            on: BreakOn::Enter,
        }],
    );
    assert_eq!(Some(d.step_number()), want);
    assert_eq!(
        d.take_select().map(|n| n.as_str().to_owned()).as_deref(),
        Some("chase_down")
    );
}
