//! Changing a node's kind (the editor's Change Kind…, `arbor rename-kind`): which of its
//! links and fields the new kind keeps, and the edit that changes it, as one undo step.
//!
//! The rules (docs/EDITOR.md, "Change Kind"):
//! - the node keeps its id, title, comment and place; Root is neither changed nor made;
//! - its link to its parent stays where the parent's port takes the new kind, else it is
//!   unlinked;
//! - each link into it stays in its port when the new kind has that port and the port
//!   takes the child (a single port keeps its first); a composite's one child moves into a
//!   decorator's `child`, and a `child` into a composite's `children`; any other is
//!   unlinked (the child stays in the tree, loose);
//! - each field set on it stays when the new kind has a field of that name that takes its
//!   value, or the value's text read in the field's type ([`super::FieldType::value_from`]: a
//!   placeholder's values are text); any other is dropped.
//!
//! What is unlinked or dropped is listed, for the status line.

use std::collections::{BTreeMap, HashSet};

use super::edit::{Edit, EditError};
use super::{Catalog, Category, NodeId, Port, Tree, Value, link_rule};

/// A change of a node's kind: the edit that makes it, and what the node loses with it.
#[derive(Clone, Debug, PartialEq)]
pub struct KindChange {
    /// The edits, applied as one ([`Edit::Batch`]).
    pub edit: Edit,
    /// What the node loses, each in words ("field 'speed' (2.5)", "its child 'b' …").
    pub dropped: Vec<String>,
}

impl Tree {
    /// How node `id` becomes a node of kind `kind` of `catalog` (the module's rules), or
    /// why it cannot: no such node, no such kind (a placeholder is none), the kind it is
    /// already, or a change to or from Root.
    pub fn kind_change(
        &self,
        id: &NodeId,
        kind: &str,
        catalog: &Catalog,
    ) -> Result<KindChange, EditError> {
        let Some(node) = self.node(id) else {
            return Err(EditError::new(format!("there is no node '{id}'")));
        };
        let Some(spec) = catalog.kind(kind).filter(|k| !k.is_placeholder()) else {
            let hint = catalog
                .near_kind(kind)
                .map(|k| format!("; did you mean '{k}'?"))
                .unwrap_or_default();
            return Err(EditError::new(format!(
                "no kind '{kind}' is known here{hint}"
            )));
        };
        if node.kind == kind {
            return Err(EditError::new(format!("'{id}' is of kind {kind} already")));
        }
        let new = spec.category;
        let old = catalog.category_of(&node.kind);
        if new == Category::Root || old == Some(Category::Root) {
            return Err(EditError::new(
                "a tree has one Root: its kind is not changed, nor another node made one",
            ));
        }
        let mut before = Vec::new();
        let mut dropped = Vec::new();
        // Its parent's link: a kind of the same category fits where the old one did (no
        // look for the parent, which reads the whole tree).
        let parent = if old == Some(new) {
            None
        } else {
            self.parent_of(id)
        };
        if let Some(at) = parent {
            let parent_category = self
                .node(&at.parent)
                .and_then(|p| catalog.category_of(&p.kind));
            if let Some(Err((_, why))) = parent_category.map(|p| link_rule(p, at.port, new)) {
                dropped.push(format!("its link to its parent '{}' ({why})", at.parent));
                before.push(Edit::Unlink { child: id.clone() });
            }
        }
        // The links into it, as the new kind's ports take them (one edit: linear in them).
        let mut inputs: BTreeMap<Port, Vec<NodeId>> = BTreeMap::new();
        for (&port, children) in &node.inputs {
            let target = port_in(new, port, children.len());
            for child in children {
                // A child of a kind nothing defines keeps its link, as a parent of one does.
                let child_category = self.node(child).and_then(|c| catalog.category_of(&c.kind));
                let fits = match (target, child_category) {
                    (Some(to), Some(c)) => link_rule(new, to, c).map_err(|(_, why)| why),
                    (Some(_), None) => Ok(()),
                    (None, _) if port == Port::Children && new.inputs().contains(&Port::Child) => {
                        Err(format!(
                            "a {} takes one child, not {}",
                            new.label(),
                            children.len()
                        ))
                    }
                    (None, _) => Err(format!("a {} has no '{port}' input", new.label())),
                };
                let kept = target.map_or(0, |to| inputs.get(&to).map_or(0, Vec::len));
                let fits = fits.and_then(|()| match target {
                    Some(to) if to.is_single() && kept > 0 => {
                        Err(format!("the '{to}' input takes one node"))
                    }
                    _ => Ok(()),
                });
                match (fits, target) {
                    (Ok(()), Some(to)) => inputs.entry(to).or_default().push(child.clone()),
                    (Err(why), _) => {
                        dropped.push(format!("its link to '{child}' in '{port}' ({why})"));
                    }
                    (Ok(()), None) => unreachable!("a link fits only a port"),
                }
            }
        }
        // Its fields.
        for (name, value) in &node.fields {
            let field = spec.field(name);
            let fitted = field.and_then(|f| {
                if f.check(value).is_ok() {
                    return Some(None);
                }
                let text = match value {
                    Value::Text(t) => t.as_str(),
                    _ => return None,
                };
                let typed = f.ty.value_from(text).filter(|v| f.check(v).is_ok())?;
                Some(Some(typed))
            });
            match fitted {
                Some(None) => {}
                Some(Some(typed)) => before.push(Edit::SetField {
                    id: id.clone(),
                    name: name.clone(),
                    value: Some(typed),
                }),
                None => {
                    let why = match field {
                        Some(f) => format!("{kind}'s '{name}' is {}", f.ty.describe()),
                        None => format!("{kind} has no field '{name}'"),
                    };
                    dropped.push(format!("field '{name}' = {value} ({why})"));
                    before.push(Edit::SetField {
                        id: id.clone(),
                        name: name.clone(),
                        value: None,
                    });
                }
            }
        }
        before.push(Edit::SetKind {
            id: id.clone(),
            kind: kind.to_owned(),
            inputs,
        });
        Ok(KindChange {
            edit: Edit::Batch(before),
            dropped,
        })
    }

