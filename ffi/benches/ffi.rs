//! Workload W (benches/common/workload.rs: a 31-node tree, 10,000 agents, 100 steps)
//! through the C ABI, with its leaves and conditions as `extern "C"` callbacks that read
//! their fields and memory from the `ArborNode` they are given, against the Rust API's step of the same
//! tree, measured side by side in one run: prints each median and their ratio, and the
//! heap allocations the C ABI's steps made. `cargo bench -p arbor-ffi`.

#![allow(clippy::unwrap_used, clippy::expect_used, unsafe_code, missing_docs)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::{CString, c_void};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use arbor::io::{ProjectCatalog, TreeFiles};
use arbor::model::Catalog;
use arbor::runtime::{Behaviours, Instance, Program};
use arbor_ffi::*;

#[path = "../../benches/common/workload.rs"]
mod workload;
use workload::{ACTS, Agent, Check, DT, SEQS, STEPS, Work, agents};

#[path = "../../benches/common/mod.rs"]
mod common;

// ---- heap allocations, counted -------------------------------------------------------

struct Counting;
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: the caller's contract.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

// ---- the tree and its kinds, as files a game ships -------------------------------------

const LIBRARY: &str = r#"{"format": "arbor.nodes", "version": 1, "library": "workload", "kinds": [
  {"kind": "Work", "category": "leaf", "fields": [
    {"name": "seq", "type": "int", "default": 0, "min": 0, "max": 10},
    {"name": "act", "type": "int", "default": 0, "min": 0, "max": 10}]},
  {"kind": "Check", "category": "condition", "fields": [
    {"name": "seq", "type": "int", "default": 0, "min": 0, "max": 10},
    {"name": "which", "type": "int", "default": 0, "min": 0, "max": 10}]}]}"#;

