//! Action memories as an instance keeps them: one per leaf per agent, made with `Default`
//! in the instance's single block and dropped exactly once, whatever their size and
//! alignment; what a leaf remembers is its own, and the action object (its settings) is
//! shared by every agent.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use arbor::model::{Catalog, Category, KindSpec, NoAssets};
use arbor::runtime::{Action, Behaviours, Instance, LeafIo, Outcome, Program};

use crate::harness::tree;

/// The agent: the log of what each leaf saw, as `(leaf tag, executions so far)`, and the
/// address of each action object that ran, by tag.
#[derive(Default)]
struct Log(Vec<(u32, u32)>, [usize; 7]);

/// The tests here count objects globally: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// Live memories, for drop accounting.
static LIVE: AtomicIsize = AtomicIsize::new(0);
/// Memories made; making one panics when this reaches `PANIC_AT`.
static MADE: AtomicUsize = AtomicUsize::new(0);
static PANIC_AT: AtomicUsize = AtomicUsize::new(usize::MAX);
/// Live action objects (the programs' shared ones).
static SHARED: AtomicIsize = AtomicIsize::new(0);

/// The shared part: which leaf it is.
struct Probe<P> {
    tag: u32,
    _pad: std::marker::PhantomData<fn() -> P>,
}

impl<P> Drop for Probe<P> {
    fn drop(&mut self) {
        SHARED.fetch_sub(1, Ordering::SeqCst);
    }
}

/// What each agent keeps: its executions since entry; `pad` gives each kind its own size
/// and alignment.
struct Mem<P> {
    executed: u32,
    _pad: P,
}

impl<P: Default> Default for Mem<P> {
    fn default() -> Self {
        if MADE.fetch_add(1, Ordering::SeqCst) + 1 == PANIC_AT.load(Ordering::SeqCst) {
            panic!("memory refused");
        }
        LIVE.fetch_add(1, Ordering::SeqCst);
        Self {
            executed: 0,
            _pad: P::default(),
        }
    }
}

impl<P: Clone> Clone for Mem<P> {
    fn clone(&self) -> Self {
        LIVE.fetch_add(1, Ordering::SeqCst);
        Self {
            executed: self.executed,
            _pad: self._pad.clone(),
        }
    }
}

impl<P> Drop for Mem<P> {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::SeqCst);
    }
}

impl<P: Default + Clone + Send + 'static> Action<Log> for Probe<P> {
    type Memory = Mem<P>;

    fn on_enter(&self, mem: &mut Mem<P>, _: &mut Log, _: &mut LeafIo<'_>) {
        mem.executed = 0;
    }
    fn on_execute(&self, mem: &mut Mem<P>, log: &mut Log, _: &mut LeafIo<'_>, _: f64) -> Outcome {
        let at = std::ptr::from_ref(mem) as usize;
        assert_eq!(at % align_of::<Mem<P>>(), 0, "misaligned memory");
        log.1[self.tag as usize] = std::ptr::from_ref(self) as usize;
        mem.executed += 1;
        log.0.push((self.tag, mem.executed));
        if mem.executed == 2 {
            Outcome::Success
        } else {
            Outcome::Running
        }
    }
}

#[derive(Clone, Default)]
struct Zst;

