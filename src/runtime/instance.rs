//! One agent's run of a program ([`Instance`]): its program, its block, its [`State`], and
//! `step` (SEMANTICS.md §3), which runs the lifecycle in `exec/`.
//!
//! All storage is sized when the instance is created; a step in steady state allocates
//! nothing.

use std::sync::Arc;

use super::Status;
use super::behaviour::{Context, CtxValue, KeyError, KeyId};
use super::exec::{Exec, Quiet, Watch, Watched};
use super::kinds::Kind;
use super::program::Program;
use super::slab::ActionSlab;
use super::state::{COMMON_READ, NodeState, RunStats, State, Trigger};
use super::trace::Observer;

/// What a common step of one active leaf reads of an instance lies in its first `HOT`
/// bytes: its program, its block and the start of its [`State`] (see there), so that the
/// step reads few cache lines of an agent's entry in a game's array.
const HOT: usize = 80;
const _: () = assert!(std::mem::offset_of!(Instance<()>, st) + COMMON_READ <= HOT);

/// One agent's run of a shared [`Program`].
#[repr(C)]
pub struct Instance<A> {
    program: Arc<Program<A>>,
    actions: ActionSlab<A>,
    st: State,
}

impl<A> Clone for Instance<A> {
    /// A copy of the instance as it is now: stepping the copy and the original alike
    /// gives the same runs (the debugger keeps copies of past steps to go back to).
    fn clone(&self) -> Self {
        Self {
            program: self.program.clone(),
            actions: self.actions.clone(),
            st: self.st.clone(),
        }
    }
}

impl<A> Instance<A> {
    /// A new instance, not started; its random generator is seeded with `seed`.
    pub fn new(program: Arc<Program<A>>, seed: u64) -> Self {
        let st = State::new(&program, seed);
        Self {
            actions: ActionSlab::new(&program.actions),
            program,
            st,
        }
    }

    /// The program it runs.
    pub fn program(&self) -> &Arc<Program<A>> {
        &self.program
    }

    /// The number of the last step taken (0: only started, or not yet).
    pub fn step_number(&self) -> u64 {
        self.st.step()
    }

    /// Seconds elapsed: 0 before the first step, then the sum of the dts of every step
    /// so far (SEMANTICS.md §3.3.1's instance clock).
    pub fn clock(&self) -> f64 {
        self.st.clock()
    }

    /// The agent's context.
    pub fn context(&self) -> &Context {
        self.st.context()
    }

    /// The agent's context, to change from outside (the world removes destroyed entities).
    /// Where the program's steps keep no context, the first call makes room for it.
    pub fn context_mut(&mut self) -> &mut Context {
        &mut self.st.cold_mut(&self.program).context
    }

    /// The value key `name` holds, if the tree has that key and it holds one (for a game's
    /// code between steps; a leaf reads its input through its `LeafIo`).
    pub fn value(&self, name: &str) -> Option<&CtxValue> {
        self.st.context().get(self.program.key(name)?)
    }

    /// The id of key `name`, checked to take `value` (see [`Instance::set`]).
    fn key_for(&self, name: &str, value: &CtxValue) -> Result<KeyId, KeyError> {
        let key = self
            .program
            .key(name)
            .ok_or_else(|| KeyError::Unknown(name.to_owned()))?;
        let declared = self.program.key_type(key);
        if value.fits(declared) {
            Ok(key)
        } else {
            Err(KeyError::Type {
                key: name.to_owned(),
                declared,
                given: value.type_name(),
            })
        }
    }

    /// Puts `value` under key `name` now, between steps, as a leaf writing it would; the
    /// next clear of the context (SEMANTICS.md §3.5) takes it away. Refused for a key the
    /// tree does not have, or a value of another type than the key's declared one.
    pub fn set(&mut self, name: &str, value: impl Into<CtxValue>) -> Result<(), KeyError> {
        let value = value.into();
        let key = self.key_for(name, &value)?;
        self.context_mut().set(key, Some(value));
        Ok(())
    }

