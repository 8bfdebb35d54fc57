//! Validation ("TreeNode typing", SEMANTICS.md §2): diagnostics tied to node ids.

use std::collections::BTreeSet;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::fmt;

use super::keys;
use super::{
    Binding, Catalog, Category, FieldType, KeyDecl, KeyType, KeyTypes, KindSpec, Node, NodeId,
    Port, Repeats, Tree, Value, binding, open_bindings, shares_keys,
};

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The tree runs, but something looks wrong.
    Warning,
    /// The tree does not run.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

macro_rules! rules {
    ($($(#[$doc:meta])* $name:ident = $code:literal, $sev:ident;)*) => {
        /// A validation rule; its code names it in messages, fixtures and docs.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Rule { $($(#[$doc])* $name,)* }
        impl Rule {
            /// Every rule.
            pub const ALL: &'static [Rule] = &[$(Rule::$name,)*];
            /// The rule's stable code, e.g. `two-parents`.
            pub fn code(self) -> &'static str { match self { $(Rule::$name => $code,)* } }
            /// The severity of diagnostics under this rule.
            pub fn severity(self) -> Severity { match self { $(Rule::$name => Severity::$sev,)* } }
        }
    };
}

rules! {
    /// Not exactly one Root.
    RootCount = "root-count", Error;
    /// A link between ports whose types do not fit.
    LinkType = "link-type", Error;
    /// Something linked into a Leaf or Condition.
    LinkIntoLeaf = "link-into-leaf", Error;
    /// Root linked as a child.
    RootHasParent = "root-has-parent", Error;
    /// A node linked to two parents (or twice to one).
    TwoParents = "two-parents", Error;
    /// Links that form a cycle.
    Cycle = "cycle", Error;
    /// More links than a single slot takes.
    SlotOverflow = "slot-overflow", Error;
    /// A composite with no children, a decorator, Root or Interrupt with no child.
    MissingChild = "missing-child", Error;
    /// An Interrupt without an interrupt_id.
    InterruptIdMissing = "interrupt-id-missing", Error;
    /// Two Interrupts with the same interrupt_id.
    InterruptIdDuplicate = "interrupt-id-duplicate", Error;
    /// A SubTree whose asset is not set, missing or unreadable.
    SubtreeMissing = "subtree-missing", Error;
    /// A SubTree whose asset has errors of its own.
    SubtreeInvalid = "subtree-invalid", Error;
    /// A SubTree whose asset leads back to itself.
    SubtreeCycle = "subtree-cycle", Error;
    /// A field of the wrong type.
    FieldType = "field-type", Error;
    /// A field out of range.
    FieldRange = "field-range", Error;
    /// A field the kind does not have.
    FieldUnknown = "field-unknown", Error;
    /// A kind the catalog does not know.
    UnknownKind = "unknown-kind", Error;
    /// Nodes not reachable from Root.
    Unreachable = "unreachable", Warning;
    /// An in_context key nothing earlier writes.
    ContextUnwritten = "context-unwritten", Warning;
    /// An out_context key nothing reads.
    ContextUnread = "context-unread", Warning;
    /// `aborts_lower` on a Condition that is not a guard of a Selector's child.
    AbortsLowerPlace = "aborts-lower-place", Error;
    /// A tree or forever loop with no action leaf.
    NoAction = "no-action", Warning;
    /// A node library's composite or decorator that says nothing of how it runs.
    CannotRun = "cannot-run", Warning;
    /// Past a limit of what a program holds: nesting depth, nodes with SubTrees
    /// included, distinct context keys, action leaves running at once.
    TooLarge = "too-large", Error;
    /// A tree that declares its keys uses one that neither it nor its project declares.
    KeyUndeclared = "key-undeclared", Error;
    /// A key read or written as a type its declaration, or its writer, does not give.
    KeyType = "key-type", Error;
    /// A key read, but written by nothing and without a default.
    KeyUnwritten = "key-unwritten", Warning;
    /// A declared key that no node reads or writes.
    KeyUnused = "key-unused", Warning;
    /// A SubTree node that leaves a required parameter of its asset unbound, binds one the
    /// asset does not declare, binds an out parameter to a value, or a value of another type.
    SubtreeParameter = "subtree-parameter", Error;
    /// An `interval` on an action that is not a service: nothing reads it.
    IntervalUnused = "interval-unused", Warning;
    /// Hooks (`_failureIf` …) on a guard or a service, which is never entered as a
    /// child, so they would never run.
    HookPlace = "hook-place", Error;
}

/// The declarations `tree`'s uses of keys imply, for the keys neither it nor its project
/// (`catalog`) declares yet, typed by what writes them (see `arbor fmt --declare-keys`).
pub fn undeclared_keys(tree: &Tree, catalog: &Catalog, assets: &dyn Assets) -> Vec<KeyDecl> {
    let mut cx = Ctx::new(tree, catalog, assets);
    cx.subtree_assets();
    keys::infer(
        tree.keys.as_deref().unwrap_or_default(),
        catalog.shared_keys(),
        &cx.key_uses(),
    )
}

/// `tree` declaring every key it uses (`arbor fmt --declare-keys`, the editor's "Declare
/// the keys this tree uses"): the declarations it has, then [`undeclared_keys`]. A tree
/// that declared none starts to declare its keys here, and its SubTree nodes would stop
/// sharing their assets' keys (SEMANTICS.md §3.5): each that does not say `autoremap` is
/// given `"autoremap": true`, so that it runs as before.
pub fn declare_keys(tree: &mut Tree, catalog: &Catalog, assets: &dyn Assets) {
    let edit = declaring_keys(tree, catalog, assets);
    // The edit is made of this tree's declarations and its own nodes' fields: it applies.
    let _ = tree.apply(edit, catalog);
}

/// The edit [`declare_keys`] makes, for the editor to apply as one undo step.
pub fn declaring_keys(tree: &Tree, catalog: &Catalog, assets: &dyn Assets) -> super::Edit {
    let implied = undeclared_keys(tree, catalog, assets);
    let mut edits = Vec::new();
    if tree.keys.is_none() {
        for node in &tree.nodes {
            if catalog.category_of(&node.kind) == Some(Category::SubTree)
                && !node.fields.contains_key("autoremap")
            {
                edits.push(super::Edit::SetField {
                    id: node.id.clone(),
                    name: "autoremap".to_owned(),
                    value: Some(Value::Bool(true)),
                });
            }
        }
    }
    let mut keys = tree.keys.clone().unwrap_or_default();
    keys.extend(implied);
    edits.push(super::Edit::SetKeys(Some(keys)));
    super::Edit::Batch(edits)
}

/// One node's use of one key: the node, the field that names it (`asset` for a SubTree
/// whose tree uses it), and whether it reads or writes it.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyUse {
    /// The node.
    pub node: NodeId,
    /// The key.
    pub key: String,
    /// The field that names it.
    pub field: String,
    /// Whether the node reads it or writes it.
    pub role: keys::Role,
}

/// Every node's use of every key, in file order (a SubTree's through its asset), as
/// validation finds them.
pub fn key_uses(tree: &Tree, catalog: &Catalog, assets: &dyn Assets) -> Vec<KeyUse> {
    let mut cx = Ctx::new(tree, catalog, assets);
    cx.subtree_assets();
    cx.key_uses()
        .into_iter()
        .map(|u| KeyUse {
            node: u.node.clone(),
            key: u.key.to_owned(),
            field: u.field.to_owned(),
            role: u.role,
        })
        .collect()
}

/// The deepest a node may sit below Root, SubTrees included (Root is at depth 0).
pub const MAX_DEPTH: usize = 256;

/// The most nodes a tree may run, each SubTree counted with the nodes of its asset.
pub const MAX_NODES: u64 = 2_000_000;

/// The most distinct context keys a tree may use, SubTrees included.
pub const MAX_CONTEXT_KEYS: usize = 65_535;

/// The most action leaves a tree may run at once (under Parallels, with its Interrupts'
/// subtrees running beside the main tree), SubTrees included.
pub const MAX_ACTIVE_LEAVES: u64 = 65_535;

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// One finding of validation.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// The rule broken.
    pub rule: Rule,
    /// The nodes concerned, the main one first (empty for a tree-wide finding).
    pub nodes: Vec<NodeId>,
    /// What is wrong, in a designer's words.
    pub message: String,
}

