//! Every rule of SEMANTICS.md §2: its fixture yields exactly that rule, on the node it names.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;

use arbor::io::{TreeFiles, load_tree};
use arbor::model::{Catalog, Diagnostic, NoAssets, Node, NodeId, Rule, Severity, Tree, validate};
use common::{expectation, repo};

fn fixture(dir: &str, rule: &str) -> PathBuf {
    repo()
        .join("tests/fixtures")
        .join(dir)
        .join(format!("{rule}.json"))
}

/// A fixture's findings, with the kinds of its folder's project (the `library` folder's;
/// none elsewhere).
fn diagnostics(path: &std::path::Path) -> Vec<Diagnostic> {
    let project = arbor::io::ProjectCatalog::for_tree(Some(path), None, &Catalog::builtin());
    assert!(project.problems.is_empty(), "{:?}", project.problems);
    TreeFiles::new(&project.catalog)
        .validate_file(path)
        .unwrap()
}

/// The fixture for `rule` yields diagnostics of that rule and severity only, one of them on
/// the node the fixture names.
fn check(dir: &str, code: &str) {
    let path = fixture(dir, code);
    let (rule, node) = expectation(&path);
    assert_eq!(rule, code, "{} expects another rule", path.display());
    let rule = Rule::ALL
        .iter()
        .copied()
        .find(|r| r.code() == code)
        .unwrap();
    let diags = diagnostics(&path);
    let of_severity: Vec<&Diagnostic> = diags
        .iter()
        .filter(|d| d.severity() == rule.severity())
        .collect();
    let rules: BTreeSet<Rule> = of_severity.iter().map(|d| d.rule).collect();
    assert_eq!(
        rules,
        BTreeSet::from([rule]),
        "{}: {diags:#?}",
        path.display()
    );
    // A finding about the whole tree (a declared key) names no node: "on (tree)".
    let on_node = |d: &&Diagnostic| match node.as_str() {
        "(tree)" => d.nodes.is_empty(),
        id => d.nodes.contains(&NodeId::new(id)),
    };
    assert!(
        of_severity.iter().any(on_node),
        "{}: no {code} on {node}: {diags:#?}",
        path.display()
    );
    if rule.severity() == Severity::Warning {
        assert!(
            diags.iter().all(|d| !d.is_error()),
            "{}: {diags:#?}",
            path.display()
        );
    }
}

