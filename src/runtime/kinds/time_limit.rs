//! TimeLimit (SEMANTICS.md §3.3.1): enters its child and records the clock; once its child has
//! run `seconds`, it aborts everything below it and fails. It does so as a guard on
//! itself, checked in phase 2 after its own conditions (its `Def::deadline`: a
//! `Test::Deadline` on the path of each leaf below it, checked by `Exec::first_failing`).
//!
//! Per instance: a branch's record and a timer: the clock when it was entered.

use super::{Act, Build, Def, Needs, Next, Param, Run, amount_setting, clocked};
use crate::model::{Category, FieldSpec, FieldType, KindSpec, Node, Value};
use crate::runtime::Status;

#[derive(Clone, Copy, Debug)]
pub(crate) struct TimeLimit {
    pub seconds: Param<f64>,
}

impl Def for TimeLimit {
    fn specs() -> Vec<KindSpec> {
        vec![KindSpec::new(
            "TimeLimit",
            Category::Decorator,
            "Aborts its child and fails once the child has run `seconds`.",
            vec![FieldSpec::new(
                "seconds",
                FieldType::positive(),
                Value::Float(1.0),
                "The longest its child may run.",
            )],
        )]
    }

    fn build(node: &Node, b: &mut Build<'_>) -> Self {
        Self {
            seconds: b.param(node, "seconds", amount_setting),
        }
    }

    fn needs(self) -> Needs {
        Needs::TIMED
    }

    fn enter(self, x: &mut impl Run, n: u32) -> Act {
        clocked(x, n)
    }

    fn next(self, _: u32, _: u32, s: Status) -> Option<Next> {
        Some(Next::Finish(s))
    }

    fn deadline(self) -> Option<Param<f64>> {
        Some(self.seconds)
    }
}
