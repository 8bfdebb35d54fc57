//! Renaming a key the project declares (`plan_project_rename`), or a kind
//! (`plan_project_kind_rename`), in every tree of the project: what each file holds
//! before and after, and writing either side of such a change
//! (`apply_file_changes`) only over files that still hold the other, so that an editor
//! can undo and redo the rename as one step.

use std::path::{Path, PathBuf};

use crate::model::{Catalog, Edit, Tree};

/// One file a change writes: its bytes before and after.
#[derive(Clone, Debug, PartialEq)]
pub struct FileChange {
    /// The file.
    pub path: PathBuf,
    /// What it holds before the change.
    pub before: Vec<u8>,
    /// What it holds after.
    pub after: Vec<u8>,
}

/// The most files under a project's folder looked at for its trees.
pub const MAX_PROJECT_FILES: usize = 100_000;

/// The files that renaming key `from`, which the project file `project` declares, to `to`
/// changes: the project file, then each tree file under its folder that the project
/// governs and that uses the key (its declaration of the name, its key fields, its SubTree
/// bindings), other than `open` (the tree being edited, which the caller renames as an
/// edit of its own). `catalog` is the project's. Refused, with the file and the reason,
/// when the project does not declare `from`, when `to` is a key already in the project
/// or in one of its trees, or when a tree file of the project cannot be read.
pub fn plan_project_rename(
    project: &Path,
    catalog: &Catalog,
    open: Option<&Path>,
    from: &str,
    to: &str,
) -> Result<Vec<FileChange>, String> {
    let shown = |p: &Path| p.display().to_string();
    let before = std::fs::read(project).map_err(|e| format!("{}: {e}", shown(project)))?;
    let text = String::from_utf8_lossy(&before);
    let mut file = super::parse_project(&text, project).map_err(|e| e.to_string())?;
    if file.keys.iter().any(|k| k.name == to) {
        return Err(format!(
            "key '{from}' cannot be renamed '{to}': the project declares a key '{to}' already"
        ));
    }
    let Some(key) = file.keys.iter_mut().find(|k| k.name == from) else {
        return Err(format!("the project declares no key '{from}'"));
    };
    key.name = to.to_owned();
    let mut changes = vec![FileChange {
        path: project.to_owned(),
        after: file.to_text().into_bytes(),
        before,
    }];
    changes.extend(plan_trees(
        project,
        open,
        &format!("its uses of '{from}'"),
        |tree, path| {
            let at = |e: crate::model::EditError| format!("{}: {e}", shown(path));
            let edits = tree.shared_key_renaming(from, to, catalog).map_err(at)?;
            if edits.is_empty() {
                return Ok(false);
            }
            tree.apply(Edit::Batch(edits), catalog).map_err(at)?;
            Ok(true)
        },
    )?);
    Ok(changes)
}

/// A project-wide change of kind: the files it writes, and what nodes lose with it.
#[derive(Clone, Debug, PartialEq)]
pub struct KindRename {
    /// The tree files changed.
    pub changes: Vec<FileChange>,
    /// What each node loses ([`Tree::kind_renaming`]), each line prefixed by its file.
    pub dropped: Vec<String>,
}

/// The tree files of the project `project` (those under its folder that it governs) in
/// which every node of kind `from` becomes a `to` ([`Tree::kind_renaming`]), `catalog`
/// being the project's, which knows `to` (a kind renamed in a node library: the library
/// already says `to`). Refused, with the file and the reason, when `to` is no kind of the
/// project, or when a tree file of the project cannot be read or changed.
pub fn plan_project_kind_rename(
    project: &Path,
    catalog: &Catalog,
    from: &str,
    to: &str,
) -> Result<KindRename, String> {
    let shown = |p: &Path| p.display().to_string();
    if catalog
        .kind(to)
        .is_none_or(crate::model::KindSpec::is_placeholder)
    {
        let hint = catalog
            .near_kind(to)
            .map(|k| format!("; did you mean '{k}'?"))
            .unwrap_or_default();
        return Err(format!(
            "{}: no node library of the project defines a kind '{to}'{hint}",
            shown(project)
        ));
    }
    let mut dropped = Vec::new();
    let changes = plan_trees(
        project,
        None,
        &format!("its '{from}' nodes"),
        |tree, path| {
            // Its kinds no library defines (FROM among them) as the editor has them:
            // placeholders, their category guessed from their links.
            let mut kinds = catalog.clone();
            kinds.add_placeholders(tree);
            let at = |e: crate::model::EditError| format!("{}: {e}", shown(path));
            let change = tree.kind_renaming(from, to, &kinds).map_err(at)?;
            dropped.extend(
                change
                    .dropped
                    .iter()
                    .map(|d| format!("{}: {d}", shown(path))),
            );
            if change.edit == Edit::Batch(Vec::new()) {
                return Ok(false);
            }
            tree.apply(change.edit, &kinds).map_err(at)?;
            Ok(true)
        },
    )?;
    Ok(KindRename { changes, dropped })
}

