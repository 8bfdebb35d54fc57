//! An action leaf (SEMANTICS.md §3.1, §3.2): any kind registered as an action. Its catalog entry
//! comes with the behaviour registered for it; the fields every leaf has are
//! `max_duration`, `in_context`, `out_context` and `overwrite_out`.
//!
//! Per instance: an epoch word, whose lowest bit is its entered-now mark; a timer (its
//! time executed) when it has a `max_duration`; its input and what it produces, in the
//! instance's cold block, when it has `in_context` or `out_context`.
//!
//! What a leaf does as it runs (starts, executes, exits, hands over to its next sibling,
//! is aborted) is the lifecycle's leaf part, in `exec/leaf.rs`: it calls the action with
//! the I/O the compiled `LeafInfo` describes.

use super::{Act, Build, Def, Needs, Run};
use crate::model::{Category, KindSpec, Node};
use crate::runtime::behaviour::KeyId;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Leaf {
    pub max_duration: Option<f64>,
    pub input: Option<KeyId>,
    pub output: Option<KeyId>,
    pub overwrite: bool,
}

impl Def for Leaf {
    fn specs() -> Vec<KindSpec> {
        Vec::new()
    }

    fn serves(_: &str, category: Category) -> bool {
        category == Category::Leaf
    }

    fn build(node: &Node, b: &mut Build<'_>) -> Self {
        Self {
            max_duration: b.number(node, "max_duration"),
            input: b.key(node, "in_context"),
            output: b.key(node, "out_context"),
            overwrite: b.flag(node, "overwrite_out"),
        }
    }

    fn needs(self) -> Needs {
        Needs {
            records: 1,
            word: false,
            timer: self.max_duration.is_some(),
        }
    }

    /// Fetches its input (a missing key resets the tree), then `on_enter`; it is active
    /// from now on and executes from the next step.
    #[inline(always)]
    fn enter(self, x: &mut impl Run, n: u32) -> Act {
        x.enter_leaf(n)
    }
}

/// The reason given for a leaf failed by its `max_duration`.
pub const MAX_DURATION: &str = "max_duration";
