//! Repeater: re-enters its child after each success, `times` runs in all.

use crate::harness::{Run, expect};

#[test]
fn times_3_gives_three_runs() {
    let mut r = Run::new(
        "root: Root | child rep
         rep: Repeater times=3 | child a
         a: MockAction script=S",
    );
    expect(
        &r.steps(3),
        "0 enter root\n0 enter rep\n0 enter a\n1 execute a\n1 exit a success\n1 enter a\n2 execute a\n2 exit a success\n2 enter a\n3 execute a\n3 exit a success\n3 exit rep success\n3 exit root success\n3 complete root success\n3 restart root complete\n3 enter root\n3 enter rep\n3 enter a",
    );
    assert_eq!(r.counts("a").exits, 3);
}

#[test]
fn a_failure_ends_it_unless_failures_are_ignored() {
    let mut r = Run::new(
        "root: Root | child rep
         rep: Repeater times=3 | child a
         a: MockAction script=F",
    );
    expect(
        &r.steps(1)[3..6],
        "1 execute a\n1 exit a failure\n1 exit rep failure",
    );
    let mut r = Run::new(
        "root: Root | child rep
         rep: Repeater times=2 ignore_failures=true | child a
         a: MockAction script=F",
    );
    expect(
        &r.steps(2)[3..9],
        "1 execute a\n1 exit a failure\n1 enter a\n2 execute a\n2 exit a failure\n2 exit rep success",
    );
}

#[test]
fn a_forever_repeater_runs_until_stopped() {
    let mut r = Run::new(
        "root: Root | child rep
         rep: Repeater | child a
         a: MockAction script=S",
    );
    r.steps(50);
    assert_eq!(r.counts("a").exits, 50);
    assert_eq!(r.instance.stats().succeeded + r.instance.stats().failed, 0);
}

#[test]
fn a_forever_repeater_over_an_instant_child_stalls() {
    let mut r = Run::new(
        "root: Root | child rep
         rep: Repeater | child c
         c: MockCondition script=T",
    );
    expect(
        &r.step(),
        "0 enter root\n0 enter rep\n0 enter c\n0 check c true\n0 exit c success\n0 stall rep\n0 abort rep\n0 abort root\n1 restart root stall\n1 enter root\n1 enter rep\n1 enter c\n1 check c true\n1 exit c success\n1 stall rep\n1 abort rep\n1 abort root",
    );
}

#[test]
fn a_finite_repeater_runs_its_instant_iterations() {
    let mut r = Run::new(
        "root: Root | child rep
         rep: Repeater times=3 | child c
         c: MockCondition script=T",
    );
    let events: Vec<String> = r
        .step()
        .into_iter()
        .filter(|e| e.starts_with("0 "))
        .collect();
    assert_eq!(
        events
            .iter()
            .filter(|e| e.as_str() == "0 check c true")
            .count(),
        3
    );
    assert!(events.contains(&"0 exit rep success".to_string()));
    assert_eq!(events.last().unwrap(), "0 stall root");
}