impl Diagnostic {
    pub(super) fn new(rule: Rule, nodes: Vec<NodeId>, message: impl Into<String>) -> Self {
        Self {
            rule,
            nodes,
            message: message.into(),
        }
    }

    /// The severity, from the rule.
    pub fn severity(&self) -> Severity {
        self.rule.severity()
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity() == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    /// `SEVERITY: [NODE-ID] MESSAGE (rule)`, the part of a `validate` line after the file.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.severity())?;
        if let Some(n) = self.nodes.first() {
            write!(f, "[{n}] ")?;
        }
        write!(f, "{} ({})", self.message, self.rule)
    }
}

/// What a SubTree's asset turned out to be.
#[derive(Clone, Debug, PartialEq)]
pub enum AssetStatus {
    /// A valid tree, summarised.
    Ok(AssetSummary),
    /// Not found or unreadable, with the reason.
    Missing(String),
    /// Found but broken, with the reason.
    Invalid(String),
    /// It leads back to the tree that names it; the chain of files.
    Cycle(String),
}

/// What validation of the including tree needs to know of a valid subtree asset.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AssetSummary {
    /// Context keys it writes.
    pub writes: BTreeSet<String>,
    /// Context keys it reads.
    pub reads: BTreeSet<String>,
    /// Whether it contains an action leaf that runs.
    pub has_action: bool,
    /// The nodes it adds where it is included (its Root's child and all below, its own
    /// SubTrees counted with their assets' nodes).
    pub nodes: u64,
    /// How deep it reaches below its Root's child (0: that node alone).
    pub depth: usize,
    /// The most action leaves its Root's child can run at once.
    pub active: u64,
    /// The keys it declares, its parameters among them (`None`: it declares none).
    pub keys: Option<Vec<KeyDecl>>,
}

impl AssetSummary {
    /// What SubTree node `node` may bind of this asset: the parameters it declares; when it
    /// declares no keys, each key it uses (read: `in`, written: `out`, both: `inout`) and
    /// each other name the node binds (`inout`), of type `any`, none required
    /// (SEMANTICS.md §3.5), sorted by name.
    pub fn parameters(&self, node: &Node) -> Vec<KeyDecl> {
        if let Some(keys) = &self.keys {
            return keys
                .iter()
                .filter(|k| k.parameter.is_some())
                .cloned()
                .collect();
        }
        let names: BTreeSet<&str> = self
            .reads
            .iter()
            .chain(&self.writes)
            .map(String::as_str)
            .chain(open_bindings(node).map(|(name, _)| name))
            .collect();
        names
            .into_iter()
            .map(|name| {
                let (reads, writes) = (self.reads.contains(name), self.writes.contains(name));
                let (parameter, doc) = match (reads, writes) {
                    (true, false) => (super::Param::In, "a key the tree reads"),
                    (false, true) => (super::Param::Out, "a key the tree writes"),
                    (true, true) => (super::Param::InOut, "a key the tree reads and writes"),
                    (false, false) => (super::Param::InOut, "a key the tree does not use"),
                };
                KeyDecl {
                    name: name.to_owned(),
                    ty: KeyType::Any,
                    default: None,
                    doc: doc.to_owned(),
                    parameter: Some(parameter),
                }
            })
            .collect()
    }
}

/// What can run below each node, by position (`None`: not walked).
struct Reaches(Vec<Option<Reach>>);

/// What can run below a node.
#[derive(Clone, Copy, Default)]
struct Reach {
    /// An action leaf (or a SubTree with one).
    action: bool,
    /// The most action leaves running at once: every child's below a Parallel, one
    /// child's below any other branch.
    leaves: u64,
}

/// Resolves the `asset` of SubTree nodes. The io module resolves files; tests can fake it.
pub trait Assets {
    /// What the asset named `asset` is, seen from the tree being validated.
    fn resolve(&self, asset: &str) -> AssetStatus;

    /// The tree the asset names, with a resolver for the assets it names in turn
    /// (for compiling). `None` when it cannot be opened.
    fn open(&self, _asset: &str) -> Option<(Tree, Box<dyn Assets + '_>)> {
        None
    }
}

/// Resolves nothing: for a tree that has no file yet.
pub struct NoAssets;

impl Assets for NoAssets {
    fn resolve(&self, asset: &str) -> AssetStatus {
        AssetStatus::Missing(format!(
            "cannot open '{asset}': the tree has not been saved, so there is no folder to find it in"
        ))
    }
}

/// Whether a node of category `child` may be linked into `port` of a node of category `parent`:
/// the rule broken and the reason if not.
pub fn link_rule(parent: Category, port: Port, child: Category) -> Result<(), (Rule, String)> {
    if matches!(parent, Category::Leaf | Category::Condition) {
        return Err((
            Rule::LinkIntoLeaf,
            format!("nothing links into a {}: it has no inputs", parent.label()),
        ));
    }
    if !parent.inputs().contains(&port) {
        return Err((
            Rule::LinkType,
            format!("a {} has no '{port}' input", parent.label()),
        ));
    }
    // A port that takes one category: the link fits when the child is of it.
    let only = |takes: Category, what: &str, input: &str| {
        if child == takes {
            Ok(())
        } else {
            Err((
                Rule::LinkType,
                format!("only {what} link into {input}, not a {}", child.label()),
            ))
        }
    };
    match (port, child) {
        (_, Category::Root) => Err((Rule::RootHasParent, "Root cannot have a parent".into())),
        (Port::Interrupts, _) => only(
            Category::Interrupt,
            "Interrupts",
            "Root's 'interrupts' input",
        ),
        (_, Category::Interrupt) => Err((
            Rule::LinkType,
            "an Interrupt links only into Root's 'interrupts' input".into(),
        )),
        (Port::Conditions, _) => only(Category::Condition, "Conditions", "a 'conditions' input"),
        (Port::Services, _) => only(Category::Leaf, "action leaves", "a 'services' input"),
        (Port::Child | Port::Children, _) => Ok(()),
    }
}

/// How many cycles are reported one by one; past that, one more finding counts the rest.
pub const CYCLES_LISTED: usize = 20;

/// How many nodes a cycle's message names before it cuts the list short.
const CYCLE_NODES_NAMED: usize = 12;

/// The cycles of links, each as the list of nodes on it (reported once per cycle): at
/// most [`CYCLES_LISTED`], and how many there are in all.
pub(crate) fn find_cycles(tree: &Tree) -> (Vec<Vec<NodeId>>, usize) {
    // Iterative three-colour DFS over child edges, so deep trees cannot overflow the stack.
    let n = tree.len();
    let mut colour = vec![0u8; n];
    // Where each node on the stack sits in it, so a cycle's start is found at once.
    let mut depth = vec![0usize; n];
    let mut cycles = Vec::new();
    let mut total = 0;
    let idx = |id: &NodeId| tree.position_of(id).unwrap_or(usize::MAX);
    let children: Vec<Vec<usize>> = tree
        .nodes()
        .iter()
        .map(|node| {
            node.links()
                .map(|(_, _, c)| idx(c))
                .filter(|&i| i < n)
                .collect()
        })
        .collect();
    for start in 0..n {
        if colour[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        colour[start] = 1;
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            if let Some(&w) = children[v].get(*next) {
                *next += 1;
                match colour[w] {
                    0 => {
                        colour[w] = 1;
                        depth[w] = stack.len();
                        stack.push((w, 0));
                    }
                    1 => {
                        total += 1;
                        if cycles.len() < CYCLES_LISTED {
                            cycles.push(
                                stack[depth[w]..]
                                    .iter()
                                    .map(|&(u, _)| tree.nodes()[u].id.clone())
                                    .collect(),
                            );
                        }
                    }
                    _ => {}
                }
            } else {
                colour[v] = 2;
                stack.pop();
            }
        }
    }
    (cycles, total)
}

