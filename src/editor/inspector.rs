//! The inspector: the selected node's id, kind and every field, with its help text.
//! Produces edits; continuous changes to one field are coalesced by the app.

use eframe::egui::{self, RichText};

use crate::model::{
    Catalog, Edit, FieldSpec, FieldType, HOOKS, Node, ParentSlot, Tree, Value, is_hook,
};

/// What the inspector asks for.
pub enum Request {
    /// Apply this edit; `key` names the field, so consecutive changes to it merge into one
    /// undo step.
    Edit(Edit, Option<String>),
    /// Remove the node.
    Remove,
    /// Pick a file for this asset field.
    BrowseAsset(String),
    /// Open the SubTree's asset.
    OpenAsset,
    /// Pick a file of node models (a node library, a BehaviorTree.CPP models file or a
    /// Groot2 project) for the project to list.
    LoadModels,
    /// Make the node a node of this kind (Change Kind…).
    ChangeKind(String),
}

/// The widget for one field's value (checkbox, number with its range, drop-down, text);
/// returns the new value when the user changed it. `salt` keeps widget ids apart when the
/// same field is shown twice (in the node and in the inspector).
pub(crate) fn value_ui(
    ui: &mut egui::Ui,
    spec: &FieldSpec,
    current: Option<&Value>,
    label: egui::Id,
    salt: &str,
) -> Option<Value> {
    match &spec.ty {
        FieldType::Bool => {
            let mut b = current.and_then(Value::as_bool).unwrap_or(false);
            named_checkbox(ui, &mut b, &spec.name)
                .labelled_by(label)
                .changed()
                .then_some(Value::Bool(b))
        }
        FieldType::Int { min, max } => {
            let mut i = current
                .and_then(Value::as_i64)
                .unwrap_or((*min).max(0).min(*max));
            ui.add(
                egui::DragValue::new(&mut i)
                    .range(*min..=*max)
                    .suffix(unit_suffix(spec)),
            )
            .labelled_by(label)
            .changed()
            .then_some(Value::Int(i))
        }
        FieldType::Float {
            min,
            min_exclusive,
            max,
        } => {
            let mut x = current
                .and_then(Value::as_f64)
                .unwrap_or_else(|| min.max(0.0).min(*max));
            let low = if *min_exclusive { min + 0.001 } else { *min };
            ui.add(
                egui::DragValue::new(&mut x)
                    .range(low..=*max)
                    .speed(0.05)
                    .max_decimals(3)
                    .suffix(unit_suffix(spec)),
            )
            .labelled_by(label)
            .changed()
            .then_some(Value::Float(x))
        }
        FieldType::Enum(options) => {
            let mut chosen = current.and_then(Value::as_str).unwrap_or("").to_owned();
            let before = chosen.clone();
            egui::ComboBox::from_id_salt((salt, &spec.name))
                .selected_text(chosen.clone())
                .show_ui(ui, |ui| {
                    for o in options {
                        ui.selectable_value(&mut chosen, o.clone(), o);
                    }
                })
                .response
                .labelled_by(label);
            (chosen != before).then_some(Value::Text(chosen))
        }
        FieldType::Text
        | FieldType::ContextKey(_)
        | FieldType::Asset
        | FieldType::Script(_)
        | FieldType::Expression
        | FieldType::Statements
        | FieldType::Scalar => {
            // A Scalar field may hold a number or true/false (a tree file's `2`): shown as
            // written, and edited as text.
            let mut t = match current {
                Some(Value::Int(_) | Value::Float(_) | Value::Bool(_)) => {
                    current.map(Value::to_string).unwrap_or_default()
                }
                _ => current.and_then(Value::as_str).unwrap_or("").to_owned(),
            };
            let width = (t.chars().count() as f32 * 7.5 + 16.0).clamp(90.0, 150.0);
            ui.add(egui::TextEdit::singleline(&mut t).desired_width(width))
                .labelled_by(label)
                .changed()
                .then_some(Value::Text(t))
        }
    }
}

/// A drop-down of the scenario's waypoints beside a field that names one; returns the one
/// picked.
fn waypoint_ui(ui: &mut egui::Ui, waypoints: &[String], field: &str) -> Option<String> {
    let mut picked = None;
    let combo = egui::ComboBox::from_id_salt(("waypoints", field))
        .selected_text("")
        .width(24.0)
        .show_ui(ui, |ui| {
            for w in waypoints {
                if ui.selectable_label(false, w).clicked() {
                    picked = Some(w.clone());
                }
            }
        })
        .response
        .on_hover_text("The scenario's waypoints");
    super::blackboard::named(&combo, &format!("waypoints for {field}"));
    picked
}

