//! What an instance keeps of its run besides its block ([`State`]): the step and the clock,
//! what a step must do besides the common work ([`Flags`]), the active leaves
//! ([`Active`]), the report queue's first places ([`Reports`]), the run counters, and the
//! cold block ([`Cold`]). The lifecycle in `exec/` reaches it through `State`'s methods,
//! each named for what the lifecycle does; the fields are this module's.
//!
//! All storage is sized when the instance is created; a step in steady state allocates
//! nothing.

use std::collections::VecDeque;

use super::Status;
use super::behaviour::{CondIo, Context, CtxValue, KeyId, LeafIo, Writes};
use super::program::{HAS_IO, HAS_WRITES, LeafInfo, NONE, Program};

/// What a node's painting needs: its last status, when it changed, and counters. `R` holds
/// a failure's reason: the runtime's own texts in [`NodeState`], owned where a trace's
/// replay derives it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeStateOf<R> {
    /// The last status it had (kept after the tree resets, for display).
    pub status: Status,
    /// The step of that change.
    pub step: u64,
    /// How often it was entered (a guard is not entered: its counters stay 0).
    pub entries: u32,
    /// How often it succeeded.
    pub successes: u32,
    /// How often it failed.
    pub failures: u32,
    /// How often it was stopped from outside.
    pub aborts: u32,
    /// The step it was last entered (how long it has been running, while it runs).
    pub since: u64,
    /// Why it failed, when its last status is a failure its action gave a reason for (or
    /// `max_duration`).
    pub reason: Option<R>,
}

impl<R> NodeStateOf<R> {
    /// The same state with its reason turned by `f`.
    pub fn map_reason<T>(self, f: impl FnOnce(R) -> T) -> NodeStateOf<T> {
        NodeStateOf {
            status: self.status,
            step: self.step,
            entries: self.entries,
            successes: self.successes,
            failures: self.failures,
            aborts: self.aborts,
            since: self.since,
            reason: self.reason.map(f),
        }
    }
}

/// A node's display state in a running instance ([`Instance::node_states`]).
pub type NodeState = NodeStateOf<&'static str>;

/// Counts over the whole life of an instance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Runs of the tree that completed with success.
    pub succeeded: u64,
    /// Runs of the tree that completed with failure.
    pub failed: u64,
    /// Runs of the tree whose every node was skipped (SEMANTICS.md §3.7).
    pub skipped: u64,
    /// Stalls.
    pub stalls: u64,
    /// Resets for a missing context key.
    pub context_missing: u64,
    /// Interrupts started.
    pub interrupts: u64,
}

impl RunStats {
    /// The runs that completed, as words: `N (S success, F failure[, K skipped])`.
    pub fn completed(&self) -> String {
        let skipped = match self.skipped {
            0 => String::new(),
            n => format!(", {n} skipped"),
        };
        format!(
            "{} ({} success, {} failure{skipped})",
            self.succeeded + self.failed + self.skipped,
            self.succeeded,
            self.failed
        )
    }
}

/// A finished node's report, queued for phase 4, with the node's epoch at that time: a
/// report whose node was reset or entered again since is stale.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Report {
    pub node: u32,
    pub status: Status,
    pub epoch: u32,
}

/// Reports waiting for phase 4, oldest first: two in place (a step rarely queues more),
/// the rest in `Cold::reports`. Once one has spilled there, later ones follow it, so the
/// ones in place are always the oldest.
#[derive(Clone, Copy, Debug)]
struct Reports {
    head: u8,
    len: u8,
    spilled: bool,
    ring: [Report; 2],
}

impl Reports {
    /// No report waiting.
    const EMPTY: Self = Self {
        head: 0,
        len: 0,
        spilled: false,
        ring: [Report {
            node: NONE,
            status: Status::Idle,
            epoch: 0,
        }; 2],
    };

    /// Whether a report waits.
    #[inline]
    fn any(&self) -> bool {
        self.len > 0 || self.spilled
    }

    /// Queues `r` last; `spill` gives `Cold::reports`, asked for only past two.
    #[inline]
    fn push<'s>(&mut self, r: Report, spill: impl FnOnce() -> &'s mut VecDeque<Report>) {
        if !self.spilled && self.len < 2 {
            self.ring[usize::from((self.head + self.len) % 2)] = r;
            self.len += 1;
        } else {
            self.spilled = true;
            spill().push_back(r);
        }
    }

    /// The oldest report, taken; `spill` gives `Cold::reports` (none without the block),
    /// asked for only once the two in place are taken.
    #[inline]
    fn pop<'s>(
        &mut self,
        spill: impl FnOnce() -> Option<&'s mut VecDeque<Report>>,
    ) -> Option<Report> {
        if self.len > 0 {
            let r = self.ring[usize::from(self.head)];
            self.head = (self.head + 1) % 2;
            self.len -= 1;
            return Some(r);
        }
        if !self.spilled {
            return None;
        }
        let spill = spill()?;
        let r = spill.pop_front();
        self.spilled = !spill.is_empty();
        r
    }

    /// Drops every report; `spill` as for [`Reports::pop`].
    fn clear<'s>(&mut self, spill: impl FnOnce() -> Option<&'s mut VecDeque<Report>>) {
        if self.spilled
            && let Some(spill) = spill()
        {
            spill.clear();
        }
        self.len = 0;
        self.spilled = false;
    }
}

