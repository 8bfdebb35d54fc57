//! Traces replayed: a recorded run read back shows, at every step, what the live run
//! showed (each node's state, each agent's context), and a trace says clearly what is
//! wrong with it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::PathBuf;
use std::sync::Arc;

use arbor::debug::{BreakOn, Breakpoint, Replay};
use arbor::io::{TraceCut, TracePlace, convert_trace, parse_trace, read_trace, trace_header};
use arbor::model::Catalog;
use arbor::runtime::{BinaryTrace, JsonlTrace, NodeStateOf, Status};
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

/// Runs sample scenario `name` for `steps` steps with its trace written to files in both
/// encodings at once (`NAME.jsonl` and `NAME.arbtrace`, a pair of observers), and returns
/// the JSON Lines trace's path and what the run showed at each step.
fn record(name: &str, steps: u64, dir: &std::path::Path) -> (PathBuf, Vec<Shown>) {
    let scenario = repo().join(format!("sample_trees/{name}.scenario.json"));
    let mut sim = Simulation::load(&scenario, &Catalog::builtin(), 7, None)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let path = dir.join(format!("{name}.jsonl"));
    let file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let binary = std::fs::File::create(path.with_extension("arbtrace")).unwrap();
    let agents: Vec<(String, PathBuf)> = sim
        .agents()
        .map(|a| (a.name.clone(), a.tree.clone()))
        .collect();
    let header = trace_header(DT, 7, &agents, sim.inputs(), Some(&path));
    let mut both = (
        JsonlTrace::new(file, &agents[0].0),
        BinaryTrace::new(binary, &agents[0].0),
    );
    both.0.write_header(&header);
    both.1.write_header(&header);
    let mut seen = Vec::new();
    for _ in 0..steps {
        sim.step(DT, Some(&mut both));
        seen.push(comparable(shown(&sim)));
    }
    both.0.finish().unwrap();
    both.1.finish().unwrap();
    (path, seen)
}

/// The sample scenarios.
const SAMPLES: [&str; 6] = [
    "guard_patrol",
    "droid_arena",
    "chase_flee",
    "pass_receive",
    "door_room",
    "hungry_agent",
];

