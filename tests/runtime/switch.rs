//! Switch2 … Switch6 (SEMANTICS.md §3.3): the child of the first case equal to the
//! variable runs, else the default; checked again at every step, switching when the
//! answer changes.

use crate::harness::{Run, expect};

#[test]
fn the_first_matching_case_runs_comparing_texts_and_numbers() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children set sw
         set: Script code=mode:='2.0'
         sw: Switch3 variable=@mode case_1=patrol case_2=2 case_3=2.0 | children a b c d
         a: MockAction script=R
         b: MockAction script=S
         c: MockAction script=R
         d: MockAction script=R",
    );
    expect(
        &r.steps(2),
        "0 enter root\n0 enter s\n0 enter set\n1 execute set\n1 context set mode=\"2.0\"\n1 exit set success\n1 enter sw\n1 enter b\n2 execute b\n2 exit b success\n2 exit sw success\n2 exit s success\n2 exit root success\n2 complete root success\n2 restart root complete\n2 enter root\n2 enter s\n2 enter set",
    );
}

#[test]
fn without_a_value_or_a_match_the_default_runs() {
    let mut r = Run::new(
        "root: Root | child sw
         sw: Switch2 variable=@mode case_1=a case_2=@other | children x y z
         x: MockAction script=R
         y: MockAction script=R
         z: MockAction script=F",
    );
    expect(
        &r.steps(1),
        "0 enter root\n0 enter sw\n0 enter z\n1 execute z\n1 exit z failure\n1 exit sw failure\n1 exit root failure\n1 complete root failure\n1 restart root complete\n1 enter root\n1 enter sw\n1 enter z",
    );
}

#[test]
fn it_switches_when_the_variable_changes_and_runs_on_when_it_does_not() {
    // `drive` sets the mode to `b` at step 2, then to `a` at step 4; the Switch's child
    // changes at the next step's check, the one that ran aborted, and the new one
    // executes from the step after its entry, as every leaf does.
    let mut r = Run::new(
        "root: Root | child p
         p: Parallel success=one failure=one | children drive sw
         drive: Sequence | children w1 b w2 a w3
         w1: MockAction script=S
         b: Script code=mode:='b'
         w2: MockAction script=S
         a: Script code=mode:='a'
         w3: MockAction script=R
         sw: Switch2 variable=@mode case_1=a case_2=b | children x y z
         x: MockAction script=R
         y: MockAction script=R
         z: MockAction script=R",
    );
    r.steps(6);
    let sw: Vec<String> = r
        .log
        .iter()
        .filter(|l| {
            [" x", " y", " z", " sw"]
                .iter()
                .any(|n| l.contains(n) && !l.contains("context"))
        })
        .cloned()
        .collect();
    expect(
        &sw,
        "0 enter sw\n0 enter z\n1 execute z\n2 execute z\n3 enter y\n3 abort z\n4 execute y\n5 enter x\n5 abort y\n6 execute x",
    );
}
