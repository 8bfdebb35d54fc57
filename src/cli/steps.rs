//! The progress of a long command (the steps of `arbor run` and `arbor coverage`): a line
//! on a terminal once it has gone on a while, and Ctrl+C stopping it between two steps,
//! so that its summary is still printed.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Set when the user presses Ctrl+C (the binary's handler sets it).
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Asks the command going on to stop after its current step (called on Ctrl+C).
pub fn interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Whether Ctrl+C was pressed.
pub(super) fn ctrl_c_pressed() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// A command that takes longer than this shows its progress.
const QUIET_FOR: Duration = Duration::from_secs(1);

/// How often the progress line is written again.
const EVERY: Duration = Duration::from_millis(250);

/// How far a command is: `done` of `total` steps.
pub(super) struct Progress {
    total: u64,
    started: Instant,
    shown: Option<Instant>,
    terminal: bool,
    /// The steps done so far.
    pub(super) done: u64,
}

impl Progress {
    /// `total` steps, starting now.
    pub(super) fn steps(total: u64) -> Self {
        Self {
            total,
            started: Instant::now(),
            shown: None,
            terminal: std::io::stderr().is_terminal(),
            done: 0,
        }
    }

    /// Whether to take the next step (false once Ctrl+C was pressed); on a terminal,
    /// shows how far it is once it has gone on a while.
    pub(super) fn go_on(&mut self) -> bool {
        if ctrl_c_pressed() {
            return false;
        }
        self.show();
        true
    }

    /// On a terminal, once the command has gone on a while, writes how far it is (at most
    /// every [`EVERY`]).
    pub(super) fn show(&mut self) {
        if !self.terminal {
            return;
        }
        let now = Instant::now();
        let elapsed = now - self.started;
        if elapsed >= QUIET_FOR && self.shown.is_none_or(|t| now - t >= EVERY) {
            let rate = self.done as f64 / elapsed.as_secs_f64();
            let left = (self.total - self.done.min(self.total)) as f64 / rate.max(1e-9);
            eprint!(
                "\r\x1b[Kstep {} of {} ({rate:.0} steps/s, about {left:.0} s left; Ctrl+C stops with a summary)",
                self.done, self.total,
            );
            self.shown = Some(now);
        }
    }

    /// Marks `done` steps as done.
    pub(super) fn taken(&mut self, done: u64) {
        self.done = done;
    }

    /// Clears the progress line; whether the command was stopped by Ctrl+C.
    pub(super) fn finish(&mut self) -> bool {
        if self.shown.is_some() {
            eprint!("\r\x1b[K");
        }
        self.done < self.total && ctrl_c_pressed()
    }
}
