//! `Eat` (SEMANTICS.md §4): runs for `seconds` of simulated time, then eats the food it
//! holds. (`Wait`, which needs no world, is the runtime's.)

use super::WorldKind;
use crate::model::{Category, FieldSpec, FieldType, KindSpec, Value};
use crate::runtime::{Action, LeafIo, Outcome};
use crate::world::{EPS, ItemKind, World};

pub(super) const EAT: WorldKind = WorldKind {
    spec: || {
        KindSpec::new(
            "Eat",
            Category::Leaf,
            "Eats the food it holds for `seconds`, lowering its hunger by the food's nutrition; fails without food.",
            vec![FieldSpec::new(
                "seconds",
                FieldType::non_negative(),
                Value::Float(1.0),
                "How long eating takes.",
            )],
        )
    },
    register: |b| {
        b.action("Eat", |spec| {
            Ok(Eat {
                seconds: spec.amount("seconds"),
            })
        });
    },
};

/// `Eat`: runs for `seconds`, then eats the food held (fails at once without food).
struct Eat {
    seconds: f64,
}

impl Action<World> for Eat {
    /// Seconds run since entry.
    type Memory = f64;

    fn on_enter(&self, elapsed: &mut f64, _: &mut World, _: &mut LeafIo<'_>) {
        *elapsed = 0.0;
    }

    fn on_execute(&self, elapsed: &mut f64, w: &mut World, _: &mut LeafIo<'_>, dt: f64) -> Outcome {
        if w.held(w.me(), ItemKind::Food).is_none() {
            return Outcome::FailureBecause("holds no food");
        }
        *elapsed += dt;
        if *elapsed < self.seconds - EPS {
            return Outcome::Running;
        }
        if w.eat(w.me()) {
            Outcome::Success
        } else {
            Outcome::FailureBecause("holds no food")
        }
    }
}