struct Ctx<'a> {
    tree: &'a Tree,
    catalog: &'a Catalog,
    assets: &'a dyn Assets,
    out: Vec<Diagnostic>,
    /// Asset status per SubTree node, resolved once.
    subtrees: HashMap<&'a NodeId, AssetStatus>,
    /// The links the walks follow, by position, looked up once.
    graph: Graph,
    /// Each node's kind, by position, looked up once.
    kinds: Vec<Option<&'a KindSpec>>,
    /// The walks' marks of the nodes they visited, by position: all false between walks
    /// (each walk clears what it marked, so a walk costs what it visits).
    marks: std::cell::RefCell<Vec<bool>>,
}

/// Each node's links on the ports its category has (in the category's port order, then
/// list order) as positions in the tree: what the walks follow, each id looked up once.
struct Graph {
    /// Where each node's links start in `links`; one more entry closes the last.
    starts: Vec<u32>,
    links: Vec<(Port, u32)>,
}

impl Graph {
    fn new(tree: &Tree, catalog: &Catalog) -> Self {
        let mut starts = Vec::with_capacity(tree.len() + 1);
        let mut links = Vec::with_capacity(tree.len());
        for node in tree.nodes() {
            starts.push(links.len() as u32);
            let ports = catalog
                .category_of(&node.kind)
                .map(Category::inputs)
                .unwrap_or(&[]);
            for &port in ports {
                links.extend(
                    node.linked(port)
                        .iter()
                        .filter_map(|c| tree.position_of(c))
                        .map(|c| (port, c as u32)),
                );
            }
        }
        starts.push(links.len() as u32);
        Self { starts, links }
    }

    fn links(&self, node: usize) -> &[(Port, u32)] {
        &self.links[self.starts[node] as usize..self.starts[node + 1] as usize]
    }
}

impl<'a> Ctx<'a> {
    fn new(tree: &'a Tree, catalog: &'a Catalog, assets: &'a dyn Assets) -> Self {
        Self {
            tree,
            catalog,
            assets,
            out: Vec::new(),
            subtrees: HashMap::new(),
            graph: Graph::new(tree, catalog),
            kinds: tree.nodes().iter().map(|n| catalog.kind(&n.kind)).collect(),
            marks: std::cell::RefCell::new(vec![false; tree.len()]),
        }
    }
}

/// Validates a tree against the catalog, resolving SubTree assets through `assets`.
/// Diagnostics come in a stable order: per node in file order, then tree-wide findings.
pub fn validate(tree: &Tree, catalog: &Catalog, assets: &dyn Assets) -> Vec<Diagnostic> {
    let mut cx = Ctx::new(tree, catalog, assets);
    cx.kinds_and_fields();
    cx.roots();
    cx.links();
    let cyclic = cx.cycles();
    cx.counts();
    cx.interrupt_ids();
    cx.observers();
    cx.placed_fields();
    cx.subtree_assets();
    cx.subtree_parameters();
    cx.keys();
    if !cyclic {
        cx.reachability();
        cx.context();
        if let Some(root) = cx.the_root() {
            let reach = cx.reach(root);
            cx.actions(root, &reach);
            cx.size(root, &reach);
        }
    }
    cx.out
}

impl<'a> Ctx<'a> {
    fn push(&mut self, rule: Rule, node: &NodeId, message: impl Into<String>) {
        self.out
            .push(Diagnostic::new(rule, vec![node.clone()], message));
    }

    fn category(&self, node: &Node) -> Option<Category> {
        self.spec(node).map(|k| k.category)
    }

