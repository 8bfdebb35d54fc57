//! Parallel: all children at once; each success and failure policy.

use crate::harness::{Run, expect};

fn par(policy: &str, a: &str, b: &str) -> Run {
    Run::new(&format!(
        "root: Root | child p
         p: Parallel {policy} | children a b
         a: MockAction script={a}
         b: MockAction script={b}"
    ))
}

#[test]
fn success_all_waits_for_every_child() {
    let mut r = par("", "RS", "RRS");
    expect(
        &r.steps(3),
        "0 enter root\n0 enter p\n0 enter a\n0 enter b\n1 execute a\n1 execute b\n2 execute a\n2 exit a success\n2 execute b\n3 execute b\n3 exit b success\n3 exit p success\n3 exit root success\n3 complete root success\n3 restart root complete\n3 enter root\n3 enter p\n3 enter a\n3 enter b",
    );
}

#[test]
fn failure_one_fails_at_the_first_failure_and_aborts_the_rest() {
    let mut r = par("", "RF", "RRRS");
    expect(
        &r.steps(2)[4..],
        "1 execute a\n1 execute b\n2 execute a\n2 exit a failure\n2 execute b\n2 abort b\n2 exit p failure\n2 exit root failure\n2 complete root failure\n2 restart root complete\n2 enter root\n2 enter p\n2 enter a\n2 enter b",
    );
    assert_eq!(r.counts("b").aborts, 1);
}

#[test]
fn success_one_succeeds_at_the_first_success() {
    let mut r = par("success=one", "RRS", "RS");
    let events = r.steps(2);
    expect(
        &events[4..11],
        "1 execute a\n1 execute b\n2 execute a\n2 execute b\n2 exit b success\n2 abort a\n2 exit p success",
    );
}

#[test]
fn failure_all_waits_for_every_failure() {
    let mut r = par("failure=all", "F", "RF");
    expect(
        &r.steps(2)[4..],
        "1 execute a\n1 exit a failure\n1 execute b\n2 execute b\n2 exit b failure\n2 exit p failure\n2 exit root failure\n2 complete root failure\n2 restart root complete\n2 enter root\n2 enter p\n2 enter a\n2 enter b",
    );
}

#[test]
fn when_all_finished_and_no_policy_holds_it_fails() {
    let mut r = par("failure=all", "S", "F");
    let events = r.steps(1);
    expect(
        &events[4..9],
        "1 execute a\n1 exit a success\n1 execute b\n1 exit b failure\n1 exit p failure",
    );
}

#[test]
fn an_instant_child_that_decides_stops_the_entering() {
    let mut r = Run::new(
        "root: Root | child p
         p: Parallel success=one | children c a
         c: MockCondition script=T
         a: MockAction",
    );
    expect(
        &r.step()[..7],
        "0 enter root\n0 enter p\n0 enter c\n0 check c true\n0 exit c success\n0 exit p success\n0 exit root success",
    );
    assert_eq!(r.counts("a").entries, 0);
}
