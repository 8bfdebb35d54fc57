//! Applying commands: the one place where what the menus, keys, buttons and the palette
//! asked for in a frame is carried out, after drawing.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use eframe::egui;

use super::canvas::{ViewRequest, descendants};
use super::changes::{Change, SimChange};
use super::commands::{Command, Enabled};
use super::files::{Chooser, FilePrompt, Purpose};
use super::graph::Attach;
use super::graph::Selecting;
use super::inspector;
use super::{EditorApp, Pending, SimPanel, Viewer, layout};
use crate::debug::Debugger;
use crate::io::{parse_tree, save_tree_kept};
use crate::model::{Edit, Node, NodeId, ParentSlot, Tree};

/// How far a duplicate lands from its original.
const DUPLICATE_OFFSET: [f32; 2] = [40.0, 40.0];

impl Enabled for EditorApp {
    fn enabled(&self, command: Command) -> bool {
        let on = super::commands::OnNodes {
            tree: self.doc.tree(),
            catalog: &self.catalog,
            nodes: self.selection.ids(),
            debugging: self.sim.is_some(),
        };
        if let Some(enabled) = command.enabled_on(&on) {
            return enabled;
        }
        match command {
            Command::Undo => self.doc.can_undo(),
            Command::Redo => self.doc.can_redo(),
            Command::SelectAll | Command::ZoomToFit | Command::Arrange => {
                !self.doc.tree().is_empty()
            }
            Command::SimStep
            | Command::SimStep10
            | Command::SimUntilChange
            | Command::SimRunPause
            | Command::GoToStep
            | Command::NextHit
            | Command::PreviousHit => self.simulation().is_some_and(|s| s.source().is_some()),
            Command::ClearEndedGames => self
                .simulation()
                .is_some_and(|s| s.games().iter().any(|g| !g.connected)),
            Command::CopyLiveAddress | Command::AttachProgram => self.live.is_some(),
            Command::SaveRecording => self.simulation().is_some_and(|s| s.live_game().is_some()),
            Command::SimBack => self.simulation().is_some_and(|s| s.step_number() > 0),
            Command::SimReset => self.sim.is_some(),
            Command::BackToRunTree => self.simulation().is_some_and(|s| s.inside().is_some()),
            Command::HideCoverage => self.coverage.is_some(),
            Command::DeclareKeys => self.doc.tree().keys.is_none(),
            // Always at hand.
            Command::New
            | Command::Open
            | Command::Save
            | Command::SaveAs
            | Command::OpenScenario
            | Command::OpenTrace
            | Command::Quit
            | Command::Paste
            | Command::SelectNone
            | Command::FindNode
            | Command::ZoomIn
            | Command::ZoomOut
            | Command::ZoomReset
            | Command::ToggleMinimap
            | Command::CoverageOfRun
            | Command::CoverageFromFile
            | Command::CommandPalette
            | Command::ShowMessages
            | Command::ShowHelp => true,
            // Those that act on nodes: `Command::enabled_on`, above.
            Command::Cut
            | Command::Copy
            | Command::Duplicate
            | Command::Delete
            | Command::Disconnect
            | Command::SelectSubtree
            | Command::ZoomToSelection
            | Command::ToggleCollapse
            | Command::ToggleBreakpoint
            | Command::OpenSubTree => false,
        }
    }
}

impl EditorApp {
    /// Applies the commands asked for in this frame, in order.
    /// Applies every change asked for while the frame was drawn, in the order asked: the
    /// one place the editor's state changes (see `changes.rs`).
    pub(super) fn run_queue(&mut self, ctx: &egui::Context) {
        let queue = std::mem::take(&mut self.queue);
        for change in queue {
            self.change(change, ctx);
            ctx.request_repaint();
        }
        self.pasted = None;
        self.paste_at = None;
    }

    fn change(&mut self, change: Change, ctx: &egui::Context) {
        match change {
            Change::Command(command) => self.run_command(command, ctx),
            Change::CommandOn(command, id) => {
                if !self.selection.contains(&id) {
                    self.select(Some(id));
                }
                self.run_command(command, ctx);
            }
            Change::Edit(edit) => {
                self.apply(edit);
            }
            Change::Coalesced(edit, node, field) => {
                self.apply_coalesced(edit, &node, &field);
            }
            Change::Select(selecting) => self.selecting(selecting),
            Change::Add(kind, at, attach) => {
                self.add_attached(&kind, at, &attach);
            }
            Change::PasteAt(at) => {
                self.paste_at = Some(at);
                self.run_command(Command::Paste, ctx);
            }
            Change::BreakOn(id, on) => {
                let key = self.breakpoints_key();
                if let Some(run) = self.sim.as_ref().map(|p| &p.debugger) {
                    self.breakpoints.set(&key, run.traced(&id), on);
                }
                self.say(format!("Breakpoint on {id}: breaks on {}", on.name()));
            }
            Change::Force(id, outcome) => {
                let live = self
                    .simulation()
                    .is_some_and(|run| run.live_game().is_some());
                let forced = self
                    .simulation_mut()
                    .is_some_and(|run| run.force(&id, outcome));
                match (forced, outcome, live) {
                    (false, _, true) => {
                        self.say_problem(format!("{id} cannot be forced in the game shown live"));
                    }
                    (false, _, false) => {
                        self.say_problem(format!("{id} does not run as a stand-in"));
                    }
                    (true, None, true) => self.say(format!("{id} runs as it is again")),
                    (true, None, false) => {
                        self.say(format!("{id} follows its stand-in script again"));
                    }
                    (true, Some(o), true) => self.say(format!(
                        "{id} now reports {} instead of running, until set back",
                        super::viewer::outcome_word(o)
                    )),
                    (true, Some(o), false) => self.say(format!(
                        "{id} now reports {} for the rest of the run",
                        super::viewer::outcome_word(o)
                    )),
                }
            }
            Change::NewKind(id, kind) => self.change_kind(&id, &kind),
            Change::Inspect(id, request) => self.inspected(id, request, ctx),
            Change::Focus(id) => self.focus(&id),
            Change::GoToStep(k) => self.go_to_step(k),
            Change::AttachProgram(address) => self.attach_program(address),
            Change::RenameKey(from, to) => self.rename_key(&from, &to),
            Change::FindUsages(key) => self.find_usages(&key),
            Change::Refused(why) => self.say_problem(why),
            Change::Sim(change) => self.change_run(change),
        }
    }

