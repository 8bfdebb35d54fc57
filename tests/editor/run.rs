//! The debugger on a simulated run, through the keys, clicks and menus a person uses:
//! stepping and stepping back, breakpoints, triggers, the timeline, the arena, hovering a
//! node, the active path, SubTrees inside a run, and edits made during a run.

use crate::common;
use crate::support::*;

use arbor::editor::EditorApp;
use arbor::model::NodeId;
use eframe::egui::{self, Key, Modifiers, PointerButton, Pos2};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use common::harness;
use common::input::{click_at, drag, key, on_node};

#[test]
fn n_steps_shift_left_steps_back_and_every_panel_shows_that_step() {
    let mut h = open_sample("door_room");
    for _ in 0..30 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    h.get_by_label_contains("step 30,");
    lights_match(&h, &core_at("door_room", 30), "visitor");
    for _ in 0..5 {
        key(&mut h, Modifiers::SHIFT, Key::ArrowLeft);
    }
    h.get_by_label_contains("step 25,");
    let core = core_at("door_room", 25);
    lights_match(&h, &core, "visitor");
    // The leaf the core runs is named in the panel.
    let instance = core.sim().instance("visitor").unwrap();
    let leaf = &instance.program().node_ids()[instance.active_leaves()[0] as usize];
    let title = h
        .state()
        .tree()
        .node(&NodeId::new(leaf.as_str()))
        .unwrap()
        .label()
        .to_owned();
    h.get_by_label(&format!("running: {title}"));
    // The arena's agent is where the core's is.
    let pos = core.sim().summary()[0].pos;
    h.get_by_label_contains(&format!("at ({:.2}, {:.2})", pos[0], pos[1]));
    // Shift+→ goes forward again through the same history.
    key(&mut h, Modifiers::SHIFT, Key::ArrowRight);
    h.get_by_label_contains("step 26,");
    lights_match(&h, &core_at("door_room", 26), "visitor");
}

#[test]
fn f9_sets_a_breakpoint_and_space_runs_to_the_step_the_core_stops_at() {
    let mut h = open_sample("droid_arena");
    h.state_mut().select(Some(NodeId::new("attack")));
    key(&mut h, Modifiers::NONE, Key::F9);
    assert_eq!(h.state().breakpoints().len(), 1);
    h.state_mut().select(None);
    // The core, with the same breakpoint, stops at this step.
    let mut core = core_at("droid_arena", 0);
    core.run(
        1000,
        &[arbor::debug::Breakpoint {
            node: "attack".into(),
            on: arbor::debug::BreakOn::Enter,
        }],
    );
    let want = core.step_number();
    key(&mut h, Modifiers::NONE, Key::Space);
    for _ in 0..200 {
        h.run_steps(1);
        if !h.state().simulation().unwrap().is_running() {
            break;
        }
    }
    assert!(
        !h.state().simulation().unwrap().is_running(),
        "the breakpoint paused the run"
    );
    assert_eq!(h.state().simulation().unwrap().step_number(), want);
    assert_eq!(h.state().selection(), &[NodeId::new("attack")]);
    assert!(
        h.query_all_by_label_contains(&format!(
            "Breakpoint: attack on enter of titan, step {want}"
        ))
        .count()
            >= 1
    );
    // F9 again clears it.
    key(&mut h, Modifiers::NONE, Key::F9);
    assert!(h.state().breakpoints().is_empty());
}

/// With the Trigger row shown, the watched agent's context and state still fit the
/// panel as it opens: its last line (what it holds) lies above the status line.
#[test]
fn the_agents_state_fits_under_the_trigger_row() {
    let h = open_sample("pass_receive");
    h.get_by_label("⚡ receive_pass");
    let last = h.get_by_label_contains("holds ").rect();
    let status = h.get_by_label("Ready").rect();
    assert!(last.bottom() <= status.top(), "{last:?} under {status:?}");
}

#[test]
fn a_trigger_button_fires_the_interrupt_and_the_log_shows_it() {
    let mut h = open_sample("pass_receive");
    key(&mut h, Modifiers::NONE, Key::N);
    h.get_by_label("⚡ receive_pass").click();
    h.run_steps(2);
    key(&mut h, Modifiers::NONE, Key::N);
    h.get_by_label_contains("Receive a pass started by the trigger 'receive_pass'");
    // Filtered to failures and interrupts, a click on the event selects its node.
    h.get_by_role_and_label(Role::ComboBox, "Show").click();
    h.run_steps(2);
    h.get_by_label("failures and interrupts").click();
    h.run_steps(2);
    // (Scrolled into the log's view first, as a person would.)
    h.get_by_label_contains("Receive a pass started by the trigger")
        .scroll_to_me();
    h.run_steps(3);
    h.get_by_label_contains("Receive a pass started by the trigger")
        .click();
    h.run_steps(2);
    assert_eq!(h.state().selection(), &[NodeId::new("receive")]);
    // Filtered to one kind of event: the checks only.
    h.get_by_role_and_label(Role::ComboBox, "Show").click();
    h.run_steps(2);
    h.get_by_label("check").click();
    h.run_steps(2);
    assert!(
        h.query_by_label_contains("started by the trigger")
            .is_none()
    );
    assert!(h.query_all_by_label_contains("checked:").count() > 0);
    assert!(h.query_by_label_contains(" executed").is_none());
}

