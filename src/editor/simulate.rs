//! The simulation and debugger panel: it draws a [`Debugger`] (the tree being edited
//! running in its scenario's world or alone, a recorded trace replayed, or a game shown
//! live) and turns its buttons into calls. Step, Run, the timeline, breakpoints and
//! triggers drive it; the arena, the watched agent's context and its event log show the
//! step the canvas shows.

use std::path::Path;

use eframe::egui::{self, Color32, RichText};

use super::changes::{Change, SimChange};
use super::commands::Command;
use crate::debug::{
    Breakpoint, Debugger, Logged, LoggedKind, MarkerKind, SPEEDS, Source, describe, is_trouble,
};
use crate::model::{NodeId, Tree};
use crate::runtime::Status;
use crate::world::{EntityKind, ItemKind, Simulation};

/// The size of the panel's running text (the event log, an agent's state), in points: no
/// smaller than the body text.
const PANEL_TEXT: f32 = 12.5;

/// What the Game list asks the app for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameChoice {
    /// Leave the game for the tree's own run.
    OwnRun,
    /// Show this game of the listener's list live.
    Game(u64),
}

/// Entries of a key's history the panel lists, the newest (then "and N earlier entries").
const HISTORY_SHOWN: usize = 200;

/// Agents a line of the panel names, at most (then "and N more").
const NAMED_AGENTS: usize = 6;

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

    /// Whether the log shows the event at `i` of `events` (`observer`: which nodes are
    /// observers, for a take-over's entry).
    fn keeps(self, events: &[Logged], i: usize, observer: &dyn Fn(u32) -> bool) -> bool {
        match self {
            LogFilter::All => true,
            LogFilter::Trouble => is_trouble(events, i, observer),
            LogFilter::Kind(name) => events.get(i).is_some_and(|e| e.kind.name() == name),
        }
    }
}

/// The Simulation panel: the debugger it draws, and what it keeps of its own (the log's
/// filter, the payload typed, the game chosen).
pub struct SimPanel {
    /// The run debugged and how it is shown.
    pub debugger: Debugger,
    /// The event log's filter.
    pub filter: LogFilter,
    /// Show only the selected node's events.
    pub only_selected: bool,
    /// The payload typed for triggers.
    pub payload: String,
    /// The next click in the arena picks the payload's entity (instead of watching).
    pub picking: bool,
    /// What the panel asked for while it was drawn, for the app to do after it.
    asks: Vec<Change>,
    /// The arena is shown in a window of its own.
    pub arena_window: bool,
}

impl SimPanel {
    /// The panel of `debugger`.
    pub fn new(debugger: Debugger) -> Self {
        Self {
            debugger,
            filter: LogFilter::All,
            only_selected: false,
            payload: String::new(),
            picking: false,
            asks: Vec::new(),
            arena_window: false,
        }
    }

    /// What the panel asked for while it was drawn, taken (the app does it after drawing).
    pub(super) fn take_asks(&mut self) -> Vec<Change> {
        std::mem::take(&mut self.asks)
    }

