//! The editor: everything egui. A view of the model; every change goes through a model
//! [`Edit`], so undo is the edit's inverse and the canvas is rebuilt from the tree.

mod canvas;
mod inspector;
mod layout;
mod simulate;

pub use simulate::SimPanel;

pub use canvas::{Attach, Canvas, Viewer, category_colour, fit_transform, kinds_fitting, pins};

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use eframe::egui::{self, Key, KeyboardShortcut, Modifiers, RichText};

use crate::io::{TreeFiles, parse_tree, save_tree};
use crate::model::{
    Catalog, Category, Diagnostic, Edit, NoAssets, Node, NodeId, Rule, Severity, Tree, validate,
};

/// The tree the editor opens when given no file (bundled, so it opens from any folder).
pub const SAMPLE: &str = include_str!("../../sample_trees/droid_arena.json");

/// The editor application.
pub struct EditorApp {
    catalog: Catalog,
    tree: Tree,
    path: Option<PathBuf>,
    dirty: bool,
    undo: Vec<Edit>,
    redo: Vec<Edit>,
    canvas: Canvas,
    diagnostics: Vec<Diagnostic>,
    status: String,
    filter: String,
    selected: Option<NodeId>,
    /// The field last changed by a continuous gesture: further changes merge into its undo step.
    coalescing: Option<(NodeId, String)>,
    /// An action waiting for the answer to "save the unsaved changes?".
    pending: Option<Pending>,
    /// The window may close (the user answered the prompt).
    closing: bool,
    /// Fit the view to the tree at the next frame.
    fit: bool,
    /// Every selected node (the canvas's box and shift-click selection).
    selection: Vec<NodeId>,
    /// Nodes with errors and unreachable nodes, from the last validation (for painting).
    marked: (HashSet<NodeId>, HashSet<NodeId>),
    /// The window title last sent, so it is sent again only when it changes.
    shown_title: String,
    /// Files opened or saved lately, newest first.
    recent: Vec<PathBuf>,
    /// Centre the view on this node at the next frame.
    centre_on: Option<NodeId>,
    /// Set the view to this transform at the next frame.
    pinned: Option<egui::emath::TSTransform>,
    /// The scenario the tree runs in, if one was found or opened.
    sim: Option<SimPanel>,
    /// The canvas's own selection at the last frame.
    canvas_picked: Vec<egui_snarl::NodeId>,
    /// The canvas rect and view transform (graph to screen) of the last frame.
    view: Option<(egui::Rect, egui::emath::TSTransform)>,
}

/// An action that would lose unsaved changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pending {
    /// File > New.
    New,
    /// File > Open….
    Open,
    /// Open this file (a recent file, a SubTree's asset).
    OpenFile(PathBuf),
    /// Closing the window.
    Close,
}

/// A node kind being dragged from the palette.
#[derive(Clone, Debug)]
struct PaletteDrag(String);

/// How many recent files File > Open Recent lists.
pub const RECENT_MAX: usize = 8;

/// The key of the recent-files list in the app's storage.
const RECENT_KEY: &str = "arbor-recent-files";

