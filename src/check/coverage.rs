//! Coverage: how often each node of each tree was entered, succeeded, failed and was
//! aborted over runs, and which nodes no run entered. `arbor coverage` prints it or writes
//! it as JSON (docs/FORMAT.md, "Coverage files"); the editor's View > Coverage paints it
//! on the canvas.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::runtime::{Counts, Event, Observer};

/// The `format` of a coverage file.
pub const COVERAGE_FORMAT: &str = crate::io::header::COVERAGE.name;
/// The version of the coverage format.
pub const COVERAGE_VERSION: u64 = crate::io::header::COVERAGE.newest;

/// One node's counts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeCoverage {
    /// Its trace id (`SUBTREE/INNER` inside a SubTree).
    pub id: String,
    /// Its title, when it has one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// Times entered.
    pub entered: u64,
    /// Times it exited with success.
    pub succeeded: u64,
    /// Times it exited with failure.
    pub failed: u64,
    /// Times it was stopped from outside.
    pub aborted: u64,
    /// Times it finished skipped (SEMANTICS.md §3.7); written only when it was.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub skipped: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One tree file's nodes, in the order of its program (the tree's own order).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeCoverage {
    /// The tree file, as the run named it.
    pub tree: PathBuf,
    /// The version of the file that ran (`fnv1a:` and the hash of its bytes), where it
    /// could be read: coverage of two versions of a tree is not merged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Each node.
    pub nodes: Vec<NodeCoverage>,
}

impl TreeCoverage {
    /// How many of its nodes were entered at least once.
    pub fn entered(&self) -> usize {
        self.nodes.iter().filter(|n| n.entered > 0).count()
    }

    /// The share of its nodes entered, in percent (100 for a tree of none).
    pub fn percent(&self) -> f64 {
        match self.nodes.len() {
            0 => 100.0,
            n => self.entered() as f64 * 100.0 / n as f64,
        }
    }
}

/// Counts over a number of runs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Coverage {
    /// Always [`COVERAGE_FORMAT`].
    pub format: String,
    /// [`COVERAGE_VERSION`].
    pub version: u64,
    /// The runs counted.
    pub runs: u64,
    /// The steps of all of them.
    pub steps: u64,
    /// Each tree file that ran.
    pub trees: Vec<TreeCoverage>,
    /// Whether the runs were stopped before their end (Ctrl+C): what was counted by then.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

impl Coverage {
    /// No runs yet.
    pub fn new() -> Self {
        Self {
            format: COVERAGE_FORMAT.into(),
            version: COVERAGE_VERSION,
            ..Self::default()
        }
    }

    /// Adds `other`'s counts: trees by path, nodes by id.
    pub fn merge(&mut self, other: Coverage) {
        self.partial |= other.partial;
        self.runs += other.runs;
        self.steps += other.steps;
        for tree in other.trees {
            match self.trees.iter_mut().find(|t| t.tree == tree.tree) {
                None => self.trees.push(tree),
                Some(mine)
                    if mine.nodes.len() == tree.nodes.len()
                        && mine
                            .nodes
                            .iter()
                            .zip(&tree.nodes)
                            .all(|(a, b)| a.id == b.id) =>
                {
                    for (a, b) in mine.nodes.iter_mut().zip(tree.nodes) {
                        a.add(&b);
                    }
                }
                Some(mine) => {
                    let mut at: std::collections::HashMap<String, usize> = mine
                        .nodes
                        .iter()
                        .enumerate()
                        .map(|(i, n)| (n.id.clone(), i))
                        .collect();
                    for n in tree.nodes {
                        match at.get(&n.id) {
                            Some(&i) => mine.nodes[i].add(&n),
                            None => {
                                at.insert(n.id.clone(), mine.nodes.len());
                                mine.nodes.push(n);
                            }
                        }
                    }
                }
            }
        }
    }

