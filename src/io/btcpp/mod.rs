//! BehaviorTree.CPP's XML as a tree file (docs/BTCPP.md): one `<BehaviorTree>` of the file
//! read as an Arbor tree, and written back into the same file as it was, changed only
//! where the tree changed.
//!
//! Reading keeps the whole document ([`Source`]); each node remembers its element as read
//! (attributes Arbor does not model, comments and their places among the children), and
//! writing rebuilds the tree's `<BehaviorTree>` from the tree and those elements, leaving
//! everything else of the file (other trees, models, includes, comments) as it was.

mod kinds;
mod models;
mod recorded;
mod subtree;
mod types;
mod v3;
mod xml;

use std::collections::{HashMap, HashSet};

pub use models::{is_models_file, library_name, library_of, models_library};
pub use recorded::{RecordedIds, StatusChanges, recorded_ids};
pub use types::{field_type, fit};
pub use xml::{Document, Element, Item, XmlError, escape};

use crate::model::{Node, NodeId, Port, Tree};

/// A BehaviorTree.CPP file read as an Arbor tree, with what writing it back needs.
#[derive(Clone, Debug)]
pub struct XmlTree {
    /// The tree.
    pub tree: Tree,
    /// The file as read, for writing it back.
    pub source: Source,
}

/// What a BehaviorTree.CPP file held besides what its tree says: the document, which of
/// its `<BehaviorTree>`s the tree is, and each node's element as read.
#[derive(Clone, Debug, PartialEq)]
pub struct Source {
    doc: Document,
    /// The tree's `<BehaviorTree>`: its place among the root element's items.
    at: usize,
    originals: HashMap<NodeId, Original>,
    /// What reading changed in the file (a format 3 file read as format 4), to be said.
    notes: Vec<String>,
}

/// A node's element as read, without the elements of its children; each of its other
/// items (comments, text) with how many child elements came before it.
#[derive(Clone, Debug, PartialEq)]
struct Original {
    element: Element,
    places: Vec<usize>,
    kind: String,
}

/// Why a file cannot be read as a tree, or a tree written as one: the place (0 where
/// there is none) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XmlProblem {
    /// 1-based line (0: no place).
    pub line: u32,
    /// 1-based column (0: no place).
    pub column: u32,
    /// What is wrong.
    pub message: String,
}

impl XmlProblem {
    fn at(e: &Element, message: impl Into<String>) -> Self {
        Self {
            line: e.line,
            column: e.column,
            message: message.into(),
        }
    }

    fn nowhere(message: impl Into<String>) -> Self {
        Self {
            line: 0,
            column: 0,
            message: message.into(),
        }
    }
}

/// Whether `path` names a BehaviorTree.CPP file (by its extension, `.xml`).
pub fn is_xml(path: &std::path::Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("xml"))
}

/// Reads the text of a BehaviorTree.CPP file: the `<BehaviorTree>` its root's
/// `main_tree_to_execute` names, else its first.
pub fn read(text: &str) -> Result<XmlTree, XmlProblem> {
    read_named(text, None)
}

/// What a BehaviorTree.CPP file holds, as SubTrees find their trees: the IDs of its
/// `<BehaviorTree>`s, which of them [`read`] reads, and its `<include>`s.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outline {
    /// Each `<BehaviorTree>`'s ID, in order.
    pub trees: Vec<String>,
    /// The ID of the tree [`read`] reads, when it has one.
    pub main: Option<String>,
    /// Each `<include path="…">`: the path as written, and the element's line and column.
    pub includes: Vec<(String, u32, u32)>,
}

/// The [`Outline`] of the text of a BehaviorTree.CPP file.
pub fn outline(text: &str) -> Result<Outline, XmlProblem> {
    outline_of(&parse_doc(text)?)
}

impl Source {
    /// The ID of the `<BehaviorTree>` the tree was read from, when it is not the one the
    /// file runs (`main_tree_to_execute`, else the first): a tree of the file a SubTree
    /// runs, opened on its own.
    pub fn tree_id(&self) -> Option<&str> {
        let Some(Item::Element(bt)) = self.doc.root.items.get(self.at) else {
            return None;
        };
        let id = bt.attr("ID")?;
        let runs = match self.doc.root.attr("main_tree_to_execute") {
            Some(main) => main == id,
            None => behavior_trees(&self.doc).next().map(|(at, _)| at) == Some(self.at),
        };
        (!runs).then_some(id)
    }

