//! One agent's run of a program: its flat per-node state, and `step` (SEMANTICS.md §3), which
//! runs the lifecycle in `exec/`.
//!
//! All storage is sized when the instance is created; a step in steady state allocates
//! nothing.

use std::collections::VecDeque;
use std::sync::Arc;

use super::Status;
use super::behaviour::{Context, CtxValue};
use super::exec::{Exec, Hooks, Quiet, Watched};
use super::kinds::Kind;
use super::program::{NONE, Program};
use super::slab::ActionSlab;
use super::trace::Observer;

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
    /// Stalls.
    pub stalls: u64,
    /// Resets for a missing context key.
    pub context_missing: u64,
    /// Interrupts started.
    pub interrupts: u64,
}

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
pub(crate) struct Reports {
    pub head: u8,
    pub len: u8,
    pub spilled: bool,
    pub ring: [Report; 2],
}

impl Reports {
    const NONE: Report = Report {
        node: NONE,
        status: Status::Idle,
        epoch: 0,
    };

    #[inline]
    pub(crate) fn any(&self) -> bool {
        self.len > 0 || self.spilled
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
// on the clock) and 64-bit words (a step or a count), as `kinds::Needs` asks.

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
    /// The flags that make a step take `Exec::step_full`.
    pub(crate) const DUE: Self = Self(1 | 2 | 4 | 16);
    /// Every flag.
    pub(crate) const ALL: Self = Self(u16::MAX);

    /// Whether any of `f` is set.
    #[inline(always)]
    pub(crate) const fn has(self, f: Self) -> bool {
        self.0 & f.0 != 0
    }

    /// Sets `f`.
    #[inline(always)]
    pub(crate) fn set(&mut self, f: Self) {
        self.0 |= f.0;
    }

    /// Clears `f`.
    #[inline(always)]
    pub(crate) fn clear(&mut self, f: Self) {
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
pub(crate) struct Active {
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
    pub(crate) fn insert<'s>(&mut self, leaf: u32, spill: impl FnOnce() -> &'s mut Vec<u32>) {
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
    pub(crate) fn remove<'s>(&mut self, leaf: u32, spill: impl FnOnce() -> &'s mut Vec<u32>) {
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
    pub(crate) fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Puts leaf `to` where active leaf `from` is: `to` comes right after `from` in tree
    /// order, with nothing between (the next sibling of a leaf), so the order holds.
    #[inline]
    pub(crate) fn replace<'s>(
        &mut self,
        from: u32,
        to: u32,
        spill: impl FnOnce() -> &'s mut Vec<u32>,
    ) {
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
    pub(crate) fn first(&self) -> u32 {
        self.inline[0]
    }

    /// The only active leaf, when exactly one is.
    #[inline]
    pub(crate) fn lone(&self) -> Option<u32> {
        (self.len == 1).then_some(self.inline[0])
    }

    #[inline]
    pub(crate) fn clear(&mut self) {
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
    /// Active leaves beyond [`INLINE`] (see [`Active`]).
    pub spill: Vec<u32>,
    pub perm: Vec<u32>,
    pub resume: Vec<u32>,
    /// Reports beyond the two kept in place (see [`Reports`]).
    pub reports: VecDeque<Report>,
    pub triggers: VecDeque<Trigger>,
    /// Inputs of the leaves with `in_context`, by `LeafInfo::input_at` (slot 0 unused).
    pub inputs: Vec<Option<CtxValue>>,
    /// Values produced by leaves with `out_context`, by `LeafInfo::output_at` (slot 0 unused).
    pub produced: Vec<Option<CtxValue>>,
    /// The display snapshot; empty while recording is off.
    pub shown: Vec<NodeState>,
}

/// The context of an instance that has no [`Cold`] block: no keys, so no values.
pub(crate) static NO_CONTEXT: Context = Context { slots: Vec::new() };

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
            context: Context {
                slots: vec![None; p.keys().len()],
            },
            // Slot 0 stands for "none" and is never used: no slots when no leaf has one.
            inputs: slots(p.io_len.0),
            produced: slots(p.io_len.1),
            shown: Vec::new(),
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
            spill: same(&self.spill),
            perm: same(&self.perm),
            resume: same(&self.resume),
            reports: same_deque(&self.reports),
            triggers: same_deque(&self.triggers),
            inputs: same(&self.inputs),
            produced: same(&self.produced),
            shown: same(&self.shown),
        }
    }
}

/// The context kept in `cold`, or the empty one when there is no block.
#[inline]
pub(crate) fn ctx(cold: &Option<Box<Cold>>) -> &Context {
    cold.as_deref().map_or(&NO_CONTEXT, |c| &c.context)
}

/// The [`Cold`] block, made for program `p` if there is none yet (never in a step of a
/// program that does not need it, see [`Cold::needed`]).
#[inline]
pub(crate) fn cold_of<'c, A>(cold: &'c mut Option<Box<Cold>>, p: &Program<A>) -> &'c mut Cold {
    cold.get_or_insert_with(|| Box::new(Cold::new(p)))
}

