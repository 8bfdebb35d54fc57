//! The Blackboard panel: the keys the tree declares (add, edit, rename, delete) and those
//! its project declares (shown, not edited here), Find usages; and the drop-down of keys
//! the inspector shows for a key field. What a field can name, what a declaration may
//! hold and what a rename changes are the model's rules (`keys_fitting`,
//! `KeyDecl::problem`, `Edit::RenameKey`); this draws them and queues the edits.

use eframe::egui::{self, RichText};

use super::EditorApp;
use super::changes::Change;
use super::commands::Command;
use super::inspector::Request;
use crate::model::{
    Catalog, Edit, FieldSpec, FieldType, KeyDecl, KeyOrigin, KeyRole, KeyType, KeyTypes, KeyUse,
    KindSpec, Node, Tree, Value,
};

/// What the panel keeps between frames: the key being added, the one being renamed, and
/// the usages last found.
#[derive(Default)]
pub(super) struct Blackboard {
    /// The name typed for a new key.
    new_name: String,
    /// The type chosen for a new key.
    new_type: Option<KeyType>,
    /// The key being renamed and the name typed for it; the field takes the keyboard
    /// when it opens (the flag).
    renaming: Option<(String, String, bool)>,
    /// The nodes that use a key, as Find usages found them, for the tree's revision then.
    usages: Option<Usages>,
    /// The parameters of the selected SubTree node's asset, as last read.
    params: Option<ParamsRead>,
}

/// A SubTree asset's parameters as read for the inspector: for which tree file, asset and
/// revision of the tree (read again when one changes), and the parameters (`None`: the
/// asset could not be read).
struct ParamsRead {
    at: (Option<std::path::PathBuf>, String, u64),
    params: Option<Vec<KeyDecl>>,
}

/// The colour of what a name typed would be refused for (the Problems panel's errors').
const REFUSED: egui::Color32 = egui::Color32::from_rgb(235, 90, 90);

/// Up to this many, the project's keys are listed open; more are folded at first.
const PROJECT_KEYS_OPEN: usize = 12;

/// What Find usages found.
pub(super) struct Usages {
    key: String,
    uses: Vec<KeyUse>,
    revision: u64,
}

/// What a key's use is called in the list: "reads" or "writes".
fn verb(role: KeyRole) -> &'static str {
    match role {
        KeyRole::Reads => "reads",
        KeyRole::Writes => "writes",
    }
}

/// Gives a widget its accessible name (a screen reader's, and the tests').
pub(super) fn named(response: &egui::Response, name: &str) {
    let name = name.to_owned();
    response
        .ctx
        .accesskit_node_builder(response.id, |n| n.set_label(name));
}

