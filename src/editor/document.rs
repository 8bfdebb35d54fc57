//! The document: the tree being edited, its file, and its history. Every change goes
//! through a model [`Edit`]; undo applies the edit's inverse. Each state of the tree has a
//! revision number, so undoing back to the state last saved clears the dirty marker.

use std::path::{Path, PathBuf};

use crate::io::Stamp;
use crate::model::{Catalog, Edit, EditError, NodeId, ParentSlot, Tree};

/// The tree being edited, where it is saved, and its undo history.
pub struct Document {
    tree: Tree,
    path: Option<PathBuf>,
    /// The name shown for a tree with no file that is not a new one (the bundled sample);
    /// `untitled` without it.
    label: Option<String>,
    /// What the file held when it was opened or last saved (none for a tree not read from
    /// or written to its file).
    disk: Option<Stamp>,
    /// What the file held that the tree does not say (the rest of a BehaviorTree.CPP
    /// file), written back with it.
    kept: crate::io::Kept,
    /// Inverse edits, newest last, each with the revision of the state it restores and
    /// the other files the step changed.
    undo: Vec<(Edit, u64, Files)>,
    /// Undone edits, newest last, each with the revision of the state it restores and the
    /// other files the step changes.
    redo: Vec<(Edit, u64, Files)>,
    /// The revision of the tree as it is now.
    revision: u64,
    /// The revision that was last saved (or opened).
    saved: u64,
    /// The next revision number to hand out.
    next: u64,
    /// The field last changed by a continuous gesture: further changes merge into its step.
    coalescing: Option<(NodeId, String)>,
    /// Where each node is linked, built on first use after each change: the inspector
    /// asks every frame, and on a large tree a search of every node would not do.
    parents: std::cell::OnceCell<foldhash::HashMap<NodeId, ParentSlot>>,
    /// Nodes given another id by the changes made since [`Document::take_renamed`] was
    /// last asked (old id, new id), in order: what refers to a node by id follows.
    renamed: Vec<(NodeId, NodeId)>,
    /// Why the last undo or redo was refused, until asked ([`Document::take_refusal`]).
    refusal: Option<String>,
}

/// Files other than the tree's own that an undo step changed along with the tree (a
/// project key renamed in every tree of the project): undoing it writes their bytes from
/// before, redoing it those from after, each only over a file that still holds the other.
pub type Files = Option<std::sync::Arc<[crate::io::FileChange]>>;

impl Document {
    /// Which tree of its file it is, when it is not the one the file runs: a
    /// BehaviorTree.CPP file's `<BehaviorTree ID>` a SubTree runs, opened on its own
    /// (saving writes it back into its place in the file).
    pub fn tree_id(&self) -> Option<&str> {
        self.kept
            .as_deref()
            .and_then(crate::io::btcpp::Source::tree_id)
    }

    /// A document for `tree`, saved at `path` if any; it is clean.
    pub fn new(tree: Tree, path: Option<PathBuf>) -> Self {
        Self {
            tree,
            path,
            label: None,
            disk: None,
            kept: None,
            undo: Vec::new(),
            redo: Vec::new(),
            revision: 0,
            saved: 0,
            next: 1,
            renamed: Vec::new(),
            refusal: None,
            coalescing: None,
            parents: std::cell::OnceCell::new(),
        }
    }

    /// Names a tree that has no file (the bundled sample), as its title shows it until it
    /// is saved.
    pub fn set_label(&mut self, label: &str) {
        self.label = Some(label.to_owned());
    }

    /// Records what the file held when the tree was read from it.
    pub fn read_from_disk(&mut self, disk: Stamp, kept: crate::io::Kept) {
        self.disk = Some(disk);
        self.kept = kept;
    }

    /// What the file held that the tree does not say, to be written back with it.
    pub fn kept(&self) -> &crate::io::Kept {
        &self.kept
    }

