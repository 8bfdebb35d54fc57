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

use std::sync::Arc;

use arbor::model::{
    Catalog, Category, FieldSpec, FieldType, KindSpec, NoAssets, Node, NodeId, Port, Tree, Value,
};
use arbor::runtime::{Action, Behaviours, CondIo, Condition, LeafIo, Outcome, Program};

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

/// Workload W's tree (Root over the 31-node tree), compiled with its two kinds.
pub fn program() -> Arc<Program<Agent>> {
    let mut catalog = Catalog::builtin();
    let int =
        |name: &str| FieldSpec::new(name, FieldType::Int { min: 0, max: 10 }, Value::Int(0), "");
    catalog
        .register(KindSpec::new(
            "Work",
            Category::Leaf,
            "",
            vec![int("seq"), int("act")],
        ))
        .unwrap();
    catalog
        .register(KindSpec::new(
            "Check",
            Category::Condition,
            "",
            vec![int("seq"), int("which")],
        ))
        .unwrap();
    let mut behaviours = Behaviours::<Agent>::empty();
    behaviours.action("Work", |spec| {
        let (seq, act) = (
            spec.number("seq").unwrap() as u32,
            spec.number("act").unwrap() as u32,
        );
        Ok(Work { seq, act })
    });
    behaviours.condition("Check", |spec| {
        let (seq, which) = (
            spec.number("seq").unwrap() as u32,
            spec.number("which").unwrap() as u32,
        );
        Ok(Check { seq, which })
    });
    let mut root = Node::new("root", "Root");
    root.inputs.insert(Port::Child, vec![NodeId::new("select")]);
    let mut select = Node::new("select", "Selector");
    let mut nodes = Vec::new();
    for s in 0..SEQS {
        let mut seq = Node::new(format!("seq{s}"), "Sequence");
        let mut guards = Vec::new();
        for w in 0..2 {
            let mut c = Node::new(format!("c{s}{w}"), "Check");
            c.fields.insert("seq".into(), Value::Int(s.into()));
            c.fields.insert("which".into(), Value::Int(w.into()));
            guards.push(c.id.clone());
            nodes.push(c);
        }
        let mut acts = Vec::new();
        for a in 0..ACTS {
            let mut w = Node::new(format!("a{s}{a}"), "Work");
            w.fields.insert("seq".into(), Value::Int(s.into()));
            w.fields.insert("act".into(), Value::Int(a.into()));
            acts.push(w.id.clone());
            nodes.push(w);
        }
        seq.inputs.insert(Port::Conditions, guards);
        seq.inputs.insert(Port::Children, acts);
        select
            .inputs
            .entry(Port::Children)
            .or_default()
            .push(seq.id.clone());
        nodes.push(seq);
    }
    nodes.insert(0, select);
    nodes.insert(0, root);
    let tree = Tree::from_nodes(nodes).unwrap();
    assert_eq!(tree.len(), 32, "Root + the 31-node workload tree");
    Arc::new(Program::compile(&tree, &catalog, &NoAssets, &behaviours).unwrap())
}
