//! Go to Step… (Ctrl+G): a field over the canvas where a step number is typed; Enter
//! shows that step, Escape (or Close) closes it. A text that is no step number is said
//! beside the field, and the field stays open to put it right.

use eframe::egui::{self, Key};

/// The Go to Step field's state.
#[derive(Default)]
pub struct GoTo {
    /// Shown.
    pub open: bool,
    text: String,
    /// Why the text typed last is no step number.
    problem: Option<String>,
    /// Give the field the keyboard at the next frame.
    focus: bool,
}

/// What the field asks of the app: a step to show, or why the text is no step number.
pub type Asked = Option<Result<u64, String>>;

impl GoTo {
    /// Opens the field with the keyboard in it, empty.
    pub fn show(&mut self) {
        *self = Self {
            open: true,
            focus: true,
            ..Self::default()
        };
    }

    /// Closes the field when Escape is pressed while it is open (the key is taken).
    pub fn take_escape(&mut self, ctx: &egui::Context) {
        if self.open && ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, Key::Escape)) {
            self.open = false;
        }
    }

    /// The step `text` names: a whole number, its digits grouped with `,`, `_`, `'` or
    /// spaces if wished ("12,000").
    pub fn parse(text: &str) -> Result<u64, String> {
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

    /// Draws the field at the top of the canvas area `over` (lower when `below` another
    /// bar there), saying the step `shown` of the run and its newest, `last`; Enter asks
    /// for the step typed.
    pub fn ui(
        &mut self,
        ctx: &egui::Context,
        over: egui::Rect,
        below: bool,
        (shown, last): (u64, u64),
    ) -> Asked {
        if !self.open {
            return None;
        }
        let mut asked = None;
        let top = if below { 48.0 } else { 8.0 };
        egui::Area::new(egui::Id::new("go-to-step"))
            .order(egui::Order::Foreground)
            .fixed_pos(over.center_top() + egui::vec2(-300.0, top))
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    ui.horizontal(|ui| {
                        let label = ui.label("Go to step");
                        let field = ui
                            .add(
                                egui::TextEdit::singleline(&mut self.text)
                                    .hint_text(format!("0 to {last}"))
                                    .desired_width(100.0),
                            )
                            .labelled_by(label.id);
                        if std::mem::take(&mut self.focus) {
                            field.request_focus();
                        }
                        if field.changed() {
                            self.problem = None;
                        }
                        // A single-line field gives up the keyboard on Enter.
                        let go = ui.button("Go").on_hover_text("Show that step (Enter)");
                        let entered = field.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
                        if entered || go.clicked() {
                            match Self::parse(&self.text) {
                                Ok(k) => {
                                    asked = Some(Ok(k));
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
                                ui.label(
                                    egui::RichText::new(format!("now at {shown} of {last}")).weak(),
                                );
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

#[cfg(test)]
mod tests {
    use super::GoTo;

    /// Why `text` is no step number.
    fn why(text: &str) -> String {
        match GoTo::parse(text) {
            Err(why) => why,
            Ok(k) => panic!("'{text}' taken for step {k}"),
        }
    }

    #[test]
    fn a_step_number_may_be_grouped_and_anything_else_is_said() {
        assert_eq!(GoTo::parse(" 80 "), Ok(80));
        assert_eq!(GoTo::parse("12,000"), Ok(12_000));
        assert_eq!(GoTo::parse("1 000 000"), Ok(1_000_000));
        assert_eq!(GoTo::parse("0"), Ok(0));
        assert_eq!(why(""), "Type a step number");
        assert_eq!(
            why("-3"),
            "'-3' is not a step number: type a whole number, 0 or more"
        );
        assert!(why("1.5").contains("not a step number"));
        assert!(why("99999999999999999999").contains("too large"));
    }
}
