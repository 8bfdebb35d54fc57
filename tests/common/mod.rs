//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod big_trees;
pub mod exercise;
#[cfg(feature = "gui")]
pub mod input;
#[cfg(feature = "groot2")]
pub mod program;
pub mod projects;

use std::path::{Path, PathBuf};

/// The editor in a 1400 × 860 test window with the in-app file chooser, after its
/// first frames.
#[cfg(feature = "gui")]
pub fn harness(
    mut app: arbor::editor::EditorApp,
) -> egui_kittest::Harness<'static, arbor::editor::EditorApp> {
    app.set_chooser(arbor::editor::files::Chooser::InApp);
    let mut h = egui_kittest::Harness::builder()
        .with_size(eframe::egui::vec2(1400.0, 860.0))
        .build_eframe(|_cc| app);
    h.run_steps(4);
    h
}

/// [`harness`], zoomed to 100 % (Ctrl+0), as a person does to read and edit the nodes of
/// a tree that opened whole, as titles only.
#[cfg(feature = "gui")]
pub fn harness_at_100(
    app: arbor::editor::EditorApp,
) -> egui_kittest::Harness<'static, arbor::editor::EditorApp> {
    let mut h = harness(app);
    input::key(
        &mut h,
        eframe::egui::Modifiers::COMMAND,
        eframe::egui::Key::Num0,
    );
    h
}

/// Runs frames until the view has stayed the same for three of them (a tree received or
/// opened is measured and fitted over its first frames), at most 60.
#[cfg(feature = "gui")]
pub fn settled(h: &mut egui_kittest::Harness<'static, arbor::editor::EditorApp>) {
    let mut same = 0;
    for _ in 0..60 {
        let before = h.state().camera();
        h.run_steps(1);
        same = if h.state().camera() == before {
            same + 1
        } else {
            0
        };
        if same >= 3 {
            return;
        }
    }
}

/// Asserts that no two nodes of the tree shown come nearer than `gap` points on the
/// canvas (0: that none overlap); `name` says which tree in a failure.
#[cfg(feature = "gui")]
pub fn none_overlap(
    h: &egui_kittest::Harness<'static, arbor::editor::EditorApp>,
    name: &str,
    gap: f32,
) {
    let rects: Vec<(arbor::model::NodeId, eframe::egui::Rect)> = h
        .state()
        .tree()
        .nodes()
        .iter()
        .map(|n| (n.id.clone(), h.state().screen_rect_of(&n.id).unwrap()))
        .collect();
    for (i, (a, ra)) in rects.iter().enumerate() {
        for (b, rb) in &rects[i + 1..] {
            assert!(
                !ra.expand(gap).intersects(*rb),
                "{name}: {a} {ra:?} and {b} {rb:?} overlap or touch"
            );
        }
    }
}

/// Asserts that every node of the tree shown lies inside the canvas.
#[cfg(feature = "gui")]
pub fn all_in_view(h: &egui_kittest::Harness<'static, arbor::editor::EditorApp>) {
    let canvas = h.state().canvas_rect().unwrap();
    for n in h.state().tree().nodes() {
        let r = h.state().screen_rect_of(&n.id).unwrap();
        assert!(
            canvas.contains_rect(r),
            "{} at {r:?} outside {canvas:?}",
            n.id
        );
    }
}

/// The Python with BehaviorTree.CPP's bindings: the behaviortreepy package that
/// scripts/setup.sh installs into target/btcpp-venv (or the Python `ARBOR_BTCPP_PYTHON`
/// names).
pub fn btcpp_python() -> PathBuf {
    let path = std::env::var_os("ARBOR_BTCPP_PYTHON").map_or_else(
        || repo().join("target/btcpp-venv/bin/python"),
        PathBuf::from,
    );
    assert!(
        path.exists(),
        "{} is missing: run scripts/setup.sh, which installs BehaviorTree.CPP's bindings there",
        path.display()
    );
    path
}

/// sample_trees/mock_sketch.json compiled with the built-in behaviours, as a game would
/// run it.
pub fn mock_sketch() -> std::sync::Arc<arbor::runtime::Program<()>> {
    let tree = arbor::io::load_tree(&repo().join("sample_trees/mock_sketch.json")).unwrap();
    std::sync::Arc::new(
        arbor::runtime::Program::compile(
            &tree,
            &arbor::model::Catalog::builtin(),
            &arbor::model::NoAssets,
            &arbor::runtime::Behaviours::with_builtins(),
        )
        .unwrap(),
    )
}

/// Waits (at most 15 s) until `f` holds.
pub fn until(what: &str, mut f: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !f() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(15),
            "waited 15 s for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The repository's root folder.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.json` file below `dir`, sorted, recursively.
pub fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "json") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The tree files of sample_trees/ (scenario files are skipped by their header).
pub fn sample_trees() -> Vec<PathBuf> {
    json_files(&repo().join("sample_trees"))
        .into_iter()
        .filter(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .contains("\"format\": \"arbor.tree\"")
        })
        .collect()
}

/// `(rule, node)` from a fixture's `expect: RULE on NODE` description.
pub fn expectation(path: &Path) -> (String, String) {
    let tree = arbor::io::load_tree(path).unwrap();
    let (_, rest) = tree
        .description
        .split_once("expect: ")
        .unwrap_or_else(|| panic!("{} has no 'expect:' in its description", path.display()));
    let (rule, node) = rest.trim().split_once(" on ").unwrap();
    (rule.to_owned(), node.to_owned())
}

pub mod reference;
pub mod shapes;

/// A `MockAction` script as the runtime reads it: `R` running, `F` failure, anything else
/// success (for test actions that stand in for `MockAction`).
pub fn mock_script(text: &str) -> Vec<arbor::runtime::Outcome> {
    use arbor::runtime::Outcome;
    text.chars()
        .map(|c| match c {
            'R' => Outcome::Running,
            'F' => Outcome::Failure,
            _ => Outcome::Success,
        })
        .collect()
}

/// Copies bundled sample files into `dir`.
pub fn copy_samples(dir: &Path, files: &[&str]) {
    for f in files {
        std::fs::copy(repo().join("sample_trees").join(f), dir.join(f)).unwrap();
    }
}

/// Makes a FIFO (named pipe) at `path`.
#[cfg(unix)]
pub fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
}

/// A tree alone whose key `mood` (text, default "calm") a leaf sets to "angry" at its
/// second step; the run completes two steps later and the context is cleared.
pub fn moody_tree(dir: &Path) -> PathBuf {
    let path = dir.join("moody.json");
    let text = r#"{
  "format": "arbor.tree",
  "version": 1,
  "keys": [{"name": "mood", "type": "text", "default": "calm"}],
  "nodes": [
    {"id": "root", "kind": "Root", "inputs": {"child": ["seq"]}},
    {"id": "seq", "kind": "Sequence", "inputs": {"children": ["set", "wait"]}},
    {"id": "set", "kind": "MockAction", "title": "Get angry",
     "fields": {"script": "RS", "produces": "angry", "out_context": "mood", "overwrite_out": true}},
    {"id": "wait", "kind": "MockAction", "fields": {"script": "RS"}}
  ]
}"#;
    std::fs::write(&path, text).unwrap();
    path
}
