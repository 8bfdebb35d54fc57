//! Every command of the editor, in one table: its label, shortcuts, tooltip and menu.
//! Menus, key handling, context menus, buttons and the command palette all read this
//! table and queue a [`Command`]; the app applies the queue in one place after drawing,
//! so a shortcut shown in a menu is the one that runs it.

use eframe::egui::{self, Key, KeyboardShortcut, Modifiers};

use crate::model::{Catalog, NodeId, Tree};

/// One thing the user can ask the editor to do, declared in menu order: menus, the
/// palette and the help list them in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::VariantArray)]
pub enum Command {
    /// A new, empty tree.
    New,
    /// Open a tree file.
    Open,
    /// Save the tree to its file (asks for a name when it has none).
    Save,
    /// Save the tree under a new name.
    SaveAs,
    /// Open a scenario to run the tree in.
    OpenScenario,
    /// Replay a recorded trace on the tree it names.
    OpenTrace,
    /// Watch a running BehaviorTree.CPP program through its Groot2Publisher.
    AttachProgram,
    /// Write what the game shown live sent as a trace file.
    SaveRecording,
    /// Open the selected SubTree's asset (while the tree runs, the run goes on).
    OpenSubTree,
    /// Close the window (asking first about unsaved changes).
    Quit,
    /// Undo the last edit.
    Undo,
    /// Redo the last undone edit.
    Redo,
    /// Copy the selection to the clipboard and remove it.
    Cut,
    /// Copy the selection to the clipboard.
    Copy,
    /// Paste nodes from the clipboard at the pointer.
    Paste,
    /// Copy the selection in place, beside the originals.
    Duplicate,
    /// Remove the selected nodes.
    Delete,
    /// Select every node.
    SelectAll,
    /// Clear the selection (and close the palette).
    SelectNone,
    /// Add every node below the selected ones to the selection.
    SelectSubtree,
    /// Find a node by id, title or kind, and step through the matches.
    FindNode,
    /// Unlink the selected nodes from their parents.
    Disconnect,
    /// Hide or show what hangs below the selected nodes.
    ToggleCollapse,
    /// Declare the keys the tree uses (it declares none), typed by their writers.
    DeclareKeys,
    /// Show every node.
    ZoomToFit,
    /// Show the selected nodes.
    ZoomToSelection,
    /// Zoom in around the view's centre.
    ZoomIn,
    /// Zoom out around the view's centre.
    ZoomOut,
    /// Zoom to 100 %.
    ZoomReset,
    /// Lay the tree out: Root on the right, children top to bottom in slot order.
    Arrange,
    /// Show or hide the minimap.
    ToggleMinimap,
    /// Show or hide how often each node ran in the run being debugged, as heat.
    CoverageOfRun,
    /// Show the counts of a coverage file (`arbor coverage --json`) as heat.
    CoverageFromFile,
    /// Stop showing coverage.
    HideCoverage,
    /// Find and run any command by name.
    CommandPalette,
    /// Show the messages of this session.
    ShowMessages,
    /// One simulation step (forward through the history when a past step is shown).
    SimStep,
    /// Ten simulation steps.
    SimStep10,
    /// Step until the watched agent's running leaf changes or a breakpoint hits.
    SimUntilChange,
    /// Show the step before.
    SimBack,
    /// Run or pause the simulation.
    SimRunPause,
    /// Start the simulation over.
    SimReset,
    /// Show a step of the run by its number.
    GoToStep,
    /// Set or clear a breakpoint on the selected node.
    ToggleBreakpoint,
    /// Go to the next step where a breakpoint on the tree shown hits.
    NextHit,
    /// Go back to the last step before the shown one where a breakpoint hits.
    PreviousHit,
    /// Back from a SubTree's asset to the tree the run runs.
    BackToRunTree,
    /// Drop the games whose connection ended from the Game list.
    ClearEndedGames,
    /// Put this editor's live address and token on the clipboard, as `ARBOR_LIVE` takes it.
    CopyLiveAddress,
    /// List every command with its shortcuts.
    ShowHelp,
}

/// The menu a command is listed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Menu {
    /// File.
    File,
    /// Edit.
    Edit,
    /// View.
    View,
    /// Simulation.
    Simulation,
    /// Help.
    Help,
}

impl Menu {
    /// Every menu, in menu-bar order.
    pub const ALL: [Menu; 5] = [
        Menu::File,
        Menu::Edit,
        Menu::View,
        Menu::Simulation,
        Menu::Help,
    ];

