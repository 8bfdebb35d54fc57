//! Attach to a running BehaviorTree.CPP program through its Groot2Publisher (feature
//! `groot2`; docs/BTCPP.md, "Live attach"):
//!
//! - [`client`]: the requests of Groot2's protocol over ZeroMQ, each bounded in size and
//!   time;
//! - [`watch`]: a program watched: its tree, its nodes' status changes as trace events,
//!   its blackboards as context writes, and breakpoints on its nodes;
//! - [`bridge`]: a program watched, shown in the editor: the bridge speaks Arbor's own
//!   live protocol to the editor's listener for the program, as a game would, so the
//!   debugger shows it with everything it shows a game.

pub mod bridge;
pub mod client;
pub mod watch;

pub use bridge::{Bridge, LOOK_EVERY, Polling, game_name};
pub use client::{DEFAULT_PORT, Fault, Groot2Error, MAX_REPLY, Publisher, PublisherAddress};
pub use watch::{KEPT_CHANGES, Polled, Watch};
