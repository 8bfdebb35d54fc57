//! Arbor's BehaviorTree.CPP XML (docs/BTCPP.md) against the real BehaviorTree.CPP 4: the
//! behaviortreepy bindings that scripts/setup.sh installs into target/btcpp-venv (or the
//! Python that `ARBOR_BTCPP_PYTHON` names), driven by tests/btcpp/run_trees.py.
//!
//! - Every file Arbor writes from a tree of the kinds that have a BehaviorTree.CPP form
//!   loads in BehaviorTree.CPP.
//! - Over 1,000 random trees of the kinds whose rules agree (docs/BTCPP.md, "Checked
//!   against BehaviorTree.CPP"), the leaves' executions and their results, in order, are
//!   the same in Arbor (one step per tick) and in BehaviorTree.CPP; over 1,000 more, with
//!   conditions whose answer changes, the first runs are the same.
//! - Real files (Nav2's, BehaviorTree.CPP's own and MoveIt Pro's, in tests/fixtures/btcpp) read and
//!   written with no edit are the same file.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use arbor::io::btcpp::{self, Document};
use arbor::model::{Catalog, NoAssets, Node, NodeId, Port, Tree, Value};
use arbor::runtime::{Behaviours, Event, EventKind, Instance, Program};

/// What BehaviorTree.CPP did with each file: its leaves' executions, or its error. With
/// `first_run`, only the tree's first run is ticked, and a condition answers by the tick
/// (run_trees.py).
fn in_btcpp(
    jobs: &[(String, usize)],
    first_run: bool,
) -> Vec<Result<Vec<(String, String)>, String>> {
    let input = serde_json::to_string(
        &jobs
            .iter()
            .map(|(xml, ticks)| {
                serde_json::json!({"xml": xml, "ticks": ticks, "first_run": first_run})
            })
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/btcpp/run_trees.py");
    let mut child = Command::new(common::btcpp_python())
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "run_trees.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    results
        .into_iter()
        .map(|r| match r.get("executes") {
            Some(list) => Ok(list
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    (
                        p[0].as_str().unwrap().to_owned(),
                        p[1].as_str().unwrap().to_owned(),
                    )
                })
                .collect()),
            None => Err(r["error"].as_str().unwrap_or("?").to_owned()),
        })
        .collect()
}

/// Arbor's run of `tree` for `steps` steps of 0.1 s (with `first_run`, up to the step its
/// first run completes in): each leaf execution and its result, in order; a leaf named as
/// run_trees.py names it (`mock_action_3` is `MockAction_3`).
fn in_arbor(tree: &Tree, steps: usize, first_run: bool) -> Vec<(String, String)> {
    let program = Program::compile(
        tree,
        &Catalog::builtin(),
        &NoAssets,
        &Behaviours::<()>::with_builtins(),
    )
    .unwrap();
    run_program(program, steps, first_run)
}

/// [`in_arbor`] of the tree file at `path` (its first run), its SubTrees found from its
/// folder; the file validated with no error first.
fn run_file(path: &Path, steps: usize) -> Vec<(String, String)> {
    let catalog = Catalog::builtin();
    let files = arbor::io::TreeFiles::new(&catalog);
    let found = files.validate_file(path).unwrap();
    assert!(
        found.iter().all(|d| !d.is_error()),
        "{}: {found:?}",
        path.display()
    );
    let tree = files.load(path).as_ref().clone().unwrap();
    let program = Program::compile(
        &tree,
        &catalog,
        &files.assets_for(path),
        &Behaviours::<()>::with_builtins(),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // Every file the run read is among its inputs (a trace names them; an output may not
    // be written over one): the tree's file and each file it includes.
    let read = files.paths();
    let text = std::fs::read_to_string(path).unwrap();
    let outline = btcpp::outline(&text).unwrap();
    for (include, _, _) in outline.includes {
        let file = std::fs::canonicalize(path.parent().unwrap().join(&include)).unwrap();
        assert!(
            read.contains(&file),
            "{} not among {read:?}",
            file.display()
        );
    }
    run_program(program, steps, true)
}

/// [`in_arbor`] of a compiled program.
fn run_program(program: Program<()>, steps: usize, first_run: bool) -> Vec<(String, String)> {
    let mut instance = Instance::new(Arc::new(program), 0);
    let mut done: Vec<(u64, String, String)> = Vec::new();
    let mut completed = false;
    for _ in 0..steps {
        if completed && first_run {
            break;
        }
        let mut observe = |e: &Event<'_>| match e.kind {
            EventKind::Execute => {
                done.push((e.step, e.node_id.to_owned(), "running".into()));
            }
            EventKind::Exit(s, _) => {
                // A leaf finishes in the step it executes, just after. (One whose
                // `_failureIf` holds exits without executing.)
                if let Some(last) = done.last_mut()
                    && last.0 == e.step
                    && last.1 == e.node_id
                    && last.2 == "running"
                {
                    last.2 = s.to_string();
                }
            }
            EventKind::Complete(_) => completed = true,
            _ => {}
        };
        instance.step(0.1, &mut (), Some(&mut observe));
    }
    done.into_iter()
        .map(|(_, id, result)| (btcpp_name(&id), result))
        .collect()
}

/// The name run_trees.py gives the leaf Arbor read as `id` (inside a SubTree, as
/// `SUBTREE/INNER`, as its asset's reading names it).
fn btcpp_name(id: &str) -> String {
    let id = id.rsplit('/').next().unwrap_or(id);
    let n = id
        .rsplit_once('_')
        .and_then(|(_, n)| n.parse::<usize>().ok());
    match (id.strip_prefix("mock_action"), n) {
        (Some(""), _) => "MockAction_1".into(),
        (Some(_), Some(n)) => format!("MockAction_{n}"),
        _ => id.to_owned(),
    }
}

/// A small deterministic generator (SplitMix64), so that every run checks the same trees.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The kinds a random tree may hold.
#[derive(Clone, Copy, PartialEq)]
enum Kinds {
    /// Those whose rules agree with BehaviorTree.CPP's, with finite loops.
    Agreeing,
    /// Every kind with a BehaviorTree.CPP form, loops for ever included.
    Writable,
    /// Those of `Agreeing` but the loops, with conditions whose answer changes from step
    /// to step.
    Changing,
    /// Those of `Agreeing`, with hooks (SEMANTICS.md §3.7) over two keys a script sets
    /// first.
    Hooked,
    /// Those of `Hooked` whose rules for a skipped child agree (not IfThenElse,
    /// WhileDoElse or KeepRunningUntilFailure: docs/BTCPP.md), with `_skipIf` and `_while`
    /// among the hooks.
    Skipping,
}

impl Kinds {
    /// Whether its trees' nodes have hooks.
    fn hooked(self) -> bool {
        matches!(self, Kinds::Hooked | Kinds::Skipping)
    }
}

/// The hooks a node of a `Kinds::Hooked` tree may have: each decides, or changes keys
/// others decide by.
const HOOKED: [(&str, &str); 8] = [
    ("_failureIf", "k0 >= 1"),
    ("_failureIf", "k1 >= 2"),
    ("_successIf", "k1 >= 1"),
    ("_successIf", "k0 >= 2"),
    ("_onSuccess", "k0 += 1"),
    ("_onFailure", "k1 += 1"),
    ("_post", "k0 := k0 + k1"),
    ("_onHalted", "k1 := 3"),
];

/// The hooks a node of a `Kinds::Skipping` tree may have besides [`HOOKED`] (but its
/// `_onHalted`: a branch skipped stays running in BehaviorTree.CPP, and a halt then runs
/// its `_onHalted`, docs/BTCPP.md).
const SKIPPING: [(&str, &str); 5] = [
    ("_skipIf", "k0 == 1"),
    ("_skipIf", "k1 >= 1"),
    ("_skipIf", "k0 + k1 < 2"),
    ("_while", "k0 < 2"),
    ("_while", "k1 == 0"),
];

/// A random condition: a constant one, or a scripted one (whose answer changes from step
/// to step for `Kinds::Changing`).
fn condition(g: &mut Gen, kinds: Kinds, id: NodeId) -> Node {
    if g.below(2) == 0 {
        return Node::new(id, ["AlwaysSuccess", "AlwaysFailure"][g.below(2) as usize]);
    }
    let mut n = Node::new(id, "MockCondition");
    let len = if kinds == Kinds::Changing {
        1 + g.below(8)
    } else {
        1
    };
    let script: String = (0..len)
        .map(|_| if g.below(2) == 0 { 'T' } else { 'F' })
        .collect();
    n.fields.insert("script".into(), Value::Text(script));
    n
}

