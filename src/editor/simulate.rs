//! The simulation and debugger panel: the tree being edited runs in its scenario's world
//! (or alone in an empty one) inside a debugging [`Session`], or a recorded trace is
//! replayed; both are a [`debug::Source`](crate::debug::Source). Step, Run, the timeline,
//! breakpoints and triggers drive it; the arena, the watched agent's context and its
//! event log show the step the canvas shows.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use eframe::egui::{self, Color32, RichText};

use super::commands::Command;
use crate::debug::{
    Breakpoint, Hit, Logged, LoggedKind, MarkerKind, NodeView, Replay, Session, Source, describe,
};
use crate::model::{Catalog, NodeId, Tree};
use crate::runtime::Status;
use crate::world::{EntityKind, ItemKind, SimError, Simulation, parse_scenario};

/// The scenario bundled with the bundled sample tree.
pub const SAMPLE_SCENARIO: &str = include_str!("../../sample_trees/droid_arena.scenario.json");

/// Seconds per simulated step.
const DT: f64 = 0.1;

/// What the Game list asks for to leave a game for the tree's own run.
pub const OWN_RUN: usize = usize::MAX;

/// Run speeds, in steps a second.
pub const SPEEDS: std::ops::RangeInclusive<f64> = 1.0..=60.0;

/// Where the run comes from.
enum Origin {
    /// A scenario file (for the bundled sample, its text under a name).
    Scenario(String),
    /// The tree alone, in an empty world; its file, when it has one.
    Solo(Option<PathBuf>),
    /// A recorded trace, replayed (read once, kept across edits of the tree); the panel's
    /// `path` is the trace's.
    Trace,
    /// A game connected to the editor's listener, by its place in the listener's list:
    /// a replay of what it has sent, growing as it sends more.
    Live(usize),
}

/// A node's light on the canvas: its display state and how many steps ago it changed.
#[derive(Clone, Debug, PartialEq)]
pub struct Light {
    /// Status, counters, the step of the last change.
    pub state: NodeView,
    /// Steps since the last change (0: in the shown step).
    pub age: u64,
}

/// The watched agent's lights, by node id.
pub type Live = HashMap<NodeId, Light>;

/// What the event log shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFilter {
    /// Everything.
    #[default]
    All,
    /// Failures, aborts, missing keys, stalls and interrupts.
    Trouble,
    /// One kind of event, by its name in traces (SEMANTICS.md §5).
    Kind(&'static str),
}

impl LogFilter {
    /// The filters offered: everything, trouble, then each kind of event.
    fn offered() -> Vec<LogFilter> {
        use crate::runtime::{EventKindOf as K, Reason, Status::Success};
        let kinds: [K<()>; 11] = [
            K::Enter,
            K::Execute,
            K::Exit(Success, None),
            K::Abort,
            K::Check(true),
            K::Complete(Success),
            K::Restart(Reason::Complete),
            K::Interrupt(()),
            K::ContextMissing(()),
            K::Stall,
            K::Warning(()),
        ];
        [LogFilter::All, LogFilter::Trouble]
            .into_iter()
            .chain(kinds.iter().map(|k| LogFilter::Kind(k.name())))
            .collect()
    }

    fn label(self) -> &'static str {
        match self {
            LogFilter::All => "all events",
            LogFilter::Trouble => "failures and interrupts",
            LogFilter::Kind(name) => name,
        }
    }

    fn keeps(self, kind: &LoggedKind) -> bool {
        match self {
            LogFilter::All => true,
            LogFilter::Trouble => matches!(
                kind,
                LoggedKind::Exit(Status::Failure, _)
                    | LoggedKind::Abort
                    | LoggedKind::ContextMissing(_)
                    | LoggedKind::Stall
                    | LoggedKind::Interrupt(_)
                    | LoggedKind::Complete(Status::Failure)
            ),
            LogFilter::Kind(name) => kind.name() == name,
        }
    }
}

/// A scenario (or the empty world) to run the edited tree in, and the session debugging it.
pub struct SimPanel {
    /// The scenario's path (for the bundled sample, a name only); for a tree run alone,
    /// the tree's.
    pub path: PathBuf,
    origin: Origin,
    run: Option<Source>,
    /// Why the tree cannot run now (validation errors, a missing file, a world needed).
    pub error: Option<String>,
    /// The tree needs a scenario: the panel offers to open one.
    pub needs_scenario: bool,
    /// The agent whose node states light the canvas.
    pub watched: usize,
    /// Stepping continuously.
    pub running: bool,
    /// Steps a second while running.
    pub speed: f64,
    /// Steps owed to the real-time clock while running, and the time it was last read.
    owed: f64,
    clock: Option<f64>,
    live: Live,
    /// The watched agent's running leaves (trace ids).
    running_leaves: Vec<String>,
    /// The tree file the scenario's agents name for the tree being edited: they run the
    /// edited tree, whatever name it is later saved under.
    paired: Option<PathBuf>,
    /// The breakpoints, kept across resets.
    breakpoints: Vec<Breakpoint>,
    /// Why the run last stopped by itself (a breakpoint), shown until the next step.
    pub stopped: Option<String>,
    /// A node to select (a breakpoint hit, a click in the event log), taken by the app.
    select: Option<NodeId>,
    /// A message for the status line, taken by the app.
    news: Option<String>,
    /// The event log's filter, and whether it shows the selected node's events only.
    pub filter: LogFilter,
    /// Show only the selected node's events.
    pub only_selected: bool,
    /// The payload typed for triggers.
    pub payload: String,
    /// The next click in the arena picks the payload's entity (instead of watching).
    pub picking: bool,
    /// Set while the canvas shows one of the run's SubTree assets.
    inside: Option<Inside>,
    /// A game chosen in the panel's list, for the app to attach to.
    attach: Option<usize>,
    /// The file of the tree the canvas shows the run on (the run's own, while a
    /// SubTree's asset is shown): its agents are the ones lit and stopped by breakpoints.
    shown_file: Option<PathBuf>,
    /// What the app said about the run's tree when it was opened (changed since, gone).
    pub note: Option<String>,
    /// For a game shown live: what to tell it (a step, to go on), taken by the app; and
    /// the breakpoints it was last told.
    pub game_asks: Vec<serde_json::Value>,
    /// The breakpoints the game shown live was last told.
    pub sent_breakpoints: Option<serde_json::Value>,
    /// The games connected to the editor, as the app last listed them: name, whether it
    /// is connected, what ended it, events it dropped.
    pub games: Vec<GameRow>,
}

/// A game the editor's listener knows, as the panel lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRow {
    /// Its agents paused at a breakpoint.
    pub paused: Vec<String>,
    /// Its name.
    pub name: String,
    /// Whether it is connected.
    pub connected: bool,
    /// What ended its connection, if something was wrong.
    pub problem: Option<String>,
    /// Events it dropped because the editor could not keep up.
    pub dropped: u64,
}

