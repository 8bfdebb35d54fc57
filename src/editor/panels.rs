//! The menus and panels around the canvas: the menu bar (read from the command table), the
//! palette of node kinds, the inspector, the problems list, the simulation panel and the
//! unsaved-changes prompt. Each queues commands or edits; nothing here applies a command.

use std::collections::HashMap;
use std::path::Path;

use eframe::egui::{self, RichText};

use super::changes::Change;
use super::commands::{self, Command, Enabled, Menu};
use super::files::Purpose;
use super::graph::Attach;
use super::graph::Look;
use super::{EditorApp, Pending, category_colour, inspector};
use crate::debug::Debugger;
use crate::model::{Category, Edit, Severity};

/// A node kind being dragged from the palette.
#[derive(Clone, Debug)]
struct PaletteDrag(String);

/// Problems up to this many are wrapped in full; more are a line each, laid out only in
/// view.
const WRAPPED_PROBLEMS: usize = 200;

/// Up to this many rows (headings and kinds), the palette lays them all out; beyond, only
/// those in view.
const LAID_OUT_ROWS: usize = 300;

impl EditorApp {
    pub(super) fn menu_ui(&mut self, ui: &mut egui::Ui) {
        egui::MenuBar::new().ui(ui, |ui| {
            for menu in Menu::ALL {
                ui.menu_button(menu.label(), |ui| {
                    for command in Command::ALL.iter().copied().filter(|c| c.menu() == menu) {
                        if command.starts_group() {
                            ui.separator();
                        }
                        if commands::menu_item_ui(ui, command, self.enabled(command)) {
                            self.ask(command);
                            ui.close();
                        }
                        if command == Command::Open {
                            self.recent_menu_ui(ui);
                        }
                    }
                });
            }
        });
    }

    fn recent_menu_ui(&mut self, ui: &mut egui::Ui) {
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
    }

    /// The palette's rows as filtered by `filter` (lower case): the built-in categories,
    /// with the library's groups before the built-in leaves, each a heading and the kinds
    /// that match, in palette order. Found again only when the filter or the kinds change,
    /// not each frame: a game's library may declare 150,000 kinds.
    fn palette_rows(&self, filter: &str) -> std::rc::Rc<[PaletteRow]> {
        let kinds = self.catalog.kinds();
        let mut kept = self.kind_rows.borrow_mut();
        if let Some((f, n, rows)) = &*kept
            && f == filter
            && *n == kinds.len()
        {
            return rows.clone();
        }
        let matches = |k: &crate::model::KindSpec| {
            !k.is_placeholder() && (filter.is_empty() || k.name.to_lowercase().contains(filter))
        };
        // Each section: its heading, its colour and its kinds (by place in the catalog).
        let mut sections: Vec<(String, egui::Color32, Vec<usize>)> = Vec::new();
        for category in Category::ALL {
            // The game's groups come before the built-in leaves and conditions.
            if category == Category::Leaf {
                let mut at: HashMap<&str, usize> = HashMap::new();
                for (i, k) in kinds.iter().enumerate() {
                    if k.group.is_empty() || !matches(k) {
                        continue;
                    }
                    match at.get(k.group.as_str()) {
                        Some(&s) => sections[s].2.push(i),
                        None => {
                            at.insert(&k.group, sections.len());
                            sections.push((
                                k.group.clone(),
                                category_colour(Some(k.category)),
                                vec![i],
                            ));
                        }
                    }
                }
            }
            let of_category: Vec<usize> = (0..kinds.len())
                .filter(|&i| {
                    let k = &kinds[i];
                    k.category == category && k.group.is_empty() && matches(k)
                })
                .collect();
            if !of_category.is_empty() {
                sections.push((
                    category.label().to_owned(),
                    category_colour(Some(category)),
                    of_category,
                ));
            }
        }
        let rows: std::rc::Rc<[PaletteRow]> = sections
            .into_iter()
            .flat_map(|(label, colour, kinds)| {
                std::iter::once(PaletteRow::Heading(label, colour))
                    .chain(kinds.into_iter().map(PaletteRow::Kind))
            })
            .collect();
        *kept = Some((filter.to_owned(), kinds.len(), rows.clone()));
        rows
    }

