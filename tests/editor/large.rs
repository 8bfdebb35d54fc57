//! The editor on large trees costs what is shown: a list of thousands of problems lays
//! out the lines in view, and a node of hundreds of children the pins in view. Both are
//! still reached by the input a person uses: the wheel scrolls to the last problem, whose
//! click selects its node; a drag of the canvas brings the last pins into view.

use crate::common;
use crate::support::node_ids;

use std::fmt::Write as _;

use arbor::editor::EditorApp;
use arbor::io::parse_tree;
use arbor::model::NodeId;
use eframe::egui::{self, Event, Modifiers, PointerButton};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};

use common::harness;

/// Root, then a Selector over `children` MockActions, and `loose` MockActions linked to
/// nothing (each an "unreachable" warning); arranged as the editor arranges a file
/// without positions.
fn app(children: usize, loose: usize) -> EditorApp {
    let kids: Vec<String> = (0..children).map(|i| format!("\"c{i}\"")).collect();
    let mut text = format!(
        r#"{{"format": "arbor.tree", "version": 1, "nodes": [
        {{"id": "root", "kind": "Root", "inputs": {{"child": ["top"]}}}},
        {{"id": "top", "kind": "Selector", "inputs": {{"children": [{}]}}}}"#,
        kids.join(", ")
    );
    for i in 0..children {
        let _ = write!(text, r#", {{"id": "c{i}", "kind": "MockAction"}}"#);
    }
    for i in 0..loose {
        let _ = write!(text, r#", {{"id": "l{i}", "kind": "MockAction"}}"#);
    }
    text.push_str("]}");
    let tree = parse_tree(&text, std::path::Path::new("large.json")).unwrap();
    let mut app = EditorApp::new(tree, None);
    app.auto_layout();
    app
}

/// Labels whose text is `prefix` followed by digits only.
fn numbered(h: &Harness<'static, EditorApp>, prefix: &str) -> Vec<usize> {
    h.query_all_by(|n| {
        n.value().is_some_and(|l| {
            l.strip_prefix(prefix)
                .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
        })
    })
    .filter_map(|n| {
        n.accesskit_node()
            .value()?
            .strip_prefix(prefix)?
            .parse()
            .ok()
    })
    .collect()
}

fn drag(h: &mut Harness<'static, EditorApp>, from: egui::Pos2, to: egui::Pos2, b: PointerButton) {
    let button = |at, pressed| Event::PointerButton {
        pos: at,
        button: b,
        pressed,
        modifiers: Modifiers::NONE,
    };
    h.event(Event::PointerMoved(from));
    h.run_steps(1);
    h.event(button(from, true));
    h.run_steps(1);
    for k in 1..=8 {
        h.event(Event::PointerMoved(from + (to - from) * (k as f32 / 8.0)));
        h.run_steps(1);
    }
    h.event(button(to, false));
    h.run_steps(3);
}

#[test]
fn thousands_of_problems_list_the_lines_in_view_and_the_wheel_reaches_the_last() {
    let mut h = harness(app(1, 3000));
    h.get_by_label("Problems (0 errors, 3000 warnings)");
    let first = h.get_by_label_contains("[l0] ");
    assert!(
        h.query_by_label_contains("[l2999] ").is_none(),
        "a line far below the view is laid out"
    );
    let shown = h
        .query_all_by(|n| n.label().is_some_and(|l| l.starts_with("[l")))
        .count();
    assert!(shown < 100, "{shown} problem lines laid out");

    // The wheel over the list scrolls it to the end.
    let over = first.rect().center();
    h.event(Event::PointerMoved(over));
    for _ in 0..400 {
        h.event(Event::MouseWheel {
            unit: egui::MouseWheelUnit::Page,
            delta: egui::vec2(0.0, -1.0),
            modifiers: Modifiers::NONE,
            phase: egui::TouchPhase::Move,
        });
        h.run_steps(1);
        if h.query_by_label_contains("[l2999] ").is_some() {
            break;
        }
    }
    h.get_by_label_contains("[l2999] ").click();
    h.run_steps(3);
    assert_eq!(h.state().selected(), Some(&NodeId::new("l2999")));
}

#[test]
fn a_node_of_hundreds_of_children_lays_out_the_pins_in_view_and_a_drag_brings_the_rest() {
    let mut h = harness(app(400, 0));
    let pins = numbered(&h, "");
    assert!(!pins.is_empty(), "no pin is in view");
    assert!(!pins.contains(&399), "the last pin is laid out out of view");
    assert!(pins.len() < 120, "{} pins laid out", pins.len());
    let top = h.state().screen_rect_of(&NodeId::new("top")).unwrap();
    assert!(
        top.height() > 2000.0,
        "the Selector is {} px high",
        top.height()
    );

    // Dragging the canvas up (a middle drag pans) brings the last pins into view.
    let canvas = h.state().canvas_rect().unwrap();
    for _ in 0..40 {
        if numbered(&h, "").contains(&399) {
            break;
        }
        let from = canvas.center() + egui::vec2(0.0, canvas.height() * 0.4);
        let to = canvas.center() - egui::vec2(0.0, canvas.height() * 0.4);
        drag(&mut h, from, to, PointerButton::Middle);
    }
    let pins = numbered(&h, "");
    assert!(pins.contains(&399), "the last pin is not in view: {pins:?}");
    assert!(pins.len() < 120, "{} pins laid out", pins.len());
    assert!(!pins.contains(&0), "the first pin is still laid out");
}

/// A tree typed by hand, without positions, with a node wider than the estimate (a
/// Sequence shows its `halt_on_failure` in its body).
const TYPED: &str = r#"{
  "format": "arbor.tree",
  "version": 1,
  "nodes": [
    { "id": "root", "kind": "Root", "inputs": { "child": ["duty"] } },
    { "id": "duty", "kind": "Selector", "title": "Duty",
      "inputs": { "children": ["chase", "patrol"] } },
    { "id": "chase", "kind": "Sequence", "title": "Chase",
      "inputs": { "conditions": ["visible"], "children": ["approach", "strike"] } },
    { "id": "visible", "kind": "MockCondition", "title": "Enemy visible?",
      "fields": { "script": "FFFFFFT", "aborts_lower": true } },
    { "id": "approach", "kind": "MockAction", "title": "Approach", "fields": { "script": "RRRS" } },
    { "id": "strike", "kind": "MockAction", "title": "Strike", "fields": { "script": "RS" } },
    { "id": "patrol", "kind": "MockAction", "title": "Patrol", "fields": { "script": "R" } }
  ]
}"#;

#[test]
fn a_file_without_positions_opens_arranged_with_the_sizes_drawn_and_nothing_overlaps() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("typed.json");
    std::fs::write(&file, TYPED).unwrap();
    let mut h = harness(EditorApp::open(&file).unwrap());
    h.run_steps(4);
    assert!(
        !h.state().is_dirty(),
        "arranging a file as it is read is no change"
    );
    let ids = node_ids(&h);
    for (i, a) in ids.iter().enumerate() {
        for b in &ids[i + 1..] {
            let (ra, rb) = (
                h.state().screen_rect_of(a).unwrap(),
                h.state().screen_rect_of(b).unwrap(),
            );
            let overlap = ra.intersect(rb);
            assert!(
                overlap.width() <= 1.0 || overlap.height() <= 1.0,
                "{a} {ra:?} overlaps {b} {rb:?}"
            );
        }
    }
}