/// The run's own tree, kept while the canvas shows the asset of one of its SubTrees (the
/// run goes on, and the asset's nodes are lit by the SubTree's inner nodes).
#[derive(Clone, Debug)]
pub struct Inside {
    /// The tree the run runs.
    pub tree: Tree,
    /// Its file.
    pub file: Option<PathBuf>,
    /// The trace id of the SubTree whose asset is shown (`OUTER/INNER` when nested).
    pub prefix: String,
}

impl SimPanel {
    /// The scenario beside a tree file: `NAME.scenario.json` for `NAME.json`.
    pub fn beside(tree: &Path) -> Option<PathBuf> {
        let stem = tree.file_stem()?.to_string_lossy();
        let candidate = tree.with_file_name(format!("{stem}.scenario.json"));
        candidate.is_file().then_some(candidate)
    }

    /// A panel for a scenario file.
    pub fn open(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        parse_scenario(&text, path).map_err(|e| e.to_string())?;
        Ok(Self::from_text(path.to_owned(), text))
    }

    /// A panel for scenario text (the bundled sample's).
    pub fn from_text(path: PathBuf, text: String) -> Self {
        Self::with_origin(path, Origin::Scenario(text))
    }

    /// A panel that runs the tree alone, in an empty world (a tree without a scenario).
    pub fn solo(tree: Option<&Path>) -> Self {
        let path = tree.map_or_else(|| PathBuf::from("untitled"), Path::to_owned);
        Self::with_origin(path, Origin::Solo(tree.map(Path::to_owned)))
    }

    /// A panel that replays the trace `path` has read (`crate::io::read_trace`).
    pub fn replay(path: &Path, trace: crate::io::TraceFile) -> Self {
        let mut panel = Self::with_origin(path.to_owned(), Origin::Trace);
        panel.run = Some(Source::replay(Replay::new(trace)));
        panel.refresh_live();
        panel
    }

    /// A panel that shows game `game` of the editor's listener as it runs, from what it
    /// has sent so far (`agents`, `events`) on: it follows the newest step.
    pub fn game(
        game: usize,
        name: &str,
        hello: &crate::remote::Hello,
        agents: Vec<String>,
        events: Vec<crate::io::TracedEvent>,
    ) -> Self {
        let trace = crate::io::TraceFile {
            header: Some(hello.run.clone()),
            agents,
            events,
        };
        let mut panel = Self::with_origin(PathBuf::from(name), Origin::Live(game));
        let replay = Replay::new(trace);
        let last = replay.last_step();
        panel.run = Some(Source::replay(replay));
        panel.running = true;
        panel.seek(last);
        panel
    }

    /// How many of the game's events the panel has (a replay: all its trace's).
    pub fn fed(&self) -> usize {
        self.run
            .as_ref()
            .and_then(Source::replayed)
            .map_or(0, |r| r.trace().events.len() + r.dropped())
    }

    /// The tree file the canvas shows the run on: only the agents that run it are lit,
    /// and stopped by breakpoints (which name its nodes).
    pub fn set_shown_file(&mut self, file: Option<&Path>) {
        self.shown_file = file.map(Path::to_owned);
        self.apply_breaking();
        self.refresh_live();
    }

    /// The tree file each agent runs, where the run says.
    fn agent_trees(&self) -> Vec<Option<PathBuf>> {
        let Some(run) = &self.run else {
            return Vec::new();
        };
        if let Some(s) = run.session() {
            return s.sim().agents().map(|a| Some(a.tree.clone())).collect();
        }
        let header = run.replayed().and_then(|r| r.trace().header.as_ref());
        run.agent_names()
            .iter()
            .map(|name| {
                let agent = header?.agents.iter().find(|a| a.name == *name)?;
                Some(match self.origin {
                    Origin::Trace => crate::io::resolve_traced(&agent.tree, &self.path),
                    _ => PathBuf::from(&agent.tree),
                })
            })
            .collect()
    }

    /// Whether each agent runs the tree shown (`None`: it cannot be told, every one).
    fn runs_shown(&self) -> Option<Vec<bool>> {
        let shown = self
            .inside
            .as_ref()
            .map_or(self.shown_file.as_deref(), |i| i.file.as_deref())?;
        let same = |p: &Path| p == shown || crate::io::same_file(p, shown);
        Some(
            self.agent_trees()
                .iter()
                .map(|t| t.as_deref().is_none_or(same))
                .collect(),
        )
    }

    fn apply_breaking(&mut self) {
        let mask = self.runs_shown();
        if let Some(run) = &mut self.run {
            run.set_breaking(mask);
        }
    }

    /// The tree file the watched agent runs, when it is not the tree shown.
    pub fn watched_elsewhere(&self) -> Option<PathBuf> {
        let runs = self.runs_shown()?;
        if runs.get(self.watched).copied().unwrap_or(true) {
            return None;
        }
        self.agent_trees().get(self.watched).cloned().flatten()
    }

    /// The breakpoints a game shown live is told: each for its agents that run the tree
    /// shown.
    pub fn game_breakpoints(&self) -> serde_json::Value {
        let mask = self.runs_shown();
        let names = self.run.as_ref().map_or(&[][..], Source::agent_names);
        let agents: Vec<&String> = names
            .iter()
            .enumerate()
            .filter(|(i, _)| mask.as_ref().is_none_or(|m| m.get(*i) == Some(&true)))
            .map(|(_, n)| n)
            .collect();
        let list: Vec<serde_json::Value> = self
            .breakpoints
            .iter()
            .flat_map(|b| {
                agents.iter().map(
                    move |a| serde_json::json!({ "agent": a, "node": b.node, "on": b.on.name() }),
                )
            })
            .collect();
        serde_json::json!({ "breakpoints": list })
    }

    /// The game shown live, by its place in the listener's list.
    pub fn live_game(&self) -> Option<usize> {
        match self.origin {
            Origin::Live(i) => Some(i),
            _ => None,
        }
    }

    /// The game chosen in the panel's list, taken (for the app to attach to).
    pub fn take_attach(&mut self) -> Option<usize> {
        self.attach.take()
    }

    /// What the game shown live sent since the last frame. While the view follows the
    /// game (Run), it shows the newest step, unless a breakpoint hits in what came: then
    /// it stops there (the game runs on).
    pub fn feed(&mut self, agents: &[String], events: Vec<crate::io::TracedEvent>) {
        if events.is_empty()
            && agents.len() <= self.run.as_ref().map_or(0, |r| r.agent_names().len())
        {
            return;
        }
        let Some(run) = &mut self.run else { return };
        run.extend(agents, events);
        if self.running {
            let hits = run.run(u64::MAX);
            self.after_steps(hits);
        } else {
            self.refresh_live();
        }
    }

