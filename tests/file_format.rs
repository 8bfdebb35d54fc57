//! The file format: canonical round trips, clear errors with file/line/node, atomic saving.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use arbor::io::{LoadError, load_tree, parse_tree, save_tree, tree_to_string};
use arbor::model::{
    Catalog, Edit, KeyType, Node, NodeId, ParentSlot, Port, StructureError, Tree, Value,
};
use common::repo;

#[test]
fn every_sample_tree_round_trips_byte_for_byte() {
    for path in common::sample_trees() {
        let text = std::fs::read_to_string(&path).unwrap();
        let tree = load_tree(&path).unwrap();
        assert_eq!(
            tree_to_string(&tree),
            text,
            "{} is not canonical",
            path.display()
        );
    }
}

#[test]
fn every_fixture_that_loads_round_trips() {
    for path in common::json_files(&repo().join("tests/fixtures")) {
        if let Ok(tree) = load_tree(&path) {
            let again = parse_tree(&tree_to_string(&tree), &path).unwrap();
            assert_eq!(again, tree, "{}", path.display());
        }
    }
}

fn unreadable(name: &str) -> LoadError {
    let path = repo().join("tests/fixtures/unreadable").join(name);
    load_tree(&path).expect_err(name)
}

#[test]
fn a_truncated_file_names_line_and_column() {
    let e = unreadable("truncated.json");
    let LoadError::Syntax { line, column, .. } = &e else {
        panic!("{e:?}")
    };
    assert_eq!((*line, *column), (6, 1));
    let text = e.to_string();
    assert!(
        text.contains("truncated.json:6:1: EOF while parsing"),
        "{text}"
    );
}

#[test]
fn malformed_json_names_line_and_column() {
    let text = "{\n  \"format\": \"arbor.tree\",\n  \"version\": 1,\n  \"nodes\": [,]\n}\n";
    let e = parse_tree(text, Path::new("bad.json")).unwrap_err();
    assert!(e.to_string().starts_with("bad.json:4:"), "{e}");
}

#[test]
fn a_field_value_of_the_wrong_shape_names_its_place() {
    let e = unreadable("bad-value.json");
    let text = e.to_string();
    assert!(text.contains("bad-value.json:2:"), "{text}");
    assert!(
        text.contains("true/false, a number, text or {\"key\": NAME}"),
        "{text}"
    );
}

#[test]
fn a_newer_version_asks_for_a_newer_arbor() {
    let e = unreadable("newer-version.json");
    assert!(matches!(e, LoadError::Format { .. }), "{e:?}");
    assert!(
        e.to_string().contains("newer Arbor: tree file version 7"),
        "{e}"
    );
}

#[test]
fn a_file_without_the_header_is_not_a_tree() {
    let e = unreadable("not-a-tree.json");
    assert!(e.to_string().contains("not an Arbor tree file"), "{e}");
}

#[test]
fn duplicate_ids_and_dangling_links_name_the_node() {
    let e = unreadable("duplicate-id.json");
    assert!(
        matches!(&e, LoadError::Structure { source: StructureError::DuplicateId(id), .. } if id.as_str() == "a"),
        "{e:?}"
    );
    let e = unreadable("dangling-link.json");
    let text = e.to_string();
    assert!(
        text.contains("[root]") && text.contains("'ghost'"),
        "{text}"
    );
}

#[test]
fn an_unknown_port_is_named() {
    let e = unreadable("unknown-port.json");
    assert!(e.to_string().contains("unknown port `kids`"), "{e}");
}

