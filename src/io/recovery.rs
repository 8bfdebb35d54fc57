//! Recovery files: the editor writes unsaved work aside every few seconds of editing, so a
//! crash or a kill loses at most those seconds. One file per tree and editor process, in
//! one folder, so that two editors on one tree never write over each other's work; a
//! clean close, a save or a discard removes it. The next start that opens the same tree
//! (or, for an untitled tree, starts without a file) offers the work of editors that no
//! longer run.
//!
//! The folder also holds a mark per tree open in an editor, so that a second editor on
//! the same tree can say which process has it open; a mark left by a process that no
//! longer runs is ignored and removed.
//!
//! Nothing in the folder is written through a link or over a special file, and a file
//! that does not read as a recovery file is reported and set aside, never overwritten.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{LoadError, Owner, Stamp, fnv, read_text, tree_to_string, write_own_file};
use crate::model::Tree;

/// The `format` header of a recovery file.
pub const RECOVERY_FORMAT: &str = super::header::RECOVERY.name;

/// The version of recovery files this Arbor writes and reads.
const RECOVERY_VERSION: u64 = super::header::RECOVERY.newest;

/// The folder of recovery files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecoveryDir {
    dir: PathBuf,
    /// The process whose work this writes (this one, but for tests).
    owner: Owner,
}

/// Unsaved work found in a recovery file.
#[derive(Clone, Debug, PartialEq)]
pub struct Recovered {
    /// The recovery file it was read from.
    pub file: PathBuf,
    /// The tree's own file, if it had one.
    pub path: Option<PathBuf>,
    /// Which tree of that file it is, when it is not the one the file runs (a
    /// BehaviorTree.CPP file's `<BehaviorTree ID>`).
    pub tree_id: Option<String>,
    /// When it was written, in seconds since the Unix epoch.
    pub written: u64,
    /// The editor process that wrote it (none in files of older editors).
    pub owner: Option<Owner>,
    /// What the tree's file held when the work on it started, if it had a file.
    pub base: Option<Stamp>,
    /// The tree as it was then.
    pub tree: Tree,
}

/// How the tree's file is known to have changed on disk since the work began.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiskChange {
    /// Its content differs from the stamp the work kept of it.
    Content,
    /// The work keeps no stamp of it (an older editor wrote it), and the file was modified
    /// after the work was written.
    ModifiedAfter,
}

/// A file in the recovery folder that does not read as a recovery file: set aside.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreadable {
    /// Where it is now (renamed aside with `.unreadable`, unless it could not be).
    pub file: PathBuf,
    /// Why it does not read.
    pub reason: String,
}

/// What the recovery folder holds for a tree.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recoveries {
    /// The newest unsaved work of an editor that no longer runs.
    pub found: Option<Recovered>,
    /// How much other work for the same tree there is (older, of other editors gone).
    pub more: usize,
    /// The files that did not read, each set aside.
    pub unreadable: Vec<Unreadable>,
}

#[derive(Serialize, Deserialize)]
struct RecoveryFile {
    format: String,
    version: u64,
    path: Option<PathBuf>,
    /// Which tree of the file (see [`Recovered::tree_id`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tree_id: Option<String>,
    written: u64,
    #[serde(default)]
    owner: Option<Owner>,
    #[serde(default)]
    base: Option<Stamp>,
    /// The tree file's canonical text.
    tree: String,
}

/// An open-file mark's content.
#[derive(Serialize, Deserialize)]
struct MarkFile {
    owner: Owner,
    path: PathBuf,
}

/// A tree file marked as open in this editor: the mark goes when this is dropped.
#[derive(Debug)]
pub struct OpenMark {
    file: PathBuf,
}

impl Drop for OpenMark {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.file);
    }
}

/// `path` as one name for the file: its real path where it exists, else made absolute.
fn identity(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| std::path::absolute(path).unwrap_or_else(|_| path.to_owned()))
}

