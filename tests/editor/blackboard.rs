//! The Blackboard panel and the key fields' drop-downs, driven by clicks, typing and keys:
//! declare, edit, rename (every use, one undo step), delete, Find usages, "New key…".

use crate::common;
use crate::support::{click_in_side_panel, guard_patrol_files, ids, type_into};

use arbor::editor::EditorApp;
use arbor::model::{KeyDecl, KeyType, NodeId, Value};
use eframe::egui::{Key, Modifiers};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};

use common::harness;
use common::input::key;
use eframe::egui;

/// guard_patrol (one key, `intruder`, read by near, chase and strike, written by spot)
/// copied into a new folder with the files it needs, its keys changed by `keys` first;
/// the editor opened on it.
fn guard_patrol(
    keys: impl FnOnce(&mut Option<Vec<KeyDecl>>),
) -> (
    tempfile::TempDir,
    std::path::PathBuf,
    Harness<'static, EditorApp>,
) {
    let dir = guard_patrol_files();
    let path = dir.path().join("guard_patrol.json");
    let mut tree = arbor::io::load_tree(&path).unwrap();
    keys(&mut tree.keys);
    arbor::io::save_tree(&path, &tree).unwrap();
    let h = harness(EditorApp::open(&path).unwrap());
    (dir, path, h)
}

/// The keys the tree shown declares, as (name, type).
fn declared(h: &Harness<'static, EditorApp>) -> Option<Vec<(String, KeyType)>> {
    h.state()
        .tree()
        .keys
        .as_ref()
        .map(|keys| keys.iter().map(|k| (k.name.clone(), k.ty)).collect())
}

/// Picks `item` from the combo box named `combo`.
fn pick(h: &mut Harness<'static, EditorApp>, combo: &str, item: &str) {
    h.get_by_role_and_label(Role::ComboBox, combo).click();
    h.run_steps(2);
    h.get_by_label(item).click();
    h.run_steps(3);
}

