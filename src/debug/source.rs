//! One debugger over several sources of steps: the built-in simulation, stepped live in a
//! [`Session`], or a recorded trace, replayed in a [`Replay`]. What the editor shows of a
//! run — the lights of an agent's nodes, its running leaves, its context, its event log,
//! the timeline and breakpoint hits — is asked of a [`Source`] the same way whichever it
//! is; only a live run has a world, triggers and stand-ins to force.

use std::sync::Arc;

use super::{Breakpoint, Hit, KeyHistory, LOG_STEPS, Logged, Marker, NodeView, Replay, Session};
use crate::model::KeyType;
use crate::runtime::{CtxValue, Status};

/// Where a debugged run's steps come from.
pub enum Source {
    /// The built-in simulation, run step by step.
    Simulation(Box<Session>),
    /// A recorded trace, replayed.
    Trace(Box<Replayed>),
}

/// A replay and what the event log needs of it: its nodes' trace ids, numbered (the log
/// names a node by its number here), and their titles where the trees are known.
pub struct Replayed {
    /// The replay.
    pub replay: Replay,
    /// Every node id the trace names, each once, and each one's number.
    ids: Vec<Arc<str>>,
    index: foldhash::HashMap<Arc<str>, u32>,
    /// For each agent (by the replay's number), the titles of its tree's nodes by trace id
    /// (see [`Source::set_titles`]).
    titles: Vec<Arc<Titles>>,
    /// For each agent (by the replay's number), the context keys of its tree (see
    /// [`Source::set_keys`]).
    keys: Vec<Arc<[KnownKey]>>,
    /// The history of the key followed ([`Source::follow_key`]), if one is.
    followed: Option<KeyHistory>,
}

/// A context key of the tree a replayed agent runs, which the trace does not record: its
/// name, its declared type (`any` where nothing declares it) and the value it starts a run
/// with (its default), in words.
#[derive(Clone, Debug, PartialEq)]
pub struct KnownKey {
    /// The key.
    pub name: String,
    /// Its declared type.
    pub ty: KeyType,
    /// Its default, in words.
    pub start: Option<String>,
}

/// Node names by trace id, as the event log names them: titles, and kinds and ids where
/// there is no title ([`crate::model::names::spoken`]).
pub type Titles = foldhash::HashMap<String, String>;

impl Replayed {
    /// Numbers the node ids of `events` not numbered yet.
    fn number<'e>(&mut self, events: impl IntoIterator<Item = &'e crate::io::TracedEvent>) {
        for id in events.into_iter().filter_map(|e| e.node.as_ref()) {
            if !self.index.contains_key(id) {
                self.index.insert(id.clone(), self.ids.len() as u32);
                self.ids.push(id.clone());
            }
        }
    }
}

/// One context key of an agent at the shown step.
#[derive(Clone, Debug, PartialEq)]
pub struct ContextRow {
    /// The key.
    pub key: String,
    /// Its value in words, if it holds one.
    pub value: Option<String>,
    /// Whether it changed in the shown step.
    pub written: bool,
    /// Its declared type (`any` where nothing declares it), where the run knows it.
    pub ty: Option<KeyType>,
    /// Whether it holds the value it started the run with (its default) at the shown step.
    pub default: bool,
}

impl Source {
    /// The replay of a trace.
    pub fn replay(replay: Replay) -> Self {
        let mut ids = Vec::new();
        let mut index = foldhash::HashMap::default();
        for id in replay.trace().events.iter().filter_map(|e| e.node.as_ref()) {
            if !index.contains_key(id) {
                index.insert(id.clone(), ids.len() as u32);
                ids.push(id.clone());
            }
        }
        Source::Trace(Box::new(Replayed {
            replay,
            ids,
            index,
            titles: Vec::new(),
            keys: Vec::new(),
            followed: None,
        }))
    }

    /// A replay's node titles: for each agent (by the replay's number), those of the tree
    /// it runs, which the trace does not record. A live session's come with its program.
    pub fn set_titles(&mut self, by_agent: Vec<Arc<Titles>>) {
        if let Source::Trace(r) = self {
            r.titles = by_agent;
        }
    }

    /// A replay's context keys: for each agent (by the replay's number), those of the tree
    /// it runs, with their types and defaults, which the trace does not record. The context
    /// then lists them before they are written, and a key holds its default where the
    /// trace shows no value (a live session's come with its program).
    pub fn set_keys(&mut self, by_agent: Vec<Arc<[KnownKey]>>) {
        if let Source::Trace(r) = self {
            r.keys = by_agent;
        }
    }

