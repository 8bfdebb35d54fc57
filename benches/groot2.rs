//! What watching a BehaviorTree.CPP program costs (docs/BTCPP.md, "Live attach" and
//! "Recordings"), on a tree of 1,000 nodes (a Sequence of 999 leaves, each with its uid):
//! - a poll of the program: the publisher's 1,000 kept changes (the most it keeps) turned
//!   into events by the bridge, then fed to the editor's debugger as a frame feeds them
//!   (the replay extended and the view brought to the newest step);
//! - a `.btlog` of 100,000 changes: read and opened as a replay, and jumps to steps
//!   spread over it.
//!
//! `cargo bench --bench groot2` (`ARBOR_BENCH_ROUNDS=N` rounds, default 15).
#![allow(clippy::expect_used, clippy::unwrap_used, missing_docs)]

#[path = "common/mod.rs"]
mod common;

use common::median;

use std::time::Instant;

use arbor::debug::{Debugger, LiveStart, Replay};
use arbor::io::btcpp::{StatusChanges, recorded_ids};

const LEAVES: u16 = 999;

/// The tree as BehaviorTree.CPP writes it: a Sequence (uid 1) of leaves (uids 2 …).
fn tree_xml() -> String {
    let mut xml = String::from(
        "<root BTCPP_format=\"4\">\n<BehaviorTree ID=\"Big\" _fullpath=\"\">\n<Sequence name=\"all\" _uid=\"1\">\n",
    );
    for i in 0..LEAVES {
        xml += &format!("<AlwaysSuccess name=\"leaf_{i}\" _uid=\"{}\"/>\n", i + 2);
    }
    xml += "</Sequence>\n</BehaviorTree>\n</root>\n";
    xml
}

/// `n` changes of ticks of the tree, `dt_us` apart: each tick, the Sequence runs, every
/// leaf succeeds, the Sequence succeeds, and everything is reset.
fn changes(n: usize, dt_us: u64) -> Vec<(u64, u16, u8)> {
    let mut out = Vec::with_capacity(n);
    let mut t = 0u64;
    while out.len() < n {
        out.push((t, 1, 1));
        for uid in 2..LEAVES + 2 {
            out.push((t, uid, 2));
        }
        out.push((t, 1, 2));
        for uid in 1..LEAVES + 2 {
            out.push((t, uid, 0));
        }
        t += dt_us;
    }
    out.truncate(n);
    out
}

fn main() {
    let rounds = common::rounds(15);
    let xml = tree_xml();
    let ids = recorded_ids(&xml).expect("the tree reads");

    // A poll: 1,000 changes, converted and fed to a live debugger.
    let polls: Vec<Vec<(u64, u16, u8)>> = changes(1_000 * (rounds + 1), 10_000)
        .chunks(1_000)
        .map(<[_]>::to_vec)
        .collect();
    let header = arbor::runtime::TraceHeader {
        arbor_trace: arbor::runtime::TRACE_VERSION,
        dt: arbor::io::BTLOG_DT,
        seed: 0,
        agents: vec![arbor::runtime::TracedAgent {
            name: "Big".into(),
            tree: "Big.xml".into(),
        }],
        files: Vec::new(),
    };
    let mut debugger = Debugger::game(LiveStart {
        id: 0,
        run: 1,
        name: "BehaviorTree.CPP at 127.0.0.1:1667".into(),
        header,
        streamed: None,
        agents: vec!["Big".into()],
        events: Vec::new(),
        next: 0,
        window: arbor::remote::WINDOW,
    });
    let mut bridge = StatusChanges::new(ids.clone());
    let (mut converting, mut feeding) = (Vec::new(), Vec::new());
    let mut next = 0u64;
    for (i, poll) in polls.iter().enumerate() {
        let t0 = Instant::now();
        let mut events = Vec::with_capacity(poll.len() * 2);
        for (line, &(us, uid, to)) in poll.iter().enumerate() {
            bridge
                .apply(arbor::io::btlog_step(us), uid, to, line + 1, &mut events)
                .expect("a change of the tree");
        }
        let t1 = Instant::now();
        next += events.len() as u64;
        debugger.feed(&["Big".to_owned()], events, next, &[]);
        let lit = debugger.live().len();
        let t2 = Instant::now();
        std::hint::black_box(lit);
        // The first poll warms up.
        if i > 0 {
            converting.push((t1 - t0).as_secs_f64() * 1e3);
            feeding.push((t2 - t1).as_secs_f64() * 1e3);
        }
    }
    println!(
        "a poll of 1,000 changes of a 1,000-node tree: {:.3} ms converted by the bridge, {:.3} ms fed to the editor's debugger (medians of {})",
        median(&mut converting),
        median(&mut feeding),
        converting.len()
    );

    // A .btlog of 100,000 changes.
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("big.btlog");
    let mut bytes = Vec::new();
    bytes.extend_from_slice(arbor::io::BTLOG_MAGIC);
    bytes.push(1);
    bytes.extend_from_slice(&(xml.len() as u32).to_le_bytes());
    bytes.extend_from_slice(xml.as_bytes());
    bytes.extend_from_slice(&0i64.to_le_bytes());
    for (us, uid, to) in changes(100_000, 10_000) {
        bytes.extend_from_slice(&us.to_le_bytes()[..6]);
        bytes.extend_from_slice(&uid.to_le_bytes());
        bytes.push(to);
    }
    std::fs::write(&path, &bytes).expect("written");
    let (mut opening, mut jumping, mut worst) = (Vec::new(), Vec::new(), 0.0f64);
    for _ in 0..rounds {
        let t0 = Instant::now();
        let trace = arbor::io::read_trace(&path).expect("the recording reads");
        let mut replay = Replay::new(trace);
        let t1 = Instant::now();
        opening.push((t1 - t0).as_secs_f64() * 1e3);
        let last = replay.last_step();
        for k in 0..20u64 {
            // Forward and back across the recording.
            let to = if k % 2 == 0 {
                last * (k + 1) / 21
            } else {
                last / (k + 1)
            };
            let t = Instant::now();
            replay.seek(to);
            let ms = t.elapsed().as_secs_f64() * 1e3;
            worst = worst.max(ms);
            jumping.push(ms);
        }
        std::hint::black_box(replay.step_number());
    }
    println!(
        "a .btlog of 100,000 changes ({} KiB): opened in {:.1} ms, a jump {:.3} ms (median of {}; the slowest {:.3} ms)",
        bytes.len() / 1024,
        median(&mut opening),
        median(&mut jumping),
        jumping.len(),
        worst
    );
}
