//! The `arbor` binary, run as a user runs it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::repo;

fn arbor(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(args)
        .current_dir(repo())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn rel(p: &Path) -> String {
    p.strip_prefix(repo()).unwrap_or(p).display().to_string()
}

#[test]
fn validate_accepts_every_sample_tree() {
    let files: Vec<String> = common::sample_trees().iter().map(|p| rel(p)).collect();
    let out = assert_accepts(&["validate"], &files);
    assert_eq!(text(&out.stdout), "");
    assert!(text(&out.stderr).contains("0 error(s), 0 warning(s), 0 unreadable"));
}

/// Runs `cmd FILES...` and asserts exit 0.
fn assert_accepts(cmd: &[&str], files: &[String]) -> Output {
    let args: Vec<&str> = cmd
        .iter()
        .copied()
        .chain(files.iter().map(String::as_str))
        .collect();
    let out = arbor(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    out
}

#[test]
fn fmt_check_accepts_every_sample_tree() {
    let files: Vec<String> = common::sample_trees().iter().map(|p| rel(p)).collect();
    assert_accepts(&["fmt", "--check"], &files);
}

#[test]
fn each_invalid_fixture_exits_1_and_names_its_rule_and_node() {
    let fixtures: Vec<PathBuf> = std::fs::read_dir(repo().join("tests/fixtures/invalid"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    assert!(fixtures.len() >= 17);
    for path in fixtures {
        let (rule, node) = common::expectation(&path);
        let out = arbor(&["validate", &rel(&path)]);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{}: {stdout}", path.display());
        let line = stdout
            .lines()
            .find(|l| l.ends_with(&format!("({rule})")))
            .unwrap_or_else(|| panic!("{stdout}"));
        assert!(
            line.starts_with(&format!("{}: error: ", rel(&path))),
            "{line}"
        );
        assert!(
            stdout.contains(&format!("[{node}]")) || line.contains(&node),
            "{stdout}"
        );
    }
}

#[test]
fn warnings_alone_exit_0() {
    let out = arbor(&["validate", "tests/fixtures/warnings/unreachable.json"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stdout),
        "tests/fixtures/warnings/unreachable.json: warning: [bad] 'MockAction' is not connected to Root, so it never runs (unreachable)\n"
    );
}

#[test]
fn a_truncated_file_exits_2_with_line_and_column() {
    let out = arbor(&["validate", "tests/fixtures/unreadable/truncated.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(
            "tests/fixtures/unreadable/truncated.json:6:1: error: EOF while parsing an object"
        ),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn every_unreadable_fixture_exits_2_naming_the_file() {
    for path in common::json_files(&repo().join("tests/fixtures/unreadable")) {
        let out = arbor(&["validate", &rel(&path)]);
        assert_eq!(out.status.code(), Some(2), "{}", path.display());
        assert!(
            text(&out.stderr).starts_with(&rel(&path)),
            "{}",
            text(&out.stderr)
        );
    }
}

#[test]
fn the_worst_file_decides_the_exit_code() {
    let out = arbor(&[
        "validate",
        "sample_trees/droid_arena.json",
        "tests/fixtures/invalid/cycle.json",
        "tests/fixtures/unreadable/truncated.json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stdout).contains("(cycle)"));
}

#[test]
fn fmt_rewrites_a_file_and_check_lists_what_differs() {
    let dir = tempfile::tempdir().unwrap();
    let messy = dir.path().join("messy.json");
    let original = r#"{"version":1,"format":"arbor.tree","nodes":[{"kind":"Root","id":"root","inputs":{"child":["w"]}},{"id":"w","kind":"Wait"}]}"#;
    std::fs::write(&messy, original).unwrap();
    let m = messy.to_str().unwrap();

    let out = arbor(&["fmt", "--check", m]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout).trim(), m);
    assert_eq!(
        std::fs::read_to_string(&messy).unwrap(),
        original,
        "--check changed the file"
    );

    let out = arbor(&["fmt", m]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let formatted = std::fs::read_to_string(&messy).unwrap();
    assert!(
        formatted.starts_with("{\n  \"format\": \"arbor.tree\",\n  \"version\": 1,"),
        "{formatted}"
    );

    let out = arbor(&["fmt", "--check", m]);
    assert_eq!(out.status.code(), Some(0));
}

/// The issue's guard, typed by hand without declarations: an observer, a MoveTo and an
/// Attack read `enemy`, and nothing writes it. `validate --deny-warnings` fails on it
/// (whatever `aborts_lower` says); `fmt --declare-keys` declares what its nodes use, typed
/// by their kinds and its project's, and leaves the project's own keys to the project.
#[test]
fn fmt_declare_keys_types_every_key_from_its_writers_and_validate_holds_them() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("arbor.project.json"),
        r#"{"format": "arbor.project", "version": 1, "keys": [{"name": "home", "type": "position"}]}"#,
    )
    .unwrap();
    let guard = dir.path().join("guard.json");
    let nodes = r#"
        {"id": "root", "kind": "Root", "inputs": {"child": ["duty"]}},
        {"id": "duty", "kind": "Selector", "inputs": {"children": ["chase", "patrol"]}},
        {"id": "chase", "kind": "Sequence", "inputs": {"conditions": ["seen"], "children": ["approach", "strike"]}},
        {"id": "seen", "kind": "IsInRange", "fields": {"aborts_lower": true, "distance": 6.0, "in_context": "enemy"}},
        {"id": "approach", "kind": "MoveTo", "fields": {"in_context": "enemy"}},
        {"id": "strike", "kind": "Attack", "fields": {"in_context": "enemy"}},
        {"id": "patrol", "kind": "Sequence", "inputs": {"children": ["look", "back", "note"]}},
        {"id": "look", "kind": "FindClosest", "fields": {"what": "ally", "out_context": "friend"}},
        {"id": "back", "kind": "MoveTo", "fields": {"in_context": "home"}},
        {"id": "note", "kind": "MockAction", "fields": {"in_context": "friend", "produces": "x", "out_context": "memo"}},
        {"id": "check", "kind": "HasContext", "fields": {"key": "memo"}}"#;
    let with_check = nodes.replace(
        r#""children": ["look", "back", "note"]"#,
        r#""children": ["look", "back", "note", "check"]"#,
    );
    std::fs::write(
        &guard,
        format!(r#"{{"format": "arbor.tree", "version": 1, "nodes": [{with_check}]}}"#),
    )
    .unwrap();
    let g = guard.to_str().unwrap();
    let out = arbor(&["validate", "--deny-warnings", g]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains(
            "warning: [seen] key 'enemy' is read here (and by 2 other nodes), but nothing writes it"
        ),
        "{}",
        text(&out.stdout)
    );
    let out = arbor(&["fmt", "--declare-keys", g]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let tree = arbor::io::load_tree(&guard).unwrap();
    let declared: Vec<(String, &str)> = tree
        .keys
        .as_deref()
        .unwrap()
        .iter()
        .map(|k| (k.name.clone(), k.ty.name()))
        .collect();
    assert_eq!(
        declared,
        [
            ("enemy".to_owned(), "entity"),
            ("friend".to_owned(), "entity"),
            ("memo".to_owned(), "any"),
        ],
        "typed by the writer (FindClosest: entity), else by the one type the readers take"
    );
    // Again: nothing more to declare, and the file is as it was.
    let before = std::fs::read_to_string(&guard).unwrap();
    let out = arbor(&["fmt", "--declare-keys", g]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&guard).unwrap(), before);
    // The tree now declares its keys: a typo is an error, naming the key meant.
    std::fs::write(
        &guard,
        before.replace("\"in_context\": \"home\"", "\"in_context\": \"hme\""),
    )
    .unwrap();
    let out = arbor(&["validate", g]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("[back] its 'in_context' reads key 'hme', which neither the tree nor its project declares; did you mean 'home'? (key-undeclared)"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn fmt_refuses_a_broken_file_without_touching_it() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, "{\"format\": \"arbor.tree\", ").unwrap();
    let out = arbor(&["fmt", broken.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("broken.json:1:"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&broken).unwrap(),
        "{\"format\": \"arbor.tree\", "
    );
}

#[test]
fn help_lists_the_commands() {
    let out = arbor(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    for command in [
        "edit", "validate", "fmt", "run", "kinds", "convert", "import", "export",
    ] {
        assert!(help.contains(command), "{command}: {help}");
    }
}

#[test]
fn without_a_display_the_editor_fails_fast_with_a_reason() {
    let out = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .current_dir(repo())
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .output()
        .unwrap();
    if cfg!(feature = "gui") {
        assert_eq!(out.status.code(), Some(2));
        assert!(
            text(&out.stderr).contains("cannot open the editor window"),
            "{}",
            text(&out.stderr)
        );
    } else {
        assert_eq!(
            out.status.code(),
            Some(0),
            "without the editor, `arbor` prints help"
        );
        assert!(text(&out.stdout).contains("validate"));
    }
}

#[test]
fn edit_on_a_broken_file_goes_on_to_the_window_which_shows_the_error() {
    // (The window shows it: tests/editor/files.rs. Here, without a display, the editor
    // gets as far as opening the window.)
    gets_to_the_window(&edit_headless(&[
        "tests/fixtures/unreadable/truncated.json",
    ]));
}

/// `arbor edit ARGS…` without a display.
fn edit_headless<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_arbor"))
        .current_dir(repo())
        .arg("edit")
        .args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .output()
        .unwrap()
}

/// Asserts that the editor got as far as opening its window (which fails without a
/// display), or says it has none in a build without the editor.
fn gets_to_the_window(out: &std::process::Output) {
    assert_eq!(out.status.code(), Some(2));
    let expected = if cfg!(feature = "gui") {
        "cannot open the editor window"
    } else {
        "has no editor"
    };
    assert!(
        text(&out.stderr).contains(expected),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn edit_with_a_trace_takes_where_to_look_and_refuses_what_starts_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    std::fs::write(&trace, "").unwrap();
    let trace = trace.to_str().unwrap();
    let out = edit_headless(&["--trace", trace, "--at", "5", "--seed", "3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(
            "--scenario, --solo, --every-agent, --seed, --dt and --trigger start a run; a replayed --trace is the run it recorded"
        ),
        "{}",
        text(&out.stderr)
    );
    // --at, --watch and --select are taken: the editor gets as far as its window.
    gets_to_the_window(&edit_headless(&[
        "--trace",
        trace,
        "--at",
        "5",
        "--watch",
        "guard",
        "--select",
        "intercept",
    ]));
}

#[test]
fn docs_nodes_md_is_the_current_catalog() {
    let out = arbor(&["kinds"]);
    assert_eq!(out.status.code(), Some(0));
    let docs = std::fs::read_to_string(repo().join("docs/NODES.md")).unwrap();
    assert!(
        text(&out.stdout) == docs,
        "docs/NODES.md is out of date: run `cargo run -- kinds > docs/NODES.md`"
    );
}

#[test]
fn run_prints_a_summary_and_writes_a_trace() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let out = arbor(&[
        "run",
        "sample_trees/mock_sketch.json",
        "--steps",
        "30",
        "--trigger",
        "12:alarm:intruder",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let summary = text(&out.stdout);
    assert!(summary.contains("30 steps of 0.1 s, seed 0"), "{summary}");
    assert!(summary.contains("interrupts: 1"), "{summary}");
    let lines: Vec<String> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    // The header names the agent, the tree it runs and the file with its digest.
    let header: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(header["arbor_trace"], 1);
    assert_eq!(header["agents"][0]["name"], "mock_sketch");
    assert!(
        header["agents"][0]["tree"]
            .as_str()
            .unwrap()
            .ends_with("mock_sketch.json")
    );
    assert_eq!(header["files"][0]["sha256"].as_str().unwrap().len(), 64);
    assert_eq!(
        lines[1],
        r#"{"step":0,"agent":"mock_sketch","event":"enter","node":"root"}"#
    );
    assert!(
        lines.contains(
            &r#"{"step":12,"agent":"mock_sketch","event":"interrupt","node":"alarm","id":"alarm"}"#
                .to_string()
        )
    );
    for l in &lines {
        serde_json::from_str::<serde_json::Value>(l).unwrap();
    }
}

#[test]
fn run_traces_to_stdout_and_is_deterministic() {
    let args = [
        "run",
        "sample_trees/mock_sketch.json",
        "--steps",
        "40",
        "--seed",
        "9",
        "--trace",
        "-",
    ];
    let (a, b) = (arbor(&args), arbor(&args));
    assert_eq!(a.status.code(), Some(0));
    assert!(!a.stdout.is_empty());
    assert_eq!(a.stdout, b.stdout);
    assert!(
        text(&a.stderr).contains("runs completed"),
        "the summary goes to stderr when the trace takes stdout"
    );
}

#[test]
fn run_refuses_bad_input_clearly() {
    let out = arbor(&["run", "tests/fixtures/invalid/cycle.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("(cycle)"),
        "{}",
        text(&out.stderr)
    );

    let out = arbor(&["run", "tests/fixtures/unreadable/truncated.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("truncated.json:6:1"));

    let out = arbor(&[
        "run",
        "sample_trees/mock_sketch.json",
        "--trigger",
        "x:alarm",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("STEP must be a whole number"),
        "{}",
        text(&out.stderr)
    );

    let out = arbor(&["run", "sample_trees/mock_sketch.json", "--dt", "0"]);
    assert_eq!(out.status.code(), Some(2));
    // A negative number is read as dt's value, and refused for what it is.
    let out = arbor(&["run", "sample_trees/mock_sketch.json", "--dt", "-0.1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--dt must be a positive number of seconds, not -0.1"),
        "{}",
        text(&out.stderr)
    );

    let out = arbor(&["run", "sample_trees/droid_arena.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no behaviour for the action 'FindClosest'"),
        "{}",
        text(&out.stderr)
    );

    let out = arbor(&[
        "run",
        "sample_trees/mock_sketch.json",
        "--steps",
        "3",
        "--trigger",
        "2:nosuch",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--trigger 2:nosuch: no Interrupt has the id or title 'nosuch'"),
        "{}",
        text(&out.stderr)
    );
    // An Interrupt named by its title, in any case.
    let out = arbor(&[
        "run",
        "sample_trees/mock_sketch.json",
        "--steps",
        "12",
        "--trigger",
        "12:alarm:intruder",
        "--trace",
        "-",
    ]);
    let by_id = text(&out.stdout);
    let title = arbor::io::load_tree(&repo().join("sample_trees/mock_sketch.json"))
        .unwrap()
        .node(&arbor::model::NodeId::new("alarm"))
        .map(|n| n.title.clone())
        .unwrap();
    assert!(!title.is_empty());
    let trigger = format!("12:{}:intruder", title.to_uppercase());
    let out = arbor(&[
        "run",
        "sample_trees/mock_sketch.json",
        "--steps",
        "12",
        "--trigger",
        &trigger,
        "--trace",
        "-",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), by_id);
}

/// `--trigger` takes an Interrupt's own title, whatever its node id and `interrupt_id`.
#[test]
fn an_interrupt_is_triggered_by_its_own_title() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("t.json");
    std::fs::write(
        &tree,
        r#"{"format": "arbor.tree", "version": 1, "nodes": [
  {"id": "root", "kind": "Root", "inputs": {"child": ["a"], "interrupts": ["i"]}},
  {"id": "a", "kind": "MockAction", "fields": {"script": "RRRRRRS"}},
  {"id": "i", "kind": "Interrupt", "title": "Fire alarm", "fields": {"interrupt_id": "alarm"}, "inputs": {"child": ["b"]}},
  {"id": "b", "kind": "MockAction", "fields": {"script": "S"}}]}"#,
    )
    .unwrap();
    let tree = tree.display().to_string();
    let out = arbor(&["run", &tree, "--steps", "5", "--trigger", "2:fire ALARM"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("interrupts: 1"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn run_recognises_a_scenario_and_prints_each_agent_and_the_arena() {
    let out = arbor(&[
        "run",
        "sample_trees/door_room.scenario.json",
        "--steps",
        "300",
        "--show",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("step 300, 30.0 s"), "{stdout}");
    assert!(
        stdout.contains("#......./..A.#"),
        "the door is open, the visitor inside:\n{stdout}"
    );
    assert!(
        stdout.contains("A visitor: at (") && stdout.contains("running rest"),
        "{stdout}"
    );

    let out = arbor(&[
        "run",
        "sample_trees/door_room.scenario.json",
        "--steps",
        "200",
        "--show-every",
        "100",
    ]);
    let stdout = text(&out.stdout);
    for step in ["step 0,", "step 100,", "step 200,"] {
        assert!(stdout.contains(step), "{step} missing:\n{stdout}");
    }
    assert!(
        stdout.contains("#.A.....+..*.#"),
        "closed at the start:\n{stdout}"
    );
}

#[test]
fn a_scenario_trace_names_every_agent_and_repeats_byte_for_byte() {
    let args = [
        "run",
        "sample_trees/droid_arena.scenario.json",
        "--steps",
        "60",
        "--seed",
        "3",
        "--trace",
        "-",
    ];
    let a = arbor(&args);
    assert_eq!(a.status.code(), Some(0), "{}", text(&a.stderr));
    let trace = text(&a.stdout);
    for droid in ["titan", "brute", "scout", "rookie", "drone"] {
        assert!(trace.contains(&format!("\"agent\":\"{droid}\"")), "{droid}");
    }
    assert!(
        text(&a.stderr).contains("5 agent(s), 60 steps"),
        "summary on stderr"
    );
    assert_eq!(a.stdout, arbor(&args).stdout);
}

#[test]
fn a_tree_runs_for_every_agent_of_another_scenario() {
    let out = arbor(&[
        "run",
        "sample_trees/chase_flee.json",
        "--scenario",
        "sample_trees/guard_patrol.scenario.json",
        "--steps",
        "50",
        "--trace",
        "-",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let trace = text(&out.stdout);
    assert!(trace.contains("\"agent\":\"guard\",\"event\":\"enter\",\"node\":\"find_enemy\""));
    assert!(
        !trace.contains("patrol/"),
        "the guard ran chase_flee, not its own tree"
    );
}

#[test]
fn scenario_triggers_go_to_the_agents_that_have_the_interrupt() {
    let out = arbor(&[
        "run",
        "sample_trees/pass_receive.scenario.json",
        "--steps",
        "3",
        "--trigger",
        "2:receive_pass@winger:ball",
        "--trace",
        "-",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let trace = text(&out.stdout);
    assert!(
        trace.contains(
            "{\"step\":2,\"agent\":\"winger\",\"event\":\"interrupt\",\"node\":\"receive\",\"id\":\"receive_pass\"}"
        ),
        "{trace}"
    );
    assert!(!trace.contains("\"agent\":\"striker\",\"event\":\"interrupt\""));
    // An Interrupt no agent's tree has is an error, with what comes close.
    let out = arbor(&[
        "run",
        "sample_trees/pass_receive.scenario.json",
        "--steps",
        "3",
        "--trigger",
        "2:receive_pas",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("no Interrupt has the id or title 'receive_pas'; did you mean 'receive_pass'"),
        "{err}"
    );
}

#[test]
fn bad_scenarios_exit_2_naming_the_file_and_the_entity() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, entities: &str| {
        let path = dir.path().join(name);
        let map = serde_json::json!(["######", "#....#", "######"]);
        std::fs::write(
            &path,
            format!(
                "{{\"format\": \"arbor.scenario\", \"version\": 1, \"map\": {map}, \"entities\": [{entities}]}}"
            ),
        )
        .unwrap();
        path.display().to_string()
    };
    let cases = [
        (
            write(
                "missing_tree.json",
                r#"{"kind": "agent", "name": "bot", "at": [1, 1], "tree": "nowhere.json"}"#,
            ),
            "entity 'bot': cannot load its tree",
        ),
        (
            write(
                "in_wall.json",
                r#"{"kind": "agent", "name": "bot", "at": [0, 0], "tree": "t.json"}"#,
            ),
            "entity 'bot': is placed in a wall at [0, 0]",
        ),
        (
            write(
                "same_tile.json",
                r#"{"kind": "agent", "name": "bot", "at": [1, 1], "tree": "t.json"},
                   {"kind": "waypoint", "name": "spot", "at": [1, 1]}"#,
            ),
            "entity 'spot': shares the tile [1, 1] with 'bot'",
        ),
        (
            write(
                "unknown_kind.json",
                r#"{"kind": "robot", "name": "r2", "at": [1, 1]}"#,
            ),
            "entity 'r2': unknown entity kind 'robot'",
        ),
    ];
    for (file, message) in &cases {
        for cmd in ["run", "validate"] {
            let out = arbor(&[cmd, file]);
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{cmd} {file}: {stderr}");
            assert!(
                stderr.contains(file.as_str()) && stderr.contains(message),
                "{cmd} {file}: {stderr}"
            );
            assert!(!stderr.contains("panicked"), "{stderr}");
        }
    }
}

#[test]
fn validate_and_fmt_accept_the_sample_scenarios() {
    let files: Vec<String> = common::json_files(&repo().join("sample_trees"))
        .iter()
        .map(|p| rel(p))
        .filter(|p| p.ends_with(".scenario.json"))
        .collect();
    assert!(files.len() >= 5, "{files:?}");
    for cmd in [&["validate"][..], &["fmt", "--check"][..]] {
        assert_accepts(cmd, &files);
    }
    let out = arbor(&[
        "run",
        "sample_trees/door_room.scenario.json",
        "--show-every",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--show-every must be 1 or more"));
    let out = arbor(&["run", "sample_trees/mock_sketch.json", "--show"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--scenario"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn run_break_stops_at_the_step_where_the_trace_first_shows_the_event() {
    let scenario = "sample_trees/droid_arena.scenario.json";
    let full = arbor(&["run", scenario, "--steps", "300", "--trace", "-"]);
    let trace = text(&full.stdout);
    let first = trace
        .lines()
        .find(|l| l.contains("\"node\":\"weaker\"") && l.contains("\"status\":\"failure\""))
        .expect("weaker fails in 300 steps");
    let step = first
        .split("\"step\":")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap();
    let agent = first
        .split("\"agent\":\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let stopped = arbor(&[
        "run",
        scenario,
        "--steps",
        "300",
        "--break",
        "weaker:failure",
    ]);
    assert_eq!(stopped.status.code(), Some(0), "{}", text(&stopped.stderr));
    let out = text(&stopped.stdout);
    assert!(
        out.starts_with(&format!(
            "breakpoint: weaker on failure of {agent} at step {step}\n"
        )),
        "{out}"
    );
    // With --trace, the trace up to the stop is the full run's up to that step.
    let cut = arbor(&[
        "run",
        scenario,
        "--steps",
        "300",
        "--break",
        "weaker:failure",
        "--trace",
        "-",
    ]);
    let step: u64 = step.parse().unwrap();
    // The same header, then the events up to the step of the hit.
    let want: Vec<&str> = trace
        .lines()
        .take(1)
        .chain(trace.lines().skip(1).filter(|l| {
            let s: u64 = l
                .split("\"step\":")
                .nth(1)
                .unwrap()
                .split(',')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            s <= step
        }))
        .collect();
    assert_eq!(text(&cut.stdout).lines().collect::<Vec<_>>(), want);
    // A tree runs alone; a wrong condition is refused.
    let tree = arbor(&[
        "run",
        "sample_trees/mock_sketch.json",
        "--break",
        "work:failure",
    ]);
    assert!(
        text(&tree.stdout).starts_with("breakpoint: work on failure of mock_sketch at step 8"),
        "{}",
        text(&tree.stdout)
    );
    // Its summary is that of a tree alone, as without --break: no world to speak of.
    let said = text(&tree.stdout);
    assert!(said.contains("\nruns completed: "), "{said}");
    assert!(!said.contains("health"), "{said}");
    let bad = arbor(&[
        "run",
        "sample_trees/mock_sketch.json",
        "--break",
        "work:sometimes",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("'sometimes' is not a condition"));
    // A node named by its title stops where its id does; a name that is neither is an
    // error with what comes close.
    let by_title = arbor(&[
        "run",
        scenario,
        "--steps",
        "300",
        "--break",
        "am i stronger?:failure",
    ]);
    assert_eq!(text(&by_title.stdout), out);
    let typo = arbor(&["run", scenario, "--steps", "300", "--break", "weakr"]);
    assert_eq!(typo.status.code(), Some(2));
    let err = text(&typo.stderr);
    assert!(
        err.contains("--break 'weakr': no node has the id or title 'weakr'; did you mean")
            && err.contains("weaker"),
        "{err}"
    );
}

#[test]
fn a_tree_of_world_nodes_run_alone_is_told_which_nodes_need_a_scenario() {
    let out = arbor(&["run", "sample_trees/door_room.json"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("hint: ") && err.contains("MoveTo") && err.contains("--scenario"),
        "{err}"
    );
}

#[test]
fn a_subtree_asset_that_is_a_folder_is_called_a_folder_and_no_other_finding_follows() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub.json")).unwrap();
    let main = dir.path().join("main.json");
    std::fs::write(
        &main,
        r#"{"format": "arbor.tree", "version": 1, "nodes": [
            {"id": "root", "kind": "Root", "inputs": {"child": ["s"]}},
            {"id": "s", "kind": "SubTree", "fields": {"asset": "sub.json"}}]}"#,
    )
    .unwrap();
    let out = arbor(&["validate", main.to_str().unwrap()]);
    let err = text(&out.stdout) + &text(&out.stderr);
    assert!(err.contains("it is a folder, not a file"), "{err}");
    assert!(!err.contains("no such file"), "{err}");
    // Whether the asset has an action is not known, so the tree is not said to have none.
    assert!(!err.contains("no-action"), "{err}");
    assert!(err.contains("1 error(s), 0 warning(s)"), "{err}");
}

#[test]
fn a_trace_never_writes_over_a_file_the_run_reads() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("subtrees")).unwrap();
    common::copy_samples(
        dir.path(),
        &[
            "guard_patrol.json",
            "guard_patrol.scenario.json",
            "subtrees/patrol.json",
            "mock_sketch.json",
            "chase_flee.json",
        ],
    );
    let p = |f: &str| dir.path().join(f).to_str().unwrap().to_owned();
    #[cfg(unix)]
    std::os::unix::fs::symlink(p("mock_sketch.json"), p("link.jsonl")).unwrap();
    let inputs = [
        "guard_patrol.json",
        "guard_patrol.scenario.json",
        "subtrees/patrol.json",
        "mock_sketch.json",
    ];
    let contents = || -> Vec<Vec<u8>> {
        inputs
            .iter()
            .map(|f| std::fs::read(p(f)).unwrap())
            .collect()
    };
    let other_spelling = format!("{}/subtrees/../mock_sketch.json", dir.path().display());
    let cases: Vec<(Vec<String>, String)> = vec![
        // The tree run alone, named as it is or another way.
        (vec![p("mock_sketch.json")], p("mock_sketch.json")),
        (vec![p("mock_sketch.json")], other_spelling),
        // A scenario, its agents' tree and the SubTree asset that tree includes.
        (
            vec![p("guard_patrol.scenario.json")],
            p("guard_patrol.scenario.json"),
        ),
        (
            vec![p("guard_patrol.scenario.json")],
            p("guard_patrol.json"),
        ),
        (
            vec![p("guard_patrol.scenario.json")],
            p("subtrees/patrol.json"),
        ),
        (
            vec![
                p("guard_patrol.json"),
                "--scenario".into(),
                p("guard_patrol.scenario.json"),
            ],
            p("subtrees/patrol.json"),
        ),
        // With breakpoints, the run goes another way.
        (
            vec![
                p("guard_patrol.scenario.json"),
                "--break".into(),
                "intercept".into(),
            ],
            p("guard_patrol.json"),
        ),
        #[cfg(unix)]
        (vec![p("mock_sketch.json")], p("link.jsonl")),
    ];
    for (run, trace) in cases {
        let before = contents();
        let mut args: Vec<&str> = vec!["run"];
        args.extend(run.iter().map(String::as_str));
        args.extend(["--steps", "3", "--trace", &trace]);
        let out = arbor(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(
            err.contains("error: not written: it would write over"),
            "{args:?}: {err}"
        );
        let after = contents();
        assert!(before == after, "{args:?} changed a file");
    }
    // A new path is written.
    let out = arbor(&[
        "run",
        &p("mock_sketch.json"),
        "--steps",
        "3",
        "--trace",
        &p("t.jsonl"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        std::fs::read_to_string(p("t.jsonl"))
            .unwrap()
            .contains("\"enter\"")
    );
}

#[test]
fn a_file_cut_short_is_told_by_its_header_and_its_place() {
    let dir = tempfile::tempdir().unwrap();
    for (content, says) in [
        // A scenario cut short is read as a scenario (its syntax error), not as a tree.
        (
            r#"{"format": "arbor.scenario", "arena": ["#,
            ":1:39: error: EOF while parsing a list",
        ),
        // A tree cut before its version: the cut, not a missing version.
        (
            r#"{"format": "arbor.tree", "#,
            ":1:25: error: EOF while parsing a value",
        ),
        // Whole, without a version: that.
        (
            r#"{"format": "arbor.tree", "nodes": []}"#,
            "it has no \"version\" header",
        ),
        // Another program's JSON: not an Arbor file, whatever else it has.
        (
            r#"{"format": "other", "colour": 1}"#,
            "its \"format\" is \"other\"",
        ),
    ] {
        let path = dir.path().join("cut.json");
        std::fs::write(&path, content).unwrap();
        let out = arbor(&["validate", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{content}");
        assert!(
            text(&out.stderr).contains(says),
            "{content}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn a_strict_cli_for_ci_no_hit_is_exit_3_warnings_can_be_denied_and_fmt_shows_its_diff() {
    // run --break: a breakpoint that never hits is exit 3, not success.
    let none = arbor(&[
        "run",
        "sample_trees/droid_arena.scenario.json",
        "--steps",
        "20",
        "--break",
        "root:interrupt",
    ]);
    assert_eq!(none.status.code(), Some(3), "{}", text(&none.stderr));
    assert!(text(&none.stdout).contains("no breakpoint hit in 20 steps"));
    // validate --deny-warnings: a file with warnings only fails the check.
    let warned = common::json_files(&repo().join("tests/fixtures/warnings"))
        .into_iter()
        .map(|p| rel(&p))
        .next()
        .expect("a fixture with warnings");
    let plain = arbor(&["validate", &warned]);
    assert_eq!(plain.status.code(), Some(0), "{}", text(&plain.stdout));
    assert!(text(&plain.stdout).contains("warning"));
    let denied = arbor(&["validate", "--deny-warnings", &warned]);
    assert_eq!(denied.status.code(), Some(1));
    assert!(
        text(&denied.stderr).contains("(denied)"),
        "{}",
        text(&denied.stderr)
    );
    // fmt --check --diff: what would change, as a unified diff; the file stays.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.json");
    let canonical = std::fs::read_to_string(repo().join("sample_trees/mock_sketch.json")).unwrap();
    let messy = canonical.replacen("\"version\": 1", "\"version\":    1", 1);
    assert_ne!(messy, canonical);
    std::fs::write(&file, &messy).unwrap();
    let out = arbor(&["fmt", "--check", "--diff", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let shown = text(&out.stdout);
    assert!(
        shown.contains("-  \"version\":    1,") && shown.contains("+  \"version\": 1,"),
        "{shown}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), messy);
    // --diff needs --check.
    let bad = arbor(&["fmt", "--diff", file.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(2));
}

/// `arbor run SCENARIO --steps STEPS --trace PATH` (and `extra`), which must succeed.
fn record(scenario: &str, steps: &str, trace: &Path, extra: &[&str]) {
    let mut args = vec![
        "run",
        scenario,
        "--steps",
        steps,
        "--trace",
        trace.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = arbor(&args);
    assert!(
        matches!(out.status.code(), Some(0 | 3)),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn run_writes_a_binary_trace_by_its_name_and_convert_turns_it_into_the_json_lines_one() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let scenario = "sample_trees/guard_patrol.scenario.json";
    record(scenario, "300", &p("t.jsonl"), &[]);
    record(scenario, "300", &p("t.arbtrace"), &[]);
    let (lines, binary) = (
        std::fs::read(p("t.jsonl")).unwrap(),
        std::fs::read(p("t.arbtrace")).unwrap(),
    );
    assert!(binary.starts_with(b"\x89ARBTRC\n"));
    assert!(
        binary.len() * 10 < lines.len(),
        "{} {}",
        binary.len(),
        lines.len()
    );
    // Each way, byte for byte.
    let out = arbor(&[
        "convert",
        p("t.arbtrace").to_str().unwrap(),
        p("back.jsonl").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(
        said.starts_with(&format!(
            "wrote {} (JSON Lines): ",
            p("back.jsonl").display()
        )) && said.contains(&format!(
            "{} bytes (the input: {})",
            lines.len(),
            binary.len()
        )),
        "{said}"
    );
    assert_eq!(std::fs::read(p("back.jsonl")).unwrap(), lines);
    let out = arbor(&[
        "convert",
        p("t.jsonl").to_str().unwrap(),
        p("again.arbtrace").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(p("again.arbtrace")).unwrap(), binary);
    // To standard output: the JSON Lines, what was written said on standard error.
    let out = arbor(&["convert", p("t.arbtrace").to_str().unwrap(), "-"]);
    assert_eq!(out.stdout, lines);
    assert!(text(&out.stderr).starts_with("wrote standard output (JSON Lines)"));
    // Never over its input, whatever the spelling.
    let over = format!("{}/./t.arbtrace", dir.path().display());
    let out = arbor(&["convert", p("t.arbtrace").to_str().unwrap(), &over]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("would write over"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(p("t.arbtrace")).unwrap(), binary);
    // A run stopped at a breakpoint writes its trace in binary too.
    let stop = ["--break", "intercept"];
    record(scenario, "300", &p("stop.jsonl"), &stop);
    record(scenario, "300", &p("stop.arbtrace"), &stop);
    let out = arbor(&["convert", p("stop.arbtrace").to_str().unwrap(), "-"]);
    assert_eq!(
        text(&out.stdout),
        std::fs::read_to_string(p("stop.jsonl")).unwrap()
    );
    // A trace is not run.
    let out = arbor(&["run", p("t.arbtrace").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("replay it with arbor edit --trace"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn validate_reads_traces_by_their_first_line_or_bytes_and_warns_of_a_cut_last_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let s = |name: &str| p(name).to_str().unwrap().to_owned();
    let scenario = "sample_trees/guard_patrol.scenario.json";
    record(scenario, "120", &p("t.jsonl"), &[]);
    record(scenario, "120", &p("t.arbtrace"), &[]);
    let (lines, binary) = (
        std::fs::read(p("t.jsonl")).unwrap(),
        std::fs::read(p("t.arbtrace")).unwrap(),
    );
    // Told by the header line and by the first bytes, whatever the name.
    std::fs::write(p("lines.log"), &lines).unwrap();
    std::fs::write(p("binary.dat"), &binary).unwrap();
    let out = arbor(&[
        "validate",
        &s("t.jsonl"),
        &s("t.arbtrace"),
        &s("lines.log"),
        &s("binary.dat"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "");
    assert!(text(&out.stderr).contains("checked 4 file(s): 0 error(s), 0 warning(s)"));
    // Cut mid-line, as a crash leaves it: a warning naming the file, the line and the
    // steps shown; --deny-warnings fails on it.
    let at = lines.len() * 2 / 3;
    let line = lines[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    std::fs::write(p("cut.jsonl"), &lines[..at]).unwrap();
    // The binary one loses its last byte: always inside an event (two thirds of the way may
    // fall between two).
    std::fs::write(p("cut.arbtrace"), &binary[..binary.len() - 1]).unwrap();
    let out = arbor(&["validate", &s("cut.jsonl"), &s("cut.arbtrace")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    let first = said.lines().next().unwrap();
    assert!(
        first.starts_with(&format!(
            "{}:{line}: warning: the last line was cut off: ",
            s("cut.jsonl")
        )) && first.ends_with(" steps shown"),
        "{said}"
    );
    assert!(
        said.contains(&format!("{}: byte ", s("cut.arbtrace"))),
        "{said}"
    );
    assert!(
        said.contains(": warning: the last event was cut off: "),
        "{said}"
    );
    let out = arbor(&["validate", "--deny-warnings", &s("cut.jsonl")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("1 warning(s) (denied)"),
        "{}",
        text(&out.stderr)
    );
    // A bad line in the middle is an error naming its line; unreadable, exit 2.
    let text_lines = String::from_utf8(lines.clone()).unwrap();
    let mut bad: Vec<&str> = text_lines.lines().collect();
    bad[5] = r#"{"step":1,"agent":"guard","event":"jump","node":"n"}"#;
    std::fs::write(p("bad.jsonl"), bad.join("\n")).unwrap();
    let mut mangled = binary.clone();
    let last = mangled.len() - 1;
    mangled[last] = 0x7f;
    std::fs::write(p("bad.arbtrace"), &mangled).unwrap();
    let out = arbor(&[
        "validate",
        &s("bad.jsonl"),
        &s("bad.arbtrace"),
        &s("t.jsonl"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let said = text(&out.stderr);
    assert!(
        said.contains(&format!(
            "{}:6: error: unknown event 'jump'",
            s("bad.jsonl")
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!("{}: error: byte ", s("bad.arbtrace"))),
        "{said}"
    );
    assert!(
        said.contains("checked 3 file(s): 0 error(s), 0 warning(s), 2 unreadable"),
        "{said}"
    );
    // A trace with no events says so.
    record(scenario, "0", &p("empty.jsonl"), &[]);
    let out = arbor(&["validate", &s("empty.jsonl")]);
    assert_eq!(
        text(&out.stdout),
        format!("{}: warning: the trace holds no events\n", s("empty.jsonl"))
    );
}

/// A BehaviorTree.CPP file (docs/BTCPP.md) through every command that takes a tree:
/// validated, run, formatted as the editor saves it, imported and exported; a broken one
/// named with its line and column and left as it is.
#[test]
fn a_behaviortree_cpp_file_is_validated_run_formatted_imported_and_exported() {
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("guard.xml");
    let original = r#"<?xml version="1.0" encoding="UTF-8"?>
<root BTCPP_format="4" main_tree_to_execute="Guard">
  <!-- keep me -->
  <BehaviorTree ID="Guard">
    <Fallback name="duty" _uid="7">
      <Sequence name="chase">
        <MockCondition script="F"/>
        <MockAction script="RS"/>
      </Sequence>
      <Repeat num_cycles="3">
        <MockAction script="S"/>
      </Repeat>
    </Fallback>
  </BehaviorTree>
</root>
"#;
    std::fs::write(&xml, original).unwrap();
    let path = xml.to_str().unwrap();
    let out = arbor(&["validate", "--deny-warnings", path]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let out = arbor(&["run", path, "--steps", "3", "--trace", "-"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains(
            r#""step":3,"agent":"guard","event":"exit","node":"repeat","status":"success""#
        ),
        "{}",
        text(&out.stdout)
    );
    // Written as read: fmt has nothing to do.
    let out = arbor(&["fmt", "--check", path]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let out = arbor(&["import", path]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json = dir.path().join("guard.json");
    let tree = arbor::io::load_tree(&json).unwrap();
    assert_eq!(tree.nodes().len(), 7);
    let back = dir.path().join("back.xml");
    let out = arbor(&[
        "export",
        json.to_str().unwrap(),
        "-o",
        back.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let exported = std::fs::read_to_string(&back).unwrap();
    assert!(
        exported.contains(r#"<Repeat num_cycles="3">"#),
        "{exported}"
    );
    // The wrong way round, and over the input, are refused.
    assert_eq!(arbor(&["export", path]).status.code(), Some(2));
    let out = arbor(&["import", path, "-o", path]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&xml).unwrap(), original);
    // A broken file: its place, and it is not touched by fmt.
    let broken = dir.path().join("broken.xml");
    std::fs::write(
        &broken,
        "<root>\n  <BehaviorTree ID=\"A\">\n    <Sequence>\n</root>\n",
    )
    .unwrap();
    let out = arbor(&["fmt", broken.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("broken.xml:4:"),
        "{}",
        text(&out.stderr)
    );
    let out = arbor(&["validate", broken.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stdout).contains("broken.xml:4:") || text(&out.stderr).contains("broken.xml:4:")
    );
}

/// `arbor import` of a file with kinds of its own: they become a node library beside the
/// tree, listed in the folder's project file (made, or added to), as the file's
/// `<TreeNodesModel>` describes them or else as its nodes use them; the tree then
/// validates without an unknown kind and runs, its own actions and conditions as their
/// stand-ins.
/// docs/BTCPP.md, "Format 3": `validate` says what reading a format 3 file changes, by
/// line, and `fmt` writes it as format 4.
#[test]
fn a_format_3_file_is_validated_with_notes_and_formatted_as_format_4() {
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("old.xml");
    std::fs::write(
        &xml,
        "<root BTCPP_format=\"3\">\n  <BehaviorTree ID=\"Old\">\n    <SequenceStar><AlwaysSuccess/><Sleep msec=\"100\"/></SequenceStar>\n  </BehaviorTree>\n</root>\n",
    )
    .unwrap();
    let out = arbor(&["validate", xml.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let name = xml.display();
    assert!(
        text(&out.stderr).starts_with(&format!(
            "note: {name}: a BehaviorTree.CPP 3 file (BTCPP_format=\"3\"): read as format 4, and saved so\nnote: {name}: line 3: <SequenceStar> is <SequenceWithMemory>\n"
        )),
        "{}",
        text(&out.stderr)
    );
    let out = arbor(&["fmt", xml.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let written = std::fs::read_to_string(&xml).unwrap();
    assert!(
        written.contains("BTCPP_format=\"4\"") && written.contains("<SequenceWithMemory>"),
        "{written}"
    );
}

/// docs/BTCPP.md, "SubTrees and includes": an import writes each tree the file's
/// SubTrees run (of the file, of an included file) as an Arbor tree of its own beside it,
/// the SubTrees naming those files, and the kinds of all of them in one library; the
/// imported trees run as the XML does.
#[test]
fn an_import_writes_the_trees_its_subtrees_run_and_they_run_the_same() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("lib")).unwrap();
    std::fs::write(
        dir.path().join("lib/moves.xml"),
        r#"<root BTCPP_format="4">
  <BehaviorTree ID="Step">
    <Sequence><Stride length="{len}"/><MockAction script="RS"/></Sequence>
  </BehaviorTree>
</root>"#,
    )
    .unwrap();
    let xml = dir.path().join("walk.xml");
    std::fs::write(
        &xml,
        r#"<root BTCPP_format="4" main_tree_to_execute="Walk">
  <include path="lib/moves.xml"/>
  <BehaviorTree ID="Walk">
    <Sequence>
      <SubTree ID="Twice" len="3"/>
      <SubTree ID="Step" len="{stride}" _autoremap="true"/>
      <SubTree ID="Ghost"/>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Twice">
    <Repeat num_cycles="2"><SubTree ID="Step" _autoremap="true"/></Repeat>
  </BehaviorTree>
</root>"#,
    )
    .unwrap();
    let out = arbor(&["import", xml.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let wrote: Vec<String> = text(&out.stdout)
        .lines()
        .map(|l| l.rsplit('/').next().unwrap().to_owned())
        .collect();
    assert_eq!(
        wrote,
        [
            "walk.json",
            "Twice.json",
            "Step.json",
            "walk.nodes.json (1 kind of the file's own)",
            "arbor.project.json"
        ]
    );
    assert!(
        text(&out.stderr).contains("[sub_tree_3] its tree '#Ghost' is not imported (no <BehaviorTree ID=\"Ghost\"> in walk.xml"),
        "{}",
        text(&out.stderr)
    );
    let walk = arbor::io::load_tree(&dir.path().join("walk.json")).unwrap();
    let assets: Vec<String> = walk
        .nodes()
        .iter()
        .filter_map(|n| n.fields.get("asset").map(|a| a.to_string()))
        .collect();
    assert_eq!(assets, ["\"Twice.json\"", "\"Step.json\"", "\"#Ghost\""]);
    // Without the Ghost, the imported trees run as the file does.
    let drop_ghost = |path: &Path, from: &str| {
        let t = std::fs::read_to_string(path).unwrap();
        std::fs::write(path, t.replace(from, "")).unwrap();
    };
    drop_ghost(&xml, r#"<SubTree ID="Ghost"/>"#);
    let out = arbor(&["import", xml.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json = dir.path().join("walk.json");
    let run = |path: &Path| {
        let out = arbor(&[
            "run",
            path.to_str().unwrap(),
            "--steps",
            "12",
            "--trace",
            "-",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stdout)
            .lines()
            .filter(|l| l.contains("\"execute\""))
            .map(|l| {
                l.split("\"node\":")
                    .nth(1)
                    .unwrap()
                    .split(',')
                    .next()
                    .unwrap()
                    .to_owned()
            })
            .collect::<Vec<_>>()
    };
    let (from_xml, from_json) = (run(&xml), run(&json));
    assert!(from_xml.len() >= 6, "{from_xml:?}");
    assert_eq!(from_xml, from_json);
}

/// docs/BTCPP.md, "Port types": a model's port types are its kind's field types. Imported,
/// the library's fields are typed and the tree's values are numbers and bools; the XML
/// then validates against them (a value that is not its type is an error naming the
/// node), runs, and `fmt` leaves each value as written.
#[test]
fn an_imports_port_types_are_field_types_and_the_xml_keeps_its_values_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("robot.xml");
    let original = r#"<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence>
      <MoveBase goal="1;2;3" speed="0.50" retries="3" careful="True" timeout="1500"/>
      <IsBatteryOk min_level="20"/>
    </Sequence>
  </BehaviorTree>
  <TreeNodesModel>
    <Action ID="MoveBase">
      <input_port name="goal" type="Pose2D">Where to go</input_port>
      <input_port name="speed" type="double" default="1.0">m/s</input_port>
      <input_port name="retries" type="unsigned int" default="2"/>
      <input_port name="careful" type="bool"/>
      <input_port name="timeout" type="std::chrono::milliseconds"/>
      <input_port name="tries" type="unsigned int" default="-1"/>
    </Action>
    <Condition ID="IsBatteryOk">
      <input_port name="min_level" type="float" default="numeric_limits&lt;double&gt;::infinity()"/>
    </Condition>
  </TreeNodesModel>
</root>
"#;
    std::fs::write(&xml, original).unwrap();
    let out = arbor(&["import", xml.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let library: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("robot.nodes.json")).unwrap(),
    )
    .unwrap();
    let fields = |kind: &str| -> Vec<(String, String, serde_json::Value)> {
        let kinds = library["kinds"].as_array().unwrap();
        let k = kinds.iter().find(|k| k["kind"] == kind).unwrap();
        k["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["name"].as_str().unwrap().to_owned(),
                    f["type"].as_str().unwrap().to_owned(),
                    f["default"].clone(),
                )
            })
            .collect()
    };
    assert_eq!(
        fields("MoveBase"),
        [
            ("goal".into(), "text".into(), serde_json::Value::Null),
            ("speed".into(), "float".into(), serde_json::json!(1.0)),
            ("retries".into(), "int".into(), serde_json::json!(2)),
            ("careful".into(), "bool".into(), serde_json::Value::Null),
            ("timeout".into(), "int".into(), serde_json::Value::Null),
            // Out of its type's range: text, as written.
            ("tries".into(), "text".into(), serde_json::json!("-1")),
        ]
    );
    // A default that does not read as its type leaves the port text, as written.
    assert_eq!(
        fields("IsBatteryOk"),
        [(
            "min_level".into(),
            "text".into(),
            serde_json::json!("numeric_limits<double>::infinity()")
        )]
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("robot.json")).unwrap())
            .unwrap();
    let move_base = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["kind"] == "MoveBase")
        .unwrap();
    assert_eq!(
        move_base["fields"],
        serde_json::json!({"goal": "1;2;3", "speed": 0.5, "retries": 3, "careful": true, "timeout": 1500})
    );
    // The XML, with the project the import made: valid, runs, and formats as written.
    let path = xml.to_str().unwrap();
    let out = arbor(&["validate", path]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let out = arbor(&["run", path, "--steps", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = arbor(&["fmt", path]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let formatted = std::fs::read_to_string(&xml).unwrap();
    for written in [r#"speed="0.50""#, r#"careful="True""#, r#"timeout="1500""#] {
        assert!(formatted.contains(written), "{written}: {formatted}");
    }
    // A value that is not of its port's type is an error that names the node.
    std::fs::write(&xml, original.replace(r#"speed="0.50""#, r#"speed="fast""#)).unwrap();
    let out = arbor(&["validate", path]);
    assert!(
        text(&out.stdout).contains("[move_base] field 'speed' must be a number, not text"),
        "{}",
        text(&out.stdout)
    );
    std::fs::write(&xml, original.replace(r#"retries="3""#, r#"retries="-3""#)).unwrap();
    let out = arbor(&["validate", path]);
    assert!(
        text(&out.stdout).contains(
            "[move_base] field 'retries' is -3, but must be a whole number from 0 to 4294967295"
        ),
        "{}",
        text(&out.stdout)
    );
}

/// docs/BTCPP.md, "The file's own models": with no project, a file's `<TreeNodesModel>`
/// defines the kinds it describes, so the file validates and runs as it is, its values
/// read in their ports' types. A project's kind of the same name is the one used.
#[test]
fn a_files_own_models_define_its_kinds_where_no_project_does() {
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("robot.xml");
    let original = r#"<root BTCPP_format="4">
  <BehaviorTree ID="Main">
    <Sequence>
      <IsBatteryOk min_level="20"/>
      <MoveBase speed="0.50"/>
    </Sequence>
  </BehaviorTree>
  <TreeNodesModel>
    <Condition ID="IsBatteryOk"><input_port name="min_level" type="unsigned int"/></Condition>
    <Action ID="MoveBase"><input_port name="speed" type="double"/></Action>
  </TreeNodesModel>
</root>
"#;
    std::fs::write(&xml, original).unwrap();
    let path = xml.to_str().unwrap();
    let out = arbor(&["validate", path]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let out = arbor(&["run", path, "--steps", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("2 success"),
        "{}",
        text(&out.stdout)
    );
    let out = arbor(&["coverage", path, "--steps", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("4 of 4 nodes entered"),
        "{}",
        text(&out.stdout)
    );
    std::fs::write(
        &xml,
        original.replace(r#"min_level="20""#, r#"min_level="low""#),
    )
    .unwrap();
    let out = arbor(&["validate", path]);
    assert!(
        text(&out.stdout).contains("[is_battery_ok] field 'min_level' must be a whole number"),
        "{}",
        text(&out.stdout)
    );
    // The project's MoveBase, which takes a text, is the one used.
    std::fs::write(
        dir.path().join("arbor.project.json"),
        r#"{"format": "arbor.project", "version": 1, "nodes": ["game.nodes.json"]}"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("game.nodes.json"),
        r#"{"format": "arbor.nodes", "version": 1, "library": "game", "kinds": [
          {"kind": "IsBatteryOk", "category": "condition", "fields": [{"name": "min_level", "type": "text"}]}]}"#,
    )
    .unwrap();
    let out = arbor(&["validate", path]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

#[test]
fn an_import_writes_the_files_own_kinds_as_a_node_library_of_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("patrol-2.xml");
    std::fs::write(
        &xml,
        r#"<root BTCPP_format="4">
  <BehaviorTree ID="Main">
    <Sequence>
      <CheckBattery/>
      <Action ID="MoveBase" goal="1;2;3"/>
      <SaySomething message="{msg}"/>
      <Blink times="2"/>
    </Sequence>
  </BehaviorTree>
  <TreeNodesModel>
    <Condition ID="CheckBattery"/>
    <Action ID="MoveBase">
      <input_port name="goal" type="Pose2D">Where to go</input_port>
    </Action>
    <Action ID="SaySomething">
      <input_port name="message" type="std::string" default="hello"/>
    </Action>
  </TreeNodesModel>
</root>
"#,
    )
    .unwrap();
    let out = arbor(&["import", xml.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let library = dir.path().join("patrol_2.nodes.json");
    let project = dir.path().join("arbor.project.json");
    assert_eq!(
        text(&out.stdout),
        format!(
            "wrote {}\nwrote {} (4 kinds of the file's own)\nwrote {}\n",
            dir.path().join("patrol-2.json").display(),
            library.display(),
            project.display()
        )
    );
    let (lib, problems) =
        arbor::io::parse_library(&std::fs::read_to_string(&library).unwrap(), &library).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    let kinds: Vec<(&str, &str)> = lib
        .kinds
        .iter()
        .map(|k| (k.name.as_str(), k.category.label()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("CheckBattery", "Condition"),
            ("MoveBase", "Leaf"),
            ("SaySomething", "Leaf"),
            ("Blink", "Leaf")
        ]
    );
    let field = |kind: usize, name: &str| {
        lib.kinds[kind]
            .own_fields()
            .find(|f| f.name == name)
            .cloned()
            .unwrap()
    };
    assert_eq!(
        field(1, "goal").help,
        "BehaviorTree.CPP input port of type Pose2D: Where to go"
    );
    assert_eq!(
        field(2, "message").default,
        Some(arbor::model::Value::Text("hello".into()))
    );
    assert_eq!(field(3, "times").help, "Set by the file's nodes.");
    // The tree, and the file itself, now know every kind.
    let json = dir.path().join("patrol-2.json");
    for file in [&json, &xml] {
        let out = arbor(&["validate", file.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
        assert!(
            !text(&out.stdout).contains("unknown-kind"),
            "{}",
            text(&out.stdout)
        );
    }
    let out = arbor(&[
        "run",
        json.to_str().unwrap(),
        "--steps",
        "4",
        "--trace",
        "-",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains(r#""event":"exit","node":"blink","status":"success""#),
        "{}",
        text(&out.stdout)
    );
    // A second file into the same folder: only the kinds still unknown, added to the
    // project.
    let other = dir.path().join("other.xml");
    std::fs::write(
        &other,
        r#"<root BTCPP_format="4"><BehaviorTree ID="B"><Sequence><Blink/><Wave/></Sequence></BehaviorTree></root>"#,
    )
    .unwrap();
    let out = arbor(&["import", other.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).ends_with(&format!(
            "(1 kind of the file's own)\nadded other.nodes.json to {}\n",
            project.display()
        )),
        "{}",
        text(&out.stdout)
    );
    let listed =
        arbor::io::parse_project(&std::fs::read_to_string(&project).unwrap(), &project).unwrap();
    assert_eq!(listed.nodes, ["patrol_2.nodes.json", "other.nodes.json"]);
}
