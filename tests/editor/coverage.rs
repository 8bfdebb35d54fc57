//! View > Coverage on the canvas, from a coverage file and from the run, reached through
//! the menu; and `arbor edit --seed --at`, which `arbor test` prints for a failure.

use crate::common;

use arbor::check::Coverage;
use arbor::editor::EditorApp;
use arbor::model::{Catalog, NodeId};
use eframe::egui::{self, Key, Modifiers};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use common::{harness, repo};

/// The core's run of a sample scenario with `seed`, taken to step `k`.
fn core_at(name: &str, seed: u64, k: u64) -> arbor::debug::Session {
    let sim = arbor::world::Simulation::load(
        &repo().join(format!("sample_trees/{name}.scenario.json")),
        &Catalog::builtin(),
        seed,
        None,
    )
    .unwrap();
    let mut s = arbor::debug::Session::new(sim, 0.1);
    s.run(k, &[]);
    s
}

/// The editor as `arbor edit TREE ARGS…` starts it: the command line parsed as the
/// binary parses it, the run taken where it says.
fn edit(tree: &std::path::Path, args: &[&str]) -> EditorApp {
    use clap::Parser;
    let line = ["arbor", "edit", tree.to_str().unwrap()]
        .into_iter()
        .chain(args.iter().copied());
    let Some(arbor::cli::Command::Edit { start, .. }) =
        arbor::cli::Cli::try_parse_from(line).unwrap().command
    else {
        panic!("an edit command");
    };
    let mut app = EditorApp::start(Some(tree), None, None);
    app.run_from(&start.run_from().unwrap());
    app
}

fn open_sample(name: &str) -> Harness<'static, EditorApp> {
    common::harness_at_100(
        EditorApp::open(&repo().join(format!("sample_trees/{name}.json"))).unwrap(),
    )
}

/// A View menu item, clicked.
fn view_menu(h: &mut Harness<'static, EditorApp>, item: &str) {
    h.get_by_label("View").click();
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, item).click();
    h.run_steps(3);
}