// `flags` just before `active`'s count, for `State::flags_and_count`: one 32-bit load.
const _: () = assert!(
    std::mem::offset_of!(State, flags) + 2 == std::mem::offset_of!(State, active)
        && std::mem::offset_of!(Active, len) == 0
);

/// What an instance keeps besides its block and its cold block: the step, the clock, the
/// active leaves, the report queue's first places and counts. Laid out in this order
/// (`repr(C)`): what a common step of one active leaf reads comes first, so that with the
/// instance's program and block it lies in the instance's first [`HOT`] bytes; the rest
/// only other steps read.
#[derive(Clone)]
#[repr(C)]
pub(crate) struct State {
    pub step: u64,
    /// Seconds elapsed: the sum of the dts of the steps so far (SEMANTICS.md §3.3.1).
    pub clock: f64,
    /// Read by every step, for the context a leaf and its guards see.
    pub cold: Option<Box<Cold>>,
    /// The serial of the last entry of a node, which its epoch word took; and its value
    /// when this step's phase 1 began: a node whose epoch is above it was entered in this
    /// step (see `Exec::entered_now`; the common step, which needs neither, keeps no
    /// `step_base`).
    pub entries: u32,
    pub stalled: bool,
    /// What the step must do besides the common work.
    pub flags: Flags,
    pub active: Active,
    pub step_base: u32,
    pub interrupt: u32,
    pub reports: Reports,
    /// The random generator's state (SplitMix64).
    pub rng: u64,
    pub stats: RunStats,
}

impl State {
    /// The agent's context (empty without a cold block).
    #[inline]
    pub(crate) fn context(&self) -> &Context {
        ctx(&self.cold)
    }

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

    /// The flags that are set of those in `mask`, and the count of active leaves above
    /// them, as one word: a step tells at one compare that it is the common one.
    #[inline(always)]
    pub(crate) fn flags_and_count(&self, mask: Flags) -> u32 {
        u32::from(self.flags.0 & mask.0) | u32::from(self.active.len) << 16
    }

    /// Whether the display snapshot is kept.
    #[inline]
    pub(crate) fn recording(&self) -> bool {
        self.flags.has(Flags::RECORD)
    }

