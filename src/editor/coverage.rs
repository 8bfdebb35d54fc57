//! View > Coverage: how often each node was entered, succeeded, failed and was aborted,
//! painted on the canvas as heat. From the run being debugged (its steps so far), or from
//! a coverage file (`arbor coverage --json`).

use std::path::{Path, PathBuf};

use eframe::egui::{self, Color32};

use crate::check::Coverage;
use crate::debug::Debugger;
use crate::model::{NodeId, Tree};
use crate::runtime::Counts;

/// Where the counts come from.
pub enum Source {
    /// The run being debugged.
    Run,
    /// A coverage file, read.
    File(PathBuf, Box<Coverage>),
}

/// The overlay: its source, and the counts of the tree shown.
pub struct Overlay {
    /// Where the counts come from.
    pub source: Source,
    /// Each node's counts (nodes not listed have none).
    pub counts: foldhash::HashMap<NodeId, Counts>,
    /// The most entries of any node.
    pub max: u64,
    /// One line for the canvas: what is shown and how much was covered.
    pub summary: String,
    /// What the counts were made for: the tree file, the document revision and the run's
    /// newest step; and when (seconds of the app's clock).
    made_for: Option<(Option<PathBuf>, u64, u64)>,
    made_at: f64,
}

/// While a run goes, its counts are made again at most this often (seconds).
const REFRESH: f64 = 0.25;

impl Overlay {
    /// The overlay of the run being debugged.
    pub fn of_run() -> Self {
        Self::new(Source::Run)
    }

    /// The overlay of the coverage file `path`.
    pub fn from_file(path: &Path) -> Result<Self, String> {
        let text = crate::io::read_text(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let coverage = Coverage::parse(&text, path)?;
        Ok(Self::new(Source::File(path.to_owned(), Box::new(coverage))))
    }

    fn new(source: Source) -> Self {
        Self {
            source,
            counts: Default::default(),
            max: 0,
            summary: String::new(),
            made_for: None,
            made_at: f64::NEG_INFINITY,
        }
    }

    /// Makes the counts for `tree` (from `file`, at document `revision`) anew when the tree
    /// or its file changed since they were made, or the run's newest step (while the run
    /// goes by itself, at most every [`REFRESH`] seconds of `now`).
    pub fn refresh(
        &mut self,
        tree: &Tree,
        file: Option<&Path>,
        revision: u64,
        run: Option<&Debugger>,
        now: f64,
    ) {
        let head = run.and_then(Debugger::session).map_or(0, |s| s.head());
        let key = (file.map(Path::to_owned), revision, head);
        let running = run.is_some_and(|r| r.running);
        let only_stepped = running
            && self
                .made_for
                .as_ref()
                .is_some_and(|(f, r, _)| f.as_deref() == file && *r == revision);
        if self.made_for.as_ref() == Some(&key) || (only_stepped && now - self.made_at < REFRESH) {
            return;
        }
        self.made_for = Some(key);
        self.made_at = now;
        let (counts, from) = match &self.source {
            Source::Run => match run.and_then(Debugger::coverage) {
                Some(c) => (c, format!("this run, steps 1 to {head}")),
                None => (
                    Default::default(),
                    "this run: none yet (a replay or a game has no counts here)".to_owned(),
                ),
            },
            Source::File(path, coverage) => {
                let base = path.parent().unwrap_or(Path::new(""));
                // A tree without a file, or a coverage of one tree: by node ids.
                let only = match coverage.trees.as_slice() {
                    [only] => Some(only),
                    _ => None,
                };
                let of_tree = file.and_then(|f| coverage.of_tree(f, base)).or(only);
                let counts = of_tree
                    .map(|t| {
                        t.nodes
                            .iter()
                            .filter(|n| !n.id.contains('/'))
                            .map(|n| (NodeId::new(&n.id), n.counts()))
                            .collect()
                    })
                    .unwrap_or_default();
                let name = path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                );
                let from = match of_tree {
                    Some(_) => format!("{name}, {} runs", coverage.runs),
                    None => format!("{name}: it has no counts for this tree"),
                };
                (counts, from)
            }
        };
        self.max = counts
            .values()
            .map(|c| c.folded().entered)
            .max()
            .unwrap_or(0);
        let nodes = tree.nodes().len();
        let entered = tree
            .nodes()
            .iter()
            .filter(|n| counts.get(&n.id).is_some_and(|c| c.folded().entered > 0))
            .count();
        self.summary = format!("Coverage of {from}: {entered} of {nodes} nodes entered");
        self.counts = counts;
    }