    fn with_origin(path: PathBuf, origin: Origin) -> Self {
        Self {
            path,
            origin,
            run: None,
            error: None,
            needs_scenario: false,
            watched: 0,
            running: false,
            speed: 10.0,
            owed: 0.0,
            clock: None,
            live: Live::new(),
            running_leaves: Vec::new(),
            paired: None,
            breakpoints: Vec::new(),
            stopped: None,
            select: None,
            news: None,
            filter: LogFilter::All,
            only_selected: false,
            payload: String::new(),
            picking: false,
            inside: None,
            attach: None,
            shown_file: None,
            note: None,
            game_asks: Vec::new(),
            sent_breakpoints: None,
            games: Vec::new(),
        }
    }

    /// Shows the asset of the SubTree `node` of the tree shown now (`tree`, from `file`)
    /// while the run goes on: the asset's nodes take the lights of the SubTree's inner
    /// nodes, and breakpoints set on them break inside this SubTree.
    pub fn enter(&mut self, tree: &Tree, file: Option<&Path>, node: &NodeId) {
        match &mut self.inside {
            Some(inside) => inside.prefix = format!("{}/{node}", inside.prefix),
            None => {
                self.inside = Some(Inside {
                    tree: tree.clone(),
                    file: file.map(Path::to_owned),
                    prefix: node.as_str().to_owned(),
                });
            }
        }
        self.apply_breaking();
        self.refresh_live();
    }

    /// The run's own tree, while the canvas shows one of its SubTree assets.
    pub fn inside(&self) -> Option<&Inside> {
        self.inside.as_ref()
    }

    /// Shows the run's own tree again; returns it, with its file.
    pub fn leave(&mut self) -> Option<Inside> {
        let inside = self.inside.take();
        self.apply_breaking();
        self.refresh_live();
        inside
    }

    /// The node of the shown tree that the run's node `id` (a trace id) is, if it is one.
    pub fn shown(&self, id: &str) -> Option<NodeId> {
        match &self.inside {
            None => Some(NodeId::new(id)),
            Some(inside) => id
                .strip_prefix(inside.prefix.as_str())?
                .strip_prefix('/')
                .map(NodeId::new),
        }
    }

    /// The run's id (trace id) of the shown tree's node `node`.
    pub fn traced(&self, node: &NodeId) -> String {
        match &self.inside {
            None => node.as_str().to_owned(),
            Some(inside) => format!("{}/{node}", inside.prefix),
        }
    }

    /// Whether the tree runs alone (no scenario).
    pub fn is_solo(&self) -> bool {
        matches!(self.origin, Origin::Solo(_))
    }

    /// Whether the panel replays a recorded run: a trace, or what a game sends.
    pub fn is_replay(&self) -> bool {
        matches!(self.origin, Origin::Trace | Origin::Live(_))
    }

    /// How many nodes the replayed trace's first agent names that `tree` does not have
    /// (a node inside a SubTree counts by its SubTree).
    pub fn unknown_nodes(&self, tree: &Tree) -> usize {
        let Some(r) = self.run.as_ref().and_then(Source::replayed) else {
            return 0;
        };
        let mut unknown = std::collections::HashSet::new();
        for e in r.trace().events.iter().filter(|e| e.agent == 0) {
            if let Some(id) = &e.node {
                let top = id.split('/').next().unwrap_or_default();
                if !tree.contains(&NodeId::new(top)) {
                    unknown.insert(id.clone());
                }
            }
        }
        unknown.len()
    }

    /// Makes the agents that run `tree` (the edited tree's file; the bundled sample's name
    /// when it has none) run the tree being edited, from now on.
    pub fn pair_with(&mut self, tree: Option<&Path>) {
        self.paired = Some(tree.map_or_else(|| PathBuf::from("droid_arena.json"), Path::to_owned));
        if let Origin::Solo(path) = &mut self.origin {
            *path = tree.map(Path::to_owned);
            self.path = tree.map_or_else(|| PathBuf::from("untitled"), Path::to_owned);
        }
    }

    /// Starts over from the first state with `tree` as edited, in place of the tree file
    /// it was paired with (else `tree_path`).
    /// While a SubTree's asset is shown, the run's own tree is run instead.
    /// A replayed trace stays as it is: its events match the edited tree's nodes by id.
    pub fn reset(&mut self, catalog: &Catalog, tree: &Tree, tree_path: &Path) {
        if self.is_replay() {
            self.refresh_live();
            return;
        }
        let own = self.inside.as_ref().map(|i| i.tree.clone());
        let tree = own.as_ref().unwrap_or(tree);
        let paired = self.paired.clone();
        let tree_path = paired.as_deref().unwrap_or(tree_path);
        self.run = None;
        self.error = None;
        self.needs_scenario = false;
        self.stopped = None;
        let sim = match &self.origin {
            Origin::Trace | Origin::Live(_) => return,
            Origin::Solo(path) => Simulation::solo(path.as_deref(), tree, catalog, 0),
            Origin::Scenario(text) => match parse_scenario(text, &self.path) {
                Ok(parsed) => {
                    Simulation::with_edited(&self.path, parsed, catalog, 0, (tree_path, tree))
                }
                Err(e) => {
                    self.error = Some(e.to_string());
                    return;
                }
            },
        };
        match sim {
            Ok(sim) => {
                self.watched = self.watched.min(sim.agents().count().saturating_sub(1));
                let mut session = Session::new(sim, DT);
                session.set_breakpoints(self.breakpoints.clone());
                self.run = Some(Source::Simulation(Box::new(session)));
                self.apply_breaking();
            }
            Err(SimError::Invalid { problems, .. } | SimError::Unrunnable { problems, .. }) => {
                self.running = false;
                self.error = Some(format!(
                    "the tree has {} error(s); the Problems panel lists them",
                    problems.len()
                ));
            }
            Err(e @ SimError::NeedsScenario { .. }) => {
                self.running = false;
                self.needs_scenario = true;
                self.error = Some(e.to_string());
            }
            Err(e) => {
                self.running = false;
                self.error = Some(e.to_string());
            }
        }
        self.refresh_live();
    }

    /// The simulation at the shown step, when the tree runs in the world (not for a
    /// replayed trace).
    pub fn sim(&self) -> Option<&Simulation> {
        self.session().map(Session::sim)
    }

    /// The tree file the run's stand-ins are looked up by: the tree run alone, or the
    /// scenario's tree paired with the one being edited.
    fn run_tree(&self) -> PathBuf {
        match (&self.origin, &self.paired) {
            (Origin::Solo(_), _) | (_, None) => self.path.clone(),
            (_, Some(p)) => p.clone(),
        }
    }

    /// Whether the node shown as `node` runs as a stand-in, and as what.
    pub fn stand_in(&self, node: &NodeId) -> Option<crate::runtime::StandInKind> {
        self.sim()?
            .stand_ins(&self.run_tree())?
            .kind_of(&self.traced(node))
    }

