//! Runtime semantics (SEMANTICS.md §3), one file per node kind or rule, with exact event order.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;
mod harness;

mod abort_order;
mod actions;
mod clock;
mod conditions;
mod context;
mod cooldown;
mod delay;
mod entry_updated;
mod force;
mod hooks;
mod if_then_else;
mod interrupt;
mod inverter;
mod key_fields;
mod key_settings;
mod leaf;
mod observers;
mod outputs;
mod parallel;
mod precondition;
mod queue_loop;
mod random;
mod reactive;
mod regulator;
mod repeater;
mod retry;
mod root;
mod run_once;
mod script;
mod selector;
mod sequence;
mod sequence_with_memory;
mod services;
mod stall;
mod subtree;
mod switch;
mod time_limit;
mod until_fail;
