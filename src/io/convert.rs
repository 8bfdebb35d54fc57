//! `arbor convert`: a trace written again in the other encoding, event by event, in
//! memory that does not grow with the trace.

use std::io::{BufRead, Write};
use std::path::Path;

use super::trace::{MAX_TRACE_LINE, TraceCut, TraceError, TraceReader};
use crate::runtime::{Observer, TraceEncoding, TraceWriter};

/// What a conversion wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Converted {
    /// The events written.
    pub events: usize,
    /// The steps they show.
    pub steps: u64,
    /// Where the input's end was cut off mid-write, if it was (the part left out).
    pub cut: Option<TraceCut>,
    /// The input's and the output's sizes in bytes, when both are files.
    pub sizes: Option<(u64, u64)>,
}

/// Writes the trace `reader` reads to `out` in `encoding`: its header, and its events in
/// their order, so that what is written reads back to what `reader` reads (the events'
/// lines included). `path` names `out` in errors; an event that JSON Lines cannot hold
/// (a line past [`MAX_TRACE_LINE`]) is an error.
pub fn write_trace<R: BufRead, W: Write>(
    reader: &mut TraceReader<R>,
    encoding: TraceEncoding,
    out: W,
    path: &Path,
) -> Result<(W, Converted), TraceError> {
    let failed = |line: usize, message: String| TraceError {
        path: path.to_owned(),
        line,
        message,
    };
    let mut writer = TraceWriter::new(encoding, out, "");
    if let Some(header) = reader.header() {
        writer.write_header(header);
    }
    let mut agent = None;
    while let Some(e) = reader.next_event()? {
        if agent != Some(e.agent) {
            writer.set_agent(reader.agents().get(e.agent).map_or("", String::as_str));
            agent = Some(e.agent);
        }
        writer.event(&e.as_event());
        if writer.last_line_len() > MAX_TRACE_LINE {
            return Err(failed(
                e.line,
                format!(
                    "this event is a line of {} bytes in JSON Lines, which holds at most {MAX_TRACE_LINE}",
                    writer.last_line_len()
                ),
            ));
        }
    }
    let out = writer
        .finish()
        .map_err(|e| failed(0, format!("cannot write: {e}")))?;
    Ok((
        out,
        Converted {
            events: reader.events(),
            steps: reader.steps(),
            cut: reader.cut(),
            sizes: None,
        },
    ))
}

/// Writes the trace at `input` to the file `output`, in the encoding its name asks for
/// ([`TraceEncoding::for_path`]), through a temporary file and a rename: a conversion
/// that fails leaves nothing. A path that names the input itself, or that is not a
/// regular file, is refused ([`super::check_output`]).
pub fn convert_trace(input: &Path, output: &Path) -> Result<Converted, TraceError> {
    let refused = |message: String| TraceError {
        path: output.to_owned(),
        line: 0,
        message,
    };
    if let Err(e) = super::check_output(output, &[input.to_owned()]) {
        return Err(refused(match e {
            super::LoadError::NotWritten { reason, .. } => format!("not written: {reason}"),
            e => e.to_string(),
        }));
    }
    let mut reader = TraceReader::open(input)?;
    let encoding = TraceEncoding::for_path(output);
    // The reader's error, kept while the write is undone.
    let mut failed = None;
    let mut done = None;
    let written = super::write_atomically_with(output, |file| {
        match write_trace(&mut reader, encoding, std::io::BufWriter::new(file), output) {
            Ok((_, converted)) => {
                done = Some(converted);
                Ok(())
            }
            Err(e) => {
                let stop = std::io::Error::other(e.to_string());
                failed = Some(e);
                Err(stop)
            }
        }
    });
    match (failed, written, done) {
        (Some(e), _, _) => Err(e),
        (None, Err(e), _) => {
            let text = e.to_string();
            let shown = format!("{}: ", output.display());
            Err(refused(
                text.strip_prefix(&shown).unwrap_or(&text).to_owned(),
            ))
        }
        (None, Ok(()), Some(converted)) => {
            let size = |p: &Path| std::fs::metadata(p).map(|m| m.len());
            Ok(Converted {
                sizes: size(input).and_then(|i| Ok((i, size(output)?))).ok(),
                ..converted
            })
        }
        (None, Ok(()), None) => Err(refused("nothing was written".into())),
    }
}

/// Writes `trace` (a replay's, a live session's) to the file `path`, in the encoding its
/// name asks for ([`TraceEncoding::for_path`]), through a temporary file and a rename;
/// the number of events written.
pub fn write_recording(trace: &super::TraceFile, path: &Path) -> Result<usize, super::LoadError> {
    let failed = |message: String| super::LoadError::Format {
        path: path.to_owned(),
        message,
    };
    let mut writer = TraceWriter::new(TraceEncoding::for_path(path), Vec::new(), "");
    if let Some(header) = &trace.header {
        writer.write_header(header);
    }
    let mut agent = None;
    for e in &trace.events {
        if agent != Some(e.agent) {
            writer.set_agent(trace.agents.get(e.agent).map_or("", String::as_str));
            agent = Some(e.agent);
        }
        writer.event(&e.as_event());
        if writer.last_line_len() > MAX_TRACE_LINE {
            return Err(failed(format!(
                "an event of step {} is a line of {} bytes in JSON Lines, which holds at most {MAX_TRACE_LINE}",
                e.step,
                writer.last_line_len()
            )));
        }
    }
    let bytes = writer
        .finish()
        .map_err(|e| failed(format!("cannot write: {e}")))?;
    super::write_atomically(path, &bytes)?;
    Ok(trace.events.len())
}

/// The file beside the recording `record` that keeps the `n`th tree (1 the first) its
/// run ran that is not on this machine, a file of extension `ext`: `NAME.recorded.xml`
/// for `NAME.jsonl`, then `NAME.recorded-2.xml` …
pub fn recorded_tree(record: &Path, n: usize, ext: &str) -> std::path::PathBuf {
    let stem = record
        .file_stem()
        .map_or_else(|| "recording".into(), |s| s.to_string_lossy().into_owned());
    match n {
        0 | 1 => record.with_file_name(format!("{stem}.recorded.{ext}")),
        n => record.with_file_name(format!("{stem}.recorded-{n}.{ext}")),
    }
}
