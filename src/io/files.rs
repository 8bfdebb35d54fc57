//! A set of tree files read from disk, cached, with SubTree assets resolved relative to
//! the file that names them and cycles across files detected. An asset names a file, or
//! one of a BehaviorTree.CPP file's `<BehaviorTree>`s (`FILE.xml#ID`, and `#ID`: the
//! including file's, one of the files it includes, or one of its folder's).

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::includes::{identity, included, short};
use super::{LoadError, btcpp, load_tree, load_tree_named, parse_tree, read_text, split_asset};
use crate::model::{AssetStatus, Assets, Catalog, Diagnostic, Tree, summarize, validate};

type Loaded = Rc<Result<Tree, LoadError>>;

/// A tree of a file: the file (made absolute) and, for one of a BehaviorTree.CPP file's
/// trees other than the one it runs, that tree's ID.
type At = (PathBuf, Option<String>);

/// Tree files loaded from disk, each read once, and their validation.
pub struct TreeFiles<'c> {
    catalog: &'c Catalog,
    loaded: RefCell<HashMap<At, Loaded>>,
    validated: RefCell<HashMap<At, Rc<Vec<Diagnostic>>>>,
    /// What each asset is to the trees that include it: found once per tree, however
    /// many SubTrees name it.
    resolved: RefCell<HashMap<At, AssetStatus>>,
    /// The trees whose SubTrees are being resolved, outermost first, each with the lowest
    /// position on this stack that a cycle found below it leads back to. A SubTree naming a
    /// tree on the stack closes a cycle: found at once, with no walk of the files.
    resolving: RefCell<Vec<(At, Option<Back>)>>,
    /// The outline of each BehaviorTree.CPP file looked into for a SubTree's tree.
    outlines: RefCell<HashMap<PathBuf, Rc<Option<btcpp::Outline>>>>,
    /// Each BehaviorTree.CPP file whose trees other than the one it runs were read, parsed
    /// once (a file of many trees is not parsed again for each).
    documents: RefCell<HashMap<PathBuf, Rc<Result<btcpp::Parsed, LoadError>>>>,
    /// Where each `#ID` looked for from a file was found ([`TreeFiles::locate`]).
    located: RefCell<HashMap<(PathBuf, String), Result<PathBuf, String>>>,
    /// The `.xml` files of each folder looked into, sorted.
    folders: RefCell<HashMap<PathBuf, Rc<Vec<PathBuf>>>>,
    /// What reading each BehaviorTree.CPP file given as text found to say
    /// ([`btcpp::Source::notes`]).
    notes: RefCell<HashMap<PathBuf, Vec<String>>>,
}

/// How deep trees may run one another through SubTrees before the resolver refuses (as
/// deep as a program nests), so that a chain of thousands cannot exhaust the stack.
const MAX_NESTING: usize = 256;

/// How much of an asset's first error the including tree's finding quotes.
const QUOTED_CHARS: usize = 240;

/// Where a cycle of SubTree files leads back to on the stack, and its chain of file names.
type Back = (usize, String);

