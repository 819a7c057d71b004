//! What a MariaDB error means for a history: whether the connection is gone, the server refused the
//! statement (by error number) or the client failed on its own ([`Fault`]), and from that and whether
//! the session was committing, the [`TxnError`] the history records ([`classify`]). This module owns
//! that classification; running statements is the session's.

use mysql::Conn;
use mysql::prelude::Queryable;

use crate::fault::{connection_lost, unknown_outcome};
use crate::session::{Failure, TxnError};

/// What went wrong, as far as a history cares: a server error carries its error number.
pub(super) type Fault = crate::fault::Fault<u16>;

/// Server error numbers that mean the connection is gone: 1053 server shutdown, 1152 and 1158-1161 network
/// errors, 1927 connection killed, 2006 gone away, 2013 lost during query, 4031 disconnected for
/// inactivity (MySQL).
pub(super) const LOST: [u16; 10] = [1053, 1152, 1158, 1159, 1160, 1161, 1927, 2006, 2013, 4031];

/// Galera's "WSREP has not yet prepared node for application use" (ER_UNKNOWN_COM_ERROR, reused).
pub(super) const NOT_PREPARED: u16 = 1047;

/// Whether a Galera node accepts statements now (`wsrep_ready = ON`).
pub(super) fn galera_ready(conn: &mut Conn) -> Result<bool, mysql::Error> {
    let ready: Option<(String, String)> = conn.query_first("SHOW GLOBAL STATUS LIKE 'wsrep_ready'")?;
    Ok(ready.is_some_and(|(_, value)| value.eq_ignore_ascii_case("ON")))
}

/// "Got error N during COMMIT" (ER_ERROR_DURING_COMMIT).
pub(super) const ERROR_DURING_COMMIT: u16 = 1180;

/// Server error numbers that say the run itself is broken, not the transaction: no such database
/// (1049), table (1146) or column (1054), a syntax error (1064), access denied (1044, 1045, 1142, 1143).
pub(super) const BROKEN_RUN: [u16; 8] = [1044, 1045, 1049, 1054, 1064, 1142, 1143, 1146];

pub(super) fn fault(e: &mysql::Error) -> Fault {
    match e {
        mysql::Error::IoError(_) | mysql::Error::CodecError(_) => Fault::Lost,
        mysql::Error::DriverError(
            mysql::DriverError::ConnectTimeout
            | mysql::DriverError::CouldNotConnect(_)
            | mysql::DriverError::PacketOutOfSync
            | mysql::DriverError::UnexpectedPacket
            | mysql::DriverError::Timeout,
        ) => Fault::Lost,
        mysql::Error::MySqlError(m) if LOST.contains(&m.code) => Fault::Lost,
        mysql::Error::MySqlError(m) => Fault::Server(m.code),
        _ => Fault::Client,
    }
}

/// What an error means for the history.
///
/// | error                                            | before COMMIT             | in answer to COMMIT         |
/// |--------------------------------------------------|---------------------------|-----------------------------|
/// | connection lost (I/O, 1927 killed, 2013, ...)    | Aborted, session lost     | Indeterminate, session lost |
/// | a run that cannot work (1146 no table, 1064, ...) | Fatal                     | Fatal                       |
/// | 1047 (Galera: node not prepared)                 | Aborted, session lost     | Indeterminate, session lost |
/// | 1180 (error during COMMIT)                       | Aborted                   | Indeterminate               |
/// | any other server error (1213, 1205, 1020, 1062)  | Aborted (its number)      | Aborted (its number)        |
/// | an error of the client itself                    | Fatal                     | Fatal                       |
///
/// After 1213 InnoDB has rolled back the whole transaction; after 1205 and most others only the
/// statement: either way the session's transaction state rolls back the rest at once, so the abort
/// certainly had no effect.
pub(super) fn classify(fault: Fault, committing: bool, message: String) -> TxnError {
    match fault {
        // The server rolls back a transaction whose connection is gone, unless its COMMIT got there first.
        Fault::Lost => connection_lost(committing, message),
        Fault::Server(code) if BROKEN_RUN.contains(&code) => TxnError::fatal(code.to_string(), message),
        // Galera's node is not (or no longer) part of the primary component: it refuses before COMMIT,
        // but answering COMMIT it may come after the writeset was replicated. The session goes to a
        // node that can serve it.
        Fault::Server(NOT_PREPARED) => unknown_outcome(committing, NOT_PREPARED.to_string(), message),
        // "Got error N during COMMIT": the commit failed somewhere past the point where the server can
        // say whether its writes replicated (Galera answers it when the group is lost mid-commit).
        Fault::Server(ERROR_DURING_COMMIT) if committing => TxnError {
            failure: Failure::Indeterminate,
            cause: ERROR_DURING_COMMIT.to_string(),
            message,
            session_lost: false,
        },
        Fault::Server(code) => TxnError::aborted(code.to_string(), message),
        Fault::Client => TxnError::fatal("mysql-client", message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Failure;

    fn classified(fault: Fault, committing: bool) -> (Failure, String, bool) {
        let e = classify(fault, committing, "message".into());
        (e.failure, e.cause, e.session_lost)
    }

    #[test]
    fn the_classification_table() {
        let cases = [
            (Fault::Lost, false, (Failure::Aborted, "connection lost", true)),
            (Fault::Lost, true, (Failure::Indeterminate, "connection lost", true)),
            (Fault::Server(1213), false, (Failure::Aborted, "1213", false)),
            (Fault::Server(1213), true, (Failure::Aborted, "1213", false)),
            (Fault::Server(1205), false, (Failure::Aborted, "1205", false)),
            (Fault::Server(1020), false, (Failure::Aborted, "1020", false)),
            (Fault::Server(1062), false, (Failure::Aborted, "1062", false)),
            (Fault::Server(1406), false, (Failure::Aborted, "1406", false)),
            (Fault::Server(1047), false, (Failure::Aborted, "1047", true)),
            (Fault::Server(1047), true, (Failure::Indeterminate, "1047", true)),
            (Fault::Server(1180), false, (Failure::Aborted, "1180", false)),
            (Fault::Server(1180), true, (Failure::Indeterminate, "1180", false)),
            (Fault::Server(1146), false, (Failure::Fatal, "1146", false)),
            (Fault::Server(1064), true, (Failure::Fatal, "1064", false)),
            (Fault::Client, false, (Failure::Fatal, "mysql-client", false)),
        ];
        for (fault, committing, (failure, cause, lost)) in cases {
            let what = format!("{fault:?} committing={committing}");
            assert_eq!(classified(fault, committing), (failure, cause.to_string(), lost), "{what}");
        }
    }

    #[test]
    fn server_errors_that_end_the_connection_are_lost_connections() {
        for code in LOST {
            let e = mysql::Error::MySqlError(mysql::MySqlError { state: "HY000".into(), message: "gone".into(), code });
            assert_eq!(fault(&e), Fault::Lost, "{code}");
        }
        let io = mysql::Error::IoError(std::io::Error::from(std::io::ErrorKind::UnexpectedEof));
        assert_eq!(fault(&io), Fault::Lost);
        let deadlock = mysql::Error::MySqlError(mysql::MySqlError {
            state: "40001".into(),
            message: "Deadlock".into(),
            code: 1213,
        });
        assert_eq!(fault(&deadlock), Fault::Server(1213));
    }
}
