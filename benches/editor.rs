//! Editor frame time: the whole editor (panels, canvas, validation marks) drawn headless
//! into an egui context for trees of 500, 1,000 and 2,000 nodes. Two cases per size: an
//! idle frame (nothing changed), and a frame after an edit (the title of a node changes:
//! the model is validated again and the canvas rebuilt), which is what a drag or typing
//! costs at most per frame.
//!
//! `cargo bench --bench editor`. The `library` group opens a tree in a project of 500 node
//! library kinds beside one with none, and draws frames while a search is typed in their
//! palette. The `large` group (`cargo bench --bench editor -- large`) opens a file of
//! 100,000 nodes and times it to the first answered click, then its frames. The `btcpp`
//! group (`cargo bench --bench editor -- btcpp`) opens a BehaviorTree.CPP file of 10,000
//! nodes to the first answered click, and saves it.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use eframe::egui;

use arbor::editor::EditorApp;
use arbor::io::parse_tree;
use arbor::model::{Edit, NodeId};

/// A tree of about `n` nodes shaped like a real one: Root, a Selector over areas, each a
/// Selector over guarded Sequences of three actions.
fn tree_text(n: usize) -> String {
    let groups = n.saturating_sub(2) / 5;
    let areas = (groups as f64).sqrt().ceil() as usize;
    let mut nodes =
        vec![r#"{"id": "root", "kind": "Root", "inputs": {"child": ["top"]}}"#.to_owned()];
    let area_ids: Vec<String> = (0..areas).map(|a| format!("\"area{a}\"")).collect();
    nodes.push(format!(
        r#"{{"id": "top", "kind": "Selector", "inputs": {{"children": [{}]}}}}"#,
        area_ids.join(", ")
    ));
    for a in 0..areas {
        let seqs: Vec<String> = (0..groups)
            .filter(|g| g % areas == a)
            .map(|g| format!("\"seq{g}\""))
            .collect();
        nodes.push(format!(
            r#"{{"id": "area{a}", "kind": "Selector", "title": "Area {a}", "inputs": {{"children": [{}]}}}}"#,
            seqs.join(", ")
        ));
    }
    for g in 0..groups {
        nodes.push(format!(
            r#"{{"id": "seq{g}", "kind": "Sequence", "title": "Task {g}", "inputs": {{"conditions": ["ok{g}"], "children": ["a{g}", "b{g}", "c{g}"]}}}}"#
        ));
        nodes.push(format!(
            r#"{{"id": "ok{g}", "kind": "MockCondition", "title": "Allowed?", "fields": {{"script": "TTF"}}}}"#
        ));
        for leaf in ["a", "b", "c"] {
            nodes.push(format!(
                r#"{{"id": "{leaf}{g}", "kind": "MockAction", "title": "Step {leaf}", "fields": {{"script": "RRS"}}}}"#
            ));
        }
    }
    format!(
        r#"{{"format": "arbor.tree", "version": 1, "nodes": [{}]}}"#,
        nodes.join(",\n")
    )
}

fn input(events: Vec<egui::Event>) -> egui::RawInput {
    egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1400.0, 860.0),
        )),
        events,
        ..Default::default()
    }
}

/// One whole frame of the editor. Texture uploads are what a renderer would take; here
/// they are dropped.
fn frame(ctx: &egui::Context, app: &mut EditorApp) {
    frame_with(ctx, app, Vec::new());
}

/// One frame with these input events.
fn frame_with(ctx: &egui::Context, app: &mut EditorApp, events: Vec<egui::Event>) {
    let mut out = ctx.run_ui(input(events), |ui| app.show(ui));
    out.textures_delta.clear();
}

/// The view moved by 20 points (the `k`th frame of a pan, turning back every 10, so the
/// nodes in view stay about the same), then a
/// frame drawn: what a pan costs a frame.
fn pan_and_frame(ctx: &egui::Context, app: &mut EditorApp, k: &mut u64) {
    *k += 1;
    let step = if (*k / 10).is_multiple_of(2) {
        20.0
    } else {
        -20.0
    };
    if let Some(mut camera) = app.camera() {
        camera.translation.y += step;
        app.pin_view(camera);
    }
    frame(ctx, app);
}

