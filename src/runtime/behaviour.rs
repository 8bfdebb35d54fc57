//! What leaves do: the [`Action`] and [`Condition`] traits, the context they read and
//! write, and what their factories read a node's fields with ([`NodeSpec`]). The registry
//! that builds them from a node's fields is `registry.rs`.

use std::fmt;
use std::sync::Arc;

use super::Status;
use crate::model::{Catalog, KeyType, Node, Value};

/// A value in an agent's context: a world entity, a position, a number, text or a truth
/// value.
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
    /// true or false.
    Bool(bool),
}

impl CtxValue {
    /// Whether a key of type `ty` can hold the value: an `int` a whole number, a `float`
    /// any number, `any` every value.
    pub fn fits(&self, ty: KeyType) -> bool {
        match (self, ty) {
            (_, KeyType::Any)
            | (CtxValue::Bool(_), KeyType::Bool)
            | (CtxValue::Number(_), KeyType::Float)
            | (CtxValue::Text(_), KeyType::Text)
            | (CtxValue::Entity(_), KeyType::Entity)
            | (CtxValue::Position(_), KeyType::Position) => true,
            (CtxValue::Number(n), KeyType::Int) => n.fract() == 0.0,
            _ => false,
        }
    }

    /// The value as a key of type `ty` holds it, where a script's value converts as
    /// BehaviorTree.CPP converts it (SEMANTICS.md §3.1): a number 0 or 1, or the text
    /// `true` or `false`, into a `bool` key; a text that is a number into a number key; a
    /// number into a `text` key as the language writes it. `None` when it does not fit.
    pub(crate) fn fitted(self, ty: KeyType) -> Option<CtxValue> {
        if self.fits(ty) {
            return Some(self);
        }
        let number = |t: &str| t.trim().parse::<f64>().ok().map(CtxValue::Number);
        let v = match (&self, ty) {
            (CtxValue::Number(n), KeyType::Bool) if *n == 0.0 || *n == 1.0 => {
                CtxValue::Bool(*n == 1.0)
            }
            (CtxValue::Text(t), KeyType::Bool) => match t.trim() {
                "true" => CtxValue::Bool(true),
                "false" => CtxValue::Bool(false),
                _ => return None,
            },
            (CtxValue::Text(t), KeyType::Int | KeyType::Float) => number(t)?,
            (CtxValue::Bool(b), KeyType::Int | KeyType::Float) => {
                CtxValue::Number(f64::from(u8::from(*b)))
            }
            (CtxValue::Number(n), KeyType::Text) => {
                CtxValue::Text(super::script::number_text(*n).into())
            }
            _ => return None,
        };
        v.fits(ty).then_some(v)
    }

    /// A word for the value's type, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            CtxValue::Entity(_) => "an entity",
            CtxValue::Position(_) => "a position",
            CtxValue::Number(_) => "a number",
            CtxValue::Text(_) => "a text",
            CtxValue::Bool(_) => "true or false",
        }
    }

    /// The value as true or false, if it is one.
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            CtxValue::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The value as a number, if it is one.
    pub fn as_number(&self) -> Option<f64> {
        match *self {
            CtxValue::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The value as text, if it is text.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            CtxValue::Text(t) => Some(t),
            _ => None,
        }
    }

    /// The entity's id, if the value is an entity.
    pub fn as_entity(&self) -> Option<u64> {
        match *self {
            CtxValue::Entity(e) => Some(e),
            _ => None,
        }
    }

    /// The point, if the value is a position.
    pub fn as_position(&self) -> Option<[f64; 2]> {
        match *self {
            CtxValue::Position(p) => Some(p),
            _ => None,
        }
    }

    /// The value as an event carries it.
    pub fn as_event(&self) -> super::ValueOf<&str> {
        use super::ValueOf;
        match self {
            CtxValue::Entity(e) => ValueOf::Entity(*e),
            CtxValue::Position(p) => ValueOf::Position(*p),
            CtxValue::Number(n) => ValueOf::Number(*n),
            CtxValue::Text(t) => ValueOf::Text(t),
            CtxValue::Bool(b) => ValueOf::Bool(*b),
        }
    }
}

