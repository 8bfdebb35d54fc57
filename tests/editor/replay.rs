//! Replaying a recorded trace: opened from the File menu or `arbor edit --trace --at`, large,
//! cut mid-write or binary, inside a SubTree, its tree changed or gone; going to a step and to
//! the next breakpoint hit, in a replay and in a live run.

use crate::common;
use crate::support::*;

use arbor::editor::EditorApp;
use arbor::model::NodeId;
use eframe::egui::{self, Key, Modifiers, PointerButton};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use common::harness;
use common::input::{click_at, key, on_node};

#[test]
fn a_trace_opened_from_the_file_menu_replays_on_its_tree_and_continue_stops_at_a_breakpoint() {
    let (_dir, trace) = recorded_guard_patrol();
    let mut h = harness(EditorApp::sample());
    open_trace_through_the_menu(&mut h, &trace);
    let file = h.state().document().path().unwrap().to_owned();
    assert_eq!(file.file_name().unwrap(), "guard_patrol.json");
    assert!(
        h.state().last_message().starts_with("Replaying"),
        "{}",
        h.state().last_message()
    );
    h.get_by_label_contains("replaying run.jsonl");
    // Step: the canvas shows what the live run showed at that step.
    for _ in 0..3 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    h.get_by_label_contains("step 3 of 120");
    lights_match(&h, &core_at("guard_patrol", 3), "guard");
    // A breakpoint on Intercept, then Run: the replay stops where the guard takes over.
    let at = on_node(&h, "intercept");
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    key(&mut h, Modifiers::NONE, Key::F9);
    key(&mut h, Modifiers::NONE, Key::Space);
    for _ in 0..60 {
        h.run_steps(1);
        if !h.state().simulation().unwrap().is_running() {
            break;
        }
    }
    let panel = h.state().simulation().unwrap();
    assert!(!panel.is_running(), "the replay stopped");
    assert_eq!(panel.step_number(), 74, "{:?}", panel.stopped());
    h.get_by_label_contains("Breakpoint: intercept on enter of guard, step 74");
    lights_match(&h, &core_at("guard_patrol", 74), "guard");
    // The log explains the take-over, with the titles from the tree; filtered to failures
    // and interrupts, it keeps that line, which says why the aborts beside it happened.
    h.get_by_label_contains("Intercept took over from");
    h.get_by_role_and_label(Role::ComboBox, "Show").click();
    h.run_steps(2);
    h.get_by_label("failures and interrupts").click();
    h.run_steps(2);
    h.get_by_label_contains("Intercept took over from");
    assert!(
        h.query_by_label_contains(" entered").is_none(),
        "plain entries are left out"
    );
    // Shift+Left goes back through the recording.
    key(&mut h, Modifiers::SHIFT, Key::ArrowLeft);
    h.get_by_label_contains("step 73 of 120");
    lights_match(&h, &core_at("guard_patrol", 73), "guard");
}

#[test]
fn a_large_trace_is_read_off_the_ui_thread_with_its_progress_shown_then_replays() {
    let (dir, _) = recorded_guard_patrol();
    let trace = record(&dir.path().join("guard_patrol.scenario.json"), 60_000);
    let size = std::fs::metadata(&trace).unwrap().len();
    assert!(size > arbor::editor::READ_IN_BACKGROUND, "{size} bytes");
    let mut h = harness(EditorApp::sample());
    open_trace_through_the_menu(&mut h, &trace);
    // The editor answered at once: the reading began, and said what it reads.
    assert!(
        h.state().said("Reading run.jsonl ("),
        "{}",
        h.state().last_message()
    );
    let start = std::time::Instant::now();
    while h.state().is_reading_trace() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(300),
            "the trace is still being read"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
        h.run_steps(1);
    }
    h.run_steps(2);
    assert!(
        h.state().last_message().starts_with("Replaying"),
        "{}",
        h.state().last_message()
    );
    h.get_by_label_contains("replaying run.jsonl");
    // arbor edit --trace FILE --at STEP: the window opens at once, at that step once read.
    let from = arbor::debug::RunFrom {
        at: Some(500),
        ..arbor::debug::RunFrom::default()
    };
    let mut h = harness(EditorApp::launch(None, Some(&trace), None, &from));
    assert!(h.state().is_reading_trace());
    let start = std::time::Instant::now();
    while h.state().is_reading_trace() {
        assert!(start.elapsed() < std::time::Duration::from_secs(300));
        std::thread::sleep(std::time::Duration::from_millis(20));
        h.run_steps(1);
    }
    h.run_steps(2);
    assert_eq!(h.state().simulation().unwrap().step_number(), 500);
}

