//! Every editor command reached through the input a person uses: keys with their
//! modifiers (and the Cut / Copy / Paste events the platform sends for Ctrl+X / C / V),
//! pointer clicks and drags on the canvas, menu and context-menu clicks. Apps are set up
//! through their API; what is tested is only ever reached by input.

#![cfg(feature = "gui")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use arbor::editor::{Command, EditorApp, READABLE_ZOOM};
use arbor::model::{NodeId, Port};
use eframe::egui::{self, Event, Key, KeyboardShortcut, Modifiers, PointerButton, Pos2};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};

use common::input::{click_at, copied, drag, empty_spot, key, on_node, press};
use common::{all_in_view, harness};

fn ids(list: &[&str]) -> Vec<NodeId> {
    list.iter().map(|s| NodeId::new(*s)).collect()
}

/// Five loose Wait nodes: a row of three, and two below; the view shows graph point
/// (0, 0) at screen (250, 100), at 100 %.
fn five_waits() -> EditorApp {
    let mut app = EditorApp::new(arbor::model::Tree::new(), None);
    for (x, y) in [
        (0.0, 0.0),
        (300.0, 0.0),
        (600.0, 0.0),
        (0.0, 350.0),
        (300.0, 350.0),
    ] {
        app.add_node("Wait", [x, y]).unwrap();
    }
    app.select(None);
    app.pin_view(egui::emath::TSTransform::from_translation(egui::vec2(
        250.0, 100.0,
    )));
    app
}

#[test]
fn every_shortcut_runs_its_command_and_is_shown_in_its_menu() {
    let clipboard = EditorApp::sample().tree().clone();
    let clipboard = arbor::io::tree_to_string(&clipboard);
    for &command in Command::ALL {
        for shortcut in command.shortcuts() {
            if matches!(command, Command::OpenSubTree | Command::BackToRunTree) {
                // These need a SubTree selected in a run, and its tree opened.
                let path = common::repo().join("sample_trees/guard_patrol.json");
                let mut app = EditorApp::open(&path).unwrap();
                app.select(Some(NodeId::new("patrol")));
                let mut h = harness(app);
                key(&mut h, Modifiers::NONE, Key::N);
                if command == Command::BackToRunTree {
                    key(&mut h, Modifiers::COMMAND, Key::Enter);
                }
                press(&mut h, *shortcut, "");
                assert!(h.state().commands_run().contains(&command), "{command:?}");
                continue;
            }
            let mut app = EditorApp::sample();
            // Something to undo, something to redo, a selection.
            app.apply(arbor::model::Edit::SetTitle {
                id: NodeId::new("wander"),
                title: "Stroll".into(),
            });
            app.apply(arbor::model::Edit::SetTitle {
                id: NodeId::new("wander"),
                title: "Amble".into(),
            });
            app.undo();
            app.select(Some(NodeId::new("flee")));
            let mut h = harness(app);
            // A step taken, so there is one to go back to.
            key(&mut h, Modifiers::NONE, Key::N);
            press(&mut h, *shortcut, &clipboard);
            assert!(
                h.state().commands_run().contains(&command),
                "{} did not run {command:?}: ran {:?}",
                h.ctx.format_shortcut(shortcut),
                h.state().commands_run()
            );
        }
        if let Some(first) = command.shortcuts().first() {
            // Listed in its menu with that shortcut.
            let mut h = harness(EditorApp::sample());
            h.get_by_role_and_label(Role::Button, command.menu().label())
                .click();
            h.run_steps(2);
            let item = format!("{} {}", command.label(), h.ctx.format_shortcut(first));
            h.get_by_role_and_label(Role::Button, &item);
        }
    }
}

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
fn undoing_back_to_the_saved_state_clears_the_dirty_marker() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tree.json");
    std::fs::copy(common::repo().join("sample_trees/door_room.json"), &path).unwrap();
    let mut h = harness(EditorApp::open(&path).unwrap());
    assert_eq!(h.state().title(), "tree.json — Arbor");
    key(&mut h, Modifiers::COMMAND, Key::A);
    key(&mut h, Modifiers::COMMAND, Key::D);
    assert_eq!(h.state().title(), "tree.json • — Arbor");
    key(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(h.state().title(), "tree.json — Arbor");
    key(&mut h, Modifiers::COMMAND, Key::Y);
    assert_eq!(h.state().title(), "tree.json • — Arbor");
    key(&mut h, Modifiers::COMMAND, Key::S);
    assert_eq!(h.state().title(), "tree.json — Arbor");
    key(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(
        h.state().title(),
        "tree.json • — Arbor",
        "the saved file has the copies"
    );
}

#[test]
fn save_as_without_a_native_dialog_writes_through_the_path_field_and_keeps_the_scenario() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_samples(dir.path(), &["door_room.json", "door_room.scenario.json"]);
    let mut h = harness(EditorApp::open(&dir.path().join("door_room.json")).unwrap());
    key(&mut h, Modifiers::COMMAND | Modifiers::SHIFT, Key::S);
    h.get_by_label("Save the tree as");
    // It starts with the file's name, relative to its folder; completion lists the files
    // whose names start with what is typed.
    h.get_by_label("Save the tree as").focus();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label("Save the tree as").type_text("door_r");
    h.run_steps(2);
    h.get_by_label("door_room.json");
    h.get_by_label("door_room.scenario.json");
    h.get_by_label("Save the tree as").type_text("oom_v2.json");
    h.run_steps(2);
    h.get_by_label("Save the tree as").focus();
    h.run_steps(1);
    h.key_press(Key::Enter);
    h.run_steps(3);
    let saved = dir.path().join("door_room_v2.json");
    assert!(saved.is_file(), "{}", h.state().last_message());
    assert_eq!(h.state().title(), "door_room_v2.json — Arbor");
    assert_eq!(arbor::io::load_tree(&saved).unwrap(), *h.state().tree());
    // The scenario still runs the tree being edited: an edit that breaks it shows there.
    key(&mut h, Modifiers::COMMAND, Key::A);
    key(&mut h, Modifiers::NONE, Key::Delete);
    assert!(
        h.state().tree().is_empty(),
        "{:?}",
        h.state().commands_run()
    );
    let panel = h.state().simulation().unwrap();
    assert!(
        panel.error().unwrap_or("").contains("error"),
        "{:?}",
        panel.error()
    );
}

#[test]
fn new_then_save_asks_for_a_name_in_the_path_field() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(EditorApp::sample());
    key(&mut h, Modifiers::COMMAND, Key::N);
    // A new tree starts with its Root.
    let kinds: Vec<&str> = h
        .state()
        .tree()
        .nodes()
        .iter()
        .map(|n| n.kind.as_str())
        .collect();
    assert_eq!(kinds, ["Root"]);
    assert_eq!(h.state().title(), "untitled — Arbor");
    key(&mut h, Modifiers::COMMAND, Key::S);
    // A name typed without an extension saves as NAME.json.
    let path = dir.path().join("fresh");
    h.get_by_label("Save the tree as").focus();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label("Save the tree as")
        .type_text(path.to_str().unwrap());
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, "Save").click();
    h.run_steps(3);
    assert!(!path.exists());
    let saved = dir.path().join("fresh.json");
    assert_eq!(arbor::io::load_tree(&saved).unwrap(), *h.state().tree());
    assert_eq!(h.state().title(), "fresh.json — Arbor");
    // The Simulation panel knows the tree by its new name.
    h.get_by_label_contains("fresh.json alone in an empty world");
}

#[test]
fn edit_on_a_file_that_does_not_exist_opens_a_new_tree_that_saves_there() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("brand_new.json");
    let mut h = harness(EditorApp::start(Some(&path), None, None));
    assert_eq!(h.state().title(), "brand_new.json — Arbor");
    assert!(
        h.state().status().contains("does not exist yet"),
        "{}",
        h.state().status()
    );
    assert!(!path.exists(), "nothing is written before a save");
    key(&mut h, Modifiers::COMMAND, Key::S);
    assert_eq!(arbor::io::load_tree(&path).unwrap(), *h.state().tree());
    assert_eq!(h.state().tree().nodes()[0].kind, "Root");
}

#[test]
fn edit_on_a_file_that_does_not_load_opens_the_window_with_the_error_and_leaves_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.json");
    let text = "{\"format\": \"arbor.tree\", \"version\": 1, \"nodes\": [";
    std::fs::write(&path, text).unwrap();
    let mut h = harness(EditorApp::start(Some(&path), None, None));
    h.run_steps(2);
    assert!(
        h.state().document().path().is_none(),
        "a new tree, not the broken file"
    );
    let said = h.state().status().to_owned();
    assert!(said.contains("broken.json"), "{said}");
    assert!(said.contains("left as it is"), "{said}");
    h.get_by_label_contains("broken.json");
    // Saving the new tree cannot write over the broken file: it asks for a name.
    key(&mut h, Modifiers::COMMAND, Key::S);
    h.get_by_label("Save the tree as");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn status_messages_expire_and_the_list_is_one_click_away() {
    let mut h = harness(EditorApp::sample());
    key(&mut h, Modifiers::COMMAND, Key::A);
    key(&mut h, Modifiers::COMMAND, Key::C);
    h.get_by_label("Copied 11 node(s)");
    h.run_steps(40); // ten seconds
    assert_eq!(h.state().status(), "");
    h.get_by_label("Ready").click();
    h.run_steps(3);
    h.get_by_label_contains("Copied 11 node(s)");
}

#[test]
fn the_command_palette_finds_a_command_by_name_and_enter_runs_it() {
    let mut h = harness(five_waits());
    let before = h.state().tree().clone();
    key(&mut h, Modifiers::COMMAND | Modifiers::SHIFT, Key::P);
    h.get_by_label("Command palette").type_text("arrange");
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, "Arrange  ·  View Ctrl+L");
    h.key_press(Key::Enter);
    h.run_steps(3);
    assert_eq!(h.state().commands_run().last(), Some(&Command::Arrange));
    assert_ne!(h.state().tree(), &before);
}

#[test]
fn every_sample_opens_readable_with_root_in_view_no_title_cut_short_and_no_nodes_touching() {
    for name in SAMPLE_TREES {
        let app =
            EditorApp::open(&common::repo().join(format!("sample_trees/{name}.json"))).unwrap();
        let h = harness(app);
        let scale = h.state().camera().unwrap().scaling;
        assert!(scale >= READABLE_ZOOM - 1e-4, "{name}: {scale}");
        let canvas = h.state().canvas_rect().unwrap();
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
        // No title is cut short: each title is drawn at its full width, inside its node.
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
            if n.title.is_empty() || !h.state().is_shown(&n.id) {
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
                assert!(!ra.expand(4.0).intersects(*rb), "{name}: {a} and {b} touch");
            }
        }
    }
}

