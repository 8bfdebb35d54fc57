//! Handles: what C holds instead of pointers to Rust objects. A handle is a number naming
//! a slot of one table, with the object's type and the slot's generation in it, so that a
//! handle freed, of another type, or made up is refused with a code and never followed.
//!
//! Bits 56–63: the type (1 runtime, 2 tree, 3 agent, 4 trace, 5 link); 24–55: the slot's
//! generation when the object was put there; 0–23: the slot. 0 is never a handle.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::agent::Agent;
use crate::error::{
    ARBOR_ERR_ARGUMENT, ARBOR_ERR_BUSY, ARBOR_ERR_HANDLE, ARBOR_ERR_HANDLE_TYPE,
    ARBOR_ERR_INTERNAL, Failure, fail,
};
use crate::link::Link;
use crate::runtime::Runtime;
use crate::trace::Trace;
use crate::tree::Tree;

/// A handle's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Type {
    Runtime = 1,
    Tree = 2,
    Agent = 3,
    Trace = 4,
    Link = 5,
}

impl Type {
    fn of(tag: u64) -> Option<Self> {
        [
            Self::Runtime,
            Self::Tree,
            Self::Agent,
            Self::Trace,
            Self::Link,
        ]
        .into_iter()
        .find(|t| *t as u64 == tag)
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Runtime => "a runtime",
            Self::Tree => "a tree",
            Self::Agent => "an agent",
            Self::Trace => "a trace",
            Self::Link => "a link",
        }
    }
}

/// An object a handle names.
pub(crate) enum Object {
    Runtime(Arc<Exclusive<Runtime>>),
    Tree(Arc<Tree>),
    Agent(Arc<Exclusive<Agent>>),
    Trace(Arc<Exclusive<Trace>>),
    Link(Arc<Link>),
}

impl Object {
    fn kind(&self) -> Type {
        match self {
            Self::Runtime(_) => Type::Runtime,
            Self::Tree(_) => Type::Tree,
            Self::Agent(_) => Type::Agent,
            Self::Trace(_) => Type::Trace,
            Self::Link(_) => Type::Link,
        }
    }
}

struct Slot {
    generation: u32,
    object: Option<Object>,
}

/// Every live object, by slot.
pub(crate) struct Table {
    slots: Vec<Slot>,
    free: Vec<u32>,
}

static TABLE: RwLock<Table> = RwLock::new(Table {
    slots: Vec::new(),
    free: Vec::new(),
});

/// Slots: at most 16,777,216 objects live at once.
const SLOTS: usize = 1 << 24;

/// The table, to look handles up in. (A panic while it is held, caught at the boundary,
/// leaves the object it happened in refused; the table itself stays whole, so a poisoned
/// lock is taken anyway.)
pub(crate) fn read() -> RwLockReadGuard<'static, Table> {
    TABLE.read().unwrap_or_else(|p| p.into_inner())
}

/// The table, to change, or to step agents with every other call waiting.
pub(crate) fn write() -> RwLockWriteGuard<'static, Table> {
    TABLE.write().unwrap_or_else(|p| p.into_inner())
}

/// Puts `object` in the table; its handle, or none when 16,777,216 objects are live.
pub(crate) fn insert(object: Object) -> Result<u64, Failure> {
    let kind = object.kind() as u64;
    let mut t = write();
    let index = match t.free.pop() {
        Some(i) => i,
        None if t.slots.len() < SLOTS => {
            t.slots.push(Slot {
                generation: 1,
                object: None,
            });
            (t.slots.len() - 1) as u32
        }
        None => {
            return fail(
                ARBOR_ERR_ARGUMENT,
                "16,777,216 objects are live: free some first",
            );
        }
    };
    let slot = &mut t.slots[index as usize];
    slot.object = Some(object);
    Ok((kind << 56) | (u64::from(slot.generation) << 24) | u64::from(index))
}

