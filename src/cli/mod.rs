//! The command line: argument parsing and the headless commands (SEMANTICS.md §5).
//!
//! Each command writes to the given streams and returns the process exit code, so tests
//! can run it in-process as well as through the binary.

use std::io::Write;
use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::io::{LoadError, Problem, ProjectCatalog, TreeFiles, write_atomically};
use crate::model::{Catalog, Category, Severity};

/// Exit code: everything is fine.
pub const EXIT_OK: u8 = 0;
/// Exit code: a tree has validation errors, or `fmt --check` found files to format.
pub const EXIT_ERRORS: u8 = 1;
/// Exit code: a file could not be read or parsed.
pub const EXIT_UNREADABLE: u8 = 2;
/// Exit code: `run` was stopped by Ctrl+C (after printing its summary).
pub const EXIT_INTERRUPTED: u8 = 130;
/// `run --break`: the run ended without a breakpoint hitting.
pub const EXIT_NO_BREAK: u8 = 3;

use crate::model::names::{self, Num};
mod coverage;
mod steps;
mod terminal;
mod test;
pub use crate::debug::{TriggerArg, parse_trigger};
pub use coverage::{CoverageArgs, coverage};
use steps::Progress;
pub use steps::interrupt;
pub use terminal::{Escaped, shown};
pub use test::test;

/// The line a run stopped by Ctrl+C ends its summary with; the exit code.
fn interrupted(summary: &mut dyn Write, steps: &Progress) -> u8 {
    let _ = writeln!(summary, "interrupted (Ctrl+C) after step {}", steps.done);
    EXIT_INTERRUPTED
}

