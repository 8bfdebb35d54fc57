//! UntilFail and KeepRunningUntilFailure (SEMANTICS.md §3.3): re-enter their child after
//! each success; when the child fails, UntilFail succeeds and KeepRunningUntilFailure
//! fails. Per instance: what every loop keeps (see `repeater`).

use super::repeater::{LOOP, again, begin};
use super::{Act, Build, Def, Needs, Run};
use crate::model::{Category, KindSpec, Node, Repeats, Runs};
use crate::runtime::Status;

#[derive(Clone, Copy, Debug)]
pub(crate) struct UntilFail {
    /// The result when the child fails: success (UntilFail) or failure
    /// (KeepRunningUntilFailure).
    pub then: Status,
}

impl Def for UntilFail {
    fn specs() -> Vec<KindSpec> {
        let runs = Runs {
            repeats: Repeats::ForEver,
            ..Runs::default()
        };
        vec![
            KindSpec::new(
                "UntilFail",
                Category::Decorator,
                "Runs its child again after each success; succeeds when it fails.",
                vec![],
            )
            .with_runs(runs),
            KindSpec::new(
                "KeepRunningUntilFailure",
                Category::Decorator,
                "Runs its child again after each success; fails when it fails.",
                vec![],
            )
            .with_runs(runs),
        ]
    }

    fn serves(name: &str, _: Category) -> bool {
        matches!(name, "UntilFail" | "KeepRunningUntilFailure")
    }

    fn build(node: &Node, _: &mut Build<'_>) -> Self {
        Self {
            then: if node.kind == "KeepRunningUntilFailure" {
                Status::Failure
            } else {
                Status::Success
            },
        }
    }

    fn needs(self) -> Needs {
        LOOP
    }

    fn enter(self, x: &mut impl Run, n: u32) -> Act {
        begin(x, n)
    }

    fn react(self, x: &mut impl Run, n: u32, s: Status) -> Act {
        match s {
            Status::Failure => return Act::Done(self.then),
            Status::Skipped => return Act::Done(s),
            _ => {}
        }
        again(x, n, true)
    }
}