    /// Adds events that arrived since to a replay (a game's live run; see
    /// [`Replay::extend`]). A live session takes none.
    pub fn extend(&mut self, agents: &[String], events: Vec<crate::io::TracedEvent>) {
        let Source::Trace(r) = self else {
            return;
        };
        r.number(&events);
        r.replay.extend(agents, events);
    }

    /// Lets a replay's oldest steps go to fit `window` (see [`Replay::keep_last`]); a live
    /// session keeps its own bounded history.
    pub fn keep_last(&mut self, window: super::EventWindow) {
        if let Source::Trace(r) = self {
            r.replay.keep_last(window);
        }
    }

    /// The first step that can be shown (a replay that let its oldest steps go starts
    /// later).
    pub fn first_step(&self) -> u64 {
        match self {
            Source::Simulation(_) => 0,
            Source::Trace(r) => r.replay.first_step(),
        }
    }

    /// The live session, for a simulation.
    pub fn session(&self) -> Option<&Session> {
        match self {
            Source::Simulation(s) => Some(s),
            Source::Trace(_) => None,
        }
    }

    /// The live session, for a simulation.
    pub fn session_mut(&mut self) -> Option<&mut Session> {
        match self {
            Source::Simulation(s) => Some(s),
            Source::Trace(_) => None,
        }
    }

    /// The replay, for a trace.
    pub fn replayed(&self) -> Option<&Replay> {
        match self {
            Source::Trace(r) => Some(&r.replay),
            Source::Simulation(_) => None,
        }
    }

    /// The shown step.
    pub fn step_number(&self) -> u64 {
        match self {
            Source::Simulation(s) => s.step_number(),
            Source::Trace(r) => r.replay.step_number(),
        }
    }

    /// The end of the timeline: the furthest step run, or the trace's last.
    pub fn head(&self) -> u64 {
        match self {
            Source::Simulation(s) => s.head(),
            Source::Trace(r) => r.replay.last_step(),
        }
    }

    /// The agents' names.
    pub fn agent_names(&self) -> &[String] {
        match self {
            Source::Simulation(s) => s.agent_names(),
            Source::Trace(r) => r.replay.agent_names(),
        }
    }

    /// Takes up to `n` steps, stopping after a step where one of `breakpoints` hits (a
    /// replay stops at its last step).
    pub fn run(&mut self, n: u64, breakpoints: &[Breakpoint]) -> Vec<Hit> {
        match self {
            Source::Simulation(s) => s.run(n, breakpoints),
            Source::Trace(r) => {
                let r = &mut r.replay;
                let to = r.step_number().saturating_add(n).min(r.last_step());
                match r.next_hit(breakpoints).filter(|h| h.step <= to) {
                    Some(hit) => {
                        r.seek(hit.step);
                        vec![hit]
                    }
                    None => {
                        r.seek(to);
                        Vec::new()
                    }
                }
            }
        }
    }

    /// Steps until agent `agent`'s running leaves change or one of `breakpoints` hits, at
    /// most [`super::UNTIL_CHANGE_LIMIT`] steps (a replay: up to its last step). Returns the
    /// hits and the steps taken.
    pub fn run_until_change(
        &mut self,
        agent: usize,
        breakpoints: &[Breakpoint],
    ) -> (Vec<Hit>, u64) {
        if let Source::Simulation(s) = self {
            let name = s.agent_names().get(agent).cloned().unwrap_or_default();
            return s.run_until_change(&name, breakpoints);
        }
        let before = self.running_leaves(agent);
        for taken in 1..=super::UNTIL_CHANGE_LIMIT {
            if self.step_number() >= self.head() {
                return (Vec::new(), taken - 1);
            }
            let hits = self.run(1, breakpoints);
            if !hits.is_empty() || self.running_leaves(agent) != before {
                return (hits, taken);
            }
        }
        (Vec::new(), super::UNTIL_CHANGE_LIMIT)
    }

    /// Goes to the next step where one of `breakpoints` hits and returns its hits: in a
    /// replay, the next hit it records (none: it stays); in a live run, stepping on at most
    /// [`super::UNTIL_CHANGE_LIMIT`] steps (none: it stays where that took it).
    pub fn to_next_hit(&mut self, breakpoints: &[Breakpoint]) -> Vec<Hit> {
        match self {
            Source::Simulation(s) => s.run(super::UNTIL_CHANGE_LIMIT, breakpoints),
            Source::Trace(r) => {
                let Some(hit) = r.replay.next_hit(breakpoints) else {
                    return Vec::new();
                };
                r.replay.seek(hit.step);
                vec![hit]
            }
        }
    }

    /// Goes back to the last step before the shown one where one of `breakpoints` hits and
    /// returns its hits; none: it stays.
    pub fn to_previous_hit(&mut self, breakpoints: &[Breakpoint]) -> Vec<Hit> {
        match self {
            Source::Simulation(s) => s.back_to_hit(breakpoints),
            Source::Trace(r) => {
                let Some(hit) = r.replay.previous_hit(breakpoints) else {
                    return Vec::new();
                };
                r.replay.seek(hit.step);
                vec![hit]
            }
        }
    }

