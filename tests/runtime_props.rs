//! Property test of the runtime: random valid trees, scripts and triggers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::HashMap;
use std::sync::Arc;

use arbor::model::{Catalog, NoAssets, Tree, Value};
use arbor::runtime::{
    Action, Behaviours, CondIo, Condition, CtxValue, Event, EventKind, Instance, JsonlTrace,
    LeafIo, Outcome, Program, Status,
};
use common::reference::Reference;
use common::shapes::{Shape, reference_keys, reference_shape, shape, tree_nodes};
use proptest::prelude::*;

/// The agent: a log of every call an action or a condition received, so that a run nothing
/// watches can be checked call for call against an observed one.
type Log = Vec<String>;

/// `MockAction` as the runtime has it (each execute since entry returns the next letter of
/// its script; the first produces its value), writing each call into the agent's log.
struct Logged {
    id: String,
    script: Vec<Outcome>,
    produces: Option<CtxValue>,
}

impl Action<Log> for Logged {
    /// Executes since entry.
    type Memory = usize;

    fn on_enter(&self, executed: &mut usize, log: &mut Log, io: &mut LeafIo<'_>) {
        *executed = 0;
        log.push(format!("{} enter {} {:?}", io.step, self.id, io.input()));
    }

    fn on_execute(
        &self,
        executed: &mut usize,
        log: &mut Log,
        io: &mut LeafIo<'_>,
        _dt: f64,
    ) -> Outcome {
        if *executed == 0
            && let Some(v) = &self.produces
        {
            io.produce(v.clone());
        }
        let outcome = self.script[(*executed).min(self.script.len() - 1)];
        *executed += 1;
        log.push(format!("{} execute {} {outcome:?}", io.step, self.id));
        outcome
    }

    fn on_exit(&self, _: &mut usize, log: &mut Log, io: &mut LeafIo<'_>, status: Status) {
        log.push(format!("{} exit {} {status:?}", io.step, self.id));
    }
}

/// `MockCondition` as the runtime has it (letter N of its script at step N), writing each
/// check into the agent's log: which guards a step checks, and in what order, is compared.
struct LoggedCheck {
    id: String,
    script: Vec<bool>,
}

impl Condition<Log> for LoggedCheck {
    fn check(&self, log: &mut Log, io: &CondIo<'_>) -> bool {
        let at = usize::try_from(io.step).unwrap_or(usize::MAX);
        let r = self.script[at.min(self.script.len() - 1)];
        log.push(format!("{} check {} {r}", io.step, self.id));
        r
    }
}

fn behaviours() -> Behaviours<Log> {
    let mut b = Behaviours::<Log>::with_builtins();
    b.action("MockAction", |spec| {
        let script = common::mock_script(spec.text("script"));
        if script.is_empty() {
            return Err("MockAction needs a script".into());
        }
        Ok(Logged {
            id: spec.node.id.to_string(),
            script,
            produces: match spec.value("produces") {
                Some(Value::Text(t)) => Some(CtxValue::Text(t.as_str().into())),
                _ => None,
            },
        })
    });
    b.condition("MockCondition", |spec| {
        let script: Vec<bool> = spec.text("script").chars().map(|c| c == 'T').collect();
        if script.is_empty() {
            return Err("MockCondition needs a script".into());
        }
        Ok(LoggedCheck {
            id: spec.node.id.to_string(),
            script,
        })
    });
    b
}

