//! Services (SEMANTICS.md §3.2.1): the action leaves on a composite's `services` input. A
//! service runs when its composite is entered, then in phase 1b of each later step in
//! which the composite runs, once `interval` seconds have passed since it last ran. It
//! never reports to its composite; when the composite finishes or is aborted, a service
//! still running is aborted with it.

use crate::runtime::node::{EPS, Run};
use crate::runtime::program::{HAS_WRITES, NONE};
use crate::runtime::trace::EventKind;

use super::{Exec, Flow, Watch};

impl<'o, A, H: Watch> Exec<'_, 'o, A, H> {
    /// Phase 1b: the services that are due, of the running composites, in tree order. A
    /// main tree suspended by an Interrupt runs none.
    #[inline(never)]
    pub(super) fn services(&mut self, dt: f64) -> Flow {
        let p = self.p;
        let interrupt = self.st.interrupt();
        let step = self.st.step();
        for &c in &p.hosts {
            if !self.running(c) {
                continue;
            }
            if interrupt != NONE && !(interrupt..p.recs[interrupt as usize].end).contains(&c) {
                continue;
            }
            let (s0, services) = p.services_of(c);
            for (i, s) in services.iter().enumerate() {
                let at = s0 as usize + i;
                let clock = &mut self.cold().services[at];
                if clock.step == step {
                    // Its composite was entered in this step's phase 1: it ran then.
                    continue;
                }
                clock.since += dt;
                if clock.since < s.interval - EPS {
                    continue;
                }
                let since = clock.since;
                if !self.run_service(at, s.node, since) {
                    return Flow::Unwind;
                }
            }
        }
        Flow::Running
    }

    /// Composite `c` is entered: its services run, in slot order. False when a missing key
    /// reset the tree.
    #[inline(never)]
    pub(super) fn start_services(&mut self, c: u32) -> bool {
        let p = self.p;
        let (s0, services) = p.services_of(c);
        for (i, s) in services.iter().enumerate() {
            if !self.run_service(s0 as usize + i, s.node, 0.0) {
                return false;
            }
        }
        true
    }

    /// Composite `c` finishes: its services still running are aborted, last first.
    #[inline(never)]
    pub(super) fn stop_services(&mut self, c: u32) {
        let p = self.p;
        let (_, services) = p.services_of(c);
        for s in services.iter().rev() {
            self.abort_node(s.node);
        }
    }

    /// Service `n`, the `at`-th of the program's, runs: it starts unless it is still
    /// running from an earlier run (its input, `enter`, `on_enter`), then executes once
    /// with `dt`, the seconds since it last ran; if that finishes it, it exits and writes
    /// its out-context. False when its input's key was missing and the tree was reset.
    fn run_service(&mut self, at: usize, n: u32, dt: f64) -> bool {
        let step = self.st.step();
        let clock = &mut self.cold().services[at];
        clock.since = 0.0;
        clock.step = step;
        let p = self.p;
        let info = p.leaf(n);
        if !self.running(n) && !self.start_leaf(n) {
            return false;
        }
        if H::ON {
            self.emit(n, EventKind::Execute);
        }
        let mut io = self.st.leaf_io::<A, true>(info);
        let mut outcome = self.block.execute(&info.calls, self.agent, &mut io, dt);
        if info.has(HAS_WRITES) {
            outcome = self.store_writes(n, outcome);
        }
        if let Some(status) = self.leaf_outcome::<true>(info, outcome, dt) {
            self.stop_leaf::<true>(n, info, status);
        }
        true
    }
}
