//! Trace events (SEMANTICS.md §5), the observer that receives them, and a JSON Lines writer.

use std::io::Write;

use super::Status;

/// Why Root was entered again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The previous run completed.
    Complete,
    /// A context key was missing.
    ContextMissing,
    /// A force_reset Interrupt finished.
    ForceReset,
    /// The tree stalled in the step before.
    Stall,
}

impl Reason {
    /// The reason named `name` in traces ([`Reason::as_str`]).
    pub fn from_name(name: &str) -> Option<Self> {
        [
            Reason::Complete,
            Reason::ContextMissing,
            Reason::ForceReset,
            Reason::Stall,
        ]
        .into_iter()
        .find(|r| r.as_str() == name)
    }

    /// The word used in traces.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Complete => "complete",
            Reason::ContextMissing => "context_missing",
            Reason::ForceReset => "force_reset",
            Reason::Stall => "stall",
        }
    }
}

/// What happened, as an observer is told it: its texts borrowed.
pub type EventKind<'a> = EventKindOf<&'a str>;

/// A context value in an event; `S` holds a text value as [`EventKindOf`] holds its texts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ValueOf<S> {
    /// A world entity, by id.
    Entity(u64),
    /// A point in the world.
    Position([f64; 2]),
    /// A number.
    Number(f64),
    /// Text.
    Text(S),
    /// true or false.
    Bool(bool),
}

impl<S> ValueOf<S> {
    /// The same value with its text turned by `f`.
    pub fn map<'s, T>(&'s self, f: impl Fn(&'s S) -> T) -> ValueOf<T> {
        match self {
            ValueOf::Entity(e) => ValueOf::Entity(*e),
            ValueOf::Position(p) => ValueOf::Position(*p),
            ValueOf::Number(n) => ValueOf::Number(*n),
            ValueOf::Text(t) => ValueOf::Text(f(t)),
            ValueOf::Bool(b) => ValueOf::Bool(*b),
        }
    }
}

impl<S> ValueOf<S> {
    /// The text a trace writes in place of a number or a point that is not finite (JSON
    /// has no NaN or infinity); `None` for any other value.
    pub fn unwritable_text(&self) -> Option<String> {
        match self {
            ValueOf::Position([x, y]) if !(x.is_finite() && y.is_finite()) => {
                Some(format!("({x}, {y})"))
            }
            ValueOf::Number(n) if !n.is_finite() => Some(n.to_string()),
            _ => None,
        }
    }
}

impl<S: AsRef<str>> ValueOf<S> {
    /// The value as JSON: `{"entity":12}`, `[x,y]`, a number, a string, `true` or `false`.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::{Value, json};
        if let Some(text) = self.unwritable_text() {
            return Value::String(text);
        }
        match self {
            ValueOf::Entity(e) => json!({ "entity": e }),
            ValueOf::Position([x, y]) => json!([x, y]),
            ValueOf::Number(n) => json!(n),
            ValueOf::Text(t) => Value::String(t.as_ref().to_owned()),
            ValueOf::Bool(b) => Value::Bool(*b),
        }
    }
}

/// What happened; `S` holds its texts (an interrupt id, a key, a message): borrowed as an
/// observer is told them ([`EventKind`]), owned where events are kept (the debugger's log).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EventKindOf<S> {
    /// A node was entered.
    Enter,
    /// A leaf's `on_execute` ran.
    Execute,
    /// A node finished; a leaf's failure may carry the reason its action gave, or
    /// `max_duration` (docs/SEMANTICS.md §3.1).
    Exit(Status, Option<S>),
    /// A node was stopped from outside.
    Abort,
    /// A condition was checked.
    Check(bool),
    /// A run of the tree finished.
    Complete(Status),
    /// Root is entered again.
    Restart(Reason),
    /// A trigger started an Interrupt.
    Interrupt(S),
    /// A context key was missing; the tree resets.
    ContextMissing(S),
    /// The tree could not make progress in this step.
    Stall,
    /// Something odd that changed nothing, e.g. an unknown interrupt id.
    Warning(S),
    /// A value was stored under a context key: a leaf's `out_context` as it exited, or an
    /// Interrupt's trigger payload (docs/SEMANTICS.md §3.4, §3.5); or removed (`None`)
    /// from outside the tree: the world drops an entity it destroyed from every context.
    Context(S, Option<ValueOf<S>>),
}

