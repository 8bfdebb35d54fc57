//! Sequence, Selector, their random-order forms and their reactive forms (SEMANTICS.md
//! §3.3): children entered one at a time, in slot order or in an order shuffled on every
//! entry by the instance's generator; a reactive one enters the children before its
//! running one again at every step (the lifecycle does that, by the rule of [`Def::next`]).
//!
//! Per instance: a branch's record, whose cursor is the slot (in the order walked) of the
//! running child; a random-order node's order among the instance's permutations.

use super::{Act, Build, Def, Next, Param, Run, flag_setting, opening};
use crate::model::{Category, FieldSpec, FieldType, KindSpec, Node, Runs, Value};
use crate::runtime::Status;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Sequence {
    pub halt: Param<bool>,
    pub random: bool,
    pub reactive: bool,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Selector {
    pub random: bool,
    pub reactive: bool,
}

fn halt() -> FieldSpec {
    FieldSpec::new(
        "halt_on_failure",
        FieldType::Bool,
        Value::Bool(true),
        "Stop at the first failed child (off: carry on as if it succeeded).",
    )
}

impl Def for Sequence {
    fn specs() -> Vec<KindSpec> {
        vec![
            KindSpec::new(
                "Sequence",
                Category::Composite,
                "Runs its children in order while they succeed.",
                vec![halt()],
            ),
            KindSpec::new(
                "RandomSequence",
                Category::Composite,
                "A Sequence over its children in a random order, shuffled on every entry.",
                vec![halt()],
            ),
            KindSpec::new(
                "ReactiveSequence",
                Category::Composite,
                "A Sequence that checks its earlier children again at every step: the first to fail ends it, one that runs takes over.",
                vec![],
            ),
        ]
    }

    fn serves(name: &str, _: Category) -> bool {
        matches!(name, "Sequence" | "RandomSequence" | "ReactiveSequence")
    }

    fn build(node: &Node, b: &mut Build<'_>) -> Self {
        let reactive = node.kind == "ReactiveSequence";
        Self {
            halt: if reactive {
                Param::Is(true)
            } else {
                b.param(node, "halt_on_failure", flag_setting)
            },
            random: node.kind == "RandomSequence",
            reactive,
        }
    }

    fn reactive(self) -> bool {
        self.reactive
    }

    #[inline(always)]
    fn enter(self, x: &mut impl Run, n: u32) -> Act {
        start(x, n, self.random, Status::Success)
    }

    fn shuffles(self) -> bool {
        self.random
    }

    /// Its first child (none: success), unless its order is random.
    fn first(self, count: u32) -> Option<Next> {
        (!self.random).then(|| opening(count, Status::Success))
    }

    #[inline(always)]
    fn react(self, x: &mut impl Run, n: u32, s: Status) -> Act {
        let halt = self.halt.get(x);
        heard(x, n, self.random, s, |at, count, s| {
            Some(sequence_next(halt, at, count, s))
        })
    }

    /// [`sequence_next`], where the file fixes `halt_on_failure`.
    fn next(self, at: u32, count: u32, s: Status) -> Option<Next> {
        Some(sequence_next(self.halt.fixed()?, at, count, s))
    }
}

impl Def for Selector {
    fn specs() -> Vec<KindSpec> {
        vec![
            KindSpec::new(
                "Selector",
                Category::Composite,
                "Tries its children in order until one succeeds.",
                vec![],
            )
            .with_runs(Runs {
                by_priority: true,
                ..Runs::default()
            }),
            KindSpec::new(
                "RandomSelector",
                Category::Composite,
                "A Selector over its children in a random order, shuffled on every entry.",
                vec![],
            ),
            KindSpec::new(
                "ReactiveSelector",
                Category::Composite,
                "A Selector that tries its earlier children again at every step: the first to succeed ends it, one that runs takes over.",
                vec![],
            ),
        ]
    }

    fn serves(name: &str, _: Category) -> bool {
        matches!(name, "Selector" | "RandomSelector" | "ReactiveSelector")
    }

    fn build(node: &Node, _: &mut Build<'_>) -> Self {
        Self {
            random: node.kind == "RandomSelector",
            reactive: node.kind == "ReactiveSelector",
        }
    }

    fn reactive(self) -> bool {
        self.reactive
    }

    #[inline(always)]
    fn enter(self, x: &mut impl Run, n: u32) -> Act {
        start(x, n, self.random, Status::Failure)
    }

    fn shuffles(self) -> bool {
        self.random
    }

    /// Its first child (none: failure), unless its order is random.
    fn first(self, count: u32) -> Option<Next> {
        (!self.random).then(|| opening(count, Status::Failure))
    }

    #[inline(always)]
    fn react(self, x: &mut impl Run, n: u32, s: Status) -> Act {
        heard(x, n, self.random, s, |at, count, s| self.next(at, count, s))
    }

    /// A success ends it; otherwise the next child, and after the last, failure.
    fn next(self, at: u32, count: u32, s: Status) -> Option<Next> {
        Some(if s == Status::Success {
            Next::Finish(Status::Success)
        } else if at + 1 < count {
            Next::Child(at + 1)
        } else {
            Next::Finish(Status::Failure)
        })
    }
}

/// A Sequence's reaction to a report of `s` from the child in slot `at` of `count`: a
/// failure ends it, unless `halt_on_failure` (`halt`) is off; otherwise the next child, and
/// after the last, success.
fn sequence_next(halt: bool, at: u32, count: u32, s: Status) -> Next {
    if s == Status::Failure && halt {
        Next::Finish(Status::Failure)
    } else if at + 1 < count {
        Next::Child(at + 1)
    } else {
        Next::Finish(Status::Success)
    }
}

/// Entered: a new order if it is random, then the first child (none: `empty`).
#[inline(always)]
fn start(x: &mut impl Run, n: u32, random: bool, empty: Status) -> Act {
    if random {
        shuffle(x, n);
    }
    let count = x.kids(n).len() as u32;
    follow(x, n, random, Some(opening(count, empty)))
}

/// A child of `n` finished with `s`: what the rule `next` says, from the cursor.
#[inline(always)]
fn heard(
    x: &mut impl Run,
    n: u32,
    random: bool,
    s: Status,
    next: impl FnOnce(u32, u32, Status) -> Option<Next>,
) -> Act {
    let go = next(x.cursor(n), x.kids(n).len() as u32, s);
    follow(x, n, random, go)
}

/// Does what `next` says: finish, or move the cursor to a slot and enter its child.
#[inline(always)]
fn follow(x: &mut impl Run, n: u32, random: bool, next: Option<Next>) -> Act {
    match next {
        Some(Next::Child(at)) => {
            *x.cursor_mut(n) = at;
            let kid = if random {
                x.order_mut(n)[at as usize]
            } else {
                x.kids(n)[at as usize]
            };
            Act::Enter(kid)
        }
        Some(Next::Finish(s)) => Act::Done(s),
        None => Act::Running,
    }
}

/// A new order of `n`'s children, from the instance's generator (Fisher–Yates).
#[inline(never)]
fn shuffle(x: &mut impl Run, n: u32) {
    let count = x.new_order(n).len();
    for j in (1..count).rev() {
        let r = (x.next_random() % (j as u64 + 1)) as usize;
        x.order_mut(n).swap(j, r);
    }
}
