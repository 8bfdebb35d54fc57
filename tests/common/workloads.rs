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
    Workload {
        name: "trace_header",
        what: "a trace header naming N agents, written and read back in both encodings",
        n: 2_000,
    },
    #[cfg(feature = "gui")]
    Workload {
        name: "coverage_others",
        what: "the editor shows a coverage file of N other trees, then a tree edited",
        n: 2_000,
    },
];

/// Workload `name` at size `n`: its input built, and what is measured, to call once or
/// many times; `None` for an unknown name.
pub fn prepare(name: &str, n: usize) -> Option<Box<dyn FnMut()>> {
    Some(match name {
        "library_one_line" => library(n, true),
        "library_lines" => library(n, false),
        "trace_header" => trace_header(n),
        #[cfg(feature = "gui")]
        "coverage_others" => coverage_others(n),
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

/// Writes a trace of `n` agents (its header naming each with its tree file, then one
/// event of the last) in both encodings, as `arbor run --trace` does, and reads each back.
fn trace_header(n: usize) -> Box<dyn FnMut()> {
    use arbor::runtime::{Event, EventKind, Observer, TraceEncoding, TraceWriter};
    let agents: Vec<(String, std::path::PathBuf)> = (0..n)
        .map(|i| (format!("droid-{i}"), format!("arena/droid_{i}.json").into()))
        .collect();
    let header = arbor::io::trace_header(0.1, 1, &agents, &[], None);
    let last = agents.last().map_or("", |(a, _)| a.as_str()).to_owned();
    Box::new(move || {
        for encoding in [TraceEncoding::JsonLines, TraceEncoding::Binary] {
            let mut w = TraceWriter::new(encoding, Vec::new(), &last);
            w.write_header(&header);
            w.event(&Event {
                step: 1,
                node: Some(0),
                node_id: "root",
                kind: EventKind::Enter,
            });
            let bytes = w.finish().unwrap();
            let t = arbor::io::parse_trace(&bytes[..], Path::new("t")).unwrap();
            assert_eq!(t.agents.len(), n.max(1));
        }
    })
}

/// One frame of the whole editor, drawn headless (textures dropped).
#[cfg(feature = "gui")]
fn frame(ctx: &eframe::egui::Context, app: &mut arbor::editor::EditorApp) {
    let input = eframe::egui::RawInput {
        screen_rect: Some(eframe::egui::Rect::from_min_size(
            eframe::egui::Pos2::ZERO,
            eframe::egui::vec2(1400.0, 860.0),
        )),
        ..Default::default()
    };
    let mut out = ctx.run_ui(input, |ui| app.show(ui));
    out.textures_delta.clear();
}

/// A title edit of node `id`, then a frame: what a keystroke in the inspector costs.
#[cfg(feature = "gui")]
fn edit_and_frame(ctx: &eframe::egui::Context, app: &mut arbor::editor::EditorApp, id: &str) {
    let k = app.document().revision();
    app.apply(arbor::model::Edit::SetTitle {
        id: arbor::model::NodeId::new(id),
        title: format!("Edited {k}"),
    });
    frame(ctx, app);
}

/// A tree of the repository's samples, copied into `dir`.
#[cfg(feature = "gui")]
fn sample_in(dir: &Path, name: &str) -> std::path::PathBuf {
    let to = dir.join(name);
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample_trees")
        .join(name);
    std::fs::copy(from, &to).unwrap();
    to
}

/// The editor on a tree, shown a coverage file of `n` other trees, then the tree edited.
#[cfg(feature = "gui")]
fn coverage_others(n: usize) -> Box<dyn FnMut()> {
    let dir = tempfile::tempdir().unwrap();
    let tree = sample_in(dir.path(), "mock_sketch.json");
    let file = dir.path().join("others.coverage.json");
    std::fs::write(&file, big_trees::coverage_of_others(n)).unwrap();
    Box::new(move || {
        let _keep = &dir;
        let mut app = arbor::editor::EditorApp::open(&tree).unwrap();
        let ctx = eframe::egui::Context::default();
        frame(&ctx, &mut app);
        assert!(app.open_coverage(&file));
        frame(&ctx, &mut app);
        edit_and_frame(&ctx, &mut app, "root");
    })
}
