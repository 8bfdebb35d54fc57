//! Edits: every change to a tree, each checked and each returning its inverse (for undo).

use std::collections::BTreeMap;
use std::fmt;

use super::{Catalog, KeyDecl, Node, NodeId, Port, Rule, Tree, Value, link_rule};

/// Where a node is linked: its parent, the parent's input port and the slot in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParentSlot {
    /// The parent node.
    pub parent: NodeId,
    /// The parent's input port.
    pub port: Port,
    /// The slot, 0 first (execution order for children).
    pub slot: usize,
}

/// One change to a tree. [`Tree::apply`] checks it and returns the edit that undoes it.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// Adds a node at `index` in file order; its own inputs and its parent link come with it.
    Insert {
        /// The node, with its inputs (children must exist and have no parent).
        node: Box<Node>,
        /// Position in file order (clamped to the end).
        index: usize,
        /// Where to link it, if anywhere.
        parent: Option<ParentSlot>,
    },
    /// Removes a node and every link to or from it.
    Remove {
        /// The node.
        id: NodeId,
    },
    /// Links `child` into a parent's port at a slot (later slots move down one).
    Link {
        /// The node whose `parent` output is linked.
        child: NodeId,
        /// Where it goes.
        to: ParentSlot,
    },
    /// Removes `child`'s link to its parent.
    Unlink {
        /// The linked node.
        child: NodeId,
    },
    /// Moves the link in slot `from` of a port to slot `to`.
    MoveChild {
        /// The parent.
        parent: NodeId,
        /// Its port.
        port: Port,
        /// The slot it is in.
        from: usize,
        /// The slot it goes to.
        to: usize,
    },
    /// Sets a field (`None` goes back to the kind's default).
    SetField {
        /// The node.
        id: NodeId,
        /// The field's name.
        name: String,
        /// The new value.
        value: Option<Value>,
    },
    /// Gives a node another id; the link from its parent follows.
    Rename {
        /// The node.
        id: NodeId,
        /// Its new id (not another node's, and a valid id).
        to: NodeId,
    },
    /// Sets a node's title.
    SetTitle {
        /// The node.
        id: NodeId,
        /// The title ("" for none).
        title: String,
    },
    /// Sets a node's comment.
    SetComment {
        /// The node.
        id: NodeId,
        /// The note ("" for none).
        comment: String,
    },
    /// Moves a node on the canvas.
    SetPosition {
        /// The node.
        id: NodeId,
        /// Its new position.
        position: [f32; 2],
    },
    /// Sets the tree's description.
    SetDescription(String),
    /// Sets every key the tree declares at once (`None`: it declares none, its keys are all
    /// `any`). Each declaration must be valid and each name declared once.
    SetKeys(Option<Vec<KeyDecl>>),
    /// Declares a key of the tree at `index` in its declarations (clamped to the end); a
    /// tree that declared none now declares this one.
    DeclareKey {
        /// The declaration (valid, and of a name the tree does not declare).
        key: KeyDecl,
        /// Its place among the declarations.
        index: usize,
    },
    /// Replaces the tree's declaration of `name` (its type, default, doc, or its name: the
    /// nodes that use it are left as they are; see [`Edit::RenameKey`]).
    UpdateKey {
        /// The key's name now.
        name: String,
        /// What it becomes.
        key: KeyDecl,
    },
    /// Removes the tree's declaration of a key (the nodes that use it are left as they are).
    RemoveKey {
        /// The key.
        name: String,
    },
    /// Renames a key: its declaration, if the tree declares it, and every key field and
    /// script (a Script's code, a hook, a condition's expression) of every node that names
    /// it. Refused when the new name is not a key's name, or is a key already (declared by
    /// the tree or its project, or named by a node).
    RenameKey {
        /// Its name now.
        from: String,
        /// Its new name.
        to: String,
    },
    /// Gives a node another kind and keeps some of the links into it, each in a port of
    /// that kind (the others are unlinked, their nodes left in the tree); refused unless
    /// every link to and from it fits the kind's category ([`Tree::kind_change`] plans
    /// one that does).
    SetKind {
        /// The node.
        id: NodeId,
        /// Its new kind.
        kind: String,
        /// The links into it it keeps, by port (each one it has now, at most once).
        inputs: BTreeMap<Port, Vec<NodeId>>,
    },
    /// Several edits applied as one: all or none.
    Batch(Vec<Edit>),
}

