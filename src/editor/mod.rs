//! The editor: everything egui. A view of the model; every change goes through a model
//! [`Edit`], so undo is the edit's inverse and the canvas is rebuilt from the tree.
//!
//! By concern: [`document`] holds the tree, its file and its history; [`commands`] is the
//! table of every command (menus, shortcuts, the palette); `actions` applies commands;
//! [`canvas`] and `viewer` draw the graph and turn gestures into requests; `panels` draws
//! the menus and side panels; [`files`] chooses files; [`messages`] is the status line.
//! Each frame draws, collects what was asked for, then applies it in one place.

mod actions;
mod autosave;
mod blackboard;
mod canvas;
mod changes;
pub mod commands;
pub mod coverage;
mod disk;
mod document;
mod field;
pub mod files;
mod find;
mod graph;
mod inspector;
mod layout;
mod live;
pub mod messages;
mod minimap;
mod navigate;
mod panels;
mod program;
mod project;
mod reading;
mod recording;
mod selection;
mod settings;
mod simulate;
mod timeline;
mod viewer;

pub use autosave::AUTOSAVE_SECONDS;
pub use canvas::{Canvas, READABLE_ZOOM, ViewRequest};
pub use commands::Command;
pub use document::Document;
pub use graph::{Attach, SMALL_TEXT, kinds_fitting, pins};
pub use live::{Listening, LiveAttach, start_listening};
pub use reading::READ_IN_BACKGROUND;
pub use simulate::SimPanel;
pub use viewer::{Viewer, category_colour, status_colour};

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use eframe::egui;

use crate::debug::{Breakpoint, Breakpoints, Debugger};
use crate::io::{TreeFiles, parse_tree};
use crate::model::{Catalog, Diagnostic, Edit, NodeId, Rule, Tree, validate};

/// The tree the editor opens when given no file (bundled, so it opens from any folder).
pub const SAMPLE: &str = include_str!("../../sample_trees/droid_arena.json");

/// The editor application.
pub struct EditorApp {
    /// The kinds of the tree's project (built-ins, its node libraries, placeholders).
    catalog: Catalog,
    /// The project the kinds come from, watched for changes.
    project: project::ProjectKinds,
    doc: Document,
    canvas: Canvas,
    /// The last validation's diagnostics, and the nodes they mark (errors, unreachable).
    diagnostics: Vec<Diagnostic>,
    marked: (HashSet<NodeId>, HashSet<NodeId>),
    /// Every selected node; the first is shown in the inspector.
    selection: selection::Selection,
    messages: messages::Messages,
    /// The palette of node kinds' filter text.
    filter: String,
    /// The palette's rows, for the filter and the number of kinds they were found for.
    kind_rows: std::cell::RefCell<Option<panels::KeptRows>>,
    /// Commands asked for in this frame, applied after drawing.
    queue: Vec<changes::Change>,
    /// Text the platform pasted in this frame.
    pasted: Option<String>,
    /// Where a paste from the canvas menu goes (graph position).
    paste_at: Option<[f32; 2]>,
    palette: commands::Palette,
    /// Find Node's bar.
    find: find::Find,
    /// Go to Step's field.
    go_to: field::Field,
    /// File > Attach to BehaviorTree.CPP…'s address field.
    attach_field: field::Field,
    /// A large trace being read off the UI thread.
    reading: Option<reading::TraceReading>,
    chooser: files::Chooser,
    /// Why the in-app file field is used instead of the system's dialog.
    chooser_why: Option<String>,
    prompt: Option<files::FilePrompt>,
    /// An action waiting for the answer to "save the unsaved changes?".
    pending: Option<Pending>,
    /// The window may close (the user answered the prompt).
    closing: bool,
    /// The list of every command and its shortcuts is shown (Help).
    help: bool,
    /// The window title last sent, so it is sent again only when it changes.
    shown_title: String,
    /// Files opened or saved lately, newest first.
    recent: Vec<PathBuf>,
    /// The scenario the tree runs in, if one was found or opened.
    sim: Option<SimPanel>,
    /// The window was checked against the monitor's size.
    sized: bool,
    /// The tree was arranged as it was read (its file had no positions), with sizes
    /// estimated: it is arranged again with the sizes drawn, once the canvas has drawn it
    /// and the sizes have settled (the frames waited so far), unless it was changed first.
    unplaced: Option<u8>,
    /// Every command run in this session, oldest first (the last 100).
    ran: Vec<Command>,
    /// Breakpoints by tree file (kept in the editor's settings, never in the tree).
    breakpoints: Breakpoints,
    /// The key of the breakpoints of the tree the run runs, and the file it was made for.
    breakpoints_key: std::cell::RefCell<Option<(Option<PathBuf>, String)>>,
    /// Unsaved work written aside, and work recovered to offer.
    autosave: autosave::Autosave,
    /// The tree's file as it is on disk, watched for changes by other programs.
    disk: disk::Disk,
    /// Where the settings are kept, and what was last written there.
    settings: settings::Kept,
    /// Where games connect to be shown live (`None`: live attach is off).
    live: Option<live::LiveAttach>,
    /// A game to show live as soon as it connects (`arbor edit --game`).
    show_game: Option<String>,
    /// View > Coverage: counts painted on the canvas as heat.
    coverage: Option<coverage::Overlay>,
    /// The Blackboard panel's own state (a key being added or renamed, usages found).
    blackboard: blackboard::Blackboard,
}

/// An action that would lose unsaved changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pending {
    /// File > New.
    New,
    /// File > Open….
    Open,
    /// Open this file (a recent file).
    OpenFile(PathBuf),
    /// Open the asset of this SubTree node (the run goes on).
    OpenSubTree(PathBuf, Option<String>, NodeId),
    /// File > Open Trace…: choose a trace, then open the tree it names.
    OpenTrace,
    /// Closing the window.
    Close,
}