/// The title of node `seq0` changed (the `k`th time), then a frame drawn: what each
/// keystroke in the inspector costs.
fn edit_and_frame(ctx: &egui::Context, app: &mut EditorApp, k: &mut u64) {
    *k += 1;
    app.apply(Edit::SetTitle {
        id: NodeId::new("seq0"),
        title: format!("Task {k}"),
    });
    frame(ctx, app);
}

fn editor(n: usize) -> (egui::Context, EditorApp) {
    let tree = parse_tree(&tree_text(n), std::path::Path::new("bench.json")).expect("bench tree");
    let mut app = EditorApp::new(tree, None);
    app.auto_layout();
    let ctx = egui::Context::default();
    // Settle: fit the view, lay out fonts and nodes.
    for _ in 0..3 {
        frame(&ctx, &mut app);
    }
    (ctx, app)
}

fn frames(c: &mut Criterion) {
    let mut group = c.benchmark_group("editor_frame");
    group.sample_size(20);
    for n in [500, 1000, 2000, 10_000] {
        let (ctx, mut app) = editor(n);
        assert!(app.tree().len() + 10 >= n, "{} nodes", app.tree().len());
        assert!(app.diagnostics().iter().all(|d| !d.is_error()));
        group.bench_function(format!("idle/{n}"), |b| b.iter(|| frame(&ctx, &mut app)));
        // Panning: the view moves 20 points a frame, back and forth over the tree.
        let mut k = 0u64;
        group.bench_function(format!("pan/{n}"), |b| {
            b.iter(|| pan_and_frame(&ctx, &mut app, &mut k))
        });
        let mut k = 0u64;
        group.bench_function(format!("after_edit/{n}"), |b| {
            b.iter(|| edit_and_frame(&ctx, &mut app, &mut k))
        });
    }
    group.finish();
}

/// The droid arena scaled to `n` agents on a larger map of the same pattern, written
/// beside a copy of its tree in `dir`; returns the tree's path.
fn crowded_arena(dir: &std::path::Path, n: usize) -> std::path::PathBuf {
    let (w, h) = (60usize, 36usize);
    let map: Vec<String> = (0..h)
        .map(|y| {
            (0..w)
                .map(|x| {
                    let border = x == 0 || y == 0 || x == w - 1 || y == h - 1;
                    let pillar = x % 10 >= 5 && x % 10 <= 6 && y % 8 >= 3 && y % 8 <= 4;
                    if border || pillar { '#' } else { '.' }
                })
                .collect()
        })
        .collect();
    let teams = ["red", "blue", "green", "yellow", "purple"];
    // Spread over the free tiles, one agent a tile.
    let free: Vec<(usize, usize)> = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .filter(|&(x, y)| map[y].as_bytes()[x] == b'.')
        .collect();
    let stride = free.len() / n;
    let agents: Vec<String> = (0..n)
        .map(|i| {
            let (x, y) = free[i * stride];
            format!(
                r#"{{"kind": "agent", "name": "droid{i}", "at": [{x}, {y}], "team": "{}", "health": {}, "damage": 8, "range": 1.5, "speed": 2.0, "tree": "droid_arena.json"}}"#,
                teams[i % 5],
                40 + (i % 7) * 15
            )
        })
        .collect();
    let scenario = format!(
        r#"{{"format": "arbor.scenario", "version": 1, "map": {}, "entities": [{}]}}"#,
        serde_json::to_string(&map).unwrap(),
        agents.join(",\n")
    );
    let tree = dir.join("droid_arena.json");
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_trees");
    std::fs::copy(samples.join("droid_arena.json"), &tree).unwrap();
    std::fs::write(dir.join("droid_arena.scenario.json"), scenario).unwrap();
    tree
}

