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
}
