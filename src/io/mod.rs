//! Files: the versioned JSON tree format, node libraries and project files, atomic saving,
//! and SubTree asset resolution.
//!
//! The only module of the core that touches the file system.

mod binary_trace;
pub mod btcpp;
mod btlog;
mod canonical;
mod convert;
mod files;
mod format;
pub mod header;
mod includes;
mod json;
mod keys;
mod library;
mod live;
mod process;
mod project;
mod recovery;
mod rename;
mod settings;
mod trace;
mod watch;

pub use btlog::{
    BTLOG_DT, BTLOG_MAGIC, Btlog, btlog_step, btlog_trace, is_btlog, parse_btlog, read_btlog,
    read_btlog_tree, read_changes, recording_header,
};
pub use canonical::to_canonical_json;
pub use convert::{Converted, convert_trace, recorded_tree, write_recording, write_trace};
pub use files::TreeFiles;
pub use format::{TREE_FORMAT, TREE_VERSION, parse_tree, tree_to_string};
pub use header::{FileFormat, Header, HeaderProblem, read_header};
pub(crate) use includes::identity;
pub(crate) use json::worded;
pub use library::{
    LIBRARY_FORMAT, LIBRARY_VERSION, Library, LibraryDrift, Problem, declared_alike, parse_library,
};
pub use live::{CardFile, LIVE_FORMAT, LiveCard};
pub use process::Owner;
pub use project::{
    Listed, PROJECT_FILE, PROJECT_FORMAT, PROJECT_VERSION, Project, ProjectCatalog, check_library,
    find_project, list_library, parse_project, project_for, relative_path,
};
pub use recovery::{
    DiskChange, OpenMark, RECOVERY_FORMAT, Recovered, Recoveries, RecoveryDir, Unreadable,
};
pub use rename::{
    FileChange, KindRename, MAX_PROJECT_FILES, apply_file_changes, plan_project_kind_rename,
    plan_project_rename,
};
pub use settings::{SETTINGS_FORMAT, Settings, SettingsFile, Window};
pub use trace::{
    AgentIndex, MAX_TRACE_AGENTS, MAX_TRACE_LINE, MAX_TRACE_STEP, TraceCut, TraceError, TraceFile,
    TracePlace, TraceReader, TracedEvent, digest, digest_of, is_trace, parse_event, parse_trace,
    read_trace, read_trace_counting, resolve_traced, trace_header, traced_path,
};
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
    /// The file is read-only: it is left as it is.
    #[error(
        "{}: not written: the file is read-only (no write permission); make it writable (check it out) or save elsewhere",
        path.display()
    )]
    ReadOnly {
        /// The file.
        path: PathBuf,
    },
    /// The path is not one Arbor writes to: it names one of the files the command reads,
    /// or something other than a regular file (a folder, a FIFO, a device, a link that
    /// leads nowhere). Nothing is written, and what is there is left as it is.
    #[error("{}: not written: {reason}", path.display())]
    NotWritten {
        /// The path.
        path: PathBuf,
        /// Why, in words.
        reason: String,
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

/// What a file held when it was read or written: its length and a hash of its bytes. Two
/// stamps differ when the content differs, whatever the file's times say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stamp {
    /// The length in bytes.
    pub len: u64,
    /// FNV-1a of the bytes (stable across runs and builds).
    pub hash: u64,
}

impl Stamp {
    /// The stamp of these bytes.
    pub fn of(bytes: &[u8]) -> Self {
        Self {
            len: bytes.len() as u64,
            hash: fnv(bytes),
        }
    }

    /// The stamp of the file at `path` as it is now; `None` when there is no file there
    /// or it cannot be read as text.
    pub fn read(path: &Path) -> Option<Self> {
        read_text(path).ok().map(|t| Self::of(t.as_bytes()))
    }
}

/// FNV-1a: a stable hash, the same in every run and build.
pub(crate) fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Reads a text file that must be a regular file of at most [`MAX_FILE_BYTES`]; a folder,
/// a device, a FIFO, a socket or a symbolic link that leads nowhere is refused at once,
/// before any read, saying which it is. A UTF-8 byte-order mark at the start is dropped.
pub fn read_text(path: &Path) -> std::io::Result<String> {
    read_text_as_is(path).map(|mut text| {
        if text.starts_with(BOM) {
            text.drain(..BOM.len_utf8());
        }
        text
    })
}

