//! Editing on the canvas through the input a person uses: selecting (clicks, a box, Ctrl+A),
//! dragging, Cut / Copy / Paste, the node menu, panning and zooming, fit and arrange, a wire
//! dropped on empty canvas, Find, the minimap and renaming in the inspector.

use crate::common;
use crate::support::*;

use arbor::editor::{Command, EditorApp, READABLE_ZOOM};
use arbor::model::{NodeId, Port};
use eframe::egui::{self, Event, Key, KeyboardShortcut, Modifiers, PointerButton, Pos2};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use common::input::{click_at, copied, drag, empty_spot, key, on_node, press};
use common::{all_in_view, harness};

#[test]
fn a_click_selects_shift_click_adds_ctrl_click_toggles_and_esc_or_empty_canvas_clears() {
    let mut h = harness(EditorApp::sample());
    h.state_mut().focus(&NodeId::new("attack"));
    h.state_mut().select(None);
    h.run_steps(3);
    let p = on_node(&h, "attack");
    click_at(&mut h, p, PointerButton::Primary, Modifiers::NONE);
    assert_eq!(h.state().selection(), ids(&["attack"]));
    // The inspector shows it.
    h.get_by_label("Attack a weaker droid");
    h.get_by_role_and_label(Role::Button, "Remove node");
    let p = on_node(&h, "choose");
    click_at(&mut h, p, PointerButton::Primary, Modifiers::SHIFT);
    assert_eq!(h.state().selection(), ids(&["attack", "choose"]));
    let p = on_node(&h, "attack");
    click_at(&mut h, p, PointerButton::Primary, Modifiers::COMMAND);
    assert_eq!(h.state().selection(), ids(&["choose"]));
    key(&mut h, Modifiers::NONE, Key::Escape);
    assert!(h.state().selection().is_empty());
    key(&mut h, Modifiers::COMMAND, Key::A);
    assert_eq!(h.state().selection().len(), h.state().tree().len());
    let p = empty_spot(&h);
    click_at(&mut h, p, PointerButton::Primary, Modifiers::NONE);
    assert!(h.state().selection().is_empty());
}