/// Why an edit was refused; the tree is unchanged.
#[derive(Clone, Debug, PartialEq)]
pub struct EditError {
    /// The validation rule the edit would break, if it is one.
    pub rule: Option<Rule>,
    /// What is wrong, for the status line.
    pub message: String,
}

impl EditError {
    pub(super) fn new(message: impl Into<String>) -> Self {
        Self {
            rule: None,
            message: message.into(),
        }
    }

    fn rule(rule: Rule, message: impl Into<String>) -> Self {
        Self {
            rule: Some(rule),
            message: message.into(),
        }
    }
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EditError {}

/// What is wrong with a declaration, as an edit's refusal.
fn key_problem(key: &KeyDecl) -> Result<(), EditError> {
    match key.problem() {
        Some(why) => Err(EditError::new(why)),
        None => Ok(()),
    }
}

impl Tree {
    /// Applies an edit if it keeps the tree's invariants, returning the edit that undoes it.
    /// On error the tree is unchanged.
    pub fn apply(&mut self, edit: Edit, catalog: &Catalog) -> Result<Edit, EditError> {
        match edit {
            Edit::Insert {
                node,
                index,
                parent,
            } => self.insert(*node, index, parent, catalog),
            Edit::Remove { id } => self.remove(&id),
            Edit::Link { child, to } => self.link(child, to, catalog),
            Edit::Unlink { child } => self.unlink(&child),
            Edit::MoveChild {
                parent,
                port,
                from,
                to,
            } => self.move_child(parent, port, from, to),
            Edit::SetField { id, name, value } => {
                if let Some(Value::Float(x)) = value
                    && !x.is_finite()
                {
                    return Err(EditError::new(format!(
                        "field '{name}' must be a finite number"
                    )));
                }
                let node = self.existing_mut(&id)?;
                let old = match value {
                    Some(v) => node.fields.insert(name.clone(), v),
                    None => node.fields.remove(&name),
                };
                Ok(Edit::SetField {
                    id,
                    name,
                    value: old,
                })
            }
            Edit::Rename { id, to } => self.rename(id, to),
            Edit::SetKind { id, kind, inputs } => self.set_kind(id, kind, inputs, catalog),
            Edit::SetTitle { id, title } => {
                let old = std::mem::replace(&mut self.existing_mut(&id)?.title, title);
                Ok(Edit::SetTitle { id, title: old })
            }
            Edit::SetComment { id, comment } => {
                let old = std::mem::replace(&mut self.existing_mut(&id)?.comment, comment);
                Ok(Edit::SetComment { id, comment: old })
            }
            Edit::SetPosition { id, position } => {
                if !position.iter().all(|c| c.is_finite()) {
                    return Err(EditError::new("a position must be finite"));
                }
                let old = std::mem::replace(&mut self.existing_mut(&id)?.position, position);
                Ok(Edit::SetPosition { id, position: old })
            }
            Edit::SetDescription(text) => Ok(Edit::SetDescription(std::mem::replace(
                &mut self.description,
                text,
            ))),
            Edit::SetKeys(keys) => {
                if let Some(keys) = &keys {
                    let mut names = std::collections::HashSet::new();
                    for k in keys {
                        key_problem(k)?;
                        if !names.insert(k.name.as_str()) {
                            return Err(EditError::new(format!(
                                "key '{}' is declared twice",
                                k.name
                            )));
                        }
                    }
                }
                Ok(Edit::SetKeys(std::mem::replace(&mut self.keys, keys)))
            }
            Edit::DeclareKey { key, index } => {
                key_problem(&key)?;
                if self.declared_key(&key.name).is_some() {
                    return Err(EditError::new(format!(
                        "the tree declares key '{}' already",
                        key.name
                    )));
                }
                let name = key.name.clone();
                let declared_none = self.keys.is_none();
                let keys = self.keys.get_or_insert_with(Vec::new);
                keys.insert(index.min(keys.len()), key);
                // Undone, a tree that declared no keys declares none again.
                Ok(if declared_none {
                    Edit::SetKeys(None)
                } else {
                    Edit::RemoveKey { name }
                })
            }
            Edit::UpdateKey { name, key } => {
                key_problem(&key)?;
                let at = self.existing_key(&name)?;
                if key.name != name && self.declared_key(&key.name).is_some() {
                    return Err(EditError::new(format!(
                        "the tree declares key '{}' already",
                        key.name
                    )));
                }
                let new_name = key.name.clone();
                let keys = self.keys.get_or_insert_with(Vec::new);
                let old = std::mem::replace(&mut keys[at], key);
                Ok(Edit::UpdateKey {
                    name: new_name,
                    key: old,
                })
            }
            Edit::RemoveKey { name } => {
                let index = self.existing_key(&name)?;
                let keys = self.keys.get_or_insert_with(Vec::new);
                let key = keys.remove(index);
                Ok(Edit::DeclareKey { key, index })
            }
            Edit::RenameKey { from, to } => {
                let edits = self.key_renaming(&from, &to, catalog)?;
                self.apply(Edit::Batch(edits), catalog)
            }
            Edit::Batch(edits) => {
                let mut undo = Vec::with_capacity(edits.len());
                for e in edits {
                    match self.apply(e, catalog) {
                        Ok(inv) => undo.push(inv),
                        Err(err) => {
                            for inv in undo.into_iter().rev() {
                                // Inverses of edits just applied always apply.
                                let _ = self.apply(inv, catalog);
                            }
                            return Err(err);
                        }
                    }
                }
                undo.reverse();
                Ok(Edit::Batch(undo))
            }
        }
    }

