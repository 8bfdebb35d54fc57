//! Autosave and recovery: unsaved work is written to a recovery file a few seconds after
//! each change ([`crate::io::RecoveryDir`]); saving, undoing back to the saved state,
//! discarding or a clean close removes it. Opening a tree that has one offers to restore it.

use std::path::PathBuf;
use std::time::Duration;

use eframe::egui;

use super::EditorApp;
use crate::io::{Recovered, RecoveryDir};

/// Seconds from a change to the writing of the recovery file.
pub const AUTOSAVE_SECONDS: f64 = 3.0;

/// What the editor keeps of autosaving.
#[derive(Default)]
pub(super) struct Autosave {
    /// Where recovery files go; none: unsaved work is not written aside.
    pub(super) dir: Option<RecoveryDir>,
    /// The recovery file last written, and the document revision in it.
    written: Option<(PathBuf, u64)>,
    /// When (egui's clock) the unsaved work is next written.
    due: Option<f64>,
    /// Recovered work waiting for the user's answer.
    pub(super) offer: Option<Recovered>,
}

impl EditorApp {
    /// Writes unsaved work to recovery files in `dir`, and offers the work found there for
    /// the tree being edited.
    #[must_use]
    pub fn with_recovery(mut self, dir: RecoveryDir) -> Self {
        self.autosave.dir = Some(dir);
        self.offer_recovery();
        self
    }

    /// The recovery file holding the unsaved work now, if one was written.
    pub fn recovery_file(&self) -> Option<&std::path::Path> {
        self.autosave.written.as_ref().map(|(f, _)| f.as_path())
    }

    /// Looks for unsaved work recovered for the tree being edited, to offer it.
    pub(super) fn offer_recovery(&mut self) {
        let Some(dir) = &self.autosave.dir else {
            return;
        };
        self.autosave.offer = dir.find(self.doc.path()).filter(|r| {
            // Work that equals the tree as it is holds nothing to restore.
            let same = r.tree == *self.doc.tree();
            if same {
                RecoveryDir::remove(&r.file);
            }
            !same
        });
    }

    /// Removes the recovery file of the work being dropped (discarded, replaced, closed).
    pub(super) fn drop_recovery(&mut self) {
        if let Some((file, _)) = self.autosave.written.take() {
            RecoveryDir::remove(&file);
        }
        self.autosave.due = None;
    }

    /// Once a frame: writes the unsaved work when it is due, removes the file once the
    /// tree is clean.
    pub(super) fn autosave(&mut self, ctx: &egui::Context) {
        if self.autosave.dir.is_none() || self.autosave.offer.is_some() {
            return;
        }
        if !self.doc.is_dirty() {
            self.drop_recovery();
            return;
        }
        let revision = self.doc.revision();
        if self
            .autosave
            .written
            .as_ref()
            .is_some_and(|(_, r)| *r == revision)
        {
            return;
        }
        let now = ctx.input(|i| i.time);
        let due = *self.autosave.due.get_or_insert(now + AUTOSAVE_SECONDS);
        if now < due {
            ctx.request_repaint_after(Duration::from_secs_f64(due - now));
            return;
        }
        self.autosave.due = None;
        let Some(dir) = &self.autosave.dir else {
            return;
        };
        match dir.write(self.doc.path(), self.doc.tree()) {
            Ok(file) => {
                // Saved under a new name since: the old file goes.
                if let Some((old, _)) = &self.autosave.written
                    && *old != file
                {
                    RecoveryDir::remove(old);
                }
                self.autosave.written = Some((file, revision));
            }
            Err(e) => {
                // Marked as written so the problem is said once per change, not each frame.
                let file = dir.file_for(self.doc.path());
                self.autosave.written = Some((file, revision));
                self.say_problem(format!("Unsaved work could not be written aside: {e}"));
            }
        }
    }

    /// The question "restore the unsaved work found?", while there is some.
    pub(super) fn recovery_prompt_ui(&mut self, ctx: &egui::Context) {
        let Some(offer) = &self.autosave.offer else {
            return;
        };
        let name = self.doc.name();
        let ago = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
            .saturating_sub(offer.written);
        let when = match ago {
            0..60 => "less than a minute ago".to_owned(),
            60..7200 => format!("{} minutes ago", ago / 60),
            _ => format!("{} hours ago", ago / 3600),
        };
        let mut choice = None;
        egui::Modal::new(egui::Id::new("recovered-work")).show(ctx, |ui| {
            ui.heading("Recovered work");
            ui.label(format!(
                "Arbor found changes to {name} that were not saved, written {when} (the editor was closed without saving them, or stopped)."
            ));
            ui.label(format!("They are kept in {}", offer.file.display()));
            ui.horizontal(|ui| {
                if ui.button("Restore").clicked() {
                    choice = Some(true);
                }
                if ui.button("Discard").clicked() {
                    choice = Some(false);
                }
            });
        });
        let Some(restore) = choice else { return };
        let Some(offer) = self.autosave.offer.take() else {
            return;
        };
        if restore {
            self.doc.restore(offer.tree);
            // The file stays until the work is saved or discarded.
            self.autosave.written = Some((offer.file, self.doc.revision()));
            self.changed();
            self.say(format!("Restored the unsaved changes to {name}"));
        } else {
            RecoveryDir::remove(&offer.file);
            self.say(format!("Discarded the unsaved changes to {name}"));
        }
    }
}
