//! Checks every SQL adapter must pass, shared by the SQLite, PostgreSQL and MariaDB modules: each takes a
//! system, prepares it, and asserts through the [`Session`] interface alone, reading what is durable
//! through a fresh session.

#![allow(dead_code)] // Each test binary runs the checks that apply to its system.
use adapters::{Failure, Level, Session, System, TxnError};
use histories::{Key, Predicate, Rows};

pub fn k(i: i64) -> Key {
    Key::Int(i)
}

/// A fresh session with a transaction open at `level`.
pub fn begun(system: &dyn System, level: Level) -> Box<dyn Session> {
    let mut session = system.connect().expect("connect");
    session.begin(level).expect("begin");
    session
}

/// Every register, as a fresh serializable transaction reads it.
pub fn registers(system: &dyn System) -> Rows {
    let mut session = begun(system, Level::Serializable);
    let rows = session.scan(&Predicate::True).expect("scan");
    session.commit().expect("commit");
    rows
}

/// A list, as a fresh serializable transaction reads it.
pub fn list(system: &dyn System, key: &Key) -> Vec<i64> {
    let mut session = begun(system, Level::Serializable);
    let list = session.read_list(key).expect("read_list");
    session.commit().expect("commit");
    list
}

pub fn rows<K: Into<Key>>(rows: impl IntoIterator<Item = (K, i64)>) -> Rows {
    rows.into_iter().map(|(k, v)| (k.into(), v)).collect()
}

/// Asserts that an error is an abort with this cause, on a session still usable.
pub fn assert_aborted(result: Result<impl std::fmt::Debug, TxnError>, cause: &str) {
    let err = result.expect_err("expected an abort");
    assert_eq!((err.failure, err.cause.as_str(), err.session_lost), (Failure::Aborted, cause, false), "{err}");
}

pub fn statements_round_trip(system: &dyn System) {
    system.prepare(&[(k(1), 10), (k(2), 20), (k(3), -1)]).unwrap();
    let mut s = begun(system, Level::Serializable);
    assert_eq!(s.read_list(&k(1)).unwrap(), Vec::<i64>::new(), "a missing list reads as empty");
    s.append(&k(1), 5).unwrap();
    s.append(&k(1), -6).unwrap();
    s.append(&k(7), 1).unwrap();
    assert_eq!(s.read_list(&k(1)).unwrap(), vec![5, -6]);
    assert_eq!(s.read(&k(1)).unwrap(), Some(10), "lists and registers never meet");
    assert_eq!(s.read(&k(9)).unwrap(), None);
    s.write(&k(1), 11).unwrap();
    s.write(&k(4), 40).unwrap();
    s.insert(&k(5), 50).unwrap();
    assert!(s.delete(&k(2)).unwrap());
    assert!(!s.delete(&k(2)).unwrap(), "already deleted");
    assert!(!s.delete(&k(9)).unwrap(), "never existed");
    let all = rows([(1, 11), (3, -1), (4, 40), (5, 50)]);
    assert_eq!(s.scan(&Predicate::True).unwrap(), all);
    assert_eq!(s.scan(&Predicate::Eq(40)).unwrap(), rows([(4, 40)]));
    assert_eq!(s.scan(&Predicate::Mod { m: 2, r: 1 }).unwrap(), rows([(1, 11)]), "-1 % 2 is -1 in SQL");
    assert_eq!(s.scan(&Predicate::Mod { m: 2, r: -1 }).unwrap(), rows([(3, -1)]));
    assert_eq!(s.scan(&Predicate::Mod { m: 0, r: 0 }).unwrap(), Rows::new(), "nothing is 0 mod 0");
    s.commit().unwrap();

    assert_eq!(registers(system), all);
    assert_eq!(list(system, &k(1)), vec![5, -6]);
    assert_eq!(list(system, &k(7)), vec![1]);
    for predicate in
        [Predicate::True, Predicate::Eq(-1), Predicate::Mod { m: 3, r: 2 }, Predicate::Mod { m: -3, r: -1 }]
    {
        let expected: Rows = all.iter().filter(|(_, v)| predicate.matches(**v)).map(|(k, v)| (k.clone(), *v)).collect();
        let mut s = begun(system, Level::Serializable);
        assert_eq!(s.scan(&predicate).unwrap(), expected, "the database agrees with Predicate::matches on {predicate}");
        s.commit().unwrap();
    }
}

