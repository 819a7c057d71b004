//! The SQLite adapter against real SQLite: the shared checks, then how SQLite's single writer shows up —
//! busy errors recorded as aborts that left no trace, and `BEGIN IMMEDIATE` queueing writers.

use std::thread;
use std::time::{Duration, Instant};

use crate::common;
use crate::common::{assert_aborted, begun, k, list, registers, rows};
use adapters::{Failure, Level, LevelSupport, SqliteBegin, SqliteSystem, System};

fn deferred() -> SqliteSystem {
    SqliteSystem::new(SqliteBegin::Deferred).unwrap()
}

fn immediate(busy_timeout: Duration) -> SqliteSystem {
    SqliteSystem::new(SqliteBegin::Immediate).unwrap().with_busy_timeout(busy_timeout)
}

#[test]
fn statements_round_trip() {
    common::statements_round_trip(&deferred());
}

#[test]
fn records_round_trip() {
    common::records_round_trip(&deferred());
}

#[test]
fn predicate_writes_report_what_they_saw() {
    common::predicate_writes_report_what_they_saw(&deferred());
}

#[test]
fn string_keys_keep_their_type() {
    common::string_keys_keep_their_type(&deferred());
}

#[test]
fn an_insert_of_an_existing_key_aborts_without_effect() {
    common::an_insert_of_an_existing_key_aborts_without_effect(&deferred(), "SQLITE_CONSTRAINT");
}

#[test]
fn rollback_discards_and_needs_no_transaction() {
    common::rollback_discards_and_needs_no_transaction(&deferred());
}

#[test]
fn a_killed_session_loses_its_transaction() {
    common::a_killed_session_loses_its_transaction(&deferred(), "killed");
}

#[test]
fn a_session_killed_while_idle_fails_its_next_begin() {
    common::a_session_killed_while_idle_fails_its_next_begin(&deferred(), "killed");
}

#[test]
fn a_deferred_writer_whose_snapshot_is_stale_gets_sqlite_busy_snapshot_and_leaves_no_trace() {
    let system = deferred();
    system.prepare(&[(k(1), 0)]).unwrap();
    let mut a = begun(&system, Level::Serializable);
    assert_eq!(a.read(&k(1)).unwrap(), Some(0), "a's snapshot");
    let mut b = begun(&system, Level::Serializable);
    b.write(&k(1), 1).unwrap();
    b.commit().unwrap();
    // Had SQLite let a write on its stale snapshot, b's update would be lost.
    assert_aborted(a.write(&k(1), 2), "SQLITE_BUSY_SNAPSHOT");
    assert_aborted(a.commit(), "in-failed-transaction");
    assert_eq!(registers(&system), rows([(1, 1)]));
    a.begin(Level::Serializable).unwrap();
    assert_eq!(a.read(&k(1)).unwrap(), Some(1), "the session goes on, on a fresh snapshot");
    a.commit().unwrap();
}

#[test]
fn a_deferred_reader_that_wants_to_write_while_another_writes_gets_sqlite_busy_at_once() {
    // A long busy timeout: SQLite still does not wait, since a reader waiting for the writer could deadlock.
    let system = deferred().with_busy_timeout(Duration::from_secs(5));
    system.prepare(&[(k(1), 0), (k(2), 0)]).unwrap();
    let mut a = begun(&system, Level::Serializable);
    a.write(&k(1), 1).unwrap();
    let mut b = begun(&system, Level::Serializable);
    assert_eq!(b.read(&k(1)).unwrap(), Some(0), "WAL readers are not blocked by the writer");
    let started = Instant::now();
    assert_aborted(b.append(&k(2), 2), "SQLITE_BUSY");
    // Well under the 5 s busy timeout, however busy the machine.
    assert!(started.elapsed() < Duration::from_secs(4), "waited {:?}", started.elapsed());
    a.commit().unwrap();
    assert_eq!(registers(&system), rows([(1, 1), (2, 0)]));
    assert_eq!(list(&system, &k(2)), Vec::<i64>::new(), "b left no trace");
}

/// Starts `second` on another thread while `first` holds the write lock, commits `first` after `hold`,
/// and returns whether `second` finished only after `first` began to commit: a statement that waited for
/// the lock always does, however busy the machine (SQLite cannot say whether a session is waiting).
fn queued_behind(first: &mut dyn adapters::Session, hold: Duration, second: impl FnOnce() + Send) -> bool {
    thread::scope(|scope| {
        let waiter = scope.spawn(|| {
            second();
            Instant::now()
        });
        thread::sleep(hold);
        let committing = Instant::now();
        first.commit().unwrap();
        waiter.join().unwrap() >= committing
    })
}

#[test]
fn a_deferred_transaction_whose_first_statement_writes_waits_for_the_writer() {
    let system = deferred().with_busy_timeout(Duration::from_secs(5));
    system.prepare(&[(k(1), 0)]).unwrap();
    let mut a = begun(&system, Level::Serializable);
    a.write(&k(1), 1).unwrap();
    let waited = queued_behind(&mut *a, Duration::from_millis(200), || {
        let mut b = begun(&system, Level::Serializable);
        b.append(&k(2), 1).unwrap();
        assert_eq!(b.read(&k(1)).unwrap(), Some(1), "b's snapshot starts after a committed");
        b.commit().unwrap();
    });
    assert!(waited, "b finished before a committed");
}