/// The value of a node's field, as text.
fn field(h: &Harness<'static, EditorApp>, node: &str, name: &str) -> Option<String> {
    h.state()
        .tree()
        .node(&NodeId::new(node))
        .and_then(|n| n.fields.get(name))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

#[test]
fn declaring_the_keys_an_old_tree_uses_is_one_undo_step() {
    let (_dir, _path, mut h) = guard_patrol(|keys| *keys = None);
    assert_eq!(declared(&h), None);
    h.get_by_label_contains("This tree declares no keys");
    h.get_by_role_and_label(Role::Button, "Declare the keys this tree uses")
        .click();
    h.run_steps(3);
    // Typed by its writer: FindClosest gives an entity.
    assert_eq!(
        declared(&h),
        Some(vec![("intruder".to_owned(), KeyType::Entity)])
    );
    assert!(h.state().is_dirty());
    assert!(
        h.state().said("Declared 1 key(s): intruder"),
        "{}",
        h.state().last_message()
    );
    // The menu's command is greyed out once the tree declares its keys.
    h.get_by_label("Edit").click();
    h.run_steps(2);
    assert!(
        h.get_by_role_and_label(Role::Button, "Declare the Keys This Tree Uses")
            .accesskit_node()
            .is_disabled()
    );
    key(&mut h, Modifiers::NONE, Key::Escape);
    key(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(declared(&h), None);
    assert!(!h.state().is_dirty());
}

#[test]
fn a_key_added_typed_given_a_default_and_a_doc_is_saved() {
    let (_dir, path, mut h) = guard_patrol(|_| {});
    // A name the tree declares already, or not a key's name, cannot be added: said at once.
    h.get_by_label("New key").click();
    h.run_steps(2);
    h.get_by_label("New key").type_text("intruder");
    h.run_steps(2);
    h.get_by_label("the tree declares key 'intruder' already");
    assert!(
        h.get_by_role_and_label(Role::Button, "Add key")
            .accesskit_node()
            .is_disabled()
    );
    h.get_by_label("New key").type_text(" alarm");
    h.run_steps(2);
    h.get_by_label("key 'intruder alarm': a key's name cannot contain spaces");
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label("New key").type_text("alarm");
    h.run_steps(2);
    pick(&mut h, "type of the new key", "bool");
    h.get_by_role_and_label(Role::Button, "Add key").click();
    h.run_steps(3);
    assert_eq!(
        declared(&h).unwrap(),
        [
            ("intruder".to_owned(), KeyType::Entity),
            ("alarm".to_owned(), KeyType::Bool)
        ]
    );
    // A default the type does not take is refused, with the reason.
    type_into(&mut h, "default of alarm", "maybe");
    assert!(
        h.state()
            .said("key 'alarm' is of type bool, but its default \"maybe\" is text"),
        "{}",
        h.state().last_message()
    );
    type_into(&mut h, "default of alarm", "true");
    type_into(&mut h, "doc of alarm", "Someone raised the alarm");
    // An entity key takes no default: its row has no default field.
    assert!(h.query_by_label("default of intruder").is_none());
    pick(&mut h, "type of intruder", "position");
    key(&mut h, Modifiers::COMMAND, Key::S);
    assert!(!h.state().is_dirty());
    let saved = arbor::io::load_tree(&path).unwrap().keys.unwrap();
    let mut alarm = KeyDecl::new("alarm", KeyType::Bool);
    alarm.default = Some(Value::Bool(true));
    alarm.doc = "Someone raised the alarm".into();
    assert_eq!(saved, [KeyDecl::new("intruder", KeyType::Position), alarm]);
    // Deleted: the declaration goes, the nodes keep the name.
    h.get_all_by_role_and_label(Role::Button, "Delete")
        .last()
        .unwrap()
        .click();
    h.run_steps(3);
    assert_eq!(declared(&h).unwrap().len(), 1);
    assert_eq!(declared(&h).unwrap()[0].0, "intruder");
}

#[test]
fn a_key_field_lists_the_keys_that_fit_and_new_key_declares_one_in_one_step() {
    let (_dir, path, mut h) = guard_patrol(|keys| {
        let keys = keys.as_mut().unwrap();
        keys.push(KeyDecl::new("note", KeyType::Text));
        keys.push(KeyDecl::new("post", KeyType::Position));
    });
    h.state_mut().select(Some(NodeId::new("chase")));
    h.run_steps(3);
    // MoveTo reads an entity or a position: a text key is not offered.
    h.get_by_role_and_label(Role::ComboBox, "in_context")
        .click();
    h.run_steps(2);
    h.get_by_label("intruder  ·  entity");
    h.get_by_label("(none)");
    h.get_by_label("New key…");
    assert!(h.query_by_label("note  ·  text").is_none());
    h.get_by_label("post  ·  position").click();
    h.run_steps(3);
    assert_eq!(field(&h, "chase", "in_context").as_deref(), Some("post"));
    // FindClosest gives an entity: New key… declares an entity key and names it.
    h.state_mut().select(Some(NodeId::new("spot")));
    h.run_steps(3);
    pick(&mut h, "out_context", "New key…");
    h.get_by_label("New key name").type_text("thief");
    h.run_steps(2);
    key(&mut h, Modifiers::NONE, Key::Enter);
    h.run_steps(2);
    assert_eq!(field(&h, "spot", "out_context").as_deref(), Some("thief"));
    assert_eq!(
        declared(&h).unwrap().last().unwrap(),
        &("thief".to_owned(), KeyType::Entity)
    );
    key(&mut h, Modifiers::COMMAND, Key::S);
    let saved = arbor::io::load_tree(&path).unwrap();
    assert_eq!(saved.keys.as_ref().unwrap().len(), 4);
    // One undo step takes back both the declaration and the field.
    key(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(
        field(&h, "spot", "out_context").as_deref(),
        Some("intruder")
    );
    assert_eq!(declared(&h).unwrap().len(), 3);
}

#[test]
fn renaming_a_key_changes_every_use_and_undoes_in_one_step() {
    let (_dir, path, mut h) = guard_patrol(|keys| {
        keys.as_mut()
            .unwrap()
            .push(KeyDecl::new("post", KeyType::Position));
    });
    let before = h.state().tree().clone();
    h.get_all_by_role_and_label(Role::Button, "Rename…")
        .next()
        .unwrap()
        .click();
    h.run_steps(3);
    // A name another key has is refused, with the reason; nothing changes.
    type_into(&mut h, "new name of intruder", "post");
    assert!(
        h.state().said("a key 'post' is declared already"),
        "{}",
        h.state().last_message()
    );
    assert_eq!(h.state().tree(), &before);
    type_into(&mut h, "new name of intruder", "my enemy");
    assert!(
        h.state().said("cannot contain spaces"),
        "{}",
        h.state().last_message()
    );
    type_into(&mut h, "new name of intruder", "enemy");
    for (node, name) in [
        ("near", "in_context"),
        ("chase", "in_context"),
        ("strike", "in_context"),
        ("spot", "out_context"),
    ] {
        assert_eq!(field(&h, node, name).as_deref(), Some("enemy"), "{node}");
    }
    assert_eq!(declared(&h).unwrap()[0].0, "enemy");
    h.get_by_label_contains("Problems (0 errors");
    key(&mut h, Modifiers::COMMAND, Key::S);
    let saved = std::fs::read_to_string(&path).unwrap();
    assert!(!saved.contains("\"intruder\""), "{saved}");
    let read = arbor::io::load_tree(&path).unwrap();
    assert_eq!(read.keys.as_ref().unwrap()[0].name, "enemy");
    assert!(read.runs_like(h.state().tree()));
    // Ctrl+Z takes the whole rename back.
    key(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(h.state().tree(), &before);
}

#[test]
fn find_usages_lists_every_reader_and_writer_and_selects_them() {
    let (_dir, _path, mut h) = guard_patrol(|_| {});
    h.get_by_role_and_label(Role::Button, "Find usages of intruder")
        .click();
    h.run_steps(3);
    assert_eq!(
        h.state().selection(),
        ids(&["near", "chase", "strike", "spot"]).as_slice()
    );
    h.get_by_label("Usages of 'intruder'");
    h.get_by_label("Intruder near? (near): reads in_context");
    h.get_by_label("Look out (spot): writes out_context");
    // A click on one selects it alone, and centres it.
    h.get_by_label("Strike (strike): reads in_context").click();
    h.run_steps(3);
    assert_eq!(h.state().selection(), ids(&["strike"]).as_slice());
}

#[test]
fn a_waypoint_field_offers_the_scenarios_waypoints() {
    let dir = guard_patrol_files();
    let mut h = harness(EditorApp::open(&dir.path().join("guard_patrol.json")).unwrap());
    h.state_mut().select(Some(NodeId::new("chase")));
    h.run_steps(3);
    pick(&mut h, "waypoints for waypoint", "post_b");
    assert_eq!(field(&h, "chase", "waypoint").as_deref(), Some("post_b"));
    // A field that names no waypoint offers none.
    h.state_mut().select(Some(NodeId::new("strike")));
    h.run_steps(3);
    assert!(h.query_by_label_contains("waypoints for").is_none());
}

#[test]
fn the_projects_keys_are_listed_offered_to_key_fields_and_found() {
    let (dir, _path, _) = guard_patrol(|keys| *keys = Some(vec![]));
    std::fs::write(
        dir.path().join("arbor.project.json"),
        r#"{"format": "arbor.project", "version": 1, "nodes": [],
            "keys": [{"name": "intruder", "type": "entity", "doc": "Who the guard chases."}]}"#,
    )
    .unwrap();
    let mut h = harness(EditorApp::open(&dir.path().join("guard_patrol.json")).unwrap());
    h.get_by_label("The project's 1 key(s), shared by all its trees");
    h.get_by_label("Who the guard chases.");
    // Shown, its type and doc not edited here.
    assert!(h.query_by_label("type of intruder").is_none());
    h.get_by_role_and_label(Role::Button, "Find usages of intruder")
        .click();
    h.run_steps(3);
    assert_eq!(h.state().selection().len(), 4);
    h.state_mut().select(Some(NodeId::new("strike")));
    h.run_steps(3);
    pick(&mut h, "in_context", "(none)");
    // Attack's key field holds "" for none.
    assert_eq!(field(&h, "strike", "in_context").as_deref(), Some(""));
    pick(&mut h, "in_context", "intruder  ·  entity, project");
    assert_eq!(
        field(&h, "strike", "in_context").as_deref(),
        Some("intruder")
    );
}

/// A field read from a key (SEMANTICS.md §3.5), through the inspector: the patrol SubTree's
/// Wait reads its `seconds` from the `pause` parameter; "value" gives it a value again,
/// "key" reads it from a key once more, and the drop-down picks which; saved and read back.
#[test]
fn an_actions_field_is_read_from_a_key_chosen_in_the_inspector_and_given_a_value_again() {
    let dir = guard_patrol_files();
    let path = dir.path().join("subtrees/patrol.json");
    let mut tree = arbor::io::load_tree(&path).unwrap();
    let mut keys = tree.keys.take().unwrap();
    keys.push(KeyDecl {
        default: Some(Value::Float(3.0)),
        ..KeyDecl::new("long_pause", KeyType::Float)
    });
    tree.keys = Some(keys);
    arbor::io::save_tree(&path, &tree).unwrap();
    let mut app = EditorApp::open(&path).unwrap();
    app.select(Some(NodeId::new("look_a")));
    let mut h = harness(app);
    let seconds = |h: &Harness<'static, EditorApp>| {
        h.state()
            .tree()
            .node(&NodeId::new("look_a"))
            .unwrap()
            .fields
            .get("seconds")
            .cloned()
    };
    assert_eq!(seconds(&h), Some(Value::Key("pause".into())));
    // The node's body says which key; the inspector offers the keys a number takes.
    // (Both Waits' bodies say it.)
    assert!(h.query_all_by_label("key pause").count() >= 2);
    h.get_by_role_and_label(Role::Button, "give seconds a value")
        .click();
    h.run_steps(3);
    assert_eq!(seconds(&h), None, "back to its default value");
    h.get_by_role_and_label(Role::Button, "read seconds from a key")
        .click();
    h.run_steps(3);
    assert_eq!(seconds(&h), Some(Value::Key("pause".into())));
    pick(&mut h, "seconds", "long_pause  ·  float");
    assert_eq!(seconds(&h), Some(Value::Key("long_pause".into())));
    // A text key is not offered for a number.
    h.get_by_role_and_label(Role::ComboBox, "seconds").click();
    h.run_steps(2);
    assert!(h.query_by_label("first  ·  text").is_none());
    key(&mut h, Modifiers::NONE, Key::Escape);
    key(&mut h, Modifiers::COMMAND, Key::S);
    let saved = arbor::io::load_tree(&path).unwrap();
    assert_eq!(
        saved
            .node(&NodeId::new("look_a"))
            .unwrap()
            .fields
            .get("seconds"),
        Some(&Value::Key("long_pause".into()))
    );
}

/// A tree of two keys (`enemy`, an entity, and `pace`, a float) whose SubTree node `hunt`
/// runs `chase.json` (parameters `target`: in entity, `speed`: in float default 1,
/// `caught`: out entity), in a new folder; the editor opened on it, `hunt` selected.
fn hunter() -> (
    tempfile::TempDir,
    std::path::PathBuf,
    Harness<'static, EditorApp>,
) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        common::repo().join("tests/fixtures/invalid/assets/chase.json"),
        dir.path().join("chase.json"),
    )
    .unwrap();
    let path = dir.path().join("hunter.json");
    std::fs::write(
        &path,
        r#"{"format": "arbor.tree", "version": 1,
  "keys": [{"name": "enemy", "type": "entity"}, {"name": "pace", "type": "float"}],
  "nodes": [
    {"id": "root", "kind": "Root", "inputs": {"child": ["hunt"]}},
    {"id": "hunt", "kind": "SubTree", "fields": {"asset": "chase.json"}}
  ]}"#,
    )
    .unwrap();
    let mut h = harness(EditorApp::open(&path).unwrap());
    h.state_mut().select(Some(NodeId::new("hunt")));
    h.run_steps(3);
    (dir, path, h)
}