    /// The menu's title.
    pub fn label(self) -> &'static str {
        match self {
            Menu::File => "File",
            Menu::Edit => "Edit",
            Menu::View => "View",
            Menu::Simulation => "Simulation",
            Menu::Help => "Help",
        }
    }
}

const fn key(modifiers: Modifiers, logical_key: Key) -> KeyboardShortcut {
    KeyboardShortcut::new(modifiers, logical_key)
}
const CMD: Modifiers = Modifiers::COMMAND;
const CMD_SHIFT: Modifiers = Modifiers::COMMAND.plus(Modifiers::SHIFT);
const NONE: Modifiers = Modifiers::NONE;

impl Command {
    /// Every command, in menu order (the enum's).
    pub const ALL: &'static [Command] = <Command as strum::VariantArray>::VARIANTS;

    /// The command's name, as in menus and the palette.
    pub fn label(self) -> &'static str {
        match self {
            Command::New => "New",
            Command::Open => "Open…",
            Command::Save => "Save",
            Command::SaveAs => "Save As…",
            Command::OpenScenario => "Open Scenario…",
            Command::OpenTrace => "Open Trace…",
            Command::AttachProgram => "Attach to BehaviorTree.CPP…",
            Command::SaveRecording => "Save Recording…",
            Command::OpenSubTree => "Open SubTree",
            Command::Quit => "Quit",
            Command::ShowHelp => "Commands and Shortcuts…",
            Command::BackToRunTree => "Back to the Running Tree",
            Command::Undo => "Undo",
            Command::Redo => "Redo",
            Command::Cut => "Cut",
            Command::Copy => "Copy",
            Command::Paste => "Paste",
            Command::Duplicate => "Duplicate",
            Command::Delete => "Delete",
            Command::SelectAll => "Select All",
            Command::SelectNone => "Select None",
            Command::SelectSubtree => "Select Subtree",
            Command::FindNode => "Find Node…",
            Command::Disconnect => "Disconnect",
            Command::ToggleCollapse => "Collapse / Expand Subtree",
            Command::DeclareKeys => "Declare the Keys This Tree Uses",
            Command::ZoomToFit => "Zoom to Fit",
            Command::ZoomToSelection => "Zoom to Selection",
            Command::ZoomIn => "Zoom In",
            Command::ZoomOut => "Zoom Out",
            Command::ZoomReset => "Zoom to 100 %",
            Command::Arrange => "Arrange",
            Command::ToggleMinimap => "Minimap",
            Command::CoverageOfRun => "Coverage of the Run",
            Command::CoverageFromFile => "Coverage from File…",
            Command::HideCoverage => "Hide Coverage",
            Command::CommandPalette => "Command Palette…",
            Command::ShowMessages => "Messages…",
            Command::SimStep => "Step",
            Command::SimStep10 => "Step ×10",
            Command::SimUntilChange => "Run Until Something Changes",
            Command::SimBack => "Step Back",
            Command::SimRunPause => "Run / Pause",
            Command::SimReset => "Reset",
            Command::ClearEndedGames => "Clear Ended Games",
            Command::CopyLiveAddress => "Copy Live Address",
            Command::ToggleBreakpoint => "Toggle Breakpoint",
            Command::GoToStep => "Go to Step…",
            Command::NextHit => "Next Breakpoint Hit",
            Command::PreviousHit => "Previous Breakpoint Hit",
        }
    }

    /// What the command does, for tooltips and the palette.
    pub fn tooltip(self) -> &'static str {
        match self {
            Command::New => "Start a new tree: a Root, to build from",
            Command::Open => "Open a tree file",
            Command::Save => "Save the tree to its file",
            Command::SaveAs => "Save the tree under a new name",
            Command::OpenScenario => "Open a world (arbor.scenario) to run this tree in",
            Command::OpenTrace => {
                "Replay a recorded run (arbor run --trace, or your game's trace) on the tree it names"
            }
            Command::OpenSubTree => {
                "Open the selected SubTree's tree; a run goes on, lighting the tree's nodes"
            }
            Command::AttachProgram => {
                "Watch a running BehaviorTree.CPP program through its Groot2Publisher (its port, or HOST:PORT), lit live"
            }
            Command::SaveRecording => {
                "Write what the game or program shown live sent (as much as the editor keeps) as a trace file, to replay and count later"
            }
            Command::BackToRunTree => "Show the tree the run runs again, from a SubTree's tree",
            Command::Quit => "Close Arbor (unsaved changes are asked about first)",
            Command::ShowHelp => {
                "Every command, its shortcuts and what it does (F1 or Esc closes it)"
            }
            Command::Undo => "Undo the last edit",
            Command::Redo => "Redo the last undone edit",
            Command::Cut => "Copy the selected nodes to the clipboard and remove them",
            Command::Copy => "Copy the selected nodes (and the links among them) to the clipboard",
            Command::Paste => {
                "Paste nodes from the clipboard at the pointer (ids already taken here are made new)"
            }
            Command::Duplicate => "Copy the selected nodes beside the originals",
            Command::Delete => "Remove the selected nodes",
            Command::SelectAll => "Select every node",
            Command::SelectNone => "Clear the selection",
            Command::SelectSubtree => "Add everything below the selected nodes to the selection",
            Command::FindNode => {
                "Find a node by id, title or kind: it is selected and centred; Enter goes to the next"
            }
            Command::Disconnect => "Unlink the selected nodes from their parents",
            Command::ToggleCollapse => "Hide or show the nodes below the selected ones",
            Command::DeclareKeys => {
                "Declare each key the tree's nodes name, typed by what writes it (else what reads it), in the Blackboard"
            }
            Command::ZoomToFit => "Show the whole tree",
            Command::ZoomToSelection => "Show the selected nodes",
            Command::ZoomIn => "Zoom in",
            Command::ZoomOut => "Zoom out",
            Command::ZoomReset => "Show the canvas at its natural size",
            Command::Arrange => {
                "Lay out the tree: Root on the right, children top to bottom in slot order"
            }
            Command::CommandPalette => "Find any command by name",
            Command::CoverageOfRun => {
                "Colour each node by how often this run entered it (red: never), with its counts; again to hide"
            }
            Command::CoverageFromFile => {
                "Colour each node by the counts of a coverage file (arbor coverage --json > FILE)"
            }
            Command::HideCoverage => "Show the nodes in their own colours again",
            Command::ToggleMinimap => {
                "Show or hide the whole tree small in the canvas's corner (a click there moves the view)"
            }
            Command::ShowMessages => "Every message of this session",
            Command::SimStep => "Advance the simulation by one step of 0.1 s",
            Command::SimStep10 => "Advance the simulation by ten steps (a breakpoint stops it)",
            Command::SimUntilChange => {
                "Step until the watched agent's running leaf changes or a breakpoint hits"
            }
            Command::SimBack => "Show the step before, rebuilt from the run's history",
            Command::SimRunPause => {
                "Run the simulation, or pause it (a game shown live: hold its agents, or let them go)"
            }
            Command::SimReset => "Start the simulation over from the scenario's first state",
            Command::ClearEndedGames => "Drop the games whose connection ended from the Game list",
            Command::CopyLiveAddress => {
                "Copy ARBOR_LIVE=PORT/TOKEN: a game started with it connects to this editor"
            }
            Command::ToggleBreakpoint => {
                "Pause the run when the selected node is entered (set or clear)"
            }
            Command::GoToStep => {
                "Type a step number and show that step: a live run is rebuilt or run on to it, a recording shows its last step for one past its end"
            }
            Command::NextHit => {
                "Go to the next step where a breakpoint on this tree hits (a live run steps on, 10,000 steps at most)"
            }
            Command::PreviousHit => {
                "Go back to the last step before this one where a breakpoint on this tree hits"
            }
        }
    }

    /// The keys that run the command; the first is the one shown in menus.
    pub fn shortcuts(self) -> &'static [KeyboardShortcut] {
        const fn one(k: KeyboardShortcut) -> [KeyboardShortcut; 1] {
            [k]
        }
        match self {
            Command::New => &const { one(key(CMD, Key::N)) },
            Command::Open => &const { one(key(CMD, Key::O)) },
            Command::Save => &const { one(key(CMD, Key::S)) },
            Command::SaveAs => &const { one(key(CMD_SHIFT, Key::S)) },
            Command::OpenScenario => &[],
            Command::OpenTrace | Command::AttachProgram | Command::SaveRecording => &[],
            Command::OpenSubTree => &const { one(key(CMD, Key::Enter)) },
            Command::Quit => &const { one(key(CMD, Key::Q)) },
            Command::ShowHelp => &const { one(key(NONE, Key::F1)) },
            Command::BackToRunTree => &const { one(key(CMD, Key::Backspace)) },
            Command::Undo => &const { one(key(CMD, Key::Z)) },
            Command::Redo => &const { [key(CMD_SHIFT, Key::Z), key(CMD, Key::Y)] },
            Command::Cut => &const { one(key(CMD, Key::X)) },
            Command::Copy => &const { one(key(CMD, Key::C)) },
            Command::Paste => &const { one(key(CMD, Key::V)) },
            Command::Duplicate => &const { one(key(CMD, Key::D)) },
            Command::Delete => &const { [key(NONE, Key::Delete), key(NONE, Key::Backspace)] },
            Command::SelectAll => &const { one(key(CMD, Key::A)) },
            Command::SelectNone => &const { one(key(NONE, Key::Escape)) },
            Command::SelectSubtree => &[],
            Command::FindNode => &const { one(key(CMD, Key::F)) },
            Command::Disconnect => &[],
            Command::ToggleCollapse => &[],
            Command::DeclareKeys => &[],
            Command::ZoomToFit => &const { one(key(NONE, Key::F)) },
            Command::ZoomToSelection => &const { one(key(Modifiers::SHIFT, Key::F)) },
            Command::ZoomIn => &const { [key(CMD, Key::Plus), key(CMD, Key::Equals)] },
            Command::ZoomOut => &const { one(key(CMD, Key::Minus)) },
            Command::ZoomReset => &const { one(key(CMD, Key::Num0)) },
            Command::Arrange => &const { one(key(CMD, Key::L)) },
            Command::ToggleMinimap => &const { one(key(NONE, Key::M)) },
            Command::CoverageOfRun => &[],
            Command::CoverageFromFile => &[],
            Command::HideCoverage => &[],
            Command::CommandPalette => &const { one(key(CMD_SHIFT, Key::P)) },
            Command::ShowMessages => &[],
            Command::SimStep => {
                &const {
                    [
                        key(NONE, Key::N),
                        key(NONE, Key::ArrowRight),
                        key(Modifiers::SHIFT, Key::ArrowRight),
                    ]
                }
            }
            Command::SimStep10 => &[],
            Command::SimUntilChange => &[],
            Command::SimBack => &const { one(key(Modifiers::SHIFT, Key::ArrowLeft)) },
            Command::SimRunPause => &const { one(key(NONE, Key::Space)) },
            Command::SimReset => &[],
            Command::ClearEndedGames => &[],
            Command::CopyLiveAddress => &[],
            Command::ToggleBreakpoint => &const { one(key(NONE, Key::F9)) },
            Command::GoToStep => &const { one(key(CMD, Key::G)) },
            Command::NextHit => &const { one(key(NONE, Key::F8)) },
            Command::PreviousHit => &const { one(key(Modifiers::SHIFT, Key::F8)) },
        }
    }

    /// The menu the command is listed in.
    pub fn menu(self) -> Menu {
        use Command::*;
        match self {
            New | Open | Save | SaveAs | OpenScenario | OpenTrace | AttachProgram
            | SaveRecording | OpenSubTree | Quit => Menu::File,
            Undo | Redo | Cut | Copy | Paste | Duplicate | Delete | SelectAll | SelectNone
            | SelectSubtree | FindNode | Disconnect | ToggleCollapse | DeclareKeys => Menu::Edit,
            ZoomToFit | ZoomToSelection | ZoomIn | ZoomOut | ZoomReset | Arrange
            | ToggleMinimap | CoverageOfRun | CoverageFromFile | HideCoverage | CommandPalette
            | ShowMessages => Menu::View,
            SimStep | SimStep10 | SimUntilChange | SimBack | SimRunPause | SimReset | GoToStep
            | ClearEndedGames | CopyLiveAddress | ToggleBreakpoint | NextHit | PreviousHit
            | BackToRunTree => Menu::Simulation,
            ShowHelp => Menu::Help,
        }
    }

    /// Whether a separator comes before the command in its menu.
    pub fn starts_group(self) -> bool {
        use Command::*;
        matches!(
            self,
            OpenScenario
                | Quit
                | Cut
                | SelectAll
                | DeclareKeys
                | ZoomIn
                | Arrange
                | SimReset
                | GoToStep
                | ToggleBreakpoint
                | BackToRunTree
                | ClearEndedGames
        )
    }

    /// Whether this command, one that acts on nodes, can act on `on.nodes` (the selection,
    /// or the node of a right-click menu); `None` for a command that does not act on
    /// nodes. The one rule both the menus and the node's menu follow.
    pub fn enabled_on(self, on: &OnNodes<'_>) -> Option<bool> {
        use Command::*;
        let some = !on.nodes.is_empty();
        Some(match self {
            Cut | Copy | Duplicate | Delete | SelectSubtree | ZoomToSelection | ToggleCollapse => {
                some
            }
            Disconnect => on.nodes.iter().any(|id| on.tree.parent_of(id).is_some()),
            ToggleBreakpoint => some && on.debugging,
            OpenSubTree => {
                matches!(on.nodes, [id] if subtree_asset(on.tree, on.catalog, id).is_some())
            }
            _ => return None,
        })
    }

    /// Whether the command also acts on a node from its right-click menu.
    pub fn in_node_menu(self) -> bool {
        use Command::*;
        matches!(
            self,
            Cut | Copy
                | Duplicate
                | Delete
                | Disconnect
                | SelectSubtree
                | ToggleCollapse
                | ZoomToSelection
                | ToggleBreakpoint
                | OpenSubTree
        )
    }

    /// Whether its shortcut works while a text field has the keyboard: file commands and
    /// the palette do; the others leave the keys to the field (Ctrl+C copies its text).
    pub fn works_while_typing(self) -> bool {
        use Command::*;
        matches!(self, New | Open | Save | SaveAs | CommandPalette | Quit)
    }

    /// The shortcut as shown in menus and the palette, e.g. "Ctrl+Shift+S".
    pub fn shortcut_text(self, ctx: &egui::Context) -> Option<String> {
        self.shortcuts().first().map(|s| ctx.format_shortcut(s))
    }
}

