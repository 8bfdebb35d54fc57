//! What the debugger says to a game it shows live, and what it knows of the games connected
//! to the editor. The commands are written on the wire as they are serialized here (one JSON
//! object a line, named by its one key: docs/PROTOCOL.md); `arbor::remote`
//! carries them.

use serde::{Deserialize, Serialize};

use super::BreakOn;

/// What the debugger asks of a game shown live.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum GameCommand {
    /// The breakpoints, for the agents they name (replacing those said before).
    Breakpoints(Vec<GameBreakpoint>),
    /// One more step of a paused agent.
    Step(String),
    /// Pauses an agent (`None`: every agent of the game) before its next step.
    Pause(Option<String>),
    /// Lets a paused agent go on (`None`: every agent).
    Continue(Option<String>),
    /// An Interrupt to trigger in one of the game's agents.
    Trigger(GameTrigger),
    /// The agents to stream besides those the game streams of itself (replacing the
    /// list said before).
    Stream(Vec<String>),
    /// A node made to report a result instead of running, or to run again (a game whose
    /// hello says it `forces`).
    Force(GameForce),
}

/// A node of every agent of the game made to report `status` instead of running
/// (`None`: it runs as it is again).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameForce {
    /// The node (its trace id).
    pub node: String,
    /// What it reports.
    pub status: Option<Forced>,
}

/// What a node of a game can be made to report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Forced {
    /// Success.
    Success,
    /// Failure.
    Failure,
}

/// A breakpoint as a game is told it: a node, what stops an agent there, and the agents it
/// stops.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameBreakpoint {
    /// The node (its trace id).
    pub node: String,
    /// What stops an agent there.
    pub on: BreakOn,
    /// The agents it stops; `None`: every agent of the game.
    #[serde(default)]
    pub agents: Option<Vec<String>>,
}

/// A trigger the editor asks a game to give one of its agents.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameTrigger {
    /// The agent.
    pub agent: String,
    /// The Interrupt's id.
    pub id: String,
    /// Its payload, as typed.
    #[serde(default)]
    pub payload: Option<String>,
}

/// A game the editor's listener knows, as the debugger lists it: one row a game, its
/// restarts under it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameRow {
    /// Its id in the listener's list: the same while it is listed, never another game's.
    pub id: u64,
    /// Its name.
    pub name: String,
    /// Which run of the game it is now: 1, then one more each time it connects again.
    pub run: u32,
    /// Whether it is connected.
    pub connected: bool,
    /// What ended its connection, if something was wrong.
    pub problem: Option<String>,
    /// Events it dropped because the editor could not keep up.
    pub dropped: u64,
    /// Its agents paused now, as it said.
    pub paused: Vec<String>,
    /// Whether it can make a node report a result instead of running ([`GameForce`]).
    pub forces: bool,
}
