//! Events as the session keeps them (owned, with their agent), their trace lines and
//! their one-line explanations.

use std::sync::Arc;

use crate::runtime::{Event, EventKindOf, Status};

/// What happened, kept: an [`EventKindOf`] that owns its texts.
pub type LoggedKind = EventKindOf<Arc<str>>;

/// One event of one agent.
#[derive(Clone, Debug, PartialEq)]
pub struct Logged {
    /// The step it happened in.
    pub step: u64,
    /// The agent (index in scenario order).
    pub agent: usize,
    /// The node's index in the agent's program, if the event concerns a node.
    pub node: Option<u32>,
    /// What happened.
    pub kind: LoggedKind,
}

/// The event as `arbor run --trace` writes it.
pub(super) fn trace_line(agent: &str, node_id: &str, e: &Logged) -> String {
    let mut line = String::new();
    let agent = serde_json::to_string(agent).unwrap_or_else(|_| "\"\"".into());
    crate::runtime::format_event(
        &mut line,
        &agent,
        &Event {
            step: e.step,
            node: e.node,
            node_id,
            kind: e.kind.map(|t| &**t),
        },
    );
    line
}

/// The event at `i` of `events` in words, naming nodes by `title`; a failure says why,
/// from the events of its agent just before it in the same step (a guard found false, a
/// child that failed, a missing key, its own action).
pub fn describe(events: &[Logged], i: usize, title: &dyn Fn(u32) -> String) -> String {
    let Some(e) = events.get(i) else {
        return String::new();
    };
    let node = e.node.map(title).unwrap_or_default();
    match &e.kind {
        LoggedKind::Enter => match took_over(events, i) {
            Some((from, guard)) => format!(
                "{node} took over from {}: guard '{}' holds",
                title(from),
                title(guard)
            ),
            None => format!("{node} entered"),
        },
        LoggedKind::Execute => format!("{node} executed"),
        LoggedKind::Exit(Status::Failure) => {
            let cause = events[..i]
                .iter()
                .rev()
                .take_while(|c| c.step == e.step)
                .filter(|c| c.agent == e.agent && c.kind != LoggedKind::Abort)
                .find(|c| c.node != e.node || c.kind == LoggedKind::Execute);
            match cause.map(|c| (&c.kind, c.node.map(title).unwrap_or_default())) {
                Some((LoggedKind::Check(false), guard)) => {
                    format!("{node} failed: guard '{guard}' was false")
                }
                Some((LoggedKind::Exit(Status::Failure), child)) => {
                    format!("{node} failed: '{child}' failed")
                }
                Some((LoggedKind::ContextMissing(key), _)) => {
                    format!("{node} failed: context key '{key}' was missing")
                }
                Some((LoggedKind::Execute, _)) => {
                    format!("{node} failed: its action reported failure")
                }
                _ => format!("{node} failed"),
            }
        }
        LoggedKind::Exit(s) => format!("{node} {}", status_word(*s)),
        LoggedKind::Abort => format!("{node} aborted"),
        LoggedKind::Check(r) => format!("{node} checked: {r}"),
        LoggedKind::Complete(s) => format!("the run {}", status_word(*s)),
        LoggedKind::Restart(r) => format!("Root entered again: {}", super::reason_words(*r)),
        LoggedKind::Interrupt(id) => format!("{node} started by the trigger '{id}'"),
        LoggedKind::ContextMissing(key) => format!("{node} needs context key '{key}': missing"),
        LoggedKind::Stall => format!("stalled at {node}: no progress in this step"),
        LoggedKind::Warning(m) => format!("warning: {m}"),
    }
}

/// Whether the `enter` at `i` is a branch taking over from a lower priority (observers,
/// docs/SEMANTICS.md §3.3.2), which the trace shows as guards checked true, then aborts,
/// then the entry: the node taken over from (the last aborted, the highest) and the last
/// guard that held.
fn took_over(events: &[Logged], i: usize) -> Option<(u32, u32)> {
    let e = &events[i];
    let same = events[..i]
        .iter()
        .rev()
        .take_while(|c| c.step == e.step)
        .filter(|c| c.agent == e.agent);
    let mut from = None;
    for c in same {
        match c.kind {
            // Aborted deepest first: the first seen going back is the highest.
            LoggedKind::Abort => from = from.or(c.node),
            LoggedKind::Check(true) => return Some((from?, c.node?)),
            _ => return None,
        }
    }
    None
}

fn status_word(s: Status) -> &'static str {
    match s {
        Status::Success => "succeeded",
        Status::Failure => "failed",
        Status::Running => "is running",
        Status::Aborted => "was aborted",
        Status::Idle => "is idle",
    }
}
