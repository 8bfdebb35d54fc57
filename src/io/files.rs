//! A set of tree files read from disk, cached, with SubTree assets resolved relative to
//! the file that names them and cycles across files detected.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::{LoadError, load_tree, parse_tree};
use crate::model::{
    AssetStatus, Assets, Catalog, Category, Diagnostic, Tree, Value, summarize, validate,
};

type Loaded = Rc<Result<Tree, LoadError>>;

/// Tree files loaded from disk, each read once, and their validation.
pub struct TreeFiles<'c> {
    catalog: &'c Catalog,
    loaded: RefCell<HashMap<PathBuf, Loaded>>,
    validated: RefCell<HashMap<PathBuf, Rc<Vec<Diagnostic>>>>,
    /// What each asset is to the trees that include it: found once per file, however
    /// many SubTrees name it.
    resolved: RefCell<HashMap<PathBuf, AssetStatus>>,
}

/// The file a path names, made absolute where possible so that two spellings of one file agree.
fn identity(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| std::path::absolute(path).unwrap_or_else(|_| path.to_owned()))
}

fn short(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

impl<'c> TreeFiles<'c> {
    /// An empty set reading kinds from `catalog`.
    pub fn new(catalog: &'c Catalog) -> Self {
        Self {
            catalog,
            loaded: RefCell::default(),
            validated: RefCell::default(),
            resolved: RefCell::default(),
        }
    }

    /// The catalog in use.
    pub fn catalog(&self) -> &'c Catalog {
        self.catalog
    }

    /// Loads a tree file once; later calls return the same result.
    pub fn load(&self, path: &Path) -> Loaded {
        self.load_with(path, || load_tree(path))
    }

    /// The tree file at `path` whose text was already read (by a caller that looked at
    /// its header): parsed and kept as if [`TreeFiles::load`] had read it.
    pub fn load_text(&self, path: &Path, text: &str) -> Loaded {
        self.load_with(path, || parse_tree(text, path))
    }

    fn load_with(&self, path: &Path, read: impl FnOnce() -> Result<Tree, LoadError>) -> Loaded {
        let key = identity(path);
        if let Some(t) = self.loaded.borrow().get(&key) {
            return t.clone();
        }
        let t = Rc::new(read());
        self.loaded.borrow_mut().insert(key, t.clone());
        t
    }

    /// Every file read so far (made absolute), in no order.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.loaded.borrow().keys().cloned().collect()
    }

    /// The files a tree's SubTree nodes name, resolved against the folder of `path`.
    fn asset_paths(&self, path: &Path, tree: &Tree) -> Vec<PathBuf> {
        let dir = path.parent().unwrap_or(Path::new(""));
        tree.nodes()
            .iter()
            .filter(|n| self.catalog.category_of(&n.kind) == Some(Category::SubTree))
            .filter_map(|n| match n.fields.get("asset") {
                Some(Value::Text(a)) if !a.trim().is_empty() => Some(dir.join(a)),
                _ => None,
            })
            .collect()
    }

    /// A chain of files from `from` through SubTree assets back to `target`, if there is one.
    fn path_back(&self, from: &Path, target: &Path) -> Option<Vec<PathBuf>> {
        let target = identity(target);
        let mut seen = HashSet::new();
        let mut stack = vec![vec![from.to_owned()]];
        while let Some(chain) = stack.pop() {
            let Some(last) = chain.last() else { continue };
            if identity(last) == target {
                return Some(chain);
            }
            if !seen.insert(identity(last)) {
                continue;
            }
            if let Ok(tree) = &*self.load(last) {
                for next in self.asset_paths(last, tree) {
                    let mut longer = chain.clone();
                    longer.push(next);
                    stack.push(longer);
                }
            }
        }
        None
    }

    /// Validates a tree file, with its SubTree assets. `Err` when the file itself cannot be loaded.
    pub fn validate_file(&self, path: &Path) -> Result<Vec<Diagnostic>, LoadError> {
        match &*self.load(path) {
            Ok(tree) => Ok(self.validate_cached(path, tree).as_ref().clone()),
            Err(e) => Err(e.clone()),
        }
    }

    /// The resolver of SubTree assets for a tree saved at `path`.
    pub fn assets_for(&self, path: &Path) -> impl Assets + '_ {
        FileAssets {
            files: self,
            including: path.to_owned(),
        }
    }

    /// Validates a tree held in memory as if it were saved at `path` (the editor's case).
    pub fn validate_tree(&self, path: &Path, tree: &Tree) -> Vec<Diagnostic> {
        validate(
            tree,
            self.catalog,
            &FileAssets {
                files: self,
                including: path.to_owned(),
            },
        )
    }

    fn validate_cached(&self, path: &Path, tree: &Tree) -> Rc<Vec<Diagnostic>> {
        let key = identity(path);
        if let Some(d) = self.validated.borrow().get(&key) {
            return d.clone();
        }
        let d = Rc::new(self.validate_tree(path, tree));
        self.validated.borrow_mut().insert(key, d.clone());
        d
    }
}

/// Resolves SubTree assets relative to the file that names them.
struct FileAssets<'f, 'c> {
    files: &'f TreeFiles<'c>,
    including: PathBuf,
}

impl Assets for FileAssets<'_, '_> {
    fn resolve(&self, asset: &str) -> AssetStatus {
        let dir = self.including.parent().unwrap_or(Path::new(""));
        let target = dir.join(asset);
        // (A folder or a device is there: reading it below says which it is.)
        if !target.exists() {
            return AssetStatus::Missing(format!("no such file: {}", target.display()));
        }
        if let Some(chain) = self.files.path_back(&target, &self.including) {
            let names: Vec<String> = std::iter::once(&self.including)
                .chain(chain.iter())
                .map(|p| short(p))
                .collect();
            return AssetStatus::Cycle(names.join(" → "));
        }
        let key = identity(&target);
        if let Some(status) = self.files.resolved.borrow().get(&key) {
            return status.clone();
        }
        let status = self.status_of(target);
        self.files.resolved.borrow_mut().insert(key, status.clone());
        status
    }

    fn open(&self, asset: &str) -> Option<(Tree, Box<dyn Assets + '_>)> {
        let dir = self.including.parent().unwrap_or(Path::new(""));
        let target = dir.join(asset);
        let tree = self.files.load(&target).as_ref().as_ref().ok()?.clone();
        Some((
            tree,
            Box::new(FileAssets {
                files: self.files,
                including: target,
            }),
        ))
    }
}

impl FileAssets<'_, '_> {
    /// What the asset file `target` is: unreadable, broken, or valid and summarised.
    fn status_of(&self, target: PathBuf) -> AssetStatus {
        let loaded = self.files.load(&target);
        let tree = match &*loaded {
            Ok(tree) => tree,
            Err(LoadError::Read { source, .. }) => {
                return AssetStatus::Missing(format!("cannot read {}: {source}", target.display()));
            }
            Err(e) => return AssetStatus::Invalid(e.to_string()),
        };
        let diags = self.files.validate_cached(&target, tree);
        let errors: Vec<&Diagnostic> = diags.iter().filter(|d| d.is_error()).collect();
        if let Some(first) = errors.first() {
            let more = if errors.len() > 1 {
                format!(" (and {} more errors)", errors.len() - 1)
            } else {
                String::new()
            };
            return AssetStatus::Invalid(format!("{}: {first}{more}", short(&target)));
        }
        AssetStatus::Ok(summarize(
            tree,
            self.files.catalog,
            &FileAssets {
                files: self.files,
                including: target,
            },
        ))
    }
}
