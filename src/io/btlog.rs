//! BehaviorTree.CPP's recordings (`.btlog`, written by its FileLogger2) read as traces
//! (docs/BTCPP.md, "Recordings"): the tree the program ran, embedded in the file, and
//! each status change of its nodes, in order, as the events a replay shows.
//!
//! The file: `BTCPP4-FileLogger2`, a protocol byte (1), the tree's XML (its length in 4
//! bytes, little-endian, then the text), the time the recording started (8 bytes, in µs),
//! then one record of 9 bytes per change: the µs since the start (6 bytes), the node's
//! uid (2 bytes) and its new status (1 byte: idle, running, success, failure, skipped).

use std::path::Path;

use super::trace::{TraceCut, TraceError, TraceFile, TracePlace};
use crate::runtime::{TRACE_VERSION, TraceHeader, TracedAgent};

/// The first bytes of a recording.
pub const BTLOG_MAGIC: &[u8] = b"BTCPP4-FileLogger2";

/// The protocol of the recordings read.
const PROTOCOL: u8 = 1;

/// The longest tree a recording may embed (as a BehaviorTree.CPP file is read: 64 MiB).
const MAX_XML: usize = 64 << 20;

/// The bytes of one status change.
const RECORD: usize = 9;

/// A step of a recording's replay is a millisecond of it (docs/BTCPP.md, "Recordings").
pub const BTLOG_DT: f64 = 0.001;

/// The header of a BehaviorTree.CPP program's run read as a trace (a recording's, or one
/// watched live): one agent, `name`, running the tree file `tree`; a step a millisecond.
pub fn recording_header(name: &str, tree: &str) -> TraceHeader {
    TraceHeader {
        arbor_trace: TRACE_VERSION,
        dt: BTLOG_DT,
        seed: 0,
        agents: vec![TracedAgent {
            name: name.to_owned(),
            tree: tree.to_owned(),
        }],
        files: Vec::new(),
    }
}

/// The step of a change `us` µs after the recording started: its millisecond, counted
/// from 1 (a change at 30.4 ms is in step 31).
pub fn btlog_step(us: u64) -> u64 {
    us / 1000 + 1
}

/// Whether `path` names a recording: its name ends in `.btlog`.
pub fn is_btlog(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("btlog"))
}

/// A recording as read: its tree's XML and its status changes.
#[derive(Clone, Debug, PartialEq)]
pub struct Btlog {
    /// The tree, as BehaviorTree.CPP wrote it (its nodes carry their `_uid`).
    pub xml: String,
    /// When the recording started, in µs since 1970.
    pub started: i64,
    /// Each change: µs since the start, the node's uid, and its status code.
    pub changes: Vec<(u64, u16, u8)>,
    /// The bytes of a last change cut off mid-write (a program that stopped while it
    /// wrote), if there are any; the changes before them are all here.
    pub cut: Option<u64>,
}

/// Reads the recording at `path`.
pub fn read_btlog(path: &Path) -> Result<Btlog, TraceError> {
    let bytes = std::fs::read(path).map_err(|e| error(path, format!("cannot read: {e}")))?;
    parse_btlog(&bytes, path)
}

/// The bytes before a recording's tree: its magic, its protocol and the tree's length.
const HEAD: usize = BTLOG_MAGIC.len() + 1 + 4;

/// The length of the tree a recording embeds, from its first [`HEAD`] bytes (or fewer,
/// when the file is shorter), checked: its magic, its protocol, a length it may have.
fn tree_length(head: &[u8], path: &Path) -> Result<usize, TraceError> {
    let Some(rest) = head.strip_prefix(BTLOG_MAGIC) else {
        return Err(error(
            path,
            "not a BehaviorTree.CPP recording: it does not start with BTCPP4-FileLogger2".into(),
        ));
    };
    let (&protocol, rest) = rest
        .split_first()
        .ok_or_else(|| error(path, "the file ends after its first bytes".into()))?;
    if protocol != PROTOCOL {
        return Err(error(
            path,
            format!("a recording of protocol {protocol}: Arbor reads protocol {PROTOCOL}"),
        ));
    }
    let (len, _) =
        take::<4>(rest).ok_or_else(|| error(path, "the file ends before its tree".into()))?;
    let len = i32::from_le_bytes(len);
    usize::try_from(len)
        .ok()
        .filter(|&n| n <= MAX_XML)
        .ok_or_else(|| {
            error(
                path,
                format!("its tree is said to be {len} bytes long; a tree is 0 to {MAX_XML} bytes"),
            )
        })
}

