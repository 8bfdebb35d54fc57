//! The binary trace (docs/FORMAT.md, "Binary traces"): the events of SEMANTICS.md §5 in a
//! few bytes each, node ids, agent names, keys and Interrupt ids written once and then
//! named by number; a writer that is an [`Observer`] as [`JsonlTrace`](super::JsonlTrace)
//! is, and [`TraceWriter`], which writes either encoding.

use std::io::Write;
use std::path::Path;

use foldhash::HashMap;

use super::trace::{Event, EventKind, JsonlTrace, Observer, TraceHeader, ValueOf};
use super::{Reason, Status};

/// The first bytes of a binary trace.
pub const BINARY_TRACE_MAGIC: [u8; 8] = *b"\x89ARBTRC\n";

/// The version of the binary encoding, written after [`BINARY_TRACE_MAGIC`].
pub const BINARY_TRACE_VERSION: u64 = 1;

/// The extension of a binary trace's file name.
pub const BINARY_TRACE_EXTENSION: &str = "arbtrace";

/// The most strings a binary trace's table holds; a writer writes any string past them
/// in full where it is used.
pub const MAX_TRACE_STRINGS: usize = 1 << 20;

/// The codes of a binary trace's records (docs/FORMAT.md, "Binary traces").
pub(crate) mod code {
    pub const ENTER: u8 = 0;
    pub const EXECUTE: u8 = 1;
    pub const EXIT_SUCCESS: u8 = 2;
    pub const EXIT_FAILURE: u8 = 3;
    pub const EXIT_SUCCESS_BECAUSE: u8 = 4;
    pub const EXIT_FAILURE_BECAUSE: u8 = 5;
    pub const ABORT: u8 = 6;
    pub const CHECK_FALSE: u8 = 7;
    pub const CHECK_TRUE: u8 = 8;
    pub const COMPLETE_SUCCESS: u8 = 9;
    pub const COMPLETE_FAILURE: u8 = 10;
    pub const RESTART: u8 = 11;
    pub const INTERRUPT: u8 = 12;
    pub const CONTEXT_MISSING: u8 = 13;
    pub const STALL: u8 = 14;
    pub const WARNING: u8 = 15;
    pub const CONTEXT_SET: u8 = 16;
    pub const CONTEXT_REMOVED: u8 = 17;
    pub const EXIT_SKIPPED: u8 = 18;
    pub const COMPLETE_SKIPPED: u8 = 19;
    /// The highest event code.
    pub const LAST_EVENT: u8 = COMPLETE_SKIPPED;
    /// Added to an event's code when a node's id follows the code.
    pub const WITH_NODE: u8 = 0x80;
    /// The events that follow are this agent's.
    pub const AGENT: u8 = 0x40;
    /// The events that follow are of this step.
    pub const STEP: u8 = 0x41;

    /// A string reference: the string follows, used once.
    pub const STRING_ONCE: u64 = 0;
    /// A string reference: the string follows, and is the table's next entry.
    pub const STRING_NEW: u64 = 1;
    /// A string reference of this or more: the table's entry `r - STRING_TABLE`.
    pub const STRING_TABLE: u64 = 2;

    /// Context values' types.
    pub const ENTITY: u8 = 0;
    pub const POSITION: u8 = 1;
    pub const NUMBER: u8 = 2;
    pub const TEXT: u8 = 3;
    pub const FALSE: u8 = 4;
    pub const TRUE: u8 = 5;

    /// The reasons of a restart, by their codes.
    pub const REASONS: [super::Reason; 4] = [
        super::Reason::Complete,
        super::Reason::ContextMissing,
        super::Reason::ForceReset,
        super::Reason::Stall,
    ];
}

/// How a trace is written: JSON Lines, or binary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceEncoding {
    /// JSON Lines (docs/FORMAT.md, "Traces"): one event a line, readable as it is.
    JsonLines,
    /// The binary encoding (docs/FORMAT.md, "Binary traces"): a few bytes an event.
    Binary,
}

impl TraceEncoding {
    /// The encoding of a trace written to `path`: binary for a name ending in
    /// `.arbtrace` ([`BINARY_TRACE_EXTENSION`], any case), else JSON Lines.
    pub fn for_path(path: &Path) -> Self {
        match path.extension() {
            Some(e) if e.eq_ignore_ascii_case(BINARY_TRACE_EXTENSION) => Self::Binary,
            _ => Self::JsonLines,
        }
    }
}

/// No string table entry.
const NONE: u32 = u32::MAX;

/// Node indices past this are looked up by their id, not kept in an agent's list.
const MAX_CACHED_NODE: usize = 1 << 20;