    /// What the stand-in shown as `node` is forced to at the shown step.
    pub fn forced(&self, node: &NodeId) -> Option<crate::runtime::Outcome> {
        self.session()?.forced(&self.run_tree(), &self.traced(node))
    }

    /// Forces the stand-in shown as `node` to report `outcome` (`None`: its script) from
    /// the next step on; false when it is no stand-in.
    pub fn force(&mut self, node: &NodeId, outcome: Option<crate::runtime::Outcome>) -> bool {
        let (tree, id) = (self.run_tree(), self.traced(node));
        self.run
            .as_mut()
            .and_then(Source::session_mut)
            .is_some_and(|s| s.force(&tree, &id, outcome))
    }

    /// The live debugging session, when the tree runs in the world.
    pub fn session(&self) -> Option<&Session> {
        self.run.as_ref().and_then(Source::session)
    }

    /// The run being debugged, live or replayed.
    pub fn source(&self) -> Option<&Source> {
        self.run.as_ref()
    }

    /// The watched agent's name.
    pub fn watched_name(&self) -> Option<&str> {
        self.run
            .as_ref()
            .and_then(|s| s.agent_names().get(self.watched))
            .map(String::as_str)
    }

    /// Takes `n` steps (stopping at a breakpoint).
    pub fn step_by(&mut self, n: u64) {
        // A game shown live, at its newest step with the watched agent paused: the game
        // steps it.
        if self.live_game().is_some()
            && self
                .run
                .as_ref()
                .is_some_and(|r| r.step_number() >= r.head())
            && let Some(name) = self.watched_name().map(str::to_owned)
            && self.games.iter().any(|g| g.paused.contains(&name))
        {
            for _ in 0..n {
                self.game_asks.push(serde_json::json!({ "step": name }));
            }
            return;
        }
        let hits = match &mut self.run {
            Some(s) => s.run(n),
            None => return,
        };
        if self
            .run
            .as_ref()
            .is_some_and(|s| s.step_number() >= s.head())
            && matches!(self.origin, Origin::Trace)
        {
            self.running = false;
        }
        self.after_steps(hits);
    }

    /// Steps until the watched agent's running leaf changes or a breakpoint hits.
    pub fn until_change(&mut self) {
        let watched = self.watched;
        let Some(s) = &mut self.run else { return };
        let (hits, taken) = s.run_until_change(watched);
        if hits.is_empty() && taken == crate::debug::UNTIL_CHANGE_LIMIT {
            self.stopped = Some(format!("Nothing changed in {taken} steps"));
            self.news = self.stopped.clone();
            self.refresh_live();
            return;
        }
        self.after_steps(hits);
    }

    /// Shows step `k` (a past one rebuilt from the history).
    pub fn seek(&mut self, k: u64) {
        if let Some(s) = &mut self.run {
            s.seek(k);
            self.stopped = None;
        }
        self.refresh_live();
    }

    /// The shown step.
    pub fn step_number(&self) -> u64 {
        self.run.as_ref().map_or(0, Source::step_number)
    }

    fn after_steps(&mut self, hits: Vec<Hit>) {
        self.stopped = None;
        if let Some(hit) = hits.first() {
            self.running = false;
            self.watched = hit.agent;
            let agent = self
                .run
                .as_ref()
                .and_then(|s| s.agent_names().get(hit.agent).cloned())
                .unwrap_or_default();
            self.stopped = Some(format!(
                "Breakpoint: {} on {} of {agent}, step {}",
                hit.breakpoint.node,
                hit.breakpoint.on.name(),
                hit.step
            ));
            self.select = self.shown(&hit.breakpoint.node);
            self.news = self.stopped.clone();
        }
        self.refresh_live();
    }

    /// Sets or clears a breakpoint on entering `node`; returns whether it is now set.
    pub fn toggle_breakpoint(&mut self, node: &NodeId) -> bool {
        let b = Breakpoint {
            node: self.traced(node),
            on: crate::debug::BreakOn::Enter,
        };
        let now = match self.breakpoints.iter().position(|x| x.node == b.node) {
            Some(i) => {
                self.breakpoints.remove(i);
                false
            }
            None => {
                self.breakpoints.push(b);
                true
            }
        };
        if let Some(s) = &mut self.run {
            s.set_breakpoints(self.breakpoints.clone());
        }
        now
    }

    /// Sets the condition of the breakpoint on `node` (adding it if there is none).
    pub fn set_breakpoint(&mut self, node: &NodeId, on: crate::debug::BreakOn) {
        let node = self.traced(node);
        self.breakpoints.retain(|b| b.node != node);
        self.breakpoints.push(Breakpoint { node, on });
        if let Some(s) = &mut self.run {
            s.set_breakpoints(self.breakpoints.clone());
        }
    }

    /// The breakpoints (on the run's nodes: trace ids).
    pub fn breakpoints(&self) -> &[Breakpoint] {
        &self.breakpoints
    }

    /// Replaces the breakpoints (read from the settings).
    pub fn set_breakpoints(&mut self, list: Vec<Breakpoint>) {
        self.breakpoints = list;
        if let Some(s) = &mut self.run {
            s.set_breakpoints(self.breakpoints.clone());
        }
    }

    /// A node the panel asks the app to select (a breakpoint hit, a click in the log).
    pub fn take_select(&mut self) -> Option<NodeId> {
        self.select.take()
    }

    /// A message for the status line (why the run stopped, a trigger queued).
    pub fn take_news(&mut self) -> Option<String> {
        self.news.take()
    }

    /// Queues a trigger of the watched agent's Interrupt `id` before the next step.
    pub fn trigger(&mut self, id: &str) -> bool {
        let Some(name) = self.watched_name().map(str::to_owned) else {
            return false;
        };
        let payload = self.payload.trim().to_owned();
        let payload = (!payload.is_empty()).then_some(payload);
        self.run
            .as_mut()
            .and_then(Source::session_mut)
            .is_some_and(|s| s.trigger(Some(&name), id, payload.as_deref()) > 0)
    }

    /// The watched agent's node lights, by node id, for painting the canvas; kept up to
    /// date by each step, reset and change of the watched agent.
    pub fn live(&self) -> &Live {
        &self.live
    }

    /// The watched agent's running leaves, as ids in the shown tree (`SUBTREE/INNER`
    /// inside its subtrees).
    pub fn running_leaves(&self) -> &[String] {
        &self.running_leaves
    }