macro_rules! rule_tests {
    ($($name:ident: $dir:literal / $code:literal;)*) => {
        $( #[test] fn $name() { check($dir, $code); } )*
        /// The list above covers every rule.
        #[test]
        fn every_rule_has_a_fixture_and_a_test() {
            let tested: BTreeSet<&str> = [$($code),*].into_iter().collect();
            for rule in Rule::ALL {
                assert!(tested.contains(rule.code()), "no test for {}", rule.code());
            }
        }
    };
}

rule_tests! {
    root_count: "invalid" / "root-count";
    link_type: "invalid" / "link-type";
    link_into_leaf: "invalid" / "link-into-leaf";
    root_has_parent: "invalid" / "root-has-parent";
    two_parents: "invalid" / "two-parents";
    cycle: "invalid" / "cycle";
    slot_overflow: "invalid" / "slot-overflow";
    missing_child: "invalid" / "missing-child";
    interrupt_id_missing: "invalid" / "interrupt-id-missing";
    interrupt_id_duplicate: "invalid" / "interrupt-id-duplicate";
    subtree_missing: "invalid" / "subtree-missing";
    subtree_invalid: "invalid" / "subtree-invalid";
    subtree_cycle: "invalid" / "subtree-cycle";
    subtree_parameter: "invalid" / "subtree-parameter";
    field_type: "invalid" / "field-type";
    field_range: "invalid" / "field-range";
    field_unknown: "invalid" / "field-unknown";
    unknown_kind: "invalid" / "unknown-kind";
    aborts_lower_place: "invalid" / "aborts-lower-place";
    hook_place: "invalid" / "hook-place";
    too_large: "invalid" / "too-large";
    key_undeclared: "invalid" / "key-undeclared";
    key_type: "invalid" / "key-type";
    unreachable: "warnings" / "unreachable";
    context_unwritten: "warnings" / "context-unwritten";
    context_unread: "warnings" / "context-unread";
    no_action: "warnings" / "no-action";
    key_unwritten: "warnings" / "key-unwritten";
    key_unused: "warnings" / "key-unused";
    interval_unused: "warnings" / "interval-unused";
    cannot_run: "library" / "cannot-run";
}

#[test]
fn every_sample_tree_is_valid_without_warnings() {
    let samples = common::sample_trees();
    assert!(
        samples.len() >= 7,
        "expected the sample trees, found {samples:?}"
    );
    for path in samples {
        let diags = diagnostics(&path);
        assert!(diags.is_empty(), "{}: {diags:#?}", path.display());
    }
}

#[test]
fn messages_name_the_node_and_the_rule() {
    let diags = diagnostics(&fixture("invalid", "field-unknown"));
    let line = diags[0].to_string();
    assert_eq!(
        line,
        "error: [bad] Wait has no field 'secnds'; did you mean 'seconds'? (field-unknown)"
    );
}

#[test]
fn an_empty_tree_has_no_root() {
    let diags = validate(&Tree::new(), &Catalog::builtin(), &NoAssets);
    assert_eq!(
        diags.iter().map(|d| d.rule).collect::<Vec<_>>(),
        vec![Rule::RootCount]
    );
}

#[test]
fn a_subtree_in_an_unsaved_tree_says_why_it_cannot_be_found() {
    let mut root = Node::new("root", "Root");
    root.inputs
        .insert(arbor::model::Port::Child, vec![NodeId::new("s")]);
    let mut sub = Node::new("s", "SubTree");
    sub.fields
        .insert("asset".into(), arbor::model::Value::Text("x.json".into()));
    let tree = Tree::from_nodes(vec![root, sub]).unwrap();
    let diags = validate(&tree, &Catalog::builtin(), &NoAssets);
    let d = diags
        .iter()
        .find(|d| d.rule == Rule::SubtreeMissing)
        .unwrap();
    assert!(d.message.contains("not been saved"), "{}", d.message);
}

#[test]
fn subtree_cycle_across_three_files_is_found_from_each_file() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, next: &str| {
        let text = format!(
            r#"{{"format": "arbor.tree", "version": 1, "nodes": [
                {{"id": "root", "kind": "Root", "inputs": {{"child": ["sel"]}}}},
                {{"id": "sel", "kind": "Selector", "inputs": {{"children": ["a", "sub"]}}}},
                {{"id": "a", "kind": "MockAction"}},
                {{"id": "sub", "kind": "SubTree", "fields": {{"asset": "{next}"}}}}]}}"#
        );
        std::fs::write(dir.path().join(name), text).unwrap();
    };
    std::fs::create_dir(dir.path().join("nested")).unwrap();
    write("a.json", "b.json");
    write("b.json", "nested/../c.json");
    write("c.json", "./a.json");
    let catalog = Catalog::builtin();
    for name in ["a.json", "b.json", "c.json"] {
        let files = TreeFiles::new(&catalog);
        let diags = files.validate_file(&dir.path().join(name)).unwrap();
        let cyc: Vec<_> = diags
            .iter()
            .filter(|d| d.rule == Rule::SubtreeCycle)
            .collect();
        assert_eq!(cyc.len(), 1, "{name}: {diags:#?}");
        assert_eq!(cyc[0].nodes, vec![NodeId::new("sub")]);
        assert!(
            cyc[0].message.contains(&format!("{name} → ")),
            "{}",
            cyc[0].message
        );
    }
}

