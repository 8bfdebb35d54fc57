//! Workload W (benches/common/workload.rs: 10,000 agents, 100 steps) stepped by
//! `step_all_on` on one thread and on two, alternately, in one run: prints each median, the
//! throughput of two threads against one (target: at least 1.7 on two cores), and checks
//! that both leave every agent in the same state. `cargo bench --bench parallel`.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::time::Instant;

use arbor::runtime::{Instance, step_all_on};

#[path = "common/workload.rs"]
mod workload;
use workload::{Agent, DT, STEPS, agents};

#[path = "common/mod.rs"]
mod common;

fn main() {
    if std::env::args().any(|a| a == "--list") {
        println!("workload_w_two_threads: benchmark");
        return;
    }
    let program = workload::program();
    let fresh = || -> Vec<(Agent, Instance<Agent>)> {
        (0..agents())
            .map(|i| (Agent::new(i), Instance::new(program.clone(), i as u64)))
            .collect()
    };
    let (one, two) = (1, 2);
    let run = |threads: usize, agents: &mut Vec<(Agent, Instance<Agent>)>| {
        for _ in 0..STEPS {
            step_all_on(threads, DT, agents);
        }
    };
    let (mut alone, mut pair) = (fresh(), fresh());
    run(one, &mut alone);
    run(two, &mut pair);
    assert!(
        alone.iter().zip(&pair).all(|(a, b)| a.0 == b.0),
        "two threads leave the agents elsewhere"
    );
    let rounds = common::rounds(if cfg!(debug_assertions) { 1 } else { 15 });
    let (mut t1, mut t2) = (Vec::new(), Vec::new());
    let per = (agents() * STEPS) as f64;
    for _ in 0..rounds {
        let t = Instant::now();
        run(one, &mut alone);
        t1.push(t.elapsed().as_nanos() as f64 / per);
        let t = Instant::now();
        run(two, &mut pair);
        t2.push(t.elapsed().as_nanos() as f64 / per);
    }
    let (a, b) = (common::median(&mut t1), common::median(&mut t2));
    println!(
        "workload W, {} agents x {STEPS} steps, median of {rounds}: one thread {a:.1} ns, two threads {b:.1} ns an agent-step: {:.2}x the throughput",
        agents(),
        a / b
    );
}