/// How many recent files File > Open Recent lists.
pub const RECENT_MAX: usize = 8;

/// The path of `asset` relative to the folder of `tree` (as SubTree assets are written:
/// [`crate::io::relative_path`]); an absolute path when there is none or no tree file.
pub fn relative_asset(tree: Option<&Path>, asset: &Path) -> String {
    tree.and_then(Path::parent)
        .map(|dir| {
            if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            }
        })
        .and_then(|dir| crate::io::relative_path(asset, dir))
        .unwrap_or_else(|| asset.display().to_string())
}

impl EditorApp {
    /// An editor on `tree`, saved at `path` if any.
    pub fn new(tree: Tree, path: Option<PathBuf>) -> Self {
        Self::in_project(tree, path, None)
    }

    /// An editor on `tree`, saved at `path` if any, with the node libraries of the project
    /// file `explicit`, or of the one found by walking up from `path`.
    pub fn in_project(mut tree: Tree, path: Option<PathBuf>, explicit: Option<&Path>) -> Self {
        let project = project::ProjectKinds::new(path.as_deref(), explicit);
        let catalog = project.catalog_for(&tree);
        if let Some(p) = &path {
            crate::io::fit_to_kinds(p, &mut tree, &catalog);
        }
        let unplaced = arrange_if_unplaced(&mut tree, &catalog);
        let canvas = Canvas::new(&tree, &catalog);
        let (chooser, chooser_why) = files::Chooser::detect();
        let problems: Vec<String> = project.problems().iter().map(|p| p.to_string()).collect();
        let mut app = Self {
            catalog,
            project,
            doc: Document::new(tree, path),
            canvas,
            diagnostics: Vec::new(),
            marked: Default::default(),
            selection: selection::Selection::default(),
            messages: messages::Messages::default(),
            filter: String::new(),
            kind_rows: std::cell::RefCell::new(None),
            queue: Vec::new(),
            pasted: None,
            paste_at: None,
            palette: commands::Palette::default(),
            find: find::Find::default(),
            go_to: field::Field::default(),
            attach_field: field::Field::default(),
            reading: None,
            chooser,
            chooser_why,
            prompt: None,
            pending: None,
            closing: false,
            help: false,
            shown_title: String::new(),
            recent: Vec::new(),
            sim: None,
            sized: false,
            unplaced: unplaced.then_some(0),
            ran: Vec::new(),
            breakpoints: Breakpoints::default(),
            breakpoints_key: std::cell::RefCell::new(None),
            autosave: autosave::Autosave::default(),
            disk: disk::Disk::default(),
            settings: settings::Kept::default(),
            live: None,
            show_game: None,
            coverage: None,
            blackboard: blackboard::Blackboard::default(),
        };
        app.validate();
        app.sim = Some(app.own_panel());
        app.reset_sim();
        for p in problems {
            app.say_problem(p);
        }
        app
    }

    /// The problems of the project's node libraries (file, kind and what), for the
    /// Problems panel.
    pub fn project_problems(&self) -> &[crate::io::Problem] {
        self.project.problems()
    }

    /// Sets the palette's search text, as typing in its field does (benchmarks).
    pub fn set_palette_filter(&mut self, text: &str) {
        self.filter = text.to_owned();
    }

    /// The node kinds the editor offers and checks against.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Takes the kinds again from the project's files: after a library changed on disk,
    /// or with `explicit` as the project file.
    fn reload_kinds(&mut self) {
        let before =
            std::mem::replace(&mut self.catalog, self.project.catalog_for(self.doc.tree()));
        self.kind_rows.take();
        // Nodes that undo or redo may bring back keep their placeholders.
        self.catalog.keep_placeholders_of(&before);
        self.doc.fit_to_kinds(&self.catalog);
        // A BehaviorTree.CPP file keeps no positions: laid out again as its nodes are
        // drawn now (their fields shown), unless changed since it was saved.
        if self.doc.path().is_some_and(crate::io::btcpp::is_xml) {
            self.unplaced = Some(0);
        }
        self.canvas.rebuild(self.doc.tree(), &self.catalog);
        self.validate();
        self.restart_sim();
    }

    /// Lists the file of node models `path` (a node library, a BehaviorTree.CPP models
    /// file, a Groot2 project) in the tree's project, made beside the tree when it has
    /// none, and takes the kinds again: the inspector's "Load models from…". Says what it
    /// did, and how many of the tree's unknown kinds are known now.
    pub fn load_models(&mut self, path: &Path) -> bool {
        let project = match (self.project.file(), self.doc.path()) {
            (Some(p), _) => p.to_owned(),
            (None, Some(tree)) => tree.with_file_name(crate::io::PROJECT_FILE),
            (None, None) => {
                self.say_problem(
                    "Save the tree first: the project file that lists the models is made beside it",
                );
                return false;
            }
        };
        let unknown = |c: &Catalog, t: &Tree| {
            let kinds: std::collections::HashSet<&str> =
                t.nodes().iter().map(|n| n.kind.as_str()).collect();
            kinds
                .into_iter()
                .filter(|k| c.kind(k).is_none_or(crate::model::KindSpec::is_placeholder))
                .count()
        };
        let before = unknown(&self.catalog, self.doc.tree());
        let listed = match crate::io::list_library(&project, path) {
            Ok(listed) => listed,
            Err(e) => {
                self.say_problem(format!("The models were not loaded: {e}"));
                return false;
            }
        };
        self.project.reload();
        self.reload_kinds();
        let after = unknown(&self.catalog, self.doc.tree());
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let project_name = project.file_name().unwrap_or_default().to_string_lossy();
        let how = match listed {
            crate::io::Listed::Made => format!("{project_name} made beside the tree to list it"),
            crate::io::Listed::Added => format!("listed in {project_name}"),
            crate::io::Listed::Already => format!("{project_name} listed it already"),
        };
        let known = before.saturating_sub(after);
        let text = format!(
            "Loaded the node models of {name} ({how}): {known} unknown kind{} of this tree now known, {after} still unknown",
            if known == 1 { "" } else { "s" }
        );
        match self.project.problems().first() {
            Some(p) => self.say_problem(format!("{text}; the project has a problem: {p}")),
            None => self.say(text),
        }
        true
    }

