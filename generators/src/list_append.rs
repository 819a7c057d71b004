//! The list-append workload in Elle's shape (`elle.list-append/gen`): each write of the shared stream
//! ([`crate::wr_txns`]) is an append of a value unique to its key (1, 2, 3, ... per key), each read a
//! read of the whole list. The stream yields invocations: reads carry no value yet
//! (`["r", k, null]`). Executing them is a database's job, or [`crate::serial`]'s for a reference.

use histories::{Key, Mop, Observed};

use crate::params::{InvalidParams, Params};
use crate::wr_txns::{Drawn, WrTxns};

/// An endless, seeded stream of list-append transactions; each item is one invocation's micro-ops.
#[derive(Debug, Clone)]
pub struct ListAppend {
    stream: WrTxns,
}

impl ListAppend {
    /// The stream these parameters and this seed name.
    pub fn new(params: Params, seed: u64) -> Result<ListAppend, InvalidParams> {
        Ok(ListAppend { stream: WrTxns::new(params, seed)? })
    }

    /// The parameters.
    pub fn params(&self) -> &Params {
        self.stream.params()
    }

    /// The keys active now, by slot.
    pub fn active_keys(&self) -> &[i64] {
        self.stream.active_keys()
    }
}

impl Iterator for ListAppend {
    type Item = Vec<Mop>;

