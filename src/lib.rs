//! Arbor: an editor and runtime for game-AI behaviour trees.
//!
//! The core — [`model`] (nodes, ports, validation), [`io`] (the JSON asset format) and
//! [`runtime`] (compiled programs, one instance per agent), with [`world`] (the simulated
//! arena the examples run in) — never depends on egui; the editor (feature `gui`) is a
//! view of it.
//!
//! # Embedding
//!
//! A game loads a tree file, registers its own action and condition, and steps one
//! instance per agent. The program is compiled once and shared. An instance records
//! nothing for display unless asked (`Instance::record_states`); [`runtime::step_all`]
//! steps many in order (the README's performance section has the figures).
//!
//! ```
//! use std::sync::Arc;
//! use arbor::io::TreeFiles;
//! use arbor::model::{Catalog, Category, FieldSpec, FieldType, KindSpec, Value};
//! use arbor::runtime::{Action, Behaviours, Instance, LeafIo, Outcome, Program};
//!
//! /// The game's own agent state, handed to every behaviour.
//! struct Guard { stamina: f64 }
//!
//! /// A game action: rest until stamina is back. Its object is shared by every agent;
//! /// what one agent must remember between calls would be its `Memory`.
//! struct Rest;
//! impl Action<Guard> for Rest {
//!     type Memory = ();
//!     fn on_execute(&self, _: &mut (), guard: &mut Guard, _: &mut LeafIo<'_>, dt: f64) -> Outcome {
//!         guard.stamina += dt;
//!         if guard.stamina >= 1.0 { Outcome::Success } else { Outcome::Running }
//!     }
//! }
//!
//! // 1. Tell the catalog about the game's kinds (for validation and the editor).
//! let mut catalog = Catalog::builtin();
//! catalog.register(KindSpec::new("Rest", Category::Leaf, "Rests until rested.", vec![]))?;
//! catalog.register(KindSpec::new("IsTired", Category::Condition, "True when stamina is low.", vec![
//!     FieldSpec::new("below", FieldType::non_negative(), Value::Float(0.5), "Stamina threshold."),
//! ]))?;
//!
//! // 2. Give them behaviour.
//! let mut behaviours = Behaviours::<Guard>::with_builtins();
//! behaviours.action("Rest", |_spec| Ok(Rest));
//! behaviours.condition_fn("IsTired", |guard: &mut Guard, _io| guard.stamina < 0.5);
//!
//! // 3. Load and compile a tree file once (here written on the spot).
//! let dir = std::env::temp_dir().join(format!("arbor-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let path = dir.join("guard.json");
//! std::fs::write(&path, r#"{"format": "arbor.tree", "version": 1, "nodes": [
//!     {"id": "root", "kind": "Root", "inputs": {"child": ["choose"]}},
//!     {"id": "choose", "kind": "Selector", "inputs": {"children": ["rest", "patrol"]}},
//!     {"id": "rest", "kind": "Sequence", "inputs": {"children": ["tired", "nap"]}},
//!     {"id": "tired", "kind": "IsTired"},
//!     {"id": "nap", "kind": "Rest"},
//!     {"id": "patrol", "kind": "MockAction", "fields": {"script": "RRS"}}]}"#)?;
//! let files = TreeFiles::new(&catalog);
//! let tree = files.load(&path).as_ref().clone()?;
//! let program = Arc::new(Program::compile(&tree, &catalog, &files.assets_for(&path), &behaviours)?);
//!
//! // 4. One instance per agent, each with its own state and seed.
//! let mut agents: Vec<(Guard, Instance<Guard>)> = (0..1_000)
//!     .map(|i| (Guard { stamina: (i % 10) as f64 / 10.0 }, Instance::new(program.clone(), i)))
//!     .collect();
//! for _frame in 0..60 {
//!     for (guard, instance) in &mut agents {
//!         instance.step(1.0 / 30.0, guard, None);
//!     }
//! }
//! assert!(agents.iter().all(|(g, _)| g.stamina >= 0.5));
//! assert!(agents.iter().all(|(_, i)| i.stats().succeeded > 0));
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The game's kinds in the editor
//!
//! The kinds a game registers are written to a node library file, which the project file
//! (`arbor.project.json`) lists, so that the editor, `arbor validate` and `arbor run` know
//! them; the game's own tests keep the file in step with the code. `ARBOR_UPDATE_LIBRARY=1`
//! makes [`io::Library::check`] write the file instead (docs/FORMAT.md has the format).
//!
//! ```
//! use arbor::io::Library;
//! use arbor::model::{Catalog, Category, FieldSpec, FieldType, KindSpec, Value};
//!
//! let mut catalog = Catalog::builtin();
//! catalog.register(
//!     KindSpec::new("FireWeapon", Category::Leaf, "Fires at the target.", vec![
//!         FieldSpec::new("burst", FieldType::Int { min: 1, max: 10 }, Value::Int(3), "Shots."),
//!     ])
//!     .with_group("Combat")
//!     .with_stand_in("RRS"),
//! )?;
//! let library = Library::from_catalog("my_game", &catalog)?;
//!
//! let dir = std::env::temp_dir().join(format!("arbor-doc-lib-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let path = dir.join("my_game.nodes.json");
//! // Written once (a build step, or `cargo test` with ARBOR_UPDATE_LIBRARY=1) …
//! library.write(&path)?;
//! // … and checked in the game's test suite: a readable diff when file and code differ.
//! library.check(&path)?;
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Recording a trace the editor can replay
//!
//! A game records what its agents do as a trace (docs/FORMAT.md, "Traces"): a
//! [`runtime::JsonlTrace`] given as the observer of the steps it wants recorded (none:
//! the step is the quiet one, and costs nothing more), its header written first; or a
//! [`runtime::BinaryTrace`], the same events in a few bytes each. `arbor edit --trace
//! FILE` (or File > Open Trace…) then replays the run on the tree, with the timeline,
//! breakpoints, the event log and the context. To record an agent and also show it live,
//! give its step both observers ([`runtime::Observer`]: a pair, or an array of
//! `&mut dyn Observer`).
//!
//! ```
//! use arbor::io::trace_header;
//! use arbor::runtime::{Behaviours, Instance, JsonlTrace, Program};
//! # use arbor::model::{Catalog, NoAssets, Tree};
//! # let dir = std::env::temp_dir().join(format!("arbor-doc-trace-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! # let tree_file = dir.join("guard.json");
//! # std::fs::write(&tree_file, r#"{"format": "arbor.tree", "version": 1, "nodes": [
//! #     {"id": "root", "kind": "Root", "inputs": {"child": ["patrol"]}},
//! #     {"id": "patrol", "kind": "MockAction", "fields": {"script": "RRS"}}]}"#)?;
//! # let tree = arbor::io::load_tree(&tree_file)?;
//! # let program = std::sync::Arc::new(Program::compile(&tree, &Catalog::builtin(), &NoAssets, &Behaviours::<()>::with_builtins())?);
//! let path = dir.join("run.jsonl");
//! let mut trace = JsonlTrace::new(std::io::BufWriter::new(std::fs::File::create(&path)?), "guard-1");
//! // The agents, the tree file each runs, and the files to check for changes later.
//! let agents = [("guard-1".to_owned(), tree_file.clone())];
//! trace.write_header(&trace_header(1.0 / 30.0, 7, &agents, &[tree_file.clone()], Some(&path)));
//! let mut guard = Instance::new(program.clone(), 7);
//! for _frame in 0..60 {
//!     guard.step(1.0 / 30.0, &mut (), Some(&mut trace));
//! }
//! trace.finish()?;
//! let recorded = arbor::io::read_trace(&path)?;
//! assert_eq!(recorded.agents, ["guard-1"]);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod check;
pub mod cli;
pub mod debug;
#[cfg(feature = "gui")]
pub mod editor;
pub mod io;
pub mod model;
#[cfg(feature = "remote")]
pub mod remote;
pub mod runtime;
pub mod world;