    fn refresh_live(&mut self) {
        self.live.clear();
        self.running_leaves.clear();
        // An agent of another tree lights nothing here (its node ids are another tree's).
        if self.watched_elsewhere().is_some() {
            return;
        }
        let Some(run) = &self.run else { return };
        let step = run.step_number();
        self.running_leaves = run
            .running_leaves(self.watched)
            .iter()
            .filter_map(|id| self.shown(id))
            .map(|id| id.as_str().to_owned())
            .collect();
        for (id, state) in run.lights(self.watched) {
            if let Some(id) = self.shown(&id) {
                let age = step.saturating_sub(state.step);
                self.live.insert(id, Light { state, age });
            }
        }
    }

    /// Steps owed to real time while running, at `speed` steps a second, taken now.
    fn pace(&mut self, now: f64) {
        let last = self.clock.replace(now).unwrap_or(now);
        // A game shown live steps itself: Run follows what it sends (`feed`).
        if !self.running || self.live_game().is_some() {
            self.owed = 0.0;
            return;
        }
        // A frame late by more than a quarter second does not run a burst to catch up.
        self.owed += (now - last).min(0.25) * self.speed;
        // (A hair of slack, so 60 frames of a 60th of a second make 60 steps.)
        let due = (self.owed + 1e-9).floor();
        if due >= 1.0 {
            self.owed -= due;
            self.step_by(due as u64);
        }
    }