    /// A text field's value on `node`: set, else its kind's default ("" when neither).
    fn text(&self, node: &'a Node, field: &str) -> &'a str {
        KindSpec::value_on(node, field, || self.spec(node))
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// What runs below `node` (nothing when it was not walked).
    fn reach_of(&self, reach: &Reaches, node: &Node) -> Reach {
        self.tree
            .position_of_node(node)
            .and_then(|i| reach.0[i])
            .unwrap_or_default()
    }

    /// The node's kind, if the catalog has it.
    fn spec(&self, node: &Node) -> Option<&'a KindSpec> {
        match self.tree.position_of_node(node) {
            Some(i) => self.kinds[i],
            None => self.catalog.kind(&node.kind),
        }
    }

    fn kinds_and_fields(&mut self) {
        for node in self.tree.nodes() {
            let kind = match self.spec(node) {
                Some(kind) if !kind.is_placeholder() => kind,
                _ => {
                    let hint = self
                        .catalog
                        .near_kind(&node.kind)
                        .map(|k| format!("; did you mean '{k}'?"))
                        .unwrap_or_default();
                    self.push(
                        Rule::UnknownKind,
                        &node.id,
                        format!(
                            "unknown node kind '{}': no built-in kind, and no node library of the project without an error, defines it (its fields and links are kept){hint}",
                            super::names::clipped(&node.kind)
                        ),
                    );
                    continue;
                }
            };
            if kind.category.is_branch()
                && kind.runs_as.is_none()
                && matches!(kind.origin, crate::model::Origin::Library { .. })
            {
                self.push(
                    Rule::CannotRun,
                    &node.id,
                    format!(
                        "{} is a node library's {} without \"runs_as\": the game can run it, Arbor's simulation cannot",
                        node.kind,
                        kind.category.label().to_lowercase()
                    ),
                );
            }
            for (name, value) in &node.fields {
                match kind.field(name) {
                    // A SubTree's other fields bind its asset's parameters: see
                    // `subtree_parameters`.
                    None if kind.category == Category::SubTree => {}
                    None => {
                        let hint = suggestion(name, kind.fields.iter().map(|f| f.name.as_str()));
                        self.push(
                            Rule::FieldUnknown,
                            &node.id,
                            format!("{} has no field '{name}'{hint}", node.kind),
                        );
                    }
                    Some(spec) => {
                        if let (Value::Key(k), Some(why)) = (value, kind.key_bound_refused(name)) {
                            self.push(
                                Rule::FieldType,
                                &node.id,
                                format!("field '{name}' is bound to key '{k}', but {why}"),
                            );
                        } else if let Err((rule, msg)) = spec.check(value) {
                            self.push(rule, &node.id, msg);
                        }
                    }
                }
            }
            for spec in kind.fields.iter().filter(|f| f.required) {
                let missing = match node.fields.get(&spec.name) {
                    None => true,
                    Some(Value::Text(s)) => s.trim().is_empty(),
                    Some(_) => false,
                };
                if missing {
                    let (rule, msg) = match kind.category {
                        Category::Interrupt => (
                            Rule::InterruptIdMissing,
                            "this Interrupt has no interrupt_id, so no trigger can start it"
                                .to_owned(),
                        ),
                        Category::SubTree => (
                            Rule::SubtreeMissing,
                            "this SubTree names no asset file".to_owned(),
                        ),
                        _ => (
                            Rule::FieldType,
                            format!("field '{}' must be set", spec.name),
                        ),
                    };
                    self.push(rule, &node.id, msg);
                }
            }
        }
    }

    fn roots(&mut self) {
        let roots: Vec<NodeId> = self
            .tree
            .nodes()
            .iter()
            .filter(|n| self.category(n) == Some(Category::Root))
            .map(|n| n.id.clone())
            .collect();
        match roots.len() {
            1 => {}
            0 => self.out.push(Diagnostic::new(
                Rule::RootCount,
                vec![],
                "the tree has no Root node; add one and link the top branch to it",
            )),
            k => {
                let msg = format!(
                    "the tree has {k} Root nodes ({}); keep exactly one",
                    join(&roots)
                );
                self.out.push(Diagnostic::new(Rule::RootCount, roots, msg));
            }
        }
    }

    fn links(&mut self) {
        let tree: &'a Tree = self.tree;
        // Each node's first parent, by position.
        let mut parent_of: Vec<Option<&NodeId>> = vec![None; tree.len()];
        for parent in tree.nodes() {
            let pcat = self.category(parent);
            for (port, ids) in &parent.inputs {
                if let Some(pc) = pcat
                    && port.is_single()
                    && ids.len() > 1
                    && pc.inputs().contains(port)
                {
                    self.out.push(Diagnostic::new(
                        Rule::SlotOverflow,
                        std::iter::once(parent.id.clone())
                            .chain(ids.iter().cloned())
                            .collect(),
                        format!(
                            "its '{port}' input takes one link but has {}: {}",
                            ids.len(),
                            join(ids)
                        ),
                    ));
                }
                for child_id in ids {
                    let Some(at) = tree.position_of(child_id) else {
                        continue;
                    };
                    let child = &tree.nodes()[at];
                    if let Some(first) = parent_of[at].replace(&parent.id) {
                        let msg = if first == &parent.id {
                            format!("it is linked twice into {}", parent.id)
                        } else {
                            format!(
                                "it has two parents, {first} and {}; a node has one parent",
                                parent.id
                            )
                        };
                        self.out.push(Diagnostic::new(
                            Rule::TwoParents,
                            vec![child_id.clone(), parent.id.clone()],
                            msg,
                        ));
                    }
                    let (Some(pc), Some(cc)) = (pcat, self.category(child)) else {
                        continue;
                    };
                    if let Err((rule, why)) = link_rule(pc, port.to_owned(), cc) {
                        let (main, other) = if rule == Rule::LinkIntoLeaf
                            || rule == Rule::LinkType && !pc.inputs().contains(port)
                        {
                            (&parent.id, child_id)
                        } else {
                            (child_id, &parent.id)
                        };
                        self.out.push(Diagnostic::new(
                            rule,
                            vec![main.clone(), other.clone()],
                            format!(
                                "link {child_id} → {}.{port} is not allowed: {why}",
                                parent.id
                            ),
                        ));
                    }
                }
            }
        }
    }

    /// Reports the cycles of links; whether there is any.
    fn cycles(&mut self) -> bool {
        let (cycles, total) = find_cycles(self.tree);
        for cycle in &cycles {
            let named = cycle.len().min(CYCLE_NODES_NAMED);
            let mut path: Vec<&str> = cycle[..named].iter().map(NodeId::as_str).collect();
            if named < cycle.len() {
                path.push("…");
            }
            let first = cycle.first().map_or("", NodeId::as_str);
            let size = if named < cycle.len() {
                format!(" ({} nodes)", cycle.len())
            } else {
                String::new()
            };
            self.out.push(Diagnostic::new(
                Rule::Cycle,
                cycle.clone(),
                format!("links form a cycle: {} → {first}{size}", path.join(" → ")),
            ));
        }
        if total > cycles.len() {
            let first = cycles.first().and_then(|c| c.first()).cloned();
            self.out.push(Diagnostic::new(
                Rule::Cycle,
                first.into_iter().collect(),
                format!("and {} more cycles of links", total - cycles.len()),
            ));
        }
        total > 0
    }

    fn counts(&mut self) {
        for node in self.tree.nodes() {
            let Some(cat) = self.category(node) else {
                continue;
            };
            if cat == Category::Composite
                && let Some((least, most)) = self.catalog.runs(&node.kind).children
            {
                let kids = node.linked(Port::Children);
                let takes = match most - least {
                    0 => format!("{} takes {least} children", node.kind),
                    1 => format!("{} takes {least} or {most} children", node.kind),
                    _ => format!("{} takes {least} to {most} children", node.kind),
                };
                if kids.len() < least {
                    let what = format!("{takes}; it has {}", kids.len());
                    self.push(Rule::MissingChild, &node.id, what);
                } else if kids.len() > most {
                    self.out.push(Diagnostic::new(
                        Rule::SlotOverflow,
                        std::iter::once(node.id.clone())
                            .chain(kids.iter().cloned())
                            .collect(),
                        format!("{takes} but has {}: {}", kids.len(), join(kids)),
                    ));
                }
                continue;
            }
            let what = match cat {
                Category::Composite if node.linked(Port::Children).is_empty() => {
                    "this composite has no children; link at least one"
                }
                Category::Decorator if node.linked(Port::Child).is_empty() => {
                    "this decorator has no child; link one"
                }
                Category::Root if node.linked(Port::Child).is_empty() => {
                    "Root has no child; link the top branch or action to it"
                }
                Category::Interrupt if node.linked(Port::Child).is_empty() => {
                    "this Interrupt has no child to run"
                }
                _ => continue,
            };
            self.push(Rule::MissingChild, &node.id, what);
        }
    }

    fn interrupt_ids(&mut self) {
        let mut seen: HashMap<String, &NodeId> = HashMap::new();
        for node in self.tree.nodes() {
            if self.category(node) != Some(Category::Interrupt) {
                continue;
            }
            let id = self.text(node, "interrupt_id").trim().to_owned();
            if id.is_empty() {
                continue;
            }
            if let Some(first) = seen.get(&id) {
                let first = (*first).clone();
                self.out.push(Diagnostic::new(
                    Rule::InterruptIdDuplicate,
                    vec![node.id.clone(), first.clone()],
                    format!("interrupt_id '{id}' is already used by {first}; each Interrupt needs its own"),
                ));
            } else {
                seen.insert(id, &node.id);
            }
        }
    }

    /// Fields that mean something only where a node is linked: an action's `interval` says
    /// how often it runs as a service (SEMANTICS.md §3.2.1), and set on one that no
    /// composite's `services` input holds, it does nothing; a node's hooks run as it is
    /// entered as a child (§3.7), which a guard or a service never is.
    fn placed_fields(&mut self) {
        let tree = self.tree;
        let mut linked_in = vec![None; tree.len()];
        for p in 0..tree.len() {
            for &(port, c) in self.graph.links(p) {
                linked_in[c as usize] = Some(port);
            }
        }
        for (i, node) in tree.nodes().iter().enumerate() {
            if self.category(node) == Some(Category::Leaf)
                && node.fields.contains_key("interval")
                && !KindSpec::field_applies("interval", linked_in[i])
            {
                self.push(
                    Rule::IntervalUnused,
                    &node.id,
                    "'interval' says how often a service runs, but this action is not a service (on a composite's services input), so it is never used".to_owned(),
                );
            }
            let role = match linked_in[i] {
                Some(Port::Conditions) => "a guard, which is checked and never entered",
                Some(Port::Services) => {
                    "a service, which runs beside its composite and is never entered as a child"
                }
                _ => continue,
            };
            if let Some(hook) = crate::model::HOOKS
                .iter()
                .find(|h| node.fields.contains_key(**h))
            {
                self.push(
                    Rule::HookPlace,
                    &node.id,
                    format!(
                        "{hook} runs as a node is entered as a child or finishes, but this node is {role}; link it as a child, or clear its hooks"
                    ),
                );
            }
        }
    }

    /// A Condition with `aborts_lower` must be a guard of a branch whose parent is a plain
    /// Selector: only there is there a lower priority to take over from.
    fn observers(&mut self) {
        let tree = self.tree;
        let mut parent: Vec<Option<(usize, Port)>> = vec![None; tree.len()];
        for p in 0..tree.len() {
            for &(port, c) in self.graph.links(p) {
                parent[c as usize].get_or_insert((p, port));
            }
        }
        for (i, node) in tree.nodes().iter().enumerate() {
            if self.category(node) != Some(Category::Condition)
                || !self.catalog.flag(node, "aborts_lower")
            {
                continue;
            }
            let why = match parent[i] {
                Some((branch, Port::Conditions)) => {
                    match parent[branch] {
                        Some((up, _)) if self.catalog.runs(&tree.nodes()[up].kind).by_priority => {
                            continue;
                        }
                        Some((up, _)) => format!(
                            "aborts_lower: its branch {} is a child of {}, a {}; only a Selector's child can take over from the children after it",
                            tree.nodes()[branch].id,
                            tree.nodes()[up].id,
                            tree.nodes()[up].kind
                        ),
                        None => format!(
                            "aborts_lower: its branch {} has no parent; only a Selector's child can take over from the children after it",
                            tree.nodes()[branch].id
                        ),
                    }
                }
                _ => "aborts_lower: this condition is not a guard; only a guard (on a branch's conditions input) watches and takes over".to_owned(),
            };
            self.push(Rule::AbortsLowerPlace, &node.id, why);
        }
    }

    fn subtree_assets(&mut self) {
        for node in self.tree.nodes() {
            if self.category(node) != Some(Category::SubTree) {
                continue;
            }
            let Some(Value::Text(asset)) = node.fields.get("asset") else {
                continue;
            };
            if asset.trim().is_empty() {
                continue;
            }
            let status = self.assets.resolve(asset);
            match &status {
                AssetStatus::Ok(_) => {}
                AssetStatus::Missing(why) => self.push(
                    Rule::SubtreeMissing,
                    &node.id,
                    format!("subtree asset '{asset}': {why}"),
                ),
                AssetStatus::Invalid(why) => self.push(
                    Rule::SubtreeInvalid,
                    &node.id,
                    format!("subtree asset '{asset}' is not a valid tree: {why}"),
                ),
                AssetStatus::Cycle(chain) => self.push(
                    Rule::SubtreeCycle,
                    &node.id,
                    format!("subtree asset '{asset}' leads back to this tree: {chain}"),
                ),
            }
            self.subtrees.insert(&node.id, status);
        }
    }

    fn the_root(&self) -> Option<&'a Node> {
        let mut roots = self
            .tree
            .nodes()
            .iter()
            .filter(|n| self.category(n) == Some(Category::Root));
        let root = roots.next()?;
        roots.next().is_none().then_some(root)
    }

