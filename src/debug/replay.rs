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

/// Events between two kept states, at most (a state is kept at the end of the step that
/// reaches this many): a trace of many agents keeps states more often than every
/// [`REPLAY_CHECKPOINT_EVERY`] steps.
pub const REPLAY_CHECKPOINT_EVENTS: usize = 65_536;

/// How much of a run a replay keeps, at most ([`Replay::keep_last`]): its last steps'
/// events, and the bytes those hold of their own ([`TracedEvent::cost`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventWindow {
    /// Events.
    pub events: usize,
    /// Bytes.
    pub bytes: usize,
}

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
    /// Runs of its tree that completed with success, and with failure (a run skipped
    /// whole is neither).
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
                    Status::Skipped => {}
                    _ => self.completed.1 += 1,
                }
                // SEMANTICS.md §3.3: a completed run clears the context.
                self.context.clear();
            }
            // SEMANTICS.md §3.5: a missing key resets the tree and clears the context.
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

/// The step of the timeline an event belongs to ([`TracedEvent::frame`]). A run steps
/// each agent in turn, and an agent's first step writes its start's events and its first
/// step's together, so events in this order are sorted by their frame.
fn frame(e: &TracedEvent) -> u64 {
    e.frame()
}

/// Every agent's state after the events of the frames up to `at`, and the first event
/// after them.
#[derive(Clone)]
struct Kept {
    at: u64,
    next: usize,
    agents: Vec<AgentView>,
}

/// The context keys an agent ever holds: in the order first stored, and as a set.
type KeysMet = (Vec<Arc<str>>, foldhash::HashSet<Arc<str>>);

/// A trace being replayed, shown at one step.
pub struct Replay {
    /// The trace, its events sorted by frame (stably: in their order within one).
    trace: TraceFile,
    /// The shown step (frame); 0 before the first.
    at: u64,
    /// The last frame the trace records.
    last: u64,
    /// Each agent as of `at`.
    agents: Vec<AgentView>,
    /// The first event after frame `at`.
    next: usize,
    /// Kept states, by frame, at least [`REPLAY_CHECKPOINT_EVERY`] frames apart; the
    /// first is the state before any event.
    checkpoints: Vec<Kept>,
    /// The agents breakpoints stop (`None`: every one).
    breaking: Option<Vec<bool>>,
    /// Each agent's leaves (the nodes the trace shows executing), and the context keys it
    /// ever holds, in order (and as a set).
    leaves: Vec<foldhash::HashSet<Arc<str>>>,
    keys: Vec<KeysMet>,
    /// The timeline's marks, and how many events they cover.
    markers: Vec<Marker>,
    marked: usize,
    /// Events given to [`Replay::extend`] for an agent it was not told of, left out.
    ignored: usize,
    /// Events let go from the start ([`Replay::keep_last`]).
    forgotten: u64,
    /// What the events hold of their own ([`TracedEvent::cost`]), in all.
    cost: usize,
    /// One more each time events are let go or one takes its place before the last: what
    /// was found over the events (breakpoint hits) is found again.
    revision: u64,
}

impl Replay {
    /// The replay of `trace`, shown before its first step.
    pub fn new(mut trace: TraceFile) -> Self {
        trace.events.sort_by_key(frame);
        let n = trace.agents.len();
        let agents = vec![AgentView::default(); n];
        let mut r = Self {
            last: trace.events.last().map_or(0, frame),
            trace,
            at: 0,
            agents: agents.clone(),
            next: 0,
            checkpoints: vec![Kept {
                at: 0,
                next: 0,
                agents,
            }],
            breaking: None,
            leaves: vec![foldhash::HashSet::default(); n],
            keys: vec![Default::default(); n],
            markers: Vec::new(),
            marked: 0,
            ignored: 0,
            forgotten: 0,
            cost: 0,
            revision: 0,
        };
        r.cost = r.trace.events.iter().map(TracedEvent::cost).sum();
        for i in 0..r.trace.events.len() {
            r.note(i);
        }
        r.mark();
        r
    }

