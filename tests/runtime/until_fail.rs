//! UntilFail and KeepRunningUntilFailure: re-enter their child after each success; when
//! it fails, UntilFail succeeds and KeepRunningUntilFailure fails.

use crate::harness::{Run, expect};

#[test]
fn succeeds_when_its_child_fails() {
    let mut r = Run::new(
        "root: Root | child u
         u: UntilFail | child s
         s: Sequence | conditions g | children a
         g: MockCondition script=TTTF
         a: MockAction script=S",
    );
    let events = r.steps(3);
    expect(
        &events[..5],
        "0 enter root\n0 enter u\n0 enter s\n0 check g true\n0 enter a",
    );
    let step3: Vec<String> = events.into_iter().filter(|e| e.starts_with("3 ")).collect();
    // The guard turns false in phase 2 of step 3, before `a` executes.
    expect(
        &step3[..7],
        "3 check g false\n3 abort a\n3 exit s failure\n3 exit u success\n3 exit root success\n3 complete root success\n3 restart root complete",
    );
    assert_eq!(r.counts("a").exits, 2);
}

#[test]
fn keep_running_until_failure_fails_when_its_child_fails() {
    // `a` succeeds at step 1 and is entered again; at step 2 its Sequence's guard fails:
    // the decorator fails, and its Selector moves on.
    let mut r = Run::new(
        "root: Root | child top
         top: Selector | children k after
         k: KeepRunningUntilFailure | child s
         s: Sequence | conditions g | children a
         g: MockCondition script=TTF
         a: MockAction script=S
         after: MockAction script=R",
    );
    expect(
        &r.steps(2),
        "
         0 enter root
         0 enter top
         0 enter k
         0 enter s
         0 check g true
         0 enter a
         1 check g true
         1 execute a
         1 exit a success
         1 exit s success
         1 enter s
         1 check g true
         1 enter a
         2 check g false
         2 abort a
         2 exit s failure
         2 exit k failure
         2 enter after",
    );
}
