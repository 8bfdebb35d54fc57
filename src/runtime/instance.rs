//! One agent's run of a program: flat per-node state and `step`, as SPEC §3 describes.
//!
//! All storage is sized when the instance is created; a step in steady state allocates
//! nothing. Resets (a missing context key, a stall) are carried out where they are found
//! and the call chain unwinds with [`Flow::Unwind`] without touching state again; reports
//! queued before a reset are dropped by their epoch.

use std::collections::VecDeque;
use std::sync::Arc;

use super::Status;
use super::behaviour::{CondIo, Context, CtxValue, KeyId, LeafIo};
use super::program::{Kind, LeafInfo, Lone, NONE, PathGuard, Program, Quick, QuickRec};
use super::slab::ActionSlab;
use super::trace::{Event, EventKind, Observer, Reason};

/// Tolerance for time comparisons (max_duration, Regulator).
const EPS: f64 = 1e-9;

/// What a node's painting needs: its last status, when it changed, and counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeState {
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
}

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

#[derive(Clone, Copy, Debug, PartialEq)]
enum Flow {
    /// The node runs on.
    Running,
    /// The node finished now, with this status.
    Done(Status),
    /// The tree was reset below; callers return at once.
    Unwind,
}

/// Where a failing guard's report goes: to the report queue of phase 4, or to the parents
/// at once (a guard failing on resume, SPEC §3.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Delivery {
    Queued,
    AtOnce,
}

#[derive(Clone, Copy, Debug)]
struct Report {
    node: u32,
    status: Status,
    epoch: u32,
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
    const NONE: Report = Report {
        node: NONE,
        status: Status::Idle,
        epoch: 0,
    };

    #[inline]
    fn any(&self) -> bool {
        self.len > 0 || self.spilled
    }
}

#[derive(Clone, Debug)]
enum Trigger {
    Known(u32, Option<CtxValue>),
    Unknown(String),
}

// A node's run state besides its status is its run record among the record words of the
// instance's block (see `Rec::ri`): an epoch word, bumped by [`EPOCH`] at each entry so
// that stale reports are told apart, and for a branch a cursor word (composite: slot of the
// running child; Parallel: children finished; Repeater: runs; Regulator: [`REG_FIRST`] and
// [`REG_OK`]). A leaf has only its epoch word, whose lowest bit is its [`ENTERED`] mark.
// What only a few nodes keep is apart, for those nodes alone: seconds (a leaf's time
// executed, a Regulator's time since it last allowed a step: `LeafInfo::timer_at`, a
// Regulator's `Rec::slot`) and a 64-bit word (a step or a count: Root, Parallel,
// Repeater, UntilFail, Regulator, see `Rec::slot`).

/// Leaf: the lowest bit of its epoch word, set while it is active and was entered in the
/// step `State::last_entry` (see [`Exec::entered_now`]).
const ENTERED: u32 = 1;

/// What an entry adds to an epoch word, leaving a leaf's [`ENTERED`] bit as it is.
const EPOCH: u32 = 2;

/// Regulator: the next ready step is allowed at once.
const REG_FIRST: u32 = 1;
/// Regulator: this step is allowed.
const REG_OK: u32 = 2;

/// [`State::flags`]: not started yet.
const NOT_STARTED: u16 = 1;
/// [`State::flags`]: triggers may wait in `Cold::triggers`.
const TRIGGERS: u16 = 2;
/// [`State::flags`]: a restart after a stall is due (from the next step, see
/// `Exec::step_full`).
const RESTART: u16 = 4;
/// [`State::flags`]: the display snapshot (`Cold::shown`) is kept.
const RECORD: u16 = 8;
/// The flags that make a step take `Exec::step_full`.
const DUE: u16 = NOT_STARTED | TRIGGERS | RESTART;

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
struct Cold {
    context: Context,
    /// Active leaves beyond [`INLINE`] (see [`Active`]).
    spill: Vec<u32>,
    perm: Vec<u32>,
    resume: Vec<u32>,
    /// Reports beyond the two kept in place (see [`Reports`]).
    reports: VecDeque<Report>,
    triggers: VecDeque<Trigger>,
    /// Inputs of the leaves with `in_context`, by `LeafInfo::input_at` (slot 0 unused).
    inputs: Vec<Option<CtxValue>>,
    /// Values produced by leaves with `out_context`, by `LeafInfo::output_at` (slot 0 unused).
    produced: Vec<Option<CtxValue>>,
    /// The display snapshot; empty while recording is off.
    shown: Vec<NodeState>,
}

/// The context of an instance that has no [`Cold`] block: no keys, so no values.
static NO_CONTEXT: Context = Context { slots: Vec::new() };

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
fn ctx(cold: &Option<Box<Cold>>) -> &Context {
    cold.as_deref().map_or(&NO_CONTEXT, |c| &c.context)
}

/// The [`Cold`] block, made for program `p` if there is none yet (never in a step of a
/// program that does not need it, see [`Cold::needed`]).
#[inline]
fn cold_of<'c, A>(cold: &'c mut Option<Box<Cold>>, p: &Program<A>) -> &'c mut Cold {
    cold.get_or_insert_with(|| Box::new(Cold::new(p)))
}

/// Laid out in this order (`repr(C)`, widest first, 128 bytes) so that `flags` lies just
/// before `active`'s count: [`State::lone_quiet`] reads both in one load.
#[derive(Clone)]
#[repr(C)]
struct State {
    stats: RunStats,
    step: u64,
    /// The last step in which a leaf was entered. The active leaves entered in it are
    /// marked [`ENTERED`]; the marks are cleared when a leaf is entered in a later step.
    last_entry: u64,
    /// The random generator's state (SplitMix64).
    rng: u64,
    /// Seconds elapsed: the sum of the dts of the steps so far (SPEC §3.3.1).
    clock: f64,
    cold: Option<Box<Cold>>,
    reports: Reports,
    interrupt: u32,
    stalled: bool,
    /// [`NOT_STARTED`], [`TRIGGERS`], [`RESTART`], [`RECORD`]: one word, so a step sees at
    /// one compare that none is set.
    flags: u16,
    active: Active,
}

// `flags` just before `active`'s count, for `State::lone_quiet`.
const _: () = assert!(
    std::mem::offset_of!(State, flags) + 2 == std::mem::offset_of!(State, active)
        && std::mem::offset_of!(Active, len) == 0
);

impl State {
    /// Whether this step may take [`Instance::step_lone_plain`]: started, no trigger and
    /// no restart waiting, no display snapshot kept, and exactly one leaf active.
    #[inline]
    fn lone_quiet(&self) -> bool {
        // No flag and a count of one, as one 32-bit word (the two lie side by side).
        (u32::from(self.flags) | u32::from(self.active.len) << 16) == 1 << 16
    }

    /// The I/O of a leaf without `in_context` or `out_context`, at this step.
    #[inline]
    fn plain_io(&self) -> LeafIo<'_> {
        LeafIo {
            seen: self.plain_cond_io(),
            produced: None,
        }
    }

    /// The I/O of a condition without `in_context`, at this step.
    #[inline]
    fn plain_cond_io(&self) -> CondIo<'_> {
        CondIo {
            input: None,
            step: self.step,
            context: ctx(&self.cold),
        }
    }

    /// The leaf whose epoch is record word `ri` of `rt` is entered now: marks it
    /// [`ENTERED`], first clearing the marks of the active leaves if they were entered in
    /// an earlier step (see [`Exec::mark_entered`]).
    #[inline]
    fn mark_entered<A>(&mut self, p: &Program<A>, rt: &mut [u32], ri: usize) {
        if self.last_entry != self.step {
            if self.active.len == 0 {
                self.last_entry = self.step;
            } else {
                self.clear_entered_marks(p, rt);
            }
        }
        rt[ri] |= ENTERED;
    }

    /// The first entry in this step: the active leaves' marks, from an earlier step, go.
    #[inline(never)]
    fn clear_entered_marks<A>(&mut self, p: &Program<A>, rt: &mut [u32]) {
        self.last_entry = self.step;
        for &leaf in self.active() {
            rt[p.recs[leaf as usize].ri as usize] &= !ENTERED;
        }
    }

    /// Whether the display snapshot is kept.
    #[inline]
    fn recording(&self) -> bool {
        self.flags & RECORD != 0
    }

    /// The active leaves, in tree order.
    #[inline]
    fn active(&self) -> &[u32] {
        let spill = self.cold.as_deref().map_or(&[][..], |c| &c.spill);
        self.active.as_slice(spill)
    }
}

