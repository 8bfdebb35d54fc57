//! The editor, driven through egui_kittest by accessibility labels.

use crate::common;
use crate::support::{click_in_side_panel, type_into};

use arbor::editor::EditorApp;
use arbor::io::tree_to_string;
use arbor::model::{NodeId, Port};
use eframe::egui;
use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn harness(app: EditorApp) -> Harness<'static, EditorApp> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 860.0))
        .build_eframe(|_cc| app);
    h.run_steps(4);
    h
}

#[test]
fn opens_the_bundled_sample_with_its_nodes_and_no_problems() {
    let h = harness(EditorApp::sample());
    h.get_by_label("Fight, flee or wander");
    h.get_by_label("Attack a weaker droid");
    h.get_by_label("Problems (0 errors, 0 warnings)");
    assert_eq!(h.state().tree().len(), 11);
}

#[test]
fn adding_from_the_palette_then_undo_and_redo_restore_the_exact_model() {
    let mut h = harness(EditorApp::sample());
    let original = h.state().tree().clone();
    h.get_by_role_and_label(Role::Button, "Parallel").click();
    h.run_steps(3);
    assert_eq!(h.state().tree().len(), original.len() + 1);
    let added = h.state().tree().clone();
    assert_eq!(added.nodes().last().unwrap().kind, "Parallel");
    // The new composite has no children: the Problems panel says so.
    h.get_by_label_contains("this composite has no children");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run_steps(3);
    assert_eq!(h.state().tree(), &original);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Y);
    h.run_steps(3);
    assert_eq!(h.state().tree(), &added);
}

#[test]
fn the_palette_filters_by_typed_text() {
    let mut h = harness(EditorApp::sample());
    h.get_by_label("Find a kind").click();
    h.run_steps(2);
    h.get_by_label("Find a kind").type_text("random");
    h.run_steps(3);
    h.get_by_role_and_label(Role::Button, "RandomSequence");
    assert!(
        h.query_by_role_and_label(Role::Button, "Parallel")
            .is_none()
    );
}

#[test]
fn linking_leaf_to_sequence_to_root_and_a_refused_link_shows_its_reason() {
    let mut app = EditorApp::new(arbor::model::Tree::new(), None);
    let root = app.add_node("Root", [600.0, 0.0]).unwrap();
    let seq = app.add_node("Sequence", [300.0, 0.0]).unwrap();
    let leaf = app.add_node("Wait", [0.0, 0.0]).unwrap();
    assert!(app.link(&leaf, &seq, Port::Children, 0));
    assert!(app.link(&seq, &root, Port::Child, 0));
    assert!(
        app.diagnostics().iter().all(|d| !d.is_error()),
        "{:?}",
        app.diagnostics()
    );
    // A leaf has no inputs: refused, with the reason in the status line.
    assert!(!app.link(&seq, &leaf, Port::Children, 0));
    let mut h = harness(app);
    h.get_by_label_contains("nothing links into a Leaf");
    h.run_steps(1);
    let tree = h.state().tree();
    assert_eq!(tree.node(&seq).unwrap().linked(Port::Children), &[leaf]);
    assert_eq!(tree.node(&root).unwrap().linked(Port::Child), &[seq]);
}

#[test]
fn dropping_on_an_occupied_single_slot_replaces_the_link() {
    let mut app = EditorApp::sample();
    let root = NodeId::new("root");
    let wander = NodeId::new("wander");
    assert!(app.link(&wander, &root, Port::Child, 0));
    assert_eq!(
        app.tree().node(&root).unwrap().linked(Port::Child),
        &[wander]
    );
    assert!(app.tree().parent_of(&NodeId::new("choose")).is_none());
    app.undo();
    assert_eq!(
        app.tree().node(&root).unwrap().linked(Port::Child),
        &[NodeId::new("choose")]
    );
}