/// Arbor: design, validate and run behaviour trees.
#[derive(Debug, Parser)]
#[command(name = "arbor", version, about, long_about = None)]
pub struct Cli {
    /// What to do; without a command Arbor opens the editor on a bundled sample tree.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The project file whose node libraries to use, instead of the `arbor.project.json`
    /// found by walking up from each tree file's folder (from the current folder for
    /// `kinds`).
    #[arg(long, global = true, value_name = "FILE")]
    pub project: Option<PathBuf>,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check tree files (and scenario, node library, project, behaviour test and trace
    /// files): one line per problem, `FILE: SEVERITY: [NODE-ID] MESSAGE (rule)`. Exit 0
    /// without errors, 1 with errors, 2 when a file cannot be read or parsed.
    Validate {
        /// Warnings fail the check too (exit 1), for CI.
        #[arg(long)]
        deny_warnings: bool,
        /// Files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Open the editor on FILE (or on a bundled sample tree).
    Edit {
        /// The tree file to open.
        file: Option<PathBuf>,
        /// Start the simulation running (when the tree has a scenario).
        #[arg(long)]
        run: bool,
        /// Replay this trace (`arbor run --trace`, or a game's) on the tree it names, as File >
        /// Open Trace… does; with --at, --watch and --select, at that step, agent and node.
        #[arg(long, value_name = "TRACE")]
        trace: Option<PathBuf>,
        /// Where games connect to be shown live: a port on this machine's loopback address
        /// (default 47801, or the next free one when another editor has it), or
        /// ADDRESS:PORT to listen on another network (a game there needs this editor's
        /// token: Simulation > Copy Live Address). `off`: no live attach.
        #[arg(long, value_name = "PORT|ADDRESS:PORT|off")]
        listen: Option<String>,
        /// Show the game of this name live as soon as it connects (as choosing it in the
        /// Simulation panel's Game list does).
        #[arg(long, value_name = "NAME")]
        game: Option<String>,
        /// Where the run starts.
        #[command(flatten)]
        start: StartArgs,
    },
    /// Run a tree or a scenario headless for N steps and print a summary; `--trace` writes
    /// every event. A scenario file (recognised by its header) runs every agent's tree in
    /// the simulated world.
    Run {
        /// The tree file, or a scenario file.
        file: PathBuf,
        /// Run FILE (a tree) for every agent of this scenario, instead of their own trees.
        #[arg(long, value_name = "SCENARIO")]
        scenario: Option<PathBuf>,
        /// Steps to run after the start (step 0).
        #[arg(long, default_value_t = 100)]
        steps: u64,
        /// Seconds per step.
        #[arg(long, default_value_t = crate::world::DT, allow_negative_numbers = true)]
        dt: f64,
        /// Seed of the random generator (random composites).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Trigger an Interrupt before step STEP: `STEP:ID` or `STEP:ID:VALUE` (VALUE is the
        /// payload: a world entity's name where one matches, else the text). In a scenario
        /// it goes to every agent whose tree has that Interrupt, or to one with `ID@AGENT`.
        #[arg(long = "trigger", value_name = "STEP:ID[:VALUE]")]
        triggers: Vec<String>,
        /// Write the trace to PATH: binary when its name ends in `.arbtrace`, else JSON
        /// Lines (`-`: JSON Lines on standard output).
        #[arg(long, value_name = "PATH|-")]
        trace: Option<PathBuf>,
        /// Scenarios: print the arena as text after the run.
        #[arg(long)]
        show: bool,
        /// Scenarios: print the arena at the start and every K steps (implies --show).
        #[arg(long, value_name = "K")]
        show_every: Option<u64>,
        /// Stop at the first step where a breakpoint hits: NODE (its id or title) breaks
        /// on enter; NODE:ON on ON, one of enter, failure, abort, context_missing,
        /// interrupt, stall. Prints where and why, then the summary at that step; exits 3
        /// when none hit.
        #[arg(long = "break", value_name = "NODE[:ON]")]
        breaks: Vec<String>,
    },
    /// Run behaviour test files (`NAME.test.json`; a folder is searched for them): a line
    /// per test and seed, then `N passed, M failed`. Exit 0 when all pass, 1 when one
    /// fails, 2 when a test file is wrong or names a file that cannot be read, 130 when
    /// Ctrl+C stopped runs before their end (each said, the results so far printed).
    Test {
        /// Test files and folders of them (default: the current folder).
        paths: Vec<PathBuf>,
        /// Also write the results as JUnit XML to FILE.
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
    },
    /// How often each node was entered, succeeded, failed and was aborted over many runs,
    /// the nodes never entered first. Exit 1 below `--min`; Ctrl+C stops the runs between
    /// two steps, prints the table of the steps taken and exits 130.
    Coverage {
        /// Test files (their own runs), folders of them, scenarios or trees.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// The seeds: one, `A..B` (A up to B - 1) or `A..=B` [default: a test file's own, else 0..10].
        #[arg(long, value_name = "A..B")]
        seeds: Option<String>,
        /// Steps per run [default: a test file's own, else 1000].
        #[arg(long, value_name = "N")]
        steps: Option<u64>,
        /// Seconds per step, for scenarios and trees (a test file runs with its own).
        #[arg(long, default_value_t = crate::world::DT, allow_negative_numbers = true)]
        dt: f64,
        /// Print the counts as JSON (a coverage file, which View > Coverage opens in the editor).
        #[arg(long)]
        json: bool,
        /// Fail (exit 1) when less than PERCENT of the nodes were entered.
        #[arg(long, value_name = "PERCENT")]
        min: Option<f64>,
    },
    /// Print the node kinds this build and the project's node libraries know, with their
    /// fields, as Markdown.
    Kinds,
    /// Write a trace again in the other encoding: binary when OUT's name ends in
    /// `.arbtrace`, else JSON Lines (`-`: JSON Lines on standard output). IN is either; a
    /// last line cut off mid-write is left out and said.
    Convert {
        /// The trace to read.
        input: PathBuf,
        /// Where to write it (never IN itself).
        output: PathBuf,
    },
    /// Rewrite tree, scenario, node library and project files in canonical form (stable
    /// key order, two-space indent).
    Fmt {
        /// Change nothing: list the files that are not canonical and exit 1 if any.
        #[arg(long)]
        check: bool,
        /// With --check: print how each file differs from its canonical form (a unified
        /// diff).
        #[arg(long, requires = "check")]
        diff: bool,
        /// Files to format.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

/// Where `arbor edit` starts the run: what `arbor test` prints for a failure.
#[derive(Debug, clap::Args)]
pub struct StartArgs {
    /// Run the tree in this scenario, instead of the one beside it.
    #[arg(long, value_name = "SCENARIO")]
    scenario: Option<PathBuf>,
    /// Run the tree alone in an empty world, even with a scenario beside it.
    #[arg(long, conflicts_with = "scenario")]
    solo: bool,
    /// With --scenario: every agent runs FILE instead of its own tree (as `arbor run
    /// FILE --scenario SCENARIO`).
    #[arg(long, requires = "scenario")]
    every_agent: bool,
    /// Seed of the run's random generators.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Seconds per step of the run.
    #[arg(long, default_value_t = crate::world::DT, allow_negative_numbers = true)]
    dt: f64,
    /// Open the run at this step (as `arbor test` prints it for a failure); with --trace,
    /// that step of the recording (its last for one past its end).
    #[arg(long, value_name = "STEP")]
    at: Option<u64>,
    /// Watch this agent (its name in the scenario).
    #[arg(long, value_name = "AGENT")]
    watch: Option<String>,
    /// Select and centre this node (its id).
    #[arg(long, value_name = "NODE")]
    select: Option<String>,
    /// Trigger the Interrupt with id ID before step STEP (`ID@AGENT`: for that agent
    /// only); with --at, those up to that step are given.
    #[arg(long = "trigger", value_name = "STEP:ID[:VALUE]")]
    triggers: Vec<String>,
}

impl StartArgs {
    /// The start these arguments ask for; why they are wrong.
    pub fn run_from(self) -> Result<crate::debug::RunFrom, String> {
        check_dt(self.dt)?;
        let max = crate::check::file::MAX_STEPS;
        if self.at.is_some_and(|k| k > max) {
            return Err(format!("--at: a run opens at step {max} at most"));
        }
        let triggers = self
            .triggers
            .iter()
            .map(|t| parse_trigger(t))
            .collect::<Result<_, _>>()?;
        Ok(crate::debug::RunFrom {
            scenario: self.scenario,
            solo: self.solo,
            every_agent: self.every_agent,
            seed: self.seed,
            dt: self.dt,
            at: self.at,
            watch: self.watch,
            select: self.select,
            triggers,
        })
    }
}

/// `dt` as `--dt` must be: a positive number of seconds.
fn check_dt(dt: f64) -> Result<(), String> {
    if dt.is_finite() && dt > 0.0 {
        Ok(())
    } else {
        Err(format!(
            "--dt must be a positive number of seconds, not {}",
            Num(dt)
        ))
    }
}

/// The catalogs of the projects that govern files, each project read once, its problems
/// printed once.
pub(super) struct Projects<'b> {
    base: &'b Catalog,
    explicit: Option<&'b std::path::Path>,
    loaded: Vec<ProjectCatalog>,
}

impl<'b> Projects<'b> {
    pub(super) fn new(base: &'b Catalog, explicit: Option<&'b std::path::Path>) -> Self {
        Self {
            base,
            explicit,
            loaded: Vec::new(),
        }
    }

    /// The index in `loaded` of the catalog for `file`; a project read for the first time
    /// prints its problems to `out` and adds their counts to `counts` (errors, warnings,
    /// unreadable files).
    fn index_for(
        &mut self,
        file: &std::path::Path,
        out: &mut dyn Write,
        counts: &mut (usize, usize, usize),
    ) -> usize {
        let project = self
            .explicit
            .map(std::path::Path::to_owned)
            .or_else(|| crate::io::project_for(file));
        self.index_of(project, out, counts)
    }

    /// The index in `loaded` of the catalog of the project file `project` (none: the
    /// built-in kinds alone), read and its problems printed as [`Projects::index_for`]
    /// does.
    pub(super) fn index_of(
        &mut self,
        project: Option<PathBuf>,
        out: &mut dyn Write,
        counts: &mut (usize, usize, usize),
    ) -> usize {
        if let Some(i) = self.loaded.iter().position(|c| c.project == project) {
            return i;
        }
        let loaded = ProjectCatalog::load(project.as_deref(), self.base);
        report_problems(&loaded.problems, out, counts);
        self.loaded.push(loaded);
        self.loaded.len() - 1
    }

    /// Whether `file` is a project or library file already read (its problems printed).
    fn has_read(&self, file: &std::path::Path) -> bool {
        self.loaded
            .iter()
            .flat_map(|p| &p.files)
            .any(|f| f == file || crate::io::same_file(f, file))
    }
}

/// Prints a project's problems as `validate` lines and counts them: a file that cannot be
/// read or parsed as unreadable, other errors and warnings as such.
fn report_problems(problems: &[Problem], out: &mut dyn Write, counts: &mut (usize, usize, usize)) {
    for p in problems {
        let _ = writeln!(out, "{p}");
        match p.severity {
            Severity::Warning => counts.1 += 1,
            Severity::Error if p.kind.is_none() => counts.2 += 1,
            Severity::Error => counts.0 += 1,
        }
    }
}

/// The exit code for counts of (errors, warnings, unreadable files).
fn code_of(counts: (usize, usize, usize)) -> u8 {
    match counts {
        (_, _, u) if u > 0 => EXIT_UNREADABLE,
        (e, _, _) if e > 0 => EXIT_ERRORS,
        _ => EXIT_OK,
    }
}

/// `arbor validate FILE...`: tree and scenario files with the kinds of the project that
/// governs each (`project` when given), node library and project files on their own.
pub fn validate(
    files: &[PathBuf],
    project: Option<&std::path::Path>,
    deny_warnings: bool,
    base: &Catalog,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let mut projects = Projects::new(base, project);
    let mut counts = (0, 0, 0);
    // The tree files of each project, read in the order given.
    let mut inputs: Vec<(usize, &PathBuf, Result<Input, LoadError>)> = Vec::new();
    for path in files {
        let input = read_input(path);
        let i = match &input {
            Ok(Input::Library(_) | Input::Project | Input::Trace) | Err(_) => usize::MAX,
            // The project of the tree or scenario the test runs (a test file that does not
            // read is said below).
            Ok(Input::Test(text)) => match crate::check::parse_test(text, path) {
                Ok(t) => {
                    let here = crate::check::project_of(&t, project);
                    projects.index_of(here, out, &mut counts)
                }
                Err(_) => usize::MAX,
            },
            Ok(_) => projects.index_for(path, out, &mut counts),
        };
        inputs.push((i, path, input));
    }
    let sets: Vec<TreeFiles<'_>> = projects
        .loaded
        .iter()
        .map(|p| TreeFiles::new(&p.catalog))
        .collect();
    let (mut errors, mut warnings, mut unreadable) = counts;
    let mut code = code_of(counts);
    // Said once: where a game's kinds would come from, for unknown kinds with no project.
    let mut hinted = false;
    for (i, path, input) in inputs {
        let text = match input {
            Ok(Input::Tree(text)) => text,
            // Read with the project of a tree before: its problems are printed already.
            Ok(Input::Library(_) | Input::Project) if projects.has_read(path) => continue,
            Ok(input @ (Input::Library(_) | Input::Project)) => {
                let problems = match input {
                    Input::Library(text) => crate::io::check_library(path, &text, base),
                    _ => ProjectCatalog::load(Some(path), base).problems,
                };
                let mut c = (0, 0, 0);
                report_problems(&problems, out, &mut c);
                (errors, warnings, unreadable) = (errors + c.0, warnings + c.1, unreadable + c.2);
                code = code.max(code_of(c));
                continue;
            }
            Ok(Input::Trace) => {
                let (w, u) = validate_trace(path, out, err);
                (warnings, unreadable) = (warnings + w, unreadable + u);
                if u > 0 {
                    code = EXIT_UNREADABLE;
                }
                continue;
            }
            Ok(Input::Test(text)) => {
                let (e, u) = validate_test(path, &text, projects.loaded.get(i), out);
                (errors, unreadable) = (errors + e, unreadable + u);
                code = code.max(match (u, e) {
                    (0, 0) => EXIT_OK,
                    (0, _) => EXIT_ERRORS,
                    _ => EXIT_UNREADABLE,
                });
                continue;
            }
            Ok(Input::Scenario(text)) => {
                let (e, w, u) = validate_scenario(path, &text, &sets[i], out, err);
                (errors, warnings, unreadable) = (errors + e, warnings + w, unreadable + u);
                code = code.max(match (u, e) {
                    (0, 0) => EXIT_OK,
                    (0, _) => EXIT_ERRORS,
                    _ => EXIT_UNREADABLE,
                });
                continue;
            }
            Err(e) => {
                let _ = writeln!(err, "{}", located(&e));
                unreadable += 1;
                code = EXIT_UNREADABLE;
                continue;
            }
        };
        let set = &sets[i];
        set.load_text(path, &text);
        match set.validate_file(path) {
            Ok(diags) => {
                for d in &diags {
                    let _ = writeln!(out, "{}: {d}", path.display());
                    match d.severity() {
                        Severity::Error => errors += 1,
                        Severity::Warning => warnings += 1,
                    }
                }
                let unknown = diags
                    .iter()
                    .any(|d| d.rule == crate::model::Rule::UnknownKind);
                if unknown && projects.loaded[i].project.is_none() && !hinted {
                    hinted = true;
                    let _ = writeln!(
                        err,
                        "note: no arbor.project.json was found in {}'s folder or above it: a game's own kinds come from the node libraries a project file lists (or give one with --project FILE)",
                        path.display()
                    );
                }
                if diags.iter().any(|d| d.is_error()) {
                    code = code.max(EXIT_ERRORS);
                }
            }
            Err(e) => {
                let _ = writeln!(err, "{}", located(&e));
                unreadable += 1;
                code = EXIT_UNREADABLE;
            }
        }
    }
    let denied = if deny_warnings && warnings > 0 {
        code = code.max(EXIT_ERRORS);
        " (denied)"
    } else {
        ""
    };
    let _ = writeln!(
        err,
        "checked {} file(s): {errors} error(s), {warnings} warning(s){denied}, {unreadable} unreadable",
        files.len()
    );
    code
}

/// Checks a behaviour test file: its shape, and that what it runs loads (with the kinds of
/// `here`, its project) and has the nodes, agents, entities and keys it names. (errors,
/// unreadable): a wrong test file is unreadable, as `arbor test` takes it (exit 2); a tree
/// that does not run is an error.
fn validate_test(
    path: &std::path::Path,
    text: &str,
    here: Option<&ProjectCatalog>,
    out: &mut dyn Write,
) -> (usize, usize) {
    use crate::check::{PrepareError, Prepared};
    let test = match crate::check::parse_test(text, path) {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(out, "{e}");
            return (0, 1);
        }
    };
    let Some(here) = here else {
        return (0, 1);
    };
    match Prepared::in_project(test, here) {
        Ok(_) => (0, 0),
        Err(e) => {
            let _ = writeln!(out, "{e}");
            match e {
                PrepareError::Unreadable(_) | PrepareError::File(_) => (0, 1),
                PrepareError::Broken(_) => (1, 0),
            }
        }
    }
}

/// Checks a trace, either encoding, event by event: a line or record that does not read
/// is printed to `err` (the file is unreadable), a last line cut off mid-write and a trace
/// with no events are warnings. (warnings, unreadable).
fn validate_trace(
    path: &std::path::Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> (usize, usize) {
    let unreadable = |e: crate::io::TraceError, err: &mut dyn Write| {
        let _ = writeln!(err, "{}", trace_error_line(&e));
        (0, 1)
    };
    let mut reader = match crate::io::TraceReader::open(path) {
        Ok(r) => r,
        Err(e) => return unreadable(e, err),
    };
    loop {
        match reader.next_event() {
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(e) => return unreadable(e, err),
        }
    }
    let mut warnings = 0;
    if let Some(cut) = reader.cut() {
        let _ = writeln!(out, "{}: warning: {}", cut.location(path), cut.message());
        warnings += 1;
    }
    if reader.events() == 0 {
        let _ = writeln!(
            out,
            "{}: warning: the trace holds no events",
            path.display()
        );
        warnings += 1;
    }
    (warnings, 0)
}

/// A trace error as a `validate` line: `FILE[:LINE]: error: MESSAGE`.
fn trace_error_line(e: &crate::io::TraceError) -> String {
    let place = if e.line > 0 {
        format!(":{}", e.line)
    } else {
        String::new()
    };
    format!("{}{place}: error: {}", e.path.display(), e.message)
}

/// Validates a scenario file and each tree file it names (once each); returns the counts
/// of errors, warnings and unreadable files.
fn validate_scenario(
    path: &std::path::Path,
    text: &str,
    set: &TreeFiles<'_>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> (usize, usize, usize) {
    let agents = match crate::world::parse_scenario(text, path) {
        Ok((_, agents)) => agents,
        Err(e) => {
            let _ = writeln!(err, "{}", scenario_error_line(&e));
            return (0, 0, 1);
        }
    };
    let (mut errors, mut warnings, mut unreadable) = (0, 0, 0);
    let mut seen: Vec<&std::path::Path> = Vec::new();
    for a in &agents {
        if seen.contains(&a.tree.as_path()) {
            continue;
        }
        seen.push(&a.tree);
        match set.validate_file(&a.tree) {
            Ok(diags) => {
                for d in &diags {
                    let _ = writeln!(out, "{}: {d}", a.tree.display());
                    match d.severity() {
                        Severity::Error => errors += 1,
                        Severity::Warning => warnings += 1,
                    }
                }
            }
            Err(e) => {
                let _ = writeln!(
                    err,
                    "{}: error: entity '{}': cannot load its tree: {}",
                    path.display(),
                    a.name,
                    located(&e)
                );
                unreadable += 1;
            }
        }
    }
    (errors, warnings, unreadable)
}

/// A scenario error as a `validate` line: `FILE[:LINE:COLUMN]: error: MESSAGE`.
fn scenario_error_line(e: &crate::world::ScenarioError) -> String {
    let place = e
        .place
        .as_deref()
        .map(|p| format!(":{p}"))
        .unwrap_or_default();
    let entity = e
        .entity
        .as_deref()
        .map(|n| format!("entity '{n}': "))
        .unwrap_or_default();
    format!("{}{place}: error: {entity}{}", e.path.display(), e.message)
}

/// A load error as a `validate` line: `FILE[:LINE:COLUMN]: error: MESSAGE`.
pub(super) fn located(e: &LoadError) -> String {
    match e {
        LoadError::Syntax {
            path,
            line,
            column,
            message,
        } => {
            format!("{}:{line}:{column}: error: {message}", path.display())
        }
        other => {
            let text = other.to_string();
            match text.split_once(": ") {
                Some((file, rest)) => format!("{file}: error: {rest}"),
                None => format!("error: {text}"),
            }
        }
    }
}

/// A file named on the command line, read once: a scenario, a node library, a project,
/// a behaviour test or a tree, by its header; or a trace (by its name or its first line;
/// not read here, as it may be large).
enum Input {
    Scenario(String),
    Library(String),
    Project,
    Test(String),
    Tree(String),
    Trace,
}

fn read_input(path: &std::path::Path) -> Result<Input, LoadError> {
    if crate::io::is_trace(path) {
        return Ok(Input::Trace);
    }
    let text = crate::io::read_text(path).map_err(|e| LoadError::Read {
        path: path.to_owned(),
        source: std::sync::Arc::new(e),
    })?;
    let format = crate::io::read_header(&text).and_then(|h| h.format);
    Ok(match format.as_deref() {
        Some(crate::io::LIBRARY_FORMAT) => Input::Library(text),
        Some(crate::io::PROJECT_FORMAT) => Input::Project,
        Some(crate::check::file::TEST_FORMAT) => Input::Test(text),
        _ if crate::world::is_scenario(&text) => Input::Scenario(text),
        _ => Input::Tree(text),
    })
}

/// A file to run, read once: a tree or a scenario, by its header.
enum Runnable {
    Scenario(String),
    Tree(String),
}

/// A file to run: a tree or a scenario; a node library or project file is refused.
fn read_run_input(path: &std::path::Path) -> Result<Runnable, LoadError> {
    match read_input(path)? {
        Input::Library(_) | Input::Project => Err(LoadError::Format {
            path: path.to_owned(),
            message:
                "this is a node library or project file, not a tree; run a tree or a scenario file"
                    .into(),
        }),
        Input::Test(_) => Err(LoadError::Format {
            path: path.to_owned(),
            message: format!(
                "this is a behaviour test file; run it with arbor test {}",
                path.display()
            ),
        }),
        Input::Trace => Err(LoadError::Format {
            path: path.to_owned(),
            message: format!(
                "this is a trace, a run recorded; replay it with arbor edit --trace {}",
                path.display()
            ),
        }),
        Input::Scenario(text) => Ok(Runnable::Scenario(text)),
        Input::Tree(text) => Ok(Runnable::Tree(text)),
    }
}

/// The canonical text of a node library or project file, or why it is not written: a file
/// with problems keeps its text, so that nothing in it is dropped.
fn canonical_library(text: &str, path: &std::path::Path, library: bool) -> Result<String, String> {
    if library {
        let (lib, problems) = crate::io::parse_library(text, path).map_err(|p| p.to_string())?;
        if let Some(p) = problems.first() {
            return Err(format!("{p} (not formatted: fix its problems first)"));
        }
        let out = lib.to_text()?;
        match crate::io::parse_library(&out, path) {
            Ok((back, _)) if back == lib => Ok(out),
            _ => Err(format!(
                "{}: not written: its canonical text would not load back to the same library",
                path.display()
            )),
        }
    } else {
        let project = crate::io::parse_project(text, path).map_err(|p| p.to_string())?;
        Ok(project.to_text())
    }
}

/// The simulation of the scenario file `scenario`, whose text was read already.
fn scenario_sim(
    scenario: &std::path::Path,
    text: &str,
    catalog: &Catalog,
    seed: u64,
) -> Result<crate::world::Simulation, crate::world::SimError> {
    let parsed = crate::world::parse_scenario(text, scenario)?;
    crate::world::Simulation::from_parsed(scenario, parsed, catalog, seed, None)
}

/// `arbor fmt [--check] FILE...`.
pub fn fmt(
    files: &[PathBuf],
    check: bool,
    diff: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let mut code = EXIT_OK;
    for path in files {
        // Each file is read once: the text decides whether it is a scenario or a tree.
        // A byte-order mark is not canonical: the file is formatted without it.
        let current = match crate::io::read_text_as_is(path) {
            Ok(text) => text,
            Err(e) => {
                let e = crate::io::LoadError::Read {
                    path: path.clone(),
                    source: std::sync::Arc::new(e),
                };
                let _ = writeln!(err, "{}", located(&e));
                code = EXIT_UNREADABLE;
                continue;
            }
        };
        let text = current.strip_prefix(crate::io::BOM).unwrap_or(&current);
        let format = crate::io::read_header(text).and_then(|h| h.format);
        let library = format.as_deref() == Some(crate::io::LIBRARY_FORMAT);
        let canonical = if library || format.as_deref() == Some(crate::io::PROJECT_FORMAT) {
            match canonical_library(text, path, library) {
                Ok(text) => text,
                Err(e) => {
                    let _ = writeln!(err, "{e}");
                    code = EXIT_UNREADABLE;
                    continue;
                }
            }
        } else if format.as_deref() == Some(crate::check::file::TEST_FORMAT) {
            // Test files keep their key order, as scenarios do; only the layout changes, so
            // a test file with mistakes in it is laid out too.
            match serde_json::from_str(text) {
                Ok(v) => crate::io::to_canonical_json(&v),
                Err(e) => {
                    let _ = writeln!(err, "{}:{}: error: {e}", path.display(), e.line());
                    code = EXIT_UNREADABLE;
                    continue;
                }
            }
        } else if crate::world::is_scenario(text) {
            // Scenarios keep their key order; only the layout is made canonical.
            if let Err(e) = crate::world::parse_scenario(text, path) {
                let _ = writeln!(err, "{}", scenario_error_line(&e));
                code = EXIT_UNREADABLE;
                continue;
            }
            match serde_json::from_str(text) {
                Ok(v) => crate::io::to_canonical_json(&v),
                Err(_) => continue, // unreachable: it parsed above
            }
        } else {
            match crate::io::parse_tree(text, path) {
                // Never write a text that does not load back to the same tree.
                Ok(t) => match crate::io::round_trip(&t, path) {
                    Ok(text) => text,
                    Err(e) => {
                        let _ = writeln!(err, "{}", located(&e));
                        code = EXIT_UNREADABLE;
                        continue;
                    }
                },
                Err(e) => {
                    let _ = writeln!(err, "{}", located(&e));
                    code = EXIT_UNREADABLE;
                    continue;
                }
            }
        };
        if canonical == current {
            continue;
        }
        if check {
            let _ = writeln!(out, "{}", path.display());
            if diff {
                let shown = path.display().to_string();
                let d = similar::TextDiff::from_lines(&current, &canonical);
                let _ = write!(
                    out,
                    "{}",
                    d.unified_diff()
                        .context_radius(2)
                        .header(&shown, &format!("{shown} (canonical)"))
                );
            }
            code = code.max(EXIT_ERRORS);
        } else if let Err(e) = write_atomically(path, canonical.as_bytes()) {
            let _ = writeln!(err, "{}", located(&e));
            code = EXIT_UNREADABLE;
        } else {
            let _ = writeln!(out, "formatted {}", path.display());
        }
    }
    code
}

/// `arbor convert IN OUT`: the trace IN written to OUT in the encoding OUT's name asks
/// for (or as JSON Lines to `out` for `-`); what was written is said on `err` when the
/// trace goes to `out`, else on `out`. Exit 2 when IN does not read or OUT cannot be
/// written.
pub fn convert(
    input: &std::path::Path,
    output: &std::path::Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let to_stdout = output.as_os_str() == "-";
    if to_stdout && let Err(e) = crate::io::check_stdout(&[input.to_owned()]) {
        let _ = writeln!(err, "{}", located(&e));
        return EXIT_UNREADABLE;
    }
    let converted = if to_stdout {
        crate::io::TraceReader::open(input).and_then(|mut reader| {
            crate::io::write_trace(
                &mut reader,
                crate::runtime::TraceEncoding::JsonLines,
                &mut *out,
                std::path::Path::new("standard output"),
            )
            .map(|(_, c)| c)
        })
    } else {
        crate::io::convert_trace(input, output)
    };
    let said: &mut dyn Write = if to_stdout { err } else { out };
    match converted {
        Ok(c) => {
            if let Some(cut) = c.cut {
                let _ = writeln!(
                    said,
                    "{}: warning: {}; the part left out is not converted",
                    cut.location(input),
                    cut.message()
                );
            }
            let encoding = match crate::runtime::TraceEncoding::for_path(output) {
                crate::runtime::TraceEncoding::Binary => "binary",
                crate::runtime::TraceEncoding::JsonLines => "JSON Lines",
            };
            let sizes = c.sizes.map_or(String::new(), |(i, o)| {
                format!("; {o} bytes (the input: {i})")
            });
            let _ = writeln!(
                said,
                "wrote {} ({encoding}): {} events, {} steps{sizes}",
                if to_stdout {
                    "standard output".into()
                } else {
                    output.display().to_string()
                },
                c.events,
                c.steps,
            );
            EXIT_OK
        }
        Err(e) => {
            let _ = writeln!(err, "{}", trace_error_line(&e));
            EXIT_UNREADABLE
        }
    }
}

/// `arbor kinds`: the catalog as a Markdown reference (docs/NODES.md is this output for
/// the built-in kinds); a library's kinds say which library they come from.
pub fn kinds(catalog: &Catalog, out: &mut dyn Write) -> u8 {
    let mut text = String::from(
        "# Node kinds\n\nGenerated by `arbor kinds` from the catalog; a test keeps this file current.\n",
    );
    for category in Category::ALL {
        let kinds: Vec<_> = catalog
            .kinds()
            .iter()
            .filter(|k| k.category == category)
            .collect();
        if kinds.is_empty() {
            continue;
        }
        text.push_str(&format!("\n## {}\n", category.label()));
        let inputs: Vec<&str> = category.inputs().iter().map(|p| p.name()).collect();
        if !inputs.is_empty() {
            text.push_str(&format!("\nInputs: `{}`.\n", inputs.join("`, `")));
        }
        for kind in kinds {
            text.push_str(&format!("\n### {}\n\n{}\n", kind.name, kind.help));
            if let crate::model::Origin::Library { library, file } = &kind.origin {
                let mut from = format!("\nFrom the node library `{library}` ({})", file.display());
                if !kind.group.is_empty() {
                    from.push_str(&format!(", group {}", kind.group));
                }
                match (&kind.stand_in, &kind.runs_as) {
                    (_, Some(r)) => from.push_str(&format!("; runs as `{r}`")),
                    (Some(s), _) => from.push_str(&format!("; stand-in script `{s}`")),
                    _ => {}
                }
                text.push_str(&from);
                text.push_str(".\n");
            }
            if kind.fields.is_empty() {
                continue;
            }
            text.push_str("\n| field | type | default | meaning |\n|---|---|---|---|\n");
            for f in &kind.fields {
                let default = match (&f.default, f.required) {
                    (_, true) => "required".to_owned(),
                    (Some(v), _) => format!("`{v}`"),
                    (None, _) => "none".to_owned(),
                };
                let unit = if f.unit.is_empty() {
                    String::new()
                } else {
                    format!(", in {}", f.unit)
                };
                text.push_str(&format!(
                    "| `{}` | {}{unit} | {default} | {} |\n",
                    f.name,
                    f.ty.describe(),
                    f.help
                ));
            }
        }
    }
    let _ = out.write_all(text.as_bytes());
    EXIT_OK
}

/// What `arbor run` runs: a tree file, for a number of steps.
pub struct RunArgs<'a> {
    /// The tree file.
    pub file: &'a std::path::Path,
    /// Steps after the start.
    pub steps: u64,
    /// Seconds per step.
    pub dt: f64,
    /// Random seed.
    pub seed: u64,
    /// Triggers, as given.
    pub triggers: &'a [String],
    /// Where the trace goes: a path, `-` for standard output, or nowhere.
    pub trace: Option<&'a std::path::Path>,
    /// A scenario to run `file` in, for every agent.
    pub scenario: Option<&'a std::path::Path>,
    /// Print the arena after the run.
    pub show: bool,
    /// Print the arena at the start and every K steps.
    pub show_every: Option<u64>,
    /// Breakpoints, as given (`NODE[:ON]`): the run stops at the first hit.
    pub breaks: &'a [String],
    /// The project file to take node libraries from, instead of the one found from FILE.
    pub project: Option<&'a std::path::Path>,
}

impl<'a> RunArgs<'a> {
    /// `arbor run FILE --steps STEPS`, every other option as the command line leaves it.
    pub fn new(file: &'a std::path::Path, steps: u64) -> Self {
        Self {
            file,
            steps,
            dt: 0.1,
            seed: 0,
            triggers: &[],
            trace: None,
            scenario: None,
            show: false,
            show_every: None,
            breaks: &[],
            project: None,
        }
    }
}

/// Where a trace goes.
struct TraceSink {
    trace: Option<crate::runtime::TraceWriter<Box<dyn Write>>>,
    to_stdout: bool,
    /// The agent of the last event [`TraceSink::logged`] wrote.
    agent: Option<usize>,
}

/// Where `--trace` writes: nowhere, standard output (`-`) or a file; and whether it is
/// standard output. A path that is one of the run's `inputs`, or not a regular file, is
/// refused ([`crate::io::create_output`]).
fn trace_writer(
    path: Option<&std::path::Path>,
    inputs: &[PathBuf],
) -> Result<(Option<Box<dyn Write>>, bool), String> {
    let to_stdout = path.is_some_and(|p| p.as_os_str() == "-");
    if to_stdout {
        crate::io::check_stdout(inputs).map_err(|e| located(&e))?;
    }
    let sink: Option<Box<dyn Write>> = match path {
        None => None,
        Some(_) if to_stdout => Some(Box::new(std::io::BufWriter::new(Escaped::new(
            std::io::stdout(),
        )))),
        Some(path) => match crate::io::create_output(path, inputs) {
            Ok(f) => Some(Box::new(std::io::BufWriter::new(f))),
            Err(e) => return Err(located(&e)),
        },
    };
    Ok((sink, to_stdout))
}

/// Why a simulation cannot run, on standard error; the exit code: 1 for a tree with
/// errors (or one that needs a world), 2 for what cannot be read.
fn sim_error(e: &crate::world::SimError, err: &mut dyn Write) -> u8 {
    use crate::world::SimError;
    match e {
        SimError::Scenario(e) => {
            let _ = writeln!(err, "{}", scenario_error_line(e));
            EXIT_UNREADABLE
        }
        SimError::Invalid { .. } | SimError::Unrunnable { .. } | SimError::NeedsScenario { .. } => {
            let _ = writeln!(err, "{e}");
            EXIT_ERRORS
        }
        SimError::Tree { .. } => {
            let _ = writeln!(err, "{e}");
            EXIT_UNREADABLE
        }
    }
}

/// The header of a traced run of `agents` (each with its tree file) by `args`, which read
/// `inputs`.
fn header_of(
    args: &RunArgs<'_>,
    agents: &[(String, PathBuf)],
    inputs: &[PathBuf],
) -> crate::runtime::TraceHeader {
    crate::io::trace_header(args.dt, args.seed, agents, inputs, args.trace)
}

impl TraceSink {
    /// The trace of a run by `args` of `agents` (each with its tree file; the first's
    /// events come first), which read `inputs`: its header is written at once.
    fn open(
        args: &RunArgs<'_>,
        agents: &[(String, PathBuf)],
        inputs: &[PathBuf],
    ) -> Result<Self, String> {
        let (sink, to_stdout) = trace_writer(args.trace, inputs)?;
        let first = agents.first().map_or("", |(name, _)| name.as_str());
        let encoding = args.trace.map_or(
            crate::runtime::TraceEncoding::JsonLines,
            crate::runtime::TraceEncoding::for_path,
        );
        let trace = sink.map(|w| {
            let mut t = crate::runtime::TraceWriter::new(encoding, w, first);
            t.write_header(&header_of(args, agents, inputs));
            t
        });
        Ok(Self {
            trace,
            to_stdout,
            agent: None,
        })
    }

    fn observer(&mut self) -> Option<&mut dyn crate::runtime::Observer> {
        self.trace
            .as_mut()
            .map(|t| t as &mut dyn crate::runtime::Observer)
    }

    /// Writes event `e` of a debugging session.
    fn logged(&mut self, session: &crate::debug::Session, e: &crate::debug::Logged) {
        use crate::runtime::Observer;
        let Some(trace) = &mut self.trace else {
            return;
        };
        if self.agent != Some(e.agent) {
            trace.set_agent(
                session
                    .agent_names()
                    .get(e.agent)
                    .map_or("", String::as_str),
            );
            self.agent = Some(e.agent);
        }
        trace.event(&crate::runtime::Event {
            step: e.step,
            node: e.node,
            node_id: session.node_id(e).unwrap_or(""),
            kind: e.kind.map(|t| &**t),
        });
    }

    fn finish(self) -> Result<(), String> {
        match self.trace.map(crate::runtime::TraceWriter::finish) {
            Some(Err(e)) => Err(format!("error: writing the trace failed: {e}")),
            _ => Ok(()),
        }
    }
}

/// `arbor run FILE ...`: a scenario (by its header, or FILE in `--scenario`), or a tree of
/// nodes that need no world (mock nodes, stand-ins of library kinds), with the kinds of
/// the project that governs FILE (or `args.project`) over `base`.
pub fn run(args: &RunArgs<'_>, base: &Catalog, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let project = ProjectCatalog::for_tree(Some(args.file), args.project, base);
    for p in &project.problems {
        let _ = writeln!(err, "{p}");
    }
    run_with(args, &project.catalog, out, err)
}

fn run_with(args: &RunArgs<'_>, catalog: &Catalog, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    use crate::runtime::{Behaviours, CtxValue, Instance, Program};
    use std::sync::Arc;

    if let Err(e) = check_dt(args.dt) {
        let _ = writeln!(err, "error: {e}");
        return EXIT_UNREADABLE;
    }
    let triggers: Vec<TriggerArg> = match args.triggers.iter().map(|t| parse_trigger(t)).collect() {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return EXIT_UNREADABLE;
        }
    };
    if !args.breaks.is_empty() {
        return run_to_break(args, &triggers, catalog, out, err);
    }
    if let Some(scenario) = args.scenario {
        let load = || crate::world::Simulation::load(scenario, catalog, args.seed, Some(args.file));
        return run_scenario(scenario, load, args, &triggers, out, err);
    }
    let text = match read_run_input(args.file) {
        Ok(Runnable::Tree(text)) => text,
        Ok(Runnable::Scenario(text)) => {
            let load = || scenario_sim(args.file, &text, catalog, args.seed);
            return run_scenario(args.file, load, args, &triggers, out, err);
        }
        Err(e) => {
            let _ = writeln!(err, "{}", located(&e));
            return EXIT_UNREADABLE;
        }
    };
    if args.show || args.show_every.is_some() {
        let _ = writeln!(
            err,
            "error: --show and --show-every draw the arena of a scenario; {} is a tree (add --scenario FILE)",
            args.file.display()
        );
        return EXIT_UNREADABLE;
    }
    let files = TreeFiles::new(catalog);
    let tree = match &*files.load_text(args.file, &text) {
        Ok(t) => t.clone(),
        Err(e) => {
            let _ = writeln!(err, "{}", located(e));
            return EXIT_UNREADABLE;
        }
    };
    let assets = files.assets_for(args.file);
    let behaviours = Behaviours::<()>::with_builtins().with_stand_ins();
    let program = match Program::compile(&tree, catalog, &assets, &behaviours) {
        Ok(p) => Arc::new(p),
        Err(crate::runtime::CompileError::Invalid(diags)) => {
            for d in diags {
                let _ = writeln!(err, "{}: {d}", args.file.display());
            }
            let _ = writeln!(
                err,
                "{}: the tree has errors and does not run",
                args.file.display()
            );
            return EXIT_ERRORS;
        }
        Err(e) => {
            let _ = writeln!(err, "{}: error: {e}", args.file.display());
            let world = crate::world::world_kinds(&tree);
            if !world.is_empty() {
                let _ = writeln!(
                    err,
                    "hint: {} run only in the world: arbor run SCENARIO.json, or arbor run {} --scenario SCENARIO.json",
                    world.join(", "),
                    args.file.display()
                );
            }
            return EXIT_ERRORS;
        }
    };
    let triggers = match resolve_triggers(&triggers, &program.named_interrupts()) {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return EXIT_UNREADABLE;
        }
    };
    let agent_name = args
        .file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "agent".into());
    let agents = [(agent_name, args.file.to_owned())];
    let mut sink = match TraceSink::open(args, &agents, &files.paths()) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(err, "{e}");
            return EXIT_UNREADABLE;
        }
    };
    let mut instance = Instance::new(program.clone(), args.seed);
    let mut steps = Progress::steps(args.steps);
    for step in 1..=args.steps {
        if !steps.go_on() {
            break;
        }
        for t in triggers.iter().filter(|t| t.step == step) {
            instance.trigger(
                &t.id,
                t.value.as_ref().map(|v| CtxValue::Text(v.as_str().into())),
            );
        }
        instance.step(args.dt, &mut (), sink.observer());
        steps.taken(step);
    }
    let stopped = steps.finish();
    let to_stdout = sink.to_stdout;
    if let Err(e) = sink.finish() {
        let _ = writeln!(err, "{e}");
        return EXIT_UNREADABLE;
    }
    let summary: &mut dyn Write = if to_stdout { err } else { out };
    let stats = instance.stats();
    let _ = writeln!(
        summary,
        "{}: {} steps of {} s, seed {}",
        args.file.display(),
        steps.done,
        Num(args.dt),
        args.seed
    );
    let _ = writeln!(
        summary,
        "runs completed: {} ({} success, {} failure); stalls: {}; context resets: {}; interrupts: {}",
        stats.succeeded + stats.failed,
        stats.succeeded,
        stats.failed,
        stats.stalls,
        stats.context_missing,
        stats.interrupts
    );
    let active: Vec<&str> = instance
        .active_leaves()
        .iter()
        .map(|&i| program.node_ids()[i as usize].as_str())
        .collect();
    let _ = writeln!(
        summary,
        "running now: {}",
        if active.is_empty() {
            "nothing".to_owned()
        } else {
            active.join(", ")
        }
    );
    let context: Vec<String> = program
        .keys()
        .iter()
        .enumerate()
        .filter_map(|(k, name)| {
            instance
                .context()
                .get(k as u16)
                .map(|v| format!("{name} = {v}"))
        })
        .collect();
    let _ = writeln!(
        summary,
        "context: {}",
        if context.is_empty() {
            "empty".to_owned()
        } else {
            context.join(", ")
        }
    );
    if stopped {
        return interrupted(summary, &steps);
    }
    EXIT_OK
}