    /// What reading the file found, to be said to the user: for a BehaviorTree.CPP 3 file,
    /// that it is read (and will be saved) as format 4, and each change, by line; each
    /// script it keeps that is not in the language (docs/SCRIPTS.md).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The [`Outline`] of the file as read.
    pub fn outline(&self) -> Result<Outline, XmlProblem> {
        outline_of(&self.doc)
    }
}

fn outline_of(doc: &Document) -> Result<Outline, XmlProblem> {
    let trees: Vec<String> = behavior_trees(doc)
        .filter_map(|(_, e)| e.attr("ID").map(str::to_owned))
        .collect();
    // As `read_named` picks it: the first <BehaviorTree>, with an ID or without.
    let main = match doc.root.attr("main_tree_to_execute") {
        Some(id) => Some(id.to_owned()),
        None => behavior_trees(doc)
            .next()
            .and_then(|(_, e)| e.attr("ID"))
            .map(str::to_owned),
    };
    let mut includes = Vec::new();
    for e in doc.root.elements().filter(|e| e.name == "include") {
        if e.attr("ros_pkg").is_some() {
            return Err(XmlProblem::at(
                e,
                "<include ros_pkg=\"…\">: Arbor finds no ROS packages; include the file by its path",
            ));
        }
        let path = e
            .attr("path")
            .ok_or_else(|| XmlProblem::at(e, "<include> without a path includes nothing"))?;
        includes.push((path.to_owned(), e.line, e.column));
    }
    Ok(Outline {
        trees,
        main,
        includes,
    })
}

/// The text of a BehaviorTree.CPP file as a document, its root checked.
fn parse_doc(text: &str) -> Result<Document, XmlProblem> {
    let doc = Document::parse(text).map_err(|e| XmlProblem {
        line: e.line,
        column: e.column,
        message: e.message,
    })?;
    if doc.root.name != "root" {
        return Err(XmlProblem::at(
            &doc.root,
            format!(
                "the root element is <{}>; a BehaviorTree.CPP file's is <root>",
                doc.root.name
            ),
        ));
    }
    if let Some(v) = doc.root.attr("BTCPP_format")
        && v != "4"
        && v != "3"
    {
        return Err(XmlProblem::at(
            &doc.root,
            format!("BTCPP_format=\"{v}\": Arbor reads BehaviorTree.CPP's formats 3 and 4"),
        ));
    }
    Ok(doc)
}

/// The `<BehaviorTree>` elements of a document, each with its place among the root's items.
fn behavior_trees(doc: &Document) -> impl Iterator<Item = (usize, &Element)> {
    doc.root
        .items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| match item {
            Item::Element(e) if e.name == "BehaviorTree" => Some((i, e)),
            _ => None,
        })
}

/// A BehaviorTree.CPP file parsed, made format 4 (a format 3 file), its trees' IDs
/// checked: what reading any of its trees starts from.
pub struct Parsed {
    doc: Document,
    notes: Vec<String>,
}

/// Parses the text of a BehaviorTree.CPP file ([`Parsed`]).
pub fn parse(text: &str) -> Result<Parsed, XmlProblem> {
    let mut doc = parse_doc(text)?;
    let notes = v3::upgrade(&mut doc);
    for (_, e) in behavior_trees(&doc) {
        if let Some(id) = e.attr("ID")
            && kinds::is_builtin(id)
        {
            return Err(XmlProblem::at(
                e,
                format!(
                    "<BehaviorTree ID=\"{id}\">: a tree cannot take the name of BehaviorTree.CPP's own node {id}"
                ),
            ));
        }
    }
    Ok(Parsed { doc, notes })
}