#[test]
fn save_then_reload_is_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("saved.json");
    let mut app = EditorApp::sample();
    app.add_node("Wait", [10.5, 20.25]);
    assert!(app.is_dirty());
    assert!(app.save_to(&path));
    assert!(!app.is_dirty());
    assert!(app.title().starts_with("saved.json"), "{}", app.title());
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text, tree_to_string(app.tree()));
    let reopened = EditorApp::open(&path).unwrap();
    assert_eq!(reopened.tree(), app.tree());
    assert_eq!(tree_to_string(reopened.tree()), text);
}

#[test]
fn opening_an_invalid_file_shows_the_error_and_keeps_the_tree() {
    let mut app = EditorApp::sample();
    let before = app.tree().clone();
    let bad = common::repo().join("tests/fixtures/unreadable/truncated.json");
    assert!(!app.open_path(&bad));
    assert_eq!(app.tree(), &before);
    let h = harness(app);
    h.get_by_label_contains("truncated.json:6:1: EOF while parsing");
}

#[test]
fn the_title_shows_the_file_and_a_dirty_marker() {
    let mut app = EditorApp::open(&common::repo().join("sample_trees/door_room.json")).unwrap();
    assert_eq!(app.title(), "door_room.json — Arbor");
    app.add_node("Wait", [0.0, 0.0]);
    assert_eq!(app.title(), "door_room.json • — Arbor");
}

#[test]
fn the_inspector_edits_fields_and_typing_is_one_undo_step() {
    let mut app = EditorApp::sample();
    app.select(Some(NodeId::new("wander")));
    let before = app.tree().clone();
    let mut h = harness(app);
    h.get_by_label("Inspector");
    h.get_by_label_contains("Walks to random points");
    // Type a new title: every keystroke changes the model, the whole typing is one undo step.
    h.get_by_label("title").click();
    h.run_steps(2);
    h.get_by_label("title").type_text(" about");
    h.run_steps(3);
    assert_eq!(
        h.state().tree().node(&NodeId::new("wander")).unwrap().title,
        "Wander about"
    );
    h.get_by_label("max_duration").click(); // ends the typing gesture
    h.run_steps(3);
    undo(&mut h);
    assert_eq!(h.state().tree(), &before);
}

#[test]
fn the_inspector_sets_a_boolean_and_remove_takes_the_node_out() {
    let mut app = EditorApp::sample();
    let id = NodeId::new("find_target");
    app.select(Some(id.clone()));
    let mut h = harness(app);
    h.get_by_role_and_label(Role::CheckBox, "overwrite_out")
        .click();
    h.run_steps(3);
    let node = h.state().tree().node(&id).unwrap().clone();
    assert_eq!(
        node.fields.get("overwrite_out"),
        Some(&arbor::model::Value::Bool(false))
    );
    click_in_side_panel(&mut h, "Remove node");
    assert!(h.state().tree().node(&id).is_none());
    // Removing it left its parent Sequence with one child fewer, and a valid tree.
    assert_eq!(
        h.state()
            .tree()
            .node(&NodeId::new("attack"))
            .unwrap()
            .linked(Port::Children)
            .len(),
        3
    );
    undo(&mut h);
    assert!(h.state().tree().node(&id).is_some());
}

#[test]
fn a_wire_dropped_on_the_canvas_offers_only_kinds_that_fit_and_links_the_new_node() {
    use arbor::editor::{Attach, kinds_fitting};
    use arbor::model::{Catalog, ParentSlot};
    let mut app = EditorApp::sample();
    let catalog = Catalog::builtin();
    // From a Sequence's conditions input: conditions only.
    let into_guard = Attach::Into(ParentSlot {
        parent: NodeId::new("attack"),
        port: Port::Conditions,
        slot: 0,
    });
    let kinds = kinds_fitting(app.tree(), &catalog, &into_guard);
    assert!(
        kinds
            .iter()
            .all(|k| catalog.category_of(k) == Some(arbor::model::Category::Condition)),
        "{kinds:?}"
    );
    assert!(kinds.contains(&"IsHealthBelow".to_string()));
    // From a leaf's parent output: only kinds with an input that takes a leaf.
    let above = Attach::Above(NodeId::new("wander"));
    let kinds = kinds_fitting(app.tree(), &catalog, &above);
    for fits in ["Inverter", "Root", "Sequence", "Interrupt"] {
        assert!(kinds.contains(&fits.to_string()), "{fits}: {kinds:?}");
    }
    for not in ["Wait", "IsHungry", "SubTree"] {
        assert!(!kinds.contains(&not.to_string()), "{not}: {kinds:?}");
    }

    let guard = app
        .add_attached("IsHealthBelow", [0.0, 0.0], &into_guard)
        .unwrap();
    assert_eq!(
        app.tree()
            .node(&NodeId::new("attack"))
            .unwrap()
            .linked(Port::Conditions),
        &[guard]
    );
    let inverter = app.add_attached("Inverter", [0.0, 0.0], &above).unwrap();
    assert_eq!(
        app.tree().node(&inverter).unwrap().linked(Port::Child),
        &[NodeId::new("wander")]
    );
    assert!(
        app.tree().parent_of(&inverter).is_none(),
        "the new parent starts loose"
    );
    // Each add was one undo step.
    app.undo();
    app.undo();
    assert_eq!(app.tree(), EditorApp::sample().tree());
}