#[test]
fn a_replayed_trace_shows_at_every_step_what_the_live_run_showed() {
    let dir = tempfile::tempdir().unwrap();
    for name in SAMPLES {
        let (path, seen) = record(name, 300, dir.path());
        let trace = read_trace(&path).unwrap_or_else(|e| panic!("{e}"));
        let binary = read_trace(&path.with_extension("arbtrace")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            binary, trace,
            "{name}: the binary trace reads as the JSON Lines one"
        );
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
    // The guard intercepts during its patrol (its observer takes over) at step 74.
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
    assert_eq!((hit.step, r.step_number()), (74, 74));
    let guard = r.agent_names().iter().position(|n| n == "guard").unwrap();
    assert_eq!(hit.agent, guard);
    let node = &r.agent(guard).unwrap().nodes[&Arc::from("intercept")];
    assert_eq!(node.status, Status::Running);
    // The next Continue goes past this hit.
    let later = r.continue_to_hit(&breaks);
    assert!(later.is_none_or(|h| h.step > hit.step));
    assert!(r.markers().windows(2).all(|w| w[0].step <= w[1].step));
    let marks = r.hit_markers(&breaks);
    assert!(marks.iter().any(|m| m.step == 74 && m.agent == guard));
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
            "old.jsonl:1: written by a newer Arbor: trace file version 9; this build reads version 1",
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
            let mut spliced = bytes[..cut].to_vec();
            spliced.extend_from_slice(&[0x41, 0xff, 0x7f, 0x80, 0x01, 0x40, 0x09]);
            spliced.extend_from_slice(&bytes[cut..]);
            common::exercise::binary_trace_bytes(&spliced);
            common::exercise::binary_trace_bytes(&bytes[cut..]);
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
            cut: None,
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

#[test]
fn json_lines_to_binary_and_back_is_the_same_trace_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    for name in SAMPLES {
        let (path, _) = record(name, 300, dir.path());
        let recorded = path.with_extension("arbtrace");
        let binary = dir.path().join(format!("{name}.converted.arbtrace"));
        let back = dir.path().join(format!("{name}.back.jsonl"));
        let there = convert_trace(&path, &binary).unwrap();
        let again = convert_trace(&binary, &back).unwrap();
        let text = std::fs::read(&path).unwrap();
        let bytes = std::fs::read(&binary).unwrap();
        assert_eq!(
            bytes,
            std::fs::read(&recorded).unwrap(),
            "{name}: as recorded"
        );
        assert_eq!(
            std::fs::read(&back).unwrap(),
            text,
            "{name}: back to JSON Lines"
        );
        assert_eq!(
            (there.events, there.steps, there.cut),
            (again.events, again.steps, again.cut),
            "{name}"
        );
        assert_eq!(there.sizes, Some((text.len() as u64, bytes.len() as u64)));
        assert!(
            there.cut.is_none() && there.events > 500,
            "{name}: {there:?}"
        );
        assert!(
            bytes.len() * 8 < text.len(),
            "{name}: {} bytes binary, {} as text",
            bytes.len(),
            text.len()
        );
    }
}

/// The steps the events show, as a replay counts them.
fn steps_of(events: &[arbor::io::TracedEvent]) -> u64 {
    events.iter().map(|e| e.step.max(1)).max().unwrap_or(0)
}

#[test]
fn a_trace_cut_mid_line_shows_every_complete_line_and_says_where_it_was_cut() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = record("guard_patrol", 120, dir.path());
    let bytes = std::fs::read(&path).unwrap();
    let full = read_trace(&path).unwrap();
    let name = std::path::Path::new("cut.jsonl");
    for cut in (1..bytes.len())
        .step_by(53)
        .chain([bytes.len() - 1, bytes.len()])
    {
        let t = parse_trace(&bytes[..cut], name).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        // Lines whose text is all there (a last one without its newline too), the header
        // first.
        let ended = bytes[..cut].iter().filter(|&&b| b == b'\n').count();
        let whole = bytes[cut - 1] == b'\n' || bytes.get(cut) == Some(&b'\n');
        let lines = ended + usize::from(bytes[cut - 1] != b'\n' && whole);
        let events = lines.saturating_sub(1);
        assert_eq!(t.events, full.events[..events], "cut at {cut}");
        assert_eq!(t.header.is_some(), lines >= 1, "cut at {cut}");
        let steps = steps_of(&t.events);
        let expected = (!whole).then_some(TraceCut {
            at: TracePlace::Line(ended + 1),
            steps,
        });
        assert_eq!(t.cut, expected, "cut at {cut}");
        if let Some(c) = t.cut {
            assert_eq!(
                format!("{}: {}", c.location(name), c.message()),
                format!(
                    "cut.jsonl:{}: the last line was cut off: {steps} steps shown",
                    ended + 1
                )
            );
        }
    }
}

#[test]
fn only_the_last_line_may_be_cut_and_only_where_its_text_stops() {
    let header =
        r#"{"arbor_trace":1,"dt":0.1,"seed":0,"agents":[{"name":"gärd","tree":"t.json"}]}"#;
    let event =
        |step: u32| format!(r#"{{"step":{step},"agent":"gärd","event":"enter","node":"n"}}"#);
    let name = std::path::Path::new("t.jsonl");
    // A character cut in two is a cut.
    let whole = format!("{header}\n{}\n{}\n", event(1), event(2));
    let inside = whole.rfind('ä').unwrap() + 1;
    let t = parse_trace(&whole.as_bytes()[..inside], name).unwrap();
    assert_eq!(
        (t.events.len(), t.cut.map(|c| c.at)),
        (1, Some(TracePlace::Line(3)))
    );
    // A line cut short with more after it is a bad line.
    let middle = format!("{header}\n{}\n{}\n", &event(1)[..20], event(2));
    let e = parse_trace(middle.as_bytes(), name)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("t.jsonl:2: not an event: EOF while parsing"),
        "{e}"
    );
    // A whole last line that is wrong is wrong, newline or not.
    let wrong = format!(
        "{header}\n{}\n{}",
        event(1),
        event(2).replace("enter", "jump")
    );
    let e = parse_trace(wrong.as_bytes(), name).unwrap_err().to_string();
    assert_eq!(e, "t.jsonl:3: unknown event 'jump'");
    // A whole last line without its newline reads.
    let t = parse_trace(format!("{header}\n{}", event(1)).as_bytes(), name).unwrap();
    assert_eq!((t.events.len(), t.cut), (1, None));
    // A cut header: no header, no events.
    let t = parse_trace(&header.as_bytes()[..30], name).unwrap();
    assert_eq!(
        (
            t.header.is_none(),
            t.events.len(),
            t.cut.map(|c| c.message())
        ),
        (
            true,
            0,
            Some("the last line was cut off: 0 steps shown".to_owned())
        )
    );
}

