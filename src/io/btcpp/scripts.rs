//! The scripts BehaviorTree.CPP 4 reads on any node (the `_skipIf` … attributes). Those
//! Arbor runs are its hooks, read into fields and checked as fields are; the one it keeps
//! without running (`_while`) is read as BehaviorTree.CPP's script language
//! (docs/SCRIPTS.md) when the file is, with a note where it is not in it.

use super::Element;
use crate::model::script::parse;

/// The script BehaviorTree.CPP 4 reads on any node that Arbor keeps without running.
const KEPT: [&str; 1] = ["_while"];

/// The attributes BehaviorTree.CPP 4 reads as scripts on any node (format 3 read them as
/// ports): the hooks and [`KEPT`].
pub(super) fn on_any() -> impl Iterator<Item = &'static str> {
    crate::model::HOOKS.into_iter().chain(KEPT)
}

/// A note for each script below `bt` (its elements, walked with a stack) that Arbor keeps
/// without running and that is not in the language: where, which, and why.
pub(super) fn unreadable(bt: &Element) -> Vec<String> {
    let mut notes = Vec::new();
    let mut stack = vec![bt];
    while let Some(e) = stack.pop() {
        for attr in KEPT {
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
