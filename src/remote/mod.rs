//! Live attach (feature `remote`): a game sends what its agents do to the editor while it
//! runs, and the editor shows it as it comes, with the timeline to scrub back through it
//! and breakpoints that pause the game's agents.
//!
//! - [`protocol`]: the messages, one JSON object a line, either way (docs/PROTOCOL.md).
//! - The game's side, [`GameLink`]: a background thread that finds the editor (the
//!   `ARBOR_LIVE` variable, else the card each editor leaves in the user's live folder),
//!   connects and reconnects, so the order in which the two start does not matter. The
//!   game never waits for the editor: a watched agent's events of a step go through a
//!   bounded queue ([`QUEUE_STEPS`]) as one message; when it is full they are dropped and
//!   counted, never the game's frame.
//! - The editor's side, [`Listener`]: loopback unless told otherwise; a game must say the
//!   editor's token; a bounded window of each game's last steps; a peer that breaks the
//!   rules ends its own connection, and the editor says so.
//!
//! - [`groot2`] (feature `groot2`): a BehaviorTree.CPP program's Groot2Publisher, watched
//!   and shown in the editor through the same listener.
//!
//! Nothing a message says is executed: it is parsed as data, within its bound.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

mod editor;
mod game;
#[cfg(feature = "groot2")]
pub mod groot2;
pub mod protocol;

pub use editor::{
    EndedRun, GameInfo, HELLO_WITHIN, KEPT_ENDED, KEPT_RUNS, Listener, MAX_GAMES, MAX_LISTED,
    MAX_NAMES, MAX_PENDING, Received, TO_GAME, WINDOW,
};
pub use game::{ANSWER_WITHIN, GameLink, LinkObserver, MAX_TRIGGERS, QUEUE_STEPS};
pub use protocol::{Hello, LIVE_VERSION, MAX_HELLO, MAX_MESSAGE, SentLibrary, SentTree};

/// The port the editor listens on unless told otherwise (a second editor takes the next
/// free one).
pub const DEFAULT_PORT: u16 = 47_801;

/// A paused agent is let go when the editor has said nothing for this long.
pub const RELEASE_AFTER: Duration = Duration::from_secs(5);

/// Where an editor listens and the token its games must say: what `ARBOR_LIVE` holds,
/// written `[HOST:]PORT/TOKEN` (`47801/3f…`, `192.168.1.5:47801/3f…`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditorAddress {
    /// The address.
    pub addr: SocketAddr,
    /// The token.
    pub token: String,
}

impl std::fmt::Display for EditorAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.addr.ip() == Ipv4Addr::LOCALHOST {
            write!(f, "{}/{}", self.addr.port(), self.token)
        } else {
            write!(f, "{}/{}", self.addr, self.token)
        }
    }
}

impl std::str::FromStr for EditorAddress {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let form = "it is [HOST:]PORT/TOKEN, as the editor's Game list shows it";
        let (place, token) = text
            .trim()
            .rsplit_once('/')
            .ok_or_else(|| format!("'{text}' has no token: {form}"))?;
        if !is_token(token) {
            return Err(format!(
                "'{token}' is not a token (1 to 128 letters and digits): {form}"
            ));
        }
        let addr = match (place.parse::<u16>(), place.parse::<SocketAddr>()) {
            (Ok(port), _) => SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
            (_, Ok(addr)) => addr,
            _ => {
                return Err(format!(
                    "'{place}' is not a port or an address and port: {form}"
                ));
            }
        };
        Ok(Self {
            addr,
            token: token.to_owned(),
        })
    }
}

/// Whether `token` can be a token: 1 to 128 ASCII letters and digits.
pub(crate) fn is_token(token: &str) -> bool {
    (1..=128).contains(&token.len()) && token.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// A new token: 128 bits from the system's random source, in hexadecimal.
pub fn new_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The most of a peer's own text a notice or a refusal repeats.
const MAX_QUOTED: usize = 160;

/// A peer's own text as a notice or a refusal repeats it: at most [`MAX_QUOTED`]
/// characters, control characters shown as `�`.
pub(crate) fn quoted(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(MAX_QUOTED)
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect();
    if text.chars().nth(MAX_QUOTED).is_some() {
        out.push('…');
    }
    out
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_editor_address_reads_back_as_it_is_written() {
        let a: Result<EditorAddress, _> = "47801/abc123".parse();
        assert_eq!(
            a,
            Ok(EditorAddress {
                addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 47801)),
                token: "abc123".into()
            })
        );
        let far: Result<EditorAddress, _> = "10.0.0.2:5000/ff".parse();
        assert_eq!(
            far.as_ref().map(ToString::to_string),
            Ok("10.0.0.2:5000/ff".to_owned())
        );
        for bad in ["47801", "47801/", "x/abc", "47801/a b", "99999/ab"] {
            assert!(bad.parse::<EditorAddress>().is_err(), "{bad}");
        }
        let t = new_token().unwrap_or_default();
        assert!(is_token(&t) && t.len() == 32, "{t}");
    }
}
