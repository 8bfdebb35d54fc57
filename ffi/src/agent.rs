//! `ArborAgent`: one agent running a tree: its instance (state, blackboard, memories),
//! and the trace and editor link its steps go to.

use std::collections::{BTreeMap, HashSet};
use std::ffi::{c_char, c_void};
use std::path::PathBuf;
use std::sync::{Arc, Weak};

use arbor::runtime::{CtxValue, Instance, KeyError, Observer};

use crate::calls::{CAgent, Steps, outside, stepping};
use crate::error::{
    ARBOR_ERR_ARGUMENT, ARBOR_ERR_CALLBACK, ARBOR_ERR_NOT_FOUND, ARBOR_ERR_NULL, ARBOR_ERR_TYPE,
    ARBOR_HELD, ARBOR_OK, Failure, fail, guard,
};
use crate::handles::{self, Claim, Exclusive, Object, Type, claim};
use crate::link::Link;
use crate::trace::Trace;
use crate::tree::ArborTree;
use crate::value::{ArborValue, is_int, name, put};

/// A handle to an agent (0: none).
pub type ArborAgent = u64;

/// What an agent holds.
pub(crate) struct Agent {
    pub(crate) name: String,
    /// Its tree's file (or the name it was given as text under).
    pub(crate) tree_path: PathBuf,
    /// Its tree's text, when the tree was given as text.
    pub(crate) tree_text: Option<Arc<str>>,
    /// The kinds its tree's runtime knew beyond the built-ins, for a link's hello.
    pub(crate) kinds: Arc<[arbor::model::KindSpec]>,
    pub(crate) instance: Instance<CAgent>,
    pub(crate) trace: Option<Arc<Exclusive<Trace>>>,
    /// Weak: freeing the link ends it, whatever agents it had.
    pub(crate) link: Option<Weak<Link>>,
}

/// Runs completed and other counts of an agent (`arbor_agent_runs`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct ArborRuns {
    /// Steps taken (the next step's number).
    pub steps: u64,
    /// Runs of the tree that completed with success.
    pub succeeded: u64,
    /// Runs that completed with failure.
    pub failed: u64,
    /// Runs whose every node was skipped.
    pub skipped: u64,
    /// Stalls (a run that did nothing for a step).
    pub stalls: u64,
    /// Resets for a missing blackboard key.
    pub context_missing: u64,
    /// Interrupts started.
    pub interrupts: u64,
}

/// The agents a trace or link is opened for: each name and tree file, the tree files,
/// each once, the kinds their runtimes knew beyond Arbor's own, and the texts of the
/// trees given as text, by their paths.
pub(crate) struct Opened {
    pub(crate) named: Vec<(String, PathBuf)>,
    pub(crate) files: Vec<PathBuf>,
    pub(crate) kinds: Vec<arbor::model::KindSpec>,
    pub(crate) texts: BTreeMap<PathBuf, Arc<str>>,
}