    /// Draws the panel: controls, the timeline, the arena, the watched agent's context
    /// and its event log; `breakpoints` are those of the tree shown. What its buttons and
    /// lists ask for is kept for the app to do after drawing ([`SimPanel::take_asks`]):
    /// drawing changes no state of the run.
    pub(super) fn ui(
        &mut self,
        ui: &mut egui::Ui,
        tree: &Tree,
        selected: Option<&NodeId>,
        breakpoints: &[Breakpoint],
    ) {
        let mut asked = Vec::new();
        let watched = self.debugger.watched();
        let mut watched_now = watched;
        let name = self
            .debugger
            .path()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // A game shown live: what the panel says of it on a line of its own (it can be
        // long), under the controls.
        let mut live_notes: Vec<RichText> = Vec::new();
        let yellow = Color32::from_rgb(240, 200, 60);
        ui.horizontal(|ui| {
            ui.label(RichText::new("Simulation").strong());
            if self.debugger.live_game().is_some() {
                let game = self.debugger.live_row();
                let run = game
                    .filter(|g| g.run > 1)
                    .map_or_else(String::new, |g| format!(" (run {})", g.run));
                if game.is_some_and(|g| g.connected) {
                    ui.label(format!("live: {name}{run}, connected"));
                } else {
                    // Said in orange: the game is gone, what it sent stays to scrub through
                    // (why, on a line of its own: it can be long).
                    let orange = Color32::from_rgb(240, 140, 60);
                    ui.label(RichText::new(format!("live: {name}{run}, ended")).color(orange));
                    let why = game
                        .and_then(|g| g.problem.as_ref())
                        .map_or_else(String::new, |p| format!(": {p}"));
                    live_notes.push(
                        RichText::new(format!(
                            "its connection ended{why}; what it sent stays to scrub through"
                        ))
                        .color(orange),
                    );
                }
                let first = self.debugger.source().map_or(0, Source::first_step);
                let from = self
                    .debugger
                    .source()
                    .and_then(Source::replayed)
                    .and_then(|r| r.trace().events.first())
                    .map_or(0, |e| e.step.max(1));
                if first > 0 {
                    let kept = self.debugger.live_window().map_or(0, |w| w.events);
                    live_notes.push(RichText::new(format!(
                        "from step {}: the editor keeps a game's last {} events",
                        first + 1,
                        grouped(kept as u64)
                    )));
                } else if from > 1 {
                    live_notes.push(RichText::new(format!(
                        "received from step {from}: the game ran before this editor connected"
                    )));
                }
                // Always a line, so the panel does not jump as the game pauses and goes on.
                match game.filter(|g| !g.paused.is_empty()) {
                    Some(g) => live_notes.push(
                        RichText::new(format!(
                            "held in the game: {} (Step steps the watched one, Run lets all go)",
                            named(&g.paused)
                        ))
                        .color(yellow),
                    ),
                    None if game.is_some_and(|g| g.connected) => {
                        live_notes.push(RichText::new("no agent held in the game").weak());
                    }
                    None => {}
                }
                if let Some(g) = game.filter(|g| g.dropped > 0) {
                    live_notes.push(
                        RichText::new(format!(
                            "{} events dropped by the game (the editor could not keep up)",
                            g.dropped
                        ))
                        .color(yellow),
                    );
                }
            } else if self.debugger.is_replay() {
                ui.label(format!("replaying {name}"));
            } else if self.debugger.is_solo() {
                ui.label(format!("{name} alone in an empty world"));
            } else {
                ui.label(format!("in {name}"));
            }
            let can = self.debugger.source().is_some();
            let run_label = match (self.debugger.is_running(), self.debugger.live_row()) {
                (true, Some(g)) if g.connected => "Pause game",
                (false, Some(g)) if g.connected => "Run game",
                (true, _) => "Pause",
                (false, _) => "Run",
            };
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
            let mut speed = self.debugger.speed();
            ui.add(
                egui::Slider::new(&mut speed, SPEEDS)
                    .integer()
                    .suffix(" steps/s"),
            )
            .on_hover_text("Run speed");
            self.debugger.set_speed(speed);
            // The games connected to the editor: one is shown live when chosen.
            if !self.debugger.games().is_empty() {
                let label = ui.label("Game");
                let shown = self
                    .debugger
                    .live_row()
                    .map_or_else(|| "choose…".to_owned(), |g| g.name.clone());
                egui::ComboBox::from_id_salt("live-game")
                    .selected_text(shown)
                    .show_ui(ui, |ui| {
                        if self.debugger.live_game().is_some()
                            && ui.selectable_label(false, "this tree's own run").clicked()
                        {
                            self.asks
                                .push(Change::Sim(SimChange::Attach(GameChoice::OwnRun)));
                        }
                        for g in self.debugger.games() {
                            let mut text = g.name.clone();
                            if g.run > 1 {
                                text += &format!(" (run {})", g.run);
                            }
                            if !g.connected {
                                text += " (ended)";
                            }
                            if ui
                                .selectable_label(self.debugger.live_game() == Some(g.id), text)
                                .clicked()
                            {
                                self.asks
                                    .push(Change::Sim(SimChange::Attach(GameChoice::Game(g.id))));
                            }
                        }
                        if self.debugger.games().iter().any(|g| !g.connected)
                            && ui.button("Clear ended games").clicked()
                        {
                            asked.push(Command::ClearEndedGames);
                        }
                    })
                    .response
                    .labelled_by(label.id);
            }
            if let Some(run) = self.debugger.source() {
                let names = run.agent_names().to_vec();
                let label = ui.label("Watch");
                egui::ComboBox::from_id_salt("watched-agent")
                    .selected_text(
                        names
                            .get(self.debugger.watched())
                            .cloned()
                            .unwrap_or_default(),
                    )
                    .show_ui(ui, |ui| {
                        for (i, n) in names.iter().enumerate() {
                            ui.selectable_value(&mut watched_now, i, n);
                        }
                    })
                    .response
                    .labelled_by(label.id);
                let step = run.step_number();
                let dt = run
                    .replayed()
                    .and_then(|r| r.trace().header.as_ref())
                    .map_or(crate::debug::DT, |h| h.dt);
                match run.session() {
                    Some(session) => {
                        let world = session.sim().world();
                        ui.label(format!(
                            "step {}, {:.1} s, seed {}",
                            world.step_number(),
                            world.time(),
                            self.debugger.seed()
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
                let watched = self.debugger.watched();
                let running: Vec<String> = run
                    .running_nodes(watched)
                    .into_iter()
                    .map(|n| node_name(&self.debugger, tree, run, watched, n))
                    .collect();
                if !running.is_empty() {
                    ui.label(
                        RichText::new(format!("running: {}", running.join(", ")))
                            .color(super::viewer::status_colour(Status::Running)),
                    );
                }
            }
        });
        // One line each, so a note that comes and goes moves no other line sideways.
        for note in live_notes {
            ui.add(egui::Label::new(note).truncate());
        }
        // A SubTree's tree shown while the run goes on: which SubTree, and the way back.
        if let Some(inside) = self.debugger.inside() {
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
        if let Some(e) = self.debugger.error() {
            // Wrapped: a long reason (a path, a hint) stays inside the panel.
            ui.horizontal_wrapped(|ui| {
                ui.add(
                    egui::Label::new(
                        RichText::new(format!("Cannot run: {e}"))
                            .color(Color32::from_rgb(235, 90, 90)),
                    )
                    .wrap(),
                );
                if self.debugger.needs_scenario() && ui.button("Open Scenario…").clicked() {
                    asked.push(Command::OpenScenario);
                }
            });
        }
        if let Some(note) = self.debugger.note() {
            ui.label(RichText::new(note).color(Color32::from_rgb(240, 200, 60)));
        }
        if let Some(other) = self.debugger.watched_elsewhere() {
            let file = other.file_name().map_or_else(
                || other.display().to_string(),
                |f| f.to_string_lossy().into_owned(),
            );
            ui.label(
                RichText::new(format!(
                    "{} runs {file}, not this tree: its nodes are not lit here, and breakpoints here do not stop it",
                    self.debugger.watched_name().unwrap_or_default()
                ))
                .color(Color32::from_rgb(150, 160, 240)),
            );
        }
        self.not_streamed_ui(ui);
        // Why the run stopped: a line kept while there is a run, so the controls under it
        // stay where they are when a breakpoint hits.
        if let Some(why) = self.debugger.stopped() {
            ui.add(
                egui::Label::new(RichText::new(why).color(Color32::from_rgb(240, 200, 60)))
                    .truncate(),
            );
        } else if self.debugger.source().is_some() {
            ui.label("");
        }
        if self.debugger.source().is_some() {
            self.timeline_ui(ui, breakpoints);
            self.triggers_ui(ui, tree);
            ui.horizontal_top(|ui| {
                if self.arena_window {
                    ui.vertical(|ui| {
                        ui.label(RichText::new("The arena is in\nits own window").weak());
                        if ui.button("Put the arena back").clicked() {
                            self.arena_window = false;
                        }
                    });
                } else {
                    ui.vertical(|ui| {
                        // As large as the panel leaves room for (above its button).
                        let room = (ui.clip_rect().bottom() - ui.cursor().top() - 34.0).max(60.0);
                        self.arena_ui(ui, egui::vec2(360.0, room), 24.0);
                        if ui
                            .button("Pop out the arena")
                            .on_hover_text(
                                "Show the arena in a window of its own, as large as you make it",
                            )
                            .clicked()
                        {
                            self.arena_window = true;
                        }
                    });
                }
                ui.separator();
                ui.vertical(|ui| {
                    ui.set_width(320.0);
                    // It scrolls within the room the panel has (a key's history can be
                    // long, and the Trigger row takes a line), never cut off below it.
                    let room = (ui.clip_rect().bottom() - ui.cursor().top()).max(60.0);
                    egui::ScrollArea::vertical()
                        .id_salt("context-column")
                        .max_height(room)
                        .auto_shrink([false, true])
                        .show(ui, |ui| self.context_ui(ui, tree, selected));
                });
                ui.separator();
                ui.vertical(|ui| self.log_ui(ui, tree, selected));
            });
        }
        if self.arena_window && self.debugger.sim().is_some() {
            let mut open = true;
            egui::Window::new("The arena")
                .open(&mut open)
                .default_size([640.0, 440.0])
                .resizable(true)
                .show(ui.ctx(), |ui| {
                    let room = ui.available_size();
                    self.arena_ui(ui, room, 200.0);
                });
            self.arena_window = open;
        }
        if watched_now != watched {
            self.asks.push(Change::Sim(SimChange::Watch(watched_now)));
        }
        if self.debugger.is_running() && self.debugger.source().is_some() {
            ui.ctx().request_repaint();
        }
        self.asks.extend(asked.into_iter().map(Change::Command));
    }

    /// The run so far as a bar: markers for the watched agent's interrupts, failures,
    /// stalls and missing keys, and under it a lane of breakpoint hits
    /// ([`super::timeline::hit_lane`]); a click or drag shows that step.
    fn timeline_ui(&mut self, ui: &mut egui::Ui, breakpoints: &[Breakpoint]) {
        let markers = self.debugger.markers(breakpoints);
        let Some(run) = self.debugger.source() else {
            return;
        };
        // From the first step that can be shown (a game's window) to the newest.
        let (head, at, first) = (run.head().max(1), run.step_number(), run.first_step());
        let span = head.saturating_sub(first).max(1);
        let width = ui.available_width().max(100.0);
        let (rect, response) =
            ui.allocate_exact_size(egui::vec2(width, 30.0), egui::Sense::click_and_drag());
        response
            .widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Slider, true, "Timeline"));
        let mut hits: Vec<u64> = markers
            .iter()
            .filter(|m| m.kind == MarkerKind::Breakpoint)
            .map(|m| m.step.saturating_sub(first))
            .collect();
        hits.sort_unstable();
        hits.dedup();
        let mut hover = "Drag to any step of the run (Shift+⏴ / Shift+⏵, as the menus write the arrow keys; Ctrl+G types one)".to_owned();
        if !hits.is_empty() {
            hover += &format!(
                "\nThe red lane: the steps where a breakpoint hits ({} of {span}), brighter where more of them hit; F8 / Shift+F8 go to the next / previous",
                hits.len()
            );
        }
        let response = response.on_hover_text(hover);
        let painter = ui.painter_at(rect);
        let bar = egui::Rect::from_min_max(
            rect.left_top() + egui::vec2(6.0, 6.0),
            rect.right_top() + egui::vec2(-6.0, 14.0),
        );
        let lane = egui::Rect::from_min_max(
            egui::pos2(bar.left(), bar.bottom() + 5.0),
            egui::pos2(bar.right(), rect.bottom() - 3.0),
        );
        let x_of = |step: u64| {
            bar.left() + bar.width() * (step.saturating_sub(first) as f32 / span as f32)
        };
        painter.rect_filled(bar, 3.0, Color32::from_gray(55));
        super::timeline::hit_lane(&painter, lane, span, &hits);
        for m in markers {
            if m.agent != self.debugger.watched() || m.kind == MarkerKind::Breakpoint {
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
                    egui::pos2(x, bar.bottom() + 2.0),
                ],
                (2.0, colour),
            );
        }
        let x = x_of(at);
        // Where the shown step is in the lane of hits.
        painter.line_segment(
            [egui::pos2(x, bar.bottom()), egui::pos2(x, lane.bottom())],
            (1.5, Color32::from_rgb(120, 180, 255)),
        );
        painter.rect_filled(
            egui::Rect::from_min_max(bar.min, egui::pos2(x, bar.max.y)),
            3.0,
            Color32::from_rgb(70, 110, 160),
        );
        painter.circle_filled(
            egui::pos2(x, bar.center().y),
            7.0,
            Color32::from_rgb(120, 180, 255),
        );
        if (response.clicked() || response.dragged())
            && let Some(p) = response.interact_pointer_pos()
        {
            let f = ((p.x - bar.left()) / bar.width()).clamp(0.0, 1.0);
            let k = first + (f * span as f32).round() as u64;
            if k != at {
                self.asks.push(Change::Sim(SimChange::Seek(k)));
            }
        }
    }

    /// For a game shown live whose watched agent has sent nothing: why, and (when the game
    /// streams only some of its agents) a button that asks it to stream this one.
    fn not_streamed_ui(&mut self, ui: &mut egui::Ui) {
        let Some(name) = self.debugger.watched_name().map(str::to_owned) else {
            return;
        };
        let Some(streams) = self.debugger.game_streams(&name) else {
            return;
        };
        let sent = self
            .debugger
            .source()
            .and_then(Source::replayed)
            .and_then(|r| r.agent(self.debugger.watched()))
            .is_some_and(|a| !a.nodes.is_empty());
        if sent {
            return;
        }
        let blue = Color32::from_rgb(150, 160, 240);
        ui.horizontal_wrapped(|ui| {
            if streams {
                ui.label(
                    RichText::new(format!(
                        "{name} has sent nothing yet: the game sends the agents it steps with GameLink::watch"
                    ))
                    .color(blue),
                );
            } else {
                ui.label(
                    RichText::new(format!("The game does not stream {name}")).color(blue),
                );
                if ui
                    .button(format!("Stream {name}"))
                    .on_hover_text("Ask the game to send this agent's events from now on")
                    .clicked()
                {
                    self.asks.push(Change::Sim(SimChange::Stream(name.clone())));
                }
            }
        });
    }

    /// A button per Interrupt of the watched agent's tree, and the payload they carry.
    fn triggers_ui(&mut self, ui: &mut egui::Ui, tree: &Tree) {
        let Some(name) = self.debugger.watched_name().map(str::to_owned) else {
            return;
        };
        let live =
            self.debugger.live_game().is_some() && self.debugger.watched_elsewhere().is_none();
        let ids: Vec<String> = if live {
            // A game's agent: the Interrupts of the tree shown, which it runs.
            tree.nodes()
                .iter()
                .filter_map(|n| n.fields.get("interrupt_id")?.as_str().map(str::to_owned))
                .filter(|id| !id.is_empty())
                .collect()
        } else {
            self.debugger
                .sim()
                .and_then(|s| s.instance(&name))
                .map(|i| i.program().interrupt_ids().map(str::to_owned).collect())
                .unwrap_or_default()
        };
        if ids.is_empty() {
            return;
        }
        let entities: Vec<String> = self
            .debugger
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
            if let Some(id) = fired {
                self.asks
                    .push(Change::Sim(SimChange::Trigger(id, self.payload.clone())));
            }
        });
    }