/// A default as typed: the text of a text key as it is, other values as files write them.
fn default_text(v: &Value) -> String {
    match v {
        Value::Text(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The default typed for a key of type `ty` ("" for none). Whether it fits the type is
/// [`KeyDecl::problem`]'s to say: a word typed for a number stays text, and is refused.
fn parse_default(text: &str, ty: KeyType) -> Option<Value> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    let number = |t: &str| {
        t.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .map(Value::Float)
    };
    Some(match ty {
        KeyType::Bool => match t {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => Value::Text(t.to_owned()),
        },
        KeyType::Int => t
            .parse::<i64>()
            .map(Value::Int)
            .ok()
            .or_else(|| number(t))
            .unwrap_or_else(|| Value::Text(t.to_owned())),
        KeyType::Float => number(t).unwrap_or_else(|| Value::Text(t.to_owned())),
        _ => Value::Text(text.to_owned()),
    })
}

/// A one-line field whose text is kept while it has the keyboard and given back when the
/// typing ends (Enter, or the keyboard elsewhere) with a change; Escape drops it.
fn committed_text_ui(
    ui: &mut egui::Ui,
    key: egui::Id,
    current: &str,
    hint: &str,
    name: &str,
) -> Option<String> {
    let mut text = ui
        .data(|d| d.get_temp::<String>(key))
        .unwrap_or_else(|| current.to_owned());
    let field = ui.add(
        egui::TextEdit::singleline(&mut text)
            .hint_text(hint)
            .desired_width(ui.available_width().min(220.0)),
    );
    named(&field, name);
    if field.has_focus() {
        ui.data_mut(|d| d.insert_temp(key, text));
        return None;
    }
    ui.data_mut(|d| d.remove::<String>(key));
    let escaped = ui.input(|i| i.key_pressed(egui::Key::Escape));
    (field.lost_focus() && !escaped && text != current).then_some(text)
}

/// A drop-down of the key types; returns the one chosen when it changed.
fn type_combo_ui(ui: &mut egui::Ui, salt: &str, ty: KeyType, name: &str) -> Option<KeyType> {
    let mut chosen = ty;
    let combo = egui::ComboBox::from_id_salt(("key-type", salt))
        .selected_text(ty.name())
        .width(80.0)
        .show_ui(ui, |ui| {
            for t in KeyType::ALL {
                ui.selectable_value(&mut chosen, t, t.name())
                    .on_hover_text(t.describe());
            }
        })
        .response;
    named(&combo, name);
    (chosen != ty).then_some(chosen)
}

impl EditorApp {
    /// The Blackboard panel: the tree's keys, each editable, then the project's.
    pub(super) fn blackboard_ui(&mut self, ui: &mut egui::Ui) {
        let tree = self.doc.tree();
        let shared = self.catalog.shared_keys();
        let count = tree.keys.as_ref().map_or(0, Vec::len) + shared.len();
        let mut asked = Vec::new();
        ui.heading(match count {
            1 => "Blackboard (1 key)".to_owned(),
            n => format!("Blackboard ({n} keys)"),
        });
        match &tree.keys {
            None => {
                ui.add(
                    egui::Label::new(
                        "This tree declares no keys: each key its nodes name holds any value.",
                    )
                    .wrap(),
                );
                if ui
                    .button("Declare the keys this tree uses")
                    .on_hover_text(Command::DeclareKeys.tooltip())
                    .clicked()
                {
                    asked.push(Change::Command(Command::DeclareKeys));
                }
            }
            Some(keys) => {
                for (i, k) in keys.iter().enumerate() {
                    ui.push_id(("tree-key", i), |ui| {
                        self.blackboard.key_ui(ui, k, &mut asked);
                    });
                    ui.separator();
                }
                self.blackboard.add_ui(ui, keys, &mut asked);
            }
        }
        if !shared.is_empty() {
            // A long list is folded at first: it is drawn only when opened.
            egui::CollapsingHeader::new(format!(
                "The project's {} key(s), shared by all its trees",
                shared.len()
            ))
            .id_salt("project-keys")
            .default_open(shared.len() <= PROJECT_KEYS_OPEN)
            .show(ui, |ui| {
                for (i, k) in shared.iter().enumerate() {
                    ui.push_id(("project-key", i), |ui| {
                        self.blackboard.project_key_ui(ui, k, &mut asked);
                    });
                }
            });
        }
        self.usages_ui(ui, &mut asked);
        self.queue.extend(asked);
    }

    /// The nodes Find usages found, each a click away from being selected and centred.
    fn usages_ui(&self, ui: &mut egui::Ui, asked: &mut Vec<Change>) {
        let Some(found) = &self.blackboard.usages else {
            return;
        };
        if found.revision != self.doc.revision() {
            return;
        }
        ui.add_space(4.0);
        ui.label(RichText::new(format!("Usages of '{}'", found.key)).strong());
        if found.uses.is_empty() {
            ui.label("No node reads or writes it.");
        }
        for u in &found.uses {
            let label = self.doc.tree().node(&u.node).map_or_else(
                || u.node.to_string(),
                |n| format!("{} ({})", n.label(), u.node),
            );
            let row = ui
                .add(
                    egui::Label::new(format!("{label}: {} {}", verb(u.role), u.field))
                        .sense(egui::Sense::click()),
                )
                .on_hover_text("Click to select the node and centre it")
                .on_hover_cursor(egui::CursorIcon::PointingHand);
            if row.clicked() {
                asked.push(Change::Focus(u.node.clone()));
            }
        }
    }

    /// Finds every node that reads or writes `key` (a SubTree's through its tree), lists
    /// them in the panel, selects them and shows them all.
    pub(super) fn find_usages(&mut self, key: &str) {
        let uses: Vec<KeyUse> = self.with_assets(|tree, catalog, assets| {
            crate::model::key_uses(tree, catalog, assets)
                .into_iter()
                .filter(|u| u.key == key)
                .collect()
        });
        let mut nodes: Vec<_> = uses.iter().map(|u| u.node.clone()).collect();
        nodes.dedup();
        self.select_many(&nodes);
        if !nodes.is_empty() {
            for n in &nodes {
                self.reveal(n);
            }
            self.canvas
                .request(super::ViewRequest::FitNodes(self.selection().to_vec()));
        }
        let (reads, writes) = uses.iter().fold((0, 0), |(r, w), u| match u.role {
            KeyRole::Reads => (r + 1, w),
            KeyRole::Writes => (r, w + 1),
        });
        self.say(format!(
            "Key '{key}': {reads} read(s) and {writes} write(s), in {} node(s), selected",
            nodes.len()
        ));
        self.blackboard.usages = Some(Usages {
            key: key.to_owned(),
            uses,
            revision: self.doc.revision(),
        });
    }

    /// Renames a key and every use of it in the tree, as one undo step; the rename field
    /// closes when it is done, and stays with the reason when it is refused. A key the
    /// project declares is renamed in the project file and in every tree of the project
    /// ([`EditorApp::rename_project_key`]).
    pub(super) fn rename_key(&mut self, from: &str, to: &str) {
        if self.catalog.shared_keys().iter().any(|k| k.name == from) {
            self.rename_project_key(from, to);
            return;
        }
        let uses = crate::model::fields_naming(self.doc.tree(), &self.catalog, from).len();
        if self.apply(Edit::RenameKey {
            from: from.to_owned(),
            to: to.to_owned(),
        }) {
            self.blackboard.renaming = None;
            self.say(format!(
                "Renamed key '{from}' to '{to}' in its declaration and {uses} field(s)"
            ));
        }
    }

    /// Renames key `from`, which the project declares, to `to` in the project file, in
    /// every other tree file of the project and in the tree being edited, as one undo
    /// step: the other files are written at once (through a temporary file each), the tree
    /// edited is changed as an edit (saved when it is saved); undo writes the files back as
    /// they were, redo writes them again, each only where it holds what was written. A
    /// name in use in any of them, or a tree of the project that cannot be read, refuses
    /// it with the reason, and nothing changes.
    fn rename_project_key(&mut self, from: &str, to: &str) {
        let Some(project) = self.project.file().map(std::path::Path::to_owned) else {
            return;
        };
        let here = match self.doc.tree().shared_key_renaming(from, to, &self.catalog) {
            Ok(edits) => edits,
            Err(why) => return self.say_problem(format!("Rename refused: {why}")),
        };
        let files = match crate::io::plan_project_rename(
            &project,
            &self.catalog,
            self.doc.path(),
            from,
            to,
        ) {
            Ok(files) => files,
            Err(why) => return self.say_problem(format!("Rename refused: {why}")),
        };
        if let Err(why) = crate::io::apply_file_changes(&files, true) {
            return self.say_problem(format!("Rename refused: {why}"));
        }
        let (trees, uses) = (files.len() - 1, here.len());
        if let Err(why) = self
            .doc
            .apply_with_files(Edit::Batch(here), files.clone(), &self.catalog)
        {
            // (The edit was checked: put the files back all the same.)
            let _ = crate::io::apply_file_changes(&files, false);
            return self.say_problem(format!("Rename refused: {why}"));
        }
        self.blackboard.renaming = None;
        self.project.reload();
        self.reload_kinds();
        self.changed();
        self.say(format!(
            "Renamed the project's key '{from}' to '{to}': the project file, {trees} other tree file(s) and {uses} change(s) here"
        ));
    }

    /// Declares the keys the tree uses, typed by what writes them (else what reads them),
    /// as one undo step (the tree declared none).
    pub(super) fn declare_keys(&mut self) {
        let found = self.with_assets(crate::model::undeclared_keys);
        let names: Vec<&str> = found.iter().map(|k| k.name.as_str()).collect();
        let said = if names.is_empty() {
            "This tree now declares its keys (it uses none yet)".to_owned()
        } else {
            format!("Declared {} key(s): {}", names.len(), names.join(", "))
        };
        // Its SubTree nodes keep sharing their assets' keys (`autoremap`), as before.
        if self.apply(self.with_assets(crate::model::declaring_keys)) {
            self.say(said);
        }
    }

    /// The parameters that the asset of SubTree node `node` declares, in its order
    /// (`None`: not a SubTree node, or its asset cannot be read); the asset is read once
    /// for each revision of the tree.
    pub(super) fn asset_params(&mut self, node: &Node) -> Option<Vec<KeyDecl>> {
        if self.catalog.category_of(&node.kind) != Some(crate::model::Category::SubTree) {
            return None;
        }
        let asset = node.fields.get("asset").and_then(Value::as_str)?.to_owned();
        let at = (
            self.doc.path().map(std::path::Path::to_owned),
            asset.clone(),
            self.doc.revision(),
        );
        if self.blackboard.params.as_ref().is_none_or(|p| p.at != at) {
            let params = self.with_assets(|_, catalog, assets| {
                let (asset, inner) = assets.open(&asset)?;
                Some(crate::model::summarize(&asset, catalog, &*inner).parameters(node))
            });
            self.blackboard.params = Some(ParamsRead { at, params });
        }
        self.blackboard.params.as_ref()?.params.clone()
    }

    /// Calls `f` with the tree, its kinds and what resolves its SubTrees' assets (the files
    /// beside its file; nothing for a tree never saved).
    fn with_assets<R>(&self, f: impl FnOnce(&Tree, &Catalog, &dyn crate::model::Assets) -> R) -> R {
        let tree = self.doc.tree();
        match self.doc.path() {
            Some(p) => {
                let files = crate::io::TreeFiles::new(&self.catalog);
                f(tree, &self.catalog, &files.assets_for(p))
            }
            None => f(tree, &self.catalog, &crate::model::NoAssets),
        }
    }
}

impl Blackboard {
    /// One of the tree's keys: name, type, default, doc, and its buttons.
    fn key_ui(&mut self, ui: &mut egui::Ui, k: &KeyDecl, asked: &mut Vec<Change>) {
        let update = |key: KeyDecl| {
            Change::Edit(Edit::UpdateKey {
                name: k.name.clone(),
                key,
            })
        };
        ui.horizontal(|ui| {
            ui.label(RichText::new(&k.name).monospace().strong());
            if let Some(ty) = type_combo_ui(ui, &k.name, k.ty, &format!("type of {}", k.name)) {
                // A default the new type does not take goes with the change.
                let default = k.default.clone().filter(|v| ty.takes_default(v));
                asked.push(update(KeyDecl {
                    ty,
                    default,
                    ..k.clone()
                }));
            }
        });
        egui::Grid::new("key-fields").num_columns(2).show(ui, |ui| {
            if k.ty.has_defaults() {
                ui.label("default");
                let current = k.default.as_ref().map(default_text).unwrap_or_default();
                if let Some(text) = committed_text_ui(
                    ui,
                    ui.id().with("default"),
                    &current,
                    "none",
                    &format!("default of {}", k.name),
                ) {
                    asked.push(update(KeyDecl {
                        default: parse_default(&text, k.ty),
                        ..k.clone()
                    }));
                }
                ui.end_row();
            }
            ui.label("doc");
            if let Some(doc) = committed_text_ui(
                ui,
                ui.id().with("doc"),
                &k.doc,
                "what it is for",
                &format!("doc of {}", k.name),
            ) {
                asked.push(update(KeyDecl {
                    doc: doc.trim().to_owned(),
                    ..k.clone()
                }));
            }
            ui.end_row();
        });
        if self.rename_ui(ui, &k.name, asked) {
            return;
        }
        ui.horizontal(|ui| {
            if ui
                .small_button("Rename…")
                .on_hover_text("Rename the key and every use of it in this tree")
                .clicked()
            {
                self.renaming = Some((k.name.clone(), k.name.clone(), true));
            }
            usages_button_ui(ui, &k.name, asked);
            if ui
                .small_button("Delete")
                .on_hover_text("Remove the declaration (the nodes keep naming the key)")
                .clicked()
            {
                asked.push(Change::Edit(Edit::RemoveKey {
                    name: k.name.clone(),
                }));
            }
        });
    }

    /// The field that takes key `name`'s new name, with Rename and Cancel, while it is
    /// being renamed; false when it is not.
    fn rename_ui(&mut self, ui: &mut egui::Ui, name: &str, asked: &mut Vec<Change>) -> bool {
        let Some((key, text, focus)) = &mut self.renaming else {
            return false;
        };
        if key != name {
            return false;
        }
        let mut done = None;
        ui.horizontal(|ui| {
            let field = ui.add(
                egui::TextEdit::singleline(text).desired_width(ui.available_width().min(140.0)),
            );
            named(&field, &format!("new name of {name}"));
            if std::mem::take(focus) {
                field.request_focus();
                ui.ctx().request_repaint();
            }
            let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if ui.small_button("Rename").clicked() || enter {
                done = Some(true);
            }
            if ui.small_button("Cancel").clicked() {
                done = Some(false);
            }
        });
        match done {
            Some(true) => asked.push(Change::RenameKey(name.to_owned(), text.trim().to_owned())),
            Some(false) => self.renaming = None,
            None => {}
        }
        true
    }

    /// One of the project's keys: name, type, default, doc; Rename… (in the project file
    /// and every tree of the project) and Find usages.
    fn project_key_ui(&mut self, ui: &mut egui::Ui, k: &KeyDecl, asked: &mut Vec<Change>) {
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(&k.name).monospace().strong());
            ui.label(k.ty.name());
            if let Some(v) = &k.default {
                ui.label(format!("= {v}"));
            }
            ui.label(RichText::new("project").weak());
        });
        if !k.doc.is_empty() {
            ui.add(egui::Label::new(RichText::new(&k.doc).italics()).wrap());
        }
        if self.rename_ui(ui, &k.name, asked) {
            return;
        }
        ui.horizontal(|ui| {
            if ui
                .small_button("Rename…")
                .on_hover_text(
                    "Rename the key in the project file and every use of it in the project's trees",
                )
                .clicked()
            {
                self.renaming = Some((k.name.clone(), k.name.clone(), true));
            }
            usages_button_ui(ui, &k.name, asked);
        });
    }

    /// The row that adds a key: its name, its type, Add.
    fn add_ui(&mut self, ui: &mut egui::Ui, keys: &[KeyDecl], asked: &mut Vec<Change>) {
        let ty = self.new_type.unwrap_or(KeyType::Any);
        let key = KeyDecl::new(self.new_name.trim(), ty);
        // What would refuse it, said as it is typed.
        let problem = if keys.iter().any(|k| k.name == key.name) {
            Some(format!("the tree declares key '{}' already", key.name))
        } else {
            key.problem()
        };
        let typed = !key.name.is_empty();
        let mut add = false;
        ui.horizontal(|ui| {
            let field = ui.add(
                egui::TextEdit::singleline(&mut self.new_name)
                    .hint_text("new key")
                    .desired_width(110.0),
            );
            named(&field, "New key");
            add |= field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if let Some(t) = type_combo_ui(ui, "new key", ty, "type of the new key") {
                self.new_type = Some(t);
            }
            add |= ui
                .add_enabled(typed && problem.is_none(), egui::Button::new("Add key"))
                .clicked();
        });
        if let Some(why) = &problem
            && typed
        {
            ui.add(egui::Label::new(RichText::new(why).color(REFUSED)).wrap());
        }
        if add && typed && problem.is_none() {
            asked.push(Change::Edit(Edit::DeclareKey {
                key,
                index: keys.len(),
            }));
            self.new_name.clear();
        }
    }
}