    /// Reads the node libraries again when one changed on disk (called every frame).
    fn poll_project(&mut self, ctx: &egui::Context) {
        if !self.project.poll(ctx) {
            return;
        }
        self.reload_kinds();
        let libraries = self.project.problems().len();
        match self.project.problems().first() {
            Some(p) => self.say_problem(format!(
                "Node libraries reloaded with {libraries} problem(s): {p}"
            )),
            None => self.say("Node libraries reloaded"),
        }
    }

    /// A panel that runs the tree being edited: in the scenario beside its file, or alone
    /// in an empty world when there is none. A scenario beside it that does not load
    /// shows why in the panel.
    fn own_panel(&self) -> SimPanel {
        let mut run = match self.doc.path().and_then(Debugger::beside) {
            Some(p) => Debugger::open(&p).unwrap_or_else(|_| {
                let text = crate::io::read_text(&p).unwrap_or_default();
                Debugger::from_text(p, text)
            }),
            None => Debugger::solo(self.doc.path()),
        };
        run.pair_with(self.doc.path());
        SimPanel::new(run)
    }

    /// An editor on the bundled sample tree.
    pub fn sample() -> Self {
        match parse_tree(SAMPLE, Path::new("droid_arena.json")) {
            Ok(tree) => {
                let mut app = Self::new(tree, None);
                // Its title says what it shows: the sample, not a new tree.
                app.doc.set_label("droid arena (sample)");
                app.set_scenario(Debugger::from_text(
                    PathBuf::from("droid_arena.scenario.json"),
                    crate::debug::SAMPLE_SCENARIO.to_owned(),
                ));
                app
            }
            Err(e) => {
                let mut app = Self::new(Tree::new(), None);
                app.say_problem(format!("The bundled sample did not load: {e}"));
                app
            }
        }
    }

    /// An editor on a file; a file that fails to load gives its error.
    pub fn open(path: &Path) -> Result<Self, crate::io::LoadError> {
        Self::open_in(path, None)
    }

    /// An editor on a file, with the node libraries of the project file `explicit` (else
    /// of the one found from the file's folder).
    pub fn open_in(path: &Path, explicit: Option<&Path>) -> Result<Self, crate::io::LoadError> {
        Self::open_tree_in(path, None, explicit)
    }

    /// [`EditorApp::open_in`], or with `tree`, the `<BehaviorTree>` of that ID of a
    /// BehaviorTree.CPP file (a tree a SubTree runs): saving writes it back into its place
    /// in the file.
    pub fn open_tree_in(
        path: &Path,
        tree: Option<&str>,
        explicit: Option<&Path>,
    ) -> Result<Self, crate::io::LoadError> {
        let (tree, stamp, kept) = crate::io::load_tree_named_stamped(path, tree)?;
        Ok(Self::read_from(path, tree, (stamp, kept), explicit))
    }

    /// An editor on `tree`, read from the file at `path` (whose content has `stamp`), with
    /// the node libraries of the project file `explicit` (else of the one found).
    fn read_from(
        path: &Path,
        tree: Tree,
        (stamp, kept): (crate::io::Stamp, crate::io::Kept),
        explicit: Option<&Path>,
    ) -> Self {
        // What a save stopped by a kill or a crash left beside it goes.
        crate::io::remove_stale_temporaries(path);
        let mut app = Self::in_project(tree, Some(path.to_owned()), explicit);
        app.say_notes(&kept);
        app.doc.read_from_disk(stamp, kept);
        app.watch_file();
        app.remember(path);
        app
    }

    /// The editor as `arbor edit` opens it: on `file`, from the project `explicit` or the
    /// one found from the file (a file that does not exist yet is a new tree to be saved
    /// there; one that does not load leaves its file alone and opens a new tree, saying
    /// why), or on the bundled sample; then replaying `trace`, on the tree it names (a
    /// trace given alone starts from a new tree, not the sample, so that a trace that does
    /// not read, or whose tree is gone, is not taken for the sample's run).
    pub fn start(file: Option<&Path>, trace: Option<&Path>, explicit: Option<&Path>) -> Self {
        let mut app = match (file, trace) {
            (None, Some(_)) => Self::in_project(new_tree(), None, explicit),
            _ => Self::start_on(file, explicit),
        };
        if let Some(trace) = trace {
            app.open_trace(trace);
        }
        app
    }

    /// The editor as `arbor edit` opens it ([`EditorApp::start`]), its run or its replay
    /// taken where the command line says ([`EditorApp::run_from`],
    /// [`EditorApp::replay_from`]).
    pub fn launch(
        file: Option<&Path>,
        trace: Option<&Path>,
        explicit: Option<&Path>,
        from: &crate::debug::RunFrom,
    ) -> Self {
        let mut app = Self::start(file, trace, explicit);
        if let Some(reading) = &mut app.reading {
            // A large trace still being read: taken there once it is.
            reading.then = Some(from.clone());
        } else if trace.is_some() {
            app.replay_from(from);
        } else {
            app.run_from(from);
        }
        app
    }

