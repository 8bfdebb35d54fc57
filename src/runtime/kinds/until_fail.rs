//! UntilFail (SEMANTICS.md §3.3): re-enters its child after each success; succeeds when the child
//! fails. Per instance: what every loop keeps (see `repeater`).

use super::repeater::{LOOP, again, begin};
use super::{Act, Build, Def, Needs, Run};
use crate::model::{Category, KindSpec, Node, Repeats, Runs};
use crate::runtime::Status;

#[derive(Clone, Copy, Debug)]
pub(crate) struct UntilFail;

impl Def for UntilFail {
    fn specs() -> Vec<KindSpec> {
        vec![
            KindSpec::new(
                "UntilFail",
                Category::Decorator,
                "Runs its child again after each success; succeeds when it fails.",
                vec![],
            )
            .with_runs(Runs {
                repeats: Repeats::ForEver,
                ..Runs::default()
            }),
        ]
    }

    fn build(_: &Node, _: &mut Build<'_>) -> Self {
        Self
    }

    fn needs(self) -> Needs {
        LOOP
    }

    fn enter(self, x: &mut impl Run, n: u32) -> Act {
        begin(x, n)
    }

    fn react(self, x: &mut impl Run, n: u32, s: Status) -> Act {
        if s == Status::Failure {
            return Act::Done(Status::Success);
        }
        again(x, n, true)
    }
}
