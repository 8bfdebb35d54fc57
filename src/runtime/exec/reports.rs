//! Reports: a node that finished tells its parent, at once (depth first) or through the
//! queue of phase 4 (SEMANTICS.md §3.2, §3.3). A leaf's report follows the route compiled
//! for it as far as the tree alone decides the parents' reactions, then climbs, each
//! running parent reacting, as long as they finish; Root's child finishing completes the
//! run.

use crate::runtime::Status;
use crate::runtime::node::{Act, Run};
use crate::runtime::program::{LeafInfo, NONE, Route};
use crate::runtime::state::{Report, last_running};
use crate::runtime::trace::{EventKind, Reason};

use super::{Delivery, Exec, Flow, Watch};

impl<'o, A, H: Watch> Exec<'_, 'o, A, H> {
    /// Phase 4: deliver the queued reports in order.
    #[inline(never)]
    pub(super) fn reports(&mut self) {
        while let Some(r) = self.st.next_report() {
            let i = r.node as usize;
            let parent = self.p.recs[i].parent;
            let fresh = self.block.status()[i] == r.status && self.epoch(i as u32) == r.epoch;
            if !fresh || parent == NONE || !self.running(parent) {
                continue;
            }
            if self.deliver(r.node, r.status) == Flow::Unwind && self.st.stalled() {
                return;
            }
        }
    }

    pub(super) fn queue_report(&mut self, n: u32, status: Status) {
        let r = Report {
            node: n,
            status,
            epoch: self.epoch(n),
        };
        self.st.queue_report(r, self.p);
    }

    /// Delivers child `c`'s result to its parents, climbing while they finish. (A leaf's
    /// compiled routes are for a success and a failure.)
    pub(crate) fn deliver(&mut self, c: u32, s: Status) -> Flow {
        let p = self.p;
        let parent = p.recs[c as usize].parent;
        if p.recs[c as usize].kind.is_leaf() && s != Status::Skipped && self.running(parent) {
            return self.deliver_route(c, p.leaf(c), s);
        }
        self.climb(c, s)
    }

    /// [`Exec::deliver`] of a report of `s` from leaf `c`, which `info` describes, whose
    /// parent runs (see [`Exec::follow_route`]).
    #[inline]
    pub(super) fn deliver_route(&mut self, c: u32, info: &LeafInfo<A>, s: Status) -> Flow {
        self.follow_route(c, info.route(s), s)
    }

    /// Node `c` finished with `s`, and its parent runs: its report goes as far as the tree
    /// alone decides it along `route`, its route (what the parents' `react` would do,
    /// worked out when the tree was compiled); then the way up.
    #[inline]
    pub(super) fn follow_route(&mut self, mut c: u32, route: &Route, mut s: Status) -> Flow {
        for &(b, done) in self.p.finished(route) {
            debug_assert!(self.running(b), "a branch above a running node is idle");
            self.finish(b, done);
            (c, s) = (b, done);
        }
        if let Some(m) = route.enter {
            self.block.rt_mut()[m.cursor_at as usize] = m.slot;
            match self.descend(m.parent, Act::Enter(m.child)) {
                Flow::Done(done) => (c, s) = (m.parent, done),
                f => return f,
            }
        }
        self.climb(c, s)
    }

    /// The way up from node `c`, which finished with `s`: each running parent reacts, as
    /// long as they finish.
    #[inline]
    pub(super) fn climb(&mut self, mut c: u32, mut s: Status) -> Flow {
        loop {
            let p = self.p.recs[c as usize].parent;
            if p == NONE || !self.running(p) {
                return Flow::Running;
            }
            let act = self.p.recs[p as usize].kind.react(self, p, s);
            match self.descend(p, act) {
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
            self.hand_over::<EXTRAS>(n, info, status, m.child);
            return;
        }
        self.again()
            .leaf_report::<EXTRAS>(n, info, status, delivery);
    }

    /// Leaf `n`, which `info` describes, finished in phase 3 and its report is not handed
    /// over: it exits, and its report is queued for phase 4 or delivered at once.
    #[inline(never)]
    pub(super) fn leaf_report<const EXTRAS: bool>(
        &mut self,
        n: u32,
        info: &LeafInfo<A>,
        status: Status,
        delivery: Delivery,
    ) {
        self.exit_leaf::<EXTRAS>(n, info, status);
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
        self.st.count_run(s);
        let began_now = self.word(0) == self.st.step();
        if self.st.active_count() == 0 && self.st.interrupt() == NONE {
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
}
