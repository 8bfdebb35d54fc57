//! The lifecycle of SEMANTICS.md §3, written once: a step's phases, entering, executing, exiting,
//! aborting, reporting and guard checks. What is particular to a node kind is in its
//! module under `kinds/`; this file asks it through [`Kind::enter`] and [`Kind::react`].
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
use super::behaviour::{CondIo, CtxValue, KeyId, LeafIo};
use super::instance::{
    Cold, DUE, NO_CONTEXT, NOT_STARTED, RENUMBER, RESTART, Report, State, TRIGGERS, Trigger,
    cold_of, ctx, last_byte, last_running, running_window,
};
use super::kinds::{Act, EPS, Kind, leaf, regulator};
use super::program::{
    First, HAS_IO, HAS_REGULATORS, HAS_WATCH, LeafInfo, NONE, PathGuard, Program, Route, Test,
};
use super::slab::ActionSlab;
use super::trace::{Event, EventKind, Observer, Reason};

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

/// One step of one instance, as the lifecycle sees it.
pub(crate) struct Exec<'x, 'o, A, H> {
    pub p: &'x Program<A>,
    pub st: &'x mut State,
    pub block: &'x mut ActionSlab<A>,
    pub agent: &'x mut A,
    pub obs: Option<&'x mut (dyn Observer + 'o)>,
    pub hooks: PhantomData<H>,
    /// The reason the leaf that finished last gave for its failure, for its `exit` event
    /// (`leaf::outcome` sets it, `leaf::stop` takes it).
    pub reason: Option<&'static str>,
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
        // while the display snapshot is.
        let result = if r { Status::Success } else { Status::Failure };
        let i = g as usize;
        if self.recording() && self.block.status()[i] != result {
            self.block.status_mut()[i] = result;
            if let Some(shown) = self.st.cold.as_deref_mut().and_then(|c| c.shown.get_mut(i)) {
                shown.status = result;
                shown.step = self.st.step;
            }
        }
        self.emit(g, EventKind::Check(r));
    }

    // ---- instance state -------------------------------------------------------------

    #[inline]
    pub(crate) fn running(&self, n: u32) -> bool {
        self.block.status().get(n as usize) == Some(&Status::Running)
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

    // ---- the step -------------------------------------------------------------------

    /// One step of SEMANTICS.md §3.2.
    ///
    /// The common step is inlined into its caller, and the calls it makes out of line go
    /// through [`Exec::again`]: this `Exec` itself stays in registers.
    #[inline(always)]
    pub(crate) fn step(&mut self, dt: f64) {
        // A quiet step takes the full one for any flag: one that is due, or the display
        // snapshot kept (which makes it a watched one, see `step_full`).
        let word = self.st.flags_and_count(if H::ON { DUE } else { u16::MAX });
        if word == 1 << 16 {
            // The common step: started, no trigger waiting, no restart due (a stall in this
            // step sets one for the next, so none falls due now), one active leaf: phases 2
            // to 4 only. A stall in the step before made one due, so `stalled` is clear and
            // phase 4 left nothing queued. Phase 1 had nothing to do, so the leaf was not
            // entered in this step and waits for nothing; whatever it reports is delivered
            // at once, so phase 4 has nothing to do either.
            self.advance_common(dt);
            let leaf = self.st.active.first();
            self.run_leaf(leaf, dt, Delivery::AtOnce);
        } else if word & 0xFFFF != 0 {
            self.again().step_full(dt);
        } else {
            self.again().step_many(dt);
        }
    }

    /// [`Exec::advance`] for a common step, which has nothing from the step before.
    #[inline(always)]
    fn advance_common(&mut self, dt: f64) {
        debug_assert!(
            !self.st.stalled,
            "a stall's step was followed by a common one"
        );
        debug_assert!(
            !self.st.reports.any(),
            "a report waits from an earlier step"
        );
        self.advance(dt);
    }

    /// The step's number and clock move on (SEMANTICS.md §3.3.1: the start is at clock 0, and
    /// every step adds its dt before phase 1).
    #[inline(always)]
    fn advance(&mut self, dt: f64) {
        self.st.step += 1;
        self.st.clock += dt;
    }

    /// The common step with other than one active leaf: phases 2 to 4.
    #[inline(never)]
    fn step_many(&mut self, dt: f64) {
        self.advance_common(dt);
        self.st.step_base = self.st.entries;
        self.guards_and_execute(dt);
        self.finish_step();
    }

    /// This step, borrowed again: what an inlined part of the step calls an out-of-line
    /// one on, so that the `Exec` it runs on is not needed in memory.
    #[inline(always)]
    pub(crate) fn again(&mut self) -> Exec<'_, 'o, A, H> {
        Exec {
            p: self.p,
            st: &mut *self.st,
            block: &mut *self.block,
            agent: &mut *self.agent,
            obs: self.obs.as_deref_mut(),
            hooks: PhantomData,
            reason: self.reason,
        }
    }

    /// Phase 4 of a step with nothing due after it: the reports, unless the tree stalled.
    #[inline]
    pub(crate) fn finish_step(&mut self) {
        if !self.st.stalled && self.st.reports.any() {
            self.reports();
        }
    }

    /// A step with everything SEMANTICS.md §3.2 has: the start, triggers, a restart falling due.
    #[inline(never)]
    fn step_full(&mut self, dt: f64) {
        if !H::ON && self.st.recording() {
            // The display snapshot is kept: the step is a watched one.
            let mut watched = Exec::<'_, 'o, A, Watched> {
                p: self.p,
                st: &mut *self.st,
                block: &mut *self.block,
                agent: &mut *self.agent,
                obs: None,
                hooks: PhantomData,
                reason: None,
            };
            watched.step(dt);
            return;
        }
        self.st.stalled = false;
        if self.st.flags & RENUMBER != 0 {
            self.renumber();
        }
        if self.st.flags & NOT_STARTED != 0 {
            self.st.flags &= !NOT_STARTED;
            self.st.step = 0;
            self.enter(0);
            self.st.stalled = false;
        }
        self.st.step_base = self.st.entries;
        self.advance(dt);
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
        // found here is due (from the step after the stall's, as SEMANTICS.md §3.2 has it).
        let due = self.st.flags & RESTART != 0;
        if !self.st.stalled && due && self.st.interrupt == NONE && !self.running(0) {
            self.st.flags &= !RESTART;
            self.emit(0, EventKind::Restart(Reason::Stall));
            self.enter(0);
        }
    }

    /// The entry serials start again: every epoch becomes 0, below any serial to come.
    /// Done between steps, when no report is queued, whose epoch would be stale.
    #[cold]
    fn renumber(&mut self) {
        self.st.flags &= !RENUMBER;
        self.st.entries = 0;
        let rt = self.block.rt_mut();
        for rec in &self.p.recs {
            if rec.ri != NONE {
                rt[rec.ri as usize] = 0;
            }
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

    /// Phases 2 and 3. With one active leaf (the common step) they are one check-then-run:
    /// a failing guard aborts the leaf, and a reset for a missing key leaves only leaves
    /// entered in this step, which wait for the next; either way nothing is left to execute.
    #[inline(never)]
    fn guards_and_execute(&mut self, dt: f64) {
        if let Some(leaf) = self.st.active.lone() {
            if !self.entered_now(leaf) {
                // With nothing queued, phase 4 would deliver what it reports first and
                // alone: it is delivered now.
                let delivery = if self.st.reports.any() {
                    Delivery::Queued
                } else {
                    Delivery::AtOnce
                };
                self.run_leaf(leaf, dt, delivery);
            }
            return;
        }
        self.guards();
        if !self.st.stalled {
            self.execute(dt);
        }
    }

    /// Phases 2 and 3 for a leaf that runs alone: its guards, its Regulators, its execute.
    /// A report (a failed branch's, or the leaf's) is queued or delivered at once, as
    /// `delivery` says.
    ///
    /// A leaf with none of the extras `LeafInfo::has` tells of runs this code with their
    /// tests compiled out (`EXTRAS` false), in the step; another runs it out of line.
    #[inline(always)]
    fn run_leaf(&mut self, leaf: u32, dt: f64, delivery: Delivery) {
        let p = self.p;
        let info = p.leaf(leaf);
        if info.has == 0 {
            self.run_leaf_as::<false>(leaf, info, dt, delivery);
        } else {
            self.again().run_leaf_with_extras(leaf, info, dt, delivery);
        }
    }

    /// [`Exec::run_leaf`] of a leaf with extras.
    #[inline(never)]
    fn run_leaf_with_extras(&mut self, leaf: u32, info: &LeafInfo<A>, dt: f64, delivery: Delivery) {
        self.run_leaf_as::<true>(leaf, info, dt, delivery);
    }

    /// [`Exec::run_leaf`], with the tests of a leaf's extras compiled out unless `EXTRAS`.
    #[inline(always)]
    fn run_leaf_as<const EXTRAS: bool>(
        &mut self,
        leaf: u32,
        info: &LeafInfo<A>,
        dt: f64,
        delivery: Delivery,
    ) {
        if let Some(status) = self.check_and_execute::<EXTRAS>(leaf, info, dt, Some(delivery)) {
            self.lone_leaf_done::<EXTRAS>(leaf, info, status, delivery);
        }
    }

    /// Leaf `leaf`, which `info` describes, in phase 2 when `guards` is given (the guards
    /// of the branches above it; a failed branch's report goes as it says), then in phase
    /// 3: its Regulators, its `execute` event, `on_execute` and its `max_duration`. `Some`
    /// when it finished.
    ///
    /// One I/O record serves the guards and the leaf: a leaf without an input sees what a
    /// guard sees. It is made again only where the lifecycle needs the whole step between
    /// (a watched step's events, a failed guard, Regulators, observers on the path).
    ///
    /// `EXTRAS` false: the leaf has none of the extras `LeafInfo::has` tells of.
    #[inline(always)]
    fn check_and_execute<const EXTRAS: bool>(
        &mut self,
        leaf: u32,
        info: &LeafInfo<A>,
        dt: f64,
        guards: Option<Delivery>,
    ) -> Option<Status> {
        let p = self.p;
        let (clock, step) = (self.st.clock, self.st.step);
        let mut io = leaf_io::<A, EXTRAS>(&mut self.st.cold, step, info);
        if EXTRAS
            && let Some(delivery) = guards
            && info.has(HAS_WATCH)
        {
            if self.again().check_watched(info, 0, delivery) != Flow::Running {
                return None;
            }
            io = leaf_io::<A, EXTRAS>(&mut self.st.cold, step, info);
        } else if let Some(delivery) = guards
            && !info.guards.is_empty()
        {
            // The guards take a while: let the action's state arrive meanwhile.
            self.block.prefetch_at(info.calls.offset());
            debug_assert!(
                info.guards
                    .iter()
                    .all(|g| self.block.status()[g.branch as usize] == Status::Running),
                "a branch above a running leaf is idle"
            );
            // A guard sees what a condition without `in_context` sees: the leaf's input (a
            // leaf without extras has none) is set aside while they are checked.
            let input = if EXTRAS { io.seen.input.take() } else { None };
            let (checked, stop) =
                Self::test_with(p, clock, self.block, self.agent, &info.guards, &io.seen);
            if EXTRAS {
                io.seen.input = input;
            }
            if H::ON || stop.is_some() {
                self.show_checks(&info.guards, checked, &stop);
                if let Some(stop) = stop {
                    self.again().stopped(stop, delivery);
                    return None;
                }
                io = leaf_io::<A, EXTRAS>(&mut self.st.cold, step, info);
            }
        }
        if EXTRAS && info.has(HAS_REGULATORS) {
            if !self.again().regulators_allow(info, dt) {
                return None;
            }
            io = leaf_io::<A, EXTRAS>(&mut self.st.cold, step, info);
        }
        if H::ON {
            self.emit(leaf, EventKind::Execute);
            io = leaf_io::<A, EXTRAS>(&mut self.st.cold, step, info);
        }
        let outcome = self.block.execute(&info.calls, self.agent, &mut io, dt);
        leaf::outcome::<A, H, EXTRAS>(self, info, outcome, dt)
    }

    /// Phase 2: guards of the active leaves entered in an earlier step, in tree order.
    fn guards(&mut self) {
        let (mut from, mut prev) = (0, 0);
        while let Some(leaf) = self.next_active(from) {
            from = leaf + 1;
            if self.entered_now(leaf) {
                continue;
            }
            let info = self.p.leaf(leaf);
            let flow = if info.has(HAS_WATCH) {
                self.check_watched(info, prev, Delivery::Queued)
            } else {
                self.check_guards(info, prev, Delivery::Queued)
            };
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
            if self.entered_now(leaf) {
                continue;
            }
            let info = self.p.leaf(leaf);
            if let Some(status) = self.check_and_execute::<true>(leaf, info, dt, None) {
                self.leaf_report::<true>(leaf, info, status, Delivery::Queued);
            }
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

    // ---- entering, finishing, reporting -----------------------------------------------

    /// Enters node `n` and whatever it enters in turn, as long as nodes finish at once.
    pub(crate) fn enter(&mut self, n: u32) -> Flow {
        self.run(n, Act::Enter(n))
    }

    /// The entry of node `n`, and of the nodes its entry enters in turn as long as their
    /// kinds' rules fix that (`Rec::first`, from `Def::first`), as one loop down. A
    /// branch's entry is its count, `enter` and its guards (SEMANTICS.md §3.3: one that fails makes
    /// the branch fail at once); then its first move, or its kind's `enter`. Returns the
    /// last node entered and what it asks for.
    #[inline(always)]
    fn begin(&mut self, n: u32) -> (u32, Act) {
        self.begin_as(n, true)
    }

    /// [`Exec::begin`], with node `n`'s guards checked only when `guarded` (a branch
    /// taking over has had them checked already).
    #[inline(always)]
    fn begin_as(&mut self, mut n: u32, mut guarded: bool) -> (u32, Act) {
        let p = self.p;
        loop {
            let rec = &p.recs[n as usize];
            if rec.first == First::NotBranch {
                return (n, rec.kind.enter(self, n));
            }
            self.st.mark_entered(self.block.rt_mut(), rec.ri as usize);
            self.set_status(n, Status::Running);
            self.emit(n, EventKind::Enter);
            if guarded
                && rec.entry.0 != rec.entry.1
                && let Some(act) = self.entry_guards(rec.entry)
            {
                return (n, act);
            }
            guarded = true;
            match rec.first {
                First::Child { child, slot } => {
                    self.block.rt_mut()[rec.ri as usize + 1] = slot;
                    n = child;
                }
                First::Finish(s) => return (n, Act::Done(s)),
                First::Asks | First::NotBranch => return (n, rec.kind.enter(self, n)),
            }
        }
    }

    /// A branch's guards on entry, `p.entry[entry.0..entry.1]`: `None` when they hold.
    #[inline(always)]
    fn entry_guards(&mut self, entry: (u32, u32)) -> Option<Act> {
        let p = self.p;
        match self.first_failing(&p.entry[entry.0 as usize..entry.1 as usize]) {
            None => None,
            Some(Stop::False(_)) => Some(Act::Done(Status::Failure)),
            Some(Stop::Missing(g, k)) => {
                self.context_missing(g.node, k);
                Some(Act::Unwind)
            }
        }
    }

    /// Carries out what node `top` asked for (`act`), as one loop down the tree and back:
    /// a child it enters is entered here, and a child that finishes at once is heard by
    /// its parent here, until `top` runs on, finishes or the tree was reset. `act` is
    /// [`Act::Enter`]`(top)` to enter `top` itself.
    #[inline(never)]
    fn run(&mut self, top: u32, mut act: Act) -> Flow {
        let mut n = top;
        loop {
            act = match act {
                Act::Running => return Flow::Running,
                Act::Unwind => return Flow::Unwind,
                Act::Done(s) => {
                    self.finish(n, s);
                    if n == top {
                        return Flow::Done(s);
                    }
                    // Entered from its parent in this loop: the parent runs, and hears it.
                    n = self.p.recs[n as usize].parent;
                    self.p.recs[n as usize].kind.react(self, n, s)
                }
                Act::Again => {
                    let act;
                    (n, act) = self.begin(n);
                    act
                }
                Act::Enter(k) => {
                    let act;
                    (n, act) = self.begin(k);
                    act
                }
                Act::TakeOver(k) => {
                    let act;
                    (n, act) = self.begin_as(k, false);
                    act
                }
                Act::EnterAll => self.enter_all(n),
            };
        }
    }

    /// [`Act::EnterAll`] of node `n`: each child in slot order, its report heard as it
    /// comes, until one decides.
    #[inline(never)]
    fn enter_all(&mut self, n: u32) -> Act {
        for ki in 0..self.p.kids(n).len() {
            let k = self.p.kids(n)[ki];
            match self.enter(k) {
                Flow::Running => {}
                Flow::Unwind => return Act::Unwind,
                Flow::Done(s) => {
                    let next = self.p.recs[n as usize].kind.react(self, n, s);
                    if next != Act::Running {
                        return next;
                    }
                }
            }
        }
        Act::Running
    }

    /// Node `n` finishes with `s`: its status and its `exit` event.
    #[inline]
    pub(crate) fn finish(&mut self, n: u32, s: Status) -> Flow {
        self.finish_because(n, s, None)
    }

    /// [`Exec::finish`] of a leaf, with the reason it gave for a failure, if any.
    #[inline]
    pub(crate) fn finish_because(
        &mut self,
        n: u32,
        s: Status,
        reason: Option<&'static str>,
    ) -> Flow {
        self.set_status(n, s);
        if reason.is_some()
            && self.recording()
            && let Some(shown) = self
                .st
                .cold
                .as_deref_mut()
                .and_then(|c| c.shown.get_mut(n as usize))
        {
            shown.reason = reason;
        }
        self.emit(n, EventKind::Exit(s, reason));
        Flow::Done(s)
    }

    /// Delivers child `c`'s result to its parents, climbing while they finish.
    pub(crate) fn deliver(&mut self, c: u32, s: Status) -> Flow {
        let p = self.p;
        let parent = p.recs[c as usize].parent;
        if let Kind::Leaf(_) = p.recs[c as usize].kind
            && self.running(parent)
        {
            return self.deliver_route(c, p.leaf(c), s);
        }
        self.climb(c, s)
    }

    /// [`Exec::deliver`] of a report of `s` from leaf `c`, which `info` describes, whose
    /// parent runs (see [`Exec::follow`]).
    #[inline]
    fn deliver_route(&mut self, c: u32, info: &LeafInfo<A>, s: Status) -> Flow {
        self.follow(c, info.route(s), s)
    }

    /// Node `c` finished with `s`, and its parent runs: its report goes as far as the tree
    /// alone decides it along `route`, its route (what the parents' `react` would do,
    /// worked out when the tree was compiled); then the way up.
    #[inline]
    fn follow(&mut self, mut c: u32, route: &Route, mut s: Status) -> Flow {
        for &(b, done) in self.p.finished(route) {
            debug_assert!(self.running(b), "a branch above a running node is idle");
            self.finish(b, done);
            (c, s) = (b, done);
        }
        if let Some(m) = route.enter {
            self.block.rt_mut()[m.cursor_at as usize] = m.slot;
            match self.run(m.parent, Act::Enter(m.child)) {
                Flow::Done(done) => (c, s) = (m.parent, done),
                f => return f,
            }
        }
        self.climb(c, s)
    }

    /// The way up from node `c`, which finished with `s`: each running parent reacts, as
    /// long as they finish.
    #[inline]
    fn climb(&mut self, mut c: u32, mut s: Status) -> Flow {
        loop {
            let p = self.p.recs[c as usize].parent;
            if p == NONE || !self.running(p) {
                return Flow::Running;
            }
            let act = self.p.recs[p as usize].kind.react(self, p, s);
            match self.run(p, act) {
                Flow::Done(s2) => {
                    c = p;
                    s = s2;
                }
                f => return f,
            }
        }
    }

    /// Leaf `n`, which `info` describes, the only one executed in this phase 3, finished;
    /// its report is queued or delivered at once, as `delivery` says. A report its route
    /// hands over to the parent's next child, a leaf, is handed over here, in the step.
    /// `EXTRAS` false: it has none (see [`Exec::check_and_execute`]).
    #[inline(always)]
    pub(crate) fn lone_leaf_done<const EXTRAS: bool>(
        &mut self,
        n: u32,
        info: &LeafInfo<A>,
        status: Status,
        delivery: Delivery,
    ) {
        if delivery == Delivery::AtOnce
            && let Some(m) = info.route(status).enter
            && m.hands_over
        {
            self.block.rt_mut()[m.cursor_at as usize] = m.slot;
            leaf::hand_over::<A, H, EXTRAS>(self, n, info, status, m.child);
            return;
        }
        self.again()
            .leaf_report::<EXTRAS>(n, info, status, delivery);
    }

    /// Leaf `n`, which `info` describes, finished in phase 3 and its report is not handed
    /// over: it exits, and its report is queued for phase 4 or delivered at once.
    #[inline(never)]
    fn leaf_report<const EXTRAS: bool>(
        &mut self,
        n: u32,
        info: &LeafInfo<A>,
        status: Status,
        delivery: Delivery,
    ) {
        leaf::exit::<A, H, EXTRAS>(self, n, info, status);
        match delivery {
            Delivery::Queued => self.queue_report(n, status),
            Delivery::AtOnce => {
                self.deliver_route(n, info, status);
            }
        }
    }

    /// Root's child finished: the run is complete. Returns whether Root is to be entered
    /// again now (false: the tree stalled).
    pub(crate) fn root_complete(&mut self, s: Status) -> bool {
        self.finish(0, s);
        self.emit(0, EventKind::Complete(s));
        match s {
            Status::Success => self.st.stats.succeeded += 1,
            _ => self.st.stats.failed += 1,
        }
        let began_now = self.word(0) == self.st.step;
        if self.st.active.len() == 0 && self.st.interrupt == NONE {
            // The run's last leaf and every branch above it finished: nothing runs.
            debug_assert!(
                last_running(self.block.status()).is_none(),
                "something runs when a run completes with no leaf active"
            );
        } else {
            self.abort_all();
        }
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

    // ---- guards -----------------------------------------------------------------------

    /// Checks `guards` in order, stopping at the first that does not hold or whose key is
    /// missing. This is every guard check there is: a branch's on entry, those on a
    /// running leaf's path in phase 2 and on resume. A watched step then shows each
    /// condition checked and emits its `check`, in order.
    #[inline(always)]
    pub(crate) fn first_failing<'g>(&mut self, guards: &'g [PathGuard<A>]) -> Option<Stop<'g, A>> {
        let plain = CondIo {
            input: None,
            step: self.st.step,
            context: ctx(&self.st.cold),
        };
        let (checked, stop) = Self::test_with(
            self.p,
            self.st.clock,
            self.block,
            self.agent,
            guards,
            &plain,
        );
        self.show_checks(guards, checked, &stop);
        stop
    }

    /// What a watched step shows of a guard check that [`Exec::test_with`] made: each
    /// condition checked, and its `check` event, in order.
    #[inline(always)]
    fn show_checks(&mut self, guards: &[PathGuard<A>], checked: usize, stop: &Option<Stop<'_, A>>) {
        if H::ON {
            for (i, g) in guards[..checked].iter().enumerate() {
                if !matches!(g.test, Test::TimeLimit { .. }) {
                    let failed = i + 1 == checked && matches!(stop, Some(Stop::False(_)));
                    self.checked(g.node, !failed);
                }
            }
        }
    }

    /// [`Exec::first_failing`] without the hooks, on what it needs of the step: how many
    /// guards were checked (the one that failed included), and why it stopped. `plain` is
    /// what a condition without `in_context` sees.
    #[inline(always)]
    fn test_with<'g>(
        p: &Program<A>,
        clock: f64,
        block: &ActionSlab<A>,
        agent: &mut A,
        guards: &'g [PathGuard<A>],
        plain: &CondIo<'_>,
    ) -> (usize, Option<Stop<'g, A>>) {
        for (i, g) in guards.iter().enumerate() {
            // A plain condition is decided here; any other guard turns to its test.
            if Some(g.cond.check(agent, plain)) == g.holds {
                continue;
            }
            let held = match &g.test {
                Test::Plain => false,
                Test::Keyed {
                    key,
                    cond,
                    invert,
                    observer,
                } => {
                    let Some(v) = plain.context.get(*key) else {
                        // An observer whose key is missing does not hold.
                        if *observer {
                            return (i + 1, Some(Stop::False(g)));
                        }
                        return (i, Some(Stop::Missing(g, *key)));
                    };
                    let io = CondIo {
                        input: Some(v),
                        step: plain.step,
                        context: plain.context,
                    };
                    cond.check(agent, &io) != *invert
                }
                Test::TimeLimit { seconds } => {
                    let started = block.timers()[p.recs[g.branch as usize].timer as usize];
                    clock - started < seconds - EPS
                }
            };
            if !held {
                return (i + 1, Some(Stop::False(g)));
            }
        }
        (guards.len(), None)
    }

    /// Checks the guards of the branches above `leaf`, outermost first. A failing guard
    /// fails its branch (aborting what runs below); its report is queued or delivered at
    /// once, as `delivery` says.
    ///
    /// `prev` is the leaf checked before this one in the same pass (0: none). Leaves are
    /// checked in tree order, so a branch above `leaf` that comes before `prev` is above
    /// `prev` too and was checked with it: each branch is checked once per pass.
    #[inline]
    pub(crate) fn check_path(&mut self, leaf: u32, prev: u32, delivery: Delivery) -> Flow {
        self.check_guards(self.p.leaf(leaf), prev, delivery)
    }

    /// [`Exec::check_path`] of the leaf `info` describes.
    #[inline(always)]
    fn check_guards(&mut self, info: &LeafInfo<A>, prev: u32, delivery: Delivery) -> Flow {
        let path = &info.guards[..];
        // Outermost first: the branches' indices grow along the path.
        let path = if prev == 0 {
            path
        } else {
            &path[path.partition_point(|g| g.branch < prev)..]
        };
        debug_assert!(
            path.iter().all(|g| self.running(g.branch)),
            "a branch above a running leaf is idle"
        );
        match self.first_failing(path) {
            None => Flow::Running,
            Some(stop) => self.stopped(stop, delivery),
        }
    }

    /// [`Exec::check_guards`] of a leaf with observers on its path (§3.3.2), in phase 2:
    /// before each node on the path whose Selector parent has takers before it (after the
    /// guards of the branches above that node), those takers are examined in slot order,
    /// and the first that could run takes over. Each Selector is examined once a pass,
    /// as each branch's guards are (see `prev`). After a take-over the leaf walked was
    /// aborted: the result is `Done(Aborted)` (or `Unwind` when the tree was reset), which
    /// callers take, as any result but `Running`, to mean that it does not execute.
    #[inline(never)]
    fn check_watched(&mut self, info: &LeafInfo<A>, prev: u32, delivery: Delivery) -> Flow {
        let p = self.p;
        let mut done = info.guards.partition_point(|g| g.branch < prev);
        for w in info.watch.iter().filter(|w| w.at > prev) {
            let upto = done + info.guards[done..].partition_point(|g| g.branch < w.at);
            if let Some(stop) = self.first_failing(&info.guards[done..upto]) {
                return self.stopped(stop, delivery);
            }
            done = upto;
            for &(b, slot) in &p.takers[w.takers.0 as usize..w.takers.1 as usize] {
                if self.could_run(b) {
                    return self.take_over(w.selector, b, slot);
                }
            }
        }
        match self.first_failing(&info.guards[done..]) {
            None => Flow::Running,
            Some(stop) => self.stopped(stop, delivery),
        }
    }

    /// Whether branch `b`, which an observer watches from, could run again: all its
    /// guards hold, checked in order (each a `check`), a missing key not holding.
    fn could_run(&mut self, b: u32) -> bool {
        let p = self.p;
        let rec = &p.recs[b as usize];
        let guards = &p.entry[rec.entry.0 as usize..rec.entry.1 as usize];
        let plain = CondIo {
            input: None,
            step: self.st.step,
            context: ctx(&self.st.cold),
        };
        let (checked, stop) =
            Self::test_with(p, self.st.clock, self.block, self.agent, guards, &plain);
        self.show_checks(guards, checked, &stop);
        match stop {
            None => true,
            Some(Stop::False(_)) => false,
            Some(Stop::Missing(g, _)) => {
                if H::ON {
                    self.checked(g.node, false);
                }
                false
            }
        }
    }

    /// Branch `b`, in slot `slot` of Selector `c`, takes over: everything running below
    /// `c` is aborted, and `c` enters `b` (its guards counting as passed) and goes on from
    /// there; what finishes at once is delivered at once, up the tree.
    fn take_over(&mut self, c: u32, b: u32, slot: u32) -> Flow {
        self.abort_below(c);
        *self.cursor_mut(c) = slot;
        match self.run(c, Act::TakeOver(b)) {
            Flow::Done(s) => {
                if self.climb(c, s) == Flow::Unwind {
                    return Flow::Unwind;
                }
            }
            Flow::Unwind => return Flow::Unwind,
            Flow::Running => {}
        }
        // The leaf whose path was walked was aborted with everything below `c`.
        Flow::Done(Status::Aborted)
    }

    /// A leaf's guards stopped at `stop`: the branch whose guard failed fails (its report
    /// queued or delivered at once, as `delivery` says), or the tree resets for a missing
    /// key.
    #[inline(never)]
    fn stopped(&mut self, stop: Stop<'_, A>, delivery: Delivery) -> Flow {
        match stop {
            Stop::False(g) => self.guard_failed(g.branch, delivery),
            Stop::Missing(g, k) => self.context_missing(g.node, k),
        }
    }

    /// A guard of running branch `b` failed: the branch fails, aborting what runs below,
    /// and its report is queued or delivered at once.
    pub(crate) fn guard_failed(&mut self, b: u32, delivery: Delivery) -> Flow {
        self.abort_below(b);
        self.finish(b, Status::Failure);
        match delivery {
            Delivery::Queued => self.queue_report(b, Status::Failure),
            Delivery::AtOnce => {
                let route = self.p.guard_route(b);
                if self.follow(b, route, Status::Failure) == Flow::Unwind {
                    return Flow::Unwind;
                }
            }
        }
        Flow::Done(Status::Failure)
    }

    /// Phase 3's gate: whether every Regulator above the leaf `info` describes lets it
    /// execute in this step.
    #[inline(never)]
    fn regulators_allow(&mut self, info: &LeafInfo<A>, dt: f64) -> bool {
        let p = self.p;
        let mut ok = true;
        for &r in &p.chain[info.regulators.0 as usize..info.regulators.1 as usize] {
            ok &= regulator::allows(self, r, dt);
        }
        ok
    }

    // ---- interrupts -------------------------------------------------------------------

    fn start_interrupt(&mut self, at: u32, payload: Option<CtxValue>) -> Flow {
        self.st.stats.interrupts += 1;
        if H::ON
            && let Some(o) = self.obs.as_deref_mut()
        {
            let id = self
                .p
                .interrupts
                .iter()
                .find(|(_, i)| *i == at)
                .map(|(id, _)| id.as_str())
                .unwrap_or("");
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
        if let Kind::Interrupt(i) = self.p.recs[at as usize].kind
            && let Some(k) = i.output
            && let Some(v) = payload
            && (i.overwrite || ctx(&self.st.cold).get(k).is_none())
        {
            self.cold().context.set(k, Some(v));
        }
        self.st.interrupt = at;
        self.enter(at)
    }

    /// Interrupt `at`'s child finished with `s`: it finishes, then the main tree restarts
    /// (`force_reset`) or resumes the leaves it aborted (SEMANTICS.md §3.4).
    pub(crate) fn interrupt_done(&mut self, at: u32, s: Status, force_reset: bool) -> Act {
        self.finish(at, s);
        self.st.interrupt = NONE;
        if force_reset {
            self.abort_all();
            self.reset_all();
            self.st.flags &= !RESTART;
            self.emit(0, EventKind::Restart(Reason::ForceReset));
            return match self.enter(0) {
                Flow::Unwind => Act::Unwind,
                _ => Act::Running,
            };
        }
        let resume = std::mem::take(&mut self.cold().resume);
        let mut act = Act::Running;
        let mut prev = 0;
        // A guard failing on resume is delivered at once (SEMANTICS.md §3.4), so the main tree has
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
                    act = Act::Unwind;
                    break;
                }
                Flow::Done(_) => continue,
                Flow::Running => {}
            }
            if !self.running(parent) {
                continue;
            }
            if self.enter(leaf) == Flow::Unwind {
                act = Act::Unwind;
                break;
            }
        }
        let cold = self.cold();
        cold.resume = resume;
        cold.resume.clear();
        act
    }

    // ---- aborting and resetting ---------------------------------------------------------

    pub(crate) fn abort_node(&mut self, n: u32) {
        if !self.running(n) {
            return;
        }
        self.set_status(n, Status::Aborted);
        if let Kind::Leaf(_) = self.p.recs[n as usize].kind {
            leaf::abort(self, n);
        }
        self.emit(n, EventKind::Abort);
    }

    /// Aborts the running nodes in `from..end`, deepest first. Aborting a node changes no
    /// other status, so the statuses are read once, eight at a time.
    pub(crate) fn abort_range(&mut self, from: u32, end: u32) {
        let (from, mut end) = (from as usize, end as usize);
        while end > from {
            let (base, mut running) = running_window(self.block.status(), from, end);
            while running != 0 {
                let k = last_byte(running);
                running &= !(0x80 << (8 * k));
                self.abort_node((base + k) as u32);
            }
            end = base.max(from);
        }
    }

    pub(crate) fn abort_below(&mut self, n: u32) {
        self.abort_range(n + 1, self.p.recs[n as usize].end);
    }

    fn abort_all(&mut self) {
        self.abort_range(0, self.p.len() as u32);
        self.st.interrupt = NONE;
        if let Some(cold) = self.st.cold.as_deref_mut() {
            cold.resume.clear();
        }
    }

    pub(crate) fn reset_range(&mut self, from: u32, end: u32) {
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

    pub(crate) fn context_missing(&mut self, n: u32, key: KeyId) -> Flow {
        self.st.stats.context_missing += 1;
        if H::ON
            && let Some(o) = self.obs.as_deref_mut()
        {
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
        self.enter(0);
        Flow::Unwind
    }

    pub(crate) fn stall(&mut self, n: u32) -> Flow {
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
