//! The game's leaves and conditions as C callbacks, and what a callback may ask of its
//! node while it runs (`arbor_call_*`). A callback is given an `ArborNode`: the node's
//! fields and the agent's memory for it to read directly, and what `arbor_call_*` need.
//! It is good only until the callback returns: the node running now on each thread is
//! kept, and `arbor_call_*` refuse any other (`ARBOR_ERR_CALL`) rather than follow it.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::ffi::{CString, c_char, c_void};
use std::sync::Mutex;

use arbor::model::Value;
use arbor::runtime::{Action, CondIo, Condition, LeafIo, NodeSpec, Outcome, Output, Status};

use crate::error::{
    ARBOR_ERR_ARGUMENT, ARBOR_ERR_BUSY, ARBOR_ERR_CALL, ARBOR_ERR_NOT_FOUND, ARBOR_ERR_NULL,
    ARBOR_ERR_TYPE, ARBOR_OK, Failure, fail, guard,
};
use crate::value::{ArborValue, name, put};

/// A callback's node is running: it is asked again next step.
pub const ARBOR_RUNNING: i32 = 1;
/// A callback's node is done and succeeded.
pub const ARBOR_SUCCESS: i32 = 2;
/// A callback's node is done and failed (`arbor_call_fail_because` says why).
pub const ARBOR_FAILURE: i32 = 3;
/// What an aborted node's `exit` callback is told: it was stopped from outside.
pub const ARBOR_ABORTED: i32 = 4;

/// The node a callback runs for, valid only until the callback returns (copy what is
/// kept). `fields` are the node's fields, its kind's own in the order its library lists
/// them, then those common to its category; each with its value in the tree or the
/// kind's default (`ARBOR_NONE` for an optional field left empty; a field bound to a key
/// has the key's value as the node was entered).
#[repr(C)]
pub struct ArborNode {
    /// The node's fields, `field_count` of them.
    pub fields: *const ArborValue,
    /// How many.
    pub field_count: usize,
    /// The number this agent keeps for this leaf between calls (0 when the agent is made),
    /// to read and write: a timer, a count, an index into the game's tables. Null for a
    /// condition.
    pub memory: *mut u64,
    /// The step number (0 for the first).
    pub step: u64,
    /// Arbor's; not to be touched.
    pub reserved: *const c_void,
}

/// An action's `execute`: one step of the node for `agent` (the pointer given to
/// `arbor_agent_step`), `dt` seconds long. Returns `ARBOR_RUNNING`, `ARBOR_SUCCESS` or
/// `ARBOR_FAILURE`.
pub type ArborExecuteFn = Option<
    extern "C" fn(user: *mut c_void, agent: *mut c_void, node: *const ArborNode, dt: f64) -> i32,
>;
/// An action's `enter`: the node starts for `agent`.
pub type ArborEnterFn =
    Option<extern "C" fn(user: *mut c_void, agent: *mut c_void, node: *const ArborNode)>;
/// An action's `exit`: the node stopped for `agent`, with `status` (`ARBOR_SUCCESS`,
/// `ARBOR_FAILURE`, or `ARBOR_ABORTED` when stopped from outside).
pub type ArborExitFn = Option<
    extern "C" fn(user: *mut c_void, agent: *mut c_void, node: *const ArborNode, status: i32),
>;
/// A condition's check for `agent`: 1 when it holds, 0 when not (before `invert`).
pub type ArborCheckFn =
    Option<extern "C" fn(user: *mut c_void, agent: *mut c_void, node: *const ArborNode) -> i32>;

/// The callbacks of one action kind. `execute` is required; `enter` and `exit` may be
/// null. `user` is handed to each, unchanged (the kind's own data, or null).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ArborAction {
    /// Handed to each callback.
    pub user: *mut c_void,
    /// Called once a step while the node runs.
    pub execute: ArborExecuteFn,
    /// Called when the node starts; may be null.
    pub enter: ArborEnterFn,
    /// Called when the node stops; may be null.
    pub exit: ArborExitFn,
}

/// The agent a step is for: the game's pointer, and the step's [`Steps`], as numbers
/// (the agent type is sent between threads with its instance; Arbor never follows
/// `data`, and `steps` only while the step runs).
pub struct CAgent {
    pub(crate) data: usize,
    pub(crate) steps: usize,
}

type Execute = extern "C" fn(*mut c_void, *mut c_void, *const ArborNode, f64) -> i32;
type CheckFn = extern "C" fn(*mut c_void, *mut c_void, *const ArborNode) -> i32;

