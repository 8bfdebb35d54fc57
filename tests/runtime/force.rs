//! ForceSuccess and ForceFailure: any finished result becomes theirs.

use crate::harness::{Run, expect};

#[test]
fn force_success_turns_failure_into_success() {
    let mut r = Run::new(
        "root: Root | child f
         f: ForceSuccess | child a
         a: MockAction script=F",
    );
    expect(
        &r.steps(1)[3..7],
        "1 execute a\n1 exit a failure\n1 exit f success\n1 exit root success",
    );
}

#[test]
fn force_failure_turns_success_into_failure() {
    let mut r = Run::new(
        "root: Root | child f
         f: ForceFailure | child a
         a: MockAction script=S",
    );
    expect(
        &r.steps(1)[3..7],
        "1 execute a\n1 exit a success\n1 exit f failure\n1 exit root failure",
    );
}