impl RecoveryDir {
    /// Recovery files in `dir` (made when the first one is written).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            owner: Owner::current(),
        }
    }

    /// The same folder, writing as if `owner` were the process writing (for tests that
    /// play a second editor).
    #[must_use]
    pub fn as_owner(mut self, owner: Owner) -> Self {
        self.owner = owner;
        self
    }

    /// The usual folder: `$ARBOR_RECOVERY_DIR` when set, else `arbor/recovery` in the
    /// user's data folder (`$XDG_DATA_HOME`, or `~/.local/share`). `Err` says why there is
    /// none.
    pub fn default_dir() -> Result<PathBuf, String> {
        super::user_file(
            "ARBOR_RECOVERY_DIR",
            "XDG_DATA_HOME",
            ".local/share",
            &["arbor", "recovery"],
        )
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The start of the names of the files kept for the tree at `path`.
    fn stem_for(path: Option<&Path>) -> String {
        Self::stem_of(path, None)
    }

    /// [`RecoveryDir::stem_for`] the tree `tree_id` of the file (none: the one it runs).
    fn stem_of(path: Option<&Path>, tree_id: Option<&str>) -> String {
        match path {
            Some(p) => {
                let stem = p
                    .file_stem()
                    .map_or_else(|| "tree".into(), |s| s.to_string_lossy().into_owned());
                let mut key = identity(p).as_os_str().as_encoded_bytes().to_vec();
                if let Some(id) = tree_id {
                    key.push(b'#');
                    key.extend_from_slice(id.as_bytes());
                }
                format!("{stem}-{:016x}", fnv(&key))
            }
            None => "untitled".into(),
        }
    }

    /// The recovery file this process writes for the tree saved at `path`, or for its
    /// untitled tree: named after the tree and the process (its id and start time, so a
    /// later process given the same id never writes over it).
    pub fn file_for(&self, path: Option<&Path>) -> PathBuf {
        self.file_of(path, None)
    }

    /// [`RecoveryDir::file_for`] the tree `tree_id` of the file (none: the one it runs).
    fn file_of(&self, path: Option<&Path>, tree_id: Option<&str>) -> PathBuf {
        self.dir.join(format!(
            "{}.{}-{}.json",
            Self::stem_of(path, tree_id),
            self.owner.pid,
            self.owner.started
        ))
    }

    fn make_dir(&self) -> Result<(), LoadError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| LoadError::Write {
            path: self.dir.clone(),
            source: Arc::new(e),
        })
    }

    /// Writes `tree` (saved at `path`, if it has a file, which held `base` when the work
    /// started) to this process's recovery file for it, through a temporary file and a
    /// rename; returns that file. Nothing is written through a link or over a special file.
    pub fn write(
        &self,
        path: Option<&Path>,
        base: Option<Stamp>,
        tree: &Tree,
    ) -> Result<PathBuf, LoadError> {
        self.write_tree(path, None, base, tree)
    }

    /// [`RecoveryDir::write`] for the tree `tree_id` of the file at `path` (none: the one
    /// it runs).
    pub fn write_tree(
        &self,
        path: Option<&Path>,
        tree_id: Option<&str>,
        base: Option<Stamp>,
        tree: &Tree,
    ) -> Result<PathBuf, LoadError> {
        let file = self.file_of(path, tree_id);
        self.make_dir()?;
        let written = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let record = RecoveryFile {
            format: RECOVERY_FORMAT.into(),
            version: RECOVERY_VERSION,
            path: path.map(|p| std::path::absolute(p).unwrap_or_else(|_| p.to_owned())),
            tree_id: tree_id.map(str::to_owned),
            written,
            owner: Some(self.owner),
            base,
            tree: tree_to_string(tree),
        };
        // Plain strings, numbers and paths: serialising cannot fail.
        let text = serde_json::to_string_pretty(&record).unwrap_or_default();
        write_own_file(&file, text.as_bytes())?;
        Ok(file)
    }

    /// The newest unsaved work for the tree saved at `path` (by any spelling of it), or,
    /// for `None`, for any untitled tree, left by an editor that no longer runs (or by this
    /// process); work of editors still running is theirs and is left alone. Only the files
    /// named for that tree are read; those that do not read are set aside and listed.
    pub fn find(&self, path: Option<&Path>) -> Recoveries {
        self.find_tree(path, None)
    }

    /// [`RecoveryDir::find`] for the tree `tree_id` of the file at `path` (none: the one it
    /// runs).
    pub fn find_tree(&self, path: Option<&Path>, tree_id: Option<&str>) -> Recoveries {
        let mut out = Recoveries::default();
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return out;
        };
        let prefix = format!("{}.", Self::stem_of(path, tree_id));
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if !name.starts_with(&prefix) || !name.ends_with(".json") {
                continue;
            }
            let file = entry.path();
            let r = match Self::read(&file) {
                Ok(r) => r,
                Err(reason) => {
                    out.unreadable.push(set_aside(&file, reason));
                    continue;
                }
            };
            let same = match (path, &r.path) {
                (Some(p), Some(q)) => super::same_file(p, q),
                (None, None) => true,
                _ => false,
            } && r.tree_id.as_deref() == tree_id;
            let theirs = r
                .owner
                .is_some_and(|o| o.pid != self.owner.pid && o.is_alive());
            if same && !theirs {
                if out.found.as_ref().is_none_or(|f| r.written > f.written) {
                    out.more += usize::from(out.found.is_some());
                    out.found = Some(r);
                } else {
                    out.more += 1;
                }
            }
        }
        out.unreadable.sort_by(|a, b| a.file.cmp(&b.file));
        out
    }

    /// A recovery file's content; `Err` says why it is not one (a link or a special file,
    /// not JSON, another format, an unknown version, a tree that does not load).
    pub fn read(file: &Path) -> Result<Recovered, String> {
        let meta = std::fs::symlink_metadata(file).map_err(|e| e.to_string())?;
        if meta.file_type().is_symlink() {
            return Err("it is a symbolic link, not a file Arbor wrote".into());
        }
        let text = read_text(file).map_err(|e| e.to_string())?;
        super::header::RECOVERY
            .check(&text)
            .map_err(|p| p.message)?;
        let record: RecoveryFile =
            serde_json::from_str(&text).map_err(|e| format!("not a recovery file: {e}"))?;
        let shown = record.path.clone().unwrap_or_else(|| file.to_owned());
        // Kept as an Arbor tree's text, a BehaviorTree.CPP file's tree too.
        let tree =
            super::format::parse_arbor_tree(&record.tree, &shown).map_err(|e| e.to_string())?;
        Ok(Recovered {
            file: file.to_owned(),
            path: record.path,
            tree_id: record.tree_id,
            written: record.written,
            owner: record.owner,
            base: record.base,
            tree,
        })
    }

    /// Removes a recovery file (one already gone is fine).
    pub fn remove(file: &Path) {
        let _ = std::fs::remove_file(file);
    }

    /// Marks the tree at `path` as open in this editor, and lists the other editors that
    /// have it open; marks of editors that no longer run are removed. The mark is `None`
    /// when it could not be written (the folder is read-only, say).
    pub fn mark_open(&self, path: &Path) -> (Option<OpenMark>, Vec<Owner>) {
        let stem = Self::stem_for(Some(path));
        let mut others = Vec::new();
        for (file, _) in super::files_by_process(&self.dir, &format!("{stem}."), ".open") {
            if !std::fs::symlink_metadata(&file).is_ok_and(|m| m.is_file()) {
                continue;
            }
            let mark = read_text(&file)
                .ok()
                .and_then(|t| serde_json::from_str::<MarkFile>(&t).ok());
            match mark {
                Some(m) if m.owner.pid == self.owner.pid => {}
                Some(m) if m.owner.is_alive() => others.push(m.owner),
                _ => RecoveryDir::remove(&file),
            }
        }
        others.sort_by_key(|o| o.pid);
        let file = self.dir.join(format!("{stem}.{}.open", self.owner.pid));
        let record = MarkFile {
            owner: self.owner,
            path: identity(path),
        };
        let text = serde_json::to_string_pretty(&record).unwrap_or_default();
        let mark = (self.make_dir().is_ok() && write_own_file(&file, text.as_bytes()).is_ok())
            .then_some(OpenMark { file });
        (mark, others)
    }
}