#[test]
fn a_trace_cut_mid_write_or_binary_replays_from_the_file_menu_and_an_empty_one_is_said() {
    let (dir, trace) = recorded_guard_patrol();
    let bytes = std::fs::read(&trace).unwrap();
    // A game that crashed: its last line half written.
    let mut at = bytes.len() * 2 / 3;
    while bytes[at - 1] == b'\n' || bytes[at] == b'\n' {
        at += 1;
    }
    let cut = dir.path().join("cut.jsonl");
    std::fs::write(&cut, &bytes[..at]).unwrap();
    let steps = arbor::io::read_trace(&cut).unwrap().cut.unwrap().steps;
    assert!(steps > 3 && steps < 120, "{steps}");
    let mut h = harness(EditorApp::sample());
    open_trace_through_the_menu(&mut h, &cut);
    let said = h.state().last_message().to_owned();
    assert!(said.starts_with("Replaying"), "{said}");
    assert!(
        said.contains(&format!("the last line was cut off: {steps} steps shown")),
        "{said}"
    );
    h.get_by_label_contains("replaying cut.jsonl");
    for _ in 0..3 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    h.get_by_label_contains(&format!("step 3 of {steps}"));
    lights_match(&h, &core_at("guard_patrol", 3), "guard");
    // The same run in binary replays as the JSON Lines one does.
    let binary = dir.path().join("run.arbtrace");
    arbor::io::convert_trace(&trace, &binary).unwrap();
    open_trace_through_the_menu(&mut h, &binary);
    h.get_by_label_contains("replaying run.arbtrace");
    for _ in 0..3 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    h.get_by_label_contains("step 3 of 120");
    lights_match(&h, &core_at("guard_patrol", 3), "guard");
    // A trace of no events: said, and the replay shown stays.
    let empty = dir.path().join("empty.jsonl");
    let header = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    std::fs::write(&empty, &bytes[..header]).unwrap();
    open_trace_through_the_menu(&mut h, &empty);
    let said = h.state().last_message().to_owned();
    assert!(said.contains("empty.jsonl holds no events"), "{said}");
    h.get_by_label_contains("replaying run.arbtrace");
    h.get_by_label_contains("step 3 of 120");
}

#[test]
fn a_replayed_trace_shows_inside_a_subtree_and_names_its_nodes_by_their_titles() {
    let (_dir, trace) = recorded_guard_patrol();
    let mut h = harness(EditorApp::sample());
    open_trace_through_the_menu(&mut h, &trace);
    h.get_by_label_contains("replaying run.jsonl");
    for _ in 0..3 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    // The trace records trace ids only: the titles of the SubTree's nodes come from its
    // asset, in the log and in what runs now.
    h.get_by_label_contains("Go to the first post entered");
    h.get_by_label_contains("running: Go to the first post");
    // (The SubTree's own keys are named `patrol/…` in the context panel; its nodes are not.)
    for id in ["patrol/to_a", "patrol/route", "patrol/look_a"] {
        assert!(h.query_by_label_contains(id).is_none(), "{id}");
    }
    // Open SubTree keeps the replay: the asset's nodes are lit from the recording, and
    // the nodes around it are named as the recorded tree titles them.
    open_patrol_from_its_menu(&mut h);
    h.get_by_label_contains("SubTree patrol inside the run");
    assert_eq!(
        h.state().live_status(&NodeId::new("to_a")),
        Some(arbor::runtime::Status::Running)
    );
    h.get_by_label_contains("Guard duty entered");
    // (The SubTree's own keys are named `patrol/…` in the context panel; its nodes are not.)
    for id in ["patrol/to_a", "patrol/route", "patrol/look_a"] {
        assert!(h.query_by_label_contains(id).is_none(), "{id}");
    }
    key(&mut h, Modifiers::NONE, Key::N);
    h.get_by_label_contains("step 4 of 120");
    // Ctrl+Backspace goes back to the recorded tree, the replay still at its step.
    key(&mut h, Modifiers::COMMAND, Key::Backspace);
    assert_eq!(
        h.state().document().path().unwrap().file_name().unwrap(),
        "guard_patrol.json"
    );
    h.get_by_label_contains("step 4 of 120");
    lights_match(&h, &core_at("guard_patrol", 4), "guard");
}