    /// Takes the run to where `from` says (`arbor edit --scenario --seed --dt --trigger
    /// --at`, as `arbor test` prints it for a failure): in that scenario, from that seed,
    /// with those triggers, paused at that step.
    pub fn run_from(&mut self, from: &crate::debug::RunFrom) {
        if from.is_default() {
            return;
        }
        if from.solo {
            self.set_scenario(Debugger::solo(self.doc.path()));
        }
        if let Some(scenario) = &from.scenario
            && !self.open_scenario(scenario)
        {
            return;
        }
        if let Some(s) = self.simulation_mut() {
            s.set_seed_and_dt(from.seed, from.dt);
            s.set_every_agent(from.every_agent);
        }
        self.restart_sim();
        let at = from.at.unwrap_or(0);
        let mut triggers: Vec<&crate::world::Trigger> =
            from.triggers.iter().filter(|t| t.step <= at).collect();
        triggers.sort_by_key(|t| t.step);
        let mut unused = Vec::new();
        let Some(run) = self.simulation_mut() else {
            return;
        };
        run.set_running(false);
        for t in triggers {
            let now = run.step_number();
            run.step_by(t.step.saturating_sub(1).saturating_sub(now), &[]);
            if run.queue_trigger(t.agent.as_deref(), &t.id, t.payload.as_deref()) == 0 {
                unused.push(format!("--trigger {t}"));
            }
        }
        let now = run.step_number();
        run.step_by(at.saturating_sub(now), &[]);
        if let Some(name) = &from.watch {
            match run
                .source()
                .and_then(|r| r.agent_names().iter().position(|n| n == name))
            {
                Some(i) => run.watch(i),
                None => unused.push(format!("--watch {name}")),
            }
        }
        if let Some(node) = &from.select {
            run.set_select(run.shown(node));
        }
        let error = run.error().map(str::to_owned);
        let reached = run.step_number();
        let later = from.triggers.iter().filter(|t| t.step > at).count();
        match error {
            Some(e) => self.say_problem(format!("The run cannot start: {e}")),
            None if !unused.is_empty() => self.say_problem(format!(
                "No agent has this Interrupt, or this name: {} (ignored)",
                unused.join(", ")
            )),
            None => self.say(format!(
                "At step {reached} of the run with seed {}{}",
                from.seed,
                if later > 0 {
                    format!(" ({later} trigger(s) after it are not queued: give them in the panel)")
                } else {
                    String::new()
                }
            )),
        }
    }

    /// The editor on `file` (see [`EditorApp::start`]).
    fn start_on(file: Option<&Path>, explicit: Option<&Path>) -> Self {
        let Some(path) = file else {
            return Self::sample();
        };
        if !path.exists() {
            let mut app = Self::in_project(new_tree(), Some(path.to_owned()), explicit);
            app.say(format!(
                "{} does not exist yet: a new tree, written there at the first save",
                path.display()
            ));
            return app;
        }
        match Self::open_in(path, explicit) {
            Ok(app) => app,
            Err(e) => {
                let mut app = Self::in_project(new_tree(), None, explicit);
                app.say_problem(format!(
                    "{e} (the file is left as it is; this is a new tree)"
                ));
                app
            }
        }
    }

    /// Uses this file chooser (tests and headless runs use the in-app field).
    pub fn set_chooser(&mut self, chooser: files::Chooser) {
        self.chooser = chooser;
    }

    /// The debugger of the Simulation panel, when there is one.
    pub fn simulation(&self) -> Option<&Debugger> {
        self.sim.as_ref().map(|p| &p.debugger)
    }

    /// The coverage painted on the canvas (View > Coverage), when it is shown.
    pub fn coverage(&self) -> Option<&coverage::Overlay> {
        self.coverage.as_ref()
    }

    /// The Simulation panel, when there is one.
    pub fn panel(&self) -> Option<&SimPanel> {
        self.sim.as_ref()
    }

    /// The debugger, to change (its speed, whether it runs).
    pub fn simulation_mut(&mut self) -> Option<&mut Debugger> {
        self.sim.as_mut().map(|p| &mut p.debugger)
    }

    /// The debugger, and the breakpoints of the tree it shows, for a call that steps.
    pub(super) fn debugging(&mut self) -> Option<(&mut Debugger, &[Breakpoint])> {
        let key = self.breakpoints_key();
        let breaks = self.breakpoints.of(&key);
        self.sim.as_mut().map(|p| (&mut p.debugger, breaks))
    }

    /// Runs the tree in this scenario (from its first state).
    pub fn set_scenario(&mut self, mut run: Debugger) {
        run.pair_with(self.doc.path());
        self.sim = Some(SimPanel::new(run));
        self.reset_sim();
    }

    /// The watched agent's status of a node in the simulation, if it has one.
    pub fn live_status(&self, id: &NodeId) -> Option<crate::runtime::Status> {
        self.simulation()
            .and_then(|s| s.live().get(id).map(|l| l.state.status))
    }

    /// The tree changed (an edit, Undo, Redo): the run is taken again with it to the step
    /// shown ([`Debugger::fork`]), and what that did is said after what the edit says. A SubTree's asset that was
    /// shown inside a run has changed: the run no longer matches it, so the asset runs on
    /// its own from now on.
    fn reset_sim(&mut self) {
        if self.simulation().is_some_and(|s| s.inside().is_some()) {
            self.sim = Some(self.own_panel());
            self.say("The SubTree's tree changed: it now runs on its own");
            self.restart_sim();
            return;
        }
        let path = self.run_path();
        if let Some(s) = &mut self.sim {
            let said = s
                .debugger
                .fork(&self.catalog, self.doc.tree(), &path, self.doc.revision());
            s.debugger.set_shown_file(self.doc.path());
            // Said after what the edit itself says (at the next frame).
            if let Some(said) = said {
                s.debugger.tell(said);
            }
        }
    }

