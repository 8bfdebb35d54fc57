//! Guards: every check of a branch's conditions (on entry, on a running leaf's path,
//! on resume), and observers taking over from a lower priority (SEMANTICS.md §3.2 phase 2,
//! §3.3.2).

use crate::runtime::Status;
use crate::runtime::behaviour::CondIo;
use crate::runtime::node::Test;
use crate::runtime::node::{Act, EPS, Run};
use crate::runtime::program::{LeafInfo, PathGuard, Program, Watching};
use crate::runtime::slab::ActionSlab;

use super::{Delivery, Exec, Flow, Stop, Watch};

impl<'o, A, H: Watch> Exec<'_, 'o, A, H> {
    /// Checks `guards` in order, stopping at the first that does not hold or whose key is
    /// missing. This is every guard check there is: a branch's on entry, those on a
    /// running leaf's path in phase 2 and on resume. A watched step then shows each
    /// condition checked and emits its `check`, in order.
    #[inline(always)]
    pub(crate) fn first_failing<'g>(&mut self, guards: &'g [PathGuard<A>]) -> Option<Stop<'g, A>> {
        let plain = self.st.plain_io();
        let (checked, stop) = Self::test_with(
            self.p,
            self.st.clock(),
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
    pub(super) fn show_checks(
        &mut self,
        guards: &[PathGuard<A>],
        checked: usize,
        stop: &Option<Stop<'_, A>>,
    ) {
        if H::ON {
            for (i, g) in guards[..checked].iter().enumerate() {
                if !matches!(g.test, Test::Deadline { .. } | Test::While) {
                    let failed = i + 1 == checked && matches!(stop, Some(Stop::False(_)));
                    self.checked(g.node, !failed);
                }
            }
        }
    }

    /// [`Exec::first_failing`] without what is watched, on what it needs of the step: how many
    /// guards were checked (the one that failed included), and why it stopped. `plain` is
    /// what a condition without `in_context` sees.
    #[inline(always)]
    pub(super) fn test_with<'g>(
        p: &Program<A>,
        clock: f64,
        block: &ActionSlab<A>,
        agent: &mut A,
        guards: &'g [PathGuard<A>],
        plain: &CondIo<'_>,
    ) -> (usize, Option<Stop<'g, A>>) {
        for (i, g) in guards.iter().enumerate() {
            // A plain condition is decided here; any other guard turns to its test.
            if g.holds_on.matches(g.cond.check(agent, plain)) {
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
                Test::Deadline { seconds } => {
                    let timers = block.timers();
                    let started = timers[p.recs[g.branch as usize].timer as usize];
                    let seconds = seconds.of(|at| timers[p.setting_slot(at)]);
                    clock - started < seconds - EPS
                }
                Test::While => p
                    .hooks_of(g.node)
                    .is_none_or(|h| h.holds_while(plain.context)),
            };
            if !held {
                return (i + 1, Some(Stop::False(g)));
            }
        }
        (guards.len(), None)
    }

    /// Checks the guards of the branches above `leaf`, outermost first, as an ending
    /// Interrupt resumes it (aborted, it is entered again next, which checks its own
    /// `_while` as an entry hook: it is left out here). A failing guard fails its branch
    /// (aborting what runs below); its report is delivered at once, as `delivery` says.
    ///
    /// `prev` is the leaf checked before this one in the same pass (0: none). Leaves are
    /// checked in tree order, so a branch above `leaf` that comes before `prev` is above
    /// `prev` too and was checked with it: each branch is checked once per pass.
    #[inline]
    pub(crate) fn check_path(&mut self, leaf: u32, prev: u32, delivery: Delivery) -> Flow {
        let p = self.p;
        let guards = &p.leaf(leaf).guards;
        let above = guards.partition_point(|g| g.branch < leaf);
        self.check_guards(&guards[..above], prev, delivery)
    }

    /// Checks `path`, the guards on a running leaf's path (those of the branches above it,
    /// outermost first, then its own `_while`). A failing guard fails its branch
    /// (aborting what runs below), a `_while` that does not hold skips its node; the
    /// report is queued or delivered at once, as `delivery` says. `prev`: as for
    /// [`Exec::check_path`].
    #[inline(always)]
    pub(super) fn check_guards(
        &mut self,
        path: &[PathGuard<A>],
        prev: u32,
        delivery: Delivery,
    ) -> Flow {
        // Outermost first: the branches' indices grow along the path.
        let path = if prev == 0 {
            path
        } else {
            &path[path.partition_point(|g| g.branch < prev)..]
        };
        debug_assert!(
            path.iter().all(|g| self.running(g.branch)),
            "a node whose guard is checked is idle"
        );
        match self.first_failing(path) {
            None => Flow::Running,
            Some(stop) => self.stopped(stop, delivery),
        }
    }

    /// [`Exec::check_guards`] of a leaf with observers or reactive composites on its path
    /// (SEMANTICS.md §3.3.2, §3.3), in phase 2: before each node on the path whose Selector
    /// parent has takers before it (after the guards of the branches above that node),
    /// those takers are examined in slot order, and the first that could run takes over;
    /// before each node whose parent is reactive, the parent walks its children up to
    /// that node again (`enter_again`). Each parent is looked at once a pass, as each branch's guards are
    /// (see `prev`). After a take-over, or a reactive parent that ended or moved to an
    /// earlier child, the leaf walked was aborted: the result is then not `Running`
    /// (`Unwind` when the tree was reset), which callers take to mean that it does not
    /// execute.
    #[inline(never)]
    pub(super) fn check_watched(
        &mut self,
        info: &LeafInfo<A>,
        prev: u32,
        delivery: Delivery,
    ) -> Flow {
        let p = self.p;
        let mut done = info.guards.partition_point(|g| g.branch < prev);
        for w in info.watch.iter().filter(|w| w.at > prev) {
            let upto = done + info.guards[done..].partition_point(|g| g.branch < w.at);
            if let Some(stop) = self.first_failing(&info.guards[done..upto]) {
                return self.stopped(stop, delivery);
            }
            done = upto;
            match w.how {
                Watching::Takers(t0, t1) => {
                    for &(b, slot) in &p.takers[t0 as usize..t1 as usize] {
                        if self.could_run(b) {
                            return self.take_over(w.parent, b, slot);
                        }
                    }
                }
                Watching::Again => match self.enter_again(w.parent, delivery) {
                    Flow::Running => {}
                    flow => return flow,
                },
            }
        }
        match self.first_failing(&info.guards[done..]) {
            None => Flow::Running,
            Some(stop) => self.stopped(stop, delivery),
        }
    }

    /// Whether branch `b`, which an observer watches from, could run again: all its
    /// guards hold, checked in order (each a `check`), a missing key not holding.
    pub(super) fn could_run(&mut self, b: u32) -> bool {
        let p = self.p;
        let rec = &p.recs[b as usize];
        let guards = &p.entry[rec.entry.0 as usize..rec.entry.1 as usize];
        let plain = self.st.plain_io();
        let (checked, stop) =
            Self::test_with(p, self.st.clock(), self.block, self.agent, guards, &plain);
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
    /// `c`'s children is aborted, and `c` enters `b` (its guards counting as passed) and goes on from
    /// there; what finishes at once is delivered at once, up the tree.
    pub(super) fn take_over(&mut self, c: u32, b: u32, slot: u32) -> Flow {
        // Its children's subtrees: `c` runs on, and so do its services.
        let end = self.p.recs[c as usize].end;
        let from = self.p.kids(c).first().copied().unwrap_or(end);
        self.abort_range(from, end);
        *self.cursor_mut(c) = slot;
        match self.descend(c, Act::TakeOver(b)) {
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
    /// queued or delivered at once, as `delivery` says), a node whose `_while` no longer
    /// holds is skipped, or the tree resets for a missing key.
    #[inline(never)]
    pub(super) fn stopped(&mut self, stop: Stop<'_, A>, delivery: Delivery) -> Flow {
        match stop {
            Stop::False(g) if matches!(g.test, Test::While) => self.while_ended(g.node, delivery),
            Stop::False(g) => self.guard_failed(g.branch, delivery),
            Stop::Missing(g, k) => self.context_missing(g.node, k),
        }
    }

    /// Running node `n`'s `_while` no longer holds (SEMANTICS.md §3.7): it is halted — what
    /// runs below it aborted, a leaf's action stopped (`on_exit(aborted)`), then its
    /// `_onHalted` (the hooks of an aborted node, though its status is not `Aborted`: it
    /// is skipped) — and it is skipped, its report queued or delivered at once.
    fn while_ended(&mut self, n: u32, delivery: Delivery) -> Flow {
        self.abort_below(n);
        if self.p.recs[n as usize].kind.is_leaf() {
            self.abort_leaf(n);
        }
        self.status_hooks(n, Status::Aborted);
        self.ends_early(n, Status::Skipped, delivery)
    }

    /// A guard of running branch `b` failed: the branch fails, aborting what runs below,
    /// and its report is queued or delivered at once.
    pub(crate) fn guard_failed(&mut self, b: u32, delivery: Delivery) -> Flow {
        self.ends_early(b, Status::Failure, delivery)
    }

    /// Running branch `b` ends with `s` from above what runs below it (a guard that failed,
    /// a reactive composite's earlier child that decided it): what runs below is aborted,
    /// and its report is queued or delivered at once.
    pub(super) fn ends_early(&mut self, b: u32, s: Status, delivery: Delivery) -> Flow {
        self.abort_below(b);
        self.finish(b, s);
        match delivery {
            Delivery::Queued => self.queue_report(b, s),
            Delivery::AtOnce => {
                let flow = if s == Status::Failure {
                    self.follow_route(b, self.p.guard_route(b), s)
                } else {
                    self.climb(b, s)
                };
                if flow == Flow::Unwind {
                    return Flow::Unwind;
                }
            }
        }
        Flow::Done(s)
    }
}
