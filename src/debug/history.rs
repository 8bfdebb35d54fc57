//! A context key's history: who wrote it, at which step, with which value, and where a
//! cleared context gave it back its default. Derived from the events a [`super::Source`]
//! already has — a live session's run (stepped again from its first state when the
//! history is opened, then followed as the run goes on) or a replay's trace (read once,
//! then the events that came since) — and kept for one key of one agent at a time, its
//! newest [`KEY_HISTORY_KEEP`] entries at most.

use std::collections::VecDeque;
use std::sync::Arc;

use super::LoggedKind;
use crate::runtime::{Status, ValueOf};

/// The most entries a key's history keeps: the newest (the count of the others is kept).
pub const KEY_HISTORY_KEEP: usize = 4096;

/// What changed a key's value.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyChange {
    /// It held this value when the run started: its default (or the agent's own).
    Start,
    /// A node stored a value under it: the node, numbered as [`super::Source::log`]
    /// numbers nodes (`None`: from outside the tree).
    Written(Option<u32>),
    /// The world took its value away (an entity it destroyed).
    Removed,
    /// A run of the tree completed with this status, and the context was cleared: the key
    /// is back to its default, or empty.
    Completed(Status),
    /// Key `0` was missing, the tree reset and the context was cleared.
    Missing(String),
}

/// One entry of a key's history.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyWrite {
    /// The step of the timeline it happened in (what going to that step shows).
    pub step: u64,
    /// What changed the value.
    pub change: KeyChange,
    /// The value after it, in words (`None`: no value).
    pub value: Option<String>,
}

impl KeyWrite {
    /// The entry in words, naming a node by `node` (`Get angry wrote "angry"`, `run
    /// succeeded, back to "calm"`), without its step.
    pub fn words(&self, node: &dyn Fn(u32) -> String) -> String {
        let value = self.value.as_deref();
        let cleared =
            || value.map_or_else(|| "context cleared".to_owned(), |v| format!("back to {v}"));
        match &self.change {
            KeyChange::Start => format!("{} from the start (default)", value.unwrap_or("—")),
            KeyChange::Written(n) => {
                let who = n.map_or_else(
                    || "set from outside the tree".to_owned(),
                    |n| format!("{} wrote", node(n)),
                );
                format!("{who} {}", value.unwrap_or("—"))
            }
            KeyChange::Removed => "removed by the world (what it held was destroyed)".to_owned(),
            KeyChange::Completed(Status::Success) => format!("run succeeded, {}", cleared()),
            KeyChange::Completed(Status::Skipped) => format!("run skipped, {}", cleared()),
            KeyChange::Completed(_) => format!("run failed, {}", cleared()),
            KeyChange::Missing(key) => format!("key '{key}' missing, {}", cleared()),
        }
    }
}

/// One context key's history for one agent, oldest first.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyHistory {
    /// The agent (by place).
    pub agent: usize,
    /// The key.
    pub key: String,
    /// Its entries, oldest first: the newest [`KEY_HISTORY_KEEP`].
    pub writes: VecDeque<KeyWrite>,
    /// Entries older than `writes` that were let go.
    pub earlier: u64,
    /// The step before the first it covers: 0, or later in a replay that let its oldest
    /// steps go ([`super::Replay::first_step`]).
    pub from: u64,
    /// The value a cleared context gives the key, in words.
    default: Option<String>,
    /// The value after the last entry, in words.
    now: Option<String>,
    /// Whether the run is at its start or has just cleared its context: the `context`
    /// events that come now, before anything is entered again, are the defaults given back
    /// (SEMANTICS.md §5), which the entry of the start or of the clear already tells.
    giving_back: bool,
    /// The steps taken into account: up to this one (a live session).
    pub(super) upto: u64,
    /// The events taken into account (a replay), and the replay's revision then.
    pub(super) scanned: usize,
    pub(super) revision: u64,
}

impl KeyHistory {
    /// An empty history of `key` for `agent`, which holds `start` (in words) when the run
    /// starts; the context cleared gives it back `default`.
    pub(super) fn new(
        agent: usize,
        key: &str,
        start: Option<String>,
        default: Option<String>,
    ) -> Self {
        let mut h = Self {
            agent,
            key: key.to_owned(),
            writes: VecDeque::new(),
            earlier: 0,
            from: 0,
            default,
            now: None,
            giving_back: true,
            upto: 0,
            scanned: 0,
            revision: 0,
        };
        if start.is_some() {
            h.push(0, KeyChange::Start, start);
        }
        h
    }

    /// Whether this is the history of `key` for `agent`.
    pub fn is_of(&self, agent: usize, key: &str) -> bool {
        self.agent == agent && self.key == key
    }

    /// The entry in effect at step `at`: the last one at or before it.
    pub fn at(&self, at: u64) -> Option<usize> {
        self.writes.partition_point(|w| w.step <= at).checked_sub(1)
    }

    /// Takes an event of the agent's, of timeline step `step`, its node numbered `node`;
    /// `words` puts a value in words.
    pub(super) fn take(
        &mut self,
        step: u64,
        node: Option<u32>,
        kind: &LoggedKind,
        words: impl Fn(&ValueOf<Arc<str>>) -> String,
    ) {
        match kind {
            LoggedKind::Context(key, Some(value)) if **key == *self.key && self.giving_back => {
                self.given_back(step, node, Some(words(value)));
            }
            LoggedKind::Context(key, value) if **key == *self.key => {
                let change = match value {
                    Some(_) => KeyChange::Written(node),
                    None => KeyChange::Removed,
                };
                self.push(step, change, value.as_ref().map(words));
            }
            LoggedKind::Complete(status) => {
                self.clear(step, KeyChange::Completed(*status));
                self.giving_back = true;
            }
            LoggedKind::ContextMissing(key) => {
                self.clear(step, KeyChange::Missing(key.to_string()));
                self.giving_back = true;
            }
            LoggedKind::Enter | LoggedKind::Execute => self.giving_back = false,
            _ => {}
        }
    }

    /// The start or a clear gave the key back `value`, its default (the agent's own, where
    /// it has one): said by the entry of the start or the clear, which takes this value;
    /// an entry of its own only where there is none.
    fn given_back(&mut self, step: u64, node: Option<u32>, value: Option<String>) {
        if value == self.now {
            return;
        }
        if let Some(last) = self.writes.back_mut()
            && last.step == step
            && matches!(last.change, KeyChange::Completed(_) | KeyChange::Missing(_))
        {
            last.value.clone_from(&value);
            self.now = value;
            return;
        }
        let change = if self.writes.is_empty() {
            KeyChange::Start
        } else {
            KeyChange::Written(node)
        };
        self.push(step, change, value);
    }

    /// The context cleared: an entry when that changed the key's value.
    fn clear(&mut self, step: u64, change: KeyChange) {
        if self.now != self.default {
            self.push(step, change, self.default.clone());
        }
    }

    fn push(&mut self, step: u64, change: KeyChange, value: Option<String>) {
        if self.writes.len() >= KEY_HISTORY_KEEP {
            self.writes.pop_front();
            self.earlier += 1;
        }
        self.now.clone_from(&value);
        self.writes.push_back(KeyWrite {
            step,
            change,
            value,
        });
    }

    /// Forgets what lies after step `at` (a live run whose future was dropped).
    pub(super) fn truncate(&mut self, at: u64) {
        if self.upto <= at {
            return;
        }
        let keep = self.writes.partition_point(|w| w.step <= at);
        self.writes.truncate(keep);
        self.now = self.writes.back().and_then(|w| w.value.clone());
        self.upto = at;
    }
}