    /// The file the run's tree is known by: the tree's, or the bundled sample's name.
    fn run_path(&self) -> PathBuf {
        self.doc
            .path()
            .map_or_else(|| PathBuf::from("droid_arena.json"), Path::to_owned)
    }

    /// Starts the simulation over (the run's own tree, while a SubTree's asset is shown).
    fn restart_sim(&mut self) {
        let path = self.run_path();
        if let Some(s) = &mut self.sim {
            s.debugger
                .start_over(&self.catalog, self.doc.tree(), &path, self.doc.revision());
            s.debugger.set_shown_file(self.doc.path());
        }
    }

    /// The key of the breakpoints of the tree the run runs (the tree being edited, unless
    /// a SubTree's asset is shown inside a run).
    /// Asked several times a frame: the key is made (a file system look-up) only when the
    /// file changes.
    fn breakpoints_key(&self) -> String {
        let inside = self.simulation().and_then(Debugger::inside);
        let file = inside.map_or_else(|| self.doc.path(), |i| i.file.as_deref());
        let mut kept = self.breakpoints_key.borrow_mut();
        match &*kept {
            Some((f, key)) if f.as_deref() == file => key.clone(),
            _ => {
                let key = Breakpoints::key(file);
                *kept = Some((file.map(Path::to_owned), key.clone()));
                key
            }
        }
    }

    /// The breakpoints of the tree the run runs, on its nodes (trace ids).
    pub fn breakpoints(&self) -> &[Breakpoint] {
        self.breakpoints.of(&self.breakpoints_key())
    }

    /// After steps: selects the node a breakpoint stopped at, and says why it stopped.
    pub(super) fn after_sim(&mut self) {
        let Some(run) = self.simulation_mut() else {
            return;
        };
        let select = run.take_select();
        let why = run.take_news();
        if let Some(id) = select
            && self.doc.tree().contains(&id)
        {
            self.queue.push(changes::Change::Focus(id));
        }
        if let Some(why) = why {
            self.say(why);
        }
    }

    /// The tree being edited.
    pub fn tree(&self) -> &Tree {
        self.doc.tree()
    }

    /// The document: the tree, its file and its history.
    pub fn document(&self) -> &Document {
        &self.doc
    }

    /// The status line's message now (empty when it says "Ready").
    pub fn status(&self) -> &str {
        self.messages.current().unwrap_or("")
    }

    /// Whether a message of the session (still kept) contains `part`.
    pub fn said(&self, part: &str) -> bool {
        self.messages.all().any(|m| m.contains(part))
    }

    /// The newest message of the session, expired or not.
    pub fn last_message(&self) -> &str {
        self.messages.last().unwrap_or("")
    }

    /// Says what reading a file found (a BehaviorTree.CPP 3 file read as format 4, a
    /// script not in the language): each note into the messages, the first last, with how
    /// many more, so that the status line shows it.
    fn say_notes(&mut self, kept: &crate::io::Kept) {
        let notes = kept.as_ref().map_or(&[][..], |s| s.notes());
        if let [first, rest @ ..] = notes {
            for note in rest {
                self.say(note.clone());
            }
            if rest.is_empty() {
                self.say(first.clone());
            } else {
                self.say(format!(
                    "{first} (and {} more: Messages lists each)",
                    rest.len()
                ));
            }
        }
    }

    fn say(&mut self, text: impl Into<String>) {
        self.messages.say(messages::Level::Info, text);
    }

    fn say_problem(&mut self, text: impl Into<String>) {
        self.messages.say(messages::Level::Problem, text);
    }

    /// The commands run lately (however they were asked for), oldest first.
    pub fn commands_run(&self) -> &[Command] {
        &self.ran
    }

    /// Whether there are unsaved changes.
    pub fn is_dirty(&self) -> bool {
        self.doc.is_dirty()
    }

    /// The current diagnostics.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The window title: file name and a dirty marker.
    pub fn title(&self) -> String {
        format!(
            "{}{} — Arbor",
            self.doc.name(),
            if self.doc.is_dirty() { " •" } else { "" }
        )
    }

    /// Applies an edit as one undo step; a refused edit leaves everything as it was and
    /// says why.
    pub fn apply(&mut self, edit: Edit) -> bool {
        let rebuild = changes_graph(&edit);
        let result = self.doc.apply(edit, &self.catalog);
        self.after_edit(result, rebuild)
    }

    /// Applies an edit; consecutive edits with the same `key` on the same node (typing in one
    /// field, dragging one value) make a single undo step.
    pub fn apply_coalesced(&mut self, edit: Edit, node: &NodeId, key: &str) -> bool {
        let rebuild = changes_graph(&edit);
        let result = self.doc.apply_coalesced(edit, node, key, &self.catalog);
        self.after_edit(result, rebuild)
    }

    fn after_edit(&mut self, result: Result<(), crate::model::EditError>, rebuild: bool) -> bool {
        match result {
            Ok(()) => {
                if rebuild {
                    self.canvas.rebuild(self.doc.tree(), &self.catalog);
                }
                self.follow_renames();
                self.selection.retain(|id| self.doc.tree().contains(id));
                self.validate();
                self.reset_sim();
                true
            }
            Err(e) => {
                self.say_problem(e.message);
                false
            }
        }
    }

    /// The selected node shown in the inspector.
    pub fn selected(&self) -> Option<&NodeId> {
        self.selection.first()
    }

