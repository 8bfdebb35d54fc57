//! SkipUnlessUpdated and WaitValueUpdate (SEMANTICS.md §3.3.1, BehaviorTree.CPP's
//! entry-updated decorators): they run their child when their `entry` key was set since
//! they last looked (its stamp, `Context::stamp`). Entered otherwise, SkipUnlessUpdated is
//! skipped at once; WaitValueUpdate enters its child and holds the leaves below it back, as
//! a Delay does, until the key is set.
//!
//! Per instance: a branch's record, whose cursor says whether WaitValueUpdate let its
//! leaves go ([`OPEN`]); a word: the stamp it saw last (kept across entries and resets, as
//! BehaviorTree.CPP's node keeps it).

use super::{Act, Build, Def, Needs, Next, Run, only_child};
use crate::model::{Category, FieldSpec, FieldType, KeyTypes, KindSpec, Node, Value};
use crate::runtime::Status;
use crate::runtime::behaviour::KeyId;

/// Cursor: WaitValueUpdate saw its key set since its entry, and lets its leaves execute.
const OPEN: u32 = 1;

#[derive(Clone, Copy, Debug)]
pub(crate) struct EntryUpdated {
    entry: Option<KeyId>,
    /// WaitValueUpdate (else SkipUnlessUpdated).
    waits: bool,
}

impl Def for EntryUpdated {
    fn specs() -> Vec<KindSpec> {
        let entry = || {
            FieldSpec::new(
                "entry",
                FieldType::ContextKey(KeyTypes::ANY),
                Value::Text(String::new()),
                "The key it watches: set (to any value) since it last looked, it runs its child.",
            )
        };
        vec![
            KindSpec::new(
                "SkipUnlessUpdated",
                Category::Decorator,
                "Runs its child when its entry key was set since it last looked; is skipped otherwise.",
                vec![entry()],
            ),
            KindSpec::new(
                "WaitValueUpdate",
                Category::Decorator,
                "Enters its child, and lets the actions below it execute once its entry key was set since it last looked.",
                vec![entry()],
            ),
        ]
    }

    fn serves(name: &str, _: Category) -> bool {
        matches!(name, "SkipUnlessUpdated" | "WaitValueUpdate")
    }

    fn build(node: &Node, b: &mut Build<'_>) -> Self {
        Self {
            entry: b.key(node, "entry"),
            waits: node.kind == "WaitValueUpdate",
        }
    }

    fn needs(self) -> Needs {
        Needs {
            word: true,
            ..Needs::BRANCH
        }
    }

    fn enter(self, x: &mut impl Run, n: u32) -> Act {
        *x.cursor_mut(n) = 0;
        if self.looked(x, n) {
            *x.cursor_mut(n) = OPEN;
            return only_child(x, n);
        }
        if self.waits {
            only_child(x, n)
        } else {
            Act::Done(Status::Skipped)
        }
    }

    fn regulates(self) -> bool {
        self.waits
    }

    /// WaitValueUpdate `r` lets the leaves below it execute once it saw its key set.
    fn allows(self, x: &mut impl Run, r: u32, _: f64) -> bool {
        if x.cursor(r) != OPEN && self.looked(x, r) {
            *x.cursor_mut(r) = OPEN;
        }
        x.cursor(r) == OPEN
    }

    fn next(self, _: u32, _: u32, s: Status) -> Option<Next> {
        Some(Next::Finish(s))
    }
}

impl EntryUpdated {
    /// Whether node `n`'s key was set since it last looked; it looks now (a key with no
    /// value was not set).
    fn looked(self, x: &mut impl Run, n: u32) -> bool {
        let Some(stamp) = self.entry.and_then(|k| x.context().stamp(k)) else {
            return false;
        };
        let before = std::mem::replace(x.word_mut(n), stamp);
        before != stamp
    }
}