/// The callbacks of one kind, as kept: `user` as a number (Arbor never follows it).
#[derive(Clone, Copy)]
pub(crate) struct Callbacks {
    user: usize,
    execute: Execute,
    enter: ArborEnterFn,
    exit: ArborExitFn,
}

impl Callbacks {
    /// The callbacks of `a`; `execute` must be there.
    pub(crate) fn of(a: &ArborAction) -> Result<Self, Failure> {
        let Some(execute) = a.execute else {
            return fail(ARBOR_ERR_NULL, "the action's execute callback is null");
        };
        Ok(Self {
            user: a.user as usize,
            execute,
            enter: a.enter,
            exit: a.exit,
        })
    }
}

/// A condition's callback, as kept.
#[derive(Clone, Copy)]
pub(crate) struct Check {
    user: usize,
    check: CheckFn,
}

impl Check {
    /// `check` with `user`; `check` must be there.
    pub(crate) fn of(check: ArborCheckFn, user: *mut c_void) -> Result<Self, Failure> {
        match check {
            Some(check) => Ok(Self {
                user: user as usize,
                check,
            }),
            None => fail(ARBOR_ERR_NULL, "the condition's check callback is null"),
        }
    }
}

/// A node's fields as its callbacks read them, made once when the tree compiles (again
/// at each entry for fields bound to keys): each name, and its value as C reads it, its
/// text in `texts`.
pub(crate) struct Fields {
    /// The node's id and kind, for messages.
    node: String,
    kind: String,
    names: Vec<CString>,
    values: Vec<ArborValue>,
    /// Where each text value's bytes live (the values point into them; a `CString`'s
    /// bytes do not move when the vector does).
    _texts: Vec<CString>,
    outputs: Vec<(String, Output)>,
}

// SAFETY: the raw pointers in `values` point into `_texts`, owned by the same value and
// never changed after it is made: sharing it between threads only reads them.
unsafe impl Send for Fields {}
// SAFETY: as for Send: read only.
unsafe impl Sync for Fields {}

impl Fields {
    /// The fields `names` of `spec`'s node, with its kind's defaults.
    fn of(spec: &mut NodeSpec<'_>, names: &[String]) -> Self {
        let mut texts = Vec::new();
        let mut values = Vec::with_capacity(names.len());
        let mut outputs = Vec::new();
        for f in names {
            let value = spec.value(f).cloned();
            let text = match &value {
                Some(Value::Text(t) | Value::Key(t)) => c_string(t),
                _ => CString::default(),
            };
            values.push(ArborValue::of_field(value.as_ref(), &text));
            texts.push(text);
            if let Some(o) = spec.output(f) {
                outputs.push((f.clone(), o));
            }
        }
        Self {
            node: spec.node.id.to_string(),
            kind: spec.node.kind.clone(),
            names: names.iter().map(|n| c_string(n)).collect(),
            values,
            _texts: texts,
            outputs,
        }
    }

    fn get(&self, field: &str) -> Option<ArborValue> {
        let i = self
            .names
            .iter()
            .position(|n| n.as_bytes() == field.as_bytes())?;
        self.values.get(i).copied()
    }
}

fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap_or_default()
}

/// The names of a kind's fields, to read for each of its nodes: its own, in the order
/// its library lists them, then those common to its category.
pub(crate) fn field_names(catalog: &arbor::model::Catalog, kind: &str) -> Vec<String> {
    let Some(k) = catalog.kind(kind) else {
        return Vec::new();
    };
    let own: Vec<String> = k.own_fields().map(|f| f.name.clone()).collect();
    let common = k.fields.iter().filter(|f| !own.contains(&f.name));
    let common: Vec<String> = common.map(|f| f.name.clone()).collect();
    [own, common].concat()
}

/// An action kind's node: its callbacks and fields.
pub(crate) struct CAction {
    calls: Callbacks,
    fields: Fields,
}

impl CAction {
    pub(crate) fn new(calls: Callbacks, spec: &mut NodeSpec<'_>, names: &[String]) -> Self {
        Self {
            calls,
            fields: Fields::of(spec, names),
        }
    }
}

/// A condition kind's node: its callback and fields.
pub(crate) struct CCondition {
    check: Check,
    fields: Fields,
}

impl CCondition {
    pub(crate) fn new(check: Check, spec: &mut NodeSpec<'_>, names: &[String]) -> Self {
        Self {
            check,
            fields: Fields::of(spec, names),
        }
    }
}

