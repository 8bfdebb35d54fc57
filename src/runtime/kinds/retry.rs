//! Retry (SEMANTICS.md §3.3.1): re-enters its child, its subtree reset, after each failure until
//! the child has failed `times` times in all (0: for ever), then fails; a success ends it
//! with success. Per instance: what every loop keeps (see `repeater`), its cursor counting
//! the failed runs.

use super::repeater::{LOOP, again, begin};
use super::{Act, Build, Def, Needs, Param, Run, count_setting};
use crate::model::{Category, FieldSpec, FieldType, KindSpec, Node, Repeats, Runs, Value};
use crate::runtime::Status;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Retry {
    pub times: Param<u64>,
}

impl Def for Retry {
    fn specs() -> Vec<KindSpec> {
        vec![KindSpec::new(
            "Retry",
            Category::Decorator,
            "Runs its child again after each failure, until it succeeds or has failed `times` times (0: for ever).",
            vec![FieldSpec::new(
                "times",
                FieldType::Int {
                    min: 0,
                    max: i64::MAX,
                },
                Value::Int(3),
                "How many failed runs before it fails; 0 retries for ever.",
            )],
        )
        .with_runs(Runs {
            repeats: Repeats::WhenZero("times"),
            ..Runs::default()
        })]
    }

    fn build(node: &Node, b: &mut Build<'_>) -> Self {
        Self {
            times: b.param(node, "times", count_setting),
        }
    }

    fn needs(self) -> Needs {
        LOOP
    }

    fn enter(self, x: &mut impl Run, n: u32) -> Act {
        begin(x, n)
    }

    fn react(self, x: &mut impl Run, n: u32, s: Status) -> Act {
        if s == Status::Success || s == Status::Skipped {
            return Act::Done(s);
        }
        let times = self.times.get(x);
        let failures = x.cursor_mut(n);
        *failures = failures.saturating_add(1);
        if times > 0 && u64::from(*failures) >= times {
            return Act::Done(Status::Failure);
        }
        again(x, n, times == 0)
    }
}
