//! The card an editor leaves for games to find it (docs/DEBUGGER.md, "Which editor a game
//! finds"): where it listens, the token a game must say, the folder of the project it
//! edits. One small JSON file an editor, in the user's live folder (readable by the user
//! only), removed when the editor ends.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{LoadError, read_text, write_own_file};

/// The `format` header of a card.
pub const LIVE_FORMAT: &str = super::header::LIVE_CARD.name;

const LIVE_VERSION: u64 = super::header::LIVE_CARD.newest;

/// The largest card read, and the most cards looked at.
const MAX_CARD_BYTES: u64 = 4096;
const MAX_CARDS: usize = 64;

/// An editor's card.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiveCard {
    format: String,
    version: u64,
    /// The address it listens on.
    pub listen: SocketAddr,
    /// The token a game must say in its hello.
    pub token: String,
    /// The folder of the project it edits (the project file's, else the tree's, else the
    /// folder it was started in).
    pub folder: Option<PathBuf>,
    /// Its process.
    pub pid: u32,
}

/// A card written, removed when this is dropped.
#[derive(Debug)]
pub struct CardFile {
    path: PathBuf,
}

impl CardFile {
    /// The card's file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for CardFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

impl LiveCard {
    /// The card of an editor listening on `listen` with `token`, for `folder`.
    pub fn new(listen: SocketAddr, token: &str, folder: Option<PathBuf>) -> Self {
        Self {
            format: LIVE_FORMAT.into(),
            version: LIVE_VERSION,
            listen,
            token: token.to_owned(),
            folder,
            pid: std::process::id(),
        }
    }

    /// Where a game on this machine reaches the editor: its address, or the loopback
    /// address at its port when it listens on every address.
    pub fn address(&self) -> SocketAddr {
        if self.listen.ip().is_unspecified() {
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), self.listen.port())
        } else {
            self.listen
        }
    }

    /// The user's live folder: `$ARBOR_LIVE_DIR` when set, else `arbor` in
    /// `$XDG_RUNTIME_DIR`, else `arbor/live` in the user's state folder
    /// (`$XDG_STATE_HOME`, or `~/.local/state`). `Err` says why there is none.
    pub fn default_dir() -> Result<PathBuf, String> {
        if let Some(run) = std::env::var_os("XDG_RUNTIME_DIR").filter(|v| !v.is_empty())
            && std::env::var_os("ARBOR_LIVE_DIR").is_none_or(|v| v.is_empty())
        {
            return Ok(PathBuf::from(run).join("arbor"));
        }
        super::user_file(
            "ARBOR_LIVE_DIR",
            "XDG_STATE_HOME",
            ".local/state",
            &["arbor", "live"],
        )
    }

    /// Writes the card in `dir` (made readable by the user only), named by its port; it
    /// is removed when the returned file is dropped.
    pub fn write(&self, dir: &Path) -> Result<CardFile, LoadError> {
        let made = || -> std::io::Result<()> {
            let mut builder = std::fs::DirBuilder::new();
            builder.recursive(true);
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            builder.create(dir)
        };
        made().map_err(|e| LoadError::Write {
            path: dir.to_owned(),
            source: std::sync::Arc::new(e),
        })?;
        let path = dir.join(format!("editor-{}.json", self.listen.port()));
        let text = serde_json::to_string_pretty(self).unwrap_or_default() + "\n";
        write_own_file(&path, text.as_bytes())?;
        Ok(CardFile { path })
    }

    /// The cards in `dir` an editor of this user left, best first for a game whose files
    /// are `files`: the editors whose project folder holds one of them (the deepest
    /// folder first), then the others, newest first. Files that are not cards are
    /// passed over.
    pub fn find_in(dir: &Path, files: &[PathBuf]) -> Vec<LiveCard> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut cards: Vec<(usize, std::time::SystemTime, LiveCard)> = entries
            .flatten()
            .take(MAX_CARDS * 4)
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.starts_with("editor-") && name.ends_with(".json")
            })
            .filter_map(|e| {
                let meta = std::fs::symlink_metadata(e.path()).ok()?;
                if !meta.is_file() || meta.len() > MAX_CARD_BYTES {
                    return None;
                }
                let card = Self::parse(&read_text(&e.path()).ok()?).ok()?;
                let depth = card
                    .folder
                    .as_ref()
                    .filter(|f| files.iter().any(|file| file.starts_with(f)))
                    .map_or(0, |f| f.components().count());
                Some((depth, meta.modified().ok()?, card))
            })
            .take(MAX_CARDS)
            .collect();
        cards.sort_by_key(|c| std::cmp::Reverse((c.0, c.1)));
        cards.into_iter().map(|(_, _, c)| c).collect()
    }

    /// [`LiveCard::find_in`] the user's live folder.
    pub fn find(files: &[PathBuf]) -> Vec<LiveCard> {
        Self::default_dir().map_or_else(|_| Vec::new(), |d| Self::find_in(&d, files))
    }

    /// A card's text, checked.
    fn parse(text: &str) -> Result<Self, String> {
        super::header::LIVE_CARD
            .check(text)
            .map_err(|p| p.message)?;
        let card: Self = serde_json::from_str(text).map_err(|e| e.to_string())?;
        Ok(card)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_finds_the_editor_of_its_project_first_and_passes_over_what_is_no_card() {
        let Ok(dir) = tempfile::tempdir() else {
            return;
        };
        let at = |port: u16| SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let ours = LiveCard::new(at(47802), "aa", Some(PathBuf::from("/games/ours")));
        let other = LiveCard::new(at(47801), "bb", Some(PathBuf::from("/games/other")));
        let kept: Vec<CardFile> = [&other, &ours]
            .iter()
            .filter_map(|c| c.write(dir.path()).ok())
            .collect();
        assert_eq!(kept.len(), 2);
        let _ = std::fs::write(dir.path().join("editor-1.json"), "{\"format\":\"x\"}");
        let found = LiveCard::find_in(dir.path(), &[PathBuf::from("/games/ours/ai/guard.json")]);
        assert_eq!(found, vec![ours.clone(), other.clone()]);
        let found = LiveCard::find_in(dir.path(), &[PathBuf::from("/games/other/t.json")]);
        assert_eq!(found.first(), Some(&other));
        drop(kept);
        assert!(
            LiveCard::find_in(dir.path(), &[]).is_empty(),
            "dropped cards are removed"
        );
    }
}
