//! A recorded run, replayed: each agent's node states and context at any step of a trace
//! (a game's, or `arbor run --trace`'s), the events up to it, timeline markers and the
//! next breakpoint hit. The state is derived from the events alone, by the rules the
//! runtime's display snapshot follows ([`crate::runtime::NodeState`]), so a replay shows
//! what the live run showed.

use std::collections::BTreeMap;
use std::sync::Arc;

use foldhash::HashMap;

use super::{Breakpoint, Hit, LoggedKind, Marker, MarkerKind};
use crate::io::{TraceFile, TracedEvent};
use crate::runtime::{CtxValue, NodeStateOf, Status};

/// Steps between two kept states: going to any step replays at most this many steps'
/// events.
pub const REPLAY_CHECKPOINT_EVERY: u64 = 256;

/// What a replay shows of one node of one agent, as of the shown step: what the live
/// run's display snapshot showed, its reason owned.
pub type NodeView = NodeStateOf<Arc<str>>;

/// One agent as of the shown step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentView {
    /// Its nodes, by trace id (a node never named by an event is not here).
    pub nodes: HashMap<Arc<str>, NodeView>,
    /// Its context, by key.
    pub context: BTreeMap<Arc<str>, CtxValue>,
    /// Runs of its tree that completed with success, and with failure.
    pub completed: (u64, u64),
}

impl AgentView {
    /// The state after event `e`, of step `step`.
    fn apply(&mut self, e: &TracedEvent) {
        let step = e.step;
        let node = e
            .node
            .as_ref()
            .map(|id| self.nodes.entry(id.clone()).or_default());
        match (&e.kind, node) {
            (LoggedKind::Enter, Some(n)) => {
                *n = NodeView {
                    status: Status::Running,
                    step,
                    entries: n.entries.saturating_add(1),
                    since: step,
                    reason: None,
                    ..n.clone()
                };
            }
            (LoggedKind::Exit(s, why), Some(n)) => {
                n.status = *s;
                n.step = step;
                n.reason = None;
                match s {
                    Status::Success => n.successes = n.successes.saturating_add(1),
                    Status::Failure => {
                        n.failures = n.failures.saturating_add(1);
                        n.reason = why.clone();
                    }
                    _ => {}
                }
            }
            (LoggedKind::Abort, Some(n)) => {
                n.status = Status::Aborted;
                n.step = step;
                n.reason = None;
                n.aborts = n.aborts.saturating_add(1);
            }
            // A guard is never entered: its check shows as its status, uncounted.
            (LoggedKind::Check(r), Some(n)) => {
                let s = if *r { Status::Success } else { Status::Failure };
                if n.status != s {
                    n.status = s;
                    n.step = step;
                }
            }
            (LoggedKind::Complete(s), _) => {
                match s {
                    Status::Success => self.completed.0 += 1,
                    _ => self.completed.1 += 1,
                }
                // SEMANTICS.md §3.3: a completed run clears the context.
                self.context.clear();
            }
            // §3.5: a missing key resets the tree and clears the context.
            (LoggedKind::ContextMissing(_), _) => self.context.clear(),
            (LoggedKind::Context(key, Some(value)), _) => {
                self.context.insert(key.clone(), CtxValue::from(value));
            }
            (LoggedKind::Context(key, None), _) => {
                self.context.remove(key);
            }
            _ => {}
        }
    }
}

/// A trace being replayed, shown at one step.
pub struct Replay {
    trace: TraceFile,
    /// The shown step.
    at: u64,
    /// The last step the trace records.
    last: u64,
    /// Each agent as of `at`.
    agents: Vec<AgentView>,
    /// The first event after step `at`.
    next: usize,
    /// Kept states: at step `k × REPLAY_CHECKPOINT_EVERY`, the index of the first event
    /// after it and every agent.
    checkpoints: Vec<(usize, Vec<AgentView>)>,
    breakpoints: Vec<Breakpoint>,
    /// Each agent's leaves (the nodes the trace shows executing), and the context keys it
    /// ever holds, in order.
    leaves: Vec<foldhash::HashSet<Arc<str>>>,
    keys: Vec<Vec<Arc<str>>>,
    /// Events appended out of step order, dropped ([`Replay::extend`]).
    dropped: usize,
}

