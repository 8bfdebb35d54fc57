//! The built-in node kinds, one module each (SEMANTICS.md §1 and §3.3).
//!
//! A module holds everything that is particular to its kind: its catalog entry (fields,
//! defaults, ranges, help), what the compiler reads from a node of it, what it keeps per
//! instance ([`Needs`]), what it does when it is entered and when a child reports, and,
//! where that is fixed by the tree, the rule a compiled shortcut is derived from
//! ([`Def::next`]). Everything the kinds share — statuses, epochs, events, guards,
//! aborting, the report queue — is the lifecycle in `exec/`, written once; a kind reaches
//! it through `node::Run`, what a kind may do while it runs, and names no other module
//! of the runtime.
//!
//! The list at the bottom ([`kinds!`]) is the only place that names every kind.

mod composite;
mod condition;
mod cooldown;
mod delay;
mod entry_updated;
mod force;
mod if_then_else;
mod interrupt;
mod inverter;
pub(crate) mod leaf;
mod parallel;
mod precondition;
mod queue_loop;
mod regulator;
mod repeater;
mod retry;
mod root;
mod run_once;
mod subtree;
mod switch;
mod time_limit;
mod until_fail;

use super::Status;
use super::behaviour::{CondRef, CtxValue, KeyId, KeyTable};
use super::bound::BoundSetting;
use super::node::{Act, EPS, HoldsOn, Needs, Next, Operand, Param, Run, Setting, Test};
use super::script::ScriptCondition;
use crate::model::{Catalog, Category, KindSpec, Node, Value};

/// How a guard is checked: what its first call asks, the answer with which it holds
/// (`HoldsOn::Test`: it turns to its test), and its test (see `PathGuard`).
pub(crate) type GuardCheck<A> = (CondRef<A>, HoldsOn, Test<A>);

/// What a kind's `build` reads a node's fields with.
pub(crate) struct Build<'a> {
    pub catalog: &'a Catalog,
    pub keys: &'a mut KeyTable,
    /// Which definition serves each kind met so far (its place in [`Kind`]'s list), so
    /// that a tree of many nodes asks the definitions once per kind, not once per node.
    pub served: &'a mut Served,
    /// The branch fields bound to keys so far (see [`Build::param`]).
    pub bindings: &'a mut Vec<BoundSetting>,
    /// The values branches compare so far (see [`Build::operand`]).
    pub operands: &'a mut Vec<Operand>,
    /// The scripts branches check so far (see [`Build::script`]).
    pub scripts: &'a mut Vec<ScriptCondition>,
}

/// Which definition serves a kind name: its place in [`Kind`]'s list. (In one catalog a
/// kind name has one category, so the name alone is the key.)
pub(crate) type Served = std::collections::HashMap<String, Option<u8>>;