/// What `arbor_call_*` reach through an `ArborNode`'s `reserved`: the step's own values,
/// alive and not otherwise used until the callback returns.
struct Scope {
    fields: *const Fields,
    /// An action's input and output (`None` for a condition).
    io: Option<*mut LeafIo<'static>>,
    /// A condition's view.
    cond: Option<*const CondIo<'static>>,
    reason: Cell<Option<&'static str>>,
}

/// What the steps of one call (`arbor_agent_step`, `arbor_step_all`) share: the node whose
/// callback runs now, and the first thing a callback got wrong in the agent's step.
pub(crate) struct Steps {
    current: Cell<*const ArborNode>,
    fault: RefCell<Option<String>>,
}

thread_local! {
    /// The steps running on this thread (null: none): while they run, only `arbor_call_*`
    /// may be called, with the node whose callback runs now.
    static STEPS: Cell<*const Steps> = const { Cell::new(std::ptr::null()) };
}

/// Puts the thread back as it was when a call's steps end, however they end.
struct Running(*const Steps);

impl Drop for Running {
    fn drop(&mut self) {
        STEPS.set(self.0);
    }
}

/// Runs `f`, a call's steps, with their [`Steps`] known to this thread.
pub(crate) fn stepping<R>(f: impl FnOnce(&Steps) -> R) -> R {
    let steps = Steps {
        current: Cell::new(std::ptr::null()),
        fault: RefCell::new(None),
    };
    let _back = Running(STEPS.replace(&raw const steps));
    f(&steps)
}

impl Steps {
    /// The agent `data` as its callbacks are given it, in these steps.
    pub(crate) fn agent(&self, data: *mut std::ffi::c_void) -> CAgent {
        CAgent {
            data: data as usize,
            steps: std::ptr::from_ref(self) as usize,
        }
    }

    /// The first thing a callback got wrong since the last call, taken.
    pub(crate) fn fault(&self) -> Option<String> {
        self.fault.borrow_mut().take()
    }
}

/// Refuses a call made from inside a callback (other than `arbor_call_*`).
pub(crate) fn outside(what: &str) -> Result<(), Failure> {
    if !STEPS.get().is_null() {
        return fail(
            ARBOR_ERR_BUSY,
            format!(
                "{what} was called from inside a callback: only arbor_call_* functions may be called there"
            ),
        );
    }
    Ok(())
}

/// The steps `agent` is stepped in.
fn steps_of(agent: &CAgent) -> &Steps {
    // SAFETY: `steps` is the address of the `Steps` of the call stepping this agent
    // (Steps::agent), alive on that call's stack until its steps end, and a callback runs
    // only within them.
    unsafe { &*(agent.steps as *const Steps) }
}

/// Notes the first thing a callback got wrong, for the step's caller.
fn report(agent: &CAgent, message: String) {
    let mut fault = steps_of(agent).fault.borrow_mut();
    if fault.is_none() {
        *fault = Some(message);
    }
}