#[test]
fn a_click_on_the_timeline_shows_that_step() {
    let mut h = open_sample("door_room");
    for _ in 0..40 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    let bar = h.get_by_label("Timeline").rect();
    // A quarter of the way along: step 10.
    let at = Pos2::new(
        bar.left() + 6.0 + (bar.width() - 12.0) * 0.25,
        bar.center().y,
    );
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    assert_eq!(h.state().simulation().unwrap().step_number(), 10);
    lights_match(&h, &core_at("door_room", 10), "visitor");
}

#[test]
fn a_tree_without_a_scenario_runs_alone_and_a_world_tree_asks_for_one() {
    let mut h = open_sample("mock_sketch");
    h.get_by_label_contains("alone in an empty world");
    for _ in 0..8 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    h.get_by_label_contains("Work while allowed failed: guard 'Allowed?' was false");
    // A tree of world nodes with no scenario beside it says what it needs.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("door_room.json");
    std::fs::copy(common::repo().join("sample_trees/door_room.json"), &copy).unwrap();
    let h = harness(EditorApp::open(&copy).unwrap());
    h.get_by_label_contains("uses world nodes");
    h.get_by_role_and_label(Role::Button, "Open Scenario…");
}

#[test]
fn run_holds_its_speed_in_real_time() {
    let mut h = open_sample("door_room");
    // kittest advances the clock by a quarter second a frame.
    key(&mut h, Modifiers::NONE, Key::Space);
    let start = h.state().simulation().unwrap().step_number();
    h.run_steps(20); // five seconds
    let taken = h.state().simulation().unwrap().step_number() - start;
    assert!(
        (49..=51).contains(&taken),
        "10 steps/s for 5 s took {taken} steps"
    );
    key(&mut h, Modifiers::NONE, Key::Space);
    assert!(!h.state().simulation().unwrap().is_running());
}

#[test]
fn the_node_menu_sets_what_a_breakpoint_breaks_on_and_the_dot_clears_it() {
    let mut h = open_sample("droid_arena");
    let at = on_node(&h, "choose");
    click_at(&mut h, at, PointerButton::Secondary, Modifiers::NONE);
    h.get_by_label("Break On ⏵").click();
    h.run_steps(2);
    h.get_by_label("failure").click();
    h.run_steps(3);
    let breaks = h.state().breakpoints().to_vec();
    assert_eq!(
        breaks,
        [arbor::debug::Breakpoint {
            node: "choose".into(),
            on: arbor::debug::BreakOn::Failure
        }]
    );
    // Run stops where the core stops for the same breakpoint.
    let mut core = core_at("droid_arena", 0);
    core.run(1000, &breaks);
    h.get_by_role_and_label(Role::Button, "×10").click();
    for _ in 0..100 {
        h.get_by_role_and_label(Role::Button, "×10").click();
        h.run_steps(1);
        if h.state().simulation().unwrap().stopped().is_some() {
            break;
        }
    }
    assert_eq!(
        h.state().simulation().unwrap().step_number(),
        core.step_number()
    );
    // The red dot in its header clears it (its bounds are in graph space; the view has
    // moved to the node the run stopped at).
    h.run_steps(3);
    let dot = h.get_by_label("Breakpoint").rect().center();
    let at = h.state().camera().unwrap().mul_pos(dot);
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    assert!(h.state().breakpoints().is_empty());
}