/// Only its layout matters: 64-byte alignment.
#[derive(Clone, Default)]
#[repr(align(64))]
struct Wide(#[allow(dead_code)] u8);

/// Big, and its default is not all zeroes.
#[derive(Clone)]
struct Big(#[allow(dead_code)] [u64; 40]);

impl Default for Big {
    fn default() -> Self {
        Self([5; 40])
    }
}

fn probe<P>(tag: u32) -> Probe<P> {
    SHARED.fetch_add(1, Ordering::SeqCst);
    Probe {
        tag,
        _pad: std::marker::PhantomData,
    }
}

/// A Sequence of six leaves whose actions have six layouts, repeated by Root.
fn program() -> Arc<Program<Log>> {
    let mut catalog = Catalog::builtin();
    let mut b = Behaviours::<Log>::with_builtins();
    for kind in ["PZst", "PByte", "PWide", "PBig", "PText", "PU128"] {
        catalog
            .register(KindSpec::new(kind, Category::Leaf, "", vec![]))
            .unwrap();
    }
    b.action("PZst", |_| Ok(probe::<Zst>(1)));
    b.action("PByte", |_| Ok(probe::<u8>(2)));
    b.action("PWide", |_| Ok(probe::<Wide>(3)));
    b.action("PBig", |_| Ok(probe::<Big>(4)));
    b.action("PText", |_| Ok(probe::<String>(5)));
    b.action("PU128", |_| Ok(probe::<u128>(6)));
    let t = tree(
        "root: Root | child seq
         seq: Sequence | children a b c d e f
         a: PZst
         b: PByte
         c: PWide
         d: PBig
         e: PText
         f: PU128",
    );
    Arc::new(Program::compile(&t, &catalog, &NoAssets, &b).unwrap())
}

#[test]
fn every_leaf_keeps_its_own_memory_and_shares_its_action() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let program = program();
    let mut agents: Vec<(Log, Instance<Log>)> = (0..3)
        .map(|i| (Log::default(), Instance::new(program.clone(), i)))
        .collect();
    // Step the agents out of phase so their actions hold different counts at once.
    for (i, (log, inst)) in agents.iter_mut().enumerate() {
        for _ in 0..i {
            inst.step(0.1, log, None);
        }
    }
    for _ in 0..30 {
        for (log, inst) in &mut agents {
            inst.step(0.1, log, None);
        }
    }
    for (log, _) in &agents {
        // Each leaf ran twice per entry (its own count, not another agent's or leaf's),
        // in tree order, round after round.
        let expected: Vec<(u32, u32)> = (1..=6)
            .flat_map(|tag| [(tag, 1), (tag, 2)])
            .cycle()
            .take(log.0.len())
            .collect();
        assert_eq!(log.0, expected);
        assert!(log.0.len() >= 24);
    }
    // One action object per leaf, the same for every agent; six different ones.
    let shared = agents[0].0.1;
    assert!(agents.iter().all(|(log, _)| log.1 == shared));
    let mut distinct = shared[1..].to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        6,
        "one object per leaf (a ZST's may share an address)"
    );
}

#[test]
fn every_memory_is_dropped_once_even_when_making_one_panics() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (before, shared_before) = (LIVE.load(Ordering::SeqCst), SHARED.load(Ordering::SeqCst));
    let program = program();
    assert_eq!(SHARED.load(Ordering::SeqCst) - shared_before, 6);
    assert_eq!(
        LIVE.load(Ordering::SeqCst) - before,
        0,
        "a program keeps no memory"
    );
    {
        let mut agents: Vec<(Log, Instance<Log>)> = (0..4)
            .map(|i| (Log::default(), Instance::new(program.clone(), i)))
            .collect();
        assert_eq!(LIVE.load(Ordering::SeqCst) - before, 4 * 6);
        for _ in 0..10 {
            for (log, inst) in &mut agents {
                inst.step(0.1, log, None);
            }
        }
        assert_eq!(LIVE.load(Ordering::SeqCst) - before, 4 * 6);
        assert_eq!(
            SHARED.load(Ordering::SeqCst) - shared_before,
            6,
            "nothing cloned"
        );
    }
    assert_eq!(
        LIVE.load(Ordering::SeqCst) - before,
        0,
        "instances drop their memories"
    );

    // The fourth memory of an instance panics: the three made are dropped, nothing else.
    PANIC_AT.store(MADE.load(Ordering::SeqCst) + 4, Ordering::SeqCst);
    let made = catch_unwind(AssertUnwindSafe(|| Instance::new(program.clone(), 9)));
    PANIC_AT.store(usize::MAX, Ordering::SeqCst);
    assert!(made.is_err());
    assert_eq!(
        LIVE.load(Ordering::SeqCst) - before,
        0,
        "a half-built instance drops the memories it made"
    );

    drop(program);
    assert_eq!(
        SHARED.load(Ordering::SeqCst) - shared_before,
        0,
        "the program drops its action objects"
    );
}

/// A tree with most of what a step can do: guards, context keys, a Parallel, a random
/// composite, a Regulator over a Repeater, and an Interrupt.
const RICH: &str = include_str!("../fixtures/runtime/rich.json");

