//! IfThenElse and WhileDoElse (docs/SEMANTICS.md §3.3): the first child decides which of
//! the others runs; WhileDoElse enters its first child again at every step while the
//! second or third runs, and switches when the answer changes.

use crate::harness::{Run, expect};

#[test]
fn if_then_else_runs_the_second_child_on_success_and_the_third_on_failure() {
    let mut r = Run::new(
        "root: Root | child top
         top: Sequence | children a b
         a: IfThenElse | children yes then1 else1
         yes: MockCondition script=T
         then1: MockAction script=S
         else1: MockAction script=S
         b: IfThenElse | children no then2 else2
         no: MockCondition script=F
         then2: MockAction script=S
         else2: MockAction script=F",
    );
    expect(
        &r.steps(2),
        "
         0 enter root
         0 enter top
         0 enter a
         0 enter yes
         0 check yes true
         0 exit yes success
         0 enter then1
         1 execute then1
         1 exit then1 success
         1 exit a success
         1 enter b
         1 enter no
         1 check no false
         1 exit no failure
         1 enter else2
         2 execute else2
         2 exit else2 failure
         2 exit b failure
         2 exit top failure
         2 exit root failure
         2 complete root failure
         2 restart root complete
         2 enter root
         2 enter top
         2 enter a
         2 enter yes
         2 check yes true
         2 exit yes success
         2 enter then1",
    );
}

#[test]
fn if_then_else_without_a_third_child_fails_when_the_first_fails_and_does_not_check_again() {
    let mut r = Run::new(
        "root: Root | child sel
         sel: Selector | children ite other
         ite: IfThenElse | children c act
         c: MockCondition script=FTF
         act: MockAction script=R
         other: MockAction script=R",
    );
    expect(
        &r.steps(2),
        "
         0 enter root
         0 enter sel
         0 enter ite
         0 enter c
         0 check c false
         0 exit c failure
         0 exit ite failure
         0 enter other
         1 execute other
         2 execute other",
    );
}

#[test]
fn while_do_else_switches_when_its_first_child_changes_its_answer() {
    let mut r = Run::new(
        "root: Root | child wde
         wde: WhileDoElse | children c work rest
         c: MockCondition script=TTFT
         work: MockAction script=R
         rest: MockAction script=R",
    );
    // Step 2: `c` fails: `rest` is entered and `work` aborted. Step 3: `c` holds again:
    // `work` is entered anew and `rest` aborted.
    expect(
        &r.steps(3),
        "
         0 enter root
         0 enter wde
         0 enter c
         0 check c true
         0 exit c success
         0 enter work
         1 enter c
         1 check c true
         1 exit c success
         1 execute work
         2 enter c
         2 check c false
         2 exit c failure
         2 enter rest
         2 abort work
         3 enter c
         3 check c true
         3 exit c success
         3 enter work
         3 abort rest",
    );
}

#[test]
fn while_do_else_without_a_third_child_fails_when_its_first_child_fails() {
    let mut r = Run::new(
        "root: Root | child top
         top: Sequence | children wde after
         wde: WhileDoElse | children c work
         c: MockCondition script=TF
         work: MockAction script=R
         after: MockAction script=R",
    );
    expect(
        &r.steps(1),
        "
         0 enter root
         0 enter top
         0 enter wde
         0 enter c
         0 check c true
         0 exit c success
         0 enter work
         1 enter c
         1 check c false
         1 exit c failure
         1 abort work
         1 exit wde failure
         1 exit top failure
         1 exit root failure
         1 complete root failure
         1 restart root complete
         1 enter root
         1 enter top
         1 enter wde
         1 enter c
         1 check c false
         1 exit c failure
         1 exit wde failure
         1 exit top failure
         1 exit root failure
         1 complete root failure
         1 stall root",
    );
}