#[test]
fn a_box_around_three_nodes_then_delete_removes_them_in_one_undo_step() {
    let mut h = harness(five_waits());
    let before = h.state().tree().clone();
    let row = ["wait", "wait_2", "wait_3"];
    // Around the top row only, from empty canvas.
    let top = h.state().screen_rect_of(&NodeId::new("wait")).unwrap();
    let right = h.state().screen_rect_of(&NodeId::new("wait_3")).unwrap();
    drag(
        &mut h,
        top.left_top() - egui::vec2(20.0, 20.0),
        right.right_bottom() + egui::vec2(20.0, 20.0),
        PointerButton::Primary,
        Modifiers::NONE,
    );
    assert_eq!(h.state().selection(), ids(&row));
    assert_eq!(h.state().tree(), &before, "a box moves nothing");
    key(&mut h, Modifiers::NONE, Key::Delete);
    assert_eq!(h.state().tree().len(), 2);
    assert!(
        row.iter()
            .all(|r| !h.state().tree().contains(&NodeId::new(*r)))
    );
    key(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(h.state().tree(), &before);
    // Backspace deletes too.
    let p = on_node(&h, "wait_4");
    click_at(&mut h, p, PointerButton::Primary, Modifiers::NONE);
    key(&mut h, Modifiers::NONE, Key::Backspace);
    assert_eq!(h.state().tree().len(), 4);
}

#[test]
fn dragging_a_selected_node_moves_the_whole_selection_in_one_undo_step() {
    let mut h = harness(five_waits());
    let before = h.state().tree().clone();
    let p = on_node(&h, "wait");
    click_at(&mut h, p, PointerButton::Primary, Modifiers::NONE);
    let p = on_node(&h, "wait_2");
    click_at(&mut h, p, PointerButton::Primary, Modifiers::SHIFT);
    let from = on_node(&h, "wait_2");
    drag(
        &mut h,
        from,
        from + egui::vec2(50.0, 30.0),
        PointerButton::Primary,
        Modifiers::NONE,
    );
    let pos = |h: &Harness<'static, EditorApp>, id: &str| {
        h.state().tree().node(&NodeId::new(id)).unwrap().position
    };
    assert_eq!(pos(&h, "wait"), [50.0, 30.0]);
    assert_eq!(pos(&h, "wait_2"), [350.0, 30.0]);
    assert_eq!(pos(&h, "wait_3"), [600.0, 0.0], "not selected, not moved");
    key(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(h.state().tree(), &before);
}

#[test]
fn copy_then_paste_in_another_window_gives_new_ids_at_the_pointer_with_inner_links() {
    let source = EditorApp::open(&common::repo().join("sample_trees/door_room.json")).unwrap();
    let mut a = harness(source);
    // Select the door's Selector and its two children with a click and two shift-clicks.
    a.state_mut().focus(&NodeId::new("open_if_closed"));
    a.state_mut().select(None);
    a.run_steps(3);
    for (id, m) in [
        ("open_if_closed", Modifiers::NONE),
        ("is_open", Modifiers::SHIFT),
        ("open", Modifiers::SHIFT),
    ] {
        let p = on_node(&a, id);
        click_at(&mut a, p, PointerButton::Primary, m);
    }
    assert_eq!(a.state().selection().len(), 3);
    key(&mut a, Modifiers::COMMAND, Key::C);
    let text = copied(&a).expect("Ctrl+C put the nodes on the clipboard");
    // The other copy of the app.
    let mut b = harness(EditorApp::sample());
    let n = b.state().tree().len();
    let at = empty_spot(&b);
    b.event(Event::PointerMoved(at));
    b.run_steps(1);
    press(
        &mut b,
        KeyboardShortcut::new(Modifiers::COMMAND, Key::V),
        &text,
    );
    assert_eq!(b.state().tree().len(), n + 3);
    let pasted = b.state().selection().to_vec();
    assert_eq!(pasted.len(), 3);
    let original = a.state().tree();
    assert!(
        pasted
            .iter()
            .all(|id| !original.contains(id) || !EditorApp::sample().tree().contains(id))
    );
    let selector = b.state().tree().node(&pasted[0]).unwrap().clone();
    assert_eq!(selector.kind, "Selector");
    assert_eq!(
        selector.linked(Port::Children),
        &pasted[1..],
        "inner links kept"
    );
    let open = b.state().tree().node(&pasted[2]).unwrap();
    assert_eq!(
        open.fields.get("max_duration"),
        Some(&arbor::model::Value::Float(3.0))
    );
    // The top-left of what was pasted is at the pointer.
    let corner = pasted
        .iter()
        .map(|id| b.state().tree().node(id).unwrap().position)
        .fold([f32::MAX, f32::MAX], |c, p| {
            [c[0].min(p[0]), c[1].min(p[1])]
        });
    let g = b.state().camera().unwrap().inverse() * at;
    assert!(
        (corner[0] - g.x).abs() < 1.0 && (corner[1] - g.y).abs() < 1.0,
        "{corner:?} vs {g:?}"
    );
    // Garbage on the clipboard changes nothing and says why.
    press(
        &mut b,
        KeyboardShortcut::new(Modifiers::COMMAND, Key::V),
        "not a tree",
    );
    assert_eq!(b.state().tree().len(), n + 3);
    assert!(
        b.state().status().starts_with("Nothing to paste"),
        "{}",
        b.state().status()
    );
}

#[test]
fn select_all_then_duplicate_doubles_the_nodes_and_one_undo_takes_them_away() {
    let mut h = harness(EditorApp::sample());
    let before = h.state().tree().clone();
    key(&mut h, Modifiers::COMMAND, Key::A);
    key(&mut h, Modifiers::COMMAND, Key::D);
    let tree = h.state().tree();
    assert_eq!(tree.len(), 2 * before.len());
    let copies = h.state().selection().to_vec();
    assert!(
        copies.iter().all(|id| !before.contains(id)),
        "ids are re-issued"
    );
    // The copy's Root holds the copy's Selector, not the original.
    let root_copy = copies
        .iter()
        .find(|id| tree.node(id).unwrap().kind == "Root")
        .unwrap();
    let child = &tree.node(root_copy).unwrap().linked(Port::Child)[0];
    assert!(copies.contains(child));
    key(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(h.state().tree(), &before);
}

#[test]
fn cut_takes_the_selection_to_the_clipboard_and_paste_brings_it_back() {
    let mut h = harness(five_waits());
    let p = on_node(&h, "wait_5");
    click_at(&mut h, p, PointerButton::Primary, Modifiers::NONE);
    key(&mut h, Modifiers::COMMAND, Key::X);
    assert_eq!(h.state().tree().len(), 4);
    let text = copied(&h).unwrap();
    assert!(text.contains("wait_5"));
    press(
        &mut h,
        KeyboardShortcut::new(Modifiers::COMMAND, Key::V),
        &text,
    );
    assert_eq!(h.state().tree().len(), 5);
}

#[test]
fn the_node_menu_disconnects_selects_the_subtree_and_collapses_it() {
    let mut h = harness(EditorApp::sample());
    // At 100 % (the sample opens whole, titles only), where a node shows what it hides.
    key(&mut h, Modifiers::COMMAND, Key::Num0);
    h.state_mut().focus(&NodeId::new("flee"));
    h.state_mut().select(None);
    h.run_steps(3);
    let menu = |h: &mut Harness<'static, EditorApp>, id: &str, item: &str| {
        let p = on_node(h, id);
        click_at(h, p, PointerButton::Secondary, Modifiers::NONE);
        h.get_by_role_and_label(Role::Button, item).click();
        h.run_steps(3);
    };
    // A composite's menu offers no Open SubTree (it opens a SubTree's tree only).
    let p = on_node(&h, "flee");
    click_at(&mut h, p, PointerButton::Secondary, Modifiers::NONE);
    assert!(h.query_by_label_contains("Open SubTree").is_none());
    h.get_by_role_and_label(Role::Button, "Select Subtree")
        .click();
    h.run_steps(3);
    let mut got = h.state().selection().to_vec();
    got.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    assert_eq!(got, ids(&["find_threat", "flee", "run"]));
    menu(&mut h, "flee", "Collapse / Expand Subtree");
    assert!(h.state().is_collapsed(&NodeId::new("flee")));
    assert!(!h.state().is_shown(&NodeId::new("run")));
    h.get_by_label("▶ 2 hidden below");
    menu(&mut h, "flee", "Collapse / Expand Subtree");
    assert!(h.state().is_shown(&NodeId::new("run")));
    menu(&mut h, "flee", "Disconnect");
    assert!(h.state().tree().parent_of(&NodeId::new("flee")).is_none());
    // The inspector's parent line follows the link, through undo and redo.
    h.state_mut().select(Some(NodeId::new("flee")));
    h.run_steps(2);
    assert!(h.query_by_label_contains("linked)").is_none());
    key(&mut h, Modifiers::COMMAND, Key::Z);
    let parent = h.state().tree().parent_of(&NodeId::new("flee")).unwrap();
    h.get_by_label_contains(&format!("of {}.{}", parent.parent, parent.port));
    key(&mut h, Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    assert!(h.query_by_label_contains("linked)").is_none());
    key(&mut h, Modifiers::COMMAND, Key::Z);
    h.get_by_label_contains(&format!("of {}.{}", parent.parent, parent.port));
    menu(&mut h, "flee", "Duplicate Ctrl+D");
    assert_eq!(h.state().tree().len(), 12);
}

#[test]
fn middle_right_and_space_drags_pan_and_the_wheel_zooms_around_the_pointer() {
    let mut h = harness(five_waits());
    let before = h.state().tree().clone();
    let start = h.state().camera().unwrap();
    let from = empty_spot(&h);
    for button in [PointerButton::Middle, PointerButton::Secondary] {
        let was = h.state().camera().unwrap().translation;
        drag(
            &mut h,
            from,
            from + egui::vec2(80.0, 40.0),
            button,
            Modifiers::NONE,
        );
        let now = h.state().camera().unwrap().translation;
        assert!(
            ((now - was) - egui::vec2(80.0, 40.0)).length() < 1.0,
            "{button:?}: {was:?} -> {now:?}"
        );
    }
    // Space and a left drag, even starting on a node, pans and moves nothing.
    let was = h.state().camera().unwrap().translation;
    h.key_down(Key::Space);
    let on = on_node(&h, "wait");
    drag(
        &mut h,
        on,
        on + egui::vec2(-60.0, 20.0),
        PointerButton::Primary,
        Modifiers::NONE,
    );
    h.key_up(Key::Space);
    h.run_steps(2);
    let now = h.state().camera().unwrap().translation;
    assert!(
        ((now - was) - egui::vec2(-60.0, 20.0)).length() < 1.0,
        "{was:?} -> {now:?}"
    );
    assert_eq!(h.state().tree(), &before);
    assert!(
        !h.state().commands_run().contains(&Command::SimRunPause),
        "a Space that panned does not run the simulation"
    );
    // The wheel zooms in around the pointer: the graph point under it stays.
    let at = empty_spot(&h);
    h.event(Event::PointerMoved(at));
    h.run_steps(1);
    let under = h.state().camera().unwrap().inverse() * at;
    h.event(Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, 120.0),
        modifiers: Modifiers::NONE,
        phase: egui::TouchPhase::Move,
    });
    h.run_steps(12);
    let camera = h.state().camera().unwrap();
    assert!(
        camera.scaling > start.scaling * 1.1,
        "{} -> {}",
        start.scaling,
        camera.scaling
    );
    let still = camera.inverse() * at;
    assert!((still - under).length() < 1.0, "{under:?} -> {still:?}");
}

