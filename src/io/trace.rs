//! Trace files (docs/FORMAT.md, "Traces"): the header a run writes first, naming the files
//! it read with their digests, and reading a trace back, header and events, for a replay.

use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::runtime::{
    EventKindOf, Reason, Status, TRACE_VERSION, TraceHeader, TracedAgent, TracedFile, ValueOf,
};

/// The longest line a trace may have, in bytes: an event is a few hundred at most.
pub const MAX_TRACE_LINE: usize = 64 * 1024;

/// The highest step an event may name (2⁴⁰: a run of a million years at thirty steps a
/// second).
pub const MAX_TRACE_STEP: u64 = 1 << 40;

/// The SHA-256 of a file's bytes, in hexadecimal.
pub fn digest(path: &Path) -> std::io::Result<String> {
    let bytes = std::fs::read(path)?;
    Ok(Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// How a trace names `file`: relative to the folder of the trace at `trace` when the file
/// lies below it, else absolute (a trace on standard output: relative to the working
/// folder, the same way).
pub fn traced_path(file: &Path, trace: Option<&Path>) -> String {
    let absolute = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
    let file = absolute(file);
    let folder = match trace.filter(|t| t.as_os_str() != "-") {
        Some(t) => t
            .parent()
            .map(|p| {
                if p.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    p
                }
            })
            .map(absolute),
        None => std::env::current_dir().ok(),
    };
    let shown = folder
        .and_then(|f| file.strip_prefix(&f).ok().map(Path::to_owned))
        .unwrap_or(file);
    shown.to_string_lossy().replace('\\', "/")
}

/// The file a trace at `trace` names as `path`: an absolute path as it is, a relative one
/// from the trace's folder (or, when it is not there, from the working folder, where a
/// trace written to standard output names it from).
pub fn resolve_traced(path: &str, trace: &Path) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() {
        return p.to_owned();
    }
    let beside = trace.parent().unwrap_or(Path::new(".")).join(p);
    if beside.exists() || !p.exists() {
        beside
    } else {
        p.to_owned()
    }
}

/// The header of a run of `agents` (each with the tree file it runs), which read the
/// files `inputs`, written to a trace at `trace` (`-` or none: standard output). A file
/// that cannot be read again is named with an empty digest.
pub fn trace_header(
    dt: f64,
    seed: u64,
    agents: &[(String, PathBuf)],
    inputs: &[PathBuf],
    trace: Option<&Path>,
) -> TraceHeader {
    TraceHeader {
        arbor_trace: TRACE_VERSION,
        dt,
        seed,
        agents: agents
            .iter()
            .map(|(name, tree)| TracedAgent {
                name: name.clone(),
                tree: traced_path(tree, trace),
            })
            .collect(),
        files: inputs
            .iter()
            .map(|f| TracedFile {
                path: traced_path(f, trace),
                sha256: digest(f).unwrap_or_default(),
            })
            .collect(),
    }
}

/// One event read from a trace: its texts owned.
#[derive(Clone, Debug, PartialEq)]
pub struct TracedEvent {
    /// The step it happened in.
    pub step: u64,
    /// The agent, by its place in [`TraceFile::agents`].
    pub agent: usize,
    /// The node's trace id, if the event concerns a node.
    pub node: Option<Arc<str>>,
    /// What happened.
    pub kind: EventKindOf<Arc<str>>,
    /// Its line in the file (1 is the first).
    pub line: usize,
}

/// A trace read back.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceFile {
    /// Its header; `None` for a trace written without one.
    pub header: Option<TraceHeader>,
    /// The agents: the header's, then any other the events name, in the order met.
    pub agents: Vec<String>,
    /// The events, in order.
    pub events: Vec<TracedEvent>,
}

/// Why a trace could not be read: the file, the line (0: the file as a whole) and what
/// is wrong.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{}{}: {message}", path.display(), if *line > 0 { format!(":{line}") } else { String::new() })]
pub struct TraceError {
    /// The file.
    pub path: PathBuf,
    /// The line (1 is the first; 0: the file as a whole).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// One line of a trace as written (docs/SEMANTICS.md §5).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    step: u64,
    agent: String,
    event: String,
    node: Option<String>,
    status: Option<String>,
    reason: Option<String>,
    result: Option<bool>,
    id: Option<String>,
    key: Option<String>,
    message: Option<String>,
    /// `Some(Null)` for `"value":null` (a value removed), `None` when absent.
    #[serde(default, deserialize_with = "present")]
    value: Option<serde_json::Value>,
}

