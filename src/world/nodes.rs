//! The built-in world actions and conditions of SEMANTICS.md §4, implemented through the
//! runtime's [`Action`] and [`Condition`] traits over the [`World`].

use std::sync::Arc;

use super::{EPS, EntityId, EntityKind, ItemKind, Tile, World, distance, tile_of};
use crate::runtime::{Action, Behaviours, CondIo, Condition, CtxValue, LeafIo, Outcome};

/// The kinds in `tree` that only run in the world (in a scenario), sorted, each once.
pub fn world_kinds(tree: &crate::model::Tree) -> Vec<String> {
    let plain = Behaviours::<()>::with_builtins();
    let world = world_behaviours();
    let mut kinds: Vec<String> = tree
        .nodes()
        .iter()
        .map(|n| n.kind.clone())
        .filter(|k| !plain.knows(k) && world.knows(k))
        .collect();
    kinds.sort();
    kinds.dedup();
    kinds
}

/// The behaviours of every built-in kind: the world's and the mock ones.
pub fn world_behaviours() -> Behaviours<World> {
    let mut b = Behaviours::<World>::with_builtins();
    b.action("MoveTo", |spec| {
        let waypoint: Option<Arc<str>> = match spec.text("waypoint") {
            "" => None,
            w => Some(w.into()),
        };
        Ok(MoveTo {
            waypoint,
            arrive: spec.number("arrive_distance").unwrap_or(0.5),
        })
    });
    b.action("Wander", |spec| {
        Ok(Wander {
            radius: spec.number("radius").unwrap_or(5.0),
        })
    });
    b.action("FindClosest", |spec| {
        Ok(FindClosest {
            what: spec.text("what").into(),
            max: spec.number("max_distance"),
        })
    });
    b.action("Attack", |spec| {
        Ok(Attack {
            cooldown: spec.number("cooldown").unwrap_or(1.0),
        })
    });
    b.action("Flee", |spec| {
        Ok(Flee {
            safe: spec.number("distance").unwrap_or(6.0),
        })
    });
    for (kind, then) in [("Wait", Finish::Nothing), ("Eat", Finish::Eat)] {
        b.action(kind, move |spec| {
            Ok(Timed {
                seconds: spec.number("seconds").unwrap_or(1.0),
                then,
            })
        });
    }
    let instants: [(&str, InstantFn); 3] = [
        ("PickUp", World::pick_up),
        ("OpenDoor", World::open_door),
        ("PassBall", World::pass_ball),
    ];
    for (kind, act) in instants {
        b.action(kind, move |_| Ok(Instant(act)));
    }
    b.condition("IsInRange", |spec| {
        Ok(IsInRange {
            distance: spec.number("distance"),
        })
    });
    b.condition_fn("IsStronger", |w: &mut World, io| {
        let target = w.entity_in(io.input).and_then(|t| w.body(t));
        match (w.body(w.me()), target) {
            (Some(me), Some(them)) => me.strength() > them.strength(),
            _ => false,
        }
    });
    b.condition("IsHealthBelow", |spec| {
        let fraction = spec.number("fraction").unwrap_or(0.3);
        Ok(BodyCheck(move |b: &super::Body| {
            b.health < fraction * b.max_health
        }))
    });
    b.condition("IsHungry", |spec| {
        let threshold = spec.number("threshold").unwrap_or(0.5);
        Ok(BodyCheck(move |b: &super::Body| b.hunger >= threshold))
    });
    b.condition_fn("IsDoorOpen", |w: &mut World, io| {
        let door = w.entity_in(io.input).and_then(|d| w.alive(d));
        matches!(door.map(|d| &d.kind), Some(EntityKind::Door { open: true }))
    });
    b.condition_fn("HasBall", |w: &mut World, _| {
        w.held(w.me(), ItemKind::Ball).is_some()
    });
    b
}

/// Where a `MoveTo` is heading: its in-context value, else its waypoint.
fn move_target(w: &World, input: Option<&CtxValue>, waypoint: Option<&str>) -> Option<[f64; 2]> {
    match input {
        Some(v) => w.resolve(Some(v)),
        None => w.find(waypoint?).and_then(|id| w.position_of(id)),
    }
}

fn speed(w: &World) -> f64 {
    w.body(w.me()).map_or(0.0, |b| b.speed)
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

/// What an instant action does: `World::pick_up`, `open_door` or `pass_ball`, which say
/// why when they cannot.
type InstantFn = fn(&mut World, EntityId, EntityId) -> Result<(), &'static str>;

/// An action done in one execute by the agent on the entity in `in_context`: `PickUp`,
/// `OpenDoor`, `PassBall`. Succeeds when the world says it was done; fails with the
/// world's reason otherwise.
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

/// A condition on the agent's own body.
struct BodyCheck<F>(F);

impl<F: Fn(&super::Body) -> bool + Send + Sync> Condition<World> for BodyCheck<F> {
    fn check(&self, w: &mut World, _: &CondIo<'_>) -> bool {
        w.body(w.me()).is_some_and(&self.0)
    }
}