#[test]
fn new_with_unsaved_changes_asks_first() {
    let mut app = EditorApp::sample();
    app.set_recent(vec![std::path::PathBuf::from("/trees/earlier.json")]);
    app.add_node("Wait", [0.0, 0.0]);
    let edited = app.tree().clone();
    let mut h = harness(app);
    let open_file_menu_and_click_new = |h: &mut Harness<'static, EditorApp>| {
        h.get_by_label("File").click();
        h.run_steps(2);
        h.get_by_role_and_label(Role::Button, "New Ctrl+N").click();
        h.run_steps(3);
    };
    open_file_menu_and_click_new(&mut h);
    h.get_by_label_contains("Save them first?");
    h.get_by_role_and_label(Role::Button, "Cancel").click();
    h.run_steps(3);
    assert!(h.state().pending().is_none());
    assert_eq!(h.state().tree(), &edited);
    let recent = h.state().recent().to_vec();
    open_file_menu_and_click_new(&mut h);
    h.get_by_role_and_label(Role::Button, "Don't save").click();
    h.run_steps(3);
    assert_eq!(h.state().tree().len(), 1, "a new tree: its Root");
    assert!(!h.state().is_dirty());
    assert_eq!(h.state().recent(), recent, "New keeps the recent files");
}

#[test]
fn auto_layout_puts_root_right_and_children_top_to_bottom_in_slot_order() {
    let mut app = EditorApp::sample();
    for n in app
        .tree()
        .nodes()
        .iter()
        .map(|n| n.id.clone())
        .collect::<Vec<_>>()
    {
        app.apply(arbor::model::Edit::SetPosition {
            id: n,
            position: [0.0, 0.0],
        });
    }
    let scrambled = app.tree().clone();
    app.auto_layout();
    let pos = |id: &str| app.tree().node(&NodeId::new(id)).unwrap().position;
    let root = pos("root");
    assert!(
        app.tree().nodes().iter().all(|n| n.position[0] <= root[0]),
        "Root is rightmost"
    );
    assert!(pos("choose")[0] < root[0] && pos("attack")[0] < pos("choose")[0]);
    // Slot order is top to bottom.
    let kids = ["attack", "flee", "wander"].map(|k| pos(k)[1]);
    assert!(kids[0] < kids[1] && kids[1] < kids[2], "{kids:?}");
    let leaves = ["find_target", "weaker", "approach", "hit"].map(|k| pos(k)[1]);
    assert!(leaves.windows(2).all(|w| w[0] < w[1]), "{leaves:?}");
    // One undo step.
    app.undo();
    assert_eq!(app.tree(), &scrambled);
}

fn assert_centred(h: &Harness<'_, EditorApp>, id: &NodeId) {
    let app = h.state();
    let at = app.screen_centre_of(id).unwrap();
    let centre = app.canvas_rect().unwrap().center();
    assert!(
        (at - centre).length() < 2.0,
        "{id} is at {at:?}, the view centre is {centre:?}"
    );
}

