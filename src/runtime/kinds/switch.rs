//! Switch2 … Switch6 (SEMANTICS.md §3.3): a composite of N cases and a default, BehaviorTree.CPP's
//! SwitchN. Its `variable` is compared with its cases `case_1` … `case_N` in order; the
//! child of the first that matches runs (the child in the case's slot), else the last
//! child, the default. Its result is that child's. It is reactive: entered again at every
//! step while a child runs (the lifecycle does that, asking [`Def::again`]), it compares
//! again and, when another case matches now, enters that case's child and aborts the one
//! that ran (which runs on when the choice is the same).
//!
//! Per instance: a branch's record, whose cursor is the slot of the running child.

use std::sync::Arc;

use super::{Act, Build, Def, Next, Run};
use crate::model::{Category, FieldSpec, FieldType, KindSpec, Node, Runs};
use crate::runtime::Status;
use crate::runtime::node::Operand;

/// The most cases (BehaviorTree.CPP's Switch6).
const MAX_CASES: u32 = 6;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Switch {
    /// Its variable's place among the program's operands; its cases follow it.
    from: u32,
    /// How many cases it has.
    cases: u32,
}

/// The number of cases of Switch kind `name` (`Switch3`: 3).
fn cases_of(name: &str) -> Option<u32> {
    let n: u32 = name.strip_prefix("Switch")?.parse().ok()?;
    (2..=MAX_CASES).contains(&n).then_some(n)
}

impl Def for Switch {
    fn specs() -> Vec<KindSpec> {
        (2..=MAX_CASES)
            .map(|n| {
                let mut fields = vec![FieldSpec::optional(
                    "variable",
                    FieldType::Scalar,
                    "The value compared with the cases: a text or a number, or a key's value (none: the default runs).",
                )];
                fields.extend((1..=n).map(|i| {
                    FieldSpec::optional(
                        &format!("case_{i}"),
                        FieldType::Scalar,
                        &format!(
                            "When the variable equals this (as text, or as numbers), child {i} runs (none: never)."
                        ),
                    )
                }));
                KindSpec::new(
                    &format!("Switch{n}"),
                    Category::Composite,
                    &format!(
                        "Runs the child of the first of its {n} cases that equals its variable, else its last child (the default); checks again at every step and switches when the answer changes."
                    ),
                    fields,
                )
                .with_runs(Runs {
                    children: Some((n as usize + 1, n as usize + 1)),
                    ..Runs::default()
                })
            })
            .collect()
    }

    fn serves(name: &str, _: Category) -> bool {
        cases_of(name).is_some()
    }

    fn build(node: &Node, b: &mut Build<'_>) -> Self {
        let cases = cases_of(&node.kind).unwrap_or(MAX_CASES);
        let from = b.operand(node, "variable");
        for i in 1..=cases {
            b.operand(node, &format!("case_{i}"));
        }
        Self { from, cases }
    }

    fn reactive(self) -> bool {
        true
    }

    fn reselects(self) -> bool {
        true
    }

    fn enter(self, x: &mut impl Run, n: u32) -> Act {
        match self.again(x, n) {
            Some(Next::Child(slot)) => {
                *x.cursor_mut(n) = slot;
                Act::Enter(x.kids(n)[slot as usize])
            }
            // Validation refuses a Switch without its children; such a one fails.
            _ => Act::Done(Status::Failure),
        }
    }

    /// The child of the first case that matches, else the default.
    fn again(self, x: &impl Run, n: u32) -> Option<Next> {
        let slot = self.choice(x);
        ((slot as usize) < x.kids(n).len()).then_some(Next::Child(slot))
    }

    #[inline(always)]
    fn react(self, x: &mut impl Run, n: u32, s: Status) -> Act {
        let _ = (x, n);
        Act::Done(s)
    }

    /// The child that ran decides.
    fn next(self, _: u32, _: u32, s: Status) -> Option<Next> {
        Some(Next::Finish(s))
    }
}

impl Switch {
    /// The slot of the child to run now: the first case equal to the variable, else the
    /// default (the slot after the cases).
    fn choice(self, x: &impl Run) -> u32 {
        let ops = x.operands(self.from, self.from + 1 + self.cases);
        let Some(variable) = value(x, &ops[0]) else {
            return self.cases;
        };
        let number = |t: &str| number(t).or_else(|| x.enum_value(t).map(|v| v as f64));
        ops[1..]
            .iter()
            .position(|case| value(x, case).is_some_and(|c| equal(&variable, &c, number)))
            .map_or(self.cases, |i| i as u32)
    }
}

/// An operand's value as text: a key's value (a number as the script language writes it,
/// true and false as 1 and 0); `None` for a key with no value, or one of an entity or a
/// position, and for an operand left unset.
fn value(x: &impl Run, op: &Operand) -> Option<Arc<str>> {
    match op {
        Operand::Text(t) => Some(t.clone()),
        Operand::Key(k) => Operand::text_of(x.context().get(*k)?),
        Operand::None => None,
    }
}

/// BehaviorTree.CPP's comparison of a Switch's texts: the same text, or two numbers
/// within a float's epsilon, each text read as a number by `number` (which reads the
/// project's enums too).
fn equal(a: &str, b: &str, number: impl Fn(&str) -> Option<f64>) -> bool {
    a == b
        || matches!((number(a), number(b)), (Some(x), Some(y)) if (x - y).abs() <= f64::from(f32::EPSILON))
}

/// A text that is a number, written as BehaviorTree.CPP reads one: an optional `-`,
/// digits, a fraction, an exponent (no sign `+`, spaces, `inf` or `nan`).
fn number(t: &str) -> Option<f64> {
    let body = t.strip_prefix('-').unwrap_or(t);
    if !body.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return None;
    }
    t.parse::<f64>().ok().filter(|n| n.is_finite())
}

#[cfg(test)]
mod tests {
    use super::{equal, number};

    #[test]
    fn texts_match_as_texts_or_as_numbers() {
        let equal = |a, b| equal(a, b, number);
        assert!(equal("patrol", "patrol"));
        assert!(!equal("patrol", "Patrol"));
        assert!(equal("3", "3.0"));
        assert!(equal("2.500000", "2.5"));
        assert!(!equal("3", "4"));
        assert_eq!(number("+3"), None);
        assert_eq!(number(" 3"), None);
        assert_eq!(number("inf"), None);
        assert_eq!(number("-0.5e1"), Some(-5.0));
    }
}
