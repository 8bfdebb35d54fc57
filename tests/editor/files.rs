//! The tree's file through the window: Save As and New in the path field, `arbor edit` on a
//! file that is missing or does not load, the dirty marker, and unsaved work written aside
//! and offered back.

use crate::common;

use arbor::editor::EditorApp;
use eframe::egui::{self, Key, Modifiers, PointerButton};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use common::harness;
use common::input::{drag, key, on_node};

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

/// A BehaviorTree.CPP file (docs/BTCPP.md) opened, a Repeat's count and a port of a kind
/// no library defines typed in the inspector, saved with Ctrl+S: the file read back differs
/// from the original only in those attributes — its comments, Groot's `_uid`, the other
/// tree and the models are as they were.
#[test]
fn a_behaviortree_cpp_file_saved_after_an_edit_changes_only_that_attribute() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("guard.xml");
    let original = r#"<?xml version="1.0" encoding="UTF-8"?>
<root BTCPP_format="4" main_tree_to_execute="Guard">
  <!-- the guard -->
  <BehaviorTree ID="Guard" _description="patrol">
    <Fallback name="duty" _uid="1">
      <Sequence name="chase">
        <IsIntruderNear distance="{range}" _uid="2"/>
        <!-- run it down -->
        <MoveTo target="{intruder}"/>
      </Sequence>
      <Repeat num_cycles="3" _collapsed="true">
        <Patrol route="north"/>
      </Repeat>
    </Fallback>
  </BehaviorTree>
  <BehaviorTree ID="Other"><AlwaysSuccess/></BehaviorTree>
  <TreeNodesModel><Action ID="Patrol"><input_port name="route"/></Action></TreeNodesModel>
</root>
"#;
    std::fs::write(&path, original).unwrap();
    let mut app = EditorApp::open(&path).unwrap();
    app.select(Some(arbor::model::NodeId::new("repeat")));
    let mut h = harness(app);
    assert_eq!(h.state().title(), "guard.xml — Arbor");
    crate::support::type_into(&mut h, "times", "5");
    // A kind of the file's own models (Patrol here), whose port has no type: text.
    h.state_mut()
        .select(Some(arbor::model::NodeId::new("patrol")));
    h.run_steps(3);
    crate::support::type_into(&mut h, "route", "south");
    key(&mut h, Modifiers::COMMAND, Key::S);
    assert_eq!(h.state().title(), "guard.xml — Arbor", "saved");
    let saved = std::fs::read_to_string(&path).unwrap();
    let expected = original
        .replace(r#"num_cycles="3""#, r#"num_cycles="5""#)
        .replace(r#"route="north""#, r#"route="south""#);
    assert_same_document(&expected, &saved);
    // Saved again with no edit, nothing changes; the file is read back as written.
    key(&mut h, Modifiers::COMMAND, Key::S);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), saved);
}

/// docs/BTCPP.md, "Port types": with its project's models file, a BehaviorTree.CPP file's
/// `double` port is a number field. Typed over in the inspector and saved with Ctrl+S, it
/// is the one attribute that changes; the values it did not touch stay as written
/// (`1.50`, `True`), though they are read as a number and a bool.
#[test]
fn a_typed_port_is_edited_as_a_number_and_saved_as_that_attribute_only() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("arbor.project.json"),
        r#"{"format": "arbor.project", "version": 1, "nodes": ["robot_nodes.xml"]}"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("robot_nodes.xml"),
        r#"<root BTCPP_format="4"><TreeNodesModel>
  <Action ID="MoveBase">
    <input_port name="speed" type="double" default="1.0">m/s</input_port>
    <input_port name="careful" type="bool"/>
  </Action>
</TreeNodesModel></root>"#,
    )
    .unwrap();
    let path = dir.path().join("robot.xml");
    let original = r#"<root BTCPP_format="4">
  <BehaviorTree ID="Main">
    <Sequence>
      <MoveBase name="out" speed="0.50" careful="True"/>
      <MoveBase name="back" speed="1.50" careful="1"/>
    </Sequence>
  </BehaviorTree>
</root>
"#;
    std::fs::write(&path, original).unwrap();
    let mut app = EditorApp::open(&path).unwrap();
    let tree = app.document().tree();
    let out = tree.node(&arbor::model::NodeId::new("out")).unwrap();
    assert_eq!(out.fields["speed"], arbor::model::Value::Float(0.5));
    assert_eq!(out.fields["careful"], arbor::model::Value::Bool(true));
    assert!(
        app.diagnostics().iter().all(|d| !d.is_error()),
        "{:?}",
        app.diagnostics()
    );
    app.select(Some(arbor::model::NodeId::new("out")));
    let mut h = harness(app);
    crate::support::type_into(&mut h, "speed", "0.75");
    key(&mut h, Modifiers::COMMAND, Key::S);
    assert_eq!(h.state().title(), "robot.xml — Arbor", "saved");
    let saved = std::fs::read_to_string(&path).unwrap();
    let expected = original.replace(r#"speed="0.50""#, r#"speed="0.75""#);
    assert_same_document(&expected, &saved);
}

