//! What recording a trace costs, per event and per agent-step: the JSON Lines recorder
//! (`JsonlTrace`) and the binary one (`BinaryTrace`) side by side in one process, rounds
//! interleaved. The events are those of the six sample scenarios (seed 0, 1,000 steps
//! each, every agent), gathered once and then handed to each recorder as a game's steps
//! hand them (the agent's name before its events), so that only the recorder's work
//! differs between the rows:
//! - no recorder: an observer that keeps nothing (what handing the events over costs);
//! - each recorder into a writer that counts the bytes and keeps none (the encoding);
//! - each recorder into a file (JSON Lines through a `BufWriter`, as `arbor run --trace`
//!   writes it; the binary writer gathers its own 64 KiB).
//!
//! `cargo bench --bench trace` (`ARBOR_BENCH_ROUNDS=N` rounds, default 15).
#![allow(clippy::expect_used, missing_docs)]

#[path = "common/mod.rs"]
mod common;

use common::median;

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use arbor::model::Catalog;
use arbor::runtime::{BinaryTrace, Event, EventKindOf, JsonlTrace, Observer};
use arbor::world::Simulation;

const SCENARIOS: [&str; 6] = [
    "droid_arena",
    "chase_flee",
    "hungry_agent",
    "door_room",
    "pass_receive",
    "guard_patrol",
];

/// One event as a step gave it, kept: its agent (a place in [`Run::agents`]) and its
/// node's index and id.
struct Kept {
    agent: usize,
    step: u64,
    node: Option<u32>,
    node_id: Arc<str>,
    kind: EventKindOf<Arc<str>>,
}

/// The events of the sample runs, and how many agent-steps gave them.
struct Run {
    agents: Vec<String>,
    events: Vec<Kept>,
    agent_steps: u64,
}

/// Runs each sample scenario for `steps` steps and keeps its events.
fn gather(steps: u64) -> Run {
    let mut run = Run {
        agents: Vec::new(),
        events: Vec::new(),
        agent_steps: 0,
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_trees");
    for name in SCENARIOS {
        let scenario = root.join(format!("{name}.scenario.json"));
        let mut sim =
            Simulation::load(&scenario, &Catalog::builtin(), 0, None).expect("the sample");
        let first = run.agents.len();
        let names: Vec<String> = sim.agents().map(|a| a.name.clone()).collect();
        run.agents
            .extend(names.iter().map(|agent| format!("{name}/{agent}")));
        let mut keep = Keeper {
            first,
            names: &names,
            agent: first,
            events: &mut run.events,
        };
        for _ in 0..steps {
            sim.step(0.1, Some(&mut keep));
        }
        run.agent_steps += steps * names.len() as u64;
    }
    run
}

/// An observer that keeps the events of one scenario's run, whose agents are `names`,
/// the first of them at `first` in [`Run::agents`].
struct Keeper<'a> {
    first: usize,
    names: &'a [String],
    agent: usize,
    events: &'a mut Vec<Kept>,
}

impl Observer for Keeper<'_> {
    fn agent(&mut self, name: &str) {
        let mine = self
            .names
            .iter()
            .position(|n| n == name)
            .expect("an agent of the scenario");
        self.agent = self.first + mine;
    }

    fn event(&mut self, e: &Event<'_>) {
        self.events.push(Kept {
            agent: self.agent,
            step: e.step,
            node: e.node,
            node_id: Arc::from(e.node_id),
            kind: e.kind.map(|t| Arc::from(*t)),
        });
    }
}

/// Hands every event of `run` to `observer`, each agent's name before its events.
fn hand(run: &Run, observer: &mut dyn Observer) {
    let mut agent = usize::MAX;
    for e in &run.events {
        if e.agent != agent {
            agent = e.agent;
            observer.agent(&run.agents[agent]);
        }
        observer.event(&Event {
            step: e.step,
            node: e.node,
            node_id: &e.node_id,
            kind: e.kind.map(|t| &**t),
        });
    }
}

