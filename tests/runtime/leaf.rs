//! Leaves: the lifecycle calls and the max_duration boundary.

use crate::harness::{Run, expect};

#[test]
fn on_enter_execute_exit_are_called_once_each_per_event() {
    let mut r = Run::new(
        "root: Root | child a
         a: MockAction script=RRS",
    );
    r.steps(3);
    let c = r.counts("a");
    assert_eq!((c.entries, c.executions, c.exits, c.aborts), (2, 3, 1, 0));
    assert_eq!(r.of("a").iter().filter(|l| l.contains("enter")).count(), 2);
}

#[test]
fn max_duration_fails_a_leaf_that_is_still_running_at_the_limit() {
    let mut r = Run::new(
        "root: Root | child a
         a: MockAction script=R max_duration=0.3",
    );
    expect(
        &r.steps(3)[2..],
        "1 execute a\n2 execute a\n3 execute a\n3 exit a failure (max_duration)\n3 exit root failure\n3 complete root failure\n3 restart root complete\n3 enter root\n3 enter a",
    );
}

#[test]
fn max_duration_just_above_the_elapsed_time_lets_it_run() {
    let mut r = Run::new(
        "root: Root | child a
         a: MockAction script=R max_duration=0.31",
    );
    r.steps(3);
    assert!(!r.log.iter().any(|l| l.contains("exit a")), "{:#?}", r.log);
    r.steps(1);
    assert!(
        r.log
            .contains(&"4 exit a failure (max_duration)".to_string())
    );
}

#[test]
fn a_success_returned_at_the_limit_stands() {
    let mut r = Run::new(
        "root: Root | child a
         a: MockAction script=RRS max_duration=0.3",
    );
    r.steps(3);
    assert!(
        r.log.contains(&"3 exit a success".to_string()),
        "{:#?}",
        r.log
    );
}

#[test]
fn a_leaf_entered_in_a_step_executes_from_the_next() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children a b
         a: MockAction script=S
         b: MockAction script=S",
    );
    expect(
        &r.steps(2)[3..],
        "1 execute a\n1 exit a success\n1 enter b\n2 execute b\n2 exit b success\n2 exit s success\n2 exit root success\n2 complete root success\n2 restart root complete\n2 enter root\n2 enter s\n2 enter a",
    );
}

#[test]
fn wait_succeeds_once_its_seconds_have_passed_without_a_world() {
    let mut r = Run::new(
        "root: Root | child w
         w: Wait seconds=0.25",
    );
    // dt 0.1: 0.1, 0.2, then 0.3 >= 0.25.
    let exits: Vec<String> = r
        .steps(3)
        .into_iter()
        .filter(|l| l.contains("exit w"))
        .collect();
    expect(&exits, "3 exit w success");
}
