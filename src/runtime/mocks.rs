//! The built-in kinds that need no world, for sketching a tree and testing it:
//! `MockAction` and `MockCondition` play a script, `Wait` lets time pass, `HasContext` asks
//! the context, `AlwaysSuccess` and `AlwaysFailure` answer the same every time
//! (SEMANTICS.md §4). Each
//! kind's spec is here beside its behaviour; the same scripts run a declared kind that has
//! no behaviour as its stand-in.

use super::behaviour::{Action, CondIo, Condition, CtxValue, KeyId, LeafIo, NodeSpec, Outcome};
use super::node::EPS;
use crate::model::{Category, FieldSpec, FieldType, KeyTypes, KindSpec, Value};

/// The specs of `MockAction` and `Wait` (leaves), and of `HasContext`, `AlwaysSuccess`,
/// `AlwaysFailure` and `MockCondition` (conditions), in palette order.
pub(crate) fn specs() -> [KindSpec; 6] {
    let text = |s: &str| Value::Text(s.into());
    [
        KindSpec::new(
            "MockAction",
            Category::Leaf,
            "A scripted action for sketching and tests: each execute returns the next letter of the script.",
            vec![
                FieldSpec::new(
                    "script",
                    FieldType::Script("RSF".into()),
                    text("S"),
                    "R running, S success, F failure, one letter per execute since entry; the last repeats.",
                ),
                FieldSpec::optional(
                    "produces",
                    FieldType::Text,
                    "The value produced at the first execute (stored under out_context).",
                ),
            ],
        ),
        KindSpec::new(
            "Wait",
            Category::Leaf,
            "Does nothing for a while, then succeeds.",
            vec![FieldSpec::new(
                "seconds",
                FieldType::non_negative(),
                Value::Float(1.0),
                "How long to wait.",
            )],
        ),
        KindSpec::new(
            "HasContext",
            Category::Condition,
            "True when the context holds a value under `key`.",
            vec![FieldSpec::new(
                "key",
                FieldType::ContextKey(KeyTypes::ANY),
                text(""),
                "The context key to look for.",
            )],
        ),
        KindSpec::new(
            "AlwaysSuccess",
            Category::Condition,
            "Always true: as a child it succeeds at once.",
            vec![],
        ),
        KindSpec::new(
            "AlwaysFailure",
            Category::Condition,
            "Always false: as a child it fails at once.",
            vec![],
        ),
        KindSpec::new(
            "MockCondition",
            Category::Condition,
            "A scripted condition: the result at step N is letter N of the script (the last repeats).",
            vec![FieldSpec::new(
                "script",
                FieldType::Script("TF".into()),
                text("T"),
                "T true, F false, one letter per step from step 0.",
            )],
        ),
    ]
}

/// `MockAction`'s behaviour, from its node's fields.
pub(super) fn mock_action(spec: &mut NodeSpec<'_>) -> Result<MockAction, String> {
    let produces = match spec.value("produces") {
        Some(Value::Text(t)) => Some(CtxValue::Text(t.as_str().into())),
        _ => None,
    };
    MockAction::new(spec.text("script"), produces)
}

/// `MockCondition`'s behaviour, from its node's fields.
pub(super) fn mock_condition(spec: &mut NodeSpec<'_>) -> Result<MockCondition, String> {
    MockCondition::new(spec.text("script"))
}

/// `HasContext`'s behaviour, from its node's fields.
pub(super) fn has_context(spec: &mut NodeSpec<'_>) -> Result<HasContext, String> {
    let name = spec.text("key").to_owned();
    if name.is_empty() {
        return Err("HasContext needs a key".into());
    }
    let key = spec.key(&name);
    Ok(HasContext { key })
}

/// `MockAction`: each execute since entry returns the next letter of its script.
pub(crate) struct MockAction {
    script: Box<[Outcome]>,
    produces: Option<CtxValue>,
}

impl MockAction {
    /// From a script of `R`, `S`, `F` (running, success, failure; validation refuses other
    /// letters, read here as success).
    pub(crate) fn new(script: &str, produces: Option<CtxValue>) -> Result<Self, String> {
        let script: Box<[Outcome]> = script
            .chars()
            .map(|c| match c {
                'R' => Outcome::Running,
                'F' => Outcome::Failure,
                _ => Outcome::Success,
            })
            .collect();
        if script.is_empty() {
            return Err("a script of R, S and F is needed".into());
        }
        Ok(Self { script, produces })
    }
}

impl<A> Action<A> for MockAction {
    /// Executes since entry.
    type Memory = usize;

    fn on_enter(&self, executed: &mut usize, _: &mut A, _: &mut LeafIo<'_>) {
        *executed = 0;
    }

    fn on_execute(
        &self,
        executed: &mut usize,
        _: &mut A,
        io: &mut LeafIo<'_>,
        _dt: f64,
    ) -> Outcome {
        if *executed == 0
            && let Some(v) = &self.produces
        {
            io.produce(v.clone());
        }
        let i = (*executed).min(self.script.len() - 1);
        *executed += 1;
        self.script[i]
    }
}

/// `MockCondition`: letter N of its script at step N.
pub(crate) struct MockCondition {
    script: Vec<bool>,
}

impl MockCondition {
    /// From a script of `T` and `F`.
    pub(crate) fn new(script: &str) -> Result<Self, String> {
        let script: Vec<bool> = script.chars().map(|c| c == 'T').collect();
        if script.is_empty() {
            return Err("a script of T and F is needed".into());
        }
        Ok(Self { script })
    }
}

impl<A> Condition<A> for MockCondition {
    fn check(&self, _: &mut A, io: &CondIo<'_>) -> bool {
        let i = usize::try_from(io.step)
            .unwrap_or(usize::MAX)
            .min(self.script.len() - 1);
        self.script[i]
    }
}

/// `Wait`: runs for `seconds` of simulated time (the steps' `dt` since its entry), then
/// succeeds.
pub(crate) struct Wait {
    pub seconds: f64,
}

impl<A> Action<A> for Wait {
    /// Seconds run since entry.
    type Memory = f64;

    fn on_enter(&self, elapsed: &mut f64, _: &mut A, _: &mut LeafIo<'_>) {
        *elapsed = 0.0;
    }

    fn on_execute(&self, elapsed: &mut f64, _: &mut A, _: &mut LeafIo<'_>, dt: f64) -> Outcome {
        *elapsed += dt;
        if *elapsed < self.seconds - EPS {
            Outcome::Running
        } else {
            Outcome::Success
        }
    }
}

/// `AlwaysSuccess` (true) and `AlwaysFailure` (false): the same answer at every check.
pub(crate) struct Always(pub bool);

impl<A> Condition<A> for Always {
    fn check(&self, _: &mut A, _: &CondIo<'_>) -> bool {
        self.0
    }
}

/// `HasContext`: whether the context holds a value under its key.
pub(super) struct HasContext {
    key: KeyId,
}

impl<A> Condition<A> for HasContext {
    fn check(&self, _: &mut A, io: &CondIo<'_>) -> bool {
        io.context.get(self.key).is_some()
    }
}
