//! Interrupts (SEMANTICS.md §3.4): the whole subtree runs, then the main tree resumes or restarts.

use crate::harness::{Run, expect};

const TREE: &str = "root: Root | child main | interrupts int int2
    main: Sequence | children a b
    a: MockAction script=RRRRS
    b: MockAction script=S
    int: Interrupt interrupt_id=alarm out_context=src | child seq
    seq: Sequence | children x y
    x: MockAction script=RS
    y: MockAction script=S
    int2: Interrupt interrupt_id=fire | child z
    z: MockAction script=S";

#[test]
fn an_interrupt_subtree_of_two_leaves_runs_both_then_the_main_tree_resumes() {
    let mut r = Run::new(TREE);
    r.steps(2);
    r.trigger("alarm", Some("bob"));
    expect(
        &r.step(),
        "3 interrupt int alarm\n3 abort a\n3 context int src=\"bob\"\n3 enter int\n3 enter seq\n3 enter x",
    );
    expect(
        &r.steps(3),
        "4 execute x\n5 execute x\n5 exit x success\n5 enter y\n6 execute y\n6 exit y success\n6 exit seq success\n6 exit int success\n6 enter a",
    );
    assert_eq!((r.counts("x").executions, r.counts("y").executions), (2, 1));
    let a = r.counts("a");
    assert_eq!(
        (a.entries, a.aborts),
        (2, 1),
        "the aborted leaf is entered again, a new entry"
    );
    assert_eq!(
        r.context("src"),
        Some(arbor::runtime::CtxValue::Text("bob".into()))
    );
    expect(&r.step(), "7 execute a");
}

#[test]
fn a_second_trigger_preempts_the_first_and_keeps_the_resume_point() {
    let mut r = Run::new(TREE);
    r.steps(2);
    r.trigger("alarm", None);
    r.step();
    r.trigger("fire", None);
    expect(
        &r.step(),
        "4 interrupt int2 fire\n4 abort x\n4 abort seq\n4 abort int\n4 enter int2\n4 enter z",
    );
    expect(
        &r.step(),
        "5 execute z\n5 exit z success\n5 exit int2 success\n5 enter a",
    );
    assert_eq!(r.counts("x").aborts, 1);
    assert_eq!(r.counts("y").entries, 0);
}

#[test]
fn triggers_in_one_step_are_handled_in_order() {
    let mut r = Run::new(TREE);
    r.step();
    r.trigger("fire", None);
    r.trigger("alarm", None);
    let events = r.step();
    expect(
        &events[..8],
        "2 interrupt int2 fire\n2 abort a\n2 enter int2\n2 enter z\n2 interrupt int alarm\n2 abort z\n2 abort int2\n2 enter int",
    );
}

#[test]
fn force_reset_restarts_from_root_and_keeps_the_context() {
    let src = TREE.replace("interrupt_id=alarm", "interrupt_id=alarm force_reset=true");
    let mut r = Run::new(&src);
    r.steps(2);
    r.trigger("alarm", Some("eve"));
    r.steps(3);
    expect(
        &r.step(),
        "6 execute y\n6 exit y success\n6 exit seq success\n6 exit int success\n6 abort main\n6 abort root\n6 restart root force_reset\n6 enter root\n6 enter main\n6 enter a",
    );
    assert_eq!(
        r.context("src"),
        Some(arbor::runtime::CtxValue::Text("eve".into()))
    );
}

#[test]
fn an_unknown_id_is_a_warning_and_changes_nothing() {
    let mut r = Run::new(TREE);
    r.step();
    r.trigger("nope", None);
    expect(
        &r.step(),
        "2 warning - no Interrupt has the id 'nope'; trigger ignored\n2 execute a",
    );
}

#[test]
fn resuming_checks_guards_first() {
    let mut r = Run::new(
        "root: Root | child main | interrupts int
         main: Sequence | conditions g | children a
         g: MockCondition script=TTTF
         a: MockAction script=R
         int: Interrupt interrupt_id=go | child x
         x: MockAction script=S",
    );
    r.step();
    r.trigger("go", None);
    r.step();
    let events = r.steps(1);
    expect(
        &events[..5],
        "3 execute x\n3 exit x success\n3 exit int success\n3 check g false\n3 exit main failure",
    );
    assert_eq!(
        r.counts("a").entries,
        1,
        "not re-entered under a failed guard"
    );
}

#[test]
fn an_interrupt_with_an_instant_subtree_resumes_in_the_same_step() {
    let mut r = Run::new(
        "root: Root | child a | interrupts int
         a: MockAction script=R
         int: Interrupt interrupt_id=go | child c
         c: MockCondition script=T",
    );
    r.step();
    r.trigger("go", None);
    expect(
        &r.step(),
        "2 interrupt int go\n2 abort a\n2 enter int\n2 enter c\n2 check c true\n2 exit c success\n2 exit int success\n2 enter a",
    );
}

/// Two triggers in one step; the first interrupt ends at once and the main tree resumes
/// with a leaf whose guard is now false.
const RESUME_THEN_SECOND: &str = "root: Root | child main | interrupts i1 i2
     main: Selector | children guarded next
     guarded: Sequence | conditions g | children a
     g: MockCondition script=TTF
     a: MockAction script=R
     next: MockAction script=R
     i1: Interrupt interrupt_id=one | child c1
     c1: MockCondition script=T
     i2: Interrupt interrupt_id=two | child x
     x: MockAction script=R";

