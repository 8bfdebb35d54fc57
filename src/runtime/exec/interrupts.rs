//! Interrupts: starting one from a trigger, and the main tree's restart or resume when
//! it ends (SEMANTICS.md §3.4).

use crate::runtime::Status;
use crate::runtime::behaviour::CtxValue;
use crate::runtime::node::{Act, Run};
use crate::runtime::program::NONE;
use crate::runtime::trace::{Event, EventKind, Reason};

use super::{Delivery, Exec, Flow, Watch};

impl<'o, A, H: Watch> Exec<'_, 'o, A, H> {
    pub(super) fn start_interrupt(&mut self, at: u32, payload: Option<CtxValue>) -> Flow {
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
                step: self.st.step(),
                node: Some(at),
                node_id: &self.p.names[at as usize],
                kind: EventKind::Interrupt(id),
            });
        }
        if self.st.interrupt() != NONE {
            let cur = self.st.interrupt();
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
        self.p.recs[at as usize].kind.triggered(self, at, payload);
        self.st.start_interrupt(at);
        self.enter(at)
    }

    /// Interrupt `at`'s child finished with `s`: it finishes, then the main tree restarts
    /// (`force_reset`) or resumes the leaves it aborted (SEMANTICS.md §3.4).
    pub(crate) fn interrupt_done(&mut self, at: u32, s: Status, force_reset: bool) -> Act {
        self.finish(at, s);
        self.st.end_interrupt();
        if force_reset {
            self.abort_all();
            self.reset_all();
            self.st.clear_restart();
            self.emit(0, EventKind::Restart(Reason::ForceReset));
            return match self.enter(0) {
                Flow::Unwind => Act::Unwind,
                _ => Act::Running,
            };
        }
        let resume = std::mem::take(&mut self.cold().resume);
        let mut act = Act::Running;
        let mut prev = 0;
        // A failure delivered earlier in this resume (a guard failing, a TimeLimit run out)
        // can end the run or make a Retry enter its child again, which enters leaves of its
        // own: a saved leaf whose parent stopped, or on whose path a branch was entered since
        // the resume began, is not the main tree's any more (SEMANTICS.md §3.4).
        let began = self.st.entries();
        for &leaf in &resume {
            if self.superseded(leaf, began) {
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
            if self.superseded(leaf, began) {
                continue;
            }
            // Entered again, a leaf whose entry hooks decide finishes at once (§3.7): its
            // parents hear it.
            let entered = match self.enter(leaf) {
                Flow::Done(s) => self.climb(leaf, s),
                flow => flow,
            };
            if entered == Flow::Unwind {
                act = Act::Unwind;
                break;
            }
        }
        let cold = self.cold();
        cold.resume = resume;
        cold.resume.clear();
        act
    }

    /// Saved leaf `leaf` is not to be resumed: it is active already, its parent stopped
    /// running, or a branch on its path was entered after entry serial `began`.
    fn superseded(&self, leaf: u32, began: u32) -> bool {
        let mut n = self.p.recs[leaf as usize].parent;
        if self.running(leaf) || !self.running(n) {
            return true;
        }
        while n != NONE {
            if self.epoch(n) > began {
                return true;
            }
            n = self.p.recs[n as usize].parent;
        }
        false
    }
}
