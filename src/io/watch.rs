//! Watching files for changes through the platform's file events (inotify, FSEvents,
//! ReadDirectoryChangesW), for a node library edited while the editor is open.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};

use notify::{RecursiveMode, Watcher};

/// A watch on some files: each change to one of them (written, made, renamed over,
/// removed) is noted, and `wake` is called from the watcher's thread.
pub struct FileWatch {
    /// `None` where the platform gives no watcher: changes are then never noted.
    _watcher: Option<notify::RecommendedWatcher>,
    changes: Receiver<()>,
}

impl FileWatch {
    /// Watches `files` (which need not exist yet), calling `wake` on each change.
    pub fn new(files: &[PathBuf], wake: impl Fn() + Send + 'static) -> Self {
        let (tx, changes) = channel();
        if files.is_empty() {
            return Self {
                _watcher: None,
                changes,
            };
        }
        // Each file as the platform names it: its folder's real path and its name; and,
        // for a link, the file it points to (what a save through the link writes).
        let wanted: Vec<PathBuf> = files
            .iter()
            .flat_map(|f| [real(f), std::fs::canonicalize(f).ok()])
            .flatten()
            .collect();
        let mut folders: Vec<PathBuf> = wanted
            .iter()
            .filter_map(|w| w.parent().map(Path::to_owned))
            .collect();
        folders.sort();
        folders.dedup();
        let handler = move |event: notify::Result<notify::Event>| {
            let Ok(event) = event else { return };
            if event.kind.is_access() {
                return;
            }
            if event.paths.iter().any(|p| wanted.contains(p)) {
                let _ = tx.send(());
                wake();
            }
        };
        let Ok(mut watcher) = notify::recommended_watcher(handler) else {
            return Self {
                _watcher: None,
                changes,
            };
        };
        // Folders, not files: editors and git replace a file by renaming another over it.
        for folder in &folders {
            let _ = watcher.watch(folder, RecursiveMode::NonRecursive);
        }
        Self {
            _watcher: Some(watcher),
            changes,
        }
    }

    /// Whether a watched file changed since the last call.
    pub fn changed(&self) -> bool {
        self.changes.try_iter().count() > 0
    }
}

/// `file` with its folder's real path (links and `..` resolved), as file events name it.
fn real(file: &Path) -> Option<PathBuf> {
    let name = file.file_name()?;
    let folder = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(folder).ok()?.join(name))
}
