//! What a node kind sees of the runtime: [`Run`], what a kind may do while it runs, and the
//! small types the kinds, the compiler and the lifecycle share (a kind's moves [`Act`]
//! and [`Next`], what it keeps per instance [`Needs`], how a guard holds [`HoldsOn`] and
//! is tested [`Test`]). It names no other module of the runtime but the behaviours and
//! the events: `kinds/` is written against it, `exec/` implements it.

use super::Status;
use super::behaviour::{CondRef, Context, CtxValue, KeyId};
use super::trace::EventKind;

/// Tolerance for comparisons of time (SEMANTICS.md §3.2 and §3.3.1: "within 1e-9").
pub(crate) const EPS: f64 = 1e-9;

/// A value a branch compares (a Switch's variable and cases): a text the file gives, a
/// key's value, or nothing (a field left unset).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Operand {
    Text(std::sync::Arc<str>),
    Key(KeyId),
    None,
}

impl Operand {
    /// A value as the text an operand compares: a text as it is, a number as the script
    /// language writes it (`3`, `2.5`), true and false as `1` and `0`; `None` for an entity
    /// or a position.
    pub(crate) fn text_of(v: &CtxValue) -> Option<std::sync::Arc<str>> {
        Some(match v {
            CtxValue::Text(t) => t.clone(),
            CtxValue::Number(n) => super::script::number_text(*n).into(),
            CtxValue::Bool(b) => if *b { "1" } else { "0" }.into(),
            CtxValue::Entity(_) | CtxValue::Position(_) => return None,
        })
    }
}

/// What a node asks of the lifecycle once it has been entered, or has heard a child's
/// report.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Act {
    /// It runs on.
    Running,
    /// It finishes now with this status.
    Done(Status),
    /// Enter this child next; when the child finishes at once, the node hears its report.
    Enter(u32),
    /// Enter every child in slot order, each report heard as it comes, until one decides.
    EnterAll,
    /// Enter this node again from the start (Root, after a run completed).
    Again,
    /// Enter this child, its conditions counting as passed: an observer's branch taking
    /// over (docs/SEMANTICS.md §3.3.2).
    TakeOver(u32),
    /// The tree was reset below; the call chain unwinds.
    Unwind,
    /// It fails at once, for this reason, as it is entered: a branch whose field bound to
    /// a key could not be read (SEMANTICS.md §3.5), a node whose `_failureIf` holds
    /// (§3.7).
    Refused(Refusal),
}

/// Why a node fails as it is entered, before it runs (its reason, in words, is
/// [`Refusal::reason`]). One byte, so that [`Act`] stays two words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// A field's key holds no value.
    NoValue,
    /// A field's key's value does not fit the field's type or range.
    NotFitting,
    /// Its `_failureIf` holds.
    FailureIf,
}

impl Refusal {
    /// The reason the node fails with.
    pub(crate) fn reason(self) -> &'static str {
        match self {
            Refusal::NoValue => super::bound::NO_VALUE,
            Refusal::NotFitting => super::bound::NOT_FITTING,
            Refusal::FailureIf => super::hooks::FAILURE_IF,
        }
    }
}

/// The part of a node's reaction to a child's report that the tree alone decides (see
/// `Def::next`): the node finishes with this status, or enters the child in this slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    Finish(Status),
    Child(u32),
}

/// What a node keeps in an instance besides its status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Needs {
    /// Its run record: 0 (a condition: it never waits), 1 (an epoch word), or 2 (an epoch
    /// and a cursor word).
    pub records: u32,
    /// A 64-bit word (a step or a count).
    pub word: bool,
    /// A timer (seconds, or a time on the instance's clock).
    pub timer: bool,
}

impl Needs {
    /// A branch: epoch and cursor.
    pub(crate) const BRANCH: Self = Self {
        records: 2,
        word: false,
        timer: false,
    };

    /// A branch with a timer (the clock at its entry, or when its child finished).
    pub(crate) const TIMED: Self = Self {
        records: 2,
        word: false,
        timer: true,
    };
}

