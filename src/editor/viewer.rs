//! How the canvas draws a node and turns gestures on it into requests: the one
//! [`SnarlViewer`] of the editor. Below the readable zoom a node is drawn as its header and
//! title only.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use eframe::egui::{self, Color32, RichText, Ui, emath::TSTransform};
use egui_snarl::ui::{AnyPins, PinInfo, SnarlPin, SnarlViewer};
use egui_snarl::{InPin, NodeId as SnarlId, OutPin, Snarl};

use super::commands::Command;
use super::graph::{Attach, CanvasOutput, Look, SMALL_TEXT, kinds_fitting, pin_at, pins};
use crate::model::{Catalog, Category, Edit, NodeId, ParentSlot, Port, Tree, Value};
use crate::runtime::Status;

/// Draws the nodes of one frame and collects what the gestures on them ask for.
pub struct Viewer<'a> {
    /// What is shown.
    pub look: &'a Look<'a>,
    /// Below the readable zoom: header and title only.
    pub lod: bool,
    /// The camera of this frame.
    pub camera: TSTransform,
    /// For each collapsed node, how many nodes below it are hidden.
    pub hidden: &'a HashMap<NodeId, usize>,
    /// What the gestures asked for.
    pub out: CanvasOutput,
    /// Body sizes, kept by the canvas from frame to frame.
    pub body_sizes: &'a mut HashMap<NodeId, egui::Vec2>,
    /// Each node's frame size when last drawn whole (graph units): drawn as its title
    /// only, a node keeps that width, so nodes laid out whole never touch zoomed out.
    pub whole: &'a foldhash::HashMap<NodeId, egui::Vec2>,
    /// The width a node's frame adds around its header (its margins), from the frame of
    /// the node being drawn.
    pub frame_margin: f32,
    /// Each node's frame as drawn (graph coordinates), in drawing order.
    pub rects: Vec<(NodeId, egui::Rect)>,
    /// The selected nodes, for a look-up per node drawn.
    pub selected: HashSet<&'a NodeId>,
    /// The wires of the active path: the ends of each, as their pins were drawn.
    pub lit_wires: LitWires,
    /// Where the active path's broad wires go: a place kept in the canvas layer behind
    /// the widget's own wires, filled once the pins have been drawn.
    pub underlay: Option<(egui::Painter, egui::layers::ShapeIdx)>,
}

/// The two ends of each wire on the active path, keyed by its child: the child's
/// `parent` pin and the parent's pin for that child (graph coordinates), and its colour.
pub type LitWires = Rc<RefCell<HashMap<NodeId, LitWire>>>;

/// One wire on the active path.
#[derive(Clone, Debug, Default)]
pub struct LitWire {
    /// The child's `parent` pin.
    pub from: Option<egui::Pos2>,
    /// The parent's pin for this child.
    pub to: Option<egui::Pos2>,
    /// Its colour.
    pub colour: Color32,
}

/// How far a wire leaves its pin straight before it bends (graph units); the widget's
/// wires and the active path's broad ones are both drawn with it.
pub const WIRE_FRAME: f32 = 32.0;

/// The width of a wire on the active path (the widget's own wires are 2.5).
pub const LIT_WIRE_WIDTH: f32 = 6.0;

/// The widget's cubic wire from `from` to `to`, as its control points: straight out of
/// each pin by the frame, the frame never more than a sixth of the wire's length.
pub fn wire_curve(from: egui::Pos2, to: egui::Pos2) -> [egui::Pos2; 4] {
    let frame = WIRE_FRAME.min((to - from).length() / 6.0);
    [
        from,
        from + egui::vec2(frame, 0.0),
        to - egui::vec2(frame, 0.0),
        to,
    ]
}

/// A pin that notes where it was drawn when its wire is on the active path.
pub struct Pin {
    info: PinInfo,
    /// The wire's child, the table, and whether this is the wire's `to` end.
    lit: Option<(NodeId, LitWires, bool)>,
}

impl SnarlPin for Pin {
    fn draw(
        self,
        snarl_style: &egui_snarl::ui::SnarlStyle,
        style: &egui::Style,
        rect: egui::Rect,
        painter: &egui::Painter,
    ) -> egui_snarl::ui::PinWireInfo {
        let wire = self.info.draw(snarl_style, style, rect, painter);
        if let Some((child, table, to)) = self.lit {
            note_lit_end(&table, child, wire.color, rect.center(), to);
        }
        wire
    }
}

/// Notes where an end of the active path's wire from `child` up to its parent is (`to`:
/// the parent's end), and its colour.
fn note_lit_end(table: &LitWires, child: NodeId, colour: Color32, at: egui::Pos2, to: bool) {
    let mut table = table.borrow_mut();
    let end = table.entry(child).or_default();
    end.colour = colour;
    if to {
        end.to = Some(at);
    } else {
        end.from = Some(at);
    }
}