impl<S> EventKindOf<S> {
    /// The event's name in traces.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Enter => "enter",
            Self::Execute => "execute",
            Self::Exit(..) => "exit",
            Self::Abort => "abort",
            Self::Check(_) => "check",
            Self::Complete(_) => "complete",
            Self::Restart(_) => "restart",
            Self::Interrupt(_) => "interrupt",
            Self::ContextMissing(_) => "context_missing",
            Self::Stall => "stall",
            Self::Warning(_) => "warning",
            Self::Context(..) => "context",
        }
    }

    /// The same event with its texts turned by `f` (borrowed to owned, or back).
    pub fn map<'s, T>(&'s self, f: impl Fn(&'s S) -> T) -> EventKindOf<T> {
        use EventKindOf as K;
        match self {
            K::Enter => K::Enter,
            K::Execute => K::Execute,
            K::Exit(s, why) => K::Exit(*s, why.as_ref().map(&f)),
            K::Abort => K::Abort,
            K::Check(r) => K::Check(*r),
            K::Complete(s) => K::Complete(*s),
            K::Restart(r) => K::Restart(*r),
            K::Interrupt(t) => K::Interrupt(f(t)),
            K::ContextMissing(t) => K::ContextMissing(f(t)),
            K::Stall => K::Stall,
            K::Warning(t) => K::Warning(f(t)),
            K::Context(key, value) => K::Context(f(key), value.as_ref().map(|v| v.map(&f))),
        }
    }
}

/// One trace event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Event<'a> {
    /// The step it happened in (0: the start).
    pub step: u64,
    /// The node's index in the program, if the event concerns a node.
    pub node: Option<u32>,
    /// The node's trace id (`SUBTREE-ID/INNER-ID` inside subtrees), or "".
    pub node_id: &'a str,
    /// What happened.
    pub kind: EventKind<'a>,
}

/// Receives the events of one instance as they happen.
pub trait Observer {
    /// Called for each event, in order.
    fn event(&mut self, event: &Event<'_>);

    /// Called before the events of one agent when several agents share an observer (a
    /// [`Simulation`](crate::world::Simulation) steps them in turn).
    fn agent(&mut self, _name: &str) {}
}

impl<F: FnMut(&Event<'_>)> Observer for F {
    fn event(&mut self, event: &Event<'_>) {
        self(event)
    }
}

/// Two observers of one step, each told everything, the first before the second: a trace
/// recorded in both encodings at once, say. Calls go straight to each (no indirection);
/// nest pairs for more, `(a, (b, c))`. Observers that are lent rather than owned (a
/// recorder kept across steps, the observer a game's `remote::GameLink::watch` gives) go
/// in an array of `&mut dyn Observer` instead.
///
/// ```
/// # use arbor::model::{Catalog, NoAssets};
/// # use arbor::runtime::{Behaviours, Instance, Program};
/// use arbor::runtime::{BinaryTrace, JsonlTrace, Observer};
/// # let tree = arbor::io::parse_tree(r#"{"format": "arbor.tree", "version": 1, "nodes": [
/// #     {"id": "root", "kind": "Root", "inputs": {"child": ["patrol"]}},
/// #     {"id": "patrol", "kind": "MockAction", "fields": {"script": "RRS"}}]}"#,
/// #     std::path::Path::new("guard.json"))?;
/// # let program = std::sync::Arc::new(Program::compile(&tree, &Catalog::builtin(), &NoAssets, &Behaviours::<()>::with_builtins())?);
/// let mut guard = Instance::new(program, 7);
/// // Owned: both recorders in one pair, taken apart at the end.
/// let mut both = (JsonlTrace::new(Vec::new(), "guard-1"), BinaryTrace::new(Vec::new(), "guard-1"));
/// for _frame in 0..30 {
///     guard.step(1.0 / 30.0, &mut (), Some(&mut both));
/// }
/// let (text, binary) = (both.0.finish()?, both.1.finish()?);
/// assert!(binary.len() * 5 < text.len());
///
/// // Lent: a recorder kept across steps and a counter made for one step.
/// let mut trace = JsonlTrace::new(Vec::new(), "guard-1");
/// let mut events = 0;
/// for _frame in 0..30 {
///     let mut count = |_: &arbor::runtime::Event<'_>| events += 1;
///     let mut all: [&mut dyn Observer; 2] = [&mut trace, &mut count];
///     guard.step(1.0 / 30.0, &mut (), Some(&mut all));
/// }
/// assert_eq!(trace.finish()?.iter().filter(|&&b| b == b'\n').count(), events);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl<A: Observer, B: Observer> Observer for (A, B) {
    fn event(&mut self, event: &Event<'_>) {
        self.0.event(event);
        self.1.event(event);
    }

