//! The nodes of a tree BehaviorTree.CPP wrote as it ran it (a FileLogger2 recording's,
//! docs/BTCPP.md "Recordings"): each node element carries its `_uid`, and each SubTree's
//! tree is written once per SubTree node, as a `<BehaviorTree>` whose `_fullpath` is that
//! node's.

use std::collections::{HashMap, HashSet};

use super::{Element, Reader, XmlProblem, behavior_trees, parse};

/// The trace ids of a recorded tree's nodes, by their BehaviorTree.CPP uid.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecordedIds {
    /// Each node's trace id (`SUBTREE/INNER` inside a SubTree), by uid.
    pub by_uid: HashMap<u16, String>,
    /// The uid of the node the tree runs first (its Root's child), if it has one.
    pub top: Option<u16>,
}

/// The trace ids of the nodes of the tree `text` runs (its first `<BehaviorTree>`, as a
/// recording writes it first), and of the trees its SubTrees run, by uid. A node without a
/// `_uid` (a file not written by BehaviorTree.CPP) has no entry.
pub fn recorded_ids(text: &str) -> Result<RecordedIds, XmlProblem> {
    let parsed = parse(text)?;
    let doc = &parsed.doc;
    let Some((_, main)) = behavior_trees(doc).next() else {
        return Err(XmlProblem::at(&doc.root, "the file has no <BehaviorTree>"));
    };
    let trees: HashMap<&str, &Element> = behavior_trees(doc)
        .filter_map(|(_, e)| Some((e.attr("_fullpath")?, e)))
        .collect();
    let mut ids = RecordedIds::default();
    let mut walked: HashSet<String> = HashSet::new();
    // Each tree to read, with the trace id of the SubTree node that runs it (and `/`).
    let mut todo: Vec<(&Element, String)> = vec![(main, String::new())];
    while let Some((bt, prefix)) = todo.pop() {
        let mut reader = Reader::default();
        let tree = reader.tree(bt)?;
        if prefix.is_empty() {
            let top = tree.nodes().first().and_then(|root| {
                let child = root.linked(crate::model::Port::Child).first()?;
                reader
                    .originals
                    .get(child)?
                    .element
                    .attr("_uid")?
                    .parse()
                    .ok()
            });
            ids.top = top;
        }
        for node in tree.nodes().iter().skip(1) {
            let Some(original) = reader.originals.get(&node.id) else {
                continue;
            };
            let trace = format!("{prefix}{}", node.id);
            if let Some(uid) = original.element.attr("_uid").and_then(|u| u.parse().ok()) {
                ids.by_uid.insert(uid, trace.clone());
            }
            if original.element.name == "SubTree"
                && let Some(path) = original.element.attr("_fullpath")
                && let Some(&inner) = trees.get(path)
                && walked.insert(path.to_owned())
            {
                todo.push((inner, format!("{trace}/")));
            }
        }
    }
    Ok(ids)
}
