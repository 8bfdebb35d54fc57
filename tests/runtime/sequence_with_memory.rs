//! SequenceWithMemory (docs/SEMANTICS.md §3.3): a Sequence that starts where it stopped.
//! A failure keeps the slot of the child that failed, an abort the slot of the one that
//! ran, through the run's completion and every reset; only finishing its last child sets
//! it back to the first.

use crate::harness::{Run, expect};

#[test]
fn after_a_failure_the_next_run_starts_at_the_child_that_failed() {
    let mut r = Run::new(
        "root: Root | child mem
         mem: SequenceWithMemory | children a b c
         a: MockAction script=S
         b: MockAction script=FS
         c: MockAction script=S",
    );
    // Run 1: `a` succeeds, `b` fails. Run 2 starts at `b` (entered anew, so its script
    // starts again: F). Every run after starts at `b` while it fails.
    expect(
        &r.steps(4),
        "
         0 enter root
         0 enter mem
         0 enter a
         1 execute a
         1 exit a success
         1 enter b
         2 execute b
         2 exit b failure
         2 exit mem failure
         2 exit root failure
         2 complete root failure
         2 restart root complete
         2 enter root
         2 enter mem
         2 enter b
         3 execute b
         3 exit b failure
         3 exit mem failure
         3 exit root failure
         3 complete root failure
         3 restart root complete
         3 enter root
         3 enter mem
         3 enter b
         4 execute b
         4 exit b failure
         4 exit mem failure
         4 exit root failure
         4 complete root failure
         4 restart root complete
         4 enter root
         4 enter mem
         4 enter b",
    );
    assert_eq!(r.counts("a").entries, 1);
}

#[test]
fn finishing_the_last_child_starts_the_next_run_at_the_first() {
    let mut r = Run::new(
        "root: Root | child mem
         mem: SequenceWithMemory | children a b
         a: MockAction script=S
         b: MockAction script=S",
    );
    expect(
        &r.steps(3),
        "
         0 enter root
         0 enter mem
         0 enter a
         1 execute a
         1 exit a success
         1 enter b
         2 execute b
         2 exit b success
         2 exit mem success
         2 exit root success
         2 complete root success
         2 restart root complete
         2 enter root
         2 enter mem
         2 enter a
         3 execute a
         3 exit a success
         3 enter b",
    );
}

#[test]
fn an_abort_keeps_the_child_that_was_running_for_the_next_entry() {
    let mut r = Run::new(
        "root: Root | child top
         top: Sequence | children gate after
         gate: Sequence | conditions ok | children mem
         ok: MockCondition script=TTFT
         mem: SequenceWithMemory | children a b
         a: MockAction script=S
         b: MockAction script=R
         after: MockAction script=S",
    );
    // Step 2: the guard fails while `b` runs: `b` is aborted. The run begun again in that
    // step fails at once and the tree stalls; at step 3, `ok` holds and `mem` is entered
    // again at `b`, not `a`.
    expect(
        &r.steps(3),
        "
         0 enter root
         0 enter top
         0 enter gate
         0 check ok true
         0 enter mem
         0 enter a
         1 check ok true
         1 execute a
         1 exit a success
         1 enter b
         2 check ok false
         2 abort b
         2 abort mem
         2 exit gate failure
         2 exit top failure
         2 exit root failure
         2 complete root failure
         2 restart root complete
         2 enter root
         2 enter top
         2 enter gate
         2 check ok false
         2 exit gate failure
         2 exit top failure
         2 exit root failure
         2 complete root failure
         2 stall root
         3 restart root stall
         3 enter root
         3 enter top
         3 enter gate
         3 check ok true
         3 enter mem
         3 enter b",
    );
}
