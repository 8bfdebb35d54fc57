//! `arbor import` of 1,000 BehaviorTree.CPP files the size of Nav2's (the 15 of
//! tests/fixtures/btcpp, each copied under 66 or 67 names), one after another into one
//! folder, as a project's folder of trees is imported: each tree written as an Arbor file,
//! the first file's own kinds as the folder's node library and project file, the later
//! files' kinds found known.
//!
//! `cargo bench --bench btcpp`.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};

fn nav2_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/btcpp");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    files.sort();
    files
}

fn import(c: &mut Criterion) {
    let sources = tempfile::tempdir().unwrap();
    let nav2 = nav2_files();
    assert!(nav2.len() >= 15, "{nav2:?}");
    let inputs: Vec<PathBuf> = (0..1000)
        .map(|i| {
            let path = sources.path().join(format!("tree_{i:04}.xml"));
            std::fs::copy(&nav2[i % nav2.len()], &path).unwrap();
            path
        })
        .collect();
    let bytes: u64 = inputs.iter().map(|p| p.metadata().unwrap().len()).sum();
    eprintln!("import: 1,000 files, {} KiB in all", bytes / 1024);
    let mut group = c.benchmark_group("import");
    group.sample_size(10);
    group.bench_function("nav2_sized/1000", |b| {
        b.iter_batched(
            || tempfile::tempdir().unwrap(),
            |out| {
                for input in &inputs {
                    let (mut o, mut e) = (Vec::new(), Vec::new());
                    let code = arbor::cli::transfer(
                        arbor::cli::Direction::Import,
                        input,
                        Some(out.path()),
                        &mut o,
                        &mut e,
                    );
                    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&e));
                }
                out
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, import);
criterion_main!(benches);
