//! The lifecycle of SEMANTICS.md §3, written once: a step's phases, entering, executing, exiting,
//! aborting, reporting and guard checks. What is particular to a node kind is in its
//! module under `kinds/`; the lifecycle asks it through [`Kind::enter`] and
//! [`Kind::react`].
//!
//! This module holds [`Exec`], what a step sees of an instance, with what is watched
//! (events, the display snapshot) and the small API through which the kinds reach the
//! program and the instance's memory; the lifecycle itself is split by what it does:
//! [`step`] (the phases), [`guards`] (guard checks and observers), [`enter`] (entering
//! and finishing), [`reports`] (a finished node's report, up the tree or through the
//! queue), [`interrupts`] and [`abort`] (aborting, resetting, missing keys and stalls).
//!
//! It is generic over [`Hooks`]: a step nothing watches runs it as [`Quiet`], where every
//! event and every update of the display snapshot is compiled out; a watched step runs the
//! same code as [`Watched`]. There is no second copy of any rule for the quiet case.
//!
//! Resets (a missing context key, a stall) are carried out where they are found and the
//! call chain unwinds with [`Flow::Unwind`] without touching state again; reports queued
//! before a reset are dropped by their epoch.

use std::marker::PhantomData;

use super::Status;
use super::behaviour::{CondIo, Context, CtxValue, KeyId, LeafIo};
use super::instance::{Cold, NO_CONTEXT, State, cold_of, ctx};
use super::program::{HAS_IO, LeafInfo, NONE, PathGuard, Program};
use super::slab::ActionSlab;
use super::trace::{Event, EventKind, Observer};

mod abort;
mod enter;
mod guards;
mod interrupts;
mod reports;
mod step;

/// Whether a step is watched: by an observer, or for the display snapshot.
pub(crate) trait Hooks {
    /// False: events and display updates are compiled out.
    const ON: bool;
}

/// A step nothing watches (no observer, no display snapshot): a game's step.
pub(crate) enum Quiet {}

impl Hooks for Quiet {
    const ON: bool = false;
}

/// A step with an observer, or with the display snapshot kept.
pub(crate) enum Watched {}

impl Hooks for Watched {
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
/// the kinds reach the program and the instance's memory through the methods under
/// "what the kinds use".
pub(crate) struct Exec<'x, 'o, A, H> {
    p: &'x Program<A>,
    st: &'x mut State,
    block: &'x mut ActionSlab<A>,
    agent: &'x mut A,
    obs: Option<&'x mut (dyn Observer + 'o)>,
    hooks: PhantomData<H>,
    /// The reason the leaf that finished last gave for its failure, for its `exit` event
    /// (`leaf::outcome` sets it, `leaf::stop` takes it).
    reason: Option<&'static str>,
}

impl<'x, 'o, A, H: Hooks> Exec<'x, 'o, A, H> {
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

    // ---- what the kinds use ---------------------------------------------------------

    /// The program the instance runs.
    #[inline(always)]
    pub(crate) fn program(&self) -> &'x Program<A> {
        self.p
    }

    /// Node `n`'s children, in slot order.
    #[inline(always)]
    pub(crate) fn kids(&self, n: u32) -> &'x [u32] {
        self.p.kids(n)
    }

    /// Random-order composite `n`'s permutation of its children (see `Def::shuffles`).
    pub(crate) fn order_mut(&mut self, n: u32) -> &mut [u32] {
        let (at, len) = (self.p.recs[n as usize].slot as usize, self.kids(n).len());
        &mut self.cold().perm[at..at + len]
    }

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

    /// What condition node `n`'s behaviour answers, given the value of `input` (its
    /// `in_context` key, which the caller found present).
    #[inline]
    pub(crate) fn condition_answer(&mut self, n: u32, input: Option<KeyId>) -> bool {
        let p = self.p;
        let context = ctx(&self.st.cold);
        let io = CondIo {
            input: input.and_then(|k| context.get(k)),
            step: self.st.step,
            context,
        };
        p.conditions[p.recs[n as usize].slot as usize].check(self.agent, &io)
    }
}

