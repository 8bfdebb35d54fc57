//! The scripts BehaviorTree.CPP 4 reads on any node (the `_skipIf` … attributes). Those
//! Arbor runs are its hooks, read into fields and checked as fields are; those it keeps
//! without running (`_skipIf`, `_while`) are each read as BehaviorTree.CPP's script
//! language (docs/SCRIPTS.md) when the file is, with a note for each that is not in it.

use super::Element;
use crate::model::script::parse;

/// The attributes BehaviorTree.CPP 4 reads as scripts on any node (format 3 read them as
/// ports).
pub(super) const ON_ANY: [&str; 8] = [
    "_successIf",
    "_failureIf",
    "_skipIf",
    "_while",
    "_onSuccess",
    "_onFailure",
    "_onHalted",
    "_post",
];

/// A note for each script below `bt` (its elements, walked with a stack) that Arbor keeps
/// without running and that is not in the language: where, which, and why.
pub(super) fn unreadable(bt: &Element) -> Vec<String> {
    let mut notes = Vec::new();
    let mut stack = vec![bt];
    while let Some(e) = stack.pop() {
        for attr in ON_ANY.into_iter().filter(|a| !crate::model::is_hook(a)) {
            if let Some(code) = e.attr(attr)
                && let Err(why) = parse(code)
            {
                notes.push((
                    e.line,
                    format!(
                        "line {}: <{}>'s {attr} is not a script BehaviorTree.CPP's language reads ({why}); it is kept as written",
                        e.line, e.name
                    ),
                ));
            }
        }
        let at = stack.len();
        stack.extend(e.elements());
        stack[at..].reverse();
    }
    notes.sort_by_key(|(line, _)| *line);
    notes.into_iter().map(|(_, n)| n).collect()
}
