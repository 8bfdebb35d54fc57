//! Script and UnsetKey (SEMANTICS.md §3.1): actions that set and clear keys as they
//! execute, a value that does not fit its key failing the action.

use arbor::model::{KeyDecl, KeyType, Value};
use arbor::runtime::CtxValue;

use crate::harness::{Run, expect, number};

#[test]
fn a_script_sets_its_keys_in_order_and_reads_what_it_set() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children a b
         a: Script code=n:=2;m:=n*3;n+=1;name:='r'..m
         b: MockAction script=R in_context=m",
    );
    expect(
        &r.steps(2),
        "0 enter root\n0 enter s\n0 enter a\n1 execute a\n1 context a n=3\n1 context a m=6\n1 context a name=\"r6\"\n1 exit a success\n1 enter b\n2 execute b",
    );
    assert_eq!(r.context("m"), number(6.0));
}

#[test]
fn a_script_produces_its_value_for_out_context() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children a b
         a: Script code=x:=4;x>3 out_context=big
         b: MockAction script=R",
    );
    r.steps(2);
    assert_eq!(r.context("x"), number(4.0));
    assert_eq!(r.context("big"), number(1.0));
}

#[test]
fn a_script_without_a_value_sets_nothing_and_fails() {
    // `=` sets a key that has a value: `missing` has none.
    let mut r = Run::new(
        "root: Root | child s
         s: Selector | children a b
         a: Script code=n:=1;missing=2
         b: MockAction script=R",
    );
    expect(
        &r.steps(1),
        "0 enter root\n0 enter s\n0 enter a\n1 execute a\n1 exit a failure (its script has no value)\n1 enter b",
    );
    assert_eq!(r.context("n"), None);
}

#[test]
fn a_value_is_made_its_keys_type_or_fails_the_script() {
    let keys = vec![
        KeyDecl::new("ready", KeyType::Bool),
        KeyDecl::new("count", KeyType::Int),
        KeyDecl::new("label", KeyType::Text),
        KeyDecl::new("made", KeyType::Any),
    ];
    let mut r = Run::declaring(
        "root: Root | child s
         s: Sequence | children a b c
         a: Script code=ready:=1;count:='7';label:=3
         b: Script code=count:=0.5 out_context=made
         c: MockAction script=R",
        keys,
    );
    r.steps(3);
    assert_eq!(r.context("ready"), Some(CtxValue::Bool(true)));
    assert_eq!(r.context("count"), number(7.0), "0.5 is not an int");
    assert_eq!(r.context("made"), None, "nor is what it produced stored");
    assert_eq!(r.context("label"), Some(CtxValue::Text("3".into())));
    assert!(
        r.of("b")
            .contains(&"2 exit b failure (a value it wrote does not fit its key's type)".into()),
        "{:?}",
        r.of("b")
    );
}

#[test]
fn unset_key_clears_its_key() {
    let mut r = Run::declaring(
        "root: Root | child s
         s: Sequence | children a b c
         a: UnsetKey out_context=goal
         b: HasContext key=goal invert=true
         c: MockAction script=R",
        vec![KeyDecl {
            default: Some(Value::Text("door".into())),
            ..KeyDecl::new("goal", KeyType::Text)
        }],
    );
    expect(
        &r.steps(2),
        "0 context root goal=\"door\"\n0 enter root\n0 enter s\n0 enter a\n1 execute a\n1 context a goal removed\n1 exit a success\n1 enter b\n1 check b true\n1 exit b success\n1 enter c\n2 execute c",
    );
}

#[test]
fn a_script_as_a_service_sets_its_keys_each_time_it_runs() {
    let mut r = Run::declaring(
        "root: Root | child seq
         seq: Sequence | services count | children work
         count: Script code=ticks+=1 interval=0.2
         work: MockAction script=R",
        vec![KeyDecl {
            default: Some(Value::Int(0)),
            ..KeyDecl::new("ticks", KeyType::Int)
        }],
    );
    r.steps(4);
    assert_eq!(r.context("ticks"), number(3.0), "at steps 0, 2 and 4");
    assert!(
        r.of("count")
            .contains(&"4 context count ticks=3".to_owned()),
        "{:?}",
        r.of("count")
    );
}
