//! Selector: the first success ends it; all failed is failure.

use crate::harness::{Run, expect};

#[test]
fn the_first_success_ends_it() {
    let mut r = Run::new(
        "root: Root | child s
         s: Selector | children a b c
         a: MockAction script=F
         b: MockAction script=RS
         c: MockAction",
    );
    expect(
        &r.steps(3)[3..9],
        "1 execute a\n1 exit a failure\n1 enter b\n2 execute b\n3 execute b\n3 exit b success",
    );
    assert_eq!(r.log[9], "3 exit s success");
    assert_eq!(r.counts("c").entries, 0);
}

#[test]
fn all_failed_is_failure() {
    let mut r = Run::new(
        "root: Root | child s
         s: Selector | children a b
         a: MockAction script=F
         b: MockAction script=F",
    );
    expect(
        &r.steps(2)[3..],
        "1 execute a\n1 exit a failure\n1 enter b\n2 execute b\n2 exit b failure\n2 exit s failure\n2 exit root failure\n2 complete root failure\n2 restart root complete\n2 enter root\n2 enter s\n2 enter a",
    );
}