/// Whether a command can run now.
pub trait Enabled {
    /// Whether `command` can run in the current state.
    fn enabled(&self, command: Command) -> bool;
}

/// The commands whose shortcuts were pressed in this frame, in table order; their keys are
/// consumed. While a text field has the keyboard only [`Command::works_while_typing`] ones
/// are taken; while a menu or popup is open, Esc is its own (it closes it). Cut, Copy and Paste also come as the events the platform sends for them
/// (Ctrl+X / C / V never reach egui as keys); a pasted text is returned with them.
///
/// Space runs [`Command::SimRunPause`] when it is let go, unless it was held to pan the
/// canvas (`space_panned`).
pub fn pressed(ctx: &egui::Context, space_panned: bool) -> (Vec<Command>, Option<String>) {
    let typing = ctx.egui_wants_keyboard_input();
    let popup = egui::Popup::is_any_open(ctx);
    let mut found = Vec::new();
    let mut pasted = None;
    ctx.input_mut(|i| {
        if !typing {
            for event in &i.events {
                match event {
                    egui::Event::Cut => found.push(Command::Cut),
                    egui::Event::Copy => found.push(Command::Copy),
                    egui::Event::Paste(text) => {
                        found.push(Command::Paste);
                        pasted = Some(text.clone());
                    }
                    _ => {}
                }
            }
        }
        // Longer shortcuts first, so Ctrl+Shift+S is not taken as Ctrl+S.
        let mut table: Vec<(Command, KeyboardShortcut)> = Command::ALL
            .iter()
            .flat_map(|&c| c.shortcuts().iter().map(move |&s| (c, s)))
            .filter(|(c, _)| !typing || c.works_while_typing())
            .filter(|(_, s)| !(popup && s.logical_key == Key::Escape))
            .collect();
        table.sort_by_key(|(_, s)| std::cmp::Reverse(modifier_count(s.modifiers)));
        for (command, shortcut) in table {
            if command == Command::SimRunPause {
                i.consume_shortcut(&shortcut);
                if i.key_released(Key::Space) && i.modifiers.is_none() && !space_panned {
                    found.push(command);
                }
                continue;
            }
            if i.consume_shortcut(&shortcut) && !found.contains(&command) {
                found.push(command);
            }
        }
    });
    found.sort_by_key(|c| Command::ALL.iter().position(|a| a == c));
    (found, pasted)
}

