//! Files: the versioned JSON tree format, node libraries and project files, atomic saving,
//! and SubTree asset resolution.
//!
//! The only module of the core that touches the file system.

mod canonical;
mod files;
mod format;
mod library;
mod project;
mod recovery;
mod watch;

pub use canonical::to_canonical_json;
pub use files::TreeFiles;
pub use format::{Header, TREE_FORMAT, TREE_VERSION, parse_tree, read_header, tree_to_string};
pub use library::{LIBRARY_FORMAT, LIBRARY_VERSION, Library, LibraryDrift, Problem, parse_library};
pub use project::{
    PROJECT_FILE, PROJECT_FORMAT, PROJECT_VERSION, Project, ProjectCatalog, check_library,
    find_project, parse_project, project_for,
};
pub use recovery::{RECOVERY_FORMAT, Recovered, RecoveryDir};
pub use watch::FileWatch;

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

/// The largest file Arbor reads (a tree, a scenario, a SubTree asset): 64 MiB.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Reads a text file that must be a regular file of at most [`MAX_FILE_BYTES`]; a folder,
/// a device, a FIFO or a socket is refused at once, before any read, saying which it is.
pub fn read_text(path: &Path) -> std::io::Result<String> {
    use std::io::{Error, ErrorKind, Read};
    let meta = std::fs::metadata(path)?;
    let kind = meta.file_type();
    if kind.is_dir() {
        return Err(Error::new(
            ErrorKind::IsADirectory,
            "it is a folder, not a file",
        ));
    }
    if !kind.is_file() {
        return Err(Error::other(format!(
            "it is {}, not a regular file",
            special_kind(&kind)
        )));
    }
    let too_big = |size: u64| {
        Error::new(
            ErrorKind::FileTooLarge,
            format!(
                "it is {:.1} MiB; Arbor reads files of at most {} MiB",
                size as f64 / f64::from(1 << 20),
                MAX_FILE_BYTES >> 20
            ),
        )
    };
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_big(meta.len()));
    }
    // (The file may grow after the look: never read more than the limit.)
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    std::fs::File::open(path)?
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_big(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|e| {
        Error::new(
            ErrorKind::InvalidData,
            format!("it is not UTF-8 text ({e})"),
        )
    })
}

/// What a file that is neither a folder nor a regular file is, in words.
fn special_kind(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    let _ = kind;
    "a special file"
}

/// Whether two paths name the same existing file (through links, other spellings, or
/// hard links).
pub fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (ma.dev(), ma.ino()) == (mb.dev(), mb.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = (ma, mb);
        matches!((std::fs::canonicalize(a), std::fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
    }
}

/// Reads and parses a tree file (no validation: see [`TreeFiles::validate_file`]).
pub fn load_tree(path: &Path) -> Result<Tree, LoadError> {
    let text = read_text(path).map_err(|e| LoadError::Read {
        path: path.to_owned(),
        source: Arc::new(e),
    })?;
    parse_tree(&text, path)
}

/// The canonical text of `tree`, checked to load back to the same tree; `path` names
/// the file in the error when it would not (the file is then left as it is).
pub fn round_trip(tree: &Tree, path: &Path) -> Result<String, LoadError> {
    let text = tree_to_string(tree);
    match parse_tree(&text, path) {
        Ok(back) if back == *tree => Ok(text),
        Ok(_) => Err(LoadError::Format {
            path: path.to_owned(),
            message: "not written: its canonical text would not load back to the same tree".into(),
        }),
        Err(e) => Err(LoadError::Format {
            path: path.to_owned(),
            message: format!("not written: its canonical text would not load back ({e})"),
        }),
    }
}

/// Saves a tree in canonical form, checked to load back to the same tree: written to a
/// temporary file in the same folder, then renamed over the target, so a crash never
/// leaves a half-written asset.
pub fn save_tree(path: &Path, tree: &Tree) -> Result<(), LoadError> {
    write_atomically(path, round_trip(tree, path)?.as_bytes())
}

/// Writes bytes to `path` through a temporary file in the same folder and a rename.
/// A symlink is followed: the file it points to is written, and the link stays. The
/// file keeps its permissions, and the folder is synced after the rename.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), LoadError> {
    let shown = path;
    let resolved = std::fs::canonicalize(path).ok();
    let path = resolved.as_deref().unwrap_or(path);
    write_file(path, bytes).map_err(|e| LoadError::Write {
        path: shown.to_owned(),
        source: Arc::new(e),
    })
}

fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
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
    let permissions = std::fs::metadata(path).ok().map(|m| m.permissions());
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        if let Some(p) = permissions {
            f.set_permissions(p)?;
        }
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        // The rename itself is durable once the folder is synced.
        #[cfg(unix)]
        std::fs::File::open(&dir)?.sync_all()?;
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
