//! The editor's commands as a person finds them: every shortcut runs its command and is
//! shown in its menu, the command palette, Help, the status messages, the window's icon,
//! size and fonts.

use crate::common;
use crate::support::*;

use arbor::editor::{Command, EditorApp};
use arbor::model::NodeId;
use eframe::egui::{self, Key, Modifiers, PointerButton, Pos2};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};

use common::harness;
use common::input::{click_at, key, press};

#[test]
fn every_shortcut_runs_its_command_and_is_shown_in_its_menu() {
    let clipboard = EditorApp::sample().tree().clone();
    let clipboard = arbor::io::tree_to_string(&clipboard);
    for &command in Command::ALL {
        for shortcut in command.shortcuts() {
            if matches!(command, Command::OpenSubTree | Command::BackToRunTree) {
                // These need a SubTree selected in a run, and its tree opened.
                let path = common::repo().join("sample_trees/guard_patrol.json");
                let mut app = EditorApp::open(&path).unwrap();
                app.select(Some(NodeId::new("patrol")));
                let mut h = harness(app);
                key(&mut h, Modifiers::NONE, Key::N);
                if command == Command::BackToRunTree {
                    key(&mut h, Modifiers::COMMAND, Key::Enter);
                }
                press(&mut h, *shortcut, "");
                assert!(h.state().commands_run().contains(&command), "{command:?}");
                continue;
            }
            let mut app = EditorApp::sample();
            // Something to undo, something to redo, a selection.
            app.apply(arbor::model::Edit::SetTitle {
                id: NodeId::new("wander"),
                title: "Stroll".into(),
            });
            app.apply(arbor::model::Edit::SetTitle {
                id: NodeId::new("wander"),
                title: "Amble".into(),
            });
            app.undo();
            app.select(Some(NodeId::new("flee")));
            let mut h = harness(app);
            // A step taken, so there is one to go back to.
            key(&mut h, Modifiers::NONE, Key::N);
            press(&mut h, *shortcut, &clipboard);
            assert!(
                h.state().commands_run().contains(&command),
                "{} did not run {command:?}: ran {:?}",
                h.ctx.format_shortcut(shortcut),
                h.state().commands_run()
            );
        }
        if let Some(first) = command.shortcuts().first() {
            // Listed in its menu with that shortcut.
            let mut h = harness(EditorApp::sample());
            h.get_by_role_and_label(Role::Button, command.menu().label())
                .click();
            h.run_steps(2);
            let item = format!("{} {}", command.label(), h.ctx.format_shortcut(first));
            h.get_by_role_and_label(Role::Button, &item);
        }
    }
}

#[test]
fn status_messages_expire_and_the_list_is_one_click_away() {
    let mut h = harness(EditorApp::sample());
    key(&mut h, Modifiers::COMMAND, Key::A);
    key(&mut h, Modifiers::COMMAND, Key::C);
    h.get_by_label("Copied 11 node(s)");
    h.run_steps(40); // ten seconds
    assert_eq!(h.state().status(), "");
    h.get_by_label("Ready").click();
    h.run_steps(3);
    h.get_by_label_contains("Copied 11 node(s)");
}

#[test]
fn the_command_palette_finds_a_command_by_name_and_enter_runs_it() {
    let mut h = harness(five_waits());
    let before = h.state().tree().clone();
    key(&mut h, Modifiers::COMMAND | Modifiers::SHIFT, Key::P);
    h.get_by_label("Command palette").type_text("arrange");
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, "Arrange  ·  View Ctrl+L");
    h.key_press(Key::Enter);
    h.run_steps(3);
    assert_eq!(h.state().commands_run().last(), Some(&Command::Arrange));
    assert_ne!(h.state().tree(), &before);
}

#[test]
fn the_window_icon_is_arbors_own() {
    let icon = arbor::editor::icon().expect("assets/icon.png is a PNG");
    assert_eq!((icon.width, icon.height), (256, 256));
}

/// The platform reports a monitor of `size` for the 1400 × 860 window, and a frame runs.
fn on_monitor(h: &mut Harness<'static, EditorApp>, size: egui::Vec2) {
    let viewport = h
        .input_mut()
        .viewports
        .entry(egui::ViewportId::ROOT)
        .or_default();
    viewport.monitor_size = Some(size);
    viewport.inner_rect = Some(egui::Rect::from_min_size(
        Pos2::ZERO,
        egui::vec2(1400.0, 860.0),
    ));
    h.step();
}

