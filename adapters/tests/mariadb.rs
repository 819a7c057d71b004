//! The MariaDB adapter against a real server (`ISOCHECK_MYSQL_URL`; `./scripts/test` starts one): the
//! shared checks, then each level's behaviour and each failure class produced for real — repeatable
//! read's lost update and write skew committed (Hermitage's MySQL column), the 1020 abort with
//! `innodb_snapshot_isolation` on, serializable's locking reads, deadlocks (1213), lock wait timeouts
//! (1205, after which the adapter rolls back the rest), dirty reads at read uncommitted, killed
//! connections — and runs that share a server without meeting. Every wait is on the server's own
//! report that a session waits for a lock, never on a sleep, so a busy machine only makes them slower.
//!
//! Every test here is `#[ignore = "needs MariaDB: ..."]`: `cargo test` reports them ignored, and
//! `scripts/test` runs them with `--ignored`; asked for without `ISOCHECK_MYSQL_URL`, or with a server
//! that does not answer, they fail.

use std::thread;
use std::time::{Duration, Instant};

use crate::common;
use crate::common::{assert_aborted, begun, k, list, registers, rows};
use adapters::{AdapterError, Failure, KillSwitch, Level, LevelSupport, MariadbSystem, System};
use histories::Predicate;

/// The server's URL. These tests are `#[ignore = "needs MariaDB: ..."]`: they run only when asked for
/// (`scripts/test` runs them with `--ignored`, after starting a server), and fail without one.
fn url() -> String {
    std::env::var(MariadbSystem::URL_VAR)
        .unwrap_or_else(|_| panic!("this test needs MariaDB: set {}, or run scripts/test", MariadbSystem::URL_VAR))
}

/// The URL with these session parameters added.
fn url_with(params: &str) -> String {
    let url = url();
    let joiner = if url.contains('?') { '&' } else { '?' };
    format!("{url}{joiner}{params}")
}

fn open(url: &str) -> MariadbSystem {
    MariadbSystem::new(url).unwrap_or_else(|e| panic!("MariaDB at {url} does not answer: {e}"))
}