#[test]
fn the_window_icon_is_arbors_own() {
    let icon = arbor::editor::icon().expect("assets/icon.png is a PNG");
    assert_eq!((icon.width, icon.height), (256, 256));
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

#[test]
fn a_wire_dropped_on_empty_canvas_offers_the_kinds_that_fit_and_places_the_node_beside_its_parent()
{
    let mut app = EditorApp::new(arbor::model::Tree::new(), None);
    let seq = app.add_node("Sequence", [600.0, 0.0]).unwrap();
    let wait = app.add_node("Wait", [300.0, 0.0]).unwrap();
    assert!(app.link(&wait, &seq, Port::Children, 0));
    app.select(None);
    app.pin_view(egui::emath::TSTransform::from_translation(egui::vec2(
        250.0, 100.0,
    )));
    let mut h = harness(app);
    let from = pin_of(&h, seq.as_str(), "+ children");
    // Drop the wire down and to the left, on empty canvas.
    let to = from + egui::vec2(-150.0, 320.0);
    drag(&mut h, from, to, PointerButton::Primary, Modifiers::NONE);
    h.get_by_label("Add a node that fits");
    // One list, searched as it is typed into (its field has the keyboard): Enter adds the
    // first kind that matches. (The palette on the left has its own category headings.)
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
    let first = tree.node(&wait).unwrap();
    // Beside its parent (children sit to its left), below its sibling, overlapping nothing.
    assert_eq!(new.position[0], first.position[0]);
    assert!(new.position[1] > first.position[1]);
    let (a, b) = (
        h.state().screen_rect_of(&wait).unwrap(),
        h.state().screen_rect_of(&new.id).unwrap(),
    );
    assert!(!a.intersects(b), "{a:?} {b:?}");
    assert_eq!(new.kind, "Wait");
    let canvas = h.state().canvas_rect().unwrap();
    assert!(canvas.contains_rect(b), "visible: {b:?} in {canvas:?}");
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
fn tab_in_the_path_field_completes_to_the_files_common_prefix() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_samples(
        dir.path(),
        &["guard_patrol.json", "guard_patrol.scenario.json"],
    );
    let mut h = harness(EditorApp::sample());
    key(&mut h, Modifiers::COMMAND, Key::O);
    let field = "Open a tree";
    h.get_by_label(field).focus();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    let typed = format!("{}/gu", dir.path().display());
    h.get_by_label(field).type_text(&typed);
    h.run_steps(2);
    h.key_press(Key::Tab);
    h.run_steps(2);
    let want = format!("{}/guard_patrol.", dir.path().display());
    assert_eq!(
        h.get_by_label(field).value().as_deref(),
        Some(want.as_str())
    );
    // The field keeps the focus: typing goes on where the completion ended.
    h.get_by_label(field).type_text("json");
    h.run_steps(1);
    h.key_press(Key::Enter);
    h.run_steps(3);
    assert_eq!(h.state().title(), "guard_patrol.json — Arbor");
}

/// The platform reports a monitor of `size` for the 1400 × 860 window, and a frame runs.
fn on_monitor(h: &mut Harness<'static, EditorApp>, size: egui::Vec2) {
    let viewport = h
        .input_mut()
        .viewports
        .entry(egui::ViewportId::ROOT)
        .or_default();
    viewport.monitor_size = Some(size);
    viewport.inner_rect = Some(egui::Rect::from_min_size(
        Pos2::ZERO,
        egui::vec2(1400.0, 860.0),
    ));
    h.step();
}

#[test]
fn a_window_larger_than_its_monitor_opens_shrunk_to_fit_and_centred() {
    let app = EditorApp::open(&common::repo().join("sample_trees/droid_arena.json")).unwrap();
    let mut h = harness(app);
    // The platform reports the monitor and a window restored larger than it.
    on_monitor(&mut h, egui::vec2(1280.0, 720.0));
    let commands = &h.output().viewport_output[&egui::ViewportId::ROOT].commands;
    let size = commands.iter().find_map(|c| match c {
        egui::ViewportCommand::InnerSize(s) => Some(*s),
        _ => None,
    });
    let at = commands.iter().find_map(|c| match c {
        egui::ViewportCommand::OuterPosition(p) => Some(*p),
        _ => None,
    });
    let size = size.expect("the window is resized");
    assert!(size.x <= 1280.0 && size.y <= 720.0, "{size:?}");
    assert!(size.x >= 1000.0 && size.y >= 600.0, "{size:?}");
    let at = at.expect("and moved");
    assert!((at.x * 2.0 + size.x - 1280.0).abs() < 1.0, "{at:?}");
    // The harness applies the resize: the editor now fits.
    h.run_steps(3);
    let canvas = h.state().canvas_rect().unwrap();
    assert!(canvas.max.x <= 1280.0);
    // The view opened fitted is fitted again to the smaller canvas: Root stays in view.
    let root = h.state().screen_rect_of(&NodeId::new("root")).unwrap();
    assert!(canvas.contains_rect(root), "{root:?} in {canvas:?}");
    // A window that fits is left alone.
    let mut h = harness(EditorApp::sample());
    on_monitor(&mut h, egui::vec2(2560.0, 1440.0));
    assert!(
        !h.output().viewport_output[&egui::ViewportId::ROOT]
            .commands
            .iter()
            .any(|c| matches!(c, egui::ViewportCommand::InnerSize(_)))
    );
}

/// A fresh session of `name`'s scenario (seed 0, as the editor runs it) at step `k`.
fn core_at(name: &str, k: u64) -> arbor::debug::Session {
    let sim = arbor::world::Simulation::load(
        &common::repo().join(format!("sample_trees/{name}.scenario.json")),
        &arbor::model::Catalog::builtin(),
        0,
        None,
    )
    .unwrap();
    let mut s = arbor::debug::Session::new(sim, 0.1);
    s.run(k, &[]);
    s
}

/// The canvas's light of every node against the core's node states for `agent`.
fn lights_match(h: &Harness<'static, EditorApp>, core: &arbor::debug::Session, agent: &str) {
    lights_match_except(h, core, agent, "");
}

fn open_sample(name: &str) -> Harness<'static, EditorApp> {
    harness(EditorApp::open(&common::repo().join(format!("sample_trees/{name}.json"))).unwrap())
}

#[test]
fn n_steps_shift_left_steps_back_and_every_panel_shows_that_step() {
    let mut h = open_sample("door_room");
    for _ in 0..30 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    h.get_by_label_contains("step 30,");
    lights_match(&h, &core_at("door_room", 30), "visitor");
    for _ in 0..5 {
        key(&mut h, Modifiers::SHIFT, Key::ArrowLeft);
    }
    h.get_by_label_contains("step 25,");
    let core = core_at("door_room", 25);
    lights_match(&h, &core, "visitor");
    // The leaf the core runs is named in the panel.
    let instance = core.sim().instance("visitor").unwrap();
    let leaf = &instance.program().node_ids()[instance.active_leaves()[0] as usize];
    let title = h
        .state()
        .tree()
        .node(&NodeId::new(leaf.as_str()))
        .unwrap()
        .label()
        .to_owned();
    h.get_by_label(&format!("running: {title}"));
    // The arena's agent is where the core's is.
    let pos = core.sim().summary()[0].pos;
    h.get_by_label_contains(&format!("at ({:.2}, {:.2})", pos[0], pos[1]));
    // Shift+→ goes forward again through the same history.
    key(&mut h, Modifiers::SHIFT, Key::ArrowRight);
    h.get_by_label_contains("step 26,");
    lights_match(&h, &core_at("door_room", 26), "visitor");
}

#[test]
fn f9_sets_a_breakpoint_and_space_runs_to_the_step_the_core_stops_at() {
    let mut h = open_sample("droid_arena");
    h.state_mut().select(Some(NodeId::new("attack")));
    key(&mut h, Modifiers::NONE, Key::F9);
    assert_eq!(h.state().breakpoints().len(), 1);
    h.state_mut().select(None);
    // The core, with the same breakpoint, stops at this step.
    let mut core = core_at("droid_arena", 0);
    core.run(
        1000,
        &[arbor::debug::Breakpoint {
            node: "attack".into(),
            on: arbor::debug::BreakOn::Enter,
        }],
    );
    let want = core.step_number();
    key(&mut h, Modifiers::NONE, Key::Space);
    for _ in 0..200 {
        h.run_steps(1);
        if !h.state().simulation().unwrap().is_running() {
            break;
        }
    }
    assert!(
        !h.state().simulation().unwrap().is_running(),
        "the breakpoint paused the run"
    );
    assert_eq!(h.state().simulation().unwrap().step_number(), want);
    assert_eq!(h.state().selection(), &[NodeId::new("attack")]);
    assert!(
        h.query_all_by_label_contains(&format!(
            "Breakpoint: attack on enter of titan, step {want}"
        ))
        .count()
            >= 1
    );
    // F9 again clears it.
    key(&mut h, Modifiers::NONE, Key::F9);
    assert!(h.state().breakpoints().is_empty());
}

#[test]
fn a_trigger_button_fires_the_interrupt_and_the_log_shows_it() {
    let mut h = open_sample("pass_receive");
    key(&mut h, Modifiers::NONE, Key::N);
    h.get_by_label("⚡ receive_pass").click();
    h.run_steps(2);
    key(&mut h, Modifiers::NONE, Key::N);
    h.get_by_label_contains("Receive a pass started by the trigger 'receive_pass'");
    // Filtered to failures and interrupts, a click on the event selects its node.
    h.get_by_role_and_label(Role::ComboBox, "Show").click();
    h.run_steps(2);
    h.get_by_label("failures and interrupts").click();
    h.run_steps(2);
    // (Scrolled into the log's view first, as a person would.)
    h.get_by_label_contains("Receive a pass started by the trigger")
        .scroll_to_me();
    h.run_steps(3);
    h.get_by_label_contains("Receive a pass started by the trigger")
        .click();
    h.run_steps(2);
    assert_eq!(h.state().selection(), &[NodeId::new("receive")]);
    // Filtered to one kind of event: the checks only.
    h.get_by_role_and_label(Role::ComboBox, "Show").click();
    h.run_steps(2);
    h.get_by_label("check").click();
    h.run_steps(2);
    assert!(
        h.query_by_label_contains("started by the trigger")
            .is_none()
    );
    assert!(h.query_all_by_label_contains("checked:").count() > 0);
    assert!(h.query_by_label_contains(" executed").is_none());
}

#[test]
fn a_click_on_the_timeline_shows_that_step() {
    let mut h = open_sample("door_room");
    for _ in 0..40 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    let bar = h.get_by_label("Timeline").rect();
    // A quarter of the way along: step 10.
    let at = Pos2::new(
        bar.left() + 6.0 + (bar.width() - 12.0) * 0.25,
        bar.center().y,
    );
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    assert_eq!(h.state().simulation().unwrap().step_number(), 10);
    lights_match(&h, &core_at("door_room", 10), "visitor");
}

#[test]
fn a_tree_without_a_scenario_runs_alone_and_a_world_tree_asks_for_one() {
    let mut h = open_sample("mock_sketch");
    h.get_by_label_contains("alone in an empty world");
    for _ in 0..8 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    h.get_by_label_contains("Work while allowed failed: guard 'Allowed?' was false");
    // A tree of world nodes with no scenario beside it says what it needs.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("door_room.json");
    std::fs::copy(common::repo().join("sample_trees/door_room.json"), &copy).unwrap();
    let h = harness(EditorApp::open(&copy).unwrap());
    h.get_by_label_contains("uses world nodes");
    h.get_by_role_and_label(Role::Button, "Open Scenario…");
}

#[test]
fn run_holds_its_speed_in_real_time() {
    let mut h = open_sample("door_room");
    // kittest advances the clock by a quarter second a frame.
    key(&mut h, Modifiers::NONE, Key::Space);
    let start = h.state().simulation().unwrap().step_number();
    h.run_steps(20); // five seconds
    let taken = h.state().simulation().unwrap().step_number() - start;
    assert!(
        (49..=51).contains(&taken),
        "10 steps/s for 5 s took {taken} steps"
    );
    key(&mut h, Modifiers::NONE, Key::Space);
    assert!(!h.state().simulation().unwrap().is_running());
}

#[test]
fn the_node_menu_sets_what_a_breakpoint_breaks_on_and_the_dot_clears_it() {
    let mut h = open_sample("droid_arena");
    let at = on_node(&h, "choose");
    click_at(&mut h, at, PointerButton::Secondary, Modifiers::NONE);
    h.get_by_label("Break On ⏵").click();
    h.run_steps(2);
    h.get_by_label("failure").click();
    h.run_steps(3);
    let breaks = h.state().breakpoints().to_vec();
    assert_eq!(
        breaks,
        [arbor::debug::Breakpoint {
            node: "choose".into(),
            on: arbor::debug::BreakOn::Failure
        }]
    );
    // Run stops where the core stops for the same breakpoint.
    let mut core = core_at("droid_arena", 0);
    core.run(1000, &breaks);
    h.get_by_role_and_label(Role::Button, "×10").click();
    for _ in 0..100 {
        h.get_by_role_and_label(Role::Button, "×10").click();
        h.run_steps(1);
        if h.state().simulation().unwrap().stopped().is_some() {
            break;
        }
    }
    assert_eq!(
        h.state().simulation().unwrap().step_number(),
        core.step_number()
    );
    // The red dot in its header clears it (its bounds are in graph space; the view has
    // moved to the node the run stopped at).
    h.run_steps(3);
    let dot = h.get_by_label("Breakpoint").rect().center();
    let at = h.state().camera().unwrap().mul_pos(dot);
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    assert!(h.state().breakpoints().is_empty());
}

