//! SQLite as a system under test (rusqlite, SQLite bundled): a database file in a fresh temporary
//! directory that lives as long as the [`SqliteSystem`], in WAL mode, one connection per session.
//! SQLite has one isolation level, serializable by a single writer: WAL readers see a snapshot taken at
//! their first read, and at most one connection writes at a time. Every requested level runs as that,
//! and says so.
//!
//! Transactions begin `DEFERRED` (the lock is taken at the first read, the write lock at the first
//! write) or `IMMEDIATE` (the write lock at `BEGIN`) as configured. `SQLITE_BUSY`,
//! `SQLITE_BUSY_SNAPSHOT` or `SQLITE_LOCKED` anywhere in a transaction is SQLite's abort: the adapter
//! rolls the transaction back and reports it as aborted with that cause, never retrying it (a retry
//! would hide the abort and misreport the system). Running out of disk, memory or I/O (`SQLITE_FULL`,
//! `SQLITE_NOMEM`, `SQLITE_IOERR`) is an abort too, except in answer to COMMIT, where it is
//! indeterminate. Tables: `lists (k, v)` with a list as comma-separated
//! decimal text, appended to in one upsert; `registers (k, v)` with an integer; `records (k, field0, ...)`
//! with a blob per field, as YCSB's JDBC binding lays out its `usertable`; keys as in [`crate::sql`].
//!
//! See <https://www.sqlite.org/isolation.html> and <https://www.sqlite.org/wal.html>.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use histories::{Key, Predicate, Rows};
use rusqlite::{Connection, ErrorCode, InterruptHandle, OptionalExtension, params, params_from_iter};

use crate::level::{Level, LevelSupport};
use crate::session::{AdapterError, Change, Failure, KillSwitch, Record, Session, System, TxnError};
use crate::sql::{key_of_text, key_text, predicate_condition};
use crate::txn_state::Tracked;

/// How a SQLite transaction begins (`--sqlite-begin`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SqliteBegin {
    /// `BEGIN DEFERRED`: locks are taken by the first read and the first write. A transaction that read
    /// and then writes after another committed fails with `SQLITE_BUSY_SNAPSHOT`.
    #[default]
    Deferred,
    /// `BEGIN IMMEDIATE`: the write lock is taken at `BEGIN`, so writers queue (up to the busy timeout)
    /// instead of failing later.
    Immediate,
}

impl SqliteBegin {
    /// Its name on the command line: `deferred` or `immediate`.
    pub fn name(self) -> &'static str {
        match self {
            SqliteBegin::Deferred => "deferred",
            SqliteBegin::Immediate => "immediate",
        }
    }

    fn sql(self) -> &'static str {
        match self {
            SqliteBegin::Deferred => "BEGIN DEFERRED",
            SqliteBegin::Immediate => "BEGIN IMMEDIATE",
        }
    }
}

impl fmt::Display for SqliteBegin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown `--sqlite-begin` mode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown SQLite begin mode {name:?}: expected deferred or immediate")]
pub struct ParseSqliteBeginError {
    /// The name given.
    pub name: String,
}

impl FromStr for SqliteBegin {
    type Err = ParseSqliteBeginError;

    fn from_str(s: &str) -> Result<SqliteBegin, ParseSqliteBeginError> {
        [SqliteBegin::Deferred, SqliteBegin::Immediate]
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| ParseSqliteBeginError { name: s.to_string() })
    }
}

/// SQLite, on a database file of its own.
pub struct SqliteSystem {
    // Holds the directory: it is removed when the system is dropped.
    dir: tempfile::TempDir,
    path: PathBuf,
    begin: SqliteBegin,
    busy_timeout: Duration,
}

/// How long `prepare` waits for connections of an earlier run to let go of the database.
const PREPARE_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

