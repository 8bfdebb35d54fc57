//! The tree model: nodes, ports, field values and the edits that change them.
//!
//! Pure data. Nothing here reads files or knows about egui. A [`Tree`] can hold
//! any graph a file describes (an unknown kind, a node with two parents, a cycle)
//! so that [`validate`] can report it; [`Edit`]s never create such a problem.

mod catalog;
mod edit;
mod keys;
mod kind_change;
pub mod names;
pub mod script;
mod validate;

pub use catalog::{
    Catalog, CatalogError, FieldDirection, FieldSpec, FieldType, HINTED_KINDS, HOOKS, KindSpec,
    Origin, Repeats, Runs, hook_fields, is_hook,
};
pub use edit::{Edit, EditError, ParentSlot};
pub use keys::{
    Binding, KeyChoice, KeyDecl, KeyOrigin, KeyType, KeyTypes, MAX_DECLARED_KEYS, Param,
    Role as KeyRole, binding, fields_naming, key_name_problem, keys_fitting, open_bindings,
    shares_keys,
};
pub use kind_change::KindChange;
pub use validate::{
    AssetStatus, AssetSummary, Assets, Diagnostic, KeyUse, MAX_ACTIVE_LEAVES, MAX_CONTEXT_KEYS,
    MAX_DEPTH, MAX_NODES, NoAssets, Rule, Severity, declare_keys, declaring_keys, key_uses,
    link_rule, summarize, undeclared_keys, validate,
};

use std::collections::BTreeMap;

use foldhash::{HashMap, HashMapExt};
use std::fmt;

use serde::{Deserialize, Serialize};

/// The stable identifier of a node within one tree file.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct NodeId(pub String);

impl NodeId {
    /// Makes an id from text.
    pub fn new(id: impl Into<String>) -> Self {
        Self(id.into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Why this text cannot be a node id, if it cannot.
    pub fn problem(id: &str) -> Option<&'static str> {
        if id.is_empty() {
            Some("a node id cannot be empty")
        } else if id.contains('/') {
            Some("a node id cannot contain '/' (it separates subtree ids in traces)")
        } else if id.chars().any(|c| c.is_control() || c.is_whitespace()) {
            Some("a node id cannot contain spaces or control characters")
        } else {
            None
        }
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for NodeId {
    fn from(s: &str) -> Self {
        Self(s.to_owned())
    }
}

/// `name` as an id's words: letters and digits in lower case, words (spaces, punctuation,
/// a capital after a small letter or digit) joined by `_`, at most 32 characters cut at a
/// word; `n` when nothing is left.
pub(crate) fn id_words(name: &str) -> String {
    let mut out = String::new();
    let mut gap = false;
    let mut prev: Option<char> = None;
    for c in name.chars() {
        if c.is_alphanumeric() {
            let camel =
                c.is_uppercase() && prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit());
            if (gap || camel) && !out.is_empty() {
                out.push('_');
            }
            out.extend(c.to_lowercase());
            gap = false;
        } else {
            gap = true;
        }
        prev = Some(c);
    }
    if out.chars().count() > 32 {
        let cut: String = out.chars().take(32).collect();
        out = match cut.rfind('_') {
            Some(i) if i > 0 => cut[..i].to_owned(),
            _ => cut,
        };
    }
    if out.is_empty() {
        out.push('n');
    }
    out
}

/// What a node is, which decides its ports and how it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Category {
    /// The one entry point of a tree.
    Root,
    /// A branch with ordered children: Sequence, Selector, Parallel …
    Composite,
    /// A branch with one child: Inverter, Repeater …
    Decorator,
    /// A branch that runs another tree file.
    SubTree,
    /// An action.
    Leaf,
    /// A check that answers true or false.
    Condition,
    /// A subtree started from outside by a trigger.
    Interrupt,
}

impl Category {
    /// Every category, in palette order.
    pub const ALL: [Category; 7] = [
        Category::Root,
        Category::Composite,
        Category::Decorator,
        Category::SubTree,
        Category::Leaf,
        Category::Condition,
        Category::Interrupt,
    ];

