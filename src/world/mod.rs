//! The simulated world (SEMANTICS.md §4): a 2D tile arena where trees drive agents headless.
//!
//! The world is the runtime's agent type: every built-in world action and condition
//! receives `&mut World` and acts for [`World::me`], the agent whose tree is stepping.
//! [`Simulation`] owns a world and one tree [`Instance`](crate::runtime::Instance) per
//! agent and steps them in a fixed order, so a scenario, a seed and a `dt` always give
//! the same run. Nothing here depends on egui.
//!
//! Geometry: tile `(x, y)` is the unit square centred on the point `(x, y)`; `x` grows to
//! the right, `y` downwards (the order rows are written in a scenario's map). Agents move
//! continuously between tile centres along paths planned over open tiles (8 directions,
//! no cutting of wall corners); walls and closed doors block, and an agent never moves
//! closer than [`PERSONAL_SPACE`] to another living agent.

mod grid;
mod leaves;
mod scenario;
mod sim;
mod trigger;

pub use leaves::{names_a_waypoint, world_behaviours, world_kinds};
pub use scenario::{
    AgentSetup, SCENARIO_FORMAT, SCENARIO_VERSION, ScenarioError, is_scenario, load_scenario,
    parse_scenario,
};
pub use sim::{AgentSummary, RunNames, SimError, Simulation, names_of, nodes_of};
pub use trigger::Trigger;

/// Seconds per step when a run does not say (`arbor run`, tests, the editor's runs).
pub const DT: f64 = 0.1;

/// The scenario beside a tree file, which runs it when nothing else is said:
/// `NAME.scenario.json` for `NAME.json`.
pub fn scenario_beside(tree: &std::path::Path) -> Option<std::path::PathBuf> {
    let stem = tree.file_stem()?.to_string_lossy();
    let candidate = tree.with_file_name(format!("{stem}.scenario.json"));
    candidate.is_file().then_some(candidate)
}

use std::collections::{HashMap, VecDeque};

use crate::runtime::CtxValue;

/// An entity's id: its index in the world, stable for the whole run (destroyed entities
/// keep their id and are marked dead).
pub type EntityId = u64;

/// Two agents never come closer than this (centre to centre).
pub const PERSONAL_SPACE: f64 = 0.8;

/// How close an agent must be to pick up an item or open a door.
pub const REACH: f64 = 1.5;

/// Slack for distance comparisons, so that "exactly one tile away" counts as arrived.
const EPS: f64 = 1e-9;

/// A thing in the world.
#[derive(Clone, Debug, PartialEq)]
pub struct Entity {
    /// Its unique name in the scenario (trace payloads and `--trigger` values use it).
    pub name: String,
    /// Where it is; a held item is where its holder is (see [`World::position_of`]).
    pub pos: [f64; 2],
    /// False once destroyed (a droid killed, food eaten).
    pub alive: bool,
    /// What it is.
    pub kind: EntityKind,
}

/// What an entity is.
#[derive(Clone, Debug, PartialEq)]
pub enum EntityKind {
    /// An agent, driven by a tree.
    Agent(Body),
    /// Something that can be picked up.
    Item {
        /// Which item.
        item: ItemKind,
        /// The agent holding it, if any.
        holder: Option<EntityId>,
        /// Food: how much hunger eating it removes. Health kit: health restored.
        amount: f64,
    },
    /// A door in a doorway; closed, it blocks its tile.
    Door {
        /// Whether it is open.
        open: bool,
    },
    /// A named point, for `MoveTo.waypoint`.
    Waypoint,
}

/// The kinds of item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemKind {
    /// Eaten with `Eat`, lowering hunger.
    Food,
    /// Restores health when picked up.
    HealthKit,
    /// Passed between teammates with `PassBall`.
    Ball,
}

impl ItemKind {
    /// The name used in scenarios and in `FindClosest.what`.
    pub fn name(self) -> &'static str {
        match self {
            ItemKind::Food => "food",
            ItemKind::HealthKit => "health_kit",
            ItemKind::Ball => "ball",
        }
    }
}

