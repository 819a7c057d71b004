//! Forgetting keys (`Engine::forget`): a forgotten key's versions and place in the key space are gone, naming it
//! again is an error at every level and through every statement, a transaction writing it when it is forgotten
//! still ends as it would, and forgetting never changes what the keys still live read (against a serial reference,
//! a plain `BTreeMap`, as `model` checks schedules).

use std::collections::{BTreeMap, BTreeSet};

use engine::{Engine, Error, Isolation, KeyRange, RowKey, RowPredicate, Value};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};

use crate::support::k;

/// The list key the adapter would use for list `n`.
fn list(n: i64) -> RowKey {
    RowKey::Str(format!("list:{n}"))
}

/// Appends `element` to each of `keys`, one transaction each.
fn append_each(engine: &Engine, keys: impl IntoIterator<Item = RowKey>, element: i64) {
    let mut s = engine.session();
    for key in keys {
        s.begin(Isolation::Serializable).expect("begin");
        s.append(key, element).expect("append");
        s.commit().expect("commit");
    }
}

#[test]
fn a_forgotten_keys_versions_are_gone_and_the_set_stays_one_run() {
    let engine = Engine::default();
    // An old snapshot keeps three versions of every key, so there is more than one to drop.
    let mut old = engine.session();
    old.begin(Isolation::SnapshotIsolation).expect("begin");
    append_each(&engine, (1..=100).map(list), 1);
    assert_eq!(old.read(&list(1)), Ok(None), "the old snapshot sees no list yet");
    append_each(&engine, (1..=100).map(list), 2);
    append_each(&engine, (1..=100).map(list), 3);
    let before = engine.storage_stats();
    assert_eq!((before.keys, before.versions), (100, 300), "{before:?}");

    // Forgotten out of order: the set merges them into one run.
    let gone: Vec<RowKey> = (1..=90).rev().map(list).collect();
    engine.forget(&gone);
    let after = engine.storage_stats();
    assert_eq!((after.keys, after.versions), (10, 30), "{after:?}");
    assert_eq!((after.forgotten_keys, after.forgotten_entries, after.forgotten_waiting), (90, 1, 0));
    assert_eq!(engine.forgotten_keys(), 90);
    // Forgetting again counts nothing twice; a key never named is remembered all the same.
    engine.forget(&[list(90), list(1000)]);
    assert_eq!((engine.forgotten_keys(), engine.storage_stats().forgotten_entries), (91, 2));

    // The near miss: the next key is untouched, as the old snapshot and a new one see it.
    assert_eq!(old.read(&list(91)), Ok(None));
    let mut s = engine.session();
    s.begin(Isolation::Serializable).expect("begin");
    assert_eq!(s.read(&list(91)), Ok(Some(Value::List(vec![1, 2, 3]))));
    s.commit().expect("commit");
    assert_eq!(old.read(&list(90)), Err(Error::ForgottenKey { key: list(90) }), "even a snapshot from before");
}

#[test]
fn naming_a_forgotten_key_is_an_error_through_every_statement_at_every_level() {
    let engine = Engine::default();
    append_each(&engine, [k(5)], 1);
    engine.forget(&[k(5), k(6)]);
    let forgotten = |key: i64| Err::<(), Error>(Error::ForgottenKey { key: k(key) });
    for isolation in [Isolation::ReadCommitted, Isolation::SnapshotIsolation, Isolation::Serializable] {
        // k(6) was never written: a read would have found it absent.
        for key in [5, 6] {
            let mut s = engine.session();
            let mut attempt = |statement: &dyn Fn(&mut engine::EngineSession) -> Result<(), Error>| {
                s.begin(isolation).expect("begin");
                let result = statement(&mut s);
                s.rollback().expect("rollback");
                result
            };
            assert_eq!(attempt(&|s| s.read(&k(key)).map(|_| ())), forgotten(key), "{isolation:?} read {key}");
            assert_eq!(attempt(&|s| s.append(k(key), 2)), forgotten(key), "{isolation:?} append {key}");
            assert_eq!(attempt(&|s| s.write(k(key), 2)), forgotten(key), "{isolation:?} write {key}");
            assert_eq!(attempt(&|s| s.insert(k(key), 2)), forgotten(key), "{isolation:?} insert {key}");
            assert_eq!(attempt(&|s| s.delete(&k(key)).map(|_| ())), forgotten(key), "{isolation:?} delete {key}");
            let range = KeyRange::new(k(0)..k(10));
            assert_eq!(
                attempt(&|s| s.scan(k(0)..k(10), RowPredicate::All).map(|_| ())),
                Err(Error::ForgottenRange { range }),
                "{isolation:?} scan"
            );
        }
        // The near miss: a scan beside the forgotten keys, and a key next to them, work.
        let mut s = engine.session();
        s.begin(isolation).expect("begin");
        assert_eq!(s.scan(k(0)..k(5), RowPredicate::All), Ok(Vec::new()));
        assert_eq!(s.read(&k(7)), Ok(None));
        s.rollback().expect("rollback");
    }
    assert_eq!(Error::ForgottenKey { key: k(5) }.cause(), "forgotten-key");
    assert!(!Error::ForgottenKey { key: k(5) }.is_retryable());
}

