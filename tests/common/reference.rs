//! A reference interpreter of docs/SEMANTICS.md §3, the property tests' oracle: written
//! from that page alone, as plainly as possible (a node record per node, recursion, a set of checked
//! branches, a scan for whatever runs), with none of the runtime's shortcuts.
//!
//! It runs trees of Root, Sequence, Selector, their reactive forms, SequenceWithMemory,
//! IfThenElse, WhileDoElse, Parallel (with services), Inverter,
//! ForceSuccess, ForceFailure, Repeater, UntilFail, KeepRunningUntilFailure, Retry, Cooldown, TimeLimit and RunOnce
//! over `MockAction` (with a `max_duration` or not) and `MockCondition` leaves without
//! context keys; no Interrupts, Regulators or random orders. A branch's count, seconds or
//! `halt_on_failure` may be bound to a declared key, which holds its default (nothing
//! writes it). Its trace lines are the runtime harness's:
//! `STEP EVENT NODE [EXTRA]`.

use std::collections::{BTreeSet, HashSet};

use arbor::model::{Node, Port, Tree, Value};

const EPS: f64 = 1e-9;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    Idle,
    Running,
    Success,
    Failure,
    Aborted,
}

impl St {
    fn word(self) -> &'static str {
        match self {
            St::Success => "success",
            St::Failure => "failure",
            _ => "?",
        }
    }
}