/// An agent's body: what the world knows about it besides its tree.
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    /// Its team; agents of another team are enemies.
    pub team: String,
    /// Current health; the agent is destroyed at 0.
    pub health: f64,
    /// Maximum health.
    pub max_health: f64,
    /// Health taken from a target per hit.
    pub damage: f64,
    /// Attack range (tiles).
    pub range: f64,
    /// Walking speed (tiles per second).
    pub speed: f64,
    /// Hunger from 0 (full) to 1 (starving).
    pub hunger: f64,
    /// Hunger gained per second.
    pub hunger_rate: f64,
    /// The item it holds.
    pub holding: Option<EntityId>,
    /// Meals eaten so far.
    pub meals: u32,
    /// Hunger just before and just after its last meal.
    pub last_meal: Option<(f64, f64)>,
    /// Agents it has destroyed.
    pub kills: u32,
}

impl Body {
    /// Its strength, compared by `IsStronger`: health × damage.
    pub fn strength(&self) -> f64 {
        self.health * self.damage
    }
}

/// An Interrupt the world itself asks the simulation to deliver to an agent's tree (a
/// pass's `receive_pass`), its payload already a runtime value: the world's side of the
/// runtime's queue, never typed by a user (that is [`Trigger`]).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct WorldTrigger {
    /// The agent whose tree is triggered.
    pub agent: EntityId,
    /// The Interrupt id.
    pub interrupt_id: &'static str,
    /// The payload.
    pub payload: CtxValue,
}

/// The arena and everything in it.
#[derive(Clone, Debug)]
pub struct World {
    width: i32,
    height: i32,
    walls: Vec<bool>,
    door_at: Vec<Option<EntityId>>,
    entities: Vec<Entity>,
    me: EntityId,
    rng: u64,
    step: u64,
    time: f64,
    pub(crate) outbox: Vec<WorldTrigger>,
    pub(crate) destroyed: Vec<EntityId>,
    /// Each entity's path as last followed (tiles still ahead, the next one last) and the
    /// step it was followed in, for display; reused, so following never allocates after
    /// the first time.
    plans: Vec<(u64, Vec<Tile>)>,
    /// Where the living entities are, by class, for the searches of the nearby.
    grid: grid::Grid,
    /// Each name's entity.
    names: HashMap<String, EntityId>,
}

/// A tile, as `(x, y)`.
pub type Tile = (i32, i32);

/// The sine and cosine of the eight directions `step_away` tries (0°, 45°, … 315°).
static DIRECTIONS: std::sync::LazyLock<[(f64, f64); 8]> =
    std::sync::LazyLock::new(|| std::array::from_fn(|k| (k as f64 * 45.0).to_radians().sin_cos()));

/// The distance up to which the entities `seen` (with their distances) chain from the
/// nearest, each within [`EPS`] of one before it; infinity when none was seen.
fn chained_reach(seen: &mut [(EntityId, f64)]) -> f64 {
    seen.sort_unstable_by(|a, b| a.1.total_cmp(&b.1));
    let mut reach = f64::INFINITY;
    for &(_, d) in seen.iter() {
        if reach.is_infinite() || d <= reach + EPS {
            reach = d;
        } else {
            break;
        }
    }
    reach
}

impl World {
    /// An empty arena: `walls[y * width + x]` is true for a wall tile.
    pub fn new(width: usize, height: usize, walls: Vec<bool>) -> Self {
        debug_assert_eq!(walls.len(), width * height);
        Self {
            width: width as i32,
            height: height as i32,
            door_at: vec![None; walls.len()],
            walls,
            entities: Vec::new(),
            me: 0,
            rng: 0,
            step: 0,
            time: 0.0,
            outbox: Vec::new(),
            destroyed: Vec::new(),
            plans: Vec::new(),
            grid: grid::Grid::new(width as i32, height as i32),
            names: HashMap::new(),
        }
    }

    /// Adds an entity and returns its id.
    pub fn add(&mut self, entity: Entity) -> EntityId {
        let id = self.entities.len() as EntityId;
        if matches!(entity.kind, EntityKind::Door { .. })
            && let Some(i) = self.index(tile_of(entity.pos))
        {
            self.door_at[i] = Some(id);
        }
        self.names.entry(entity.name.clone()).or_insert(id);
        self.entities.push(entity);
        self.refile(id);
        id
    }

    /// Seeds the world's random generator (used by `Wander`).
    pub fn seed(&mut self, seed: u64) {
        self.rng = seed;
    }

