//! The interface every system under test implements: a [`System`] prepares fresh tables and opens
//! [`Session`]s; a session runs one transaction at a time, one statement at a time. Failures say whether
//! the transaction certainly had no effect ([`Failure::Aborted`], recorded as `fail`) or may have
//! ([`Failure::Indeterminate`], recorded as `info`), so a lost connection never becomes a false anomaly.
//!
//! Data model: three tables. *Lists* hold a list of integers per key (list-append: `append`, `read_list`).
//! *Registers* hold one integer per key (rw-register, bank, write skew, predicate workloads: `read`,
//! `write`, `insert`, `delete`, `scan`). *Records* hold a fixed number of byte fields per key, as YCSB's
//! `usertable` does (YCSB-A: `read_record`, `update_field`), created and loaded by
//! [`System::prepare_records`]; a system without them keeps the default methods, which refuse.

use std::sync::Arc;

use histories::{Key, Predicate, Rows};

use crate::level::{Level, LevelSupport};

/// A system under test.
pub trait System: Send + Sync {
    /// `engine`, `sqlite` or `postgres`.
    fn name(&self) -> &'static str;

    /// The system and its version, as precisely as it reports it.
    fn version(&self) -> String;

    /// How the system runs a requested level.
    fn level(&self, requested: Level) -> LevelSupport;

    /// Server settings that change what a level means, as the system read them (MariaDB:
    /// `innodb_snapshot_isolation`), for `run.json`; none by default.
    fn system_settings(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }

    /// Why this system runs one writing transaction at a time by design, quoting its documentation, or
    /// `None` for a system that lets writers run at once. A run whose transactions took as long as run
    /// one after another is flagged `fully-serialized` either way; this says, beside the flag, that the
    /// system documents it rather than that a defect causes it.
    fn serialized_by_design(&self) -> Option<&'static str> {
        None
    }

    /// Creates fresh, empty tables for a run, with these initial register rows.
    fn prepare(&self, registers: &[(Key, i64)]) -> Result<(), AdapterError>;

    /// Opens a client session.
    fn connect(&self) -> Result<Box<dyn Session>, AdapterError>;

    /// Told that no transaction will ever name these list keys again (the list-append workload's fences,
    /// once every transaction naming them has completed), the system may drop them to keep its memory
    /// flat; returns how many it forgot. By default it keeps them and returns 0. A system that forgets a
    /// key must fail loudly (a [`Failure::Fatal`] error), never read it as empty, if it is named again.
    fn forget_lists(&self, keys: &[Key]) -> usize {
        let _ = keys;
        0
    }

    /// [`System::forget_lists`] for register keys (the rw-register workload's fences).
    fn forget_registers(&self, keys: &[Key]) -> usize {
        let _ = keys;
        0
    }

    /// Creates a fresh record table of `fields` byte fields per record (YCSB's `usertable`), loaded with
    /// these records, beside the tables [`System::prepare`] made (call it after `prepare`).
    fn prepare_records(&self, fields: usize, records: &[(Key, Record)]) -> Result<(), AdapterError> {
        let _ = (fields, records);
        Err(AdapterError::Unavailable { system: self.name(), message: "this system has no record table".into() })
    }
}

/// A record: its fields' bytes, in field order.
pub type Record = Vec<Vec<u8>>;

/// One client's connection: one transaction at a time.
pub trait Session: Send {
    /// Begins a transaction at a level (as [`System::level`] maps it).
    fn begin(&mut self, level: Level) -> Result<(), TxnError>;

    /// Reads a list (empty if the key has none).
    fn read_list(&mut self, key: &Key) -> Result<Vec<i64>, TxnError>;

    /// Appends an element to a list, in one statement (like SQL `v = v || x`).
    fn append(&mut self, key: &Key, element: i64) -> Result<(), TxnError>;

    /// Reads a register (`None` if it has no row).
    fn read(&mut self, key: &Key) -> Result<Option<i64>, TxnError>;

    /// Writes a register, creating its row if needed.
    fn write(&mut self, key: &Key, value: i64) -> Result<(), TxnError>;

    /// Writes a register as [`Session::write`] does and says which version of the key the write
    /// installed, as the system numbers a key's versions (larger is later), where it numbers them exactly:
    /// every committed write of a key gets a number larger than the version it replaced (PostgreSQL's and
    /// MariaDB's per-row version counter, incremented in the writing statement under the row's lock).
    /// `None` where the system does not. A history records it on the write micro-op of an `ok`
    /// completion only (see docs/CONTRACTS.md): a transaction that did not commit may leave its number to
    /// another writer.
    fn write_versioned(&mut self, key: &Key, value: i64) -> Result<Option<i64>, TxnError> {
        self.write(key, value).map(|()| None)
    }

    /// Inserts a register row; fails if it exists.
    fn insert(&mut self, key: &Key, value: i64) -> Result<(), TxnError>;

    /// Deletes a register row; whether it existed.
    fn delete(&mut self, key: &Key) -> Result<bool, TxnError>;

    /// Every register row whose value satisfies the predicate (a predicate read).
    fn scan(&mut self, predicate: &Predicate) -> Result<Rows, TxnError>;

    /// Reads every field of a record (YCSB's read); `None` if there is no such record.
    fn read_record(&mut self, key: &Key) -> Result<Option<Record>, TxnError> {
        let _ = key;
        Err(no_records())
    }