/// A field that is present, `null` included.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<serde_json::Value>, D::Error> {
    <serde_json::Value as serde::Deserialize>::deserialize(d).map(Some)
}

/// Reads the trace at `path`.
pub fn read_trace(path: &Path) -> Result<TraceFile, TraceError> {
    let file = std::fs::File::open(path).map_err(|e| TraceError {
        path: path.to_owned(),
        line: 0,
        message: format!("cannot read: {e}"),
    })?;
    parse_trace(std::io::BufReader::new(file), path)
}

/// Reads a trace from `input`; `path` names it in errors.
pub fn parse_trace(mut input: impl BufRead, path: &Path) -> Result<TraceFile, TraceError> {
    let err = |line: usize, message: String| TraceError {
        path: path.to_owned(),
        line,
        message,
    };
    let mut trace = TraceFile {
        header: None,
        agents: Vec::new(),
        events: Vec::new(),
    };
    let mut buf = Vec::new();
    let mut index = AgentIndex::default();
    let mut number = 0;
    loop {
        buf.clear();
        number += 1;
        let read = input
            .by_ref()
            .take(MAX_TRACE_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| err(number, format!("cannot read: {e}")))?;
        if read == 0 {
            break;
        }
        if buf.len() > MAX_TRACE_LINE {
            return Err(err(
                number,
                format!("a line longer than {MAX_TRACE_LINE} bytes; an event is one short line"),
            ));
        }
        let text = std::str::from_utf8(&buf)
            .map_err(|_| err(number, "not UTF-8 text".into()))?
            .trim();
        if text.is_empty() {
            continue;
        }
        if number == 1 && text.contains("\"arbor_trace\"") {
            let header: TraceHeader = serde_json::from_str(text)
                .map_err(|e| err(number, format!("the header does not read: {e}")))?;
            if header.arbor_trace != TRACE_VERSION {
                return Err(err(
                    number,
                    format!(
                        "a trace of version {}; this Arbor reads version {TRACE_VERSION}",
                        header.arbor_trace
                    ),
                ));
            }
            if !(header.dt.is_finite() && header.dt > 0.0) {
                return Err(err(
                    number,
                    format!("dt must be positive, not {}", header.dt),
                ));
            }
            trace.agents = header.agents.iter().map(|a| a.name.clone()).collect();
            index = AgentIndex::of(&trace.agents);
            trace.header = Some(header);
            continue;
        }
        let event = parse_event(text, &mut trace.agents, &mut index, number).map_err(|m| {
            let hint = if number == 1 && text.contains("\"format\"") {
                " (is it a tree file? a trace is JSON Lines of events)"
            } else {
                ""
            };
            err(number, format!("{m}{hint}"))
        })?;
        trace.events.push(event);
    }
    Ok(trace)
}

/// The agents of a trace, by name, each with its place; at most [`MAX_TRACE_AGENTS`].
#[derive(Clone, Debug, Default)]
pub struct AgentIndex {
    places: std::collections::HashMap<String, usize>,
}

/// The most agents a trace may name.
pub const MAX_TRACE_AGENTS: usize = 65_536;

impl AgentIndex {
    /// An index of `names`, in their places.
    pub fn of(names: &[String]) -> Self {
        Self {
            places: names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.clone(), i))
                .collect(),
        }
    }

    /// Whether agent `name` has a place.
    pub fn contains(&self, name: &str) -> bool {
        self.places.contains_key(name)
    }

    /// The place of agent `name` among `names`, which gain it if it is new.
    fn place(&mut self, name: &str, names: &mut Vec<String>) -> Result<usize, String> {
        if let Some(&i) = self.places.get(name) {
            return Ok(i);
        }
        if names.len() >= MAX_TRACE_AGENTS {
            return Err(format!("more than {MAX_TRACE_AGENTS} agents"));
        }
        names.push(name.to_owned());
        self.places.insert(name.to_owned(), names.len() - 1);
        Ok(names.len() - 1)
    }
}

