//! Aborting (in the exact reverse of tree order), resetting, a missing context key and a
//! stall (SEMANTICS.md §3.2, §3.5, §3.6).

use crate::runtime::Status;
use crate::runtime::behaviour::KeyId;
use crate::runtime::node::Run;
use crate::runtime::state::{last_byte, running_window};
use crate::runtime::trace::{Event, EventKind, Reason};

use super::{Exec, Flow, Watch};

impl<'o, A, H: Watch> Exec<'_, 'o, A, H> {
    pub(crate) fn abort_node(&mut self, n: u32) {
        if !self.running(n) {
            return;
        }
        self.set_status(n, Status::Aborted);
        if self.p.recs[n as usize].kind.is_leaf() {
            self.abort_leaf(n);
        }
        if !self.p.hook_of.is_empty() {
            self.status_hooks(n, Status::Aborted);
        }
        self.emit(n, EventKind::Abort);
    }

    /// Aborts the running nodes in `from..end`, deepest first. Aborting a node changes no
    /// other status, so the statuses are read once, eight at a time.
    pub(crate) fn abort_range(&mut self, from: u32, end: u32) {
        let (from, mut end) = (from as usize, end as usize);
        while end > from {
            let (base, mut running) = running_window(self.block.status(), from, end);
            while running != 0 {
                let k = last_byte(running);
                running &= !(0x80 << (8 * k));
                self.abort_node((base + k) as u32);
            }
            end = base.max(from);
        }
    }

    pub(crate) fn abort_below(&mut self, n: u32) {
        self.abort_range(n + 1, self.p.recs[n as usize].end);
    }

    pub(super) fn abort_all(&mut self) {
        self.abort_range(0, self.p.len() as u32);
        self.st.forget_interrupt();
    }

    pub(crate) fn reset_range(&mut self, from: u32, end: u32) {
        self.block.status_mut()[from as usize..end as usize].fill(Status::Idle);
    }

    pub(super) fn reset_all(&mut self) {
        self.reset_range(0, self.p.len() as u32);
        self.st.clear_active();
    }

    #[inline]
    pub(super) fn clear_context(&mut self) {
        // A tree without context keys has nothing to clear (and its cold block stays cold).
        if !self.p.keys.is_empty() {
            self.clear_keys();
        }
    }

    /// [`Exec::clear_context`] of a tree with context keys, out of the way of one without.
    #[inline(never)]
    pub(super) fn clear_keys(&mut self) {
        let p = self.p;
        let cold = self.cold();
        cold.context.reseed(p, &cold.seeds);
        self.show_defaults();
    }

    /// A watched step tells the observer each value the context holds after it was cleared
    /// back to its defaults (or at the start): a `context` event naming Root per key, so a
    /// trace carries the defaults too (SEMANTICS.md §5).
    pub(super) fn show_defaults(&mut self) {
        if !H::ON || self.obs.is_none() || self.p.seeds.is_empty() && self.st.no_agent_seeds() {
            return;
        }
        for key in 0..self.p.keys.len() {
            let key = key as KeyId;
            if let Some(v) = self.st.context().get(key)
                && let Some(o) = self.obs.as_deref_mut()
            {
                o.event(&Event {
                    step: self.st.step(),
                    node: Some(0),
                    node_id: &self.p.names[0],
                    kind: EventKind::Context(&self.p.keys[usize::from(key)], Some(v.as_event())),
                });
            }
        }
    }

    pub(crate) fn context_missing(&mut self, n: u32, key: KeyId) -> Flow {
        self.st.count_context_missing();
        if H::ON
            && let Some(o) = self.obs.as_deref_mut()
        {
            let name = self
                .p
                .keys
                .get(usize::from(key))
                .map(String::as_str)
                .unwrap_or("");
            o.event(&Event {
                step: self.st.step(),
                node: Some(n),
                node_id: &self.p.names[n as usize],
                kind: EventKind::ContextMissing(name),
            });
        }
        self.abort_all();
        self.reset_all();
        self.clear_context();
        if self.word(0) == self.st.step() {
            return self.stall(0);
        }
        self.emit(0, EventKind::Restart(Reason::ContextMissing));
        self.enter(0);
        Flow::Unwind
    }

    pub(crate) fn stall(&mut self, n: u32) -> Flow {
        self.emit(n, EventKind::Stall);
        self.abort_all();
        self.reset_all();
        self.st.stall();
        Flow::Unwind
    }
}
