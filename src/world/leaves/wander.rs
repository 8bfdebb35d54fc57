//! `Wander` (SEMANTICS.md §4): walks to random points near where it started.

use super::{WorldKind, speed};
use crate::model::{Category, FieldSpec, FieldType, KindSpec, Value};
use crate::runtime::{Action, Behaviours, LeafIo, Outcome};
use crate::world::{Tile, World, tile_of};

pub(super) const KIND: WorldKind = WorldKind { spec, register };

fn spec() -> KindSpec {
    KindSpec::new(
        "Wander",
        Category::Leaf,
        "Walks to random points near where it started; runs until stopped.",
        vec![FieldSpec::new(
            "radius",
            FieldType::positive(),
            Value::Float(5.0),
            "How far from its start it wanders.",
        )],
    )
}

fn register(b: &mut Behaviours<World>) {
    b.action("Wander", |spec| {
        Ok(Wander {
            radius: spec.amount("radius"),
        })
    });
}

/// `Wander`: walks to random reachable tiles within `radius` of where it was entered,
/// one after another; runs until stopped.
struct Wander {
    radius: f64,
}

/// A `Wander`'s memory: the tile it was entered on and the path it walks.
#[derive(Clone, Default)]
struct Roam {
    home: Tile,
    path: Vec<Tile>,
}

impl Action<World> for Wander {
    type Memory = Roam;

    fn on_enter(&self, roam: &mut Roam, w: &mut World, _: &mut LeafIo<'_>) {
        roam.home = w.position_of(w.me()).map_or((0, 0), tile_of);
        roam.path.clear();
    }

    fn on_execute(&self, roam: &mut Roam, w: &mut World, _: &mut LeafIo<'_>, dt: f64) -> Outcome {
        let me = w.me();
        if roam.path.is_empty()
            && let Some((_, path)) = w.random_destination(me, roam.home, self.radius)
        {
            roam.path = path;
        }
        w.follow(me, &mut roam.path, None, speed(w) * dt);
        Outcome::Running
    }
}
