//! Every file format's header is checked by one rule: version 0, a version newer than
//! this build reads and a missing version are each refused in the same words, whatever
//! the file (docs/FORMAT.md, "Headers").
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

/// What reading `text` as each format says: `Ok(())` or the error in words.
type Reader = fn(&str) -> Result<(), String>;

fn formats() -> Vec<(&'static str, &'static str, Reader)> {
    vec![
        ("arbor.tree", r#""nodes": []"#, |t| {
            arbor::io::parse_tree(t, Path::new("t.json"))
                .map(drop)
                .map_err(|e| e.to_string())
        }),
        (
            "arbor.scenario",
            "\"map\": [\"###\", \"#.#\", \"###\"], \"entities\": [{\"kind\": \"agent\", \"name\": \"a\", \"at\": [1, 1], \"tree\": \"t.json\"}]",
            |t| {
                arbor::world::parse_scenario(t, Path::new("s.json"))
                    .map(drop)
                    .map_err(|e| e.to_string())
            },
        ),
        ("arbor.nodes", r#""library": "game", "kinds": []"#, |t| {
            arbor::io::parse_library(t, Path::new("l.nodes.json"))
                .map(drop)
                .map_err(|e| e.to_string())
        }),
        ("arbor.project", r#""nodes": []"#, |t| {
            arbor::io::parse_project(t, Path::new("arbor.project.json"))
                .map(drop)
                .map_err(|e| e.to_string())
        }),
        (
            "arbor.test",
            r#""tree": "t.json", "steps": 5, "expect": [{"name": "x", "enters": "root"}]"#,
            |t| {
                arbor::check::file::parse_test(t, Path::new("t.test.json"))
                    .map(drop)
                    .map_err(|e| e.to_string())
            },
        ),
        (
            "arbor.coverage",
            r#""runs": 1, "steps": 10, "trees": []"#,
            |t| arbor::check::Coverage::parse(t, Path::new("c.json")).map(drop),
        ),
    ]
}

#[test]
fn every_format_refuses_version_zero_a_newer_version_and_no_version_alike() {
    for (format, body, read) in formats() {
        let with = |version: &str| format!(r#"{{"format": "{format}", {version}{body}}}"#);
        let said = |version: &str| match read(&with(version)) {
            Ok(()) => panic!("{format} with {version:?} was read"),
            Err(e) => e,
        };
        let zero = said(r#""version": 0, "#);
        assert!(
            zero.contains("the \"version\" header must be 1, not 0"),
            "{format}: {zero}"
        );
        let newer = said(r#""version": 2, "#);
        assert!(
            newer.contains("written by a newer Arbor") && newer.contains("file version 2"),
            "{format}: {newer}"
        );
        let missing = said("");
        assert!(
            missing.contains("it has no \"version\" header"),
            "{format}: {missing}"
        );
        let text = said(r#""version": "1", "#);
        assert!(text.contains("must be 1, not \"1\""), "{format}: {text}");
        assert_eq!(read(&with(r#""version": 1, "#)), Ok(()), "{format}");
    }
}

#[test]
fn every_format_names_a_file_of_another_format_for_what_it_is() {
    for (format, body, read) in formats() {
        let other = if format == "arbor.scenario" {
            "arbor.tree"
        } else {
            "arbor.scenario"
        };
        let text = format!(r#"{{"format": "{other}", "version": 1, {body}}}"#);
        let e = read(&text).expect_err(format);
        assert!(
            e.contains(&format!("\"format\": \"{other}\"), not a")),
            "{e}"
        );
    }
}

#[test]
fn a_trace_of_version_zero_or_newer_is_refused_in_the_same_words() {
    let read = |version: u64| {
        let text = format!("{{\"arbor_trace\":{version},\"dt\":0.1,\"agents\":[]}}\n");
        arbor::io::parse_trace(text.as_bytes(), Path::new("t.trace.jsonl"))
            .map(drop)
            .map_err(|e| e.to_string())
    };
    assert_eq!(read(1), Ok(()));
    let zero = read(0).expect_err("version 0");
    assert!(
        zero.contains("the \"version\" header must be 1, not 0"),
        "{zero}"
    );
    let newer = read(2).expect_err("version 2");
    assert!(
        newer.contains("newer Arbor: trace file version 2"),
        "{newer}"
    );
}
