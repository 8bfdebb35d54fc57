//! Trees built through the model API, as the editor builds them: a Root, then a series
//! of edits (insert a node of any catalog kind, link, unlink, move a child, set a field,
//! remove). Edits either apply or are refused; the tree must keep its invariants, and
//! then goes through everything a loaded file does.
#![no_main]

#[path = "../../tests/common/exercise.rs"]
mod exercise;

use arbitrary::Arbitrary;
use arbor::model::{Catalog, Edit, Node, NodeId, ParentSlot, Port, Tree, Value};

#[derive(Arbitrary, Debug)]
enum Op {
    Insert { kind: u8, parent: u8, port: u8, slot: u8 },
    Link { child: u8, parent: u8, port: u8, slot: u8 },
    Unlink { child: u8 },
    Move { parent: u8, port: u8, from: u8, to: u8 },
    SetField { node: u8, field: u8, value: Val },
    Remove { node: u8 },
}

#[derive(Arbitrary, Debug)]
enum Val {
    Default,
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
}

libfuzzer_sys::fuzz_target!(|ops: Vec<Op>| {
    let catalog = Catalog::builtin();
    let Ok(mut tree) = Tree::from_nodes(vec![Node::new("root", "Root")]) else {
        return;
    };
    let kinds = catalog.kinds();
    let id = |tree: &Tree, i: u8| -> Option<NodeId> {
        let nodes = tree.nodes();
        (!nodes.is_empty()).then(|| nodes[usize::from(i) % nodes.len()].id.clone())
    };
    let port = |p: u8| Port::ALL[usize::from(p) % Port::ALL.len()];
    for (n, op) in ops.into_iter().take(64).enumerate() {
        let edit = match op {
            Op::Insert { kind, parent, port: p, slot } => {
                let kind = &kinds[usize::from(kind) % kinds.len()];
                Edit::Insert {
                    node: Box::new(Node::new(format!("n{n}"), kind.name.as_str())),
                    index: usize::MAX,
                    parent: id(&tree, parent).map(|parent| ParentSlot {
                        parent,
                        port: port(p),
                        slot: usize::from(slot),
                    }),
                }
            }
            Op::Link { child, parent, port: p, slot } => {
                let (Some(child), Some(parent)) = (id(&tree, child), id(&tree, parent)) else {
                    continue;
                };
                Edit::Link {
                    child,
                    to: ParentSlot { parent, port: port(p), slot: usize::from(slot) },
                }
            }
            Op::Unlink { child } => {
                let Some(child) = id(&tree, child) else { continue };
                Edit::Unlink { child }
            }
            Op::Move { parent, port: p, from, to } => {
                let Some(parent) = id(&tree, parent) else { continue };
                Edit::MoveChild {
                    parent,
                    port: port(p),
                    from: usize::from(from),
                    to: usize::from(to),
                }
            }
            Op::SetField { node, field, value } => {
                let Some(id) = id(&tree, node) else { continue };
                let fields = tree
                    .node(&id)
                    .and_then(|n| catalog.kind(&n.kind))
                    .map(|k| k.fields.clone())
                    .unwrap_or_default();
                if fields.is_empty() {
                    continue;
                }
                let name = fields[usize::from(field) % fields.len()].name.clone();
                let value = match value {
                    Val::Default => None,
                    Val::Bool(b) => Some(Value::Bool(b)),
                    Val::Int(i) => Some(Value::Int(i)),
                    Val::Float(f) if f.is_finite() => Some(Value::Float(f)),
                    Val::Float(_) => None,
                    Val::Text(t) => Some(Value::Text(t)),
                };
                Edit::SetField { id, name, value }
            }
            Op::Remove { node } => {
                let Some(id) = id(&tree, node) else { continue };
                Edit::Remove { id }
            }
        };
        let _ = tree.apply(edit, &catalog);
        if let Err(e) = tree.check_invariants(&catalog) {
            panic!("an edit broke the tree's invariants: {e}");
        }
    }
    exercise::tree(&tree);
});
