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

/// `files` written in a fresh folder (name, whole text), and `main.json`'s program, run
/// for `steps` steps: its event lines and the instance.
fn run_files(files: &[(&str, String)], steps: usize) -> (Vec<String>, Instance<()>) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let catalog = Catalog::builtin();
    let tree_files = TreeFiles::new(&catalog);
    let path = dir.path().join("main.json");
    let tree = tree_files.load(&path).as_ref().as_ref().unwrap().clone();
    let program = Program::compile(
        &tree,
        &catalog,
        &tree_files.assets_for(&path),
        &behaviours(&Counters::default()),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut instance = Instance::new(Arc::new(program), 0);
    let mut log = Vec::new();
    for _ in 0..steps {
        let mut obs = |e: &Event<'_>| log.push(line(e));
        instance.step(0.1, &mut (), Some(&mut obs));
    }
    (log, instance)
}

/// A tree file declaring `keys`, of `nodes`.
fn tree_file(keys: &str, nodes: &str) -> String {
    format!(r#"{{"format": "arbor.tree", "version": 1, "keys": [{keys}], "nodes": [{nodes}]}}"#)
}

/// The asset of the parameter tests: it reads `target` (in), writes `found` (out), reads
/// and writes `count` (inout), and keeps `mood` for itself.
fn search_asset() -> String {
    tree_file(
        r#"{"name": "target", "type": "text", "parameter": "in"},
           {"name": "found", "type": "text", "parameter": "out"},
           {"name": "count", "type": "text", "parameter": "inout", "default": "none"},
           {"name": "mood", "type": "text"}"#,
        r#"{"id": "root", "kind": "Root", "inputs": {"child": ["s"]}},
           {"id": "s", "kind": "Sequence", "inputs": {"children": ["look", "tell", "tally", "feel"]}},
           {"id": "look", "kind": "MockAction", "fields": {"in_context": "target"}},
           {"id": "tell", "kind": "MockAction", "fields": {"produces": "it", "out_context": "found"}},
           {"id": "tally", "kind": "MockAction", "fields": {"in_context": "count", "produces": "one", "out_context": "count"}},
           {"id": "feel", "kind": "MockAction", "fields": {"script": "R", "produces": "calm", "out_context": "mood"}}"#,
    )
}

fn key(instance: &Instance<()>, name: &str) -> Option<String> {
    let k = instance.program().key(name)?;
    instance.context().get(k).map(ToString::to_string)
}

#[test]
fn parameters_pass_in_out_and_through_the_callers_keys() {
    let main = tree_file(
        r#"{"name": "enemy", "type": "text", "default": "thief"},
           {"name": "result", "type": "text"},
           {"name": "tally", "type": "text", "default": "zero"}"#,
        r#"{"id": "root", "kind": "Root", "inputs": {"child": ["s"]}},
           {"id": "s", "kind": "Sequence", "inputs": {"children": ["search", "after"]}},
           {"id": "search", "kind": "SubTree", "fields": {"asset": "search.json",
              "target": {"key": "enemy"}, "found": {"key": "result"}, "count": {"key": "tally"}}},
           {"id": "after", "kind": "MockAction", "fields": {"script": "R", "in_context": "result"}}"#,
    );
    let (log, instance) = run_files(&[("main.json", main), ("search.json", search_asset())], 5);
    // `target` is the caller's `enemy`, read through: no key is missing.
    assert!(
        !log.iter().any(|l| l.contains("context_missing")),
        "{log:#?}"
    );
    // Written through to the caller's keys at once, under the caller's names.
    assert!(
        log.contains(&"2 context search/tell result=\"it\"".to_owned()),
        "{log:#?}"
    );
    assert!(
        log.contains(&"3 context search/tally tally=\"one\"".to_owned()),
        "{log:#?}"
    );
    assert_eq!(key(&instance, "result").as_deref(), Some("\"it\""));
    assert_eq!(key(&instance, "tally").as_deref(), Some("\"one\""));
    // The asset's own key is the SubTree node's: `SUBTREE-ID/NAME`.
    assert!(instance.program().key("search/mood").is_some());
    assert!(instance.program().key("mood").is_none());
    assert!(
        instance.program().key("target").is_none(),
        "a bound key is the caller's"
    );
}

#[test]
fn a_literal_or_a_default_is_the_subtree_nodes_own_and_two_nodes_are_kept_apart() {
    let main = tree_file(
        r#"{"name": "a_result", "type": "text"}, {"name": "b_result", "type": "text"}"#,
        r#"{"id": "root", "kind": "Root", "inputs": {"child": ["s"]}},
           {"id": "s", "kind": "Sequence", "inputs": {"children": ["a", "b", "wait"]}},
           {"id": "a", "kind": "SubTree", "fields": {"asset": "search.json", "target": "north", "found": {"key": "a_result"}}},
           {"id": "b", "kind": "SubTree", "fields": {"asset": "search.json", "target": "south", "found": {"key": "b_result"}}},
           {"id": "wait", "kind": "MockAction", "fields": {"script": "R"}}"#,
    );
    let (log, instance) = run_files(&[("main.json", main), ("search.json", search_asset())], 1);
    assert!(
        !log.iter().any(|l| l.contains("context_missing")),
        "{log:#?}"
    );
    // Each SubTree node has its own `target` (its literal) and its own `count` (the
    // parameter's default), from the start.
    assert_eq!(key(&instance, "a/target").as_deref(), Some("\"north\""));
    assert_eq!(key(&instance, "b/target").as_deref(), Some("\"south\""));
    assert_eq!(key(&instance, "a/count").as_deref(), Some("\"none\""));
    assert_eq!(key(&instance, "b/count").as_deref(), Some("\"none\""));
}

#[test]
fn autoremap_shares_every_key_by_name_and_so_does_a_tree_that_declares_none() {
    let nodes = |autoremap: &str| {
        format!(
            r#"{{"id": "root", "kind": "Root", "inputs": {{"child": ["s"]}}}},
           {{"id": "s", "kind": "Sequence", "inputs": {{"children": ["set", "search"]}}}},
           {{"id": "set", "kind": "MockAction", "fields": {{"produces": "thief", "out_context": "target"}}}},
           {{"id": "search", "kind": "SubTree", "fields": {{"asset": "search.json"{autoremap}}}}}"#
        )
    };
    let declaring = tree_file(
        r#"{"name": "target", "type": "text"}, {"name": "found", "type": "text"},
           {"name": "count", "type": "text"}, {"name": "mood", "type": "text"}"#,
        &nodes(r#", "autoremap": true"#),
    );
    let old = format!(
        r#"{{"format": "arbor.tree", "version": 1, "nodes": [{}]}}"#,
        nodes("")
    );
    for main in [declaring, old] {
        let (log, instance) = run_files(&[("main.json", main), ("search.json", search_asset())], 5);
        assert!(
            log.contains(&"3 context search/tell found=\"it\"".to_owned()),
            "{log:#?}"
        );
        // Every key is the caller's, the asset's own `mood` too.
        assert!(instance.program().key("mood").is_some());
        assert!(instance.program().key("search/mood").is_none());
        assert!(instance.program().key("search/target").is_none());
        // A parameter left unbound is the caller's key of its name too, default aside:
        // here the caller has no `count`.
        assert!(
            log.contains(&"3 context_missing search/tally count".to_owned()),
            "{log:#?}"
        );
    }
}