    fn next(&mut self) -> Option<Vec<Mop>> {
        let txn = self.stream.next_txn();
        Some(
            txn.into_iter()
                .map(|drawn| match drawn {
                    Drawn::Read { key } => Mop::Read { key: Key::Int(key), value: Observed::Nil },
                    Drawn::Write { key, value } => Mop::Append { key: Key::Int(key), value },
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::*;
    use crate::key_dist::KeyDist;

    fn txns(params: Params, seed: u64, n: usize) -> Vec<Vec<Mop>> {
        ListAppend::new(params, seed).unwrap().take(n).collect()
    }

    #[test]
    fn the_same_seed_gives_the_same_stream_and_another_seed_another() {
        let p = Params::default();
        assert_eq!(txns(p, 42, 500), txns(p, 42, 500));
        assert_ne!(txns(p, 42, 500), txns(p, 43, 500));
        for dist in [KeyDist::Uniform, KeyDist::zipfian()] {
            let p = Params { key_dist: dist, ..p };
            assert_eq!(txns(p, 9, 200), txns(p, 9, 200));
        }
    }

    #[test]
    fn the_stream_is_pinned() {
        // Seed 1's first transactions, pinned so that a change to the stream is a reviewed diff: a seed
        // recorded in a run.json must replay.
        let first: Vec<String> = txns(Params::default(), 1, 4)
            .iter()
            .map(|t| t.iter().map(ToString::to_string).collect::<Vec<_>>().join(" "))
            .collect();
        assert_eq!(
            first,
            vec!["[append 9 1] [append 9 2]", "[append 8 1] [r 9 nil]", "[r 9 nil] [r 9 nil]", "[append 9 3]"]
        );
    }

    #[test]
    fn lengths_stay_in_range_and_micro_ops_are_reads_and_appends() {
        let p = Params { min_txn_len: 2, max_txn_len: 5, ..Params::default() };
        let stream = txns(p, 3, 1_000);
        let lengths: BTreeSet<usize> = stream.iter().map(Vec::len).collect();
        assert_eq!(lengths, (2..=5).collect());
        for mop in stream.iter().flatten() {
            assert!(matches!(
                mop,
                Mop::Append { key: Key::Int(_), .. } | Mop::Read { key: Key::Int(_), value: Observed::Nil }
            ));
        }
    }

    #[test]
    fn append_values_are_one_two_three_per_key() {
        let mut per_key: BTreeMap<Key, Vec<i64>> = BTreeMap::new();
        for mop in txns(Params { key_dist: KeyDist::zipfian(), ..Params::default() }, 5, 2_000).iter().flatten() {
            if let Mop::Append { key, value } = mop {
                per_key.entry(key.clone()).or_default().push(*value);
            }
        }
        assert!(per_key.len() > 10, "keys rotated in");
        for (key, values) in per_key {
            assert_eq!(values, (1..=values.len() as i64).collect::<Vec<_>>(), "key {key}");
        }
    }

    #[test]
    fn fresh_keys_rotate_in_after_max_writes_per_key() {
        let p = Params { key_count: 3, max_writes_per_key: 4, read_fraction: 0.25, ..Params::default() };
        let mut stream = ListAppend::new(p, 11).unwrap();
        let mut appends: BTreeMap<i64, usize> = BTreeMap::new();
        let mut ever_active: BTreeSet<i64> = stream.active_keys().iter().copied().collect();
        for txn in stream.by_ref().take(300) {
            for mop in &txn {
                if let Mop::Append { key: Key::Int(k), .. } = mop {
                    *appends.entry(*k).or_default() += 1;
                }
            }
        }
        ever_active.extend(stream.active_keys());
        assert_eq!(stream.active_keys().len(), 3, "the number of active keys stays fixed");
        assert!(appends.values().all(|&n| n <= 4), "no key takes more than 4 appends: {appends:?}");
        // Retired keys took exactly 4; fresh keys are numbered on from the highest so far.
        let retired: Vec<i64> = appends.keys().copied().filter(|k| !stream.active_keys().contains(k)).collect();
        assert!(retired.len() > 30, "{} keys retired", retired.len());
        assert!(retired.iter().all(|k| appends[k] == 4));
        let keys: Vec<i64> = appends.keys().copied().collect();
        assert_eq!(keys, (0..keys.len() as i64).collect::<Vec<_>>(), "keys are 0, 1, 2, ... with none skipped");
    }

    /// Per key, the transactions (by place in the stream) from the one before which it was first seen
    /// active to the last naming it; and whether a transaction named a key after it left the active set.
    fn lifetimes(params: Params, seed: u64, n: usize) -> (BTreeMap<i64, (usize, usize)>, bool) {
        let mut stream = ListAppend::new(params, seed).unwrap();
        let mut span: BTreeMap<i64, (usize, usize)> = BTreeMap::new();
        let mut gone: BTreeSet<i64> = BTreeSet::new();
        let mut named_after_leaving = false;
        for i in 0..n {
            let before: BTreeSet<i64> = stream.active_keys().iter().copied().collect();
            for &k in &before {
                span.entry(k).or_insert((i, i));
            }
            let txn = stream.next().unwrap();
            for mop in &txn {
                let (Mop::Append { key: Key::Int(k), .. } | Mop::Read { key: Key::Int(k), .. }) = mop else {
                    continue;
                };
                named_after_leaving |= gone.contains(k);
                // A key rotated in while this transaction was drawn enters with it.
                let entry = span.entry(*k).or_insert((i, i));
                entry.1 = i;
            }
            let after: BTreeSet<i64> = stream.active_keys().iter().copied().collect();
            gone.extend(before.difference(&after));
        }
        (span, named_after_leaving)
    }

    #[test]
    fn a_key_lifetime_bounds_the_transactions_between_a_keys_entry_and_its_last_use() {
        let base = Params { key_count: 8, max_txn_len: 4, ..Params::default() };
        let longest = |spans: &BTreeMap<i64, (usize, usize)>| spans.values().map(|(a, b)| b - a).max().unwrap();
        // Elle's stream: a key of a slot seldom drawn lives for thousands of transactions.
        let (unbounded, lied) = lifetimes(base, 3, 20_000);
        assert!(!lied, "a key was named after it left the active set");
        assert!(longest(&unbounded) > 2_000, "the longest life was {}", longest(&unbounded));
        for life in [1, 7, 200] {
            let (bounded, lied) = lifetimes(Params { key_lifetime: Some(life), ..base }, 3, 20_000);
            assert!(!lied, "lifetime {life}: a key was named after it left the active set");
            assert!(longest(&bounded) < life as usize, "lifetime {life}: the longest life was {}", longest(&bounded));
            // Keys rotate by age, not only by writes: far more of them than without the bound.
            assert!(bounded.len() > 20_000 / life as usize, "lifetime {life}: only {} keys", bounded.len());
        }
        // The bound leaves the values unique per key and the first keys staggered: the cold slots' first
        // keys are not all replaced by the same transaction.
        let mut stream = ListAppend::new(Params { key_lifetime: Some(80), ..base }, 3).unwrap();
        let first: Vec<i64> = stream.active_keys().to_vec();
        let mut left_at = BTreeSet::new();
        for i in 0..80 {
            let before: BTreeSet<i64> = stream.active_keys().iter().copied().collect();
            stream.next();
            if before.iter().any(|k| first.contains(k) && !stream.active_keys().contains(k)) {
                left_at.insert(i);
            }
        }
        assert!(left_at.len() > 3, "the first keys left at {left_at:?}");
    }

    #[test]
    fn without_a_lifetime_the_stream_is_elles() {
        // `key_lifetime: None` draws exactly what the stream drew before the bound existed (pinned above),
        // and a lifetime longer than any key lives changes nothing.
        let p = Params { key_count: 4, max_writes_per_key: 4, ..Params::default() };
        let long = Params { key_lifetime: Some(u64::MAX), ..p };
        assert_eq!(txns(p, 2, 3_000), txns(long, 2, 3_000));
    }

    #[test]
    fn read_fraction_sets_the_mix() {
        let count_reads = |f: f64| {
            txns(Params { read_fraction: f, ..Params::default() }, 8, 2_000)
                .iter()
                .flatten()
                .filter(|m| matches!(m, Mop::Read { .. }))
                .count()
        };
        assert_eq!(count_reads(0.0), 0);
        let all = count_reads(1.0);
        assert!(all >= 2_000);
        let quarter = count_reads(0.25) as f64;
        let total = txns(Params { read_fraction: 0.25, ..Params::default() }, 8, 2_000).iter().flatten().count();
        assert!((quarter / total as f64 - 0.25).abs() < 0.03);
    }

    #[test]
    fn invalid_parameters_are_refused() {
        assert!(ListAppend::new(Params { key_count: 0, ..Params::default() }, 1).is_err());
    }
}
