//! The editor's node kinds: the built-ins and the libraries of the tree's project, with
//! placeholders for kinds no library knows, reloaded when a library file changes on disk.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, OnceLock};

use eframe::egui;

use crate::io::{Problem, ProjectCatalog};
use crate::model::{Catalog, Tree};

/// The project a tree is edited in: its kinds and a watch on the files they come from.
pub struct ProjectKinds {
    /// The project file given on the command line, used instead of the one found.
    explicit: Option<PathBuf>,
    /// The tree file the project was found from.
    tree: Option<PathBuf>,
    /// The project's kinds, without placeholders.
    loaded: ProjectCatalog,
    /// Watches the folders of the project's files; `None` where the platform has no
    /// watcher (the kinds then load at open only).
    _watcher: Option<notify::RecommendedWatcher>,
    /// Told of every change in a watched folder to one of the project's files.
    changes: Receiver<()>,
    /// The context to wake when a change comes (set at the first frame).
    wake: Arc<OnceLock<egui::Context>>,
}

impl ProjectKinds {
    /// The kinds for a tree saved at `tree`, from `explicit` or the project found from it.
    pub fn new(tree: Option<&Path>, explicit: Option<&Path>) -> Self {
        let loaded = ProjectCatalog::for_tree(tree, explicit, &Catalog::builtin());
        let wake = Arc::new(OnceLock::new());
        // Without a project, a project file made beside the tree later is picked up.
        let watched = match (&loaded.project, tree.and_then(Path::parent)) {
            (None, Some(dir)) => vec![dir.join(crate::io::PROJECT_FILE)],
            _ => loaded.files.clone(),
        };
        let (watcher, changes) = watch(&watched, &wake);
        Self {
            explicit: explicit.map(Path::to_owned),
            tree: tree.map(Path::to_owned),
            loaded,
            _watcher: watcher,
            changes,
            wake,
        }
    }

    /// Whether the tree, now saved at `tree`, is governed by another project than before
    /// (none given on the command line); if so, its kinds are read from that one.
    pub fn moved_to(&mut self, tree: &Path) -> bool {
        self.tree = Some(tree.to_owned());
        if self.explicit.is_some() {
            return false;
        }
        let found = tree.parent().and_then(|d| {
            crate::io::find_project(if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            })
        });
        let same = match (&found, &self.loaded.project) {
            (Some(a), Some(b)) => crate::io::same_file(a, b),
            (None, None) => true,
            _ => false,
        };
        if same {
            return false;
        }
        *self = Self::new(Some(tree), None);
        true
    }

    /// The project file given on the command line, if any.
    pub fn explicit(&self) -> Option<&Path> {
        self.explicit.as_deref()
    }

    /// What went wrong reading the project and its libraries.
    pub fn problems(&self) -> &[Problem] {
        &self.loaded.problems
    }

    /// The catalog for `tree`: the project's kinds, and placeholders for the kinds of
    /// `tree` that none defines.
    pub fn catalog_for(&self, tree: &Tree) -> Catalog {
        let mut c = self.loaded.catalog.clone();
        c.add_placeholders(tree);
        c
    }

    /// Whether a project file changed since the last call (a frame asks once); reads the
    /// project again when one did. Wakes nothing: call it from the frame.
    pub fn poll(&mut self, ctx: &egui::Context) -> bool {
        let _ = self.wake.set(ctx.clone());
        if self.changes.try_iter().count() == 0 {
            return false;
        }
        let again = Self::new(self.tree.as_deref(), self.explicit.as_deref());
        *self = again;
        let _ = self.wake.set(ctx.clone());
        true
    }
}

/// A watcher of the folders of `files` that sends on the channel when one of `files`
/// changes, and wakes the context in `wake` so that the next frame reloads.
fn watch(
    files: &[PathBuf],
    wake: &Arc<OnceLock<egui::Context>>,
) -> (Option<notify::RecommendedWatcher>, Receiver<()>) {
    use notify::{RecursiveMode, Watcher};
    let (tx, rx) = channel();
    if files.is_empty() {
        return (None, rx);
    }
    let names: Vec<PathBuf> = files
        .iter()
        .map(|f| std::path::absolute(f).unwrap_or_else(|_| f.clone()))
        .collect();
    let wanted = names.clone();
    let wake = wake.clone();
    let handler = move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        if event.kind.is_access() {
            return;
        }
        if event.paths.iter().any(|p| {
            wanted
                .iter()
                .any(|w| w == p || w.file_name() == p.file_name())
        }) {
            let _ = tx.send(());
            if let Some(ctx) = wake.get() {
                ctx.request_repaint();
            }
        }
    };
    let Ok(mut watcher) = notify::recommended_watcher(handler) else {
        return (None, rx);
    };
    // Folders, not files: editors and `git` replace a file by renaming another over it.
    let mut folders: Vec<&Path> = names.iter().filter_map(|n| n.parent()).collect();
    folders.sort();
    folders.dedup();
    for folder in folders {
        let _ = watcher.watch(folder, RecursiveMode::NonRecursive);
    }
    (Some(watcher), rx)
}
