//! Shards of a run of behaviour tests across CI machines (`arbor test --partition`), as
//! cargo-nextest splits a test run: the (test, seed) pairs of the whole run, in file and
//! seed order, each given to exactly one of N shards, whatever N.
//!
//! - `count:M/N`: every Nth pair, starting at the Mth (round robin);
//! - `slice:M/N`: the Mth of N contiguous runs of pairs, as equal as they can be;
//! - `hash:M/N`: the pairs whose key hashes to M (FNV-1a of the test file's path and the
//!   seed): a pair keeps its shard when other tests are added or removed.
//!
//! Where no `--partition` is given, the variables CI systems set after googletest and
//! Bazel, `TEST_TOTAL_SHARDS` and `TEST_SHARD_INDEX` (from 0), choose `count:INDEX+1/TOTAL`.

use std::fmt;

/// How the pairs are dealt out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deal {
    /// Round robin.
    Count,
    /// Contiguous runs.
    Slice,
    /// By the hash of each pair's key.
    Hash,
}

/// One shard of N: which pairs of a run it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Partition {
    /// How the pairs are dealt out.
    deal: Deal,
    /// This shard, from 1 to `of`.
    shard: usize,
    /// How many shards there are (at least 1).
    of: usize,
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let deal = match self.deal {
            Deal::Count => "count",
            Deal::Slice => "slice",
            Deal::Hash => "hash",
        };
        write!(f, "{deal}:{}/{}", self.shard, self.of)
    }
}

/// The most shards a run is split into.
pub const MOST_SHARDS: usize = 100_000;

impl Partition {
    /// `count:M/N`, `slice:M/N` or `hash:M/N`; a bare `M/N` is `hash:M/N`. M runs from 1 to N.
    pub fn parse(text: &str) -> Result<Self, String> {
        let bad = |why: &str| {
            Err(format!(
                "--partition {text:?}: {why} (write count:M/N, slice:M/N or hash:M/N, M from 1 to N)"
            ))
        };
        let (deal, rest) = match text.split_once(':') {
            Some(("count", r)) => (Deal::Count, r),
            Some(("slice", r)) => (Deal::Slice, r),
            Some(("hash", r)) => (Deal::Hash, r),
            Some((other, _)) => return bad(&format!("'{other}' is no way of dealing")),
            None => (Deal::Hash, text),
        };
        let Some((m, n)) = rest.split_once('/') else {
            return bad("no M/N");
        };
        let (Ok(shard), Ok(of)) = (m.trim().parse::<usize>(), n.trim().parse::<usize>()) else {
            return bad("M and N are whole numbers");
        };
        Self::new(deal, shard, of).or_else(|why| bad(&why))
    }

    /// Shard `shard` (from 1) of `of`, or why there is no such shard.
    pub fn new(deal: Deal, shard: usize, of: usize) -> Result<Self, String> {
        if of == 0 || of > MOST_SHARDS {
            return Err(format!("N must be 1 to {MOST_SHARDS}, not {of}"));
        }
        if shard == 0 || shard > of {
            return Err(format!("M must be 1 to {of}, not {shard}"));
        }
        Ok(Self { deal, shard, of })
    }

    /// The shard the run is: `flag` (`--partition`) if given, else the one the CI
    /// variables `TEST_TOTAL_SHARDS` and `TEST_SHARD_INDEX` (from 0) name, else none (the
    /// whole run). Refused: a flag or variables that name no shard, one variable without
    /// the other, and variables that name another shard than the flag.
    pub fn chosen(
        flag: Option<&str>,
        total: Option<&str>,
        index: Option<&str>,
    ) -> Result<Option<Self>, String> {
        let from_env = match (total, index) {
            (None, None) => None,
            (Some(t), Some(i)) => {
                let bad = || {
                    format!(
                        "TEST_TOTAL_SHARDS={t:?} and TEST_SHARD_INDEX={i:?} name no shard (a count, and an index from 0 below it)"
                    )
                };
                let (Ok(t), Ok(i)) = (t.trim().parse::<usize>(), i.trim().parse::<usize>()) else {
                    return Err(bad());
                };
                let shard = i.checked_add(1).ok_or_else(bad)?;
                Some(Self::new(Deal::Count, shard, t).map_err(|_| bad())?)
            }
            (Some(_), None) => {
                return Err("TEST_TOTAL_SHARDS is set, TEST_SHARD_INDEX is not".into());
            }
            (None, Some(_)) => {
                return Err("TEST_SHARD_INDEX is set, TEST_TOTAL_SHARDS is not".into());
            }
        };
        let Some(flag) = flag else {
            return Ok(from_env);
        };
        let given = Self::parse(flag)?;
        match from_env {
            Some(e) if (e.shard, e.of) != (given.shard, given.of) => Err(format!(
                "--partition {given} disagrees with TEST_TOTAL_SHARDS and TEST_SHARD_INDEX, which name shard {} of {}",
                e.shard, e.of
            )),
            _ => Ok(Some(given)),
        }
    }

