//! Edit operations: each refused edit says why and changes nothing; each inverse undoes exactly.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use arbor::model::{Catalog, Edit, Node, NodeId, ParentSlot, Port, Rule, Tree, Value};

fn id(s: &str) -> NodeId {
    NodeId::new(s)
}

fn slot(parent: &str, port: Port, slot: usize) -> ParentSlot {
    ParentSlot {
        parent: id(parent),
        port,
        slot,
    }
}

fn add(tree: &mut Tree, c: &Catalog, node: &str, kind: &str, parent: Option<ParentSlot>) {
    let edit = Edit::Insert {
        node: Box::new(Node::new(node, kind)),
        index: usize::MAX,
        parent,
    };
    tree.apply(edit, c).unwrap();
}

/// Root ← seq ← [a, b], plus a loose condition `c` and a loose action `d`.
fn sample(c: &Catalog) -> Tree {
    let mut t = Tree::new();
    add(&mut t, c, "root", "Root", None);
    add(
        &mut t,
        c,
        "seq",
        "Sequence",
        Some(slot("root", Port::Child, 0)),
    );
    add(
        &mut t,
        c,
        "a",
        "MockAction",
        Some(slot("seq", Port::Children, 0)),
    );
    add(&mut t, c, "b", "Wait", Some(slot("seq", Port::Children, 1)));
    add(&mut t, c, "c", "MockCondition", None);
    add(&mut t, c, "d", "MockAction", None);
    t
}

fn refused(edit: Edit, rule: Option<Rule>) -> String {
    let c = Catalog::builtin();
    let mut t = sample(&c);
    let before = t.clone();
    let err = t.apply(edit, &c).unwrap_err();
    assert_eq!(t, before, "a refused edit changed the tree");
    assert_eq!(err.rule, rule, "{}", err.message);
    err.message
}

#[test]
fn links_that_break_typing_are_refused_with_a_reason() {
    let m = refused(
        Edit::Link {
            child: id("d"),
            to: slot("seq", Port::Conditions, 0),
        },
        Some(Rule::LinkType),
    );
    assert!(m.contains("only Conditions"), "{m}");
    let m = refused(
        Edit::Link {
            child: id("d"),
            to: slot("a", Port::Children, 0),
        },
        Some(Rule::LinkIntoLeaf),
    );
    assert!(m.contains("nothing links into a Leaf"), "{m}");
    refused(
        Edit::Link {
            child: id("root"),
            to: slot("seq", Port::Children, 0),
        },
        Some(Rule::RootHasParent),
    );
    refused(
        Edit::Link {
            child: id("d"),
            to: slot("root", Port::Child, 0),
        },
        Some(Rule::SlotOverflow),
    );
    refused(
        Edit::Link {
            child: id("a"),
            to: slot("seq", Port::Children, 0),
        },
        Some(Rule::TwoParents),
    );
    refused(
        Edit::Link {
            child: id("d"),
            to: slot("root", Port::Interrupts, 0),
        },
        Some(Rule::LinkType),
    );
    refused(
        Edit::Link {
            child: id("d"),
            to: slot("seq", Port::Children, 5),
        },
        None,
    );
}

#[test]
fn a_link_that_would_close_a_cycle_is_refused() {
    let c = Catalog::builtin();
    let mut t = sample(&c);
    add(&mut t, &c, "inv", "Inverter", None);
    add(
        &mut t,
        &c,
        "sel",
        "Selector",
        Some(slot("inv", Port::Child, 0)),
    );
    let err = t
        .apply(
            Edit::Link {
                child: id("inv"),
                to: slot("sel", Port::Children, 0),
            },
            &c,
        )
        .unwrap_err();
    assert_eq!(err.rule, Some(Rule::Cycle));
}

#[test]
fn a_condition_can_be_a_guard_or_a_child() {
    let c = Catalog::builtin();
    let mut t = sample(&c);
    t.apply(
        Edit::Link {
            child: id("c"),
            to: slot("seq", Port::Conditions, 0),
        },
        &c,
    )
    .unwrap();
    t.apply(Edit::Unlink { child: id("c") }, &c).unwrap();
    t.apply(
        Edit::Link {
            child: id("c"),
            to: slot("seq", Port::Children, 1),
        },
        &c,
    )
    .unwrap();
    assert_eq!(
        t.node(&id("seq")).unwrap().linked(Port::Children),
        &[id("a"), id("c"), id("b")]
    );
}