#[derive(Clone, Debug)]
pub(crate) enum Trigger {
    Known(u32, Option<CtxValue>),
    Unknown(String),
}

// A node's run state besides its status is its run record among the record words of the
// instance's block (see `Rec::ri`): an epoch word, which takes a new serial number at each
// entry (`State::entries`), so that stale reports are told apart and a leaf entered in this
// step is known; and for a branch a cursor word, which its kind uses as its module says.
// What only a few kinds keep is apart, for those nodes alone: timers (seconds, or a time
// on the clock) and 64-bit words (a step or a count), as `node::Needs` asks.

/// The entry serial at which [`Flags::RENUMBER`] is set: half the range, so a step never wraps it.
pub(crate) const RENUMBER_AT: u32 = 1 << 31;

/// What a step must do besides the common work ([`State::flags`]): one word, so a step
/// sees at one compare that nothing is set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub(crate) struct Flags(u16);

impl Flags {
    /// Not started yet.
    pub(crate) const NOT_STARTED: Self = Self(1);
    /// Triggers may wait in `Cold::triggers`.
    pub(crate) const TRIGGERS: Self = Self(2);
    /// A restart after a stall is due (from the next step, see `Exec::step_full`).
    pub(crate) const RESTART: Self = Self(4);
    /// The display snapshot (`Cold::shown`) is kept.
    pub(crate) const RECORD: Self = Self(8);
    /// The entry serials reached [`RENUMBER_AT`]; the next step starts them again (see
    /// `Exec::step_full`).
    pub(crate) const RENUMBER: Self = Self(16);
    /// The program has services: every step has their phase (SEMANTICS.md §3.2.1), and
    /// takes `Exec::step_full`. Set for good when the instance is made.
    pub(crate) const SERVICES: Self = Self(32);
    /// The flags that make a step take `Exec::step_full`.
    pub(crate) const DUE: Self = Self(1 | 2 | 4 | 16 | 32);
    /// Every flag.
    pub(crate) const ALL: Self = Self(u16::MAX);

    /// Whether any of `f` is set.
    #[inline(always)]
    const fn has(self, f: Self) -> bool {
        self.0 & f.0 != 0
    }

    /// Sets `f`.
    #[inline(always)]
    fn set(&mut self, f: Self) {
        self.0 |= f.0;
    }

    /// Clears `f`.
    #[inline(always)]
    fn clear(&mut self, f: Self) {
        self.0 &= !f.0;
    }
}

/// [`State::flags_and_count`] of a step that takes the common path: none of the flags
/// asked about set, and one active leaf.
pub(crate) const COMMON_STEP: u32 = 1 << 16;
/// The flags' part of [`State::flags_and_count`]'s word.
pub(crate) const FLAG_BITS: u32 = 0xFFFF;

/// Active leaves kept inline, without a heap block (one or two run at a time in most trees).
const INLINE: usize = 4;

/// The active leaves in tree order: up to [`INLINE`] in place, more in `Cold::spill`,
/// reserved from the tree's shape when that block is made (so inserting never allocates;
/// a program that can have more leaves active always has the block, see [`Cold::needed`]).
#[derive(Clone, Debug)]
#[repr(C)]
struct Active {
    /// The count comes first (see [`State`]); a program has at most `u16::MAX` leaves
    /// active at once (`Program::compile` refuses more).
    len: u16,
    inline: [u32; INLINE],
}

impl Active {
    /// The active leaves; `spill` is `Cold::spill` (or empty without the block).
    #[inline]
    fn as_slice<'a>(&'a self, spill: &'a [u32]) -> &'a [u32] {
        let n = self.len as usize;
        if n <= INLINE {
            &self.inline[..n]
        } else {
            spill
        }
    }