/// A random subtree under `depth` more levels, its nodes added to `nodes`: its id.
fn subtree(g: &mut Gen, kinds: Kinds, depth: u32, nodes: &mut Vec<Node>) -> NodeId {
    let id = NodeId::new(format!("n{}", nodes.len()));
    let at = nodes.len();
    nodes.push(Node::new(id.clone(), ""));
    let choice = if depth == 0 { 0 } else { g.below(10) };
    let mut node = match choice {
        0..=3 => {
            if g.below(4) == 0 {
                condition(g, kinds, id.clone())
            } else if kinds == Kinds::Writable && g.below(6) == 0 {
                // Sleep in BehaviorTree.CPP, which counts wall-clock time: loaded, not run.
                let mut n = Node::new(id.clone(), "Wait");
                n.fields.insert("seconds".into(), Value::Float(0.25));
                n
            } else if kinds == Kinds::Writable && g.below(5) == 0 {
                // Scripts and UnsetBlackboard: loaded, not run (an unset key a script then
                // reads throws in BehaviorTree.CPP).
                let k = format!("k{}", g.below(3));
                let (kind, field, value) = match g.below(4) {
                    0 => ("UnsetKey", "out_context", k),
                    1 => ("Script", "code", format!("{k} := {at}; {k} *= 2")),
                    2 => ("Script", "code", format!("{k} := '{at}' .. 'x'")),
                    // Its code at its default, which must be written all the same.
                    _ => ("Script", "", String::new()),
                };
                let mut n = Node::new(id.clone(), kind);
                if !field.is_empty() {
                    n.fields.insert(field.into(), Value::Text(value));
                }
                n
            } else {
                let mut n = Node::new(id.clone(), "MockAction");
                let len = 1 + g.below(4);
                let script: String = (0..len)
                    .map(|_| ['R', 'S', 'F', 'R'][g.below(4) as usize])
                    .collect();
                n.fields.insert("script".into(), Value::Text(script));
                n
            }
        }
        4..=6 => {
            let kind = match (kinds, g.below(9)) {
                (Kinds::Writable, 0) => "Parallel",
                (Kinds::Writable, 8) => "Switch2",
                (_, 1 | 3) => "Selector",
                (_, 2 | 0) => "Sequence",
                (_, 4) => "ReactiveSequence",
                (_, 5) => "ReactiveSelector",
                (Kinds::Skipping, 6 | 7) => "Sequence",
                (_, 6) => "IfThenElse",
                (_, 7) => "WhileDoElse",
                // After a child that finishes in the tick it starts, BehaviorTree.CPP's
                // SequenceWithMemory waits for the next tick, as its loops do.
                (Kinds::Changing, _) => "Sequence",
                _ => "SequenceWithMemory",
            };
            let mut n = Node::new(id.clone(), kind);
            if kind == "Parallel" {
                let policy = |g: &mut Gen| if g.below(2) == 0 { "one" } else { "all" };
                n.fields
                    .insert("success".into(), Value::Text(policy(g).into()));
                n.fields
                    .insert("failure".into(), Value::Text(policy(g).into()));
            }
            if kind == "Switch2" {
                let word = |g: &mut Gen| ["a", "b", "7"][g.below(3) as usize];
                for field in ["variable", "case_1", "case_2"] {
                    n.fields.insert(field.into(), Value::Text(word(g).into()));
                }
            }
            let count = match kind {
                "IfThenElse" | "WhileDoElse" => 2 + g.below(2),
                "Switch2" => 3,
                _ => 1 + g.below(4),
            };
            let mut kids = Vec::new();
            if kind == "WhileDoElse" || (kind == "IfThenElse" && count == 2) {
                // Its first child answers at once: one that runs differs (docs/BTCPP.md).
                let c = NodeId::new(format!("n{}", nodes.len()));
                nodes.push(condition(g, kinds, c.clone()));
                kids.push(c);
            }
            while kids.len() < count as usize {
                kids.push(subtree(g, kinds, depth - 1, nodes));
            }
            n.inputs.insert(Port::Children, kids);
            n
        }
        _ => {
            let agreeing = [
                "Inverter",
                "ForceSuccess",
                "ForceFailure",
                "Repeater",
                "Retry",
                "KeepRunningUntilFailure",
            ];
            let writable = [
                "TimeLimit",
                "RunOnce",
                "Repeater",
                "Delay",
                "Precondition",
                "LoopInt",
            ];
            let kind = match kinds {
                Kinds::Writable if g.below(3) == 0 => writable[g.below(6) as usize],
                Kinds::Skipping => agreeing[g.below(5) as usize],
                // A loop over a child that finishes in the tick it starts waits for the
                // next tick in BehaviorTree.CPP (docs/BTCPP.md, "Where Arbor differs"),
                // which a condition that changes shows.
                Kinds::Changing => agreeing[g.below(3) as usize],
                _ => agreeing[g.below(6) as usize],
            };
            let mut n = Node::new(id.clone(), kind);
            match kind {
                "Repeater" | "Retry" => {
                    // 0 (for ever) only where the file is loaded, not ticked.
                    let least = u64::from(kinds != Kinds::Writable);
                    let times = least + g.below(4 - least);
                    n.fields.insert("times".into(), Value::Int(times as i64));
                }
                "TimeLimit" | "Delay" => {
                    n.fields.insert("seconds".into(), Value::Float(0.5));
                }
                "LoopInt" => {
                    n.fields.insert("queue".into(), Value::Text("1;2".into()));
                    n.fields.insert("value".into(), Value::Key("k2".into()));
                }
                // Its fields at their defaults, which must be written all the same.
                "Precondition" if g.below(2) == 0 => {
                    n.fields
                        .insert("if".into(), Value::Text("k1 == 'x' || k0 > 2".into()));
                    n.fields
                        .insert("else".into(), Value::Text("SUCCESS".into()));
                }
                _ => {}
            }
            let kid = subtree(g, kinds, depth - 1, nodes);
            n.inputs.insert(Port::Child, vec![kid]);
            n
        }
    };
    if kinds.hooked() && g.below(4) != 0 {
        let all: Vec<(&str, &str)> = match kinds {
            Kinds::Skipping => HOOKED
                .iter()
                .filter(|(hook, _)| *hook != "_onHalted")
                .chain(&SKIPPING)
                .copied()
                .collect(),
            _ => HOOKED.to_vec(),
        };
        for _ in 0..1 + g.below(2) {
            let (hook, code) = all[g.below(all.len() as u64) as usize];
            node.fields.insert(hook.into(), Value::Text(code.into()));
        }
    }
    node.id = id.clone();
    nodes[at] = node;
    id
}

/// A random tree: Root over a subtree up to 4 levels deep.
fn random_tree(g: &mut Gen, kinds: Kinds) -> Tree {
    let mut nodes = vec![Node::new("root", "Root")];
    let mut child = subtree(g, kinds, 4, &mut nodes);
    if kinds.hooked() {
        // The hooks' keys, set at the start of every run; then three subtrees, the first
        // two of which always go on to the next, so that one's hooks decide the next's.
        let mut set = Node::new("set", "Script");
        set.fields
            .insert("code".into(), Value::Text("k0 := 0; k1 := 0".into()));
        let mut kids = vec![set.id.clone()];
        nodes.push(set);
        for i in 0..2 {
            let mut on = Node::new(format!("on{i}").as_str(), "ForceSuccess");
            on.inputs.insert(Port::Child, vec![child]);
            kids.push(on.id.clone());
            nodes.push(on);
            child = subtree(g, kinds, 3, &mut nodes);
        }
        kids.push(child);
        let mut first = Node::new("first", "Sequence");
        first.inputs.insert(Port::Children, kids);
        child = first.id.clone();
        nodes.push(first);
    }
    nodes[0].inputs.insert(Port::Child, vec![child]);
    Tree::from_nodes(nodes).unwrap()
}

#[test]
fn every_file_arbor_writes_loads_in_behaviortree_cpp() {
    let mut g = Gen(7);
    let files: Vec<String> = (0..300)
        .map(|_| {
            btcpp::write(&random_tree(&mut g, Kinds::Writable), None)
                .unwrap()
                .0
        })
        .collect();
    let jobs: Vec<(String, usize)> = files.iter().map(|f| (f.clone(), 0)).collect();
    for (file, result) in files.iter().zip(in_btcpp(&jobs, false)) {
        if let Err(e) = result {
            panic!("BehaviorTree.CPP refused a file Arbor wrote: {e}\n{file}");
        }
    }
}

