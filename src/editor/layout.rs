//! Auto-layout in the XNode style: Root on the right, each node's inputs to its left,
//! children top to bottom in slot order (guards first), Interrupts below the main tree,
//! loose nodes in a row underneath.

use std::collections::HashSet;

use crate::model::{Catalog, Category, Edit, NodeId, Port, Tree};

/// Space between two columns: from the right edge of the widest node of a column to the
/// left edge of the next column to its right.
const COLUMN_GAP: f32 = 60.0;
/// Space between two nodes stacked in a column.
const GAP: f32 = 24.0;
/// The width assumed for a node that has not been drawn.
const NODE_WIDTH: f32 = 240.0;
/// The most leaves under one parent laid out in one column: more go into columns side by
/// side (Arrange of a Selector of thousands of children is a block, not a line).
const WRAP: usize = 24;

/// Node sizes on the canvas (graph units): as drawn when the canvas has drawn the node,
/// else estimated from what it shows.
pub struct Sizes<'a> {
    tree: &'a Tree,
    catalog: &'a Catalog,
    drawn: &'a dyn Fn(&NodeId) -> Option<[f32; 2]>,
}

impl<'a> Sizes<'a> {
    /// Sizes from `drawn`, estimated where it has none.
    pub fn new(
        tree: &'a Tree,
        catalog: &'a Catalog,
        drawn: &'a dyn Fn(&NodeId) -> Option<[f32; 2]>,
    ) -> Self {
        Self {
            tree,
            catalog,
            drawn,
        }
    }

    /// A node's width and height.
    fn of(&self, id: &NodeId) -> [f32; 2] {
        (self.drawn)(id).unwrap_or_else(|| [self.estimated_width(id), self.estimated_height(id)])
    }

    /// A node's width estimated from what it shows: its widest body field, a name beside
    /// a value (a key's `key NAME`, a text box 80 to 230 wide), and its title; never
    /// below [`NODE_WIDTH`]. An estimate too wide only spaces columns apart; one too narrow
    /// would let a node overlap the column on its right.
    fn estimated_width(&self, id: &NodeId) -> f32 {
        const CHAR: f32 = 7.5;
        let Some(node) = self.tree.node(id) else {
            return NODE_WIDTH;
        };
        let widest = super::viewer::body_fields(self.catalog, node)
            .iter()
            .map(|f| {
                let value = match node.fields.get(&f.name).or(f.default.as_ref()) {
                    Some(crate::model::Value::Key(k)) => CHAR * (4 + k.chars().count()) as f32,
                    Some(v) => {
                        (CHAR * v.to_string().chars().count() as f32 + 12.0).clamp(80.0, 230.0)
                    }
                    None => 80.0,
                };
                CHAR * f.name.chars().count() as f32 + value + 56.0
            })
            .fold(0.0_f32, f32::max);
        let title = CHAR * node.title.chars().count().max(node.kind.chars().count()) as f32 + 60.0;
        widest.max(title).max(NODE_WIDTH)
    }

    /// A node's height estimated from what it shows: the header, the taller of its pin
    /// column and its body fields, and its comment.
    fn estimated_height(&self, id: &NodeId) -> f32 {
        let Some(node) = self.tree.node(id) else {
            return 80.0;
        };
        let pins = super::graph::pins(self.tree, self.catalog, id, false).len() as f32;
        let fields = super::viewer::body_fields(self.catalog, node).len() as f32;
        let comment = if node.comment.is_empty() {
            0.0
        } else {
            8.0 + 20.0 * (node.comment.chars().count() as f32 / 24.0).ceil()
        };
        48.0 + (pins * 15.0).max(fields * 19.0).max(20.0) + comment + 12.0
    }
}

/// The edit that moves every node to its laid-out place (one undo step). Each column is
/// as wide as its widest node, so no two columns touch.
pub fn layout(sizes: &Sizes<'_>) -> Edit {
    let (tree, catalog) = (sizes.tree, sizes.catalog);
    let mut places = Places {
        sizes,
        at: Vec::new(),
        placed: HashSet::new(),
        row: 0.0,
    };
    for n in tree.nodes() {
        if catalog.category_of(&n.kind) == Some(Category::Root) {
            places.place(&n.id, 0);
        }
    }
    // Loose nodes (not below any Root), each with what hangs below it.
    let has_parent: HashSet<&NodeId> = tree
        .nodes()
        .iter()
        .flat_map(|n| n.links().map(|(_, _, c)| c))
        .collect();
    for n in tree.nodes() {
        if !places.placed.contains(&n.id) && !has_parent.contains(&n.id) {
            places.row += GAP * 2.0;
            places.place(&n.id, 0);
        }
    }
    for n in tree.nodes() {
        if !places.placed.contains(&n.id) {
            // Left in a cycle: a row of their own.
            let y = places.row;
            places.row += sizes.of(&n.id)[1] + GAP;
            places.at.push((n.id.clone(), 0, y));
        }
    }
    // Columns from Root (depth 0) leftwards, each as wide as its widest node.
    let depth_max = places.at.iter().map(|(_, d, _)| *d).max().unwrap_or(0);
    let mut widths = vec![0.0_f32; depth_max + 1];
    for (id, d, _) in &places.at {
        widths[*d] = widths[*d].max(sizes.of(id)[0]);
    }
    // The left edge of each column, with the leftmost column at x = 0.
    let mut lefts = vec![0.0_f32; depth_max + 1];
    let mut x = 0.0;
    for d in (0..=depth_max).rev() {
        lefts[d] = x;
        x += (widths[d] + COLUMN_GAP).round();
    }
    Edit::Batch(
        places
            .at
            .into_iter()
            .map(|(id, d, y)| Edit::SetPosition {
                id,
                position: [lefts[d], y],
            })
            .collect(),
    )
}

