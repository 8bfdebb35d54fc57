//! An action's writing fields (SEMANTICS.md §3.5): a field its kind says the node writes
//! (`"direction": "out"` or `"inout"`, a BehaviorTree.CPP output port), bound to a key, is
//! where the game's action puts a value as it executes (`NodeSpec::output`,
//! `LeafIo::set_output`). It is stored as `on_execute` returns, made the key's type; a
//! value that does not fit fails the action and stores nothing.

use arbor::model::{
    Catalog, Category, FieldDirection, FieldSpec, FieldType, KeyDecl, KeyType, KindSpec,
};
use arbor::runtime::{Action, Behaviours, LeafIo, Outcome, Output};

use crate::harness::{Counters, Run, expect, number, tree};

/// A game's action that finds a spot: it writes `spot` (out) as it executes, and `count`
/// (inout) one more than the value it read at its entry; what it sets as it is entered is
/// dropped. With `bad`, it writes a text into `spot`.
struct Locate {
    spot: Option<Output>,
    count: Option<Output>,
    /// What `NodeSpec::output` says of a field that only reads.
    label: Option<Output>,
    seen: f64,
    bad: bool,
    /// Writes `spot` as it is entered and as it exits, never as it executes.
    quiet: bool,
}

impl Action<()> for Locate {
    type Memory = ();
    fn on_enter(&self, _: &mut (), _: &mut (), io: &mut LeafIo<'_>) {
        if let Some(spot) = self.spot {
            io.set_output(spot, 99.0);
        }
    }
    fn on_exit(&self, _: &mut (), _: &mut (), io: &mut LeafIo<'_>, _: arbor::runtime::Status) {
        if let Some(spot) = self.spot {
            io.set_output(spot, 77.0);
        }
    }
    fn on_execute(&self, _: &mut (), _: &mut (), io: &mut LeafIo<'_>, _: f64) -> Outcome {
        assert!(self.label.is_none());
        if let Some(spot) = self.spot.filter(|_| !self.quiet) {
            match self.bad {
                true => io.set_output(spot, "far away"),
                false => io.set_output(spot, 2.5),
            }
        }
        if let Some(count) = self.count {
            io.set_output(count, self.seen + 1.0);
        }
        Outcome::Success
    }
}

fn catalog() -> Catalog {
    let mut c = Catalog::builtin();
    let float = FieldType::Float {
        min: -f64::MAX,
        min_exclusive: false,
        max: f64::MAX,
    };
    c.register(KindSpec::new(
        "Locate",
        Category::Leaf,
        "A game's action with output ports.",
        vec![
            FieldSpec::optional("spot", float.clone(), "").with_direction(FieldDirection::Out),
            FieldSpec::optional("count", float, "").with_direction(FieldDirection::InOut),
            FieldSpec::optional("label", FieldType::Text, ""),
            FieldSpec::optional("bad", FieldType::Bool, ""),
            FieldSpec::optional("quiet", FieldType::Bool, ""),
        ],
    ))
    .unwrap();
    c
}

fn run(src: &str) -> Run {
    let mut b = Behaviours::<()>::with_builtins();
    b.action("Locate", |spec| {
        Ok(Locate {
            spot: spec.output("spot"),
            count: spec.output("count"),
            label: spec.output("label"),
            seen: spec.number("count").unwrap_or(0.0),
            bad: spec.flag("bad"),
            quiet: spec.flag("quiet"),
        })
    });
    let mut t = tree(src);
    t.keys = Some(vec![
        KeyDecl::new("spot", KeyType::Float),
        KeyDecl {
            default: Some(arbor::model::Value::Float(1.0)),
            ..KeyDecl::new("count", KeyType::Float)
        },
        KeyDecl {
            default: Some(arbor::model::Value::Text("north".into())),
            ..KeyDecl::new("where", KeyType::Text)
        },
    ]);
    Run::compiled(&t, &catalog(), &b, Counters::default(), 0)
}

#[test]
fn an_action_writes_its_output_fields_keys_as_it_executes() {
    let mut r = run("root: Root | child s
         s: Sequence | children loc after
         loc: Locate spot=@spot count=@count label=@where
         after: MockAction script=S");
    // Stored as the execute returns, before the leaf exits; what `on_enter` set is not.
    expect(
        &r.steps(1),
        "0 context root count=1\n0 context root where=\"north\"\n0 enter root\n0 enter s\n0 enter loc\n1 execute loc\n1 context loc spot=2.5\n1 context loc count=2\n1 exit loc success\n1 enter after",
    );
    assert_eq!(r.context("spot"), number(2.5));
    assert_eq!(r.context("count"), number(2.0));
}

#[test]
fn an_output_that_does_not_fit_its_key_stores_nothing_and_fails_the_action() {
    let mut r = run("root: Root | child loc
         loc: Locate spot=@spot count=@count bad=true");
    let events = r.steps(1);
    assert!(
        events.contains(
            &"1 exit loc failure (a value it wrote does not fit its key's type)".to_owned()
        ),
        "{events:#?}"
    );
    assert!(
        !events.iter().any(|e| e.contains("context loc")),
        "{events:#?}"
    );
    assert_eq!(r.context("spot"), None);
    assert_eq!(r.context("count"), number(1.0));
}

#[test]
fn an_output_field_given_a_value_rather_than_a_key_writes_nothing() {
    let mut r = run("root: Root | child loc
         loc: Locate spot=3.5");
    let events = r.steps(1);
    assert!(
        events.contains(&"1 exit loc success".to_owned()),
        "{events:#?}"
    );
    assert!(
        !events.iter().any(|e| e.contains("context loc")),
        "{events:#?}"
    );
    assert_eq!(r.context("spot"), None);
}

#[test]
fn an_action_with_no_field_read_at_its_entry_writes_its_outputs_too() {
    // (Made once as the tree compiles, not again at each entry.)
    let mut r = run("root: Root | child s
         s: Sequence | children loc after
         loc: Locate spot=@spot
         after: MockAction script=RS");
    let events = r.steps(1);
    assert!(
        events.contains(&"1 context loc spot=2.5".to_owned()),
        "{events:#?}"
    );
    assert_eq!(r.context("spot"), number(2.5));
}

#[test]
fn what_an_action_sets_as_it_is_entered_or_exits_is_not_stored_by_it_nor_by_a_later_writer() {
    // `loc` sets `spot` in `on_enter` and `on_exit` only; `next`, a writer after it, stores
    // its own `count` and nothing of what `loc` set.
    let mut r = run("root: Root | child s
         s: Sequence | children loc next after
         loc: Locate spot=@spot quiet=true
         next: Locate count=@count
         after: MockAction script=RS");
    let events = r.steps(3);
    assert!(
        events.contains(&"1 exit loc success".to_owned()),
        "{events:#?}"
    );
    assert!(
        events.contains(&"2 context next count=2".to_owned()),
        "{events:#?}"
    );
    assert!(!events.iter().any(|e| e.contains("spot")), "{events:#?}");
    assert_eq!(r.context("spot"), None);
}