/// A writer that counts the bytes it is given and keeps none.
#[derive(Default)]
struct Counted(u64);

impl Write for Counted {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Seconds to hand `run` to `observer`, made fresh by `make`; and the bytes `finish` says
/// it wrote.
fn timed<O: Observer>(
    run: &Run,
    make: impl FnOnce() -> O,
    finish: impl FnOnce(O) -> u64,
) -> (f64, u64) {
    let mut observer = make();
    let start = Instant::now();
    hand(run, &mut observer);
    let bytes = finish(observer);
    (start.elapsed().as_secs_f64(), bytes)
}

fn main() {
    let rounds = common::rounds(if cfg!(debug_assertions) { 1 } else { 15 });
    let steps = if cfg!(debug_assertions) { 50 } else { 1_000 };
    let run = gather(steps);
    let dir = tempfile::tempdir().expect("a folder for the files");
    let file = |name: &str| std::fs::File::create(dir.path().join(name)).expect("a file");
    let first = run.agents[0].as_str();
    let rows = [
        "no recorder",
        "JSON Lines, encoding",
        "binary, encoding",
        "JSON Lines, to a file",
        "binary, to a file",
    ];
    let mut times: [Vec<f64>; 5] = Default::default();
    let mut bytes = [0u64; 5];
    for _ in 0..rounds.max(1) {
        let results = [
            timed(&run, || |_: &Event<'_>| {}, |_| 0),
            timed(
                &run,
                || JsonlTrace::new(Counted::default(), first),
                |t| t.finish().expect("written").0,
            ),
            timed(
                &run,
                || BinaryTrace::new(Counted::default(), first),
                |t| t.finish().expect("written").0,
            ),
            timed(
                &run,
                || JsonlTrace::new(std::io::BufWriter::new(file("t.jsonl")), first),
                |t| {
                    let f = t.finish().expect("written").into_inner().expect("flushed");
                    f.metadata().expect("its size").len()
                },
            ),
            timed(
                &run,
                || BinaryTrace::new(file("t.arbtrace"), first),
                |t| {
                    t.finish()
                        .expect("written")
                        .metadata()
                        .expect("its size")
                        .len()
                },
            ),
        ];
        for (i, (t, b)) in results.into_iter().enumerate() {
            times[i].push(t);
            bytes[i] = b;
        }
    }
    let events = run.events.len() as f64;
    let agent_steps = run.agent_steps as f64;
    let m: Vec<f64> = times.iter_mut().map(|t| median(t)).collect();
    println!(
        "{} events of {} agent-steps ({:.2} events an agent-step), the six sample scenarios, {steps} steps each; medians of {} rounds:",
        run.events.len(),
        run.agent_steps,
        events / agent_steps,
        rounds.max(1)
    );
    println!(
        "  {:<24} {:>12} {:>14} {:>18} {:>14}",
        "", "ns an event", "recording:", "ns an agent-step", "bytes an"
    );
    println!(
        "  {:<24} {:>12} {:>14} {:>18} {:>14}",
        "", "(handed)", "ns an event", "(recording)", "agent-step"
    );
    for (i, row) in rows.iter().enumerate() {
        let all = m[i] * 1e9 / events;
        let recording = (m[i] - m[0]) * 1e9 / events;
        println!(
            "  {row:<24} {all:>12.1} {:>14} {:>18} {:>14}",
            if i == 0 {
                "".into()
            } else {
                format!("{recording:.1}")
            },
            if i == 0 {
                "".into()
            } else {
                format!("{:.0}", (m[i] - m[0]) * 1e9 / agent_steps)
            },
            if i == 0 {
                "".into()
            } else {
                format!("{:.1}", bytes[i] as f64 / agent_steps)
            },
        );
    }
    let cost = |i: usize| m[i] - m[0];
    println!(
        "  JSON Lines ÷ binary: {:.1}× the time encoding, {:.1}× to a file; {:.1}× the bytes",
        cost(1) / cost(2),
        cost(3) / cost(4),
        bytes[1] as f64 / bytes[2] as f64
    );
}
