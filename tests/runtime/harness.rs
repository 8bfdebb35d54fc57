//! A compact way to write trees, run them and read their traces in tests.
//!
//! Tree lines: `id: Kind key=value ... | child a | children a b | conditions g | services s |
//! interrupts i`.
//! Values: `true`/`false`, whole numbers, numbers with a point, `@KEY` a field bound to a key,
//! anything else is text.
//! Trace lines: `STEP EVENT NODE [EXTRA]`, e.g. `3 exit a success`, `2 check g false`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use arbor::model::{Catalog, NoAssets, Node, NodeId, Port, Tree, Value};
use arbor::runtime::{
    Action, Behaviours, CtxValue, Event, EventKind, Instance, LeafIo, Outcome, Program, Status,
};

/// Lifecycle calls seen by the counting mock action, per node id.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub entries: u32,
    pub executions: u32,
    pub exits: u32,
    pub aborts: u32,
}

pub type Counters = Arc<Mutex<HashMap<String, Counts>>>;

pub fn tree(src: &str) -> Tree {
    let mut nodes = Vec::new();
    for line in src.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let mut parts = line.split('|');
        let head = parts.next().unwrap();
        let (id, rest) = head.split_once(':').unwrap();
        let mut words = rest.split_whitespace();
        let mut node = Node::new(id.trim(), words.next().unwrap());
        for w in words {
            let (k, v) = w.split_once('=').unwrap();
            let value = match v {
                _ if v.starts_with('@') => Value::Key(v[1..].to_owned()),
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ if v.parse::<i64>().is_ok() => Value::Int(v.parse().unwrap()),
                _ if v.contains('.') && v.parse::<f64>().is_ok() => {
                    Value::Float(v.parse().unwrap())
                }
                _ => Value::Text(v.to_owned()),
            };
            node.fields.insert(k.to_owned(), value);
        }
        for p in parts {
            let mut words = p.split_whitespace();
            let port = match words.next().unwrap() {
                "child" => Port::Child,
                "children" => Port::Children,
                "conditions" => Port::Conditions,
                "interrupts" => Port::Interrupts,
                "services" => Port::Services,
                other => panic!("unknown port {other}"),
            };
            node.inputs.insert(port, words.map(NodeId::new).collect());
        }
        nodes.push(node);
    }
    Tree::from_nodes(nodes).unwrap()
}

/// The built-ins, with `MockAction` replaced by a counting version that behaves the same.
pub fn behaviours(counters: &Counters) -> Behaviours<()> {
    let mut b = Behaviours::with_builtins();
    let counters = counters.clone();
    b.action("MockAction", move |spec| {
        let script: Vec<Outcome> = crate::common::mock_script(spec.text("script"));
        let produces = spec
            .value("produces")
            .and_then(Value::as_str)
            .map(|t| CtxValue::Text(t.into()));
        let id = spec.node.id.to_string();
        let counters = counters.clone();
        Ok(Counting {
            id,
            script,
            produces,
            counters: counters.clone(),
        })
    });
    b
}

struct Counting {
    id: String,
    script: Vec<Outcome>,
    produces: Option<CtxValue>,
    counters: Counters,
}

impl Counting {
    fn count(&self, f: impl FnOnce(&mut Counts)) {
        f(self
            .counters
            .lock()
            .unwrap()
            .entry(self.id.clone())
            .or_default());
    }
}

impl Action<()> for Counting {
    /// Executes since entry.
    type Memory = usize;

    fn on_enter(&self, executed: &mut usize, _: &mut (), _: &mut LeafIo<'_>) {
        *executed = 0;
        self.count(|c| c.entries += 1);
    }
    fn on_execute(&self, executed: &mut usize, _: &mut (), io: &mut LeafIo<'_>, _: f64) -> Outcome {
        self.count(|c| c.executions += 1);
        if *executed == 0
            && let Some(v) = &self.produces
        {
            io.produce(v.clone());
        }
        let r = self.script[(*executed).min(self.script.len() - 1)];
        *executed += 1;
        r
    }
    fn on_exit(&self, _: &mut usize, _: &mut (), _: &mut LeafIo<'_>, status: Status) {
        if status == Status::Aborted {
            self.count(|c| c.aborts += 1);
        } else {
            self.count(|c| c.exits += 1);
        }
    }
}

