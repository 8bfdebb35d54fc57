//! The one seam between the model and the node-graph widget: the snarl graph is rebuilt
//! from the tree, and everything done on the canvas comes back as model [`Edit`]s.

use std::collections::{HashMap, HashSet};

use eframe::egui::{self, Key, Modifiers, PointerButton, Ui, emath::TSTransform};
use egui_snarl::{NodeId as SnarlId, Snarl};

use super::graph::{CanvasOutput, Look, SMALL_TEXT, Selecting, port_counts};
use super::viewer::{NODE_SIZE, SELECTION_COLOUR, Viewer};

use crate::model::{Catalog, Category, Edit, NodeId, Tree};

/// The canvas: its copy of the tree's graph, the camera, and the gesture under way.
pub struct Canvas {
    /// The widget's graph; each node carries the model id.
    pub snarl: Snarl<NodeId>,
    ids: foldhash::HashMap<NodeId, SnarlId>,
    /// Each node body's size when last drawn: a body outside the view only reserves its
    /// space, so large trees cost little for what is not seen.
    pub body_sizes: HashMap<NodeId, egui::Vec2>,
    /// Graph to screen; `None` until the first frame fits the tree.
    camera: Option<TSTransform>,
    /// What to do with the camera at the next frame.
    request: Option<ViewRequest>,
    /// Each node's frame as drawn in the last frame (graph coordinates), in drawing order.
    rects: Vec<(NodeId, egui::Rect)>,
    /// Where each node is in `rects`.
    drawn: foldhash::HashMap<NodeId, usize>,
    /// Each node's frame size when last drawn (graph units): nodes far outside the view
    /// are not drawn at all, and keep the size they had.
    sizes: foldhash::HashMap<NodeId, egui::Vec2>,
    /// While a node is being centred: its size at the last try, and the tries so far.
    centring: Option<(Option<egui::Vec2>, u8)>,
    /// The canvas area on screen in the last frame.
    area: Option<egui::Rect>,
    gesture: Gesture,
    /// Space was held to pan since it was pressed (so letting it go does not run the sim).
    space_panned: bool,
    /// The last fitting request, the bounds it fitted and how many times it was done again
    /// because the sizes changed (see `frame_camera`).
    settling: Option<(ViewRequest, egui::Rect, u8)>,
    /// The canvas area the view was last fitted to, while nothing has moved the camera
    /// since: a resize of the window (the first frames of a window shrunk to its monitor)
    /// fits again.
    fitted_to: Option<(egui::Rect, ViewRequest)>,
    /// Nodes whose subtrees are hidden.
    collapsed: HashSet<NodeId>,
    /// The minimap is shown (View > Minimap, M; off at first: it covers a corner).
    pub minimap: bool,
    /// The last frame drew nodes as their titles only (zoomed out far): their drawn
    /// sizes are not their whole sizes.
    titles_only: bool,
    /// For each collapsed node shown, how many nodes below it are hidden.
    hidden: HashMap<NodeId, usize>,
    /// Nodes the pointer moved since the graph was built: only they can differ from the
    /// tree's positions.
    touched: foldhash::HashSet<SnarlId>,
    /// How far down the canvas something covers it (the Find bar), set by the app each
    /// frame: a fit shows the tree below it.
    pub covered_top: f32,
    /// Frames drawn readable so far to measure a tree being opened (see `frame_camera`).
    measuring: u8,
    /// A node drawn in the last frame had another size than when drawn before (the
    /// widget lays a node out from its size in the frame before, so sizes settle over the
    /// first frames a node is shown).
    resized: bool,
}

/// A change of the camera asked for by a command.
#[derive(Clone, Debug, PartialEq)]
pub enum ViewRequest {
    /// Show every node, zoomed out as far as it takes (Zoom to Fit; below the readable
    /// zoom nodes show their header and title only).
    Fit,
    /// The first view of a tree: every node when they fit at [`OVERVIEW_ZOOM`] or more,
    /// else the readable zoom with Root in view.
    Open,
    /// Show these nodes.
    FitNodes(Vec<NodeId>),
    /// Centre this node, keeping the zoom.
    Centre(NodeId),
    /// Move the view as little as it takes to show this node whole, keeping the zoom.
    Reveal(NodeId),
    /// Zoom by this factor around the view's centre.
    Zoom(f32),
    /// Zoom to 100 % around the view's centre.
    Actual,
    /// Use exactly this transform (graph to screen).
    Pin(TSTransform),
}

/// A pointer gesture on the canvas, from press to release.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum Gesture {
    #[default]
    None,
    /// A selection box from this screen point; the modifiers held when it began.
    Box(egui::Pos2, Modifiers),
    /// Panning with a middle or right drag, or Space and a left drag.
    Pan,
}