/// How well the typed word `word` matches a command's `label` and `tooltip` (both in
/// lower case): higher is better, `None` when it is in neither.
fn word_rank(label: &str, tooltip: &str, word: &str) -> Option<u32> {
    let mut label_words = label.split(|c: char| !c.is_alphanumeric());
    if label_words.clone().any(|l| l == word) {
        Some(8)
    } else if label_words.any(|l| l.starts_with(word)) {
        Some(4)
    } else if label.contains(word) {
        Some(3)
    } else if tooltip.contains(word) {
        Some(2)
    } else {
        let mut letters = label.chars();
        word.chars().all(|w| letters.any(|l| l == w)).then_some(1)
    }
}

fn modifier_count(m: Modifiers) -> u8 {
    u8::from(m.alt) + u8::from(m.shift) + u8::from(m.command || m.ctrl || m.mac_cmd)
}

/// A menu button for `command`: its label, its shortcut, its tooltip, greyed out when it
/// cannot run. Returns true when clicked.
pub fn menu_item_ui(ui: &mut egui::Ui, command: Command, enabled: bool) -> bool {
    let mut button = egui::Button::new(command.label());
    if let Some(text) = command.shortcut_text(ui.ctx()) {
        button = button.shortcut_text(text);
    }
    ui.add_enabled(enabled, button)
        .on_hover_text(command.tooltip())
        .clicked()
}

