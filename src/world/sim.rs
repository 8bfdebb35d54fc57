//! A running scenario: the world and one tree instance per agent, stepped in a fixed order.

use crate::model::names::Num;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{
    AgentSetup, Entity, EntityId, EntityKind, ScenarioError, World, load_scenario, tile_of,
};
use crate::io::{LoadError, TreeFiles};
use crate::model::names::Named;
use crate::model::{Assets, Catalog, Diagnostic, Tree};
use crate::runtime::{CompileError, CtxValue, Instance, Observer, Program, RunStats, StandIns};

/// Why a scenario cannot run.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The scenario file itself is unreadable or wrong.
    #[error("{0}")]
    Scenario(#[from] ScenarioError),
    /// An agent's tree file cannot be loaded.
    #[error("{}: entity '{agent}': cannot load its tree: {source}", scenario.display())]
    Tree {
        /// The scenario.
        scenario: PathBuf,
        /// The agent.
        agent: String,
        /// Why the tree did not load (names the tree file).
        source: Box<LoadError>,
    },
    /// An agent's tree has validation errors (or cannot be compiled).
    #[error("{}: entity '{agent}': its tree {} does not run: {}", scenario.display(), tree.display(), problems.join("; "))]
    Invalid {
        /// The scenario.
        scenario: PathBuf,
        /// The agent.
        agent: String,
        /// The tree file.
        tree: PathBuf,
        /// The errors, one a line as `arbor validate` prints them.
        problems: Vec<String>,
    },
    /// An agent's `keys` do not fit its tree.
    #[error("{}: entity '{agent}': {message}", scenario.display())]
    Keys {
        /// The scenario.
        scenario: PathBuf,
        /// The agent.
        agent: String,
        /// What is wrong.
        message: String,
    },
    /// A tree run without a scenario uses world nodes, which need a world to act on.
    #[error("{}: uses world nodes ({}); it runs in a scenario, with the entities they act on. Open one (File > Open Scenario…, or arbor run {} --scenario SCENARIO.json)", tree.display(), kinds.join(", "), tree.display())]
    NeedsScenario {
        /// The tree file (or "untitled").
        tree: PathBuf,
        /// The world node kinds it uses.
        kinds: Vec<String>,
        /// What the runtime without a world says of the first of them (`[NODE] MESSAGE`).
        first: String,
    },
    /// A tree run without a scenario has errors (or cannot be compiled).
    #[error("{}: does not run: {}", tree.display(), problems.join("; "))]
    Unrunnable {
        /// The tree file (or "untitled").
        tree: PathBuf,
        /// The errors, one a line as `arbor validate` prints them.
        problems: Vec<String>,
        /// Whether they are validation errors (else the runtime's: a node it cannot build).
        invalid: bool,
    },
}

/// A compile error as lines, as `arbor validate` prints them.
fn problems(e: CompileError) -> Vec<String> {
    match e {
        CompileError::Invalid(d) => d.iter().map(Diagnostic::to_string).collect(),
        other => vec![other.to_string()],
    }
}

#[derive(Clone)]
struct SimAgent {
    setup: AgentSetup,
    instance: Instance<World>,
}

/// A scenario being run: the world, and a tree instance for each agent. A clone is the
/// whole state of the run at its step: stepping a clone goes on exactly as the original.
#[derive(Clone)]
pub struct Simulation {
    world: World,
    agents: Vec<SimAgent>,
    /// The files it was made from: the scenario, the trees and their SubTree assets.
    inputs: Vec<PathBuf>,
    /// The stand-ins of library kinds in each tree file, whose results can be forced
    /// (shared by every clone; the debugging core records forcing by step).
    stand_ins: Vec<(PathBuf, StandIns)>,
    /// A tree run alone ([`Simulation::solo`]): its one instance is seeded with the seed
    /// itself, as `arbor run TREE` seeds it.
    solo: bool,
}

/// One agent's state, for summaries.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentSummary {
    /// Its name.
    pub name: String,
    /// Its glyph in [`Simulation::render`].
    pub glyph: char,
    /// Its team.
    pub team: String,
    /// False once destroyed.
    pub alive: bool,
    /// Where it is.
    pub pos: [f64; 2],
    /// Health and maximum health.
    pub health: (f64, f64),
    /// Hunger, 0 to 1.
    pub hunger: f64,
    /// The name of the item it holds.
    pub holding: Option<String>,
    /// Completed runs, stalls, interrupts.
    pub runs: RunStats,
    /// The leaves running now (trace ids).
    pub leaves: Vec<String>,
}