    /// What the file held when it was opened or last saved.
    pub fn disk(&self) -> Option<Stamp> {
        self.disk
    }

    /// The tree as edited.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Where `id` is linked into its parent, if it is.
    pub fn parent_of(&self, id: &NodeId) -> Option<&ParentSlot> {
        self.parents.get_or_init(|| self.tree.parents()).get(id)
    }

    /// The file the tree is saved in, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The file name to show (without a file, its label or `untitled`; `guard.xml#Walk`
    /// for a tree of the file that is not the one it runs).
    pub fn name(&self) -> String {
        let unsaved = || self.label.clone().unwrap_or_else(|| "untitled".into());
        let file = self
            .path
            .as_deref()
            .and_then(Path::file_name)
            .map_or_else(unsaved, |n| n.to_string_lossy().into_owned());
        match self.tree_id() {
            Some(id) => format!("{file}#{id}"),
            None => file,
        }
    }

    /// Whether the tree differs from the state last saved or opened.
    pub fn is_dirty(&self) -> bool {
        self.revision != self.saved
    }

    /// The revision of the tree as it is now: each change makes a new one.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Reads the tree's values as `catalog`'s kinds type them, when the tree is a
    /// BehaviorTree.CPP file's ([`crate::io::fit_to_kinds`]: its text values read as its
    /// ports' types). What the tree says is unchanged, so this is no edit: the history and
    /// the saved state stay as they are.
    pub fn fit_to_kinds(&mut self, catalog: &Catalog) {
        if let Some(path) = &self.path {
            crate::io::fit_to_kinds(path, &mut self.tree, catalog);
        }
    }

    /// Puts `tree` (recovered unsaved work) in place of the tree, as a change not yet
    /// saved; the history starts again from it.
    pub fn restore(&mut self, tree: Tree) {
        self.tree = tree;
        self.parents.take();
        self.undo.clear();
        self.redo.clear();
        self.coalescing = None;
        self.revision = self.next;
        self.next += 1;
    }

    /// Records that the tree as it is now is saved at `path`, which now holds `disk`.
    pub fn mark_saved(&mut self, path: &Path, disk: Stamp, kept: crate::io::Kept) {
        self.path = Some(path.to_owned());
        self.disk = Some(disk);
        self.kept = kept;
        self.saved = self.revision;
    }

    /// Whether there is an edit to undo.
    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    /// Whether there is an undone edit to redo.
    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// Applies an edit as one undo step.
    pub fn apply(&mut self, edit: Edit, catalog: &Catalog) -> Result<(), EditError> {
        self.coalescing = None;
        self.apply_recording(edit, true, catalog)
    }

    /// Applies an edit; consecutive edits with the same `key` on the same node (typing in one
    /// field, dragging one value) make a single undo step, until [`Self::end_gesture`].
    pub fn apply_coalesced(
        &mut self,
        edit: Edit,
        node: &NodeId,
        key: &str,
        catalog: &Catalog,
    ) -> Result<(), EditError> {
        let same = self
            .coalescing
            .as_ref()
            .is_some_and(|(n, k)| n == node && k == key);
        let result = self.apply_recording(edit, !same, catalog);
        if result.is_ok() {
            self.coalescing = Some((node.clone(), key.to_owned()));
        }
        result
    }

    /// Ends a continuous gesture: the next change is a new undo step.
    pub fn end_gesture(&mut self) {
        self.coalescing = None;
    }

    fn apply_recording(
        &mut self,
        edit: Edit,
        record: bool,
        catalog: &Catalog,
    ) -> Result<(), EditError> {
        let inverse = self.change(edit, catalog)?;
        if record || self.undo.is_empty() {
            self.undo.push((inverse, self.revision, None));
        }
        // A merged change still makes a new state: saved mid-gesture, it is dirty again.
        self.revision = self.fresh();
        self.redo.clear();
        Ok(())
    }

