//! ForceSuccess and ForceFailure (SPEC §3.3): turn any finished result into theirs.

use super::{Act, Build, Def, Next};
use crate::model::{Category, KindSpec, Node};
use crate::runtime::Status;
use crate::runtime::exec::{Exec, Hooks};

#[derive(Clone, Copy, Debug)]
pub(crate) struct ForceSuccess;

#[derive(Clone, Copy, Debug)]
pub(crate) struct ForceFailure;

impl Def for ForceSuccess {
    fn specs() -> Vec<KindSpec> {
        vec![KindSpec::new(
            "ForceSuccess",
            Category::Decorator,
            "Succeeds whatever its child's result.",
            vec![],
        )]
    }

    fn build(_: &Node, _: &mut Build<'_>) -> Self {
        Self
    }

    fn first(self, count: u32) -> Option<Next> {
        super::only_child_first(count)
    }

    fn react<A, H: Hooks>(self, _: &mut Exec<'_, '_, A, H>, _: u32, s: Status) -> Act {
        super::finish_as(self.next(0, 1, s))
    }

    fn next(self, _: u32, _: u32, _: Status) -> Option<Next> {
        Some(Next::Finish(Status::Success))
    }
}

impl Def for ForceFailure {
    fn specs() -> Vec<KindSpec> {
        vec![KindSpec::new(
            "ForceFailure",
            Category::Decorator,
            "Fails whatever its child's result.",
            vec![],
        )]
    }

    fn build(_: &Node, _: &mut Build<'_>) -> Self {
        Self
    }

    fn first(self, count: u32) -> Option<Next> {
        super::only_child_first(count)
    }

    fn react<A, H: Hooks>(self, _: &mut Exec<'_, '_, A, H>, _: u32, s: Status) -> Act {
        super::finish_as(self.next(0, 1, s))
    }

    fn next(self, _: u32, _: u32, _: Status) -> Option<Next> {
        Some(Next::Finish(Status::Failure))
    }
}
