//! Arbor's runtime behind a C ABI, for a game in any language: C and C++ (Unreal, Godot's
//! GDExtension), C# (Unity, through P/Invoke), Python (ctypes). `include/arbor.h` is made
//! from this crate by cbindgen (`tests/header.rs` keeps it current); docs/EMBEDDING.md,
//! "From C, C#, C++ and Python", is the guide.
//!
//! The rules at the boundary:
//! - Every function returns an `int32_t` code: `ARBOR_OK` (0), an `ARBOR_ERR_*`, or
//!   `ARBOR_HELD`; a failure's message is `arbor_last_error()`. No panic crosses: one is
//!   caught and returned as `ARBOR_ERR_INTERNAL`.
//! - Objects are handles (`uint64_t`), never pointers: a handle freed, of another type,
//!   or made up is refused with `ARBOR_ERR_HANDLE` or `ARBOR_ERR_HANDLE_TYPE`.
//! - Any thread may call; an object serves one call at a time, and a call on an object in
//!   use returns `ARBOR_ERR_BUSY` at once (`arbor_step_all` has every agent to itself: other
//!   threads' calls wait for it). A callback runs on the thread that stepped its agent and
//!   may call only `arbor_call_*`.
//! - The game's callbacks are C function pointers with a `void *user` of the kind's and
//!   a `void *agent` of the agent's; Arbor never reads either.

#![allow(unsafe_code)]

mod agent;
mod calls;
mod error;
mod handles;
mod link;
mod runtime;
mod trace;
mod tree;
mod value;

pub use agent::{
    ArborAgent, ArborRuns, arbor_agent_free, arbor_agent_get, arbor_agent_new, arbor_agent_runs,
    arbor_agent_seed, arbor_agent_set, arbor_agent_step, arbor_agent_trigger, arbor_step_all,
};
pub use calls::{
    ARBOR_ABORTED, ARBOR_FAILURE, ARBOR_RUNNING, ARBOR_SUCCESS, ArborAction, ArborCheckFn,
    ArborEnterFn, ArborExecuteFn, ArborExitFn, ArborNode, arbor_call_fail_because,
    arbor_call_field, arbor_call_input, arbor_call_produce, arbor_call_set_output,
};
pub use error::*;
pub use link::{
    ArborLink, arbor_link_connect, arbor_link_connected, arbor_link_free, arbor_link_problem,
};
pub use runtime::{
    ArborRuntime, arbor_runtime_free, arbor_runtime_load_library, arbor_runtime_load_library_text,
    arbor_runtime_load_project, arbor_runtime_new, arbor_runtime_register_action,
    arbor_runtime_register_condition,
};
pub use trace::{ArborTrace, arbor_trace_close, arbor_trace_open};
pub use tree::{ArborTree, arbor_tree_free, arbor_tree_load, arbor_tree_load_text};
pub use value::{
    ARBOR_BOOL, ARBOR_ENTITY, ARBOR_INT, ARBOR_NONE, ARBOR_NUMBER, ARBOR_POSITION, ARBOR_TEXT,
    ArborValue,
};

/// The version of this ABI: it changes when a function, type or constant changes in a
/// way an older caller would misread. A caller checks it against the `ARBOR_ABI_VERSION`
/// it was built with.
pub const ARBOR_ABI_VERSION: u32 = 1;

/// The ABI version of the library loaded (`ARBOR_ABI_VERSION` of its build).
#[unsafe(no_mangle)]
pub extern "C" fn arbor_abi_version() -> u32 {
    ARBOR_ABI_VERSION
}