/// The path of `asset` relative to the folder of `tree` (as SubTree assets are written),
/// with `/` separators; an absolute path when there is no common folder or no tree file.
pub fn relative_asset(tree: Option<&Path>, asset: &Path) -> String {
    let Some(dir) = tree.and_then(Path::parent) else {
        return asset.display().to_string();
    };
    let (from, to): (Vec<_>, Vec<_>) = (dir.components().collect(), asset.components().collect());
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return asset.display().to_string();
    }
    let mut parts: Vec<String> = vec!["..".to_owned(); from.len() - common];
    parts.extend(
        to[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

impl EditorApp {
    /// An editor on `tree`, saved at `path` if any.
    pub fn new(tree: Tree, path: Option<PathBuf>) -> Self {
        let catalog = Catalog::builtin();
        let canvas = Canvas::new(&tree, &catalog);
        let mut app = Self {
            catalog,
            tree,
            path,
            dirty: false,
            undo: Vec::new(),
            redo: Vec::new(),
            canvas,
            diagnostics: Vec::new(),
            status: String::new(),
            filter: String::new(),
            selected: None,
            coalescing: None,
            pending: None,
            closing: false,
            fit: true,
            selection: Vec::new(),
            marked: Default::default(),
            shown_title: String::new(),
            centre_on: None,
            pinned: None,
            sim: None,
            recent: Vec::new(),
            canvas_picked: Vec::new(),
            view: None,
        };
        app.validate();
        app.sim = app
            .path
            .as_deref()
            .and_then(SimPanel::beside)
            .and_then(|p| SimPanel::open(&p).ok());
        app.reset_sim();
        app
    }

    /// The simulation panel, when the tree has a scenario.
    pub fn simulation(&self) -> Option<&SimPanel> {
        self.sim.as_ref()
    }

    /// Runs the tree in this scenario (from its first state).
    pub fn set_scenario(&mut self, panel: SimPanel) {
        self.sim = Some(panel);
        self.reset_sim();
    }

    /// Steps the simulation once (the Step button).
    pub fn sim_step(&mut self) {
        if let Some(s) = &mut self.sim {
            s.step();
        }
    }

    /// The watched agent's status of a node in the simulation, if it has one.
    pub fn live_status(&self, id: &NodeId) -> Option<crate::runtime::Status> {
        self.sim
            .as_ref()
            .and_then(|s| s.live().get(id).map(|(st, _)| *st))
    }

    /// Starts the simulation over with the tree as it is now.
    fn reset_sim(&mut self) {
        let path = self
            .path
            .clone()
            .unwrap_or_else(|| PathBuf::from("droid_arena.json"));
        if let Some(s) = &mut self.sim {
            s.reset(&self.catalog, &self.tree, &path);
        }
    }

    /// An editor on the bundled sample tree.
    pub fn sample() -> Self {
        match parse_tree(SAMPLE, Path::new("droid_arena.json")) {
            Ok(tree) => {
                let mut app = Self::new(tree, None);
                app.set_scenario(SimPanel::from_text(
                    PathBuf::from("droid_arena.scenario.json"),
                    simulate::SAMPLE_SCENARIO.to_owned(),
                ));
                app
            }
            Err(e) => {
                let mut app = Self::new(Tree::new(), None);
                app.status = format!("The bundled sample did not load: {e}");
                app
            }
        }
    }

    /// An editor on a file; a file that fails to load gives its error.
    pub fn open(path: &Path) -> Result<Self, crate::io::LoadError> {
        let tree = crate::io::load_tree(path)?;
        let mut app = Self::new(tree, Some(path.to_owned()));
        app.remember(path);
        Ok(app)
    }

    /// The tree being edited.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// The status line: the last refusal, error or confirmation.
    pub fn status(&self) -> &str {
        &self.status
    }

    /// Whether there are unsaved changes.
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    /// The current diagnostics.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The window title: file name and a dirty marker.
    pub fn title(&self) -> String {
        let name = self
            .path
            .as_deref()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned());
        format!(
            "{}{} — Arbor",
            name.unwrap_or_else(|| "untitled".into()),
            if self.dirty { " •" } else { "" }
        )
    }

    /// Applies an edit as one undo step; a refused edit leaves everything as it was and says why.
    pub fn apply(&mut self, edit: Edit) -> bool {
        self.apply_recording(edit, true)
    }

    /// Applies an edit; consecutive edits with the same `key` on the same node (typing in one
    /// field, dragging one value) make a single undo step.
    pub fn apply_coalesced(&mut self, edit: Edit, node: &NodeId, key: &str) -> bool {
        let same = self
            .coalescing
            .as_ref()
            .is_some_and(|(n, k)| n == node && k == key);
        if !same {
            self.coalescing = Some((node.clone(), key.to_owned()));
        }
        self.apply_recording(edit, !same)
    }

    /// Applies an edit; `record` pushes its inverse as a new undo step (otherwise the step
    /// already on the stack undoes it too).
    fn apply_recording(&mut self, edit: Edit, record: bool) -> bool {
        let rebuild = changes_graph(&edit);
        match self.tree.apply(edit, &self.catalog) {
            Ok(inverse) => {
                if record {
                    self.undo.push(inverse);
                }
                self.redo.clear();
                self.dirty = true;
                if rebuild {
                    self.canvas.rebuild(&self.tree, &self.catalog);
                }
                self.validate();
                self.reset_sim();
                true
            }
            Err(e) => {
                self.status = e.message;
                false
            }
        }
    }

    /// The selected node.
    pub fn selected(&self) -> Option<&NodeId> {
        self.selected.as_ref()
    }

    /// Selects a node (or none).
    pub fn select(&mut self, id: Option<NodeId>) {
        self.selected = id.filter(|i| self.tree.contains(i));
        self.selection = self.selected.iter().cloned().collect();
    }

    /// Selects a node and centres the view on it at the next frame (a click on a problem).
    pub fn focus(&mut self, id: &NodeId) {
        self.select(Some(id.clone()));
        if self.selected.is_some() {
            self.centre_on = Some(id.clone());
        }
    }

    /// Sets the view transform (graph to screen) at the next frame, instead of fitting the
    /// view to the tree; tests pin it so that pointer positions are predictable.
    pub fn pin_view(&mut self, transform: egui::emath::TSTransform) {
        self.fit = false;
        self.pinned = Some(transform);
    }

    /// Where a node's centre is on screen, as of the last frame drawn.
    pub fn screen_centre_of(&self, id: &NodeId) -> Option<egui::Pos2> {
        let (_, t) = self.view?;
        let n = self.tree.node(id)?;
        Some(t * canvas::node_centre(n.position))
    }

    /// The canvas area on screen, as of the last frame drawn.
    pub fn canvas_rect(&self) -> Option<egui::Rect> {
        self.view.map(|(r, _)| r)
    }

    /// The graph position at which a new node appears centred in the view, moved down and
    /// right past any node already there.
    pub fn view_centre(&self) -> [f32; 2] {
        let mut at = match self.view {
            Some((rect, t)) => {
                let c = t.inverse() * rect.center();
                let half = canvas::node_centre([0.0, 0.0]);
                [c.x - half.x, c.y - half.y]
            }
            None => [40.0, 40.0],
        };
        while self
            .tree
            .nodes()
            .iter()
            .any(|n| (n.position[0] - at[0]).abs() < 1.0 && (n.position[1] - at[1]).abs() < 1.0)
        {
            at = [at[0] + 30.0, at[1] + 30.0];
        }
        at
    }

    /// Selects several nodes (the first is shown in the inspector).
    pub fn select_many(&mut self, ids: &[NodeId]) {
        self.selection = ids
            .iter()
            .filter(|i| self.tree.contains(i))
            .cloned()
            .collect();
        self.selected = self.selection.first().cloned();
    }

    /// The selected nodes as tree-file text: the nodes, with the links among them.
    pub fn copy_selection(&self) -> Option<String> {
        let chosen: HashSet<&NodeId> = self.selection.iter().collect();
        if chosen.is_empty() {
            return None;
        }
        let nodes: Vec<Node> = self
            .tree
            .nodes()
            .iter()
            .filter(|n| chosen.contains(&n.id))
            .map(|n| {
                let mut n = n.clone();
                for ids in n.inputs.values_mut() {
                    ids.retain(|c| chosen.contains(c));
                }
                n.inputs.retain(|_, ids| !ids.is_empty());
                n
            })
            .collect();
        Tree::from_nodes(nodes)
            .ok()
            .map(|t| crate::io::tree_to_string(&t))
    }

    /// Pastes nodes from tree-file text: fresh ids, placed `offset` away, links among them
    /// kept; one undo step. Returns the new ids.
    pub fn paste(&mut self, text: &str, offset: [f32; 2]) -> Vec<NodeId> {
        let pasted = match parse_tree(text, Path::new("clipboard")) {
            Ok(t) => t,
            Err(e) => {
                self.status = format!("Nothing to paste: {e}");
                return Vec::new();
            }
        };
        let mut scratch = self.tree.clone();
        let mut map = std::collections::HashMap::new();
        let mut edits = Vec::new();
        for n in pasted.nodes() {
            let id = scratch.fresh_id(&n.kind);
            let mut node = Node::new(id.clone(), n.kind.clone());
            node.title = n.title.clone();
            node.fields = n.fields.clone();
            node.comment = n.comment.clone();
            node.position = [n.position[0] + offset[0], n.position[1] + offset[1]];
            let insert = Edit::Insert {
                node: Box::new(node),
                index: usize::MAX,
                parent: None,
            };
            if scratch.apply(insert.clone(), &self.catalog).is_err() {
                continue;
            }
            map.insert(n.id.clone(), id);
            edits.push(insert);
        }
        for n in pasted.nodes() {
            for (port, slot, child) in n.links() {
                let (Some(parent), Some(child)) = (map.get(&n.id), map.get(child)) else {
                    continue;
                };
                let link = Edit::Link {
                    child: child.clone(),
                    to: crate::model::ParentSlot {
                        parent: parent.clone(),
                        port,
                        slot,
                    },
                };
                if scratch.apply(link.clone(), &self.catalog).is_ok() {
                    edits.push(link);
                }
            }
        }
        if edits.is_empty() || !self.apply(Edit::Batch(edits)) {
            return Vec::new();
        }
        let ids: Vec<NodeId> = pasted
            .nodes()
            .iter()
            .filter_map(|n| map.get(&n.id).cloned())
            .collect();
        self.status = format!("Pasted {} node(s)", ids.len());
        self.select_many(&ids);
        ids
    }

    /// Duplicates the selected nodes (and the links among them) next to the originals.
    pub fn duplicate(&mut self) -> Vec<NodeId> {
        match self.copy_selection() {
            Some(text) => self.paste(&text, [40.0, 40.0]),
            None => Vec::new(),
        }
    }

    /// Adds a node of `kind` at `at`, linked as `attach` says, as one undo step.
    pub fn add_attached(&mut self, kind: &str, at: [f32; 2], attach: &Attach) -> Option<NodeId> {
        let id = self.tree.fresh_id(kind);
        let mut node = Node::new(id.clone(), kind);
        node.position = at;
        let insert = Edit::Insert {
            node: Box::new(node),
            index: usize::MAX,
            parent: None,
        };
        let mut scratch = self.tree.clone();
        if let Err(e) = scratch.apply(insert.clone(), &self.catalog) {
            self.status = e.message;
            return None;
        }
        let link = match attach {
            Attach::Loose => Ok(None),
            Attach::Into(slot) => Viewer::link_edit(
                &scratch,
                &self.catalog,
                &id,
                &slot.parent,
                slot.port,
                slot.slot,
            )
            .map(Some),
            Attach::Above(child) => {
                let child_cat = scratch
                    .node(child)
                    .and_then(|n| self.catalog.category_of(&n.kind));
                let port = self.catalog.category_of(kind).and_then(|c| {
                    c.inputs().iter().copied().find(|&p| {
                        child_cat.is_some_and(|cc| crate::model::link_rule(c, p, cc).is_ok())
                    })
                });
                match port {
                    Some(p) => {
                        Viewer::link_edit(&scratch, &self.catalog, child, &id, p, 0).map(Some)
                    }
                    None => Err(format!("a {kind} cannot be the parent of {child}")),
                }
            }
        };
        match link {
            Ok(link) => {
                let edit = match link {
                    Some(l) => Edit::Batch(vec![insert, l]),
                    None => insert,
                };
                self.apply(edit).then(|| {
                    self.selected = Some(id.clone());
                    self.status = format!("Added {kind}");
                    id
                })
            }
            Err(why) => {
                self.status = format!("Cannot add {kind} there: {why}");
                None
            }
        }
    }

    /// Moves every node to its auto-layout place (one undo step) and fits the view.
    pub fn auto_layout(&mut self) {
        let edit = layout::layout(&self.tree, &self.catalog);
        if self.apply(edit) {
            self.status =
                "Arranged: Root on the right, children top to bottom in slot order".into();
        }
        self.fit = true;
    }

    /// The action waiting for an answer about unsaved changes.
    pub fn pending(&self) -> Option<Pending> {
        self.pending.clone()
    }

    /// Files opened or saved lately, newest first.
    pub fn recent(&self) -> &[PathBuf] {
        &self.recent
    }

    /// Sets the recent files (read from the app's storage at start).
    pub fn set_recent(&mut self, files: Vec<PathBuf>) {
        self.recent = files;
        self.recent.truncate(RECENT_MAX);
    }

    /// Reads what was kept from the last run (the recent files that still exist), after
    /// the files this run has already opened.
    pub fn restore(&mut self, storage: &dyn eframe::Storage) {
        let mut recent: Vec<PathBuf> = eframe::get_value(storage, RECENT_KEY).unwrap_or_default();
        recent.retain(|p| p.is_file());
        for p in self.recent.iter().rev() {
            recent.retain(|r| r != p);
            recent.insert(0, p.clone());
        }
        self.set_recent(recent);
    }

    fn remember(&mut self, path: &Path) {
        let path = path.canonicalize().unwrap_or_else(|_| path.to_owned());
        self.recent.retain(|p| *p != path);
        self.recent.insert(0, path);
        self.recent.truncate(RECENT_MAX);
    }

    /// Asks for `action`; with unsaved changes the user is asked first.
    pub fn request(&mut self, action: Pending, ctx: &egui::Context) {
        if self.dirty {
            self.pending = Some(action);
        } else {
            self.perform(action, ctx);
        }
    }

    fn perform(&mut self, action: Pending, ctx: &egui::Context) {
        self.pending = None;
        match action {
            Pending::New => {
                let recent = std::mem::take(&mut self.recent);
                *self = Self::new(Tree::new(), None);
                self.recent = recent;
            }
            Pending::Open => self.open_dialog(),
            Pending::OpenFile(path) => {
                self.open_path(&path);
            }
            Pending::Close => {
                self.closing = true;
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
        }
    }

    fn unsaved_prompt_ui(&mut self, ctx: &egui::Context) {
        let Some(action) = self.pending.clone() else {
            return;
        };
        let name = self
            .path
            .as_deref()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned());
        let mut choice = None;
        egui::Modal::new(egui::Id::new("unsaved-changes")).show(ctx, |ui| {
            ui.heading("Unsaved changes");
            ui.label(format!(
                "{} has changes that are not saved. Save them first?",
                name.unwrap_or_else(|| "This tree".into())
            ));
            ui.horizontal(|ui| {
                if ui.button("Save").clicked() {
                    choice = Some(0);
                }
                if ui.button("Don't save").clicked() {
                    choice = Some(1);
                }
                if ui.button("Cancel").clicked() {
                    choice = Some(2);
                }
            });
        });
        match choice {
            Some(0) => {
                self.save();
                if !self.dirty {
                    self.perform(action, ctx);
                }
            }
            Some(1) => self.perform(action, ctx),
            Some(_) => self.pending = None,
            None => {}
        }
    }

    /// Removes the selected node.
    pub fn remove_selected(&mut self) {
        if let Some(id) = self.selected.take()
            && self.apply(Edit::Remove { id: id.clone() })
        {
            self.status = format!("Removed {id}");
        }
    }

    /// Undoes the last edit.
    pub fn undo(&mut self) {
        let Some(edit) = self.undo.pop() else { return };
        if let Ok(inverse) = self.tree.apply(edit, &self.catalog) {
            self.redo.push(inverse);
            self.dirty = true;
            self.changed();
        }
    }

    /// Redoes the last undone edit.
    pub fn redo(&mut self) {
        let Some(edit) = self.redo.pop() else { return };
        if let Ok(inverse) = self.tree.apply(edit, &self.catalog) {
            self.undo.push(inverse);
            self.dirty = true;
            self.changed();
        }
    }

    /// Adds a node of `kind` near `at`.
    pub fn add_node(&mut self, kind: &str, at: [f32; 2]) -> Option<NodeId> {
        let id = self.tree.fresh_id(kind);
        let mut node = Node::new(id.clone(), kind);
        node.position = at;
        self.apply(Edit::Insert {
            node: Box::new(node),
            index: usize::MAX,
            parent: None,
        })
        .then_some(id)
    }

    /// Links `child` into slot `slot` of `port` on `parent`, as a drag on the canvas does.
    pub fn link(
        &mut self,
        child: &NodeId,
        parent: &NodeId,
        port: crate::model::Port,
        slot: usize,
    ) -> bool {
        match Viewer::link_edit(&self.tree, &self.catalog, child, parent, port, slot) {
            Ok(edit) => self.apply(edit),
            Err(why) => {
                self.status = format!("Cannot link {child} to {parent}.{port}: {why}");
                false
            }
        }
    }

    /// Saves to `path` (temporary file and rename) and makes it the document's file.
    pub fn save_to(&mut self, path: &Path) -> bool {
        match save_tree(path, &self.tree) {
            Ok(()) => {
                self.path = Some(path.to_owned());
                self.dirty = false;
                self.status = format!("Saved {}", path.display());
                self.remember(path);
                self.validate();
                true
            }
            Err(e) => {
                self.status = e.to_string();
                false
            }
        }
    }

    /// Opens `path` in place of the current tree; on failure the current tree stays and the
    /// status line gives the error (file, line, node).
    pub fn open_path(&mut self, path: &Path) -> bool {
        match Self::open(path) {
            Ok(app) => {
                let recent = std::mem::take(&mut self.recent);
                *self = Self {
                    status: format!("Opened {}", path.display()),
                    recent,
                    ..app
                };
                self.remember(path);
                true
            }
            Err(e) => {
                self.status = e.to_string();
                false
            }
        }
    }

    fn changed(&mut self) {
        self.canvas.rebuild(&self.tree, &self.catalog);
        self.validate();
        self.reset_sim();
    }

    fn validate(&mut self) {
        self.diagnostics = match &self.path {
            Some(p) => TreeFiles::new(&self.catalog).validate_tree(p, &self.tree),
            None => validate(&self.tree, &self.catalog, &NoAssets),
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

    fn shortcuts(&mut self, ctx: &egui::Context) {
        let cmd = |k| KeyboardShortcut::new(Modifiers::COMMAND, k);
        let cmd_shift = |k| KeyboardShortcut::new(Modifiers::COMMAND | Modifiers::SHIFT, k);
        if ctx.input_mut(|i| i.consume_shortcut(&cmd_shift(Key::Z)))
            || ctx.input_mut(|i| i.consume_shortcut(&cmd(Key::Y)))
        {
            self.redo();
        }
        if ctx.input_mut(|i| i.consume_shortcut(&cmd(Key::Z))) {
            self.undo();
        }
        if ctx.input_mut(|i| i.consume_shortcut(&cmd_shift(Key::S))) {
            self.save_as_dialog();
        } else if ctx.input_mut(|i| i.consume_shortcut(&cmd(Key::S))) {
            self.save();
        }
        if ctx.input_mut(|i| i.consume_shortcut(&cmd(Key::O))) {
            self.request(Pending::Open, ctx);
        }
        if ctx.input_mut(|i| i.consume_shortcut(&cmd(Key::N))) {
            self.request(Pending::New, ctx);
        }
        if !ctx.egui_wants_keyboard_input()
            && ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Delete))
        {
            self.remove_selected();
        }
        // A gesture ends when nothing is being dragged or typed into: the next change is a new undo step.
        if !ctx.egui_wants_keyboard_input() && !ctx.input(|i| i.pointer.any_down()) {
            self.coalescing = None;
        }
    }

    fn save(&mut self) {
        match self.path.clone() {
            Some(p) => {
                self.save_to(&p);
            }
            None => self.save_as_dialog(),
        }
    }

    fn save_as_dialog(&mut self) {
        if let Some(p) = rfd::FileDialog::new()
            .add_filter("Arbor tree", &["json"])
            .set_file_name("tree.json")
            .save_file()
        {
            self.save_to(&p);
        }
    }

    /// Picks a tree file for a SubTree's asset field and writes it relative to this file.
    fn browse_asset(&mut self, id: &NodeId, field: &str) {
        let mut dialog = rfd::FileDialog::new().add_filter("Arbor tree", &["json"]);
        if let Some(dir) = self.path.as_deref().and_then(Path::parent) {
            dialog = dialog.set_directory(dir);
        }
        if let Some(p) = dialog.pick_file() {
            let value = relative_asset(self.path.as_deref(), &p);
            if self.path.is_none() {
                self.status = "Save this tree to make the asset path relative to it".into();
            }
            self.apply(Edit::SetField {
                id: id.clone(),
                name: field.to_owned(),
                value: Some(crate::model::Value::Text(value)),
            });
        }
    }

    fn open_dialog(&mut self) {
        if let Some(p) = rfd::FileDialog::new()
            .add_filter("Arbor tree", &["json"])
            .pick_file()
        {
            self.open_path(&p);
        }
    }

    fn menu_ui(&mut self, ui: &mut egui::Ui) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                if ui.button("New").clicked() {
                    self.request(Pending::New, &ui.ctx().clone());
                    ui.close();
                }
                if ui.button("Open…").clicked() {
                    self.request(Pending::Open, &ui.ctx().clone());
                    ui.close();
                }
                ui.add_enabled_ui(!self.recent.is_empty(), |ui| {
                    ui.menu_button("Open Recent", |ui| {
                        let mut chosen = None;
                        for p in &self.recent {
                            let name = p
                                .file_name()
                                .map(|n| n.to_string_lossy().into_owned())
                                .unwrap_or_default();
                            let folder = p
                                .parent()
                                .map(|d| d.display().to_string())
                                .unwrap_or_default();
                            if ui.button(name).on_hover_text(folder).clicked() {
                                chosen = Some(p.clone());
                            }
                        }
                        if let Some(p) = chosen {
                            self.request(Pending::OpenFile(p), &ui.ctx().clone());
                            ui.close();
                        }
                    });
                });
                if ui.button("Save").clicked() {
                    self.save();
                }
                if ui.button("Save As…").clicked() {
                    self.save_as_dialog();
                }
                ui.separator();
                if ui
                    .button("Open Scenario…")
                    .on_hover_text("A world to run this tree in (arbor.scenario)")
                    .clicked()
                {
                    ui.close();
                    if let Some(p) = rfd::FileDialog::new()
                        .add_filter("Arbor scenario", &["json"])
                        .pick_file()
                    {
                        match SimPanel::open(&p) {
                            Ok(panel) => self.set_scenario(panel),
                            Err(e) => self.status = e,
                        }
                    }
                }
            });
            ui.menu_button("View", |ui| {
                if ui.button("Zoom to fit (F)").clicked() {
                    self.fit = true;
                    ui.close();
                }
                if ui.button("Arrange (Ctrl+L)").clicked() {
                    self.auto_layout();
                    ui.close();
                }
            });
            ui.menu_button("Edit", |ui| {
                if ui
                    .add_enabled(!self.undo.is_empty(), egui::Button::new("Undo"))
                    .clicked()
                {
                    self.undo();
                }
                if ui
                    .add_enabled(!self.redo.is_empty(), egui::Button::new("Redo"))
                    .clicked()
                {
                    self.redo();
                }
            });
        });
    }

    fn palette_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Nodes");
        let label = ui.label("Find a kind");
        let search = ui
            .add(
                egui::TextEdit::singleline(&mut self.filter)
                    .hint_text("type to filter, Enter adds"),
            )
            .labelled_by(label.id);
        let enter = search.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        let filter = self.filter.to_lowercase();
        let mut add = None;
        if enter {
            // Enter adds the first kind that matches, in palette order.
            add = Category::ALL.iter().find_map(|&c| {
                self.catalog
                    .kinds()
                    .iter()
                    .find(|k| k.category == c && k.name.to_lowercase().contains(&filter))
                    .map(|k| k.name.clone())
            });
        }
        egui::ScrollArea::vertical().show(ui, |ui| {
            for category in Category::ALL {
                let kinds: Vec<&str> = self
                    .catalog
                    .kinds()
                    .iter()
                    .filter(|k| k.category == category && k.name.to_lowercase().contains(&filter))
                    .map(|k| k.name.as_str())
                    .collect();
                if kinds.is_empty() {
                    continue;
                }
                ui.label(
                    RichText::new(category.label())
                        .color(category_colour(Some(category)))
                        .strong(),
                );
                for kind in kinds {
                    // Click adds at the centre of the view; drag drops it where it is let go.
                    let button = ui
                        .add(egui::Button::new(kind).sense(egui::Sense::click_and_drag()))
                        .on_hover_text("Click to add, or drag onto the canvas")
                        .on_hover_cursor(egui::CursorIcon::Grab);
                    if button.clicked() {
                        add = Some(kind.to_owned());
                    }
                    if button.dragged() {
                        button.dnd_set_drag_payload(PaletteDrag(kind.to_owned()));
                        if let Some(p) = ui.ctx().pointer_interact_pos() {
                            ui.ctx()
                                .layer_painter(egui::LayerId::new(
                                    egui::Order::Tooltip,
                                    egui::Id::new("palette-drag"),
                                ))
                                .text(
                                    p + egui::vec2(12.0, 0.0),
                                    egui::Align2::LEFT_CENTER,
                                    format!("+ {kind}"),
                                    egui::FontId::proportional(14.0),
                                    egui::Color32::WHITE,
                                );
                        }
                    }
                }
            }
        });
        if let Some(kind) = add {
            let at = self.view_centre();
            if let Some(id) = self.add_node(&kind, at) {
                self.status = format!("Added {kind} ({id}) at the centre of the view");
                self.select(Some(id));
            }
        }
    }

    fn inspector_panel_ui(&mut self, ui: &mut egui::Ui) {
        let Some(node) = self
            .selected
            .as_ref()
            .and_then(|id| self.tree.node(id))
            .cloned()
        else {
            ui.heading("Inspector");
            ui.label("Select a node to see and edit its fields.");
            return;
        };
        match inspector::inspector_ui(ui, &self.tree, &self.catalog, &node) {
            Some(inspector::Request::Edit(edit, Some(key))) => {
                self.apply_coalesced(edit, &node.id, &key);
            }
            Some(inspector::Request::Edit(edit, None)) => {
                self.apply(edit);
            }
            Some(inspector::Request::Remove) => self.remove_selected(),
            Some(inspector::Request::BrowseAsset(field)) => self.browse_asset(&node.id, &field),
            Some(inspector::Request::OpenAsset(asset)) => {
                let path = match self.path.as_deref().and_then(Path::parent) {
                    Some(dir) => dir.join(&asset),
                    None => PathBuf::from(&asset),
                };
                self.request(Pending::OpenFile(path), &ui.ctx().clone());
            }
            None => {}
        }
    }

    fn diagnostics_ui(&mut self, ui: &mut egui::Ui) {
        let errors = self.diagnostics.iter().filter(|d| d.is_error()).count();
        ui.heading(format!(
            "Problems ({errors} errors, {} warnings)",
            self.diagnostics.len() - errors
        ));
        let mut focus = None;
        egui::ScrollArea::vertical().show(ui, |ui| {
            if self.diagnostics.is_empty() {
                ui.label("No problems: the tree is valid.");
            }
            for d in &self.diagnostics {
                let colour = match d.severity() {
                    Severity::Error => egui::Color32::from_rgb(235, 90, 90),
                    Severity::Warning => egui::Color32::from_rgb(230, 180, 70),
                };
                let node = d
                    .nodes
                    .first()
                    .map(|n| format!("[{n}] "))
                    .unwrap_or_default();
                let text = RichText::new(format!("{node}{} ({})", d.message, d.rule)).color(colour);
                let label = ui.add(egui::Label::new(text).sense(egui::Sense::click()));
                if let Some(first) = d.nodes.first()
                    && label
                        .on_hover_text("Click to select the node and centre it")
                        .on_hover_cursor(egui::CursorIcon::PointingHand)
                        .clicked()
                {
                    focus = Some(first.clone());
                }
            }
        });
        if let Some(id) = focus {
            self.focus(&id);
        }
    }

    fn canvas_ui(&mut self, ui: &mut egui::Ui) {
        let none = simulate::Live::new();
        let live = self.sim.as_ref().map_or(&none, SimPanel::live);
        let centre = self
            .centre_on
            .take()
            .and_then(|id| self.tree.node(&id))
            .map(|n| (ui.max_rect(), n.position));
        let mut viewer = Viewer {
            tree: &self.tree,
            catalog: &self.catalog,
            errors: &self.marked.0,
            unreachable: &self.marked.1,
            edits: Vec::new(),
            refused: None,
            adds: Vec::new(),
            fit: self.fit.then(|| {
                (
                    ui.max_rect(),
                    self.tree.nodes().iter().map(|n| n.position).collect(),
                )
            }),
            centre,
            live,
            pinned: self.pinned.take(),
            selected: &self.selection,
            transform: None,
            field_edits: Vec::new(),
            body_sizes: &mut self.canvas.body_sizes,
        };
        self.fit = false;
        let widget = egui_snarl::ui::SnarlWidget::new().id_salt("arbor-canvas");
        widget.show(&mut self.canvas.snarl, &mut viewer, ui);
        let picked = widget.get_selected_nodes(ui);
        if let Some(t) = viewer.transform {
            self.view = Some((ui.max_rect(), t));
        }
        // A kind dragged from the palette and let go over the canvas: a node there.
        let released = ui.input(|i| i.pointer.primary_released());
        let over = ui
            .ctx()
            .pointer_interact_pos()
            .filter(|p| ui.max_rect().contains(*p));
        let mut dropped = None;
        if let (true, Some(at), Some((_, t))) = (released, over, self.view)
            && let Some(kind) = egui::DragAndDrop::take_payload::<PaletteDrag>(ui.ctx())
        {
            let g = t.inverse() * at;
            let half = canvas::node_centre([0.0, 0.0]);
            dropped = Some((kind.0.clone(), [g.x - half.x, g.y - half.y]));
        }
        let (edits, refused, adds) = (viewer.edits, viewer.refused, viewer.adds);
        for (edit, node, field) in viewer.field_edits {
            self.apply_coalesced(edit, &node, &field);
        }
        if let Some((kind, at)) = dropped
            && let Some(id) = self.add_node(&kind, at)
        {
            self.status = format!("Added {kind} ({id})");
            self.select(Some(id));
        }
        for (kind, at, attach) in adds {
            self.add_attached(&kind, at, &attach);
        }
        // Follow the canvas's selection when it changes (a click, shift-click or box), so a
        // selection made elsewhere (the Problems panel, a new node) is not overridden.
        if picked != self.canvas_picked {
            self.canvas_picked = picked.clone();
            let ids: Vec<NodeId> = picked
                .iter()
                .filter_map(|&p| self.canvas.snarl.get_node(p).cloned())
                .collect();
            self.select_many(&ids);
        }
        if let Some(why) = refused {
            self.status = why;
        }
        for e in edits {
            self.apply(e);
        }
        // A whole drag is one undo step: positions are committed once the pointer is released.
        if !ui.input(|i| i.pointer.any_down()) {
            let moved = self.canvas.moved(&self.tree);
            if !moved.is_empty() {
                self.apply(Edit::Batch(moved));
            }
        }
    }
}