/// Opens something for the `count` agents at `agents` (a trace, a link): every agent is
/// claimed first, so that `open` runs with all of them or none; `open` is given what they
/// run and the agents, to attach what it opened to. `out` must not be null and `dt` must
/// be a positive number of seconds.
///
/// # Safety
/// `agents` must hold `count` handles.
pub(crate) unsafe fn open_for<R>(
    agents: *const ArborAgent,
    count: usize,
    dt: f64,
    out_is_null: bool,
    open: impl FnOnce(&Opened, &mut [Claim<'_, Agent>]) -> Result<R, Failure>,
) -> Result<R, Failure> {
    if out_is_null || (agents.is_null() && count > 0) {
        return fail(ARBOR_ERR_NULL, "out or agents is null");
    }
    if !(dt.is_finite() && dt > 0.0) {
        return fail(
            ARBOR_ERR_ARGUMENT,
            format!("dt must be a positive number of seconds, not {dt}"),
        );
    }
    let handles: &[ArborAgent] = if count == 0 {
        &[]
    } else {
        // SAFETY: the caller's contract: `count` handles.
        unsafe { std::slice::from_raw_parts(agents, count) }
    };
    let objects = agents_of(handles)?;
    let mut claims = claim_all(&objects)?;
    let mut opened = Opened {
        named: Vec::with_capacity(count),
        files: Vec::new(),
        kinds: Vec::new(),
        texts: BTreeMap::new(),
    };
    // (Agents of one tree share its kinds: each set is looked at once.)
    let mut seen_sets: HashSet<*const [arbor::model::KindSpec]> = HashSet::new();
    let mut seen_kinds: HashSet<String> = HashSet::new();
    for a in &claims {
        opened.named.push((a.name.clone(), a.tree_path.clone()));
        if let Some(t) = &a.tree_text {
            match opened.texts.get(&a.tree_path) {
                Some(have) if have != t => {
                    return fail(
                        ARBOR_ERR_ARGUMENT,
                        format!(
                            "two trees given as text under one name, {}: give each its own",
                            a.tree_path.display()
                        ),
                    );
                }
                Some(_) => {}
                None => {
                    opened.texts.insert(a.tree_path.clone(), t.clone());
                }
            }
        }
        if seen_sets.insert(Arc::as_ptr(&a.kinds)) {
            for k in a.kinds.iter() {
                if seen_kinds.insert(k.name.clone()) {
                    opened.kinds.push(k.clone());
                }
            }
        }
    }
    opened.files = opened.named.iter().map(|(_, t)| t.clone()).collect();
    opened.files.sort();
    opened.files.dedup();
    open(&opened, &mut claims)
}

/// The agents of `handles`, each checked.
fn agents_of(handles: &[ArborAgent]) -> Result<Vec<Arc<Exclusive<Agent>>>, Failure> {
    let table = handles::read();
    handles
        .iter()
        .enumerate()
        .map(|(i, &h)| {
            table.agent(h).cloned().map_err(|e| Failure {
                code: e.code,
                message: format!("agents[{i}]: {}", e.message),
            })
        })
        .collect()
}

/// Every agent of `objects` claimed, or none. The claims are taken while the table is
/// held for reading, as every claim of an agent is (so that `arbor_step_all`, holding it
/// for writing, sees every claim there is).
fn claim_all(objects: &[Arc<Exclusive<Agent>>]) -> Result<Vec<Claim<'_, Agent>>, Failure> {
    let _table = handles::read();
    objects
        .iter()
        .enumerate()
        .map(|(i, a)| claim(a, &format!("agents[{i}]")))
        .collect()
}

/// Runs `f` on agent `agent`, claimed (the claim taken while the table is held for
/// reading; the table is not held while `f` runs).
fn with_agent(
    agent: ArborAgent,
    f: impl FnOnce(&mut Agent) -> Result<i32, Failure>,
) -> Result<i32, Failure> {
    let table = handles::read();
    let object = table.agent(agent)?.clone();
    let mut claimed = claim(&object, "the agent")?;
    drop(table);
    f(&mut claimed)
}

/// Makes an agent named `name` (as traces and the editor show it) running `tree`, its
/// random choices seeded with `seed`, into `*out`. Free it with `arbor_agent_free`.
///
/// # Safety
/// `name` must be a NUL-terminated string; `out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_agent_new(
    tree: ArborTree,
    name: *const c_char,
    seed: u64,
    out: *mut ArborAgent,
) -> i32 {
    guard(|| {
        outside("arbor_agent_new")?;
        // SAFETY: the caller's contract.
        let agent_name = unsafe { crate::value::name(name, "name") }?;
        if out.is_null() {
            return fail(ARBOR_ERR_NULL, "out is null");
        }
        let t = handles::tree(tree)?;
        let agent = Agent {
            name: agent_name.to_owned(),
            tree_path: t.path.clone(),
            tree_text: t.text.clone(),
            kinds: t.kinds.clone(),
            instance: Instance::new(t.program.clone(), seed),
            trace: None,
            link: None,
        };
        // SAFETY: the caller's contract (`out` checked not null above).
        unsafe { handles::give(Object::Agent(Arc::new(Exclusive::new(agent))), out) }
    })
}

/// Frees an agent.
#[unsafe(no_mangle)]
pub extern "C" fn arbor_agent_free(agent: ArborAgent) -> i32 {
    guard(|| {
        outside("arbor_agent_free")?;
        handles::remove(agent, Type::Agent).map(|_| ARBOR_OK)
    })
}

/// Steps agent `a` by `dt` in `steps`, its callbacks given `data`.
fn step(a: &mut Agent, dt: f64, data: *mut c_void, steps: &Steps) -> Result<i32, Failure> {
    let link = a.link.as_ref().and_then(Weak::upgrade);
    if let Some(link) = &link {
        link.deliver(&a.name, &mut a.instance);
        if !link.may_step(&a.name) {
            return Ok(ARBOR_HELD);
        }
    }
    let mut agent = steps.agent(data);
    let mut trace = match &a.trace {
        Some(t) => Some(claim(t, "the trace").map_err(|e| Failure {
            code: e.code,
            message: format!(
                "agent '{}': {} (agents that share a trace step one at a time)",
                a.name, e.message
            ),
        })?),
        None => None,
    };
    let writer = trace.as_mut().and_then(|t| t.writer.as_mut());
    match (writer, &link) {
        (None, None) => a.instance.step(dt, &mut agent, None),
        (Some(w), None) => {
            w.set_agent(&a.name);
            a.instance.step(dt, &mut agent, Some(w));
        }
        (None, Some(link)) => {
            let mut watch = link.watch(&a.name);
            a.instance.step(dt, &mut agent, Some(&mut watch));
        }
        (Some(w), Some(link)) => {
            w.set_agent(&a.name);
            let mut watch = link.watch(&a.name);
            let mut both: [&mut dyn Observer; 2] = [w, &mut watch];
            a.instance.step(dt, &mut agent, Some(&mut both));
        }
    }
    match steps.fault() {
        Some(f) => fail(ARBOR_ERR_CALLBACK, format!("agent '{}': {f}", a.name)),
        None => Ok(ARBOR_OK),
    }
}