/// Queues the triggers given for `step` (`ID` for every agent whose tree has it, `ID@AGENT`
/// for one) through `trigger`, which returns how many agents took it; warns of those none
/// took.
fn queue_triggers(
    step: u64,
    triggers: &[TriggerArg],
    err: &mut dyn Write,
    mut trigger: impl FnMut(Option<&str>, &str, Option<&str>) -> usize,
) {
    for t in triggers.iter().filter(|t| t.step == step) {
        let (id, agent) = match t.id.split_once('@') {
            Some((id, agent)) => (id, Some(agent)),
            None => (t.id.as_str(), None),
        };
        if trigger(agent, id, t.value.as_deref()) == 0 {
            let _ = writeln!(
                err,
                "warning: step {step}: no agent {} the Interrupt '{id}'; trigger ignored",
                agent.map_or("has".to_owned(), |a| format!("named '{a}' has"))
            );
        }
    }
}

/// The triggers with their Interrupts named by id (`ID` or `ID@AGENT`, the Interrupt given
/// by id or title); an Interrupt no tree has is an error.
fn resolve_triggers(
    triggers: &[TriggerArg],
    interrupts: &[names::Named],
) -> Result<Vec<TriggerArg>, String> {
    triggers
        .iter()
        .map(|t| {
            let (name, agent) = match t.id.split_once('@') {
                Some((name, agent)) => (name, Some(agent)),
                None => (t.id.as_str(), None),
            };
            let id = names::resolve(name, interrupts, "Interrupt")
                .map_err(|e| format!("--trigger {}:{}: {e}", t.step, t.id))?;
            Ok(TriggerArg {
                step: t.step,
                id: agent.map_or_else(|| id.clone(), |a| format!("{id}@{a}")),
                value: t.value.clone(),
            })
        })
        .collect()
}

