//! proptest strategies over the generators' parameters: workload parameters, and whole serial
//! histories described by a small, printable recipe ([`SerialCase`]) so that a failing case shrinks to
//! few transactions, clients and keys, and reads back as the parameters that rebuild it. The ranges
//! are small on purpose (a handful of keys, short transactions, few writes per key) so that
//! transactions collide on keys and fresh keys rotate in even in histories of tens of transactions.
//! This module owns the strategies; what they generate is the other modules'.

use std::ops::RangeInclusive;

use histories::{History, Mop};
use proptest::prelude::*;

use crate::key_dist::KeyDist;
use crate::list_append::ListAppend;
use crate::params::Params;
use crate::rw_register::RwRegister;
use crate::serial::{Schedule, SerialRun};

/// Any key distribution: uniform, or exponential or Zipfian with their usual constant or a nearby one.
pub fn key_dist() -> impl Strategy<Value = KeyDist> {
    prop_oneof![
        Just(KeyDist::Uniform),
        Just(KeyDist::exponential()),
        (1.1f64..4.0).prop_map(|base| KeyDist::Exponential { base }),
        Just(KeyDist::zipfian()),
        (0.2f64..1.5).prop_map(|theta| KeyDist::Zipfian { theta }),
    ]
}

/// Small list-append parameters: 1 to 8 keys, transactions of 1 to 8 micro-ops, 1 to 16 appends per
/// key, any key distribution, reads between 10% and 90% of micro-ops.
pub fn list_append_params() -> impl Strategy<Value = Params> {
    (1usize..=8, 1usize..=4, 0usize..=4, 1u64..=16, key_dist(), 0.1f64..0.9).prop_map(
        |(key_count, min_txn_len, extra, max_writes_per_key, key_dist, read_fraction)| Params {
            key_count,
            min_txn_len,
            max_txn_len: min_txn_len + extra,
            max_writes_per_key,
            key_dist,
            key_lifetime: None,
            read_fraction,
        },
    )
}

/// Small rw-register parameters, over the same ranges as [`list_append_params`].
pub fn rw_register_params() -> impl Strategy<Value = Params> {
    list_append_params()
}

/// The recipe of a serial history: which transactions, how many clients, how much overlap.
#[derive(Debug, Clone, PartialEq)]
pub struct SerialCase {
    /// The workload's parameters.
    pub params: Params,
    /// The seed of the transaction stream.
    pub stream_seed: u64,
    /// The seed of the serial order and the schedule.
    pub schedule_seed: u64,
    /// How many transactions the stream gives.
    pub txns: usize,
    /// Client processes.
    pub clients: usize,
    /// Other commits a transaction's span may hold on either side.
    pub max_overlap: usize,
    /// The chance that a transaction aborts (completes `fail`, no effect).
    pub fail_fraction: f64,
    /// The chance that a transaction completes `info` (and took effect or not).
    pub info_fraction: f64,
    /// Whether a transaction reading every key runs alone at the end.
    pub final_read: bool,
}

impl SerialCase {
    /// The list-append transactions (invocations).
    pub fn list_append_txns(&self) -> Vec<Vec<Mop>> {
        ListAppend::new(self.params, self.stream_seed).expect("valid parameters").take(self.txns).collect()
    }

    /// The rw-register transactions (invocations).
    pub fn rw_register_txns(&self) -> Vec<Vec<Mop>> {
        RwRegister::new(self.params, self.stream_seed).expect("valid parameters").take(self.txns).collect()
    }

    /// The serial list-append run.
    pub fn list_append(&self) -> SerialRun {
        self.run(&self.list_append_txns())
    }

    /// The serial rw-register run.
    pub fn rw_register(&self) -> SerialRun {
        self.run(&self.rw_register_txns())
    }

    fn run(&self, txns: &[Vec<Mop>]) -> SerialRun {
        let schedule = Schedule {
            clients: self.clients,
            max_overlap: self.max_overlap,
            fail_fraction: self.fail_fraction,
            info_fraction: self.info_fraction,
        };
        let mut run = SerialRun::with_schedule(txns, self.schedule_seed, schedule);
        if self.final_read {
            run.then_alone(&run.db.read_all());
        }
        run
    }
}

/// Serial-history recipes with `txns` transactions, 1 to 8 clients and overlaps of 0 to 6 commits,
/// over [`list_append_params`]; half the time every transaction commits, otherwise up to 30% abort
/// and up to 30% end indeterminate; a final read of every key half the time.
pub fn serial_case(txns: RangeInclusive<usize>) -> impl Strategy<Value = SerialCase> {
    let outcomes = prop_oneof![Just((0.0, 0.0)), (0.0f64..0.3, 0.0f64..0.3)];
    (list_append_params(), any::<u64>(), any::<u64>(), txns, 1usize..=8, 0usize..=6, outcomes, any::<bool>()).prop_map(
        |(
            params,
            stream_seed,
            schedule_seed,
            txns,
            clients,
            max_overlap,
            (fail_fraction, info_fraction),
            final_read,
        )| {
            SerialCase {
                params,
                stream_seed,
                schedule_seed,
                txns,
                clients,
                max_overlap,
                fail_fraction,
                info_fraction,
                final_read,
            }
        },
    )
}

/// Strict-serializable list-append histories of 1 to 200 transactions (see [`serial_case`]).
pub fn serial_list_append_history() -> impl Strategy<Value = History> {
    serial_case(1..=200).prop_map(|case| case.list_append().history)
}

/// Strict-serializable rw-register histories of 1 to 200 transactions (see [`serial_case`]).
pub fn serial_rw_register_history() -> impl Strategy<Value = History> {
    serial_case(1..=200).prop_map(|case| case.rw_register().history)
}

#[cfg(test)]
mod tests {
    use proptest::test_runner::{Config, TestRunner};

    use super::*;

    #[test]
    fn generated_parameters_are_valid() {
        let mut runner = TestRunner::new(Config { cases: 256, ..Config::default() });
        runner
            .run(&list_append_params(), |p| {
                prop_assert_eq!(p.validate(), Ok(()));
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn serial_histories_are_well_formed_and_complete() {
        let mut runner = TestRunner::new(Config { cases: 32, ..Config::default() });
        runner
            .run(&(serial_list_append_history(), serial_rw_register_history()), |(lists, registers)| {
                for history in [lists, registers] {
                    prop_assert!(!history.is_empty() && history.len() % 2 == 0);
                    prop_assert!(history.transactions().all(|t| t.completion.is_some()));
                }
                Ok(())
            })
            .unwrap();
    }
}