#[test]
fn breakpoints_are_kept_per_file_in_the_settings_not_in_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_samples(dir.path(), &["door_room.json", "door_room.scenario.json"]);
    let file = dir.path().join("door_room.json");
    let before = std::fs::read_to_string(&file).unwrap();
    let settings = arbor::io::SettingsFile::new(dir.path().join("settings.json"));
    {
        let mut app = EditorApp::open(&file)
            .unwrap()
            .with_settings(settings.clone());
        app.select(Some(NodeId::new("open")));
        let mut h = harness(app);
        key(&mut h, Modifiers::NONE, Key::F9);
        key(&mut h, Modifiers::COMMAND, Key::S);
        // Written within a second of the change.
        h.run_steps(90);
    }
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        before,
        "the tree file is unchanged"
    );
    let app = EditorApp::open(&file)
        .unwrap()
        .with_settings(settings.clone());
    assert_eq!(
        app.breakpoints(),
        &[arbor::debug::Breakpoint {
            node: "open".into(),
            on: arbor::debug::BreakOn::Enter
        }]
    );
    // Another file has none.
    let other = EditorApp::open(&common::repo().join("sample_trees/door_room.json"))
        .unwrap()
        .with_settings(settings);
    assert!(other.breakpoints().is_empty());
}

#[test]
fn a_subtree_names_the_inner_leaf_that_runs() {
    let mut h = open_sample("guard_patrol");
    key(&mut h, Modifiers::NONE, Key::N);
    key(&mut h, Modifiers::NONE, Key::N);
    let core = core_at("guard_patrol", 2);
    let instance = core.sim().instance("guard").unwrap();
    let leaf = &instance.program().node_ids()[instance.active_leaves()[0] as usize];
    let inner = leaf
        .strip_prefix("patrol/")
        .expect("a leaf inside the subtree runs");
    h.get_by_label(&format!("▶ {inner} runs"));
    // And the SubTree node itself is lit as running.
    assert_eq!(
        h.state().live_status(&NodeId::new("patrol")),
        Some(arbor::runtime::Status::Running)
    );
}

/// The screen point of agent `i` (scenario order) in the arena.
fn in_arena(h: &Harness<'static, EditorApp>, i: usize) -> Pos2 {
    let arena = h.get_by_label("Arena").rect();
    let sim = h.state().simulation().unwrap().sim().unwrap();
    let tile = arena.width() / sim.world().width() as f32;
    let p = sim.summary()[i].pos;
    arena.min + egui::vec2((p[0] as f32 + 0.5) * tile, (p[1] as f32 + 0.5) * tile)
}

#[test]
fn a_click_on_an_agent_in_the_arena_watches_it() {
    let mut h = open_sample("droid_arena");
    key(&mut h, Modifiers::NONE, Key::N);
    let at = in_arena(&h, 1);
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    assert_eq!(h.state().simulation().unwrap().watched(), 1);
    h.get_by_label("brute: context");
}

#[test]
fn the_ring_on_a_selected_node_sets_a_breakpoint() {
    let mut h = open_sample("droid_arena");
    let at = on_node(&h, "choose");
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    assert_eq!(h.state().selection(), &[NodeId::new("choose")]);
    let ring = h.get_by_label("Set a breakpoint").rect().center();
    let at = h.state().camera().unwrap().mul_pos(ring);
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    assert_eq!(
        h.state().breakpoints(),
        &[arbor::debug::Breakpoint {
            node: "choose".into(),
            on: arbor::debug::BreakOn::Enter
        }]
    );
    h.get_by_label("Breakpoint");
}

#[test]
fn hovering_a_node_shows_its_counts_and_status() {
    let mut h = open_sample("door_room");
    for _ in 0..12 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    let core = core_at("door_room", 12);
    let instance = core.sim().instance("visitor").unwrap();
    let ids = instance.program().node_ids();
    let root = ids.iter().position(|i| i == "root").unwrap();
    let s = instance.node_states()[root];
    h.hover_at(on_node(&h, "root"));
    h.run_steps(3);
    let counts = format!(
        "entered {} · succeeded {} · failed {} · aborted {}",
        s.entries, s.successes, s.failures, s.aborts
    );
    let near = h.get_by_label(&counts).rect();
    h.get_by_label_contains("running for");
    // Zoomed out far, the hover says the same at the same size.
    h.hover_at(egui::pos2(5.0, 5.0));
    h.run_steps(2);
    for _ in 0..12 {
        key(&mut h, Modifiers::COMMAND, Key::Minus);
    }
    h.run_steps(3);
    assert!(h.state().camera().unwrap().scaling < 0.3);
    h.hover_at(on_node(&h, "root"));
    h.run_steps(3);
    let far = h.get_by_label(&counts).rect();
    assert!(
        (far.height() - near.height()).abs() < 0.5 && (far.width() - near.width()).abs() < 0.5,
        "{far:?} against {near:?}"
    );
}

#[test]
fn hovering_a_node_that_failed_with_a_reason_says_why() {
    // At step 2 the scout's "Closest enemy" has found no threat.
    let core = core_at("droid_arena", 2);
    let instance = core.sim().instance("scout").unwrap();
    let at = instance
        .program()
        .node_ids()
        .iter()
        .position(|i| i == "find_threat")
        .unwrap();
    let why = instance.node_states()[at].reason.expect("a reason");
    let mut h = open_sample("droid_arena");
    for _ in 0..2 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    // Watch the scout: the Watch menu.
    h.get_by_role_and_label(Role::ComboBox, "Watch").click();
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, "scout").click();
    h.run_steps(2);
    h.get_by_label("scout: context");
    h.state_mut().focus(&NodeId::new("find_threat"));
    h.state_mut().select(None);
    h.run_steps(3);
    h.hover_at(on_node(&h, "find_threat"));
    h.run_steps(3);
    h.get_by_label(&format!("why: {why}"));
}

#[test]
fn pick_in_arena_makes_the_clicked_entity_the_trigger_payload() {
    let mut h = open_sample("pass_receive");
    key(&mut h, Modifiers::NONE, Key::N);
    h.get_by_label("Pick in arena").click();
    h.run_steps(2);
    let at = in_arena(&h, 1);
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    let panel = h.state().panel().unwrap();
    assert_eq!(panel.payload, "winger");
    assert_eq!(
        panel.debugger.watched(),
        0,
        "picking does not change the watched agent"
    );
    assert!(!panel.picking);
}

/// The broad wires drawn under the active path: each cubic curve painted this frame, as
/// its stroke's colour.
fn broad_wires(h: &Harness<'static, EditorApp>) -> Vec<egui::Color32> {
    fn walk(shape: &egui::Shape, out: &mut Vec<egui::Color32>) {
        match shape {
            egui::Shape::Vec(v) => v.iter().for_each(|s| walk(s, out)),
            egui::Shape::CubicBezier(c) => match &c.stroke.color {
                egui::epaint::ColorMode::Solid(colour) => out.push(*colour),
                other => panic!("a wire of {other:?}"),
            },
            _ => {}
        }
    }
    let mut out = Vec::new();
    for clipped in &h.output().shapes {
        walk(&clipped.shape, &mut out);
    }
    out
}

#[test]
fn the_wires_of_the_active_path_are_drawn_broad_in_the_running_colour() {
    let mut h = open_sample("door_room");
    // Zoomed out until the whole tree is on the canvas.
    for _ in 0..6 {
        key(&mut h, Modifiers::COMMAND, Key::Minus);
    }
    let canvas = h.state().canvas_rect().unwrap();
    for n in h.state().tree().nodes() {
        assert!(canvas.contains_rect(h.state().screen_rect_of(&n.id).unwrap()));
    }
    assert!(broad_wires(&h).is_empty(), "no run yet, no broad wire");
    for k in [1, 30, 31] {
        while h.query_by_label_contains(&format!("step {k},")).is_none() {
            key(&mut h, Modifiers::NONE, Key::N);
        }
        h.run_steps(1);
        // One broad wire from each running node up to its parent, in the running colour.
        let core = core_at("door_room", k);
        let instance = core.sim().instance("visitor").unwrap();
        let running = instance
            .node_states()
            .iter()
            .filter(|s| s.status == arbor::runtime::Status::Running)
            .count();
        let wires = broad_wires(&h);
        assert_eq!(wires.len(), running - 1, "step {k}: Root has no wire up");
        assert!(
            wires
                .iter()
                .all(|c| *c == arbor::editor::status_colour(arbor::runtime::Status::Running)),
            "{wires:?}"
        );
    }
}

/// The canvas's light of every node of a SubTree's tree shown inside the run, against
/// the core's states of the SubTree `prefix`'s inner nodes.
fn inner_lights_match(
    h: &Harness<'static, EditorApp>,
    core: &arbor::debug::Session,
    agent: &str,
    prefix: &str,
) {
    let instance = core.sim().instance(agent).unwrap();
    let mut lit = 0;
    for (id, state) in instance
        .program()
        .node_ids()
        .iter()
        .zip(instance.node_states())
    {
        let Some(inner) = id.strip_prefix(&format!("{prefix}/")) else {
            continue;
        };
        let shown = h.state().live_status(&NodeId::new(inner));
        let want = (state.status != arbor::runtime::Status::Idle || state.entries > 0)
            .then_some(state.status);
        lit += usize::from(want.is_some());
        assert_eq!(shown, want, "{id} at step {}", core.step_number());
    }
    assert!(
        lit > 0,
        "some inner node has a light at step {}",
        core.step_number()
    );
}

#[test]
fn opening_a_subtree_during_a_run_keeps_the_run_and_lights_its_inner_nodes() {
    let mut h = open_sample("guard_patrol");
    for _ in 0..2 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    // Select the SubTree with a click (brought into view first), open it with the
    // inspector's Open.
    h.state_mut().focus(&NodeId::new("patrol"));
    h.state_mut().select(None);
    h.run_steps(3);
    let at = on_node(&h, "patrol");
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    h.get_by_role_and_label(Role::Button, "Open").click();
    h.run_steps(3);
    let file = h.state().document().path().unwrap().to_owned();
    assert_eq!(file.file_name().unwrap(), "patrol.json");
    h.get_by_label_contains("step 2,");
    h.get_by_label_contains("SubTree patrol inside the run");
    inner_lights_match(&h, &core_at("guard_patrol", 2), "guard", "patrol");
    // The run goes on, lighting the inner nodes step by step.
    for _ in 0..25 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    h.get_by_label_contains("step 27,");
    inner_lights_match(&h, &core_at("guard_patrol", 27), "guard", "patrol");
    // A breakpoint set here is on the SubTree's inner node, kept for the running tree.
    let at = on_node(&h, "look_b");
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    key(&mut h, Modifiers::NONE, Key::F9);
    assert_eq!(
        h.state().breakpoints(),
        &[arbor::debug::Breakpoint {
            node: "patrol/look_b".into(),
            on: arbor::debug::BreakOn::Enter
        }]
    );
    // The button in the panel goes back to the running tree, at the same step.
    h.get_by_label_contains("Back to guard_patrol.json").click();
    h.run_steps(3);
    assert_eq!(
        h.state().document().path().unwrap().file_name().unwrap(),
        "guard_patrol.json"
    );
    h.get_by_label_contains("step 27,");
    lights_match(&h, &core_at("guard_patrol", 27), "guard");
    assert!(h.query_by_label_contains("inside the run").is_none());
    // The breakpoint is on the running tree's list, and Run stops there.
    key(&mut h, Modifiers::NONE, Key::Space);
    let mut core = core_at("guard_patrol", 27);
    let hits = core.run(
        2000,
        &[arbor::debug::Breakpoint {
            node: "patrol/look_b".into(),
            on: arbor::debug::BreakOn::Enter,
        }],
    );
    let stop = hits.first().expect("the core hits the breakpoint").step;
    for _ in 0..400 {
        if !h.state().simulation().unwrap().is_running() {
            break;
        }
        h.run_steps(4);
    }
    assert_eq!(h.state().simulation().unwrap().step_number(), stop);
}