    /// Adds `leaf`; `spill` gives `Cold::spill`, asked for only past [`INLINE`] leaves.
    #[inline]
    fn insert<'s>(&mut self, leaf: u32, spill: impl FnOnce() -> &'s mut Vec<u32>) {
        if self.len == 0 {
            // The usual case, one leaf at a time: in place, inlined where it is called.
            self.inline[0] = leaf;
            self.len = 1;
            return;
        }
        self.insert_more(leaf, spill);
    }

    /// [`Active::insert`] beside other active leaves.
    #[inline(never)]
    fn insert_more<'s>(&mut self, leaf: u32, spill: impl FnOnce() -> &'s mut Vec<u32>) {
        let n = self.len as usize;
        if n < INLINE {
            // At most four: a plain shift is cheaper than a search and a memmove call.
            if self.inline[..n].contains(&leaf) {
                return;
            }
            let mut at = n;
            while at > 0 && self.inline[at - 1] > leaf {
                self.inline[at] = self.inline[at - 1];
                at -= 1;
            }
            self.inline[at] = leaf;
        } else {
            let spill = spill();
            if n == INLINE {
                spill.clear();
                spill.extend_from_slice(&self.inline);
            }
            let Err(at) = spill.binary_search(&leaf) else {
                return;
            };
            debug_assert!(
                spill.len() < spill.capacity(),
                "more leaves active than Program::bounds allows"
            );
            spill.insert(at, leaf);
        }
        self.len += 1;
    }

    /// Removes `leaf`; `spill` as for [`Active::insert`].
    #[inline]
    fn remove<'s>(&mut self, leaf: u32, spill: impl FnOnce() -> &'s mut Vec<u32>) {
        if self.len == 1 && self.inline[0] == leaf {
            // The usual case, one leaf at a time (see `insert`).
            self.len = 0;
            return;
        }
        self.remove_other(leaf, spill);
    }

    /// [`Active::remove`] of one of several active leaves, or of one not active.
    #[inline(never)]
    fn remove_other<'s>(&mut self, leaf: u32, spill: impl FnOnce() -> &'s mut Vec<u32>) {
        let n = self.len as usize;
        if n <= INLINE {
            let Some(at) = self.inline[..n].iter().position(|&x| x == leaf) else {
                return;
            };
            for i in at..n - 1 {
                self.inline[i] = self.inline[i + 1];
            }
        } else {
            let spill = spill();
            let Ok(at) = spill.binary_search(&leaf) else {
                return;
            };
            spill.remove(at);
            if n - 1 == INLINE {
                self.inline.copy_from_slice(spill);
            }
        }
        self.len -= 1;
    }

    /// How many leaves are active.
    #[inline]
    fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Puts leaf `to` where active leaf `from` is: `to` comes right after `from` in tree
    /// order, with nothing between (the next sibling of a leaf), so the order holds.
    #[inline]
    fn replace<'s>(&mut self, from: u32, to: u32, spill: impl FnOnce() -> &'s mut Vec<u32>) {
        debug_assert_eq!(to, from + 1, "a leaf's next sibling comes right after it");
        if self.len == 1 {
            // The usual case, one leaf at a time: it is `from`.
            debug_assert_eq!(self.inline[0], from, "an active leaf is not among them");
            self.inline[0] = to;
            return;
        }
        self.replace_more(from, to, spill);
    }

    /// [`Active::replace`] among more than one leaf.
    fn replace_more<'s>(&mut self, from: u32, to: u32, spill: impl FnOnce() -> &'s mut Vec<u32>) {
        let n = self.len as usize;
        let place = if n <= INLINE {
            self.inline[..n].iter_mut().find(|x| **x == from)
        } else {
            spill().iter_mut().find(|x| **x == from)
        };
        if let Some(x) = place {
            *x = to;
        }
    }

    /// The first active leaf (meaningful only while one is active).
    #[inline(always)]
    fn first(&self) -> u32 {
        self.inline[0]
    }

    /// The only active leaf, when exactly one is.
    #[inline]
    fn lone(&self) -> Option<u32> {
        (self.len == 1).then_some(self.inline[0])
    }

    #[inline]
    fn clear(&mut self) {
        self.len = 0;
    }
}

/// What a step in steady state does not touch, in a block of its own. It is made with
/// the instance only for a program that uses it in its steps (context keys, random
/// composites, Interrupts, more than two reports in a step: [`Cold::needed`]); for any
/// other, only once something from outside asks for it (a trigger, the display
/// snapshot, a change to the context), never in a step. A game's plain tree then keeps
/// no second block per agent, so its agents' blocks lie closer together in memory.
///
/// The context comes first: its address is then the block's, and [`ctx`] picks it or the
/// empty one with one test.
#[repr(C)]
pub(crate) struct Cold {
    pub context: Context,
    /// The agent's own defaults, given from outside (`Instance::seed`), over the
    /// program's: the context is cleared back to both.
    pub seeds: Vec<(KeyId, CtxValue)>,
    /// Active leaves beyond [`INLINE`] (see [`Active`]).
    spill: Vec<u32>,
    /// The random-order composites' permutations (see `Run::order_mut`).
    pub perm: Vec<u32>,
    /// The leaves an Interrupt aborted, to resume when it ends.
    pub resume: Vec<u32>,
    /// Reports beyond the two kept in place (see [`Reports`]).
    reports: VecDeque<Report>,
    triggers: VecDeque<Trigger>,
    /// Inputs of the leaves with `in_context`, by `LeafInfo::input_at` (slot 0 unused).
    pub inputs: Vec<Option<CtxValue>>,
    /// Values produced by leaves with `out_context`, by `LeafInfo::output_at` (slot 0 unused).
    pub produced: Vec<Option<CtxValue>>,
    /// The keys the leaf executing sets or clears itself (`LeafIo::writes`), until the
    /// lifecycle stores them.
    pub writes: Writes,
    /// The display snapshot; empty while recording is off.
    shown: Vec<NodeState>,
    /// Each service's clock, by its place in `Program::services`.
    pub services: Vec<ServiceClock>,
}

