//! Autosave and recovery: unsaved work is written to a recovery file a few seconds after
//! each change ([`crate::io::RecoveryDir`]); saving, undoing back to the saved state,
//! discarding or a clean close removes it. Opening a tree that has one offers to restore it,
//! saying when its file changed on disk since and what the work changes from the file.
//! The tree's file is marked open, so that a second editor on it says which has it.

use std::path::PathBuf;
use std::time::Duration;

use eframe::egui;

use super::EditorApp;
use crate::io::{DiskChange, OpenMark, Recovered, RecoveryDir};

/// The recovery folder, in words.
fn offer_dir(a: &Autosave) -> String {
    a.dir
        .as_ref()
        .map_or_else(String::new, |d| d.dir().display().to_string())
}

/// How many lines of differences the recovery question shows at most.
const DIFF_LINES: usize = 400;

/// Seconds from a change to the writing of the recovery file.
pub const AUTOSAVE_SECONDS: f64 = 3.0;

/// What the editor keeps of autosaving.
#[derive(Default)]
pub(super) struct Autosave {
    /// Where recovery files go; none: unsaved work is not written aside.
    pub(super) dir: Option<RecoveryDir>,
    /// The recovery file last written, and the document revision in it.
    written: Option<(PathBuf, u64)>,
    /// The revision last tried when writing failed, and whether that was said: the
    /// problem is said once, not for each change, until a write works again.
    failed: Option<u64>,
    said_failure: bool,
    /// When (egui's clock) the unsaved work is next written.
    due: Option<f64>,
    /// Recovered work waiting for the user's answer.
    pub(super) offer: Option<Recovered>,
    /// How much older recovered work for the tree waits behind the offer.
    more: usize,
    /// When the offered work's file changed on disk since the work started: how that is
    /// known, and what the work changes from the file as it is now (diff lines).
    stale: Option<(DiskChange, Vec<String>)>,
    /// The mark that this editor has the tree's file open.
    mark: Option<OpenMark>,
}

impl EditorApp {
    /// Writes unsaved work to recovery files in `dir`, and offers the work found there for
    /// the tree being edited.
    #[must_use]
    pub fn with_recovery(mut self, dir: RecoveryDir) -> Self {
        self.autosave.dir = Some(dir);
        self.mark_open();
        self.offer_recovery();
        self
    }

    /// Marks the tree's file as open in this editor, saying which other editors have it
    /// open too.
    pub(super) fn mark_open(&mut self) {
        self.autosave.mark = None;
        let (Some(dir), Some(path)) = (&self.autosave.dir, self.doc.path()) else {
            return;
        };
        let (mark, others) = dir.mark_open(path);
        self.autosave.mark = mark;
        if !others.is_empty() {
            let pids: Vec<String> = others.iter().map(|o| o.pid.to_string()).collect();
            let name = self.doc.name();
            self.say_problem(format!(
                "{name} is also open in another Arbor (process {}): what one saves, the other will be asked about before it saves",
                pids.join(", ")
            ));
        }
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
        let found = dir.find_tree(self.doc.path(), self.doc.tree_id());
        for u in &found.unreadable {
            self.say_problem(format!(
                "A recovery file does not read ({}); it is kept as {}",
                u.reason,
                u.file.display()
            ));
        }
        self.autosave.more = found.more;
        self.autosave.offer = found.found.filter(|r| {
            // Work that equals the tree as it is holds nothing to restore.
            let same = r.tree == *self.doc.tree();
            if same {
                RecoveryDir::remove(&r.file);
            }
            !same
        });
        self.autosave.stale = self.autosave.offer.as_ref().and_then(|r| {
            Some((
                r.changed_on_disk()?,
                r.differences(self.doc.tree(), DIFF_LINES),
            ))
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
            || self.autosave.failed == Some(revision)
        {
            return;
        }
        let (now, focused) = ctx.input(|i| (i.time, i.focused));
        let due = *self.autosave.due.get_or_insert(now + AUTOSAVE_SECONDS);
        // A window that loses the focus may be covered next and get no frames (no timer
        // runs then): its unsaved work is written aside at once.
        if now < due && focused {
            ctx.request_repaint_after(Duration::from_secs_f64(due - now));
            return;
        }
        self.autosave.due = None;
        let Some(dir) = &self.autosave.dir else {
            return;
        };
        match dir.write_tree(
            self.doc.path(),
            self.doc.tree_id(),
            self.doc.disk(),
            self.doc.tree(),
        ) {
            Ok(file) => {
                // Saved under a new name since: the old file goes.
                if let Some((old, _)) = &self.autosave.written
                    && *old != file
                {
                    RecoveryDir::remove(old);
                }
                self.autosave.written = Some((file, revision));
                self.autosave.failed = None;
                self.autosave.said_failure = false;
            }
            Err(e) => {
                // Nothing is recorded as written: what is at that name (a link, a FIFO)
                // is not ours to remove.
                self.autosave.failed = Some(revision);
                if !std::mem::replace(&mut self.autosave.said_failure, true) {
                    self.say_problem(format!("Unsaved work could not be written aside: {e}"));
                }
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
        let stale = self.autosave.stale.clone();
        let more = self.autosave.more;
        egui::Modal::new(egui::Id::new("recovered-work")).show(ctx, |ui| {
            ui.set_max_width(640.0);
            ui.heading("Recovered work");
            ui.label(format!(
                "Arbor found changes to {name} that were not saved, written {when} (the editor was closed without saving them, or stopped)."
            ));
            ui.label(format!("They are kept in {}", offer.file.display()));
            if more > 0 {
                ui.label(format!(
                    "This is the newest of {} pieces of unsaved work for this tree (of editors that stopped); Discard offers the next.",
                    more + 1
                ));
            }
            if let Some((how, diff)) = &stale {
                let changed = match how {
                    DiskChange::Content => format!("{name} changed on disk since this work began"),
                    DiskChange::ModifiedAfter => format!(
                        "{name} was modified on disk after this work was written (an older Arbor wrote it without a stamp of the file, so their modification times are compared)"
                    ),
                };
                ui.colored_label(
                    egui::Color32::from_rgb(235, 150, 60),
                    format!("{changed}: restoring it and saving would drop that change. What the recovered work changes from the file as it is now:"),
                );
                egui::ScrollArea::vertical()
                    .max_height(220.0)
                    .show(ui, |ui| {
                        for line in diff {
                            let colour = match line.chars().next() {
                                Some('+') => egui::Color32::from_rgb(120, 200, 120),
                                Some('-') => egui::Color32::from_rgb(235, 120, 90),
                                _ => ui.visuals().weak_text_color(),
                            };
                            ui.label(egui::RichText::new(line).monospace().color(colour));
                        }
                    });
            }
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
        self.autosave.stale = None;
        if restore {
            self.doc.restore(offer.tree);
            // The file stays until the work is saved or discarded.
            self.autosave.written = Some((offer.file, self.doc.revision()));
            self.changed();
            self.say(format!("Restored the unsaved changes to {name}"));
            if self.autosave.more > 0 {
                self.say(format!(
                    "{} older piece(s) of unsaved work for {name} are kept in {}; they are offered when {name} is opened again",
                    self.autosave.more,
                    offer_dir(&self.autosave)
                ));
            }
        } else {
            RecoveryDir::remove(&offer.file);
            self.say(format!("Discarded the unsaved changes to {name}"));
            // The next piece of work, if there is one.
            self.offer_recovery();
        }
    }
}
