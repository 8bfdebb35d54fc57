//! A node's hooks in the lifecycle (SEMANTICS.md §3.7): `_failureIf`, `_successIf`,
//! `_skipIf` and `_while` checked as it is entered, `_onSuccess`, `_onFailure` and `_post`
//! run as it finishes, `_onHalted` as it is aborted. (A running node's `_while` is a check
//! on its path: `guards.rs`.) What a node has is compiled in `runtime/hooks.rs`.

use crate::runtime::Status;
use crate::runtime::node::{Act, Refusal, Run};
use crate::runtime::program::NONE;
use crate::runtime::trace::EventKind;

use super::{Exec, Watch};

impl<'o, A, H: Watch> Exec<'_, 'o, A, H> {
    /// Node `n`, about to be entered, has hooks: when its `_failureIf`, `_successIf` or
    /// `_skipIf` holds, or its `_while` does not, it is entered and finishes at once with
    /// that status (skipped for `_skipIf` and `_while`), without running (a leaf's action
    /// is not called), a failure with its reason; `None` when it runs.
    #[inline(never)]
    pub(super) fn entry_hooks(&mut self, n: u32) -> Option<Act> {
        let p = self.p;
        let s = p.hooks_of(n)?.on_entry(self.context())?;
        let ri = p.recs[n as usize].ri;
        if ri != NONE {
            self.mark_entered(ri);
        }
        self.set_status(n, Status::Running);
        self.emit(n, EventKind::Enter);
        Some(match s {
            Status::Failure => Act::Refused(Refusal::FailureIf),
            s => Act::Done(s),
        })
    }

    /// Node `n` took status `s`: the hooks it runs then, in order, each storing what it
    /// set (all of it, or nothing when a value does not fit its key or the script has no
    /// value).
    #[inline(never)]
    pub(super) fn status_hooks(&mut self, n: u32, s: Status) {
        let p = self.p;
        let Some(hooks) = p.hooks_of(n) else {
            return;
        };
        for script in hooks.on_status(s).into_iter().flatten() {
            // (A script with no value leaves no writes.)
            let mut writes = std::mem::take(&mut self.cold().writes);
            if script.run(self.context(), &mut writes) {
                self.commit(n, &mut writes);
            }
            self.cold().writes = writes;
        }
    }
}
