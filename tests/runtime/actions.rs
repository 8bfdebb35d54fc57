//! Action objects as an instance keeps them: one per leaf per agent, cloned from the
//! factory's prototype into the instance's single block, dropped exactly once, whatever
//! their size and alignment; and what a leaf keeps is its own.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use arbor::model::{Catalog, Category, KindSpec, NoAssets};
use arbor::runtime::{Action, Behaviours, Instance, LeafIo, Outcome, Program};

use crate::harness::tree;

/// The agent: the log of what each leaf saw, as `(leaf tag, executions so far)`.
#[derive(Default)]
struct Log(Vec<(u32, u32)>);

/// The tests here count objects globally: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// Live action objects, for drop accounting.
static LIVE: AtomicIsize = AtomicIsize::new(0);
/// Clones made; a clone panics when this reaches `PANIC_AT`.
static CLONES: AtomicUsize = AtomicUsize::new(0);
static PANIC_AT: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Counts its executions since entry and logs them; `pad` gives each kind its own size and
/// alignment.
struct Probe<P> {
    tag: u32,
    executed: u32,
    pad: P,
}

impl<P: Clone> Clone for Probe<P> {
    fn clone(&self) -> Self {
        if CLONES.fetch_add(1, Ordering::SeqCst) + 1 == PANIC_AT.load(Ordering::SeqCst) {
            panic!("clone refused");
        }
        LIVE.fetch_add(1, Ordering::SeqCst);
        Self {
            tag: self.tag,
            executed: self.executed,
            pad: self.pad.clone(),
        }
    }
}

impl<P> Drop for Probe<P> {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::SeqCst);
    }
}

impl<P: Clone + Send + Sync> Action<Log> for Probe<P> {
    fn on_enter(&mut self, _: &mut Log, _: &mut LeafIo<'_>) {
        self.executed = 0;
    }
    fn on_execute(&mut self, log: &mut Log, _: &mut LeafIo<'_>, _: f64) -> Outcome {
        let at = std::ptr::from_ref(self) as usize;
        assert_eq!(at % align_of::<Self>(), 0, "misaligned action");
        self.executed += 1;
        log.0.push((self.tag, self.executed));
        if self.executed == 2 {
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

fn probe<P: Clone + Send + Sync + 'static>(tag: u32, pad: P) -> Probe<P> {
    LIVE.fetch_add(1, Ordering::SeqCst);
    Probe {
        tag,
        executed: 0,
        pad,
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
    b.action("PZst", |_| Ok(probe(1, Zst)));
    b.action("PByte", |_| Ok(probe(2, 7u8)));
    b.action("PWide", |_| Ok(probe(3, Wide(9))));
    b.action("PBig", |_| Ok(probe(4, [5u64; 40])));
    b.action("PText", |_| Ok(probe(5, String::from("heap"))));
    b.action("PU128", |_| Ok(probe(6, u128::MAX)));
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
fn every_action_runs_in_place_and_keeps_its_own_state() {
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
}

#[test]
fn every_clone_is_dropped_once_even_when_a_clone_panics() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let before = LIVE.load(Ordering::SeqCst);
    let program = program();
    let prototypes = LIVE.load(Ordering::SeqCst) - before;
    assert_eq!(prototypes, 6);
    {
        let mut agents: Vec<(Log, Instance<Log>)> = (0..4)
            .map(|i| (Log::default(), Instance::new(program.clone(), i)))
            .collect();
        assert_eq!(LIVE.load(Ordering::SeqCst) - before, 6 + 4 * 6);
        for _ in 0..10 {
            for (log, inst) in &mut agents {
                inst.step(0.1, log, None);
            }
        }
        assert_eq!(LIVE.load(Ordering::SeqCst) - before, 6 + 4 * 6);
    }
    assert_eq!(
        LIVE.load(Ordering::SeqCst) - before,
        6,
        "instances drop their actions"
    );

    // The fourth clone of an instance panics: the three made are dropped, nothing else.
    PANIC_AT.store(CLONES.load(Ordering::SeqCst) + 4, Ordering::SeqCst);
    let made = catch_unwind(AssertUnwindSafe(|| Instance::new(program.clone(), 9)));
    PANIC_AT.store(usize::MAX, Ordering::SeqCst);
    assert!(made.is_err());
    assert_eq!(
        LIVE.load(Ordering::SeqCst) - before,
        6,
        "a half-built instance drops its clones"
    );

    drop(program);
    assert_eq!(
        LIVE.load(Ordering::SeqCst) - before,
        0,
        "the program drops its prototypes"
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