/// When a service last ran (SEMANTICS.md §3.2.1).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ServiceClock {
    /// Seconds since it last ran, counted in the steps its composite runs.
    pub since: f64,
    /// The step it last ran in.
    pub step: u64,
}

/// The context of an instance that has no [`Cold`] block: no keys, so no values.
pub(crate) static NO_CONTEXT: Context = Context {
    slots: Vec::new(),
    stamps: Vec::new(),
};

impl Cold {
    /// Whether a step of `p` may use the block: without it, a step reads no context
    /// value, shuffles nothing, resumes nothing and queues at most two reports.
    fn needed<A>(p: &Program<A>) -> bool {
        !p.keys().is_empty()
            || p.perm_len > 0
            || !p.interrupts.is_empty()
            || p.report_cap > 0
            || p.io_len != (1, 1)
            || p.max_active > INLINE
            || !p.services.is_empty()
            || p.writes_keys
    }

    fn new<A>(p: &Program<A>) -> Self {
        Self {
            spill: if p.max_active > INLINE {
                Vec::with_capacity(p.max_active)
            } else {
                Vec::new()
            },
            perm: vec![0; p.perm_len],
            // Only an Interrupt needs the leaves it aborted kept for resuming.
            resume: if p.interrupts.is_empty() {
                Vec::new()
            } else {
                Vec::with_capacity(p.max_active)
            },
            reports: VecDeque::with_capacity(p.report_cap),
            // Filled from outside, between steps: it grows there, never in a step.
            triggers: VecDeque::new(),
            context: Context::seeded(p),
            seeds: Vec::new(),
            // Slot 0 stands for "none" and is never used: no slots when no leaf has one.
            inputs: slots(p.io_len.0),
            produced: slots(p.io_len.1),
            // A key at most once (`LeafIo::write` replaces a key's earlier value): a step
            // never grows it.
            writes: if p.writes_keys {
                Vec::with_capacity(p.keys().len())
            } else {
                Vec::new()
            },
            shown: Vec::new(),
            services: vec![ServiceClock::default(); p.services.len()],
        }
    }
}

impl Clone for Cold {
    /// A copy with the same capacities: a step never allocates in the copy either.
    fn clone(&self) -> Self {
        fn same<T: Clone>(v: &Vec<T>) -> Vec<T> {
            let mut out = Vec::with_capacity(v.capacity());
            out.extend_from_slice(v);
            out
        }
        fn same_deque<T: Clone>(v: &VecDeque<T>) -> VecDeque<T> {
            let mut out = VecDeque::with_capacity(v.capacity());
            out.extend(v.iter().cloned());
            out
        }
        Self {
            context: self.context.clone(),
            seeds: self.seeds.clone(),
            spill: same(&self.spill),
            perm: same(&self.perm),
            resume: same(&self.resume),
            reports: same_deque(&self.reports),
            triggers: same_deque(&self.triggers),
            inputs: same(&self.inputs),
            produced: same(&self.produced),
            writes: same(&self.writes),
            shown: same(&self.shown),
            services: self.services.clone(),
        }
    }
}

/// The context kept in `cold`, or the empty one when there is no block.
#[inline]
fn ctx(cold: &Option<Box<Cold>>) -> &Context {
    cold.as_deref().map_or(&NO_CONTEXT, |c| &c.context)
}

/// The [`Cold`] block, made for program `p` if there is none yet (never in a step of a
/// program that does not need it, see [`Cold::needed`]).
#[inline]
fn cold_of<'c, A>(cold: &'c mut Option<Box<Cold>>, p: &Program<A>) -> &'c mut Cold {
    cold.get_or_insert_with(|| Box::new(Cold::new(p)))
}

// `flags` just before `active`'s count, for `State::flags_and_count`: one 32-bit load.
const _: () = assert!(
    std::mem::offset_of!(State, flags) + 2 == std::mem::offset_of!(State, active)
        && std::mem::offset_of!(Active, len) == 0
);

/// How many of a [`State`]'s first bytes a common step of one active leaf reads (up to
/// the end of the active leaves).
pub(crate) const COMMON_READ: usize =
    std::mem::offset_of!(State, active) + std::mem::size_of::<Active>();

/// What an instance keeps besides its block and its cold block: the step, the clock, the
/// active leaves, the report queue's first places and counts. Laid out in this order
/// (`repr(C)`): what a common step of one active leaf reads comes first ([`COMMON_READ`]
/// bytes), so that with the instance's program and block it lies in the instance's first
/// bytes; the rest only other steps read.
#[derive(Clone)]
#[repr(C)]
pub(crate) struct State {
    /// The number of the step being taken, or of the last one.
    step: u64,
    /// Seconds elapsed: the sum of the dts of the steps so far (SEMANTICS.md §3.3.1).
    clock: f64,
    /// Read by every step, for the context a leaf and its guards see.
    cold: Option<Box<Cold>>,
    /// The serial of the last entry of a node, which its epoch word took; and its value
    /// when this step's phase 1 began: a node whose epoch is above it was entered in this
    /// step (see [`State::entered_now`]; the common step, which needs neither, keeps no
    /// `step_base`).
    entries: u32,
    /// The tree stalled in this step: the calls above return, and the phases left are
    /// skipped.
    stalled: bool,
    /// What the step must do besides the common work.
    flags: Flags,
    active: Active,
    step_base: u32,
    /// The Interrupt running, or `NONE`.
    interrupt: u32,
    reports: Reports,
    /// The random generator's state (SplitMix64).
    rng: u64,
    stats: RunStats,
}

