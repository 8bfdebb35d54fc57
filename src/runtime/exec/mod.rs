//! The lifecycle of SEMANTICS.md §3, written once: a step's phases, entering, executing, exiting,
//! aborting, reporting and guard checks. What is particular to a node kind is in its
//! module under `kinds/`; the lifecycle asks it through [`Kind::enter`] and
//! [`Kind::react`].
//!
//! This module holds [`Exec`], what a step sees of an instance, with what is watched
//! (events, the display snapshot), the instance's memory, and `Exec`'s implementation of
//! [`Run`], what a kind may do while it runs; the lifecycle itself is split by what it
//! does: [`step`] (the phases), [`guards`] (guard checks and observers), [`enter`]
//! (entering and finishing), [`hooks`] (a node's `_failureIf` … scripts), [`reports`] (a
//! finished node's report, up the tree or through the queue), [`interrupts`], [`abort`]
//! (aborting, resetting, missing keys and stalls), [`leaf`] (an action leaf's part) and
//! [`services`] (a composite's services).
//!
//! It is generic over [`Watch`]: a step nothing watches runs it as [`Quiet`], where every
//! event and every update of the display snapshot is compiled out; a watched step runs the
//! same code as [`Watched`]. There is no second copy of any rule for the quiet case.
//!
//! Resets (a missing context key, a stall) are carried out where they are found and the
//! call chain unwinds with [`Flow::Unwind`] without touching state again; reports queued
//! before a reset are dropped by their epoch.

use std::marker::PhantomData;

use super::Status;
use super::behaviour::{CondIo, Context, CtxValue, KeyId, LeafIo, Writes};
use super::node::{Act, Operand, Run};
use super::program::{LeafInfo, NONE, PathGuard, Program};
use super::slab::ActionSlab;
use super::state::{Cold, State};
use super::trace::{Event, EventKind, Observer};

mod abort;
mod enter;
mod guards;
mod hooks;
mod interrupts;
mod leaf;
mod reactive;
mod reports;
mod services;
mod step;

/// Whether a step is watched: by an observer, or for the display snapshot.
pub(crate) trait Watch {
    /// False: events and display updates are compiled out.
    const ON: bool;
}

/// A step nothing watches (no observer, no display snapshot): a game's step.
pub(crate) enum Quiet {}

impl Watch for Quiet {
    const ON: bool = false;
}

/// A step with an observer, or with the display snapshot kept.
pub(crate) enum Watched {}

impl Watch for Watched {
    const ON: bool = true;
}

/// How a call left the node it was about.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Flow {
    /// The node runs on.
    Running,
    /// The node finished now, with this status.
    Done(Status),
    /// The tree was reset below; callers return at once.
    Unwind,
}

/// Where a failing guard's report goes: to the report queue of phase 4, or to the parents
/// at once (a guard failing on resume, SEMANTICS.md §3.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Delivery {
    Queued,
    AtOnce,
}

/// Why a list of guards stopped: a guard that does not hold, or one whose `in_context`
/// key is missing.
pub(crate) enum Stop<'g, A> {
    False(&'g PathGuard<A>),
    Missing(&'g PathGuard<A>, KeyId),
}

/// One step of one instance, as the lifecycle sees it. Its fields are the lifecycle's;
/// the kinds reach it through [`Run`].
pub(crate) struct Exec<'x, 'o, A, H> {
    p: &'x Program<A>,
    st: &'x mut State,
    block: &'x mut ActionSlab<A>,
    agent: &'x mut A,
    obs: Option<&'x mut (dyn Observer + 'o)>,
    hooks: PhantomData<H>,
    /// The reason the leaf that finished last gave for its failure, for its `exit` event
    /// (`Exec::leaf_outcome` sets it, `Exec::stop_leaf` takes it).
    reason: Option<&'static str>,
}