impl eframe::App for EditorApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, RECENT_KEY, &self.recent);
    }
}

impl EditorApp {
    /// Draws one frame of the whole editor into `ui` (the window's root; also used
    /// headless by the editor benchmark) and handles its input.
    pub fn show(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        self.shortcuts(&ctx);
        if ctx.input(|i| i.viewport().close_requested()) && self.dirty && !self.closing {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.pending = Some(Pending::Close);
        }
        self.unsaved_prompt_ui(&ctx);
        let title = self.title();
        if title != self.shown_title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.shown_title = title;
        }
        egui::Panel::top("menu").show(ui, |ui| self.menu_ui(ui));
        egui::Panel::bottom("status").show(ui, |ui| {
            ui.label(if self.status.is_empty() {
                "Ready"
            } else {
                self.status.as_str()
            });
        });
        if let Some(panel) = &mut self.sim {
            let mut reset = false;
            egui::Panel::bottom("simulation")
                .resizable(true)
                .default_size(200.0)
                .show(ui, |ui| {
                    // Its own scroll area, so the panel keeps the size it is given.
                    egui::ScrollArea::vertical()
                        .id_salt("simulation-scroll")
                        .auto_shrink([false, false])
                        .show(ui, |ui| reset = panel.ui(ui));
                });
            if reset {
                self.reset_sim();
            }
        }
        egui::Panel::left("palette")
            .default_size(170.0)
            .show(ui, |ui| self.palette_ui(ui));
        egui::Panel::right("side")
            .default_size(320.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical()
                    .id_salt("inspector")
                    .max_height(ui.available_height() * 0.6)
                    .show(ui, |ui| {
                        self.inspector_panel_ui(ui);
                    });
                ui.separator();
                self.diagnostics_ui(ui);
            });
        egui::CentralPanel::default().show(ui, |ui| self.canvas_ui(ui));
    }
}