/// Parses `NODE[:ON]`.
pub fn parse_break(text: &str) -> Result<crate::debug::Breakpoint, String> {
    use crate::debug::{BreakOn, Breakpoint};
    let (node, on) = match text.rsplit_once(':') {
        Some((node, on)) => {
            let on = BreakOn::from_name(on.trim()).ok_or_else(|| {
                let all: Vec<&str> = BreakOn::ALL.iter().map(|b| b.name()).collect();
                format!(
                    "--break '{text}': '{on}' is not a condition; use one of {}",
                    all.join(", ")
                )
            })?;
            (node, on)
        }
        None => (text, BreakOn::Enter),
    };
    if node.trim().is_empty() {
        return Err(format!("--break '{text}': the node id is empty"));
    }
    Ok(Breakpoint {
        node: node.trim().to_owned(),
        on,
    })
}

/// `arbor run … --break NODE[:ON]`: the run goes through a debugging session (the one the
/// editor draws) and stops at the first step where a breakpoint hits. A tree file runs
/// alone in an empty world, as without `--break`.
fn run_to_break(
    args: &RunArgs<'_>,
    triggers: &[TriggerArg],
    catalog: &Catalog,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    use crate::debug::Session;
    use crate::world::Simulation;

    let breakpoints: Vec<_> = match args.breaks.iter().map(|b| parse_break(b)).collect() {
        Ok(b) => b,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return EXIT_UNREADABLE;
        }
    };
    let read = match args.scenario {
        Some(scenario) => Ok(Simulation::load(
            scenario,
            catalog,
            args.seed,
            Some(args.file),
        )),
        None => read_run_input(args.file).and_then(|input| match input {
            Runnable::Scenario(text) => Ok(scenario_sim(args.file, &text, catalog, args.seed)),
            Runnable::Tree(text) => crate::io::parse_tree(&text, args.file)
                .map(|tree| Simulation::solo(Some(args.file), &tree, catalog, args.seed)),
        }),
    };
    let loaded = match read {
        Ok(loaded) => loaded,
        Err(e) => {
            let _ = writeln!(err, "{}", located(&e));
            return EXIT_UNREADABLE;
        }
    };
    let sim = match loaded {
        Ok(s) => s,
        Err(e) => return sim_error(&e, err),
    };
    // Nodes and Interrupts named by id or by title.
    let nodes = sim.named_nodes(false, None);
    let breakpoints: Result<Vec<_>, String> = breakpoints
        .into_iter()
        .map(|b| {
            names::resolve(&b.node, &nodes, "node")
                .map(|node| crate::debug::Breakpoint { node, on: b.on })
                .map_err(|e| format!("--break '{}': {e}", b.node))
        })
        .collect();
    let resolved = breakpoints
        .and_then(|b| resolve_triggers(triggers, &sim.named_nodes(true, None)).map(|t| (b, t)));
    let (breakpoints, triggers) = match resolved {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return EXIT_UNREADABLE;
        }
    };
    let triggers = triggers.as_slice();
    // No history and no timeline: the run only goes forward, in bounded memory.
    let mut session = Session::forward_only(sim, args.dt);
    let agents: Vec<(String, PathBuf)> = session
        .sim()
        .agents()
        .map(|a| (a.name.clone(), a.tree.clone()))
        .collect();
    let mut sink = match TraceSink::open(args, &agents, session.sim().inputs()) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(err, "{e}");
            return EXIT_UNREADABLE;
        }
    };
    let mut hits = Vec::new();
    let mut steps = Progress::steps(args.steps);
    for step in 1..=args.steps {
        if !steps.go_on() {
            break;
        }
        queue_triggers(step, triggers, err, |agent, id, value| {
            session.trigger(agent, id, value)
        });
        hits = session.step(&breakpoints);
        steps.taken(step);
        // The start's events (step 0) come with the first step's.
        for e in session.events().filter(|e| e.step.max(1) == step) {
            sink.logged(&session, e);
        }
        if !hits.is_empty() {
            break;
        }
    }
    let stopped = steps.finish();
    let to_stdout = sink.to_stdout;
    if let Err(e) = sink.finish() {
        let _ = writeln!(err, "{e}");
        return EXIT_UNREADABLE;
    }
    let summary: &mut dyn Write = if to_stdout { err } else { out };
    let names = session.agent_names();
    for h in &hits {
        let _ = writeln!(
            summary,
            "breakpoint: {} on {} of {} at step {}",
            h.breakpoint.node,
            h.breakpoint.on.name(),
            names.get(h.agent).map_or("", String::as_str),
            h.step
        );
    }
    if hits.is_empty() {
        let _ = writeln!(summary, "no breakpoint hit in {} steps", steps.done);
    }
    for a in session.sim().summary() {
        let _ = writeln!(summary, "{a}");
    }
    if stopped {
        return interrupted(summary, &steps);
    }
    if hits.is_empty() {
        EXIT_NO_BREAK
    } else {
        EXIT_OK
    }
}

