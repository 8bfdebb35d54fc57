//! The command line: argument parsing and the headless commands (SEMANTICS.md §5), one
//! module each; what they share (exit codes, `--dt`, reading the files named and saying
//! why one does not read, the project that governs a file) is here and in `input` and
//! `projects`.
//!
//! Each command writes to the given streams and returns the process exit code, so tests
//! can run it in-process as well as through the binary.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::model::names::Num;

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

#[cfg(feature = "groot2")]
mod attach;
mod btcpp;
mod convert;
mod coverage;
mod fmt;
mod input;
mod kinds;
mod projects;
mod rename;
mod run;
mod steps;
mod terminal;
mod test;
mod validate;
pub use crate::check::shard::Partition;
pub use crate::debug::parse_break;
#[cfg(feature = "groot2")]
pub use attach::{AttachArgs, attach};
pub use btcpp::{Direction, transfer};
pub use convert::convert;
pub use coverage::{CoverageArgs, coverage, coverage_merge};
pub use fmt::{Formatting, fmt};
pub use kinds::kinds;
pub use rename::rename_kind;
pub use run::{RunArgs, run};
pub use steps::interrupt;
pub use terminal::{Escaped, shown};
pub use test::{merge_junit, shard_from_env, test};
pub use validate::validate;
// For the commands in their own modules.
use input::located;
use projects::Projects;

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
        /// Watch the running BehaviorTree.CPP program whose Groot2Publisher listens at
        /// ADDRESS (PORT, HOST:PORT or [IPV6]:PORT), as File > Attach to BehaviorTree.CPP…
        /// does: shown live as soon as it answers.
        #[cfg(feature = "groot2")]
        #[arg(long, value_name = "ADDRESS", conflicts_with_all = ["trace", "game"])]
        attach: Option<String>,
        /// How often a BehaviorTree.CPP program attached to is polled, a second (20):
        /// `--attach`'s and File > Attach to BehaviorTree.CPP…'s.
        #[cfg(feature = "groot2")]
        #[arg(long, value_name = "HZ")]
        hz: Option<f64>,
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
        /// Run one shard of the (test, seed) pairs: count:M/N (every Nth, from the Mth),
        /// slice:M/N (the Mth of N runs of them) or hash:M/N (by each pair's file and
        /// seed; a bare M/N too). Without it, TEST_TOTAL_SHARDS and TEST_SHARD_INDEX (from
        /// 0), when set, choose count:INDEX+1/TOTAL.
        #[arg(long, value_name = "HOW:M/N")]
        partition: Option<String>,
    },
    /// How often each node was entered, succeeded, failed and was aborted over many runs,
    /// the nodes never entered first. Exit 1 below `--min`; Ctrl+C stops the runs between
    /// two steps, prints the table of the steps taken and exits 130.
    #[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
    Coverage {
        /// `merge`: add up the coverage files of a run's shards.
        #[command(subcommand)]
        merge: Option<CoverageMerge>,
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
        /// How what was counted is shown.
        #[command(flatten)]
        report: CoverageReport,
        /// Run one shard of the (file, seed) runs, as `arbor test --partition` does
        /// (count:M/N, slice:M/N or hash:M/N); with --json, its coverage file, for
        /// `arbor coverage merge`. Not with traces.
        #[arg(long, value_name = "HOW:M/N")]
        partition: Option<String>,
    },
    /// Print the node kinds this build and the project's node libraries know, with their
    /// fields, as Markdown.
    Kinds,
    /// Record a running BehaviorTree.CPP program into a trace, without a window: attach to
    /// its Groot2Publisher at ADDRESS (PORT, HOST:PORT or [IPV6]:PORT; the program's
    /// publisher listens on PORT and PORT + 1), write the tree it runs beside FILE as
    /// NAME.recorded.xml and every status change and blackboard value to FILE (binary
    /// when its name ends in `.arbtrace`, else JSON Lines), until --seconds have passed,
    /// the program stops answering, or Ctrl+C. Waits for a program not started yet.
    #[cfg(feature = "groot2")]
    Attach {
        /// Where the program's Groot2Publisher listens.
        address: String,
        /// The trace to write.
        #[arg(long, value_name = "FILE")]
        record: PathBuf,
        /// Stop after this many seconds.
        #[arg(long, value_name = "N")]
        seconds: Option<f64>,
        /// Polls a second.
        #[arg(long, default_value_t = 20.0)]
        hz: f64,
        /// How long a request waits for the program's answer, in milliseconds.
        #[arg(long, default_value_t = 2000, value_name = "MS")]
        timeout: u64,
    },
    /// Write a trace again in the other encoding: binary when OUT's name ends in
    /// `.arbtrace`, else JSON Lines (`-`: JSON Lines on standard output). IN is either; a
    /// last line cut off mid-write is left out and said.
    Convert {
        /// The trace to read.
        input: PathBuf,
        /// Where to write it (never IN itself).
        output: PathBuf,
    },
    /// Write the tree of a BehaviorTree.CPP XML file (docs/BTCPP.md) as an Arbor tree file:
    /// to OUT, into OUT when it is a folder, or beside FILE as NAME.json.
    Import {
        /// The BehaviorTree.CPP file.
        input: PathBuf,
        /// Where to write the tree.
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
    },
    /// Write an Arbor tree file as a BehaviorTree.CPP XML file (docs/BTCPP.md): to OUT, into
    /// OUT when it is a folder, or beside TREE as NAME.xml.
    Export {
        /// The Arbor tree file.
        input: PathBuf,
        /// Where to write the XML.
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
    },
    /// Make every node of kind FROM a TO in each tree of the project (`--project`, else
    /// the one that governs this folder), as after FROM was renamed TO in a node library:
    /// each keeps its id, links and the fields TO has; what one loses is listed.
    RenameKind {
        /// The kind's old name.
        from: String,
        /// Its new name, a kind of the project.
        to: String,
        /// List what would change and write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Merge the JUnit reports of the shards of one `arbor test` run (`--partition …
    /// --junit`) into one, as a single run writes it.
    MergeJunit {
        /// The shards' reports.
        #[arg(required = true)]
        reports: Vec<PathBuf>,
        /// Where to write the merged report.
        #[arg(short, long, value_name = "OUT")]
        output: PathBuf,
    },
    /// Rewrite tree, scenario, node library and project files in canonical form (stable
    /// key order, two-space indent); a BehaviorTree.CPP file (`.xml`) through Arbor's
    /// model, as the editor saves it.
    Fmt {
        /// Change nothing: list the files that are not canonical and exit 1 if any.
        #[arg(long)]
        check: bool,
        /// With --check: print how each file differs from its canonical form (a unified
        /// diff).
        #[arg(long, requires = "check")]
        diff: bool,
        /// Declare in each tree file the keys it uses and does not declare yet (nor its
        /// project), typed by what writes them.
        #[arg(long)]
        declare_keys: bool,
        /// Files to format.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

/// `arbor coverage merge`.
#[derive(Debug, Subcommand)]
pub enum CoverageMerge {
    /// Add up the coverage files (`--json`) of the shards of one run
    /// (`--partition M/N`): the result is the run's, as one job would count it. Exit 2
    /// when the files are not shards of one run (other trees, another version of a tree).
    Merge {
        /// The shards' coverage files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// How the sum is shown.
        #[command(flatten)]
        report: CoverageReport,
    },
}

/// How `arbor coverage` (and `coverage merge`) shows what was counted.
#[derive(Debug, Default, clap::Args)]
pub struct CoverageReport {
    /// Print the counts as JSON (a coverage file, which View > Coverage opens in the editor).
    #[arg(long)]
    pub json: bool,
    /// Fail (exit 1) when less than PERCENT of the nodes were entered: of each tree
    /// `--tree` names, else of all the trees together. The message lists each tree.
    #[arg(long, value_name = "PERCENT")]
    pub min: Option<f64>,
    /// Report only this tree (the runs still run every agent's): the table, the JSON
    /// and `--min` are of it. Again for more trees; one no run entered is an error.
    #[arg(long = "tree", value_name = "FILE")]
    pub trees: Vec<PathBuf>,
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
            .map(|t| crate::world::Trigger::parse(t))
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
