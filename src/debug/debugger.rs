//! The debugger's controller, without a window: which run is debugged (a scenario, the tree
//! alone, a trace, a game connected live), the watched agent, stepping and pacing, the
//! mapping between a run's node ids and the tree the canvas shows (a SubTree's asset inside
//! the run), and the lights of the watched agent's nodes. The editor's Simulation panel
//! draws it and turns clicks into its calls; tests drive it directly.
//!
//! Breakpoints are the caller's ([`super::Breakpoints`]): each call that steps is given
//! the list of the tree shown.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod navigate;

use super::source::{KnownKey, Titles};
use super::{
    Breakpoint, Forced, GameBreakpoint, GameCommand, GameForce, GameRow, GameTrigger, Hit, Marker,
    NodeView, Replay, Session, Source,
};
use crate::model::{Catalog, NodeId, Tree};
use crate::world::{SimError, Simulation, parse_scenario};

/// The scenario bundled with the bundled sample tree.
pub const SAMPLE_SCENARIO: &str = include_str!("../../sample_trees/droid_arena.scenario.json");

/// Seconds per simulated step, unless the run says otherwise.
pub use crate::world::DT;

/// Runs left by edits that Undo can bring back, at most (each holds its history).
const KEPT_RUNS: usize = 4;

/// Run speeds, in steps a second.
pub const SPEEDS: std::ops::RangeInclusive<f64> = 1.0..=60.0;

/// Where the run comes from.
enum Origin {
    /// A scenario file (for the bundled sample, its text under a name).
    Scenario(String),
    /// The tree alone, in an empty world; its file, when it has one.
    Solo(Option<PathBuf>),
    /// A recorded trace, replayed (read once, kept across edits of the tree); the
    /// debugger's `path` is the trace's.
    Trace,
    /// A game connected to the editor's listener: a replay of what it has sent, growing
    /// as it sends more.
    Live(LiveRun),
}

/// A replay's breakpoint marks: the breakpoints and the replay's revision they were found
/// for, and how many of its events they cover.
struct HitMarks {
    breakpoints: Vec<Breakpoint>,
    revision: u64,
    upto: usize,
    marks: Vec<Marker>,
}

/// A game shown live, as the debugger follows it.
struct LiveRun {
    /// The game's id in the listener's list, and which of its runs is shown.
    id: u64,
    run: u32,
    /// The number of the next event to ask the listener for.
    next: u64,
    /// What is kept of the game, at most (its last steps).
    window: super::EventWindow,
    /// The agents the game streams of itself (`None`: every agent it watches), and those
    /// the editor asked it to stream besides.
    streamed: Option<Vec<String>>,
    asked: Vec<String>,
    /// Show the newest step when the next events come (after a Step the game takes).
    follow: bool,
    /// The breakpoints the game was last told, and the breakpoints and agents (their
    /// revision) they were found for.
    told: Option<Vec<GameBreakpoint>>,
    told_for: Option<(Vec<Breakpoint>, u64)>,
    /// What to tell the game, taken by the app.
    asks: Vec<GameCommand>,
    /// The nodes the game was asked to make report a result, by trace id.
    forced: HashMap<String, Forced>,
}

