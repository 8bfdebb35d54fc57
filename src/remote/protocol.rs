//! The messages of live attach, one JSON object a line (docs/PROTOCOL.md).
//! A game says a [`Hello`] first; the editor answers [`LinkSays::Welcome`] or
//! [`LinkSays::Refused`]. Then the game sends trace lines (docs/FORMAT.md, "Traces") and
//! [`GameSays`]; the editor sends [`EditorSays`]: the debugger's
//! [`GameCommand`](crate::debug::GameCommand)s and that it is still there.

use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::debug::GameCommand;
use crate::runtime::TraceHeader;

/// The version of the messages a [`Hello`] names.
pub const LIVE_VERSION: u32 = 2;

/// The longest first message a game may send (it carries its trees' and libraries' text).
pub const MAX_HELLO: usize = 8 * 1024 * 1024;

/// The longest message after the hello, either way.
pub const MAX_MESSAGE: usize = crate::io::MAX_TRACE_LINE;

/// What a game says first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hello {
    /// The messages' version ([`LIVE_VERSION`]).
    pub arbor_live: u32,
    /// The editor's token, as the game found it (the editor refuses any other).
    #[serde(default)]
    pub token: String,
    /// The game's name, as the editor lists it.
    pub game: String,
    /// Its run: dt, seed, the agents it may send with their tree files, the files' digests.
    pub run: TraceHeader,
    /// The text of its tree files, for an editor that does not have them.
    #[serde(default)]
    pub trees: Vec<SentTree>,
    /// Its node libraries (the kinds its code registers), for the editor to show its
    /// trees with and to compare with the project's library files.
    #[serde(default)]
    pub libraries: Vec<SentLibrary>,
    /// The agents it streams of itself when they step with a
    /// [`GameLink::watch`](super::GameLink::watch) observer; `None`: every such agent.
    /// The editor can ask for more of the run's agents ([`GameCommand::Stream`]).
    #[serde(default)]
    pub streamed: Option<Vec<String>>,
    /// Whether it can make a node report a result instead of running
    /// ([`GameCommand::Force`]); the editor then offers Force Result on its nodes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub forces: bool,
}

impl Hello {
    /// A game's hello: its name, `dt`, `seed`, its agents with the tree file each runs, and
    /// the files to name with their digests (its trees, first), by absolute paths (the
    /// editor's working folder is not the game's); with each tree's text.
    pub fn new(
        game: &str,
        dt: f64,
        seed: u64,
        agents: &[(String, PathBuf)],
        files: &[PathBuf],
    ) -> Self {
        let absolute = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
        let agents: Vec<(String, PathBuf)> = agents
            .iter()
            .map(|(n, t)| (n.clone(), absolute(t)))
            .collect();
        let files: Vec<PathBuf> = files.iter().map(|f| absolute(f)).collect();
        let mut run = crate::io::trace_header(dt, seed, &agents, &files, None);
        for (a, (_, tree)) in run.agents.iter_mut().zip(&agents) {
            a.tree = tree.display().to_string();
        }
        for (f, path) in run.files.iter_mut().zip(&files) {
            f.path = path.display().to_string();
        }
        let trees = files
            .iter()
            .filter_map(|f| {
                Some(SentTree {
                    path: f.display().to_string(),
                    text: crate::io::read_text(f).ok()?,
                })
            })
            .collect();
        Self {
            arbor_live: LIVE_VERSION,
            token: String::new(),
            game: game.to_owned(),
            run,
            trees,
            libraries: Vec::new(),
            streamed: None,
            forces: false,
        }
    }

    /// The hello with the game's node library: the kinds its code registers, as
    /// [`Library::from_catalog`](crate::io::Library::from_catalog) makes it. `Err` names a
    /// field a library cannot describe.
    pub fn with_library(mut self, library: &crate::io::Library) -> Result<Self, String> {
        self.libraries.push(SentLibrary {
            name: library.name.clone(),
            text: library.to_text()?,
        });
        Ok(self)
    }

    /// The hello of a game that streams only `agents` of itself; the editor asks for any
    /// other of the run's agents it wants shown.
    #[must_use]
    pub fn streaming_only(mut self, agents: &[&str]) -> Self {
        self.streamed = Some(agents.iter().map(|a| (*a).to_owned()).collect());
        self
    }

