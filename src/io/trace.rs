//! Trace files (docs/FORMAT.md, "Traces"): the header a run writes first, naming the files
//! it read with their digests, and reading a trace back, header and events, for a replay.

use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::binary_trace::{Next, Records, Stop};
use crate::runtime::{
    BINARY_TRACE_EXTENSION, BINARY_TRACE_MAGIC, EventKindOf, MAX_TRACE_HEADER, Reason, Status,
    TRACE_VERSION, TraceEncoding, TraceHeader, TracedAgent, TracedFile, ValueOf,
};

/// The longest line a trace may have, in bytes: an event is a few hundred at most.
pub const MAX_TRACE_LINE: usize = 64 * 1024;

/// The highest step an event may name (2⁴⁰: a run of a million years at thirty steps a
/// second).
pub const MAX_TRACE_STEP: u64 = 1 << 40;

/// The SHA-256 of a file's bytes, in hexadecimal; only a regular file of at most
/// [`MAX_FILE_BYTES`](super::MAX_FILE_BYTES) is read, as [`read_text`](super::read_text)
/// says.
pub fn digest(path: &Path) -> std::io::Result<String> {
    Ok(digest_of(&super::read_bytes(path)?))
}

/// The SHA-256 of `bytes`, in hexadecimal.
pub fn digest_of(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
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

impl TracedEvent {
    /// The event as a trace writer takes it (there is no program to number its node by:
    /// the writer names it by its id).
    pub fn as_event(&self) -> crate::runtime::Event<'_> {
        crate::runtime::Event {
            step: self.step,
            node: self.node.as_ref().map(|_| u32::MAX),
            node_id: self.node.as_deref().unwrap_or(""),
            kind: self.kind.map(|t| &**t),
        }
    }

    /// The step of the timeline it belongs to: its own, except that the start's events
    /// (step 0) belong to the first step, as a live session counts them.
    pub fn frame(&self) -> u64 {
        self.step.max(1)
    }

    /// The memory it holds of its own, in bytes: itself, and the texts no other event
    /// shares once node ids, keys, Interrupt ids and reasons are kept once (a warning's
    /// message, a text value stored in the context). What bounds a window of events.
    pub fn cost(&self) -> usize {
        use crate::runtime::EventKindOf as K;
        let own = match &self.kind {
            K::Warning(m) => m.len(),
            K::Context(_, Some(ValueOf::Text(t))) => t.len(),
            _ => 0,
        };
        std::mem::size_of::<Self>() + own
    }
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
    /// Where its end was cut off mid-write (the events before it are all here), if it was.
    pub cut: Option<TraceCut>,
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

/// Reads the trace at `path`, in either encoding: every event up to the end, or up to a
/// last line cut off mid-write ([`TraceFile::cut`]).
pub fn read_trace(path: &Path) -> Result<TraceFile, TraceError> {
    if super::btlog::is_btlog(path) {
        return super::btlog::btlog_trace(path);
    }
    gather(TraceReader::open(path)?)
}

/// [`read_trace`], adding to `read` the bytes read as it goes, so that another thread can
/// say how far it has come.
pub fn read_trace_counting(
    path: &Path,
    read: &std::sync::atomic::AtomicU64,
) -> Result<TraceFile, TraceError> {
    if super::btlog::is_btlog(path) {
        let trace = super::btlog::btlog_trace(path)?;
        let size = std::fs::metadata(path).map_or(0, |m| m.len());
        read.fetch_add(size, std::sync::atomic::Ordering::Relaxed);
        return Ok(trace);
    }
    /// A reader that counts what it reads.
    struct Counting<'c, R> {
        inner: R,
        read: &'c std::sync::atomic::AtomicU64,
    }
    impl<R: std::io::Read> std::io::Read for Counting<'_, R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.inner.read(buf)?;
            self.read
                .fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
            Ok(n)
        }
    }
    let file =
        std::fs::File::open(path).map_err(|e| trace_error(path, 0, format!("cannot read: {e}")))?;
    let input = std::io::BufReader::with_capacity(1 << 16, Counting { inner: file, read });
    gather(TraceReader::new(input, path)?)
}

/// Reads a trace from `input`, in either encoding; `path` names it in errors.
pub fn parse_trace(input: impl BufRead, path: &Path) -> Result<TraceFile, TraceError> {
    gather(TraceReader::new(input, path)?)
}

/// Every event `reader` reads, with its header and agents.
fn gather<R: BufRead>(mut reader: TraceReader<R>) -> Result<TraceFile, TraceError> {
    let mut events = Vec::new();
    while let Some(e) = reader.next_event()? {
        events.push(e);
    }
    let cut = reader.cut();
    let (header, agents) = reader.into_parts();
    Ok(TraceFile {
        header,
        agents,
        events,
        cut,
    })
}

