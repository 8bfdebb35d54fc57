//! A game's own node kinds in the editor, reached through the input a person uses: the
//! palette's search and its groups, a library kind's enum field, saving, a library changed
//! on disk, placeholders for kinds no library knows, and forcing a stand-in's result.

use crate::common;

use std::path::PathBuf;

use arbor::editor::EditorApp;
use arbor::editor::files::Chooser;
use arbor::model::{NodeId, Port};
use eframe::egui::{self, Event, Key, Modifiers, PointerButton, Pos2};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn harness(mut app: EditorApp) -> Harness<'static, EditorApp> {
    app.set_chooser(Chooser::InApp);
    let mut h = Harness::builder()
        // Wide enough that the arranged example shows whole at a readable zoom.
        .with_size(egui::vec2(1900.0, 1000.0))
        .build_eframe(|_cc| app);
    h.run_steps(4);
    h
}

/// A copy of examples/my_game (tree, project file, library) in a new folder.
fn game_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let from = common::repo().join("examples/my_game");
    std::fs::create_dir_all(dir.path().join("ai")).unwrap();
    for f in ["guard.json", "arbor.project.json", "ai/my_game.nodes.json"] {
        std::fs::copy(from.join(f), dir.path().join(f)).unwrap();
    }
    let tree = dir.path().join("guard.json");
    (dir, tree)
}

fn click_at(h: &mut Harness<'static, EditorApp>, at: Pos2, button: PointerButton) {
    h.event(Event::PointerMoved(at));
    h.run_steps(1);
    for pressed in [true, false] {
        h.event(Event::PointerButton {
            pos: at,
            button,
            pressed,
            modifiers: Modifiers::NONE,
        });
    }
    h.run_steps(3);
}

fn on_node(h: &Harness<'static, EditorApp>, id: &str) -> Pos2 {
    let r = h.state().screen_rect_of(&NodeId::new(id)).unwrap();
    r.left_top() + egui::vec2(14.0, 10.0)
}

#[test]
fn the_palette_finds_a_library_kind_and_its_enum_field_is_set_and_saved() {
    let (_dir, path) = game_copy();
    let mut h = harness(EditorApp::open(&path).unwrap());
    // The game's kinds under their group, with their docs as tooltips; no problems.
    h.get_by_label("Combat");
    h.get_by_role_and_label(Role::Button, "TakeCover");
    h.get_by_label("Problems (0 errors, 0 warnings)");
    // Typed by hand without positions, the file opened arranged, not stacked at (0, 0).
    let positions: Vec<[f32; 2]> = h
        .state()
        .tree()
        .nodes()
        .iter()
        .map(|n| n.position)
        .collect();
    for (i, a) in positions.iter().enumerate() {
        for b in &positions[i + 1..] {
            assert_ne!(a, b, "two nodes at one place: {positions:?}");
        }
    }
    // Search, Enter adds the kind found.
    h.get_by_label("Find a kind").click();
    h.run_steps(2);
    h.get_by_label("Find a kind").type_text("firew");
    h.run_steps(2);
    assert!(
        h.query_by_role_and_label(Role::Button, "TakeCover")
            .is_none()
    );
    h.key_press(Key::Enter);
    h.run_steps(4);
    let added = h.state().tree().nodes().last().unwrap().clone();
    assert_eq!(added.kind, "FireWeapon");
    // Its enum field: a drop-down of the library's values.
    let field = format!("{}: ammo_type", added.id);
    h.get_by_label(&field).click_accesskit();
    h.run_steps(2);
    h.get_by_label("rocket").click_accesskit();
    h.run_steps(3);
    // Saved with Ctrl+S and read back from the file.
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    h.run_steps(3);
    let saved = arbor::io::load_tree(&path).unwrap();
    let node = saved.node(&added.id).unwrap();
    assert_eq!(node.kind, "FireWeapon");
    assert_eq!(
        node.fields.get("ammo_type"),
        Some(&arbor::model::Value::Text("rocket".into()))
    );
    // The inspector shows the unit of a number, and where the kind comes from.
    h.get_by_label_contains("FireWeapon (Leaf, library my_game)");
    let spread = h.get_by_label("spread");
    assert_eq!(spread.value().as_deref(), Some("0.50 deg"));
    // Its doc is the palette entry's tooltip (the inspector shows it already).
    let doc = "Fires the equipped weapon at the target in context.";
    let shown = |h: &Harness<'static, EditorApp>| h.query_all_by_label_contains(doc).count();
    let before = shown(&h);
    h.get_by_role_and_label(Role::Button, "FireWeapon").hover();
    h.run_steps(3);
    assert_eq!(shown(&h), before + 1, "the tooltip shows the kind's doc");
}