impl SqliteSystem {
    /// The default busy timeout, 100 ms. Not zero: a statement that needs a lock another connection
    /// holds for a moment (a `BEGIN IMMEDIATE`, or a deferred transaction's first statement) waits a
    /// little, as a lock wait in any system would, rather than turning every brief overlap into an
    /// abort. Small: a longer wait only hides contention, and stalls scripted interleavings that expect
    /// a blocked step to resolve. SQLite itself never waits where waiting could deadlock (a transaction
    /// that already read and now wants to write gets `SQLITE_BUSY` at once), so the timeout changes how
    /// often a transaction is refused, never what a committed one could see.
    pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_millis(100);

    /// A fresh database in a new temporary directory, in WAL mode.
    pub fn new(begin: SqliteBegin) -> Result<SqliteSystem, AdapterError> {
        let dir = tempfile::Builder::new().prefix("isocheck-sqlite-").tempdir().map_err(unavailable)?;
        let path = dir.path().join("isocheck.db");
        let system = SqliteSystem { dir, path, begin, busy_timeout: Self::DEFAULT_BUSY_TIMEOUT };
        let conn = system.open(PREPARE_BUSY_TIMEOUT)?;
        // WAL is a property of the database file: set once, every later connection uses it.
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0)).map_err(unavailable)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(unavailable(format!("SQLite refused WAL mode (journal_mode is {mode})")));
        }
        Ok(system)
    }

    /// The same system with this busy timeout for its sessions' connections.
    pub fn with_busy_timeout(self, busy_timeout: Duration) -> SqliteSystem {
        SqliteSystem { busy_timeout, ..self }
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How transactions begin.
    pub fn begin_mode(&self) -> SqliteBegin {
        self.begin
    }

    fn open(&self, busy_timeout: Duration) -> Result<Connection, AdapterError> {
        let conn = Connection::open(&self.path).map_err(unavailable)?;
        conn.busy_timeout(busy_timeout).map_err(unavailable)?;
        Ok(conn)
    }
}

fn unavailable(e: impl fmt::Display) -> AdapterError {
    AdapterError::Unavailable { system: "sqlite", message: e.to_string() }
}

impl System for SqliteSystem {
    fn name(&self) -> &'static str {
        "sqlite"
    }

    fn serialized_by_design(&self) -> Option<&'static str> {
        Some(
            "This is SQLite's documented design, not a defect: one connection writes at a time \
             (https://www.sqlite.org/isolation.html, https://www.sqlite.org/wal.html).",
        )
    }

    fn version(&self) -> String {
        format!(
            "SQLite {} (bundled; WAL; BEGIN {}; busy timeout {} ms; in {})",
            rusqlite::version(),
            self.begin.name().to_uppercase(),
            self.busy_timeout.as_millis(),
            self.dir.path().display(),
        )
    }

    fn level(&self, requested: Level) -> LevelSupport {
        match requested {
            Level::Serializable => LevelSupport::Native { name: "serializable".into() },
            _ => LevelSupport::Mapped {
                to: "serializable".into(),
                why: "SQLite has one isolation level: serializable, by a single writer (WAL readers see a snapshot)"
                    .into(),
            },
        }
    }

    fn prepare(&self, registers: &[(Key, i64)]) -> Result<(), AdapterError> {
        let mut conn = self.open(PREPARE_BUSY_TIMEOUT)?;
        let txn = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).map_err(unavailable)?;
        txn.execute_batch(
            "DROP TABLE IF EXISTS lists;
             DROP TABLE IF EXISTS registers;
             DROP TABLE IF EXISTS records;
             DROP TABLE IF EXISTS isocheck_commit_order;
             CREATE TABLE lists (k TEXT PRIMARY KEY, v TEXT NOT NULL) STRICT;
             CREATE TABLE registers (k TEXT PRIMARY KEY, v INTEGER NOT NULL) STRICT;
             CREATE TABLE isocheck_commit_order (n INTEGER NOT NULL) STRICT;
             INSERT INTO isocheck_commit_order (n) VALUES (0);",
        )
        .map_err(unavailable)?;
        {
            let mut insert = txn.prepare("INSERT INTO registers (k, v) VALUES (?1, ?2)").map_err(unavailable)?;
            for (key, value) in registers {
                insert
                    .execute(params![key_text(key), value])
                    .map_err(|e| unavailable(format!("initial register {key}: {e}")))?;
            }
        }
        txn.commit().map_err(unavailable)
    }

    fn prepare_records(&self, fields: usize, records: &[(Key, Record)]) -> Result<(), AdapterError> {
        let mut conn = self.open(PREPARE_BUSY_TIMEOUT)?;
        let txn = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).map_err(unavailable)?;
        let columns: String = (0..fields).map(|f| format!(", field{f} BLOB NOT NULL")).collect();
        txn.execute_batch(&format!(
            "DROP TABLE IF EXISTS records; CREATE TABLE records (k TEXT PRIMARY KEY{columns}) STRICT;"
        ))
        .map_err(unavailable)?;
        {
            let placeholders: String = (0..fields).map(|f| format!(", ?{}", f + 2)).collect();
            let mut insert =
                txn.prepare(&format!("INSERT INTO records VALUES (?1{placeholders})")).map_err(unavailable)?;
            for (key, record) in records {
                if record.len() != fields {
                    return Err(unavailable(format!("record {key} has {} fields, not {fields}", record.len())));
                }
                let key = key_text(key);
                let values = std::iter::once(&key as &dyn rusqlite::ToSql)
                    .chain(record.iter().map(|f| f as &dyn rusqlite::ToSql));
                insert.execute(params_from_iter(values)).map_err(unavailable)?;
            }
        }
        txn.commit().map_err(unavailable)
    }

    fn connect(&self) -> Result<Box<dyn Session>, AdapterError> {
        let conn = self.open(self.busy_timeout)?;
        let kill = Arc::new(SqliteKill { killed: AtomicBool::new(false), interrupt: conn.get_interrupt_handle() });
        Ok(Box::new(Tracked::new(SqliteConn {
            conn: Some(conn),
            begin: self.begin,
            kill,
            committing: false,
            wrote: false,
            committed_at: None,
        })))
    }
}

