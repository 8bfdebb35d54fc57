//! `Wait` and `Eat` (SEMANTICS.md §4): run for `seconds` of simulated time, then succeed;
//! `Eat` then eats the food it holds.

use super::WorldKind;
use crate::model::{Category, FieldSpec, FieldType, KindSpec, Value};
use crate::runtime::{Action, Behaviours, LeafIo, Outcome};
use crate::world::{EPS, ItemKind, World};

pub(super) const WAIT: WorldKind = WorldKind {
    spec: || {
        timed(
            "Wait",
            "Does nothing for a while, then succeeds.",
            "How long to wait.",
        )
    },
    register: |b| register(b, "Wait", Finish::Nothing),
};

pub(super) const EAT: WorldKind = WorldKind {
    spec: || {
        timed(
            "Eat",
            "Eats the food it holds for `seconds`, lowering its hunger by the food's nutrition; fails without food.",
            "How long eating takes.",
        )
    },
    register: |b| register(b, "Eat", Finish::Eat),
};

/// The spec of a timed kind: its one field is `seconds`, 1 by default.
fn timed(name: &str, help: &str, seconds: &str) -> KindSpec {
    KindSpec::new(
        name,
        Category::Leaf,
        help,
        vec![FieldSpec::new(
            "seconds",
            FieldType::non_negative(),
            Value::Float(1.0),
            seconds,
        )],
    )
}

fn register(b: &mut Behaviours<World>, kind: &str, then: Finish) {
    b.action(kind, move |spec| {
        Ok(Timed {
            seconds: spec.amount("seconds"),
            then,
        })
    });
}

/// What a timed action does when its time is up.
#[derive(Clone, Copy)]
enum Finish {
    /// `Wait`: nothing.
    Nothing,
    /// `Eat`: eats the food held (fails at once without food).
    Eat,
}

/// `Wait` and `Eat`: run for `seconds` of simulated time, then succeed.
struct Timed {
    seconds: f64,
    then: Finish,
}

impl Action<World> for Timed {
    /// Seconds run since entry.
    type Memory = f64;

    fn on_enter(&self, elapsed: &mut f64, _: &mut World, _: &mut LeafIo<'_>) {
        *elapsed = 0.0;
    }

    fn on_execute(&self, elapsed: &mut f64, w: &mut World, _: &mut LeafIo<'_>, dt: f64) -> Outcome {
        if matches!(self.then, Finish::Eat) && w.held(w.me(), ItemKind::Food).is_none() {
            return Outcome::FailureBecause("holds no food");
        }
        *elapsed += dt;
        if *elapsed < self.seconds - EPS {
            return Outcome::Running;
        }
        match self.then {
            Finish::Nothing => Outcome::Success,
            Finish::Eat if w.eat(w.me()) => Outcome::Success,
            Finish::Eat => Outcome::FailureBecause("holds no food"),
        }
    }
}
