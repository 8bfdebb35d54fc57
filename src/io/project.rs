//! Project files (`arbor.project.json`, format `arbor.project`): the node libraries a
//! game's trees use, found by walking up from a tree file's folder as cargo finds
//! `Cargo.toml`. The editor, `validate`, `run`, `fmt` and `kinds` all build their catalog
//! here, so they see the same kinds.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::canonical::to_canonical_json;
use super::keys::Keys;
use super::library::{Library, Problem, parse_placed, read_headed};
use crate::model::{Catalog, CatalogError, KeyDecl, Origin, Severity};

/// The name of a project file.
pub const PROJECT_FILE: &str = "arbor.project.json";
/// The `format` header of a project file.
pub const PROJECT_FORMAT: &str = super::header::PROJECT.name;
/// The newest project version this build reads and the one it writes.
pub const PROJECT_VERSION: u64 = super::header::PROJECT.newest;

#[derive(Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a project file: an object with \"format\", \"version\" and \"nodes\""
)]
struct ProjectFile {
    format: String,
    version: u64,
    #[serde(default)]
    nodes: Vec<String>,
    /// The keys every tree of the project may use (FORMAT.md "Keys").
    #[serde(default, skip_serializing_if = "is_empty")]
    keys: Keys,
    /// The names scripts read as whole numbers (BehaviorTree.CPP's scripting enums).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    enums: std::collections::BTreeMap<String, i64>,
}

fn is_empty(keys: &Keys) -> bool {
    keys.0.is_empty()
}

/// A project: its file and the node libraries it lists.
#[derive(Clone, Debug, PartialEq)]
pub struct Project {
    /// The project file.
    pub path: PathBuf,
    /// The node library files, as written: relative to the project file's folder.
    pub nodes: Vec<String>,
    /// The keys every tree of the project may use.
    pub keys: Vec<KeyDecl>,
    /// The names its trees' scripts and Switches read as whole numbers (BehaviorTree.CPP's
    /// scripting enums: `RED` is 0), by name.
    pub enums: std::collections::BTreeMap<String, i64>,
}

impl Project {
    /// The library file of entry `entry`, found from the project file's folder.
    pub fn library_path(&self, entry: &str) -> PathBuf {
        self.path.parent().unwrap_or(Path::new("")).join(entry)
    }

    /// The canonical text of the project file.
    pub fn to_text(&self) -> String {
        let file = ProjectFile {
            format: PROJECT_FORMAT.into(),
            version: PROJECT_VERSION,
            nodes: self.nodes.clone(),
            keys: Keys(self.keys.clone()),
            enums: self.enums.clone(),
        };
        to_canonical_json(&serde_json::to_value(&file).unwrap_or_default())
    }
}

/// The project file that governs files in `folder`: `arbor.project.json` in it or in the
/// nearest folder above it that has one. Anything of that name counts, not only a
/// regular file: a FIFO, a folder or a symbolic link that leads nowhere is the project
/// file found (and reading it says what it is), never passed over for a folder above.
pub fn find_project(folder: &Path) -> Option<PathBuf> {
    use std::io::ErrorKind;
    let start = std::path::absolute(folder).unwrap_or_else(|_| folder.to_owned());
    start
        .ancestors()
        .map(|d| d.join(PROJECT_FILE))
        .find(|p| match std::fs::symlink_metadata(p) {
            Ok(_) => true,
            Err(e) => !matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory),
        })
}

/// The project file that governs the file `file`: the one found from its folder (the
/// current folder for a bare file name).
pub fn project_for(file: &Path) -> Option<PathBuf> {
    match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => find_project(dir),
        _ => find_project(Path::new(".")),
    }
}

/// What [`list_library`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listed {
    /// It made the project file, listing the library.
    Made,
    /// It added the library to the project file's list.
    Added,
    /// The project file listed it already.
    Already,
}