fn check_dt(dt: f64) -> Result<(), Failure> {
    if dt.is_finite() && dt >= 0.0 {
        Ok(())
    } else {
        fail(
            ARBOR_ERR_ARGUMENT,
            format!("dt must be a number of seconds, 0 or more, not {dt}"),
        )
    }
}

/// Steps the agent by `dt` seconds; its callbacks are given `data` as their `agent`
/// (the game's own record of it; Arbor never reads it). The first step starts the tree.
/// `ARBOR_HELD` (not an error) when the editor holds the agent: nothing was done.
/// `ARBOR_ERR_CALLBACK` when a callback returned what it may not: the step was taken,
/// with that node failed.
#[unsafe(no_mangle)]
pub extern "C" fn arbor_agent_step(agent: ArborAgent, dt: f64, data: *mut c_void) -> i32 {
    guard(|| {
        outside("arbor_agent_step")?;
        check_dt(dt)?;
        with_agent(agent, |a| stepping(|steps| step(a, dt, data, steps)))
    })
}

/// Steps `count` agents by `dt` seconds, one after another in the order given; agent
/// `i`'s callbacks are given `data[i]` (`data` may be null: null for each). Every agent is
/// stepped whatever another's result; the first failure's code is returned (`ARBOR_OK`
/// when none failed; a held agent is not a failure). While it runs, calls on other threads that use
/// handles wait for it (and it for them).
///
/// # Safety
/// `agents` must hold `count` handles, and `data`, unless null, `count` pointers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_step_all(
    agents: *const ArborAgent,
    data: *const *mut c_void,
    count: usize,
    dt: f64,
) -> i32 {
    guard(|| {
        outside("arbor_step_all")?;
        check_dt(dt)?;
        if count == 0 {
            return Ok(ARBOR_OK);
        }
        if agents.is_null() {
            return fail(ARBOR_ERR_NULL, "agents is null");
        }
        // SAFETY: the caller's contract: `count` handles.
        let agents = unsafe { std::slice::from_raw_parts(agents, count) };
        let data: Option<&[*mut c_void]> = if data.is_null() {
            None
        } else {
            // SAFETY: the caller's contract: `count` pointers.
            Some(unsafe { std::slice::from_raw_parts(data, count) })
        };
        // Every agent to itself, with one look-up of the table and no claim of each.
        let mut table = handles::write();
        let mut first: Option<Failure> = None;
        stepping(|steps| {
            for (i, &h) in agents.iter().enumerate() {
                let d = data.map_or(std::ptr::null_mut(), |d| d[i]);
                let r = table
                    .agent_alone(h)
                    .and_then(|mut a| step(&mut a, dt, d, steps));
                if let (Err(e), None) = (r, &first) {
                    first = Some(Failure {
                        code: e.code,
                        message: format!("agents[{i}]: {}", e.message),
                    });
                }
            }
        });
        first.map_or(Ok(ARBOR_OK), Err)
    })
}

/// Queues a trigger of the Interrupt `id` for the agent's next step, with `payload`
/// (null: none). `ARBOR_ERR_NOT_FOUND` when its tree has no such Interrupt: the trigger is
/// still queued, and the trace says it was ignored, as `arbor run --trigger` does.
///
/// # Safety
/// `id` must be a NUL-terminated string; `payload` null or readable, its text as its
/// `text_len` says.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_agent_trigger(
    agent: ArborAgent,
    id: *const c_char,
    payload: *const ArborValue,
) -> i32 {
    guard(|| {
        outside("arbor_agent_trigger")?;
        // SAFETY: the caller's contract.
        let id = unsafe { name(id, "id") }?;
        let payload = if payload.is_null() {
            None
        } else {
            // SAFETY: the caller's contract.
            unsafe { (*payload).to_ctx() }?
        };
        with_agent(agent, |a| {
            let known = a.instance.program().interrupt_ids().any(|i| i == id);
            a.instance.trigger(id, payload);
            if known {
                Ok(ARBOR_OK)
            } else {
                fail(
                    ARBOR_ERR_NOT_FOUND,
                    format!("agent '{}': its tree has no Interrupt '{id}'", a.name),
                )
            }
        })
    })
}

