//! An action leaf (SEMANTICS.md §3.1, §3.2): any kind registered as an action. Its catalog entry
//! comes with the behaviour registered for it; the fields every leaf has are
//! `max_duration`, `in_context`, `out_context` and `overwrite_out`.
//!
//! Per instance: an epoch word, whose lowest bit is its entered-now mark; a timer (its
//! time executed) when it has a `max_duration`; its input and what it produces, in the
//! instance's cold block, when it has `in_context` or `out_context`.

use super::{Act, Build, Def, EPS, Needs};
use crate::model::{Category, KindSpec, Node};
use crate::runtime::Outcome;
use crate::runtime::Status;
use crate::runtime::behaviour::KeyId;
use crate::runtime::exec::{Exec, Hooks};
use crate::runtime::program::{HAS_IO, HAS_TIMER, LeafInfo, NONE};

#[derive(Clone, Copy, Debug)]
pub(crate) struct Leaf {
    pub max_duration: Option<f64>,
    pub input: Option<KeyId>,
    pub output: Option<KeyId>,
    pub overwrite: bool,
}

impl Def for Leaf {
    fn specs() -> Vec<KindSpec> {
        Vec::new()
    }

    fn serves(_: &str, category: Category) -> bool {
        category == Category::Leaf
    }

    fn build(node: &Node, b: &mut Build<'_>) -> Self {
        Self {
            max_duration: b.number(node, "max_duration"),
            input: b.key(node, "in_context"),
            output: b.key(node, "out_context"),
            overwrite: b.flag(node, "overwrite_out"),
        }
    }

    fn needs(self) -> Needs {
        Needs {
            records: 1,
            word: false,
            timer: self.max_duration.is_some(),
        }
    }

    /// Fetches its input (a missing key resets the tree), then `on_enter`; it is active
    /// from now on and executes from the next step.
    #[inline(always)]
    fn enter<A, H: Hooks>(self, x: &mut Exec<'_, '_, A, H>, n: u32) -> Act {
        if !start(x, n) {
            return Act::Unwind;
        }
        x.activate(n);
        Act::Running
    }
}

/// Leaf `n` starts: its input, its `enter`, `on_enter`; all but making it active. False
/// when its input's key is missing (the tree was reset).
#[inline(always)]
fn start<A, H: Hooks>(x: &mut Exec<'_, '_, A, H>, n: u32) -> bool {
    let p = x.program();
    let info = p.leaf(n);
    if info.has(HAS_IO | HAS_TIMER) && !enter_io(&mut x.again(), n, info) {
        return false;
    }
    x.mark_entered(info.ri);
    x.set_status(n, Status::Running);
    x.emit(n, crate::runtime::EventKind::Enter);
    x.call_action::<_, true>(info, |actions, agent, io| {
        actions.enter(&info.calls, agent, io)
    });
    true
}

/// Leaf `n`'s entry, for a leaf with an input, an output or a `max_duration`: fetches its
/// input (false, the tree reset, when its key is missing), forgets what it produced
/// before, starts its timer.
#[inline(never)]
fn enter_io<A, H: Hooks>(x: &mut Exec<'_, '_, A, H>, n: u32, info: &LeafInfo<A>) -> bool {
    let input = match x.program().recs[n as usize].kind {
        super::Kind::Leaf(leaf) => leaf.input,
        _ => None,
    };
    let value = match input {
        Some(k) => match x.context().get(k) {
            Some(v) => Some(v.clone()),
            None => {
                x.context_missing(n, k);
                return false;
            }
        },
        None => None,
    };
    if info.input_at != 0 {
        x.set_input(info.input_at, value);
    }
    if info.output_at != 0 {
        x.take_produced(info.output_at);
    }
    if info.timer_at != NONE {
        *x.timer_at_mut(info.timer_at) = 0.0;
    }
    true
}

/// The reason given for a leaf failed by its `max_duration`.
pub const MAX_DURATION: &str = "max_duration";

