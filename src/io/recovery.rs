//! Recovery files: the editor writes unsaved work aside every few seconds of editing, so a
//! crash or a kill loses at most those seconds. A file per tree being edited, in one
//! folder; a clean close, a save or a discard removes it. The next start that opens the
//! same tree (or, for an untitled tree, starts without a file) offers to restore it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{LoadError, parse_tree, read_text, tree_to_string, write_atomically};
use crate::model::Tree;

/// The `format` header of a recovery file.
pub const RECOVERY_FORMAT: &str = "arbor.recovery";

/// The folder of recovery files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecoveryDir {
    dir: PathBuf,
}

/// Unsaved work found in a recovery file.
#[derive(Clone, Debug, PartialEq)]
pub struct Recovered {
    /// The recovery file it was read from.
    pub file: PathBuf,
    /// The tree's own file, if it had one.
    pub path: Option<PathBuf>,
    /// When it was written, in seconds since the Unix epoch.
    pub written: u64,
    /// The tree as it was then.
    pub tree: Tree,
}

#[derive(Serialize, Deserialize)]
struct RecoveryFile {
    format: String,
    version: u64,
    path: Option<PathBuf>,
    written: u64,
    /// The tree file's canonical text.
    tree: String,
}

/// FNV-1a: a stable name for a path, the same in every run and build.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl RecoveryDir {
    /// Recovery files in `dir` (made when the first one is written).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The usual folder: `$ARBOR_RECOVERY_DIR` when set, else `arbor/recovery` in the
    /// user's data folder (`$XDG_DATA_HOME`, or `~/.local/share`).
    pub fn default_dir() -> Option<PathBuf> {
        if let Some(dir) = std::env::var_os("ARBOR_RECOVERY_DIR").filter(|d| !d.is_empty()) {
            return Some(PathBuf::from(dir));
        }
        let data = std::env::var_os("XDG_DATA_HOME")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME")
                    .or_else(|| std::env::var_os("USERPROFILE"))
                    .map(|h| PathBuf::from(h).join(".local/share"))
            })?;
        Some(data.join("arbor").join("recovery"))
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The recovery file for the tree saved at `path`, or for an untitled tree of this
    /// process.
    pub fn file_for(&self, path: Option<&Path>) -> PathBuf {
        let name = match path {
            Some(p) => {
                let full = std::path::absolute(p).unwrap_or_else(|_| p.to_owned());
                let stem = p
                    .file_stem()
                    .map_or_else(|| "tree".into(), |s| s.to_string_lossy().into_owned());
                format!(
                    "{stem}-{:016x}.json",
                    fnv(full.as_os_str().as_encoded_bytes())
                )
            }
            None => format!("untitled-{}.json", std::process::id()),
        };
        self.dir.join(name)
    }

    /// Writes `tree` (saved at `path`, if it has a file) to its recovery file, through a
    /// temporary file and a rename; returns that file.
    pub fn write(&self, path: Option<&Path>, tree: &Tree) -> Result<PathBuf, LoadError> {
        let file = self.file_for(path);
        std::fs::create_dir_all(&self.dir).map_err(|e| LoadError::Write {
            path: self.dir.clone(),
            source: Arc::new(e),
        })?;
        let written = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let record = RecoveryFile {
            format: RECOVERY_FORMAT.into(),
            version: 1,
            path: path.map(|p| std::path::absolute(p).unwrap_or_else(|_| p.to_owned())),
            written,
            tree: tree_to_string(tree),
        };
        // Plain strings, numbers and paths: serialising cannot fail.
        let text = serde_json::to_string_pretty(&record).unwrap_or_default();
        write_atomically(&file, text.as_bytes())?;
        Ok(file)
    }

    /// The newest unsaved work for the tree saved at `path` (by any spelling of it), or,
    /// for `None`, for any untitled tree. Files that do not read as recovery files are
    /// left alone.
    pub fn find(&self, path: Option<&Path>) -> Option<Recovered> {
        let entries = std::fs::read_dir(&self.dir).ok()?;
        let mut found: Option<Recovered> = None;
        for entry in entries.flatten() {
            let file = entry.path();
            if file.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let Some(r) = Self::read(&file) else { continue };
            let same = match (path, &r.path) {
                (Some(p), Some(q)) => super::same_file(p, q),
                (None, None) => true,
                _ => false,
            };
            if same && found.as_ref().is_none_or(|f| r.written > f.written) {
                found = Some(r);
            }
        }
        found
    }

    /// A recovery file's content, if it is one and its tree loads.
    pub fn read(file: &Path) -> Option<Recovered> {
        let text = read_text(file).ok()?;
        let record: RecoveryFile = serde_json::from_str(&text).ok()?;
        if record.format != RECOVERY_FORMAT {
            return None;
        }
        let shown = record.path.clone().unwrap_or_else(|| file.to_owned());
        let tree = parse_tree(&record.tree, &shown).ok()?;
        Some(Recovered {
            file: file.to_owned(),
            path: record.path,
            written: record.written,
            tree,
        })
    }

    /// Removes a recovery file (one already gone is fine).
    pub fn remove(file: &Path) {
        let _ = std::fs::remove_file(file);
    }
}
