//! Arbor: an editor and runtime for game-AI behaviour trees.
//!
//! The core — [`model`] (nodes, ports, validation) and [`io`] (the JSON asset format) —
//! never depends on egui; the editor (feature `gui`) is a view of it.

pub mod cli;
pub mod io;
pub mod model;
pub mod runtime;