    /// Nodes in tree order from `start`: pre-order, ports in display order, slot order.
    /// Each node comes once, however many parents link it (an error reported apart), so
    /// the walk is linear in the links.
    fn preorder(&self, start: &'a Node, out: &mut Vec<&'a Node>, ports: &[Port]) {
        let tree: &'a Tree = self.tree;
        out.extend(
            self.preorder_at(start, ports)
                .into_iter()
                .map(|i| &tree.nodes()[i as usize]),
        );
    }

    /// [`Ctx::preorder`] as positions.
    fn preorder_at(&self, start: &Node, ports: &[Port]) -> Vec<u32> {
        let mut out = Vec::new();
        let Some(start) = self.tree.position_of_node(start) else {
            return out;
        };
        let mut seen = self.marks.borrow_mut();
        let mut stack = vec![start as u32];
        while let Some(i) = stack.pop() {
            if std::mem::replace(&mut seen[i as usize], true) {
                continue;
            }
            out.push(i);
            let at = stack.len();
            stack.extend(
                self.graph
                    .links(i as usize)
                    .iter()
                    .filter(|(port, _)| ports.contains(port))
                    .map(|&(_, c)| c),
            );
            stack[at..].reverse();
        }
        for &i in &out {
            seen[i as usize] = false;
        }
        out
    }

    fn reachability(&mut self) {
        let tree: &'a Tree = self.tree;
        let mut reached = vec![false; tree.len()];
        if let Some(root) = self.the_root() {
            for i in self.preorder_at(root, &Port::ALL) {
                reached[i as usize] = true;
            }
        }
        if tree
            .nodes()
            .iter()
            .all(|n| self.category(n) != Some(Category::Root))
        {
            return; // root-count already says it all
        }
        let mut has_parent = vec![false; tree.len()];
        for (_, _, c) in tree.nodes().iter().flat_map(Node::links) {
            if let Some(i) = tree.position_of(c) {
                has_parent[i] = true;
            }
        }
        for (at, top) in tree.nodes().iter().enumerate() {
            if reached[at] || has_parent[at] || self.category(top) == Some(Category::Root) {
                continue;
            }
            let ids: Vec<NodeId> = self
                .preorder_at(top, &Port::ALL)
                .into_iter()
                .filter(|&i| !reached[i as usize])
                .map(|i| tree.nodes()[i as usize].id.clone())
                .collect();
            let msg = if ids.len() == 1 {
                format!(
                    "'{}' is not connected to Root, so it never runs",
                    top.label()
                )
            } else if ids.len() == 2 {
                format!(
                    "'{}' and the node below it are not connected to Root, so they never run",
                    top.label()
                )
            } else {
                format!(
                    "'{}' and the {} nodes below it are not connected to Root, so they never run",
                    top.label(),
                    ids.len() - 1
                )
            };
            self.out.push(Diagnostic::new(Rule::Unreachable, ids, msg));
        }
    }

    fn reads_of(&self, node: &'a Node) -> Vec<String> {
        let mut keys = Vec::new();
        match self.category(node) {
            Some(Category::Leaf | Category::Condition) => {
                let k = self.text(node, "in_context");
                if !k.is_empty() {
                    keys.push(k.to_owned());
                }
                keys.extend(
                    keys::bound_fields(node, self.catalog.kind(&node.kind))
                        .filter(|(.., d)| d.reads())
                        .map(|(_, k, ..)| k.to_owned()),
                );
                // A kind's own context-key fields (HasContext's `key`) name keys it looks
                // at without fetching them: a missing one does not reset the tree.
                let own = self.catalog.kind(&node.kind).into_iter().flat_map(|k| {
                    k.own_fields()
                        .filter(|f| matches!(f.ty, FieldType::ContextKey(_)))
                });
                for f in own {
                    let k = self.text(node, &f.name);
                    if !k.is_empty() {
                        keys.push(k.to_owned());
                    }
                }
                keys.extend(self.script_reads(node).map(|(_, k)| k.to_owned()));
            }
            Some(Category::SubTree) => {
                keys.extend(
                    self.subtree_uses(node)
                        .into_iter()
                        .filter(|u| u.role == keys::Role::Reads)
                        .map(|u| u.key.to_owned()),
                );
                keys.extend(self.script_reads(node).map(|(_, k)| k.to_owned()));
            }
            Some(Category::Composite | Category::Decorator) => {
                keys.extend(
                    keys::bound_fields(node, self.catalog.kind(&node.kind))
                        .filter(|(.., d)| d.reads())
                        .map(|(_, k, ..)| k.to_owned()),
                );
                // Its own context-key fields (SkipUnlessUpdated's `entry`).
                if let Some(kind) = self.catalog.kind(&node.kind) {
                    keys.extend(keys::key_fields(node, kind).map(|(_, k)| k.to_owned()));
                }
                keys.extend(self.script_reads(node).map(|(_, k)| k.to_owned()));
            }
            _ => {}
        }
        keys
    }

    /// The keys `node`'s script fields read (a ScriptCondition's or Script's `code`, a
    /// Precondition's `if`, its hooks such as `_failureIf`), each with its field; none
    /// from a script that does not parse (a `field-type` error says so).
    fn script_reads(
        &self,
        node: &'a Node,
    ) -> impl Iterator<Item = (&'a str, &'a str)> + use<'a, '_> {
        self.script_keys(node, keys::Role::Reads)
    }

    /// The keys `node`'s script fields read or assign, as `role` says, each with its
    /// field, in the order the script names them.
    fn script_keys(
        &self,
        node: &'a Node,
        role: keys::Role,
    ) -> impl Iterator<Item = (&'a str, &'a str)> + use<'a, '_> {
        let scripts = self.catalog.kind(&node.kind).into_iter().flat_map(|k| {
            k.fields
                .iter()
                .filter(|f| f.ty.is_script())
                .map(|f| f.name.as_str())
        });
        scripts.flat_map(move |field| {
            let code = self.text(node, field);
            let names = match super::script::parse(code) {
                Ok(script) => {
                    let picked: Vec<String> = match role {
                        keys::Role::Reads => script.reads(),
                        keys::Role::Writes => script.writes(),
                    }
                    .into_iter()
                    .map(str::to_owned)
                    .collect();
                    // A name the project declares an enum is read as its number, not a key.
                    let enum_read =
                        |n: &str| role == keys::Role::Reads && self.catalog.enum_value(n).is_some();
                    super::script::names(code)
                        .unwrap_or_default()
                        .into_iter()
                        .filter(|n| picked.iter().any(|p| p == n) && !enum_read(n))
                        .collect()
                }
                Err(_) => Vec::new(),
            };
            names.into_iter().map(move |k| (field, k))
        })
    }

    fn writes_of(&self, node: &'a Node) -> Vec<String> {
        match self.category(node) {
            Some(Category::Leaf | Category::Interrupt) => {
                let k = self.text(node, "out_context");
                let own = (!k.is_empty()).then(|| k.to_owned());
                own.into_iter()
                    .chain(self.script_writes(node))
                    .chain(self.bound_writes(node))
                    .collect()
            }
            Some(Category::SubTree) => self
                .subtree_uses(node)
                .into_iter()
                .filter(|u| u.role == keys::Role::Writes)
                .map(|u| u.key.to_owned())
                .chain(self.script_writes(node))
                .collect(),
            Some(Category::Condition | Category::Composite | Category::Decorator) => self
                .bound_writes(node)
                .chain(self.script_writes(node))
                .collect(),
            _ => vec![],
        }
    }