#[test]
fn a_subtrees_parameters_are_bound_to_keys_and_values_in_its_inspector_and_saved() {
    let (_dir, path, mut h) = hunter();
    // Each parameter of the asset: its direction, type, default and doc.
    h.get_by_label("in, entity: Who to chase.");
    h.get_by_label("in, float, default 1.0");
    h.get_by_label("out, entity");
    // target: a key of the caller's of its type; a float key is not offered.
    h.get_by_role_and_label(Role::ComboBox, "binding of target")
        .click();
    h.run_steps(2);
    assert!(h.query_by_label("pace  ·  float").is_none());
    assert!(
        h.query_by_label("a value").is_none(),
        "an entity has no literal"
    );
    h.get_by_label("enemy  ·  entity").click();
    h.run_steps(3);
    // speed: a value, typed.
    pick(&mut h, "binding of speed", "a value");
    type_into(&mut h, "value of speed", "2.5");
    // caught: a new key, declared and bound at once.
    pick(&mut h, "binding of caught", "New key…");
    h.get_by_label("New key name").type_text("prey");
    h.run_steps(2);
    key(&mut h, Modifiers::NONE, Key::Enter);
    h.run_steps(3);
    key(&mut h, Modifiers::COMMAND, Key::S);
    h.run_steps(2);
    let saved = arbor::io::load_tree(&path).unwrap();
    let hunt = saved.node(&NodeId::new("hunt")).unwrap();
    assert_eq!(hunt.fields.get("target"), Some(&Value::Key("enemy".into())));
    assert_eq!(hunt.fields.get("speed"), Some(&Value::Float(2.5)));
    assert_eq!(hunt.fields.get("caught"), Some(&Value::Key("prey".into())));
    assert_eq!(
        saved
            .keys
            .as_ref()
            .unwrap()
            .last()
            .map(|k| (k.name.as_str(), k.ty)),
        Some(("prey", KeyType::Entity))
    );
    // Every parameter bound as its direction and type want (no error), and none of them
    // shows as an unknown field.
    let errors: Vec<_> = h
        .state()
        .diagnostics()
        .iter()
        .filter(|d| d.is_error())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert!(h.query_by_label_contains("unknown field").is_none());
    // Each was one undo step: the new key and its binding go together.
    key(&mut h, Modifiers::COMMAND, Key::Z);
    let hunt = h.state().tree().node(&NodeId::new("hunt")).unwrap().clone();
    assert_eq!(hunt.fields.get("caught"), None);
    assert_eq!(h.state().tree().keys.as_ref().unwrap().len(), 2);
    assert_eq!(hunt.fields.get("speed"), Some(&Value::Float(2.5)));
    // Unbound again from its drop-down: the default says what it holds.
    pick(&mut h, "binding of speed", "(unbound: its default 1.0)");
    let hunt = h.state().tree().node(&NodeId::new("hunt")).unwrap().clone();
    assert_eq!(hunt.fields.get("speed"), None);
}

