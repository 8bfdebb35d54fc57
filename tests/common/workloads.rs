//! Inputs Arbor must handle in time linear in their size, each with what Arbor does with
//! it: the shapes benchmark (benches/shapes.rs) times them at N and 10 N, and the
//! linearity guard (scripts/linearity.sh, through examples/linearity.rs) counts their
//! instructions at N and 10 N under valgrind.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use super::big_trees;

/// A workload: its name, what it does, and the N the guard runs it at (and 10 N).
pub struct Workload {
    /// The name the bench and the guard use.
    pub name: &'static str,
    /// What it does, in words.
    pub what: &'static str,
    /// The guard's N.
    pub n: usize,
}

/// Every workload.
pub const WORKLOADS: &[Workload] = &[
    Workload {
        name: "library_one_line",
        what: "a node library of N kinds written on one line, read and checked",
        n: 2_000,
    },
    Workload {
        name: "library_lines",
        what: "the same library written one kind a line, read and checked",
        n: 2_000,
    },
];

/// Workload `name` at size `n`: its input built, and what is measured, to call once or
/// many times; `None` for an unknown name.
pub fn prepare(name: &str, n: usize) -> Option<Box<dyn FnMut()>> {
    Some(match name {
        "library_one_line" => library(n, true),
        "library_lines" => library(n, false),
        _ => return None,
    })
}

/// Reads and checks a node library of `n` kinds as `arbor validate` does.
fn library(n: usize, one_line: bool) -> Box<dyn FnMut()> {
    let text = big_trees::library(n, one_line);
    let builtin = arbor::model::Catalog::builtin();
    Box::new(move || {
        let problems = arbor::io::check_library(Path::new("big.nodes.json"), &text, &builtin);
        assert!(problems.is_empty(), "{:?}", problems.first());
    })
}
