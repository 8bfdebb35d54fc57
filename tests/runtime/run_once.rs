//! RunOnce (SEMANTICS.md §3.3.1): runs its child the first time, then reports that result at
//! once; the record survives the run's completion.

use crate::harness::{Run, expect};

#[test]
fn later_entries_report_the_first_result_at_once() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children ro w
         ro: RunOnce | child a
         a: MockAction script=RS
         w: MockAction script=S",
    );
    expect(
        &r.steps(4),
        "0 enter root\n0 enter s\n0 enter ro\n0 enter a\n1 execute a\n2 execute a\n2 exit a success\n2 exit ro success\n2 enter w\n3 execute w\n3 exit w success\n3 exit s success\n3 exit root success\n3 complete root success\n3 restart root complete\n3 enter root\n3 enter s\n3 enter ro\n3 exit ro success\n3 enter w\n4 execute w\n4 exit w success\n4 exit s success\n4 exit root success\n4 complete root success\n4 restart root complete\n4 enter root\n4 enter s\n4 enter ro\n4 exit ro success\n4 enter w",
    );
    assert_eq!(r.counts("a").entries, 1);
}

#[test]
fn a_first_run_that_was_aborted_runs_again() {
    let mut r = Run::new(
        "root: Root | child sel
         sel: Selector | children s f
         s: Sequence | conditions g | children ro
         ro: RunOnce | child a
         g: MockCondition script=TFFT
         a: MockAction script=RF
         f: MockAction script=S",
    );
    expect(
        &r.steps(5),
        "0 enter root\n0 enter sel\n0 enter s\n0 check g true\n0 enter ro\n0 enter a\n1 check g false\n1 abort a\n1 abort ro\n1 exit s failure\n1 enter f\n2 execute f\n2 exit f success\n2 exit sel success\n2 exit root success\n2 complete root success\n2 restart root complete\n2 enter root\n2 enter sel\n2 enter s\n2 check g false\n2 exit s failure\n2 enter f\n3 execute f\n3 exit f success\n3 exit sel success\n3 exit root success\n3 complete root success\n3 restart root complete\n3 enter root\n3 enter sel\n3 enter s\n3 check g true\n3 enter ro\n3 enter a\n4 check g true\n4 execute a\n5 check g true\n5 execute a\n5 exit a failure\n5 exit ro failure\n5 exit s failure\n5 enter f",
    );
    assert_eq!(r.counts("a").entries, 2);
}