/// One session's connection, running each call as it comes (see [`Tracked`] for the state around it).
struct SqliteConn {
    /// `None` once killed: closing the connection rolled back its transaction.
    conn: Option<Connection>,
    begin: SqliteBegin,
    kill: Arc<SqliteKill>,
    committing: bool,
    /// Whether the open transaction ran a write statement (and so holds SQLite's one write lock).
    wrote: bool,
    /// The commit-order position the last commit took, if it wrote (see [`SqliteConn::commit`]).
    committed_at: Option<i64>,
}

impl SqliteConn {
    /// Runs `f` on the connection, unless the session was killed; classifies its error.
    fn run<T>(&mut self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, TxnError> {
        if self.kill.killed.load(Ordering::Acquire) {
            self.conn = None;
        }
        let Some(conn) = &self.conn else {
            return Err(killed(Failure::Aborted));
        };
        f(conn).map_err(|e| {
            let mut error = classify(&e, self.committing);
            if !error.session_lost && self.kill.killed.load(Ordering::Acquire) {
                // Killed while the statement ran (a wait for a lock outlasts the interrupt): its own
                // outcome stands, and the session is gone.
                error = TxnError {
                    message: format!("{}; and the session was killed", error.message),
                    ..killed(error.failure)
                };
            }
            if error.session_lost {
                self.conn = None;
            }
            error
        })
    }
}

fn killed(failure: Failure) -> TxnError {
    TxnError {
        failure,
        cause: "killed".into(),
        message: "the session was killed: its connection was interrupted and closed".into(),
        session_lost: true,
    }
}

/// What a SQLite error means for the history.
fn classify(e: &rusqlite::Error, committing: bool) -> TxnError {
    let message = e.to_string();
    let Some(error) = e.sqlite_error() else {
        return TxnError::fatal("sqlite-client", message);
    };
    match error.code {
        ErrorCode::DatabaseBusy if error.extended_code == rusqlite::ffi::SQLITE_BUSY_SNAPSHOT => {
            TxnError::aborted("SQLITE_BUSY_SNAPSHOT", message)
        }
        ErrorCode::DatabaseBusy => TxnError::aborted("SQLITE_BUSY", message),
        ErrorCode::DatabaseLocked => TxnError::aborted("SQLITE_LOCKED", message),
        // `insert` of a key that exists: the statement fails, and the adapter ends the transaction.
        ErrorCode::ConstraintViolation => TxnError::aborted("SQLITE_CONSTRAINT", message),
        // Only the kill switch interrupts. An interrupted COMMIT may or may not have committed.
        ErrorCode::OperationInterrupted => killed(if committing { Failure::Indeterminate } else { Failure::Aborted }),
        // Out of disk, memory or I/O: SQLite may roll the transaction back itself, and the adapter rolls
        // back what is left, so inside the transaction it is an abort. In answer to COMMIT the commit may
        // have reached the file (an I/O error after the WAL write), so its fate is unknown, and the
        // connection is given up.
        ErrorCode::DiskFull | ErrorCode::OutOfMemory | ErrorCode::SystemIoFailure => {
            let cause = match error.code {
                ErrorCode::DiskFull => "SQLITE_FULL",
                ErrorCode::OutOfMemory => "SQLITE_NOMEM",
                _ => "SQLITE_IOERR",
            };
            if committing {
                TxnError { failure: Failure::Indeterminate, cause: cause.into(), message, session_lost: true }
            } else {
                TxnError::aborted(cause, message)
            }
        }
        _ => TxnError::fatal("sqlite-error", message),
    }
}

fn parse_list(text: &str) -> Result<Vec<i64>, TxnError> {
    text.split(',')
        .map(|element| element.parse::<i64>())
        .collect::<Result<_, _>>()
        .map_err(|_| TxnError::fatal("bad-list", format!("a list holds {text:?}, which isocheck did not write")))
}

impl Session for SqliteConn {
    fn begin(&mut self, _: Level) -> Result<(), TxnError> {
        self.wrote = false;
        let sql = self.begin.sql();
        self.run(|c| c.execute_batch(sql))
    }

