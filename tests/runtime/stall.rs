//! The stall rule: a step always ends.

use crate::harness::{Run, expect};

#[test]
fn a_condition_only_tree_stalls_and_the_step_returns() {
    let mut r = Run::new(
        "root: Root | child c
         c: MockCondition script=T",
    );
    expect(
        &r.step()[..7],
        "0 enter root\n0 enter c\n0 check c true\n0 exit c success\n0 exit root success\n0 complete root success\n0 stall root",
    );
    expect(
        &r.step(),
        "2 restart root stall\n2 enter root\n2 enter c\n2 check c true\n2 exit c success\n2 exit root success\n2 complete root success\n2 stall root",
    );
    r.steps(100);
    assert_eq!(r.instance.stats().stalls, 103);
}

#[test]
fn after_a_stall_a_trigger_runs_its_interrupt_and_root_waits_for_it() {
    let mut r = Run::new(
        "root: Root | child u | interrupts i
         u: UntilFail | child c
         c: MockCondition script=T
         i: Interrupt interrupt_id=ping out_context=k | child a
         a: MockAction script=R in_context=k",
    );
    r.step();
    r.trigger("ping", Some("p"));
    let events = r.step();
    assert_eq!(
        &events[..4],
        [
            "2 interrupt i ping",
            "2 context i k=\"p\"",
            "2 enter i",
            "2 enter a"
        ]
    );
    assert_eq!(
        r.context("k"),
        Some(arbor::runtime::CtxValue::Text("p".into()))
    );
    assert!(!events.iter().any(|e| e.contains("restart")), "{events:#?}");
}
