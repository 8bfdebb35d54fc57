//! The debugging core: a simulation run step by step, with breakpoints, each agent's
//! events, markers for the timeline and the run's history to go back to. No egui: the
//! editor draws a [`Session`]; tests and `arbor run --break` drive it.
//!
//! A run is a function of its tree, scenario, seed, dt and the triggers given, so the
//! session keeps only a copy of the whole simulation every [`CHECKPOINT_EVERY`] steps (at
//! most [`MAX_CHECKPOINTS`] copies: past that, every other copy goes and the spacing doubles)
//! and
//! the triggers; any past step is rebuilt by stepping a copy on from the checkpoint
//! before it. Going forward from a past step replays the same future; a trigger given at
//! a past step starts a new future from there (the old one is dropped).

use std::collections::VecDeque;
use std::sync::Arc;

use crate::runtime::{CtxValue, Event, Instance, Observer, Outcome, Program, Reason, Status};
use crate::world::{Simulation, Trigger, World};

mod breakpoints;
mod debugger;
mod game;
mod history;
mod log;
mod replay;
mod source;
mod start;
pub use breakpoints::{BreakOn, Breakpoint, Breakpoints};
pub use debugger::{
    DT, Debugger, Inside, Light, Live, LiveStart, SAMPLE_SCENARIO, SPEEDS, TreeSource,
};
pub use game::{Forced, GameBreakpoint, GameCommand, GameForce, GameRow, GameTrigger};
pub use history::{KEY_HISTORY_KEEP, KeyChange, KeyHistory, KeyWrite};
pub use log::{Logged, LoggedKind, describe, failure_words, is_trouble};
pub use replay::{
    AgentView, EventWindow, NodeView, REPLAY_CHECKPOINT_EVENTS, REPLAY_CHECKPOINT_EVERY, Replay,
};
pub use source::{ContextRow, KnownKey, Replayed, Source, Titles};
pub use start::{RunFrom, parse_break};

/// Steps between two kept copies of the run at first: going to any step replays at most
/// this many (and the event log's steps).
pub const CHECKPOINT_EVERY: u64 = 128;

/// The most copies kept: a longer run thins them out (every other one goes and the
/// spacing doubles), so the history's memory stays bounded however long the run.
pub const MAX_CHECKPOINTS: usize = 2048;

/// How many steps of events the session keeps before the shown step (the event log).
pub const LOG_STEPS: u64 = 128;

/// The most steps "run until something changes" takes before it gives up.
pub const UNTIL_CHANGE_LIMIT: u64 = 10_000;

/// Why the run stopped at a step.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    /// The step.
    pub step: u64,
    /// The agent (index in scenario order).
    pub agent: usize,
    /// The breakpoint.
    pub breakpoint: Breakpoint,
}

/// What a timeline marker marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MarkerKind {
    /// An Interrupt started.
    Interrupt,
    /// A run of the tree failed.
    Failure,
    /// The tree stalled.
    Stall,
    /// A context key was missing.
    ContextMissing,
    /// A breakpoint stopped the run.
    Breakpoint,
}

impl MarkerKind {
    /// The marker an event of `kind` puts on the timeline, if any (a breakpoint's is
    /// put by its hit).
    fn of(kind: &LoggedKind) -> Option<Self> {
        Some(match kind {
            LoggedKind::Interrupt(_) => MarkerKind::Interrupt,
            LoggedKind::Complete(Status::Failure) => MarkerKind::Failure,
            LoggedKind::Stall => MarkerKind::Stall,
            LoggedKind::ContextMissing(_) => MarkerKind::ContextMissing,
            _ => return None,
        })
    }
}

/// A mark on the timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Marker {
    /// The step.
    pub step: u64,
    /// The agent (index in scenario order).
    pub agent: usize,
    /// What happened.
    pub kind: MarkerKind,
}

/// A result forced on a stand-in node: set before step `step` is taken.
#[derive(Clone, Debug, PartialEq)]
struct GivenForce {
    step: u64,
    tree: std::path::PathBuf,
    id: String,
    outcome: Option<Outcome>,
}

