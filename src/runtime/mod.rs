//! The runtime: a tree compiled once into an immutable [`Program`], run by one
//! [`Instance`] per agent, step by step, exactly as SEMANTICS.md §3 describes.
//!
//! Leaf behaviour comes through the [`Action`] and [`Condition`] traits, registered by kind
//! name in [`Behaviours`]; the simulated world and embedding games implement them. The
//! runtime is generic over the game's agent type `A`, which every behaviour receives.
//!
//! The modules sit in layers; each names only modules of the layers below it:
//!
//! 1. [`Status`] (here), `trace` (events), then `binary_trace` (their binary encoding);
//!    `behaviour` (the behaviour traits and the context), then `mocks` (the built-in
//!    behaviours), `stand_in` (stand-ins, which play the mocks' scripts), `bound` (fields
//!    bound to keys, read at entry), `hooks` (a node's `_failureIf` … scripts) and `slab`
//!    (the actions' storage), then `registry` (the behaviours by kind name);
//! 2. `node`: what a node kind sees of the runtime (the `Run` trait) and the small types
//!    the kinds, the compiler and the lifecycle share;
//! 3. `kinds`: one module per kind, written against `node`;
//! 4. `program`: the compiler and the compiled tree, from the kinds' definitions;
//! 5. `state`: what an instance keeps of its run besides its block, with named methods;
//! 6. `exec`: the lifecycle, which implements `node::Run` for the kinds;
//! 7. `instance`: an agent's instance, whose `step` runs the lifecycle.

mod behaviour;
mod binary_trace;
mod bound;
mod exec;
mod hooks;
mod instance;
mod kinds;
mod mocks;
mod node;
mod program;
mod registry;
pub(crate) mod script;
mod set_key;
mod slab;
mod stand_in;
mod state;
mod trace;

pub use behaviour::{
    Action, CondIo, Condition, Context, CtxValue, KeyError, KeyId, LeafIo, NodeSpec, Outcome,
    Output,
};
pub(crate) use binary_trace::code as binary_code;
pub use binary_trace::{
    BINARY_TRACE_EXTENSION, BINARY_TRACE_MAGIC, BINARY_TRACE_VERSION, BinaryTrace,
    MAX_TRACE_STRINGS, TraceEncoding, TraceWriter,
};
pub use instance::{Instance, step_all, step_all_on};
pub use kinds::leaf::MAX_DURATION;
pub(crate) use kinds::structure_specs;
pub(crate) use mocks::specs as mock_specs;
pub use program::{CompileError, MAX_DEPTH, Program};
pub use registry::Behaviours;
pub(crate) use script::specs as script_specs;
pub(crate) use set_key::specs as set_key_specs;
pub use stand_in::{StandInKind, StandIns};
pub use state::{NodeState, NodeStateOf, RunStats};
pub(crate) use trace::format_event;
pub use trace::{
    Counts, Event, EventKind, EventKindOf, JsonlTrace, MAX_TRACE_HEADER, Observer, Reason,
    TRACE_VERSION, TraceHeader, TracedAgent, TracedFile, ValueOf,
};

use std::fmt;

/// The status of a node in a run. One byte each, with fixed values: an instance finds
/// the running nodes among eight statuses at once by their bytes (`running_window`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Status {
    /// Not entered since the last reset.
    #[default]
    Idle = 0,
    /// Entered and not finished.
    Running = 1,
    /// Finished with success.
    Success = 2,
    /// Finished with failure.
    Failure = 3,
    /// Stopped from outside before it finished.
    Aborted = 4,
    /// Skipped (SEMANTICS.md §3.7): passed over without running (its `_skipIf` held, its
    /// `_while` did not), halted while it ran because its `_while` stopped holding, or made
    /// of children that all were skipped: its parent goes on as its kind's rule for a
    /// skipped child says.
    Skipped = 5,
}

impl Status {
    /// The word used in traces.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Idle => "idle",
            Status::Running => "running",
            Status::Success => "success",
            Status::Failure => "failure",
            Status::Aborted => "aborted",
            Status::Skipped => "skipped",
        }
    }

    /// Success or failure (a skipped node did not finish: it ran nothing, or was halted).
    pub fn is_finished(self) -> bool {
        matches!(self, Status::Success | Status::Failure)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