    /// The coverage files of the shards of one run (`arbor coverage --partition`), each
    /// with where it came from, added up: what the whole run counts. Refused, naming the
    /// files and the tree, when they are not shards of one run: one counts a tree another
    /// does not, counts another version of it (its file's hash differs), or other nodes
    /// of it.
    pub fn joined(files: Vec<(String, Coverage)>) -> Result<Coverage, String> {
        let mut total = Coverage::new();
        let Some((first, base)) = files.first().map(|(f, c)| (f.clone(), c.clone())) else {
            return Ok(total);
        };
        let trees =
            |c: &Coverage| -> Vec<PathBuf> { c.trees.iter().map(|t| t.tree.clone()).collect() };
        let mut names = trees(&base);
        names.sort();
        for (file, c) in &files {
            let mut mine = trees(c);
            mine.sort();
            if let Some(t) = names.iter().find(|t| !mine.contains(t)) {
                return Err(format!(
                    "{first} counts tree {} and {file} does not: they are not shards of one run",
                    t.display()
                ));
            }
            if let Some(t) = mine.iter().find(|t| !names.contains(t)) {
                return Err(format!(
                    "{file} counts tree {} and {first} does not: they are not shards of one run",
                    t.display()
                ));
            }
            for t in &c.trees {
                let Some(b) = base.trees.iter().find(|b| b.tree == t.tree) else {
                    continue;
                };
                if let (Some(x), Some(y)) = (&b.version, &t.version)
                    && x != y
                {
                    return Err(format!(
                        "tree {}: {first} counted its version {x} and {file} its version {y}: the tree changed between the shards",
                        t.tree.display()
                    ));
                }
                if b.nodes.len() != t.nodes.len()
                    || b.nodes.iter().zip(&t.nodes).any(|(m, n)| m.id != n.id)
                {
                    return Err(format!(
                        "tree {}: {first} and {file} count other nodes of it: not the same tree",
                        t.tree.display()
                    ));
                }
            }
        }
        for (_, c) in files {
            total.merge(c);
        }
        Ok(total)
    }

    /// Nodes entered at least once, and nodes in all.
    pub fn totals(&self) -> (usize, usize) {
        self.trees
            .iter()
            .fold((0, 0), |(e, n), t| (e + t.entered(), n + t.nodes.len()))
    }

    /// The share of nodes entered at least once, in percent (100 with no nodes).
    pub fn percent(&self) -> f64 {
        match self.totals() {
            (_, 0) => 100.0,
            (e, n) => e as f64 * 100.0 / n as f64,
        }
    }

    /// The coverage of the tree file `path` (the paths of the trees it lists are relative
    /// to `base`): the tree of that path or of the same file under that file name, else
    /// the one tree of that file name. Only the trees of that file name are looked at on
    /// disk, so a coverage of many trees is searched at the cost of comparing names.
    pub fn of_tree(&self, path: &Path, base: &Path) -> Option<&TreeCoverage> {
        let named = || {
            self.trees
                .iter()
                .filter(|t| t.tree.file_name() == path.file_name())
        };
        let same = |t: &TreeCoverage| {
            crate::io::same_file(&base.join(&t.tree), path) || crate::io::same_file(&t.tree, path)
        };
        self.trees
            .iter()
            .find(|t| t.tree == path)
            .or_else(|| named().find(|t| same(t)))
            .or_else(|| {
                let mut named = named();
                match (named.next(), named.next()) {
                    (Some(one), None) => Some(one),
                    _ => None,
                }
            })
    }