    /// Makes node `id` a `kind` as one undo step, and says what it lost (the links and
    /// fields the new kind has no place for), or why it cannot.
    pub(super) fn change_kind(&mut self, id: &NodeId, kind: &str) {
        let change = match self.doc.tree().kind_change(id, kind, &self.catalog) {
            Ok(change) => change,
            Err(e) => {
                self.say_problem(e.message);
                return;
            }
        };
        if !self.apply(change.edit) {
            return;
        }
        if change.dropped.is_empty() {
            self.say(format!(
                "{id} is now a {kind}, with all its links and fields"
            ));
        } else {
            // The first few, and how many more (a Selector of thousands loses thousands).
            const SAID: usize = 6;
            let mut lost = change.dropped[..change.dropped.len().min(SAID)].join(", ");
            if change.dropped.len() > SAID {
                lost.push_str(&format!(" and {} more", change.dropped.len() - SAID));
            }
            self.say_problem(format!(
                "{id} is now a {kind}; it lost {lost} (Undo brings them back)"
            ));
        }
    }

    /// Does what the Simulation panel asked of the run it shows.
    fn change_run(&mut self, change: SimChange) {
        if let SimChange::Attach(choice) = change {
            self.choose_run(choice);
            return;
        }
        if let Some(run) = self.simulation_mut() {
            match change {
                SimChange::Seek(k) => {
                    run.set_running(false);
                    run.seek(k);
                }
                SimChange::Watch(agent) => run.watch(agent),
                SimChange::Stream(agent) => run.stream(&agent),
                SimChange::Trigger(id, payload) => {
                    run.trigger(&id, &payload);
                }
                SimChange::History(key) => run.show_history(key),
                SimChange::Attach(_) => {}
            }
        }
        self.after_sim();
    }

    /// Runs `command` when it can run now, and notes it among the commands run.
    fn run_command(&mut self, command: Command, ctx: &egui::Context) {
        if self.enabled(command) {
            self.execute(command, ctx);
            if self.ran.len() >= 100 {
                self.ran.remove(0);
            }
            self.ran.push(command);
        }
    }

    /// The selection as a canvas gesture changes it.
    fn selecting(&mut self, selecting: Selecting) {
        match selecting {
            Selecting::Click(id) => self.selection.click(id, self.doc.tree()),
            Selecting::Toggle(id) => self.selection.toggle(id),
            Selecting::Only(mut ids) => {
                self.in_tree_order(&mut ids);
                self.select_many(&ids);
            }
            Selecting::Add(mut ids) => {
                self.in_tree_order(&mut ids);
                let mut all = self.selection.ids().to_vec();
                all.extend(ids);
                self.select_many(&all);
            }
        }
    }

    /// Sorts node ids in file order (a box selects in the order the tree lists them).
    fn in_tree_order(&self, ids: &mut [crate::model::NodeId]) {
        ids.sort_by_key(|id| self.doc.tree().position_of(id));
    }

    /// What the inspector asked for the node `id` it showed.
    fn inspected(&mut self, id: NodeId, request: inspector::Request, ctx: &egui::Context) {
        match request {
            inspector::Request::Edit(edit, Some(key)) => {
                self.apply_coalesced(edit, &id, &key);
            }
            inspector::Request::Edit(edit, None) => {
                self.apply(edit);
            }
            inspector::Request::Remove => {
                self.select(Some(id));
                self.run_command(Command::Delete, ctx);
            }
            inspector::Request::BrowseAsset(field) => {
                self.choose(Purpose::Asset(id, field));
            }
            inspector::Request::OpenAsset => {
                self.select(Some(id));
                self.run_command(Command::OpenSubTree, ctx);
            }
            inspector::Request::LoadModels => self.choose(Purpose::LoadModels),
            inspector::Request::ChangeKind(kind) => self.change_kind(&id, &kind),
        }
    }

    /// Asks for `command`, run after this frame is drawn.
    pub(super) fn ask(&mut self, command: Command) {
        self.queue.push(Change::Command(command));
    }