/// Find usages of `key`.
fn usages_button_ui(ui: &mut egui::Ui, key: &str, asked: &mut Vec<Change>) {
    let button = ui
        .small_button("Find usages")
        .on_hover_text("List and select every node that reads or writes the key");
    named(&button, &format!("Find usages of {key}"));
    if button.clicked() {
        asked.push(Change::FindUsages(key.to_owned()));
    }
}

/// The name typed for a new key of a node's key field, kept while its form is open: the
/// field, the name, and whether the form has just opened (it takes the keyboard).
type Naming = (String, String, bool);

fn naming_id(node: &Node) -> egui::Id {
    egui::Id::new(("new-key", node.id.as_str()))
}

/// The drop-down of a key field in the inspector: "(none)", the keys whose type fits the
/// field, and "New key…", which opens the form [`new_key_ui`] draws under the fields.
/// Returns the edit asked for: the field set.
pub(super) fn key_field_ui(
    ui: &mut egui::Ui,
    tree: &Tree,
    catalog: &Catalog,
    node: &Node,
    spec: &FieldSpec,
    label: egui::Id,
) -> Option<Request> {
    let FieldType::ContextKey(types) = spec.ty else {
        return None;
    };
    let current = node
        .fields
        .get(&spec.name)
        .or(spec.default.as_ref())
        .and_then(Value::as_str)
        .unwrap_or("");
    let set = |value: Option<Value>| set_field(node, spec, value);
    let mut request = None;
    let shown = if current.is_empty() {
        RichText::new("(none)")
    } else {
        RichText::new(current).monospace()
    };
    egui::ComboBox::from_id_salt(("key-field", spec.name.as_str()))
        .selected_text(shown)
        .width(150.0)
        .show_ui(ui, |ui| {
            if ui.selectable_label(current.is_empty(), "(none)").clicked() {
                // An optional field goes back to unset; another holds "" for none.
                let none = if spec.default.is_none() && !spec.required {
                    None
                } else {
                    Some(Value::Text(String::new()))
                };
                request = Some(set(none));
            }
            let shown = (!current.is_empty()).then_some(current);
            let hint = "Declare a key for this field and name it here";
            let field = (node, spec.name.as_str());
            if let Some(k) = key_choices_ui(ui, tree, catalog, types, shown, field, hint) {
                request = Some(set(Some(Value::Text(k))));
            }
        })
        .response
        .labelled_by(label);
    request
}