/// A simulation being debugged: the state at the shown step, the history behind it and the
/// recent events. The breakpoints are the caller's, given to each step.
pub struct Session {
    dt: f64,
    /// The state at step `at`.
    current: Simulation,
    /// The step shown.
    at: u64,
    /// The furthest step run so far.
    head: u64,
    /// Copies of the run at steps 0, `every`, 2 × `every` …, up to `head`.
    checkpoints: Vec<Simulation>,
    /// Steps between two copies: [`CHECKPOINT_EVERY`], doubled each time the copies are
    /// thinned out.
    every: u64,
    /// The most copies kept.
    max_checkpoints: usize,
    triggers: Vec<Trigger>,
    /// Results forced on stand-in nodes, by the step before which they were given.
    forced: Vec<GivenForce>,
    /// The agents the breakpoints stop (`None`: every one).
    breaking: Option<Vec<bool>>,
    markers: Vec<Marker>,
    /// Whether markers are kept for the timeline.
    timeline: bool,
    /// The events of the steps up to `at` (at most [`LOG_STEPS`] of them), oldest first.
    events: VecDeque<Logged>,
    /// Each agent's name, in scenario order.
    names: Vec<String>,
    /// Each agent's program (for its node ids), in scenario order.
    programs: Vec<Arc<Program<World>>>,
    /// For each agent, the context keys whose value changed in the shown step.
    written: Vec<Vec<usize>>,
    /// For each agent, each node's counts over steps 1 to the newest (View > Coverage).
    counts: Vec<Vec<crate::runtime::Counts>>,
    /// The history of the key followed ([`Session::follow`]), if one is.
    followed: Option<KeyHistory>,
}

/// Collects one step's events.
struct Collect<'n> {
    names: &'n [String],
    agent: usize,
    out: Vec<Logged>,
}

impl Observer for Collect<'_> {
    fn agent(&mut self, name: &str) {
        self.agent = self.names.iter().position(|n| n == name).unwrap_or(0);
    }

    fn event(&mut self, e: &Event<'_>) {
        self.out.push(Logged {
            step: e.step,
            agent: self.agent,
            node: e.node,
            kind: e.kind.map(|t| Arc::from(*t)),
        });
    }
}

impl Session {
    /// A session at step 0 of `sim`, stepping by `dt` seconds.
    pub fn new(sim: Simulation, dt: f64) -> Self {
        Self::with_history(sim, dt, CHECKPOINT_EVERY, MAX_CHECKPOINTS)
    }

    /// A session that only goes forward (`arbor run --break`): no copies to go back to, no
    /// timeline markers, so its memory stays the same however long it runs.
    pub fn forward_only(sim: Simulation, dt: f64) -> Self {
        let mut s = Self::with_history(sim, dt, u64::MAX, 2);
        s.timeline = false;
        s
    }

    /// A session that keeps a copy every `every` steps, at most `max` copies (at least 2).
    pub fn with_history(sim: Simulation, dt: f64, every: u64, max: usize) -> Self {
        let names: Vec<String> = sim.agents().map(|a| a.name.clone()).collect();
        let programs: Vec<Arc<Program<World>>> = names
            .iter()
            .filter_map(|n| sim.instance(n).map(|i| i.program().clone()))
            .collect();
        let counts = programs
            .iter()
            .map(|p| vec![crate::runtime::Counts::default(); p.len()])
            .collect();
        Self {
            dt,
            checkpoints: vec![sim.clone()],
            every: every.max(1),
            max_checkpoints: max.max(2),
            current: sim,
            at: 0,
            head: 0,
            triggers: Vec::new(),
            forced: Vec::new(),
            breaking: None,
            markers: Vec::new(),
            timeline: true,
            events: VecDeque::new(),
            written: Vec::new(),
            names,
            programs,
            counts,
            followed: None,
        }
    }

    /// The simulation as of the shown step.
    pub fn sim(&self) -> &Simulation {
        &self.current
    }

    /// The shown step.
    pub fn step_number(&self) -> u64 {
        self.at
    }

    /// The furthest step run so far (the end of the timeline).
    pub fn head(&self) -> u64 {
        self.head
    }

    /// Seconds per step.
    pub fn dt(&self) -> f64 {
        self.dt
    }

    /// Each agent's name, in scenario order.
    pub fn agent_names(&self) -> &[String] {
        &self.names
    }

    /// The tree instance of agent `agent` (in scenario order) at the shown step.
    pub fn instance(&self, agent: usize) -> Option<&Instance<World>> {
        self.names.get(agent).and_then(|a| self.sim().instance(a))
    }

