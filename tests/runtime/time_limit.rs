//! TimeLimit (SEMANTICS.md §3.3.1): aborts its child and fails once the child has run `seconds`,
//! checked in phase 2 as a guard on itself, after its own conditions.

use crate::harness::{Run, expect};

#[test]
fn it_aborts_its_child_and_fails_when_the_time_is_up() {
    // dt is 0.1 s: 0.3 s is up in step 3 (within 1e-9 of the sum of three dts).
    let mut r = Run::new(
        "root: Root | child tl
         tl: TimeLimit seconds=0.3 | conditions g | child a
         g: MockCondition script=T
         a: MockAction script=R",
    );
    expect(
        &r.steps(3),
        "0 enter root\n0 enter tl\n0 check g true\n0 enter a\n1 check g true\n1 execute a\n2 check g true\n2 execute a\n3 check g true\n3 abort a\n3 exit tl failure\n3 exit root failure\n3 complete root failure\n3 restart root complete\n3 enter root\n3 enter tl\n3 check g true\n3 enter a",
    );
    assert_eq!(r.counts("a").aborts, 1);
}

#[test]
fn a_guard_further_out_is_checked_first() {
    // In step 2 both would fail (0.2 s is past 0.15 s): the Sequence's guard, further
    // out, is checked first, and the TimeLimit is aborted with the rest below it.
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | conditions g | children tl b
         tl: TimeLimit seconds=0.15 | child a
         g: MockCondition script=TTF
         a: MockAction script=RS
         b: MockAction script=R",
    );
    expect(
        &r.steps(2)[..11],
        "0 enter root\n0 enter s\n0 check g true\n0 enter tl\n0 enter a\n1 check g true\n1 execute a\n2 check g false\n2 abort a\n2 abort tl\n2 exit s failure",
    );
}

#[test]
fn a_child_that_finished_in_time_is_not_limited_any_more() {
    // `a` succeeds in step 1 (0.1 s); `b` then runs past 0.15 s under the same Sequence.
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children tl b
         tl: TimeLimit seconds=0.15 | child a
         a: MockAction script=S
         b: MockAction script=RRRS",
    );
    expect(
        &r.steps(4),
        "0 enter root\n0 enter s\n0 enter tl\n0 enter a\n1 execute a\n1 exit a success\n1 exit tl success\n1 enter b\n2 execute b\n3 execute b\n4 execute b",
    );
}