#[test]
fn breakpoints_are_kept_per_file_in_the_settings_not_in_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_samples(dir.path(), &["door_room.json", "door_room.scenario.json"]);
    let file = dir.path().join("door_room.json");
    let before = std::fs::read_to_string(&file).unwrap();
    let settings = arbor::io::SettingsFile::new(dir.path().join("settings.json"));
    {
        let mut app = EditorApp::open(&file)
            .unwrap()
            .with_settings(settings.clone());
        app.select(Some(NodeId::new("open")));
        let mut h = harness(app);
        key(&mut h, Modifiers::NONE, Key::F9);
        key(&mut h, Modifiers::COMMAND, Key::S);
        // Written within a second of the change.
        h.run_steps(90);
    }
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        before,
        "the tree file is unchanged"
    );
    let app = EditorApp::open(&file)
        .unwrap()
        .with_settings(settings.clone());
    assert_eq!(
        app.breakpoints(),
        &[arbor::debug::Breakpoint {
            node: "open".into(),
            on: arbor::debug::BreakOn::Enter
        }]
    );
    // Another file has none.
    let other = EditorApp::open(&common::repo().join("sample_trees/door_room.json"))
        .unwrap()
        .with_settings(settings);
    assert!(other.breakpoints().is_empty());
}

#[test]
fn a_subtree_names_the_inner_leaf_that_runs() {
    let mut h = open_sample("guard_patrol");
    key(&mut h, Modifiers::NONE, Key::N);
    key(&mut h, Modifiers::NONE, Key::N);
    let core = core_at("guard_patrol", 2);
    let instance = core.sim().instance("guard").unwrap();
    let leaf = &instance.program().node_ids()[instance.active_leaves()[0] as usize];
    let inner = leaf
        .strip_prefix("patrol/")
        .expect("a leaf inside the subtree runs");
    h.get_by_label(&format!("▶ {inner} runs"));
    // And the SubTree node itself is lit as running.
    assert_eq!(
        h.state().live_status(&NodeId::new("patrol")),
        Some(arbor::runtime::Status::Running)
    );
}

/// The screen point of agent `i` (scenario order) in the arena.
fn in_arena(h: &Harness<'static, EditorApp>, i: usize) -> Pos2 {
    let arena = h.get_by_label("Arena").rect();
    let sim = h.state().simulation().unwrap().sim().unwrap();
    let tile = arena.width() / sim.world().width() as f32;
    let p = sim.summary()[i].pos;
    arena.min + egui::vec2((p[0] as f32 + 0.5) * tile, (p[1] as f32 + 0.5) * tile)
}

#[test]
fn a_click_on_an_agent_in_the_arena_watches_it() {
    let mut h = open_sample("droid_arena");
    key(&mut h, Modifiers::NONE, Key::N);
    let at = in_arena(&h, 1);
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    assert_eq!(h.state().simulation().unwrap().watched(), 1);
    h.get_by_label("brute: context");
}

#[test]
fn the_ring_on_a_selected_node_sets_a_breakpoint() {
    let mut h = open_sample("droid_arena");
    let at = on_node(&h, "choose");
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    assert_eq!(h.state().selection(), &[NodeId::new("choose")]);
    let ring = h.get_by_label("Set a breakpoint").rect().center();
    let at = h.state().camera().unwrap().mul_pos(ring);
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    assert_eq!(
        h.state().breakpoints(),
        &[arbor::debug::Breakpoint {
            node: "choose".into(),
            on: arbor::debug::BreakOn::Enter
        }]
    );
    h.get_by_label("Breakpoint");
}

#[test]
fn hovering_a_node_shows_its_counts_and_status() {
    let mut h = open_sample("door_room");
    for _ in 0..12 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    let core = core_at("door_room", 12);
    let instance = core.sim().instance("visitor").unwrap();
    let ids = instance.program().node_ids();
    let root = ids.iter().position(|i| i == "root").unwrap();
    let s = instance.node_states()[root];
    h.state_mut().focus(&NodeId::new("root"));
    h.state_mut().select(None);
    h.run_steps(3);
    h.hover_at(on_node(&h, "root"));
    h.run_steps(3);
    let counts = format!(
        "entered {} · succeeded {} · failed {} · aborted {}",
        s.entries, s.successes, s.failures, s.aborts
    );
    let near = h.get_by_label(&counts).rect();
    h.get_by_label_contains("running for");
    // Zoomed out far, the hover says the same at the same size.
    h.hover_at(egui::pos2(5.0, 5.0));
    h.run_steps(2);
    for _ in 0..12 {
        key(&mut h, Modifiers::COMMAND, Key::Minus);
    }
    h.run_steps(3);
    assert!(h.state().camera().unwrap().scaling < 0.3);
    h.hover_at(on_node(&h, "root"));
    h.run_steps(3);
    let far = h.get_by_label(&counts).rect();
    assert!(
        (far.height() - near.height()).abs() < 0.5 && (far.width() - near.width()).abs() < 0.5,
        "{far:?} against {near:?}"
    );
}

