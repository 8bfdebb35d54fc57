//! The editor's settings between runs (recent files, breakpoints, the window, the zoom):
//! one small JSON file of Arbor's own, read only when it is a regular file of bounded
//! size, every value checked, and written through a temporary file and a rename. A file
//! that does not read is set aside (`settings.json.unreadable`) and the user told; a
//! value out of range is reset and the user told; nothing in it can stop the editor.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{LoadError, read_text, write_own_file};

/// The `format` header of the settings file.
pub const SETTINGS_FORMAT: &str = super::header::SETTINGS.name;

const SETTINGS_VERSION: u64 = super::header::SETTINGS.newest;

/// The largest settings file read: 1 MiB.
const MAX_SETTINGS_BYTES: usize = 1 << 20;

/// The range of the editor's zoom (egui's zoom factor, as its keys set it).
const ZOOM: std::ops::RangeInclusive<f32> = 0.2..=5.0;

/// The range of a window side, in points.
const SIDE: std::ops::RangeInclusive<f32> = 200.0..=16_384.0;

/// How far from the origin of the desktop a window's edge may be and still be on a screen:
/// the desktop spans at most this many points each way (X11 keeps places in 16 bits, and
/// a larger one wraps round: x = 99,999 opens at −31,073).
const PLACE: f32 = 16_384.0;

/// Whether a window's edge at `v` (none: not known) may be on a screen.
fn on_a_screen(v: Option<f32>) -> bool {
    v.is_none_or(|v| v.is_finite() && v.abs() < PLACE)
}

/// What the editor keeps between runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Files opened or saved lately, newest first.
    pub recent: Vec<PathBuf>,
    /// Breakpoints by tree file: (node id, when) pairs.
    pub breakpoints: BTreeMap<String, Vec<(String, String)>>,
    /// The window, as it was last.
    pub window: Option<Window>,
    /// The editor's zoom (1 is 100 %).
    pub zoom: f32,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            recent: Vec::new(),
            breakpoints: BTreeMap::new(),
            window: None,
            zoom: 1.0,
        }
    }
}

/// The editor's window: its inner size and, where known, its place on the screen.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Window {
    /// Inner width, in points.
    pub width: f32,
    /// Inner height, in points.
    pub height: f32,
    /// Where its outer left edge was.
    pub x: Option<f32>,
    /// Where its outer top edge was.
    pub y: Option<f32>,
}

#[derive(Serialize, Deserialize)]
struct SettingsRecord {
    format: String,
    version: u64,
    #[serde(flatten)]
    settings: Settings,
}

impl Settings {
    /// The settings with every value in range; says what was reset.
    fn checked(mut self, problems: &mut Vec<String>) -> Self {
        if !ZOOM.contains(&self.zoom) {
            problems.push(format!(
                "the zoom {} is out of range ({} to {}); reset to 100 %",
                self.zoom,
                ZOOM.start(),
                ZOOM.end()
            ));
            self.zoom = 1.0;
        }
        if let Some(w) = &mut self.window {
            if !(SIDE.contains(&w.width) && SIDE.contains(&w.height)) {
                problems.push(format!(
                    "the window size {} × {} is out of range ({} to {}); the default is used",
                    w.width,
                    w.height,
                    SIDE.start(),
                    SIDE.end()
                ));
                self.window = None;
            } else if !(on_a_screen(w.x) && on_a_screen(w.y)) {
                problems.push(format!(
                    "the window's place ({}, {}) is off every screen; it opens where the system puts it",
                    w.x.unwrap_or(0.0),
                    w.y.unwrap_or(0.0)
                ));
                (w.x, w.y) = (None, None);
            }
        }
        self
    }
}

/// Where the settings are kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingsFile {
    path: PathBuf,
}

impl SettingsFile {
    /// The settings at `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// The usual file: `$ARBOR_SETTINGS` when set, else `arbor/settings.json` in the user's
    /// config folder (`$XDG_CONFIG_HOME`, or `~/.config`). `Err` says why there is none.
    pub fn default_path() -> Result<PathBuf, String> {
        super::user_file(
            "ARBOR_SETTINGS",
            "XDG_CONFIG_HOME",
            ".config",
            &["arbor", "settings.json"],
        )
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the settings. No file gives the defaults; a file that does not read (not a
    /// regular file, too large, not settings, an unknown version) is set aside and the
    /// defaults used; a value out of range is reset. The problems come back in words.
    pub fn load(&self) -> (Settings, Vec<String>) {
        let mut problems = Vec::new();
        let read = match std::fs::symlink_metadata(&self.path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return (Settings::default(), problems);
            }
            Err(e) => Err(e.to_string()),
            // (A link is followed: to a regular file, it is read; to anything else, refused.)
            Ok(_) => match std::fs::metadata(&self.path) {
                Ok(m) if m.is_file() && m.len() > MAX_SETTINGS_BYTES as u64 => Err(format!(
                    "it is {} bytes; settings files are at most {MAX_SETTINGS_BYTES}",
                    m.len()
                )),
                _ => read_text(&self.path)
                    .map_err(|e| e.to_string())
                    .and_then(|text| parse(&text)),
            },
        };
        match read {
            Ok(settings) => (settings.checked(&mut problems), problems),
            Err(reason) => {
                let kept = super::set_aside(&self.path);
                problems.push(match kept {
                    Some(aside) => format!(
                        "{}: {reason}. It is kept as {}; the default settings are used",
                        self.path.display(),
                        aside.display()
                    ),
                    None => format!(
                        "{}: {reason}. The default settings are used",
                        self.path.display()
                    ),
                });
                (Settings::default(), problems)
            }
        }
    }

    /// Writes the settings through a temporary file and a rename. A link to a regular file
    /// (settings kept with the user's dotfiles) is written through; a link to anything
    /// else is not.
    pub fn save(&self, settings: &Settings) -> Result<(), LoadError> {
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| LoadError::Write {
                path: dir.to_owned(),
                source: std::sync::Arc::new(e),
            })?;
        }
        let record = SettingsRecord {
            format: SETTINGS_FORMAT.into(),
            version: SETTINGS_VERSION,
            settings: settings.clone(),
        };
        // Strings, numbers and paths: serialising cannot fail.
        let text = serde_json::to_string_pretty(&record).unwrap_or_default();
        let linked_file = std::fs::symlink_metadata(&self.path)
            .is_ok_and(|m| m.file_type().is_symlink())
            && std::fs::metadata(&self.path).is_ok_and(|m| m.is_file());
        if linked_file {
            super::write_atomically(&self.path, text.as_bytes())
        } else {
            write_own_file(&self.path, text.as_bytes())
        }
    }
}

fn parse(text: &str) -> Result<Settings, String> {
    super::header::SETTINGS.check(text).map_err(|p| p.message)?;
    let record: SettingsRecord =
        serde_json::from_str(text).map_err(|e| format!("it is not a settings file ({e})"))?;
    Ok(record.settings)
}
