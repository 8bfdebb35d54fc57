//! A one-line field over the canvas where something is typed and Enter asks for it: Go to
//! Step… (a step number) and Attach to BehaviorTree.CPP… (the program's address). Escape
//! (or Close) closes it. A text that does not read is said beside the field, and the field
//! stays open to put it right.

use eframe::egui::{self, Key};

/// A field's state.
#[derive(Default)]
pub struct Field {
    /// Shown.
    pub open: bool,
    text: String,
    /// Why the text typed last does not read.
    problem: Option<String>,
    /// Give the field the keyboard at the next frame.
    focus: bool,
}

/// What a field shows: its label, the hint in it while it is empty, the note beside it,
/// its button's tooltip and its width.
pub struct Look<'a> {
    /// Its id among the window's areas.
    pub id: &'static str,
    /// Its label.
    pub label: &'a str,
    /// The hint in the empty field.
    pub hint: String,
    /// The note beside it while the text reads.
    pub note: String,
    /// The Go button's tooltip.
    pub go: &'a str,
    /// The field's width.
    pub width: f32,
}

/// What a field asks of the app: what was typed, read, or why it does not read.
pub type Asked<T> = Option<Result<T, String>>;

impl Field {
    /// Opens the field with the keyboard in it, holding `text`.
    pub fn show_with(&mut self, text: &str) {
        *self = Self {
            open: true,
            focus: true,
            text: text.to_owned(),
            ..Self::default()
        };
    }

    /// Opens the field with the keyboard in it, empty.
    pub fn show(&mut self) {
        self.show_with("");
    }

    /// Closes the field when Escape is pressed while it is open (the key is taken).
    pub fn take_escape(&mut self, ctx: &egui::Context) {
        if self.open && ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, Key::Escape)) {
            self.open = false;
        }
    }

    /// Draws the field at the top of the canvas area `over` (lower when `below` another
    /// bar there), as `look` says; Enter (or Go) asks for the text as `read` reads it.
    pub fn ui<T>(
        &mut self,
        ctx: &egui::Context,
        over: egui::Rect,
        below: bool,
        look: &Look<'_>,
        read: impl Fn(&str) -> Result<T, String>,
    ) -> Asked<T> {
        if !self.open {
            return None;
        }
        let mut asked = None;
        let top = if below { 48.0 } else { 8.0 };
        egui::Area::new(egui::Id::new(look.id))
            .order(egui::Order::Foreground)
            .fixed_pos(over.center_top() + egui::vec2(-300.0, top))
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    ui.horizontal(|ui| {
                        let label = ui.label(look.label);
                        let field = ui
                            .add(
                                egui::TextEdit::singleline(&mut self.text)
                                    .hint_text(look.hint.as_str())
                                    .desired_width(look.width),
                            )
                            .labelled_by(label.id);
                        if std::mem::take(&mut self.focus) {
                            field.request_focus();
                        }
                        if field.changed() {
                            self.problem = None;
                        }
                        // A single-line field gives up the keyboard on Enter.
                        let go = ui.button("Go").on_hover_text(look.go);
                        let entered = field.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
                        if entered || go.clicked() {
                            match read(&self.text) {
                                Ok(v) => {
                                    asked = Some(Ok(v));
                                    self.open = false;
                                }
                                Err(why) => {
                                    self.problem = Some(why.clone());
                                    asked = Some(Err(why));
                                    field.request_focus();
                                }
                            }
                        }
                        match &self.problem {
                            Some(why) => {
                                ui.label(
                                    egui::RichText::new(why).color(ui.visuals().error_fg_color),
                                );
                            }
                            None => {
                                ui.label(egui::RichText::new(look.note.as_str()).weak());
                            }
                        }
                        if ui.button("Close").on_hover_text("Esc").clicked() {
                            self.open = false;
                        }
                    });
                });
            });
        asked
    }
}

/// The step `text` names (Go to Step…): a whole number, its digits grouped with `,`, `_`,
/// `'` or spaces if wished ("12,000").
pub fn step_number(text: &str) -> Result<u64, String> {
    let digits: String = text
        .chars()
        .filter(|c| !matches!(c, ',' | '_' | '\'') && !c.is_whitespace())
        .collect();
    if digits.is_empty() {
        return Err("Type a step number".to_owned());
    }
    if !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!(
            "'{}' is not a step number: type a whole number, 0 or more",
            text.trim()
        ));
    }
    digits
        .parse()
        .map_err(|_| format!("{} is too large to be a step", text.trim()))
}

#[cfg(test)]
mod tests {
    use super::step_number;

    /// Why `text` is no step number.
    fn why(text: &str) -> String {
        match step_number(text) {
            Err(why) => why,
            Ok(k) => panic!("'{text}' taken for step {k}"),
        }
    }

    #[test]
    fn a_step_number_may_be_grouped_and_anything_else_is_said() {
        assert_eq!(step_number(" 80 "), Ok(80));
        assert_eq!(step_number("12,000"), Ok(12_000));
        assert_eq!(step_number("1 000 000"), Ok(1_000_000));
        assert_eq!(step_number("0"), Ok(0));
        assert_eq!(why(""), "Type a step number");
        assert_eq!(
            why("-3"),
            "'-3' is not a step number: type a whole number, 0 or more"
        );
        assert!(why("1.5").contains("not a step number"));
        assert!(why("99999999999999999999").contains("too large"));
    }
}
