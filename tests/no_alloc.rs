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
