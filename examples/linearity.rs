//! The linearity guard's program: runs one workload of tests/common/workloads.rs once at
//! size N. scripts/linearity.sh runs each under valgrind at 0, N and 10 N and compares the
//! instructions.
//!
//! ```text
//! cargo run --release --example linearity -- list               # NAME N, one a line
//! cargo run --release --example linearity -- WORKLOAD N
//! cargo run --release --example linearity -- replay_memory TRACE  # peak memory ÷ the file
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "../tests/common/big_trees.rs"]
mod big_trees;
#[path = "../tests/common/workloads.rs"]
mod workloads;

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match (args.first().map(String::as_str), args.get(1)) {
        (Some("list"), None) => {
            for w in workloads::WORKLOADS {
                println!("{} {}", w.name, w.n);
            }
            ExitCode::SUCCESS
        }
        (Some("replay_memory"), Some(path)) => replay_memory(Path::new(path)),
        (Some(name), Some(n)) => match (n.parse::<usize>(), n) {
            (Ok(n), _) => match workloads::prepare(name, n) {
                Some(mut work) => {
                    work();
                    ExitCode::SUCCESS
                }
                None => usage(),
            },
            _ => usage(),
        },
        _ => usage(),
    }
}

fn usage() -> ExitCode {
    eprintln!("usage: linearity list | WORKLOAD N | replay_memory TRACE; the workloads:");
    for w in workloads::WORKLOADS {
        eprintln!("  {}: {}", w.name, w.what);
    }
    ExitCode::FAILURE
}

/// The peak memory of this process, in bytes (Linux: the high-water mark of its resident
/// set), if known.
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Reads and replays the trace at `path` as the editor does, and prints the peak memory
/// against the file's size.
fn replay_memory(path: &Path) -> ExitCode {
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    let start = std::time::Instant::now();
    let trace = match arbor::io::read_trace(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let events = trace.events.len();
    let replay = arbor::debug::Debugger::replay(path, trace);
    let peak = peak_memory().unwrap_or(0);
    println!(
        "{}: {size} bytes, {events} events, read and replayed in {:.2} s; peak memory {peak} bytes, {:.2} × the file",
        path.display(),
        start.elapsed().as_secs_f64(),
        peak as f64 / size.max(1) as f64
    );
    drop(replay);
    ExitCode::SUCCESS
}