#[test]
fn a_window_larger_than_its_monitor_opens_shrunk_to_fit_and_centred() {
    let app = EditorApp::open(&common::repo().join("sample_trees/droid_arena.json")).unwrap();
    let mut h = harness(app);
    // The platform reports the monitor and a window restored larger than it.
    on_monitor(&mut h, egui::vec2(1280.0, 720.0));
    let commands = &h.output().viewport_output[&egui::ViewportId::ROOT].commands;
    let size = commands.iter().find_map(|c| match c {
        egui::ViewportCommand::InnerSize(s) => Some(*s),
        _ => None,
    });
    let at = commands.iter().find_map(|c| match c {
        egui::ViewportCommand::OuterPosition(p) => Some(*p),
        _ => None,
    });
    let size = size.expect("the window is resized");
    assert!(size.x <= 1280.0 && size.y <= 720.0, "{size:?}");
    assert!(size.x >= 1000.0 && size.y >= 600.0, "{size:?}");
    let at = at.expect("and moved");
    assert!((at.x * 2.0 + size.x - 1280.0).abs() < 1.0, "{at:?}");
    // The harness applies the resize: the editor now fits.
    h.run_steps(3);
    let canvas = h.state().canvas_rect().unwrap();
    assert!(canvas.max.x <= 1280.0);
    // The view opened fitted is fitted again to the smaller canvas: Root stays in view.
    let root = h.state().screen_rect_of(&NodeId::new("root")).unwrap();
    assert!(canvas.contains_rect(root), "{root:?} in {canvas:?}");
    // A window that fits is left alone.
    let mut h = harness(EditorApp::sample());
    on_monitor(&mut h, egui::vec2(2560.0, 1440.0));
    assert!(
        !h.output().viewport_output[&egui::ViewportId::ROOT]
            .commands
            .iter()
            .any(|c| matches!(c, egui::ViewportCommand::InnerSize(_)))
    );
}

#[test]
fn help_lists_every_command_with_its_shortcuts_and_quit_asks_about_unsaved_changes() {
    let mut h = harness(EditorApp::sample());
    // Help > Commands and Shortcuts…, as a person opens it.
    h.get_by_role_and_label(Role::Button, "Help").click();
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, "Commands and Shortcuts… F1")
        .click();
    h.run_steps(3);
    h.get_by_label("Commands and Shortcuts");
    for c in Command::ALL {
        assert!(
            h.query_all_by_label(c.label()).next().is_some(),
            "{} is listed",
            c.label()
        );
        let keys: Vec<String> = c
            .shortcuts()
            .iter()
            .map(|s| h.ctx.format_shortcut(s))
            .collect();
        if !keys.is_empty() {
            h.get_by_label(&keys.join("  or  "));
        }
        h.get_by_label(c.tooltip());
    }
    // F1 opens it too, once closed.
    let close = h
        .get_by_role_and_label(Role::Button, "Close window")
        .rect()
        .center();
    click_at(&mut h, close, PointerButton::Primary, Modifiers::NONE);
    // (The window fades out.)
    h.run_steps(30);
    assert!(h.query_by_label("Commands and Shortcuts").is_none());
    key(&mut h, Modifiers::NONE, Key::F1);
    h.get_by_label("Commands and Shortcuts");
    // Escape closes it, and so does F1 again.
    key(&mut h, Modifiers::NONE, Key::Escape);
    h.run_steps(30);
    assert!(h.query_by_label("Commands and Shortcuts").is_none());
    key(&mut h, Modifiers::NONE, Key::F1);
    h.get_by_label("Commands and Shortcuts");
    key(&mut h, Modifiers::NONE, Key::F1);
    h.run_steps(30);
    assert!(h.query_by_label("Commands and Shortcuts").is_none());
    // File > Quit with unsaved changes asks first, as closing the window does.
    key(&mut h, Modifiers::COMMAND, Key::A);
    key(&mut h, Modifiers::COMMAND, Key::D);
    assert!(h.state().is_dirty());
    h.get_by_role_and_label(Role::Button, "File").click();
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, "Quit Ctrl+Q").click();
    h.run_steps(3);
    h.get_by_role_and_label(Role::Button, "Don't save");
    // Ctrl+Q asks the same.
    h.get_by_role_and_label(Role::Button, "Cancel").click();
    h.run_steps(3);
    assert!(
        h.query_by_role_and_label(Role::Button, "Don't save")
            .is_none()
    );
    key(&mut h, Modifiers::COMMAND, Key::Q);
    h.get_by_role_and_label(Role::Button, "Don't save");
}

