//! Workload W (issue #3): a 31-node tree — a Selector over 5 Sequences, each guarded by 2
//! conditions that read agent state and running 3 actions of 3–7 steps — for 10,000 agents
//! and 100 steps, in Arbor, in a minimal hand-written enum-and-array tree doing the same
//! work, and in bonsai-bt. Run with `cargo bench --bench runtime`.
//!
//! Before timing, the setup checks that Arbor and the hand-written tree end in the same
//! agent states with the same number of completed actions, so the comparison is fair.

#![allow(clippy::unwrap_used, clippy::expect_used, unsafe_code, missing_docs)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Duration;

use arbor::runtime::{Instance, Program, step_all};
use criterion::{BatchSize, Criterion, Throughput};

// ---- live heap bytes, for bytes per instance ----------------------------------------

struct Measuring;
static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards to the system allocator; only keeps a count of live bytes.
unsafe impl GlobalAlloc for Measuring {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        LIVE.fetch_add(n as isize - l.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Measuring = Measuring;

/// Bytes one agent's state takes: the value itself (kept in the game's own array) and
/// the heap it holds, measured over all agents.
fn bytes_per<T>(make: impl Fn(usize) -> T) -> f64 {
    let all: Vec<T> = Vec::with_capacity(agents());
    let before = LIVE.load(Ordering::Relaxed);
    let mut all = all;
    all.extend((0..agents()).map(make));
    let after = LIVE.load(Ordering::Relaxed);
    drop(black_box(all));
    (after - before) as f64 / agents() as f64 + std::mem::size_of::<T>() as f64
}

// ---- the agent and its rules, shared by all three (and the C ABI's benchmark) ----------

#[path = "common/workload.rs"]
mod workload;
use workload::{ACTS, Agent, DT, SEQS, STEPS, agents};

// ---- Arbor ----------------------------------------------------------------------------

fn arbor_program() -> Arc<Program<Agent>> {
    workload::program()
}

/// A game's instance: no observer, no display snapshot (an editor turns that on).
fn arbor_instance(program: &Arc<Program<Agent>>, i: usize) -> Instance<Agent> {
    Instance::new(program.clone(), i as u64)
}

fn arbor_agents(program: &Arc<Program<Agent>>) -> Vec<(Agent, Instance<Agent>)> {
    (0..agents())
        .map(|i| (Agent::new(i), arbor_instance(program, i)))
        .collect()
}

#[inline(never)]
fn arbor_run(agents: &mut [(Agent, Instance<Agent>)]) {
    for _ in 0..STEPS {
        for (agent, instance) in agents.iter_mut() {
            instance.step(DT, agent, None);
        }
    }
}

/// The same through `step_all`, the batch call a game would make.
#[inline(never)]
fn arbor_run_all(agents: &mut [(Agent, Instance<Agent>)]) {
    for _ in 0..STEPS {
        step_all(DT, agents.iter_mut().map(|(a, i)| (a, i)));
    }
}

// ---- hand-written: a minimal enum-and-array tree interpreter ------------------------------
//
// What a programmer writes in an afternoon: nodes as an enum in an array, children as index
// ranges, per-agent state as two small arrays, guards re-checked every step, and Arbor's step
// timing (an action entered in a step executes from the next one), so the work is the same.

#[derive(Clone, Copy)]
enum HNode {
    Root { child: u8 },
    Selector { first: u8, count: u8 },
    Sequence { guards: u8, first: u8, count: u8 },
    Check { seq: u32, which: u32 },
    Work { seq: u32, act: u32 },
}

struct HTree {
    nodes: Vec<HNode>,
    parent: Vec<u8>,
}

fn hand_tree() -> HTree {
    // Layout: 0 Root, 1 Selector, then per sequence: Sequence, 2 Checks, 3 Works.
    let mut nodes = vec![
        HNode::Root { child: 1 },
        HNode::Selector {
            first: 2,
            count: SEQS as u8,
        },
    ];
    let mut parent = vec![0, 0];
    let mut seq_nodes = Vec::new();
    for s in 0..SEQS {
        let at = nodes.len() as u8;
        seq_nodes.push(at);
        nodes.push(HNode::Sequence {
            guards: at + 1,
            first: at + 3,
            count: ACTS as u8,
        });
        parent.push(1);
        for w in 0..2 {
            nodes.push(HNode::Check { seq: s, which: w });
            parent.push(at);
        }
        for a in 0..ACTS {
            nodes.push(HNode::Work { seq: s, act: a });
            parent.push(at);
        }
    }
    // Selector children are not contiguous: map slot → node through the sequence list.
    nodes[1] = HNode::Selector {
        first: seq_nodes[0],
        count: SEQS as u8,
    };
    HTree { nodes, parent }
}

#[derive(Clone)]
struct HInst {
    started: bool,
    /// The running leaf, if any.
    leaf: u8,
    /// Per node: child cursor (branches) or steps executed (actions).
    cursor: Vec<u32>,
}

impl HTree {
    fn selector_child(&self, sel: u8, slot: u8) -> u8 {
        let HNode::Selector { first, .. } = self.nodes[sel as usize] else {
            unreachable!()
        };
        first + slot * 6
    }

    fn guards_hold(&self, seq: u8, agent: &Agent) -> bool {
        let HNode::Sequence { guards, .. } = self.nodes[seq as usize] else {
            return true;
        };
        (guards..guards + 2).all(|g| match self.nodes[g as usize] {
            HNode::Check { seq, which } => agent.check(seq, which),
            _ => true,
        })
    }

    /// Enters node `n`; returns Some(result) if it finished at once, None if a leaf now runs.
    fn enter(&self, n: u8, i: &mut HInst, agent: &Agent) -> Option<bool> {
        match self.nodes[n as usize] {
            HNode::Root { child } => self.enter(child, i, agent),
            HNode::Selector { count, .. } => {
                for slot in 0..count {
                    i.cursor[n as usize] = u32::from(slot);
                    match self.enter(self.selector_child(n, slot), i, agent) {
                        Some(false) => continue,
                        other => return other,
                    }
                }
                Some(false)
            }
            HNode::Sequence { first, .. } => {
                if !self.guards_hold(n, agent) {
                    return Some(false);
                }
                i.cursor[n as usize] = 0;
                self.enter(first, i, agent)
            }
            HNode::Check { seq, which } => Some(agent.check(seq, which)),
            HNode::Work { .. } => {
                i.cursor[n as usize] = 0;
                i.leaf = n;
                None
            }
        }
    }

    /// Node `n` finished with `ok`: its parents react, entering the next child where due.
    fn finished(&self, mut n: u8, mut ok: bool, i: &mut HInst, agent: &Agent) {
        loop {
            let p = self.parent[n as usize];
            let next = match self.nodes[p as usize] {
                HNode::Root { .. } => {
                    self.enter(0, i, agent); // run complete: start again
                    return;
                }
                HNode::Selector { count, .. } => {
                    let mut r = Some(true);
                    if !ok {
                        r = Some(false);
                        let mut slot = i.cursor[p as usize] as u8 + 1;
                        while slot < count {
                            i.cursor[p as usize] = u32::from(slot);
                            r = self.enter(self.selector_child(p, slot), i, agent);
                            if r != Some(false) {
                                break;
                            }
                            slot += 1;
                        }
                    }
                    r
                }
                HNode::Sequence { first, count, .. } => {
                    if !ok {
                        Some(false)
                    } else {
                        let c = i.cursor[p as usize] + 1;
                        i.cursor[p as usize] = c;
                        if c as u8 == count {
                            Some(true)
                        } else {
                            self.enter(first + c as u8, i, agent)
                        }
                    }
                }
                _ => return,
            };
            match next {
                Some(r) => {
                    n = p;
                    ok = r;
                }
                None => return,
            }
        }
    }

    fn step(&self, i: &mut HInst, agent: &mut Agent) {
        if !i.started {
            i.started = true;
            self.enter(0, i, agent);
        }
        let leaf = i.leaf;
        let seq = self.parent[leaf as usize];
        if !self.guards_hold(seq, agent) {
            self.finished(seq, false, i, agent);
            return;
        }
        let HNode::Work { seq: s, act } = self.nodes[leaf as usize] else {
            return;
        };
        let c = &mut i.cursor[leaf as usize];
        *c += 1;
        if *c >= agent.duration(s, act) {
            agent.effect(s, act);
            self.finished(leaf, true, i, agent);
        }
    }
}

fn hand_agents(tree: &HTree) -> Vec<(Agent, HInst)> {
    (0..agents())
        .map(|i| {
            (
                Agent::new(i),
                HInst {
                    started: false,
                    leaf: 0,
                    cursor: vec![0; tree.nodes.len()],
                },
            )
        })
        .collect()
}

#[inline(never)]
fn hand_run(tree: &HTree, agents: &mut [(Agent, HInst)]) {
    for _ in 0..STEPS {
        for (agent, inst) in agents.iter_mut() {
            tree.step(inst, agent);
        }
    }
}

// ---- bonsai-bt ---------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum Act {
    /// Running while both guards of a sequence hold, failure when one does not.
    Guard(u32),
    Work(u32, u32),
}

#[derive(Default)]
struct BonsaiAgent {
    agent: Agent,
    current: Option<(u32, u32)>,
    elapsed: u32,
}

fn bonsai_tree() -> bonsai_bt::Behavior<Act> {
    use bonsai_bt::Behavior::{Action, Race, Select, Sequence, WaitForever, While};
    let seqs = (0..SEQS)
        .map(|s| {
            Race(vec![
                Action(Act::Guard(s)),
                Sequence((0..ACTS).map(|a| Action(Act::Work(s, a))).collect()),
            ])
        })
        .collect();
    While(Box::new(WaitForever), vec![Select(seqs)])
}

fn bonsai_agents(tree: &bonsai_bt::Behavior<Act>) -> Vec<(BonsaiAgent, bonsai_bt::BT<Act, ()>)> {
    (0..agents())
        .map(|i| {
            (
                BonsaiAgent {
                    agent: Agent::new(i),
                    ..Default::default()
                },
                bonsai_bt::BT::new(tree.clone(), ()),
            )
        })
        .collect()
}

#[inline(never)]
fn bonsai_run(agents: &mut [(BonsaiAgent, bonsai_bt::BT<Act, ()>)]) {
    use bonsai_bt::{ActionArgs, Event, Failure, Running, Success, UpdateArgs};
    let e: Event = UpdateArgs { dt: DT }.into();
    for _ in 0..STEPS {
        for (a, bt) in agents.iter_mut() {
            bt.tick(
                &e,
                &mut |args: ActionArgs<Event, Act>, _| match *args.action {
                    Act::Guard(s) => {
                        if a.agent.check(s, 0) && a.agent.check(s, 1) {
                            (Running, 0.0)
                        } else {
                            (Failure, 0.0)
                        }
                    }
                    Act::Work(s, w) => {
                        if a.current != Some((s, w)) {
                            a.current = Some((s, w));
                            a.elapsed = 0;
                        }
                        a.elapsed += 1;
                        if a.elapsed >= a.agent.duration(s, w) {
                            a.agent.effect(s, w);
                            a.current = None;
                            (Success, 0.0)
                        } else {
                            (Running, args.dt)
                        }
                    }
                },
            );
        }
    }
}

// ---- the benchmark ---------------------------------------------------------------------

/// `ARBOR_BENCH_ROUNDS=N`: N rounds of the four runners in turn (fresh agents each, only
/// the 100 steps timed), so whatever else the machine does weighs on all four alike;
/// prints the median and best time per agent-step and the ratios of the medians.
fn interleaved(
    rounds: usize,
    program: &Arc<Program<Agent>>,
    hand: &HTree,
    tree: &bonsai_bt::Behavior<Act>,
) {
    use std::time::Instant;
    /// Nanoseconds per agent-step of `run` over fresh agents from `make` (only the run timed).
    fn timed<T>(make: impl FnOnce() -> T, run: impl FnOnce(&mut T)) -> f64 {
        let mut agents = make();
        let t = Instant::now();
        run(&mut agents);
        let elapsed = t.elapsed();
        drop(black_box(agents));
        elapsed.as_secs_f64() * 1e9 / (self::agents() * STEPS) as f64
    }
    let mut times: [Vec<f64>; 4] = Default::default();
    for _ in 0..rounds.max(1) {
        times[0].push(timed(|| arbor_agents(program), |a| arbor_run(a)));
        times[1].push(timed(|| hand_agents(hand), |h| hand_run(hand, h)));
        times[2].push(timed(|| bonsai_agents(tree), |b| bonsai_run(b)));
        times[3].push(timed(|| arbor_agents(program), |a| arbor_run_all(a)));
    }
    let mut medians = [0.0; 4];
    let names = ["arbor", "hand-written", "bonsai-bt", "arbor step_all"];
    for (i, name) in names.iter().enumerate() {
        let v = &mut times[i];
        v.sort_by(f64::total_cmp);
        medians[i] = v[v.len() / 2];
        println!(
            "{name:>14}: median {:7.1} ns per agent-step, best {:7.1} ({} rounds)",
            medians[i],
            v[0],
            v.len()
        );
    }
    for (i, name) in [(0, "arbor"), (3, "arbor step_all")] {
        println!(
            "{name} is {:.1}x the hand-written tree's time and {:.1}x faster than bonsai-bt (medians)",
            medians[i] / medians[1],
            medians[2] / medians[i]
        );
    }
}

fn main() {
    let program = arbor_program();
    let tree = bonsai_tree();

    // Fairness: Arbor and the hand-written tree do exactly the same work.
    let mut a = arbor_agents(&program);
    let hand = hand_tree();
    let mut h = hand_agents(&hand);
    let mut b = bonsai_agents(&tree);
    arbor_run(&mut a);
    hand_run(&hand, &mut h);
    bonsai_run(&mut b);
    let mut a2 = arbor_agents(&program);
    arbor_run_all(&mut a2);
    assert!(
        a.iter().map(|(x, _)| x).eq(a2.iter().map(|(x, _)| x)),
        "step_all and step diverged"
    );
    drop(a2);
    let arbor_states: Vec<&Agent> = a.iter().map(|(x, _)| x).collect();
    let hand_states: Vec<&Agent> = h.iter().map(|(x, _)| x).collect();
    assert!(
        arbor_states == hand_states,
        "Arbor and the hand-written tree diverged"
    );
    let done = |xs: &[&Agent]| xs.iter().map(|x| x.done).sum::<u64>();
    let bonsai_done: u64 = b.iter().map(|(x, _)| x.agent.done).sum();
    println!(
        "workload W: {} agents x {STEPS} steps; actions completed: arbor {}, hand-written {}, bonsai-bt {bonsai_done}",
        agents(),
        done(&arbor_states),
        done(&hand_states)
    );
    println!(
        "bytes per instance (itself + its heap; program shared): arbor {:.0} ({} on the heap by its own count), hand-written {:.0}, bonsai-bt {:.0}",
        bytes_per(|i| arbor_instance(&program, i)),
        a[0].1.heap_bytes(),
        bytes_per(|_| HInst {
            started: false,
            leaf: 0,
            cursor: vec![0; hand.nodes.len()]
        }),
        bytes_per(|_| bonsai_bt::BT::new(tree.clone(), ())),
    );
    drop((a, h, b));

    if let Some(rounds) = std::env::var("ARBOR_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse::<usize>().ok())
    {
        interleaved(rounds, &program, &hand, &tree);
        return;
    }

    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6))
        .configure_from_args();
    let mut g = c.benchmark_group("workload_w");
    g.throughput(Throughput::Elements((agents() * STEPS) as u64));
    g.bench_function("arbor", |bench| {
        bench.iter_batched(
            || arbor_agents(&program),
            |mut x| arbor_run(&mut x),
            BatchSize::LargeInput,
        )
    });
    g.bench_function("arbor_step_all", |bench| {
        bench.iter_batched(
            || arbor_agents(&program),
            |mut x| arbor_run_all(&mut x),
            BatchSize::LargeInput,
        )
    });
    g.bench_function("hand_written", |bench| {
        bench.iter_batched(
            || hand_agents(&hand),
            |mut x| hand_run(&hand, &mut x),
            BatchSize::LargeInput,
        )
    });
    g.bench_function("bonsai_bt", |bench| {
        bench.iter_batched(
            || bonsai_agents(&tree),
            |mut x| bonsai_run(&mut x),
            BatchSize::LargeInput,
        )
    });
    g.finish();
    c.final_summary();
}
