//! `FindClosest` (SEMANTICS.md §4): finds the closest entity of a kind and produces it.

use std::sync::Arc;

use super::WorldKind;
use crate::model::{Category, FieldSpec, FieldType, KeyType, KindSpec, Value};
use crate::runtime::{Action, Behaviours, CtxValue, LeafIo, Outcome};
use crate::world::World;

pub(super) const KIND: WorldKind = WorldKind { spec, register };

/// What it can look for.
const WHAT: [&str; 8] = [
    "enemy",
    "ally",
    "agent",
    "food",
    "health_kit",
    "ball",
    "door",
    "waypoint",
];

fn spec() -> KindSpec {
    KindSpec::new(
        "FindClosest",
        Category::Leaf,
        "Finds the closest entity of a kind (enemy: an agent of another team; ally: of its own; items nobody holds) and produces it for out_context; fails when none is in reach.",
        vec![
            FieldSpec::new(
                "what",
                FieldType::Enum(WHAT.iter().map(|s| (*s).to_owned()).collect()),
                Value::Text("enemy".into()),
                "What to look for.",
            ),
            FieldSpec::optional(
                "max_distance",
                FieldType::positive(),
                "Ignore anything farther than this (none: anywhere).",
            ),
        ],
    )
    .gives(KeyType::Entity.set())
}

fn register(b: &mut Behaviours<World>) {
    b.action("FindClosest", |spec| {
        Ok(FindClosest {
            what: spec.text("what").into(),
            max: spec.number("max_distance"),
        })
    });
}

/// `FindClosest`: produces the closest entity of a kind, or fails.
struct FindClosest {
    what: Arc<str>,
    max: Option<f64>,
}

impl Action<World> for FindClosest {
    type Memory = ();

    fn on_execute(&self, _: &mut (), w: &mut World, io: &mut LeafIo<'_>, _: f64) -> Outcome {
        match w.closest(w.me(), &self.what, self.max) {
            Some(id) => {
                io.produce(CtxValue::Entity(id));
                Outcome::Success
            }
            None => Outcome::FailureBecause("none in reach"),
        }
    }
}
