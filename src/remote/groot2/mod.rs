//! Attach to a running BehaviorTree.CPP program through its Groot2Publisher (feature
//! `groot2`; docs/BTCPP.md, "Live attach"):
//!
//! - [`client`]: the requests of Groot2's protocol over ZeroMQ, each bounded in size and
//!   time;
//! - [`watch`]: a program watched: its tree, its nodes' status changes as trace events,
//!   its blackboards as context writes, and breakpoints on its nodes.

pub mod client;
pub mod watch;

pub use client::{DEFAULT_PORT, Fault, Groot2Error, MAX_REPLY, Publisher, PublisherAddress};
pub use watch::{KEPT_CHANGES, Polled, Watch};
