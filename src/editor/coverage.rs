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
    /// Each counted node's counts (a guard's checks folded in); a node not listed is not
    /// part of what was counted (a SubTree asset's Root, a node added since).
    counts: foldhash::HashMap<NodeId, Counts>,
    /// For each SubTree node, how many of its inner nodes were entered, of how many.
    inner: foldhash::HashMap<NodeId, (usize, usize)>,
    /// The distinct entry counts above 0, in order: a node's heat is its rank among them.
    levels: Vec<u64>,
    /// One line for the canvas: what is shown and how much was covered.
    pub summary: String,
    /// What does not fit: counts of another tree, or of nodes this tree no longer has.
    pub warning: Option<String>,
    /// What the counts were made for: the tree file, the document revision and the run's
    /// newest step; and when (seconds of the app's clock).
    made_for: Option<(Option<PathBuf>, u64, u64)>,
    made_at: f64,
    /// The tree file last shown and the file's tree found for it (an index of its trees).
    matched: Option<(Option<PathBuf>, Option<usize>)>,
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
            inner: Default::default(),
            levels: Vec::new(),
            summary: String::new(),
            warning: None,
            made_for: None,
            made_at: f64::NEG_INFINITY,
            matched: None,
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
        let running = run.is_some_and(|r| r.is_running());
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
        self.warning = None;
        // Inside a SubTree's asset shown in a run, the counts are the run's tree's.
        let inside = run.and_then(Debugger::inside);
        let counted_file = inside.map_or(file, |i| i.file.as_deref());
        let (traced, from): (Vec<(String, Counts)>, String) = match &self.source {
            Source::Run => match run.and_then(Debugger::coverage) {
                Some((c, agents)) => {
                    let steps = match head {
                        0 => "no step yet".to_owned(),
                        1 => "step 1".to_owned(),
                        k => format!("steps 1 to {k}"),
                    };
                    let whose = match agents {
                        1 => String::new(),
                        n => format!(", the {n} agents running this tree"),
                    };
                    (c, format!("this run, {steps}{whose}"))
                }
                None => (
                    Vec::new(),
                    "this run: none (a replay or a game shown live has no counts here)".into(),
                ),
            },
            Source::File(path, coverage) => {
                let of_tree = Self::of_file(&mut self.matched, coverage, path, counted_file);
                let name = path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                );
                match of_tree {
                    Some(t) => (
                        t.nodes.iter().map(|n| (n.id.clone(), n.counts())).collect(),
                        format!(
                            "{name}, {} run{}",
                            coverage.runs,
                            if coverage.runs == 1 { "" } else { "s" }
                        ),
                    ),
                    None => {
                        self.warning = Some(format!(
                            "{name} has no counts for this tree; it covers {}",
                            covered(&coverage.trees)
                        ));
                        (Vec::new(), name)
                    }
                }
            }
        };
        // The run's own counts go through its ids (renames, a SubTree shown); a file's by id,
        // unless a SubTree's asset of the run is shown.
        let mapper = match self.source {
            Source::Run => run,
            Source::File(..) => run.filter(|_| inside.is_some()),
        };
        self.map(tree, &traced, mapper, inside.is_some());
        let missing = traced
            .iter()
            .filter(|(id, _)| inside.is_none() && !id.contains('/'))
            .filter(|(id, _)| !tree.contains(&NodeId::new(id)))
            .count();
        if missing > 0 && self.warning.is_none() {
            self.warning = Some(format!(
                "{missing} counted node(s) are not in this tree: it changed since, or the counts are of another tree"
            ));
        }
        let counted = self.counts.len();
        let entered = self.counts.values().filter(|c| c.entered > 0).count();
        self.summary = format!("Coverage of {from}: {entered} of {counted} nodes entered");
    }

    /// The coverage file's counts of the tree file `file` (`None`: an untitled tree), if it
    /// has some; found once for each file shown, not at each change of the tree.
    fn of_file<'c>(
        matched: &mut Option<(Option<PathBuf>, Option<usize>)>,
        coverage: &'c Coverage,
        path: &Path,
        file: Option<&Path>,
    ) -> Option<&'c crate::check::TreeCoverage> {
        let i = match matched {
            Some((f, i)) if f.as_deref() == file => *i,
            _ => {
                let base = path.parent().unwrap_or(Path::new(""));
                let found = match file {
                    Some(f) => coverage.of_tree(f, base),
                    // An untitled tree: a coverage of one tree is taken as its.
                    None => match coverage.trees.as_slice() {
                        [only] => Some(only),
                        _ => None,
                    },
                };
                let i = found.and_then(|t| {
                    coverage
                        .trees
                        .iter()
                        .position(|other| std::ptr::eq(other, t))
                });
                *matched = Some((file.map(Path::to_owned), i));
                i
            }
        };
        coverage.trees.get(i?)
    }

    /// Puts `traced` (counts by trace id) on the nodes of `tree`: through `run`'s mapping
    /// when given, else by id; while a SubTree's asset is not what is shown (`inside`), a
    /// SubTree's inner nodes also sum up on the SubTree node.
    fn map(
        &mut self,
        tree: &Tree,
        traced: &[(String, Counts)],
        run: Option<&Debugger>,
        inside: bool,
    ) {
        self.counts.clear();
        self.inner.clear();
        for (id, c) in traced {
            let c = c.folded();
            let node = match run {
                Some(run) => run.shown(id),
                None => (!id.contains('/')).then(|| NodeId::new(id)),
            };
            if let Some(node) = node.filter(|n| tree.contains(n)) {
                self.counts.insert(node, c);
            }
            // `S/…` is inside the SubTree S of the tree shown (shown by its own ids).
            if !inside
                && let Some((outer, _)) = id.split_once('/')
                && tree.contains(&NodeId::new(outer))
            {
                let e = self.inner.entry(NodeId::new(outer)).or_default();
                e.0 += usize::from(c.entered > 0);
                e.1 += 1;
            }
        }
        let mut levels: Vec<u64> = self
            .counts
            .values()
            .map(|c| c.entered)
            .filter(|&e| e > 0)
            .collect();
        levels.sort_unstable();
        levels.dedup();
        self.levels = levels;
    }

    /// The node's counts, when it is among those counted.
    pub fn of(&self, node: &NodeId) -> Option<Counts> {
        self.counts.get(node).copied()
    }

    /// For a SubTree node, how many of its inner nodes were entered, of how many.
    pub fn inside(&self, node: &NodeId) -> Option<(usize, usize)> {
        self.inner.get(node).copied()
    }

    /// The node's heat, when it is among those counted: never entered, else its rank among
    /// the entry counts, from 0 (the fewest) to 1 (the most).
    pub fn heat_of(&self, node: &NodeId) -> Option<Color32> {
        let c = self.of(node)?;
        Some(heat(self.rank(c.entered)))
    }

    /// `entered`'s rank among the counts (`None`: never entered).
    fn rank(&self, entered: u64) -> Option<f32> {
        if entered == 0 {
            return None;
        }
        let at = self.levels.partition_point(|&l| l < entered);
        Some(match self.levels.len() {
            0 | 1 => 1.0,
            n => at as f32 / (n - 1) as f32,
        })
    }

    /// The fewest and the most entries of a node entered at all.
    pub fn range(&self) -> Option<(u64, u64)> {
        Some((*self.levels.first()?, *self.levels.last()?))
    }
}