/// Runs `body` with the node a callback is given, made current; the failure reason it
/// gave, after.
fn framed<R>(
    agent: &CAgent,
    fields: &Fields,
    io: Option<&mut LeafIo<'_>>,
    cond: Option<&CondIo<'_>>,
    memory: Option<&mut u64>,
    body: impl FnOnce(*const ArborNode) -> R,
) -> (R, Option<&'static str>) {
    let step = match (&io, cond) {
        (Some(io), _) => io.step,
        (_, Some(c)) => c.step,
        _ => 0,
    };
    let scope = Scope {
        fields,
        // (Lifetimes erased: the scope is gone before the borrows end.)
        io: io.map(|io| std::ptr::from_mut(io).cast::<LeafIo<'static>>()),
        cond: cond.map(|c| std::ptr::from_ref(c).cast::<CondIo<'static>>()),
        reason: Cell::new(None),
    };
    let node = ArborNode {
        fields: fields.values.as_ptr(),
        field_count: fields.values.len(),
        memory: memory.map_or(std::ptr::null_mut(), std::ptr::from_mut),
        step,
        reserved: std::ptr::from_ref(&scope).cast(),
    };
    let steps = steps_of(agent);
    steps.current.set(&raw const node);
    let r = body(&raw const node);
    steps.current.set(std::ptr::null());
    (r, scope.reason.get())
}

fn agent_ptr(a: &CAgent) -> *mut c_void {
    a.data as *mut c_void
}

fn status_code(s: Status) -> i32 {
    match s {
        Status::Success => ARBOR_SUCCESS,
        Status::Failure => ARBOR_FAILURE,
        _ => ARBOR_ABORTED,
    }
}

impl Action<CAgent> for CAction {
    type Memory = u64;

    fn on_enter(&self, memory: &mut u64, agent: &mut CAgent, io: &mut LeafIo<'_>) {
        if let Some(enter) = self.calls.enter {
            let user = self.calls.user as *mut c_void;
            framed(agent, &self.fields, Some(io), None, Some(memory), |node| {
                enter(user, agent_ptr(agent), node);
            });
        }
    }

    #[inline]
    fn on_execute(
        &self,
        memory: &mut u64,
        agent: &mut CAgent,
        io: &mut LeafIo<'_>,
        dt: f64,
    ) -> Outcome {
        let user = self.calls.user as *mut c_void;
        let execute = self.calls.execute;
        let (code, reason) = framed(agent, &self.fields, Some(io), None, Some(memory), |node| {
            execute(user, agent_ptr(agent), node, dt)
        });
        match code {
            ARBOR_RUNNING => Outcome::Running,
            ARBOR_SUCCESS => Outcome::Success,
            ARBOR_FAILURE => reason.map_or(Outcome::Failure, Outcome::FailureBecause),
            other => {
                report(
                    agent,
                    format!(
                        "[{}] the execute callback of {} returned {other}, which is none of ARBOR_RUNNING (1), ARBOR_SUCCESS (2), ARBOR_FAILURE (3): the node failed",
                        self.fields.node, self.fields.kind
                    ),
                );
                Outcome::FailureBecause("the callback returned no status")
            }
        }
    }

    fn on_exit(&self, memory: &mut u64, agent: &mut CAgent, io: &mut LeafIo<'_>, status: Status) {
        if let Some(exit) = self.calls.exit {
            let user = self.calls.user as *mut c_void;
            framed(agent, &self.fields, Some(io), None, Some(memory), |node| {
                exit(user, agent_ptr(agent), node, status_code(status));
            });
        }
    }
}

impl Condition<CAgent> for CCondition {
    #[inline]
    fn check(&self, agent: &mut CAgent, io: &CondIo<'_>) -> bool {
        let user = self.check.user as *mut c_void;
        let check = self.check.check;
        let (code, _) = framed(agent, &self.fields, None, Some(io), None, |node| {
            check(user, agent_ptr(agent), node)
        });
        match code {
            0 => false,
            1 => true,
            other => {
                report(
                    agent,
                    format!(
                        "[{}] the check callback of {} returned {other}, which is neither 1 (holds) nor 0 (does not): taken as 0",
                        self.fields.node, self.fields.kind
                    ),
                );
                false
            }
        }
    }
}

/// Runs `f` on the scope of `node`, the node whose callback runs now on this thread.
fn on_scope(node: *const ArborNode, f: impl FnOnce(&Scope) -> Result<i32, Failure>) -> i32 {
    guard(|| {
        let steps = STEPS.get();
        let current = if steps.is_null() {
            std::ptr::null()
        } else {
            // SAFETY: a non-null `STEPS` is the `Steps` of the call stepping on this
            // thread, alive until it ends (stepping()).
            unsafe { &*steps }.current.get()
        };
        if node.is_null() || current != node {
            return fail(
                ARBOR_ERR_CALL,
                "the ArborNode is not the one whose callback runs now on this thread: a node is good only until its callback returns",
            );
        }
        // SAFETY: `node` is the current node: an `ArborNode` on the stack of framed(),
        // alive until its callback returns, whose `reserved` is its `Scope`.
        let scope = unsafe { &*(*node).reserved.cast::<Scope>() };
        f(scope)
    })
}

/// Reads field `field` of the node (by name: `node->fields` has them all in order) into
/// `out`. `ARBOR_ERR_NOT_FOUND` when its kind has no such field.
///
/// # Safety
/// `field` must be a NUL-terminated string; `out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_call_field(
    node: *const ArborNode,
    field: *const c_char,
    out: *mut ArborValue,
) -> i32 {
    on_scope(node, |scope| {
        // SAFETY: the caller's contract.
        let field = unsafe { name(field, "field") }?;
        // SAFETY: the node's fields, alive while the scope is.
        match unsafe { &*scope.fields }.get(field) {
            // SAFETY: the caller's contract.
            Some(v) => unsafe { put(out, v) }.map(|()| ARBOR_OK),
            None => fail(
                ARBOR_ERR_NOT_FOUND,
                format!("the node's kind has no field '{field}'"),
            ),
        }
    })
}

/// Reads the value the node fetched from its `in_context` key when it was entered into
/// `out` (`ARBOR_NONE` when it has none).
///
/// # Safety
/// `out` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_call_input(node: *const ArborNode, out: *mut ArborValue) -> i32 {
    on_scope(node, |scope| {
        let input = match (scope.io, scope.cond) {
            // SAFETY: the step's own LeafIo, alive and unused while the scope is.
            (Some(io), _) => unsafe { &*io }.input().cloned(),
            // SAFETY: the step's own CondIo, alive while the scope is.
            (_, Some(c)) => unsafe { &*c }.input.cloned(),
            _ => None,
        };
        let v = input.map_or(ArborValue::NONE, |v| ArborValue::of(&v, false));
        // SAFETY: the caller's contract.
        unsafe { put(out, v) }.map(|()| ARBOR_OK)
    })
}