#[test]
fn begin_immediate_serializes_writers() {
    let system = immediate(Duration::from_secs(5));
    system.prepare(&[(k(1), 0)]).unwrap();
    let mut a = begun(&system, Level::Serializable);
    assert_eq!(a.read(&k(1)).unwrap(), Some(0));
    a.write(&k(1), 1).unwrap();
    let waited = queued_behind(&mut *a, Duration::from_millis(200), || {
        let mut b = begun(&system, Level::Serializable);
        assert_eq!(b.read(&k(1)).unwrap(), Some(1), "b began after a committed: no stale snapshot to abort");
        b.write(&k(1), 2).unwrap();
        b.commit().unwrap();
    });
    assert!(waited, "b's BEGIN finished before a committed");
    assert_eq!(registers(&system), rows([(1, 2)]));
}

#[test]
fn begin_immediate_that_outwaits_the_busy_timeout_is_an_abort_and_the_session_goes_on() {
    let system = immediate(Duration::from_millis(50));
    system.prepare(&[]).unwrap();
    let mut a = begun(&system, Level::Serializable);
    let mut b = system.connect().unwrap();
    assert_aborted(b.begin(Level::Serializable), "SQLITE_BUSY");
    a.commit().unwrap();
    b.begin(Level::Serializable).unwrap();
    b.commit().unwrap();
}

#[test]
fn every_level_runs_as_serializable_and_says_so() {
    let system = deferred();
    for level in Level::ALL {
        let expected = match level {
            Level::Serializable => LevelSupport::Native { name: "serializable".into() },
            _ => LevelSupport::Mapped {
                to: "serializable".into(),
                why: "SQLite has one isolation level: serializable, by a single writer (WAL readers see a snapshot)"
                    .into(),
            },
        };
        assert_eq!(system.level(level), expected, "{level}");
    }
}

#[test]
fn the_database_is_a_wal_file_in_a_directory_that_goes_with_the_system() {
    let system = SqliteSystem::new(SqliteBegin::Immediate).unwrap();
    let path = system.path().to_path_buf();
    assert!(system.version().starts_with("SQLite 3."), "{}", system.version());
    assert!(system.version().contains("BEGIN IMMEDIATE"), "{}", system.version());
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |row| row.get(0)).unwrap();
    assert_eq!(mode, "wal");
    drop(conn);
    drop(system);
    assert!(!path.exists(), "{} outlived its system", path.display());
}

#[test]
fn a_kill_ends_a_session_waiting_for_the_write_lock_when_its_busy_timeout_ends() {
    let system = immediate(SqliteSystem::DEFAULT_BUSY_TIMEOUT);
    system.prepare(&[]).unwrap();
    let mut a = begun(&system, Level::Serializable);
    let mut b = system.connect().unwrap();
    let kill = b.kill_switch().unwrap();
    let (err, waited) = thread::scope(|scope| {
        let waiter = scope.spawn(move || {
            let started = Instant::now();
            (b.begin(Level::Serializable).unwrap_err(), started.elapsed())
        });
        thread::sleep(Duration::from_millis(20));
        kill.kill();
        waiter.join().unwrap()
    });
    assert_eq!((err.failure, err.cause.as_str(), err.session_lost), (Failure::Aborted, "killed", true), "{err}");
    assert!(waited < Duration::from_secs(2), "waited {waited:?}");
    a.commit().unwrap();
}

#[test]
fn sqlite_says_it_runs_one_writer_at_a_time_by_design_and_the_engine_does_not() {
    let quote = deferred().serialized_by_design().expect("SQLite documents its single writer");
    assert!(quote.contains("https://www.sqlite.org/isolation.html"), "{quote}");
    assert_eq!(adapters::EngineSystem::new(None).serialized_by_design(), None);
    let global_lock = adapters::EngineSystem::new(Some(engine::Defect::GlobalLock));
    assert_eq!(global_lock.serialized_by_design(), None, "a planted global lock is a defect, not a design");
}

#[test]
fn writers_take_positions_in_the_commit_order_and_readers_and_aborted_writers_none() {
    let system = deferred();
    system.prepare(&[(k(1), 0)]).unwrap();
    let mut a = begun(&system, Level::Serializable);
    a.write(&k(1), 1).unwrap();
    a.commit().unwrap();
    let first = a.commit_order().expect("a writer takes a position");
    let mut b = begun(&system, Level::Serializable);
    b.append(&k(2), 7).unwrap();
    b.commit().unwrap();
    assert_eq!(b.commit_order(), Some(first + 1), "the next writer, the next position");

    a.begin(Level::Serializable).unwrap();
    assert_eq!(a.read(&k(1)).unwrap(), Some(1));
    a.commit().unwrap();
    assert_eq!(a.commit_order(), None, "a reader installs nothing and takes no position");

    // A stale writer is refused (SQLITE_BUSY_SNAPSHOT): no commit, no position, and the next writer's
    // position follows the last commit's.
    let mut stale = begun(&system, Level::Serializable);
    assert_eq!(stale.read(&k(1)).unwrap(), Some(1));
    b.begin(Level::Serializable).unwrap();
    b.write(&k(1), 2).unwrap();
    b.commit().unwrap();
    assert_eq!(b.commit_order(), Some(first + 2));
    assert_aborted(stale.write(&k(1), 3), "SQLITE_BUSY_SNAPSHOT");
    assert_aborted(stale.commit(), "in-failed-transaction");
    assert_eq!(stale.commit_order(), None);
    a.begin(Level::Serializable).unwrap();
    a.write(&k(1), 4).unwrap();
    a.commit().unwrap();
    assert_eq!(a.commit_order(), Some(first + 3));
}
