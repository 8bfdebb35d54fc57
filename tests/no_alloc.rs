//! A step in steady state allocates nothing: proven with a counting global allocator.

#![allow(clippy::unwrap_used, clippy::expect_used, unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use arbor::model::{Catalog, NoAssets};
use arbor::runtime::{Behaviours, Instance, Program};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Most of what a step can do: guards, context keys, a Parallel, a random composite, a
/// Regulator over a Repeater, an Interrupt (shared with `tests/runtime/actions.rs`).
const TREE: &str = include_str!("fixtures/runtime/rich.json");

/// `count` instances of the tree in `text` (mock nodes only), seeded 0, 1, ….
fn instances(text: &str, count: u64) -> Vec<Instance<()>> {
    let tree = arbor::io::parse_tree(text, std::path::Path::new("alloc.json")).unwrap();
    let program = Program::compile(
        &tree,
        &Catalog::builtin(),
        &NoAssets,
        &Behaviours::<()>::with_builtins(),
    )
    .unwrap();
    let program = Arc::new(program);
    (0..count)
        .map(|s| Instance::new(program.clone(), s))
        .collect()
}

#[test]
fn steady_state_steps_allocate_nothing() {
    let mut agents = instances(TREE, 8);
    // Warm up: every path is taken at least once (runs complete, guards fail, parallel aborts).
    for _ in 0..500 {
        for a in &mut agents {
            a.step(0.1, &mut (), None);
        }
    }
    let completed: u64 = agents
        .iter()
        .map(|a| a.stats().succeeded + a.stats().failed)
        .sum();
    assert!(
        completed > 100,
        "the workload should complete runs, got {completed}"
    );
    COUNTING.with(|c| c.set(true));
    for _ in 0..2000 {
        for a in &mut agents {
            a.step(0.1, &mut (), None);
        }
    }
    COUNTING.with(|c| c.set(false));
    assert_eq!(ALLOCATIONS.load(Ordering::Relaxed), 0, "steps allocated");
}

/// The Interrupt both trees below end with: "ping", over a Parallel of three leaves that
/// finish together.
macro_rules! ping_interrupt {
    () => {
        r#"
  {"id": "int", "kind": "Interrupt", "fields": {"interrupt_id": "ping"}, "inputs": {"child": ["ip"]}},
  {"id": "ip", "kind": "Parallel", "inputs": {"children": ["i1", "i2", "i3"]}},
  {"id": "i1", "kind": "MockAction", "fields": {"script": "RS"}},
  {"id": "i2", "kind": "MockAction", "fields": {"script": "RS"}},
  {"id": "i3", "kind": "MockAction", "fields": {"script": "RS"}}
]}"#
    };
}

/// Six leaves under a Parallel, three of them below guards that fail in the step the
/// other three finish: six reports in one step and six active leaves, beyond what an
/// instance keeps in place. An Interrupt over a Parallel of three fires every 40 steps.
/// The room reserved for both must come from the tree's shape (`Program::bounds`).
const WIDE: &str = concat!(
    r#"{"format": "arbor.tree", "version": 1, "nodes": [
  {"id": "root", "kind": "Root", "inputs": {"child": ["par"], "interrupts": ["int"]}},
  {"id": "par", "kind": "Parallel", "inputs": {"children": ["s1", "s2", "s3", "b1", "b2", "b3"]}},
  {"id": "s1", "kind": "Sequence", "inputs": {"conditions": ["g1"], "children": ["a1"]}},
  {"id": "s2", "kind": "Sequence", "inputs": {"conditions": ["g2"], "children": ["a2"]}},
  {"id": "s3", "kind": "Sequence", "inputs": {"conditions": ["g3"], "children": ["a3"]}},
  {"id": "g1", "kind": "MockCondition", "fields": {"script": "TTTF"}},
  {"id": "g2", "kind": "MockCondition", "fields": {"script": "TTTF"}},
  {"id": "g3", "kind": "MockCondition", "fields": {"script": "TTTF"}},
  {"id": "a1", "kind": "MockAction", "fields": {"script": "RRRRRRS"}},
  {"id": "a2", "kind": "MockAction", "fields": {"script": "RRRRRRS"}},
  {"id": "a3", "kind": "MockAction", "fields": {"script": "RRRRRRS"}},
  {"id": "b1", "kind": "MockAction", "fields": {"script": "RRS"}},
  {"id": "b2", "kind": "MockAction", "fields": {"script": "RRS"}},
  {"id": "b3", "kind": "MockAction", "fields": {"script": "RRS"}},
"#,
    ping_interrupt!()
);