impl fmt::Display for AgentSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}{}: ",
            self.glyph,
            self.name,
            if self.team.is_empty() {
                String::new()
            } else {
                format!(" ({})", self.team)
            }
        )?;
        if !self.alive {
            return write!(f, "destroyed; runs completed {}", self.runs.completed());
        }
        write!(
            f,
            "at ({:.2}, {:.2}), health {}/{}",
            Num(self.pos[0]),
            Num(self.pos[1]),
            Num(self.health.0),
            Num(self.health.1)
        )?;
        if self.hunger > 0.0 {
            write!(f, ", hunger {:.2}", self.hunger)?;
        }
        if let Some(item) = &self.holding {
            write!(f, ", holds {item}")?;
        }
        write!(f, "; runs completed {}", self.runs.completed())?;
        if self.runs.stalls > 0 {
            write!(f, ", stalls {}", self.runs.stalls)?;
        }
        if self.runs.interrupts > 0 {
            write!(f, ", interrupts {}", self.runs.interrupts)?;
        }
        write!(
            f,
            "; running {}",
            if self.leaves.is_empty() {
                "nothing".to_owned()
            } else {
                self.leaves.join(", ")
            }
        )
    }
}

/// A seed for one of several generators drawn from one user seed (SplitMix64 of both).
fn derive_seed(seed: u64, stream: u64) -> u64 {
    let mut z = seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What a tree file's run calls its nodes and keys, for a debugger that has only a trace
/// of it: each node's name in the event log by trace id ([`Program::node_name`]), and each
/// context key its program has (those its tree, its project and its SubTree assets declare,
/// and those its nodes use) with its type and the value it starts with; `None` where the
/// file cannot be read or does not compile with `catalog`.
pub fn names_of(path: &Path, catalog: &Catalog) -> Option<RunNames> {
    let files = TreeFiles::new(catalog);
    let loaded = files.load(path);
    let tree = loaded.as_ref().as_ref().ok()?;
    let (program, _) = compile_in_world(tree, catalog, &files.assets_for(path)).ok()?;
    let named = program.node_ids().iter().zip(0..);
    let nodes = named
        .filter_map(|(id, i)| Some((id.clone(), program.node_name(i)?)))
        .collect();
    let keys = program
        .keys()
        .iter()
        .zip(0..)
        .map(|(name, k)| {
            let start = program
                .seeds
                .iter()
                .find(|(s, _)| *s == k)
                .map(|(_, v)| v.clone());
            (name.clone(), program.key_type(k), start)
        })
        .collect();
    Some(RunNames { nodes, keys })
}

/// The nodes of the tree file at `path` as its runs name them: each trace id (inner
/// nodes of SubTrees too) and title, in program order; or why the file does not compile
/// with `catalog` (for a trace's coverage, `check::trace_coverage`).
pub fn nodes_of(path: &Path, catalog: &Catalog) -> Result<Vec<(String, String)>, String> {
    let files = TreeFiles::new(catalog);
    let loaded = files.load(path);
    let tree = loaded.as_ref().as_ref().map_err(ToString::to_string)?;
    let (program, _) = compile_in_world(tree, catalog, &files.assets_for(path))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(program
        .named_nodes()
        .into_iter()
        .map(|n| (n.id, n.title))
        .collect())
}

/// A tree's node names and keys, as [`names_of`] finds them.
#[derive(Clone, Debug, Default)]
pub struct RunNames {
    /// Each node's trace id and its name in the event log.
    pub nodes: Vec<(String, String)>,
    /// Each context key, its declared type (`any` where nothing declares it) and the value
    /// it starts a run with (its default), if any.
    pub keys: Vec<(
        String,
        crate::model::KeyType,
        Option<crate::runtime::CtxValue>,
    )>,
}

/// `tree` compiled for the world: the world's behaviours, and a stand-in for each node of
/// a kind that has none (returned with the program, for the debugger to force).
fn compile_in_world(
    tree: &Tree,
    catalog: &Catalog,
    assets: &dyn Assets,
) -> Result<(Program<World>, StandIns), CompileError> {
    let behaviours = super::world_behaviours().with_stand_ins();
    let program = Program::compile(tree, catalog, assets, &behaviours)?;
    Ok((program, behaviours.stand_ins().clone()))
}

impl Simulation {
    /// Loads a scenario and compiles each agent's tree (each tree file once, shared by the
    /// agents that run it). With `tree`, every agent runs that tree file instead of its own.
    pub fn load(
        scenario: &Path,
        catalog: &Catalog,
        seed: u64,
        tree: Option<&Path>,
    ) -> Result<Self, SimError> {
        Self::from_parsed(scenario, load_scenario(scenario)?, catalog, seed, tree)
    }

    /// [`Simulation::load`] of a scenario already read (`parse_scenario`).
    pub fn from_parsed(
        scenario: &Path,
        parsed: (World, Vec<AgentSetup>),
        catalog: &Catalog,
        seed: u64,
        tree: Option<&Path>,
    ) -> Result<Self, SimError> {
        let (world, setups) = parsed;
        Self::build(scenario, world, setups, catalog, seed, tree, None)
    }

    /// A scenario already read (`parse_scenario`), with `edited`: a tree being edited that
    /// stands in for the file at its path. The agents naming that file run it as it is
    /// now; with `every_agent`, every agent runs it instead of its own (as `arbor run TREE
    /// --scenario SCENARIO` runs TREE).
    pub fn with_edited(
        scenario: &Path,
        parsed: (World, Vec<AgentSetup>),
        catalog: &Catalog,
        seed: u64,
        edited: (&Path, &Tree),
        every_agent: bool,
    ) -> Result<Self, SimError> {
        let (world, setups) = parsed;
        let tree = every_agent.then_some(edited.0);
        Self::build(scenario, world, setups, catalog, seed, tree, Some(edited))
    }

    fn build(
        scenario: &Path,
        mut world: World,
        setups: Vec<AgentSetup>,
        catalog: &Catalog,
        seed: u64,
        tree: Option<&Path>,
        edited: Option<(&Path, &Tree)>,
    ) -> Result<Self, SimError> {
        world.seed(derive_seed(seed, 0));
        let same = |a: &Path, b: &Path| a == b || crate::io::same_file(a, b);
        let files = TreeFiles::new(catalog);
        let mut stand_ins = Vec::new();
        let mut programs: Vec<(PathBuf, Arc<Program<World>>)> = Vec::new();
        let mut agents = Vec::with_capacity(setups.len());
        for (i, mut setup) in setups.into_iter().enumerate() {
            if let Some(t) = tree {
                setup.tree = t.to_owned();
            }
            let program = match programs.iter().find(|(p, _)| *p == setup.tree) {
                Some((_, p)) => p.clone(),
                None => {
                    // The tree being edited stands in for its file, which is not read.
                    let loaded;
                    let t = match edited.filter(|(path, _)| same(path, &setup.tree)) {
                        Some((_, tree)) => tree,
                        None => {
                            loaded = files.load(&setup.tree);
                            match &*loaded {
                                Ok(t) => t,
                                Err(e) => {
                                    return Err(SimError::Tree {
                                        scenario: scenario.to_owned(),
                                        agent: setup.name,
                                        source: Box::new(e.clone()),
                                    });
                                }
                            }
                        }
                    };
                    // Each tree file its own stand-ins: node ids repeat across files.
                    let p = match compile_in_world(t, catalog, &files.assets_for(&setup.tree)) {
                        Ok((p, s)) => {
                            stand_ins.push((setup.tree.clone(), s));
                            Arc::new(p)
                        }
                        Err(e) => {
                            return Err(SimError::Invalid {
                                scenario: scenario.to_owned(),
                                agent: setup.name,
                                tree: setup.tree,
                                problems: problems(e),
                            });
                        }
                    };
                    programs.push((setup.tree.clone(), p.clone()));
                    p
                }
            };
            let mut instance = Instance::new(program, derive_seed(seed, i as u64 + 1));
            // The editor paints the watched agent's nodes from it.
            instance.record_states(true);
            for (key, written) in &setup.keys {
                let ty = instance
                    .program()
                    .key(key)
                    .map(|k| instance.program().key_type(k));
                let seeded = match ty {
                    None => Err(format!(
                        "its tree {} has no key '{key}'",
                        setup.tree.display()
                    )),
                    Some(ty) => match world.value_for(written, ty) {
                        None => Err(format!(
                            "key '{key}' is of type {ty}; {written} is not {}",
                            ty.describe()
                        )),
                        Some(v) => instance.seed(key, v).map_err(|e| e.to_string()),
                    },
                };
                if let Err(message) = seeded {
                    return Err(SimError::Keys {
                        scenario: scenario.to_owned(),
                        agent: setup.name,
                        message,
                    });
                }
            }
            agents.push(SimAgent { instance, setup });
        }
        let inputs = std::iter::once(scenario.to_owned())
            .chain(files.paths())
            .collect();
        Ok(Self {
            world,
            agents,
            inputs,
            stand_ins,
            solo: false,
        })
    }

    /// A tree run without a scenario (`arbor run TREE`, and the editor's and `arbor test`'s
    /// tree alone): one agent, named after the file (`agent` when untitled), in an empty
    /// arena, its instance seeded with `seed` itself. Only trees of nodes that need no
    /// world run so (mocks, HasContext, the composites and decorators); a tree with world
    /// nodes says which.
    pub fn solo(
        path: Option<&Path>,
        tree: &Tree,
        catalog: &Catalog,
        seed: u64,
    ) -> Result<Self, SimError> {
        let shown = path.map_or_else(|| PathBuf::from("untitled"), Path::to_owned);
        let files = TreeFiles::new(catalog);
        let base = path.map_or_else(|| PathBuf::from("untitled.json"), Path::to_owned);
        let assets = files.assets_for(&base);
        // A tree of the world's kinds needs a scenario to run in: compiled without the
        // world's behaviours, it says so, or what else is wrong with it.
        let kinds = super::world_kinds(tree);
        if !kinds.is_empty() {
            let plain = crate::runtime::Behaviours::<()>::with_builtins().with_stand_ins();
            if let Err(e) = Program::compile(tree, catalog, &assets, &plain) {
                return Err(match e {
                    CompileError::Node { .. } => SimError::NeedsScenario {
                        tree: shown,
                        kinds,
                        first: e.to_string(),
                    },
                    e => SimError::Unrunnable {
                        tree: shown,
                        invalid: matches!(e, CompileError::Invalid(_)),
                        problems: problems(e),
                    },
                });
            }
        }
        let (program, stand_ins) =
            compile_in_world(tree, catalog, &assets).map_err(|e| SimError::Unrunnable {
                tree: shown.clone(),
                invalid: matches!(e, CompileError::Invalid(_)),
                problems: problems(e),
            })?;
        let name = path
            .and_then(Path::file_stem)
            .map_or_else(|| "agent".to_owned(), |s| s.to_string_lossy().into_owned());
        let mut world = World::new(12, 8, vec![false; 12 * 8]);
        world.seed(derive_seed(seed, 0));
        let entity = world.add(Entity {
            name: name.clone(),
            pos: [6.0, 4.0],
            alive: true,
            kind: EntityKind::Agent(super::Body {
                team: String::new(),
                health: 100.0,
                max_health: 100.0,
                damage: 10.0,
                range: 1.5,
                speed: 2.0,
                hunger: 0.0,
                hunger_rate: 0.0,
                holding: None,
                meals: 0,
                last_meal: None,
                kills: 0,
            }),
        });
        let mut instance = Instance::new(Arc::new(program), seed);
        instance.record_states(true);
        let inputs = path
            .map(Path::to_owned)
            .into_iter()
            .chain(files.paths())
            .collect();
        Ok(Self {
            inputs,
            stand_ins: vec![(shown.clone(), stand_ins)],
            solo: true,
            world,
            agents: vec![SimAgent {
                setup: AgentSetup {
                    entity,
                    name,
                    tree: shown,
                    keys: Vec::new(),
                },
                instance,
            }],
        })
    }

    /// The same first state with another seed: what loading it again with `seed` gives,
    /// without reading or compiling anything again. `None` once it has stepped.
    pub fn reseeded(&self, seed: u64) -> Option<Self> {
        if self.world.step_number() > 0 || self.agents.iter().any(|a| a.instance.step_number() > 0)
        {
            return None;
        }
        let mut sim = self.clone();
        sim.world.seed(derive_seed(seed, 0));
        for (i, a) in sim.agents.iter_mut().enumerate() {
            let own = if sim.solo {
                seed
            } else {
                derive_seed(seed, i as u64 + 1)
            };
            a.instance = Instance::new(a.instance.program().clone(), own);
            a.instance.record_states(true);
        }
        Some(sim)
    }

    /// The stand-in nodes (library kinds without a behaviour) of the tree file `tree`, whose
    /// results can be forced; where it runs one tree file, that one's, whatever the path.
    pub fn stand_ins(&self, tree: &Path) -> Option<&StandIns> {
        match self.stand_ins.as_slice() {
            [(_, only)] => Some(only),
            all => all
                .iter()
                .find(|(p, _)| p == tree || crate::io::same_file(p, tree))
                .map(|(_, s)| s),
        }
    }

    /// Lets every stand-in of every tree follow its script again.
    pub fn clear_forced(&self) {
        for (_, s) in &self.stand_ins {
            s.clear();
        }
    }

    /// The files it was made from: the scenario (or the tree run alone), the trees and
    /// their SubTree assets.
    pub fn inputs(&self) -> &[PathBuf] {
        &self.inputs
    }

    /// Bytes this state keeps on the heap, roughly: each agent's instance and the world.
    pub fn heap_bytes(&self) -> usize {
        self.agents
            .iter()
            .map(|a| a.instance.heap_bytes() + a.setup.name.len() + a.setup.tree.as_os_str().len())
            .sum::<usize>()
            + self.world.heap_bytes()
    }

    /// The world.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The agents, in stepping order: entity, name and tree file.
    pub fn agents(&self) -> impl Iterator<Item = &AgentSetup> {
        self.agents.iter().map(|a| &a.setup)
    }

    /// The tree instance of an agent, by name.
    pub fn instance(&self, agent: &str) -> Option<&Instance<World>> {
        self.agents
            .iter()
            .find(|a| a.setup.name == agent)
            .map(|a| &a.instance)
    }

    /// The nodes of the agents' trees (of `agent`'s alone when given), by trace id with
    /// their titles (a SubTree's nodes as `SUBTREE/INNER`, titled as in its asset); with
    /// `interrupts`, only the Interrupts, by `interrupt_id` with the Interrupt's title. For
    /// nodes a person names ([`crate::model::names::resolve`]).
    pub fn named_nodes(&self, interrupts: bool, agent: Option<&str>) -> Vec<Named> {
        let mut out: Vec<Named> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut trees: Vec<&Path> = Vec::new();
        for a in self
            .agents
            .iter()
            .filter(|a| agent.is_none_or(|n| a.setup.name == n))
        {
            if trees.contains(&a.setup.tree.as_path()) {
                continue;
            }
            trees.push(&a.setup.tree);
            let program = a.instance.program();
            let named = if interrupts {
                program.named_interrupts()
            } else {
                program.named_nodes()
            };
            out.extend(named.into_iter().filter(|n| seen.insert(n.id.clone())));
        }
        out
    }

    /// Steps every living agent's tree once, in scenario order, then the world (hunger,
    /// clock). Triggers raised by an agent (`PassBall`) are queued for their target at
    /// once; entities destroyed during an agent's step leave every context before the next
    /// agent steps. `observer`, if any, is told each agent's name before its events.
    pub fn step(&mut self, dt: f64, mut observer: Option<&mut dyn Observer>) {
        for i in 0..self.agents.len() {
            let entity = self.agents[i].setup.entity;
            if self.world.alive(entity).is_none() {
                continue;
            }
            self.world.set_me(entity);
            let a = &mut self.agents[i];
            let obs = observer.as_mut().map(|o| {
                o.agent(&a.setup.name);
                &mut **o as &mut dyn Observer
            });
            a.instance.step(dt, &mut self.world, obs);
            let step = a.instance.step_number();
            self.settle(step, observer.as_deref_mut());
        }
        self.world.advance(dt);
    }

    /// Delivers the world's triggers and removes destroyed entities from every context;
    /// `observer` is told of each value removed (a `context` event without a value, of
    /// step `step`: the step in which the entity went).
    fn settle<'o>(&mut self, step: u64, mut observer: Option<&mut (dyn Observer + 'o)>) {
        for t in std::mem::take(&mut self.world.outbox) {
            if let Some(a) = self.agents.iter_mut().find(|a| a.setup.entity == t.agent) {
                a.instance.trigger(t.interrupt_id, Some(t.payload));
            }
        }
        if !self.world.destroyed.is_empty() {
            let gone = std::mem::take(&mut self.world.destroyed);
            for a in &mut self.agents {
                let program = a.instance.program().clone();
                let context = a.instance.context_mut();
                for (k, name) in program.keys().iter().enumerate() {
                    let k = k as u16;
                    if !matches!(context.get(k), Some(CtxValue::Entity(e)) if gone.contains(e)) {
                        continue;
                    }
                    context.set(k, None);
                    if let Some(o) = observer.as_deref_mut() {
                        o.agent(&a.setup.name);
                        o.event(&crate::runtime::Event {
                            step,
                            node: None,
                            node_id: "",
                            kind: crate::runtime::EventKind::Context(name, None),
                        });
                    }
                }
            }
        }
    }

    /// Queues a trigger (handled at each target's next step) for the named agent, or for
    /// every agent whose tree has an Interrupt with this id. The payload names a world
    /// entity where one matches, else it is the text itself. Returns how many agents it
    /// was queued for.
    pub fn trigger(
        &mut self,
        agent: Option<&str>,
        interrupt_id: &str,
        payload: Option<&str>,
    ) -> usize {
        let value = payload.map(|p| match self.world.find(p) {
            Some(id) => CtxValue::Entity(id),
            None => CtxValue::Text(p.into()),
        });
        let mut n = 0;
        for a in &mut self.agents {
            let chosen = match agent {
                Some(name) => a.setup.name == name,
                None => a
                    .instance
                    .program()
                    .interrupt_ids()
                    .any(|id| id == interrupt_id),
            };
            if chosen {
                a.instance.trigger(interrupt_id, value.clone());
                n += 1;
            }
        }
        n
    }

    /// An agent's letter in [`Simulation::render`] and summaries (`A`, `B`, … in scenario
    /// order; `@` past `Z` or for an entity that is not an agent).
    pub fn glyph(&self, entity: EntityId) -> char {
        let i = self
            .agents
            .iter()
            .position(|a| a.setup.entity == entity)
            .unwrap_or(usize::MAX);
        const GLYPHS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ";
        GLYPHS.get(i).map_or('@', |&b| char::from(b))
    }

    /// Each agent's state.
    pub fn summary(&self) -> Vec<AgentSummary> {
        self.agents
            .iter()
            .map(|a| {
                let e: Option<&Entity> = self.world.entity(a.setup.entity);
                let body = match e.map(|e| &e.kind) {
                    Some(EntityKind::Agent(b)) => Some(b),
                    _ => None,
                };
                let program = a.instance.program();
                AgentSummary {
                    name: a.setup.name.clone(),
                    glyph: self.glyph(a.setup.entity),
                    team: body.map(|b| b.team.clone()).unwrap_or_default(),
                    alive: e.is_some_and(|e| e.alive),
                    pos: e.map_or([0.0, 0.0], |e| e.pos),
                    health: body.map_or((0.0, 0.0), |b| (b.health, b.max_health)),
                    hunger: body.map_or(0.0, |b| b.hunger),
                    holding: body
                        .and_then(|b| b.holding)
                        .and_then(|i| self.world.entity(i))
                        .map(|i| i.name.clone()),
                    runs: a.instance.stats(),
                    leaves: a
                        .instance
                        .active_leaves()
                        .iter()
                        .map(|&i| program.node_ids()[i as usize].clone())
                        .collect(),
                }
            })
            .collect()
    }

    /// The arena as text (see [`World::render`]; agents are `A`, `B`, … in scenario order),
    /// headed by the step and time, followed by a legend of the living agents.
    pub fn render(&self) -> String {
        let mut out = format!(
            "step {}, {:.1} s\n",
            self.world.step_number(),
            Num(self.world.time())
        );
        out.push_str(&self.world.render(|id| self.glyph(id)));
        for s in self.summary() {
            let (x, y) = tile_of(s.pos);
            if s.alive {
                out.push_str(&format!(
                    "{} {} [{x}, {y}] health {}/{}: {}\n",
                    s.glyph,
                    s.name,
                    Num(s.health.0),
                    Num(s.health.1),
                    if s.leaves.is_empty() {
                        "-".to_owned()
                    } else {
                        s.leaves.join(", ")
                    }
                ));
            } else {
                out.push_str(&format!("{} {} destroyed\n", s.glyph, s.name));
            }
        }
        out
    }
}
