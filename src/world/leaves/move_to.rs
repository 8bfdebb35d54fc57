//! `MoveTo` (SEMANTICS.md §4): walks to the target in `in_context` (an entity or a
//! position), or to a named waypoint, on a path around walls and closed doors.

use std::sync::Arc;

use super::{WorldKind, speed};
use crate::model::{Category, FieldSpec, FieldType, KeyType, KeyTypes, KindSpec, Value};
use crate::runtime::{Action, Behaviours, CtxValue, LeafIo, Outcome};
use crate::world::{EPS, Tile, World, distance, tile_of};

pub(super) const KIND: WorldKind = WorldKind { spec, register };

/// Whether field `field` of kind `kind` names one of the world's waypoints (MoveTo's
/// `waypoint`), so an editor can offer the scenario's.
pub fn names_a_waypoint(kind: &str, field: &str) -> bool {
    kind == "MoveTo" && field == "waypoint"
}

fn spec() -> KindSpec {
    KindSpec::new(
        "MoveTo",
        Category::Leaf,
        "Walks to the target in in_context (an entity or a position), or to a named waypoint, on a path around walls and closed doors; succeeds within arrive_distance, fails when there is no way or it can get no closer.",
        vec![
            FieldSpec::new(
                "waypoint",
                FieldType::Text,
                Value::Text("".into()),
                "A waypoint name, used when in_context is empty.",
            ),
            FieldSpec::new(
                "arrive_distance",
                FieldType::non_negative(),
                Value::Float(0.5),
                "Distance at which the target counts as reached.",
            ),
        ],
    )
    .reads(KeyTypes::of(&[KeyType::Entity, KeyType::Position]))
}

fn register(b: &mut Behaviours<World>) {
    b.action("MoveTo", |spec| {
        let waypoint: Option<Arc<str>> = match spec.text("waypoint") {
            "" => None,
            w => Some(w.into()),
        };
        Ok(MoveTo {
            waypoint,
            arrive: spec.amount("arrive_distance"),
        })
    });
}

/// Where a `MoveTo` is heading: its in-context value, else its waypoint.
fn move_target(w: &World, input: Option<&CtxValue>, waypoint: Option<&str>) -> Option<[f64; 2]> {
    match input {
        Some(v) => w.resolve(Some(v)),
        None => w.find(waypoint?).and_then(|id| w.position_of(id)),
    }
}

/// `MoveTo`: plans a path to the target (re-planned when the target changes tile) and
/// walks it; succeeds within `arrive_distance`, fails when there is no way or it can get
/// no closer; waits while another agent is in the way.
struct MoveTo {
    waypoint: Option<Arc<str>>,
    arrive: f64,
}

/// A `MoveTo`'s memory: the path it walks and the tile it was planned to.
#[derive(Clone, Default)]
struct Route {
    path: Vec<Tile>,
    goal: Option<Tile>,
}

impl Action<World> for MoveTo {
    type Memory = Route;

    fn on_enter(&self, route: &mut Route, _: &mut World, _: &mut LeafIo<'_>) {
        route.path.clear();
        route.goal = None;
    }

    fn on_execute(
        &self,
        route: &mut Route,
        w: &mut World,
        io: &mut LeafIo<'_>,
        dt: f64,
    ) -> Outcome {
        let me = w.me();
        let Some(target) = move_target(w, io.input(), self.waypoint.as_deref()) else {
            return Outcome::FailureBecause("nowhere to go");
        };
        let Some(pos) = w.position_of(me) else {
            return Outcome::FailureBecause("the agent is gone");
        };
        if distance(pos, target) <= self.arrive + EPS {
            return Outcome::Success;
        }
        let goal = tile_of(target);
        if route.goal != Some(goal) || route.path.is_empty() {
            match w.find_path(pos, target) {
                Some(path) => {
                    route.path = path;
                    route.goal = Some(goal);
                }
                None => return Outcome::FailureBecause("no path"),
            }
        }
        let moved = w.follow(me, &mut route.path, Some(target), speed(w) * dt);
        match w.position_of(me) {
            Some(p) if distance(p, target) <= self.arrive + EPS => Outcome::Success,
            _ if moved <= 0.0 && route.path.is_empty() => Outcome::FailureBecause("blocked"),
            _ => Outcome::Running,
        }
    }
}
