//! `arbor coverage PATH… [--seeds A..B] [--steps N] [--json] [--min PERCENT] [--tree FILE]…`: how often
//! each node was entered, succeeded, failed and was aborted over many runs (and over the
//! runs recorded traces hold), the nodes never entered first. Ctrl+C stops it with the
//! table of what ran.

use std::cell::Cell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use rayon::prelude::*;

use super::CoverageReport;
use super::steps::{Progress, ctrl_c_pressed};
use super::{EXIT_ERRORS, EXIT_INTERRUPTED, EXIT_OK, EXIT_UNREADABLE};
use crate::check::file::{MAX_STEPS, Target, TestFile, parse_seed_range};
use crate::check::shard::{Partition, pair_key};
use crate::check::{
    Coverage, PrepareError, Prepared, TreeCoverage, is_test, load_test, project_of,
};
use crate::model::Catalog;
use crate::model::names::Num;

/// What `arbor coverage` was asked.
pub struct CoverageArgs<'a> {
    /// Test files, folders of them, scenarios or trees.
    pub paths: &'a [PathBuf],
    /// The seeds (`A..B`, `A..=B`); a test file's own when not given, else `0..10`.
    pub seeds: Option<&'a str>,
    /// Steps per run; a test file's own when not given, else 1000.
    pub steps: Option<u64>,
    /// Seconds per step for scenarios and trees (a test file runs with its own).
    pub dt: f64,
    /// Print JSON (a coverage file) instead of the table.
    pub json: bool,
    /// Fail (exit 1) below this share of nodes entered, in percent: of each tree of
    /// `trees`, else of all.
    pub min: Option<f64>,
    /// The trees to report (none: every tree the runs entered).
    pub trees: &'a [PathBuf],
    /// The shard of the (file, seed) runs to run (none: all of them).
    pub partition: Option<&'a Partition>,
    /// The project file to take node libraries from.
    pub project: Option<&'a Path>,
}

/// The seeds runs take when neither the command line nor a test file says.
pub const DEFAULT_SEEDS: &str = "0..10";
/// The steps runs take when neither the command line nor a test file says.
pub const DEFAULT_STEPS: u64 = 1000;

/// How many steps a run takes between two looks at the progress line.
const PROGRESS_EVERY: u64 = 4096;