impl State {
    /// The state of a new instance of `p`, not started; its random generator is seeded
    /// with `seed`.
    pub(crate) fn new<A>(p: &Program<A>, seed: u64) -> Self {
        Self {
            step: 0,
            interrupt: NONE,
            flags: if p.services.is_empty() {
                Flags::NOT_STARTED
            } else {
                Flags(Flags::NOT_STARTED.0 | Flags::SERVICES.0)
            },
            stalled: false,
            reports: Reports::EMPTY,
            stats: RunStats::default(),
            entries: 0,
            step_base: 0,
            active: Active {
                len: 0,
                inline: [0; INLINE],
            },
            rng: seed ^ 0x9E37_79B9_7F4A_7C15,
            clock: 0.0,
            cold: Cold::needed(p).then(|| Box::new(Cold::new(p))),
        }
    }

    // ---- the step and the clock -----------------------------------------------------

    /// The number of the step being taken (0: the start), or of the last one between steps.
    #[inline(always)]
    pub(crate) fn step(&self) -> u64 {
        self.step
    }

    /// The instance's clock, in seconds (SEMANTICS.md §3.3.1).
    #[inline(always)]
    pub(crate) fn clock(&self) -> f64 {
        self.clock
    }

    /// The step's number and clock move on (SEMANTICS.md §3.3.1: the start is at clock 0,
    /// and every step adds its dt before phase 1).
    #[inline(always)]
    pub(crate) fn advance(&mut self, dt: f64) {
        self.step += 1;
        self.clock += dt;
    }

    /// Whether the instance is yet to start; if so, it starts now, at step 0.
    #[inline]
    pub(crate) fn start(&mut self) -> bool {
        if !self.flags.has(Flags::NOT_STARTED) {
            return false;
        }
        self.flags.clear(Flags::NOT_STARTED);
        self.step = 0;
        true
    }

    /// The flags that are set of those in `mask`, and the count of active leaves above
    /// them, as one word: a step tells at one compare that it is the common one
    /// ([`COMMON_STEP`]).
    #[inline(always)]
    pub(crate) fn flags_and_count(&self, mask: Flags) -> u32 {
        u32::from(self.flags.0 & mask.0) | u32::from(self.active.len) << 16
    }

    /// Whether the display snapshot is kept.
    #[inline]
    pub(crate) fn recording(&self) -> bool {
        self.flags.has(Flags::RECORD)
    }