#[test]
fn removing_a_node_unlinks_it_and_undo_restores_everything() {
    let c = Catalog::builtin();
    let mut t = sample(&c);
    let before = t.clone();
    let undo = t.apply(Edit::Remove { id: id("seq") }, &c).unwrap();
    assert!(t.node(&id("root")).unwrap().linked(Port::Child).is_empty());
    assert_eq!(t.parent_of(&id("a")), None, "children become loose");
    t.apply(undo, &c).unwrap();
    assert_eq!(t, before);
}

#[test]
fn moving_a_child_changes_execution_order_and_undoes() {
    let c = Catalog::builtin();
    let mut t = sample(&c);
    t.apply(
        Edit::Link {
            child: id("d"),
            to: slot("seq", Port::Children, 2),
        },
        &c,
    )
    .unwrap();
    let undo = t
        .apply(
            Edit::MoveChild {
                parent: id("seq"),
                port: Port::Children,
                from: 0,
                to: 2,
            },
            &c,
        )
        .unwrap();
    assert_eq!(
        t.node(&id("seq")).unwrap().linked(Port::Children),
        &[id("b"), id("d"), id("a")]
    );
    t.apply(undo, &c).unwrap();
    assert_eq!(
        t.node(&id("seq")).unwrap().linked(Port::Children),
        &[id("a"), id("b"), id("d")]
    );
}

#[test]
fn a_batch_is_all_or_nothing() {
    let c = Catalog::builtin();
    let mut t = sample(&c);
    let before = t.clone();
    let batch = Edit::Batch(vec![
        Edit::SetTitle {
            id: id("a"),
            title: "first".into(),
        },
        Edit::Unlink { child: id("b") },
        Edit::Link {
            child: id("b"),
            to: slot("a", Port::Children, 0),
        }, // refused
    ]);
    assert!(t.apply(batch, &c).is_err());
    assert_eq!(t, before);
    let undo = t
        .apply(
            Edit::Batch(vec![
                Edit::SetField {
                    id: id("b"),
                    name: "seconds".into(),
                    value: Some(Value::Float(2.0)),
                },
                Edit::Unlink { child: id("b") },
                Edit::Link {
                    child: id("b"),
                    to: slot("seq", Port::Children, 0),
                },
            ]),
            &c,
        )
        .unwrap();
    assert_eq!(
        t.node(&id("seq")).unwrap().linked(Port::Children),
        &[id("b"), id("a")]
    );
    t.apply(undo, &c).unwrap();
    assert_eq!(t, before);
}

#[test]
fn rename_moves_the_parents_link_and_refuses_taken_or_bad_ids() {
    let c = Catalog::builtin();
    let mut t = sample(&c);
    let before = t.clone();
    let parent = t.parent_of(&id("a")).unwrap();
    let undo = t
        .apply(
            Edit::Rename {
                id: id("a"),
                to: id("chase"),
            },
            &c,
        )
        .unwrap();
    assert!(!t.contains(&id("a")) && t.contains(&id("chase")));
    assert_eq!(
        t.node(&parent.parent).unwrap().linked(parent.port)[parent.slot],
        id("chase")
    );
    t.check_invariants(&c).unwrap();
    for (to, why) in [
        ("b", "already has the id 'b'"),
        ("x y", "spaces"),
        ("p/q", "'/'"),
        ("", "empty"),
    ] {
        let err = t
            .apply(
                Edit::Rename {
                    id: id("chase"),
                    to: id(to),
                },
                &c,
            )
            .unwrap_err();
        assert!(err.message.contains(why), "{to}: {}", err.message);
    }
    t.apply(undo, &c).unwrap();
    assert_eq!(t, before);
}