/// The sample trees, by name.
const SAMPLE_TREES: [&str; 7] = [
    "chase_flee",
    "door_room",
    "droid_arena",
    "guard_patrol",
    "hungry_agent",
    "mock_sketch",
    "pass_receive",
];

#[test]
fn f_fits_every_sample_tree_in_the_window() {
    for name in SAMPLE_TREES {
        let app =
            EditorApp::open(&common::repo().join(format!("sample_trees/{name}.json"))).unwrap();
        let mut h = egui_kittest::Harness::builder()
            .with_size(egui::vec2(1600.0, 1000.0))
            .build_eframe(|_cc| app);
        h.run_steps(4);
        key(&mut h, Modifiers::NONE, Key::F);
        h.run_steps(3);
        all_in_view(&h);
    }
}

#[test]
fn zoom_keys_step_the_zoom_and_f_fits_every_node() {
    let app = EditorApp::open(&common::repo().join("sample_trees/door_room.json")).unwrap();
    let mut h = harness(app);
    let scale = |h: &Harness<'static, EditorApp>| h.state().camera().unwrap().scaling;
    key(&mut h, Modifiers::COMMAND, Key::Num0);
    assert!((scale(&h) - 1.0).abs() < 1e-4);
    key(&mut h, Modifiers::COMMAND, Key::Equals);
    assert!((scale(&h) - 1.25).abs() < 1e-3);
    key(&mut h, Modifiers::COMMAND, Key::Minus);
    key(&mut h, Modifiers::COMMAND, Key::Minus);
    key(&mut h, Modifiers::COMMAND, Key::Minus);
    assert!(scale(&h) < 0.7);
    // F shows a tree that fits at a readable size whole.
    let mut small = EditorApp::new(arbor::model::Tree::new(), None);
    for at in [[0.0, 0.0], [300.0, 0.0], [0.0, 300.0]] {
        small.add_node("Wait", at).unwrap();
    }
    small.pin_view(egui::emath::TSTransform::from_scaling(0.3));
    let mut s = harness(small);
    key(&mut s, Modifiers::NONE, Key::F);
    s.run_steps(2);
    assert!(scale(&s) >= READABLE_ZOOM - 1e-4, "{}", scale(&s));
    let canvas = s.state().canvas_rect().unwrap();
    for n in s.state().tree().nodes() {
        let r = s.state().screen_rect_of(&n.id).unwrap();
        assert!(
            canvas.contains_rect(r),
            "{} at {r:?} outside {canvas:?}",
            n.id
        );
    }
    // A tree too large for that is shown whole all the same, its nodes as their titles.
    key(&mut h, Modifiers::NONE, Key::F);
    h.run_steps(2);
    assert!(scale(&h) < READABLE_ZOOM, "{}", scale(&h));
    all_in_view(&h);
    // Shift+F shows the selection.
    h.state_mut().select(Some(NodeId::new("rest")));
    key(&mut h, Modifiers::SHIFT, Key::F);
    // (From titles only back to whole nodes: centred again with the sizes drawn.)
    h.run_steps(4);
    let canvas = h.state().canvas_rect().unwrap();
    let r = h.state().screen_rect_of(&NodeId::new("rest")).unwrap();
    assert!(
        (r.center() - canvas.center()).length() < 2.0,
        "{r:?} in {canvas:?}"
    );
}