    /// The next number of the instance's random generator.
    pub(crate) fn next_random(&mut self) -> u64 {
        // SplitMix64: small, fast, the same on every platform.
        let rng = &mut self.rng;
        *rng = rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    // ---- entries --------------------------------------------------------------------

    /// The node whose epoch is record word `ri` of `rt` is entered now: its epoch takes the
    /// next serial.
    #[inline(always)]
    pub(crate) fn mark_entered(&mut self, rt: &mut [u32], ri: usize) {
        let e = self.entries + 1;
        self.entries = e;
        rt[ri] = e;
        if e == RENUMBER_AT {
            self.flags.set(Flags::RENUMBER);
        }
    }

    /// The serial of the last entry.
    #[inline]
    pub(crate) fn entries(&self) -> u32 {
        self.entries
    }

    /// The step's phases begin: a node entered from here on, whose epoch is above the
    /// last serial so far, was entered in this step.
    #[inline(always)]
    pub(crate) fn begin_phases(&mut self) {
        self.step_base = self.entries;
    }

    /// Whether a node whose epoch is `epoch` was entered in this step's phases.
    #[inline]
    pub(crate) fn entered_now(&self, epoch: u32) -> bool {
        epoch > self.step_base
    }

    /// Whether the entry serials are due to start again (see [`Flags::RENUMBER`]).
    #[inline]
    pub(crate) fn renumber_due(&self) -> bool {
        self.flags.has(Flags::RENUMBER)
    }

    /// The entry serials start again from 0 (every epoch was set to 0).
    #[cold]
    pub(crate) fn renumbered(&mut self) {
        self.flags.clear(Flags::RENUMBER);
        self.entries = 0;
    }

    /// Sets the entry serial, for a test of renumbering.
    #[cfg(test)]
    pub(crate) fn set_entries(&mut self, e: u32) {
        self.entries = e;
    }

    // ---- stalls and restarts --------------------------------------------------------

    /// Whether the tree stalled in this step.
    #[inline(always)]
    pub(crate) fn stalled(&self) -> bool {
        self.stalled
    }

    /// The tree stalled (it was aborted and reset): counted, the queued reports dropped,
    /// the rest of the step skipped, and a restart due from the next step.
    pub(crate) fn stall(&mut self) {
        self.stats.stalls += 1;
        let cold = &mut self.cold;
        self.reports
            .clear(|| cold.as_deref_mut().map(|c| &mut c.reports));
        self.stalled = true;
        self.flags.set(Flags::RESTART);
    }

    /// A new step (or the start, which may stall at once) is not stalled.
    #[inline]
    pub(crate) fn clear_stall(&mut self) {
        self.stalled = false;
    }

    /// Whether a restart after a stall is due.
    #[inline]
    pub(crate) fn restart_due(&self) -> bool {
        self.flags.has(Flags::RESTART)
    }

    /// The restart after a stall is made (or not needed any more: the tree restarted).
    #[inline]
    pub(crate) fn clear_restart(&mut self) {
        self.flags.clear(Flags::RESTART);
    }

    // ---- counters -------------------------------------------------------------------

    /// The run counters.
    pub(crate) fn stats(&self) -> RunStats {
        self.stats
    }

    /// A run of the tree completed with `s`.
    #[inline]
    pub(crate) fn count_run(&mut self, s: Status) {
        match s {
            Status::Success => self.stats.succeeded += 1,
            Status::Skipped => self.stats.skipped += 1,
            _ => self.stats.failed += 1,
        }
    }

    /// The tree is reset for a missing context key.
    #[inline]
    pub(crate) fn count_context_missing(&mut self) {
        self.stats.context_missing += 1;
    }

    // ---- Interrupts and triggers ----------------------------------------------------

    /// The Interrupt running, or `NONE`.
    #[inline]
    pub(crate) fn interrupt(&self) -> u32 {
        self.interrupt
    }

    /// Interrupt `at` starts (counted); it runs from now on.
    #[inline]
    pub(crate) fn start_interrupt(&mut self, at: u32) {
        self.stats.interrupts += 1;
        self.interrupt = at;
    }

    /// The Interrupt running ended.
    #[inline]
    pub(crate) fn end_interrupt(&mut self) {
        self.interrupt = NONE;
    }

    /// No Interrupt runs, and no leaf waits to be resumed (the whole tree was aborted).
    pub(crate) fn forget_interrupt(&mut self) {
        self.interrupt = NONE;
        if let Some(cold) = self.cold.as_deref_mut() {
            cold.resume.clear();
        }
    }

    /// Queues a trigger, from outside a step, for program `p`'s next step.
    pub(crate) fn queue_trigger<A>(&mut self, t: Trigger, p: &Program<A>) {
        cold_of(&mut self.cold, p).triggers.push_back(t);
        self.flags.set(Flags::TRIGGERS);
    }

    /// Whether triggers may wait.
    #[inline]
    pub(crate) fn triggers_waiting(&self) -> bool {
        self.flags.has(Flags::TRIGGERS)
    }

    /// The oldest trigger waiting, taken.
    pub(crate) fn next_trigger(&mut self) -> Option<Trigger> {
        self.cold
            .as_deref_mut()
            .and_then(|c| c.triggers.pop_front())
    }

    /// Trigger `t`, taken, waits again, first (the tree stalled before it was handled).
    pub(crate) fn put_back_trigger(&mut self, t: Trigger) {
        if let Some(cold) = self.cold.as_deref_mut() {
            cold.triggers.push_front(t);
        }
    }

    /// Every trigger waiting was handled.
    pub(crate) fn triggers_handled(&mut self) {
        self.flags.clear(Flags::TRIGGERS);
    }

    // ---- the active leaves ----------------------------------------------------------

    /// The active leaves, in tree order.
    #[inline]
    pub(crate) fn active(&self) -> &[u32] {
        let spill = self.cold.as_deref().map_or(&[][..], |c| &c.spill);
        self.active.as_slice(spill)
    }

    /// How many leaves are active.
    #[inline]
    pub(crate) fn active_count(&self) -> usize {
        self.active.len()
    }

    /// The first active leaf (meaningful only while one is active).
    #[inline(always)]
    pub(crate) fn first_active(&self) -> u32 {
        self.active.first()
    }

    /// The only active leaf, when exactly one is.
    #[inline]
    pub(crate) fn lone_active(&self) -> Option<u32> {
        self.active.lone()
    }

    /// Leaf `n` of program `p` is active now.
    #[inline]
    pub(crate) fn activate<A>(&mut self, n: u32, p: &Program<A>) {
        let cold = &mut self.cold;
        self.active.insert(n, || &mut cold_of(cold, p).spill);
    }

    /// Leaf `n` of program `p` is not active any more.
    #[inline]
    pub(crate) fn deactivate<A>(&mut self, n: u32, p: &Program<A>) {
        let cold = &mut self.cold;
        self.active.remove(n, || &mut cold_of(cold, p).spill);
    }

    /// Leaf `to` of program `p` is active in the place of leaf `from` (see
    /// [`Active::replace`]).
    #[inline]
    pub(crate) fn replace_active<A>(&mut self, from: u32, to: u32, p: &Program<A>) {
        let cold = &mut self.cold;
        self.active
            .replace(from, to, || &mut cold_of(cold, p).spill);
    }

    /// No leaf is active (the tree was reset).
    #[inline]
    pub(crate) fn clear_active(&mut self) {
        self.active.clear();
    }

    // ---- the report queue -----------------------------------------------------------

    /// Whether a report waits for phase 4.
    #[inline]
    pub(crate) fn reports_waiting(&self) -> bool {
        self.reports.any()
    }

    /// Queues report `r` for phase 4 of a step of program `p` (past two, `p` needs the
    /// cold block, so the instance has it: see [`Cold::needed`]).
    pub(crate) fn queue_report<A>(&mut self, r: Report, p: &Program<A>) {
        let cold = &mut self.cold;
        self.reports.push(r, || {
            let cold = cold_of(cold, p);
            debug_assert!(
                cold.reports.len() < p.report_cap,
                "more reports in a step than Program::bounds allows"
            );
            &mut cold.reports
        });
    }

    /// The oldest report waiting, taken.
    pub(crate) fn next_report(&mut self) -> Option<Report> {
        let cold = &mut self.cold;
        self.reports
            .pop(|| cold.as_deref_mut().map(|c| &mut c.reports))
    }

    // ---- the cold block -------------------------------------------------------------

    /// The agent's context (empty without a cold block).
    #[inline]
    pub(crate) fn context(&self) -> &Context {
        ctx(&self.cold)
    }

    /// Whether the agent has no defaults of its own (`Cold::seeds`).
    pub(crate) fn no_agent_seeds(&self) -> bool {
        self.cold.as_ref().is_none_or(|c| c.seeds.is_empty())
    }

    /// The [`Cold`] block, made for program `p` if there is none yet. A step only asks for
    /// it where `p` uses it, and then [`Cold::needed`] made it with the instance: a step
    /// never allocates it.
    #[inline]
    pub(crate) fn cold_mut<A>(&mut self, p: &Program<A>) -> &mut Cold {
        cold_of(&mut self.cold, p)
    }

    /// Whether the instance has its cold block.
    #[cfg(test)]
    pub(crate) fn has_cold(&self) -> bool {
        self.cold.is_some()
    }

    /// What a condition without `in_context` sees: the step and the context.
    #[inline(always)]
    pub(crate) fn plain_io(&self) -> CondIo<'_> {
        CondIo {
            input: None,
            step: self.step,
            context: ctx(&self.cold),
        }
    }