/// Puts `object` in the table and writes its handle to `out`: what every call that makes
/// an object returns.
///
/// # Safety
/// `out` must be writable (each caller checks it is not null before it makes the object).
pub(crate) unsafe fn give(object: Object, out: *mut u64) -> Result<i32, Failure> {
    let h = insert(object)?;
    // SAFETY: the caller's contract.
    unsafe { out.write(h) };
    Ok(crate::error::ARBOR_OK)
}

/// Takes the object of `handle`, of type `want`, out of the table: its handle is dead
/// from now on.
pub(crate) fn remove(handle: u64, want: Type) -> Result<Object, Failure> {
    let mut t = write();
    let index = t.find(handle, want)?;
    let slot = &mut t.slots[index];
    // (A slot whose generations are all used is retired: no handle is ever taken for
    // another object's.)
    let retired = slot.generation == u32::MAX;
    slot.generation = slot.generation.wrapping_add(1);
    let object = slot.object.take();
    if !retired {
        t.free.push(index as u32);
    }
    object.map_or_else(|| fail(ARBOR_ERR_HANDLE, "no such handle"), Ok)
}

impl Table {
    /// The slot of `handle`, a live handle of type `want`.
    fn find(&self, handle: u64, want: Type) -> Result<usize, Failure> {
        let dead = || {
            fail(
                ARBOR_ERR_HANDLE,
                format!(
                    "handle {handle:#x} is not a live handle (freed, closed, or never made; 0 is none)"
                ),
            )
        };
        let Some(kind) = Type::of(handle >> 56) else {
            return dead();
        };
        let generation = ((handle >> 24) & 0xFFFF_FFFF) as u32;
        let index = (handle & 0xFF_FFFF) as usize;
        match self.slots.get(index) {
            Some(s) if s.generation == generation && s.object.is_some() => {}
            _ => return dead(),
        }
        if kind != want {
            return fail(
                ARBOR_ERR_HANDLE_TYPE,
                format!("handle {handle:#x} is {}, not {}", kind.name(), want.name()),
            );
        }
        Ok(index)
    }

    /// The object of `handle`, a live handle of type `want`.
    pub(crate) fn get(&self, handle: u64, want: Type) -> Result<&Object, Failure> {
        let index = self.find(handle, want)?;
        match &self.slots[index].object {
            Some(o) => Ok(o),
            None => fail(ARBOR_ERR_HANDLE, "no such handle"),
        }
    }

    /// The agent of `handle`, for this call alone: the table is held for writing, and
    /// every claim of an agent is taken while the table is held for reading ([`claim`]
    /// under [`read`]), so none can begin now; one that began before shows in the agent's
    /// state, and the agent is refused (`ARBOR_ERR_BUSY`). A fault inside Arbor while it
    /// is held leaves the agent refused, as a claim does.
    pub(crate) fn agent_alone(&mut self, handle: u64) -> Result<Claim<'_, Agent>, Failure> {
        let index = self.find(handle, Type::Agent)?;
        let Some(Object::Agent(a)) = &self.slots[index].object else {
            return fail(ARBOR_ERR_HANDLE_TYPE, "not an agent");
        };
        match a.state.load(Ordering::Acquire) {
            FREE => {}
            IN_USE => {
                return fail(
                    ARBOR_ERR_BUSY,
                    "the agent is in use by another call (on another thread): one call at a time",
                );
            }
            _ => {
                return fail(
                    ARBOR_ERR_INTERNAL,
                    "the agent was left unusable by an earlier internal error; free it",
                );
            }
        }
        Ok(Claim {
            of: a,
            claimed: false,
        })
    }

    /// The agent of `handle`.
    pub(crate) fn agent(&self, handle: u64) -> Result<&Arc<Exclusive<Agent>>, Failure> {
        match self.get(handle, Type::Agent)? {
            Object::Agent(a) => Ok(a),
            _ => fail(ARBOR_ERR_HANDLE_TYPE, "not an agent"),
        }
    }
}

/// The runtime of `handle`.
pub(crate) fn runtime(handle: u64) -> Result<Arc<Exclusive<Runtime>>, Failure> {
    match read().get(handle, Type::Runtime)? {
        Object::Runtime(r) => Ok(r.clone()),
        _ => fail(ARBOR_ERR_HANDLE_TYPE, "not a runtime"),
    }
}

