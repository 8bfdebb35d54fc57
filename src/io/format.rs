//! The tree file format, version 1 (documented in docs/FORMAT.md).
//!
//! These DTOs are the file's shape; the model is built from them and never serialised directly.

use std::collections::BTreeMap;
use std::path::Path;

use foldhash::HashMap;
use serde::{Deserialize, Serialize};

use super::keys::Keys;
use super::{LoadError, canonical::to_canonical_json};
use crate::model::{Node, NodeId, Port, Tree, Value, View};

/// The `format` header of a tree file.
pub const TREE_FORMAT: &str = super::header::TREE.name;
/// The newest tree format version this build reads and the one it writes.
pub const TREE_VERSION: u64 = super::header::TREE.newest;

#[derive(Serialize, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a tree file: an object with \"format\", \"version\" and \"nodes\""
)]
struct TreeFile {
    format: String,
    version: u64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    keys: Option<Keys>,
    nodes: Vec<NodeDto>,
    #[serde(default, skip_serializing_if = "EditorDto::is_empty")]
    editor: EditorDto,
}

#[derive(Serialize, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a node: an object with \"id\" and \"kind\""
)]
struct NodeDto {
    id: NodeId,
    kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    title: String,
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "once_each"
    )]
    fields: BTreeMap<String, Value>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    inputs: BTreeMap<Port, Vec<NodeId>>,
}

/// A node's fields, each written once: a field (a SubTree's parameter) given twice is
/// refused at its place rather than the last one silently kept.
fn once_each<'de, D: serde::Deserializer<'de>>(d: D) -> Result<BTreeMap<String, Value>, D::Error> {
    struct Fields;
    impl<'de> serde::de::Visitor<'de> for Fields {
        type Value = BTreeMap<String, Value>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("the fields: an object { \"name\": value, … }")
        }
        fn visit_map<M: serde::de::MapAccess<'de>>(
            self,
            mut map: M,
        ) -> Result<Self::Value, M::Error> {
            let mut fields = BTreeMap::new();
            while let Some((name, value)) = map.next_entry::<String, Value>()? {
                if fields.contains_key(&name) {
                    return Err(serde::de::Error::custom(format!(
                        "field '{name}' is written twice"
                    )));
                }
                fields.insert(name, value);
            }
            Ok(fields)
        }
    }
    d.deserialize_map(Fields)
}

#[derive(Serialize, Deserialize, Default)]
#[serde(
    deny_unknown_fields,
    expecting = "the editor's layout: an object with \"view\" and \"nodes\""
)]
struct EditorDto {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    view: Option<ViewDto>,
    /// Written sorted by id; read into a hash map (looked up once per node).
    #[serde(
        default,
        skip_serializing_if = "HashMap::is_empty",
        serialize_with = "sorted"
    )]
    nodes: HashMap<NodeId, NodeViewDto>,
}

#[derive(Serialize, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "the view: an object with \"offset\" and \"zoom\""
)]
struct ViewDto {
    #[serde(deserialize_with = "f32_pair")]
    offset: [f64; 2],
    #[serde(deserialize_with = "f32_number")]
    zoom: f64,
}

impl EditorDto {
    fn is_empty(&self) -> bool {
        self.view.is_none() && self.nodes.is_empty()
    }
}

#[derive(Serialize, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a node's layout: an object with \"position\""
)]
struct NodeViewDto {
    #[serde(deserialize_with = "f32_pair")]
    position: [f64; 2],
    #[serde(default, skip_serializing_if = "String::is_empty")]
    comment: String,
}

fn sorted<S: serde::Serializer>(
    nodes: &HashMap<NodeId, NodeViewDto>,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_map(nodes.iter().collect::<BTreeMap<_, _>>())
}

/// A layout number, which the editor keeps as an f32: one that does not fit is refused
/// here rather than loaded as infinity and written back as null.
fn f32_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let x = f64::deserialize(d)?;
    if (x as f32).is_finite() {
        Ok(x)
    } else {
        Err(serde::de::Error::custom(format!(
            "the number {x:e} is too large for a layout coordinate (at most ±{:e})",
            f32::MAX
        )))
    }
}

fn f32_pair<'de, D: serde::Deserializer<'de>>(d: D) -> Result<[f64; 2], D::Error> {
    struct Pair;
    impl<'de> serde::de::Visitor<'de> for Pair {
        type Value = [f64; 2];
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a pair [x, y]")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<[f64; 2], A::Error> {
            #[derive(Deserialize)]
            #[serde(transparent)]
            struct Coord(#[serde(deserialize_with = "f32_number")] f64);
            let mut pair = [0.0; 2];
            for (i, slot) in pair.iter_mut().enumerate() {
                *slot = seq
                    .next_element::<Coord>()?
                    .ok_or_else(|| serde::de::Error::invalid_length(i, &self))?
                    .0;
            }
            if seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
                return Err(serde::de::Error::custom(
                    "expected a pair [x, y]: it has more than two numbers",
                ));
            }
            Ok(pair)
        }
    }
    d.deserialize_seq(Pair)
}

