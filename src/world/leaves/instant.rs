//! `PickUp`, `OpenDoor` and `PassBall` (SEMANTICS.md §4): done in one execute by the agent
//! on the entity in `in_context`, by the world's rule for each.

use super::WorldKind;
use crate::model::{Category, KeyType, KindSpec};
use crate::runtime::{Action, Behaviours, LeafIo, Outcome};
use crate::world::{EntityId, World};

pub(super) const PICK_UP: WorldKind = WorldKind {
    spec: || {
        instant(
            "PickUp",
            "Picks up the item in in_context within reach (1.5 tiles); a health kit is used at once. Fails when out of reach, held by another, or the hands are full.",
        )
    },
    register: |b| register(b, "PickUp", World::pick_up),
};

pub(super) const OPEN_DOOR: WorldKind = WorldKind {
    spec: || {
        instant(
            "OpenDoor",
            "Opens the door in in_context within reach (1.5 tiles); fails farther away.",
        )
    },
    register: |b| register(b, "OpenDoor", World::open_door),
};

pub(super) const PASS_BALL: WorldKind = WorldKind {
    spec: || {
        instant(
            "PassBall",
            "Passes the held ball to the teammate in in_context: the ball lands a tile in front of them and their `receive_pass` Interrupt runs with the ball as payload.",
        )
    },
    register: |b| register(b, "PassBall", World::pass_ball),
};

/// The spec of an instant kind: a leaf without fields.
fn instant(name: &str, help: &str) -> KindSpec {
    KindSpec::new(name, Category::Leaf, help, vec![]).reads(KeyType::Entity.set())
}

fn register(b: &mut Behaviours<World>, kind: &str, act: InstantFn) {
    b.action(kind, move |_| Ok(Instant(act)));
}

/// What an instant action does: `World::pick_up`, `open_door` or `pass_ball`, which say
/// why when they cannot.
type InstantFn = fn(&mut World, EntityId, EntityId) -> Result<(), &'static str>;

/// An action done in one execute by the agent on the entity in `in_context`. Succeeds when
/// the world says it was done; fails with the world's reason otherwise.
struct Instant(InstantFn);

impl Action<World> for Instant {
    type Memory = ();

    fn on_execute(&self, _: &mut (), w: &mut World, io: &mut LeafIo<'_>, _: f64) -> Outcome {
        let me = w.me();
        let Some(target) = w.entity_in(io.input()) else {
            return Outcome::FailureBecause("no target");
        };
        match (self.0)(w, me, target) {
            Ok(()) => Outcome::Success,
            Err(why) => Outcome::FailureBecause(why),
        }
    }
}