    pub(super) fn palette_ui(&mut self, ui: &mut egui::Ui) {
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
        let rows = self.palette_rows(&filter);
        let kinds = self.catalog.kinds();
        let mut add = None;
        if enter {
            // Enter adds the kind that matches best (`find::best_kind`), in palette order.
            let names = rows.iter().filter_map(|r| match r {
                PaletteRow::Kind(i) => kinds.get(*i).map(|k| k.name.as_str()),
                PaletteRow::Heading(..) => None,
            });
            add = super::find::best_kind(names, &filter).map(str::to_owned);
        }
        let row_ui = |ui: &mut egui::Ui, row: &PaletteRow, add: &mut Option<String>| {
            let spec = match row {
                PaletteRow::Heading(label, colour) => {
                    ui.label(RichText::new(label).color(*colour).strong());
                    return;
                }
                PaletteRow::Kind(i) => match kinds.get(*i) {
                    Some(k) => k,
                    None => return,
                },
            };
            let kind = spec.name.as_str();
            let hover = if spec.help.is_empty() {
                "Click to add, or drag onto the canvas".to_owned()
            } else {
                format!("{}\n\nClick to add, or drag onto the canvas", spec.help)
            };
            let hover = inspector::help_text(ui, &hover, false);
            // Click adds at the centre of the view; drag drops it where it is let go.
            let button = ui
                .add(egui::Button::new(kind).sense(egui::Sense::click_and_drag()))
                .on_hover_text(hover)
                .on_hover_cursor(egui::CursorIcon::Grab);
            if button.clicked() {
                *add = Some(kind.to_owned());
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
        };
        if rows.len() <= LAID_OUT_ROWS {
            egui::ScrollArea::vertical().show(ui, |ui| {
                for row in rows.iter() {
                    row_ui(ui, row, &mut add);
                }
            });
        } else {
            // Only the rows in view are laid out, each as high as a button.
            let height = ui.spacing().interact_size.y;
            egui::ScrollArea::vertical()
                .id_salt("palette")
                .auto_shrink([false, true])
                .show_rows(ui, height, rows.len(), |ui, shown| {
                    for row in &rows[shown] {
                        ui.allocate_ui_with_layout(
                            egui::vec2(ui.available_width(), height),
                            egui::Layout::left_to_right(egui::Align::Center),
                            |ui| row_ui(ui, row, &mut add),
                        );
                    }
                });
        }
        if let Some(kind) = add {
            let at = self.view_centre();
            self.add_node(&kind, at);
        }
    }

    /// The graph position at the centre of the view, where a node from the palette goes
    /// (moved to the next free place there).
    pub fn view_centre(&self) -> [f32; 2] {
        match (self.canvas.area(), self.canvas.camera()) {
            (Some(rect), Some(t)) => {
                let c = t.inverse() * rect.center();
                [c.x - 100.0, c.y - 40.0]
            }
            _ => [40.0, 40.0],
        }
    }

    pub(super) fn inspector_panel_ui(&mut self, ui: &mut egui::Ui) {
        let Some(node) = self
            .selected()
            .and_then(|id| self.doc.tree().node(id))
            .cloned()
        else {
            ui.heading("Inspector");
            ui.label("Select a node to see and edit its fields.");
            return;
        };
        if self.selection.len() > 1 {
            ui.label(format!(
                "{} nodes selected; showing the first",
                self.selection.len()
            ));
        }
        // The scenario's waypoints, offered for a field that names one.
        let waypoints: Vec<String> = self
            .simulation()
            .and_then(Debugger::sim)
            .map(|s| s.world().waypoints().map(str::to_owned).collect())
            .unwrap_or_default();
        let params = self.asset_params(&node);
        if let Some(request) = inspector::inspector_ui(
            ui,
            inspector::Shown {
                tree: self.doc.tree(),
                catalog: &self.catalog,
                waypoints: &waypoints,
                params: params.as_deref(),
            },
            &node,
            self.doc.parent_of(&node.id),
        ) {
            self.queue.push(Change::Inspect(node.id.clone(), request));
        }
    }

    pub(super) fn diagnostics_ui(&mut self, ui: &mut egui::Ui) {
        // The tree's findings and its node libraries' problems, counted together.
        let library = self.project.problems();
        let errors = self.diagnostics.iter().filter(|d| d.is_error()).count()
            + library.iter().filter(|p| p.is_error()).count();
        let all = self.diagnostics.len() + library.len();
        let counted = |n: usize, what: &str| {
            if n == 1 {
                format!("1 {what}")
            } else {
                format!("{n} {what}s")
            }
        };
        ui.heading(format!(
            "Problems ({}, {})",
            counted(errors, "error"),
            counted(all - errors, "warning")
        ));
        let mut focus = None;
        if all == 0 {
            ui.label("No problems: the tree is valid.");
            return;
        }
        let colour = |severity| match severity {
            Severity::Error => egui::Color32::from_rgb(235, 90, 90),
            Severity::Warning => egui::Color32::from_rgb(230, 180, 70),
        };
        // A short list wraps each problem in full. A long one shows a line a problem (the
        // whole text on hover), and only the lines in view are laid out: a tree of 100,000
        // unreachable nodes lists 100,000 warnings.
        let mut row_ui = |ui: &mut egui::Ui, row: usize, wrap: bool| {
            let shown = |text: RichText| {
                let label = egui::Label::new(text);
                if wrap {
                    label.wrap()
                } else {
                    label.truncate().show_tooltip_when_elided(false)
                }
            };
            // The node libraries' own problems first, naming the file and the kind.
            if let Some(p) = library.get(row) {
                let text = p.to_string();
                ui.add(shown(RichText::new(&text).color(colour(p.severity))))
                    .on_hover_text(&text);
                return;
            }
            let Some(d) = self.diagnostics.get(row - library.len()) else {
                return;
            };
            let node = d
                .nodes
                .first()
                .map(|n| format!("[{n}] "))
                .unwrap_or_default();
            let text = format!("{node}{} ({})", d.message, d.rule);
            let label = ui.add(
                shown(RichText::new(&text).color(colour(d.severity()))).sense(egui::Sense::click()),
            );
            if let Some(first) = d.nodes.first()
                && label
                    .on_hover_text(format!("{text}\n\nClick to select the node and centre it"))
                    .on_hover_cursor(egui::CursorIcon::PointingHand)
                    .clicked()
            {
                focus = Some(first.clone());
            }
        };
        if all <= WRAPPED_PROBLEMS {
            for row in 0..all {
                row_ui(ui, row, true);
            }
        } else {
            let row_height = ui.text_style_height(&egui::TextStyle::Body);
            egui::ScrollArea::vertical()
                .id_salt("problems")
                .auto_shrink([false, true])
                .show_rows(ui, row_height, all, |ui, rows| {
                    for row in rows {
                        row_ui(ui, row, false);
                    }
                });
        }
        if let Some(id) = focus {
            self.queue.push(Change::Focus(id));
        }
    }

    pub(super) fn unsaved_prompt_ui(&mut self, ctx: &egui::Context) {
        let Some(action) = self.pending.clone() else {
            return;
        };
        let name = self.doc.name();
        let mut choice = None;
        egui::Modal::new(egui::Id::new("unsaved-changes")).show(ctx, |ui| {
            ui.heading("Unsaved changes");
            ui.label(format!(
                "{name} has changes that are not saved. Save them first?"
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
                match self.doc.path().map(Path::to_owned) {
                    Some(p) => {
                        if !self.save_checked(&p) && self.disk.conflict.is_some() {
                            // The file changed on disk: that question first; the action
                            // is asked for again once it is answered.
                            self.pending = None;
                            return;
                        }
                    }
                    None => {
                        self.pending = None;
                        self.choose(Purpose::SaveTree);
                        return;
                    }
                }
                if !self.doc.is_dirty() {
                    self.perform(action, ctx);
                }
            }
            Some(1) => self.perform(action, ctx),
            Some(_) => self.pending = None,
            None => {}
        }
    }

    pub(super) fn simulation_ui(&mut self, ui: &mut egui::Ui) {
        let key = self.breakpoints_key();
        let breakpoints = self.breakpoints.of(&key);
        let Some(panel) = &mut self.sim else { return };
        let (tree, selected) = (self.doc.tree(), self.selection.first());
        egui::Panel::bottom("simulation")
            .resizable(true)
            // Room for the controls, the Trigger row and a context of a few keys with the
            // agent's state below it.
            .default_size(260.0)
            .show(ui, |ui| {
                // Its own scroll area, so the panel keeps the size it is given.
                egui::ScrollArea::vertical()
                    .id_salt("simulation-scroll")
                    .auto_shrink([false, false])
                    .show(ui, |ui| panel.ui(ui, tree, selected, breakpoints));
            });
        let asked = panel.take_asks();
        self.queue.extend(asked);
    }

    /// Takes the steps of the run owed to the clock while it runs (before the frame is
    /// drawn, so that it shows them), and says why it stopped.
    pub(super) fn pace_simulation(&mut self, now: f64) {
        let key = self.breakpoints_key();
        let breakpoints = self.breakpoints.of(&key);
        if let Some(panel) = &mut self.sim {
            panel.debugger.pace(now, breakpoints);
        }
        self.after_sim();
    }

    pub(super) fn canvas_ui(&mut self, ui: &mut egui::Ui) {
        if let Some(overlay) = &mut self.coverage {
            overlay.refresh(
                self.doc.tree(),
                self.doc.path(),
                self.doc.revision(),
                self.sim.as_ref().map(|p| &p.debugger),
                ui.input(|i| i.time),
            );
        }
        let none = crate::debug::Live::new();
        let run = self.sim.as_ref().map(|p| &p.debugger);
        let live = run.map_or(&none, Debugger::live);
        let breakpoints: HashMap<crate::model::NodeId, crate::debug::BreakOn> =
            run.map_or_else(HashMap::new, |s| {
                self.breakpoints
                    .of(&self.breakpoints_key())
                    .iter()
                    .filter_map(|b| Some((s.shown(&b.node)?, b.on)))
                    .collect()
            });
        let look = Look {
            tree: self.doc.tree(),
            catalog: &self.catalog,
            errors: &self.marked.0,
            unreachable: &self.marked.1,
            live,
            selected: self.selection.ids(),
            breakpoints: &breakpoints,
            time: ui.input(|i| i.time),
            running_leaves: run.map_or(&[], Debugger::running_leaves),
            debugging: run.is_some_and(|s| s.session().is_some()),
            run,
            coverage: self.coverage.as_ref(),
        };
        // The coverage legend takes a row of its own above the canvas: it hides no node,
        // and the canvas (its fitting too) has the rest.
        let out = match &self.coverage {
            Some(overlay) => {
                super::coverage::legend_ui(ui, overlay);
                let rest = ui.available_rect_before_wrap();
                ui.scope_builder(egui::UiBuilder::new().max_rect(rest), |ui| {
                    self.canvas.show(ui, &look)
                })
                .inner
            }
            None => self.canvas.show(ui, &look),
        };
        // A kind dragged from the palette and let go over the canvas: a node there.
        let released = ui.input(|i| i.pointer.primary_released());
        let over = ui
            .ctx()
            .pointer_interact_pos()
            .filter(|p| ui.max_rect().contains(*p));
        if let (true, Some(at)) = (released, over)
            && let Some(kind) = egui::DragAndDrop::take_payload::<PaletteDrag>(ui.ctx())
            && let Some(g) = self.canvas.to_graph(at)
        {
            let at = [g.x - 100.0, g.y - 20.0];
            self.queue
                .push(Change::Add(kind.0.clone(), at, Attach::Loose));
        }
        if out.collapsed {
            self.select_shown_only();
        }
        // What the gestures asked for is applied with the other changes, after drawing.
        let changes = out
            .field_edits
            .into_iter()
            .map(|(edit, node, field)| Change::Coalesced(edit, node, field))
            .chain(out.adds.into_iter().map(|(k, at, a)| Change::Add(k, at, a)))
            .chain(out.select.map(Change::Select))
            .chain(out.command.map(|(c, id)| Change::CommandOn(c, id)))
            .chain(out.break_on.map(|(id, on)| Change::BreakOn(id, on)))
            .chain(out.force.map(|(id, o)| Change::Force(id, o)))
            .chain(out.change_kind.map(|(id, k)| Change::NewKind(id, k)))
            .chain(out.paste_at.map(Change::PasteAt))
            .chain(out.refused.map(Change::Refused))
            .chain(out.edits.into_iter().map(Change::Edit));
        self.queue.extend(changes);
        // A whole drag is one undo step: positions are committed once the pointer is released.
        if !ui.input(|i| i.pointer.any_down()) {
            let moved = self.canvas.moved(self.doc.tree());
            if !moved.is_empty() {
                self.queue.push(Change::Edit(Edit::Batch(moved)));
            }
        }
    }
}

/// The palette's rows, with the filter and the number of kinds they were found for.
pub(super) type KeptRows = (String, usize, std::rc::Rc<[PaletteRow]>);

/// One row of the palette: a heading (a category's name, or a library's group, in its
/// kinds' colour), or a kind, by its place in the catalog.
pub(super) enum PaletteRow {
    Heading(String, egui::Color32),
    Kind(usize),
}
