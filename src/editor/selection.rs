//! The selection: the nodes selected, each once, the first of them the one the inspector
//! shows. It changes only as the app applies a change (see `changes.rs`).

use std::collections::HashSet;

use crate::model::{NodeId, Tree};

/// The nodes selected, in the order that decides which the inspector shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Selection {
    ids: Vec<NodeId>,
}

impl Selection {
    /// Every selected node, the inspector's first.
    pub fn ids(&self) -> &[NodeId] {
        &self.ids
    }

    /// The node the inspector shows.
    pub fn first(&self) -> Option<&NodeId> {
        self.ids.first()
    }

    /// Whether `id` is selected.
    pub fn contains(&self, id: &NodeId) -> bool {
        self.ids.contains(id)
    }

    /// Nothing is selected.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// How many nodes are selected.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Exactly the nodes of `ids` that `tree` has, each once, in that order.
    pub fn set(&mut self, ids: &[NodeId], tree: &Tree) {
        let mut seen = HashSet::new();
        self.ids = ids
            .iter()
            .filter(|i| tree.contains(i) && seen.insert(*i))
            .cloned()
            .collect();
    }

    /// A click on `id`: it alone, unless it is selected already (then the selection stays,
    /// with `id` first, so a right-click menu or a drag acts on all of it).
    pub fn click(&mut self, id: NodeId, tree: &Tree) {
        if self.contains(&id) {
            self.ids.retain(|s| *s != id);
            self.ids.insert(0, id);
        } else {
            self.set(std::slice::from_ref(&id), tree);
        }
    }

    /// Shift or Ctrl and a click: `id` added, or taken out.
    pub fn toggle(&mut self, id: NodeId) {
        if self.contains(&id) {
            self.ids.retain(|s| *s != id);
        } else {
            self.ids.push(id);
        }
    }

    /// Keeps only the nodes `keep` says (those a change left, those not hidden).
    pub fn retain(&mut self, keep: impl FnMut(&NodeId) -> bool) {
        self.ids.retain(keep);
    }

    /// Node `from` is now `to`.
    pub fn rename(&mut self, from: &NodeId, to: &NodeId) {
        for id in &mut self.ids {
            if id == from {
                id.clone_from(to);
            }
        }
    }

    /// The selection, emptied (to put back with [`Selection::set`] if what took it failed).
    pub fn take(&mut self) -> Vec<NodeId> {
        std::mem::take(&mut self.ids)
    }
}
