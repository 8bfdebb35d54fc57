//! The registry of behaviours ([`Behaviours`]): by kind name, the factories that build a
//! leaf's action or a condition from a node's fields, and the stand-ins of declared kinds
//! that have none.

use foldhash::{HashMap, HashMapExt};

use std::marker::PhantomData;
use std::sync::Arc;

use super::behaviour::{Action, CondIo, CondRef, Condition, NodeSpec};
use super::bound::{BoundAction, BoundCondition};
use super::mocks::{self, Always, MockAction, MockCondition, Wait};
use super::slab::ActionType;
use super::stand_in::{StandInAction, StandInCondition, StandIns};
use crate::model::Origin;

type ActionFactory<A> =
    Box<dyn Fn(&mut NodeSpec<'_>) -> Result<ActionType<A>, String> + Send + Sync>;
type ConditionFactory<A> =
    Box<dyn Fn(&mut NodeSpec<'_>) -> Result<CondRef<A>, String> + Send + Sync>;

/// The behaviours a runtime knows, by kind name.
///
/// With [`Behaviours::with_stand_ins`] (the editor and the command line use it), a leaf or
/// condition kind that a node library (or embedding code) declares but that has no
/// behaviour registered here runs as its **stand-in** ([`KindSpec::stand_in`]): a script
/// like `MockAction`'s or `MockCondition`'s, or, without one, an action that succeeds at
/// its first execute and a condition that holds. A debugger can force a stand-in's result
/// through [`Behaviours::stand_ins`]. Without it, such a kind is refused when a tree is
/// compiled, so a game's forgotten behaviour is never run as a stand-in.
///
/// # The agent type
///
/// `A` is what every behaviour is handed as the agent: the game's own type, owned (`A:
/// 'static`: it cannot borrow from the game, since the behaviours outlive a frame). Where a
/// behaviour must see more than its agent (other agents, the level), make `A` the game's
/// world with the index of the agent stepping, set before each step:
///
/// ```
/// use std::sync::Arc;
/// use arbor::model::{Catalog, Category, KindSpec};
/// use arbor::runtime::{Behaviours, CondIo, Instance, Program};
///
/// /// The whole world, and which agent is stepping.
/// struct World { hp: Vec<u32>, me: usize }
///
/// let mut catalog = Catalog::builtin();
/// catalog.register(KindSpec::new("AllyHurt", Category::Condition, "Another agent is hurt.", vec![]))?;
/// let mut behaviours = Behaviours::<World>::with_builtins();
/// behaviours.condition_fn("AllyHurt", |w: &mut World, _: &CondIo<'_>| {
///     w.hp.iter().enumerate().any(|(i, hp)| i != w.me && *hp < 50)
/// });
/// let tree = arbor::io::parse_tree(r#"{"format": "arbor.tree", "version": 1, "nodes": [
///     {"id": "root", "kind": "Root", "inputs": {"child": ["hurt"]}},
///     {"id": "hurt", "kind": "AllyHurt"}]}"#, std::path::Path::new("medic.json"))?;
/// let program = Arc::new(Program::compile(&tree, &catalog, &arbor::model::NoAssets, &behaviours)?);
/// let mut world = World { hp: vec![100, 30, 100], me: 0 };
/// let mut agents: Vec<Instance<World>> =
///     (0..3).map(|i| Instance::new(program.clone(), i)).collect();
/// for (i, agent) in agents.iter_mut().enumerate() {
///     world.me = i;
///     agent.step(0.1, &mut world, None);
/// }
/// // Agents 0 and 2 see agent 1 hurt; agent 1 sees no one else hurt.
/// let saw: Vec<bool> = agents.iter().map(|a| a.stats().succeeded > 0).collect();
/// assert_eq!(saw, [true, false, true]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// [`KindSpec::stand_in`]: crate::model::KindSpec::stand_in
pub struct Behaviours<A> {
    actions: HashMap<String, ActionFactory<A>>,
    conditions: HashMap<String, ConditionFactory<A>>,
    /// The built-in action kinds that set and clear keys themselves as they execute
    /// (`LeafIo::write`): Script and UnsetKey.
    writers: std::collections::HashSet<String>,
    /// Run declared kinds without a behaviour as their stand-ins (off: they are refused).
    stand_ins_on: bool,
    stand_ins: StandIns,
}

impl<A: 'static> Default for Behaviours<A> {
    fn default() -> Self {
        Self::with_builtins()
    }
}

impl<A: 'static> Behaviours<A> {
    /// No behaviours at all.
    pub fn empty() -> Self {
        Self {
            actions: HashMap::new(),
            conditions: HashMap::new(),
            writers: std::collections::HashSet::new(),
            stand_ins_on: false,
            stand_ins: StandIns::default(),
        }
    }

    /// The same behaviours, running declared kinds that have none as their stand-ins.
    pub fn with_stand_ins(mut self) -> Self {
        self.stand_ins_on = true;
        self
    }

    /// The stand-in nodes of the programs compiled with these behaviours, whose results
    /// a debugger can force.
    pub fn stand_ins(&self) -> &StandIns {
        &self.stand_ins
    }

    /// The built-ins that need no world: `MockAction`, `MockCondition`, `Wait`,
    /// `HasContext`, `AlwaysSuccess`, `AlwaysFailure`, `ScriptCondition`, `SetKey`,
    /// `Script`, `UnsetKey` and `WasEntryUpdated`.
    pub fn with_builtins() -> Self {
        let mut b = Self::empty();
        b.action("MockAction", mocks::mock_action);
        b.condition("MockCondition", mocks::mock_condition);
        b.action("Wait", |spec| {
            Ok(Wait {
                seconds: spec.amount("seconds"),
            })
        });
        b.condition("HasContext", mocks::has_context);
        b.condition("AlwaysSuccess", |_| Ok(Always(true)));
        b.condition("AlwaysFailure", |_| Ok(Always(false)));
        b.condition("ScriptCondition", super::script::script_condition);
        b.action("SetKey", super::set_key::set_key);
        b.writer("Script", super::script::script);
        b.writer("UnsetKey", super::set_key::unset_key);
        b.action("WasEntryUpdated", super::set_key::was_entry_updated);
        b
    }

    /// Registers a built-in action that sets and clears keys itself as it executes
    /// (`LeafIo::write`), which the lifecycle stores right after its `on_execute`.
    fn writer<T, F>(&mut self, kind: &str, make: F)
    where
        T: Action<A> + 'static,
        F: Fn(&mut NodeSpec<'_>) -> Result<T, String> + Send + Sync + 'static,
    {
        self.action(kind, make);
        self.writers.insert(kind.to_owned());
    }

    /// Whether the action of `kind` sets and clears keys itself (see [`Behaviours::writer`]).
    pub(crate) fn writes_keys(&self, kind: &str) -> bool {
        self.writers.contains(kind)
    }

    /// Whether a behaviour (action or condition) is registered for `kind`.
    pub fn knows(&self, kind: &str) -> bool {
        self.actions.contains_key(kind) || self.conditions.contains_key(kind)
    }

    /// Registers the behaviour of an action kind: `make` reads a node's fields once, at
    /// compile time, and returns the action object that every agent's leaf shares (each
    /// agent keeps its own [`Action::Memory`]).
    ///
    /// A leaf whose fields are bound to keys (SEMANTICS.md §3.5) is made by `make` again at
    /// each entry, from the values its keys hold then; its agents keep that action in their
    /// memory.
    pub fn action<T, F>(&mut self, kind: &str, make: F)
    where
        T: Action<A> + 'static,
        F: Fn(&mut NodeSpec<'_>) -> Result<T, String> + Send + Sync + 'static,
    {
        let make = Arc::new(make);
        // A game's own action of a built-in's name writes no key but its out_context.
        self.writers.remove(kind);
        self.actions.insert(
            kind.to_owned(),
            Box::new(move |spec| match spec.bound.clone() {
                None => make(spec).map(ActionType::new),
                Some(bound) => Ok(ActionType::new(BoundAction {
                    bound,
                    make: make.clone(),
                    made: PhantomData,
                })),
            }),
        );
    }

    /// Registers the behaviour of a condition kind: `make` reads a node's fields once, at
    /// compile time, and returns the condition, which every agent shares. A condition whose
    /// fields are bound to keys is made again at each check, from their values then.
    pub fn condition<T, F>(&mut self, kind: &str, make: F)
    where
        T: Condition<A> + 'static,
        F: Fn(&mut NodeSpec<'_>) -> Result<T, String> + Send + Sync + 'static,
    {
        let make = Arc::new(make);
        self.conditions.insert(
            kind.to_owned(),
            Box::new(move |spec| match spec.bound.clone() {
                None => make(spec).map(CondRef::new),
                Some(bound) => Ok(CondRef::new(BoundCondition {
                    bound,
                    make: make.clone(),
                    made: PhantomData,
                })),
            }),
        );
    }

    /// A condition from a closure over the agent.
    pub fn condition_fn(
        &mut self,
        kind: &str,
        check: impl Fn(&mut A, &CondIo<'_>) -> bool + Send + Sync + Clone + 'static,
    ) {
        self.condition(kind, move |_| Ok(FnCondition(check.clone())));
    }

    pub(crate) fn make_action(
        &self,
        spec: &mut NodeSpec<'_>,
    ) -> Option<Result<ActionType<A>, String>> {
        if let Some(f) = self.actions.get(&spec.node.kind) {
            return Some(f(spec));
        }
        let script = self.stand_in_script(spec)?;
        let cell = self.stand_ins.cell(spec.trace_id, false);
        Some(
            MockAction::new(script, None)
                .map(|mock| ActionType::new(StandInAction { mock, forced: cell })),
        )
    }

    pub(crate) fn make_condition(
        &self,
        spec: &mut NodeSpec<'_>,
    ) -> Option<Result<CondRef<A>, String>> {
        if let Some(f) = self.conditions.get(&spec.node.kind) {
            return Some(f(spec));
        }
        let script = self.stand_in_script(spec)?;
        let cell = self.stand_ins.cell(spec.trace_id, true);
        Some(
            MockCondition::new(script)
                .map(|mock| CondRef::new(StandInCondition { mock, forced: cell })),
        )
    }

    /// The stand-in script of a node whose kind has no behaviour here: a kind a library
    /// or embedding code declares runs its `stand_in` (by default `S` for a leaf, `T` for
    /// a condition); a built-in kind or a placeholder has none.
    fn stand_in_script<'s>(&self, spec: &'s NodeSpec<'_>) -> Option<&'s str> {
        let kind = spec.catalog.kind(&spec.node.kind)?;
        if !self.stand_ins_on || matches!(kind.origin, Origin::BuiltIn | Origin::Placeholder) {
            return None;
        }
        Some(match (&kind.stand_in, kind.category) {
            (Some(s), _) => s,
            (None, crate::model::Category::Condition) => "T",
            (None, _) => "S",
        })
    }
}

struct FnCondition<F>(F);

impl<A, F: Fn(&mut A, &CondIo<'_>) -> bool + Send + Sync> Condition<A> for FnCondition<F> {
    fn check(&self, agent: &mut A, io: &CondIo<'_>) -> bool {
        (self.0)(agent, io)
    }
}
