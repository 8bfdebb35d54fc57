//! Conditions: as a child (enter, check, exit at once) and as a guard (check every step).

use crate::harness::{Run, expect};

#[test]
fn a_condition_as_a_child_answers_at_once() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children c a
         c: MockCondition script=T
         a: MockAction script=S",
    );
    expect(
        &r.step()[..6],
        "0 enter root\n0 enter s\n0 enter c\n0 check c true\n0 exit c success\n0 enter a",
    );
}

#[test]
fn invert_flips_the_result() {
    let mut r = Run::new(
        "root: Root | child s
         s: Selector | children c a
         c: MockCondition script=T invert=true
         a: MockAction script=S",
    );
    expect(
        &r.step()[2..6],
        "0 enter c\n0 check c false\n0 exit c failure\n0 enter a",
    );
}

#[test]
fn guards_are_checked_every_step_outermost_first_each_branch_once() {
    let mut r = Run::new(
        "root: Root | child outer
         outer: Sequence | conditions g1 g2 | children inner
         g1: MockCondition script=T
         g2: MockCondition script=T
         inner: Parallel | conditions g3 | children a b
         g3: MockCondition script=T
         a: MockAction script=R
         b: MockAction script=R",
    );
    r.step();
    expect(
        &r.step(),
        "2 check g1 true\n2 check g2 true\n2 check g3 true\n2 execute a\n2 execute b",
    );
}

#[test]
fn a_failing_guard_aborts_only_the_leaves_under_its_branch() {
    let mut r = Run::new(
        "root: Root | child p
         p: Parallel failure=all | children s1 s2
         s1: Sequence | conditions g | children a
         s2: Sequence | children b
         g: MockCondition script=TTF
         a: MockAction script=R
         b: MockAction script=R",
    );
    r.step();
    expect(
        &r.step(),
        "2 check g false\n2 abort a\n2 exit s1 failure\n2 execute b",
    );
    assert_eq!(r.counts("a").aborts, 1);
    assert_eq!(r.counts("b").aborts, 0);
    assert_eq!(r.instance.active_leaves().len(), 1);
}

#[test]
fn the_first_false_guard_stops_the_checks() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | conditions g1 g2 | children a
         g1: MockCondition script=TF
         g2: MockCondition script=T
         a: MockAction script=R",
    );
    let events = r.step();
    expect(
        &events[..5],
        "0 enter root\n0 enter s\n0 check g1 true\n0 check g2 true\n0 enter a",
    );
    expect(
        &events[5..8],
        "1 check g1 false\n1 abort a\n1 exit s failure",
    );
}

#[test]
fn always_success_and_always_failure_answer_at_once_as_children() {
    let mut r = Run::new(
        "root: Root | child sel
         sel: Selector | children no yes act
         no: AlwaysFailure
         yes: AlwaysSuccess
         act: MockAction script=R",
    );
    // The run finishes in the step it began: the tree stalls (§3.6).
    let step_0: Vec<String> = r
        .steps(1)
        .into_iter()
        .filter(|l| l.starts_with("0 "))
        .collect();
    expect(
        &step_0,
        "
         0 enter root
         0 enter sel
         0 enter no
         0 check no false
         0 exit no failure
         0 enter yes
         0 check yes true
         0 exit yes success
         0 exit sel success
         0 exit root success
         0 complete root success
         0 stall root",
    );
}