#[derive(Clone, Debug)]
enum K {
    Root,
    Sequence {
        halt: bool,
        reactive: bool,
        /// A SequenceWithMemory: its cursor is where its next entry begins.
        memory: bool,
    },
    Selector {
        reactive: bool,
    },
    Parallel {
        all_succeed: bool,
        all_fail: bool,
    },
    /// IfThenElse, or WhileDoElse (`reactive`).
    IfThenElse {
        reactive: bool,
    },
    Inverter,
    ForceSuccess,
    ForceFailure,
    Repeater {
        times: u64,
        ignore: bool,
    },
    /// UntilFail (`then` success), KeepRunningUntilFailure (`then` failure).
    UntilFail {
        then: St,
    },
    Retry {
        times: u64,
    },
    Cooldown {
        seconds: f64,
    },
    TimeLimit {
        seconds: f64,
    },
    RunOnce,
    Action {
        script: Vec<char>,
        max_duration: Option<f64>,
    },
    Check {
        script: Vec<bool>,
        invert: bool,
        observer: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Flow {
    Running,
    Done(St),
    Unwind,
}

struct N {
    id: String,
    kind: K,
    parent: Option<usize>,
    kids: Vec<usize>,
    guards: Vec<usize>,
    /// A composite's services (SEMANTICS.md §3.2.1), each with its `interval` (0: none).
    services: Vec<(usize, f64)>,
    /// One past the last node of its subtree (nodes are in pre-order).
    end: usize,
    /// Its fields bound to keys: each field's name and key.
    bound: Vec<(String, String)>,
}

/// One agent's run of a tree.
pub struct Reference {
    nodes: Vec<N>,
    status: Vec<St>,
    epoch: Vec<u64>,
    cursor: Vec<usize>,
    count: Vec<u64>,
    succeeded: Vec<u64>,
    began: Vec<u64>,
    time: Vec<f64>,
    recorded: Vec<bool>,
    result: Vec<Option<St>>,
    executed: Vec<usize>,
    /// A leaf's time executed since its entry, against its `max_duration`.
    elapsed: Vec<f64>,
    entered_at: Vec<u64>,
    /// A service's seconds since it last ran, and the step it last ran in.
    since: Vec<f64>,
    ran_at: Vec<u64>,
    active: BTreeSet<usize>,
    reports: Vec<(usize, St, u64)>,
    step: u64,
    clock: f64,
    started: bool,
    stalled: bool,
    restart_due: bool,
    /// The declared keys that hold a value from the start, in the order declared, with it
    /// (nothing writes a key, so each holds it all along).
    defaults: Vec<(String, Value)>,
    /// The trace so far.
    pub trace: Vec<String>,
}

fn text(node: &Node, field: &str) -> String {
    match node.fields.get(field) {
        Some(Value::Text(t)) => t.clone(),
        _ => String::new(),
    }
}

fn number(node: &Node, field: &str, default: f64) -> f64 {
    match node.fields.get(field) {
        Some(Value::Float(f)) => *f,
        Some(Value::Int(i)) => *i as f64,
        _ => default,
    }
}

fn int(node: &Node, field: &str, default: i64) -> u64 {
    match node.fields.get(field) {
        Some(Value::Int(i)) => (*i).max(0) as u64,
        _ => default.max(0) as u64,
    }
}

fn flag(node: &Node, field: &str, default: bool) -> bool {
    match node.fields.get(field) {
        Some(Value::Bool(b)) => *b,
        _ => default,
    }
}

impl Reference {
    /// The tree, not started; `None` for a kind it does not run.
    pub fn new(tree: &Tree) -> Option<Self> {
        let root = tree.nodes().iter().find(|n| n.kind == "Root")?;
        let mut nodes = Vec::new();
        Self::add(tree, root, None, &mut nodes)?;
        let len = nodes.len();
        Some(Self {
            nodes,
            status: vec![St::Idle; len],
            epoch: vec![0; len],
            cursor: vec![0; len],
            count: vec![0; len],
            succeeded: vec![0; len],
            began: vec![0; len],
            time: vec![0.0; len],
            recorded: vec![false; len],
            result: vec![None; len],
            executed: vec![0; len],
            elapsed: vec![0.0; len],
            entered_at: vec![0; len],
            since: vec![0.0; len],
            ran_at: vec![0; len],
            active: BTreeSet::new(),
            reports: Vec::new(),
            step: 0,
            clock: 0.0,
            started: false,
            stalled: false,
            restart_due: false,
            defaults: tree
                .keys
                .iter()
                .flatten()
                .filter_map(|k| Some((k.name.clone(), k.default.clone()?)))
                .collect(),
            trace: Vec::new(),
        })
    }

    fn add(tree: &Tree, node: &Node, parent: Option<usize>, nodes: &mut Vec<N>) -> Option<usize> {
        let kind = match node.kind.as_str() {
            "Root" => K::Root,
            "Sequence" => K::Sequence {
                halt: flag(node, "halt_on_failure", true),
                reactive: false,
                memory: false,
            },
            "ReactiveSequence" => K::Sequence {
                halt: true,
                reactive: true,
                memory: false,
            },
            "SequenceWithMemory" => K::Sequence {
                halt: true,
                reactive: false,
                memory: true,
            },
            "Selector" => K::Selector { reactive: false },
            "ReactiveSelector" => K::Selector { reactive: true },
            "Parallel" => K::Parallel {
                all_succeed: text(node, "success") != "one",
                all_fail: text(node, "failure") == "all",
            },
            "IfThenElse" => K::IfThenElse { reactive: false },
            "WhileDoElse" => K::IfThenElse { reactive: true },
            "Inverter" => K::Inverter,
            "ForceSuccess" => K::ForceSuccess,
            "ForceFailure" => K::ForceFailure,
            "Repeater" => K::Repeater {
                times: int(node, "times", 0),
                ignore: flag(node, "ignore_failures", false),
            },
            "UntilFail" => K::UntilFail { then: St::Success },
            "KeepRunningUntilFailure" => K::UntilFail { then: St::Failure },
            "Retry" => K::Retry {
                times: int(node, "times", 3),
            },
            "Cooldown" => K::Cooldown {
                seconds: number(node, "seconds", 1.0),
            },
            "TimeLimit" => K::TimeLimit {
                seconds: number(node, "seconds", 1.0),
            },
            "RunOnce" => K::RunOnce,
            "MockAction" => {
                let s = text(node, "script");
                K::Action {
                    script: if s.is_empty() {
                        vec!['S']
                    } else {
                        s.chars().collect()
                    },
                    max_duration: node.fields.get("max_duration").and_then(Value::as_f64),
                }
            }
            "AlwaysSuccess" | "AlwaysFailure" => K::Check {
                script: vec![node.kind == "AlwaysSuccess"],
                invert: flag(node, "invert", false),
                observer: flag(node, "aborts_lower", false),
            },
            "MockCondition" => {
                let s = text(node, "script");
                let s = if s.is_empty() { "T".to_owned() } else { s };
                K::Check {
                    script: s.chars().map(|c| c == 'T').collect(),
                    invert: flag(node, "invert", false),
                    observer: flag(node, "aborts_lower", false),
                }
            }
            _ => return None,
        };
        let at = nodes.len();
        nodes.push(N {
            id: node.id.to_string(),
            kind,
            parent,
            kids: Vec::new(),
            guards: Vec::new(),
            services: Vec::new(),
            end: at + 1,
            bound: node
                .fields
                .iter()
                .filter_map(|(f, v)| match v {
                    Value::Key(k) => Some((f.clone(), k.clone())),
                    _ => None,
                })
                .collect(),
        });
        for g in node.linked(Port::Conditions) {
            let g = tree.node(g)?;
            let gi = Self::add(tree, g, None, nodes)?;
            nodes[at].guards.push(gi);
        }
        // Services come after the guards and before the children in tree order; they are
        // no one's children.
        for v in node.linked(Port::Services) {
            let v = tree.node(v)?;
            let vi = Self::add(tree, v, None, nodes)?;
            nodes[at].services.push((vi, number(v, "interval", 0.0)));
        }
        for port in [Port::Child, Port::Children] {
            for k in node.linked(port) {
                let k = tree.node(k)?;
                let ki = Self::add(tree, k, Some(at), nodes)?;
                nodes[at].kids.push(ki);
            }
        }
        nodes[at].end = nodes.len();
        Some(at)
    }

    fn emit(&mut self, n: usize, what: &str) {
        let line = format!("{} {what} {}", self.step, self.nodes[n].id);
        self.trace.push(line);
    }

    fn running(&self, n: usize) -> bool {
        self.status[n] == St::Running
    }

    /// A condition's result at this step.
    fn eval(&self, n: usize) -> bool {
        let K::Check { script, invert, .. } = &self.nodes[n].kind else {
            return false;
        };
        let at = usize::try_from(self.step).unwrap_or(usize::MAX);
        script[at.min(script.len() - 1)] != *invert
    }

    /// Advances one step of `dt` seconds (the first call also starts the tree).
    pub fn step(&mut self, dt: f64) {
        self.stalled = false;
        if !self.started {
            self.started = true;
            self.step = 0;
            self.show_defaults();
            self.enter(0);
            self.stalled = false;
        }
        self.step += 1;
        self.clock += dt;
        self.services(dt);
        self.guards();
        if !self.stalled {
            self.execute(dt);
        }
        if !self.stalled {
            let reports = std::mem::take(&mut self.reports);
            for (n, s, e) in reports {
                let fresh = self.status[n] == s && self.epoch[n] == e;
                let parent = self.nodes[n].parent;
                if !fresh || !parent.is_some_and(|p| self.running(p)) {
                    continue;
                }
                if self.deliver(n, s) == Flow::Unwind && self.stalled {
                    break;
                }
            }
        }
        if !self.stalled && self.restart_due && !self.running(0) {
            self.restart_due = false;
            self.emit(0, "restart");
            self.trace.last_mut().unwrap().push_str(" stall");
            self.enter(0);
        }
    }

    /// Phase 1b (SEMANTICS.md §3.2.1): each running composite's services, composites in
    /// tree order, each service in slot order, that did not run in this step already: its
    /// time since it last ran grows by `dt`, and it runs once that reaches its interval.
    fn services(&mut self, dt: f64) {
        for c in 0..self.nodes.len() {
            if !self.running(c) {
                continue;
            }
            for (v, interval) in self.nodes[c].services.clone() {
                if self.ran_at[v] == self.step {
                    continue;
                }
                self.since[v] += dt;
                if self.since[v] >= interval - EPS {
                    let since = self.since[v];
                    self.run_service(v, since);
                }
            }
        }
    }

    /// Composite `c` is entered (its guards held): each service runs, in slot order.
    fn start_services(&mut self, c: usize) {
        for (v, _) in self.nodes[c].services.clone() {
            self.run_service(v, 0.0);
        }
    }

    /// Service `v` runs: entered unless it still runs, then executed once with `dt`, the
    /// time since it last ran; it exits when that finishes it, and never reports.
    fn run_service(&mut self, v: usize, dt: f64) {
        self.since[v] = 0.0;
        self.ran_at[v] = self.step;
        if !self.running(v) {
            self.epoch[v] += 1;
            self.status[v] = St::Running;
            self.emit(v, "enter");
            self.executed[v] = 0;
            self.elapsed[v] = 0.0;
        }
        self.emit(v, "execute");
        if let Some((s, why)) = self.outcome(v, dt) {
            self.finish(v, s);
            if let Some(why) = why {
                self.trace
                    .last_mut()
                    .unwrap()
                    .push_str(&format!(" ({why})"));
            }
        }
    }

    /// Phase 2: the guards above each leaf entered before this step, in tree order, each
    /// branch once, outermost first; a TimeLimit after its own conditions. Before each
    /// node on the path whose parent is a Selector (the leaf last), that Selector's
    /// earlier children with an observer among their guards are examined, each Selector
    /// once: the first whose guards all hold takes over.
    fn guards(&mut self) {
        let mut checked = HashSet::new();
        let mut examined = HashSet::new();
        let leaves: Vec<usize> = self.active.iter().copied().collect();
        'leaves: for leaf in leaves {
            if self.entered_at[leaf] == self.step || !self.running(leaf) {
                continue;
            }
            let mut path = vec![leaf];
            let mut at = self.nodes[leaf].parent;
            while let Some(b) = at {
                path.push(b);
                at = self.nodes[b].parent;
            }
            for &b in path.iter().rev() {
                if let Some(c) = self.nodes[b].parent
                    && matches!(self.nodes[c].kind, K::Selector { reactive: false })
                    && examined.insert(c)
                    && self.examine(c, b)
                {
                    continue 'leaves;
                }
                if let Some(c) = self.nodes[b].parent
                    && matches!(
                        self.nodes[c].kind,
                        K::Sequence { reactive: true, .. }
                            | K::Selector { reactive: true }
                            | K::IfThenElse { reactive: true }
                    )
                    && examined.insert(c)
                    && self.enter_earlier(c, b)
                {
                    continue 'leaves;
                }
                if b == leaf || !checked.insert(b) {
                    continue;
                }
                if !self.guards_hold(b) {
                    self.fail_branch(b);
                    continue 'leaves;
                }
                if let K::TimeLimit { seconds } = self.nodes[b].kind
                    && self.clock - self.time[b] >= seconds - EPS
                {
                    self.fail_branch(b);
                    continue 'leaves;
                }
            }
        }
    }

    /// Selector `c`'s children before `x` that an observer watches from, in order: the
    /// first whose guards all hold (each checked, the first false ending it) takes over.
    /// Returns whether one did.
    fn examine(&mut self, c: usize, x: usize) -> bool {
        let kids = self.nodes[c].kids.clone();
        for (slot, &b) in kids.iter().enumerate().take_while(|&(_, &k)| k != x) {
            let observed = self.nodes[b]
                .guards
                .iter()
                .any(|&g| matches!(self.nodes[g].kind, K::Check { observer: true, .. }));
            if !observed {
                continue;
            }
            if !self.guards_hold(b) {
                continue;
            }
            // B takes over: what runs below C's children is aborted (C and its services run
            // on), C enters B (its guards passed) and goes on as a Selector from there,
            // delivering at once.
            self.abort_range(self.nodes[c].kids[0], self.nodes[c].end);
            self.cursor[c] = slot;
            self.epoch[b] += 1;
            self.status[b] = St::Running;
            self.emit(b, "enter");
            if let Flow::Done(s) = self.guards_passed(b)
                && let Flow::Done(s) = self.react(c, s)
            {
                self.deliver(c, s);
            }
            return true;
        }
        false
    }

    /// Reactive composite `c` walks its children again from the first, each entered
    /// afresh, as its rules say, until it reaches `x`, its running child: one that finishes
    /// at once leads to another child or ends `c` (what runs below it aborted, its report
    /// queued); one that runs takes `x`'s place (`x` aborted). Returns whether the leaf
    /// walked was aborted.
    fn enter_earlier(&mut self, c: usize, x: usize) -> bool {
        let kids = self.nodes[c].kids.clone();
        let mut slot = 0;
        while kids[slot] != x {
            let b = kids[slot];
            for i in b..self.nodes[b].end {
                self.status[i] = St::Idle;
            }
            let s = match self.enter(b) {
                Flow::Unwind => return true,
                Flow::Running => {
                    self.abort_range(x, self.nodes[x].end);
                    self.cursor[c] = slot;
                    return true;
                }
                Flow::Done(s) => s,
            };
            match self.decides(c, slot, s) {
                Ok(next) => slot = next,
                Err(end) => {
                    self.abort_range(c + 1, self.nodes[c].end);
                    self.finish(c, end);
                    self.reports.push((c, end, self.epoch[c]));
                    return true;
                }
            }
        }
        false
    }

    /// What composite `c` does when its child in `slot` finished with `s`: enter the child
    /// in another slot, or finish with a status.
    fn decides(&self, c: usize, slot: usize, s: St) -> Result<usize, St> {
        let count = self.nodes[c].kids.len();
        match self.nodes[c].kind {
            K::Sequence { halt, .. } if s == St::Failure && halt => Err(St::Failure),
            K::Selector { .. } if s == St::Success => Err(St::Success),
            K::Sequence { .. } => (slot + 1 < count).then_some(slot + 1).ok_or(St::Success),
            K::Selector { .. } => (slot + 1 < count).then_some(slot + 1).ok_or(St::Failure),
            K::IfThenElse { .. } if slot > 0 => Err(s),
            K::IfThenElse { .. } if s == St::Success => Ok(1),
            K::IfThenElse { .. } => (count > 2).then_some(2).ok_or(St::Failure),
            _ => Err(s),
        }
    }

    /// Branch `b`'s guards, checked in order (each a `check`) up to the first false:
    /// whether all hold.
    fn guards_hold(&mut self, b: usize) -> bool {
        for gi in 0..self.nodes[b].guards.len() {
            let g = self.nodes[b].guards[gi];
            let r = self.eval(g);
            self.emit(g, "check");
            self.trace.last_mut().unwrap().push_str(&format!(" {r}"));
            if !r {
                return false;
            }
        }
        true
    }

    fn fail_branch(&mut self, b: usize) {
        self.abort_range(b + 1, self.nodes[b].end);
        self.finish(b, St::Failure);
        self.reports.push((b, St::Failure, self.epoch[b]));
    }

    /// Phase 3.
    fn execute(&mut self, dt: f64) {
        let leaves: Vec<usize> = self.active.iter().copied().collect();
        for leaf in leaves {
            if self.entered_at[leaf] == self.step || !self.running(leaf) {
                continue;
            }
            self.emit(leaf, "execute");
            let Some((s, why)) = self.outcome(leaf, dt) else {
                continue;
            };
            self.active.remove(&leaf);
            self.finish(leaf, s);
            if let Some(why) = why {
                self.trace
                    .last_mut()
                    .unwrap()
                    .push_str(&format!(" ({why})"));
            }
            self.reports.push((leaf, s, self.epoch[leaf]));
        }
    }

    /// What action `leaf` does at an execute of `dt` seconds: `None` while it runs on.
    fn outcome(&mut self, leaf: usize, dt: f64) -> Option<(St, Option<&'static str>)> {
        let K::Action {
            script,
            max_duration,
        } = &self.nodes[leaf].kind
        else {
            return None;
        };
        let letter = script[self.executed[leaf].min(script.len() - 1)];
        self.executed[leaf] += 1;
        // SEMANTICS.md §3.1: a leaf still running once it has run its max_duration fails,
        // and says so.
        match letter {
            'S' => Some((St::Success, None)),
            'F' => Some((St::Failure, None)),
            _ => {
                let m = (*max_duration)?;
                self.elapsed[leaf] += dt;
                (self.elapsed[leaf] >= m - EPS).then_some((St::Failure, Some("max_duration")))
            }
        }
    }

    fn finish(&mut self, n: usize, s: St) -> Flow {
        // SEMANTICS.md §3.2.1: a composite's services still running are aborted before its
        // exit.
        if let (Some(&(first, _)), Some(&(last, _))) = (
            self.nodes[n].services.first(),
            self.nodes[n].services.last(),
        ) {
            self.abort_range(first, last + 1);
        }
        self.status[n] = s;
        self.emit(n, "exit");
        self.trace
            .last_mut()
            .unwrap()
            .push_str(&format!(" {}", s.word()));
        Flow::Done(s)
    }

    fn deliver(&mut self, mut c: usize, mut s: St) -> Flow {
        loop {
            let Some(p) = self.nodes[c].parent else {
                return Flow::Running;
            };
            if !self.running(p) {
                return Flow::Running;
            }
            match self.react(p, s) {
                Flow::Done(s2) => {
                    c = p;
                    s = s2;
                }
                f => return f,
            }
        }
    }

    fn enter(&mut self, n: usize) -> Flow {
        match self.nodes[n].kind.clone() {
            K::Action { .. } => {
                self.epoch[n] += 1;
                self.status[n] = St::Running;
                self.emit(n, "enter");
                self.executed[n] = 0;
                self.elapsed[n] = 0.0;
                self.entered_at[n] = self.step;
                self.active.insert(n);
                Flow::Running
            }
            K::Check { .. } => {
                self.status[n] = St::Running;
                self.emit(n, "enter");
                let r = self.eval(n);
                self.emit(n, "check");
                self.trace.last_mut().unwrap().push_str(&format!(" {r}"));
                self.finish(n, if r { St::Success } else { St::Failure })
            }
            _ => {
                self.epoch[n] += 1;
                self.status[n] = St::Running;
                self.emit(n, "enter");
                if !self.guards_hold(n) {
                    return self.finish(n, St::Failure);
                }
                self.guards_passed(n)
            }
        }
    }

    /// Branch `n` is entered and its guards passed (or count as passed): its fields bound
    /// to keys are read, its services run, then its own entry.
    fn guards_passed(&mut self, n: usize) -> Flow {
        if let Err(why) = self.read_bound(n) {
            let flow = self.finish(n, St::Failure);
            self.trace
                .last_mut()
                .unwrap()
                .push_str(&format!(" ({why})"));
            return flow;
        }
        self.start_services(n);
        let kind = self.nodes[n].kind.clone();
        self.begin(n, kind)
    }

    /// SEMANTICS.md §3.5: branch `n`'s fields bound to keys take their keys' values, read
    /// after its guards held; a key without a value, or with one the field does not take,
    /// is the reason it fails.
    fn read_bound(&mut self, n: usize) -> Result<(), &'static str> {
        for (field, key) in self.nodes[n].bound.clone() {
            let value = self
                .defaults
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.clone())
                .ok_or("a key-bound field's key holds no value")?;
            let misfit = "a key-bound field's value does not fit it";
            let number = value.as_f64();
            match (&mut self.nodes[n].kind, field.as_str()) {
                (K::Repeater { times, .. } | K::Retry { times }, "times") => {
                    // A whole number, 0 or more.
                    let v = number
                        .filter(|v| v.fract() == 0.0 && *v >= 0.0)
                        .ok_or(misfit)?;
                    *times = v as u64;
                }
                (K::Cooldown { seconds } | K::TimeLimit { seconds }, "seconds") => {
                    // More than 0.
                    *seconds = number.filter(|v| *v > 0.0).ok_or(misfit)?;
                }
                (K::Sequence { halt, .. }, "halt_on_failure") => {
                    let Value::Bool(b) = value else {
                        return Err(misfit);
                    };
                    *halt = b;
                }
                _ => return Err(misfit),
            }
        }
        Ok(())
    }

    /// SEMANTICS.md §5: each key that holds a value when the context is (re)filled, as a
    /// `context` event naming Root.
    fn show_defaults(&mut self) {
        for (k, v) in self.defaults.clone() {
            let shown = match v {
                Value::Int(i) => i.to_string(),
                other => format!("{other:?}"),
            };
            self.emit(0, "context");
            self.trace
                .last_mut()
                .unwrap()
                .push_str(&format!(" {k}={shown}"));
        }
    }

    /// A branch's own entry, once it was counted and its guards held.
    fn begin(&mut self, n: usize, kind: K) -> Flow {
        match kind {
            K::Root => {
                self.began[n] = self.step;
                self.enter_child(n, 0)
            }
            K::Sequence { memory: true, .. } => self.walk(n),
            K::Sequence { .. } | K::Selector { .. } => {
                self.cursor[n] = 0;
                self.walk(n)
            }
            K::IfThenElse { .. } => {
                self.cursor[n] = 0;
                self.enter_child(n, 0)
            }
            K::Parallel { .. } => {
                self.count[n] = 0;
                self.succeeded[n] = 0;
                for i in 0..self.nodes[n].kids.len() {
                    let k = self.nodes[n].kids[i];
                    match self.enter(k) {
                        Flow::Running => {}
                        Flow::Unwind => return Flow::Unwind,
                        Flow::Done(s) => {
                            if let Some(f) = self.parallel_record(n, s) {
                                return f;
                            }
                        }
                    }
                }
                Flow::Running
            }
            K::Repeater { .. } | K::UntilFail { .. } | K::Retry { .. } => {
                self.count[n] = 0;
                self.began[n] = self.step;
                self.enter_child(n, 0)
            }
            K::Cooldown { seconds } => {
                if self.recorded[n] && self.clock - self.time[n] < seconds - EPS {
                    return self.finish(n, St::Failure);
                }
                self.enter_child(n, 0)
            }
            K::TimeLimit { .. } => {
                self.time[n] = self.clock;
                self.enter_child(n, 0)
            }
            K::RunOnce => match self.result[n] {
                Some(s) => self.finish(n, s),
                None => self.enter_child(n, 0),
            },
            _ => self.enter_child(n, 0),
        }
    }

    /// Enters child `i` of `n`; if it finishes at once, `n` reacts.
    fn enter_child(&mut self, n: usize, i: usize) -> Flow {
        let k = self.nodes[n].kids[i];
        match self.enter(k) {
            Flow::Done(s) => self.react(n, s),
            f => f,
        }
    }

    /// A Sequence or Selector enters its children from its cursor on, while they finish.
    fn walk(&mut self, n: usize) -> Flow {
        loop {
            let Some(&k) = self.nodes[n].kids.get(self.cursor[n]) else {
                let s = match self.nodes[n].kind {
                    K::Sequence { memory, .. } => {
                        if memory {
                            self.cursor[n] = 0;
                        }
                        St::Success
                    }
                    _ => St::Failure,
                };
                return self.finish(n, s);
            };
            match self.enter(k) {
                Flow::Done(s) => {
                    if let Some(f) = self.composite_decides(n, s) {
                        return f;
                    }
                    self.cursor[n] += 1;
                }
                f => return f,
            }
        }
    }

    fn composite_decides(&mut self, n: usize, s: St) -> Option<Flow> {
        match self.nodes[n].kind {
            K::Sequence { halt, .. } if s == St::Failure && halt => {
                Some(self.finish(n, St::Failure))
            }
            K::Selector { .. } if s == St::Success => Some(self.finish(n, St::Success)),
            _ => None,
        }
    }

    fn parallel_record(&mut self, n: usize, s: St) -> Option<Flow> {
        let K::Parallel {
            all_succeed,
            all_fail,
        } = self.nodes[n].kind
        else {
            return None;
        };
        let total = self.nodes[n].kids.len() as u64;
        self.count[n] += 1;
        if s == St::Success {
            self.succeeded[n] += 1;
        }
        let (done, ok) = (self.count[n], self.succeeded[n]);
        let failed = done - ok;
        let success = s == St::Success && if all_succeed { ok == total } else { ok >= 1 };
        let failure = s == St::Failure
            && if all_fail {
                failed == total
            } else {
                failed >= 1
            };
        let result = if success {
            St::Success
        } else if failure || done >= total {
            St::Failure
        } else {
            return None;
        };
        self.abort_range(n + 1, self.nodes[n].end);
        Some(self.finish(n, result))
    }

    /// Running `n` hears that its child finished with `s`.
    fn react(&mut self, n: usize, s: St) -> Flow {
        match self.nodes[n].kind.clone() {
            K::Root => self.complete(s),
            K::Sequence { .. } | K::Selector { .. } => {
                if let Some(f) = self.composite_decides(n, s) {
                    return f;
                }
                self.cursor[n] += 1;
                self.walk(n)
            }
            K::Parallel { .. } => self.parallel_record(n, s).unwrap_or(Flow::Running),
            K::IfThenElse { .. } => match self.decides(n, self.cursor[n], s) {
                Ok(next) => {
                    self.cursor[n] = next;
                    self.enter_child(n, next)
                }
                Err(end) => self.finish(n, end),
            },
            K::Inverter => self.finish(
                n,
                if s == St::Success {
                    St::Failure
                } else {
                    St::Success
                },
            ),
            K::ForceSuccess => self.finish(n, St::Success),
            K::ForceFailure => self.finish(n, St::Failure),
            K::Repeater { times, ignore } => {
                if s == St::Failure && !ignore {
                    return self.finish(n, St::Failure);
                }
                self.count[n] += 1;
                if times > 0 && self.count[n] >= times {
                    return self.finish(n, St::Success);
                }
                self.again(n, times == 0)
            }
            K::UntilFail { then } => {
                if s == St::Failure {
                    return self.finish(n, then);
                }
                self.again(n, true)
            }
            K::Retry { times } => {
                if s == St::Success {
                    return self.finish(n, St::Success);
                }
                self.count[n] += 1;
                if times > 0 && self.count[n] >= times {
                    return self.finish(n, St::Failure);
                }
                self.again(n, times == 0)
            }
            K::Cooldown { .. } => {
                self.time[n] = self.clock;
                self.recorded[n] = true;
                self.finish(n, s)
            }
            K::RunOnce => {
                self.result[n] = Some(s);
                self.finish(n, s)
            }
            K::TimeLimit { .. } => self.finish(n, s),
            K::Action { .. } | K::Check { .. } => Flow::Running,
        }
    }

    /// A loop runs its child again (its subtree reset); one with no bound whose child's run
    /// began in this step stalls instead.
    fn again(&mut self, n: usize, forever: bool) -> Flow {
        if forever && self.began[n] == self.step {
            return self.stall(n);
        }
        self.began[n] = self.step;
        let k = self.nodes[n].kids[0];
        for i in k..self.nodes[k].end {
            self.status[i] = St::Idle;
        }
        self.enter_child(n, 0)
    }

    fn complete(&mut self, s: St) -> Flow {
        self.finish(0, s);
        self.emit(0, "complete");
        self.trace
            .last_mut()
            .unwrap()
            .push_str(&format!(" {}", s.word()));
        self.abort_range(0, self.nodes.len());
        self.reset_all();
        // The context is cleared: every key gets its default back.
        self.show_defaults();
        if self.began[0] == self.step {
            return self.stall(0);
        }
        self.emit(0, "restart");
        self.trace.last_mut().unwrap().push_str(" complete");
        self.enter(0)
    }

    fn stall(&mut self, n: usize) -> Flow {
        self.emit(n, "stall");
        self.abort_range(0, self.nodes.len());
        self.reset_all();
        self.reports.clear();
        self.stalled = true;
        self.restart_due = true;
        Flow::Unwind
    }

    /// Aborts what runs in `from..end`, each node after everything below it.
    fn abort_range(&mut self, from: usize, end: usize) {
        for i in (from..end).rev() {
            if self.running(i) {
                self.status[i] = St::Aborted;
                self.active.remove(&i);
                self.emit(i, "abort");
            }
        }
    }

    fn reset_all(&mut self) {
        self.status.fill(St::Idle);
        self.active.clear();
    }
}