/// What the debugger needs to show a game live: what the listener knows of it.
pub struct LiveStart {
    /// The game's id in the listener's list.
    pub id: u64,
    /// Which of its runs this is.
    pub run: u32,
    /// Its name.
    pub name: String,
    /// The header of its run.
    pub header: crate::runtime::TraceHeader,
    /// The agents it streams of itself (`None`: every agent it watches).
    pub streamed: Option<Vec<String>>,
    /// The names its events refer to, and the events the listener holds.
    pub agents: Vec<String>,
    /// The events the listener holds of it, and the number of the next.
    pub events: Vec<crate::io::TracedEvent>,
    /// The number of the event after them.
    pub next: u64,
    /// What is kept of it, at most (its last steps).
    pub window: super::EventWindow,
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

/// The run's own tree, kept while the canvas shows the asset of one of its SubTrees (the
/// run goes on, and the asset's nodes are lit by the SubTree's inner nodes).
#[derive(Clone, Debug)]
pub struct Inside {
    /// The tree the run runs.
    pub tree: Tree,
    /// Its file.
    pub file: Option<PathBuf>,
    /// Which tree of that file it is, when not the one the file runs (a BehaviorTree.CPP
    /// file's `<BehaviorTree ID>`).
    pub tree_id: Option<String>,
    /// What the file held that the tree does not say (a BehaviorTree.CPP file's document).
    pub kept: crate::io::Kept,
    /// What the file held when the tree was read or last saved.
    pub disk: Option<crate::io::Stamp>,
    /// The trace id of the SubTree whose asset is shown (`OUTER/INNER` when nested).
    pub prefix: String,
}

/// Where the tree shown came from, as the run enters a SubTree's asset: what Back to the
/// Running Tree opens it from again.
#[derive(Clone, Debug, Default)]
pub struct TreeSource {
    /// Its file.
    pub file: Option<PathBuf>,
    /// Which tree of that file (see [`Inside::tree_id`]).
    pub tree_id: Option<String>,
    /// What the file held that the tree does not say.
    pub kept: crate::io::Kept,
    /// What the file held when the tree was read or last saved.
    pub disk: Option<crate::io::Stamp>,
}

/// A debugged run and how it is shown: see the module's documentation.
pub struct Debugger {
    /// The scenario's path (for the bundled sample, a name only); for a tree run alone,
    /// the tree's; for a trace, the trace's; for a game, its name.
    path: PathBuf,
    origin: Origin,
    run: Option<Source>,
    /// Why the tree cannot run now (validation errors, a missing file, a world needed).
    error: Option<String>,
    /// The tree needs a scenario: the panel offers to open one.
    needs_scenario: bool,
    /// The agent whose node states light the canvas.
    watched: usize,
    /// Stepping continuously.
    running: bool,
    /// Steps a second while running.
    speed: f64,
    /// Steps owed to the real-time clock while running, and the time it was last read.
    owed: f64,
    clock: Option<f64>,
    live: Live,
    /// The watched agent's running leaves (trace ids).
    running_leaves: Vec<String>,
    /// The tree file the scenario's agents name for the tree being edited: they run the
    /// edited tree, whatever name it is later saved under.
    paired: Option<PathBuf>,
    /// Why the run last stopped by itself (a breakpoint), shown until the next step.
    stopped: Option<String>,
    /// A node to select (a breakpoint hit, a click in the event log), taken by the app.
    select: Option<NodeId>,
    /// A message for the status line, taken by the app.
    news: Option<String>,
    /// Set while the canvas shows one of the run's SubTree assets.
    inside: Option<Inside>,
    /// The file of the tree the canvas shows the run on (the run's own, while a
    /// SubTree's asset is shown): its agents are the ones lit and stopped by breakpoints.
    shown_file: Option<PathBuf>,
    /// Whether each agent runs that tree, with the tree each runs (see
    /// `Debugger::apply_breaking`), and one more each time they are found again.
    shown_mask: Option<(Vec<bool>, Vec<Option<PathBuf>>)>,
    mask_revision: u64,
    /// Whether each tree file an agent runs is the file shown (the one named), each
    /// looked at on disk once while that file is shown.
    same_as_shown: (Option<PathBuf>, HashMap<PathBuf, bool>),
    /// How many times a tree file was looked at on disk for that.
    looked_at: u64,
    /// A replay's breakpoint marks, with the breakpoints and the count of events they
    /// were found for.
    hit_marks: Option<HitMarks>,
    /// Nodes renamed in the tree shown since a replay began (old id, new id), in order.
    aliases: Vec<(String, String)>,
    /// The tree the run runs as it was given (to tell an edit that changes what runs from
    /// one that moves or renames), and the revision of the document it came from.
    ran: Option<(Tree, u64)>,
    /// Runs left by edits, newest last, each with the tree and revision it ran: undoing
    /// back to one of those revisions brings its run back.
    kept: Vec<(Source, Tree, u64)>,
    /// What the app said about the run's tree when it was opened (changed since, gone).
    note: Option<String>,
    /// The games connected to the editor, as the app last listed them: name, whether it
    /// is connected, what ended it, events it dropped.
    games: Vec<GameRow>,
    /// The seed the run starts from (its random generators'), and its seconds per step.
    seed: u64,
    dt: f64,
    /// In a scenario, every agent runs the tree shown, not only those whose file it is.
    every_agent: bool,
    /// A replay's node titles, once asked for ([`Debugger::learn_titles`]).
    titles: Option<TitleSource>,
    /// The watched agent's key whose history is shown, if one is.
    history_key: Option<String>,
}

/// Where a replay's node titles come from: the tree files its agents ran, compiled with
/// these node kinds, each file read once.
struct TitleSource {
    kinds: Catalog,
    read: HashMap<PathBuf, Named>,
}

/// A tree file's node titles and context keys, as a replay learns them.
type Named = (Arc<Titles>, Arc<[KnownKey]>);

impl Debugger {
    /// The scenario's path (for the bundled sample, a name only); for a tree run alone,
    /// the tree's; for a trace, the trace's; for a game, its name.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Why the tree cannot run now (validation errors, a missing file, a world needed).
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Whether the tree needs a scenario to run (the panel offers to open one).
    pub fn needs_scenario(&self) -> bool {
        self.needs_scenario
    }

    /// Whether it is stepping continuously ([`Debugger::run_pause`]).
    pub fn is_running(&self) -> bool {
        self.running
    }

    /// Starts or stops stepping continuously (a game shown live is not told, as it is by
    /// [`Debugger::run_pause`]).
    pub fn set_running(&mut self, running: bool) {
        self.running = running;
    }

    /// Steps a second while running.
    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// Sets the steps a second while running.
    pub fn set_speed(&mut self, speed: f64) {
        self.speed = speed;
    }

    /// Why the run last stopped by itself (a breakpoint), until the next step.
    pub fn stopped(&self) -> Option<&str> {
        self.stopped.as_deref()
    }

    /// What the app said about the run's tree when it was opened (changed since, gone).
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// Sets what the app says about the run's tree.
    pub fn set_note(&mut self, note: Option<String>) {
        self.note = note;
    }

    /// The games connected to the editor, as the app last listed them.
    pub fn games(&self) -> &[GameRow] {
        &self.games
    }

    /// The games connected to the editor, as the app lists them now.
    pub fn set_games(&mut self, games: Vec<GameRow>) {
        self.games = games;
    }

    /// A node for the app to select, taken by it ([`Debugger::take_select`]).
    pub fn set_select(&mut self, node: Option<NodeId>) {
        self.select = node;
    }

    /// A message for the status line, taken by the app ([`Debugger::take_news`]).
    pub fn tell(&mut self, news: String) {
        self.news = Some(news);
    }

    /// The scenario beside a tree file: `NAME.scenario.json` for `NAME.json`.
    pub fn beside(tree: &Path) -> Option<PathBuf> {
        crate::world::scenario_beside(tree)
    }

    /// A run in a scenario file.
    pub fn open(path: &Path) -> Result<Self, String> {
        let text = crate::io::read_text(path).map_err(|e| format!("{}: {e}", path.display()))?;
        parse_scenario(&text, path).map_err(|e| e.to_string())?;
        Ok(Self::from_text(path.to_owned(), text))
    }

