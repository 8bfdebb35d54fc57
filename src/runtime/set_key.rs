//! `SetKey` and `UnsetKey`: actions that store a value under their `out_context` key, or
//! clear it, and succeed at their first execute (BehaviorTree.CPP's SetBlackboard and
//! UnsetBlackboard). Their specs are here beside their behaviours.

use super::behaviour::{Action, CtxValue, KeyId, LeafIo, NodeSpec, Outcome};
use crate::model::{Category, FieldSpec, FieldType, KindSpec, Value};

/// The specs of `SetKey` and `UnsetKey`.
pub(crate) fn specs() -> [KindSpec; 2] {
    [
        KindSpec::new(
            "SetKey",
            Category::Leaf,
            "Stores `value` under its out_context key and succeeds (BehaviorTree.CPP's SetBlackboard).",
            vec![FieldSpec::new(
                "value",
                FieldType::Text,
                Value::Text(String::new()),
                "The text to store; bound to a text key, that key's value as the action is entered.",
            )],
        ),
        KindSpec::new(
            "UnsetKey",
            Category::Leaf,
            "Clears its out_context key, which then has no value, and succeeds (BehaviorTree.CPP's UnsetBlackboard).",
            vec![],
        ),
    ]
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

/// `UnsetKey`'s behaviour, from its node's fields.
pub(super) fn unset_key(spec: &mut NodeSpec<'_>) -> Result<UnsetKey, String> {
    let name = spec.text("out_context").to_owned();
    Ok(UnsetKey {
        key: (!name.is_empty()).then(|| spec.key(&name)),
    })
}

/// `UnsetKey`: clears its key at its first execute, and succeeds.
pub(crate) struct UnsetKey {
    key: Option<KeyId>,
}

impl<A> Action<A> for UnsetKey {
    type Memory = ();

    fn on_execute(&self, _: &mut (), _: &mut A, io: &mut LeafIo<'_>, _dt: f64) -> Outcome {
        if let Some(k) = self.key {
            io.write(k, None);
        }
        Outcome::Success
    }
}