/// Whether the file at `path` is a trace: its name ends in `.jsonl`, `.arbtrace` or
/// `.btlog` (a BehaviorTree.CPP recording), it
/// starts with a binary trace's first bytes, or its first line is a trace's header or
/// event. Only a regular file is looked into, and only its first line.
pub fn is_trace(path: &Path) -> bool {
    let by_name = path.extension().is_some_and(|e| {
        e.eq_ignore_ascii_case("jsonl") || e.eq_ignore_ascii_case(BINARY_TRACE_EXTENSION)
    }) || super::btlog::is_btlog(path);
    if by_name {
        return true;
    }
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut first = Vec::new();
    if std::io::BufReader::new(file)
        .take(MAX_TRACE_LINE as u64)
        .read_until(b'\n', &mut first)
        .is_err()
    {
        return false;
    }
    if first.starts_with(&BINARY_TRACE_MAGIC) {
        return true;
    }
    // (A line longer than the part read may end in part of a character.)
    let text = match std::str::from_utf8(&first) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&first[..e.valid_up_to()]).unwrap_or_default(),
    };
    let text = text.trim();
    // (A header longer than the part read starts as every header does.)
    text.starts_with("{\"arbor_trace\":")
        || text.starts_with('{')
            && (serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(text)
                .is_ok_and(|o| o.contains_key("arbor_trace"))
                || parse_event(text, &mut Vec::new(), &mut AgentIndex::default(), 1).is_ok())
}

/// Where in a trace: a line of JSON Lines (1 is the first), a byte of a binary trace (0
/// is the first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TracePlace {
    /// A line.
    Line(usize),
    /// A byte.
    Byte(u64),
}

/// The end of a trace cut off mid-write (a game that crashed with its writer's buffer
/// half written, a run killed): the part of an event there is left out, and every event
/// before it read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceCut {
    /// Where the part left out starts.
    pub at: TracePlace,
    /// The steps the events before it show (a replay's last step).
    pub steps: u64,
}

impl TraceCut {
    /// What it means, in words: "the last line was cut off: 120 steps shown".
    pub fn message(&self) -> String {
        let what = match self.at {
            TracePlace::Line(_) => "line",
            TracePlace::Byte(_) => "event",
        };
        format!("the last {what} was cut off: {} steps shown", self.steps)
    }

    /// The trace at `path` and the place: `run.jsonl:69220`, `run.arbtrace: byte 4411`.
    pub fn location(&self, path: &Path) -> String {
        match self.at {
            TracePlace::Line(n) => format!("{}:{n}", path.display()),
            TracePlace::Byte(b) => format!("{}: byte {b}", path.display()),
        }
    }
}

/// A trace read one event at a time, in either encoding (a binary trace is told by its
/// first bytes, [`crate::runtime::BINARY_TRACE_MAGIC`]; anything else is JSON Lines), in
/// memory that does not grow with the trace: what `arbor validate` and `arbor convert` go
/// through, and what [`read_trace`] gathers.
pub struct TraceReader<R: BufRead> {
    path: PathBuf,
    header: Option<TraceHeader>,
    agents: Vec<String>,
    index: AgentIndex,
    form: Form<R>,
    cut: Option<TraceCut>,
    /// The last frame of the events read (the start counted with the first step).
    steps: u64,
    events: usize,
}

/// The two encodings' readers.
enum Form<R: BufRead> {
    Lines(Lines<std::io::Chain<std::io::Cursor<Vec<u8>>, R>>),
    Binary(Records<R>),
}

/// The lines of a JSON Lines trace, one at a time.
struct Lines<R> {
    input: R,
    /// The line last read, and its number.
    buf: Vec<u8>,
    number: usize,
    /// Whether `buf` holds a line read but not yet taken.
    pending: bool,
}

impl<R: BufRead> Lines<R> {
    /// Reads the next line into `buf` (or takes the one pending): whether it ends with a
    /// newline; `None` at the end.
    fn advance(&mut self, path: &Path) -> Result<Option<bool>, TraceError> {
        self.advance_within(path, MAX_TRACE_LINE)
    }

    /// [`Lines::advance`], for a line of at most `max` bytes (a header's is longer).
    fn advance_within(&mut self, path: &Path, max: usize) -> Result<Option<bool>, TraceError> {
        if std::mem::take(&mut self.pending) {
            return Ok(Some(self.buf.ends_with(b"\n")));
        }
        self.buf.clear();
        self.number += 1;
        let read = self
            .input
            .by_ref()
            .take(max as u64 + 1)
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| trace_error(path, self.number, format!("cannot read: {e}")))?;
        if read == 0 {
            return Ok(None);
        }
        if self.buf.len() > max {
            return Err(self.too_long(path, max));
        }
        Ok(Some(self.buf.ends_with(b"\n")))
    }

    /// The error of the line read, longer than `max` bytes.
    fn too_long(&self, path: &Path, max: usize) -> TraceError {
        let what = if max == MAX_TRACE_LINE {
            "an event is one short line"
        } else {
            "a header names the run's agents and files"
        };
        trace_error(
            path,
            self.number,
            format!("a line longer than {max} bytes; {what}"),
        )
    }
}

