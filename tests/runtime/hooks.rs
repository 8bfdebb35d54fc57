//! A node's hooks (SEMANTICS.md §3.7): `_failureIf` and `_successIf` checked as it is
//! entered, `_onSuccess`, `_onFailure` and `_post` run as it finishes, `_onHalted` as it
//! is aborted.

use arbor::model::{KeyDecl, KeyType};
use arbor::runtime::CtxValue;

use crate::harness::{Run, expect};

fn number(n: f64) -> Option<CtxValue> {
    Some(CtxValue::Number(n))
}

#[test]
fn a_leaf_whose_failure_if_holds_fails_without_running_and_runs_its_failure_hooks() {
    // `a` is entered after `go` set `tired`.
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children go t
         go: Script code=tired:=1
         t: Selector | children a b
         a: MockAction script=S _failureIf=tired==1 _onSuccess=won:=1 _onFailure=n:=5 _post=n*=2
         b: MockAction script=R",
    );
    let events = r.steps(2);
    assert!(
        events.contains(&"1 enter a".to_owned())
            && events.contains(&"1 exit a failure (its _failureIf holds)".to_owned())
            && events.contains(&"1 context a n=5".to_owned())
            && events.contains(&"1 context a n=10".to_owned())
            && events.contains(&"1 enter b".to_owned()),
        "{events:#?}"
    );
    assert!(
        !events.iter().any(|e| e.contains("execute a")),
        "{events:#?}"
    );
    assert_eq!(r.counts("a").entries, 0, "its action is never called");
    assert_eq!(r.context("won"), None);
    assert_eq!(r.context("n"), number(10.0), "_post runs after _onFailure");
}

#[test]
fn a_branch_whose_success_if_holds_succeeds_without_entering_a_child() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children go d after
         go: Script code=done:=1
         d: Sequence _successIf=done==1 _failureIf=done==2 _onSuccess=seen:=1 | children a
         a: MockAction script=F
         after: MockAction script=R",
    );
    let events = r.steps(2);
    let of_d: Vec<&String> = events
        .iter()
        .filter(|e| e.split(' ').nth(2) == Some("d"))
        .collect();
    assert_eq!(
        of_d,
        ["1 enter d", "1 context d seen=1", "1 exit d success"]
    );
    assert_eq!(r.counts("a").entries, 0);
    assert!(events.contains(&"1 enter after".to_owned()), "{events:#?}");
}

#[test]
fn failure_if_is_checked_before_success_if() {
    let mut r = Run::new(
        "root: Root | child s
         s: Selector | children d after
         d: MockAction script=S _failureIf=1==1 _successIf=1==1
         after: MockAction script=R",
    );
    expect(
        &r.steps(1),
        "0 enter root\n0 enter s\n0 enter d\n0 exit d failure (its _failureIf holds)\n0 enter after\n1 execute after",
    );
}

#[test]
fn hooks_that_do_not_hold_leave_the_node_to_run_and_its_success_hooks_run_in_order() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children a b
         a: MockAction script=RS _failureIf=n==1 _successIf=n==2 _onSuccess=n:=1 _onFailure=n:=7 _post=n+=1
         b: MockAction script=R",
    );
    let events = r.steps(3);
    assert!(
        events.contains(&"2 exit a success".to_owned()),
        "{events:#?}"
    );
    assert_eq!(r.counts("a").executions, 2);
    assert_eq!(r.context("n"), number(2.0), "_onSuccess, then _post");
}

#[test]
fn on_halted_runs_when_a_running_node_is_aborted_and_not_when_it_finishes() {
    // The Parallel succeeds with its first child and aborts the second, which runs.
    let mut r = Run::new(
        "root: Root | child p
         p: Parallel success=one | children a b
         a: MockAction script=RS _onHalted=ha:=1
         b: MockAction script=RRRR _onHalted=hb:=1 _post=pb:=1",
    );
    let events = r.steps(2);
    let of_b: Vec<&String> = events
        .iter()
        .filter(|e| e.contains(" b") && !e.contains("execute"))
        .collect();
    // (Root then starts the next run.)
    assert_eq!(
        of_b,
        ["0 enter b", "2 context b hb=1", "2 abort b", "2 enter b"]
    );
    assert_eq!(r.context("ha"), None, "a finished");
    assert_eq!(
        r.context("pb"),
        None,
        "_post runs as a node finishes, not as it is aborted"
    );
}

#[test]
fn a_hook_whose_value_does_not_fit_its_key_stores_nothing() {
    let mut r = Run::declaring(
        "root: Root | child s
         s: Sequence | children a b
         a: MockAction script=S _onSuccess=count:=1;count:='many'
         b: MockAction script=R _onFailure=never:=1",
        vec![
            KeyDecl::new("count", KeyType::Int),
            KeyDecl::new("never", KeyType::Int),
        ],
    );
    let events = r.steps(2);
    assert!(
        events.contains(&"1 exit a success".to_owned()),
        "{events:#?}"
    );
    assert!(
        !events.iter().any(|e| e.contains("context a")),
        "{events:#?}"
    );
    assert_eq!(r.context("count"), None);
}