/// The trees a coverage file covers, in words: how many, and the first three by name.
fn covered(trees: &[crate::check::TreeCoverage]) -> String {
    let names: Vec<String> = trees
        .iter()
        .take(3)
        .map(|t| t.tree.display().to_string())
        .collect();
    let named: Vec<&str> = names.iter().map(String::as_str).collect();
    let listed = super::messages::a_few(&named, trees.len());
    match trees.len() {
        0 => "no tree".to_owned(),
        1..=3 => listed,
        n => format!(
            "{} other trees: {listed}",
            super::simulate::grouped(n as u64)
        ),
    }
}

/// The colour of a node's heat: dark red when never entered (`None`); else, by its rank
/// from 0 (entered the fewest times) to 1 (the most), from blue through a greyed violet
/// to amber: never near the red of "never", nor green or teal (the leaves' and
/// conditions' colours), and dark enough that the node's white text stays readable.
pub fn heat(rank: Option<f32>) -> Color32 {
    let Some(t) = rank else {
        return Color32::from_rgb(140, 24, 24);
    };
    const STOPS: [[f32; 3]; 3] = [
        [45.0, 75.0, 160.0],
        [120.0, 105.0, 140.0],
        [205.0, 130.0, 25.0],
    ];
    let t = t.clamp(0.0, 1.0);
    let (from, to, u) = if t < 0.5 {
        (STOPS[0], STOPS[1], t * 2.0)
    } else {
        (STOPS[1], STOPS[2], (t - 0.5) * 2.0)
    };
    let mix = |i: usize| (from[i] + (to[i] - from[i]) * u).round() as u8;
    Color32::from_rgb(mix(0), mix(1), mix(2))
}