/// Reads blackboard key `key` into `out` (`ARBOR_NONE` while unset; an `int` key's value
/// as `ARBOR_INT`). `ARBOR_ERR_NOT_FOUND` when the tree has no such key.
///
/// # Safety
/// `key` must be a NUL-terminated string; `out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_agent_get(
    agent: ArborAgent,
    key: *const c_char,
    out: *mut ArborValue,
) -> i32 {
    guard(|| {
        outside("arbor_agent_get")?;
        // SAFETY: the caller's contract.
        let key = unsafe { name(key, "key") }?;
        with_agent(agent, |a| {
            let program = a.instance.program();
            let Some(id) = program.key(key) else {
                return fail(
                    ARBOR_ERR_NOT_FOUND,
                    format!("agent '{}': the tree has no key '{key}'", a.name),
                );
            };
            let int = is_int(program.key_type(id));
            let v = a
                .instance
                .context()
                .get(id)
                .map_or(ArborValue::NONE, |v| ArborValue::of(v, int));
            // SAFETY: the caller's contract.
            unsafe { put(out, v) }?;
            Ok(ARBOR_OK)
        })
    })
}

/// Puts `value` under `key` with `put` (set or seed), mapping its refusal to a code.
///
/// # Safety
/// Text in `value` must be readable as its `text_len` says.
unsafe fn put_key(
    agent: ArborAgent,
    key: *const c_char,
    value: &ArborValue,
    put: impl FnOnce(&mut Instance<CAgent>, &str, CtxValue) -> Result<(), KeyError>,
) -> Result<i32, Failure> {
    // SAFETY: the caller's contract.
    let key = unsafe { name(key, "key") }?;
    // SAFETY: the caller's contract.
    let Some(v) = (unsafe { value.to_ctx() })? else {
        return fail(ARBOR_ERR_TYPE, "a key takes a value, not ARBOR_NONE");
    };
    with_agent(agent, |a| match put(&mut a.instance, key, v) {
        Ok(()) => Ok(ARBOR_OK),
        Err(e @ KeyError::Unknown(_)) => {
            fail(ARBOR_ERR_NOT_FOUND, format!("agent '{}': {e}", a.name))
        }
        Err(e) => fail(ARBOR_ERR_TYPE, format!("agent '{}': {e}", a.name)),
    })
}

/// Sets blackboard key `key` to `value` until the next clear of the blackboard.
/// `ARBOR_ERR_NOT_FOUND` for a key the tree does not have, `ARBOR_ERR_TYPE` for a value
/// of another type than the key's (an `int` key takes only whole numbers).
///
/// # Safety
/// `key` must be a NUL-terminated string; text in `value` readable as its `text_len` says.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_agent_set(
    agent: ArborAgent,
    key: *const c_char,
    value: ArborValue,
) -> i32 {
    guard(|| {
        outside("arbor_agent_set")?;
        // SAFETY: the caller's contract.
        unsafe { put_key(agent, key, &value, |i, k, v| i.set(k, v)) }
    })
}

/// Gives this agent its own default for `key`, over the tree's: every clear of the
/// blackboard gives it back. Refused as `arbor_agent_set` is.
///
/// # Safety
/// As `arbor_agent_set`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_agent_seed(
    agent: ArborAgent,
    key: *const c_char,
    value: ArborValue,
) -> i32 {
    guard(|| {
        outside("arbor_agent_seed")?;
        // SAFETY: the caller's contract.
        unsafe { put_key(agent, key, &value, |i, k, v| i.seed(k, v)) }
    })
}

/// Reads the agent's counts into `out`: steps taken, runs completed, stalls, …
///
/// # Safety
/// `out` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_agent_runs(agent: ArborAgent, out: *mut ArborRuns) -> i32 {
    guard(|| {
        outside("arbor_agent_runs")?;
        if out.is_null() {
            return fail(ARBOR_ERR_NULL, "out is null");
        }
        with_agent(agent, |a| {
            let s = a.instance.stats();
            let runs = ArborRuns {
                steps: a.instance.step_number(),
                succeeded: s.succeeded,
                failed: s.failed,
                skipped: s.skipped,
                stalls: s.stalls,
                context_missing: s.context_missing,
                interrupts: s.interrupts,
            };
            // SAFETY: the caller's contract.
            unsafe { out.write(runs) };
            Ok(ARBOR_OK)
        })
    })
}