/// A [`TraceError`].
fn trace_error(path: &Path, line: usize, message: String) -> TraceError {
    TraceError {
        path: path.to_owned(),
        line,
        message,
    }
}

/// Whether `text`, a last line without its newline, is the start of a JSON value cut off
/// before its end.
fn cut_short(text: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_err_and(|e| e.is_eof())
}

/// A header line's text as a header: of the version this Arbor reads, with a positive dt.
fn parse_header(text: &str) -> Result<TraceHeader, String> {
    let header: TraceHeader =
        serde_json::from_str(text).map_err(|e| format!("the header does not read: {e}"))?;
    let version = header.arbor_trace;
    if let Some(problem) =
        super::header::TRACE.version_problem(Some(version.into()), &version.to_string())
    {
        return Err(problem);
    }
    if !(header.dt.is_finite() && header.dt > 0.0) {
        return Err(format!("dt must be positive, not {}", header.dt));
    }
    Ok(header)
}

impl TraceReader<std::io::BufReader<std::fs::File>> {
    /// The trace at `path`, its header read.
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let file = std::fs::File::open(path)
            .map_err(|e| trace_error(path, 0, format!("cannot read: {e}")))?;
        Self::new(std::io::BufReader::with_capacity(1 << 16, file), path)
    }
}