/// Nodes added where the view does not show them (never drawn whole: their sizes are
/// guesses), then one Ctrl+L: no two nodes overlap, and one undo puts them all back.
#[test]
fn the_first_arrange_after_adding_nodes_out_of_view_overlaps_nothing() {
    let mut h = harness(EditorApp::sample());
    // Far out: nodes show their titles only, so a node added is never drawn whole.
    for _ in 0..6 {
        key(&mut h, Modifiers::COMMAND, Key::Minus);
    }
    let before = h.state().tree().clone();
    let choose = NodeId::new("choose");
    let mut added = Vec::new();
    for (i, kind) in ["Parallel", "Repeater", "Wait"].iter().enumerate() {
        let id = h
            .state_mut()
            .add_node(kind, [-3000.0, 2000.0 + 400.0 * i as f32])
            .unwrap();
        added.push(id);
    }
    // A Parallel with the Repeater below it, and a Wait below that: tall bodies.
    assert!(h.state_mut().link(&added[0], &choose, Port::Children, 0));
    assert!(h.state_mut().link(&added[1], &added[0], Port::Children, 0));
    assert!(h.state_mut().link(&added[2], &added[1], Port::Child, 0));
    h.state_mut().select(None);
    h.run_steps(3);
    let arranged = h.state().tree().clone();
    key(&mut h, Modifiers::COMMAND, Key::L);
    h.run_steps(12);
    // Every node at 100 %, each drawn whole: none overlaps another.
    key(&mut h, Modifiers::COMMAND, Key::Num0);
    h.run_steps(6);
    common::none_overlap(&h, "sample", 0.0);
    key(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(h.state().tree(), &arranged, "one undo step");
    assert_ne!(h.state().tree(), &before);
}

#[test]
fn arrange_is_one_key_and_one_undo_step() {
    let mut h = harness(five_waits());
    let before = h.state().tree().clone();
    key(&mut h, Modifiers::COMMAND, Key::L);
    assert_ne!(h.state().tree(), &before);
    key(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(h.state().tree(), &before);
}

#[test]
fn every_sample_opens_whole_or_readable_with_root_in_view_no_title_cut_short_and_no_nodes_touching()
{
    for name in SAMPLE_TREES {
        let app =
            EditorApp::open(&common::repo().join(format!("sample_trees/{name}.json"))).unwrap();
        let h = harness(app);
        let scale = h.state().camera().unwrap().scaling;
        let canvas = h.state().canvas_rect().unwrap();
        // Zoomed out past the readable size only to show the whole tree, titles only at a
        // legible size: a tree that does not fit so opens readable.
        if scale < READABLE_ZOOM - 1e-4 {
            assert!(scale >= 0.5 - 1e-4, "{name}: {scale}");
            for n in h.state().tree().nodes() {
                let r = h.state().screen_rect_of(&n.id).unwrap();
                assert!(
                    canvas.contains_rect(r),
                    "{name}: {} at {r:?}, canvas {canvas:?}",
                    n.id
                );
                // Its title is legible (drawn in graph units: the tallest label so named).
                if !n.title.is_empty() {
                    let tallest = h
                        .query_all_by_label(&n.title)
                        .map(|t| t.rect().height())
                        .fold(0.0, f32::max);
                    assert!(tallest * scale >= 12.0, "{name}: {} title {tallest}", n.id);
                }
            }
        }
        let root = &h
            .state()
            .tree()
            .nodes()
            .iter()
            .find(|n| n.kind == "Root")
            .unwrap()
            .id;
        let r = h.state().screen_rect_of(root).unwrap();
        assert!(
            canvas.contains_rect(r),
            "{name}: Root at {r:?}, canvas {canvas:?}"
        );
        // No title is cut short: each title is drawn at its full width, inside its node
        // (at the readable zoom: below it, a title takes the room its node has whole).
        let readable = scale >= READABLE_ZOOM - 1e-4;
        let camera = h.state().camera().unwrap();
        let full = |title: &str| {
            h.ctx.fonts_mut(|f| {
                f.layout_no_wrap(
                    title.to_owned(),
                    egui::FontId::proportional(arbor::editor::SMALL_TEXT + 3.0),
                    egui::Color32::WHITE,
                )
                .size()
                .x
            })
        };
        for n in h.state().tree().nodes() {
            if n.title.is_empty() || !h.state().is_shown(&n.id) || !readable {
                continue;
            }
            let node = h.state().screen_rect_of(&n.id).unwrap();
            if !canvas.intersects(node) {
                // Out of view: far enough out, it is not drawn at all.
                continue;
            }
            let width = full(&n.title);
            let inside = h.query_all_by_label(&n.title).any(|t| {
                let b = t.rect();
                if b.width() + 0.5 < width {
                    return false;
                }
                let text = egui::Rect::from_min_max(camera.mul_pos(b.min), camera.mul_pos(b.max));
                node.contains_rect(text)
            });
            assert!(inside, "{name}: title of {} cut short in {node:?}", n.id);
        }
        // No two nodes overlap or touch.
        let rects: Vec<(&NodeId, egui::Rect)> = h
            .state()
            .tree()
            .nodes()
            .iter()
            .filter_map(|n| Some((&n.id, h.state().screen_rect_of(&n.id)?)))
            // (Those in view: far out of it, nodes are not drawn, and their size is a guess.)
            .filter(|(_, r)| canvas.intersects(*r))
            .collect();
        for (i, (a, ra)) in rects.iter().enumerate() {
            for (b, rb) in &rects[i + 1..] {
                assert!(
                    !ra.expand(4.0).intersects(*rb),
                    "{name}: {a} and {b} touch: {ra:?} {rb:?} at {scale}"
                );
            }
        }
    }
}

/// The screen point of a node's input pin whose label reads `label`.
fn pin_of(h: &Harness<'static, EditorApp>, node: &str, label: &str) -> Pos2 {
    let rect = h.state().screen_rect_of(&NodeId::new(node)).unwrap();
    let camera = h.state().camera().unwrap();
    // The label's bounds are in graph space (the canvas draws in a transformed layer); the
    // pin is drawn inside the node's frame, between its edge and the label.
    let bounds = h.get_by_label(label).rect();
    let label = camera.mul_pos(bounds.left_center());
    Pos2::new((rect.left() + label.x) / 2.0, label.y)
}

/// A new tree of a Sequence with a Wait as its child, in a view that shows both.
fn a_sequence_with_a_wait() -> (Harness<'static, EditorApp>, NodeId, NodeId) {
    let mut app = EditorApp::new(arbor::model::Tree::new(), None);
    let seq = app.add_node("Sequence", [600.0, 0.0]).unwrap();
    let wait = app.add_node("Wait", [300.0, 0.0]).unwrap();
    assert!(app.link(&wait, &seq, Port::Children, 0));
    app.select(None);
    app.pin_view(pinned());
    (harness(app), seq, wait)
}

/// The view [`a_sequence_with_a_wait`] starts with.
fn pinned() -> egui::emath::TSTransform {
    egui::emath::TSTransform::from_translation(egui::vec2(250.0, 100.0))
}

/// Drags a wire from `node`'s pin `pin` down and to the left, onto empty canvas: where it
/// was dropped.
fn drop_wire(h: &mut Harness<'static, EditorApp>, node: &NodeId, pin: &str) -> egui::Pos2 {
    let from = pin_of(h, node.as_str(), pin);
    let to = from + egui::vec2(-150.0, 320.0);
    drag(h, from, to, PointerButton::Primary, Modifiers::NONE);
    to
}

/// A title typed longer widens its node and moves the pins on its right: the next drag
/// from the `parent` output, where it is now drawn, still starts a wire from it (the
/// wire-drop menu offers the parents that fit), not a box or a pan.
#[test]
fn a_drag_starts_from_the_port_under_the_pointer_after_a_title_grows_its_node() {
    let mut app = EditorApp::new(arbor::model::Tree::new(), None);
    let seq = app.add_node("Sequence", [0.0, 100.0]).unwrap();
    app.select(Some(seq.clone()));
    app.pin_view(pinned());
    let mut h = harness(app);
    let before = h.state().screen_rect_of(&seq).unwrap();
    h.get_by_label("title").click();
    h.run_steps(2);
    h.get_by_label("title")
        .type_text("Guard the door until the intruder is seen, then raise the alarm");
    h.run_steps(3);
    let after = h.state().screen_rect_of(&seq).unwrap();
    assert!(
        after.width() > before.width() + 100.0,
        "{before:?} -> {after:?}"
    );
    // The output pin, on the right edge, level with its label.
    let camera = h.state().camera().unwrap();
    let label = camera.mul_pos(h.get_by_label("parent").rect().right_center());
    let from = Pos2::new((after.right() + label.x) / 2.0, label.y);
    drag(
        &mut h,
        from,
        from + egui::vec2(150.0, 60.0),
        PointerButton::Primary,
        Modifiers::NONE,
    );
    h.get_by_label("Add a node that fits");
}

/// Esc closes the wire-drop menu, whose search field has the keyboard: the menu is gone,
/// and what is typed next adds nothing.
#[test]
fn escape_closes_the_wire_drop_menu() {
    let (mut h, seq, _) = a_sequence_with_a_wait();
    let before = h.state().tree().clone();
    drop_wire(&mut h, &seq, "+ children");
    h.get_by_label("Add a node that fits").type_text("wai");
    h.run_steps(2);
    h.key_press(Key::Escape);
    h.run_steps(3);
    assert!(h.query_by_label("Add a node that fits").is_none(), "closed");
    h.key_press(Key::Enter);
    h.run_steps(3);
    assert_eq!(h.state().tree(), &before, "nothing added");
}

/// A wire dropped from a port of one sort, and a kind typed that cannot go there: the menu
/// says which port it is and what it takes, not only that no kind fits.
#[test]
fn the_wire_drop_menu_says_why_a_kind_typed_does_not_fit_the_port() {
    let (mut h, seq, _) = a_sequence_with_a_wait();
    drop_wire(&mut h, &seq, "+ conditions");
    h.get_by_label("Add a node that fits").type_text("selector");
    h.run_steps(2);
    h.get_by_label(
        "Selector does not fit here: only Conditions link into a 'conditions' input, not a Composite",
    );
    // Words that name no kind at all say so.
    h.get_by_label("Add a node that fits").type_text(" zzz");
    h.run_steps(2);
    h.get_by_label("No kind fits that");
}

#[test]
fn a_wire_dropped_on_empty_canvas_offers_the_kinds_that_fit_and_places_the_node_where_it_was_dropped()
 {
    let (mut h, seq, wait) = a_sequence_with_a_wait();
    let to = drop_wire(&mut h, &seq, "+ children");
    h.get_by_label("Add a node that fits");
    // One list, searched as it is typed into (its field has the keyboard): Enter adds the
    // kind that matches best, the shortest name that starts so (`wai`: Wait, not
    // WaitValueUpdate). (The palette on the left has its own category headings.)
    let count = |h: &Harness<'static, EditorApp>, label: &str| h.query_all_by_label(label).count();
    let (leaf, composite) = (count(&h, "Leaf"), count(&h, "Composite"));
    h.get_by_label("Add a node that fits").type_text("wai");
    h.run_steps(2);
    assert_eq!(count(&h, "Leaf"), leaf, "the Leaf heading stays");
    assert_eq!(
        count(&h, "Composite"),
        composite - 1,
        "only what matches is listed"
    );
    h.key_press(Key::Enter);
    h.run_steps(3);
    let tree = h.state().tree();
    let parent = tree.node(&seq).unwrap();
    let kids = parent.linked(Port::Children);
    assert_eq!(kids.len(), 2, "{:?}", tree);
    assert_eq!(kids[0], wait);
    let new = tree.node(&kids[1]).unwrap();
    let (a, b) = (
        h.state().screen_rect_of(&wait).unwrap(),
        h.state().screen_rect_of(&new.id).unwrap(),
    );
    assert!(!a.intersects(b), "{a:?} {b:?}");
    assert_eq!(new.kind, "Wait");
    let canvas = h.state().canvas_rect().unwrap();
    assert!(canvas.contains_rect(b), "visible: {b:?} in {canvas:?}");
    // Where the wire was let go (in the view it was let go in: the view then moved to
    // show the node whole): its `parent` output, on its right, at the drop point.
    let dropped = pinned().inverse() * to;
    let camera = h.state().camera().unwrap();
    let placed = camera.inverse() * b;
    assert!(
        (placed.right() - dropped.x).abs() < 30.0 && placed.y_range().contains(dropped.y),
        "{placed:?} dropped at {dropped:?}"
    );
    assert_ne!(camera, pinned(), "the view followed it below");
    // One undo step takes it away.
    key(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(h.state().tree().nodes().len(), 2);
    // A click on a kind in the list adds that one: a Selector, below Wait's place. (The
    // palette on the left lists Selector too: the menu's is the one that appears.)
    let palette: Vec<_> = h
        .query_all_by_role_and_label(Role::Button, "Selector")
        .map(|n| n.rect())
        .collect();
    let from = pin_of(&h, seq.as_str(), "+ children");
    drag(&mut h, from, to, PointerButton::Primary, Modifiers::NONE);
    h.get_by_label("Add a node that fits");
    h.query_all_by_role_and_label(Role::Button, "Selector")
        .find(|n| !palette.contains(&n.rect()))
        .expect("Selector in the menu")
        .click();
    h.run_steps(3);
    let tree = h.state().tree();
    let kids = tree.node(&seq).unwrap().linked(Port::Children);
    assert_eq!(tree.node(&kids[1]).unwrap().kind, "Selector");
}

#[test]
fn a_wire_from_a_composites_services_pin_offers_only_actions_and_links_a_service() {
    let (mut h, seq, wait) = a_sequence_with_a_wait();
    drop_wire(&mut h, &seq, "+ services");
    h.get_by_label("Add a node that fits");
    // Only action leaves: no condition, no branch is offered.
    let palette: Vec<_> = h
        .query_all_by_role_and_label(Role::Button, "HasContext")
        .map(|n| n.rect())
        .collect();
    h.get_by_label("Add a node that fits").type_text("hascon");
    h.run_steps(2);
    assert_eq!(
        h.query_all_by_role_and_label(Role::Button, "HasContext")
            .filter(|n| !palette.contains(&n.rect()))
            .count(),
        0,
        "a condition is not offered as a service"
    );
    for _ in 0.."hascon".len() {
        h.key_press(Key::Backspace);
    }
    h.get_by_label("Add a node that fits").type_text("findclo");
    h.run_steps(2);
    h.key_press(Key::Enter);
    h.run_steps(3);
    let tree = h.state().tree();
    let parent = tree.node(&seq).unwrap();
    let services = parent.linked(Port::Services);
    assert_eq!(services.len(), 1, "{tree:?}");
    assert_eq!(tree.node(&services[0]).unwrap().kind, "FindClosest");
    assert_eq!(parent.linked(Port::Children), [wait], "children unchanged");
    // It is a service: pin "service 0" names it, and a new "+ services" slot follows.
    h.get_by_label("service 0");
    h.get_by_label("+ services");
}

#[test]
fn the_inspector_renames_a_node_its_link_and_breakpoint_follow_and_bad_ids_are_refused() {
    let mut h = open_sample("droid_arena");
    h.state_mut().focus(&NodeId::new("hit"));
    h.run_steps(3);
    let at = on_node(&h, "hit");
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    key(&mut h, Modifiers::NONE, Key::F9);
    let slot = |h: &Harness<'static, EditorApp>| {
        h.state()
            .tree()
            .node(&NodeId::new("attack"))
            .unwrap()
            .linked(arbor::model::Port::Children)
            .to_vec()
    };
    let before = slot(&h);
    // Type a new id in the inspector and press Enter.
    let rename = |h: &mut Harness<'static, EditorApp>, to: &str| type_into(h, "id", to);
    rename(&mut h, "strike");
    let tree = h.state().tree();
    assert!(tree.contains(&NodeId::new("strike")) && !tree.contains(&NodeId::new("hit")));
    let after: Vec<NodeId> = before
        .iter()
        .map(|c| {
            if c.as_str() == "hit" {
                NodeId::new("strike")
            } else {
                c.clone()
            }
        })
        .collect();
    assert_eq!(slot(&h), after, "the parent's link follows, in its slot");
    assert_eq!(h.state().selection(), &[NodeId::new("strike")]);
    assert_eq!(
        h.state().breakpoints(),
        &[arbor::debug::Breakpoint {
            node: "strike".into(),
            on: arbor::debug::BreakOn::Enter
        }],
        "the breakpoint follows"
    );
    // An id another node has, or with a space: refused, and why.
    rename(&mut h, "attack");
    assert!(
        h.state()
            .status()
            .contains("another node already has the id 'attack'"),
        "{}",
        h.state().status()
    );
    rename(&mut h, "a b");
    assert!(
        h.state().status().contains("spaces"),
        "{}",
        h.state().status()
    );
    assert!(h.state().tree().contains(&NodeId::new("strike")));
    // Undo: the old id, and the breakpoint with it.
    key(&mut h, Modifiers::COMMAND, Key::Z);
    assert!(h.state().tree().contains(&NodeId::new("hit")));
    assert_eq!(h.state().breakpoints()[0].node, "hit");
}

#[test]
fn ctrl_f_finds_nodes_by_title_id_or_kind_selects_and_centres_them_and_steps_through() {
    let mut h = open_sample("droid_arena");
    key(&mut h, Modifiers::COMMAND, Key::F);
    h.get_by_label("Find node").type_text("closest");
    h.run_steps(3);
    // Centred in the canvas below the bar (which covers its top).
    let centred = |h: &Harness<'static, EditorApp>, id: &str| {
        let bar = h.get_by_label("Find node").rect();
        let canvas = h.state().canvas_rect().unwrap();
        let below = canvas.with_min_y(bar.bottom());
        let r = h.state().screen_rect_of(&NodeId::new(id)).unwrap();
        assert!(
            (r.center().x - below.center().x).abs() < 3.0
                && (r.center().y - below.center().y).abs() < 12.0,
            "{id} at {r:?}, the canvas below the bar {below:?}"
        );
    };
    // Two titles say "Closest enemy": the first is selected and centred.
    assert_eq!(h.state().selection(), &[NodeId::new("find_target")]);
    h.run_steps(6);
    centred(&h, "find_target");
    h.get_by_label("1 of 2");
    // Enter: the next; Shift+Enter: back.
    h.key_press(Key::Enter);
    h.run_steps(6);
    assert_eq!(h.state().selection(), &[NodeId::new("find_threat")]);
    centred(&h, "find_threat");
    h.get_by_label("2 of 2");
    h.key_press_modifiers(Modifiers::SHIFT, Key::Enter);
    h.run_steps(3);
    assert_eq!(h.state().selection(), &[NodeId::new("find_target")]);
    // By kind and by id.
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label("Find node").type_text("Attack");
    h.run_steps(3);
    assert_eq!(h.state().selection(), &[NodeId::new("attack")]);
    h.key_press(Key::Enter);
    h.run_steps(3);
    assert_eq!(
        h.state().selection(),
        &[NodeId::new("hit")],
        "the Attack kind"
    );
    // Escape closes it.
    h.key_press(Key::Escape);
    h.run_steps(3);
    assert!(h.query_by_label("Find node").is_none());
}

/// Zoom to Fit with the minimap or the Find bar shown puts no node under either: the
/// view fits below them, and showing one over a fitted view fits it again.
#[test]
fn the_minimap_and_the_find_bar_cover_no_node_of_a_fitted_view() {
    // Nodes in a grid taller than the view is (for its width): fitted, it fills the
    // view's height, to its upper corners.
    let mut app = EditorApp::new(arbor::model::Tree::new(), None);
    for x in 0..5 {
        for y in 0..6 {
            app.add_node("Wait", [x as f32 * 260.0, y as f32 * 170.0])
                .unwrap();
        }
    }
    app.select(None);
    let mut h = harness(app);
    let covered = |h: &Harness<'static, EditorApp>, over: egui::Rect| {
        h.state()
            .tree()
            .nodes()
            .iter()
            .filter(|n| {
                h.state()
                    .screen_rect_of(&n.id)
                    .is_some_and(|r| r.intersects(over))
            })
            .map(|n| n.id.to_string())
            .collect::<Vec<_>>()
    };
    key(&mut h, Modifiers::NONE, Key::F);
    key(&mut h, Modifiers::NONE, Key::M);
    h.run_steps(4);
    let map = h.get_by_label("Minimap").rect();
    assert_eq!(covered(&h, map), Vec::<String>::new(), "under the minimap");
    key(&mut h, Modifiers::NONE, Key::M);
    key(&mut h, Modifiers::COMMAND, Key::F);
    h.key_press(Key::Escape);
    key(&mut h, Modifiers::NONE, Key::F);
    key(&mut h, Modifiers::COMMAND, Key::F);
    h.run_steps(4);
    let bar = h
        .get_by_label("Find node")
        .rect()
        .union(h.get_by_role_and_label(Role::Button, "Close").rect());
    assert_eq!(covered(&h, bar), Vec::<String>::new(), "under the Find bar");
}