#[test]
fn a_library_changed_on_disk_is_picked_up_without_a_restart() {
    let (dir, path) = game_copy();
    let mut h = harness(EditorApp::open(&path).unwrap());
    assert!(
        h.query_by_role_and_label(Role::Button, "ThrowGrenade")
            .is_none()
    );
    let library = dir.path().join("ai/my_game.nodes.json");
    let text = std::fs::read_to_string(&library).unwrap().replace(
        "  \"kinds\": [\n",
        "  \"kinds\": [\n    {\"kind\": \"ThrowGrenade\", \"category\": \"leaf\", \"group\": \"Explosives\", \"doc\": \"Throws one.\"},\n",
    );
    std::fs::write(&library, text).unwrap();
    let mut frames = 0;
    while h
        .query_by_role_and_label(Role::Button, "ThrowGrenade")
        .is_none()
    {
        frames += 1;
        assert!(frames < 250, "the new kind never showed");
        std::thread::sleep(std::time::Duration::from_millis(20));
        h.run_steps(1);
    }
    h.get_by_label("Explosives");
    h.get_by_label_contains("Node libraries reloaded");
    // A broken library is reported by file and kind; the tree's nodes stay.
    std::fs::write(&library, "{\"format\": \"arbor.nodes\", \"version\": 1,").unwrap();
    let mut frames = 0;
    while h
        .query_all_by_label_contains("my_game.nodes.json:1:")
        .next()
        .is_none()
    {
        frames += 1;
        assert!(frames < 250, "the broken library was never reported");
        std::thread::sleep(std::time::Duration::from_millis(20));
        h.run_steps(1);
    }
    assert_eq!(h.state().tree().len(), 7);
    h.get_by_label_contains("[fire] unknown node kind 'FireWeapon'");
}

/// Opens the Change Kind menu `menu` (the node menu's, or the inspector's button), types
/// `kind` into its search and presses Enter.
fn change_kind(h: &mut Harness<'static, EditorApp>, menu: &str, kind: &str) {
    h.get_by_label(menu).click();
    h.run_steps(2);
    h.get_by_label("Make it a").type_text(kind);
    h.run_steps(2);
    h.key_press(Key::Enter);
    h.run_steps(3);
}

/// A tree of kinds no library knows (placeholders), linked and with fields.
const SQUAD: &str = r#"{"format": "arbor.tree", "version": 1, "nodes": [
    {"id": "root", "kind": "Root", "inputs": {"child": ["squad"]}},
    {"id": "squad", "kind": "SquadTactic", "fields": {"formation": "wedge"},
     "inputs": {"conditions": ["seen"], "children": ["fire", "wait"]}},
    {"id": "seen", "kind": "CanSeeEnemy", "fields": {"range": 30}},
    {"id": "fire", "kind": "FireWeapon", "fields": {"ammo_type": "rocket"}},
    {"id": "wait", "kind": "Wait"}],
    "editor": {"nodes": {"fire": {"position": [0, 0]}, "root": {"position": [700, 0]},
      "seen": {"position": [0, -150]}, "squad": {"position": [350, 0]}, "wait": {"position": [0, 150]}}}}"#;

