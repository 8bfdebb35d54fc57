//! One agent's run of a program: flat per-node state and `step`, as SPEC §3 describes.
//!
//! All storage is sized when the instance is created; a step in steady state allocates
//! nothing. Resets (a missing context key, a stall) are carried out where they are found
//! and the call chain unwinds with [`Flow::Unwind`] without touching state again; reports
//! queued before a reset are dropped by their epoch.

use std::collections::VecDeque;
use std::sync::Arc;

use super::Status;
use super::behaviour::{Action, CondIo, Context, CtxValue, KeyId, LeafIo};
use super::program::{Kind, NONE, Program};
use super::trace::{Event, EventKind, Observer, Reason};

/// Tolerance for time comparisons (max_duration, Regulator).
const EPS: f64 = 1e-9;

/// What a node's painting needs: its last status, when it changed, and counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeState {
    /// The last status it had (kept after the tree resets, for display).
    pub status: Status,
    /// The step of that change.
    pub step: u64,
    /// How often it was entered (a guard is not entered: its counters stay 0).
    pub entries: u32,
    /// How often it succeeded.
    pub successes: u32,
    /// How often it failed.
    pub failures: u32,
}

/// Counts over the whole life of an instance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Runs of the tree that completed with success.
    pub succeeded: u64,
    /// Runs of the tree that completed with failure.
    pub failed: u64,
    /// Stalls.
    pub stalls: u64,
    /// Resets for a missing context key.
    pub context_missing: u64,
    /// Interrupts started.
    pub interrupts: u64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Flow {
    /// The node runs on.
    Running,
    /// The node finished now, with this status.
    Done(Status),
    /// The tree was reset below; callers return at once.
    Unwind,
}

#[derive(Clone, Copy, Debug)]
struct Report {
    node: u32,
    status: Status,
    epoch: u32,
}

#[derive(Debug)]
enum Trigger {
    Known(u32, Option<CtxValue>),
    Unknown(String),
}

/// A node's run state, all in one record so a step touches few cache lines.
#[derive(Clone, Copy, Debug)]
struct Rt {
    /// Leaf: step entered. Root: step the run began. Repeater/UntilFail: step the child's run
    /// began. Regulator: the step its permission was last decided.
    began: u64,
    /// The guard pass that last checked this branch's guards.
    guard_stamp: u64,
    /// Leaf: seconds executed. Regulator: seconds since it last allowed a step.
    timer: f64,
    /// Bumped at each entry; stale reports carry an older one.
    epoch: u32,
    /// Composite: slot of the running child. Parallel: children finished. Repeater: runs.
    cursor: u32,
    /// Parallel: children that succeeded.
    aux: u32,
    /// The status driving the run (a guard: its last result).
    status: Status,
    /// Regulator: the next ready step is allowed at once.
    first: bool,
    /// Regulator: this step is allowed.
    reg_ok: bool,
}

impl Default for Rt {
    fn default() -> Self {
        Self {
            began: 0,
            guard_stamp: 0,
            timer: 0.0,
            epoch: 0,
            cursor: 0,
            aux: 0,
            status: Status::Idle,
            first: false,
            reg_ok: false,
        }
    }
}

struct State {
    step: u64,
    started: bool,
    stalled: bool,
    restart_at: Option<u64>,
    interrupt: u32,
    stamp: u64,
    rng: u64,
    rt: Vec<Rt>,
    shown: Vec<NodeState>,
    perm: Vec<u32>,
    active: Vec<u32>,
    resume: Vec<u32>,
    reports: VecDeque<Report>,
    triggers: VecDeque<Trigger>,
    context: Context,
    /// Inputs of the leaves with `in_context` (slot 0: always empty).
    inputs: Vec<Option<CtxValue>>,
    /// Values produced by leaves with `out_context` (slot 0: a scratch for the others).
    produced: Vec<Option<CtxValue>>,
    /// Whether the display snapshot (`shown`) is kept.
    record: bool,
    stats: RunStats,
}

/// One agent's run of a shared [`Program`].
pub struct Instance<A> {
    program: Arc<Program<A>>,
    actions: Vec<Box<dyn Action<A>>>,
    st: State,
}

