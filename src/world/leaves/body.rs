//! `IsStronger`, `IsHealthBelow` and `IsHungry` (SEMANTICS.md §4): conditions on the
//! agent's own body.

use super::WorldKind;
use crate::model::{Category, FieldSpec, FieldType, KeyType, KindSpec, Value};
use crate::runtime::{CondIo, Condition};
use crate::world::{Body, World};

pub(super) const IS_STRONGER: WorldKind = WorldKind {
    spec: || {
        KindSpec::new(
            "IsStronger",
            Category::Condition,
            "True when this agent is stronger (health × damage) than the agent in in_context.",
            vec![],
        )
        .reads(KeyType::Entity.set())
    },
    register: |b| {
        b.condition_fn("IsStronger", |w: &mut World, io| {
            let target = w.entity_in(io.input).and_then(|t| w.body(t));
            match (w.body(w.me()), target) {
                (Some(me), Some(them)) => me.strength() > them.strength(),
                _ => false,
            }
        });
    },
};

pub(super) const IS_HEALTH_BELOW: WorldKind = WorldKind {
    spec: || {
        fraction(
            "IsHealthBelow",
            "True when health is below a fraction of its maximum.",
            "fraction",
            0.3,
            "The fraction of maximum health.",
        )
    },
    register: |b| {
        b.condition("IsHealthBelow", |spec| {
            let fraction = spec.amount("fraction");
            Ok(BodyCheck(move |b: &Body| {
                b.health < fraction * b.max_health
            }))
        });
    },
};

pub(super) const IS_HUNGRY: WorldKind = WorldKind {
    spec: || {
        fraction(
            "IsHungry",
            "True when hunger is at least the threshold.",
            "threshold",
            0.5,
            "Hunger from 0 (full) to 1 (starving).",
        )
    },
    register: |b| {
        b.condition("IsHungry", |spec| {
            let threshold = spec.amount("threshold");
            Ok(BodyCheck(move |b: &Body| b.hunger >= threshold))
        });
    },
};

/// The spec of a condition with one field, a fraction from 0 to 1.
fn fraction(name: &str, help: &str, field: &str, default: f64, field_help: &str) -> KindSpec {
    KindSpec::new(
        name,
        Category::Condition,
        help,
        vec![FieldSpec::new(
            field,
            FieldType::Float {
                min: 0.0,
                min_exclusive: false,
                max: 1.0,
            },
            Value::Float(default),
            field_help,
        )],
    )
}

/// A condition on the agent's own body.
struct BodyCheck<F>(F);

impl<F: Fn(&Body) -> bool + Send + Sync> Condition<World> for BodyCheck<F> {
    fn check(&self, w: &mut World, _: &CondIo<'_>) -> bool {
        w.body(w.me()).is_some_and(&self.0)
    }
}