    /// The coverage as JSON text (two-space indent, a newline at the end).
    pub fn to_text(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// A coverage file's text; why it is not one: it does not read, or it contradicts
    /// itself (a tree twice, a node twice in a tree, a node that exited more often than
    /// it was entered).
    pub fn parse(text: &str, path: &Path) -> Result<Self, String> {
        if let Err(p) = crate::io::header::COVERAGE.check(text) {
            let hint = match p.key {
                "format" => " (make one with arbor coverage … --json > FILE)",
                _ => "",
            };
            return Err(format!("{}: {}{hint}", path.display(), p.message));
        }
        let c: Coverage = serde_json::from_str(text).map_err(|e| {
            format!(
                "{}:{}: {}",
                path.display(),
                e.line(),
                crate::io::worded(&e, text)
            )
        })?;
        c.contradiction()
            .map_or(Ok(c), |why| Err(format!("{}: {why}", path.display())))
    }

    /// What in these counts cannot be, if anything: a tree twice, a node twice in a tree,
    /// or a node that exited (succeeded, failed, was aborted or skipped) more often than it was
    /// entered.
    fn contradiction(&self) -> Option<String> {
        use crate::model::names::clipped;
        let mut trees = std::collections::HashSet::new();
        for t in &self.trees {
            let tree = t.tree.display().to_string();
            if !trees.insert(&t.tree) {
                return Some(format!(
                    "the tree {} is counted twice; a coverage file counts each tree once",
                    clipped(&tree)
                ));
            }
            let mut ids = std::collections::HashSet::new();
            for n in &t.nodes {
                let at = || format!("tree {}: node '{}'", clipped(&tree), clipped(&n.id));
                if !ids.insert(&n.id) {
                    return Some(format!("{}: counted twice", at()));
                }
                for (count, what) in [
                    (n.succeeded, "succeeded"),
                    (n.failed, "failed"),
                    (n.aborted, "was aborted"),
                    (n.skipped, "was skipped"),
                ] {
                    if count > n.entered {
                        return Some(format!(
                            "{}: {what} {count} times but was entered only {}; a node exits at most as often as it is entered",
                            at(),
                            n.entered
                        ));
                    }
                }
                let exits = u128::from(n.succeeded)
                    + u128::from(n.failed)
                    + u128::from(n.aborted)
                    + u128::from(n.skipped);
                if exits > u128::from(n.entered) {
                    return Some(format!(
                        "{}: it exited {exits} times (succeeded, failed, aborted or skipped) but was entered only {}; a node exits at most as often as it is entered",
                        at(),
                        n.entered
                    ));
                }
            }
        }
        None
    }
}

impl NodeCoverage {
    /// Its counts.
    pub fn counts(&self) -> Counts {
        Counts {
            entered: self.entered,
            succeeded: self.succeeded,
            failed: self.failed,
            aborted: self.aborted,
            skipped: self.skipped,
            ..Counts::default()
        }
    }

    fn add(&mut self, other: &NodeCoverage) {
        self.add_counts(&other.counts());
    }

    /// Adds `counts`.
    pub fn add_counts(&mut self, counts: &Counts) {
        let mut c = self.counts();
        c.add(counts);
        (
            self.entered,
            self.succeeded,
            self.failed,
            self.aborted,
            self.skipped,
        ) = (c.entered, c.succeeded, c.failed, c.aborted, c.skipped);
    }
}

/// The observer that counts a run's node events, per tree file, by program index.
pub struct Counter {
    /// For each agent (by name), the tree it runs (an index into `coverage.trees`).
    agents: foldhash::HashMap<String, usize>,
    current: usize,
    /// The trees and their nodes, counts not yet filled in.
    coverage: Coverage,
    /// Each tree's counts, by program index.
    counts: Vec<Vec<Counts>>,
    /// Each tree's program index of each trace id, made for the first traced event
    /// ([`Counter::traced`]).
    index: Vec<foldhash::HashMap<String, usize>>,
}

impl Counter {
    /// A counter for `agents` (each its name, the tree file it runs, that file's version
    /// and that program's node ids, with titles where known).
    pub fn new<'a>(
        agents: impl IntoIterator<Item = (&'a str, &'a Path, Option<String>, Vec<(String, String)>)>,
    ) -> Self {
        let mut coverage = Coverage::new();
        let mut map = foldhash::HashMap::default();
        for (name, tree, version, nodes) in agents {
            let tree = super::tidy(tree);
            let at = match coverage.trees.iter().position(|t| t.tree == tree) {
                Some(i) => i,
                None => {
                    coverage.trees.push(TreeCoverage {
                        tree,
                        version,
                        nodes: nodes
                            .into_iter()
                            .map(|(id, title)| NodeCoverage {
                                id,
                                title,
                                ..NodeCoverage::default()
                            })
                            .collect(),
                    });
                    coverage.trees.len() - 1
                }
            };
            map.insert(name.to_owned(), at);
        }
        let counts = coverage
            .trees
            .iter()
            .map(|t| vec![Counts::default(); t.nodes.len()])
            .collect();
        Self {
            agents: map,
            current: 0,
            coverage,
            counts,
            index: Vec::new(),
        }
    }