#[test]
fn a_click_on_the_minimap_brings_that_place_to_the_view_and_m_hides_it() {
    let mut h = open_sample("droid_arena");
    // Off at first (it covers a corner of the canvas): M shows it.
    assert!(h.query_by_label("Minimap").is_none());
    key(&mut h, Modifiers::NONE, Key::M);
    h.state_mut()
        .pin_view(egui::emath::TSTransform::from_scaling(1.0));
    h.run_steps(3);
    let map = h.get_by_label("Minimap").rect();
    // A click on the map's right edge: the view moves to the tree's right (Root's side).
    let before = h.state().camera().unwrap();
    let canvas = h.state().canvas_rect().unwrap();
    let target = egui::pos2(map.right() - 6.0, map.center().y);
    click_at(&mut h, target, PointerButton::Primary, Modifiers::NONE);
    h.run_steps(2);
    let after = h.state().camera().unwrap();
    assert_ne!(before.translation, after.translation, "the view moved");
    let centre_before = before.inverse() * canvas.center();
    let centre_after = after.inverse() * canvas.center();
    assert!(
        centre_after.x > centre_before.x,
        "{centre_before:?} -> {centre_after:?}"
    );
    assert_eq!(before.scaling, after.scaling, "at the same zoom");
    // The click did not select or clear anything on the canvas under it.
    assert!(h.state().selection().is_empty());
    // M hides it again.
    key(&mut h, Modifiers::NONE, Key::M);
    assert!(h.query_by_label("Minimap").is_none());
}

