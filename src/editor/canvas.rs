//! The one seam between the model and the node-graph widget: the snarl graph is rebuilt
//! from the tree, and everything done on the canvas comes back as model [`Edit`]s.

use std::collections::{HashMap, HashSet};

use eframe::egui::{self, Color32, RichText, Ui};
use egui_snarl::ui::{AnyPins, PinInfo, SnarlPin, SnarlViewer};
use egui_snarl::{InPin, NodeId as SnarlId, OutPin, Snarl};

use crate::model::{Catalog, Category, Edit, NodeId, ParentSlot, Port, Tree, link_rule};

/// The canvas's copy of the tree's graph.
pub struct Canvas {
    /// The widget's graph; each node carries the model id.
    pub snarl: Snarl<NodeId>,
    ids: HashMap<NodeId, SnarlId>,
    /// Each node body's size when last drawn: a body outside the view only reserves its
    /// space, so large trees cost little for what is not seen.
    pub body_sizes: HashMap<NodeId, egui::Vec2>,
}

/// The input pins of a node: each port's slots in order, plus one empty slot on list ports.
pub fn pins(tree: &Tree, catalog: &Catalog, id: &NodeId) -> Vec<(Port, usize)> {
    port_counts(tree, catalog, id)
        .flat_map(|(port, count)| (0..count).map(move |slot| (port, slot)))
        .collect()
}

/// Each input port of a node with its number of pins (a list port: its links and one
/// empty slot), in pin order; what [`pins`] lists, without building the list.
fn port_counts<'t>(
    tree: &'t Tree,
    catalog: &Catalog,
    id: &NodeId,
) -> impl Iterator<Item = (Port, usize)> + 't {
    let node = tree.node(id);
    let ports = node
        .and_then(|n| catalog.category_of(&n.kind))
        .map_or(&[][..], Category::inputs);
    ports.iter().filter_map(move |&port| {
        let n = node?;
        Some((
            port,
            if port.is_single() {
                1
            } else {
                n.linked(port).len() + 1
            },
        ))
    })
}

/// The port and slot of input pin `index` (what `pins(..)[index]` is, without the list).
pub fn pin_at(tree: &Tree, catalog: &Catalog, id: &NodeId, index: usize) -> Option<(Port, usize)> {
    let mut left = index;
    for (port, count) in port_counts(tree, catalog, id) {
        if left < count {
            return Some((port, left));
        }
        left -= count;
    }
    None
}

/// The header colour of a category, as in the XNode original: branches grey, leaves dark
/// green, conditions turquoise; Root, Interrupt and SubTree their own.
pub fn category_colour(category: Option<Category>) -> Color32 {
    match category {
        Some(Category::Root) => Color32::from_rgb(150, 60, 50),
        Some(Category::Composite | Category::Decorator) => Color32::from_rgb(88, 92, 100),
        Some(Category::SubTree) => Color32::from_rgb(70, 80, 150),
        Some(Category::Leaf) => Color32::from_rgb(40, 100, 55),
        Some(Category::Condition) => Color32::from_rgb(30, 130, 140),
        Some(Category::Interrupt) => Color32::from_rgb(160, 110, 30),
        None => Color32::from_rgb(120, 40, 40),
    }
}

impl Canvas {
    /// A canvas showing `tree`.
    pub fn new(tree: &Tree, catalog: &Catalog) -> Self {
        let mut c = Self {
            snarl: Snarl::new(),
            ids: HashMap::new(),
            body_sizes: HashMap::new(),
        };
        c.rebuild(tree, catalog);
        c
    }

    /// Rebuilds the graph from the tree (after any edit).
    pub fn rebuild(&mut self, tree: &Tree, catalog: &Catalog) {
        self.snarl = Snarl::new();
        self.ids.clear();
        for node in tree.nodes() {
            let pos = egui::pos2(node.position[0], node.position[1]);
            let sid = self.snarl.insert_node(pos, node.id.clone());
            self.ids.insert(node.id.clone(), sid);
        }
        for parent in tree.nodes() {
            let pins = pins(tree, catalog, &parent.id);
            for (port, slot, child) in parent.links() {
                let (Some(&p), Some(&c)) = (self.ids.get(&parent.id), self.ids.get(child)) else {
                    continue;
                };
                let Some(input) = pins.iter().position(|&(pp, s)| pp == port && s == slot) else {
                    continue;
                };
                self.snarl.connect(
                    egui_snarl::OutPinId { node: c, output: 0 },
                    egui_snarl::InPinId { node: p, input },
                );
            }
        }
    }