/// The index of the last `Running` status in `s`. Sixteen statuses are compared at a time
/// (one vector compare where the processor has one): when a run completes nothing is left
/// running, and a byte-by-byte search of the whole tree was most of a restart's cost.
#[inline]
fn last_running(s: &[Status]) -> Option<usize> {
    const W: usize = 16;
    let mut end = s.len();
    while end >= W {
        if s[end - W..end]
            .iter()
            .fold(false, |any, &x| any | (x == Status::Running))
        {
            break;
        }
        end -= W;
    }
    s[..end].iter().rposition(|&x| x == Status::Running)
}

/// `n` empty value slots; none for `n = 1` (slot 0 only means "none").
fn slots(n: usize) -> Vec<Option<CtxValue>> {
    if n > 1 { vec![None; n] } else { Vec::new() }
}

/// One agent's run of a shared [`Program`].
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
            flags: NOT_STARTED,
            stalled: false,
            reports: Reports {
                head: 0,
                len: 0,
                spilled: false,
                ring: [Reports::NONE; 2],
            },
            stats: RunStats::default(),
            last_entry: 0,
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
    /// so far (SPEC §3.3.1's instance clock).
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
            self.st.flags |= RECORD;
        } else {
            self.st.flags &= !RECORD;
        }
        if on {
            // Guards' statuses were not kept while off: start them afresh too.
            for (status, rec) in self.actions.status_mut().iter_mut().zip(&self.program.recs) {
                if matches!(rec.kind, Kind::Condition { .. }) {
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
        self.st.flags |= TRIGGERS;
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

    /// Advances the agent by one frame of `dt` seconds (SPEC §3.2). The first call also
    /// starts the instance (its events carry step 0).
    #[inline]
    pub fn step(&mut self, dt: f64, agent: &mut A, observer: Option<&mut dyn Observer>) {
        // Every step adds its dt before phase 1 (SPEC §3.3.1), whichever path it takes.
        self.st.clock += dt;
        if observer.is_none() {
            loop {
                if self.st.lone_quiet() {
                    if self.step_lone_plain(dt, agent) {
                        return;
                    }
                    break;
                }
                if self.st.flags != NOT_STARTED {
                    break;
                }
                // The first step of a game's agent: the start on the quiet short path,
                // then the rest of the step as any other (the start cleared the flag).
                self.start_quietly(agent);
            }
        }
        self.exec(agent, observer).step(dt);
    }

    /// [`Exec::q_start`], out of the way of the common step.
    #[inline(never)]
    fn start_quietly(&mut self, agent: &mut A) {
        self.exec(agent, None).q_start();
    }

    fn exec<'x, 'o>(
        &'x mut self,
        agent: &'x mut A,
        obs: Option<&'x mut (dyn Observer + 'o)>,
    ) -> Exec<'x, 'o, A> {
        Exec {
            p: &self.program,
            st: &mut self.st,
            block: &mut self.actions,
            agent,
            obs,
        }
    }

    /// The most common step of a game's agent, on its own short path: nothing watches
    /// (no observer, no display snapshot), nothing is due (started, no trigger, no
    /// restart), and one *plain* leaf runs (no Regulator, context key or `max_duration`
    /// on its path, see `LeafInfo::plain`). Its guards are checked outermost first, then
    /// it executes: phases 2 and 3 of SPEC §3.2 for a step with one active leaf, which
    /// was entered in an earlier step (no leaf is entered before phase 2 when nothing is
    /// due). What follows a failing guard or a finished leaf goes the general way.
    /// Returns false, having done nothing, when the running leaf is not plain.
    #[inline]
    fn step_lone_plain(&mut self, dt: f64, agent: &mut A) -> bool {
        let p = &*self.program;
        let leaf = self.st.active.inline[0];
        let Some(lone) = p.lone.get(leaf as usize) else {
            return false;
        };
        let slot = lone.slot as usize;
        if lone.slot == NONE {
            return false;
        }
        self.st.stalled = false;
        self.st.step += 1;
        // The guards take a while: let the action's state arrive meanwhile, and what the
        // leaf's completion would touch (its parent's record, the statuses).
        self.actions.prefetch_at(lone.action_at);
        self.actions.prefetch_at(lone.parent_at);
        self.actions.prefetch_at(lone.status_at);
        // One record for the guards and the leaf (a leaf's I/O holds a condition's).
        let mut io = LeafIo {
            seen: CondIo {
                input: None,
                step: self.st.step,
                context: ctx(&self.st.cold),
            },
            produced: None,
        };
        if let Some(g) = PathGuard::first_failing(&lone.guards, agent, &io.seen) {
            self.lone_guard_failed(agent, leaf, g.branch);
            return true;
        }
        let status = match self.actions.execute(slot, agent, &mut io, dt) {
            super::Outcome::Running => return true,
            super::Outcome::Success => Status::Success,
            super::Outcome::Failure => Status::Failure,
        };
        let handed_over = !self.st.reports.any()
            && Self::lone_next_sibling(
                lone,
                &mut self.actions,
                (&mut self.st.last_entry, &mut self.st.active.inline[0]),
                agent,
                &mut io,
                leaf,
                status,
            );
        if !handed_over {
            self.lone_leaf_done(agent, leaf, slot, status);
        }
        true
    }

    /// [`Instance::step_lone_plain`]: a guard of branch `b`, above `leaf`, failed; the rest
    /// of the step.
    #[inline(never)]
    fn lone_guard_failed(&mut self, agent: &mut A, leaf: u32, b: u32) {
        let mut x = self.exec(agent, None);
        if x.st.reports.any() || x.q_guard_failed(leaf, b).is_none() {
            x.guard_failed(b);
        }
        x.finish_step();
    }

    /// [`Instance::step_lone_plain`]: the leaf, whose action is `slot`, finished, and it
    /// does not hand over to its next sibling (`Instance::lone_next_sibling`); the rest of
    /// the step.
    #[inline(never)]
    fn lone_leaf_done(&mut self, agent: &mut A, leaf: u32, slot: usize, status: Status) {
        let mut x = self.exec(agent, None);
        if x.st.reports.any() {
            x.lone_leaf_done(leaf, status);
        } else if !x.q_climb(leaf, slot, status) {
            x.q_leaf_done(leaf, slot, status);
        }
        x.finish_step();
    }

    /// The plain leaf that ran alone finished, with nothing queued, and its parent, a
    /// Sequence or Selector in slot order, moves on to a next child that is a `Quick`
    /// leaf: the leaf exits, the parent's cursor moves, the next leaf is entered (to
    /// execute from the next step).
    /// That is what phase 4 does with the leaf's report (delivered first and alone, see
    /// `Exec::lone_leaf_done`): `leaf_finish`, then the parent's `composite_next`, then
    /// `enter_leaf`; with no observer, no snapshot and no context key involved, nothing
    /// else of theirs applies. All of it but the status is fixed by the tree, in the leaf's
    /// `HandOver`. Returns false, having done nothing, in any other case.
    ///
    /// `lone` is the leaf's record, `io` the I/O it executed with (the same for its exit
    /// and the next leaf's entry: no context key is involved, and the step is the same);
    /// `entry` the instance's last entry step and its one running leaf, to update.
    #[inline]
    fn lone_next_sibling(
        lone: &Lone<A>,
        actions: &mut ActionSlab<A>,
        entry: (&mut u64, &mut u32),
        agent: &mut A,
        io: &mut LeafIo<'_>,
        leaf: u32,
        status: Status,
    ) -> bool {
        let Lone {
            slot,
            next: Some(h),
            ..
        } = lone
        else {
            return false;
        };
        let moves_on = match status {
            Status::Success => h.on_success,
            _ => h.on_failure,
        };
        if !moves_on {
            return false;
        }
        debug_assert_eq!(
            actions.rt()[h.cursor_at as usize] + 1,
            h.cursor,
            "a slot-order parent's cursor is its running child's slot"
        );
        // leaf_finish
        actions.exit(*slot as usize, agent, io, status);
        let (rt, statuses) = actions.rt_status_mut();
        statuses[leaf as usize] = status;
        // composite_next
        rt[h.cursor_at as usize] = h.cursor;
        // enter_leaf: the one active leaf was `leaf`, whose mark no longer counts.
        let epoch = &mut rt[h.ri as usize];
        *epoch = epoch.wrapping_add(EPOCH) | ENTERED;
        statuses[h.node as usize] = Status::Running;
        *entry.0 = io.step;
        actions.enter(h.slot as usize, agent, io);
        *entry.1 = h.node;
        true
    }
}

/// Steps many agents by `dt` seconds, one after another in the order given, with no
/// observer: the same as calling [`Instance::step`] on each. (It once asked for the state
/// of the agent four places ahead while stepping one; with the step's own prefetch hints,
/// that only made it 15% slower at workload W, see docs/RUNTIME.md.)
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

struct Exec<'x, 'o, A> {
    p: &'x Program<A>,
    st: &'x mut State,
    block: &'x mut ActionSlab<A>,
    agent: &'x mut A,
    obs: Option<&'x mut (dyn Observer + 'o)>,
}

