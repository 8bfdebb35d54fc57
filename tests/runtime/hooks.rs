//! A node's hooks (SEMANTICS.md §3.7): `_failureIf` and `_successIf` checked as it is
//! entered, `_onSuccess`, `_onFailure` and `_post` run as it finishes, `_onHalted` as it
//! is aborted.

use arbor::model::{KeyDecl, KeyType};

use crate::harness::{Run, expect, number};

#[test]
fn a_leaf_whose_failure_if_holds_fails_without_running_and_runs_its_failure_hooks() {
    // `a` is entered after `go` set `tired`.
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children go t
         go: Script code=tired:=1
         t: Selector | children a b
         a: MockAction script=S _failureIf=tired==1 _onSuccess=won:=1 _onFailure=n:=5 _post=n*=2
         b: MockAction script=R",
    );
    let events = r.steps(2);
    assert!(
        events.contains(&"1 enter a".to_owned())
            && events.contains(&"1 exit a failure (its _failureIf holds)".to_owned())
            && events.contains(&"1 context a n=5".to_owned())
            && events.contains(&"1 context a n=10".to_owned())
            && events.contains(&"1 enter b".to_owned()),
        "{events:#?}"
    );
    assert!(
        !events.iter().any(|e| e.contains("execute a")),
        "{events:#?}"
    );
    assert_eq!(r.counts("a").entries, 0, "its action is never called");
    assert_eq!(r.context("won"), None);
    assert_eq!(r.context("n"), number(10.0), "_post runs after _onFailure");
}

#[test]
fn a_branch_whose_success_if_holds_succeeds_without_entering_a_child() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children go d after
         go: Script code=done:=1
         d: Sequence _successIf=done==1 _failureIf=done==2 _onSuccess=seen:=1 | children a
         a: MockAction script=F
         after: MockAction script=R",
    );
    let events = r.steps(2);
    let of_d: Vec<&String> = events
        .iter()
        .filter(|e| e.split(' ').nth(2) == Some("d"))
        .collect();
    assert_eq!(
        of_d,
        ["1 enter d", "1 context d seen=1", "1 exit d success"]
    );
    assert_eq!(r.counts("a").entries, 0);
    assert!(events.contains(&"1 enter after".to_owned()), "{events:#?}");
}

#[test]
fn failure_if_is_checked_before_success_if() {
    let mut r = Run::new(
        "root: Root | child s
         s: Selector | children d after
         d: MockAction script=S _failureIf=1==1 _successIf=1==1
         after: MockAction script=R",
    );
    expect(
        &r.steps(1),
        "0 enter root\n0 enter s\n0 enter d\n0 exit d failure (its _failureIf holds)\n0 enter after\n1 execute after",
    );
}

#[test]
fn hooks_that_do_not_hold_leave_the_node_to_run_and_its_success_hooks_run_in_order() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children a b
         a: MockAction script=RS _failureIf=n==1 _successIf=n==2 _onSuccess=n:=1 _onFailure=n:=7 _post=n+=1
         b: MockAction script=R",
    );
    let events = r.steps(3);
    assert!(
        events.contains(&"2 exit a success".to_owned()),
        "{events:#?}"
    );
    assert_eq!(r.counts("a").executions, 2);
    assert_eq!(r.context("n"), number(2.0), "_onSuccess, then _post");
}

#[test]
fn on_halted_runs_when_a_running_node_is_aborted_and_not_when_it_finishes() {
    // The Parallel succeeds with its first child and aborts the second, which runs.
    let mut r = Run::new(
        "root: Root | child p
         p: Parallel success=one | children a b
         a: MockAction script=RS _onHalted=ha:=1
         b: MockAction script=RRRR _onHalted=hb:=1 _post=pb:=1",
    );
    let events = r.steps(2);
    let of_b: Vec<&String> = events
        .iter()
        .filter(|e| e.contains(" b") && !e.contains("execute"))
        .collect();
    // (Root then starts the next run.)
    assert_eq!(
        of_b,
        ["0 enter b", "2 context b hb=1", "2 abort b", "2 enter b"]
    );
    assert_eq!(r.context("ha"), None, "a finished");
    assert_eq!(
        r.context("pb"),
        None,
        "_post runs as a node finishes, not as it is aborted"
    );
}

#[test]
fn a_hook_whose_value_does_not_fit_its_key_stores_nothing() {
    let mut r = Run::declaring(
        "root: Root | child s
         s: Sequence | children a b
         a: MockAction script=S _onSuccess=count:=1;count:='many'
         b: MockAction script=R _onFailure=never:=1",
        vec![
            KeyDecl::new("count", KeyType::Int),
            KeyDecl::new("never", KeyType::Int),
        ],
    );
    let events = r.steps(2);
    assert!(
        events.contains(&"1 exit a success".to_owned()),
        "{events:#?}"
    );
    assert!(
        !events.iter().any(|e| e.contains("context a")),
        "{events:#?}"
    );
    assert_eq!(r.context("count"), None);
}