    /// The events of the last steps up to the shown one, oldest first (all agents).
    pub fn events(&self) -> impl DoubleEndedIterator<Item = &Logged> {
        self.events.iter()
    }

    /// The timeline's markers, by step.
    pub fn markers(&self) -> &[Marker] {
        &self.markers
    }

    /// The triggers given so far, by step.
    pub fn triggers(&self) -> &[Trigger] {
        &self.triggers
    }

    /// Which agents the breakpoints stop, by place (`None`: every one). A breakpoint names
    /// a node of one tree; agents that run another tree may have a node of that id too.
    pub fn set_breaking(&mut self, agents: Option<Vec<bool>>) {
        self.breaking = agents;
    }

    /// How many copies of the run the history keeps, and the steps between them.
    pub fn checkpoints(&self) -> (usize, u64) {
        (self.checkpoints.len(), self.every)
    }

    /// Bytes the history keeps, roughly (the checkpoints and the event log).
    pub fn history_bytes(&self) -> usize {
        let one = |s: &Simulation| s.heap_bytes() + std::mem::size_of::<Simulation>();
        self.checkpoints.iter().map(one).sum::<usize>()
            + one(&self.current)
            + self.events.len() * std::mem::size_of::<Logged>()
            + self.markers.len() * std::mem::size_of::<Marker>()
    }

    /// Queues a trigger before the next step. Given at a past step, it starts a new
    /// future from the shown step: the steps after it are dropped from the history.
    /// Returns how many agents it was queued for (0: no agent has that Interrupt).
    pub fn trigger(&mut self, agent: Option<&str>, id: &str, payload: Option<&str>) -> usize {
        let wanted = self
            .current
            .agents()
            .filter(|a| agent.is_none_or(|n| n == a.name))
            .filter(|a| {
                self.current
                    .instance(&a.name)
                    .is_some_and(|i| i.program().interrupt_ids().any(|x| x == id))
            })
            .count();
        if wanted == 0 {
            return 0;
        }
        self.truncate_future();
        self.triggers.push(Trigger {
            step: self.at + 1,
            agent: agent.map(str::to_owned),
            id: id.to_owned(),
            payload: payload.map(str::to_owned),
        });
        wanted
    }

    /// `fresh` (a session at step 0 of the same world running an edited tree) taken to
    /// step `k` as this run went there: with the triggers and forced results this run was
    /// given at steps up to `k`, at the same steps (the same seed and dt are the caller's).
    pub fn replay_onto(&self, mut fresh: Session, k: u64) -> Session {
        fresh.triggers = self
            .triggers
            .iter()
            .filter(|t| t.step <= k)
            .cloned()
            .collect();
        fresh.forced = self
            .forced
            .iter()
            .filter(|f| f.step <= k)
            .cloned()
            .collect();
        fresh.seek(k);
        fresh
    }

    /// Forces the stand-in node `id` (its trace id) of the tree file `tree` to report
    /// `outcome` from the next step on (`None`: its script again), for the rest of the
    /// run. Given at a past step, it starts a new future from the shown step, as a trigger
    /// does. False when that tree has no such stand-in (or a condition is asked to keep
    /// running).
    pub fn force(&mut self, tree: &std::path::Path, id: &str, outcome: Option<Outcome>) -> bool {
        let Some(stand_ins) = self.current.stand_ins(tree) else {
            return false;
        };
        if !stand_ins.force(id, outcome) {
            return false;
        }
        self.truncate_future();
        // Taking the counts again replays the forcing as recorded, without this one yet.
        if let Some(s) = self.current.stand_ins(tree) {
            s.force(id, outcome);
        }
        self.forced.push(GivenForce {
            step: self.at + 1,
            tree: tree.to_owned(),
            id: id.to_owned(),
            outcome,
        });
        true
    }

    /// What the stand-in node `id` of `tree` is forced to at the shown step.
    pub fn forced(&self, tree: &std::path::Path, id: &str) -> Option<Outcome> {
        self.current.stand_ins(tree)?.forced(id)
    }

    /// Sets the stand-ins as forced up to step `k` (the results given at steps ≤ `k`).
    fn force_as_at(&self, k: u64) {
        self.current.clear_forced();
        for f in self.forced.iter().filter(|f| f.step <= k) {
            if let Some(s) = self.current.stand_ins(&f.tree) {
                s.force(&f.id, f.outcome);
            }
        }
    }

