//! A reactive composite entered again in phase 2, its running child excepted
//! (SEMANTICS.md §3.3): BehaviorTree.CPP's ReactiveSequence, ReactiveFallback and
//! WhileDoElse.

use crate::runtime::Status;
use crate::runtime::node::{Next, Run};

use super::{Delivery, Exec, Flow, Watch};

impl<'o, A, H: Watch> Exec<'_, 'o, A, H> {
    /// Reactive composite `r` walks its children again as its kind's rules say, from its
    /// move on being entered again (`Def::again`), each child entered afresh. Reaching its
    /// running child ends the walk: that child runs on, and the result is `Running`. A
    /// child that finishes at once goes as the kind's rule (`Def::next`) says: to another
    /// child, or `r` ends with a status, the running child aborted, and its report queued
    /// or delivered at once as `delivery` says. A child that runs takes the running
    /// child's place: the child that ran is aborted after it was entered. The leaf whose
    /// path was walked was then aborted, and the result is not `Running`.
    #[inline(never)]
    pub(super) fn enter_again(&mut self, r: u32, delivery: Delivery) -> Flow {
        let p = self.p;
        let kind = p.recs[r as usize].kind;
        let running = self.cursor(r);
        let count = p.kids(r).len() as u32;
        let mut go = kind.again(self, r);
        // Each move enters another child (the rules never go back), so there are at most
        // `count` of them.
        for _ in 0..count {
            let slot = match go {
                Some(Next::Child(slot)) if slot != running => slot,
                Some(Next::Finish(end)) => return self.ends_early(r, end, delivery),
                _ => return Flow::Running,
            };
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
                Flow::Done(s) => go = kind.next(slot, count, s),
            }
        }
        Flow::Running
    }
}
