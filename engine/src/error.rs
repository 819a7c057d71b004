//! The engine's errors.
//!
//! Owns: [`Error`], hand-written and `#[non_exhaustive]` after redb's `src/error.rs`, and [`Conflict`], the evidence
//! behind an SSI serialization failure. Does not own when they are raised. The concurrency errors follow
//! PostgreSQL's SQLSTATEs, and each aborts the transaction and is worth retrying ([`Error::is_retryable`]):
//!
//! - [`Error::WriteConflict`], PostgreSQL's 40001 "could not serialize access due to concurrent update": above read
//!   committed, a write to a key that a transaction committed after this one's snapshot, whether it committed
//!   before the write or while the write waited for it.
//! - [`Error::SerializationFailure`], 40001 "... due to read/write dependencies among transactions": at
//!   serializable, SSI's dangerous-structure check.
//! - [`Error::Deadlock`], 40P01 "deadlock detected": a write that would wait for a transaction that (transitively)
//!   waits for this one.
//! - [`Error::LockTimeout`], 55P03 (`lock_timeout`): a wait that outlived [`crate::EngineConfig::lock_timeout`], a
//!   last resort that a running workload never reaches.
//!
//! A statement that names a key the engine was told to forget fails with [`Error::ForgottenKey`] (or
//! [`Error::ForgottenRange`]): not a conflict but a broken promise of the caller's.
//!
//! Any other statement error aborts the transaction too (PostgreSQL's "current transaction is aborted"), and the
//! caller must `rollback` before `begin`.

use std::fmt;
use std::time::Duration;

use crate::key::{KeyRange, RowKey};
use crate::snapshot::EngineTxnId;

/// The engine's result type.
pub type Result<T> = std::result::Result<T, Error>;

/// Why a statement, a commit or a begin failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// SSI found a dangerous structure (Cahill et al. 2008) and aborted this transaction.
    #[error("could not serialize access due to read/write dependencies among transactions: {conflict}")]
    SerializationFailure {
        /// The dangerous structure, with the transactions and keys on its edges.
        conflict: Box<Conflict>,
    },
    /// Above read committed, `other` committed a version of `key` after this transaction's snapshot, so writing the
    /// key would overwrite a version this transaction never saw (first committer wins). Raised at the write,
    /// either at once or after waiting for `other` to commit, as PostgreSQL's repeatable read and serializable do;
    /// never at read committed, which waits and then writes over the newest version.
    #[error("could not serialize access due to concurrent update of key {key} by {other}")]
    WriteConflict {
        /// The key both transactions wrote.
        key: RowKey,
        /// The transaction whose write came first.
        other: EngineTxnId,
    },
    /// Writing `key` would wait for a transaction that already waits, directly or through others, for this one.
    /// Detected before blocking, so nothing ever hangs; the transaction whose wait would close the cycle aborts, and
    /// the others proceed.
    #[error("deadlock detected: {}", deadlock_text(key, cycle))]
    Deadlock {
        /// The key this transaction tried to write.
        key: RowKey,
        /// The cycle, starting with this transaction: each waits for the next, and the last for the first.
        cycle: Vec<EngineTxnId>,
    },
    /// Another session killed this one; its transaction was rolled back and the session is unusable. A statement
    /// waiting for another transaction's write is woken and fails with this.
    #[error("connection lost: the session was killed")]
    Killed,
    /// A statement, `commit` or `rollback` was issued outside a transaction.
    #[error("no transaction is in progress")]
    NoTransaction,
    /// `begin` was issued inside a transaction.
    #[error("a transaction is already in progress")]
    TransactionInProgress,
    /// An earlier statement failed, so the transaction was aborted; only `rollback` is accepted.
    #[error("current transaction is aborted, commands ignored until rollback")]
    InFailedTransaction,
    /// `insert` found the key already present.
    #[error("key {key} already exists")]
    AlreadyExists {
        /// The key that was present.
        key: RowKey,
    },
    /// `append` found a value that is not a list.
    #[error("cannot append to key {key}: it holds a {found}, not a list")]
    TypeMismatch {
        /// The key appended to.
        key: RowKey,
        /// The type of the value found there.
        found: &'static str,
    },
    /// A wait for a lock lasted this long and gave up: a write waiting for another transaction's uncommitted
    /// version of the key, or, with the `global-lock` defect, `begin` waiting for the one transaction lock. A last
    /// resort so that a transaction abandoned without commit or rollback (or a scripted interleaving on one thread)
    /// fails instead of hanging; deadlocks are detected without it.
    #[error("timed out after {waited:?} waiting for a lock")]
    LockTimeout {
        /// How long `begin` waited.
        waited: Duration,
    },
    /// A statement named a key the engine was told to forget ([`crate::Engine::forget`]): its data is gone, so
    /// reading it as absent would be a lie. The caller broke its promise never to name the key again.
    #[error("key {key} was forgotten: the workload promised never to name it again")]
    ForgottenKey {
        /// The key named.
        key: RowKey,
    },
    /// A scan (or a predicate statement) covered a range holding a key the engine was told to forget.
    #[error("range {range} holds a forgotten key: the workload promised never to name it again")]
    ForgottenRange {
        /// The range scanned.
        range: KeyRange,
    },
}

