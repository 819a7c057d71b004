//! The planted defects, by name.
//!
//! Owns: the [`Defect`] names and their parsing (the names `--defect` takes). Does not own the defects themselves:
//! each is a few lines at the place the real bug would live, and the docs on each variant say where, so a reader can
//! check that the engine with the defect is the correct engine with one mistake, not a separate code path.

use std::fmt;
use std::str::FromStr;

/// A deliberate bug the engine can be built with, so that isocheck's checker can be shown to catch it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Defect {
    /// One lock is held from `begin` to `commit`/`rollback` (in `engine.rs`, `EngineInner::begin_txn`): every result is
    /// correct but transactions never overlap. This is the bug that motivated isocheck's overlap test.
    GlobalLock,
    /// Serializable silently runs as snapshot isolation: the SSI pre-commit check (`ssi.rs`, `Ssi::check`)
    /// returns early, so write skew commits.
    SsiOff,
    /// First committer wins is skipped (`version_chain.rs`, `ChainState::write_conflict_check`): a writer still waits
    /// for a concurrent writer of the key, but when that one commits, or committed after the writer's snapshot, it
    /// overwrites it instead of failing, so concurrent read-modify-writes lose updates under snapshot isolation
    /// and serializable.
    NoFirstCommitterWins,
    /// The visibility check also accepts other transactions' uncommitted versions (`version_chain.rs`,
    /// `ChainState::visible`).
    DirtyRead,
    /// A commit publishes its timestamp before installing its writes (`commit.rs`, `EngineInner::install`), so a reader can
    /// see some of a transaction's writes and not others.
    NonAtomicCommit,
}

impl Defect {
    /// Every defect, in the order the CLI lists them.
    pub const ALL: [Defect; 5] =
        [Defect::GlobalLock, Defect::SsiOff, Defect::NoFirstCommitterWins, Defect::DirtyRead, Defect::NonAtomicCommit];

    /// The defect's name as the CLI spells it (`--defect NAME`).
    pub fn name(self) -> &'static str {
        match self {
            Defect::GlobalLock => "global-lock",
            Defect::SsiOff => "ssi-off",
            Defect::NoFirstCommitterWins => "no-first-committer-wins",
            Defect::DirtyRead => "dirty-read",
            Defect::NonAtomicCommit => "non-atomic-commit",
        }
    }

    /// One sentence on what the defect does, for help texts and reports.
    pub fn description(self) -> &'static str {
        match self {
            Defect::GlobalLock => "one lock held from begin to commit: correct results, fully serialized",
            Defect::SsiOff => "serializable silently runs as snapshot isolation",
            Defect::NoFirstCommitterWins => "a writer overwrites a concurrent commit instead of failing: lost updates",
            Defect::DirtyRead => "reads see other transactions' uncommitted writes",
            Defect::NonAtomicCommit => "a commit's writes become visible one by one",
        }
    }
}

impl fmt::Display for Defect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error for a defect name that is not one of [`Defect::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown defect {name:?}; expected one of: global-lock, ssi-off, no-first-committer-wins, dirty-read, non-atomic-commit"
)]
pub struct ParseDefectError {
    /// The name that did not parse.
    pub name: String,
}

impl FromStr for Defect {
    type Err = ParseDefectError;

    fn from_str(s: &str) -> Result<Defect, ParseDefectError> {
        Defect::ALL.into_iter().find(|d| d.name() == s).ok_or_else(|| ParseDefectError { name: s.to_owned() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_match_the_design() {
        let names: Vec<String> = Defect::ALL.iter().map(|d| d.to_string()).collect();
        assert_eq!(names, ["global-lock", "ssi-off", "no-first-committer-wins", "dirty-read", "non-atomic-commit"]);
        for d in Defect::ALL {
            assert_eq!(d.name().parse::<Defect>(), Ok(d));
        }
        assert_eq!("ssi_off".parse::<Defect>(), Err(ParseDefectError { name: "ssi_off".into() }));
    }
}