    /// A run in scenario text (the bundled sample's).
    pub fn from_text(path: PathBuf, text: String) -> Self {
        Self::with_origin(path, Origin::Scenario(text))
    }

    /// A run of the tree alone, in an empty world (a tree without a scenario).
    pub fn solo(tree: Option<&Path>) -> Self {
        let path = tree.map_or_else(|| PathBuf::from("untitled"), Path::to_owned);
        Self::with_origin(path, Origin::Solo(tree.map(Path::to_owned)))
    }

    /// The replay of the trace `path` has read (`crate::io::read_trace`).
    pub fn replay(path: &Path, trace: crate::io::TraceFile) -> Self {
        let mut d = Self::with_origin(path.to_owned(), Origin::Trace);
        d.run = Some(Source::replay(Replay::new(trace)));
        d.refresh_live();
        d
    }

    /// A game of the editor's listener, shown as it runs from what it has sent so far on:
    /// it follows the newest step.
    pub fn game(start: LiveStart) -> Self {
        let LiveStart {
            id,
            run,
            name,
            header,
            streamed,
            agents,
            events,
            next,
            window,
        } = start;
        let trace = crate::io::TraceFile {
            header: Some(header),
            agents,
            events,
            cut: None,
        };
        let mut replay = Replay::new(trace);
        replay.keep_last(window);
        let last = replay.last_step();
        let mut d = Self::with_origin(
            PathBuf::from(name),
            Origin::Live(LiveRun {
                id,
                run,
                next,
                window,
                streamed,
                asked: Vec::new(),
                follow: false,
                told: None,
                told_for: None,
                asks: Vec::new(),
                forced: HashMap::new(),
            }),
        );
        d.run = Some(Source::replay(replay));
        d.running = true;
        d.seek(last);
        d
    }

    /// The number of the next of the game's events to ask the listener for.
    pub fn next_event(&self) -> u64 {
        match &self.origin {
            Origin::Live(l) => l.next,
            _ => 0,
        }
    }

    /// The tree file the canvas shows the run on: only the agents that run it are lit,
    /// and stopped by breakpoints (which name its nodes).
    /// The agents that run it are found again only when it is another file than before
    /// (a change of the run or its agents finds them itself).
    pub fn set_shown_file(&mut self, file: Option<&Path>) {
        if self.shown_file.as_deref() != file || self.shown_mask.is_none() {
            self.shown_file = file.map(Path::to_owned);
            self.apply_breaking();
        }
        self.refresh_live();
    }

    /// A replay's node titles, which its trace does not record, from the tree files its
    /// agents ran as they are on disk when asked (with `catalog`'s kinds): the event log
    /// then names a node the tree shown does not hold (a SubTree's, or the tree's around a
    /// SubTree shown) by its title. A game shown live gets those of the agents it adds
    /// later too. A file that cannot be read or does not compile leaves its agents' nodes
    /// to their trace ids.
    pub fn learn_titles(&mut self, catalog: &Catalog) {
        self.titles = Some(TitleSource {
            kinds: catalog.clone(),
            read: HashMap::new(),
        });
        self.name_nodes();
    }

    /// Gives the run the titles and keys of each agent's tree ([`Debugger::learn_titles`]).
    fn name_nodes(&mut self) {
        let trees = self.agent_trees();
        let (Some(source), Some(run)) = (&mut self.titles, &mut self.run) else {
            return;
        };
        let (titles, keys): (Vec<_>, Vec<_>) = trees
            .into_iter()
            .map(|tree| {
                let Some(tree) = tree else {
                    return Named::default();
                };
                let kinds = &source.kinds;
                source
                    .read
                    .entry(tree)
                    .or_insert_with_key(|tree| {
                        let names = crate::world::names_of(tree, kinds).unwrap_or_default();
                        let keys: Vec<KnownKey> = names
                            .keys
                            .into_iter()
                            .map(|(name, ty, start)| KnownKey {
                                name,
                                ty,
                                start: start.map(|v| v.to_string()),
                            })
                            .collect();
                        (Arc::new(names.nodes.into_iter().collect()), Arc::from(keys))
                    })
                    .clone()
            })
            .unzip();
        run.set_titles(titles);
        run.set_keys(keys);
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
        let trees: HashMap<&str, &str> = header.map_or_else(HashMap::new, |h| {
            h.agents
                .iter()
                .rev()
                .map(|a| (a.name.as_str(), a.tree.as_str()))
                .collect()
        });
        run.agent_names()
            .iter()
            .map(|name| {
                let tree = trees.get(name.as_str())?;
                Some(match self.origin {
                    Origin::Trace => crate::io::resolve_traced(tree, &self.path),
                    _ => PathBuf::from(tree),
                })
            })
            .collect()
    }

    /// Whether each agent runs the tree shown (`None`: it cannot be told, every one), as
    /// last found ([`Debugger::apply_breaking`]: when the tree shown, the run or its agents
    /// change, not each frame).
    fn runs_shown(&self) -> Option<&[bool]> {
        self.shown_mask.as_ref().map(|(m, _)| &m[..])
    }

