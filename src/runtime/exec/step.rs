//! One step: its phases in order (SEMANTICS.md §3.2), and a lone active leaf checked and
//! executed in one go.

use std::marker::PhantomData;

use crate::runtime::Status;
use crate::runtime::node::Run;
use crate::runtime::program::{HAS_REGULATORS, HAS_WATCH, HAS_WRITES, LeafInfo, NONE};
use crate::runtime::state::{COMMON_STEP, FLAG_BITS, Flags, Trigger};
use crate::runtime::trace::{EventKind, Reason};

use super::{Delivery, Exec, Flow, Watch, Watched};

impl<'o, A, H: Watch> Exec<'_, 'o, A, H> {
    /// One step of SEMANTICS.md §3.2.
    ///
    /// The common step is inlined into its caller, and the calls it makes out of line go
    /// through [`Exec::again`]: this `Exec` itself stays in registers.
    #[inline(always)]
    pub(crate) fn step(&mut self, dt: f64) {
        // A quiet step takes the full one for any flag: one that is due, or the display
        // snapshot kept (which makes it a watched one, see `step_full`).
        let word = self
            .st
            .flags_and_count(if H::ON { Flags::DUE } else { Flags::ALL });
        if word == COMMON_STEP {
            // The common step: started, no trigger waiting, no restart due (a stall in this
            // step sets one for the next, so none falls due now), one active leaf: phases 2
            // to 4 only. A stall in the step before made one due, so `stalled` is clear and
            // phase 4 left nothing queued. Phase 1 had nothing to do, so the leaf was not
            // entered in this step and waits for nothing; whatever it reports is delivered
            // at once, so phase 4 has nothing to do either.
            self.advance_common(dt);
            let leaf = self.st.first_active();
            self.run_leaf(leaf, dt, Delivery::AtOnce);
        } else if word & FLAG_BITS != 0 {
            self.again().step_full(dt);
        } else {
            self.again().step_many(dt);
        }
    }

    /// [`Exec::advance`] for a common step, which has nothing from the step before.
    #[inline(always)]
    pub(super) fn advance_common(&mut self, dt: f64) {
        debug_assert!(
            !self.st.stalled(),
            "a stall's step was followed by a common one"
        );
        debug_assert!(
            !self.st.reports_waiting(),
            "a report waits from an earlier step"
        );
        self.advance(dt);
    }

    /// The step's number and clock move on (see `State::advance`).
    #[inline(always)]
    pub(super) fn advance(&mut self, dt: f64) {
        self.st.advance(dt);
    }

    /// The common step with other than one active leaf: phases 2 to 4.
    #[inline(never)]
    pub(super) fn step_many(&mut self, dt: f64) {
        self.advance_common(dt);
        self.st.begin_phases();
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
        if !self.st.stalled() && self.st.reports_waiting() {
            self.reports();
        }
    }

    /// A step with everything SEMANTICS.md §3.2 has: the start, triggers, a restart falling due.
    #[inline(never)]
    pub(super) fn step_full(&mut self, dt: f64) {
        if !H::ON && self.st.recording() {
            // The display snapshot is kept: the step is a watched one.
            let mut watched =
                Exec::<'_, 'o, A, Watched>::new(self.p, self.st, self.block, self.agent, None);
            watched.step(dt);
            return;
        }
        self.st.clear_stall();
        if self.st.renumber_due() {
            self.renumber();
        }
        if self.st.start() {
            self.show_defaults();
            self.enter(0);
            self.st.clear_stall();
        }
        self.st.begin_phases();
        self.advance(dt);
        if self.st.triggers_waiting() {
            self.interrupts();
        }
        if !self.st.stalled() && !self.p.services.is_empty() {
            self.services(dt);
        }
        if !self.st.stalled() {
            self.guards_and_execute(dt);
        }
        if !self.st.stalled() && self.st.reports_waiting() {
            self.reports();
        }
        // A stall makes a restart due and sets `stalled`, which holds to the end of its
        // step: a restart found here is due (from the step after the stall's, as
        // SEMANTICS.md §3.2 has it).
        let due = self.st.restart_due();
        if !self.st.stalled() && due && self.st.interrupt() == NONE && !self.running(0) {
            self.st.clear_restart();
            self.emit(0, EventKind::Restart(Reason::Stall));
            self.enter(0);
        }
    }

    /// The entry serials start again: every epoch becomes 0, below any serial to come.
    /// Done between steps, when no report is queued, whose epoch would be stale.
    #[cold]
    pub(super) fn renumber(&mut self) {
        self.st.renumbered();
        let rt = self.block.rt_mut();
        for rec in &self.p.recs {
            if rec.ri != NONE {
                rt[rec.ri as usize] = 0;
            }
        }
    }

    /// Phase 1: triggers queued since the last step, in order.
    #[inline(never)]
    pub(super) fn interrupts(&mut self) {
        while let Some(t) = self.st.next_trigger() {
            if self.st.stalled() {
                self.st.put_back_trigger(t);
                return;
            }
            match t {
                Trigger::Unknown(message) => self.emit(NONE, EventKind::Warning(&message)),
                Trigger::Known(at, payload) => {
                    self.start_interrupt(at, payload);
                }
            }
        }
        self.st.triggers_handled();
    }

    /// Phases 2 and 3. With one active leaf (the common step) they are one check-then-run:
    /// a failing guard aborts the leaf, and a reset for a missing key leaves only leaves
    /// entered in this step, which wait for the next; either way nothing is left to execute.
    #[inline(never)]
    pub(super) fn guards_and_execute(&mut self, dt: f64) {
        if let Some(leaf) = self.st.lone_active() {
            if !self.entered_now(leaf) {
                // With nothing queued, phase 4 would deliver what it reports first and
                // alone: it is delivered now.
                let delivery = if self.st.reports_waiting() {
                    Delivery::Queued
                } else {
                    Delivery::AtOnce
                };
                self.run_leaf(leaf, dt, delivery);
            }
            return;
        }
        self.guards();
        if !self.st.stalled() {
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
    pub(super) fn run_leaf(&mut self, leaf: u32, dt: f64, delivery: Delivery) {
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
    pub(super) fn run_leaf_with_extras(
        &mut self,
        leaf: u32,
        info: &LeafInfo<A>,
        dt: f64,
        delivery: Delivery,
    ) {
        self.run_leaf_as::<true>(leaf, info, dt, delivery);
    }

    /// [`Exec::run_leaf`], with the tests of a leaf's extras compiled out unless `EXTRAS`.
    #[inline(always)]
    pub(super) fn run_leaf_as<const EXTRAS: bool>(
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
    pub(super) fn check_and_execute<const EXTRAS: bool>(
        &mut self,
        leaf: u32,
        info: &LeafInfo<A>,
        dt: f64,
        guards: Option<Delivery>,
    ) -> Option<Status> {
        let p = self.p;
        let clock = self.st.clock();
        let mut io = self.st.leaf_io::<A, EXTRAS>(info);
        if EXTRAS
            && let Some(delivery) = guards
            && info.has(HAS_WATCH)
        {
            if self.again().check_watched(info, 0, delivery) != Flow::Running {
                return None;
            }
            io = self.st.leaf_io::<A, EXTRAS>(info);
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
                io = self.st.leaf_io::<A, EXTRAS>(info);
            }
        }
        if EXTRAS && info.has(HAS_REGULATORS) {
            if !self.again().regulators_allow(info, dt) {
                return None;
            }
            io = self.st.leaf_io::<A, EXTRAS>(info);
        }
        if H::ON {
            self.emit(leaf, EventKind::Execute);
            io = self.st.leaf_io::<A, EXTRAS>(info);
        }
        let mut outcome = self.block.execute(&info.calls, self.agent, &mut io, dt);
        if EXTRAS && info.has(HAS_WRITES) {
            outcome = self.again().store_writes(leaf, outcome);
        }
        self.leaf_outcome::<EXTRAS>(info, outcome, dt)
    }

    /// Phase 2: guards of the active leaves entered in an earlier step, in tree order.
    pub(super) fn guards(&mut self) {
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
                self.check_guards(&info.guards, prev, Delivery::Queued)
            };
            prev = leaf;
            if flow == Flow::Unwind && self.st.stalled() {
                break;
            }
        }
    }

    /// Phase 3: execute the remaining leaves, in tree order.
    pub(super) fn execute(&mut self, dt: f64) {
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

    /// Phase 3's gate: whether every Regulator above the leaf `info` describes lets it
    /// execute in this step.
    #[inline(never)]
    pub(super) fn regulators_allow(&mut self, info: &LeafInfo<A>, dt: f64) -> bool {
        let p = self.p;
        let mut ok = true;
        for &r in &p.chain[info.regulators.0 as usize..info.regulators.1 as usize] {
            ok &= p.recs[r as usize].kind.allows(self, r, dt);
        }
        ok
    }
}