    fn execute(&mut self, command: Command, ctx: &egui::Context) {
        match command {
            Command::New => self.request(Pending::New, ctx),
            Command::Open => self.request(Pending::Open, ctx),
            Command::Save => self.save(),
            Command::SaveAs => self.choose(Purpose::SaveTree),
            Command::OpenScenario => self.choose(Purpose::OpenScenario),
            Command::OpenTrace => self.request(Pending::OpenTrace, ctx),
            Command::OpenSubTree => {
                if let Some((node, path, tree)) = self.subtree_asset() {
                    self.request(Pending::OpenSubTree(path, tree, node), ctx);
                }
            }
            Command::BackToRunTree => self.back_to_run_tree(),
            // Asks about unsaved changes first, as the window's close button does.
            Command::Quit => self.request(Pending::Close, ctx),
            Command::ShowHelp => self.help = !self.help,
            Command::Undo => self.step_history(false),
            Command::Redo => self.step_history(true),
            Command::Cut => {
                if let Some(text) = self.copy_selection() {
                    ctx.copy_text(text);
                    let n = self.selection.len();
                    self.remove_selection();
                    self.say(format!("Cut {n} node(s)"));
                }
            }
            Command::Copy => {
                if let Some(text) = self.copy_selection() {
                    ctx.copy_text(text);
                    self.say(format!("Copied {} node(s)", self.selection.len()));
                }
            }
            Command::Paste => match self.pasted.take() {
                Some(text) => {
                    let at = self.paste_at.or_else(|| self.pointer_graph(ctx));
                    self.paste_text(&text, at);
                }
                // From a menu: the platform answers with the clipboard's text as a Paste
                // event in the next frame.
                None => ctx.send_viewport_cmd(egui::ViewportCommand::RequestPaste),
            },
            Command::Duplicate => {
                self.duplicate();
            }
            Command::Delete => self.remove_selection(),
            Command::SelectAll => {
                let all: Vec<NodeId> = self
                    .doc
                    .tree()
                    .nodes()
                    .iter()
                    .map(|n| n.id.clone())
                    .collect();
                self.select_many(&all);
            }
            Command::SelectNone => self.select(None),
            Command::SelectSubtree => {
                let mut ids = self.selection.ids().to_vec();
                for id in self.selection.ids() {
                    ids.extend(descendants(self.doc.tree(), id));
                }
                self.select_many(&ids);
            }
            Command::Disconnect => {
                let edits: Vec<Edit> = self
                    .selection
                    .ids()
                    .iter()
                    .filter(|id| self.doc.parent_of(id).is_some())
                    .map(|id| Edit::Unlink { child: id.clone() })
                    .collect();
                if self.apply(Edit::Batch(edits)) {
                    self.say("Disconnected from the parent");
                }
            }
            Command::ToggleCollapse => self.toggle_collapse(),
            Command::DeclareKeys => self.declare_keys(),
            Command::ZoomToFit => self.canvas.request(ViewRequest::Fit),
            Command::ZoomToSelection => self
                .canvas
                .request(ViewRequest::FitNodes(self.selection.ids().to_vec())),
            Command::ZoomIn => self.canvas.request(ViewRequest::Zoom(1.25)),
            Command::ZoomOut => self.canvas.request(ViewRequest::Zoom(0.8)),
            Command::ZoomReset => self.canvas.request(ViewRequest::Actual),
            Command::Arrange => self.auto_layout(),
            Command::ToggleMinimap => self.canvas.minimap = !self.canvas.minimap,
            Command::CoverageOfRun => {
                if matches!(
                    self.coverage.as_ref().map(|c| &c.source),
                    Some(super::coverage::Source::Run)
                ) {
                    self.coverage = None;
                    self.say("Coverage hidden");
                } else {
                    self.coverage = Some(super::coverage::Overlay::of_run());
                    self.say("Coverage of the run: each node coloured by how often it was entered");
                }
            }
            Command::CoverageFromFile => self.choose(Purpose::OpenCoverage),
            Command::HideCoverage => {
                self.coverage = None;
                self.say("Coverage hidden");
            }
            Command::CommandPalette => self.palette.show(),
            Command::FindNode => self.find.show(),
            Command::GoToStep => self.go_to.show(),
            Command::NextHit | Command::PreviousHit => self.go_to_hit(command == Command::NextHit),
            Command::ShowMessages => self.messages.open = true,
            Command::SimStep | Command::SimStep10 | Command::SimUntilChange => {
                if let Some((s, breaks)) = self.debugging() {
                    s.set_running(false);
                    match command {
                        Command::SimStep => s.step_by(1, breaks),
                        Command::SimStep10 => s.step_by(10, breaks),
                        _ => s.until_change(breaks),
                    }
                }
                self.after_sim();
            }
            Command::SimBack => {
                if let Some(s) = self.simulation_mut() {
                    s.set_running(false);
                    let k = s.step_number().saturating_sub(1);
                    s.seek(k);
                }
            }
            Command::ToggleBreakpoint => {
                let ids = self.selection.ids().to_vec();
                let mut said = Vec::new();
                let key = self.breakpoints_key();
                if let Some(s) = self.sim.as_ref().map(|p| &p.debugger) {
                    for id in &ids {
                        let on = self.breakpoints.toggle(&key, s.traced(id));
                        said.push(format!(
                            "{} {id}",
                            if on {
                                "breakpoint on"
                            } else {
                                "no breakpoint on"
                            }
                        ));
                    }
                }
                let said = said.join(", ");
                self.say(format!("Breakpoints: {said}"));
            }
            Command::SimRunPause => {
                if let Some(s) = self.simulation_mut() {
                    s.run_pause();
                }
            }
            Command::ClearEndedGames => self.clear_ended_games(),
            Command::CopyLiveAddress => self.copy_live_address(ctx),
            Command::AttachProgram => self.ask_program_address(),
            Command::SaveRecording => self.ask_recording_path(),
            Command::SimReset => {
                let mut replayed = false;
                if let Some(s) = self.simulation_mut() {
                    s.set_running(false);
                    // A replay starts over at its first step; a run, from the first state.
                    if s.is_replay() {
                        s.seek(0);
                        replayed = true;
                    }
                }
                if !replayed {
                    self.restart_sim();
                }
            }
        }
    }