    /// Shows step `k`.
    pub fn seek(&mut self, k: u64) {
        match self {
            Source::Simulation(s) => s.seek(k),
            Source::Trace(r) => r.replay.seek(k),
        }
    }

    /// The timeline's markers, with the hits of `breakpoints` (a live run marks them as it
    /// steps; a replay finds them in its trace).
    pub fn markers(&self, breakpoints: &[Breakpoint]) -> Vec<Marker> {
        match self {
            Source::Simulation(s) => s.markers().to_vec(),
            Source::Trace(r) => [r.replay.markers(), &r.replay.hit_markers(breakpoints)].concat(),
        }
    }

    /// Which agents the breakpoints stop, by place (`None`: every one): those that run
    /// the tree whose nodes they name.
    pub fn set_breaking(&mut self, agents: Option<Vec<bool>>) {
        match self {
            Source::Simulation(s) => s.set_breaking(agents),
            Source::Trace(r) => r.replay.set_breaking(agents),
        }
    }

    /// The display state of each node of agent `agent` that has one, by trace id, and the
    /// step shown.
    pub fn lights(&self, agent: usize) -> Vec<(String, NodeView)> {
        match self {
            Source::Simulation(s) => {
                let Some(i) = s.instance(agent) else {
                    return Vec::new();
                };
                i.program()
                    .node_ids()
                    .iter()
                    .zip(i.node_states())
                    .filter(|(_, st)| st.status != Status::Idle || st.entries > 0)
                    .map(|(id, st)| (id.clone(), st.map_reason(Arc::from)))
                    .collect()
            }
            Source::Trace(r) => r.replay.agent(agent).map_or_else(Vec::new, |a| {
                a.nodes
                    .iter()
                    .map(|(id, n)| (id.to_string(), n.clone()))
                    .collect()
            }),
        }
    }

    /// Agent `agent`'s running leaves, by trace id, in tree order where it is known.
    pub fn running_leaves(&self, agent: usize) -> Vec<String> {
        match self {
            Source::Simulation(_) => self
                .running_nodes(agent)
                .into_iter()
                .filter_map(|n| self.node_id(agent, n).map(str::to_owned))
                .collect(),
            Source::Trace(r) => r.replay.running_leaves(agent),
        }
    }

    /// [`Source::running_leaves`] as [`Source::log`] numbers nodes.
    pub fn running_nodes(&self, agent: usize) -> Vec<u32> {
        match self {
            Source::Simulation(s) => s
                .instance(agent)
                .map(|i| i.active_leaves().to_vec())
                .unwrap_or_default(),
            Source::Trace(r) => r
                .replay
                .running_leaves(agent)
                .iter()
                .filter_map(|id| r.index.get(id.as_str()).copied())
                .collect(),
        }
    }

    /// Agent `agent`'s context at the shown step: every key its tree uses (a trace: every
    /// key it has held), with its value in words.
    pub fn context(&self, agent: usize) -> Vec<ContextRow> {
        match self {
            Source::Simulation(s) => {
                let Some(i) = s.instance(agent) else {
                    return Vec::new();
                };
                let written = s.written_keys(agent);
                let start = s.start_values(agent);
                let p = i.program();
                p.keys()
                    .iter()
                    .enumerate()
                    .map(|(k, key)| {
                        let value = i.context().get(k as u16).map(|v| s.show_value(v));
                        ContextRow {
                            default: value.is_some() && value == start.get(k).cloned().flatten(),
                            key: key.clone(),
                            value,
                            written: written.contains(&k),
                            ty: Some(p.key_type(k as u16)),
                        }
                    })
                    .collect()
            }
            Source::Trace(r) => {
                let held = r.replay.context_rows(agent);
                let Some(known) = r.keys.get(agent).filter(|k| !k.is_empty()) else {
                    return held;
                };
                // The tree's keys first, in its order; then any other the trace shows.
                let names: foldhash::HashSet<&str> =
                    known.iter().map(|k| k.name.as_str()).collect();
                let (held, others): (Vec<ContextRow>, Vec<ContextRow>) = held
                    .into_iter()
                    .partition(|row| names.contains(row.key.as_str()));
                let mut held: foldhash::HashMap<String, ContextRow> =
                    held.into_iter().map(|row| (row.key.clone(), row)).collect();
                let mut rows: Vec<ContextRow> = known
                    .iter()
                    .map(|k| {
                        let row = held.remove(&k.name);
                        let (value, written) =
                            row.map_or((None, false), |row| (row.value, row.written));
                        // (A key with a default holds no entity: no value is its default.)
                        let default = value.is_none() || value == k.start;
                        ContextRow {
                            key: k.name.clone(),
                            default: default && k.start.is_some(),
                            value: value.or_else(|| k.start.clone()),
                            written,
                            ty: Some(k.ty),
                        }
                    })
                    .collect();
                rows.extend(others);
                rows
            }
        }
    }

