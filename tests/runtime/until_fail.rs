//! UntilFail: re-enters its child after each success; succeeds when it fails.

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
