//! ForceSuccess and ForceFailure (SEMANTICS.md §3.3): turn any finished result into theirs.

use super::{Build, Def, Next};
use crate::model::{Category, KindSpec, Node};
use crate::runtime::Status;

/// A ForceSuccess or a ForceFailure: the status it finishes with.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Force(Status);

impl Def for Force {
    fn specs() -> Vec<KindSpec> {
        vec![
            KindSpec::new(
                "ForceSuccess",
                Category::Decorator,
                "Succeeds whatever its child's result.",
                vec![],
            ),
            KindSpec::new(
                "ForceFailure",
                Category::Decorator,
                "Fails whatever its child's result.",
                vec![],
            ),
        ]
    }

    fn build(node: &Node, _: &mut Build<'_>) -> Self {
        Self(if node.kind == "ForceSuccess" {
            Status::Success
        } else {
            Status::Failure
        })
    }

    fn first(self, count: u32) -> Option<Next> {
        super::only_child_first(count)
    }

    /// Its status, whatever its child's (a child skipped: skipped).
    fn next(self, _: u32, _: u32, s: Status) -> Option<Next> {
        Some(Next::Finish(if s == Status::Skipped { s } else { self.0 }))
    }
}
