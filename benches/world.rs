//! The world with many agents: the droid arena's tree driving 1,000 and 10,000 droids in
//! one large arena, two teams in a checkerboard so that every droid has enemies near.
//! `cargo bench --bench world` measures a step of each; a step costs time linear in the
//! agents when the time per agent stays the same from 1,000 to 10,000.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};

use arbor::model::Catalog;
use arbor::world::Simulation;

/// Tiles between two droids (in x and in y) at the start.
const SPACING: usize = 3;

/// A scenario of `n` droids (a square number) in an open arena just large enough.
fn scenario(n: usize) -> String {
    let side = (n as f64).sqrt().ceil() as usize;
    let size = side * SPACING + 2;
    let mut map = Vec::with_capacity(size);
    for y in 0..size {
        let row: String = (0..size)
            .map(|x| {
                if x == 0 || y == 0 || x == size - 1 || y == size - 1 {
                    '#'
                } else {
                    '.'
                }
            })
            .collect();
        map.push(format!("\"{row}\""));
    }
    let mut entities = Vec::with_capacity(n);
    for i in 0..n {
        let (gx, gy) = (i % side, i / side);
        let team = if (gx + gy) % 2 == 0 { "red" } else { "blue" };
        entities.push(format!(
            r#"{{"kind": "agent", "name": "d{i}", "at": [{}, {}], "team": "{team}", "health": {}, "damage": {}, "range": 1.5, "speed": 1.7, "tree": "droid_arena.json"}}"#,
            1 + gx * SPACING,
            1 + gy * SPACING,
            60 + (i * 37) % 90,
            6 + (i * 13) % 14,
        ));
    }
    format!(
        r#"{{"format": "arbor.scenario", "version": 1, "map": [{}], "entities": [{}]}}"#,
        map.join(","),
        entities.join(",")
    )
}

/// The simulation of `n` droids, 20 steps in (the droids have met and the fight begun).
fn arena(dir: &Path, n: usize) -> Simulation {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        repo.join("sample_trees/droid_arena.json"),
        dir.join("droid_arena.json"),
    )
    .unwrap();
    let file = dir.join(format!("arena_{n}.scenario.json"));
    std::fs::write(&file, scenario(n)).unwrap();
    let mut sim = Simulation::load(&file, &Catalog::builtin(), 7, None).expect("the scenario");
    for _ in 0..20 {
        sim.step(0.1, None);
    }
    sim
}

fn step(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("world_step");
    group.sample_size(20);
    for n in [1_000, 10_000] {
        let sim = arena(dir.path(), n);
        group.bench_function(format!("droid_arena/{n}"), |b| {
            b.iter_custom(|iterations| {
                let mut spent = Duration::ZERO;
                for _ in 0..iterations {
                    let mut s = sim.clone();
                    let start = Instant::now();
                    s.step(0.1, None);
                    spent += start.elapsed();
                }
                spent
            })
        });
    }
    group.finish();
}

criterion_group!(benches, step);
criterion_main!(benches);
