//! Regulator (SEMANTICS.md §3.3): lets the leaves below it execute at most `hz` times per
//! simulated second. The first step with a ready leaf below it is allowed; after that each
//! step with ready leaves adds `dt`, and a step is allowed once the sum reaches `1/hz`.
//!
//! Per instance: a branch's record, whose cursor holds [`FIRST`] and [`ALLOWED`]; a timer
//! (the sum); a word: the step its permission was last decided.

use super::{Act, Build, Def, EPS, Needs, Next, Param, Run, only_child};
use crate::model::{Category, FieldSpec, FieldType, KindSpec, Node, Value};
use crate::runtime::Status;

/// Cursor bit: the next step with a ready leaf is allowed at once.
const FIRST: u32 = 1;
/// Cursor bit: this step is allowed.
const ALLOWED: u32 = 2;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Regulator {
    /// Seconds between allowed steps: `1/hz`.
    pub period: Param<f64>,
}

impl Def for Regulator {
    fn specs() -> Vec<KindSpec> {
        vec![KindSpec::new(
            "Regulator",
            Category::Decorator,
            "Lets the actions below it execute at most `hz` times per simulated second.",
            vec![FieldSpec::new(
                "hz",
                FieldType::positive(),
                Value::Float(10.0),
                "Executions per second.",
            )],
        )]
    }

    fn build(node: &Node, b: &mut Build<'_>) -> Self {
        Self {
            period: b.param(node, "hz", |v| 1.0 / v.as_f64().unwrap_or_default()),
        }
    }

    fn needs(self) -> Needs {
        Needs {
            records: 2,
            word: true,
            timer: true,
        }
    }

    fn enter(self, x: &mut impl Run, n: u32) -> Act {
        *x.timer_mut(n) = 0.0;
        *x.cursor_mut(n) = FIRST;
        only_child(x, n)
    }

    fn regulates(self) -> bool {
        true
    }

    /// Whether Regulator `r` lets a ready leaf below it execute in this step (decided once
    /// per step, by the first ready leaf that asks).
    fn allows(self, x: &mut impl Run, r: u32, dt: f64) -> bool {
        let step = x.step_number();
        if x.word(r) != step {
            let period = self.period.get(x);
            let first = x.cursor(r) & FIRST != 0;
            let timer = x.timer_mut(r);
            let allowed = if first {
                *timer = 0.0;
                true
            } else {
                *timer += dt;
                if *timer >= period - EPS {
                    *timer = 0.0;
                    true
                } else {
                    false
                }
            };
            *x.word_mut(r) = step;
            *x.cursor_mut(r) = if allowed { ALLOWED } else { 0 };
        }
        x.cursor(r) & ALLOWED != 0
    }

    fn next(self, _: u32, _: u32, s: Status) -> Option<Next> {
        Some(Next::Finish(s))
    }
}