    fn read_list(&mut self, key: &Key) -> Result<Vec<i64>, TxnError> {
        let text: Option<String> = self.run(|c| {
            c.prepare_cached("SELECT v FROM lists WHERE k = ?1")?
                .query_row([key_text(key)], |row| row.get(0))
                .optional()
        })?;
        text.map_or(Ok(Vec::new()), |text| parse_list(&text))
    }

    fn append(&mut self, key: &Key, element: i64) -> Result<(), TxnError> {
        self.wrote = true;
        self.run(|c| {
            c.prepare_cached(
                "INSERT INTO lists (k, v) VALUES (?1, ?2) ON CONFLICT (k) DO UPDATE SET v = lists.v || ',' || excluded.v",
            )?
            .execute(params![key_text(key), element.to_string()])
        })
        .map(drop)
    }

    fn read(&mut self, key: &Key) -> Result<Option<i64>, TxnError> {
        self.run(|c| {
            c.prepare_cached("SELECT v FROM registers WHERE k = ?1")?
                .query_row([key_text(key)], |row| row.get(0))
                .optional()
        })
    }

    fn write(&mut self, key: &Key, value: i64) -> Result<(), TxnError> {
        self.wrote = true;
        self.run(|c| {
            c.prepare_cached(
                "INSERT INTO registers (k, v) VALUES (?1, ?2) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
            )?
            .execute(params![key_text(key), value])
        })
        .map(drop)
    }

    fn insert(&mut self, key: &Key, value: i64) -> Result<(), TxnError> {
        self.wrote = true;
        self.run(|c| {
            c.prepare_cached("INSERT INTO registers (k, v) VALUES (?1, ?2)")?.execute(params![key_text(key), value])
        })
        .map(drop)
    }

    fn delete(&mut self, key: &Key) -> Result<bool, TxnError> {
        self.wrote = true;
        self.run(|c| c.prepare_cached("DELETE FROM registers WHERE k = ?1")?.execute([key_text(key)])).map(|n| n > 0)
    }