impl Replay {
    /// The replay of `trace`, shown at step 0 (the start's events applied).
    pub fn new(trace: TraceFile) -> Self {
        let last = trace.events.iter().map(|e| e.step).max().unwrap_or(0);
        let n = trace.agents.len();
        let agents = vec![AgentView::default(); n];
        let mut leaves = vec![foldhash::HashSet::default(); n];
        let mut keys: Vec<Vec<Arc<str>>> = vec![Vec::new(); n];
        for e in &trace.events {
            match (&e.kind, &e.node) {
                (LoggedKind::Execute, Some(id)) => {
                    leaves[e.agent].insert(id.clone());
                }
                (LoggedKind::Context(key, _), _) if !keys[e.agent].contains(key) => {
                    keys[e.agent].push(key.clone());
                }
                _ => {}
            }
        }
        let mut r = Self {
            trace,
            at: 0,
            last,
            agents,
            next: 0,
            checkpoints: Vec::new(),
            breakpoints: Vec::new(),
            leaves,
            keys,
            dropped: 0,
        };
        r.apply_through(0);
        r.checkpoints.push((r.next, r.agents.clone()));
        r
    }

    /// The trace replayed.
    pub fn trace(&self) -> &TraceFile {
        &self.trace
    }

    /// Appends events that arrived since (a game sending its run as it goes), in step
    /// order, with `agents` the names they refer to (the names already known first, in
    /// the same places). An event of a step before the last one known is dropped; returns
    /// how many were.
    pub fn extend(
        &mut self,
        agents: &[String],
        events: impl IntoIterator<Item = TracedEvent>,
    ) -> usize {
        for name in agents.iter().skip(self.trace.agents.len()) {
            self.trace.agents.push(name.clone());
            self.agents.push(AgentView::default());
            self.leaves.push(foldhash::HashSet::default());
            self.keys.push(Vec::new());
            for (_, kept) in &mut self.checkpoints {
                kept.push(AgentView::default());
            }
        }
        let mut dropped = 0;
        for e in events {
            if e.step < self.last || e.agent >= self.agents.len() {
                dropped += 1;
                continue;
            }
            match (&e.kind, &e.node) {
                (LoggedKind::Execute, Some(id)) => {
                    self.leaves[e.agent].insert(id.clone());
                }
                (LoggedKind::Context(key, _), _) if !self.keys[e.agent].contains(key) => {
                    self.keys[e.agent].push(key.clone());
                }
                _ => {}
            }
            self.last = e.step;
            self.trace.events.push(e);
        }
        self.dropped += dropped;
        dropped
    }

    /// Events appended out of step order and dropped, in all.
    pub fn dropped(&self) -> usize {
        self.dropped
    }

    /// The shown step.
    pub fn step_number(&self) -> u64 {
        self.at
    }

    /// The last step the trace records.
    pub fn last_step(&self) -> u64 {
        self.last
    }

    /// Each agent's name, in the trace's order.
    pub fn agent_names(&self) -> &[String] {
        &self.trace.agents
    }

    /// Agent `i` as of the shown step.
    pub fn agent(&self, i: usize) -> Option<&AgentView> {
        self.agents.get(i)
    }

    /// Agent `agent`'s running leaves at the shown step (the running nodes the trace shows
    /// executing at some step), by trace id.
    pub fn running_leaves(&self, agent: usize) -> Vec<String> {
        let (Some(a), Some(leaves)) = (self.agents.get(agent), self.leaves.get(agent)) else {
            return Vec::new();
        };
        let mut ids: Vec<String> = a
            .nodes
            .iter()
            .filter(|(id, n)| n.status == Status::Running && leaves.contains(*id))
            .map(|(id, _)| id.to_string())
            .collect();
        ids.sort();
        ids
    }

    /// Agent `agent`'s context at the shown step: each key it holds at some step of the
    /// trace, in the order first stored, with its value in words and whether it changed in
    /// the shown step.
    pub fn context_rows(&self, agent: usize) -> Vec<super::ContextRow> {
        let (Some(a), Some(keys)) = (self.agents.get(agent), self.keys.get(agent)) else {
            return Vec::new();
        };
        let now = self.events_between(self.at, self.at);
        keys.iter()
            .map(|key| super::ContextRow {
                key: key.to_string(),
                value: a.context.get(key).map(ToString::to_string),
                written: now.iter().any(|e| {
                    e.agent == agent && matches!(&e.kind, LoggedKind::Context(k, _) if k == key)
                }),
            })
            .collect()
    }