/// The overlay's legend, a row above the canvas: what is shown, the colours with the
/// entry counts they stand for, and what does not fit.
pub fn legend_ui(ui: &mut egui::Ui, overlay: &Overlay) {
    ui.horizontal_wrapped(|ui| {
        ui.label(egui::RichText::new(&overlay.summary).strong());
        ui.add_space(12.0);
        let swatch = |ui: &mut egui::Ui, colour: Color32| {
            let (rect, _) = ui.allocate_exact_size(egui::vec2(14.0, 14.0), egui::Sense::hover());
            ui.painter().rect_filled(rect, 3.0, colour);
        };
        swatch(ui, heat(None));
        ui.label("never entered");
        if let Some((fewest, most)) = overlay.range() {
            ui.add_space(8.0);
            ui.label(format!("entered {fewest}×"));
            let (rect, bar) =
                ui.allocate_exact_size(egui::vec2(120.0, 14.0), egui::Sense::hover());
            bar.on_hover_text(
                "A node's colour is its rank among the nodes' entry counts, from the fewest to the most",
            );
            let steps = 24;
            for k in 0..steps {
                let x0 = rect.left() + rect.width() * k as f32 / steps as f32;
                let x1 = rect.left() + rect.width() * (k + 1) as f32 / steps as f32;
                let part = egui::Rect::from_min_max(egui::pos2(x0, rect.top()), egui::pos2(x1, rect.bottom()));
                ui.painter()
                    .rect_filled(part, 0.0, heat(Some(k as f32 / (steps - 1) as f32)));
            }
            ui.label(format!("{most}×"));
        }
        if let Some(w) = &overlay.warning {
            ui.add_space(12.0);
            ui.colored_label(Color32::from_rgb(240, 170, 60), w);
        }
    });
}

/// The counts as a node shows them (a SubTree node adds how much of it ran: `inside`).
pub fn counts_line(c: &Counts, inside: Option<(usize, usize)>) -> String {
    let mut line = own_line(c);
    if let Some((entered, of)) = inside {
        line.push_str(&format!("  |  inside: {entered} of {of} entered"));
    }
    line
}

fn own_line(c: &Counts) -> String {
    if c.entered == 0 {
        return "never entered".into();
    }
    let mut line = format!("in {}  ok {}  fail {}", c.entered, c.succeeded, c.failed);
    if c.aborted > 0 {
        line.push_str(&format!("  abort {}", c.aborted));
    }
    if c.skipped > 0 {
        line.push_str(&format!("  skip {}", c.skipped));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heat_tells_never_rarely_and_often_apart_and_keeps_text_readable() {
        let never = heat(None);
        let rare = heat(Some(0.0));
        let often = heat(Some(1.0));
        assert_ne!(never, rare);
        assert_ne!(rare, often);
        assert!(
            u32::from(never.r()) > 3 * u32::from(never.g()),
            "never is red"
        );
        let luma = |c: Color32| u32::from(c.r()) * 3 + u32::from(c.g()) * 6 + u32::from(c.b());
        assert!(luma(often) > luma(rare) + 300, "{often:?} against {rare:?}");
        for t in [0.0, 0.25, 0.5, 0.75, 1.0] {
            let c = heat(Some(t));
            // White text stays readable, no heat is green (leaves) or teal (conditions),
            // and none is a red that could pass for "never entered".
            assert!(luma(c) < 10 * 160, "{t}");
            assert!(c.g() < c.r().max(c.b()), "{t}: {c:?}");
            let reddish =
                u32::from(c.r()) > 2 * u32::from(c.g()) && u32::from(c.r()) > 2 * u32::from(c.b());
            assert!(!reddish, "{t}: {c:?}");
        }
    }
}
