//! IfThenElse and WhileDoElse (SEMANTICS.md §3.3): a composite of two or three children
//! whose first decides which of the others runs: the second when it succeeds, the third
//! (or a failure, without one) when it fails; the one that runs decides the result.
//! WhileDoElse is reactive: while its second or third child runs, it enters its first
//! again at every step, and switches when the answer changes (the lifecycle does that,
//! by the rule of [`Def::next`]).
//!
//! Per instance: a branch's record, whose cursor is the slot of the running child.

use super::{Act, Build, Def, Next, Run, opening};
use crate::model::{Category, KindSpec, Node, Runs};
use crate::runtime::Status;

#[derive(Clone, Copy, Debug)]
pub(crate) struct IfThenElse {
    /// WhileDoElse: it checks its first child again at every step.
    pub reactive: bool,
}

impl Def for IfThenElse {
    fn specs() -> Vec<KindSpec> {
        let runs = Runs {
            children: Some((2, 3)),
            ..Runs::default()
        };
        vec![
            KindSpec::new(
                "IfThenElse",
                Category::Composite,
                "Runs its second child if its first succeeds, else its third (or fails without one).",
                vec![],
            )
            .with_runs(runs),
            KindSpec::new(
                "WhileDoElse",
                Category::Composite,
                "An IfThenElse that checks its first child again at every step and switches when the answer changes.",
                vec![],
            )
            .with_runs(runs),
        ]
    }

    fn serves(name: &str, _: Category) -> bool {
        matches!(name, "IfThenElse" | "WhileDoElse")
    }

    fn build(node: &Node, _: &mut Build<'_>) -> Self {
        Self {
            reactive: node.kind == "WhileDoElse",
        }
    }

    fn reactive(self) -> bool {
        self.reactive
    }

    /// Its first child (none: failure; validation refuses that).
    fn first(self, count: u32) -> Option<Next> {
        Some(opening(count, Status::Failure))
    }

    #[inline(always)]
    fn react(self, x: &mut impl Run, n: u32, s: Status) -> Act {
        match self.next(x.cursor(n), x.kids(n).len() as u32, s) {
            Some(Next::Child(at)) => {
                *x.cursor_mut(n) = at;
                Act::Enter(x.kids(n)[at as usize])
            }
            Some(Next::Finish(s)) => Act::Done(s),
            None => Act::Running,
        }
    }

    /// The first child's success enters the second, its failure the third (without one:
    /// failure); the second's or third's result is its own.
    fn next(self, at: u32, count: u32, s: Status) -> Option<Next> {
        Some(match (at, s) {
            (0, Status::Success) if count > 1 => Next::Child(1),
            // A first child skipped decides nothing: it is skipped too.
            (0, Status::Skipped) => Next::Finish(Status::Skipped),
            (0, _) if s != Status::Success && count > 2 => Next::Child(2),
            (0, _) => Next::Finish(Status::Failure),
            (_, s) => Next::Finish(s),
        })
    }
}
