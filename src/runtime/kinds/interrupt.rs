//! Interrupt (SEMANTICS.md §3.4): a subtree started from outside by a trigger with its
//! `interrupt_id`. A trigger aborts what runs (`Exec::start_interrupt`) and enters it;
//! when its child finishes, the main tree restarts (`force_reset`) or resumes.
//!
//! Per instance: a branch's record.

use super::{Act, Build, Def, Next, Run};
use crate::model::{Category, KindSpec, Node};
use crate::runtime::Status;
use crate::runtime::behaviour::{CtxValue, KeyId};

#[derive(Clone, Copy, Debug)]
pub(crate) struct Interrupt {
    pub force_reset: bool,
    /// Where the trigger's payload goes.
    pub output: Option<KeyId>,
    pub overwrite: bool,
}

impl Def for Interrupt {
    fn specs() -> Vec<KindSpec> {
        vec![KindSpec::new(
            "Interrupt",
            Category::Interrupt,
            "A subtree started from outside by a trigger with its interrupt_id.",
            vec![],
        )]
    }

    fn build(node: &Node, b: &mut Build<'_>) -> Self {
        Self {
            force_reset: b.flag(node, "force_reset"),
            output: b.key(node, "out_context"),
            overwrite: b.flag(node, "overwrite_out"),
        }
    }

    /// The trigger's payload goes under `out_context` (unless the key holds a value and
    /// `overwrite_out` is off).
    fn triggered(self, x: &mut impl Run, n: u32, payload: Option<CtxValue>) {
        if let (Some(k), Some(v)) = (self.output, payload)
            && (self.overwrite || x.context().get(k).is_none())
        {
            x.store(n, k, v);
        }
    }

    fn first(self, count: u32) -> Option<Next> {
        super::only_child_first(count)
    }

    fn react(self, x: &mut impl Run, n: u32, s: Status) -> Act {
        x.interrupt_done(n, s, self.force_reset)
    }
}
