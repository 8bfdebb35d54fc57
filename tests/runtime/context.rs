//! Context: in/out keys, overwrite_out, aborted leaves write nothing, context_missing resets.

use arbor::model::{KeyDecl, KeyType, Value};
use arbor::runtime::{CtxValue, Instance};

use crate::harness::{Run, expect};

fn text(s: &str) -> Option<CtxValue> {
    Some(CtxValue::Text(s.into()))
}

/// A declared key, with its default.
fn declared(name: &str, ty: KeyType, default: Option<Value>) -> KeyDecl {
    KeyDecl {
        default,
        ..KeyDecl::new(name, ty)
    }
}

#[test]
fn declared_defaults_are_there_from_the_start_and_again_after_every_clear() {
    let mut r = Run::declaring(
        "root: Root | child s
         s: Sequence | children a b c
         a: MockAction script=S in_context=alert
         b: MockAction script=S produces=seen out_context=alert
         c: MockAction script=S in_context=target",
        vec![
            declared("alert", KeyType::Bool, Some(Value::Bool(false))),
            declared("speed", KeyType::Float, Some(Value::Int(2))),
            declared("name", KeyType::Text, Some(Value::Text("Ann".into()))),
            declared("target", KeyType::Entity, None),
        ],
    );
    assert_eq!(r.context("alert"), Some(CtxValue::Bool(false)));
    assert_eq!(r.context("speed"), Some(CtxValue::Number(2.0)));
    assert_eq!(r.context("name"), text("Ann"));
    assert_eq!(
        r.context("target"),
        None,
        "a key without a default starts empty"
    );
    // The start tells each default (in key order), then `a` reads its seeded key: no reset.
    expect(
        &r.step()[..6],
        "0 context root alert=false\n0 context root speed=2\n0 context root name=\"Ann\"\n0 enter root\n0 enter s\n0 enter a",
    );
    assert!(!r.log.iter().any(|l| l.contains("context_missing")));
    // `b` writes the key; `c` then misses its own, and the context is cleared back to the
    // defaults.
    let second = r.steps(2);
    assert!(
        second.contains(&"2 context b alert=\"seen\"".to_string()),
        "{second:#?}"
    );
    assert!(
        second.contains(&"2 context_missing c target".to_string()),
        "{second:#?}"
    );
    // Cleared back to the defaults, which the trace tells again before Root's restart.
    let at = second
        .iter()
        .position(|l| l == "2 context_missing c target")
        .unwrap();
    expect(
        &second[at + 3..at + 7],
        "2 context root alert=false\n2 context root speed=2\n2 context root name=\"Ann\"\n2 restart root context_missing",
    );
    assert_eq!(r.context("alert"), Some(CtxValue::Bool(false)));
    assert_eq!(r.context("name"), text("Ann"));
}

#[test]
fn a_finished_leaf_writes_what_it_produced() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children a b
         a: MockAction script=RS produces=found out_context=k
         b: MockAction script=R in_context=k",
    );
    r.steps(1);
    assert_eq!(r.context("k"), None, "written only when the leaf finishes");
    r.steps(1);
    assert_eq!(r.context("k"), text("found"));
}

#[test]
fn overwrite_out_false_keeps_the_first_value() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children a b c
         a: MockAction script=S produces=first out_context=k
         b: MockAction script=S produces=second out_context=k overwrite_out=false
         c: MockAction script=R in_context=k",
    );
    r.steps(3);
    assert_eq!(r.context("k"), text("first"));
}

#[test]
fn an_aborted_leaf_writes_nothing() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | conditions g | children a
         g: MockCondition script=TTF
         a: MockAction script=R produces=x out_context=k",
    );
    r.steps(3);
    assert!(r.log.contains(&"2 abort a".to_string()));
    assert_eq!(r.context("k"), None);
}

#[test]
fn a_missing_key_resets_the_tree() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children a b
         a: MockAction script=S
         b: MockAction script=S in_context=k",
    );
    expect(
        &r.step()[3..],
        "1 execute a\n1 exit a success\n1 context_missing b k\n1 abort s\n1 abort root\n1 restart root context_missing\n1 enter root\n1 enter s\n1 enter a",
    );
    assert_eq!(r.counts("b").entries, 0, "the node is not entered");
    assert_eq!(r.instance.stats().context_missing, 1);
}

#[test]
fn a_missing_key_in_the_step_the_run_began_stalls() {
    let mut r = Run::new(
        "root: Root | child b
         b: MockAction script=S in_context=k",
    );
    expect(
        &r.step()[..4],
        "0 enter root\n0 context_missing b k\n0 abort root\n0 stall root",
    );
}

#[test]
fn a_guard_reads_its_in_context_too() {
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children a t
         a: MockAction script=S produces=v out_context=k
         t: Sequence | conditions h | children b
         h: HasContext key=k
         b: MockAction script=R in_context=k",
    );
    r.steps(2);
    assert!(
        r.log.contains(&"1 check h true".to_string()),
        "{:#?}",
        r.log
    );
    assert_eq!(r.instance.active_leaves().len(), 1);
}