/// The key types field `spec` of a node of kind `kind` can be read from (SEMANTICS.md
/// §3.5): `None` for the fields that take values only ([`KindSpec::key_bound_refused`])
/// and those that name a key or a file.
pub(super) fn bindable(kind: &KindSpec, spec: &FieldSpec) -> Option<KeyTypes> {
    if kind.key_bound_refused(&spec.name).is_some() {
        return None;
    }
    spec.ty.key_types()
}

/// The edit that sets field `spec` of `node` to `value` (none: back to its default).
fn set_field(node: &Node, spec: &FieldSpec, value: Option<Value>) -> Request {
    Request::Edit(
        Edit::SetField {
            id: node.id.clone(),
            name: spec.name.clone(),
            value,
        },
        None,
    )
}

/// A field read from key `key`: a drop-down of the keys of the types it takes, and
/// "value", which gives it its value again (its default).
pub(super) fn bound_field_ui(
    ui: &mut egui::Ui,
    (tree, catalog): (&Tree, &Catalog),
    node: &Node,
    spec: &FieldSpec,
    (types, key): (KeyTypes, &str),
    label: egui::Id,
) -> Option<Request> {
    let mut request = None;
    egui::ComboBox::from_id_salt(("bound-field", spec.name.as_str()))
        .selected_text(RichText::new(format!("key {key}")).monospace())
        .width(140.0)
        .show_ui(ui, |ui| {
            let field = (node, spec.name.as_str());
            let hint = "Declare a key and read this field from it";
            if let Some(k) = key_choices_ui(ui, tree, catalog, types, Some(key), field, hint) {
                request = Some(set_field(node, spec, Some(Value::Key(k))));
            }
        })
        .response
        .labelled_by(label)
        .on_hover_text("Read from this key when the action starts (a condition: at each check)");
    let back = ui
        .small_button("value")
        .on_hover_text("Give the field a value again instead of a key");
    named(&back, &format!("give {} a value", spec.name));
    if back.clicked() {
        request = Some(set_field(node, spec, None));
    }
    request
}

