//! Reading a binary trace (docs/FORMAT.md, "Binary traces") record by record: every length
//! checked against its limit before anything is allocated for it, the string table and
//! the agents bounded, and a file that ends inside a record taken as cut off there.

use std::io::BufRead;
use std::sync::Arc;

use super::trace::{AgentIndex, MAX_TRACE_LINE, MAX_TRACE_STEP, TracedEvent, needs_node};
use crate::runtime::{
    EventKindOf, MAX_TRACE_HEADER, MAX_TRACE_STRINGS, Status, ValueOf, binary_code as code,
};

/// Why a record could not be read.
pub(super) enum Stop {
    /// The file ends inside it.
    Cut,
    /// What it holds is wrong.
    Bad(String),
    /// Reading failed.
    Io(std::io::Error),
}

impl From<String> for Stop {
    fn from(m: String) -> Self {
        Stop::Bad(m)
    }
}

/// What the next record gave.
pub(super) enum Next {
    /// An event.
    Event(TracedEvent),
    /// The end of the file, after a whole record.
    End,
    /// The file ends inside the record that starts at this byte.
    Cut(u64),
}

/// The records of a binary trace after its first bytes.
pub(super) struct Records<R> {
    input: R,
    /// Bytes read, the first bytes included.
    offset: u64,
    /// The string table.
    strings: Vec<Arc<str>>,
    /// The agent of the events that follow, once named: its name, and its place among
    /// the trace's agents once an event of it is read (an agent without events is none
    /// of them, as in JSON Lines).
    agent_name: Option<Arc<str>>,
    agent: Option<usize>,
    step: u64,
    /// Events read, and whether a header came before them (an event's line is its
    /// place in the trace written as JSON Lines).
    events: usize,
    headed: bool,
}

impl<R: BufRead> Records<R> {
    /// The records of `input`, read up to its first bytes ([`crate::runtime::BINARY_TRACE_MAGIC`],
    /// `offset` of them).
    pub(super) fn new(input: R, offset: u64) -> Self {
        Self {
            input,
            offset,
            strings: Vec::new(),
            agent_name: None,
            agent: None,
            step: 0,
            events: 0,
            headed: false,
        }
    }

    /// The byte where the next record starts.
    pub(super) fn offset(&self) -> u64 {
        self.offset
    }

    /// Reads the version and the header's text; `None` for a trace without a header.
    pub(super) fn header_text(&mut self) -> Result<Option<String>, Stop> {
        let version = self.varint()?;
        if let Some(problem) =
            super::header::BINARY_TRACE.version_problem(Some(version), &version.to_string())
        {
            return Err(Stop::Bad(problem));
        }
        let len = self.varint()?;
        if len == 0 {
            return Ok(None);
        }
        let text = self.text_within(len, "the header", MAX_TRACE_HEADER)?;
        self.headed = true;
        Ok(Some(text))
    }

    /// The next event, its agent found in `agents` (indexed by `index`) or added to them.
    pub(super) fn next(
        &mut self,
        agents: &mut Vec<String>,
        index: &mut AgentIndex,
    ) -> Result<Next, (u64, Stop)> {
        loop {
            let start = self.offset;
            let tag = match self.byte() {
                Ok(t) => t,
                Err(Stop::Cut) => return Ok(Next::End),
                Err(e) => return Err((start, e)),
            };
            match self.record(tag, agents, index) {
                Ok(Some(e)) => return Ok(Next::Event(e)),
                Ok(None) => {}
                Err(Stop::Cut) => return Ok(Next::Cut(start)),
                Err(e) => return Err((start, e)),
            }
        }
    }

    /// The rest of the record whose tag is `tag`: an event, or `None` for a record that
    /// sets the agent or the step.
    fn record(
        &mut self,
        tag: u8,
        agents: &mut Vec<String>,
        index: &mut AgentIndex,
    ) -> Result<Option<TracedEvent>, Stop> {
        use EventKindOf as K;
        match tag {
            code::AGENT => {
                self.agent_name = Some(self.string()?);
                self.agent = None;
                return Ok(None);
            }
            code::STEP => {
                let step = self.varint()?;
                if step > MAX_TRACE_STEP {
                    return Err(Stop::Bad(format!(
                        "step {step} is past any run (at most {MAX_TRACE_STEP})"
                    )));
                }
                self.step = step;
                return Ok(None);
            }
            _ => {}
        }
        let kind_code = tag & !code::WITH_NODE;
        if kind_code > code::LAST_EVENT {
            return Err(Stop::Bad(format!("unknown record 0x{tag:02x}")));
        }
        let node = if tag & code::WITH_NODE != 0 {
            Some(self.string()?)
        } else {
            None
        };
        let kind = match kind_code {
            code::ENTER => K::Enter,
            code::EXECUTE => K::Execute,
            code::EXIT_SUCCESS => K::Exit(Status::Success, None),
            code::EXIT_FAILURE => K::Exit(Status::Failure, None),
            code::EXIT_SUCCESS_BECAUSE => K::Exit(Status::Success, Some(self.string()?)),
            code::EXIT_FAILURE_BECAUSE => K::Exit(Status::Failure, Some(self.string()?)),
            code::ABORT => K::Abort,
            code::CHECK_FALSE => K::Check(false),
            code::CHECK_TRUE => K::Check(true),
            code::COMPLETE_SUCCESS => K::Complete(Status::Success),
            code::COMPLETE_FAILURE => K::Complete(Status::Failure),
            code::EXIT_SKIPPED => K::Exit(Status::Skipped, None),
            code::COMPLETE_SKIPPED => K::Complete(Status::Skipped),
            code::RESTART => {
                let r = self.byte()?;
                K::Restart(
                    *code::REASONS
                        .get(usize::from(r))
                        .ok_or_else(|| format!("a restart's reason is 0 to 3, not {r}"))?,
                )
            }
            code::INTERRUPT => K::Interrupt(self.string()?),
            code::CONTEXT_MISSING => K::ContextMissing(self.string()?),
            code::STALL => K::Stall,
            code::WARNING => K::Warning(self.string()?),
            code::CONTEXT_SET => {
                let key = self.string()?;
                K::Context(key, Some(self.value()?))
            }
            _ => K::Context(self.string()?, None),
        };
        if node.is_none() && needs_node(&kind) {
            return Err(Stop::Bad(format!("a '{}' event needs a node", kind.name())));
        }
        let agent = match (self.agent, &self.agent_name) {
            (Some(a), _) => a,
            (None, Some(name)) => {
                let a = index.place(name, agents)?;
                self.agent = Some(a);
                a
            }
            (None, None) => {
                return Err(Stop::Bad(
                    "an event before any agent record names its agent".into(),
                ));
            }
        };
        self.events += 1;
        Ok(Some(TracedEvent {
            step: self.step,
            agent,
            node,
            kind,
            line: self.events + usize::from(self.headed),
        }))
    }