#[test]
fn a_skipped_child_lets_a_sequence_go_on_and_a_selector_try_the_next() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children a b c
         a: MockAction script=S _skipIf=1==1 _onFailure=n:=1 _post=n:=2
         b: MockAction script=S
         c: MockAction script=R",
    );
    let events = r.steps(2);
    assert_eq!(r.of("a"), ["0 enter a", "0 exit a skipped"]);
    assert_eq!(r.counts("a").entries, 0, "its action is never called");
    assert_eq!(
        r.context("n"),
        None,
        "a skipped node runs no finishing hook"
    );
    assert!(
        events.contains(&"1 exit b success".to_owned()),
        "{events:#?}"
    );
    let mut r = Run::new(
        "root: Root | child s
         s: Selector | children a b
         a: MockAction script=S _skipIf=1==1
         b: MockAction script=R",
    );
    assert!(r.steps(1).contains(&"1 execute b".to_owned()));
}

#[test]
fn composites_all_of_whose_children_are_skipped_are_skipped() {
    // A Sequence and a Selector of skipped children, a Parallel of success `one` whose
    // children are all skipped, an Inverter over one: each is skipped, and the Sequence
    // above goes on to its last child; Root's run completes with it.
    let mut r = Run::new(
        "root: Root | child top
         top: Sequence | children seq sel par inv last
         seq: Sequence | children a b
         a: MockAction script=S _skipIf=1==1
         b: MockAction script=S _skipIf=1==1
         sel: Selector | children c
         c: MockAction script=S _skipIf=1==1
         par: Parallel success=one | children d e
         d: MockAction script=S _skipIf=1==1
         e: MockAction script=S _skipIf=1==1
         inv: Inverter | child f
         f: MockAction script=S _skipIf=1==1
         last: MockAction script=S",
    );
    let events = r.steps(1);
    for node in ["seq", "sel", "par", "inv"] {
        assert!(
            events.contains(&format!("0 exit {node} skipped")),
            "{node}: {events:#?}"
        );
    }
    assert!(
        events.contains(&"1 exit last success".to_owned()),
        "{events:#?}"
    );
    assert!(
        events.contains(&"1 exit top success".to_owned()),
        "{events:#?}"
    );
    // A tree whose every node is skipped completes its runs skipped.
    let mut r = Run::new(
        "root: Root | child top
         top: Sequence | children a
         a: MockAction script=S _skipIf=1==1",
    );
    let events = r.steps(2);
    assert!(
        events.contains(&"0 complete root skipped".to_owned()),
        "{events:#?}"
    );
    assert!(r.instance.stats().skipped >= 1, "{events:#?}");
}

#[test]
fn a_parallel_of_all_counts_a_skipped_child_as_a_success() {
    let mut r = Run::new(
        "root: Root | child top
         top: Sequence | children par last
         par: Parallel success=all | children a b
         a: MockAction script=S _skipIf=1==1
         b: MockAction script=RS
         last: MockAction script=R",
    );
    let events = r.steps(3);
    assert!(
        events.contains(&"2 exit par success".to_owned()),
        "{events:#?}"
    );
}

#[test]
fn a_run_once_that_then_skips_and_a_precondition_and_loop_that_skip() {
    let mut r = Run::new(
        "root: Root | child top
         top: Sequence | children once pre loop last
         once: RunOnce then_skip=true | child a
         a: MockAction script=S
         pre: Precondition if=0==1 else=SKIPPED | child b
         b: MockAction script=S
         loop: LoopInt queue= if_empty=SKIPPED | child c
         c: MockAction script=S
         last: MockAction script=S",
    );
    let events = r.steps(6);
    assert!(
        events.contains(&"1 exit once success".to_owned()),
        "{events:#?}"
    );
    assert!(
        events.contains(&"1 exit pre skipped".to_owned()),
        "{events:#?}"
    );
    assert!(
        events.contains(&"1 exit loop skipped".to_owned()),
        "{events:#?}"
    );
    // The second run: RunOnce is skipped at once.
    let second: Vec<&String> = events.iter().filter(|e| e.contains(" once")).collect();
    assert!(
        second.iter().any(|e| e.ends_with("exit once skipped")),
        "{second:#?}"
    );
    assert_eq!(r.counts("a").executions, 1);
}

#[test]
fn a_repeater_whose_child_is_skipped_ends_skipped() {
    let mut r = Run::new(
        "root: Root | child top
         top: Selector | children rep last
         rep: Repeater times=3 | child a
         a: MockAction script=S _skipIf=1==1
         last: MockAction script=R",
    );
    let events = r.steps(1);
    assert!(
        events.contains(&"0 exit rep skipped".to_owned()),
        "{events:#?}"
    );
    assert!(events.contains(&"1 execute last".to_owned()), "{events:#?}");
}