/// An optional port turned on by its checkbox takes a value of its type: `false` for a
/// bool, 0 for an `unsigned int`, 0 for a `double`, the first word of a node status; the
/// tree stays valid, and Ctrl+S writes them as BehaviorTree.CPP reads them.
#[test]
fn an_optional_typed_port_turned_on_starts_at_a_value_of_its_type() {
    use arbor::model::Value;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("robot.xml");
    std::fs::write(
        &path,
        r#"<root BTCPP_format="4">
  <BehaviorTree ID="Main"><MoveBase/></BehaviorTree>
  <TreeNodesModel>
    <Action ID="MoveBase">
      <input_port name="careful" type="bool"/>
      <input_port name="retries" type="unsigned int"/>
      <input_port name="speed" type="double"/>
      <input_port name="then" type="BT::NodeStatus"/>
    </Action>
  </TreeNodesModel>
</root>"#,
    )
    .unwrap();
    let mut app = EditorApp::open(&path).unwrap();
    app.select(Some(arbor::model::NodeId::new("move_base")));
    let mut h = harness(app);
    for port in ["careful", "retries", "speed", "then"] {
        h.get_by_label(&format!("{port} set")).click();
        h.run_steps(3);
    }
    let fields = h.state().tree().nodes()[1].fields.clone();
    assert_eq!(fields["careful"], Value::Bool(false));
    assert_eq!(fields["retries"], Value::Int(0));
    assert_eq!(fields["speed"], Value::Float(0.0));
    assert_eq!(fields["then"], Value::Text("IDLE".into()));
    assert!(
        h.state().diagnostics().iter().all(|d| !d.is_error()),
        "{:?}",
        h.state().diagnostics()
    );
    key(&mut h, Modifiers::COMMAND, Key::S);
    let saved = std::fs::read_to_string(&path).unwrap();
    assert!(
        saved.contains(r#"<MoveBase careful="false" retries="0" speed="0.0" then="IDLE"/>"#),
        "{saved}"
    );
}

/// docs/BTCPP.md, "The file's own models": a file's `<TreeNodesModel>` defines its kinds
/// where no project does, so they open as kinds (not placeholders), their values typed.
#[test]
fn a_files_own_models_define_its_kinds_in_the_editor() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("robot.xml");
    std::fs::write(
        &path,
        r#"<root BTCPP_format="4">
  <BehaviorTree ID="Main"><MoveBase speed="0.50"/></BehaviorTree>
  <TreeNodesModel>
    <Action ID="MoveBase"><input_port name="speed" type="double"/></Action>
  </TreeNodesModel>
</root>"#,
    )
    .unwrap();
    let app = EditorApp::open(&path).unwrap();
    let kind = app.catalog().kind("MoveBase").unwrap();
    assert!(!kind.is_placeholder());
    assert!(
        matches!(&kind.origin, arbor::model::Origin::Library { library, .. } if library == "robot")
    );
    let node = app.document().tree().nodes()[1].clone();
    assert_eq!(node.fields["speed"], arbor::model::Value::Float(0.5));
    assert!(app.diagnostics().is_empty(), "{:?}", app.diagnostics());
}

/// docs/BTCPP.md, "Node models from another file": a kind no library defines offers "Load
/// models from…" in the inspector. A models file chosen in the path field is listed in a
/// project file made beside the tree, the kind is known at once, its values typed, and the
/// file of the tree is not touched.
#[test]
fn load_models_from_the_inspector_lists_the_file_in_the_project_and_knows_the_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let models = dir.path().join("models");
    std::fs::create_dir(&models).unwrap();
    std::fs::write(
        models.join("robot_nodes.xml"),
        r#"<root BTCPP_format="4"><TreeNodesModel>
  <Action ID="MoveBase"><input_port name="speed" type="double"/></Action>
</TreeNodesModel></root>"#,
    )
    .unwrap();
    let path = dir.path().join("robot.xml");
    let original = r#"<root BTCPP_format="4">
  <BehaviorTree ID="Main"><MoveBase speed="0.50"/></BehaviorTree>
