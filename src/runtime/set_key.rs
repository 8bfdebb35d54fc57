//! `SetKey`: an action that stores a value under its `out_context` key and succeeds at its
//! first execute (BehaviorTree.CPP's SetBlackboard). Its spec is here beside its
//! behaviour.

use super::behaviour::{Action, CtxValue, LeafIo, NodeSpec, Outcome};
use crate::model::{Category, FieldSpec, FieldType, KindSpec, Value};

/// The spec of `SetKey`.
pub(crate) fn specs() -> [KindSpec; 1] {
    [KindSpec::new(
        "SetKey",
        Category::Leaf,
        "Stores `value` under its out_context key and succeeds (BehaviorTree.CPP's SetBlackboard).",
        vec![FieldSpec::new(
            "value",
            FieldType::Text,
            Value::Text(String::new()),
            "The text to store; bound to a text key, that key's value as the action is entered.",
        )],
    )]
}

/// `SetKey`'s behaviour, from its node's fields.
pub(super) fn set_key(spec: &mut NodeSpec<'_>) -> Result<SetKey, String> {
    Ok(SetKey {
        value: CtxValue::Text(spec.text("value").into()),
    })
}

/// `SetKey`: produces its value at its first execute, and succeeds.
pub(crate) struct SetKey {
    value: CtxValue,
}

impl<A> Action<A> for SetKey {
    type Memory = ();

    fn on_execute(&self, _: &mut (), _: &mut A, io: &mut LeafIo<'_>, _dt: f64) -> Outcome {
        io.produce(self.value.clone());
        Outcome::Success
    }
}
