//! `ArborTrace`: a trace file (docs/FORMAT.md, "Traces") that the steps of the agents it
//! was opened for are written to.

use std::ffi::c_char;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arbor::io::{create_output, digest_of, trace_header};
use arbor::runtime::{TraceEncoding, TraceWriter};

use crate::agent::{ArborAgent, open_for};
use crate::calls::outside;
use crate::error::{ARBOR_ERR_IO, ARBOR_OK, Failure, fail, guard};
use crate::handles::{self, Exclusive, Object, Type, claim};
use crate::value::name;

/// A handle to a trace (0: none).
pub type ArborTrace = u64;

/// What a trace holds: its writer until it is closed.
pub(crate) struct Trace {
    pub(crate) writer: Option<TraceWriter<BufWriter<File>>>,
    pub(crate) path: PathBuf,
}

/// Opens a trace at `path` (binary when the name ends in `.arbtrace`, else JSON Lines)
/// for the `count` agents of `agents`, and has each agent's steps written to it from now
/// on. The header says `dt`, `seed`, each agent's name and tree, and the trees' digests,
/// so that `arbor edit --trace` replays it. A file the trees were read from is never
/// written over.
///
/// # Safety
/// `path` must be a NUL-terminated string; `agents` must hold `count` handles; `out`
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_trace_open(
    path: *const c_char,
    dt: f64,
    seed: u64,
    agents: *const ArborAgent,
    count: usize,
    out: *mut ArborTrace,
) -> i32 {
    guard(|| {
        outside("arbor_trace_open")?;
        // SAFETY: the caller's contract.
        let path = Path::new(unsafe { name(path, "path") }?);
        // SAFETY: the caller's contract.
        let trace = unsafe {
            open_for(agents, count, dt, out.is_null(), |opened, claimed| {
                let (named, files) = (&opened.named, &opened.files);
                let file = create_output(path, files).map_err(|e| Failure {
                    code: ARBOR_ERR_IO,
                    message: e.to_string(),
                })?;
                let first = named.first().map_or("", |(n, _)| n.as_str());
                let mut writer =
                    TraceWriter::new(TraceEncoding::for_path(path), BufWriter::new(file), first);
                let mut header = trace_header(dt, seed, named, files, Some(path));
                // A tree given as text: the digest of that text.
                for (f, file) in header.files.iter_mut().zip(files) {
                    if let Some(text) = opened.texts.get(file) {
                        f.sha256 = digest_of(text.as_bytes());
                    }
                }
                writer.write_header(&header);
                let trace = Arc::new(Exclusive::new(Trace {
                    writer: Some(writer),
                    path: path.to_owned(),
                }));
                for a in claimed.iter_mut() {
                    a.trace = Some(trace.clone());
                }
                Ok(trace)
            })
        }?;
        // SAFETY: the caller's contract (`out` checked not null above).
        unsafe { handles::give(Object::Trace(trace), out) }
    })
}

/// Closes a trace: what is gathered is written and the file closed; its agents step on
/// untraced. `ARBOR_ERR_IO` names the first write that failed.
#[unsafe(no_mangle)]
pub extern "C" fn arbor_trace_close(trace: ArborTrace) -> i32 {
    guard(|| {
        outside("arbor_trace_close")?;
        let t = handles::trace(trace)?;
        let (writer, path) = {
            let mut t = claim(&t, "the trace")?;
            (t.writer.take(), t.path.clone())
        };
        handles::remove(trace, Type::Trace)?;
        match writer.map(TraceWriter::finish) {
            Some(Err(e)) => fail(
                ARBOR_ERR_IO,
                format!("{}: cannot write: {e}", path.display()),
            ),
            _ => Ok(ARBOR_OK),
        }
    })
}