    fn scan(&mut self, predicate: &Predicate) -> Result<Rows, TxnError> {
        let (condition, values) = predicate_condition(predicate, |i| format!("?{i}"));
        let sql = format!("SELECT k, v FROM registers WHERE {condition}");
        let rows: Vec<(String, i64)> = self.run(|c| {
            c.prepare_cached(&sql)?.query_map(params_from_iter(values), |row| Ok((row.get(0)?, row.get(1)?)))?.collect()
        })?;
        rows.into_iter().map(|(k, v)| Ok((key_of_text(&k)?, v))).collect()
    }

    fn read_record(&mut self, key: &Key) -> Result<Option<Record>, TxnError> {
        self.run(|c| {
            let mut statement = c.prepare_cached("SELECT * FROM records WHERE k = ?1")?;
            let fields = statement.column_count().saturating_sub(1);
            statement
                .query_row([key_text(key)], |row| (1..=fields).map(|i| row.get::<_, Vec<u8>>(i)).collect())
                .optional()
        })
    }

    fn update_field(&mut self, key: &Key, field: usize, value: &[u8]) -> Result<bool, TxnError> {
        self.wrote = true;
        let sql = format!("UPDATE records SET field{field} = ?2 WHERE k = ?1");
        self.run(|c| c.prepare_cached(&sql)?.execute(params![key_text(key), value])).map(|n| n > 0)
    }

    fn delete_where(&mut self, predicate: &Predicate) -> Result<Rows, TxnError> {
        self.wrote = true;
        let (condition, values) = predicate_condition(predicate, |i| format!("?{i}"));
        let sql = format!("DELETE FROM registers WHERE {condition} RETURNING k, v");
        let rows: Vec<(String, i64)> = self.run(|c| {
            c.prepare_cached(&sql)?.query_map(params_from_iter(values), |row| Ok((row.get(0)?, row.get(1)?)))?.collect()
        })?;
        rows.into_iter().map(|(k, v)| Ok((key_of_text(&k)?, v))).collect()
    }

    fn update_where(&mut self, predicate: &Predicate, change: Change) -> Result<Vec<(Key, i64, i64)>, TxnError> {
        self.wrote = true;
        let (condition, mut values) = predicate_condition(predicate, |i| format!("?{}", i + 1));
        let (assign, amount) = match change {
            Change::Set(x) => ("?1", x),
            Change::Add(d) => ("v + ?1", d),
        };
        values.insert(0, amount);
        let sql = format!("UPDATE registers SET v = {assign} WHERE {condition} RETURNING k, v");
        let rows: Vec<(String, i64)> = self.run(|c| {
            c.prepare_cached(&sql)?.query_map(params_from_iter(values), |row| Ok((row.get(0)?, row.get(1)?)))?.collect()
        })?;
        rows.into_iter().map(|(k, new)| Ok((key_of_text(&k)?, change.value_seen(predicate, new)?, new))).collect()
    }

    /// A transaction that wrote takes the next position in the commit order before COMMIT: it increments
    /// a counter row while it holds SQLite's one write lock (taken at its first write statement and held
    /// to its commit), so positions follow the order in which writers commit, and each key's versions
    /// are installed in that order. A transaction that wrote nothing takes none (it installs nothing,
    /// and taking the lock for it would make it conflict where it did not).
    fn commit(&mut self) -> Result<(), TxnError> {
        self.committed_at = None;
        let position = if std::mem::take(&mut self.wrote) {
            let next = self.run(|c| {
                c.prepare_cached("UPDATE isocheck_commit_order SET n = n + 1 RETURNING n")?
                    .query_row([], |row| row.get(0))
            })?;
            Some(next)
        } else {
            None
        };
        self.committing = true;
        let result = self.run(|c| c.execute_batch("COMMIT"));
        self.committing = false;
        if result.is_ok() {
            self.committed_at = position;
        }
        result
    }

    fn commit_order(&self) -> Option<i64> {
        self.committed_at
    }

    fn rollback(&mut self) -> Result<(), TxnError> {
        // After some errors SQLite has already rolled back; ROLLBACK with none open would be an error.
        self.run(|c| if c.is_autocommit() { Ok(()) } else { c.execute_batch("ROLLBACK") })
    }

