//! Breakpoints: what stops a run at a node ([`BreakOn`]), one breakpoint ([`Breakpoint`])
//! and the breakpoints of every tree file, kept in one place ([`Breakpoints`]).

use std::collections::BTreeMap;
use std::path::Path;

use crate::runtime::{EventKindOf, Status};

/// What makes a breakpoint stop the run.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum BreakOn {
    /// The node is entered.
    #[default]
    Enter,
    /// The node fails.
    Failure,
    /// The node is aborted.
    Abort,
    /// The node reads a context key that is missing.
    ContextMissing,
    /// The Interrupt node starts.
    Interrupt,
    /// The tree stalls at the node.
    Stall,
}

impl BreakOn {
    /// Every condition, in menu order.
    pub const ALL: [BreakOn; 6] = [
        BreakOn::Enter,
        BreakOn::Failure,
        BreakOn::Abort,
        BreakOn::ContextMissing,
        BreakOn::Interrupt,
        BreakOn::Stall,
    ];

    /// The word used in settings and messages.
    pub fn name(self) -> &'static str {
        match self {
            BreakOn::Enter => "enter",
            BreakOn::Failure => "failure",
            BreakOn::Abort => "abort",
            BreakOn::ContextMissing => "context_missing",
            BreakOn::Interrupt => "interrupt",
            BreakOn::Stall => "stall",
        }
    }

    /// The condition named `name` ([`BreakOn::name`]).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|b| b.name() == name)
    }

    /// Whether an event of `kind` meets the condition.
    pub(crate) fn matches<S>(self, kind: &EventKindOf<S>) -> bool {
        use EventKindOf as K;
        matches!(
            (self, kind),
            (BreakOn::Enter, K::Enter)
                | (BreakOn::Failure, K::Exit(Status::Failure, _))
                | (BreakOn::Abort, K::Abort)
                | (BreakOn::ContextMissing, K::ContextMissing(_))
                | (BreakOn::Interrupt, K::Interrupt(_))
                | (BreakOn::Stall, K::Stall)
        )
    }
}

/// A breakpoint: a node (its trace id) and what stops the run there.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Breakpoint {
    /// The node's trace id.
    pub node: String,
    /// What stops the run.
    pub on: BreakOn,
}

/// Breakpoints by the tree file whose nodes they name: the one place they are kept. The
/// editor's settings save them; a run is given the list of the tree it shows at each step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Breakpoints {
    by_tree: BTreeMap<String, Vec<Breakpoint>>,
}

impl Breakpoints {
    /// The key of a tree file (its canonical path; `untitled` for a tree without one).
    pub fn key(tree: Option<&Path>) -> String {
        tree.map(|p| p.canonicalize().unwrap_or_else(|_| p.to_owned()))
            .map_or_else(|| "untitled".to_owned(), |p| p.display().to_string())
    }

    /// The breakpoints on the nodes of tree `key`.
    pub fn of(&self, key: &str) -> &[Breakpoint] {
        self.by_tree.get(key).map_or(&[], Vec::as_slice)
    }

    /// Sets or clears the breakpoint on entering node `node` (a trace id) of tree `key`;
    /// returns whether it is now set.
    pub fn toggle(&mut self, key: &str, node: String) -> bool {
        let list = self.by_tree.entry(key.to_owned()).or_default();
        let now = match list.iter().position(|b| b.node == node) {
            Some(i) => {
                list.remove(i);
                false
            }
            None => {
                list.push(Breakpoint {
                    node,
                    on: BreakOn::Enter,
                });
                true
            }
        };
        if list.is_empty() {
            self.by_tree.remove(key);
        }
        now
    }

    /// Node `from` of tree `key` is now `to` (and the nodes inside it, when it is a
    /// SubTree, `to/…`): its breakpoints follow.
    pub fn rename(&mut self, key: &str, from: &str, to: &str) {
        let Some(list) = self.by_tree.get_mut(key) else {
            return;
        };
        for b in list {
            if b.node == from {
                b.node = to.to_owned();
            } else if let Some(rest) = b.node.strip_prefix(from).and_then(|r| r.strip_prefix('/')) {
                b.node = format!("{to}/{rest}");
            }
        }
    }

    /// Sets what stops the run at node `node` of tree `key` (adding its breakpoint).
    pub fn set(&mut self, key: &str, node: String, on: BreakOn) {
        let list = self.by_tree.entry(key.to_owned()).or_default();
        list.retain(|b| b.node != node);
        list.push(Breakpoint { node, on });
    }

    /// The breakpoints as the settings file keeps them: node and condition, by tree.
    pub fn to_settings(&self) -> BTreeMap<String, Vec<(String, String)>> {
        self.by_tree
            .iter()
            .map(|(k, l)| {
                let l = l
                    .iter()
                    .map(|b| (b.node.clone(), b.on.name().to_owned()))
                    .collect();
                (k.clone(), l)
            })
            .collect()
    }

    /// The breakpoints a settings file kept (conditions it does not know are left out).
    pub fn from_settings(kept: &BTreeMap<String, Vec<(String, String)>>) -> Self {
        let by_tree = kept
            .iter()
            .map(|(k, l)| {
                let l = l
                    .iter()
                    .filter_map(|(node, on)| {
                        Some(Breakpoint {
                            node: node.clone(),
                            on: BreakOn::from_name(on)?,
                        })
                    })
                    .collect::<Vec<_>>();
                (k.clone(), l)
            })
            .filter(|(_, l)| !l.is_empty())
            .collect();
        Self { by_tree }
    }
}