    /// The graph point under the pointer, when it is over the canvas.
    fn pointer_graph(&self, ctx: &egui::Context) -> Option<[f32; 2]> {
        let area = self.canvas.area()?;
        let p = ctx.pointer_latest_pos().filter(|p| area.contains(*p))?;
        let g = self.canvas.to_graph(p)?;
        Some([g.x, g.y])
    }

    /// The selected nodes as tree-file text: the nodes, with the links among them.
    pub fn copy_selection(&self) -> Option<String> {
        let chosen: HashSet<&NodeId> = self.selection.ids().iter().collect();
        if chosen.is_empty() {
            return None;
        }
        let nodes: Vec<Node> = self
            .doc
            .tree()
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

    /// Pastes nodes from tree-file text, their top-left corner at `at` (graph), or beside
    /// where they were copied from: fresh ids, links among them kept; one undo step.
    /// Returns the new ids.
    pub fn paste_text(&mut self, text: &str, at: Option<[f32; 2]>) -> Vec<NodeId> {
        let pasted = match parse_tree(text, Path::new("clipboard")) {
            Ok(t) => t,
            Err(e) => {
                self.say_problem(format!(
                    "Nothing to paste: the clipboard holds no nodes ({e})"
                ));
                return Vec::new();
            }
        };
        let corner = pasted.nodes().iter().fold([f32::MAX, f32::MAX], |c, n| {
            [c[0].min(n.position[0]), c[1].min(n.position[1])]
        });
        let offset = match at {
            Some(at) if !pasted.is_empty() => [at[0] - corner[0], at[1] - corner[1]],
            _ => DUPLICATE_OFFSET,
        };
        let ids = self.paste(&pasted, offset);
        if !ids.is_empty() {
            self.say(format!("Pasted {} node(s)", ids.len()));
        }
        ids
    }

    /// Inserts copies of `pasted`'s nodes moved by `offset`, with the links among them, as
    /// one undo step, and selects them. A copy keeps its id when no node here has it; else
    /// it gets one from its title (or kind): `chase_2`.
    fn paste(&mut self, pasted: &Tree, offset: [f32; 2]) -> Vec<NodeId> {
        // Kinds no library here knows come as placeholders, with their links.
        self.catalog.add_placeholders(pasted);
        let mut scratch = self.doc.tree().clone();
        let mut map = HashMap::new();
        let mut edits = Vec::new();
        for n in pasted.nodes() {
            // Its own id when this tree has none such; else one from its title or kind.
            let id = if scratch.contains(&n.id) {
                scratch.fresh_id(if n.title.is_empty() {
                    &n.kind
                } else {
                    &n.title
                })
            } else {
                n.id.clone()
            };
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
                    to: ParentSlot {
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
        self.select_many(&ids);
        ids
    }

    /// Duplicates the selected nodes (and the links among them) beside the originals.
    pub fn duplicate(&mut self) -> Vec<NodeId> {
        let Some(text) = self.copy_selection() else {
            return Vec::new();
        };
        let Ok(copied) = parse_tree(&text, Path::new("selection")) else {
            return Vec::new();
        };
        let ids = self.paste(&copied, DUPLICATE_OFFSET);
        if !ids.is_empty() {
            self.say(format!("Duplicated {} node(s)", ids.len()));
        }
        ids
    }

    /// Removes the selected nodes, as one undo step.
    fn remove_selection(&mut self) {
        let ids = self.selection.take();
        if ids.is_empty() {
            return;
        }
        let edits = ids
            .iter()
            .map(|id| Edit::Remove { id: id.clone() })
            .collect();
        if self.apply(Edit::Batch(edits)) {
            self.say(match &ids[..] {
                [one] => format!("Removed {one}"),
                _ => format!("Removed {} nodes", ids.len()),
            });
        } else {
            self.selection.set(&ids, self.doc.tree());
        }
    }

    fn toggle_collapse(&mut self) {
        let ids = self.selection.ids().to_vec();
        let collapse = ids.iter().any(|id| !self.canvas.is_collapsed(id));
        for id in &ids {
            self.canvas.set_collapsed(id, collapse);
        }
        self.canvas.rebuild(self.doc.tree(), &self.catalog);
        self.select_shown_only();
    }

    /// What is hidden (below a collapsed node) is not selected.
    pub(super) fn select_shown_only(&mut self) {
        let canvas = &self.canvas;
        self.selection.retain(|id| canvas.is_shown(id));
    }

    /// Adds a node of `kind` near `at` (the next free place there), linked as `attach`
    /// says, as one undo step, and selects it.
    pub fn add_attached(&mut self, kind: &str, at: [f32; 2], attach: &Attach) -> Option<NodeId> {
        let tree = self.doc.tree();
        let id = tree.fresh_id(kind);
        let drawn = |n: &NodeId| self.canvas.drawn_size(n);
        let sizes = layout::Sizes::new(tree, &self.catalog, &drawn);
        let mut node = Node::new(id.clone(), kind);
        node.position = layout::free_spot(&sizes, layout::at_drop(attach, at));
        let insert = Edit::Insert {
            node: Box::new(node),
            index: usize::MAX,
            parent: None,
        };
        let mut scratch = tree.clone();
        if let Err(e) = scratch.apply(insert.clone(), &self.catalog) {
            self.say_problem(e.message);
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
                    self.select(Some(id.clone()));
                    // Placed out of view (moved off a crowded drop): the view follows it.
                    self.canvas.request(ViewRequest::Reveal(id.clone()));
                    self.say(format!("Added {kind} ({id})"));
                    id
                })
            }
            Err(why) => {
                self.say_problem(format!("Cannot add {kind} there: {why}"));
                None
            }
        }
    }