    /// Replaces one field of a record, in one statement (YCSB's update); whether the record exists.
    fn update_field(&mut self, key: &Key, field: usize, value: &[u8]) -> Result<bool, TxnError> {
        let _ = (key, field, value);
        Err(no_records())
    }

    /// Deletes every register row whose value satisfies the predicate, in one statement (SQL's
    /// `DELETE ... WHERE`); returns the rows it deleted, with the values it saw.
    fn delete_where(&mut self, predicate: &Predicate) -> Result<Rows, TxnError>;

    /// Changes every register row whose value satisfies the predicate, in one statement (SQL's
    /// `UPDATE ... WHERE`); returns each row changed as (key, value seen, value written).
    fn update_where(&mut self, predicate: &Predicate, change: Change) -> Result<Vec<(Key, i64, i64)>, TxnError>;

    /// Commits.
    fn commit(&mut self) -> Result<(), TxnError>;

    /// The position in the system's own commit order of the transaction this session last committed
    /// (larger is later), where the system exposes one that orders every key's versions exactly; `None`
    /// when it does not, or the last commit took no position or failed. A history records it as the
    /// completion's `commit_order` (white-box evidence, see docs/CONTRACTS.md), so an inexact order must
    /// never be reported here.
    fn commit_order(&self) -> Option<i64> {
        None
    }

    /// Rolls back; does nothing if no transaction is open.
    fn rollback(&mut self) -> Result<(), TxnError>;

    /// A switch another thread can use to break this session's connection (the nemesis), if the system
    /// has one.
    fn kill_switch(&self) -> Option<Arc<dyn KillSwitch>>;

    /// The node of a cluster this session is connected to (Galera: `n1`, `n2`, ...), recorded as each
    /// op's `node`; `None` for a system of one node.
    fn node(&self) -> Option<&str> {
        None
    }
}

fn no_records() -> TxnError {
    TxnError::fatal("no-record-table", "this system has no record table")
}

/// How `update_where` changes a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// `SET v = x`. The value seen must follow from the predicate, so it needs an equality predicate.
    Set(i64),
    /// `SET v = v + d`.
    Add(i64),
}

impl Change {
    /// The value written over `old`.
    pub fn apply(self, old: i64) -> i64 {
        match self {
            Change::Set(x) => x,
            Change::Add(d) => old.wrapping_add(d),
        }
    }

    /// The value seen, from the value written (SQL's `RETURNING` gives only the new value): it follows
    /// from the change for `Add`, and from an equality predicate for `Set`.
    pub fn value_seen(self, predicate: &Predicate, new: i64) -> Result<i64, TxnError> {
        match (self, predicate) {
            (Change::Add(d), _) => Ok(new.wrapping_sub(d)),
            (Change::Set(_), Predicate::Eq(old)) => Ok(*old),
            (Change::Set(_), other) => Err(Self::set_needs_equality(other)),
        }
    }

    /// The error for a SET over a predicate that does not say what the rows held.
    pub fn set_needs_equality(predicate: &Predicate) -> TxnError {
        TxnError::fatal(
            "unsupported",
            format!(
                "update_where with SET needs an equality predicate to know the value it overwrote, not {predicate}"
            ),
        )
    }
}

/// Reaches a session from another thread: breaks its connection, or asks whether its statement is
/// waiting for a lock.
pub trait KillSwitch: Send + Sync {
    /// Breaks it: the session's current transaction is rolled back (or its commit's fate is unknown), and
    /// its next statement fails with `session_lost`.
    fn kill(&self);

    /// Whether the session's statement is waiting for another transaction's lock right now, if the
    /// system can tell (`None` if it cannot). A statement that is merely slow is not waiting.
    fn waiting(&self) -> Option<bool> {
        None
    }
}

/// What a failure means for the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The transaction certainly had no effect: recorded as `fail`.
    Aborted,
    /// It may or may not have committed (the connection broke during commit): recorded as `info`.
    Indeterminate,
    /// Not a transaction outcome but a fault of the run (bad SQL, a missing table): the run stops.
    Fatal,
}

/// A statement that failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{cause}: {message}")]
pub struct TxnError {
    /// What it means for the history.
    pub failure: Failure,
    /// A short, stable cause for counting aborts: `40001`, `40P01`, `SQLITE_BUSY`, `SQLITE_BUSY_SNAPSHOT`,
    /// `serialization-failure`, `write-conflict`, `connection lost`, ...
    pub cause: String,
    /// The system's own message.
    pub message: String,
    /// Whether the session is unusable now and must be replaced.
    pub session_lost: bool,
}

impl TxnError {
    /// An abort with this cause.
    pub fn aborted(cause: impl Into<String>, message: impl Into<String>) -> TxnError {
        TxnError { failure: Failure::Aborted, cause: cause.into(), message: message.into(), session_lost: false }
    }

    /// A fatal fault of the run.
    pub fn fatal(cause: impl Into<String>, message: impl Into<String>) -> TxnError {
        TxnError { failure: Failure::Fatal, cause: cause.into(), message: message.into(), session_lost: false }
    }
}

/// A system that could not be prepared or reached.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AdapterError {
    /// The system could not be reached or set up.
    #[error("{system}: {message}")]
    Unavailable {
        /// Which system.
        system: &'static str,
        /// What went wrong.
        message: String,
    },
    /// The system is gone for good, with its data (an exec program that died): reconnecting cannot
    /// help, and a run can only end.
    #[error("{system}: {message}")]
    Gone {
        /// Which system.
        system: &'static str,
        /// What went wrong.
        message: String,
    },
}
