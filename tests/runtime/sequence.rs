//! Sequence: children in order; failure halts unless halt_on_failure is false.

use crate::harness::{Run, expect};

#[test]
fn runs_children_in_slot_order() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children a b
         a: MockAction script=S
         b: MockAction script=RS",
    );
    expect(
        &r.steps(3),
        "0 enter root\n0 enter s\n0 enter a\n1 execute a\n1 exit a success\n1 enter b\n2 execute b\n3 execute b\n3 exit b success\n3 exit s success\n3 exit root success\n3 complete root success\n3 restart root complete\n3 enter root\n3 enter s\n3 enter a",
    );
}

#[test]
fn a_failure_ends_it() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children a b
         a: MockAction script=F
         b: MockAction",
    );
    expect(
        &r.steps(2)[3..8],
        "1 execute a\n1 exit a failure\n1 exit s failure\n1 exit root failure\n1 complete root failure",
    );
    assert_eq!(r.counts("b").entries, 0);
    assert_eq!(r.instance.stats().failed, 2);
}

#[test]
fn without_halt_on_failure_it_moves_on() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence halt_on_failure=false | children a b
         a: MockAction script=F
         b: MockAction script=S",
    );
    expect(
        &r.steps(2)[3..],
        "1 execute a\n1 exit a failure\n1 enter b\n2 execute b\n2 exit b success\n2 exit s success\n2 exit root success\n2 complete root success\n2 restart root complete\n2 enter root\n2 enter s\n2 enter a",
    );
}

#[test]
fn its_guard_is_checked_on_entry_before_any_child() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | conditions g | children a
         g: MockCondition script=FT
         a: MockAction script=S",
    );
    expect(
        &r.step(),
        "0 enter root\n0 enter s\n0 check g false\n0 exit s failure\n0 exit root failure\n0 complete root failure\n0 stall root\n1 restart root stall\n1 enter root\n1 enter s\n1 check g true\n1 enter a",
    );
    assert_eq!(
        r.counts("a").executions,
        0,
        "entered at the end of step 1, executed from step 2"
    );
}