/// The list of every command (Help > Commands and Shortcuts…): by menu, each with its
/// shortcuts and what it does, from this table. `open` is cleared when it is closed.
pub fn help_ui(ctx: &egui::Context, open: &mut bool) {
    if !*open {
        return;
    }

    let height = (ctx.content_rect().height() - 80.0).clamp(240.0, 620.0);
    egui::Window::new("Commands and Shortcuts")
        .open(open)
        .pivot(egui::Align2::CENTER_CENTER)
        .default_pos(ctx.content_rect().center())
        .fixed_size([740.0, height])
        .collapsible(false)
        .show(ctx, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                // One grid for every menu, so the columns line up from menu to menu.
                egui::Grid::new("help")
                    .num_columns(3)
                    .striped(true)
                    .spacing([16.0, 4.0])
                    .min_col_width(150.0)
                    .show(ui, |ui| {
                        for menu in Menu::ALL {
                            ui.label(egui::RichText::new(menu.label()).heading());
                            ui.end_row();
                            for c in Command::ALL.iter().filter(|c| c.menu() == menu) {
                                ui.label(c.label());
                                let keys: Vec<String> = c
                                    .shortcuts()
                                    .iter()
                                    .map(|s| ctx.format_shortcut(s))
                                    .collect();
                                ui.label(egui::RichText::new(keys.join("  or  ")).monospace());
                                ui.add(egui::Label::new(c.tooltip()).wrap());
                                ui.end_row();
                            }
                        }
                    });
            });
        });
}