    /// The events of steps `from..=to`, in order (the start's, step 0, included with 0).
    pub fn events_between(&self, from: u64, to: u64) -> &[TracedEvent] {
        let events = &self.trace.events;
        let a = events.partition_point(|e| e.step < from);
        let b = events.partition_point(|e| e.step <= to);
        &events[a..b.max(a)]
    }

    /// Applies the events of every step up to and including `k`.
    fn apply_through(&mut self, k: u64) {
        while let Some(e) = self.trace.events.get(self.next) {
            if e.step > k {
                break;
            }
            if let Some(a) = self.agents.get_mut(e.agent) {
                a.apply(e);
            }
            self.next += 1;
        }
        self.at = k;
    }

    /// Shows step `k` (at most the last step): from the kept state before it.
    pub fn seek(&mut self, k: u64) {
        let k = k.min(self.last);
        if k < self.at {
            let c = ((k / REPLAY_CHECKPOINT_EVERY) as usize).min(self.checkpoints.len() - 1);
            let (next, agents) = self.checkpoints[c].clone();
            self.next = next;
            self.agents = agents;
            self.at = c as u64 * REPLAY_CHECKPOINT_EVERY;
        }
        while self.at < k {
            let to = (self.at / REPLAY_CHECKPOINT_EVERY + 1) * REPLAY_CHECKPOINT_EVERY;
            let stop = to.min(k);
            self.apply_through(stop);
            if stop == to && self.checkpoints.len() as u64 == to / REPLAY_CHECKPOINT_EVERY {
                self.checkpoints.push((self.next, self.agents.clone()));
            }
        }
    }

    /// Shows the next step; false at the last.
    pub fn step(&mut self) -> bool {
        if self.at >= self.last {
            return false;
        }
        self.seek(self.at + 1);
        true
    }

    /// The breakpoints.
    pub fn breakpoints(&self) -> &[Breakpoint] {
        &self.breakpoints
    }

    /// Replaces every breakpoint.
    pub fn set_breakpoints(&mut self, list: Vec<Breakpoint>) {
        self.breakpoints = list;
    }

    /// The first breakpoint hit after the shown step, if any.
    pub fn next_hit(&self) -> Option<Hit> {
        self.trace.events[self.next..].iter().find_map(|e| {
            let node = e.node.as_deref()?;
            self.breakpoints
                .iter()
                .find(|b| b.node == node && b.on.matches(&e.kind))
                .map(|b| Hit {
                    step: e.step,
                    agent: e.agent,
                    breakpoint: b.clone(),
                })
        })
    }

    /// Goes to the next breakpoint hit (Continue), or to the last step when none hits;
    /// returns the hit.
    pub fn continue_to_hit(&mut self) -> Option<Hit> {
        let hit = self.next_hit();
        self.seek(hit.as_ref().map_or(self.last, |h| h.step));
        hit
    }

    /// The timeline's markers over the whole trace, by step.
    pub fn markers(&self) -> Vec<Marker> {
        let mut out: Vec<Marker> = Vec::new();
        for e in &self.trace.events {
            if let Some(kind) = MarkerKind::of(&e.kind) {
                let m = Marker {
                    step: e.step,
                    agent: e.agent,
                    kind,
                };
                if out.last() != Some(&m) {
                    out.push(m);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::parse_trace;

    fn replay(text: &str) -> Replay {
        match parse_trace(text.as_bytes(), std::path::Path::new("t.jsonl")) {
            Ok(t) => Replay::new(t),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn states_follow_the_events_and_seeking_back_gives_the_same_state() {
        let mut lines = String::new();
        for step in 0..1000u64 {
            lines += &format!(
                "{{\"step\":{step},\"agent\":\"a\",\"event\":\"enter\",\"node\":\"x\"}}\n{{\"step\":{step},\"agent\":\"a\",\"event\":\"exit\",\"node\":\"x\",\"status\":\"failure\",\"reason\":\"no path\"}}\n"
            );
        }
        let mut r = replay(&lines);
        r.seek(700);
        let Some(at_700) = r.agent(0).cloned() else {
            panic!("one agent");
        };
        let x = &at_700.nodes[&Arc::from("x")];
        assert_eq!((x.entries, x.failures, x.step), (701, 701, 700));
        assert_eq!(x.reason.as_deref(), Some("no path"));
        r.seek(999);
        r.seek(3);
        r.seek(700);
        assert_eq!(r.agent(0), Some(&at_700), "seeking back and forth");
    }
}