impl Build<'_> {
    pub(crate) fn flag(&self, node: &Node, field: &str) -> bool {
        self.catalog.flag(node, field)
    }

    pub(crate) fn number(&self, node: &Node, field: &str) -> Option<f64> {
        self.catalog.number(node, field)
    }

    /// A setting a kind reads while it runs: field `field`'s value made a number by `conv`
    /// (as [`Setting`] takes it back), or, for a field bound to a key, the place of its
    /// binding, read at each entry (SEMANTICS.md §3.5).
    pub(crate) fn param<T: Setting>(
        &mut self,
        node: &Node,
        field: &str,
        conv: fn(&Value) -> f64,
    ) -> Param<T> {
        if let Some(Value::Key(name)) = node.fields.get(field)
            && let Some(spec) = self.catalog.kind(&node.kind).and_then(|k| k.field(field))
        {
            let at = self.bindings.len() as u32;
            self.bindings.push(BoundSetting {
                key: self.keys.intern(name),
                spec: spec.clone(),
                conv,
            });
            return Param::Key(at);
        }
        let value = self.catalog.field_value(node, field).map_or(0.0, conv);
        Param::Is(T::from_setting(value))
    }

    /// Field `field` as a value compared while the node runs ([`Operand`]): its text, the
    /// key it is bound to, or nothing when it is unset. Its place among the program's
    /// operands, which [`Run::operands`] gives back.
    pub(crate) fn operand(&mut self, node: &Node, field: &str) -> u32 {
        let literal = |v: CtxValue| Operand::text_of(&v).map_or(Operand::None, Operand::Text);
        let op = match node.fields.get(field) {
            Some(Value::Key(name)) => Operand::Key(self.keys.intern(name)),
            Some(Value::Text(t)) => Operand::Text(t.as_str().into()),
            Some(Value::Int(i)) => literal(CtxValue::Number(*i as f64)),
            Some(Value::Float(f)) => literal(CtxValue::Number(*f)),
            Some(Value::Bool(b)) => literal(CtxValue::Bool(*b)),
            None => Operand::None,
        };
        self.operands.push(op);
        self.operands.len() as u32 - 1
    }

    /// Field `field`, a script the node checks while it runs (Precondition's `if`),
    /// compiled: its place among the program's scripts, which [`Run::script_holds`]
    /// checks.
    pub(crate) fn script(&mut self, node: &Node, field: &str) -> u32 {
        let code = self.catalog.text(node, field);
        let keys = &mut *self.keys;
        self.scripts.push(crate::runtime::script::branch_condition(
            code,
            self.catalog,
            |k| keys.intern(k),
        ));
        self.scripts.len() as u32 - 1
    }

    /// A context-key field: the key's id, or none when it is empty.
    pub(crate) fn key(&mut self, node: &Node, field: &str) -> Option<KeyId> {
        let k = self.catalog.text(node, field);
        (!k.is_empty()).then(|| self.keys.intern(k))
    }
}

/// A true/false field as a setting (false when unset).
pub(crate) fn flag_setting(v: &Value) -> f64 {
    f64::from(u8::from(v.as_bool().unwrap_or(false)))
}

/// A whole-number field as a setting: a count, 0 when negative (validation refuses that).
pub(crate) fn count_setting(v: &Value) -> f64 {
    v.as_i64().unwrap_or(0).max(0) as f64
}

/// A number field as a setting.
pub(crate) fn amount_setting(v: &Value) -> f64 {
    v.as_f64().unwrap_or_default()
}

/// One built-in node kind.
pub(crate) trait Def: Copy {
    /// The catalog entries it serves (none for leaves and conditions, whose entries come
    /// with the behaviours registered for them).
    fn specs() -> Vec<KindSpec>;

    /// Whether it runs nodes of the kind named `name`, of `category`.
    fn serves(name: &str, category: Category) -> bool {
        let _ = category;
        Self::specs().iter().any(|s| s.name == name)
    }