#[test]
fn a_kind_no_library_knows_keeps_its_pins_links_and_fields_and_saves_back_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("squad.json");
    let text = SQUAD;
    let canonical = arbor::io::tree_to_string(&arbor::io::parse_tree(text, &path).unwrap());
    std::fs::write(&path, &canonical).unwrap();
    let mut h = harness(EditorApp::open(&path).unwrap());
    h.get_by_label_contains("[squad] unknown node kind 'SquadTactic'");
    h.get_by_label_contains("[fire] unknown node kind 'FireWeapon'");
    // Drawn with its pins: a composite's guards and children, with the wires kept.
    let catalog = h.state().catalog().clone();
    let pins = arbor::editor::pins(h.state().tree(), &catalog, &NodeId::new("squad"), false);
    // Two guard slots, an empty service slot and three child slots: one more than linked
    // in each, as any composite.
    assert_eq!(pins.len(), 6, "{pins:?}");
    // Selected, the inspector shows its fields as text, kept as they are.
    let at = on_node(&h, "squad");
    click_at(&mut h, at, PointerButton::Primary);
    assert_eq!(
        h.get_by_label("formation").value().as_deref(),
        Some("wedge")
    );
    h.get_by_label_contains("unknown kind: no node library defines it");
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    h.run_steps(3);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), canonical);
}

#[test]
fn the_node_menu_forces_a_stand_ins_result_for_the_rest_of_the_run() {
    use arbor::runtime::{Outcome, Status};
    let (_dir, path) = game_copy();
    let mut h = harness(EditorApp::open(&path).unwrap());
    h.key_press(Key::N);
    h.run_steps(2);
    let at = on_node(&h, "cover");
    click_at(&mut h, at, PointerButton::Secondary);
    h.get_by_label("Force Result ⏵").click();
    h.run_steps(2);
    h.get_by_label("failure").click();
    h.run_steps(3);
    let forced = |h: &Harness<'static, EditorApp>| {
        h.state()
            .simulation()
            .unwrap()
            .forced(&NodeId::new("cover"))
    };
    assert_eq!(forced(&h), Some(Outcome::Failure));
    h.get_by_label_contains("cover now reports failure for the rest of the run");
    // Under fire from step 3 (IsUnderFire's stand-in FFFT), cover runs and now fails.
    let mut failed = false;
    for _ in 0..12 {
        h.key_press(Key::N);
        h.run_steps(2);
        failed |= h.state().live_status(&NodeId::new("cover")) == Some(Status::Failure);
    }
    assert!(failed, "cover never failed");
    // A built-in node has no such menu.
    let at = on_node(&h, "patrol");
    click_at(&mut h, at, PointerButton::Secondary);
    assert!(h.query_by_label("Force Result ⏵").is_none());
}

/// docs/BTCPP.md, "Node models from another file": a tree beside Nav2's models file, its
/// kinds known; clicking a node shows its fields, an output port's marked `(out)`.
#[test]
fn a_kind_from_behaviortree_cpp_models_shows_its_output_ports_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = common::repo().join("tests/fixtures/btcpp");
    std::fs::copy(
        fixtures.join("models/nav2_tree_nodes.xml"),
        dir.path().join("nav2_tree_nodes.xml"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("arbor.project.json"),
        r#"{"format": "arbor.project", "version": 1, "nodes": ["nav2_tree_nodes.xml"]}"#,
    )
    .unwrap();
    let path = dir.path().join("plan.xml");
    std::fs::write(
        &path,
        r#"<root BTCPP_format="4">
  <BehaviorTree ID="Plan">
    <ComputePathToPose goal="{goal}" path="{path}" planner_id="GridBased"/>
  </BehaviorTree>
</root>
"#,
    )
    .unwrap();
    let mut h = harness(EditorApp::open(&path).unwrap());
    let at = on_node(&h, "compute_path_to_pose");
    click_at(&mut h, at, PointerButton::Primary);
    h.get_by_label("path (out)");
    h.get_by_label("goal");
    assert!(h.query_by_label("goal (out)").is_none());
    h.get_by_label_contains("0 errors");
}

