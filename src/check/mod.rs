//! Behaviour tests and coverage (`arbor test`, `arbor coverage`): runs of a tree or a
//! scenario, with given seeds, steps and triggers, checked against named expectations
//! about the trace and the world, and counted node by node. Egui-free: the CLI prints it,
//! the editor paints coverage on the canvas.

pub mod coverage;
pub mod file;
pub mod junit;
mod run;
mod watch;

pub use coverage::{Counter, Counts, Coverage, NodeCoverage, TreeCoverage};
pub use file::{TestFile, TestFileError, is_test, is_test_path, load_test, parse_test};
pub use run::{Failure, PrepareError, Prepared, SeedOutcome};

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
