//! The transaction state of a SQL session, kept on the client side so that SQLite and PostgreSQL behave
//! alike, and like the engine: a failed statement ends its transaction at once (the adapter rolls it
//! back, so no lock outlives the failure and a `fail` certainly had no effect); the session then waits
//! for `rollback`, or for a `commit` that fails as PostgreSQL's does (it answers COMMIT in a failed
//! transaction with ROLLBACK); a session whose connection is lost refuses every later call, so the
//! runner replaces it. The adapters' connections run each call directly and classify their own errors;
//! this module only sequences them.

use std::sync::Arc;

use histories::{Key, Predicate, Rows};

use crate::level::Level;
use crate::session::{Change, Failure, KillSwitch, Record, Session, TxnError};

enum State {
    Idle,
    Open,
    /// A statement failed and the transaction was rolled back; only `rollback` or `commit` ends it.
    Failed,
    /// The connection is gone (killed, or broken), with the error that said so.
    Lost(TxnError),
}

/// A [`Session`] that keeps the transaction state around a connection (itself a [`Session`] that runs
/// each call as it comes, without state).
pub(crate) struct Tracked<C> {
    conn: C,
    state: State,
}

impl<C: Session> Tracked<C> {
    pub(crate) fn new(conn: C) -> Tracked<C> {
        Tracked { conn, state: State::Idle }
    }

    /// Runs a statement of the open transaction.
    fn statement<T>(&mut self, run: impl FnOnce(&mut C) -> Result<T, TxnError>) -> Result<T, TxnError> {
        match &self.state {
            State::Open => {}
            State::Idle => return Err(no_transaction()),
            State::Failed => return Err(in_failed_transaction()),
            State::Lost(cause) => return Err(lost_earlier(cause)),
        }
        run(&mut self.conn).map_err(|e| self.end(e, State::Failed))
    }

    /// Ends the transaction after `error`: rolls it back (SQLite, for one, may keep a transaction open
    /// after a busy statement or COMMIT) and moves to `next`, or to `Lost` when the connection is gone.
    fn end(&mut self, mut error: TxnError, next: State) -> TxnError {
        if !error.session_lost
            && let Err(rollback) = self.conn.rollback()
        {
            // A transaction that could not be rolled back may still hold locks: give up its connection.
            error.session_lost = true;
            error.message = format!("{}; then ROLLBACK failed: {rollback}", error.message);
        }
        self.state = if error.session_lost { State::Lost(error.clone()) } else { next };
        error
    }
}

fn no_transaction() -> TxnError {
    TxnError::fatal("no-transaction", "a statement, or COMMIT, was issued outside a transaction")
}

fn in_failed_transaction() -> TxnError {
    TxnError::aborted(
        "in-failed-transaction",
        "an earlier statement failed and the transaction was rolled back; commands are ignored until ROLLBACK",
    )
}

/// Every call after the connection was lost fails the same way: certainly without effect, since
/// nothing reaches the system.
fn lost_earlier(cause: &TxnError) -> TxnError {
    TxnError {
        failure: Failure::Aborted,
        cause: cause.cause.clone(),
        message: format!("the session was lost earlier: {}", cause.message),
        session_lost: true,
    }
}

impl<C: Session> Session for Tracked<C> {
    fn begin(&mut self, level: Level) -> Result<(), TxnError> {
        match &self.state {
            State::Idle => {}
            State::Open | State::Failed => {
                return Err(TxnError::fatal("transaction-in-progress", "BEGIN inside a transaction"));
            }
            State::Lost(cause) => return Err(lost_earlier(cause)),
        }
        match self.conn.begin(level) {
            Ok(()) => {
                self.state = State::Open;
                Ok(())
            }
            Err(e) => Err(self.end(e, State::Idle)),
        }
    }

    fn read_list(&mut self, key: &Key) -> Result<Vec<i64>, TxnError> {
        self.statement(|c| c.read_list(key))
    }

    fn append(&mut self, key: &Key, element: i64) -> Result<(), TxnError> {
        self.statement(|c| c.append(key, element))
    }

    fn read(&mut self, key: &Key) -> Result<Option<i64>, TxnError> {
        self.statement(|c| c.read(key))
    }

    fn write(&mut self, key: &Key, value: i64) -> Result<(), TxnError> {
        self.statement(|c| c.write(key, value))
    }

    fn write_versioned(&mut self, key: &Key, value: i64) -> Result<Option<i64>, TxnError> {
        self.statement(|c| c.write_versioned(key, value))
    }

    fn insert(&mut self, key: &Key, value: i64) -> Result<(), TxnError> {
        self.statement(|c| c.insert(key, value))
    }

