//! The debugger's history: a 100,000-step run of the droid arena, then jumps to steps
//! spread over it. `cargo bench --bench debug` prints the run's time and the history's
//! size, then measures a jump.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};

use arbor::debug::Session;
use arbor::model::Catalog;
use arbor::world::Simulation;

const STEPS: u64 = 100_000;

fn session() -> Session {
    let scenario =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_trees/droid_arena.scenario.json");
    let sim = Simulation::load(&scenario, &Catalog::builtin(), 0, None).expect("the sample");
    Session::new(sim, 0.1)
}

fn history(c: &mut Criterion) {
    let mut s = session();
    let start = Instant::now();
    s.run(STEPS, &[]);
    let ran = start.elapsed();
    println!(
        "debug/history: {STEPS} steps of droid_arena in {:.2} s; history {:.1} MB",
        ran.as_secs_f64(),
        s.history_bytes() as f64 / 1e6
    );
    let mut group = c.benchmark_group("debug");
    group.sample_size(50);
    // Steps spread over the run, none next to the last one jumped to.
    let mut k = 12_345u64;
    group.bench_function("jump_to_any_step/100k", |b| {
        b.iter(|| {
            k = (k * 48_271 + 11) % (STEPS + 1);
            s.seek(k);
        })
    });
    group.finish();
}

criterion_group!(benches, history);
criterion_main!(benches);