/// `arbor run SCENARIO` (or `arbor run TREE --scenario SCENARIO`): every agent's tree in the
/// simulated world; a summary per agent, the optional trace and arena drawings.
/// `load` makes the simulation of `scenario` (from its file, or from its text already read).
fn run_scenario(
    scenario: &std::path::Path,
    load: impl FnOnce() -> Result<crate::world::Simulation, crate::world::SimError>,
    args: &RunArgs<'_>,
    triggers: &[TriggerArg],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    if args.show_every == Some(0) {
        let _ = writeln!(err, "error: --show-every must be 1 or more steps");
        return EXIT_UNREADABLE;
    }

    let mut sim = match load() {
        Ok(s) => s,
        Err(e) => return sim_error(&e, err),
    };
    let triggers = match resolve_triggers(triggers, &sim.named_nodes(true, None)) {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return EXIT_UNREADABLE;
        }
    };
    let triggers = triggers.as_slice();
    let agents: Vec<(String, PathBuf)> = sim
        .agents()
        .map(|a| (a.name.clone(), a.tree.clone()))
        .collect();
    let mut sink = match TraceSink::open(args, &agents, sim.inputs()) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(err, "{e}");
            return EXIT_UNREADABLE;
        }
    };
    // The arena goes with the summary: to standard error when the trace has standard
    // output. Drawn as the run goes, so a long run keeps no drawings.
    let to_stdout = sink.to_stdout;
    let every = args.show_every;
    let drawing =
        |sim: &crate::world::Simulation, first: bool, out: &mut dyn Write, err: &mut dyn Write| {
            let to: &mut dyn Write = if to_stdout { err } else { out };
            let _ = write!(to, "{}{}", if first { "" } else { "\n" }, sim.render());
        };
    if every.is_some() {
        drawing(&sim, true, out, err);
    }
    let mut steps = Progress::steps(args.steps);
    for step in 1..=args.steps {
        if !steps.go_on() {
            break;
        }
        queue_triggers(step, triggers, err, |agent, id, value| {
            sim.trigger(agent, id, value)
        });
        sim.step(args.dt, sink.observer());
        steps.taken(step);
        if every.is_some_and(|k| step % k == 0) {
            drawing(&sim, false, out, err);
        }
    }
    let stopped = steps.finish();
    if let Err(e) = sink.finish() {
        let _ = writeln!(err, "{e}");
        return EXIT_UNREADABLE;
    }
    let summary: &mut dyn Write = if to_stdout { err } else { out };
    if every.is_some() {
        let _ = writeln!(summary);
    } else if args.show {
        let _ = writeln!(summary, "{}", sim.render());
    }
    let _ = writeln!(
        summary,
        "{}: {} agent(s), {} steps of {} s, seed {}",
        scenario.display(),
        sim.agents().count(),
        steps.done,
        Num(args.dt),
        args.seed
    );
    for a in sim.summary() {
        let _ = writeln!(summary, "{a}");
    }
    if stopped {
        return interrupted(summary, &steps);
    }
    EXIT_OK
}
