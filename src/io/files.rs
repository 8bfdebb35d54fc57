//! A set of tree files read from disk, cached, with SubTree assets resolved relative to
//! the file that names them and cycles across files detected.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::{LoadError, load_tree, parse_tree};
use crate::model::{AssetStatus, Assets, Catalog, Diagnostic, Tree, summarize, validate};

type Loaded = Rc<Result<Tree, LoadError>>;

/// Tree files loaded from disk, each read once, and their validation.
pub struct TreeFiles<'c> {
    catalog: &'c Catalog,
    loaded: RefCell<HashMap<PathBuf, Loaded>>,
    validated: RefCell<HashMap<PathBuf, Rc<Vec<Diagnostic>>>>,
    /// What each asset is to the trees that include it: found once per file, however
    /// many SubTrees name it.
    resolved: RefCell<HashMap<PathBuf, AssetStatus>>,
    /// The files whose SubTrees are being resolved, outermost first, each with the lowest
    /// position on this stack that a cycle found below it leads back to. A SubTree naming a
    /// file on the stack closes a cycle: found at once, with no walk of the files.
    resolving: RefCell<Vec<(PathBuf, Option<Back>)>>,
}

/// How much of an asset's first error the including tree's finding quotes.
const QUOTED_CHARS: usize = 240;

/// Where a cycle of SubTree files leads back to on the stack, and its chain of file names.
type Back = (usize, String);

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
            resolving: RefCell::default(),
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

    /// Every file read so far (made absolute), sorted.
    pub fn paths(&self) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = self.loaded.borrow().keys().cloned().collect();
        paths.sort();
        paths
    }

    /// Runs `f` with `path` on the stack of files being resolved (unless it is on top
    /// already); returns what `f` gave and, when `path` was pushed, the lowest position a
    /// cycle found below it leads back to, with that cycle's chain.
    fn entered<R>(&self, path: &Path, f: impl FnOnce() -> R) -> (R, Option<Back>) {
        let key = identity(path);
        let pushed = self.resolving.borrow().last().map(|(p, _)| p) != Some(&key);
        if pushed {
            self.resolving.borrow_mut().push((key, None));
        }
        let r = f();
        let back = if pushed {
            self.resolving.borrow_mut().pop().and_then(|(_, b)| b)
        } else {
            None
        };
        (r, back)
    }

    /// Records, for the file on top of the stack, that a cycle leads back to position `at`.
    fn note_back(&self, at: usize, chain: &str) {
        if let Some((_, back)) = self.resolving.borrow_mut().last_mut()
            && back.as_ref().is_none_or(|(lowest, _)| at < *lowest)
        {
            *back = Some((at, chain.to_owned()));
        }
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
        let assets = FileAssets {
            files: self,
            including: path.to_owned(),
        };
        self.entered(path, || validate(tree, self.catalog, &assets))
            .0
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
        let key = identity(&target);
        let closes = {
            let stack = self.files.resolving.borrow();
            stack.iter().position(|(p, _)| *p == key).map(|at| {
                let names: Vec<String> = stack[at..]
                    .iter()
                    .map(|(p, _)| short(p))
                    .chain(std::iter::once(short(&key)))
                    .collect();
                (at, names.join(" → "))
            })
        };
        if let Some((at, chain)) = closes {
            self.files.note_back(at, &chain);
            return AssetStatus::Cycle(chain);
        }
        if let Some(status) = self.files.resolved.borrow().get(&key) {
            return status.clone();
        }
        let below = self.files.resolving.borrow().len();
        let (status, back) = self
            .files
            .entered(&target, || self.status_of(target.clone()));
        match back {
            // It leads back to the including file or further out: from here, a cycle.
            // (Not kept: what it is depends on where it is reached from.)
            Some((at, chain)) if at < below => {
                self.files.note_back(at, &chain);
                AssetStatus::Cycle(chain)
            }
            _ => {
                self.files.resolved.borrow_mut().insert(key, status.clone());
                status
            }
        }
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
            // An asset's first error may itself quote its own asset's: cut, so the text
            // stays bounded however deep the SubTrees go.
            let first = first.to_string();
            let first = match first.char_indices().nth(QUOTED_CHARS) {
                Some((cut, _)) => format!("{} …", &first[..cut]),
                None => first,
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