/// What follows a number: its unit after a space, or nothing.
/// A help text as shown: each `quoted` part (a field's name, a value) in the monospace
/// font without its back-ticks, the rest as body text, italic when `italics`.
pub(crate) fn help_text(ui: &egui::Ui, text: &str, italics: bool) -> egui::text::LayoutJob {
    let style = ui.style();
    let colour = style.visuals.text_color();
    let mut job = egui::text::LayoutJob::default();
    for (part, quoted) in quoted_parts(text) {
        let format = egui::TextFormat {
            font_id: if quoted {
                egui::TextStyle::Monospace.resolve(style)
            } else {
                egui::TextStyle::Body.resolve(style)
            },
            color: colour,
            italics: italics && !quoted,
            ..Default::default()
        };
        job.append(part, 0.0, format);
    }
    job
}

/// `text` cut at its back-ticks: each part, and whether it was between two.
fn quoted_parts(text: &str) -> impl Iterator<Item = (&str, bool)> {
    text.split('`')
        .enumerate()
        .filter(|(_, part)| !part.is_empty())
        .map(|(i, part)| (part, i % 2 == 1))
}

/// A field's tooltip: its help, what it takes, and which way a key-bound value passes;
/// each line only when it says something.
fn field_tooltip(spec: &FieldSpec) -> String {
    let way = match spec.direction {
        crate::model::FieldDirection::In => "",
        crate::model::FieldDirection::Out => "Bound to a key, the node writes it (an output port).",
        crate::model::FieldDirection::InOut => {
            "Bound to a key, the node reads it and writes it (an inout port)."
        }
    };
    let takes = spec.ty.describe();
    [spec.help.as_str(), takes.as_str(), way]
        .into_iter()
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn unit_suffix(spec: &FieldSpec) -> String {
    if spec.unit.is_empty() {
        String::new()
    } else {
        format!(" {}", spec.unit)
    }
}

/// The value an optional field takes as its checkbox turns it on: one its type takes.
/// A whole number is 0, or the end of its range nearest 0; a number is 0 where a
/// negative one is allowed, 1 where only 0 and more are (a duration of 0 does nothing),
/// else its lowest; a bool is false; a choice its first word; anything else empty text.
fn turned_on(ty: &FieldType) -> Value {
    match ty {
        FieldType::Bool => Value::Bool(false),
        FieldType::Int { min, max } => Value::Int(0.clamp(*min, (*max).max(*min))),
        FieldType::Float { min, max, .. } => Value::Float(match *min {
            m if m > 0.0 => m,
            m if m >= 0.0 => 1.0_f64.min(*max),
            _ => 0.0_f64.min(*max),
        }),
        FieldType::Enum(words) => Value::Text(words.first().cloned().unwrap_or_default()),
        _ => Value::Text(String::new()),
    }
}

/// A checkbox without visible text whose accessible name is `name`.
fn named_checkbox(ui: &mut egui::Ui, value: &mut bool, name: &str) -> egui::Response {
    let response = ui.checkbox(value, "");
    let (checked, name) = (*value, name.to_owned());
    response.widget_info(|| {
        egui::WidgetInfo::selected(egui::WidgetType::Checkbox, true, checked, &name)
    });
    response
}

/// What the inspector shows a node in: its tree, the kinds, and the scenario's waypoints
/// (none without a scenario).
pub struct Shown<'a> {
    /// The tree.
    pub tree: &'a Tree,
    /// Its kinds.
    pub catalog: &'a Catalog,
    /// The names of the scenario's waypoints.
    pub waypoints: &'a [String],
    /// The parameters of the node's SubTree asset, where it is a SubTree node whose asset
    /// reads.
    pub params: Option<&'a [crate::model::KeyDecl]>,
}