    /// Notes what event `i` says of its agent's leaves and context keys.
    fn note(&mut self, i: usize) {
        let e = &self.trace.events[i];
        let (Some(leaves), Some(keys)) = (self.leaves.get_mut(e.agent), self.keys.get_mut(e.agent))
        else {
            return;
        };
        match (&e.kind, &e.node) {
            (LoggedKind::Execute, Some(id)) => {
                leaves.insert(id.clone());
            }
            (LoggedKind::Context(key, _), _) if keys.1.insert(key.clone()) => {
                keys.0.push(key.clone());
            }
            _ => {}
        }
    }

    /// Adds the timeline's marks of the events not yet marked.
    fn mark(&mut self) {
        for e in &self.trace.events[self.marked..] {
            if let Some(kind) = MarkerKind::of(&e.kind) {
                let m = Marker {
                    step: frame(e),
                    agent: e.agent,
                    kind,
                };
                if self.markers.last() != Some(&m) {
                    self.markers.push(m);
                }
            }
        }
        self.marked = self.trace.events.len();
    }

    /// The trace replayed.
    pub fn trace(&self) -> &TraceFile {
        &self.trace
    }

    /// Adds events that arrived since (a game sending its run as it goes), with `agents`
    /// the names they refer to (the names already known first, in the same places). An
    /// event of a step already shown (a later agent's part of it) takes its place there,
    /// and the shown step is rebuilt with it.
    pub fn extend(&mut self, agents: &[String], events: impl IntoIterator<Item = TracedEvent>) {
        for name in agents.iter().skip(self.trace.agents.len()) {
            self.trace.agents.push(name.clone());
            self.agents.push(AgentView::default());
            self.leaves.push(foldhash::HashSet::default());
            self.keys.push(Default::default());
            for kept in &mut self.checkpoints {
                kept.agents.push(AgentView::default());
            }
        }
        // The first step an event went to that was shown already, if one did.
        let mut stale: Option<u64> = None;
        for e in events {
            if e.agent >= self.agents.len() {
                self.ignored += 1;
                continue;
            }
            let f = frame(&e);
            if self.forgotten > 0 && f <= self.first_step() {
                // Of a step let go already.
                self.forgotten += 1;
                continue;
            }
            let at = if f >= self.last {
                self.trace.events.len()
            } else {
                self.trace.events.partition_point(|x| frame(x) <= f)
            };
            if at < self.trace.events.len() {
                // Before events there already: the states kept from its step on miss it,
                // and so does what was shown when that is its step or later.
                self.revision += 1;
                self.checkpoints.retain(|k| k.at < f || k.next == 0);
                if f <= self.at {
                    stale = Some(stale.map_or(f, |s| s.min(f)));
                }
            }
            if at < self.marked {
                self.marked = 0;
                self.markers.clear();
            }
            self.cost += e.cost();
            self.trace.events.insert(at, e);
            self.note(at);
            self.last = self.last.max(f);
        }
        if stale.is_some() {
            // What was shown missed an event: rebuilt from a state kept before it.
            let shown = self.at;
            self.restore(shown);
            self.apply_through(shown);
        } else {
            // Events of the shown step that came after it was shown.
            self.apply_through(self.at);
        }
        self.mark();
    }