impl<R: BufRead> TraceReader<R> {
    /// The trace `input` holds, its header read; `path` names it in errors.
    pub fn new(mut input: R, path: &Path) -> Result<Self, TraceError> {
        let mut first = [0; BINARY_TRACE_MAGIC.len()];
        let mut n = 0;
        while n < first.len() {
            match input.read(&mut first[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(trace_error(path, 0, format!("cannot read: {e}"))),
            }
        }
        let form = if first == BINARY_TRACE_MAGIC {
            Form::Binary(Records::new(input, n as u64))
        } else {
            Form::Lines(Lines {
                input: std::io::Cursor::new(first[..n].to_vec()).chain(input),
                buf: Vec::new(),
                number: 0,
                pending: false,
            })
        };
        let mut reader = Self {
            path: path.to_owned(),
            header: None,
            agents: Vec::new(),
            index: AgentIndex::default(),
            form,
            cut: None,
            steps: 0,
            events: 0,
        };
        reader.read_header()?;
        Ok(reader)
    }

    /// Reads the header, if the trace has one: a binary trace's after its first bytes,
    /// the first line of JSON Lines when it names `arbor_trace` (else that line is left
    /// for the first event).
    fn read_header(&mut self) -> Result<(), TraceError> {
        let path = self.path.clone();
        let text = match &mut self.form {
            Form::Binary(records) => {
                let start = records.offset();
                match records.header_text() {
                    Ok(None) => return Ok(()),
                    Ok(Some(text)) => text,
                    Err(Stop::Cut) => {
                        self.cut = Some(TraceCut {
                            at: TracePlace::Byte(start),
                            steps: 0,
                        });
                        return Ok(());
                    }
                    Err(Stop::Bad(m)) => return Err(trace_error(&path, 0, m)),
                    Err(Stop::Io(e)) => {
                        return Err(trace_error(&path, 0, format!("cannot read: {e}")));
                    }
                }
            }
            Form::Lines(lines) => {
                let Some(complete) = lines.advance_within(&path, MAX_TRACE_HEADER)? else {
                    return Ok(());
                };
                let text = std::str::from_utf8(&lines.buf).unwrap_or("").trim();
                if !text.contains("\"arbor_trace\"") {
                    // The first event: a line as long as any other at most.
                    if lines.buf.len() > MAX_TRACE_LINE {
                        return Err(lines.too_long(&path, MAX_TRACE_LINE));
                    }
                    lines.pending = true;
                    return Ok(());
                }
                if !complete && cut_short(text) {
                    self.cut = Some(TraceCut {
                        at: TracePlace::Line(1),
                        steps: 0,
                    });
                    return Ok(());
                }
                text.to_owned()
            }
        };
        let line = usize::from(matches!(self.form, Form::Lines(_)));
        let header = parse_header(&text).map_err(|m| trace_error(&path, line, m))?;
        self.agents = header.agents.iter().map(|a| a.name.clone()).collect();
        self.index = AgentIndex::of(&self.agents);
        self.header = Some(header);
        Ok(())
    }

    /// Its header; `None` for a trace written without one.
    pub fn header(&self) -> Option<&TraceHeader> {
        self.header.as_ref()
    }

    /// The agents so far: the header's, then any other the events read name.
    pub fn agents(&self) -> &[String] {
        &self.agents
    }

    /// How it is written.
    pub fn encoding(&self) -> TraceEncoding {
        match self.form {
            Form::Lines(_) => TraceEncoding::JsonLines,
            Form::Binary(_) => TraceEncoding::Binary,
        }
    }

    /// The events read so far.
    pub fn events(&self) -> usize {
        self.events
    }

    /// The steps the events read so far show (a replay's last step).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The end cut off mid-write, once [`TraceReader::next_event`] has come to it.
    pub fn cut(&self) -> Option<TraceCut> {
        self.cut
    }

    /// Its header and its agents (those the events read named included).
    pub fn into_parts(self) -> (Option<TraceHeader>, Vec<String>) {
        (self.header, self.agents)
    }

    /// The next event; `None` at the end, or at a last line cut off mid-write
    /// ([`TraceReader::cut`] then says where).
    pub fn next_event(&mut self) -> Result<Option<TracedEvent>, TraceError> {
        if self.cut.is_some() {
            return Ok(None);
        }
        let event = match &mut self.form {
            Form::Lines(lines) => {
                match next_line_event(lines, &self.path, &mut self.agents, &mut self.index)? {
                    Ok(e) => e,
                    Err(line) => {
                        return Ok(self.cut_at(TracePlace::Line(line)));
                    }
                }
            }
            Form::Binary(records) => match records.next(&mut self.agents, &mut self.index) {
                Ok(Next::Event(e)) => Some(e),
                Ok(Next::End) => None,
                Ok(Next::Cut(at)) => return Ok(self.cut_at(TracePlace::Byte(at))),
                Err((at, Stop::Bad(m))) => {
                    return Err(trace_error(&self.path, 0, format!("byte {at}: {m}")));
                }
                Err((at, Stop::Io(e))) => {
                    return Err(trace_error(
                        &self.path,
                        0,
                        format!("byte {at}: cannot read: {e}"),
                    ));
                }
                Err((at, Stop::Cut)) => return Ok(self.cut_at(TracePlace::Byte(at))),
            },
        };
        if let Some(e) = &event {
            self.events += 1;
            self.steps = self.steps.max(e.step.max(1));
        }
        Ok(event)
    }

    /// Notes the cut at `at`; no event.
    fn cut_at(&mut self, at: TracePlace) -> Option<TracedEvent> {
        self.cut = Some(TraceCut {
            at,
            steps: self.steps,
        });
        None
    }
}

/// The next event of a JSON Lines trace (`None` at its end), or `Err(line)` for a last
/// line cut off mid-write.
fn next_line_event<R: BufRead>(
    lines: &mut Lines<R>,
    path: &Path,
    agents: &mut Vec<String>,
    index: &mut AgentIndex,
) -> Result<Result<Option<TracedEvent>, usize>, TraceError> {
    loop {
        let Some(complete) = lines.advance(path)? else {
            return Ok(Ok(None));
        };
        let number = lines.number;
        let text = match std::str::from_utf8(&lines.buf) {
            Ok(t) => t.trim(),
            // A character cut in two.
            Err(e) if !complete && e.error_len().is_none() => return Ok(Err(number)),
            Err(_) => return Err(trace_error(path, number, "not UTF-8 text".into())),
        };
        if text.is_empty() {
            continue;
        }
        return match parse_event(text, agents, index, number) {
            Ok(e) => Ok(Ok(Some(e))),
            Err(_) if !complete && cut_short(text) => Ok(Err(number)),
            Err(m) => {
                let hint = if number == 1 && text.contains("\"format\"") {
                    " (is it a tree file? a trace is JSON Lines of events)"
                } else {
                    ""
                };
                Err(trace_error(path, number, format!("{m}{hint}")))
            }
        };
    }
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
    pub(super) fn place(&mut self, name: &str, names: &mut Vec<String>) -> Result<usize, String> {
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
pub(super) fn needs_node(kind: &EventKindOf<Arc<str>>) -> bool {
    use EventKindOf as K;
    !matches!(kind, K::Warning(_) | K::Context(..))
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
        Some("skipped") => Ok(Status::Skipped),
        Some(other) => Err(format!(
            "\"status\" is success, failure or skipped, not '{other}'"
        )),
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

/// A context value as a trace writes it: `{"entity":ID}`, `[X,Y]`, a number, a string,
/// `true` or `false`.
fn value(v: &serde_json::Value) -> Result<ValueOf<Arc<str>>, String> {
    use serde_json::Value as J;
    let bad = || {
        format!("\"value\" is {{\"entity\":ID}}, [X,Y], a number, a string, true or false, not {v}")
    };
    Ok(match v {
        J::Bool(b) => ValueOf::Bool(*b),
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
