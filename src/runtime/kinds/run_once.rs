//! RunOnce (SEMANTICS.md §3.3.1): runs its child the first time it is entered and reports its
//! result; every later entry reports that same result at once, without entering the
//! child. A first run that was aborted did not finish: the next entry runs the child.
//!
//! Per instance: a branch's record, whose cursor holds [`SUCCEEDED`] or [`FAILED`] once
//! the child finished. A reset does not touch it, so the result survives the run's
//! completion and every reset.

use super::{Act, Build, Def, Run, only_child};
use crate::model::{Category, KindSpec, Node};
use crate::runtime::Status;

/// Cursor: the child's first run succeeded.
const SUCCEEDED: u32 = 1;
/// Cursor: the child's first run failed.
const FAILED: u32 = 2;

#[derive(Clone, Copy, Debug)]
pub(crate) struct RunOnce;

impl Def for RunOnce {
    fn specs() -> Vec<KindSpec> {
        vec![KindSpec::new(
            "RunOnce",
            Category::Decorator,
            "Runs its child the first time; after that reports the same result at once.",
            vec![],
        )]
    }

    fn build(_: &Node, _: &mut Build<'_>) -> Self {
        Self
    }

    fn enter(self, x: &mut impl Run, n: u32) -> Act {
        match x.cursor(n) {
            SUCCEEDED => Act::Done(Status::Success),
            FAILED => Act::Done(Status::Failure),
            _ => only_child(x, n),
        }
    }

    fn react(self, x: &mut impl Run, n: u32, s: Status) -> Act {
        *x.cursor_mut(n) = if s == Status::Success {
            SUCCEEDED
        } else {
            FAILED
        };
        Act::Done(s)
    }
}