impl Parsed {
    /// The `<BehaviorTree>` read for `tree` (`None`: the one the file runs), with its place
    /// among the root's items.
    fn pick(&self, tree: Option<&str>) -> Result<(usize, &Element), XmlProblem> {
        let doc = &self.doc;
        let main = doc.root.attr("main_tree_to_execute");
        let found = match tree.or(main) {
            Some(id) => behavior_trees(doc).find(|(_, e)| e.attr("ID") == Some(id)),
            None => behavior_trees(doc).next(),
        };
        found.ok_or_else(|| {
            XmlProblem::at(
                &doc.root,
                match (tree, main) {
                    (Some(id), _) => format!("the file has no <BehaviorTree ID=\"{id}\">"),
                    (None, Some(id)) => format!(
                        "main_tree_to_execute names '{id}', but no <BehaviorTree ID=\"{id}\"> is in the file"
                    ),
                    (None, None) => "the file has no <BehaviorTree>".to_owned(),
                },
            )
        })
    }

    /// The tree `tree` names (`None`: the one the file runs), without what writing it back
    /// needs (a SubTree's tree, run and validated but not edited).
    pub fn tree(&self, tree: Option<&str>) -> Result<Tree, XmlProblem> {
        let (_, bt) = self.pick(tree)?;
        Reader::default().tree(bt)
    }

    /// The [`Outline`] of the file.
    pub fn outline(&self) -> Result<Outline, XmlProblem> {
        outline_of(&self.doc)
    }
}

/// [`read`], or with `tree`, the `<BehaviorTree>` of that ID (a SubTree's).
pub fn read_named(text: &str, tree: Option<&str>) -> Result<XmlTree, XmlProblem> {
    let parsed = parse(text)?;
    let (at, bt) = parsed.pick(tree)?;
    let mut reader = Reader::default();
    let tree = reader.tree(bt)?;
    let notes = parsed.notes.clone();
    Ok(XmlTree {
        tree,
        source: Source {
            at,
            originals: reader.originals,
            doc: parsed.doc,
            notes,
        },
    })
}

/// The text of the BehaviorTree.CPP file `tree` is: written into `source`, the file it was
/// read from, or as a new file of one tree; with the file written as a source, its elements
/// known by the tree's node ids (so that the next write of the tree, edited or not, finds
/// each node's element again).
pub fn write(tree: &Tree, source: Option<&Source>) -> Result<(String, Source), XmlProblem> {
    if !tree.description.is_empty() {
        return Err(XmlProblem::nowhere(
            "the tree has a description, which a BehaviorTree.CPP file has no place for; clear it, or save the tree as an Arbor file (.json)",
        ));
    }
    if tree.keys.as_ref().is_some_and(|k| !k.is_empty()) {
        return Err(XmlProblem::nowhere(
            "the tree declares keys, and a BehaviorTree.CPP file has no place for declarations; undo them, or save the tree as an Arbor file (.json)",
        ));
    }
    let empty = HashMap::new();
    let originals = source.map_or(&empty, |s| &s.originals);
    let mut writer = Writer {
        tree,
        originals,
        made: HashMap::new(),
    };
    let root = tree
        .nodes()
        .iter()
        .find(|n| n.kind == "Root")
        .ok_or_else(|| XmlProblem::nowhere("the tree has no Root"))?;
    let mut bt = match originals.get(&root.id) {
        Some(o) => o.element.clone(),
        None => {
            let mut e = Element::new("BehaviorTree");
            e.set_attr("ID", "MainTree".into());
            e
        }
    };
    for port in [Port::Interrupts, Port::Conditions, Port::Services] {
        if !root.linked(port).is_empty() {
            return Err(XmlProblem::nowhere(format!(
                "Root's {} have no BehaviorTree.CPP form",
                port.name()
            )));
        }
    }
    let kids: Vec<Element> = root
        .linked(Port::Child)
        .iter()
        .map(|id| writer.element(id))
        .collect::<Result<_, _>>()?;
    bt.items = place(kids, originals.get(&root.id));
    let mut made = std::mem::take(&mut writer.made);
    made.insert(root.id.clone(), Original::of(&bt, "Root"));
    let at = source.map_or(0, |s| s.at);
    let doc = match source {
        Some(s) => {
            let mut doc = s.doc.clone();
            if let Some(slot) = doc.root.items.get_mut(s.at) {
                *slot = Item::Element(bt);
            }
            doc
        }
        None => {
            let mut root = Element::new("root");
            root.set_attr("BTCPP_format", "4".into());
            let id = bt.attr("ID").unwrap_or("MainTree").to_owned();
            root.set_attr("main_tree_to_execute", id);
            root.items.push(Item::Element(bt));
            Document {
                declaration: true,
                indent: "    ".into(),
                before: Vec::new(),
                root,
                after: Vec::new(),
            }
        }
    };
    let text = doc.write();
    Ok((
        text,
        Source {
            doc,
            at,
            originals: made,
            notes: Vec::new(),
        },
    ))
}