pub fn string_keys_keep_their_type(system: &dyn System) {
    system.prepare(&[(Key::from("x"), 1), (Key::from("1"), 2)]).unwrap();
    let mut s = begun(system, Level::Serializable);
    assert_eq!(s.read(&k(1)).unwrap(), None, "the integer key 1 is not the string key \"1\"");
    s.append(&Key::from("1"), 3).unwrap();
    s.append(&k(1), 4).unwrap();
    s.commit().unwrap();
    assert_eq!(registers(system), rows([("x", 1), ("1", 2)]));
    assert_eq!(list(system, &Key::from("1")), vec![3]);
    assert_eq!(list(system, &k(1)), vec![4]);
}

/// `insert` of a key that exists aborts the transaction with `cause`; nothing it did stays; COMMIT
/// then fails (the server answers it with ROLLBACK); the session goes on.
pub fn an_insert_of_an_existing_key_aborts_without_effect(system: &dyn System, cause: &str) {
    system.prepare(&[(k(1), 10)]).unwrap();
    let mut s = begun(system, Level::Serializable);
    s.write(&k(2), 20).unwrap();
    assert_aborted(s.insert(&k(1), 11), cause);
    assert_aborted(s.read(&k(1)), "in-failed-transaction");
    assert_aborted(s.commit(), "in-failed-transaction");
    assert_eq!(registers(system), rows([(1, 10)]));
    s.begin(Level::Serializable).unwrap();
    s.insert(&k(3), 30).unwrap();
    s.commit().unwrap();
    assert_eq!(registers(system), rows([(1, 10), (3, 30)]));
}

pub fn rollback_discards_and_needs_no_transaction(system: &dyn System) {
    system.prepare(&[(k(1), 10)]).unwrap();
    let mut s = system.connect().unwrap();
    s.rollback().unwrap();
    s.begin(Level::Serializable).unwrap();
    s.write(&k(1), 11).unwrap();
    s.append(&k(1), 1).unwrap();
    s.rollback().unwrap();
    s.rollback().unwrap();
    assert_eq!(registers(system), rows([(1, 10)]));
    assert_eq!(list(system, &k(1)), Vec::<i64>::new());
    let err = s.read(&k(1)).unwrap_err();
    assert_eq!((err.failure, err.cause.as_str()), (Failure::Fatal, "no-transaction"));
}

/// A session killed inside a transaction: its next statement fails with `session_lost`, certainly
/// without effect; so does every later call; a fresh session works and sees nothing of it.
pub fn a_killed_session_loses_its_transaction(system: &dyn System, cause: &str) {
    system.prepare(&[(k(1), 10)]).unwrap();
    let mut s = begun(system, Level::Serializable);
    s.write(&k(1), 11).unwrap();
    s.append(&k(1), 1).unwrap();
    s.kill_switch().expect("a kill switch").kill();
    let err = s.read(&k(1)).unwrap_err();
    for err in [err, s.commit().unwrap_err(), s.begin(Level::Serializable).unwrap_err()] {
        assert_eq!((err.failure, err.cause.as_str(), err.session_lost), (Failure::Aborted, cause, true), "{err}");
    }
    assert_eq!(registers(system), rows([(1, 10)]));
    assert_eq!(list(system, &k(1)), Vec::<i64>::new());
}

/// A session killed between transactions: its next `begin` fails with `session_lost`.
pub fn a_session_killed_while_idle_fails_its_next_begin(system: &dyn System, cause: &str) {
    system.prepare(&[]).unwrap();
    let mut s = begun(system, Level::Serializable);
    s.append(&k(1), 1).unwrap();
    s.commit().unwrap();
    s.kill_switch().expect("a kill switch").kill();
    let err = s.begin(Level::Serializable).unwrap_err();
    assert_eq!((err.failure, err.cause.as_str(), err.session_lost), (Failure::Aborted, cause, true), "{err}");
    assert_eq!(list(system, &k(1)), vec![1], "what committed before the kill stays");
}