/// The layout being built: each placed node with its depth (column) and y.
struct Places<'s, 'a> {
    sizes: &'s Sizes<'a>,
    at: Vec<(NodeId, usize, f32)>,
    placed: HashSet<NodeId>,
    /// The next free y in the leaf column.
    row: f32,
}

impl Places<'_, '_> {
    /// Places `id` and the nodes below it; returns its y. Leaves take the next free place
    /// in the column, as tall as they are drawn; a parent sits level with the middle of its
    /// inputs.
    fn place(&mut self, id: &NodeId, depth: usize) -> f32 {
        if !self.placed.insert(id.clone()) {
            return self.row;
        }
        let (tree, catalog) = (self.sizes.tree, self.sizes.catalog);
        let Some(node) = tree.node(id) else {
            return 0.0;
        };
        let ports: &[Port] = catalog
            .category_of(&node.kind)
            .map(Category::inputs)
            .unwrap_or(&[]);
        let mut order: Vec<Port> = ports.to_vec();
        order.sort_by_key(|p| match p {
            Port::Conditions | Port::Services => 0,
            Port::Child | Port::Children => 1,
            Port::Interrupts => 2,
        });
        let mut ys = Vec::new();
        for port in order {
            let children = node.linked(port);
            if self.wraps(children) && depth < 512 {
                ys.extend(self.place_in_columns(children, depth + 1));
                continue;
            }
            for child in children {
                if depth < 512 {
                    ys.push(self.place(child, depth + 1));
                }
            }
        }
        let y = match (ys.first(), ys.last()) {
            (Some(a), Some(b)) => ((a + b) / 2.0).round(),
            _ => {
                let y = self.row;
                self.row += self.sizes.of(id)[1] + GAP;
                y
            }
        };
        self.at.push((id.clone(), depth, y));
        y
    }
}

impl Places<'_, '_> {
    /// Whether `children` are laid out in columns: more than [`WRAP`] of them, none with
    /// anything below it or placed already.
    fn wraps(&self, children: &[NodeId]) -> bool {
        let tree = self.sizes.tree;
        children.len() > WRAP
            && children.iter().all(|c| {
                !self.placed.contains(c) && tree.node(c).is_some_and(|n| n.links().next().is_none())
            })
    }

    /// Places the leaves `children` in a block of columns from `depth` leftwards, in slot
    /// order down each column, about twice as many rows as columns (a block wider than
    /// tall on screen); returns the y of its first and last rows.
    fn place_in_columns(&mut self, children: &[NodeId], depth: usize) -> [f32; 2] {
        let rows = ((children.len() as f32 * 2.0).sqrt().ceil() as usize).max(WRAP);
        let mut heights = vec![0.0_f32; rows];
        for (i, c) in children.iter().enumerate() {
            heights[i % rows] = heights[i % rows].max(self.sizes.of(c)[1]);
        }
        let mut ys = Vec::with_capacity(rows);
        for h in &heights {
            ys.push(self.row);
            self.row += h + GAP;
        }
        for (i, c) in children.iter().enumerate() {
            self.placed.insert(c.clone());
            self.at.push((c.clone(), depth + i / rows, ys[i % rows]));
        }
        let last = ys[(children.len() - 1).min(rows - 1)];
        [ys[0], last]
    }
}

/// Where a new node's top-left corner goes for a wire dropped at `at` (graph): a child
/// (a wire from a parent's input) with its `parent` output, on its right, at the drop;
/// a parent (a wire from a child's `parent` output) with its inputs, on its left, there;
/// a node not linked (a palette drop, a menu) with its corner there. [`free_spot`] then
/// moves it only as far as it must not to overlap.
pub fn at_drop(attach: &super::Attach, at: [f32; 2]) -> [f32; 2] {
    // Where the first pin sits below a node's top, and a leaf's usual width.
    const PIN_DOWN: f32 = 40.0;
    const LEAF_WIDTH: f32 = 180.0;
    match attach {
        super::Attach::Loose => at,
        super::Attach::Into(_) => [at[0] - LEAF_WIDTH, at[1] - PIN_DOWN],
        super::Attach::Above(_) => [at[0], at[1] - PIN_DOWN],
    }
}