#[test]
fn the_event_log_names_a_subtrees_nodes_by_their_titles() {
    let mut h = open_sample("guard_patrol");
    for _ in 0..3 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    // Seen from the running tree: the inner nodes as the SubTree's asset titles them, in
    // the log and in what runs now.
    h.get_by_label_contains("Go to post A entered");
    h.get_by_label_contains("running: Go to post A");
    h.get_by_label_contains("Patrol entered");
    assert!(h.query_by_label_contains("patrol/").is_none());
    // Seen from inside the SubTree: the nodes around it as the running tree titles them.
    open_patrol_from_its_menu(&mut h);
    h.get_by_label_contains("SubTree patrol inside the run");
    h.get_by_label_contains("Go to post A entered");
    h.get_by_label_contains("Guard duty entered");
    assert!(h.query_by_label_contains("patrol/").is_none());
}

#[test]
fn editing_a_subtree_shown_inside_a_run_runs_it_on_its_own() {
    let mut h = open_sample("guard_patrol");
    key(&mut h, Modifiers::NONE, Key::N);
    open_patrol_from_its_menu(&mut h);
    h.get_by_label_contains("SubTree patrol inside the run");
    // An edit (delete a node) ends the view into the run.
    let at = on_node(&h, "look_b");
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    key(&mut h, Modifiers::NONE, Key::Delete);
    assert!(h.query_by_label_contains("inside the run").is_none());
    h.get_by_label_contains("patrol.json alone in an empty world");
    assert_eq!(h.state().simulation().unwrap().step_number(), 0);
}

/// Open SubTree from the right-click menu of guard_patrol's SubTree node `patrol` (the
/// node brought into view first).
fn open_patrol_from_its_menu(h: &mut Harness<'static, EditorApp>) {
    h.state_mut().focus(&NodeId::new("patrol"));
    h.state_mut().select(None);
    h.run_steps(3);
    let at = on_node(h, "patrol");
    click_at(h, at, PointerButton::Secondary, Modifiers::NONE);
    h.get_by_label_contains("Open SubTree").click();
    h.run_steps(3);
}

#[test]
fn a_subtree_opened_before_the_first_step_is_shown_inside_the_run_and_back_returns() {
    let mut h = open_sample("guard_patrol");
    open_patrol_from_its_menu(&mut h);
    h.get_by_label_contains("SubTree patrol inside the run");
    assert_eq!(
        h.state().document().path().unwrap().file_name().unwrap(),
        "patrol.json"
    );
    // Stepping lights the asset's nodes; Ctrl+Backspace goes back to the running tree.
    key(&mut h, Modifiers::NONE, Key::N);
    assert_eq!(h.state().simulation().unwrap().step_number(), 1);
    key(&mut h, Modifiers::COMMAND, Key::Backspace);
    assert_eq!(
        h.state().document().path().unwrap().file_name().unwrap(),
        "guard_patrol.json"
    );
    assert_eq!(h.state().simulation().unwrap().step_number(), 1);
}

/// Drags node "work" aside, then runs frames until the unsaved work is written aside.
fn move_and_wait(h: &mut Harness<'static, EditorApp>) -> std::path::PathBuf {
    let from = on_node(h, "work");
    drag(
        h,
        from,
        from + egui::vec2(60.0, 40.0),
        PointerButton::Primary,
        Modifiers::NONE,
    );
    assert!(h.state().is_dirty());
    until_written_aside(h)
}

/// Runs frames until the app has written its recovery file (at most 60 s of egui time).
fn until_written_aside(h: &mut Harness<'static, EditorApp>) -> std::path::PathBuf {
    for _ in 0..3600 {
        if let Some(f) = h.state().recovery_file() {
            return f.to_owned();
        }
        h.run_steps(1);
    }
    panic!("no recovery file written");
}

/// An editor on a copy of mock_sketch.json, writing recovery files in the same folder.
fn recoverable(dir: &std::path::Path) -> (EditorApp, std::path::PathBuf, arbor::io::RecoveryDir) {
    let tree = dir.join("mock_sketch.json");
    if !tree.exists() {
        common::copy_samples(dir, &["mock_sketch.json"]);
    }
    let recovery = arbor::io::RecoveryDir::new(dir.join("recovery"));
    let app = EditorApp::open(&tree)
        .unwrap()
        .with_recovery(recovery.clone());
    (app, tree, recovery)
}

#[test]
fn unsaved_work_is_written_aside_and_offered_back_at_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let (app, tree, _) = recoverable(dir.path());
    let mut h = harness(app);
    let from = on_node(&h, "work");
    drag(
        &mut h,
        from,
        from + egui::vec2(60.0, 40.0),
        PointerButton::Primary,
        Modifiers::NONE,
    );
    assert!(h.state().is_dirty());
    assert!(
        h.state().recovery_file().is_none(),
        "written a few seconds after the change"
    );
    let file = until_written_aside(&mut h);
    let moved = h.state().tree().clone();
    let written = arbor::io::RecoveryDir::read(&file).unwrap();
    assert_eq!(written.tree, moved);
    assert!(arbor::io::same_file(
        written.path.as_deref().unwrap(),
        &tree
    ));
    // The editor stops without closing (a crash, a kill): the work stays aside.
    drop(h);
    assert!(file.exists());
    assert_ne!(arbor::io::load_tree(&tree).unwrap(), moved);

    // The next start on the same file offers it, saying where it is.
    let (app, _, _) = recoverable(dir.path());
    let mut h = harness(app);
    h.get_by_label_contains("Recovered work");
    h.get_by_label_contains(&file.display().to_string());
    h.get_by_role_and_label(Role::Button, "Restore").click();
    h.run_steps(3);
    assert_eq!(*h.state().tree(), moved);
    assert!(h.state().is_dirty(), "restored work is not saved yet");
    // Saving it removes the recovery file.
    key(&mut h, Modifiers::COMMAND, Key::S);
    h.run_steps(2);
    assert_eq!(arbor::io::load_tree(&tree).unwrap(), moved);
    assert!(!file.exists());
}

#[test]
fn recovered_work_discarded_or_unsaved_work_let_go_leaves_no_recovery_file() {
    let dir = tempfile::tempdir().unwrap();
    let (app, tree, _) = recoverable(dir.path());
    let on_disk = arbor::io::load_tree(&tree).unwrap();
    let mut h = harness(app);
    let file = move_and_wait(&mut h);
    drop(h);

    // Discard at the next start: the file goes, the tree is the one on disk.
    let (app, _, recovery) = recoverable(dir.path());
    let mut h = harness(app);
    h.get_by_role_and_label(Role::Button, "Discard").click();
    h.run_steps(3);
    assert!(!file.exists());
    assert_eq!(*h.state().tree(), on_disk);
    assert!(!h.state().is_dirty());
    assert!(recovery.find(Some(&tree)).found.is_none());

    // Undoing back to the saved tree removes the file written for the change.
    let file = move_and_wait(&mut h);
    key(&mut h, Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
    assert!(!h.state().is_dirty());
    assert!(!file.exists());

    // New, answered "Don't save": the work is let go, and its file with it.
    let file = move_and_wait(&mut h);
    key(&mut h, Modifiers::COMMAND, Key::N);
    h.get_by_role_and_label(Role::Button, "Don't save").click();
    h.run_steps(3);
    assert!(!file.exists());
    assert_eq!(arbor::io::load_tree(&tree).unwrap(), on_disk);
}

/// guard_patrol's files copied into a new folder, and a trace of 120 steps of its
/// scenario (seed 0, as the editor runs it) recorded there by `arbor run --trace`.
fn recorded_guard_patrol() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("subtrees")).unwrap();
    common::copy_samples(
        dir.path(),
        &[
            "guard_patrol.json",
            "guard_patrol.scenario.json",
            "chase_flee.json",
            "subtrees/patrol.json",
        ],
    );
    let trace = record(&dir.path().join("guard_patrol.scenario.json"), 120);
    (dir, trace)
}

/// `run.jsonl` beside `scenario`: `steps` steps of it (seed 0) recorded by `arbor run
/// --trace`.
fn record(scenario: &std::path::Path, steps: u64) -> std::path::PathBuf {
    let trace = scenario.with_file_name("run.jsonl");
    let args = arbor::cli::RunArgs {
        trace: Some(&trace),
        ..arbor::cli::RunArgs::new(scenario, steps)
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = arbor::cli::run(&args, &arbor::model::Catalog::builtin(), &mut out, &mut err);
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
    trace
}

/// File > Open Trace…, the trace's path typed into the chooser, Enter.
fn open_trace_through_the_menu(h: &mut Harness<'static, EditorApp>, trace: &std::path::Path) {
    h.get_by_label("File").click();
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, "Open Trace…").click();
    h.run_steps(3);
    let field = h.get_by_role_and_label(Role::TextInput, "Open a trace");
    field.focus();
    field.type_text(&trace.display().to_string());
    h.run_steps(2);
    key(h, Modifiers::NONE, Key::Enter);
    h.run_steps(3);
}

#[test]
fn a_trace_opened_from_the_file_menu_replays_on_its_tree_and_continue_stops_at_a_breakpoint() {
    let (_dir, trace) = recorded_guard_patrol();
    let mut h = harness(EditorApp::sample());
    open_trace_through_the_menu(&mut h, &trace);
    let file = h.state().document().path().unwrap().to_owned();
    assert_eq!(file.file_name().unwrap(), "guard_patrol.json");
    assert!(
        h.state().last_message().starts_with("Replaying"),
        "{}",
        h.state().last_message()
    );
    h.get_by_label_contains("replaying run.jsonl");
    // Step: the canvas shows what the live run showed at that step.
    for _ in 0..3 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    h.get_by_label_contains("step 3 of 120");
    lights_match(&h, &core_at("guard_patrol", 3), "guard");
    // A breakpoint on Intercept, then Run: the replay stops where the guard takes over.
    let at = on_node(&h, "intercept");
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    key(&mut h, Modifiers::NONE, Key::F9);
    key(&mut h, Modifiers::NONE, Key::Space);
    for _ in 0..60 {
        h.run_steps(1);
        if !h.state().simulation().unwrap().is_running() {
            break;
        }
    }
    let panel = h.state().simulation().unwrap();
    assert!(!panel.is_running(), "the replay stopped");
    assert_eq!(panel.step_number(), 80, "{:?}", panel.stopped());
    h.get_by_label_contains("Breakpoint: intercept on enter of guard, step 80");
    lights_match(&h, &core_at("guard_patrol", 80), "guard");
    // The log explains the take-over, with the titles from the tree.
    h.get_by_label_contains("Intercept took over from");
    // Shift+Left goes back through the recording.
    key(&mut h, Modifiers::SHIFT, Key::ArrowLeft);
    h.get_by_label_contains("step 79 of 120");
    lights_match(&h, &core_at("guard_patrol", 79), "guard");
}