impl<A> Exec<'_, '_, A> {
    fn emit(&mut self, node: u32, kind: EventKind<'_>) {
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

    /// Calls the action of leaf `slot` with its I/O: the input fetched at entry, where what it
    /// produces is kept, the context. A leaf without `in_context`/`out_context` has neither,
    /// so the call touches nothing but the action's own state.
    fn call_action<R>(
        &mut self,
        slot: usize,
        f: impl FnOnce(&mut ActionSlab<A>, &mut A, &mut LeafIo<'_>) -> R,
    ) -> R {
        let p = self.p;
        let info = &p.leaves[slot];
        let (input_at, output_at) = (info.input_at as usize, info.output_at as usize);
        let mut io = match self.st.cold.as_deref_mut() {
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
                    step: self.st.step,
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
                    step: self.st.step,
                    context: &NO_CONTEXT,
                },
                produced: None,
            },
        };
        f(self.block, self.agent, &mut io)
    }

    fn set_status(&mut self, n: u32, s: Status) {
        let i = n as usize;
        self.block.status_mut()[i] = s;
        if !self.st.recording() {
            return;
        }
        let Some(shown) = self.st.cold.as_deref_mut().and_then(|c| c.shown.get_mut(i)) else {
            return;
        };
        shown.status = s;
        shown.step = self.st.step;
        match s {
            Status::Running => {
                shown.entries = shown.entries.saturating_add(1);
                shown.since = self.st.step;
            }
            Status::Success => shown.successes = shown.successes.saturating_add(1),
            Status::Failure => shown.failures = shown.failures.saturating_add(1),
            Status::Aborted => shown.aborts = shown.aborts.saturating_add(1),
            Status::Idle => {}
        }
    }

    fn running(&self, n: u32) -> bool {
        self.block.status().get(n as usize) == Some(&Status::Running)
    }

    /// The instance's [`Cold`] block. A step only asks for it where the program uses it,
    /// and then `Cold::needed` made it with the instance: a step never allocates it.
    fn cold(&mut self) -> &mut Cold {
        cold_of(&mut self.st.cold, self.p)
    }

