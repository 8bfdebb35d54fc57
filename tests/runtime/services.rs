//! Services (docs/SEMANTICS.md §3.2.1): an action leaf on a composite's `services` input
//! runs when the composite is entered, then in phase 1b of each later step in which the
//! composite runs, once `interval` seconds have passed; it never reports, and it is
//! aborted with its composite.

use crate::harness::{Run, expect};

#[test]
fn a_service_runs_on_entry_then_every_interval_while_its_composite_runs() {
    let mut r = Run::new(
        "root: Root | child seq
         seq: Sequence | services look | children work
         look: MockAction script=S interval=0.25 out_context=seen produces=x
         work: MockAction script=R",
    );
    expect(
        &r.steps(4),
        "0 enter root\n0 enter seq\n0 enter look\n0 execute look\n0 context look seen=\"x\"\n0 exit look success\n0 enter work\n1 execute work\n2 execute work\n3 enter look\n3 execute look\n3 context look seen=\"x\"\n3 exit look success\n3 execute work\n4 execute work",
    );
    r.steps(3);
    assert_eq!(r.counts("look").entries, 3, "at steps 0, 3 and 6");
    assert_eq!(
        r.counts("work").entries,
        1,
        "a service never ends its branch"
    );
}

#[test]
fn without_an_interval_a_service_runs_every_step_and_one_that_runs_on_is_executed_again() {
    let mut r = Run::new(
        "root: Root | child seq
         seq: Sequence | services look | children work
         look: MockAction script=RRF
         work: MockAction script=R",
    );
    expect(
        &r.steps(3),
        "0 enter root\n0 enter seq\n0 enter look\n0 execute look\n0 enter work\n1 execute look\n1 execute work\n2 execute look\n2 exit look failure\n2 execute work\n3 enter look\n3 execute look\n3 execute work",
    );
}

#[test]
fn an_observer_sees_what_a_service_writes_in_the_same_step() {
    let mut r = Run::new(
        "root: Root | child sel
         sel: Selector | services look | children chase patrol
         look: MockAction script=RRS out_context=enemy produces=thief
         chase: Sequence | conditions seen | children hit
         seen: HasContext key=enemy aborts_lower=true
         hit: MockAction script=R
         patrol: MockAction script=R",
    );
    // Step 2: the service finishes in phase 1b and writes `enemy`; in phase 2 the
    // observer holds and Chase takes over from Patrol. The Selector runs on, and so does
    // its service, which is entered again at the next step.
    expect(
        &r.steps(3),
        "0 enter root\n0 enter sel\n0 enter look\n0 execute look\n0 enter chase\n0 check seen false\n0 exit chase failure\n0 enter patrol\n1 execute look\n1 check seen false\n1 execute patrol\n2 execute look\n2 context look enemy=\"thief\"\n2 exit look success\n2 check seen true\n2 abort patrol\n2 enter chase\n2 enter hit\n3 enter look\n3 execute look\n3 check seen true\n3 execute hit",
    );
}

#[test]
fn a_running_service_is_aborted_when_its_composite_finishes_before_the_composites_exit() {
    let mut r = Run::new(
        "root: Root | child seq
         seq: Sequence | services a b | children work
         a: MockAction script=R
         b: MockAction script=R
         work: MockAction script=RS",
    );
    let events = r.steps(2);
    expect(
        &events[10..19],
        "2 execute a\n2 execute b\n2 execute work\n2 exit work success\n2 abort b\n2 abort a\n2 exit seq success\n2 exit root success\n2 complete root success",
    );
    assert_eq!(r.counts("a").aborts, 1);
    assert_eq!(r.counts("b").aborts, 1);
}

#[test]
fn a_service_is_aborted_with_a_branch_whose_guard_fails() {
    let mut r = Run::new(
        "root: Root | child sel
         sel: Selector | children seq other
         seq: Sequence | conditions g | services s | children work
         g: MockCondition script=TF
         s: MockAction script=R
         work: MockAction script=R
         other: MockAction script=R",
    );
    expect(
        &r.steps(2),
        "0 enter root\n0 enter sel\n0 enter seq\n0 check g true\n0 enter s\n0 execute s\n0 enter work\n1 execute s\n1 check g false\n1 abort work\n1 abort s\n1 exit seq failure\n1 enter other\n2 execute other",
    );
}

#[test]
fn services_of_a_main_tree_suspended_by_an_interrupt_rest_and_go_on_when_it_resumes() {
    let mut r = Run::new(
        "root: Root | child seq | interrupts int
         seq: Sequence | services s | children work
         s: MockAction script=S interval=0.25
         work: MockAction script=R
         int: Interrupt interrupt_id=hit | child ia
         ia: MockAction script=RRRS",
    );
    r.steps(1);
    r.trigger("hit", None);
    let during = r.steps(4);
    assert!(
        during.iter().any(|l| l == "2 interrupt int hit"),
        "{during:?}"
    );
    assert!(
        !during.iter().any(|l| l.ends_with(" s")),
        "no service runs while the interrupt does: {during:?}"
    );
    // The interrupt runs from step 2 to step 6, where the main tree resumes. The service
    // had counted 0.1 s (step 1); it counts again from step 7 and reaches 0.25 s at step 8.
    expect(
        &r.steps(4),
        "6 execute ia\n6 exit ia success\n6 exit int success\n6 enter work\n7 execute work\n8 enter s\n8 execute s\n8 exit s success\n8 execute work\n9 execute work",
    );
}

#[test]
fn a_take_over_aborts_the_selectors_children_but_not_its_own_services() {
    let mut r = Run::new(
        "root: Root | child sel
         sel: Selector | services keep | children chase patrol
         keep: MockAction script=R
         chase: Sequence | conditions seen | children hit
         seen: MockCondition script=FFT aborts_lower=true
         hit: MockAction script=R
         patrol: MockAction script=R",
    );
    expect(
        &r.steps(2)[8..],
        "1 execute keep\n1 check seen false\n1 execute patrol\n2 execute keep\n2 check seen true\n2 abort patrol\n2 enter chase\n2 enter hit",
    );
    assert_eq!(r.counts("keep").aborts, 0);
    assert_eq!(r.counts("keep").entries, 1);
}

#[test]
fn a_service_whose_input_key_is_missing_resets_the_tree_as_any_leaf_does() {
    let mut r = Run::new(
        "root: Root | child seq
         seq: Sequence | children first then
         first: MockAction script=S
         then: Sequence | services s | children work
         s: MockAction script=S in_context=target
         work: MockAction script=R",
    );
    let events = r.steps(1);
    assert!(
        events.contains(&"1 context_missing s target".to_owned()),
        "{events:?}"
    );
    assert_eq!(r.counts("work").entries, 0);
}
