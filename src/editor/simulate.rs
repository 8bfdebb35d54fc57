//! The simulation panel: the tree being edited runs in its scenario's world; Step, Run and
//! Reset drive it, the arena is drawn, and the watched agent's node states light the canvas.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use eframe::egui::{self, Color32, RichText};

use super::commands::Command;
use crate::model::{Catalog, NodeId, Tree};
use crate::runtime::Status;
use crate::world::{EntityKind, ItemKind, Simulation, parse_scenario};

/// The scenario bundled with the bundled sample tree.
pub const SAMPLE_SCENARIO: &str = include_str!("../../sample_trees/droid_arena.scenario.json");

/// Seconds per simulated step.
const DT: f64 = 0.1;

/// A scenario to run the edited tree in, and its run so far.
pub struct SimPanel {
    /// The scenario's path (for the bundled sample, a name only).
    pub path: PathBuf,
    text: String,
    sim: Option<Simulation>,
    /// Why the tree cannot run now (validation errors, a missing file).
    pub error: Option<String>,
    /// The agent whose node states light the canvas.
    pub watched: usize,
    /// Stepping continuously.
    pub running: bool,
    last_step: f64,
    live: Live,
    /// The tree file the scenario's agents name for the tree being edited: they run the
    /// edited tree, whatever name it is later saved under.
    paired: Option<PathBuf>,
}

/// A node's live state on the canvas: its status, and whether it changed in the last step.
pub type Live = HashMap<NodeId, (Status, bool)>;

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
        Self {
            path,
            text,
            sim: None,
            error: None,
            watched: 0,
            running: false,
            last_step: 0.0,
            live: Live::new(),
            paired: None,
        }
    }

    /// Makes the agents that run `tree` (the edited tree's file; the bundled sample's name
    /// when it has none) run the tree being edited, from now on.
    pub fn pair_with(&mut self, tree: Option<&Path>) {
        self.paired = Some(tree.map_or_else(|| PathBuf::from("droid_arena.json"), Path::to_owned));
    }

    /// Starts over from the scenario's first state with `tree` as edited, in place of the
    /// tree file it was paired with (else `tree_path`).
    pub fn reset(&mut self, catalog: &Catalog, tree: &Tree, tree_path: &Path) {
        let paired = self.paired.clone();
        let tree_path = paired.as_deref().unwrap_or(tree_path);
        self.sim = None;
        self.error = None;
        let parsed = match parse_scenario(&self.text, &self.path) {
            Ok(p) => p,
            Err(e) => {
                self.error = Some(e.to_string());
                return;
            }
        };
        match Simulation::with_edited(&self.path, parsed, catalog, 0, (tree_path, tree)) {
            Ok(sim) => {
                self.watched = self.watched.min(sim.agents().count().saturating_sub(1));
                self.sim = Some(sim);
            }
            Err(crate::world::SimError::Invalid { problems, .. }) => {
                self.running = false;
                self.error = Some(format!(
                    "the tree has {} error(s); the Problems panel lists them",
                    problems.len()
                ));
            }
            Err(e) => {
                self.running = false;
                self.error = Some(e.to_string());
            }
        }
        self.refresh_live();
    }

    /// The simulation, when the tree runs.
    pub fn sim(&self) -> Option<&Simulation> {
        self.sim.as_ref()
    }

    /// Steps once.
    pub fn step(&mut self) {
        if let Some(sim) = &mut self.sim {
            sim.step(DT, None);
        }
        self.refresh_live();
    }

    /// The watched agent's node states (not idle), by node id, for painting the canvas;
    /// kept up to date by each step, reset and change of the watched agent.
    pub fn live(&self) -> &Live {
        &self.live
    }

    fn refresh_live(&mut self) {
        self.live.clear();
        let Some(sim) = &self.sim else { return };
        let Some(agent) = sim.agents().nth(self.watched) else {
            return;
        };
        let Some(instance) = sim.instance(&agent.name) else {
            return;
        };
        let step = instance.step_number();
        let ids = instance.program().node_ids();
        for (id, state) in ids.iter().zip(instance.node_states()) {
            if state.status != Status::Idle {
                self.live
                    .insert(NodeId::new(id.as_str()), (state.status, state.step == step));
            }
        }
    }

    /// Draws the panel: controls, the watched agent, and the arena. Returns the commands
    /// its buttons asked for.
    pub fn ui(&mut self, ui: &mut egui::Ui) -> Vec<Command> {
        let mut asked = Vec::new();
        let watched = self.watched;
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        ui.horizontal(|ui| {
            ui.label(RichText::new("Simulation").strong());
            ui.label(format!("in {name}"));
            let can = self.sim.is_some();
            let run_label = if self.running { "Pause" } else { "Run" };
            for (command, label, enabled) in [
                (Command::SimStep, "Step", can),
                (Command::SimRunPause, run_label, can),
                (Command::SimReset, "Reset", true),
            ] {
                if command_button_ui(ui, command, label, enabled) {
                    asked.push(command);
                }
            }
            if let Some(sim) = &self.sim {
                let names: Vec<String> = sim.agents().map(|a| a.name.clone()).collect();
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
                ui.label(format!(
                    "step {}, {:.1} s",
                    sim.world().step_number(),
                    sim.world().time()
                ));
            }
        });
        if let Some(e) = &self.error {
            ui.label(
                RichText::new(format!("Cannot run: {e}")).color(Color32::from_rgb(235, 90, 90)),
            );
        }
        if let Some(sim) = &self.sim {
            ui.horizontal_top(|ui| {
                arena_ui(ui, sim, self.watched);
                ui.vertical(|ui| {
                    for (i, s) in sim.summary().iter().enumerate() {
                        let text = RichText::new(s.to_string()).small();
                        ui.label(if i == self.watched {
                            text.strong()
                        } else {
                            text
                        });
                    }
                });
            });
        }
        if self.watched != watched {
            self.refresh_live();
        }
        // Continuous running: a step every 0.1 s of real time.
        if self.running && self.sim.is_some() {
            let now = ui.input(|i| i.time);
            if now - self.last_step >= DT {
                self.last_step = now;
                self.step();
            }
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(100));
        }
        asked
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

/// The arena, one square a tile, scaled to the panel's height.
fn arena_ui(ui: &mut egui::Ui, sim: &Simulation, watched: usize) {
    let world = sim.world();
    let (w, h) = (world.width().max(1) as f32, world.height().max(1) as f32);
    let tile = (150.0 / h).clamp(4.0, 16.0);
    let (rect, _) = ui.allocate_exact_size(egui::vec2(w * tile, h * tile), egui::Sense::hover());
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
