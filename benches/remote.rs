//! What live attach costs a game: 1,000 agents of the sample mock sketch (sequences,
//! guards, an interrupt), each stepped once a frame, the watched agent after asking
//! `may_step` (with a link), measured side by side in one process, rounds interleaved:
//! - without a link;
//! - with a link and no editor listening, one agent watched;
//! - with a link to an editor listening (in this process), one agent streamed;
//! - with a link to a hostile editor that floods the game with junk commands as fast as
//!   the game takes them (steps, pauses, streams and triggers for agents it does not have,
//!   steps of an agent it does not hold, breakpoints and go-ons for every agent of the
//!   hello, which names all 1,000).
//!
//! Each prints the median frame and the worst frame of the round (the median of the
//! rounds' worst), since what a hostile peer could do is make some frame late.
//!
//! `cargo bench --bench remote` (`ARBOR_BENCH_ROUNDS=N` rounds, default 15).
#![allow(clippy::expect_used)]

#[path = "common/mod.rs"]
mod common;

use common::median;

use std::io::{BufRead, BufReader, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use arbor::model::{Catalog, NoAssets};
use arbor::remote::{EditorAddress, GameLink, Hello, Listener};
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
    let agents: Vec<(String, std::path::PathBuf)> = (0..AGENTS)
        .map(|i| (format!("agent-{i}"), path.clone()))
        .collect();
    Hello::new("bench", 0.1, 0, &agents, &[path])
}

/// The median and the worst frame, in microseconds, of `AGENTS` agents over `FRAMES`
/// frames, agent 0 watched through `link` when there is one.
fn frames(program: &Arc<Program<()>>, link: Option<&GameLink>) -> (f64, f64) {
    let mut agents: Vec<Instance<()>> = (0..AGENTS)
        .map(|i| Instance::new(program.clone(), i as u64))
        .collect();
    let mut each = Vec::with_capacity(FRAMES);
    for frame in 0..FRAMES {
        let start = Instant::now();
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
        each.push(start.elapsed().as_secs_f64() * 1e6);
    }
    let worst = each.iter().copied().fold(0.0, f64::max);
    (median(&mut each), worst)
}

/// An editor that says the welcome and then junk, as fast as the game reads it, until
/// `stop`.
fn hostile_editor(stop: Arc<AtomicBool>) -> EditorAddress {
    let fake = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let addr = fake.local_addr().expect("its address");
    std::thread::spawn(move || {
        let Ok((stream, _)) = fake.accept() else {
            return;
        };
        let mut input = BufReader::new(stream.try_clone().expect("a second handle"));
        let mut line = String::new();
        let _ = input.read_line(&mut line);
        // What the game sends is read and let go, as an editor does.
        std::thread::spawn(move || std::io::copy(&mut input, &mut std::io::sink()));
        let mut out = std::io::BufWriter::new(stream);
        let _ = out.write_all(b"{\"welcome\":{}}\n");
        let mut k = 0u64;
        while !stop.load(Ordering::Relaxed) {
            k += 1;
            // What costs the game's link the most: what every agent has, replaced.
            let junk = match k % 7 {
                0 => format!("{{\"step\":\"ghost-{k}\"}}\n"),
                1 => "{\"step\":\"agent-0\"}\n".to_owned(),
                2 => format!("{{\"stream\":[\"ghost-{k}\",\"agent-{}\"]}}\n", k % 999 + 1),
                3 => format!("{{\"pause\":\"ghost-{k}\"}}\n"),
                4 => {
                    format!("{{\"breakpoints\":[{{\"node\":\"nowhere-{k}\",\"on\":\"enter\"}}]}}\n")
                }
                5 => "{\"continue\":null}\n".to_owned(),
                _ => format!(
                    "{{\"trigger\":{{\"agent\":\"ghost-{k}\",\"id\":\"alarm\",\"payload\":null}}}}\n"
                ),
            };
            if out.write_all(junk.as_bytes()).is_err() {
                return;
            }
        }
    });
    EditorAddress {
        addr,
        token: "bench".into(),
    }
}

fn wait_for(link: &GameLink) {
    let waited = Instant::now();
    while !link.connected() && waited.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(link.connected(), "the link connects");
}

fn main() {
    let rounds = common::rounds(15);
    let program = program();
    // No editor: a port nobody listens on.
    let free = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    let alone = GameLink::connect_to(
        &hello(),
        EditorAddress {
            addr: free,
            token: "none".into(),
        },
    );
    let listener = Listener::local(0).expect("listening");
    let linked = GameLink::connect_to(&hello(), listener.address().clone());
    wait_for(&linked);
    let stop = Arc::new(AtomicBool::new(false));
    let flooded = GameLink::connect_to(&hello(), hostile_editor(stop.clone()));
    wait_for(&flooded);
    let cases: [(&str, Option<&GameLink>); 4] = [
        ("without a link:                  ", None),
        ("a link, no editor listening:     ", Some(&alone)),
        ("a link to an editor, one watched:", Some(&linked)),
        ("a hostile editor flooding it:    ", Some(&flooded)),
    ];
    let mut medians: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
    let mut worst: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
    for _ in 0..rounds.max(1) {
        for (c, (_, link)) in cases.iter().enumerate() {
            let (m, w) = frames(&program, *link);
            medians[c].push(m);
            worst[c].push(w);
        }
    }
    stop.store(true, Ordering::Relaxed);
    println!(
        "{AGENTS} agents, a frame each stepped once (medians of {} rounds of {FRAMES} frames):",
        rounds.max(1)
    );
    let base = (median(&mut medians[0]), median(&mut worst[0]));
    for (c, (label, _)) in cases.iter().enumerate() {
        let (m, w) = (median(&mut medians[c]), median(&mut worst[c]));
        println!(
            "  {label} {m:8.1} µs a frame ({:+5.1} %), worst {w:8.1} µs ({:+7.1} µs)",
            (m / base.0 - 1.0) * 100.0,
            w - base.1
        );
    }
    println!("  events the linked game dropped: {}", linked.dropped());
    let received = listener.games().first().map_or(0, |g| g.received);
    println!("  events the editor received: {received}");
    println!("  the flooded game held its agent: {:?}", flooded.paused());
}
