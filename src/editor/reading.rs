//! A large trace read off the UI thread: the window shows at once, with how far the
//! reading has come over the canvas, and the replay opens when the trace is read.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;

use eframe::egui;

use crate::io::{TraceError, TraceFile};

/// Traces larger than this many bytes are read off the UI thread; a smaller one is read at
/// once, in well under a second.
pub const READ_IN_BACKGROUND: u64 = 8 << 20;

/// A trace being read on a thread of its own.
pub(super) struct TraceReading {
    path: PathBuf,
    /// The file's size when the reading began.
    total: u64,
    /// Bytes read so far.
    read: Arc<AtomicU64>,
    done: mpsc::Receiver<Result<TraceFile, TraceError>>,
    /// Where the replay is taken once it opens (`arbor edit --trace --at`).
    pub(super) then: Option<crate::debug::RunFrom>,
}

impl TraceReading {
    /// Starts reading the trace at `path`, of `total` bytes.
    pub(super) fn start(path: &Path, total: u64) -> Self {
        let read = Arc::new(AtomicU64::new(0));
        let (tell, done) = mpsc::channel();
        let (counter, file) = (read.clone(), path.to_owned());
        std::thread::spawn(move || {
            let _ = tell.send(crate::io::read_trace_counting(&file, &counter));
        });
        Self {
            path: path.to_owned(),
            total,
            read,
            done,
            then: None,
        }
    }

    /// The trace, once read (or why it could not be).
    pub(super) fn poll(&self) -> Option<Result<TraceFile, String>> {
        match self.done.try_recv() {
            Ok(read) => Some(read.map_err(|e| e.to_string())),
            Err(mpsc::TryRecvError::Empty) => None,
            Err(mpsc::TryRecvError::Disconnected) => Some(Err(format!(
                "{}: the reading stopped before its end",
                self.path.display()
            ))),
        }
    }

    /// The file being read.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// What is read, in words: `Reading run.jsonl (2.1 GB)…`.
    pub(super) fn started(&self) -> String {
        format!("Reading {} ({})…", self.name(), size(self.total))
    }

    /// The file's name.
    fn name(&self) -> String {
        self.path.file_name().map_or_else(
            || self.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }

    /// How far the reading has come, in words: `Reading run.jsonl: 42 % of 2.1 GB`.
    pub(super) fn progress(&self) -> String {
        let read = self.read.load(Ordering::Relaxed).min(self.total);
        let share = (read * 100).checked_div(self.total).unwrap_or(0);
        format!("Reading {}: {share} % of {}", self.name(), size(self.total))
    }

    /// Shows the progress over the canvas, and draws again until the reading ends.
    pub(super) fn ui(&self, ctx: &egui::Context) {
        egui::Area::new(egui::Id::new("trace-reading"))
            .anchor(egui::Align2::CENTER_CENTER, egui::vec2(0.0, 0.0))
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    ui.horizontal(|ui| {
                        ui.spinner();
                        ui.label(self.progress());
                    });
                });
            });
        ctx.request_repaint_after(std::time::Duration::from_millis(100));
    }
}

/// A size in bytes, in words (`2.1 GB`, `840 MB`, `12 KB`).
fn size(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.0} MB", b / 1e6)
    } else {
        format!("{:.0} KB", b / 1e3)
    }
}