/// Whether `c` draws as itself in the editor's text font: a glyph of its own, not the
/// missing-glyph box. (egui's `has_glyph` also says no for a character that lives in the
/// face its box comes from, so the glyph drawn is compared with the box's.)
fn drawable(ctx: &egui::Context, c: char) -> bool {
    let font = egui::FontId::proportional(14.0);
    if ctx.fonts_mut(|f| f.has_glyph(&font, c)) {
        return true;
    }
    let uv = |s: String| {
        ctx.fonts_mut(|f| {
            let galley = f.layout_no_wrap(s, font.clone(), egui::Color32::WHITE);
            galley.rows[0].glyphs[0].uv_rect
        })
    };
    let missing = uv('\u{10FFFD}'.to_string());
    uv(c.to_string()) != missing
}

#[test]
fn every_character_the_editor_draws_in_text_is_in_its_fonts() {
    // Every non-ASCII character in a string of the editor's and debugger's code (comments
    // left out) has a glyph in the fonts the editor ships with (its text font, with the
    // emoji fonts behind it): none draws as a missing-glyph box.
    let h = harness(EditorApp::sample());
    let mut sources = Vec::new();
    let mut dirs = vec![
        common::repo().join("src/editor"),
        common::repo().join("src/debug"),
    ];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                sources.push(path);
            }
        }
    }
    let mut checked = 0;
    for path in sources {
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            // Only what lies between quotes on the line.
            for (i, part) in code.split('"').enumerate() {
                if i % 2 == 0 {
                    continue;
                }
                for c in part.chars().filter(|c| !c.is_ascii()) {
                    assert!(
                        drawable(&h.ctx, c),
                        "{}:{}: {c:?} (U+{:04X}) has no glyph",
                        path.display(),
                        n + 1,
                        c as u32
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 10, "the scan found the editor's strings");
}

#[test]
fn the_hit_commands_and_go_to_step_are_greyed_out_without_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("door_room.json");
    std::fs::copy(common::repo().join("sample_trees/door_room.json"), &copy).unwrap();
    let mut h = harness(EditorApp::open(&copy).unwrap());
    h.get_by_label_contains("uses world nodes");
    h.get_by_role_and_label(Role::Button, "Simulation").click();
    h.run_steps(2);
    for item in [
        "Go to Step… Ctrl+G",
        "Next Breakpoint Hit F8",
        "Previous Breakpoint Hit Shift+F8",
    ] {
        assert!(
            h.get_by_role_and_label(Role::Button, item)
                .accesskit_node()
                .is_disabled(),
            "{item}"
        );
    }
    key(&mut h, Modifiers::NONE, Key::Escape);
    key(&mut h, Modifiers::NONE, Key::F8);
    key(&mut h, Modifiers::COMMAND, Key::G);
    assert!(h.query_by_label("Go to step").is_none());
}

#[test]
fn the_palette_lists_a_command_named_by_the_word_typed_before_one_whose_tooltip_has_it() {
    let mut h = open_sample("droid_arena");
    h.state_mut().select(Some(NodeId::new("attack")));
    key(&mut h, Modifiers::COMMAND | Modifiers::SHIFT, Key::P);
    h.get_by_label("Command palette").type_text("breakpoint");
    h.run_steps(2);
    let rows: Vec<String> = h
        .query_all_by_role(Role::Button)
        .filter_map(|n| n.accesskit_node().label())
        .filter(|l| l.contains("  ·  "))
        .collect();
    assert!(rows[0].starts_with("Toggle Breakpoint"), "{rows:?}");
    assert!(rows.iter().any(|r| r.starts_with("Step ×10")), "{rows:?}");
    let step10 = rows.iter().position(|r| r.starts_with("Step ×10")).unwrap();
    assert!(
        rows[..step10].iter().all(|r| r.contains("Breakpoint")),
        "{rows:?}"
    );
    // Enter runs the first: a breakpoint on the selected node.
    h.key_press(Key::Enter);
    h.run_steps(3);
    assert_eq!(
        h.state().commands_run().last(),
        Some(&Command::ToggleBreakpoint)
    );
    assert_eq!(h.state().breakpoints().len(), 1);
}
