//! Behaviour tests and coverage (`arbor test`, `arbor coverage`): runs of a tree or a
//! scenario, with given seeds, steps and triggers, checked against named expectations
//! about the trace and the world, and counted node by node. Egui-free: the CLI prints it,
//! the editor paints coverage on the canvas.

pub mod coverage;
pub mod file;
pub mod junit;
mod run;
pub mod shard;
mod watch;

pub use crate::runtime::Counts;
pub use coverage::{Counter, Coverage, NodeCoverage, TreeCoverage, trace_coverage};
pub use file::{
    TestFile, TestFileError, TestFileErrors, is_test, is_test_path, load_test, parse_test,
};
pub use run::{Failure, PrepareError, Prepared, SeedOutcome, project_of};

use std::path::{Path, PathBuf};

/// The test files `paths` name: a file as given; a folder searched (its subfolders too,
/// but not hidden ones or `target`) for `*.test.json`, in name order.
pub fn find_tests(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    for path in paths {
        let meta =
            std::fs::metadata(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        if meta.is_dir() {
            let before = found.len();
            search(path, &mut found)?;
            found[before..].sort();
        } else {
            found.push(path.clone());
        }
    }
    // A file named twice (`tests tests/a.test.json`) runs once.
    let mut seen = std::collections::HashSet::new();
    found.retain(|p| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())));
    Ok(found)
}

/// Adds the `*.test.json` files under `folder` to `found` (symbolic links to folders are
/// not followed, so a link cannot make the search loop).
fn search(folder: &Path, found: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(folder).map_err(|e| format!("{}: cannot read: {e}", folder.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: cannot read: {e}", folder.display()))?;
        let path = entry.path();
        let hidden = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with('.') || n == "target");
        match entry.file_type() {
            Ok(t) if t.is_dir() && !hidden => search(&path, found)?,
            Ok(t) if t.is_file() && is_test_path(&path) => found.push(path),
            _ => {}
        }
    }
    Ok(())
}

/// FNV-1a, 64 bits: stable on every machine and in every build, unlike the standard
/// hasher (a shard's share of a run, a coverage file's version of a tree).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The version of the tree file at `path` as a coverage file names it (`fnv1a:` and the
/// hash of its bytes); `None` when it cannot be read.
pub(crate) fn file_version(path: &Path) -> Option<String> {
    std::fs::read(path)
        .ok()
        .map(|bytes| format!("fnv1a:{:016x}", fnv1a(&bytes)))
}

/// `path` without its `.` parts and with each `name/..` taken out, as written (the
/// file system is not asked): `./a/../b.json` is `b.json`, so that runs that name one
/// file two ways count it once.
pub(crate) fn tidy(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out.iter().collect()
}