#[test]
fn clicking_a_problem_selects_its_node_and_centres_the_view_on_it() {
    let mut h = harness(EditorApp::sample());
    // Added after the view was fitted to the sample, far away (the view, which follows a
    // node added, put back).
    let view = h.state().camera().unwrap();
    let far = h
        .state_mut()
        .add_node("Parallel", [2600.0, -1800.0])
        .unwrap();
    h.state_mut().select(None);
    h.run_steps(4);
    h.state_mut().pin_view(view);
    h.run_steps(2);
    let at = h.state().screen_centre_of(&far).unwrap();
    assert!(
        !h.state().canvas_rect().unwrap().contains(at),
        "the node starts out of view"
    );
    h.get_by_label_contains("this composite has no children")
        .click();
    h.run_steps(3);
    assert_eq!(h.state().selected(), Some(&far));
    assert_centred(&h, &far);
    // The inspector shows it.
    assert_eq!(h.get_by_label("id").value().as_deref(), Some(far.as_str()));
}

#[test]
fn enter_in_the_palette_adds_the_first_match_at_the_view_centre() {
    let mut h = harness(EditorApp::sample());
    let n = h.state().tree().len();
    h.get_by_label("Find a kind").click();
    h.run_steps(2);
    h.get_by_label("Find a kind").type_text("until");
    h.run_steps(2);
    h.key_press(egui::Key::Enter);
    h.run_steps(3);
    assert_eq!(h.state().tree().len(), n + 1);
    let added = h.state().tree().nodes().last().unwrap().clone();
    assert_eq!(added.kind, "UntilFail");
    assert_eq!(h.state().selected(), Some(&added.id));
    // In view, near its centre, on a free place.
    let rect = h.state().screen_rect_of(&added.id).unwrap();
    let canvas = h.state().canvas_rect().unwrap();
    assert!(canvas.contains_rect(rect), "{rect:?} in {canvas:?}");
    assert_overlaps_none(&h, &added.id);
    // A second one does not hide the first.
    h.get_by_role_and_label(Role::Button, "UntilFail").click();
    h.run_steps(3);
    let second = h.state().tree().nodes().last().unwrap().clone();
    assert_ne!(second.id, added.id);
    assert_overlaps_none(&h, &second.id);
}

/// `id` is drawn where it overlaps no other node.
fn assert_overlaps_none(h: &Harness<'_, EditorApp>, id: &NodeId) {
    let app = h.state();
    let mine = app.screen_rect_of(id).unwrap();
    for n in app.tree().nodes().iter().filter(|n| n.id != *id) {
        let other = app.screen_rect_of(&n.id).unwrap();
        assert!(
            !mine.intersects(other),
            "{id} {mine:?} overlaps {} {other:?}",
            n.id
        );
    }
}

