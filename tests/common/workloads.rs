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
        n: 1_000,
    },
    Workload {
        name: "library_lines",
        what: "the same library written one kind a line, read and checked",
        n: 1_000,
    },
    Workload {
        name: "declared_keys",
        what: "a tree declaring N keys, N nodes writing them and N reading them (every other one misspelt), read and validated",
        n: 1_000,
    },
    Workload {
        name: "trace_header",
        what: "a trace header naming N agents, written and read back in both encodings",
        n: 1_000,
    },
    #[cfg(feature = "gui")]
    Workload {
        name: "coverage_others",
        what: "the editor shows a coverage file of N other trees, then a tree edited",
        n: 1_000,
    },
    #[cfg(feature = "gui")]
    Workload {
        name: "live_kinds",
        what: "a game whose node library declares N kinds is shown live, then its tree edited",
        n: 1_000,
    },
    #[cfg(feature = "gui")]
    Workload {
        name: "live_agents",
        what: "a game of N agents is shown live, then its tree edited",
        n: 1_000,
    },
];

/// Workload `name` at size `n`: its input built, and what is measured, to call once or
/// many times; `None` for an unknown name.
pub fn prepare(name: &str, n: usize) -> Option<Box<dyn FnMut()>> {
    Some(match name {
        "library_one_line" => library(n, true),
        "library_lines" => library(n, false),
        "declared_keys" => declared_keys(n),
        "trace_header" => trace_header(n),
        #[cfg(feature = "gui")]
        "coverage_others" => coverage_others(n),
        #[cfg(feature = "gui")]
        "live_kinds" => live(n, 1),
        #[cfg(feature = "gui")]
        "live_agents" => live(0, n),
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

/// Reads and validates, as `arbor validate` does, a tree that declares `n` keys, with a
/// Sequence of `n` leaves writing them and `n` reading them, every other reader naming a
/// key nobody declares (each a `key-undeclared` and a `key-unwritten` finding).
fn declared_keys(n: usize) -> Box<dyn FnMut()> {
    let keys: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"name": "key_{i}", "type": "text"}}"#))
        .collect();
    let mut nodes =
        vec![r#"{"id": "root", "kind": "Root", "inputs": {"child": ["s"]}}"#.to_owned()];
    let mut kids = Vec::new();
    for i in 0..n {
        kids.push(format!(r#""w{i}""#));
        nodes.push(format!(
            r#"{{"id": "w{i}", "kind": "MockAction", "fields": {{"produces": "x", "out_context": "key_{i}"}}}}"#
        ));
    }
    for i in 0..n {
        let key = if i % 2 == 0 {
            format!("key_{i}")
        } else {
            format!("kye_{i}")
        };
        kids.push(format!(r#""r{i}""#));
        nodes.push(format!(
            r#"{{"id": "r{i}", "kind": "MockAction", "fields": {{"in_context": "{key}"}}}}"#
        ));
    }
    nodes.push(format!(
        r#"{{"id": "s", "kind": "Sequence", "inputs": {{"children": [{}]}}}}"#,
        kids.join(", ")
    ));
    let text = format!(
        r#"{{"format": "arbor.tree", "version": 1, "keys": [{}], "nodes": [{}]}}"#,
        keys.join(", "),
        nodes.join(",\n")
    );
    let catalog = arbor::model::Catalog::builtin();
    Box::new(move || {
        let tree = arbor::io::parse_tree(&text, Path::new("keys.json")).unwrap();
        let found = arbor::model::validate(&tree, &catalog, &arbor::model::NoAssets);
        let undeclared = found
            .iter()
            .filter(|d| d.rule == arbor::model::Rule::KeyUndeclared)
            .count();
        assert_eq!(undeclared, n / 2);
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

/// The editor on a tree, shown live a game of `agents` agents running it whose node
/// library declares `kinds` kinds (sent as a game sends it: on one line), then the tree
/// edited. With `kinds`, the tree holds a tenth as many nodes of the game's kinds and a
/// hundredth as many of kinds it does not declare ([`big_trees::game_tree`]); else it is
/// the mock sketch.
#[cfg(feature = "gui")]
fn live(kinds: usize, agents: usize) -> Box<dyn FnMut()> {
    use arbor::remote::{GameLink, Hello, Listener, SentLibrary};
    let dir = tempfile::tempdir().unwrap();
    let tree = if kinds > 0 {
        let tree = dir.path().join("game.json");
        std::fs::write(&tree, big_trees::game_tree(kinds / 10, kinds / 100)).unwrap();
        tree
    } else {
        sample_in(dir.path(), "mock_sketch.json")
    };
    let names: Vec<(String, std::path::PathBuf)> = (0..agents.max(1))
        .map(|i| (format!("unit-{i}"), tree.clone()))
        .collect();
    let mut hello = Hello::new("crowd", 0.1, 0, &names, std::slice::from_ref(&tree));
    if kinds > 0 {
        hello.libraries.push(SentLibrary {
            name: "big".into(),
            text: big_trees::small_library(kinds),
        });
    }
    let timed = std::env::var_os("ARBOR_WORKLOAD_TIMES").is_some();
    let say = move |what: &str, since: std::time::Instant| {
        if timed {
            eprintln!("{what}: {:.3} s", since.elapsed().as_secs_f64());
        }
    };
    Box::new(move || {
        let _keep = &dir;
        let listener = Listener::local(0).unwrap();
        let link = GameLink::connect_to(&hello, listener.address().clone());
        while listener.games().is_empty() {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let id = listener.games()[0].id;
        let mut app = arbor::editor::EditorApp::open(&tree)
            .unwrap()
            .with_listener(listener);
        let ctx = eframe::egui::Context::default();
        frame(&ctx, &mut app);
        let t = std::time::Instant::now();
        assert!(app.attach(id));
        frame(&ctx, &mut app);
        say("attached and drawn", t);
        for _ in 0..3 {
            let t = std::time::Instant::now();
            edit_and_frame(&ctx, &mut app, "root");
            say("an edit and a frame", t);
        }
        drop(link);
    })
}