/// The tree's text, from the bytes that follow the head, or why there is none.
fn tree_text(len: usize, rest: &[u8], path: &Path) -> Result<String, TraceError> {
    let xml = rest.get(..len).ok_or_else(|| {
        error(
            path,
            format!(
                "its tree is said to be {len} bytes long, but only {} bytes follow",
                rest.len()
            ),
        )
    })?;
    std::str::from_utf8(xml)
        .map(str::to_owned)
        .map_err(|e| error(path, format!("its tree is not UTF-8 text: {e}")))
}

/// The tree the recording at `path` embeds, the file read only to the tree's end (opening
/// a long recording's tree does not read its changes).
pub fn read_btlog_tree(path: &Path) -> Result<String, TraceError> {
    use std::io::Read;
    let cannot = |e: std::io::Error| error(path, format!("cannot read: {e}"));
    let mut file = std::fs::File::open(path).map_err(cannot)?;
    let mut head = Vec::with_capacity(HEAD);
    (&mut file)
        .take(HEAD as u64)
        .read_to_end(&mut head)
        .map_err(cannot)?;
    let len = tree_length(&head, path)?;
    let mut xml = Vec::with_capacity(len);
    file.take(len as u64)
        .read_to_end(&mut xml)
        .map_err(cannot)?;
    tree_text(len, &xml, path)
}

/// Parses a recording's bytes; `path` names it in errors.
pub fn parse_btlog(bytes: &[u8], path: &Path) -> Result<Btlog, TraceError> {
    let len = tree_length(bytes, path)?;
    let rest = &bytes[HEAD..];
    let xml = tree_text(len, rest, path)?;
    let rest = &rest[len..];
    let (started, rest) =
        take::<8>(rest).ok_or_else(|| error(path, "the file ends before its start time".into()))?;
    let started = i64::from_le_bytes(started);
    let (changes, tail) = read_changes(rest);
    let cut = (tail > 0).then(|| (bytes.len() - tail) as u64);
    Ok(Btlog {
        xml,
        started,
        changes,
        cut,
    })
}

/// Status changes as BehaviorTree.CPP writes them, 9 bytes each (a recording's, and a
/// Groot2Publisher's transitions): the µs since the start (6 bytes, little-endian), the
/// node's uid (2 bytes) and its new status (1 byte). Also says how many bytes are left
/// over at the end, fewer than a change's.
pub fn read_changes(bytes: &[u8]) -> (Vec<(u64, u16, u8)>, usize) {
    let records = bytes.chunks_exact(RECORD);
    let tail = records.remainder().len();
    let changes = records
        .map(|r| {
            let mut time = [0u8; 8];
            time[..6].copy_from_slice(&r[..6]);
            (
                u64::from_le_bytes(time),
                u16::from_le_bytes([r[6], r[7]]),
                r[8],
            )
        })
        .collect();
    (changes, tail)
}

/// The first `N` bytes of `bytes`, and the rest.
fn take<const N: usize>(bytes: &[u8]) -> Option<([u8; N], &[u8])> {
    let (head, rest) = bytes.split_first_chunk::<N>()?;
    Some((*head, rest))
}

fn error(path: &Path, message: String) -> TraceError {
    TraceError {
        path: path.to_owned(),
        line: 0,
        message,
    }
}

/// The recording at `path` as a trace (docs/BTCPP.md, "Recordings"): one agent, named as
/// the file is, running the tree the file embeds; a step per millisecond of the recording
/// ([`BTLOG_DT`]), each change in the step of its time, in order, as the events that say it.
/// A change of a node the tree does not have, or to a status BehaviorTree.CPP has no code
/// for, is refused with its number (1 the first); each event's `line` is its change's
/// number.
pub fn btlog_trace(path: &Path) -> Result<TraceFile, TraceError> {
    let log = read_btlog(path)?;
    let ids = super::btcpp::recorded_ids(&log.xml).map_err(|p| {
        let at = if p.line > 0 {
            format!(" (line {}, column {} of it)", p.line, p.column)
        } else {
            String::new()
        };
        error(path, format!("its tree does not read{at}: {}", p.message))
    })?;
    let name = path
        .file_stem()
        .map_or_else(|| "recording".into(), |s| s.to_string_lossy().into_owned());
    let file = path
        .file_name()
        .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
    let header = recording_header(&name, &file);
    let mut changes = super::btcpp::StatusChanges::new(ids);
    let mut events = Vec::with_capacity(log.changes.len() * 2);
    for (i, &(time, uid, to)) in log.changes.iter().enumerate() {
        let line = i + 1;
        changes
            .apply(btlog_step(time), uid, to, line, &mut events)
            .map_err(|what| error(path, format!("change {line} {what}")))?;
    }
    let cut = log.cut.map(|at| TraceCut {
        at: TracePlace::Byte(at),
        steps: events.last().map_or(0, |e| e.step),
    });
    Ok(TraceFile {
        header: Some(header),
        agents: vec![name],
        events,
        cut,
    })
}