/// Each tree file of the project `project` (the `.json` tree files under its folder that
/// it governs, in a stable order) other than `open`, as `change` changes its tree (false:
/// it left it alone): the files changed, before and after. Refused with the first file
/// that cannot be read (saying that `what` cannot be changed), whose change is refused, or
/// whose tree cannot be written back.
fn plan_trees(
    project: &Path,
    open: Option<&Path>,
    what: &str,
    mut change: impl FnMut(&mut Tree, &Path) -> Result<bool, String>,
) -> Result<Vec<FileChange>, String> {
    let shown = |p: &Path| p.display().to_string();
    let folder = match project.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    };
    let mut changes = Vec::new();
    for path in tree_files(&folder)? {
        if open.is_some_and(|o| super::same_file(o, &path)) {
            continue;
        }
        // A file of another project (one of its own, deeper) is not this one's.
        if !super::project_for(&path).is_some_and(|p| super::same_file(&p, project)) {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else {
            return Err(format!(
                "{}: cannot be read, so {what} cannot be changed",
                shown(&path)
            ));
        };
        let text = String::from_utf8_lossy(&bytes);
        let tree_file = super::read_header(&text)
            .and_then(|h| h.format)
            .is_some_and(|f| f == super::TREE_FORMAT);
        if !tree_file {
            continue;
        }
        let mut tree = super::parse_tree(&text, &path)
            .map_err(|e| format!("{e}: so {what} cannot be changed"))?;
        if !change(&mut tree, &path)? {
            continue;
        }
        let after = super::round_trip(&tree, &path).map_err(|e| e.to_string())?;
        changes.push(FileChange {
            path,
            before: bytes,
            after: after.into_bytes(),
        });
    }
    Ok(changes)
}

/// The `.json` files under `folder`, in its sub-folders too (hidden ones and links to
/// folders are not followed), in a stable order.
fn tree_files(folder: &Path) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    let mut folders = vec![folder.to_owned()];
    while let Some(dir) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                folders.push(entry.path());
            } else if kind.is_file() && name.ends_with(".json") {
                found.push(entry.path());
            }
            if found.len() + folders.len() > MAX_PROJECT_FILES {
                return Err(format!(
                    "{} holds more than {MAX_PROJECT_FILES} files: the rename looks at no more",
                    folder.display()
                ));
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Writes one side of `changes`: each file's `after` (`forward`) or its `before`, each
/// through a temporary file and a rename. Nothing is written unless every file holds the
/// other side now; when a file cannot be written, those written are put back.
/// Refused with the first file in the way and why.
pub fn apply_file_changes(changes: &[FileChange], forward: bool) -> Result<(), String> {
    let side = |c| sides(c, forward);
    for c in changes {
        let (now, _) = side(c);
        let held = std::fs::read(&c.path).map_err(|e| format!("{}: {e}", c.path.display()))?;
        if held != *now {
            return Err(format!(
                "{} changed on disk since the rename: it is not written over",
                c.path.display()
            ));
        }
    }
    // Each file is written and synced on its own (a temporary file, a rename, the folder
    // synced): several at once, so that the disk syncs them together.
    let written = write_all(changes, forward);
    if let Some(Err(why)) = written.iter().find(|r| r.is_err()) {
        let why = why.clone();
        for (c, done) in changes.iter().zip(&written) {
            if done.is_ok() {
                let (old, _) = side(c);
                let _ = super::write_atomically(&c.path, old);
            }
        }
        return Err(why);
    }
    Ok(())
}

/// Files written at once by [`apply_file_changes`].
const WRITERS: usize = 8;

/// Writes each change's side (`forward`: its `after`), [`WRITERS`] files at once; the
/// result of each, in order.
fn write_all(changes: &[FileChange], forward: bool) -> Vec<Result<(), String>> {
    let write = |c: &FileChange| {
        let (_, new) = sides(c, forward);
        super::write_atomically(&c.path, new).map_err(|e| e.to_string())
    };
    let per = changes.len().div_ceil(WRITERS).max(1);
    std::thread::scope(|s| {
        let writers: Vec<_> = changes
            .chunks(per)
            .map(|chunk| {
                (
                    chunk.len(),
                    s.spawn(move || chunk.iter().map(write).collect::<Vec<_>>()),
                )
            })
            .collect();
        writers
            .into_iter()
            .flat_map(|(n, w)| {
                w.join()
                    .unwrap_or_else(|_| vec![Err("a file could not be written".to_owned()); n])
            })
            .collect()
    })
}

/// A change's bytes now and after, going `forward` (else back).
fn sides(c: &FileChange, forward: bool) -> (&[u8], &[u8]) {
    if forward {
        (&c.before, &c.after)
    } else {
        (&c.after, &c.before)
    }
}
