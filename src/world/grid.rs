//! A spatial index of the world's living entities: a uniform grid of cells, one per class
//! of entity (agents, each kind of item, doors, waypoints), so that finding the closest
//! entity of a kind and checking an agent's personal space look only at the cells nearby,
//! and a step of many agents costs time linear in the agents.
//!
//! Results never depend on the order of a cell's list: callers sort what they collect by
//! id, or ask whether all of it passes a test.

use std::collections::{BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use super::{EntityId, EntityKind, ItemKind};

/// Cell side, in tiles: at least the personal space, so a 3 × 3 block of cells holds
/// every agent that close to a point.
const CELL: f64 = 1.0;

const _: () = assert!(CELL >= super::PERSONAL_SPACE);

/// The classes of entity, each indexed apart.
const CLASSES: usize = 6;

/// Which class an entity is filed under.
pub(super) fn class_of(kind: &EntityKind) -> usize {
    match kind {
        EntityKind::Agent(_) => 0,
        EntityKind::Item {
            item: ItemKind::Food,
            ..
        } => 1,
        EntityKind::Item {
            item: ItemKind::HealthKit,
            ..
        } => 2,
        EntityKind::Item {
            item: ItemKind::Ball,
            ..
        } => 3,
        EntityKind::Door { .. } => 4,
        EntityKind::Waypoint => 5,
    }
}

/// The class `FindClosest.what` looks in; `None` for a name no entity answers to.
pub(super) fn class_named(what: &str) -> Option<usize> {
    Some(match what {
        "enemy" | "ally" | "agent" => 0,
        "food" => 1,
        "health_kit" => 2,
        "ball" => 3,
        "door" => 4,
        "waypoint" => 5,
        _ => return None,
    })
}

/// What [`Grid::nearby`] gives.
pub(super) enum Near {
    /// An entity of the class.
    Entity(EntityId),
    /// Every entity of the class within this distance has been given.
    Covered(f64),
}

/// The agents' class.
pub(super) const AGENTS: usize = 0;

/// A hasher for cell and tile numbers: one multiplication (Fibonacci hashing). They are
/// looked up many times a step, and need no protection from an adversary.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct CellHasher(u64);

impl Hasher for CellHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A map keyed by cell or tile number.
pub(super) type NumberMap<V> = HashMap<usize, V, BuildHasherDefault<CellHasher>>;

type Cells = NumberMap<Vec<(EntityId, [f64; 2])>>;

#[derive(Clone, Debug, Default)]
struct Class {
    /// The entities of each occupied cell with their positions, in no order. Only occupied
    /// cells are kept: a world is cloned for each step the debugger keeps, and a large
    /// arena is mostly empty.
    cells: Cells,
    /// Every entity of the class, by id.
    members: BTreeSet<EntityId>,
}

/// The grid over an arena.
#[derive(Clone, Debug)]
pub(super) struct Grid {
    cols: usize,
    rows: usize,
    classes: Vec<Class>,
    /// Where each entity is filed: its class and cell; none when it is not alive.
    filed: Vec<Option<(usize, usize)>>,
    /// Where each entity was filed.
    positions: Vec<[f64; 2]>,
}

/// A class with at most this many members is looked through whole: cheaper than cells.
const FEW: usize = 16;

impl Grid {
    /// An empty grid over an arena of `width` × `height` tiles.
    pub(super) fn new(width: i32, height: i32) -> Self {
        let side = |n: i32| (f64::from(n.max(1)) / CELL).ceil() as usize + 1;
        let (cols, rows) = (side(width), side(height));
        Self {
            cols,
            rows,
            classes: vec![Class::default(); CLASSES],
            filed: Vec::new(),
            positions: Vec::new(),
        }
    }

    /// The cell of a point (points outside the arena go to its edge cells).
    fn cell(&self, p: [f64; 2]) -> (usize, usize) {
        let at = |v: f64, n: usize| {
            let c = ((v + 0.5) / CELL).floor();
            if c.is_nan() || c < 0.0 {
                0
            } else {
                (c as usize).min(n - 1)
            }
        };
        (at(p[0], self.cols), at(p[1], self.rows))
    }

    /// Files entity `id` where it is now (alive, of `class`, at `pos`), or takes it out
    /// when it is not alive.
    pub(super) fn file(&mut self, id: EntityId, class: usize, pos: [f64; 2], alive: bool) {
        let Ok(i) = usize::try_from(id) else { return };
        if self.filed.len() <= i {
            self.filed.resize(i + 1, None);
            self.positions.resize(i + 1, [0.0, 0.0]);
        }
        self.positions[i] = pos;
        let now = alive.then(|| {
            let (x, y) = self.cell(pos);
            (class, y * self.cols + x)
        });
        let before = self.filed[i];
        if before == now {
            // The same cell: only the position it is kept with changes.
            if let Some((class, cell)) = now
                && let Some(entry) = self.classes[class]
                    .cells
                    .get_mut(&cell)
                    .and_then(|v| v.iter_mut().find(|(e, _)| *e == id))
            {
                entry.1 = pos;
            }
            return;
        }
        if let Some((class, cell)) = before {
            let c = &mut self.classes[class];
            if let Some(list) = c.cells.get_mut(&cell) {
                if let Some(at) = list.iter().position(|(e, _)| *e == id) {
                    list.swap_remove(at);
                }
                if list.is_empty() {
                    c.cells.remove(&cell);
                }
            }
            c.members.remove(&id);
        }
        if let Some((class, cell)) = now {
            let c = &mut self.classes[class];
            c.cells.entry(cell).or_default().push((id, pos));
            c.members.insert(id);
        }
        self.filed[i] = now;
    }

    /// Every entity of `class` near `at`, nearest cells first: gives `f` each entity of a
    /// ring of cells ([`Near::Entity`]), then the distance within which every entity of
    /// the class has now been given ([`Near::Covered`]); stops when `f` answers true to
    /// that, when every member was given, or at the grid's edge. A sparse class (too few
    /// members for the rings to pay) is given whole, in id order.
    pub(super) fn nearby(&self, class: usize, at: [f64; 2], mut f: impl FnMut(Near) -> bool) {
        let c = &self.classes[class];
        let cells = self.cols * self.rows;
        if c.members.len().saturating_mul(c.members.len()) < cells {
            c.members.iter().for_each(|&id| {
                f(Near::Entity(id));
            });
            return;
        }
        let (cx, cy) = self.cell(at);
        // The farthest cell of the grid from the centre one.
        let last = cx.max(self.cols - 1 - cx).max(cy).max(self.rows - 1 - cy) as i64;
        let (cx, cy) = (cx as i64, cy as i64);
        let mut given = 0;
        for k in 0..=last {
            for (x, y) in ring(cx, cy, k) {
                if x < 0 || y < 0 || x >= self.cols as i64 || y >= self.rows as i64 {
                    continue;
                }
                let cell = y as usize * self.cols + x as usize;
                for &(id, _) in c.cells.get(&cell).into_iter().flatten() {
                    given += 1;
                    f(Near::Entity(id));
                }
            }
            // Cells k + 1 away start more than k cells' width from any point of the
            // centre cell.
            if given >= c.members.len() || f(Near::Covered(k as f64 * CELL)) {
                return;
            }
        }
    }

    /// Whether `test` holds for every entity of `class` in the 3 × 3 cells around `at`
    /// (all those within one cell side of it; for a class of few members, every member),
    /// given with its position, in no order.
    pub(super) fn all_around(
        &self,
        class: usize,
        at: [f64; 2],
        mut test: impl FnMut(EntityId, [f64; 2]) -> bool,
    ) -> bool {
        let c = &self.classes[class];
        if c.members.len() <= FEW {
            return c
                .members
                .iter()
                .all(|&id| test(id, self.positions[id as usize]));
        }
        let (cx, cy) = self.cell(at);
        for y in cy.saturating_sub(1)..=(cy + 1).min(self.rows - 1) {
            for x in cx.saturating_sub(1)..=(cx + 1).min(self.cols - 1) {
                for &(id, pos) in c.cells.get(&(y * self.cols + x)).into_iter().flatten() {
                    if !test(id, pos) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Bytes the grid keeps on the heap, roughly.
    pub(super) fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.filed.capacity() * size_of::<Option<(usize, usize)>>()
            + self.positions.capacity() * size_of::<[f64; 2]>()
            + self
                .classes
                .iter()
                .map(|c| {
                    c.cells.capacity() * (size_of::<usize>() + size_of::<Vec<EntityId>>())
                        + c.cells
                            .values()
                            .map(|v| v.capacity() * size_of::<(EntityId, [f64; 2])>())
                            .sum::<usize>()
                        + c.members.len() * 3 * size_of::<EntityId>()
                })
                .sum::<usize>()
    }
}

/// The cells exactly `k` cells from `(cx, cy)` (the square ring; the centre for 0).
fn ring(cx: i64, cy: i64, k: i64) -> impl Iterator<Item = (i64, i64)> {
    let top = (cx - k..=cx + k).map(move |x| (x, cy - k));
    let bottom = (cx - k..=cx + k)
        .filter(move |_| k > 0)
        .map(move |x| (x, cy + k));
    let sides = (cy - k + 1..cy + k).flat_map(move |y| [(cx - k, y), (cx + k, y)]);
    top.chain(bottom).chain(sides)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ring_has_each_cell_at_that_distance_once() {
        for k in 0..5 {
            let mut cells: Vec<(i64, i64)> = ring(10, 20, k).collect();
            let n = cells.len();
            cells.sort_unstable();
            cells.dedup();
            assert_eq!(cells.len(), n);
            assert_eq!(n as i64, if k == 0 { 1 } else { 8 * k });
            assert!(
                cells
                    .iter()
                    .all(|(x, y)| (x - 10).abs().max((y - 20).abs()) == k)
            );
        }
    }
}
