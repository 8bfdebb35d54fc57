//! SubTree (SEMANTICS.md §3.3): a branch whose only child is another tree's Root child,
//! compiled in with its own node states. It reports its child's result.

use super::{Build, Def, Next};
use crate::model::{Category, FieldSpec, FieldType, KindSpec, Node, Value};
use crate::runtime::Status;

#[derive(Clone, Copy, Debug)]
pub(crate) struct SubTree;

impl Def for SubTree {
    fn specs() -> Vec<KindSpec> {
        vec![KindSpec::new(
            "SubTree",
            Category::SubTree,
            "Runs the Root child of another tree file as this branch's child.",
            vec![
                FieldSpec::required(
                    "asset",
                    FieldType::Asset,
                    "The tree file to run, relative to this file; FILE.xml#ID or #ID: a tree of a BehaviorTree.CPP file.",
                ),
                FieldSpec::new(
                    "autoremap",
                    FieldType::Bool,
                    Value::Bool(false),
                    "Share every key of the asset with this tree by name, not only its parameters (not set: shared when this tree declares no keys).",
                ),
            ],
        )]
    }

    fn build(_: &Node, _: &mut Build<'_>) -> Self {
        Self
    }

    fn first(self, count: u32) -> Option<Next> {
        super::only_child_first(count)
    }

    fn next(self, _: u32, _: u32, s: Status) -> Option<Next> {
        Some(Next::Finish(s))
    }
}
