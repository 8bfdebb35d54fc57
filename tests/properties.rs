//! Property tests: random edits keep the model's invariants; random trees round-trip.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use arbor::io::{parse_tree, tree_to_string};
use arbor::model::{
    Catalog, Edit, NoAssets, Node, NodeId, ParentSlot, Port, Tree, Value, validate,
};
use proptest::prelude::*;

mod common;
use common::shapes::{build, shape};

const KINDS: &[&str] = &[
    "Root",
    "Sequence",
    "Selector",
    "Parallel",
    "Inverter",
    "Repeater",
    "SubTree",
    "Interrupt",
    "MockAction",
    "Wait",
    "MockCondition",
    "HasContext",
    "Mystery",
];

#[derive(Clone, Debug)]
enum Op {
    Add(usize, usize, Option<(usize, usize, usize)>),
    Remove(usize),
    Link(usize, usize, usize, usize),
    Unlink(usize),
    Move(usize, usize, usize, usize),
    Field(usize, usize, i64),
    Title(usize, String),
    Position(usize, f32, f32),
    Batch(Vec<Op>),
}

fn leaf_op() -> impl Strategy<Value = Op> {
    let n = 0..64usize;
    prop_oneof![
        4 => (0..KINDS.len(), n.clone(), proptest::option::of((n.clone(), 0..8usize, 0..4usize))).prop_map(|(k, i, p)| Op::Add(k, i, p)),
        1 => n.clone().prop_map(Op::Remove),
        6 => (n.clone(), n.clone(), 0..8usize, 0..4usize).prop_map(|(a, b, p, s)| Op::Link(a, b, p, s)),
        1 => n.clone().prop_map(Op::Unlink),
        2 => (n.clone(), 0..4usize, 0..4usize, 0..4usize).prop_map(|(a, p, f, t)| Op::Move(a, p, f, t)),
        1 => (n.clone(), 0..3usize, -3..5i64).prop_map(|(a, f, v)| Op::Field(a, f, v)),
        1 => (n.clone(), "\\PC{0,8}").prop_map(|(a, t)| Op::Title(a, t)),
        1 => (n, -1e4f32..1e4, -1e4f32..1e4).prop_map(|(a, x, y)| Op::Position(a, x, y)),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![8 => leaf_op(), 1 => proptest::collection::vec(leaf_op(), 1..4).prop_map(Op::Batch)]
}

fn nth(tree: &Tree, i: usize) -> Option<NodeId> {
    (!tree.is_empty()).then(|| tree.nodes()[i % tree.len()].id.clone())
}

/// A slot of a port the parent has (mostly: 1 in 8 picks any port, to test refusals), at a
/// slot that exists or is the next free one.
fn target(tree: &Tree, parent: NodeId, port: usize, slot: usize) -> ParentSlot {
    let catalog = Catalog::builtin();
    let node = tree.node(&parent);
    let inputs = node
        .and_then(|n| catalog.category_of(&n.kind))
        .map(|c| c.inputs())
        .unwrap_or(&[]);
    let port = if inputs.is_empty() || port % 8 == 7 {
        Port::ALL[port % 4]
    } else {
        inputs[port % inputs.len()]
    };
    let used = node.map(|n| n.linked(port).len()).unwrap_or(0);
    ParentSlot {
        parent,
        port,
        slot: slot % (used + 1),
    }
}

fn to_edit(tree: &Tree, op: &Op) -> Option<Edit> {
    Some(match op {
        Op::Add(k, index, parent) => {
            let kind = KINDS[*k];
            let node = Node::new(tree.fresh_id(kind), kind);
            let parent =
                parent.and_then(|(p, port, slot)| Some(target(tree, nth(tree, p)?, port, slot)));
            Edit::Insert {
                node: Box::new(node),
                index: *index,
                parent,
            }
        }
        Op::Remove(i) => Edit::Remove { id: nth(tree, *i)? },
        Op::Link(a, b, p, s) => Edit::Link {
            child: nth(tree, *a)?,
            to: target(tree, nth(tree, *b)?, *p, *s),
        },
        Op::Unlink(i) => Edit::Unlink {
            child: nth(tree, *i)?,
        },
        Op::Move(a, p, f, t) => {
            // Mostly a parent with two or more links in a port, and slots in range.
            let parents: Vec<&Node> = tree
                .nodes()
                .iter()
                .filter(|n| n.inputs.values().any(|l| l.len() > 1))
                .collect();
            let Some(parent) = parents.get(*a % parents.len().max(1)).filter(|_| *p != 3) else {
                return Some(Edit::MoveChild {
                    parent: nth(tree, *a)?,
                    port: Port::ALL[*p],
                    from: *f,
                    to: *t,
                });
            };
            let (port, linked) = parent.inputs.iter().find(|(_, l)| l.len() > 1)?;
            Edit::MoveChild {
                parent: parent.id.clone(),
                port: *port,
                from: f % linked.len(),
                to: t % linked.len(),
            }
        }
        Op::Field(a, f, v) => {
            let (name, value) = match f {
                0 => ("times", Some(Value::Int(*v))),
                1 => ("seconds", Some(Value::Float(*v as f64 / 4.0))),
                _ => ("script", (*v > 0).then(|| Value::Text("RRS".into()))),
            };
            Edit::SetField {
                id: nth(tree, *a)?,
                name: name.into(),
                value,
            }
        }
        Op::Title(a, t) => Edit::SetTitle {
            id: nth(tree, *a)?,
            title: t.clone(),
        },
        Op::Position(a, x, y) => Edit::SetPosition {
            id: nth(tree, *a)?,
            position: [*x, *y],
        },
        Op::Batch(ops) => Edit::Batch(ops.iter().filter_map(|o| to_edit(tree, o)).collect()),
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any sequence of edits: an applied edit keeps the invariants and its inverse restores the
    /// tree exactly; a refused edit leaves the tree unchanged. The result round-trips through
    /// the file format.
    #[test]
    fn random_edits_keep_invariants(
        start in proptest::collection::vec(0..KINDS.len(), 4..16),
        ops in proptest::collection::vec(op(), 1..120),
    ) {
        let catalog = Catalog::builtin();
        let mut tree = Tree::new();
        for k in start {
            let node = Node::new(tree.fresh_id(KINDS[k]), KINDS[k]);
            tree.apply(Edit::Insert { node: Box::new(node), index: usize::MAX, parent: None }, &catalog)
                .map_err(|e| TestCaseError::fail(e.message))?;
        }
        for op in &ops {
            let Some(edit) = to_edit(&tree, op) else { continue };
            let before = tree.clone();
            match tree.apply(edit.clone(), &catalog) {
                Ok(inverse) => {
                    prop_assert!(tree.check_invariants(&catalog).is_ok(), "{:?} after {:?}", tree.check_invariants(&catalog), edit);
                    let mut undone = tree.clone();
                    undone.apply(inverse, &catalog).map_err(|e| TestCaseError::fail(e.message))?;
                    prop_assert_eq!(&undone, &before, "undo of {:?}", edit);
                }
                Err(_) => prop_assert_eq!(&tree, &before, "refused {:?} changed the tree", edit),
            }
        }
        let text = tree_to_string(&tree);
        let back = parse_tree(&text, Path::new("random.json")).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&back, &tree);
        prop_assert_eq!(tree_to_string(&back), text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Random valid trees have no validation errors and round-trip through the file unchanged.
    #[test]
    fn random_valid_trees_round_trip(top in shape(), description in "\\PC{0,30}") {
        let mut nodes = vec![Node::new("root", "Root")];
        let child = build(&top, &mut nodes);
        nodes[0].inputs.insert(Port::Child, vec![child]);
        let mut tree = Tree::from_nodes(nodes).map_err(|e| TestCaseError::fail(e.to_string()))?;
        tree.description = description;
        let catalog = Catalog::builtin();
        let errors: Vec<_> = validate(&tree, &catalog, &NoAssets).into_iter().filter(|d| d.is_error()).collect();
        prop_assert!(errors.is_empty(), "{:#?}", errors);
        prop_assert!(tree.check_invariants(&catalog).is_ok());
        let text = tree_to_string(&tree);
        let back = parse_tree(&text, Path::new("random.json")).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&back, &tree);
        prop_assert_eq!(tree_to_string(&back), text);
    }
}