/// The smallest zoom at which every text in a node is at least 11 px high: the smallest
/// text drawn in a node is [`SMALL_TEXT`] px at 100 %. Fitting never zooms out further;
/// below it nodes are drawn as their header and title only.
pub const READABLE_ZOOM: f32 = 11.0 / SMALL_TEXT;
/// How far the wheel and the keys may zoom.
const ZOOM_RANGE: (f32, f32) = (0.1, 3.0);

/// The smallest zoom Zoom to Fit shows a tree at before it collapses its widest nodes:
/// titles-only nodes keep their titles 14 points high down to it.
const LEGIBLE_FIT: f32 = 0.25;

/// The most nodes one fit collapses.
const MOST_COLLAPSED: usize = 64;

/// The most frames a tree being opened is drawn readable for, while its sizes settle.
const MEASURING_FRAMES: u8 = 6;

/// The smallest zoom a tree opens at whole: nodes show their titles only, at a legible
/// size, with room for a dozen letters of each.
const OVERVIEW_ZOOM: f32 = 0.5;

impl Canvas {
    /// A canvas showing `tree`.
    pub fn new(tree: &Tree, catalog: &Catalog) -> Self {
        let mut c = Self {
            snarl: Snarl::new(),
            ids: foldhash::HashMap::default(),
            body_sizes: HashMap::new(),
            camera: None,
            request: Some(ViewRequest::Open),
            rects: Vec::new(),
            drawn: foldhash::HashMap::default(),
            sizes: foldhash::HashMap::default(),
            centring: None,
            area: None,
            gesture: Gesture::None,
            space_panned: false,
            settling: None,
            minimap: false,
            titles_only: false,
            fitted_to: None,
            collapsed: HashSet::new(),
            hidden: HashMap::new(),
            touched: foldhash::HashSet::default(),
            covered_top: 0.0,
            measuring: 0,
            resized: false,
        };
        c.rebuild(tree, catalog);
        c
    }