    fn agent(&mut self, name: &str) {
        self.0.agent(name);
        self.1.agent(name);
    }
}

/// Observers of one step, lent for it, each told everything in the array's order (the
/// [pair](#impl-Observer-for-(A,+B)) shows both forms).
impl<const N: usize> Observer for [&mut dyn Observer; N] {
    fn event(&mut self, event: &Event<'_>) {
        for o in self.iter_mut() {
            o.event(event);
        }
    }

    fn agent(&mut self, name: &str) {
        for o in self.iter_mut() {
            o.agent(name);
        }
    }
}

/// The version of the trace format a [`TraceHeader`] names.
pub const TRACE_VERSION: u32 = 1;

/// A trace's first line: what a replay needs to open the run's trees and to tell whether
/// they changed since (docs/FORMAT.md, "Traces"). A trace without one (an older trace)
/// still loads; its agents are the names its events carry.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceHeader {
    /// The format's version ([`TRACE_VERSION`]).
    pub arbor_trace: u32,
    /// Seconds per step.
    pub dt: f64,
    /// The random seed.
    #[serde(default)]
    pub seed: u64,
    /// The agents, in the order their events come within a step.
    pub agents: Vec<TracedAgent>,
    /// The files the run read (trees, their SubTree assets, a scenario), each with its
    /// digest.
    #[serde(default)]
    pub files: Vec<TracedFile>,
}

/// The longest header a trace may have, in bytes: 16 MiB, room for 65,536 agents each
/// named with a tree path of 200 bytes. A reader refuses a longer one, and a writer writes
/// none (its `finish` says why).
pub const MAX_TRACE_HEADER: usize = 16 << 20;

impl TraceHeader {
    /// The header as a trace's first line (no newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The header as a trace's first line, or why it cannot be one: longer than
    /// [`MAX_TRACE_HEADER`].
    pub fn checked_line(&self) -> std::io::Result<String> {
        let line = self.to_line();
        if line.len() > MAX_TRACE_HEADER {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "the trace's header would be {:.1} MiB (its {} agents and {} files); a trace's header holds at most {} MiB",
                    line.len() as f64 / f64::from(1 << 20),
                    self.agents.len(),
                    self.files.len(),
                    MAX_TRACE_HEADER >> 20
                ),
            ));
        }
        Ok(line)
    }
}

/// An agent of a traced run.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TracedAgent {
    /// Its name, as the events' `agent` gives it.
    pub name: String,
    /// The tree file it runs: a path relative to the trace's folder, or absolute.
    pub tree: String,
}

/// A file a traced run read.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TracedFile {
    /// Its path, relative to the trace's folder, or absolute.
    pub path: String,
    /// The SHA-256 of its bytes when the run read it, in hexadecimal.
    pub sha256: String,
}

/// Writes events as JSON Lines: `{"step":3,"agent":"droid-1","event":"exit","node":"n7","status":"success"}`.
pub struct JsonlTrace<W: Write> {
    out: W,
    agent: String,
    error: Option<std::io::Error>,
    line: String,
}

impl<W: Write> JsonlTrace<W> {
    /// A writer for the named agent's events.
    pub fn new(out: W, agent: &str) -> Self {
        Self {
            out,
            agent: json_string(agent),
            error: None,
            line: String::with_capacity(128),
        }
    }

    /// Writes the trace's header: call it once, before the first event.
    pub fn write_header(&mut self, header: &TraceHeader) {
        if self.error.is_some() {
            return;
        }
        if let Err(err) = header
            .checked_line()
            .and_then(|line| writeln!(self.out, "{line}"))
        {
            self.error = Some(err);
        }
    }

    /// Sets the agent written in each line (for writing several agents into one stream).
    pub fn set_agent(&mut self, agent: &str) {
        self.agent = json_string(agent);
    }

    /// The length of the last line written, its newline included.
    pub(crate) fn last_line_len(&self) -> usize {
        self.line.len()
    }

    /// Flushes what is written; the first write error, if any.
    pub fn flush(&mut self) -> Result<(), std::io::Error> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()
    }

    /// Flushes and returns the first write error, if any.
    pub fn finish(mut self) -> Result<W, std::io::Error> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Appends `s` as a JSON string: as it is between quotes when nothing in it needs