    /// Positions the user moved nodes to, where they differ from the tree's.
    pub fn moved(&self, tree: &Tree) -> Vec<Edit> {
        self.snarl
            .nodes_pos_ids()
            .filter_map(|(_, pos, id)| {
                let node = tree.node(id)?;
                let p = [pos.x, pos.y];
                (p != node.position).then(|| Edit::SetPosition {
                    id: id.clone(),
                    position: p,
                })
            })
            .collect()
    }
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
    let category = |id: &NodeId| tree.node(id).and_then(|n| catalog.category_of(&n.kind));
    catalog
        .kinds()
        .iter()
        .filter(|k| match attach {
            Attach::Loose => true,
            Attach::Into(slot) => category(&slot.parent)
                .is_some_and(|pc| link_rule(pc, slot.port, k.category).is_ok()),
            Attach::Above(child) => category(child).is_some_and(|cc| {
                k.category
                    .inputs()
                    .iter()
                    .any(|&p| link_rule(k.category, p, cc).is_ok())
            }),
        })
        .map(|k| k.name.clone())
        .collect()
}

/// Draws the nodes and turns canvas gestures into edits.
pub struct Viewer<'a> {
    /// The tree shown.
    pub tree: &'a Tree,
    /// Kinds and categories.
    pub catalog: &'a Catalog,
    /// Nodes with validation errors (outlined red).
    pub errors: &'a HashSet<NodeId>,
    /// Nodes not reachable from Root (dimmed).
    pub unreachable: &'a HashSet<NodeId>,
    /// Edits the gestures asked for, applied after drawing.
    pub edits: Vec<Edit>,
    /// Why a gesture was refused.
    pub refused: Option<String>,
    /// Nodes to add from the canvas menus: kind, graph position, how to link it.
    pub adds: Vec<(String, [f32; 2], Attach)>,
    /// Fit the view: the canvas rect on screen and the node positions.
    pub fit: Option<(egui::Rect, Vec<[f32; 2]>)>,
    /// Centre the view on a graph position, keeping the zoom: the canvas rect and the point.
    pub centre: Option<(egui::Rect, [f32; 2])>,
    /// Set the view to this transform.
    pub pinned: Option<egui::emath::TSTransform>,
    /// The simulation's node states (watched agent): running nodes and what changed in the
    /// last step are outlined.
    pub live: &'a super::simulate::Live,
    /// The selected nodes (outlined in the selection colour, however they were selected).
    pub selected: &'a [NodeId],
    /// The view transform (graph to screen) of this frame, reported back.
    pub transform: Option<egui::emath::TSTransform>,
    /// Field changes made in node bodies: the edit, its node and field (for coalescing).
    pub field_edits: Vec<(Edit, NodeId, String)>,
    /// Body sizes, kept by the [`Canvas`] from frame to frame.
    pub body_sizes: &'a mut HashMap<NodeId, egui::Vec2>,
}

/// Fields every leaf, condition or Interrupt has; the node body shows them only when set.
const COMMON_FIELDS: &[&str] = &[
    "max_duration",
    "in_context",
    "out_context",
    "overwrite_out",
    "invert",
    "force_reset",
];

/// The fields a node shows in its body: its kind's own fields, and the common ones that
/// are set. Optional fields that are not set stay in the inspector.
pub fn body_fields<'c>(
    catalog: &'c Catalog,
    node: &crate::model::Node,
) -> Vec<&'c crate::model::FieldSpec> {
    let Some(kind) = catalog.kind(&node.kind) else {
        return vec![];
    };
    kind.fields
        .iter()
        .filter(|f| {
            let set = node.fields.contains_key(&f.name);
            set || (!COMMON_FIELDS.contains(&f.name.as_str())
                && (f.default.is_some() || f.required))
        })
        .collect()
}

/// The outline of selected nodes.
pub const SELECTION_COLOUR: Color32 = Color32::from_rgb(90, 170, 255);

/// Node size assumed when fitting the view (a typical node with a few slots).
const NODE_SIZE: egui::Vec2 = egui::vec2(200.0, 150.0);

/// The transform that shows every node inside `view`, at most at 100%.
pub fn fit_transform(view: egui::Rect, positions: &[[f32; 2]]) -> Option<egui::emath::TSTransform> {
    let first = positions.first()?;
    let mut bounds = egui::Rect::from_min_size(egui::pos2(first[0], first[1]), NODE_SIZE);
    for p in positions {
        bounds = bounds.union(egui::Rect::from_min_size(egui::pos2(p[0], p[1]), NODE_SIZE));
    }
    let bounds = bounds.expand(40.0);
    let scale = (view.width() / bounds.width())
        .min(view.height() / bounds.height())
        .clamp(0.2, 1.0);
    let translation = view.center().to_vec2() - bounds.center().to_vec2() * scale;
    Some(egui::emath::TSTransform {
        scaling: scale,
        translation,
    })
}