    /// Events given to [`Replay::extend`] and left out (an agent it was not told of).
    pub fn dropped(&self) -> usize {
        self.ignored
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
        let (Some(a), Some((keys, _))) = (self.agents.get(agent), self.keys.get(agent)) else {
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
                ty: None,
                default: false,
            })
            .collect()
    }

    /// The events of steps `from..=to` of the timeline (the start's, step 0, with step 1),
    /// in order.
    pub fn events_between(&self, from: u64, to: u64) -> &[TracedEvent] {
        let events = &self.trace.events;
        let a = events.partition_point(|e| frame(e) < from);
        let b = events.partition_point(|e| frame(e) <= to);
        &events[a..b.max(a)]
    }

    /// Applies the events of every frame up to and including `k`, keeping a state every
    /// [`REPLAY_CHECKPOINT_EVERY`] frames or more.
    fn apply_through(&mut self, k: u64) {
        while let Some(e) = self.trace.events.get(self.next) {
            let f = frame(e);
            if f > k {
                break;
            }
            let (kept, since) = self
                .checkpoints
                .last()
                .map_or((0, self.next), |c| (c.at, self.next.saturating_sub(c.next)));
            // Every 256 steps or 65,536 events, but never more often than an event an agent
            // (a kept state holds every agent's: its memory is paid for by the events).
            let n = self.agents.len();
            let due = (f > kept.saturating_add(REPLAY_CHECKPOINT_EVERY) && since >= n)
                || (since >= REPLAY_CHECKPOINT_EVENTS.max(n.saturating_mul(64)) && f > kept + 1);
            // (A state is kept before the first event of a step only.)
            let starts_step = self.next > 0 && frame(&self.trace.events[self.next - 1]) < f;
            if due && starts_step {
                self.checkpoints.push(Kept {
                    at: f - 1,
                    next: self.next,
                    agents: self.agents.clone(),
                });
            }
            if let Some(a) = self.agents.get_mut(e.agent) {
                a.apply(e);
            }
            self.next += 1;
        }
        self.at = k;
    }

    /// Goes back to the last state kept at or before frame `k`.
    fn restore(&mut self, k: u64) {
        let i = self
            .checkpoints
            .partition_point(|c| c.at <= k)
            .saturating_sub(1);
        let kept = self.checkpoints[i].clone();
        self.at = kept.at;
        self.next = kept.next;
        self.agents = kept.agents;
    }

    /// Lets the oldest steps go, whole, so that at most the window's events, holding at
    /// most its bytes of their own ([`TracedEvent::cost`]), stay (a game shown live
    /// keeps a window of its last steps; this lets some go once a quarter more came): the
    /// state after them is kept in their place, so every step after them shows as before.
    /// The last step always stays. The shown step stays, or becomes the first one kept.
    /// Returns whether any went.
    pub fn keep_last(&mut self, window: EventWindow) -> bool {
        let EventWindow {
            events: max,
            bytes: max_cost,
        } = window;
        let events = &self.trace.events;
        let len = events.len();
        let over = |n: usize, m: usize| n > m.saturating_add(m / 4);
        if !over(len, max) && !over(self.cost, max_cost) {
            return false;
        }
        // The fewest first events to let go, then the whole of the last one's step.
        let mut i = len.saturating_sub(max);
        let mut cost = self.cost - events[..i].iter().map(TracedEvent::cost).sum::<usize>();
        while cost > max_cost && i < len {
            cost -= events[i].cost();
            i += 1;
        }
        if i == 0 {
            return false;
        }
        let mut cut = events.partition_point(|e| frame(e) <= frame(&events[i - 1]));
        if cut >= len {
            cut = events.partition_point(|e| frame(e) < frame(&events[len - 1]));
        }
        if cut == 0 {
            return false;
        }
        let dropped_to = frame(&events[cut - 1]);
        let shown = self.at;
        self.seek(dropped_to);
        let base = Kept {
            at: dropped_to,
            next: 0,
            agents: self.agents.clone(),
        };
        self.cost -= self.trace.events[..cut]
            .iter()
            .map(TracedEvent::cost)
            .sum::<usize>();
        self.trace.events.drain(..cut);
        self.checkpoints.retain(|k| k.at > dropped_to);
        for k in &mut self.checkpoints {
            k.next = k.next.saturating_sub(cut);
        }
        self.checkpoints.insert(0, base);
        self.next = self.next.saturating_sub(cut);
        self.marked = self.marked.saturating_sub(cut);
        self.markers.retain(|m| m.step > dropped_to);
        self.forgotten += cut as u64;
        self.revision += 1;
        self.seek(shown.max(dropped_to));
        true
    }

    /// One more each time events are let go, or one takes its place before the last:
    /// what was found over the events before is to be found again.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The first step that can be shown: 0, or the step before the first kept when
    /// [`Replay::keep_last`] let steps go.
    pub fn first_step(&self) -> u64 {
        self.checkpoints.first().map_or(0, |k| k.at)
    }

    /// Events let go by [`Replay::keep_last`] so far.
    pub fn forgotten(&self) -> u64 {
        self.forgotten
    }

    /// Shows step `k` (at most the last step, at least the first): from the kept state
    /// before it.
    pub fn seek(&mut self, k: u64) {
        let k = k.min(self.last).max(self.first_step());
        if k < self.at {
            self.restore(k);
        }
        self.apply_through(k);
    }

    /// Shows the next step; false at the last.
    pub fn step(&mut self) -> bool {
        if self.at >= self.last {
            return false;
        }
        self.seek(self.at + 1);
        true
    }

    /// Which agents the breakpoints stop, by place (`None`: every one); see
    /// `Session::set_breaking`.
    pub fn set_breaking(&mut self, agents: Option<Vec<bool>>) {
        self.breaking = agents;
    }

    /// Which of `breakpoints` event `e` hits, if one does.
    fn hit_of<'b>(&self, e: &TracedEvent, breakpoints: &'b [Breakpoint]) -> Option<&'b Breakpoint> {
        let node = e.node.as_deref()?;
        if self
            .breaking
            .as_ref()
            .is_some_and(|m| m.get(e.agent) != Some(&true))
        {
            return None;
        }
        breakpoints
            .iter()
            .find(|b| b.node == node && b.on.matches(&e.kind))
    }

    /// The timeline's marks of every hit of `breakpoints` (one a step and agent), by step.
    pub fn hit_markers(&self, breakpoints: &[Breakpoint]) -> Vec<Marker> {
        let mut marks = Vec::new();
        self.add_hit_markers(breakpoints, 0, &mut marks);
        marks
    }

    /// Adds to `marks` (the timeline's marks of the hits of `breakpoints` among the events
    /// before the `from`th) those among the events from the `from`th on.
    pub fn add_hit_markers(
        &self,
        breakpoints: &[Breakpoint],
        from: usize,
        marks: &mut Vec<Marker>,
    ) {
        if breakpoints.is_empty() {
            return;
        }
        for e in self.trace.events.get(from..).unwrap_or_default() {
            if self.hit_of(e, breakpoints).is_none() {
                continue;
            }
            let m = Marker {
                step: frame(e),
                agent: e.agent,
                kind: MarkerKind::Breakpoint,
            };
            // One a step and agent: a step's marks are the last ones.
            if !marks
                .iter()
                .rev()
                .take_while(|k| k.step == m.step)
                .any(|k| *k == m)
            {
                marks.push(m);
            }
        }
    }

    /// The first hit of `breakpoints` after the shown step, if any (a hit's step is its
    /// frame, as a live session reports it).
    pub fn next_hit(&self, breakpoints: &[Breakpoint]) -> Option<Hit> {
        if breakpoints.is_empty() {
            return None;
        }
        self.trace.events[self.next..].iter().find_map(|e| {
            self.hit_of(e, breakpoints).map(|b| Hit {
                step: frame(e),
                agent: e.agent,
                breakpoint: b.clone(),
            })
        })
    }

    /// The last hit of `breakpoints` before the shown step, if any (the first of its step,
    /// as [`Replay::next_hit`] gives it).
    pub fn previous_hit(&self, breakpoints: &[Breakpoint]) -> Option<Hit> {
        if breakpoints.is_empty() {
            return None;
        }
        let events = &self.trace.events;
        let before = events.partition_point(|e| frame(e) < self.at);
        let step = events[..before]
            .iter()
            .rev()
            .find(|e| self.hit_of(e, breakpoints).is_some())
            .map(frame)?;
        let from = events.partition_point(|e| frame(e) < step);
        events[from..before].iter().find_map(|e| {
            self.hit_of(e, breakpoints).map(|b| Hit {
                step,
                agent: e.agent,
                breakpoint: b.clone(),
            })
        })
    }

    /// Goes to the next hit of `breakpoints` (Continue), or to the last step when none
    /// hits; returns the hit.
    pub fn continue_to_hit(&mut self, breakpoints: &[Breakpoint]) -> Option<Hit> {
        let hit = self.next_hit(breakpoints);
        self.seek(hit.as_ref().map_or(self.last, |h| h.step));
        hit
    }

    /// The timeline's markers over the whole trace (interrupts, failed runs, stalls,
    /// missing keys), by step.
    pub fn markers(&self) -> &[Marker] {
        &self.markers
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

    /// An event line of agent `a` at `step`: entering node `n`.
    fn enter(agent: &str, step: u64, n: &str) -> String {
        format!("{{\"step\":{step},\"agent\":\"{agent}\",\"event\":\"enter\",\"node\":\"{n}\"}}\n")
    }

    #[test]
    fn events_that_come_late_take_their_place_whatever_step_is_shown() {
        // Two agents over 2,000 steps; b's events of some steps come after the rest.
        let (mut first, mut late, mut all) = (String::new(), String::new(), String::new());
        for step in 0..2_000u64 {
            first += &enter("a", step, &format!("n{}", step % 7));
            let b = enter("b", step, &format!("m{}", step % 5));
            if step % 300 == 17 {
                late += &b;
            } else {
                first += &b;
            }
        }
        for step in 0..2_000u64 {
            all += &enter("a", step, &format!("n{}", step % 7));
            all += &enter("b", step, &format!("m{}", step % 5));
        }
        let mut whole = replay(&all);
        let mut r = replay(&first);
        // Shown at a past step, with states kept after it (its seek went there first).
        r.seek(1_999);
        r.seek(400);
        let Ok(late) = parse_trace(late.as_bytes(), std::path::Path::new("late.jsonl")) else {
            panic!("the late events read");
        };
        let names = r.agent_names().to_vec();
        let index = |n: &str| names.iter().position(|x| x == n).unwrap_or(usize::MAX);
        let events: Vec<TracedEvent> = late
            .events
            .into_iter()
            .map(|mut e| {
                e.agent = index(&late.agents[e.agent]);
                e
            })
            .collect();
        r.extend(&names, events);
        for step in [400, 17, 318, 1_999, 917, 1_217, 1_500, 3] {
            whole.seek(step);
            r.seek(step);
            assert_eq!(whole.agent(0), r.agent(0), "a at step {step}");
            assert_eq!(whole.agent(1), r.agent(1), "b at step {step}");
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

    /// The hit before the shown step is the last one strictly before it, the first of its
    /// step; before the first hit there is none.
    #[test]
    fn the_previous_hit_is_the_last_one_before_the_shown_step() {
        let line = |step: u64, agent: &str, node: &str| {
            format!(
                "{{\"step\":{step},\"agent\":\"{agent}\",\"event\":\"enter\",\"node\":\"{node}\"}}\n"
            )
        };
        let mut lines = String::new();
        for step in 1..=40u64 {
            lines += &line(step, "a", "x");
            if step % 10 == 0 {
                lines += &line(step, "b", "y");
                lines += &line(step, "a", "y");
            }
        }
        let mut r = replay(&lines);
        let on_y = [Breakpoint {
            node: "y".into(),
            on: super::super::BreakOn::Enter,
        }];
        let hit = |h: Option<Hit>| h.map(|h| (h.step, h.agent));
        r.seek(35);
        assert_eq!(hit(r.previous_hit(&on_y)), Some((30, 1)), "b's comes first");
        assert_eq!(hit(r.next_hit(&on_y)), Some((40, 1)));
        // A hit at the shown step is not before it.
        r.seek(30);
        assert_eq!(hit(r.previous_hit(&on_y)), Some((20, 1)));
        r.seek(10);
        assert_eq!(r.previous_hit(&on_y), None);
        assert_eq!(r.previous_hit(&[]), None);
        // Only the agents breakpoints stop.
        r.set_breaking(Some(vec![true, false]));
        r.seek(35);
        assert_eq!(hit(r.previous_hit(&on_y)), Some((30, 0)));
    }
}