/// "key" beside a field that can be read from a key: reads it from the first declared key
/// of a type it takes (the drop-down that then replaces the value picks another).
pub(super) fn bind_button(
    ui: &mut egui::Ui,
    (tree, catalog): (&Tree, &Catalog),
    node: &Node,
    spec: &FieldSpec,
    types: KeyTypes,
) -> Option<Request> {
    let first = crate::model::keys_fitting(tree, catalog, types)
        .into_iter()
        .next();
    let button = ui
        .add_enabled(first.is_some(), egui::Button::new("key").small())
        .on_hover_text("Read this field from a blackboard key when the action starts")
        .on_disabled_hover_text("No key of a type this field takes: add one in the Blackboard");
    named(&button, &format!("read {} from a key", spec.name));
    let k = first.filter(|_| button.clicked())?;
    Some(set_field(node, spec, Some(Value::Key(k.name))))
}

/// The keys of a drop-down that names a key of `types` (the tree's, then the project's,
/// `current` marked) and "New key…", which opens the form [`new_key_ui`] draws for the
/// node's field (`hint` says what it does). Returns the key picked, when another.
fn key_choices_ui(
    ui: &mut egui::Ui,
    tree: &Tree,
    catalog: &Catalog,
    types: crate::model::KeyTypes,
    current: Option<&str>,
    (node, field): (&Node, &str),
    hint: &str,
) -> Option<String> {
    let mut picked = None;
    for k in crate::model::keys_fitting(tree, catalog, types) {
        let text = match k.origin {
            KeyOrigin::Project => format!("{}  ·  {}, project", k.name, k.ty),
            _ => format!("{}  ·  {}", k.name, k.ty),
        };
        let this = current == Some(k.name.as_str());
        if ui.selectable_label(this, text).clicked() && !this {
            picked = Some(k.name);
        }
    }
    if ui
        .selectable_label(false, "New key…")
        .on_hover_text(hint)
        .clicked()
    {
        let open: Naming = (field.to_owned(), String::new(), true);
        ui.data_mut(|d| d.insert_temp(naming_id(node), open));
    }
    picked
}