/// Bytes gathered before they go to the writer.
const FLUSH_AT: usize = 1 << 16;

/// One agent a [`BinaryTrace`] has been told of.
struct Agent {
    name: Box<str>,
    /// Its name's table entry, once written ([`NONE`] before).
    entry: u32,
    /// The table entry of each of its nodes, by the node's index in its program
    /// ([`NONE`]: not met yet).
    nodes: Vec<u32>,
}

/// Writes events in the binary encoding (docs/FORMAT.md, "Binary traces"), a few bytes
/// each; `arbor convert` turns it into JSON Lines and back, and a replay reads either.
/// Bytes are gathered and written 64 KiB at a time (and by [`BinaryTrace::flush`], and
/// when it is finished or dropped), so the writer `W` needs no buffer of its own.
pub struct BinaryTrace<W: Write> {
    /// `None` once finished.
    out: Option<W>,
    buf: Vec<u8>,
    error: Option<std::io::Error>,
    /// Whether the header (or that there is none) is in `buf` or written.
    headed: bool,
    /// The string table: each string's entry, and the strings by entry.
    entries: HashMap<Box<str>, u32>,
    strings: Vec<Box<str>>,
    /// The agents told of, by name, and each one's state.
    by_name: HashMap<Box<str>, usize>,
    agents: Vec<Agent>,
    /// The agent whose events come next.
    agent: usize,
    /// The agent and the step a reader of what is written is at.
    written_agent: usize,
    step: u64,
}

impl<W: Write> BinaryTrace<W> {
    /// A writer for the named agent's events; the file's first bytes
    /// ([`BINARY_TRACE_MAGIC`], the version) are written with the first event.
    pub fn new(out: W, agent: &str) -> Self {
        let mut buf = Vec::with_capacity(FLUSH_AT + 1024);
        buf.extend_from_slice(&BINARY_TRACE_MAGIC);
        varint(&mut buf, BINARY_TRACE_VERSION);
        let mut by_name = HashMap::default();
        by_name.insert(Box::from(agent), 0);
        Self {
            out: Some(out),
            buf,
            error: None,
            headed: false,
            entries: HashMap::default(),
            strings: Vec::new(),
            by_name,
            agents: vec![Agent {
                name: Box::from(agent),
                entry: NONE,
                nodes: Vec::new(),
            }],
            agent: 0,
            written_agent: usize::MAX,
            step: 0,
        }
    }

    /// Writes the trace's header: call it once, before the first event (once an event is
    /// written or the trace flushed, the trace has no header and this writes nothing).
    pub fn write_header(&mut self, header: &TraceHeader) {
        if self.headed {
            return;
        }
        let text = match header.checked_line() {
            Ok(t) => t,
            Err(e) => {
                self.error.get_or_insert(e);
                return;
            }
        };
        varint(&mut self.buf, text.len() as u64);
        self.buf.extend_from_slice(text.as_bytes());
        self.headed = true;
    }

    /// Sets the agent whose events come next (for writing several agents into one
    /// stream).
    pub fn set_agent(&mut self, name: &str) {
        if *self.agents[self.agent].name == *name {
            return;
        }
        // Agents are mostly stepped in turn: the next one is tried before the table.
        let next = (self.agent + 1) % self.agents.len();
        if *self.agents[next].name == *name {
            self.agent = next;
            return;
        }
        self.agent = match self.by_name.get(name) {
            Some(&i) => i,
            None => {
                self.agents.push(Agent {
                    name: Box::from(name),
                    entry: NONE,
                    nodes: Vec::new(),
                });
                self.by_name.insert(Box::from(name), self.agents.len() - 1);
                self.agents.len() - 1
            }
        };
    }

    /// Writes what is gathered and flushes the writer, so that a game that stops after
    /// this loses none of it; the first write error, if any.
    pub fn flush(&mut self) -> Result<(), std::io::Error> {
        self.write_out();
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        match &mut self.out {
            Some(out) => out.flush(),
            None => Ok(()),
        }
    }

    /// Writes what is gathered, flushes and returns the writer; or the first write error.
    pub fn finish(mut self) -> Result<W, std::io::Error> {
        self.flush()?;
        self.out
            .take()
            .ok_or_else(|| std::io::Error::other("the trace was finished already"))
    }

    /// Writes `buf` out, unless a write failed before.
    fn write_out(&mut self) {
        if !self.headed {
            varint(&mut self.buf, 0);
            self.headed = true;
        }
        if self.error.is_none()
            && let Some(out) = &mut self.out
            && let Err(e) = out.write_all(&self.buf)
        {
            self.error = Some(e);
        }
        self.buf.clear();
    }