/// What leaf `info` describes does after `on_execute` returned `outcome`: `Some` when it
/// finished (it returned so, or it ran for its `max_duration`). `EXTRAS` false: it has
/// no `max_duration` (see `Exec::check_and_execute`).
#[inline(always)]
pub(crate) fn outcome<A, H: Hooks, const EXTRAS: bool>(
    x: &mut Exec<'_, '_, A, H>,
    info: &LeafInfo<A>,
    outcome: Outcome,
    dt: f64,
) -> Option<Status> {
    // The reason of a failure goes to the leaf's `exit` event (see `stop`).
    match outcome {
        Outcome::Running => {}
        Outcome::Success => {
            x.set_reason(None);
            return Some(Status::Success);
        }
        Outcome::Failure => {
            x.set_reason(None);
            return Some(Status::Failure);
        }
        Outcome::FailureBecause(why) => {
            x.set_reason(Some(why));
            return Some(Status::Failure);
        }
    }
    if !(EXTRAS && info.has(HAS_TIMER)) {
        // No `max_duration`.
        return None;
    }
    let timer = x.timer_at_mut(info.timer_at);
    *timer += dt;
    if *timer < info.max_duration - EPS {
        return None;
    }
    x.set_reason(Some(MAX_DURATION));
    Some(Status::Failure)
}

/// Leaf `n`, which `info` describes, stops with success or failure: it is not active any
/// more; `on_exit`, its out-context, its `exit` event. `EXTRAS` false: it has no extras
/// (see `Exec::check_and_execute`).
#[inline(always)]
pub(crate) fn exit<A, H: Hooks, const EXTRAS: bool>(
    x: &mut Exec<'_, '_, A, H>,
    n: u32,
    info: &LeafInfo<A>,
    status: Status,
) {
    x.deactivate(n);
    stop::<A, H, EXTRAS>(x, n, info, status);
}

/// Leaf `from` finished with `status`, and its parent enters its next child, leaf `to`:
/// `from` exits and `to` is entered, `to` taking `from`'s place among the active leaves.
/// `EXTRAS` false: `from` has no extras (see `Exec::check_and_execute`).
#[inline]
pub(crate) fn hand_over<A, H: Hooks, const EXTRAS: bool>(
    x: &mut Exec<'_, '_, A, H>,
    from: u32,
    info: &LeafInfo<A>,
    status: Status,
    to: u32,
) {
    stop::<A, H, EXTRAS>(x, from, info, status);
    x.replace_active(from, to);
    // A missing key resets the tree (and starts it again) from within: nothing is left.
    start(x, to);
}

/// [`exit`] but for the active leaves: `on_exit`, the out-context, the `exit` event, of
/// leaf `n`, which `info` describes, with the reason `outcome` noted for a failure.
#[inline(always)]
fn stop<A, H: Hooks, const EXTRAS: bool>(
    x: &mut Exec<'_, '_, A, H>,
    n: u32,
    info: &LeafInfo<A>,
    status: Status,
) {
    x.call_action::<_, EXTRAS>(info, |actions, agent, io| {
        actions.exit(&info.calls, agent, io, status)
    });
    if EXTRAS && info.output_at != 0 {
        write_output(&mut x.again(), n, info);
    }
    let reason = x.take_reason().filter(|_| status == Status::Failure);
    x.finish_because(n, status, reason);
}

/// What leaf `n`, which has `out_context`, produced goes into the context as it exits.
#[inline(never)]
fn write_output<A, H: Hooks>(x: &mut Exec<'_, '_, A, H>, n: u32, info: &LeafInfo<A>) {
    let super::Kind::Leaf(leaf) = x.program().recs[n as usize].kind else {
        return;
    };
    if let Some(k) = leaf.output
        && let Some(v) = x.take_produced(info.output_at)
        && (leaf.overwrite || x.context().get(k).is_none())
    {
        x.store(n, k, v);
    }
}

/// Running leaf `n` is aborted (its status already says so): it is not active any more,
/// gets `on_exit(aborted)`, and what it produced is dropped.
pub(crate) fn abort<A, H: Hooks>(x: &mut Exec<'_, '_, A, H>, n: u32) {
    let p = x.program();
    let info = p.leaf(n);
    x.deactivate(n);
    x.call_action::<_, true>(info, |actions, agent, io| {
        actions.exit(&info.calls, agent, io, Status::Aborted)
    });
    if info.output_at != 0 {
        x.take_produced(info.output_at);
    }
}
