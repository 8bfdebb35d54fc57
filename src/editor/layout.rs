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

/// A node's size on the canvas, estimated: as wide as a typical node, as tall as
/// [`height`] says.
fn size(tree: &Tree, catalog: &Catalog, id: &NodeId) -> [f32; 2] {
    [NODE_WIDTH, height(tree, catalog, id)]
}

/// The width assumed for a node that has not been drawn.
const NODE_WIDTH: f32 = 240.0;

/// Where a new node goes when it is made by dropping a wire: beside its parent, below its
/// elder siblings (slot order, top to bottom), or to the right of the child it is made
/// the parent of. `None` for a node not linked.
pub fn beside(tree: &Tree, catalog: &Catalog, attach: &super::Attach) -> Option<[f32; 2]> {
    match attach {
        super::Attach::Loose => None,
        super::Attach::Into(slot) => {
            let parent = tree.node(&slot.parent)?;
            let siblings = parent.linked(slot.port);
            let above = slot
                .slot
                .min(siblings.len())
                .checked_sub(1)
                .and_then(|i| siblings.get(i));
            let x = parent.position[0] - COLUMN;
            Some(match above.and_then(|s| tree.node(s)) {
                Some(s) => [x, s.position[1] + height(tree, catalog, &s.id) + GAP],
                None => [x, parent.position[1]],
            })
        }
        super::Attach::Above(child) => {
            let c = tree.node(child)?;
            Some([c.position[0] + COLUMN, c.position[1]])
        }
    }
}

/// The free place nearest `want` (graph position of a node's top-left corner) where a new
/// node overlaps none: `want` itself if free, else the nearest free place on rings around it
/// (below and right first at equal distance). Each try tests every node; at most 200 tries.
pub fn free_spot(tree: &Tree, catalog: &Catalog, want: [f32; 2]) -> [f32; 2] {
    let rects: Vec<([f32; 2], [f32; 2])> = tree
        .nodes()
        .iter()
        .map(|n| (n.position, size(tree, catalog, &n.id)))
        .collect();
    let new = [NODE_WIDTH, 110.0];
    let free = |at: [f32; 2]| {
        rects.iter().all(|(p, s)| {
            at[0] + new[0] + GAP <= p[0]
                || p[0] + s[0] + GAP <= at[0]
                || at[1] + new[1] + GAP <= p[1]
                || p[1] + s[1] + GAP <= at[1]
        })
    };
    if free(want) {
        return want;
    }
    let step = [NODE_WIDTH / 2.0, 60.0];
    let mut tries = 0;
    for ring in 1..=12i32 {
        // The places on this ring, nearest first; at equal distance below, then right.
        let mut places: Vec<(i32, i32)> = (-ring..=ring)
            .flat_map(|dy| (-ring..=ring).map(move |dx| (dx, dy)))
            .filter(|(dx, dy)| dx.abs().max(dy.abs()) == ring)
            .collect();
        places.sort_by(|a, b| {
            let d = |(dx, dy): (i32, i32)| (dx as f32 * step[0]).hypot(dy as f32 * step[1]);
            d(*a)
                .total_cmp(&d(*b))
                .then(b.1.cmp(&a.1))
                .then(b.0.cmp(&a.0))
        });
        for (dx, dy) in places {
            tries += 1;
            if tries > 200 {
                return want;
            }
            let at = [want[0] + dx as f32 * step[0], want[1] + dy as f32 * step[1]];
            if free(at) {
                return at;
            }
        }
    }
    want
}