</root>
"#;
    std::fs::write(&path, original).unwrap();
    let mut app = EditorApp::open(&path).unwrap();
    assert!(app.catalog().kind("MoveBase").unwrap().is_placeholder());
    app.select(Some(arbor::model::NodeId::new("move_base")));
    let mut h = harness(app);
    h.get_by_label("Load models from…").click();
    h.run_steps(3);
    h.get_by_label("Load node models").focus();
    h.get_by_label("Load node models")
        .type_text("models/robot_nodes.xml");
    h.run_steps(2);
    h.get_by_label("Load node models").focus();
    h.run_steps(1);
    h.key_press(Key::Enter);
    h.run_steps(3);
    assert_eq!(
        h.state().last_message(),
        "Loaded the node models of robot_nodes.xml (arbor.project.json made beside the tree to list it): 1 unknown kind of this tree now known, 0 still unknown"
    );
    let project = std::fs::read_to_string(dir.path().join("arbor.project.json")).unwrap();
    assert!(project.contains(r#""models/robot_nodes.xml""#), "{project}");
    let kind = h.state().catalog().kind("MoveBase").unwrap();
    assert!(!kind.is_placeholder());
    let node = &h.state().tree().nodes()[1];
    assert_eq!(node.fields["speed"], arbor::model::Value::Float(0.5));
    assert!(!h.state().is_dirty());
    assert!(
        h.state().diagnostics().iter().all(|d| !d.is_error()),
        "{:?}",
        h.state().diagnostics()
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
}

/// SEMANTICS.md §3.7: a node's hooks are in the inspector's "Pre- and post-conditions",
/// open where one is set and folded where none is. One typed over, one turned on by its
/// checkbox and typed, saved with Ctrl+S: the file changes in those attributes only.
#[test]
fn hooks_are_edited_in_the_inspector_and_saved_as_their_attributes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hooks.xml");
    let original = r#"<root BTCPP_format="4">
  <BehaviorTree ID="Main">
    <Repeat num_cycles="3">
      <Sleep msec="500" _onSuccess="done := 1"/>
    </Repeat>
  </BehaviorTree>
</root>
"#;
    std::fs::write(&path, original).unwrap();
    let mut app = EditorApp::open(&path).unwrap();
    app.select(Some(arbor::model::NodeId::new("sleep")));
    let mut h = harness(app);
    h.get_by_label("Pre- and post-conditions (1)");
    crate::support::type_into(&mut h, "_onSuccess", "done := 2");
    h.state_mut()
        .select(Some(arbor::model::NodeId::new("repeat")));
    h.run_steps(3);
    assert!(h.query_by_label("_failureIf set").is_none(), "folded");
    h.get_by_label("Pre- and post-conditions").click();
    h.run_steps(3);
    h.get_by_label("_failureIf set").click();
    h.run_steps(3);
    crate::support::type_into(&mut h, "_failureIf", "tired == 1");
    key(&mut h, Modifiers::COMMAND, Key::S);
    let saved = std::fs::read_to_string(&path).unwrap();
    let expected = original
        .replace(r#"_onSuccess="done := 1""#, r#"_onSuccess="done := 2""#)
        .replace(
            r#"num_cycles="3""#,
            r#"num_cycles="3" _failureIf="tired == 1""#,
        );
    assert_same_document(&expected, &saved);
}

/// docs/BTCPP.md, "Format 3": a BehaviorTree.CPP 3 file opens saying that it is read as
/// format 4 and how many changes that made (Messages lists each); Ctrl+S writes format 4.
#[test]
fn a_format_3_file_opens_with_a_note_and_is_saved_as_format_4() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.xml");
    std::fs::write(
        &path,
        r#"<root BTCPP_format="3">
  <BehaviorTree ID="Old">
    <SequenceStar>
      <AlwaysSuccess/>
    </SequenceStar>
  </BehaviorTree>
</root>
"#,
    )
    .unwrap();
    let app = EditorApp::open(&path).unwrap();
    assert_eq!(
        app.last_message(),
        "a BehaviorTree.CPP 3 file (BTCPP_format=\"3\"): read as format 4, and saved so (and 1 more: Messages lists each)"
    );
    let mut h = harness(app);
    h.run_steps(2);
    key(&mut h, Modifiers::COMMAND, Key::S);
    let saved = std::fs::read_to_string(&path).unwrap();
    assert!(saved.contains(r#"<root BTCPP_format="4">"#), "{saved}");
    assert!(saved.contains("<SequenceWithMemory>"), "{saved}");
}

/// An editor on `path`, its SubTree `inner` opened with Ctrl+Enter (after a step of the
/// run with N, when `running`, so that the run goes on inside its tree): the tree `Inner`
/// of the same file.
fn inner_of(path: &std::path::Path, running: bool) -> Harness<'static, EditorApp> {
    let mut app = EditorApp::open(path).unwrap();
    app.select(Some(arbor::model::NodeId::new("inner")));
    let mut h = harness(app);
    if running {
        key(&mut h, Modifiers::NONE, Key::N);
        h.run_steps(1);
    }
    key(&mut h, Modifiers::COMMAND, Key::Enter);
    h.run_steps(2);
    assert_eq!(h.state().title(), "main.xml#Inner — Arbor");
    h
}

/// docs/BTCPP.md, "SubTrees and includes": Ctrl+Enter on a SubTree whose tree is another
/// of the same file's trees opens that tree (`main.xml#Inner`); an edit saved with Ctrl+S
/// goes into its place in the file, the rest of the file as it was. On a SubTree whose
/// tree is the one another file of the folder runs, it opens that file.
#[test]
fn open_subtree_on_a_behaviortree_cpp_subtree_opens_its_tree_and_saves_into_its_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("walk.xml"),
        r#"<root BTCPP_format="4"><BehaviorTree ID="Walk"><AlwaysSuccess/></BehaviorTree></root>"#,
    )
    .unwrap();
    let path = dir.path().join("main.xml");
    let text = r#"<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence>
      <SubTree ID="Inner" name="inner"/>
      <SubTree ID="Walk" name="walk"/>
    </Sequence>
  </BehaviorTree>
  <!-- the inner tree -->
  <BehaviorTree ID="Inner" _description="kept">
    <Sequence>
      <AlwaysSuccess/>
      <AlwaysFailure/>
    </Sequence>
  </BehaviorTree>
</root>
"#;
    std::fs::write(&path, text).unwrap();
    let mut h = inner_of(&path, false);
    h.state_mut()
        .select(Some(arbor::model::NodeId::new("always_failure")));
    h.run_steps(1);
    key(&mut h, Modifiers::NONE, Key::Delete);
    h.run_steps(1);
    key(&mut h, Modifiers::COMMAND, Key::S);
    h.run_steps(1);
    let saved = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        saved,
        text.replace(
            "      <AlwaysSuccess/>\n      <AlwaysFailure/>\n",
            "      <AlwaysSuccess/>\n"
        )
    );

    // The main tree again, from the recent files: its SubTree of another file.
    let mut app = EditorApp::open(&path).unwrap();
    app.select(Some(arbor::model::NodeId::new("walk")));
    let mut h = harness(app);
    key(&mut h, Modifiers::COMMAND, Key::Enter);
    h.run_steps(3);
    assert_eq!(h.state().title(), "walk.xml — Arbor");
}

