//! `arbor coverage` of the droid arena over 100 seeds of 1,000 steps (target: under 2 s on
//! a 2-core machine), on one thread and on every core, side by side in one run: the seeds
//! run in parallel, so the time falls with the cores. `cargo bench --bench coverage`.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};

use arbor::cli::{CoverageArgs, coverage};
use arbor::model::Catalog;

fn arena_coverage(c: &mut Criterion) {
    let scenario =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample_trees/droid_arena.scenario.json");
    let paths = [scenario];
    let args = CoverageArgs {
        paths: &paths,
        seeds: Some("0..100"),
        steps: Some(1000),
        dt: 0.1,
        json: true,
        min: None,
        trees: &[],
        partition: None,
        project: None,
    };
    let catalog = Catalog::builtin();
    let run = || {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        assert_eq!(coverage(&args, &catalog, &mut out, &mut err), 0);
        out
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut group = c.benchmark_group("coverage");
    group.sample_size(10);
    for threads in [1, cores] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        group.bench_function(
            format!("droid_arena_100_seeds_x_1000_steps/{threads}_threads"),
            |b| b.iter(|| pool.install(run)),
        );
    }
    group.finish();
}

criterion_group!(benches, arena_coverage);
criterion_main!(benches);