    /// The keys `node`'s script fields assign (a Script's `code`, its hooks such as
    /// `_onSuccess`).
    fn script_writes(&self, node: &'a Node) -> impl Iterator<Item = String> + use<'a, '_> {
        self.script_keys(node, keys::Role::Writes)
            .map(|(_, k)| k.to_owned())
    }

    /// The keys `node`'s fields bound to keys that its code writes (a BehaviorTree.CPP
    /// output port's).
    fn bound_writes(&self, node: &'a Node) -> impl Iterator<Item = String> + use<'a, '_> {
        keys::bound_fields(node, self.catalog.kind(&node.kind))
            .filter(|(.., d)| d.writes())
            .map(|(_, k, ..)| k.to_owned())
    }

    /// Every node's use of every key, in file order (SEMANTICS.md §3.5).
    fn key_uses(&self) -> Vec<keys::Use<'_>> {
        use keys::{Role, Use};
        let mut uses = Vec::new();
        for (i, node) in self.tree.nodes().iter().enumerate() {
            if self.category(node) == Some(Category::SubTree) {
                uses.extend(self.subtree_uses(node));
            }
            let mut add = |key: &'a str, role, field, types| {
                if !key.is_empty() {
                    uses.push(Use {
                        node: &node.id,
                        key,
                        role,
                        field,
                        types,
                    });
                }
            };
            // (A SubTree's parameters are above; of its fields, its hooks' count below.)
            if let Some(kind) = self.kinds[i] {
                // Its key fields (a leaf's `in_context`, `out_context`, its kind's own;
                // a branch's own, as SkipUnlessUpdated's `entry`).
                for (f, key) in keys::key_fields(node, kind) {
                    let FieldType::ContextKey(types) = f.ty else {
                        continue;
                    };
                    let role = if f.name == "out_context" {
                        Role::Writes
                    } else {
                        Role::Reads
                    };
                    add(key, role, &f.name, types);
                }
                for (field, key, types, direction) in keys::bound_fields(node, Some(kind)) {
                    if direction.reads() {
                        add(key, Role::Reads, field, types);
                    }
                    if direction.writes() {
                        add(key, Role::Writes, field, types);
                    }
                }
                for (field, key) in self.script_reads(node) {
                    add(key, Role::Reads, field, KeyTypes::SCRIPT);
                }
                for (field, key) in self.script_keys(node, Role::Writes) {
                    add(key, Role::Writes, field, KeyTypes::SCRIPT);
                }
            }
        }
        uses
    }

    /// What SubTree node `node` reads and writes of its caller's keys (SEMANTICS.md §3.5):
    /// each parameter bound to a caller's key, as its direction says; with the node
    /// sharing its keys, every key its asset uses that is not bound otherwise.
    fn subtree_uses<'s>(&'s self, node: &'s Node) -> Vec<keys::Use<'s>> {
        use keys::{Role, Use};
        let Some(AssetStatus::Ok(s)) = self.subtrees.get(&node.id) else {
            return Vec::new();
        };
        let declared = s.keys.as_deref();
        let shares = shares_keys(node, self.tree);
        if declared.is_none() {
            return Self::open_subtree_uses(node, s, shares);
        }
        let by_name: HashMap<&str, &KeyDecl> = declared
            .unwrap_or_default()
            .iter()
            .map(|d| (d.name.as_str(), d))
            .collect();
        let decl = |k: &str| by_name.get(k).copied();
        let mut uses = Vec::new();
        let mut add = |inner: &'s str, role: Role| {
            let d = decl(inner);
            if let Binding::Caller(key) = binding(inner, d, &node.fields, shares) {
                let (field, types) = match d.filter(|d| d.parameter.is_some()) {
                    Some(d) => (d.name.as_str(), d.ty.set()),
                    None => ("asset", d.map_or(KeyTypes::ANY, |d| d.ty.set())),
                };
                uses.push(Use {
                    node: &node.id,
                    key,
                    role,
                    field,
                    types,
                });
            }
        };
        for p in declared.unwrap_or_default().iter() {
            match p.parameter {
                Some(dir) if dir.passes_in() && dir.passes_out() => {
                    add(&p.name, Role::Reads);
                    add(&p.name, Role::Writes);
                }
                Some(dir) if dir.passes_in() => add(&p.name, Role::Reads),
                Some(_) => add(&p.name, Role::Writes),
                None => {}
            }
        }
        if shares {
            let param = |k: &str| decl(k).is_some_and(|d| d.parameter.is_some());
            for k in s.reads.iter().filter(|k| !param(k)) {
                add(k, Role::Reads);
            }
            for k in s.writes.iter().filter(|k| !param(k)) {
                add(k, Role::Writes);
            }
        }
        uses
    }

    /// [`Ctx::subtree_uses`] of a SubTree node whose asset `s` declares no keys: each key
    /// it binds to a caller's key, as the asset reads or writes it; sharing, every other
    /// key the asset uses.
    fn open_subtree_uses<'s>(
        node: &'s Node,
        s: &'s AssetSummary,
        shares: bool,
    ) -> Vec<keys::Use<'s>> {
        use keys::{Role, Use};
        let mut uses = Vec::new();
        let mut bound: HashSet<&str> = HashSet::default();
        for (inner, value) in open_bindings(node) {
            bound.insert(inner);
            if let Value::Key(key) = value {
                for (set, role) in [(&s.reads, Role::Reads), (&s.writes, Role::Writes)] {
                    if set.contains(inner) {
                        uses.push(Use {
                            node: &node.id,
                            key,
                            role,
                            field: inner,
                            types: KeyTypes::ANY,
                        });
                    }
                }
            }
        }
        if shares {
            for (set, role) in [(&s.reads, Role::Reads), (&s.writes, Role::Writes)] {
                for k in set.iter().filter(|k| !bound.contains(k.as_str())) {
                    uses.push(Use {
                        node: &node.id,
                        key: k,
                        role,
                        field: "asset",
                        types: KeyTypes::ANY,
                    });
                }
            }
        }
        uses
    }

    /// Each SubTree node's bindings against its asset's parameters (`subtree-parameter`).
    fn subtree_parameters(&mut self) {
        let mut found = Vec::new();
        for node in self.tree.nodes() {
            if self.category(node) != Some(Category::SubTree) {
                continue;
            }
            let Some(AssetStatus::Ok(s)) = self.subtrees.get(&node.id) else {
                continue;
            };
            // An asset that declares no keys takes any binding, as BehaviorTree.CPP's port
            // remapping does (SEMANTICS.md §3.5).
            let Some(declared) = s.keys.as_deref() else {
                continue;
            };
            let params = || declared.iter().filter(|d| d.parameter.is_some());
            let by_name: HashMap<&str, &KeyDecl> = params().map(|d| (d.name.as_str(), d)).collect();
            let shares = shares_keys(node, self.tree);
            let mut say = |message: String| {
                found.push(Diagnostic::new(
                    Rule::SubtreeParameter,
                    vec![node.id.clone()],
                    message,
                ));
            };
            for (name, value) in open_bindings(node) {
                let Some(p) = by_name.get(name) else {
                    let hint = suggestion(name, params().map(|p| p.name.as_str()));
                    say(format!(
                        "it binds '{name}', which its asset does not declare as a parameter{hint}"
                    ));
                    continue;
                };
                match value {
                    Value::Key(_) => {}
                    v if p.parameter.is_some_and(|d| d.passes_out()) => say(format!(
                        "it binds the {} parameter '{name}' to {v}; bind it to a key of this tree, {{\"key\": NAME}}, which the SubTree writes",
                        p.parameter.map_or("", |d| d.name())
                    )),
                    v if !p.ty.takes_default(v) && p.ty != KeyType::Any => say(format!(
                        "parameter '{name}' is of type {}, but it is bound to {v}, {}",
                        p.ty,
                        v.type_name()
                    )),
                    _ => {}
                }
            }
            for p in params().filter(|p| p.required()) {
                if !node.fields.contains_key(&p.name) && !shares {
                    say(format!(
                        "it leaves the {} parameter '{}' ({}) unbound; bind it to a value or to a key of this tree",
                        p.parameter.map_or("", |d| d.name()),
                        p.name,
                        p.ty
                    ));
                }
            }
        }
        self.out.extend(found);
    }

    /// The blackboard's rules: see [`keys::check`].
    fn keys(&mut self) {
        let found = keys::check(
            self.tree.keys.as_deref(),
            self.catalog.shared_keys(),
            &self.key_uses(),
        );
        self.out.extend(found);
    }

    /// The keys that hold a value from the start of a run: those declared with a default,
    /// and the parameters the SubTree node running the tree passes in.
    fn seeded(&self) -> HashSet<String> {
        let tree = self.tree.keys.as_deref().unwrap_or_default();
        self.catalog
            .shared_keys()
            .iter()
            .chain(tree)
            .filter(|k| k.given())
            .map(|k| k.name.clone())
            .collect()
    }

    fn context(&mut self) {
        let Some(root) = self.the_root() else { return };
        let mut main = Vec::new();
        self.preorder(
            root,
            &mut main,
            &[
                Port::Services,
                Port::Child,
                Port::Children,
                Port::Conditions,
            ],
        );
        let mut interrupts = Vec::new();
        for i in root
            .linked(Port::Interrupts)
            .iter()
            .filter_map(|id| self.tree.node(id))
        {
            self.preorder(
                i,
                &mut interrupts,
                &[
                    Port::Services,
                    Port::Child,
                    Port::Children,
                    Port::Conditions,
                ],
            );
        }
        // Trigger payloads can arrive at any time, so Interrupt out_context keys count as
        // written from the start, as do the keys seeded with their defaults.
        let mut written: HashSet<String> = interrupts
            .iter()
            .filter(|n| self.category(n) == Some(Category::Interrupt))
            .flat_map(|n| self.writes_of(n))
            .collect();
        written.extend(self.seeded());
        // A key nothing writes anywhere is `key-unwritten`'s, said once for all its readers.
        let written_anywhere: HashSet<String> = self
            .tree
            .nodes()
            .iter()
            .flat_map(|n| self.writes_of(n))
            .chain(written.iter().cloned())
            .collect();
        // Each node's parent (by position), for the reads below an observer.
        let mut parent: Vec<Option<(u32, Port)>> = vec![None; self.tree.len()];
        for p in 0..self.tree.len() {
            for &(port, c) in self.graph.links(p) {
                parent[c as usize].get_or_insert((p as u32, port));
            }
        }
        let mut read_anywhere: HashSet<String> = HashSet::new();
        // Every key read or written, for the limit of keys a program holds.
        let mut used: HashSet<String> = HashSet::new();
        let mut too_many = false;
        let mut found = Vec::new();
        for node in main.iter().chain(interrupts.iter()) {
            for key in self.reads_of(node) {
                // Only a key fetched by `in_context` resets the tree when it is missing.
                let fetched = self.category(node) != Some(Category::SubTree)
                    && self.text(node, "in_context") == key;
                if !written.contains(&key)
                    && written_anywhere.contains(&key)
                    && fetched
                    && !self.watched_read(&parent, node, &key)
                {
                    found.push(Diagnostic::new(
                        Rule::ContextUnwritten,
                        vec![node.id.clone()],
                        format!("it reads context key '{key}', but no earlier action, Interrupt or trigger writes it; the tree will reset here"),
                    ));
                }
                read_anywhere.insert(key.clone());
                used.insert(key);
            }
            let writes = self.writes_of(node);
            used.extend(writes.iter().cloned());
            written.extend(writes);
            if used.len() > MAX_CONTEXT_KEYS && !too_many {
                too_many = true;
                found.push(Diagnostic::new(
                    Rule::TooLarge,
                    vec![node.id.clone()],
                    format!(
                        "with this node the tree uses more than {MAX_CONTEXT_KEYS} distinct context keys (SubTrees included); a tree uses at most {MAX_CONTEXT_KEYS}"
                    ),
                ));
            }
        }
        // What the tree passes out to the SubTree node running it is read there.
        let passed_out: HashSet<&str> = self
            .tree
            .keys
            .iter()
            .flatten()
            .filter(|k| k.parameter.is_some_and(|p| p.passes_out()))
            .map(|k| k.name.as_str())
            .collect();
        for node in main.iter().chain(interrupts.iter()) {
            if self.category(node) == Some(Category::SubTree) {
                continue;
            }
            for key in self.writes_of(node) {
                if !read_anywhere.contains(&key) && !passed_out.contains(key.as_str()) {
                    found.push(Diagnostic::new(
                        Rule::ContextUnread,
                        vec![node.id.clone()],
                        format!("it writes context key '{key}', but nothing reads it"),
                    ));
                }
            }
        }
        self.out.extend(found);
    }

    /// Whether reading `key` at `node` cannot reset the tree (SEMANTICS.md §3.3.2): `node`
    /// is an observer, whose missing key only makes it not hold, or lies below a branch
    /// with an observer reading the same key, which runs only while the key is there (a
    /// guard of that branch, only when it comes after the observer: guards are checked in
    /// order).
    fn watched_read(&self, parent: &[Option<(u32, Port)>], node: &Node, key: &str) -> bool {
        let tree = self.tree;
        let observes = |g: &Node| {
            self.category(g) == Some(Category::Condition) && self.catalog.flag(g, "aborts_lower")
        };
        if observes(node) {
            return true;
        }
        let mut below = node;
        let mut at = tree.position_of(&node.id).and_then(|p| parent[p]);
        let mut steps = 0;
        while let Some((p, port)) = at {
            let b = &tree.nodes()[p as usize];
            let guards = b.linked(Port::Conditions);
            // A guard of `b` is covered by the observers before it; anything below `b`'s
            // children by all of them.
            let before = if port == Port::Conditions {
                guards.iter().position(|g| *g == below.id).unwrap_or(0)
            } else {
                guards.len()
            };
            let guarded = guards[..before]
                .iter()
                .filter_map(|g| tree.node(g))
                .any(|g| observes(g) && self.text(g, "in_context") == key);
            if guarded {
                return true;
            }
            below = b;
            at = parent[p as usize];
            steps += 1;
            if steps > tree.len() {
                return false;
            }
        }
        false
    }

    /// How much a program of the tree from `top` holds: its nodes (each SubTree with its
    /// asset's), and its depth below `top` (a SubTree's asset starts one level below
    /// it), with the first node found past [`MAX_DEPTH`] levels below `top`. One walk;
    /// each node counted once.
    fn extent(&self, top: &'a Node) -> (u64, usize, Option<&'a Node>) {
        let tree: &'a Tree = self.tree;
        let (mut nodes, mut deepest, mut too_deep) = (0u64, 0usize, None);
        let Some(start) = tree.position_of_node(top) else {
            return (nodes, deepest, too_deep);
        };
        let mut seen = self.marks.borrow_mut();
        let mut visited = Vec::new();
        let mut stack = vec![(start as u32, 0usize)];
        while let Some((i, depth)) = stack.pop() {
            if std::mem::replace(&mut seen[i as usize], true) {
                continue;
            }
            visited.push(i);
            let node = &tree.nodes()[i as usize];
            nodes = nodes.saturating_add(1);
            let mut reach = depth;
            if let Some(AssetStatus::Ok(sub)) = self.asset_of(node) {
                nodes = nodes.saturating_add(sub.nodes);
                reach = depth.saturating_add(1).saturating_add(sub.depth);
            }
            deepest = deepest.max(reach);
            if reach > MAX_DEPTH && too_deep.is_none() {
                too_deep = Some(node);
            }
            stack.extend(
                self.graph
                    .links(i as usize)
                    .iter()
                    .map(|&(_, c)| (c, depth + 1)),
            );
        }
        for i in visited {
            seen[i as usize] = false;
        }
        (nodes, deepest, too_deep)
    }

    /// What a SubTree node's asset is (`None` for other nodes).
    fn asset_of(&self, node: &Node) -> Option<&AssetStatus> {
        if self.category(node) == Some(Category::SubTree) {
            self.subtrees.get(&node.id)
        } else {
            None
        }
    }

    /// Limits of what a program holds, refused here so that validate reports all that
    /// compiling would refuse.
    fn size(&mut self, root: &'a Node, reach: &Reaches) {
        let (nodes, depth, too_deep) = self.extent(root);
        if let Some(node) = too_deep {
            self.push(
                Rule::TooLarge,
                &node.id,
                format!(
                    "it is nested {depth} levels below Root (SubTrees included); a tree runs at most {MAX_DEPTH} levels deep"
                ),
            );
        }
        if nodes > MAX_NODES {
            self.push(
                Rule::TooLarge,
                &root.id,
                format!(
                    "the tree runs {nodes} nodes with its SubTrees included; a tree runs at most {MAX_NODES}"
                ),
            );
        }
        let leaves_of = |id: &NodeId| {
            self.tree
                .node(id)
                .map_or(0, |n| self.reach_of(reach, n).leaves)
        };
        let active = root
            .linked(Port::Child)
            .iter()
            .chain(root.linked(Port::Interrupts))
            .fold(0u64, |sum, id| sum.saturating_add(leaves_of(id)));
        if active > MAX_ACTIVE_LEAVES {
            self.push(
                Rule::TooLarge,
                &root.id,
                format!(
                    "{active} action leaves can run at once (under Parallels, Interrupts included); a tree runs at most {MAX_ACTIVE_LEAVES} at once"
                ),
            );
        }
    }

    /// What runs below each node from `top` down (Interrupts too), through child and
    /// children links, found in one walk: each node's answer from its children's.
    fn reach(&self, top: &'a Node) -> Reaches {
        let tree: &'a Tree = self.tree;
        let order = self.preorder_at(top, &[Port::Child, Port::Children, Port::Interrupts]);
        let mut found = vec![None; tree.len()];
        for &i in order.iter().rev() {
            let n = &tree.nodes()[i as usize];
            let own = match self.category(n) {
                Some(Category::Leaf) => Reach {
                    action: true,
                    leaves: 1,
                },
                // An asset that cannot be read may well have actions: only a valid one
                // without any is said to have none.
                Some(Category::SubTree) => match self.asset_of(n) {
                    Some(AssetStatus::Ok(s)) => Reach {
                        action: s.has_action,
                        leaves: s.active,
                    },
                    _ => Reach {
                        action: true,
                        leaves: 0,
                    },
                },
                // A kind nobody defines may be an action, or run some: nothing is said of
                // it (it is an error of its own).
                None => Reach {
                    action: true,
                    leaves: 0,
                },
                _ => Reach::default(),
            };
            let parallel = self.catalog.runs(&n.kind).all_at_once;
            let below = self
                .graph
                .links(i as usize)
                .iter()
                .filter(|(port, _)| matches!(port, Port::Child | Port::Children))
                .filter_map(|&(_, c)| found[c as usize])
                .fold(Reach::default(), |acc: Reach, c: Reach| Reach {
                    action: acc.action || c.action,
                    leaves: if parallel {
                        acc.leaves.saturating_add(c.leaves)
                    } else {
                        acc.leaves.max(c.leaves)
                    },
                });
            found[i as usize] = Some(Reach {
                action: own.action || below.action,
                leaves: own.leaves.max(below.leaves),
            });
        }
        Reaches(found)
    }

    fn actions(&mut self, root: &'a Node, reach: &Reaches) {
        if root.linked(Port::Child).is_empty() {
            return;
        }
        let mut found = Vec::new();
        let has_action = |node: &Node| self.reach_of(reach, node).action;
        if !has_action(root) {
            found.push(Diagnostic::new(
                Rule::NoAction,
                vec![root.id.clone()],
                "the tree has no action, so it only checks conditions and stalls every step",
            ));
        }
        let mut main = Vec::new();
        self.preorder(
            root,
            &mut main,
            &[Port::Child, Port::Children, Port::Interrupts],
        );
        for node in main {
            let forever = match self.catalog.runs(&node.kind).repeats {
                Repeats::ForEver => true,
                Repeats::WhenZero(count) => {
                    // A library's kind counts as the kind it runs as, with its defaults.
                    let runs_as = self.catalog.as_built_in(node);
                    let node = runs_as.as_ref().unwrap_or(node);
                    // A count bound to a key may be 0.
                    match self.catalog.field_value(node, count) {
                        Some(Value::Key(_)) => true,
                        v => v.and_then(Value::as_i64) == Some(0),
                    }
                }
                Repeats::No => false,
            };
            if forever && !node.linked(Port::Child).is_empty() && !has_action(node) {
                found.push(Diagnostic::new(
                    Rule::NoAction,
                    vec![node.id.clone()],
                    format!(
                        "this {} loops for ever over a subtree with no action, so it stalls",
                        node.kind
                    ),
                ));
            }
        }
        self.out.extend(found);
    }
}