/// A branch's setting (a count, a time, a switch, a policy): a value fixed by the file,
/// or a field bound to a key (SEMANTICS.md §3.5), read when the node is entered into the
/// instance's setting `at` (its place among `Program::bindings`) and held until its next
/// entry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Param<T> {
    Is(T),
    Key(u32),
}

/// What a setting holds, made from the number its binding keeps in the instance.
pub(crate) trait Setting: Copy {
    fn from_setting(v: f64) -> Self;
}

impl Setting for f64 {
    fn from_setting(v: f64) -> Self {
        v
    }
}

impl Setting for bool {
    fn from_setting(v: f64) -> Self {
        v != 0.0
    }
}

impl Setting for u64 {
    /// A count (validation keeps it whole and not negative; `as` saturates).
    fn from_setting(v: f64) -> Self {
        v as u64
    }
}

impl<T: Setting> Param<T> {
    /// Its value for node `n`'s current entry.
    #[inline(always)]
    pub(crate) fn get(self, x: &impl Run) -> T {
        self.of(|at| x.setting(at))
    }

    /// Its value, a bound one from what `setting` answers for its place.
    #[inline(always)]
    pub(crate) fn of(self, setting: impl FnOnce(u32) -> f64) -> T {
        match self {
            Param::Is(v) => v,
            Param::Key(at) => T::from_setting(setting(at)),
        }
    }

    /// Its value where the file fixes it.
    pub(crate) fn fixed(self) -> Option<T> {
        match self {
            Param::Is(v) => Some(v),
            Param::Key(_) => None,
        }
    }
}

/// The answer of a guard's first call with which the guard holds, or `Test` when that
/// call decides nothing and the guard turns to its test. One byte with fixed values, so
/// that deciding the common guard is one compare ([`HoldsOn::matches`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum HoldsOn {
    False = 0,
    True = 1,
    Test = 2,
}

impl HoldsOn {
    /// Holds on `answer`.
    pub(crate) fn answer(answer: bool) -> Self {
        if answer { Self::True } else { Self::False }
    }

    /// Whether the first call's `answer` makes the guard hold (never for `Test`).
    #[inline(always)]
    pub(crate) fn matches(self, answer: bool) -> bool {
        self as u8 == u8::from(answer)
    }
}

/// What a guard checks besides its first call (`PathGuard::cond`).
pub(crate) enum Test<A> {
    /// A condition without `in_context` (or a guard that is not a condition, which
    /// validation refuses: it never holds): `cond` decides.
    Plain,
    /// A condition with `in_context`: its key, its behaviour, its `invert`, and whether
    /// it is an observer, which does not hold (rather than reset the tree) when its key
    /// is missing.
    Keyed {
        key: KeyId,
        cond: CondRef<A>,
        invert: bool,
        observer: bool,
    },
    /// A branch's check on itself, after its conditions (a kind's `Def::deadline`, as
    /// TimeLimit's, SEMANTICS.md §3.3.1): holds while less than `seconds` have passed on the
    /// instance's clock since the branch was entered (its timer).
    Deadline { seconds: Param<f64> },
    /// A node's check on itself, after its conditions and deadline: its `_while`
    /// (SEMANTICS.md §3.7), in its hooks. When it does not hold, the node is skipped.
    While,
}

impl<A> Clone for Test<A> {
    fn clone(&self) -> Self {
        match self {
            Test::Plain => Test::Plain,
            Test::Keyed {
                key,
                cond,
                invert,
                observer,
            } => Test::Keyed {
                key: *key,
                cond: cond.clone(),
                invert: *invert,
                observer: *observer,
            },
            Test::Deadline { seconds } => Test::Deadline { seconds: *seconds },
            Test::While => Test::While,
        }
    }
}

/// What a kind may do while a node of it runs: read the tree and the step, reach the node's
/// memory in the instance, and call the lifecycle's own entry points. The lifecycle's
/// `Exec` implements it; a kind's `Def` methods take `x: &mut impl Run` and are compiled
/// for it alone, with no indirect call.
pub(crate) trait Run {
    // ---- the tree and the step ------------------------------------------------------