#[test]
fn a_file_that_includes_itself_is_a_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("self.json");
    std::fs::write(
        &path,
        r#"{"format": "arbor.tree", "version": 1, "nodes": [
            {"id": "root", "kind": "Root", "inputs": {"child": ["sub"]}},
            {"id": "sub", "kind": "SubTree", "fields": {"asset": "self.json"}}]}"#,
    )
    .unwrap();
    let catalog = Catalog::builtin();
    let diags = TreeFiles::new(&catalog).validate_file(&path).unwrap();
    assert!(
        diags
            .iter()
            .any(|d| d.rule == Rule::SubtreeCycle && d.message.contains("self.json → self.json")),
        "{diags:#?}"
    );
}

#[test]
fn context_written_in_a_subtree_counts_for_the_including_tree() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("find.json"),
        r#"{"format": "arbor.tree", "version": 1, "nodes": [
            {"id": "root", "kind": "Root", "inputs": {"child": ["f"]}},
            {"id": "f", "kind": "FindClosest", "fields": {"out_context": "target"}}]}"#,
    )
    .unwrap();
    let main = dir.path().join("main.json");
    std::fs::write(
        &main,
        r#"{"format": "arbor.tree", "version": 1, "nodes": [
            {"id": "root", "kind": "Root", "inputs": {"child": ["seq"]}},
            {"id": "seq", "kind": "Sequence", "inputs": {"children": ["sub", "go"]}},
            {"id": "sub", "kind": "SubTree", "fields": {"asset": "find.json"}},
            {"id": "go", "kind": "MoveTo", "fields": {"in_context": "target"}}]}"#,
    )
    .unwrap();
    let catalog = Catalog::builtin();
    let files = TreeFiles::new(&catalog);
    assert_eq!(files.validate_file(&main).unwrap(), vec![]);
    // Seen alone, the subtree writes a key nothing reads.
    let alone = files.validate_file(&dir.path().join("find.json")).unwrap();
    assert_eq!(
        alone.iter().map(|d| d.rule).collect::<Vec<_>>(),
        vec![Rule::ContextUnread]
    );
}

#[test]
fn a_fixture_loads_even_with_errors_so_the_editor_can_show_them() {
    for path in common::json_files(&repo().join("tests/fixtures/invalid")) {
        load_tree(&path).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn many_levels_of_shared_subtree_files_are_checked_once_each_with_findings_of_bounded_length() {
    // 150 levels, 10 SubTrees each naming the next level's one file: read and checked
    // once per file (walked per inclusion, 10^150 visits); the tree is too large to run.
    let dir = tempfile::tempdir().unwrap();
    let main = common::big_trees::subtree_levels(dir.path(), 150, 10);
    let catalog = Catalog::builtin();
    let files = TreeFiles::new(&catalog);
    let diags = files.validate_file(&main).unwrap();
    assert!(diags.iter().all(|d| d.message.len() < 500), "{diags:?}");
    assert!(diags.iter().any(|d| d.rule == Rule::SubtreeInvalid));
    assert_eq!(files.paths().len(), 151, "each file read once");
}

#[test]
fn a_cycle_through_three_files_is_found_from_each_of_them() {
    let dir = tempfile::tempdir().unwrap();
    for (file, names) in [
        ("a.json", "b.json"),
        ("b.json", "c.json"),
        ("c.json", "a.json"),
    ] {
        std::fs::write(
            dir.path().join(file),
            format!(
                r#"{{"format": "arbor.tree", "version": 1, "nodes": [
                {{"id": "root", "kind": "Root", "inputs": {{"child": ["sub"]}}}},
                {{"id": "sub", "kind": "SubTree", "fields": {{"asset": "{names}"}}}}]}}"#
            ),
        )
        .unwrap();
    }
    let catalog = Catalog::builtin();
    let files = TreeFiles::new(&catalog);
    for (file, chain) in [
        ("a.json", "a.json → b.json → c.json → a.json"),
        ("b.json", "b.json → c.json → a.json → b.json"),
        ("c.json", "c.json → a.json → b.json → c.json"),
    ] {
        // A fresh set starts the chain at the file checked.
        let diags = TreeFiles::new(&catalog)
            .validate_file(&dir.path().join(file))
            .unwrap();
        let cycle: Vec<_> = diags
            .iter()
            .filter(|d| d.rule == Rule::SubtreeCycle)
            .collect();
        assert_eq!(cycle.len(), 1, "{file}: {diags:?}");
        assert!(
            cycle[0].message.contains(chain),
            "{file}: {}",
            cycle[0].message
        );
        // One set that has checked the others already still reports it.
        let diags = files.validate_file(&dir.path().join(file)).unwrap();
        assert!(
            diags
                .iter()
                .any(|d| d.rule == Rule::SubtreeCycle && d.message.contains("leads back")),
            "{file}: {diags:?}"
        );
    }
}

