//! File > Save Recording…: what the game or BehaviorTree.CPP program shown live sent (as
//! much of it as the editor keeps) written as a trace, to replay (File > Open Trace…) and
//! count (`arbor coverage`) later. A tree the run ran that is not on this machine (a
//! BehaviorTree.CPP program's, which it sent) is written beside the trace, and the trace
//! names it there.

use std::path::{Path, PathBuf};

use super::EditorApp;
use super::files::Purpose;

impl EditorApp {
    /// Save Recording…: where to write it, `NAME.jsonl` offered (NAME: the game's).
    pub(super) fn ask_recording_path(&mut self) {
        let name = self
            .simulation()
            .and_then(|s| s.live_row())
            .map(|g| {
                g.name
                    .chars()
                    .map(|c| {
                        if c.is_alphanumeric() || c == '-' {
                            c
                        } else {
                            '_'
                        }
                    })
                    .collect::<String>()
            })
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "recording".into());
        self.choose_named(Purpose::SaveRecording, format!("{name}.jsonl"));
    }

    /// Writes what the game shown live sent to the trace file `path`.
    pub(super) fn save_recording(&mut self, path: &Path) {
        let Some(run) = self.simulation() else {
            return;
        };
        let (Some(id), Some(replay)) = (
            run.live_game(),
            run.source().and_then(crate::debug::Source::replayed),
        ) else {
            self.say_problem("No game is shown live: there is no recording to save");
            return;
        };
        let mut trace = replay.trace().clone();
        let first = replay.first_step();
        let hello = self.listener().and_then(|l| l.game(id)).map(|g| g.hello);
        // The trees the run ran that are not on this machine, written beside the trace.
        let mut beside: Vec<(String, PathBuf)> = Vec::new();
        if let (Some(hello), Some(header)) = (hello, &mut trace.header) {
            for agent in &mut header.agents {
                if Path::new(&agent.tree).is_file() {
                    continue;
                }
                let Some(sent) = hello.trees.iter().find(|t| t.path == agent.tree) else {
                    continue;
                };
                let file = match beside.iter().find(|(tree, _)| *tree == agent.tree) {
                    Some((_, file)) => file.clone(),
                    None => {
                        let ext = Path::new(&agent.tree)
                            .extension()
                            .map_or_else(|| "json".into(), |e| e.to_string_lossy().into_owned());
                        let file = crate::io::recorded_tree(path, beside.len() + 1, &ext);
                        if let Err(e) = crate::io::write_atomically(&file, sent.text.as_bytes()) {
                            self.say_problem(e.to_string());
                            return;
                        }
                        beside.push((agent.tree.clone(), file.clone()));
                        file
                    }
                };
                agent.tree = crate::io::traced_path(&file, Some(path));
            }
        }
        match crate::io::write_recording(&trace, path) {
            Ok(n) => {
                let mut said = format!("Saved {n} events to {}", path.display());
                if first > 0 {
                    said += &format!(
                        " (from step {}: the editor keeps a game's last steps)",
                        first + 1
                    );
                }
                for (_, file) in &beside {
                    said += &format!("; its tree: {}", file.display());
                }
                self.say(said);
            }
            Err(e) => self.say_problem(e.to_string()),
        }
    }
}