/// Summarises a valid tree for trees that include it as a SubTree.
pub fn summarize(tree: &Tree, catalog: &Catalog, assets: &dyn Assets) -> AssetSummary {
    let mut cx = Ctx::new(tree, catalog, assets);
    cx.subtree_assets();
    let mut summary = AssetSummary {
        keys: tree.keys.clone(),
        ..AssetSummary::default()
    };
    let Some(root) = cx.the_root() else {
        return summary;
    };
    let mut main = Vec::new();
    cx.preorder(
        root,
        &mut main,
        &[
            Port::Services,
            Port::Child,
            Port::Children,
            Port::Conditions,
        ],
    );
    for node in &main {
        summary.reads.extend(cx.reads_of(node));
        summary.writes.extend(cx.writes_of(node));
    }
    let reach = cx.reach(root);
    summary.has_action = cx.reach_of(&reach, root).action;
    // Where the asset is included, its Root's child stands in for the SubTree.
    if let Some(top) = root
        .linked(Port::Child)
        .first()
        .and_then(|id| tree.node(id))
    {
        let (nodes, depth, _) = cx.extent(top);
        summary.nodes = nodes;
        summary.depth = depth;
        summary.active = cx.reach_of(&reach, top).leaves;
    }
    summary
}

fn join(ids: &[NodeId]) -> String {
    ids.iter()
        .map(NodeId::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

/// ", did you mean 'X'?" for the closest candidate within a small edit distance.
/// Only candidates whose length is within the distance allowed are compared, so a name
/// megabytes long costs one pass over it.
fn suggestion<'s>(word: &str, candidates: impl Iterator<Item = &'s str>) -> String {
    nearest(word, candidates)
        .map(|c| format!("; did you mean '{c}'?"))
        .unwrap_or_default()
}

/// The candidate nearest to `word` (fewest edits, case aside), when it is within a slip of
/// it: 2 edits, or a quarter of the candidate's bytes when that is more. Only
/// candidates of about the word's length are compared, each without allocating.
pub(crate) fn nearest<'s>(
    word: &str,
    candidates: impl Iterator<Item = &'s str>,
) -> Option<&'s str> {
    let allowed = |length: usize| 2.max(length / 4);
    let word: Vec<char> = word.chars().flat_map(char::to_lowercase).collect();
    let mut other: Vec<char> = Vec::new();
    let mut rows = (Vec::new(), Vec::new());
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let limit = allowed(c.len());
        if word.len().abs_diff(c.chars().count()) > limit {
            continue;
        }
        other.clear();
        other.extend(c.chars().flat_map(char::to_lowercase));
        let limit = best.map_or(limit, |(d, _)| limit.min(d.saturating_sub(1)));
        if let Some(d) = edit_distance_within(&word, &other, limit, &mut rows) {
            best = Some((d, c));
            if d == 0 {
                break;
            }
        }
    }
    best.map(|(_, c)| c)
}

/// The number of edits (insertions, deletions, substitutions) that turn `a` into `b`, when
/// it is at most `limit`; `rows` are the two rows of the table, kept between calls.
fn edit_distance_within(
    a: &[char],
    b: &[char],
    limit: usize,
    rows: &mut (Vec<usize>, Vec<usize>),
) -> Option<usize> {
    let (prev, cur) = rows;
    prev.clear();
    prev.extend(0..=b.len());
    for (i, ca) in a.iter().enumerate() {
        cur.clear();
        cur.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        // No cell of a row is ever below the least of the row before.
        if cur.iter().min().is_some_and(|&m| m > limit) {
            return None;
        }
        std::mem::swap(prev, cur);
    }
    prev.last().copied().filter(|&d| d <= limit)
}
