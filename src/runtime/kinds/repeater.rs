//! Repeater (SEMANTICS.md §3.3): re-enters its child, its subtree reset, after each success until
//! the child has run `times` times (0: for ever), then succeeds; a failure ends it, unless
//! `ignore_failures`. Also the loop the other repeating decorators share ([`again`]).
//!
//! Per instance: a branch's record, whose cursor counts the runs; a word: the step the
//! child's current run began (a forever loop stalls rather than begin two runs in one
//! step, SEMANTICS.md §3.6).

use super::{Act, Build, Def, Needs, Param, Run, count_setting, flag_setting, only_child};
use crate::model::{Category, FieldSpec, FieldType, KindSpec, Node, Repeats, Runs, Value};
use crate::runtime::Status;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Repeater {
    pub times: Param<u64>,
    pub ignore_failures: Param<bool>,
}

impl Def for Repeater {
    fn specs() -> Vec<KindSpec> {
        vec![
            KindSpec::new(
                "Repeater",
                Category::Decorator,
                "Runs its child again after each success, `times` runs in all (0: for ever).",
                vec![
                    FieldSpec::new(
                        "times",
                        FieldType::Int {
                            min: 0,
                            max: i64::MAX,
                        },
                        Value::Int(0),
                        "How many runs of the child; 0 repeats for ever.",
                    ),
                    FieldSpec::new(
                        "ignore_failures",
                        FieldType::Bool,
                        Value::Bool(false),
                        "Count a failed run as a run instead of failing.",
                    ),
                ],
            )
            .with_runs(Runs {
                repeats: Repeats::WhenZero("times"),
                ..Runs::default()
            }),
        ]
    }

    fn build(node: &Node, b: &mut Build<'_>) -> Self {
        Self {
            times: b.param(node, "times", count_setting),
            ignore_failures: b.param(node, "ignore_failures", flag_setting),
        }
    }

    fn needs(self) -> Needs {
        LOOP
    }

    fn enter(self, x: &mut impl Run, n: u32) -> Act {
        begin(x, n)
    }

    fn react(self, x: &mut impl Run, n: u32, s: Status) -> Act {
        if s == Status::Skipped || s == Status::Failure && !self.ignore_failures.get(x) {
            return Act::Done(s);
        }
        let times = self.times.get(x);
        let runs = x.cursor_mut(n);
        *runs = runs.saturating_add(1);
        if times > 0 && u64::from(*runs) >= times {
            return Act::Done(Status::Success);
        }
        again(x, n, times == 0)
    }
}

/// What a loop keeps: a branch's record (its cursor a count) and a word (the step the
/// child's run began).
pub(super) const LOOP: Needs = Needs {
    records: 2,
    word: true,
    timer: false,
};

/// A loop is entered: no runs yet, and its child's first run begins now.
pub(super) fn begin(x: &mut impl Run, n: u32) -> Act {
    *x.cursor_mut(n) = 0;
    *x.word_mut(n) = x.step_number();
    only_child(x, n)
}

/// A loop runs its child again, the child's subtree reset. A loop with no bound (`forever`)
/// whose child's run began in this step stalls instead (SEMANTICS.md §3.6).
pub(super) fn again(x: &mut impl Run, n: u32, forever: bool) -> Act {
    let step = x.step_number();
    if forever && x.word(n) == step {
        x.stall(n);
        return Act::Unwind;
    }
    *x.word_mut(n) = step;
    let Some(&child) = x.kids(n).first() else {
        return Act::Done(Status::Failure);
    };
    x.reset_subtree(child);
    Act::Enter(child)
}
