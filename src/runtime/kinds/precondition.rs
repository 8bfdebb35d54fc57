//! Precondition (SEMANTICS.md §3.3.1, BehaviorTree.CPP's Precondition): checks its `if`, a
//! condition in the script language, as it is entered; when it holds, runs its child and
//! reports the child's result, else finishes at once with `else`. While its child runs it
//! does not check again.
//!
//! Per instance: a branch's record (its cursor is unused).

use super::{Act, Build, Def, Next, Run, only_child};
use crate::model::{Category, FieldSpec, FieldType, KindSpec, Node, Value};
use crate::runtime::Status;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Precondition {
    /// Its `if`, among the program's scripts.
    script: u32,
    /// Its result when `if` does not hold.
    otherwise: Status,
}

impl Def for Precondition {
    fn specs() -> Vec<KindSpec> {
        vec![KindSpec::new(
            "Precondition",
            Category::Decorator,
            "Runs its child when its condition holds as it is entered, else finishes at once with `else`.",
            vec![
                FieldSpec::new(
                    "if",
                    FieldType::Expression,
                    Value::Text("true".into()),
                    "The condition, checked as the node is entered: keys, numbers, 'text', comparisons, && || !.",
                ),
                FieldSpec::new(
                    "else",
                    FieldType::Enum(vec!["FAILURE".into(), "SUCCESS".into(), "SKIPPED".into()]),
                    Value::Text("FAILURE".into()),
                    "The result when the condition does not hold.",
                ),
            ],
        )]
    }

    fn build(node: &Node, b: &mut Build<'_>) -> Self {
        Self {
            script: b.script(node, "if"),
            otherwise: match b.catalog.text(node, "else") {
                "SUCCESS" => Status::Success,
                "SKIPPED" => Status::Skipped,
                _ => Status::Failure,
            },
        }
    }

    fn enter(self, x: &mut impl Run, n: u32) -> Act {
        if x.script_holds(self.script) {
            only_child(x, n)
        } else {
            Act::Done(self.otherwise)
        }
    }

    /// Its child's result is its own.
    fn next(self, _: u32, _: u32, s: Status) -> Option<Next> {
        Some(Next::Finish(s))
    }
}
