//! Sequence, Selector and their forms (SEMANTICS.md §3.3): children entered one at a
//! time, in slot order or in an order shuffled on every entry by the instance's
//! generator; a reactive one enters the children before its running one again at every
//! step (the lifecycle does that, by the rule of [`Def::next`]); a Sequence with memory
//! starts where it last stopped.
//!
//! Per instance: a branch's record, whose cursor is the slot (in the order walked) of the
//! running child (for a Sequence with memory, also where it stopped, which no reset
//! touches); a random-order node's order among the instance's permutations.

use super::{Act, Build, Def, Next, Param, Run, flag_setting, opening, skipped_if_all};
use crate::model::{Category, FieldSpec, FieldType, KindSpec, Node, Runs, Value};
use crate::runtime::Status;

/// How a Sequence or a Selector walks its children.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// In slot order from the first, at each entry.
    Plain,
    /// In an order shuffled at each entry.
    Random,
    /// In slot order, the children before the running one entered again at every step.
    Reactive,
    /// In slot order from the child it last stopped at (a Sequence's).
    Memory,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Sequence {
    pub halt: Param<bool>,
    pub form: Form,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Selector {
    pub form: Form,
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
            KindSpec::new(
                "SequenceWithMemory",
                Category::Composite,
                "A Sequence that starts again where it stopped: after a failure, at the child that failed; only finishing all of them starts it from the first.",
                vec![],
            ),
        ]
    }

    fn serves(name: &str, _: Category) -> bool {
        matches!(
            name,
            "Sequence" | "RandomSequence" | "ReactiveSequence" | "SequenceWithMemory"
        )
    }

    fn build(node: &Node, b: &mut Build<'_>) -> Self {
        let form = match node.kind.as_str() {
            "RandomSequence" => Form::Random,
            "ReactiveSequence" => return Self::fixed(Form::Reactive),
            "SequenceWithMemory" => return Self::fixed(Form::Memory),
            _ => Form::Plain,
        };
        Self {
            halt: b.param(node, "halt_on_failure", flag_setting),
            form,
        }
    }

    fn reactive(self) -> bool {
        self.form == Form::Reactive
    }

    #[inline(always)]
    fn enter(self, x: &mut impl Run, n: u32) -> Act {
        if self.form == Form::Memory {
            // Where it stopped (the first child on a new instance; none: success).
            let at = x.cursor(n);
            let go = if at < x.kids(n).len() as u32 {
                Next::Child(at)
            } else {
                Next::Finish(Status::Success)
            };
            return follow(x, n, self.form, Some(go));
        }
        start(x, n, self.form, Status::Success)
    }

    fn shuffles(self) -> bool {
        self.form == Form::Random
    }

    /// Its first child (none: success), unless its order is random or it remembers.
    fn first(self, count: u32) -> Option<Next> {
        matches!(self.form, Form::Plain | Form::Reactive).then(|| opening(count, Status::Success))
    }

    #[inline(always)]
    fn react(self, x: &mut impl Run, n: u32, s: Status) -> Act {
        let halt = self.halt.get(x);
        let go = sequence_next(halt, x.cursor(n), x.kids(n).len() as u32, s);
        if self.form == Form::Memory && go == Next::Finish(Status::Success) {
            // All of them done: the next entry starts from the first.
            *x.cursor_mut(n) = 0;
        }
        follow(x, n, self.form, skipped_if_all(x, n, s, Some(go)))
    }

    /// [`sequence_next`], where the file fixes `halt_on_failure` (and finishing does not
    /// move its place, as it does for one with memory).
    fn next(self, at: u32, count: u32, s: Status) -> Option<Next> {
        if self.form == Form::Memory {
            return None;
        }
        Some(sequence_next(self.halt.fixed()?, at, count, s))
    }
}

impl Sequence {
    /// One of the forms without a `halt_on_failure` field: it halts.
    fn fixed(form: Form) -> Self {
        Self {
            halt: Param::Is(true),
            form,
        }
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
        let form = match node.kind.as_str() {
            "RandomSelector" => Form::Random,
            "ReactiveSelector" => Form::Reactive,
            _ => Form::Plain,
        };
        Self { form }
    }

    fn reactive(self) -> bool {
        self.form == Form::Reactive
    }

    #[inline(always)]
    fn enter(self, x: &mut impl Run, n: u32) -> Act {
        start(x, n, self.form, Status::Failure)
    }

    fn shuffles(self) -> bool {
        self.form == Form::Random
    }

    /// Its first child (none: failure), unless its order is random.
    fn first(self, count: u32) -> Option<Next> {
        (self.form != Form::Random).then(|| opening(count, Status::Failure))
    }

    #[inline(always)]
    fn react(self, x: &mut impl Run, n: u32, s: Status) -> Act {
        let go = self.next(x.cursor(n), x.kids(n).len() as u32, s);
        follow(x, n, self.form, skipped_if_all(x, n, s, go))
    }

    /// A success ends it; otherwise (a failure, a child skipped) the next child, and after
    /// the last, failure.
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
/// failure ends it, unless `halt_on_failure` (`halt`) is off; otherwise (a success, a
/// child skipped) the next child, and after the last, success.
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
fn start(x: &mut impl Run, n: u32, form: Form, empty: Status) -> Act {
    if form == Form::Random {
        shuffle(x, n);
    }
    let count = x.kids(n).len() as u32;
    follow(x, n, form, Some(opening(count, empty)))
}

/// Does what `next` says: finish, or move the cursor to a slot and enter its child.
#[inline(always)]
fn follow(x: &mut impl Run, n: u32, form: Form, next: Option<Next>) -> Act {
    match next {
        Some(Next::Child(at)) => {
            *x.cursor_mut(n) = at;
            let kid = if form == Form::Random {
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
