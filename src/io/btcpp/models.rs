//! The kinds of a BehaviorTree.CPP file's own (a game's actions, conditions, controls and
//! decorators) as a node library (docs/BTCPP.md, "Importing"): as the file's
//! `<TreeNodesModel>` describes them, else as its nodes show them.

use std::collections::HashMap;

use super::{Element, Item, Source};
use crate::io::Library;
use crate::model::{
    Catalog, Category, FieldDirection, FieldSpec, FieldType, KindSpec, Origin, Tree, Value,
};

/// A kind as a `<TreeNodesModel>` describes it: its category and its ports.
struct Model {
    category: Category,
    ports: Vec<ModelPort>,
}

/// A port of a model: its name, its default, its BehaviorTree.CPP type, a line of help
/// and its direction.
struct ModelPort {
    name: String,
    default: Option<String>,
    ty: Option<String>,
    help: String,
    direction: FieldDirection,
}

/// The category an element's name gives (`<Action>`, `<Condition>` …), if it gives one.
fn category_named(element: &str) -> Option<Category> {
    match element {
        "Action" => Some(Category::Leaf),
        "Condition" => Some(Category::Condition),
        "Control" => Some(Category::Composite),
        "Decorator" => Some(Category::Decorator),
        _ => None,
    }
}

/// The models of every `<TreeNodesModel>` of the file, by kind.
fn models(source: &Source) -> HashMap<String, Model> {
    models_under(&source.doc.root)
        .map(|(id, _, model)| (id.to_owned(), model))
        .collect()
}