impl<'x, 'o, A, H: Watch> Exec<'x, 'o, A, H> {
    /// A step of the instance whose state, block and agent these are.
    #[inline(always)]
    pub(crate) fn new(
        p: &'x Program<A>,
        st: &'x mut State,
        block: &'x mut ActionSlab<A>,
        agent: &'x mut A,
        obs: Option<&'x mut (dyn Observer + 'o)>,
    ) -> Self {
        Self {
            p,
            st,
            block,
            agent,
            obs,
            hooks: PhantomData,
            reason: None,
        }
    }

    // ---- the program and the instance's memory ---------------------------------------

    /// The node whose epoch is record word `ri` is entered now: it takes the next serial.
    #[inline(always)]
    pub(crate) fn mark_entered(&mut self, ri: u32) {
        self.st.mark_entered(self.block.rt_mut(), ri as usize);
    }

    /// Timer `at` of the instance's block (a leaf's, by its `LeafInfo::timer_at`).
    #[inline(always)]
    pub(crate) fn timer_at_mut(&mut self, at: u32) -> &mut f64 {
        &mut self.block.timers_mut()[at as usize]
    }

    /// The leaf that finishes now gave `why` for its failure (none: it gave no reason).
    #[inline(always)]
    pub(crate) fn set_reason(&mut self, why: Option<&'static str>) {
        self.reason = why;
    }

    /// The reason noted by [`Exec::set_reason`], taken.
    #[inline(always)]
    pub(crate) fn take_reason(&mut self) -> Option<&'static str> {
        self.reason.take()
    }

    /// A leaf's input, in its place `at` (`LeafInfo::input_at`), for its calls to read.
    pub(crate) fn set_input(&mut self, at: u32, value: Option<CtxValue>) {
        self.cold().inputs[at as usize] = value;
    }

    /// What a leaf produced for its `out_context`, in its place `at`
    /// (`LeafInfo::output_at`), taken.
    pub(crate) fn take_produced(&mut self, at: u32) -> Option<CtxValue> {
        self.cold().produced[at as usize].take()
    }
}

impl<'o, A, H: Watch> Exec<'_, 'o, A, H> {
    // ---- what is watched ------------------------------------------------------------

    /// Whether the display snapshot is kept in this step.
    #[inline]
    fn recording(&self) -> bool {
        H::ON && self.st.recording()
    }

    /// The display snapshot of node `i` after its status became `s`.
    fn show(&mut self, i: usize, s: Status) {
        let step = self.st.step();
        let Some(shown) = self.st.shown_mut(i) else {
            return;
        };
        shown.status = s;
        shown.step = step;
        // A failure's reason is noted after this (`finish_because`).
        shown.reason = None;
        match s {
            Status::Running => {
                shown.entries = shown.entries.saturating_add(1);
                shown.since = step;
            }
            Status::Success => shown.successes = shown.successes.saturating_add(1),
            Status::Failure => shown.failures = shown.failures.saturating_add(1),
            Status::Aborted => shown.aborts = shown.aborts.saturating_add(1),
            Status::Idle | Status::Skipped => {}
        }
    }

    /// After guard `g` gave `r`: its display state and its `check` event.
    fn checked(&mut self, g: u32, r: bool) {
        // A guard's status is for display only (it is never entered), so it is kept only
        // while the display snapshot is. Its step is that of the last change of what it
        // shows (a reset of the tree between two equal results is no change), so the
        // snapshot follows from the events alone, as a replay derives it.
        let result = if r { Status::Success } else { Status::Failure };
        let i = g as usize;
        if self.recording() {
            self.block.status_mut()[i] = result;
            let step = self.st.step();
            if let Some(shown) = self.st.shown_mut(i)
                && shown.status != result
            {
                shown.status = result;
                shown.step = step;
            }
        }
        self.emit(g, EventKind::Check(r));
    }

    // ---- instance state -------------------------------------------------------------

    #[inline]
    pub(crate) fn running(&self, n: u32) -> bool {
        self.block.status().get(n as usize) == Some(&Status::Running)
    }

    /// The instance's [`Cold`] block (see [`State::cold_mut`]).
    pub(crate) fn cold(&mut self) -> &mut Cold {
        self.st.cold_mut(self.p)
    }

    /// Node `n`'s epoch: the serial of its last entry (not a condition's: it has no
    /// record).
    #[inline]
    pub(crate) fn epoch(&self, n: u32) -> u32 {
        self.block.rt()[self.p.recs[n as usize].ri as usize]
    }

    /// The first active leaf with an index of at least `from`.
    fn next_active(&self, from: u32) -> Option<u32> {
        let active = self.st.active();
        let at = active.partition_point(|&x| x < from);
        active.get(at).copied()
    }

    /// Leaf `n` is active now.
    #[inline]
    pub(crate) fn activate(&mut self, n: u32) {
        self.st.activate(n, self.p);
    }

    /// Leaf `n` is not active any more.
    #[inline]
    pub(crate) fn deactivate(&mut self, n: u32) {
        self.st.deactivate(n, self.p);
    }

    /// Leaf `to` is active in the place of leaf `from` (see `Active::replace`).
    #[inline]
    pub(crate) fn replace_active(&mut self, from: u32, to: u32) {
        self.st.replace_active(from, to, self.p);
    }

    /// Whether active leaf `leaf` was entered in this step (it waits for the next one).
    fn entered_now(&self, leaf: u32) -> bool {
        self.st.entered_now(self.epoch(leaf))
    }

    /// Node `n` stores `writes` (keys set or cleared, in order), each value made its key's
    /// type: all of them, or none when a value does not fit its key (false). `writes` is
    /// left empty either way.
    pub(crate) fn commit(&mut self, n: u32, writes: &mut Writes) -> bool {
        let p = self.p;
        for (key, value) in writes.iter_mut() {
            if let Some(v) = value.take() {
                match v.fitted(p.key_type(*key)) {
                    Some(v) => *value = Some(v),
                    None => {
                        writes.clear();
                        return false;
                    }
                }
            }
        }
        for (key, value) in writes.drain(..) {
            match value {
                Some(v) => self.store(n, key, v),
                None => self.clear_key(n, key),
            }
        }
        true
    }

    /// Node `n` clears context key `key`; a watched step's `context` event says so.
    pub(crate) fn clear_key(&mut self, n: u32, key: KeyId) {
        let cold = self.cold();
        if cold.context.get(key).is_none() {
            return;
        }
        cold.context.set(key, None);
        if H::ON
            && let Some(o) = self.obs.as_deref_mut()
        {
            let name = self.p.keys.get(usize::from(key)).map_or("", String::as_str);
            o.event(&Event {
                step: self.st.step(),
                node: Some(n),
                node_id: &self.p.names[n as usize],
                kind: EventKind::Context(name, None),
            });
        }
    }

    /// Calls the action of leaf `info` with its I/O (see [`State::leaf_io`]). `EXTRAS` false: the
    /// leaf has none (see [`Exec::check_and_execute`]).
    #[inline(always)]
    pub(crate) fn call_action<R, const EXTRAS: bool>(
        &mut self,
        info: &LeafInfo<A>,
        f: impl FnOnce(&mut ActionSlab<A>, &mut A, &mut LeafIo<'_>) -> R,
    ) -> R {
        let mut io = self.st.leaf_io::<A, EXTRAS>(info);
        let r = f(self.block, self.agent, &mut io);
        // Only what an action sets as it executes is stored (`LeafIo::set_output`).
        if let Some(writes) = io.writes() {
            writes.clear();
        }
        r
    }
}

