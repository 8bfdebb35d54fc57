//! LoopInt, LoopDouble, LoopString and LoopBool (SEMANTICS.md §3.3.1, BehaviorTree.CPP's
//! Loop nodes): a decorator that runs its child once for each element of its `queue`, the
//! element stored under the key its `value` is bound to before each run; a failure ends
//! it with failure, and once no element is left it finishes with `if_empty`.
//!
//! Per instance: a branch's record, whose cursor is the place of the next element; a word
//! (the step the child's run began, as the other loops keep it).

use super::repeater::{LOOP, again};
use super::{Act, Build, Def, Needs, Run, only_child};
use crate::model::{Category, FieldDirection, FieldSpec, FieldType, KindSpec, Node, Value};
use crate::runtime::Status;
use crate::runtime::behaviour::{CtxValue, KeyId};
use crate::runtime::node::Operand;

/// What the elements of a Loop's queue are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Element {
    Int,
    Double,
    String,
    Bool,
}

const KINDS: [(&str, Element, &str); 4] = [
    ("LoopInt", Element::Int, "whole numbers"),
    ("LoopDouble", Element::Double, "numbers"),
    ("LoopString", Element::String, "texts"),
    ("LoopBool", Element::Bool, "true or false"),
];

#[derive(Clone, Copy, Debug)]
pub(crate) struct QueueLoop {
    element: Element,
    /// Its `queue`, among the program's operands.
    queue: u32,
    /// The key its `value` is bound to (none: the elements go nowhere).
    value: Option<KeyId>,
    /// Its result once the queue has no element left.
    empty: Status,
}

impl Def for QueueLoop {
    fn specs() -> Vec<KindSpec> {
        KINDS
            .iter()
            .map(|(name, _, what)| {
                KindSpec::new(
                    name,
                    Category::Decorator,
                    &format!(
                        "Runs its child once for each of the {what} of its queue (`1;2;3`), storing each under its value's key first; finishes with `if_empty` after the last."
                    ),
                    vec![
                        FieldSpec::new(
                            "queue",
                            FieldType::Text,
                            Value::Text(String::new()),
                            &format!("The {what}, separated by ';'; or a text key holding them."),
                        ),
                        FieldSpec::optional(
                            "value",
                            FieldType::Scalar,
                            "The key each element is stored under before the child runs.",
                        )
                        .with_direction(FieldDirection::Out),
                        FieldSpec::new(
                            "if_empty",
                            FieldType::Enum(vec![
                                "SUCCESS".into(),
                                "FAILURE".into(),
                                "SKIPPED".into(),
                            ]),
                            Value::Text("SUCCESS".into()),
                            "The result once no element is left (at once for an empty queue).",
                        ),
                    ],
                )
            })
            .collect()
    }

    fn serves(name: &str, _: Category) -> bool {
        KINDS.iter().any(|(n, ..)| *n == name)
    }

    fn build(node: &Node, b: &mut Build<'_>) -> Self {
        let element = KINDS
            .iter()
            .find(|(n, ..)| *n == node.kind)
            .map_or(Element::String, |(_, e, _)| *e);
        let value = match node.fields.get("value") {
            Some(Value::Key(k)) => Some(b.keys.intern(k)),
            _ => None,
        };
        Self {
            element,
            queue: b.operand(node, "queue"),
            value,
            empty: match b.catalog.text(node, "if_empty") {
                "FAILURE" => Status::Failure,
                "SKIPPED" => Status::Skipped,
                _ => Status::Success,
            },
        }
    }

    fn needs(self) -> Needs {
        LOOP
    }

    fn enter(self, x: &mut impl Run, n: u32) -> Act {
        *x.word_mut(n) = x.step_number();
        match self.element_at(x, n, 0) {
            Some(act) => act.unwrap_or_else(|| only_child(x, n)),
            None => Act::Done(self.empty),
        }
    }

    fn react(self, x: &mut impl Run, n: u32, s: Status) -> Act {
        if s == Status::Failure {
            return Act::Done(Status::Failure);
        }
        let at = x.cursor(n);
        match self.element_at(x, n, at) {
            Some(act) => act.unwrap_or_else(|| again(x, n, false)),
            None => Act::Done(self.empty),
        }
    }
}

impl QueueLoop {
    /// The element at place `at` of the queue as it is now, stored under the value's key,
    /// the cursor past it: `Some(None)` then, for the child to run; `Some(Some(failure))`
    /// for an element that is not of the loop's type, or that the key cannot hold (made
    /// its type as a Script's values are); `None` when there is no element there.
    fn element_at(self, x: &mut impl Run, n: u32, at: u32) -> Option<Option<Act>> {
        let text = match &x.operands(self.queue, self.queue + 1)[0] {
            Operand::Text(t) => t.clone(),
            Operand::Key(k) => match x.context().get(*k) {
                Some(CtxValue::Text(t)) => t.clone(),
                _ => return None,
            },
            Operand::None => return None,
        };
        let part = elements(&text).nth(at as usize)?;
        // An element of another type, or one its key cannot hold, fails the loop.
        let fitted = self.element(part).and_then(|v| match self.value {
            Some(k) => v.fitted(x.key_type(k)).map(|v| Some((k, v))),
            None => Some(None),
        });
        let Some(store) = fitted else {
            return Some(Some(Act::Done(Status::Failure)));
        };
        *x.cursor_mut(n) = at + 1;
        if let Some((k, v)) = store {
            x.store(n, k, v);
        }
        Some(None)
    }

    /// A queue's element as the loop's type, or none when it is not one.
    fn element(self, part: &str) -> Option<CtxValue> {
        Some(match self.element {
            Element::String => CtxValue::Text(part.into()),
            Element::Int => CtxValue::Number(part.trim().parse::<i64>().ok()? as f64),
            Element::Double => CtxValue::Number(part.trim().parse::<f64>().ok()?),
            Element::Bool => CtxValue::Bool(match part.trim() {
                "true" | "1" => true,
                "false" | "0" => false,
                _ => return None,
            }),
        })
    }
}

/// The elements of a queue's text: the parts between `;`, none for an empty text.
fn elements(text: &str) -> impl Iterator<Item = &str> {
    text.split(';').filter(move |_| !text.is_empty())
}
