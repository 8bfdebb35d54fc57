//! A game's own node kinds, end to end: the game registers three kinds in code, writes
//! them to the node library its designers' editor reads, and runs a tree that uses them.
//!
//! ```text
//! cargo run --example my_game                # runs guard.json with the game's behaviours
//! cargo run --example my_game -- --write     # writes ai/my_game.nodes.json from the code
//! cargo test --example my_game               # fails when that file and the code disagree
//! cargo run -- edit examples/my_game/guard.json   # the editor shows the game's palette
//! cargo run --example my_game -- --live      # runs on, sending its soldiers to that editor
//! cargo run --example my_game -- --live --agents 200 --rate 60   # more soldiers, faster
//! cargo run --example my_game -- --live --streamed 1   # streams soldier-1; the editor asks for more
//! ```
//!
//! With `--live` the game runs until stopped (four soldiers, ten steps a second unless
//! `--agents` and `--rate` say otherwise) and connects to the editor it finds (the one
//! `ARBOR_LIVE` names, else the editor of this project, else the one started last); the
//! Simulation panel's Game list then offers `my_game`. Started first, it waits for the
//! editor in the background and never slows down for it.
//!
//! The folder's `arbor.project.json` lists the library, so `arbor edit`, `validate` and
//! `run` on `guard.json` all know `FireWeapon`, `TakeCover` and `IsUnderFire`. Without this
//! program they run as their stand-ins (the library's scripts).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use arbor::io::{Library, TreeFiles};
use arbor::model::{Catalog, Category, FieldSpec, FieldType, KindSpec, Value};
use arbor::runtime::{Action, Behaviours, CondIo, Instance, LeafIo, Outcome, Program};

/// One soldier: what the game's behaviours read and change.
#[derive(Debug, Default)]
struct Soldier {
    rockets: u32,
    bullets: u32,
    in_cover: bool,
    /// Steps until the enemy stops shooting at it.
    under_fire: u32,
}

/// The game's kinds, as its code registers them (the source of truth for the library).
fn catalog() -> Catalog {
    let mut c = Catalog::builtin();
    let kinds = [
        KindSpec::new(
            "FireWeapon",
            Category::Leaf,
            "Fires the equipped weapon at the target in context.",
            vec![
                FieldSpec::new(
                    "ammo_type",
                    FieldType::Enum(vec!["bullet".into(), "rocket".into()]),
                    Value::Text("bullet".into()),
                    "What to fire.",
                ),
                FieldSpec::new(
                    "burst",
                    FieldType::Int { min: 1, max: 10 },
                    Value::Int(3),
                    "Shots per burst.",
                ),
                FieldSpec::new(
                    "spread",
                    FieldType::non_negative(),
                    Value::Float(0.5),
                    "How far shots stray.",
                )
                .with_unit("deg"),
            ],
        )
        .with_group("Combat")
        .with_stand_in("RRS"),
        KindSpec::new(
            "TakeCover",
            Category::Leaf,
            "Moves behind the nearest cover and stays there.",
            vec![],
        )
        .with_group("Combat"),
        KindSpec::new(
            "IsUnderFire",
            Category::Condition,
            "True while an enemy is shooting at this soldier.",
            vec![],
        )
        .with_group("Combat")
        .with_stand_in("FFFT"),
    ];
    for k in kinds {
        // The names are the game's own and unique: registering cannot fail.
        let _ = c.register(k);
    }
    c
}

/// The library file the designers' editor reads, beside this program.
fn library_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/my_game/ai/my_game.nodes.json")
}

/// The library written from the code.
fn library() -> Result<Library, String> {
    Library::from_catalog("my_game", &catalog())
}

struct FireWeapon {
    rocket: bool,
    burst: u32,
}

impl Action<Soldier> for FireWeapon {
    /// Shots fired in this burst.
    type Memory = u32;

    fn on_enter(&self, fired: &mut u32, _: &mut Soldier, _: &mut LeafIo<'_>) {
        *fired = 0;
    }