    /// The active leaves, in tree order.
    #[inline]
    pub(crate) fn active(&self) -> &[u32] {
        let spill = self.cold.as_deref().map_or(&[][..], |c| &c.spill);
        self.active.as_slice(spill)
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

/// What a common step of one active leaf reads of an instance lies in its first `HOT`
/// bytes: its program, its block and the start of its [`State`] (see there), so that the
/// step reads few cache lines of an agent's entry in a game's array.
const HOT: usize = 80;
const _: () = assert!(
    std::mem::offset_of!(Instance<()>, st)
        + std::mem::offset_of!(State, active)
        + std::mem::size_of::<Active>()
        <= HOT
);

/// One agent's run of a shared [`Program`].
#[repr(C)]
pub struct Instance<A> {
    program: Arc<Program<A>>,
    actions: ActionSlab<A>,
    st: State,
}

impl<A> Clone for Instance<A> {
    /// A copy of the instance as it is now: stepping the copy and the original alike
    /// gives the same runs (the debugger keeps copies of past steps to go back to).
    fn clone(&self) -> Self {
        Self {
            program: self.program.clone(),
            actions: self.actions.clone(),
            st: self.st.clone(),
        }
    }
}

impl<A> Instance<A> {
    /// A new instance, not started; its random generator is seeded with `seed`.
    pub fn new(program: Arc<Program<A>>, seed: u64) -> Self {
        let st = State {
            step: 0,
            interrupt: NONE,
            flags: Flags::NOT_STARTED,
            stalled: false,
            reports: Reports {
                head: 0,
                len: 0,
                spilled: false,
                ring: [Reports::NONE; 2],
            },
            stats: RunStats::default(),
            entries: 0,
            step_base: 0,
            active: Active {
                len: 0,
                inline: [0; INLINE],
            },
            rng: seed ^ 0x9E37_79B9_7F4A_7C15,
            clock: 0.0,
            cold: Cold::needed(&program).then(|| Box::new(Cold::new(&program))),
        };
        Self {
            actions: ActionSlab::new(&program.actions),
            program,
            st,
        }
    }

    /// The program it runs.
    pub fn program(&self) -> &Arc<Program<A>> {
        &self.program
    }

    /// The number of the last step taken (0: only started, or not yet).
    pub fn step_number(&self) -> u64 {
        self.st.step
    }

    /// Seconds elapsed: 0 before the first step, then the sum of the dts of every step
    /// so far (SEMANTICS.md §3.3.1's instance clock).
    pub fn clock(&self) -> f64 {
        self.st.clock
    }

    /// The agent's context.
    pub fn context(&self) -> &Context {
        ctx(&self.st.cold)
    }

    /// The agent's context, to change from outside (the world removes destroyed entities).
    /// Where the program's steps keep no context, the first call makes room for it.
    pub fn context_mut(&mut self) -> &mut Context {
        &mut cold_of(&mut self.st.cold, &self.program).context
    }

    /// The active leaves, in tree order.
    pub fn active_leaves(&self) -> &[u32] {
        self.st.active()
    }

    /// Each node's display state, by node index (empty unless recording is on, see
    /// [`Instance::record_states`]).
    pub fn node_states(&self) -> &[NodeState] {
        self.st.cold.as_deref().map_or(&[], |c| &c.shown)
    }

    /// Turns the display snapshot ([`Instance::node_states`]) on or off. It is off by
    /// default, so a game that never shows it pays nothing for it; an editor or a debugger
    /// turns it on. Turning it on starts from a blank snapshot.
    pub fn record_states(&mut self, on: bool) {
        if on {
            self.st.flags.set(Flags::RECORD);
        } else {
            self.st.flags.clear(Flags::RECORD);
        }
        if on {
            // Guards' statuses were not kept while off: start them afresh too.
            for (status, rec) in self.actions.status_mut().iter_mut().zip(&self.program.recs) {
                if matches!(rec.kind, Kind::Condition(_)) {
                    *status = Status::Idle;
                }
            }
        }
        if on {
            cold_of(&mut self.st.cold, &self.program).shown =
                vec![NodeState::default(); self.program.len()];
        } else if let Some(cold) = self.st.cold.as_deref_mut() {
            cold.shown = Vec::new();
        }
    }

    /// Counts of completed runs, stalls and resets.
    pub fn stats(&self) -> RunStats {
        self.st.stats
    }

    /// Queues a trigger for the Interrupt with this id; it is handled at the next step.
    /// The queue is kept here, outside the step: queueing may allocate, handling does not.
    pub fn trigger(&mut self, interrupt_id: &str, payload: Option<CtxValue>) {
        let t = match self
            .program
            .interrupts
            .iter()
            .find(|(id, _)| id == interrupt_id)
        {
            Some(&(_, at)) => Trigger::Known(at, payload),
            None => Trigger::Unknown(format!(
                "no Interrupt has the id '{interrupt_id}'; trigger ignored"
            )),
        };
        cold_of(&mut self.st.cold, &self.program)
            .triggers
            .push_back(t);
        self.st.flags.set(Flags::TRIGGERS);
    }

    /// Heap memory held by this instance, in bytes (its share of the program not counted).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let s = &self.st;
        let cold = s.cold.as_deref().map_or(0, |c| {
            size_of::<Cold>()
                + (c.spill.capacity() + c.perm.capacity() + c.resume.capacity()) * 4
                + c.reports.capacity() * size_of::<Report>()
                + c.triggers.capacity() * size_of::<Trigger>()
                + c.shown.capacity() * size_of::<NodeState>()
                + (c.context.slots.capacity() + c.inputs.capacity() + c.produced.capacity())
                    * size_of::<Option<CtxValue>>()
        });
        self.program.actions.size() + cold
    }

    /// Advances the agent by one frame of `dt` seconds (SEMANTICS.md §3.2). The first call also
    /// starts the instance (its events carry step 0).
    #[inline]
    pub fn step(&mut self, dt: f64, agent: &mut A, observer: Option<&mut dyn Observer>) {
        match observer {
            // No observer: the lifecycle with every hook compiled out, unless the display
            // snapshot is kept (the quiet step then takes the watched one).
            None => self.exec::<Quiet>(agent, None).step(dt),
            observer => self.exec::<Watched>(agent, observer).step(dt),
        }
    }

    fn exec<'x, 'o, H: Hooks>(
        &'x mut self,
        agent: &'x mut A,
        obs: Option<&'x mut (dyn Observer + 'o)>,
    ) -> Exec<'x, 'o, A, H> {
        Exec::new(&self.program, &mut self.st, &mut self.actions, agent, obs)
    }
}

