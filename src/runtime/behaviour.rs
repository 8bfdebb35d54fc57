//! What leaves do: the [`Action`] and [`Condition`] traits, the context they read and
//! write, and the registry that builds them from a node's fields.

use foldhash::{HashMap, HashMapExt};
use std::fmt;
use std::sync::Arc;

use super::Status;
use super::mocks::{MockAction, MockCondition};
use super::slab::ActionType;
use super::stand_in::{StandInAction, StandInCondition, StandIns};
use crate::model::{Catalog, Node, Origin, Value};

/// A value in an agent's context: a world entity, a position, a number or text.
#[derive(Clone, Debug, PartialEq)]
pub enum CtxValue {
    /// A world entity, by id.
    Entity(u64),
    /// A point in the world.
    Position([f64; 2]),
    /// A number.
    Number(f64),
    /// Text (cheap to clone).
    Text(Arc<str>),
}

impl CtxValue {
    /// The value as an event carries it.
    pub fn as_event(&self) -> super::ValueOf<&str> {
        use super::ValueOf;
        match self {
            CtxValue::Entity(e) => ValueOf::Entity(*e),
            CtxValue::Position(p) => ValueOf::Position(*p),
            CtxValue::Number(n) => ValueOf::Number(*n),
            CtxValue::Text(t) => ValueOf::Text(t),
        }
    }
}

impl<S: AsRef<str>> From<&super::ValueOf<S>> for CtxValue {
    fn from(v: &super::ValueOf<S>) -> Self {
        use super::ValueOf;
        match v {
            ValueOf::Entity(e) => CtxValue::Entity(*e),
            ValueOf::Position(p) => CtxValue::Position(*p),
            ValueOf::Number(n) => CtxValue::Number(*n),
            ValueOf::Text(t) => CtxValue::Text(t.as_ref().into()),
        }
    }
}

impl fmt::Display for CtxValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CtxValue::Entity(e) => write!(f, "entity #{e}"),
            CtxValue::Position([x, y]) => write!(f, "({x}, {y})"),
            CtxValue::Number(n) => write!(f, "{n}"),
            CtxValue::Text(t) => write!(f, "{t:?}"),
        }
    }
}

/// A context key, interned when the program is compiled.
pub type KeyId = u16;

/// An agent's context: one slot per key the program uses.
#[derive(Clone, Debug, Default)]
pub struct Context {
    pub(crate) slots: Vec<Option<CtxValue>>,
}

impl Context {
    /// The value under a key.
    #[inline]
    pub fn get(&self, key: KeyId) -> Option<&CtxValue> {
        self.slots.get(usize::from(key)).and_then(Option::as_ref)
    }

    /// Sets or clears a key.
    #[inline]
    pub fn set(&mut self, key: KeyId, value: Option<CtxValue>) {
        if let Some(slot) = self.slots.get_mut(usize::from(key)) {
            *slot = value;
        }
    }

    /// Removes every value for which `keep` is false (the world drops destroyed entities).
    pub fn retain(&mut self, mut keep: impl FnMut(&CtxValue) -> bool) {
        for slot in &mut self.slots {
            if slot.as_ref().is_some_and(|v| !keep(v)) {
                *slot = None;
            }
        }
    }

    #[inline]
    pub(crate) fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = None);
    }
}

/// What an action's `on_execute` returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Still working.
    Running,
    /// Done, succeeded.
    Success,
    /// Done, failed.
    Failure,
    /// Done, failed, with a short reason for the designer ("target out of range"): the
    /// leaf's `exit` event carries it (docs/SEMANTICS.md §3.1), the debugger's log says it.
    FailureBecause(&'static str),
}

/// What a running leaf sees of its node and context: what a condition sees, [`CondIo`],
/// which it dereferences to (`io.step`, `io.context`), and where its product goes.
pub struct LeafIo<'a> {
    /// The input, the step and the context, as a condition gets them. (One record for
    /// both: a step then makes it once for the guards and the leaf.)
    pub(crate) seen: CondIo<'a>,
    /// Where a produced value is kept until the leaf exits; `None` without `out_context`.
    pub(crate) produced: Option<&'a mut Option<CtxValue>>,
}

