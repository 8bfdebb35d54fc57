//! The tree's file on disk, outside the editor: changes made to it by another program (a
//! `git pull`, `arbor fmt`, another editor) are seen at once, a clean tree is reloaded, and
//! Save never writes over a change it has not seen: it asks first.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use eframe::egui;

use super::{Document, EditorApp};
use crate::io::{FileWatch, Stamp};

/// What the editor keeps of the tree's file.
#[derive(Default)]
pub(super) struct Disk {
    /// A watch on the file (none for an untitled tree).
    watch: Option<(PathBuf, FileWatch)>,
    /// The content on disk last told about, so a change is said once.
    told: Option<Option<Stamp>>,
    /// A save waiting for an answer, to this file: it changed on disk since it was read.
    pub(super) conflict: Option<PathBuf>,
    /// The context to wake when the file changes (set at the first frame).
    wake: Arc<OnceLock<egui::Context>>,
}

/// The answer to "the file changed on disk: save anyway?".
enum Answer {
    Reload,
    Overwrite,
    SaveAs,
    Cancel,
}

impl EditorApp {
    /// Watches the tree's file, when it is not watched already.
    pub(super) fn watch_file(&mut self) {
        let Some(path) = self.doc.path().map(Path::to_owned) else {
            self.disk.watch = None;
            return;
        };
        if self.disk.watch.as_ref().is_some_and(|(p, _)| *p == path) {
            return;
        }
        let waker = self.disk.wake.clone();
        let watch = FileWatch::new(std::slice::from_ref(&path), move || {
            if let Some(ctx) = waker.get() {
                ctx.request_repaint();
            }
        });
        self.disk.watch = Some((path, watch));
        self.disk.told = None;
    }

    /// Once a frame: when the file changed on disk, a clean tree is reloaded from it, and
    /// a tree with unsaved changes says so (once per change).
    pub(super) fn poll_disk(&mut self, ctx: &egui::Context) {
        let _ = self.disk.wake.set(ctx.clone());
        let Some((path, watch)) = &self.disk.watch else {
            return;
        };
        if !watch.changed() {
            return;
        }
        let path = path.clone();
        let now = Stamp::read(&path);
        if now == self.doc.disk() || self.disk.told == Some(now) {
            return;
        }
        self.disk.told = Some(now);
        let name = self.doc.name();
        match now {
            None => self.say_problem(format!(
                "{name} was removed or cannot be read on disk; Save writes it again"
            )),
            Some(_) if !self.doc.is_dirty() => {
                if self.reload_from_disk(&path) {
                    self.say(format!("{name} changed on disk: reloaded"));
                }
            }
            Some(_) => self.say_problem(format!(
                "{name} changed on disk; your unsaved changes are kept, and Save will ask before writing over it"
            )),
        }
    }

    /// Reads the tree's file again in place of the tree: the rest of the session stays
    /// (the scenario, the breakpoints, the view); the run starts over, and the history
    /// starts again from the tree read.
    fn reload_from_disk(&mut self, path: &Path) -> bool {
        let tree_id = self.doc.tree_id().map(str::to_owned);
        match crate::io::load_tree_named_stamped(path, tree_id.as_deref()) {
            Ok((mut tree, stamp, kept)) => {
                // What was unsaved is let go: its recovery file too.
                self.drop_recovery();
                self.catalog.add_placeholders(&tree);
                crate::io::fit_to_kinds(path, &mut tree, &self.catalog);
                self.unplaced = super::arrange_if_unplaced(&mut tree, &self.catalog).then_some(0);
                self.doc = Document::new(tree, Some(path.to_owned()));
                self.say_notes(&kept);
                self.doc.read_from_disk(stamp, kept);
                self.changed();
                true
            }
            Err(e) => {
                self.say_problem(format!("{e} (the tree shown is the one read before)"));
                false
            }
        }
    }

    /// Saves to the tree's own file, unless it changed on disk since it was read or last
    /// saved: then the user is asked first.
    pub(super) fn save_checked(&mut self, path: &Path) -> bool {
        let own = self
            .doc
            .path()
            .is_some_and(|p| p == path || crate::io::same_file(p, path));
        // A BehaviorTree.CPP recording is kept as recorded: its tree is saved elsewhere.
        if own && crate::io::is_btlog(path) {
            self.say_problem(
                "A BehaviorTree.CPP recording (.btlog) is kept as it was recorded: save the tree as a .xml or .json file",
            );
            self.choose_elsewhere();
            return false;
        }
        // Changed, or no longer readable as it was (a file that is there but does not
        // read as text is not written over without asking either).
        if own
            && let Some(read) = self.doc.disk()
            && path.exists()
            && Stamp::read(path) != Some(read)
        {
            self.disk.conflict = Some(path.to_owned());
            return false;
        }
        self.save_to(path)
    }

    /// The question "the file changed on disk: what now?", while a save waits for it.
    pub(super) fn conflict_prompt_ui(&mut self, ctx: &egui::Context) {
        let Some(path) = self.disk.conflict.clone() else {
            return;
        };
        let name = self.doc.name();
        let mut answer = None;
        egui::Modal::new(egui::Id::new("changed-on-disk")).show(ctx, |ui| {
            ui.set_max_width(520.0);
            ui.heading(format!("{name} changed on disk"));
            ui.label(format!(
                "Another program changed {} since this editor read or saved it. Saving now would write over that change; reloading drops your unsaved changes.",
                path.display()
            ));
            ui.horizontal(|ui| {
                if ui.button("Reload from Disk").on_hover_text("Drop your unsaved changes and read the file as it is now").clicked() {
                    answer = Some(Answer::Reload);
                }
                if ui.button("Overwrite").on_hover_text("Save your tree over the change on disk").clicked() {
                    answer = Some(Answer::Overwrite);
                }
                if ui.button("Save As…").on_hover_text("Save your tree to another file; the file on disk stays as it is").clicked() {
                    answer = Some(Answer::SaveAs);
                }
                if ui.button("Cancel").clicked() {
                    answer = Some(Answer::Cancel);
                }
            });
        });
        let Some(answer) = answer else { return };
        self.disk.conflict = None;
        match answer {
            Answer::Reload => {
                if self.reload_from_disk(&path) {
                    self.say(format!("Reloaded {name} from disk"));
                }
            }
            Answer::Overwrite => {
                self.save_to(&path);
            }
            Answer::SaveAs => self.choose_elsewhere(),
            Answer::Cancel => self.say(format!("Not saved: {name} changed on disk")),
        }
    }
}