/// The command palette's state: open, what is typed, which match is highlighted.
#[derive(Default)]
pub struct Palette {
    /// Shown.
    pub open: bool,
    query: String,
    highlighted: usize,
    focus: bool,
}

impl Palette {
    /// Opens the palette, empty, with the keyboard in its field.
    pub fn show(&mut self) {
        *self = Self {
            open: true,
            focus: true,
            ..Self::default()
        };
    }

    /// The commands that match every typed word (any case), best first, ties in table
    /// order. A word ranks a command by where it is found: a whole word of its label, then
    /// the start of one, then elsewhere in the label, then in its tooltip, then as letters
    /// of its label in order ("tgbp": Toggle Breakpoint).
    pub fn matches(query: &str) -> Vec<Command> {
        let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        let mut found: Vec<(u32, Command)> = Command::ALL
            .iter()
            .copied()
            .filter(|c| *c != Command::CommandPalette)
            .filter_map(|c| {
                let label = c.label().to_lowercase();
                let tooltip = c.tooltip().to_lowercase();
                let scores = words.iter().map(|w| word_rank(&label, &tooltip, w));
                scores.sum::<Option<u32>>().map(|score| (score, c))
            })
            .collect();
        found.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
        found.into_iter().map(|(_, c)| c).collect()
    }

