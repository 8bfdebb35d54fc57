//! Behaviour tests and coverage: every kind of expectation, holding and broken on purpose,
//! bad test files, `arbor test` and `arbor coverage` as a user runs them, and JUnit XML
//! checked against a JUnit schema.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use arbor::check::{Coverage, Prepared, SeedOutcome, parse_test};
use arbor::model::Catalog;
use common::repo;

fn sample(name: &str) -> String {
    repo()
        .join("sample_trees")
        .join(name)
        .display()
        .to_string()
        .replace('\\', "/")
}

/// A test file's text: `head` (what it runs, as JSON members) and one expectation.
fn test_text(head: &str, expectation: &str) -> String {
    format!(
        "{{\n  \"format\": \"arbor.test\",\n  \"version\": 1,\n  {head},\n  \"expect\": [\n    {expectation}\n  ]\n}}\n"
    )
}

/// The mock sketch for 30 steps, its alarm triggered at step 12 with "intruder".
fn sketch() -> String {
    format!(
        "\"tree\": \"{}\", \"steps\": 30, \"triggers\": [{{\"step\": 12, \"interrupt\": \"alarm\", \"value\": \"intruder\"}}]",
        sample("mock_sketch.json")
    )
}

/// The door and room scenario for `steps` steps.
fn door_room(steps: u64) -> String {
    format!(
        "\"scenario\": \"{}\", \"steps\": {steps}",
        sample("door_room.scenario.json")
    )
}

/// Runs a test of one expectation with seed 0.
fn run(head: &str, expectation: &str) -> SeedOutcome {
    let text = test_text(head, expectation);
    let path = Path::new("inline.test.json");
    let test = parse_test(&text, path).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let prepared = Prepared::new(test, &Catalog::builtin(), None).unwrap_or_else(|e| panic!("{e}"));
    prepared.run(0)
}

/// The one failure of a run: its step and message.
fn broke(o: &SeedOutcome) -> (u64, String) {
    assert!(o.error.is_none(), "{:?}", o.error);
    assert_eq!(o.failures.len(), 1, "{:?}", o.failures);
    (o.failures[0].step, o.failures[0].message.clone())
}

fn holds(head: &str, expectation: &str) {
    let o = run(head, expectation);
    assert!(o.passed(), "{expectation}: {:?}", o.failures);
}