#[test]
fn selecting_a_node_never_moves_or_resizes_the_canvas() {
    for name in SAMPLE_TREES {
        let mut h = open_sample(name);
        let canvas = h.state().canvas_rect().unwrap();
        let ids = node_ids(&h);
        for id in ids {
            h.state_mut().focus(&id);
            h.run_steps(3);
            let at = on_node(&h, id.as_str());
            click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
            assert_eq!(h.state().selection(), std::slice::from_ref(&id), "{name}");
            assert_eq!(
                h.state().canvas_rect().unwrap(),
                canvas,
                "{name}: selecting {id}"
            );
        }
    }
}

#[test]
fn no_two_nodes_of_a_sample_touch_when_every_node_is_drawn_whole() {
    for name in SAMPLE_TREES.iter().copied().chain(["subtrees/patrol"]) {
        let app =
            EditorApp::open(&common::repo().join(format!("sample_trees/{name}.json"))).unwrap();
        let mut h = egui_kittest::Harness::builder()
            .with_size(egui::vec2(4000.0, 3000.0))
            .build_eframe(|_cc| app);
        h.run_steps(6);
        assert!(
            (h.state().camera().unwrap().scaling - 1.0).abs() < 1e-4,
            "{name}: at 100 %"
        );
        common::none_overlap(&h, name, 4.0);
    }
}