/// Steps many agents by `dt` seconds, one after another in the order given, with no
/// observer: the same as calling [`Instance::step`] on each.
///
/// ```
/// # use std::sync::Arc;
/// # use arbor::model::{Catalog, NoAssets};
/// # use arbor::runtime::{Behaviours, Instance, Program, step_all};
/// # let tree = arbor::io::parse_tree(r#"{"format": "arbor.tree", "version": 1, "nodes": [
/// #   {"id": "root", "kind": "Root", "inputs": {"child": ["a"]}},
/// #   {"id": "a", "kind": "MockAction", "fields": {"script": "RRS"}}]}"#,
/// #   std::path::Path::new("t.json")).unwrap();
/// # let program = Arc::new(Program::<()>::compile(
/// #   &tree, &Catalog::builtin(), &NoAssets, &Behaviours::with_builtins()).unwrap());
/// let mut agents: Vec<((), Instance<()>)> =
///     (0..100).map(|i| ((), Instance::new(program.clone(), i))).collect();
/// for _frame in 0..10 {
///     step_all(1.0 / 30.0, agents.iter_mut().map(|(agent, instance)| (agent, instance)));
/// }
/// assert!(agents.iter().all(|(_, i)| i.stats().succeeded == 3));
/// ```
pub fn step_all<'a, A: 'a>(
    dt: f64,
    agents: impl IntoIterator<Item = (&'a mut A, &'a mut Instance<A>)>,
) {
    for (agent, instance) in agents {
        instance.step(dt, agent, None);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{Instance, Status, last_running, running_window};
    use crate::model::{Catalog, NoAssets};
    use crate::runtime::{Behaviours, Program};

    /// An instance of the tree of mock nodes `nodes` (a test: an error fails it).
    #[allow(clippy::unwrap_used)]
    fn instance(nodes: &str) -> Instance<()> {
        let text = format!(r#"{{"format": "arbor.tree", "version": 1, "nodes": [{nodes}]}}"#);
        let tree = crate::io::parse_tree(&text, std::path::Path::new("t.json")).unwrap();
        let p = Program::compile(
            &tree,
            &Catalog::builtin(),
            &NoAssets,
            &Behaviours::with_builtins(),
        );
        Instance::new(Arc::new(p.unwrap()), 7)
    }

    #[test]
    fn only_a_program_that_needs_it_gets_a_cold_block_with_the_instance() {
        let root = r#"{"id": "root", "kind": "Root", "inputs": {"child": ["s"]}}"#;
        let plain = r#"{"id": "s", "kind": "Sequence", "inputs": {"conditions": ["g"], "children": ["a"]}},
            {"id": "g", "kind": "MockCondition"}, {"id": "a", "kind": "MockAction"}"#;
        let mut i = instance(&format!("{root}, {plain}"));
        assert!(i.st.cold.is_none());
        for _ in 0..5 {
            i.step(0.1, &mut (), None);
        }
        assert!(i.st.cold.is_none(), "a quiet step made it");
        assert!(i.context().get(0).is_none());
        assert!(i.node_states().is_empty());
        i.record_states(true);
        assert_eq!(i.node_states().len(), 4, "made on demand");

        let needing = [
            // a context key
            r#"{"id": "s", "kind": "MockAction", "fields": {"out_context": "k"}}"#,
            // a random composite
            r#"{"id": "s", "kind": "RandomSequence", "inputs": {"children": ["a"]}},
               {"id": "a", "kind": "MockAction"}"#,
            // more leaves active at once than fit in place (and more reports)
            r#"{"id": "s", "kind": "Parallel", "inputs": {"children": ["a", "b", "c", "d", "e"]}},
               {"id": "a", "kind": "MockAction"}, {"id": "b", "kind": "MockAction"},
               {"id": "c", "kind": "MockAction"}, {"id": "d", "kind": "MockAction"},
               {"id": "e", "kind": "MockAction"}"#,
        ];
        for nodes in needing {
            assert!(
                instance(&format!("{root}, {nodes}")).st.cold.is_some(),
                "{nodes}"
            );
        }
        let interrupt = r#"{"id": "root", "kind": "Root", "inputs": {"child": ["a"], "interrupts": ["i"]}},
            {"id": "a", "kind": "MockAction"},
            {"id": "i", "kind": "Interrupt", "fields": {"interrupt_id": "x"}, "inputs": {"child": ["b"]}},
            {"id": "b", "kind": "MockAction"}"#;
        assert!(instance(interrupt).st.cold.is_some());
    }

    /// The entry serials start again once they reach half their range, between steps:
    /// a run across that point is the run without it, event for event.
    #[test]
    fn a_run_across_the_renumbering_of_entries_is_the_same_run() {
        let tree = r#"{"id": "root", "kind": "Root", "inputs": {"child": ["p"]}},
            {"id": "p", "kind": "Parallel", "inputs": {"children": ["s", "t"]}},
            {"id": "s", "kind": "Sequence", "inputs": {"conditions": ["g"], "children": ["a", "b"]}},
            {"id": "g", "kind": "MockCondition", "fields": {"script": "TTTFTTTTTF"}},
            {"id": "a", "kind": "MockAction", "fields": {"script": "RS"}},
            {"id": "b", "kind": "MockAction", "fields": {"script": "S"}},
            {"id": "t", "kind": "Selector", "inputs": {"children": ["c", "d"]}},
            {"id": "c", "kind": "MockAction", "fields": {"script": "F"}},
            {"id": "d", "kind": "MockAction", "fields": {"script": "RRS"}}"#;
        let run = |renumber_at_step: Option<usize>| {
            let mut i = instance(tree);
            let mut events = Vec::new();
            for step in 0..60 {
                if renumber_at_step == Some(step) {
                    // A few entries short of the mark: it is reached within a step.
                    i.st.entries = super::RENUMBER_AT - 3;
                }
                let mut obs = |e: &crate::runtime::Event<'_>| events.push(format!("{e:?}"));
                i.step(0.1, &mut (), Some(&mut obs));
            }
            (events, i.stats())
        };
        let plain = run(None);
        for at in [5, 17, 30] {
            assert_eq!(run(Some(at)), plain, "renumbered from step {at}");
        }
    }

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