    /// Bytes this world keeps on the heap, roughly.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.walls.capacity()
            + self
                .plans
                .iter()
                .map(|(_, p)| p.capacity() * size_of::<Tile>())
                .sum::<usize>()
            + self.door_at.capacity() * size_of::<Option<EntityId>>()
            + self.entities.capacity() * size_of::<Entity>()
            + self
                .entities
                .iter()
                .map(|e| e.name.capacity())
                .sum::<usize>()
            + self.grid.heap_bytes()
            + self.names.capacity() * (size_of::<String>() + size_of::<EntityId>())
    }

    /// Width in tiles.
    pub fn width(&self) -> i32 {
        self.width
    }

    /// Height in tiles.
    pub fn height(&self) -> i32 {
        self.height
    }

    /// Steps taken so far.
    pub fn step_number(&self) -> u64 {
        self.step
    }

    /// Simulated seconds so far.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Every entity, dead ones included, by id.
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// An entity by id.
    pub fn entity(&self, id: EntityId) -> Option<&Entity> {
        self.entities.get(usize::try_from(id).ok()?)
    }

    fn entity_mut(&mut self, id: EntityId) -> Option<&mut Entity> {
        self.entities.get_mut(usize::try_from(id).ok()?)
    }

    /// A living entity by id.
    pub fn alive(&self, id: EntityId) -> Option<&Entity> {
        self.entity(id).filter(|e| e.alive)
    }

    /// The names of the waypoints, in the scenario's order.
    pub fn waypoints(&self) -> impl Iterator<Item = &str> {
        self.entities
            .iter()
            .filter(|e| matches!(e.kind, EntityKind::Waypoint))
            .map(|e| e.name.as_str())
    }

    /// An entity's id by name.
    pub fn find(&self, name: &str) -> Option<EntityId> {
        self.names.get(name).copied()
    }

    /// The context value a file writes as `v` for a key of type `ty` (a scenario's agent
    /// `keys`, a behaviour test's `equals`): true or false, a number, `[x, y]`, or a name,
    /// which is an entity of this world for an `entity` key, that entity's place for a
    /// `position` key, text for a `text` key, and for an `any` key an entity if one has the
    /// name, else text. `None`: `v` cannot be a value of that type.
    pub fn value_for(&self, v: &serde_json::Value, ty: crate::model::KeyType) -> Option<CtxValue> {
        use crate::model::KeyType as T;
        use serde_json::Value as J;
        let value = match v {
            J::Bool(b) => CtxValue::Bool(*b),
            J::Number(n) => CtxValue::Number(n.as_f64()?),
            J::Array(xy) if xy.len() == 2 => CtxValue::Position([xy[0].as_f64()?, xy[1].as_f64()?]),
            J::String(s) => match (ty, self.find(s)) {
                (T::Text, _) => CtxValue::Text(s.as_str().into()),
                (T::Position, Some(id)) => CtxValue::Position(self.position_of(id)?),
                (T::Entity | T::Any, Some(id)) => CtxValue::Entity(id),
                (_, _) => CtxValue::Text(s.as_str().into()),
            },
            _ => return None,
        };
        value.fits(ty).then_some(value)
    }

    /// Files an entity in the spatial index where it is now (after it moved or died).
    pub(super) fn refile(&mut self, id: EntityId) {
        let Some(e) = usize::try_from(id).ok().and_then(|i| self.entities.get(i)) else {
            return;
        };
        self.grid.file(id, grid::class_of(&e.kind), e.pos, e.alive);
    }

    /// The agent whose tree is stepping now.
    pub fn me(&self) -> EntityId {
        self.me
    }

    pub(crate) fn set_me(&mut self, id: EntityId) {
        self.me = id;
    }

    /// A living agent's body.
    pub fn body(&self, id: EntityId) -> Option<&Body> {
        match &self.alive(id)?.kind {
            EntityKind::Agent(b) => Some(b),
            _ => None,
        }
    }

    fn body_mut(&mut self, id: EntityId) -> Option<&mut Body> {
        match &mut self.entity_mut(id).filter(|e| e.alive)?.kind {
            EntityKind::Agent(b) => Some(b),
            _ => None,
        }
    }

    /// Where a living entity is (a held item is with its holder).
    pub fn position_of(&self, id: EntityId) -> Option<[f64; 2]> {
        let e = self.alive(id)?;
        match e.kind {
            EntityKind::Item {
                holder: Some(h), ..
            } => self.alive(h).map(|h| h.pos),
            _ => Some(e.pos),
        }
    }

    /// Where a context value points: a living entity's position, or a position.
    pub fn resolve(&self, value: Option<&CtxValue>) -> Option<[f64; 2]> {
        match value? {
            CtxValue::Entity(id) => self.position_of(*id),
            CtxValue::Position(p) => Some(*p),
            _ => None,
        }
    }

    /// The living entity a context value names.
    pub fn entity_in(&self, value: Option<&CtxValue>) -> Option<EntityId> {
        match value? {
            CtxValue::Entity(id) if self.alive(*id).is_some() => Some(*id),
            _ => None,
        }
    }

    fn index(&self, (x, y): Tile) -> Option<usize> {
        (x >= 0 && y >= 0 && x < self.width && y < self.height)
            .then(|| (y * self.width + x) as usize)
    }

    /// Whether a tile is a wall (outside the arena counts as wall).
    pub fn is_wall(&self, t: Tile) -> bool {
        self.index(t).is_none_or(|i| self.walls[i])
    }

    /// The door on a tile, if any.
    pub fn door_on(&self, t: Tile) -> Option<EntityId> {
        self.index(t).and_then(|i| self.door_at[i])
    }

    /// Whether an agent can stand on a tile: inside, not a wall, no closed door.
    pub fn is_open(&self, t: Tile) -> bool {
        let Some(i) = self.index(t) else {
            return false;
        };
        !self.walls[i]
            && self.door_at[i].is_none_or(|d| {
                matches!(
                    self.entity(d),
                    Some(Entity {
                        kind: EntityKind::Door { open: true },
                        ..
                    })
                )
            })
    }

    /// The next number of the world's random generator (SplitMix64).
    pub fn next_random(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A random whole number in `-r..=r`.
    fn random_offset(&mut self, r: i32) -> i32 {
        let span = (2 * r + 1) as u64;
        (self.next_random() % span) as i32 - r
    }

    /// Plans a path over open tiles from the tile of `from` to the tile of `to` (or, when
    /// that tile is closed — a wall or a closed door — to an open tile beside it).
    /// Returns the tiles to visit, the next one last, or `None` when there is no way.
    pub fn find_path(&self, from: [f64; 2], to: [f64; 2]) -> Option<Vec<Tile>> {
        let start = tile_of(from);
        let goal = tile_of(to);
        let goal_open = self.is_open(goal);
        let is_goal = |t: Tile| {
            if goal_open {
                t == goal
            } else {
                (t.0 - goal.0).abs() + (t.1 - goal.1).abs() == 1
            }
        };
        let si = self.index(start)?;
        if is_goal(start) {
            return Some(Vec::new());
        }
        // Only the tiles reached are recorded: a short path in a large arena costs what
        // it explores, not the arena's size.
        let mut came_from: grid::NumberMap<usize> = grid::NumberMap::default();
        came_from.insert(si, si);
        let mut queue = VecDeque::from([start]);
        const DIRS: [Tile; 8] = [
            (1, 0),
            (0, 1),
            (-1, 0),
            (0, -1),
            (1, 1),
            (-1, 1),
            (-1, -1),
            (1, -1),
        ];
        while let Some(t) = queue.pop_front() {
            let ti = self.index(t)?;
            for (dx, dy) in DIRS {
                let n = (t.0 + dx, t.1 + dy);
                let Some(ni) = self.index(n) else { continue };
                if came_from.contains_key(&ni) || !self.is_open(n) {
                    continue;
                }
                if dx != 0
                    && dy != 0
                    && !(self.is_open((t.0 + dx, t.1)) && self.is_open((t.0, t.1 + dy)))
                {
                    continue;
                }
                came_from.insert(ni, ti);
                if is_goal(n) {
                    let mut path = vec![n];
                    let mut at = ti;
                    while at != si {
                        let w = self.width as usize;
                        path.push(((at % w) as i32, (at / w) as i32));
                        at = came_from.get(&at).copied().unwrap_or(si);
                    }
                    return Some(path);
                }
                queue.push_back(n);
            }
        }
        None
    }

    /// Whether agent `me` may stand at `to` coming from `from`: the tile is open and no
    /// other living agent is within [`PERSONAL_SPACE`] of it, unless the move goes away
    /// from that agent.
    fn can_stand(&self, me: EntityId, from: [f64; 2], to: [f64; 2]) -> bool {
        if !self.is_open(tile_of(to)) {
            return false;
        }
        // Only agents within a cell of `to` can be within the personal space of it.
        // (The index holds living agents only, each with its position.)
        self.grid.all_around(grid::AGENTS, to, |id, pos| {
            // Clearly outside the personal space: no need for the exact distance.
            let (dx, dy) = (pos[0] - to[0], pos[1] - to[1]);
            id == me || dx * dx + dy * dy > 2.0 * PERSONAL_SPACE * PERSONAL_SPACE || {
                let d_new = distance(pos, to);
                d_new >= PERSONAL_SPACE - EPS || d_new >= distance(pos, from)
            }
        })
    }

    /// Moves agent `me` up to `budget` tiles straight towards `point`, stepping aside
    /// (45° then 90°, left before right) when another agent is in the way. Returns the
    /// distance moved (0 when blocked).
    pub fn step_towards(&mut self, me: EntityId, point: [f64; 2], budget: f64) -> f64 {
        let Some(from) = self.alive(me).map(|e| e.pos) else {
            return 0.0;
        };
        let d = distance(from, point);
        if d < EPS || budget <= 0.0 {
            return 0.0;
        }
        let len = budget.min(d);
        let dir = [(point[0] - from[0]) / d, (point[1] - from[1]) / d];
        // Straight on, or as far as personal space allows; then aside.
        for frac in [1.0, 0.5, 0.25] {
            let l = len * frac;
            let to = [from[0] + dir[0] * l, from[1] + dir[1] * l];
            if !self.is_open(tile_of(to)) {
                return 0.0;
            }
            if self.can_stand(me, from, to) {
                self.place(me, to);
                return l;
            }
        }
        for angle in [45.0f64, -45.0, 90.0, -90.0] {
            let (s, c) = angle.to_radians().sin_cos();
            let turned = [dir[0] * c - dir[1] * s, dir[0] * s + dir[1] * c];
            let to = [from[0] + turned[0] * len, from[1] + turned[1] * len];
            if self.can_stand(me, from, to) {
                self.place(me, to);
                return len;
            }
        }
        0.0
    }

    /// Moves agent `me` up to `budget` tiles along `path` (next tile last), popping the
    /// tiles it reaches and finishing at `end` when the path runs out. Returns the
    /// distance moved.
    pub fn follow(
        &mut self,
        me: EntityId,
        path: &mut Vec<Tile>,
        end: Option<[f64; 2]>,
        budget: f64,
    ) -> f64 {
        let mut left = budget;
        let mut moved = 0.0;
        while left > EPS {
            let Some(pos) = self.alive(me).map(|e| e.pos) else {
                break;
            };
            let next = match path.last() {
                Some(&(x, y)) => [f64::from(x), f64::from(y)],
                None => match end {
                    Some(p) if self.is_open(tile_of(p)) || tile_of(p) == tile_of(pos) => p,
                    _ => break,
                },
            };
            if distance(pos, next) < EPS {
                if path.pop().is_none() {
                    break;
                }
                continue;
            }
            let m = self.step_towards(me, next, left);
            if m <= 0.0 {
                break;
            }
            moved += m;
            left -= m;
            if let Some(e) = self.alive(me)
                && distance(e.pos, next) < EPS
            {
                if path.pop().is_none() {
                    break;
                }
            } else {
                break; // stepped aside or ran out of budget
            }
        }
        let i = me as usize;
        if self.plans.len() <= i {
            self.plans.resize_with(i + 1, || (u64::MAX, Vec::new()));
        }
        let (step, plan) = &mut self.plans[i];
        *step = self.step;
        plan.clear();
        plan.extend_from_slice(path);
        moved
    }

    /// The tiles an entity still walks on the path it followed in the last step, the next
    /// one first; empty when it followed none.
    pub fn plan_of(&self, id: EntityId) -> impl Iterator<Item = Tile> + '_ {
        let fresh = self
            .plans
            .get(id as usize)
            .filter(|(step, _)| step.wrapping_add(1) == self.step);
        fresh.into_iter().flat_map(|(_, p)| p.iter().rev().copied())
    }

    /// Picks a random open tile within `radius` of `around` that can be reached from
    /// where agent `me` stands, and the path there; `None` after a few failed tries.
    pub fn random_destination(
        &mut self,
        me: EntityId,
        around: Tile,
        radius: f64,
    ) -> Option<(Tile, Vec<Tile>)> {
        let from = self.alive(me)?.pos;
        let r = radius.floor().clamp(1.0, 64.0) as i32;
        for _ in 0..8 {
            let t = (
                around.0 + self.random_offset(r),
                around.1 + self.random_offset(r),
            );
            if t == tile_of(from) || !self.is_open(t) {
                continue;
            }
            let p = [f64::from(t.0), f64::from(t.1)];
            if distance([f64::from(around.0), f64::from(around.1)], p) > radius + EPS {
                continue;
            }
            if let Some(path) = self.find_path(from, p) {
                return Some((t, path));
            }
        }
        None
    }

    /// Moves agent `me` one stride of up to `budget` in the direction (of 8) that takes it
    /// farthest from `threat`. Returns false when no direction gains distance (cornered).
    pub fn step_away(&mut self, me: EntityId, threat: [f64; 2], budget: f64) -> bool {
        let Some(from) = self.alive(me).map(|e| e.pos) else {
            return false;
        };
        let now = distance(from, threat);
        let mut best: Option<([f64; 2], f64)> = None;
        for (s, c) in *DIRECTIONS {
            let to = [from[0] + c * budget, from[1] + s * budget];
            if !self.can_stand(me, from, to) {
                continue;
            }
            let d = distance(to, threat);
            if d > now + EPS && best.is_none_or(|(_, bd)| d > bd + EPS) {
                best = Some((to, d));
            }
        }
        match best {
            Some((to, _)) => {
                self.place(me, to);
                true
            }
            None => false,
        }
    }

    fn place(&mut self, id: EntityId, pos: [f64; 2]) {
        if let Some(e) = self.entity_mut(id) {
            e.pos = [round_pos(pos[0]), round_pos(pos[1])];
        }
        self.refile(id);
    }

    /// `target` takes a hit of `damage` from `attacker` and is destroyed at 0 health.
    /// Returns true when the target is destroyed (or already gone).
    pub fn hit(&mut self, attacker: EntityId, target: EntityId, damage: f64) -> bool {
        let Some(body) = self.body_mut(target) else {
            return true;
        };
        body.health = (body.health - damage).max(0.0);
        if body.health > 0.0 {
            return false;
        }
        self.destroy(target);
        if let Some(b) = self.body_mut(attacker) {
            b.kills += 1;
        }
        true
    }

    /// Destroys an entity: it disappears from the arena and, at the end of the current
    /// agent's step, from every context. An agent drops what it holds; a held item leaves
    /// its holder's hands.
    pub fn destroy(&mut self, id: EntityId) {
        let Some(e) = self.entity_mut(id).filter(|e| e.alive) else {
            return;
        };
        e.alive = false;
        let pos = e.pos;
        match e.kind.clone() {
            EntityKind::Agent(Body {
                holding: Some(item),
                ..
            }) => {
                if let Some(Entity {
                    kind: EntityKind::Item { holder, .. },
                    pos: p,
                    ..
                }) = self.entity_mut(item)
                {
                    *holder = None;
                    *p = pos;
                }
                self.refile(item);
            }
            EntityKind::Item {
                holder: Some(h), ..
            } => {
                if let Some(b) = self.body_mut(h) {
                    b.holding = None;
                }
            }
            _ => {}
        }
        self.refile(id);
        self.destroyed.push(id);
    }

    /// Agent `me` takes an item within reach. Food and balls are held; a health kit is
    /// used at once. Fails, saying why, when the item is out of reach, held, or the hands
    /// are full.
    pub fn pick_up(&mut self, me: EntityId, item: EntityId) -> Result<(), &'static str> {
        let (Some(at), Some(body)) = (self.alive(me).map(|e| e.pos), self.body(me)) else {
            return Err("the agent is gone");
        };
        if body.holding.is_some() && body.holding != Some(item) {
            return Err("hands are full");
        }
        let Some(Entity {
            kind:
                EntityKind::Item {
                    item: kind,
                    holder,
                    amount,
                },
            pos,
            ..
        }) = self.alive(item).cloned()
        else {
            return Err("nothing there to pick up");
        };
        if holder == Some(me) {
            return Ok(());
        }
        if holder.is_some() {
            return Err("someone else holds it");
        }
        if distance(at, pos) > REACH + EPS {
            return Err("out of reach");
        }
        if kind == ItemKind::HealthKit {
            if let Some(b) = self.body_mut(me) {
                b.health = (b.health + amount).min(b.max_health);
            }
            self.destroy(item);
            return Ok(());
        }
        if let Some(EntityKind::Item { holder, .. }) = self.entity_mut(item).map(|e| &mut e.kind) {
            *holder = Some(me);
        }
        if let Some(b) = self.body_mut(me) {
            b.holding = Some(item);
        }
        Ok(())
    }

    /// The item agent `me` holds, if it is of this kind.
    pub fn held(&self, me: EntityId, kind: ItemKind) -> Option<EntityId> {
        let item = self.body(me)?.holding?;
        matches!(self.alive(item)?.kind, EntityKind::Item { item: k, .. } if k == kind)
            .then_some(item)
    }

    /// Agent `me` eats the food it holds.
    pub fn eat(&mut self, me: EntityId) -> bool {
        let Some(food) = self.held(me, ItemKind::Food) else {
            return false;
        };
        let amount = match self.alive(food).map(|e| &e.kind) {
            Some(EntityKind::Item { amount, .. }) => *amount,
            _ => 0.0,
        };
        if let Some(b) = self.body_mut(me) {
            let before = b.hunger;
            b.hunger = (b.hunger - amount).max(0.0);
            b.meals += 1;
            b.last_meal = Some((before, b.hunger));
        }
        self.destroy(food);
        true
    }

    /// Opens a door within reach of agent `me` (it is open afterwards); fails, saying
    /// why, when it is not a door or out of reach.
    pub fn open_door(&mut self, me: EntityId, door: EntityId) -> Result<(), &'static str> {
        let Some(at) = self.alive(me).map(|e| e.pos) else {
            return Err("the agent is gone");
        };
        match self.entity_mut(door) {
            Some(Entity {
                kind: EntityKind::Door { open },
                pos,
                alive: true,
                ..
            }) => {
                if distance(at, *pos) > REACH + EPS {
                    return Err("door out of reach");
                }
                *open = true;
                Ok(())
            }
            _ => Err("not a door"),
        }
    }

    /// Agent `me` passes the ball it holds to teammate `mate`: the ball lands one tile in
    /// front of the mate (on the passer's side) and the mate's `receive_pass` Interrupt is
    /// triggered with the ball as payload.
    pub fn pass_ball(&mut self, me: EntityId, mate: EntityId) -> Result<(), &'static str> {
        let Some(ball) = self.held(me, ItemKind::Ball) else {
            return Err("holds no ball");
        };
        let (Some(mine), Some(theirs)) = (self.body(me), self.body(mate)) else {
            return Err("no one to pass to");
        };
        if me == mate || mine.team != theirs.team {
            return Err("not a teammate");
        }
        let (Some(from), Some(to)) = (self.position_of(me), self.position_of(mate)) else {
            return Err("no one to pass to");
        };
        let d = distance(from, to);
        let landing = if d > 1.0 {
            let p = [to[0] + (from[0] - to[0]) / d, to[1] + (from[1] - to[1]) / d];
            if self.is_open(tile_of(p)) { p } else { to }
        } else {
            from
        };
        if let Some(e) = self.entity_mut(ball) {
            e.pos = [round_pos(landing[0]), round_pos(landing[1])];
            if let EntityKind::Item { holder, .. } = &mut e.kind {
                *holder = None;
            }
        }
        self.refile(ball);
        if let Some(b) = self.body_mut(me) {
            b.holding = None;
        }
        self.outbox.push(WorldTrigger {
            agent: mate,
            interrupt_id: "receive_pass",
            payload: CtxValue::Entity(ball),
        });
        Ok(())
    }

    /// Whether `other` is an enemy, an ally or any other agent of `me`, or an entity of
    /// the named kind (`food`, `door`…), as `FindClosest.what` means it.
    pub fn is_a(&self, me: EntityId, other: EntityId, what: &str) -> bool {
        let Some(e) = self.alive(other) else {
            return false;
        };
        if other == me {
            return false;
        }
        match (&e.kind, what) {
            (EntityKind::Agent(b), "enemy") => self.body(me).is_some_and(|m| m.team != b.team),
            (EntityKind::Agent(b), "ally") => self.body(me).is_some_and(|m| m.team == b.team),
            (EntityKind::Agent(_), "agent") => true,
            (EntityKind::Item { item, holder, .. }, w) => item.name() == w && holder.is_none(),
            (EntityKind::Door { .. }, "door") => true,
            (EntityKind::Waypoint, "waypoint") => true,
            _ => false,
        }
    }

    /// The closest living entity of a kind (see [`World::is_a`]) within `max_distance`;
    /// ties go to the entity listed first in the scenario.
    ///
    /// Only the entities of the kind's class near `me` are looked at (the spatial index):
    /// the rings of cells around it, until every entity that could be the answer was seen.
    pub fn closest(&self, me: EntityId, what: &str, max_distance: Option<f64>) -> Option<EntityId> {
        let at = self.position_of(me)?;
        let class = grid::class_named(what)?;
        let limit = max_distance.map(|m| m + EPS);
        let mut seen: Vec<(EntityId, f64)> = Vec::new();
        // The nearest distance seen, and how far the entities within EPS of it reach,
        // chained: those decide the answer; any farther one is replaced by the first of them.
        let mut reach = f64::INFINITY;
        self.grid.nearby(class, at, |near| match near {
            grid::Near::Entity(id) => {
                if self.is_a(me, id, what)
                    && let Some(p) = self.position_of(id)
                {
                    let d = distance(at, p);
                    if limit.is_none_or(|l| d <= l) {
                        seen.push((id, d));
                    }
                }
                false
            }
            grid::Near::Covered(covered) => {
                if limit.is_some_and(|l| covered > l) {
                    return true;
                }
                reach = chained_reach(&mut seen);
                covered > reach + EPS
            }
        });
        // Ties and near-ties go as they would in a scan of every entity in id order.
        seen.sort_unstable_by_key(|(id, _)| *id);
        let mut best: Option<(EntityId, f64)> = None;
        for (id, d) in seen {
            if best.is_none_or(|(_, bd)| d < bd - EPS) {
                best = Some((id, d));
            }
        }
        best.map(|(id, _)| id)
    }

    /// Ends a step of `dt` seconds: hunger grows, the clock advances.
    pub fn advance(&mut self, dt: f64) {
        for e in self.entities.iter_mut().filter(|e| e.alive) {
            if let EntityKind::Agent(b) = &mut e.kind {
                b.hunger = (b.hunger + b.hunger_rate * dt).min(1.0);
            }
        }
        self.step += 1;
        self.time += dt;
    }

    /// The arena as text, one character a tile: `#` wall, `.` floor, `+` closed door,
    /// `/` open door, `*` waypoint, `f` food, `h` health kit, `o` ball, and each living
    /// agent's letter from `agent_glyph`.
    pub fn render(&self, agent_glyph: impl Fn(EntityId) -> char) -> String {
        let (w, h) = (self.width as usize, self.height as usize);
        let mut grid: Vec<Vec<char>> = (0..h)
            .map(|y| {
                (0..w)
                    .map(|x| if self.walls[y * w + x] { '#' } else { '.' })
                    .collect()
            })
            .collect();
        // Lower layers first, so agents are drawn over items, items over doors and waypoints.
        for layer in 0..3 {
            for (i, e) in self.entities.iter().enumerate() {
                if !e.alive {
                    continue;
                }
                let (glyph, l) = match &e.kind {
                    EntityKind::Waypoint => ('*', 0),
                    EntityKind::Door { open: false } => ('+', 0),
                    EntityKind::Door { open: true } => ('/', 0),
                    EntityKind::Item {
                        holder: Some(_), ..
                    } => continue,
                    EntityKind::Item { item, .. } => (
                        match item {
                            ItemKind::Food => 'f',
                            ItemKind::HealthKit => 'h',
                            ItemKind::Ball => 'o',
                        },
                        1,
                    ),
                    EntityKind::Agent(_) => (agent_glyph(i as EntityId), 2),
                };
                let (x, y) = tile_of(e.pos);
                if l == layer && x >= 0 && y >= 0 && (x as usize) < w && (y as usize) < h {
                    grid[y as usize][x as usize] = glyph;
                }
            }
        }
        let mut out = String::with_capacity((w + 1) * h);
        for row in grid {
            out.extend(row);
            out.push('\n');
        }
        out
    }
}

/// The tile a point lies on.
pub fn tile_of(p: [f64; 2]) -> Tile {
    (p[0].round() as i32, p[1].round() as i32)
}

/// Straight-line distance.
pub fn distance(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// Positions are kept to 1/1024 of a tile so that sums of steps stay exact and traces
/// and summaries do not depend on the last bits of a float.
fn round_pos(v: f64) -> f64 {
    (v * 1024.0).round() / 1024.0
}