    /// Drops what lies after the shown step: checkpoints, markers and triggers.
    fn truncate_future(&mut self) {
        if self.at == self.head {
            return;
        }
        let at = self.at;
        self.checkpoints.truncate((at / self.every) as usize + 1);
        self.markers.retain(|m| m.step <= at);
        self.triggers.retain(|t| t.step <= at);
        self.forced.retain(|f| f.step <= at);
        if let Some(h) = &mut self.followed {
            h.truncate(at);
        }
        self.head = at;
        self.counts = self.recounted();
    }

    /// The counts of steps 1 to the shown one, taken again from the first state (the
    /// steps after it were dropped).
    fn recounted(&self) -> Vec<Vec<crate::runtime::Counts>> {
        let mut fresh = Session::with_history(self.checkpoints[0].clone(), self.dt, u64::MAX, 2);
        fresh.timeline = false;
        fresh.triggers = self.triggers.clone();
        fresh.forced = self.forced.clone();
        // Forcing is shared by every copy of the run: from the first step as it was then
        // (the replay sets it as each given result falls due, and leaves it as at `at`).
        fresh.force_as_at(0);
        fresh.seek(self.at);
        fresh.counts
    }

    /// For each agent (in scenario order), each node's counts (by program index) over the
    /// steps run so far, from the first to the newest.
    pub fn counts(&self) -> &[Vec<crate::runtime::Counts>] {
        &self.counts
    }

    /// Takes one step: the next step of the history if the shown step is in the past, a
    /// new one otherwise. Returns the hits of `breakpoints` in that step.
    pub fn step(&mut self, breakpoints: &[Breakpoint]) -> Vec<Hit> {
        let next = self.at + 1;
        if self.forced.iter().any(|f| f.step == next) {
            self.force_as_at(next);
        }
        for t in self.triggers.iter().filter(|t| t.step == next) {
            self.current
                .trigger(t.agent.as_deref(), &t.id, t.payload.as_deref());
        }
        let mut collect = Collect {
            names: &self.names,
            agent: 0,
            out: Vec::new(),
        };
        let before = self.contexts();
        self.current.step(self.dt, Some(&mut collect));
        let events = collect.out;
        self.written = before
            .iter()
            .zip(self.contexts())
            .map(|(a, b)| (0..b.len()).filter(|&k| a.get(k) != b.get(k)).collect())
            .collect();
        self.at = next;
        let hits = self.hits(&events, next, breakpoints);
        self.follow_step(&events, next);
        if next > self.head {
            self.head = next;
            for e in &events {
                if let Some(c) = e
                    .node
                    .and_then(|n| self.counts.get_mut(e.agent)?.get_mut(n as usize))
                {
                    c.count(&e.kind);
                }
            }
            if self.timeline {
                self.mark(&events, &hits, next);
            }
            if next.is_multiple_of(self.every) {
                self.checkpoints.push(self.current.clone());
                if self.checkpoints.len() > self.max_checkpoints {
                    // Keep steps 0, 2 × every, 4 × every …
                    let mut i = 0;
                    self.checkpoints.retain(|_| {
                        i += 1;
                        i % 2 == 1
                    });
                    self.every *= 2;
                }
            }
        }
        self.events.extend(events);
        self.trim_events();
        hits
    }

    /// Each agent's context values, by key.
    fn contexts(&self) -> Vec<Vec<Option<CtxValue>>> {
        self.names
            .iter()
            .map(|n| {
                self.current.instance(n).map_or_else(Vec::new, |i| {
                    (0..i.program().keys().len())
                        .map(|k| i.context().get(k as u16).cloned())
                        .collect()
                })
            })
            .collect()
    }

    /// The context keys (indexes into the program's keys) of agent `agent` whose value
    /// changed in the shown step.
    pub fn written_keys(&self, agent: usize) -> &[usize] {
        self.written.get(agent).map_or(&[], Vec::as_slice)
    }

    /// Keeps the events of the last [`LOG_STEPS`] steps (the start's, step 0, come with
    /// the first step's).
    fn trim_events(&mut self) {
        let keep_from = self.at.saturating_sub(LOG_STEPS - 1);
        while self
            .events
            .front()
            .is_some_and(|e| e.step.max(1) < keep_from)
        {
            self.events.pop_front();
        }
    }

