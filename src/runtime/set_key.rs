//! The actions over a key: `SetKey` and `UnsetKey`, which store a value under their
//! `out_context` key, or clear it, and succeed at their first execute (BehaviorTree.CPP's
//! SetBlackboard and UnsetBlackboard); `WasEntryUpdated`, which succeeds when its key was
//! set since it last looked. Their specs are here beside their behaviours.

use super::behaviour::{Action, CtxValue, KeyId, LeafIo, NodeSpec, Outcome};
use crate::model::{Category, FieldSpec, FieldType, KeyTypes, KindSpec, Value};

/// The specs of `SetKey`, `UnsetKey` and `WasEntryUpdated`.
pub(crate) fn specs() -> [KindSpec; 3] {
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
        KindSpec::new(
            "WasEntryUpdated",
            Category::Leaf,
            "Succeeds when its entry key was set since it last looked, and fails otherwise (BehaviorTree.CPP's WasEntryUpdated).",
            vec![FieldSpec::new(
                "entry",
                FieldType::ContextKey(KeyTypes::ANY),
                Value::Text(String::new()),
                "The key it looks at: set (to any value) since it last looked, it succeeds.",
            )],
        ),
    ]
}

/// `WasEntryUpdated`'s behaviour, from its node's fields.
pub(super) fn was_entry_updated(spec: &mut NodeSpec<'_>) -> Result<WasEntryUpdated, String> {
    let name = spec.text("entry").to_owned();
    Ok(WasEntryUpdated {
        key: (!name.is_empty()).then(|| spec.key(&name)),
    })
}

/// `WasEntryUpdated`: at its first execute, whether its key was set since this leaf last
/// looked (the key's stamp, which it remembers); a key with no value was not.
pub(crate) struct WasEntryUpdated {
    key: Option<KeyId>,
}

impl<A> Action<A> for WasEntryUpdated {
    /// The stamp it saw last.
    type Memory = u64;

    fn on_execute(&self, seen: &mut u64, _: &mut A, io: &mut LeafIo<'_>, _dt: f64) -> Outcome {
        let Some(stamp) = self.key.and_then(|k| io.context.stamp(k)) else {
            return Outcome::Failure;
        };
        if std::mem::replace(seen, stamp) == stamp {
            Outcome::Failure
        } else {
            Outcome::Success
        }
    }
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