/// A guard condition with `in_context` is checked with the key's value, its `invert`
/// applied; without the key, the tree resets.
#[test]
fn a_guard_with_in_context_is_checked_with_its_invert_and_resets_without_its_key() {
    let tree = |writes: &str| {
        format!(
            "root: Root | child s
             s: Sequence | children a t
             a: MockAction script=S produces=v {writes}
             t: Sequence | conditions h | children b
             h: MockCondition script=T in_context=k invert=true
             b: MockAction script=R"
        )
    };
    let mut r = Run::new(&tree("out_context=k"));
    r.steps(3);
    assert!(
        r.log.contains(&"1 check h false".to_string()),
        "{:#?}",
        r.log
    );
    assert!(
        !r.log.iter().any(|l| l.ends_with("enter b")),
        "an inverted guard that holds keeps its branch out: {:#?}",
        r.log
    );
    let mut r = Run::new(&tree(""));
    r.steps(1);
    assert!(
        r.log.contains(&"1 context_missing h k".to_string()),
        "{:#?}",
        r.log
    );
}

#[test]
fn trigger_payload_goes_under_the_interrupt_out_context() {
    let mut r = Run::new(
        "root: Root | child a | interrupts i
         a: MockAction script=R
         i: Interrupt interrupt_id=hello out_context=who | child b
         b: MockAction script=R in_context=who",
    );
    r.step();
    r.trigger("hello", Some("ada"));
    r.step();
    assert_eq!(r.context("who"), text("ada"));
}

#[test]
fn a_value_produced_without_out_context_goes_nowhere() {
    // `a` produces but has no out_context; `b` has one and produces nothing: the key
    // stays empty (no value leaks from one leaf's output to another's).
    let mut r = Run::new(
        "root: Root | child s
         s: Sequence | children a b c
         a: MockAction script=S produces=stray
         b: MockAction script=S out_context=k
         c: MockAction script=R",
    );
    r.steps(3);
    assert_eq!(r.context("k"), None);
}

#[test]
fn the_display_snapshot_can_be_turned_off_and_on() {
    let mut r = Run::new(
        "root: Root | child a
         a: MockAction script=RS",
    );
    assert!(
        Instance::new(r.instance.program().clone(), 0)
            .node_states()
            .is_empty(),
        "off unless asked for"
    );
    r.steps(6);
    let a = r.instance.program().index_of("a").unwrap() as usize;
    assert_eq!(
        r.instance.node_states()[a].entries,
        4,
        "entered at steps 0, 2, 4 and 6"
    );
    r.instance.record_states(false);
    assert!(r.instance.node_states().is_empty());
    r.steps(4); // runs on as before, recording nothing
    assert!(r.instance.node_states().is_empty());
    r.instance.record_states(true);
    r.steps(2);
    assert_eq!(
        r.instance.node_states()[a].entries,
        1,
        "counted from the switch on"
    );
    assert_eq!(r.instance.node_states()[a].successes, 1);
}

/// A game's code between steps: typed reads and writes by name, refused for a key the tree
/// does not have or a value of another type than the declared one; an agent's own default
/// outlives a clear of the context, a value set does not.
#[test]
fn a_game_sets_and_seeds_keys_by_name_checked_against_their_types() {
    let mut r = Run::declaring(
        "root: Root | child s
         s: Sequence | children a b
         a: MockAction script=S in_context=alert
         b: MockAction script=S in_context=target",
        vec![
            declared("alert", KeyType::Bool, Some(Value::Bool(false))),
            declared("target", KeyType::Entity, None),
            declared("rounds", KeyType::Int, Some(Value::Int(3))),
        ],
    );
    let i = &mut r.instance;
    assert_eq!(i.value("alert").and_then(CtxValue::as_bool), Some(false));
    assert_eq!(i.value("rounds").and_then(CtxValue::as_number), Some(3.0));
    assert_eq!(
        i.set("alert", 1.0).unwrap_err().to_string(),
        "key 'alert' is of type bool, not a number"
    );
    assert_eq!(
        i.set("rounds", 2.5).unwrap_err().to_string(),
        "key 'rounds' is of type int, not a number"
    );
    assert_eq!(
        i.set("ghost", true).unwrap_err().to_string(),
        "the tree has no key 'ghost'"
    );
    i.set("rounds", 4_i64).unwrap();
    i.seed("alert", true).unwrap();
    assert_eq!(i.value("alert").and_then(CtxValue::as_bool), Some(true));
    // `b` misses `target`: the context is cleared, back to the agent's own default for
    // `alert` and the tree's for `rounds`.
    r.steps(2);
    assert!(
        r.log.contains(&"2 context_missing b target".to_string()),
        "{:#?}",
        r.log
    );
    let i = &r.instance;
    assert_eq!(i.value("alert").and_then(CtxValue::as_bool), Some(true));
    assert_eq!(i.value("rounds").and_then(CtxValue::as_number), Some(3.0));
    // Seeding the entity the tree waits for ends the resets.
    r.instance.seed("target", CtxValue::Entity(7)).unwrap();
    let before = r.instance.stats().context_missing;
    r.steps(4);
    assert_eq!(r.instance.stats().context_missing, before);
    assert_eq!(
        r.instance.value("target").and_then(CtxValue::as_entity),
        Some(7)
    );
}
