//! Node libraries and project files: reading every field type, every bad input named by
//! file, kind and field, placeholders that keep what no library knows, stand-ins that run
//! before the game's code exists, and the drift check a game keeps in its tests.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};

use arbor::io::{Library, ProjectCatalog, parse_library, tree_to_string};
use arbor::model::{
    Catalog, Category, FieldDirection, FieldType, KeyType, KeyTypes, Origin, Rule, Value, validate,
};

const LIBRARY: &str = r#"{"format": "arbor.nodes", "version": 1, "library": "my_game", "kinds": [
  {"kind": "FireWeapon", "category": "leaf", "group": "Combat",
   "doc": "Fires the equipped weapon at the target in context.",
   "fields": [
     {"name": "ammo_type", "type": "enum", "values": ["bullet", "rocket"], "default": "bullet", "doc": "What to fire."},
     {"name": "burst", "type": "int", "default": 3, "min": 1, "max": 10},
     {"name": "spread", "type": "float", "default": 0.5, "min": 0.0, "unit": "deg"},
     {"name": "silenced", "type": "bool", "default": false},
     {"name": "callout", "type": "text", "default": "Firing!"},
     {"name": "target_key", "type": "context_key", "key_type": "entity|position"}],
   "in_context": "entity", "out_context": "int",
   "stand_in": {"script": "RRS"}},
  {"kind": "TakeCover", "category": "leaf", "group": "Combat"},
  {"kind": "IsUnderFire", "category": "condition", "group": "Combat", "stand_in": {"script": "FFFT"}},
  {"kind": "Squad", "category": "composite", "runs_as": "Sequence"},
  {"kind": "Volley", "category": "composite"}]}"#;

