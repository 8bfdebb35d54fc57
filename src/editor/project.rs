//! The editor's node kinds: the built-ins and the libraries of the tree's project, with
//! placeholders for kinds no library knows, reloaded when a library file changes on disk.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use eframe::egui;

use crate::io::{FileWatch, Problem, ProjectCatalog};
use crate::model::{Catalog, KindSpec, Tree};

/// The project a tree is edited in: its kinds and a watch on the files they come from.
pub struct ProjectKinds {
    /// The project file given on the command line, used instead of the one found.
    explicit: Option<PathBuf>,
    /// The tree file the project was found from.
    tree: Option<PathBuf>,
    /// The project's kinds, without placeholders.
    loaded: ProjectCatalog,
    /// Watches the project's files.
    watch: FileWatch,
    /// The context to wake when a change comes (set at the first frame).
    wake: Arc<OnceLock<egui::Context>>,
    /// Kinds a game shown live declares that the project does not.
    game: Vec<KindSpec>,
}

impl ProjectKinds {
    /// The kinds for a tree saved at `tree`, from `explicit` or the project found from it.
    pub fn new(tree: Option<&Path>, explicit: Option<&Path>) -> Self {
        let loaded = ProjectCatalog::for_tree(tree, explicit, &Catalog::builtin());
        let wake: Arc<OnceLock<egui::Context>> = Arc::new(OnceLock::new());
        // Without a project, a project file made beside the tree later is picked up.
        let watched = match (&loaded.project, tree.and_then(Path::parent)) {
            (None, Some(dir)) => vec![dir.join(crate::io::PROJECT_FILE)],
            _ => loaded.files.clone(),
        };
        let waker = wake.clone();
        let watch = FileWatch::new(&watched, move || {
            if let Some(ctx) = waker.get() {
                ctx.request_repaint();
            }
        });
        Self {
            explicit: explicit.map(Path::to_owned),
            tree: tree.map(Path::to_owned),
            loaded,
            watch,
            wake,
            game: Vec::new(),
        }
    }

    /// The folder of the project: its project file's, else the tree's (absolute).
    pub fn folder(&self) -> Option<PathBuf> {
        let file = self.loaded.project.as_ref().or(self.tree.as_ref())?;
        let folder = file.parent().filter(|d| !d.as_os_str().is_empty())?;
        Some(std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_owned()))
    }

    /// Whether the tree, now saved at `tree`, is governed by another project than before
    /// (none given on the command line); if so, its kinds are read from that one.
    pub fn moved_to(&mut self, tree: &Path) -> bool {
        self.tree = Some(tree.to_owned());
        if self.explicit.is_some() {
            return false;
        }
        let found = crate::io::project_for(tree);
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

    /// The project file, if the tree has one.
    pub fn file(&self) -> Option<&Path> {
        self.loaded.project.as_deref()
    }

    /// Reads the project's files again now (after the editor wrote one).
    pub fn reload(&mut self) {
        let wake = self.wake.clone();
        *self = Self::new(self.tree.as_deref(), self.explicit.as_deref());
        if let Some(ctx) = wake.get() {
            let _ = self.wake.set(ctx.clone());
        }
    }

    /// The project file given on the command line, if any.
    pub fn explicit(&self) -> Option<&Path> {
        self.explicit.as_deref()
    }

    /// What went wrong reading the project and its libraries.
    pub fn problems(&self) -> &[Problem] {
        &self.loaded.problems
    }

    /// The catalog for `tree`: the project's kinds, those a game shown live declares that
    /// the project does not, and placeholders for the kinds of `tree` that none defines.
    pub fn catalog_for(&self, tree: &Tree) -> Catalog {
        let mut c = self.loaded.catalog.clone();
        for k in &self.game {
            // (A kind the project has is the project's; `game` holds none such.)
            let _ = c.add_library_kind(k.clone());
        }
        c.add_placeholders(tree);
        c
    }

    /// The project's own kind `name` (built-in or from its libraries).
    pub fn kind(&self, name: &str) -> Option<&KindSpec> {
        self.loaded.catalog.kind(name)
    }

    /// Sets the kinds a game shown live declares that the project does not (none: the
    /// project's kinds only).
    pub fn set_game_kinds(&mut self, kinds: Vec<KindSpec>) {
        self.game = kinds;
    }

    /// Whether kinds of a game are in use.
    pub fn has_game_kinds(&self) -> bool {
        !self.game.is_empty()
    }

    /// Whether a project file changed since the last call (a frame asks once); reads the
    /// project again when one did. Wakes nothing: call it from the frame.
    pub fn poll(&mut self, ctx: &egui::Context) -> bool {
        let _ = self.wake.set(ctx.clone());
        if !self.watch.changed() {
            return false;
        }
        let again = Self::new(self.tree.as_deref(), self.explicit.as_deref());
        *self = again;
        let _ = self.wake.set(ctx.clone());
        true
    }
}