/// An input pin as the viewer shows it: its port and slot, how many links the port
/// holds, its colour (a guard's port shows its last check: green true, red false) and
/// the child wired to it.
struct InputPin {
    port: Port,
    slot: usize,
    used: usize,
    colour: Color32,
    child: Option<NodeId>,
    /// A guard with `aborts_lower`: it watches while a later child of the Selector runs.
    observer: bool,
}

impl InputPin {
    /// The pin's label: its slot, or the port's name on a single or empty slot.
    fn label(&self) -> String {
        match self.port {
            Port::Child => "child".to_owned(),
            _ if self.slot >= self.used => format!("+ {}", self.port.name()),
            Port::Children => format!("{}", self.slot),
            Port::Conditions if self.observer => format!("if {} (aborts lower)", self.slot),
            Port::Conditions => format!("if {}", self.slot),
            Port::Interrupts => format!("interrupt {}", self.slot),
            Port::Services => format!("service {}", self.slot),
        }
    }
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

/// Fields every leaf, condition or Interrupt has; the node body shows them only when set.
const COMMON_FIELDS: &[&str] = &[
    "max_duration",
    "in_context",
    "out_context",
    "overwrite_out",
    "invert",
    "aborts_lower",
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

/// A word for what a stand-in is forced to report.
pub fn outcome_word(o: crate::runtime::Outcome) -> &'static str {
    match o {
        crate::runtime::Outcome::Success => "success",
        crate::runtime::Outcome::Failure | crate::runtime::Outcome::FailureBecause(_) => "failure",
        crate::runtime::Outcome::Running => "running",
    }
}

/// The outline of selected nodes.
pub const SELECTION_COLOUR: Color32 = Color32::from_rgb(90, 170, 255);

/// The narrowest a node's header is (graph units): a node drawn as its title only, whose
/// whole width is not known yet, is this wide, no wider than it is whole.
const HEADER_MIN_WIDTH: f32 = 140.0;

/// Node size assumed before a node is drawn (a typical node with a few slots).
pub const NODE_SIZE: egui::Vec2 = egui::vec2(200.0, 150.0);

impl Viewer<'_> {
    fn category(&self, id: &NodeId) -> Option<Category> {
        self.look
            .tree
            .node(id)
            .and_then(|n| self.look.catalog.category_of(&n.kind))
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

    /// The kinds that fit `attach` ([`kind_picker_ui`]); the one chosen is added there.
    fn kinds_menu_ui(&mut self, ui: &mut Ui, pos: egui::Pos2, attach: &Attach) {
        let (tree, catalog) = (self.look.tree, self.look.catalog);
        let fitting = kinds_fitting(tree, catalog, attach);
        let misfit = |k: &crate::model::KindSpec| super::graph::misfit(tree, catalog, attach, k);
        if let Some(kind) = kind_picker_ui(ui, catalog, &fitting, &misfit) {
            self.out.adds.push((kind, [pos.x, pos.y], attach.clone()));
        }
    }
}

/// A "Change Kind…" menu for node `id` (none for Root): every kind of `catalog` but its
/// own and Root's, in a [`kind_picker_ui`]; the kind chosen.
pub(super) fn change_kind_ui(
    ui: &mut Ui,
    tree: &Tree,
    catalog: &Catalog,
    id: &NodeId,
) -> Option<String> {
    let own = tree.node(id)?.kind.clone();
    if catalog.category_of(&own) == Some(Category::Root) {
        return None;
    }
    let offered: Vec<String> = catalog
        .kinds()
        .iter()
        .filter(|k| !k.is_placeholder() && k.category != Category::Root && k.name != own)
        .map(|k| k.name.clone())
        .collect();
    let misfit = |k: &crate::model::KindSpec| {
        Some(if k.name == own {
            "it is this node's kind".to_owned()
        } else if k.is_placeholder() {
            "no node library defines it".to_owned()
        } else {
            "a tree has one Root".to_owned()
        })
    };
    let mut chosen = None;
    ui.menu_button("Change Kind…", |ui| {
        ui.label(RichText::new("Make it a").strong());
        chosen = kind_picker_ui(ui, catalog, &offered, &misfit);
    })
    .response
    .on_hover_text(
        "Make this node another kind: it keeps its id, title, links and the fields the new kind has; what it loses is listed",
    );
    chosen
}

/// The kinds of `offered`, as one list with a search field (which has the keyboard while
/// the menu is open):
/// typing keeps the kinds whose name, category or group has every word, Enter chooses the
/// best of them (`find::best_kind`), a click chooses that one, Esc closes the menu. Each
/// category's kinds come under its name. When no kind offered has the words, what
/// `misfit` says of a kind of `catalog` that has them. The kind chosen, and the menu closed.
pub(super) fn kind_picker_ui(
    ui: &mut Ui,
    catalog: &Catalog,
    offered: &[String],
    misfit: &dyn Fn(&crate::model::KindSpec) -> Option<String>,
) -> Option<String> {
    let key = egui::Id::new("add-node-search");
    // A menu drawn again in the next pass keeps what was typed; one opened anew starts
    // empty, with the keyboard in its field.
    let pass = ui.ctx().cumulative_pass_nr();
    let (mut query, last) = ui
        .data(|d| d.get_temp::<(String, u64)>(key))
        .unwrap_or_default();
    let fresh = last + 1 < pass;
    if fresh {
        query.clear();
    }
    let field = ui.add(
        egui::TextEdit::singleline(&mut query)
            .hint_text("type to find a kind")
            .desired_width(220.0),
    );
    // The field keeps the keyboard while the menu is open: what is typed searches (the
    // click or hover that opened a submenu does not take it away).
    if !field.has_focus() {
        field.request_focus();
    }
    if ui.input(|i| i.key_pressed(egui::Key::Escape)) {
        ui.data_mut(|d| d.remove::<(String, u64)>(key));
        ui.close();
        return None;
    }
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    let matches: Vec<&String> = Category::ALL
        .iter()
        .flat_map(|c| {
            offered
                .iter()
                .filter(move |k| catalog.category_of(k) == Some(*c))
        })
        .filter(|k| {
            let group = catalog.kind(k).map_or("", |s| s.group.as_str());
            let category = catalog.category_of(k).map_or("", Category::label);
            let text = format!("{k} {category} {group}").to_lowercase();
            words.iter().all(|w| text.contains(w.as_str()))
        })
        .collect();
    ui.data_mut(|d| d.insert_temp(key, (query.clone(), pass)));
    let mut chosen = None;
    // (In a submenu the field keeps the keyboard through Enter.)
    let typed_in = field.lost_focus() || field.has_focus();
    if typed_in && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
        let best = super::find::best_kind(matches.iter().map(|k| k.as_str()), &query);
        chosen = matches.iter().copied().find(|k| Some(k.as_str()) == best);
    }
    if matches.is_empty() {
        // A kind the words name that cannot be chosen here: why.
        let named = catalog.kinds().iter().find(|k| {
            let category = k.category.label();
            let text = format!("{} {category} {}", k.name, k.group).to_lowercase();
            !words.is_empty() && words.iter().all(|w| text.contains(w.as_str()))
        });
        let why = named.and_then(|k| Some(format!("{} does not fit here: {}", k.name, misfit(k)?)));
        ui.label(RichText::new(why.as_deref().unwrap_or("No kind fits that")).weak());
    }
    egui::ScrollArea::vertical()
        .max_height(360.0)
        .show(ui, |ui| {
            let mut last = None;
            for kind in &matches {
                let category = catalog.category_of(kind);
                if category != last {
                    ui.label(
                        RichText::new(category.map_or("", Category::label))
                            .small()
                            .color(category_colour(category)),
                    );
                    last = category;
                }
                if ui.button(kind.as_str()).clicked() {
                    chosen = Some(*kind);
                }
            }
        });
    let chosen = chosen.cloned()?;
    ui.data_mut(|d| d.remove::<(String, u64)>(key));
    ui.close();
    Some(chosen)
}