    /// Every selected node.
    pub fn selection(&self) -> &[NodeId] {
        self.selection.ids()
    }

    /// Selects a node (or none).
    pub fn select(&mut self, id: Option<NodeId>) {
        self.select_many(id.as_slice());
    }

    /// Selects several nodes (the first is shown in the inspector).
    pub fn select_many(&mut self, ids: &[NodeId]) {
        self.selection.set(ids, self.doc.tree());
    }

    /// Selects a node and centres the view on it at the next frame (a click on a problem).
    pub fn focus(&mut self, id: &NodeId) {
        self.select(Some(id.clone()));
        if !self.selection.is_empty() {
            self.reveal(id);
            self.canvas.request(ViewRequest::Centre(id.clone()));
        }
    }

    /// Expands any collapsed node that hides `id`.
    fn reveal(&mut self, id: &NodeId) {
        let mut changed = false;
        let mut at = self.doc.parent_of(id).map(|p| p.parent.clone());
        let mut guard = 0;
        while let Some(parent) = at {
            if self.canvas.is_collapsed(&parent) {
                self.canvas.set_collapsed(&parent, false);
                changed = true;
            }
            at = self.doc.parent_of(&parent).map(|p| p.parent.clone());
            guard += 1;
            if guard > self.doc.tree().len() {
                break;
            }
        }
        if changed {
            self.canvas.rebuild(self.doc.tree(), &self.catalog);
        }
    }

    /// Sets the view transform (graph to screen) at the next frame, instead of fitting the
    /// view to the tree; tests pin it so that pointer positions are predictable.
    pub fn pin_view(&mut self, transform: egui::emath::TSTransform) {
        self.canvas.request(ViewRequest::Pin(transform));
    }

    /// The view transform (graph to screen) of the last frame drawn.
    pub fn camera(&self) -> Option<egui::emath::TSTransform> {
        self.canvas.camera()
    }

    /// Where a node's frame is on screen, as of the last frame drawn.
    pub fn screen_rect_of(&self, id: &NodeId) -> Option<egui::Rect> {
        self.canvas.screen_rect_of(self.doc.tree(), id)
    }

    /// Where a node's centre is on screen, as of the last frame drawn.
    pub fn screen_centre_of(&self, id: &NodeId) -> Option<egui::Pos2> {
        self.screen_rect_of(id).map(|r| r.center())
    }

    /// The canvas area on screen, as of the last frame drawn.
    pub fn canvas_rect(&self) -> Option<egui::Rect> {
        self.canvas.area()
    }

    /// Whether the subtree below a node is collapsed on the canvas.
    pub fn is_collapsed(&self, id: &NodeId) -> bool {
        self.canvas.is_collapsed(id)
    }

    /// Whether a node is drawn (not hidden below a collapsed node).
    pub fn is_shown(&self, id: &NodeId) -> bool {
        self.canvas.is_shown(id)
    }

    /// The action waiting for an answer about unsaved changes.
    pub fn pending(&self) -> Option<Pending> {
        self.pending.clone()
    }

    /// Files opened or saved lately, newest first.
    pub fn recent(&self) -> &[PathBuf] {
        &self.recent
    }

    /// Sets the recent files (as the settings file gives them at start).
    pub fn set_recent(&mut self, files: Vec<PathBuf>) {
        self.recent = files;
        self.recent.truncate(RECENT_MAX);
    }

    fn remember(&mut self, path: &Path) {
        let path = path.canonicalize().unwrap_or_else(|_| path.to_owned());
        self.recent.retain(|p| *p != path);
        self.recent.insert(0, path);
        self.recent.truncate(RECENT_MAX);
    }

    /// What refers to nodes by id follows the nodes the last change renamed: the
    /// selection, this tree's breakpoints, a replay's ids.
    fn follow_renames(&mut self) {
        let renamed = self.doc.take_renamed();
        if renamed.is_empty() {
            return;
        }
        let key = self.breakpoints_key();
        for (from, to) in &renamed {
            self.selection.rename(from, to);
            self.breakpoints.rename(&key, from.as_str(), to.as_str());
            if let Some(s) = &mut self.sim {
                s.debugger.renamed(from, to);
            }
        }
    }

    fn changed(&mut self) {
        // A tree restored from recovery may hold kinds no library here knows.
        self.catalog.add_placeholders(self.doc.tree());
        self.canvas.rebuild(self.doc.tree(), &self.catalog);
        self.follow_renames();
        self.selection.retain(|id| self.doc.tree().contains(id));
        self.validate();
        self.reset_sim();
    }

    fn validate(&mut self) {
        self.diagnostics = match self.doc.path() {
            Some(p) => TreeFiles::new(&self.catalog).validate_tree(p, self.doc.tree()),
            None => validate(self.doc.tree(), &self.catalog, &crate::model::NoAssets),
        };
        let errors = self
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .filter_map(|d| d.nodes.first().cloned())
            .collect();
        let unreachable = self
            .diagnostics
            .iter()
            .filter(|d| d.rule == Rule::Unreachable)
            .flat_map(|d| d.nodes.iter().cloned())
            .collect();
        self.marked = (errors, unreachable);
    }