    fn kill_switch(&self) -> Option<Arc<dyn KillSwitch>> {
        Some(Arc::clone(&self.kill) as Arc<dyn KillSwitch>)
    }
}

/// Kills a SQLite session: interrupts its running statement, and marks it so that its next call closes
/// the connection (rolling back its transaction) and fails with `session_lost`. SQLite's interrupt does
/// not cut a wait for a lock short: a statement waiting for one fails only when its busy timeout ends.
struct SqliteKill {
    killed: AtomicBool,
    interrupt: InterruptHandle,
}

impl KillSwitch for SqliteKill {
    fn kill(&self) {
        self.killed.store(true, Ordering::Release);
        self.interrupt.interrupt();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn begin_modes_parse_by_their_command_line_names() {
        assert_eq!("deferred".parse(), Ok(SqliteBegin::Deferred));
        assert_eq!("immediate".parse(), Ok(SqliteBegin::Immediate));
        assert_eq!(
            "exclusive".parse::<SqliteBegin>().unwrap_err().to_string(),
            "unknown SQLite begin mode \"exclusive\": expected deferred or immediate"
        );
    }

    #[test]
    fn busy_errors_are_aborts_with_their_exact_name() {
        let failure = |code: i32| rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), None);
        let cases = [
            (rusqlite::ffi::SQLITE_BUSY, Failure::Aborted, "SQLITE_BUSY"),
            (rusqlite::ffi::SQLITE_BUSY_SNAPSHOT, Failure::Aborted, "SQLITE_BUSY_SNAPSHOT"),
            (rusqlite::ffi::SQLITE_BUSY_TIMEOUT, Failure::Aborted, "SQLITE_BUSY"),
            (rusqlite::ffi::SQLITE_LOCKED, Failure::Aborted, "SQLITE_LOCKED"),
            (rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY, Failure::Aborted, "SQLITE_CONSTRAINT"),
            (rusqlite::ffi::SQLITE_ERROR, Failure::Fatal, "sqlite-error"),
        ];
        for (code, expected, cause) in cases {
            let error = classify(&failure(code), false);
            assert_eq!((error.failure, error.cause.as_str(), error.session_lost), (expected, cause, false), "{code}");
        }
    }

    #[test]
    fn resource_errors_abort_a_statement_and_leave_a_commit_indeterminate() {
        let failure = |code: i32| rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), None);
        let cases = [
            (rusqlite::ffi::SQLITE_FULL, "SQLITE_FULL"),
            (rusqlite::ffi::SQLITE_NOMEM, "SQLITE_NOMEM"),
            (rusqlite::ffi::SQLITE_IOERR, "SQLITE_IOERR"),
            (rusqlite::ffi::SQLITE_IOERR_WRITE, "SQLITE_IOERR"),
        ];
        for (code, cause) in cases {
            let statement = classify(&failure(code), false);
            assert_eq!(
                (statement.failure, statement.cause.as_str(), statement.session_lost),
                (Failure::Aborted, cause, false)
            );
            let commit = classify(&failure(code), true);
            assert_eq!(
                (commit.failure, commit.cause.as_str(), commit.session_lost),
                (Failure::Indeterminate, cause, true)
            );
        }
    }

    #[test]
    fn an_interrupt_is_a_kill_and_leaves_a_commit_indeterminate() {
        let interrupted =
            rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_INTERRUPT), None);
        let during_statement = classify(&interrupted, false);
        assert_eq!((during_statement.failure, during_statement.session_lost), (Failure::Aborted, true));
        let during_commit = classify(&interrupted, true);
        assert_eq!((during_commit.failure, during_commit.session_lost), (Failure::Indeterminate, true));
    }

    #[test]
    fn lists_are_comma_separated_text() {
        assert_eq!(parse_list("1,-2,30").unwrap(), vec![1, -2, 30]);
        assert_eq!(parse_list("1,,2").unwrap_err().failure, Failure::Fatal);
    }
}