/// How many steps a finished node's light takes to fade out.
pub const FADE_STEPS: u64 = 6;

/// The colour of a status light.
pub fn status_colour(status: Status) -> Color32 {
    match status {
        Status::Running => Color32::from_rgb(245, 200, 50),
        Status::Success => Color32::from_rgb(80, 210, 100),
        Status::Failure => Color32::from_rgb(240, 80, 60),
        Status::Aborted => Color32::from_rgb(190, 120, 230),
        Status::Skipped => Color32::from_rgb(110, 170, 220),
        Status::Idle => Color32::from_gray(120),
    }
}

/// A node's header colour: its category's (`base`), tinted by its status light when it
/// has one, so a glance at the title finds what runs; a node Root does not reach is
/// dimmed well towards the canvas, so it reads as set aside.
pub fn header_fill(base: Color32, light: Option<Color32>, unreachable: bool) -> Color32 {
    let lit = match light {
        Some(colour) => mix(base, colour, 0.45 * f32::from(colour.a()) / 255.0),
        None => base,
    };
    if unreachable {
        mix(lit, Color32::from_gray(28), 0.78)
    } else {
        lit
    }
}

/// `a` moved towards `b` by `t` (0 to 1).
fn mix(a: Color32, b: Color32, t: f32) -> Color32 {
    let m = |x: u8, y: u8| (f32::from(x) + (f32::from(y) - f32::from(x)) * t).round() as u8;
    Color32::from_rgb(m(a.r(), b.r()), m(a.g(), b.g()), m(a.b(), b.b()))
}