    /// Where the tree declares key `name`, among its declarations.
    fn declared_key(&self, name: &str) -> Option<usize> {
        self.keys.as_deref()?.iter().position(|k| k.name == name)
    }

    fn existing_key(&self, name: &str) -> Result<usize, EditError> {
        self.declared_key(name)
            .ok_or_else(|| EditError::new(format!("the tree declares no key '{name}'")))
    }

    /// The edits that rename key `from` to `to` (see [`Edit::RenameKey`]), or why it
    /// cannot be renamed so.
    fn key_renaming(
        &self,
        from: &str,
        to: &str,
        catalog: &Catalog,
    ) -> Result<Vec<Edit>, EditError> {
        self.renaming(from, to, catalog, false)
    }

    /// The edits that rename key `from`, which this tree's project declares (`catalog`'s
    /// shared keys), to `to` in this tree, one of the project's: the tree's own
    /// declaration of that name, if it has one, and every key field and SubTree binding
    /// that names it (none where the tree does not use it). Refused, with the reason, when
    /// `to` is not a key's name or is a key here already (declared by the tree or the
    /// project, or named by a node), or when the tree declares `from` as a parameter (the
    /// SubTree nodes that run it bind it by that name).
    pub fn shared_key_renaming(
        &self,
        from: &str,
        to: &str,
        catalog: &Catalog,
    ) -> Result<Vec<Edit>, EditError> {
        let parameter = self
            .keys
            .as_deref()
            .unwrap_or_default()
            .iter()
            .any(|k| k.name == from && k.parameter.is_some());
        if parameter {
            return Err(EditError::new(format!(
                "key '{from}' is a parameter of this tree, which the SubTree nodes running it bind by name"
            )));
        }
        self.renaming(from, to, catalog, true)
    }

