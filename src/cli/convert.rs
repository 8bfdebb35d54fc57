//! `arbor convert`: a trace written again in the other encoding.

use std::io::Write;

use super::input::{located, trace_error_line};
use super::{EXIT_OK, EXIT_UNREADABLE};

/// `arbor convert IN OUT`: the trace IN written to OUT in the encoding OUT's name asks
/// for (or as JSON Lines to `out` for `-`); what was written is said on `err` when the
/// trace goes to `out`, else on `out`. Exit 2 when IN does not read or OUT cannot be
/// written.
pub fn convert(
    input: &std::path::Path,
    output: &std::path::Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let to_stdout = output.as_os_str() == "-";
    if to_stdout && let Err(e) = crate::io::check_stdout(&[input.to_owned()]) {
        let _ = writeln!(err, "{}", located(&e));
        return EXIT_UNREADABLE;
    }
    let converted = if to_stdout {
        crate::io::TraceReader::open(input).and_then(|mut reader| {
            crate::io::write_trace(
                &mut reader,
                crate::runtime::TraceEncoding::JsonLines,
                &mut *out,
                std::path::Path::new("standard output"),
            )
            .map(|(_, c)| c)
        })
    } else {
        crate::io::convert_trace(input, output)
    };
    let said: &mut dyn Write = if to_stdout { err } else { out };
    match converted {
        Ok(c) => {
            if let Some(cut) = c.cut {
                let _ = writeln!(
                    said,
                    "{}: warning: {}; the part left out is not converted",
                    cut.location(input),
                    cut.message()
                );
            }
            let encoding = match crate::runtime::TraceEncoding::for_path(output) {
                crate::runtime::TraceEncoding::Binary => "binary",
                crate::runtime::TraceEncoding::JsonLines => "JSON Lines",
            };
            let sizes = c.sizes.map_or(String::new(), |(i, o)| {
                format!("; {o} bytes (the input: {i})")
            });
            let _ = writeln!(
                said,
                "wrote {} ({encoding}): {} events, {} steps{sizes}",
                if to_stdout {
                    "standard output".into()
                } else {
                    output.display().to_string()
                },
                c.events,
                c.steps,
            );
            EXIT_OK
        }
        Err(e) => {
            let _ = writeln!(err, "{}", trace_error_line(&e));
            EXIT_UNREADABLE
        }
    }
}