    fn on_execute(&self, fired: &mut u32, s: &mut Soldier, _: &mut LeafIo<'_>, _: f64) -> Outcome {
        let ammo = if self.rocket {
            &mut s.rockets
        } else {
            &mut s.bullets
        };
        if *ammo == 0 {
            return Outcome::Failure;
        }
        *ammo -= 1;
        *fired += 1;
        if *fired >= self.burst {
            Outcome::Success
        } else {
            Outcome::Running
        }
    }
}

struct TakeCover;

impl Action<Soldier> for TakeCover {
    type Memory = ();

    fn on_execute(&self, _: &mut (), s: &mut Soldier, _: &mut LeafIo<'_>, _: f64) -> Outcome {
        s.in_cover = true;
        Outcome::Success
    }
}

/// The game's behaviours for its kinds (and the built-in mock ones).
fn behaviours() -> Behaviours<Soldier> {
    let mut b = Behaviours::with_builtins();
    b.action("FireWeapon", |spec| {
        Ok(FireWeapon {
            rocket: spec.text("ammo_type") == "rocket",
            burst: spec.number("burst").unwrap_or(3.0) as u32,
        })
    });
    b.action("TakeCover", |_| Ok(TakeCover));
    b.condition_fn("IsUnderFire", |s: &mut Soldier, _: &CondIo<'_>| {
        s.under_fire > 0
    });
    b
}