    /// Gives node `id` kind `kind` and the links into it `inputs` (some of those it has,
    /// each in a port of the new kind; the others are unlinked), refused unless every link
    /// to and from it then fits the new kind's category (a node of an unknown kind is not
    /// checked; [`Tree::kind_change`] plans what fits). Linear in the node's links, and in
    /// the tree only when the category changes (its parent's port is looked for).
    pub(super) fn set_kind(
        &mut self,
        id: NodeId,
        kind: String,
        inputs: BTreeMap<Port, Vec<NodeId>>,
        catalog: &Catalog,
    ) -> Result<Edit, EditError> {
        let Some(node) = self.node(&id) else {
            return Err(EditError::new(format!("there is no node '{id}'")));
        };
        let Some(new) = catalog.category_of(&kind) else {
            return Err(EditError::new(format!("no kind '{kind}' is known here")));
        };
        let refuse = |why: String| {
            Err(EditError::new(format!(
                "'{id}' cannot take kind {kind}: {why}"
            )))
        };
        if catalog.category_of(&node.kind) != Some(new)
            && let Some(at) = self.parent_of(&id)
        {
            let parent = self
                .node(&at.parent)
                .and_then(|p| catalog.category_of(&p.kind));
            if let Some(Err((_, why))) = parent.map(|p| link_rule(p, at.port, new)) {
                return refuse(why);
            }
        }
        // Each link it keeps is one it has, or (undoing a change) one to a node that has no
        // parent now and is not above it: no node gets two parents, no cycle is made.
        let had: HashSet<&NodeId> = node.inputs.values().flatten().collect();
        let fresh: Vec<&NodeId> = inputs
            .values()
            .flatten()
            .filter(|c| !had.contains(c))
            .collect();
        let parents = if fresh.is_empty() {
            Default::default()
        } else {
            self.parents()
        };
        let mut seen: HashSet<&NodeId> = HashSet::new();
        for (&port, children) in &inputs {
            if port.is_single() && children.len() > 1 {
                return refuse(format!("its '{port}' input takes one node"));
            }
            for child in children {
                let free = || {
                    self.contains(child)
                        && !parents.contains_key(child)
                        && !self.reaches(child, &id)
                };
                if !seen.insert(child) || !(had.contains(child) || free()) {
                    return refuse(format!(
                        "'{child}' cannot be linked into it: a change of kind keeps the links a node has and makes no other"
                    ));
                }
                let category = self.node(child).and_then(|c| catalog.category_of(&c.kind));
                if let Some(Err((_, why))) = category.map(|c| link_rule(new, port, c)) {
                    return refuse(why);
                }
            }
        }
        let node = self.existing_mut(&id)?;
        let old = std::mem::replace(&mut node.kind, kind);
        let old_inputs = std::mem::replace(&mut node.inputs, inputs);
        Ok(Edit::SetKind {
            id,
            kind: old,
            inputs: old_inputs,
        })
    }