impl<'o, A, H: Hooks> Exec<'_, 'o, A, H> {
    // ---- what is watched ------------------------------------------------------------

    #[inline]
    pub(crate) fn emit(&mut self, node: u32, kind: EventKind<'_>) {
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
                step: self.st.step,
                node: (node != NONE).then_some(node),
                node_id,
                kind,
            });
        }
    }

    /// Whether the display snapshot is kept in this step.
    #[inline]
    fn recording(&self) -> bool {
        H::ON && self.st.recording()
    }

    #[inline]
    pub(crate) fn set_status(&mut self, n: u32, s: Status) {
        let i = n as usize;
        self.block.status_mut()[i] = s;
        if self.recording() {
            self.show(i, s);
        }
    }

    /// The display snapshot of node `i` after its status became `s`.
    fn show(&mut self, i: usize, s: Status) {
        let step = self.st.step;
        let Some(shown) = self.st.cold.as_deref_mut().and_then(|c| c.shown.get_mut(i)) else {
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
            Status::Idle => {}
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
            let step = self.st.step;
            if let Some(shown) = self.st.cold.as_deref_mut().and_then(|c| c.shown.get_mut(i))
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

    /// The agent's context.
    #[inline]
    pub(crate) fn context(&self) -> &Context {
        self.st.context()
    }

    /// Node `n` stores `value` under context key `key` (the program has context keys, so
    /// the instance has its cold block: see [`Exec::cold`]); a watched step's `context`
    /// event says so.
    pub(crate) fn store(&mut self, n: u32, key: KeyId, value: CtxValue) {
        self.cold().context.set(key, Some(value));
        if H::ON
            && let Some(o) = self.obs.as_deref_mut()
            && let Some(v) = ctx(&self.st.cold).get(key)
        {
            let name = self.p.keys.get(usize::from(key)).map_or("", String::as_str);
            o.event(&Event {
                step: self.st.step,
                node: Some(n),
                node_id: &self.p.names[n as usize],
                kind: EventKind::Context(name, Some(v.as_event())),
            });
        }
    }

    /// The instance's [`Cold`] block. A step only asks for it where the program uses it,
    /// and then `Cold::needed` made it with the instance: a step never allocates it.
    pub(crate) fn cold(&mut self) -> &mut Cold {
        cold_of(&mut self.st.cold, self.p)
    }

    pub(crate) fn next_random(&mut self) -> u64 {
        // SplitMix64: small, fast, the same on every platform.
        let rng = &mut self.st.rng;
        *rng = rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// The step being taken.
    #[inline]
    pub(crate) fn step_number(&self) -> u64 {
        self.st.step
    }

    /// The instance's clock, in seconds (SEMANTICS.md §3.3.1).
    #[inline]
    pub(crate) fn clock(&self) -> f64 {
        self.st.clock
    }

    /// Node `n`'s epoch: the serial of its last entry (not a condition's: it has no
    /// record).
    #[inline]
    pub(crate) fn epoch(&self, n: u32) -> u32 {
        self.block.rt()[self.p.recs[n as usize].ri as usize]
    }

    /// Branch `n`'s cursor word (see `Rec::ri`).
    #[inline]
    pub(crate) fn cursor(&self, n: u32) -> u32 {
        self.block.rt()[self.p.recs[n as usize].ri as usize + 1]
    }

    #[inline]
    pub(crate) fn cursor_mut(&mut self, n: u32) -> &mut u32 {
        let ri = self.p.recs[n as usize].ri as usize;
        &mut self.block.rt_mut()[ri + 1]
    }

    /// Node `n`'s word (see `Rec::word`).
    #[inline]
    pub(crate) fn word(&self, n: u32) -> u64 {
        self.block.words()[self.p.recs[n as usize].word as usize]
    }

    #[inline]
    pub(crate) fn word_mut(&mut self, n: u32) -> &mut u64 {
        &mut self.block.words_mut()[self.p.recs[n as usize].word as usize]
    }

    /// Node `n`'s timer (see `Rec::timer`).
    #[inline]
    pub(crate) fn timer(&self, n: u32) -> f64 {
        self.block.timers()[self.p.recs[n as usize].timer as usize]
    }

    #[inline]
    pub(crate) fn timer_mut(&mut self, n: u32) -> &mut f64 {
        &mut self.block.timers_mut()[self.p.recs[n as usize].timer as usize]
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
        let (st, p) = (&mut *self.st, self.p);
        st.active.insert(n, || &mut cold_of(&mut st.cold, p).spill);
    }

    /// Leaf `n` is not active any more.
    #[inline]
    pub(crate) fn deactivate(&mut self, n: u32) {
        let (st, p) = (&mut *self.st, self.p);
        st.active.remove(n, || &mut cold_of(&mut st.cold, p).spill);
    }

    /// Leaf `to` is active in the place of leaf `from` (see `Active::replace`).
    #[inline]
    pub(crate) fn replace_active(&mut self, from: u32, to: u32) {
        let (st, p) = (&mut *self.st, self.p);
        st.active
            .replace(from, to, || &mut cold_of(&mut st.cold, p).spill);
    }

    /// Whether active leaf `leaf` was entered in this step (it waits for the next one).
    fn entered_now(&self, leaf: u32) -> bool {
        self.epoch(leaf) > self.st.step_base
    }

    /// Calls the action of leaf `info` with its I/O (see [`leaf_io`]). `EXTRAS` false: the
    /// leaf has none (see [`Exec::check_and_execute`]).
    #[inline(always)]
    pub(crate) fn call_action<R, const EXTRAS: bool>(
        &mut self,
        info: &LeafInfo<A>,
        f: impl FnOnce(&mut ActionSlab<A>, &mut A, &mut LeafIo<'_>) -> R,
    ) -> R {
        let mut io = leaf_io::<A, EXTRAS>(&mut self.st.cold, self.st.step, info);
        f(self.block, self.agent, &mut io)
    }
}

/// The I/O of the leaf `info` describes, for a call of its action: the input fetched at
/// entry, where what it produces is kept, the context. A leaf without `in_context` or
/// `out_context` has neither, and sees what a condition without `in_context` sees.
/// `EXTRAS` false: the leaf has none (see [`Exec::check_and_execute`]).
#[inline(always)]
fn leaf_io<'c, A, const EXTRAS: bool>(
    cold: &'c mut Option<Box<Cold>>,
    step: u64,
    info: &LeafInfo<A>,
) -> LeafIo<'c> {
    if !(EXTRAS && info.has(HAS_IO)) {
        return LeafIo {
            seen: CondIo {
                input: None,
                step,
                context: ctx(cold),
            },
            produced: None,
        };
    }
    let (input_at, output_at) = (info.input_at as usize, info.output_at as usize);
    match cold.as_deref_mut() {
        Some(Cold {
            inputs,
            produced,
            context,
            ..
        }) => LeafIo {
            seen: CondIo {
                input: if input_at == 0 {
                    None
                } else {
                    inputs[input_at].as_ref()
                },
                step,
                context,
            },
            produced: if output_at == 0 {
                None
            } else {
                Some(&mut produced[output_at])
            },
        },
        // No block: no leaf has an input or an output slot (`Cold::needed`).
        None => LeafIo {
            seen: CondIo {
                input: None,
                step,
                context: &NO_CONTEXT,
            },
            produced: None,
        },
    }
}