#[test]
fn move_up_and_down_in_the_inspector_change_the_execution_order() {
    let mut app = EditorApp::sample();
    app.select(Some(NodeId::new("approach")));
    let mut h = harness(app);
    let order = |h: &Harness<'_, EditorApp>| {
        h.state()
            .tree()
            .node(&NodeId::new("attack"))
            .unwrap()
            .linked(Port::Children)
            .iter()
            .map(|n| n.as_str().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(order(&h), ["find_target", "weaker", "approach", "hit"]);
    h.get_by_label_contains("slot 2 of attack.children (4 linked)");
    click_in_side_panel(&mut h, "Move up");
    assert_eq!(order(&h), ["find_target", "approach", "weaker", "hit"]);
    h.get_by_label_contains("slot 1 of attack.children");
    click_in_side_panel(&mut h, "Move down");
    click_in_side_panel(&mut h, "Move down");
    assert_eq!(order(&h), ["find_target", "weaker", "hit", "approach"]);
    // At the end of the list it cannot go further down.
    click_in_side_panel(&mut h, "Move down");
    assert_eq!(order(&h), ["find_target", "weaker", "hit", "approach"]);
    for _ in 0..3 {
        h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
        h.run_steps(2);
    }
    assert_eq!(order(&h), ["find_target", "weaker", "approach", "hit"]);
}

#[test]
fn comments_are_shown_on_the_canvas() {
    let mut h = harness(EditorApp::sample());
    common::input::key(&mut h, Modifiers::COMMAND, Key::Num0);
    // `hit` is not selected, so this text can only come from the node on the canvas.
    assert!(h.state().selected().is_none());
    h.get_by_label("Succeeds when the target is destroyed.");
}

#[test]
fn fields_are_edited_inside_the_node_and_typing_is_one_undo_step() {
    let h0 = EditorApp::sample();
    let before = h0.tree().clone();
    let mut h = harness(h0);
    common::input::key(&mut h, Modifiers::COMMAND, Key::Num0);
    assert!(
        h.state().selected().is_none(),
        "no inspector: the node body is the only editor"
    );
    let id = NodeId::new("approach");
    h.state_mut().focus(&id);
    h.state_mut().select(None);
    h.run_steps(3);
    // Canvas widgets sit under the view's zoom, which accessibility bounds do not include,
    // so they are reached through accessibility actions rather than pointer positions.
    h.get_by_label("approach: waypoint").focus();
    h.run_steps(2);
    h.get_by_label("approach: waypoint").type_text("gate");
    h.run_steps(3);
    assert_eq!(
        h.state().tree().node(&id).unwrap().fields.get("waypoint"),
        Some(&arbor::model::Value::Text("gate".into()))
    );
    // A drop-down in another node.
    h.get_by_label("find_target: what").click_accesskit();
    h.run_steps(2);
    h.get_by_label("food").click_accesskit();
    h.run_steps(3);
    assert_eq!(
        h.state()
            .tree()
            .node(&NodeId::new("find_target"))
            .unwrap()
            .fields
            .get("what"),
        Some(&arbor::model::Value::Text("food".into()))
    );
    undo(&mut h);
    undo(&mut h);
    assert_eq!(h.state().tree(), &before, "two gestures, two undo steps");
}

#[test]
fn a_subtree_opens_its_asset_and_asset_paths_are_written_relative() {
    let guard = common::repo().join("sample_trees/guard_patrol.json");
    let mut app = EditorApp::open(&guard).unwrap();
    app.select(Some(NodeId::new("patrol")));
    let mut h = harness(app);
    h.get_by_role_and_label(Role::Button, "Browse…");
    h.get_by_role_and_label(Role::Button, "Open").click();
    h.run_steps(3);
    assert!(
        h.state().title().starts_with("patrol.json"),
        "{}",
        h.state().title()
    );
    assert!(h.state().tree().node(&NodeId::new("route")).is_some());
    // Both files are now recent, newest first.
    let recent: Vec<String> = h
        .state()
        .recent()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(recent, ["patrol.json", "guard_patrol.json"]);

    use arbor::editor::relative_asset;
    use std::path::Path;
    let tree = Path::new("/game/ai/guard.json");
    assert_eq!(
        relative_asset(Some(tree), Path::new("/game/ai/subtrees/patrol.json")),
        "subtrees/patrol.json"
    );
    assert_eq!(
        relative_asset(Some(tree), Path::new("/game/shared/flee.json")),
        "../shared/flee.json"
    );
    assert_eq!(
        relative_asset(None, Path::new("/game/shared/flee.json")),
        "/game/shared/flee.json"
    );
}

#[test]
fn open_recent_reopens_a_file_and_asks_about_unsaved_changes_first() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.json");
    let mut app = EditorApp::sample();
    assert!(app.recent().is_empty());
    assert!(app.save_to(&copy));
    assert!(app.open_path(&common::repo().join("sample_trees/door_room.json")));
    assert_eq!(app.recent().len(), 2);
    app.add_node("Wait", [0.0, 0.0]); // unsaved change
    let mut h = harness(app);
    h.get_by_label("File").click();
    h.run_steps(2);
    h.get_by_label_contains("Open Recent").hover();
    h.run_steps(2);
    h.get_by_label("copy.json").click();
    h.run_steps(3);
    h.get_by_label("Unsaved changes");
    h.get_by_role_and_label(Role::Button, "Don't save").click();
    h.run_steps(3);
    assert!(
        h.state().title().starts_with("copy.json"),
        "{}",
        h.state().title()
    );
    assert_eq!(
        h.state().recent()[0].file_name().unwrap(),
        "copy.json",
        "the reopened file comes first"
    );
}