    /// Draws one frame of the whole editor into `ui` (the window's root; also used
    /// headless by the editor benchmark), then applies what was asked for.
    pub fn show(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        self.fit_window(&ctx);
        self.poll_project(&ctx);
        self.poll_disk(&ctx);
        self.poll_trace(&ctx);
        // Escape closes Find Node before it can clear the selection it made; then the
        // list of commands (F1 again closes it too).
        self.find.take_escape(&ctx);
        self.go_to.take_escape(&ctx);
        self.attach_field.take_escape(&ctx);
        if self.help && ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Escape)) {
            self.help = false;
        }
        if self.prompt.is_none()
            && !self.palette.open
            && self.pending.is_none()
            && self.autosave.offer.is_none()
            && self.disk.conflict.is_none()
        {
            let (pressed, pasted) = commands::pressed(&ctx, self.canvas.space_panned());
            self.queue
                .extend(pressed.into_iter().map(changes::Change::Command));
            self.pasted = pasted;
        }
        // A gesture ends when nothing is being dragged or typed into: the next change is a
        // new undo step.
        if !ctx.egui_wants_keyboard_input() && !ctx.input(|i| i.pointer.any_down()) {
            self.doc.end_gesture();
        }
        if ctx.input(|i| i.viewport().close_requested()) && self.doc.is_dirty() && !self.closing {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.pending = Some(Pending::Close);
        }
        self.unsaved_prompt_ui(&ctx);
        self.recovery_prompt_ui(&ctx);
        self.conflict_prompt_ui(&ctx);
        let mut palette = std::mem::take(&mut self.palette);
        if let Some(c) = palette.ui(&ctx, &*self) {
            self.queue.push(changes::Change::Command(c));
        }
        self.palette = palette;
        self.file_prompt_ui(&ctx);
        self.messages.window_ui(&ctx);
        commands::help_ui(&ctx, &mut self.help);
        let title = self.title();
        if title != self.shown_title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.shown_title = title;
        }
        egui::Panel::top("menu").show(ui, |ui| self.menu_ui(ui));
        egui::Panel::bottom("status").show(ui, |ui| self.messages.status_ui(ui));
        if self.live.is_some() {
            self.wake_for_games(&ctx);
            self.live_games();
        }
        self.pace_simulation(ctx.input(|i| i.time));
        self.simulation_ui(ui);
        egui::Panel::left("palette")
            .default_size(170.0)
            .show(ui, |ui| self.palette_ui(ui));
        // The side panel keeps the width it is given (or dragged to): what it shows wraps
        // and scrolls within it, so selecting a node never moves the canvas.
        egui::Panel::right("side")
            .default_size(320.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical()
                    .id_salt("side")
                    .auto_shrink([false, false])
                    .show(ui, |ui| {
                        self.inspector_panel_ui(ui);
                        ui.separator();
                        self.blackboard_ui(ui);
                        ui.separator();
                        self.diagnostics_ui(ui);
                    });
            });
        self.canvas.covered_top = self.find.covers();
        egui::CentralPanel::default().show(ui, |ui| self.canvas_ui(ui));
        if let Some(area) = self.canvas.area()
            && let Some(id) = self.find.ui(&ctx, area, self.doc.tree())
        {
            self.queue.push(changes::Change::Focus(id));
        }
        self.go_to_ui(&ctx);
        self.program_field_ui(&ctx);
        self.arrange_as_drawn();
        self.run_queue(&ctx);
        self.autosave(&ctx);
        self.keep_settings(&ctx);
    }

    /// A tree arranged as it was read, with sizes estimated, is arranged again once the
    /// canvas has drawn it, with the sizes drawn (a wide node no longer overlaps its
    /// neighbours); the tree stays as read: not changed, no undo step.
    fn arrange_as_drawn(&mut self) {
        let Some(waited) = self.unplaced else {
            return;
        };
        // Sizes settle within a few frames; a node that keeps changing size (an
        // animation) does not hold the arrangement back for ever.
        // A change made meanwhile (an edit, restored work) is the user's: it stays.
        if self.doc.is_dirty() {
            self.unplaced = None;
            return;
        }
        if self.canvas.camera().is_none() || (self.canvas.resized() && waited < 10) {
            self.unplaced = Some(waited + 1);
            return;
        }
        self.unplaced = None;
        let drawn = |n: &NodeId| self.canvas.drawn_size(n);
        let edit = layout::layout(&layout::Sizes::new(self.doc.tree(), &self.catalog, &drawn));
        if self.doc.arrange(edit, &self.catalog) {
            self.canvas.rebuild(self.doc.tree(), &self.catalog);
            self.canvas.request(ViewRequest::Open);
        }
    }

    /// At the first frame, a window larger than its monitor is shrunk to fit it.
    fn fit_window(&mut self, ctx: &egui::Context) {
        if self.sized {
            return;
        }
        let (monitor, inner) = ctx.input(|i| (i.viewport().monitor_size, i.viewport().inner_rect));
        let (Some(monitor), Some(inner)) = (monitor, inner) else {
            return;
        };
        self.sized = true;
        let room = monitor * egui::vec2(0.92, 0.88);
        if inner.width() > room.x || inner.height() > room.y {
            ctx.send_viewport_cmd(egui::ViewportCommand::InnerSize(inner.size().min(room)));
            let at = ((monitor - inner.size().min(room)) * 0.5).to_pos2();
            ctx.send_viewport_cmd(egui::ViewportCommand::OuterPosition(at));
        }
    }
}

impl eframe::App for EditorApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }

    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        self.write_settings();
    }
}

/// Where `arbor edit --listen` says to listen: a port on the loopback address (the default
/// one without the option), an address and port given in full, or `off`.
pub fn listen_address(listen: Option<&str>) -> Result<Option<std::net::SocketAddr>, String> {
    use std::net::{Ipv4Addr, SocketAddr};
    let loopback = |port| Some(SocketAddr::from((Ipv4Addr::LOCALHOST, port)));
    match listen.map(str::trim) {
        None => Ok(loopback(crate::remote::DEFAULT_PORT)),
        Some("off") => Ok(None),
        Some(text) => match (text.parse::<u16>(), text.parse::<SocketAddr>()) {
            (Ok(port), _) => Ok(loopback(port)),
            (_, Ok(addr)) => Ok(Some(addr)),
            _ => Err(format!(
                "--listen takes a port (47801), an address and port (0.0.0.0:47801) or off, not '{text}'"
            )),
        },
    }
}