/// Runs 1,000 random trees of `kinds` (seeded by `seed`) written by Arbor, in Arbor (each
/// tree as Arbor reads the file it wrote) and in BehaviorTree.CPP, for 80 steps and ticks
/// (`first_run`: the first run only), and compares the leaves' executions. Without
/// `first_run` one is the start of the other; with it they are the same. Returns how many
/// executions were compared.
fn compare_1000(seed: u64, kinds: Kinds, first_run: bool) -> usize {
    const TREES: usize = 1000;
    const STEPS: usize = 80;
    let mut g = Gen(seed);
    let mut jobs = Vec::new();
    let mut ours = Vec::new();
    for _ in 0..TREES {
        let xml = btcpp::write(&random_tree(&mut g, kinds), None).unwrap().0;
        let tree = btcpp::read(&xml).unwrap().tree;
        // A first run's step 79 is tick 80 (see below).
        let steps = if first_run { STEPS - 1 } else { STEPS };
        let mut run = in_arbor(&tree, steps, first_run);
        // (BehaviorTree.CPP's side records the scripted actions only.)
        run.retain(|(leaf, _)| leaf.starts_with("MockAction"));
        ours.push(run);
        jobs.push((xml, STEPS));
    }
    let theirs = in_btcpp(&jobs, first_run);
    let mut executes = 0;
    for ((ours, theirs), (xml, _)) in ours.iter().zip(theirs).zip(&jobs) {
        let theirs = theirs.unwrap_or_else(|e| panic!("BehaviorTree.CPP refused it: {e}\n{xml}"));
        let n = ours.len().min(theirs.len());
        assert!(
            ours[..n] == theirs[..n] && (!first_run || ours.len() == theirs.len()),
            "Arbor and BehaviorTree.CPP part at execution {}:\n{xml}\narbor: {:?}\nbt.cpp: {:?}",
            ours.iter()
                .zip(&theirs)
                .position(|(a, b)| a != b)
                .unwrap_or(n),
            &ours[..ours.len().min(30)],
            &theirs[..theirs.len().min(30)]
        );
        executes += n;
    }
    executes
}

#[test]
fn arbor_runs_1000_random_trees_as_behaviortree_cpp_does() {
    // Arbor enters a tree again in the step its run completes; BehaviorTree.CPP at the
    // next tick: the same executions, Arbor's a little ahead. So one is the start of the
    // other.
    let executes = compare_1000(2026, Kinds::Agreeing, false);
    // The comparison is not empty: most trees execute many leaves.
    assert!(executes > 20_000, "only {executes} executions compared");
}

#[test]
fn first_runs_with_conditions_that_change_are_the_same_in_arbor_and_behaviortree_cpp() {
    // A condition answers by the step in Arbor and by the tick in BehaviorTree.CPP: step
    // k is tick k + 1 until the first run completes (Arbor's start enters the tree before
    // step 1's phases, at step 0), so each tree's first run is compared whole: its
    // executions, with their results, are the same.
    let executes = compare_1000(515, Kinds::Changing, true);
    assert!(executes > 3_000, "only {executes} executions compared");
}

/// The real files in tests/fixtures/btcpp (see the README there for where each comes from).
fn fixtures() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/btcpp")];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            // Node models, not trees (tests/libraries.rs reads them).
            if p.ends_with("models") {
                continue;
            }
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "xml") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn real_files_read_and_written_with_no_edit_are_the_same_file() {
    let files = fixtures();
    assert!(files.len() >= 10, "{files:?}");
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let (tree, _, kept) = arbor::io::load_tree_kept(&path).unwrap_or_else(|e| panic!("{e}"));
        let (written, _) = arbor::io::round_trip_kept(&tree, &path, &kept).unwrap();
        assert!(
            Document::parse(&text)
                .unwrap()
                .same_as(&Document::parse(&written).unwrap()),
            "{} changed:\n{written}",
            path.display()
        );
        // And BehaviorTree.CPP reads the same elements from both: its own loads are in
        // `every_file_arbor_writes_loads_in_behaviortree_cpp`.
    }
}

/// docs/BTCPP.md, "Where Arbor differs": BehaviorTree.CPP's Parallel fails as soon as its
/// success threshold cannot be reached any more; Arbor's waits until every child has
/// finished (SEMANTICS.md §3.3). Both sides are pinned here, so that a change of either
/// is seen.
/// The main tree `body` (the inside of its `<BehaviorTree>`) run in Arbor for `steps`
/// steps and in BehaviorTree.CPP for `ticks` ticks (`first_run`: the first run only): the
/// leaves' executions of each, as `LEAF RESULT`.
fn both_run(body: &str, steps: usize, ticks: usize, first_run: bool) -> [Vec<String>; 2] {
    let xml = format!(
        "<root BTCPP_format=\"4\">\n    <BehaviorTree ID=\"Main\">\n{body}\n    </BehaviorTree>\n</root>"
    );
    let tree = btcpp::read(&xml).unwrap().tree;
    let words = |list: Vec<(String, String)>| -> Vec<String> {
        list.iter().map(|(leaf, r)| format!("{leaf} {r}")).collect()
    };
    [
        words(in_arbor(&tree, steps, first_run)),
        words(in_btcpp(&[(xml, ticks)], first_run).remove(0).unwrap()),
    ]
}

#[test]
fn a_parallel_that_can_no_longer_succeed_differs_as_documented() {
    let [ours, theirs] = both_run(
        r#"        <Parallel success_count="-1" failure_count="-1">
            <MockAction script="F"/>
            <MockAction script="RRS"/>
        </Parallel>"#,
        3,
        4,
        false,
    );
    assert_eq!(
        ours,
        [
            "MockAction_1 failure",
            "MockAction_2 running",
            "MockAction_2 running",
            "MockAction_2 success"
        ]
    );
    // BehaviorTree.CPP fails the Parallel at the first failure, before the second child
    // executes, and starts again: the second child never executes.
    assert_eq!(theirs, ["MockAction_1 failure", "MockAction_1 failure"]);
}

#[test]
fn a_loop_over_a_child_that_finishes_at_once_differs_as_documented() {
    // The first run: the condition holds at tick 1 (Arbor's step 0), fails after.
    let [ours, theirs] = both_run(
        r#"        <Fallback>
            <RetryUntilSuccessful num_attempts="3">
                <Inverter>
                    <MockCondition script="TF"/>
                </Inverter>
            </RetryUntilSuccessful>
            <MockAction script="S"/>
        </Fallback>"#,
        3,
        4,
        true,
    );
    // Arbor runs the three attempts in step 0, each failing: the Fallback moves on to the
    // action.
    assert_eq!(ours, ["MockAction_1 success"]);
    // BehaviorTree.CPP's Retry, after an attempt that failed in the tick it started,
    // waits for the next tick (its wake-up signal, which `tick_exactly_once` does not
    // follow), where the condition fails and the attempt succeeds: the action never runs.
    assert!(theirs.is_empty(), "{theirs:?}");
}

#[test]
fn a_sequence_with_memory_after_a_child_that_finishes_at_once_differs_as_documented() {
    let [ours, theirs] = both_run(
        r#"        <Fallback>
            <SequenceWithMemory>
                <AlwaysSuccess/>
                <MockCondition script="TF"/>
            </SequenceWithMemory>
            <MockAction script="S"/>
        </Fallback>"#,
        3,
        4,
        true,
    );
    // Arbor checks the condition in the step AlwaysSuccess succeeded in (step 0): it holds,
    // and the first run succeeds without an execution.
    assert!(ours.is_empty(), "{ours:?}");
    // BehaviorTree.CPP's SequenceWithMemory waits for the next tick, where the condition
    // fails: the Fallback runs the action.
    assert_eq!(theirs, ["MockAction_1 success"]);
}

