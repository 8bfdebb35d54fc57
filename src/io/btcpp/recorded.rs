//! The nodes of a tree BehaviorTree.CPP wrote as it ran it (a FileLogger2 recording's,
//! docs/BTCPP.md "Recordings"): each node element carries its `_uid`, and each SubTree's
//! tree is written once per SubTree node, as a `<BehaviorTree>` whose `_fullpath` is that
//! node's.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::{Element, Reader, XmlProblem, behavior_trees, parse};
use crate::io::TracedEvent;
use crate::runtime::{EventKindOf, Reason, Status};

/// The trace ids of a recorded tree's nodes, by their BehaviorTree.CPP uid.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecordedIds {
    /// Each node's trace id (`SUBTREE/INNER` inside a SubTree), by uid.
    pub by_uid: HashMap<u16, String>,
    /// The uid of the node the tree runs first (its Root's child), if it has one.
    pub top: Option<u16>,
    /// The ID of the tree the program runs (its first `<BehaviorTree>`).
    pub main: String,
    /// Each SubTree node's `_fullpath` (the name BehaviorTree.CPP gives its blackboard)
    /// and its trace id, in the order they are met.
    pub subtrees: Vec<(String, String)>,
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
    let mut ids = RecordedIds {
        main: main.attr("ID").unwrap_or_default().to_owned(),
        ..RecordedIds::default()
    };
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
                ids.subtrees.push((path.to_owned(), trace.clone()));
                todo.push((inner, format!("{trace}/")));
            }
        }
    }
    Ok(ids)
}

/// A BehaviorTree.CPP program's status changes turned into the trace events that say them,
/// one change after another (docs/BTCPP.md, "Recordings"): what a recording holds, and
/// what a Groot2Publisher reports of a program watched live.
///
/// Each node's last status is kept, so a change is read against it: idle → running is
/// `enter`; idle → success, failure or skipped is `enter` then `exit`; running → done is
/// `exit`; running → idle (halted) is `abort`; a reset and a change to the status a node
/// has already are nothing. The top node drives Root: it enters, restarts, exits and
/// `complete`s as the top node does.
#[derive(Clone, Debug)]
pub struct StatusChanges {
    ids: HashMap<u16, Arc<str>>,
    top: Option<u16>,
    root: Arc<str>,
    status: HashMap<u16, u8>,
    /// Whether Root runs, and whether a run of it completed (the next is a restart).
    running: bool,
    completed: bool,
}

/// BehaviorTree.CPP's status codes: idle, running, success, failure, skipped.
const RUNNING: u8 = 1;

impl StatusChanges {
    /// The changes of the tree whose nodes `ids` names, every node idle.
    pub fn new(ids: RecordedIds) -> Self {
        Self {
            ids: ids
                .by_uid
                .into_iter()
                .map(|(uid, id)| (uid, Arc::from(id)))
                .collect(),
            top: ids.top,
            root: Arc::from("root"),
            status: HashMap::new(),
            running: false,
            completed: false,
        }
    }

    /// The trace id of the node of uid `uid`, if the tree has it.
    pub fn id(&self, uid: u16) -> Option<&Arc<str>> {
        self.ids.get(&uid)
    }

    /// The status node `uid` had at its last change (0, idle, before any).
    pub fn status(&self, uid: u16) -> u8 {
        self.status.get(&uid).copied().unwrap_or(0)
    }

    /// Node `uid` changed to status `to` in step `step`: the events that say it are pushed
    /// onto `out`, of agent 0, each with `line`. `Err` says what is wrong with the change (`is
    /// of node uid 77, which its tree does not have`; `is to status 9, …`).
    pub fn apply(
        &mut self,
        step: u64,
        uid: u16,
        to: u8,
        line: usize,
        out: &mut Vec<TracedEvent>,
    ) -> Result<(), String> {
        let Some(node) = self.ids.get(&uid) else {
            return Err(format!(
                "is of node uid {uid}, which its tree does not have"
            ));
        };
        let new = match to {
            0 => None,
            RUNNING => Some(Status::Running),
            2 => Some(Status::Success),
            3 => Some(Status::Failure),
            4 => Some(Status::Skipped),
            other => {
                return Err(format!(
                    "is to status {other}, which BehaviorTree.CPP has no status for (0 to 4)"
                ));
            }
        };
        let was = self.status.insert(uid, to).unwrap_or(0);
        let top = self.top == Some(uid);
        let mut push = |node: &Arc<str>, kind: EventKindOf<Arc<str>>| {
            out.push(TracedEvent {
                step,
                agent: 0,
                node: Some(node.clone()),
                kind,
                line,
            });
        };
        if was != RUNNING && new.is_some() && was != to {
            if top && !self.running {
                if self.completed {
                    push(&self.root, EventKindOf::Restart(Reason::Complete));
                }
                push(&self.root, EventKindOf::Enter);
                self.running = true;
            }
            push(node, EventKindOf::Enter);
        }
        match new {
            Some(s @ (Status::Success | Status::Failure | Status::Skipped)) if was != to => {
                push(node, EventKindOf::Exit(s, None));
                if top {
                    push(&self.root, EventKindOf::Exit(s, None));
                    push(&self.root, EventKindOf::Complete(s));
                    (self.running, self.completed) = (false, true);
                }
            }
            // Halted while it ran.
            None if was == RUNNING => {
                push(node, EventKindOf::Abort);
                if top && self.running {
                    push(&self.root, EventKindOf::Abort);
                    self.running = false;
                }
            }
            _ => {}
        }
        Ok(())
    }
}