    /// The names of the run's agents.
    pub fn agent_names(&self) -> impl Iterator<Item = &str> {
        self.run.agents.iter().map(|a| a.name.as_str())
    }
}

/// A tree file's text, as a game sends it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SentTree {
    /// Its path, as the run's header names it.
    pub path: String,
    /// Its text.
    pub text: String,
}

/// A node library, as a game sends it: the text of its library file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SentLibrary {
    /// The library's name.
    pub name: String,
    /// Its text, as a `NAME.nodes.json` file holds it (docs/FORMAT.md, "Node libraries").
    pub text: String,
}

/// What a game says besides its events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum GameSays {
    /// Events it dropped so far because its queue to the editor was full.
    Dropped(u64),
    /// An agent it holds now (a breakpoint hit, or the editor's pause), until the editor
    /// lets it go.
    Paused(String),
}

/// What the editor says about the connection itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum LinkSays {
    /// The hello is taken: the game is shown in the editor's Game list.
    Welcome {},
    /// The editor is still there (once a second): a game lets its paused agents go after
    /// [`RELEASE_AFTER`](super::RELEASE_AFTER) without a word.
    Alive {},
    /// The hello is refused, and why; the editor then closes the connection.
    Refused(String),
}

/// What the editor says to a game: one of the debugger's commands, or about the link.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EditorSays {
    /// A command of the debugger.
    Command(GameCommand),
    /// About the connection.
    Link(LinkSays),
}

/// `message` as a line of the protocol: its JSON and a newline.
pub(crate) fn line_of(message: &impl Serialize) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(message).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// Reads one line of at most `max` bytes into `buf`: `Ok(false)` at the end of the input,
/// `Err` with what is wrong.
pub(crate) fn read_line(
    input: &mut impl BufRead,
    max: usize,
    buf: &mut Vec<u8>,
) -> Result<bool, String> {
    buf.clear();
    let n = input
        .by_ref()
        .take(max as u64 + 1)
        .read_until(b'\n', buf)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
                "it said nothing in time".to_owned()
            }
            _ => format!("the connection failed: {e}"),
        })?;
    if n == 0 {
        return Ok(false);
    }
    if buf.len() > max {
        return Err(format!("a message longer than {max} bytes"));
    }
    if buf.last() != Some(&b'\n') {
        return Err("the connection ended in the middle of a message".into());
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::debug::{BreakOn, GameBreakpoint};

    #[test]
    fn each_message_is_one_object_named_by_its_key() {
        let said = |m: &EditorSays| String::from_utf8(line_of(m)).unwrap_or_default();
        let step = EditorSays::Command(GameCommand::Step("a".into()));
        assert_eq!(said(&step), "{\"step\":\"a\"}\n");
        let all = EditorSays::Command(GameCommand::Continue(None));
        assert_eq!(said(&all), "{\"continue\":null}\n");
        let alive = EditorSays::Link(LinkSays::Alive {});
        assert_eq!(said(&alive), "{\"alive\":{}}\n");
        let breaks = EditorSays::Command(GameCommand::Breakpoints(vec![GameBreakpoint {
            node: "n".into(),
            on: BreakOn::ContextMissing,
            agents: Some(vec!["a".into()]),
        }]));
        assert_eq!(
            said(&breaks),
            "{\"breakpoints\":[{\"node\":\"n\",\"on\":\"context_missing\",\"agents\":[\"a\"]}]}\n"
        );
        for m in [step, all, alive, breaks] {
            let back: EditorSays = serde_json::from_slice(&line_of(&m))
                .unwrap_or(EditorSays::Link(LinkSays::Refused(String::new())));
            assert_eq!(back, m);
        }
        let paused = serde_json::to_string(&GameSays::Paused("a".into())).unwrap_or_default();
        assert_eq!(paused, "{\"paused\":\"a\"}");
        assert!(serde_json::from_str::<EditorSays>("{\"step\":\"a\",\"x\":1}").is_err());
        assert!(serde_json::from_str::<EditorSays>("{\"jump\":1}").is_err());
    }
}