#[test]
fn an_if_then_else_of_two_children_whose_first_fails_differs_as_documented() {
    let [ours, theirs] = both_run(
        r#"        <ReactiveFallback>
            <IfThenElse>
                <MockAction script="F"/>
                <MockAction script="S"/>
            </IfThenElse>
            <MockAction script="RRS"/>
        </ReactiveFallback>"#,
        5,
        6,
        true,
    );
    // Arbor enters the IfThenElse afresh at every step: its first child runs again, and
    // the Fallback's second child is aborted each time before it executes.
    assert_eq!(ours, ["MockAction_1 failure"; 3]);
    // BehaviorTree.CPP's IfThenElse fails without resetting its first child, which then
    // answers its old failure without running: the second child runs to its end.
    assert_eq!(
        theirs,
        [
            "MockAction_1 failure",
            "MockAction_3 running",
            "MockAction_3 running",
            "MockAction_3 success"
        ]
    );
}

#[test]
fn a_while_do_else_whose_first_child_is_an_action_differs_as_documented() {
    let [ours, theirs] = both_run(
        r#"        <WhileDoElse>
            <MockAction script="S"/>
            <MockAction script="RRS"/>
        </WhileDoElse>"#,
        5,
        6,
        true,
    );
    // Arbor enters the first child again at every step: it runs, and the second child
    // is aborted each time before it executes.
    assert_eq!(ours, ["MockAction_1 success"; 3]);
    // BehaviorTree.CPP keeps the first child's success while the second runs: ticked
    // again, it answers that without running.
    assert_eq!(
        theirs,
        [
            "MockAction_1 success",
            "MockAction_2 running",
            "MockAction_2 running",
            "MockAction_2 success"
        ]
    );
}

/// Broken files (each real file cut, with bytes changed, dropped or repeated): read with
/// a clear error or as a tree, never a panic; what is read goes through every stage of
/// the `xml_bytes` fuzz target (tests/common/exercise.rs).
#[test]
fn mangled_files_are_read_or_refused_never_a_panic() {
    let mut g = Gen(99);
    let texts: Vec<String> = fixtures()
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let mut read = 0;
    for round in 0..3000 {
        let mut bytes = texts[round % texts.len()].clone().into_bytes();
        for _ in 0..1 + g.below(4) {
            if bytes.is_empty() {
                break;
            }
            let at = g.below(bytes.len() as u64) as usize;
            match g.below(4) {
                0 => bytes[at] = b"<>/=\"{}!-? aZ"[g.below(13) as usize],
                1 => {
                    bytes.remove(at);
                }
                2 => bytes.truncate(at),
                _ => {
                    let piece: Vec<u8> = bytes[at..(at + 40).min(bytes.len())].to_vec();
                    bytes.splice(at..at, piece);
                }
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        match btcpp::read(&text) {
            Ok(_) => read += 1,
            Err(e) => assert!(!e.message.is_empty()),
        }
        common::exercise::xml_text(&text);
    }
    assert!(read > 100, "only {read} mangled files read");
}

/// SubTrees (docs/BTCPP.md, "SubTrees"): trees of the same file and of a file it
/// includes, each SubTree's ports bound to values and to keys of its caller, run as
/// BehaviorTree.CPP runs them: a Repeat inside reads its count from the SubTree's port.
#[test]
fn subtrees_with_their_ports_bound_run_as_in_behaviortree_cpp() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("lib")).unwrap();
    let lib = r#"<root BTCPP_format="4">
    <BehaviorTree ID="Times">
        <Repeat num_cycles="{n}">
            <MockAction script="RS"/>
        </Repeat>
    </BehaviorTree>
</root>"#;
    std::fs::write(dir.path().join("lib/times.xml"), lib).unwrap();
    let main = r#"<root BTCPP_format="4" main_tree_to_execute="Main">
    <include path="lib/times.xml"/>
    <BehaviorTree ID="Main">
        <Sequence>
            <SubTree ID="Times" n="2"/>
            <SubTree ID="Laps" laps="3"/>
            <SubTree ID="Shared" n="2" _autoremap="true"/>
        </Sequence>
    </BehaviorTree>
    <BehaviorTree ID="Laps">
        <SubTree ID="Times" n="{laps}"/>
    </BehaviorTree>
    <BehaviorTree ID="Shared">
        <Sequence>
            <SubTree ID="Once" n="1" _autoremap="true"/>
            <SubTree ID="Times" _autoremap="true"/>
        </Sequence>
    </BehaviorTree>
    <BehaviorTree ID="Once">
        <SubTree ID="Times" _autoremap="true"/>
    </BehaviorTree>
</root>"#;
    let path = dir.path().join("main.xml");
    std::fs::write(&path, main).unwrap();
    let ours = run_file(&path, 80);
    // BehaviorTree.CPP reads the included file from the same folder: given as one text
    // here (run_trees.py loads text), the included tree is put into it.
    let inlined = main.replace(
        r#"<include path="lib/times.xml"/>"#,
        &lib.replace(r#"<root BTCPP_format="4">"#, "")
            .replace("</root>", ""),
    );
    let theirs = in_btcpp(&[(inlined, 80)], true).remove(0).unwrap();
    // 2 + 3 + (1 + 2) rounds of the action, each running then succeeding: a value given
    // to a SubTree that shares its keys is its own (Once's 1 leaves Shared's 2 as it was).
    assert_eq!(ours.len(), 16, "{ours:?}");
    assert_eq!(ours, theirs);
}

/// docs/BTCPP.md, "SubTrees": a missing or looping `<include>` is a load error at the
/// include's line; a SubTree whose tree is nowhere, or leads back to itself, is said by
/// validation; none is a panic.
#[test]
fn include_and_subtree_problems_are_said_with_their_place() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let tree = |body: &str| {
        format!(
            "<root BTCPP_format=\"4\">\n{body}\n<BehaviorTree ID=\"T\"><AlwaysSuccess/></BehaviorTree>\n</root>"
        )
    };
    let missing = write("missing.xml", &tree("  <include path=\"gone.xml\"/>"));
    let e = arbor::io::load_tree(&missing).unwrap_err().to_string();
    assert!(e.contains("missing.xml:2:3"), "{e}");
    assert!(
        e.contains("<include path=\"gone.xml\">: no such file"),
        "{e}"
    );
    write("a.xml", &tree("<include path=\"b.xml\"/>"));
    write("b.xml", &tree("<include path=\"a.xml\"/>"));
    let e = arbor::io::load_tree(&dir.path().join("a.xml"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("include each other (a.xml → b.xml → a.xml)"),
        "{e}"
    );
    let catalog = Catalog::builtin();
    let files = arbor::io::TreeFiles::new(&catalog);
    let nowhere = write(
        "nowhere.xml",
        "<root BTCPP_format=\"4\"><BehaviorTree ID=\"M\"><SubTree ID=\"Ghost\"/></BehaviorTree></root>",
    );
    let found = files.validate_file(&nowhere).unwrap();
    assert!(
        found.iter().any(|d| d.to_string().contains(
            "no <BehaviorTree ID=\"Ghost\"> in nowhere.xml, the files it includes, or its folder"
        )),
        "{found:?}"
    );
    let cycle = write(
        "cycle.xml",
        "<root BTCPP_format=\"4\" main_tree_to_execute=\"M\">
  <BehaviorTree ID=\"M\"><SubTree ID=\"N\"/></BehaviorTree>
  <BehaviorTree ID=\"N\"><Inverter><SubTree ID=\"M\"/></Inverter></BehaviorTree>
</root>",
    );
    let found = files.validate_file(&cycle).unwrap();
    assert!(
        found.iter().any(|d| d
            .to_string()
            .contains("cycle.xml → cycle.xml#N → cycle.xml")),
        "{found:?}"
    );
    // A tree of another file of the folder, found by its ID (one tree per file, as Nav2
    // keeps them).
    write(
        "walk.xml",
        "<root BTCPP_format=\"4\"><BehaviorTree ID=\"Walk\"><AlwaysSuccess/></BehaviorTree></root>",
    );
    let user = write(
        "user.xml",
        "<root BTCPP_format=\"4\"><BehaviorTree ID=\"U\"><SubTree ID=\"Walk\"/></BehaviorTree></root>",
    );
    // (A command's files are read once: a new command sees the folder as it is now.)
    let files = arbor::io::TreeFiles::new(&catalog);
    let found = files.validate_file(&user).unwrap();
    assert!(found.iter().all(|d| !d.is_error()), "{found:?}");
    // An ID with a `#` in it is that ID.
    write(
        "hash.xml",
        "<root BTCPP_format=\"4\"><BehaviorTree ID=\"U\"><SubTree ID=\"a#b\"/></BehaviorTree><BehaviorTree ID=\"a#b\"><AlwaysSuccess/></BehaviorTree></root>",
    );
    let found = files.validate_file(&dir.path().join("hash.xml")).unwrap();
    assert!(found.iter().all(|d| !d.is_error()), "{found:?}");
}

/// BehaviorTree.CPP's own include tests (tests/trees: trees that include trees that
/// include trees, by relative paths up and down the folders): every SubTree is found,
/// and each file validates and compiles with no error.
#[test]
fn behaviortree_cpp_include_trees_resolve_every_subtree_and_run() {
    let trees: Vec<PathBuf> = fixtures()
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("bt.cpp/tests/trees"))
        .collect();
    assert_eq!(trees.len(), 10);
    let mut subtrees = 0;
    for path in trees {
        let tree = arbor::io::load_tree(&path).unwrap();
        subtrees += tree.nodes().iter().filter(|n| n.kind == "SubTree").count();
        run_file(&path, 4);
    }
    assert!(subtrees >= 6, "{subtrees}");
}