#[test]
fn every_kind_can_be_added_from_the_palette() {
    let catalog = arbor::model::Catalog::builtin();
    let mut h = harness(EditorApp::new(arbor::model::Tree::new(), None));
    for (i, kind) in catalog.kinds().iter().enumerate() {
        // Filter first, so the button is in view whatever the palette's length.
        h.get_by_label("Find a kind").focus();
        h.run_steps(1);
        h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
        h.get_by_label("Find a kind").type_text(&kind.name);
        h.run_steps(2);
        h.get_by_role_and_label(Role::Button, &kind.name).click();
        h.run_steps(2);
        let tree = h.state().tree();
        assert_eq!(tree.len(), i + 1, "{}", kind.name);
        let added = tree.nodes().last().unwrap();
        assert_eq!(added.kind, kind.name);
        assert_eq!(h.state().selected(), Some(&added.id));
    }
    // Each drew on the canvas without trouble, and the inspector shows the last one.
    h.get_by_label(catalog.kinds().last().unwrap().help.as_str());
}

#[test]
fn a_kind_dragged_from_the_palette_lands_where_it_is_dropped() {
    let mut app = EditorApp::sample();
    // The sample far to the right: the canvas is empty where the kinds are dropped.
    app.pin_view(egui::emath::TSTransform::from_translation(egui::vec2(
        3000.0, 0.0,
    )));
    let mut h = harness(app);
    let n = h.state().tree().len();
    let drag = |h: &mut Harness<'static, EditorApp>, to: egui::Pos2| {
        let from = h
            .get_by_role_and_label(Role::Button, "Inverter")
            .rect()
            .center();
        h.drag_at(from);
        h.run_steps(1);
        for k in 1..=6 {
            h.hover_at(from + (to - from) * (k as f32 / 6.0));
            h.run_steps(1);
        }
        h.drop_at(to);
        h.run_steps(3);
        h.state().tree().nodes().last().unwrap().clone()
    };
    let to = h.state().canvas_rect().unwrap().center();
    let added = drag(&mut h, to);
    assert_eq!(h.state().tree().len(), n + 1);
    assert_eq!(added.kind, "Inverter");
    let rect = h.state().screen_rect_of(&added.id).unwrap();
    assert!(rect.contains(to), "dropped at {to:?}, drawn at {rect:?}");
    // A second drop on the first lands beside it.
    let second = drag(&mut h, to);
    assert_eq!(h.state().tree().len(), n + 2);
    assert_overlaps_none(&h, &second.id);
}

#[test]
fn bodies_outside_the_view_are_not_drawn_until_they_come_into_view() {
    // A long column of 300 leaves, too tall to fit at a legible zoom: it opens with its
    // Root in view and most of the column off screen.
    let mut nodes =
        vec![r#"{"id": "root", "kind": "Root", "inputs": {"child": ["all"]}}"#.to_owned()];
    let leaves: Vec<String> = (0..300).map(|i| format!("\"w{i}\"")).collect();
    nodes.push(format!(
        r#"{{"id": "all", "kind": "Sequence", "inputs": {{"children": [{}]}}}}"#,
        leaves.join(", ")
    ));
    for i in 0..300 {
        nodes.push(format!(
            r#"{{"id": "w{i}", "kind": "Wait", "fields": {{"seconds": {i}}}}}"#
        ));
    }
    let text = format!(
        r#"{{"format": "arbor.tree", "version": 1, "nodes": [{}]}}"#,
        nodes.join(",")
    );
    let tree = arbor::io::parse_tree(&text, std::path::Path::new("long.json")).unwrap();
    let mut app = EditorApp::new(tree, None);
    app.auto_layout();
    let mut h = harness(app);
    h.run_steps(2);
    let seen = |h: &Harness<'_, EditorApp>, id: &str| {
        h.query_by_label(&format!("{id}: seconds")).is_some()
    };
    let drawn = (0..300).filter(|i| seen(&h, &format!("w{i}"))).count();
    assert!(drawn > 0 && drawn < 100, "{drawn} of 300 bodies drawn");
    assert!(!seen(&h, "w299"), "the bottom is not drawn");
    h.state_mut().focus(&NodeId::new("w299"));
    h.run_steps(3);
    assert!(seen(&h, "w299"), "centred, it is drawn");
    assert!(!seen(&h, "w0"));
}

