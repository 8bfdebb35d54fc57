//! What the canvas and its node drawing share: what a frame shows (the [`Look`]), what
//! its gestures ask for ([`CanvasOutput`]), a node's input pins, and the kinds that fit
//! where a new node goes. Neither the canvas nor the viewer owns these, so neither needs
//! the other to know them.

use std::collections::{HashMap, HashSet};

use eframe::egui;

use crate::model::{Catalog, Category, Edit, NodeId, ParentSlot, Port, Tree, link_rule};

/// The size of the smallest text in a node at 100 % (kind names, field names, slots).
pub const SMALL_TEXT: f32 = 12.0;
/// The input pins of a node: each port's slots in order, plus one empty slot on list ports
/// (of a `collapsed` node, whose children are hidden, a list port's empty slot alone, and
/// a single port's pin only while it is free).
pub fn pins(tree: &Tree, catalog: &Catalog, id: &NodeId, collapsed: bool) -> Vec<(Port, usize)> {
    port_counts(tree, catalog, id, collapsed)
        .flat_map(|(port, first, count)| (first..first + count).map(move |slot| (port, slot)))
        .collect()
}

/// Each input port of a node with the slot of its first pin and its number of pins (a
/// list port: its links and one empty slot; of a `collapsed` node, the empty slot alone),
/// in pin order; what [`pins`] lists, without building the list.
pub(super) fn port_counts<'t>(
    tree: &'t Tree,
    catalog: &Catalog,
    id: &NodeId,
    collapsed: bool,
) -> impl Iterator<Item = (Port, usize, usize)> + 't {
    let node = tree.node(id);
    let ports = node
        .and_then(|n| catalog.category_of(&n.kind))
        .map_or(&[][..], Category::inputs);
    ports.iter().filter_map(move |&port| {
        let n = node?;
        let linked = n.linked(port).len();
        Some(match (port.is_single(), collapsed) {
            // A collapsed node's taken single input (its hidden child's) shows no pin: a
            // wire dropped there would replace what is hidden.
            (true, true) if linked > 0 => (port, 0, 0),
            (true, _) => (port, 0, 1),
            (false, false) => (port, 0, linked + 1),
            (false, true) => (port, linked, 1),
        })
    })
}

/// The port and slot of input pin `index` (what `pins(..)[index]` is, without the list).
pub fn pin_at(
    tree: &Tree,
    catalog: &Catalog,
    id: &NodeId,
    collapsed: bool,
    index: usize,
) -> Option<(Port, usize)> {
    let mut left = index;
    for (port, first, count) in port_counts(tree, catalog, id, collapsed) {
        if left < count {
            return Some((port, first + left));
        }
        left -= count;
    }
    None
}

/// What the canvas shows: the tree and the marks on it.
pub struct Look<'a> {
    /// The tree shown.
    pub tree: &'a Tree,
    /// Kinds and categories.
    pub catalog: &'a Catalog,
    /// Nodes with validation errors (outlined red).
    pub errors: &'a HashSet<NodeId>,
    /// Nodes not reachable from Root (dimmed).
    pub unreachable: &'a HashSet<NodeId>,
    /// The simulation's node states (watched agent).
    pub live: &'a crate::debug::Live,
    /// The selected nodes (with a halo outside their outline).
    pub selected: &'a [NodeId],
    /// Nodes with a breakpoint (a red dot in the header), and what it breaks on.
    pub breakpoints: &'a HashMap<NodeId, crate::debug::BreakOn>,
    /// Seconds since the app started, for the pulse of running leaves.
    pub time: f64,
    /// The watched agent's running leaves (trace ids).
    pub running_leaves: &'a [String],
    /// A run is being debugged (breakpoints can be set).
    pub debugging: bool,
    /// The run, whose stand-ins (library kinds without a behaviour) can be forced.
    pub run: Option<&'a crate::debug::Debugger>,
    /// View > Coverage: each node's counts, painted as heat.
    pub coverage: Option<&'a super::coverage::Overlay>,
}