/// Lists the node library (or BehaviorTree.CPP models file) `library` in the project file
/// `project`, by its path relative to the project's folder ([`relative_path`]; absolute
/// where it has none); a project file that does not exist is made, listing it alone. The file
/// is written atomically, and not at all when it lists the library already.
pub fn list_library(project: &Path, library: &Path) -> Result<Listed, super::LoadError> {
    use super::LoadError;
    let folder = project.parent().filter(|f| !f.as_os_str().is_empty());
    let folder = folder.unwrap_or(Path::new("."));
    // Relative where it can be, so the project moves with its folder; else absolute.
    let entry = relative_path(library, folder).unwrap_or_else(|| {
        std::path::absolute(library)
            .unwrap_or_else(|_| library.to_owned())
            .display()
            .to_string()
    });
    let (mut listed, made) = if project.exists() {
        let text = super::read_text(project).map_err(|e| LoadError::Read {
            path: project.to_owned(),
            source: std::sync::Arc::new(e),
        })?;
        let listed = parse_project(&text, project).map_err(|p| LoadError::Format {
            path: project.to_owned(),
            message: p.to_string(),
        })?;
        (listed, false)
    } else {
        let empty = Project {
            path: project.to_owned(),
            nodes: Vec::new(),
            keys: Vec::new(),
            enums: Default::default(),
        };
        (empty, true)
    };
    let same = |e: &String| *e == entry || super::same_file(&listed.library_path(e), library);
    if listed.nodes.iter().any(same) {
        return Ok(Listed::Already);
    }
    listed.nodes.push(entry);
    super::write_atomically(project, listed.to_text().as_bytes())?;
    Ok(if made { Listed::Made } else { Listed::Added })
}

/// `path` relative to `folder`, `/`-separated, with `..` for each folder to go up, worked
/// out between their real places (links followed, `.` and `..` taken out), and checked to
/// name `path` from `folder` where it exists; `None` where there is no such path (another
/// drive) or it would not name it.
pub fn relative_path(path: &Path, folder: &Path) -> Option<String> {
    let real = |p: &Path| {
        std::fs::canonicalize(p)
            .or_else(|_| std::path::absolute(p))
            .ok()
            .map(|p| lexical(&p))
    };
    let (to, from) = (real(path)?, real(folder)?);
    let (to, from): (Vec<_>, Vec<_>) = (to.components().collect(), from.components().collect());
    let common = to.iter().zip(&from).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return None;
    }
    let up = std::iter::repeat_n("..".to_owned(), from.len() - common);
    let down = to[common..]
        .iter()
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    let entry = up.chain(down).collect::<Vec<_>>().join("/");
    let names_it = !path.exists() || super::same_file(&folder.join(&entry), path);
    names_it.then_some(entry)
}

/// `path` with its `.` parts taken out and each `..` taking out the part before it.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// Parses the text of a project file; `path` names it in problems.
pub fn parse_project(text: &str, path: &Path) -> Result<Project, Problem> {
    let file: ProjectFile = read_headed(text, path, super::header::PROJECT)?;
    if let Some(name) = file
        .enums
        .keys()
        .find(|n| !crate::model::script::is_name(n))
    {
        return Err(Problem::file(
            path,
            format!(
                "the enum '{name}' is not a name a script can say (a letter or '_', then letters, digits and '_')"
            ),
        ));
    }
    Ok(Project {
        path: path.to_owned(),
        nodes: file.nodes,
        keys: file.keys.0,
        enums: file.enums,
    })
}

/// The node kinds a tree sees: the built-ins (and a game's registered kinds), then every
/// kind of its project's libraries, with what went wrong on the way.
#[derive(Clone, Debug)]
pub struct ProjectCatalog {
    /// The kinds.
    pub catalog: Catalog,
    /// The project file read, if any.
    pub project: Option<PathBuf>,
    /// The files the kinds came from (the project file, then each library), to watch for
    /// changes.
    pub files: Vec<PathBuf>,
    /// What could not be read, or was left out, naming the file and the kind.
    pub problems: Vec<Problem>,
}

impl ProjectCatalog {
    /// The catalog of the project governing `tree` (the file `explicit` when given, else
    /// the one found by walking up from the tree's folder; none for a tree not saved),
    /// over `base`.
    /// A BehaviorTree.CPP file's own `<TreeNodesModel>` adds the kinds it describes that
    /// the project does not know ([`ProjectCatalog::with_file_models`]).
    pub fn for_tree(tree: Option<&Path>, explicit: Option<&Path>, base: &Catalog) -> Self {
        let found = explicit
            .map(Path::to_owned)
            .or_else(|| tree.and_then(project_for));
        let me = Self::load(found.as_deref(), base);
        match tree.and_then(|t| me.with_file_models(t)) {
            Some(with) => with,
            None => me,
        }
    }