impl<A> Instance<A> {
    /// A new instance, not started; its random generator is seeded with `seed`.
    pub fn new(program: Arc<Program<A>>, seed: u64) -> Self {
        let n = program.len();
        let leaves = program.leaf_count();
        let actions = program.makers.iter().map(|m| m()).collect();
        let st = State {
            step: 0,
            started: false,
            stalled: false,
            restart_at: None,
            interrupt: NONE,
            stamp: 0,
            rng: seed ^ 0x9E37_79B9_7F4A_7C15,
            rt: vec![Rt::default(); n],
            shown: vec![NodeState::default(); n],
            perm: vec![0; program.perm_len],
            active: Vec::with_capacity(leaves),
            resume: Vec::with_capacity(leaves),
            reports: VecDeque::with_capacity(n + 4),
            triggers: VecDeque::with_capacity(4),
            context: Context {
                slots: vec![None; program.keys().len()],
            },
            inputs: vec![None; program.io_len.0],
            produced: vec![None; program.io_len.1],
            record: true,
            stats: RunStats::default(),
        };
        Self {
            program,
            actions,
            st,
        }
    }

    /// The program it runs.
    pub fn program(&self) -> &Arc<Program<A>> {
        &self.program
    }

    /// The number of the last step taken (0: only started, or not yet).
    pub fn step_number(&self) -> u64 {
        self.st.step
    }

    /// The agent's context.
    pub fn context(&self) -> &Context {
        &self.st.context
    }

    /// The agent's context, to change from outside (the world removes destroyed entities).
    pub fn context_mut(&mut self) -> &mut Context {
        &mut self.st.context
    }

    /// The active leaves, in tree order.
    pub fn active_leaves(&self) -> &[u32] {
        &self.st.active
    }

    /// Each node's display state, by node index (empty while recording is off).
    pub fn node_states(&self) -> &[NodeState] {
        &self.st.shown
    }

    /// Turns the display snapshot ([`Instance::node_states`]) on or off. It is on by
    /// default, for editors and tests; a game that never shows it saves its memory and
    /// upkeep. Turning it on starts from a blank snapshot.
    pub fn record_states(&mut self, on: bool) {
        self.st.record = on;
        self.st.shown = if on {
            vec![NodeState::default(); self.program.len()]
        } else {
            Vec::new()
        };
    }

    /// Counts of completed runs, stalls and resets.
    pub fn stats(&self) -> RunStats {
        self.st.stats
    }

    /// Queues a trigger for the Interrupt with this id; it is handled at the next step.
    pub fn trigger(&mut self, interrupt_id: &str, payload: Option<CtxValue>) {
        let t = match self
            .program
            .interrupts
            .iter()
            .find(|(id, _)| id == interrupt_id)
        {
            Some(&(_, at)) => Trigger::Known(at, payload),
            None => Trigger::Unknown(format!(
                "no Interrupt has the id '{interrupt_id}'; trigger ignored"
            )),
        };
        self.st.triggers.push_back(t);
    }

    /// Heap memory held by this instance, in bytes (its share of the program not counted).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let s = &self.st;
        s.rt.capacity() * size_of::<Rt>()
            + s.shown.capacity() * size_of::<NodeState>()
            + s.perm.capacity() * 4
            + (s.active.capacity() + s.resume.capacity()) * 4
            + s.reports.capacity() * size_of::<Report>()
            + s.triggers.capacity() * size_of::<Trigger>()
            + (s.context.slots.capacity() + s.inputs.capacity() + s.produced.capacity())
                * size_of::<Option<CtxValue>>()
            + self.actions.capacity() * size_of::<Box<dyn Action<A>>>()
            + self
                .actions
                .iter()
                .map(|a| std::mem::size_of_val(&**a))
                .sum::<usize>()
    }

    /// Advances the agent by one frame of `dt` seconds (SPEC §3.2). The first call also
    /// starts the instance (its events carry step 0).
    pub fn step(&mut self, dt: f64, agent: &mut A, observer: Option<&mut dyn Observer>) {
        let mut x = Exec {
            p: &self.program,
            st: &mut self.st,
            actions: &mut self.actions,
            agent,
            obs: observer,
        };
        x.step(dt);
    }
}

struct Exec<'x, 'o, A> {
    p: &'x Program<A>,
    st: &'x mut State,
    actions: &'x mut [Box<dyn Action<A>>],
    agent: &'x mut A,
    obs: Option<&'x mut (dyn Observer + 'o)>,
}

impl<A> Exec<'_, '_, A> {
    fn emit(&mut self, node: u32, kind: EventKind<'_>) {
        if let Some(o) = self.obs.as_deref_mut() {
            let node_id = self
                .p
                .names
                .get(node as usize)
                .map(String::as_str)
                .unwrap_or("");
            o.event(&Event {
                step: self.st.step,
                node: (node != NONE).then_some(node),
                node_id,
                kind,
            });
        }
    }

