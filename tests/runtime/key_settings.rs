//! A branch's fields bound to keys (docs/SEMANTICS.md §3.5): a Repeater's `times`, a
//! TimeLimit's `seconds`, a Sequence's `halt_on_failure` … holding `{"key": NAME}` are
//! read when the branch is entered, after its guards pass, and hold that value until its
//! next entry. A key without a value, or with one the field does not take, fails the
//! branch at once, with a reason, without entering a child.

use arbor::model::{KeyDecl, KeyType, Value};

use crate::harness::{Run, expect};

fn key(name: &str, ty: KeyType, default: Value) -> KeyDecl {
    KeyDecl {
        default: Some(default),
        ..KeyDecl::new(name, ty)
    }
}

#[test]
fn a_repeaters_count_is_read_at_its_entry_and_kept_until_the_next() {
    let mut r = Run::declaring(
        "root: Root | child rep
         rep: Repeater times=@laps | child a
         a: MockAction script=S",
        vec![key("laps", KeyType::Int, Value::Int(2))],
    );
    expect(
        &r.steps(2),
        "0 context root laps=2\n0 enter root\n0 enter rep\n0 enter a\n1 execute a\n1 exit a success\n1 enter a\n2 execute a\n2 exit a success\n2 exit rep success\n2 exit root success\n2 complete root success\n2 context root laps=2\n2 restart root complete\n2 enter root\n2 enter rep\n2 enter a",
    );
    // A write while the Repeater runs changes nothing for this entry: it still stops
    // after two runs (steps 3 and 4) …
    r.instance.set("laps", 3.0).unwrap();
    let events = r.steps(2);
    assert!(
        events.contains(&"4 exit rep success".to_owned()),
        "{events:#?}"
    );
    // The run's completion gives the key its default back, and the next entry reads 2.
    // A game's own default for this agent is read from the entry after that: the entry
    // at step 4 runs its child twice (steps 5 and 6), the one at step 6 three times.
    r.instance.seed("laps", 3.0).unwrap();
    r.steps(5);
    let exits: Vec<&String> = r
        .log
        .iter()
        .filter(|l| l.ends_with("exit rep success"))
        .collect();
    assert_eq!(
        exits,
        [
            "2 exit rep success",
            "4 exit rep success",
            "6 exit rep success",
            "9 exit rep success"
        ],
        "{:#?}",
        r.log
    );
}

#[test]
fn a_time_limits_seconds_are_read_at_its_entry() {
    // dt is 0.1 s: 0.2 s is up in step 2.
    let mut r = Run::declaring(
        "root: Root | child tl
         tl: TimeLimit seconds=@limit | child a
         a: MockAction script=R",
        vec![key("limit", KeyType::Float, Value::Float(0.2))],
    );
    r.step();
    // A write while it runs is not read until its next entry.
    r.instance.set("limit", 5.0).unwrap();
    expect(
        &r.step(),
        "2 abort a\n2 exit tl failure\n2 exit root failure\n2 complete root failure\n2 context root limit=0.2\n2 restart root complete\n2 enter root\n2 enter tl\n2 enter a",
    );
}

#[test]
fn a_sequences_halt_on_failure_is_read_at_each_entry() {
    let mut r = Run::declaring(
        "root: Root | child seq
         seq: Sequence halt_on_failure=@strict | children a b
         a: MockAction script=F
         b: MockAction script=S",
        vec![key("strict", KeyType::Bool, Value::Bool(false))],
    );
    // Off: `a`'s failure moves on to `b`.
    expect(
        &r.steps(2),
        "0 context root strict=false\n0 enter root\n0 enter seq\n0 enter a\n1 execute a\n1 exit a failure\n1 enter b\n2 execute b\n2 exit b success\n2 exit seq success\n2 exit root success\n2 complete root success\n2 context root strict=false\n2 restart root complete\n2 enter root\n2 enter seq\n2 enter a",
    );
    // A game seeds it on for this agent: every entry from the next run halts.
    r.instance.seed("strict", true).unwrap();
    r.steps(2);
    let events = r.steps(2);
    assert!(
        events.contains(&"5 exit a failure".to_owned())
            && events.contains(&"5 exit seq failure".to_owned()),
        "{events:#?}"
    );
}

#[test]
fn a_parallels_policy_is_read_from_a_text_key() {
    let mut r = Run::declaring(
        "root: Root | child par
         par: Parallel success=@policy | children a b
         a: MockAction script=S
         b: MockAction script=RRRS",
        vec![key("policy", KeyType::Text, Value::Text("one".into()))],
    );
    let events = r.steps(1);
    assert!(
        events.contains(&"1 abort b".to_owned())
            && events.contains(&"1 exit par success".to_owned()),
        "{events:#?}"
    );
}

#[test]
fn a_regulators_rate_and_a_cooldowns_seconds_are_read_from_keys() {
    // 5 Hz at dt 0.1: every other step executes.
    let mut r = Run::declaring(
        "root: Root | child reg
         reg: Regulator hz=@rate | child a
         a: MockAction script=R",
        vec![key("rate", KeyType::Float, Value::Float(5.0))],
    );
    r.steps(5);
    assert_eq!(r.counts("a").executions, 3, "{:#?}", r.log);

    let mut r = Run::declaring(
        "root: Root | child sel
         sel: Selector | children cd idle
         cd: Cooldown seconds=@rest | child a
         a: MockAction script=S
         idle: MockAction script=S",
        vec![key("rest", KeyType::Float, Value::Float(0.25))],
    );
    r.steps(6);
    // `a` executes at step 1, and next at step 5: the Cooldown fails at each entry until
    // 0.25 s have passed since `a` finished (it is entered again at step 4).
    assert_eq!(r.counts("a").executions, 2, "{:#?}", r.log);
}

#[test]
fn a_key_without_a_value_or_with_one_the_field_does_not_take_fails_the_branch_at_its_entry() {
    let mut r = Run::new(
        "root: Root | child rep
         rep: Repeater times=@laps | child a
         a: MockAction script=S",
    );
    expect(
        &r.steps(1),
        "0 enter root\n0 enter rep\n0 exit rep failure (a key-bound field's key holds no value)\n0 exit root failure\n0 complete root failure\n0 stall root\n1 restart root stall\n1 enter root\n1 enter rep\n1 exit rep failure (a key-bound field's key holds no value)\n1 exit root failure\n1 complete root failure\n1 stall root",
    );
    assert_eq!(r.counts("a").entries, 0);
    // A count is whole and not negative; 2.5 and -1 do not fit it (an `any` key may hold
    // either).
    for bad in [Value::Float(2.5), Value::Int(-1)] {
        let mut r = Run::declaring(
            "root: Root | child seq
             seq: Sequence | children rep b
             rep: Retry times=@laps | child a
             a: MockAction script=F
             b: MockAction script=S",
            vec![key("laps", KeyType::Any, bad)],
        );
        let events = r.steps(1);
        assert!(
            events.contains(
                &"0 exit rep failure (a key-bound field's value does not fit it)".to_owned()
            ),
            "{events:#?}"
        );
    }
}

#[test]
fn the_guards_are_checked_before_the_keys_are_read() {
    // A failing guard fails the branch as always; the missing key is not read.
    let mut r = Run::new(
        "root: Root | child sel
         sel: Selector | children rep b
         rep: Repeater times=@laps | conditions no | child a
         no: MockCondition script=F
         a: MockAction script=S
         b: MockAction script=R",
    );
    expect(
        &r.steps(1)[..6],
        "0 enter root\n0 enter sel\n0 enter rep\n0 check no false\n0 exit rep failure\n0 enter b",
    );
}