/// A folder holding `arbor.project.json` listing `libraries` (name, text), each written.
fn project(libraries: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = libraries.iter().map(|(n, _)| format!("\"{n}\"")).collect();
    for (name, text) in libraries {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let project = dir.path().join("arbor.project.json");
    std::fs::write(
        &project,
        format!(
            "{{\"format\": \"arbor.project\", \"version\": 1, \"nodes\": [{}]}}",
            names.join(", ")
        ),
    )
    .unwrap();
    (dir, project)
}

fn library(text: &str) -> (Library, Vec<arbor::io::Problem>) {
    parse_library(text, Path::new("lib.nodes.json")).unwrap()
}

/// Writes a tree file at `path` whose nodes are `nodes` (the JSON objects, comma-separated).
fn write_tree(path: &Path, nodes: &str) {
    std::fs::write(
        path,
        format!("{{\"format\": \"arbor.tree\", \"version\": 1, \"nodes\": [{nodes}]}}"),
    )
    .unwrap();
}

/// The built-in kinds and those of [`LIBRARY`].
fn library_catalog() -> Catalog {
    let (lib, _) = library(LIBRARY);
    let mut catalog = Catalog::builtin();
    for k in lib.kinds {
        catalog.add_library_kind(k).unwrap();
    }
    catalog
}

fn problem_lines(text: &str) -> Vec<String> {
    match parse_library(text, Path::new("lib.nodes.json")) {
        Ok((_, problems)) => problems.iter().map(ToString::to_string).collect(),
        Err(p) => vec![p.to_string()],
    }
}

#[test]
fn every_field_type_is_read_with_its_range_default_unit_and_doc() {
    let (lib, problems) = library(LIBRARY);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(lib.name, "my_game");
    let fire = &lib.kinds[0];
    assert_eq!(
        (fire.name.as_str(), fire.category, fire.group.as_str()),
        ("FireWeapon", Category::Leaf, "Combat")
    );
    assert_eq!(fire.stand_in.as_deref(), Some("RRS"));
    assert!(matches!(&fire.origin, Origin::Library { library, .. } if library == "my_game"));
    let f = |name: &str| fire.field(name).unwrap();
    assert_eq!(
        f("ammo_type").ty,
        FieldType::Enum(vec!["bullet".into(), "rocket".into()])
    );
    assert_eq!(f("ammo_type").help, "What to fire.");
    assert_eq!(f("burst").ty, FieldType::Int { min: 1, max: 10 });
    assert_eq!(f("burst").default, Some(Value::Int(3)));
    assert!(
        matches!(f("spread").ty, FieldType::Float { min, max, .. } if min == 0.0 && max == f64::MAX)
    );
    assert_eq!(f("spread").unit, "deg");
    assert_eq!(f("silenced").ty, FieldType::Bool);
    assert_eq!(f("callout").ty, FieldType::Text);
    let target = KeyTypes::of(&[KeyType::Entity, KeyType::Position]);
    assert_eq!(f("target_key").ty, FieldType::ContextKey(target));
    assert_eq!(fire.key_types("in_context"), Some(KeyType::Entity.set()));
    assert_eq!(fire.key_types("out_context"), Some(KeyType::Int.set()));
    assert_eq!(lib.kinds[1].key_types("in_context"), Some(KeyTypes::ANY));
    // Its category's common fields come with it, as with built-in kinds.
    for common in ["max_duration", "in_context", "out_context", "overwrite_out"] {
        assert!(fire.field(common).is_some(), "{common}");
    }
    assert!(lib.kinds[2].field("invert").is_some());
    assert_eq!(lib.kinds[3].runs_as.as_deref(), Some("Sequence"));
    // Written back, it reads the same.
    let text = lib.to_text().unwrap();
    let (back, problems) = library(&text);
    assert!(problems.is_empty());
    assert_eq!(back, lib);
    assert_eq!(back.to_text().unwrap(), text, "canonical text is stable");
}

#[test]
fn bad_libraries_name_the_file_the_place_the_kind_and_the_field() {
    // Malformed JSON: file, line and column.
    let lines = problem_lines(
        "{\"format\": \"arbor.nodes\", \"version\": 1,\n \"library\": \"g\", \"kinds\": [\n  {\"kind\": \"A\",, }]}",
    );
    assert!(lines[0].starts_with("lib.nodes.json:3:"), "{lines:?}");
    // A default outside its own range: the kind stays, the default goes.
    let text = r#"{"format": "arbor.nodes", "version": 1, "library": "g", "kinds": [
        {"kind": "Fire", "category": "leaf", "fields": [{"name": "burst", "type": "int", "default": 30, "min": 1, "max": 10}]}]}"#;
    let (lib, problems) = library(text);
    assert_eq!(lib.kinds.len(), 1);
    assert_eq!(lib.kinds[0].field("burst").unwrap().default, None);
    let line = problems[0].to_string();
    assert!(
        line.starts_with("lib.nodes.json:2:")
            && line.contains("kind 'Fire'")
            && line.contains("field 'burst'")
            && line.contains("30"),
        "{line}"
    );
    for (entry, kind, field, says) in [
        (
            r#"{"kind": "A", "category": "leaf", "fields": [{"name": "x", "type": "enum"}]}"#,
            "A",
            Some("x"),
            "values",
        ),
        (
            r#"{"kind": "B", "category": "leaf", "fields": [{"name": "x", "type": "vector"}]}"#,
            "B",
            None,
            "vector",
        ),
        (
            r#"{"kind": "C", "category": "condition", "fields": [{"name": "invert", "type": "bool"}]}"#,
            "C",
            Some("invert"),
            "every condition has this field",
        ),
        (
            r#"{"kind": "D", "category": "composite", "stand_in": {"script": "S"}}"#,
            "D",
            None,
            "runs_as",
        ),
        (
            r#"{"kind": "E", "category": "leaf", "stand_in": {"script": "TX"}}"#,
            "E",
            None,
            "letters RSF",
        ),
        (
            r#"{"kind": "F", "category": "root"}"#,
            "F",
            None,
            "unknown word `root`",
        ),
        (
            r#"{"kind": "G", "category": "leaf", "fields": [{"name": "x", "type": "int", "min": 5, "max": 1}]}"#,
            "G",
            Some("x"),
            "above",
        ),
        (
            r#"{"kind": "H", "category": "leaf", "fields": [{"name": "x", "type": "text", "default": 3}]}"#,
            "H",
            Some("x"),
            "must be text",
        ),
        (
            r#"{"kind": "I", "category": "leaf", "fields": [{"name": "x", "type": "context_key", "key_type": "entity|vector"}]}"#,
            "I",
            Some("x"),
            "\"vector\" is not a key type",
        ),
        (
            r#"{"kind": "J", "category": "leaf", "fields": [{"name": "x", "type": "text", "key_type": "entity"}]}"#,
            "J",
            Some("x"),
            "only a context_key field has a \"key_type\"",
        ),
        (
            r#"{"kind": "K", "category": "condition", "out_context": "entity"}"#,
            "K",
            None,
            "a condition has no out_context field",
        ),
        (
            r#"{"kind": "L", "category": "leaf", "in_context": "thing"}"#,
            "L",
            None,
            "in_context: \"thing\" is not a key type",
        ),
    ] {
        let text = format!(
            "{{\"format\": \"arbor.nodes\", \"version\": 1, \"library\": \"g\", \"kinds\": [{entry}]}}"
        );
        let lines = problem_lines(&text);
        let line = lines.join("\n");
        assert!(line.contains(says), "{entry}: {line}");
        assert!(line.contains(&format!("kind '{kind}'")), "{line}");
        if let Some(field) = field {
            assert!(line.contains(&format!("field '{field}'")), "{line}");
        }
    }
    // The wrong file, or a newer version, says so.
    let lines = problem_lines(r#"{"format": "arbor.tree", "version": 1, "nodes": []}"#);
    assert!(
        lines[0]
            .contains("this is a tree file (\"format\": \"arbor.tree\"), not a node library file"),
        "{lines:?}"
    );
    let lines =
        problem_lines(r#"{"format": "arbor.nodes", "version": 7, "library": "g", "kinds": []}"#);
    assert!(lines[0].contains("newer Arbor"), "{lines:?}");
}

#[test]
fn project_problems_name_both_files_the_kind_and_leave_the_tree_openable() {
    let a = r#"{"format": "arbor.nodes", "version": 1, "library": "a", "kinds": [
        {"kind": "Dash", "category": "leaf"}, {"kind": "Wait", "category": "leaf"},
        {"kind": "Odd", "category": "decorator", "runs_as": "Sequence"}]}"#;
    let b = r#"{"format": "arbor.nodes", "version": 1, "library": "b", "kinds": [{"kind": "Dash", "category": "leaf"}]}"#;
    let (dir, project) = project(&[("ai/a.nodes.json", a), ("ai/b.nodes.json", b)]);
    // A missing library too.
    let text = std::fs::read_to_string(&project)
        .unwrap()
        .replace("]}", ", \"ai/gone.nodes.json\"]}");
    std::fs::write(&project, text).unwrap();
    let loaded = ProjectCatalog::load(Some(&project), &Catalog::builtin());
    let lines: Vec<String> = loaded.problems.iter().map(ToString::to_string).collect();
    let all = lines.join("\n");
    let duplicate = lines.iter().find(|l| l.contains("kind 'Dash'")).unwrap();
    assert!(
        duplicate.contains("b.nodes.json") && duplicate.contains("a.nodes.json"),
        "{all}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("kind 'Wait'") && l.contains("shadows the built-in")),
        "{all}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("kind 'Odd'") && l.contains("not a built-in Decorator")),
        "{all}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("gone.nodes.json") && l.contains("cannot be read")),
        "{all}"
    );
    // The first Dash is kept; the built-in Wait is kept.
    let dash = loaded.catalog.kind("Dash").unwrap();
    assert!(matches!(&dash.origin, Origin::Library { library, .. } if library == "a"));
    assert_eq!(loaded.catalog.kind("Wait").unwrap().origin, Origin::BuiltIn);
    // A tree there still validates (and names its own problems).
    let tree = dir.path().join("t.json");
    write_tree(
        &tree,
        r#"
        {"id": "root", "kind": "Root", "inputs": {"child": ["d"]}}, {"id": "d", "kind": "Dash"}"#,
    );
    let (code, out, _) = cli(&["validate", tree.to_str().unwrap()]);
    assert_eq!(code, 2, "a library could not be read: {out}");
    assert!(out.contains("gone.nodes.json"), "{out}");
    // A malformed project file is an error naming it, and the tree opens with built-ins.
    std::fs::write(
        &project,
        "{\"format\": \"arbor.project\", \"version\": 1, \"nodes\": [1]}",
    )
    .unwrap();
    let loaded = ProjectCatalog::for_tree(Some(&tree), None, &Catalog::builtin());
    assert!(
        loaded.problems[0]
            .to_string()
            .contains("arbor.project.json:1:")
    );
    assert!(loaded.catalog.kind("Dash").is_none());
}