fn main() -> ExitCode {
    if std::env::args().any(|a| a == "--write") {
        return match library().and_then(|l| l.write(&library_path())) {
            Ok(()) => {
                println!("wrote {}", library_path().display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    #[cfg(feature = "remote")]
    if std::env::args().any(|a| a == "--live") {
        return match live() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    match run() {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The guard tree, compiled with the game's kinds and behaviours.
fn program(tree_path: &Path) -> Result<Arc<Program<Soldier>>, Box<dyn std::error::Error>> {
    // The game's code registers its kinds; the library file is written from them (and
    // the test below keeps it so), so the game needs no project file of its own.
    let catalog = catalog();
    let files = TreeFiles::new(&catalog);
    let tree = files.load(tree_path).as_ref().clone()?;
    Ok(Arc::new(Program::compile(
        &tree,
        &catalog,
        &files.assets_for(tree_path),
        &behaviours(),
    )?))
}

fn tree_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/my_game/guard.json")
}

/// The number after `flag` on the command line, if it is there.
#[cfg(feature = "remote")]
fn option(flag: &str) -> Result<Option<f64>, String> {
    let args: Vec<String> = std::env::args().collect();
    let Some(at) = args.iter().position(|a| a == flag) else {
        return Ok(None);
    };
    args.get(at + 1)
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v >= 1.0)
        .map(Some)
        .ok_or_else(|| format!("{flag} takes a number of at least 1"))
}

/// Runs soldiers for ever (four, ten steps a second, unless `--agents` and `--rate` say
/// otherwise), sending them to the editor it finds on this machine: each is shot at now
/// and then, takes cover and fires back.
#[cfg(feature = "remote")]
fn live() -> Result<(), Box<dyn std::error::Error>> {
    use arbor::remote::{GameLink, Hello};
    let tree_path = tree_path();
    let program = program(&tree_path)?;
    let count = option("--agents")?.unwrap_or(4.0) as usize;
    let rate = option("--rate")?.unwrap_or(10.0);
    let names: Vec<String> = (1..=count).map(|i| format!("soldier-{i}")).collect();
    let agents: Vec<(String, PathBuf)> = names
        .iter()
        .map(|n| (n.clone(), tree_path.clone()))
        .collect();
    let dt = 1.0 / rate;
    // The hello carries the tree and the kinds the code registers, so the editor shows the
    // tree as the game runs it and says where the project's library differs.
    let mut hello = Hello::new("my_game", dt, 0, &agents, std::slice::from_ref(&tree_path))
        .with_library(&library()?)?;
    // `--streamed N`: the game streams its first N soldiers of itself; the editor asks for
    // any other its user watches.
    if let Some(n) = option("--streamed")? {
        let first: Vec<&str> = names.iter().take(n as usize).map(String::as_str).collect();
        hello = hello.streaming_only(&first);
    }
    // One call: from now on the link finds the editor and connects (and reconnects) in
    // the background.
    let link = GameLink::connect(&hello);
    let mut soldiers: Vec<(Soldier, Instance<Soldier>)> = (0..names.len())
        .map(|i| {
            let soldier = Soldier {
                rockets: 2,
                bullets: 30,
                ..Soldier::default()
            };
            (soldier, Instance::new(program.clone(), i as u64))
        })
        .collect();
    println!(
        "my_game: running; open the editor (cargo run -- edit examples/my_game/guard.json) and pick my_game in its Game list"
    );
    let mut was = false;
    let mut told: Option<String> = None;
    for step in 1u64.. {
        // The triggers the editor sent (its Interrupt buttons), to the agents they name.
        for t in link.take_triggers() {
            if let Some(i) = names.iter().position(|n| *n == t.agent) {
                let payload = t.payload.map(|p| arbor::runtime::CtxValue::Text(p.into()));
                soldiers[i].1.trigger(&t.id, payload);
            }
        }
        for (i, (soldier, instance)) in soldiers.iter_mut().enumerate() {
            // A soldier the editor holds at a breakpoint waits (the others go on).
            if !link.may_step(&names[i]) {
                continue;
            }
            if step % 40 == 5 * (i as u64 % 8) {
                soldier.under_fire = 8;
                soldier.rockets = soldier.rockets.max(1);
            }
            instance.step(dt, soldier, Some(&mut link.watch(&names[i])));
            soldier.under_fire = soldier.under_fire.saturating_sub(1);
        }
        // Why the editor refused the game, once each time it changes.
        let problem = link.problem();
        if problem != told {
            if let Some(p) = &problem {
                println!("my_game: {p}");
            }
            told = problem;
        }
        if link.connected() != was {
            was = link.connected();
            println!(
                "my_game: {}",
                if was {
                    "the editor is connected"
                } else {
                    "no editor"
                }
            );
        }
        std::thread::sleep(std::time::Duration::from_secs_f64(dt));
    }
    Ok(())
}

/// Runs guard.json for three soldiers, each shot at for eight steps from step 3 (the first)
/// to step 5 (the third); prints and returns how they ended.
fn run() -> Result<Vec<Soldier>, Box<dyn std::error::Error>> {
    let program = program(&tree_path())?;
    let mut soldiers: Vec<(Soldier, Instance<Soldier>)> = (0..3)
        .map(|i| {
            let soldier = Soldier {
                rockets: 2,
                bullets: 30,
                ..Soldier::default()
            };
            (soldier, Instance::new(program.clone(), i))
        })
        .collect();
    for step in 1..=20 {
        for (i, (soldier, instance)) in soldiers.iter_mut().enumerate() {
            if step == 3 + i as u32 {
                soldier.under_fire = 8;
            }
            instance.step(0.1, soldier, None);
            soldier.under_fire = soldier.under_fire.saturating_sub(1);
        }
    }
    for (i, (s, instance)) in soldiers.iter().enumerate() {
        println!(
            "soldier {i}: {} rockets and {} bullets left, {} cover, {} runs completed",
            s.rockets,
            s.bullets,
            if s.in_cover { "in" } else { "not in" },
            instance.stats().succeeded + instance.stats().failed
        );
    }
    Ok(soldiers.into_iter().map(|(s, _)| s).collect())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    /// The drift check a game keeps in its own test suite: the library file must say what
    /// the code registers (`ARBOR_UPDATE_LIBRARY=1 cargo test --example my_game` rewrites it).
    #[test]
    fn node_library_is_current() {
        let library = super::library().unwrap();
        if let Err(drift) = library.check(super::library_path()) {
            panic!("{drift}");
        }
    }

    /// The tree runs with the game's behaviours: under fire, each soldier takes cover and
    /// fires rockets back (never bullets: the tree asks for rockets).
    #[test]
    fn guard_tree_runs_the_games_behaviours() {
        let soldiers = super::run().unwrap();
        assert_eq!(soldiers.len(), 3);
        for s in &soldiers {
            assert!(s.in_cover, "{s:?}");
            assert!(s.rockets < 2, "{s:?}");
            assert_eq!(s.bullets, 30, "{s:?}");
        }
    }
}
