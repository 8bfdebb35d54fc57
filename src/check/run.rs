//! Running a behaviour test: each seed is one run of the simulation, whose events and
//! states are checked against the expectations as the run goes, in one pass.

use std::path::{Path, PathBuf};

use super::coverage::{Counter, Coverage};
use super::file::{After, Expect, Place, Target, TestFile, TestFileError, TestFileErrors};
use super::watch::{Check, Matcher, Rule, Spot, Watch};
use crate::model::names::{self, Named};
use crate::model::{Catalog, KeyType};
use crate::runtime::Observer;
use crate::world::{SimError, Simulation, Trigger};

/// Why a test cannot run at all.
#[derive(Clone, Debug, PartialEq)]
pub enum PrepareError {
    /// The test file is wrong: its shape, or nodes, agents, entities or keys it names
    /// (exit 2); every expectation's problem.
    File(TestFileErrors),
    /// A file it runs cannot be read: a missing tree or scenario (exit 2).
    Unreadable(String),
    /// The tree it runs has errors and does not run: the test fails (exit 1).
    Broken(String),
}

impl std::fmt::Display for PrepareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PrepareError::File(e) => write!(f, "{e}"),
            PrepareError::Unreadable(m) | PrepareError::Broken(m) => f.write_str(m),
        }
    }
}

/// The nodes and Interrupts that can be named, of every tree and of each tree file, each
/// looked up once (with the titles the compiled programs keep).
struct Names {
    all: [Vec<Named>; 2],
    by_tree: foldhash::HashMap<PathBuf, [Vec<Named>; 2]>,
    tree_of: foldhash::HashMap<String, PathBuf>,
}

impl Names {
    fn of(sim: &Simulation) -> Self {
        let mut by_tree: foldhash::HashMap<PathBuf, [Vec<Named>; 2]> = Default::default();
        let mut tree_of = foldhash::HashMap::default();
        for a in sim.agents() {
            tree_of.insert(a.name.clone(), a.tree.clone());
            by_tree.entry(a.tree.clone()).or_insert_with(|| {
                [
                    sim.named_nodes(false, Some(&a.name)),
                    sim.named_nodes(true, Some(&a.name)),
                ]
            });
        }
        Self {
            all: [sim.named_nodes(false, None), sim.named_nodes(true, None)],
            by_tree,
            tree_of,
        }
    }

    /// The nodes (or with `interrupts` the Interrupts) of `agent`'s tree, else of all.
    fn get(&self, agent: Option<&str>, interrupts: bool) -> &[Named] {
        let both = agent
            .and_then(|a| self.by_tree.get(self.tree_of.get(a)?))
            .unwrap_or(&self.all);
        &both[usize::from(interrupts)]
    }
}

/// The project file whose kinds the run of `test` uses: `explicit` when given, else the one
/// found from the test's tree (or, without one, its scenario).
pub fn project_of(test: &TestFile, explicit: Option<&Path>) -> Option<PathBuf> {
    let governing = match &test.target {
        Target::Scenario { tree: Some(t), .. } | Target::Tree(t) => t,
        Target::Scenario { scenario, .. } => scenario,
    };
    explicit
        .map(Path::to_owned)
        .or_else(|| crate::io::project_for(governing))
}

/// A test ready to run: its file, the kinds its trees use, and its expectations resolved.
pub struct Prepared {
    /// The test file.
    pub test: TestFile,
    catalog: Catalog,
    checks: Vec<Check>,
    triggers: Vec<Trigger>,
    /// Each agent and its tree file, in stepping order.
    agents: Vec<(String, PathBuf)>,
    /// Each tree file's version and nodes, in program order, for coverage.
    nodes: Vec<TreeNodes>,
    /// The run's first state, loaded and compiled once; each seed's run starts from a
    /// copy of it, reseeded. (Locked while it is copied: an instance's leaf memory may
    /// be moved between threads, not shared.)
    first: std::sync::Mutex<Simulation>,
    /// What the project's node libraries said (printed, not fatal).
    pub warnings: Vec<String>,
}

