//! The tree file format, version 1 (documented in docs/FORMAT.md).
//!
//! These DTOs are the file's shape; the model is built from them and never serialised directly.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{LoadError, canonical::to_canonical_json};
use crate::model::{Node, NodeId, Port, Tree, Value, View};

/// The `format` header of a tree file.
pub const TREE_FORMAT: &str = "arbor.tree";
/// The newest tree format version this build reads and the one it writes.
pub const TREE_VERSION: u64 = 1;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TreeFile {
    format: String,
    version: u64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    description: String,
    nodes: Vec<NodeDto>,
    #[serde(default, skip_serializing_if = "EditorDto::is_empty")]
    editor: EditorDto,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct NodeDto {
    id: NodeId,
    kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    title: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    fields: BTreeMap<String, Value>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    inputs: BTreeMap<Port, Vec<NodeId>>,
}

#[derive(Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct EditorDto {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    view: Option<ViewDto>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    nodes: BTreeMap<NodeId, NodeViewDto>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ViewDto {
    offset: [f64; 2],
    zoom: f64,
}

impl EditorDto {
    fn is_empty(&self) -> bool {
        self.view.is_none() && self.nodes.is_empty()
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct NodeViewDto {
    position: [f64; 2],
    #[serde(default, skip_serializing_if = "String::is_empty")]
    comment: String,
}

fn syntax(path: &Path, e: &serde_json::Error) -> LoadError {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
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

/// Parses the text of a tree file; `path` is only used in errors.
pub fn parse_tree(text: &str, path: &Path) -> Result<Tree, LoadError> {
    let raw: serde_json::Value = serde_json::from_str(text).map_err(|e| syntax(path, &e))?;
    let format_err = |message: String| LoadError::Format {
        path: path.to_owned(),
        message,
    };
    let header = raw.get("format").and_then(serde_json::Value::as_str);
    match header {
        Some(TREE_FORMAT) => {}
        Some("arbor.scenario") => {
            return Err(format_err(
                "this is a scenario file, not a tree file".into(),
            ));
        }
        Some(other) => {
            return Err(format_err(format!(
                "not an Arbor tree file: its format is \"{other}\", expected \"{TREE_FORMAT}\""
            )));
        }
        None => {
            return Err(format_err(format!(
                "not an Arbor tree file: it has no \"format\": \"{TREE_FORMAT}\" header"
            )));
        }
    }
    match raw.get("version").and_then(serde_json::Value::as_u64) {
        Some(TREE_VERSION) => {}
        Some(v) if v > TREE_VERSION => {
            return Err(format_err(format!(
                "written by a newer Arbor: tree format version {v}; this build reads version {TREE_VERSION}. Update Arbor to open it"
            )));
        }
        _ => {
            return Err(format_err(format!(
                "the \"version\" header must be {TREE_VERSION}"
            )));
        }
    }
    let file: TreeFile = serde_json::from_str(text).map_err(|e| syntax(path, &e))?;
    let mut editor = file.editor;
    let nodes = file
        .nodes
        .into_iter()
        .map(|dto| {
            let view = editor.nodes.remove(&dto.id);
            let mut inputs = dto.inputs;
            inputs.retain(|_, ids| !ids.is_empty());
            Node {
                position: view
                    .as_ref()
                    .map(|v| [v.position[0] as f32, v.position[1] as f32])
                    .unwrap_or_default(),
                comment: view.map(|v| v.comment).unwrap_or_default(),
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