/// The byte-order mark some editors put at the start of a UTF-8 file.
pub(crate) const BOM: char = '\u{feff}';

/// [`read_text`], a byte-order mark kept (for `fmt`, which removes it).
pub(crate) fn read_text_as_is(path: &Path) -> std::io::Result<String> {
    utf8(read_bytes(path)?)
}

/// A file's bytes as text, or why they are not.
fn utf8(bytes: Vec<u8>) -> std::io::Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("it is not UTF-8 text ({e})"),
        )
    })
}

/// Reads the bytes of a file that must be a regular file of at most [`MAX_FILE_BYTES`],
/// as [`read_text`] does: anything else is refused before any read, and the file is opened
/// without waiting (a FIFO put in its place after the look is refused, not waited on).
pub(crate) fn read_bytes(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind, Read};
    let meta = std::fs::metadata(path).map_err(|e| match broken_link(path, &e) {
        Some(words) => Error::new(e.kind(), words),
        None => e,
    })?;
    not_regular(&meta.file_type()).map_or(Ok(()), Err)?;
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
    let file = open_without_waiting(path)?;
    // What was opened is what is read: it may not be what the look saw.
    let opened = file.metadata()?;
    not_regular(&opened.file_type()).map_or(Ok(()), Err)?;
    remember_read(path, &opened);
    // (The file may grow after the look: never read more than the limit.)
    let mut bytes =
        Vec::with_capacity(usize::try_from(opened.len().min(MAX_FILE_BYTES)).unwrap_or(0));
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_big(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Why a file of this kind is not read (a folder, a FIFO, a device, a socket), if it is not
/// a regular file.
fn not_regular(kind: &std::fs::FileType) -> Option<std::io::Error> {
    use std::io::{Error, ErrorKind};
    if kind.is_dir() {
        return Some(Error::new(
            ErrorKind::IsADirectory,
            "it is a folder, not a file",
        ));
    }
    (!kind.is_file())
        .then(|| Error::other(format!("it is {}, not a regular file", special_kind(kind))))
}

/// Opens `path` for reading without waiting for a writer: opening a FIFO for reading
/// otherwise waits until something opens it for writing.
fn open_without_waiting(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// When `path` is a symbolic link that cannot be followed (`failed` is what following it
/// gave), that in words: a link to nothing, or one that loops.
fn broken_link(path: &Path, failed: &std::io::Error) -> Option<String> {
    let link = std::fs::symlink_metadata(path).ok()?;
    if !link.file_type().is_symlink() {
        return None;
    }
    let to = std::fs::read_link(path)
        .map(|t| t.display().to_string())
        .unwrap_or_default();
    Some(if failed.kind() == std::io::ErrorKind::NotFound {
        format!("it is a symbolic link to {to}, which does not exist")
    } else {
        format!("it is a symbolic link to {to}, which cannot be followed ({failed})")
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

/// Which file a file's metadata describes, however it was named: its device and inode
/// (elsewhere than Unix, its length and times, with the path's canonical form).
#[cfg(unix)]
type FileKey = (u64, u64);
#[cfg(not(unix))]
type FileKey = PathBuf;

#[cfg(unix)]
fn file_key(_path: &Path, meta: &std::fs::Metadata) -> Option<FileKey> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn file_key(path: &Path, _meta: &std::fs::Metadata) -> Option<FileKey> {
    std::fs::canonicalize(path).ok()
}

/// The files read through [`read_text`] since [`remember_reads`], each by its identity
/// with the path it was first read by; `None` until then.
static READS: std::sync::Mutex<Option<std::collections::HashMap<FileKey, PathBuf>>> =
    std::sync::Mutex::new(None);

/// From now on, every file read through [`read_text`] is remembered, and
/// [`check_output`] refuses to write over any of them. For a command-line process, which
/// runs one command: every file it read (a tree, a scenario, a SubTree asset, a project
/// or node library file, a test file) is an input of that command.
pub fn remember_reads() {
    let mut reads = READS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    reads.get_or_insert_with(Default::default);
}

fn remember_read(path: &Path, opened: &std::fs::Metadata) {
    let mut reads = READS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let (Some(reads), Some(key)) = (reads.as_mut(), file_key(path, opened)) {
        reads.entry(key).or_insert_with(|| path.to_owned());
    }
}

/// The file read (since [`remember_reads`]) that `meta` of `path` describes, if any.
fn read_before(path: &Path, meta: &std::fs::Metadata) -> Option<PathBuf> {
    let key = file_key(path, meta)?;
    let reads = READS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    reads.as_ref()?.get(&key).cloned()
}

/// Checks that a command that reads `inputs` may write `path`, before anything is
/// written: one rule for every file a command writes (a report, a trace, a
/// conversion). Refused, with the reason ([`LoadError::NotWritten`]): a path that is one
/// of `inputs`, or a file read since [`remember_reads`] (the same file, however it is
/// spelled or linked); and anything there that is not a regular file (see
/// [`check_kind`]). A path with nothing there, or another regular file (or a link to
/// one), may be written.
pub fn check_output(path: &Path, inputs: &[PathBuf]) -> Result<(), LoadError> {
    let input = inputs
        .iter()
        .find(|i| same_file(path, i))
        .cloned()
        .or_else(|| {
            let meta = std::fs::metadata(path).ok()?;
            read_before(path, &meta)
        });
    if let Some(input) = input {
        return Err(LoadError::NotWritten {
            path: path.to_owned(),
            reason: format!(
                "it would write over {}, which this command reads; give another path",
                input.display()
            ),
        });
    }
    check_kind(path)
}

/// Checks that standard output may be written by a command that reads `inputs`: when it
/// is a file (`> FILE`, `>> FILE`), the same rule as [`check_output`] — refused when it
/// is one of `inputs` or a file read since [`remember_reads`]. A terminal or a pipe may
/// always be written.
pub fn check_stdout(inputs: &[PathBuf]) -> Result<(), LoadError> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let shown = Path::new("standard output");
        let Ok(meta) = std::io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .and_then(|fd| std::fs::File::from(fd).metadata())
        else {
            return Ok(());
        };
        if !meta.is_file() {
            return Ok(());
        }
        let same = |i: &&PathBuf| {
            std::fs::metadata(i).is_ok_and(|m| file_key(i, &m) == file_key(shown, &meta))
        };
        if let Some(input) = inputs
            .iter()
            .find(same)
            .cloned()
            .or_else(|| read_before(shown, &meta))
        {
            return Err(LoadError::NotWritten {
                path: shown.to_owned(),
                reason: format!(
                    "it is {}, which this command reads; send the output to another file",
                    input.display()
                ),
            });
        }
    }
    let _ = inputs;
    Ok(())
}

/// Checks that what is at `path` may be written over: nothing, or a regular file (or a
/// link to one). Anything else is refused and left as it is ([`LoadError::NotWritten`]):
/// a folder, a FIFO, a device, a socket (never written into as a stream, so nothing
/// waits on a FIFO's reader or writes into a device), a symbolic link to nothing or a
/// loop of them.
pub fn check_kind(path: &Path) -> Result<(), LoadError> {
    let refuse = |reason: String| {
        Err(LoadError::NotWritten {
            path: path.to_owned(),
            reason,
        })
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => {
            return match broken_link(path, &e) {
                Some(words) => refuse(format!("{words}; Arbor does not write through it")),
                // Nothing there (or a folder that cannot be looked into: the write says).
                None => Ok(()),
            };
        }
    };
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(());
    }
    let what = if kind.is_dir() {
        "a folder"
    } else {
        special_kind(&kind)
    };
    refuse(format!(
        "it is {what}, not a regular file; Arbor writes only regular files (it is left as it is)"
    ))
}

/// Writes `bytes` to `path` as [`write_atomically`] does, for a command that reads
/// `inputs`: refused as [`check_output`] says.
pub fn write_output(path: &Path, inputs: &[PathBuf], bytes: &[u8]) -> Result<(), LoadError> {
    check_output(path, inputs)?;
    write_atomically(path, bytes)
}

/// Opens `path` to write a stream into as it comes (a trace, which a crash leaves cut
/// short but readable), for a command that reads `inputs`: refused as [`check_output`]
/// says; else created, or emptied when it is a file already.
pub fn create_output(path: &Path, inputs: &[PathBuf]) -> Result<std::fs::File, LoadError> {
    check_output(path, inputs)?;
    let failed = |e: std::io::Error| LoadError::Write {
        path: path.to_owned(),
        source: Arc::new(e),
    };
    let file = std::fs::File::create(path).map_err(failed)?;
    // Something put there since the look is not written into.
    if !file.metadata().map_err(failed)?.is_file() {
        return Err(LoadError::NotWritten {
            path: path.to_owned(),
            reason: "it is no longer a regular file".into(),
        });
    }
    Ok(file)
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
    load_tree_stamped(path).map(|(tree, _)| tree)
}

/// Reads and parses a tree file, with the stamp of what the file held: the editor keeps
/// it to see whether the file changed on disk since.
pub fn load_tree_stamped(path: &Path) -> Result<(Tree, Stamp), LoadError> {
    load_tree_kept(path).map(|(tree, stamp, _)| (tree, stamp))
}

/// What a tree's file held that the tree does not say, kept so that saving writes it back
/// as it was: for a BehaviorTree.CPP file, the rest of its document ([`btcpp::Source`]);
/// nothing for Arbor's own files.
pub type Kept = Option<Arc<btcpp::Source>>;

/// [`load_tree_stamped`], with what the file held that the tree does not say.
pub fn load_tree_kept(path: &Path) -> Result<(Tree, Stamp, Kept), LoadError> {
    load_tree_named_stamped(path, None)
}

/// [`load_tree_kept`], or with `tree`, the `<BehaviorTree>` of that ID of a
/// BehaviorTree.CPP file (a tree a SubTree runs, opened on its own).
pub fn load_tree_named_stamped(
    path: &Path,
    tree: Option<&str>,
) -> Result<(Tree, Stamp, Kept), LoadError> {
    if btlog::is_btlog(path) {
        // A BehaviorTree.CPP recording: the tree it embeds (docs/BTCPP.md, "Recordings").
        let xml = btlog::read_btlog_tree(path).map_err(|e| LoadError::Format {
            path: path.to_owned(),
            message: e.message,
        })?;
        let (tree, kept) = parse_xml_named(&xml, path, tree)?;
        return Ok((tree, Stamp::of(xml.as_bytes()), kept));
    }
    let text = read_text(path).map_err(|e| LoadError::Read {
        path: path.to_owned(),
        source: Arc::new(e),
    })?;
    let stamp = Stamp::of(text.as_bytes());
    if btcpp::is_xml(path) {
        let (tree, kept) = parse_xml_named(&text, path, tree)?;
        return Ok((tree, stamp, kept));
    }
    if let Some(id) = tree {
        return Err(not_a_file_of_trees(path, id));
    }
    Ok((parse_tree(&text, path)?, stamp, None))
}

/// The error of a tree `#ID` asked of an Arbor tree file, which holds one tree.
fn not_a_file_of_trees(path: &Path, id: &str) -> LoadError {
    LoadError::Format {
        path: path.to_owned(),
        message: format!(
            "'#{id}' names one of the trees of a BehaviorTree.CPP file, and this is an Arbor tree file"
        ),
    }
}

/// Gives the values of `tree`, read from the file at `path`, the types `catalog`'s kinds
/// give their fields: a BehaviorTree.CPP file's values are text, each read as its port's
/// type says ([`btcpp::fit`]; docs/BTCPP.md, "Port types"); an Arbor file's are typed as
/// written.
pub fn fit_to_kinds(path: &Path, tree: &mut Tree, catalog: &crate::model::Catalog) {
    if btcpp::is_xml(path) {
        btcpp::fit(tree, catalog);
    }
}

/// A BehaviorTree.CPP file's text as a tree (docs/BTCPP.md), with the rest of its document;
/// the files it includes checked.
pub(crate) fn parse_xml_tree(text: &str, path: &Path) -> Result<(Tree, Kept), LoadError> {
    parse_xml_named(text, path, None)
}

/// [`parse_xml_tree`], or with `tree`, the `<BehaviorTree>` of that ID.
fn parse_xml_named(text: &str, path: &Path, tree: Option<&str>) -> Result<(Tree, Kept), LoadError> {
    let x = btcpp::read_named(text, tree).map_err(|p| xml_error(path, p))?;
    let outline = x.source.outline().map_err(|p| xml_error(path, p))?;
    includes::check(path, &outline.includes)?;
    Ok((x.tree, Some(Arc::new(x.source))))
}

/// A BehaviorTree.CPP file read and parsed, the files it includes checked: what each of
/// its trees is read from ([`btcpp::Parsed::tree`]).
pub(crate) fn load_document(path: &Path) -> Result<btcpp::Parsed, LoadError> {
    let text = read_text(path).map_err(|e| LoadError::Read {
        path: path.to_owned(),
        source: Arc::new(e),
    })?;
    let parsed = btcpp::parse(&text).map_err(|p| xml_error(path, p))?;
    let outline = parsed.outline().map_err(|p| xml_error(path, p))?;
    includes::check(path, &outline.includes)?;
    Ok(parsed)
}

/// The tree of file `path` that a SubTree's asset names: the file's tree, or with `tree`,
/// its `<BehaviorTree>` of that ID (a BehaviorTree.CPP file's).
pub fn load_tree_named(path: &Path, tree: Option<&str>) -> Result<Tree, LoadError> {
    load_tree_named_kept(path, tree).map(|(tree, _)| tree)
}

/// [`load_tree_named`], with what the file held that the tree does not say.
pub fn load_tree_named_kept(path: &Path, tree: Option<&str>) -> Result<(Tree, Kept), LoadError> {
    let Some(id) = tree else {
        return load_tree_kept(path).map(|(tree, _, kept)| (tree, kept));
    };
    // (A recording's SubTrees run the trees it embeds.)
    if btlog::is_btlog(path) {
        return load_tree_named_stamped(path, Some(id)).map(|(tree, _, kept)| (tree, kept));
    }
    let text = read_text(path).map_err(|e| LoadError::Read {
        path: path.to_owned(),
        source: Arc::new(e),
    })?;
    if !btcpp::is_xml(path) {
        return Err(not_a_file_of_trees(path, id));
    }
    parse_xml_named(&text, path, Some(id))
}

/// What a SubTree's asset names: a file (relative to the including file; empty: the
/// including file itself) and, after a `#`, one of its `<BehaviorTree>`s by ID. A `#` is
/// read so only at the start (`#ID`: the rest is the ID, `#` and all) or after the first
/// name ending in `.xml` (`moves.xml#ID`), so an Arbor file with a `#` in its name is still
/// that file.
pub fn split_asset(asset: &str) -> (&str, Option<&str>) {
    if let Some(id) = asset.strip_prefix('#') {
        return if id.is_empty() {
            (asset, None)
        } else {
            ("", Some(id))
        };
    }
    let lower = asset.to_ascii_lowercase();
    match lower.find(".xml#") {
        Some(at) if at + 5 < asset.len() => (&asset[..at + 4], Some(&asset[at + 5..])),
        _ => (asset, None),
    }
}

/// A problem of a BehaviorTree.CPP file as a load error of `path`.
pub(crate) fn xml_error(path: &Path, p: btcpp::XmlProblem) -> LoadError {
    if p.line == 0 {
        LoadError::Format {
            path: path.to_owned(),
            message: p.message,
        }
    } else {
        LoadError::Syntax {
            path: path.to_owned(),
            line: p.line as usize,
            column: p.column as usize,
            message: p.message,
        }
    }
}

/// Reads and parses a tree file as [`load_tree_stamped`] does, with the SHA-256 of its
/// bytes (as a trace's header names a file's: [`digest`]), the file read once.
pub fn load_tree_digested(path: &Path) -> Result<(Tree, Stamp, String, Kept), LoadError> {
    let read = |source: std::io::Error| LoadError::Read {
        path: path.to_owned(),
        source: Arc::new(source),
    };
    let bytes = read_bytes(path).map_err(read)?;
    let sha256 = digest_of(&bytes);
    let mut text = utf8(bytes).map_err(read)?;
    if text.starts_with(BOM) {
        text.drain(..BOM.len_utf8());
    }
    let stamp = Stamp::of(text.as_bytes());
    if btcpp::is_xml(path) {
        let (tree, kept) = parse_xml_tree(&text, path)?;
        return Ok((tree, stamp, sha256, kept));
    }
    Ok((parse_tree(&text, path)?, stamp, sha256, None))
}

/// The canonical text of `tree`, checked to load back to the same tree; `path` names
/// the file in the error when it would not (the file is then left as it is).
pub fn round_trip(tree: &Tree, path: &Path) -> Result<String, LoadError> {
    round_trip_kept(tree, path, &None).map(|(text, _)| text)
}

/// [`round_trip`] into the file `kept` says the rest of (a BehaviorTree.CPP file is written
/// as its `.xml` path says, into its document as read: docs/BTCPP.md), with what the text
/// written keeps besides the tree.
pub fn round_trip_kept(tree: &Tree, path: &Path, kept: &Kept) -> Result<(String, Kept), LoadError> {
    if btlog::is_btlog(path) {
        return Err(LoadError::Format {
            path: path.to_owned(),
            message: "not written: a BehaviorTree.CPP recording (.btlog) is kept as it was recorded; save the tree as a .xml or .json file".into(),
        });
    }
    if btcpp::is_xml(path) {
        let (text, written) =
            btcpp::write(tree, kept.as_deref()).map_err(|p| LoadError::Format {
                path: path.to_owned(),
                message: format!("not written: {}", p.message),
            })?;
        let not_back = |why: String| LoadError::Format {
            path: path.to_owned(),
            message: format!("not written: its BehaviorTree.CPP text would not load back ({why})"),
        };
        // The tree read back is the one written (a tree of the file that it does not run,
        // opened on its own, by its ID).
        let back = btcpp::read_named(&text, written.tree_id()).map_err(|p| not_back(p.message))?;
        if back.tree.nodes().len() != tree.nodes().len() {
            return Err(not_back(format!(
                "{} nodes read of {}",
                back.tree.nodes().len(),
                tree.nodes().len()
            )));
        }
        // Each node comes back as the kind it is (ids are made anew as a file is read).
        let kinds = |t: &Tree| -> Vec<String> {
            let mut k: Vec<String> = t.nodes().iter().map(|n| n.kind.clone()).collect();
            k.sort_unstable();
            k
        };
        let (now, read) = (kinds(tree), kinds(&back.tree));
        if let Some((kind, back_as)) = now.iter().zip(&read).find(|(a, b)| a != b) {
            return Err(not_back(format!(
                "a node of kind {kind} would be read back as {back_as}"
            )));
        }
        // What was written, its elements known by this tree's node ids.
        return Ok((text, Some(Arc::new(written))));
    }
    let text = tree_to_string(tree);
    match parse_tree(&text, path) {
        Ok(back) if back == *tree => Ok((text, None)),
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
/// leaves a half-written asset. Returns the stamp of what was written.
pub fn save_tree(path: &Path, tree: &Tree) -> Result<Stamp, LoadError> {
    save_tree_kept(path, tree, &None).map(|(stamp, _)| stamp)
}

/// [`save_tree`] into the file `kept` says the rest of (see [`round_trip_kept`]), with the
/// stamp of what was written and what it keeps besides the tree.
pub fn save_tree_kept(path: &Path, tree: &Tree, kept: &Kept) -> Result<(Stamp, Kept), LoadError> {
    let (text, kept) = round_trip_kept(tree, path, kept)?;
    write_atomically(path, text.as_bytes())?;
    Ok((Stamp::of(text.as_bytes()), kept))
}

/// Writes bytes to `path` through a temporary file in the same folder and a rename.
/// A symlink is followed: the file it points to is written, and the link stays. The
/// file keeps its permissions, and the folder is synced after the rename. A read-only
/// file is refused ([`LoadError::ReadOnly`]) and left as it is, and so is anything that
/// is not a regular file ([`check_kind`]).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), LoadError> {
    use std::io::Write;
    write_atomically_with(path, |f| f.write_all(bytes))
}

/// [`write_atomically`], the file's bytes written by `fill` (into the temporary file,
/// which is removed when `fill` fails).
pub(crate) fn write_atomically_with(
    path: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<(), LoadError> {
    let shown = path;
    check_kind(shown)?;
    let resolved = std::fs::canonicalize(path).ok();
    let path = resolved.as_deref().unwrap_or(path);
    if std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().readonly()) {
        return Err(LoadError::ReadOnly {
            path: shown.to_owned(),
        });
    }
    // What a save of this file stopped by a kill left beside it goes (the user's folders
    // only: Arbor's own files are written by their one process).
    remove_stale_temporaries(path);
    write_file(path, fill).map_err(|e| LoadError::Write {
        path: shown.to_owned(),
        source: Arc::new(e),
    })
}

/// Writes one of Arbor's own files (a recovery file, the settings) through a temporary
/// file and a rename, never through a link: when something other than a regular file is
/// at `path` (a symlink, a FIFO, a device, a folder), nothing is written and the error
/// says what is there.
pub fn write_own_file(path: &Path, bytes: &[u8]) -> Result<(), LoadError> {
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        let kind = meta.file_type();
        if !kind.is_file() {
            let what = if kind.is_symlink() {
                "a symbolic link"
            } else if kind.is_dir() {
                "a folder"
            } else {
                special_kind(&kind)
            };
            return Err(LoadError::Write {
                path: path.to_owned(),
                source: Arc::new(std::io::Error::other(format!(
                    "{what} is there, not a file Arbor wrote; it is left as it is"
                ))),
            });
        }
    }
    write_file(path, |f| std::io::Write::write_all(f, bytes)).map_err(|e| LoadError::Write {
        path: path.to_owned(),
        source: Arc::new(e),
    })
}

/// Where Arbor keeps a file of its own: `$OVERRIDE` when set; else `below` in the user's
/// folder named by `$XDG` (`XDG_DATA_HOME`, `XDG_CONFIG_HOME`), or in `fallback` under the
/// home folder (`$HOME`, or `%USERPROFILE%` on Windows). `Err` says why there is none.
pub(crate) fn user_file(
    override_var: &str,
    xdg: &str,
    fallback: &str,
    below: &[&str],
) -> Result<PathBuf, String> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(path) = var(override_var) {
        return Ok(PathBuf::from(path));
    }
    let base = var(xdg)
        .map(PathBuf::from)
        .or_else(|| {
            var("HOME")
                .or_else(|| var("USERPROFILE"))
                .map(|h| PathBuf::from(h).join(fallback))
        })
        .ok_or_else(|| format!("neither HOME nor {xdg} is set (set {override_var} to choose)"))?;
    Ok(below.iter().fold(base, |p, part| p.join(part)))
}

/// Renames a file that does not read aside, to `NAME.unreadable` (or `NAME.N.unreadable`
/// when that is taken), so that it is kept and never written over; where it went, or
/// `None` when it could not be moved.
pub(crate) fn set_aside(file: &Path) -> Option<PathBuf> {
    (0..100).find_map(|n| {
        let aside = PathBuf::from(match n {
            0 => format!("{}.unreadable", file.display()),
            n => format!("{}.{n}.unreadable", file.display()),
        });
        (std::fs::symlink_metadata(&aside).is_err() && std::fs::rename(file, &aside).is_ok())
            .then_some(aside)
    })
}

/// The temporary file a process writes `name` through, in the same folder.
fn temporary_name(name: &str, pid: u32) -> String {
    format!(".{name}.{pid}.tmp")
}

/// Removes the temporary files left beside `path` by Arbor processes that were stopped
/// while saving it (a kill, a crash, a power cut); those of running processes stay.
pub fn remove_stale_temporaries(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let prefix = format!(".{}.", name.to_string_lossy());
    for (file, pid) in files_by_process(dir, &prefix, ".tmp") {
        let owner = Owner { pid, started: 0 };
        if pid == std::process::id() || !owner.is_alive() {
            let _ = std::fs::remove_file(file);
        }
    }
}

/// The entries of `dir` named `PREFIX<process id>SUFFIX`, each with that process id.
pub(crate) fn files_by_process(dir: &Path, prefix: &str, suffix: &str) -> Vec<(PathBuf, u32)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name();
            let pid = name
                .to_string_lossy()
                .strip_prefix(prefix)?
                .strip_suffix(suffix)?
                .parse::<u32>()
                .ok()?;
            Some((entry.path(), pid))
        })
        .collect()
}

/// Writes `path` through a temporary file in the same folder, its bytes written by
/// `fill`, and a rename.
fn write_file(
    path: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "tree".into());
    let tmp = dir.join(temporary_name(&name, std::process::id()));
    // This process's own leftover (a write that failed to clean up) is in the way.
    let _ = std::fs::remove_file(&tmp);
    let permissions = std::fs::metadata(path).ok().map(|m| m.permissions());
    let result = (|| {
        // A new file: whatever was planted at the temporary name (a link) is not followed.
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| {
                std::io::Error::new(
                    e.kind(),
                    format!("cannot make a file in the folder {}: {e}", dir.display()),
                )
            })?;
        fill(&mut f)?;
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
