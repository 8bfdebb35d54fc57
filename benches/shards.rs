//! The cost of sharding `arbor test` (docs/CI.md): the droid arena's behaviour test over
//! 1,000 seeds of 1,000 steps (five droids), run whole and then as its 4 shards (`--partition count:M/4`)
//! one after another on the same machine, alternately, in one run; prints each median and
//! their ratio (target: the shards at most 1.1 times the whole run).
//! `cargo bench --bench shards` (in a debug build, as `cargo test --all-targets` runs it:
//! 8 seeds, once).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::PathBuf;
use std::time::Instant;

use arbor::check::shard::{Deal, Partition};
use arbor::model::Catalog;

#[path = "common/mod.rs"]
mod common;

fn main() {
    if std::env::args().any(|a| a == "--list") {
        println!("arbor_test_in_4_shards: benchmark");
        return;
    }
    let seeds = if cfg!(debug_assertions) { 8 } else { 1_000 };
    let dir = tempfile::tempdir().unwrap();
    let samples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample_trees");
    for f in ["droid_arena.json", "droid_arena.scenario.json"] {
        std::fs::copy(samples.join(f), dir.path().join(f)).unwrap();
    }
    let test = std::fs::read_to_string(samples.join("droid_arena.test.json"))
        .unwrap()
        .replace(
            "\"seeds\": \"0..10\"",
            &format!("\"seeds\": \"0..{seeds}\""),
        );
    assert!(test.contains(&format!("0..{seeds}")), "the test's seeds");
    std::fs::write(dir.path().join("droid_arena.test.json"), test).unwrap();
    let paths = [dir.path().to_owned()];
    let catalog = Catalog::builtin();
    let run = |partition: Option<&Partition>| {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        // (Some seeds break the test's expectations: the arena's droids fight otherwise.)
        let code = arbor::cli::test(&paths, None, partition, None, &catalog, &mut out, &mut err);
        assert!(code <= 1, "{}", String::from_utf8_lossy(&err));
        out
    };
    let shards: Vec<Partition> = (1..=4)
        .map(|m| Partition::new(Deal::Count, m, 4).unwrap())
        .collect();
    // The shards together pass and fail what the whole run does (its closing line:
    // `N passed, M failed`).
    let closing = |out: &[u8]| -> [usize; 2] {
        let text = String::from_utf8_lossy(out);
        let line = text.lines().last().unwrap_or_default().to_owned();
        let n: Vec<usize> = line
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|w| w.parse().ok())
            .collect();
        [n[0], n[1]]
    };
    let together = shards
        .iter()
        .map(|p| closing(&run(Some(p))))
        .fold([0, 0], |a, b| [a[0] + b[0], a[1] + b[1]]);
    let whole = closing(&run(None));
    assert_eq!(together, whole);
    assert_eq!(whole[0] + whole[1], seeds);
    let rounds = common::rounds(if cfg!(debug_assertions) { 1 } else { 7 });
    let (mut alone, mut sharded) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        run(None);
        alone.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        for p in &shards {
            run(Some(p));
        }
        sharded.push(t.elapsed().as_secs_f64());
    }
    let (w, s) = (common::median(&mut alone), common::median(&mut sharded));
    println!(
        "arbor test, {seeds} seeds of 1,000 steps, median of {rounds}: whole {w:.3} s, 4 shards one after another {s:.3} s: {:.3}x",
        s / w
    );
}
