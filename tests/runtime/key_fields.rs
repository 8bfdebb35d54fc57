//! Fields bound to keys (docs/SEMANTICS.md §3.5): an action's own field holding
//! `{"key": NAME}` is read from the context when the leaf is entered, and holds that value
//! until it exits; a condition's, at each check. A key without a value, or with one the
//! field does not take, fails the leaf (with a reason) and does not hold for a condition.

use arbor::model::{KeyDecl, KeyType, Value};

use crate::harness::{Run, expect};

fn text_key(name: &str, default: &str) -> KeyDecl {
    KeyDecl {
        default: Some(Value::Text(default.into())),
        ..KeyDecl::new(name, KeyType::Text)
    }
}

#[test]
fn an_actions_field_is_read_from_its_key_at_each_entry_and_kept_while_it_runs() {
    let mut r = Run::declaring(
        "root: Root | child seq
         seq: Sequence | children act set again
         act: MockAction script=@plan
         set: MockAction script=S produces=F out_context=plan
         again: MockAction script=@plan",
        vec![text_key("plan", "RS")],
    );
    // `act` plays "RS" (the default); `set` writes "F"; `again` is entered after it and
    // plays "F". The run completes (failed), the context is cleared back to its default,
    // and `act` plays "RS" again.
    expect(
        &r.steps(4),
        "0 context root plan=\"RS\"\n0 enter root\n0 enter seq\n0 enter act\n1 execute act\n2 execute act\n2 exit act success\n2 enter set\n3 execute set\n3 context set plan=\"F\"\n3 exit set success\n3 enter again\n4 execute again\n4 exit again failure\n4 exit seq failure\n4 exit root failure\n4 complete root failure\n4 context root plan=\"RS\"\n4 restart root complete\n4 enter root\n4 enter seq\n4 enter act",
    );
    expect(&r.steps(1), "5 execute act");
}

#[test]
fn a_running_leaf_keeps_the_value_its_key_had_at_its_entry() {
    let mut r = Run::declaring(
        "root: Root | child par
         par: Parallel | children slow set
         slow: MockAction script=@plan
         set: MockAction script=S produces=F out_context=plan",
        vec![text_key("plan", "RRRS")],
    );
    r.steps(4);
    // `set` writes "F" at step 1; `slow`, entered with "RRRS", plays it to the end.
    assert!(r.log.contains(&"1 context set plan=\"F\"".to_owned()));
    assert!(
        r.log.contains(&"4 exit slow success".to_owned()),
        "{:#?}",
        r.log
    );
}

#[test]
fn a_key_without_a_value_or_with_one_the_field_does_not_take_fails_the_leaf_with_a_reason() {
    let mut r = Run::new(
        "root: Root | child act
         act: MockAction script=@plan",
    );
    expect(
        &r.steps(1),
        "0 enter root\n0 enter act\n1 execute act\n1 exit act failure (a key-bound field's key holds no value)\n1 exit root failure\n1 complete root failure\n1 restart root complete\n1 enter root\n1 enter act",
    );
    // "XYZ" is not a script of R, S and F.
    let mut r = Run::declaring(
        "root: Root | child act
         act: MockAction script=@plan",
        vec![text_key("plan", "XYZ")],
    );
    let events = r.steps(1);
    assert!(
        events
            .contains(&"1 exit act failure (a key-bound field's value does not fit it)".to_owned()),
        "{events:#?}"
    );
}

#[test]
fn a_guards_field_is_read_from_its_key_at_each_check() {
    let mut r = Run::declaring(
        "root: Root | child seq
         seq: Sequence | conditions ok | children set wait
         ok: MockCondition script=@answer
         set: MockAction script=S produces=F out_context=answer
         wait: MockAction script=R",
        vec![text_key("answer", "T")],
    );
    // The guard holds on "T"; `set` writes "F", and the next check fails the Sequence.
    expect(
        &r.steps(2),
        "0 context root answer=\"T\"\n0 enter root\n0 enter seq\n0 check ok true\n0 enter set\n1 check ok true\n1 execute set\n1 context set answer=\"F\"\n1 exit set success\n1 enter wait\n2 check ok false\n2 abort wait\n2 exit seq failure\n2 exit root failure\n2 complete root failure\n2 context root answer=\"T\"\n2 restart root complete\n2 enter root\n2 enter seq\n2 check ok true\n2 enter set",
    );
}
