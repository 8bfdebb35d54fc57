//! A running BehaviorTree.CPP program attached to through File > Attach to
//! BehaviorTree.CPP…: the real BehaviorTree.CPP (tests/btcpp/publish.py) lit live, its
//! blackboard in the context panel, and a breakpoint set with F9 holding the program
//! until Run lets it go.

use crate::common;

use std::time::{Duration, Instant};

use arbor::editor::EditorApp;
use arbor::model::NodeId;
use arbor::remote::Listener;
use eframe::egui::accesskit::Role;
use eframe::egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use crate::support::save_recording_as;
use common::harness;
use common::input::key;
use common::program::Program;

/// Draws frames (20 ms apart, at most 30 s) until `done`.
fn until(
    h: &mut Harness<'static, EditorApp>,
    what: &str,
    mut done: impl FnMut(&Harness<'static, EditorApp>) -> bool,
) {
    let end = Instant::now() + Duration::from_secs(30);
    while !done(h) {
        assert!(
            Instant::now() < end,
            "waited 30 s for {what}; the status line says: {}",
            h.state().status()
        );
        std::thread::sleep(Duration::from_millis(20));
        h.run_steps(1);
    }
}

/// How often node `id` was entered, as the canvas lights it.
fn entered(h: &Harness<'static, EditorApp>, id: &str) -> u32 {
    h.state()
        .simulation()
        .and_then(|s| s.live().get(&NodeId::new(id)).map(|l| l.state.entries))
        .unwrap_or(0)
}

#[test]
fn a_behaviortree_cpp_program_attached_from_the_file_menu_is_lit_live_and_held_by_a_breakpoint() {
    let mut program = Program::start();
    let listener = Listener::local(0).unwrap();
    let mut h = harness(EditorApp::new(arbor::editor::new_tree(), None).with_listener(listener));
    // File > Attach to BehaviorTree.CPP…: the address offered is the publisher's usual
    // one; the program's port is typed over it.
    h.get_by_role_and_label(Role::Button, "File").click();
    h.run_steps(2);
    h.get_by_label("Attach to BehaviorTree.CPP…").click();
    h.run_steps(3);
    let offered = h
        .get_by_label("Attach to BehaviorTree.CPP at")
        .value()
        .unwrap_or_default();
    assert_eq!(offered, "127.0.0.1:1667");
    key(&mut h, Modifiers::COMMAND, Key::A);
    h.get_by_label("Attach to BehaviorTree.CPP at")
        .type_text(&program.port.to_string());
    h.run_steps(1);
    h.key_press(Key::Enter);
    h.run_steps(3);
    let name = format!("BehaviorTree.CPP at 127.0.0.1:{}", program.port);
    until(&mut h, "the program shown live", |h| {
        h.query_by_label_contains(&format!("live: {name}, connected"))
            .is_some()
    });
    // Its tree, with the kinds its models describe, no placeholder among them.
    assert!(
        h.state()
            .said(&format!("this is the tree {name} sent (Save As keeps it)"))
    );
    assert!(!h.state().said("not on this machine"));
    assert!(h.state().tree().node(&NodeId::new("walk")).is_some());
    let kinds = h.state().catalog();
    assert!(kinds.kind("Walk").is_some_and(|k| !k.is_placeholder()));
    // Lit as it runs, its blackboard in the context panel.
    program.say("tick 3 50");
    for _ in 0..3 {
        program.json(Duration::from_secs(30)).unwrap();
    }
    until(&mut h, "walk lit", |h| entered(h, "walk") >= 1);
    until(&mut h, "laps in the context", |h| {
        let run = h.state().simulation().and_then(|s| s.source());
        run.is_some_and(|r| {
            r.context(0)
                .iter()
                .any(|row| row.key == "laps" && row.value.as_deref() == Some("1"))
        })
    });
    // `walk` found (Ctrl+F) and F9: the program is held as it enters `walk` again.
    key(&mut h, Modifiers::COMMAND, Key::F);
    h.get_by_label("Find node").type_text("walk");
    h.run_steps(3);
    key(&mut h, Modifiers::NONE, Key::Escape);
    assert_eq!(h.state().selection(), &[NodeId::new("walk")]);
    key(&mut h, Modifiers::NONE, Key::F9);
    assert_eq!(h.state().breakpoints()[0].node, "walk");
    // One tick at a time, until the bridge has the breakpoint (at its next poll) and
    // `walk` is entered: a tick held prints nothing.
    let end = Instant::now() + Duration::from_secs(30);
    let mut ticks = 3;
    while h
        .query_by_label_contains("held in the game: Patrol")
        .is_none()
    {
        assert!(Instant::now() < end, "never held: {}", h.state().status());
        program.say("tick 1 0");
        let before = Instant::now();
        while before.elapsed() < Duration::from_millis(300)
            && h.query_by_label_contains("held in the game: Patrol")
                .is_none()
        {
            if program.line(Duration::from_millis(20)).is_some() {
                ticks += 1;
            }
            h.run_steps(1);
        }
    }
    assert_eq!(program.line(Duration::from_millis(300)), None, "held");
    // Run (Space) lets it go: the tick ends.
    key(&mut h, Modifiers::NONE, Key::Space);
    let end = Instant::now() + Duration::from_secs(30);
    let tick = loop {
        assert!(Instant::now() < end, "never let go");
        h.run_steps(1);
        if let Some(t) = program.json(Duration::from_millis(20)) {
            break t;
        }
    };
    assert_eq!(tick["tick"], ticks + 1);
    // File > Save Recording…: what was seen, as a trace, with the program's tree beside.
    until(&mut h, "walk's last entry shown", |h| {
        entered(h, "walk") >= 2
    });
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("patrol_live.jsonl");
    save_recording_as(&mut h, &record);
    assert!(record.is_file(), "{}", h.state().last_message());
    let tree = dir.path().join("patrol_live.recorded.xml");
    assert!(
        h.state()
            .last_message()
            .contains("patrol_live.recorded.xml")
    );
    let trace = arbor::io::read_trace(&record).unwrap();
    assert_eq!(
        trace.header.as_ref().unwrap().agents[0].tree,
        "patrol_live.recorded.xml"
    );
    let walk_entries = trace
        .events
        .iter()
        .filter(|e| {
            e.node.as_deref() == Some("walk") && e.kind == arbor::runtime::EventKindOf::Enter
        })
        .count();
    assert!(walk_entries >= 2, "{walk_entries}");
    // The tree beside it is the program's, and it replays the recording.
    let (loaded, _) = arbor::io::load_tree_kept(&tree)
        .map(|(t, _, k)| (t, k))
        .unwrap();
    assert!(loaded.node(&NodeId::new("walk")).is_some());
    let replayed = harness(EditorApp::start(None, Some(&record), None));
    assert!(
        replayed.state().tree().node(&NodeId::new("walk")).is_some(),
        "{}",
        replayed.state().status()
    );
    assert!(replayed.state().simulation().unwrap().is_replay());
}

/// Right-clicks node `id` (in view) and chooses `choice` in its Force Result menu.
fn force(h: &mut Harness<'static, EditorApp>, id: &str, choice: &str) {
    common::settled(h);
    let at = common::input::on_node(h, id);
    assert!(
        h.state().canvas_rect().unwrap().contains(at),
        "{id} in view"
    );
    common::input::click_at(
        h,
        at,
        eframe::egui::PointerButton::Secondary,
        Modifiers::NONE,
    );
    h.get_by_label("Force Result ⏵").click();
    h.run_steps(2);
    h.get_by_label(choice).click();
    h.run_steps(3);
}

#[test]
fn a_node_of_a_behaviortree_cpp_program_is_forced_from_its_right_click_menu_and_set_back() {
    let mut program = Program::start();
    let listener = Listener::local(0).unwrap();
    let mut app = EditorApp::new(arbor::editor::new_tree(), None).with_listener(listener);
    app.attach_program(program.address());
    let mut h = harness(app);
    until(&mut h, "the program shown live", |h| {
        h.query_by_label_contains("live: BehaviorTree.CPP at")
            .is_some()
    });
    // `patrol` (the Sequence under Root) right-clicked, Force Result ⏵ failure.
    force(&mut h, "patrol", "failure");
    h.get_by_label_contains("patrol now reports failure instead of running");
    // The bridge forces it at its next poll: the program's ticks then fail at once, its
    // leaves not called.
    let end = Instant::now() + Duration::from_secs(30);
    let mut failed = 0;
    while failed < 3 {
        assert!(Instant::now() < end, "never forced: {}", h.state().status());
        program.say("tick 1 0");
        let tick = program.json(Duration::from_secs(30)).unwrap();
        failed = if tick["status"] == "FAILURE" {
            failed + 1
        } else {
            0
        };
        h.run_steps(1);
    }
    // Forced: every tick fails, and no leaf of the program runs.
    program.say("counts");
    let before = program.json(Duration::from_secs(10)).unwrap();
    program.say("tick 5 0");
    for _ in 0..5 {
        let tick = program.json(Duration::from_secs(30)).unwrap();
        assert_eq!(tick["status"], "FAILURE", "{tick}");
    }
    program.say("counts");
    let after = program.json(Duration::from_secs(10)).unwrap();
    assert_eq!(before, after);
    // As it runs: the program's own Sequence again.
    force(&mut h, "patrol", "As it runs");
    h.get_by_label_contains("patrol runs as it is again");
}
