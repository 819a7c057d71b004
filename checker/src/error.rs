//! Why a check could not run: a model or anomaly name it does not know, or micro-ops the workload cannot
//! read. These are input errors, never verdicts: a history the checker cannot interpret is not valid or
//! invalid, it is unreadable.

use histories::Position;
use thiserror::Error;

/// A check that could not run.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CheckError {
    /// `--model` named no model Elle knows.
    #[error("unknown consistency model {name:?}; known models are: {known}")]
    UnknownModel {
        /// The name given.
        name: String,
        /// The names known.
        known: String,
    },
    /// `--anomaly` named no anomaly Elle knows.
    #[error("unknown anomaly {name:?}; known anomalies are: {known}")]
    UnknownAnomaly {
        /// The name given.
        name: String,
        /// The names known.
        known: String,
    },
    /// An operation's micro-ops do not fit the workload.
    #[error("{at}: {message}")]
    Workload {
        /// Where the operation is in its file.
        at: Position,
        /// What does not fit, and what was expected.
        message: String,
    },
    /// Online checking with retirement: a transaction's completion names a key its invocation did not,
    /// after a fence retired the key. The fence held only if every transaction's invocation names what
    /// its completion does (a client records the call it made); without that, what a round retired may
    /// have taken part in an anomaly, and no verdict is given.
    #[error("{at}: {message}")]
    FenceLied {
        /// Where the completion is in its file.
        at: Position,
        /// Which transaction and key.
        message: String,
    },
    /// A register history checked while it grows placed a transaction at a commit position a retired
    /// transaction held: the whole history's check orders neither by it and says so (`incompatible-order`),
    /// which the rounds, holding only one of them, cannot; no verdict is given.
    #[error("{at}: {message}")]
    CommitPositionReused {
        /// Where the completion is in its file.
        at: Position,
        /// Which transaction and position.
        message: String,
    },
}
