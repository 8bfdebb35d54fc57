//! Choosing files: the system's dialog where there is one, else an in-app path field with
//! completion. A native dialog needs a desktop portal (over the session's D-Bus) or
//! `zenity`; where neither is there, or the dialog fails to open, the field is used and
//! says why. `ARBOR_FILE_DIALOG=builtin` always uses the field, `=native` always the
//! system's dialog.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use eframe::egui::{self, Key, Modifiers, RichText};

use crate::model::NodeId;

/// What a chosen file is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// Open it as the tree.
    OpenTree,
    /// Save the tree there.
    SaveTree,
    /// Run the tree in this scenario.
    OpenScenario,
    /// Replay this trace.
    OpenTrace,
    /// Show this coverage file's counts on the canvas.
    OpenCoverage,
    /// Write it, relative to the tree, into this SubTree's asset field.
    Asset(NodeId, String),
    /// List this file of node models in the tree's project.
    LoadModels,
    /// Write what the game shown live sent there, as a trace.
    SaveRecording,
}

impl Purpose {
    fn title(&self) -> &'static str {
        match self {
            Purpose::OpenTree => "Open a tree",
            Purpose::SaveTree => "Save the tree as",
            Purpose::OpenScenario => "Open a scenario",
            Purpose::OpenTrace => "Open a trace",
            Purpose::OpenCoverage => "Open a coverage file",
            Purpose::Asset(..) => "Choose the SubTree's tree file",
            Purpose::LoadModels => "Load node models",
            Purpose::SaveRecording => "Save the recording as",
        }
    }

    /// `path`, or, for a file to save whose name was typed without an extension, with the
    /// first of the purpose's: a tree file `NAME.json`, a recording `NAME.jsonl`.
    pub fn completed(&self, path: &Path) -> PathBuf {
        match self.extensions().first() {
            Some(ext) if self.saving() && path.extension().is_none() => path.with_extension(ext),
            _ => path.to_owned(),
        }
    }

    fn saving(&self) -> bool {
        matches!(self, Purpose::SaveTree | Purpose::SaveRecording)
    }

    /// The extensions of the files it is for (`json`; `jsonl` and `arbtrace` for a
    /// trace), the first the one a new name is given.
    fn extensions(&self) -> &'static [&'static str] {
        match self {
            // Arbor's traces, and BehaviorTree.CPP's recordings.
            Purpose::OpenTrace => &["jsonl", crate::runtime::BINARY_TRACE_EXTENSION, "btlog"],
            // Arbor's traces.
            Purpose::SaveRecording => &["jsonl", crate::runtime::BINARY_TRACE_EXTENSION],
            // A node library, a BehaviorTree.CPP file of models, a Groot2 project.
            Purpose::LoadModels => &["xml", "btproj", "json"],
            // Arbor's trees and BehaviorTree.CPP's.
            Purpose::OpenTree | Purpose::SaveTree | Purpose::Asset(..) => &["json", "xml"],
            _ => &["json"],
        }
    }
}

/// Which file chooser to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chooser {
    /// The system's dialog (falling back to the field when it fails to open).
    Native,
    /// The in-app path field.
    InApp,
}

impl Chooser {
    /// The chooser for this machine, and why the field is used where it is.
    pub fn detect() -> (Self, Option<String>) {
        match std::env::var("ARBOR_FILE_DIALOG").as_deref() {
            Ok("builtin") => return (Chooser::InApp, None),
            Ok("native") => return (Chooser::Native, None),
            _ => {}
        }
        if cfg!(target_os = "linux") {
            let bus = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some();
            let zenity = std::env::var_os("PATH").is_some_and(|paths| {
                std::env::split_paths(&paths).any(|d| d.join("zenity").is_file())
            });
            if !bus && !zenity {
                return (
                    Chooser::InApp,
                    Some(
                        "This desktop offers no file dialog (no desktop portal on D-Bus, no zenity)"
                            .into(),
                    ),
                );
            }
        }
        (Chooser::Native, None)
    }
}

