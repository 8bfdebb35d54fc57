//! What a step touches of one instance, in a single block of memory: each node's run
//! record and status, the timers, and every leaf's action memory.
//!
//! Actions are registered with their concrete type (`Behaviours::action`), so the
//! program keeps, per leaf, the action object all agents share (its settings) and the
//! functions of that type — make and drop its memory, call it — monomorphised. An
//! instance makes each leaf's `Action::Memory` in one block laid out and aligned for them
//! and for the node records. A step then reaches a leaf's state by adding an offset to one
//! pointer, where a box per leaf meant a pointer chase to its own allocation, and all it
//! touches of the instance lies in one place (few cache lines, one or two pages). What
//! does not change per agent stays in the program, once: an agent keeps only what its
//! actions remember between calls.
//!
//! This is the crate's only unsafe code. The invariants it rests on:
//! - each region (records, timers, words, statuses, each action) lies inside `SlabPlan::layout`,
//!   aligned for its type and overlapping no other (`SlabPlan::new` builds them with
//!   `Layout::extend`);
//! - an `ActionSlab` only uses the plan it was made from (it holds that plan, which owns
//!   the shared action objects the calls point to), and every value in it is initialised
//!   before the slab is handed out; the memories are dropped exactly once (records,
//!   timers, words and statuses are `Copy`);
//! - a [`LeafCalls`], one leaf's calls kept with the leaf's other data, holds the plan it
//!   was made from, and is used on a block only after checking that the same plan laid
//!   the block out;
//! - values are changed only through `&mut ActionSlab`, so access is exclusive.
#![allow(unsafe_code)]

use std::alloc::{self, Layout};
use std::ptr::NonNull;
use std::sync::Arc;

use super::Status;
use super::behaviour::{Action, LeafIo, Outcome};