/// What a kind may do while it runs, as the lifecycle does it, compiled into the kind's
/// code. The lifecycle calls the same methods; its entry points at the end are written in
/// the modules of what they do (`leaf`, `abort`, `interrupts`, `reports`).
impl<A, H: Watch> Run for Exec<'_, '_, A, H> {
    /// Node `n`'s children, in slot order.
    #[inline(always)]
    fn kids(&self, n: u32) -> &[u32] {
        self.p.kids(n)
    }

    /// The step being taken.
    #[inline]
    fn step_number(&self) -> u64 {
        self.st.step()
    }

    /// The instance's clock, in seconds (SEMANTICS.md §3.3.1).
    #[inline]
    fn clock(&self) -> f64 {
        self.st.clock()
    }

    fn next_random(&mut self) -> u64 {
        self.st.next_random()
    }

    /// Branch `n`'s cursor word (see `Rec::ri`).
    #[inline]
    fn cursor(&self, n: u32) -> u32 {
        self.block.rt()[self.p.recs[n as usize].ri as usize + 1]
    }

    #[inline]
    fn cursor_mut(&mut self, n: u32) -> &mut u32 {
        let ri = self.p.recs[n as usize].ri as usize;
        &mut self.block.rt_mut()[ri + 1]
    }

    /// Node `n`'s word (see `Rec::word`).
    #[inline]
    fn word(&self, n: u32) -> u64 {
        self.block.words()[self.p.recs[n as usize].word as usize]
    }

    #[inline]
    fn word_mut(&mut self, n: u32) -> &mut u64 {
        &mut self.block.words_mut()[self.p.recs[n as usize].word as usize]
    }

    /// Node `n`'s timer (see `Rec::timer`).
    #[inline]
    fn timer(&self, n: u32) -> f64 {
        self.block.timers()[self.p.recs[n as usize].timer as usize]
    }