/// Sets aside a file of the folder that does not read; a link is left where it is.
fn set_aside(file: &Path, reason: String) -> Unreadable {
    let is_link = std::fs::symlink_metadata(file).is_ok_and(|m| m.file_type().is_symlink());
    let moved = if is_link {
        None
    } else {
        super::set_aside(file)
    };
    Unreadable {
        file: moved.unwrap_or_else(|| file.to_owned()),
        reason,
    }
}

impl Recovered {
    /// Whether the tree's file changed on disk since the work on it started: its content
    /// now is not what it was then; or, for a record of an older editor that kept no stamp
    /// of the file, the file was modified after the work was written. `None` for work
    /// without a file.
    pub fn changed_on_disk(&self) -> Option<DiskChange> {
        let path = self.path.as_ref()?;
        match self.base {
            Some(base) => (Stamp::read(path) != Some(base)).then_some(DiskChange::Content),
            None => {
                let modified = std::fs::metadata(path).ok()?.modified().ok()?;
                let secs = modified
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                (secs > self.written).then_some(DiskChange::ModifiedAfter)
            }
        }
    }

    /// What the recovered tree changes from `other` (the file as it is on disk now), as
    /// the lines of a unified diff of their canonical texts: at most `max` lines, the last
    /// saying how many more there are.
    pub fn differences(&self, other: &Tree, max: usize) -> Vec<String> {
        let (old, new) = (tree_to_string(other), tree_to_string(&self.tree));
        let diff = similar::TextDiff::from_lines(&old, &new);
        let mut lines: Vec<String> = Vec::new();
        for group in diff.grouped_ops(1) {
            for op in group {
                for change in diff.iter_changes(&op) {
                    let sign = match change.tag() {
                        similar::ChangeTag::Delete => '-',
                        similar::ChangeTag::Insert => '+',
                        similar::ChangeTag::Equal => ' ',
                    };
                    lines.push(format!("{sign} {}", change.value().trim_end()));
                }
            }
        }
        if lines.len() > max {
            let more = lines.len() - max;
            lines.truncate(max);
            lines.push(format!("… and {more} more lines"));
        }
        lines
    }
}