/// Records (YCSB's `usertable`): loaded by `prepare_records`, read whole, updated one field at a time;
/// a rolled-back update leaves no trace; a missing record reads as none and updates nothing.
pub fn records_round_trip(system: &dyn System) {
    system.prepare(&[(k(1), 10)]).unwrap();
    let user = |n: i64| Key::from(format!("user{n}").as_str());
    let record = |byte: u8| (0..3).map(|f| vec![byte + f; 4]).collect::<Vec<Vec<u8>>>();
    system.prepare_records(3, &[(user(1), record(b'a')), (user(2), record(b'x'))]).unwrap();
    let mut s = begun(system, Level::Serializable);
    assert_eq!(s.read_record(&user(1)).unwrap(), Some(record(b'a')));
    assert_eq!(s.read_record(&user(3)).unwrap(), None);
    assert!(s.update_field(&user(1), 2, b"zz").unwrap());
    assert!(!s.update_field(&user(3), 0, b"zz").unwrap(), "no such record");
    s.commit().unwrap();
    let mut s = begun(system, Level::Serializable);
    assert!(s.update_field(&user(2), 0, &[0, 255]).unwrap());
    s.rollback().unwrap();
    let mut s = begun(system, Level::Serializable);
    let mut updated = record(b'a');
    updated[2] = b"zz".to_vec();
    assert_eq!(s.read_record(&user(1)).unwrap(), Some(updated));
    assert_eq!(s.read_record(&user(2)).unwrap(), Some(record(b'x')), "the rolled-back update left no trace");
    s.commit().unwrap();
    assert_eq!(registers(system), rows([(1, 10)]), "records are not registers");
}

/// Predicate deletes and updates are one statement each and report what they saw and wrote: the shapes
/// Hermitage's scripts use (`update test set value = value + 10`, `update ... set value = 12 where value
/// = 10`, `delete from test where value = 20`).
pub fn predicate_writes_report_what_they_saw(system: &dyn System) {
    use adapters::Change;
    system.prepare(&[(k(1), 10), (k(2), 20), (k(3), 33)]).unwrap();
    let mut s = begun(system, Level::Serializable);
    let mut changed = s.update_where(&Predicate::Mod { m: 10, r: 0 }, Change::Add(10)).unwrap();
    changed.sort();
    assert_eq!(changed, vec![(k(1), 10, 20), (k(2), 20, 30)]);
    let set = s.update_where(&Predicate::Eq(30), Change::Set(31)).unwrap();
    assert_eq!(set, vec![(k(2), 30, 31)]);
    assert_eq!(s.delete_where(&Predicate::Eq(20)).unwrap(), rows([(1, 20)]));
    assert_eq!(s.delete_where(&Predicate::Eq(99)).unwrap(), Rows::new(), "nothing matched, nothing deleted");
    let refused = s.update_where(&Predicate::True, Change::Set(5)).unwrap_err();
    assert_eq!(refused.failure, Failure::Fatal, "SET needs an equality predicate to know what it overwrote");
    let _ = s.rollback();
    let mut s = begun(system, Level::Serializable);
    s.update_where(&Predicate::Mod { m: 10, r: 0 }, Change::Add(10)).unwrap();
    s.delete_where(&Predicate::Eq(20)).unwrap();
    s.commit().unwrap();
    assert_eq!(registers(system), rows([(2, 30), (3, 33)]));
}

/// A write's version number ([`Session::write_versioned`]): each committed version of a row numbered
/// above the one it replaced, a transaction's own rewrite above its first write, and a rolled-back
/// writer's number given again to the next writer (so only committed writes' numbers are evidence).
pub fn write_versions_number_each_rows_committed_versions(system: &dyn System) {
    system.prepare(&[(k(1), 0)]).unwrap();
    let mut a = begun(system, Level::ReadCommitted);
    let first = a.write_versioned(&k(1), 1).unwrap().expect("a number");
    let again = a.write_versioned(&k(1), 2).unwrap().expect("a number");
    assert!(first >= 1 && again > first, "the initial row is version 0: {first}, {again}");
    a.commit().unwrap();

    let mut b = begun(system, Level::ReadCommitted);
    let fresh = b.write_versioned(&k(2), 5).unwrap().expect("a number");
    b.rollback().unwrap();
    let mut c = begun(system, Level::ReadCommitted);
    assert_eq!(c.write_versioned(&k(2), 6).unwrap(), Some(fresh), "the rolled-back number is given again");
    let later = c.write_versioned(&k(1), 3).unwrap().expect("a number");
    assert!(later > again, "{later} follows the committed {again}");
    c.commit().unwrap();
    assert_eq!(registers(system), rows([(1, 3), (2, 6)]), "write_versioned writes as write does");
}
