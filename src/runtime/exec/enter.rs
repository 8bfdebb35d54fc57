//! Entering a node and whatever its entry enters in turn, finishing, and delivering a
//! report up the tree as far as the parents react at once (SEMANTICS.md §3.3).

use crate::runtime::Status;
use crate::runtime::instance::last_running;
use crate::runtime::kinds::{Act, leaf};
use crate::runtime::program::{First, LeafInfo, NONE, Route};
use crate::runtime::trace::{EventKind, Reason};

use super::{Delivery, Exec, Flow, Hooks, Stop};

impl<'o, A, H: Hooks> Exec<'_, 'o, A, H> {
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
    pub(super) fn begin(&mut self, n: u32) -> (u32, Act) {
        self.begin_as(n, true)
    }

    /// [`Exec::begin`], with node `n`'s guards checked only when `guarded` (a branch
    /// taking over has had them checked already).
    #[inline(always)]
    pub(super) fn begin_as(&mut self, mut n: u32, mut guarded: bool) -> (u32, Act) {
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
    pub(super) fn entry_guards(&mut self, entry: (u32, u32)) -> Option<Act> {
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
    pub(super) fn run(&mut self, top: u32, mut act: Act) -> Flow {
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
    pub(super) fn enter_all(&mut self, n: u32) -> Act {
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
        if p.recs[c as usize].kind.is_leaf()
            && self.running(parent)
        {
            return self.deliver_route(c, p.leaf(c), s);
        }
        self.climb(c, s)
    }

    /// [`Exec::deliver`] of a report of `s` from leaf `c`, which `info` describes, whose
    /// parent runs (see [`Exec::follow`]).
    #[inline]
    pub(super) fn deliver_route(&mut self, c: u32, info: &LeafInfo<A>, s: Status) -> Flow {
        self.follow(c, info.route(s), s)
    }

    /// Node `c` finished with `s`, and its parent runs: its report goes as far as the tree
    /// alone decides it along `route`, its route (what the parents' `react` would do,
    /// worked out when the tree was compiled); then the way up.
    #[inline]
    pub(super) fn follow(&mut self, mut c: u32, route: &Route, mut s: Status) -> Flow {
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
    pub(super) fn climb(&mut self, mut c: u32, mut s: Status) -> Flow {
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
    pub(super) fn leaf_report<const EXTRAS: bool>(
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
}