#[test]
fn hovering_a_node_that_failed_with_a_reason_says_why() {
    // At step 2 the scout's "Closest enemy" has found no threat.
    let core = core_at("droid_arena", 2);
    let instance = core.sim().instance("scout").unwrap();
    let at = instance
        .program()
        .node_ids()
        .iter()
        .position(|i| i == "find_threat")
        .unwrap();
    let why = instance.node_states()[at].reason.expect("a reason");
    let mut h = open_sample("droid_arena");
    for _ in 0..2 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    // Watch the scout: the Watch menu.
    h.get_by_role_and_label(Role::ComboBox, "Watch").click();
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, "scout").click();
    h.run_steps(2);
    h.get_by_label("scout: context");
    h.state_mut().focus(&NodeId::new("find_threat"));
    h.state_mut().select(None);
    h.run_steps(3);
    h.hover_at(on_node(&h, "find_threat"));
    h.run_steps(3);
    h.get_by_label(&format!("why: {why}"));
}

#[test]
fn pick_in_arena_makes_the_clicked_entity_the_trigger_payload() {
    let mut h = open_sample("pass_receive");
    key(&mut h, Modifiers::NONE, Key::N);
    h.get_by_label("Pick in arena").click();
    h.run_steps(2);
    let at = in_arena(&h, 1);
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    let panel = h.state().panel().unwrap();
    assert_eq!(panel.payload, "winger");
    assert_eq!(
        panel.debugger.watched(),
        0,
        "picking does not change the watched agent"
    );
    assert!(!panel.picking);
}

/// The broad wires drawn under the active path: each cubic curve painted this frame, as
/// its stroke's colour.
fn broad_wires(h: &Harness<'static, EditorApp>) -> Vec<egui::Color32> {
    fn walk(shape: &egui::Shape, out: &mut Vec<egui::Color32>) {
        match shape {
            egui::Shape::Vec(v) => v.iter().for_each(|s| walk(s, out)),
            egui::Shape::CubicBezier(c) => match &c.stroke.color {
                egui::epaint::ColorMode::Solid(colour) => out.push(*colour),
                other => panic!("a wire of {other:?}"),
            },
            _ => {}
        }
    }
    let mut out = Vec::new();
    for clipped in &h.output().shapes {
        walk(&clipped.shape, &mut out);
    }
    out
}

#[test]
fn the_wires_of_the_active_path_are_drawn_broad_in_the_running_colour() {
    let mut h = open_sample("door_room");
    // Zoomed out until the whole tree is on the canvas.
    for _ in 0..6 {
        key(&mut h, Modifiers::COMMAND, Key::Minus);
    }
    let canvas = h.state().canvas_rect().unwrap();
    for n in h.state().tree().nodes() {
        assert!(canvas.contains_rect(h.state().screen_rect_of(&n.id).unwrap()));
    }
    assert!(broad_wires(&h).is_empty(), "no run yet, no broad wire");
    for k in [1, 30, 31] {
        while h.query_by_label_contains(&format!("step {k},")).is_none() {
            key(&mut h, Modifiers::NONE, Key::N);
        }
        h.run_steps(1);
        // One broad wire from each running node up to its parent, in the running colour.
        let core = core_at("door_room", k);
        let instance = core.sim().instance("visitor").unwrap();
        let running = instance
            .node_states()
            .iter()
            .filter(|s| s.status == arbor::runtime::Status::Running)
            .count();
        let wires = broad_wires(&h);
        assert_eq!(wires.len(), running - 1, "step {k}: Root has no wire up");
        assert!(
            wires
                .iter()
                .all(|c| *c == arbor::editor::status_colour(arbor::runtime::Status::Running)),
            "{wires:?}"
        );
    }
}

/// The canvas's light of every node of a SubTree's tree shown inside the run, against
/// the core's states of the SubTree `prefix`'s inner nodes.
fn inner_lights_match(
    h: &Harness<'static, EditorApp>,
    core: &arbor::debug::Session,
    agent: &str,
    prefix: &str,
) {
    let instance = core.sim().instance(agent).unwrap();
    let mut lit = 0;
    for (id, state) in instance
        .program()
        .node_ids()
        .iter()
        .zip(instance.node_states())
    {
        let Some(inner) = id.strip_prefix(&format!("{prefix}/")) else {
            continue;
        };
        let shown = h.state().live_status(&NodeId::new(inner));
        let want = (state.status != arbor::runtime::Status::Idle || state.entries > 0)
            .then_some(state.status);
        lit += usize::from(want.is_some());
        assert_eq!(shown, want, "{id} at step {}", core.step_number());
    }
    assert!(
        lit > 0,
        "some inner node has a light at step {}",
        core.step_number()
    );
}