    /// Counts an event of a recorded trace: agent `agent`'s, of the node of trace id
    /// `node` (an event of a node its tree does not have counts nothing).
    pub fn traced<S>(&mut self, agent: &str, node: &str, kind: &crate::runtime::EventKindOf<S>) {
        if self.index.is_empty() {
            self.index = self
                .coverage
                .trees
                .iter()
                .map(|t| {
                    t.nodes
                        .iter()
                        .enumerate()
                        .map(|(i, n)| (n.id.clone(), i))
                        .collect()
                })
                .collect();
        }
        let Some(&t) = self.agents.get(agent) else {
            return;
        };
        if let Some(&i) = self.index.get(t).and_then(|ids| ids.get(node))
            && let Some(c) = self.counts.get_mut(t).and_then(|c| c.get_mut(i))
        {
            c.count(kind);
        }
    }

    /// What was counted, as coverage of one run of `steps` steps.
    pub fn finish(mut self, steps: u64) -> Coverage {
        for (tree, counts) in self.coverage.trees.iter_mut().zip(&self.counts) {
            for (node, c) in tree.nodes.iter_mut().zip(counts) {
                node.add_counts(&c.folded());
            }
        }
        // A run stopped before its first step is no run.
        self.coverage.runs = u64::from(steps > 0);
        self.coverage.steps = steps;
        self.coverage
    }
}

impl Observer for Counter {
    fn agent(&mut self, name: &str) {
        if let Some(&t) = self.agents.get(name) {
            self.current = t;
        }
    }

    fn event(&mut self, event: &Event<'_>) {
        if let Some(n) = event.node
            && let Some(c) = self
                .counts
                .get_mut(self.current)
                .and_then(|t| t.get_mut(n as usize))
        {
            c.count(&event.kind);
        }
    }
}

/// The coverage of the run the trace at `path` recorded (an Arbor trace, or a
/// BehaviorTree.CPP recording): each agent's tree, as its header names it, compiled with
/// the kinds of the project that governs it (`project` when given) over `base` for its
/// nodes, and each event counted as a run counts it; one run, of the trace's last step.
pub fn trace_coverage(
    path: &Path,
    base: &crate::model::Catalog,
    project: Option<&Path>,
) -> Result<Coverage, String> {
    let trace = crate::io::read_trace(path).map_err(|e| e.to_string())?;
    let header = trace.header.as_ref().ok_or_else(|| {
        format!(
            "{}: the trace has no header, so it names no tree to count the nodes of",
            path.display()
        )
    })?;
    let mut agents = Vec::with_capacity(header.agents.len());
    for agent in &header.agents {
        let tree = crate::io::resolve_traced(&agent.tree, path);
        let here = crate::io::ProjectCatalog::for_tree(Some(&tree), project, base);
        let nodes = crate::world::nodes_of(&tree, &here.catalog)
            .map_err(|e| format!("{}: its tree {}: {e}", path.display(), agent.tree))?;
        agents.push((agent.name.as_str(), tree, nodes));
    }
    let mut counter = Counter::new(agents.iter().map(|(name, tree, nodes)| {
        (
            *name,
            tree.as_path(),
            super::file_version(tree),
            nodes.clone(),
        )
    }));
    for e in &trace.events {
        if let (Some(agent), Some(node)) = (trace.agents.get(e.agent), e.node.as_deref()) {
            counter.traced(agent, node, &e.kind);
        }
    }
    let steps = trace.events.last().map_or(0, |e| e.step);
    Ok(counter.finish(steps))
}