/// The in-app file chooser, while it is open.
pub struct FilePrompt {
    /// What the file is for.
    pub purpose: Purpose,
    /// The path typed so far.
    pub text: String,
    /// Why the system's dialog is not used, if it is not.
    why: Option<String>,
    /// Relative paths are taken from here.
    base: PathBuf,
    focus: bool,
    /// The completions of `text`, read from its folder when the text last changed.
    found: Option<(String, Vec<String>)>,
}

/// A native dialog that answers faster than this did not open (nobody cancels that fast).
const TOO_FAST: Duration = Duration::from_millis(250);

/// Shows the system's dialog for `purpose`. `Ok(None)` is a cancel; `Err` says that no
/// dialog could be shown.
pub fn native(
    purpose: &Purpose,
    dir: Option<&Path>,
    name: &str,
) -> Result<Option<PathBuf>, String> {
    let filter = match purpose {
        Purpose::OpenScenario => "Arbor scenario",
        Purpose::OpenTrace | Purpose::SaveRecording => "Arbor trace",
        Purpose::OpenCoverage => "Arbor coverage",
        Purpose::LoadModels => "Node models",
        _ => "Arbor tree",
    };
    let mut dialog = rfd::FileDialog::new()
        .add_filter(filter, purpose.extensions())
        .set_title(purpose.title());
    if let Some(d) = dir {
        dialog = dialog.set_directory(d);
    }
    let started = Instant::now();
    let chosen = if purpose.saving() {
        dialog.set_file_name(name).save_file()
    } else {
        dialog.pick_file()
    };
    match chosen {
        Some(p) => Ok(Some(p)),
        None if started.elapsed() < TOO_FAST => Err("The system file dialog did not open".into()),
        None => Ok(None),
    }
}

impl FilePrompt {
    /// The field for `purpose`, starting with `start` (a folder ending in `/`, or a path),
    /// relative to `base`.
    pub fn new(purpose: Purpose, start: String, base: PathBuf, why: Option<String>) -> Self {
        Self {
            purpose,
            text: start,
            why,
            base,
            focus: true,
            found: None,
        }
    }

    /// The path the text names.
    pub fn path(&self) -> PathBuf {
        let typed = Path::new(self.text.trim());
        if typed.is_absolute() {
            typed.to_owned()
        } else {
            self.base.join(typed)
        }
    }