/// The free place nearest `want` (graph position of a node's top-left corner) where a new
/// node overlaps none: `want` itself if free, else the nearest free place on rings around it
/// (below and right first at equal distance). Each try tests every node; at most 200 tries.
pub fn free_spot(sizes: &Sizes<'_>, want: [f32; 2]) -> [f32; 2] {
    let rects: Vec<([f32; 2], [f32; 2])> = sizes
        .tree
        .nodes()
        .iter()
        .map(|n| (n.position, sizes.of(&n.id)))
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::{NODE_WIDTH, Sizes, WRAP, layout};
    use crate::model::{Catalog, Node, NodeId, Port, Tree, Value};

    /// Root over a Selector of `n` MockActions, arranged with sizes estimated.
    fn arranged(n: usize) -> (Tree, Catalog) {
        let mut root = Node::new("root", "Root");
        root.inputs.insert(Port::Child, vec![NodeId::new("top")]);
        let mut top = Node::new("top", "Selector");
        let kids: Vec<NodeId> = (0..n).map(|i| NodeId::new(format!("c{i}"))).collect();
        top.inputs.insert(Port::Children, kids.clone());
        let mut nodes = vec![root, top];
        nodes.extend(kids.iter().map(|k| Node::new(k.clone(), "MockAction")));
        let mut tree = Tree::from_nodes(nodes).unwrap();
        let catalog = Catalog::builtin();
        let edit = layout(&Sizes::new(&tree, &catalog, &|_| None));
        tree.apply(edit, &catalog).unwrap();
        (tree, catalog)
    }

    /// A Selector of many leaves is laid out as a block of columns, slot order down each,
    /// about twice as many rows as columns, no two leaves overlapping; a few stay in one
    /// column.
    #[test]
    fn many_leaves_under_one_parent_go_into_columns() {
        let (tree, catalog) = arranged(2_000);
        let sizes = Sizes::new(&tree, &catalog, &|_| None);
        let leaves: Vec<&Node> = tree.nodes()[2..].iter().collect();
        let xs: std::collections::BTreeSet<i64> =
            leaves.iter().map(|n| n.position[0] as i64).collect();
        let ys: std::collections::BTreeSet<i64> =
            leaves.iter().map(|n| n.position[1] as i64).collect();
        assert_eq!((xs.len(), ys.len()), (32, 64), "columns and rows");
        // Slot order down the first column, then on in the next (to the left).
        let (a, b, c) = (&leaves[0], &leaves[1], &leaves[64]);
        assert_eq!(a.position[0], b.position[0]);
        assert!(b.position[1] > a.position[1]);
        assert!(c.position[0] < a.position[0] && c.position[1] == a.position[1]);
        let rect = |n: &Node| {
            let [w, h] = sizes.of(&n.id);
            (
                n.position[0],
                n.position[1],
                n.position[0] + w,
                n.position[1] + h,
            )
        };
        let mut boxes: Vec<_> = leaves.iter().map(|n| rect(n)).collect();
        boxes.sort_by(|p, q| p.0.total_cmp(&q.0).then(p.1.total_cmp(&q.1)));
        for w in boxes.windows(2) {
            let (p, q) = (w[0], w[1]);
            assert!(p.2 <= q.0 || p.3 <= q.1, "{p:?} overlaps {q:?}");
        }
        // The parent sits level with the block's middle, Root beside it.
        let top = tree.node(&NodeId::new("top")).unwrap();
        assert!(top.position[0] > a.position[0]);
        let (few, _) = arranged(WRAP);
        let xs: std::collections::BTreeSet<i64> = few.nodes()[2..]
            .iter()
            .map(|n| n.position[0] as i64)
            .collect();
        assert_eq!(xs.len(), 1, "{WRAP} leaves stay in one column");
    }

    /// A node not drawn yet is as wide as its widest field: a long key name widens it
    /// past the plain width (Nav2's `error_code_id="{follow_path_error_code}"`), so the
    /// column on its right is placed clear of it.
    #[test]
    fn a_node_not_drawn_is_estimated_as_wide_as_its_widest_field() {
        let mut wide = Node::new("wide", "MockAction");
        wide.fields.insert(
            "script".into(),
            Value::Key("follow_path_error_code_of_the_controller".into()),
        );
        let tree = Tree::from_nodes(vec![Node::new("plain", "Root"), wide]).unwrap();
        let catalog = Catalog::builtin();
        let sizes = Sizes::new(&tree, &catalog, &|_| None);
        assert_eq!(sizes.of(&NodeId::new("plain"))[0], NODE_WIDTH);
        // "script" and "key follow_path_error_code_of_the_controller", 7.5 a character.
        assert!(sizes.of(&NodeId::new("wide"))[0] >= 7.5 * (6.0 + 44.0));
    }
}
