//! SubTree: runs another file's Root child; its nodes are traced as SUBTREE-ID/INNER-ID.

use std::sync::Arc;

use arbor::io::TreeFiles;
use arbor::model::Catalog;
use arbor::runtime::{Event, Instance, Program};

use crate::harness::{Counters, behaviours, expect, line};

fn write(dir: &std::path::Path, name: &str, body: &str) {
    std::fs::write(
        dir.join(name),
        format!(r#"{{"format": "arbor.tree", "version": 1, "nodes": [{body}]}}"#),
    )
    .unwrap();
}

#[test]
fn a_subtree_runs_as_a_branch_with_prefixed_ids() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "main.json",
        r#"
        {"id": "root", "kind": "Root", "inputs": {"child": ["seq"]}},
        {"id": "seq", "kind": "Sequence", "inputs": {"children": ["patrol", "done"]}},
        {"id": "patrol", "kind": "SubTree", "fields": {"asset": "sub.json"}},
        {"id": "done", "kind": "MockAction"}"#,
    );
    write(
        dir.path(),
        "sub.json",
        r#"
        {"id": "root", "kind": "Root", "inputs": {"child": ["walk"]}},
        {"id": "walk", "kind": "Sequence", "inputs": {"children": ["step", "deeper"]}},
        {"id": "step", "kind": "MockAction", "fields": {"script": "RS"}},
        {"id": "deeper", "kind": "SubTree", "fields": {"asset": "leaf.json"}}"#,
    );
    write(
        dir.path(),
        "leaf.json",
        r#"
        {"id": "root", "kind": "Root", "inputs": {"child": ["x"]}},
        {"id": "x", "kind": "MockAction", "fields": {"script": "F"}}"#,
    );
    let catalog = Catalog::builtin();
    let files = TreeFiles::new(&catalog);
    let path = dir.path().join("main.json");
    let tree = files.load(&path).as_ref().as_ref().unwrap().clone();
    let program = Program::compile(
        &tree,
        &catalog,
        &files.assets_for(&path),
        &behaviours(&Counters::default()),
    )
    .unwrap();
    assert!(
        program.node_ids().iter().any(|n| n == "patrol/deeper/x"),
        "{:?}",
        program.node_ids()
    );
    let mut instance = Instance::new(Arc::new(program), 0);
    let mut log = Vec::new();
    for _ in 0..3 {
        let mut obs = |e: &Event<'_>| log.push(line(e));
        instance.step(0.1, &mut (), Some(&mut obs));
    }
    expect(
        &log[..12],
        "0 enter root\n0 enter seq\n0 enter patrol\n0 enter patrol/walk\n0 enter patrol/step\n1 execute patrol/step\n2 execute patrol/step\n2 exit patrol/step success\n2 enter patrol/deeper\n2 enter patrol/deeper/x\n3 execute patrol/deeper/x\n3 exit patrol/deeper/x failure",
    );
    expect(
        &log[12..16],
        "3 exit patrol/deeper failure\n3 exit patrol/walk failure\n3 exit patrol failure\n3 exit seq failure",
    );
}

#[test]
fn a_tree_with_errors_does_not_compile() {
    let catalog = Catalog::builtin();
    let tree = crate::harness::tree("root: Root | child s\ns: Sequence");
    let err = Program::<()>::compile(
        &tree,
        &catalog,
        &arbor::model::NoAssets,
        &behaviours(&Counters::default()),
    )
    .err()
    .unwrap();
    assert!(err.to_string().contains("missing-child"), "{err}");
}

#[test]
fn a_kind_without_behaviour_is_refused_by_name() {
    let catalog = Catalog::builtin();
    let tree = crate::harness::tree("root: Root | child m\nm: MoveTo waypoint=home");
    let err = Program::<()>::compile(
        &tree,
        &catalog,
        &arbor::model::NoAssets,
        &behaviours(&Counters::default()),
    )
    .err()
    .unwrap();
    assert_eq!(
        err.to_string(),
        "[m] this runtime has no behaviour for the action 'MoveTo'"
    );
}
