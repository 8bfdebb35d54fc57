//! The editor, driven through the input a person uses (keys, clicks, drags, menus) in
//! egui_kittest, and the real editor process under Xvfb. One test binary with a module
//! per area: each test binary links the whole GUI stack, and one binary lets the slow
//! tests of every area run side by side.

#![cfg(feature = "gui")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;
mod support;

mod blackboard;
mod canvas;
mod commands;
mod coverage;
mod disk;
mod editing;
mod files;
mod large;
mod library;
mod live;
mod process;
#[cfg(feature = "groot2")]
mod program;
mod replay;
mod run;