/// Change Kind… on a placeholder, from its right-click menu: typed and chosen with Enter,
/// the node becomes a Selector with its guard and children, says which field it lost,
/// saves so, and one Undo brings the placeholder back whole.
#[test]
fn change_kind_makes_a_placeholder_a_known_kind_keeping_its_links_in_one_undo_step() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("squad.json");
    let text = SQUAD;
    std::fs::write(&path, text).unwrap();
    let mut h = harness(EditorApp::open(&path).unwrap());
    let before = h.state().tree().clone();
    let at = on_node(&h, "squad");
    click_at(&mut h, at, PointerButton::Secondary);
    change_kind(&mut h, "Change Kind… ⏵", "selector");
    let squad = |h: &Harness<'static, EditorApp>| {
        h.state()
            .tree()
            .node(&NodeId::new("squad"))
            .unwrap()
            .clone()
    };
    let now = squad(&h);
    assert_eq!(now.kind, "Selector");
    assert_eq!(now.linked(Port::Conditions), [NodeId::new("seen")]);
    assert_eq!(
        now.linked(Port::Children),
        [NodeId::new("fire"), NodeId::new("wait")]
    );
    assert!(now.fields.is_empty(), "{:?}", now.fields);
    h.get_by_label_contains(
        "squad is now a Selector; it lost field 'formation' = \"wedge\" (Selector has no field 'formation')",
    );
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    h.run_steps(3);
    let saved = arbor::io::parse_tree(&std::fs::read_to_string(&path).unwrap(), &path).unwrap();
    assert_eq!(saved.node(&NodeId::new("squad")).unwrap().kind, "Selector");
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(3);
    assert_eq!(h.state().tree(), &before, "one undo step");
    // The placeholder's inspector offers the same way out: the leaf becomes a Wait.
    let at = on_node(&h, "fire");
    click_at(&mut h, at, PointerButton::Primary);
    change_kind(&mut h, "Change Kind…", "wait");
    assert_eq!(
        h.state().tree().node(&NodeId::new("fire")).unwrap().kind,
        "Wait"
    );
    // Still squad's first child; its ammo_type, which a Wait has not, said lost.
    let at = h.state().tree().parent_of(&NodeId::new("fire")).unwrap();
    assert_eq!((at.parent.as_str(), at.slot), ("squad", 0));
    h.get_by_label_contains("fire is now a Wait; it lost field 'ammo_type'");
}

/// Selecting a placeholder (its fields edited as text in the inspector, one of them long)
/// neither widens the inspector nor moves the canvas.
#[test]
fn selecting_a_placeholder_never_moves_or_resizes_the_canvas() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("squad.json");
    let long = "a formation described at great length ".repeat(8);
    std::fs::write(&path, SQUAD.replace("\"wedge\"", &format!("\"{long}\""))).unwrap();
    let mut h = harness(EditorApp::open(&path).unwrap());
    let canvas = h.state().canvas_rect().unwrap();
    for id in ["squad", "seen", "fire", "wait", "root"] {
        let at = on_node(&h, id);
        click_at(&mut h, at, PointerButton::Primary);
        h.run_steps(3);
        assert_eq!(h.state().selection(), [NodeId::new(id)]);
        assert_eq!(h.state().canvas_rect().unwrap(), canvas, "selecting {id}");
    }
}

/// A kind misspelled in a file (a placeholder): the Problems panel says which known kind
/// it is near, as the command line does, and Change Kind makes it that kind.
#[test]
fn the_problems_panel_says_did_you_mean_for_a_misspelled_kind() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("typo.json");
    std::fs::write(
        &path,
        r#"{"format": "arbor.tree", "version": 1, "nodes": [
        {"id": "root", "kind": "Root", "inputs": {"child": ["pick"]}},
        {"id": "pick", "kind": "Selecter", "inputs": {"children": ["w"]}},
        {"id": "w", "kind": "Wait"}]}"#,
    )
    .unwrap();
    let mut h = harness(EditorApp::open(&path).unwrap());
    h.get_by_label_contains("[pick] unknown node kind 'Selecter'");
    h.get_by_label_contains("did you mean 'Selector'?");
    let at = on_node(&h, "pick");
    click_at(&mut h, at, PointerButton::Secondary);
    change_kind(&mut h, "Change Kind… ⏵", "selector");
    assert_eq!(
        h.state().tree().node(&NodeId::new("pick")).unwrap().kind,
        "Selector"
    );
    h.get_by_label("Problems (0 errors, 0 warnings)");
}
