//! Cost growth on the hostile shapes of issue #21, and the 100,000-node tree.
//!
//! `shapes/SHAPE/N`: read, check and validate a file of each shape (tests/common/big_trees.rs)
//! at N and 10 N nodes; criterion's per-element throughput shows whether the cost grows
//! linearly (the same elements per second at both sizes). `big_tree/*`: the phases of a
//! realistic 100,000-node tree: parse, validate, compile plus 10 steps. `inputs/NAME/N`:
//! the other inputs of tests/common/workloads.rs (node libraries, trace headers, coverage
//! files, games shown live) at the linearity guard's N and 10 N (a tenth of that in a
//! debug build).
//! Run with `cargo bench --bench shapes`; `cargo test --all-targets` runs each once, small.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "../tests/common/big_trees.rs"]
mod big_trees;
#[path = "../tests/common/workloads.rs"]
mod workloads;

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use arbor::io::{TreeFiles, parse_tree};
use arbor::model::{Catalog, NoAssets, validate};
use arbor::runtime::{Behaviours, Instance, Program};
use criterion::{Criterion, Throughput};

/// The base size: 20,000 nodes (200 in a debug build, which only checks the bench runs).
fn base() -> usize {
    if cfg!(debug_assertions) { 200 } else { 20_000 }
}

/// Reads, checks and validates a tree file's text as `arbor validate` does.
fn check(catalog: &Catalog, path: &Path, text: &str) -> usize {
    let files = TreeFiles::new(catalog);
    files.load_text(path, text);
    files.validate_file(path).map_or(0, |d| d.len())
}

fn shapes(c: &mut Criterion) {
    let catalog = Catalog::builtin();
    let mut group = c.benchmark_group("shapes");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for &name in big_trees::SHAPES {
        // The kind name's bytes grow, not its nodes: 10 × the base in bytes.
        let n = if name == "long_kind" {
            base() * 10
        } else {
            base()
        };
        for size in [n, n * 10] {
            let text = big_trees::shape(name, size).unwrap();
            let path = Path::new("shape.json");
            group.throughput(Throughput::Elements(size as u64));
            group.bench_function(format!("{name}/{size}"), |b| {
                b.iter(|| check(&catalog, path, black_box(&text)))
            });
        }
    }
    // SubTree levels: 10 SubTrees per level, all naming the next level's one file.
    let dir = tempfile::tempdir().unwrap();
    let levels = if cfg!(debug_assertions) { 2 } else { 12 };
    for l in [levels, levels * 10] {
        let main = big_trees::subtree_levels(&dir.path().join(format!("l{l}")), l, 10);
        let text = std::fs::read_to_string(&main).unwrap();
        group.throughput(Throughput::Elements(l as u64));
        group.bench_function(format!("subtree_levels/{l}"), |b| {
            b.iter(|| check(&catalog, &main, black_box(&text)))
        });
    }
    group.finish();
}

fn big_tree(c: &mut Criterion) {
    let catalog = Catalog::builtin();
    let n = base() * 5;
    let text = big_trees::balanced(n);
    let path = Path::new("big.json");
    let tree = parse_tree(&text, path).unwrap();
    assert!(
        validate(&tree, &catalog, &NoAssets)
            .iter()
            .all(|d| !d.is_error())
    );
    let behaviours = Behaviours::<()>::with_builtins();
    let mut group = c.benchmark_group("big_tree");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    group.bench_function(format!("parse/{n}"), |b| {
        b.iter(|| parse_tree(black_box(&text), path).unwrap())
    });
    group.bench_function(format!("validate/{n}"), |b| {
        b.iter(|| validate(black_box(&tree), &catalog, &NoAssets).len())
    });
    group.bench_function(format!("read_and_validate/{n}"), |b| {
        b.iter(|| check(&catalog, path, black_box(&text)))
    });
    group.bench_function(format!("compile_and_10_steps/{n}"), |b| {
        b.iter(|| {
            let program =
                Arc::new(Program::compile(&tree, &catalog, &NoAssets, &behaviours).unwrap());
            let mut instance = Instance::new(program, 1);
            for _ in 0..10 {
                instance.step(0.1, &mut (), None);
            }
            instance.stats().succeeded
        })
    });
    group.finish();
}

/// Each workload of the linearity guard (scripts/linearity.sh), timed at its N and 10 N.
fn inputs(c: &mut Criterion) {
    let mut group = c.benchmark_group("inputs");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for w in workloads::WORKLOADS {
        let n = if cfg!(debug_assertions) {
            (w.n / 10).max(1)
        } else {
            w.n
        };
        for size in [n, n * 10] {
            let Some(mut work) = workloads::prepare(w.name, size) else {
                continue;
            };
            group.throughput(Throughput::Elements(size as u64));
            group.bench_function(format!("{}/{size}", w.name), |b| b.iter(&mut work));
        }
    }
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    shapes(&mut c);
    big_tree(&mut c);
    inputs(&mut c);
    c.final_summary();
}