    fn delete(&mut self, key: &Key) -> Result<bool, TxnError> {
        self.statement(|c| c.delete(key))
    }

    fn scan(&mut self, predicate: &Predicate) -> Result<Rows, TxnError> {
        self.statement(|c| c.scan(predicate))
    }

    fn read_record(&mut self, key: &Key) -> Result<Option<Record>, TxnError> {
        self.statement(|c| c.read_record(key))
    }

    fn update_field(&mut self, key: &Key, field: usize, value: &[u8]) -> Result<bool, TxnError> {
        self.statement(|c| c.update_field(key, field, value))
    }

    fn delete_where(&mut self, predicate: &Predicate) -> Result<Rows, TxnError> {
        self.statement(|c| c.delete_where(predicate))
    }

    fn update_where(&mut self, predicate: &Predicate, change: Change) -> Result<Vec<(Key, i64, i64)>, TxnError> {
        self.statement(|c| c.update_where(predicate, change))
    }

    fn commit(&mut self) -> Result<(), TxnError> {
        match &self.state {
            State::Open => {}
            State::Idle => return Err(no_transaction()),
            State::Failed => {
                self.state = State::Idle;
                return Err(in_failed_transaction());
            }
            State::Lost(cause) => return Err(lost_earlier(cause)),
        }
        match self.conn.commit() {
            Ok(()) => {
                self.state = State::Idle;
                Ok(())
            }
            Err(e) => Err(self.end(e, State::Idle)),
        }
    }

    fn rollback(&mut self) -> Result<(), TxnError> {
        match &self.state {
            State::Idle => Ok(()),
            State::Failed => {
                self.state = State::Idle;
                Ok(())
            }
            State::Lost(cause) => Err(lost_earlier(cause)),
            State::Open => match self.conn.rollback() {
                Ok(()) => {
                    self.state = State::Idle;
                    Ok(())
                }
                Err(e) => {
                    // The system rolls back a transaction whose connection is gone; either way it had no effect.
                    let e = TxnError { failure: Failure::Aborted, session_lost: true, ..e };
                    self.state = State::Lost(e.clone());
                    Err(e)
                }
            },
        }
    }

    fn commit_order(&self) -> Option<i64> {
        self.conn.commit_order()
    }

    fn kill_switch(&self) -> Option<Arc<dyn KillSwitch>> {
        self.conn.kill_switch()
    }