    /// The I/O of the leaf `info` describes, for a call of its action: the input fetched at
    /// entry, where what it produces is kept, the context. A leaf without `in_context` or
    /// `out_context` has neither, and sees what a condition without `in_context` sees.
    /// `EXTRAS` false: the leaf has none (see `Exec::check_and_execute`).
    #[inline(always)]
    pub(crate) fn leaf_io<A, const EXTRAS: bool>(&mut self, info: &LeafInfo<A>) -> LeafIo<'_> {
        let step = self.step;
        if !(EXTRAS && info.has(HAS_IO | HAS_WRITES)) {
            return LeafIo {
                seen: CondIo {
                    input: None,
                    step,
                    context: ctx(&self.cold),
                },
                produced: None,
                writes: None,
            };
        }
        let (input_at, output_at) = (info.input_at as usize, info.output_at as usize);
        match self.cold.as_deref_mut() {
            Some(Cold {
                inputs,
                produced,
                context,
                writes,
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
                writes: info.has(HAS_WRITES).then_some(writes),
            },
            // No block: no leaf has an input or an output slot, nor writes keys
            // (`Cold::needed`).
            None => LeafIo {
                seen: CondIo {
                    input: None,
                    step,
                    context: &NO_CONTEXT,
                },
                produced: None,
                writes: None,
            },
        }
    }

    // ---- the display snapshot -------------------------------------------------------

    /// Each node's display state, by node index (empty unless recording).
    pub(crate) fn shown(&self) -> &[NodeState] {
        self.cold.as_deref().map_or(&[], |c| &c.shown)
    }

    /// Node `i`'s display state, while recording.
    #[inline]
    pub(crate) fn shown_mut(&mut self, i: usize) -> Option<&mut NodeState> {
        self.cold.as_deref_mut().and_then(|c| c.shown.get_mut(i))
    }

    /// Turns the display snapshot of program `p`'s nodes on (from a blank one) or off.
    pub(crate) fn record<A>(&mut self, on: bool, p: &Program<A>) {
        if on {
            self.flags.set(Flags::RECORD);
            cold_of(&mut self.cold, p).shown = vec![NodeState::default(); p.len()];
        } else {
            self.flags.clear(Flags::RECORD);
            if let Some(cold) = self.cold.as_deref_mut() {
                cold.shown = Vec::new();
            }
        }
    }