    /// What a node of it is compiled to.
    fn build(node: &Node, b: &mut Build<'_>) -> Self;

    /// What it keeps per instance.
    fn needs(self) -> Needs {
        Needs::BRANCH
    }

    /// Node `n` of this kind is entered. For a branch the lifecycle has already counted
    /// the entry, emitted `enter` and checked its guards. By default it makes the move
    /// `first` fixes; a kind whose entry the tree does not fix defines `enter` (without
    /// either, the node fails at once).
    fn enter(self, x: &mut impl Run, n: u32) -> Act {
        match self.first(x.kids(n).len() as u32) {
            Some(first) => first_move(x, n, first),
            None => Act::Done(Status::Failure),
        }
    }

    /// Running node `n` hears that its child finished with `s`. By default, for a node
    /// with one child, it finishes as `next` says (without `next`, it runs on); a kind
    /// with more children, or whose reaction the tree does not fix, defines `react`.
    fn react(self, x: &mut impl Run, n: u32, s: Status) -> Act {
        let _ = (x, n);
        finish_as(self.next(0, 1, s))
    }

    /// What entering a node of it does, where the tree alone decides that (the node's words
    /// do not enter into it, and it changes nothing but the node's cursor, which becomes the
    /// slot of the child it enters), for a node with `count` children. `enter` then follows
    /// it, and the lifecycle follows it without calling `enter`: a compiled entry path
    /// (`Rec::first`) is derived from it.
    fn first(self, count: u32) -> Option<Next> {
        let _ = count;
        None
    }

    /// The reaction to a report of `s` from the child in slot `at` of `count`, where the
    /// tree alone decides it (the node's words do not enter into it, and it changes
    /// nothing but the node's cursor, which becomes the slot of the child it enters).
    /// `react` then follows it, and compiled shortcuts are derived from it. (A rule that
    /// reads the children's statuses, as "every child skipped" does, is `react`'s: the
    /// compiled routes carry a leaf's success or failure only, and a reactive walk never
    /// ends on a skipped child, so `next` never needs it.)
    fn next(self, at: u32, count: u32, s: Status) -> Option<Next> {
        let _ = (at, count, s);
        None
    }

    /// Whether it runs its children in an order shuffled on each entry: the instance
    /// keeps a permutation for it, and no compiled route passes through it.
    fn shuffles(self) -> bool {
        false
    }

    /// How long its child may run, checked as a guard on itself after its conditions, on
    /// the path of every leaf below it (a `Test::Deadline`); `None`: no limit.
    fn deadline(self) -> Option<Param<f64>> {
        None
    }

    /// Whether it decides, per step, whether the leaves below it may execute: the
    /// lifecycle then asks it (`allows`) before phase 3 executes one of them.
    fn regulates(self) -> bool {
        false
    }

    /// Whether node `n`, which [`Def::regulates`], lets a ready leaf below it execute in
    /// this step of `dt` seconds.
    fn allows(self, x: &mut impl Run, n: u32, dt: f64) -> bool {
        let _ = (x, n, dt);
        true
    }

    /// Whether, as a guard, it watches while a later sibling of its branch runs (an
    /// observer, SEMANTICS.md §3.3.2).
    fn observes(self) -> bool {
        false
    }

    /// Whether it is entered again at every step in phase 2, its running child excepted
    /// (a reactive composite, SEMANTICS.md §3.3): from its first move, a child that
    /// finishes at once goes as [`Def::next`] says, one that runs takes the running one's
    /// place, and reaching the running one ends the walk. Such a kind defines `first`,
    /// and `next` for every report.
    fn reactive(self) -> bool {
        false
    }

    /// A reactive node `n`'s move as it is entered again in phase 2: by default its first
    /// move ([`Def::first`]); a kind whose choice reads the context (Switch) makes it here.
    fn again(self, x: &impl Run, n: u32) -> Option<Next> {
        self.first(x.kids(n).len() as u32)
    }

    /// Whether, reactive, it is entered again before each of its children that runs, the
    /// first included (its choice reads the context, so any child may be left for
    /// another); a plain reactive composite is entered again before its later children
    /// only.
    fn reselects(self) -> bool {
        false
    }

    /// How a guard of it is checked, its behaviour being `behaviour`: what the guard's
    /// first call asks, the answer with which it holds (`HoldsOn::Test`: it turns to its test),
    /// and its test (see `PathGuard`). `None`: it is not a condition.
    fn as_guard<A>(self, behaviour: &CondRef<A>) -> Option<GuardCheck<A>> {
        let _ = behaviour;
        None
    }

    /// A trigger is about to enter node `n`, with its payload.
    fn triggered(self, x: &mut impl Run, n: u32, payload: Option<CtxValue>) {
        let _ = (x, n, payload);
    }
}

/// The kinds: each variant, the type that defines it, and the dispatch of [`Def`]'s
/// calls to it.
macro_rules! kinds {
    ($($variant:ident($ty:ty)),* $(,)?) => {
        /// A compiled node's kind, with the settings it runs by.
        #[derive(Clone, Copy, Debug)]
        pub(crate) enum Kind {
            $($variant($ty)),*
        }

        impl Kind {
            /// The catalog entries of the built-in kinds, in palette order.
            pub(crate) fn specs() -> Vec<KindSpec> {
                let mut all = Vec::new();
                $(all.extend(<$ty as Def>::specs());)*
                all
            }

            /// What a node is compiled to; `None` for a kind no definition serves.
            pub(crate) fn build(node: &Node, category: Category, b: &mut Build<'_>) -> Option<Self> {
                let which = match b.served.get(node.kind.as_str()) {
                    Some(&which) => which,
                    None => {
                        let which = (|| {
                            let mut place = 0u8;
                            $(if <$ty as Def>::serves(&node.kind, category) {
                                return Some(place);
                            }
                            place += 1;)*
                            let _ = place;
                            None
                        })();
                        b.served.insert(node.kind.clone(), which);
                        which
                    }
                };
                let mut place = 0u8;
                $(if which == Some(place) {
                    return Some(Kind::$variant(<$ty as Def>::build(node, b)));
                }
                place += 1;)*
                let _ = place;
                None
            }

            /// Whether some definition serves nodes of this kind.
            #[cfg(test)]
            pub(crate) fn defined(name: &str, category: Category) -> bool {
                false $(|| <$ty as Def>::serves(name, category))*
            }

            pub(crate) fn needs(self) -> Needs {
                match self { $(Kind::$variant(k) => k.needs()),* }
            }

            #[inline(always)]
            pub(crate) fn enter(self, x: &mut impl Run, n: u32) -> Act {
                match self { $(Kind::$variant(k) => k.enter(x, n)),* }
            }

            #[inline(always)]
            pub(crate) fn react(
                self,
                x: &mut impl Run,
                n: u32,
                s: Status,
            ) -> Act {
                match self { $(Kind::$variant(k) => k.react(x, n, s)),* }
            }

            pub(crate) fn next(self, at: u32, count: u32, s: Status) -> Option<Next> {
                match self { $(Kind::$variant(k) => k.next(at, count, s)),* }
            }

            pub(crate) fn first(self, count: u32) -> Option<Next> {
                match self { $(Kind::$variant(k) => k.first(count)),* }
            }

            pub(crate) fn shuffles(self) -> bool {
                match self { $(Kind::$variant(k) => k.shuffles()),* }
            }

            pub(crate) fn deadline(self) -> Option<Param<f64>> {
                match self { $(Kind::$variant(k) => k.deadline()),* }
            }

            pub(crate) fn regulates(self) -> bool {
                match self { $(Kind::$variant(k) => k.regulates()),* }
            }

            pub(crate) fn as_guard<A>(self, behaviour: &CondRef<A>) -> Option<GuardCheck<A>> {
                match self { $(Kind::$variant(k) => k.as_guard(behaviour)),* }
            }

            pub(crate) fn allows(
                self,
                x: &mut impl Run,
                n: u32,
                dt: f64,
            ) -> bool {
                match self { $(Kind::$variant(k) => k.allows(x, n, dt)),* }
            }

            pub(crate) fn observes(self) -> bool {
                match self { $(Kind::$variant(k) => k.observes()),* }
            }

            pub(crate) fn reactive(self) -> bool {
                match self { $(Kind::$variant(k) => k.reactive()),* }
            }

            pub(crate) fn again(self, x: &impl Run, n: u32) -> Option<Next> {
                match self { $(Kind::$variant(k) => k.again(x, n)),* }
            }

            pub(crate) fn reselects(self) -> bool {
                match self { $(Kind::$variant(k) => k.reselects()),* }
            }

            pub(crate) fn triggered(
                self,
                x: &mut impl Run,
                n: u32,
                payload: Option<CtxValue>,
            ) {
                match self { $(Kind::$variant(k) => k.triggered(x, n, payload)),* }
            }
        }
    };
}

kinds! {
    Root(root::Root),
    Sequence(composite::Sequence),
    Selector(composite::Selector),
    Parallel(parallel::Parallel),
    IfThenElse(if_then_else::IfThenElse),
    Switch(switch::Switch),
    Inverter(inverter::Inverter),
    Repeater(repeater::Repeater),
    UntilFail(until_fail::UntilFail),
    Force(force::Force),
    Regulator(regulator::Regulator),
    Delay(delay::Delay),
    Retry(retry::Retry),
    Cooldown(cooldown::Cooldown),
    TimeLimit(time_limit::TimeLimit),
    RunOnce(run_once::RunOnce),
    Precondition(precondition::Precondition),
    QueueLoop(queue_loop::QueueLoop),
    EntryUpdated(entry_updated::EntryUpdated),
    SubTree(subtree::SubTree),
    Interrupt(interrupt::Interrupt),
    Leaf(leaf::Leaf),
    Condition(condition::Condition),
}

impl Kind {
    /// Whether it is a branch (every kind but leaves and conditions): the lifecycle counts
    /// its entry and checks its guards before the kind's own `enter`.
    #[inline]
    pub(crate) fn is_branch(self) -> bool {
        !matches!(self, Kind::Leaf(_) | Kind::Condition(_))
    }