    /// Draws the panel: controls, the timeline, the arena, the watched agent's context
    /// and its event log. Returns the commands its buttons asked for.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        tree: &Tree,
        selected: Option<&NodeId>,
    ) -> Vec<Command> {
        let mut asked = Vec::new();
        let now = ui.input(|i| i.time);
        self.pace(now);
        let watched = self.watched;
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        ui.horizontal(|ui| {
            ui.label(RichText::new("Simulation").strong());
            if let Some(i) = self.live_game() {
                let state = match self.games.get(i) {
                    Some(g) if g.connected => "connected".to_owned(),
                    Some(GameRow {
                        problem: Some(p), ..
                    }) => format!("ended: {p}"),
                    _ => "ended".to_owned(),
                };
                let from = self
                    .run
                    .as_ref()
                    .and_then(Source::replayed)
                    .and_then(|r| r.trace().events.first())
                    .map_or(0, |e| e.step.max(1));
                if from > 1 {
                    ui.label(format!("live: {name}, {state}, received from step {from}"));
                } else {
                    ui.label(format!("live: {name}, {state}"));
                }
                if let Some(g) = self.games.get(i).filter(|g| !g.paused.is_empty()) {
                    ui.label(
                        RichText::new(format!(
                            "paused in the game: {} (Step steps it, Run lets it go)",
                            g.paused.join(", ")
                        ))
                        .color(Color32::from_rgb(240, 200, 60)),
                    );
                }
                if let Some(g) = self.games.get(i).filter(|g| g.dropped > 0) {
                    ui.label(
                        RichText::new(format!("{} events dropped by the game", g.dropped))
                            .color(Color32::from_rgb(240, 200, 60)),
                    );
                }
            } else if self.is_replay() {
                ui.label(format!("replaying {name}"));
            } else if self.is_solo() {
                ui.label(format!("{name} alone in an empty world"));
            } else {
                ui.label(format!("in {name}"));
            }
            let can = self.run.is_some();
            let run_label = if self.running { "Pause" } else { "Run" };
            for (command, label, enabled) in [
                (Command::SimBack, "◀", can),
                (Command::SimStep, "Step", can),
                (Command::SimStep10, "×10", can),
                (Command::SimUntilChange, "Until change", can),
                (Command::SimRunPause, run_label, can),
                (Command::SimReset, "Reset", true),
            ] {
                if command_button_ui(ui, command, label, enabled) {
                    asked.push(command);
                }
            }
            ui.add(
                egui::Slider::new(&mut self.speed, SPEEDS)
                    .integer()
                    .suffix(" steps/s"),
            )
            .on_hover_text("Run speed");
            // The games connected to the editor: one is shown live when chosen.
            if !self.games.is_empty() {
                let label = ui.label("Game");
                let shown = self
                    .live_game()
                    .and_then(|i| self.games.get(i))
                    .map_or_else(|| "choose…".to_owned(), |g| g.name.clone());
                egui::ComboBox::from_id_salt("live-game")
                    .selected_text(shown)
                    .show_ui(ui, |ui| {
                        if self.live_game().is_some()
                            && ui.selectable_label(false, "this tree's own run").clicked()
                        {
                            self.attach = Some(OWN_RUN);
                        }
                        for (i, g) in self.games.iter().enumerate() {
                            let text = if g.connected {
                                g.name.clone()
                            } else {
                                format!("{} (ended)", g.name)
                            };
                            if ui
                                .selectable_label(self.live_game() == Some(i), text)
                                .clicked()
                            {
                                self.attach = Some(i);
                            }
                        }
                    })
                    .response
                    .labelled_by(label.id);
            }
            if let Some(run) = &self.run {
                let names = run.agent_names().to_vec();
                let label = ui.label("Watch");
                egui::ComboBox::from_id_salt("watched-agent")
                    .selected_text(names.get(self.watched).cloned().unwrap_or_default())
                    .show_ui(ui, |ui| {
                        for (i, n) in names.iter().enumerate() {
                            ui.selectable_value(&mut self.watched, i, n);
                        }
                    })
                    .response
                    .labelled_by(label.id);
                let step = run.step_number();
                let dt = run
                    .replayed()
                    .and_then(|r| r.trace().header.as_ref())
                    .map_or(DT, |h| h.dt);
                match run.session() {
                    Some(session) => {
                        let world = session.sim().world();
                        ui.label(format!(
                            "step {}, {:.1} s",
                            world.step_number(),
                            world.time()
                        ));
                    }
                    None => {
                        ui.label(format!(
                            "step {step} of {}, {:.1} s",
                            run.head(),
                            step as f64 * dt
                        ));
                    }
                }
                // What the watched agent runs now, by title.
                let running: Vec<String> = run
                    .running_leaves(self.watched)
                    .iter()
                    .map(|id| {
                        self.shown(id)
                            .and_then(|shown| tree.node(&shown))
                            .map_or_else(|| id.clone(), |n| n.label().to_owned())
                    })
                    .collect();
                if !running.is_empty() {
                    ui.label(
                        RichText::new(format!("running: {}", running.join(", ")))
                            .color(super::viewer::status_colour(Status::Running)),
                    );
                }
            }
        });
        // A SubTree's tree shown while the run goes on: which SubTree, and the way back.
        if let Some(inside) = &self.inside {
            ui.horizontal(|ui| {
                let file = inside
                    .file
                    .as_deref()
                    .and_then(Path::file_name)
                    .map_or_else(
                        || "the running tree".to_owned(),
                        |f| f.to_string_lossy().into_owned(),
                    );
                let back = format!("◀ Back to {file}");
                if command_button_ui(ui, Command::BackToRunTree, &back, true) {
                    asked.push(Command::BackToRunTree);
                }
                ui.label(
                    RichText::new(format!(
                        "showing the tree of SubTree {} inside the run",
                        inside.prefix
                    ))
                    .color(Color32::from_rgb(150, 160, 240)),
                );
            });
        }
        if let Some(e) = &self.error {
            ui.horizontal(|ui| {
                ui.label(
                    RichText::new(format!("Cannot run: {e}")).color(Color32::from_rgb(235, 90, 90)),
                );
                if self.needs_scenario && ui.button("Open Scenario…").clicked() {
                    asked.push(Command::OpenScenario);
                }
            });
        }
        if let Some(note) = &self.note {
            ui.label(RichText::new(note).color(Color32::from_rgb(240, 200, 60)));
        }
        if let Some(other) = self.watched_elsewhere() {
            let file = other.file_name().map_or_else(
                || other.display().to_string(),
                |f| f.to_string_lossy().into_owned(),
            );
            ui.label(
                RichText::new(format!(
                    "{} runs {file}, not this tree: its nodes are not lit here, and breakpoints here do not stop it",
                    self.watched_name().unwrap_or_default()
                ))
                .color(Color32::from_rgb(150, 160, 240)),
            );
        }
        if let Some(why) = &self.stopped {
            ui.label(RichText::new(why).color(Color32::from_rgb(240, 200, 60)));
        }
        if self.run.is_some() {
            self.timeline_ui(ui);
            self.triggers_ui(ui, tree);
            ui.horizontal_top(|ui| {
                self.arena_ui(ui);
                ui.separator();
                ui.vertical(|ui| {
                    ui.set_width(320.0);
                    self.context_ui(ui, tree, selected);
                });
                ui.separator();
                ui.vertical(|ui| self.log_ui(ui, tree, selected));
            });
        }
        if self.watched != watched {
            self.refresh_live();
        }
        if self.running && self.run.is_some() {
            ui.ctx().request_repaint();
        }
        asked
    }

    /// The run so far as a bar: markers for the watched agent's interrupts, failures,
    /// stalls, missing keys and breakpoint hits; a click or drag shows that step.
    fn timeline_ui(&mut self, ui: &mut egui::Ui) {
        let Some(run) = &self.run else { return };
        let (head, at) = (run.head().max(1), run.step_number());
        let width = ui.available_width().max(100.0);
        let (rect, response) =
            ui.allocate_exact_size(egui::vec2(width, 22.0), egui::Sense::click_and_drag());
        response
            .widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Slider, true, "Timeline"));
        let response = response.on_hover_text("Drag to any step of the run (Shift+← / Shift+→)");
        let painter = ui.painter_at(rect);
        let bar = rect.shrink2(egui::vec2(6.0, 7.0));
        let x_of = |step: u64| bar.left() + bar.width() * (step as f32 / head as f32);
        painter.rect_filled(bar, 3.0, Color32::from_gray(55));
        for m in run.markers() {
            if m.agent != self.watched && m.kind != MarkerKind::Breakpoint {
                continue;
            }
            let colour = match m.kind {
                MarkerKind::Interrupt => Color32::from_rgb(230, 160, 60),
                MarkerKind::Failure => Color32::from_rgb(235, 90, 80),
                MarkerKind::Stall => Color32::from_rgb(200, 120, 220),
                MarkerKind::ContextMissing => Color32::from_rgb(90, 200, 220),
                MarkerKind::Breakpoint => Color32::from_rgb(240, 60, 60),
            };
            let x = x_of(m.step);
            painter.line_segment(
                [
                    egui::pos2(x, rect.top() + 2.0),
                    egui::pos2(x, rect.bottom() - 2.0),
                ],
                (2.0, colour),
            );
        }
        let x = x_of(at);
        painter.rect_filled(
            egui::Rect::from_min_max(bar.min, egui::pos2(x, bar.max.y)),
            3.0,
            Color32::from_rgb(70, 110, 160),
        );
        painter.circle_filled(
            egui::pos2(x, rect.center().y),
            7.0,
            Color32::from_rgb(120, 180, 255),
        );
        if (response.clicked() || response.dragged())
            && let Some(p) = response.interact_pointer_pos()
        {
            let f = ((p.x - bar.left()) / bar.width()).clamp(0.0, 1.0);
            let k = (f * head as f32).round() as u64;
            if k != at {
                self.running = false;
                self.seek(k);
            }
        }
    }

    /// A button per Interrupt of the watched agent's tree, and the payload they carry.
    fn triggers_ui(&mut self, ui: &mut egui::Ui, tree: &Tree) {
        let Some(name) = self.watched_name().map(str::to_owned) else {
            return;
        };
        let live = self.live_game().is_some() && self.watched_elsewhere().is_none();
        let ids: Vec<String> = if live {
            // A game's agent: the Interrupts of the tree shown, which it runs.
            tree.nodes()
                .iter()
                .filter_map(|n| n.fields.get("interrupt_id")?.as_str().map(str::to_owned))
                .filter(|id| !id.is_empty())
                .collect()
        } else {
            self.sim()
                .and_then(|s| s.instance(&name))
                .map(|i| i.program().interrupt_ids().map(str::to_owned).collect())
                .unwrap_or_default()
        };
        if ids.is_empty() {
            return;
        }
        let entities: Vec<String> = self
            .sim()
            .map(|s| {
                s.world()
                    .entities()
                    .iter()
                    .filter(|e| e.alive)
                    .map(|e| e.name.clone())
                    .collect()
            })
            .unwrap_or_default();
        ui.horizontal(|ui| {
            ui.label("Trigger");
            let mut fired = None;
            for id in &ids {
                if ui
                    .button(format!("⚡ {id}"))
                    .on_hover_text(format!(
                        "Start {name}'s Interrupt '{id}' before the next step"
                    ))
                    .clicked()
                {
                    fired = Some(id.clone());
                }
            }
            let label = ui.label("payload");
            ui.add(
                egui::TextEdit::singleline(&mut self.payload)
                    .hint_text("text or entity")
                    .desired_width(110.0),
            )
            .labelled_by(label.id);
            egui::ComboBox::from_id_salt("payload-entity")
                .selected_text("entity…")
                .show_ui(ui, |ui| {
                    for e in &entities {
                        if ui.selectable_label(self.payload == *e, e).clicked() {
                            self.payload = e.clone();
                        }
                    }
                });
            ui.toggle_value(&mut self.picking, "Pick in arena")
                .on_hover_text("The next click on an entity in the arena makes it the payload");
            if let Some(id) = fired.as_ref()
                && live
            {
                let payload = self.payload.trim();
                let payload = (!payload.is_empty()).then(|| payload.to_owned());
                self.game_asks.push(serde_json::json!({
                    "trigger": { "agent": name, "id": id, "payload": payload }
                }));
                self.news = Some(format!(
                    "Trigger '{id}' sent to the game for {name}: the game starts it"
                ));
            } else if let Some(id) = fired
                && self.trigger(&id)
            {
                self.news = Some(format!(
                    "Trigger '{id}' queued for {name}: it starts at the next step"
                ));
            }
        });
    }

    /// The watched agent's context (every key, its value in words; keys written in the
    /// shown step highlighted, the selected node's keys marked) and its own state.
    fn context_ui(&self, ui: &mut egui::Ui, tree: &Tree, selected: Option<&NodeId>) {
        let Some(run) = &self.run else { return };
        let Some(name) = run.agent_names().get(self.watched) else {
            return;
        };
        ui.label(RichText::new(format!("{name}: context")).strong());
        let rows = run.context(self.watched);
        let uses: Vec<String> = selected
            .and_then(|id| tree.node(id))
            .map(|n| {
                n.fields
                    .iter()
                    .filter(|(k, _)| k.contains("context") || k.as_str() == "key")
                    .filter_map(|(_, v)| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        if rows.is_empty() {
            let none = if self.is_replay() {
                "(nothing stored in its context so far)"
            } else {
                "(its tree uses no context keys)"
            };
            ui.label(RichText::new(none).weak());
        }
        egui::Grid::new("context-grid")
            .striped(true)
            .show(ui, |ui| {
                for row in &rows {
                    let mut key_text = RichText::new(row.key.as_str()).monospace();
                    if uses.contains(&row.key) {
                        key_text = key_text.color(Color32::from_rgb(120, 180, 255)).strong();
                    }
                    ui.label(key_text);
                    let mut value_text = RichText::new(row.value.as_deref().unwrap_or("—"));
                    if row.written {
                        value_text = value_text.color(Color32::from_rgb(250, 220, 120)).strong();
                    }
                    ui.label(value_text);
                    ui.end_row();
                }
            });
        if let Some(s) = self
            .sim()
            .and_then(|sim| sim.summary().get(self.watched).cloned())
        {
            ui.add_space(4.0);
            ui.label(RichText::new(format!("{name}: state")).strong());
            let mut lines = vec![format!(
                "at ({:.2}, {:.2}), health {}/{}",
                s.pos[0], s.pos[1], s.health.0, s.health.1
            )];
            if !s.team.is_empty() {
                lines.push(format!("team {}", s.team));
            }
            lines.push(format!("hunger {:.2}", s.hunger));
            lines.push(format!(
                "holds {}",
                s.holding.clone().unwrap_or_else(|| "nothing".into())
            ));
            if !s.alive {
                lines.push("destroyed".into());
            }
            for l in lines {
                ui.label(RichText::new(l).small());
            }
        }
    }

    /// The watched agent's events, by step, newest last; a click selects the node.
    fn log_ui(&mut self, ui: &mut egui::Ui, tree: &Tree, selected: Option<&NodeId>) {
        let Some(run) = &self.run else { return };
        ui.horizontal(|ui| {
            ui.label(RichText::new("Event log").strong());
            let show = ui.label("Show");
            egui::ComboBox::from_id_salt("log-filter")
                .selected_text(self.filter.label())
                .show_ui(ui, |ui| {
                    for f in LogFilter::offered() {
                        ui.selectable_value(&mut self.filter, f, f.label());
                    }
                })
                .response
                .labelled_by(show.id);
            ui.checkbox(&mut self.only_selected, "selected node only");
        });
        let watched = self.watched;
        let events: Vec<Logged> = run.log(watched);
        let id_of = |n: u32| run.node_id(watched, n).unwrap_or("");
        // An observer: the run says so, or (a replay) the tree shown does.
        let observer = |n: u32| {
            run.is_observer(watched, n)
                || self
                    .shown(id_of(n))
                    .and_then(|shown| tree.node(&shown))
                    .is_some_and(|node| {
                        node.fields.get("aborts_lower").and_then(|v| v.as_bool()) == Some(true)
                    })
        };
        let ids: Vec<&str> = events.iter().map(|e| e.node.map_or("", id_of)).collect();
        let title = |n: u32| {
            let id = id_of(n);
            self.shown(id)
                .and_then(|shown| tree.node(&shown))
                .map_or_else(|| id.to_owned(), |n| n.label().to_owned())
        };
        let selected = selected.map(|s| self.traced(s));
        let mut clicked = None;
        egui::ScrollArea::vertical()
            .id_salt("event-log")
            .max_height(110.0)
            .stick_to_bottom(true)
            .auto_shrink([false, true])
            .show(ui, |ui| {
                let mut last_step = None;
                for (i, e) in events.iter().enumerate() {
                    if !self.filter.keeps(&e.kind)
                        || (self.only_selected && selected.as_deref().is_none_or(|s| s != ids[i]))
                    {
                        continue;
                    }
                    let step = e.step.max(1);
                    if last_step != Some(step) {
                        ui.label(RichText::new(format!("step {step}")).weak().small());
                        last_step = Some(step);
                    }
                    let text = describe(&events, i, &title, &observer);
                    let colour = match e.kind {
                        LoggedKind::Exit(Status::Failure, _)
                        | LoggedKind::Complete(Status::Failure) => Color32::from_rgb(240, 120, 100),
                        LoggedKind::Exit(Status::Success, _) => Color32::from_rgb(120, 210, 130),
                        LoggedKind::Interrupt(_) => Color32::from_rgb(230, 160, 60),
                        LoggedKind::Abort | LoggedKind::Stall | LoggedKind::ContextMissing(_) => {
                            Color32::from_rgb(220, 140, 220)
                        }
                        _ => ui.visuals().text_color(),
                    };
                    let r = ui.add(
                        egui::Label::new(RichText::new(text).small().color(colour))
                            .sense(egui::Sense::click()),
                    );
                    if r.clicked() && !ids[i].is_empty() {
                        clicked = Some(ids[i].to_owned());
                    }
                }
            });
        if let Some(id) = clicked {
            self.select = self.shown(&id);
        }
    }

    /// The arena, one square a tile: a click on an agent watches it, hovering names what
    /// is there, and the watched agent's context entities are joined to it by a line.
    fn arena_ui(&mut self, ui: &mut egui::Ui) {
        let Some(sim) = self.sim() else {
            let note = if self.live_game().is_some() {
                "A game's run:\nits world is the\ngame's to draw"
            } else {
                "A recorded run:\nthe trace holds\nno world to draw"
            };
            if self.is_replay() {
                ui.label(RichText::new(note).weak());
            }
            return;
        };
        let world = sim.world();
        let (w, h) = (world.width().max(1) as f32, world.height().max(1) as f32);
        // As large as the panel leaves room for: resizing the panel resizes the arena.
        let room = (ui.clip_rect().bottom() - ui.cursor().top() - 6.0).max(60.0);
        let tile = (room / h).min(360.0 / w).clamp(4.0, 24.0);
        let (rect, response) =
            ui.allocate_exact_size(egui::vec2(w * tile, h * tile), egui::Sense::click());
        response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Other, true, "Arena"));
        let at = |x: f32, y: f32| rect.min + egui::vec2((x + 0.5) * tile, (y + 0.5) * tile);
        draw_arena(ui, sim, self.watched, rect, tile);
        // The watched agent's targets: every entity in its context.
        let watched_agent = sim
            .agents()
            .nth(self.watched)
            .map(|a| (a.entity, a.name.clone()));
        if let Some((me, name)) = &watched_agent
            && let (Some(instance), Some(from)) = (sim.instance(name), world.position_of(*me))
        {
            let painter = ui.painter_at(rect);
            // The path it walks, tile by tile.
            let mut last = at(from[0] as f32, from[1] as f32);
            for (x, y) in world.plan_of(*me) {
                let p = at(x as f32, y as f32);
                painter.line_segment(
                    [last, p],
                    egui::Stroke::new(2.0, Color32::from_rgba_unmultiplied(250, 220, 120, 200)),
                );
                painter.circle_filled(p, tile * 0.1, Color32::from_rgb(250, 220, 120));
                last = p;
            }
            for k in 0..instance.program().keys().len() {
                if let Some(to) = world.resolve(instance.context().get(k as u16)) {
                    painter.line_segment(
                        [
                            at(from[0] as f32, from[1] as f32),
                            at(to[0] as f32, to[1] as f32),
                        ],
                        egui::Stroke::new(1.5, Color32::from_rgba_unmultiplied(120, 180, 255, 160)),
                    );
                }
            }
        }
        let nearest = |p: egui::Pos2| {
            world
                .entities()
                .iter()
                .enumerate()
                .filter(|(_, e)| e.alive)
                .map(|(i, e)| (i, e, at(e.pos[0] as f32, e.pos[1] as f32).distance(p)))
                .filter(|(_, _, d)| *d < tile * 0.8)
                .min_by(|a, b| a.2.total_cmp(&b.2))
                .map(|(i, e, _)| (i as u64, e.name.clone()))
        };
        let hovered = response.hover_pos().and_then(nearest);
        let mut watch = None;
        let mut picked = None;
        if response.clicked()
            && let Some(p) = response.interact_pointer_pos()
            && let Some((entity, name)) = nearest(p)
        {
            if self.picking {
                picked = Some(name);
            } else {
                watch = sim.agents().position(|a| a.entity == entity);
            }
        }
        if let Some((_, n)) = hovered {
            response.on_hover_text(n);
        }
        if let Some(i) = watch {
            self.watched = i;
            self.refresh_live();
        }
        if let Some(name) = picked {
            self.payload = name;
            self.picking = false;
        }
    }
}