    /// This catalog with the kinds that the `<TreeNodesModel>` of the BehaviorTree.CPP file
    /// (or recording) `tree` describes and that it does not know, as a library named after the file
    /// (docs/BTCPP.md, "The file's own models"); `None` when the file is not
    /// BehaviorTree.CPP's, does not read, or describes no such kind. (A file that does not
    /// read says why when its tree is loaded.)
    pub fn with_file_models(&self, tree: &Path) -> Option<Self> {
        // (A BehaviorTree.CPP recording's tree is the document it embeds.)
        let text = if super::is_btlog(tree) {
            super::read_btlog_tree(tree).ok()?
        } else if super::btcpp::is_xml(tree) {
            super::read_text(tree).ok()?
        } else {
            return None;
        };
        let name = super::btcpp::library_name(tree);
        let (library, _) = super::btcpp::models_library(&text, tree, &name).ok()?;
        let mut me = self.clone();
        let mut added = 0;
        for kind in library.kinds {
            if me.catalog.kind(&kind.name).is_none() && me.catalog.add_library_kind(kind).is_ok() {
                added += 1;
            }
        }
        (added > 0).then_some(me)
    }

    /// The catalog of the project file `project` (none: `base` alone), over `base`.
    pub fn load(project: Option<&Path>, base: &Catalog) -> Self {
        let mut me = Self {
            catalog: base.clone(),
            project: project.map(Path::to_owned),
            files: Vec::new(),
            problems: Vec::new(),
        };
        let Some(path) = project else { return me };
        me.files.push(path.to_owned());
        let text = match super::read_text(path) {
            Ok(t) => t,
            Err(e) => {
                me.problems.push(Problem::file(
                    path,
                    format!("cannot read the project file: {e}"),
                ));
                return me;
            }
        };
        let project = match parse_project(&text, path) {
            Ok(p) => p,
            Err(p) => {
                me.problems.push(p);
                return me;
            }
        };
        me.catalog.declare_shared_keys(project.keys.clone());
        me.catalog.declare_enums(project.enums.clone());
        // One file, however the project spells it: each library's other spellings.
        let mut read: std::collections::HashMap<PathBuf, usize> = Default::default();
        let mut again: Vec<(&str, Vec<&str>)> = Vec::new();
        for entry in &project.nodes {
            let file = project.library_path(entry);
            let identity = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
            if let Some(&first) = read.get(&identity) {
                again[first].1.push(entry);
                continue;
            }
            read.insert(identity, again.len());
            again.push((entry, Vec::new()));
            me.files.push(file.clone());
            me.add_library(path, entry, &file);
        }
        for (entry, others) in again.iter().filter(|(_, o)| !o.is_empty()) {
            me.problems.push(Problem {
                severity: Severity::Warning,
                ..Problem::file(path, listed_again(entry, others))
            });
        }
        me
    }

    /// Reads the library `file` (listed as `entry` in `project`) into the catalog.
    fn add_library(&mut self, project: &Path, entry: &str, file: &Path) {
        let text = match super::read_text(file) {
            Ok(t) => t,
            Err(e) => {
                self.problems.push(Problem::file(
                    project,
                    format!(
                        "the node library \"{entry}\" cannot be read ({}: {e}); its kinds open as placeholders",
                        file.display()
                    ),
                ));
                return;
            }
        };
        self.add_library_text(file, &text);
    }

    /// Reads the node library file `file` (or a BehaviorTree.CPP models file) into the
    /// catalog, as a project that lists it does; what could not be read, or was left
    /// out, goes to `problems` (a game that loads its libraries itself: the C ABI).
    pub fn add_library_file(&mut self, file: &Path) {
        let entry = file.display().to_string();
        self.files.push(file.to_owned());
        self.add_library(file, &entry, file);
    }