#[test]
fn ids_are_unique_and_fresh_ids_are_readable() {
    let c = Catalog::builtin();
    let mut t = sample(&c);
    assert_eq!(t.fresh_id("MoveTo"), id("move_to"));
    add(&mut t, &c, "move_to", "MoveTo", None);
    assert_eq!(t.fresh_id("MoveTo"), id("move_to_2"));
    // From a title: its words; a name with nothing to keep is `n`; a long one is cut at a
    // word.
    assert_eq!(t.fresh_id("Chase the player!"), id("chase_the_player"));
    assert_eq!(t.fresh_id("Am I stronger?"), id("am_i_stronger"));
    assert_eq!(t.fresh_id("HTTPGet2Go"), id("httpget2_go"));
    assert_eq!(t.fresh_id("?!"), id("n"));
    assert_eq!(
        t.fresh_id("walk to the door and then knock twice before entering"),
        id("walk_to_the_door_and_then_knock")
    );
    let err = t
        .apply(
            Edit::Insert {
                node: Box::new(Node::new("a", "Wait")),
                index: 0,
                parent: None,
            },
            &c,
        )
        .unwrap_err();
    assert!(err.message.contains("already exists"));
    let err = t
        .apply(
            Edit::Insert {
                node: Box::new(Node::new("x/y", "Wait")),
                index: 0,
                parent: None,
            },
            &c,
        )
        .unwrap_err();
    assert!(err.message.contains("'/'"));
}

#[test]
fn non_finite_values_are_refused() {
    let m = refused(
        Edit::SetField {
            id: id("b"),
            name: "seconds".into(),
            value: Some(Value::Float(f64::NAN)),
        },
        None,
    );
    assert!(m.contains("finite"));
    refused(
        Edit::SetPosition {
            id: id("b"),
            position: [f32::INFINITY, 0.0],
        },
        None,
    );
    refused(
        Edit::SetTitle {
            id: id("ghost"),
            title: "x".into(),
        },
        None,
    );
}

#[test]
fn embedding_code_registers_its_own_kinds() {
    use arbor::model::{Category, FieldSpec, FieldType, KindSpec};
    let mut c = Catalog::builtin();
    let kind = KindSpec::new(
        "CastSpell",
        Category::Leaf,
        "Casts a spell.",
        vec![FieldSpec::new(
            "mana",
            FieldType::Int { min: 0, max: 100 },
            Value::Int(10),
            "Mana it costs.",
        )],
    );
    c.register(kind.clone()).unwrap();
    assert!(c.register(kind).is_err(), "registered twice");
    let spec = c.kind("CastSpell").unwrap();
    assert!(
        spec.field("max_duration").is_some(),
        "leaves get the common leaf fields"
    );
    assert!(
        c.register(KindSpec::new("MySequence", Category::Composite, "", vec![]))
            .is_err()
    );
}

/// A tree whose FindClosest `spot` writes `enemy` and whose Attack `hit` reads it (its
/// default `in_context` is empty, so it is set).
fn keyed(c: &Catalog, keys: Option<Vec<arbor::model::KeyDecl>>) -> Tree {
    let mut t = sample(c);
    add(&mut t, c, "spot", "FindClosest", None);
    add(&mut t, c, "hit", "Attack", None);
    for (node, field) in [("spot", "out_context"), ("hit", "in_context")] {
        let set = Edit::SetField {
            id: id(node),
            name: field.into(),
            value: Some(Value::Text("enemy".into())),
        };
        t.apply(set, c).unwrap();
    }
    t.keys = keys;
    t
}

#[test]
fn key_declarations_are_checked_and_undo_exactly() {
    use arbor::model::{KeyDecl, KeyType};
    let c = Catalog::builtin();
    let mut t = keyed(&c, None);
    let original = t.clone();
    // A tree that declared none declares one; undone, it declares none again.
    let undo = t
        .apply(
            Edit::DeclareKey {
                key: KeyDecl::new("enemy", KeyType::Entity),
                index: 0,
            },
            &c,
        )
        .unwrap();
    assert_eq!(t.keys.as_ref().unwrap().len(), 1);
    t.apply(undo, &c).unwrap();
    assert_eq!(t, original);
    let mut t = keyed(&c, Some(vec![KeyDecl::new("enemy", KeyType::Entity)]));
    let original = t.clone();
    let mut bad = KeyDecl::new("enemy", KeyType::Int);
    bad.default = Some(Value::Text("many".into()));
    for (edit, why) in [
        (
            Edit::DeclareKey {
                key: KeyDecl::new("enemy", KeyType::Any),
                index: 1,
            },
            "declares key 'enemy' already",
        ),
        (
            Edit::UpdateKey {
                name: "enemy".into(),
                key: bad,
            },
            "its default \"many\" is text",
        ),
        (
            Edit::RemoveKey {
                name: "ally".into(),
            },
            "declares no key 'ally'",
        ),
        (
            Edit::SetKeys(Some(vec![
                KeyDecl::new("a", KeyType::Int),
                KeyDecl::new("a", KeyType::Int),
            ])),
            "declared twice",
        ),
    ] {
        let err = t.apply(edit, &c).unwrap_err();
        assert!(err.message.contains(why), "{}", err.message);
        assert_eq!(t, original);
    }
    let undo = t
        .apply(
            Edit::RemoveKey {
                name: "enemy".into(),
            },
            &c,
        )
        .unwrap();
    assert_eq!(t.keys, Some(vec![]));
    t.apply(undo, &c).unwrap();
    assert_eq!(t, original);
}