/// A tree's name in messages: its file's, and its ID.
fn named(at: &At) -> String {
    match &at.1 {
        Some(id) => format!("{}#{id}", short(&at.0)),
        None => short(&at.0),
    }
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
            outlines: RefCell::default(),
            documents: RefCell::default(),
            located: RefCell::default(),
            folders: RefCell::default(),
            notes: RefCell::default(),
        }
    }

    /// The catalog in use.
    pub fn catalog(&self) -> &'c Catalog {
        self.catalog
    }

    /// Loads a tree file once; later calls return the same result.
    pub fn load(&self, path: &Path) -> Loaded {
        self.load_with((identity(path), None), || load_tree(path))
    }

    /// The tree of file `path` (with `tree`, its `<BehaviorTree>` of that ID), loaded once.
    fn load_at(&self, path: &Path, tree: Option<&str>) -> Loaded {
        let Some(id) = tree else {
            return self.load(path);
        };
        self.load_with((identity(path), Some(id.to_owned())), || {
            if !btcpp::is_xml(path) {
                return load_tree_named(path, tree);
            }
            let key = identity(path);
            let cached = self.documents.borrow().get(&key).cloned();
            let parsed = cached.unwrap_or_else(|| {
                let p = Rc::new(super::load_document(path));
                self.documents.borrow_mut().insert(key, p.clone());
                p
            });
            match &*parsed {
                Ok(p) => p.tree(Some(id)).map_err(|e| super::xml_error(path, e)),
                Err(e) => Err(e.clone()),
            }
        })
    }

    /// The tree file at `path` whose text was already read (by a caller that looked at
    /// its header): parsed and kept as if [`TreeFiles::load`] had read it.
    pub fn load_text(&self, path: &Path, text: &str) -> Loaded {
        self.load_with((identity(path), None), || {
            if !btcpp::is_xml(path) {
                return parse_tree(text, path);
            }
            let (tree, kept) = super::parse_xml_tree(text, path)?;
            if let Some(source) = kept {
                self.notes
                    .borrow_mut()
                    .insert(identity(path), source.notes().to_vec());
            }
            Ok(tree)
        })
    }

    /// What reading the BehaviorTree.CPP file at `path`, given by [`TreeFiles::load_text`],
    /// found to say: each note (nothing for any other file).
    pub fn notes(&self, path: &Path) -> Vec<String> {
        self.notes
            .borrow()
            .get(&identity(path))
            .cloned()
            .unwrap_or_default()
    }

    fn load_with(&self, key: At, read: impl FnOnce() -> Result<Tree, LoadError>) -> Loaded {
        if let Some(t) = self.loaded.borrow().get(&key) {
            return t.clone();
        }
        let mut t = read();
        if let Ok(tree) = &mut t {
            super::fit_to_kinds(&key.0, tree, self.catalog);
        }
        let t = Rc::new(t);
        self.loaded.borrow_mut().insert(key, t.clone());
        t
    }

    /// Every file read so far (made absolute), sorted: the trees loaded, the
    /// BehaviorTree.CPP files looked into for a SubTree's tree, and the files each
    /// BehaviorTree.CPP file loaded includes (and they include).
    pub fn paths(&self) -> Vec<PathBuf> {
        let loaded: Vec<PathBuf> = self
            .loaded
            .borrow()
            .keys()
            .map(|(p, _)| p.clone())
            .collect();
        let mut paths: std::collections::BTreeSet<PathBuf> = loaded.iter().cloned().collect();
        paths.extend(self.documents.borrow().keys().cloned());
        paths.extend(self.outlines.borrow().keys().cloned());
        let mut queue: Vec<PathBuf> = loaded.into_iter().filter(|p| btcpp::is_xml(p)).collect();
        let mut walked = std::collections::HashSet::new();
        while let Some(file) = queue.pop() {
            if !walked.insert(file.clone()) {
                continue;
            }
            if let Some(o) = self.outline(&file).as_ref() {
                for (written, _, _) in &o.includes {
                    let inc = identity(&included(&file, written));
                    paths.insert(inc.clone());
                    queue.push(inc);
                }
            }
        }
        paths.into_iter().collect()
    }

    /// The outline of BehaviorTree.CPP file `path`, read once (`None`: it cannot be read).
    fn outline(&self, path: &Path) -> Rc<Option<btcpp::Outline>> {
        let key = identity(path);
        if let Some(o) = self.outlines.borrow().get(&key) {
            return o.clone();
        }
        // (A BehaviorTree.CPP recording's trees are those it embeds.)
        let text = match super::btlog::is_btlog(path) {
            true => super::btlog::read_btlog_tree(path).ok(),
            false => read_text(path).ok(),
        };
        let o = Rc::new(text.and_then(|text| btcpp::outline(&text).ok()));
        self.outlines.borrow_mut().insert(key, o.clone());
        o
    }

    /// The file whose `<BehaviorTree ID="id">` a SubTree of `file` runs (SEMANTICS.md §3.5;
    /// docs/BTCPP.md says where BehaviorTree.CPP looks otherwise): `file` itself, the files
    /// it includes (and they include), nearest first, then the other `.xml` files of its
    /// folder in the order of their names.
    fn locate(&self, file: &Path, id: &str) -> Result<PathBuf, String> {
        let key = (identity(file), id.to_owned());
        if let Some(found) = self.located.borrow().get(&key) {
            return found.clone();
        }
        let found = self.search(file, id);
        self.located.borrow_mut().insert(key, found.clone());
        found
    }

    /// The `.xml` files of folder `dir`, sorted, listed once.
    fn xml_files(&self, dir: &Path) -> Rc<Vec<PathBuf>> {
        let key = identity(dir);
        if let Some(files) = self.folders.borrow().get(&key) {
            return files.clone();
        }
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| btcpp::is_xml(p) && p.is_file())
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        let files = Rc::new(files);
        self.folders.borrow_mut().insert(key, files.clone());
        files
    }

    /// [`TreeFiles::locate`], uncached.
    fn search(&self, file: &Path, id: &str) -> Result<PathBuf, String> {
        if !btcpp::is_xml(file) && !super::btlog::is_btlog(file) {
            return Err(format!(
                "'#{id}' names one of the trees of a BehaviorTree.CPP file, and {} is an Arbor tree file",
                short(file)
            ));
        }
        let has = |f: &Path| {
            self.outline(f)
                .as_ref()
                .as_ref()
                .is_some_and(|o| o.trees.iter().any(|t| t == id))
        };
        let mut seen = std::collections::HashSet::new();
        let mut queue = std::collections::VecDeque::from([file.to_owned()]);
        while let Some(f) = queue.pop_front() {
            if !seen.insert(identity(&f)) {
                continue;
            }
            if has(&f) {
                return Ok(f);
            }
            if let Some(o) = self.outline(&f).as_ref() {
                queue.extend(o.includes.iter().map(|(p, _, _)| included(&f, p)));
            }
        }
        let dir = file.parent().unwrap_or(Path::new(""));
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        for f in self.xml_files(dir).iter() {
            if has(f) && !seen.contains(&identity(f)) {
                return Ok(f.clone());
            }
        }
        Err(format!(
            "no <BehaviorTree ID=\"{id}\"> in {}, the files it includes, or its folder",
            short(file)
        ))
    }

    /// The tree an asset of a tree of `including` names: its file, and the ID of the
    /// `<BehaviorTree>` when it is not the one that file runs; why not, when it names none.
    pub fn target(
        &self,
        including: &Path,
        asset: &str,
    ) -> Result<(PathBuf, Option<String>), String> {
        let (file, tree) = split_asset(asset);
        let dir = including.parent().unwrap_or(Path::new(""));
        let Some(id) = tree else {
            return Ok((dir.join(file), None));
        };
        let path = if file.is_empty() {
            self.locate(including, id)?
        } else {
            dir.join(file)
        };
        let main = self
            .outline(&path)
            .as_ref()
            .as_ref()
            .and_then(|o| o.main.clone());
        let tree = (main.as_deref() != Some(id)).then(|| id.to_owned());
        Ok((path, tree))
    }

    /// Runs `f` with tree `key` on the stack of trees being resolved (unless it is on top
    /// already); returns what `f` gave and, when `key` was pushed, the lowest position a
    /// cycle found below it leads back to, with that cycle's chain.
    fn entered<R>(&self, key: At, f: impl FnOnce() -> R) -> (R, Option<Back>) {
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
            Ok(tree) => Ok(self.validate_cached(path, None, tree).as_ref().clone()),
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
        self.validate_at(path, None, tree)
    }

    /// Validates tree `tree` of file `path` (`id`: which of its `<BehaviorTree>`s).
    fn validate_at(&self, path: &Path, id: Option<&str>, tree: &Tree) -> Vec<Diagnostic> {
        let assets = FileAssets {
            files: self,
            including: path.to_owned(),
        };
        self.entered((identity(path), id.map(str::to_owned)), || {
            validate(tree, self.catalog, &assets)
        })
        .0
    }

    fn validate_cached(&self, path: &Path, id: Option<&str>, tree: &Tree) -> Rc<Vec<Diagnostic>> {
        let key = (identity(path), id.map(str::to_owned));
        if let Some(d) = self.validated.borrow().get(&key) {
            return d.clone();
        }
        let d = Rc::new(self.validate_at(path, id, tree));
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
        let (target, tree) = match self.files.target(&self.including, asset) {
            Ok(t) => t,
            Err(why) => return AssetStatus::Missing(why),
        };
        // (A folder or a device is there: reading it below says which it is.)
        if !target.exists() {
            return AssetStatus::Missing(format!("no such file: {}", target.display()));
        }
        if self.files.resolving.borrow().len() > MAX_NESTING {
            return AssetStatus::Invalid(format!(
                "SubTrees run one another more than {MAX_NESTING} deep"
            ));
        }
        let key = (identity(&target), tree.clone());
        let closes = {
            let stack = self.files.resolving.borrow();
            stack.iter().position(|(p, _)| *p == key).map(|at| {
                let names: Vec<String> = stack[at..]
                    .iter()
                    .map(|(p, _)| named(p))
                    .chain(std::iter::once(named(&key)))
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
            .entered(key.clone(), || self.status_of(&target, tree.as_deref()));
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
        let (target, id) = self.files.target(&self.including, asset).ok()?;
        let tree = self
            .files
            .load_at(&target, id.as_deref())
            .as_ref()
            .as_ref()
            .ok()?
            .clone();
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
    /// What the tree `id` of asset file `target` is: unreadable, broken, or valid and
    /// summarised.
    fn status_of(&self, target: &Path, id: Option<&str>) -> AssetStatus {
        let loaded = self.files.load_at(target, id);
        let tree = match &*loaded {
            Ok(tree) => tree,
            Err(LoadError::Read { source, .. }) => {
                return AssetStatus::Missing(format!("cannot read {}: {source}", target.display()));
            }
            Err(e) => return AssetStatus::Invalid(e.to_string()),
        };
        let name = named(&(target.to_owned(), id.map(str::to_owned)));
        let diags = self.files.validate_cached(target, id, tree);
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
            return AssetStatus::Invalid(format!("{name}: {first}{more}"));
        }
        AssetStatus::Ok(summarize(
            tree,
            self.files.catalog,
            &FileAssets {
                files: self.files,
                including: target.to_owned(),
            },
        ))
    }
}
