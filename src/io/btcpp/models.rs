//! The kinds of a BehaviorTree.CPP file's own (a game's actions, conditions, controls and
//! decorators) as a node library (docs/BTCPP.md, "Importing"): as the file's
//! `<TreeNodesModel>` describes them, else as its nodes show them.

use std::collections::HashMap;

use super::{Element, Item, Source};
use crate::io::Library;
use crate::model::{Catalog, Category, FieldSpec, FieldType, KindSpec, Origin, Tree, Value};

/// A kind as a `<TreeNodesModel>` describes it: its category and its ports, each with its
/// name, its default and a line of help.
struct Model {
    category: Category,
    ports: Vec<(String, Option<String>, String)>,
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
    let mut found = HashMap::new();
    let sections = source
        .doc
        .root
        .elements()
        .filter(|e| e.name == "TreeNodesModel");
    for model in sections.flat_map(Element::elements) {
        let (Some(category), Some(id)) = (category_named(&model.name), model.attr("ID")) else {
            continue;
        };
        let ports = model
            .elements()
            .filter_map(|p| {
                let direction = match p.name.as_str() {
                    "input_port" => "input",
                    "output_port" => "output",
                    "inout_port" => "input and output",
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
                Some((name, p.attr("default").map(str::to_owned), help))
            })
            .collect();
        found.insert(id.to_owned(), Model { category, ports });
    }
    found
}

/// The kinds `tree` (read from the file `source` holds) uses that `known` does not define,
/// as node library `name`, in the order the tree first uses them. A kind's category is its
/// model's, else the one its elements' name gives (`<Action ID="…">`), else the one its
/// links show (children: a composite; a child: a decorator; else an action). Its fields are
/// its model's ports (with their defaults), else the attributes its nodes set; each is
/// text, as the tree holds them. An action succeeds and a condition holds as their
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
            Some(m) => m
                .ports
                .iter()
                .map(|(port, default, help)| match default {
                    Some(d) => FieldSpec::new(port, FieldType::Text, Value::Text(d.clone()), help),
                    None => FieldSpec::optional(port, FieldType::Text, help),
                })
                .collect(),
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