impl From<bool> for CtxValue {
    fn from(b: bool) -> Self {
        CtxValue::Bool(b)
    }
}

impl From<f64> for CtxValue {
    fn from(n: f64) -> Self {
        CtxValue::Number(n)
    }
}

impl From<i64> for CtxValue {
    fn from(n: i64) -> Self {
        CtxValue::Number(n as f64)
    }
}

impl From<&str> for CtxValue {
    fn from(t: &str) -> Self {
        CtxValue::Text(t.into())
    }
}

impl From<[f64; 2]> for CtxValue {
    fn from(p: [f64; 2]) -> Self {
        CtxValue::Position(p)
    }
}

/// Why a value cannot be put under a key from outside a step
/// ([`crate::runtime::Instance::set`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum KeyError {
    /// The program has no key of this name.
    #[error("the tree has no key '{0}'")]
    Unknown(String),
    /// The key is declared with a type the value is not of.
    #[error("key '{key}' is of type {declared}, not {given}")]
    Type {
        /// The key.
        key: String,
        /// Its declared type.
        declared: KeyType,
        /// The value's type, in words.
        given: &'static str,
    },
}

impl<S: AsRef<str>> From<&super::ValueOf<S>> for CtxValue {
    fn from(v: &super::ValueOf<S>) -> Self {
        use super::ValueOf;
        match v {
            ValueOf::Entity(e) => CtxValue::Entity(*e),
            ValueOf::Position(p) => CtxValue::Position(*p),
            ValueOf::Number(n) => CtxValue::Number(*n),
            ValueOf::Text(t) => CtxValue::Text(t.as_ref().into()),
            ValueOf::Bool(b) => CtxValue::Bool(*b),
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
            CtxValue::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// A context key, interned when the program is compiled.
pub type KeyId = u16;

/// An agent's context: one slot per key the program uses, and how often each was set
/// (its stamp, which the entry-updated nodes compare, SEMANTICS.md §3.5).
#[derive(Clone, Debug, Default)]
pub struct Context {
    pub(crate) slots: Vec<Option<CtxValue>>,
    pub(crate) stamps: Vec<u64>,
}

impl Context {
    /// The value under a key.
    #[inline]
    pub fn get(&self, key: KeyId) -> Option<&CtxValue> {
        self.slots.get(usize::from(key)).and_then(Option::as_ref)
    }

    /// Sets or clears a key. Setting it (to any value, the same one included) counts as
    /// an update of it: its stamp grows.
    #[inline]
    pub fn set(&mut self, key: KeyId, value: Option<CtxValue>) {
        let at = usize::from(key);
        if value.is_some()
            && let Some(stamp) = self.stamps.get_mut(at)
        {
            *stamp += 1;
        }
        if let Some(slot) = self.slots.get_mut(at) {
            *slot = value;
        }
    }

    /// Key `key`'s stamp, while it holds a value: how often it was set since the instance
    /// began (its defaults as a run starts are not settings).
    #[inline]
    pub fn stamp(&self, key: KeyId) -> Option<u64> {
        self.get(key)?;
        self.stamps.get(usize::from(key)).copied()
    }

    /// Removes every value for which `keep` is false (the world drops destroyed entities).
    pub fn retain(&mut self, mut keep: impl FnMut(&CtxValue) -> bool) {
        for slot in &mut self.slots {
            if slot.as_ref().is_some_and(|v| !keep(v)) {
                *slot = None;
            }
        }
    }

    /// The context a run of `p` starts with: its declared keys' defaults.
    pub(crate) fn seeded<A>(p: &super::Program<A>) -> Self {
        let mut c = Self {
            slots: vec![None; p.keys().len()],
            stamps: vec![0; p.keys().len()],
        };
        c.reseed(p, &[]);
        c
    }

    /// Every key back to its default (the program's, then the agent's own `agent`), or to
    /// no value (SEMANTICS.md §3.5); no stamp changes.
    pub(crate) fn reseed<A>(&mut self, p: &super::Program<A>, agent: &[(KeyId, CtxValue)]) {
        self.clear();
        for (key, value) in p.seeds.iter().chain(agent) {
            if let Some(slot) = self.slots.get_mut(usize::from(*key)) {
                *slot = Some(value.clone());
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
    /// The keys a built-in action that writes keys itself (Script, UnsetKey) sets or
    /// clears as it executes, in order: the lifecycle stores them right after its
    /// `on_execute`. `None` for every other leaf.
    pub(crate) writes: Option<&'a mut Writes>,
}

/// Keys set (`Some`) or cleared (`None`) by an action as it executes, in order.
pub(crate) type Writes = Vec<(KeyId, Option<CtxValue>)>;

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

    /// Sets the key of a writing field ([`NodeSpec::output`]) to `value`, made the key's
    /// type (SEMANTICS.md §3.5). Called from `on_execute`, it is stored as that call
    /// returns, before the parent hears of the outcome; a value that does not fit the
    /// key's type stores nothing and fails the action. Set in `on_enter` or `on_exit`, it
    /// is dropped.
    pub fn set_output(&mut self, output: Output, value: impl Into<CtxValue>) {
        self.write(output.0, Some(value.into()));
    }

    /// Where a built-in action registered as writing keys puts the keys it sets or clears
    /// (see [`LeafIo::writes`]); `None` for any other leaf.
    pub(crate) fn writes(&mut self) -> Option<&mut Writes> {
        self.writes.as_deref_mut()
    }

    /// Sets (`Some`) or clears (`None`) key `key`, for an action registered as writing
    /// keys; a key written twice keeps its place and takes the later value, so there are
    /// never more entries than keys (the lifecycle's buffer never grows in a step).
    pub(crate) fn write(&mut self, key: KeyId, value: Option<CtxValue>) {
        if let Some(w) = self.writes.as_deref_mut() {
            stage(w, key, value);
        }
    }

    /// The value `key` has as this action sees it: what it wrote in this execute, else
    /// the context's.
    pub(crate) fn current(&self, key: KeyId) -> Option<&CtxValue> {
        staged(self.writes.as_deref(), self.seen.context, key)
    }
}

/// Notes in `writes` that key `key` is set to `value` (`None`: cleared); a key written
/// twice keeps its place and takes the later value, so there are never more entries
/// than keys.
pub(crate) fn stage(writes: &mut Writes, key: KeyId, value: Option<CtxValue>) {
    match writes.iter_mut().find(|(k, _)| *k == key) {
        Some(slot) => slot.1 = value,
        None => writes.push((key, value)),
    }
}

/// The value of `key` with `writes` (if any) noted over `context`.
pub(crate) fn staged<'v>(
    writes: Option<&'v Writes>,
    context: &'v Context,
    key: KeyId,
) -> Option<&'v CtxValue> {
    match writes.and_then(|w| w.iter().find(|(k, _)| *k == key)) {
        Some((_, v)) => v.as_ref(),
        None => context.get(key),
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
    pub(crate) keys: KeyLookup<'a>,
    /// Its fields bound to keys, which are read as it is entered (`bound.rs`); `None`
    /// for a node without any, or one being made from their values.
    pub(crate) bound: Option<std::sync::Arc<super::bound::Bound>>,
}

/// How [`NodeSpec::key`] finds a key's id: in the table being compiled, or among the ids a
/// node's key fields were given when it compiled (a behaviour made again from bound fields'
/// values, `bound.rs`).
pub(crate) enum KeyLookup<'a> {
    Table(&'a mut KeyTable),
    /// The ids of its key fields' keys, and of the keys its writing fields are bound to.
    Fixed {
        keys: &'a [(String, KeyId)],
        outputs: &'a [(String, KeyId)],
    },
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
        match &mut self.keys {
            KeyLookup::Table(table) => table.intern(name),
            // A name its key fields did not hold when it compiled: no key of the program.
            KeyLookup::Fixed { keys, .. } => keys
                .iter()
                .find(|(n, _)| n == name)
                .map_or(KeyId::MAX, |&(_, id)| id),
        }
    }

    /// Where the action writes field `field`'s value: the key the field is bound to, when
    /// its kind says the node writes it (`"direction": "out"` or `"inout"`, a
    /// BehaviorTree.CPP output port: SEMANTICS.md §3.5); `None` for a field that is not
    /// one, or holds a value rather than a key. The action sets it with
    /// [`LeafIo::set_output`].
    pub fn output(&mut self, field: &str) -> Option<Output> {
        let spec = self.catalog.kind(&self.node.kind)?.field(field)?;
        if !spec.direction.writes() {
            return None;
        }
        match &mut self.keys {
            KeyLookup::Fixed { outputs, .. } => outputs
                .iter()
                .find(|(f, _)| f == field)
                .map(|&(_, id)| Output(id)),
            KeyLookup::Table(table) => match self.node.fields.get(field) {
                Some(Value::Key(key)) => Some(Output(table.intern(key))),
                _ => None,
            },
        }
    }
}

/// A key an action writes through one of its fields ([`NodeSpec::output`]), found once as
/// the tree compiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Output(KeyId);

/// The writing fields of leaf `node` of kind `kind` bound to keys: each field's name and
/// key's name. Its action may write those keys ([`NodeSpec::output`]).
pub(crate) fn bound_outputs<'n>(
    node: &'n Node,
    kind: &'n crate::model::KindSpec,
) -> impl Iterator<Item = (&'n str, &'n str)> {
    node.fields.iter().filter_map(|(name, value)| match value {
        Value::Key(key) if kind.field(name).is_some_and(|f| f.direction.writes()) => {
            Some((name.as_str(), key.as_str()))
        }
        _ => None,
    })
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
    /// The SubTree nodes being compiled, outermost first: what the names of the tree being
    /// compiled stand for.
    scopes: Vec<Scope>,
}

/// What the key names of a SubTree's asset stand for in the program (SEMANTICS.md §3.5).
#[derive(Clone, Debug)]
struct Scope {
    /// The SubTree node's trace id and `/`: its own keys are named with it.
    prefix: String,
    /// Whether a key not bound below is the caller's of the same name.
    shares: bool,
    /// Each bound key of the asset, with the program's name of the caller's key it is.
    bound: std::collections::HashMap<String, String>,
    /// The keys that are the SubTree node's own even where it shares (those bound to a
    /// value).
    own: std::collections::HashSet<String>,
}

impl KeyTable {
    /// The program's name of key `name` of the tree being compiled: the caller's key it is
    /// bound to, the caller's of the same name where the SubTree shares, else the SubTree
    /// node's own, `SUBTREE-ID/NAME`.
    fn resolve(&self, name: &str) -> String {
        for scope in self.scopes.iter().rev() {
            if let Some(to) = scope.bound.get(name) {
                return to.clone();
            }
            if !scope.shares || scope.own.contains(name) {
                return format!("{}{name}", scope.prefix);
            }
        }
        name.to_owned()
    }

    /// A SubTree node whose trace ids start with `prefix` is compiled from here to
    /// [`KeyTable::leave`]: `bound` pairs each key of its asset bound to a key of the caller
    /// with that key's name in the caller; `own` names the keys that are the node's own
    /// even where it shares (those bound to a value).
    pub(crate) fn enter(
        &mut self,
        prefix: &str,
        shares: bool,
        bound: Vec<(String, String)>,
        own: Vec<String>,
    ) {
        let bound = bound
            .into_iter()
            .map(|(inner, caller)| (inner, self.resolve(&caller)))
            .collect();
        self.scopes.push(Scope {
            prefix: prefix.to_owned(),
            shares,
            bound,
            own: own.into_iter().collect(),
        });
    }

    /// The SubTree node entered last is compiled.
    pub(crate) fn leave(&mut self) {
        self.scopes.pop();
    }

    /// The id of `name` (a key of the tree being compiled, see [`KeyTable::enter`]), new
    /// ids in order of first use. Past [`MAX_KEYS`] keys every new key gets `KeyId::MAX`
    /// and [`KeyTable::full`] says so; no id ever wraps around.
    pub(crate) fn intern(&mut self, name: &str) -> KeyId {
        if self.scopes.is_empty() {
            return self.intern_resolved(name);
        }
        let resolved = self.resolve(name);
        self.intern_resolved(&resolved)
    }

    fn intern_resolved(&mut self, name: &str) -> KeyId {
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