#[test]
fn renaming_a_key_renames_its_declaration_and_every_use_and_refuses_collisions() {
    use arbor::model::{KeyDecl, KeyType};
    let c = Catalog::builtin();
    let mut t = keyed(
        &c,
        Some(vec![
            KeyDecl::new("enemy", KeyType::Entity),
            KeyDecl::new("home", KeyType::Position),
        ]),
    );
    let original = t.clone();
    for (to, why) in [
        ("home", "a key 'home' is declared already"),
        ("my enemy", "cannot contain spaces"),
        ("", "cannot be empty"),
    ] {
        let edit = Edit::RenameKey {
            from: "enemy".into(),
            to: to.into(),
        };
        let err = t.apply(edit, &c).unwrap_err();
        assert!(err.message.contains(why), "{to}: {}", err.message);
        assert_eq!(t, original);
    }
    let undo = t
        .apply(
            Edit::RenameKey {
                from: "enemy".into(),
                to: "foe".into(),
            },
            &c,
        )
        .unwrap();
    assert_eq!(t.keys.as_ref().unwrap()[0].name, "foe");
    for (node, field) in [("spot", "out_context"), ("hit", "in_context")] {
        assert_eq!(
            t.node(&id(node)).unwrap().fields[field],
            Value::Text("foe".into())
        );
    }
    t.apply(undo, &c).unwrap();
    assert_eq!(t, original);
    // A key only the project declares is renamed in the project file.
    let mut project = c.clone();
    project.declare_shared_keys(vec![KeyDecl::new("enemy", KeyType::Entity)]);
    let mut t = keyed(&project, Some(vec![]));
    let err = t
        .apply(
            Edit::RenameKey {
                from: "enemy".into(),
                to: "foe".into(),
            },
            &project,
        )
        .unwrap_err();
    assert!(err.message.contains("the project's"), "{}", err.message);
}