    /// The edits that give every node of kind `from` kind `to` ([`Tree::kind_change`] for
    /// each, in file order, each planned on the tree the ones before it made), with what
    /// each node loses, prefixed by its id; an empty batch when no node is a `from`.
    pub fn kind_renaming(
        &self,
        from: &str,
        to: &str,
        catalog: &Catalog,
    ) -> Result<KindChange, EditError> {
        let ids: Vec<NodeId> = self
            .nodes()
            .iter()
            .filter(|n| n.kind == from)
            .map(|n| n.id.clone())
            .collect();
        let mut edits = Vec::new();
        let mut dropped = Vec::new();
        let mut changed = self.clone();
        for id in ids {
            let change = changed.kind_change(&id, to, catalog)?;
            changed.apply(change.edit.clone(), catalog)?;
            edits.push(change.edit);
            dropped.extend(change.dropped.into_iter().map(|d| format!("[{id}] {d}")));
        }
        Ok(KindChange {
            edit: Edit::Batch(edits),
            dropped,
        })
    }
}

/// The port of a node of category `new` that the links in its `port` (`count` of them)
/// go into: the same port when it has it; a composite's `children` into a decorator's
/// `child` when there is one, and a `child` into `children`; none otherwise.
fn port_in(new: Category, port: Port, count: usize) -> Option<Port> {
    let has = |p: Port| new.inputs().contains(&p);
    if has(port) {
        return Some(port);
    }
    match port {
        Port::Children if count == 1 && has(Port::Child) => Some(Port::Child),
        Port::Child if has(Port::Children) => Some(Port::Children),
        _ => None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::model::Node;

    fn node(id: &str, kind: &str, inputs: &[(Port, &[&str])]) -> Node {
        let mut n = Node::new(id, kind);
        for (port, ids) in inputs {
            n.inputs
                .insert(*port, ids.iter().map(|i| NodeId::new(*i)).collect());
        }
        n
    }

    /// Root → seq (a Sequence guarded by `near`, over `a` and `b`, two Waits).
    fn tree() -> (Tree, Catalog) {
        let mut seq = node(
            "seq",
            "Sequence",
            &[(Port::Conditions, &["near"]), (Port::Children, &["a", "b"])],
        );
        seq.fields
            .insert("halt_on_failure".into(), Value::Bool(false));
        let mut a = Node::new("a", "Wait");
        a.fields.insert("seconds".into(), Value::Float(2.0));
        let tree = Tree::from_nodes(vec![
            node("root", "Root", &[(Port::Child, &["seq"])]),
            seq,
            Node::new("near", "IsInRange"),
            a,
            Node::new("b", "Wait"),
        ])
        .unwrap();
        (tree, Catalog::builtin())
    }

    fn id(s: &str) -> NodeId {
        NodeId::new(s)
    }

    /// Applies `change` and checks that its undo gives `tree` back.
    fn applied(tree: &Tree, change: &KindChange, catalog: &Catalog) -> Tree {
        let mut t = tree.clone();
        let undo = t.apply(change.edit.clone(), catalog).unwrap();
        let mut back = t.clone();
        back.apply(undo, catalog).unwrap();
        assert_eq!(&back, tree, "undone, the tree is as it was");
        t
    }

    #[test]
    fn a_composite_made_another_keeps_every_link_and_drops_a_field_it_lacks() {
        let (tree, c) = tree();
        let change = tree.kind_change(&id("seq"), "Selector", &c).unwrap();
        assert_eq!(
            change.dropped,
            ["field 'halt_on_failure' = false (Selector has no field 'halt_on_failure')"]
        );
        let t = applied(&tree, &change, &c);
        let seq = t.node(&id("seq")).unwrap();
        assert_eq!(seq.kind, "Selector");
        assert_eq!(seq.linked(Port::Conditions), [id("near")]);
        assert_eq!(seq.linked(Port::Children), [id("a"), id("b")]);
        assert_eq!(t.parent_of(&id("seq")).unwrap().parent, id("root"));
        // To a kind with the field, it is kept.
        let change = tree.kind_change(&id("seq"), "RandomSequence", &c).unwrap();
        assert!(change.dropped.is_empty(), "{:?}", change.dropped);
    }

    #[test]
    fn one_child_moves_between_children_and_child_and_more_are_unlinked() {
        let (mut tree, c) = tree();
        // Two children do not go into a decorator's one input: both are left loose.
        let change = tree.kind_change(&id("seq"), "Inverter", &c).unwrap();
        assert_eq!(change.dropped.len(), 3, "{:?}", change.dropped);
        assert_eq!(
            change.dropped[0],
            "its link to 'a' in 'children' (a Decorator takes one child, not 2)"
        );
        let t = applied(&tree, &change, &c);
        assert!(t.parent_of(&id("a")).is_none() && t.contains(&id("a")));
        assert_eq!(
            t.node(&id("seq")).unwrap().linked(Port::Conditions),
            [id("near")]
        );
        // One child moves into the decorator's `child`, and back into `children`.
        tree.apply(Edit::Unlink { child: id("b") }, &c).unwrap();
        let change = tree.kind_change(&id("seq"), "Inverter", &c).unwrap();
        let t = applied(&tree, &change, &c);
        assert_eq!(t.node(&id("seq")).unwrap().linked(Port::Child), [id("a")]);
        let change = t.kind_change(&id("seq"), "Selector", &c).unwrap();
        let back = applied(&t, &change, &c);
        assert_eq!(
            back.node(&id("seq")).unwrap().linked(Port::Children),
            [id("a")]
        );
    }

    #[test]
    fn a_node_whose_parent_port_does_not_take_the_new_kind_is_unlinked_from_it() {
        let (tree, c) = tree();
        // A condition made an action: a 'conditions' input takes conditions only.
        let change = tree.kind_change(&id("near"), "Wait", &c).unwrap();
        assert_eq!(
            change.dropped,
            [
                "its link to its parent 'seq' (only Conditions link into a 'conditions' input, not a Leaf)"
            ]
        );
        let t = applied(&tree, &change, &c);
        assert!(t.parent_of(&id("near")).is_none());
        // A leaf made a condition under `children` stays linked.
        let change = tree.kind_change(&id("a"), "IsInRange", &c).unwrap();
        assert_eq!(
            change.dropped,
            ["field 'seconds' = 2.0 (IsInRange has no field 'seconds')"]
        );
        assert_eq!(
            applied(&tree, &change, &c)
                .parent_of(&id("a"))
                .unwrap()
                .parent,
            id("seq")
        );
    }

    #[test]
    fn text_from_a_placeholder_is_read_in_the_new_fields_type() {
        let (mut tree, mut c) = tree();
        let mut x = Node::new("x", "MyWait");
        x.fields.insert("seconds".into(), Value::Text("2.5".into()));
        x.fields
            .insert("max_duration".into(), Value::Text("soon".into()));
        tree.apply(
            Edit::Insert {
                node: Box::new(x),
                index: 9,
                parent: None,
            },
            &c,
        )
        .unwrap();
        c.add_placeholders(&tree);
        let change = tree.kind_change(&id("x"), "Wait", &c).unwrap();
        assert_eq!(
            change.dropped,
            ["field 'max_duration' = \"soon\" (Wait's 'max_duration' is a number > 0)"]
        );
        let t = applied(&tree, &change, &c);
        assert_eq!(
            t.node(&id("x")).unwrap().fields.get("seconds"),
            Some(&Value::Float(2.5))
        );
    }

    #[test]
    fn root_unknown_kinds_and_the_same_kind_are_refused_and_a_bare_set_kind_checks_links() {
        let (mut tree, c) = tree();
        let refused = |r: Result<KindChange, EditError>| r.unwrap_err().message;
        assert!(refused(tree.kind_change(&id("root"), "Sequence", &c)).contains("one Root"));
        assert!(refused(tree.kind_change(&id("a"), "Root", &c)).contains("one Root"));
        assert_eq!(
            refused(tree.kind_change(&id("a"), "Selectr", &c)),
            "no kind 'Selectr' is known here; did you mean 'Selector'?"
        );
        assert!(refused(tree.kind_change(&id("a"), "Wait", &c)).contains("of kind Wait already"));
        assert!(refused(tree.kind_change(&id("nobody"), "Wait", &c)).contains("no node"));
        // SetKind alone never breaks a link rule, nor makes a link.
        let seq = tree.node(&id("seq")).unwrap().inputs.clone();
        let bare = Edit::SetKind {
            id: id("seq"),
            kind: "Inverter".into(),
            inputs: seq,
        };
        let e = tree.apply(bare, &c).unwrap_err();
        assert!(e.message.contains("'seq' cannot take kind Inverter"), "{e}");
        let stolen = Edit::SetKind {
            id: id("b"),
            kind: "Sequence".into(),
            inputs: [(Port::Children, vec![id("a")])].into(),
        };
        let e = tree.apply(stolen, &c).unwrap_err();
        assert!(e.message.contains("makes no other"), "{e}");
    }

    #[test]
    fn renaming_a_kind_changes_every_node_of_it_and_lists_what_each_lost() {
        let (tree, c) = tree();
        let change = tree.kind_renaming("Wait", "IsInRange", &c).unwrap();
        assert_eq!(
            change.dropped,
            ["[a] field 'seconds' = 2.0 (IsInRange has no field 'seconds')"]
        );
        let t = applied(&tree, &change, &c);
        assert!(t.nodes().iter().filter(|n| n.kind == "IsInRange").count() == 3);
        let none = tree.kind_renaming("Parallel", "Selector", &c).unwrap();
        assert_eq!(none.edit, Edit::Batch(Vec::new()));
    }
}