    /// The node's counts (none: zero), a guard's checks counted as coverage counts them.
    pub fn of(&self, node: &NodeId) -> Counts {
        self.counts
            .get(node)
            .map(Counts::folded)
            .unwrap_or_default()
    }
}

/// A node's heat: dark red when never entered; else from blue (entered rarely, against
/// `max`) through green to amber (the most), on a logarithmic scale. Dark enough that the
/// node's white text stays readable on it.
pub fn heat(counts: &Counts, max: u64) -> Color32 {
    if counts.entered == 0 {
        return Color32::from_rgb(125, 30, 30);
    }
    let t = if max <= 1 {
        1.0
    } else {
        ((counts.entered as f64).ln() / (max as f64).ln()).clamp(0.0, 1.0) as f32
    };
    const STOPS: [[f32; 3]; 3] = [
        [40.0, 72.0, 150.0],
        [28.0, 120.0, 100.0],
        [185.0, 118.0, 20.0],
    ];
    let (from, to, u) = if t < 0.5 {
        (STOPS[0], STOPS[1], t * 2.0)
    } else {
        (STOPS[1], STOPS[2], (t - 0.5) * 2.0)
    };
    let mix = |i: usize| (from[i] + (to[i] - from[i]) * u).round() as u8;
    Color32::from_rgb(mix(0), mix(1), mix(2))
}

/// The overlay's legend, a row above the canvas: what is shown, and the colours.
pub fn legend_ui(ui: &mut egui::Ui, overlay: &Overlay) {
    ui.horizontal(|ui| {
        ui.label(egui::RichText::new(&overlay.summary).strong());
        ui.add_space(12.0);
        let rare = Counts {
            entered: 1,
            ..Counts::default()
        };
        let most = Counts {
            entered: overlay.max.max(2),
            ..Counts::default()
        };
        for (counts, label) in [
            (Counts::default(), "never entered"),
            (rare, "entered rarely"),
            (most, "most often"),
        ] {
            let (rect, _) = ui.allocate_exact_size(egui::vec2(14.0, 14.0), egui::Sense::hover());
            ui.painter()
                .rect_filled(rect, 3.0, heat(&counts, overlay.max.max(2)));
            ui.label(label);
        }
    });
}

/// The counts as a node shows them.
pub fn counts_line(c: &Counts) -> String {
    if c.entered == 0 {
        return "never entered".into();
    }
    let mut line = format!("in {}  ok {}  fail {}", c.entered, c.succeeded, c.failed);
    if c.aborted > 0 {
        line.push_str(&format!("  abort {}", c.aborted));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entered(n: u64) -> Counts {
        Counts {
            entered: n,
            ..Counts::default()
        }
    }

    #[test]
    fn heat_tells_never_rarely_and_often_apart() {
        let never = heat(&entered(0), 1000);
        let rare = heat(&entered(1), 1000);
        let often = heat(&entered(1000), 1000);
        assert_ne!(never, rare);
        assert_ne!(rare, often);
        // Never entered is red; the most entered is brighter than the least.
        assert!(never.r() > 2 * never.g());
        let luma = |c: Color32| u32::from(c.r()) * 3 + u32::from(c.g()) * 6 + u32::from(c.b());
        assert!(luma(often) > luma(rare) + 300, "{often:?} against {rare:?}");
        // White text stays readable: no heat is brighter than a mid grey.
        for n in [0, 1, 10, 100, 1000] {
            assert!(luma(heat(&entered(n), 1000)) < 10 * 160, "{n}");
        }
    }
}