#[test]
fn step_all_is_step_in_order() {
    use arbor::runtime::step_all;
    let tree = arbor::io::parse_tree(RICH, std::path::Path::new("rich.json")).unwrap();
    let program = Arc::new(
        Program::compile(
            &tree,
            &Catalog::builtin(),
            &NoAssets,
            &Behaviours::<()>::with_builtins(),
        )
        .unwrap(),
    );
    let make = || -> Vec<((), Instance<()>)> {
        (0..13)
            .map(|seed| {
                let mut i = Instance::new(program.clone(), seed);
                i.record_states(true);
                ((), i)
            })
            .collect()
    };
    let (mut one_by_one, mut all) = (make(), make());
    for step in 0..120 {
        if step % 17 == 5 {
            for agents in [&mut one_by_one, &mut all] {
                for (_, i) in agents.iter_mut().step_by(3) {
                    i.trigger("ping", None);
                }
            }
        }
        for (agent, instance) in &mut one_by_one {
            instance.step(0.1, agent, None);
        }
        step_all(0.1, all.iter_mut().map(|(a, i)| (a, i)));
    }
    for ((_, a), (_, b)) in one_by_one.iter().zip(&all) {
        assert_eq!(a.stats(), b.stats());
        assert_eq!(a.active_leaves(), b.active_leaves());
        assert_eq!(a.node_states(), b.node_states());
        assert_eq!(a.context().get(0), b.context().get(0));
    }
    assert!(all.iter().any(|(_, i)| i.stats().interrupts > 0));
}

#[test]
fn a_cloned_instance_runs_on_as_the_original_and_its_memories_are_dropped_once() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let before = LIVE.load(Ordering::SeqCst);
    let program = program();
    {
        let (mut log, mut original) = (Log::default(), Instance::new(program.clone(), 7));
        // Stop mid-run, with leaves holding counts.
        for _ in 0..5 {
            original.step(0.1, &mut log, None);
        }
        let mut copy = original.clone();
        let mut copy_log = Log(log.0.clone(), log.1);
        assert_eq!(LIVE.load(Ordering::SeqCst) - before, 2 * 6);
        for _ in 0..20 {
            original.step(0.1, &mut log, None);
            copy.step(0.1, &mut copy_log, None);
        }
        assert_eq!(log.0, copy_log.0);
        assert_eq!(original.step_number(), copy.step_number());
        assert_eq!(original.active_leaves(), copy.active_leaves());
    }
    assert_eq!(LIVE.load(Ordering::SeqCst), before);
}

/// An action that fails with a reason: the `exit` event carries it, and the JSON Lines
/// trace writes it after the status. A failure without one is written as before.
#[test]
fn a_failure_with_a_reason_carries_it_into_the_exit_event_and_the_trace() {
    struct Strike;
    impl Action<()> for Strike {
        type Memory = ();
        fn on_execute(&self, _: &mut (), _: &mut (), _: &mut LeafIo<'_>, _: f64) -> Outcome {
            Outcome::FailureBecause("target out of range")
        }
    }
    let mut catalog = Catalog::builtin();
    catalog
        .register(KindSpec::new("Strike", Category::Leaf, "", vec![]))
        .unwrap();
    let mut b = Behaviours::<()>::with_builtins();
    b.action("Strike", |_| Ok(Strike));
    let program = Program::compile(
        &tree(
            "root: Root | child s
             s: Sequence | children hit plain
             hit: Strike
             plain: MockAction script=F",
        ),
        &catalog,
        &NoAssets,
        &b,
    )
    .unwrap();
    let mut instance = Instance::new(Arc::new(program), 0);
    let mut out = Vec::new();
    {
        let mut trace = arbor::runtime::JsonlTrace::new(&mut out, "a");
        for _ in 0..3 {
            instance.step(0.1, &mut (), Some(&mut trace));
        }
    }
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains(
            r#""event":"exit","node":"hit","status":"failure","reason":"target out of range"}"#
        ),
        "{text}"
    );
    // The Sequence's own failure has no reason of its own.
    assert!(
        text.contains(r#""event":"exit","node":"s","status":"failure"}"#),
        "{text}"
    );
}