#[test]
fn a_trace_whose_tree_changed_or_is_gone_says_so_and_the_editor_goes_on() {
    let (dir, trace) = recorded_guard_patrol();
    // Another program edits the tree: a node renamed.
    let tree_file = dir.path().join("guard_patrol.json");
    let text = std::fs::read_to_string(&tree_file).unwrap();
    std::fs::write(&tree_file, text.replace("\"intercept\"", "\"chase_down\"")).unwrap();
    let mut h = harness(EditorApp::sample());
    open_trace_through_the_menu(&mut h, &trace);
    let said = h.state().last_message().to_owned();
    assert!(said.contains("changed since the recording"), "{said}");
    assert!(said.contains("not in this tree"), "{said}");
    // Matched by id: the nodes that are still there light up.
    for _ in 0..3 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    lights_match_except(&h, &core_at("guard_patrol", 3), "guard", "intercept");
    // The tree is gone: the tree open now stays, and the replay runs on it.
    std::fs::remove_file(&tree_file).unwrap();
    open_trace_through_the_menu(&mut h, &trace);
    let said = h.state().last_message().to_owned();
    assert!(said.contains("is gone"), "{said}");
    h.get_by_label_contains("replaying run.jsonl");
    key(&mut h, Modifiers::NONE, Key::N);
    h.get_by_label_contains("step 1 of 120");
    // A file that is no trace: the error names it and its line; nothing changes.
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"step\":0,\"agent\":\"a\",\"event\":\"jump\",\"node\":\"n\"}\n",
    )
    .unwrap();
    open_trace_through_the_menu(&mut h, &bad);
    let said = h.state().last_message().to_owned();
    assert!(said.contains("bad.jsonl:1: unknown event 'jump'"), "{said}");
    h.get_by_label_contains("step 1 of 120");
}

#[test]
fn edit_with_a_trace_alone_that_does_not_read_or_whose_tree_is_gone_is_not_taken_for_the_sample() {
    let (dir, trace) = recorded_guard_patrol();
    let bad = dir.path().join("staus.jsonl");
    std::fs::write(
        &bad,
        "{\"step\":1,\"agent\":\"a\",\"event\":\"exit\",\"node\":\"n\",\"staus\":\"success\"}\n",
    )
    .unwrap();
    let mut h = harness(EditorApp::start(None, Some(&bad), None));
    // A new tree, not the bundled sample; the problem stays in the status line until read.
    assert_eq!(h.state().title(), "untitled — Arbor");
    assert_eq!(h.state().tree().len(), 1);
    h.run_steps(80); // twenty seconds
    let said = h.state().status().to_owned();
    assert!(said.contains("staus.jsonl:1"), "{said}");
    h.get_by_label_contains("staus.jsonl:1").click();
    h.run_steps(3);
    assert_eq!(
        h.state().status(),
        "",
        "read in the list, it leaves the status line"
    );
    // The trace's tree is gone: its events are replayed on the new tree, and said.
    std::fs::remove_file(dir.path().join("guard_patrol.json")).unwrap();
    let h = harness(EditorApp::start(None, Some(&trace), None));
    assert_eq!(h.state().tree().len(), 1, "not the sample");
    let said = h.state().status().to_owned();
    assert!(said.contains("is gone"), "{said}");
    h.get_by_label_contains("replaying run.jsonl");
}

/// Ctrl+G, `text` typed into the Go to Step field, Enter.
fn go_to_step(h: &mut Harness<'static, EditorApp>, text: &str) {
    key(h, Modifiers::COMMAND, Key::G);
    h.get_by_label("Go to step").type_text(text);
    h.run_steps(1);
    h.key_press(Key::Enter);
    h.run_steps(3);
}