type EnterFn<A> = unsafe fn(*const u8, *mut u8, &mut A, &mut LeafIo<'_>);
type ExecuteFn<A> = unsafe fn(*const u8, *mut u8, &mut A, &mut LeafIo<'_>, f64) -> Outcome;
type ExitFn<A> = unsafe fn(*const u8, *mut u8, &mut A, &mut LeafIo<'_>, Status);

/// # Safety (the three calls)
/// `this` points to a live `T` (shared), `mem` to a live, exclusively borrowed
/// `T::Memory`.
unsafe fn enter<A, T: Action<A>>(
    this: *const u8,
    mem: *mut u8,
    agent: &mut A,
    io: &mut LeafIo<'_>,
) {
    // SAFETY: the caller's contract.
    unsafe { (*this.cast::<T>()).on_enter(&mut *mem.cast::<T::Memory>(), agent, io) }
}

unsafe fn execute<A, T: Action<A>>(
    this: *const u8,
    mem: *mut u8,
    agent: &mut A,
    io: &mut LeafIo<'_>,
    dt: f64,
) -> Outcome {
    // SAFETY: the caller's contract.
    unsafe { (*this.cast::<T>()).on_execute(&mut *mem.cast::<T::Memory>(), agent, io, dt) }
}

unsafe fn exit<A, T: Action<A>>(
    this: *const u8,
    mem: *mut u8,
    agent: &mut A,
    io: &mut LeafIo<'_>,
    s: Status,
) {
    // SAFETY: the caller's contract.
    unsafe { (*this.cast::<T>()).on_exit(&mut *mem.cast::<T::Memory>(), agent, io, s) }
}

/// # Safety
/// `p` is valid for writes of `M` and aligned for it.
unsafe fn write_default<M: Default>(p: *mut u8) {
    // SAFETY: the caller's contract.
    unsafe { p.cast::<M>().write(M::default()) }
}

/// # Safety
/// `from` points to a live `M`; `to` is valid for writes of `M` and aligned for it.
unsafe fn clone_value<M: Clone>(from: *const u8, to: *mut u8) {
    // SAFETY: the caller's contract.
    unsafe { to.cast::<M>().write((*from.cast::<M>()).clone()) }
}

/// # Safety
/// `p` points to a live `M`, which is not used again.
unsafe fn drop_value<M>(p: *mut u8) {
    // SAFETY: the caller's contract.
    unsafe { p.cast::<M>().drop_in_place() }
}

/// One leaf's action: the object every agent shares (its settings) and the functions of
/// its type, including those that make and drop each agent's memory for it.
pub(crate) struct ActionType<A> {
    shared: Box<dyn std::any::Any + Send + Sync>,
    /// The layout of its `Memory`.
    layout: Layout,
    init: unsafe fn(*mut u8),
    clone: unsafe fn(*const u8, *mut u8),
    enter: EnterFn<A>,
    execute: ExecuteFn<A>,
    exit: ExitFn<A>,
    drop: unsafe fn(*mut u8),
}

impl<A> ActionType<A> {
    /// The action of a leaf whose agents share `action` and each keep a `T::Memory`.
    pub(crate) fn new<T: Action<A> + 'static>(action: T) -> Self {
        Self {
            shared: Box::new(action),
            layout: Layout::new::<T::Memory>(),
            init: write_default::<T::Memory>,
            clone: clone_value::<T::Memory>,
            enter: enter::<A, T>,
            execute: execute::<A, T>,
            exit: exit::<A, T>,
            drop: drop_value::<T::Memory>,
        }
    }
}

/// The address of a leaf's shared action object, which its [`SlabPlan`] owns (boxed, so
/// it never moves while the plan lives).
struct SharedPtr(NonNull<u8>);

// SAFETY: it points to an `Action`, which is `Send + Sync`, and is only read through.
unsafe impl Send for SharedPtr {}
// SAFETY: as above.
unsafe impl Sync for SharedPtr {}

/// What a call needs, kept apart from the action objects so the hot table stays small.
struct Calls<A> {
    offset: usize,
    this: SharedPtr,
    enter: EnterFn<A>,
    execute: ExecuteFn<A>,
    exit: ExitFn<A>,
}

/// One leaf's calls, kept with the leaf's other data (`LeafInfo::calls`), so that calling
/// its action reads no table by slot. It keeps the plan it comes from alive, and each call
/// checks (one compare) that the block it is made on was laid out by that plan.
pub(crate) struct LeafCalls<A> {
    plan: Arc<SlabPlan<A>>,
    calls: Calls<A>,
}

impl<A> LeafCalls<A> {
    /// The calls of leaf `slot` of `plan`; `None` past its last leaf.
    pub(crate) fn of(plan: &Arc<SlabPlan<A>>, slot: usize) -> Option<Self> {
        let c = plan.calls.get(slot)?;
        Some(Self {
            plan: plan.clone(),
            calls: Calls {
                offset: c.offset,
                this: SharedPtr(c.this.0),
                enter: c.enter,
                execute: c.execute,
                exit: c.exit,
            },
        })
    }

    /// Calls that no block accepts, for what is not a leaf: `none` is a plan of its own.
    pub(crate) fn none(none: &Arc<SlabPlan<A>>) -> Self {
        Self {
            plan: none.clone(),
            calls: Calls {
                offset: 0,
                this: SharedPtr(NonNull::dangling()),
                enter: |_, _, _, _| {},
                execute: |_, _, _, _, _| Outcome::Failure,
                exit: |_, _, _, _, _| {},
            },
        }
    }

    /// Where the leaf's memory lies in a block, in bytes from its start.
    #[inline]
    pub(crate) fn offset(&self) -> usize {
        self.calls.offset
    }

    /// The calls, for a block that `plan` laid out (a panic otherwise: a bug).
    #[inline(always)]
    fn checked(&self, plan: &Arc<SlabPlan<A>>) -> &Calls<A> {
        assert!(
            Arc::ptr_eq(&self.plan, plan),
            "a leaf's calls used on a block of another tree"
        );
        &self.calls
    }
}

/// Where everything lives in an instance's block; shared by every instance.
pub(crate) struct SlabPlan<A> {
    types: Vec<ActionType<A>>,
    calls: Vec<Calls<A>>,
    layout: Layout,
    /// Number of 32-bit record words (a node's run record is one or two, see
    /// `Rec::ri`), at offset 0.
    records: usize,
    /// Number of nodes: statuses at `status_at`.
    nodes: usize,
    status_at: usize,
    /// Number of timers, at `timers_at`.
    timers: usize,
    timers_at: usize,
    /// Number of 64-bit words (the few nodes that keep a step or a count), at `words_at`.
    words: usize,
    words_at: usize,
}

impl<A> SlabPlan<A> {
    /// Lays out `records` record words, `timers` timers, `words` words, the statuses of
    /// `nodes` nodes, then the leaves' actions one after another, each at an offset
    /// aligned for it.
    pub(crate) fn new(
        nodes: usize,
        records: usize,
        timers: usize,
        words: usize,
        types: Vec<ActionType<A>>,
    ) -> Result<Self, String> {
        let err = |e: std::alloc::LayoutError| e.to_string();
        let layout = Layout::array::<u32>(records).map_err(err)?;
        let (layout, timers_at) = layout
            .extend(Layout::array::<f64>(timers).map_err(err)?)
            .map_err(err)?;
        let (layout, words_at) = layout
            .extend(Layout::array::<u64>(words).map_err(err)?)
            .map_err(err)?;
        let (mut layout, status_at) = layout
            .extend(Layout::array::<Status>(nodes).map_err(err)?)
            .map_err(err)?;
        let mut calls = Vec::with_capacity(types.len());
        for t in &types {
            let (grown, offset) = layout.extend(t.layout).map_err(|e| e.to_string())?;
            layout = grown;
            calls.push(Calls {
                offset,
                this: SharedPtr(NonNull::from(&*t.shared).cast::<u8>()),
                enter: t.enter,
                execute: t.execute,
                exit: t.exit,
            });
        }
        Ok(Self {
            types,
            calls,
            layout: layout.pad_to_align(),
            records,
            nodes,
            status_at,
            timers,
            timers_at,
            words,
            words_at,
        })
    }

    /// No nodes.
    pub(crate) fn empty() -> Self {
        Self {
            types: Vec::new(),
            calls: Vec::new(),
            layout: Layout::new::<()>(),
            records: 0,
            nodes: 0,
            status_at: 0,
            timers: 0,
            timers_at: 0,
            words: 0,
            words_at: 0,
        }
    }

    /// Number of leaves.
    pub(crate) fn len(&self) -> usize {
        self.types.len()
    }

    /// Bytes of one instance's block.
    pub(crate) fn size(&self) -> usize {
        self.layout.size()
    }
}

/// One instance's block: node records, timers, words, statuses, and an action memory per
/// leaf.
pub(crate) struct ActionSlab<A> {
    base: NonNull<u8>,
    plan: Arc<SlabPlan<A>>,
}

// SAFETY: every value in the block is an `Action::Memory`, which is `Send`; the block is
// owned.
unsafe impl<A> Send for ActionSlab<A> {}

/// Drops the first `ready` memories and frees the block; used by `Drop` and, if a
/// `Default` panics, to clean up a half-built slab.
struct Teardown<'a, A> {
    base: NonNull<u8>,
    plan: &'a SlabPlan<A>,
    ready: usize,
}

impl<A> Drop for Teardown<'_, A> {
    fn drop(&mut self) {
        for (t, c) in self
            .plan
            .types
            .iter()
            .zip(&self.plan.calls)
            .take(self.ready)
        {
            // SAFETY: values `..ready` were written by `ActionSlab::new` and not dropped.
            unsafe { (t.drop)(self.base.as_ptr().add(c.offset)) }
        }
        if self.plan.layout.size() != 0 {
            // SAFETY: allocated in `ActionSlab::new` with this layout.
            unsafe { alloc::dealloc(self.base.as_ptr(), self.plan.layout) }
        }
    }
}