    fn next_random(&mut self) -> u64 {
        // SplitMix64: small, fast, the same on every platform.
        let rng = &mut self.st.rng;
        *rng = rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    // ---- the step -------------------------------------------------------------------

    fn step(&mut self, dt: f64) {
        if self.st.flags & DUE != 0 {
            self.step_full(dt);
            return;
        }
        // The common step: started, no trigger waiting, no restart due (a stall in this step
        // sets one for the next, so none falls due now): phases 2 to 4 only.
        self.st.stalled = false;
        self.st.step += 1;
        self.guards_and_execute(dt);
        self.finish_step();
    }

    /// Phase 4 of a step with nothing due after it: the reports, unless the tree stalled.
    #[inline]
    fn finish_step(&mut self) {
        if !self.st.stalled && self.st.reports.any() {
            self.reports();
        }
    }

    /// A step with everything SPEC §3.2 has: the start, triggers, a restart falling due.
    #[inline(never)]
    fn step_full(&mut self, dt: f64) {
        self.st.stalled = false;
        if self.st.flags & NOT_STARTED != 0 {
            self.st.flags &= !NOT_STARTED;
            self.st.step = 0;
            self.root_enter();
            self.st.stalled = false;
        }
        self.st.step += 1;
        if self.st.flags & TRIGGERS != 0 {
            self.interrupts();
        }
        if !self.st.stalled {
            self.guards_and_execute(dt);
        }
        if !self.st.stalled && self.st.reports.any() {
            self.reports();
        }
        // A stall sets RESTART and `stalled`, which holds to the end of its step: a restart
        // found here is due (from the step after the stall's, as SPEC §3.2 has it).
        let due = self.st.flags & RESTART != 0;
        if !self.st.stalled && due && self.st.interrupt == NONE && !self.running(0) {
            self.st.flags &= !RESTART;
            self.emit(0, EventKind::Restart(Reason::Stall));
            self.root_enter();
        }
    }

    /// Phase 1: triggers queued since the last step, in order.
    #[inline(never)]
    fn interrupts(&mut self) {
        while let Some(t) = self
            .st
            .cold
            .as_deref_mut()
            .and_then(|c| c.triggers.pop_front())
        {
            if self.st.stalled {
                self.cold().triggers.push_front(t);
                return;
            }
            match t {
                Trigger::Unknown(message) => self.emit(NONE, EventKind::Warning(&message)),
                Trigger::Known(at, payload) => {
                    self.start_interrupt(at, payload);
                }
            }
        }
        self.st.flags &= !TRIGGERS;
    }

    /// The first active leaf with an index of at least `from`.
    fn next_active(&self, from: u32) -> Option<u32> {
        let active = self.st.active();
        let at = active.partition_point(|&x| x < from);
        active.get(at).copied()
    }

    /// Leaf `n` is active now.
    #[inline]
    fn activate(&mut self, n: u32) {
        let (st, p) = (&mut *self.st, self.p);
        st.active.insert(n, || &mut cold_of(&mut st.cold, p).spill);
    }

    /// Leaf `n` is not active any more.
    #[inline]
    fn deactivate(&mut self, n: u32) {
        let (st, p) = (&mut *self.st, self.p);
        st.active.remove(n, || &mut cold_of(&mut st.cold, p).spill);
    }

    /// Whether active leaf `leaf` was entered in this step (it waits for the next one).
    fn entered_now(&self, leaf: u32) -> bool {
        self.st.last_entry == self.st.step && *self.epoch_word(leaf) & ENTERED != 0
    }

    /// Leaf `n` is entered now: marks it [`ENTERED`], first clearing the marks of the
    /// active leaves if they were entered in an earlier step. (Under SPEC §3.2's phases
    /// only an Interrupt enters leaves before phase 3, once it has aborted every other
    /// leaf; clearing keeps the mark exact whatever the order of the phases.)
    fn mark_entered(&mut self, n: u32) {
        self.mark_entered_at(self.p.recs[n as usize].ri as usize);
    }

    /// [`Exec::mark_entered`] of the leaf whose epoch is record word `ri`.
    #[inline]
    fn mark_entered_at(&mut self, ri: usize) {
        self.st.mark_entered(self.p, self.block.rt_mut(), ri);
    }

    /// Node `n`'s epoch word (not a condition's: it has no record).
    #[inline]
    fn epoch_word(&self, n: u32) -> &u32 {
        &self.block.rt()[self.p.recs[n as usize].ri as usize]
    }

    #[inline]
    fn epoch_mut(&mut self, n: u32) -> &mut u32 {
        let ri = self.p.recs[n as usize].ri as usize;
        &mut self.block.rt_mut()[ri]
    }

    /// Node `n`'s epoch, without a leaf's [`ENTERED`] bit.
    #[inline]
    fn epoch(&self, n: u32) -> u32 {
        *self.epoch_word(n) & !ENTERED
    }

    /// Node `n` is entered: a new epoch.
    #[inline]
    fn bump(&mut self, n: u32) {
        let e = self.epoch_mut(n);
        *e = e.wrapping_add(EPOCH);
    }

    /// Branch `n`'s cursor word.
    #[inline]
    fn cursor(&self, n: u32) -> u32 {
        self.block.rt()[self.p.recs[n as usize].ri as usize + 1]
    }

    #[inline]
    fn cursor_mut(&mut self, n: u32) -> &mut u32 {
        let ri = self.p.recs[n as usize].ri as usize;
        &mut self.block.rt_mut()[ri + 1]
    }

    /// Node `n`'s word (see `Rec::slot`).
    fn word(&self, n: u32) -> u64 {
        self.block.words()[self.p.recs[n as usize].slot as usize]
    }

    fn word_mut(&mut self, n: u32) -> &mut u64 {
        &mut self.block.words_mut()[self.p.recs[n as usize].slot as usize]
    }

    /// Phases 2 and 3. With one active leaf (the common step) they are one check-then-run:
    /// a failing guard aborts the leaf, and a reset for a missing key leaves only leaves
    /// entered in this step, which wait for the next; either way nothing is left to execute.
    fn guards_and_execute(&mut self, dt: f64) {
        if let &[leaf] = self.st.active() {
            if !self.entered_now(leaf) {
                self.run_leaf(leaf, dt);
            }
            return;
        }
        self.guards();
        if !self.st.stalled {
            self.execute(dt);
        }
    }

    /// Phases 2 and 3 for a leaf that runs alone: its guards, its Regulators, its execute.
    fn run_leaf(&mut self, leaf: u32, dt: f64) {
        let p = self.p;
        let slot = p.recs[leaf as usize].slot as usize;
        let info = &p.leaves[slot];
        if info.guards.0 != info.guards.1 {
            // The guards take a while: let the action's state arrive meanwhile, and what
            // the leaf's completion would touch (its parent's record, the statuses).
            self.block.prefetch(slot);
            let parent = p.recs[leaf as usize].parent;
            let parent_ri = p.recs.get(parent as usize).map_or(NONE, |r| r.ri);
            self.block
                .prefetch_node(parent_ri as usize, parent as usize);
            let flow = if self.quiet() {
                self.check_guards_quietly(info)
            } else {
                self.check_guards(info, 0, Delivery::Queued)
            };
            if flow != Flow::Running {
                return;
            }
        }
        if info.regulators.0 != info.regulators.1 && !self.regulators_allow(leaf, dt) {
            return;
        }
        self.execute_slot(leaf, slot, dt);
    }

    /// Leaf `n`, the only one executed in this phase 3, finished. With nothing queued
    /// before it, phase 4 would deliver its report first and alone: it is delivered now.
    #[inline(never)]
    fn lone_leaf_done(&mut self, n: u32, status: Status) {
        if self.st.reports.any() {
            self.leaf_done(n, status);
            return;
        }
        self.leaf_finish(n, status);
        self.deliver(n, status);
    }

    /// Phase 2: guards of the active leaves entered in an earlier step, in tree order.
    fn guards(&mut self) {
        let (mut from, mut prev) = (0, 0);
        while let Some(leaf) = self.next_active(from) {
            from = leaf + 1;
            if self.entered_now(leaf) {
                continue;
            }
            let flow = self.check_path(leaf, prev, Delivery::Queued);
            prev = leaf;
            if flow == Flow::Unwind && self.st.stalled {
                break;
            }
        }
    }

    /// Phase 3: execute the remaining leaves, in tree order.
    fn execute(&mut self, dt: f64) {
        let mut from = 0;
        while let Some(leaf) = self.next_active(from) {
            from = leaf + 1;
            if self.entered_now(leaf) || !self.regulators_allow(leaf, dt) {
                continue;
            }
            self.execute_leaf(leaf, dt);
        }
    }

    /// Phase 4: deliver the queued reports in order.
    #[inline(never)]
    fn reports(&mut self) {
        while let Some(r) = self.next_report() {
            let i = r.node as usize;
            let parent = self.p.recs[i].parent;
            let fresh = self.block.status()[i] == r.status && self.epoch(i as u32) == r.epoch;
            if !fresh || parent == NONE || !self.running(parent) {
                continue;
            }
            if self.deliver(r.node, r.status) == Flow::Unwind && self.st.stalled {
                return;
            }
        }
    }

    fn queue_report(&mut self, n: u32, status: Status) {
        let r = Report {
            node: n,
            status,
            epoch: self.epoch(n),
        };
        let q = &mut self.st.reports;
        if !q.spilled && q.len < 2 {
            q.ring[usize::from((q.head + q.len) % 2)] = r;
            q.len += 1;
        } else {
            debug_assert!(
                self.st.cold.as_deref().map_or(0, |c| c.reports.len()) < self.p.report_cap,
                "more reports in a step than Program::bounds allows"
            );
            q.spilled = true;
            self.cold().reports.push_back(r);
        }
    }

    fn next_report(&mut self) -> Option<Report> {
        let q = &mut self.st.reports;
        if q.len > 0 {
            let r = q.ring[usize::from(q.head)];
            q.head = (q.head + 1) % 2;
            q.len -= 1;
            return Some(r);
        }
        if !q.spilled {
            return None;
        }
        let cold = self.st.cold.as_deref_mut()?;
        let r = cold.reports.pop_front();
        q.spilled = !cold.reports.is_empty();
        r
    }

    // ---- entering -------------------------------------------------------------------

    fn enter(&mut self, n: u32) -> Flow {
        match self.p.recs[n as usize].kind {
            Kind::Leaf { input, .. } => self.enter_leaf(n, input),
            Kind::Condition { input, .. } => {
                if self.input_missing(n, input) {
                    return Flow::Unwind;
                }
                // No run record: a condition finishes here, and no report of it waits.
                self.set_status(n, Status::Running);
                self.emit(n, EventKind::Enter);
                let r = self.eval(n);
                self.emit(n, EventKind::Check(r));
                self.finish(n, if r { Status::Success } else { Status::Failure })
            }
            _ => self.enter_branch(n),
        }
    }

    fn enter_leaf(&mut self, n: u32, input: Option<KeyId>) -> Flow {
        let i = n as usize;
        let slot = self.p.recs[i].slot as usize;
        let value = match input {
            Some(k) => match ctx(&self.st.cold).get(k) {
                Some(v) => Some(v.clone()),
                None => return self.context_missing(n, k),
            },
            None => None,
        };
        let info = &self.p.leaves[slot];
        let (input_at, output_at) = (info.input_at as usize, info.output_at as usize);
        if input_at != 0 {
            self.cold().inputs[input_at] = value;
        }
        if output_at != 0 {
            self.cold().produced[output_at] = None;
        }
        if info.timer_at != NONE {
            self.block.timers_mut()[info.timer_at as usize] = 0.0;
        }
        self.mark_entered(n);
        self.bump(i as u32);
        self.set_status(n, Status::Running);
        self.emit(n, EventKind::Enter);
        self.call_action(slot, |actions, agent, io| actions.enter(slot, agent, io));
        self.activate(n);
        Flow::Running
    }

    fn enter_branch(&mut self, n: u32) -> Flow {
        let i = n as usize;
        self.bump(i as u32);
        self.set_status(n, Status::Running);
        self.emit(n, EventKind::Enter);
        let p = self.p;
        for &g in p.guards(n) {
            match self.guard(g) {
                None => return Flow::Unwind,
                Some(false) => return self.finish(n, Status::Failure),
                Some(true) => {}
            }
        }
        let kind = self.p.recs[i].kind;
        match kind {
            Kind::Sequence { random, .. } | Kind::Selector { random } => {
                *self.cursor_mut(i as u32) = 0;
                if random {
                    self.shuffle(n);
                }
                self.composite_next(n, None)
            }
            Kind::Parallel { .. } => {
                *self.cursor_mut(i as u32) = 0;
                *self.word_mut(n) = 0;
                for ki in 0..self.p.kids(n).len() {
                    let k = self.p.kids(n)[ki];
                    match self.enter(k) {
                        Flow::Running => {}
                        Flow::Unwind => return Flow::Unwind,
                        Flow::Done(s) => {
                            if let Some(f) = self.parallel_record(n, s) {
                                return f;
                            }
                        }
                    }
                }
                Flow::Running
            }
            Kind::Repeater { .. } | Kind::UntilFail => {
                *self.cursor_mut(i as u32) = 0;
                *self.word_mut(n) = self.st.step;
                match self.enter(self.p.kids(n)[0]) {
                    Flow::Done(s) => match self.loop_result(n, s) {
                        Some(f) => f,
                        None => self.loop_again(n),
                    },
                    f => f,
                }
            }
            Kind::Regulator { .. } => {
                let t = self.p.recs[i].slot as usize;
                self.block.timers_mut()[t] = 0.0;
                *self.cursor_mut(i as u32) = REG_FIRST;
                self.enter_single(n)
            }
            Kind::Root => self.root_enter(),
            _ => self.enter_single(n),
        }
    }

    /// Enters the only child of a pass-through node (Inverter, Force*, Regulator, SubTree, Interrupt).
    fn enter_single(&mut self, n: u32) -> Flow {
        let Some(&k) = self.p.kids(n).first() else {
            return self.finish(n, Status::Failure);
        };
        match self.enter(k) {
            Flow::Done(s) => self.react(n, k, s),
            f => f,
        }
    }

    fn shuffle(&mut self, n: u32) {
        let off = self.p.recs[n as usize].slot as usize;
        let kids_len = self.p.kids(n).len();
        for j in 0..kids_len {
            self.cold().perm[off + j] = self.p.kids(n)[j];
        }
        for j in (1..kids_len).rev() {
            let r = (self.next_random() % (j as u64 + 1)) as usize;
            self.cold().perm.swap(off + j, off + r);
        }
    }

    fn root_enter(&mut self) -> Flow {
        loop {
            self.bump(0);
            self.set_status(0, Status::Running);
            *self.word_mut(0) = self.st.step;
            self.emit(0, EventKind::Enter);
            let Some(&child) = self.p.kids(0).first() else {
                return Flow::Running;
            };
            match self.enter(child) {
                Flow::Done(s) => {
                    if !self.root_complete(s) {
                        return Flow::Unwind;
                    }
                }
                f => return f,
            }
        }
    }

    /// Root's child finished: the run is complete. Returns whether Root is to be entered again
    /// now (false: the tree stalled).
    fn root_complete(&mut self, s: Status) -> bool {
        self.finish(0, s);
        self.emit(0, EventKind::Complete(s));
        match s {
            Status::Success => self.st.stats.succeeded += 1,
            _ => self.st.stats.failed += 1,
        }
        let began_now = self.word(0) == self.st.step;
        self.abort_all();
        self.reset_all();
        self.clear_context();
        if began_now {
            self.stall(0);
            false
        } else {
            self.emit(0, EventKind::Restart(Reason::Complete));
            true
        }
    }

    // ---- conditions -------------------------------------------------------------------

    /// If `input` names a missing key, resets the tree for it and returns true.
    fn input_missing(&mut self, n: u32, input: Option<KeyId>) -> bool {
        match input {
            Some(k) if ctx(&self.st.cold).get(k).is_none() => {
                self.context_missing(n, k);
                true
            }
            _ => false,
        }
    }

    /// The condition's result, `invert` applied (its input is known to be present).
    fn eval(&mut self, n: u32) -> bool {
        let rec = &self.p.recs[n as usize];
        let Kind::Condition { invert, input } = rec.kind else {
            return false;
        };
        let context = ctx(&self.st.cold);
        let io = CondIo {
            input: input.and_then(|k| context.get(k)),
            step: self.st.step,
            context,
        };
        self.p.conditions[rec.slot as usize]
            .get()
            .check(self.agent, &io)
            != invert
    }

    /// Checks a guard on entering its branch: `None` when the tree was reset for a missing key.
    fn guard(&mut self, g: u32) -> Option<bool> {
        let p = self.p;
        let rec = &p.recs[g as usize];
        let Kind::Condition { invert, input } = rec.kind else {
            return Some(false);
        };
        let context = ctx(&self.st.cold);
        let input = match input {
            None => None,
            Some(k) => match context.get(k) {
                Some(v) => Some(v),
                None => {
                    self.context_missing(g, k);
                    return None;
                }
            },
        };
        let io = CondIo {
            input,
            step: self.st.step,
            context,
        };
        let r = p.conditions[rec.slot as usize].get().check(self.agent, &io) != invert;
        if !self.quiet() {
            self.checked(g, r);
        }
        Some(r)
    }

    /// Checks a guard on a running leaf's path: `None` when the tree was reset for a missing key.
    fn path_guard(&mut self, g: &PathGuard<A>) -> Option<bool> {
        let context = ctx(&self.st.cold);
        let input = match g.input {
            None => None,
            Some(k) => match context.get(k) {
                Some(v) => Some(v),
                None => {
                    self.context_missing(g.node, k);
                    return None;
                }
            },
        };
        let io = CondIo {
            input,
            step: self.st.step,
            context,
        };
        let r = g.cond.get().check(self.agent, &io) != g.invert;
        self.checked(g.node, r);
        Some(r)
    }

    /// After guard `g` gave `r`: its display state and its `check` event.
    fn checked(&mut self, g: u32, r: bool) {
        // A guard's status is for display only (it is never entered), so it is kept only
        // while the display snapshot is.
        let result = if r { Status::Success } else { Status::Failure };
        let i = g as usize;
        if self.st.recording() && self.block.status()[i] != result {
            self.block.status_mut()[i] = result;
            if let Some(shown) = self.st.cold.as_deref_mut().and_then(|c| c.shown.get_mut(i)) {
                shown.status = result;
                shown.step = self.st.step;
            }
        }
        self.emit(g, EventKind::Check(r));
    }

    /// Checks the guards of the branches above `leaf`, outermost first. A failing guard
    /// fails its branch (aborting what runs below) and queues its report.
    ///
    /// `prev` is the leaf checked before this one in the same pass (0: none). Leaves are
    /// checked in tree order, so a branch above `leaf` that comes before `prev` is above
    /// `prev` too and was checked with it: each branch is checked once per pass.
    fn check_path(&mut self, leaf: u32, prev: u32, delivery: Delivery) -> Flow {
        let p = self.p;
        self.check_guards(
            &p.leaves[p.recs[leaf as usize].slot as usize],
            prev,
            delivery,
        )
    }

    /// Whether nothing watches this step: no display snapshot, no observer.
    #[inline]
    fn quiet(&self) -> bool {
        !self.st.recording() && self.obs.is_none()
    }

    /// [`Exec::check_guards`] for a quiet step (nothing to display or trace per guard), in
    /// one tight loop; what a failing guard or a missing key leads to is the same.
    fn check_guards_quietly(&mut self, info: &LeafInfo) -> Flow {
        let p = self.p;
        let step = self.st.step;
        let context = ctx(&self.st.cold);
        let agent = &mut *self.agent;
        let stop = 'check: {
            for g in &p.path[info.guards.0 as usize..info.guards.1 as usize] {
                let input = match g.input {
                    None => None,
                    Some(k) => match context.get(k) {
                        Some(v) => Some(v),
                        None => break 'check Some((g, Some(k))),
                    },
                };
                let io = CondIo {
                    input,
                    step,
                    context,
                };
                if g.cond.get().check(agent, &io) == g.invert {
                    break 'check Some((g, None));
                }
            }
            None
        };
        match stop {
            None => Flow::Running,
            Some((g, Some(k))) => {
                self.context_missing(g.node, k);
                Flow::Unwind
            }
            Some((g, None)) => self.guard_failed(g.branch),
        }
    }