impl Viewer<'_> {
    /// The colour of the wire from `child` up to its parent: bright while the child runs
    /// (the active path), none otherwise.
    fn wire_light(&self, child: &NodeId) -> Option<Color32> {
        let light = self.look.live.get(child)?;
        (light.state.status == Status::Running).then(|| status_colour(Status::Running))
    }

    /// Input pin `pin` as the viewer shows it.
    fn input_pin(&self, pin: &InPin, snarl: &Snarl<NodeId>) -> InputPin {
        let id = &snarl[pin.id.node];
        let (port, slot) = pin_at(
            self.look.tree,
            self.look.catalog,
            id,
            self.hidden.contains_key(id),
            pin.id.input,
        )
        .unwrap_or((Port::Child, 0));
        let linked = self.look.tree.node(id).map_or(&[][..], |n| n.linked(port));
        let child = linked.get(slot).cloned();
        let checked = child
            .as_ref()
            .filter(|_| port == Port::Conditions)
            .and_then(|g| self.look.live.get(g))
            .map(|l| l.state.status)
            .filter(|s| matches!(s, Status::Success | Status::Failure));
        let colour = match (port, checked) {
            (_, Some(s)) => status_colour(s),
            (Port::Conditions, None) => Color32::from_rgb(40, 170, 180),
            (Port::Interrupts, _) => Color32::from_rgb(200, 140, 40),
            (Port::Services, _) => Color32::from_rgb(150, 120, 210),
            _ => Color32::from_gray(200),
        };
        let observer = port == Port::Conditions
            && child
                .as_ref()
                .and_then(|g| self.look.tree.node(g))
                .is_some_and(|g| self.look.catalog.flag(g, "aborts_lower"));
        InputPin {
            port,
            slot,
            used: linked.len(),
            colour,
            child,
            observer,
        }
    }

    /// A pin of the wire from `child` up to its parent (`to`: the parent's end): on the
    /// active path it takes the path's colour and notes where it is drawn, so the canvas
    /// can broaden the wire.
    fn lit_pin(&self, info: PinInfo, child: Option<NodeId>, to: bool) -> Pin {
        match child.and_then(|c| Some((self.wire_light(&c)?, c))) {
            Some((colour, child)) => Pin {
                info: info.with_wire_color(colour),
                lit: Some((child, self.lit_wires.clone(), to)),
            },
            None => Pin { info, lit: None },
        }
    }

    /// Draws the active path's wires broad, in the place kept behind the widget's own
    /// wires (which are drawn over them, thin and of the same colour).
    pub fn draw_lit_wires(&mut self) {
        let Some((painter, idx)) = self.underlay.take() else {
            return;
        };
        let shapes = self
            .lit_wires
            .borrow()
            .values()
            .filter_map(|w| Some((w.from?, w.to?, w.colour)))
            .map(|(from, to, colour)| {
                egui::Shape::CubicBezier(egui::epaint::CubicBezierShape::from_points_stroke(
                    wire_curve(from, to),
                    false,
                    Color32::TRANSPARENT,
                    egui::Stroke::new(LIT_WIRE_WIDTH, colour),
                ))
            })
            .collect();
        painter.set(idx, egui::Shape::Vec(shapes));
    }

    /// A node's status light: its colour (faded by how many steps ago it finished) and the
    /// outline's width (at least 3.5 at 100 %; a running leaf pulses).
    fn light(&self, id: &NodeId) -> Option<(Color32, f32)> {
        let light = self.look.live.get(id)?;
        let status = light.state.status;
        match status {
            Status::Idle => None,
            Status::Running => {
                let leaf = self.category(id) == Some(Category::Leaf);
                let pulse = if leaf {
                    1.5 * (0.5 + 0.5 * (self.look.time * 5.0).sin() as f32)
                } else {
                    0.0
                };
                Some((status_colour(status), 4.0 + pulse))
            }
            _ if light.age >= FADE_STEPS => None,
            _ => {
                let fade = 1.0 - light.age as f32 / FADE_STEPS as f32;
                let alpha = (255.0 * (0.35 + 0.65 * fade)) as u8;
                let c = status_colour(status);
                Some((
                    Color32::from_rgba_unmultiplied(c.r(), c.g(), c.b(), alpha),
                    3.5,
                ))
            }
        }
    }
}