    /// [`Tree::key_renaming`], or with `shared` [`Tree::shared_key_renaming`].
    fn renaming(
        &self,
        from: &str,
        to: &str,
        catalog: &Catalog,
        shared: bool,
    ) -> Result<Vec<Edit>, EditError> {
        if let Some(why) = super::key_name_problem(to) {
            return Err(EditError::new(format!(
                "key '{from}' cannot be renamed '{to}': {why}"
            )));
        }
        if from == to {
            return Ok(Vec::new());
        }
        let in_tree = self.declared_key(from).is_some();
        let in_project = catalog.shared_keys().iter().any(|k| k.name == from);
        let uses = super::keys::fields_naming(self, catalog, from);
        let scripts = super::keys::scripts_naming(self, catalog, from);
        if !shared && !in_tree && in_project {
            return Err(EditError::new(format!(
                "key '{from}' is the project's: rename it in the project file"
            )));
        }
        if !shared && !in_tree && uses.is_empty() && scripts.is_empty() {
            return Err(EditError::new(format!("there is no key '{from}'")));
        }
        if self.declared_key(to).is_some() || catalog.shared_keys().iter().any(|k| k.name == to) {
            return Err(EditError::new(format!(
                "key '{from}' cannot be renamed '{to}': a key '{to}' is declared already"
            )));
        }
        // A script names keys as its language writes names: one it names must stay one.
        if !scripts.is_empty() && (!super::script::is_name(to) || catalog.enum_value(to).is_some())
        {
            let (node, field) = &scripts[0];
            let why = match catalog.enum_value(to) {
                Some(_) => {
                    format!("'{to}' is an enum of the project, which a script reads as its number")
                }
                None => format!(
                    "a script cannot name '{to}' (a name is a letter or '_', then letters, digits and '_')"
                ),
            };
            return Err(EditError::new(format!(
                "key '{from}' cannot be renamed '{to}': node '{node}' names it in its script '{field}', and {why}"
            )));
        }
        let naming_to = super::keys::fields_naming(self, catalog, to);
        let scripts_to = super::keys::scripts_naming(self, catalog, to);
        if let Some((node, field)) = naming_to.first().or(scripts_to.first()) {
            return Err(EditError::new(format!(
                "key '{from}' cannot be renamed '{to}': node '{node}' names a key '{to}' in its '{field}'"
            )));
        }
        let mut edits = Vec::with_capacity(uses.len() + scripts.len() + 1);
        if let Some(at) = self.declared_key(from)
            && let Some(decl) = self.keys.as_deref().and_then(|k| k.get(at))
        {
            edits.push(Edit::UpdateKey {
                name: from.to_owned(),
                key: KeyDecl {
                    name: to.to_owned(),
                    ..decl.clone()
                },
            });
        }
        edits.extend(uses.into_iter().map(|(id, field)| {
            // A binding stays a binding, a key field a key field.
            let bound = self
                .node(&id)
                .and_then(|n| n.fields.get(&field))
                .is_some_and(|v| matches!(v, Value::Key(_)));
            let value = if bound {
                Value::Key(to.to_owned())
            } else {
                Value::Text(to.to_owned())
            };
            Edit::SetField {
                id,
                name: field,
                value: Some(value),
            }
        }));
        // Each script that names it, with the name changed and the rest as written.
        edits.extend(scripts.into_iter().filter_map(|(id, field)| {
            let code = self.node(&id)?.fields.get(&field)?.as_str()?;
            let renamed = super::script::rename(code, from, to)?;
            Some(Edit::SetField {
                id,
                name: field,
                value: Some(Value::Text(renamed)),
            })
        }));
        Ok(edits)
    }