/// Runs the tree for `steps` steps with the triggers (step, interrupt number or an unknown
/// id). Observed, it checks the enter/exit pairing and returns the JSON Lines trace; quiet
/// (no observer: the paths a game takes), the trace is empty. Either way it also returns
/// what a game sees after each step (run counters, active leaves, context) and every call
/// the actions received.
fn run(
    tree: &Tree,
    seed: u64,
    steps: u64,
    triggers: &[(u64, u8)],
    observe: bool,
) -> Result<(Vec<u8>, Vec<String>), TestCaseError> {
    let program = Program::compile(tree, &Catalog::builtin(), &NoAssets, &behaviours())
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut instance = Instance::new(Arc::new(program), seed);
    let mut trace = JsonlTrace::new(Vec::new(), "agent");
    let mut open: HashMap<String, bool> = HashMap::new();
    let mut problem: Option<String> = None;
    let mut seen = Vec::new();
    let mut log = Log::new();
    for step in 1..=steps {
        for &(_, which) in triggers.iter().filter(|(s, _)| *s == step) {
            let id = if which < 2 {
                format!("i{which}")
            } else {
                "unknown".into()
            };
            instance.trigger(&id, Some(CtxValue::Text("payload".into())));
        }
        let mut check = |e: &Event<'_>| {
            use arbor::runtime::Observer;
            trace.event(e);
            let slot = open.entry(e.node_id.to_owned()).or_default();
            let opens = matches!(e.kind, EventKind::Enter);
            let closes = matches!(e.kind, EventKind::Exit(..) | EventKind::Abort);
            if opens && *slot {
                problem.get_or_insert(format!("{}: {} entered twice", e.step, e.node_id));
            } else if closes && !*slot {
                problem.get_or_insert(format!("{}: {} closed but not open", e.step, e.node_id));
            } else if opens || closes {
                *slot = opens;
            }
        };
        if observe {
            instance.step(0.1, &mut log, Some(&mut check));
        } else {
            instance.step(0.1, &mut log, None);
        }
        if let Some(p) = problem.take() {
            return Err(TestCaseError::fail(p));
        }
        seen.push(format!(
            "{:?} {:?} {:?}",
            instance.stats(),
            instance.active_leaves(),
            instance.context()
        ));
    }
    seen.append(&mut log);
    Ok((trace.finish().unwrap(), seen))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn random_trees_run_deterministically_and_close_every_entry(
        main in shape(),
        interrupts in proptest::collection::vec((shape(), any::<bool>()), 0..3),
        seed in any::<u64>(),
        triggers in proptest::collection::vec((1..60u64, 0..3u8), 0..6),
    ) {
        let interrupts: Vec<(Shape, bool)> = interrupts;
        let tree = Tree::from_nodes(tree_nodes(&main, &interrupts)).unwrap();
        let first = run(&tree, seed, 60, &triggers, true)?;
        let second = run(&tree, seed, 60, &triggers, true)?;
        prop_assert!(first == second, "the same inputs gave different traces");
        prop_assert!(!first.0.is_empty());
        // Watching an agent (an observer, the debugger) must not change what it does.
        let unwatched = run(&tree, seed, 60, &triggers, false)?;
        prop_assert_eq!(unwatched.1, first.1, "a step without an observer went differently");
    }

    /// Trees of the kinds the reference interpreter runs (`common/reference.rs`, written
    /// from docs/SEMANTICS.md §3 alone): the runtime's trace is the reference's, event for event.
    #[test]
    fn the_runtime_runs_every_tree_as_the_reference_interpreter(
        main in reference_shape(),
        n in 0..4i64,
    ) {
        let mut tree = Tree::from_nodes(tree_nodes(&main, &[])).unwrap();
        tree.keys = Some(reference_keys(n));
        let mut reference = Reference::new(&tree).expect("a tree of the reference's kinds");
        let program = Program::compile(
            &tree,
            &Catalog::builtin(),
            &NoAssets,
            &Behaviours::<()>::with_builtins(),
        )
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut instance = Instance::new(Arc::new(program), 0);
        let mut lines = Vec::new();
        for _ in 0..60 {
            let mut observe = |e: &Event<'_>| lines.push(line(e));
            instance.step(0.1, &mut (), Some(&mut observe));
            reference.step(0.1);
        }
        if lines != reference.trace {
            let at = lines.iter().zip(&reference.trace).position(|(a, b)| a != b)
                .unwrap_or(lines.len().min(reference.trace.len()));
            let from = at.saturating_sub(12);
            prop_assert!(
                false,
                "the runtime and the reference part at event {at}:\nruntime:\n{}\nreference:\n{}",
                lines[from..(at + 4).min(lines.len())].join("\n"),
                reference.trace[from..(at + 4).min(reference.trace.len())].join("\n")
            );
        }
    }
}

/// An event as the reference writes it: `STEP EVENT NODE [EXTRA]`.
fn line(e: &Event<'_>) -> String {
    let extra = match e.kind {
        EventKind::Exit(s, None) | EventKind::Complete(s) => format!(" {s}"),
        EventKind::Exit(s, Some(why)) => format!(" {s} ({why})"),
        EventKind::Check(r) => format!(" {r}"),
        EventKind::Restart(r) => format!(" {}", r.as_str()),
        EventKind::Interrupt(id) | EventKind::ContextMissing(id) | EventKind::Warning(id) => {
            format!(" {id}")
        }
        EventKind::Context(key, Some(value)) => format!(" {key}={}", CtxValue::from(&value)),
        _ => String::new(),
    };
    format!("{} {} {}{extra}", e.step, e.kind.name(), e.node_id)
}