#[test]
fn recent_files_are_kept_between_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    let settings = arbor::io::SettingsFile::new(dir.path().join("settings.json"));
    let mut first = EditorApp::sample().with_settings(settings.clone());
    assert!(first.save_to(&a));
    assert!(first.save_to(&b));
    first.write_settings();
    std::fs::remove_file(&a).unwrap(); // gone since: dropped from the list
    // The next run opened door_room.json from the command line.
    let next = EditorApp::open(&common::repo().join("sample_trees/door_room.json"))
        .unwrap()
        .with_settings(settings);
    let names: Vec<String> = next
        .recent()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["door_room.json", "b.json"]);
}

#[test]
fn dragging_a_node_on_the_canvas_moves_it_in_one_undo_step() {
    let mut app = EditorApp::sample();
    // Pin the view: graph coordinates are screen coordinates, so pointer positions (and
    // accessibility bounds, which ignore the canvas zoom) are where the nodes are drawn.
    app.auto_layout();
    app.pin_view(egui::emath::TSTransform::IDENTITY);
    let before = app.tree().clone();
    let id = NodeId::new("choose");
    let mut h = harness(app);
    let start = h.state().tree().node(&id).unwrap().position;
    // Grab the node by its title.
    let title = h.get_by_label("Fight, flee or wander").rect();
    let grab = title.center();
    assert!(h.state().canvas_rect().unwrap().contains(grab), "{grab:?}");
    let by = egui::vec2(120.0, 60.0);
    h.drag_at(grab);
    h.run_steps(1);
    for k in 1..=6 {
        h.hover_at(grab + by * (k as f32 / 6.0));
        h.run_steps(1);
    }
    h.drop_at(grab + by);
    h.run_steps(3);
    let end = h.state().tree().node(&id).unwrap().position;
    assert!(
        (end[0] - start[0] - by.x).abs() < 1.0 && (end[1] - start[1] - by.y).abs() < 1.0,
        "moved from {start:?} to {end:?}"
    );
    undo(&mut h);
    assert_eq!(h.state().tree(), &before, "the whole drag was one step");
}

#[test]
fn step_runs_the_tree_in_its_scenario_and_lights_the_running_nodes() {
    let app = EditorApp::open(&common::repo().join("sample_trees/door_room.json")).unwrap();
    let panel = app
        .simulation()
        .expect("door_room.scenario.json is found beside the tree");
    assert!(panel.error().is_none(), "{:?}", panel.error());
    let mut h = harness(app);
    h.get_by_label_contains("in door_room.scenario.json");
    for _ in 0..3 {
        h.get_by_role_and_label(Role::Button, "Step").click();
        h.run_steps(2);
    }
    let sim = h.state().simulation().unwrap().sim().unwrap();
    assert_eq!(sim.world().step_number(), 3);
    h.get_by_label_contains("step 3, 0.3 s");
    // Not yet in the room: it is on its way to the door.
    use arbor::runtime::Status;
    assert_eq!(
        h.state().live_status(&NodeId::new("to_door")),
        Some(Status::Running)
    );
    assert_eq!(
        h.state().live_status(&NodeId::new("enter_room")),
        Some(Status::Running)
    );
    assert_eq!(
        h.state().live_status(&NodeId::new("stay")),
        Some(Status::Failure)
    );
    // The visitor's state is shown.
    h.get_by_label("visitor: state");
    h.get_by_label_contains("at (");
    // An edit takes the run again to the step shown, with the tree as edited: the Rest
    // node's seconds typed in the inspector.
    h.state_mut().focus(&NodeId::new("rest"));
    h.run_steps(2);
    type_into(&mut h, "seconds", "1");
    assert_eq!(
        h.state()
            .tree()
            .node(&NodeId::new("rest"))
            .unwrap()
            .fields
            .get("seconds"),
        Some(&arbor::model::Value::Float(1.0))
    );
    let sim = h.state().simulation().unwrap().sim().unwrap();
    assert_eq!(sim.world().step_number(), 3);
    h.get_by_label_contains("Re-ran 3 steps with the edit");
    // Reset starts it over.
    h.get_by_role_and_label(Role::Button, "Step").click();
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, "Reset").click();
    h.run_steps(2);
    assert_eq!(
        h.state()
            .simulation()
            .unwrap()
            .sim()
            .unwrap()
            .world()
            .step_number(),
        0
    );
}