    /// Rebuilds the graph from the tree (after any edit). Nodes below a collapsed node are
    /// left out.
    pub fn rebuild(&mut self, tree: &Tree, catalog: &Catalog) {
        self.snarl = Snarl::new();
        self.ids.clear();
        self.touched.clear();
        self.collapsed.retain(|id| tree.contains(id));
        let hidden = hidden_below(tree, &self.collapsed);
        self.hidden = self
            .collapsed
            .iter()
            .filter(|c| !hidden.contains(*c))
            .map(|c| (c.clone(), descendants(tree, c).len()))
            .collect();
        for node in tree.nodes() {
            if hidden.contains(&node.id) {
                continue;
            }
            let pos = egui::pos2(node.position[0], node.position[1]);
            let sid = self.snarl.insert_node(pos, node.id.clone());
            self.ids.insert(node.id.clone(), sid);
        }
        for parent in tree.nodes() {
            // Where each port's pins start among the node's input pins.
            let mut first = Vec::new();
            let mut at = 0;
            let collapsed = self.hidden.contains_key(&parent.id);
            for (port, from, count) in port_counts(tree, catalog, &parent.id, collapsed) {
                first.push((port, at, from, count));
                at += count;
            }
            for (port, slot, child) in parent.links() {
                let (Some(&p), Some(&c)) = (self.ids.get(&parent.id), self.ids.get(child)) else {
                    continue;
                };
                let Some(input) = first
                    .iter()
                    .find(|&&(pp, _, from, count)| {
                        pp == port && (from..from + count).contains(&slot)
                    })
                    .map(|&(_, at, from, _)| at + slot - from)
                else {
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
        let mut touched: Vec<SnarlId> = self.touched.iter().copied().collect();
        touched.sort_unstable();
        touched
            .into_iter()
            .filter_map(|s| {
                let info = self.snarl.get_node_info(s)?;
                let (pos, id) = (info.pos, &info.value);
                let node = tree.node(id)?;
                let p = [pos.x, pos.y];
                (p != node.position).then(|| Edit::SetPosition {
                    id: id.clone(),
                    position: p,
                })
            })
            .collect()
    }

    /// Asks for a change of the camera at the next frame.
    pub fn request(&mut self, request: ViewRequest) {
        if request == ViewRequest::Open {
            self.measuring = 0;
        }
        self.request = Some(request);
    }

    /// Whether the subtree below `id` is hidden.
    pub fn is_collapsed(&self, id: &NodeId) -> bool {
        self.collapsed.contains(id)
    }

    /// Hides or shows the subtree below `id`; the graph must be rebuilt after.
    pub fn set_collapsed(&mut self, id: &NodeId, collapsed: bool) {
        if collapsed {
            self.collapsed.insert(id.clone());
        } else {
            self.collapsed.remove(id);
        }
    }

    /// Whether a node is drawn (not hidden below a collapsed one).
    pub fn is_shown(&self, id: &NodeId) -> bool {
        self.ids.contains_key(id)
    }

    /// Whether a node drawn in the last frame changed size since it was drawn before.
    pub fn resized(&self) -> bool {
        self.resized
    }

    /// The camera (graph to screen) of the last frame.
    pub fn camera(&self) -> Option<TSTransform> {
        self.camera
    }

    /// The canvas area on screen in the last frame.
    pub fn area(&self) -> Option<egui::Rect> {
        self.area
    }

    /// Whether Space was held to pan since it was last pressed.
    pub fn space_panned(&self) -> bool {
        self.space_panned
    }

    /// Where a node's frame is on screen with the last frame's camera: as drawn, or, for
    /// a node not drawn (far outside the view), at its position with its last size.
    pub fn screen_rect_of(&self, tree: &Tree, id: &NodeId) -> Option<egui::Rect> {
        let camera = self.camera?;
        self.graph_rect(tree, id).map(|r| camera * r)
    }

    /// Where a node's frame was drawn in the last frame, in graph coordinates.
    fn drawn_rect(&self, id: &NodeId) -> Option<egui::Rect> {
        self.drawn.get(id).map(|&i| self.rects[i].1)
    }

    /// The graph point under a screen point, with the last frame's camera.
    pub fn to_graph(&self, screen: egui::Pos2) -> Option<egui::Pos2> {
        self.camera.map(|c| c.inverse() * screen)
    }

    /// A node's size when it was last drawn whole (graph units), if it ever was: zoomed
    /// out far, where nodes show their titles only, the size it has whole is kept (what
    /// Arrange and placement go by).
    pub fn drawn_size(&self, id: &NodeId) -> Option<[f32; 2]> {
        let drawn = if self.titles_only {
            None
        } else {
            self.drawn_rect(id)
        };
        drawn
            .map(|r| r.size())
            .or_else(|| self.sizes.get(id).copied())
            .map(|s| [s.x, s.y])
    }

    /// The graph rect of a node: as drawn last, or at its position with the size it had
    /// when last drawn (an estimate when it never was).
    fn graph_rect(&self, tree: &Tree, id: &NodeId) -> Option<egui::Rect> {
        tree.node(id).map(|node| self.node_rect(node))
    }

    /// [`Self::graph_rect`] of a node at hand.
    fn node_rect(&self, node: &crate::model::Node) -> egui::Rect {
        self.drawn_rect(&node.id).unwrap_or_else(|| {
            let at = egui::pos2(node.position[0], node.position[1]);
            let size = self.sizes.get(&node.id).copied().unwrap_or(NODE_SIZE);
            egui::Rect::from_min_size(at, size)
        })
    }

    /// The graph bounds a fitting request shows: every node shown (Fit, Open), or the
    /// nodes it names (FitNodes).
    fn fit_bounds(&self, tree: &Tree, request: &ViewRequest) -> Option<egui::Rect> {
        let rect = |id: &NodeId| {
            self.is_shown(id)
                .then(|| self.graph_rect(tree, id))
                .flatten()
        };
        match request {
            ViewRequest::Fit | ViewRequest::Open => tree
                .nodes()
                .iter()
                .filter_map(|n| rect(&n.id))
                .reduce(|a, b| a.union(b)),
            ViewRequest::FitNodes(ids) => ids.iter().filter_map(rect).reduce(|a, b| a.union(b)),
            _ => None,
        }
    }

    /// The part of the canvas `whole` that a fit shows: below what covers its top (the
    /// Find bar, the minimap).
    fn fit_area(&self, whole: egui::Rect) -> egui::Rect {
        let covered = if self.minimap {
            self.covered_top.max(super::minimap::COVERS)
        } else {
            self.covered_top
        };
        whole.with_min_y(
            (whole.min.y + covered)
                .min(whole.max.y - 100.0)
                .max(whole.min.y),
        )
    }

    /// Zoomed to fit (F), a tree stays legible: while the nodes shown fit `area` only below
    /// [`LEGIBLE_FIT`], the shown node with the most children (then the most nodes below
    /// it; never Root) is collapsed, its count on it, at most [`MOST_COLLAPSED`] of them.
    /// Whether any was (the graph must then be rebuilt).
    fn collapse_to_fit(&mut self, tree: &Tree, catalog: &Catalog, area: egui::Rect) -> bool {
        let shown: Vec<&crate::model::Node> = tree
            .nodes()
            .iter()
            .filter(|n| self.is_shown(&n.id))
            .collect();
        let mut hidden: HashSet<&NodeId> = HashSet::new();
        let below = subtree_sizes(tree);
        let mut any = false;
        for _ in 0..MOST_COLLAPSED {
            let bounds = shown
                .iter()
                .filter(|n| !hidden.contains(&n.id))
                .map(|n| self.node_rect(n))
                .reduce(|a, b| a.union(b));
            if bounds.is_none_or(|b| fit_scale(area, b) >= LEGIBLE_FIT) {
                break;
            }
            let best = shown
                .iter()
                .filter(|n| !hidden.contains(&n.id) && !self.collapsed.contains(&n.id))
                .filter(|n| catalog.category_of(&n.kind) != Some(Category::Root))
                .map(|n| (n.links().count(), below.get(&n.id).copied().unwrap_or(0), n))
                .filter(|&(children, ..)| children > 0)
                .max_by_key(|&(children, under, _)| (children, under));
            let Some((.., node)) = best else { break };
            self.collapsed.insert(node.id.clone());
            let under: Vec<NodeId> = descendants(tree, &node.id);
            hidden.extend(under.iter().filter_map(|id| tree.node(id)).map(|n| &n.id));
            any = true;
        }
        any
    }

    /// `camera` moved as little as it takes for the tree's Root to be in `area` (a tree
    /// too large to show whole keeps its Root in view).
    fn root_kept(&self, tree: &Tree, camera: TSTransform, area: egui::Rect) -> TSTransform {
        match tree.nodes().iter().find(|n| n.kind == "Root") {
            Some(root) => keep_inside(camera, self.node_rect(root), area),
            None => camera,
        }
    }

    /// The camera for this frame: the last one, changed by a pending request.
    fn frame_camera(&mut self, tree: &Tree, whole: egui::Rect) -> TSTransform {
        let current = self.camera;
        // What a fit shows lies below what covers the canvas's top; a change of it fits
        // again, as a resize does. Zooming keeps the canvas's own centre.
        let area = self.fit_area(whole);
        let around = |camera: TSTransform, scale: f32| {
            let centre = camera.inverse() * whole.center();
            TSTransform {
                scaling: scale,
                translation: whole.center().to_vec2() - centre.to_vec2() * scale,
            }
        };
        if self.request.is_none()
            && let Some((a, r)) = &self.fitted_to
            && (a.size() - area.size()).length() > 0.5
        {
            self.request = Some(r.clone());
        }
        // Fitting changes the zoom, and with it the drawn sizes (the level of detail, a
        // body laid out anew): fitted again while the sizes it fits change (a few frames).
        if self.request.is_none()
            && let Some((r, used, tries)) = self.settling.take()
            && self.fit_bounds(tree, &r) != Some(used)
            && tries < 6
        {
            self.request = Some(r.clone());
            self.settling = Some((r, used, tries + 1));
        }
        // A tree opened is measured first: drawn readable, Root in view (as a tree too
        // large to show whole opens), until its sizes settle (a few frames), so that
        // zoomed out its nodes keep the widths they have whole, and a tree read without
        // positions is arranged with them.
        if self.request == Some(ViewRequest::Open)
            && (self.measuring == 0 || self.resized)
            && self.measuring < MEASURING_FRAMES
        {
            self.measuring += 1;
            let bounds = self.fit_bounds(tree, &ViewRequest::Open);
            let readable =
                bounds.map(|b| self.root_kept(tree, fit_rect(area, b, READABLE_ZOOM), area));
            return readable.or(current).unwrap_or(TSTransform::IDENTITY);
        }
        let request = self.request.take();
        if let Some(r) = &request {
            self.fitted_to =
                matches!(r, ViewRequest::Fit | ViewRequest::Open).then(|| (area, r.clone()));
        }
        let camera = match request {
            None => current,
            Some(r @ (ViewRequest::Fit | ViewRequest::Open | ViewRequest::FitNodes(_))) => {
                let bounds = self.fit_bounds(tree, &r);
                let tries = self.settling.take().map_or(0, |(_, _, t)| t);
                if let Some(b) = bounds {
                    self.settling = Some((r.clone(), b, tries));
                }
                // Open: whole where titles are legible, else readable around Root.
                let fits_whole = bounds.is_some_and(|b| fit_scale(area, b) >= OVERVIEW_ZOOM);
                let smallest = match r {
                    ViewRequest::Fit => ZOOM_RANGE.0,
                    ViewRequest::Open if fits_whole => OVERVIEW_ZOOM,
                    _ => READABLE_ZOOM,
                };
                let fitted = bounds.map(|b| fit_rect(area, b, smallest));
                match r {
                    ViewRequest::Fit | ViewRequest::Open => {
                        fitted.map(|t| self.root_kept(tree, t, area))
                    }
                    _ => fitted,
                }
                .or(current)
            }
            Some(ViewRequest::Centre(id)) => {
                // Never drawn (just added, or far away), or still growing as its body is
                // laid out (the widget lays a node out with the size it had the frame
                // before, so a change shows a frame late): centred again for the first
                // frames, and while its size changes (a few frames at most).
                let size = self.sizes.get(&id).copied();
                let (last, tries) = self.centring.take().unwrap_or((None, 0));
                if self.is_shown(&id) && (tries < 3 || size.is_none() || size != last) && tries < 8
                {
                    self.request = Some(ViewRequest::Centre(id.clone()));
                    self.centring = Some((size, tries + 1));
                }
                let scale = current.map_or(1.0, |c| c.scaling);
                self.graph_rect(tree, &id)
                    .map(|r| TSTransform {
                        scaling: scale,
                        translation: area.center().to_vec2() - r.center().to_vec2() * scale,
                    })
                    .or(current)
            }
            Some(ViewRequest::Reveal(id)) => {
                // As for Centre: again while its size is not known or still changes.
                let size = self.sizes.get(&id).copied();
                let (last, tries) = self.centring.take().unwrap_or((None, 0));
                if self.is_shown(&id) && (tries < 3 || size != last) && tries < 8 {
                    self.request = Some(ViewRequest::Reveal(id.clone()));
                    self.centring = Some((size, tries + 1));
                }
                match (current, self.graph_rect(tree, &id)) {
                    (Some(c), Some(r)) => Some(keep_inside(c, r, area)),
                    _ => current,
                }
            }
            Some(ViewRequest::Zoom(by)) => {
                current.map(|c| around(c, (c.scaling * by).clamp(ZOOM_RANGE.0, ZOOM_RANGE.1)))
            }
            Some(ViewRequest::Actual) => current.map(|c| around(c, 1.0)),
            Some(ViewRequest::Pin(t)) => Some(t),
        };
        camera.unwrap_or(TSTransform {
            scaling: 1.0,
            translation: area.min.to_vec2() + egui::vec2(40.0, 40.0),
        })
    }

    /// Pans and zooms from this frame's pointer input (before the graph is drawn): a middle
    /// or right drag, or Space with a left drag, pans; the wheel, Ctrl+wheel and a pinch
    /// zoom around the pointer. Returns the camera and whether a left drag is a pan.
    fn pointer_camera(
        &mut self,
        ui: &Ui,
        area: egui::Rect,
        mut camera: TSTransform,
    ) -> TSTransform {
        let ctx = ui.ctx();
        let over = ctx
            .pointer_hover_pos()
            .filter(|p| area.contains(*p) && over_canvas(ctx, *p, ui.layer_id()));
        let typing = ctx.egui_wants_keyboard_input();
        let (origin, space, delta, any_down) = ctx.input(|i| {
            (
                i.pointer.press_origin().filter(|p| area.contains(*p)),
                i.key_down(Key::Space) && !typing,
                i.pointer.delta(),
                i.pointer.any_down(),
            )
        });
        let pressed_here = origin.is_some_and(|p| over_canvas(ctx, p, ui.layer_id()));
        if !space && ctx.input(|i| !i.key_down(Key::Space)) {
            // Space let go (or never held): the next press starts afresh.
            if ctx.input(|i| !i.key_released(Key::Space)) {
                self.space_panned = false;
            }
        }
        let pan_button = ctx.input(|i| {
            i.pointer.button_down(PointerButton::Middle)
                || i.pointer.button_down(PointerButton::Secondary)
                || (space && i.pointer.button_down(PointerButton::Primary))
        });
        if !any_down {
            if self.gesture == Gesture::Pan {
                self.gesture = Gesture::None;
            }
        } else if pan_button && pressed_here && matches!(self.gesture, Gesture::None | Gesture::Pan)
        {
            let moved = ctx.input(|i| {
                i.pointer
                    .press_origin()
                    .zip(i.pointer.latest_pos())
                    .is_some_and(|(a, b)| a.distance(b) > 2.0)
            });
            if moved || self.gesture == Gesture::Pan {
                self.gesture = Gesture::Pan;
                camera.translation += delta;
                if space {
                    self.space_panned = true;
                }
            }
        }
        if let Some(at) = over {
            let (scroll, zoom) = ctx.input(|i| (i.smooth_scroll_delta, i.zoom_delta()));
            let by = zoom * (scroll.y / 400.0).exp();
            if by != 1.0 {
                let scale = (camera.scaling * by).clamp(ZOOM_RANGE.0, ZOOM_RANGE.1);
                let graph = camera.inverse() * at;
                camera = TSTransform {
                    scaling: scale,
                    translation: at.to_vec2() - graph.to_vec2() * scale,
                };
            }
            camera.translation.x += scroll.x;
        }
        camera
    }

    /// Draws the graph and handles the gestures on it; what they ask for comes back in the
    /// result, applied by the app after drawing.
    pub fn show(&mut self, ui: &mut Ui, look: &Look<'_>) -> CanvasOutput {
        let area = ui.max_rect();
        self.area = Some(area);
        let collapsed = self.request == Some(ViewRequest::Fit)
            && self.collapse_to_fit(look.tree, look.catalog, self.fit_area(area));
        if collapsed {
            self.rebuild(look.tree, look.catalog);
        }
        let camera = self.frame_camera(look.tree, area);
        let moved = self.pointer_camera(ui, area, camera);
        if moved != camera {
            self.fitted_to = None;
        }
        let camera = moved;
        self.camera = Some(camera);
        let ctx = ui.ctx().clone();
        let modifiers = ctx.input(|i| i.modifiers);
        let space = ctx.input(|i| i.key_down(Key::Space)) && !ctx.egui_wants_keyboard_input();
        // Where the nodes drawn in the last frame were: only a node drawn can be dragged.
        let before: Vec<(SnarlId, egui::Pos2)> = self
            .rects
            .iter()
            .filter_map(|(id, _)| self.ids.get(id))
            .filter_map(|&s| Some((s, self.snarl.get_node_info(s)?.pos)))
            .collect();
        let mut viewer = Viewer {
            look,
            lod: camera.scaling < READABLE_ZOOM - 1e-4,
            camera,
            hidden: &self.hidden,
            out: CanvasOutput::default(),
            body_sizes: &mut self.body_sizes,
            whole: &self.sizes,
            frame_margin: 0.0,
            rects: Vec::new(),
            selected: look.selected.iter().collect(),
            lit_wires: Default::default(),
            underlay: None,
        };
        // The widget's own selection, box and shift/ctrl handling stay unused: it sees no
        // modifiers, and the camera is this canvas's.
        ctx.input_mut(|i| i.modifiers = Modifiers::NONE);
        // A press on a node's text grabs the node, not a text selection.
        ui.style_mut().interaction.selectable_labels = false;
        let widget = egui_snarl::ui::SnarlWidget::new()
            .id_salt("arbor-canvas")
            .style(snarl_style());
        let response = widget.show(&mut self.snarl, &mut viewer, ui);
        viewer.draw_lit_wires();
        ctx.input_mut(|i| i.modifiers = modifiers);
        let Viewer { mut out, rects, .. } = viewer;
        out.collapsed = collapsed;
        self.drawn = rects
            .iter()
            .enumerate()
            .map(|(i, (id, _))| (id.clone(), i))
            .collect();
        self.resized = false;
        self.titles_only = camera.scaling < READABLE_ZOOM - 1e-4;
        for (id, r) in rects.iter().filter(|_| !self.titles_only) {
            if self.sizes.insert(id.clone(), r.size()) != Some(r.size()) {
                self.resized = true;
            }
        }
        self.rects = rects;

        // A node dragged: with Space held the drag pans instead; a selected node takes the
        // other selected nodes along.
        let dragged: Vec<(SnarlId, egui::Vec2)> = before
            .iter()
            .filter_map(|&(s, b)| Some((s, self.snarl.get_node_info(s)?.pos - b)))
            .filter(|(_, d)| *d != egui::Vec2::ZERO)
            .collect();
        if let [(moved, delta)] = dragged[..] {
            let id = self.snarl.get_node(moved).cloned();
            if space || self.gesture == Gesture::Pan {
                if let Some(n) = self.snarl.get_node_info_mut(moved) {
                    n.pos -= delta;
                }
            } else if let Some(id) = id {
                self.touched.insert(moved);
                if look.selected.contains(&id) {
                    for other in look.selected.iter().filter(|o| **o != id) {
                        if let Some(&s) = self.ids.get(other)
                            && let Some(n) = self.snarl.get_node_info_mut(s)
                        {
                            n.pos += delta;
                            self.touched.insert(s);
                        }
                    }
                } else {
                    out.select = Some(Selecting::Only(vec![id]));
                }
            }
        }
        self.clicks_and_box(&ctx, &response, area, modifiers, space, &mut out);
        if self.minimap {
            self.minimap_ui(&ctx, area, camera, look);
        }
        out
    }

    /// The minimap in the canvas's corner: a click or drag on it centres the view there.
    fn minimap_ui(
        &mut self,
        ctx: &egui::Context,
        area: egui::Rect,
        camera: TSTransform,
        look: &Look<'_>,
    ) {
        let running = super::viewer::status_colour(crate::runtime::Status::Running);
        let dots: Vec<super::minimap::Dot> = look
            .tree
            .nodes()
            .iter()
            .filter(|n| self.is_shown(&n.id))
            .map(|n| super::minimap::Dot {
                rect: self.node_rect(n),
                colour: match look.live.get(&n.id) {
                    Some(l) if l.state.status == crate::runtime::Status::Running => running,
                    _ => super::viewer::category_colour(look.catalog.category_of(&n.kind)),
                },
                marked: look.selected.contains(&n.id),
            })
            .collect();
        if let Some(g) = super::minimap::minimap_ui(ctx, area, &dots, camera) {
            self.request = Some(ViewRequest::Pin(TSTransform {
                scaling: camera.scaling,
                translation: area.center().to_vec2() - g.to_vec2() * camera.scaling,
            }));
            self.fitted_to = None;
        }
    }

    /// A click on a node selects it (Shift or Ctrl adds or toggles); a click on empty
    /// canvas clears the selection; a left drag on empty canvas draws a selection box.
    fn clicks_and_box(
        &mut self,
        ctx: &egui::Context,
        background: &egui::Response,
        area: egui::Rect,
        modifiers: Modifiers,
        space: bool,
        out: &mut CanvasOutput,
    ) {
        let Some(camera) = self.camera else { return };
        let adding = modifiers.shift || modifiers.command;
        let node_at = |p: egui::Pos2| {
            self.rects
                .iter()
                .rev()
                .find(|(_, r)| (camera * *r).contains(p))
                .map(|(id, _)| id.clone())
        };
        let (primary_click, secondary_click, at) = ctx.input(|i| {
            (
                i.pointer.primary_clicked(),
                i.pointer.secondary_clicked(),
                i.pointer.interact_pos(),
            )
        });
        // A click on a breakpoint's dot clears it.
        if primary_click
            && let Some(at) = at
            && let Some((id, _)) = out.dots.iter().find(|(_, r)| (camera * *r).contains(at))
        {
            out.command = Some((super::commands::Command::ToggleBreakpoint, id.clone()));
            return;
        }
        if let Some(at) = at.filter(|p| area.contains(*p))
            && over_canvas(ctx, at, background.layer_id)
            && (primary_click || secondary_click)
            && out.select.is_none()
        {
            match node_at(at) {
                Some(id) if primary_click && adding => out.select = Some(Selecting::Toggle(id)),
                Some(id) => out.select = Some(Selecting::Click(id)),
                None if primary_click && !adding && background.clicked() => {
                    out.select = Some(Selecting::Only(Vec::new()));
                }
                None => {}
            }
        }
        // The selection box.
        if background.drag_started_by(PointerButton::Primary)
            && !space
            && self.gesture == Gesture::None
            && let Some(start) = ctx.input(|i| i.pointer.press_origin())
        {
            self.gesture = Gesture::Box(start, modifiers);
        }
        if let Gesture::Box(start, began) = self.gesture {
            let end = ctx.input(|i| i.pointer.latest_pos()).unwrap_or(start);
            let rect = egui::Rect::from_two_pos(start, end);
            if ctx.input(|i| i.pointer.primary_down()) {
                let painter = ctx.layer_painter(egui::LayerId::new(
                    egui::Order::Foreground,
                    egui::Id::new("selection-box"),
                ));
                let painter = painter.with_clip_rect(area);
                painter.rect(
                    rect,
                    2.0,
                    SELECTION_COLOUR.gamma_multiply(0.15),
                    egui::Stroke::new(1.5, SELECTION_COLOUR),
                    egui::StrokeKind::Inside,
                );
                ctx.request_repaint();
            } else {
                let inside: Vec<NodeId> = self
                    .rects
                    .iter()
                    .filter(|(_, r)| rect.intersects(camera * *r))
                    .map(|(id, _)| id.clone())
                    .collect();
                out.select = Some(if began.shift || began.command {
                    Selecting::Add(inside)
                } else {
                    Selecting::Only(inside)
                });
                self.gesture = Gesture::None;
            }
        }
    }
}

/// Whether the topmost layer at `p` is the canvas's (no menu, popup or window above it).
fn over_canvas(ctx: &egui::Context, p: egui::Pos2, canvas: egui::LayerId) -> bool {
    ctx.layer_id_at(p).is_none_or(|l| l.order == canvas.order)
}

/// The transform that shows `bounds` (graph) inside `view`, between `smallest` and 100 %:
/// what is too large to show whole at `smallest` is centred.
pub fn fit_rect(view: egui::Rect, bounds: egui::Rect, smallest: f32) -> TSTransform {
    let scale = fit_scale(view, bounds).clamp(smallest, 1.0);
    let bounds = bounds.expand(FIT_MARGIN);
    TSTransform {
        scaling: scale,
        translation: view.center().to_vec2() - bounds.center().to_vec2() * scale,
    }
}

/// The graph units around what a fit shows.
const FIT_MARGIN: f32 = 30.0;

/// The zoom at which `bounds` (graph), with a margin, just fills `view`.
fn fit_scale(view: egui::Rect, bounds: egui::Rect) -> f32 {
    let bounds = bounds.expand(FIT_MARGIN);
    (view.width() / bounds.width()).min(view.height() / bounds.height())
}

/// `camera` moved as little as needed for graph rect `keep` to be inside `view`.
fn keep_inside(mut camera: TSTransform, keep: egui::Rect, view: egui::Rect) -> TSTransform {
    let view = view.shrink(20.0);
    let on_screen = camera * keep;
    let shift = |lo: f32, hi: f32, min: f32, max: f32| {
        if hi - lo > max - min || lo < min {
            min - lo
        } else if hi > max {
            max - hi
        } else {
            0.0
        }
    };
    camera.translation.x += shift(on_screen.min.x, on_screen.max.x, view.min.x, view.max.x);
    camera.translation.y += shift(on_screen.min.y, on_screen.max.y, view.min.y, view.max.y);
    camera
}

/// The nodes below `id` (not `id` itself).
pub fn descendants(tree: &Tree, id: &NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut seen: HashSet<&NodeId> = HashSet::from([id]);
    let mut stack: Vec<&NodeId> = vec![id];
    while let Some(n) = stack.pop() {
        let Some(node) = tree.node(n) else { continue };
        for (_, _, child) in node.links() {
            if seen.insert(child) {
                out.push(child.clone());
                stack.push(child);
            }
        }
    }
    out
}

/// How many nodes lie below each node (each counted once, below a node it is reached
/// from first; a cycle ends where it closes), in time linear in the tree.
fn subtree_sizes(tree: &Tree) -> HashMap<&NodeId, usize> {
    let mut size: HashMap<&NodeId, usize> = HashMap::new();
    let mut seen: HashSet<&NodeId> = HashSet::new();
    for start in tree.nodes() {
        if !seen.insert(&start.id) {
            continue;
        }
        // Post-order without recursion: (node, children pushed yet).
        let mut stack = vec![(&start.id, false)];
        while let Some((id, expanded)) = stack.pop() {
            let Some(node) = tree.node(id) else { continue };
            if expanded {
                let under = node
                    .links()
                    .map(|(_, _, c)| size.get(c).map_or(0, |s| s + 1))
                    .sum();
                size.insert(id, under);
                continue;
            }
            stack.push((id, true));
            for (_, _, child) in node.links() {
                if seen.insert(child) {
                    stack.push((child, false));
                }
            }
        }
    }
    size
}

/// Every node hidden below a collapsed node.
fn hidden_below(tree: &Tree, collapsed: &HashSet<NodeId>) -> HashSet<NodeId> {
    collapsed
        .iter()
        .flat_map(|c| descendants(tree, c))
        .collect()
}

/// The widget's style: no collapsing button, no double-click centring, and a wide zoom
/// range (the camera is this canvas's own).
fn snarl_style() -> egui_snarl::ui::SnarlStyle {
    let mut style = egui_snarl::ui::SnarlStyle::new();
    style.collapsible = Some(false);
    style.centering = Some(false);
    style.min_scale = Some(ZOOM_RANGE.0);
    style.max_scale = Some(ZOOM_RANGE.1);
    style.header_drag_space = Some(egui::vec2(0.0, 0.0));
    style.wire_width = Some(2.5);
    style.wire_style = Some(egui_snarl::ui::WireStyle::Bezier3);
    style.wire_frame_size = Some(super::viewer::WIRE_FRAME);
    style.upscale_wire_frame = Some(false);
    style.downscale_wire_frame = Some(true);
    style
}