/// Workload W's tree, as a tree file.
fn tree_text() -> String {
    let mut nodes =
        vec![r#"{"id": "root", "kind": "Root", "inputs": {"child": ["select"]}}"#.to_owned()];
    let seqs: Vec<String> = (0..SEQS).map(|s| format!("\"seq{s}\"")).collect();
    nodes.push(format!(
        r#"{{"id": "select", "kind": "Selector", "inputs": {{"children": [{}]}}}}"#,
        seqs.join(", ")
    ));
    for s in 0..SEQS {
        let guards: Vec<String> = (0..2).map(|w| format!("\"c{s}{w}\"")).collect();
        let acts: Vec<String> = (0..ACTS).map(|a| format!("\"a{s}{a}\"")).collect();
        nodes.push(format!(
            r#"{{"id": "seq{s}", "kind": "Sequence", "inputs": {{"conditions": [{}], "children": [{}]}}}}"#,
            guards.join(", "),
            acts.join(", ")
        ));
        for w in 0..2 {
            nodes.push(format!(
                r#"{{"id": "c{s}{w}", "kind": "Check", "fields": {{"seq": {s}, "which": {w}}}}}"#
            ));
        }
        for a in 0..ACTS {
            nodes.push(format!(
                r#"{{"id": "a{s}{a}", "kind": "Work", "fields": {{"seq": {s}, "act": {a}}}}}"#
            ));
        }
    }
    format!(
        r#"{{"format": "arbor.tree", "version": 1, "nodes": [{}]}}"#,
        nodes.join(",\n")
    )
}

// ---- the Rust API ---------------------------------------------------------------------

fn rust_program() -> Arc<Program<Agent>> {
    let mut kinds = ProjectCatalog::load(None, &Catalog::builtin());
    kinds.add_library_text(Path::new("workload.nodes.json"), LIBRARY);
    assert!(kinds.problems.is_empty(), "{:?}", kinds.problems);
    let mut b = Behaviours::<Agent>::with_builtins();
    b.action("Work", |spec| {
        Ok(Work {
            seq: spec.number("seq").unwrap() as u32,
            act: spec.number("act").unwrap() as u32,
        })
    });
    b.condition("Check", |spec| {
        Ok(Check {
            seq: spec.number("seq").unwrap() as u32,
            which: spec.number("which").unwrap() as u32,
        })
    });
    let files = TreeFiles::new(&kinds.catalog);
    let path = Path::new("workload.json");
    let tree = files
        .load_text(path, &tree_text())
        .as_ref()
        .clone()
        .unwrap();
    Arc::new(Program::compile(&tree, &kinds.catalog, &files.assets_for(path), &b).unwrap())
}

// ---- the C ABI ------------------------------------------------------------------------

/// Field `i` of `node`, a whole number.
fn field(node: &ArborNode, i: usize) -> u32 {
    // SAFETY: `fields` holds `field_count` values, alive during the callback.
    let fields = unsafe { std::slice::from_raw_parts(node.fields, node.field_count) };
    fields[i].integer as u32
}

/// Callbacks called, in a pass that counts them (`COUNT`), outside the timed runs.
static CALLBACKS: AtomicU64 = AtomicU64::new(0);

extern "C" fn work_enter<const COUNT: bool>(
    _: *mut c_void,
    _: *mut c_void,
    node: *const ArborNode,
) {
    if COUNT {
        CALLBACKS.fetch_add(1, Ordering::Relaxed);
    }
    // SAFETY: the node a callback is given, with its memory (an action's).
    unsafe { *(*node).memory = 0 };
}

extern "C" fn work<const COUNT: bool>(
    _: *mut c_void,
    agent: *mut c_void,
    node: *const ArborNode,
    _: f64,
) -> i32 {
    if COUNT {
        CALLBACKS.fetch_add(1, Ordering::Relaxed);
    }
    // SAFETY: the agent pointer the step was given: an `Agent` of `c_agents`; the node
    // is alive during the callback.
    let (agent, node) = unsafe { (&mut *agent.cast::<Agent>(), &*node) };
    let (seq, act) = (field(node, 0), field(node, 1));
    // SAFETY: an action's memory, alive during the callback.
    let elapsed = unsafe { &mut *node.memory };
    *elapsed += 1;
    if *elapsed >= u64::from(agent.duration(seq, act)) {
        agent.effect(seq, act);
        ARBOR_SUCCESS
    } else {
        ARBOR_RUNNING
    }
}

extern "C" fn check<const COUNT: bool>(
    _: *mut c_void,
    agent: *mut c_void,
    node: *const ArborNode,
) -> i32 {
    if COUNT {
        CALLBACKS.fetch_add(1, Ordering::Relaxed);
    }
    // SAFETY: the agent pointer the step was given: an `Agent` of `c_agents`; the node
    // is alive during the callback.
    let (agent, node) = unsafe { (&*agent.cast::<Agent>(), &*node) };
    i32::from(agent.check(field(node, 0), field(node, 1)))
}

fn ok(code: i32) {
    assert_eq!(code, ARBOR_OK, "{:?}", {
        // SAFETY: Arbor's own NUL-terminated message.
        unsafe { std::ffi::CStr::from_ptr(arbor_last_error()) }
    });
}

/// The workload's agents made through the C ABI, each with its `Agent`.
fn c_agents<const COUNT: bool>() -> (Vec<ArborAgent>, Vec<Agent>) {
    let mut runtime = 0;
    // SAFETY: every pointer is to a live local or a NUL-terminated string.
    unsafe {
        ok(arbor_runtime_new(&mut runtime));
        let lib = CString::new(LIBRARY).unwrap();
        ok(arbor_runtime_load_library_text(
            runtime,
            c"workload.nodes.json".as_ptr(),
            lib.as_ptr(),
            0,
        ));
        let action = ArborAction {
            user: std::ptr::null_mut(),
            execute: Some(work::<COUNT>),
            enter: Some(work_enter::<COUNT>),
            exit: None,
        };
        ok(arbor_runtime_register_action(
            runtime,
            c"Work".as_ptr(),
            &action,
        ));
        ok(arbor_runtime_register_condition(
            runtime,
            c"Check".as_ptr(),
            Some(check::<COUNT>),
            std::ptr::null_mut(),
        ));
        let text = CString::new(tree_text()).unwrap();
        let mut tree = 0;
        ok(arbor_tree_load_text(
            runtime,
            c"workload.json".as_ptr(),
            text.as_ptr(),
            0,
            &mut tree,
        ));
        let handles = (0..agents())
            .map(|i| {
                let mut a = 0;
                let name = CString::new(format!("a{i}")).unwrap();
                ok(arbor_agent_new(tree, name.as_ptr(), i as u64, &mut a));
                a
            })
            .collect();
        (handles, (0..agents()).map(Agent::new).collect())
    }
}

fn c_run(handles: &[ArborAgent], data: &[*mut c_void]) {
    for _ in 0..STEPS {
        // SAFETY: `handles` and `data` hold as many entries as passed.
        ok(unsafe { arbor_step_all(handles.as_ptr(), data.as_ptr(), handles.len(), DT) });
    }
}

fn rust_run(agents: &mut [(Agent, Instance<Agent>)]) {
    for _ in 0..STEPS {
        for (agent, instance) in agents.iter_mut() {
            instance.step(DT, agent, None);
        }
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        println!("workload_w_c_abi: benchmark");
        return;
    }
    let program = rust_program();
    let fresh_rust = || -> Vec<(Agent, Instance<Agent>)> {
        (0..agents())
            .map(|i| (Agent::new(i), Instance::new(program.clone(), i as u64)))
            .collect()
    };
    // The two do the same work.
    let mut rust = fresh_rust();
    rust_run(&mut rust);
    let (handles, mut c) = c_agents::<false>();
    let data: Vec<*mut c_void> = c.iter_mut().map(|a| std::ptr::from_mut(a).cast()).collect();
    c_run(&handles, &data);
    let rust_ends: Vec<&Agent> = rust.iter().map(|(a, _)| a).collect();
    assert!(
        rust_ends.iter().zip(&c).all(|(r, c)| *r == c),
        "the C ABI's agents end elsewhere"
    );
    let done: u64 = c.iter().map(|a| a.done).sum();
    println!(
        "workload W: {} agents x {STEPS} steps, {done} actions completed by each",
        agents()
    );
    // How many callbacks an agent-step makes, counted in a pass of its own.
    let callbacks = {
        let (counted, mut agents) = c_agents::<true>();
        let data: Vec<*mut c_void> = agents
            .iter_mut()
            .map(|a| std::ptr::from_mut(a).cast())
            .collect();
        c_run(&counted, &data);
        let per = CALLBACKS.load(Ordering::Relaxed) as f64 / (counted.len() * STEPS) as f64;
        println!("callbacks an agent-step: {per:.2}");
        per
    };
    // Steady state: a step through the C ABI allocates nothing.
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    c_run(&handles, &data);
    let allocated = ALLOCATIONS.load(Ordering::Relaxed) - before;
    println!("heap allocations in {STEPS} steps through the C ABI: {allocated}");
    // Side by side, alternating.
    let rounds = common::rounds(if cfg!(debug_assertions) { 3 } else { 15 });
    let (mut rust_ns, mut c_ns) = (Vec::new(), Vec::new());
    let per = (agents() * STEPS) as f64;
    for _ in 0..rounds {
        let t = Instant::now();
        rust_run(&mut rust);
        rust_ns.push(t.elapsed().as_nanos() as f64 / per);
        let t = Instant::now();
        c_run(&handles, &data);
        c_ns.push(t.elapsed().as_nanos() as f64 / per);
    }
    let (r, cm) = (common::median(&mut rust_ns), common::median(&mut c_ns));
    println!(
        "an agent-step, median of {rounds} rounds: Rust API {r:.1} ns, C ABI {cm:.1} ns: {:.2}x ({:.1} ns more a callback)",
        cm / r,
        (cm - r) / callbacks
    );
}
