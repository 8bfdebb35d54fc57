//! `Attack` (SEMANTICS.md §4): hits the agent in `in_context` every `cooldown` seconds.

use super::WorldKind;
use crate::model::{Category, FieldSpec, FieldType, KeyType, KindSpec, Value};
use crate::runtime::{Action, Behaviours, CtxValue, LeafIo, Outcome};
use crate::world::{EPS, World, distance};

pub(super) const KIND: WorldKind = WorldKind { spec, register };

fn spec() -> KindSpec {
    KindSpec::new(
        "Attack",
        Category::Leaf,
        "Hits the agent in in_context every `cooldown` seconds (the first hit at once) while it is within the attacker's range; succeeds when it is destroyed, fails when it is out of range.",
        vec![FieldSpec::new(
            "cooldown",
            FieldType::non_negative(),
            Value::Float(1.0),
            "Seconds between hits.",
        )],
    )
    .reads(KeyType::Entity.set())
}

fn register(b: &mut Behaviours<World>) {
    b.action("Attack", |spec| {
        Ok(Attack {
            cooldown: spec.amount("cooldown"),
        })
    });
}

/// `Attack`: hits the target agent every `cooldown` seconds (the first hit at once) while
/// it is within range; succeeds when the target is destroyed, fails when it is out of
/// range or not an agent.
struct Attack {
    cooldown: f64,
}

impl Action<World> for Attack {
    /// Seconds left before the next hit.
    type Memory = f64;

    fn on_enter(&self, left: &mut f64, _: &mut World, _: &mut LeafIo<'_>) {
        *left = 0.0;
    }

    fn on_execute(&self, left: &mut f64, w: &mut World, io: &mut LeafIo<'_>, dt: f64) -> Outcome {
        let me = w.me();
        let Some(&CtxValue::Entity(target)) = io.input() else {
            return Outcome::FailureBecause("no target");
        };
        if w.alive(target).is_none() {
            return Outcome::Success;
        }
        let (Some(body), Some(_), Some(at), Some(there)) = (
            w.body(me).cloned(),
            w.body(target),
            w.position_of(me),
            w.position_of(target),
        ) else {
            return Outcome::FailureBecause("target is not an agent");
        };
        if distance(at, there) > body.range + EPS {
            return Outcome::FailureBecause("target out of range");
        }
        if *left <= EPS {
            *left = self.cooldown;
            if w.hit(me, target, body.damage) {
                return Outcome::Success;
            }
        }
        *left -= dt;
        Outcome::Running
    }
}