#[test]
fn opening_a_subtree_during_a_run_keeps_the_run_and_lights_its_inner_nodes() {
    let mut h = open_sample("guard_patrol");
    for _ in 0..2 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    // Select the SubTree with a click (brought into view first), open it with the
    // inspector's Open.
    h.state_mut().focus(&NodeId::new("patrol"));
    h.state_mut().select(None);
    h.run_steps(3);
    let at = on_node(&h, "patrol");
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    h.get_by_role_and_label(Role::Button, "Open").click();
    h.run_steps(3);
    let file = h.state().document().path().unwrap().to_owned();
    assert_eq!(file.file_name().unwrap(), "patrol.json");
    h.get_by_label_contains("step 2,");
    h.get_by_label_contains("SubTree patrol inside the run");
    inner_lights_match(&h, &core_at("guard_patrol", 2), "guard", "patrol");
    // The run goes on, lighting the inner nodes step by step.
    for _ in 0..25 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    h.get_by_label_contains("step 27,");
    inner_lights_match(&h, &core_at("guard_patrol", 27), "guard", "patrol");
    // A breakpoint set here is on the SubTree's inner node, kept for the running tree.
    let at = on_node(&h, "look_b");
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    key(&mut h, Modifiers::NONE, Key::F9);
    assert_eq!(
        h.state().breakpoints(),
        &[arbor::debug::Breakpoint {
            node: "patrol/look_b".into(),
            on: arbor::debug::BreakOn::Enter
        }]
    );
    // The button in the panel goes back to the running tree, at the same step.
    h.get_by_label_contains("Back to guard_patrol.json").click();
    h.run_steps(3);
    assert_eq!(
        h.state().document().path().unwrap().file_name().unwrap(),
        "guard_patrol.json"
    );
    h.get_by_label_contains("step 27,");
    lights_match(&h, &core_at("guard_patrol", 27), "guard");
    assert!(h.query_by_label_contains("inside the run").is_none());
    // The breakpoint is on the running tree's list, and Run stops there.
    key(&mut h, Modifiers::NONE, Key::Space);
    let mut core = core_at("guard_patrol", 27);
    let hits = core.run(
        2000,
        &[arbor::debug::Breakpoint {
            node: "patrol/look_b".into(),
            on: arbor::debug::BreakOn::Enter,
        }],
    );
    let stop = hits.first().expect("the core hits the breakpoint").step;
    for _ in 0..400 {
        if !h.state().simulation().unwrap().is_running() {
            break;
        }
        h.run_steps(4);
    }
    assert_eq!(h.state().simulation().unwrap().step_number(), stop);
}

#[test]
fn the_event_log_names_a_subtrees_nodes_by_their_titles() {
    let mut h = open_sample("guard_patrol");
    for _ in 0..3 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    // Seen from the running tree: the inner nodes as the SubTree's asset titles them, in
    // the log and in what runs now.
    h.get_by_label_contains("Go to the first post entered");
    h.get_by_label_contains("running: Go to the first post");
    h.get_by_label_contains("Patrol entered");
    // (The SubTree's own keys are named `patrol/…` in the context panel; its nodes are not.)
    for id in ["patrol/to_a", "patrol/route", "patrol/look_a"] {
        assert!(h.query_by_label_contains(id).is_none(), "{id}");
    }
    // Seen from inside the SubTree: the nodes around it as the running tree titles them.
    open_patrol_from_its_menu(&mut h);
    h.get_by_label_contains("SubTree patrol inside the run");
    h.get_by_label_contains("Go to the first post entered");
    h.get_by_label_contains("Guard duty entered");
    // (The SubTree's own keys are named `patrol/…` in the context panel; its nodes are not.)
    for id in ["patrol/to_a", "patrol/route", "patrol/look_a"] {
        assert!(h.query_by_label_contains(id).is_none(), "{id}");
    }
}

#[test]
fn editing_a_subtree_shown_inside_a_run_runs_it_on_its_own() {
    let mut h = open_sample("guard_patrol");
    key(&mut h, Modifiers::NONE, Key::N);
    open_patrol_from_its_menu(&mut h);
    h.get_by_label_contains("SubTree patrol inside the run");
    // An edit (delete a node) ends the view into the run.
    let at = on_node(&h, "look_b");
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    key(&mut h, Modifiers::NONE, Key::Delete);
    assert!(h.query_by_label_contains("inside the run").is_none());
    h.get_by_label_contains("patrol.json alone in an empty world");
    assert_eq!(h.state().simulation().unwrap().step_number(), 0);
}