#[test]
fn a_change_made_before_the_sizes_settle_is_kept_and_not_arranged_away() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("typed.json");
    std::fs::write(&file, TYPED).unwrap();
    let mut app = EditorApp::open(&file).unwrap();
    let patrol = NodeId::new("patrol");
    assert!(app.apply(arbor::model::Edit::SetPosition {
        id: patrol.clone(),
        position: [900.0, 900.0],
    }));
    let h = harness(app);
    assert_eq!(
        h.state().tree().node(&patrol).unwrap().position,
        [900.0, 900.0]
    );
    assert!(h.state().is_dirty());
}

/// A Selector of 20,000 children, Zoomed to Fit (F): every node either lies in the view
/// with its title at least 9 points high, or is hidden below a collapsed node whose title
/// says how many; the minimap is a map, not a sliver; Collapse / Expand opens it again.
#[test]
fn zoom_to_fit_shows_a_tree_of_20000_nodes_whole_and_legible() {
    let mut h = harness(app(20_000, 0));
    // Everything selected first: what the fit hides is no longer selected.
    common::input::key(&mut h, Modifiers::COMMAND, egui::Key::A);
    common::input::key(&mut h, Modifiers::NONE, egui::Key::F);
    h.run_steps(4);
    assert_eq!(h.state().selection().len(), 2, "Root and the Selector");
    let canvas = h.state().canvas_rect().unwrap();
    let scale = h.state().camera().unwrap().scaling;
    let tree = h.state().tree().clone();
    for n in tree.nodes() {
        if !h.state().is_shown(&n.id) {
            continue;
        }
        let r = h.state().screen_rect_of(&n.id).unwrap();
        assert!(
            canvas.contains_rect(r),
            "{} at {r:?} out of {canvas:?}",
            n.id
        );
    }
    let top = NodeId::new("top");
    assert!(h.state().is_collapsed(&top));
    assert!(!h.state().is_shown(&NodeId::new("c0")));
    // Titles only (far out), at a legible size, the count on the collapsed one.
    let title = h.get_by_label_contains("▶ 20000").rect();
    assert!(title.height() * scale >= 9.0, "{title:?} at {scale}");
    // The minimap of the shown tree keeps a size one can use.
    common::input::key(&mut h, Modifiers::NONE, egui::Key::M);
    h.run_steps(2);
    let map = h.get_by_label("Minimap").rect();
    assert!(map.width() >= 60.0 && map.height() >= 40.0, "{map:?}");
    // Expanded again from its right-click menu (the selection let go first: the command
    // acts on every node selected).
    common::input::key(&mut h, Modifiers::NONE, egui::Key::Escape);
    assert!(h.state().selection().is_empty());
    let at = common::input::on_node(&h, "top");
    common::input::click_at(&mut h, at, PointerButton::Secondary, Modifiers::NONE);
    h.get_by_label("Collapse / Expand Subtree").click();
    h.run_steps(3);
    assert!(!h.state().is_collapsed(&top));
    assert!(h.state().is_shown(&NodeId::new("c19999")));
}

/// Ctrl+A on a tree of 20,000 nodes, then a drag of one of them: every node moves by the
/// drag, as one undo step.
#[test]
fn dragging_a_selection_of_20000_nodes_moves_every_one() {
    let mut h = harness(app(20_000, 0));
    let before = h.state().tree().clone();
    common::input::key(&mut h, Modifiers::COMMAND, egui::Key::A);
    assert_eq!(h.state().selection().len(), 20_002);
    let from = common::input::on_node(&h, "root");
    let by = egui::vec2(-120.0, 80.0);
    drag(&mut h, from, from + by, PointerButton::Primary);
    let scale = h.state().camera().unwrap().scaling;
    let moved = by / scale;
    for (a, b) in before.nodes().iter().zip(h.state().tree().nodes()) {
        let d = egui::vec2(b.position[0] - a.position[0], b.position[1] - a.position[1]);
        assert!(
            (d - moved).length() < 1.0,
            "{} moved {d:?}, not {moved:?}",
            a.id
        );
    }
    common::input::key(&mut h, Modifiers::COMMAND, egui::Key::Z);
    assert_eq!(h.state().tree(), &before, "one undo step");
}