/// The form New key… opened for one of `node`'s key fields, a field read from a key, or
/// one of the `params` of its SubTree asset, under the fields: the new key's name, Declare
/// (or Enter) and Cancel. Declare declares the key, of the field's type (`any` when a key
/// field takes several, `float` for a number) or the parameter's, and sets the field
/// (binds the field or the parameter to it), as one undo step; in a tree that declares no
/// keys it sets the field alone.
pub(super) fn new_key_ui(
    ui: &mut egui::Ui,
    tree: &Tree,
    catalog: &Catalog,
    node: &Node,
    params: &[KeyDecl],
) -> Option<Request> {
    let id = naming_id(node);
    let (field, mut name, focus) = ui.data(|d| d.get_temp::<Naming>(id))?;
    // A key field names the key; a field read from a key, or a SubTree's parameter, is
    // bound to it.
    let kind = catalog.kind(&node.kind)?;
    let (ty, bound) = match kind.key_types(&field) {
        Some(types) => (types.single().unwrap_or(KeyType::Any), false),
        None => match kind.field(&field).and_then(|f| bindable(kind, f)) {
            // A number field takes an int or a float key: a new one is a float.
            Some(types) => (types.single().unwrap_or(KeyType::Float), true),
            None => (params.iter().find(|p| p.name == field)?.ty, true),
        },
    };
    ui.label(format!("A new key for {field}, holding {}:", ty.describe()));
    let mut done = None;
    ui.horizontal(|ui| {
        let text = ui.add(
            egui::TextEdit::singleline(&mut name)
                .hint_text("its name")
                .desired_width(120.0),
        );
        named(&text, "New key name");
        if focus {
            text.request_focus();
        }
        let enter = text.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        if ui.small_button("Declare").clicked() || enter {
            done = Some(true);
        }
        if ui.small_button("Cancel").clicked() {
            done = Some(false);
        }
    });
    let key = KeyDecl::new(name.trim(), ty);
    let problem = key.problem();
    if let Some(why) = &problem
        && !name.trim().is_empty()
    {
        ui.add(egui::Label::new(RichText::new(why).color(REFUSED)).wrap());
    }
    match done {
        Some(true) if problem.is_none() => {
            ui.data_mut(|d| d.remove::<Naming>(id));
            let named = if bound {
                Value::Key(key.name.clone())
            } else {
                Value::Text(key.name.clone())
            };
            let set = Edit::SetField {
                id: node.id.clone(),
                name: field,
                value: Some(named),
            };
            let edit = match &tree.keys {
                Some(keys) => Edit::Batch(vec![
                    Edit::DeclareKey {
                        key,
                        index: keys.len(),
                    },
                    set,
                ]),
                None => set,
            };
            Some(Request::Edit(edit, None))
        }
        Some(false) => {
            ui.data_mut(|d| d.remove::<Naming>(id));
            None
        }
        _ => {
            ui.data_mut(|d| d.insert_temp(id, (field, name, false)));
            None
        }
    }
}

