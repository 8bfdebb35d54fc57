//! `IsInRange` (SEMANTICS.md §4): the target in `in_context` is within range.

use super::WorldKind;
use crate::model::{Category, FieldSpec, FieldType, KeyType, KeyTypes, KindSpec};
use crate::runtime::{Behaviours, CondIo, Condition};
use crate::world::{EPS, World, distance};

pub(super) const KIND: WorldKind = WorldKind { spec, register };

fn spec() -> KindSpec {
    KindSpec::new(
        "IsInRange",
        Category::Condition,
        "True when the target in in_context is within range.",
        vec![FieldSpec::optional(
            "distance",
            FieldType::positive(),
            "The range (none: the agent's own attack range).",
        )],
    )
    .reads(KeyTypes::of(&[KeyType::Entity, KeyType::Position]))
}

fn register(b: &mut Behaviours<World>) {
    b.condition("IsInRange", |spec| {
        Ok(IsInRange {
            distance: spec.number("distance"),
        })
    });
}

/// `IsInRange`: the target is within `distance`, or the agent's attack range.
struct IsInRange {
    distance: Option<f64>,
}

impl Condition<World> for IsInRange {
    fn check(&self, w: &mut World, io: &CondIo<'_>) -> bool {
        let me = w.me();
        let (Some(at), Some(there), Some(body)) =
            (w.position_of(me), w.resolve(io.input), w.body(me))
        else {
            return false;
        };
        distance(at, there) <= self.distance.unwrap_or(body.range) + EPS
    }
}