#[test]
fn a_binary_trace_cut_anywhere_reads_every_whole_event_and_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = record("guard_patrol", 60, dir.path());
    let bytes = std::fs::read(path.with_extension("arbtrace")).unwrap();
    let full = parse_trace(&bytes[..], std::path::Path::new("t.arbtrace")).unwrap();
    let name = std::path::Path::new("cut.arbtrace");
    let mut read = 0;
    let mut cuts = 0;
    // Shorter than its first bytes, a file is no binary trace.
    for cut in arbor::runtime::BINARY_TRACE_MAGIC.len()..=bytes.len() {
        let t = parse_trace(&bytes[..cut], name).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        assert!(t.events.len() >= read, "cut at {cut}");
        read = t.events.len();
        assert_eq!(t.events, full.events[..read], "cut at {cut}");
        let Some(c) = t.cut else { continue };
        cuts += 1;
        let TracePlace::Byte(at) = c.at else {
            panic!("cut at {cut}: {c:?}")
        };
        assert_eq!(c.steps, steps_of(&t.events));
        assert_eq!(
            format!("{}: {}", c.location(name), c.message()),
            format!(
                "cut.arbtrace: byte {at}: the last event was cut off: {} steps shown",
                c.steps
            )
        );
        // The cut starts where a whole record ends (or at the header, cut itself): up to
        // there, the trace is whole.
        let before = parse_trace(&bytes[..at as usize], name).unwrap();
        assert_eq!(before.events, t.events, "cut at {cut}");
        assert_eq!(before.cut.is_none(), t.header.is_some(), "cut at {cut}");
    }
    assert!(
        cuts > bytes.len() / 2,
        "{cuts} of {} cuts fall inside a record",
        bytes.len()
    );
    assert_eq!(read, full.events.len());
}

/// A binary trace: its first bytes, version 1, no header, then `records`.
fn binary(records: &[u8]) -> Vec<u8> {
    let mut b = arbor::runtime::BINARY_TRACE_MAGIC.to_vec();
    b.extend_from_slice(&[1, 0]);
    b.extend_from_slice(records);
    b
}

/// `v` as a varint.
fn varint(mut v: u64) -> Vec<u8> {
    let mut b = Vec::new();
    while v >= 0x80 {
        b.push(v as u8 | 0x80);
        v >>= 7;
    }
    b.push(v as u8);
    b
}

