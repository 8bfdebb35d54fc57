//! Cooldown (SEMANTICS.md §3.3.1): enters its child and reports its result; when entered again
//! less than `seconds` after its child last finished, it fails at once without entering
//! the child.
//!
//! Per instance: a branch's record, whose cursor says whether a finish was recorded
//! ([`RECORDED`]), and a timer: the clock when the child last finished. Neither is
//! touched by a reset, so the record survives the run's completion and every reset.

use super::{Act, Build, Def, EPS, Needs, Param, Run, amount_setting, only_child};
use crate::model::{Category, FieldSpec, FieldType, KindSpec, Node, Value};
use crate::runtime::Status;

/// Cursor bit: the child finished at least once; the timer holds when.
const RECORDED: u32 = 1;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Cooldown {
    pub seconds: Param<f64>,
}

impl Def for Cooldown {
    fn specs() -> Vec<KindSpec> {
        vec![KindSpec::new(
            "Cooldown",
            Category::Decorator,
            "Fails at once when entered again less than `seconds` after its child finished.",
            vec![FieldSpec::new(
                "seconds",
                FieldType::positive(),
                Value::Float(1.0),
                "Seconds after the child finished before it may run again.",
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
        if x.cursor(n) & RECORDED != 0 && x.clock() - x.timer(n) < self.seconds.get(x) - EPS {
            return Act::Done(Status::Failure);
        }
        only_child(x, n)
    }

    fn react(self, x: &mut impl Run, n: u32, s: Status) -> Act {
        // A child skipped ran nothing: nothing is recorded (SEMANTICS.md §3.7).
        if s == Status::Skipped {
            return Act::Done(s);
        }
        *x.timer_mut(n) = x.clock();
        *x.cursor_mut(n) |= RECORDED;
        Act::Done(s)
    }
}
