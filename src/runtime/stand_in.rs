//! Stand-ins: what a node library's leaf or condition does while the game's behaviour for
//! it is not there (in the editor, in `arbor run`): its library's script, run as
//! `MockAction`'s or `MockCondition`'s, unless the person debugging forces its result.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::mocks::{MockAction, MockCondition};
use super::{Action, CondIo, Condition, LeafIo, Outcome};

/// The results forced on stand-in nodes, by trace id (`SUBTREE-ID/INNER-ID` inside a
/// SubTree), shared by every program compiled with the same [`super::Behaviours`] and by
/// every copy of an instance. Forcing is an input from the person debugging, like a
/// trigger: it holds from the node's next execute or check on. (The debugging core records
/// it by step, so that steps rebuilt after going back take it when they took it first.)
#[derive(Clone, Debug, Default)]
pub struct StandIns {
    cells: Arc<Mutex<BTreeMap<String, Cell>>>,
}

/// One stand-in node's forced result, and whether it is a condition.
#[derive(Clone, Debug)]
struct Cell {
    forced: Arc<AtomicU8>,
    condition: bool,
}

/// A forced result in a cell: none, or an [`Outcome`].
const NOT_FORCED: u8 = 0;

fn encode(o: Option<Outcome>) -> u8 {
    match o {
        None => NOT_FORCED,
        Some(Outcome::Running) => 1,
        Some(Outcome::Success) => 2,
        Some(Outcome::Failure | Outcome::FailureBecause(_)) => 3,
    }
}

fn decode(v: u8) -> Option<Outcome> {
    match v {
        1 => Some(Outcome::Running),
        2 => Some(Outcome::Success),
        3 => Some(Outcome::Failure),
        _ => None,
    }
}

impl StandIns {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Cell>> {
        self.cells.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The forced result of the stand-in node `id` (made on first use).
    pub(super) fn cell(&self, id: &str, condition: bool) -> Arc<AtomicU8> {
        self.lock()
            .entry(id.to_owned())
            .or_insert_with(|| Cell {
                forced: Arc::default(),
                condition,
            })
            .forced
            .clone()
    }

    /// Forces the stand-in node `id` to report `outcome` from now on (a condition: success
    /// holds, failure does not), or, with `None`, lets it follow its script again. False,
    /// and nothing changes, when no stand-in node has this id or a condition is asked to
    /// keep running.
    pub fn force(&self, id: &str, outcome: Option<Outcome>) -> bool {
        match self.lock().get(id) {
            Some(c) if c.condition && outcome == Some(Outcome::Running) => false,
            Some(c) => {
                c.forced.store(encode(outcome), Ordering::Relaxed);
                true
            }
            None => false,
        }
    }

    /// What the stand-in node `id` is forced to, if anything.
    pub fn forced(&self, id: &str) -> Option<Outcome> {
        self.lock()
            .get(id)
            .and_then(|c| decode(c.forced.load(Ordering::Relaxed)))
    }

    /// Whether a node with this id runs as a stand-in, and whether it is a condition.
    pub fn kind_of(&self, id: &str) -> Option<StandInKind> {
        self.lock().get(id).map(|c| {
            if c.condition {
                StandInKind::Condition
            } else {
                StandInKind::Action
            }
        })
    }

    /// Lets every stand-in follow its script again.
    pub fn clear(&self) {
        for c in self.lock().values() {
            c.forced.store(NOT_FORCED, Ordering::Relaxed);
        }
    }
}

/// What a stand-in node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StandInKind {
    /// A leaf: it can be forced to succeed, fail or keep running.
    Action,
    /// A condition: it can be forced to hold or not.
    Condition,
}

/// A library leaf without a behaviour: its stand-in script, unless forced.
pub(super) struct StandInAction {
    pub(super) mock: MockAction,
    pub(super) forced: Arc<AtomicU8>,
}

impl<A> Action<A> for StandInAction {
    type Memory = usize;

    fn on_enter(&self, executed: &mut usize, agent: &mut A, io: &mut LeafIo<'_>) {
        self.mock.on_enter(executed, agent, io);
    }

    fn on_execute(
        &self,
        executed: &mut usize,
        agent: &mut A,
        io: &mut LeafIo<'_>,
        dt: f64,
    ) -> Outcome {
        let scripted = self.mock.on_execute(executed, agent, io, dt);
        match decode(self.forced.load(Ordering::Relaxed)) {
            // The log says why: the designer forced it.
            Some(Outcome::Failure) => Outcome::FailureBecause("forced in the editor"),
            forced => forced.unwrap_or(scripted),
        }
    }
}

/// A library condition without a behaviour: its stand-in script, unless forced.
pub(super) struct StandInCondition {
    pub(super) mock: MockCondition,
    pub(super) forced: Arc<AtomicU8>,
}

impl<A> Condition<A> for StandInCondition {
    fn check(&self, agent: &mut A, io: &CondIo<'_>) -> bool {
        match decode(self.forced.load(Ordering::Relaxed)) {
            Some(Outcome::Success) => true,
            Some(Outcome::Failure) => false,
            _ => self.mock.check(agent, io),
        }
    }
}