/// Arbor's icon (assets/icon.png), for the window and the taskbar.
pub fn icon() -> Option<egui::IconData> {
    eframe::icon_data::from_png_bytes(include_bytes!("../../assets/icon.png")).ok()
}

/// A new tree: a Root alone, where every tree starts.
pub fn new_tree() -> Tree {
    Tree::from_nodes(vec![crate::model::Node::new("root", "Root")]).unwrap_or_default()
}

/// How `arbor edit` takes games live: where it listens (`--listen`), the game to show as
/// soon as it connects (`--game`), and a BehaviorTree.CPP program to attach to
/// (`--attach`).
#[derive(Clone, Copy, Debug, Default)]
pub struct LiveArgs<'a> {
    /// `--listen`: a port, an address and port, or `off`.
    pub listen: Option<&'a str>,
    /// `--game`: a game's name.
    pub game: Option<&'a str>,
    /// `--attach`: a Groot2Publisher's address.
    pub attach: Option<&'a str>,
    /// `--hz`: how often a program attached to is polled, a second.
    pub hz: Option<f64>,
}

/// Opens the editor window on `file` (see [`EditorApp::start`]), or on the bundled
/// sample; with `simulate`, its simulation starts running; games connect as `live_args`
/// says (`--listen`), the game it names is shown live when it comes, and so is the
/// BehaviorTree.CPP program it attaches to; `project` is the project file to take node
/// libraries from (else the one found from the file's folder).
pub fn run(
    file: Option<&Path>,
    simulate: bool,
    trace: Option<&Path>,
    live_args: &LiveArgs<'_>,
    project: Option<&Path>,
    from: &crate::debug::RunFrom,
) -> Result<(), String> {
    let mut app = EditorApp::launch(file, trace, project, from);
    if let Some(s) = app.simulation_mut() {
        s.set_running(simulate);
    }
    match crate::io::RecoveryDir::default_dir() {
        Ok(dir) => app = app.with_recovery(crate::io::RecoveryDir::new(dir)),
        Err(why) => app.say_problem(format!("Autosave is off: {why}")),
    }
    match crate::io::SettingsFile::default_path() {
        Ok(file) => app = app.with_settings(crate::io::SettingsFile::new(file)),
        Err(why) => app.say_problem(format!("Settings are not kept between runs: {why}")),
    }
    // Games connect here to be shown live, and find this editor by its card.
    let folder = app.project_folder();
    let live::Listening { live, said } = live::start_listening(live_args.listen, folder, None)?;
    if let Some(live) = live {
        app = app.with_live(live);
    }
    if let Some(game) = live_args.game {
        app.show_game_when_it_comes(game);
    }
    if let Some(hz) = live_args.hz {
        app.set_program_polling(crate::remote::groot2::Polling::new(
            hz,
            crate::remote::groot2::Polling::default().within,
        )?);
    }
    if let Some(address) = live_args.attach {
        if app.live_attach().is_none() {
            return Err(
                "--attach shows the program through live attach, which --listen off turns off"
                    .into(),
            );
        }
        app.attach_program(address.parse()?);
    }
    match said {
        Some(Ok(news)) => app.say(news),
        Some(Err(problem)) => app.say_problem(problem),
        None => {}
    }
    // The window opens as it was last (Arbor's settings file keeps it, with the recent
    // files, the breakpoints and the zoom).
    let size = app
        .kept_window()
        .map_or([1400.0, 860.0], |w| [w.width, w.height]);
    let mut viewport = egui::ViewportBuilder::default()
        .with_inner_size(size)
        .with_min_inner_size([640.0, 420.0])
        .with_app_id("arbor")
        .with_title(app.title());
    if let Some(crate::io::Window {
        x: Some(x),
        y: Some(y),
        ..
    }) = app.kept_window()
    {
        viewport = viewport.with_position([x, y]);
    }
    if let Some(icon) = icon() {
        viewport = viewport.with_icon(icon);
    }
    // eframe keeps nothing: its own settings file is not read or written.
    let options = eframe::NativeOptions {
        viewport,
        ..Default::default()
    };
    eframe::run_native("Arbor", options, Box::new(|_cc| Ok(Box::new(app))))
        .map_err(|e| format!("cannot open the editor window: {e}"))
}

/// A tree read from a file without positions (typed by hand, or written by a tool) is
/// arranged, as Arrange lays it out; returns whether it was.
fn arrange_if_unplaced(tree: &mut Tree, catalog: &Catalog) -> bool {
    if tree.len() > 1 && tree.nodes().iter().all(|n| n.position == [0.0, 0.0]) {
        let edit = layout::layout(&layout::Sizes::new(tree, catalog, &|_| None));
        return tree.apply(edit, catalog).is_ok();
    }
    false
}

/// Whether an edit changes what the canvas graph holds (nodes, links or positions), so the
/// snarl graph must be rebuilt; field, title and comment changes are read from the tree
/// as the nodes are drawn.
fn changes_graph(edit: &Edit) -> bool {
    match edit {
        Edit::SetField { .. }
        | Edit::SetTitle { .. }
        | Edit::SetComment { .. }
        | Edit::SetKeys(_)
        | Edit::DeclareKey { .. }
        | Edit::UpdateKey { .. }
        | Edit::RemoveKey { .. }
        | Edit::RenameKey { .. } => false,
        Edit::Batch(edits) => edits.iter().any(changes_graph),
        _ => true,
    }
}
