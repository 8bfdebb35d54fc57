//! The editor's settings between runs (recent files, breakpoints, the window, the zoom),
//! kept in Arbor's own settings file ([`crate::io::SettingsFile`]): read once at start,
//! every value checked, and written (atomically) within a second of a change and at exit.

use eframe::egui;

use super::EditorApp;
use crate::io::{Settings, SettingsFile, Window};

/// Seconds between two looks at whether the settings changed.
const EVERY_SECONDS: f64 = 1.0;

/// What the editor keeps of its settings file.
#[derive(Default)]
pub(super) struct Kept {
    file: Option<SettingsFile>,
    /// What the file holds (as read or last written).
    written: Option<Settings>,
    /// The window as the settings had it, for the window to open with.
    window: Option<Window>,
    /// The zoom read, to set at the first frame.
    zoom: Option<f32>,
    /// The zoom and window seen at the last frame.
    seen: (f32, Option<Window>),
    /// When (egui's clock) the settings were last compared with the file.
    checked: Option<f64>,
    /// Writing failed: said once, not each second.
    failed: bool,
}

impl EditorApp {
    /// Keeps the settings in `file`: reads them now (recent files, breakpoints, the window
    /// and zoom; a problem with the file is said in the status line and the messages), and
    /// writes them whenever they change.
    #[must_use]
    pub fn with_settings(mut self, file: SettingsFile) -> Self {
        let (read, problems) = file.load();
        for p in problems {
            self.say_problem(format!("Settings: {p}"));
        }
        self.breakpoints = crate::debug::Breakpoints::from_settings(&read.breakpoints);
        let mut recent = read.recent.clone();
        recent.retain(|p| p.is_file());
        for p in self.recent.iter().rev() {
            recent.retain(|r| r != p);
            recent.insert(0, p.clone());
        }
        self.set_recent(recent);
        self.settings = Kept {
            file: Some(file),
            window: read.window,
            zoom: Some(read.zoom),
            seen: (read.zoom, read.window),
            written: Some(read),
            checked: None,
            failed: false,
        };
        self
    }

    /// The window as the settings kept it, to open the window with.
    pub fn kept_window(&self) -> Option<Window> {
        self.settings.window
    }

    /// The settings as they are now.
    fn current_settings(&self) -> Settings {
        Settings {
            recent: self.recent.clone(),
            breakpoints: self.breakpoints.to_settings(),
            window: self.settings.seen.1,
            zoom: self.settings.seen.0,
        }
    }

    /// Once a frame: sets the kept zoom at the first frame, notes the window and zoom, and
    /// writes the settings once a second when they changed.
    pub(super) fn keep_settings(&mut self, ctx: &egui::Context) {
        if let Some(zoom) = self.settings.zoom.take() {
            ctx.set_zoom_factor(zoom);
        }
        let zoom = ctx.zoom_factor();
        let window = ctx.input(|i| {
            let v = i.viewport();
            let inner = v.inner_rect?;
            // Ui points are the window's points over the zoom.
            let size = inner.size() * zoom;
            let at = v.outer_rect.map(|r| r.min.to_vec2() * zoom);
            (!v.minimized.unwrap_or(false)).then_some(Window {
                width: size.x,
                height: size.y,
                x: at.map(|a| a.x),
                y: at.map(|a| a.y),
            })
        });
        self.settings.seen = (zoom, window.or(self.settings.seen.1));
        let now = ctx.input(|i| i.time);
        if self
            .settings
            .checked
            .is_some_and(|t| now - t < EVERY_SECONDS)
        {
            return;
        }
        self.settings.checked = Some(now);
        self.write_settings();
    }

    /// Writes the settings now when they differ from what the file holds (as at exit).
    pub fn write_settings(&mut self) {
        let Some(file) = self.settings.file.clone() else {
            return;
        };
        let current = self.current_settings();
        if self.settings.written.as_ref() == Some(&current) {
            return;
        }
        match file.save(&current) {
            Ok(()) => {
                self.settings.written = Some(current);
                self.settings.failed = false;
            }
            Err(e) => {
                if !self.settings.failed {
                    self.say_problem(format!("Settings not kept: {e}"));
                }
                self.settings.failed = true;
            }
        }
    }
}
