//! Delay (SEMANTICS.md §3.3.1): enters its child at once; the leaves below it execute only
//! once `seconds` have passed since its entry, their guards checked meanwhile.

use crate::harness::{Run, expect};

#[test]
fn its_leaves_execute_once_the_time_has_passed() {
    // dt is 0.1 s: 0.3 s has passed at step 3 (within 1e-9 of the sum of three dts).
    let mut r = Run::new(
        "root: Root | child d
         d: Delay seconds=0.3 | child s
         s: Sequence | conditions g | children a b
         g: MockCondition script=T
         a: MockAction script=S
         b: MockAction script=S",
    );
    expect(
        &r.steps(4),
        "0 enter root\n0 enter d\n0 enter s\n0 check g true\n0 enter a\n1 check g true\n2 check g true\n3 check g true\n3 execute a\n3 exit a success\n3 enter b\n4 check g true\n4 execute b\n4 exit b success\n4 exit s success\n4 exit d success\n4 exit root success\n4 complete root success\n4 restart root complete\n4 enter root\n4 enter d\n4 enter s\n4 check g true\n4 enter a",
    );
}

#[test]
fn a_delay_of_nothing_lets_them_execute_at_once() {
    let mut r = Run::new(
        "root: Root | child d
         d: Delay seconds=0 | child a
         a: MockAction script=S",
    );
    expect(
        &r.steps(1),
        "0 enter root\n0 enter d\n0 enter a\n1 execute a\n1 exit a success\n1 exit d success\n1 exit root success\n1 complete root success\n1 restart root complete\n1 enter root\n1 enter d\n1 enter a",
    );
}
