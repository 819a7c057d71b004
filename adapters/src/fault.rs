//! What a failed statement means for a history, in the shape both SQL adapters (PostgreSQL, MariaDB)
//! share: the connection is gone, the server refused with an error code of its own kind, or the client
//! failed on its own ([`Fault`]); and the one answer both give when a statement's fate is unknown
//! ([`unknown_outcome`]). This module owns those; which codes mean what is each adapter's.

use crate::session::{Failure, TxnError};

/// What went wrong, as far as a history cares; `Code` is the server's kind of error code (SQLSTATE for
/// PostgreSQL, an error number for MariaDB).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fault<Code> {
    /// The connection is gone: closed, broken, or ended by the server (each adapter says which of its
    /// errors mean so).
    Lost,
    /// The server answered with an error, with this code.
    Server(Code),
    /// The client failed on its own (a value it could not decode, a protocol error, bad parameters).
    Client,
}

/// An error after which the session is replaced and the transaction's fate is unknown only if it was
/// committing: before COMMIT nothing has taken effect (aborted), in answer to COMMIT it may have
/// (indeterminate).
pub(crate) fn unknown_outcome(committing: bool, cause: String, message: String) -> TxnError {
    TxnError {
        failure: if committing { Failure::Indeterminate } else { Failure::Aborted },
        cause,
        message,
        session_lost: true,
    }
}

/// A lost connection: the server rolls back a transaction whose connection is gone, unless its COMMIT
/// got there first.
pub(crate) fn connection_lost(committing: bool, message: String) -> TxnError {
    unknown_outcome(committing, "connection lost".into(), message)
}
