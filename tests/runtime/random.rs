//! RandomSequence and RandomSelector: a shuffled order per entry, the same for the same seed.

use std::collections::BTreeSet;

use crate::harness::Run;

const SEQ: &str = "root: Root | child s
    s: RandomSequence | children a b c d
    a: MockAction script=S
    b: MockAction script=S
    c: MockAction script=S
    d: MockAction script=S";

fn orders(src: &str, seed: u64, runs: usize) -> Vec<String> {
    let mut r = Run::seeded(src, seed);
    r.steps(runs * 4);
    let entered: Vec<&str> = r
        .log
        .iter()
        .filter_map(|l| {
            let mut w = l.split(' ').skip(1);
            (w.next() == Some("enter")).then(|| w.next()).flatten()
        })
        .filter(|n| ["a", "b", "c", "d"].contains(n))
        .collect();
    entered.chunks(4).map(|c| c.concat()).collect()
}

#[test]
fn the_same_seed_gives_the_same_orders() {
    assert_eq!(orders(SEQ, 7, 6), orders(SEQ, 7, 6));
}

#[test]
fn every_order_is_a_permutation_and_orders_vary() {
    let mut seen = BTreeSet::new();
    for seed in 0..10 {
        for order in orders(SEQ, seed, 5) {
            if order.len() == 4 {
                let mut letters: Vec<char> = order.chars().collect();
                letters.sort();
                assert_eq!(letters.iter().collect::<String>(), "abcd", "{order}");
                seen.insert(order);
            }
        }
    }
    assert!(
        seen.len() >= 8,
        "only {} different orders: {seen:?}",
        seen.len()
    );
}

#[test]
fn each_entry_reshuffles() {
    let runs = orders(SEQ, 3, 8);
    let distinct: BTreeSet<_> = runs.iter().collect();
    assert!(distinct.len() > 1, "{runs:?}");
}

#[test]
fn random_selector_tries_each_child_once_until_one_succeeds() {
    let mut r = Run::seeded(
        "root: Root | child s
         s: RandomSelector | children a b c
         a: MockAction script=F
         b: MockAction script=F
         c: MockAction script=F",
        5,
    );
    r.steps(3);
    let end = r.log.iter().position(|l| l == "3 exit s failure").unwrap();
    for x in ["a", "b", "c"] {
        let entries = r.log[..end]
            .iter()
            .filter(|l| l.ends_with(&format!("enter {x}")))
            .count();
        assert_eq!(entries, 1, "{x}: {:#?}", r.log);
    }
}
