//! Precondition (SEMANTICS.md §3.3.1): its condition is checked as it is entered; the child
//! runs when it holds, else the node finishes with `else`; no check while the child runs.

use crate::harness::{Run, expect};

#[test]
fn the_child_runs_when_the_condition_holds_at_entry() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children set p
         set: Script code=battery:=0.8
         p: Precondition if=battery>0.5 | child a
         a: MockAction script=S",
    );
    expect(
        &r.steps(2),
        "0 enter root\n0 enter s\n0 enter set\n1 execute set\n1 context set battery=0.8\n1 exit set success\n1 enter p\n1 enter a\n2 execute a\n2 exit a success\n2 exit p success\n2 exit s success\n2 exit root success\n2 complete root success\n2 restart root complete\n2 enter root\n2 enter s\n2 enter set",
    );
}

#[test]
fn otherwise_it_finishes_with_else_without_its_child() {
    for (otherwise, result) in [("SUCCESS", "success"), ("FAILURE", "failure")] {
        let mut r = Run::new(&format!(
            "root: Root | child p
             p: Precondition if=battery>0.5 else={otherwise} | child a
             a: MockAction script=S"
        ));
        // `battery` has no value: the condition does not hold.
        expect(
            &r.steps(1)[..4],
            &format!("0 enter root\n0 enter p\n0 exit p {result}\n0 exit root {result}"),
        );
        assert_eq!(r.counts("a").entries, 0);
    }
}

#[test]
fn it_does_not_check_again_while_its_child_runs() {
    // The Parallel's first child makes the condition false at step 3; the guarded action
    // runs on to its end.
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children set par
         set: Script code=go:=1
         par: Parallel success=all failure=one | children drive p
         drive: Sequence | children w drop
         w: MockAction script=S
         drop: Script code=go:=0
         p: Precondition if=go==1 | child a
         a: MockAction script=RRRRS",
    );
    r.steps(6);
    assert!(
        r.of("drop").contains(&"3 context drop go=0".to_owned()),
        "{:?}",
        r.of("drop")
    );
    assert!(
        r.of("a").contains(&"6 exit a success".to_owned()),
        "{:?}",
        r.of("a")
    );
}