/// A one-leaf main tree with an Interrupt whose three leaves finish together: the
/// Interrupt's share of the room cannot come from the main tree's.
const NARROW_WIDE_INTERRUPT: &str = concat!(
    r#"{"format": "arbor.tree", "version": 1, "nodes": [
  {"id": "root", "kind": "Root", "inputs": {"child": ["s"], "interrupts": ["int"]}},
  {"id": "s", "kind": "Sequence", "inputs": {"conditions": ["g"], "children": ["a"]}},
  {"id": "g", "kind": "MockCondition", "fields": {"script": "TTTTTF"}},
  {"id": "a", "kind": "MockAction", "fields": {"script": "RRRRRRRS"}},
"#,
    ping_interrupt!()
);

/// Steps `agents` (triggering "ping" every 40 steps) and returns the most leaves that
/// were active at once.
fn run_with_pings(agents: &mut [Instance<()>], steps: u32) -> usize {
    let mut most_active = 0;
    for step in 0..steps {
        for a in agents.iter_mut() {
            if step % 40 == 20 {
                a.trigger("ping", None);
            }
            a.step(0.1, &mut (), None);
            most_active = most_active.max(a.active_leaves().len());
        }
    }
    most_active
}

#[test]
fn wide_parallels_and_interrupts_queue_many_reports_without_allocating() {
    for (text, widest) in [(WIDE, 6), (NARROW_WIDE_INTERRUPT, 3)] {
        let mut agents = instances(text, 4);
        let warm = run_with_pings(&mut agents, 200);
        COUNTING.with(|c| c.set(true));
        let most_active = run_with_pings(&mut agents, 400).max(warm);
        COUNTING.with(|c| c.set(false));
        assert_eq!(ALLOCATIONS.load(Ordering::Relaxed), 0, "steps allocated");
        assert_eq!(
            most_active, widest,
            "every leaf of the widest Parallel runs"
        );
        let stats = agents[0].stats();
        assert!(stats.interrupts >= 10 && stats.succeeded + stats.failed >= 10);
    }
}

/// A Selector over two guarded Sequences of mock nodes: no context key, no random
/// composite, no Interrupt.
const PLAIN: &str = r#"{"format": "arbor.tree", "version": 1, "nodes": [
  {"id": "root", "kind": "Root", "inputs": {"child": ["sel"]}},
  {"id": "sel", "kind": "Selector", "inputs": {"children": ["s1", "s2"]}},
  {"id": "s1", "kind": "Sequence", "inputs": {"conditions": ["g1"], "children": ["a1", "a2"]}},
  {"id": "g1", "kind": "MockCondition", "fields": {"script": "TTTTF"}},
  {"id": "a1", "kind": "MockAction", "fields": {"script": "RRS"}},
  {"id": "a2", "kind": "MockAction", "fields": {"script": "RF"}},
  {"id": "s2", "kind": "Sequence", "inputs": {"children": ["b1"]}},
  {"id": "b1", "kind": "MockAction", "fields": {"script": "RS"}}
]}"#;

