//! Entering a node and whatever its entry enters in turn, and finishing (SEMANTICS.md
//! §3.3). What a finished node's report does is in `reports.rs`.

use crate::runtime::Status;
use crate::runtime::node::{Act, Refusal, Run};
use crate::runtime::program::First;
use crate::runtime::trace::EventKind;

use super::{Exec, Flow, Stop, Watch};

impl<'o, A, H: Watch> Exec<'_, 'o, A, H> {
    /// Enters node `n` and whatever it enters in turn, as long as nodes finish at once.
    pub(crate) fn enter(&mut self, n: u32) -> Flow {
        self.descend(n, Act::Enter(n))
    }

    /// The entry of node `n`, and of the nodes its entry enters in turn as long as their
    /// kinds' rules fix that (`Rec::first`, from `Def::first`), as one loop down. A node's
    /// entry hooks come first (§3.7: one that decides finishes it at once).
    /// A branch's entry is its count, `enter` and its guards (SEMANTICS.md §3.3: one that
    /// fails makes the branch fail at once); then its first move, or its kind's `enter`. Returns the
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
            if !p.hook_of.is_empty()
                && let Some(act) = self.entry_hooks(n)
            {
                return (n, act);
            }
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
            if !p.settings_of.is_empty()
                && let Err(why) = self.read_settings(n)
            {
                return (n, Act::Refused(why));
            }
            if rec.services.0 != rec.services.1 && !self.start_services(n) {
                return (n, Act::Unwind);
            }
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

    /// Branch `n`'s fields bound to keys, read into their settings at its entry; or why one
    /// could not be (SEMANTICS.md §3.5).
    #[inline(never)]
    fn read_settings(&mut self, n: u32) -> Result<(), Refusal> {
        let p = self.p;
        let (from, to) = p.settings_of[n as usize];
        for at in from..to {
            let value = p.bindings[at as usize].read(self.st.context())?;
            self.block.timers_mut()[p.setting_slot(at)] = value;
        }
        Ok(())
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
    pub(super) fn descend(&mut self, top: u32, mut act: Act) -> Flow {
        let mut n = top;
        loop {
            act = match act {
                Act::Running => return Flow::Running,
                Act::Unwind => return Flow::Unwind,
                Act::Done(s) => {
                    self.finish(n, s);
                    match self.heard(top, &mut n, s) {
                        Ok(act) => act,
                        Err(flow) => return flow,
                    }
                }
                Act::Refused(why) => {
                    self.finish_because(n, Status::Failure, Some(why.reason()));
                    match self.heard(top, &mut n, Status::Failure) {
                        Ok(act) => act,
                        Err(flow) => return flow,
                    }
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

    /// Node `*n`, entered in [`Exec::descend`]'s loop from `top`, finished with `s`: its
    /// parent runs, and hears it (`*n` becomes the parent), unless it is `top`, whose
    /// result ends the loop.
    #[inline(always)]
    fn heard(&mut self, top: u32, n: &mut u32, s: Status) -> Result<Act, Flow> {
        if *n == top {
            return Err(Flow::Done(s));
        }
        *n = self.p.recs[*n as usize].parent;
        Ok(self.p.recs[*n as usize].kind.react(self, *n, s))
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

    /// Node `n` finishes with `s`: its services stop, then [`Exec::finish_because`].
    #[inline]
    pub(crate) fn finish(&mut self, n: u32, s: Status) -> Flow {
        let services = self.p.recs[n as usize].services;
        if services.0 != services.1 {
            self.stop_services(n);
        }
        self.finish_because(n, s, None)
    }

    /// Node `n` finishes with `s`, for `reason` when it failed for one (a leaf's, a
    /// refusal's): its status, its finishing hooks (§3.7), its `exit` event.
    #[inline]
    pub(crate) fn finish_because(
        &mut self,
        n: u32,
        s: Status,
        reason: Option<&'static str>,
    ) -> Flow {
        self.set_status(n, s);
        if !self.p.hook_of.is_empty() {
            self.status_hooks(n, s);
        }
        if reason.is_some()
            && self.recording()
            && let Some(shown) = self.st.shown_mut(n as usize)
        {
            shown.reason = reason;
        }
        self.emit(n, EventKind::Exit(s, reason));
        Flow::Done(s)
    }
}