/// escaping (node ids seldom do), else as serde_json writes it.
fn push_json_string(line: &mut String, s: &str) {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        line.push('"');
        line.push_str(s);
        line.push('"');
    } else {
        line.push_str(&json_string(s));
    }
}

/// Formats one event as a JSON object (no newline).
pub(crate) fn format_event(line: &mut String, agent_json: &str, e: &Event<'_>) {
    use std::fmt::Write as _;
    let _ = write!(
        line,
        "{{\"step\":{},\"agent\":{agent_json},\"event\":\"{}\"",
        e.step,
        e.kind.name()
    );
    if e.node.is_some() {
        line.push_str(",\"node\":");
        push_json_string(line, e.node_id);
    }
    match e.kind {
        EventKind::Exit(s, why) => {
            let _ = write!(line, ",\"status\":\"{s}\"");
            if let Some(why) = why {
                let _ = write!(line, ",\"reason\":{}", json_string(why));
            }
        }
        EventKind::Complete(s) => {
            let _ = write!(line, ",\"status\":\"{s}\"");
        }
        EventKind::Check(r) => {
            let _ = write!(line, ",\"result\":{r}");
        }
        EventKind::Restart(r) => {
            let _ = write!(line, ",\"reason\":\"{}\"", r.as_str());
        }
        EventKind::Interrupt(id) => {
            let _ = write!(line, ",\"id\":{}", json_string(id));
        }
        EventKind::ContextMissing(key) => {
            let _ = write!(line, ",\"key\":{}", json_string(key));
        }
        EventKind::Warning(m) => {
            let _ = write!(line, ",\"message\":{}", json_string(m));
        }
        EventKind::Context(key, value) => {
            let _ = write!(
                line,
                ",\"key\":{},\"value\":{}",
                json_string(key),
                value.map_or(serde_json::Value::Null, |v| v.to_json())
            );
        }
        EventKind::Enter | EventKind::Execute | EventKind::Abort | EventKind::Stall => {}
    }
    line.push('}');
}

impl<W: Write> Observer for JsonlTrace<W> {
    fn agent(&mut self, name: &str) {
        self.set_agent(name);
    }

    fn event(&mut self, e: &Event<'_>) {
        if self.error.is_some() {
            return;
        }
        self.line.clear();
        format_event(&mut self.line, &self.agent, e);
        self.line.push('\n');
        if let Err(err) = self.out.write_all(self.line.as_bytes()) {
            self.error = Some(err);
        }
    }
}

/// How often one node was entered, succeeded, failed, was aborted and was skipped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Times entered.
    pub entered: u64,
    /// Times it exited with success.
    pub succeeded: u64,
    /// Times it exited with failure.
    pub failed: u64,
    /// Times it was stopped from outside.
    pub aborted: u64,
    /// Times it finished skipped (SEMANTICS.md §3.7).
    pub skipped: u64,
    /// Times it was checked (a condition), and how many of those held.
    pub checked: u64,
    /// Checks that held.
    pub held: u64,
}

impl Counts {
    /// Counts one event of the node (events of other kinds count nothing).
    pub fn count<S>(&mut self, kind: &EventKindOf<S>) {
        match kind {
            EventKindOf::Enter => self.entered += 1,
            EventKindOf::Exit(Status::Success, _) => self.succeeded += 1,
            EventKindOf::Exit(Status::Failure, _) => self.failed += 1,
            EventKindOf::Exit(Status::Skipped, _) => self.skipped += 1,
            EventKindOf::Abort => self.aborted += 1,
            EventKindOf::Check(held) => {
                self.checked += 1;
                self.held += u64::from(*held);
            }
            _ => {}
        }
    }

    /// Adds `other`'s counts.
    pub fn add(&mut self, other: &Counts) {
        self.entered += other.entered;
        self.succeeded += other.succeeded;
        self.failed += other.failed;
        self.aborted += other.aborted;
        self.skipped += other.skipped;
        self.checked += other.checked;
        self.held += other.held;
    }

    /// The counts as coverage gives them: a guard (a condition checked, never entered)
    /// counts each check as an entry, one that held as a success, one that did not as a
    /// failure.
    pub fn folded(&self) -> Counts {
        if self.entered == 0 && self.checked > 0 {
            Counts {
                entered: self.checked,
                succeeded: self.held,
                failed: self.checked - self.held,
                ..*self
            }
        } else {
            *self
        }
    }
}