    /// The watched agent's context (every key, its type, its value in words, marked where
    /// it is its default; keys written in the shown step highlighted, the selected node's
    /// keys marked), a key's history when one is open, and the agent's own state. A click
    /// on a key opens or closes its history; a click on an entry goes to its step.
    fn context_ui(&mut self, ui: &mut egui::Ui, tree: &Tree, selected: Option<&NodeId>) {
        let Some(run) = self.debugger.source() else {
            return;
        };
        let Some(name) = run.agent_names().get(self.debugger.watched()) else {
            return;
        };
        let name = name.clone();
        ui.label(RichText::new(format!("{name}: context")).strong());
        let rows = run.context(self.debugger.watched());
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
            let none = if self.debugger.is_replay() {
                "(nothing stored in its context so far)"
            } else {
                "(its tree uses no context keys)"
            };
            ui.label(RichText::new(none).weak());
        }
        let open = self.debugger.history_key().map(str::to_owned);
        let mut toggled = None;
        egui::Grid::new("context-grid")
            .striped(true)
            .show(ui, |ui| {
                for row in &rows {
                    let mut key_text = RichText::new(row.key.as_str()).monospace();
                    if uses.contains(&row.key) {
                        key_text = key_text.color(Color32::from_rgb(120, 180, 255)).strong();
                    }
                    let is_open = open.as_deref() == Some(row.key.as_str());
                    let response = ui.selectable_label(is_open, key_text);
                    // (Named "key NAME" for assistive technology: an agent or an entity may
                    // have the key's name.)
                    response.widget_info(|| {
                        egui::WidgetInfo::selected(
                            egui::WidgetType::SelectableLabel,
                            true,
                            is_open,
                            format!("key {}", row.key),
                        )
                    });
                    if response
                        .on_hover_text(format!(
                            "{} the history of {}: who wrote it, when, with which value",
                            if is_open { "Close" } else { "Show" },
                            row.key
                        ))
                        .clicked()
                    {
                        toggled = Some((!is_open).then(|| row.key.clone()));
                    }
                    ui.label(
                        RichText::new(row.ty.map_or("", |t| t.name()))
                            .weak()
                            .size(PANEL_TEXT - 1.5),
                    );
                    ui.horizontal(|ui| {
                        let mut value_text = RichText::new(row.value.as_deref().unwrap_or("—"));
                        if row.written {
                            value_text =
                                value_text.color(Color32::from_rgb(250, 220, 120)).strong();
                        }
                        ui.label(value_text);
                        if row.default {
                            ui.label(RichText::new("(default)").weak().italics());
                        }
                    });
                    ui.end_row();
                }
            });
        if let Some(key) = toggled {
            self.asks.push(Change::Sim(SimChange::History(key)));
        }
        self.history_ui(ui, tree);
        if let Some(s) = self
            .debugger
            .sim()
            .and_then(|sim| sim.summary().get(self.debugger.watched()).cloned())
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
                ui.label(RichText::new(l).size(PANEL_TEXT));
            }
        }
    }

    /// The open key's history, newest first: each entry's step, the node that wrote it
    /// and the value (or the clear that gave it back its default); the entry in effect at
    /// the shown step is marked, and a click goes to an entry's step.
    fn history_ui(&mut self, ui: &mut egui::Ui, tree: &Tree) {
        let (Some(run), Some(h)) = (self.debugger.source(), self.debugger.key_history()) else {
            return;
        };
        let watched = self.debugger.watched();
        let at = run.step_number();
        ui.add_space(4.0);
        ui.label(RichText::new(format!("History of {}", h.key)).strong());
        if h.writes.is_empty() {
            ui.label(RichText::new("(never written so far)").weak());
        }
        let current = h.at(at);
        let mut go = None;
        for (i, w) in h.writes.iter().enumerate().rev().take(HISTORY_SHOWN) {
            let words = w.words(&|n| node_name(&self.debugger, tree, run, watched, n));
            let text = RichText::new(format!("step {}: {words}", w.step)).size(PANEL_TEXT);
            let response = ui
                .selectable_label(current == Some(i), text)
                .on_hover_text(format!("Go to step {}", w.step));
            if response.clicked() {
                go = Some(w.step);
            }
        }
        let more = h.earlier + h.writes.len().saturating_sub(HISTORY_SHOWN) as u64;
        if more > 0 {
            ui.label(RichText::new(format!("and {} earlier entries", grouped(more))).weak());
        }
        if h.from > 0 {
            ui.label(
                RichText::new(format!(
                    "(from step {}: earlier steps are not kept)",
                    h.from + 1
                ))
                .weak(),
            );
        }
        if let Some(step) = go {
            self.asks.push(Change::GoToStep(step));
        }
    }

    /// The watched agent's events, by step, newest last; a click selects the node.
    fn log_ui(&mut self, ui: &mut egui::Ui, tree: &Tree, selected: Option<&NodeId>) {
        let Some(run) = self.debugger.source() else {
            return;
        };
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
        let watched = self.debugger.watched();
        let events: Vec<Logged> = run.log(watched);
        let id_of = |n: u32| run.node_id(watched, n).unwrap_or("");
        // An observer: the run says so, or (a replay) the tree shown does.
        let observer = |n: u32| {
            run.is_observer(watched, n)
                || self
                    .debugger
                    .shown(id_of(n))
                    .and_then(|shown| tree.node(&shown))
                    .is_some_and(|node| {
                        node.fields.get("aborts_lower").and_then(|v| v.as_bool()) == Some(true)
                    })
        };
        let ids: Vec<&str> = events.iter().map(|e| e.node.map_or("", id_of)).collect();
        // Each node named once a frame, however many of its events the log shows.
        let named: std::cell::RefCell<foldhash::HashMap<u32, String>> = Default::default();
        let title = |n: u32| {
            named
                .borrow_mut()
                .entry(n)
                .or_insert_with(|| node_name(&self.debugger, tree, run, watched, n))
                .clone()
        };
        let selected = selected.map(|s| self.debugger.traced(s));
        let mut clicked = None;
        // As tall as the panel leaves room for, its newest line in view.
        let room = (ui.clip_rect().bottom() - ui.cursor().top() - 8.0).max(48.0);
        egui::ScrollArea::vertical()
            .id_salt("event-log")
            .max_height(room)
            .stick_to_bottom(true)
            .auto_shrink([false, true])
            .show(ui, |ui| {
                let mut last_step = None;
                for (i, e) in events.iter().enumerate() {
                    if !self.filter.keeps(&events, i, &observer)
                        || (self.only_selected && selected.as_deref().is_none_or(|s| s != ids[i]))
                    {
                        continue;
                    }
                    let step = e.step.max(1);
                    if last_step != Some(step) {
                        ui.label(
                            RichText::new(format!("step {step}"))
                                .weak()
                                .size(PANEL_TEXT),
                        );
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
                        egui::Label::new(RichText::new(text).size(PANEL_TEXT).color(colour))
                            .sense(egui::Sense::click()),
                    );
                    if r.clicked() && !ids[i].is_empty() {
                        clicked = Some(ids[i].to_owned());
                    }
                }
            });
        if let Some(id) = clicked.and_then(|id| self.debugger.shown(&id)) {
            self.asks.push(Change::Focus(id));
        }
    }

    /// The arena, one square a tile: a click on an agent watches it, hovering names what
    /// is there, and the watched agent's context entities are joined to it by a line.
    fn arena_ui(&mut self, ui: &mut egui::Ui, room: egui::Vec2, max_tile: f32) {
        let Some(sim) = self.debugger.sim() else {
            let note = if self.debugger.live_game().is_some() {
                "A game's run:\nits world is the\ngame's to draw"
            } else {
                "A recorded run:\nthe trace holds\nno world to draw"
            };
            if self.debugger.is_replay() {
                ui.label(RichText::new(note).weak());
            }
            return;
        };
        let world = sim.world();
        let (w, h) = (world.width().max(1) as f32, world.height().max(1) as f32);
        // As large as `room` (the panel's or the window's), tiles of at most `max_tile`.
        let tile = (room.y / h).min(room.x / w).clamp(4.0, max_tile);
        let (rect, response) =
            ui.allocate_exact_size(egui::vec2(w * tile, h * tile), egui::Sense::click());
        response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Other, true, "Arena"));
        let at = |x: f32, y: f32| rect.min + egui::vec2((x + 0.5) * tile, (y + 0.5) * tile);
        draw_arena(ui, sim, self.debugger.watched(), rect, tile);
        // The watched agent's targets: every entity in its context.
        let watched_agent = sim
            .agents()
            .nth(self.debugger.watched())
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
            self.asks.push(Change::Sim(SimChange::Watch(i)));
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

/// How the panel names node `n` of agent `agent` of `run` (numbered as [`Source::log`]
/// numbers them): by its title, or by its kind and id where it has none ("GoTo
/// `go_food`"), as the tree shown has it; else (a node of a SubTree, or of the tree around
/// the SubTree shown) as the run's files have it; else by its trace id.
fn node_name(debugger: &Debugger, tree: &Tree, run: &Source, agent: usize, n: u32) -> String {
    let id = run.node_id(agent, n).unwrap_or("");
    match debugger.shown(id).and_then(|shown| tree.node(&shown)) {
        Some(node) => crate::model::names::spoken(&node.kind, node.id.as_str(), &node.title),
        None => run.node_name(agent, n).unwrap_or_else(|| id.to_owned()),
    }
}

/// Agents named in a line: the first few, then how many more.
fn named(agents: &[String]) -> String {
    let mut text = agents
        .iter()
        .take(NAMED_AGENTS)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if agents.len() > NAMED_AGENTS {
        text += &format!(" and {} more", agents.len() - NAMED_AGENTS);
    }
    text
}

/// `n` with its thousands grouped: `500,000`.
pub(super) fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}
