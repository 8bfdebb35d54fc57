//! `arbor run`: a tree alone, or a scenario's agents in the simulated world, for a
//! number of steps; with `--break`, through a debugging session that stops at the first
//! breakpoint hit. A summary at the end, the trace as the run goes.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::input::{Input, located, read_input, scenario_error_line};
use super::steps::Progress;
use super::{
    EXIT_ERRORS, EXIT_INTERRUPTED, EXIT_NO_BREAK, EXIT_OK, EXIT_UNREADABLE, Escaped, check_dt,
};
use crate::debug::parse_break;
use crate::io::{LoadError, ProjectCatalog};
use crate::model::Catalog;
use crate::model::names::{self, Num};
use crate::runtime::Instance;
use crate::world::{SimError, Simulation, Trigger, World};

/// The line a run stopped by Ctrl+C ends its summary with; the exit code.
fn interrupted(summary: &mut dyn Write, steps: &Progress) -> u8 {
    let _ = writeln!(summary, "interrupted (Ctrl+C) after step {}", steps.done);
    EXIT_INTERRUPTED
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
        SimError::Invalid { .. }
        | SimError::Unrunnable { .. }
        | SimError::NeedsScenario { .. }
        | SimError::Keys { .. } => {
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
    if let Err(e) = check_dt(args.dt) {
        let _ = writeln!(err, "error: {e}");
        return EXIT_UNREADABLE;
    }
    let triggers: Vec<Trigger> = match args.triggers.iter().map(|t| Trigger::parse(t)).collect() {
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
        let load = || Simulation::load(scenario, catalog, args.seed, Some(args.file));
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
    match alone(args.file, &text, catalog, args.seed, err) {
        Ok(sim) => run_sim(Ran::Alone(args.file), sim, args, &triggers, out, err),
        Err(code) => code,
    }
}

/// The tree file `file` (its text read already) run alone ([`Simulation::solo`]); why it
/// cannot run on `err`, and the exit code: 2 for a file that does not parse, 1 for a tree
/// with errors or one of world nodes (with a hint of how to run it in a scenario).
fn alone(
    file: &Path,
    text: &str,
    catalog: &Catalog,
    seed: u64,
    err: &mut dyn Write,
) -> Result<Simulation, u8> {
    let mut tree = crate::io::parse_tree(text, file).map_err(|e| {
        let _ = writeln!(err, "{}", located(&e));
        EXIT_UNREADABLE
    })?;
    crate::io::fit_to_kinds(file, &mut tree, catalog);
    Simulation::solo(Some(file), &tree, catalog, seed).map_err(|e| {
        let shown = file.display();
        match e {
            SimError::Unrunnable {
                problems,
                invalid: true,
                ..
            } => {
                for p in problems {
                    let _ = writeln!(err, "{shown}: {p}");
                }
                let _ = writeln!(err, "{shown}: the tree has errors and does not run");
            }
            SimError::Unrunnable { problems, .. } => {
                for p in problems {
                    let _ = writeln!(err, "{shown}: error: {p}");
                }
            }
            SimError::NeedsScenario { kinds, first, .. } => {
                let _ = writeln!(err, "{shown}: error: {first}");
                let _ = writeln!(
                    err,
                    "hint: {} run only in the world: arbor run SCENARIO.json, or arbor run {shown} --scenario SCENARIO.json",
                    kinds.join(", "),
                );
            }
            e => return sim_error(&e, err),
        }
        EXIT_ERRORS
    })
}

/// Queues the triggers given for `step` (`ID` for every agent whose tree has it, `ID@AGENT`
/// for one) through `trigger`, which returns how many agents took it; warns of those none
/// took.
fn queue_triggers(
    step: u64,
    triggers: &[Trigger],
    err: &mut dyn Write,
    mut trigger: impl FnMut(Option<&str>, &str, Option<&str>) -> usize,
) {
    for t in triggers.iter().filter(|t| t.step == step) {
        let (id, agent) = (t.id.as_str(), t.agent.as_deref());
        if trigger(agent, id, t.payload.as_deref()) == 0 {
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
    triggers: &[Trigger],
    interrupts: &[names::Named],
) -> Result<Vec<Trigger>, String> {
    triggers
        .iter()
        .map(|t| {
            let id = names::resolve(&t.id, interrupts, "Interrupt")
                .map_err(|e| format!("--trigger {t}: {e}"))?;
            Ok(Trigger { id, ..t.clone() })
        })
        .collect()
}

/// `arbor run … --break NODE[:ON]`: the run goes through a debugging session (the one the
/// editor draws) and stops at the first step where a breakpoint hits. A tree file runs
/// alone in an empty world, as without `--break`.
fn run_to_break(
    args: &RunArgs<'_>,
    triggers: &[Trigger],
    catalog: &Catalog,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    use crate::debug::Session;

    let breakpoints: Vec<_> = match args.breaks.iter().map(|b| parse_break(b)).collect() {
        Ok(b) => b,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return EXIT_UNREADABLE;
        }
    };
    // A tree file alone has no world to say anything of.
    let mut in_world = true;
    let sim = match args.scenario {
        Some(scenario) => Simulation::load(scenario, catalog, args.seed, Some(args.file))
            .map_err(|e| sim_error(&e, err)),
        None => match read_run_input(args.file) {
            Ok(Runnable::Scenario(text)) => {
                scenario_sim(args.file, &text, catalog, args.seed).map_err(|e| sim_error(&e, err))
            }
            Ok(Runnable::Tree(text)) => {
                in_world = false;
                alone(args.file, &text, catalog, args.seed, err)
            }
            Err(e) => {
                let _ = writeln!(err, "{}", located(&e));
                Err(EXIT_UNREADABLE)
            }
        },
    };
    let sim = match sim {
        Ok(s) => s,
        Err(code) => return code,
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
    if in_world {
        for a in session.sim().summary() {
            let _ = writeln!(summary, "{a}");
        }
    } else if let Some(instance) = agents
        .first()
        .and_then(|(name, _)| session.sim().instance(name))
    {
        alone_summary(instance, summary);
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

/// What a run runs, for its summary: a scenario's agents, or a tree file alone.
#[derive(Clone, Copy)]
enum Ran<'p> {
    Scenario(&'p Path),
    Alone(&'p Path),
}

/// `arbor run SCENARIO` (or `arbor run TREE --scenario SCENARIO`): every agent's tree in the
/// simulated world. `load` makes the simulation of `scenario` (from its file, or from its
/// text already read).
fn run_scenario(
    scenario: &Path,
    load: impl FnOnce() -> Result<Simulation, SimError>,
    args: &RunArgs<'_>,
    triggers: &[Trigger],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    if args.show_every == Some(0) {
        let _ = writeln!(err, "error: --show-every must be 1 or more steps");
        return EXIT_UNREADABLE;
    }
    match load() {
        Ok(sim) => run_sim(Ran::Scenario(scenario), sim, args, triggers, out, err),
        Err(e) => sim_error(&e, err),
    }
}

/// Runs `sim` for `args.steps` steps with the triggers given; the optional trace and arena
/// drawings as it goes, then the summary of what `ran`: a line per agent of a scenario,
/// the runs, running leaves and context of a tree alone.
fn run_sim(
    ran: Ran<'_>,
    mut sim: Simulation,
    args: &RunArgs<'_>,
    triggers: &[Trigger],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
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
    let drawing = |sim: &Simulation, first: bool, out: &mut dyn Write, err: &mut dyn Write| {
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
    match ran {
        Ran::Scenario(scenario) => {
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
        }
        Ran::Alone(file) => {
            let _ = writeln!(
                summary,
                "{}: {} steps of {} s, seed {}",
                file.display(),
                steps.done,
                Num(args.dt),
                args.seed
            );
            if let Some(instance) = agents.first().and_then(|(name, _)| sim.instance(name)) {
                alone_summary(instance, summary);
            }
        }
    }
    if stopped {
        return interrupted(summary, &steps);
    }
    EXIT_OK
}

/// The summary of a tree run alone: its runs, the leaves running now and its context.
fn alone_summary(instance: &Instance<World>, summary: &mut dyn Write) {
    let program = instance.program();
    let stats = instance.stats();
    let _ = writeln!(
        summary,
        "runs completed: {}; stalls: {}; context resets: {}; interrupts: {}",
        stats.completed(),
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
}