    /// Finds which agents run the tree shown and tells the run: only those are stopped by
    /// breakpoints. Each tree file is looked at on disk once while one file is shown.
    fn apply_breaking(&mut self) {
        self.hit_marks = None;
        let shown = self
            .inside
            .as_ref()
            .map_or(self.shown_file.as_deref(), |i| i.file.as_deref());
        if self.same_as_shown.0.as_deref() != shown {
            self.same_as_shown = (shown.map(Path::to_owned), HashMap::new());
        }
        let trees = self.agent_trees();
        let (same, looked_at) = (&mut self.same_as_shown.1, &mut self.looked_at);
        let mask = shown.map(|shown| {
            let mask: Vec<bool> = trees
                .iter()
                .map(|t| {
                    t.as_ref().is_none_or(|t| {
                        *same.entry(t.clone()).or_insert_with(|| {
                            t == shown || {
                                *looked_at += 1;
                                crate::io::same_file(t, shown)
                            }
                        })
                    })
                })
                .collect();
            (mask, trees)
        });
        self.mask_revision += 1;
        self.shown_mask = mask;
        let mask = self.runs_shown().map(<[bool]>::to_vec);
        if let Some(run) = &mut self.run {
            run.set_breaking(mask);
        }
    }

    /// How many times a tree file an agent runs was looked at on disk to find whether it is
    /// the tree shown (once a file while one tree file is shown).
    pub fn tree_files_looked_at(&self) -> u64 {
        self.looked_at
    }

    /// The tree file the watched agent runs, when it is not the tree shown.
    pub fn watched_elsewhere(&self) -> Option<PathBuf> {
        let (runs, trees) = self.shown_mask.as_ref()?;
        if runs.get(self.watched).copied().unwrap_or(true) {
            return None;
        }
        trees.get(self.watched).cloned().flatten()
    }

    /// The breakpoints (`breakpoints`, on the tree shown) a game shown live is to be told,
    /// each for its agents that run the tree shown, when they differ from what it was
    /// told last (they are then taken as told).
    pub fn breakpoints_for_game(&mut self, breakpoints: &[Breakpoint]) -> Option<GameCommand> {
        let Origin::Live(l) = &self.origin else {
            return None;
        };
        // Nothing to find again while the breakpoints and the agents that run the tree
        // shown are as when the game was last told.
        if l.told_for
            .as_ref()
            .is_some_and(|(b, r)| b == breakpoints && *r == self.mask_revision)
        {
            return None;
        }
        let recorded = as_recorded(&self.aliases, breakpoints);
        // Every agent (none named), or those that run the tree shown.
        let agents: Option<Vec<String>> = self.runs_shown().and_then(|mask| {
            let names = self.run.as_ref().map_or(&[][..], Source::agent_names);
            (!mask.iter().all(|m| *m)).then(|| {
                names
                    .iter()
                    .zip(mask)
                    .filter(|(_, runs)| **runs)
                    .map(|(a, _)| a.clone())
                    .collect()
            })
        });
        let list: Vec<GameBreakpoint> = recorded
            .iter()
            .map(|b| GameBreakpoint {
                node: b.node.clone(),
                on: b.on,
                agents: agents.clone(),
            })
            .collect();
        let revision = self.mask_revision;
        let Origin::Live(l) = &mut self.origin else {
            return None;
        };
        l.told_for = Some((breakpoints.to_vec(), revision));
        if l.told.as_ref() == Some(&list) {
            return None;
        }
        l.told = Some(list.clone());
        Some(GameCommand::Breakpoints(list))
    }

    /// The game shown live, by its id in the listener's list.
    pub fn live_game(&self) -> Option<u64> {
        match &self.origin {
            Origin::Live(l) => Some(l.id),
            _ => None,
        }
    }

    /// Which of the game's runs is shown (1, then one more each time it connected again).
    pub fn live_run(&self) -> Option<u32> {
        match &self.origin {
            Origin::Live(l) => Some(l.run),
            _ => None,
        }
    }

    /// What is kept of the game shown live, at most.
    pub fn live_window(&self) -> Option<super::EventWindow> {
        match &self.origin {
            Origin::Live(l) => Some(l.window),
            _ => None,
        }
    }

    /// The game shown live, as the app last listed it.
    pub fn live_row(&self) -> Option<&GameRow> {
        let id = self.live_game()?;
        self.games.iter().find(|g| g.id == id)
    }

    /// What to tell the game shown live since the last call.
    pub fn take_game_asks(&mut self) -> Vec<GameCommand> {
        match &mut self.origin {
            Origin::Live(l) => std::mem::take(&mut l.asks),
            _ => Vec::new(),
        }
    }

    fn ask_game(&mut self, command: GameCommand) {
        if let Origin::Live(l) = &mut self.origin {
            l.asks.push(command);
        }
    }

    /// Whether the game shown live is connected.
    fn game_connected(&self) -> bool {
        self.live_row().is_some_and(|g| g.connected)
    }

    /// The watched agent, when the game shown live holds it paused.
    fn held_in_game(&self) -> Option<String> {
        let name = self.watched_name()?;
        self.live_row()
            .filter(|g| g.connected && g.paused.iter().any(|p| p == name))
            .map(|_| name.to_owned())
    }

    /// Whether the game shown live sends the events of agent `name`: it streams every agent
    /// it watches, or names it, or the editor asked for it.
    pub fn game_streams(&self, name: &str) -> Option<bool> {
        let Origin::Live(l) = &self.origin else {
            return None;
        };
        Some(
            l.streamed
                .as_ref()
                .is_none_or(|s| s.iter().any(|a| a == name))
                || l.asked.iter().any(|a| a == name),
        )
    }

    /// Asks the game shown live to stream agent `name` too.
    pub fn stream(&mut self, name: &str) {
        let Origin::Live(l) = &mut self.origin else {
            return;
        };
        if !l.asked.iter().any(|a| a == name) {
            l.asked.push(name.to_owned());
        }
        let all = l.asked.clone();
        l.asks.push(GameCommand::Stream(all));
        self.news = Some(format!("Asked the game to stream {name}"));
    }

