//! BehaviorTree.CPP's `<SubTree ID="…">` as Arbor's SubTree (docs/BTCPP.md, "SubTrees"):
//! the tree it runs is the asset `#ID`, its ports are bindings of the asset's keys, and
//! `_autoremap` is `autoremap`.

use super::kinds::{plain, raw};

use super::{Element, XmlProblem, is_port};
use crate::model::{Node, NodeId, Tree, Value, open_bindings, shares_keys};

/// The asset naming the `<BehaviorTree ID="ID">` of the same file, of a file it includes,
/// or of a file of its folder.
pub fn asset_of(id: &str) -> String {
    format!("#{id}")
}

/// The `<BehaviorTree>` ID an asset names (`#ID`, or `FILE.xml#ID`), if it names one.
fn tree_id(asset: &str) -> Option<&str> {
    crate::io::split_asset(asset).1
}

/// BehaviorTree.CPP's reading of a true/false attribute (`_autoremap`).
fn flag(text: &str) -> Option<bool> {
    match text.trim() {
        t if t.eq_ignore_ascii_case("true") || t == "1" => Some(true),
        t if t.eq_ignore_ascii_case("false") || t == "0" => Some(false),
        _ => None,
    }
}

/// Port `port`'s text as a binding: a key (as [`raw`] reads one), else the value, a number
/// where the text is one (BehaviorTree.CPP puts a whole number or a decimal into the
/// SubTree's blackboard as such), else the text.
fn binding(port: &str, text: &str) -> Value {
    match raw(port, text) {
        Value::Text(t) => {
            let n = t.trim();
            if let Ok(i) = n.parse::<i64>() {
                Value::Int(i)
            } else if let Some(x) = n.parse::<f64>().ok().filter(|x| x.is_finite()) {
                Value::Float(x)
            } else {
                Value::Text(t)
            }
        }
        key => key,
    }
}

/// SubTree element `e` as node `id`: its tree, whether it shares every key by name, and
/// each port as the binding of the asset's key of its name.
pub(super) fn read(e: &Element, id: NodeId) -> Result<Node, XmlProblem> {
    let tree = e
        .attr("ID")
        .filter(|t| !t.is_empty())
        .ok_or_else(|| XmlProblem::at(e, "<SubTree> without an ID names no tree"))?;
    if super::kinds::is_builtin(tree) {
        return Err(XmlProblem::at(
            e,
            format!(
                "<SubTree ID=\"{tree}\">: a tree cannot take the name of BehaviorTree.CPP's own node {tree}"
            ),
        ));
    }
    if e.elements().next().is_some() {
        return Err(XmlProblem::at(
            e,
            format!(
                "<SubTree ID=\"{tree}\"> holds nodes; a SubTree runs the tree its ID names and has no children"
            ),
        ));
    }
    let mut node = Node::new(id, "SubTree");
    node.fields
        .insert("asset".to_owned(), Value::Text(asset_of(tree)));
    let autoremap = match e.attr("_autoremap") {
        None => false,
        Some(t) => flag(t).ok_or_else(|| {
            XmlProblem::at(
                e,
                format!("<SubTree ID=\"{tree}\">'s _autoremap=\"{t}\" is neither true nor false"),
            )
        })?,
    };
    node.fields
        .insert("autoremap".to_owned(), Value::Bool(autoremap));
    for (k, v) in &e.attrs {
        if !is_port(k) || k == "ID" {
            continue;
        }
        if k == "asset" || k == "autoremap" {
            return Err(XmlProblem::at(
                e,
                format!(
                    "<SubTree ID=\"{tree}\">'s port '{k}' has the name of a setting of Arbor's SubTree, which cannot bind it"
                ),
            ));
        }
        node.fields.insert(k.clone(), binding(k, v));
    }
    Ok(node)
}

/// Writes SubTree node `node` of `tree` into element `e` (as read, or new): its ID, its
/// `_autoremap` where it shares its keys, its bindings as ports; each as written while it
/// says the same.
pub(super) fn write(node: &Node, tree: &Tree, e: &mut Element) -> Result<(), String> {
    let asset = node
        .fields
        .get("asset")
        .and_then(Value::as_str)
        .unwrap_or("");
    let id = tree_id(asset).ok_or_else(|| {
        format!(
            "its asset '{asset}' is a tree file; a BehaviorTree.CPP SubTree names a <BehaviorTree> of the file, '#ID'"
        )
    })?;
    e.set_attr("ID", id.to_owned());
    let shares = shares_keys(node, tree);
    let written = e.attr("_autoremap").and_then(flag);
    if written != Some(shares) {
        if shares {
            e.set_attr("_autoremap", "true".to_owned());
        } else {
            e.remove_attr("_autoremap");
        }
    }
    e.attrs
        .retain(|(k, _)| !is_port(k) || k == "ID" || open_bindings(node).any(|(n, _)| n == k));
    for (k, v) in open_bindings(node) {
        if e.attr(k).is_none_or(|t| binding(k, t) != *v) {
            e.set_attr(k, plain(v));
        }
    }
    Ok(())
}