/// A tree file, its version (its bytes' hash) and its nodes (trace id and title), for
/// coverage.
type TreeNodes = (PathBuf, Option<String>, Vec<(String, String)>);

/// An expectation that broke in a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// The expectation's name.
    pub expectation: String,
    /// The first step where it was broken.
    pub step: u64,
    /// What happened instead.
    pub message: String,
    /// The command that opens the editor at that step.
    pub open: String,
}

/// One seed's run of a test.
#[derive(Clone, Debug, PartialEq)]
pub struct SeedOutcome {
    /// The seed.
    pub seed: u64,
    /// The expectations it broke, in the file's order (none: it passed).
    pub failures: Vec<Failure>,
    /// Why it did not run, when it did not.
    pub error: Option<String>,
    /// Seconds it took.
    pub seconds: f64,
    /// The last step taken, when the run was stopped before its own last step (Ctrl+C):
    /// what is checked only at the end was not, so it does not pass.
    pub stopped: Option<u64>,
}

impl SeedOutcome {
    /// A run of `seed` not begun, Ctrl+C having been pressed before it.
    pub fn not_begun(seed: u64) -> Self {
        Self {
            seed,
            failures: Vec::new(),
            error: None,
            seconds: 0.0,
            stopped: Some(0),
        }
    }

    /// Whether every expectation held, to the last step.
    pub fn passed(&self) -> bool {
        self.failures.is_empty() && self.error.is_none() && self.stopped.is_none()
    }
}

impl Prepared {
    /// Resolves `test` against its run (its first seed's): the project's node kinds (of
    /// the project file `project`, else the one found from the test's tree or scenario)
    /// over `base`, and the nodes, agents, entities and keys its expectations name.
    pub fn new(
        test: TestFile,
        base: &Catalog,
        project: Option<&Path>,
    ) -> Result<Self, PrepareError> {
        let here = crate::io::ProjectCatalog::load(project_of(&test, project).as_deref(), base);
        Self::in_project(test, &here)
    }

    /// [`Prepared::new`] with the kinds of `here`, the project of the test's run (read
    /// once for all the tests of a command, its problems said once).
    pub fn in_project(
        test: TestFile,
        here: &crate::io::ProjectCatalog,
    ) -> Result<Self, PrepareError> {
        // A BehaviorTree.CPP tree's own models add the kinds they describe (docs/BTCPP.md).
        let tree = match &test.target {
            Target::Scenario { tree: Some(t), .. } | Target::Tree(t) => Some(t.as_path()),
            Target::Scenario { .. } => None,
        };
        let own = tree.and_then(|t| here.with_file_models(t));
        let here = own.as_ref().unwrap_or(here);
        let warnings = here.problems.iter().map(ToString::to_string).collect();
        let Some(&seed) = test.seeds.first() else {
            return Err(PrepareError::File(
                TestFileError {
                    path: test.path.clone(),
                    line: 1,
                    expectation: None,
                    message: "the test has no seed".into(),
                }
                .into(),
            ));
        };
        let first = load(&test, &here.catalog, seed).map_err(|e| match e {
            // The file that cannot be read is named; the test file's line says where.
            PrepareError::Unreadable(message) => PrepareError::File(
                TestFileError {
                    path: test.path.clone(),
                    line: test.target_line,
                    expectation: None,
                    message,
                }
                .into(),
            ),
            e => e,
        })?;
        let agents: Vec<(String, PathBuf)> = first
            .agents()
            .map(|a| (a.name.clone(), a.tree.clone()))
            .collect();
        let names = Names::of(&first);
        let mut nodes: Vec<TreeNodes> = Vec::new();
        for (agent, tree) in &agents {
            if nodes.iter().any(|(t, ..)| t == tree) {
                continue;
            }
            let list = first
                .instance(agent)
                .map(|i| i.program().named_nodes())
                .unwrap_or_default()
                .into_iter()
                .map(|n| (n.id, n.title))
                .collect();
            nodes.push((tree.clone(), super::file_version(tree), list));
        }
        let mut prepared = Self {
            catalog: here.catalog.clone(),
            checks: Vec::new(),
            triggers: Vec::new(),
            agents,
            nodes,
            first: std::sync::Mutex::new(first),
            warnings,
            test,
        };
        // Every problem of the file at once: the triggers', then each expectation's.
        let mut problems = Vec::new();
        let mut found = |e: PrepareError| match e {
            PrepareError::File(TestFileErrors(mut p)) => {
                problems.append(&mut p);
                Ok(())
            }
            e => Err(e),
        };
        match prepared.resolve_triggers(&names) {
            Ok(t) => prepared.triggers = t,
            Err(e) => found(e)?,
        }
        let mut checks = Vec::with_capacity(prepared.test.expect.len());
        {
            let first = prepared.first.lock().unwrap_or_else(|e| e.into_inner());
            for i in 0..prepared.test.expect.len() {
                match prepared.resolve(i, &first, &names) {
                    Ok(c) => checks.push(c),
                    Err(e) => found(e)?,
                }
            }
        }
        if !problems.is_empty() {
            return Err(PrepareError::File(TestFileErrors(problems)));
        }
        prepared.checks = checks;
        Ok(prepared)
    }