    /// The input ports of a node of this category, in display order.
    pub fn inputs(self) -> &'static [Port] {
        match self {
            Category::Root => &[Port::Child, Port::Interrupts],
            Category::Composite => &[Port::Conditions, Port::Services, Port::Children],
            Category::Decorator => &[Port::Conditions, Port::Child],
            Category::SubTree => &[Port::Conditions],
            Category::Interrupt => &[Port::Child],
            Category::Leaf | Category::Condition => &[],
        }
    }

    /// Whether the category is a Branch (composite, decorator or subtree).
    pub fn is_branch(self) -> bool {
        matches!(
            self,
            Category::Composite | Category::Decorator | Category::SubTree
        )
    }

    /// Whether a node of this category has a `parent` output.
    pub fn has_parent_port(self) -> bool {
        self != Category::Root
    }

    /// A designer's name for the category.
    pub fn label(self) -> &'static str {
        match self {
            Category::Root => "Root",
            Category::Composite => "Composite",
            Category::Decorator => "Decorator",
            Category::SubTree => "SubTree",
            Category::Leaf => "Leaf",
            Category::Condition => "Condition",
            Category::Interrupt => "Interrupt",
        }
    }
}

/// A named input port. `Child` takes one link, the others many, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Port {
    /// The services of a composite: action leaves run on the composite's entry and then
    /// every `interval` while it runs (SEMANTICS.md §3.2.1). First, so that a walk over a
    /// node's links meets them before its children, in the order they run.
    Services,
    /// The single child of Root, a decorator or an Interrupt.
    Child,
    /// The ordered children of a composite.
    Children,
    /// The guards of a branch.
    Conditions,
    /// The Interrupts of Root.
    Interrupts,
}

impl Port {
    /// Every port.
    pub const ALL: [Port; 5] = [
        Port::Child,
        Port::Children,
        Port::Conditions,
        Port::Interrupts,
        Port::Services,
    ];

    /// The port's name in files and on the canvas.
    pub fn name(self) -> &'static str {
        match self {
            Port::Child => "child",
            Port::Children => "children",
            Port::Conditions => "conditions",
            Port::Interrupts => "interrupts",
            Port::Services => "services",
        }
    }

    /// Whether the port takes a single link.
    pub fn is_single(self) -> bool {
        self == Port::Child
    }

    /// Whether links in this port are children that run (as opposed to guards or interrupts).
    pub fn is_child_port(self) -> bool {
        matches!(self, Port::Child | Port::Children)
    }
}

impl fmt::Display for Port {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A field value as stored in a file.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// true or false.
    Bool(bool),
    /// A whole number.
    Int(i64),
    /// A number with a fraction (always finite).
    Float(f64),
    /// Text: names, scripts, context keys, asset paths.
    Text(String),
    /// Bound to a context key, written `{"key": "NAME"}`: a SubTree's parameter bound to a
    /// key of its caller (SEMANTICS.md §3.5).
    Key(String),
}

impl Value {
    /// A field's value from text as a person (or BehaviorTree.CPP) writes it: `{NAME}`, a
    /// key's name in braces, is that key; any other text is itself.
    pub fn text_or_key(text: &str) -> Self {
        match Self::key_in_braces(text) {
            Some(k) => Value::Key(k.to_owned()),
            None => Value::Text(text.to_owned()),
        }
    }

    /// The key `{NAME}` names, when `text` is a key's name in braces.
    pub fn key_in_braces(text: &str) -> Option<&str> {
        let inner = text.strip_prefix('{')?.strip_suffix('}')?;
        keys::key_name_problem(inner).is_none().then_some(inner)
    }