#[test]
fn ctrl_g_goes_to_a_typed_step_of_a_replay_and_of_a_live_run_and_says_a_bad_number() {
    let (_dir, trace) = recorded_guard_patrol();
    let mut h = harness(EditorApp::start(None, Some(&trace), None));
    go_to_step(&mut h, "80");
    h.get_by_label_contains("step 80 of 120");
    lights_match(&h, &core_at("guard_patrol", 80), "guard");
    assert!(h.query_by_label("Go to step").is_none(), "closed");
    // Past the end of the recording: its last step, said.
    go_to_step(&mut h, "1,000");
    h.get_by_label_contains("step 120 of 120");
    assert_eq!(
        h.state().status(),
        "Step 1000 is past the end of the recording: at its last step, 120"
    );
    // No step number: said beside the field and in the status line; the field stays.
    go_to_step(&mut h, "ten");
    h.get_by_label_contains("step 120 of 120");
    let said = "'ten' is not a step number: type a whole number, 0 or more";
    assert_eq!(h.state().status(), said);
    assert!(h.query_all_by_label(said).count() >= 1);
    h.get_by_label("Go to step");
    key(&mut h, Modifiers::NONE, Key::Escape);
    assert!(h.query_by_label("Go to step").is_none(), "Escape closes it");
    // A live run: a past step rebuilt from the history, a later one run to.
    let mut h = open_sample("door_room");
    go_to_step(&mut h, "25");
    h.get_by_label_contains("step 25,");
    lights_match(&h, &core_at("door_room", 25), "visitor");
    go_to_step(&mut h, "7");
    h.get_by_label_contains("step 7,");
    lights_match(&h, &core_at("door_room", 7), "visitor");
}

/// The steps where the replay of `trace` hits a breakpoint on entering `node`.
fn recorded_hits(trace: &std::path::Path, node: &str) -> Vec<u64> {
    let mut r = arbor::debug::Replay::new(arbor::io::read_trace(trace).unwrap());
    let breaks = [arbor::debug::Breakpoint {
        node: node.into(),
        on: arbor::debug::BreakOn::Enter,
    }];
    std::iter::from_fn(|| r.continue_to_hit(&breaks).map(|h| h.step)).collect()
}

#[test]
fn f8_and_shift_f8_go_to_the_next_and_previous_breakpoint_hit_of_a_replay_and_a_live_run() {
    let (_dir, trace) = recorded_guard_patrol();
    let hits = recorded_hits(&trace, "intercept");
    assert!(hits.len() >= 2, "{hits:?}");
    let mut h = harness(EditorApp::start(None, Some(&trace), None));
    // Without a breakpoint: said, nothing moves.
    key(&mut h, Modifiers::NONE, Key::F8);
    assert!(h.state().status().starts_with("No breakpoint on this tree"));
    h.get_by_label_contains("step 0 of 120");
    let at = on_node(&h, "intercept");
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    key(&mut h, Modifiers::NONE, Key::F9);
    for &step in &hits {
        key(&mut h, Modifiers::NONE, Key::F8);
        h.get_by_label_contains(&format!("step {step} of 120"));
        let said = format!("Breakpoint: intercept on enter of guard, step {step}");
        assert!(h.query_all_by_label(&said).count() >= 1, "{said}");
    }
    lights_match(&h, &core_at("guard_patrol", *hits.last().unwrap()), "guard");
    key(&mut h, Modifiers::NONE, Key::F8);
    let last = hits.last().unwrap();
    assert_eq!(
        h.state().status(),
        format!("No breakpoint hit after step {last}")
    );
    h.get_by_label_contains(&format!("step {last} of 120"));
    // Back, from the menu and then its shortcut.
    h.get_by_role_and_label(Role::Button, "Simulation").click();
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, "Previous Breakpoint Hit Shift+F8")
        .click();
    h.run_steps(3);
    let before_last = hits[hits.len() - 2];
    h.get_by_label_contains(&format!("step {before_last} of 120"));
    lights_match(&h, &core_at("guard_patrol", before_last), "guard");
    for _ in 0..hits.len() {
        key(&mut h, Modifiers::SHIFT, Key::F8);
    }
    h.get_by_label_contains(&format!("step {} of 120", hits[0]));
    assert_eq!(
        h.state().status(),
        format!("No breakpoint hit before step {}", hits[0])
    );
    // A live run: F8 runs on to the step where the core stops; Shift+F8 comes back.
    let mut h = open_sample("droid_arena");
    h.state_mut().select(Some(NodeId::new("attack")));
    key(&mut h, Modifiers::NONE, Key::F9);
    let breaks = [arbor::debug::Breakpoint {
        node: "attack".into(),
        on: arbor::debug::BreakOn::Enter,
    }];
    let mut core = core_at("droid_arena", 0);
    let first = core.run(1000, &breaks)[0].step;
    let second = core.run(1000, &breaks)[0].step;
    key(&mut h, Modifiers::NONE, Key::F8);
    key(&mut h, Modifiers::NONE, Key::F8);
    assert_eq!(h.state().simulation().unwrap().step_number(), second);
    let watched = h.state().simulation().unwrap().watched_name().unwrap();
    lights_match(&h, &core, watched);
    key(&mut h, Modifiers::SHIFT, Key::F8);
    assert_eq!(h.state().simulation().unwrap().step_number(), first);
    assert!(
        h.state()
            .status()
            .starts_with("Breakpoint: attack on enter"),
        "{}",
        h.state().status()
    );
}

