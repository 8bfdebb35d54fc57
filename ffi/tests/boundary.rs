//! Safety at the boundary: each misuse a C caller can make gives its code and a message,
//! never undefined behaviour; and what the ABI offers does what the Rust API does.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs, unsafe_code)]

use std::ffi::{CStr, CString, c_void};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};

use arbor_ffi::*;

fn last() -> String {
    // SAFETY: Arbor's own NUL-terminated message.
    unsafe { CStr::from_ptr(arbor_last_error()) }
        .to_string_lossy()
        .into_owned()
}

#[track_caller]
fn ok(code: i32) {
    assert_eq!(code, ARBOR_OK, "{}", last());
}

/// The code `code`, and the message it left, which must mention `says`.
#[track_caller]
fn refused(code: i32, want: i32, says: &str) {
    assert_eq!(code, want, "{}", last());
    let m = last();
    assert!(m.contains(says), "{m:?} does not say {says:?}");
}

const LIBRARY: &str = r#"{"format": "arbor.nodes", "version": 1, "library": "game", "kinds": [
  {"kind": "Count", "category": "leaf", "fields": [
    {"name": "to", "type": "int", "default": 3, "min": 1, "max": 100},
    {"name": "label", "type": "text", "default": "hi"}]},
  {"kind": "Bad", "category": "leaf", "fields": []},
  {"kind": "Sneaky", "category": "leaf", "fields": []},
  {"kind": "Ready", "category": "condition", "fields": []}]}"#;

const TREE: &str = r#"{"format": "arbor.tree", "version": 1,
  "keys": [{"name": "laps", "type": "int"}, {"name": "name", "type": "text"}],
  "nodes": [
  {"id": "root", "kind": "Root", "inputs": {"child": ["seq"]}},
  {"id": "seq", "kind": "Sequence", "inputs": {"conditions": ["ready"], "children": ["count"]}},
  {"id": "ready", "kind": "Ready"},
  {"id": "count", "kind": "Count", "fields": {"to": 2, "label": "laps"}}]}"#;

static COUNTED: AtomicUsize = AtomicUsize::new(0);
static KEPT: AtomicUsize = AtomicUsize::new(0);