/// guard_patrol in a project that declares its key `intruder`, with two more trees of the
/// project that use it (`other.json`, `sub/third.json`, which also declares `spare`), and a
/// tree of another project below it (`own/kept.json`); the editor opened on guard_patrol.
fn project_of_three() -> (tempfile::TempDir, Harness<'static, EditorApp>) {
    let (dir, path, _) = guard_patrol(|keys| *keys = Some(vec![]));
    let d = dir.path();
    // Two projects that declare the key: this one, and one of its own below it.
    for folder in [d.to_owned(), d.join("own")] {
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("arbor.project.json"),
            r#"{"format": "arbor.project", "version": 1, "nodes": [],
            "keys": [{"name": "intruder", "type": "entity"}]}"#,
        )
        .unwrap();
    }
    std::fs::copy(&path, d.join("other.json")).unwrap();
    std::fs::create_dir_all(d.join("sub")).unwrap();
    let mut third = arbor::io::load_tree(&path).unwrap();
    third.keys = Some(vec![KeyDecl::new("spare", KeyType::Entity)]);
    arbor::io::save_tree(&d.join("sub/third.json"), &third).unwrap();
    std::fs::copy(&path, d.join("own/kept.json")).unwrap();
    let h = harness(EditorApp::open(&path).unwrap());
    (dir, h)
}