/// The translation that puts graph point `at` (a node's corner; its typical centre is
/// shown) at the centre of `view` at zoom `scale`.
pub fn centre_translation(view: egui::Rect, at: [f32; 2], scale: f32) -> egui::Vec2 {
    let centre = egui::pos2(at[0], at[1]) + NODE_SIZE * 0.5;
    view.center().to_vec2() - centre.to_vec2() * scale
}

/// A node's typical centre in graph coordinates.
pub fn node_centre(at: [f32; 2]) -> egui::Pos2 {
    egui::pos2(at[0], at[1]) + NODE_SIZE * 0.5
}

impl Viewer<'_> {
    fn category(&self, id: &NodeId) -> Option<Category> {
        self.tree
            .node(id)
            .and_then(|n| self.catalog.category_of(&n.kind))
    }

    /// The edit that links `child` into slot (`port`, `slot`) of `parent`, replacing what
    /// occupies a single slot and moving `child` from where it was; or why not.
    pub fn link_edit(
        tree: &Tree,
        catalog: &Catalog,
        child: &NodeId,
        parent: &NodeId,
        port: Port,
        slot: usize,
    ) -> Result<Edit, String> {
        let mut scratch = tree.clone();
        let mut batch = Vec::new();
        if let Some(old) = tree.parent_of(child) {
            batch.push(Edit::Unlink {
                child: child.clone(),
            });
            if old.parent == *parent && old.port == port && old.slot == slot {
                return Err("it is already linked there".into());
            }
        }
        if port.is_single()
            && let Some(occupant) = tree
                .node(parent)
                .and_then(|p| p.linked(port).first())
                .filter(|o| *o != child)
        {
            batch.push(Edit::Unlink {
                child: occupant.clone(),
            });
        }
        for e in &batch {
            scratch.apply(e.clone(), catalog).map_err(|e| e.message)?;
        }
        let used = scratch
            .node(parent)
            .map(|p| p.linked(port).len())
            .unwrap_or(0);
        let to = ParentSlot {
            parent: parent.clone(),
            port,
            slot: slot.min(used),
        };
        scratch
            .check_link(child, &to, catalog)
            .map_err(|e| e.message)?;
        batch.push(Edit::Link {
            child: child.clone(),
            to,
        });
        Ok(if batch.len() == 1 {
            batch.remove(0)
        } else {
            Edit::Batch(batch)
        })
    }
}

impl Viewer<'_> {
    /// The kinds that fit, by category, each a button that asks for the node.
    fn kinds_menu_ui(&mut self, ui: &mut Ui, pos: egui::Pos2, attach: &Attach) {
        let fitting = kinds_fitting(self.tree, self.catalog, attach);
        for category in Category::ALL {
            let kinds: Vec<&String> = fitting
                .iter()
                .filter(|k| self.catalog.category_of(k) == Some(category))
                .collect();
            if kinds.is_empty() {
                continue;
            }
            ui.menu_button(
                RichText::new(category.label()).color(category_colour(Some(category))),
                |ui| {
                    for kind in kinds {
                        if ui.button(kind.as_str()).clicked() {
                            self.adds
                                .push((kind.clone(), [pos.x, pos.y], attach.clone()));
                            ui.close();
                        }
                    }
                },
            );
        }
    }
}