    /// A guard of running branch `b` failed: the branch fails, aborting what runs below,
    /// and its report is queued.
    fn guard_failed(&mut self, b: u32) -> Flow {
        self.guard_failed_as(b, Delivery::Queued)
    }

    /// [`Exec::guard_failed`], its report queued or delivered at once.
    fn guard_failed_as(&mut self, b: u32, delivery: Delivery) -> Flow {
        self.abort_below(b);
        self.finish(b, Status::Failure);
        match delivery {
            Delivery::Queued => self.queue_report(b, Status::Failure),
            Delivery::AtOnce => {
                if self.deliver(b, Status::Failure) == Flow::Unwind {
                    return Flow::Unwind;
                }
            }
        }
        Flow::Done(Status::Failure)
    }

    /// The guards on a leaf's path (see [`Exec::check_path`]).
    fn check_guards(&mut self, info: &LeafInfo, prev: u32, delivery: Delivery) -> Flow {
        let p = self.p;
        for g in &p.path[info.guards.0 as usize..info.guards.1 as usize] {
            if g.branch < prev {
                continue;
            }
            // Callers pass a leaf whose parent runs, and a running node's parent runs, so
            // every branch on the path runs.
            debug_assert!(
                self.running(g.branch),
                "a branch above a running leaf is idle"
            );
            match self.path_guard(g) {
                None => return Flow::Unwind,
                Some(true) => {}
                Some(false) => return self.guard_failed_as(g.branch, delivery),
            }
        }
        Flow::Running
    }

    // ---- executing --------------------------------------------------------------------

    fn regulators_allow(&mut self, leaf: u32, dt: f64) -> bool {
        let info = self.p.leaves[self.p.recs[leaf as usize].slot as usize];
        if info.regulators.0 == info.regulators.1 {
            return true;
        }
        let mut ok = true;
        for ci in info.regulators.0..info.regulators.1 {
            let i = self.p.chain[ci as usize] as usize;
            let Kind::Regulator { period } = self.p.recs[i].kind else {
                continue;
            };
            let t = self.p.recs[i].slot as usize;
            let step = self.st.step;
            if self.word(i as u32) != step {
                let first = self.cursor(i as u32) & REG_FIRST != 0;
                let timer = &mut self.block.timers_mut()[t];
                let allowed = if first {
                    *timer = 0.0;
                    true
                } else {
                    *timer += dt;
                    if *timer >= period - EPS {
                        *timer = 0.0;
                        true
                    } else {
                        false
                    }
                };
                *self.word_mut(i as u32) = step;
                *self.cursor_mut(i as u32) = if allowed { REG_OK } else { 0 };
            }
            ok &= self.cursor(i as u32) & REG_OK != 0;
        }
        ok
    }