    /// Reads `text`, the node library (or BehaviorTree.CPP models file) named `file` in
    /// messages, into the catalog: its kinds, and to `problems` what it says is wrong.
    pub fn add_library_text(&mut self, file: &Path, text: &str) {
        if super::btcpp::is_models_file(file) {
            // A BehaviorTree.CPP file's or Groot2 project's node models (docs/BTCPP.md).
            let name = super::btcpp::library_name(file);
            match super::btcpp::models_library(text, file, &name) {
                Ok((library, places)) => {
                    let at = |i: usize| places.get(i).copied();
                    let left_out = add_kinds(&mut self.catalog, library, &at, file);
                    self.problems.extend(left_out);
                }
                Err(p) => self.problems.push(Problem {
                    place: (p.line > 0).then_some((p.line, p.column)),
                    ..Problem::file(file, p.message)
                }),
            }
            return;
        }
        let super::library::Placed {
            library,
            problems,
            starts,
        } = match parse_placed(text, file) {
            Ok(l) => l,
            Err(p) => {
                self.problems.push(p);
                return;
            }
        };
        self.problems.extend(problems);
        let places = super::library::Places::new(text);
        let at = |i: usize| starts.get(i).map(|&offset| places.of(offset));
        let left_out = add_kinds(&mut self.catalog, library, &at, file);
        self.problems.extend(left_out);
    }

    /// Whether any problem is an error.
    pub fn has_errors(&self) -> bool {
        self.problems.iter().any(Problem::is_error)
    }
}

/// The most spellings of one library a warning quotes; the rest are counted.
const SPELLINGS_SHOWN: usize = 3;

/// The warning for the library `entry` listed again as each of `others`: one line, however
/// many times.
fn listed_again(entry: &str, others: &[&str]) -> String {
    use crate::model::names::clipped;
    let times = match others.len() {
        1 => "twice".to_owned(),
        n => format!("{} times", n + 1),
    };
    // The first few other spellings; the rest of the listings counted.
    let mut shown: Vec<&str> = Vec::new();
    for o in others {
        if shown.len() == SPELLINGS_SHOWN {
            break;
        }
        if *o != entry && !shown.contains(o) {
            shown.push(o);
        }
    }
    let more = others.len() - shown.len();
    let mut spellings: Vec<String> = shown
        .iter()
        .map(|o| format!("\"{}\"", clipped(o)))
        .collect();
    if more > 0 && !spellings.is_empty() {
        spellings.push(format!("{more} more"));
    }
    let also = match spellings.len() {
        0 => String::new(),
        1 => format!(", also as {}", spellings[0]),
        n => format!(
            ", also as {} and {}",
            spellings[..n - 1].join(", "),
            spellings[n - 1]
        ),
    };
    format!(
        "lists the node library \"{}\" {times}{also}; it is read once",
        clipped(entry)
    )
}

/// Adds the kinds of `library`, read from `file`, to `catalog`; returns the problems of
/// those left out (a kind defined already, a branch that runs as no built-in kind), each
/// naming the kind and where it starts (`at`: the line and column of the kind in that
/// place of the library).
fn add_kinds(
    catalog: &mut Catalog,
    library: Library,
    at: &dyn Fn(usize) -> Option<(u32, u32)>,
    file: &Path,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (i, kind) in library.kinds.into_iter().enumerate() {
        let name = kind.name.clone();
        let existing = catalog.kind(&kind.name).map(|k| k.origin.clone());
        let message = match catalog.add_library_kind(kind) {
            Ok(()) => continue,
            Err(CatalogError::Duplicate(_)) => match existing {
                Some(Origin::Library { file: other, .. }) => format!(
                    "{} defines this kind already, and that one is kept; rename one of them",
                    other.display()
                ),
                Some(Origin::Registered) => {
                    "the game registers this kind in its code; that one is kept".into()
                }
                _ => "shadows the built-in kind of the same name; the built-in is kept, rename the library's".into(),
            },
            Err(e) => {
                let message = e.to_string();
                message
                    .strip_prefix(&format!("'{name}': "))
                    .unwrap_or(&message)
                    .to_owned()
            }
        };
        problems.push(Problem {
            kind: Some(name),
            place: at(i),
            ..Problem::file(file, message)
        });
    }
    problems
}

/// The problems of the node library file `path`, whose text is `text`, read on its own
/// over `base` (so that a kind shadowing a built-in one is found).
pub fn check_library(path: &Path, text: &str, base: &Catalog) -> Vec<Problem> {
    match parse_placed(text, path) {
        Err(p) => vec![p],
        Ok(placed) => {
            let mut catalog = base.clone();
            let mut problems = placed.problems;
            let places = super::library::Places::new(text);
            let at = |i: usize| placed.starts.get(i).map(|&offset| places.of(offset));
            problems.extend(add_kinds(&mut catalog, placed.library, &at, path));
            problems
        }
    }
}
