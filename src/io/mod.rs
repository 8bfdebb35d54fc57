//! Files: the versioned JSON tree format, atomic saving, and SubTree asset resolution.
//!
//! The only module of the core that touches the file system.

mod canonical;
mod files;
mod format;

pub use canonical::to_canonical_json;
pub use files::TreeFiles;
pub use format::{TREE_FORMAT, TREE_VERSION, parse_tree, tree_to_string};

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::model::{StructureError, Tree};

/// Why a file could not be loaded or saved. Every variant names the file; syntax errors the place.
#[derive(Clone, Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: Arc<std::io::Error>,
    },
    /// The JSON is malformed or does not have the expected shape.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong there.
        message: String,
    },
    /// The header is wrong: not a tree file, or a newer format version.
    #[error("{}: {message}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The nodes cannot form a tree: duplicate ids, links to missing nodes.
    #[error("{}: {source}", path.display())]
    Structure {
        /// The file.
        path: PathBuf,
        /// Which node and what.
        source: StructureError,
    },
    /// The file could not be written.
    #[error("{}: cannot save: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: Arc<std::io::Error>,
    },
}

/// Reads and parses a tree file (no validation: see [`TreeFiles::validate_file`]).
pub fn load_tree(path: &Path) -> Result<Tree, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|e| LoadError::Read {
        path: path.to_owned(),
        source: Arc::new(e),
    })?;
    parse_tree(&text, path)
}

/// Saves a tree in canonical form: written to a temporary file in the same folder, then
/// renamed over the target, so a crash never leaves a half-written asset.
pub fn save_tree(path: &Path, tree: &Tree) -> Result<(), LoadError> {
    write_atomically(path, tree_to_string(tree).as_bytes())
}

/// Writes bytes to `path` through a temporary file in the same folder and a rename.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), LoadError> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "tree".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(LoadError::Write {
            path: path.to_owned(),
            source: Arc::new(e),
        });
    }
    Ok(())
}