/// docs/BTCPP.md, "SubTrees and includes": with the run going on inside a tree of the same
/// file, Back to the Running Tree (Ctrl+Backspace) shows the main tree again as part of its
/// file: edited and saved, the file keeps its other tree and everything else.
#[test]
fn back_to_the_running_tree_of_a_behaviortree_cpp_file_saves_into_the_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("main.xml");
    let text = r#"<root BTCPP_format="4" main_tree_to_execute="Main">
  <!-- two trees -->
  <BehaviorTree ID="Main">
    <Sequence>
      <SubTree ID="Inner" name="inner"/>
      <AlwaysSuccess name="spare"/>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Inner">
    <AlwaysSuccess/>
  </BehaviorTree>
</root>
"#;
    std::fs::write(&path, text).unwrap();
    let mut h = inner_of(&path, true);
    key(&mut h, Modifiers::COMMAND, Key::Backspace);
    h.run_steps(2);
    assert_eq!(
        h.state().title(),
        "main.xml — Arbor",
        "{}",
        h.state().last_message()
    );
    h.state_mut()
        .select(Some(arbor::model::NodeId::new("spare")));
    h.run_steps(1);
    key(&mut h, Modifiers::NONE, Key::Delete);
    key(&mut h, Modifiers::COMMAND, Key::S);
    h.run_steps(1);
    let saved = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        saved,
        text.replace("      <AlwaysSuccess name=\"spare\"/>\n", ""),
        "{}",
        h.state().last_message()
    );
}

/// The first window, which shows the bundled droid arena when no file is given, is titled
/// as what it shows, not "untitled"; Ctrl+N then starts an untitled tree.
#[test]
fn the_first_window_is_titled_as_the_sample_it_shows() {
    let mut h = harness(EditorApp::start(None, None, None));
    assert_eq!(h.state().title(), "droid arena (sample) — Arbor");
    key(&mut h, Modifiers::COMMAND, Key::N);
    h.run_steps(3);
    assert_eq!(h.state().title(), "untitled — Arbor");
}

/// That `saved` is the document `expected` is, under the canonical comparison (the same
/// elements, attributes and text; whitespace and attribute order aside).
fn assert_same_document(expected: &str, saved: &str) {
    use arbor::io::btcpp::Document;
    assert!(
        Document::parse(expected)
            .unwrap()
            .same_as(&Document::parse(saved).unwrap()),
        "{saved}"
    );
}
