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

const TREE: &str = r#"{"format": "arbor.tree", "version": 1, "nodes": [
  {"id": "root", "kind": "Root", "inputs": {"child": ["top"], "interrupts": ["int"]}},
  {"id": "top", "kind": "Selector", "inputs": {"children": ["guarded", "par", "rnd", "rep"]}},
  {"id": "guarded", "kind": "Sequence", "inputs": {"conditions": ["g"], "children": ["find", "use"]}},
  {"id": "g", "kind": "MockCondition", "fields": {"script": "TTTTTTTTTTTTTTTTTTTF"}},
  {"id": "find", "kind": "MockAction", "fields": {"script": "RRS", "produces": "thing", "out_context": "k"}},
  {"id": "use", "kind": "MockAction", "fields": {"script": "RRRRRRRRF", "in_context": "k", "max_duration": 0.5}},
  {"id": "par", "kind": "Parallel", "fields": {"success": "one"}, "inputs": {"children": ["p1", "p2"]}},
  {"id": "p1", "kind": "MockAction", "fields": {"script": "RRRF"}},
  {"id": "p2", "kind": "MockAction", "fields": {"script": "RRRRRF"}},
  {"id": "rnd", "kind": "RandomSelector", "inputs": {"children": ["r1", "r2", "r3"]}},
  {"id": "r1", "kind": "MockAction", "fields": {"script": "RF"}},
  {"id": "r2", "kind": "MockAction", "fields": {"script": "F"}},
  {"id": "r3", "kind": "MockAction", "fields": {"script": "RRF"}},
  {"id": "rep", "kind": "Regulator", "fields": {"hz": 4.0}, "inputs": {"child": ["rp"]}},
  {"id": "rp", "kind": "Repeater", "fields": {"times": 3}, "inputs": {"child": ["leaf"]}},
  {"id": "leaf", "kind": "MockAction", "fields": {"script": "RS"}},
  {"id": "int", "kind": "Interrupt", "fields": {"interrupt_id": "ping"}, "inputs": {"child": ["pong"]}},
  {"id": "pong", "kind": "MockAction", "fields": {"script": "RS"}}
]}"#;

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