/// One event line of a trace (line `number`), its agent found in `agents` (indexed by
/// `index`) or added to them; or what is wrong with it.
pub fn parse_event(
    text: &str,
    agents: &mut Vec<String>,
    index: &mut AgentIndex,
    number: usize,
) -> Result<TracedEvent, String> {
    // One line: serde's "line 1" would contradict the file's line number.
    let line: Line = serde_json::from_str(text).map_err(|e| {
        format!(
            "not an event: {}",
            e.to_string().replace(" at line 1 column ", " at column ")
        )
    })?;
    if line.step > MAX_TRACE_STEP {
        return Err(format!(
            "step {} is past any run (at most {MAX_TRACE_STEP})",
            line.step
        ));
    }
    let kind = event_kind(&line)?;
    if line.node.is_none() && needs_node(&kind) {
        return Err(format!("a '{}' event needs a node", line.event));
    }
    let agent = index.place(&line.agent, agents)?;
    Ok(TracedEvent {
        step: line.step,
        agent,
        node: line.node.map(Arc::from),
        kind,
        line: number,
    })
}

/// Whether events of this kind always name a node (a warning, or a value the world
/// removed from a context, names none).
fn needs_node(kind: &EventKindOf<Arc<str>>) -> bool {
    use EventKindOf as K;
    !matches!(kind, K::Warning(_) | K::Context(_, None))
}

/// What a line says happened, or why it cannot say.
fn event_kind(l: &Line) -> Result<EventKindOf<Arc<str>>, String> {
    use EventKindOf as K;
    let text = |field: &Option<String>, name: &str| {
        field
            .as_deref()
            .map(Arc::from)
            .ok_or_else(|| format!("a '{}' event needs its \"{name}\"", l.event))
    };
    let status = || match l.status.as_deref() {
        Some("success") => Ok(Status::Success),
        Some("failure") => Ok(Status::Failure),
        Some(other) => Err(format!("\"status\" is success or failure, not '{other}'")),
        None => Err(format!("a '{}' event needs its \"status\"", l.event)),
    };
    Ok(match l.event.as_str() {
        "enter" => K::Enter,
        "execute" => K::Execute,
        "exit" => K::Exit(status()?, l.reason.as_deref().map(Arc::from)),
        "abort" => K::Abort,
        "check" => K::Check(
            l.result
                .ok_or_else(|| "a 'check' event needs its \"result\"".to_owned())?,
        ),
        "complete" => K::Complete(status()?),
        "restart" => K::Restart(match l.reason.as_deref() {
            Some(r) => Reason::from_name(r).ok_or_else(|| {
                format!("\"reason\" of a restart is complete, context_missing, force_reset or stall, not '{r}'")
            })?,
            None => return Err("a 'restart' event needs its \"reason\"".into()),
        }),
        "interrupt" => K::Interrupt(text(&l.id, "id")?),
        "context_missing" => K::ContextMissing(text(&l.key, "key")?),
        "stall" => K::Stall,
        "warning" => K::Warning(text(&l.message, "message")?),
        "context" => K::Context(
            text(&l.key, "key")?,
            match &l.value {
                Some(serde_json::Value::Null) => None,
                Some(v) => Some(value(v)?),
                None => return Err("a 'context' event needs its \"value\"".into()),
            },
        ),
        other => return Err(format!("unknown event '{other}'")),
    })
}

/// A context value as a trace writes it: `{"entity":ID}`, `[X,Y]`, a number or a string.
fn value(v: &serde_json::Value) -> Result<ValueOf<Arc<str>>, String> {
    use serde_json::Value as J;
    let bad = || format!("\"value\" is {{\"entity\":ID}}, [X,Y], a number or a string, not {v}");
    Ok(match v {
        J::Number(n) => ValueOf::Number(n.as_f64().ok_or_else(bad)?),
        J::String(s) => ValueOf::Text(Arc::from(s.as_str())),
        J::Array(xy) if xy.len() == 2 => {
            let at = |i: usize| xy[i].as_f64().ok_or_else(bad);
            ValueOf::Position([at(0)?, at(1)?])
        }
        J::Object(o) if o.len() == 1 => {
            ValueOf::Entity(o.get("entity").and_then(J::as_u64).ok_or_else(bad)?)
        }
        _ => return Err(bad()),
    })
}