#[test]
fn a_layout_number_too_large_for_the_editor_is_refused_not_saved_as_null() {
    let e = unreadable("huge-position.json");
    let text = e.to_string();
    assert!(
        text.contains("huge-position.json:5:")
            && text.contains("the number 1e39 is too large for a layout coordinate"),
        "{text}"
    );
    // The largest that fits loads, and writes back the same.
    let fits = r#"{"format": "arbor.tree", "version": 1, "nodes": [{"id": "root", "kind": "Root"}],
        "editor": {"view": {"offset": [-3.4e38, 0], "zoom": 1}, "nodes": {"root": {"position": [3.4e38, 1]}}}}"#;
    let tree = parse_tree(fits, Path::new("fits.json")).unwrap();
    let again = parse_tree(&tree_to_string(&tree), Path::new("fits.json")).unwrap();
    assert_eq!(again, tree);
    assert!(!tree_to_string(&tree).contains("null"));
}

#[test]
fn shape_errors_use_json_words_not_internal_type_names() {
    let e = unreadable("editor-not-an-object.json").to_string();
    assert!(
        e.contains("expected the editor's layout: an object with \"view\" and \"nodes\""),
        "{e}"
    );
    for body in [
        r#""nodes": 5"#,
        r#""nodes": [5]"#,
        r#""nodes": [{"id": "a", "kind": "Root", "inputs": []}]"#,
        r#""nodes": [], "editor": {"view": 1}"#,
        r#""nodes": [], "editor": {"nodes": {"a": 1}}"#,
        r#""nodes": [], "editor": {"nodes": {"a": {"position": {}}}}"#,
        r#""nodes": [], "editor": {"nodes": {"a": {"position": [1, 2, 3]}}}"#,
    ] {
        let text = format!(r#"{{"format": "arbor.tree", "version": 1, {body}}}"#);
        let e = parse_tree(&text, Path::new("x.json"))
            .unwrap_err()
            .to_string();
        for internal in ["struct", "Dto", "sequence", "map", "variant", "tuple"] {
            assert!(!e.contains(internal), "{body}: {e}");
        }
    }
}

#[test]
fn unknown_keys_are_refused_with_their_place() {
    let text = r#"{"format": "arbor.tree", "version": 1, "nodes": [], "colour": "red"}"#;
    let e = parse_tree(text, Path::new("x.json")).unwrap_err();
    assert!(e.to_string().contains("unknown field `colour`"), "{e}");
}

#[test]
fn a_missing_file_is_a_read_error_naming_it() {
    let e = load_tree(Path::new("no/such/tree.json")).unwrap_err();
    assert!(matches!(e, LoadError::Read { .. }));
    assert!(
        e.to_string().starts_with("no/such/tree.json: cannot read"),
        "{e}"
    );
}

#[test]
fn unknown_kinds_and_wrong_field_types_load_and_are_caught_by_validation() {
    let text = r#"{"format": "arbor.tree", "version": 1, "nodes": [
        {"id": "root", "kind": "Root", "inputs": {"child": ["r"]}},
        {"id": "r", "kind": "Repeater", "fields": {"times": 2.5}, "inputs": {"child": ["x"]}},
        {"id": "x", "kind": "Warp"}]}"#;
    let tree = parse_tree(text, Path::new("t.json")).unwrap();
    let diags = arbor::model::validate(&tree, &Catalog::builtin(), &arbor::model::NoAssets);
    let rules: Vec<_> = diags
        .iter()
        .map(|d| (d.rule.code(), d.nodes[0].as_str()))
        .collect();
    assert!(rules.contains(&("field-type", "r")), "{rules:?}");
    assert!(rules.contains(&("unknown-kind", "x")), "{rules:?}");
}