#[test]
fn a_binary_trace_that_is_wrong_is_named_with_its_byte_and_never_allocates_what_it_claims() {
    let agent = [0x40, 1, 1, b'a'];
    let with_agent = |rest: &[u8]| binary(&[&agent[..], rest].concat());
    let mut header = arbor::runtime::BINARY_TRACE_MAGIC.to_vec();
    header.push(1);
    header.extend(varint(1 << 62));
    let mut version = arbor::runtime::BINARY_TRACE_MAGIC.to_vec();
    version.push(2);
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            version,
            "t.arbtrace: written by a newer Arbor: binary trace file version 2; this build reads version 1",
        ),
        (
            header,
            "t.arbtrace: the header of 4611686018427387904 bytes; at most 16777216 are read",
        ),
        (binary(&[0x7f]), "t.arbtrace: byte 10: unknown record 0x7f"),
        (
            binary(&[0x80, 1, 1, b'n']),
            "t.arbtrace: byte 10: an event before any agent record names its agent",
        ),
        (
            binary(&[0x40, 5]),
            "t.arbtrace: byte 10: string 3 is not in the table, which holds 0",
        ),
        (
            binary(&[&[0x40, 0][..], &varint(1 << 40)].concat()),
            "t.arbtrace: byte 10: a string of 1099511627776 bytes; at most 65536 are read",
        ),
        (
            binary(&[0x40, 1, 1, 0xff]),
            "t.arbtrace: byte 10: a string that is not UTF-8",
        ),
        (
            binary(&[&[0x41][..], &[0xff; 10], &[1]].concat()),
            "t.arbtrace: byte 10: a number past 64 bits",
        ),
        (
            binary(&[&[0x41][..], &varint(1 << 41)].concat()),
            "t.arbtrace: byte 10: step 2199023255552 is past any run",
        ),
        (
            with_agent(&[0x00]),
            "t.arbtrace: byte 14: a 'enter' event needs a node",
        ),
        (
            with_agent(&[0x8b, 1, 1, b'r', 9]),
            "t.arbtrace: byte 14: a restart's reason is 0 to 3, not 9",
        ),
        (
            with_agent(&[0x10, 1, 1, b'k', 7]),
            "t.arbtrace: byte 14: a value's type is 0 to 5, not 7",
        ),
    ];
    for (bytes, expected) in cases {
        let e = parse_trace(&bytes[..], std::path::Path::new("t.arbtrace"))
            .expect_err(expected)
            .to_string();
        assert!(e.starts_with(expected), "{e}\nexpected {expected}");
    }
    // The table and the agents are bounded.
    let strings: Vec<u8> = (0..=arbor::runtime::MAX_TRACE_STRINGS)
        .flat_map(|_| [0x40, 1, 0])
        .collect();
    let e = parse_trace(&binary(&strings)[..], std::path::Path::new("t.arbtrace")).unwrap_err();
    assert!(
        e.to_string()
            .ends_with("more than 1048576 strings in the table"),
        "{e}"
    );
    let agents: Vec<u8> = (0..=arbor::io::MAX_TRACE_AGENTS)
        .flat_map(|i| {
            let name = format!("a{i}");
            [
                &[0x40, 0, name.len() as u8][..],
                name.as_bytes(),
                &[0x0f, 0, 0],
            ]
            .concat()
        })
        .collect();
    let e = parse_trace(&binary(&agents)[..], std::path::Path::new("t.arbtrace")).unwrap_err();
    assert!(e.to_string().ends_with("more than 65536 agents"), "{e}");
}

/// Events of any kind with any texts (quotes, escapes, control characters, any script)
/// and any values (NaN, infinities, negative zero, the largest entity ids).
mod any_events {
    use arbor::runtime::{EventKindOf, Reason, Status, ValueOf};
    use proptest::prelude::*;

    /// One event: agent (0 to 3), step, node, kind.
    pub type Made = (usize, u64, Option<String>, EventKindOf<String>);

    fn text() -> impl Strategy<Value = String> {
        prop_oneof!["[a-z_/]{1,8}", "\\PC{0,6}", "[\"\\\\\u{0}-\u{1f}é😀]{0,4}"]
    }

