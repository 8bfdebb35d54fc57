//! Delay (SEMANTICS.md §3.3.1): enters its child at once, and lets the leaves below it
//! execute only once `seconds` have passed since its entry (BehaviorTree.CPP's Delay). It
//! gates execution as a Regulator does: the leaves below it stay running, their guards
//! checked, until it allows them.
//!
//! Per instance: a branch's record and a timer: the clock when it was entered.

use super::{Act, Build, Def, EPS, Needs, Next, Param, Run, amount_setting, clocked};
use crate::model::{Category, FieldSpec, FieldType, KindSpec, Node, Value};
use crate::runtime::Status;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Delay {
    pub seconds: Param<f64>,
}

impl Def for Delay {
    fn specs() -> Vec<KindSpec> {
        vec![KindSpec::new(
            "Delay",
            Category::Decorator,
            "Lets the actions below it execute only once `seconds` have passed since it was entered.",
            vec![FieldSpec::new(
                "seconds",
                FieldType::non_negative(),
                Value::Float(1.0),
                "How long its child waits before its actions execute.",
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

    fn regulates(self) -> bool {
        true
    }

    /// Whether the leaves below Delay `r` may execute in this step: once the clock has
    /// gone `seconds` past its entry (within 1e-9).
    fn allows(self, x: &mut impl Run, r: u32, _: f64) -> bool {
        x.clock() - x.timer(r) >= self.seconds.get(x) - EPS
    }

    fn next(self, _: u32, _: u32, s: Status) -> Option<Next> {
        Some(Next::Finish(s))
    }
}
