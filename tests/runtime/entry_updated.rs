//! WasEntryUpdated, SkipUnlessUpdated and WaitValueUpdate (SEMANTICS.md §3.3.1): they
//! look at whether their key was set since they last looked.

use crate::harness::Run;

#[test]
fn was_entry_updated_succeeds_once_per_setting_of_its_key() {
    // `x` is set once; the Repeater's three rounds see it set in the first only. A key
    // that holds no value was not set.
    let mut r = Run::new(
        "root: Root | child top
         top: Sequence | children set rep last
         set: Script code=x:=1
         rep: Repeater times=3 | child f
         f: ForceSuccess | child s
         s: Sequence | children w a
         w: WasEntryUpdated entry=x
         a: MockAction script=S
         last: WasEntryUpdated entry=nothing",
    );
    // (Each run sets `x` again: the first run is the one looked at.)
    let events = r.steps(6);
    assert_eq!(r.counts("a").executions, 1, "{events:#?}");
    assert!(
        events.contains(&"6 exit last failure".to_owned()),
        "{events:#?}"
    );
}

#[test]
fn skip_unless_updated_runs_its_child_only_after_its_key_was_set() {
    let mut r = Run::new(
        "root: Root | child top
         top: Sequence | children set rep
         set: Script code=x:=1
         rep: Repeater times=3 | child s
         s: SkipUnlessUpdated entry=x | child a
         a: MockAction script=S",
    );
    // The first run: `a` runs in the first round; the second is skipped, and so is the
    // Repeater (§3.7).
    let events = r.steps(2);
    assert_eq!(r.counts("a").executions, 1, "{events:#?}");
    assert!(
        events.contains(&"2 exit s skipped".to_owned()),
        "{events:#?}"
    );
    assert!(
        events.contains(&"2 exit rep skipped".to_owned()),
        "{events:#?}"
    );
}

#[test]
fn wait_value_update_holds_its_leaves_until_its_key_is_set() {
    // `a` is entered with the WaitValueUpdate and executes only from the step after `b`'s
    // hook sets `y`.
    let mut r = Run::new(
        "root: Root | child p
         p: Parallel success=all | children w b
         w: WaitValueUpdate entry=y | child a
         a: MockAction script=S
         b: MockAction script=RRS _onSuccess=y:=2",
    );
    let events = r.steps(5);
    let first = events.iter().position(|e| e == "4 execute a");
    assert!(first.is_some(), "{events:#?}");
    assert!(
        !events
            .iter()
            .any(|e| e.ends_with("execute a") && !e.starts_with("4 ")),
        "{events:#?}"
    );
    assert!(
        events.contains(&"3 context b y=2".to_owned()),
        "{events:#?}"
    );
}