impl<A> ActionSlab<A> {
    /// An uninitialised block for `plan`.
    fn allocate(plan: &SlabPlan<A>) -> NonNull<u8> {
        let layout = plan.layout;
        if layout.size() == 0 {
            // Nothing to store (an empty plan; a compiled program always has Root): any
            // aligned, non-null address serves.
            NonNull::new(std::ptr::without_provenance_mut::<u8>(layout.align()))
                .unwrap_or(NonNull::dangling())
        } else {
            // SAFETY: the layout has a non-zero size.
            let p = unsafe { alloc::alloc(layout) };
            NonNull::new(p).unwrap_or_else(|| alloc::handle_alloc_error(layout))
        }
    }

    /// A block of idle nodes and a fresh (`Default`) memory for every leaf's action.
    pub(crate) fn new(plan: &Arc<SlabPlan<A>>) -> Self {
        let base = Self::allocate(plan);
        for i in 0..plan.records {
            // SAFETY: record word `i` lies inside the block, aligned (`SlabPlan::new`).
            unsafe { base.as_ptr().cast::<u32>().add(i).write(0) }
        }
        for i in 0..plan.nodes {
            // SAFETY: status `i` lies inside the block (`SlabPlan::new`).
            unsafe {
                base.as_ptr()
                    .add(plan.status_at)
                    .cast::<Status>()
                    .add(i)
                    .write(Status::Idle);
            }
        }
        for i in 0..plan.timers {
            // SAFETY: timer `i` lies inside the block, aligned (`SlabPlan::new`).
            unsafe {
                base.as_ptr()
                    .add(plan.timers_at)
                    .cast::<f64>()
                    .add(i)
                    .write(0.0);
            }
        }
        for i in 0..plan.words {
            // SAFETY: word `i` lies inside the block, aligned (`SlabPlan::new`).
            unsafe {
                base.as_ptr()
                    .add(plan.words_at)
                    .cast::<u64>()
                    .add(i)
                    .write(0)
            }
        }
        let mut guard = Teardown {
            base,
            plan,
            ready: 0,
        };
        for (t, c) in plan.types.iter().zip(&plan.calls) {
            // SAFETY: `offset` is inside the block and aligned for the memory's type
            // (`SlabPlan::new`); nothing lives there yet.
            unsafe { (t.init)(base.as_ptr().add(c.offset)) };
            guard.ready += 1;
        }
        std::mem::forget(guard);
        Self {
            base,
            plan: plan.clone(),
        }
    }

