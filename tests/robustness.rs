//! No panic on any input: mutated and random files go through load, validate, format,
//! compile and a few steps of running, and every failure is an error value with a message.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use arbor::io::parse_tree;
use arbor::model::{Catalog, NoAssets, validate};
use arbor::runtime::{Behaviours, Program};
use proptest::prelude::*;

/// Every stage a file can go through; panics are the only failure.
fn exercise(text: &str) {
    common::exercise::tree_text(text);
}

fn corpus() -> Vec<String> {
    let mut files = common::sample_trees();
    files.extend(common::json_files(&common::repo().join("tests/fixtures")));
    // Tree files only: the node library fixtures have their own tests (tests/libraries.rs).
    files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .filter(|text| !text.contains("\"arbor.nodes\"") && !text.contains("\"arbor.project\""))
        .collect()
}

#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize, usize),
    Insert(usize, String),
    Replace(usize, String),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let token = prop_oneof![
        Just("{".to_string()),
        Just("}".to_string()),
        Just("[".to_string()),
        Just("]".to_string()),
        Just(",".to_string()),
        Just("\"root\"".to_string()),
        Just("\"Sequence\"".to_string()),
        Just("\"Interrupt\"".to_string()),
        Just("\"child\"".to_string()),
        Just("null".to_string()),
        Just("-1".to_string()),
        Just("1e400".to_string()),
        Just("\"\\u0000\"".to_string()),
        "\\PC{0,6}",
    ];
    prop_oneof![
        (any::<usize>(), 1..40usize).prop_map(|(at, n)| Mutation::Delete(at, n)),
        (any::<usize>(), token.clone()).prop_map(|(at, t)| Mutation::Insert(at, t)),
        (any::<usize>(), token).prop_map(|(at, t)| Mutation::Replace(at, t)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn apply(text: &str, m: &Mutation) -> String {
    let chars: Vec<char> = text.chars().collect();
    let at = |i: usize| if chars.is_empty() { 0 } else { i % chars.len() };
    let (head, tail): (String, String) = match m {
        Mutation::Delete(i, n) => (
            chars[..at(*i)].iter().collect(),
            chars[(at(*i) + n).min(chars.len())..].iter().collect(),
        ),
        Mutation::Insert(i, t) => (
            chars[..at(*i)].iter().collect::<String>() + t,
            chars[at(*i)..].iter().collect(),
        ),
        Mutation::Replace(i, t) => {
            let end = (at(*i) + t.chars().count()).min(chars.len());
            (
                chars[..at(*i)].iter().collect::<String>() + t,
                chars[end..].iter().collect(),
            )
        }
        Mutation::Truncate(i) => (chars[..at(*i)].iter().collect(), String::new()),
    };
    head + &tail
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn mutated_files_never_panic(which in any::<usize>(), mutations in proptest::collection::vec(mutation(), 1..6)) {
        let corpus = corpus();
        let mut text = corpus[which % corpus.len()].clone();
        for m in &mutations {
            text = apply(&text, m);
        }
        exercise(&text);
    }

    #[test]
    fn random_text_never_panics(text in "\\PC{0,200}") {
        exercise(&text);
    }
}

/// A structural change to a parsed tree file: it stays valid JSON of the right shape.
#[derive(Clone, Debug)]
enum Change {
    Kind(usize, usize),
    Field(usize, String, usize),
    Relink(usize, usize, usize),
    Drop(usize),
    Link(usize, usize, usize),
}

const KINDS: &[&str] = &[
    "Root",
    "Sequence",
    "Selector",
    "Parallel",
    "RandomSequence",
    "Inverter",
    "Repeater",
    "UntilFail",
    "Regulator",
    "SubTree",
    "Interrupt",
    "MockAction",
    "MockCondition",
    "HasContext",
    "Wait",
    "Bogus",
];
const PORTS: &[&str] = &["child", "children", "conditions", "interrupts"];

fn change() -> impl Strategy<Value = Change> {
    let n = any::<usize>();
    prop_oneof![
        (n, 0..KINDS.len()).prop_map(|(a, k)| Change::Kind(a, k)),
        (n, "(script|times|hz|in_context|out_context|interrupt_id|asset|success|max_duration|invert)", 0..6usize)
            .prop_map(|(a, f, v)| Change::Field(a, f, v)),
        (n, n, 0..4usize).prop_map(|(a, b, p)| Change::Relink(a, b, p)),
        n.prop_map(Change::Drop),
        (n, n, 0..4usize).prop_map(|(a, b, p)| Change::Link(a, b, p)),
    ]
}

fn change_tree(doc: &mut serde_json::Value, c: &Change) {
    use serde_json::{Value, json};
    let Some(nodes) = doc.get_mut("nodes").and_then(Value::as_array_mut) else {
        return;
    };
    if nodes.is_empty() {
        return;
    }
    let len = nodes.len();
    let id = |nodes: &Vec<Value>, i: usize| nodes[i % len]["id"].clone();
    match c {
        Change::Kind(a, k) => nodes[a % len]["kind"] = json!(KINDS[*k]),
        Change::Field(a, f, v) => {
            let value = [
                json!("RRSF"),
                json!(0),
                json!(-3),
                json!(2.5),
                json!(true),
                json!("k"),
            ][*v]
                .clone();
            if !nodes[a % len]["fields"].is_object() {
                nodes[a % len]["fields"] = json!({});
            }
            nodes[a % len]["fields"][f.as_str()] = value;
        }
        Change::Relink(a, b, p) | Change::Link(a, b, p) => {
            let target = id(nodes, *b);
            let node = &mut nodes[a % len];
            if !node["inputs"].is_object() {
                node["inputs"] = json!({});
            }
            let list = &mut node["inputs"][PORTS[*p]];
            if !list.is_array() {
                *list = json!([]);
            }
            let list = list.as_array_mut().unwrap();
            if matches!(c, Change::Relink(..)) && !list.is_empty() {
                list[0] = target;
            } else {
                list.push(target);
            }
        }
        Change::Drop(a) => {
            let gone = nodes.remove(a % len)["id"].clone();
            for n in nodes.iter_mut() {
                if let Some(inputs) = n.get_mut("inputs").and_then(Value::as_object_mut) {
                    for list in inputs.values_mut() {
                        if let Some(l) = list.as_array_mut() {
                            l.retain(|x| *x != gone);
                        }
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn structurally_changed_trees_never_panic(which in any::<usize>(), changes in proptest::collection::vec(change(), 1..4)) {
        let corpus = corpus();
        let Ok(mut doc) = serde_json::from_str::<serde_json::Value>(&corpus[which % corpus.len()]) else { return Ok(()) };
        for c in &changes {
            change_tree(&mut doc, c);
        }
        exercise(&doc.to_string());
    }
}

#[test]
fn a_deep_chain_is_refused_by_validate_and_compile_alike_without_overflow() {
    let mut nodes =
        vec![r#"{"id": "root", "kind": "Root", "inputs": {"child": ["d0"]}}"#.to_string()];
    let depth = 5_000;
    for i in 0..depth {
        nodes.push(format!(
            r#"{{"id": "d{i}", "kind": "Inverter", "inputs": {{"child": ["d{}"]}}}}"#,
            i + 1
        ));
    }
    nodes.push(format!(r#"{{"id": "d{depth}", "kind": "MockAction"}}"#));
    let text = tree_text(&nodes);
    let tree = parse_tree(&text, Path::new("deep.json")).unwrap();
    // validate names the first node past the limit (d0 is at depth 1).
    let errors = too_large_on(&tree, "d256");
    assert!(
        errors[0].message.contains("at most 256 levels"),
        "{}",
        errors[0]
    );
    // compile refuses it for the same reason.
    let err = compile_error(&tree);
    assert!(err.to_string().contains("at most 256 levels"), "{err}");
    // A tree at the limit is not too large.
    let at_limit = text.replace(
        r#""d255", "kind": "Inverter", "inputs": {"child": ["d256"]}"#,
        r#""d255", "kind": "MockAction""#,
    );
    let tree = parse_tree(&at_limit, Path::new("deep.json")).unwrap();
    let catalog = Catalog::builtin();
    let errors: Vec<_> = validate(&tree, &catalog, &NoAssets)
        .into_iter()
        .filter(|d| d.is_error() && d.rule == arbor::model::Rule::TooLarge)
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

/// A folder holding copies of the sample trees, where mutated scenarios are written.
fn scenarios() -> Vec<String> {
    common::json_files(&common::repo().join("sample_trees"))
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .filter(|t| arbor::world::is_scenario(t))
        .collect()
}

/// Loads a scenario text, as a file among the samples, and runs it; errors are fine,
/// panics and hangs are not.
fn exercise_scenario(text: &str, name: &str) {
    common::exercise::scenario_text(text, &common::repo().join("sample_trees").join(name));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn mutated_scenarios_never_panic(which in any::<usize>(), mutations in proptest::collection::vec(mutation(), 1..4)) {
        let all = scenarios();
        let mut text = all[which % all.len()].clone();
        for m in &mutations {
            text = apply(&text, m);
        }
        exercise_scenario(&text, &format!("text-{which}.scenario.json"));
    }

    #[test]
    fn scenarios_with_odd_values_never_panic(
        which in any::<usize>(),
        changes in proptest::collection::vec((any::<usize>(), "(at|health|max_health|damage|range|speed|hunger|hunger_rate|holds|open|nutrition|heal|kind|team)", 0..12usize), 1..5),
    ) {
        use serde_json::json;
        let all = scenarios();
        let mut doc: serde_json::Value = serde_json::from_str(&all[which % all.len()]).unwrap();
        let values = [
            json!(0), json!(-1), json!(1e9), json!(0.5), json!("ball"), json!(null),
            json!([0, 0]), json!([1, 1]), json!([99, 2]), json!(true), json!("food"), json!([3, 3]),
        ];
        for (i, field, v) in &changes {
            let entities = doc["entities"].as_array_mut().unwrap();
            let n = entities.len();
            entities[i % n][field.as_str()] = values[*v].clone();
        }
        exercise_scenario(&doc.to_string(), &format!("odd-{which}.scenario.json"));
    }
}

#[test]
fn more_context_keys_than_a_program_holds_are_refused_naming_the_node() {
    let n = arbor::model::MAX_CONTEXT_KEYS + 1;
    let mut nodes = vec![
        r#"{"id": "root", "kind": "Root", "inputs": {"child": ["s"]}}"#.to_string(),
        format!(
            r#"{{"id": "s", "kind": "Sequence", "inputs": {{"children": [{}]}}}}"#,
            quoted((0..n).map(|i| format!("m{i}")))
        ),
    ];
    for i in 0..n {
        nodes.push(format!(
            r#"{{"id": "m{i}", "kind": "MockAction", "fields": {{"out_context": "k{i}"}}}}"#
        ));
    }
    let tree = parse_tree(&tree_text(&nodes), Path::new("keys.json")).unwrap();
    too_large_on(&tree, &format!("m{}", n - 1));
    let err = compile_error(&tree);
    assert!(err.to_string().contains("distinct context keys"), "{err}");
}

#[test]
fn more_leaves_running_at_once_than_an_instance_counts_are_refused_by_validate() {
    // Under a Parallel every child's leaves run at once; below a Sequence, one child's.
    let text = |parallels: usize, per: usize, interrupt: bool| {
        let mut nodes = vec![
            format!(
                r#"{{"id": "root", "kind": "Root", "inputs": {{"child": ["all"]{}}}}}"#,
                if interrupt {
                    r#", "interrupts": ["i"]"#
                } else {
                    ""
                }
            ),
            format!(
                r#"{{"id": "all", "kind": "Parallel", "inputs": {{"children": [{}]}}}}"#,
                quoted((0..parallels).map(|p| format!("p{p}")))
            ),
        ];
        if interrupt {
            nodes.push(r#"{"id": "i", "kind": "Interrupt", "fields": {"interrupt_id": "alarm"}, "inputs": {"child": ["w"]}}"#.into());
            nodes.push(r#"{"id": "w", "kind": "MockAction"}"#.into());
        }
        for p in 0..parallels {
            nodes.push(format!(
                r#"{{"id": "p{p}", "kind": "Sequence", "inputs": {{"children": [{}]}}}}"#,
                quoted((0..2).map(|s| format!("p{p}s{s}")))
            ));
            for s in 0..2 {
                nodes.push(format!(
                    r#"{{"id": "p{p}s{s}", "kind": "Parallel", "inputs": {{"children": [{}]}}}}"#,
                    quoted((0..per).map(|l| format!("p{p}s{s}l{l}")))
                ));
                for l in 0..per {
                    nodes.push(format!(r#"{{"id": "p{p}s{s}l{l}", "kind": "MockAction"}}"#));
                }
            }
        }
        parse_tree(&tree_text(&nodes), Path::new("parallel.json")).unwrap()
    };
    let limit = usize::try_from(arbor::model::MAX_ACTIVE_LEAVES).unwrap();
    // 5 × 13,107 = 65,535 at once (twice as many leaves in all): at the limit.
    let at_limit = text(5, limit / 5, false);
    assert!(
        validate(&at_limit, &Catalog::builtin(), &NoAssets)
            .iter()
            .all(|d| !d.is_error())
    );
    // The Interrupt's leaf runs beside them: one past.
    let errors = too_large_on(&text(5, limit / 5, true), "root");
    assert!(
        errors[0]
            .message
            .contains("65536 action leaves can run at once"),
        "{}",
        errors[0].message
    );
    let err = compile_error(&text(5, limit / 5, true));
    assert!(err.contains("65536 action leaves can run at once"), "{err}");
}

/// Ids as a JSON list's items: `"a","b"`.
fn quoted(ids: impl Iterator<Item = String>) -> String {
    ids.map(|id| format!("\"{id}\""))
        .collect::<Vec<_>>()
        .join(",")
}

/// A tree file's text with these nodes (each a JSON object's text).
fn tree_text(nodes: &[String]) -> String {
    format!(
        r#"{{"format": "arbor.tree", "version": 1, "nodes": [{}]}}"#,
        nodes.join(",")
    )
}

/// The tree's one error: too-large, on `node`.
fn too_large_on(tree: &arbor::model::Tree, node: &str) -> Vec<arbor::model::Diagnostic> {
    let errors: Vec<_> = validate(tree, &Catalog::builtin(), &NoAssets)
        .into_iter()
        .filter(|d| d.is_error())
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].rule, arbor::model::Rule::TooLarge);
    assert_eq!(errors[0].nodes, vec![arbor::model::NodeId::new(node)]);
    errors
}

#[cfg(unix)]
#[test]
fn paths_that_are_not_regular_files_are_refused_at_once_saying_what_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("folder.json");
    std::fs::create_dir(&folder).unwrap();
    let fifo = dir.path().join("pipe.json");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let big = dir.path().join("big.json");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(arbor::io::MAX_FILE_BYTES + 1)
        .unwrap();
    for (path, says) in [
        (folder.as_path(), "it is a folder, not a file"),
        (
            fifo.as_path(),
            "it is a FIFO (named pipe), not a regular file",
        ),
        (Path::new("/dev/zero"), "it is a device, not a regular file"),
        (big.as_path(), "Arbor reads files of at most 64 MiB"),
    ] {
        let e = arbor::io::load_tree(path).err().unwrap().to_string();
        assert!(e.contains(says), "{e}");
        let e = arbor::world::load_scenario(path).err().unwrap().to_string();
        assert!(e.contains(says), "{e}");
    }
}

#[cfg(unix)]
#[test]
fn saving_through_a_symlink_writes_its_file_and_keeps_the_link_and_the_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.json");
    std::fs::copy(common::repo().join("sample_trees/door_room.json"), &real).unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let mut tree = arbor::io::load_tree(&link).unwrap();
    tree.description = "changed through the link".into();
    arbor::io::save_tree(&link, &tree).unwrap();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(arbor::io::load_tree(&real).unwrap(), tree);
    let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
}

/// Why compiling `tree` fails.
fn compile_error(tree: &arbor::model::Tree) -> String {
    Program::compile(
        tree,
        &Catalog::builtin(),
        &NoAssets,
        &Behaviours::<()>::with_builtins(),
    )
    .err()
    .unwrap()
    .to_string()
}
