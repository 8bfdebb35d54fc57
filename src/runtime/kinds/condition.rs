//! A condition used as a child (SEMANTICS.md §3.3): any kind registered as a condition. Entered,
//! it is checked and finishes at once; it is never active and keeps no run record. As a
//! branch's guard it is never entered: the lifecycle checks it (`Exec::first_failing`).

use super::{Act, Build, Def, GuardCheck, HoldsOn, Needs, Run, Test};
use crate::model::{Category, KindSpec, Node};
use crate::runtime::behaviour::{CondRef, KeyId};
use crate::runtime::{EventKind, Status};

#[derive(Clone, Copy, Debug)]
pub(crate) struct Condition {
    pub invert: bool,
    pub input: Option<KeyId>,
    /// `aborts_lower`: as a guard it also watches while a later sibling of its branch
    /// runs (an observer), and a missing key makes it not hold instead of resetting.
    pub observer: bool,
}

impl Def for Condition {
    fn specs() -> Vec<KindSpec> {
        Vec::new()
    }

    fn serves(_: &str, category: Category) -> bool {
        category == Category::Condition
    }

    fn build(node: &Node, b: &mut Build<'_>) -> Self {
        Self {
            invert: b.flag(node, "invert"),
            input: b.key(node, "in_context"),
            observer: b.flag(node, "aborts_lower"),
        }
    }

    fn needs(self) -> Needs {
        Needs::default()
    }

    fn observes(self) -> bool {
        self.observer
    }

    /// A plain condition's guard is decided by its first call (its answer against
    /// `!invert`); a keyed one's first call never holds, and its test reads the key (an
    /// observer's missing key does not hold, SEMANTICS.md §3.3.2).
    fn as_guard<A>(self, behaviour: &CondRef<A>) -> Option<GuardCheck<A>> {
        Some(match self.input {
            None => (
                behaviour.clone(),
                HoldsOn::answer(!self.invert),
                Test::Plain,
            ),
            Some(key) => (
                CondRef::never(),
                HoldsOn::Test,
                Test::Keyed {
                    key,
                    cond: behaviour.clone(),
                    invert: self.invert,
                    observer: self.observer,
                },
            ),
        })
    }

    fn enter(self, x: &mut impl Run, n: u32) -> Act {
        if let Some(k) = self.input
            && x.context().get(k).is_none()
        {
            x.context_missing(n, k);
            return Act::Unwind;
        }
        x.set_status(n, Status::Running);
        x.emit(n, EventKind::Enter);
        let r = x.condition_answer(n, self.input) != self.invert;
        x.emit(n, EventKind::Check(r));
        Act::Done(if r { Status::Success } else { Status::Failure })
    }
}