    /// Adds an unlinked node of `kind` at the next free place near `at`.
    pub fn add_node(&mut self, kind: &str, at: [f32; 2]) -> Option<NodeId> {
        self.add_attached(kind, at, &Attach::Loose)
    }

    /// Moves every node to its auto-layout place (one undo step) and fits the view.
    pub fn auto_layout(&mut self) {
        let drawn = |n: &NodeId| self.canvas.drawn_size(n);
        let edit = layout::layout(&layout::Sizes::new(self.doc.tree(), &self.catalog, &drawn));
        if self.apply(edit) {
            self.say("Arranged: Root on the right, children top to bottom in slot order");
        }
        // As a tree is first shown: whole when it is readable so, else with its Root.
        self.canvas.request(ViewRequest::Open);
    }

    /// Links `child` into slot `slot` of `port` on `parent`, as a drag on the canvas does.
    pub fn link(
        &mut self,
        child: &NodeId,
        parent: &NodeId,
        port: crate::model::Port,
        slot: usize,
    ) -> bool {
        match Viewer::link_edit(self.doc.tree(), &self.catalog, child, parent, port, slot) {
            Ok(edit) => self.apply(edit),
            Err(why) => {
                self.say_problem(format!("Cannot link {child} to {parent}.{port}: {why}"));
                false
            }
        }
    }

    /// Undoes the last edit.
    pub fn undo(&mut self) {
        self.step_history(false);
    }

    /// Undoes the last step (or, `forward`, redoes the last undone one). A step that changed
    /// other files too (a project key renamed) writes them back, and the project's keys are
    /// read again; when one of them changed on disk since, nothing changes, and why is said.
    fn step_history(&mut self, forward: bool) {
        let files = self.doc.next_step_has_files(forward);
        let done = if forward {
            self.doc.redo(&self.catalog)
        } else {
            self.doc.undo(&self.catalog)
        };
        if let Some(why) = self.doc.take_refusal() {
            let what = if forward { "Redo" } else { "Undo" };
            self.say_problem(format!("{what} not done: {why}"));
        }
        if done {
            if files {
                self.project.reload();
                self.reload_kinds();
            }
            // A value put back as it was before the kinds typed it is read as they do.
            self.doc.fit_to_kinds(&self.catalog);
            self.changed();
        }
    }

    /// Asks for `action`; with unsaved changes the user is asked first.
    pub fn request(&mut self, action: Pending, ctx: &egui::Context) {
        if self.doc.is_dirty() {
            self.pending = Some(action);
        } else {
            self.perform(action, ctx);
        }
    }