pub fn line(e: &Event<'_>) -> String {
    let extra = match e.kind {
        EventKind::Exit(s, None) | EventKind::Complete(s) => format!(" {s}"),
        EventKind::Exit(s, Some(why)) => format!(" {s} ({why})"),
        EventKind::Check(r) => format!(" {r}"),
        EventKind::Context(key, Some(value)) => format!(" {key}={}", CtxValue::from(&value)),
        EventKind::Context(key, None) => format!(" {key} removed"),
        EventKind::Restart(r) => format!(" {}", r.as_str()),
        EventKind::Interrupt(id) | EventKind::ContextMissing(id) | EventKind::Warning(id) => {
            format!(" {id}")
        }
        _ => String::new(),
    };
    let node = if e.node_id.is_empty() { "-" } else { e.node_id };
    format!("{} {} {node}{extra}", e.step, e.kind.name())
}

/// A running tree with its trace.
pub struct Run {
    pub instance: Instance<()>,
    pub counters: Counters,
    pub log: Vec<String>,
    pub dt: f64,
}

impl Run {
    pub fn new(src: &str) -> Self {
        Self::seeded(src, 0)
    }

    pub fn seeded(src: &str, seed: u64) -> Self {
        Self::of_tree(&tree(src), seed)
    }

    /// The tree of `src`, declaring `keys`.
    pub fn declaring(src: &str, keys: Vec<arbor::model::KeyDecl>) -> Self {
        let mut t = tree(src);
        t.keys = Some(keys);
        Self::of_tree(&t, 0)
    }

    fn of_tree(tree: &Tree, seed: u64) -> Self {
        let counters = Counters::default();
        let b = behaviours(&counters);
        Self::compiled(tree, &Catalog::builtin(), &b, counters, seed)
    }

    /// `tree` with the kinds of `catalog` and the behaviours `b` (which count in
    /// `counters`).
    pub fn compiled(
        tree: &Tree,
        catalog: &Catalog,
        b: &Behaviours<()>,
        counters: Counters,
        seed: u64,
    ) -> Self {
        let program =
            Program::compile(tree, catalog, &NoAssets, b).unwrap_or_else(|e| panic!("{e}"));
        Self {
            instance: {
                let mut i = Instance::new(Arc::new(program), seed);
                i.record_states(true);
                i
            },
            counters,
            log: Vec::new(),
            dt: 0.1,
        }
    }

    /// Runs one step; returns its events.
    pub fn step(&mut self) -> Vec<String> {
        let mut events = Vec::new();
        let mut obs = |e: &Event<'_>| events.push(line(e));
        self.instance.step(self.dt, &mut (), Some(&mut obs));
        self.log.extend(events.iter().cloned());
        events
    }

    /// Runs `n` steps; returns all their events.
    pub fn steps(&mut self, n: usize) -> Vec<String> {
        (0..n).flat_map(|_| self.step()).collect()
    }

    pub fn trigger(&mut self, id: &str, payload: Option<&str>) {
        self.instance
            .trigger(id, payload.map(|p| CtxValue::Text(p.into())));
    }

    pub fn counts(&self, id: &str) -> Counts {
        self.counters
            .lock()
            .unwrap()
            .get(id)
            .copied()
            .unwrap_or_default()
    }

    pub fn context(&self, key: &str) -> Option<CtxValue> {
        let k = self.instance.program().key(key)?;
        self.instance.context().get(k).cloned()
    }

    /// The event lines of the whole log that mention `node`.
    pub fn of(&self, node: &str) -> Vec<String> {
        self.log
            .iter()
            .filter(|l| l.split(' ').nth(2) == Some(node))
            .cloned()
            .collect()
    }
}

/// A number as the context holds it.
pub fn number(n: f64) -> Option<CtxValue> {
    Some(CtxValue::Number(n))
}

/// Asserts events equal the expected lines (given one per line, trimmed).
#[track_caller]
pub fn expect(events: &[String], expected: &str) {
    let want: Vec<&str> = expected
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let got: Vec<&str> = events.iter().map(String::as_str).collect();
    assert_eq!(got, want, "\n got:\n{}\n", got.join("\n"));
}