/// The editor running the droid arena scaled to 100 agents at 60 steps a second: each
/// frame is a 60th of a second later, so each frame takes one step and draws it.
fn debugger(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let tree = crowded_arena(dir.path(), 100);
    let mut app = EditorApp::open(&tree).unwrap();
    let panel = app.simulation_mut().unwrap();
    let agents = panel.sim().map(|s| s.agents().count());
    assert_eq!(agents, Some(100), "{:?}", panel.error());
    panel.set_speed(60.0);
    panel.set_running(true);
    let ctx = egui::Context::default();
    let mut t = 0.0;
    let mut frame_at = |app: &mut EditorApp| {
        t += 1.0 / 60.0;
        let mut raw = input(Vec::new());
        raw.time = Some(t);
        let mut out = ctx.run_ui(raw, |ui| app.show(ui));
        out.textures_delta.clear();
    };
    for _ in 0..30 {
        frame_at(&mut app);
    }
    // One step a frame.
    let steps = app.simulation().unwrap().step_number();
    assert!((29..=30).contains(&steps), "{steps} steps in 30 frames");
    let mut group = c.benchmark_group("debugger_frame");
    group.sample_size(30);
    group.bench_function("100_agents_at_60_steps_a_second", |b| {
        b.iter(|| frame_at(&mut app))
    });
    group.finish();
}

/// A project of `n` library kinds (leaves and conditions in 20 groups, three fields each)
/// beside a copy of the droid arena's tree, in `dir`; returns the tree's path.
fn big_library(dir: &std::path::Path, n: usize) -> std::path::PathBuf {
    let kinds: Vec<String> = (0..n)
        .map(|i| {
            let category = if i % 4 == 0 { "condition" } else { "leaf" };
            format!(
                r#"{{"kind": "GameKind{i}", "category": "{category}", "group": "Group {}", "doc": "Kind {i} of the game.", "fields": [
                {{"name": "mode", "type": "enum", "values": ["a", "b", "c"], "default": "a"}},
                {{"name": "count", "type": "int", "default": 3, "min": 1, "max": 10}},
                {{"name": "speed", "type": "float", "default": 0.5, "min": 0.0, "unit": "m/s"}}]}}"#,
                i % 20
            )
        })
        .collect();
    std::fs::write(
        dir.join("game.nodes.json"),
        format!(
            r#"{{"format": "arbor.nodes", "version": 1, "library": "game", "kinds": [{}]}}"#,
            kinds.join(",\n")
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("arbor.project.json"),
        r#"{"format": "arbor.project", "version": 1, "nodes": ["game.nodes.json"]}"#,
    )
    .unwrap();
    let tree = dir.join("droid_arena.json");
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_trees");
    std::fs::copy(samples.join("droid_arena.json"), &tree).unwrap();
    tree
}

/// Opening a tree in a project of 500 library kinds against opening it with none, side
/// by side; and a frame of the editor while a search is typed in the palette of those
/// 500 kinds.
fn library(c: &mut Criterion) {
    let plain = tempfile::tempdir().unwrap();
    let plain_tree = plain.path().join("droid_arena.json");
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_trees/droid_arena.json"),
        &plain_tree,
    )
    .unwrap();
    let game = tempfile::tempdir().unwrap();
    let game_tree = big_library(game.path(), 500);
    let app = EditorApp::open(&game_tree).unwrap();
    assert!(app.catalog().kind("GameKind499").is_some());
    assert!(app.project_problems().is_empty());
    let mut group = c.benchmark_group("library");
    group.sample_size(20);
    group.bench_function("open/no_project", |b| {
        b.iter(|| EditorApp::open(&plain_tree).unwrap())
    });
    group.bench_function("open/500_library_kinds", |b| {
        b.iter(|| EditorApp::open(&game_tree).unwrap())
    });
    let mut app = app;
    let ctx = egui::Context::default();
    for _ in 0..3 {
        frame(&ctx, &mut app);
    }
    let typed = [
        "g",
        "ga",
        "gam",
        "game",
        "gamek",
        "gamekind",
        "gamekind4",
        "gamekind49",
    ];
    let mut k = 0;
    group.bench_function("palette_search_frame/500_library_kinds", |b| {
        b.iter(|| {
            k += 1;
            app.set_palette_filter(typed[k % typed.len()]);
            frame(&ctx, &mut app);
        })
    });
    group.finish();
}