    /// Writes a reference to `s`, putting it in the table when it is new and there is
    /// room; its entry, if it has one.
    fn entry(&mut self, s: &str) -> u32 {
        if let Some(&e) = self.entries.get(s) {
            varint(&mut self.buf, u64::from(e) + code::STRING_TABLE);
            return e;
        }
        if self.strings.len() >= MAX_TRACE_STRINGS {
            self.once(s);
            return NONE;
        }
        varint(&mut self.buf, code::STRING_NEW);
        string(&mut self.buf, s);
        let e = self.strings.len() as u32;
        self.strings.push(Box::from(s));
        self.entries.insert(Box::from(s), e);
        e
    }

    /// Writes `s` in full, not in the table (a text that seldom repeats).
    fn once(&mut self, s: &str) {
        varint(&mut self.buf, code::STRING_ONCE);
        string(&mut self.buf, s);
    }

    /// Writes the node of the event: its entry kept by the agent's list when the node
    /// at `index` still has the id `id` (a program swapped for another under the same
    /// agent name gives other ids), else looked up.
    fn node(&mut self, index: u32, id: &str) {
        let i = index as usize;
        let kept = self.agents[self.agent]
            .nodes
            .get(i)
            .copied()
            .filter(|&e| e != NONE && *self.strings[e as usize] == *id);
        if let Some(e) = kept {
            varint(&mut self.buf, u64::from(e) + code::STRING_TABLE);
            return;
        }
        let e = self.entry(id);
        let nodes = &mut self.agents[self.agent].nodes;
        if e != NONE && i < MAX_CACHED_NODE {
            if nodes.len() <= i {
                nodes.resize(i + 1, NONE);
            }
            nodes[i] = e;
        }
    }

    /// Writes the agent record of the agent whose events come next.
    fn agent_record(&mut self) {
        self.buf.push(code::AGENT);
        let a = &self.agents[self.agent];
        if a.entry != NONE {
            let e = a.entry;
            varint(&mut self.buf, u64::from(e) + code::STRING_TABLE);
        } else {
            let name = a.name.clone();
            let e = self.entry(&name);
            self.agents[self.agent].entry = e;
        }
        self.written_agent = self.agent;
    }
}

impl<W: Write> Drop for BinaryTrace<W> {
    fn drop(&mut self) {
        if self.out.is_some() {
            let _ = self.flush();
        }
    }
}

impl<W: Write> Observer for BinaryTrace<W> {
    fn agent(&mut self, name: &str) {
        self.set_agent(name);
    }

    fn event(&mut self, e: &Event<'_>) {
        use EventKind as K;
        if self.error.is_some() {
            return;
        }
        if !self.headed {
            varint(&mut self.buf, 0);
            self.headed = true;
        }
        if self.written_agent != self.agent {
            self.agent_record();
        }
        if e.step != self.step {
            self.buf.push(code::STEP);
            varint(&mut self.buf, e.step);
            self.step = e.step;
        }
        // An exit, and a completed run, is a success, a failure or skipped (without a
        // reason): the runtime gives them no other status.
        let success = |s: Status| s == Status::Success;
        let kind = match e.kind {
            K::Enter => code::ENTER,
            K::Execute => code::EXECUTE,
            K::Exit(Status::Skipped, _) => code::EXIT_SKIPPED,
            K::Complete(Status::Skipped) => code::COMPLETE_SKIPPED,
            K::Exit(s, None) if success(s) => code::EXIT_SUCCESS,
            K::Exit(_, None) => code::EXIT_FAILURE,
            K::Exit(s, Some(_)) if success(s) => code::EXIT_SUCCESS_BECAUSE,
            K::Exit(_, Some(_)) => code::EXIT_FAILURE_BECAUSE,
            K::Abort => code::ABORT,
            K::Check(false) => code::CHECK_FALSE,
            K::Check(true) => code::CHECK_TRUE,
            K::Complete(s) if success(s) => code::COMPLETE_SUCCESS,
            K::Complete(_) => code::COMPLETE_FAILURE,
            K::Restart(_) => code::RESTART,
            K::Interrupt(_) => code::INTERRUPT,
            K::ContextMissing(_) => code::CONTEXT_MISSING,
            K::Stall => code::STALL,
            K::Warning(_) => code::WARNING,
            K::Context(_, Some(_)) => code::CONTEXT_SET,
            K::Context(_, None) => code::CONTEXT_REMOVED,
        };
        match e.node {
            Some(index) => {
                self.buf.push(kind | code::WITH_NODE);
                self.node(index, e.node_id);
            }
            None => self.buf.push(kind),
        }
        match e.kind {
            K::Exit(_, Some(why)) => self.once(why),
            K::Restart(r) => self.buf.push(reason_code(r)),
            K::Interrupt(t) | K::ContextMissing(t) | K::Context(t, None) => {
                self.entry(t);
            }
            K::Warning(m) => self.once(m),
            K::Context(key, Some(v)) => {
                self.entry(key);
                self.value(&v);
            }
            _ => {}
        }
        if self.buf.len() >= FLUSH_AT {
            self.write_out();
        }
    }
}

