//! Inverter (SEMANTICS.md §3.3): swaps its child's success and failure.

use super::{Build, Def, Next};
use crate::model::{Category, KindSpec, Node};
use crate::runtime::Status;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Inverter;

impl Def for Inverter {
    fn specs() -> Vec<KindSpec> {
        vec![KindSpec::new(
            "Inverter",
            Category::Decorator,
            "Swaps its child's success and failure.",
            vec![],
        )]
    }

    fn build(_: &Node, _: &mut Build<'_>) -> Self {
        Self
    }

    fn first(self, count: u32) -> Option<Next> {
        super::only_child_first(count)
    }

    fn next(self, _: u32, _: u32, s: Status) -> Option<Next> {
        Some(Next::Finish(match s {
            Status::Success => Status::Failure,
            Status::Failure => Status::Success,
            other => other,
        }))
    }
}