    /// The `len` values of type `T` at byte `at` of the block.
    ///
    /// # Safety
    /// `len` initialised values of `T` lie at `at`, aligned for `T` (a region of the plan,
    /// written by `new`).
    #[inline]
    unsafe fn region<T>(&self, at: usize, len: usize) -> &[T] {
        // SAFETY: the caller's contract; shared access via `&self`.
        unsafe { std::slice::from_raw_parts(self.base.as_ptr().add(at).cast::<T>(), len) }
    }

    /// [`ActionSlab::region`], to change.
    ///
    /// # Safety
    /// As for `region`.
    #[inline]
    unsafe fn region_mut<T>(&mut self, at: usize, len: usize) -> &mut [T] {
        // SAFETY: the caller's contract; `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.base.as_ptr().add(at).cast::<T>(), len) }
    }

    /// The record words (see `Rec::ri`).
    #[inline]
    pub(crate) fn rt(&self) -> &[u32] {
        // SAFETY: `new` initialised `records` words at offset 0.
        unsafe { self.region(0, self.plan.records) }
    }

    /// The record words, to change.
    #[inline]
    pub(crate) fn rt_mut(&mut self) -> &mut [u32] {
        // SAFETY: as in `rt`.
        unsafe { self.region_mut(0, self.plan.records) }
    }