    pub(super) fn perform(&mut self, action: Pending, ctx: &egui::Context) {
        self.pending = None;
        match action {
            Pending::New => {
                self.replace_with(Self::new(super::new_tree(), None));
                self.say("New tree");
            }
            Pending::Open => self.choose(Purpose::OpenTree),
            Pending::OpenTrace => self.choose(Purpose::OpenTrace),
            Pending::OpenFile(path) => {
                self.open_path(&path);
            }
            Pending::OpenSubTree(path, tree, node) => {
                self.open_subtree(&path, tree.as_deref(), &node);
            }
            Pending::Close => {
                // Closing without saving: the work is let go, and its recovery file too.
                self.drop_recovery();
                self.closing = true;
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
        }
    }

    /// Puts `other` in place of this editor, keeping what belongs to the session: recent
    /// files, messages, the file chooser.
    pub(super) fn replace_with(&mut self, other: Self) {
        // The tree being replaced was saved or let go: its recovery file goes.
        self.drop_recovery();
        let recovery = self.autosave.dir.take();
        let recent = std::mem::take(&mut self.recent);
        let messages = std::mem::take(&mut self.messages);
        let (chooser, why) = (self.chooser, self.chooser_why.take());
        let ran = std::mem::take(&mut self.ran);
        let breakpoints = std::mem::take(&mut self.breakpoints);
        let settings = std::mem::take(&mut self.settings);
        let live = self.live.take();
        // A new tree stays in the project it was made in; a file opened keeps the project
        // given on the command line.
        let project = std::mem::replace(
            &mut self.project,
            super::project::ProjectKinds::new(None, None),
        );
        let (keep, explicit) = (
            other.doc.path().is_none(),
            project.explicit().map(Path::to_owned),
        );
        *self = Self {
            recent,
            messages,
            chooser,
            chooser_why: why,
            sized: self.sized,
            ran,
            breakpoints,
            settings,
            live,
            ..other
        };
        if keep {
            self.project = project;
            self.reload_kinds();
        } else if explicit.is_some() && self.project.explicit().is_none() {
            self.project = super::project::ProjectKinds::new(self.doc.path(), explicit.as_deref());
            self.reload_kinds();
        }
        self.autosave.dir = recovery;
        self.mark_open();
        self.offer_recovery();
    }

    fn save(&mut self) {
        match self.doc.path().map(Path::to_owned) {
            Some(p) => {
                self.save_checked(&p);
            }
            None => self.choose(Purpose::SaveTree),
        }
    }

    /// Saves to `path` (temporary file and rename) and makes it the document's file; the
    /// simulation keeps its scenario, running the tree under its new name. A read-only
    /// file is left as it is, and Save As offered.
    pub fn save_to(&mut self, path: &Path) -> bool {
        match save_tree_kept(path, self.doc.tree(), self.doc.kept()) {
            Ok((stamp, kept)) => {
                let moved = self.doc.path() != Some(path);
                self.doc.mark_saved(path, stamp, kept);
                self.say(format!("Saved {}", path.display()));
                self.remember(path);
                if moved {
                    self.watch_file();
                    self.mark_open();
                    // The run knows the tree by its new name (a tree run alone names it).
                    if let Some(p) = &mut self.sim
                        && p.debugger.is_solo()
                    {
                        p.debugger.pair_with(Some(path));
                    }
                }
                // Saved into another project's folder: its node libraries from now on.
                if self.project.moved_to(path) {
                    self.reload_kinds();
                }
                self.validate();
                true
            }
            Err(e @ crate::io::LoadError::ReadOnly { .. }) => {
                self.choose_elsewhere();
                // Said last, so that it is what the status line shows.
                self.say_problem(format!("{e}; choose where to save it instead"));
                false
            }
            Err(e) => {
                self.say_problem(e.to_string());
                false
            }
        }
    }

    /// Opens `path` in place of the current tree; on failure the current tree stays and the
    /// status line gives the error (file, line, node).
    pub fn open_path(&mut self, path: &Path) -> bool {
        self.open_tree(path, None)
    }

    /// [`EditorApp::open_path`], or with `tree`, that tree of a BehaviorTree.CPP file.
    fn open_tree(&mut self, path: &Path, tree: Option<&str>) -> bool {
        match Self::open_tree_in(path, tree, self.project.explicit()) {
            Ok(app) => {
                self.replace_with(app);
                self.say(format!("Opened {}", self.doc.name()));
                self.remember(path);
                true
            }
            Err(e) => {
                self.say_problem(e.to_string());
                false
            }
        }
    }

    /// The selected SubTree node and the tree its asset names: its file (relative to the
    /// tree's folder) and, for a tree of a BehaviorTree.CPP file that is not the one the
    /// file runs, that tree's ID.
    fn subtree_asset(&mut self) -> Option<(NodeId, PathBuf, Option<String>)> {
        let [id] = self.selection.ids() else {
            return None;
        };
        let asset = super::commands::subtree_asset(self.doc.tree(), &self.catalog, id)?;
        let Some(including) = self.doc.path() else {
            return Some((id.clone(), PathBuf::from(asset), None));
        };
        match crate::io::TreeFiles::new(&self.catalog).target(including, asset) {
            Ok((path, tree)) => Some((id.clone(), path, tree)),
            Err(why) => {
                self.say_problem(why);
                None
            }
        }
    }

    /// Opens the asset of the SubTree `node`. While the tree runs, the run goes on: the
    /// asset's nodes are lit by the SubTree's inner nodes, until Back to the Running Tree.
    /// `tree` names a tree of a BehaviorTree.CPP file that is not the one the file runs.
    pub fn open_subtree(&mut self, path: &Path, tree: Option<&str>, node: &NodeId) -> bool {
        let mut panel = self.sim.take();
        // A run, even one not stepped yet, or a replay goes on inside the asset (Back to
        // the Running Tree returns); a tree with no run opens the asset as a tree of its
        // own.
        let running = panel
            .as_ref()
            .map(|p| &p.debugger)
            .is_some_and(|d| d.inside().is_some() || d.session().is_some() || d.is_replay());
        let shown = self.doc.tree().clone();
        let source = crate::debug::TreeSource {
            file: self.doc.path().map(Path::to_owned),
            tree_id: self.doc.tree_id().map(str::to_owned),
            kept: self.doc.kept().clone(),
            disk: self.doc.disk(),
        };
        if !self.open_tree(path, tree) {
            self.sim = panel;
            return false;
        }
        if running && let Some(mut panel) = panel.take() {
            panel.debugger.enter(&shown, source, node);
            let step = panel.debugger.step_number();
            self.sim = Some(panel);
            self.say(format!(
                "Opened {}: the run goes on (step {step}); Back to the Running Tree returns",
                self.doc.name()
            ));
        }
        true
    }

    /// From a SubTree's asset back to the tree the run runs, the run going on.
    fn back_to_run_tree(&mut self) {
        let Some(mut panel) = self.sim.take() else {
            return;
        };
        let Some(inside) = panel.debugger.leave() else {
            self.sim = Some(panel);
            return;
        };
        // A BehaviorTree.CPP file is written back into its document as it is now on disk
        // (the SubTree's tree, saved meanwhile, may be in the same file), when the tree
        // there is still the one shown before; else into the document as it was then, and
        // a save asks before it writes over what changed.
        let now = inside
            .file
            .as_deref()
            .filter(|f| crate::io::btcpp::is_xml(f))
            .and_then(|f| {
                let (mut tree, stamp, kept) =
                    crate::io::load_tree_named_stamped(f, inside.tree_id.as_deref()).ok()?;
                // (Its values read as the tree shown had them read.)
                crate::io::fit_to_kinds(f, &mut tree, &self.catalog);
                Some((tree, stamp, kept))
            })
            .filter(|(tree, ..)| same_but_places(tree, &inside.tree));
        let (disk, kept) = match now {
            Some((_, stamp, kept)) => (Some(stamp), kept),
            None => (inside.disk, inside.kept.clone()),
        };
        let mut app = Self::new(inside.tree, inside.file.clone());
        if let Some(disk) = disk {
            app.doc.read_from_disk(disk, kept);
        }
        self.replace_with(app);
        self.sim = Some(panel);
        if let Some(file) = &inside.file {
            self.remember(file);
        }
        self.say("Back to the running tree");
    }

    /// Replays the trace at `path` (either encoding): the tree its header names for its
    /// first agent is opened (a trace without one replays on the tree open now), and the
    /// recorded run shows on the canvas. A tree that changed since the recording is said,
    /// and its nodes are matched by id; a tree that is gone leaves the tree open now; a
    /// last line cut off mid-write is said; a trace with no events is refused.
    ///
    /// A trace larger than [`READ_IN_BACKGROUND`](super::reading::READ_IN_BACKGROUND) is
    /// read off the UI thread ([`EditorApp::read_trace_in_background`]): `true` then says
    /// the reading began.
    pub fn open_trace(&mut self, path: &Path) -> bool {
        let large = std::fs::metadata(path)
            .is_ok_and(|m| m.is_file() && m.len() > super::reading::READ_IN_BACKGROUND);
        if large {
            self.read_trace_in_background(path);
            return true;
        }
        let read = crate::io::read_trace(path).map_err(|e| e.to_string());
        self.show_trace(path, read)
    }

    /// Reads the trace at `path` on a thread of its own, showing how far it has come over
    /// the canvas; the replay opens when it is read (see [`EditorApp::open_trace`]).
    pub fn read_trace_in_background(&mut self, path: &Path) {
        let total = std::fs::metadata(path).map_or(0, |m| m.len());
        let reading = super::reading::TraceReading::start(path, total);
        self.say(reading.started());
        self.reading = Some(reading);
    }

    /// Whether a trace is being read off the UI thread.
    pub fn is_reading_trace(&self) -> bool {
        self.reading.is_some()
    }

    /// Shows the trace being read once it is read, or its progress until then.
    pub(super) fn poll_trace(&mut self, ctx: &eframe::egui::Context) {
        let Some(reading) = &self.reading else {
            return;
        };
        match reading.poll() {
            None => reading.ui(ctx),
            Some(read) => {
                let path = reading.path().to_owned();
                let then = self.reading.take().and_then(|r| r.then);
                if self.show_trace(&path, read)
                    && let Some(from) = then
                {
                    self.replay_from(&from);
                }
            }
        }
    }

    /// Replays `read`, the trace read from `path` ([`EditorApp::open_trace`]).
    fn show_trace(&mut self, path: &Path, read: Result<crate::io::TraceFile, String>) -> bool {
        let trace = match read {
            Ok(t) => t,
            Err(e) => {
                self.say_problem(e);
                return false;
            }
        };
        if trace.events.is_empty() {
            let cut = trace
                .cut
                .map(|c| format!(" ({})", c.message()))
                .unwrap_or_default();
            self.say_problem(format!(
                "{} holds no events: there is no run to replay{cut}",
                path.display()
            ));
            return false;
        }
        let mut notes = Vec::new();
        if let Some(cut) = &trace.cut {
            notes.push(cut.message());
        }
        if let Some(agent) = trace.header.as_ref().and_then(|h| h.agents.first()) {
            let tree = crate::io::resolve_traced(&agent.tree, path);
            if !tree.is_file() {
                notes.push(format!(
                    "the tree the trace names, {}, is gone; its events are matched by id to the tree open now",
                    tree.display()
                ));
            } else if !self.open_path(&tree) {
                return false;
            } else if let Some(recorded) = trace.header.as_ref().and_then(|h| {
                h.files
                    .iter()
                    .find(|f| crate::io::resolve_traced(&f.path, path) == tree)
            }) && crate::io::digest(&tree).ok().as_deref()
                != Some(recorded.sha256.as_str())
            {
                notes.push(format!(
                    "{} changed since the recording: its nodes are matched by id",
                    agent.tree
                ));
            }
        }
        let mut run = Debugger::replay(path, trace);
        run.learn_titles(&self.catalog);
        run.set_shown_file(self.doc.path());
        let missing = run.unknown_nodes(self.doc.tree());
        if missing > 0 {
            notes.push(format!(
                "{missing} node(s) of the trace are not in this tree; the event log lists their events"
            ));
        }
        if !notes.is_empty() {
            run.set_note(Some(notes.join("; ")));
        }
        self.sim = Some(SimPanel::new(run));
        let mut said = format!("Replaying {}", path.display());
        for n in notes {
            said = format!("{said}; {n}");
        }
        self.say(said);
        true
    }

    /// Paints the counts of the coverage file at `path` on the canvas (View > Coverage from
    /// File…); a file that does not read is said.
    pub fn open_coverage(&mut self, path: &Path) -> bool {
        match super::coverage::Overlay::from_file(path) {
            Ok(overlay) => {
                self.coverage = Some(overlay);
                self.say(format!("Coverage from {}", path.display()));
                true
            }
            Err(e) => {
                self.say_problem(e);
                false
            }
        }
    }

    /// Opens a scenario to run the tree in.
    pub fn open_scenario(&mut self, path: &Path) -> bool {
        match Debugger::open(path) {
            Ok(run) => {
                self.set_scenario(run);
                self.say(format!("Running the tree in {}", path.display()));
                true
            }
            Err(e) => {
                self.say_problem(e);
                false
            }
        }
    }

    /// Asks for a file for `purpose`: the system's dialog, or the in-app field where there
    /// is none.
    pub(super) fn choose(&mut self, purpose: Purpose) {
        let name = match &purpose {
            Purpose::SaveTree => self
                .doc
                .path()
                .and_then(Path::file_name)
                .map_or_else(|| "tree.json".into(), |n| n.to_string_lossy().into_owned()),
            _ => String::new(),
        };
        self.choose_named(purpose, name);
    }

    /// Asks where to save the tree when its own file cannot take it (read-only, or changed
    /// on disk): the name offered is a new file beside it (`NAME-2.json`, …).
    pub(super) fn choose_elsewhere(&mut self) {
        let name = self.doc.path().map_or_else(
            || "tree.json".to_owned(),
            |p| {
                let stem = p
                    .file_stem()
                    .map_or_else(|| "tree".into(), |s| s.to_string_lossy().into_owned());
                // A recording's tree is BehaviorTree.CPP's: offered as its XML, NAME.xml.
                let (first, ext) = match crate::io::is_btlog(p) {
                    true => (Some(format!("{stem}.xml")), "xml"),
                    false => (None, "json"),
                };
                first
                    .into_iter()
                    .chain((2..1000).map(|n| format!("{stem}-{n}.{ext}")))
                    .find(|n| !p.with_file_name(n).exists())
                    .unwrap_or_else(|| format!("{stem}-copy.{ext}"))
            },
        );
        self.choose_named(Purpose::SaveTree, name);
    }

    pub(super) fn choose_named(&mut self, purpose: Purpose, name: String) {
        let dir = self
            .doc
            .path()
            .and_then(Path::parent)
            .filter(|d| !d.as_os_str().is_empty())
            .map(Path::to_owned);
        let why = match self.chooser {
            Chooser::Native => match super::files::native(&purpose, dir.as_deref(), &name) {
                Ok(Some(p)) => return self.chosen(purpose, &p),
                Ok(None) => return,
                Err(why) => Some(why),
            },
            Chooser::InApp => self.chooser_why.clone(),
        };
        if let Some(w) = &why {
            self.say(format!("{w}: type the path instead"));
        }
        let base = dir
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("."));
        self.prompt = Some(FilePrompt::new(purpose, name, base, why));
    }