/// Opens the editor window on `file`, or on the bundled sample; with `simulate`, its
/// simulation starts running.
pub fn run(file: Option<&Path>, simulate: bool) -> Result<(), String> {
    let mut app = match file {
        Some(p) => EditorApp::open(p).map_err(|e| e.to_string())?,
        None => EditorApp::sample(),
    };
    if let Some(s) = &mut app.sim {
        s.running = simulate;
    }
    // Window size and position, panel sizes (egui's memory) and the recent files are kept
    // between runs in the platform's app-data folder.
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_inner_size([1400.0, 860.0])
            .with_app_id("arbor")
            .with_title(app.title()),
        persist_window: true,
        ..Default::default()
    };
    eframe::run_native(
        "Arbor",
        options,
        Box::new(|cc| {
            let mut app = app;
            if let Some(storage) = cc.storage {
                app.restore(storage);
            }
            Ok(Box::new(app))
        }),
    )
    .map_err(|e| format!("cannot open the editor window: {e}"))
}

/// Whether an edit changes what the canvas graph holds (nodes, links or positions), so the
/// snarl graph must be rebuilt; field, title and comment changes are read from the tree
/// as the nodes are drawn.
fn changes_graph(edit: &Edit) -> bool {
    match edit {
        Edit::SetField { .. } | Edit::SetTitle { .. } | Edit::SetComment { .. } => false,
        Edit::Batch(edits) => edits.iter().any(changes_graph),
        _ => true,
    }
}