/// What one PATH runs: a test file's run, or a scenario's or tree's, with the seeds and
/// steps of the command line.
fn runs_of(path: &Path, args: &CoverageArgs<'_>, seeds: &[u64]) -> Result<TestFile, String> {
    let text =
        crate::io::read_text(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    if is_test(&text) {
        let mut test = load_test(path).map_err(|e| e.to_string())?;
        if args.seeds.is_some() {
            test.seeds = seeds.to_vec();
        }
        if let Some(steps) = args.steps {
            test.steps = steps;
            test.triggers.retain(|(t, _)| t.step <= steps);
        }
        // Coverage counts; it checks nothing.
        test.expect.clear();
        return Ok(test);
    }
    // A tree runs in the scenario beside it, as the editor runs it; else alone.
    let target = if crate::world::is_scenario(&text) {
        Target::Scenario {
            scenario: path.to_owned(),
            tree: None,
        }
    } else if let Some(scenario) = crate::world::scenario_beside(path) {
        Target::Scenario {
            scenario,
            tree: None,
        }
    } else {
        Target::Tree(path.to_owned())
    };
    Ok(TestFile {
        path: path.to_owned(),
        name: path.display().to_string(),
        description: String::new(),
        target,
        target_line: 1,
        seeds: seeds.to_vec(),
        steps: args.steps.unwrap_or(DEFAULT_STEPS),
        dt: args.dt,
        triggers: Vec::new(),
        expect: Vec::new(),
    })
}

/// `arbor coverage`.
pub fn coverage(
    args: &CoverageArgs<'_>,
    base: &Catalog,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let fail = |err: &mut dyn Write, m: String| {
        let _ = writeln!(err, "error: {m}");
        EXIT_UNREADABLE
    };
    if let Err(e) = super::check_dt(args.dt) {
        return fail(err, e);
    }
    if let Err(e) = check_min(args.min) {
        return fail(err, e);
    }
    if let Some(steps) = args.steps
        && !(1..=MAX_STEPS).contains(&steps)
    {
        return fail(
            err,
            format!("--steps must be from 1 to {MAX_STEPS}, not {steps}"),
        );
    }
    let seeds = match parse_seed_range(args.seeds.unwrap_or(DEFAULT_SEEDS)) {
        Ok(s) => s,
        Err(e) => return fail(err, format!("--{e}")),
    };
    // Folders hold test files; files are taken as they are.
    let mut files = Vec::new();
    for p in args.paths {
        if p.is_dir() {
            match crate::check::find_tests(std::slice::from_ref(p)) {
                Ok(f) => files.extend(f),
                Err(e) => return fail(err, e),
            }
        } else {
            files.push(p.clone());
        }
    }
    if files.is_empty() {
        return fail(
            err,
            "nothing to run: give test files, folders of them, scenarios, trees or traces".into(),
        );
    }
    // A recorded trace (Arbor's, or a BehaviorTree.CPP recording) is counted as it ran.
    let (traces, files): (Vec<PathBuf>, Vec<PathBuf>) =
        files.into_iter().partition(|f| crate::io::is_trace(f));
    if let (Some(p), Some(t)) = (args.partition, traces.first()) {
        return fail(
            err,
            format!(
                "--partition {p} splits runs of tests, scenarios and trees, not traces ({}): count the traces in a job of their own",
                t.display()
            ),
        );
    }
    let mut recorded = Coverage::new();
    for t in &traces {
        match crate::check::trace_coverage(t, base, args.project) {
            Ok(c) => recorded.merge(c),
            Err(e) => {
                let _ = writeln!(err, "{e}");
                return EXIT_UNREADABLE;
            }
        }
    }
    let mut prepared = Vec::new();
    // Each project read once, its problems said once.
    let mut projects = super::Projects::new(base, args.project);
    for f in &files {
        let test = match runs_of(f, args, &seeds) {
            Ok(t) => t,
            Err(e) => {
                let _ = writeln!(err, "{e}");
                return EXIT_UNREADABLE;
            }
        };
        let here = projects.index_of(project_of(&test, args.project), err, &mut (0, 0, 0));
        match Prepared::in_project(test, &projects.loaded[here]) {
            Ok(p) => prepared.push(p),
            Err(e) => {
                let _ = writeln!(err, "{e}");
                return match e {
                    PrepareError::Broken(_) => EXIT_ERRORS,
                    _ => EXIT_UNREADABLE,
                };
            }
        }
    }
    // A coverage file sent over one of the files it counts is refused before the runs.
    if args.json
        && let Err(e) = crate::io::check_stdout(&[])
    {
        let _ = writeln!(err, "{}", super::located(&e));
        return EXIT_UNREADABLE;
    }
    // The runs of this shard (all of them without --partition), dealt as `arbor test`
    // deals its pairs.
    let all: Vec<(&Prepared, u64)> = prepared
        .iter()
        .flat_map(|p| p.test.seeds.iter().map(move |&s| (p, s)))
        .collect();
    let len = all.len();
    let jobs: Vec<(&Prepared, u64)> = all
        .into_iter()
        .enumerate()
        .filter(|(at, (p, s))| {
            args.partition
                .is_none_or(|part| part.keeps(*at, len, &pair_key(&p.test.path, *s)))
        })
        .map(|(_, job)| job)
        .collect();
    // Every tree the whole run counts, in its order, whatever runs this shard has: the
    // shards' files then add up to the whole run's.
    let mut seeded = Coverage::new();
    for p in &prepared {
        seeded.merge(p.no_runs());
    }
    // Each run's counts are added as they come (in the order of the runs, so the output is
    // the same however many threads run them), never all held at once. Ctrl+C stops the
    // runs going on between two steps, and what they counted so far is kept.
    let all_steps = jobs.iter().map(|(p, _)| p.test.steps).sum();
    let progress = Mutex::new(Progress::steps(all_steps));
    let taken = AtomicU64::new(0);
    let (finished, partial) = (AtomicU64::new(0), AtomicU64::new(0));
    let total = jobs
        .par_iter()
        .map(|&(p, s)| {
            if ctrl_c_pressed() {
                return Ok(Coverage::new());
            }
            // Asked before each step: every PROGRESS_EVERY steps taken, they are added to
            // `taken` and the progress line is looked at; the rest at the end.
            let (asked, added) = (Cell::new(0), Cell::new(0));
            let go_on = || {
                let done = asked.get();
                asked.set(done + 1);
                if done > 0 && done % PROGRESS_EVERY == 0 {
                    added.set(done);
                    let all = taken.fetch_add(PROGRESS_EVERY, Ordering::Relaxed) + PROGRESS_EVERY;
                    if let Ok(mut progress) = progress.try_lock() {
                        let all = all.max(progress.done);
                        progress.taken(all);
                        progress.show();
                    }
                }
                !ctrl_c_pressed()
            };
            let run = p.cover(s, &go_on)?;
            taken.fetch_add(run.steps - added.get(), Ordering::Relaxed);
            if run.steps == p.test.steps {
                finished.fetch_add(1, Ordering::Relaxed);
            } else if run.steps > 0 {
                partial.fetch_add(1, Ordering::Relaxed);
            }
            Ok::<_, String>(run)
        })
        .try_reduce(Coverage::new, |mut a, b| {
            a.merge(b);
            Ok(a)
        });
    let mut progress = progress
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    progress.taken(taken.into_inner());
    let stopped = progress.finish();
    let total = match total {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(err, "{e}");
            return EXIT_UNREADABLE;
        }
    };
    seeded.merge(total);
    let mut total = seeded;
    total.merge(recorded);
    // A coverage file of runs Ctrl+C stopped says so.
    total.partial = stopped;
    // Stopped before any step: nothing to show.
    let shown = !(stopped && total.runs == 0);
    // (Stopped, the counts are not held to --min: the run did not end.)
    let asked = CoverageReport {
        json: args.json,
        min: args.min.filter(|_| !stopped),
        trees: args.trees.to_vec(),
    };
    let code = report(total, shown, &asked, out, err);
    if stopped {
        let _ = writeln!(
            err,
            "interrupted (Ctrl+C): {} of {} runs finished, {} stopped part-way (counted to the step each reached)",
            finished.into_inner(),
            jobs.len(),
            partial.into_inner(),
        );
        return EXIT_INTERRUPTED;
    }
    code
}