    #[inline]
    fn timer_mut(&mut self, n: u32) -> &mut f64 {
        &mut self.block.timers_mut()[self.p.recs[n as usize].timer as usize]
    }

    #[inline]
    fn setting(&self, at: u32) -> f64 {
        self.block.timers()[self.p.setting_slot(at)]
    }

    #[inline]
    fn operands(&self, from: u32, to: u32) -> &[Operand] {
        &self.p.operands[from as usize..to as usize]
    }

    fn script_holds(&self, at: u32) -> bool {
        self.p.scripts[at as usize].holds(self.context())
    }

    fn enum_value(&self, name: &str) -> Option<i64> {
        self.p.enums.get(name).copied()
    }

    fn key_type(&self, key: KeyId) -> crate::model::KeyType {
        self.p.key_type(key)
    }

    /// Random-order composite `n`'s permutation of its children (see `Def::shuffles`).
    fn order_mut(&mut self, n: u32) -> &mut [u32] {
        let (at, len) = (self.p.recs[n as usize].slot as usize, self.kids(n).len());
        &mut self.cold().perm[at..at + len]
    }

    #[inline(always)]
    fn new_order(&mut self, n: u32) -> &mut [u32] {
        let kids = self.p.kids(n);
        let order = self.order_mut(n);
        order.copy_from_slice(kids);
        order
    }

    /// The agent's context.
    #[inline]
    fn context(&self) -> &Context {
        self.st.context()
    }

    /// Node `n` stores `value` under context key `key` (the program has context keys, so
    /// the instance has its cold block: see [`Exec::cold`]); a watched step's `context`
    /// event says so.
    fn store(&mut self, n: u32, key: KeyId, value: CtxValue) {
        self.cold().context.set(key, Some(value));
        if H::ON
            && let Some(o) = self.obs.as_deref_mut()
            && let Some(v) = self.st.context().get(key)
        {
            let name = self.p.keys.get(usize::from(key)).map_or("", String::as_str);
            o.event(&Event {
                step: self.st.step(),
                node: Some(n),
                node_id: &self.p.names[n as usize],
                kind: EventKind::Context(name, Some(v.as_event())),
            });
        }
    }

    #[inline]
    fn emit(&mut self, node: u32, kind: EventKind<'_>) {
        if !H::ON {
            return;
        }
        if let Some(o) = self.obs.as_deref_mut() {
            let node_id = self
                .p
                .names
                .get(node as usize)
                .map(String::as_str)
                .unwrap_or("");
            o.event(&Event {
                step: self.st.step(),
                node: (node != NONE).then_some(node),
                node_id,
                kind,
            });
        }
    }

    #[inline]
    fn status(&self, n: u32) -> Status {
        self.block.status()[n as usize]
    }

    #[inline]
    fn set_status(&mut self, n: u32, s: Status) {
        let i = n as usize;
        self.block.status_mut()[i] = s;
        if self.recording() {
            self.show(i, s);
        }
    }

    /// What condition node `n`'s behaviour answers, given the value of `input` (its
    /// `in_context` key, which the caller found present).
    #[inline]
    fn condition_answer(&mut self, n: u32, input: Option<KeyId>) -> bool {
        let p = self.p;
        let context = self.st.context();
        let io = CondIo {
            input: input.and_then(|k| context.get(k)),
            step: self.st.step(),
            context,
        };
        p.conditions[p.recs[n as usize].slot as usize].check(self.agent, &io)
    }

    // ---- the lifecycle's entry points ------------------------------------------------

    #[inline(always)]
    fn enter_leaf(&mut self, n: u32) -> Act {
        Exec::enter_leaf(self, n)
    }

    #[inline(always)]
    fn context_missing(&mut self, n: u32, key: KeyId) {
        Exec::context_missing(self, n, key);
    }

    #[inline(always)]
    fn stall(&mut self, n: u32) {
        Exec::stall(self, n);
    }

    #[inline(always)]
    fn abort_below(&mut self, n: u32) {
        Exec::abort_below(self, n);
    }

    #[inline(always)]
    fn reset_subtree(&mut self, n: u32) {
        let end = self.p.recs[n as usize].end;
        Exec::reset_range(self, n, end);
    }

    #[inline(always)]
    fn interrupt_done(&mut self, at: u32, s: Status, force_reset: bool) -> Act {
        Exec::interrupt_done(self, at, s, force_reset)
    }

    #[inline(always)]
    fn root_complete(&mut self, s: Status) -> bool {
        Exec::root_complete(self, s)
    }
}