/// Writes what `arbor coverage --json` gives for the droid arena (20 seeds) to a file.
fn arena_coverage(dir: &std::path::Path) -> (std::path::PathBuf, Coverage) {
    let scenario = repo().join("sample_trees/droid_arena.scenario.json");
    let paths = [scenario];
    let args = arbor::cli::CoverageArgs {
        paths: &paths,
        seeds: Some("0..20"),
        steps: Some(500),
        dt: 0.1,
        json: true,
        min: None,
        trees: &[],
        partition: None,
        project: None,
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = arbor::cli::coverage(&args, &Catalog::builtin(), &mut out, &mut err);
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
    let path = dir.join("arena.coverage.json");
    std::fs::write(&path, &out).unwrap();
    let coverage = Coverage::parse(&String::from_utf8(out).unwrap(), &path).unwrap();
    (path, coverage)
}

/// View > Coverage from File…, the file's path typed in the field.
fn coverage_from_file(h: &mut Harness<'static, EditorApp>, path: &std::path::Path) {
    view_menu(h, "Coverage from File…");
    let field = h.get_by_role_and_label(Role::TextInput, "Open a coverage file");
    field.focus();
    field.type_text(&path.display().to_string());
    h.run_steps(2);
    h.key_press(Key::Enter);
    h.run_steps(4);
}

#[test]
fn view_coverage_from_file_paints_the_files_counts_on_each_node() {
    let dir = tempfile::tempdir().unwrap();
    let (path, coverage) = arena_coverage(dir.path());
    let mut h = open_sample("droid_arena");
    coverage_from_file(&mut h, &path);
    let tree = &coverage.trees[0];
    let overlay = h.state().coverage().expect("the overlay is shown");
    for node in &tree.nodes {
        let shown = overlay.of(&NodeId::new(&node.id)).expect("counted");
        assert_eq!(shown.entered, node.entered, "{}", node.id);
        assert_eq!(shown.succeeded, node.succeeded, "{}", node.id);
        assert_eq!(shown.failed, node.failed, "{}", node.id);
    }
    // Each node shows its counts, and the canvas says what it shows.
    let hit = tree.nodes.iter().find(|n| n.id == "hit").unwrap();
    assert!(hit.entered > 0);
    h.get_by_label(&arbor::editor::coverage::counts_line(&hit.counts(), None));
    assert!(
        overlay.summary.contains("arena.coverage.json, 20 runs"),
        "{}",
        overlay.summary
    );
    assert!(
        overlay.summary.contains("11 of 11 nodes entered"),
        "{}",
        overlay.summary
    );
    // A node never entered is painted apart from one entered most.
    assert_eq!(overlay.warning, None);
    let most = overlay.heat_of(&NodeId::new("root")).unwrap();
    let fewest = overlay.heat_of(&NodeId::new("hit")).unwrap();
    assert_ne!(arbor::editor::coverage::heat(None), most);
    assert_ne!(fewest, most, "the rarest and the most entered differ");
    // Zoom to Fit (F) shows every node inside the canvas, below the legend's row.
    h.key_press(Key::F);
    h.run_steps(6);
    let canvas = h.state().canvas_rect().unwrap();
    let legend = h
        .get_by_label_contains("Coverage of arena.coverage.json")
        .rect();
    assert!(
        legend.bottom() <= canvas.top() + 1.0,
        "{legend:?} above {canvas:?}"
    );
    common::all_in_view(&h);
    // View > Hide Coverage.
    view_menu(&mut h, "Hide Coverage");
    assert!(h.state().coverage().is_none());
}

/// At 100 %, each sample with the coverage of its run shown: the count line on each node
/// makes no two nodes overlap.
#[test]
fn the_coverage_count_lines_make_no_nodes_overlap() {
    for name in ["droid_arena", "door_room", "guard_patrol", "chase_flee"] {
        let mut h = open_sample(name);
        for _ in 0..30 {
            h.key_press_modifiers(Modifiers::NONE, Key::N);
        }
        h.run_steps(2);
        view_menu(&mut h, "Coverage of the Run");
        h.run_steps(4);
        common::none_overlap(&h, name, 0.0);
    }
    // Counts of 20 seeds of 500 steps, with aborts: the longest lines.
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = arena_coverage(dir.path());
    let mut h = open_sample("droid_arena");
    coverage_from_file(&mut h, &path);
    common::none_overlap(&h, "droid_arena's file", 0.0);
}

#[test]
fn view_coverage_of_the_run_counts_the_steps_taken_and_toggles_off() {
    let mut h = open_sample("door_room");
    for _ in 0..40 {
        h.key_press_modifiers(Modifiers::NONE, Key::N);
        h.run_steps(1);
    }
    view_menu(&mut h, "Coverage of the Run");
    // The core's counts of the same 40 steps.
    let core = core_at("door_room", 0, 40);
    let program = core.sim().instance("visitor").unwrap().program().clone();
    let overlay = h.state().coverage().expect("shown");
    assert!(
        overlay.summary.contains("steps 1 to 40"),
        "{}",
        overlay.summary
    );
    for (id, counts) in program.node_ids().iter().zip(&core.counts()[0]) {
        assert_eq!(overlay.of(&NodeId::new(id)), Some(counts.folded()), "{id}");
    }
    // Walking to the door: entered; resting in the room: not yet.
    let entered = |o: &arbor::editor::coverage::Overlay, id: &str| {
        o.of(&NodeId::new(id)).expect("counted").entered
    };
    assert!(entered(overlay, "to_door") > 0);
    assert_eq!(entered(overlay, "rest"), 0);
    // The node says so, besides the legend.
    assert!(h.query_all_by_label("never entered").count() >= 2);
    // Stepping on updates the counts.
    let before = entered(overlay, "root");
    for _ in 0..200 {
        h.key_press_modifiers(Modifiers::NONE, Key::N);
    }
    h.run_steps(3);
    let overlay = h.state().coverage().unwrap();
    assert!(entered(overlay, "rest") > 0);
    assert!(entered(overlay, "root") >= before);
    // Chosen again: hidden.
    view_menu(&mut h, "Coverage of the Run");
    assert!(h.state().coverage().is_none());
}

#[test]
fn edit_with_seed_and_at_opens_the_run_at_that_step_of_that_seed() {
    let tree = repo().join("sample_trees/droid_arena.json");
    let app = edit(
        &tree,
        &[
            "--seed", "3", "--at", "57", "--watch", "drone", "--select", "hit",
        ],
    );
    let h = harness(app);
    let run = h.state().simulation().unwrap();
    assert_eq!(run.step_number(), 57);
    assert_eq!(run.seed(), 3);
    assert_eq!(run.watched_name(), Some("drone"));
    assert_eq!(h.state().selection(), [NodeId::new("hit")]);
    h.get_by_label_contains("step 57, 5.7 s, seed 3");
    // The world is the one the core reaches with that seed.
    let core = core_at("droid_arena", 3, 57);
    let positions = |s: &arbor::world::Simulation| -> Vec<[f64; 2]> {
        s.world().entities().iter().map(|e| e.pos).collect()
    };
    assert_eq!(positions(run.sim().unwrap()), positions(core.sim()));
    let seed0 = positions(core_at("droid_arena", 0, 57).sim());
    assert_ne!(
        positions(run.sim().unwrap()),
        seed0,
        "the seed matters here"
    );
}

#[test]
fn edit_with_triggers_gives_them_before_their_steps() {
    let tree = repo().join("sample_trees/mock_sketch.json");
    let h = harness(edit(
        &tree,
        &["--at", "13", "--trigger", "12:alarm:intruder"],
    ));
    let run = h.state().simulation().unwrap();
    assert_eq!(run.step_number(), 13);
    // As `arbor run --trigger 12:alarm:intruder` has it at step 13: the alarm's branch.
    assert_eq!(run.running_leaves(), ["look"]);
}

#[test]
fn edit_with_every_agent_or_solo_runs_the_tree_as_a_test_ran_it() {
    // --scenario S --every-agent: the guard of guard_patrol runs chase_flee.json too.
    let tree = repo().join("sample_trees/chase_flee.json");
    let scenario = repo().join("sample_trees/guard_patrol.scenario.json");
    let h = harness(edit(
        &tree,
        &[
            "--scenario",
            scenario.to_str().unwrap(),
            "--every-agent",
            "--at",
            "5",
        ],
    ));
    let run = h.state().simulation().unwrap();
    assert_eq!(run.step_number(), 5);
    let guard = run.sim().unwrap().instance("guard").unwrap();
    assert!(
        guard.program().index_of("go").is_some(),
        "the guard runs chase_flee"
    );
    // --solo: a tree alone, though a scenario lies beside it.
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("m.json");
    std::fs::copy(repo().join("sample_trees/mock_sketch.json"), &tree).unwrap();
    let scenario = std::fs::read_to_string(repo().join("sample_trees/door_room.scenario.json"))
        .unwrap()
        .replace("door_room.json", "m.json");
    std::fs::write(dir.path().join("m.scenario.json"), scenario).unwrap();
    let beside = harness(EditorApp::start(Some(&tree), None, None));
    assert!(
        !beside.state().simulation().unwrap().is_solo(),
        "the scenario beside it"
    );
    let h = harness(edit(&tree, &["--solo", "--at", "3"]));
    let run = h.state().simulation().unwrap();
    assert!(run.is_solo());
    assert_eq!(run.step_number(), 3);
}

#[test]
fn a_coverage_file_of_many_other_trees_says_so_in_one_short_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("others.coverage.json");
    std::fs::write(&path, common::big_trees::coverage_of_others(20_000)).unwrap();
    let mut h = open_sample("droid_arena");
    coverage_from_file(&mut h, &path);
    let overlay = h.state().coverage().expect("the overlay is shown");
    let warning = overlay.warning.clone().unwrap();
    assert_eq!(
        warning,
        "others.coverage.json has no counts for this tree; it covers 20,000 other trees: trees/other_0.json, trees/other_1.json, trees/other_2.json and 19,997 more"
    );
    // The legend's row stays above the canvas, and says it.
    let shown = h.get_by_label(&warning).rect();
    let canvas = h.state().canvas_rect().unwrap();
    assert!(
        shown.bottom() <= canvas.top() + 1.0,
        "{shown:?} above {canvas:?}"
    );
}