/// The keys tree file `path` names in `in_context` and `out_context` fields, sorted.
fn keys_named(path: &std::path::Path) -> Vec<String> {
    let tree = arbor::io::load_tree(path).unwrap();
    let mut keys: Vec<String> = tree
        .nodes()
        .iter()
        .flat_map(|n| n.fields.iter())
        .filter(|(k, _)| k.ends_with("context"))
        .filter_map(|(_, v)| v.as_str().map(str::to_owned))
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

#[test]
fn renaming_a_project_key_renames_it_in_every_tree_of_the_project_as_one_undo_step() {
    let (dir, mut h) = project_of_three();
    let d = dir.path().to_owned();
    let files = [
        "arbor.project.json",
        "other.json",
        "sub/third.json",
        "own/kept.json",
    ];
    let read = |f: &str| std::fs::read(d.join(f)).unwrap();
    let before: Vec<Vec<u8>> = files.iter().map(|f| read(f)).collect();
    // A name another tree of the project declares is refused, with that tree named.
    click_in_side_panel(&mut h, "Rename…");
    type_into(&mut h, "new name of intruder", "spare");
    assert!(
        h.state().last_message().contains("third.json")
            && h.state().last_message().contains("spare"),
        "{}",
        h.state().last_message()
    );
    assert_eq!(files.iter().map(|f| read(f)).collect::<Vec<_>>(), before);
    // Renamed: the project file, both other trees, the tree open; not the other project's.
    type_into(&mut h, "new name of intruder", "thief");
    assert!(
        h.state().said("Renamed the project's key 'intruder' to 'thief': the project file, 2 other tree file(s) and 4 change(s) here"),
        "{}",
        h.state().last_message()
    );
    let project = std::fs::read_to_string(d.join("arbor.project.json")).unwrap();
    assert!(
        project.contains("\"thief\"") && !project.contains("intruder"),
        "{project}"
    );
    assert_eq!(keys_named(&d.join("other.json")), ["thief"]);
    assert_eq!(keys_named(&d.join("sub/third.json")), ["thief"]);
    assert_eq!(read("own/kept.json"), before[3]);
    assert_eq!(field(&h, "spot", "out_context").as_deref(), Some("thief"));
    assert!(h.state().is_dirty());
    // The editor reads the project again: the key is the project's under its new name.
    h.get_by_role_and_label(Role::Button, "Find usages of thief");
    assert!(
        h.state().diagnostics().iter().all(|d| !d.is_error()),
        "{:?}",
        h.state().diagnostics()
    );
    // One Ctrl+Z takes it all back: the files as they were, the tree's fields.
    key(&mut h, Modifiers::COMMAND, Key::Z);
    h.run_steps(3);
    assert_eq!(files.iter().map(|f| read(f)).collect::<Vec<_>>(), before);
    assert_eq!(
        field(&h, "spot", "out_context").as_deref(),
        Some("intruder")
    );
    assert!(!h.state().is_dirty());
    h.get_by_role_and_label(Role::Button, "Find usages of intruder");
    // Redo writes them again; a file changed since is not written over, and said.
    key(&mut h, Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    h.run_steps(3);
    assert_eq!(keys_named(&d.join("other.json")), ["thief"]);
    std::fs::write(d.join("other.json"), &before[1]).unwrap();
    key(&mut h, Modifiers::COMMAND, Key::Z);
    h.run_steps(3);
    assert!(
        h.state()
            .last_message()
            .contains("other.json changed on disk"),
        "{}",
        h.state().last_message()
    );
    assert_eq!(field(&h, "spot", "out_context").as_deref(), Some("thief"));
}

/// A branch's field read from a key (SEMANTICS.md §3.5): a Repeater's `times`, through the
/// inspector's "key" button and drop-down, saved and read back; an Interrupt's fields take
/// values only.
#[test]
fn a_repeaters_count_is_read_from_a_key_chosen_in_the_inspector() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("laps.json");
    std::fs::write(
        &path,
        r#"{"format": "arbor.tree", "version": 1,
        "keys": [{"name": "laps", "type": "int", "default": 3},
                 {"name": "label", "type": "text", "default": "a"}],
        "nodes": [
        {"id": "root", "kind": "Root", "inputs": {"child": ["loop"], "interrupts": ["stop"]}},
        {"id": "loop", "kind": "Repeater", "inputs": {"child": ["wait"]}},
        {"id": "wait", "kind": "MockAction", "fields": {"script": "S", "produces": {"key": "label"}}},
        {"id": "stop", "kind": "Interrupt", "fields": {"interrupt_id": "stop"}, "inputs": {"child": ["halt"]}},
        {"id": "halt", "kind": "MockAction"}
    ]}"#,
    )
    .unwrap();
    let mut app = EditorApp::open(&path).unwrap();
    app.select(Some(NodeId::new("loop")));
    let mut h = harness(app);
    let times = |h: &Harness<'static, EditorApp>| {
        h.state()
            .tree()
            .node(&NodeId::new("loop"))
            .unwrap()
            .fields
            .get("times")
            .cloned()
    };
    h.get_by_role_and_label(Role::Button, "read times from a key")
        .click();
    h.run_steps(3);
    assert_eq!(
        times(&h),
        Some(Value::Key("laps".into())),
        "the only int key"
    );
    assert!(
        h.query_all_by_label("key laps").count() >= 1,
        "the node's body says it"
    );
    // A text key is not offered for a count.
    h.get_by_role_and_label(Role::ComboBox, "times").click();
    h.run_steps(2);
    assert!(h.query_by_label("label  ·  text").is_none());
    key(&mut h, Modifiers::NONE, Key::Escape);
    key(&mut h, Modifiers::COMMAND, Key::S);
    let saved = arbor::io::load_tree(&path).unwrap();
    assert_eq!(
        saved
            .node(&NodeId::new("loop"))
            .unwrap()
            .fields
            .get("times"),
        Some(&Value::Key("laps".into()))
    );
    // An Interrupt's fields take values: no "key" button.
    h.state_mut().select(Some(NodeId::new("stop")));
    h.run_steps(3);
    assert!(
        h.query_by_label("read times from a key").is_none()
            && h.query_all_by_label_contains("force_reset").count() >= 1,
        "the Interrupt's inspector is shown"
    );
    assert!(
        h.query_by_label("read force_reset from a key").is_none(),
        "an Interrupt's field offered a key"
    );
}
