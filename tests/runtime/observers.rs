//! Lower-priority aborts (docs/SEMANTICS.md §3.3.2): a guard with `aborts_lower` keeps
//! watching while a later child of its branch's Selector runs, and its branch takes over
//! when all its guards hold: the checks, the aborts (reverse tree order), then its entry,
//! its guards counting as passed.

use crate::harness::{Run, expect};

#[test]
fn at_the_outermost_selector_chase_takes_over_from_patrol_when_the_enemy_is_seen() {
    let mut r = Run::new(
        "root: Root | child sel
         sel: Selector | children chase patrol
         chase: Sequence | conditions seen | children run hit
         seen: MockCondition script=FFFT aborts_lower=true
         run: MockAction script=RS
         hit: MockAction script=R
         patrol: MockAction script=R",
    );
    // Steps 1 and 2: the observer is checked, Patrol runs on. Step 3: it holds; Patrol
    // is aborted and Chase entered without checking `seen` again; `run` executes from
    // step 4, where `seen` is checked as an ordinary guard on its running path.
    expect(
        &r.steps(5),
        "0 enter root\n0 enter sel\n0 enter chase\n0 check seen false\n0 exit chase failure\n0 enter patrol\n1 check seen false\n1 execute patrol\n2 check seen false\n2 execute patrol\n3 check seen true\n3 abort patrol\n3 enter chase\n3 enter run\n4 check seen true\n4 execute run\n5 check seen true\n5 execute run\n5 exit run success\n5 enter hit",
    );
    assert_eq!(r.counts("patrol").aborts, 1);
    assert_eq!(r.counts("run").entries, 1);
}

#[test]
fn at_an_inner_selector_every_guard_of_the_branch_must_hold_and_the_later_branch_is_aborted_deepest_first()
 {
    let mut r = Run::new(
        "root: Root | child top
         top: Sequence | children inner after
         inner: Selector | children b c
         b: Sequence | conditions g h | children ba
         g: MockCondition script=FTT aborts_lower=true
         h: MockCondition script=FFT
         ba: MockAction script=R
         c: Sequence | conditions k | children ca
         k: MockCondition script=T
         ca: MockAction script=R
         after: MockAction script=S",
    );
    // Step 1: b's guards are checked in order up to the first false (h), before c's own
    // guard. Step 2: both hold: ca, then c, are aborted, and b is entered.
    expect(
        &r.steps(3),
        "0 enter root\n0 enter top\n0 enter inner\n0 enter b\n0 check g false\n0 exit b failure\n0 enter c\n0 check k true\n0 enter ca\n1 check g true\n1 check h false\n1 check k true\n1 execute ca\n2 check g true\n2 check h true\n2 abort ca\n2 abort c\n2 enter b\n2 enter ba\n3 check g true\n3 check h true\n3 execute ba",
    );
}

#[test]
fn under_a_parallel_a_take_over_leaves_the_other_branch_running() {
    let mut r = Run::new(
        "root: Root | child par
         par: Parallel | children sel other
         sel: Selector | children b low
         b: Sequence | conditions g | children ba
         g: MockCondition script=FFT aborts_lower=true
         ba: MockAction script=R
         low: MockAction script=R
         other: MockAction script=R",
    );
    expect(
        &r.steps(3),
        "0 enter root\n0 enter par\n0 enter sel\n0 enter b\n0 check g false\n0 exit b failure\n0 enter low\n0 enter other\n1 check g false\n1 execute low\n1 execute other\n2 check g true\n2 abort low\n2 enter b\n2 enter ba\n2 execute other\n3 check g true\n3 execute ba\n3 execute other",
    );
    assert_eq!(r.counts("other").executions, 3);
}

#[test]
fn an_observer_whose_key_is_missing_does_not_hold_and_never_resets_the_tree() {
    let mut r = Run::new(
        "root: Root | child sel
         sel: Selector | children chase patrol
         chase: Sequence | conditions seen | children hit
         seen: MockCondition script=T in_context=k aborts_lower=true
         hit: MockAction script=R
         patrol: Sequence | children w walk
         w: MockAction script=S produces=x out_context=k
         walk: MockAction script=R",
    );
    // No key at entry (step 0) nor while watching (step 1): `check false`, no
    // `context_missing`. Once `w` has written it, Chase takes over (step 2).
    let events = r.steps(3);
    assert!(
        events.iter().all(|e| !e.contains("context_missing")),
        "{events:?}"
    );
    expect(
        &events,
        "0 enter root\n0 enter sel\n0 enter chase\n0 check seen false\n0 exit chase failure\n0 enter patrol\n0 enter w\n1 check seen false\n1 execute w\n1 context w k=\"x\"\n1 exit w success\n1 enter walk\n2 check seen true\n2 abort walk\n2 abort patrol\n2 enter chase\n2 enter hit\n3 check seen true\n3 execute hit",
    );
}

#[test]
fn a_branch_that_fails_at_once_on_taking_over_hands_on_to_the_next_child_in_the_same_step() {
    let mut r = Run::new(
        "root: Root | child sel
         sel: Selector | children b patrol
         b: Sequence | conditions g | children no
         g: MockCondition script=FT aborts_lower=true
         no: MockCondition script=F
         patrol: MockAction script=R",
    );
    expect(
        &r.steps(2),
        "0 enter root\n0 enter sel\n0 enter b\n0 check g false\n0 exit b failure\n0 enter patrol\n1 check g true\n1 abort patrol\n1 enter b\n1 enter no\n1 check no false\n1 exit no failure\n1 exit b failure\n1 enter patrol\n2 check g true\n2 abort patrol\n2 enter b\n2 enter no\n2 check no false\n2 exit no failure\n2 exit b failure\n2 enter patrol",
    );
}

#[test]
fn observers_work_inside_an_interrupt_and_rest_while_it_suspends_the_main_tree() {
    let mut r = Run::new(
        "root: Root | child sel | interrupts int
         sel: Selector | children b patrol
         b: Sequence | conditions g | children ba
         g: MockCondition script=FFFFFT aborts_lower=true
         ba: MockAction script=R
         patrol: MockAction script=R
         int: Interrupt interrupt_id=alarm | child isel
         isel: Selector | children ib iwait
         ib: Sequence | conditions ig | children iba
         ig: MockCondition script=FFFT aborts_lower=true
         iba: MockAction script=S
         iwait: MockAction script=R",
    );
    expect(
        &r.steps(1),
        "0 enter root\n0 enter sel\n0 enter b\n0 check g false\n0 exit b failure\n0 enter patrol\n1 check g false\n1 execute patrol",
    );
    r.trigger("alarm", None);
    // Steps 3 and 4: `g` is not checked while the main tree is suspended; `ig` takes over
    // inside the interrupt at step 3. Patrol is resumed at step 4, and Chase's branch takes
    // over at step 5.
    expect(
        &r.steps(5),
        "2 interrupt int alarm\n2 abort patrol\n2 enter int\n2 enter isel\n2 enter ib\n2 check ig false\n2 exit ib failure\n2 enter iwait\n3 check ig true\n3 abort iwait\n3 enter ib\n3 enter iba\n4 check ig true\n4 execute iba\n4 exit iba success\n4 exit ib success\n4 exit isel success\n4 exit int success\n4 enter patrol\n5 check g true\n5 abort patrol\n5 enter b\n5 enter ba\n6 check g true\n6 execute ba",
    );
}
