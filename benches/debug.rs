//! The debugger's history: a 100,000-step run of the droid arena, then jumps to steps
//! spread over it; and a fork from the past: an edit at step 1,000 of the droid arena,
//! which takes the run again to step 1,000 with the edited tree. `cargo bench --bench
//! debug` prints the run's time and the history's size, then measures a jump and a fork.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};

use arbor::debug::{Debugger, Session};
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

/// An edit at step 1,000: the run taken again with the edited tree (its find range
/// changed, so the run differs) to step 1,000, through the debugger's controller.
fn fork(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_trees");
    let tree_path = root.join("droid_arena.json");
    let tree = arbor::io::load_tree(&tree_path).unwrap();
    let mut edited = tree.clone();
    edited
        .apply(
            arbor::model::Edit::SetField {
                id: arbor::model::NodeId::new("find_target"),
                name: "max_distance".into(),
                value: Some(arbor::model::Value::Float(2.0)),
            },
            &Catalog::builtin(),
        )
        .unwrap();
    let catalog = Catalog::builtin();
    let mut d = Debugger::open(&root.join("droid_arena.scenario.json")).unwrap();
    d.pair_with(Some(&tree_path));
    let mut group = c.benchmark_group("debug");
    group.sample_size(20);
    group.bench_function("fork_at_step/1000", |b| {
        b.iter_custom(|iters| {
            let mut took = std::time::Duration::ZERO;
            for _ in 0..iters {
                d.start_over(&catalog, &tree, &tree_path, 0);
                d.step_by(1_000, &[]);
                let start = Instant::now();
                let said = d.fork(&catalog, &edited, &tree_path, 1);
                took += start.elapsed();
                assert_eq!(said.as_deref(), Some("Re-ran 1000 steps with the edit"));
            }
            took
        })
    });
    group.finish();
}

criterion_group!(benches, history, fork);
criterion_main!(benches);