/// The elements of a node's children in order, with the node's other items as read put
/// back where they were among them (after as many children as before).
fn place(kids: Vec<Element>, original: Option<&Original>) -> Vec<Item> {
    let mut others = original
        .map(|o| {
            o.element
                .items
                .iter()
                .zip(&o.places)
                .map(|(item, &p)| (p, item.clone()))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .into_iter()
        .peekable();
    let mut items = Vec::new();
    for (i, kid) in kids.into_iter().enumerate() {
        while let Some((_, item)) = others.next_if(|(p, _)| *p <= i) {
            items.push(item);
        }
        items.push(Item::Element(kid));
    }
    items.extend(others.map(|(_, item)| item));
    items
}

impl Original {
    /// Element `e` of a node of `kind`, without its child elements.
    fn of(e: &Element, kind: &str) -> Self {
        let mut element = Element {
            name: e.name.clone(),
            attrs: e.attrs.clone(),
            items: Vec::new(),
            line: e.line,
            column: e.column,
        };
        let mut places = Vec::new();
        let mut before = 0;
        for item in &e.items {
            if matches!(item, Item::Element(_)) {
                before += 1;
            } else {
                places.push(before);
                element.items.push(item.clone());
            }
        }
        Self {
            element,
            places,
            kind: kind.to_owned(),
        }
    }
}

/// Reads a `<BehaviorTree>`'s elements into nodes.
#[derive(Default)]
struct Reader {
    nodes: Vec<Node>,
    originals: HashMap<NodeId, Original>,
    taken: HashSet<NodeId>,
    /// The next suffix to try for each id's words (so that many nodes of one name take
    /// ids in linear time).
    next: HashMap<String, usize>,
}

impl Reader {
    /// The tree of `<BehaviorTree>` element `bt`: Root over its one node.
    fn tree(&mut self, bt: &Element) -> Result<Tree, XmlProblem> {
        let root_id = NodeId::new("root");
        self.taken.insert(root_id.clone());
        let root = Node::new(root_id.clone(), "Root");
        let children: Vec<&Element> = bt.elements().collect();
        if children.len() > 1 {
            return Err(XmlProblem::at(
                bt,
                format!(
                    "<BehaviorTree ID=\"{}\"> holds {} nodes; BehaviorTree.CPP takes one (put them under a Sequence)",
                    bt.attr("ID").unwrap_or_default(),
                    children.len()
                ),
            ));
        }
        self.remember(&root_id, bt, "Root");
        self.nodes.push(root);
        if let Some(&child) = children.first() {
            let id = self.node(child)?;
            self.nodes[0].inputs.insert(Port::Child, vec![id]);
        }
        Tree::from_nodes(std::mem::take(&mut self.nodes))
            .map_err(|e| XmlProblem::at(bt, e.to_string()))
    }

    /// Node element `top` and everything below it, as nodes (walked with a stack, so a
    /// deep file cannot overflow it): the id of the node it is.
    fn node(&mut self, top: &Element) -> Result<NodeId, XmlProblem> {
        // Each node being read: its place in `nodes`, its children's elements, and the ids
        // of those read so far.
        let mut stack: Vec<(usize, Vec<&Element>, Vec<NodeId>)> = Vec::new();
        let mut next = Some(top);
        loop {
            if let Some(e) = next.take() {
                let (node, kids) = self.read_one(e)?;
                self.nodes.push(node);
                stack.push((self.nodes.len() - 1, kids, Vec::new()));
            }
            let Some((at, kids, done)) = stack.last_mut() else {
                return Err(XmlProblem::at(top, "nothing was read"));
            };
            if done.len() < kids.len() {
                next = Some(kids[done.len()]);
                continue;
            }
            let (at, kids, done) = (*at, kids.len(), std::mem::take(done));
            stack.pop();
            let id = self.nodes[at].id.clone();
            if !done.is_empty() {
                let port = self.port_of(at, kids);
                self.nodes[at].inputs.insert(port, done);
            }
            match stack.last_mut() {
                Some((_, _, parent_done)) => parent_done.push(id),
                None => return Ok(id),
            }
        }
    }

    /// How node `at`'s `count` children link: by its kind where BehaviorTree.CPP's name
    /// says it, else as many children (a composite) or one (a decorator).
    fn port_of(&self, at: usize, count: usize) -> Port {
        let node = &self.nodes[at];
        let read_as = self
            .originals
            .get(&node.id)
            .map_or(node.kind.as_str(), |o| o.element.name.as_str());
        let children = match read_as {
            "Control" => Some(true),
            "Decorator" => Some(false),
            name => kinds::takes_children(name),
        };
        if children.unwrap_or(count > 1) {
            Port::Children
        } else {
            Port::Child
        }
    }

    /// One node element as a node (its children not linked yet), and its children's
    /// elements.
    fn read_one<'e>(&mut self, e: &'e Element) -> Result<(Node, Vec<&'e Element>), XmlProblem> {
        // The explicit form, <Action ID="Kind">, or the compact one, <Kind>.
        let explicit = is_explicit(&e.name);
        let name = if explicit {
            e.attr("ID").ok_or_else(|| {
                XmlProblem::at(e, format!("<{}> without an ID names no kind", e.name))
            })?
        } else {
            e.name.as_str()
        };
        let title = e.attr("name").unwrap_or_default().to_owned();
        let id = self.fresh(if title.is_empty() { name } else { &title });
        let kids: Vec<&Element> = e.elements().collect();
        let mut node = match kinds::by_btcpp(name) {
            _ if e.name == "SubTree" => subtree::read(e, id.clone())?,
            _ if let Some(f) = kinds::fixed_form(name) => {
                let (port, only) = f.port;
                if let Some(v) = e.attr(port)
                    && v.trim() != only
                {
                    return Err(XmlProblem::at(
                        e,
                        format!(
                            "{name}'s {port}=\"{v}\": Arbor reads {name} with {port} {only} only"
                        ),
                    ));
                }
                let mut node = Node::new(id.clone(), f.arbor);
                for (field, value) in f.fields {
                    node.fields.insert(
                        (*field).to_owned(),
                        crate::model::Value::Text((*value).into()),
                    );
                }
                node
            }
            Some(m) => {
                let mut node = Node::new(id.clone(), m.arbor);
                for p in m.ports {
                    if let Some(text) = e.attr(p.name) {
                        let v =
                            kinds::to_field(p.conv, p.name, text, kids.len()).map_err(|why| {
                                XmlProblem::at(e, format!("{name}'s {}: {why}", p.name))
                            })?;
                        node.fields.insert(p.field.to_owned(), v);
                    } else if let Some(v) = p.conv.absent() {
                        node.fields.insert(p.field.to_owned(), v);
                    }
                }
                node
            }
            None => {
                // A kind Arbor does not know: its ports as fields, as written.
                let mut node = Node::new(id.clone(), kinds::own_kind(name));
                for (k, v) in &e.attrs {
                    if is_port(k) && !(explicit && k == "ID") {
                        node.fields.insert(k.clone(), kinds::raw(k, v));
                    }
                }
                node
            }
        };
        // Its hooks, on any node (SEMANTICS.md §3.7).
        for hook in crate::model::HOOKS {
            if let Some(code) = e.attr(hook) {
                node.fields
                    .insert(hook.to_owned(), crate::model::Value::Text(code.to_owned()));
            }
        }
        node.title = title;
        let kind = node.kind.clone();
        self.remember(&id, e, &kind);
        Ok((node, kids))
    }

    /// Keeps element `e` of node `id` as read, without its child elements.
    fn remember(&mut self, id: &NodeId, e: &Element, kind: &str) {
        self.originals.insert(id.clone(), Original::of(e, kind));
    }

    /// An id from `name`'s words that no node has yet.
    fn fresh(&mut self, name: &str) -> NodeId {
        let base = crate::model::id_words(name);
        let mut id = NodeId::new(base.clone());
        while self.taken.contains(&id) {
            let n = self.next.entry(base.clone()).or_insert(2);
            id = NodeId::new(format!("{base}_{n}"));
            *n += 1;
        }
        self.taken.insert(id.clone());
        id
    }
}

/// Whether an element of this name is BehaviorTree.CPP's explicit form of a node,
/// `<Action ID="Kind">`, rather than its compact one, `<Kind>`.
fn is_explicit(element: &str) -> bool {
    matches!(element, "Action" | "Condition" | "Control" | "Decorator")
}

/// Whether attribute `name` is a port (BehaviorTree.CPP's own attributes, `name`, `ID`
/// and those that start with `_`, are not).
fn is_port(name: &str) -> bool {
    name != "name" && !name.starts_with('_')
}

/// Writes a tree's nodes back as elements.
struct Writer<'a> {
    tree: &'a Tree,
    originals: &'a HashMap<NodeId, Original>,
    /// Each node's element as written, without its child elements.
    made: HashMap<NodeId, Original>,
}