/// docs/BTCPP.md, "Format 3": a BehaviorTree.CPP 3 file (SequenceStar, a SubTree whose
/// ports name keys without braces, SubTreePlus) read by Arbor and written as format 4
/// loads in BehaviorTree.CPP 4 and runs there as in Arbor.
#[test]
fn a_format_3_file_written_as_format_4_runs_the_same_in_behaviortree_cpp() {
    let v3 = r#"<root BTCPP_format="3" main_tree_to_execute="Main">
    <BehaviorTree ID="Main">
        <SequenceStar>
            <MockAction script="RS"/>
            <SubTree ID="Laps" n="count" __shared_blackboard="false"/>
            <SubTreePlus ID="Laps" n="2" __autoremap="false"/>
        </SequenceStar>
    </BehaviorTree>
    <BehaviorTree ID="Laps">
        <Repeat num_cycles="{n}">
            <MockAction script="RS"/>
        </Repeat>
    </BehaviorTree>
</root>"#;
    let x = btcpp::read(v3).unwrap();
    let (v4, _) = btcpp::write(&x.tree, Some(&x.source)).unwrap();
    assert!(v4.contains(r#"<SubTree ID="Laps" n="{count}"/>"#), "{v4}");
    // The main tree gives `count` nothing: BehaviorTree.CPP and Arbor both stop at the
    // Repeat that cannot read it. Given 3 by a SubTree of its own, both run it.
    let v4 = v4.replace(
        "<BehaviorTree ID=\"Main\">",
        "<BehaviorTree ID=\"Outer\"><SubTree ID=\"Main\" count=\"3\"/></BehaviorTree>\n    <BehaviorTree ID=\"Main\">",
    )
    .replace("main_tree_to_execute=\"Main\"", "main_tree_to_execute=\"Outer\"");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.xml");
    std::fs::write(&path, &v4).unwrap();
    let ours = run_file(&path, 80);
    let theirs = in_btcpp(&[(v4, 80)], true).remove(0).unwrap();
    // 1 + 3 + 2 rounds, each running then succeeding.
    assert_eq!(ours.len(), 12, "{ours:?}");
    assert_eq!(
        ours.iter().map(|(_, r)| r).collect::<Vec<_>>(),
        theirs.iter().map(|(_, r)| r).collect::<Vec<_>>()
    );
}

/// For each script condition, the actions that ran after it, in Arbor and in
/// BehaviorTree.CPP: `MockAction_1` succeeds where it holds, `MockAction_2` fails where it
/// does not. Its keys are given by a SubTree's ports: `speed` 3, `mode` patrol, `near`
/// yes.
fn script_conditions_in_both(codes: &[&str]) -> Vec<[Vec<(String, String)>; 2]> {
    let escape = |c: &str| {
        c.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let dir = tempfile::tempdir().unwrap();
    let mut jobs = Vec::new();
    let mut ours = Vec::new();
    for (i, code) in codes.iter().enumerate() {
        let xml = format!(
            r#"<root BTCPP_format="4" main_tree_to_execute="Main">
    <BehaviorTree ID="Main">
        <SubTree ID="Check" speed="3" mode="patrol" near="yes"/>
    </BehaviorTree>
    <BehaviorTree ID="Check">
        <Fallback>
            <Sequence>
                <ScriptCondition code="{}"/>
                <MockAction script="S"/>
            </Sequence>
            <MockAction script="F"/>
        </Fallback>
    </BehaviorTree>
</root>"#,
            escape(code)
        );
        let path = dir.path().join(format!("script_{i}.xml"));
        std::fs::write(&path, &xml).unwrap();
        ours.push(run_file(&path, 3));
        jobs.push((xml, 3));
    }
    in_btcpp(&jobs, true)
        .into_iter()
        .zip(ours)
        .zip(codes)
        .map(|((theirs, ours), code)| {
            [ours, theirs.unwrap_or_else(|e| vec![(code.to_string(), e)])]
        })
        .collect()
}

/// docs/SCRIPTS.md: ScriptCondition's expressions over keys (given by a SubTree's ports)
/// and literals decide as in BehaviorTree.CPP: which of two actions runs after each, in
/// both, is the same.
#[test]
fn script_conditions_decide_as_in_behaviortree_cpp() {
    let codes = [
        "1 + 2 * 3 == 7",
        "(1 + 2) * 3 == 9",
        "10 / 4 == 2.5",
        "7 - (2 - 1) == 6",
        "-3 < -2",
        "!(1 > 2)",
        "!0 && 1",
        "0 || 0",
        "1 < 2 < 3",
        "3 > 2 > 1",
        "1 < 3 < 2",
        "0x10 == 16",
        "1.5e1 == 15",
        "(6 & 3) == 2",
        "(6 | 3) == 7",
        "(6 ^ 3) == 5",
        "(~0) == -1",
        "true && !false",
        "2 > 1 ? 1 : 0",
        "0 ? 1 : 2 == 2",
        "'abc' == 'abc'",
        "'abc' != 'abd'",
        "'abc' < 'abd'",
        "'ab' + 'c' == 'abc'",
        "'n' .. 5 == 'n5'",
        "speed > 2.5",
        "speed >= 3 && speed <= 3",
        "mode == 'patrol'",
        "mode != 'patrol' || speed == 3",
        "mode .. '!' == 'patrol!'",
        "speed == 3 ? mode == 'patrol' : false",
        "0.1 + 0.2 == 0.3",
        "near == 'yes'",
    ];
    let both = script_conditions_in_both(&codes);
    let holds = both
        .iter()
        .filter(|[ours, _]| ours.first().is_some_and(|(_, r)| r == "success"))
        .count();
    assert!(
        holds > 20 && holds < codes.len(),
        "{holds} of {} hold",
        codes.len()
    );
    let differ: Vec<String> = codes
        .iter()
        .zip(&both)
        .filter(|(_, [a, b])| a != b)
        .map(|(code, [a, b])| format!("{code}: {a:?} / {b:?}"))
        .collect();
    assert!(differ.is_empty(), "{differ:#?}");
}

/// docs/SCRIPTS.md, "Where Arbor differs": BehaviorTree.CPP 4.8 reads `-` and `/` from the
/// right (`7 - 2 - 1` is 6) and refuses a prefix `~` beside a comparison; Arbor reads them
/// from the left, as BehaviorTree.CPP 4.10 and arithmetic do (4), and takes `~0 == -1`.
#[test]
fn script_operators_from_the_left_differ_from_behaviortree_cpp_4_8_as_documented() {
    let both = script_conditions_in_both(&["7 - 2 - 1 == 4", "8 / 4 / 2 == 1", "~0 == -1"]);
    let ran = |r: &Vec<(String, String)>| r.first().map(|(leaf, _)| leaf.clone());
    for [ours, _] in &both {
        assert_eq!(ran(ours).as_deref(), Some("MockAction_1"), "{ours:?}");
    }
    assert_eq!(ran(&both[0][1]).as_deref(), Some("MockAction_2"));
    assert_eq!(ran(&both[1][1]).as_deref(), Some("MockAction_2"));
    assert!(
        both[2][1][0].1.contains("cannot be mixed"),
        "{:?}",
        both[2][1]
    );
}

/// docs/BTCPP.md, "Nodes": ParallelAll (of one failure at most) runs every child to its
/// end, as Arbor's Parallel of success `all` and failure `all` does, in both.
#[test]
fn parallel_all_runs_as_in_behaviortree_cpp() {
    for body in [
        r#"        <ParallelAll>
            <MockAction script="RRS"/>
            <MockAction script="F"/>
            <MockAction script="RS"/>
        </ParallelAll>"#,
        r#"        <Sequence>
            <ParallelAll max_failures="1">
                <MockAction script="RS"/>
                <Inverter><MockCondition script="F"/></Inverter>
                <MockAction script="RRRS"/>
            </ParallelAll>
            <MockAction script="S"/>
        </Sequence>"#,
        r#"        <Fallback>
            <ParallelAll>
                <MockAction script="RF"/>
                <MockAction script="RRS"/>
            </ParallelAll>
            <MockAction script="RS"/>
        </Fallback>"#,
    ] {
        let [ours, theirs] = both_run(body, 12, 12, true);
        assert!(ours.len() >= 4, "{ours:?}");
        assert_eq!(ours, theirs, "{body}");
    }
}

/// docs/BTCPP.md, "Nodes": SetBlackboard stores a value that a ScriptCondition then
/// reads, as in BehaviorTree.CPP.
#[test]
fn scripts_and_unset_blackboard_run_as_in_behaviortree_cpp() {
    // Scripts that create, combine and join keys, a choice, a key unset and set again;
    // ScriptConditions over them decide which actions run.
    for (n, runs) in [(1, 2), (4, 2), (-2, 1)] {
        let want = (n + 2) * 3;
        let body = format!(
            r#"        <Sequence>
            <Script code="count := {n}; label := 'go'"/>
            <Script code="count += 2; count *= 3; label += 'ne'; half := count / 4"/>
            <Fallback>
                <ScriptCondition code="count == {want} &amp;&amp; label == 'gone'"/>
                <MockAction script="F"/>
            </Fallback>
            <MockAction script="RS"/>
            <Script code="big := half &gt; 1 ? 'yes' : 'no'; steps := 0; steps -= 2"/>
            <UnsetBlackboard key="label"/>
            <Script code="label := 'again' .. steps"/>
            <Fallback>
                <ScriptCondition code="big == 'yes' &amp;&amp; label == 'again-2'"/>
                <MockAction script="F"/>
            </Fallback>
            <MockAction script="S"/>
        </Sequence>"#
        );
        same_actions(&body, 16, runs);
    }
}

/// A Switch4 whose variable a script sets first (`set`), over cases of texts, numbers
/// and a key, each child's actions of their own.
fn switch_body(set: &str) -> String {
    format!(
        r#"        <Sequence>
            <Script code="{set}"/>
            <Switch4 variable="{{mode}}" case_1="patrol" case_2="2" case_3="{{want}}" case_4="2.5">
                <MockAction script="S"/>
                <MockAction script="RS"/>
                <Sequence>
                    <MockAction script="S"/>
                    <MockAction script="S"/>
                </Sequence>
                <Sequence>
                    <MockAction script="RS"/>
                    <MockAction script="S"/>
                </Sequence>
                <MockAction script="F"/>
            </Switch4>
        </Sequence>"#
    )
}

#[test]
fn switches_choose_as_in_behaviortree_cpp() {
    // The variable set by a script (or never set), cases of texts, numbers and a key.
    for (set, successes) in [
        ("mode := 'patrol'", 1),
        ("mode := 2", 1),
        ("mode := '2.0'", 1),
        ("mode := 'flee'", 0),
        ("other := 1", 0),
        ("mode := 7; want := 7", 2),
    ] {
        same_actions(&switch_body(set), 8, successes);
    }
}

#[test]
fn a_switch_on_a_fraction_differs_from_behaviortree_cpp_4_8_as_documented() {
    // BehaviorTree.CPP 4.8 reads the whole part of the text `2.5` (or of the number 2.5
    // written as text) as a whole number, so `2` matches it; Arbor compares the whole
    // text, as BehaviorTree.CPP 4.9 does (docs/BTCPP.md).
    let [ours, theirs] = both_run(&switch_body("mode := 2.5"), 8, 8, true);
    let actions = |l: Vec<String>| -> Vec<String> {
        l.into_iter()
            .filter(|w| w.starts_with("MockAction"))
            .collect()
    };
    assert_eq!(
        actions(ours),
        [
            "MockAction_5 running",
            "MockAction_5 success",
            "MockAction_6 success"
        ]
    );
    assert_eq!(theirs, ["MockAction_2 running", "MockAction_2 success"]);
}

#[test]
fn a_switch_follows_its_variable_as_in_behaviortree_cpp() {
    // A Parallel's first child changes the mode while the Switch's children run: the
    // Switch leaves one for another in both. Arbor's scripts set their keys a step later
    // (docs/BTCPP.md), so each child runs a step longer or shorter: the children are
    // compared in the order they ran.
    let body = r#"        <Parallel success_count="1" failure_count="1">
            <Sequence>
                <MockAction script="RRS"/>
                <Script code="mode := 'b'"/>
                <MockAction script="RRS"/>
                <Script code="mode := 'a'"/>
                <MockAction script="RRRS"/>
            </Sequence>
            <Switch2 variable="{mode}" case_1="a" case_2="b">
                <MockAction script="R"/>
                <MockAction script="R"/>
                <MockAction script="R"/>
            </Switch2>
        </Parallel>"#;
    let [ours, theirs] = both_run(body, 14, 14, true);
    let order = |list: &[String]| -> Vec<String> {
        let mut names: Vec<String> = list
            .iter()
            .filter_map(|w| w.split(' ').next())
            .filter(|n| ["MockAction_4", "MockAction_5", "MockAction_6"].contains(n))
            .map(str::to_owned)
            .collect();
        names.dedup();
        names
    };
    assert_eq!(
        order(&ours),
        ["MockAction_6", "MockAction_5", "MockAction_4"],
        "{ours:?}"
    );
    assert_eq!(order(&ours), order(&theirs), "{theirs:?}");
}

#[test]
fn preconditions_run_as_in_behaviortree_cpp() {
    // A Precondition over a key a script sets, with either `else`, in a Sequence and a
    // Fallback; and one whose key a Parallel's other child changes while its child runs.
    for (battery, successes) in [(0.9, 3), (0.3, 2)] {
        let body = format!(
            r#"        <Sequence>
            <Script code="battery := {battery}"/>
            <Fallback>
                <Precondition if="battery &gt; 0.5 &amp;&amp; battery &lt; 1" else="FAILURE">
                    <MockAction script="RS"/>
                </Precondition>
                <MockAction script="S"/>
            </Fallback>
            <Precondition if="battery &gt; 0.5" else="SUCCESS">
                <MockAction script="RRS"/>
            </Precondition>
            <MockAction script="S"/>
        </Sequence>"#
        );
        same_actions(&body, 10, successes);
    }
    let body = r#"        <Sequence>
            <Script code="go := 1"/>
            <Parallel success_count="-1" failure_count="1">
                <Sequence>
                    <MockAction script="S"/>
                    <Script code="go := 0"/>
                </Sequence>
                <Precondition if="go == 1" else="FAILURE">
                    <MockAction script="RRRRS"/>
                </Precondition>
            </Parallel>
            <MockAction script="S"/>
        </Sequence>"#;
    same_actions(body, 12, 3);
}

#[test]
fn loop_nodes_run_as_in_behaviortree_cpp() {
    // Each element reaches the child through the value's key; a failure ends the loop;
    // after the last element, or for an empty queue, `if_empty` decides.
    for (kind, queue, check, empty, successes) in [
        ("LoopInt", "1;2;3", "x &lt; 3", "SUCCESS", 2),
        ("LoopInt", "1;2;3", "x &lt; 9", "SUCCESS", 4),
        ("LoopInt", "1;2;3", "x &lt; 9", "FAILURE", 3),
        ("LoopDouble", "0.5;2.5", "x &gt; 0.1", "SUCCESS", 3),
        ("LoopString", "a;b;c", "x != 'c'", "SUCCESS", 2),
        ("LoopBool", "true;false", "x", "SUCCESS", 1),
        ("LoopString", "", "x == 'a'", "FAILURE", 0),
    ] {
        let body = format!(
            r#"        <Sequence>
            <{kind} queue="{queue}" value="{{x}}" if_empty="{empty}">
                <Sequence>
                    <ScriptCondition code="{check}"/>
                    <MockAction script="RS"/>
                </Sequence>
            </{kind}>
            <MockAction script="S"/>
        </Sequence>"#
        );
        same_actions(&body, 14, successes);
    }
}

#[test]
fn set_blackboard_and_script_conditions_run_as_in_behaviortree_cpp() {
    for (n, runs) in [("3", 2), ("1", 0)] {
        let body = format!(
            r#"        <Sequence>
            <SetBlackboard value="{n}" output_key="count"/>
            <ScriptCondition code="count &gt; 2"/>
            <MockAction script="RS"/>
            <SetBlackboard value="patrol" output_key="mode"/>
            <ScriptCondition code="mode == 'patrol' &amp;&amp; count == 3"/>
            <MockAction script="S"/>
        </Sequence>"#
        );
        same_actions(&body, 8, runs);
    }
}

/// The first run of `body` for `steps` steps and ticks: its scripted actions execute the
/// same in both (BehaviorTree.CPP's side records them only), `successes` of them
/// succeeding.
#[track_caller]
fn same_actions(body: &str, steps: usize, successes: usize) {
    let [ours, theirs] = both_run(body, steps, steps, true);
    let ours: Vec<String> = ours
        .into_iter()
        .filter(|w| w.starts_with("MockAction"))
        .collect();
    let done = ours.iter().filter(|w| w.ends_with(" success")).count();
    assert_eq!(done, successes, "{body}\n{ours:?}\n{theirs:?}");
    assert_eq!(ours, theirs, "{body}");
}

/// SEMANTICS.md §3.7: `_failureIf` and `_successIf` decide as a node is entered, its
/// finishing hooks run in order, and `_onHalted` runs as a running node is stopped; keys
/// they set decide which actions run later, the same in both.
#[test]
fn hooks_run_as_in_behaviortree_cpp() {
    // A leaf that fails at once, or runs; what its hooks set decides the rest.
    for (tired, ran) in [(1, "MockAction_2 success"), (0, "MockAction_3 failure")] {
        let body = format!(
            r#"        <Sequence>
            <Script code="tired := {tired}; n := 0"/>
            <Fallback>
                <MockAction script="RS" _failureIf="tired == 1" _onSuccess="n := 1" _onFailure="n := 5" _post="n *= 2"/>
                <MockAction script="S"/>
            </Fallback>
            <ScriptCondition code="n == 2 || n == 10"/>
            <Fallback>
                <ScriptCondition code="n == 10"/>
                <MockAction script="F"/>
            </Fallback>
        </Sequence>"#
        );
        same_actions(&body, 10, 1);
        let [ours, _] = both_run(&body, 10, 10, true);
        assert!(ours.contains(&ran.to_owned()), "{ours:?}");
    }
    // A branch that succeeds at once, its children never entered; one that runs.
    for (done, successes) in [(1, 1), (0, 2)] {
        let body = format!(
            r#"        <Sequence>
            <Script code="done := {done}; seen := 0"/>
            <Sequence _successIf="done == 1" _failureIf="done == 2" _onSuccess="seen := 1">
                <MockAction script="RRS"/>
            </Sequence>
            <ScriptCondition code="seen == 1"/>
            <MockAction script="S"/>
        </Sequence>"#
        );
        same_actions(&body, 10, successes);
    }
    // `_onHalted` as a Parallel stops its running child, and not `_post`; the child that
    // finished runs `_post`, not `_onHalted`.
    let body = r#"        <Sequence>
            <Script code="h := 0; p := 0; q := 0"/>
            <Parallel success_count="1" failure_count="1">
                <MockAction script="RRRRS" _onHalted="h := 1" _post="p := 5"/>
                <MockAction script="RS" _onHalted="q := 1" _post="p := 1"/>
            </Parallel>
            <ScriptCondition code="h == 1 &amp;&amp; p == 1 &amp;&amp; q == 0"/>
            <MockAction script="S"/>
        </Sequence>"#;
    same_actions(body, 10, 2);
    // Hooks on a decorator and a reactive composite's children, checked at every entry.
    let body = r#"        <Sequence>
            <Script code="k := 0"/>
            <Repeat num_cycles="4" _post="k := 9">
                <Fallback>
                    <MockAction script="S" _failureIf="k &gt; 1" _onSuccess="k += 1"/>
                    <MockAction script="S" _successIf="k == 3" _onSuccess="k += 1"/>
                </Fallback>
            </Repeat>
            <ReactiveSequence>
                <ScriptCondition code="k &gt;= 9" _onSuccess="k := 10"/>
                <MockAction script="RRS" _failureIf="k != 10"/>
            </ReactiveSequence>
        </Sequence>"#;
    same_actions(body, 14, 4);
}

#[test]
fn random_trees_with_hooks_run_as_in_behaviortree_cpp() {
    // Hooks that decide as nodes are entered and set the keys others decide by, on any
    // node of the agreeing kinds; every run starts by setting the keys.
    let executes = compare_1000(4242, Kinds::Hooked, false);
    assert!(executes > 20_000, "only {executes} executions compared");
    let changed = changed_by_hooks(4242, Kinds::Hooked);
    assert!(
        changed > 100,
        "the hooks changed the run of only {changed} trees"
    );
}

#[test]
fn random_trees_with_skips_run_as_in_behaviortree_cpp() {
    // The same with `_skipIf` and `_while` among the hooks: skipped nodes, nodes halted
    // while they run, and composites all of whose children are skipped, over the kinds
    // whose rules for a skipped child agree.
    let executes = compare_1000(77, Kinds::Skipping, false);
    assert!(executes > 20_000, "only {executes} executions compared");
    let changed = changed_by_hooks(77, Kinds::Skipping);
    assert!(
        changed > 100,
        "the hooks changed the run of only {changed} trees"
    );
}

/// Of the 1,000 random trees of `kinds` seeded by `seed`, how many Arbor runs otherwise
/// without their hooks (the hooks change what runs in them).
fn changed_by_hooks(seed: u64, kinds: Kinds) -> usize {
    let mut g = Gen(seed);
    (0..1000)
        .filter(|_| {
            let tree = random_tree(&mut g, kinds);
            let mut nodes = tree.nodes().to_vec();
            for node in &mut nodes {
                node.fields.retain(|k, _| !arbor::model::is_hook(k));
            }
            let plain = Tree::from_nodes(nodes).unwrap();
            in_arbor(&tree, 80, false) != in_arbor(&plain, 80, false)
        })
        .count()
}

/// SEMANTICS.md §3.7, "Skipped": `_skipIf`, a RunOnce's `then_skip` (BehaviorTree.CPP's
/// default), a Precondition's and a Loop's `SKIPPED`, and composites whose children are
/// all skipped, the same in both.
#[test]
fn skipped_nodes_run_as_in_behaviortree_cpp() {
    let body = r#"        <Sequence>
            <Script code="k := 0; n := 0"/>
            <Repeat num_cycles="3">
                <Sequence>
                    <RunOnce>
                        <MockAction script="RS" _onSuccess="n += 1"/>
                    </RunOnce>
                    <RunOnce then_skip="false">
                        <MockAction script="F"/>
                    </RunOnce>
                </Sequence>
            </Repeat>
            <Fallback>
                <Sequence>
                    <MockAction script="S" _skipIf="n == 1"/>
                    <MockAction script="S" _skipIf="k == 0"/>
                </Sequence>
                <MockAction script="F"/>
            </Fallback>
        </Sequence>"#;
    // The first Repeat cycle runs both RunOnces' children; the second's child failed, so
    // the Repeat fails there; BehaviorTree.CPP agrees.
    same_actions(body, 12, 1);
    let body = r#"        <Sequence>
            <Script code="k := 0"/>
            <Fallback>
                <Sequence>
                    <Precondition if="k == 1" else="SKIPPED">
                        <MockAction script="F"/>
                    </Precondition>
                    <LoopInt queue="" value="{x}" if_empty="SKIPPED">
                        <MockAction script="F"/>
                    </LoopInt>
                </Sequence>
                <MockAction script="RS"/>
            </Fallback>
            <Parallel success_count="-1" failure_count="1">
                <MockAction script="RRS"/>
                <MockAction script="F" _skipIf="k == 0"/>
            </Parallel>
            <MockAction script="S"/>
        </Sequence>"#;
    same_actions(body, 12, 3);
}

/// docs/BTCPP.md, "Where Arbor differs", SKIPPED: a branch skipped because its children
/// were stays RUNNING in BehaviorTree.CPP (it set that as it was ticked), so a halt runs
/// its `_onHalted` (a ReactiveFallback halts a skipped child at once); Arbor's is not
/// running, and runs none.
#[test]
fn on_halted_of_a_branch_whose_children_were_skipped_differs_as_documented() {
    let body = r#"        <Sequence>
            <Script code="h := 0"/>
            <ReactiveFallback>
                <ForceSuccess _onHalted="h := 1">
                    <MockAction script="S" _skipIf="true"/>
                </ForceSuccess>
                <ScriptCondition code="h == 1"/>
                <MockAction script="S"/>
            </ReactiveFallback>
        </Sequence>"#;
    let [mut ours, theirs] = both_run(body, 4, 4, true);
    ours.retain(|w| w.starts_with("MockAction"));
    assert_eq!(ours, ["MockAction_2 success"]);
    assert_eq!(theirs, Vec::<String>::new());
}

/// SEMANTICS.md §3.7: `_while` checked as a node is entered and while it runs: a leaf
/// and a branch halted (their `_onHalted` run) and skipped when a Parallel's other child's
/// hook changes the key, the same in both.
#[test]
fn while_runs_as_in_behaviortree_cpp() {
    for on in ["leaf", "branch"] {
        let (leaf, branch) = match on {
            "leaf" => (r#" _while="go == 1" _onHalted="h := 1""#, ""),
            _ => ("", r#" _while="go == 1" _onHalted="h := 1""#),
        };
        let body = format!(
            r#"        <Sequence>
            <Script code="go := 1; h := 0"/>
            <Parallel success_count="-1" failure_count="1">
                <Sequence{branch}>
                    <MockAction script="RRRRRRRR"{leaf}/>
                    <MockAction script="S"/>
                </Sequence>
                <MockAction script="RS" _onSuccess="go := 0"/>
            </Parallel>
            <ScriptCondition code="h == 1"/>
            <MockAction script="S"/>
        </Sequence>"#
        );
        // The leaf's `_while` skips it, and its Sequence runs the next; the branch's
        // skips the Sequence.
        same_actions(&body, 12, if on == "leaf" { 3 } else { 2 });
    }
}

/// SEMANTICS.md §3.3.1: WasEntryUpdated, SkipUnlessUpdated and WaitValueUpdate see their
/// key set (`{x}` or `x`) as BehaviorTree.CPP's do, the same actions running in both.
#[test]
fn entry_updated_nodes_run_as_in_behaviortree_cpp() {
    let body = r#"        <Sequence>
            <Script code="x := 1"/>
            <Repeat num_cycles="3">
                <Sequence>
                    <ForceSuccess>
                        <Sequence>
                            <WasEntryUpdated entry="{x}"/>
                            <MockAction script="S"/>
                        </Sequence>
                    </ForceSuccess>
                    <SkipUnlessUpdated entry="x">
                        <MockAction script="S"/>
                    </SkipUnlessUpdated>
                </Sequence>
            </Repeat>
            <Parallel success_count="-1" failure_count="1">
                <WaitValueUpdate entry="{y}">
                    <MockAction script="S"/>
                </WaitValueUpdate>
                <MockAction script="RS" _onSuccess="y := 2"/>
            </Parallel>
            <MockAction script="S"/>
        </Sequence>"#;
    same_actions(body, 14, 5);
}

/// docs/BTCPP.md, "Recordings": a run BehaviorTree.CPP's FileLogger2 recorded (the
/// patrol of tests/btcpp/record.py: a SubTree run twice, a Sleep of 30 ms, an Inverter)
/// reads as a trace of its tree. Each status change is the event that says it, in order,
/// the nodes inside a SubTree by `SUBTREE/INNER` (BehaviorTree.CPP writes a SubTree node
/// without its name, so its id is `sub_tree`); a step is a millisecond, so the Sleep
/// ends 30 steps or more after it starts; each tick's result is a completed run.
#[test]
fn a_behaviortree_cpp_recording_reads_as_the_trace_of_its_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("patrol.btlog");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/btcpp/record.py");
    let out = Command::new(common::btcpp_python())
        .arg(script)
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ticks = String::from_utf8(out.stdout).unwrap();
    assert_eq!(ticks.trim(), "RUNNING RUNNING FAILURE RUNNING");
    let trace = arbor::io::read_trace(&path).unwrap();
    let header = trace.header.as_ref().unwrap();
    assert_eq!(header.agents[0].tree, "patrol.btlog");
    assert_eq!(header.dt, 0.001);
    let said: Vec<String> = trace
        .events
        .iter()
        .map(|e| {
            let node = e.node.as_deref().unwrap_or("-");
            match &e.kind {
                arbor::runtime::EventKindOf::Exit(s, _) => format!("{node} exit {}", s.as_str()),
                arbor::runtime::EventKindOf::Complete(s) => {
                    format!("{node} complete {}", s.as_str())
                }
                k => format!("{node} {}", k.name()),
            }
        })
        .collect();
    let first_run = [
        "root enter",
        "patrol enter",
        "sub_tree enter",
        "sub_tree/look enter",
        "sub_tree/see_enemy enter",
        "sub_tree/see_enemy exit failure",
        "sub_tree/all_clear enter",
        "sub_tree/all_clear exit success",
        "sub_tree/look exit success",
        "sub_tree exit success",
        "sub_tree_2 enter",
        "sub_tree_2/look enter",
        "sub_tree_2/see_enemy enter",
        "sub_tree_2/see_enemy exit failure",
        "sub_tree_2/all_clear enter",
        "sub_tree_2/all_clear exit success",
        "sub_tree_2/look exit success",
        "sub_tree_2 exit success",
        "walk enter",
        "walk exit success",
        "not_done enter",
        "done enter",
        "done exit success",
        "not_done exit failure",
        "patrol exit failure",
        "root exit failure",
        "root complete failure",
        "root restart",
        "root enter",
        "patrol enter",
    ];
    assert_eq!(said[..first_run.len()], first_run, "{said:#?}");
    let at = |what: &str| {
        let i = said.iter().position(|s| s == what).unwrap();
        trace.events[i].step
    };
    assert!(at("walk exit success") >= at("walk enter") + 30);
    assert!(trace.events.windows(2).all(|w| w[0].step <= w[1].step));
    // The tree it embeds is the one shown: its nodes are the trace's.
    let tree = arbor::io::load_tree(&path).unwrap();
    for id in [
        "patrol",
        "sub_tree",
        "sub_tree_2",
        "walk",
        "not_done",
        "done",
    ] {
        assert!(tree.node(&NodeId::new(id)).is_some(), "{id}");
    }
    // A recording is not written over.
    let err = arbor::io::save_tree(&path, &tree).unwrap_err();
    assert!(
        err.to_string().contains("recording (.btlog) is kept"),
        "{err}"
    );
}

/// A recording that is not one, or is broken, is refused with the reason; one cut off
/// mid-record keeps every change before the cut.
#[test]
fn a_broken_recording_is_refused_and_a_cut_one_keeps_what_it_holds() {
    let good = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recordings/patrol.btlog"),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.btlog");
    let read = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        arbor::io::read_trace(&path)
    };
    let whole = read(&good).unwrap();
    assert!(whole.cut.is_none());
    let cut = read(&good[..good.len() - 4]).unwrap();
    assert_eq!(
        cut.cut.unwrap().message(),
        format!(
            "the last event was cut off: {} steps shown",
            cut.events.last().unwrap().step
        )
    );
    assert!(cut.events.len() < whole.events.len());
    let xml_at = arbor::io::BTLOG_MAGIC.len() + 1;
    let mut cases: Vec<(Vec<u8>, &str)> = vec![
        (
            b"not a recording".to_vec(),
            "does not start with BTCPP4-FileLogger2",
        ),
        (good[..xml_at + 2].to_vec(), "ends before its tree"),
        (good[..xml_at + 100].to_vec(), "but only"),
    ];
    let mut protocol = good.clone();
    protocol[xml_at - 1] = 2;
    cases.push((protocol, "protocol 2"));
    let mut huge = good.clone();
    huge[xml_at..xml_at + 4].copy_from_slice(&i32::MAX.to_le_bytes());
    cases.push((huge, "a tree is 0 to"));
    let mut status = good.clone();
    let last = status.len() - 1;
    status[last] = 9;
    cases.push((status, "status 9"));
    let mut uid = good.clone();
    uid[last - 2..last].copy_from_slice(&999u16.to_le_bytes());
    cases.push((uid, "node uid 999"));
    for (bytes, says) in cases {
        let e = read(&bytes).unwrap_err();
        assert!(e.to_string().contains(says), "{says}: {e}");
    }
}
