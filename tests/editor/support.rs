//! Helpers the editor's tests share: apps to start from, the core's run the window is
//! compared with, a recorded trace and the menu that opens it.

use crate::common;

use arbor::editor::EditorApp;
use arbor::model::NodeId;
use eframe::egui::{self, Key, Modifiers, PointerButton};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use common::input::{click_at, key, on_node};

pub(crate) fn ids(list: &[&str]) -> Vec<NodeId> {
    list.iter().map(|s| NodeId::new(*s)).collect()
}

/// Five loose Wait nodes: a row of three, and two below; the view shows graph point
/// (0, 0) at screen (250, 100), at 100 %.
pub(crate) fn five_waits() -> EditorApp {
    let mut app = EditorApp::new(arbor::model::Tree::new(), None);
    for (x, y) in [
        (0.0, 0.0),
        (300.0, 0.0),
        (600.0, 0.0),
        (0.0, 350.0),
        (300.0, 350.0),
    ] {
        app.add_node("Wait", [x, y]).unwrap();
    }
    app.select(None);
    app.pin_view(egui::emath::TSTransform::from_translation(egui::vec2(
        250.0, 100.0,
    )));
    app
}

/// A fresh session of `name`'s scenario (seed 0, as the editor runs it) at step `k`.
pub(crate) fn core_at(name: &str, k: u64) -> arbor::debug::Session {
    let sim = arbor::world::Simulation::load(
        &common::repo().join(format!("sample_trees/{name}.scenario.json")),
        &arbor::model::Catalog::builtin(),
        0,
        None,
    )
    .unwrap();
    let mut s = arbor::debug::Session::new(sim, 0.1);
    s.run(k, &[]);
    s
}

/// The canvas's light of every node against the core's node states for `agent`.
pub(crate) fn lights_match(
    h: &Harness<'static, EditorApp>,
    core: &arbor::debug::Session,
    agent: &str,
) {
    lights_match_except(h, core, agent, "");
}

pub(crate) fn open_sample(name: &str) -> Harness<'static, EditorApp> {
    common::harness_at_100(
        EditorApp::open(&common::repo().join(format!("sample_trees/{name}.json"))).unwrap(),
    )
}

/// Open SubTree from the right-click menu of guard_patrol's SubTree node `patrol` (the
/// node brought into view first).
pub(crate) fn open_patrol_from_its_menu(h: &mut Harness<'static, EditorApp>) {
    h.state_mut().focus(&NodeId::new("patrol"));
    h.state_mut().select(None);
    h.run_steps(3);
    let at = on_node(h, "patrol");
    click_at(h, at, PointerButton::Secondary, Modifiers::NONE);
    h.get_by_label_contains("Open SubTree").click();
    h.run_steps(3);
}

/// guard_patrol's files (the tree, its scenario, the thief's tree and its SubTree's)
/// copied into a new folder.
pub(crate) fn guard_patrol_files() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("subtrees")).unwrap();
    common::copy_samples(
        dir.path(),
        &[
            "guard_patrol.json",
            "guard_patrol.scenario.json",
            "chase_flee.json",
            "subtrees/patrol.json",
        ],
    );
    dir
}

/// guard_patrol's files copied into a new folder, and a trace of 120 steps of its
/// scenario (seed 0, as the editor runs it) recorded there by `arbor run --trace`.
pub(crate) fn recorded_guard_patrol() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = guard_patrol_files();
    let trace = record(&dir.path().join("guard_patrol.scenario.json"), 120);
    (dir, trace)
}

/// `run.jsonl` beside `scenario`: `steps` steps of it (seed 0) recorded by `arbor run
/// --trace`.
pub(crate) fn record(scenario: &std::path::Path, steps: u64) -> std::path::PathBuf {
    let trace = scenario.with_file_name("run.jsonl");
    let args = arbor::cli::RunArgs {
        trace: Some(&trace),
        ..arbor::cli::RunArgs::new(scenario, steps)
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = arbor::cli::run(&args, &arbor::model::Catalog::builtin(), &mut out, &mut err);
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
    trace
}

/// File > Open Trace…, the trace's path typed into the chooser, Enter.
pub(crate) fn open_trace_through_the_menu(
    h: &mut Harness<'static, EditorApp>,
    trace: &std::path::Path,
) {
    h.get_by_label("File").click();
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, "Open Trace…").click();
    h.run_steps(3);
    let field = h.get_by_role_and_label(Role::TextInput, "Open a trace");
    field.focus();
    field.type_text(&trace.display().to_string());
    h.run_steps(2);
    key(h, Modifiers::NONE, Key::Enter);
    h.run_steps(3);
}

/// [`lights_match`] for every node but `except` (which the tree shown no longer has; ""
/// for none).
pub(crate) fn lights_match_except(
    h: &Harness<'static, EditorApp>,
    core: &arbor::debug::Session,
    agent: &str,
    except: &str,
) {
    let instance = core.sim().instance(agent).unwrap();
    for (id, state) in instance
        .program()
        .node_ids()
        .iter()
        .zip(instance.node_states())
        .filter(|(id, _)| id.as_str() != except)
    {
        let shown = h.state().live_status(&NodeId::new(id.as_str()));
        let want = (state.status != arbor::runtime::Status::Idle || state.entries > 0)
            .then_some(state.status);
        assert_eq!(shown, want, "{id} at step {}", core.step_number());
    }
}

/// The ids of the nodes of the tree `h` shows, in the tree's order.
pub(crate) fn node_ids(h: &Harness<'static, EditorApp>) -> Vec<NodeId> {
    h.state()
        .tree()
        .nodes()
        .iter()
        .map(|n| n.id.clone())
        .collect()
}

/// The text field named `name`, its text replaced by `text`, then Enter: as a person
/// retypes a field.
pub(crate) fn type_into(h: &mut Harness<'static, EditorApp>, name: &str, text: &str) {
    h.get_by_label(name).click();
    h.run_steps(2);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label(name).type_text(text);
    h.run_steps(2);
    key(h, Modifiers::NONE, Key::Enter);
    h.run_steps(3);
}

/// Clicks the side panel's button `label` once it is scrolled into view (the panel
/// scrolls smoothly: it is let arrive first).
pub(crate) fn click_in_side_panel(h: &mut Harness<'static, EditorApp>, label: &str) {
    h.get_by_role_and_label(Role::Button, label).scroll_to_me();
    h.run_steps(10);
    h.get_by_role_and_label(Role::Button, label).click();
    h.run_steps(3);
}

/// File > Save Recording…, `path` typed over the name offered, and Enter.
pub(crate) fn save_recording_as(h: &mut Harness<'static, EditorApp>, path: &std::path::Path) {
    h.get_by_role_and_label(Role::Button, "File").click();
    h.run_steps(2);
    h.get_by_label("Save Recording…").click();
    h.run_steps(3);
    h.get_by_label("Save the recording as").focus();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label("Save the recording as")
        .type_text(&path.display().to_string());
    h.run_steps(2);
    h.get_by_label("Save the recording as").focus();
    h.run_steps(1);
    h.key_press(Key::Enter);
    h.run_steps(3);
}