impl<W: Write> BinaryTrace<W> {
    /// Writes a context value as JSON Lines has it: a number or a point that is not
    /// finite as its text.
    fn value(&mut self, v: &ValueOf<&str>) {
        if let Some(text) = v.unwritable_text() {
            self.buf.push(code::TEXT);
            self.once(&text);
            return;
        }
        match *v {
            ValueOf::Entity(id) => {
                self.buf.push(code::ENTITY);
                varint(&mut self.buf, id);
            }
            ValueOf::Position([x, y]) => {
                self.buf.push(code::POSITION);
                self.buf.extend_from_slice(&x.to_le_bytes());
                self.buf.extend_from_slice(&y.to_le_bytes());
            }
            ValueOf::Number(n) => {
                self.buf.push(code::NUMBER);
                self.buf.extend_from_slice(&n.to_le_bytes());
            }
            ValueOf::Text(t) => {
                self.buf.push(code::TEXT);
                self.once(t);
            }
            ValueOf::Bool(b) => self.buf.push(if b { code::TRUE } else { code::FALSE }),
        }
    }
}

/// A restart reason's code.
fn reason_code(r: Reason) -> u8 {
    code::REASONS.iter().position(|&x| x == r).unwrap_or(0) as u8
}

/// Appends `v` as an unsigned LEB128 varint: seven bits a byte, the lowest first, the
/// high bit set on every byte but the last.
#[inline]
fn varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push(v as u8 | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

/// Appends a string: its length in bytes (a varint), then its UTF-8 bytes.
fn string(buf: &mut Vec<u8>, s: &str) {
    varint(buf, s.len() as u64);
    buf.extend_from_slice(s.as_bytes());
}

/// A trace writer of either encoding, chosen when it is made (`arbor run --trace` picks
/// it by the file's name: [`TraceEncoding::for_path`]).
pub enum TraceWriter<W: Write> {
    /// JSON Lines.
    JsonLines(JsonlTrace<W>),
    /// Binary.
    Binary(BinaryTrace<W>),
}

impl<W: Write> TraceWriter<W> {
    /// A writer of `encoding` for the named agent's events.
    pub fn new(encoding: TraceEncoding, out: W, agent: &str) -> Self {
        match encoding {
            TraceEncoding::JsonLines => Self::JsonLines(JsonlTrace::new(out, agent)),
            TraceEncoding::Binary => Self::Binary(BinaryTrace::new(out, agent)),
        }
    }

    /// Writes the trace's header: call it once, before the first event.
    pub fn write_header(&mut self, header: &TraceHeader) {
        match self {
            Self::JsonLines(t) => t.write_header(header),
            Self::Binary(t) => t.write_header(header),
        }
    }

    /// Sets the agent whose events come next.
    pub fn set_agent(&mut self, name: &str) {
        match self {
            Self::JsonLines(t) => t.set_agent(name),
            Self::Binary(t) => t.set_agent(name),
        }
    }

    /// The length of the last line written, its newline included (0 for binary).
    pub(crate) fn last_line_len(&self) -> usize {
        match self {
            Self::JsonLines(t) => t.last_line_len(),
            Self::Binary(_) => 0,
        }
    }

    /// Writes what is gathered and flushes the writer, so that a program that stops
    /// after this loses none of it; the first write error, if any.
    pub fn flush(&mut self) -> Result<(), std::io::Error> {
        match self {
            Self::JsonLines(t) => t.flush(),
            Self::Binary(t) => t.flush(),
        }
    }

    /// Flushes and returns the writer, or the first write error.
    pub fn finish(self) -> Result<W, std::io::Error> {
        match self {
            Self::JsonLines(t) => t.finish(),
            Self::Binary(t) => t.finish(),
        }
    }
}

impl<W: Write> Observer for TraceWriter<W> {
    fn agent(&mut self, name: &str) {
        self.set_agent(name);
    }

    fn event(&mut self, e: &Event<'_>) {
        match self {
            Self::JsonLines(t) => t.event(e),
            Self::Binary(t) => t.event(e),
        }
    }
}