    fn execute_leaf(&mut self, n: u32, dt: f64) {
        self.execute_slot(n, self.p.recs[n as usize].slot as usize, dt);
    }

    /// Executes leaf `n`, whose action is `slot`; queues its report if it finished.
    fn execute_slot(&mut self, n: u32, slot: usize, dt: f64) {
        let info = &self.p.leaves[slot];
        let (max, timer_at) = (info.max_duration, info.timer_at as usize);
        self.emit(n, EventKind::Execute);
        let outcome = self.call_action(slot, |actions, agent, io| {
            actions.execute(slot, agent, io, dt)
        });
        let status = match outcome {
            super::Outcome::Success => Status::Success,
            super::Outcome::Failure => Status::Failure,
            super::Outcome::Running => {
                if max.is_infinite() {
                    return;
                }
                let timer = &mut self.block.timers_mut()[timer_at];
                *timer += dt;
                if *timer < max - EPS {
                    return;
                }
                Status::Failure
            }
        };
        self.leaf_done(n, status);
    }

    /// Leaf `n` finished in phase 3: it stops, and its report waits for phase 4.
    #[inline(never)]
    fn leaf_done(&mut self, n: u32, status: Status) {
        self.leaf_finish(n, status);
        self.queue_report(n, status);
    }

    /// A leaf stops with success or failure: on_exit, out-context, exit event.
    fn leaf_finish(&mut self, n: u32, status: Status) {
        let i = n as usize;
        let Kind::Leaf {
            output, overwrite, ..
        } = self.p.recs[i].kind
        else {
            return;
        };
        let slot = self.p.recs[i].slot as usize;
        self.deactivate(n);
        self.call_action(slot, |actions, agent, io| {
            actions.exit(slot, agent, io, status)
        });
        let output_at = self.p.leaves[slot].output_at as usize;
        if let Some(k) = output
            && output_at != 0
            && let Some(cold) = self.st.cold.as_deref_mut()
            && let Some(v) = cold.produced[output_at].take()
            && (overwrite || cold.context.get(k).is_none())
        {
            cold.context.set(k, Some(v));
        }
        self.set_status(n, status);
        self.emit(n, EventKind::Exit(status));
    }

    // ---- reporting --------------------------------------------------------------------

    fn finish(&mut self, n: u32, s: Status) -> Flow {
        self.set_status(n, s);
        self.emit(n, EventKind::Exit(s));
        Flow::Done(s)
    }

    /// Delivers child `c`'s result to its parents, climbing while they finish.
    fn deliver(&mut self, mut c: u32, mut s: Status) -> Flow {
        loop {
            let p = self.p.recs[c as usize].parent;
            if p == NONE || !self.running(p) {
                return Flow::Running;
            }
            match self.react(p, c, s) {
                Flow::Done(s2) => {
                    c = p;
                    s = s2;
                }
                f => return f,
            }
        }
    }

    /// Running parent `p` learns that child `c` finished with `s`.
    fn react(&mut self, p: u32, _c: u32, s: Status) -> Flow {
        match self.p.recs[p as usize].kind {
            Kind::Root => {
                if self.root_complete(s) {
                    self.root_enter()
                } else {
                    Flow::Unwind
                }
            }
            Kind::Interrupt { .. } => self.interrupt_done(p, s),
            Kind::Sequence { .. } | Kind::Selector { .. } => self.composite_next(p, Some(s)),
            Kind::Parallel { .. } => self.parallel_record(p, s).unwrap_or(Flow::Running),
            Kind::Inverter => self.finish(
                p,
                match s {
                    Status::Success => Status::Failure,
                    Status::Failure => Status::Success,
                    other => other,
                },
            ),
            Kind::ForceSuccess => self.finish(p, Status::Success),
            Kind::ForceFailure => self.finish(p, Status::Failure),
            Kind::Repeater { .. } | Kind::UntilFail => match self.loop_result(p, s) {
                Some(f) => f,
                None => self.loop_again(p),
            },
            Kind::Regulator { .. } | Kind::SubTree => self.finish(p, s),
            Kind::Leaf { .. } | Kind::Condition { .. } => Flow::Running,
        }
    }

    /// Sequence and Selector (random or not): react to the last child's result and enter the
    /// next child, as long as children finish at once.
    fn composite_next(&mut self, n: u32, mut last: Option<Status>) -> Flow {
        let p = self.p;
        let i = n as usize;
        let rec = &p.recs[i];
        let (is_sequence, halt, random) = match rec.kind {
            Kind::Sequence { halt, random } => (true, halt, random),
            Kind::Selector { random } => (false, false, random),
            _ => return Flow::Running,
        };
        let kids = &p.links[rec.kids.0 as usize..rec.kids.1 as usize];
        // Entering a child never moves this node's cursor (a reset unwinds at once), so it
        // is read once and written back as it moves.
        let mut at = self.cursor(i as u32);
        loop {
            if let Some(s) = last {
                if is_sequence && s == Status::Failure && halt {
                    return self.finish(n, Status::Failure);
                }
                if !is_sequence && s == Status::Success {
                    return self.finish(n, Status::Success);
                }
                at += 1;
                *self.cursor_mut(i as u32) = at;
            }
            let Some(&kid) = kids.get(at as usize) else {
                return self.finish(
                    n,
                    if is_sequence {
                        Status::Success
                    } else {
                        Status::Failure
                    },
                );
            };
            let k = if random {
                self.cold().perm[rec.slot as usize + at as usize]
            } else {
                kid
            };
            match self.enter(k) {
                Flow::Done(s) => last = Some(s),
                f => return f,
            }
        }
    }

    /// Parallel: count a finished child; `Some` when that decides the Parallel.
    fn parallel_record(&mut self, n: u32, s: Status) -> Option<Flow> {
        let i = n as usize;
        let Kind::Parallel {
            all_succeed,
            all_fail,
        } = self.p.recs[i].kind
        else {
            return None;
        };
        let total = self.p.kids(n).len() as u32;
        *self.cursor_mut(i as u32) += 1;
        if s == Status::Success {
            *self.word_mut(n) += 1;
        }
        let (done, succeeded) = (self.cursor(i as u32), self.word(n) as u32);
        let failed = done - succeeded;
        let success_holds = s == Status::Success
            && if all_succeed {
                succeeded == total
            } else {
                succeeded >= 1
            };
        let failure_holds = s == Status::Failure
            && if all_fail {
                failed == total
            } else {
                failed >= 1
            };
        let result = if success_holds {
            Status::Success
        } else if failure_holds || done >= total {
            // A failure policy holds, or every child finished and no policy does.
            Status::Failure
        } else {
            return None;
        };
        self.abort_below(n);
        Some(self.finish(n, result))
    }

    /// Repeater / UntilFail: `Some` when the child's result ends the loop.
    fn loop_result(&mut self, n: u32, s: Status) -> Option<Flow> {
        let i = n as usize;
        match self.p.recs[i].kind {
            Kind::Repeater {
                times,
                ignore_failures,
            } => {
                if s == Status::Failure && !ignore_failures {
                    return Some(self.finish(n, Status::Failure));
                }
                let runs = self.cursor_mut(i as u32);
                *runs = runs.saturating_add(1);
                (times > 0 && u64::from(self.cursor(i as u32)) >= times)
                    .then(|| self.finish(n, Status::Success))
            }
            Kind::UntilFail => (s == Status::Failure).then(|| self.finish(n, Status::Success)),
            _ => None,
        }
    }

    /// Repeater / UntilFail: run the child again, for as long as it finishes at once.
    fn loop_again(&mut self, n: u32) -> Flow {
        let i = n as usize;
        let forever = matches!(
            self.p.recs[i].kind,
            Kind::Repeater { times: 0, .. } | Kind::UntilFail
        );
        loop {
            if forever && self.word(n) == self.st.step {
                return self.stall(n);
            }
            *self.word_mut(n) = self.st.step;
            let child = self.p.kids(n)[0];
            self.reset_range(child, self.p.recs[child as usize].end);
            match self.enter(child) {
                Flow::Done(s) => {
                    if let Some(f) = self.loop_result(n, s) {
                        return f;
                    }
                }
                f => return f,
            }
        }
    }