    /// Carries out `purpose` with the chosen file.
    fn chosen(&mut self, purpose: Purpose, path: &Path) {
        let completed = purpose.completed(path);
        let path = completed.as_path();
        match purpose {
            Purpose::OpenTree => {
                self.open_path(path);
            }
            Purpose::SaveTree => {
                // Chosen again, the tree's own file is still checked against the disk.
                self.save_checked(path);
            }
            Purpose::OpenScenario => {
                self.open_scenario(path);
            }
            Purpose::OpenTrace => {
                self.open_trace(path);
            }
            Purpose::OpenCoverage => {
                self.open_coverage(path);
            }
            Purpose::LoadModels => {
                self.load_models(path);
            }
            Purpose::SaveRecording => self.save_recording(path),
            Purpose::Asset(id, field) => {
                let value = super::relative_asset(self.doc.path(), path);
                if self.doc.path().is_none() {
                    self.say("Save this tree to make the asset path relative to it");
                }
                self.apply(Edit::SetField {
                    id,
                    name: field,
                    value: Some(crate::model::Value::Text(value)),
                });
            }
        }
    }

    pub(super) fn file_prompt_ui(&mut self, ctx: &egui::Context) {
        let Some(prompt) = &mut self.prompt else {
            return;
        };
        match prompt.ui(ctx) {
            None => {}
            Some(None) => self.prompt = None,
            Some(Some(path)) => {
                let purpose = prompt.purpose.clone();
                self.prompt = None;
                self.chosen(purpose, &path);
            }
        }
    }
}

/// Whether two trees are the same but for where their nodes stand on the canvas (a file
/// without positions is arranged as the editor opens it).
fn same_but_places(a: &Tree, b: &Tree) -> bool {
    a.nodes().len() == b.nodes().len()
        && a.keys == b.keys
        && a.nodes().iter().zip(b.nodes()).all(|(x, y)| {
            let mut y = y.clone();
            y.position = x.position;
            *x == y
        })
}
