//! SEMANTICS.md §3.2: nodes aborted together are aborted in the exact reverse of tree order
//! (pre-order), each node after everything below it and a later sibling's subtree before
//! an earlier sibling's; an interrupt aborts only the active leaves, last first.

use crate::harness::Run;

/// Four leaves running at once under nested Parallels, below a guarded Sequence.
fn nested(guard: &str, a: &str) -> Run {
    Run::new(&format!(
        "root: Root | child top | interrupts int
         top: Sequence | conditions g | children p1
         g: MockCondition script={guard}
         p1: Parallel | children s1 p3
         s1: Sequence | children p2
         p2: Parallel | children a b
         a: MockAction script={a}
         b: MockAction script=R
         p3: Parallel | children c d
         c: MockAction script=R
         d: MockAction script=R
         int: Interrupt interrupt_id=go | child x
         x: MockAction script=R"
    ))
}

/// The nodes aborted in these events, in order.
fn aborted(events: &[String]) -> Vec<&str> {
    events
        .iter()
        .filter_map(|e| {
            let mut w = e.split(' ');
            (w.nth(1) == Some("abort")).then(|| w.next().unwrap_or(""))
        })
        .collect()
}

#[test]
fn a_failing_guard_aborts_its_branch_subtree_in_reverse_tree_order() {
    let mut r = nested("TTF", "R");
    r.step();
    let step2 = r.step();
    assert_eq!(
        aborted(&step2),
        ["d", "c", "p3", "b", "a", "p2", "s1", "p1"]
    );
}

#[test]
fn an_interrupt_aborts_the_active_leaves_last_first() {
    let mut r = nested("T", "R");
    r.step();
    r.trigger("go", None);
    assert_eq!(aborted(&r.step()), ["d", "c", "b", "a"]);
}

#[test]
fn a_parallel_finishing_aborts_its_running_children_in_reverse_tree_order() {
    // a fails at step 2: p2 fails (aborting b), s1 fails, p1 fails (aborting p3's
    // subtree, its later sibling's): each Parallel after what runs below it.
    let mut r = nested("T", "RF");
    r.step();
    let step2 = r.step();
    assert_eq!(aborted(&step2), ["b", "d", "c", "p3"]);
}

#[test]
fn a_missing_context_key_aborts_everything_running_in_reverse_tree_order() {
    let mut r = Run::new(
        "root: Root | child p
         p: Parallel | children s c
         s: Sequence | children w k
         w: MockAction script=RS
         k: MockAction in_context=missing
         c: Parallel | children d e
         d: MockAction script=R
         e: MockAction script=R",
    );
    r.step();
    let step2 = r.step();
    // w finishes, k cannot be entered: everything still running goes, deepest and
    // latest first, Root last.
    assert_eq!(aborted(&step2), ["e", "d", "c", "s", "p", "root"]);
}