/// Each model of the `<TreeNodesModel>`s under `root`, in file order: its kind's name in
/// the file, its element, and what it says.
fn models_under(root: &Element) -> impl Iterator<Item = (&str, &Element, Model)> {
    let sections = root.elements().filter(|e| e.name == "TreeNodesModel");
    sections.flat_map(Element::elements).filter_map(|model| {
        let (Some(category), Some(id)) = (category_named(&model.name), model.attr("ID")) else {
            return None;
        };
        let ports = model
            .elements()
            .filter_map(|p| {
                let (direction, way) = match p.name.as_str() {
                    "input_port" => ("input", FieldDirection::In),
                    "output_port" => ("output", FieldDirection::Out),
                    "inout_port" => ("input and output", FieldDirection::InOut),
                    _ => return None,
                };
                let name = p.attr("name")?.to_owned();
                let text: String = p
                    .items
                    .iter()
                    .filter_map(|i| match i {
                        Item::Text(t) => Some(t.trim()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join(" ");
                let mut help = format!("BehaviorTree.CPP {direction} port");
                if let Some(ty) = p.attr("type") {
                    help.push_str(&format!(" of type {ty}"));
                }
                if !text.is_empty() {
                    help.push_str(&format!(": {text}"));
                }
                Some(ModelPort {
                    name,
                    default: p.attr("default").map(str::to_owned),
                    ty: p.attr("type").map(str::to_owned),
                    help,
                    direction: way,
                })
            })
            .collect();
        Some((id, model, Model { category, ports }))
    })
}

/// A model's ports as fields (docs/BTCPP.md, "Port types"): each of its type's field
/// type, with its default read as that type; a port whose default does not read so (a
/// `{key}`, `numeric_limits<double>::infinity()`, `-1` for an `unsigned int`) is text, as
/// written.
fn fields_of(model: &Model) -> Vec<FieldSpec> {
    model
        .ports
        .iter()
        .map(|port| {
            let (ty, unit) = port
                .ty
                .as_deref()
                .map_or((FieldType::Text, ""), super::types::field_type);
            let default = match &port.default {
                None => Some(None),
                Some(d) => match &ty {
                    FieldType::Text => Some(Some(Value::Text(d.clone()))),
                    FieldType::Enum(words) if words.contains(d) => {
                        Some(Some(Value::Text(d.clone())))
                    }
                    // Read as its type, and within the type's range.
                    _ => ty
                        .value_from(d)
                        .filter(|v| {
                            FieldSpec::optional(&port.name, ty.clone(), "")
                                .check(v)
                                .is_ok()
                        })
                        .map(Some),
                },
            };
            let (ty, default, unit) = match default {
                Some(default) => (ty, default, unit),
                None => (FieldType::Text, port.default.clone().map(Value::Text), ""),
            };
            match default {
                Some(d) => FieldSpec::new(&port.name, ty, d, &port.help),
                None => FieldSpec::optional(&port.name, ty, &port.help),
            }
            .with_unit(unit)
            .with_direction(port.direction)
        })
        .collect()
}

/// A library's name from a file's: its stem, each character that is not a letter, a digit
/// or `_` made `_`, and `_` before a leading digit.
pub fn library_name(input: &std::path::Path) -> String {
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut name: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    name
}

/// Whether `path` is a file of BehaviorTree.CPP node models a project may list as a node
/// library: a BehaviorTree.CPP file (`.xml`, such as Nav2's `nav2_tree_nodes.xml`) or a
/// Groot2 project (`.btproj`).
pub fn is_models_file(path: &std::path::Path) -> bool {
    super::is_xml(path)
        || path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("btproj"))
}

/// The node library the `<TreeNodesModel>`s of the BehaviorTree.CPP file or Groot2 project
/// `text` (read from `path`) describe, named `name`: a kind for each model of a kind that
/// is not one of BehaviorTree.CPP's own, as [`library_of`] makes one from a model, each
/// with the line and column of its model.
pub fn models_library(
    text: &str,
    path: &std::path::Path,
    name: &str,
) -> Result<(Library, Vec<(u32, u32)>), super::XmlProblem> {
    let doc = super::parse_doc(text)?;
    let mut kinds = Vec::new();
    let mut places = Vec::new();
    for (id, element, model) in models_under(&doc.root) {
        if super::kinds::is_builtin(id) {
            continue;
        }
        let file = path.file_name().unwrap_or_default().to_string_lossy();
        let help = format!("A kind of the BehaviorTree.CPP node models in {file}.");
        let mut spec = KindSpec::new(
            &super::kinds::own_kind(id),
            model.category,
            &help,
            fields_of(&model),
        );
        spec.origin = Origin::Library {
            library: name.to_owned(),
            file: path.to_owned(),
        };
        kinds.push(spec);
        places.push((element.line, element.column));
    }
    Ok((
        Library {
            name: name.to_owned(),
            kinds,
        },
        places,
    ))
}

/// The kinds `tree` (read from the file `source` holds) uses that `known` does not define,
/// as node library `name`, in the order the tree first uses them. A kind's category is its
/// model's, else the one its elements' name gives (`<Action ID="…">`), else the one its
/// links show (children: a composite; a child: a decorator; else an action). Its fields are
/// its model's ports (typed, with their defaults), else the attributes its nodes set, as
/// text. An action succeeds and a condition holds as their
/// stand-ins; a composite or a decorator has no `runs_as`, so a tree with one does not run.
pub fn library_of(tree: &Tree, source: &Source, name: &str, known: &Catalog) -> Library {
    let models = models(source);
    let mut guessed = known.clone();
    guessed.add_placeholders(tree);
    let mut kinds = Vec::new();
    for placeholder in guessed.kinds().iter().filter(|k| k.is_placeholder()) {
        let kind = placeholder.name.as_str();
        let nodes: Vec<_> = tree.nodes().iter().filter(|n| n.kind == kind).collect();
        let named = nodes.iter().find_map(|n| {
            let original = source.originals.get(&n.id)?;
            category_named(&original.element.name)
        });
        let model = models.get(super::kinds::own_name(kind));
        let category = model
            .map(|m| m.category)
            .or(named)
            .unwrap_or(placeholder.category);
        if !matches!(
            category,
            Category::Leaf | Category::Condition | Category::Composite | Category::Decorator
        ) {
            continue;
        }
        let fields: Vec<FieldSpec> = match model {
            Some(m) => fields_of(m),
            None => {
                let mut seen: Vec<&str> = Vec::new();
                for n in &nodes {
                    for field in n.fields.keys() {
                        if !seen.contains(&field.as_str()) {
                            seen.push(field);
                        }
                    }
                }
                seen.into_iter()
                    .map(|f| FieldSpec::optional(f, FieldType::Text, "Set by the file's nodes."))
                    .collect()
            }
        };
        let help = if model.is_some() {
            "A kind of the BehaviorTree.CPP file's own, as its TreeNodesModel describes it."
        } else {
            "A kind of the BehaviorTree.CPP file's own, as its nodes use it."
        };
        let mut spec = KindSpec::new(kind, category, help, fields);
        spec.origin = Origin::Registered;
        kinds.push(spec);
    }
    Library {
        name: name.to_owned(),
        kinds,
    }
}