    /// The settings every action leaf has, for an action leaf (any kind registered as
    /// an action).
    #[inline]
    pub(crate) fn leaf(self) -> Option<leaf::Leaf> {
        match self {
            Kind::Leaf(l) => Some(l),
            _ => None,
        }
    }

    /// Whether it is an action leaf.
    #[inline]
    pub(crate) fn is_leaf(self) -> bool {
        self.leaf().is_some()
    }
}

/// The specs of the structural kinds of SEMANTICS.md §1, each defined in its module here,
/// in palette order.
pub(crate) fn structure_specs() -> Vec<KindSpec> {
    Kind::specs()
}

/// Records the clock in `n`'s timer and enters its only child (a Delay's and a
/// TimeLimit's entry).
#[inline]
pub(crate) fn clocked(x: &mut impl Run, n: u32) -> Act {
    *x.timer_mut(n) = x.clock();
    only_child(x, n)
}

/// The child in slot 0 of `n` (a decorator's, SubTree's or Interrupt's only child).
/// Validation refuses one without a child; such a node fails at once.
#[inline]
pub(crate) fn only_child(x: &impl Run, n: u32) -> Act {
    match x.kids(n).first() {
        Some(&k) => Act::Enter(k),
        None => Act::Done(Status::Failure),
    }
}

/// The first move of a node with `count` children that enters the first and, without
/// one, finishes with `empty`.
pub(crate) fn opening(count: u32, empty: Status) -> Next {
    if count > 0 {
        Next::Child(0)
    } else {
        Next::Finish(empty)
    }
}

/// The first move of a node that runs its one child: that child (none: it fails at once;
/// validation refuses that).
pub(crate) fn only_child_first(count: u32) -> Option<Next> {
    Some(opening(count, Status::Failure))
}

/// A node whose entry the tree decides makes its first move (see [`Def::first`]).
#[inline]
pub(crate) fn first_move(x: &mut impl Run, n: u32, first: Next) -> Act {
    match first {
        Next::Child(slot) => {
            *x.cursor_mut(n) = slot;
            Act::Enter(x.kids(n)[slot as usize])
        }
        Next::Finish(s) => Act::Done(s),
    }
}

/// Composite `n`'s move `go` after a child reported `s`: when that ends it and its every
/// child was skipped (each child's last status is skipped), it is skipped itself
/// (SEMANTICS.md §3.7).
#[inline]
pub(crate) fn skipped_if_all(x: &impl Run, n: u32, s: Status, go: Option<Next>) -> Option<Next> {
    match go {
        Some(Next::Finish(_))
            if s == Status::Skipped
                && x.kids(n).iter().all(|&k| x.status(k) == Status::Skipped) =>
        {
            Some(Next::Finish(Status::Skipped))
        }
        go => go,
    }
}

/// A node whose reaction the tree decides finishes as its rule says.
#[inline]
pub(crate) fn finish_as(next: Option<Next>) -> Act {
    match next {
        Some(Next::Finish(s)) => Act::Done(s),
        _ => Act::Running,
    }
}

#[cfg(test)]
mod tests {
    use super::Kind;
    use crate::model::{Catalog, Category};

    /// Every kind in the built-in catalog has a definition that runs it (a branch, Root or
    /// Interrupt in its module here; a leaf or a condition through the behaviour the world
    /// registers for it), and every definition's entries are in the catalog as defined.
    #[test]
    fn every_catalog_kind_has_a_definition_and_every_definition_is_in_the_catalog() {
        let catalog = Catalog::builtin();
        let behaviours = crate::world::world_behaviours();
        for k in catalog.kinds() {
            assert!(
                Kind::defined(&k.name, k.category),
                "no definition runs '{}'",
                k.name
            );
            if matches!(k.category, Category::Leaf | Category::Condition) {
                assert!(behaviours.knows(&k.name), "no behaviour for '{}'", k.name);
            }
        }
        for spec in Kind::specs() {
            assert_eq!(
                catalog.kind(&spec.name),
                Some(&spec),
                "'{}' is defined but not in the catalog as defined",
                spec.name
            );
        }
    }
}