fn system() -> MariadbSystem {
    open(&url())
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn statements_round_trip() {
    let system = system();
    common::statements_round_trip(&system);
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn write_versions_number_each_rows_committed_versions() {
    let system = system();
    common::write_versions_number_each_rows_committed_versions(&system);
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn records_round_trip() {
    let system = system();
    common::records_round_trip(&system);
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn predicate_writes_report_what_they_saw() {
    let system = system();
    common::predicate_writes_report_what_they_saw(&system);
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn string_keys_keep_their_type() {
    let system = system();
    common::string_keys_keep_their_type(&system);
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn string_keys_are_compared_byte_for_byte() {
    let system = system();
    // A case-insensitive or space-padding collation would make these one key.
    system.prepare(&[("a".into(), 1), ("A".into(), 2), ("a ".into(), 3)]).unwrap();
    assert_eq!(registers(&system), rows([("a", 1), ("A", 2), ("a ", 3)]));
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn an_insert_of_an_existing_key_aborts_without_effect() {
    let system = system();
    common::an_insert_of_an_existing_key_aborts_without_effect(&system, "1062");
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn rollback_discards_and_needs_no_transaction() {
    let system = system();
    common::rollback_discards_and_needs_no_transaction(&system);
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn a_killed_session_loses_its_transaction() {
    let system = system();
    common::a_killed_session_loses_its_transaction(&system, "connection lost");
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn a_session_killed_while_idle_fails_its_next_begin() {
    let system = system();
    common::a_session_killed_while_idle_fails_its_next_begin(&system, "connection lost");
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn a_commit_sent_to_a_killed_connection_is_indeterminate() {
    let system = system();
    system.prepare(&[]).unwrap();
    let mut s = begun(&system, Level::Serializable);
    s.append(&k(1), 1).unwrap();
    s.kill_switch().unwrap().kill();
    let err = s.commit().unwrap_err();
    assert_eq!((err.failure, err.cause.as_str(), err.session_lost), (Failure::Indeterminate, "connection lost", true));
    assert_eq!(list(&system, &k(1)), Vec::<i64>::new(), "here, in fact, it had not");
}

/// Hermitage's P4: both read, one updates and commits, then the other updates and commits.
fn lost_update(system: &MariadbSystem) -> (Result<(), adapters::TxnError>, Result<(), adapters::TxnError>) {
    system.prepare(&[(k(1), 10)]).unwrap();
    let (mut a, mut b) = (begun(system, Level::RepeatableRead), begun(system, Level::RepeatableRead));
    assert_eq!(a.read(&k(1)).unwrap(), Some(10));
    assert_eq!(b.read(&k(1)).unwrap(), Some(10));
    a.write(&k(1), 11).unwrap();
    a.commit().unwrap();
    let b_write = b.write(&k(1), 11);
    (b_write, b.commit())
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn a_lost_update_at_repeatable_read_commits_as_hermitage_found_in_mysql() {
    let system = system();
    assert_eq!(system.snapshot_isolation(), Some(false), "the test server runs MariaDB's default");
    assert_eq!(system.system_settings(), [("innodb_snapshot_isolation", "OFF".to_string())]);
    let (write, commit) = lost_update(&system);
    write.unwrap();
    commit.unwrap();
    // Both wrote 11 over the 10 they read: one increment is lost (and the server reported "Changed: 0").
    assert_eq!(registers(&system), rows([(1, 11)]));
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn with_innodb_snapshot_isolation_on_the_lost_update_aborts_with_1020() {
    let url = url_with("innodb_snapshot_isolation=on");
    let system = open(&url);
    assert_eq!(system.snapshot_isolation(), Some(true));
    assert_eq!(system.system_settings(), [("innodb_snapshot_isolation", "ON".to_string())]);
    let (write, commit) = lost_update(&system);
    assert_aborted(write, "1020");
    assert_aborted(commit, "in-failed-transaction");
    assert_eq!(registers(&system), rows([(1, 11)]), "the first writer's update stands alone");
}

/// Two doctors on call; each transaction sees both on call and takes one off.
#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn a_write_skew_at_repeatable_read_commits_both() {
    let system = system();
    system.prepare(&[(k(1), 1), (k(2), 1)]).unwrap();
    let (mut a, mut b) = (begun(&system, Level::RepeatableRead), begun(&system, Level::RepeatableRead));
    for s in [&mut a, &mut b] {
        assert_eq!(s.scan(&Predicate::Eq(1)).unwrap(), rows([(1, 1), (2, 1)]));
    }
    a.write(&k(1), 0).unwrap();
    b.write(&k(2), 0).unwrap();
    a.commit().unwrap();
    b.commit().unwrap();
    assert_eq!(registers(&system), rows([(1, 0), (2, 0)]), "nobody on call");
}

/// Runs `second` on another thread and waits until the server reports its session waiting for a lock
/// (however long a busy machine takes to get it there); then runs `meanwhile` and returns both results.
/// The server is asked once before `second` starts, as a poller that was there first would: InnoDB's
/// cache of transactions must not keep showing that first answer (it did, before the adapter spaced its
/// reads out, and these tests then waited for the 50 s lock wait timeout).
fn while_waiting<T: Send, U>(
    waiting: &dyn KillSwitch,
    second: impl FnOnce() -> T + Send,
    meanwhile: impl FnOnce() -> U,
) -> (T, U) {
    assert_eq!(waiting.waiting(), Some(false), "nothing waits yet");
    thread::scope(|scope| {
        let waiter = scope.spawn(second);
        let started = Instant::now();
        while waiting.waiting() != Some(true) {
            assert!(!waiter.is_finished(), "the second statement returned without waiting for the lock");
            assert!(started.elapsed() < Duration::from_secs(60), "the second statement never waited for the lock");
            thread::sleep(Duration::from_millis(5));
        }
        let meanwhile = meanwhile();
        (waiter.join().unwrap(), meanwhile)
    })
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn a_write_skew_at_serializable_deadlocks_and_one_transaction_aborts_with_1213() {
    let system = system();
    system.prepare(&[(k(1), 1), (k(2), 1)]).unwrap();
    let (mut a, mut b) = (begun(&system, Level::Serializable), begun(&system, Level::Serializable));
    // InnoDB's serializable reads take shared locks: each write waits for the other's.
    for s in [&mut a, &mut b] {
        assert_eq!(s.scan(&Predicate::Eq(1)).unwrap(), rows([(1, 1), (2, 1)]));
    }
    let a_waits = a.kill_switch().unwrap();
    let (a_result, b_result) = while_waiting(
        &*a_waits,
        || a.write(&k(1), 0).and_then(|()| a.commit()),
        || b.write(&k(2), 0).and_then(|()| b.commit()),
    );
    let (aborted, committed) = match (a_result, b_result) {
        (Err(e), Ok(())) => (e, rows([(1, 1), (2, 0)])),
        (Ok(()), Err(e)) => (e, rows([(1, 0), (2, 1)])),
        other => panic!("expected exactly one deadlock victim, got {other:?}"),
    };
    assert_eq!((aborted.failure, aborted.cause.as_str(), aborted.session_lost), (Failure::Aborted, "1213", false));
    assert_eq!(registers(&system), committed, "the victim left no trace; somebody is on call");
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn a_lock_wait_timeout_aborts_with_1205_and_the_adapter_rolls_back_the_rest() {
    let url = url_with("innodb_lock_wait_timeout=1");
    let system = open(&url);
    system.prepare(&[(k(1), 0), (k(2), 0)]).unwrap();
    let (mut a, mut b) = (begun(&system, Level::ReadCommitted), begun(&system, Level::ReadCommitted));
    a.write(&k(1), 1).unwrap();
    b.write(&k(2), 2).unwrap();
    // InnoDB rolls back only the timed-out statement; b's first write must not survive.
    assert_aborted(b.write(&k(1), 2), "1205");
    assert_aborted(b.commit(), "in-failed-transaction");
    a.commit().unwrap();
    assert_eq!(registers(&system), rows([(1, 1), (2, 0)]));
    b.begin(Level::ReadCommitted).unwrap();
    assert_eq!(b.read(&k(2)).unwrap(), Some(0), "the session goes on, in a fresh transaction");
    b.commit().unwrap();
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn read_uncommitted_reads_a_write_not_yet_committed_and_read_committed_does_not() {
    let system = system();
    system.prepare(&[(k(1), 0)]).unwrap();
    let mut writer = begun(&system, Level::ReadCommitted);
    writer.write(&k(1), 1).unwrap();
    let mut dirty = begun(&system, Level::ReadUncommitted);
    assert_eq!(dirty.read(&k(1)).unwrap(), Some(1));
    dirty.commit().unwrap();
    let mut clean = begun(&system, Level::ReadCommitted);
    assert_eq!(clean.read(&k(1)).unwrap(), Some(0));
    clean.commit().unwrap();
    writer.rollback().unwrap();
    assert_eq!(registers(&system), rows([(1, 0)]));
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn each_transaction_runs_at_its_own_level() {
    let system = system();
    system.prepare(&[(k(1), 0)]).unwrap();
    let mut reader = system.connect().unwrap();
    let mut writer = system.connect().unwrap();
    // Serializable is left out: its read would lock the row the writer needs (see the deadlock test).
    for level in [Level::ReadCommitted, Level::RepeatableRead, Level::ReadUncommitted, Level::RepeatableRead] {
        reader.begin(level).unwrap();
        let first = reader.read(&k(1)).unwrap().unwrap();
        writer.begin(Level::ReadCommitted).unwrap();
        writer.write(&k(1), first + 1).unwrap();
        writer.commit().unwrap();
        let second = reader.read(&k(1)).unwrap().unwrap();
        reader.commit().unwrap();
        // Read (un)committed sees each statement's latest commit; repeatable read its first read's snapshot.
        let expected = if level == Level::RepeatableRead { first } else { first + 1 };
        assert_eq!(second, expected, "{level}: read {first}, then {second}");
    }
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn an_append_at_repeatable_read_waits_then_applies_to_the_latest_list_which_the_snapshot_then_shows() {
    let system = system();
    system.prepare(&[]).unwrap();
    let mut a = begun(&system, Level::RepeatableRead);
    a.append(&k(1), 1).unwrap();
    let mut b = begun(&system, Level::RepeatableRead);
    assert_eq!(b.read_list(&k(1)).unwrap(), Vec::<i64>::new(), "b's snapshot");
    let b_waits = b.kill_switch().unwrap();
    let (appended, committed) = while_waiting(&*b_waits, || b.append(&k(1), 2), || a.commit());
    committed.unwrap();
    appended.unwrap();
    // No first-committer-wins: the upsert read the latest list, and b's snapshot now shows a's append,
    // which it did not show before (what Elle calls a non-repeatable read inside one transaction).
    assert_eq!(b.read_list(&k(1)).unwrap(), vec![1, 2]);
    b.commit().unwrap();
    assert_eq!(list(&system, &k(1)), vec![1, 2]);
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn levels_map_as_mariadb_names_them() {
    let system = system();
    let native = |name: &str| LevelSupport::Native { name: name.into() };
    assert_eq!(system.level(Level::ReadUncommitted), native("READ UNCOMMITTED"));
    assert_eq!(system.level(Level::ReadCommitted), native("READ COMMITTED"));
    assert_eq!(system.level(Level::RepeatableRead), native("REPEATABLE READ"));
    assert_eq!(system.level(Level::Serializable), native("SERIALIZABLE"));
    match system.level(Level::SnapshotIsolation) {
        LevelSupport::Mapped { to, why } => {
            assert_eq!(to, "REPEATABLE READ");
            assert!(why.starts_with("MariaDB's repeatable read is not snapshot isolation"), "{why}");
        }
        other => panic!("{other:?}"),
    }
    assert!(system.version().starts_with("MariaDB "), "{}", system.version());
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn two_systems_prepared_at_once_use_different_tables() {
    let one = system();
    let two = system();
    one.prepare(&[(k(1), 1)]).unwrap();
    two.prepare(&[(k(1), 2)]).unwrap();
    assert_ne!(one.tables(), two.tables());
    let mut s = begun(&one, Level::Serializable);
    s.write(&k(1), 10).unwrap();
    s.append(&k(1), 10).unwrap();
    s.commit().unwrap();
    assert_eq!(registers(&two), rows([(1, 2)]));
    assert_eq!(list(&two, &k(1)), Vec::<i64>::new());
    assert_eq!(registers(&one), rows([(1, 10)]));
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn prepare_drops_the_previous_runs_tables_and_dropping_the_system_drops_the_last() {
    use mysql::prelude::Queryable;
    let url = url();
    let system = open(&url);
    let mut conn = mysql::Conn::new(mysql::Opts::from_url(&url).unwrap()).unwrap();
    let mut exists = |name: &str| -> bool {
        let sql = "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?";
        conn.exec_first::<i64, _, _>(sql, (name,)).unwrap() == Some(1)
    };
    system.prepare(&[]).unwrap();
    let (lists, registers) = system.tables().unwrap();
    assert!(exists(&lists) && exists(&registers));
    system.prepare(&[]).unwrap();
    assert!(!exists(&lists) && !exists(&registers));
    let (lists, registers) = system.tables().unwrap();
    drop(system);
    assert!(!exists(&lists) && !exists(&registers));
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn connecting_before_prepare_or_to_no_server_is_unavailable() {
    let system = system();
    assert!(matches!(system.connect().err(), Some(AdapterError::Unavailable { system: "mariadb", .. })));
    // Nothing listens on port 1 of the loopback address.
    let nowhere = MariadbSystem::new("mysql://root@127.0.0.1:1/isocheck");
    assert!(matches!(nowhere.err(), Some(AdapterError::Unavailable { system: "mariadb", .. })));
    let bad = MariadbSystem::new("mysql://root@127.0.0.1:1/isocheck?innodb_lock_wait_timeout=soon");
    assert!(matches!(bad.err(), Some(AdapterError::Unavailable { system: "mariadb", .. })));
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn a_writer_that_waited_for_the_row_numbers_its_version_after_the_one_it_waited_for() {
    let system = system();
    system.prepare(&[(k(1), 0)]).unwrap();
    for level in [Level::ReadCommitted, Level::RepeatableRead] {
        let mut a = begun(&system, level);
        let first = a.write_versioned(&k(1), 1).unwrap().expect("a number");
        let mut b = begun(&system, level);
        let b_waits = b.kill_switch().unwrap();
        let (second, committed) = while_waiting(&*b_waits, || b.write_versioned(&k(1), 2), || a.commit());
        committed.unwrap();
        assert_eq!(second.unwrap(), Some(first + 1), "{level:?}: InnoDB's upsert reads the latest committed version");
        b.commit().unwrap();
    }
}