/// Why `--min` is not a percentage, if it is not one.
fn check_min(min: Option<f64>) -> Result<(), String> {
    match min {
        Some(min) if !(0.0..=100.0).contains(&min) => Err(format!(
            "--min {}: give a percentage from 0 to 100",
            Num(min)
        )),
        _ => Ok(()),
    }
}

/// Shows `total` (when `shown`) as `asked`: JSON or the table, of the trees it names if
/// any; and says whether it falls below its `--min`: the exit code.
fn report(
    mut total: Coverage,
    shown: bool,
    asked: &CoverageReport,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let (json, min, trees) = (asked.json, asked.min, &asked.trees[..]);
    if !trees.is_empty() {
        match only_trees(&total, trees) {
            Ok(only) => total.trees = only,
            Err(e) => {
                let _ = writeln!(err, "error: {e}");
                return EXIT_UNREADABLE;
            }
        }
    }
    if shown {
        if json {
            let _ = out.write_all(total.to_text().as_bytes());
        } else {
            print_table(&total, out);
        }
    }
    match min {
        Some(min) if below_min(&total, min, !trees.is_empty(), err) => EXIT_ERRORS,
        _ => EXIT_OK,
    }
}

/// `arbor coverage merge FILE… [--json] [--min P] [--tree T]…`: the coverage files of the
/// shards of one run added up ([`Coverage::joined`]), shown as a run's. Exit 2 when a file
/// cannot be read or the files are not shards of one run, 1 below `--min`.
pub fn coverage_merge(
    files: &[PathBuf],
    asked: &CoverageReport,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    if let Err(e) = check_min(asked.min) {
        let _ = writeln!(err, "error: {e}");
        return EXIT_UNREADABLE;
    }
    let mut read = Vec::new();
    for f in files {
        let parsed = crate::io::read_text(f)
            .map_err(|e| format!("{}: cannot read: {e}", f.display()))
            .and_then(|text| Coverage::parse(&text, f));
        match parsed {
            Ok(c) => read.push((f.display().to_string(), c)),
            Err(e) => {
                let _ = writeln!(err, "error: {e}");
                return EXIT_UNREADABLE;
            }
        }
    }
    let total = match Coverage::joined(read) {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(err, "error: {e} (nothing merged)");
            return EXIT_UNREADABLE;
        }
    };
    report(total, true, asked, out, err)
}

