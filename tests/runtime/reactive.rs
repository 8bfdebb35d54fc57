//! ReactiveSequence and ReactiveSelector (docs/SEMANTICS.md §3.3): in phase 2 of every
//! step, before anything below its running child is checked, a reactive composite enters
//! its children before that child again, in order, each afresh; one that finishes at once
//! goes as the plain composite's rule says (on to the next, or the end of it, the running
//! child aborted), one that runs takes the running child's place.

use crate::harness::{Run, expect};

#[test]
fn a_reactive_sequence_checks_its_condition_child_at_every_step_and_fails_when_it_turns_false() {
    let mut r = Run::new(
        "root: Root | child rs
         rs: ReactiveSequence | children ok act
         ok: MockCondition script=TTTF
         act: MockAction script=R",
    );
    // Step 3: `ok` turns false: `act` is aborted and the sequence fails; the run begun
    // again in that step fails at once too, and the tree stalls (§3.6).
    expect(
        &r.steps(3),
        "
         0 enter root
         0 enter rs
         0 enter ok
         0 check ok true
         0 exit ok success
         0 enter act
         1 enter ok
         1 check ok true
         1 exit ok success
         1 execute act
         2 enter ok
         2 check ok true
         2 exit ok success
         2 execute act
         3 enter ok
         3 check ok false
         3 exit ok failure
         3 abort act
         3 exit rs failure
         3 exit root failure
         3 complete root failure
         3 restart root complete
         3 enter root
         3 enter rs
         3 enter ok
         3 check ok false
         3 exit ok failure
         3 exit rs failure
         3 exit root failure
         3 complete root failure
         3 stall root",
    );
}

#[test]
fn an_earlier_action_entered_again_takes_the_running_childs_place() {
    let mut r = Run::new(
        "root: Root | child rs
         rs: ReactiveSequence | children a b
         a: MockAction script=S
         b: MockAction script=R",
    );
    // `a` succeeds and `b` is entered; at the next step `a` is entered again, runs, and
    // `b` is aborted: as in BehaviorTree.CPP, `b` never executes.
    expect(
        &r.steps(4),
        "
         0 enter root
         0 enter rs
         0 enter a
         1 execute a
         1 exit a success
         1 enter b
         2 enter a
         2 abort b
         3 execute a
         3 exit a success
         3 enter b
         4 enter a
         4 abort b",
    );
}

#[test]
fn a_reactive_selector_ends_with_success_when_an_earlier_child_succeeds_at_once() {
    let mut r = Run::new(
        "root: Root | child top
         top: Sequence | children rf after
         rf: ReactiveSelector | children seen wait
         seen: MockCondition script=FFT
         wait: MockAction script=R
         after: MockAction script=R",
    );
    // Step 2: `seen` succeeds at once: `wait` is aborted and the selector succeeds, so its
    // Sequence moves on in the same step.
    expect(
        &r.steps(3),
        "
         0 enter root
         0 enter top
         0 enter rf
         0 enter seen
         0 check seen false
         0 exit seen failure
         0 enter wait
         1 enter seen
         1 check seen false
         1 exit seen failure
         1 execute wait
         2 enter seen
         2 check seen true
         2 exit seen success
         2 abort wait
         2 exit rf success
         2 enter after
         3 execute after",
    );
}

#[test]
fn nested_reactive_composites_enter_again_outermost_first_after_their_own_guards() {
    let mut r = Run::new(
        "root: Root | child top
         top: Sequence | children outer after
         after: MockAction script=R
         outer: ReactiveSequence | conditions g | children c1 inner
         g: MockCondition script=T
         inner: ReactiveSelector | children c2 c3 act
         c1: MockCondition script=T
         c2: MockCondition script=F
         c3: MockCondition script=FFT
         act: MockAction script=R",
    );
    // Each step: `outer`'s guard, `outer`'s earlier child, then `inner`'s earlier
    // children. Step 2: `c3` succeeds: `inner` succeeds, and so does `outer`, and the
    // Sequence above moves on.
    expect(
        &r.steps(2),
        "
         0 enter root
         0 enter top
         0 enter outer
         0 check g true
         0 enter c1
         0 check c1 true
         0 exit c1 success
         0 enter inner
         0 enter c2
         0 check c2 false
         0 exit c2 failure
         0 enter c3
         0 check c3 false
         0 exit c3 failure
         0 enter act
         1 check g true
         1 enter c1
         1 check c1 true
         1 exit c1 success
         1 enter c2
         1 check c2 false
         1 exit c2 failure
         1 enter c3
         1 check c3 false
         1 exit c3 failure
         1 execute act
         2 check g true
         2 enter c1
         2 check c1 true
         2 exit c1 success
         2 enter c2
         2 check c2 false
         2 exit c2 failure
         2 enter c3
         2 check c3 true
         2 exit c3 success
         2 abort act
         2 exit inner success
         2 exit outer success
         2 enter after",
    );
}

#[test]
fn under_a_parallel_the_earlier_children_are_entered_again_once_a_step() {
    let mut r = Run::new(
        "root: Root | child rs
         rs: ReactiveSequence | children ok par
         ok: MockCondition script=TTF
         par: Parallel | children a b
         a: MockAction script=R
         b: MockAction script=R",
    );
    // `ok` is entered once a step, before both leaves; when it fails they are aborted last
    // first, and the sequence's failure is delivered in phase 4.
    expect(
        &r.steps(2),
        "
         0 enter root
         0 enter rs
         0 enter ok
         0 check ok true
         0 exit ok success
         0 enter par
         0 enter a
         0 enter b
         1 enter ok
         1 check ok true
         1 exit ok success
         1 execute a
         1 execute b
         2 enter ok
         2 check ok false
         2 exit ok failure
         2 abort b
         2 abort a
         2 abort par
         2 exit rs failure
         2 exit root failure
         2 complete root failure
         2 restart root complete
         2 enter root
         2 enter rs
         2 enter ok
         2 check ok false
         2 exit ok failure
         2 exit rs failure
         2 exit root failure
         2 complete root failure
         2 stall root",
    );
}