    /// The simulation of one seed, from its first state.
    fn simulation(&self, seed: u64) -> Result<Simulation, SimError> {
        let first = self.first.lock().unwrap_or_else(|e| e.into_inner());
        match first.reseeded(seed) {
            Some(sim) => Ok(sim),
            None => load(&self.test, &self.catalog, seed).map_err(|e| SimError::Unrunnable {
                tree: self.test.path.clone(),
                problems: vec![e.to_string()],
                invalid: false,
            }),
        }
    }

    fn file_error(&self, line: usize, expectation: Option<&str>, message: String) -> PrepareError {
        PrepareError::File(
            TestFileError {
                path: self.test.path.clone(),
                line,
                expectation: expectation.map(str::to_owned),
                message,
            }
            .into(),
        )
    }

    /// `agent`, checked to be one of the run's agents.
    fn known_agent(
        &self,
        agent: &str,
        line: usize,
        name: Option<&str>,
    ) -> Result<String, PrepareError> {
        if self.agents.iter().any(|(a, _)| a == agent) {
            return Ok(agent.to_owned());
        }
        let all: Vec<&str> = self.agents.iter().map(|(a, _)| a.as_str()).collect();
        Err(self.file_error(
            line,
            name,
            format!(
                "no agent is named '{agent}'; the agents are {}",
                all.join(", ")
            ),
        ))
    }

    fn resolve_triggers(&self, names: &Names) -> Result<Vec<Trigger>, PrepareError> {
        self.test
            .triggers
            .iter()
            .map(|(t, line)| {
                let agent = t
                    .agent
                    .as_deref()
                    .map(|a| self.known_agent(a, *line, None))
                    .transpose()?;
                let id = names::resolve(&t.id, names.get(agent.as_deref(), true), "Interrupt")
                    .map_err(|e| {
                        self.file_error(*line, None, format!("trigger at step {}: {e}", t.step))
                    })?;
                Ok(Trigger {
                    id,
                    agent,
                    ..t.clone()
                })
            })
            .collect()
    }

