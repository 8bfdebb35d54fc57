//! Find Node (Ctrl+F): a field over the canvas that finds nodes by id, title or kind.
//! Typing selects and centres the first match; Enter (or Next) steps to the next one,
//! Shift+Enter (or Previous) back; Escape (or Close) closes it.

use eframe::egui::{self, Key};

use crate::model::{NodeId, Tree};

/// The find bar's state.
#[derive(Default)]
pub struct Find {
    /// Shown.
    pub open: bool,
    query: String,
    /// The match shown, by its place among the matches.
    at: usize,
    /// Give the field the keyboard at the next frame.
    focus: bool,
    /// How far down the canvas the bar reaches (points from its top), as last drawn.
    reach: f32,
}

/// What the find bar asks of the app: a node to select and centre.
pub type Found = Option<NodeId>;

impl Find {
    /// Opens the bar with the keyboard in its field (the last query kept).
    pub fn show(&mut self) {
        self.open = true;
        self.focus = true;
    }

    /// Closes the bar when Escape is pressed while it is open (the key is taken).
    pub fn take_escape(&mut self, ctx: &egui::Context) {
        if self.open && ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, Key::Escape)) {
            self.open = false;
        }
    }

    /// The nodes whose id, title or kind contains every typed word (any case), in file
    /// order.
    pub fn matches(tree: &Tree, query: &str) -> Vec<NodeId> {
        let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        if words.is_empty() {
            return Vec::new();
        }
        tree.nodes()
            .iter()
            .filter(|n| {
                let text = format!("{} {} {}", n.id, n.title, n.kind).to_lowercase();
                words.iter().all(|w| text.contains(w.as_str()))
            })
            .map(|n| n.id.clone())
            .collect()
    }

    /// Draws the bar over the canvas area `over`; returns the node to select and centre.
    pub fn ui(&mut self, ctx: &egui::Context, over: egui::Rect, tree: &Tree) -> Found {
        if !self.open {
            return None;
        }
        let mut found = None;
        let shown = egui::Area::new(egui::Id::new("find-node"))
            .order(egui::Order::Foreground)
            .fixed_pos(over.center_top() + egui::vec2(-230.0, 8.0))
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    ui.horizontal(|ui| {
                        let label = ui.label("Find node");
                        let field = ui
                            .add(
                                egui::TextEdit::singleline(&mut self.query)
                                    .hint_text("id, title or kind")
                                    .desired_width(180.0),
                            )
                            .labelled_by(label.id);
                        if std::mem::take(&mut self.focus) {
                            field.request_focus();
                        }
                        let matches = Self::matches(tree, &self.query);
                        let count = matches.len();
                        if field.changed() {
                            self.at = 0;
                            found = matches.first().cloned();
                        }
                        // A single-line field gives up the keyboard on Enter and Escape.
                        let (enter, shift) =
                            ui.input(|i| (i.key_pressed(Key::Enter), i.modifiers.shift));
                        let stepped = field.lost_focus() && enter;
                        ui.label(match count {
                            0 if self.query.trim().is_empty() => String::new(),
                            0 => "no match".to_owned(),
                            n => format!("{} of {n}", self.at.min(n - 1) + 1),
                        });
                        let previous = ui
                            .add_enabled(count > 1, egui::Button::new("Previous"))
                            .on_hover_text("The match before (Shift+Enter)")
                            .clicked();
                        let next = ui
                            .add_enabled(count > 1, egui::Button::new("Next"))
                            .on_hover_text("The next match (Enter)")
                            .clicked();
                        if count > 0 && ((stepped && !shift) || next) {
                            self.at = (self.at + 1) % count;
                            found = matches.get(self.at).cloned();
                        }
                        if count > 0 && ((stepped && shift) || previous) {
                            self.at = (self.at + count - 1) % count;
                            found = matches.get(self.at).cloned();
                        }
                        if stepped {
                            field.request_focus();
                        }
                        if ui.button("Close").on_hover_text("Esc").clicked() {
                            self.open = false;
                        }
                    });
                });
            });
        self.reach = shown.response.rect.bottom() - over.top() + 8.0;
        found.filter(|id| tree.contains(id))
    }

    /// How far down the canvas the bar covers it (points), 0 when it is closed: what the
    /// canvas fits its views below.
    pub fn covers(&self) -> f32 {
        if self.open { self.reach } else { 0.0 }
    }
}

/// The kind Enter adds from `names`, the kinds that match `query` in the order listed:
/// the one named `query` (in any case), else the shortest name that starts with it (the
/// first of equal ones), else the first: `wai` adds Wait, not WaitValueUpdate listed
/// before it.
pub(crate) fn best_kind<'a>(
    names: impl IntoIterator<Item = &'a str>,
    query: &str,
) -> Option<&'a str> {
    let query = query.trim().to_lowercase();
    let names: Vec<&str> = names.into_iter().collect();
    let lower = |n: &str| n.to_lowercase();
    names
        .iter()
        .find(|n| lower(n) == query)
        .or_else(|| {
            names
                .iter()
                .filter(|n| lower(n).starts_with(&query))
                .min_by_key(|n| n.len())
        })
        .or(names.first())
        .copied()
}