impl Writer<'_> {
    /// Node `top` and everything below it as an element (walked with a stack).
    fn element(&mut self, top: &NodeId) -> Result<Element, XmlProblem> {
        let mut stack: Vec<(Element, Vec<NodeId>, Vec<Element>, &NodeId)> = Vec::new();
        let mut next = Some(top);
        loop {
            if let Some(id) = next.take() {
                let node = self.tree.node(id).ok_or_else(|| {
                    XmlProblem::nowhere(format!("[{id}] is linked but not in the tree"))
                })?;
                let own = self.own(node)?;
                let kids = [Port::Children, Port::Child]
                    .into_iter()
                    .flat_map(|p| node.linked(p).iter().cloned())
                    .collect();
                stack.push((own, kids, Vec::new(), id));
            }
            let Some((_, kids, done, _)) = stack.last_mut() else {
                return Err(XmlProblem::nowhere(format!("[{top}] wrote nothing")));
            };
            if done.len() < kids.len() {
                // (The id lives in the tree, which outlives the walk.)
                let id = self
                    .tree
                    .node(&kids[done.len()])
                    .map(|n| &n.id)
                    .ok_or_else(|| XmlProblem::nowhere("a link names no node"))?;
                next = Some(id);
                continue;
            }
            let Some((mut own, _, done, id)) = stack.pop() else {
                return Err(XmlProblem::nowhere("nothing to write"));
            };
            own.items = place(done, self.originals.get(id));
            let kind = self.tree.node(id).map_or("", |n| n.kind.as_str());
            self.made.insert(id.clone(), Original::of(&own, kind));
            match stack.last_mut() {
                Some((_, _, parent_done, _)) => parent_done.push(own),
                None => return Ok(own),
            }
        }
    }

    /// Node `node`'s own element, without its children: the element as read with what
    /// the node now says written into it, or a new one.
    fn own(&self, node: &Node) -> Result<Element, XmlProblem> {
        let problem = |why: String| XmlProblem::nowhere(format!("[{}] {why}", node.id));
        for port in [Port::Conditions, Port::Services] {
            if !node.linked(port).is_empty() {
                return Err(problem(format!(
                    "its {} have no BehaviorTree.CPP form",
                    port.name()
                )));
            }
        }
        if !node.comment.is_empty() {
            return Err(problem(
                "its comment has no BehaviorTree.CPP form; clear it, or save the tree as an Arbor file (.json)".into(),
            ));
        }
        let original = self.originals.get(&node.id).filter(|o| o.kind == node.kind);
        // A node read as a fixed form (ParallelAll) is written as one while its fields say
        // what that form does.
        let form = original
            .and_then(|o| match is_explicit(&o.element.name) {
                true => o.element.attr("ID"),
                false => Some(o.element.name.as_str()),
            })
            .and_then(kinds::fixed_form)
            .filter(|f| f.arbor == node.kind);
        if let Some(f) = form {
            for (field, value) in f.fields {
                let v = node.fields.get(*field);
                if v.and_then(crate::model::Value::as_str) != Some(*value) {
                    return Err(problem(format!(
                        "its {field} is not {value}, which {} has no form for (it was read from one)",
                        f.btcpp
                    )));
                }
            }
        }
        let mapped = kinds::by_arbor(&node.kind).filter(|_| form.is_none());
        if original.is_none() && kinds::arbor_only(&node.kind) {
            return Err(problem(format!(
                "BehaviorTree.CPP has no {}: it is Arbor's own kind, which a BehaviorTree.CPP file cannot name (a game's node of that name is written from a node library's kind)",
                node.kind
            )));
        }
        for (kind, field, fixed) in kinds::FIXED {
            if node.kind == *kind
                && let Some(v) = node.fields.get(*field)
                && v != fixed
            {
                return Err(problem(format!(
                    "its {field} {v} has no BehaviorTree.CPP form (BehaviorTree.CPP's node behaves as {fixed})"
                )));
            }
        }
        let mut e = match (original, mapped) {
            (Some(o), _) => {
                let mut e = o.element.clone();
                e.items.clear();
                e
            }
            (None, _) if node.kind == "SubTree" => Element::new("SubTree"),
            (None, Some(m)) => Element::new(m.btcpp),
            (None, None) => Element::new(kinds::own_name(&node.kind)),
        };
        if node.title.is_empty() {
            e.remove_attr("name");
        } else {
            e.set_attr("name", node.title.clone());
        }
        match mapped {
            // Its ports are as read (checked when read).
            _ if form.is_some() => {}
            _ if node.kind == "SubTree" => {
                subtree::write(node, self.tree, &mut e).map_err(problem)?
            }
            Some(m) => {
                let kids = node.linked(Port::Children).len() + node.linked(Port::Child).len();
                for p in m.ports {
                    // A port whose absence says something (RunOnce's `then_skip`) is
                    // written when the field, set or at its Arbor default, says otherwise.
                    let arbor_default = || {
                        p.conv.absent()?;
                        kinds::BUILT_IN
                            .kind(&node.kind)?
                            .field(p.field)?
                            .default
                            .as_ref()
                    };
                    let Some(value) = node.fields.get(p.field).or_else(arbor_default) else {
                        e.remove_attr(p.name);
                        continue;
                    };
                    // A port as written stays as written while it says the same.
                    let same = match e.attr(p.name) {
                        Some(t) => kinds::to_field(p.conv, p.name, t, kids).ok(),
                        None => p.conv.absent(),
                    }
                    .is_some_and(|v| v == *value);
                    if !same {
                        let text = kinds::to_port(p.conv, value)
                            .map_err(|why| problem(format!("{}: {why}", p.field)))?;
                        e.set_attr(p.name, text);
                    }
                }
            }
            None => {
                let explicit = is_explicit(&e.name);
                e.attrs.retain(|(k, _)| {
                    !is_port(k) || (explicit && k == "ID") || node.fields.contains_key(k)
                });
                for (k, v) in node.fields.iter().filter(|(k, _)| is_port(k)) {
                    // As written while it says the same (`{@goal}` and `1.50` stay so).
                    if e.attr(k)
                        .is_none_or(|t| kinds::raw(k, t) != *v && !types::says(t, v))
                    {
                        e.set_attr(k, kinds::plain(v));
                    }
                }
                // A node made in Arbor: the defaults BehaviorTree.CPP needs as ports. (One
                // read keeps the attributes the file gave it.)
                let defaults = kinds::own_defaults(&node.kind).filter(|_| original.is_none());
                for (k, v) in defaults {
                    if !node.fields.contains_key(k) {
                        e.set_attr(k, kinds::plain(v));
                    }
                }
            }
        }
        for hook in crate::model::HOOKS {
            match node.fields.get(hook).map(kinds::plain) {
                Some(code) if e.attr(hook) != Some(code.as_str()) => e.set_attr(hook, code),
                Some(_) => {}
                None => e.remove_attr(hook),
            }
        }
        Ok(e)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