    fn number() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<f64>(),
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(-0.0),
            (-1000i32..1000).prop_map(f64::from)
        ]
    }

    fn value() -> impl Strategy<Value = ValueOf<String>> {
        prop_oneof![
            any::<u64>().prop_map(ValueOf::Entity),
            (number(), number()).prop_map(|(x, y)| ValueOf::Position([x, y])),
            number().prop_map(ValueOf::Number),
            text().prop_map(ValueOf::Text),
            any::<bool>().prop_map(ValueOf::Bool),
        ]
    }

    fn kind() -> impl Strategy<Value = EventKindOf<String>> {
        use EventKindOf as K;
        let status = prop_oneof![Just(Status::Success), Just(Status::Failure)];
        prop_oneof![
            Just(K::Enter),
            Just(K::Execute),
            (status.clone(), proptest::option::of(text())).prop_map(|(s, r)| K::Exit(s, r)),
            Just(K::Abort),
            any::<bool>().prop_map(K::Check),
            status.prop_map(K::Complete),
            (0..4usize).prop_map(|r| K::Restart(
                [
                    Reason::Complete,
                    Reason::ContextMissing,
                    Reason::ForceReset,
                    Reason::Stall
                ][r]
            )),
            text().prop_map(K::Interrupt),
            text().prop_map(K::ContextMissing),
            Just(K::Stall),
            text().prop_map(K::Warning),
            (text(), proptest::option::of(value())).prop_map(|(k, v)| K::Context(k, v)),
        ]
    }

    pub fn event() -> impl Strategy<Value = Made> {
        (
            0..4usize,
            prop_oneof![0..5u64, 0..=arbor::io::MAX_TRACE_STEP],
            text(),
            any::<bool>(),
            kind(),
        )
            .prop_map(|(agent, step, node, with_node, kind)| {
                // A warning, and a value removed from a context, may name a node; every
                // other event names one.
                let named = with_node
                    || !matches!(
                        kind,
                        EventKindOf::Warning(_) | EventKindOf::Context(_, None)
                    );
                (agent, step, named.then_some(node), kind)
            })
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 200, ..Default::default() })]

    #[test]
    fn any_events_go_to_binary_and_back_to_the_same_json_lines(
        events in proptest::collection::vec(any_events::event(), 0..40),
        headed in proptest::prelude::any::<bool>(),
    ) {
        use arbor::io::{TraceReader, write_trace};
        use arbor::runtime::{Event, Observer, TraceEncoding};
        let agents = ["guard", "gärd \"2\"", "\u{1}", ""];
        let mut text = JsonlTrace::new(Vec::new(), agents[0]);
        if headed {
            text.write_header(&trace_header(DT, 3, &[("guard".into(), "g.json".into())], &[], None));
        }
        for (i, (agent, step, node, kind)) in events.iter().enumerate() {
            text.set_agent(agents[*agent]);
            text.event(&Event {
                step: *step,
                node: node.as_ref().map(|_| i as u32 % 3),
                node_id: node.as_deref().unwrap_or(""),
                kind: kind.map(String::as_str),
            });
        }
        let text = text.finish().unwrap();
        let path = std::path::Path::new("any.jsonl");
        let mut reader = TraceReader::new(&text[..], path).unwrap();
        let (binary, _) = write_trace(&mut reader, TraceEncoding::Binary, Vec::new(), path).unwrap();
        let mut reader = TraceReader::new(&binary[..], path).unwrap();
        let (back, _) = write_trace(&mut reader, TraceEncoding::JsonLines, Vec::new(), path).unwrap();
        proptest::prop_assert_eq!(String::from_utf8_lossy(&back), String::from_utf8_lossy(&text));
        proptest::prop_assert_eq!(parse_trace(&binary[..], path).unwrap(), parse_trace(&text[..], path).unwrap());
    }
}

#[test]
fn the_binary_example_of_docs_format_md_is_what_the_writer_writes() {
    use arbor::runtime::{Event, EventKind, Observer};
    let mut t = BinaryTrace::new(Vec::new(), "guard");
    let mut event = |step, kind| {
        t.event(&Event {
            step,
            node: Some(0),
            node_id: "root",
            kind,
        });
    };
    event(0, EventKind::Enter);
    event(1, EventKind::Execute);
    let bytes = t.finish().unwrap();
    let docs = std::fs::read_to_string(repo().join("docs/FORMAT.md")).unwrap();
    let example = docs
        .split("```\n89 41 52 42")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the example in docs/FORMAT.md");
    let documented: Vec<u8> = format!("89 41 52 42{example}")
        .lines()
        .flat_map(|l| l.split("  ").next().unwrap_or("").split_whitespace())
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect();
    assert_eq!(bytes, documented);
    let t = parse_trace(&bytes[..], std::path::Path::new("example.arbtrace")).unwrap();
    assert_eq!(t.agents, ["guard"]);
    assert_eq!(t.events.len(), 2);
}