impl<'a> std::ops::Deref for LeafIo<'a> {
    type Target = CondIo<'a>;

    #[inline]
    fn deref(&self) -> &CondIo<'a> {
        &self.seen
    }
}

impl LeafIo<'_> {
    /// The value fetched from `in_context` when the leaf was entered.
    #[inline]
    pub fn input(&self) -> Option<&CtxValue> {
        self.seen.input
    }

    /// Sets the value the leaf produces; it is stored under `out_context` when the leaf
    /// finishes. A leaf without `out_context` produces nothing: the value is dropped.
    #[inline]
    pub fn produce(&mut self, value: CtxValue) {
        if let Some(p) = self.produced.as_deref_mut() {
            *p = Some(value);
        }
    }
}

/// What a condition sees.
pub struct CondIo<'a> {
    /// The value fetched from `in_context` before the check.
    pub input: Option<&'a CtxValue>,
    /// The current step number.
    pub step: u64,
    /// The agent's context.
    pub context: &'a Context,
}

/// An action's behaviour. The object a kind's factory makes when the tree is compiled
/// (one per leaf, from the node's fields) is shared by every agent, read only; what an
/// agent must remember between calls (time spent, a planned path) is its
/// [`Action::Memory`], one per agent and leaf, made with `Default` when the agent's
/// instance is created. So 10,000 agents keep 10,000 small memories, not 10,000 copies of
/// the leaf's settings.
///
/// ```
/// use arbor::runtime::{Action, LeafIo, Outcome};
///
/// struct Wait { steps: u32 }        // from the node's fields, shared
///
/// impl Action<()> for Wait {
///     type Memory = u32;            // steps waited, per agent
///     fn on_enter(&self, waited: &mut u32, _: &mut (), _: &mut LeafIo<'_>) {
///         *waited = 0;
///     }
///     fn on_execute(&self, waited: &mut u32, _: &mut (), _: &mut LeafIo<'_>, _dt: f64) -> Outcome {
///         *waited += 1;
///         if *waited >= self.steps { Outcome::Success } else { Outcome::Running }
///     }
/// }
/// ```
pub trait Action<A>: Send + Sync {
    /// What each agent keeps for this leaf between calls; `()` for an action that
    /// remembers nothing. `Clone`, so that a whole instance can be copied (the debugger
    /// keeps copies of past steps to go back to).
    type Memory: Default + Clone + Send + 'static;
    /// Called when the leaf is entered.
    fn on_enter(&self, _memory: &mut Self::Memory, _agent: &mut A, _io: &mut LeafIo<'_>) {}
    /// Called once per step while it runs.
    fn on_execute(
        &self,
        memory: &mut Self::Memory,
        agent: &mut A,
        io: &mut LeafIo<'_>,
        dt: f64,
    ) -> Outcome;
    /// Called once when it stops: success, failure, or aborted from outside.
    fn on_exit(
        &self,
        _memory: &mut Self::Memory,
        _agent: &mut A,
        _io: &mut LeafIo<'_>,
        _status: Status,
    ) {
    }
}

/// A condition's behaviour; shared by all agents, so it keeps no state.
pub trait Condition<A>: Send + Sync {
    /// Whether the condition holds now (before `invert`).
    fn check(&self, agent: &mut A, io: &CondIo<'_>) -> bool;
}

/// A node being compiled: its fields, with defaults from the catalog, and key interning.
pub struct NodeSpec<'a> {
    /// The node as in the file.
    pub node: &'a Node,
    /// Its id in traces (`SUBTREE-ID/INNER-ID` inside a SubTree).
    pub(crate) trace_id: &'a str,
    pub(crate) catalog: &'a Catalog,
    pub(crate) keys: &'a mut KeyTable,
}

impl NodeSpec<'_> {
    /// A field's value, or its default.
    pub fn value(&self, field: &str) -> Option<&Value> {
        self.catalog.field_value(self.node, field)
    }

    /// A text field ("" when unset).
    pub fn text(&self, field: &str) -> &str {
        self.catalog.text(self.node, field)
    }