/// Sets what the action produces: stored under its `out_context` key when it finishes
/// (dropped for a node without one). Only in an action's callbacks.
///
/// # Safety
/// Text in `value` must be readable as its `text_len` says.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_call_produce(node: *const ArborNode, value: ArborValue) -> i32 {
    on_scope(node, |scope| {
        let Some(io) = scope.io else {
            return fail(ARBOR_ERR_ARGUMENT, "a condition produces nothing");
        };
        // SAFETY: the caller's contract.
        let Some(v) = (unsafe { value.to_ctx() })? else {
            return fail(ARBOR_ERR_ARGUMENT, "produce a value, not ARBOR_NONE");
        };
        // SAFETY: the step's own LeafIo, alive and unused while the scope is.
        unsafe { &mut *io }.produce(v);
        Ok(ARBOR_OK)
    })
}

/// Sets the key that writing field `field` (an output port) is bound to, to `value`,
/// stored as `execute` returns (docs/SEMANTICS.md §3.5). `ARBOR_ERR_NOT_FOUND` for a field
/// that is not an output bound to a key. A value that does not fit the key's type stores
/// nothing and fails the action.
///
/// # Safety
/// `field` must be a NUL-terminated string; text in `value` readable as its `text_len` says.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_call_set_output(
    node: *const ArborNode,
    field: *const c_char,
    value: ArborValue,
) -> i32 {
    on_scope(node, |scope| {
        // SAFETY: the caller's contract.
        let field = unsafe { name(field, "field") }?;
        let Some(io) = scope.io else {
            return fail(ARBOR_ERR_ARGUMENT, "a condition writes no output");
        };
        // SAFETY: the node's fields, alive while the scope is.
        let fields = unsafe { &*scope.fields };
        let Some(&(_, output)) = fields.outputs.iter().find(|(f, _)| f == field) else {
            let why = if fields.get(field).is_some() {
                "is not an output bound to a key in this node"
            } else {
                "is not a field of the node's kind"
            };
            return fail(ARBOR_ERR_NOT_FOUND, format!("'{field}' {why}"));
        };
        // SAFETY: the caller's contract.
        let Some(v) = (unsafe { value.to_ctx() })? else {
            return fail(ARBOR_ERR_TYPE, "an output takes a value, not ARBOR_NONE");
        };
        // SAFETY: the step's own LeafIo, alive and unused while the scope is.
        unsafe { &mut *io }.set_output(output, v);
        Ok(ARBOR_OK)
    })
}

/// The most distinct failure reasons kept; a reason beyond them is said as "(reason not
/// kept)". Reasons are kept for the life of the process, as trace events point to them.
const MAX_REASONS: usize = 4096;

static REASONS: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);

/// `reason`, kept for good.
fn kept(reason: &str) -> &'static str {
    let mut all = REASONS.lock().unwrap_or_else(|p| p.into_inner());
    let all = all.get_or_insert_with(HashSet::new);
    if let Some(r) = all.get(reason) {
        return r;
    }
    if all.len() >= MAX_REASONS {
        return "(reason not kept)";
    }
    let r: &'static str = Box::leak(reason.to_owned().into_boxed_str());
    all.insert(r);
    r
}

/// Says why the action fails, for the `ARBOR_FAILURE` its `execute` returns now: the
/// node's exit event carries it and the editor's log shows it ("none in reach"). At most
/// 4,096 distinct reasons are kept a process.
///
/// # Safety
/// `reason` must be a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_call_fail_because(
    node: *const ArborNode,
    reason: *const c_char,
) -> i32 {
    on_scope(node, |scope| {
        // SAFETY: the caller's contract.
        let reason = unsafe { name(reason, "reason") }?;
        if scope.io.is_none() {
            return fail(
                ARBOR_ERR_ARGUMENT,
                "a condition gives no reason: it holds or not",
            );
        }
        scope.reason.set(Some(kept(reason)));
        Ok(ARBOR_OK)
    })
}
