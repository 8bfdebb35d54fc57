//! Parallel (SEMANTICS.md §3.3): enters all its children at once, in slot order, and finishes by
//! its success and failure policies, aborting the children still running.
//!
//! Per instance: a branch's record, whose cursor counts the children finished, and a
//! word counting those that succeeded (and, from bit 32, those skipped).

use super::{Act, Build, Def, Needs, Param, Run};
use crate::model::{Category, FieldSpec, KindSpec, Node, Runs, Value};
use crate::runtime::Status;

/// A skipped child, in its word (below it, the children that succeeded).
const SKIPPED: u64 = 1 << 32;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Parallel {
    /// Success policy: all children (else one).
    pub all_succeed: Param<bool>,
    /// Failure policy: all children (else one).
    pub all_fail: Param<bool>,
}

impl Def for Parallel {
    fn specs() -> Vec<KindSpec> {
        let choice = |a: &str, b: &str| crate::model::FieldType::Enum(vec![a.into(), b.into()]);
        vec![
            KindSpec::new(
                "Parallel",
                Category::Composite,
                "Runs all children at once; finishes by its success and failure policies.",
                vec![
                    FieldSpec::new(
                        "success",
                        choice("all", "one"),
                        Value::Text("all".into()),
                        "Succeed when all children, or one child, succeeded.",
                    ),
                    FieldSpec::new(
                        "failure",
                        choice("one", "all"),
                        Value::Text("one".into()),
                        "Fail when one child, or all children, failed.",
                    ),
                ],
            )
            .with_runs(Runs {
                all_at_once: true,
                ..Runs::default()
            }),
        ]
    }

    fn build(node: &Node, b: &mut Build<'_>) -> Self {
        Self {
            all_succeed: b.param(node, "success", |v| {
                f64::from(u8::from(v.as_str() != Some("one")))
            }),
            all_fail: b.param(node, "failure", |v| {
                f64::from(u8::from(v.as_str() == Some("all")))
            }),
        }
    }

    fn needs(self) -> Needs {
        Needs {
            word: true,
            ..Needs::BRANCH
        }
    }

    fn enter(self, x: &mut impl Run, n: u32) -> Act {
        *x.cursor_mut(n) = 0;
        *x.word_mut(n) = 0;
        if x.kids(n).is_empty() {
            // Validation refuses a composite without children.
            return Act::Done(Status::Failure);
        }
        Act::EnterAll
    }

    /// Counts a finished child; when that decides it, aborts the children still running.
    /// A skipped child counts towards `all` succeeding, and when every child was skipped,
    /// so is it (SEMANTICS.md §3.7).
    fn react(self, x: &mut impl Run, n: u32, s: Status) -> Act {
        let total = x.kids(n).len() as u32;
        *x.cursor_mut(n) += 1;
        match s {
            Status::Success => *x.word_mut(n) += 1,
            Status::Skipped => *x.word_mut(n) += SKIPPED,
            _ => {}
        }
        let (done, word) = (x.cursor(n), x.word(n));
        let (succeeded, skipped) = ((word % SKIPPED) as u32, (word / SKIPPED) as u32);
        let failed = done - succeeded - skipped;
        let success_holds = s != Status::Failure
            && if self.all_succeed.get(x) {
                succeeded + skipped == total
            } else {
                succeeded >= 1
            };
        let failure_holds = s == Status::Failure
            && if self.all_fail.get(x) {
                failed == total
            } else {
                failed >= 1
            };
        let result = if success_holds {
            Status::Success
        } else if skipped == total {
            Status::Skipped
        } else if failure_holds || done >= total {
            // A failure policy holds, or every child finished and no policy does.
            Status::Failure
        } else {
            return Act::Running;
        };
        x.abort_below(n);
        Act::Done(result)
    }
}
