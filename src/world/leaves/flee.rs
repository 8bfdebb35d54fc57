//! `Flee` (SEMANTICS.md §4): runs away from the target in `in_context`.

use super::{WorldKind, speed};
use crate::model::{Category, FieldSpec, FieldType, KeyType, KeyTypes, KindSpec, Value};
use crate::runtime::{Action, Behaviours, CtxValue, LeafIo, Outcome};
use crate::world::{EPS, World, distance};

pub(super) const KIND: WorldKind = WorldKind { spec, register };

fn spec() -> KindSpec {
    KindSpec::new(
        "Flee",
        Category::Leaf,
        "Runs away from the target in in_context until it is `distance` away; fails when cornered.",
        vec![FieldSpec::new(
            "distance",
            FieldType::positive(),
            Value::Float(6.0),
            "Safe distance.",
        )],
    )
    .reads(KeyTypes::of(&[KeyType::Entity, KeyType::Position]))
}

fn register(b: &mut Behaviours<World>) {
    b.action("Flee", |spec| {
        Ok(Flee {
            safe: spec.amount("distance"),
        })
    });
}

/// `Flee`: steps away from the threat until it is `distance` away (success); fails when
/// cornered; succeeds at once when the threat is gone.
struct Flee {
    safe: f64,
}

impl Action<World> for Flee {
    type Memory = ();

    fn on_execute(&self, _: &mut (), w: &mut World, io: &mut LeafIo<'_>, dt: f64) -> Outcome {
        let me = w.me();
        let threat = match io.input() {
            Some(&CtxValue::Entity(id)) if w.alive(id).is_none() => return Outcome::Success,
            other => w.resolve(other),
        };
        let (Some(threat), Some(at)) = (threat, w.position_of(me)) else {
            return Outcome::FailureBecause("no threat to flee from");
        };
        if distance(at, threat) >= self.safe - EPS {
            return Outcome::Success;
        }
        if !w.step_away(me, threat, speed(w) * dt) {
            return Outcome::FailureBecause("cornered");
        }
        match w.position_of(me) {
            Some(p) if distance(p, threat) >= self.safe - EPS => Outcome::Success,
            _ => Outcome::Running,
        }
    }
}
