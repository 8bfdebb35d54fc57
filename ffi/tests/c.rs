//! The C example (examples/c/droid_arena.c), built with the system's C compiler against
//! the shared library: the droid arena's tree with its leaves in C writes the trace
//! `arbor run` writes for the same tree, seed and steps; and it runs clean under
//! AddressSanitizer.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use arbor::cli::{RunArgs, run};
use arbor::io::read_trace;
use arbor::model::Catalog;

/// The arena's scenario with its first droid (titan) alone, running the sample tree.
fn lone_titan(dir: &Path) -> PathBuf {
    let sample = common::repo().join("sample_trees");
    let text = std::fs::read_to_string(sample.join("droid_arena.scenario.json")).unwrap();
    let mut scenario: serde_json::Value = serde_json::from_str(&text).unwrap();
    let entities = scenario["entities"].as_array_mut().unwrap();
    entities.retain(|e| e["kind"] != "agent" || e["name"] == "titan");
    for e in entities.iter_mut().filter(|e| e["kind"] == "agent") {
        e["tree"] = sample.join("droid_arena.json").display().to_string().into();
    }
    let path = dir.join("titan.scenario.json");
    std::fs::write(&path, serde_json::to_string_pretty(&scenario).unwrap()).unwrap();
    path
}

/// The events of trace `path`, one JSON line each, and its agents' names.
fn events(path: &Path) -> (Vec<serde_json::Value>, Vec<String>) {
    let trace = read_trace(path).unwrap();
    let agents = trace
        .header
        .as_ref()
        .unwrap()
        .agents
        .iter()
        .map(|a| a.name.clone())
        .collect();
    let text = std::fs::read_to_string(path).unwrap();
    let lines = text
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (lines, agents)
}

fn build(dir: &Path, flags: &[&str], name: &str) -> PathBuf {
    let exe = dir.join(name);
    common::compile(
        &common::repo().join("examples/c/droid_arena.c"),
        &exe,
        flags,
    );
    exe
}

/// Runs the C game `exe` on the droid arena's tree for `steps` steps with `droids`
/// droids, writing `trace`; what it printed (it must succeed).
fn play(exe: &Path, steps: u64, trace: &Path, droids: u32) -> std::process::Output {
    let out = Command::new(exe)
        .arg(common::repo().join("sample_trees/droid_arena.json"))
        .arg(steps.to_string())
        .arg(trace)
        .arg(droids.to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn the_c_game_writes_the_trace_arbor_run_writes() {
    let dir = tempfile::tempdir().unwrap();
    let exe = build(dir.path(), &["-O1"], "droid_arena");
    let steps = 120;
    let c_trace = dir.path().join("c.jsonl");
    let out = play(&exe, steps, &c_trace, 1);
    // The same run as `arbor run titan.scenario.json --steps 120 --trace rust.jsonl`.
    let scenario = lone_titan(dir.path());
    let rust_trace = dir.path().join("rust.jsonl");
    let args = RunArgs {
        trace: Some(&rust_trace),
        ..RunArgs::new(&scenario, steps)
    };
    let (mut said, mut err) = (Vec::new(), Vec::new());
    let code = run(&args, &Catalog::builtin(), &mut said, &mut err);
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
    let (c, c_agents) = events(&c_trace);
    let (rust, rust_agents) = events(&rust_trace);
    assert_eq!(c_agents, rust_agents);
    assert!(c.len() > 150, "{} events", c.len());
    for (i, (a, b)) in c.iter().zip(&rust).enumerate() {
        assert_eq!(a, b, "event {i} differs");
    }
    assert_eq!(c.len(), rust.len());
    // What it printed: four runs of the tree ended (each by Wander's max_duration).
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        printed.contains("titan: health 150, runs completed 3"),
        "{printed}"
    );
    // The C trace replays as any trace: its header names the tree and its digest.
    let header = read_trace(&c_trace).unwrap().header.unwrap();
    assert_eq!(header.agents[0].name, "titan");
    assert!(
        header.files.iter().all(|f| f.sha256.len() == 64),
        "{header:?}"
    );
}

#[test]
fn the_c_game_of_five_droids_fights_and_its_trace_reads() {
    let dir = tempfile::tempdir().unwrap();
    let exe = build(dir.path(), &["-O1"], "droid_arena");
    let trace = dir.path().join("five.arbtrace");
    let out = play(&exe, 300, &trace, 5);
    let read = read_trace(&trace).unwrap();
    let names: Vec<&str> = read
        .header
        .as_ref()
        .unwrap()
        .agents
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(names, ["titan", "brute", "scout", "grunt", "runt"]);
    // Droids found each other, closed in and hit: the C leaves' products and reasons.
    let text = format!("{:?}", read.events);
    assert!(text.contains("\"hit\""), "no droid attacked");
    assert!(text.contains("target"), "no target was produced");
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.lines().count() == 5, "{printed}");
}

#[test]
fn the_c_game_runs_clean_under_address_sanitizer() {
    let dir = tempfile::tempdir().unwrap();
    let exe = build(
        dir.path(),
        &[
            "-O1",
            "-g",
            "-fsanitize=address,undefined",
            "-fno-omit-frame-pointer",
        ],
        "droid_arena_asan",
    );
    let out = Command::new(&exe)
        .arg(common::repo().join("sample_trees/droid_arena.json"))
        .arg("200")
        .arg(dir.path().join("asan.jsonl"))
        .arg("5")
        .env(
            "ASAN_OPTIONS",
            "detect_leaks=1:abort_on_error=0:exitcode=86",
        )
        .env("UBSAN_OPTIONS", "halt_on_error=1:exitcode=87")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "status {:?}:\n{stderr}", out.status);
    assert!(!stderr.contains("Sanitizer"), "{stderr}");
}
