//! Input as a person gives it, for the editor's UI tests: keys with their modifiers (and the
//! Cut / Copy / Paste events the platform sends for Ctrl+X / C / V), pointer clicks and drags,
//! and what the app put on the clipboard.
#![cfg(feature = "gui")]

use arbor::editor::EditorApp;
use arbor::model::NodeId;
use eframe::egui::{self, Event, Key, KeyboardShortcut, Modifiers, PointerButton, Pos2};
use egui_kittest::Harness;

/// Presses a shortcut as the platform delivers it: Ctrl+X / C / V arrive as the Cut, Copy
/// and Paste events (Paste with the clipboard's text), every other key as a key event.
pub fn press(h: &mut Harness<'static, EditorApp>, s: KeyboardShortcut, clipboard: &str) {
    let event = match (s.modifiers.command, s.logical_key) {
        (true, Key::X) => Some(Event::Cut),
        (true, Key::C) => Some(Event::Copy),
        (true, Key::V) => Some(Event::Paste(clipboard.to_owned())),
        _ => None,
    };
    // kittest runs a frame for each queued event.
    match event {
        Some(e) => h.event(e),
        None => h.key_press_modifiers(s.modifiers, s.logical_key),
    }
    // The command runs in this frame; what it copied is in this frame's output.
    h.step();
    let text = copied_now(h);
    if text.is_some() {
        COPIED.with(|c| *c.borrow_mut() = text);
    }
    h.run_steps(1);
}

thread_local! {
    /// What the app put on the clipboard last, as the platform would keep it.
    static COPIED: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

pub fn key(h: &mut Harness<'static, EditorApp>, modifiers: Modifiers, k: Key) {
    press(h, KeyboardShortcut::new(modifiers, k), "");
}

/// The text the app last put on the clipboard.
pub fn copied(_h: &Harness<'static, EditorApp>) -> Option<String> {
    COPIED.with(|c| c.borrow().clone())
}

/// The text the app put on the clipboard in the last frame.
pub fn copied_now(h: &Harness<'static, EditorApp>) -> Option<String> {
    h.output()
        .platform_output
        .commands
        .iter()
        .rev()
        .find_map(|c| match c {
            egui::OutputCommand::CopyText(t) => Some(t.clone()),
            _ => None,
        })
}

/// The platform's event for pressing or letting go of `button` at `at`.
pub fn button(at: Pos2, button: PointerButton, pressed: bool, modifiers: Modifiers) -> Event {
    Event::PointerButton {
        pos: at,
        button,
        pressed,
        modifiers,
    }
}

/// A press and release of `button` at `at`, with `modifiers` held.
pub fn click_at(
    h: &mut Harness<'static, EditorApp>,
    at: Pos2,
    b: PointerButton,
    modifiers: Modifiers,
) {
    h.event(Event::ModifiersChanged(modifiers));
    h.event(Event::PointerMoved(at));
    h.run_steps(1);
    h.event(button(at, b, true, modifiers));
    h.event(button(at, b, false, modifiers));
    h.event(Event::ModifiersChanged(Modifiers::NONE));
    h.run_steps(3);
}

/// A drag of `button` from `from` to `to` in small moves, with `modifiers` held.
pub fn drag(
    h: &mut Harness<'static, EditorApp>,
    from: Pos2,
    to: Pos2,
    b: PointerButton,
    modifiers: Modifiers,
) {
    h.event(Event::ModifiersChanged(modifiers));
    h.event(Event::PointerMoved(from));
    h.run_steps(1);
    h.event(button(from, b, true, modifiers));
    h.run_steps(1);
    for k in 1..=8 {
        h.event(Event::PointerMoved(from + (to - from) * (k as f32 / 8.0)));
        h.run_steps(1);
    }
    h.event(button(to, b, false, modifiers));
    h.event(Event::ModifiersChanged(Modifiers::NONE));
    h.run_steps(3);
}

/// A point in the header of a node, as drawn.
pub fn on_node(h: &Harness<'static, EditorApp>, id: &str) -> Pos2 {
    let r = h.state().screen_rect_of(&NodeId::new(id)).unwrap();
    r.left_top() + egui::vec2(14.0, 10.0)
}

/// A point of the canvas with no node under it.
pub fn empty_spot(h: &Harness<'static, EditorApp>) -> Pos2 {
    let canvas = h.state().canvas_rect().unwrap();
    let taken = |p: Pos2| {
        h.state().tree().nodes().iter().any(|n| {
            h.state()
                .screen_rect_of(&n.id)
                .is_some_and(|r| r.expand(8.0).contains(p))
        })
    };
    (0..40)
        .flat_map(|y| (0..40).map(move |x| (x, y)))
        .map(|(x, y)| canvas.min + egui::vec2(20.0 + x as f32 * 20.0, 20.0 + y as f32 * 12.0))
        .find(|p| canvas.shrink(10.0).contains(*p) && !taken(*p))
        .expect("an empty spot on the canvas")
}