/// serde's words for JSON's shapes, in JSON's words.
const PLAIN_WORDS: &[(&str, &str)] = &[
    ("expected a sequence", "expected a list [ … ]"),
    ("expected a map", "expected an object { … }"),
    ("invalid type: sequence", "invalid type: a list"),
    ("invalid type: map", "invalid type: an object"),
    ("unknown variant", "unknown port"),
];

fn syntax(path: &Path, e: &serde_json::Error) -> LoadError {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let mut message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
    for (serde, plain) in PLAIN_WORDS {
        message = message.replace(serde, plain);
    }
    LoadError::Syntax {
        path: path.to_owned(),
        line: e.line().max(1),
        column: e.column().max(1),
        message,
    }
}

/// f32 → the f64 with the same shortest decimal text, so "0.1" stays "0.1" in files.
fn widen(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(f64::from(x))
}

/// Parses the text of a tree file: a BehaviorTree.CPP file for a `path` ending in `.xml`,
/// else an Arbor tree file; `path` is used in errors too.
pub fn parse_tree(text: &str, path: &Path) -> Result<Tree, LoadError> {
    if super::btcpp::is_xml(path) {
        return super::parse_xml_tree(text, path).map(|(tree, _)| tree);
    }
    parse_arbor_tree(text, path)
}

/// Parses the text of an Arbor tree file, whatever `path`, which is only used in errors
/// (the work on a BehaviorTree.CPP file's tree is kept aside as Arbor's text).
pub(crate) fn parse_arbor_tree(text: &str, path: &Path) -> Result<Tree, LoadError> {
    let format_err = |message: String| LoadError::Format {
        path: path.to_owned(),
        message,
    };
    super::header::TREE
        .check(text)
        .map_err(|p| format_err(p.to_string()))?;
    let file: TreeFile = serde_json::from_str(text).map_err(|e| syntax(path, &e))?;
    let editor = file.editor;
    let nodes = file
        .nodes
        .into_iter()
        .map(|dto| {
            let view = editor.nodes.get(&dto.id);
            let mut inputs = dto.inputs;
            inputs.retain(|_, ids| !ids.is_empty());
            Node {
                position: view
                    .as_ref()
                    .map(|v| [v.position[0] as f32, v.position[1] as f32])
                    .unwrap_or_default(),
                comment: view.map(|v| v.comment.clone()).unwrap_or_default(),
                id: dto.id,
                kind: dto.kind,
                title: dto.title,
                fields: dto.fields,
                inputs,
            }
        })
        .collect();
    let mut tree = Tree::from_nodes(nodes).map_err(|source| LoadError::Structure {
        path: path.to_owned(),
        source,
    })?;
    tree.description = file.description;
    tree.keys = file.keys.map(|k| k.0);
    tree.view = editor.view.map(|v| View {
        offset: [v.offset[0] as f32, v.offset[1] as f32],
        zoom: v.zoom as f32,
    });
    Ok(tree)
}

/// The canonical text of a tree file.
pub fn tree_to_string(tree: &Tree) -> String {
    let file = TreeFile {
        format: TREE_FORMAT.into(),
        version: TREE_VERSION,
        description: tree.description.clone(),
        keys: tree.keys.clone().map(Keys),
        nodes: tree
            .nodes()
            .iter()
            .map(|n| NodeDto {
                id: n.id.clone(),
                kind: n.kind.clone(),
                title: n.title.clone(),
                fields: n.fields.clone(),
                inputs: n
                    .inputs
                    .iter()
                    .filter(|(_, ids)| !ids.is_empty())
                    .map(|(p, ids)| (*p, ids.clone()))
                    .collect(),
            })
            .collect(),
        editor: EditorDto {
            view: tree.view.map(|v| ViewDto {
                offset: [widen(v.offset[0]), widen(v.offset[1])],
                zoom: widen(v.zoom),
            }),
            nodes: tree
                .nodes()
                .iter()
                .filter(|n| n.position != [0.0, 0.0] || !n.comment.is_empty())
                .map(|n| {
                    (
                        n.id.clone(),
                        NodeViewDto {
                            position: [widen(n.position[0]), widen(n.position[1])],
                            comment: n.comment.clone(),
                        },
                    )
                })
                .collect(),
        },
    };
    // Serialising plain data with string keys into a JSON value cannot fail.
    let value = serde_json::to_value(&file).unwrap_or_default();
    to_canonical_json(&value)
}