    /// Heap memory held by the cold block, in bytes.
    pub(crate) fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.cold.as_deref().map_or(0, |c| {
            size_of::<Cold>()
                + (c.spill.capacity() + c.perm.capacity() + c.resume.capacity()) * 4
                + c.reports.capacity() * size_of::<Report>()
                + c.triggers.capacity() * size_of::<Trigger>()
                + c.shown.capacity() * size_of::<NodeState>()
                + c.writes.capacity() * size_of::<(KeyId, Option<CtxValue>)>()
                + (c.context.slots.capacity() + c.inputs.capacity() + c.produced.capacity())
                    * size_of::<Option<CtxValue>>()
                + c.context.stamps.capacity() * size_of::<u64>()
        })
    }
}

/// The index of the last `Running` status in `s`.
#[inline]
pub(crate) fn last_running(s: &[Status]) -> Option<usize> {
    let mut end = s.len();
    while end > 0 {
        let (base, running) = running_window(s, 0, end);
        if running != 0 {
            return Some(base + last_byte(running));
        }
        end = base;
    }
    None
}

/// The `Running` statuses among the last (up to) eight of `s[from..end]` (`from < end`),
/// compared as one word: `(base, word)`, where the top bit of the word's byte `i` is set
/// when `s[base + i]` runs. The statuses it covers are `s[from.max(base)..end]`.
#[inline]
pub(crate) fn running_window(s: &[Status], from: usize, end: usize) -> (usize, u64) {
    const RUNNING: u64 = u64::from_le_bytes([Status::Running as u8; 8]);
    const LOW: u64 = u64::from_le_bytes([0x7F; 8]);
    const TOP: u64 = u64::from_le_bytes([0x80; 8]);
    debug_assert!(from < end && end <= s.len(), "an empty or bad range");
    let base = end.saturating_sub(8);
    let Some(w) = s[base..].first_chunk::<8>() else {
        return (0, running_few(s, from, end));
    };
    // A byte is `Running` when it is 0 after `^ RUNNING`; every status is below 0x80, so
    // `+ 0x7F` sets a byte's top bit exactly when it is not 0, and carries into no other.
    let x = u64::from_le_bytes(w.map(|b| b as u8)) ^ RUNNING;
    let running = !(x + LOW) & TOP;
    // Only `from..end`: `base + 8 - end` and `from - base` are below 8.
    let (above, below) = (base + 8 - end, from.saturating_sub(base));
    (
        base,
        running & (u64::MAX >> (8 * above)) & (u64::MAX << (8 * below)),
    )
}

/// [`running_window`] of a tree with fewer than eight nodes.
#[cold]
#[inline(never)]
fn running_few(s: &[Status], from: usize, end: usize) -> u64 {
    (from..end)
        .filter(|&i| s[i] == Status::Running)
        .fold(0, |w, i| w | 0x80 << (8 * i))
}

/// The index of the last byte of `running` (not 0) with its top bit set.
#[inline]
pub(crate) fn last_byte(running: u64) -> usize {
    (63 - running.leading_zeros() as usize) / 8
}

/// `n` empty value slots; none for `n = 1` (slot 0 only means "none").
fn slots(n: usize) -> Vec<Option<CtxValue>> {
    if n > 1 { vec![None; n] } else { Vec::new() }
}

#[cfg(test)]
mod tests {
    use super::{Status, last_running, running_window};

    #[test]
    fn last_running_finds_what_a_plain_search_finds() {
        let kinds = [
            Status::Idle,
            Status::Running,
            Status::Success,
            Status::Failure,
            Status::Aborted,
        ];
        for len in 0..70usize {
            // Every length across the 8-wide windows, with no, one and two running nodes.
            for at in [None, Some(0), Some(len / 3), Some(len.saturating_sub(1))] {
                for also in [None, Some(len / 2)] {
                    let mut s: Vec<Status> = (0..len)
                        .map(|i| {
                            if kinds[i % 5] == Status::Running {
                                Status::Idle
                            } else {
                                kinds[i % 5]
                            }
                        })
                        .collect();
                    for i in [at, also].into_iter().flatten().filter(|&i| i < len) {
                        s[i] = Status::Running;
                    }
                    let expected = s.iter().rposition(|&x| x == Status::Running);
                    assert_eq!(last_running(&s), expected, "{s:?}");
                    for from in 0..len {
                        for end in from + 1..=len {
                            let (base, w) = running_window(&s, from, end);
                            let covered = from.max(base)..end;
                            assert!(base <= from || end - base == 8, "{from}..{end}: {base}");
                            let found: Vec<usize> = (0..8)
                                .filter(|i| w >> (8 * i) & 0xFF != 0)
                                .map(|i| base + i)
                                .collect();
                            let plain: Vec<usize> =
                                covered.filter(|&i| s[i] == Status::Running).collect();
                            assert_eq!(found, plain, "{from}..{end} of {s:?}");
                        }
                    }
                }
            }
        }
    }
}
