//! `arbor attach ADDRESS --record FILE`: a running BehaviorTree.CPP program, watched through
//! its Groot2Publisher without a window, recorded into an Arbor trace (docs/BTCPP.md, "Live
//! attach"): for robots and CI.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use super::steps::ctrl_c_pressed;
use super::{EXIT_INTERRUPTED, EXIT_OK, EXIT_UNREADABLE};
use crate::remote::groot2::{Groot2Error, LOOK_EVERY, Polling, PublisherAddress, Watch};
use crate::runtime::{Observer, TraceEncoding, TraceWriter};

/// What `arbor attach` is asked.
pub struct AttachArgs<'a> {
    /// The publisher's address, as typed.
    pub address: &'a str,
    /// The trace to write.
    pub record: &'a Path,
    /// Stop after this many seconds (`None`: when the program ends, or on Ctrl+C).
    pub seconds: Option<f64>,
    /// Polls a second.
    pub hz: f64,
    /// How long a request waits for its answer.
    pub within: Duration,
}

/// `arbor attach ADDRESS --record FILE`: waits for the program at ADDRESS, then writes
/// the tree it runs beside FILE ([`crate::io::recorded_tree`]) and every status change and
/// blackboard value it shows to FILE, until `--seconds` have passed, the program stops
/// answering or Ctrl+C. Exit 0 when it recorded, 130 on Ctrl+C before the program came,
/// 2 when the address, the program or the file is wrong.
pub fn attach(args: &AttachArgs<'_>, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let address: PublisherAddress = match args.address.parse() {
        Ok(a) => a,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return EXIT_UNREADABLE;
        }
    };
    let polling = match Polling::new(args.hz, args.within) {
        Ok(p) => p,
        Err(e) => {
            let _ = writeln!(err, "error: --hz: {e}");
            return EXIT_UNREADABLE;
        }
    };
    let seconds = match args.seconds.map(Duration::try_from_secs_f64) {
        None => None,
        Some(Ok(s)) if !s.is_zero() => Some(s),
        Some(_) => {
            let _ = writeln!(
                err,
                "error: --seconds must be a positive number of seconds, not {}",
                args.seconds.unwrap_or_default()
            );
            return EXIT_UNREADABLE;
        }
    };
    let tree_file = crate::io::recorded_tree(args.record, 1, "xml");
    if crate::io::btcpp::is_xml(args.record) || crate::io::is_btlog(args.record) {
        let _ = writeln!(
            err,
            "error: {}: a recording is an Arbor trace (.jsonl or .{}); its tree goes beside it",
            args.record.display(),
            crate::runtime::BINARY_TRACE_EXTENSION
        );
        return EXIT_UNREADABLE;
    }
    let started = Instant::now();
    // (A time past what an Instant holds is no end.)
    let ends = seconds.and_then(|s| started.checked_add(s));
    let over = || ctrl_c_pressed() || ends.is_some_and(|e| Instant::now() >= e);
    // The program, once it answers.
    let found = Watch::attach_when_there(&address, args.within, LOOK_EVERY, over, |e| {
        let _ = writeln!(err, "waiting for the program: {e}");
    });
    let (mut watch, first) = match found {
        Ok(Some(w)) => w,
        Ok(None) => {
            let _ = writeln!(err, "error: no program answered at {address}");
            return if ctrl_c_pressed() {
                EXIT_INTERRUPTED
            } else {
                EXIT_UNREADABLE
            };
        }
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return EXIT_UNREADABLE;
        }
    };
    if let Err(e) = crate::io::write_atomically(&tree_file, watch.xml().as_bytes()) {
        let _ = writeln!(err, "error: {e}");
        let _ = watch.detach();
        return EXIT_UNREADABLE;
    }
    let file = match std::fs::File::create(args.record) {
        Ok(f) => f,
        Err(e) => {
            let _ = writeln!(err, "error: {}: cannot write: {e}", args.record.display());
            let _ = watch.detach();
            return EXIT_UNREADABLE;
        }
    };
    let header = watch.header(&crate::io::traced_path(&tree_file, Some(args.record)));
    let mut writer = TraceWriter::new(
        TraceEncoding::for_path(args.record),
        std::io::BufWriter::new(file),
        watch.name(),
    );
    writer.write_header(&header);
    let _ = writeln!(
        err,
        "recording {} at {address} into {} (Ctrl+C stops)",
        watch.name(),
        args.record.display()
    );
    let mut events = first.len();
    let mut last_step = first.last().map_or(0, |e| e.step);
    for e in &first {
        writer.event(&e.as_event());
    }
    let every = polling.every();
    let mut next = Instant::now() + every;
    let mut ended: Option<Groot2Error> = None;
    while !over() {
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
        // A slow poll is not made up for with polls in a row.
        next = (next + every).max(Instant::now());
        match watch.poll() {
            Ok(polled) => {
                events += polled.events.len();
                for e in &polled.events {
                    last_step = e.step;
                    writer.event(&e.as_event());
                }
                // A recording cut off by a kill keeps what came up to the last poll.
                if let Err(e) = writer.flush() {
                    let _ = writeln!(err, "error: {}: cannot write: {e}", args.record.display());
                    return EXIT_UNREADABLE;
                }
            }
            Err(e) => {
                ended = Some(e);
                break;
            }
        }
    }
    let lost = watch.full_polls();
    let passed_over = watch.passed_over();
    let detached = match &ended {
        None => watch.detach().err(),
        Some(_) => None,
    };
    if let Err(e) = writer.finish() {
        let _ = writeln!(err, "error: {}: cannot write: {e}", args.record.display());
        return EXIT_UNREADABLE;
    }
    if let Some(e) = ended {
        let _ = writeln!(err, "the recording ends here: {e}");
    }
    if let Some(e) = detached {
        let _ = writeln!(err, "warning: {e}");
    }
    if passed_over > 0 {
        let _ = writeln!(
            err,
            "warning: {passed_over} changes the program sent named no node of its tree and were passed over; the nodes were set to the statuses it then reported"
        );
    }
    if lost > 0 {
        let _ = writeln!(
            err,
            "warning: {lost} polls took the {} changes the publisher keeps, so older ones may be missing (poll more often with --hz)",
            crate::remote::groot2::KEPT_CHANGES
        );
    }
    let _ = writeln!(
        out,
        "wrote {}: {events} events over {last_step} ms; its tree: {}",
        args.record.display(),
        tree_file.display()
    );
    EXIT_OK
}
