//! Isolation levels as a run requests them (`--isolation`), and how a system runs a requested level: natively,
//! mapped to a level it does have (with the reason), or not at all. A report shows the mapping; nothing is
//! silently mapped.

use std::fmt;
use std::str::FromStr;

/// A requested isolation level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// Read uncommitted (for systems that have it, such as MariaDB; others run something stronger).
    ReadUncommitted,
    /// Read committed.
    ReadCommitted,
    /// Snapshot isolation.
    SnapshotIsolation,
    /// Repeatable read (as systems name it; often snapshot isolation).
    RepeatableRead,
    /// Serializable.
    Serializable,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 5] = [
        Level::ReadUncommitted,
        Level::ReadCommitted,
        Level::SnapshotIsolation,
        Level::RepeatableRead,
        Level::Serializable,
    ];

    /// The level's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Level::ReadUncommitted => "read-uncommitted",
            Level::ReadCommitted => "read-committed",
            Level::SnapshotIsolation => "snapshot-isolation",
            Level::RepeatableRead => "repeatable-read",
            Level::Serializable => "serializable",
        }
    }

    /// The consistency model (Elle's name) a system running this level promises, which a run checks by
    /// default.
    pub fn promised_model(self) -> &'static str {
        self.name()
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown level name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown isolation level {name:?}: expected read-uncommitted, read-committed, snapshot-isolation, repeatable-read or serializable"
)]
pub struct ParseLevelError {
    /// The name given.
    pub name: String,
}

impl FromStr for Level {
    type Err = ParseLevelError;

    fn from_str(s: &str) -> Result<Level, ParseLevelError> {
        Level::ALL.into_iter().find(|l| l.name() == s).ok_or_else(|| ParseLevelError { name: s.to_string() })
    }
}

/// What a system's own documentation says of one of its levels, when that is weaker than the model the
/// level's name maps to (`repeatable-read` is checked as Elle's `repeatable-read`, which forbids
/// G2-item; PostgreSQL documents its REPEATABLE READ as a snapshot, which allows write skew). Reports
/// quote it, with its link, beside the verdict: the verdict still follows the model checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocumentedBehaviour {
    /// The system (`postgres`, `mariadb`, as `System::name` says).
    pub system: &'static str,
    /// The level.
    pub level: Level,
    /// The documentation's words, quoted exactly.
    pub quote: &'static str,
    /// Where they are.
    pub link: &'static str,
}

/// Every documented weaker guarantee, as data: one row per system and level.
pub const DOCUMENTED_BEHAVIOUR: &[DocumentedBehaviour] = &[
    DocumentedBehaviour {
        system: "postgres",
        level: Level::RepeatableRead,
        quote: "The Repeatable Read mode provides a rigorous guarantee that each transaction sees a completely stable view of the database. However, this view will not necessarily always be consistent with some serial (one at a time) execution of concurrent transactions of the same level.",
        link: "https://www.postgresql.org/docs/current/transaction-iso.html#XACT-REPEATABLE-READ",
    },
    // Only *consistent* (non-locking) reads read the snapshot: writes and locking reads see the latest
    // committed rows, so MariaDB's repeatable read is not snapshot isolation (lost updates, write skew).
    DocumentedBehaviour {
        system: "mariadb",
        level: Level::RepeatableRead,
        quote: "All consistent reads within the same transaction read the snapshot established by the first read.",
        link: "https://mariadb.com/kb/en/transactions-repeatable-read",
    },
];

/// What `system`'s documentation says of `level`, if it names a weaker guarantee than the level's model.
pub fn documented_behaviour(system: &str, level: Level) -> Option<&'static DocumentedBehaviour> {
    DOCUMENTED_BEHAVIOUR.iter().find(|d| d.system == system && d.level == level)
}

/// How a system runs a requested level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LevelSupport {
    /// The system has this level; `name` is what it calls it (e.g. `REPEATABLE READ`).
    Native {
        /// The system's own name for the level.
        name: String,
    },
    /// The system runs a different level in its place.
    Mapped {
        /// The system's level that runs instead.
        to: String,
        /// Why, in a sentence.
        why: String,
    },
    /// The system cannot run this level at all.
    Unsupported {
        /// Why, in a sentence.
        why: String,
    },
}

impl LevelSupport {
    /// Whether a run at this level can go ahead.
    pub fn is_runnable(&self) -> bool {
        !matches!(self, LevelSupport::Unsupported { .. })
    }

    /// A one-line description for reports and `run.json`.
    pub fn describe(&self) -> String {
        match self {
            LevelSupport::Native { name } => format!("native: {name}"),
            LevelSupport::Mapped { to, why } => format!("mapped to {to}: {why}"),
            LevelSupport::Unsupported { why } => format!("unsupported: {why}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postgres_repeatable_read_is_documented_weaker_and_its_serializable_is_not() {
        let d = documented_behaviour("postgres", Level::RepeatableRead).expect("documented");
        assert!(d.quote.contains("not necessarily always be consistent with some serial"));
        assert!(d.link.starts_with("https://www.postgresql.org/docs/"));
        assert_eq!(documented_behaviour("postgres", Level::Serializable), None);
        assert_eq!(documented_behaviour("engine", Level::RepeatableRead), None);
    }

    #[test]
    fn mariadb_repeatable_read_is_documented_as_snapshot_reads_only() {
        let d = documented_behaviour("mariadb", Level::RepeatableRead).expect("documented");
        assert!(d.quote.starts_with("All consistent reads"), "{}", d.quote);
        assert!(d.link.starts_with("https://mariadb.com/"));
        assert_eq!(documented_behaviour("mariadb", Level::Serializable), None);
    }

    #[test]
    fn read_uncommitted_parses_and_is_checked_as_elles_read_uncommitted() {
        assert_eq!("read-uncommitted".parse::<Level>(), Ok(Level::ReadUncommitted));
        assert_eq!(Level::ReadUncommitted.promised_model(), "read-uncommitted");
        assert!("dirty".parse::<Level>().unwrap_err().to_string().contains("read-uncommitted"));
    }
}