    /// What the game shown live sent since the last frame (`agents`: the names its events
    /// refer to, when there are new ones; `next`: the number of the event after them).
    /// While the view follows the game (Run), it shows the newest step, unless one of
    /// `breakpoints` hits in what came: then it stops there (the game runs on); after a
    /// Step the game takes, it shows the newest step once.
    pub fn feed(
        &mut self,
        agents: &[String],
        events: Vec<crate::io::TracedEvent>,
        next: u64,
        breakpoints: &[Breakpoint],
    ) {
        let Origin::Live(l) = &mut self.origin else {
            return;
        };
        l.next = next;
        let window = l.window;
        if events.is_empty()
            && agents.len() <= self.run.as_ref().map_or(0, |r| r.agent_names().len())
        {
            return;
        }
        let follow = std::mem::take(&mut l.follow);
        let Some(run) = &mut self.run else { return };
        let before = run.agent_names().len();
        run.extend(agents, events);
        run.keep_last(window);
        if run.agent_names().len() > before {
            self.name_nodes();
            self.apply_breaking();
        }
        let Some(run) = &mut self.run else { return };
        if self.running {
            let hits = run.run(u64::MAX, &as_recorded(&self.aliases, breakpoints));
            self.after_steps(hits);
        } else if follow {
            let head = run.head();
            self.seek(head);
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
            stopped: None,
            select: None,
            news: None,
            inside: None,
            shown_file: None,
            shown_mask: None,
            mask_revision: 0,
            same_as_shown: (None, HashMap::new()),
            looked_at: 0,
            hit_marks: None,
            ran: None,
            kept: Vec::new(),
            aliases: Vec::new(),
            note: None,
            games: Vec::new(),
            seed: 0,
            dt: DT,
            every_agent: false,
            titles: None,
            history_key: None,
        }
    }

    /// In a scenario, whether every agent runs the tree shown from the next reset on
    /// (else the agents whose own tree file it is).
    pub fn set_every_agent(&mut self, every: bool) {
        self.every_agent = every;
    }

    /// Runs from now on with this seed and seconds per step (the next reset starts
    /// the run so).
    pub fn set_seed_and_dt(&mut self, seed: u64, dt: f64) {
        self.seed = seed;
        self.dt = dt;
    }

    /// The seed the run started from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The seconds per step of the run (a replay's as its trace says).
    pub fn dt(&self) -> f64 {
        self.session().map_or(self.dt, Session::dt)
    }

    /// Queues a trigger of the Interrupt `id` before the next step: for the agent named
    /// `agent`, or every agent whose tree has it. How many agents take it.
    pub fn queue_trigger(&mut self, agent: Option<&str>, id: &str, payload: Option<&str>) -> usize {
        self.run
            .as_mut()
            .and_then(Source::session_mut)
            .map_or(0, |s| s.trigger(agent, id, payload))
    }