/// How a gesture changes the selection.
#[derive(Clone, Debug, PartialEq)]
pub enum Selecting {
    /// A click on a node: it alone, unless it is already selected (then the selection
    /// stays, so a right-click menu or a drag acts on all of it).
    Click(NodeId),
    /// Shift or Ctrl and a click: add the node, or take it out.
    Toggle(NodeId),
    /// Exactly these (a box, a click on empty canvas, a drag of an unselected node).
    Only(Vec<NodeId>),
    /// Add these (a box with Shift or Ctrl).
    Add(Vec<NodeId>),
}

/// What the gestures on the canvas asked for in one frame, applied by the app after drawing.
#[derive(Default)]
pub struct CanvasOutput {
    /// Edits (links made or removed).
    pub edits: Vec<Edit>,
    /// Why a gesture was refused.
    pub refused: Option<String>,
    /// Nodes to add from the canvas menus: kind, graph position, how to link it.
    pub adds: Vec<(String, [f32; 2], Attach)>,
    /// Field changes made in node bodies: the edit, its node and field (for coalescing).
    pub field_edits: Vec<(Edit, NodeId, String)>,
    /// A change of the selection.
    pub select: Option<Selecting>,
    /// A command chosen from a node's right-click menu, and the node.
    pub command: Option<(super::commands::Command, NodeId)>,
    /// Paste here (graph position), from the canvas's right-click menu.
    pub paste_at: Option<[f32; 2]>,
    /// A breakpoint's condition chosen from a node's right-click menu.
    pub break_on: Option<(NodeId, crate::debug::BreakOn)>,
    /// A node's new kind, chosen from its right-click menu's Change Kind….
    pub change_kind: Option<(NodeId, String)>,
    /// A stand-in's result forced (or let go, `None`) from a node's right-click menu.
    pub force: Option<(NodeId, Option<crate::runtime::Outcome>)>,
    /// Zoom to Fit collapsed nodes to show the tree whole: what they hide is hidden.
    pub collapsed: bool,
    /// Where each node's breakpoint dot was drawn (graph coordinates).
    pub dots: Vec<(NodeId, egui::Rect)>,
}

/// How a node added from a menu is linked.
#[derive(Clone, Debug, PartialEq)]
pub enum Attach {
    /// Not linked.
    Loose,
    /// As a child in this slot (a wire dragged from an input onto empty canvas).
    Into(ParentSlot),
    /// As the parent of this node (a wire dragged from its `parent` output).
    Above(NodeId),
}

/// The kinds a new node may have to be linked as `attach` says.
pub fn kinds_fitting(tree: &Tree, catalog: &Catalog, attach: &Attach) -> Vec<String> {
    catalog
        .kinds()
        .iter()
        .filter(|k| misfit(tree, catalog, attach, k).is_none())
        .map(|k| k.name.clone())
        .collect()
}

/// Why a new node of kind `kind` cannot be linked as `attach` says, in words (the link's
/// rule: "only Conditions link into a 'conditions' input, not a composite"); `None` when it
/// can.
pub fn misfit(
    tree: &Tree,
    catalog: &Catalog,
    attach: &Attach,
    kind: &crate::model::KindSpec,
) -> Option<String> {
    let category = |id: &NodeId| tree.node(id).and_then(|n| catalog.category_of(&n.kind));
    let gone = |id: &NodeId| Some(format!("node '{id}' is not in the tree"));
    match attach {
        Attach::Loose => None,
        Attach::Into(slot) => match category(&slot.parent) {
            Some(pc) => link_rule(pc, slot.port, kind.category)
                .err()
                .map(|(_, why)| why),
            None => gone(&slot.parent),
        },
        Attach::Above(child) => match category(child) {
            Some(cc) => {
                let fits = |&p: &Port| link_rule(kind.category, p, cc).is_ok();
                (!kind.category.inputs().iter().any(fits)).then(|| {
                    format!(
                        "a {} has no input a {} links into",
                        kind.category.label().to_lowercase(),
                        cc.label().to_lowercase()
                    )
                })
            }
            None => gone(child),
        },
    }
}