#[test]
fn a_subtree_opened_before_the_first_step_is_shown_inside_the_run_and_back_returns() {
    let mut h = open_sample("guard_patrol");
    open_patrol_from_its_menu(&mut h);
    h.get_by_label_contains("SubTree patrol inside the run");
    assert_eq!(
        h.state().document().path().unwrap().file_name().unwrap(),
        "patrol.json"
    );
    // Stepping lights the asset's nodes; Ctrl+Backspace goes back to the running tree.
    key(&mut h, Modifiers::NONE, Key::N);
    assert_eq!(h.state().simulation().unwrap().step_number(), 1);
    key(&mut h, Modifiers::COMMAND, Key::Backspace);
    assert_eq!(
        h.state().document().path().unwrap().file_name().unwrap(),
        "guard_patrol.json"
    );
    assert_eq!(h.state().simulation().unwrap().step_number(), 1);
}

#[test]
fn a_breakpoint_shows_as_a_red_dot_zoomed_out_far_too() {
    let mut h = open_sample("pass_receive");
    h.state_mut().select(Some(NodeId::new("receive")));
    key(&mut h, Modifiers::NONE, Key::F9);
    assert_eq!(h.state().breakpoints().len(), 1);
    h.get_by_label("Breakpoint");
    for _ in 0..12 {
        key(&mut h, Modifiers::COMMAND, Key::Minus);
    }
    h.run_steps(3);
    let scale = h.state().camera().unwrap().scaling;
    assert!(scale < 0.4, "zoomed out far: {scale}");
    // Its dot is still drawn, and large enough to see on screen.
    let dot = h.get_by_label("Breakpoint").rect();
    assert!(
        dot.width() * scale >= 8.0,
        "{} points on screen",
        dot.width() * scale
    );
}

#[test]
fn the_arena_pops_out_into_a_window_as_large_as_it_is_made_and_goes_back() {
    let mut h = open_sample("droid_arena");
    key(&mut h, Modifiers::NONE, Key::N);
    let small = h.get_by_label("Arena").rect();
    h.get_by_role_and_label(Role::Button, "Pop out the arena")
        .click();
    h.run_steps(4);
    h.get_by_label("The arena");
    let large = h.get_by_label("Arena").rect();
    assert!(
        large.width() > 1.5 * small.width(),
        "{} against {} points wide",
        large.width(),
        small.width()
    );
    // It works there as in the panel: a click on an agent watches it.
    let at = in_arena(&h, 2);
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    assert_eq!(h.state().simulation().unwrap().watched(), 2);
    // Put back from the panel.
    h.get_by_role_and_label(Role::Button, "Put the arena back")
        .click();
    h.run_steps(20);
    assert!(h.query_by_label("The arena").is_none());
    assert_eq!(h.get_by_label("Arena").rect().width(), small.width());
}

#[test]
fn the_event_log_and_an_agents_state_are_at_least_12_points() {
    let mut h = open_sample("door_room");
    for _ in 0..3 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    // A log line and a state line, measured as drawn: one line at least 12 points high.
    let state = h.get_by_label_contains("health 100/100").rect();
    assert!(state.height() >= 12.0, "{}", state.height());
    let line = h.get_by_label("step 1").rect();
    assert!(line.height() >= 12.0, "{}", line.height());
}

/// A session of the droid arena scenario, its tree replaced by `tree` as edited, at step
/// `k`.
fn droid_arena_edited_at(tree: &arbor::model::Tree, k: u64) -> arbor::debug::Session {
    let scenario = common::repo().join("sample_trees/droid_arena.scenario.json");
    let text = std::fs::read_to_string(&scenario).unwrap();
    let parsed = arbor::world::parse_scenario(&text, &scenario).unwrap();
    let tree_path = common::repo().join("sample_trees/droid_arena.json");
    let sim = arbor::world::Simulation::with_edited(
        &scenario,
        parsed,
        &arbor::model::Catalog::builtin(),
        0,
        (&tree_path, tree),
        false,
    )
    .unwrap();
    let mut s = arbor::debug::Session::new(sim, 0.1);
    s.run(k, &[]);
    s
}

/// Whether the canvas shows, for every node, the core's node state (status and counts)
/// of `agent`.
fn shows_states_of(
    h: &Harness<'static, EditorApp>,
    core: &arbor::debug::Session,
    agent: &str,
) -> bool {
    let instance = core.sim().instance(agent).unwrap();
    let live = h.state().simulation().unwrap().live();
    instance
        .program()
        .node_ids()
        .iter()
        .zip(instance.node_states())
        .all(|(id, state)| {
            let shown = live.get(&NodeId::new(id.as_str())).map(|l| &l.state);
            match shown {
                Some(s) => {
                    (s.status, s.entries, s.successes, s.failures)
                        == (state.status, state.entries, state.successes, state.failures)
                }
                None => state.entries == 0,
            }
        })
}