/// The editor as `arbor edit ARGS…` opens it: the command line parsed as the binary
/// parses it.
fn edit_with(args: &[&str]) -> EditorApp {
    use clap::Parser;
    let line = ["arbor", "edit"].into_iter().chain(args.iter().copied());
    let Some(arbor::cli::Command::Edit {
        file, trace, start, ..
    }) = arbor::cli::Cli::try_parse_from(line).unwrap().command
    else {
        panic!("an edit command");
    };
    let from = start.run_from().unwrap();
    assert!(
        trace.is_none() || from.only_where(),
        "refused by arbor edit"
    );
    EditorApp::launch(file.as_deref(), trace.as_deref(), None, &from)
}

#[test]
fn edit_with_a_trace_at_a_step_opens_the_replay_there_and_a_step_past_its_end_at_its_last() {
    let (_dir, trace) = recorded_guard_patrol();
    let path = trace.to_str().unwrap();
    let h = harness(edit_with(&["--trace", path, "--at", "80"]));
    assert_eq!(
        h.state().document().path().unwrap().file_name().unwrap(),
        "guard_patrol.json"
    );
    h.get_by_label_contains("replaying run.jsonl");
    h.get_by_label_contains("step 80 of 120");
    lights_match(&h, &core_at("guard_patrol", 80), "guard");
    assert_eq!(h.state().status(), "At step 80");
    let h = harness(edit_with(&["--trace", path, "--at", "5000"]));
    h.get_by_label_contains("step 120 of 120");
    assert_eq!(
        h.state().status(),
        "Step 5000 is past the end of the recording: at its last step, 120"
    );
    // An agent that is not in the trace is said; the step is still taken.
    let h = harness(edit_with(&[
        "--trace", path, "--at", "3", "--watch", "nobody",
    ]));
    h.get_by_label_contains("step 3 of 120");
    assert_eq!(
        h.state().status(),
        "--watch nobody: no agent of the trace has that name"
    );
}

#[test]
fn the_timeline_says_how_many_steps_a_breakpoint_hits_in_its_lane() {
    let (_dir, trace) = recorded_guard_patrol();
    let hits = recorded_hits(&trace, "intercept");
    let mut h = harness(EditorApp::start(None, Some(&trace), None));
    h.get_by_label("Timeline").hover();
    h.run_steps(40);
    assert!(h.query_by_label_contains("The red lane").is_none());
    let at = on_node(&h, "intercept");
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    key(&mut h, Modifiers::NONE, Key::F9);
    h.get_by_label("Timeline").hover();
    h.run_steps(40);
    h.get_by_label_contains(&format!(
        "The red lane: the steps where a breakpoint hits ({} of 120)",
        hits.len()
    ));
}