    fn fresh(&mut self) -> u64 {
        let r = self.next;
        self.next += 1;
        r
    }

    /// Undoes the last step; false when there is none.
    pub fn undo(&mut self, catalog: &Catalog) -> bool {
        self.replay(false, catalog)
    }

    /// Redoes the last undone step; false when there is none.
    pub fn redo(&mut self, catalog: &Catalog) -> bool {
        self.replay(true, catalog)
    }

    /// Applies an edit that went with changes to other files, already written (`files`),
    /// as one undo step: undoing it takes back the edit and writes those files as they
    /// were, redoing it writes them again.
    pub fn apply_with_files(
        &mut self,
        edit: Edit,
        files: Vec<crate::io::FileChange>,
        catalog: &Catalog,
    ) -> Result<(), EditError> {
        self.coalescing = None;
        let inverse = self.change(edit, catalog)?;
        self.undo
            .push((inverse, self.revision, Some(std::sync::Arc::from(files))));
        self.revision = self.fresh();
        self.redo.clear();
        Ok(())
    }

    /// Why the last undo or redo was refused (another file of its step changed on disk
    /// since), once.
    pub fn take_refusal(&mut self) -> Option<String> {
        self.refusal.take()
    }

    /// Applies the newest edit of one stack and pushes its inverse on the other, moving the
    /// tree to the revision the edit restores; the other files of the step are written
    /// first, and when they cannot be, nothing changes and the reason is kept.
    fn replay(&mut self, forward: bool, catalog: &Catalog) -> bool {
        self.coalescing = None;
        let from = if forward {
            &mut self.redo
        } else {
            &mut self.undo
        };
        let Some((edit, restores, files)) = from.pop() else {
            return false;
        };
        if let Some(changes) = &files
            && let Err(why) = crate::io::apply_file_changes(changes, forward)
        {
            from.push((edit, restores, files));
            self.refusal = Some(why);
            return false;
        }
        match self.change(edit, catalog) {
            Ok(inverse) => {
                let revision = self.revision;
                let to = if forward {
                    &mut self.undo
                } else {
                    &mut self.redo
                };
                to.push((inverse, revision, files));
                self.revision = restores;
                true
            }
            Err(_) => false,
        }
    }

    /// Whether the step that undo (or, `forward`, redo) would take next changes other
    /// files too.
    pub fn next_step_has_files(&self, forward: bool) -> bool {
        let stack = if forward { &self.redo } else { &self.undo };
        stack.last().is_some_and(|(_, _, f)| f.is_some())
    }

    /// Moves the nodes as `edit` says without making a change of it (no undo step, not
    /// dirty): the arrangement of a tree read without positions. Returns whether it
    /// applied.
    pub fn arrange(&mut self, edit: Edit, catalog: &Catalog) -> bool {
        self.change(edit, catalog).is_ok()
    }

    /// Applies `edit` to the tree, returning its inverse. Every edit of the tree goes
    /// through here: the parent index is built again when next asked for.
    fn change(&mut self, edit: Edit, catalog: &Catalog) -> Result<Edit, EditError> {
        self.parents.take();
        let mut renames = Vec::new();
        renames_in(&edit, &mut renames);
        let inverse = self.tree.apply(edit, catalog)?;
        self.renamed.extend(renames);
        Ok(inverse)
    }

    /// The nodes given another id since this was last asked (old id, new id), in order.
    pub fn take_renamed(&mut self) -> Vec<(NodeId, NodeId)> {
        std::mem::take(&mut self.renamed)
    }
}

/// The renames an edit makes, in the order it makes them.
fn renames_in(edit: &Edit, out: &mut Vec<(NodeId, NodeId)>) {
    match edit {
        Edit::Rename { id, to } if id != to => out.push((id.clone(), to.clone())),
        Edit::Batch(edits) => {
            for e in edits {
                renames_in(e, out);
            }
        }
        _ => {}
    }
}
