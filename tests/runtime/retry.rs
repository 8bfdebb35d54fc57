//! Retry (SEMANTICS.md §3.3.1): re-enters its child after each failure, `times` failed runs in
//! all (0: for ever), then fails; a success ends it with success.

use crate::harness::{Run, expect};

#[test]
fn times_3_fails_after_three_failed_runs() {
    let mut r = Run::new(
        "root: Root | child re
         re: Retry times=3 | child a
         a: MockAction script=F",
    );
    expect(
        &r.steps(3),
        "0 enter root\n0 enter re\n0 enter a\n1 execute a\n1 exit a failure\n1 enter a\n2 execute a\n2 exit a failure\n2 enter a\n3 execute a\n3 exit a failure\n3 exit re failure\n3 exit root failure\n3 complete root failure\n3 restart root complete\n3 enter root\n3 enter re\n3 enter a",
    );
    assert_eq!(r.counts("a").entries, 4);
}

#[test]
fn a_success_ends_it_with_success_and_the_childs_subtree_is_reset_between_runs() {
    // The child fails in steps 1 and 2 (its condition is false in steps 0 and 1) and
    // succeeds in step 2.
    let mut r = Run::new(
        "root: Root | child re
         re: Retry times=5 | child sel
         sel: Selector | children c w
         c: MockCondition script=FFT
         w: MockAction script=F",
    );
    expect(
        &r.steps(2),
        "0 enter root\n0 enter re\n0 enter sel\n0 enter c\n0 check c false\n0 exit c failure\n0 enter w\n\
         1 execute w\n1 exit w failure\n1 exit sel failure\n1 enter sel\n1 enter c\n1 check c false\n1 exit c failure\n1 enter w\n\
         2 execute w\n2 exit w failure\n2 exit sel failure\n2 enter sel\n2 enter c\n2 check c true\n2 exit c success\n2 exit sel success\n2 exit re success\n\
         2 exit root success\n2 complete root success\n2 restart root complete\n2 enter root\n2 enter re\n2 enter sel\n2 enter c\n2 check c true\n2 exit c success\n2 exit sel success\n2 exit re success\n\
         2 exit root success\n2 complete root success\n2 stall root",
    );
}

#[test]
fn a_finite_retry_runs_its_instant_retries_and_a_forever_one_stalls() {
    let mut r = Run::new(
        "root: Root | child re
         re: Retry times=2 | child s
         s: Sequence | children c a
         c: MockCondition script=F
         a: MockAction",
    );
    expect(
        &r.step()[..10],
        "0 enter root\n0 enter re\n0 enter s\n0 enter c\n0 check c false\n0 exit c failure\n0 exit s failure\n0 enter s\n0 enter c\n0 check c false",
    );
    let mut r = Run::new(
        "root: Root | child re
         re: Retry times=0 | child s
         s: Sequence | children c a
         c: MockCondition script=F
         a: MockAction",
    );
    expect(
        &r.step()[..10],
        "0 enter root\n0 enter re\n0 enter s\n0 enter c\n0 check c false\n0 exit c failure\n0 exit s failure\n0 stall re\n0 abort re\n0 abort root",
    );
    // The start stalls, and so does the restart at the end of step 1.
    assert_eq!(r.instance.stats().stalls, 2);
}
