//! Root (SEMANTICS.md §3.3): the entry point. When its child reports, the run is complete: the
//! trace records it, every node is reset, the context is cleared, and Root is entered
//! again in the same step (or the tree stalls, SEMANTICS.md §3.6).
//!
//! Per instance: a branch's record, and a word: the step its run began.

use super::{Act, Build, Def, Needs, Run, only_child};
use crate::model::{Category, KindSpec, Node};
use crate::runtime::Status;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Root;

impl Def for Root {
    fn specs() -> Vec<KindSpec> {
        vec![KindSpec::new(
            "Root",
            Category::Root,
            "The entry point: runs its child again and again; holds the tree's Interrupts.",
            vec![],
        )]
    }

    fn build(_: &Node, _: &mut Build<'_>) -> Self {
        Self
    }

    fn needs(self) -> Needs {
        Needs {
            word: true,
            ..Needs::BRANCH
        }
    }

    #[inline(always)]
    fn enter(self, x: &mut impl Run, n: u32) -> Act {
        *x.word_mut(n) = x.step_number();
        match only_child(x, n) {
            // Validation refuses a Root without a child: such a tree does nothing.
            Act::Done(_) => Act::Running,
            act => act,
        }
    }

    fn react(self, x: &mut impl Run, _: u32, s: Status) -> Act {
        if x.root_complete(s) {
            Act::Again
        } else {
            Act::Unwind
        }
    }
}
