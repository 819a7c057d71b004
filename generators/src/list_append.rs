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