#[test]
fn a_guard_failing_on_resume_is_delivered_at_once_so_the_main_tree_never_runs_beside_the_next_interrupt()
 {
    let mut r = Run::new(RESUME_THEN_SECOND);
    r.step();
    r.trigger("one", None);
    r.trigger("two", None);
    let step2 = r.step();
    expect(
        &step2,
        "2 interrupt i1 one
         2 abort a
         2 enter i1
         2 enter c1
         2 check c1 true
         2 exit c1 success
         2 exit i1 success
         2 check g false
         2 exit guarded failure
         2 enter next
         2 interrupt i2 two
         2 abort next
         2 enter i2
         2 enter x",
    );
    // Only the interrupt's leaf runs while it runs.
    let step3 = r.step();
    expect(&step3, "3 execute x");
}

#[test]
fn a_run_ended_by_a_guard_failing_on_resume_completes_before_the_next_interrupt_starts() {
    let mut r = Run::new(
        // The guard holds while `flag` is absent; the first interrupt sets it, and the
        // run's completion clears the context.
        "root: Root | child guarded | interrupts i1 i2
         guarded: Sequence | conditions g | children a
         g: HasContext key=flag invert=true
         a: MockAction script=R
         i1: Interrupt interrupt_id=one out_context=flag | child c1
         c1: MockCondition script=T
         i2: Interrupt interrupt_id=two | child x
         x: MockAction script=R",
    );
    r.step();
    r.trigger("one", Some("up"));
    r.trigger("two", None);
    let step2 = r.step();
    expect(
        &step2,
        "2 interrupt i1 one
         2 abort a
         2 context i1 flag=\"up\"
         2 enter i1
         2 enter c1
         2 check c1 true
         2 exit c1 success
         2 exit i1 success
         2 check g false
         2 exit guarded failure
         2 exit root failure
         2 complete root failure
         2 restart root complete
         2 enter root
         2 enter guarded
         2 check g true
         2 enter a
         2 interrupt i2 two
         2 abort a
         2 enter i2
         2 enter x",
    );
    // The second interrupt was not aborted by the run's completion: it runs on alone.
    expect(&r.step(), "3 execute x");
    assert_eq!(r.counts("x").aborts, 0);
}

/// The main tree under a Retry that fails for ever; `tl` runs out (0.2 s) while the
/// interrupt's three steps run, so the resume's first leaf fails at once and the Retry enters
/// its child again (SEMANTICS.md §3.4).
const RESUME_UNDER_RETRY: &str = "root: Root | child re | interrupts int
     re: Retry times=0 | child par
     par: Parallel | children tl BRANCH
     tl: TimeLimit seconds=0.2 | child a
     a: MockAction script=R
     b: MockAction script=R
     seq: Sequence | children c b
     c: MockAction script=S
     int: Interrupt interrupt_id=go | child x
     x: MockAction script=RRS";

#[test]
fn a_resume_never_enters_a_leaf_that_a_retry_already_entered_again() {
    let mut r = Run::new(
        &RESUME_UNDER_RETRY
            .replace("BRANCH", "b")
            .replace("seq: Sequence | children c b", ""),
    );
    r.trigger("go", None);
    expect(
        &r.step(),
        "0 enter root\n0 enter re\n0 enter par\n0 enter tl\n0 enter a\n0 enter b
         1 interrupt int go\n1 abort b\n1 abort a\n1 enter int\n1 enter x",
    );
    r.steps(2);
    // Saved were a and b; a's TimeLimit fails, the Retry enters the Parallel again, which
    // enters a and b: b is not entered a second time by the resume.
    expect(
        &r.step(),
        "4 execute x\n4 exit x success\n4 exit int success
         4 exit tl failure\n4 exit par failure
         4 enter par\n4 enter tl\n4 enter a\n4 enter b",
    );
    expect(&r.step(), "5 execute a\n5 execute b");
    let b = r.counts("b");
    assert_eq!(
        (b.entries, b.aborts),
        (2, 1),
        "every entry of b but the last ends"
    );
}

#[test]
fn a_resume_never_enters_a_later_child_of_a_sequence_entered_again() {
    let mut r = Run::new(&RESUME_UNDER_RETRY.replace("BRANCH", "seq"));
    r.step();
    r.trigger("go", None);
    // c succeeded at step 1, so b runs in the Sequence when the interrupt starts.
    expect(
        &r.step(),
        "2 interrupt int go\n2 abort b\n2 abort a\n2 enter int\n2 enter x",
    );
    r.steps(2);
    // The Parallel entered again starts the Sequence at c: b, saved from the run before,
    // would be a second child of the Sequence running beside c.
    expect(
        &r.step(),
        "5 execute x\n5 exit x success\n5 exit int success
         5 exit tl failure\n5 abort seq\n5 exit par failure
         5 enter par\n5 enter tl\n5 enter a\n5 enter seq\n5 enter c",
    );
    expect(
        &r.step(),
        "6 execute a\n6 execute c\n6 exit c success\n6 enter b",
    );
}