    /// A numeric field: its value, its default, or none (an optional field left unset).
    pub fn number(&self, field: &str) -> Option<f64> {
        self.catalog.number(self.node, field)
    }

    /// A numeric field that has a default: its value, else that default (see
    /// [`Catalog::amount`]).
    pub fn amount(&self, field: &str) -> f64 {
        self.catalog.amount(self.node, field)
    }

    /// A boolean field.
    pub fn flag(&self, field: &str) -> bool {
        self.catalog.flag(self.node, field)
    }

    /// The id of a context key, for reading the context directly.
    pub fn key(&mut self, name: &str) -> KeyId {
        self.keys.intern(name)
    }
}

/// The most context keys a program can use (validation refuses more): ids are
/// [`KeyId`]s, and the last one is kept to mark a key past the limit (a program with
/// one is refused, never run).
pub const MAX_KEYS: usize = crate::model::MAX_CONTEXT_KEYS;
const _: () = assert!(MAX_KEYS <= KeyId::MAX as usize);

/// The context keys a program uses, each given its id once, found by name.
#[derive(Clone, Debug, Default)]
pub(crate) struct KeyTable {
    pub(crate) names: Vec<String>,
    ids: std::collections::HashMap<String, KeyId>,
}

impl KeyTable {
    /// The id of `name`, new ids in order of first use. Past [`MAX_KEYS`] keys every new
    /// key gets `KeyId::MAX` and [`KeyTable::full`] says so; no id ever wraps around.
    pub(crate) fn intern(&mut self, name: &str) -> KeyId {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = KeyId::try_from(self.names.len()).unwrap_or(KeyId::MAX);
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        id
    }

    /// Whether more keys were asked for than a program can use.
    pub(crate) fn full(&self) -> bool {
        self.names.len() > MAX_KEYS
    }
}

/// A condition object, shared by the program's guards and nodes that check it.
pub(crate) struct CondRef<A>(Arc<dyn Condition<A>>);

impl<A> Clone for CondRef<A> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<A> CondRef<A> {
    /// `c`, shared from now on.
    pub(crate) fn new<T: Condition<A> + 'static>(c: T) -> Self {
        Self(Arc::new(c))
    }

    /// A condition that never holds.
    pub(crate) fn never() -> Self {
        struct Never;
        impl<A> Condition<A> for Never {
            fn check(&self, _: &mut A, _: &CondIo<'_>) -> bool {
                false
            }
        }
        Self(Arc::new(Never))
    }

    /// Checks the condition.
    #[inline(always)]
    pub(crate) fn check(&self, agent: &mut A, io: &CondIo<'_>) -> bool {
        self.0.check(agent, io)
    }
}

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

    /// The built-ins that need no world: `MockAction`, `MockCondition`, `HasContext`.
    pub fn with_builtins() -> Self {
        let mut b = Self::empty();
        super::mocks::register(&mut b);
        b
    }

    /// Whether a behaviour (action or condition) is registered for `kind`.
    pub fn knows(&self, kind: &str) -> bool {
        self.actions.contains_key(kind) || self.conditions.contains_key(kind)
    }

    /// Registers the behaviour of an action kind: `make` reads a node's fields once, at
    /// compile time, and returns the action object that every agent's leaf shares (each
    /// agent keeps its own [`Action::Memory`]).
    pub fn action<T: Action<A> + 'static>(
        &mut self,
        kind: &str,
        make: impl Fn(&mut NodeSpec<'_>) -> Result<T, String> + Send + Sync + 'static,
    ) {
        self.actions.insert(
            kind.to_owned(),
            Box::new(move |spec| make(spec).map(ActionType::new)),
        );
    }

    /// Registers the behaviour of a condition kind: `make` reads a node's fields once, at
    /// compile time, and returns the condition, which every agent shares.
    pub fn condition<T: Condition<A> + 'static>(
        &mut self,
        kind: &str,
        make: impl Fn(&mut NodeSpec<'_>) -> Result<T, String> + Send + Sync + 'static,
    ) {
        self.conditions.insert(
            kind.to_owned(),
            Box::new(move |spec| make(spec).map(CondRef::new)),
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
