//! Auto-layout in the XNode style: Root on the right, each node's inputs to its left,
//! children top to bottom in slot order (guards first), Interrupts below the main tree,
//! loose nodes in a row underneath.

use std::collections::HashSet;

use crate::model::{Catalog, Category, Edit, NodeId, Port, Tree};

const COLUMN: f32 = 300.0;
/// Space between two nodes stacked in a column.
const GAP: f32 = 24.0;

/// A node's height on the canvas, estimated from what it shows: the header, the taller of
/// its pin column and its body fields, and its comment.
fn height(tree: &Tree, catalog: &Catalog, id: &NodeId) -> f32 {
    let Some(node) = tree.node(id) else {
        return 80.0;
    };
    let pins = super::canvas::pins(tree, catalog, id).len() as f32;
    let fields = super::canvas::body_fields(catalog, node).len() as f32;
    let comment = if node.comment.is_empty() {
        0.0
    } else {
        8.0 + 20.0 * (node.comment.chars().count() as f32 / 24.0).ceil()
    };
    48.0 + (pins * 15.0).max(fields * 19.0).max(20.0) + comment + 12.0
}

/// The edit that moves every node to its laid-out place (one undo step).
pub fn layout(tree: &Tree, catalog: &Catalog) -> Edit {
    let mut places: Vec<(NodeId, [f32; 2])> = Vec::new();
    let mut placed = HashSet::new();
    let mut row = 0.0_f32; // the next free y in the leaf column
    let roots: Vec<&NodeId> = tree
        .nodes()
        .iter()
        .filter(|n| catalog.category_of(&n.kind) == Some(Category::Root))
        .map(|n| &n.id)
        .collect();
    let mut depth_max = 0usize;
    for root in &roots {
        place(
            tree,
            catalog,
            root,
            0,
            &mut row,
            &mut places,
            &mut placed,
            &mut depth_max,
        );
    }
    // Loose nodes (not below any Root), each with what hangs below it.
    let has_parent: HashSet<&NodeId> = tree
        .nodes()
        .iter()
        .flat_map(|n| n.links().map(|(_, _, c)| c))
        .collect();
    for n in tree.nodes() {
        if !placed.contains(&n.id) && !has_parent.contains(&n.id) {
            row += GAP * 2.0;
            place(
                tree,
                catalog,
                &n.id,
                0,
                &mut row,
                &mut places,
                &mut placed,
                &mut depth_max,
            );
        }
    }
    for n in tree.nodes() {
        if !placed.contains(&n.id) {
            // Left in a cycle: a row of their own.
            places.push((n.id.clone(), [0.0, row]));
            row += height(tree, catalog, &n.id) + GAP;
        }
    }
    let width = depth_max as f32 * COLUMN;
    Edit::Batch(
        places
            .into_iter()
            .map(|(id, [x, y])| Edit::SetPosition {
                id,
                position: [width - x, y],
            })
            .collect(),
    )
}

/// Places `id` and the nodes below it; returns its y. Leaves take the next free place in
/// the column, as tall as they are drawn; a parent sits level with the middle of its
/// inputs.
#[allow(clippy::too_many_arguments)]
fn place(
    tree: &Tree,
    catalog: &Catalog,
    id: &NodeId,
    depth: usize,
    row: &mut f32,
    places: &mut Vec<(NodeId, [f32; 2])>,
    placed: &mut HashSet<NodeId>,
    depth_max: &mut usize,
) -> f32 {
    if !placed.insert(id.clone()) {
        return *row;
    }
    *depth_max = (*depth_max).max(depth);
    let Some(node) = tree.node(id) else {
        return 0.0;
    };
    let ports: &[Port] = catalog
        .category_of(&node.kind)
        .map(Category::inputs)
        .unwrap_or(&[]);
    let mut order: Vec<Port> = ports.to_vec();
    order.sort_by_key(|p| match p {
        Port::Conditions => 0,
        Port::Child | Port::Children => 1,
        Port::Interrupts => 2,
    });
    let mut ys = Vec::new();
    for port in order {
        for child in node.linked(port) {
            if depth < 512 {
                ys.push(place(
                    tree,
                    catalog,
                    child,
                    depth + 1,
                    row,
                    places,
                    placed,
                    depth_max,
                ));
            }
        }
    }
    let y = match (ys.first(), ys.last()) {
        (Some(a), Some(b)) => ((a + b) / 2.0).round(),
        _ => {
            let y = *row;
            *row += height(tree, catalog, id) + GAP;
            y
        }
    };
    places.push((id.clone(), [depth as f32 * COLUMN, y]));
    y
}