#[test]
fn a_header_of_thousands_of_agents_reads_back_and_one_past_the_limit_is_refused_by_name() {
    use arbor::runtime::{Event, EventKind, MAX_TRACE_HEADER, Observer};
    // 2,000 agents (a scenario of 1,550 or more makes a header over 64 KiB).
    let agents: Vec<(String, PathBuf)> = (0..2_000)
        .map(|i| {
            (
                format!("droid-{i}"),
                PathBuf::from(format!("arena/droids/droid_{i}.json")),
            )
        })
        .collect();
    let header = trace_header(DT, 1, &agents, &[], None);
    assert!(header.to_line().len() > arbor::io::MAX_TRACE_LINE);
    let event = Event {
        step: 1,
        node: Some(0),
        node_id: "root",
        kind: EventKind::Enter,
    };
    let mut text = JsonlTrace::new(Vec::new(), "droid-1999");
    text.write_header(&header);
    text.event(&event);
    let mut binary = BinaryTrace::new(Vec::new(), "droid-1999");
    binary.write_header(&header);
    binary.event(&event);
    for (name, bytes) in [
        ("big.jsonl", text.finish().unwrap()),
        ("big.arbtrace", binary.finish().unwrap()),
    ] {
        let t = parse_trace(&bytes[..], std::path::Path::new(name)).unwrap();
        assert_eq!(t.header.as_ref(), Some(&header), "{name}");
        assert_eq!(t.agents.len(), 2_000, "{name}");
        assert_eq!(t.events[0].agent, 1_999, "{name}");
    }
    // A header past the limit: the writers write none and say why, a reader names it.
    let huge: Vec<(String, PathBuf)> = (0..2)
        .map(|i| {
            (
                format!("a{i}"),
                PathBuf::from("x".repeat(MAX_TRACE_HEADER / 2)),
            )
        })
        .collect();
    let header = trace_header(DT, 1, &huge, &[], None);
    let mut text = JsonlTrace::new(Vec::new(), "a0");
    text.write_header(&header);
    let e = text.finish().unwrap_err().to_string();
    assert!(
        e.contains("the trace's header would be 16.0 MiB (its 2 agents and 0 files); a trace's header holds at most 16 MiB"),
        "{e}"
    );
    let mut binary = BinaryTrace::new(Vec::new(), "a0");
    binary.write_header(&header);
    assert_eq!(binary.finish().unwrap_err().to_string(), e);
    let line = format!("{}\n", header.to_line());
    let e = parse_trace(line.as_bytes(), std::path::Path::new("huge.jsonl"))
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        format!(
            "huge.jsonl:1: a line longer than {MAX_TRACE_HEADER} bytes; a header names the run's agents and files"
        )
    );
    // A first line that is no header is an event: 64 KiB at most.
    let long = format!(
        r#"{{"step":1,"agent":"a","event":"warning","message":"{}"}}"#,
        "m".repeat(70_000)
    );
    let e = parse_trace(long.as_bytes(), std::path::Path::new("long.jsonl"))
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "long.jsonl:1: a line longer than 65536 bytes; an event is one short line"
    );
}

#[test]
fn a_keys_history_followed_as_a_game_sends_its_steps_is_the_whole_traces() {
    use arbor::debug::Source;
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = record("droid_arena", 300, dir.path());
    let all = read_trace(&path).unwrap();
    let key = "target";
    let mut whole = Source::replay(Replay::new(read_trace(&path).unwrap()));
    whole.follow_key(0, key);
    let want = whole.key_history().unwrap().clone();
    assert!(want.writes.len() > 2, "{:?}", want.writes);
    let mut live = Source::replay(Replay::new(arbor::io::TraceFile {
        header: all.header.clone(),
        agents: all.agents.clone(),
        events: Vec::new(),
        cut: None,
    }));
    // The history open from the start: each message taken in as it comes.
    for chunk in all.events.chunks(17) {
        live.extend(&all.agents, chunk.to_vec());
        live.follow_key(0, key);
    }
    let got = live.key_history().unwrap();
    assert_eq!(got.writes, want.writes);
    // Steps let go: the history starts after them.
    let Source::Trace(r) = &mut live else {
        unreachable!()
    };
    let window = arbor::debug::EventWindow {
        events: all.events.len() / 3,
        bytes: usize::MAX,
    };
    assert!(r.replay.keep_last(window));
    live.follow_key(0, key);
    let kept = live.key_history().unwrap();
    assert!(kept.from > 1);
    assert!(kept.writes.iter().all(|w| w.step > kept.from));
    assert!(
        want.writes
            .iter()
            .rev()
            .zip(kept.writes.iter().rev())
            .all(|(a, b)| a == b)
    );
}