/// A tree of 100,000 nodes as a file without positions: opened, arranged, drawn, and
/// clicked on. `open_to_answered_click` is from reading the file to the frame in which a
/// click on a node has selected it (the first frames fit the view and lay out what is
/// shown); `idle_frame` and `frame_after_edit` are then drawn at that size. Memory: the
/// peak resident size after the first opening is printed (the smaller groups before it
/// included).
/// The editor opened on `file`, its view fitted, and a click on Root answered (Root
/// selected): what a user waits for before the tree is theirs.
fn open_to_answered_click(file: &std::path::Path) -> (egui::Context, EditorApp) {
    let mut app = EditorApp::open(file).unwrap();
    let ctx = egui::Context::default();
    // The first frame fits the view; the second fits it again with the sizes drawn.
    frame(&ctx, &mut app);
    frame(&ctx, &mut app);
    let root = NodeId::new("root");
    let at = app.screen_centre_of(&root).expect("the node is placed");
    let button = |pressed| egui::Event::PointerButton {
        pos: at,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    };
    frame_with(&ctx, &mut app, vec![egui::Event::PointerMoved(at)]);
    frame_with(&ctx, &mut app, vec![button(true)]);
    frame_with(&ctx, &mut app, vec![button(false)]);
    assert_eq!(app.selected(), Some(&root));
    (ctx, app)
}

fn large(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("large.json");
    std::fs::write(&file, tree_text(100_000)).unwrap();
    let open_and_click = || open_to_answered_click(&file);
    let (ctx, mut app) = open_and_click();
    assert!(app.tree().len() >= 100_000, "{} nodes", app.tree().len());
    let peak = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM"))
                .map(str::to_owned)
        });
    if let Some(peak) = peak {
        eprintln!("large: peak resident memory after opening it once: {peak}");
    }
    let mut group = c.benchmark_group("large");
    group.sample_size(10);
    group.bench_function("open_to_answered_click/100000", |b| {
        b.iter_with_large_drop(open_and_click)
    });
    group.bench_function("idle_frame/100000", |b| b.iter(|| frame(&ctx, &mut app)));
    let mut k = 0u64;
    group.bench_function("frame_after_edit/100000", |b| {
        b.iter(|| edit_and_frame(&ctx, &mut app, &mut k))
    });
    group.finish();
}

/// A BehaviorTree.CPP file of about `n` nodes shaped like Nav2's: a Fallback over
/// Sequences, each of a condition, two actions of the file's own with ports (`{key}`s and
/// values) and a Repeat over one.
fn xml_text(n: usize) -> String {
    let groups = n.saturating_sub(3).div_ceil(5);
    let mut out = String::from(
        "<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n  <BehaviorTree ID=\"Main\">\n    <Fallback name=\"tasks\">\n",
    );
    for g in 0..groups {
        out.push_str(&format!(
            "      <Sequence name=\"Task {g}\">\n        <IsBatteryLow min_battery=\"0.{g}\"/>\n        <ComputePathToPose goal=\"{{goal}}\" path=\"{{path}}\" planner_id=\"GridBased\" _uid=\"{g}\"/>\n        <Repeat num_cycles=\"3\">\n          <FollowPath path=\"{{path}}\" controller_id=\"FollowPath\"/>\n        </Repeat>\n      </Sequence>\n"
        ));
    }
    out.push_str("    </Fallback>\n  </BehaviorTree>\n</root>\n");
    out
}

/// A BehaviorTree.CPP file of 10,000 nodes opened to the first answered click, and saved
/// (written into its document, read back to check, written to disk).
fn xml(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.xml");
    std::fs::write(&file, xml_text(10_000)).unwrap();
    let open_and_click = || open_to_answered_click(&file).1;
    let app = open_and_click();
    assert!(app.tree().len() >= 10_000, "{} nodes", app.tree().len());
    let (tree, _, kept) = arbor::io::load_tree_kept(&file).unwrap();
    let mut group = c.benchmark_group("btcpp");
    group.sample_size(10);
    group.bench_function("open_to_answered_click/10000", |b| {
        b.iter_with_large_drop(open_and_click)
    });
    group.bench_function("save/10000", |b| {
        b.iter(|| arbor::io::save_tree_kept(&file, &tree, &kept).unwrap())
    });
    group.finish();
}

criterion_group!(benches, frames, debugger, library, large, xml);
criterion_main!(benches);
