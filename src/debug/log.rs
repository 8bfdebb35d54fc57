//! Events as the session keeps them (owned, with their agent), their trace lines and
//! their one-line explanations.

use std::sync::Arc;

use crate::runtime::{CtxValue, Event, EventKindOf, Status};

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
/// child that failed, a missing key, its own action), and so does a branch taking over
/// from a lower priority (the observer that held: `observer` tells which nodes are).
pub fn describe(
    events: &[Logged],
    i: usize,
    title: &dyn Fn(u32) -> String,
    observer: &dyn Fn(u32) -> bool,
) -> String {
    let Some(e) = events.get(i) else {
        return String::new();
    };
    let node = e.node.map(title).unwrap_or_default();
    match &e.kind {
        LoggedKind::Enter => match took_over(events, i, observer) {
            Some((from, guard)) => format!(
                "{node} took over from {}: guard '{}' holds",
                title(from),
                title(guard)
            ),
            None => format!("{node} entered"),
        },
        LoggedKind::Execute => format!("{node} executed"),
        LoggedKind::Exit(Status::Failure, Some(why)) => {
            format!("{node} failed: {}", failure_words(why))
        }
        LoggedKind::Exit(Status::Failure, None) => {
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
                Some((LoggedKind::Exit(Status::Failure, Some(why)), child)) => {
                    format!("{node} failed: '{child}' failed: {}", failure_words(why))
                }
                Some((LoggedKind::Exit(Status::Failure, None), child)) => {
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
        LoggedKind::Exit(s, _) => format!("{node} {}", status_word(*s)),
        LoggedKind::Abort => format!("{node} aborted"),
        LoggedKind::Check(r) => format!("{node} checked: {r}"),
        LoggedKind::Complete(s) => format!("the run {}", status_word(*s)),
        LoggedKind::Restart(r) => format!("Root entered again: {}", super::reason_words(*r)),
        LoggedKind::Interrupt(id) => format!("{node} started by the trigger '{id}'"),
        LoggedKind::ContextMissing(key) => format!("{node} needs context key '{key}': missing"),
        LoggedKind::Stall => format!("stalled at {node}: no progress in this step"),
        LoggedKind::Warning(m) => format!("warning: {m}"),
        LoggedKind::Context(key, Some(value)) if e.node.is_some() => {
            format!("{node} stored {} under '{key}'", CtxValue::from(value))
        }
        // Stored from outside the tree: a BehaviorTree.CPP program's blackboard, read live.
        LoggedKind::Context(key, Some(value)) => {
            format!("'{key}' is now {}", CtxValue::from(value))
        }
        LoggedKind::Context(key, None) => {
            format!("'{key}' left the context: removed from outside the tree")
        }
    }
}

/// A failure's reason in words: an action's own text, or what `max_duration` means.
pub fn failure_words(why: &str) -> &str {
    if why == crate::runtime::MAX_DURATION {
        "it ran for its max_duration"
    } else {
        why
    }
}

/// Whether the `enter` at `i` is a branch taking over from a lower priority (observers,
/// docs/SEMANTICS.md §3.3.2), which the trace shows as guards checked true, then aborts,
/// then the entry: the node taken over from (the last aborted, the highest) and the
/// observer that held (the last of the checks that held just before, if none is).
/// Whether the event at `i` of `events` is trouble, as the log's "failures and
/// interrupts" shows it: a failure, an abort, a missing key, a stall, an interrupt, a run
/// that failed, or the entry of a branch taking over from a lower priority, which says
/// why the aborts just before it happened.
pub fn is_trouble(events: &[Logged], i: usize, observer: &dyn Fn(u32) -> bool) -> bool {
    let Some(e) = events.get(i) else {
        return false;
    };
    match e.kind {
        LoggedKind::Exit(Status::Failure, _)
        | LoggedKind::Abort
        | LoggedKind::ContextMissing(_)
        | LoggedKind::Stall
        | LoggedKind::Interrupt(_)
        | LoggedKind::Complete(Status::Failure) => true,
        LoggedKind::Enter => took_over(events, i, observer).is_some(),
        _ => false,
    }
}

fn took_over(events: &[Logged], i: usize, observer: &dyn Fn(u32) -> bool) -> Option<(u32, u32)> {
    let e = &events[i];
    let mut same = events[..i]
        .iter()
        .rev()
        .take_while(|c| c.step == e.step)
        .filter(|c| c.agent == e.agent)
        .peekable();
    let mut from = None;
    while let Some(c) = same.next_if(|c| c.kind == LoggedKind::Abort) {
        // Aborted deepest first: the first seen going back is the highest.
        from = from.or(c.node);
    }
    let from = from?;
    let held: Vec<u32> = std::iter::from_fn(|| same.next_if(|c| c.kind == LoggedKind::Check(true)))
        .filter_map(|c| c.node)
        .collect();
    let guard = held
        .iter()
        .copied()
        .find(|&g| observer(g))
        .or(held.first().copied())?;
    Some((from, guard))
}

fn status_word(s: Status) -> &'static str {
    match s {
        Status::Success => "succeeded",
        Status::Failure => "failed",
        Status::Running => "is running",
        Status::Aborted => "was aborted",
        Status::Skipped => "was skipped",
        Status::Idle => "is idle",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(node: u32, kind: LoggedKind) -> Logged {
        Logged {
            step: 4,
            agent: 0,
            node: Some(node),
            kind,
        }
    }

    /// A branch with two guards takes over: the observer that held is named, not the
    /// plain guard checked after it, and the node taken over from is the highest aborted.
    #[test]
    fn a_take_over_names_the_observer_and_the_highest_node_aborted() {
        let events = [
            at(1, LoggedKind::Check(true)),
            at(5, LoggedKind::Check(true)),
            at(6, LoggedKind::Check(true)),
            at(9, LoggedKind::Abort),
            at(8, LoggedKind::Abort),
            at(3, LoggedKind::Enter),
        ];
        let title = |n: u32| format!("n{n}");
        assert_eq!(
            describe(&events, 5, &title, &|n| n == 5),
            "n3 took over from n8: guard 'n5' holds"
        );
        // "Failures and interrupts" keeps the aborts and the take-over that explains them,
        // and not the checks; an entry that takes over from nothing is not trouble.
        let kept: Vec<usize> = (0..events.len())
            .filter(|&i| is_trouble(&events, i, &|n| n == 5))
            .collect();
        assert_eq!(kept, [3, 4, 5]);
        let plain = [at(1, LoggedKind::Check(true)), at(3, LoggedKind::Enter)];
        assert!(!is_trouble(&plain, 1, &|_| false));
        // A branch that failed because its child did says the child's reason too.
        let failed = [
            at(
                7,
                LoggedKind::Exit(Status::Failure, Some("none in reach".into())),
            ),
            at(3, LoggedKind::Exit(Status::Failure, None)),
        ];
        assert_eq!(
            describe(&failed, 1, &title, &|_| false),
            "n3 failed: 'n7' failed: none in reach"
        );
        // An entry with no aborts just before it is only an entry.
        let plain = [at(1, LoggedKind::Check(true)), at(3, LoggedKind::Enter)];
        assert_eq!(describe(&plain, 1, &title, &|_| false), "n3 entered");
    }
}