#[test]
fn the_project_is_found_by_walking_up_and_overridden_by_the_flag() {
    let (dir, project) = project(&[("ai/game.nodes.json", LIBRARY)]);
    let deep = dir.path().join("trees/guards");
    std::fs::create_dir_all(&deep).unwrap();
    let tree = deep.join("guard.json");
    write_tree(
        &tree,
        r#"
        {"id": "root", "kind": "Root", "inputs": {"child": ["s"]}},
        {"id": "s", "kind": "Sequence", "inputs": {"conditions": ["u"], "children": ["f"]}},
        {"id": "u", "kind": "IsUnderFire"},
        {"id": "f", "kind": "FireWeapon", "fields": {"ammo_type": "rocket"}}"#,
    );
    assert_eq!(
        arbor::io::find_project(&deep).unwrap(),
        std::path::absolute(&project).unwrap()
    );
    let (code, out, err) = cli(&["validate", tree.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    // Another project given explicitly wins over the one found.
    let (_other_dir, other) = project_with_nothing();
    let (code, out, _) = cli(&[
        "validate",
        "--project",
        other.to_str().unwrap(),
        tree.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(
        out.contains("[f] unknown node kind 'FireWeapon'") && out.contains("(unknown-kind)"),
        "{out}"
    );
    // `kinds` lists the library's kinds beside the built-ins.
    let (code, out, _) = cli(&["kinds", "--project", project.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("### FireWeapon") && out.contains("node library `my_game`"));
    assert!(out.contains("### Sequence"));
}

fn project_with_nothing() -> (tempfile::TempDir, PathBuf) {
    project(&[])
}

/// Runs the binary's command line in-process: exit code, standard output, standard error.
fn cli(args: &[&str]) -> (u8, String, String) {
    use clap::Parser;
    let parsed =
        arbor::cli::Cli::try_parse_from(std::iter::once("arbor").chain(args.iter().copied()))
            .unwrap();
    let base = Catalog::builtin();
    let project = parsed.project.as_deref();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = match parsed.command.unwrap() {
        arbor::cli::Command::Validate {
            files,
            deny_warnings,
        } => arbor::cli::validate(&files, project, deny_warnings, &base, &mut out, &mut err),
        arbor::cli::Command::Fmt {
            check,
            diff,
            declare_keys,
            files,
        } => {
            let how = arbor::cli::Formatting {
                check,
                diff,
                declare_keys,
            };
            arbor::cli::fmt(&files, &how, project, &base, &mut out, &mut err)
        }
        arbor::cli::Command::RenameKind { from, to, dry_run } => {
            arbor::cli::rename_kind(&from, &to, dry_run, project, &base, &mut out, &mut err)
        }
        arbor::cli::Command::Kinds => {
            let loaded = ProjectCatalog::load(project, &base);
            arbor::cli::kinds(&loaded.catalog, &mut out)
        }
        arbor::cli::Command::Run { file, steps, .. } => {
            let dir = tempfile::tempdir().unwrap();
            let trace = dir.path().join("trace.jsonl");
            let args = arbor::cli::RunArgs {
                trace: Some(&trace),
                project,
                ..arbor::cli::RunArgs::new(&file, steps)
            };
            let code = arbor::cli::run(&args, &base, &mut out, &mut err);
            out.extend(std::fs::read(&trace).unwrap_or_default());
            code
        }
        other => panic!("not tested here: {other:?}"),
    };
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

#[test]
fn node_fields_are_checked_against_the_library() {
    let catalog = library_catalog();
    let tree = arbor::io::parse_tree(
        r#"{"format": "arbor.tree", "version": 1, "nodes": [
        {"id": "root", "kind": "Root", "inputs": {"child": ["f"]}},
        {"id": "f", "kind": "FireWeapon", "fields": {"ammo_type": "plasma", "burst": 11, "spread": "wide", "colour": "red"}}]}"#,
        Path::new("t.json"),
    )
    .unwrap();
    let diags = validate(&tree, &catalog, &arbor::model::NoAssets);
    let rules: Vec<(Rule, String)> = diags.iter().map(|d| (d.rule, d.message.clone())).collect();
    let has = |rule: Rule, text: &str| rules.iter().any(|(r, m)| *r == rule && m.contains(text));
    assert!(has(Rule::FieldRange, "ammo_type"), "{rules:?}");
    assert!(has(Rule::FieldRange, "burst"), "{rules:?}");
    assert!(has(Rule::FieldType, "spread"), "{rules:?}");
    assert!(has(Rule::FieldUnknown, "colour"), "{rules:?}");
    assert!(
        diags
            .iter()
            .all(|d| d.nodes == [arbor::model::NodeId::new("f")])
    );
}

#[test]
fn an_unknown_kind_is_a_placeholder_that_keeps_everything_and_saves_back_unchanged() {
    let text = r#"{"format": "arbor.tree", "version": 1, "nodes": [
        {"id": "root", "kind": "Root", "inputs": {"child": ["squad"]}},
        {"id": "squad", "kind": "SquadTactic", "fields": {"formation": "wedge", "spacing": 2.5},
         "inputs": {"conditions": ["seen"], "children": ["fire", "wait"]}},
        {"id": "seen", "kind": "CanSeeEnemy", "fields": {"range": 30}},
        {"id": "fire", "kind": "FireWeapon", "fields": {"ammo_type": "rocket"}},
        {"id": "wait", "kind": "Wait"}],
        "editor": {"nodes": {"root": {"position": [400, 0]}, "squad": {"position": [100, 0]}}}}"#;
    let tree = arbor::io::parse_tree(text, Path::new("t.json")).unwrap();
    let canonical = tree_to_string(&tree);
    let mut catalog = Catalog::builtin();
    assert_eq!(catalog.add_placeholders(&tree), 3);
    assert_eq!(
        catalog.category_of("SquadTactic"),
        Some(Category::Composite)
    );
    assert_eq!(
        catalog.category_of("CanSeeEnemy"),
        Some(Category::Condition)
    );
    assert_eq!(catalog.category_of("FireWeapon"), Some(Category::Leaf));
    assert!(catalog.kind("FireWeapon").unwrap().is_placeholder());
    // Reported, by node, and nothing else is claimed about its fields.
    let diags = validate(&tree, &catalog, &arbor::model::NoAssets);
    let unknown: Vec<&str> = diags
        .iter()
        .filter(|d| d.rule == Rule::UnknownKind)
        .map(|d| d.nodes[0].as_str())
        .collect();
    assert_eq!(unknown, ["squad", "seen", "fire"]);
    assert!(
        diags.iter().all(|d| d.rule != Rule::FieldUnknown),
        "{diags:?}"
    );
    // Its links are valid links: an edit elsewhere keeps them, and the file is the same.
    let mut edited = tree.clone();
    edited
        .apply(
            arbor::model::Edit::SetTitle {
                id: arbor::model::NodeId::new("wait"),
                title: "Hold".into(),
            },
            &catalog,
        )
        .unwrap();
    edited
        .apply(
            arbor::model::Edit::SetTitle {
                id: arbor::model::NodeId::new("wait"),
                title: String::new(),
            },
            &catalog,
        )
        .unwrap();
    assert!(edited.check_invariants(&catalog).is_ok());
    assert_eq!(tree_to_string(&edited), canonical, "byte-identical");
    // And a tree with placeholders never runs, even with stand-ins.
    let with_stand_ins = arbor::runtime::Behaviours::<()>::with_builtins().with_stand_ins();
    let compiled =
        arbor::runtime::Program::compile(&tree, &catalog, &arbor::model::NoAssets, &with_stand_ins);
    assert!(
        matches!(&compiled, Err(arbor::runtime::CompileError::Invalid(d)) if d.iter().any(|d| d.rule == Rule::UnknownKind)),
        "{:?}",
        compiled.err()
    );
    let (code, _, err) = {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.json");
        std::fs::write(&path, text).unwrap();
        cli(&["run", path.to_str().unwrap(), "--steps", "2"])
    };
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("unknown node kind 'SquadTactic'"), "{err}");
}

#[test]
fn library_kinds_run_as_their_stand_ins_and_branches_as_what_they_run_as() {
    let (dir, _) = project(&[("game.nodes.json", LIBRARY)]);
    let tree = dir.path().join("t.json");
    write_tree(
        &tree,
        r#"
        {"id": "root", "kind": "Root", "inputs": {"child": ["squad"]}},
        {"id": "squad", "kind": "Squad", "inputs": {"conditions": ["seen"], "children": ["fire", "cover"]}},
        {"id": "seen", "kind": "IsUnderFire"},
        {"id": "fire", "kind": "FireWeapon"},
        {"id": "cover", "kind": "TakeCover"}"#,
    );
    let (code, out, err) = cli(&["run", tree.to_str().unwrap(), "--steps", "8"]);
    assert_eq!(code, 0, "{err}");
    let events: Vec<&str> = out.lines().filter(|l| l.starts_with('{')).collect();
    let has = |needle: &str| events.iter().any(|e| e.contains(needle));
    // IsUnderFire's script FFFT: false at steps 0-2, true from step 3.
    assert!(has(
        r#""step":0,"agent":"t","event":"check","node":"seen","result":false"#
    ));
    assert!(has(
        r#""step":3,"agent":"t","event":"check","node":"seen","result":true"#
    ));
    // FireWeapon's RRS: running twice, then success; TakeCover succeeds at once.
    let fire_exit = events
        .iter()
        .position(|e| e.contains(r#""event":"exit","node":"fire","status":"success""#))
        .unwrap();
    let fire_enter = events
        .iter()
        .position(|e| e.contains(r#""event":"enter","node":"fire""#))
        .unwrap();
    let executes = events[fire_enter..fire_exit]
        .iter()
        .filter(|e| e.contains(r#""event":"execute","node":"fire""#))
        .count();
    assert_eq!(executes, 3);
    assert!(has(r#""event":"exit","node":"cover","status":"success""#));
    assert!(has(r#""event":"exit","node":"squad","status":"success""#));
    // A library composite that says nothing of how it runs is refused, by name.
    write_tree(
        &tree,
        r#"
        {"id": "root", "kind": "Root", "inputs": {"child": ["v"]}},
        {"id": "v", "kind": "Volley", "inputs": {"children": ["fire"]}},
        {"id": "fire", "kind": "FireWeapon"}"#,
    );
    let (code, _, err) = cli(&["run", tree.to_str().unwrap(), "--steps", "2"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("'Volley'") && err.contains("runs_as") && err.contains("game.nodes.json"),
        "{err}"
    );
}

#[test]
fn a_stand_ins_result_can_be_forced_for_the_rest_of_the_run() {
    use arbor::runtime::{Behaviours, Instance, Outcome, Program};
    let catalog = library_catalog();
    let tree = arbor::io::parse_tree(
        r#"{"format": "arbor.tree", "version": 1, "nodes": [
        {"id": "root", "kind": "Root", "inputs": {"child": ["fire"]}},
        {"id": "fire", "kind": "FireWeapon"}]}"#,
        Path::new("t.json"),
    )
    .unwrap();
    // Without stand-ins, a library kind with no behaviour is refused.
    let refused = Program::compile(
        &tree,
        &catalog,
        &arbor::model::NoAssets,
        &Behaviours::<()>::with_builtins(),
    );
    assert!(refused.is_err());
    let behaviours = Behaviours::<()>::with_builtins().with_stand_ins();
    let program = std::sync::Arc::new(
        Program::compile(&tree, &catalog, &arbor::model::NoAssets, &behaviours).unwrap(),
    );
    let mut instance = Instance::new(program, 0);
    assert_eq!(
        behaviours.stand_ins().kind_of("fire"),
        Some(arbor::runtime::StandInKind::Action)
    );
    assert!(behaviours.stand_ins().force("fire", Some(Outcome::Failure)));
    assert_eq!(
        behaviours.stand_ins().forced("fire"),
        Some(Outcome::Failure)
    );
    for _ in 0..6 {
        instance.step(0.1, &mut (), None);
    }
    assert_eq!(instance.stats().failed, 6, "fails at every execute");
    assert_eq!(instance.stats().succeeded, 0);
    behaviours.stand_ins().force("fire", None);
    for _ in 0..6 {
        instance.step(0.1, &mut (), None);
    }
    assert_eq!(
        instance.stats().succeeded,
        2,
        "RRS again: a success every third step"
    );
    assert!(
        !behaviours
            .stand_ins()
            .force("nobody", Some(Outcome::Success))
    );
}

#[test]
fn the_drift_check_passes_when_file_and_code_agree_and_shows_a_diff_when_not() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.nodes.json");
    let mut catalog = Catalog::builtin();
    let kind = |max: i64| {
        arbor::model::KindSpec::new(
            "FireWeapon",
            Category::Leaf,
            "Fires.",
            vec![arbor::model::FieldSpec::new(
                "burst",
                FieldType::Int { min: 1, max },
                Value::Int(3),
                "Shots per burst.",
            )],
        )
        .with_group("Combat")
    };
    catalog.register(kind(10)).unwrap();
    let from_code = Library::from_catalog("game", &catalog).unwrap();
    // A missing file says how to write it.
    let e = from_code.check(&path).unwrap_err().to_string();
    assert!(e.contains("ARBOR_UPDATE_LIBRARY=1"), "{e}");
    from_code.write(&path).unwrap();
    from_code.check(&path).unwrap();
    // Reformatted by hand: still no drift.
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace('\n', " ")).unwrap();
    from_code.check(&path).unwrap();
    // The code changed a field's range: the check fails with a diff of that line.
    let mut changed = Catalog::builtin();
    changed.register(kind(12)).unwrap();
    let e = Library::from_catalog("game", &changed)
        .unwrap()
        .check(&path)
        .unwrap_err()
        .to_string();
    assert!(e.contains("-          \"max\": 10,"), "{e}");
    assert!(e.contains("+          \"max\": 12,"), "{e}");
    // A library the code writes is what the editor reads.
    let (back, problems) = parse_library(&from_code.to_text().unwrap(), &path).unwrap();
    assert!(problems.is_empty());
    assert_eq!(
        back.kinds[0].fields,
        catalog.kind("FireWeapon").unwrap().fields
    );
}

#[test]
fn fmt_formats_library_and_project_files_and_leaves_one_with_problems_alone() {
    let (dir, project) = project(&[("game.nodes.json", LIBRARY)]);
    let lib = dir.path().join("game.nodes.json");
    let (code, out, err) = cli(&["fmt", lib.to_str().unwrap(), project.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 2, "{out}");
    let (code, _, _) = cli(&[
        "fmt",
        "--check",
        lib.to_str().unwrap(),
        project.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    let formatted = std::fs::read_to_string(&lib).unwrap();
    assert_eq!(library(&formatted).0, library(LIBRARY).0);
    // A library with a problem is not rewritten: nothing in it is dropped.
    let bad = formatted.replace("\"default\": 3", "\"default\": 300");
    std::fs::write(&lib, &bad).unwrap();
    let (code, _, err) = cli(&["fmt", lib.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("kind 'FireWeapon'") && err.contains("300"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&lib).unwrap(), bad);
    // validate reads a library file on its own.
    let (code, out, _) = cli(&["validate", lib.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("field 'burst'"), "{out}");
}

/// A kind renamed in the game's library: `rename-kind` makes every node of it the new
/// kind in each tree of the project (a deeper project's tree left alone), says what a
/// node loses, and writes nothing with --dry-run or when the new name is no kind.
#[test]
fn rename_kind_replaces_a_kind_renamed_in_the_library_across_the_project() {
    let renamed = LIBRARY
        .replace("\"TakeCover\"", "\"SeekCover\"")
        .replace("\"FireWeapon\"", "\"Shoot\"");
    let (dir, project) = project(&[("game.nodes.json", &renamed)]);
    let tree = |fields: &str| {
        format!(
            r#"{{"format": "arbor.tree", "version": 1, "nodes": [
            {{"id": "root", "kind": "Root", "inputs": {{"child": ["s"]}}}},
            {{"id": "s", "kind": "Sequence", "inputs": {{"children": ["c", "c2", "w"]}}}},
            {{"id": "c", "kind": "TakeCover"{fields}}},
            {{"id": "c2", "kind": "TakeCover"}},
            {{"id": "w", "kind": "Wait"}}]}}"#
        )
    };
    let a = dir.path().join("a.json");
    let b = dir.path().join("ai/b.json");
    let other = dir.path().join("other/c.json");
    std::fs::create_dir_all(b.parent().unwrap()).unwrap();
    std::fs::create_dir_all(other.parent().unwrap()).unwrap();
    std::fs::write(&a, tree("")).unwrap();
    std::fs::write(&b, tree(r#", "fields": {"speed": 2}"#)).unwrap();
    std::fs::write(&other, tree("")).unwrap();
    std::fs::write(
        other.with_file_name("arbor.project.json"),
        r#"{"format": "arbor.project", "version": 1}"#,
    )
    .unwrap();
    let untouched = |p: &PathBuf| std::fs::read_to_string(p).unwrap();
    let (a0, b0, c0) = (untouched(&a), untouched(&b), untouched(&other));
    let with = ["--project", project.to_str().unwrap(), "rename-kind"];
    let args = |more: &[&'static str]| [with.as_slice(), more].concat();
    // Not a kind of the project: refused, with the near name.
    let (code, _, err) = cli(&args(&["TakeCover", "SeekCovr"]));
    assert_eq!(code, 2);
    assert!(err.contains("did you mean 'SeekCover'?"), "{err}");
    let (code, out, _) = cli(&args(&["TakeCover", "SeekCover", "--dry-run"]));
    assert_eq!(code, 0);
    assert!(out.contains("2 file(s) would change"), "{out}");
    assert_eq!((untouched(&a), untouched(&b)), (a0.clone(), b0));
    let (code, out, err) = cli(&args(&["TakeCover", "SeekCover"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("b.json: [c] field 'speed' = 2 (SeekCover has no field 'speed')"),
        "{out}"
    );
    assert!(out.contains("2 file(s) changed"), "{out}");
    for p in [&a, &b] {
        let t = arbor::io::parse_tree(&untouched(p), p).unwrap();
        let kinds: Vec<&str> = t.nodes().iter().map(|n| n.kind.as_str()).collect();
        assert_eq!(
            kinds,
            ["Root", "Sequence", "SeekCover", "SeekCover", "Wait"]
        );
        assert_eq!(
            t.parent_of(&arbor::model::NodeId::new("c2")).unwrap().slot,
            1
        );
    }
    assert_eq!(untouched(&other), c0, "another project's tree");
    assert_ne!(untouched(&a), a0);
    // Nothing left of the old kind: said so.
    let (code, out, _) = cli(&args(&["TakeCover", "SeekCover"]));
    assert_eq!(code, 0);
    assert!(out.contains("has a TakeCover node"), "{out}");
}

#[test]
fn the_worked_example_validates_runs_and_is_canonical() {
    let guard = common::repo().join("examples/my_game/guard.json");
    let (code, out, err) = cli(&["validate", guard.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = cli(&["run", guard.to_str().unwrap(), "--steps", "10"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(r#""node":"fire""#), "{out}");
    let files: Vec<String> = ["guard.json", "arbor.project.json", "ai/my_game.nodes.json"]
        .iter()
        .map(|f| {
            common::repo()
                .join("examples/my_game")
                .join(f)
                .display()
                .to_string()
        })
        .collect();
    let mut args = vec!["fmt", "--check"];
    args.extend(files.iter().map(String::as_str));
    let (code, out, _) = cli(&args);
    assert_eq!(code, 0, "not canonical: {out}");
}

#[test]
fn a_library_branch_runs_with_its_own_defaults_and_keeps_the_type_of_what_it_runs_as() {
    let lib = r#"{"format": "arbor.nodes", "version": 1, "library": "g", "kinds": [
        {"kind": "Twice", "category": "decorator", "runs_as": "Repeater",
         "fields": [{"name": "times", "type": "int", "default": 2, "min": 0, "max": 9223372036854775807}]},
        {"kind": "Badly", "category": "decorator", "runs_as": "Repeater",
         "fields": [{"name": "times", "type": "text"}]},
        {"kind": "Broken", "category": "leaf", "colour": "red"}]}"#;
    let (dir, project) = project(&[("g.nodes.json", lib)]);
    let loaded = ProjectCatalog::load(Some(&project), &Catalog::builtin());
    let lines: Vec<String> = loaded.problems.iter().map(ToString::to_string).collect();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("kind 'Badly'")
                && l.contains("field 'times' is a field of Repeater")),
        "{lines:?}"
    );
    // A kind that does not parse is named, and counts as an error, not an unreadable file.
    assert!(
        lines
            .iter()
            .any(|l| l.contains("kind 'Broken'") && l.contains("colour")),
        "{lines:?}"
    );
    let tree = dir.path().join("t.json");
    write_tree(
        &tree,
        r#"
        {"id": "root", "kind": "Root", "inputs": {"child": ["twice"]}},
        {"id": "twice", "kind": "Twice", "inputs": {"child": ["step"]}},
        {"id": "step", "kind": "MockAction"}"#,
    );
    let (code, out, err) = cli(&["run", tree.to_str().unwrap(), "--steps", "4"]);
    assert_eq!(code, 0, "{err}");
    // Twice runs its child two times (its own default), then succeeds: a run every 2 steps.
    let executes = |step: u32| {
        out.lines()
            .filter(|l| {
                l.contains(&format!("\"step\":{step},")) && l.contains("\"event\":\"execute\"")
            })
            .count()
    };
    assert_eq!((executes(1), executes(2)), (1, 1));
    assert!(
        out.contains(r#""step":2,"agent":"t","event":"exit","node":"twice","status":"success""#),
        "{out}"
    );
    let (code, out, _) = cli(&["validate", tree.to_str().unwrap()]);
    assert_eq!(code, 1, "the library's errors are errors: {out}");
}

#[test]
fn forcing_is_part_of_the_debuggers_history() {
    use arbor::runtime::Outcome;
    let (dir, _) = project(&[("game.nodes.json", LIBRARY)]);
    let path = dir.path().join("t.json");
    write_tree(
        &path,
        r#"
        {"id": "root", "kind": "Root", "inputs": {"child": ["s"]}},
        {"id": "s", "kind": "Sequence", "inputs": {"conditions": ["seen"], "children": ["fire"]}},
        {"id": "seen", "kind": "IsUnderFire"},
        {"id": "fire", "kind": "FireWeapon"}"#,
    );
    let loaded = ProjectCatalog::for_tree(Some(&path), None, &Catalog::builtin());
    let tree = arbor::io::load_tree(&path).unwrap();
    let sim = arbor::world::Simulation::solo(Some(&path), &tree, &loaded.catalog, 0).unwrap();
    // Small checkpoints, so that going back rebuilds steps.
    let mut session = arbor::debug::Session::with_history(sim, 0.1, 2, 4);
    let log = |s: &arbor::debug::Session| -> Vec<String> {
        s.events().map(|e| s.trace_line(e)).collect()
    };
    session.run(4, &[]);
    // A condition cannot be forced to keep running; an unknown node is no stand-in.
    assert!(!session.force(&path, "seen", Some(Outcome::Running)));
    assert!(!session.force(&path, "s", Some(Outcome::Success)));
    assert!(session.force(&path, "seen", Some(Outcome::Success)));
    assert!(session.force(&path, "fire", Some(Outcome::Failure)));
    session.run(6, &[]);
    let forward = log(&session);
    assert!(
        forward.iter().any(
            |l| l.contains(r#""step":5,"#) && l.contains(r#""node":"fire","status":"failure""#)
        ),
        "{forward:#?}"
    );
    // Back before the force: the script again.
    session.seek(3);
    assert_eq!(session.forced(&path, "fire"), None);
    // And forward again: the same run.
    session.seek(10);
    assert_eq!(log(&session), forward);
    assert_eq!(session.forced(&path, "fire"), Some(Outcome::Failure));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, ..Default::default() })]

    /// A library cut short, or with any bytes put in or taken out, is read with its
    /// problems said, never a panic, and what reads cleanly writes back the same.
    #[test]
    fn changed_libraries_never_panic(
        cut in 0usize..2000,
        at in 0usize..2000,
        insert in "[\\[\\]{}:,\" a-z0-9.\\-]{0,6}",
        remove in 0usize..8,
    ) {
        let text = LIBRARY;
        let boundary = |i: usize| {
            let mut i = i.min(text.len());
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        common::exercise::library_text(&text[..boundary(cut)]);
        let (a, b) = (boundary(at), boundary(at + remove));
        common::exercise::library_text(&format!("{}{insert}{}", &text[..a], &text[b..]));
    }
}

#[test]
fn problems_found_against_other_kinds_are_placed_and_unknown_kinds_say_where_kinds_come_from() {
    let a = "{\"format\": \"arbor.nodes\", \"version\": 1, \"library\": \"a\", \"kinds\": [\n  {\"kind\": \"Dash\", \"category\": \"leaf\"},\n  {\"kind\": \"Wait\", \"category\": \"leaf\"},\n  {\"kind\": \"Twice\", \"category\": \"leaf\", \"fields\": [{\"name\": \"n\", \"type\": \"int\", \"min\": 1.5}]},\n  {\"kind\": \"Twice\", \"category\": \"leaf\"}]}";
    let b = "{\"format\": \"arbor.nodes\", \"version\": 1, \"library\": \"b\", \"kinds\": [\n\n  {\"kind\": \"Dash\", \"category\": \"leaf\"}]}";
    let (_dir, project) = project(&[("a.nodes.json", a), ("b.nodes.json", b)]);
    let loaded = ProjectCatalog::load(Some(&project), &Catalog::builtin());
    let lines: Vec<String> = loaded.problems.iter().map(ToString::to_string).collect();
    let find = |needle: &str| {
        lines
            .iter()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no {needle}: {lines:#?}"))
            .clone()
    };
    assert!(find("kind 'Wait'").contains("a.nodes.json:3:3: error"));
    assert!(find("kind 'Dash'").contains("b.nodes.json:3:3: error"));
    assert!(find("whole number").contains("kind 'Twice': field 'n'"));
    assert!(find("twice").contains("neither is read"), "{lines:#?}");
    assert!(loaded.catalog.kind("Twice").is_none());

    // A tree whose only action sits under a kind nobody defines: no false no-action.
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("t.json");
    write_tree(
        &tree,
        r#"
        {"id": "root", "kind": "Root", "inputs": {"child": ["squad"]}},
        {"id": "squad", "kind": "SquadTactic", "inputs": {"children": ["go"]}},
        {"id": "go", "kind": "MockAction"}"#,
    );
    let (code, out, err) = cli(&["validate", tree.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(!out.contains("no-action"), "{out}");
    assert!(
        out.contains("[squad] unknown node kind 'SquadTactic'"),
        "{out}"
    );
    assert!(err.contains("no arbor.project.json was found"), "{err}");
}

#[test]
fn a_library_loop_without_its_count_loops_for_ever_as_what_it_runs_as_and_validate_says_so() {
    // Repeater's `times` defaults to 0 (for ever); the library's kind does not name it.
    let lib = r#"{"format": "arbor.nodes", "version": 1, "library": "g", "kinds": [
        {"kind": "Forever", "category": "decorator", "runs_as": "Repeater"}]}"#;
    let (dir, _project) = project(&[("g.nodes.json", lib)]);
    let tree = dir.path().join("t.json");
    write_tree(
        &tree,
        r#"
        {"id": "root", "kind": "Root", "inputs": {"child": ["loop"]}},
        {"id": "loop", "kind": "Forever", "inputs": {"child": ["look"]}},
        {"id": "look", "kind": "MockCondition"}"#,
    );
    let (_, out, err) = cli(&["validate", tree.to_str().unwrap()]);
    assert!(
        out.lines()
            .any(|l| l.contains("[loop]") && l.contains("loops for ever")),
        "{out}{err}"
    );
}

#[test]
fn a_field_bound_to_a_key_its_code_writes_is_a_write_and_is_not_read_at_entry() {
    // `found` is an output: the key it names counts as written (no `key-unwritten` for the
    // reader after it), and an empty key does not stop the leaf.
    let lib = r#"{"format": "arbor.nodes", "version": 1, "library": "scan",
      "kinds": [
        {"kind": "Scan", "category": "leaf", "fields": [
          {"name": "found", "type": "text", "direction": "out"},
          {"name": "area", "type": "text", "direction": "inout"}]},
        {"kind": "Report", "category": "leaf", "fields": [{"name": "what", "type": "text"}]}]}"#;
    let (parsed, problems) = library(lib);
    assert!(problems.is_empty(), "{problems:?}");
    let scan = &parsed.kinds[0];
    assert_eq!(scan.field("found").unwrap().direction, FieldDirection::Out);
    assert_eq!(scan.field("area").unwrap().direction, FieldDirection::InOut);
    assert_eq!(
        parsed.kinds[1].field("what").unwrap().direction,
        FieldDirection::In
    );
    let (back, _) = library(&parsed.to_text().unwrap());
    assert_eq!(back, parsed, "the direction is written back");
    assert!(
        problem_lines(&lib.replace("\"inout\"", "\"sideways\""))
            .iter()
            .any(|l| l.contains("\"direction\" is \"sideways\"")),
    );

    let (dir, _) = project(&[("scan.nodes.json", lib)]);
    let tree = dir.path().join("t.json");
    write_tree(
        &tree,
        r#"{"id": "root", "kind": "Root", "inputs": {"child": ["s"]}},
           {"id": "s", "kind": "Sequence", "inputs": {"children": ["scan", "report"]}},
           {"id": "scan", "kind": "Scan", "fields": {"found": {"key": "thing"}, "area": {"key": "zone"}}},
           {"id": "report", "kind": "Report", "fields": {"what": {"key": "thing"}}}"#,
    );
    let (code, out, err) = cli(&["validate", tree.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("'thing'"), "{out}");
    // `zone` is read (inout) and has no writer but the node itself: it is written too.
    assert!(!out.contains("key-unwritten"), "{out}");
    // The stand-in of Scan runs at once though `thing` and `zone` hold nothing yet.
    let (code, out, err) = cli(&["run", tree.to_str().unwrap(), "--steps", "2"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("\"scan\""), "{out}");
}

#[test]
fn a_projects_library_may_be_behaviortree_cpp_node_models() {
    // Nav2's own models file, listed as a library, defines every kind its trees use.
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/btcpp");
    let models = std::fs::read_to_string(fixtures.join("models/nav2_tree_nodes.xml")).unwrap();
    let (dir, _) = project(&[("nav2_tree_nodes.xml", &models)]);
    let tree = dir.path().join("navigate.xml");
    std::fs::copy(
        fixtures.join("navigate_to_pose_w_replanning_and_recovery.xml"),
        &tree,
    )
    .unwrap();
    let loaded = ProjectCatalog::for_tree(Some(&tree), None, &Catalog::builtin());
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
    let kind = |name: &str| loaded.catalog.kind(name).unwrap();
    assert_eq!(kind("PipelineSequence").category, Category::Composite);
    assert_eq!(kind("RateController").category, Category::Decorator);
    assert_eq!(kind("GoalUpdated").category, Category::Condition);
    // Nav2's Wait is its own kind, not Arbor's; its ports' types are its fields' types.
    let wait = kind("Wait_own");
    assert_eq!(wait.category, Category::Leaf);
    let field = |name: &str| wait.field(name).unwrap();
    assert_eq!(field("wait_duration").ty.describe(), "a number");
    assert_eq!(field("wait_duration").default, Some(Value::Float(1.0)));
    assert_eq!(field("server_name").ty, FieldType::Text);
    assert_eq!(field("server_timeout").ty.describe(), "a whole number");
    assert_eq!(field("server_timeout").unit, "ms");
    let compute = kind("ComputePathToPose");
    assert_eq!(
        compute.field("path").unwrap().direction,
        FieldDirection::Out
    );
    assert_eq!(compute.field("goal").unwrap().direction, FieldDirection::In);
    let help = &compute.field("goal").unwrap().help;
    assert!(
        help.contains("input port of type geometry_msgs::msg::PoseStamped: Goal pose"),
        "{help}"
    );
    assert!(
        matches!(&compute.origin, Origin::Library { library, .. } if library == "nav2_tree_nodes")
    );
    let (_, out, err) = cli(&["validate", tree.to_str().unwrap()]);
    assert!(
        out.contains("0 error(s)") || err.contains("0 error(s)"),
        "{out}{err}"
    );
    assert!(!out.contains("unknown-kind"), "{out}");
    // `path` is written by ComputePathToPose before FollowPath reads it.
    assert!(!out.contains("key 'path'"), "{out}");

    // A model file that is not XML says where.
    let (dir, _) = project(&[("broken.xml", "<root><TreeNodesModel>")]);
    let loaded =
        ProjectCatalog::for_tree(Some(&dir.path().join("t.json")), None, &Catalog::builtin());
    let line = loaded.problems[0].to_string();
    assert!(line.contains("broken.xml"), "{line}");
}

#[test]
fn a_projects_enums_are_numbers_in_scripts_and_switches() {
    // BehaviorTree.CPP's scripting enums, declared by the project: `GREEN` is 1 wherever a
    // script or a Switch reads it, and no key.
    let (dir, project) = project(&[]);
    std::fs::write(
        &project,
        r#"{"format": "arbor.project", "version": 1, "enums": {"RED": 0, "GREEN": 1}}"#,
    )
    .unwrap();
    let tree = dir.path().join("light.xml");
    std::fs::write(
        &tree,
        r#"<root BTCPP_format="4">
  <BehaviorTree ID="Light">
    <Sequence>
      <Script code="color := GREEN"/>
      <ScriptCondition code="color == GREEN &amp;&amp; color != RED"/>
      <Switch2 variable="{color}" case_1="RED" case_2="GREEN">
        <AlwaysFailure/>
        <MockAction name="go" script="R"/>
        <AlwaysFailure/>
      </Switch2>
    </Sequence>
  </BehaviorTree>
</root>
"#,
    )
    .unwrap();
    let (code, out, err) = cli(&["validate", tree.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("GREEN") && !out.contains("RED"), "{out}");
    let (code, out, err) = cli(&["run", tree.to_str().unwrap(), "--steps", "3"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(r#""key":"color","value":1"#), "{out}");
    assert!(
        out.contains(r#""node":"go","kind":"execute""#) || out.contains(r#""go""#),
        "{out}"
    );

    // A name a script cannot say is refused, naming the file.
    std::fs::write(
        &project,
        r#"{"format": "arbor.project", "version": 1, "enums": {"NOT OK": 0}}"#,
    )
    .unwrap();
    let loaded = ProjectCatalog::load(Some(&project), &Catalog::builtin());
    let line = loaded.problems[0].to_string();
    assert!(line.contains("the enum 'NOT OK'"), "{line}");
}

/// A library is listed in a project by its path from the project's real folder (links
/// followed, `..` taken out), which names it from the folder as written; a library with no
/// such path is listed by its absolute path. Listed twice, it is listed once.
#[cfg(unix)]
#[test]
fn a_library_is_listed_by_a_path_that_names_it_from_the_project() {
    use arbor::io::{Listed, list_library, relative_path};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("real/proj")).unwrap();
    std::fs::create_dir_all(root.join("libs")).unwrap();
    std::os::unix::fs::symlink(root.join("real/proj"), root.join("ws")).unwrap();
    let library = root.join("libs/x.nodes.json");
    std::fs::write(&library, LIBRARY).unwrap();
    // Through the link, the library is two folders up from the project's real folder.
    let entry = relative_path(&library, &root.join("ws")).unwrap();
    assert_eq!(entry, "../../libs/x.nodes.json");
    assert!(arbor::io::same_file(
        &root.join("ws").join(&entry),
        &library
    ));
    // A `..` in the folder as given counts as the folder it names.
    let entry = relative_path(&library, &root.join("real/proj/../proj")).unwrap();
    assert_eq!(entry, "../../libs/x.nodes.json");
    let project = root.join("ws/arbor.project.json");
    assert_eq!(list_library(&project, &library).unwrap(), Listed::Made);
    assert_eq!(list_library(&project, &library).unwrap(), Listed::Already);
    let loaded = ProjectCatalog::load(Some(&project), &Catalog::builtin());
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
    assert!(loaded.catalog.kind("FireWeapon").is_some());
}
