//! The minimap: the whole tree small in the canvas's upper right corner, each node a box in its
//! category's colour (running nodes in the running colour, selected ones outlined), and
//! the part the view shows framed. A click or a drag on it brings that place to the
//! centre of the view.

use eframe::egui::{self, Color32, emath::TSTransform};

/// The largest the minimap gets, in points.
const SIZE: egui::Vec2 = egui::vec2(180.0, 110.0);

/// The smallest the minimap gets, in points.
const MIN_SIZE: egui::Vec2 = egui::vec2(90.0, 60.0);

/// How far down the canvas the minimap reaches at most, with its margins: what the
/// canvas fits its views below while it is shown.
pub const COVERS: f32 = SIZE.y + 20.0;

/// A node as the minimap draws it: its graph rect and colour, and whether it is outlined.
pub struct Dot {
    /// Where it is, in graph coordinates.
    pub rect: egui::Rect,
    /// Its fill.
    pub colour: Color32,
    /// Outlined (selected).
    pub marked: bool,
}

/// Draws the minimap of `dots` in the upper right corner of `area` (the canvas on screen:
/// a tree's Root sits on the right, half way down, so that corner is the emptiest),
/// with the part `camera` shows framed. Returns the graph point to put at the centre of
/// the view when it is clicked or dragged.
pub fn minimap_ui(
    ctx: &egui::Context,
    area: egui::Rect,
    dots: &[Dot],
    camera: TSTransform,
) -> Option<egui::Pos2> {
    let view = camera.inverse() * area;
    let bounds = dots
        .iter()
        .map(|d| d.rect)
        .fold(view, |a, b| a.union(b))
        .expand(40.0);
    let scale = (SIZE.x / bounds.width()).min(SIZE.y / bounds.height());
    // Never a sliver: a tree far taller than wide (or wider than tall) keeps a map of a
    // usable size, centred in it.
    let size = (bounds.size() * scale).max(MIN_SIZE);
    let bounds = egui::Rect::from_center_size(bounds.center(), size / scale);
    // Above the graph, in the order windows have: a window opened later is above it.
    egui::Area::new(egui::Id::new("minimap"))
        .order(egui::Order::Middle)
        .fixed_pos(area.right_top() + egui::vec2(-size.x - 10.0, 10.0))
        .show(ctx, |ui| map_ui(ui, size, bounds, scale, dots, view))
        .inner
}

/// The map itself, `size` points: `bounds` (graph) at `scale`, the `view` framed.
fn map_ui(
    ui: &mut egui::Ui,
    size: egui::Vec2,
    bounds: egui::Rect,
    scale: f32,
    dots: &[Dot],
    view: egui::Rect,
) -> Option<egui::Pos2> {
    let (rect, response) = ui.allocate_exact_size(size, egui::Sense::click_and_drag());
    response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Other, true, "Minimap"));
    let to_map = |p: egui::Pos2| rect.min + (p - bounds.min) * scale;
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 4.0, Color32::from_black_alpha(200));
    painter.rect_stroke(
        rect,
        4.0,
        egui::Stroke::new(1.0, Color32::from_gray(90)),
        egui::StrokeKind::Inside,
    );
    for d in dots {
        let r = egui::Rect::from_min_max(to_map(d.rect.min), to_map(d.rect.max));
        // Never thinner than a point, so each node shows.
        let r = egui::Rect::from_center_size(r.center(), r.size().max(egui::vec2(2.0, 2.0)));
        painter.rect_filled(r, 1.0, d.colour);
        if d.marked {
            painter.rect_stroke(
                r.expand(1.5),
                1.0,
                egui::Stroke::new(1.5, Color32::from_rgb(120, 180, 255)),
                egui::StrokeKind::Outside,
            );
        }
    }
    // The view's frame, never smaller than can be seen.
    let framed = egui::Rect::from_min_max(to_map(view.min), to_map(view.max));
    let framed =
        egui::Rect::from_center_size(framed.center(), framed.size().max(egui::vec2(6.0, 6.0)));
    painter.rect_stroke(
        framed.intersect(rect),
        2.0,
        egui::Stroke::new(1.5, Color32::WHITE),
        egui::StrokeKind::Inside,
    );
    let response = response.on_hover_text("The whole tree: click or drag to move the view");
    if (response.clicked() || response.dragged())
        && let Some(p) = response.interact_pointer_pos()
    {
        Some(bounds.min + (p - rect.min) / scale)
    } else {
        None
    }
}
