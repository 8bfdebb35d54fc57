//! Regulator: the leaves below it execute at most `hz` times per simulated second.

use crate::harness::Run;

#[test]
fn executes_at_most_hz_times_per_second() {
    let mut r = Run::new(
        "root: Root | child reg
         reg: Regulator hz=5.0 | child a
         a: MockAction script=RRRRS",
    );
    r.steps(9);
    let executes: Vec<&str> = r
        .log
        .iter()
        .filter(|l| l.contains(" execute a"))
        .map(String::as_str)
        .collect();
    // dt 0.1, period 0.2: the first ready step runs, then every second step.
    assert_eq!(
        executes,
        [
            "1 execute a",
            "3 execute a",
            "5 execute a",
            "7 execute a",
            "9 execute a"
        ]
    );
    assert!(r.log.contains(&"9 exit a success".to_string()));
}

#[test]
fn skipped_steps_still_check_guards() {
    let mut r = Run::new(
        "root: Root | child reg
         reg: Regulator hz=2.0 | child s
         s: Sequence | conditions g | children a
         g: MockCondition script=T
         a: MockAction script=R",
    );
    r.steps(6);
    let checks = r.log.iter().filter(|l| l.contains(" check g")).count();
    let executes = r.log.iter().filter(|l| l.contains(" execute a")).count();
    assert_eq!(checks, 7, "{:#?}", r.log); // at entry, then every step
    assert_eq!(executes, 2, "{:#?}", r.log); // steps 1 and 6
}

#[test]
fn hz_above_the_step_rate_executes_every_step() {
    let mut r = Run::new(
        "root: Root | child reg
         reg: Regulator hz=100.0 | child a
         a: MockAction script=R",
    );
    r.steps(10);
    assert_eq!(r.counts("a").executions, 10);
}
