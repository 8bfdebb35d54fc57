//! An action leaf's part of the lifecycle (SEMANTICS.md §3.1, §3.2): it starts (its input,
//! `on_enter`), its outcome after `on_execute` (with its `max_duration`), it exits (`on_exit`,
//! its out-context) or hands over to its next sibling, and it is aborted. It calls the
//! action with the I/O its compiled `LeafInfo` describes; the kind's own module,
//! `kinds/leaf.rs`, holds what the compiler reads from a leaf and what it keeps.

use crate::runtime::Status;
use crate::runtime::behaviour::Outcome;
use crate::runtime::kinds::Kind;
use crate::runtime::kinds::leaf::MAX_DURATION;
use crate::runtime::node::{Act, EPS, Run};
use crate::runtime::program::{HAS_IO, HAS_TIMER, LeafInfo, NONE};
use crate::runtime::trace::EventKind;

use super::{Exec, Watch};

/// The reason of an action that wrote a key a value of another type.
const NOT_ITS_TYPE: &str = "a value it wrote does not fit its key's type";

impl<'o, A, H: Watch> Exec<'_, 'o, A, H> {
    /// Action leaf `n` is entered: it starts (a missing key for its input resets the tree)
    /// and is active from now on; it executes from the next step.
    #[inline(always)]
    pub(crate) fn enter_leaf(&mut self, n: u32) -> Act {
        if !self.start_leaf(n) {
            return Act::Unwind;
        }
        self.activate(n);
        Act::Running
    }

    /// Leaf `n` starts: its input, its `enter`, `on_enter`; all but making it active. False
    /// when its input's key is missing (the tree was reset).
    #[inline(always)]
    pub(super) fn start_leaf(&mut self, n: u32) -> bool {
        let p = self.p;
        let info = p.leaf(n);
        if info.has(HAS_IO | HAS_TIMER) && !self.again().enter_io(n, info) {
            return false;
        }
        self.mark_entered(info.ri);
        self.set_status(n, Status::Running);
        self.emit(n, EventKind::Enter);
        self.call_action::<_, true>(info, |actions, agent, io| {
            actions.enter(&info.calls, agent, io)
        });
        true
    }

    /// Leaf `n`'s entry, for a leaf with an input, an output or a `max_duration`: fetches its
    /// input (false, the tree reset, when its key is missing), forgets what it produced
    /// before, starts its timer.
    #[inline(never)]
    fn enter_io(&mut self, n: u32, info: &LeafInfo<A>) -> bool {
        let input = match self.p.recs[n as usize].kind {
            Kind::Leaf(leaf) => leaf.input,
            _ => None,
        };
        let value = match input {
            Some(k) => match self.context().get(k) {
                Some(v) => Some(v.clone()),
                None => {
                    self.context_missing(n, k);
                    return false;
                }
            },
            None => None,
        };
        if info.input_at != 0 {
            self.set_input(info.input_at, value);
        }
        if info.output_at != 0 {
            self.take_produced(info.output_at);
        }
        if info.timer_at != NONE {
            *self.timer_at_mut(info.timer_at) = 0.0;
        }
        true
    }

    /// What leaf `info` describes does after `on_execute` returned `outcome`: `Some` when it
    /// finished (it returned so, or it ran for its `max_duration`). `EXTRAS` false: it has
    /// no `max_duration` (see [`Exec::check_and_execute`]).
    #[inline(always)]
    pub(super) fn leaf_outcome<const EXTRAS: bool>(
        &mut self,
        info: &LeafInfo<A>,
        outcome: Outcome,
        dt: f64,
    ) -> Option<Status> {
        // The reason of a failure goes to the leaf's `exit` event (see `stop_leaf`).
        match outcome {
            Outcome::Running => {}
            Outcome::Success => {
                self.set_reason(None);
                return Some(Status::Success);
            }
            Outcome::Failure => {
                self.set_reason(None);
                return Some(Status::Failure);
            }
            Outcome::FailureBecause(why) => {
                self.set_reason(Some(why));
                return Some(Status::Failure);
            }
        }
        if !(EXTRAS && info.has(HAS_TIMER)) {
            // No `max_duration`.
            return None;
        }
        let timer = self.timer_at_mut(info.timer_at);
        *timer += dt;
        if *timer < info.max_duration - EPS {
            return None;
        }
        self.set_reason(Some(MAX_DURATION));
        Some(Status::Failure)
    }

    /// Leaf `n`, which `info` describes, stops with success or failure: it is not active any
    /// more; `on_exit`, its out-context, its `exit` event. `EXTRAS` false: it has no extras
    /// (see [`Exec::check_and_execute`]).
    #[inline(always)]
    pub(super) fn exit_leaf<const EXTRAS: bool>(
        &mut self,
        n: u32,
        info: &LeafInfo<A>,
        status: Status,
    ) {
        self.deactivate(n);
        self.stop_leaf::<EXTRAS>(n, info, status);
    }

    /// Leaf `from` finished with `status`, and its parent enters its next child, leaf `to`:
    /// `from` exits and `to` is entered, `to` taking `from`'s place among the active leaves.
    /// `EXTRAS` false: `from` has no extras (see [`Exec::check_and_execute`]).
    #[inline]
    pub(super) fn hand_over<const EXTRAS: bool>(
        &mut self,
        from: u32,
        info: &LeafInfo<A>,
        status: Status,
        to: u32,
    ) {
        self.stop_leaf::<EXTRAS>(from, info, status);
        self.replace_active(from, to);
        // A missing key resets the tree (and starts it again) from within: nothing is left.
        self.start_leaf(to);
    }

    /// [`Exec::exit_leaf`] but for the active leaves: `on_exit`, the out-context, the `exit`
    /// event, of leaf `n`, which `info` describes, with the reason `outcome` noted for a
    /// failure.
    #[inline(always)]
    pub(super) fn stop_leaf<const EXTRAS: bool>(
        &mut self,
        n: u32,
        info: &LeafInfo<A>,
        status: Status,
    ) {
        self.call_action::<_, EXTRAS>(info, |actions, agent, io| {
            actions.exit(&info.calls, agent, io, status)
        });
        if EXTRAS && info.output_at != 0 {
            self.again().write_output(n, info);
        }
        let reason = self.take_reason().filter(|_| status == Status::Failure);
        self.finish_because(n, status, reason);
    }

    /// What leaf `n`, which has `out_context`, produced goes into the context as it exits.
    #[inline(never)]
    fn write_output(&mut self, n: u32, info: &LeafInfo<A>) {
        let Kind::Leaf(leaf) = self.p.recs[n as usize].kind else {
            return;
        };
        if let Some(k) = leaf.output
            && let Some(v) = self.take_produced(info.output_at)
            && (leaf.overwrite || self.context().get(k).is_none())
        {
            self.store(n, k, v);
        }
    }

    /// What leaf `n`'s action set and cleared as it executed (`LeafIo::write`) goes into
    /// the context, in order, each value made its key's type (SEMANTICS.md §3.1): the
    /// action's `outcome`, or a failure when a value does not fit its key, and then
    /// nothing is stored (nor what it produced for its `out_context`).
    #[inline(never)]
    pub(super) fn store_writes(&mut self, n: u32, outcome: Outcome) -> Outcome {
        let p = self.p;
        let mut writes = std::mem::take(&mut self.cold().writes);
        let fits = self.commit(n, &mut writes);
        self.cold().writes = writes;
        if fits {
            return outcome;
        }
        // Nothing of it is stored: not what it produced for its out-context either.
        let output_at = p.leaf(n).output_at;
        if output_at != 0 {
            self.take_produced(output_at);
        }
        Outcome::FailureBecause(NOT_ITS_TYPE)
    }

    /// Running leaf `n` is aborted (`abort_node`, whose status then says so) or halted by its
    /// `_while` (`while_ended`): it is not active any more, gets `on_exit(aborted)`, and
    /// what it produced is dropped.
    pub(super) fn abort_leaf(&mut self, n: u32) {
        let p = self.p;
        let info = p.leaf(n);
        self.deactivate(n);
        self.call_action::<_, true>(info, |actions, agent, io| {
            actions.exit(&info.calls, agent, io, Status::Aborted)
        });
        if info.output_at != 0 {
            self.take_produced(info.output_at);
        }
    }
}