#[test]
fn save_writes_canonical_text_atomically_and_reloads_equal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.json");
    let catalog = Catalog::builtin();
    let mut tree = Tree::new();
    let mut root = Node::new("root", "Root");
    root.position = [400.5, 0.1];
    tree.apply(
        Edit::Insert {
            node: Box::new(root),
            index: 0,
            parent: None,
        },
        &catalog,
    )
    .unwrap();
    let mut wait = Node::new("wait", "Wait");
    wait.fields.insert("seconds".into(), Value::Float(0.25));
    wait.comment = "waits \"a bit\"\nthen goes on".into();
    let to = ParentSlot {
        parent: NodeId::new("root"),
        port: Port::Child,
        slot: 0,
    };
    tree.apply(
        Edit::Insert {
            node: Box::new(wait),
            index: 1,
            parent: Some(to),
        },
        &catalog,
    )
    .unwrap();
    save_tree(&path, &tree).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"position\": [400.5, 0.1]"), "{text}");
    assert_eq!(load_tree(&path).unwrap(), tree);
    // Nothing but the file itself is left in the folder.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("t.json")]);
    // Saving over it again replaces it whole.
    tree.apply(
        Edit::SetTitle {
            id: NodeId::new("wait"),
            title: "Pause".into(),
        },
        &catalog,
    )
    .unwrap();
    save_tree(&path, &tree).unwrap();
    assert_eq!(
        load_tree(&path)
            .unwrap()
            .node(&NodeId::new("wait"))
            .unwrap()
            .title,
        "Pause"
    );
}

#[test]
fn a_failed_save_names_the_file_and_keeps_the_old_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing-folder").join("t.json");
    let e = save_tree(&path, &Tree::new()).unwrap_err();
    assert!(matches!(e, LoadError::Write { .. }));
    assert!(e.to_string().contains("t.json: cannot save"), "{e}");
}

#[test]
fn canonical_text_is_stable_and_sorted() {
    let path = repo().join("sample_trees/pass_receive.json");
    let text = std::fs::read_to_string(&path).unwrap();
    // The header comes first, in this order.
    assert!(
        text.starts_with("{\n  \"format\": \"arbor.tree\",\n  \"version\": 1,\n"),
        "{text}"
    );
    // Child order is explicit, inline, in slot order.
    assert!(
        text.contains("\"children\": [\"find_mate\", \"aim\", \"kick\"]"),
        "{text}"
    );
    // Editor data is kept apart from the nodes.
    let nodes_at = text.find("\"nodes\": [").unwrap();
    let editor_at = text.find("\"editor\": {").unwrap();
    assert!(nodes_at < editor_at && !text[..editor_at].contains("\"position\""));
}

/// A tree file declaring `keys` (one entry a line, from line 5).
fn declaring(keys: &[&str]) -> String {
    format!(
        "{{\n  \"format\": \"arbor.tree\",\n  \"version\": 1,\n  \"keys\": [\n    {}\n  ],\n  \"nodes\": []\n}}\n",
        keys.join(",\n    ")
    )
}

#[test]
fn declared_keys_round_trip_in_the_order_written() {
    let text = declaring(&[
        r#"{"name": "speed", "type": "float", "default": 2.5, "doc": "Run speed, m/s."}"#,
        r#"{"name": "enemy", "type": "entity"}"#,
        r#"{"name": "alert", "type": "bool", "default": false}"#,
    ]);
    let tree = parse_tree(&text, Path::new("guard.json")).unwrap();
    let keys = tree.keys.as_deref().unwrap();
    assert_eq!(
        keys.iter()
            .map(|k| (k.name.as_str(), k.ty))
            .collect::<Vec<_>>(),
        [
            ("speed", KeyType::Float),
            ("enemy", KeyType::Entity),
            ("alert", KeyType::Bool)
        ]
    );
    assert_eq!(keys[0].default, Some(Value::Float(2.5)));
    assert_eq!(keys[0].doc, "Run speed, m/s.");
    let again = parse_tree(&tree_to_string(&tree), Path::new("guard.json")).unwrap();
    assert_eq!(again, tree);
    // A file without "keys" declares none (its keys are all `any`); an empty list declares
    // that the tree uses none, and is kept.
    let none = parse_tree(
        &declaring(&[]).replace("  \"keys\": [\n    \n  ],\n", ""),
        Path::new("a.json"),
    );
    assert_eq!(none.unwrap().keys, None);
    let empty = parse_tree(&declaring(&[]), Path::new("a.json")).unwrap();
    assert_eq!(empty.keys, Some(vec![]));
    assert!(tree_to_string(&empty).contains("\"keys\": []"));
}