#[test]
fn a_large_trace_is_read_off_the_ui_thread_with_its_progress_shown_then_replays() {
    let (dir, _) = recorded_guard_patrol();
    let trace = record(&dir.path().join("guard_patrol.scenario.json"), 60_000);
    let size = std::fs::metadata(&trace).unwrap().len();
    assert!(size > arbor::editor::READ_IN_BACKGROUND, "{size} bytes");
    let mut h = harness(EditorApp::sample());
    open_trace_through_the_menu(&mut h, &trace);
    // The editor answered at once: the reading began, and said what it reads.
    assert!(
        h.state().said("Reading run.jsonl ("),
        "{}",
        h.state().last_message()
    );
    let start = std::time::Instant::now();
    while h.state().is_reading_trace() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(300),
            "the trace is still being read"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
        h.run_steps(1);
    }
    h.run_steps(2);
    assert!(
        h.state().last_message().starts_with("Replaying"),
        "{}",
        h.state().last_message()
    );
    h.get_by_label_contains("replaying run.jsonl");
    // arbor edit --trace FILE --at STEP: the window opens at once, at that step once read.
    let from = arbor::debug::RunFrom {
        at: Some(500),
        ..arbor::debug::RunFrom::default()
    };
    let mut h = harness(EditorApp::launch(None, Some(&trace), None, &from));
    assert!(h.state().is_reading_trace());
    let start = std::time::Instant::now();
    while h.state().is_reading_trace() {
        assert!(start.elapsed() < std::time::Duration::from_secs(300));
        std::thread::sleep(std::time::Duration::from_millis(20));
        h.run_steps(1);
    }
    h.run_steps(2);
    assert_eq!(h.state().simulation().unwrap().step_number(), 500);
}

#[test]
fn a_trace_cut_mid_write_or_binary_replays_from_the_file_menu_and_an_empty_one_is_said() {
    let (dir, trace) = recorded_guard_patrol();
    let bytes = std::fs::read(&trace).unwrap();
    // A game that crashed: its last line half written.
    let mut at = bytes.len() * 2 / 3;
    while bytes[at - 1] == b'\n' || bytes[at] == b'\n' {
        at += 1;
    }
    let cut = dir.path().join("cut.jsonl");
    std::fs::write(&cut, &bytes[..at]).unwrap();
    let steps = arbor::io::read_trace(&cut).unwrap().cut.unwrap().steps;
    assert!(steps > 3 && steps < 120, "{steps}");
    let mut h = harness(EditorApp::sample());
    open_trace_through_the_menu(&mut h, &cut);
    let said = h.state().last_message().to_owned();
    assert!(said.starts_with("Replaying"), "{said}");
    assert!(
        said.contains(&format!("the last line was cut off: {steps} steps shown")),
        "{said}"
    );
    h.get_by_label_contains("replaying cut.jsonl");
    for _ in 0..3 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    h.get_by_label_contains(&format!("step 3 of {steps}"));
    lights_match(&h, &core_at("guard_patrol", 3), "guard");
    // The same run in binary replays as the JSON Lines one does.
    let binary = dir.path().join("run.arbtrace");
    arbor::io::convert_trace(&trace, &binary).unwrap();
    open_trace_through_the_menu(&mut h, &binary);
    h.get_by_label_contains("replaying run.arbtrace");
    for _ in 0..3 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    h.get_by_label_contains("step 3 of 120");
    lights_match(&h, &core_at("guard_patrol", 3), "guard");
    // A trace of no events: said, and the replay shown stays.
    let empty = dir.path().join("empty.jsonl");
    let header = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    std::fs::write(&empty, &bytes[..header]).unwrap();
    open_trace_through_the_menu(&mut h, &empty);
    let said = h.state().last_message().to_owned();
    assert!(said.contains("empty.jsonl holds no events"), "{said}");
    h.get_by_label_contains("replaying run.arbtrace");
    h.get_by_label_contains("step 3 of 120");
}

#[test]
fn a_replayed_trace_shows_inside_a_subtree_and_names_its_nodes_by_their_titles() {
    let (_dir, trace) = recorded_guard_patrol();
    let mut h = harness(EditorApp::sample());
    open_trace_through_the_menu(&mut h, &trace);
    h.get_by_label_contains("replaying run.jsonl");
    for _ in 0..3 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    // The trace records trace ids only: the titles of the SubTree's nodes come from its
    // asset, in the log and in what runs now.
    h.get_by_label_contains("Go to post A entered");
    h.get_by_label_contains("running: Go to post A");
    assert!(h.query_by_label_contains("patrol/").is_none());
    // Open SubTree keeps the replay: the asset's nodes are lit from the recording, and
    // the nodes around it are named as the recorded tree titles them.
    open_patrol_from_its_menu(&mut h);
    h.get_by_label_contains("SubTree patrol inside the run");
    assert_eq!(
        h.state().live_status(&NodeId::new("to_a")),
        Some(arbor::runtime::Status::Running)
    );
    h.get_by_label_contains("Guard duty entered");
    assert!(h.query_by_label_contains("patrol/").is_none());
    key(&mut h, Modifiers::NONE, Key::N);
    h.get_by_label_contains("step 4 of 120");
    // Ctrl+Backspace goes back to the recorded tree, the replay still at its step.
    key(&mut h, Modifiers::COMMAND, Key::Backspace);
    assert_eq!(
        h.state().document().path().unwrap().file_name().unwrap(),
        "guard_patrol.json"
    );
    h.get_by_label_contains("step 4 of 120");
    lights_match(&h, &core_at("guard_patrol", 4), "guard");
}

#[test]
fn a_trace_whose_tree_changed_or_is_gone_says_so_and_the_editor_goes_on() {
    let (dir, trace) = recorded_guard_patrol();
    // Another program edits the tree: a node renamed.
    let tree_file = dir.path().join("guard_patrol.json");
    let text = std::fs::read_to_string(&tree_file).unwrap();
    std::fs::write(&tree_file, text.replace("\"intercept\"", "\"chase_down\"")).unwrap();
    let mut h = harness(EditorApp::sample());
    open_trace_through_the_menu(&mut h, &trace);
    let said = h.state().last_message().to_owned();
    assert!(said.contains("changed since the recording"), "{said}");
    assert!(said.contains("not in this tree"), "{said}");
    // Matched by id: the nodes that are still there light up.
    for _ in 0..3 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    lights_match_except(&h, &core_at("guard_patrol", 3), "guard", "intercept");
    // The tree is gone: the tree open now stays, and the replay runs on it.
    std::fs::remove_file(&tree_file).unwrap();
    open_trace_through_the_menu(&mut h, &trace);
    let said = h.state().last_message().to_owned();
    assert!(said.contains("is gone"), "{said}");
    h.get_by_label_contains("replaying run.jsonl");
    key(&mut h, Modifiers::NONE, Key::N);
    h.get_by_label_contains("step 1 of 120");
    // A file that is no trace: the error names it and its line; nothing changes.
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"step\":0,\"agent\":\"a\",\"event\":\"jump\",\"node\":\"n\"}\n",
    )
    .unwrap();
    open_trace_through_the_menu(&mut h, &bad);
    let said = h.state().last_message().to_owned();
    assert!(said.contains("bad.jsonl:1: unknown event 'jump'"), "{said}");
    h.get_by_label_contains("step 1 of 120");
}

#[test]
fn edit_with_a_trace_alone_that_does_not_read_or_whose_tree_is_gone_is_not_taken_for_the_sample() {
    let (dir, trace) = recorded_guard_patrol();
    let bad = dir.path().join("staus.jsonl");
    std::fs::write(
        &bad,
        "{\"step\":1,\"agent\":\"a\",\"event\":\"exit\",\"node\":\"n\",\"staus\":\"success\"}\n",
    )
    .unwrap();
    let mut h = harness(EditorApp::start(None, Some(&bad), None));
    // A new tree, not the bundled sample; the problem stays in the status line until read.
    assert_eq!(h.state().title(), "untitled — Arbor");
    assert_eq!(h.state().tree().len(), 1);
    h.run_steps(80); // twenty seconds
    let said = h.state().status().to_owned();
    assert!(said.contains("staus.jsonl:1"), "{said}");
    h.get_by_label_contains("staus.jsonl:1").click();
    h.run_steps(3);
    assert_eq!(
        h.state().status(),
        "",
        "read in the list, it leaves the status line"
    );
    // The trace's tree is gone: its events are replayed on the new tree, and said.
    std::fs::remove_file(dir.path().join("guard_patrol.json")).unwrap();
    let h = harness(EditorApp::start(None, Some(&trace), None));
    assert_eq!(h.state().tree().len(), 1, "not the sample");
    let said = h.state().status().to_owned();
    assert!(said.contains("is gone"), "{said}");
    h.get_by_label_contains("replaying run.jsonl");
}

/// [`lights_match`] for every node but `except` (which the tree shown no longer has; ""
/// for none).
fn lights_match_except(
    h: &Harness<'static, EditorApp>,
    core: &arbor::debug::Session,
    agent: &str,
    except: &str,
) {
    let instance = core.sim().instance(agent).unwrap();
    for (id, state) in instance
        .program()
        .node_ids()
        .iter()
        .zip(instance.node_states())
        .filter(|(id, _)| id.as_str() != except)
    {
        let shown = h.state().live_status(&NodeId::new(id.as_str()));
        let want = (state.status != arbor::runtime::Status::Idle || state.entries > 0)
            .then_some(state.status);
        assert_eq!(shown, want, "{id} at step {}", core.step_number());
    }
}