    /// A context value.
    fn value(&mut self) -> Result<ValueOf<Arc<str>>, Stop> {
        Ok(match self.byte()? {
            code::ENTITY => ValueOf::Entity(self.varint()?),
            code::POSITION => ValueOf::Position([self.f64()?, self.f64()?]),
            code::NUMBER => ValueOf::Number(self.f64()?),
            code::TEXT => ValueOf::Text(self.string()?),
            code::FALSE => ValueOf::Bool(false),
            code::TRUE => ValueOf::Bool(true),
            other => {
                return Err(Stop::Bad(format!("a value's type is 0 to 5, not {other}")));
            }
        })
    }

    /// A string reference: a string written in full (and put in the table, when asked),
    /// or an entry of the table.
    fn string(&mut self) -> Result<Arc<str>, Stop> {
        let r = self.varint()?;
        if r >= code::STRING_TABLE {
            let entry = r - code::STRING_TABLE;
            return usize::try_from(entry)
                .ok()
                .and_then(|e| self.strings.get(e))
                .cloned()
                .ok_or_else(|| {
                    Stop::Bad(format!(
                        "string {entry} is not in the table, which holds {}",
                        self.strings.len()
                    ))
                });
        }
        let len = self.varint()?;
        let s: Arc<str> = Arc::from(self.text(len, "a string")?);
        if r == code::STRING_NEW {
            if self.strings.len() >= MAX_TRACE_STRINGS {
                return Err(Stop::Bad(format!(
                    "more than {MAX_TRACE_STRINGS} strings in the table"
                )));
            }
            self.strings.push(s.clone());
        }
        Ok(s)
    }

    /// `len` bytes of UTF-8 text (`what`, for the error), at most [`MAX_TRACE_LINE`].
    fn text(&mut self, len: u64, what: &str) -> Result<String, Stop> {
        self.text_within(len, what, MAX_TRACE_LINE)
    }

    /// `len` bytes of UTF-8 text (`what`, for the error), at most `max`.
    fn text_within(&mut self, len: u64, what: &str, max: usize) -> Result<String, Stop> {
        let len = usize::try_from(len)
            .ok()
            .filter(|&l| l <= max)
            .ok_or_else(|| Stop::Bad(format!("{what} of {len} bytes; at most {max} are read")))?;
        let mut bytes = vec![0; len];
        self.exact(&mut bytes)?;
        String::from_utf8(bytes).map_err(|_| Stop::Bad(format!("{what} that is not UTF-8")))
    }

    /// A little-endian f64, finite (a trace writes NaN and the infinities as their text,
    /// as JSON Lines must).
    fn f64(&mut self) -> Result<f64, Stop> {
        let mut b = [0; 8];
        self.exact(&mut b)?;
        let n = f64::from_le_bytes(b);
        if !n.is_finite() {
            return Err(Stop::Bad(format!(
                "a number that is not finite ({n}); a trace writes it as its text"
            )));
        }
        Ok(n)
    }

    /// An unsigned LEB128 varint of at most ten bytes that fits 64 bits.
    fn varint(&mut self) -> Result<u64, Stop> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            let bits = u64::from(b & 0x7f);
            if shift == 63 && bits > 1 {
                break;
            }
            v |= bits << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(Stop::Bad("a number past 64 bits".into()))
    }

    /// One byte.
    fn byte(&mut self) -> Result<u8, Stop> {
        let buf = loop {
            match self.input.fill_buf() {
                Ok(b) => break b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Stop::Io(e)),
            }
        };
        let Some(&b) = buf.first() else {
            return Err(Stop::Cut);
        };
        self.input.consume(1);
        self.offset += 1;
        Ok(b)
    }

    /// Fills `out` from the input.
    fn exact(&mut self, out: &mut [u8]) -> Result<(), Stop> {
        match self.input.read_exact(out) {
            Ok(()) => {
                self.offset += out.len() as u64;
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(Stop::Cut),
            Err(e) => Err(Stop::Io(e)),
        }
    }
}
