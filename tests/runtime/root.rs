//! Root: the start at step 0, completion, restart, context cleared.

use crate::harness::{Run, expect};

#[test]
fn starts_at_step_0_and_restarts_after_completing() {
    let mut r = Run::new(
        "root: Root | child a
         a: MockAction script=RS",
    );
    expect(&r.step(), "0 enter root\n0 enter a\n1 execute a");
    expect(
        &r.step(),
        "2 execute a
         2 exit a success
         2 exit root success
         2 complete root success
         2 restart root complete
         2 enter root
         2 enter a",
    );
    let c = r.counts("a");
    assert_eq!((c.entries, c.executions, c.exits, c.aborts), (2, 2, 1, 0));
    assert_eq!(r.instance.stats().succeeded, 1);
}

#[test]
fn completing_clears_the_context() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children a b
         a: MockAction script=S produces=gold out_context=loot
         b: MockAction script=RS in_context=loot",
    );
    r.steps(2);
    assert_eq!(
        r.context("loot"),
        Some(arbor::runtime::CtxValue::Text("gold".into()))
    );
    expect(
        &r.step(),
        "3 execute b\n3 exit b success\n3 exit s success\n3 exit root success\n3 complete root success\n3 restart root complete\n3 enter root\n3 enter s\n3 enter a",
    );
    assert_eq!(r.context("loot"), None);
}