    /// Draws the palette; returns the command chosen (Enter or a click).
    pub fn ui(&mut self, ctx: &egui::Context, enabled: &dyn Enabled) -> Option<Command> {
        if !self.open {
            return None;
        }
        let mut chosen = None;
        let modal = egui::Modal::new(egui::Id::new("command-palette")).show(ctx, |ui| {
            ui.set_width(460.0);
            let title = ui.label(egui::RichText::new("Command palette").strong());
            let field = ui
                .add(
                    egui::TextEdit::singleline(&mut self.query)
                        .hint_text("Type a command")
                        .desired_width(f32::INFINITY),
                )
                .labelled_by(title.id);
            if std::mem::take(&mut self.focus) {
                field.request_focus();
            }
            if field.changed() {
                self.highlighted = 0;
            }
            let found = Self::matches(&self.query);
            let (down, up, enter) = ui.input_mut(|i| {
                (
                    i.consume_key(Modifiers::NONE, Key::ArrowDown),
                    i.consume_key(Modifiers::NONE, Key::ArrowUp),
                    i.consume_key(Modifiers::NONE, Key::Enter),
                )
            });
            if down {
                self.highlighted = (self.highlighted + 1).min(found.len().saturating_sub(1));
            }
            if up {
                self.highlighted = self.highlighted.saturating_sub(1);
            }
            if enter
                && let Some(&c) = found.get(self.highlighted)
                && enabled.enabled(c)
            {
                chosen = Some(c);
            }
            if found.is_empty() {
                ui.label("No command matches");
            }
            egui::ScrollArea::vertical()
                .max_height(320.0)
                .show(ui, |ui| {
                    for (n, &c) in found.iter().enumerate() {
                        let shortcut = c.shortcut_text(ui.ctx()).unwrap_or_default();
                        let text = format!("{}  ·  {}", c.label(), c.menu().label());
                        let row = ui.add_enabled(
                            enabled.enabled(c),
                            egui::Button::selectable(n == self.highlighted, text)
                                .shortcut_text(shortcut),
                        );
                        if n == self.highlighted {
                            row.scroll_to_me(None);
                        }
                        if row.on_hover_text(c.tooltip()).clicked() {
                            chosen = Some(c);
                        }
                    }
                });
        });
        if chosen.is_some() || modal.should_close() {
            self.open = false;
        }
        chosen
    }
}

/// What decides whether a command can act on nodes: the tree, the nodes, and whether a
/// run is debugged (see [`Command::enabled_on`]).
pub struct OnNodes<'a> {
    /// The tree shown.
    pub tree: &'a Tree,
    /// Its kinds.
    pub catalog: &'a Catalog,
    /// The nodes acted on.
    pub nodes: &'a [NodeId],
    /// A run is debugged (breakpoints can be set).
    pub debugging: bool,
}

/// The asset a SubTree node names, when it is a SubTree with one.
pub fn subtree_asset<'t>(tree: &'t Tree, catalog: &Catalog, id: &NodeId) -> Option<&'t str> {
    let node = tree.node(id)?;
    if catalog.category_of(&node.kind) != Some(crate::model::Category::SubTree) {
        return None;
    }
    match node.fields.get("asset") {
        Some(crate::model::Value::Text(asset)) if !asset.trim().is_empty() => Some(asset),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{Catalog, Command, OnNodes, Palette};

    #[test]
    fn every_command_of_the_node_menu_says_when_it_can_act_on_a_node() {
        let tree = crate::editor::new_tree();
        let catalog = Catalog::builtin();
        let on = OnNodes {
            tree: &tree,
            catalog: &catalog,
            nodes: &[],
            debugging: false,
        };
        for c in Command::ALL.iter().filter(|c| c.in_node_menu()) {
            assert_eq!(c.enabled_on(&on), Some(false), "{c:?} on no node");
        }
    }

    #[test]
    fn a_whole_word_of_a_label_ranks_above_its_start_above_a_tooltip_above_letters_in_order() {
        let found = Palette::matches("breakpoint");
        assert_eq!(
            found[..3],
            [
                Command::ToggleBreakpoint,
                Command::NextHit,
                Command::PreviousHit
            ]
        );
        // "Step ×10" says "breakpoint" only in its tooltip.
        assert!(found.contains(&Command::SimStep10));
        assert_eq!(Palette::matches("break")[0], Command::ToggleBreakpoint);
        assert_eq!(Palette::matches("tgbp"), [Command::ToggleBreakpoint]);
        assert_eq!(Palette::matches("go step")[0], Command::GoToStep);
        assert!(Palette::matches("qqq").is_empty());
        assert_eq!(Palette::matches("").len(), Command::ALL.len() - 1);
    }
}