#[test]
fn the_bundled_sample_opens_with_its_scenario_and_an_invalid_tree_says_why_it_cannot_run() {
    let mut h = harness(EditorApp::sample());
    assert!(h.state().simulation().unwrap().sim().is_some());
    for _ in 0..30 {
        h.key_press(egui::Key::N); // Step
        h.run_steps(1);
    }
    assert_eq!(
        h.state()
            .simulation()
            .unwrap()
            .sim()
            .unwrap()
            .world()
            .step_number(),
        30
    );
    assert!(h.state().live_status(&NodeId::new("root")).is_some());
    let mut app = h.into_state();
    // Unlinking the Root's child makes the tree invalid: the panel says why.
    app.add_node("Root", [0.0, 0.0]);
    let panel = app.simulation().unwrap();
    assert!(panel.sim().is_none());
    let why = panel.error().unwrap();
    assert!(why.contains("the tree has 2 error(s)"), "{why}"); // two Roots; the new one has no child
}

#[test]
fn an_observing_guard_is_marked_on_its_port_and_its_checkbox_turns_it_off() {
    let mut app = EditorApp::open(&common::repo().join("sample_trees/guard_patrol.json")).unwrap();
    app.focus(&NodeId::new("intercept"));
    let mut h = harness(app);
    // Intercept's guard port says that its guard watches from there.
    h.get_by_label("if 0 (aborts lower)");
    h.state_mut().select(Some(NodeId::new("near")));
    h.run_steps(3);
    h.query_all_by_role_and_label(Role::CheckBox, "aborts_lower")
        .next()
        .expect("the aborts_lower checkbox")
        .click();
    h.run_steps(3);
    let near = h.state().tree().node(&NodeId::new("near")).unwrap().clone();
    assert_eq!(
        near.fields.get("aborts_lower"),
        Some(&arbor::model::Value::Bool(false))
    );
    assert!(h.query_by_label("if 0 (aborts lower)").is_none());
    h.get_by_label("if 0");
}

/// Undo as a person does: Ctrl+Z (the keyboard out of any text field first).
fn undo(h: &mut Harness<'_, EditorApp>) {
    h.key_press(Key::Escape);
    h.run_steps(1);
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(3);
}

/// A condition's `aborts_lower` means something on a guard only (SEMANTICS.md §3.3.2): the
/// inspector offers it there, and not on a condition used as a plain child.
#[test]
fn aborts_lower_is_offered_on_a_guard_only() {
    let mut app = EditorApp::new(arbor::model::Tree::new(), None);
    let seq = app.add_node("Sequence", [600.0, 0.0]).unwrap();
    let child = app.add_node("HasContext", [300.0, 0.0]).unwrap();
    let guard = app.add_node("HasContext", [300.0, 200.0]).unwrap();
    assert!(app.link(&child, &seq, arbor::model::Port::Children, 0));
    assert!(app.link(&guard, &seq, arbor::model::Port::Conditions, 0));
    app.select(Some(child));
    let mut h = harness(app);
    h.get_by_label("invert");
    assert!(h.query_by_label("aborts_lower").is_none(), "a plain child");
    h.state_mut().select(Some(guard));
    h.run_steps(3);
    h.get_by_label("aborts_lower");
}