/// A line of text in a node that never wraps (titles are never cut short).
fn line(text: RichText) -> egui::Label {
    egui::Label::new(text).wrap_mode(egui::TextWrapMode::Extend)
}

/// The colour of a breakpoint's dot.
pub const BREAKPOINT_RED: Color32 = Color32::from_rgb(240, 60, 60);

/// A breakpoint's dot, `size` points across: filled red when `set`, else a faint ring
/// (where a click sets one).
fn breakpoint_dot(ui: &mut Ui, size: f32, set: bool) -> egui::Response {
    let (rect, response) = ui.allocate_exact_size(egui::vec2(size, size), egui::Sense::hover());
    let name = if set {
        "Breakpoint"
    } else {
        "Set a breakpoint"
    };
    response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Other, true, name));
    let r = size * 0.36;
    if set {
        ui.painter().circle_filled(rect.center(), r, BREAKPOINT_RED);
    } else {
        ui.painter().circle_stroke(
            rect.center(),
            r,
            egui::Stroke::new((size / 10.0).max(1.0), Color32::from_rgb(200, 110, 110)),
        );
    }
    response
}

impl SnarlViewer<NodeId> for Viewer<'_> {
    fn title(&mut self, node: &NodeId) -> String {
        self.look
            .tree
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
        let id = &snarl[node];
        if let Some(heat) = self.look.coverage.and_then(|o| o.heat_of(id)) {
            return default.fill(heat);
        }
        let base = category_colour(self.category(id));
        default.fill(header_fill(
            base,
            self.light(id).map(|(colour, _)| colour),
            self.look.unreachable.contains(id),
        ))
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
        self.frame_margin = default.total_margin().sum().x;
        let mut frame = default;
        // The heat outlines the node; an error or a running light drawn after it wins.
        if let Some(heat) = self.look.coverage.and_then(|o| o.heat_of(id)) {
            frame = frame.stroke(egui::Stroke::new(3.0, heat));
        }
        if self.look.errors.contains(id) {
            frame = frame.stroke(egui::Stroke::new(2.0, Color32::from_rgb(230, 60, 60)));
        }
        if let Some((colour, width)) = self.light(id) {
            frame = frame.stroke(egui::Stroke::new(width, colour));
        }
        if self.look.unreachable.contains(id) {
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
        let Some(n) = self.look.tree.node(&id) else {
            return;
        };
        let hidden = self.hidden.get(&id).copied();
        let breakpoint = self.look.breakpoints.get(&id).copied();
        // A node Root does not reach is dimmed, its text too.
        let (title_colour, kind_colour) = if self.look.unreachable.contains(&id) {
            (Color32::from_gray(130), Color32::from_gray(115))
        } else {
            (Color32::WHITE, Color32::from_gray(225))
        };
        if self.lod {
            // Header and title only, at a size that stays legible on screen; a breakpoint
            // as a dot of that size before it.
            let size = (SMALL_TEXT + 2.0) / self.camera.scaling.max(0.05);
            let width = self
                .whole
                .get(&id)
                .map_or(HEADER_MIN_WIDTH, |w| w.x - self.frame_margin);
            ui.set_width(width.max(HEADER_MIN_WIDTH));
            ui.horizontal(|ui| {
                if let Some(on) = breakpoint {
                    // At least 12 points on screen, as far out as a node still shows.
                    let dot = (12.0 / self.camera.scaling.max(0.05)).min(240.0);
                    breakpoint_dot(ui, dot, true)
                        .on_hover_text(format!("Breakpoint: the run pauses on {}", on.name()));
                }
                // A collapsed node says how many it hides, as it does whole.
                let text = match hidden {
                    Some(count) => format!("{}  ▶ {count}", n.label()),
                    None => n.label().to_owned(),
                };
                ui.add(
                    egui::Label::new(
                        RichText::new(text)
                            .size(size.min(60.0))
                            .strong()
                            .color(title_colour),
                    )
                    .truncate(),
                );
            });
            return;
        }
        ui.vertical(|ui| {
            ui.set_min_width(HEADER_MIN_WIDTH);
            ui.horizontal(|ui| {
                ui.add(line(
                    RichText::new(n.kind.as_str())
                        .size(SMALL_TEXT)
                        .color(kind_colour),
                ));
                // After the kind, the breakpoint dot: red when set; on a selected node, a
                // faint ring that sets one. (Painted: no font need have the glyph.)
                let dot = match breakpoint {
                    Some(on) => Some((
                        true,
                        format!(
                            "Breakpoint: the run pauses on {} of this node. Click (or F9) to clear",
                            on.name()
                        ),
                    )),
                    None if self.look.debugging && self.selected.contains(&id) => Some((
                        false,
                        "Click (or F9) to pause the run when this node is entered".to_owned(),
                    )),
                    None => None,
                };
                if let Some((set, hover)) = dot {
                    let r = breakpoint_dot(ui, SMALL_TEXT, set).on_hover_text(hover);
                    // The canvas takes clicks on it (the node's own drag lies above).
                    self.out.dots.push((id.clone(), r.rect));
                }
            });
            if !n.title.is_empty() {
                ui.add(line(
                    RichText::new(n.title.as_str())
                        .size(SMALL_TEXT + 3.0)
                        .strong()
                        .color(title_colour),
                ));
            }
            // A SubTree names the inner leaves that run (trace ids `SUBTREE/INNER`).
            if self.category(&id) == Some(Category::SubTree) {
                let prefix = format!("{id}/");
                for leaf in self.look.running_leaves {
                    if let Some(inner) = leaf.strip_prefix(&prefix) {
                        ui.add(line(
                            RichText::new(format!("▶ {inner} runs"))
                                .size(SMALL_TEXT)
                                .color(status_colour(Status::Running)),
                        ));
                    }
                }
            }
            if let Some(overlay) = self.look.coverage
                && let Some(counts) = overlay.of(&id)
            {
                ui.add(line(
                    RichText::new(super::coverage::counts_line(&counts, overlay.inside(&id)))
                        .size(SMALL_TEXT)
                        .strong()
                        .color(Color32::WHITE),
                ))
                .on_hover_text(format!(
                    "Entered {} times: {} succeeded, {} failed, {} aborted",
                    counts.entered, counts.succeeded, counts.failed, counts.aborted
                ));
            }
            if let Some(count) = hidden {
                ui.add(line(
                    RichText::new(format!("▶ {count} hidden below"))
                        .size(SMALL_TEXT)
                        .italics()
                        .color(Color32::from_rgb(235, 215, 140)),
                ));
            }
        });
    }

    fn inputs(&mut self, node: &NodeId) -> usize {
        let collapsed = self.hidden.contains_key(node);
        super::graph::port_counts(self.look.tree, self.look.catalog, node, collapsed)
            .map(|(.., n)| n)
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
        let input = self.input_pin(pin, snarl);
        if !self.lod {
            let label = ui.label(RichText::new(input.label()).size(SMALL_TEXT));
            if input.observer {
                label.on_hover_text(
                    "This guard also watches while a later child of the Selector runs, and its branch takes over when all its guards hold (aborts_lower)",
                );
            }
        }
        // An observing guard's pin is a triangle: it shows at every zoom.
        let shape = if input.observer {
            PinInfo::triangle()
        } else {
            PinInfo::circle()
        };
        self.lit_pin(shape.with_fill(input.colour), input.child, true)
    }

    fn hidden_input(
        &mut self,
        pin: &InPin,
        at: egui::Pos2,
        snarl: &Snarl<NodeId>,
    ) -> Option<Color32> {
        let input = self.input_pin(pin, snarl);
        let wire = match input.child.and_then(|c| Some((self.wire_light(&c)?, c))) {
            Some((light, child)) => {
                note_lit_end(&self.lit_wires, child, light, at, true);
                light
            }
            None => input.colour,
        };
        Some(wire)
    }

    fn show_output(
        &mut self,
        pin: &OutPin,
        ui: &mut Ui,
        snarl: &mut Snarl<NodeId>,
    ) -> impl SnarlPin + 'static {
        if !self.lod {
            ui.add_space(6.0);
            ui.label(RichText::new("parent").size(SMALL_TEXT));
        }
        let info = PinInfo::circle().with_fill(Color32::from_gray(200));
        self.lit_pin(info, Some(snarl[pin.id.node].clone()), false)
    }

    fn draw_background(
        &mut self,
        background: Option<&egui_snarl::ui::BackgroundPattern>,
        viewport: &egui::Rect,
        snarl_style: &egui_snarl::ui::SnarlStyle,
        style: &egui::Style,
        painter: &egui::Painter,
        _snarl: &Snarl<NodeId>,
    ) {
        if let Some(background) = background {
            background.draw(viewport, snarl_style, style, painter);
        }
        self.underlay = Some((painter.clone(), painter.add(egui::Shape::Noop)));
    }

    fn connect(&mut self, from: &OutPin, to: &InPin, snarl: &mut Snarl<NodeId>) {
        let (child, parent) = (snarl[from.id.node].clone(), snarl[to.id.node].clone());
        let collapsed = self.hidden.contains_key(&parent);
        let Some(&(port, slot)) =
            pins(self.look.tree, self.look.catalog, &parent, collapsed).get(to.id.input)
        else {
            return;
        };
        match Self::link_edit(
            self.look.tree,
            self.look.catalog,
            &child,
            &parent,
            port,
            slot,
        ) {
            Ok(edit) => self.out.edits.push(edit),
            Err(why) => {
                self.out.refused = Some(format!("Cannot link {child} to {parent}.{port}: {why}"))
            }
        }
    }

    fn disconnect(&mut self, from: &OutPin, _to: &InPin, snarl: &mut Snarl<NodeId>) {
        self.out.edits.push(Edit::Unlink {
            child: snarl[from.id.node].clone(),
        });
    }

    fn current_transform(&mut self, to_global: &mut TSTransform, _snarl: &mut Snarl<NodeId>) {
        // The camera is the canvas's: the widget's own pan and zoom are overridden.
        *to_global = self.camera;
    }

    fn has_body(&mut self, node: &NodeId) -> bool {
        !self.lod
            && self
                .look
                .tree
                .node(node)
                .is_some_and(|n| !body_fields(self.look.catalog, n).is_empty())
    }

    fn show_body(
        &mut self,
        node: SnarlId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<NodeId>,
    ) {
        let Some(n) = self.look.tree.node(&snarl[node]) else {
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
                for spec in body_fields(self.look.catalog, n) {
                    // Shown as the field name; named "node: field" for assistive tools
                    // (and tests), so it is told apart from the inspector's widget.
                    let name = format!("{}: {}", n.id, spec.name);
                    let label = ui
                        .label(
                            RichText::new(&spec.name)
                                .size(SMALL_TEXT)
                                .color(Color32::from_gray(215)),
                        )
                        .on_hover_ui(|ui| {
                            ui.label(super::inspector::help_text(ui, &spec.help, false));
                        });
                    label.widget_info(|| {
                        egui::WidgetInfo::labeled(egui::WidgetType::Label, true, &name)
                    });
                    let current = n.fields.get(&spec.name).or(spec.default.as_ref());
                    if let Some(Value::Key(key)) = current {
                        // Read from a key: chosen in the inspector.
                        ui.label(
                            RichText::new(format!("key {key}"))
                                .size(SMALL_TEXT)
                                .monospace()
                                .color(Color32::from_rgb(150, 200, 255)),
                        )
                        .on_hover_text("Read from this key when the action starts");
                        ui.end_row();
                        continue;
                    }
                    if let Some(v) = super::inspector::value_ui(ui, spec, current, label.id, &salt)
                    {
                        self.out.field_edits.push((
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
        !self.lod
            && self
                .look
                .tree
                .node(node)
                .is_some_and(|n| !n.comment.is_empty())
    }

    fn show_footer(
        &mut self,
        node: SnarlId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<NodeId>,
    ) {
        let Some(n) = self.look.tree.node(&snarl[node]) else {
            return;
        };
        ui.set_max_width(220.0);
        ui.add(
            egui::Label::new(
                RichText::new(n.comment.as_str())
                    .size(SMALL_TEXT)
                    .italics()
                    .color(Color32::from_rgb(235, 215, 140)),
            )
            .wrap(),
        );
    }

    fn final_node_rect(
        &mut self,
        node: SnarlId,
        rect: egui::Rect,
        ui: &mut Ui,
        snarl: &mut Snarl<NodeId>,
    ) {
        let id = snarl[node].clone();
        // The selection is a halo outside the node, so it never hides a status outline.
        if self.selected.contains(&id) {
            let width = 2.5 / self.camera.scaling.max(0.2);
            ui.painter().rect_stroke(
                rect.expand(4.0 + width),
                egui::CornerRadius::same(8),
                egui::Stroke::new(width, SELECTION_COLOUR),
                egui::StrokeKind::Outside,
            );
        }
        self.rects.push((id, rect));
    }

    fn has_on_hover_popup(&mut self, node: &NodeId) -> bool {
        self.look.live.contains_key(node)
    }

    fn show_on_hover_popup(
        &mut self,
        node: SnarlId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<NodeId>,
    ) {
        let Some(light) = self.look.live.get(&snarl[node]) else {
            return;
        };
        let s = &light.state;
        let status = format!("{:?}", s.status).to_lowercase();
        ui.label(
            RichText::new(format!("{status}, since step {}", s.step))
                .color(status_colour(s.status))
                .strong(),
        );
        if let Some(why) = &s.reason {
            ui.label(format!("why: {}", crate::debug::failure_words(why)));
        }
        if s.status == Status::Running {
            let steps = s.step.max(s.since) - s.since + light.age;
            ui.label(format!(
                "running for {steps} step(s), since step {}",
                s.since
            ));
        }
        ui.label(format!(
            "entered {} · succeeded {} · failed {} · aborted {}",
            s.entries, s.successes, s.failures, s.aborts
        ));
    }

    fn has_node_menu(&mut self, _node: &NodeId) -> bool {
        true
    }

    fn show_node_menu(
        &mut self,
        node: SnarlId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<NodeId>,
    ) {
        let id = snarl[node].clone();
        ui.label(RichText::new(self.title(&id)).strong());
        // What cannot act on this node (the command table's rule) is not offered: Open
        // SubTree on a SubTree with an asset only, a breakpoint while a run is debugged.
        let on = super::commands::OnNodes {
            tree: self.look.tree,
            catalog: self.look.catalog,
            nodes: std::slice::from_ref(&id),
            debugging: self.look.debugging,
        };
        let offered = |c: &Command| c.enabled_on(&on) == Some(true);
        for command in Command::ALL
            .iter()
            .copied()
            .filter(|c| c.in_node_menu() && offered(c))
        {
            if command.starts_group() {
                ui.separator();
            }
            if super::commands::menu_item_ui(ui, command, true) {
                self.out.command = Some((command, id.clone()));
                ui.close();
            }
        }
        if let Some(kind) = change_kind_ui(ui, self.look.tree, self.look.catalog, &id) {
            self.out.change_kind = Some((id.clone(), kind));
        }
        let current = self.look.breakpoints.get(&id).copied();
        ui.menu_button("Break On", |ui| {
            for on in crate::debug::BreakOn::ALL {
                if ui.radio(current == Some(on), on.name()).clicked() {
                    self.out.break_on = Some((id.clone(), on));
                    ui.close();
                }
            }
        });
        let run = self.look.run;
        let stand_in = run.and_then(|r| r.stand_in(&id));
        // A node of a program shown live that can substitute results (BehaviorTree.CPP).
        let live = stand_in.is_none() && run.is_some_and(crate::debug::Debugger::game_forces);
        if stand_in.is_some() || live {
            use crate::runtime::Outcome;
            let forced = run.and_then(|r| r.forced(&id));
            let condition = stand_in == Some(crate::runtime::StandInKind::Condition);
            let hover = if live {
                "Make the program's node report this instead of running, until set back (its publisher's substitution)"
            } else {
                "This node runs as its library's stand-in: force what it reports for the rest of the run"
            };
            ui.menu_button("Force Result", |ui| {
                let mut choices = vec![None, Some(Outcome::Success), Some(Outcome::Failure)];
                if !condition && !live {
                    choices.push(Some(Outcome::Running));
                }
                for o in choices {
                    let label = match (o, live) {
                        (None, true) => "As it runs".to_owned(),
                        (None, false) => "As scripted".to_owned(),
                        (Some(o), _) => outcome_word(o).to_owned(),
                    };
                    if ui.radio(forced == o, label).clicked() {
                        self.out.force = Some((id.clone(), o));
                        ui.close();
                    }
                }
            })
            .response
            .on_hover_text(hover);
        }
    }

    fn has_graph_menu(&mut self, _pos: egui::Pos2, _snarl: &mut Snarl<NodeId>) -> bool {
        true
    }

    fn show_graph_menu(&mut self, pos: egui::Pos2, ui: &mut Ui, _snarl: &mut Snarl<NodeId>) {
        if super::commands::menu_item_ui(ui, Command::Paste, true) {
            self.out.paste_at = Some([pos.x, pos.y]);
            ui.close();
        }
        ui.separator();
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
                let collapsed = self.hidden.contains_key(&parent);
                let Some(&(port, slot)) =
                    pins(self.look.tree, self.look.catalog, &parent, collapsed).get(p.input)
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
        self.out.edits.push(Edit::Unlink {
            child: snarl[pin.id.node].clone(),
        });
    }

    fn drop_inputs(&mut self, pin: &InPin, snarl: &mut Snarl<NodeId>) {
        for remote in &pin.remotes {
            self.out.edits.push(Edit::Unlink {
                child: snarl[remote.node].clone(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn luma(c: Color32) -> f32 {
        0.2126 * f32::from(c.r()) + 0.7152 * f32::from(c.g()) + 0.0722 * f32::from(c.b())
    }

    #[test]
    fn an_unreachable_nodes_header_is_dimmed_to_well_under_its_brightness_lit_or_not() {
        let categories = Category::ALL.iter().map(|c| Some(*c)).chain([None]);
        for category in categories {
            let base = category_colour(category);
            for light in [None, Some(status_colour(Status::Running))] {
                let shown = header_fill(base, light, false);
                let dimmed = header_fill(base, light, true);
                assert!(
                    luma(dimmed) < 0.65 * luma(shown),
                    "{category:?} {light:?}: {dimmed:?} against {shown:?}"
                );
            }
        }
    }
}
