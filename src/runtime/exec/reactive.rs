//! A reactive composite entering the children before its running one again, in phase 2
//! (SEMANTICS.md §3.3): BehaviorTree.CPP's ReactiveSequence and ReactiveFallback.

use crate::runtime::Status;
use crate::runtime::node::{Next, Run};

use super::{Delivery, Exec, Flow, Hooks};

impl<'o, A, H: Hooks> Exec<'_, 'o, A, H> {
    /// Reactive composite `r` enters its children before its running one again, in slot
    /// order, each afresh. One that finishes at once goes as the kind's rule says: on to
    /// the next (reaching the running child ends the walk: it runs on, and the result is
    /// `Running`), or `r` ends with that status, the running child aborted, and its report
    /// queued or delivered at once as `delivery` says. One that runs takes the running
    /// child's place: the child that ran is aborted after it was entered. The leaf whose
    /// path was walked was then aborted, and the result is not `Running`.
    #[inline(never)]
    pub(super) fn enter_again(&mut self, r: u32, delivery: Delivery) -> Flow {
        let p = self.p;
        let kind = p.recs[r as usize].kind;
        let running = self.cursor(r);
        let count = p.kids(r).len() as u32;
        for slot in 0..running {
            let kid = p.kids(r)[slot as usize];
            self.reset_subtree(kid);
            match self.enter(kid) {
                Flow::Running => {
                    let ran = p.kids(r)[running as usize];
                    self.abort_range(ran, p.recs[ran as usize].end);
                    *self.cursor_mut(r) = slot;
                    return Flow::Done(Status::Aborted);
                }
                Flow::Unwind => return Flow::Unwind,
                Flow::Done(s) => {
                    if let Some(Next::Finish(end)) = kind.next(slot, count, s) {
                        return self.ends_early(r, end, delivery);
                    }
                }
            }
        }
        Flow::Running
    }
}