    /// This agent's own default of key `name`: put under the key now, and given back to it
    /// whenever the context is cleared, over the tree's default (a game's per-agent
    /// settings, a scenario's `keys`). Refused as [`Instance::set`] refuses.
    pub fn seed(&mut self, name: &str, value: impl Into<CtxValue>) -> Result<(), KeyError> {
        let value = value.into();
        let key = self.key_for(name, &value)?;
        let cold = self.st.cold_mut(&self.program);
        cold.seeds.retain(|(k, _)| *k != key);
        cold.seeds.push((key, value.clone()));
        cold.context.set(key, Some(value));
        Ok(())
    }

    /// The active leaves, in tree order.
    pub fn active_leaves(&self) -> &[u32] {
        self.st.active()
    }

    /// Each node's display state, by node index (empty unless recording is on, see
    /// [`Instance::record_states`]).
    pub fn node_states(&self) -> &[NodeState] {
        self.st.shown()
    }

    /// Turns the display snapshot ([`Instance::node_states`]) on or off. It is off by
    /// default, so a game that never shows it pays nothing for it; an editor or a debugger
    /// turns it on. Turning it on starts from a blank snapshot.
    pub fn record_states(&mut self, on: bool) {
        self.st.record(on, &self.program);
        if on {
            // Guards' statuses were not kept while off: start them afresh too.
            for (status, rec) in self.actions.status_mut().iter_mut().zip(&self.program.recs) {
                if matches!(rec.kind, Kind::Condition(_)) {
                    *status = Status::Idle;
                }
            }
        }
    }

    /// Counts of completed runs, stalls and resets.
    pub fn stats(&self) -> RunStats {
        self.st.stats()
    }

    /// Queues a trigger for the Interrupt with this id; it is handled at the next step.
    /// The queue is kept here, outside the step: queueing may allocate, handling does not.
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
        self.st.queue_trigger(t, &self.program);
    }

    /// Heap memory held by this instance, in bytes (its share of the program not counted).
    pub fn heap_bytes(&self) -> usize {
        self.program.actions.size() + self.st.heap_bytes()
    }

    /// Advances the agent by one frame of `dt` seconds (SEMANTICS.md §3.2). The first call also
    /// starts the instance (its events carry step 0).
    #[inline]
    pub fn step(&mut self, dt: f64, agent: &mut A, observer: Option<&mut dyn Observer>) {
        match observer {
            // No observer: the lifecycle with every hook compiled out, unless the display
            // snapshot is kept (the quiet step then takes the watched one).
            None => self.exec::<Quiet>(agent, None).step(dt),
            observer => self.exec::<Watched>(agent, observer).step(dt),
        }
    }

    fn exec<'x, 'o, H: Watch>(
        &'x mut self,
        agent: &'x mut A,
        obs: Option<&'x mut (dyn Observer + 'o)>,
    ) -> Exec<'x, 'o, A, H> {
        Exec::new(&self.program, &mut self.st, &mut self.actions, agent, obs)
    }
}

/// Steps many agents by `dt` seconds, one after another in the order given, with no
/// observer: the same as calling [`Instance::step`] on each.
///
/// ```
/// # use std::sync::Arc;
/// # use arbor::model::{Catalog, NoAssets};
/// # use arbor::runtime::{Behaviours, Instance, Program, step_all};
/// # let tree = arbor::io::parse_tree(r#"{"format": "arbor.tree", "version": 1, "nodes": [
/// #   {"id": "root", "kind": "Root", "inputs": {"child": ["a"]}},
/// #   {"id": "a", "kind": "MockAction", "fields": {"script": "RRS"}}]}"#,
/// #   std::path::Path::new("t.json")).unwrap();
/// # let program = Arc::new(Program::<()>::compile(
/// #   &tree, &Catalog::builtin(), &NoAssets, &Behaviours::with_builtins()).unwrap());
/// let mut agents: Vec<((), Instance<()>)> =
///     (0..100).map(|i| ((), Instance::new(program.clone(), i))).collect();
/// for _frame in 0..10 {
///     step_all(1.0 / 30.0, agents.iter_mut().map(|(agent, instance)| (agent, instance)));
/// }
/// assert!(agents.iter().all(|(_, i)| i.stats().succeeded == 3));
/// ```
pub fn step_all<'a, A: 'a>(
    dt: f64,
    agents: impl IntoIterator<Item = (&'a mut A, &'a mut Instance<A>)>,
) {
    for (agent, instance) in agents {
        instance.step(dt, agent, None);
    }
}