    fn node(&self) -> Option<&str> {
        self.conn.node()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::*;

    /// A connection that answers each call from a script (`Ok` when the script is empty) and logs it.
    #[derive(Default)]
    struct Scripted {
        answers: VecDeque<Result<(), TxnError>>,
        log: Vec<&'static str>,
    }

    impl Scripted {
        fn answer(&mut self, call: &'static str) -> Result<(), TxnError> {
            self.log.push(call);
            self.answers.pop_front().unwrap_or(Ok(()))
        }
    }

    impl Session for Scripted {
        fn begin(&mut self, _: Level) -> Result<(), TxnError> {
            self.answer("begin")
        }
        fn read_list(&mut self, _: &Key) -> Result<Vec<i64>, TxnError> {
            self.answer("read_list").map(|()| Vec::new())
        }
        fn append(&mut self, _: &Key, _: i64) -> Result<(), TxnError> {
            self.answer("append")
        }
        fn read(&mut self, _: &Key) -> Result<Option<i64>, TxnError> {
            self.answer("read").map(|()| None)
        }
        fn write(&mut self, _: &Key, _: i64) -> Result<(), TxnError> {
            self.answer("write")
        }
        fn insert(&mut self, _: &Key, _: i64) -> Result<(), TxnError> {
            self.answer("insert")
        }
        fn delete(&mut self, _: &Key) -> Result<bool, TxnError> {
            self.answer("delete").map(|()| false)
        }
        fn scan(&mut self, _: &Predicate) -> Result<Rows, TxnError> {
            self.answer("scan").map(|()| Rows::new())
        }
        fn delete_where(&mut self, _: &Predicate) -> Result<Rows, TxnError> {
            self.answer("delete_where").map(|()| Rows::new())
        }
        fn update_where(&mut self, _: &Predicate, _: Change) -> Result<Vec<(Key, i64, i64)>, TxnError> {
            self.answer("update_where").map(|()| Vec::new())
        }
        fn commit(&mut self) -> Result<(), TxnError> {
            self.answer("commit")
        }
        fn rollback(&mut self) -> Result<(), TxnError> {
            self.answer("rollback")
        }
        fn kill_switch(&self) -> Option<Arc<dyn KillSwitch>> {
            None
        }
    }

    fn tracked(answers: impl IntoIterator<Item = Result<(), TxnError>>) -> Tracked<Scripted> {
        Tracked::new(Scripted { answers: answers.into_iter().collect(), log: Vec::new() })
    }

    fn busy() -> TxnError {
        TxnError::aborted("SQLITE_BUSY", "database is locked")
    }

    fn lost() -> TxnError {
        TxnError { session_lost: true, ..TxnError::aborted("connection lost", "connection closed") }
    }

    #[test]
    fn a_failed_statement_rolls_back_and_commit_then_fails_as_postgresql_answers_rollback() {
        let mut s = tracked([Ok(()), Err(busy())]);
        s.begin(Level::Serializable).unwrap();
        assert_eq!(s.write(&Key::Int(1), 1).unwrap_err(), busy());
        assert_eq!(s.conn.log, ["begin", "write", "rollback"], "the adapter rolled back at once");
        assert_eq!(s.read(&Key::Int(1)).unwrap_err().cause, "in-failed-transaction");
        let err = s.commit().unwrap_err();
        assert_eq!((err.failure, err.cause.as_str()), (Failure::Aborted, "in-failed-transaction"));
        s.begin(Level::Serializable).unwrap();
        s.commit().unwrap();
        assert_eq!(s.conn.log, ["begin", "write", "rollback", "begin", "commit"], "nothing else reached the system");
    }

    #[test]
    fn rollback_after_a_failure_ends_the_transaction_without_reaching_the_system() {
        let mut s = tracked([Ok(()), Err(busy())]);
        s.begin(Level::Serializable).unwrap();
        s.append(&Key::Int(1), 1).unwrap_err();
        s.rollback().unwrap();
        s.rollback().unwrap();
        assert_eq!(s.conn.log, ["begin", "append", "rollback"]);
    }

    #[test]
    fn a_busy_commit_is_rolled_back_because_sqlite_keeps_the_transaction_open() {
        let mut s = tracked([Ok(()), Err(busy())]);
        s.begin(Level::Serializable).unwrap();
        assert_eq!(s.commit().unwrap_err(), busy());
        assert_eq!(s.conn.log, ["begin", "commit", "rollback"]);
        s.begin(Level::Serializable).unwrap();
    }

    #[test]
    fn a_lost_connection_refuses_every_later_call_without_reaching_it() {
        let mut s = tracked([Ok(()), Err(lost())]);
        s.begin(Level::Serializable).unwrap();
        assert_eq!(s.read(&Key::Int(1)).unwrap_err(), lost());
        for err in [s.commit().unwrap_err(), s.rollback().unwrap_err(), s.begin(Level::Serializable).unwrap_err()] {
            assert!(err.session_lost);
            assert_eq!((err.failure, err.cause.as_str()), (Failure::Aborted, "connection lost"));
        }
        assert_eq!(s.conn.log, ["begin", "read"], "no rollback on a lost connection, and nothing after");
    }

    #[test]
    fn a_rollback_that_fails_gives_up_the_connection() {
        let mut s = tracked([Ok(()), Err(busy()), Err(TxnError::fatal("sqlite-error", "disk I/O error"))]);
        s.begin(Level::Serializable).unwrap();
        let err = s.write(&Key::Int(1), 1).unwrap_err();
        assert!(err.session_lost);
        assert_eq!((err.failure, err.cause.as_str()), (Failure::Aborted, "SQLITE_BUSY"));
        assert!(s.begin(Level::Serializable).unwrap_err().session_lost);
    }

    #[test]
    fn a_failed_begin_leaves_the_session_idle() {
        let mut s = tracked([Err(busy())]);
        assert_eq!(s.begin(Level::Serializable).unwrap_err(), busy());
        assert_eq!(s.read(&Key::Int(1)).unwrap_err().failure, Failure::Fatal, "no transaction is open");
        s.begin(Level::Serializable).unwrap();
    }

    #[test]
    fn statements_outside_a_transaction_and_nested_begins_are_faults_of_the_run() {
        let mut s = tracked([]);
        assert_eq!(s.scan(&Predicate::True).unwrap_err().cause, "no-transaction");
        assert_eq!(s.commit().unwrap_err().failure, Failure::Fatal);
        s.rollback().unwrap();
        s.begin(Level::ReadCommitted).unwrap();
        assert_eq!(s.begin(Level::ReadCommitted).unwrap_err().cause, "transaction-in-progress");
        assert_eq!(s.conn.log, ["begin"]);
    }
}
