//! What live attach costs a game: 1,000 agents of the sample mock sketch (sequences,
//! guards, an interrupt), each stepped once a frame, the watched agent after asking
//! `may_step` (with a link; only a watched agent's events can hit a breakpoint, so only
//! it can be paused), measured side by side in one process, rounds interleaved:
//! - without a link;
//! - with a link and no editor listening, one agent watched;
//! - with a link to an editor listening (in this process), one agent watched.
//!
//! `cargo bench --bench remote` (`ARBOR_BENCH_ROUNDS=N` rounds, default 15).
#![allow(clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use arbor::model::{Catalog, NoAssets};
use arbor::remote::{GameLink, Hello, Listener};
use arbor::runtime::{Behaviours, Instance, Program};

const AGENTS: usize = 1_000;
const FRAMES: usize = 200;

fn program() -> Arc<Program<()>> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_trees/mock_sketch.json");
    let tree = arbor::io::load_tree(&path).expect("the sample tree loads");
    Arc::new(
        Program::compile(
            &tree,
            &Catalog::builtin(),
            &NoAssets,
            &Behaviours::with_builtins(),
        )
        .expect("the sample tree compiles"),
    )
}

fn hello() -> Hello {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_trees/mock_sketch.json");
    Hello::new(
        "bench",
        0.1,
        0,
        &[("agent-0".into(), path.clone())],
        &[path],
    )
}

/// Microseconds per frame of `AGENTS` agents over `FRAMES` frames, agent 0 watched
/// through `link` when there is one.
fn frames(program: &Arc<Program<()>>, link: Option<&GameLink>) -> f64 {
    let mut agents: Vec<Instance<()>> = (0..AGENTS)
        .map(|i| Instance::new(program.clone(), i as u64))
        .collect();
    let start = Instant::now();
    for frame in 0..FRAMES {
        for (i, a) in agents.iter_mut().enumerate() {
            if frame % 50 == 10 && i % 7 == 0 {
                a.trigger("alarm", None);
            }
            match link.filter(|_| i == 0) {
                // A game with a link asks before each step of the agent it watches
                // whether the editor holds it.
                Some(l) if !l.may_step("agent-0") => {}
                Some(l) => a.step(0.1, &mut (), Some(&mut l.watch("agent-0"))),
                None => a.step(0.1, &mut (), None),
            }
        }
    }
    start.elapsed().as_secs_f64() * 1e6 / FRAMES as f64
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds: usize = std::env::var("ARBOR_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(15);
    let program = program();
    // No editor: a port nobody listens on.
    let free = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    let alone = GameLink::connect(&hello(), free);
    let listener = Listener::local(0).expect("listening");
    let linked = GameLink::connect(&hello(), listener.addr());
    let waited = Instant::now();
    while !linked.connected() && waited.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(linked.connected(), "the link connects");
    let mut times: [Vec<f64>; 3] = Default::default();
    for _ in 0..rounds.max(1) {
        times[0].push(frames(&program, None));
        times[1].push(frames(&program, Some(&alone)));
        times[2].push(frames(&program, Some(&linked)));
    }
    let m: Vec<f64> = times.iter_mut().map(|t| median(t)).collect();
    println!(
        "{AGENTS} agents, a frame each stepped once (medians of {} rounds of {FRAMES} frames):",
        rounds.max(1)
    );
    println!(
        "  without a link:                    {:8.1} µs a frame",
        m[0]
    );
    println!(
        "  a link, no editor listening:       {:8.1} µs a frame ({:+.1} %)",
        m[1],
        (m[1] / m[0] - 1.0) * 100.0
    );
    println!(
        "  a link to an editor, one watched:  {:8.1} µs a frame ({:+.1} %)",
        m[2],
        (m[2] / m[0] - 1.0) * 100.0
    );
    println!("  events the linked game dropped: {}", linked.dropped());
    let received = listener.games().first().map_or(0, |g| g.events.len());
    println!("  events the editor received: {received}");
}
