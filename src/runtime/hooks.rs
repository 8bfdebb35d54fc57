//! A node's hooks (SEMANTICS.md §3.7): the scripts of its `_failureIf`, `_successIf`,
//! `_skipIf`, `_while`, `_onSuccess`, `_onFailure`, `_post` and `_onHalted` fields,
//! compiled. The lifecycle checks and runs them (`exec/hooks.rs`, and a running node's
//! `_while` on its path, `exec/guards.rs`); a node without any has no entry here.

use super::Status;
use super::behaviour::{Context, KeyId};
use super::script::{ScriptCondition, Statements, branch_condition, hook_statements};
use crate::model::{Catalog, Node};

/// The reason of a node that failed because its `_failureIf` held.
pub(crate) const FAILURE_IF: &str = "its _failureIf holds";

/// One node's hooks, each `None` where the node has none.
pub(crate) struct NodeHooks {
    failure_if: Option<ScriptCondition>,
    success_if: Option<ScriptCondition>,
    skip_if: Option<ScriptCondition>,
    while_: Option<ScriptCondition>,
    on_success: Option<Statements>,
    on_failure: Option<Statements>,
    post: Option<Statements>,
    on_halted: Option<Statements>,
}

impl NodeHooks {
    /// Node `node`'s hooks, their keys interned by `key`; `None` when it has none.
    pub(crate) fn of(
        node: &Node,
        catalog: &Catalog,
        mut key: impl FnMut(&str) -> KeyId,
    ) -> Option<Self> {
        let code = |field: &str| {
            node.fields
                .get(field)
                .and_then(crate::model::Value::as_str)
                .filter(|c| !c.trim().is_empty())
        };
        if crate::model::HOOKS.iter().all(|h| code(h).is_none()) {
            return None;
        }
        let mut check = |f: &str| code(f).map(|c| branch_condition(c, catalog, &mut key));
        let (failure_if, success_if, skip_if, while_) = (
            check("_failureIf"),
            check("_successIf"),
            check("_skipIf"),
            check("_while"),
        );
        let mut run = |f: &str| code(f).map(|c| hook_statements(c, catalog, &mut key));
        Some(Self {
            failure_if,
            success_if,
            skip_if,
            while_,
            on_success: run("_onSuccess"),
            on_failure: run("_onFailure"),
            post: run("_post"),
            on_halted: run("_onHalted"),
        })
    }

    /// Whether one of them sets keys (the instance then keeps room for its writes).
    pub(crate) fn writes(&self) -> bool {
        self.on_success.is_some()
            || self.on_failure.is_some()
            || self.post.is_some()
            || self.on_halted.is_some()
    }

    /// What the node does as it is entered, in `context`: fail (its `_failureIf` holds),
    /// succeed (its `_successIf` holds), be skipped (its `_skipIf` holds, or its `_while`
    /// does not), or `None`, run.
    pub(crate) fn on_entry(&self, context: &Context) -> Option<Status> {
        let holds = |c: &Option<ScriptCondition>| c.as_ref().is_some_and(|c| c.holds(context));
        if holds(&self.failure_if) {
            Some(Status::Failure)
        } else if holds(&self.success_if) {
            Some(Status::Success)
        } else if holds(&self.skip_if) || !self.holds_while(context) {
            Some(Status::Skipped)
        } else {
            None
        }
    }

    /// Whether it has a `_while`, checked while the node runs.
    pub(crate) fn has_while(&self) -> bool {
        self.while_.is_some()
    }

    /// Whether its `_while` holds in `context` (true without one).
    pub(crate) fn holds_while(&self, context: &Context) -> bool {
        self.while_.as_ref().is_none_or(|c| c.holds(context))
    }

    /// The scripts that run, in order, as the node takes status `s`: finished,
    /// `_onSuccess` or `_onFailure`, then `_post`; aborted, `_onHalted`.
    pub(crate) fn on_status(&self, s: Status) -> [Option<&Statements>; 2] {
        match s {
            Status::Success => [self.on_success.as_ref(), self.post.as_ref()],
            Status::Failure => [self.on_failure.as_ref(), self.post.as_ref()],
            Status::Aborted => [self.on_halted.as_ref(), None],
            Status::Idle | Status::Running | Status::Skipped => [None, None],
        }
    }
}