    // ---- quiet transitions ------------------------------------------------------------
    //
    // What follows when the lone plain leaf of a quiet step finishes or a guard above it
    // fails (see `Instance::step_lone_plain`), on a short path through the nodes `Quick`
    // names: each part makes the changes the general function it stands for (named in its
    // documentation or comment) makes, in the same order, less what only an observer or
    // the display snapshot would see (a quiet step has neither). Any other node is handed
    // to the general functions, which take the transition from there.

    /// [`Exec::q_leaf_done`] when the leaf's report climbs to Root, every branch on the
    /// way finishing on it (`Program::climbs`), and no Interrupt runs: `leaf_finish`, each
    /// branch's `composite_next` as `q_run` has it, then Root's `root_complete` and
    /// `root_enter`. False, having done nothing, in any other case.
    fn q_climb(&mut self, n: u32, slot: usize, status: Status) -> bool {
        debug_assert!(self.quiet() && !self.st.reports.any());
        let p = self.p;
        let i = usize::from(status != Status::Success);
        let Some(steps) = p.climbs.get(n as usize).and_then(|c| c[i].as_deref()) else {
            return false;
        };
        if self.st.interrupt != NONE {
            return false;
        }
        self.deactivate(n);
        let mut io = self.st.plain_io();
        self.block.exit(slot, self.agent, &mut io, status);
        let (rt, statuses) = self.block.rt_status_mut();
        statuses[n as usize] = status;
        let mut s = status;
        for c in steps {
            debug_assert!(
                statuses[c.node as usize] == Status::Running,
                "a branch above a running leaf is idle"
            );
            statuses[c.node as usize] = c.status;
            if c.cursor_at != NONE {
                debug_assert_eq!(
                    rt[c.cursor_at as usize] + 1,
                    c.cursor,
                    "a slot-order parent's cursor is its running child's slot"
                );
                rt[c.cursor_at as usize] = c.cursor;
            }
            s = c.status;
        }
        debug_assert!(self.running(0), "Root is idle above a running leaf");
        if self.q_restart(s) {
            self.q_run(0, None);
        }
        true
    }

    /// `lone_leaf_done` of the plain leaf `n` (action `slot`) with nothing queued:
    /// `leaf_finish`, then `deliver`.
    fn q_leaf_done(&mut self, n: u32, slot: usize, status: Status) -> Flow {
        debug_assert!(self.quiet() && !self.st.reports.any());
        self.deactivate(n);
        let mut io = self.st.plain_io();
        self.block.exit(slot, self.agent, &mut io, status);
        self.block.status_mut()[n as usize] = status;
        self.q_run(n, Some(status))
    }

    /// `guard_failed` of branch `b`, above the lone active leaf `leaf`, then the delivery
    /// of the branch's report (the only one queued): `None`, having done nothing, unless
    /// `b` and every branch between it and the leaf is a `Quick` Sequence or Selector.
    /// Those run one child at a time, so what runs below `b` is that line of branches and
    /// the leaf; `abort_below` aborts them deepest first.
    fn q_guard_failed(&mut self, leaf: u32, b: u32) -> Option<Flow> {
        debug_assert!(self.quiet() && !self.st.reports.any());
        let p = self.p;
        let Quick::Leaf { slot } = p.quick[leaf as usize].how else {
            return None;
        };
        let mut at = p.quick[leaf as usize].parent;
        loop {
            let q = p.quick.get(at as usize)?;
            if !matches!(q.how, Quick::Sequence { .. } | Quick::Selector { .. }) {
                return None;
            }
            if at == b {
                break;
            }
            at = q.parent;
        }
        // abort_node of the leaf
        self.block.status_mut()[leaf as usize] = Status::Aborted;
        self.deactivate(leaf);
        let mut io = self.st.plain_io();
        self.block
            .exit(slot as usize, self.agent, &mut io, Status::Aborted);
        // abort_node of the branches between
        let mut at = p.quick[leaf as usize].parent;
        while at != b {
            self.block.status_mut()[at as usize] = Status::Aborted;
            at = p.quick[at as usize].parent;
        }
        debug_assert!(
            last_running(&self.block.status()[b as usize + 1..p.recs[b as usize].end as usize])
                .is_none(),
            "something still runs below a failed branch"
        );
        // finish, then the report's delivery
        self.block.status_mut()[b as usize] = Status::Failure;
        Some(self.q_run(b, Some(Status::Failure)))
    }

    /// The general functions' entering and reacting, for the nodes `Quick` names, as one
    /// loop rather than calls within calls: `report` is `None` to enter node `n` (`enter`),
    /// or `Some(s)` when `n` finished with `s` and its parent is to react (`deliver`). A
    /// Sequence's or Selector's `composite_next`, which enters its children one after
    /// another while they finish at once, is that parent reacting to each in turn (the
    /// parent's `Running` status, which `deliver` checks, holds throughout: only a reset
    /// changes it, and a reset unwinds).
    fn q_run(&mut self, mut n: u32, mut report: Option<Status>) -> Flow {
        let p = self.p;
        loop {
            let Some(s) = report else {
                // ---- enter node n
                let q = p.quick[n as usize];
                match q.how {
                    Quick::Leaf { slot } => {
                        // enter_leaf
                        let (rt, status) = self.block.rt_status_mut();
                        self.st.mark_entered(p, rt, q.ri as usize);
                        let e = &mut rt[q.ri as usize];
                        *e = e.wrapping_add(EPOCH);
                        status[n as usize] = Status::Running;
                        let mut io = self.st.plain_io();
                        self.block.enter(slot as usize, self.agent, &mut io);
                        self.activate(n);
                        return Flow::Running;
                    }
                    Quick::Sequence { guards, .. } | Quick::Selector { guards } => {
                        // enter_branch, then composite_next(n, None); the guards are
                        // checked first, the node's words then changed at one go (no
                        // guard sees them).
                        let io = self.st.plain_cond_io();
                        let guards = &p.entry[guards.0 as usize..guards.1 as usize];
                        let held = PathGuard::first_failing(guards, self.agent, &io).is_none();
                        let (rt, status) = self.block.rt_status_mut();
                        let e = &mut rt[q.ri as usize];
                        *e = e.wrapping_add(EPOCH);
                        if !held {
                            status[n as usize] = Status::Failure;
                            report = Some(Status::Failure);
                            continue;
                        }
                        status[n as usize] = Status::Running;
                        rt[q.ri as usize + 1] = 0;
                        match p.links[q.kids.0 as usize..q.kids.1 as usize].first() {
                            Some(&k) => n = k,
                            None => {
                                let s = Self::q_exhausted(q);
                                status[n as usize] = s;
                                report = Some(s);
                            }
                        }
                    }
                    Quick::Check { slot, invert } => {
                        // enter of a condition, which `eval`s it and finishes
                        let io = self.st.plain_cond_io();
                        let r = p.conditions[slot as usize].get().check(self.agent, &io) != invert;
                        let s = if r { Status::Success } else { Status::Failure };
                        self.block.status_mut()[n as usize] = s;
                        report = Some(s);
                    }
                    Quick::Root => {
                        // root_enter, up to entering Root's child
                        let (rt, status) = self.block.rt_status_mut();
                        let e = &mut rt[q.ri as usize];
                        *e = e.wrapping_add(EPOCH);
                        status[n as usize] = Status::Running;
                        *self.word_mut(n) = self.st.step;
                        match p.links[q.kids.0 as usize..q.kids.1 as usize].first() {
                            Some(&k) => n = k,
                            None => return Flow::Running,
                        }
                    }
                    Quick::Other => match self.enter(n) {
                        Flow::Done(s) => report = Some(s),
                        f => return f,
                    },
                }
                continue;
            };
            // ---- n finished with s: its parent reacts
            let c = n;
            n = p.quick[c as usize].parent;
            if n == NONE || !self.running(n) {
                return Flow::Running;
            }
            let q = p.quick[n as usize];
            let done = match q.how {
                Quick::Sequence { halt, .. } => s == Status::Failure && halt,
                Quick::Selector { .. } => s == Status::Success,
                Quick::Root if self.st.interrupt == NONE => {
                    // root_complete, then root_enter (the Root arm above)
                    if !self.q_restart(s) {
                        return Flow::Unwind;
                    }
                    report = None;
                    continue;
                }
                _ => return self.deliver(c, s),
            };
            // composite_next(n, Some(s))
            let (rt, status) = self.block.rt_status_mut();
            if done {
                status[n as usize] = s;
                continue;
            }
            let cursor = &mut rt[q.ri as usize + 1];
            *cursor += 1;
            let at = *cursor;
            match p.links[q.kids.0 as usize..q.kids.1 as usize].get(at as usize) {
                Some(&k) => {
                    n = k;
                    report = None;
                }
                None => {
                    let s = Self::q_exhausted(q);
                    status[n as usize] = s;
                    report = Some(s);
                }
            }
        }
    }