impl Error {
    /// Whether retrying the transaction from `begin` may succeed: the error is a concurrency conflict, not a fault in
    /// the transaction itself.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Error::SerializationFailure { .. }
                | Error::WriteConflict { .. }
                | Error::Deadlock { .. }
                | Error::LockTimeout { .. }
        )
    }

    /// A short, stable name for the error's kind, used to count aborts by cause (`serialization-failure`,
    /// `write-conflict`, ...).
    pub fn cause(&self) -> &'static str {
        match self {
            Error::SerializationFailure { .. } => "serialization-failure",
            Error::WriteConflict { .. } => "write-conflict",
            Error::Deadlock { .. } => "deadlock",
            Error::Killed => "killed",
            Error::NoTransaction => "no-transaction",
            Error::TransactionInProgress => "transaction-in-progress",
            Error::InFailedTransaction => "in-failed-transaction",
            Error::AlreadyExists { .. } => "already-exists",
            Error::TypeMismatch { .. } => "type-mismatch",
            Error::LockTimeout { .. } => "lock-timeout",
            Error::ForgottenKey { .. } | Error::ForgottenRange { .. } => "forgotten-key",
        }
    }
}

/// "writing key 1: T3 would wait for T2, which waits for T3".
fn deadlock_text(key: &RowKey, cycle: &[EngineTxnId]) -> String {
    let mut text = format!("writing key {key}:");
    for (i, t) in cycle.iter().enumerate() {
        let next = cycle[(i + 1) % cycle.len()];
        text += &match i {
            0 => format!(" {t} would wait for {next}"),
            _ => format!(", which waits for {next}"),
        };
    }
    text
}

/// What an rw-antidependency edge was read through: one key, or a scanned range (a predicate read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Via {
    /// The reader read this key and the writer wrote it.
    RowKey(RowKey),
    /// The reader scanned this range and the writer wrote the given key inside it.
    Range(KeyRange, RowKey),
}

impl fmt::Display for Via {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Via::RowKey(k) => write!(f, "key {k}"),
            Via::Range(r, k) => write!(f, "key {k} in scanned range {r}"),
        }
    }
}

/// A dangerous structure `t1 -rw-> t2 -rw-> t3` in which `t3` committed first (Cahill et al. 2008, with Ports &
/// Grittner 2012's commit-ordering refinement). `t1` and `t3` may be the same transaction (write skew).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The reader of the first antidependency.
    pub t1: EngineTxnId,
    /// The pivot: it wrote what `t1` read, and read what `t3` wrote.
    pub t2: EngineTxnId,
    /// The transaction that committed first.
    pub t3: EngineTxnId,
    /// What `t1` read that `t2` wrote, when known.
    pub t1_t2: Option<Via>,
    /// What `t2` read that `t3` wrote, when known.
    pub t2_t3: Option<Via>,
    /// The transaction this error aborted (one of the three).
    pub victim: EngineTxnId,
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let edge = |via: &Option<Via>| via.as_ref().map_or_else(|| "?".to_owned(), |v| v.to_string());
        write!(
            f,
            "dangerous structure {} -rw({})-> {} -rw({})-> {}, and {} committed first; {} aborted",
            self.t1,
            edge(&self.t1_t2),
            self.t2,
            edge(&self.t2_t3),
            self.t3,
            self.t3,
            self.victim
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadlock_names_its_cycle() {
        let e = Error::Deadlock { key: RowKey::Int(1), cycle: vec![EngineTxnId(3), EngineTxnId(2)] };
        assert_eq!(e.to_string(), "deadlock detected: writing key 1: T3 would wait for T2, which waits for T3");
        assert_eq!((e.cause(), e.is_retryable()), ("deadlock", true));
    }
}