#[test]
fn an_edit_at_step_38_reruns_to_step_38_with_the_history_and_undo_brings_the_run_back() {
    let mut h = open_sample("droid_arena");
    for _ in 0..38 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    let agent = h
        .state()
        .simulation()
        .unwrap()
        .watched_name()
        .unwrap()
        .to_owned();
    let original = core_at("droid_arena", 38);
    assert!(shows_states_of(&h, &original, &agent));
    // The designer selects "Closest enemy" and types a new max_distance in the inspector.
    h.state_mut().focus(&NodeId::new("find_target"));
    h.run_steps(3);
    let at = on_node(&h, "find_target");
    click_at(&mut h, at, PointerButton::Primary, Modifiers::NONE);
    type_into(&mut h, "max_distance", "2");
    let node = h
        .state()
        .tree()
        .node(&NodeId::new("find_target"))
        .unwrap()
        .clone();
    assert_eq!(
        node.fields.get("max_distance"),
        Some(&arbor::model::Value::Float(2.0))
    );
    // The run is taken again to step 38 with the edit, and says so.
    assert!(
        h.state().status().contains("Re-ran 38 steps with the edit"),
        "{}",
        h.state().status()
    );
    assert_eq!(h.state().simulation().unwrap().step_number(), 38);
    let edited = droid_arena_edited_at(h.state().tree(), 38);
    assert!(
        shows_states_of(&h, &edited, &agent),
        "the edited run at step 38"
    );
    assert!(
        !shows_states_of(&h, &original, &agent),
        "which differs from the run before"
    );
    // Its history is there: Shift+← shows step 37 of the edited run.
    key(&mut h, Modifiers::SHIFT, Key::ArrowLeft);
    assert_eq!(h.state().simulation().unwrap().step_number(), 37);
    assert!(shows_states_of(
        &h,
        &droid_arena_edited_at(h.state().tree(), 37),
        &agent
    ));
    // Undo: the tree and the run from before the edit, at step 38.
    key(&mut h, Modifiers::NONE, Key::Escape);
    key(&mut h, Modifiers::COMMAND, Key::Z);
    assert!(
        h.state()
            .status()
            .contains("Back to the run before the edit"),
        "{}",
        h.state().status()
    );
    assert_eq!(h.state().simulation().unwrap().step_number(), 38);
    assert!(shows_states_of(&h, &original, &agent));
    // Redo: the edited run again.
    key(&mut h, Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    assert!(shows_states_of(
        &h,
        &droid_arena_edited_at(h.state().tree(), 37),
        &agent
    ));
}

#[test]
fn moving_a_node_keeps_the_run_and_removing_the_running_leaf_starts_over_saying_why() {
    let mut h = open_sample("door_room");
    for _ in 0..20 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    // A drag of a node changes nothing that runs: the run stays at step 20, unsaid.
    let leaf = h.state().simulation().unwrap().running_leaves()[0].clone();
    h.state_mut().focus(&NodeId::new(leaf.as_str()));
    h.run_steps(3);
    let from = on_node(&h, &leaf);
    drag(
        &mut h,
        from,
        from + egui::vec2(40.0, 30.0),
        PointerButton::Primary,
        Modifiers::NONE,
    );
    assert!(h.state().is_dirty(), "moved");
    assert_eq!(h.state().simulation().unwrap().step_number(), 20);
    assert!(
        !h.state().status().contains("Re-ran"),
        "{}",
        h.state().status()
    );
    // Deleting the leaf the agent runs: the run cannot reach step 20 the same way.
    key(&mut h, Modifiers::NONE, Key::Delete);
    assert!(!h.state().tree().contains(&NodeId::new(leaf.as_str())));
    let said = h.state().status().to_owned();
    assert!(
        said.contains(&format!("removed {leaf}")) && said.contains("starts over"),
        "{said}"
    );
    assert_eq!(h.state().simulation().unwrap().step_number(), 0);
}

#[test]
fn the_event_log_names_an_untitled_node_by_its_kind_and_id_and_a_titled_one_by_its_title() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_samples(
        dir.path(),
        &["hungry_agent.json", "hungry_agent.scenario.json"],
    );
    let tree = dir.path().join("hungry_agent.json");
    let text = std::fs::read_to_string(&tree).unwrap();
    std::fs::write(&tree, text.replace("\"title\": \"Eat or idle\",", "")).unwrap();
    let mut h = harness(EditorApp::open(&tree).unwrap());
    key(&mut h, Modifiers::NONE, Key::N);
    h.get_by_label_contains("Selector `choose` entered");
    h.get_by_label_contains("Root `root` entered");
    let titled = |h: &Harness<'static, EditorApp>| {
        h.query_by_label_contains("Have a meal entered").is_some()
            || h.query_by_label_contains("Idle about entered").is_some()
    };
    assert!(titled(&h), "a titled node by its title");
    assert!(h.query_by_label_contains("Selector entered").is_none());
    // A replay of that run names them alike.
    let trace = record(&dir.path().join("hungry_agent.scenario.json"), 5);
    let mut h = harness(EditorApp::start(None, Some(&trace), None));
    key(&mut h, Modifiers::NONE, Key::N);
    h.get_by_label_contains("Selector `choose` entered");
    assert!(titled(&h));
}