    /// Shows the asset of the SubTree `node` of the tree shown now (`tree`, from `source`)
    /// while the run goes on: the asset's nodes take the lights of the SubTree's inner
    /// nodes, and breakpoints set on them break inside this SubTree.
    pub fn enter(&mut self, tree: &Tree, source: TreeSource, node: &NodeId) {
        match &mut self.inside {
            Some(inside) => inside.prefix = format!("{}/{node}", inside.prefix),
            None => {
                self.inside = Some(Inside {
                    tree: tree.clone(),
                    file: source.file,
                    tree_id: source.tree_id,
                    kept: source.kept,
                    disk: source.disk,
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
        let renamed = self.renamed_from_trace(id);
        let id = renamed.as_deref().unwrap_or(id);
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

    /// Node `from` of the tree shown is now `to`. A live run is taken again with the new
    /// id; a replay keeps the ids it recorded, so it maps them from now on (lights, log,
    /// breakpoints).
    pub fn renamed(&mut self, from: &NodeId, to: &NodeId) {
        if self.is_replay() {
            self.aliases
                .push((from.as_str().to_owned(), to.as_str().to_owned()));
            self.hit_marks = None;
            self.refresh_live();
        }
    }

    /// A recorded id with the renames since applied to its first part, when one applies.
    fn renamed_from_trace(&self, id: &str) -> Option<String> {
        if self.aliases.is_empty() {
            return None;
        }
        let (top, rest) = id.split_once('/').map_or((id, None), |(t, r)| (t, Some(r)));
        let mut top = top.to_owned();
        for (from, to) in &self.aliases {
            if top == *from {
                top.clone_from(to);
            }
        }
        Some(rest.map_or_else(|| top.clone(), |r| format!("{top}/{r}")))
    }

    /// Whether the tree runs alone (no scenario).
    pub fn is_solo(&self) -> bool {
        matches!(self.origin, Origin::Solo(_))
    }

    /// Whether the run is a replay of a recorded one: a trace, or what a game sends.
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
            Origin::Solo(path) => Simulation::solo(path.as_deref(), tree, catalog, self.seed),
            Origin::Scenario(text) => match parse_scenario(text, &self.path) {
                Ok(parsed) => Simulation::with_edited(
                    &self.path,
                    parsed,
                    catalog,
                    self.seed,
                    (tree_path, tree),
                    self.every_agent,
                ),
                Err(e) => {
                    self.error = Some(e.to_string());
                    return;
                }
            },
        };
        match sim {
            Ok(sim) => {
                self.watched = self.watched.min(sim.agents().count().saturating_sub(1));
                let session = Session::new(sim, self.dt);
                self.run = Some(Source::Simulation(Box::new(session)));
                self.ran = Some((tree.clone(), self.ran.as_ref().map_or(0, |r| r.1)));
                self.apply_breaking();
            }
            Err(
                SimError::Invalid { problems, .. }
                | SimError::Unrunnable {
                    problems,
                    invalid: true,
                    ..
                },
            ) => {
                self.running = false;
                self.error = Some(format!(
                    "the tree has {} error(s); the Problems panel lists them",
                    problems.len()
                ));
            }
            Err(SimError::Unrunnable { problems, .. }) => {
                // The runtime's own (a node it cannot build): not in the Problems panel,
                // so said here.
                self.running = false;
                self.error = Some(problems.join("; "));
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

    /// The run taken again with `tree` as edited (document revision `revision`), to the
    /// step shown, with the same seed, dt, triggers and forced results: an edit made while
    /// debugging forks the run from the shown step instead of starting it over. Returns
    /// what to tell the user, when there is something to tell:
    /// - back at a revision a run was kept for (Undo): that run again;
    /// - an edit that does not change what runs (a move, a title): nothing to do;
    /// - a run at its first step, a replay: as [`Debugger::reset`];
    /// - a node on the watched agent's running path removed, or a tree that no longer
    ///   runs: started over, and why.
    ///
    /// While a SubTree's asset is shown, the run's own tree runs, as in `reset`.
    pub fn fork(
        &mut self,
        catalog: &Catalog,
        tree: &Tree,
        tree_path: &Path,
        revision: u64,
    ) -> Option<String> {
        if self.is_replay() {
            self.refresh_live();
            return None;
        }
        let k = self.step_number();
        let shown_tree = self.inside.as_ref().map_or(tree, |i| &i.tree).clone();
        // Undo (or Redo) back to a tree a run was kept for.
        if let Some(i) = self.kept.iter().position(|(_, _, r)| *r == revision) {
            let (run, kept_tree, _) = self.kept.remove(i);
            self.keep_current();
            let step = run.step_number();
            self.run = Some(run);
            self.ran = Some((kept_tree, revision));
            self.error = None;
            self.stopped = None;
            self.apply_breaking();
            self.refresh_live();
            return Some(format!("Back to the run before the edit, at step {step}"));
        }
        if let Some((ran, _)) = &self.ran
            && self.error.is_none()
            && ran.runs_like(&shown_tree)
        {
            self.ran = Some((shown_tree, revision));
            self.refresh_live();
            return None;
        }
        // A node the watched agent was running at the shown step, gone from the tree: the
        // run cannot be taken the same way to that step. (A running leaf inside a SubTree
        // is `SUBTREE/INNER`: its SubTree must stay.)
        let removed = self
            .session()
            .and_then(|s| s.instance(self.watched))
            .and_then(|instance| {
                let ids = instance.program().node_ids();
                instance.active_leaves().iter().find_map(|&leaf| {
                    let id = ids.get(leaf as usize)?;
                    let top = id.split('/').next().unwrap_or(id);
                    (!shown_tree.contains(&NodeId::new(top))).then(|| id.clone())
                })
            });
        let before = self.run.take();
        let Some(Source::Simulation(old)) = before else {
            self.run = before;
            self.reset(catalog, tree, tree_path);
            self.set_revision(revision);
            return None;
        };
        if k == 0 {
            self.reset(catalog, tree, tree_path);
            self.set_revision(revision);
            return None;
        }
        self.run = Some(Source::Simulation(old));
        self.keep_current();
        self.reset(catalog, tree, tree_path);
        self.set_revision(revision);
        if let Some(node) = removed {
            return Some(format!(
                "The edit removed {node}, which was running at step {k}: the run starts over"
            ));
        }
        if let Some(e) = &self.error {
            return Some(format!(
                "The edited tree cannot run ({e}): the run starts over when it can"
            ));
        }
        let Some(Source::Simulation(fresh)) = self.run.take() else {
            return None;
        };
        let Some((Source::Simulation(old), _, _)) = self.kept.last() else {
            self.run = Some(Source::Simulation(fresh));
            return None;
        };
        let forked = old.replay_onto(*fresh, k);
        self.run = Some(Source::Simulation(Box::new(forked)));
        self.apply_breaking();
        self.refresh_live();
        Some(format!("Re-ran {k} steps with the edit"))
    }

    /// Keeps the run as it is, with its tree and revision, for Undo to bring back (the
    /// newest few: each holds its history).
    fn keep_current(&mut self) {
        if let (Some(run), Some((tree, revision))) = (self.run.take(), self.ran.take()) {
            self.kept.retain(|(_, _, r)| *r != revision);
            self.kept.push((run, tree, revision));
            if self.kept.len() > KEPT_RUNS {
                self.kept.remove(0);
            }
        }
    }

    /// Starts over from the first state with `tree` (document revision `revision`), as
    /// Reset does: the runs kept for Undo go.
    pub fn start_over(&mut self, catalog: &Catalog, tree: &Tree, tree_path: &Path, revision: u64) {
        self.kept.clear();
        self.reset(catalog, tree, tree_path);
        self.set_revision(revision);
    }

    fn set_revision(&mut self, revision: u64) {
        if let Some(ran) = &mut self.ran {
            ran.1 = revision;
        }
    }

    /// How often each node of the run's tree was entered, succeeded, failed and was
    /// aborted in this run, from its first step to its newest, summed over the agents that
    /// run the tree shown: by trace id (`SUBTREE/INNER` inside a SubTree; [`Debugger::shown`]
    /// maps them to the tree shown), with how many agents were counted. `None` for a replay
    /// or a game shown live.
    pub fn coverage(&self) -> Option<(Vec<(String, crate::runtime::Counts)>, usize)> {
        let session = self.session()?;
        let mask = self.runs_shown();
        let mut out: Vec<(String, crate::runtime::Counts)> = Vec::new();
        let mut at: foldhash::HashMap<String, usize> = Default::default();
        let mut agents = 0;
        for (agent, counts) in session.counts().iter().enumerate() {
            if mask.as_ref().is_some_and(|m| m.get(agent) != Some(&true)) {
                continue;
            }
            let Some(instance) = session.instance(agent) else {
                continue;
            };
            agents += 1;
            for (id, c) in instance.program().node_ids().iter().zip(counts) {
                match at.get(id) {
                    Some(&i) => out[i].1.add(c),
                    None => {
                        at.insert(id.clone(), out.len());
                        out.push((id.clone(), *c));
                    }
                }
            }
        }
        Some((out, agents))
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

    /// Whether the game shown live can make its nodes report a result instead of running
    /// (a BehaviorTree.CPP program: its publisher's substitution).
    pub fn game_forces(&self) -> bool {
        self.live_row().is_some_and(|g| g.forces && g.connected)
    }

    /// What the stand-in shown as `node` is forced to at the shown step; in a game shown
    /// live, what the game was asked to make the node report.
    pub fn forced(&self, node: &NodeId) -> Option<crate::runtime::Outcome> {
        if let Origin::Live(l) = &self.origin {
            return l.forced.get(&self.traced(node)).map(|f| match f {
                Forced::Success => crate::runtime::Outcome::Success,
                Forced::Failure => crate::runtime::Outcome::Failure,
            });
        }
        self.session()?.forced(&self.run_tree(), &self.traced(node))
    }

    /// Forces the stand-in shown as `node` to report `outcome` (`None`: its script) from
    /// the next step on; in a game shown live that forces, asks the game to make the node
    /// report it (success or failure) instead of running. False when it cannot be.
    pub fn force(&mut self, node: &NodeId, outcome: Option<crate::runtime::Outcome>) -> bool {
        if matches!(self.origin, Origin::Live(_)) {
            let status = match outcome {
                None => None,
                Some(crate::runtime::Outcome::Success) => Some(Forced::Success),
                Some(crate::runtime::Outcome::Failure) => Some(Forced::Failure),
                Some(_) => return false,
            };
            if !self.game_forces() {
                return false;
            }
            let id = self.traced(node);
            if let Origin::Live(l) = &mut self.origin {
                match status {
                    Some(s) => l.forced.insert(id.clone(), s),
                    None => l.forced.remove(&id),
                };
            }
            self.ask_game(GameCommand::Force(GameForce { node: id, status }));
            return true;
        }
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

    /// The agent whose node states light the canvas, by place.
    pub fn watched(&self) -> usize {
        self.watched
    }

    /// Watches agent `agent` (by place; the last when there are fewer).
    pub fn watch(&mut self, agent: usize) {
        let agents = self.run.as_ref().map_or(0, |r| r.agent_names().len());
        self.watched = agent.min(agents.saturating_sub(1));
        self.refresh_live();
    }

    /// The watched agent's name.
    pub fn watched_name(&self) -> Option<&str> {
        self.run
            .as_ref()
            .and_then(|s| s.agent_names().get(self.watched))
            .map(String::as_str)
    }

    /// Takes `n` steps, stopping where one of `breakpoints` hits.
    pub fn step_by(&mut self, n: u64, breakpoints: &[Breakpoint]) {
        // A game shown live that holds the watched agent: the game steps it, and the view
        // shows its newest step when the step comes.
        if let Some(name) = self.held_in_game() {
            for _ in 0..n {
                self.ask_game(GameCommand::Step(name.clone()));
            }
            if let Origin::Live(l) = &mut self.origin {
                l.follow = true;
            }
            let times = if n > 1 {
                format!(" {n} steps")
            } else {
                " a step".into()
            };
            self.news = Some(format!("The game steps {name}{times}"));
            return;
        }
        let hits = match &mut self.run {
            Some(s) => s.run(n, &as_recorded(&self.aliases, breakpoints)),
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

    /// Steps until the watched agent's running leaf changes or one of `breakpoints` hits.
    pub fn until_change(&mut self, breakpoints: &[Breakpoint]) {
        let watched = self.watched;
        let Some(s) = &mut self.run else { return };
        let (hits, taken) = s.run_until_change(watched, &as_recorded(&self.aliases, breakpoints));
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
        // The watched agent's hit, when it is among them: the view stays on it. Another
        // agent's hit shows that agent, except in a game shown live, where the game holds
        // that agent and the view stays on the one the user watches.
        let watched = self.watched;
        if let Some(hit) = hits.iter().find(|h| h.agent == watched).or(hits.first()) {
            self.running = false;
            let live = matches!(self.origin, Origin::Live(_));
            if !live {
                self.watched = hit.agent;
            }
            let name_of = |i: usize| {
                self.run
                    .as_ref()
                    .and_then(|s| s.agent_names().get(i).cloned())
                    .unwrap_or_default()
            };
            let agent = name_of(hit.agent);
            let node = self
                .renamed_from_trace(&hit.breakpoint.node)
                .unwrap_or_else(|| hit.breakpoint.node.clone());
            let mut said = format!(
                "Breakpoint: {node} on {} of {agent}, step {}",
                hit.breakpoint.on.name(),
                hit.step
            );
            if live && hit.agent != self.watched {
                said += &format!(
                    " ({agent} is held in the game; still watching {})",
                    name_of(self.watched)
                );
            }
            self.stopped = Some(said);
            self.select = self.shown(&hit.breakpoint.node);
            self.news = self.stopped.clone();
        }
        self.refresh_live();
    }

    /// A node to select, taken by the app (a breakpoint hit, a click in the log).
    pub fn take_select(&mut self) -> Option<NodeId> {
        self.select.take()
    }

    /// A message for the status line (why the run stopped, a trigger queued).
    pub fn take_news(&mut self) -> Option<String> {
        self.news.take()
    }

    /// Queues a trigger of the watched agent's Interrupt `id`, with `payload` (none when
    /// blank), before the next step (a game shown live is asked to give it); says so.
    pub fn trigger(&mut self, id: &str, payload: &str) -> bool {
        let Some(name) = self.watched_name().map(str::to_owned) else {
            return false;
        };
        let payload = Some(payload.trim()).filter(|p| !p.is_empty());
        if self.live_game().is_some() {
            self.ask_game(GameCommand::Trigger(GameTrigger {
                agent: name.clone(),
                id: id.to_owned(),
                payload: payload.map(str::to_owned),
            }));
            self.news = Some(format!(
                "Trigger '{id}' sent to the game for {name}: the game starts it"
            ));
            return true;
        }
        let queued = self
            .run
            .as_mut()
            .and_then(Source::session_mut)
            .is_some_and(|s| s.trigger(Some(&name), id, payload) > 0);
        if queued {
            self.news = Some(format!(
                "Trigger '{id}' queued for {name}: it starts at the next step"
            ));
        }
        queued
    }

    /// Run, or Pause. A game shown live (connected) is held too: Pause holds every agent
    /// the game asks `may_step` for before its next step, Run lets them all go (those held
    /// at breakpoints too) and follows the newest step.
    pub fn run_pause(&mut self) {
        self.running = !self.running;
        if self.game_connected() {
            let (command, said) = if self.running {
                (GameCommand::Continue(None), "The game's agents go on")
            } else {
                (
                    GameCommand::Pause(None),
                    "The game's agents are held before their next step",
                )
            };
            self.ask_game(command);
            self.news = Some(said.into());
        }
    }

    /// The timeline's markers, with the hits of `breakpoints` (a replay's found once for
    /// each change of the breakpoints or of what the trace holds).
    pub fn markers(&mut self, breakpoints: &[Breakpoint]) -> Vec<Marker> {
        let Some(run) = &self.run else {
            return Vec::new();
        };
        let Some(replay) = run.replayed() else {
            return run.markers(breakpoints);
        };
        // Found again when the breakpoints or the events before change; else only among
        // the events that came since.
        let (events, revision) = (replay.trace().events.len(), replay.revision());
        let recorded = as_recorded(&self.aliases, breakpoints);
        match &mut self.hit_marks {
            Some(h) if h.breakpoints == breakpoints && h.revision == revision => {
                if h.upto < events {
                    replay.add_hit_markers(&recorded, h.upto, &mut h.marks);
                    h.upto = events;
                }
            }
            _ => {
                self.hit_marks = Some(HitMarks {
                    breakpoints: breakpoints.to_vec(),
                    revision,
                    upto: events,
                    marks: replay.hit_markers(&recorded),
                });
            }
        }
        let hits = self.hit_marks.as_ref().map_or(&[][..], |h| &h.marks[..]);
        [replay.markers(), hits].concat()
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

    /// Shows the history of the watched agent's key `key` (`None`: of no key): who wrote
    /// it, at which step, with which value, from the first step to the newest
    /// ([`Source::follow_key`]); it follows the watched agent and the run as they change.
    pub fn show_history(&mut self, key: Option<String>) {
        self.history_key = key;
        self.refresh_live();
    }

    /// The key whose history is shown, if one is.
    pub fn history_key(&self) -> Option<&str> {
        self.history_key.as_deref()
    }

    /// The history of the watched agent's key shown ([`Debugger::show_history`]), up to
    /// the newest step.
    pub fn key_history(&self) -> Option<&super::KeyHistory> {
        let key = self.history_key.as_deref()?;
        let h = self.run.as_ref()?.key_history()?;
        h.is_of(self.watched, key).then_some(h)
    }

    /// Keeps the history shown up to date with the run (or stops following a key).
    fn follow_history(&mut self) {
        let Some(run) = &mut self.run else { return };
        match &self.history_key {
            Some(key) => run.follow_key(self.watched, key),
            None => run.unfollow_key(),
        }
    }

    /// Lights the watched agent's nodes as of the shown step, and keeps the history shown
    /// up to date.
    fn refresh_live(&mut self) {
        self.follow_history();
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
                // (The start's events, step 0, show in the first step.)
                let age = step.saturating_sub(state.step.max(1));
                self.live.insert(id, Light { state, age });
            }
        }
    }

    /// Takes the steps owed to real time while running, at `speed` steps a second, with
    /// `now` the clock in seconds; stops where one of `breakpoints` hits.
    pub fn pace(&mut self, now: f64, breakpoints: &[Breakpoint]) {
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
            self.step_by(due as u64, breakpoints);
        }
    }
}

/// `breakpoints` (on the tree's ids as they are now) as a recorded run names the nodes:
/// the renames `aliases` made (old id, new id, in order) undone.
fn as_recorded<'b>(
    aliases: &[(String, String)],
    breakpoints: &'b [Breakpoint],
) -> Cow<'b, [Breakpoint]> {
    if aliases.is_empty() {
        return Cow::Borrowed(breakpoints);
    }
    let back = |id: &str| {
        let (top, rest) = id.split_once('/').map_or((id, None), |(t, r)| (t, Some(r)));
        let mut top = top.to_owned();
        for (from, to) in aliases.iter().rev() {
            if top == *to {
                top.clone_from(from);
            }
        }
        rest.map_or_else(|| top.clone(), |r| format!("{top}/{r}"))
    };
    Cow::Owned(
        breakpoints
            .iter()
            .map(|b| Breakpoint {
                node: back(&b.node),
                on: b.on,
            })
            .collect(),
    )
}