    /// Node `n`'s children, in slot order.
    fn kids(&self, n: u32) -> &[u32];

    /// The step being taken.
    fn step_number(&self) -> u64;

    /// The instance's clock, in seconds (SEMANTICS.md §3.3.1).
    fn clock(&self) -> f64;

    /// The next number of the instance's random generator.
    fn next_random(&mut self) -> u64;

    // ---- the node's memory (what its `Needs` asked for) -----------------------------

    /// Branch `n`'s cursor word.
    fn cursor(&self, n: u32) -> u32;

    fn cursor_mut(&mut self, n: u32) -> &mut u32;

    /// Node `n`'s 64-bit word.
    fn word(&self, n: u32) -> u64;

    fn word_mut(&mut self, n: u32) -> &mut u64;

    /// Node `n`'s timer.
    fn timer(&self, n: u32) -> f64;

    fn timer_mut(&mut self, n: u32) -> &mut f64;

    /// The value a key-bound setting read at its node's entry ([`Param::Key`]'s place).
    fn setting(&self, at: u32) -> f64;

    /// The operands a node's build put in the program, `from..to` (`Build::operands`).
    fn operands(&self, from: u32, to: u32) -> &[Operand];

    /// Whether the script a node's build put in the program at `at` holds in the context
    /// now (`Build::script`).
    fn script_holds(&self, at: u32) -> bool;

    /// The whole number the project's enum `name` is, if it is one.
    fn enum_value(&self, name: &str) -> Option<i64>;

    /// The declared type of context key `key` (`any` where nothing declares it).
    fn key_type(&self, key: KeyId) -> crate::model::KeyType;

    /// Random-order composite `n`'s permutation of its children (see `Def::shuffles`).
    fn order_mut(&mut self, n: u32) -> &mut [u32];

    /// [`Run::order_mut`], set to the children in slot order first.
    fn new_order(&mut self, n: u32) -> &mut [u32];

    // ---- the context and what is watched --------------------------------------------

    /// The agent's context.
    fn context(&self) -> &Context;

    /// Node `n` stores `value` under context key `key`.
    fn store(&mut self, n: u32, key: KeyId, value: CtxValue);

    /// Event `kind` about node `n`, for a watched step.
    fn emit(&mut self, n: u32, kind: EventKind<'_>);

    /// Node `n`'s status becomes `s`.
    fn set_status(&mut self, n: u32, s: Status);

    /// Node `n`'s status.
    fn status(&self, n: u32) -> Status;

    // ---- the lifecycle's entry points -----------------------------------------------

    /// What condition node `n`'s behaviour answers, given the value of `input` (its
    /// `in_context` key, which the caller found present).
    fn condition_answer(&mut self, n: u32, input: Option<KeyId>) -> bool;

    /// Action leaf `n` is entered: its input, its `enter` event, `on_enter`; it is active
    /// from then on (`Act::Unwind`: its input's key was missing, and the tree was reset).
    fn enter_leaf(&mut self, n: u32) -> Act;

    /// Node `n` found context key `key` missing: the tree is reset.
    fn context_missing(&mut self, n: u32, key: KeyId);

    /// The tree stalls at node `n` (SEMANTICS.md §3.6).
    fn stall(&mut self, n: u32);

    /// Aborts the running nodes below `n`, deepest first.
    fn abort_below(&mut self, n: u32);

    /// Node `n` and the nodes below it are idle again.
    fn reset_subtree(&mut self, n: u32);

    /// Interrupt `at`'s child finished with `s` (see `Exec::interrupt_done`).
    fn interrupt_done(&mut self, at: u32, s: Status, force_reset: bool) -> Act;

    /// Root's child finished with `s`: the run is complete. Whether Root is to be entered
    /// again now (false: the tree stalled).
    fn root_complete(&mut self, s: Status) -> bool;
}