#[test]
fn a_declaration_that_cannot_be_is_refused_with_its_line_and_key() {
    for (keys, line, says) in [
        (
            vec![
                r#"{"name": "enemy", "type": "entity"}"#,
                r#"{"name": "enemy", "type": "entity"}"#,
            ],
            6,
            "key 'enemy' is declared twice",
        ),
        (
            vec![r#"{"name": "speed", "type": "vector"}"#],
            5,
            "key 'speed': \"vector\" is not a key type; a key holds bool, int, float, text, entity, position, any",
        ),
        (
            vec![r#"{"name": "speed", "type": "float", "default": "fast"}"#],
            5,
            "key 'speed' is of type float, but its default \"fast\" is text",
        ),
        (
            vec![r#"{"name": "home", "type": "position", "default": 3}"#],
            5,
            "key 'home': a key of type position takes no default",
        ),
        (
            vec![r#"{"name": "my key", "type": "int"}"#],
            5,
            "key 'my key': a key's name cannot contain spaces",
        ),
        (
            vec![r#"{"name": "a/b", "type": "int"}"#],
            5,
            "key 'a/b': a key's name cannot contain '/'",
        ),
        (vec![r#"{"name": "speed"}"#], 5, "missing field `type`"),
    ] {
        let e = parse_tree(&declaring(&keys), Path::new("guard.json")).unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("guard.json:{line}:")) && text.contains(says),
            "{keys:?}: {text}"
        );
    }
}

#[test]
fn a_hundred_thousand_declared_keys_are_refused_past_the_limit() {
    let keys: Vec<String> = (0..100_000)
        .map(|i| format!(r#"{{"name": "k{i}", "type": "int"}}"#))
        .collect();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let e = parse_tree(&declaring(&keys), Path::new("big.json")).unwrap_err();
    let text = e.to_string();
    assert!(
        text.starts_with("big.json:65540:")
            && text.contains("more than 65535 keys are declared; a file declares at most 65535"),
        "{text}"
    );
}

#[test]
fn a_field_written_twice_or_a_bad_key_binding_is_refused_at_its_place() {
    let text = "{\n  \"format\": \"arbor.tree\",\n  \"version\": 1,\n  \"nodes\": [\n    {\"id\": \"s\", \"kind\": \"SubTree\", \"fields\": {\"asset\": \"a.json\",\n      \"target\": {\"key\": \"enemy\"}, \"target\": 3}}\n  ]\n}\n";
    let e = parse_tree(text, Path::new("guard.json"))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("guard.json:6:") && e.contains("field 'target' is written twice"),
        "{e}"
    );
    let bound = |binding: &str| {
        parse_tree(
            &text
                .replace(", \"target\": 3", "")
                .replace("{\"key\": \"enemy\"}", binding),
            Path::new("guard.json"),
        )
    };
    let tree = bound("{\"key\": \"enemy\"}").unwrap();
    assert_eq!(
        tree.nodes()[0].fields.get("target"),
        Some(&Value::Key("enemy".into()))
    );
    for (binding, says) in [
        (
            "{\"key\": \"my enemy\"}",
            "key 'my enemy': a key's name cannot contain spaces",
        ),
        (
            "{\"name\": \"enemy\"}",
            "a field bound to a key is {\"key\": NAME}",
        ),
        (
            "{\"key\": \"a\", \"x\": 1}",
            "a field bound to a key is {\"key\": NAME}",
        ),
    ] {
        let e = bound(binding).unwrap_err().to_string();
        assert!(
            e.starts_with("guard.json:6:") && e.contains(says),
            "{binding}: {e}"
        );
    }
}
