//! The timeline's lane of breakpoint hits: under the bar, each column of points is lit by
//! the steps it covers where a breakpoint hits, brighter the larger their share, so one
//! hit in ten thousand steps and a hit at every step both read (a lone hit stands out;
//! hits everywhere make an even band that hides no other marker).

use eframe::egui::{self, Color32};

/// The colour of a column where every step hits a breakpoint, and of one where few do:
/// red both, the second darker but still plainly red on the lane's grey.
const ALL_HIT: Color32 = Color32::from_rgb(235, 75, 75);
const FEW_HIT: Color32 = Color32::from_rgb(160, 50, 50);

/// For each of `columns` columns over steps `0..=head`, how many of `hits` (steps, sorted,
/// each once) it holds and how many steps it covers.
pub fn hit_columns(hits: &[u64], head: u64, columns: usize) -> Vec<(u64, u64)> {
    let columns = columns.max(1);
    let head = head.max(1);
    let column_of = |step: u64| {
        let c = (u128::from(step) * columns as u128 / u128::from(head)) as usize;
        c.min(columns - 1)
    };
    // The first step of each column (the steps of column c are first[c]..first[c + 1]).
    let first = |c: usize| (c as u128 * u128::from(head)).div_ceil(columns as u128) as u64;
    let mut out: Vec<(u64, u64)> = (0..columns)
        .map(|c| {
            let end = if c + 1 == columns {
                head + 1
            } else {
                first(c + 1)
            };
            (0, end.saturating_sub(first(c)))
        })
        .collect();
    for &step in hits.iter().filter(|&&s| s <= head) {
        out[column_of(step)].0 += 1;
    }
    out
}

/// How bright a column is drawn, from 0 (no hit) through just above 0 (few of its steps
/// hit) to 1 (every one does).
pub fn brightness(hits: u64, steps: u64) -> f32 {
    if hits == 0 {
        return 0.0;
    }
    (hits as f32 / steps.max(hits) as f32).max(1.0 / 16.0)
}

/// Paints the lane `lane` for the steps `hits` (sorted, each once) of a timeline that ends
/// at `head`.
pub fn hit_lane(painter: &egui::Painter, lane: egui::Rect, head: u64, hits: &[u64]) {
    painter.rect_filled(lane, 2.0, Color32::from_gray(42));
    let columns = lane.width().floor().max(1.0) as usize;
    let lit = hit_columns(hits, head, columns);
    let level = |c: usize| {
        let (h, s) = lit[c];
        // In sixteen steps, so that neighbouring columns alike are painted as one.
        (brightness(h, s) * 16.0).ceil() as u8
    };
    let mut c = 0;
    while c < columns {
        let l = level(c);
        if l == 0 {
            c += 1;
            continue;
        }
        let start = c;
        while c < columns && level(c) == l {
            c += 1;
        }
        // A lone column is drawn bright and three points wide, so one hit is seen.
        let lone = (start == 0 || level(start - 1) == 0) && (c == columns || level(c) == 0);
        let lone = lone && c - start == 1;
        let grow = if lone { 1.0 } else { 0.0 };
        let x0 = lane.left() + start as f32 - grow;
        let x1 = lane.left() + c as f32 + grow;
        painter.rect_filled(
            egui::Rect::from_min_max(egui::pos2(x0, lane.top()), egui::pos2(x1, lane.bottom())),
            0.0,
            if lone {
                ALL_HIT
            } else {
                FEW_HIT.lerp_to_gamma(ALL_HIT, f32::from(l - 1) / 15.0)
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{brightness, hit_columns};

    #[test]
    fn each_column_counts_its_hits_and_its_steps() {
        // Ten thousand steps over a thousand columns: ten steps a column, one hit.
        let cols = hit_columns(&[5_000], 10_000, 1_000);
        assert_eq!(cols.iter().map(|c| c.1).sum::<u64>(), 10_001);
        assert_eq!(cols.iter().filter(|c| c.0 > 0).count(), 1);
        assert_eq!(cols[500], (1, 10));
        let b = brightness(1, 10);
        assert!(b > 0.0 && b < 0.2, "{b}");
        // A hit at every step: every column full.
        let every: Vec<u64> = (1..=10_000).collect();
        let cols = hit_columns(&every, 10_000, 1_000);
        assert!(
            cols[1..]
                .iter()
                .all(|&(h, s)| h == s && brightness(h, s) == 1.0)
        );
        // Fewer steps than columns: a hit lights its column fully.
        let cols = hit_columns(&[3], 20, 400);
        let lit: Vec<_> = cols.iter().filter(|c| c.0 > 0).collect();
        assert_eq!(lit.len(), 1);
        assert_eq!(brightness(lit[0].0, lit[0].1), 1.0);
        assert_eq!(brightness(0, 10), 0.0);
    }
}
