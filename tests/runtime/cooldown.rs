//! Cooldown (SEMANTICS.md §3.3.1): fails at once when entered again too soon after its child
//! finished; the record survives the run's completion.

use crate::harness::{Run, expect};

/// dt is 0.1 s: the child finishes in step 1 (clock 0.1), and the run completes; the
/// Cooldown is entered again at once and at clocks 0.2 and 0.3 (too soon: the fallback
/// runs), then at 0.4 (0.3 s later: it runs its child).
const TREE: &str = "root: Root | child sel
     sel: Selector | children cd f
     cd: Cooldown seconds=0.25 | child a
     a: MockAction script=S
     f: MockAction script=S";

#[test]
fn entered_too_soon_it_fails_at_once_without_entering_its_child() {
    let mut r = Run::new(TREE);
    expect(
        &r.steps(4),
        "0 enter root\n0 enter sel\n0 enter cd\n0 enter a\n1 execute a\n1 exit a success\n1 exit cd success\n1 exit sel success\n1 exit root success\n1 complete root success\n1 restart root complete\n1 enter root\n1 enter sel\n1 enter cd\n1 exit cd failure\n1 enter f\n2 execute f\n2 exit f success\n2 exit sel success\n2 exit root success\n2 complete root success\n2 restart root complete\n2 enter root\n2 enter sel\n2 enter cd\n2 exit cd failure\n2 enter f\n3 execute f\n3 exit f success\n3 exit sel success\n3 exit root success\n3 complete root success\n3 restart root complete\n3 enter root\n3 enter sel\n3 enter cd\n3 exit cd failure\n3 enter f\n4 execute f\n4 exit f success\n4 exit sel success\n4 exit root success\n4 complete root success\n4 restart root complete\n4 enter root\n4 enter sel\n4 enter cd\n4 enter a",
    );
    assert_eq!(r.counts("a").entries, 2);
    assert_eq!(r.counts("f").entries, 3);
}

#[test]
fn an_aborted_child_records_nothing() {
    let mut r = Run::new(
        "root: Root | child sel
         sel: Selector | children cd f
         cd: Cooldown seconds=10.0 | conditions g | child a
         g: MockCondition script=TTFT
         a: MockAction script=R
         f: MockAction script=S",
    );
    // The guard aborts `a` in step 2; the Cooldown is entered again in step 3 and, having
    // recorded nothing, enters its child.
    expect(
        &r.steps(3),
        "0 enter root\n0 enter sel\n0 enter cd\n0 check g true\n0 enter a\n1 check g true\n1 execute a\n2 check g false\n2 abort a\n2 exit cd failure\n2 enter f\n3 execute f\n3 exit f success\n3 exit sel success\n3 exit root success\n3 complete root success\n3 restart root complete\n3 enter root\n3 enter sel\n3 enter cd\n3 check g true\n3 enter a",
    );
}