/// The tree of `handle`.
pub(crate) fn tree(handle: u64) -> Result<Arc<Tree>, Failure> {
    match read().get(handle, Type::Tree)? {
        Object::Tree(t) => Ok(t.clone()),
        _ => fail(ARBOR_ERR_HANDLE_TYPE, "not a tree"),
    }
}

/// The trace of `handle`.
pub(crate) fn trace(handle: u64) -> Result<Arc<Exclusive<Trace>>, Failure> {
    match read().get(handle, Type::Trace)? {
        Object::Trace(t) => Ok(t.clone()),
        _ => fail(ARBOR_ERR_HANDLE_TYPE, "not a trace"),
    }
}

/// The link of `handle`.
pub(crate) fn link(handle: u64) -> Result<Arc<Link>, Failure> {
    match read().get(handle, Type::Link)? {
        Object::Link(l) => Ok(l.clone()),
        _ => fail(ARBOR_ERR_HANDLE_TYPE, "not a link"),
    }
}

/// An object one call at a time uses: a call that finds it in use is refused at once
/// (`ARBOR_ERR_BUSY`), never made to wait; one a fault inside Arbor left half-changed
/// refuses every later call (`ARBOR_ERR_INTERNAL`). Cheaper than a mutex on the step's
/// path: taking it is one atomic exchange, giving it back one store.
pub(crate) struct Exclusive<T> {
    state: AtomicU8,
    value: UnsafeCell<T>,
}

const FREE: u8 = 0;
const IN_USE: u8 = 1;
const BROKEN: u8 = 2;

// SAFETY: the value is reached only through a `Claim`, of which `state` lets one exist at
// a time, so it moves between threads as a `T` alone would.
unsafe impl<T: Send> Send for Exclusive<T> {}
// SAFETY: as for Send: one `Claim` at a time gives `&mut T` to one thread.
unsafe impl<T: Send> Sync for Exclusive<T> {}

impl<T> Exclusive<T> {
    pub(crate) fn new(value: T) -> Self {
        Self {
            state: AtomicU8::new(FREE),
            value: UnsafeCell::new(value),
        }
    }
}

/// The use of an [`Exclusive`] object by one call: taken by [`claim`] (the object's state
/// says so until it drops), or had alone under the table held for writing
/// ([`Table::agent_alone`], where no claim can begin). A fault inside Arbor while it is
/// held leaves the object refused.
pub(crate) struct Claim<'a, T> {
    of: &'a Exclusive<T>,
    /// Whether this claim set the object's state (and gives it back as it drops).
    claimed: bool,
}

impl<T> std::ops::Deref for Claim<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: this is the only use: its state is IN_USE until the claim drops, or the
        // table is held for writing (the claim borrows it) and no claim exists.
        unsafe { &*self.of.value.get() }
    }
}

impl<T> std::ops::DerefMut for Claim<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as for Deref.
        unsafe { &mut *self.of.value.get() }
    }
}

impl<T> Drop for Claim<'_, T> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.of.state.store(BROKEN, Ordering::Release);
        } else if self.claimed {
            self.of.state.store(FREE, Ordering::Release);
        }
    }
}

/// `object` for this call alone, or `ARBOR_ERR_BUSY` when another call has it, or
/// `ARBOR_ERR_INTERNAL` when a fault inside Arbor left it half-changed.
#[inline]
pub(crate) fn claim<'a, T>(object: &'a Exclusive<T>, what: &str) -> Result<Claim<'a, T>, Failure> {
    match object
        .state
        .compare_exchange(FREE, IN_USE, Ordering::Acquire, Ordering::Relaxed)
    {
        Ok(_) => Ok(Claim {
            of: object,
            claimed: true,
        }),
        Err(IN_USE) => fail(
            ARBOR_ERR_BUSY,
            format!(
                "{what} is in use by another call (on another thread, or the step whose callback this is): one call at a time"
            ),
        ),
        Err(_) => fail(
            ARBOR_ERR_INTERNAL,
            format!("{what} was left unusable by an earlier internal error; free it"),
        ),
    }
}