    /// The value as a number, if it is one.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Int(i) => Some(i as f64),
            Value::Float(f) => Some(f),
            _ => None,
        }
    }

    /// The value as text, if it is text.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Text(s) => Some(s),
            _ => None,
        }
    }

    /// The value as a boolean, if it is one.
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The value as a whole number, if it is one.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::Int(i) => Some(i),
            _ => None,
        }
    }

    /// A word for the value's type, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "a whole number",
            Value::Float(_) => "a number",
            Value::Text(_) => "text",
            Value::Key(_) => "a key",
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            // A whole float keeps its fraction, as files write it: 2.0, not 2.
            Value::Float(x) if x.fract() == 0.0 && x.abs() < 1e15 => write!(f, "{x:.1}"),
            Value::Float(x) => write!(f, "{x}"),
            Value::Text(s) => write!(f, "{s:?}"),
            Value::Key(k) => write!(f, "{{{k}}}"),
        }
    }
}

impl Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(i) => s.serialize_i64(*i),
            Value::Float(x) => s.serialize_f64(*x),
            Value::Text(t) => s.serialize_str(t),
            Value::Key(k) => {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("key", k)?;
                m.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Value;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field value: true/false, a number, text or {\"key\": NAME}")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
                Ok(Value::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
                Ok(Value::Int(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Value, E> {
                i64::try_from(v)
                    .map(Value::Int)
                    .map_err(|_| E::custom(format!("the number {v} is too large")))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
                if v.is_finite() {
                    Ok(Value::Float(v))
                } else {
                    Err(E::custom("a number must be finite"))
                }
            }
            fn visit_str<E>(self, v: &str) -> Result<Value, E> {
                Ok(Value::Text(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<Value, E> {
                Ok(Value::Text(v))
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Value, M::Error> {
                use serde::de::Error;
                let bad = || M::Error::custom("a field bound to a key is {\"key\": NAME}");
                let Some((name, key)) = map.next_entry::<String, String>()? else {
                    return Err(bad());
                };
                if name != "key" || map.next_key::<serde::de::IgnoredAny>()?.is_some() {
                    return Err(bad());
                }
                match keys::key_name_problem(&key) {
                    Some(why) => Err(M::Error::custom(format!("key '{key}': {why}"))),
                    None => Ok(Value::Key(key)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// One node of a tree.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Stable id, unique in the tree.
    pub id: NodeId,
    /// The kind's name, e.g. `Sequence` or `MoveTo`; looked up in the [`Catalog`].
    pub kind: String,
    /// An optional designer's title shown on the node.
    pub title: String,
    /// Fields set on this node; a field not set has the kind's default.
    pub fields: BTreeMap<String, Value>,
    /// The nodes linked into each input port, in slot order.
    pub inputs: BTreeMap<Port, Vec<NodeId>>,
    /// Where the node sits on the canvas (editor data).
    pub position: [f32; 2],
    /// A designer's note shown with the node (editor data).
    pub comment: String,
}

impl Node {
    /// A node of the given kind with no fields set and no links.
    pub fn new(id: impl Into<NodeId>, kind: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            kind: kind.into(),
            title: String::new(),
            fields: BTreeMap::new(),
            inputs: BTreeMap::new(),
            position: [0.0, 0.0],
            comment: String::new(),
        }
    }

    /// The nodes linked into `port`, in slot order.
    pub fn linked(&self, port: Port) -> &[NodeId] {
        self.inputs.get(&port).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Every (port, slot, child) link into this node.
    pub fn links(&self) -> impl Iterator<Item = (Port, usize, &NodeId)> {
        self.inputs
            .iter()
            .flat_map(|(port, ids)| ids.iter().enumerate().map(move |(i, id)| (*port, i, id)))
    }

    /// The title if set, else the kind.
    pub fn label(&self) -> &str {
        if self.title.is_empty() {
            &self.kind
        } else {
            &self.title
        }
    }
}

impl From<String> for NodeId {
    fn from(s: String) -> Self {
        Self(s)
    }
}

/// How the canvas was last looked at (editor data).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct View {
    /// Canvas offset.
    pub offset: [f32; 2],
    /// Zoom factor.
    pub zoom: f32,
}

/// A behaviour tree: its nodes in file order, plus tree-level data.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tree {
    nodes: Vec<Node>,
    index: HashMap<NodeId, usize>,
    /// A description of what the tree does.
    pub description: String,
    /// The saved canvas view, if any (editor data).
    pub view: Option<View>,
    /// The keys the tree declares (SEMANTICS.md §3.5), in file order; `None` for a file
    /// that declares none, whose keys are all `any`.
    pub keys: Option<Vec<KeyDecl>>,
}

/// Why a set of nodes cannot form a tree at all (before any validation).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum StructureError {
    /// Two nodes share an id.
    #[error("[{0}] two nodes have the id '{0}'; ids must be unique")]
    DuplicateId(NodeId),
    /// An id is not usable.
    #[error("[{id}] bad node id: {problem}")]
    BadId {
        /// The id.
        id: NodeId,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// A link names a node that is not in the tree.
    #[error("[{node}] its '{port}' input links to '{missing}', which is not a node in this tree")]
    MissingNode {
        /// The node whose input holds the link.
        node: NodeId,
        /// The input port.
        port: Port,
        /// The id that is not there.
        missing: NodeId,
    },
}

impl Tree {
    /// An empty tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds a tree from nodes, refusing duplicate or unusable ids and links to missing nodes.
    /// Everything else (typing, cycles, counts) is left for [`validate`].
    pub fn from_nodes(nodes: Vec<Node>) -> Result<Self, StructureError> {
        let mut index = HashMap::with_capacity(nodes.len());
        for (i, n) in nodes.iter().enumerate() {
            if let Some(problem) = NodeId::problem(n.id.as_str()) {
                return Err(StructureError::BadId {
                    id: n.id.clone(),
                    problem,
                });
            }
            if index.insert(n.id.clone(), i).is_some() {
                return Err(StructureError::DuplicateId(n.id.clone()));
            }
        }
        for n in &nodes {
            for (port, _, child) in n.links() {
                if !index.contains_key(child) {
                    return Err(StructureError::MissingNode {
                        node: n.id.clone(),
                        port,
                        missing: child.clone(),
                    });
                }
            }
        }
        Ok(Self {
            nodes,
            index,
            description: String::new(),
            view: None,
            keys: None,
        })
    }

    /// Gives each node's field the value `fit` returns for it (given the node's kind, the
    /// field's name and its value), where it returns one; the count changed. Links,
    /// ids and everything else stay as they are.
    pub fn refit_fields(
        &mut self,
        mut fit: impl FnMut(&str, &str, &Value) -> Option<Value>,
    ) -> usize {
        let mut changed = 0;
        for node in &mut self.nodes {
            for (name, value) in node.fields.iter_mut() {
                if let Some(v) = fit(&node.kind, name, value) {
                    *value = v;
                    changed += 1;
                }
            }
        }
        changed
    }

    /// Whether `other` runs as this tree does: the same declared keys, and the same nodes
    /// in the same order, with the same kinds, fields and links (titles, comments and
    /// positions are the editor's).
    pub fn runs_like(&self, other: &Tree) -> bool {
        self.keys == other.keys
            && self.nodes.len() == other.nodes.len()
            && self.nodes.iter().zip(&other.nodes).all(|(a, b)| {
                a.id == b.id && a.kind == b.kind && a.fields == b.fields && a.inputs == b.inputs
            })
    }

    /// The nodes, in file order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The node with this id.
    pub fn node(&self, id: &NodeId) -> Option<&Node> {
        self.index.get(id).map(|&i| &self.nodes[i])
    }

    /// The position of a node in file order.
    pub fn position_of(&self, id: &NodeId) -> Option<usize> {
        self.index.get(id).copied()
    }

    /// The position of a node borrowed from this tree's [`Tree::nodes`], found from where
    /// it sits in memory, without looking its id up; else by its id.
    pub fn position_of_node(&self, node: &Node) -> Option<usize> {
        let offset = (node as *const Node as usize).wrapping_sub(self.nodes.as_ptr() as usize);
        let i = offset / std::mem::size_of::<Node>().max(1);
        match self.nodes.get(i) {
            Some(n) if std::ptr::eq(n, node) => Some(i),
            _ => self.position_of(&node.id),
        }
    }

    /// Whether a node with this id exists.
    pub fn contains(&self, id: &NodeId) -> bool {
        self.index.contains_key(id)
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree has no nodes.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Where `child` is linked, if it is: the first (parent, port, slot) found in file order.
    pub fn parent_of(&self, child: &NodeId) -> Option<ParentSlot> {
        self.nodes.iter().find_map(|p| {
            p.links()
                .find(|(_, _, c)| *c == child)
                .map(|(port, slot, _)| ParentSlot {
                    parent: p.id.clone(),
                    port,
                    slot,
                })
        })
    }

    /// Where each linked node is linked: what [`Tree::parent_of`] finds, for every node
    /// at once.
    pub fn parents(&self) -> foldhash::HashMap<NodeId, ParentSlot> {
        let mut all = foldhash::HashMap::with_capacity(self.nodes.len());
        for p in &self.nodes {
            for (port, slot, child) in p.links() {
                all.entry(child.clone()).or_insert_with(|| ParentSlot {
                    parent: p.id.clone(),
                    port,
                    slot,
                });
            }
        }
        all
    }

    /// An id for a new node named `name` (its title, or its kind when it has none) that
    /// reads well and no node has: `name` in lower case, words joined by `_` (`MoveTo`:
    /// `move_to`, "Chase the player": `chase_the_player`), then `_2`, `_3` … when taken.
    pub fn fresh_id(&self, name: &str) -> NodeId {
        let base = id_words(name);
        if !self.contains(&NodeId(base.clone())) {
            return NodeId(base);
        }
        (2..)
            .map(|i| NodeId(format!("{base}_{i}")))
            .find(|id| !self.contains(id))
            .unwrap_or_else(|| NodeId(base.clone()))
    }

    fn node_mut(&mut self, id: &NodeId) -> Option<&mut Node> {
        self.index.get(id).map(|&i| &mut self.nodes[i])
    }

    fn rebuild_index(&mut self) {
        self.index = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id.clone(), i))
            .collect();
    }

    /// Checks the invariants every [`Edit`] keeps, beyond those of [`Tree::from_nodes`]:
    /// at most one parent per node, no cycle, links only into ports the parent's kind has and
    /// of a category that fits, single slots holding one link. Returns the first broken one.
    pub fn check_invariants(&self, catalog: &Catalog) -> Result<(), String> {
        let mut seen: HashMap<&NodeId, &NodeId> = HashMap::new();
        for p in &self.nodes {
            for (port, _, c) in p.links() {
                if let Some(other) = seen.insert(c, &p.id) {
                    return Err(format!("{c} has two parents: {other} and {}", p.id));
                }
                let pc = catalog.category_of(&p.kind);
                let cc = self.node(c).and_then(|n| catalog.category_of(&n.kind));
                match (pc, cc) {
                    (Some(pc), Some(cc)) => {
                        if let Err((_, why)) = link_rule(pc, port, cc) {
                            return Err(format!("{c} -> {}.{port}: {why}", p.id));
                        }
                    }
                    _ => return Err(format!("link {c} -> {} involves an unknown kind", p.id)),
                }
                if port.is_single() && p.linked(port).len() > 1 {
                    return Err(format!("{}.{port} holds more than one link", p.id));
                }
            }
        }
        if let Some(cycle) = validate::find_cycles(self).0.into_iter().next() {
            return Err(format!("cycle through {cycle:?}"));
        }
        Ok(())
    }
}
