//! LoopInt, LoopDouble, LoopString and LoopBool (SEMANTICS.md §3.3.1): the child runs once
//! for each element of the queue, stored under the value's key first; a failure ends the
//! loop; after the last element it finishes with `if_empty`.

use arbor::runtime::CtxValue;

use crate::harness::{Run, expect};

#[test]
fn each_element_is_stored_before_a_run_of_the_child_and_a_failure_ends_it() {
    let mut r = Run::new(
        "root: Root | child l
         l: LoopInt queue=1;2;3 value=@x | child s
         s: Sequence | children c a
         c: ScriptCondition code=x!=2
         a: MockAction script=S",
    );
    expect(
        &r.steps(1),
        "0 enter root\n0 enter l\n0 context l x=1\n0 enter s\n0 enter c\n0 check c true\n0 exit c success\n0 enter a\n1 execute a\n1 exit a success\n1 exit s success\n1 context l x=2\n1 enter s\n1 enter c\n1 check c false\n1 exit c failure\n1 exit s failure\n1 exit l failure\n1 exit root failure\n1 complete root failure\n1 restart root complete\n1 enter root\n1 enter l\n1 context l x=1\n1 enter s\n1 enter c\n1 check c true\n1 exit c success\n1 enter a",
    );
}

#[test]
fn after_the_last_element_or_with_none_it_finishes_with_if_empty() {
    for (queue, empty, result) in [
        ("a;b", "SUCCESS", "success"),
        ("a;b", "FAILURE", "failure"),
        ("", "FAILURE", "failure"),
    ] {
        let mut r = Run::new(&format!(
            "root: Root | child l
             l: LoopString queue={queue} value=@word if_empty={empty} | child a
             a: MockAction script=S"
        ));
        r.steps(2);
        let runs = if queue.is_empty() { 0 } else { 2 };
        assert_eq!(r.counts("a").executions, runs, "{queue}");
        assert!(
            r.of("l").contains(&format!("{} exit l {result}", runs)),
            "{:?}",
            r.of("l")
        );
    }
}

#[test]
fn elements_are_numbers_texts_or_truth_values_and_one_that_is_not_fails_the_loop() {
    let mut r = Run::new(
        "root: Root | child l
         l: LoopBool queue=true;0;maybe value=@flag | child a
         a: MockAction script=S",
    );
    r.steps(1);
    assert_eq!(r.context("flag"), Some(CtxValue::Bool(false)));
    r.steps(1);
    assert!(
        r.of("l").contains(&"2 exit l failure".to_owned()),
        "{:?}",
        r.of("l")
    );
    let mut r = Run::new(
        "root: Root | child l
         l: LoopDouble queue=2.5;-1e1 value=@d | child a
         a: MockAction script=RS",
    );
    r.steps(3);
    assert_eq!(r.context("d"), Some(CtxValue::Number(-10.0)));
}

#[test]
fn an_element_its_key_cannot_hold_fails_the_loop() {
    let mut r = Run::declaring(
        "root: Root | child l
         l: LoopString queue=abc value=@flag | child a
         a: MockAction script=S",
        vec![arbor::model::KeyDecl::new(
            "flag",
            arbor::model::KeyType::Bool,
        )],
    );
    r.steps(1);
    assert_eq!(r.context("flag"), None);
    assert!(
        r.of("l").contains(&"0 exit l failure".to_owned()),
        "{:?}",
        r.of("l")
    );
}