#[test]
fn a_keys_history_in_a_replay_lists_the_recorded_writes_and_a_click_goes_to_one() {
    let (_dir, trace) = recorded_guard_patrol();
    let mut h = harness(EditorApp::sample());
    open_trace_through_the_menu(&mut h, &trace);
    h.get_by_label_contains("replaying run.jsonl");
    // Before the first step: the tree's key, with its type, nothing in it yet.
    h.get_by_role_and_label(Role::Button, "key intruder");
    h.get_by_label("entity");
    // The history lists each write the trace records, at its step.
    let recorded = arbor::io::read_trace(&trace).unwrap();
    let writes: Vec<u64> = recorded
        .events
        .iter()
        .filter(|e| e.agent == 0)
        .filter(
            |e| matches!(&e.kind, arbor::debug::LoggedKind::Context(k, _) if &**k == "intruder"),
        )
        .map(|e| e.frame())
        .collect();
    let step = *writes
        .first()
        .expect("the guard sees the intruder in 120 steps");
    h.get_by_role_and_label(Role::Button, "key intruder")
        .click();
    h.run_steps(3);
    h.get_by_label("History of intruder");
    let line = format!("step {step}: ");
    h.get_by_label_contains(&line).scroll_to_me();
    h.run_steps(10);
    h.get_by_label_contains(&line).click();
    h.run_steps(3);
    assert_eq!(h.state().simulation().unwrap().step_number(), step);
    h.get_by_label_contains(&format!("step {step} of 120"));
}

/// docs/BTCPP.md, "Recordings": a run BehaviorTree.CPP's FileLogger2 recorded, opened
/// from File > Open Trace…, shows the tree it embeds, lit as the run was at each step (a
/// millisecond), with every change in the log; Save does not write over the file.
#[test]
fn a_behaviortree_cpp_recording_opened_from_the_file_menu_replays_on_the_tree_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let recording = dir.path().join("patrol.btlog");
    std::fs::copy(
        common::repo().join("tests/fixtures/recordings/patrol.btlog"),
        &recording,
    )
    .unwrap();
    let before = std::fs::read(&recording).unwrap();
    let mut h = harness(EditorApp::sample());
    open_trace_through_the_menu(&mut h, &recording);
    assert!(
        h.state().last_message().starts_with("Replaying"),
        "{}",
        h.state().last_message()
    );
    assert_eq!(h.state().document().path(), Some(recording.as_path()));
    h.get_by_label_contains("replaying patrol.btlog");
    // Step (N) to the first millisecond, the first tick: both looks done, the walk (a Sleep
    // of 30 ms) running.
    key(&mut h, Modifiers::NONE, Key::N);
    h.get_by_label_contains("step 1 of");
    let status =
        |h: &Harness<'static, EditorApp>, id: &str| h.state().live_status(&NodeId::new(id));
    let running = Some(arbor::runtime::Status::Running);
    assert_eq!(
        status(&h, "sub_tree"),
        Some(arbor::runtime::Status::Success)
    );
    assert_eq!(status(&h, "walk"), running);
    assert_eq!(status(&h, "patrol"), running);
    // Open SubTree (Ctrl+Enter) shows the tree the recording embeds for it, lit inside.
    h.state_mut().select(Some(NodeId::new("sub_tree")));
    key(&mut h, Modifiers::COMMAND, Key::Enter);
    h.get_by_label_contains("SubTree sub_tree inside the run");
    assert_eq!(
        status(&h, "see_enemy"),
        Some(arbor::runtime::Status::Failure)
    );
    assert_eq!(
        status(&h, "all_clear"),
        Some(arbor::runtime::Status::Success)
    );
    key(&mut h, Modifiers::COMMAND, Key::Backspace);
    assert_eq!(h.state().document().path(), Some(recording.as_path()));
    // An edit saved with Ctrl+S is refused: the recording stays as it was.
    h.state_mut().select(Some(NodeId::new("done")));
    key(&mut h, Modifiers::NONE, Key::Delete);
    assert!(h.state().is_dirty());
    key(&mut h, Modifiers::COMMAND, Key::S);
    assert!(
        h.state().said("recording (.btlog) is kept"),
        "{}",
        h.state().last_message()
    );
    assert_eq!(std::fs::read(&recording).unwrap(), before);
    // Save As is offered, as the recorded tree's XML beside it: Enter writes patrol.xml.
    let field = h.get_by_role_and_label(Role::TextInput, "Save the tree as");
    field.focus();
    h.run_steps(1);
    key(&mut h, Modifiers::NONE, Key::Enter);
    let saved = dir.path().join("patrol.xml");
    assert!(saved.is_file(), "{}", h.state().last_message());
    let tree = arbor::io::load_tree(&saved).unwrap();
    assert!(tree.node(&NodeId::new("done")).is_none());
    assert!(tree.node(&NodeId::new("walk")).is_some());
    assert_eq!(std::fs::read(&recording).unwrap(), before);
}