    /// Calls the action of leaf `slot` with its I/O: the input fetched at entry, the value it
    /// produces, the context.
    fn call_action<R>(
        &mut self,
        slot: usize,
        f: impl FnOnce(&mut dyn Action<A>, &mut A, &mut LeafIo<'_>) -> R,
    ) -> R {
        let State {
            inputs,
            produced,
            context,
            step,
            ..
        } = &mut *self.st;
        let info = &self.p.leaves[slot];
        let out = info.output_at as usize;
        let mut io = LeafIo {
            input: &inputs[info.input_at as usize],
            step: *step,
            context,
            produced: &mut produced[out],
        };
        let r = f(&mut *self.actions[slot], self.agent, &mut io);
        if out == 0 {
            // Without out_context a produced value goes nowhere.
            produced[0] = None;
        }
        r
    }

    fn set_status(&mut self, n: u32, s: Status) {
        let i = n as usize;
        self.st.rt[i].status = s;
        if !self.st.record {
            return;
        }
        let shown = &mut self.st.shown[i];
        shown.status = s;
        shown.step = self.st.step;
        match s {
            Status::Running => shown.entries = shown.entries.saturating_add(1),
            Status::Success => shown.successes = shown.successes.saturating_add(1),
            Status::Failure => shown.failures = shown.failures.saturating_add(1),
            _ => {}
        }
    }

    fn running(&self, n: u32) -> bool {
        self.st
            .rt
            .get(n as usize)
            .is_some_and(|r| r.status == Status::Running)
    }

    fn next_random(&mut self) -> u64 {
        // SplitMix64: small, fast, the same on every platform.
        self.st.rng = self.st.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.st.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn new_stamp(&mut self) -> u64 {
        self.st.stamp += 1;
        self.st.stamp
    }

    // ---- the step -------------------------------------------------------------------

    fn step(&mut self, dt: f64) {
        self.st.stalled = false;
        if !self.st.started {
            self.st.started = true;
            self.st.step = 0;
            self.root_enter();
            self.st.stalled = false;
        }
        self.st.step += 1;
        self.interrupts();
        if !self.st.stalled {
            self.guards();
        }
        if !self.st.stalled {
            self.execute(dt);
        }
        if !self.st.stalled {
            self.reports();
        }
        let due = self.st.restart_at.is_some_and(|s| s <= self.st.step);
        if !self.st.stalled && due && self.st.interrupt == NONE && !self.running(0) {
            self.st.restart_at = None;
            self.emit(0, EventKind::Restart(Reason::Stall));
            self.root_enter();
        }
    }

    /// Phase 1: triggers queued since the last step, in order.
    fn interrupts(&mut self) {
        while let Some(t) = self.st.triggers.pop_front() {
            if self.st.stalled {
                self.st.triggers.push_front(t);
                return;
            }
            match t {
                Trigger::Unknown(message) => self.emit(NONE, EventKind::Warning(&message)),
                Trigger::Known(at, payload) => {
                    self.start_interrupt(at, payload);
                }
            }
        }
    }

    /// The first active leaf with an index of at least `from`.
    fn next_active(&self, from: u32) -> Option<u32> {
        let at = self.st.active.partition_point(|&x| x < from);
        self.st.active.get(at).copied()
    }

    /// Phase 2: guards of the active leaves entered in an earlier step, in tree order.
    fn guards(&mut self) {
        let stamp = self.new_stamp();
        let mut from = 0;
        while let Some(leaf) = self.next_active(from) {
            from = leaf + 1;
            if self.st.rt[leaf as usize].began == self.st.step {
                continue;
            }
            if self.check_path(leaf, stamp) == Flow::Unwind && self.st.stalled {
                break;
            }
        }
    }

    /// Phase 3: execute the remaining leaves, in tree order.
    fn execute(&mut self, dt: f64) {
        let mut from = 0;
        while let Some(leaf) = self.next_active(from) {
            from = leaf + 1;
            if self.st.rt[leaf as usize].began == self.st.step || !self.regulators_allow(leaf, dt) {
                continue;
            }
            self.execute_leaf(leaf, dt);
        }
    }

    /// Phase 4: deliver the queued reports in order.
    fn reports(&mut self) {
        while let Some(r) = self.st.reports.pop_front() {
            let i = r.node as usize;
            let parent = self.p.recs[i].parent;
            let fresh = self.st.rt[i].status == r.status && self.st.rt[i].epoch == r.epoch;
            if !fresh || parent == NONE || !self.running(parent) {
                continue;
            }
            if self.deliver(r.node, r.status) == Flow::Unwind && self.st.stalled {
                return;
            }
        }
    }

    // ---- entering -------------------------------------------------------------------

    fn enter(&mut self, n: u32) -> Flow {
        match self.p.recs[n as usize].kind {
            Kind::Leaf { input, .. } => self.enter_leaf(n, input),
            Kind::Condition { input, .. } => {
                if self.input_missing(n, input) {
                    return Flow::Unwind;
                }
                self.st.rt[n as usize].epoch += 1;
                self.set_status(n, Status::Running);
                self.emit(n, EventKind::Enter);
                let r = self.eval(n);
                self.emit(n, EventKind::Check(r));
                self.finish(n, if r { Status::Success } else { Status::Failure })
            }
            _ => self.enter_branch(n),
        }
    }

    fn enter_leaf(&mut self, n: u32, input: Option<KeyId>) -> Flow {
        let i = n as usize;
        let slot = self.p.recs[i].slot as usize;
        let value = match input {
            Some(k) => match self.st.context.get(k) {
                Some(v) => Some(v.clone()),
                None => return self.context_missing(n, k),
            },
            None => None,
        };
        let info = &self.p.leaves[slot];
        let (input_at, output_at) = (info.input_at as usize, info.output_at as usize);
        self.st.inputs[input_at] = value;
        self.st.produced[output_at] = None;
        self.st.rt[i].timer = 0.0;
        self.st.rt[i].began = self.st.step;
        self.st.rt[i].epoch += 1;
        self.set_status(n, Status::Running);
        self.emit(n, EventKind::Enter);
        self.call_action(slot, |action, agent, io| action.on_enter(agent, io));
        if let Err(at) = self.st.active.binary_search(&n) {
            self.st.active.insert(at, n);
        }
        Flow::Running
    }

    fn enter_branch(&mut self, n: u32) -> Flow {
        let i = n as usize;
        self.st.rt[i].epoch += 1;
        self.set_status(n, Status::Running);
        self.emit(n, EventKind::Enter);
        for gi in 0..self.p.guards(n).len() {
            let g = self.p.guards(n)[gi];
            match self.guard(g) {
                None => return Flow::Unwind,
                Some(false) => return self.finish(n, Status::Failure),
                Some(true) => {}
            }
        }
        let kind = self.p.recs[i].kind;
        match kind {
            Kind::Sequence { random, .. } | Kind::Selector { random } => {
                self.st.rt[i].cursor = 0;
                if random {
                    self.shuffle(n);
                }
                self.composite_next(n, None)
            }
            Kind::Parallel { .. } => {
                self.st.rt[i].cursor = 0;
                self.st.rt[i].aux = 0;
                for ki in 0..self.p.kids(n).len() {
                    let k = self.p.kids(n)[ki];
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
            Kind::Repeater { .. } | Kind::UntilFail => {
                self.st.rt[i].cursor = 0;
                self.st.rt[i].began = self.st.step;
                match self.enter(self.p.kids(n)[0]) {
                    Flow::Done(s) => match self.loop_result(n, s) {
                        Some(f) => f,
                        None => self.loop_again(n),
                    },
                    f => f,
                }
            }
            Kind::Regulator { .. } => {
                self.st.rt[i].timer = 0.0;
                self.st.rt[i].first = true;
                self.enter_single(n)
            }
            Kind::Root => self.root_enter(),
            _ => self.enter_single(n),
        }
    }

    /// Enters the only child of a pass-through node (Inverter, Force*, Regulator, SubTree, Interrupt).
    fn enter_single(&mut self, n: u32) -> Flow {
        let Some(&k) = self.p.kids(n).first() else {
            return self.finish(n, Status::Failure);
        };
        match self.enter(k) {
            Flow::Done(s) => self.react(n, k, s),
            f => f,
        }
    }

    fn shuffle(&mut self, n: u32) {
        let off = self.p.recs[n as usize].slot as usize;
        let kids_len = self.p.kids(n).len();
        for j in 0..kids_len {
            self.st.perm[off + j] = self.p.kids(n)[j];
        }
        for j in (1..kids_len).rev() {
            let r = (self.next_random() % (j as u64 + 1)) as usize;
            self.st.perm.swap(off + j, off + r);
        }
    }

    fn root_enter(&mut self) -> Flow {
        loop {
            self.st.rt[0].epoch += 1;
            self.set_status(0, Status::Running);
            self.st.rt[0].began = self.st.step;
            self.emit(0, EventKind::Enter);
            let Some(&child) = self.p.kids(0).first() else {
                return Flow::Running;
            };
            match self.enter(child) {
                Flow::Done(s) => {
                    if !self.root_complete(s) {
                        return Flow::Unwind;
                    }
                }
                f => return f,
            }
        }
    }

    /// Root's child finished: the run is complete. Returns whether Root is to be entered again
    /// now (false: the tree stalled).
    fn root_complete(&mut self, s: Status) -> bool {
        self.finish(0, s);
        self.emit(0, EventKind::Complete(s));
        match s {
            Status::Success => self.st.stats.succeeded += 1,
            _ => self.st.stats.failed += 1,
        }
        let began_now = self.st.rt[0].began == self.st.step;
        self.abort_all();
        self.reset_all();
        self.st.context.clear();
        if began_now {
            self.stall(0);
            false
        } else {
            self.emit(0, EventKind::Restart(Reason::Complete));
            true
        }
    }

    // ---- conditions -------------------------------------------------------------------

    /// If `input` names a missing key, resets the tree for it and returns true.
    fn input_missing(&mut self, n: u32, input: Option<KeyId>) -> bool {
        match input {
            Some(k) if self.st.context.get(k).is_none() => {
                self.context_missing(n, k);
                true
            }
            _ => false,
        }
    }

    /// The condition's result, `invert` applied (its input is known to be present).
    fn eval(&mut self, n: u32) -> bool {
        let rec = &self.p.recs[n as usize];
        let Kind::Condition { invert, input } = rec.kind else {
            return false;
        };
        let context = &self.st.context;
        let io = CondIo {
            input: input.and_then(|k| context.get(k)),
            step: self.st.step,
            context,
        };
        self.p.conditions[rec.slot as usize].check(self.agent, &io) != invert
    }

    /// Checks a guard: `None` when the tree was reset for a missing key.
    fn guard(&mut self, g: u32) -> Option<bool> {
        let i = g as usize;
        if let Kind::Condition { input: Some(k), .. } = self.p.recs[i].kind
            && self.st.context.get(k).is_none()
        {
            self.context_missing(g, k);
            return None;
        }
        let r = self.eval(g);
        let result = if r { Status::Success } else { Status::Failure };
        if self.st.rt[i].status != result {
            self.st.rt[i].status = result;
            if let Some(shown) = self.st.shown.get_mut(i) {
                shown.status = result;
                shown.step = self.st.step;
            }
        }
        self.emit(g, EventKind::Check(r));
        Some(r)
    }

    /// Checks the guards of the branches above `leaf`, outermost first, each branch once per
    /// `stamp`. A failing guard fails its branch (aborting what runs below) and queues its report.
    fn check_path(&mut self, leaf: u32, stamp: u64) -> Flow {
        let info = self.p.leaves[self.p.recs[leaf as usize].slot as usize];
        for ci in info.guarded.0..info.guarded.1 {
            let b = self.p.chain[ci as usize];
            let bi = b as usize;
            if self.st.rt[bi].guard_stamp == stamp || !self.running(b) {
                continue;
            }
            self.st.rt[bi].guard_stamp = stamp;
            let (g0, g1) = self.p.recs[bi].guards;
            for gi in g0..g1 {
                match self.guard(self.p.links[gi as usize]) {
                    None => return Flow::Unwind,
                    Some(false) => {
                        self.abort_below(b);
                        self.finish(b, Status::Failure);
                        let epoch = self.st.rt[bi].epoch;
                        self.st.reports.push_back(Report {
                            node: b,
                            status: Status::Failure,
                            epoch,
                        });
                        return Flow::Done(Status::Failure);
                    }
                    Some(true) => {}
                }
            }
        }
        Flow::Running
    }

    // ---- executing --------------------------------------------------------------------

    fn regulators_allow(&mut self, leaf: u32, dt: f64) -> bool {
        let info = self.p.leaves[self.p.recs[leaf as usize].slot as usize];
        let mut ok = true;
        for ci in info.regulators.0..info.regulators.1 {
            let i = self.p.chain[ci as usize] as usize;
            let Kind::Regulator { period } = self.p.recs[i].kind else {
                continue;
            };
            if self.st.rt[i].began != self.st.step {
                self.st.rt[i].began = self.st.step;
                self.st.rt[i].reg_ok = if self.st.rt[i].first {
                    self.st.rt[i].first = false;
                    self.st.rt[i].timer = 0.0;
                    true
                } else {
                    self.st.rt[i].timer += dt;
                    if self.st.rt[i].timer >= period - EPS {
                        self.st.rt[i].timer = 0.0;
                        true
                    } else {
                        false
                    }
                };
            }
            ok &= self.st.rt[i].reg_ok;
        }
        ok
    }

    fn execute_leaf(&mut self, n: u32, dt: f64) {
        let i = n as usize;
        let Kind::Leaf { max_duration, .. } = self.p.recs[i].kind else {
            return;
        };
        let slot = self.p.recs[i].slot as usize;
        self.emit(n, EventKind::Execute);
        let outcome = self.call_action(slot, |action, agent, io| action.on_execute(agent, io, dt));
        self.st.rt[i].timer += dt;
        let status = match outcome {
            super::Outcome::Success => Status::Success,
            super::Outcome::Failure => Status::Failure,
            super::Outcome::Running => match max_duration {
                Some(max) if self.st.rt[i].timer >= max - EPS => Status::Failure,
                _ => return,
            },
        };
        self.leaf_finish(n, status);
        let epoch = self.st.rt[i].epoch;
        self.st.reports.push_back(Report {
            node: n,
            status,
            epoch,
        });
    }

    /// A leaf stops with success or failure: on_exit, out-context, exit event.
    fn leaf_finish(&mut self, n: u32, status: Status) {
        let i = n as usize;
        let Kind::Leaf {
            output, overwrite, ..
        } = self.p.recs[i].kind
        else {
            return;
        };
        let slot = self.p.recs[i].slot as usize;
        if let Ok(at) = self.st.active.binary_search(&n) {
            self.st.active.remove(at);
        }
        {
            self.call_action(slot, |action, agent, io| action.on_exit(agent, io, status));
        }
        let output_at = self.p.leaves[slot].output_at as usize;
        if let (Some(k), Some(v)) = (output, self.st.produced[output_at].take())
            && (overwrite || self.st.context.get(k).is_none())
        {
            self.st.context.set(k, Some(v));
        }
        self.set_status(n, status);
        self.emit(n, EventKind::Exit(status));
    }

    // ---- reporting --------------------------------------------------------------------

    fn finish(&mut self, n: u32, s: Status) -> Flow {
        self.set_status(n, s);
        self.emit(n, EventKind::Exit(s));
        Flow::Done(s)
    }

    /// Delivers child `c`'s result to its parents, climbing while they finish.
    fn deliver(&mut self, mut c: u32, mut s: Status) -> Flow {
        loop {
            let p = self.p.recs[c as usize].parent;
            if p == NONE || !self.running(p) {
                return Flow::Running;
            }
            match self.react(p, c, s) {
                Flow::Done(s2) => {
                    c = p;
                    s = s2;
                }
                f => return f,
            }
        }
    }

    /// Running parent `p` learns that child `c` finished with `s`.
    fn react(&mut self, p: u32, _c: u32, s: Status) -> Flow {
        match self.p.recs[p as usize].kind {
            Kind::Root => {
                if self.root_complete(s) {
                    self.root_enter()
                } else {
                    Flow::Unwind
                }
            }
            Kind::Interrupt { .. } => self.interrupt_done(p, s),
            Kind::Sequence { .. } | Kind::Selector { .. } => self.composite_next(p, Some(s)),
            Kind::Parallel { .. } => self.parallel_record(p, s).unwrap_or(Flow::Running),
            Kind::Inverter => self.finish(
                p,
                match s {
                    Status::Success => Status::Failure,
                    Status::Failure => Status::Success,
                    other => other,
                },
            ),
            Kind::ForceSuccess => self.finish(p, Status::Success),
            Kind::ForceFailure => self.finish(p, Status::Failure),
            Kind::Repeater { .. } | Kind::UntilFail => match self.loop_result(p, s) {
                Some(f) => f,
                None => self.loop_again(p),
            },
            Kind::Regulator { .. } | Kind::SubTree => self.finish(p, s),
            Kind::Leaf { .. } | Kind::Condition { .. } => Flow::Running,
        }
    }

    /// Sequence and Selector (random or not): react to the last child's result and enter the
    /// next child, as long as children finish at once.
    fn composite_next(&mut self, n: u32, mut last: Option<Status>) -> Flow {
        let i = n as usize;
        let (is_sequence, halt, random) = match self.p.recs[i].kind {
            Kind::Sequence { halt, random } => (true, halt, random),
            Kind::Selector { random } => (false, false, random),
            _ => return Flow::Running,
        };
        let count = self.p.kids(n).len() as u32;
        loop {
            if let Some(s) = last {
                if is_sequence && s == Status::Failure && halt {
                    return self.finish(n, Status::Failure);
                }
                if !is_sequence && s == Status::Success {
                    return self.finish(n, Status::Success);
                }
                self.st.rt[i].cursor += 1;
            }
            let at = self.st.rt[i].cursor;
            if at >= count {
                return self.finish(
                    n,
                    if is_sequence {
                        Status::Success
                    } else {
                        Status::Failure
                    },
                );
            }
            let k = if random {
                self.st.perm[self.p.recs[i].slot as usize + at as usize]
            } else {
                self.p.kids(n)[at as usize]
            };
            match self.enter(k) {
                Flow::Done(s) => last = Some(s),
                f => return f,
            }
        }
    }

    /// Parallel: count a finished child; `Some` when that decides the Parallel.
    fn parallel_record(&mut self, n: u32, s: Status) -> Option<Flow> {
        let i = n as usize;
        let Kind::Parallel {
            all_succeed,
            all_fail,
        } = self.p.recs[i].kind
        else {
            return None;
        };
        let total = self.p.kids(n).len() as u32;
        self.st.rt[i].cursor += 1;
        if s == Status::Success {
            self.st.rt[i].aux += 1;
        }
        let (done, succeeded) = (self.st.rt[i].cursor, self.st.rt[i].aux);
        let failed = done - succeeded;
        let success_holds = s == Status::Success
            && if all_succeed {
                succeeded == total
            } else {
                succeeded >= 1
            };
        let failure_holds = s == Status::Failure
            && if all_fail {
                failed == total
            } else {
                failed >= 1
            };
        let result = if success_holds {
            Status::Success
        } else if failure_holds || done >= total {
            // A failure policy holds, or every child finished and no policy does.
            Status::Failure
        } else {
            return None;
        };
        self.abort_below(n);
        Some(self.finish(n, result))
    }

    /// Repeater / UntilFail: `Some` when the child's result ends the loop.
    fn loop_result(&mut self, n: u32, s: Status) -> Option<Flow> {
        let i = n as usize;
        match self.p.recs[i].kind {
            Kind::Repeater {
                times,
                ignore_failures,
            } => {
                if s == Status::Failure && !ignore_failures {
                    return Some(self.finish(n, Status::Failure));
                }
                self.st.rt[i].cursor = self.st.rt[i].cursor.saturating_add(1);
                (times > 0 && u64::from(self.st.rt[i].cursor) >= times)
                    .then(|| self.finish(n, Status::Success))
            }
            Kind::UntilFail => (s == Status::Failure).then(|| self.finish(n, Status::Success)),
            _ => None,
        }
    }

    /// Repeater / UntilFail: run the child again, for as long as it finishes at once.
    fn loop_again(&mut self, n: u32) -> Flow {
        let i = n as usize;
        let forever = matches!(
            self.p.recs[i].kind,
            Kind::Repeater { times: 0, .. } | Kind::UntilFail
        );
        loop {
            if forever && self.st.rt[i].began == self.st.step {
                return self.stall(n);
            }
            self.st.rt[i].began = self.st.step;
            let child = self.p.kids(n)[0];
            self.reset_range(child, self.p.recs[child as usize].end);
            match self.enter(child) {
                Flow::Done(s) => {
                    if let Some(f) = self.loop_result(n, s) {
                        return f;
                    }
                }
                f => return f,
            }
        }
    }

    // ---- interrupts -------------------------------------------------------------------

    fn start_interrupt(&mut self, at: u32, payload: Option<CtxValue>) -> Flow {
        self.st.stats.interrupts += 1;
        let id = self
            .p
            .interrupts
            .iter()
            .find(|(_, i)| *i == at)
            .map(|(id, _)| id.as_str())
            .unwrap_or("");
        if let Some(o) = self.obs.as_deref_mut() {
            o.event(&Event {
                step: self.st.step,
                node: Some(at),
                node_id: &self.p.names[at as usize],
                kind: EventKind::Interrupt(id),
            });
        }
        if self.st.interrupt != NONE {
            let cur = self.st.interrupt;
            self.abort_range(cur, self.p.recs[cur as usize].end);
        } else {
            let mut resume = std::mem::take(&mut self.st.resume);
            resume.clear();
            resume.extend_from_slice(&self.st.active);
            for &leaf in resume.iter().rev() {
                self.abort_node(leaf);
            }
            self.st.resume = resume;
        }
        if let Kind::Interrupt {
            output: Some(k),
            overwrite,
            ..
        } = self.p.recs[at as usize].kind
            && let Some(v) = payload
            && (overwrite || self.st.context.get(k).is_none())
        {
            self.st.context.set(k, Some(v));
        }
        self.st.interrupt = at;
        self.st.rt[at as usize].epoch += 1;
        self.set_status(at, Status::Running);
        self.emit(at, EventKind::Enter);
        self.enter_single(at)
    }

    fn interrupt_done(&mut self, at: u32, s: Status) -> Flow {
        self.finish(at, s);
        self.st.interrupt = NONE;
        let Kind::Interrupt { force_reset, .. } = self.p.recs[at as usize].kind else {
            return Flow::Running;
        };
        if force_reset {
            self.abort_all();
            self.reset_all();
            self.st.restart_at = None;
            self.emit(0, EventKind::Restart(Reason::ForceReset));
            return self.root_enter();
        }
        let stamp = self.new_stamp();
        let resume = std::mem::take(&mut self.st.resume);
        let mut flow = Flow::Running;
        for &leaf in &resume {
            let parent = self.p.recs[leaf as usize].parent;
            if !self.running(parent) {
                continue;
            }
            match self.check_path(leaf, stamp) {
                Flow::Unwind => {
                    flow = Flow::Unwind;
                    break;
                }
                Flow::Done(_) => continue,
                Flow::Running => {}
            }
            if !self.running(parent) {
                continue;
            }
            if self.enter(leaf) == Flow::Unwind {
                flow = Flow::Unwind;
                break;
            }
        }
        self.st.resume = resume;
        self.st.resume.clear();
        flow
    }

    // ---- aborting and resetting ---------------------------------------------------------

    fn abort_node(&mut self, n: u32) {
        let i = n as usize;
        if self.st.rt[i].status != Status::Running {
            return;
        }
        self.set_status(n, Status::Aborted);
        if let Kind::Leaf { .. } = self.p.recs[i].kind {
            if let Ok(at) = self.st.active.binary_search(&n) {
                self.st.active.remove(at);
            }
            let slot = self.p.recs[i].slot as usize;
            self.call_action(slot, |action, agent, io| {
                action.on_exit(agent, io, Status::Aborted)
            });
            let output_at = self.p.leaves[slot].output_at as usize;
            self.st.produced[output_at] = None;
        }
        self.emit(n, EventKind::Abort);
    }

    /// Aborts the running nodes in `from..end`, deepest first.
    fn abort_range(&mut self, from: u32, end: u32) {
        for n in (from..end).rev() {
            self.abort_node(n);
        }
    }

    fn abort_below(&mut self, n: u32) {
        self.abort_range(n + 1, self.p.recs[n as usize].end);
    }

    fn abort_all(&mut self) {
        self.abort_range(0, self.p.len() as u32);
        self.st.interrupt = NONE;
        self.st.resume.clear();
    }

    fn reset_range(&mut self, from: u32, end: u32) {
        for r in &mut self.st.rt[from as usize..end as usize] {
            r.status = Status::Idle;
        }
    }

    fn reset_all(&mut self) {
        self.reset_range(0, self.p.len() as u32);
        self.st.active.clear();
    }

    fn context_missing(&mut self, n: u32, key: KeyId) -> Flow {
        self.st.stats.context_missing += 1;
        if let Some(o) = self.obs.as_deref_mut() {
            let name = self
                .p
                .keys
                .get(usize::from(key))
                .map(String::as_str)
                .unwrap_or("");
            o.event(&Event {
                step: self.st.step,
                node: Some(n),
                node_id: &self.p.names[n as usize],
                kind: EventKind::ContextMissing(name),
            });
        }
        self.abort_all();
        self.reset_all();
        self.st.context.clear();
        if self.st.rt[0].began == self.st.step {
            return self.stall(0);
        }
        self.emit(0, EventKind::Restart(Reason::ContextMissing));
        self.root_enter();
        Flow::Unwind
    }

    fn stall(&mut self, n: u32) -> Flow {
        self.st.stats.stalls += 1;
        self.emit(n, EventKind::Stall);
        self.abort_all();
        self.reset_all();
        self.st.reports.clear();
        self.st.stalled = true;
        self.st.restart_at = Some(self.st.step + 1);
        Flow::Unwind
    }
}
