//! Fields bound to keys (SEMANTICS.md §3.5): a field that holds `{"key": NAME}` is read
//! from the agent's context.
//! - An action's or a condition's own field is read when the leaf is entered (a condition:
//!   each time it is checked), and the kind's behaviour is made from the node with that
//!   value in the field, as it would be from a literal. A leaf without bound fields is
//!   made once, when the tree compiles, and is untouched by this module.
//! - A branch's field ([`BoundSetting`]) is read when the branch is entered, into the
//!   instance's setting its kind reads (`node::Param::Key`).

use std::sync::Arc;

use super::Status;
use super::behaviour::{
    Action, CondIo, Condition, Context, CtxValue, KeyId, KeyLookup, LeafIo, NodeSpec, Outcome,
};
use super::node::Refusal;
use crate::model::{Catalog, FieldSpec, FieldType, Node, Value};

/// A branch's field bound to a key: read at each entry of its node into the instance's
/// setting of the same place among `Program::bindings`.
#[derive(Clone, Debug)]
pub(crate) struct BoundSetting {
    pub key: KeyId,
    /// The field's spec: its type and range.
    pub spec: FieldSpec,
    /// The number the kind keeps for a value of the field (`node::Setting`).
    pub conv: fn(&Value) -> f64,
}

impl BoundSetting {
    /// The setting the key's value in `context` gives, or why it gives none: the reason
    /// the branch's failure carries.
    pub(crate) fn read(&self, context: &Context) -> Result<f64, Refusal> {
        let value = context.get(self.key).ok_or(Refusal::NoValue)?;
        let value = field_value(&self.spec, value).ok_or(Refusal::NotFitting)?;
        Ok((self.conv)(&value))
    }
}

/// What making a leaf's behaviour from its bound fields' values needs.
pub(crate) struct Bound {
    /// The node, without its bound fields.
    pub node: Node,
    pub trace_id: String,
    pub catalog: Arc<Catalog>,
    /// The keys its kind's key fields name, as compiled (what `NodeSpec::key` answers).
    pub keys: Vec<(String, KeyId)>,
    /// Each bound field: its name, its key and its spec.
    pub fields: Vec<(String, KeyId, FieldSpec)>,
    /// Each writing field bound to a key: its name and its key (what `NodeSpec::output`
    /// answers).
    pub outputs: Vec<(String, KeyId)>,
}

/// Why a node with bound fields could not be made or set at its entry: the reason its
/// failure carries.
pub(crate) const NO_VALUE: &str = "a key-bound field's key holds no value";
pub(crate) const NOT_FITTING: &str = "a key-bound field's value does not fit it";
const REFUSED: &str = "a key-bound field's value is refused by the kind";

impl Bound {
    /// The behaviour `make` makes of the node with each bound field holding its key's value
    /// in `context`, or why it cannot be made.
    fn make<T>(
        &self,
        context: &Context,
        make: &dyn Fn(&mut NodeSpec<'_>) -> Result<T, String>,
    ) -> Result<T, &'static str> {
        let mut node = self.node.clone();
        for (name, key, spec) in &self.fields {
            let value = context.get(*key).ok_or(NO_VALUE)?;
            let value = field_value(spec, value).ok_or(NOT_FITTING)?;
            node.fields.insert(name.clone(), value);
        }
        let mut spec = NodeSpec {
            node: &node,
            trace_id: &self.trace_id,
            catalog: &self.catalog,
            keys: KeyLookup::Fixed {
                keys: &self.keys,
                outputs: &self.outputs,
            },
            bound: None,
        };
        make(&mut spec).map_err(|_| REFUSED)
    }
}

/// The field value a context value gives field `spec`, if it fits its type and range.
fn field_value(spec: &FieldSpec, v: &CtxValue) -> Option<Value> {
    let value = match (&spec.ty, v) {
        (FieldType::Bool, CtxValue::Bool(b)) => Value::Bool(*b),
        // Whole numbers within i64's range (2^63 is the first float past it).
        (FieldType::Int { .. }, CtxValue::Number(n))
            if n.fract() == 0.0 && n.abs() < 9_223_372_036_854_775_808.0 =>
        {
            Value::Int(*n as i64)
        }
        (FieldType::Float { .. }, CtxValue::Number(n)) if n.is_finite() => Value::Float(*n),
        (FieldType::Text | FieldType::Enum(_) | FieldType::Script(_), CtxValue::Text(t)) => {
            Value::Text(t.to_string())
        }
        _ => return None,
    };
    spec.check(&value).ok().map(|()| value)
}

/// An action whose behaviour is made at each entry from its bound fields' values.
pub(crate) struct BoundAction<T, F> {
    pub bound: Arc<Bound>,
    pub make: Arc<F>,
    pub made: std::marker::PhantomData<fn() -> T>,
}

/// What an agent keeps for a [`BoundAction`]: the behaviour made at its last entry (or
/// why none could be), and that behaviour's own memory.
pub(crate) struct BoundMemory<T, M> {
    action: Result<Arc<T>, &'static str>,
    inner: M,
}

impl<T, M: Default> Default for BoundMemory<T, M> {
    fn default() -> Self {
        Self {
            action: Err(NO_VALUE),
            inner: M::default(),
        }
    }
}

impl<T, M: Clone> Clone for BoundMemory<T, M> {
    fn clone(&self) -> Self {
        Self {
            action: self.action.clone(),
            inner: self.inner.clone(),
        }
    }
}

impl<A, T, F> Action<A> for BoundAction<T, F>
where
    T: Action<A> + 'static,
    F: Fn(&mut NodeSpec<'_>) -> Result<T, String> + Send + Sync + 'static,
{
    type Memory = BoundMemory<T, T::Memory>;

    fn on_enter(&self, memory: &mut Self::Memory, agent: &mut A, io: &mut LeafIo<'_>) {
        memory.action = self.bound.make(io.context, &*self.make).map(Arc::new);
        memory.inner = T::Memory::default();
        if let Ok(action) = &memory.action {
            action.on_enter(&mut memory.inner, agent, io);
        }
    }

    fn on_execute(
        &self,
        memory: &mut Self::Memory,
        agent: &mut A,
        io: &mut LeafIo<'_>,
        dt: f64,
    ) -> Outcome {
        match &memory.action {
            Ok(action) => action.on_execute(&mut memory.inner, agent, io, dt),
            Err(why) => Outcome::FailureBecause(why),
        }
    }

    fn on_exit(&self, memory: &mut Self::Memory, agent: &mut A, io: &mut LeafIo<'_>, s: Status) {
        if let Ok(action) = &memory.action {
            action.on_exit(&mut memory.inner, agent, io, s);
        }
    }
}

/// A condition whose behaviour is made at each check from its bound fields' values; it
/// does not hold when that cannot be done.
pub(crate) struct BoundCondition<T, F> {
    pub bound: Arc<Bound>,
    pub make: Arc<F>,
    pub made: std::marker::PhantomData<fn() -> T>,
}

impl<A, T, F> Condition<A> for BoundCondition<T, F>
where
    T: Condition<A>,
    F: Fn(&mut NodeSpec<'_>) -> Result<T, String> + Send + Sync,
{
    fn check(&self, agent: &mut A, io: &CondIo<'_>) -> bool {
        self.bound
            .make(io.context, &*self.make)
            .is_ok_and(|c| c.check(agent, io))
    }
}
