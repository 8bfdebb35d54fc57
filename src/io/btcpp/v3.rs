//! A BehaviorTree.CPP 3 file (`BTCPP_format="3"`) read as the format 4 document it
//! becomes (docs/BTCPP.md, "Format 3"), with a note for each change, as BehaviorTree.CPP's
//! own converter from format 3 changes it.

use super::{Document, Element, Item};

/// Makes a format 3 document format 4, in place: what changed, one note per change, in
/// the order of the file's lines. Nothing for a document of another format.
pub(super) fn upgrade(doc: &mut Document) -> Vec<String> {
    if doc.root.attr("BTCPP_format") != Some("3") {
        return Vec::new();
    }
    doc.root.set_attr("BTCPP_format", "4".to_owned());
    let mut notes: Vec<(u32, String)> = Vec::new();
    let mut stack: Vec<&mut Element> = vec![&mut doc.root];
    while let Some(e) = stack.pop() {
        convert(e, &mut notes);
        for item in &mut e.items {
            if let Item::Element(child) = item {
                stack.push(child);
            }
        }
    }
    notes.sort_by_key(|(line, _)| *line);
    std::iter::once(
        "a BehaviorTree.CPP 3 file (BTCPP_format=\"3\"): read as format 4, and saved so".to_owned(),
    )
    .chain(
        notes
            .into_iter()
            .map(|(line, note)| format!("line {line}: {note}")),
    )
    .collect()
}

/// One element of a format 3 file as format 4 writes it.
fn convert(e: &mut Element, notes: &mut Vec<(u32, String)>) {
    let line = e.line;
    let mut say = |note: String| notes.push((line, note));
    if e.name == "SequenceStar" {
        e.name = "SequenceWithMemory".to_owned();
        say("<SequenceStar> is <SequenceWithMemory>".to_owned());
    } else if e.name == "Control" && e.attr("ID") == Some("SequenceStar") {
        e.set_attr("ID", "SequenceWithMemory".to_owned());
        say("<Control ID=\"SequenceStar\"> is <Control ID=\"SequenceWithMemory\">".to_owned());
    } else if e.name == "SubTree" {
        let id = e.attr("ID").unwrap_or_default().to_owned();
        let mut remapped = Vec::new();
        for (k, v) in &mut e.attrs {
            if k != "ID" && k != "name" && !k.starts_with('_') {
                *v = format!("{{{v}}}");
                remapped.push(k.clone());
            }
        }
        if !remapped.is_empty() {
            say(format!(
                "<SubTree ID=\"{id}\">'s ports {} name keys of the caller, written {{key}}",
                remapped.join(", ")
            ));
        }
        if let Some(shared) = e.attr("__shared_blackboard").map(str::to_owned) {
            e.remove_attr("__shared_blackboard");
            let on = matches!(
                shared.to_ascii_lowercase().as_str(),
                "yes" | "true" | "t" | "1"
            );
            if on {
                e.set_attr("_autoremap", "1".to_owned());
            }
            say(format!(
                "<SubTree ID=\"{id}\">'s __shared_blackboard=\"{shared}\" is {}",
                if on { "_autoremap=\"1\"" } else { "dropped" }
            ));
        }
    } else if e.name == "SubTreePlus" {
        e.name = "SubTree".to_owned();
        let autoremap = e.attr("__autoremap").map(str::to_owned);
        if let Some(v) = &autoremap {
            e.remove_attr("__autoremap");
            e.set_attr("_autoremap", v.clone());
        }
        say(format!(
            "<SubTreePlus> is <SubTree>{}",
            if autoremap.is_some() {
                ", its __autoremap _autoremap"
            } else {
                ""
            }
        ));
    }
    for k in crate::model::HOOKS {
        if e.attr(k).is_some() {
            say(format!(
                "<{}>'s {k} was a port in format 3; format 4 reads it as a script",
                e.name
            ));
        }
    }
}
