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

#[test]
fn steady_state_steps_allocate_nothing() {
    let tree = arbor::io::parse_tree(TREE, std::path::Path::new("alloc.json")).unwrap();
    let program = Program::compile(
        &tree,
        &Catalog::builtin(),
        &NoAssets,
        &Behaviours::<()>::with_builtins(),
    )
    .unwrap();
    let program = Arc::new(program);
    let mut agents: Vec<Instance<()>> = (0..8).map(|s| Instance::new(program.clone(), s)).collect();
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

/// Six leaves under a Parallel, three of them below guards that fail in the step the
/// other three finish: six reports in one step and six active leaves, beyond what an
/// instance keeps in place. An Interrupt over a Parallel of three fires every 40 steps.
/// The room reserved for both must come from the tree's shape (`Program::bounds`).
const WIDE: &str = r#"{"format": "arbor.tree", "version": 1, "nodes": [
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
  {"id": "int", "kind": "Interrupt", "fields": {"interrupt_id": "ping"}, "inputs": {"child": ["ip"]}},
  {"id": "ip", "kind": "Parallel", "inputs": {"children": ["i1", "i2", "i3"]}},
  {"id": "i1", "kind": "MockAction", "fields": {"script": "RS"}},
  {"id": "i2", "kind": "MockAction", "fields": {"script": "RS"}},
  {"id": "i3", "kind": "MockAction", "fields": {"script": "RS"}}
]}"#;

#[test]
fn wide_parallels_and_interrupts_queue_many_reports_without_allocating() {
    let tree = arbor::io::parse_tree(WIDE, std::path::Path::new("wide.json")).unwrap();
    let program = Program::compile(
        &tree,
        &Catalog::builtin(),
        &NoAssets,
        &Behaviours::<()>::with_builtins(),
    )
    .unwrap();
    let program = Arc::new(program);
    let mut agents: Vec<Instance<()>> = (0..4).map(|s| Instance::new(program.clone(), s)).collect();
    let mut most_active = 0;
    let mut run = |agents: &mut Vec<Instance<()>>, steps: u32| {
        for step in 0..steps {
            for a in agents.iter_mut() {
                if step % 40 == 20 {
                    a.trigger("ping", None);
                }
                a.step(0.1, &mut (), None);
                most_active = most_active.max(a.active_leaves().len());
            }
        }
    };
    run(&mut agents, 200);
    COUNTING.with(|c| c.set(true));
    run(&mut agents, 400);
    COUNTING.with(|c| c.set(false));
    assert_eq!(ALLOCATIONS.load(Ordering::Relaxed), 0, "steps allocated");
    assert_eq!(most_active, 6, "all six leaves of the Parallel run at once");
    let stats = agents[0].stats();
    assert!(stats.interrupts >= 10 && stats.succeeded + stats.failed >= 10);
}