    /// The breakpoints that `events` (of session step `step`) meet, one hit per
    /// breakpoint and agent.
    fn hits(&self, events: &[Logged], step: u64, breakpoints: &[Breakpoint]) -> Vec<Hit> {
        let mut hits: Vec<Hit> = Vec::new();
        if breakpoints.is_empty() {
            return hits;
        }
        let breaks = |a: usize| {
            self.breaking
                .as_ref()
                .is_none_or(|m| m.get(a) == Some(&true))
        };
        for e in events.iter().filter(|e| breaks(e.agent)) {
            let Some(id) = self.node_id(e) else { continue };
            for b in breakpoints {
                if b.node == id
                    && b.on.matches(&e.kind)
                    && !hits
                        .iter()
                        .any(|h| h.breakpoint == *b && h.agent == e.agent)
                {
                    hits.push(Hit {
                        step,
                        agent: e.agent,
                        breakpoint: b.clone(),
                    });
                }
            }
        }
        hits
    }

    /// Adds the markers of newly run step `step`.
    fn mark(&mut self, events: &[Logged], hits: &[Hit], step: u64) {
        let before = self.markers.len();
        for e in events {
            let Some(kind) = MarkerKind::of(&e.kind) else {
                continue;
            };
            let m = Marker {
                step,
                agent: e.agent,
                kind,
            };
            if !self.markers[before..].contains(&m) {
                self.markers.push(m);
            }
        }
        for h in hits {
            let m = Marker {
                step: h.step,
                agent: h.agent,
                kind: MarkerKind::Breakpoint,
            };
            if !self.markers[before..].contains(&m) {
                self.markers.push(m);
            }
        }
    }

    /// Takes up to `n` steps, stopping after a step where one of `breakpoints` hits.
    pub fn run(&mut self, n: u64, breakpoints: &[Breakpoint]) -> Vec<Hit> {
        for _ in 0..n {
            let hits = self.step(breakpoints);
            if !hits.is_empty() {
                return hits;
            }
        }
        Vec::new()
    }

    /// Steps until the running leaves of `agent` change or one of `breakpoints` hits (at
    /// most [`UNTIL_CHANGE_LIMIT`] steps). Returns the hits and the steps taken.
    pub fn run_until_change(&mut self, agent: &str, breakpoints: &[Breakpoint]) -> (Vec<Hit>, u64) {
        let running = |s: &Self| {
            s.current
                .instance(agent)
                .map(|i| i.active_leaves().to_vec())
        };
        let before = running(self);
        for taken in 1..=UNTIL_CHANGE_LIMIT {
            let hits = self.step(breakpoints);
            if !hits.is_empty() || running(self) != before {
                return (hits, taken);
            }
        }
        (Vec::new(), UNTIL_CHANGE_LIMIT)
    }

    /// Goes back to the last step before the shown one where one of `breakpoints` hits,
    /// and returns its hits; stays (and returns none) when no step before it hits. The
    /// history is run again a stretch at a time, going back from the shown step, so a
    /// breakpoint set after those steps were first run is found too.
    pub fn back_to_hit(&mut self, breakpoints: &[Breakpoint]) -> Vec<Hit> {
        let at = self.at;
        if breakpoints.is_empty() || at <= 1 {
            return Vec::new();
        }
        let stretch = self.every.max(LOG_STEPS);
        // Steps `from + 1 ..= to` are searched, then the stretch before them.
        let mut to = at - 1;
        loop {
            let from = to.saturating_sub(stretch);
            self.seek(from);
            let mut last = Vec::new();
            while self.at < to {
                let hits = self.step(breakpoints);
                if !hits.is_empty() {
                    last = hits;
                }
            }
            if let Some(step) = last.first().map(|h| h.step) {
                self.seek(step);
                return last;
            }
            if from == 0 {
                break;
            }
            to = from;
        }
        self.seek(at);
        Vec::new()
    }

    /// Shows step `k`: a past step is rebuilt from the checkpoint before it (with the
    /// events of the steps before it, for the log); a step past the end is run to
    /// (no breakpoint stops or marks it).
    pub fn seek(&mut self, k: u64) {
        if k > self.head {
            while self.at < k {
                self.step(&[]);
            }
            return;
        }
        // Rebuild from a checkpoint far enough back to fill the event log.
        let from = k.saturating_sub(LOG_STEPS) / self.every;
        let from = (from as usize).min(self.checkpoints.len() - 1);
        self.current = self.checkpoints[from].clone();
        self.at = from as u64 * self.every;
        // Forcing is shared by every copy of the run: set back to what it was then.
        self.force_as_at(self.at);
        self.events.clear();
        self.written.clear();
        while self.at < k {
            self.step(&[]);
        }
    }