impl SnarlViewer<NodeId> for Viewer<'_> {
    fn title(&mut self, node: &NodeId) -> String {
        self.tree
            .node(node)
            .map(|n| n.label().to_owned())
            .unwrap_or_default()
    }

    fn header_frame(
        &mut self,
        default: egui::Frame,
        node: SnarlId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        snarl: &Snarl<NodeId>,
    ) -> egui::Frame {
        default.fill(category_colour(self.category(&snarl[node])))
    }

    fn node_frame(
        &mut self,
        default: egui::Frame,
        node: SnarlId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        snarl: &Snarl<NodeId>,
    ) -> egui::Frame {
        let id = &snarl[node];
        let mut frame = default;
        if self.errors.contains(id) {
            frame = frame.stroke(egui::Stroke::new(2.0, Color32::from_rgb(230, 60, 60)));
        }
        match self.live.get(id) {
            Some((crate::runtime::Status::Running, _)) => {
                frame = frame.stroke(egui::Stroke::new(3.0, Color32::from_rgb(240, 200, 60)));
            }
            Some((crate::runtime::Status::Success, true)) => {
                frame = frame.stroke(egui::Stroke::new(3.0, Color32::from_rgb(90, 210, 110)));
            }
            Some((crate::runtime::Status::Failure | crate::runtime::Status::Aborted, true)) => {
                frame = frame.stroke(egui::Stroke::new(3.0, Color32::from_rgb(240, 120, 80)));
            }
            _ => {}
        }
        if self.selected.contains(id) {
            frame = frame.stroke(egui::Stroke::new(3.0, SELECTION_COLOUR));
        }
        if self.unreachable.contains(id) {
            frame = frame.multiply_with_opacity(0.5);
        }
        frame
    }

    fn show_header(
        &mut self,
        node: SnarlId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<NodeId>,
    ) {
        let id = snarl[node].clone();
        let Some(n) = self.tree.node(&id) else { return };
        ui.vertical(|ui| {
            ui.set_min_width(140.0);
            let line =
                |text: RichText| egui::Label::new(text).wrap_mode(egui::TextWrapMode::Extend);
            ui.add(line(
                RichText::new(n.kind.as_str())
                    .small()
                    .color(Color32::from_gray(225)),
            ));
            if !n.title.is_empty() {
                ui.add(line(
                    RichText::new(n.title.as_str())
                        .strong()
                        .color(Color32::WHITE),
                ));
            }
        });
    }

    fn inputs(&mut self, node: &NodeId) -> usize {
        port_counts(self.tree, self.catalog, node)
            .map(|(_, n)| n)
            .sum()
    }

    fn outputs(&mut self, node: &NodeId) -> usize {
        usize::from(self.category(node).is_some_and(Category::has_parent_port))
    }

    fn show_input(
        &mut self,
        pin: &InPin,
        ui: &mut Ui,
        snarl: &mut Snarl<NodeId>,
    ) -> impl SnarlPin + 'static {
        let id = &snarl[pin.id.node];
        let (port, slot) =
            pin_at(self.tree, self.catalog, id, pin.id.input).unwrap_or((Port::Child, 0));
        let used = self
            .tree
            .node(id)
            .map(|n| n.linked(port).len())
            .unwrap_or(0);
        let text = match port {
            Port::Child => "child".to_owned(),
            _ if slot >= used => format!("+ {}", port.name()),
            Port::Children => format!("{slot}"),
            Port::Conditions => format!("if {slot}"),
            Port::Interrupts => format!("interrupt {slot}"),
        };
        ui.label(text);
        let colour = match port {
            Port::Conditions => Color32::from_rgb(40, 170, 180),
            Port::Interrupts => Color32::from_rgb(200, 140, 40),
            _ => Color32::from_gray(200),
        };
        PinInfo::circle().with_fill(colour)
    }

    fn show_output(
        &mut self,
        _pin: &OutPin,
        ui: &mut Ui,
        _snarl: &mut Snarl<NodeId>,
    ) -> impl SnarlPin + 'static {
        ui.add_space(6.0);
        ui.label("parent");
        PinInfo::circle().with_fill(Color32::from_gray(200))
    }

    fn connect(&mut self, from: &OutPin, to: &InPin, snarl: &mut Snarl<NodeId>) {
        let (child, parent) = (snarl[from.id.node].clone(), snarl[to.id.node].clone());
        let Some(&(port, slot)) = pins(self.tree, self.catalog, &parent).get(to.id.input) else {
            return;
        };
        match Self::link_edit(self.tree, self.catalog, &child, &parent, port, slot) {
            Ok(edit) => self.edits.push(edit),
            Err(why) => {
                self.refused = Some(format!("Cannot link {child} to {parent}.{port}: {why}"))
            }
        }
    }

    fn disconnect(&mut self, from: &OutPin, _to: &InPin, snarl: &mut Snarl<NodeId>) {
        self.edits.push(Edit::Unlink {
            child: snarl[from.id.node].clone(),
        });
    }

    fn current_transform(
        &mut self,
        to_global: &mut egui::emath::TSTransform,
        _snarl: &mut Snarl<NodeId>,
    ) {
        if let Some((view, positions)) = self.fit.take()
            && let Some(t) = fit_transform(view, &positions)
        {
            *to_global = t;
        }
        if let Some(t) = self.pinned.take() {
            *to_global = t;
        }
        if let Some((view, at)) = self.centre.take() {
            to_global.translation = centre_translation(view, at, to_global.scaling);
        }
        self.transform = Some(*to_global);
    }

    fn has_body(&mut self, node: &NodeId) -> bool {
        self.tree
            .node(node)
            .is_some_and(|n| !body_fields(self.catalog, n).is_empty())
    }

    fn show_body(
        &mut self,
        node: SnarlId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<NodeId>,
    ) {
        let Some(n) = self.tree.node(&snarl[node]) else {
            return;
        };
        // Outside the view, only the space the body took last time is reserved.
        if let Some(&size) = self.body_sizes.get(&n.id)
            && !ui.is_rect_visible(egui::Rect::from_min_size(ui.cursor().min, size))
        {
            ui.allocate_space(size);
            return;
        }
        let salt = format!("node-body-{}", n.id);
        let drawn = egui::Grid::new(&salt)
            .num_columns(2)
            .spacing([6.0, 2.0])
            .show(ui, |ui| {
                for spec in body_fields(self.catalog, n) {
                    // Shown as the field name; named "node: field" for assistive tools
                    // (and tests), so it is told apart from the inspector's widget.
                    let name = format!("{}: {}", n.id, spec.name);
                    let label = ui
                        .label(
                            RichText::new(&spec.name)
                                .small()
                                .color(Color32::from_gray(215)),
                        )
                        .on_hover_text(spec.help.as_str());
                    label.widget_info(|| {
                        egui::WidgetInfo::labeled(egui::WidgetType::Label, true, &name)
                    });
                    let current = n.fields.get(&spec.name).or(spec.default.as_ref());
                    if let Some(v) = super::inspector::value_ui(ui, spec, current, label.id, &salt)
                    {
                        self.field_edits.push((
                            Edit::SetField {
                                id: n.id.clone(),
                                name: spec.name.clone(),
                                value: Some(v),
                            },
                            n.id.clone(),
                            spec.name.clone(),
                        ));
                    }
                    ui.end_row();
                }
            });
        let id = n.id.clone();
        self.body_sizes.insert(id, drawn.response.rect.size());
    }

    fn has_footer(&mut self, node: &NodeId) -> bool {
        self.tree.node(node).is_some_and(|n| !n.comment.is_empty())
    }

    fn show_footer(
        &mut self,
        node: SnarlId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<NodeId>,
    ) {
        let Some(n) = self.tree.node(&snarl[node]) else {
            return;
        };
        ui.set_max_width(220.0);
        ui.add(
            egui::Label::new(
                RichText::new(n.comment.as_str())
                    .italics()
                    .color(Color32::from_rgb(235, 215, 140)),
            )
            .wrap(),
        );
    }

    fn has_graph_menu(&mut self, _pos: egui::Pos2, _snarl: &mut Snarl<NodeId>) -> bool {
        true
    }

    fn show_graph_menu(&mut self, pos: egui::Pos2, ui: &mut Ui, _snarl: &mut Snarl<NodeId>) {
        ui.label(RichText::new("Add a node").strong());
        self.kinds_menu_ui(ui, pos, &Attach::Loose);
    }

    fn has_dropped_wire_menu(&mut self, _src: AnyPins<'_>, _snarl: &mut Snarl<NodeId>) -> bool {
        true
    }

    fn show_dropped_wire_menu(
        &mut self,
        pos: egui::Pos2,
        ui: &mut Ui,
        src: AnyPins<'_>,
        snarl: &mut Snarl<NodeId>,
    ) {
        let attach = match src {
            AnyPins::Out(pins) => match pins.first() {
                Some(p) => Attach::Above(snarl[p.node].clone()),
                None => return,
            },
            AnyPins::In(ins) => {
                let Some(p) = ins.first() else { return };
                let parent = snarl[p.node].clone();
                let Some(&(port, slot)) = pins(self.tree, self.catalog, &parent).get(p.input)
                else {
                    return;
                };
                Attach::Into(ParentSlot { parent, port, slot })
            }
        };
        ui.label(RichText::new("Add a node that fits").strong());
        self.kinds_menu_ui(ui, pos, &attach);
    }

    fn drop_outputs(&mut self, pin: &OutPin, snarl: &mut Snarl<NodeId>) {
        self.edits.push(Edit::Unlink {
            child: snarl[pin.id.node].clone(),
        });
    }

    fn drop_inputs(&mut self, pin: &InPin, snarl: &mut Snarl<NodeId>) {
        for remote in &pin.remotes {
            self.edits.push(Edit::Unlink {
                child: snarl[remote.node].clone(),
            });
        }
    }
}
