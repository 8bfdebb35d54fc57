//! Files and the terminal, through the `arbor` binary: no output writes over an input or
//! into a special file, special files where a project file is looked for are named,
//! nothing from a file reaches the terminal raw, and mistakes are said in words.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// Runs `arbor ARGS` in `dir`; a run that takes longer than 60 s (blocked on a FIFO, say)
/// is killed and fails the test.
fn arbor_in(dir: &Path, args: &[&str]) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // Its output read as it comes (a full pipe would stop it), by a thread of its own.
    let (done, output) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(child.wait_with_output()));
    match output.recv_timeout(Duration::from_secs(60)) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            panic!("arbor {args:?} did not end within 60 s");
        }
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A folder with the mock sketch, its behaviour test and the guard patrol's files.
fn samples() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("subtrees")).unwrap();
    common::copy_samples(
        dir.path(),
        &[
            "mock_sketch.json",
            "mock_sketch.test.json",
            "guard_patrol.json",
            "guard_patrol.scenario.json",
            "guard_patrol.test.json",
            "subtrees/patrol.json",
            "chase_flee.json",
        ],
    );
    dir
}

/// Records `t.jsonl` in `dir`, a run of the mock sketch.
fn traced(dir: &Path) {
    let args = [
        "run",
        "mock_sketch.json",
        "--steps",
        "3",
        "--trace",
        "t.jsonl",
    ];
    let out = arbor_in(dir, &args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[cfg(unix)]
fn is_fifo(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(path)
        .unwrap()
        .file_type()
        .is_fifo()
}

/// Every file below `dir` with its bytes (FIFOs and links as their kind).
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let kind = e.file_type().unwrap();
            if kind.is_dir() {
                stack.push(e.path());
            } else if kind.is_file() {
                out.push((e.path(), std::fs::read(e.path()).unwrap()));
            } else {
                out.push((e.path(), format!("{kind:?}").into_bytes()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_junit_report_never_writes_over_a_file_the_tests_read() {
    let dir = samples();
    let before = snapshot(dir.path());
    for (test, report) in [
        ("mock_sketch.test.json", "mock_sketch.json"),
        ("mock_sketch.test.json", "mock_sketch.test.json"),
        ("mock_sketch.test.json", "subtrees/../mock_sketch.json"),
        ("guard_patrol.test.json", "guard_patrol.scenario.json"),
        ("guard_patrol.test.json", "guard_patrol.json"),
        ("guard_patrol.test.json", "subtrees/patrol.json"),
        (".", "mock_sketch.json"),
    ] {
        let out = arbor_in(dir.path(), &["test", test, "--junit", report]);
        assert_eq!(out.status.code(), Some(2), "{test} --junit {report}");
        let err = text(&out.stderr);
        assert!(
            err.contains(&format!(
                "{report}: error: not written: it would write over"
            )) && err.contains("which this command reads"),
            "{test} --junit {report}: {err}"
        );
        // Refused before anything ran.
        assert!(text(&out.stdout).is_empty(), "{}", text(&out.stdout));
        assert!(before == snapshot(dir.path()), "{test} --junit {report}");
    }
    // A hard link to the tree is the tree.
    std::fs::hard_link(
        dir.path().join("mock_sketch.json"),
        dir.path().join("same.xml"),
    )
    .unwrap();
    let out = arbor_in(
        dir.path(),
        &["test", "mock_sketch.test.json", "--junit", "same.xml"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    // Another path is written.
    let out = arbor_in(
        dir.path(),
        &["test", "mock_sketch.test.json", "--junit", "report.xml"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        std::fs::read_to_string(dir.path().join("report.xml"))
            .unwrap()
            .contains("<testsuites")
    );
}

#[test]
fn a_trace_never_writes_over_the_project_or_its_libraries() {
    let dir = tempfile::tempdir().unwrap();
    let game = common::repo().join("examples/my_game");
    std::fs::create_dir(dir.path().join("ai")).unwrap();
    for f in ["arbor.project.json", "guard.json", "ai/my_game.nodes.json"] {
        std::fs::copy(game.join(f), dir.path().join(f)).unwrap();
    }
    let before = snapshot(dir.path());
    for trace in ["arbor.project.json", "ai/my_game.nodes.json"] {
        let out = arbor_in(
            dir.path(),
            &["run", "guard.json", "--steps", "3", "--trace", trace],
        );
        assert_eq!(out.status.code(), Some(2), "--trace {trace}");
        let err = text(&out.stderr);
        assert!(err.contains("would write over"), "{err}");
        assert!(before == snapshot(dir.path()), "--trace {trace}");
    }
}

#[cfg(unix)]
#[test]
fn reports_traces_and_conversions_refuse_a_fifo_and_leave_it_a_fifo() {
    let dir = samples();
    let fifo = dir.path().join("pipe");
    common::mkfifo(&fifo);
    std::os::unix::fs::symlink("pipe", dir.path().join("to_pipe")).unwrap();
    std::os::unix::fs::symlink("nowhere", dir.path().join("dangling")).unwrap();
    traced(dir.path());
    for target in ["pipe", "to_pipe", "subtrees", "dangling"] {
        for args in [
            vec!["test", "mock_sketch.test.json", "--junit", target],
            vec!["run", "mock_sketch.json", "--steps", "3", "--trace", target],
            vec!["convert", "t.jsonl", target],
        ] {
            let out = arbor_in(dir.path(), &args);
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            let err = text(&out.stderr);
            let says = match target {
                "subtrees" => "it is a folder, not a regular file",
                "dangling" => "it is a symbolic link to nowhere, which does not exist",
                _ => "it is a FIFO (named pipe), not a regular file",
            };
            assert!(
                err.contains(&format!("{target}: error: not written: {says}")),
                "{args:?}: {err}"
            );
            assert!(is_fifo(&fifo), "{args:?} replaced the FIFO");
            assert!(
                std::fs::symlink_metadata(dir.path().join("dangling"))
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
            assert!(!dir.path().join("nowhere").exists());
        }
    }
}

#[cfg(unix)]
#[test]
fn output_sent_to_a_file_the_command_reads_is_refused() {
    let dir = samples();
    traced(dir.path());
    let before = snapshot(dir.path());
    for (args, file) in [
        (
            vec!["coverage", "mock_sketch.json", "--steps", "3", "--json"],
            "mock_sketch.json",
        ),
        (
            vec!["run", "mock_sketch.json", "--steps", "3", "--trace", "-"],
            "mock_sketch.json",
        ),
        (vec!["convert", "t.jsonl", "-"], "t.jsonl"),
    ] {
        // `>> FILE`: appended to, as a shell does.
        let append = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join(file))
            .unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_arbor"))
            .args(&args)
            .current_dir(dir.path())
            .stdout(append)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(
            err.contains("standard output: error: not written: it is")
                && err.contains(&format!("{file}, which this command reads")),
            "{args:?}: {err}"
        );
        assert!(before == snapshot(dir.path()), "{args:?} >> {file}");
    }
}

/// Puts a UTF-8 byte-order mark before the text of `path`.
fn with_bom(path: &Path) {
    let mut bytes = b"\xef\xbb\xbf".to_vec();
    bytes.extend(std::fs::read(path).unwrap());
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_byte_order_mark_is_skipped_in_every_file_arbor_reads_and_fmt_removes_it() {
    let dir = samples();
    let game = common::repo().join("examples/my_game");
    std::fs::create_dir(dir.path().join("ai")).unwrap();
    for f in ["arbor.project.json", "guard.json", "ai/my_game.nodes.json"] {
        std::fs::copy(game.join(f), dir.path().join(f)).unwrap();
    }
    let files = [
        "mock_sketch.json",
        "mock_sketch.test.json",
        "guard_patrol.scenario.json",
        "subtrees/patrol.json",
        "arbor.project.json",
        "ai/my_game.nodes.json",
        "guard.json",
    ];
    for f in files {
        with_bom(&dir.path().join(f));
    }
    let mut args = vec!["validate"];
    args.extend(files);
    let out = arbor_in(dir.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for args in [
        vec!["test", "mock_sketch.test.json"],
        vec!["run", "guard_patrol.scenario.json", "--steps", "20"],
        vec!["run", "guard.json", "--steps", "5"],
        vec!["coverage", "mock_sketch.test.json"],
    ] {
        let out = arbor_in(dir.path(), &args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    // A coverage file too (View > Coverage from File… reads it so).
    let out = arbor_in(dir.path(), &["coverage", "mock_sketch.json", "--json"]);
    let coverage = dir.path().join("coverage.json");
    std::fs::write(
        &coverage,
        [b"\xef\xbb\xbf".as_slice(), &out.stdout].concat(),
    )
    .unwrap();
    let read = arbor::io::read_text(&coverage).unwrap();
    arbor::check::Coverage::parse(&read, &coverage).unwrap();
    // Not canonical: fmt lists it and writes it without the mark.
    let out = arbor_in(dir.path(), &["fmt", "--check", "mock_sketch.json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let out = arbor_in(dir.path(), &["fmt", "mock_sketch.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read(dir.path().join("mock_sketch.json")).unwrap(),
        std::fs::read(common::repo().join("sample_trees/mock_sketch.json")).unwrap()
    );
}

#[test]
fn settings_with_a_byte_order_mark_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let file = arbor::io::SettingsFile::new(dir.path().join("settings.json"));
    let settings = arbor::io::Settings {
        zoom: 1.5,
        ..Default::default()
    };
    file.save(&settings).unwrap();
    with_bom(file.path());
    assert_eq!(file.load(), (settings, vec![]));
}

#[cfg(unix)]
#[test]
fn a_project_file_that_is_no_regular_file_is_named_not_passed_over() {
    // A project above, which a special file below must not hand the tree to.
    let dir = tempfile::tempdir().unwrap();
    let game = common::repo().join("examples/my_game");
    std::fs::create_dir_all(dir.path().join("ai")).unwrap();
    std::fs::create_dir_all(dir.path().join("sub")).unwrap();
    for f in ["arbor.project.json", "ai/my_game.nodes.json"] {
        std::fs::copy(game.join(f), dir.path().join(f)).unwrap();
    }
    std::fs::copy(game.join("guard.json"), dir.path().join("sub/guard.json")).unwrap();
    let sub = dir.path().join("sub");
    let out = arbor_in(&sub, &["validate", "guard.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let here = sub.join("arbor.project.json");
    /// What is put where the project file is looked for, how, and what is said of it.
    type Case<'a> = (&'a str, &'a dyn Fn(&Path), &'a str);
    let cases: [Case<'_>; 4] = [
        (
            "a FIFO",
            &|p| common::mkfifo(p),
            "it is a FIFO (named pipe), not a regular file",
        ),
        (
            "a folder",
            &|p| std::fs::create_dir(p).unwrap(),
            "it is a folder, not a file",
        ),
        (
            "a dangling link",
            &|p| std::os::unix::fs::symlink("gone.json", p).unwrap(),
            "it is a symbolic link to gone.json, which does not exist",
        ),
        (
            "a link loop",
            &|p| std::os::unix::fs::symlink("arbor.project.json", p).unwrap(),
            "it is a symbolic link to arbor.project.json, which cannot be followed",
        ),
    ];
    for (what, make, says) in cases {
        make(&here);
        for args in [
            vec!["validate", "guard.json"],
            vec!["kinds"],
            vec!["run", "guard.json", "--steps", "3"],
        ] {
            let out = arbor_in(&sub, &args);
            let all = text(&out.stdout) + &text(&out.stderr);
            assert!(
                all.contains(&format!(
                    "{}: error: cannot read the project file: {says}",
                    here.display()
                )),
                "{what}, {args:?}: {all}"
            );
            assert!(!all.contains("no arbor.project.json was found"), "{all}");
            if args[0] == "validate" {
                assert_eq!(out.status.code(), Some(2), "{what}: {all}");
            }
        }
        if here.is_dir() {
            std::fs::remove_dir(&here).unwrap();
        } else {
            std::fs::remove_file(&here).unwrap();
        }
    }
}

/// Whether `bytes` hold a control character a terminal acts on (any C0 control but the
/// line feed and the tab, DEL, or a C1 control).
fn has_control(bytes: &[u8]) -> bool {
    text(bytes)
        .chars()
        .any(|c| (c.is_control() && c != '\n' && c != '\t') || ('\u{80}'..='\u{9f}').contains(&c))
}

#[test]
fn escape_sequences_in_files_never_reach_the_terminal_raw() {
    let dir = tempfile::tempdir().unwrap();
    let title = r"E\u001b]0;PWNED\u0007";
    let clear = r"\u001b[2J\u001b[H";
    std::fs::write(
        dir.path().join("t.json"),
        format!(
            r#"{{"format": "arbor.tree", "version": 1, "nodes": [
  {{"id": "root", "kind": "Root", "inputs": {{"child": ["{title}"]}}}},
  {{"id": "{title}", "kind": "Loud{clear}", "title": "{clear}"}}]}}"#
        ),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("lib.nodes.json"),
        format!(
            r#"{{"format": "arbor.nodes", "version": 1, "library": "lib", "kinds": [
  {{"kind": "Loud", "category": "leaf", "doc": "{clear}clears the screen"}},
  {{"kind": "Bad{title}", "category": "leaf"}}]}}"#
        ),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("arbor.project.json"),
        r#"{"format": "arbor.project", "version": 1, "nodes": ["lib.nodes.json"]}"#,
    )
    .unwrap();
    common::copy_samples(dir.path(), &["mock_sketch.json"]);
    std::fs::write(
        dir.path().join("e.test.json"),
        format!(
            r#"{{"format": "arbor.test", "version": 1, "tree": "mock_sketch.json", "steps": 5,
  "expect": [{{"name": "{title}", "enters": "alarm"}}, {{"name": "{clear}", "enters": "{title}"}}]}}"#
        ),
    )
    .unwrap();
    for args in [
        vec!["validate", "t.json"],
        vec!["validate", "lib.nodes.json"],
        vec!["kinds"],
        vec!["run", "t.json"],
        vec!["test", "e.test.json"],
        vec!["fmt", "--check", "--diff", "t.json"],
    ] {
        let out = arbor_in(dir.path(), &args);
        assert!(out.status.code().is_some(), "{args:?}");
        let all = [out.stdout, out.stderr].concat();
        assert!(!has_control(&all), "{args:?}: {:?}", text(&all));
        assert!(
            text(&all).contains(r"\u001b"),
            "{args:?} says nothing of it: {}",
            text(&all)
        );
    }
}

#[test]
fn repeated_and_huge_findings_are_capped() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("ai")).unwrap();
    std::fs::copy(
        common::repo().join("examples/my_game/ai/my_game.nodes.json"),
        dir.path().join("ai/lib.nodes.json"),
    )
    .unwrap();
    // One library listed 100,000 ways.
    let ways: Vec<String> = (0..100_000)
        .map(|i| {
            let way = "./".repeat(i % 10) + &"x/../".repeat(i / 10 % 10);
            format!("\"ai/{way}lib.nodes.json\"")
        })
        .collect();
    std::fs::write(
        dir.path().join("arbor.project.json"),
        format!(
            r#"{{"format": "arbor.project", "version": 1, "nodes": [{}]}}"#,
            ways.join(", ")
        ),
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("ai/x")).unwrap();
    let out = arbor_in(dir.path(), &["validate", "arbor.project.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(
        said.contains("lists the node library \"ai/lib.nodes.json\" 100000 times, also as")
            && said.contains("and 99996 more; it is read once"),
        "{said}"
    );
    // Fifty unknown kinds of 100 KB each: each said, none in full.
    let nodes: Vec<String> = (0..50)
        .map(|i| format!(r#"{{"id": "n{i}", "kind": "K{i}{}"}}"#, "k".repeat(100_000)))
        .collect();
    let children: Vec<String> = (0..50).map(|i| format!("\"n{i}\"")).collect();
    std::fs::write(
        dir.path().join("huge.json"),
        format!(
            r#"{{"format": "arbor.tree", "version": 1, "nodes": [
  {{"id": "root", "kind": "Root", "inputs": {{"child": ["s"]}}}},
  {{"id": "s", "kind": "Sequence", "inputs": {{"children": [{}]}}}},
  {}]}}"#,
            children.join(", "),
            nodes.join(",\n  ")
        ),
    )
    .unwrap();
    let out = arbor_in(dir.path(), &["validate", "huge.json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert_eq!(said.matches("(unknown-kind)").count(), 50, "{said}");
    assert!(said.contains("kkk… (100002 bytes)"), "{said}");
    assert!(said.len() < 50 * 1024, "{} bytes", said.len());
}

#[test]
fn a_coverage_file_that_contradicts_itself_is_refused_with_the_reason() {
    let file = Path::new("c.json");
    let with = |trees: &str| {
        format!(
            r#"{{"format": "arbor.coverage", "version": 1, "runs": 1, "steps": 10, "trees": [{trees}]}}"#
        )
    };
    let node = |id: &str, e: u64, s: u64, f: u64, a: u64| {
        format!(
            r#"{{"id": "{id}", "entered": {e}, "succeeded": {s}, "failed": {f}, "aborted": {a}}}"#
        )
    };
    let tree = |path: &str, nodes: &[String]| {
        format!(r#"{{"tree": "{path}", "nodes": [{}]}}"#, nodes.join(", "))
    };
    let good = tree("t.json", &[node("root", 5, 2, 3, 0), node("a", 4, 1, 1, 2)]);
    arbor::check::Coverage::parse(&with(&good), file).unwrap();
    for (trees, says) in [
        (
            format!("{good}, {good}"),
            "c.json: the tree t.json is counted twice",
        ),
        (
            tree("t.json", &[node("a", 1, 1, 0, 0), node("a", 1, 0, 1, 0)]),
            "c.json: tree t.json: node 'a': counted twice",
        ),
        (
            tree("t.json", &[node("a", 1, 2, 0, 0)]),
            "c.json: tree t.json: node 'a': succeeded 2 times but was entered only 1",
        ),
        (
            tree("t.json", &[node("a", 3, 2, 1, 1)]),
            "c.json: tree t.json: node 'a': it exited 4 times (succeeded, failed, aborted or skipped) but was entered only 3",
        ),
        (
            tree("t.json", &[node("a", u64::MAX, u64::MAX, u64::MAX, 0)]),
            "it exited 36893488147419103230 times",
        ),
    ] {
        let e = arbor::check::Coverage::parse(&with(&trees), file).unwrap_err();
        assert!(e.contains(says), "{e}");
    }
    // A count of the wrong sort, in words.
    let e = arbor::check::Coverage::parse(
        &with(&tree(
            "t.json",
            &[node("a", 1, 0, 0, 0).replace("\"entered\": 1", "\"entered\": 1.5")],
        )),
        file,
    )
    .unwrap_err();
    assert!(
        e.contains("\"entered\" must be a whole number ≥ 0, not 1.5"),
        "{e}"
    );
}

#[test]
fn numbers_of_the_wrong_sort_in_a_test_file_are_said_in_words() {
    let dir = samples();
    let test = std::fs::read_to_string(dir.path().join("mock_sketch.test.json")).unwrap();
    for (from, to, says) in [
        (
            "\"steps\": 30",
            "\"steps\": 1e2",
            "mock_sketch.test.json:6: error: \"steps\" must be a whole number ≥ 0, not 1e2 (write it 100)",
        ),
        (
            "\"steps\": 30",
            "\"steps\": -1",
            "mock_sketch.test.json:6: error: \"steps\" must be a whole number ≥ 0, not -1",
        ),
        (
            "\"at_least\": 5",
            "\"at_least\": 1.5",
            "error: expectation 'runs complete with success': \"at_least\" must be a whole number ≥ 0, not 1.5",
        ),
        (
            "\"step\": 12",
            "\"step\": 12.5",
            "mock_sketch.test.json:9: error: trigger: \"step\" must be a whole number ≥ 0, not 12.5",
        ),
    ] {
        assert!(test.contains(from));
        std::fs::write(
            dir.path().join("mock_sketch.test.json"),
            test.replacen(from, to, 1),
        )
        .unwrap();
        let out = arbor_in(dir.path(), &["test", "mock_sketch.test.json"]);
        assert_eq!(out.status.code(), Some(2), "{to}");
        let said = text(&out.stdout);
        assert!(said.contains(says), "{to}: {said}");
    }
}

#[test]
fn huge_numbers_are_printed_in_scientific_notation() {
    let dir = samples();
    let out = arbor_in(
        dir.path(),
        &["run", "mock_sketch.json", "--steps", "2", "--dt", "1e308"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("2 steps of 1e308 s"),
        "{}",
        text(&out.stdout)
    );
    let out = arbor_in(dir.path(), &["run", "mock_sketch.json", "--dt", "-1e308"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--dt must be a positive number of seconds, not -1e308"),
        "{}",
        text(&out.stderr)
    );
    common::copy_samples(dir.path(), &["door_room.json", "door_room.scenario.json"]);
    let scenario = std::fs::read_to_string(dir.path().join("door_room.scenario.json")).unwrap();
    let huge = scenario.replacen(
        "\"tree\": \"door_room.json\"",
        "\"tree\": \"door_room.json\", \"health\": 1e300",
        1,
    );
    assert_ne!(huge, scenario);
    std::fs::write(dir.path().join("huge.scenario.json"), huge).unwrap();
    let out = arbor_in(
        dir.path(),
        &[
            "run",
            "huge.scenario.json",
            "--steps",
            "2",
            "--dt",
            "1e300",
            "--show",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(said.contains("health 1e300/1e300"), "{said}");
    assert!(said.contains("step 2, 2.0e300 s"), "{said}");
    assert!(said.lines().all(|l| l.len() < 200), "{said}");
}

#[test]
fn a_library_is_reported_once_with_every_problem_of_a_kind() {
    let dir = tempfile::tempdir().unwrap();
    let game = common::repo().join("examples/my_game");
    std::fs::create_dir(dir.path().join("ai")).unwrap();
    for f in ["arbor.project.json", "guard.json"] {
        std::fs::copy(game.join(f), dir.path().join(f)).unwrap();
    }
    let library = dir.path().join("ai/my_game.nodes.json");
    std::fs::write(
        &library,
        r#"{"format": "arbor.nodes", "version": 1, "library": "my_game", "kinds": [
  {"kind": "FireWeapon", "category": "leaf", "fields": [
    {"name": "a", "type": "int", "min": "x"},
    {"name": "b", "type": "wat"},
    {"name": "c", "type": "int", "bogus": 1}]},
  {"kind": "TakeCover", "category": "leaf"},
  {"kind": "IsUnderFire", "category": "condition"}]}"#,
    )
    .unwrap();
    let out = arbor_in(dir.path(), &["validate", "ai/my_game.nodes.json"]);
    assert_eq!(out.status.code(), Some(1));
    let said = text(&out.stdout);
    for (place, field) in [("3:5", "a"), ("4:31", "b"), ("5:40", "c")] {
        assert!(
            said.contains(&format!(
                "ai/my_game.nodes.json:{place}: error: kind 'FireWeapon': field '{field}': "
            )),
            "{said}"
        );
    }
    assert_eq!(said.lines().count(), 3, "{said}");
    // A library that does not read: said once, by every command, however many tests use it.
    std::fs::write(
        &library,
        "{\"format\": \"arbor.nodes\", \"version\": 1, \"kinds\": [",
    )
    .unwrap();
    for t in ["a", "b"] {
        std::fs::write(
            dir.path().join(format!("{t}.test.json")),
            r#"{"format": "arbor.test", "version": 1, "tree": "guard.json", "steps": 5,
  "expect": [{"name": "fires", "enters": "fire"}]}"#,
        )
        .unwrap();
    }
    for args in [
        vec!["test", "."],
        vec!["coverage", "a.test.json", "b.test.json"],
        vec!["validate", "a.test.json", "b.test.json", "guard.json"],
        vec![
            "validate",
            "arbor.project.json",
            "a.test.json",
            "ai/my_game.nodes.json",
        ],
    ] {
        let out = arbor_in(dir.path(), &args);
        let all = text(&out.stdout) + &text(&out.stderr);
        assert_eq!(
            all.matches("my_game.nodes.json:1:").count(),
            1,
            "{args:?}: {all}"
        );
    }
}