/// The trees of `c` that `wanted` name, in the order named; or which was not entered by
/// any run, with the trees that were.
fn only_trees(c: &Coverage, wanted: &[PathBuf]) -> Result<Vec<TreeCoverage>, String> {
    let here = std::env::current_dir().unwrap_or_default();
    let mut only: Vec<TreeCoverage> = Vec::with_capacity(wanted.len());
    for w in wanted {
        match c.of_tree(w, &here) {
            Some(t) if only.iter().any(|o| o.tree == t.tree) => {}
            Some(t) => only.push(t.clone()),
            None => {
                let ran: Vec<String> = c
                    .trees
                    .iter()
                    .map(|t| t.tree.display().to_string())
                    .collect();
                return Err(format!(
                    "--tree {}: no run entered this tree; the runs entered {}",
                    w.display(),
                    if ran.is_empty() {
                        "none".to_owned()
                    } else {
                        ran.join(", ")
                    }
                ));
            }
        }
    }
    Ok(only)
}

/// Whether `c` falls below `min` percent of its nodes entered: of each tree when
/// `per_tree`, else of all of them together; says so on `err`, a line for each tree.
fn below_min(c: &Coverage, min: f64, per_tree: bool, err: &mut dyn Write) -> bool {
    let below = |p: f64| p + 1e-9 < min;
    let failed = if per_tree {
        c.trees.iter().any(|t| below(t.percent()))
    } else {
        below(c.percent())
    };
    if !failed {
        return false;
    }
    if per_tree {
        let _ = writeln!(err, "coverage is below --min {} for:", Num(min));
    } else {
        let (entered, all) = c.totals();
        let _ = writeln!(
            err,
            "coverage {:.1} % ({entered} of {all} nodes entered) is below --min {}; by tree:",
            c.percent(),
            Num(min)
        );
    }
    for t in &c.trees {
        let p = t.percent();
        if per_tree && !below(p) {
            continue;
        }
        let _ = writeln!(
            err,
            "  {}: {p:.1} % ({} of {} nodes entered){}",
            t.tree.display(),
            t.entered(),
            t.nodes.len(),
            if !per_tree && below(p) { "  below" } else { "" }
        );
    }
    true
}

/// The coverage as a table per tree: the nodes never entered first, then the others in
/// tree order.
fn print_table(c: &Coverage, out: &mut dyn Write) {
    let _ = writeln!(
        out,
        "{} run{}, {} steps in all",
        c.runs,
        if c.runs == 1 { "" } else { "s" },
        c.steps
    );
    for t in &c.trees {
        print_tree(t, out);
    }
    let (entered, all) = c.totals();
    let _ = writeln!(
        out,
        "\ntotal: {entered} of {all} nodes entered ({:.1} %)",
        c.percent()
    );
}

fn print_tree(t: &TreeCoverage, out: &mut dyn Write) {
    let _ = writeln!(
        out,
        "\n{}: {} of {} nodes entered ({:.1} %)",
        t.tree.display(),
        t.entered(),
        t.nodes.len(),
        t.percent()
    );
    let name = |n: &crate::check::NodeCoverage| {
        if n.title.is_empty() {
            n.id.clone()
        } else {
            format!("{} \"{}\"", n.id, n.title)
        }
    };
    let width = t
        .nodes
        .iter()
        .map(|n| name(n).chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    // A tree some of whose nodes were skipped (SEMANTICS.md §3.7) has a column for it.
    let skips = t.nodes.iter().any(|n| n.skipped > 0);
    let skipped = |s: &dyn std::fmt::Display| match skips {
        true => format!("  {s:>9}"),
        false => String::new(),
    };
    let _ = writeln!(
        out,
        "  {:<width$}  {:>9}  {:>9}  {:>9}  {:>9}{}",
        "node",
        "entered",
        "succeeded",
        "failed",
        "aborted",
        skipped(&"skipped")
    );
    let never = t.nodes.iter().filter(|n| n.entered == 0);
    let others = t.nodes.iter().filter(|n| n.entered > 0);
    for n in never.chain(others) {
        let _ = writeln!(
            out,
            "  {:<width$}  {:>9}  {:>9}  {:>9}  {:>9}{}{}",
            name(n),
            n.entered,
            n.succeeded,
            n.failed,
            n.aborted,
            skipped(&n.skipped),
            if n.entered == 0 {
                "  never entered"
            } else {
                ""
            }
        );
    }
}