    pub(super) fn existing_mut(&mut self, id: &NodeId) -> Result<&mut Node, EditError> {
        self.node_mut(id)
            .ok_or_else(|| EditError::new(format!("there is no node '{id}'")))
    }

    fn insert(
        &mut self,
        node: Node,
        index: usize,
        parent: Option<ParentSlot>,
        catalog: &Catalog,
    ) -> Result<Edit, EditError> {
        if let Some(problem) = NodeId::problem(node.id.as_str()) {
            return Err(EditError::new(format!("'{}': {problem}", node.id)));
        }
        if self.contains(&node.id) {
            return Err(EditError::new(format!(
                "a node with the id '{}' already exists",
                node.id
            )));
        }
        if !node.position.iter().all(|c| c.is_finite()) {
            return Err(EditError::new("a position must be finite"));
        }
        let cat = catalog.category_of(&node.kind);
        let mut seen = std::collections::HashSet::new();
        for (port, _, child) in node.links() {
            let Some(c) = self.node(child) else {
                return Err(EditError::new(format!(
                    "'{}' links to '{child}', which is not in the tree",
                    node.id
                )));
            };
            if !seen.insert(child) {
                return Err(EditError::rule(
                    Rule::TwoParents,
                    format!("'{child}' is linked twice"),
                ));
            }
            if let Some(p) = self.parent_of(child) {
                return Err(EditError::rule(
                    Rule::TwoParents,
                    format!("'{child}' is already linked to '{}'", p.parent),
                ));
            }
            if let (Some(pc), Some(cc)) = (cat, catalog.category_of(&c.kind))
                && let Err((rule, why)) = link_rule(pc, port, cc)
            {
                return Err(EditError::rule(rule, why));
            }
            if port.is_single() && node.linked(port).len() > 1 {
                return Err(EditError::rule(
                    Rule::SlotOverflow,
                    format!("the '{port}' input takes one link"),
                ));
            }
        }
        let id = node.id.clone();
        let index = index.min(self.nodes.len());
        self.nodes.insert(index, node);
        self.rebuild_index();
        if let Some(to) = parent
            && let Err(e) = self.link(id.clone(), to, catalog)
        {
            self.nodes.remove(index);
            self.rebuild_index();
            return Err(e);
        }
        Ok(Edit::Remove { id })
    }

    fn rename(&mut self, id: NodeId, to: NodeId) -> Result<Edit, EditError> {
        if id == to {
            return Ok(Edit::Rename { id: to, to: id });
        }
        if let Some(problem) = NodeId::problem(to.as_str()) {
            return Err(EditError::new(format!("'{to}' cannot be an id: {problem}")));
        }
        if self.contains(&to) {
            return Err(EditError::new(format!(
                "another node already has the id '{to}'"
            )));
        }
        let parent = self.parent_of(&id);
        self.existing_mut(&id)?.id = to.clone();
        if let Some(p) = parent
            && let Some(links) = self
                .node_mut(&p.parent)
                .and_then(|n| n.inputs.get_mut(&p.port))
            && let Some(slot) = links.get_mut(p.slot)
        {
            *slot = to.clone();
        }
        self.rebuild_index();
        Ok(Edit::Rename { id: to, to: id })
    }

    fn remove(&mut self, id: &NodeId) -> Result<Edit, EditError> {
        let Some(index) = self.position_of(id) else {
            return Err(EditError::new(format!("there is no node '{id}'")));
        };
        let parent = self.parent_of(id);
        for n in &mut self.nodes {
            for ids in n.inputs.values_mut() {
                ids.retain(|c| c != id);
            }
            n.inputs.retain(|_, ids| !ids.is_empty());
        }
        let node = self.nodes.remove(index);
        self.rebuild_index();
        Ok(Edit::Insert {
            node: Box::new(node),
            index,
            parent,
        })
    }