#[test]
fn a_retry_for_ever_over_no_action_is_warned_and_a_finite_one_is_not() {
    let tree = |times: i64| {
        let mut root = Node::new("root", "Root");
        root.inputs
            .insert(arbor::model::Port::Child, vec![NodeId::new("sel")]);
        let mut sel = Node::new("sel", "Selector");
        sel.inputs.insert(
            arbor::model::Port::Children,
            vec![NodeId::new("re"), NodeId::new("a")],
        );
        let mut re = Node::new("re", "Retry");
        re.fields
            .insert("times".into(), arbor::model::Value::Int(times));
        re.inputs
            .insert(arbor::model::Port::Child, vec![NodeId::new("c")]);
        let nodes = vec![
            root,
            sel,
            re,
            Node::new("c", "MockCondition"),
            Node::new("a", "MockAction"),
        ];
        Tree::from_nodes(nodes).unwrap()
    };
    let catalog = Catalog::builtin();
    let forever = validate(&tree(0), &catalog, &NoAssets);
    assert!(
        forever
            .iter()
            .any(|d| d.rule == Rule::NoAction && d.nodes == [NodeId::new("re")]),
        "{forever:#?}"
    );
    let finite = validate(&tree(3), &catalog, &NoAssets);
    assert!(finite.is_empty(), "{finite:#?}");
}

/// A branch that takes over runs only while its observer holds: a read of the observer's
/// key below it cannot reset the tree, even when only a later child writes the key; a
/// read of another key there still can, and so can a guard checked before the observer:
/// both are still warned about.
#[test]
fn reads_below_an_observer_of_the_same_key_are_not_unwritten_and_others_still_are() {
    let text = r#"{"format": "arbor.tree", "version": 1, "nodes": [
        {"id": "root", "kind": "Root", "inputs": {"child": ["sel"]}},
        {"id": "sel", "kind": "Selector", "inputs": {"children": ["chase", "look"]}},
        {"id": "chase", "kind": "Sequence",
         "inputs": {"conditions": ["first", "near"], "children": ["go", "other"]}},
        {"id": "first", "kind": "IsInRange", "fields": {"in_context": "t"}},
        {"id": "near", "kind": "HasContext",
         "fields": {"key": "t", "in_context": "t", "aborts_lower": true}},
        {"id": "go", "kind": "MockAction", "fields": {"in_context": "t"}},
        {"id": "other", "kind": "MockAction", "fields": {"in_context": "u"}},
        {"id": "look", "kind": "MockAction",
         "fields": {"script": "R", "out_context": "t", "produces": "x"}}
    ]}"#;
    let tree = arbor::io::parse_tree(text, std::path::Path::new("t.json")).unwrap();
    let diags = validate(&tree, &Catalog::builtin(), &NoAssets);
    let unwritten: Vec<&NodeId> = diags
        .iter()
        .filter(|d| d.rule == Rule::ContextUnwritten)
        .flat_map(|d| &d.nodes)
        .collect();
    // `first` is checked before the observer: its missing key resets the tree.
    assert_eq!(unwritten, [&NodeId::new("first")], "{diags:#?}");
    // `other` reads a key nothing writes at all: that is said once, as `key-unwritten`.
    let never: Vec<&NodeId> = diags
        .iter()
        .filter(|d| d.rule == Rule::KeyUnwritten)
        .flat_map(|d| &d.nodes)
        .collect();
    assert_eq!(never, [&NodeId::new("other")], "{diags:#?}");
}