/// Steps many agents by `dt` seconds on `threads` threads (0: one per core), with no
/// observer: the agents are split into as many runs, one a thread (the calling thread
/// steps the first), and each agent's step is its own (an agent and its instance,
/// touching no other), so they end where [`step_all`] leaves them, in any number of
/// threads. One thread is [`step_all`] itself.
///
/// ```
/// # use std::sync::Arc;
/// # use arbor::model::{Catalog, NoAssets};
/// # use arbor::runtime::{Behaviours, Instance, Program, step_all_on};
/// # let tree = arbor::io::parse_tree(r#"{"format": "arbor.tree", "version": 1, "nodes": [
/// #   {"id": "root", "kind": "Root", "inputs": {"child": ["a"]}},
/// #   {"id": "a", "kind": "MockAction", "fields": {"script": "RRS"}}]}"#,
/// #   std::path::Path::new("t.json")).unwrap();
/// # let program = Arc::new(Program::<()>::compile(
/// #   &tree, &Catalog::builtin(), &NoAssets, &Behaviours::with_builtins()).unwrap());
/// let mut agents: Vec<((), Instance<()>)> =
///     (0..1000).map(|i| ((), Instance::new(program.clone(), i))).collect();
/// for _frame in 0..10 {
///     step_all_on(0, 1.0 / 30.0, &mut agents); // every core
/// }
/// assert!(agents.iter().all(|(_, i)| i.stats().succeeded == 3));
/// ```
pub fn step_all_on<A: Send>(threads: usize, dt: f64, agents: &mut [(A, Instance<A>)]) {
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    };
    let per = agents.len().div_ceil(threads.max(1)).max(1);
    if threads <= 1 || agents.len() <= per {
        step_all(dt, agents.iter_mut().map(|(a, i)| (a, i)));
        return;
    }
    let mut runs = agents.chunks_mut(per);
    let first = runs.next();
    std::thread::scope(|s| {
        for run in runs {
            s.spawn(move || step_all(dt, run.iter_mut().map(|(a, i)| (a, i))));
        }
        if let Some(run) = first {
            step_all(dt, run.iter_mut().map(|(a, i)| (a, i)));
        }
    });
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::Instance;
    use crate::model::{Catalog, NoAssets};
    use crate::runtime::{Behaviours, Program};

    /// An instance of the tree of mock nodes `nodes` (a test: an error fails it).
    #[allow(clippy::unwrap_used)]
    fn instance(nodes: &str) -> Instance<()> {
        let text = format!(r#"{{"format": "arbor.tree", "version": 1, "nodes": [{nodes}]}}"#);
        let tree = crate::io::parse_tree(&text, std::path::Path::new("t.json")).unwrap();
        let p = Program::compile(
            &tree,
            &Catalog::builtin(),
            &NoAssets,
            &Behaviours::with_builtins(),
        );
        Instance::new(Arc::new(p.unwrap()), 7)
    }

    #[test]
    fn only_a_program_that_needs_it_gets_a_cold_block_with_the_instance() {
        let root = r#"{"id": "root", "kind": "Root", "inputs": {"child": ["s"]}}"#;
        let plain = r#"{"id": "s", "kind": "Sequence", "inputs": {"conditions": ["g"], "children": ["a"]}},
            {"id": "g", "kind": "MockCondition"}, {"id": "a", "kind": "MockAction"}"#;
        let mut i = instance(&format!("{root}, {plain}"));
        assert!(!i.st.has_cold());
        for _ in 0..5 {
            i.step(0.1, &mut (), None);
        }
        assert!(!i.st.has_cold(), "a quiet step made it");
        assert!(i.context().get(0).is_none());
        assert!(i.node_states().is_empty());
        i.record_states(true);
        assert_eq!(i.node_states().len(), 4, "made on demand");

        let needing = [
            // a context key
            r#"{"id": "s", "kind": "MockAction", "fields": {"out_context": "k"}}"#,
            // a random composite
            r#"{"id": "s", "kind": "RandomSequence", "inputs": {"children": ["a"]}},
               {"id": "a", "kind": "MockAction"}"#,
            // more leaves active at once than fit in place (and more reports)
            r#"{"id": "s", "kind": "Parallel", "inputs": {"children": ["a", "b", "c", "d", "e"]}},
               {"id": "a", "kind": "MockAction"}, {"id": "b", "kind": "MockAction"},
               {"id": "c", "kind": "MockAction"}, {"id": "d", "kind": "MockAction"},
               {"id": "e", "kind": "MockAction"}"#,
        ];
        for nodes in needing {
            assert!(
                instance(&format!("{root}, {nodes}")).st.has_cold(),
                "{nodes}"
            );
        }
        let interrupt = r#"{"id": "root", "kind": "Root", "inputs": {"child": ["a"], "interrupts": ["i"]}},
            {"id": "a", "kind": "MockAction"},
            {"id": "i", "kind": "Interrupt", "fields": {"interrupt_id": "x"}, "inputs": {"child": ["b"]}},
            {"id": "b", "kind": "MockAction"}"#;
        assert!(instance(interrupt).st.has_cold());
    }

    /// The entry serials start again once they reach half their range, between steps:
    /// a run across that point is the run without it, event for event.
    #[test]
    fn a_run_across_the_renumbering_of_entries_is_the_same_run() {
        let tree = r#"{"id": "root", "kind": "Root", "inputs": {"child": ["p"]}},
            {"id": "p", "kind": "Parallel", "inputs": {"children": ["s", "t"]}},
            {"id": "s", "kind": "Sequence", "inputs": {"conditions": ["g"], "children": ["a", "b"]}},
            {"id": "g", "kind": "MockCondition", "fields": {"script": "TTTFTTTTTF"}},
            {"id": "a", "kind": "MockAction", "fields": {"script": "RS"}},
            {"id": "b", "kind": "MockAction", "fields": {"script": "S"}},
            {"id": "t", "kind": "Selector", "inputs": {"children": ["c", "d"]}},
            {"id": "c", "kind": "MockAction", "fields": {"script": "F"}},
            {"id": "d", "kind": "MockAction", "fields": {"script": "RRS"}}"#;
        let run = |renumber_at_step: Option<usize>| {
            let mut i = instance(tree);
            let mut events = Vec::new();
            for step in 0..60 {
                if renumber_at_step == Some(step) {
                    // A few entries short of the mark: it is reached within a step.
                    i.st.set_entries(crate::runtime::state::RENUMBER_AT - 3);
                }
                let mut obs = |e: &crate::runtime::Event<'_>| events.push(format!("{e:?}"));
                i.step(0.1, &mut (), Some(&mut obs));
            }
            (events, i.stats())
        };
        let plain = run(None);
        for at in [5, 17, 30] {
            assert_eq!(run(Some(at)), plain, "renumbered from step {at}");
        }
    }

    /// Agents with random choices of their own (a RandomSelector over scripted leaves,
    /// seeded apart), stepped on 1, 2 and 3 threads: each ends in the same state, step
    /// for step.
    #[test]
    fn stepping_on_threads_leaves_every_agent_where_one_thread_does() {
        let tree = r#"{"id": "root", "kind": "Root", "inputs": {"child": ["pick"]}},
            {"id": "pick", "kind": "RandomSelector", "inputs": {"children": ["a", "b", "c"]}},
            {"id": "a", "kind": "MockAction", "fields": {"script": "RRF"}},
            {"id": "b", "kind": "MockAction", "fields": {"script": "RS"}},
            {"id": "c", "kind": "MockAction", "fields": {"script": "RRRF"}}"#;
        let one = instance(tree);
        let program = one.program().clone();
        let agents = || -> Vec<((), Instance<()>)> {
            (0..700)
                .map(|i| ((), Instance::new(program.clone(), i)))
                .collect()
        };
        let run = |threads: usize| {
            let mut all = agents();
            let mut seen = Vec::new();
            for _ in 0..40 {
                super::step_all_on(threads, 0.1, &mut all);
                seen.push(
                    all.iter()
                        .map(|(_, i)| (i.stats(), i.node_states().to_vec()))
                        .collect::<Vec<_>>(),
                );
            }
            seen
        };
        let alone = run(1);
        assert_eq!(run(2), alone);
        assert_eq!(run(3), alone);
    }
}