#[test]
fn a_game_connected_to_the_editor_is_chosen_in_the_panel_and_shown_live() {
    use arbor::remote::{GameLink, Hello, Listener};
    let tree = common::repo().join("sample_trees/mock_sketch.json");
    let listener = Listener::local(0).unwrap();
    let addr = listener.address().clone();
    let mut h = harness(EditorApp::open(&tree).unwrap().with_listener(listener));
    // The game: two agents of the tree open in the editor, both watched.
    let names = ["unit-1", "unit-2"];
    let agents: Vec<(String, std::path::PathBuf)> = names
        .iter()
        .map(|n| ((*n).to_owned(), tree.clone()))
        .collect();
    let hello = Hello::new("skirmish", 0.1, 0, &agents, std::slice::from_ref(&tree));
    let link = GameLink::connect_to(&hello, addr);
    let program = program_of(&tree);
    let mut units: Vec<arbor::runtime::Instance<()>> = (0..2)
        .map(|i| {
            let mut u = arbor::runtime::Instance::new(program.clone(), i);
            u.record_states(true);
            u
        })
        .collect();
    let play = |units: &mut Vec<arbor::runtime::Instance<()>>, steps: u32| {
        for _ in 0..steps {
            for (u, name) in units.iter_mut().zip(names) {
                u.step(0.1, &mut (), Some(&mut link.watch(name)));
            }
        }
    };
    for _ in 0..200 {
        if link.connected() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    play(&mut units, 20);
    // The panel lists the game; choosing it shows it live.
    choose_game(&mut h, "skirmish");
    h.get_by_label_contains("live: skirmish, connected");
    let shows = |h: &Harness<'static, EditorApp>, unit: &arbor::runtime::Instance<()>| {
        program
            .node_ids()
            .iter()
            .zip(unit.node_states())
            .all(|(id, s)| {
                let want =
                    (s.status != arbor::runtime::Status::Idle || s.entries > 0).then_some(s.status);
                h.state().live_status(&NodeId::new(id.as_str())) == want
            })
    };
    let mut matched = false;
    for _ in 0..100 {
        h.run_steps(1);
        if shows(&h, &units[0]) {
            matched = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(matched, "the canvas shows unit-1 at step 20");
    // It follows the game as it runs on.
    play(&mut units, 17);
    let mut followed = false;
    for _ in 0..100 {
        h.run_steps(1);
        if h.state().simulation().unwrap().step_number() == 37 && shows(&h, &units[0]) {
            followed = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(followed, "the canvas follows the game to step 37");
    // The game stops: the panel says its run ended; the recording stays to scrub through.
    drop(link);
    let mut ended = false;
    for _ in 0..100 {
        h.run_steps(1);
        if h.query_by_label_contains("live: skirmish, ended").is_some() {
            ended = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(ended, "the panel says the game ended");
    key(&mut h, Modifiers::SHIFT, Key::ArrowLeft);
    assert_eq!(h.state().simulation().unwrap().step_number(), 36);
}

#[test]
fn a_breakpoint_stops_only_the_agents_of_the_tree_it_is_set_on_and_another_trees_agent_is_not_lit()
{
    // guard_patrol: the guard runs this tree, the intruder chase_flee.json; both trees have
    // a node with the id "chase" (the guard's a MoveTo, the intruder's a Sequence).
    let (_dir, trace) = recorded_guard_patrol();
    let mut h = harness(EditorApp::sample());
    open_trace_through_the_menu(&mut h, &trace);
    break_on_and_run(&mut h, "chase");
    // The intruder enters its own "chase" at step 67: the run goes on to the guard's, at 80.
    assert_eq!(h.state().simulation().unwrap().step_number(), 80);
    h.get_by_label_contains("Breakpoint: chase on enter of guard, step 80");
    // Watching the intruder: its nodes are another tree's, so nothing here is lit.
    h.get_by_role_and_label(Role::ComboBox, "Watch").click();
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, "intruder").click();
    h.run_steps(3);
    h.get_by_label_contains("intruder runs chase_flee.json, not this tree");
    assert_eq!(h.state().live_status(&NodeId::new("chase")), None);
    assert_eq!(h.state().live_status(&NodeId::new("root")), None);
    // The same in the live run of the scenario.
    let mut h = open_sample("guard_patrol");
    break_on_and_run(&mut h, "chase");
    assert_eq!(h.state().simulation().unwrap().step_number(), 80);
}

#[test]
fn a_breakpoint_set_in_the_editor_pauses_the_games_agent_and_n_and_space_step_and_release_it() {
    use arbor::remote::{GameLink, Hello, Listener};
    let tree = common::repo().join("sample_trees/mock_sketch.json");
    let listener = Listener::local(0).unwrap();
    let addr = listener.address().clone();
    let mut h = harness(EditorApp::open(&tree).unwrap().with_listener(listener));
    let agents = [("unit-1".to_owned(), tree.clone())];
    let link = GameLink::connect_to(
        &Hello::new("drill", 0.1, 0, &agents, std::slice::from_ref(&tree)),
        addr,
    );
    let program = program_of(&tree);
    let mut unit = arbor::runtime::Instance::new(program, 0);
    // The game's frame: the unit steps when the editor lets it.
    let mut frame = |h: &mut Harness<'static, EditorApp>| {
        if link.may_step("unit-1") {
            unit.step(0.1, &mut (), Some(&mut link.watch("unit-1")));
        }
        h.run_steps(1);
        std::thread::sleep(std::time::Duration::from_millis(20));
        unit.step_number()
    };
    let mut listed = false;
    for _ in 0..200 {
        frame(&mut h);
        if h.query_by_role_and_label(Role::ComboBox, "Game").is_some() {
            listed = true;
            break;
        }
    }
    assert!(listed);
    h.get_by_role_and_label(Role::ComboBox, "Game").click();
    h.run_steps(2);
    h.get_by_label("drill").click();
    h.run_steps(3);
    // F9 on Rest (the sketch's guard fails from step 8 on, so the unit rests every run):
    // the game's unit pauses when it enters it.
    h.state_mut().focus(&NodeId::new("rest"));
    h.state_mut().select(None);
    h.run_steps(3);
    let at = on_node(&h, "rest");
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    key(&mut h, Modifiers::NONE, Key::F9);
    let mut paused = false;
    for _ in 0..200 {
        frame(&mut h);
        if h.query_by_label_contains("held in the game: unit-1")
            .is_some()
        {
            paused = true;
            break;
        }
    }
    assert!(paused, "the game paused its unit at the breakpoint");
    let held = frame(&mut h);
    for _ in 0..10 {
        assert_eq!(frame(&mut h), held, "the unit waits");
    }
    // N at the newest step: the game steps it once.
    key(&mut h, Modifiers::NONE, Key::N);
    let mut stepped = held;
    for _ in 0..50 {
        stepped = frame(&mut h);
        if stepped > held {
            break;
        }
    }
    assert_eq!(stepped, held + 1);
    for _ in 0..10 {
        assert_eq!(frame(&mut h), held + 1, "then waits again");
    }
    // Space: it runs on, to the next time it rests (every run: the breakpoint again).
    key(&mut h, Modifiers::NONE, Key::Space);
    let mut ran = held + 1;
    for _ in 0..50 {
        ran = frame(&mut h);
        if ran >= held + 2 {
            break;
        }
    }
    assert!(ran >= held + 2, "the unit runs on after Run");
    // A trigger button of the tree's Interrupt sends it to the game, for the unit.
    h.get_by_role_and_label(Role::Button, "⚡ alarm").click();
    let mut given = Vec::new();
    for _ in 0..100 {
        frame(&mut h);
        given.extend(link.take_triggers());
        if !given.is_empty() {
            break;
        }
    }
    assert_eq!(given.len(), 1, "the game got the trigger");
    assert_eq!(
        (given[0].agent.as_str(), given[0].id.as_str()),
        ("unit-1", "alarm")
    );
}

/// The tree file `tree` compiled with the built-in behaviours, as a game would run it.
fn program_of(tree: &std::path::Path) -> std::sync::Arc<arbor::runtime::Program<()>> {
    let loaded = arbor::io::load_tree(tree).unwrap();
    std::sync::Arc::new(
        arbor::runtime::Program::compile(
            &loaded,
            &arbor::model::Catalog::builtin(),
            &arbor::model::NoAssets,
            &arbor::runtime::Behaviours::<()>::with_builtins(),
        )
        .unwrap(),
    )
}

/// Brings `node` into view (a tree opens at a readable zoom, part of it off the canvas),
/// clicks it, sets a breakpoint with F9, and runs (Space) until the run stops (at most 80
/// frames).
fn break_on_and_run(h: &mut Harness<'static, EditorApp>, node: &str) {
    h.state_mut().focus(&NodeId::new(node));
    h.state_mut().select(None);
    h.run_steps(3);
    let at = on_node(h, node);
    click_at(h, at, PointerButton::Primary, Modifiers::NONE);
    key(h, Modifiers::NONE, Key::F9);
    key(h, Modifiers::NONE, Key::Space);
    for _ in 0..80 {
        h.run_steps(1);
        if !h.state().simulation().unwrap().is_running() {
            break;
        }
    }
}

/// Waits for the panel to list game `name`, and chooses it in the Game list.
fn choose_game(h: &mut Harness<'static, EditorApp>, name: &str) {
    let mut listed = false;
    for _ in 0..100 {
        h.run_steps(1);
        if h.query_by_role_and_label(Role::ComboBox, "Game").is_some() {
            listed = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(listed, "the panel lists the game");
    h.get_by_role_and_label(Role::ComboBox, "Game").click();
    h.run_steps(2);
    h.get_by_label(name).click();
    h.run_steps(3);
}

/// The node library of examples/my_game, as its code registers it.
fn my_game_library() -> arbor::io::Library {
    let path = common::repo().join("examples/my_game/ai/my_game.nodes.json");
    let text = std::fs::read_to_string(&path).unwrap();
    arbor::io::parse_library(&text, &path).unwrap().0
}

#[test]
fn a_game_whose_tree_and_kinds_this_editor_lacks_is_shown_with_the_tree_and_kinds_it_sent() {
    use arbor::remote::{GameLink, Hello, Listener};
    // The game runs a tree of its own kinds from a folder this editor will not find.
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("guard.json");
    std::fs::copy(common::repo().join("examples/my_game/guard.json"), &tree).unwrap();
    let agents = [("soldier-1".to_owned(), tree.clone())];
    let hello = Hello::new("far_game", 0.1, 0, &agents, std::slice::from_ref(&tree))
        .with_library(&my_game_library())
        .unwrap();
    drop(dir);
    assert!(!tree.exists());
    let listener = Listener::local(0).unwrap();
    let addr = listener.address().clone();
    let door_room = common::repo().join("sample_trees/door_room.json");
    let mut h = harness(EditorApp::open(&door_room).unwrap().with_listener(listener));
    assert!(h.state().catalog().kind("FireWeapon").is_none());
    let link = GameLink::connect_to(&hello, addr);
    choose_game(&mut h, "far_game");
    // The tree shown is the one the game sent, unsaved, drawn with the game's kinds.
    let app = h.state();
    assert!(app.document().path().is_none());
    assert_eq!(
        app.tree().node(&NodeId::new("fire")).unwrap().kind,
        "FireWeapon"
    );
    for kind in ["FireWeapon", "TakeCover", "IsUnderFire"] {
        let spec = app.catalog().kind(kind).unwrap();
        assert!(
            !spec.is_placeholder(),
            "{kind} is the game's, not a placeholder"
        );
    }
    assert!(
        app.status().contains("is not on this machine"),
        "{}",
        app.status()
    );
    assert!(
        app.status()
            .contains("shown as it declares them: FireWeapon, TakeCover, IsUnderFire"),
        "{}",
        app.status()
    );
    assert_eq!(
        h.query_all_by_label_contains("this is the tree far_game sent")
            .count(),
        2,
        "the panel's note and the status line say so"
    );
    // Back to the tree's own run: the game's kinds go with the game.
    h.get_by_role_and_label(Role::ComboBox, "Game").click();
    h.run_steps(2);
    h.get_by_label("this tree's own run").click();
    h.run_steps(3);
    assert!(
        h.state()
            .catalog()
            .kind("FireWeapon")
            .unwrap()
            .is_placeholder()
    );
    drop(link);
}

#[test]
fn a_game_whose_code_declares_a_kind_otherwise_than_the_projects_library_is_flagged() {
    use arbor::remote::{GameLink, Hello, Listener};
    let tree = common::repo().join("examples/my_game/guard.json");
    // The game's code changed FireWeapon since its library file was written.
    let mut library = my_game_library();
    let fire = library
        .kinds
        .iter_mut()
        .find(|k| k.name == "FireWeapon")
        .unwrap();
    fire.help = "Fires twice as fast.".into();
    let agents = [("soldier-1".to_owned(), tree.clone())];
    let hello = Hello::new("my_game", 0.1, 0, &agents, std::slice::from_ref(&tree))
        .with_library(&library)
        .unwrap();
    let listener = Listener::local(0).unwrap();
    let addr = listener.address().clone();
    let mut h = harness(EditorApp::open(&tree).unwrap().with_listener(listener));
    let link = GameLink::connect_to(&hello, addr);
    choose_game(&mut h, "my_game");
    let status = h.state().status().to_owned();
    assert!(
        status.contains("my_game declares FireWeapon otherwise than this project's libraries"),
        "{status}"
    );
    assert!(
        !status.contains("lack"),
        "the project has every kind: {status}"
    );
    // The project's own declaration stays in use.
    let ours = h.state().catalog().kind("FireWeapon").unwrap();
    assert_eq!(
        ours.help,
        "Fires the equipped weapon at the target in context."
    );
    drop(link);
}

#[test]
fn help_lists_every_command_with_its_shortcuts_and_quit_asks_about_unsaved_changes() {
    let mut h = harness(EditorApp::sample());
    // Help > Commands and Shortcuts…, as a person opens it.
    h.get_by_role_and_label(Role::Button, "Help").click();
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, "Commands and Shortcuts… F1")
        .click();
    h.run_steps(3);
    h.get_by_label("Commands and Shortcuts");
    for c in Command::ALL {
        assert!(
            h.query_all_by_label(c.label()).next().is_some(),
            "{} is listed",
            c.label()
        );
        let keys: Vec<String> = c
            .shortcuts()
            .iter()
            .map(|s| h.ctx.format_shortcut(s))
            .collect();
        if !keys.is_empty() {
            h.get_by_label(&keys.join("  or  "));
        }
        h.get_by_label(c.tooltip());
    }
    // F1 opens it too, once closed.
    let close = h
        .get_by_role_and_label(Role::Button, "Close window")
        .rect()
        .center();
    click_at(&mut h, close, PointerButton::Primary, Modifiers::NONE);
    // (The window fades out.)
    h.run_steps(30);
    assert!(h.query_by_label("Commands and Shortcuts").is_none());
    key(&mut h, Modifiers::NONE, Key::F1);
    h.get_by_label("Commands and Shortcuts");
    // Escape closes it, and so does F1 again.
    key(&mut h, Modifiers::NONE, Key::Escape);
    h.run_steps(30);
    assert!(h.query_by_label("Commands and Shortcuts").is_none());
    key(&mut h, Modifiers::NONE, Key::F1);
    h.get_by_label("Commands and Shortcuts");
    key(&mut h, Modifiers::NONE, Key::F1);
    h.run_steps(30);
    assert!(h.query_by_label("Commands and Shortcuts").is_none());
    // File > Quit with unsaved changes asks first, as closing the window does.
    key(&mut h, Modifiers::COMMAND, Key::A);
    key(&mut h, Modifiers::COMMAND, Key::D);
    assert!(h.state().is_dirty());
    h.get_by_role_and_label(Role::Button, "File").click();
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, "Quit Ctrl+Q").click();
    h.run_steps(3);
    h.get_by_role_and_label(Role::Button, "Don't save");
    // Ctrl+Q asks the same.
    h.get_by_role_and_label(Role::Button, "Cancel").click();
    h.run_steps(3);
    assert!(
        h.query_by_role_and_label(Role::Button, "Don't save")
            .is_none()
    );
    key(&mut h, Modifiers::COMMAND, Key::Q);
    h.get_by_role_and_label(Role::Button, "Don't save");
}

/// Whether `c` draws as itself in the editor's text font: a glyph of its own, not the
/// missing-glyph box. (egui's `has_glyph` also says no for a character that lives in the
/// face its box comes from, so the glyph drawn is compared with the box's.)
fn drawable(ctx: &egui::Context, c: char) -> bool {
    let font = egui::FontId::proportional(14.0);
    if ctx.fonts_mut(|f| f.has_glyph(&font, c)) {
        return true;
    }
    let uv = |s: String| {
        ctx.fonts_mut(|f| {
            let galley = f.layout_no_wrap(s, font.clone(), egui::Color32::WHITE);
            galley.rows[0].glyphs[0].uv_rect
        })
    };
    let missing = uv('\u{10FFFD}'.to_string());
    uv(c.to_string()) != missing
}

#[test]
fn every_character_the_editor_draws_in_text_is_in_its_fonts() {
    // Every non-ASCII character in a string of the editor's and debugger's code (comments
    // left out) has a glyph in the fonts the editor ships with (its text font, with the
    // emoji fonts behind it): none draws as a missing-glyph box.
    let h = harness(EditorApp::sample());
    let mut sources = Vec::new();
    let mut dirs = vec![
        common::repo().join("src/editor"),
        common::repo().join("src/debug"),
    ];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                sources.push(path);
            }
        }
    }
    let mut checked = 0;
    for path in sources {
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            // Only what lies between quotes on the line.
            for (i, part) in code.split('"').enumerate() {
                if i % 2 == 0 {
                    continue;
                }
                for c in part.chars().filter(|c| !c.is_ascii()) {
                    assert!(
                        drawable(&h.ctx, c),
                        "{}:{}: {c:?} (U+{:04X}) has no glyph",
                        path.display(),
                        n + 1,
                        c as u32
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 10, "the scan found the editor's strings");
}

#[test]
fn a_breakpoint_shows_as_a_red_dot_zoomed_out_far_too() {
    let mut h = open_sample("pass_receive");
    h.state_mut().select(Some(NodeId::new("receive")));
    key(&mut h, Modifiers::NONE, Key::F9);
    assert_eq!(h.state().breakpoints().len(), 1);
    h.get_by_label("Breakpoint");
    for _ in 0..12 {
        key(&mut h, Modifiers::COMMAND, Key::Minus);
    }
    h.run_steps(3);
    let scale = h.state().camera().unwrap().scaling;
    assert!(scale < 0.4, "zoomed out far: {scale}");
    // Its dot is still drawn, and large enough to see on screen.
    let dot = h.get_by_label("Breakpoint").rect();
    assert!(
        dot.width() * scale >= 8.0,
        "{} points on screen",
        dot.width() * scale
    );
}

#[test]
fn the_arena_pops_out_into_a_window_as_large_as_it_is_made_and_goes_back() {
    let mut h = open_sample("droid_arena");
    key(&mut h, Modifiers::NONE, Key::N);
    let small = h.get_by_label("Arena").rect();
    h.get_by_role_and_label(Role::Button, "Pop out the arena")
        .click();
    h.run_steps(4);
    h.get_by_label("The arena");
    let large = h.get_by_label("Arena").rect();
    assert!(
        large.width() > 1.5 * small.width(),
        "{} against {} points wide",
        large.width(),
        small.width()
    );
    // It works there as in the panel: a click on an agent watches it.
    let at = in_arena(&h, 2);
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    assert_eq!(h.state().simulation().unwrap().watched(), 2);
    // Put back from the panel.
    h.get_by_role_and_label(Role::Button, "Put the arena back")
        .click();
    h.run_steps(20);
    assert!(h.query_by_label("The arena").is_none());
    assert_eq!(h.get_by_label("Arena").rect().width(), small.width());
}

#[test]
fn the_event_log_and_an_agents_state_are_at_least_12_points() {
    let mut h = open_sample("door_room");
    for _ in 0..3 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    // A log line and a state line, measured as drawn: one line at least 12 points high.
    let state = h.get_by_label_contains("health 100/100").rect();
    assert!(state.height() >= 12.0, "{}", state.height());
    let line = h.get_by_label("step 1").rect();
    assert!(line.height() >= 12.0, "{}", line.height());
}

/// A session of the droid arena scenario, its tree replaced by `tree` as edited, at step
/// `k`.
fn droid_arena_edited_at(tree: &arbor::model::Tree, k: u64) -> arbor::debug::Session {
    let scenario = common::repo().join("sample_trees/droid_arena.scenario.json");
    let text = std::fs::read_to_string(&scenario).unwrap();
    let parsed = arbor::world::parse_scenario(&text, &scenario).unwrap();
    let tree_path = common::repo().join("sample_trees/droid_arena.json");
    let sim = arbor::world::Simulation::with_edited(
        &scenario,
        parsed,
        &arbor::model::Catalog::builtin(),
        0,
        (&tree_path, tree),
        false,
    )
    .unwrap();
    let mut s = arbor::debug::Session::new(sim, 0.1);
    s.run(k, &[]);
    s
}

/// Whether the canvas shows, for every node, the core's node state (status and counts)
/// of `agent`.
fn shows_states_of(
    h: &Harness<'static, EditorApp>,
    core: &arbor::debug::Session,
    agent: &str,
) -> bool {
    let instance = core.sim().instance(agent).unwrap();
    let live = h.state().simulation().unwrap().live();
    instance
        .program()
        .node_ids()
        .iter()
        .zip(instance.node_states())
        .all(|(id, state)| {
            let shown = live.get(&NodeId::new(id.as_str())).map(|l| &l.state);
            match shown {
                Some(s) => {
                    (s.status, s.entries, s.successes, s.failures)
                        == (state.status, state.entries, state.successes, state.failures)
                }
                None => state.entries == 0,
            }
        })
}

#[test]
fn an_edit_at_step_38_reruns_to_step_38_with_the_history_and_undo_brings_the_run_back() {
    let mut h = open_sample("droid_arena");
    for _ in 0..38 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    let agent = h
        .state()
        .simulation()
        .unwrap()
        .watched_name()
        .unwrap()
        .to_owned();
    let original = core_at("droid_arena", 38);
    assert!(shows_states_of(&h, &original, &agent));
    // The designer selects "Closest enemy" and types a new max_distance in the inspector.
    h.state_mut().focus(&NodeId::new("find_target"));
    h.run_steps(3);
    let at = on_node(&h, "find_target");
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    h.get_by_label("max_distance").click();
    h.run_steps(2);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label("max_distance").type_text("2");
    h.key_press(Key::Enter);
    h.run_steps(3);
    let node = h
        .state()
        .tree()
        .node(&NodeId::new("find_target"))
        .unwrap()
        .clone();
    assert_eq!(
        node.fields.get("max_distance"),
        Some(&arbor::model::Value::Float(2.0))
    );
    // The run is taken again to step 38 with the edit, and says so.
    assert!(
        h.state().status().contains("Re-ran 38 steps with the edit"),
        "{}",
        h.state().status()
    );
    assert_eq!(h.state().simulation().unwrap().step_number(), 38);
    let edited = droid_arena_edited_at(h.state().tree(), 38);
    assert!(
        shows_states_of(&h, &edited, &agent),
        "the edited run at step 38"
    );
    assert!(
        !shows_states_of(&h, &original, &agent),
        "which differs from the run before"
    );
    // Its history is there: Shift+← shows step 37 of the edited run.
    key(&mut h, Modifiers::SHIFT, Key::ArrowLeft);
    assert_eq!(h.state().simulation().unwrap().step_number(), 37);
    assert!(shows_states_of(
        &h,
        &droid_arena_edited_at(h.state().tree(), 37),
        &agent
    ));
    // Undo: the tree and the run from before the edit, at step 38.
    key(&mut h, Modifiers::NONE, Key::Escape);
    key(&mut h, Modifiers::COMMAND, Key::Z);
    assert!(
        h.state()
            .status()
            .contains("Back to the run before the edit"),
        "{}",
        h.state().status()
    );
    assert_eq!(h.state().simulation().unwrap().step_number(), 38);
    assert!(shows_states_of(&h, &original, &agent));
    // Redo: the edited run again.
    key(&mut h, Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    assert!(shows_states_of(
        &h,
        &droid_arena_edited_at(h.state().tree(), 37),
        &agent
    ));
}

#[test]
fn moving_a_node_keeps_the_run_and_removing_the_running_leaf_starts_over_saying_why() {
    let mut h = open_sample("door_room");
    for _ in 0..20 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    // A drag of a node changes nothing that runs: the run stays at step 20, unsaid.
    let leaf = h.state().simulation().unwrap().running_leaves()[0].clone();
    h.state_mut().focus(&NodeId::new(leaf.as_str()));
    h.run_steps(3);
    let from = on_node(&h, &leaf);
    drag(
        &mut h,
        from,
        from + egui::vec2(40.0, 30.0),
        PointerButton::Primary,
        Modifiers::NONE,
    );
    assert!(h.state().is_dirty(), "moved");
    assert_eq!(h.state().simulation().unwrap().step_number(), 20);
    assert!(
        !h.state().status().contains("Re-ran"),
        "{}",
        h.state().status()
    );
    // Deleting the leaf the agent runs: the run cannot reach step 20 the same way.
    key(&mut h, Modifiers::NONE, Key::Delete);
    assert!(!h.state().tree().contains(&NodeId::new(leaf.as_str())));
    let said = h.state().status().to_owned();
    assert!(
        said.contains(&format!("removed {leaf}")) && said.contains("starts over"),
        "{said}"
    );
    assert_eq!(h.state().simulation().unwrap().step_number(), 0);
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
    let rename = |h: &mut Harness<'static, EditorApp>, to: &str| {
        h.get_by_label("id").click();
        h.run_steps(2);
        h.key_press_modifiers(Modifiers::COMMAND, Key::A);
        h.get_by_label("id").type_text(to);
        h.key_press(Key::Enter);
        h.run_steps(3);
    };
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
    let centred = |h: &Harness<'static, EditorApp>, id: &str| {
        let canvas = h.state().canvas_rect().unwrap();
        let r = h.state().screen_rect_of(&NodeId::new(id)).unwrap();
        assert!(
            (r.center() - canvas.center()).length() < 3.0,
            "{id} at {r:?}"
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
        let ids: Vec<NodeId> = h
            .state()
            .tree()
            .nodes()
            .iter()
            .map(|n| n.id.clone())
            .collect();
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
        let rects: Vec<(NodeId, egui::Rect)> = h
            .state()
            .tree()
            .nodes()
            .iter()
            .map(|n| (n.id.clone(), h.state().screen_rect_of(&n.id).unwrap()))
            .collect();
        for (i, (a, ra)) in rects.iter().enumerate() {
            for (b, rb) in &rects[i + 1..] {
                assert!(!ra.expand(4.0).intersects(*rb), "{name}: {a} and {b} touch");
            }
        }
    }
}

/// Ctrl+G, `text` typed into the Go to Step field, Enter.
fn go_to_step(h: &mut Harness<'static, EditorApp>, text: &str) {
    key(h, Modifiers::COMMAND, Key::G);
    h.get_by_label("Go to step").type_text(text);
    h.run_steps(1);
    h.key_press(Key::Enter);
    h.run_steps(3);
}

#[test]
fn ctrl_g_goes_to_a_typed_step_of_a_replay_and_of_a_live_run_and_says_a_bad_number() {
    let (_dir, trace) = recorded_guard_patrol();
    let mut h = harness(EditorApp::start(None, Some(&trace), None));
    go_to_step(&mut h, "80");
    h.get_by_label_contains("step 80 of 120");
    lights_match(&h, &core_at("guard_patrol", 80), "guard");
    assert!(h.query_by_label("Go to step").is_none(), "closed");
    // Past the end of the recording: its last step, said.
    go_to_step(&mut h, "1,000");
    h.get_by_label_contains("step 120 of 120");
    assert_eq!(
        h.state().status(),
        "Step 1000 is past the end of the recording: at its last step, 120"
    );
    // No step number: said beside the field and in the status line; the field stays.
    go_to_step(&mut h, "ten");
    h.get_by_label_contains("step 120 of 120");
    let said = "'ten' is not a step number: type a whole number, 0 or more";
    assert_eq!(h.state().status(), said);
    assert!(h.query_all_by_label(said).count() >= 1);
    h.get_by_label("Go to step");
    key(&mut h, Modifiers::NONE, Key::Escape);
    assert!(h.query_by_label("Go to step").is_none(), "Escape closes it");
    // A live run: a past step rebuilt from the history, a later one run to.
    let mut h = open_sample("door_room");
    go_to_step(&mut h, "25");
    h.get_by_label_contains("step 25,");
    lights_match(&h, &core_at("door_room", 25), "visitor");
    go_to_step(&mut h, "7");
    h.get_by_label_contains("step 7,");
    lights_match(&h, &core_at("door_room", 7), "visitor");
}

/// The steps where the replay of `trace` hits a breakpoint on entering `node`.
fn recorded_hits(trace: &std::path::Path, node: &str) -> Vec<u64> {
    let mut r = arbor::debug::Replay::new(arbor::io::read_trace(trace).unwrap());
    let breaks = [arbor::debug::Breakpoint {
        node: node.into(),
        on: arbor::debug::BreakOn::Enter,
    }];
    std::iter::from_fn(|| r.continue_to_hit(&breaks).map(|h| h.step)).collect()
}

#[test]
fn f8_and_shift_f8_go_to_the_next_and_previous_breakpoint_hit_of_a_replay_and_a_live_run() {
    let (_dir, trace) = recorded_guard_patrol();
    let hits = recorded_hits(&trace, "intercept");
    assert!(hits.len() >= 2, "{hits:?}");
    let mut h = harness(EditorApp::start(None, Some(&trace), None));
    // Without a breakpoint: said, nothing moves.
    key(&mut h, Modifiers::NONE, Key::F8);
    assert!(h.state().status().starts_with("No breakpoint on this tree"));
    h.get_by_label_contains("step 0 of 120");
    let at = on_node(&h, "intercept");
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    key(&mut h, Modifiers::NONE, Key::F9);
    for &step in &hits {
        key(&mut h, Modifiers::NONE, Key::F8);
        h.get_by_label_contains(&format!("step {step} of 120"));
        let said = format!("Breakpoint: intercept on enter of guard, step {step}");
        assert!(h.query_all_by_label(&said).count() >= 1, "{said}");
    }
    lights_match(&h, &core_at("guard_patrol", *hits.last().unwrap()), "guard");
    key(&mut h, Modifiers::NONE, Key::F8);
    let last = hits.last().unwrap();
    assert_eq!(
        h.state().status(),
        format!("No breakpoint hit after step {last}")
    );
    h.get_by_label_contains(&format!("step {last} of 120"));
    // Back, from the menu and then its shortcut.
    h.get_by_role_and_label(Role::Button, "Simulation").click();
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, "Previous Breakpoint Hit Shift+F8")
        .click();
    h.run_steps(3);
    let before_last = hits[hits.len() - 2];
    h.get_by_label_contains(&format!("step {before_last} of 120"));
    lights_match(&h, &core_at("guard_patrol", before_last), "guard");
    for _ in 0..hits.len() {
        key(&mut h, Modifiers::SHIFT, Key::F8);
    }
    h.get_by_label_contains(&format!("step {} of 120", hits[0]));
    assert_eq!(
        h.state().status(),
        format!("No breakpoint hit before step {}", hits[0])
    );
    // A live run: F8 runs on to the step where the core stops; Shift+F8 comes back.
    let mut h = open_sample("droid_arena");
    h.state_mut().select(Some(NodeId::new("attack")));
    key(&mut h, Modifiers::NONE, Key::F9);
    let breaks = [arbor::debug::Breakpoint {
        node: "attack".into(),
        on: arbor::debug::BreakOn::Enter,
    }];
    let mut core = core_at("droid_arena", 0);
    let first = core.run(1000, &breaks)[0].step;
    let second = core.run(1000, &breaks)[0].step;
    key(&mut h, Modifiers::NONE, Key::F8);
    key(&mut h, Modifiers::NONE, Key::F8);
    assert_eq!(h.state().simulation().unwrap().step_number(), second);
    let watched = h.state().simulation().unwrap().watched_name().unwrap();
    lights_match(&h, &core, watched);
    key(&mut h, Modifiers::SHIFT, Key::F8);
    assert_eq!(h.state().simulation().unwrap().step_number(), first);
    assert!(
        h.state()
            .status()
            .starts_with("Breakpoint: attack on enter"),
        "{}",
        h.state().status()
    );
}

#[test]
fn the_hit_commands_and_go_to_step_are_greyed_out_without_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("door_room.json");
    std::fs::copy(common::repo().join("sample_trees/door_room.json"), &copy).unwrap();
    let mut h = harness(EditorApp::open(&copy).unwrap());
    h.get_by_label_contains("uses world nodes");
    h.get_by_role_and_label(Role::Button, "Simulation").click();
    h.run_steps(2);
    for item in [
        "Go to Step… Ctrl+G",
        "Next Breakpoint Hit F8",
        "Previous Breakpoint Hit Shift+F8",
    ] {
        assert!(
            h.get_by_role_and_label(Role::Button, item)
                .accesskit_node()
                .is_disabled(),
            "{item}"
        );
    }
    key(&mut h, Modifiers::NONE, Key::Escape);
    key(&mut h, Modifiers::NONE, Key::F8);
    key(&mut h, Modifiers::COMMAND, Key::G);
    assert!(h.query_by_label("Go to step").is_none());
}

#[test]
fn the_palette_lists_a_command_named_by_the_word_typed_before_one_whose_tooltip_has_it() {
    let mut h = open_sample("droid_arena");
    h.state_mut().select(Some(NodeId::new("attack")));
    key(&mut h, Modifiers::COMMAND | Modifiers::SHIFT, Key::P);
    h.get_by_label("Command palette").type_text("breakpoint");
    h.run_steps(2);
    let rows: Vec<String> = h
        .query_all_by_role(Role::Button)
        .filter_map(|n| n.accesskit_node().label())
        .filter(|l| l.contains("  ·  "))
        .collect();
    assert!(rows[0].starts_with("Toggle Breakpoint"), "{rows:?}");
    assert!(rows.iter().any(|r| r.starts_with("Step ×10")), "{rows:?}");
    let step10 = rows.iter().position(|r| r.starts_with("Step ×10")).unwrap();
    assert!(
        rows[..step10].iter().all(|r| r.contains("Breakpoint")),
        "{rows:?}"
    );
    // Enter runs the first: a breakpoint on the selected node.
    h.key_press(Key::Enter);
    h.run_steps(3);
    assert_eq!(
        h.state().commands_run().last(),
        Some(&Command::ToggleBreakpoint)
    );
    assert_eq!(h.state().breakpoints().len(), 1);
}

/// The editor as `arbor edit ARGS…` opens it: the command line parsed as the binary
/// parses it.
fn edit_with(args: &[&str]) -> EditorApp {
    use clap::Parser;
    let line = ["arbor", "edit"].into_iter().chain(args.iter().copied());
    let Some(arbor::cli::Command::Edit {
        file, trace, start, ..
    }) = arbor::cli::Cli::try_parse_from(line).unwrap().command
    else {
        panic!("an edit command");
    };
    let from = start.run_from().unwrap();
    assert!(
        trace.is_none() || from.only_where(),
        "refused by arbor edit"
    );
    EditorApp::launch(file.as_deref(), trace.as_deref(), None, &from)
}

#[test]
fn edit_with_a_trace_at_a_step_opens_the_replay_there_and_a_step_past_its_end_at_its_last() {
    let (_dir, trace) = recorded_guard_patrol();
    let path = trace.to_str().unwrap();
    let h = harness(edit_with(&["--trace", path, "--at", "80"]));
    assert_eq!(
        h.state().document().path().unwrap().file_name().unwrap(),
        "guard_patrol.json"
    );
    h.get_by_label_contains("replaying run.jsonl");
    h.get_by_label_contains("step 80 of 120");
    lights_match(&h, &core_at("guard_patrol", 80), "guard");
    assert_eq!(h.state().status(), "At step 80");
    let h = harness(edit_with(&["--trace", path, "--at", "5000"]));
    h.get_by_label_contains("step 120 of 120");
    assert_eq!(
        h.state().status(),
        "Step 5000 is past the end of the recording: at its last step, 120"
    );
    // An agent that is not in the trace is said; the step is still taken.
    let h = harness(edit_with(&[
        "--trace", path, "--at", "3", "--watch", "nobody",
    ]));
    h.get_by_label_contains("step 3 of 120");
    assert_eq!(
        h.state().status(),
        "--watch nobody: no agent of the trace has that name"
    );
}

#[test]
fn the_timeline_says_how_many_steps_a_breakpoint_hits_in_its_lane() {
    let (_dir, trace) = recorded_guard_patrol();
    let hits = recorded_hits(&trace, "intercept");
    let mut h = harness(EditorApp::start(None, Some(&trace), None));
    h.get_by_label("Timeline").hover();
    h.run_steps(40);
    assert!(h.query_by_label_contains("The red lane").is_none());
    let at = on_node(&h, "intercept");
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    key(&mut h, Modifiers::NONE, Key::F9);
    h.get_by_label("Timeline").hover();
    h.run_steps(40);
    h.get_by_label_contains(&format!(
        "The red lane: the steps where a breakpoint hits ({} of 120)",
        hits.len()
    ));
}

#[test]
fn the_event_log_names_an_untitled_node_by_its_kind_and_id_and_a_titled_one_by_its_title() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_samples(
        dir.path(),
        &["hungry_agent.json", "hungry_agent.scenario.json"],
    );
    let tree = dir.path().join("hungry_agent.json");
    let text = std::fs::read_to_string(&tree).unwrap();
    std::fs::write(&tree, text.replace("\"title\": \"Eat or idle\",", "")).unwrap();
    let mut h = harness(EditorApp::open(&tree).unwrap());
    key(&mut h, Modifiers::NONE, Key::N);
    h.get_by_label_contains("Selector `choose` entered");
    h.get_by_label_contains("Root `root` entered");
    let titled = |h: &Harness<'static, EditorApp>| {
        h.query_by_label_contains("Have a meal entered").is_some()
            || h.query_by_label_contains("Idle about entered").is_some()
    };
    assert!(titled(&h), "a titled node by its title");
    assert!(h.query_by_label_contains("Selector entered").is_none());
    // A replay of that run names them alike.
    let trace = record(&dir.path().join("hungry_agent.scenario.json"), 5);
    let mut h = harness(EditorApp::start(None, Some(&trace), None));
    key(&mut h, Modifiers::NONE, Key::N);
    h.get_by_label_contains("Selector `choose` entered");
    assert!(titled(&h));
}