    /// The folder entries that complete the text: folders (ending in `/`) and files of the
    /// purpose's extensions whose names start with what follows the last `/`, at most 50.
    pub fn completions(&self) -> Vec<String> {
        let text = self.text.trim_start();
        let (dir_part, prefix) = match text.rfind('/') {
            Some(i) => (&text[..=i], &text[i + 1..]),
            None => ("", text),
        };
        let dir = if Path::new(dir_part).is_absolute() {
            PathBuf::from(dir_part)
        } else {
            self.base.join(dir_part)
        };
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Vec::new();
        };
        let lower = prefix.to_lowercase();
        let mut found: Vec<(bool, String)> = entries
            .filter_map(Result::ok)
            .take(5_000)
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let is_dir = e.file_type().is_ok_and(|t| t.is_dir())
                    || (e.file_type().is_ok_and(|t| t.is_symlink()) && e.path().is_dir());
                let fits = name.to_lowercase().starts_with(&lower)
                    && (is_dir
                        || self
                            .purpose
                            .extensions()
                            .iter()
                            .any(|e| name.ends_with(&format!(".{e}"))))
                    && (!name.starts_with('.') || prefix.starts_with('.'));
                fits.then(|| {
                    (
                        !is_dir,
                        format!("{dir_part}{name}{}", if is_dir { "/" } else { "" }),
                    )
                })
            })
            .collect();
        found.sort();
        found.into_iter().take(50).map(|(_, n)| n).collect()
    }

    /// The longest text that every completion starts with.
    fn common_prefix(found: &[String]) -> Option<String> {
        let first = found.first()?;
        let mut len = first.len();
        for f in &found[1..] {
            len = first
                .char_indices()
                .zip(f.chars())
                .take_while(|((_, a), b)| a == b)
                .last()
                .map_or(0, |((i, a), _)| i + a.len_utf8())
                .min(len);
        }
        Some(first[..len].to_owned())
    }

    /// Draws the chooser. Returns `Some(Some(path))` when a file is chosen, `Some(None)`
    /// when cancelled, `None` while it stays open.
    pub fn ui(&mut self, ctx: &egui::Context) -> Option<Option<PathBuf>> {
        let mut result = None;
        let modal = egui::Modal::new(egui::Id::new("file-prompt")).show(ctx, |ui| {
            ui.set_width(520.0);
            let title = ui.heading(self.purpose.title());
            if let Some(why) = &self.why {
                ui.label(format!("{why}: type the file's path."));
            }
            ui.label(
                RichText::new(format!("Relative to {}", self.base.display()))
                    .color(ui.visuals().weak_text_color()),
            );
            let tab = ui.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Tab));
            let field = ui
                .add(
                    egui::TextEdit::singleline(&mut self.text)
                        .hint_text(format!(
                            "folder/name.{}",
                            self.purpose.extensions().first().copied().unwrap_or("json")
                        ))
                        // Tab completes; it must not move the focus away.
                        .lock_focus(true)
                        .desired_width(f32::INFINITY),
                )
                .labelled_by(title.id);
            if std::mem::take(&mut self.focus) {
                field.request_focus();
            }
            let found = match &self.found {
                Some((text, found)) if *text == self.text => found.clone(),
                _ => {
                    let found = self.completions();
                    self.found = Some((self.text.clone(), found.clone()));
                    found
                }
            };
            if tab
                && let Some(common) = Self::common_prefix(&found)
                && common.len() > self.text.len()
            {
                self.text = common;
                self.move_cursor_to_end(ui.ctx(), field.id);
            }
            egui::ScrollArea::vertical()
                .max_height(180.0)
                .show(ui, |ui| {
                    for f in &found {
                        if ui.selectable_label(false, f).clicked() {
                            self.text = f.clone();
                            self.focus = true;
                        }
                    }
                });
            let path = self.path();
            let problem = self.problem(&path);
            let exists = self.purpose.saving() && path.is_file();
            if let Some(p) = &problem {
                ui.label(RichText::new(p).color(egui::Color32::from_rgb(235, 120, 90)));
            } else if exists {
                ui.label(format!("{} exists; it will be replaced", path.display()));
            }
            let enter = field.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
            ui.horizontal(|ui| {
                let verb = match (self.purpose.saving(), exists) {
                    (true, true) => "Replace",
                    (true, false) => "Save",
                    _ => "Open",
                };
                let ok = ui
                    .add_enabled(problem.is_none(), egui::Button::new(verb))
                    .clicked();
                if (ok || enter) && problem.is_none() {
                    result = Some(Some(path.clone()));
                }
                if ui.button("Cancel").clicked() {
                    result = Some(None);
                }
            });
        });
        if modal.should_close() && result.is_none() {
            result = Some(None);
        }
        result
    }

    fn move_cursor_to_end(&self, ctx: &egui::Context, id: egui::Id) {
        if let Some(mut state) = egui::TextEdit::load_state(ctx, id) {
            let end = egui::text::CCursor::new(self.text.chars().count());
            state
                .cursor
                .set_char_range(Some(egui::text::CCursorRange::one(end)));
            state.store(ctx, id);
        }
        ctx.memory_mut(|m| m.request_focus(id));
    }

    /// Why the path cannot be used, if it cannot.
    fn problem(&self, path: &Path) -> Option<String> {
        if self.text.trim().is_empty() || self.text.ends_with('/') {
            return Some("Type a file name".into());
        }
        if path.is_dir() {
            return Some(format!("{} is a folder", path.display()));
        }
        if self.purpose.saving() {
            match path.parent() {
                Some(dir) if !dir.as_os_str().is_empty() && !dir.is_dir() => {
                    Some(format!("There is no folder {}", dir.display()))
                }
                _ => None,
            }
        } else if !path.exists() {
            Some(format!("There is no file {}", path.display()))
        } else {
            None
        }
    }
}
