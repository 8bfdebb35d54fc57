//! RunOnce (SEMANTICS.md §3.3.1): runs its child the first time it is entered and reports its
//! result; every later entry reports that same result at once, without entering the
//! child, or, with `then_skip`, is skipped. A first run that was aborted or skipped did not
//! finish: the next entry runs the child.
//!
//! Per instance: a branch's record, whose cursor holds [`SUCCEEDED`] or [`FAILED`] once
//! the child finished. A reset does not touch it, so the result survives the run's
//! completion and every reset.

use super::{Act, Build, Def, Run, only_child};
use crate::model::{Category, FieldSpec, FieldType, KindSpec, Node, Value};
use crate::runtime::Status;

/// Cursor: the child's first run succeeded.
const SUCCEEDED: u32 = 1;
/// Cursor: the child's first run failed.
const FAILED: u32 = 2;

#[derive(Clone, Copy, Debug)]
pub(crate) struct RunOnce {
    /// After the first run, it is skipped instead of reporting that run's result.
    then_skip: bool,
}

impl Def for RunOnce {
    fn specs() -> Vec<KindSpec> {
        vec![KindSpec::new(
            "RunOnce",
            Category::Decorator,
            "Runs its child the first time; after that reports the same result at once, or is skipped.",
            vec![FieldSpec::new(
                "then_skip",
                FieldType::Bool,
                Value::Bool(false),
                "After the first run, be skipped instead of reporting its result again.",
            )],
        )]
    }

    fn build(node: &Node, b: &mut Build<'_>) -> Self {
        Self {
            then_skip: b.flag(node, "then_skip"),
        }
    }

    fn enter(self, x: &mut impl Run, n: u32) -> Act {
        match x.cursor(n) {
            SUCCEEDED | FAILED if self.then_skip => Act::Done(Status::Skipped),
            SUCCEEDED => Act::Done(Status::Success),
            FAILED => Act::Done(Status::Failure),
            _ => only_child(x, n),
        }
    }

    fn react(self, x: &mut impl Run, n: u32, s: Status) -> Act {
        match s {
            Status::Success => *x.cursor_mut(n) = SUCCEEDED,
            Status::Failure => *x.cursor_mut(n) = FAILED,
            _ => {}
        }
        Act::Done(s)
    }
}