/// The project's keys are declared for each of its trees: a tree that declares its keys
/// may use them, a typo of one is named with the key meant, and a tree declaring one again
/// as another type is told so.
#[test]
fn a_project_declares_keys_its_trees_share() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("arbor.project.json"),
        r#"{"format": "arbor.project", "version": 1, "keys": [
            {"name": "enemy", "type": "entity", "doc": "Who to chase."}]}"#,
    )
    .unwrap();
    let check = |keys: &str, reader: &str| {
        let path = dir.path().join("guard.json");
        std::fs::write(
            &path,
            format!(
                r#"{{"format": "arbor.tree", "version": 1, {keys} "nodes": [
                {{"id": "root", "kind": "Root", "inputs": {{"child": ["s"]}}}},
                {{"id": "s", "kind": "Sequence", "inputs": {{"children": ["spot", "go"]}}}},
                {{"id": "spot", "kind": "FindClosest", "fields": {{"out_context": "enemy"}}}},
                {{"id": "go", "kind": "MoveTo", "fields": {{"in_context": "{reader}"}}}}]}}"#
            ),
        )
        .unwrap();
        diagnostics(&path)
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(check(r#""keys": [],"#, "enemy"), Vec::<String>::new());
    assert_eq!(
        check(r#""keys": [],"#, "enemey"),
        [
            "error: [go] its 'in_context' reads key 'enemey', which neither the tree nor its project declares; did you mean 'enemy'? (key-undeclared)",
            "warning: [go] key 'enemey' is read here, but nothing writes it: no action's out_context, Interrupt or SubTree, and it has no default (key-unwritten)",
            "warning: [spot] it writes context key 'enemy', but nothing reads it (context-unread)",
        ]
    );
    assert_eq!(
        check(r#""keys": [{"name": "enemy", "type": "text"}],"#, "enemy"),
        [
            "error: key 'enemy' is declared text here, but entity by the project; declare it once (key-type)",
            "error: [spot] its 'out_context' writes key 'enemy' as entity, but the key is declared text (key-type)",
            "error: [go] its 'in_context' reads key 'enemy' as entity|position, but the key is declared text (key-type)",
        ]
    );
    // A tree that declares nothing keeps its keys `any`: a typo is only unwritten.
    assert_eq!(
        check("", "enemey"),
        [
            "warning: [go] key 'enemey' is read here, but nothing writes it: no action's out_context, Interrupt or SubTree, and it has no default (key-unwritten)",
            "warning: [spot] it writes context key 'enemy', but nothing reads it (context-unread)",
        ]
    );
}

/// Where a file declares no keys, a reader and a writer of one key must still agree.
#[test]
fn an_undeclared_key_read_as_another_type_than_written_is_an_error() {
    let text = r#"{"format": "arbor.tree", "version": 1, "nodes": [
        {"id": "root", "kind": "Root", "inputs": {"child": ["s"]}},
        {"id": "s", "kind": "Sequence", "inputs": {"children": ["spot", "open"]}},
        {"id": "spot", "kind": "FindClosest", "fields": {"out_context": "door"}},
        {"id": "open", "kind": "OpenDoor", "fields": {"in_context": "door"}},
        {"id": "mock", "kind": "MockAction", "fields": {"in_context": "door"}}
    ]}"#;
    let tree = arbor::io::parse_tree(text, std::path::Path::new("t.json")).unwrap();
    let diags = validate(&tree, &Catalog::builtin(), &NoAssets);
    assert!(!diags.iter().any(|d| d.rule == Rule::KeyType), "{diags:#?}");
    // An entity read as a number: a library kind that reads an int.
    let mut catalog = Catalog::builtin();
    catalog
        .register(
            arbor::model::KindSpec::new("Count", arbor::model::Category::Leaf, "Counts.", vec![])
                .reads(arbor::model::KeyType::Int.set()),
        )
        .unwrap();
    let tree = arbor::io::parse_tree(
        &text.replace("\"OpenDoor\"", "\"Count\""),
        std::path::Path::new("t.json"),
    )
    .unwrap();
    let lines: Vec<String> = validate(&tree, &catalog, &NoAssets)
        .iter()
        .filter(|d| d.rule == Rule::KeyType)
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        lines,
        [
            "error: [open] its 'in_context' reads key 'door' as int, but spot writes it as entity (key-type)"
        ]
    );
}