#[test]
fn a_key_forgotten_while_a_transaction_writes_it_is_dropped_once_that_commits() {
    let engine = Engine::default();
    append_each(&engine, [list(1)], 1);
    let mut writer = engine.session();
    writer.begin(Isolation::Serializable).expect("begin");
    writer.append(list(1), 2).expect("append");
    writer.append(list(2), 2).expect("append");
    engine.forget(&[list(1)]);
    let waiting = engine.storage_stats();
    assert_eq!((waiting.keys, waiting.forgotten_waiting), (2, 1), "the writer's version holds the chain: {waiting:?}");
    let mut reader = engine.session();
    reader.begin(Isolation::Serializable).expect("begin");
    assert_eq!(reader.read(&list(1)), Err(Error::ForgottenKey { key: list(1) }), "marked, though still held");
    reader.rollback().expect("rollback");
    // The writer never names the key again, and commits as it would have.
    writer.commit().expect("commit");
    engine.vacuum();
    let dropped = engine.storage_stats();
    assert_eq!((dropped.keys, dropped.forgotten_waiting, dropped.versions), (1, 0, 1), "{dropped:?}");
    let mut s = engine.session();
    s.begin(Isolation::Serializable).expect("begin");
    assert_eq!(s.read(&list(2)), Ok(Some(Value::List(vec![2]))));
    s.commit().expect("commit");
}

#[test]
fn a_transaction_that_wrote_a_forgotten_key_fails_if_it_names_it_again() {
    let engine = Engine::default();
    let mut writer = engine.session();
    writer.begin(Isolation::SnapshotIsolation).expect("begin");
    writer.append(list(1), 1).expect("append");
    engine.forget(&[list(1)]);
    assert_eq!(writer.append(list(1), 2), Err(Error::ForgottenKey { key: list(1) }));
    writer.rollback().expect("rollback");
    engine.forget(std::iter::empty::<&RowKey>());
    assert_eq!((engine.storage_stats().keys, engine.storage_stats().forgotten_waiting), (0, 0));
}

/// One step of a serial schedule over list keys `0..KEYS`.
#[derive(Debug, Clone)]
enum Step {
    /// A transaction appending to some keys and reading others, committed or rolled back.
    Txn { appends: Vec<i64>, reads: Vec<i64>, commit: bool },
    /// Forget this key.
    Forget(i64),
}

const KEYS: i64 = 12;

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (prop::collection::vec(0..KEYS, 0..4), prop::collection::vec(0..KEYS, 0..4), prop::bool::weighted(0.8))
            .prop_map(|(appends, reads, commit)| Step::Txn { appends, reads, commit }),
        1 => (0..KEYS).prop_map(Step::Forget),
    ]
}

/// Runs `steps` on the engine and on a `BTreeMap`: every read of a live key equals the reference's, every
/// statement naming a forgotten key fails with `ForgottenKey`, and at the end the engine holds exactly the live
/// keys, with the reference's lists.
fn forgetting_matches_the_reference(steps: &[Step]) -> Result<(), TestCaseError> {
    let engine = Engine::default();
    let mut reference: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    let mut forgotten: BTreeSet<i64> = BTreeSet::new();
    let mut s = engine.session();
    for (element, step) in (1..).zip(steps) {
        match step {
            Step::Forget(key) => {
                engine.forget(&[list(*key)]);
                reference.remove(key);
                forgotten.insert(*key);
            }
            Step::Txn { appends, reads, commit } => {
                s.begin(Isolation::Serializable).expect("begin");
                let mut mine = reference.clone();
                let mut failed = false;
                for key in appends {
                    let result = s.append(list(*key), element);
                    if forgotten.contains(key) {
                        prop_assert_eq!(result, Err(Error::ForgottenKey { key: list(*key) }));
                        failed = true;
                        break;
                    }
                    prop_assert_eq!(result, Ok(()));
                    mine.entry(*key).or_default().push(element);
                }
                for key in reads.iter().filter(|_| !failed) {
                    let result = s.read(&list(*key));
                    if forgotten.contains(key) {
                        prop_assert_eq!(result, Err(Error::ForgottenKey { key: list(*key) }));
                        failed = true;
                        break;
                    }
                    prop_assert_eq!(result, Ok(mine.get(key).map(|l| Value::List(l.clone()))), "read {}", key);
                }
                if failed {
                    s.rollback().expect("rollback");
                } else if *commit {
                    s.commit().expect("commit");
                    reference = mine;
                } else {
                    s.rollback().expect("rollback");
                }
            }
        }
    }
    s.begin(Isolation::Serializable).expect("begin");
    let live: Vec<i64> = (0..KEYS).filter(|key| !forgotten.contains(key)).collect();
    for key in &live {
        prop_assert_eq!(s.read(&list(*key)), Ok(reference.get(key).map(|l| Value::List(l.clone()))));
    }
    s.commit().expect("commit");
    // Every live key now has a chain (the last reads made one for each absent key); no forgotten one has.
    prop_assert_eq!(engine.storage_stats().keys, live.len());
    prop_assert_eq!(engine.forgotten_keys(), forgotten.len() as u64);
    Ok(())
}

#[test]
fn forgetting_never_changes_what_live_keys_read() {
    let config =
        Config { cases: 300, rng_seed: RngSeed::Fixed(0x45f0), failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new(config);
    let result = runner.run(&prop::collection::vec(step(), 1..40), |steps| forgetting_matches_the_reference(&steps));
    if let Err(e) = result {
        panic!("{e}");
    }
}
