//! Workload W's agent and its rules (issue #3): a Selector over 5 Sequences, each guarded
//! by 2 conditions that read the agent's state and running 3 actions of 3–7 steps. Shared
//! by `benches/runtime.rs` and the C ABI's `ffi/benches/ffi.rs`.

#![allow(dead_code, missing_docs)]

/// Sequences under the Selector.
pub const SEQS: u32 = 5;
/// Actions in each Sequence.
pub const ACTS: u32 = 3;
/// Seconds a step.
pub const DT: f64 = 0.1;
/// Steps a run of the workload takes.
pub const STEPS: usize = 100;

/// Agents in the workload: 10,000 (W; 200 in a debug build, which `cargo test
/// --all-targets` runs once as a smoke test), or `ARBOR_BENCH_AGENTS` to see how the
/// figures change once everything fits in cache.
pub fn agents() -> usize {
    std::env::var("ARBOR_BENCH_AGENTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) { 200 } else { 10_000 })
}

use arbor::runtime::{Action, CondIo, Condition, LeafIo, Outcome};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Agent {
    pub id: u32,
    pub state: [u32; 3],
    pub done: u64,
}

impl Agent {
    pub fn new(id: usize) -> Self {
        let id = id as u32;
        Self {
            id,
            state: [id % 7, id % 5, id % 11],
            done: 0,
        }
    }

    pub fn duration(&self, seq: u32, act: u32) -> u32 {
        3 + (self.id + seq * ACTS + act) % 5
    }

    /// Condition `which` (0 or 1) guarding sequence `seq`. The last sequence's guards always
    /// hold, so the Selector always finds a sequence to run (no stalls on either side).
    pub fn check(&self, seq: u32, which: u32) -> bool {
        if seq == SEQS - 1 {
            self.state[0] != u32::MAX
        } else if which == 0 {
            self.state[(seq % 3) as usize] % 7 != 6
        } else {
            self.state[((seq + 1) % 3) as usize] % 5 != 4
        }
    }

    pub fn effect(&mut self, seq: u32, act: u32) {
        let slot = ((seq + act) % 3) as usize;
        self.state[slot] = self.state[slot].wrapping_add(1 + act);
        self.done += 1;
    }
}

/// Workload W's action: `act` of sequence `seq`, done after its duration.
pub struct Work {
    pub seq: u32,
    pub act: u32,
}

impl Action<Agent> for Work {
    /// Steps executed since entry.
    type Memory = u32;

    fn on_enter(&self, elapsed: &mut u32, _: &mut Agent, _: &mut LeafIo<'_>) {
        *elapsed = 0;
    }
    fn on_execute(
        &self,
        elapsed: &mut u32,
        agent: &mut Agent,
        _: &mut LeafIo<'_>,
        _: f64,
    ) -> Outcome {
        *elapsed += 1;
        if *elapsed >= agent.duration(self.seq, self.act) {
            agent.effect(self.seq, self.act);
            Outcome::Success
        } else {
            Outcome::Running
        }
    }
}

/// Workload W's condition: guard `which` of sequence `seq`.
pub struct Check {
    pub seq: u32,
    pub which: u32,
}

impl Condition<Agent> for Check {
    fn check(&self, agent: &mut Agent, _: &CondIo<'_>) -> bool {
        agent.check(self.seq, self.which)
    }
}
