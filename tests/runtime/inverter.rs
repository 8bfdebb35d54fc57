//! Inverter: swaps success and failure, but not its own guard's failure.

use crate::harness::{Run, expect};

#[test]
fn swaps_success_and_failure() {
    let mut r = Run::new(
        "root: Root | child i
         i: Inverter | child a
         a: MockAction script=S",
    );
    expect(
        &r.steps(1)[3..6],
        "1 execute a\n1 exit a success\n1 exit i failure",
    );
    let mut r = Run::new(
        "root: Root | child i
         i: Inverter | child a
         a: MockAction script=F",
    );
    expect(
        &r.steps(1)[3..6],
        "1 execute a\n1 exit a failure\n1 exit i success",
    );
}

#[test]
fn does_not_invert_its_own_guard() {
    let mut r = Run::new(
        "root: Root | child i
         i: Inverter | conditions g | child a
         g: MockCondition script=F
         a: MockAction",
    );
    expect(
        &r.step()[..5],
        "0 enter root\n0 enter i\n0 check g false\n0 exit i failure\n0 exit root failure",
    );
}