#[test]
fn node_events_are_counted_at_least_and_at_most() {
    holds(&sketch(), r#"{"name": "builds", "succeeds": "build"}"#);
    holds(
        &sketch(),
        r#"{"name": "the guard fails", "fails": "allowed"}"#,
    );
    holds(&sketch(), r#"{"name": "exits", "exits": "fetch"}"#);
    holds(
        &sketch(),
        r#"{"name": "the alarm aborts rest", "aborts": "rest"}"#,
    );
    holds(
        &sketch(),
        r#"{"name": "by title", "enters": "Look at the source", "at_most": 1}"#,
    );
    // Broken on purpose: the step where it broke is the one that went past the bound.
    let (step, message) = broke(&run(
        &sketch(),
        r#"{"name": "never looks", "enters": "look", "at_most": 0}"#,
    ));
    assert_eq!(step, 12);
    assert!(
        message.contains("'look' entered for the 1st time at step 12"),
        "{message}"
    );
    // Too few: it breaks at the end, saying how many times it happened.
    let (step, message) = broke(&run(
        &sketch(),
        r#"{"name": "builds a lot", "succeeds": "build", "at_least": 100}"#,
    ));
    assert_eq!(step, 30);
    assert!(message.contains("expected at least 100"), "{message}");
    let (_, message) = broke(&run(
        &sketch(),
        r#"{"name": "calm aborted", "aborts": "calm"}"#,
    ));
    assert!(message.contains("'calm' aborted 0 times"), "{message}");
}

#[test]
fn within_steps_follows_each_trigger_or_node_event() {
    holds(
        &sketch(),
        r#"{"name": "looks at once", "enters": "look", "within_steps": 1, "after": {"trigger": "alarm"}}"#,
    );
    holds(
        &sketch(),
        r#"{"name": "calms after looking", "succeeds": "calm", "within_steps": 3, "after": {"succeeds": "look"}}"#,
    );
    let (step, message) = broke(&run(
        &sketch(),
        r#"{"name": "builds after the alarm", "enters": "build", "within_steps": 1, "after": {"trigger": "alarm"}}"#,
    ));
    assert_eq!(step, 13, "{message}");
    assert!(
        message.contains(
            "the Interrupt 'alarm' started at step 12, but 'build' was not entered within 1 step"
        ),
        "{message}"
    );
    // What starts the clock never happens: broken at the end, saying so.
    let quiet = format!(
        "\"tree\": \"{}\", \"steps\": 30",
        sample("mock_sketch.json")
    );
    let (step, message) = broke(&run(
        &quiet,
        r#"{"name": "answers the alarm", "enters": "look", "within_steps": 2, "after": {"trigger": "alarm"}}"#,
    ));
    assert_eq!(step, 30);
    assert!(message.contains("never happened"), "{message}");
}

#[test]
fn completed_runs_are_counted() {
    holds(
        &sketch(),
        r#"{"name": "runs", "completes": "success", "at_least": 5}"#,
    );
    holds(
        &sketch(),
        r#"{"name": "no failure", "completes": "failure", "at_most": 0}"#,
    );
    let (step, message) = broke(&run(
        &sketch(),
        r#"{"name": "a run fails", "completes": "failure"}"#,
    ));
    assert_eq!(step, 30);
    assert!(
        message.contains("a run completed with failure 0 times"),
        "{message}"
    );
}

/// A SubTree's node is named by its trace id, or by its title in the SubTree's asset.
#[test]
fn a_subtrees_node_is_named_by_its_title_in_the_asset() {
    let guard = format!(
        "\"scenario\": \"{}\", \"steps\": 200",
        sample("guard_patrol.scenario.json")
    );
    for node in ["patrol/to_b", "Go to the second post"] {
        holds(
            &guard,
            &format!(r#"{{"name": "to B", "agent": "guard", "enters": "{node}"}}"#),
        );
    }
    let o = run(
        &guard,
        r#"{"name": "never B", "agent": "guard", "enters": "Go to the second post", "at_most": 0}"#,
    );
    assert!(broke(&o).1.contains("patrol/to_b"), "{:?}", o.failures);
}

#[test]
fn a_leaf_runs_at_a_step() {
    holds(
        &door_room(300),
        r#"{"name": "rests", "runs": "rest", "at_step": 300}"#,
    );
    let (step, message) = broke(&run(
        &door_room(300),
        r#"{"name": "rests early", "runs": "rest", "at_step": 5}"#,
    ));
    assert_eq!(step, 5);
    assert!(
        message.contains("'rest' is not running at step 5; running: to_door"),
        "{message}"
    );
}

#[test]
fn world_expectations_hold_at_a_step_or_at_the_end() {
    holds(
        &door_room(300),
        r#"{"name": "in the room", "near": "room", "within": 1.5}"#,
    );
    holds(
        &door_room(300),
        r#"{"name": "starts at the left", "near": [2, 5], "within": 0.5, "at_step": 1}"#,
    );
    let (step, message) = broke(&run(
        &door_room(300),
        r#"{"name": "stays", "near": [2, 5], "within": 0.5}"#,
    ));
    assert_eq!(step, 300);
    assert!(
        message.contains("'visitor', at (") && message.contains("expected within 0.5"),
        "{message}"
    );
    holds(
        &door_room(300),
        r#"{"name": "healthy", "health_above": 50}"#,
    );
    let (_, message) = broke(&run(
        &door_room(300),
        r#"{"name": "hurt", "health_below": 50}"#,
    ));
    assert!(
        message.contains("'visitor' has health 100; expected below 50"),
        "{message}"
    );
    holds(
        &door_room(300),
        r#"{"name": "knows the room", "context": "room", "equals": "room"}"#,
    );
    let (_, message) = broke(&run(
        &door_room(300),
        r#"{"name": "knows the door", "context": "room", "equals": "door"}"#,
    ));
    assert!(
        message.contains("has room = 'room'; expected 'door'"),
        "{message}"
    );
    holds(
        &sketch(),
        r#"{"name": "the source", "context": "alarm_source", "equals": "intruder", "at_step": 13}"#,
    );
    let arena = format!(
        "\"scenario\": \"{}\", \"steps\": 1000",
        sample("droid_arena.scenario.json")
    );
    holds(&arena, r#"{"name": "the drone dies", "gone": "drone"}"#);
    let (step, message) = broke(&run(&arena, r#"{"name": "titan dies", "gone": "titan"}"#));
    assert_eq!(step, 1000);
    assert!(message.contains("'titan' is still there"), "{message}");
}

/// A test of the droid arena, `runs` (`"seeds": …, "steps": …`), that the drone strikes
/// rarely.
fn arena_test(runs: &str) -> Prepared {
    let text = test_text(
        &format!(
            "\"scenario\": \"{}\", {runs}",
            sample("droid_arena.scenario.json")
        ),
        r#"{"name": "the drone strikes rarely", "succeeds": "hit", "agent": "drone", "at_most": 0}"#,
    );
    let test = parse_test(&text, Path::new("p.test.json")).unwrap();
    Prepared::new(test, &Catalog::builtin(), None).unwrap()
}

#[test]
fn a_test_is_the_same_whatever_runs_it_in_parallel() {
    let prepared = arena_test("\"seeds\": \"0..6\", \"steps\": 400");
    let one = |s: u64| {
        (
            prepared.run(s).failures,
            prepared.cover(s, &|| true).unwrap(),
        )
    };
    let alone: Vec<_> = (0..6u64).map(one).collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let together: Vec<_> = pool.install(|| {
        use rayon::prelude::*;
        (0..6u64).into_par_iter().map(one).collect()
    });
    assert_eq!(alone, together);
    // The seeds do differ, so the comparison says something.
    assert!(alone.windows(2).any(|w| w[0].1 != w[1].1));
}

#[test]
fn a_coverage_run_stopped_part_way_counts_the_steps_it_took() {
    let prepared = arena_test("\"steps\": 400");
    let asked = std::cell::Cell::new(0);
    // Stopped before its 31st step.
    let go_on = || {
        asked.set(asked.get() + 1);
        asked.get() <= 30
    };
    let part = prepared.cover(0, &go_on).unwrap();
    assert_eq!((part.runs, part.steps), (1, 30));
    let whole = prepared.cover(0, &|| true).unwrap();
    assert_eq!((whole.runs, whole.steps), (1, 400));
    // The part's counts are those of the whole run's first 30 steps: some, and fewer.
    let entered = |c: &Coverage| -> u64 {
        c.trees
            .iter()
            .flat_map(|t| &t.nodes)
            .map(|n| n.entered)
            .sum()
    };
    assert!(0 < entered(&part) && entered(&part) < entered(&whole));
    let none = prepared.cover(0, &|| false).unwrap();
    assert_eq!((none.runs, none.steps, entered(&none)), (0, 0, 0));
}

fn arbor(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// The counts of node `id`'s row of a coverage table (the row that starts with it).
fn counts_row<'t>(table: &'t str, id: &str) -> Vec<&'t str> {
    table
        .lines()
        .find(|l| l.trim_start().starts_with(id))
        .unwrap_or_else(|| panic!("{id} in {table}"))
        .split_whitespace()
        .filter(|w| w.parse::<u64>().is_ok())
        .collect()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A folder with `files` (name, text).
fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, body) in files {
        std::fs::write(dir.path().join(name), body).unwrap();
    }
    dir
}

#[test]
fn arbor_test_reports_each_seed_and_exits_1_on_a_failure_with_the_command_that_opens_it() {
    let good = test_text(
        &format!("{}, \"seeds\": [0, 1]", door_room(300)),
        r#"{"name": "in the room", "near": "room", "within": 1.5}"#,
    );
    let bad = test_text(
        &format!("{}, \"seeds\": \"3..=4\"", door_room(300)),
        r#"{"name": "rests early", "runs": "rest", "at_step": 5}"#,
    );
    let dir = folder(&[("a.test.json", &good), ("b.test.json", &bad)]);
    let out = arbor(&["test", "."], dir.path());
    let shown = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{shown}{}", text(&out.stderr));
    // Seeds 3 and 4 break the same way: said once, with the command for the first.
    for line in ["ok    a seed 0", "ok    a seed 1", "FAIL  b seeds 3, 4\n"] {
        assert!(shown.contains(line), "{line} in\n{shown}");
    }
    assert!(
        shown.contains("expectation 'rests early' broke at step 5 (same on seeds 3, 4)"),
        "{shown}"
    );
    assert_eq!(shown.matches("broke at step").count(), 1, "{shown}");
    assert!(
        shown.contains(&format!(
            "arbor edit {} --seed 3 --at 5",
            sample("door_room.json")
        )),
        "{shown}"
    );
    // JUnit keeps a case a seed.
    let out = arbor(
        &["test", "b.test.json", "--junit", "report.xml"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let report = std::fs::read_to_string(dir.path().join("report.xml")).unwrap();
    assert!(
        report.contains("seed 3") && report.contains("seed 4"),
        "{report}"
    );
    assert_eq!(report.matches("<failure").count(), 2, "{report}");
    assert!(shown.ends_with("2 passed, 2 failed\n"), "{shown}");
    // Only the good one: exit 0.
    let out = arbor(&["test", "a.test.json"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).ends_with("2 passed, 0 failed\n"));
}

/// A test file with several wrong expectations gets every one, each on its line: those of
/// its shape, else those of the names it gives.
#[test]
fn every_wrong_expectation_of_a_test_file_is_reported() {
    let head = format!(
        "\"tree\": \"{}\", \"steps\": 10",
        sample("mock_sketch.json")
    );
    let shape = test_text(
        &head,
        "{\"name\": \"boom\", \"explodes\": \"build\"},\n    {\"name\": \"fine\", \"enters\": \"build\"},\n    {\"name\": \"both\", \"enters\": \"root\", \"gone\": \"x\"}",
    );
    let names = test_text(
        &head,
        "{\"name\": \"a\", \"succeeds\": \"buidl\"},\n    {\"name\": \"b\", \"enters\": \"build\"},\n    {\"name\": \"c\", \"fails\": \"nosuch\", \"agent\": \"nobody\"}",
    );
    for (body, wanted) in [
        (
            &shape,
            [
                ":6: error: expectation 'boom': unknown field `explodes`",
                ":8: error: expectation 'both': it names 2 kinds of expectation (enters, gone)",
            ],
        ),
        (
            &names,
            [
                ":6: error: expectation 'a': no node has the id or title 'buidl'",
                ":8: error: expectation 'c':",
            ],
        ),
    ] {
        let dir = folder(&[("bad.test.json", body)]);
        for args in [["test", "bad.test.json"], ["validate", "bad.test.json"]] {
            let out = arbor(&args, dir.path());
            let shown = text(&out.stdout);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {shown}");
            for w in wanted {
                assert_eq!(shown.matches(w).count(), 1, "{args:?}: {w} in\n{shown}");
            }
            assert!(!shown.contains("expectation 'fine'") && !shown.contains("expectation 'b'"));
        }
    }
}

#[test]
fn a_bad_test_file_names_the_file_the_line_and_the_expectation_and_exits_2() {
    let cases: [(&str, String, &str, &str); 5] = [
        (
            "missing tree",
            test_text(
                "\"tree\": \"no_such_tree.json\", \"steps\": 10",
                r#"{"name": "x", "enters": "root"}"#,
            ),
            "no_such_tree.json",
            "",
        ),
        (
            "missing node",
            test_text(
                &format!(
                    "\"tree\": \"{}\", \"steps\": 10",
                    sample("mock_sketch.json")
                ),
                "{\"name\": \"it builds\",\n     \"succeeds\": \"buidl\"}",
            ),
            ":6: error: expectation 'it builds': no node has the id or title 'buidl'; did you mean 'build'",
            "",
        ),
        (
            "unknown kind",
            test_text(
                &format!(
                    "\"tree\": \"{}\", \"steps\": 10",
                    sample("mock_sketch.json")
                ),
                r#"{"name": "boom", "explodes": "build"}"#,
            ),
            ":6: error: expectation 'boom': unknown field `explodes`",
            "",
        ),
        (
            "malformed range",
            test_text(
                &format!(
                    "\"tree\": \"{}\",\n  \"seeds\": \"0..x\", \"steps\": 10",
                    sample("mock_sketch.json")
                ),
                r#"{"name": "x", "enters": "root"}"#,
            ),
            ":5: error: seeds: '0..x' is not a range",
            "",
        ),
        (
            "two kinds",
            test_text(
                &format!(
                    "\"tree\": \"{}\", \"steps\": 10",
                    sample("mock_sketch.json")
                ),
                r#"{"name": "both", "enters": "root", "gone": "x"}"#,
            ),
            "expectation 'both': it names 2 kinds of expectation (enters, gone)",
            "",
        ),
    ];
    for (what, body, wanted, _) in &cases {
        let dir = folder(&[("bad.test.json", body)]);
        let out = arbor(&["test", "bad.test.json"], dir.path());
        let shown = text(&out.stdout);
        assert_eq!(out.status.code(), Some(2), "{what}: {shown}");
        assert!(shown.contains("bad.test.json"), "{what}: {shown}");
        assert!(shown.contains(wanted), "{what}: {wanted} in\n{shown}");
        // `validate` says the same, and does not pass it.
        let out = arbor(&["validate", "bad.test.json"], dir.path());
        assert_ne!(out.status.code(), Some(0), "{what}");
        assert!(
            text(&out.stdout).contains(wanted),
            "{what}: {}",
            text(&out.stdout)
        );
    }
}

/// The JUnit schema in tests/fixtures/junit.xsd accepts what `--junit` writes, passes,
/// failures and a test that could not run alike (checked with xmllint, which
/// scripts/setup.sh installs).
#[test]
fn junit_xml_is_accepted_by_a_junit_schema() {
    let pass = test_text(&door_room(50), r#"{"name": "healthy", "health_above": 50}"#);
    let fail = test_text(
        &door_room(50),
        r#"{"name": "a <tricky> & \"quoted\" name", "runs": "rest", "at_step": 5}"#,
    );
    let broken = test_text(
        "\"tree\": \"gone.json\", \"steps\": 5",
        r#"{"name": "x", "enters": "root"}"#,
    );
    let dir = folder(&[
        ("pass.test.json", &pass),
        ("fail.test.json", &fail),
        ("broken.test.json", &broken),
    ]);
    let out = arbor(&["test", ".", "--junit", "report.xml"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    let report = std::fs::read_to_string(dir.path().join("report.xml")).unwrap();
    assert!(
        report.contains("<testsuites name=\"arbor test\" tests=\"3\" failures=\"1\" errors=\"1\""),
        "{report}"
    );
    assert!(
        report.contains("a &lt;tricky&gt; &amp; &quot;quoted&quot; name"),
        "{report}"
    );
    let xmllint = Command::new("xmllint").arg("--version").output();
    if xmllint.is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI has no xmllint: scripts/setup.sh installs libxml2-utils"
        );
        eprintln!("xmllint is not installed: the schema check is skipped here (CI runs it)");
        return;
    }
    let schema = repo().join("tests/fixtures/junit.xsd");
    let check = Command::new("xmllint")
        .args(["--noout", "--schema"])
        .arg(&schema)
        .arg(dir.path().join("report.xml"))
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}{}",
        text(&check.stdout),
        text(&check.stderr)
    );
    // The schema is not a rubber stamp: a report without its counts is refused.
    let wrong = report.replacen(" tests=\"3\"", "", 1);
    std::fs::write(dir.path().join("wrong.xml"), wrong).unwrap();
    let check = Command::new("xmllint")
        .args(["--noout", "--schema"])
        .arg(&schema)
        .arg(dir.path().join("wrong.xml"))
        .output()
        .unwrap();
    assert!(!check.status.success());
}

#[test]
fn every_sample_has_a_behaviour_test_and_they_pass() {
    let trees: Vec<PathBuf> = common::sample_trees()
        .into_iter()
        .filter(|p| p.parent() == Some(&repo().join("sample_trees")))
        .collect();
    for tree in &trees {
        let test = tree.with_extension("test.json");
        assert!(test.is_file(), "{} has no test file", tree.display());
    }
    let out = arbor(&["test", "sample_trees"], &repo());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains(" passed, 0 failed"));
}

#[test]
fn coverage_lists_the_nodes_never_entered_first_and_min_fails_below() {
    let dir = repo();
    let out = arbor(
        &[
            "coverage",
            "sample_trees/mock_sketch.json",
            "--seeds",
            "0..2",
            "--steps",
            "30",
        ],
        &dir,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    // No trigger: the alarm's branch never runs, and is listed first.
    let rows: Vec<&str> = shown
        .lines()
        .filter(|l| l.starts_with("  ") && !l.contains("entered  succeeded"))
        .collect();
    let never: Vec<&str> = rows
        .iter()
        .take_while(|l| l.ends_with("never entered"))
        .copied()
        .collect();
    assert_eq!(never.len(), 4, "{shown}");
    for id in ["alarm", "respond", "look", "calm"] {
        assert!(
            never.iter().any(|l| l.trim_start().starts_with(id)),
            "{id} in {never:?}"
        );
    }
    assert!(
        shown.contains("total: 7 of 11 nodes entered (63.6 %)"),
        "{shown}"
    );
    let out = arbor(
        &[
            "coverage",
            "sample_trees/mock_sketch.json",
            "--steps",
            "30",
            "--min",
            "90",
        ],
        &dir,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("is below --min 90"),
        "{}",
        text(&out.stderr)
    );
    // The test file's own run (with its trigger) covers every node.
    let out = arbor(
        &[
            "coverage",
            "sample_trees/mock_sketch.test.json",
            "--min",
            "100",
        ],
        &dir,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}

/// `--tree FILE` reports that tree alone, of runs that run others too: the table, the
/// JSON and `--min` are of it; `--min` names each tree below it; a tree no run entered is
/// an error that lists the trees that were.
#[test]
fn coverage_of_one_tree_among_the_runs_trees() {
    let dir = repo();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "coverage",
            "sample_trees/mock_sketch.json",
            "sample_trees/guard_patrol.scenario.json",
            "--seeds",
            "0..2",
            "--steps",
            "30",
        ];
        args.extend_from_slice(extra);
        arbor(&args, &dir)
    };
    let both = run(&[]);
    assert_eq!(both.status.code(), Some(0), "{}", text(&both.stderr));
    assert!(
        text(&both.stdout).contains("guard_patrol.json"),
        "{}",
        text(&both.stdout)
    );
    let one = run(&["--tree", "sample_trees/mock_sketch.json"]);
    assert_eq!(one.status.code(), Some(0), "{}", text(&one.stderr));
    let shown = text(&one.stdout);
    assert!(!shown.contains("guard_patrol"), "{shown}");
    assert!(
        shown.contains("total: 7 of 11 nodes entered (63.6 %)"),
        "{shown}"
    );
    // --min of that tree alone, named with its share.
    let low = run(&["--tree", "sample_trees/mock_sketch.json", "--min", "90"]);
    assert_eq!(low.status.code(), Some(1));
    let said = text(&low.stderr);
    assert!(said.contains("coverage is below --min 90 for:"), "{said}");
    assert!(
        said.contains("mock_sketch.json: 63.6 % (7 of 11 nodes entered)"),
        "{said}"
    );
    assert!(!said.contains("guard_patrol"), "{said}");
    let fine = run(&["--tree", "sample_trees/mock_sketch.json", "--min", "60"]);
    assert_eq!(fine.status.code(), Some(0), "{}", text(&fine.stderr));
    // Without --tree, --min is of all the trees, and names each.
    let all = run(&["--min", "99"]);
    assert_eq!(all.status.code(), Some(1));
    let said = text(&all.stderr);
    assert!(said.contains("is below --min 99; by tree:"), "{said}");
    assert!(
        said.contains("mock_sketch.json: 63.6 %") && said.contains("guard_patrol.json: "),
        "{said}"
    );
    // The JSON holds that tree alone.
    let json = run(&["--tree", "sample_trees/mock_sketch.json", "--json"]);
    let c: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(c["trees"].as_array().unwrap().len(), 1, "{c}");
    // A tree no run entered.
    let none = run(&["--tree", "sample_trees/door_room.json"]);
    assert_eq!(none.status.code(), Some(2));
    let said = text(&none.stderr);
    assert!(
        said.contains(
            "--tree sample_trees/door_room.json: no run entered this tree; the runs entered"
        ),
        "{said}"
    );
    assert!(said.contains("guard_patrol.json"), "{said}");
}

/// SEMANTICS.md §3.7: a node skipped (its `_skipIf` held) is counted as skipped, in a
/// column of its own, in the JSON (only where a node was), and in the check that no node
/// exits more often than it is entered.
#[test]
fn coverage_counts_the_skipped_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("skip.xml");
    std::fs::write(
        &tree,
        r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
  <AlwaysSuccess name="never" _skipIf="true"/><AlwaysSuccess name="always"/>
</Sequence></BehaviorTree></root>"#,
    )
    .unwrap();
    let path = tree.to_str().unwrap();
    let out = arbor(&["coverage", path, "--steps", "4"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    let row = |id: &str| counts_row(&shown, id);
    assert!(shown.contains("aborted    skipped"), "{shown}");
    let never = row("never");
    assert_eq!(never[1..], ["0", "0", "0", never[0]], "{shown}");
    assert_eq!(row("always")[4], "0", "{shown}");
    let out = arbor(&["coverage", path, "--steps", "4", "--json"], dir.path());
    let coverage = Coverage::parse(&text(&out.stdout), Path::new("-")).unwrap();
    let nodes = &coverage.trees[0].nodes;
    let never = nodes.iter().find(|n| n.id == "never").unwrap();
    assert!(
        never.skipped > 0 && never.skipped == never.entered,
        "{never:?}"
    );
    assert!(
        nodes
            .iter()
            .filter(|n| n.id != "never")
            .all(|n| n.skipped == 0)
    );
    let json = text(&out.stdout);
    assert_eq!(json.matches("\"skipped\"").count(), 1, "{json}");
    // Skipped more often than entered: refused.
    let lying = json.replace(
        &format!("\"skipped\": {}", never.skipped),
        &format!("\"skipped\": {}", never.skipped + 1),
    );
    let err = Coverage::parse(&lying, Path::new("c.json")).unwrap_err();
    assert!(err.contains("was skipped"), "{err}");
}

/// A recorded trace is counted as the run it records: the coverage of a scenario's trace
/// (`arbor run --trace`, both encodings) is the coverage of the same run, node for node;
/// a BehaviorTree.CPP recording is counted on the tree it embeds.
#[test]
fn coverage_of_a_recorded_trace_is_that_of_the_run_it_records() {
    let dir = repo();
    let out_dir = tempfile::tempdir().unwrap();
    let nodes = |out: &Output| {
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let c = Coverage::parse(&text(&out.stdout), Path::new("-")).unwrap();
        let counts: Vec<Vec<arbor::check::NodeCoverage>> =
            c.trees.iter().map(|t| t.nodes.clone()).collect();
        (c.runs, c.steps, counts)
    };
    let scenario = "sample_trees/guard_patrol.scenario.json";
    let ran = nodes(&arbor(
        &[
            "coverage", scenario, "--seeds", "0..1", "--steps", "150", "--json",
        ],
        &dir,
    ));
    assert!(ran.2.iter().flatten().any(|n| n.entered > 0));
    for name in ["run.jsonl", "run.arbtrace"] {
        let trace = out_dir.path().join(name);
        let out = arbor(
            &[
                "run",
                scenario,
                "--steps",
                "150",
                "--seed",
                "0",
                "--trace",
                trace.to_str().unwrap(),
            ],
            &dir,
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let recorded = nodes(&arbor(
            &["coverage", trace.to_str().unwrap(), "--json"],
            &dir,
        ));
        assert_eq!(recorded.2, ran.2, "{name}");
        assert_eq!((recorded.0, recorded.1), (1, 150), "{name}");
    }
    let recording = dir.join("tests/fixtures/recordings/patrol.btlog");
    let out = arbor(&["coverage", recording.to_str().unwrap()], &dir);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(
        shown.contains("patrol.btlog: 13 of 13 nodes entered"),
        "{shown}"
    );
    // Two ticks completed, with a failure: Root's row says so; the SubTrees' nodes too.
    let row = |id: &str| counts_row(&shown, id);
    assert_eq!(row("root "), ["2", "0", "1", "0"], "{shown}");
    assert_eq!(
        row("sub_tree_2/see_enemy "),
        ["2", "0", "2", "0"],
        "{shown}"
    );
}

#[test]
fn coverage_json_counts_what_the_trace_shows() {
    let dir = repo();
    let out = arbor(
        &["coverage", "sample_trees/mock_sketch.test.json", "--json"],
        &dir,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let coverage = Coverage::parse(&text(&out.stdout), Path::new("-")).unwrap();
    assert_eq!(coverage.runs, 1);
    let tree = &coverage.trees[0];
    // The same run's trace, counted by hand.
    let trace = arbor(
        &[
            "run",
            "sample_trees/mock_sketch.json",
            "--steps",
            "30",
            "--trigger",
            "12:alarm:intruder",
            "--trace",
            "-",
        ],
        &dir,
    );
    let lines = text(&trace.stdout);
    for node in &tree.nodes {
        let count = |event: &str, detail: Option<&str>| {
            lines
                .lines()
                .filter(|l| {
                    l.contains(&format!("\"event\":\"{event}\""))
                        && l.contains(&format!("\"node\":\"{}\"", node.id))
                })
                .filter(|l| detail.is_none_or(|d| l.contains(d)))
                .count() as u64
        };
        let entered = count("enter", None);
        if entered == 0 {
            // A guard is checked, not entered: each check counts, true as a success.
            assert_eq!(node.entered, count("check", None), "{}", node.id);
            assert_eq!(
                node.succeeded,
                count("check", Some("\"result\":true")),
                "{}",
                node.id
            );
            assert_eq!(
                node.failed,
                count("check", Some("\"result\":false")),
                "{}",
                node.id
            );
            assert!(node.entered > 0, "{}", node.id);
            continue;
        }
        assert_eq!(node.entered, entered, "{}", node.id);
        assert_eq!(
            node.succeeded,
            count("exit", Some("\"status\":\"success\"")),
            "{}",
            node.id
        );
        assert_eq!(
            node.failed,
            count("exit", Some("\"status\":\"failure\"")),
            "{}",
            node.id
        );
        assert_eq!(node.aborted, count("abort", None), "{}", node.id);
    }
    assert!(tree.nodes.iter().all(|n| n.entered > 0));
}

/// The counts a debugged run keeps for View > Coverage: a trigger given at a past step
/// drops the steps after it, and the counts are those of the run as it now goes.
#[test]
fn a_debugged_runs_counts_follow_a_trigger_given_in_the_past() {
    let path = repo().join("sample_trees/mock_sketch.json");
    let tree = arbor::io::load_tree(&path).unwrap();
    let session = || {
        let sim =
            arbor::world::Simulation::solo(Some(&path), &tree, &Catalog::builtin(), 0).unwrap();
        arbor::debug::Session::new(sim, 0.1)
    };
    let mut s = session();
    s.run(20, &[]);
    s.seek(10);
    assert_eq!(s.trigger(None, "alarm", Some("intruder")), 1);
    // The future is gone: the counts are those of steps 1 to 10.
    let mut upto10 = session();
    upto10.run(10, &[]);
    assert_eq!(s.counts(), upto10.counts());
    // And on from there, as a run given that trigger at step 11 goes.
    s.run(10, &[]);
    let mut fresh = session();
    fresh.run(10, &[]);
    fresh.trigger(None, "alarm", Some("intruder"));
    fresh.run(10, &[]);
    assert_eq!(s.counts(), fresh.counts());
    let program = s.sim().instance("mock_sketch").unwrap().program().clone();
    let look = program.index_of("look").unwrap() as usize;
    assert!(s.counts()[0][look].entered > 0, "the alarm's branch ran");
}

#[test]
fn triggers_are_given_in_step_order_and_runs_refuses_a_branch() {
    // Written out of order: both are given, each before its step.
    let head = format!(
        "\"tree\": \"{}\", \"steps\": 30, \"triggers\": [{{\"step\": 20, \"interrupt\": \"alarm\", \"value\": \"b\"}}, {{\"step\": 5, \"interrupt\": \"Alarm\", \"value\": \"a\"}}]",
        sample("mock_sketch.json")
    );
    holds(
        &head,
        r#"{"name": "two alarms", "succeeds": "calm", "at_least": 2}"#,
    );
    let text = test_text(
        &door_room(50),
        r#"{"name": "stays", "runs": "stay", "at_step": 50}"#,
    );
    let err = Prepared::new(
        parse_test(&text, Path::new("b.test.json")).unwrap(),
        &Catalog::builtin(),
        None,
    )
    .err()
    .expect("a branch is refused");
    assert!(
        err.to_string().contains("'stay' is not an action leaf"),
        "{err}"
    );
}

#[test]
fn the_command_that_opens_a_failure_runs_what_the_test_ran() {
    // Every agent of the scenario runs the test's tree: the editor is told so.
    let head = format!(
        "\"scenario\": \"{}\", \"tree\": \"{}\", \"steps\": 40",
        sample("guard_patrol.scenario.json"),
        sample("chase_flee.json")
    );
    let o = run(
        &head,
        r#"{"name": "never chases", "enters": "go", "agent": "guard", "at_most": 0}"#,
    );
    let open = &o.failures[0].open;
    assert!(
        open.contains(&format!(
            "--scenario {} --every-agent",
            sample("guard_patrol.scenario.json")
        )),
        "{open}"
    );
    // Without `agent`, the tree of the agent whose event broke it, and the message names it.
    let head = format!(
        "\"scenario\": \"{}\", \"steps\": 200",
        sample("guard_patrol.scenario.json")
    );
    let o = run(
        &head,
        r#"{"name": "nobody chases", "enters": "chase", "at_most": 0}"#,
    );
    let f = &o.failures[0];
    let by = if f.message.contains("(by 'intruder')") {
        "chase_flee.json"
    } else {
        "guard_patrol.json"
    };
    assert!(f.message.contains("(by '"), "{}", f.message);
    assert!(
        f.open.starts_with(&format!("arbor edit {}", sample(by))),
        "{}",
        f.open
    );
}

/// `arbor test --partition` over the samples: for each way of dealing and N = 1 to 4,
/// the shards run every (test, seed) pair of the whole run exactly once, each says
/// what it runs, and a JUnit report holds the shard's own cases. The CI variables choose
/// a shard where no flag does; a bad partition or a clash with them exits 2.
#[test]
fn arbor_test_partition_runs_every_pair_in_exactly_one_shard() {
    let lines = |out: &Output| -> Vec<String> {
        text(&out.stdout)
            .lines()
            .filter(|l| l.starts_with("ok ") || l.starts_with("FAIL"))
            .map(str::to_owned)
            .collect()
    };
    let whole = arbor(&["test", "sample_trees"], &repo());
    let mut all = lines(&whole);
    all.sort();
    assert!(all.len() > 20, "{all:?}");
    for how in ["count", "slice", "hash"] {
        for n in 1..=4 {
            let mut union = Vec::new();
            for m in 1..=n {
                let partition = format!("{how}:{m}/{n}");
                let out = arbor(
                    &["test", "sample_trees", "--partition", &partition],
                    &repo(),
                );
                assert_eq!(
                    out.status.code(),
                    Some(0),
                    "{partition}: {}",
                    text(&out.stderr)
                );
                let said = text(&out.stdout);
                let mine = lines(&out);
                assert!(
                    said.starts_with(&format!(
                        "shard {partition}: {} of {} runs",
                        mine.len(),
                        all.len()
                    )),
                    "{said}"
                );
                assert!(
                    said.contains(&format!("{} passed, 0 failed", mine.len())),
                    "{said}"
                );
                union.extend(mine);
            }
            union.sort();
            assert_eq!(union, all, "{how} over {n} shards");
        }
    }
    // The CI variables, without a flag: shard INDEX+1 of TOTAL, dealt round robin.
    let by_env = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(["test", "sample_trees"])
        .env("TEST_TOTAL_SHARDS", "3")
        .env("TEST_SHARD_INDEX", "1")
        .current_dir(repo())
        .output()
        .unwrap();
    let flag = arbor(
        &["test", "sample_trees", "--partition", "count:2/3"],
        &repo(),
    );
    assert_eq!(lines(&by_env), lines(&flag));
    // Each shard's JUnit report holds its own cases.
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("shard.xml");
    let out = arbor(
        &[
            "test",
            "sample_trees",
            "--partition",
            "slice:1/2",
            "--junit",
            report.to_str().unwrap(),
        ],
        &repo(),
    );
    assert_eq!(out.status.code(), Some(0));
    let xml = std::fs::read_to_string(&report).unwrap();
    assert_eq!(
        xml.matches("<testcase ").count(),
        lines(&out).len(),
        "{xml}"
    );
    // Bad partitions, and a flag that disagrees with the variables.
    for bad in ["0/3", "4/3", "x/y", "count:1"] {
        let out = arbor(&["test", "sample_trees", "--partition", bad], &repo());
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(
            text(&out.stderr).contains("--partition"),
            "{}",
            text(&out.stderr)
        );
    }
    let clash = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(["test", "sample_trees", "--partition", "hash:1/3"])
        .env("TEST_TOTAL_SHARDS", "3")
        .env("TEST_SHARD_INDEX", "2")
        .current_dir(repo())
        .output()
        .unwrap();
    assert_eq!(clash.status.code(), Some(2));
    assert!(
        text(&clash.stderr).contains("disagrees"),
        "{}",
        text(&clash.stderr)
    );
}

/// The JUnit reports of three shards, merged by `arbor merge-junit`, are the report of
/// one run but for the times; overlapping reports and a report of another kind are
/// refused with exit 2, and nothing is written.
#[test]
fn merge_junit_makes_the_shards_reports_one_runs_report() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).display().to_string();
    let whole = at("whole.xml");
    assert_eq!(
        arbor(&["test", "sample_trees", "--junit", &whole], &repo())
            .status
            .code(),
        Some(0)
    );
    let mut shards = Vec::new();
    for m in 1..=3 {
        let report = at(&format!("shard{m}.xml"));
        let partition = format!("hash:{m}/3");
        let out = arbor(
            &[
                "test",
                "sample_trees",
                "--partition",
                &partition,
                "--junit",
                &report,
            ],
            &repo(),
        );
        assert_eq!(out.status.code(), Some(0));
        shards.push(report);
    }
    let merged = at("merged.xml");
    let mut args = vec!["merge-junit", "-o", merged.as_str()];
    args.extend(shards.iter().map(String::as_str));
    let out = arbor(&args, &repo());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Equal but for the times each run took.
    let timeless = |path: &str| {
        let xml = std::fs::read_to_string(path).unwrap();
        let mut kept = String::new();
        for piece in xml.split("time=\"") {
            kept.push_str(piece.split_once('"').map_or(piece, |(_, rest)| rest));
        }
        kept
    };
    assert_eq!(timeless(&merged), timeless(&whole));
    // docs/CI.md shows these commands.
    let doc = std::fs::read_to_string(repo().join("docs/CI.md")).unwrap();
    for m in 1..=3 {
        let line = format!("arbor test sample_trees --partition hash:{m}/3 --junit report-{m}.xml");
        assert!(doc.contains(&line), "{line}");
    }
    assert!(doc.contains("arbor merge-junit -o report.xml report-1.xml report-2.xml report-3.xml"));
    // Two copies of one shard overlap.
    let twice = arbor(
        &["merge-junit", "-o", &at("bad.xml"), &shards[0], &shards[0]],
        &repo(),
    );
    assert_eq!(twice.status.code(), Some(2));
    assert!(
        text(&twice.stderr).contains("overlap"),
        "{}",
        text(&twice.stderr)
    );
    // A file that is not such a report, and writing over an input.
    let tree = repo()
        .join("sample_trees/door_room.json")
        .display()
        .to_string();
    let other = arbor(&["merge-junit", "-o", &at("bad.xml"), &tree], &repo());
    assert_eq!(other.status.code(), Some(2));
    assert!(!dir.path().join("bad.xml").exists());
    let over = arbor(
        &["merge-junit", "-o", &shards[0], &shards[0], &shards[1]],
        &repo(),
    );
    assert_eq!(over.status.code(), Some(2));
}

/// `arbor coverage --partition M/N --json` over the door room and the droid arena
/// (12 seeds each), three shards, merged by `arbor coverage merge`: byte for byte the
/// coverage file of one run over all seeds, for each way of dealing; `--min` and the
/// table as for a run. Shards of other trees, of another version of a tree, a cut file,
/// a bad partition and a partition with traces exit 2.
#[test]
fn sharded_coverage_merges_into_the_whole_runs_file_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    for f in [
        "door_room.json",
        "door_room.scenario.json",
        "droid_arena.json",
        "droid_arena.scenario.json",
    ] {
        std::fs::copy(repo().join("sample_trees").join(f), dir.path().join(f)).unwrap();
    }
    let run = |args: &[&str]| arbor(args, dir.path());
    let base = [
        "coverage",
        "door_room.scenario.json",
        "droid_arena.scenario.json",
        "--seeds",
        "0..12",
        "--steps",
        "200",
        "--json",
    ];
    let whole = run(&base);
    assert_eq!(whole.status.code(), Some(0), "{}", text(&whole.stderr));
    assert!(
        text(&whole.stdout).contains("\"version\": \"fnv1a:"),
        "each tree's version"
    );
    for how in ["count", "slice", "hash"] {
        let mut files = Vec::new();
        for m in 1..=3 {
            let partition = format!("{how}:{m}/3");
            let mut args = base.to_vec();
            args.extend(["--partition", &partition]);
            let out = run(&args);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{partition}: {}",
                text(&out.stderr)
            );
            let file = format!("{how}{m}.coverage.json");
            std::fs::write(dir.path().join(&file), &out.stdout).unwrap();
            files.push(file);
        }
        let mut args = vec!["coverage", "merge", "--json"];
        args.extend(files.iter().map(String::as_str));
        let merged = run(&args);
        assert_eq!(merged.status.code(), Some(0), "{}", text(&merged.stderr));
        assert_eq!(text(&merged.stdout), text(&whole.stdout), "{how}");
    }
    // The table, and --min, as for a run.
    let table_of_whole = run(&[&base[..base.len() - 1], &["--min", "100"]].concat());
    let table = run(&[
        "coverage",
        "merge",
        "count1.coverage.json",
        "count2.coverage.json",
        "count3.coverage.json",
        "--min",
        "100",
    ]);
    assert_eq!(table.status.code(), table_of_whole.status.code());
    assert_eq!(text(&table.stdout), text(&table_of_whole.stdout));
    assert!(
        text(&table.stdout).contains("door_room.json"),
        "{}",
        text(&table.stdout)
    );
    // Not shards of one run: other trees; another version of a tree; a cut file.
    let other = run(&[
        "coverage",
        "door_room.scenario.json",
        "--seeds",
        "0..2",
        "--steps",
        "50",
        "--json",
    ]);
    std::fs::write(dir.path().join("other.json"), &other.stdout).unwrap();
    let refused = |args: &[&str], says: &str| {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains(says),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "nothing merged");
    };
    refused(
        &["coverage", "merge", "count1.coverage.json", "other.json"],
        "not shards of one run",
    );
    let tree = dir.path().join("door_room.json");
    let changed = std::fs::read_to_string(&tree)
        .unwrap()
        .replacen('{', "{ ", 1);
    std::fs::write(&tree, changed).unwrap();
    let mut args = base.to_vec();
    args.extend(["--partition", "count:1/3"]);
    std::fs::write(dir.path().join("new1.json"), run(&args).stdout).unwrap();
    refused(
        &["coverage", "merge", "new1.json", "count2.coverage.json"],
        "the tree changed between the shards",
    );
    let cut = std::fs::read_to_string(dir.path().join("count1.coverage.json")).unwrap();
    std::fs::write(dir.path().join("cut.json"), &cut[..cut.len() / 2]).unwrap();
    refused(
        &["coverage", "merge", "cut.json", "count2.coverage.json"],
        "cut.json",
    );
    refused(
        &["coverage", "door_room.scenario.json", "--partition", "4/3"],
        "--partition",
    );
    let trace = dir.path().join("run.jsonl");
    let recorded = run(&[
        "run",
        "door_room.scenario.json",
        "--steps",
        "5",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(recorded.status.code(), Some(0));
    refused(
        &["coverage", "run.jsonl", "--partition", "1/2"],
        "not traces",
    );
}