/// A key named in scripts (a Script's code, a ScriptCondition's, a hook) is renamed there
/// too, only where it is that key's name (`@enemy` too; not inside a text, not another name
/// that starts the same); undo puts the code back as written. A name a script uses already
/// is refused, as a key field's is.
#[test]
fn renaming_a_key_renames_it_in_every_script_that_names_it() {
    let c = Catalog::builtin();
    let mut t = keyed(&c, None);
    add(&mut t, &c, "count", "Script", None);
    add(&mut t, &c, "near", "ScriptCondition", None);
    let set = |t: &mut Tree, node: &str, field: &str, code: &str| {
        let edit = Edit::SetField {
            id: id(node),
            name: field.into(),
            value: Some(Value::Text(code.into())),
        };
        t.apply(edit, &c).unwrap();
    };
    set(
        &mut t,
        "count",
        "code",
        "enemy_count += 1; label := 'enemy_count'",
    );
    set(
        &mut t,
        "near",
        "code",
        "enemy_count > 2 && @enemy_count < 9",
    );
    set(&mut t, "hit", "_failureIf", "enemy_count == 0");
    set(&mut t, "spot", "_onSuccess", "enemy_countdown := 3");
    let original = t.clone();
    let undo = t
        .apply(
            Edit::RenameKey {
                from: "enemy_count".into(),
                to: "foes".into(),
            },
            &c,
        )
        .unwrap();
    let code = |t: &Tree, node: &str, field: &str| {
        t.node(&id(node)).unwrap().fields[field]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        code(&t, "count", "code"),
        "foes += 1; label := 'enemy_count'"
    );
    assert_eq!(code(&t, "near", "code"), "foes > 2 && @foes < 9");
    assert_eq!(code(&t, "hit", "_failureIf"), "foes == 0");
    assert_eq!(code(&t, "spot", "_onSuccess"), "enemy_countdown := 3");
    t.apply(undo, &c).unwrap();
    assert_eq!(t, original);
    let err = t
        .apply(
            Edit::RenameKey {
                from: "enemy".into(),
                to: "enemy_countdown".into(),
            },
            &c,
        )
        .unwrap_err();
    assert!(
        err.message
            .contains("node 'spot' names a key 'enemy_countdown' in its '_onSuccess'"),
        "{}",
        err.message
    );
    // A new name a script cannot say, or one the project's enums take, is refused.
    let mut enums = c.clone();
    enums.declare_enums([("GREEN".to_owned(), 1)].into_iter().collect());
    for (to, catalog, why) in [
        ("foe-count", &c, "a script cannot name 'foe-count'"),
        ("foe.count", &c, "a script cannot name 'foe.count'"),
        ("GREEN", &enums, "'GREEN' is an enum of the project"),
    ] {
        let edit = Edit::RenameKey {
            from: "enemy_count".into(),
            to: to.into(),
        };
        let err = t.apply(edit, catalog).unwrap_err();
        assert!(err.message.contains(why), "{to}: {}", err.message);
        assert_eq!(t, original);
    }
}

#[test]
fn a_key_field_is_offered_the_keys_whose_type_it_takes() {
    use arbor::model::{KeyDecl, KeyOrigin, KeyType, KeyTypes, keys_fitting};
    let names = |found: Vec<arbor::model::KeyChoice>| {
        found
            .into_iter()
            .map(|k| (k.name, k.ty, k.origin))
            .collect::<Vec<_>>()
    };
    let mut c = Catalog::builtin();
    c.declare_shared_keys(vec![KeyDecl::new("speed", KeyType::Float)]);
    // A tree that declares none may name any key: those its nodes name come, as `any`.
    let t = keyed(&c, None);
    assert_eq!(
        names(keys_fitting(&t, &c, KeyType::Bool.set())),
        [("enemy".to_owned(), KeyType::Any, KeyOrigin::Used)]
    );
    let t = keyed(
        &c,
        Some(vec![
            KeyDecl::new("enemy", KeyType::Entity),
            KeyDecl::new("home", KeyType::Position),
            KeyDecl::new("note", KeyType::Text),
            KeyDecl::new("anything", KeyType::Any),
        ]),
    );
    let target = KeyTypes::of(&[KeyType::Entity, KeyType::Position]);
    assert_eq!(
        names(keys_fitting(&t, &c, target)),
        [
            ("enemy".to_owned(), KeyType::Entity, KeyOrigin::Tree),
            ("home".to_owned(), KeyType::Position, KeyOrigin::Tree),
            ("anything".to_owned(), KeyType::Any, KeyOrigin::Tree),
        ]
    );
    assert_eq!(
        names(keys_fitting(&t, &c, KeyTypes::ANY)).last().unwrap(),
        &("speed".to_owned(), KeyType::Float, KeyOrigin::Project)
    );
}