/// A SubTree node's bindings, checked against its asset's parameters.
#[test]
fn a_subtree_binds_its_assets_parameters_by_name_type_and_direction() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        common::repo().join("tests/fixtures/invalid/assets/chase.json"),
        dir.path().join("chase.json"),
    )
    .unwrap();
    let check = |fields: &str| {
        let path = dir.path().join("guard.json");
        std::fs::write(
            &path,
            format!(
                r#"{{"format": "arbor.tree", "version": 1,
                "keys": [{{"name": "enemy", "type": "entity"}}, {{"name": "name", "type": "text"}},
                         {{"name": "got", "type": "entity"}}],
                "nodes": [
                {{"id": "root", "kind": "Root", "inputs": {{"child": ["s"]}}}},
                {{"id": "s", "kind": "Sequence", "inputs": {{"children": ["spot", "call", "hunt", "after"]}}}},
                {{"id": "spot", "kind": "FindClosest", "fields": {{"out_context": "enemy"}}}},
                {{"id": "call", "kind": "MockAction", "fields": {{"produces": "x", "out_context": "name"}}}},
                {{"id": "hunt", "kind": "SubTree", "fields": {{"asset": "chase.json", {fields}}}}},
                {{"id": "after", "kind": "MockAction", "fields": {{"in_context": "got"}}}}]}}"#
            ),
        )
        .unwrap();
        diagnostics(&path)
            .iter()
            .filter(|d| d.is_error())
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    };
    // Bound as declared: the key given in, a key taking the result, the default for speed.
    assert_eq!(
        check(r#""target": {"key": "enemy"}, "caught": {"key": "got"}"#),
        Vec::<String>::new()
    );
    assert_eq!(
        check(r#""target": {"key": "enemy"}, "caught": {"key": "got"}, "speed": "fast""#),
        [
            "error: [hunt] parameter 'speed' is of type float, but it is bound to \"fast\", text (subtree-parameter)"
        ]
    );
    assert_eq!(
        check(r#""target": {"key": "enemy"}, "caught": 3"#),
        [
            "error: [hunt] it binds the out parameter 'caught' to 3; bind it to a key of this tree, {\"key\": NAME}, which the SubTree writes (subtree-parameter)"
        ]
    );
    assert_eq!(
        check(r#""target": {"key": "name"}, "caught": {"key": "got"}"#),
        [
            "error: [hunt] its 'target' reads key 'name' as entity, but the key is declared text (key-type)"
        ]
    );
    assert_eq!(
        check(r#""target": {"key": "enemy"}, "caught": {"key": "gone"}"#),
        [
            "error: [hunt] its 'caught' writes key 'gone', which neither the tree nor its project declares; did you mean 'got'? (key-undeclared)"
        ]
    );
}

/// Services (SEMANTICS.md §3.2.1): only an action leaf links into a composite's
/// `services`; what a service writes counts as written before the composite's children.
#[test]
fn only_action_leaves_are_services_and_what_they_write_is_written_before_the_children() {
    let text = r#"{"format": "arbor.tree", "version": 1, "nodes": [
        {"id": "root", "kind": "Root", "inputs": {"child": ["s"]}},
        {"id": "s", "kind": "Sequence", "inputs": {"services": ["spot"], "children": ["go"]}},
        {"id": "spot", "kind": "FindClosest", "fields": {"out_context": "enemy"}},
        {"id": "go", "kind": "MoveTo", "fields": {"in_context": "enemy"}}
    ]}"#;
    let t = |text: &str| arbor::io::parse_tree(text, std::path::Path::new("t.json")).unwrap();
    let diags = validate(&t(text), &Catalog::builtin(), &NoAssets);
    assert!(diags.is_empty(), "{diags:#?}");
    let lines = |text: &str| -> Vec<String> {
        validate(&t(text), &Catalog::builtin(), &NoAssets)
            .iter()
            .filter(|d| d.rule == Rule::LinkType)
            .map(ToString::to_string)
            .collect()
    };
    // A condition as a service.
    let condition = text.replace(
        r#""kind": "FindClosest", "fields": {"out_context": "enemy"}"#,
        r#""kind": "HasContext", "fields": {"key": "enemy"}"#,
    );
    assert_eq!(
        lines(&condition),
        [
            "error: [spot] link spot → s.services is not allowed: only action leaves link into a 'services' input, not a Condition (link-type)"
        ]
    );
    // A decorator has no services input.
    let decorator = text.replace(
        r#""kind": "Sequence", "inputs": {"services": ["spot"], "children": ["go"]}"#,
        r#""kind": "Inverter", "inputs": {"services": ["spot"], "child": ["go"]}"#,
    );
    assert_eq!(
        lines(&decorator),
        [
            "error: [s] link spot → s.services is not allowed: a Decorator has no 'services' input (link-type)"
        ]
    );
}

/// Fields bound to keys (SEMANTICS.md §3.5): an action's or a condition's own field, and a
/// composite's or a decorator's, takes a key of a type it can read; the runtime's own
/// fields on a leaf and an Interrupt's take values.
#[test]
fn a_field_bound_to_a_key_is_checked_for_its_place_and_its_keys_type() {
    let tree = |fields: &str, keys: &str| {
        let text = format!(
            r#"{{"format": "arbor.tree", "version": 1, "keys": [{keys}], "nodes": [
            {{"id": "root", "kind": "Root", "inputs": {{"child": ["r"]}}}},
            {{"id": "r", "kind": "Repeater", "fields": {{"times": 2}}, "inputs": {{"child": ["w"]}}}},
            {{"id": "w", "kind": "Wait", "fields": {fields}}}
        ]}}"#
        );
        arbor::io::parse_tree(&text, std::path::Path::new("t.json")).unwrap()
    };
    let lines = |fields: &str, keys: &str| -> Vec<String> {
        validate(&tree(fields, keys), &Catalog::builtin(), &NoAssets)
            .iter()
            .map(ToString::to_string)
            .collect()
    };
    let pause = r#"{"name": "pause", "type": "float", "default": 1.5}"#;
    assert_eq!(
        lines(r#"{"seconds": {"key": "pause"}}"#, pause),
        Vec::<String>::new()
    );
    // An int key gives a number too; a bool key does not.
    assert_eq!(
        lines(
            r#"{"seconds": {"key": "pause"}}"#,
            r#"{"name": "pause", "type": "int", "default": 2}"#
        ),
        Vec::<String>::new()
    );
    assert_eq!(
        lines(
            r#"{"seconds": {"key": "pause"}}"#,
            r#"{"name": "pause", "type": "bool", "default": true}"#
        ),
        [
            "error: [w] its 'seconds' reads key 'pause' as int|float, but the key is declared bool (key-type)"
        ]
    );
    assert_eq!(
        lines(r#"{"seconds": {"key": "paws"}}"#, pause),
        [
            "error: [w] its 'seconds' reads key 'paws', which neither the tree nor its project declares; did you mean 'pause'? (key-undeclared)",
            "warning: [w] key 'paws' is read here, but nothing writes it: no action's out_context, Interrupt or SubTree, and it has no default (key-unwritten)",
            "warning: key 'pause' is declared, but no node reads or writes it (key-unused)"
        ]
    );
    // `max_duration` is read by the runtime itself.
    assert_eq!(
        lines(r#"{"max_duration": {"key": "pause"}}"#, pause),
        [
            "error: [w] field 'max_duration' is bound to key 'pause', but 'max_duration' is read by the runtime itself and takes a value; only the Wait's own fields are read from keys (field-type)",
            // A field that cannot be read from a key reads nothing.
            "warning: key 'pause' is declared, but no node reads or writes it (key-unused)"
        ]
    );
    // A branch's fields are read from keys of their types too; an Interrupt's take values.
    let branch = |times: &str, force_reset: &str| -> Vec<String> {
        let text = format!(
            r#"{{"format": "arbor.tree", "version": 1, "keys": [
                {{"name": "laps", "type": "int", "default": 2}},
                {{"name": "pause", "type": "float", "default": 1.5}}],
            "nodes": [
            {{"id": "root", "kind": "Root", "inputs": {{"child": ["r"], "interrupts": ["i"]}}}},
            {{"id": "r", "kind": "Repeater", "fields": {{"times": {times}}}, "inputs": {{"child": ["w"]}}}},
            {{"id": "w", "kind": "Wait", "fields": {{"seconds": {{"key": "pause"}}}}}},
            {{"id": "i", "kind": "Interrupt", "fields": {{"interrupt_id": "hit", "force_reset": {force_reset}}}, "inputs": {{"child": ["v"]}}}},
            {{"id": "v", "kind": "Wait"}}
        ]}}"#
        );
        let t = arbor::io::parse_tree(&text, std::path::Path::new("t.json")).unwrap();
        validate(&t, &Catalog::builtin(), &NoAssets)
            .iter()
            .filter(|d| d.is_error())
            .map(ToString::to_string)
            .collect()
    };
    assert_eq!(branch(r#"{"key": "laps"}"#, "true"), Vec::<String>::new());
    assert_eq!(
        branch(r#"{"key": "pause"}"#, "true"),
        [
            "error: [r] its 'times' reads key 'pause' as int, but the key is declared float (key-type)"
        ]
    );
    assert_eq!(
        branch("2", r#"{"key": "laps"}"#),
        [
            "error: [i] field 'force_reset' is bound to key 'laps', but an Interrupt's fields decide how the tree answers a trigger and take values (field-type)"
        ]
    );
}

/// The rules that a Root over a `kind` of `kids` mock actions breaks, with their messages.
fn child_count_rules(kind: &str, kids: usize) -> Vec<(Rule, String)> {
    let mut root = Node::new("root", "Root");
    root.inputs
        .insert(arbor::model::Port::Child, vec![NodeId::new("n")]);
    let mut n = Node::new("n", kind);
    let ids: Vec<NodeId> = (0..kids).map(|i| NodeId::new(format!("k{i}"))).collect();
    n.inputs.insert(arbor::model::Port::Children, ids.clone());
    let mut nodes = vec![root, n];
    nodes.extend(ids.into_iter().map(|id| Node::new(id, "MockAction")));
    validate(
        &Tree::from_nodes(nodes).unwrap(),
        &Catalog::builtin(),
        &NoAssets,
    )
    .into_iter()
    .map(|d| (d.rule, d.message))
    .collect()
}

#[test]
fn an_if_then_else_takes_two_or_three_children() {
    let rules = |kids| child_count_rules("IfThenElse", kids);
    assert_eq!(
        rules(1),
        [(
            Rule::MissingChild,
            "IfThenElse takes 2 or 3 children; it has 1".to_owned()
        )]
    );
    assert!(rules(2).is_empty() && rules(3).is_empty());
    assert_eq!(
        rules(4),
        [(
            Rule::SlotOverflow,
            "IfThenElse takes 2 or 3 children but has 4: k0, k1, k2, k3".to_owned()
        )]
    );
}

#[test]
fn a_switch_takes_a_child_for_each_case_and_the_default() {
    let rules = |kids| child_count_rules("Switch3", kids);
    assert_eq!(
        rules(3),
        [(
            Rule::MissingChild,
            "Switch3 takes 4 children; it has 3".to_owned()
        )]
    );
    assert!(rules(4).is_empty());
    assert_eq!(rules(5)[0].0, Rule::SlotOverflow);
}
