//! The runtime: a tree compiled once into an immutable [`Program`], run by one
//! [`Instance`] per agent, step by step, exactly as SEMANTICS.md §3 describes.
//!
//! Leaf behaviour comes through the [`Action`] and [`Condition`] traits, registered by kind
//! name in [`Behaviours`]; the simulated world and embedding games implement them. The
//! runtime is generic over the game's agent type `A`, which every behaviour receives.

mod behaviour;
mod exec;
mod instance;
mod kinds;
mod program;
mod slab;
mod stand_in;
mod trace;

pub use behaviour::{
    Action, Behaviours, CondIo, Condition, Context, CtxValue, KeyId, LeafIo, NodeSpec, Outcome,
};
pub use instance::{Instance, NodeState, RunStats, step_all};
pub use kinds::leaf::MAX_DURATION;
pub use program::{CompileError, MAX_DEPTH, Program};
pub use stand_in::{StandInKind, StandIns};
pub(crate) use trace::format_event;
pub use trace::{Event, EventKind, EventKindOf, JsonlTrace, Observer, Reason};

use std::fmt;

/// The status of a node in a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Status {
    /// Not entered since the last reset.
    #[default]
    Idle,
    /// Entered and not finished.
    Running,
    /// Finished with success.
    Success,
    /// Finished with failure.
    Failure,
    /// Stopped from outside before it finished.
    Aborted,
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
        }
    }

    /// Success or failure.
    pub fn is_finished(self) -> bool {
        matches!(self, Status::Success | Status::Failure)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