    /// Whether `target` is `from` or below it.
    pub(super) fn reaches(&self, from: &NodeId, target: &NodeId) -> bool {
        let mut stack = vec![from];
        let mut seen = std::collections::HashSet::new();
        while let Some(id) = stack.pop() {
            if id == target {
                return true;
            }
            if !seen.insert(id) {
                continue;
            }
            if let Some(n) = self.node(id) {
                stack.extend(n.links().map(|(_, _, c)| c));
            }
        }
        false
    }

    /// Why `child` cannot be linked into `to`, if it cannot (without changing anything).
    pub fn check_link(
        &self,
        child: &NodeId,
        to: &ParentSlot,
        catalog: &Catalog,
    ) -> Result<(), EditError> {
        let (Some(c), Some(p)) = (self.node(child), self.node(&to.parent)) else {
            return Err(EditError::new(
                "both ends of a link must be nodes of the tree",
            ));
        };
        let (Some(cc), Some(pc)) = (catalog.category_of(&c.kind), catalog.category_of(&p.kind))
        else {
            return Err(EditError::rule(
                Rule::UnknownKind,
                "a node of an unknown kind cannot be linked",
            ));
        };
        link_rule(pc, to.port, cc).map_err(|(rule, why)| EditError::rule(rule, why))?;
        if let Some(old) = self.parent_of(child) {
            return Err(EditError::rule(
                Rule::TwoParents,
                format!(
                    "'{}' is already linked to '{}'; a node has one parent",
                    c.label(),
                    old.parent
                ),
            ));
        }
        let linked = p.linked(to.port);
        if to.port.is_single() && !linked.is_empty() {
            return Err(EditError::rule(
                Rule::SlotOverflow,
                format!("the '{}' input of '{}' is taken", to.port, p.label()),
            ));
        }
        if to.slot > linked.len() {
            return Err(EditError::new(format!(
                "slot {} does not exist; the next free slot is {}",
                to.slot,
                linked.len()
            )));
        }
        if self.reaches(child, &to.parent) {
            return Err(EditError::rule(
                Rule::Cycle,
                format!(
                    "'{}' is above '{}' already; linking it there would make a cycle",
                    c.label(),
                    p.label()
                ),
            ));
        }
        Ok(())
    }

    fn link(
        &mut self,
        child: NodeId,
        to: ParentSlot,
        catalog: &Catalog,
    ) -> Result<Edit, EditError> {
        self.check_link(&child, &to, catalog)?;
        let parent = self.existing_mut(&to.parent)?;
        parent
            .inputs
            .entry(to.port)
            .or_default()
            .insert(to.slot, child.clone());
        Ok(Edit::Unlink { child })
    }

    fn unlink(&mut self, child: &NodeId) -> Result<Edit, EditError> {
        let Some(at) = self.parent_of(child) else {
            return Err(EditError::new(format!("'{child}' is not linked")));
        };
        let parent = self.existing_mut(&at.parent)?;
        if let Some(ids) = parent.inputs.get_mut(&at.port) {
            ids.remove(at.slot);
            if ids.is_empty() {
                parent.inputs.remove(&at.port);
            }
        }
        Ok(Edit::Link {
            child: child.clone(),
            to: at,
        })
    }

    fn move_child(
        &mut self,
        parent: NodeId,
        port: Port,
        from: usize,
        to: usize,
    ) -> Result<Edit, EditError> {
        let p = self.existing_mut(&parent)?;
        let Some(ids) = p.inputs.get_mut(&port) else {
            return Err(EditError::new(format!(
                "'{parent}' has nothing linked into '{port}'"
            )));
        };
        if from >= ids.len() || to >= ids.len() {
            return Err(EditError::new(format!(
                "slots {from} and {to} must both be below {}",
                ids.len()
            )));
        }
        let id = ids.remove(from);
        ids.insert(to, id);
        Ok(Edit::MoveChild {
            parent,
            port,
            from: to,
            to: from,
        })
    }
}
