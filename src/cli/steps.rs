//! The steps of `arbor run`: a progress line on a terminal for a long run, and Ctrl+C
//! stopping the run between two steps, so that its summary is still printed.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Set when the user presses Ctrl+C (the binary's handler sets it).
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Asks the run going on to stop after its current step (called on Ctrl+C).
pub fn interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// A run longer than this shows its progress.
const QUIET_FOR: Duration = Duration::from_secs(1);

/// How often the progress line is written again.
const EVERY: Duration = Duration::from_millis(250);

/// A run's steps as they go.
pub(super) struct Steps {
    total: u64,
    started: Instant,
    shown: Option<Instant>,
    terminal: bool,
    /// The steps taken so far.
    pub(super) done: u64,
}

impl Steps {
    /// A run of `total` steps, starting now.
    pub(super) fn new(total: u64) -> Self {
        Self {
            total,
            started: Instant::now(),
            shown: None,
            terminal: std::io::stderr().is_terminal(),
            done: 0,
        }
    }

    /// Whether the run takes step `step` (false once Ctrl+C was pressed); on a terminal,
    /// shows how far it is once it has run a while.
    pub(super) fn take(&mut self, step: u64) -> bool {
        if INTERRUPTED.load(Ordering::SeqCst) {
            return false;
        }
        self.done = step.saturating_sub(1);
        if self.terminal {
            let now = Instant::now();
            let elapsed = now - self.started;
            if elapsed >= QUIET_FOR && self.shown.is_none_or(|t| now - t >= EVERY) {
                let rate = self.done as f64 / elapsed.as_secs_f64();
                let left = (self.total - self.done) as f64 / rate.max(1e-9);
                eprint!(
                    "\r\x1b[Kstep {} of {} ({:.0} steps/s, about {:.0} s left; Ctrl+C stops with a summary)",
                    self.done, self.total, rate, left
                );
                self.shown = Some(now);
            }
        }
        true
    }

    /// Marks step `step` as taken.
    pub(super) fn taken(&mut self, step: u64) {
        self.done = step;
    }

    /// Clears the progress line; whether the run was stopped by Ctrl+C.
    pub(super) fn finish(&mut self) -> bool {
        if self.shown.is_some() {
            eprint!("\r\x1b[K");
        }
        self.done < self.total && INTERRUPTED.load(Ordering::SeqCst)
    }
}