#[test]
fn a_leaf_resumed_after_an_interrupt_checks_its_entry_hooks_and_its_parent_hears_it() {
    // The interrupt's payload makes the resumed leaf's `_failureIf` hold: it fails as it
    // is entered again, and its Selector goes on to its next child.
    let mut r = Run::new(
        "root: Root | child s | interrupts int
         s: Selector | children a b
         a: MockAction script=RRRRRRRR _failureIf=src=='bob'
         b: MockAction script=RRRRRRRR
         int: Interrupt interrupt_id=alarm out_context=src | child x
         x: MockAction script=S",
    );
    r.steps(2);
    r.trigger("alarm", Some("bob"));
    let events = r.steps(3);
    assert!(
        events.contains(&"4 exit a failure (its _failureIf holds)".to_owned()),
        "{events:#?}"
    );
    assert!(events.contains(&"4 enter b".to_owned()), "{events:#?}");
    assert!(events.contains(&"5 execute b".to_owned()), "{events:#?}");
}

#[test]
fn a_running_leaf_whose_while_stops_holding_is_halted_and_skipped() {
    // `t` sets `go` to 0 at step 3; at step 4 phase 2 finds `a`'s `_while` false: `a`'s
    // action is stopped, its `_onHalted` runs, it is skipped, and `s` goes on to `b`.
    let mut r = Run::new(
        "root: Root | child top
         top: Sequence | children init p
         init: Script code=go:=1
         p: Parallel success=all | children s t
         s: Sequence | children a b
         a: MockAction script=RRRRRRRRR _while=go==1 _onHalted=h:=1 _post=post:=1
         b: MockAction script=RRRRRRRRR
         t: Sequence | children u off
         u: MockAction script=S
         off: Script code=go:=0",
    );
    let events = r.steps(5);
    assert_eq!(
        r.of("a"),
        [
            "1 enter a",
            "2 execute a",
            "3 execute a",
            "4 context a h=1",
            "4 exit a skipped"
        ],
        "{events:#?}"
    );
    assert_eq!(r.counts("a").aborts, 1, "its action is stopped");
    assert_eq!(r.context("post"), None, "no finishing hook");
    assert!(events.contains(&"4 enter b".to_owned()), "{events:#?}");
}

#[test]
fn a_running_branch_whose_while_stops_holding_aborts_what_runs_below_and_is_skipped() {
    let mut r = Run::new(
        "root: Root | child top
         top: Sequence | children init p
         init: Script code=go:=1
         p: Parallel success=all | children s t
         s: Sequence _while=go==1 | children a b
         a: MockAction script=RRRRRRRRR _onHalted=ha:=1
         b: MockAction script=R
         t: Sequence | children u off
         u: MockAction script=S
         off: Script code=go:=0",
    );
    let events = r.steps(5);
    let at4: Vec<&String> = events
        .iter()
        .filter(|e| e.starts_with("4 ") && matches!(e.split(' ').nth(2), Some("a" | "s")))
        .collect();
    assert_eq!(
        at4,
        ["4 context a ha=1", "4 abort a", "4 exit s skipped"],
        "{events:#?}"
    );
    assert_eq!(r.counts("b").entries, 0);
    // Entered with its `_while` false, a node is skipped at once.
    let mut r = Run::new(
        "root: Root | child s
         s: Selector | children a b
         a: MockAction script=S _while=0==1
         b: MockAction script=R",
    );
    assert_eq!(r.steps(1)[2..4], ["0 enter a", "0 exit a skipped"]);
}

#[test]
fn a_leaf_with_its_own_while_resumed_after_an_interrupt_is_entered_again_and_checked() {
    // The interrupt's payload makes `a`'s `_while` false: resumed, `a` is entered again
    // and skipped at once (its `_while` an entry hook then), and its Selector goes on.
    let mut r = Run::new(
        "root: Root | child top | interrupts int
         top: Sequence | children init s
         init: Script code=src:='alice'
         s: Selector | children a b
         a: MockAction script=RRRRRRRR _while=src!='bob'
         b: MockAction script=RRRRRRRR
         int: Interrupt interrupt_id=alarm out_context=src | child x
         x: MockAction script=S",
    );
    r.steps(3);
    r.trigger("alarm", Some("bob"));
    let events = r.steps(3);
    assert!(
        events.contains(&"5 exit a skipped".to_owned()),
        "{events:#?}"
    );
    assert!(events.contains(&"5 enter b".to_owned()), "{events:#?}");
    assert_eq!(r.counts("a").aborts, 1, "aborted once, by the interrupt");
}
