//! The status line and the session's messages: a message shows in the status line for a
//! few seconds, then the line says "Ready"; a problem stays until another message comes or
//! the list is opened. Every message stays in the list that View > Messages… (or a click
//! on the status line) opens.

use eframe::egui::{self, Color32, RichText};

/// How long a message stays in the status line, in seconds.
pub const SHOWN_FOR: f64 = 8.0;

/// How many messages the list keeps (the oldest go first).
const KEPT: usize = 200;

/// How many characters of a message are kept: one that names thousands of things is cut
/// there, saying how much more there was.
const MESSAGE_CHARS: usize = 2_000;

/// Names in a message: all of them when there are three or fewer, else the first three and
/// how many more (`a, b, c and 19,997 more`), so that a message naming thousands of kinds
/// or files stays one short line. `names` holds at least the first three of `total`.
pub fn a_few(names: &[&str], total: usize) -> String {
    const NAMED: usize = 3;
    if total <= NAMED {
        return names[..total.min(names.len())].join(", ");
    }
    format!(
        "{} and {} more",
        names[..NAMED.min(names.len())].join(", "),
        super::simulate::grouped((total - NAMED) as u64)
    )
}

/// What a message is about, for its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Something done.
    Info,
    /// Something refused or failed.
    Problem,
}

/// The session's messages, newest last.
#[derive(Default)]
pub struct Messages {
    list: Vec<(f64, Level, String)>,
    /// The time of the frame being drawn.
    now: f64,
    /// The list window is open.
    pub open: bool,
    /// The list was opened since the newest message came.
    seen: bool,
}

impl Messages {
    /// Adds a message, shown at once.
    pub fn say(&mut self, level: Level, text: impl Into<String>) {
        let mut text = text.into();
        if text.is_empty() {
            return;
        }
        if let Some((cut, _)) = text.char_indices().nth(MESSAGE_CHARS) {
            let more = text[cut..].chars().count();
            text.truncate(cut);
            text.push_str(&format!("… ({more} characters more)"));
        }
        self.list.push((self.now, level, text));
        self.seen = false;
        if self.list.len() > KEPT {
            self.list.remove(0);
        }
    }

    /// The message in the status line now: the newest, unless it has expired.
    pub fn current(&self) -> Option<&str> {
        self.shown().map(|(_, t)| t)
    }

    /// The newest message and its level while the status line shows it: a problem until
    /// the list is opened (or another message comes), anything else for [`SHOWN_FOR`].
    fn shown(&self) -> Option<(Level, &str)> {
        let (at, level, text) = self.list.last()?;
        let fresh = self.now - at < SHOWN_FOR;
        let unread = *level == Level::Problem && !self.seen;
        (fresh || unread).then_some((*level, text.as_str()))
    }

    /// Every message kept, oldest first.
    pub fn all(&self) -> impl Iterator<Item = &str> {
        self.list.iter().map(|(_, _, t)| t.as_str())
    }

    /// The newest message, expired or not.
    pub fn last(&self) -> Option<&str> {
        self.list.last().map(|(_, _, t)| t.as_str())
    }

    /// The status line: the current message or "Ready"; a click opens the list.
    pub fn status_ui(&mut self, ui: &mut egui::Ui) {
        self.now = ui.input(|i| i.time);
        ui.horizontal(|ui| {
            let (level, text) = self.shown().unwrap_or((Level::Info, "Ready"));
            let text = RichText::new(text).color(colour(level, ui));
            let line = ui
                .add(
                    egui::Label::new(text)
                        .truncate()
                        .sense(egui::Sense::click()),
                )
                .on_hover_text("Click to see every message of this session");
            if line.clicked() {
                self.open = true;
            }
            if let Some((at, _, _)) = self.list.last() {
                let left = SHOWN_FOR - (self.now - at);
                if left > 0.0 {
                    ui.ctx()
                        .request_repaint_after(std::time::Duration::from_secs_f64(left));
                }
            }
        });
    }

    /// The list of messages, when open.
    pub fn window_ui(&mut self, ctx: &egui::Context) {
        let mut open = self.open;
        if open {
            self.seen = true;
        }
        egui::Window::new("Messages")
            .open(&mut open)
            .default_size([520.0, 300.0])
            .show(ctx, |ui| {
                if self.list.is_empty() {
                    ui.label("No messages yet.");
                }
                egui::ScrollArea::vertical()
                    .stick_to_bottom(true)
                    .auto_shrink([false, false])
                    .show(ui, |ui| {
                        for (at, level, text) in &self.list {
                            ui.label(
                                RichText::new(format!("{at:>7.1} s  {text}"))
                                    .color(colour(*level, ui)),
                            );
                        }
                    });
            });
        self.open = open;
    }
}

fn colour(level: Level, ui: &egui::Ui) -> Color32 {
    match level {
        Level::Info => ui.visuals().text_color(),
        Level::Problem => Color32::from_rgb(235, 120, 90),
    }
}