#[test]
fn a_click_on_a_key_shows_its_history_and_a_click_on_an_entry_goes_to_its_step() {
    let mut h = open_sample("door_room");
    for _ in 0..80 {
        key(&mut h, Modifiers::NONE, Key::N);
    }
    h.get_by_label_contains("step 80,");
    // The core's history of the key over the same 80 steps.
    let mut core = core_at("door_room", 80);
    core.follow(0, "room");
    let writes = core.key_history().unwrap().writes.clone();
    let first = writes
        .iter()
        .find(|w| matches!(w.change, arbor::debug::KeyChange::Written(Some(_))))
        .expect("door_room writes its room");
    // The key's row, clicked, opens its history.
    h.get_by_role_and_label(Role::Button, "key room").click();
    h.run_steps(3);
    h.get_by_label("History of room");
    use egui_kittest::kittest::NodeT;
    assert_eq!(
        h.query_all_by_label_contains(": ")
            .filter(|n| n
                .accesskit_node()
                .label()
                .is_some_and(|l| l.starts_with("step ")))
            .count(),
        writes.len(),
        "one line an entry"
    );
    // The entry names the node by its title and the value by the entity's name.
    let program = core.instance(0).unwrap().program().clone();
    let arbor::debug::KeyChange::Written(Some(n)) = first.change else {
        unreachable!()
    };
    let id = &program.node_ids()[n as usize];
    let title = h
        .state()
        .tree()
        .node(&NodeId::new(id.as_str()))
        .unwrap()
        .label()
        .to_owned();
    let line = format!(
        "step {}: {title} wrote {}",
        first.step,
        first.value.as_deref().unwrap()
    );
    h.get_by_label(&line).scroll_to_me();
    h.run_steps(10);
    h.get_by_label(&line).click();
    h.run_steps(3);
    assert_eq!(h.state().simulation().unwrap().step_number(), first.step);
    h.get_by_label_contains(&format!("step {},", first.step));
    // The context shows the value written there.
    let rows = h.state().simulation().unwrap().source().unwrap().context(0);
    let row = rows.iter().find(|r| r.key == "room").unwrap();
    assert_eq!(row.value, first.value);
    assert!(row.written);
    // A click on the key again (scrolled back into view) closes it.
    h.get_by_role_and_label(Role::Button, "key room")
        .scroll_to_me();
    h.run_steps(10);
    h.get_by_role_and_label(Role::Button, "key room").click();
    h.run_steps(3);
    assert!(h.query_by_label("History of room").is_none());
}

#[test]
fn a_declared_key_shows_its_type_and_default_before_the_first_step() {
    let dir = tempfile::tempdir().unwrap();
    let path = common::moody_tree(dir.path());
    let mut h = harness(EditorApp::open(&path).unwrap());
    h.run_steps(2);
    h.get_by_label("\"calm\"");
    h.get_by_label("text");
    h.get_by_label("(default)");
    key(&mut h, Modifiers::NONE, Key::N);
    key(&mut h, Modifiers::NONE, Key::N);
    h.get_by_label("\"angry\"");
    assert!(h.query_by_label("(default)").is_none());
    // Its history: the default at the start, the write, the clear.
    h.get_by_role_and_label(Role::Button, "key mood").click();
    h.run_steps(3);
    h.get_by_label("step 0: \"calm\" from the start (default)");
    h.get_by_label("step 2: Get angry wrote \"angry\"");
    key(&mut h, Modifiers::NONE, Key::N);
    key(&mut h, Modifiers::NONE, Key::N);
    h.get_by_label("step 4: run succeeded, back to \"calm\"");
    h.get_by_label("step 0: \"calm\" from the start (default)")
        .click();
    h.run_steps(3);
    assert_eq!(h.state().simulation().unwrap().step_number(), 0);
    h.get_by_label("(default)");
}