    /// The trace id of an event's node, from its agent's program.
    pub fn node_id(&self, e: &Logged) -> Option<&str> {
        e.node
            .and_then(|n| self.programs.get(e.agent)?.node_ids().get(n as usize))
            .map(String::as_str)
    }

    /// An event as `arbor run --trace` writes it (one JSON object, no newline).
    pub fn trace_line(&self, e: &Logged) -> String {
        let agent = self.names.get(e.agent).map_or("", String::as_str);
        let node_id = self.node_id(e).unwrap_or("");
        log::trace_line(agent, node_id, e)
    }

    /// The value of a context key for an agent, for display (entities by name).
    pub fn show_value(&self, value: &CtxValue) -> String {
        value_words(self.current.world(), value)
    }

    /// The value agent `agent`'s key `key` held when the run started (its default, or
    /// the agent's own), in words.
    pub fn start_value(&self, agent: usize, key: &str) -> Option<String> {
        let k = self
            .current
            .instance(self.names.get(agent)?)?
            .program()
            .key(key)?;
        self.start_values(agent).into_iter().nth(usize::from(k))?
    }

    /// The values agent `agent`'s keys held when the run started (their defaults, or the
    /// agent's own), in words, by key id: found once for every key.
    pub fn start_values(&self, agent: usize) -> Vec<Option<String>> {
        let Some(first) = self.checkpoints.first() else {
            return Vec::new();
        };
        let Some(i) = self.names.get(agent).and_then(|n| first.instance(n)) else {
            return Vec::new();
        };
        (0..i.program().keys().len())
            .map(|k| {
                i.context()
                    .get(k as u16)
                    .map(|v| value_words(first.world(), v))
            })
            .collect()
    }

    /// Follows agent `agent`'s key `key`: its history from the first step to the newest
    /// is derived now, by stepping the run again from its first state (the shown step
    /// stays), and kept up to date as the run goes on ([`Session::key_history`]). Already
    /// followed, nothing is done.
    pub fn follow(&mut self, agent: usize, key: &str) {
        if self.followed.as_ref().is_some_and(|h| h.is_of(agent, key)) {
            return;
        }
        let start = self.start_value(agent, key);
        self.followed = Some(KeyHistory::new(agent, key, start.clone(), start));
        let (at, head) = (self.at, self.head);
        self.seek(0);
        while self.at < head {
            self.step(&[]);
        }
        self.seek(at);
    }

    /// Stops following a key.
    pub fn unfollow(&mut self) {
        self.followed = None;
    }

    /// The history of the key followed, from the first step to the newest.
    pub fn key_history(&self) -> Option<&KeyHistory> {
        self.followed.as_ref()
    }

    /// Takes the events of step `step` into the followed key's history, the first time
    /// the step is run.
    fn follow_step(&mut self, events: &[Logged], step: u64) {
        let Some(h) = self.followed.as_mut() else {
            return;
        };
        if step <= h.upto {
            return;
        }
        h.upto = step;
        let (world, agent) = (self.current.world(), h.agent);
        for e in events.iter().filter(|e| e.agent == agent) {
            h.take(step, e.node, &e.kind, |v| {
                value_words(world, &CtxValue::from(v))
            });
        }
    }
}

/// A context value in words, as the debugger shows it: an entity by its name in `world`.
fn value_words(world: &World, value: &CtxValue) -> String {
    match value {
        CtxValue::Entity(id) => world
            .entity(*id)
            .map_or_else(|| format!("entity #{id} (gone)"), |e| e.name.clone()),
        CtxValue::Position(p) => format!("({:.2}, {:.2})", p[0], p[1]),
        CtxValue::Number(n) => format!("{n}"),
        CtxValue::Text(t) => format!("\"{t}\""),
        CtxValue::Bool(b) => format!("{b}"),
    }
}

/// Why Root was entered again, in words.
pub fn reason_words(r: Reason) -> &'static str {
    match r {
        Reason::Complete => "the run completed",
        Reason::ContextMissing => "a context key was missing",
        Reason::ForceReset => "an Interrupt reset the tree",
        Reason::Stall => "the tree stalled",
    }
}
