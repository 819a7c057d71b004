//! Isolation levels, by name.
//!
//! Owns: [`Isolation`] and its names. Does not own what each level does: visibility is in `version_chain.rs`, the
//! first-updater and first-committer rules in `version_chain.rs` too, waiting in `lock_wait.rs`, what a write does
//! after waiting in `txn.rs`, and SSI in `ssi.rs`. The levels are Berenson et al. 1995's
//! READ COMMITTED and SNAPSHOT ISOLATION and SSI (Cahill et al. 2008) for SERIALIZABLE; they behave like
//! PostgreSQL's read committed, repeatable read and serializable respectively (Ports & Grittner 2012).

use std::fmt;
use std::str::FromStr;

/// A transaction's isolation level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Isolation {
    /// Each statement sees the latest committed data; never uncommitted data. A write to a key another running
    /// transaction has written waits for it to end and then acts on the newest committed version: an append extends
    /// that list (no append is lost, as with PostgreSQL's re-evaluated `v = v || x`), an insert or delete re-checks
    /// the row, a predicate delete or update re-evaluates its predicate, and a blind write overwrites it (so a lost
    /// update, Hermitage's P4, is possible, as in PostgreSQL).
    ReadCommitted,
    /// One snapshot taken at `begin`. A write to a key another running transaction has written waits for it; if it
    /// commits, the write fails with [`crate::Error::WriteConflict`] (first committer wins), as does a write to a
    /// key committed after the snapshot; if it rolls back, the write proceeds. PostgreSQL's repeatable read.
    SnapshotIsolation,
    /// Snapshot isolation plus serializable snapshot isolation's dangerous-structure check.
    Serializable,
}

impl Isolation {
    /// Every level, weakest first.
    pub const ALL: [Isolation; 3] = [Isolation::ReadCommitted, Isolation::SnapshotIsolation, Isolation::Serializable];

    /// The level's name as the CLI spells it.
    pub fn name(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "read-committed",
            Isolation::SnapshotIsolation => "snapshot-isolation",
            Isolation::Serializable => "serializable",
        }
    }
}

impl fmt::Display for Isolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error for an isolation name the engine does not offer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown isolation level {name:?}; expected read-committed, snapshot-isolation (or repeatable-read) or serializable"
)]
pub struct ParseIsolationError {
    /// The name that did not parse.
    pub name: String,
}

impl FromStr for Isolation {
    type Err = ParseIsolationError;

    /// Parses a level name. `repeatable-read` is accepted as snapshot isolation because that is what PostgreSQL's
    /// repeatable read is, and the CLI offers both spellings.
    fn from_str(s: &str) -> Result<Isolation, ParseIsolationError> {
        match s {
            "repeatable-read" => Ok(Isolation::SnapshotIsolation),
            _ => Isolation::ALL
                .into_iter()
                .find(|i| i.name() == s)
                .ok_or_else(|| ParseIsolationError { name: s.to_owned() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for i in Isolation::ALL {
            assert_eq!(i.to_string().parse::<Isolation>(), Ok(i));
        }
        assert_eq!("repeatable-read".parse::<Isolation>(), Ok(Isolation::SnapshotIsolation));
        assert!("snapshot".parse::<Isolation>().is_err());
    }
}