/// A plain tree's instance keeps no second block of state (`Cold` in the runtime): its
/// steps allocate nothing from the very first one, the start included. What a trigger
/// needs (here one for an id no Interrupt has) is made when it is queued, from outside,
/// and the step that handles it still allocates nothing.
#[test]
fn a_plain_tree_allocates_nothing_from_its_first_step() {
    use arbor::runtime::{Event, EventKind};
    let mut agents = instances(PLAIN, 4);
    let bare = agents[0].heap_bytes();
    let mut warnings = 0;
    let step_all = |agents: &mut [Instance<()>], warnings: &mut u32| {
        for a in agents.iter_mut() {
            let mut count = |e: &Event<'_>| {
                if matches!(e.kind, EventKind::Warning(_)) {
                    *warnings += 1;
                }
            };
            a.step(0.1, &mut (), Some(&mut count));
        }
    };
    COUNTING.with(|c| c.set(true));
    for _ in 0..300 {
        step_all(&mut agents, &mut warnings);
    }
    COUNTING.with(|c| c.set(false));
    assert_eq!(ALLOCATIONS.load(Ordering::Relaxed), 0, "steps allocated");
    assert_eq!(agents[0].heap_bytes(), bare, "nothing grew");
    assert!(agents[0].stats().succeeded + agents[0].stats().failed > 50);

    agents[0].trigger("nope", None);
    assert!(
        agents[0].heap_bytes() > bare,
        "the trigger made room for itself"
    );
    COUNTING.with(|c| c.set(true));
    for _ in 0..300 {
        step_all(&mut agents, &mut warnings);
    }
    COUNTING.with(|c| c.set(false));
    assert_eq!(ALLOCATIONS.load(Ordering::Relaxed), 0, "steps allocated");
    assert_eq!(warnings, 1, "the unknown id was reported once");
}

/// Several observers of one step: a pair and an array of lent observers add no
/// allocation.
#[test]
fn a_step_watched_by_several_observers_allocates_nothing() {
    use arbor::runtime::{Event, Observer};
    let mut agents = instances(TREE, 4);
    let (mut first, mut second, mut third) = (0u64, 0u64, 0u64);
    let mut run = |agents: &mut [Instance<()>], steps: u32| {
        for _ in 0..steps {
            for a in agents.iter_mut() {
                let mut pair = (|_: &Event<'_>| first += 1, |_: &Event<'_>| second += 1);
                let mut count = |_: &Event<'_>| third += 1;
                let mut all: [&mut dyn Observer; 2] = [&mut pair, &mut count];
                a.step(0.1, &mut (), Some(&mut all));
            }
        }
    };
    run(&mut agents, 500);
    COUNTING.with(|c| c.set(true));
    run(&mut agents, 2000);
    COUNTING.with(|c| c.set(false));
    assert_eq!(ALLOCATIONS.load(Ordering::Relaxed), 0, "steps allocated");
    assert!(first > 10_000, "{first}");
    assert_eq!((first, second), (third, third), "each is told every event");
}

/// A binary trace, once it has met the run's node ids, agents and keys, records every
/// event without an allocation (into a writer that keeps nothing).
#[test]
fn a_step_recorded_in_binary_allocates_nothing() {
    use arbor::runtime::BinaryTrace;
    let mut agents = instances(TREE, 4);
    let mut trace = BinaryTrace::new(std::io::sink(), "agent");
    let mut run = |agents: &mut [Instance<()>], steps: u32| {
        for _ in 0..steps {
            for (i, a) in agents.iter_mut().enumerate() {
                arbor::runtime::Observer::agent(&mut trace, ["a", "b", "c", "d"][i]);
                a.step(0.1, &mut (), Some(&mut trace));
            }
        }
    };
    // Warm up: every path taken, every string met.
    run(&mut agents, 500);
    COUNTING.with(|c| c.set(true));
    run(&mut agents, 2000);
    COUNTING.with(|c| c.set(false));
    assert_eq!(ALLOCATIONS.load(Ordering::Relaxed), 0, "steps allocated");
    trace.finish().unwrap();
}