/// A button for a command, with the command's tooltip and shortcut in its hover text.
fn command_button_ui(ui: &mut egui::Ui, command: Command, label: &str, enabled: bool) -> bool {
    let hover = match command.shortcut_text(ui.ctx()) {
        Some(keys) => format!("{} ({keys})", command.tooltip()),
        None => command.tooltip().to_owned(),
    };
    ui.add_enabled(enabled, egui::Button::new(label))
        .on_hover_text(hover)
        .clicked()
}

/// Draws the arena in `rect`, `tile` points a tile.
fn draw_arena(ui: &egui::Ui, sim: &Simulation, watched: usize, rect: egui::Rect, tile: f32) {
    let world = sim.world();
    let painter = ui.painter_at(rect);
    let at = |x: f32, y: f32| rect.min + egui::vec2((x + 0.5) * tile, (y + 0.5) * tile);
    painter.rect_filled(rect, 0.0, Color32::from_gray(40));
    for y in 0..world.height() {
        for x in 0..world.width() {
            if world.is_wall((x, y)) {
                painter.rect_filled(
                    egui::Rect::from_center_size(at(x as f32, y as f32), egui::vec2(tile, tile)),
                    0.0,
                    Color32::from_gray(110),
                );
            }
        }
    }
    let watched_entity = sim.agents().nth(watched).map(|a| a.entity);
    for (i, e) in world.entities().iter().enumerate() {
        if !e.alive {
            continue;
        }
        let p = at(e.pos[0] as f32, e.pos[1] as f32);
        match &e.kind {
            EntityKind::Door { open } => {
                let c = if *open {
                    Color32::from_rgb(120, 90, 50)
                } else {
                    Color32::from_rgb(190, 130, 60)
                };
                painter.rect_filled(
                    egui::Rect::from_center_size(
                        p,
                        egui::vec2(tile, tile * if *open { 0.3 } else { 1.0 }),
                    ),
                    0.0,
                    c,
                );
            }
            EntityKind::Waypoint => {
                painter.circle_stroke(p, tile * 0.3, (1.0, Color32::from_gray(160)));
            }
            EntityKind::Item {
                holder: None, item, ..
            } => {
                let c = match item {
                    ItemKind::Food => Color32::from_rgb(120, 200, 90),
                    ItemKind::HealthKit => Color32::from_rgb(230, 80, 80),
                    ItemKind::Ball => Color32::WHITE,
                };
                painter.circle_filled(p, tile * 0.25, c);
            }
            EntityKind::Item { .. } => {}
            EntityKind::Agent(b) => {
                let hue = team_colour(&b.team);
                painter.circle_filled(p, tile * 0.45, hue);
                painter.text(
                    p,
                    egui::Align2::CENTER_CENTER,
                    sim.glyph(i as u64),
                    egui::FontId::monospace(tile * 0.7),
                    Color32::BLACK,
                );
                if Some(i as u64) == watched_entity {
                    painter.circle_stroke(p, tile * 0.6, (2.0, Color32::from_rgb(90, 170, 255)));
                }
            }
        }
    }
}

/// A team's colour: its name when it is a colour's, else a steady pick from a palette.
fn team_colour(team: &str) -> Color32 {
    match team {
        "red" => return Color32::from_rgb(230, 90, 80),
        "blue" => return Color32::from_rgb(80, 140, 230),
        "green" => return Color32::from_rgb(90, 190, 110),
        "yellow" => return Color32::from_rgb(230, 200, 70),
        "purple" => return Color32::from_rgb(170, 110, 220),
        "orange" => return Color32::from_rgb(240, 150, 60),
        _ => {}
    }
    let h = team
        .bytes()
        .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
    const PALETTE: [Color32; 6] = [
        Color32::from_rgb(230, 90, 80),
        Color32::from_rgb(80, 140, 230),
        Color32::from_rgb(90, 190, 110),
        Color32::from_rgb(230, 200, 70),
        Color32::from_rgb(170, 110, 220),
        Color32::from_rgb(80, 200, 200),
    ];
    PALETTE[(h % 6) as usize]
}