    /// Follows agent `agent`'s key `key`: its history, from the first step that can be
    /// shown to the newest, is derived from the events the source has (a live run stepped
    /// again from its first state, a replay's trace) and kept up to date as steps come;
    /// asked again after steps came (a replay extended, a live game), it takes in the new
    /// ones. See [`Source::key_history`].
    pub fn follow_key(&mut self, agent: usize, key: &str) {
        match self {
            Source::Simulation(s) => s.follow(agent, key),
            Source::Trace(r) => {
                let Replayed {
                    replay,
                    index,
                    followed,
                    keys,
                    ..
                } = &mut **r;
                let revision = replay.revision();
                let h = match followed {
                    Some(h) if h.is_of(agent, key) && h.revision == revision => h,
                    _ => {
                        let default = keys
                            .get(agent)
                            .and_then(|k| k.iter().find(|k| k.name == key))
                            .and_then(|k| k.start.clone());
                        // (From the first step only where the trace still has it.)
                        let start = default.clone().filter(|_| replay.first_step() == 0);
                        let mut h = KeyHistory::new(agent, key, start, default);
                        h.revision = revision;
                        h.from = replay.first_step();
                        followed.insert(h)
                    }
                };
                let events = &replay.trace().events;
                for e in events.get(h.scanned..).unwrap_or_default() {
                    if e.agent == agent {
                        let node = e.node.as_ref().and_then(|id| index.get(id).copied());
                        h.take(e.frame(), node, &e.kind, |v| CtxValue::from(v).to_string());
                    }
                }
                h.scanned = events.len();
            }
        }
    }

    /// Stops following a key.
    pub fn unfollow_key(&mut self) {
        match self {
            Source::Simulation(s) => s.unfollow(),
            Source::Trace(r) => r.followed = None,
        }
    }

    /// The history of the key followed ([`Source::follow_key`]), as of the last time it
    /// was asked to follow.
    pub fn key_history(&self) -> Option<&KeyHistory> {
        match self {
            Source::Simulation(s) => s.key_history(),
            Source::Trace(r) => r.followed.as_ref(),
        }
    }

    /// The events of agent `agent` in the last steps up to the shown one, oldest first,
    /// each naming its node by a number that [`Source::node_id`] turns into its trace id.
    pub fn log(&self, agent: usize) -> Vec<Logged> {
        match self {
            Source::Simulation(s) => s.events().filter(|e| e.agent == agent).cloned().collect(),
            Source::Trace(r) => {
                let at = r.replay.step_number();
                r.replay
                    .events_between(at.saturating_sub(LOG_STEPS - 1), at)
                    .iter()
                    .filter(|e| e.agent == agent)
                    .map(|e| Logged {
                        step: e.step,
                        agent,
                        node: e.node.as_ref().and_then(|id| r.index.get(id).copied()),
                        kind: e.kind.clone(),
                    })
                    .collect()
            }
        }
    }

    /// The trace id of node `n` of agent `agent`, as [`Source::log`] numbers it.
    pub fn node_id(&self, agent: usize, n: u32) -> Option<&str> {
        match self {
            Source::Simulation(s) => s
                .instance(agent)
                .and_then(|i| i.program().node_ids().get(n as usize))
                .map(String::as_str),
            Source::Trace(r) => r.ids.get(n as usize).map(|id| &**id),
        }
    }

    /// The name of node `n` of agent `agent` (as [`Source::log`] numbers it) in the event
    /// log: its title as its tree file or SubTree asset gives it, or its kind and trace id
    /// where it has none ([`crate::model::names::spoken`]); `None` (a replay) where its tree
    /// is not known.
    pub fn node_name(&self, agent: usize, n: u32) -> Option<String> {
        match self {
            Source::Simulation(s) => s.instance(agent)?.program().node_name(n),
            Source::Trace(r) => r.titles.get(agent)?.get(&**r.ids.get(n as usize)?).cloned(),
        }
    }

    /// Whether node `n` of agent `agent` (as [`Source::log`] numbers it) is an observer
    /// (`aborts_lower`); a trace does not say.
    pub fn is_observer(&self, agent: usize, n: u32) -> bool {
        match self {
            Source::Simulation(s) => s
                .instance(agent)
                .is_some_and(|i| i.program().is_observer(n)),
            Source::Trace(_) => false,
        }
    }
}