extern "C" fn count(user: *mut c_void, _agent: *mut c_void, node: *const ArborNode, _: f64) -> i32 {
    assert_eq!(user as usize, 0xC0FFEE);
    COUNTED.fetch_add(1, Ordering::Relaxed);
    KEPT.store(node as usize, Ordering::Relaxed);
    // SAFETY: the node the callback is given, with its memory (an action's).
    let node = unsafe { &*node };
    // SAFETY: `fields` holds `field_count` values during the callback.
    let fields = unsafe { std::slice::from_raw_parts(node.fields, node.field_count) };
    assert_eq!(fields[0].r#type, ARBOR_INT);
    let to = fields[0].integer as u64;
    assert_eq!(fields[1].r#type, ARBOR_TEXT);
    // SAFETY: Arbor's text, NUL-terminated.
    let label = unsafe { CStr::from_ptr(fields[1].text) };
    assert_eq!(label.to_str().unwrap(), "laps");
    // By name too; and a field the kind lacks.
    let mut v = ArborValue {
        r#type: -1,
        ..none()
    };
    // SAFETY: live pointers.
    unsafe {
        assert_eq!(arbor_call_field(node, c"to".as_ptr(), &mut v), ARBOR_OK);
        assert_eq!(v.integer, to as i64);
        assert_eq!(
            arbor_call_field(node, c"speed".as_ptr(), &mut v),
            ARBOR_ERR_NOT_FOUND
        );
        assert_eq!(
            arbor_call_field(node, c"to".as_ptr(), null_mut()),
            ARBOR_ERR_NULL
        );
        // Only arbor_call_* may be called from a callback.
        let mut rt = 0;
        assert_eq!(arbor_runtime_new(&mut rt), ARBOR_ERR_BUSY);
        *node.memory += 1;
        if *node.memory >= to {
            return ARBOR_SUCCESS;
        }
    }
    ARBOR_RUNNING
}

extern "C" fn bad(_: *mut c_void, _: *mut c_void, _: *const ArborNode, _: f64) -> i32 {
    42
}

extern "C" fn ready(_: *mut c_void, agent: *mut c_void, _: *const ArborNode) -> i32 {
    if agent.is_null() { 1 } else { 7 }
}

fn none() -> ArborValue {
    ArborValue {
        r#type: ARBOR_NONE,
        boolean: false,
        number: 0.0,
        integer: 0,
        text: null(),
        text_len: 0,
        entity: 0,
        position: [0.0; 2],
    }
}

/// A runtime with the test's kinds and callbacks.
fn runtime() -> ArborRuntime {
    let mut rt = 0;
    let lib = CString::new(LIBRARY).unwrap();
    // SAFETY: live pointers and NUL-terminated strings.
    unsafe {
        ok(arbor_runtime_new(&mut rt));
        ok(arbor_runtime_load_library_text(
            rt,
            c"game.nodes.json".as_ptr(),
            lib.as_ptr(),
            0,
        ));
        let action = ArborAction {
            user: 0xC0FFEE as *mut c_void,
            execute: Some(count),
            enter: None,
            exit: None,
        };
        ok(arbor_runtime_register_action(
            rt,
            c"Count".as_ptr(),
            &action,
        ));
        let action = ArborAction {
            execute: Some(bad),
            ..action
        };
        ok(arbor_runtime_register_action(rt, c"Bad".as_ptr(), &action));
        ok(arbor_runtime_register_condition(
            rt,
            c"Ready".as_ptr(),
            Some(ready),
            null_mut(),
        ));
    }
    rt
}

fn tree(rt: ArborRuntime, text: &str) -> Result<ArborTree, i32> {
    let text = CString::new(text).unwrap();
    let mut t = 0;
    // SAFETY: live pointers.
    let code = unsafe { arbor_tree_load_text(rt, c"t.json".as_ptr(), text.as_ptr(), 0, &mut t) };
    if code == ARBOR_OK {
        Ok(t)
    } else {
        assert_eq!(t, 0, "a tree that does not load makes no handle");
        Err(code)
    }
}

fn agent(t: ArborTree) -> ArborAgent {
    let mut a = 0;
    // SAFETY: live pointers.
    ok(unsafe { arbor_agent_new(t, c"bot".as_ptr(), 7, &mut a) });
    a
}

#[test]
fn a_tree_runs_the_games_callbacks_with_its_fields_and_memory() {
    let rt = runtime();
    let t = tree(rt, TREE).unwrap();
    let a = agent(t);
    for _ in 0..7 {
        ok(arbor_agent_step(a, 0.1, null_mut()));
    }
    let mut runs = ArborRuns::default();
    // SAFETY: live pointers.
    ok(unsafe { arbor_agent_runs(a, &mut runs) });
    assert_eq!(runs.steps, 7);
    assert!(runs.succeeded >= 2, "{runs:?}");
    // The blackboard by type.
    let mut v = none();
    // SAFETY: live pointers, NUL-terminated strings.
    unsafe {
        ok(arbor_agent_set(
            a,
            c"laps".as_ptr(),
            ArborValue {
                r#type: ARBOR_INT,
                integer: 4,
                ..none()
            },
        ));
        ok(arbor_agent_get(a, c"laps".as_ptr(), &mut v));
        assert_eq!((v.r#type, v.integer), (ARBOR_INT, 4));
        refused(
            arbor_agent_set(
                a,
                c"laps".as_ptr(),
                ArborValue {
                    r#type: ARBOR_NUMBER,
                    number: 0.5,
                    ..none()
                },
            ),
            ARBOR_ERR_TYPE,
            "key 'laps' is of type int",
        );
        refused(
            arbor_agent_set(
                a,
                c"laps".as_ptr(),
                ArborValue {
                    r#type: ARBOR_TEXT,
                    text: c"x".as_ptr(),
                    ..none()
                },
            ),
            ARBOR_ERR_TYPE,
            "laps",
        );
        refused(
            arbor_agent_get(a, c"nope".as_ptr(), &mut v),
            ARBOR_ERR_NOT_FOUND,
            "no key 'nope'",
        );
        ok(arbor_agent_set(
            a,
            c"name".as_ptr(),
            ArborValue {
                r#type: ARBOR_TEXT,
                text: c"Ada".as_ptr(),
                ..none()
            },
        ));
        ok(arbor_agent_get(a, c"name".as_ptr(), &mut v));
        assert_eq!((v.r#type, v.text_len), (ARBOR_TEXT, 3));
        assert_eq!(CStr::from_ptr(v.text).to_str().unwrap(), "Ada");
        refused(
            arbor_agent_set(
                a,
                c"name".as_ptr(),
                ArborValue {
                    r#type: 99,
                    ..none()
                },
            ),
            ARBOR_ERR_ARGUMENT,
            "type 99",
        );
        refused(
            arbor_agent_trigger(a, c"Alarm".as_ptr(), null()),
            ARBOR_ERR_NOT_FOUND,
            "no Interrupt 'Alarm'",
        );
    }
    // The node a callback was given is refused once it returned.
    let kept = KEPT.load(Ordering::Relaxed) as *const ArborNode;
    assert!(!kept.is_null());
    // SAFETY: Arbor does not follow a node that is not current: nothing is read.
    refused(
        unsafe { arbor_call_fail_because(kept, c"late".as_ptr()) },
        ARBOR_ERR_CALL,
        "good only until",
    );
    // SAFETY: as above.
    refused(
        unsafe { arbor_call_input(null(), &mut v) },
        ARBOR_ERR_CALL,
        "",
    );
    ok(arbor_agent_free(a));
    ok(arbor_tree_free(t));
    ok(arbor_runtime_free(rt));
}

#[test]
fn handles_freed_of_another_type_or_made_up_are_refused() {
    let rt = runtime();
    let t = tree(rt, TREE).unwrap();
    let a = agent(t);
    ok(arbor_agent_free(a));
    refused(
        arbor_agent_step(a, 0.1, null_mut()),
        ARBOR_ERR_HANDLE,
        "not a live handle",
    );
    refused(arbor_agent_free(a), ARBOR_ERR_HANDLE, "not a live handle");
    refused(
        arbor_agent_step(t, 0.1, null_mut()),
        ARBOR_ERR_HANDLE_TYPE,
        "is a tree, not an agent",
    );
    refused(
        arbor_tree_free(rt),
        ARBOR_ERR_HANDLE_TYPE,
        "is a runtime, not a tree",
    );
    refused(
        arbor_agent_step(0, 0.1, null_mut()),
        ARBOR_ERR_HANDLE,
        "0 is none",
    );
    refused(
        arbor_agent_step(0xDEAD_BEEF_0000_0001, 0.1, null_mut()),
        ARBOR_ERR_HANDLE,
        "not a live",
    );
    refused(
        arbor_agent_step(a ^ (1 << 40), 0.1, null_mut()),
        ARBOR_ERR_HANDLE,
        "not a live",
    );
    // A slot used again gives a new handle; the old one stays dead.
    let b = agent(t);
    assert_ne!(a, b);
    refused(
        arbor_agent_step(a, 0.1, null_mut()),
        ARBOR_ERR_HANDLE,
        "not a live",
    );
    ok(arbor_agent_step(b, 0.1, null_mut()));
    refused(
        arbor_agent_step(b, f64::NAN, null_mut()),
        ARBOR_ERR_ARGUMENT,
        "dt",
    );
    // Null pointers.
    // SAFETY: nulls are what is tested.
    unsafe {
        refused(arbor_runtime_new(null_mut()), ARBOR_ERR_NULL, "out is null");
        refused(
            arbor_tree_load(rt, null(), null_mut()),
            ARBOR_ERR_NULL,
            "path is null",
        );
        refused(
            arbor_agent_new(t, null(), 0, null_mut()),
            ARBOR_ERR_NULL,
            "name is null",
        );
        refused(
            arbor_agent_get(b, c"laps".as_ptr(), null_mut()),
            ARBOR_ERR_NULL,
            "out is null",
        );
        refused(
            arbor_runtime_register_action(rt, c"Count".as_ptr(), null()),
            ARBOR_ERR_NULL,
            "action is null",
        );
        refused(
            arbor_runtime_register_condition(rt, c"Ready".as_ptr(), None, null_mut()),
            ARBOR_ERR_NULL,
            "null",
        );
        refused(
            arbor_step_all(null(), null(), 3, 0.1),
            ARBOR_ERR_NULL,
            "agents is null",
        );
        // Text that is not UTF-8.
        refused(
            arbor_tree_load(rt, c"\xff.json".as_ptr(), &mut 0),
            ARBOR_ERR_ARGUMENT,
            "not UTF-8",
        );
    }
}

#[test]
fn a_callback_that_returns_no_status_fails_its_node_and_the_step_says_so() {
    let rt = runtime();
    let text = TREE.replace(
        r#""kind": "Count", "fields": {"to": 2, "label": "laps"}"#,
        r#""kind": "Bad""#,
    );
    let t = tree(rt, &text).unwrap();
    let a = agent(t);
    refused(
        arbor_agent_step(a, 0.1, null_mut()),
        ARBOR_ERR_CALLBACK,
        "agent 'bot': [count] the execute callback of Bad returned 42",
    );
    let mut runs = ArborRuns::default();
    // SAFETY: live pointers.
    ok(unsafe { arbor_agent_runs(a, &mut runs) });
    assert_eq!(runs.failed, 1, "the node failed: {runs:?}");
    // A condition's 7 is taken as 0, and said.
    let mut data = 1u8;
    let t2 = tree(rt, TREE).unwrap();
    let b = agent(t2);
    refused(
        arbor_agent_step(b, 0.1, std::ptr::from_mut(&mut data).cast()),
        ARBOR_ERR_CALLBACK,
        "[ready] the check callback of Ready returned 7",
    );
}

#[test]
fn a_tree_with_errors_or_that_does_not_read_makes_no_handle() {
    let rt = runtime();
    // A kind with no behaviour registered.
    let text = TREE.replace(
        r#""kind": "Count", "fields": {"to": 2, "label": "laps"}"#,
        r#""kind": "Sneaky""#,
    );
    assert_eq!(tree(rt, &text), Err(ARBOR_ERR_INVALID));
    assert!(
        last().contains("[count]") && last().contains("Sneaky"),
        "{}",
        last()
    );
    // A field out of its range: the file, the node and the field.
    let text = TREE.replace(r#""to": 2"#, r#""to": 500"#);
    assert_eq!(tree(rt, &text), Err(ARBOR_ERR_INVALID));
    assert!(
        last().starts_with("t.json: error: [count]") && last().contains("to"),
        "{}",
        last()
    );
    // Not JSON: the line and column.
    assert_eq!(
        tree(rt, "{\n  \"format\": \"arbor.tree\",\n  oops"),
        Err(ARBOR_ERR_LOAD)
    );
    assert!(last().starts_with("t.json:3:"), "{}", last());
    // A library with an error adds none of its kinds.
    let broken = CString::new(LIBRARY.replace("\"int\"", "\"integer-ish\"")).unwrap();
    // SAFETY: live pointers.
    let code = unsafe {
        arbor_runtime_load_library_text(rt, c"bad.nodes.json".as_ptr(), broken.as_ptr(), 0)
    };
    refused(code, ARBOR_ERR_INVALID, "bad.nodes.json");
    // Registering a kind nobody declared.
    let action = ArborAction {
        user: null_mut(),
        execute: Some(bad),
        enter: None,
        exit: None,
    };
    // SAFETY: live pointers.
    let code = unsafe { arbor_runtime_register_action(rt, c"Ghost".as_ptr(), &action) };
    refused(code, ARBOR_ERR_NOT_FOUND, "declare it in a node library");
    // SAFETY: live pointers.
    let code = unsafe { arbor_runtime_register_action(rt, c"Ready".as_ptr(), &action) };
    refused(code, ARBOR_ERR_ARGUMENT, "not an action");
    assert_eq!(arbor_abi_version(), ARBOR_ABI_VERSION);
}

#[test]
fn an_agent_stepped_on_two_threads_at_once_is_refused_not_raced() {
    use std::sync::Barrier;
    static GATE: std::sync::OnceLock<Barrier> = std::sync::OnceLock::new();
    extern "C" fn slow(_: *mut c_void, _: *mut c_void, _: *const ArborNode, _: f64) -> i32 {
        GATE.get().unwrap().wait();
        GATE.get().unwrap().wait();
        ARBOR_RUNNING
    }
    GATE.set(Barrier::new(2)).unwrap();
    let rt = runtime();
    let action = ArborAction {
        user: null_mut(),
        execute: Some(slow),
        enter: None,
        exit: None,
    };
    // SAFETY: live pointers.
    ok(unsafe { arbor_runtime_register_action(rt, c"Sneaky".as_ptr(), &action) });
    let text = TREE.replace(
        r#""kind": "Count", "fields": {"to": 2, "label": "laps"}"#,
        r#""kind": "Sneaky""#,
    );
    let t = tree(rt, &text).unwrap();
    let a = agent(t);
    let other = std::thread::spawn(move || arbor_agent_step(a, 0.1, null_mut()));
    GATE.get().unwrap().wait(); // the other thread is inside the step
    refused(
        arbor_agent_step(a, 0.1, null_mut()),
        ARBOR_ERR_BUSY,
        "in use by another call",
    );
    // arbor_step_all does not wait for it either: that agent is refused.
    // SAFETY: one live handle.
    refused(
        unsafe { arbor_step_all(&a, null(), 1, 0.1) },
        ARBOR_ERR_BUSY,
        "agents[0]: the agent is in use",
    );
    GATE.get().unwrap().wait();
    assert_eq!(other.join().unwrap(), ARBOR_OK);
}

#[test]
fn a_trace_that_cannot_be_written_is_refused_and_never_written_over_a_tree() {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let tree_file = dir.path().join("t.json");
    std::fs::write(&tree_file, TREE).unwrap();
    let path = CString::new(tree_file.to_str().unwrap()).unwrap();
    let mut t = 0;
    // SAFETY: live pointers.
    ok(unsafe { arbor_tree_load(rt, path.as_ptr(), &mut t) });
    let a = agent(t);
    let mut trace = 0;
    // Over the tree it runs: refused, the tree left as it was.
    // SAFETY: live pointers.
    let code = unsafe { arbor_trace_open(path.as_ptr(), 0.1, 0, &a, 1, &mut trace) };
    refused(code, ARBOR_ERR_IO, "t.json");
    assert_eq!(std::fs::read_to_string(&tree_file).unwrap(), TREE);
    assert_eq!(trace, 0);
    // In a folder that is not there.
    let nowhere = CString::new(dir.path().join("no/such/t.jsonl").to_str().unwrap()).unwrap();
    // SAFETY: live pointers.
    let code = unsafe { arbor_trace_open(nowhere.as_ptr(), 0.1, 0, &a, 1, &mut trace) };
    refused(code, ARBOR_ERR_IO, "no/such");
    // A trace closed twice: the second is a dead handle.
    let fine = CString::new(dir.path().join("t.jsonl").to_str().unwrap()).unwrap();
    // SAFETY: live pointers.
    ok(unsafe { arbor_trace_open(fine.as_ptr(), 0.1, 0, &a, 1, &mut trace) });
    ok(arbor_agent_step(a, 0.1, null_mut()));
    ok(arbor_trace_close(trace));
    refused(
        arbor_trace_close(trace),
        ARBOR_ERR_HANDLE,
        "not a live handle",
    );
    // Its agent steps on untraced.
    ok(arbor_agent_step(a, 0.1, null_mut()));
}