/// A SubTree's parameter bound to a key is a use of the key: a rename changes the binding
/// and keeps it a binding; declaring an old tree's keys keeps its SubTrees sharing.
#[test]
fn renaming_a_key_renames_a_subtree_binding_and_declaring_keeps_subtrees_sharing() {
    use arbor::model::{KeyDecl, KeyType, NoAssets, declaring_keys};
    let c = Catalog::builtin();
    let mut t = keyed(&c, None);
    add(&mut t, &c, "hunt", "SubTree", None);
    let undo = t.apply(declaring_keys(&t, &c, &NoAssets), &c).unwrap();
    assert_eq!(
        t.node(&id("hunt")).unwrap().fields.get("autoremap"),
        Some(&Value::Bool(true)),
        "the SubTree of a tree that declared no keys shared them: it still does"
    );
    assert_eq!(t.keys, Some(vec![KeyDecl::new("enemy", KeyType::Entity)]));
    t.apply(undo, &c).unwrap();
    assert_eq!(t.keys, None);
    assert!(
        !t.node(&id("hunt"))
            .unwrap()
            .fields
            .contains_key("autoremap")
    );
    t.keys = Some(vec![KeyDecl::new("enemy", KeyType::Entity)]);
    let bind = Edit::SetField {
        id: id("hunt"),
        name: "target".into(),
        value: Some(Value::Key("enemy".into())),
    };
    t.apply(bind, &c).unwrap();
    t.apply(
        Edit::RenameKey {
            from: "enemy".into(),
            to: "foe".into(),
        },
        &c,
    )
    .unwrap();
    assert_eq!(
        t.node(&id("hunt")).unwrap().fields["target"],
        Value::Key("foe".into())
    );
    assert_eq!(
        t.node(&id("hit")).unwrap().fields["in_context"],
        Value::Text("foe".into())
    );
}

#[test]
fn a_project_key_is_renamed_in_every_tree_of_the_project_or_refused_with_the_reason() {
    use arbor::io::{apply_file_changes, load_tree, plan_project_rename};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    common::projects::write_project(d, 200, 2000);
    let project = d.join("arbor.project.json");
    let open = d.join("trees/g0/t0.json");
    let catalog =
        arbor::io::ProjectCatalog::for_tree(Some(&open), None, &Catalog::builtin()).catalog;
    // A key the project declares already: refused.
    let err = plan_project_rename(&project, &catalog, Some(&open), "k0", "k5").unwrap_err();
    assert!(err.contains("declares a key 'k5' already"), "{err}");
    let err = plan_project_rename(&project, &catalog, Some(&open), "nope", "k5x").unwrap_err();
    assert!(err.contains("no key 'nope'"), "{err}");
    // Every tree uses k0: the project file and the 199 trees other than the one open.
    let all: Vec<std::path::PathBuf> = (0..200)
        .map(|t| d.join(format!("trees/g{}/t{t}.json", t / 10)))
        .collect();
    let before: Vec<Vec<u8>> = all.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let plan = plan_project_rename(&project, &catalog, Some(&open), "k0", "hero").unwrap();
    assert_eq!(plan.len(), 200);
    apply_file_changes(&plan, true).unwrap();
    for p in &all[1..] {
        let tree = load_tree(p).unwrap();
        let named: Vec<&str> = tree
            .nodes()
            .iter()
            .flat_map(|n| n.fields.values())
            .filter_map(Value::as_str)
            .collect();
        assert!(
            named.contains(&"hero") && !named.contains(&"k0"),
            "{}",
            p.display()
        );
    }
    assert_eq!(
        std::fs::read(&all[0]).unwrap(),
        before[0],
        "the open tree is the caller's"
    );
    let text = std::fs::read_to_string(&project).unwrap();
    assert!(text.contains("\"hero\"") && !text.contains("\"k0\""));
    // Written back: every file as it was; a second time refused (they hold it already).
    apply_file_changes(&plan, false).unwrap();
    let now: Vec<Vec<u8>> = all.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert_eq!(now, before);
    let err = apply_file_changes(&plan, false).unwrap_err();
    assert!(err.contains("changed on disk"), "{err}");
    // A node of another tree names the new name: refused, the tree named.
    let mut t7 = load_tree(&all[7]).unwrap();
    t7.apply(
        Edit::SetField {
            id: id("n3"),
            name: "out_context".into(),
            value: Some(Value::Text("zed".into())),
        },
        &catalog,
    )
    .unwrap();
    arbor::io::save_tree(&all[7], &t7).unwrap();
    let err = plan_project_rename(&project, &catalog, Some(&open), "k0", "zed").unwrap_err();
    assert!(
        err.contains("t7.json") && err.contains("names a key 'zed'"),
        "{err}"
    );
    // A tree of the project that does not read: refused, so no use is left behind.
    std::fs::write(
        d.join("trees/broken.json"),
        r#"{"format": "arbor.tree", "version": 1, "nodes": [}"#,
    )
    .unwrap();
    let err = plan_project_rename(&project, &catalog, Some(&open), "k0", "hero").unwrap_err();
    assert!(err.contains("broken.json"), "{err}");
}