    /// The timers (seconds), by timer number.
    #[inline]
    pub(crate) fn timers(&self) -> &[f64] {
        // SAFETY: `new` initialised `timers` values at `timers_at`.
        unsafe { self.region(self.plan.timers_at, self.plan.timers) }
    }

    /// The timers, to change.
    #[inline]
    pub(crate) fn timers_mut(&mut self) -> &mut [f64] {
        // SAFETY: `new` initialised `timers` values at `timers_at`.
        unsafe { self.region_mut(self.plan.timers_at, self.plan.timers) }
    }

    /// The words (a step or a count, see `Rec::slot`), by word number.
    #[inline]
    pub(crate) fn words(&self) -> &[u64] {
        // SAFETY: `new` initialised `words` values at `words_at`.
        unsafe { self.region(self.plan.words_at, self.plan.words) }
    }

    /// The words, to change.
    #[inline]
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        // SAFETY: as in `words`.
        unsafe { self.region_mut(self.plan.words_at, self.plan.words) }
    }

    /// Each node's status.
    #[inline]
    pub(crate) fn status(&self) -> &[Status] {
        // SAFETY: `new` initialised `nodes` statuses at `status_at`.
        unsafe { self.region(self.plan.status_at, self.plan.nodes) }
    }

    /// Each node's status, to change.
    #[inline]
    pub(crate) fn status_mut(&mut self) -> &mut [Status] {
        // SAFETY: as in `status`.
        unsafe { self.region_mut(self.plan.status_at, self.plan.nodes) }
    }

    fn at(&self, c: &Calls<A>) -> *mut u8 {
        // SAFETY: `offset` is inside the block (`SlabPlan::new`).
        unsafe { self.base.as_ptr().add(c.offset) }
    }

    /// Asks the processor to start loading the cache line `offset` bytes into the block
    /// (an offset from [`SlabPlan`]'s `*_offset`). Only a hint: it never faults, whatever
    /// the address, and changes nothing.
    #[inline]
    pub(crate) fn prefetch_at(&self, offset: usize) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let at = self.base.as_ptr().wrapping_add(offset);
            // SAFETY: SSE is part of x86_64, and a prefetch reads nothing the program sees
            // and never faults, whatever the address.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(at.cast::<i8>()) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = offset;
    }

    /// Calls the leaf's `on_enter`.
    #[inline(always)]
    pub(crate) fn enter(&mut self, leaf: &LeafCalls<A>, agent: &mut A, io: &mut LeafIo<'_>) {
        let c = leaf.checked(&self.plan);
        // SAFETY: `plan` laid out this block, so the value at `c.offset` is a live memory of
        // the type `c.this` acts on; `&mut self` makes the access exclusive.
        unsafe { (c.enter)(c.this.0.as_ptr(), self.at(c), agent, io) }
    }

    /// Calls the leaf's `on_execute`.
    #[inline(always)]
    pub(crate) fn execute(
        &mut self,
        leaf: &LeafCalls<A>,
        agent: &mut A,
        io: &mut LeafIo<'_>,
        dt: f64,
    ) -> Outcome {
        let c = leaf.checked(&self.plan);
        // SAFETY: as in `enter`.
        unsafe { (c.execute)(c.this.0.as_ptr(), self.at(c), agent, io, dt) }
    }

    /// Calls the leaf's `on_exit`.
    #[inline(always)]
    pub(crate) fn exit(
        &mut self,
        leaf: &LeafCalls<A>,
        agent: &mut A,
        io: &mut LeafIo<'_>,
        s: Status,
    ) {
        let c = leaf.checked(&self.plan);
        // SAFETY: as in `enter`.
        unsafe { (c.exit)(c.this.0.as_ptr(), self.at(c), agent, io, s) }
    }
}