    /// Expectation `i`, its names resolved.
    fn resolve(&self, i: usize, sim: &Simulation, named: &Names) -> Result<Check, PrepareError> {
        let e = &self.test.expect[i];
        let fail = |m: String| self.file_error(e.line, Some(&e.name), m);
        let agent = e
            .agent
            .as_deref()
            .map(|a| self.known_agent(a, e.line, Some(&e.name)))
            .transpose()?;
        let nodes = named.get(agent.as_deref(), false);
        let node = |name: &str| names::resolve(name, nodes, "node").map_err(fail);
        // The one agent a world expectation is about.
        let one_agent = || -> Result<String, PrepareError> {
            match (&agent, self.agents.as_slice()) {
                (Some(a), _) => Ok(a.clone()),
                (None, [(only, _)]) => Ok(only.clone()),
                (None, all) => Err(fail(format!(
                    "give \"agent\": the run has {} agents ({})",
                    all.len(),
                    all.iter()
                        .map(|(a, _)| a.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))),
            }
        };
        let entity = |name: &str| {
            sim.world().find(name).ok_or_else(|| {
                let names: Vec<Named> = sim
                    .world()
                    .entities()
                    .iter()
                    .map(|en| Named {
                        id: en.name.clone(),
                        title: String::new(),
                    })
                    .collect();
                match names::resolve(name, &names, "entity") {
                    Err(m) => fail(m.replace("has the id or title", "is named")),
                    Ok(_) => fail(format!("no entity is named '{name}'")),
                }
            })
        };
        // A failure opens the tree of the agent it is about, else of one that has its node.
        let has = |id: &str| {
            self.agents
                .iter()
                .find(|(a, _)| {
                    sim.instance(a)
                        .is_some_and(|i| i.program().node_ids().iter().any(|n| n == id))
                })
                .map(|(a, _)| a.clone())
        };
        let (rule, shown) = match &e.what {
            Expect::Node {
                event,
                node: n,
                count,
            } => {
                let id = node(n)?;
                let shown = agent.clone().or_else(|| has(&id));
                (Rule::Count(Matcher::Node(*event, id), *count), shown)
            }
            Expect::Within {
                event,
                node: n,
                steps,
                after,
            } => {
                let id = node(n)?;
                let after = match after {
                    After::Node(ev, n) => Matcher::Node(*ev, node(n)?),
                    After::Trigger(t) => Matcher::Interrupt(
                        names::resolve(t, named.get(agent.as_deref(), true), "Interrupt")
                            .map_err(fail)?,
                    ),
                };
                let shown = agent.clone().or_else(|| has(&id));
                (
                    Rule::Within {
                        target: Matcher::Node(*event, id),
                        after,
                        steps: *steps,
                    },
                    shown,
                )
            }
            Expect::Completes { success, count } => (
                Rule::Count(Matcher::Complete(*success), *count),
                agent.clone(),
            ),
            Expect::Runs { node: n, step } => {
                let id = node(n)?;
                // Only an action leaf is ever running; a branch runs through its leaves.
                let leaf = self.agents.iter().any(|(a, _)| {
                    sim.instance(a).is_some_and(|i| {
                        let p = i.program();
                        p.index_of(&id).is_some_and(|k| p.is_leaf(k))
                    })
                });
                if !leaf {
                    return Err(fail(format!(
                        "'{id}' is not an action leaf, and only leaves run; name a leaf below it (or use enters / exits)"
                    )));
                }
                let shown = agent.clone().or_else(|| has(&id));
                (
                    Rule::Runs {
                        node: id,
                        step: *step,
                    },
                    shown,
                )
            }
            Expect::Near {
                place,
                distance,
                step,
            } => {
                let a = one_agent()?;
                let spot = match place {
                    Place::Point(p) => Spot::Point(*p),
                    Place::Entity(name) => Spot::Entity(entity(name)?, name.clone()),
                };
                (
                    Rule::Near {
                        agent: a.clone(),
                        spot,
                        distance: *distance,
                        step: *step,
                    },
                    Some(a),
                )
            }
            Expect::Health { above, below, step } => {
                let a = one_agent()?;
                (
                    Rule::Health {
                        agent: a.clone(),
                        above: *above,
                        below: *below,
                        step: *step,
                    },
                    Some(a),
                )
            }
            Expect::Gone { entity: name, step } => (
                Rule::Gone {
                    entity: entity(name)?,
                    name: name.clone(),
                    step: *step,
                },
                agent.clone(),
            ),
            Expect::Context { key, equals, step } => {
                let a = one_agent()?;
                let keys = sim
                    .instance(&a)
                    .map(|i| i.program().keys().to_vec())
                    .unwrap_or_default();
                let Some(k) = keys.iter().position(|k| k == key) else {
                    return Err(fail(format!(
                        "the tree of '{a}' uses no context key '{key}'{}",
                        if keys.is_empty() {
                            String::new()
                        } else {
                            format!("; its keys are {}", keys.join(", "))
                        }
                    )));
                };
                let ty = sim
                    .instance(&a)
                    .map_or(KeyType::Any, |i| i.program().key_type(k as u16));
                let Some(value) = sim.world().value_for(equals, ty) else {
                    return Err(fail(format!(
                        "equals {equals}: key '{key}' is of type {ty}; give an entity's name, a text, a number, true or false, or a point [x, y] of that type"
                    )));
                };
                (
                    Rule::Context {
                        agent: a.clone(),
                        key: k as u16,
                        name: key.clone(),
                        value,
                        step: *step,
                    },
                    Some(a),
                )
            }
        };
        let node = match &rule {
            Rule::Count(Matcher::Node(_, id), _)
            | Rule::Within {
                target: Matcher::Node(_, id),
                ..
            }
            | Rule::Runs { node: id, .. } => Some(id.clone()),
            _ => None,
        };
        Ok(Check {
            name: e.name.clone(),
            agent,
            rule,
            shown,
            node,
        })
    }

    /// Steps `sim` through the test: its triggers before their steps, `observer` told
    /// every event, `end_step` called after each step; before each step, `go_on` says
    /// whether to take it. The steps taken.
    fn drive<O: Observer>(
        &self,
        sim: &mut Simulation,
        observer: &mut O,
        go_on: &dyn Fn() -> bool,
        mut end_step: impl FnMut(&mut O, u64, &Simulation),
    ) -> u64 {
        let mut triggers = self.triggers.iter().peekable();
        for step in 1..=self.test.steps {
            if !go_on() {
                return step - 1;
            }
            while let Some(t) = triggers.next_if(|t| t.step == step) {
                sim.trigger(t.agent.as_deref(), &t.id, t.payload.as_deref());
            }
            sim.step(self.test.dt, Some(observer));
            end_step(observer, step, sim);
        }
        self.test.steps
    }

    /// Runs the test with `seed`: its steps, its triggers, every expectation checked.
    pub fn run(&self, seed: u64) -> SeedOutcome {
        self.run_until(seed, &|| true)
    }

    /// [`Prepared::run`], asking `go_on` before each step whether to take it.
    pub fn run_until(&self, seed: u64, go_on: &dyn Fn() -> bool) -> SeedOutcome {
        let start = std::time::Instant::now();
        let mut sim = match self.simulation(seed) {
            Ok(s) => s,
            Err(e) => {
                return SeedOutcome {
                    seed,
                    failures: Vec::new(),
                    error: Some(e.to_string()),
                    seconds: start.elapsed().as_secs_f64(),
                    stopped: None,
                };
            }
        };
        let mut watch = Watch::new(&self.checks);
        let last = self.test.steps;
        let taken = self.drive(&mut sim, &mut watch, go_on, |w, step, sim| {
            w.end_step(step, sim, last)
        });
        let failures = watch
            .broken
            .into_iter()
            .enumerate()
            .filter_map(|(i, b)| b.map(|b| (i, b)))
            .map(|(i, (step, message, agent))| Failure {
                expectation: self.checks[i].name.clone(),
                step,
                message,
                open: self.open_command(
                    agent.as_deref().or(self.checks[i].shown.as_deref()),
                    self.checks[i].node.as_deref(),
                    seed,
                    step,
                ),
            })
            .collect();
        SeedOutcome {
            seed,
            failures,
            error: None,
            seconds: start.elapsed().as_secs_f64(),
            stopped: (taken < last).then_some(taken),
        }
    }

    /// The coverage of one run with `seed` (its expectations are not checked), taken
    /// until the test's last step or until `go_on`, asked before each step, says no:
    /// its `steps` are those taken.
    pub fn cover(&self, seed: u64, go_on: &dyn Fn() -> bool) -> Result<Coverage, String> {
        let mut sim = self.simulation(seed).map_err(|e| e.to_string())?;
        let mut counter = self.counter();
        let taken = self.drive(&mut sim, &mut counter, go_on, |_, _, _| {});
        Ok(counter.finish(taken))
    }

    /// A counter of this test's trees, nothing counted yet.
    fn counter(&self) -> Counter {
        Counter::new(self.agents.iter().map(|(name, tree)| {
            let (version, nodes) = self
                .nodes
                .iter()
                .find(|(t, ..)| t == tree)
                .map(|(_, v, n)| (v.clone(), n.clone()))
                .unwrap_or_default();
            (name.as_str(), tree.as_path(), version, nodes)
        }))
    }

    /// This test's trees and their nodes, with no runs counted: where a shard of a
    /// coverage run starts, so that every shard lists the trees the whole run does.
    pub fn no_runs(&self) -> Coverage {
        self.counter().finish(0)
    }

    /// The command that opens the editor on the tree of `agent` (else the first agent's),
    /// in this test's run with `seed`, at `step`, watching that agent, `node` selected.
    pub fn open_command(
        &self,
        agent: Option<&str>,
        node: Option<&str>,
        seed: u64,
        step: u64,
    ) -> String {
        let tree = agent
            .and_then(|a| self.agents.iter().find(|(n, _)| n == a))
            .or(self.agents.first())
            .map(|(_, t)| t.clone())
            .unwrap_or_default();
        let mut cmd = format!("arbor edit {} --seed {seed} --at {step}", quoted(&tree));
        // The editor runs a tree in the scenario beside it: say so where the test does not.
        match &self.test.target {
            Target::Scenario {
                scenario,
                tree: Some(_),
            } => cmd.push_str(&format!(" --scenario {} --every-agent", quoted(scenario))),
            Target::Scenario {
                scenario,
                tree: None,
            } => {
                let beside = crate::world::scenario_beside(&tree);
                if !beside.is_some_and(|b| crate::io::same_file(&b, scenario)) {
                    cmd.push_str(&format!(" --scenario {}", quoted(scenario)));
                }
            }
            Target::Tree(path) => {
                if crate::world::scenario_beside(path).is_some() {
                    cmd.push_str(" --solo");
                }
            }
        }
        if self.test.dt != crate::world::DT {
            cmd.push_str(&format!(" --dt {}", self.test.dt));
        }
        if let Some(a) = agent.filter(|_| self.agents.len() > 1) {
            cmd.push_str(&format!(" --watch {}", shell_word(a)));
        }
        if let Some(n) = node {
            cmd.push_str(&format!(" --select {}", shell_word(n)));
        }
        for t in self.triggers.iter().filter(|t| t.step <= step) {
            cmd.push_str(&format!(" --trigger {}", shell_word(&t.to_string())));
        }
        cmd
    }
}

/// The first state of what `test` runs, with `catalog`'s kinds and `seed`.
fn load(test: &TestFile, catalog: &Catalog, seed: u64) -> Result<Simulation, PrepareError> {
    let sim = match &test.target {
        Target::Scenario { scenario, tree } => {
            Simulation::load(scenario, catalog, seed, tree.as_deref())
        }
        Target::Tree(path) => {
            let tree = crate::io::TreeFiles::new(catalog)
                .load(path)
                .as_ref()
                .clone()
                .map_err(|e| PrepareError::Unreadable(e.to_string()))?;
            Simulation::solo(Some(path), &tree, catalog, seed)
        }
    };
    sim.map_err(|e| match e {
        SimError::Invalid { .. }
        | SimError::Unrunnable { .. }
        | SimError::NeedsScenario { .. }
        | SimError::Keys { .. } => PrepareError::Broken(e.to_string()),
        SimError::Scenario(_) | SimError::Tree { .. } => PrepareError::Unreadable(e.to_string()),
    })
}

/// A path as a shell word (its `.` and `name/..` parts taken out).
fn quoted(path: &Path) -> String {
    shell_word(&super::tidy(path).display().to_string())
}

/// `text` as one shell word: as it is when it needs no quoting, else in single quotes.
fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@=+,".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}