/// The parameters of a SubTree node's asset, each with its direction, type, default and
/// doc, and the editor of its binding: unbound (its default, or the caller's key of its
/// name where the node shares its keys), a value of its type (an `in` parameter's), or a
/// key of the caller's whose type fits, with "New key…". Returns the edit asked for: the
/// node's field of the parameter's name set, or removed.
pub(super) fn params_ui(
    ui: &mut egui::Ui,
    tree: &Tree,
    catalog: &Catalog,
    node: &Node,
    params: &[KeyDecl],
) -> Option<Request> {
    let mut request = None;
    let shares = crate::model::shares_keys(node, tree);
    ui.label(RichText::new("Parameters").strong())
        .on_hover_text(
            "What the SubTree's tree declares as its parameters, and what this node binds each to",
        );
    egui::Grid::new("subtree-params")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            for p in params {
                if let Some(r) = param_ui(ui, tree, catalog, node, p, shares) {
                    request = Some(r);
                }
            }
        });
    request
}

/// One parameter's rows of [`params_ui`].
fn param_ui(
    ui: &mut egui::Ui,
    tree: &Tree,
    catalog: &Catalog,
    node: &Node,
    p: &KeyDecl,
    shares: bool,
) -> Option<Request> {
    let set = |value: Option<Value>| {
        Request::Edit(
            Edit::SetField {
                id: node.id.clone(),
                name: p.name.clone(),
                value,
            },
            None,
        )
    };
    let bound = node.fields.get(&p.name);
    let direction = p.parameter.map_or("", crate::model::Param::name);
    ui.label(if bound.is_some() {
        RichText::new(&p.name).monospace().strong()
    } else {
        RichText::new(&p.name).monospace()
    });
    let mut request = None;
    // A literal can be given to an `in` parameter of a type that has literals.
    let takes_value = direction == "in" && (p.ty.has_defaults() || p.ty == KeyType::Any);
    let unbound = match (&p.default, shares) {
        (_, true) => format!("(unbound: the caller's {})", p.name),
        (Some(v), false) => format!("(unbound: its default {})", default_text(v)),
        (None, false) if p.required() || p.parameter == Some(crate::model::Param::Out) => {
            "(unbound: it needs one)".to_owned()
        }
        (None, false) => "(unbound)".to_owned(),
    };
    ui.horizontal(|ui| {
        let shown = match bound {
            None => RichText::new(&unbound).weak(),
            Some(Value::Key(k)) => RichText::new(format!("key {k}")).monospace(),
            Some(_) => RichText::new("a value"),
        };
        let combo = egui::ComboBox::from_id_salt(("param", node.id.as_str(), p.name.as_str()))
            .selected_text(shown)
            .width(150.0)
            .show_ui(ui, |ui| {
                if ui.selectable_label(bound.is_none(), &unbound).clicked() && bound.is_some() {
                    request = Some(set(None));
                }
                let is_value = bound.is_some_and(|v| !matches!(v, Value::Key(_)));
                if takes_value && ui.selectable_label(is_value, "a value").clicked() && !is_value {
                    request = Some(set(Some(first_value(p))));
                }
                let shown = match bound {
                    Some(Value::Key(k)) => Some(k.as_str()),
                    _ => None,
                };
                let hint = "Declare a key of this tree and bind the parameter to it";
                let field = (node, p.name.as_str());
                if let Some(k) = key_choices_ui(ui, tree, catalog, p.ty.set(), shown, field, hint) {
                    request = Some(set(Some(Value::Key(k))));
                }
            })
            .response;
        named(&combo, &format!("binding of {}", p.name));
        if let Some(v) = bound.filter(|v| !matches!(v, Value::Key(_))) {
            let key = egui::Id::new(("param-value", node.id.as_str(), p.name.as_str()));
            let typed = committed_text_ui(
                ui,
                key,
                &default_text(v),
                p.ty.name(),
                &format!("value of {}", p.name),
            );
            if let Some(text) = typed {
                request = Some(set(Some(
                    parse_default(&text, p.ty).unwrap_or(Value::Text(String::new())),
                )));
            }
        }
    });
    ui.end_row();
    // Under it: what the parameter is.
    ui.label("");
    let mut about = format!("{direction}, {}", p.ty.name());
    if let Some(v) = &p.default {
        about += &format!(", default {}", default_text(v));
    }
    if !p.doc.is_empty() {
        about += &format!(": {}", p.doc);
    }
    ui.add(egui::Label::new(RichText::new(about).weak().size(11.5)).wrap());
    ui.end_row();
    request
}

/// The value a parameter is given when "a value" is picked: its default, else the type's
/// plainest (false, 0, "").
fn first_value(p: &KeyDecl) -> Value {
    p.default.clone().unwrap_or(match p.ty {
        KeyType::Bool => Value::Bool(false),
        KeyType::Int => Value::Int(0),
        KeyType::Float => Value::Float(0.0),
        _ => Value::Text(String::new()),
    })
}