/// Draws the inspector for `node`; returns what the user asked for.
pub fn inspector_ui(
    ui: &mut egui::Ui,
    shown: Shown<'_>,
    node: &Node,
    parent: Option<&ParentSlot>,
) -> Option<Request> {
    let Shown {
        tree,
        catalog,
        waypoints,
        params,
    } = shown;
    let params = params.unwrap_or_default();
    let mut request = None;
    ui.heading("Inspector");
    let kind = catalog.kind(&node.kind);
    egui::Grid::new("inspector-head")
        .num_columns(2)
        .show(ui, |ui| {
            // The id is typed into a buffer kept while the field has the keyboard, and
            // the node renamed when the typing ends (Enter, or the keyboard elsewhere).
            let label = ui.label("id");
            let key = egui::Id::new(("inspector-id", node.id.as_str()));
            let mut text = ui
                .data(|d| d.get_temp::<String>(key))
                .unwrap_or_else(|| node.id.as_str().to_owned());
            let field = ui
                .add(
                    egui::TextEdit::singleline(&mut text)
                        .font(egui::TextStyle::Monospace)
                        .desired_width(150.0),
                )
                .labelled_by(label.id)
                .on_hover_text(
                    "The node's id: type a new one and press Enter (links, breakpoints and a replay follow)",
                );
            if field.has_focus() {
                ui.data_mut(|d| d.insert_temp(key, text));
            } else {
                ui.data_mut(|d| d.remove::<String>(key));
                let escaped = ui.input(|i| i.key_pressed(egui::Key::Escape));
                if field.lost_focus() && !escaped && text.trim() != node.id.as_str() {
                    request = Some(Request::Edit(
                        Edit::Rename {
                            id: node.id.clone(),
                            to: crate::model::NodeId::new(text.trim()),
                        },
                        None,
                    ));
                }
            }
            ui.end_row();
            ui.label("kind");
            // Wrapped: a long kind and its note never widen the panel.
            ui.add(egui::Label::new(match kind {
                Some(k) if k.is_placeholder() => {
                    format!("{} (unknown kind: no node library defines it)", node.kind)
                }
                Some(k) => match &k.origin {
                    crate::model::Origin::Library { library, .. } => {
                        format!("{} ({}, library {library})", node.kind, k.category.label())
                    }
                    _ => format!("{} ({})", node.kind, k.category.label()),
                },
                None => format!("{} (unknown kind)", node.kind),
            }).wrap());
            ui.end_row();
            let label = ui.label("title");
            let mut title = node.title.clone();
            if ui
                .add(egui::TextEdit::singleline(&mut title).desired_width(150.0))
                .labelled_by(label.id)
                .changed()
            {
                request = Some(Request::Edit(
                    Edit::SetTitle {
                        id: node.id.clone(),
                        title,
                    },
                    Some("title".into()),
                ));
            }
            ui.end_row();
            let label = ui.label("comment");
            let mut comment = node.comment.clone();
            if ui
                .add(
                    egui::TextEdit::multiline(&mut comment)
                        .desired_rows(2)
                        .desired_width(150.0),
                )
                .labelled_by(label.id)
                .changed()
            {
                request = Some(Request::Edit(
                    Edit::SetComment {
                        id: node.id.clone(),
                        comment,
                    },
                    Some("comment".into()),
                ));
            }
            ui.end_row();
        });
    if let Some(k) = kind {
        ui.label(help_text(ui, &k.help, true));
        ui.separator();
        // One row per field, in a grid.
        let mut rows = |ui: &mut egui::Ui, specs: &mut dyn Iterator<Item = &FieldSpec>| {
            for spec in specs {
                let set = node.fields.get(&spec.name);
                if set.is_none()
                    && matches!(
                        k.category,
                        crate::model::Category::Leaf | crate::model::Category::Condition
                    )
                    && !crate::model::KindSpec::field_applies(&spec.name, parent.map(|p| p.port))
                {
                    // Shown where it means something (a service's interval, a guard's
                    // aborts_lower).
                    continue;
                }
                // A field whose key the node's code writes says so.
                let name = match spec.direction {
                    crate::model::FieldDirection::In => spec.name.clone(),
                    d => format!("{} ({})", spec.name, d.word()),
                };
                let label = ui.label(if set.is_some() {
                    RichText::new(&name).strong()
                } else {
                    RichText::new(&name)
                });
                let label_id = label.id;
                label.on_hover_ui(|ui| {
                    ui.label(help_text(ui, &field_tooltip(spec), false));
                });
                ui.horizontal(|ui| {
                    let current = set.or(spec.default.as_ref());
                    if spec.default.is_none() && !spec.required {
                        // An optional field: a checkbox turns it on and off.
                        let mut on = set.is_some();
                        if named_checkbox(ui, &mut on, &format!("{} set", spec.name))
                            .labelled_by(label_id)
                            .changed()
                        {
                            let value = on.then(|| turned_on(&spec.ty));
                            request = Some(Request::Edit(
                                Edit::SetField {
                                    id: node.id.clone(),
                                    name: spec.name.clone(),
                                    value,
                                },
                                None,
                            ));
                        }
                        if !on {
                            ui.label(RichText::new("none").weak());
                            return;
                        }
                    }
                    if let FieldType::ContextKey(_) = spec.ty {
                        let key = super::blackboard::key_field_ui(
                            ui, tree, catalog, node, spec, label_id,
                        );
                        request = key.or(request.take());
                        return;
                    }
                    let bindable = super::blackboard::bindable(k, spec);
                    if let (Some(types), Some(Value::Key(key))) = (bindable, current) {
                        let bound = super::blackboard::bound_field_ui(
                            ui,
                            (tree, catalog),
                            node,
                            spec,
                            (types, key),
                            label_id,
                        );
                        request = bound.or(request.take());
                        return;
                    }
                    if let Some(v) = value_ui(ui, spec, current, label_id, "inspector") {
                        let edit = Edit::SetField {
                            id: node.id.clone(),
                            name: spec.name.clone(),
                            value: Some(v),
                        };
                        request = Some(Request::Edit(edit, Some(spec.name.clone())));
                    }
                    if !waypoints.is_empty()
                        && crate::world::names_a_waypoint(&node.kind, &spec.name)
                        && let Some(name) = waypoint_ui(ui, waypoints, &spec.name)
                    {
                        let edit = Edit::SetField {
                            id: node.id.clone(),
                            name: spec.name.clone(),
                            value: Some(Value::Text(name)),
                        };
                        request = Some(Request::Edit(edit, None));
                    }
                    if let Some(types) = bindable
                        && let Some(bind) =
                            super::blackboard::bind_button(ui, (tree, catalog), node, spec, types)
                    {
                        request = Some(bind);
                    }
                });
                ui.end_row();
                // An asset's buttons on a row of their own, under its path (beside it
                // the row would widen the panel).
                if spec.ty == FieldType::Asset {
                    ui.label("");
                    ui.horizontal(|ui| {
                        if ui
                            .small_button("Browse…")
                            .on_hover_text("Pick the tree file")
                            .clicked()
                        {
                            request = Some(Request::BrowseAsset(spec.name.clone()));
                        }
                        let asset = set
                            .or(spec.default.as_ref())
                            .and_then(Value::as_str)
                            .unwrap_or("");
                        if ui
                            .add_enabled(!asset.is_empty(), egui::Button::new("Open").small())
                            .on_hover_text("Open this tree in the editor")
                            .clicked()
                        {
                            request = Some(Request::OpenAsset);
                        }
                    });
                    ui.end_row();
                }
            }
        };
        egui::Grid::new("inspector-fields")
            .num_columns(2)
            .striped(true)
            .show(ui, |ui| {
                rows(ui, &mut k.fields.iter().filter(|f| !is_hook(&f.name)));
            });
        // The hooks (SEMANTICS.md §3.7), folded away until one is set.
        if k.fields.iter().any(|f| is_hook(&f.name)) {
            let set = HOOKS
                .iter()
                .filter(|h| node.fields.contains_key(**h))
                .count();
            let title = match set {
                0 => "Pre- and post-conditions".to_owned(),
                n => format!("Pre- and post-conditions ({n})"),
            };
            egui::CollapsingHeader::new(title)
                .id_salt(("hooks", &node.id))
                .default_open(set > 0)
                .show(ui, |ui| {
                    egui::Grid::new("inspector-hooks")
                        .num_columns(2)
                        .striped(true)
                        .show(ui, |ui| {
                            rows(ui, &mut k.fields.iter().filter(|f| is_hook(&f.name)));
                        });
                });
        }
        if !params.is_empty() {
            ui.separator();
            if let Some(r) = super::blackboard::params_ui(ui, tree, catalog, node, params) {
                request = Some(r);
            }
        }
        if let Some(r) = super::blackboard::new_key_ui(ui, tree, catalog, node, params) {
            request = Some(r);
        }
        if k.is_placeholder() {
            if ui
                .button("Load models from…")
                .on_hover_text(
                    "Choose a node library, a BehaviorTree.CPP models file (such as Nav2's nav2_tree_nodes.xml) or a Groot2 project that defines this kind: the project lists it, and its kinds are known from then on",
                )
                .clicked()
            {
                request = Some(Request::LoadModels);
            }
            if let Some(kind) = super::viewer::change_kind_ui(ui, tree, catalog, &node.id) {
                request = Some(Request::ChangeKind(kind));
            }
            // Nothing says what its fields mean: each is text (`{NAME}` a key), kept and
            // saved as it is.
            egui::Grid::new(("placeholder fields", &node.id))
                .num_columns(2)
                .show(ui, |ui| {
                    for (name, value) in &node.fields {
                        let label = ui.label(name.as_str());
                        let mut text = match value {
                            Value::Text(t) => t.clone(),
                            v => v.to_string(),
                        };
                        let width = (text.chars().count() as f32 * 7.5 + 16.0).clamp(90.0, 150.0);
                        if ui
                            .add(egui::TextEdit::singleline(&mut text).desired_width(width))
                            .labelled_by(label.id)
                            .changed()
                        {
                            request = Some(Request::Edit(
                                Edit::SetField {
                                    id: node.id.clone(),
                                    name: name.clone(),
                                    value: Some(Value::text_or_key(&text)),
                                },
                                Some(name.clone()),
                            ));
                        }
                        ui.end_row();
                    }
                });
        }
        for (name, value) in node
            .fields
            .iter()
            .filter(|(n, _)| !k.is_placeholder() && k.field(n).is_none())
            .filter(|(n, _)| !params.iter().any(|p| p.name == **n))
        {
            ui.horizontal(|ui| {
                ui.label(
                    RichText::new(format!("unknown field {name} = {value}"))
                        .color(egui::Color32::from_rgb(235, 90, 90)),
                );
                if ui.small_button("remove").clicked() {
                    request = Some(Request::Edit(
                        Edit::SetField {
                            id: node.id.clone(),
                            name: name.clone(),
                            value: None,
                        },
                        None,
                    ));
                }
            });
        }
    }
    if let Some(p) = parent {
        let count = tree.node(&p.parent).map_or(0, |n| n.linked(p.port).len());
        // Wrapped: the panel keeps its width (the canvas does not move when a node is
        // selected).
        ui.horizontal_wrapped(|ui| {
            ui.label(format!(
                "slot {} of {}.{} ({count} linked)",
                p.slot, p.parent, p.port
            ));
            if count < 2 {
                return;
            }
            let mut step = |ui: &mut egui::Ui, label: &str, hint: &str, to: Option<usize>| {
                let button = ui.add_enabled(to.is_some(), egui::Button::new(label).small());
                if button.on_hover_text(hint).clicked()
                    && let Some(to) = to
                {
                    request = Some(Request::Edit(
                        Edit::MoveChild {
                            parent: p.parent.clone(),
                            port: p.port,
                            from: p.slot,
                            to,
                        },
                        None,
                    ));
                }
            };
            step(ui, "Move up", "One slot earlier", p.slot.checked_sub(1));
            step(
                ui,
                "Move down",
                "One slot later",
                (p.slot + 1 < count).then_some(p.slot + 1),
            );
        });
    }
    ui.separator();
    if ui.button("Remove node").clicked() {
        request = Some(Request::Remove);
    }
    request
}

#[cfg(test)]
mod tests {
    use super::{field_tooltip, quoted_parts};
    use crate::model::{FieldSpec, FieldType};

    #[test]
    fn help_shows_quoted_words_without_their_back_ticks() {
        let parts: Vec<_> = quoted_parts("Runs `times` runs (0: for ever).").collect();
        assert_eq!(
            parts,
            [
                ("Runs ", false),
                ("times", true),
                (" runs (0: for ever).", false)
            ]
        );
    }

    #[test]
    fn a_field_tooltip_has_no_empty_line() {
        let bare = FieldSpec::optional("x", FieldType::Text, "");
        assert_eq!(field_tooltip(&bare), FieldType::Text.describe());
        let helped = FieldSpec::optional("x", FieldType::Text, "The name.");
        assert_eq!(
            field_tooltip(&helped),
            format!("The name.\n{}", FieldType::Text.describe())
        );
    }
}
