//! Counters a caller needs to report a run honestly: commits, aborts by cause, and how often a write waited.
//!
//! Owns: the counters and their snapshot type [`EngineStats`], and [`StorageStats`], which show that garbage collection
//! keeps memory flat. Does not own when anything is counted (`session.rs` counts each transaction's end once,
//! `txn.rs` each wait).
//! Counters are relaxed atomics: they are tallies, not synchronisation.

use crate::error::Error;
use crate::sync::{AtomicU64, Ordering};

/// Running tallies, updated once per transaction end.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    commits: AtomicU64,
    rollbacks: AtomicU64,
    serialization_failures: AtomicU64,
    write_conflicts: AtomicU64,
    deadlocks: AtomicU64,
    killed: AtomicU64,
    other_aborts: AtomicU64,
    lock_waits: AtomicU64,
}

impl Counters {
    pub(crate) fn commit(&self) {
        self.commits.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn rollback(&self) {
        self.rollbacks.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a write that found another transaction's uncommitted version and waited for it.
    pub(crate) fn lock_wait(&self) {
        self.lock_waits.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a transaction the engine aborted because of `cause`.
    pub(crate) fn abort(&self, cause: &Error) {
        let counter = match cause {
            Error::SerializationFailure { .. } => &self.serialization_failures,
            Error::WriteConflict { .. } => &self.write_conflicts,
            Error::Deadlock { .. } => &self.deadlocks,
            Error::Killed => &self.killed,
            _ => &self.other_aborts,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn snapshot(&self) -> EngineStats {
        EngineStats {
            commits: self.commits.load(Ordering::Relaxed),
            rollbacks: self.rollbacks.load(Ordering::Relaxed),
            serialization_failures: self.serialization_failures.load(Ordering::Relaxed),
            write_conflicts: self.write_conflicts.load(Ordering::Relaxed),
            deadlocks: self.deadlocks.load(Ordering::Relaxed),
            killed: self.killed.load(Ordering::Relaxed),
            other_aborts: self.other_aborts.load(Ordering::Relaxed),
            lock_waits: self.lock_waits.load(Ordering::Relaxed),
        }
    }
}

/// How an engine's transactions have ended so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EngineStats {
    /// Transactions committed.
    pub commits: u64,
    /// Transactions the client rolled back (or dropped) of its own accord.
    pub rollbacks: u64,
    /// Transactions SSI aborted (or doomed) with [`Error::SerializationFailure`].
    pub serialization_failures: u64,
    /// Transactions aborted because a concurrent commit wrote a key they then wrote ([`Error::WriteConflict`]).
    pub write_conflicts: u64,
    /// Transactions aborted because their wait would have closed a cycle of waits ([`Error::Deadlock`]).
    pub deadlocks: u64,
    /// Transactions rolled back because their session was killed.
    pub killed: u64,
    /// Transactions aborted by any other statement error (a duplicate insert, a type mismatch, a lock timeout).
    pub other_aborts: u64,
    /// Writes that waited for another transaction's uncommitted version of their key (each wait counts once, so
    /// a write woken and made to wait again counts twice). Not a transaction end.
    pub lock_waits: u64,
}

impl EngineStats {
    /// Every transaction the engine aborted, whatever the cause (client rollbacks excluded).
    pub fn aborts(&self) -> u64 {
        self.serialization_failures + self.write_conflicts + self.deadlocks + self.killed + self.other_aborts
    }
}

/// What the engine is holding in memory, to show that garbage collection keeps it flat.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StorageStats {
    /// Keys with a version chain.
    pub keys: usize,
    /// Versions over all chains, committed and uncommitted.
    pub versions: usize,
    /// The longest chain.
    pub max_chain: usize,
    /// Per-key SIREAD locks held on chains.
    pub siread_locks: usize,
    /// Serializable transactions SSI still tracks (running, or committed and overlapping a running one).
    pub tracked_transactions: usize,
    /// Predicate (range) SIREAD locks.
    pub predicate_locks: usize,
    /// Keys forgotten so far (`Engine::forget`), each counted once.
    pub forgotten_keys: u64,
    /// Entries the forgotten-key set holds (runs of consecutive keys, and keys kept whole): its size.
    pub forgotten_entries: usize,
    /// Forgotten keys whose chains wait for a running transaction's uncommitted version to end.
    pub forgotten_waiting: usize,
}