    /// The start of `step_full` (step 0: Root is entered) for a quiet step with nothing
    /// else due, `root_enter` through `q_run`; the step goes on as one that had started.
    fn q_start(&mut self) {
        debug_assert!(self.quiet() && self.st.flags == NOT_STARTED);
        self.st.flags &= !NOT_STARTED;
        self.st.step = 0;
        self.q_run(0, None);
        self.st.stalled = false;
    }

    /// What a Sequence (success) or a Selector (failure), `q`, finishes with once its
    /// children are exhausted.
    fn q_exhausted(q: QuickRec) -> Status {
        match q.how {
            Quick::Sequence { .. } => Status::Success,
            _ => Status::Failure,
        }
    }

    /// `root_complete` with `s`, with no Interrupt running: false when the tree stalled
    /// instead of being entered again. The run's last leaf is done and its branches, which
    /// run one child at a time, are too: nothing runs, so `abort_all` has nothing to abort,
    /// and with no Interrupt running, no leaves to resume to forget.
    fn q_restart(&mut self, s: Status) -> bool {
        self.block.status_mut()[0] = s;
        match s {
            Status::Success => self.st.stats.succeeded += 1,
            _ => self.st.stats.failed += 1,
        }
        let began_now = self.word(0) == self.st.step;
        debug_assert!(
            last_running(self.block.status()).is_none()
                && self.st.cold.as_deref().is_none_or(|c| c.resume.is_empty()),
            "something still runs when a run completes"
        );
        self.reset_all();
        self.clear_context();
        if began_now {
            self.stall(0);
            return false;
        }
        true
    }

    // ---- interrupts -------------------------------------------------------------------

    fn start_interrupt(&mut self, at: u32, payload: Option<CtxValue>) -> Flow {
        self.st.stats.interrupts += 1;
        let id = self
            .p
            .interrupts
            .iter()
            .find(|(_, i)| *i == at)
            .map(|(id, _)| id.as_str())
            .unwrap_or("");
        if let Some(o) = self.obs.as_deref_mut() {
            o.event(&Event {
                step: self.st.step,
                node: Some(at),
                node_id: &self.p.names[at as usize],
                kind: EventKind::Interrupt(id),
            });
        }
        if self.st.interrupt != NONE {
            let cur = self.st.interrupt;
            self.abort_range(cur, self.p.recs[cur as usize].end);
        } else {
            let mut resume = std::mem::take(&mut self.cold().resume);
            resume.clear();
            resume.extend_from_slice(self.st.active());
            for &leaf in resume.iter().rev() {
                self.abort_node(leaf);
            }
            self.cold().resume = resume;
        }
        if let Kind::Interrupt {
            output: Some(k),
            overwrite,
            ..
        } = self.p.recs[at as usize].kind
            && let Some(v) = payload
            && (overwrite || ctx(&self.st.cold).get(k).is_none())
        {
            self.cold().context.set(k, Some(v));
        }
        self.st.interrupt = at;
        self.bump(at);
        self.set_status(at, Status::Running);
        self.emit(at, EventKind::Enter);
        self.enter_single(at)
    }

    fn interrupt_done(&mut self, at: u32, s: Status) -> Flow {
        self.finish(at, s);
        self.st.interrupt = NONE;
        let Kind::Interrupt { force_reset, .. } = self.p.recs[at as usize].kind else {
            return Flow::Running;
        };
        if force_reset {
            self.abort_all();
            self.reset_all();
            self.st.flags &= !RESTART;
            self.emit(0, EventKind::Restart(Reason::ForceReset));
            return self.root_enter();
        }
        let resume = std::mem::take(&mut self.cold().resume);
        let mut flow = Flow::Running;
        let mut prev = 0;
        // A guard failing on resume is delivered at once (SPEC §3.4), so the main tree has
        // moved on before the next trigger of the step; should that end the run, Root is
        // entered again and what was left to resume belongs to the run that ended.
        let run = self.epoch(0);
        for &leaf in &resume {
            let parent = self.p.recs[leaf as usize].parent;
            if self.epoch(0) != run || !self.running(parent) {
                continue;
            }
            let checked = self.check_path(leaf, prev, Delivery::AtOnce);
            prev = leaf;
            match checked {
                Flow::Unwind => {
                    flow = Flow::Unwind;
                    break;
                }
                Flow::Done(_) => continue,
                Flow::Running => {}
            }
            if !self.running(parent) {
                continue;
            }
            if self.enter(leaf) == Flow::Unwind {
                flow = Flow::Unwind;
                break;
            }
        }
        let cold = self.cold();
        cold.resume = resume;
        cold.resume.clear();
        flow
    }

    // ---- aborting and resetting ---------------------------------------------------------

    fn abort_node(&mut self, n: u32) {
        let i = n as usize;
        if self.block.status()[i] != Status::Running {
            return;
        }
        self.set_status(n, Status::Aborted);
        if let Kind::Leaf { .. } = self.p.recs[i].kind {
            self.deactivate(n);
            let slot = self.p.recs[i].slot as usize;
            self.call_action(slot, |actions, agent, io| {
                actions.exit(slot, agent, io, Status::Aborted)
            });
            let output_at = self.p.leaves[slot].output_at as usize;
            if output_at != 0 {
                self.cold().produced[output_at] = None;
            }
        }
        self.emit(n, EventKind::Abort);
    }

    /// Aborts the running nodes in `from..end`, deepest first.
    fn abort_range(&mut self, from: u32, end: u32) {
        let mut hi = end as usize;
        while let Some(k) = last_running(&self.block.status()[from as usize..hi]) {
            hi = from as usize + k;
            self.abort_node(hi as u32);
        }
    }

    fn abort_below(&mut self, n: u32) {
        self.abort_range(n + 1, self.p.recs[n as usize].end);
    }

    fn abort_all(&mut self) {
        self.abort_range(0, self.p.len() as u32);
        self.st.interrupt = NONE;
        if let Some(cold) = self.st.cold.as_deref_mut() {
            cold.resume.clear();
        }
    }

    fn reset_range(&mut self, from: u32, end: u32) {
        self.block.status_mut()[from as usize..end as usize].fill(Status::Idle);
    }

    fn reset_all(&mut self) {
        self.reset_range(0, self.p.len() as u32);
        self.st.active.clear();
    }

    #[inline]
    fn clear_context(&mut self) {
        // A tree without context keys has nothing to clear (and its cold block stays cold).
        if !self.p.keys.is_empty() {
            self.clear_keys();
        }
    }

    /// [`Exec::clear_context`] of a tree with context keys, out of the way of one without.
    #[inline(never)]
    fn clear_keys(&mut self) {
        self.cold().context.clear();
    }

    fn context_missing(&mut self, n: u32, key: KeyId) -> Flow {
        self.st.stats.context_missing += 1;
        if let Some(o) = self.obs.as_deref_mut() {
            let name = self
                .p
                .keys
                .get(usize::from(key))
                .map(String::as_str)
                .unwrap_or("");
            o.event(&Event {
                step: self.st.step,
                node: Some(n),
                node_id: &self.p.names[n as usize],
                kind: EventKind::ContextMissing(name),
            });
        }
        self.abort_all();
        self.reset_all();
        self.clear_context();
        if self.word(0) == self.st.step {
            return self.stall(0);
        }
        self.emit(0, EventKind::Restart(Reason::ContextMissing));
        self.root_enter();
        Flow::Unwind
    }

    fn stall(&mut self, n: u32) -> Flow {
        self.st.stats.stalls += 1;
        self.emit(n, EventKind::Stall);
        self.abort_all();
        self.reset_all();
        if self.st.reports.spilled {
            self.cold().reports.clear();
        }
        self.st.reports.len = 0;
        self.st.reports.spilled = false;
        self.st.stalled = true;
        self.st.flags |= RESTART;
        Flow::Unwind
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{Instance, Status, last_running};
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
            // Every length across the 16-wide chunks, with no, one and two running nodes.
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
                }
            }
        }
    }
}