    /// Whether this shard runs the pair at `position` of the `len` pairs of the run, whose
    /// key is `key` (its test file's path and its seed).
    pub fn keeps(&self, position: usize, len: usize, key: &str) -> bool {
        let i = self.shard - 1;
        match self.deal {
            Deal::Count => position % self.of == i,
            Deal::Slice => {
                // The first `len % of` slices hold one more pair than the rest.
                let (base, extra) = (len / self.of, len % self.of);
                let start = i * base + i.min(extra);
                let end = start + base + usize::from(i < extra);
                (start..end).contains(&position)
            }
            Deal::Hash => (super::fnv1a(key.as_bytes()) % self.of as u64) as usize == i,
        }
    }
}

/// The key a pair hashes by: its test file's path (tidied: `./tests` and `tests` deal
/// alike) and its seed.
pub fn pair_key(file: &std::path::Path, seed: u64) -> String {
    format!("{}#{seed}", super::tidy(file).display())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Every pair of runs of 0 to 60 pairs is kept by exactly one shard, for N = 1 to 7,
    /// each way of dealing; count and slice deal them as evenly as they can.
    #[test]
    fn every_pair_runs_in_exactly_one_shard() {
        for deal in [Deal::Count, Deal::Slice, Deal::Hash] {
            for of in 1..=7 {
                for len in 0..=60 {
                    let keys: Vec<String> = (0..len)
                        .map(|i| pair_key(std::path::Path::new("t/a.test.json"), i as u64))
                        .collect();
                    let mut sizes = vec![0; of];
                    for (p, key) in keys.iter().enumerate() {
                        let holders: Vec<usize> = (1..=of)
                            .filter(|&m| Partition::new(deal, m, of).unwrap().keeps(p, len, key))
                            .collect();
                        assert_eq!(holders.len(), 1, "{deal:?} {of} {len} {p}: {holders:?}");
                        sizes[holders[0] - 1] += 1;
                    }
                    if deal != Deal::Hash {
                        let (lo, hi) = (sizes.iter().min(), sizes.iter().max());
                        assert!(hi.unwrap() - lo.unwrap() <= 1, "{deal:?} {sizes:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_partition_is_read_from_the_flag_or_the_ci_variables_and_bad_ones_are_refused() {
        let p = |t: &str| Partition::parse(t);
        assert_eq!(p("hash:2/4"), Partition::new(Deal::Hash, 2, 4));
        assert_eq!(p("2/4"), Partition::new(Deal::Hash, 2, 4));
        assert_eq!(p("count:1/1"), Partition::new(Deal::Count, 1, 1));
        assert_eq!(p("slice:3/3").unwrap().to_string(), "slice:3/3");
        for bad in [
            "0/3", "4/3", "x/y", "count:1", "rand:1/2", "1/0", "-1/3", "",
        ] {
            assert!(p(bad).is_err(), "{bad}");
        }
        assert!(p("4/3").unwrap_err().contains("M must be 1 to 3, not 4"));
        let env = |t, i| Partition::chosen(None, t, i);
        assert_eq!(env(None, None), Ok(None));
        assert_eq!(
            env(Some("4"), Some("0")),
            Ok(Some(Partition::new(Deal::Count, 1, 4).unwrap()))
        );
        assert!(env(Some("4"), Some("4")).is_err());
        assert!(env(Some("4"), Some("18446744073709551615")).is_err());
        assert_eq!(
            pair_key(std::path::Path::new("./t/./a.test.json"), 3),
            pair_key(std::path::Path::new("t/a.test.json"), 3)
        );
        assert!(env(Some("4"), None).is_err());
        assert!(env(None, Some("1")).is_err());
        // The flag wins where both say the same shard; a disagreement is refused.
        let both = Partition::chosen(Some("hash:2/4"), Some("4"), Some("1"));
        assert_eq!(both, Ok(Some(Partition::new(Deal::Hash, 2, 4).unwrap())));
        let clash = Partition::chosen(Some("hash:2/4"), Some("4"), Some("2")).unwrap_err();
        assert!(clash.contains("disagrees"), "{clash}");
    }
}