impl<A> Clone for ActionSlab<A> {
    /// A copy of every record, timer, word and status, and a clone of every memory.
    fn clone(&self) -> Self {
        let plan = &self.plan;
        let base = Self::allocate(plan);
        // Records, timers, words and statuses are `Copy` and lie before the first memory
        // (`SlabPlan::new` lays them out first); the bytes between them are padding.
        let plain = plan.calls.first().map_or(plan.layout.size(), |c| c.offset);
        // SAFETY: both blocks have the plan's layout, so `plain` bytes lie inside each,
        // and they are two allocations, so they do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(self.base.as_ptr(), base.as_ptr(), plain) };
        let mut guard = Teardown {
            base,
            plan,
            ready: 0,
        };
        for (t, c) in plan.types.iter().zip(&plan.calls) {
            // SAFETY: `offset` holds a live memory of the type in `self`'s block; in the
            // new block it is aligned for it and nothing lives there yet.
            unsafe {
                (t.clone)(
                    self.base.as_ptr().add(c.offset),
                    base.as_ptr().add(c.offset),
                );
            }
            guard.ready += 1;
        }
        std::mem::forget(guard);
        Self {
            base,
            plan: plan.clone(),
        }
    }
}

impl<A> Drop for ActionSlab<A> {
    fn drop(&mut self) {
        drop(Teardown {
            base: self.base,
            plan: &self.plan,
            ready: self.plan.len(),
        });
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{ActionSlab, ActionType, LeafCalls, SlabPlan};
    use crate::runtime::behaviour::CondIo;
    use crate::runtime::state::NO_CONTEXT;
    use crate::runtime::{Action, LeafIo, Outcome};

    /// Counts its steps in its memory, and tells the agent (a count) how many.
    struct Count;

    impl Action<u64> for Count {
        type Memory = u64;
        fn on_execute(&self, n: &mut u64, seen: &mut u64, _: &mut LeafIo<'_>, _: f64) -> Outcome {
            *n += 1;
            *seen = *n;
            Outcome::Running
        }
    }

    fn plan() -> Arc<SlabPlan<u64>> {
        match SlabPlan::new(1, 1, 0, 0, vec![ActionType::new(Count)]) {
            Ok(p) => Arc::new(p),
            Err(e) => panic!("{e}"),
        }
    }

    /// Steps the leaf of `calls` on `slab` and returns what the action told.
    fn step(slab: &mut ActionSlab<u64>, calls: &LeafCalls<u64>) -> u64 {
        let mut io = LeafIo {
            seen: CondIo {
                input: None,
                step: 0,
                context: &NO_CONTEXT,
            },
            produced: None,
            writes: None,
        };
        let mut seen = 0;
        slab.execute(calls, &mut seen, &mut io, 0.1);
        seen
    }

    #[test]
    fn a_leafs_calls_run_on_the_blocks_of_its_plan() {
        let p = plan();
        let Some(calls) = LeafCalls::of(&p, 0) else {
            panic!("the plan has one leaf");
        };
        let (mut one, mut two) = (ActionSlab::new(&p), ActionSlab::new(&p));
        assert_eq!(step(&mut one, &calls), 1);
        assert_eq!(step(&mut one, &calls), 2, "its memory in the first block");
        assert_eq!(step(&mut two, &calls), 1, "the second block has its own");
        assert!(LeafCalls::of(&p, 1).is_none(), "past the last leaf");
    }

    #[test]
    #[should_panic(expected = "a leaf's calls used on a block of another tree")]
    fn a_leafs_calls_refuse_a_block_of_another_plan() {
        let (a, b) = (plan(), plan());
        let Some(calls) = LeafCalls::of(&a, 0) else {
            panic!("the plan has one leaf");
        };
        step(&mut ActionSlab::new(&b), &calls);
    }
}
