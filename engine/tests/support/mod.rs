//! Helpers shared by the engine's integration tests.

#![allow(dead_code)]

use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use engine::{Defect, Engine, EngineSession, Error, Isolation, RowKey, SessionHandle, Value};

/// Integer key `i`.
pub fn k(i: i64) -> RowKey {
    RowKey::Int(i)
}

/// `Some(Value::Int(i))`, what a read of an integer register returns.
pub fn int(i: i64) -> Option<Value> {
    Some(Value::Int(i))
}

/// An engine with `defect` planted, holding the committed rows `rows`.
pub fn engine_with(defect: Option<Defect>, rows: &[(i64, i64)]) -> Engine {
    let engine = Engine::with_defect(defect);
    load(&engine, rows);
    engine
}

/// Commits `rows` in one transaction.
pub fn load(engine: &Engine, rows: &[(i64, i64)]) {
    let mut s = engine.session();
    s.begin(Isolation::SnapshotIsolation).expect("begin setup");
    for (key, value) in rows {
        s.write(*key, *value).expect("setup write");
    }
    s.commit().expect("setup commit");
}

/// The committed value of every key in `keys`, read in a fresh transaction.
pub fn committed(engine: &Engine, keys: &[i64]) -> Vec<Option<Value>> {
    let mut s = engine.session();
    s.begin(Isolation::SnapshotIsolation).expect("begin check");
    let values = keys.iter().map(|key| s.read(&k(*key)).expect("check read")).collect();
    s.commit().expect("check commit");
    values
}

/// Whether `result` is a serialization failure (SSI abort).
pub fn is_serialization_failure<T: std::fmt::Debug>(result: &Result<T, Error>) -> bool {
    matches!(result, Err(Error::SerializationFailure { .. }))
}

/// Whether `result` is a write-write conflict ("could not serialize access due to concurrent update").
pub fn is_write_conflict<T: std::fmt::Debug>(result: &Result<T, Error>) -> bool {
    matches!(result, Err(Error::WriteConflict { .. }))
}

/// Whether `result` is a deadlock.
pub fn is_deadlock<T: std::fmt::Debug>(result: &Result<T, Error>) -> bool {
    matches!(result, Err(Error::Deadlock { .. }))
}

/// How long a test lets a statement take to block, or to return once unblocked, before it fails.
const PATIENCE: Duration = Duration::from_secs(5);

/// A statement that blocked: it runs on its own thread, with its session, until the transaction it waits for ends.
pub struct Blocked<T> {
    handle: SessionHandle,
    done: mpsc::Receiver<(EngineSession, Result<T, Error>)>,
}

/// Runs `statement` on `session` on a new thread and returns once the engine reports it waiting for `holder`'s
/// transaction, as a scripted step that blocks. Panics if the statement returns instead, or waits for another.
pub fn blocks<T: Send + std::fmt::Debug + 'static>(
    mut session: EngineSession,
    holder: &EngineSession,
    statement: impl FnOnce(&mut EngineSession) -> Result<T, Error> + Send + 'static,
) -> Blocked<T> {
    let holder = holder.txn_id().expect("the holder runs a transaction");
    let handle = session.handle();
    let (tx, done) = mpsc::channel();
    thread::spawn(move || {
        let result = statement(&mut session);
        // The receiver is gone only if the test already failed.
        let _ = tx.send((session, result));
    });
    let deadline = Instant::now() + PATIENCE;
    while handle.waiting_for().is_none() {
        if let Ok((_, result)) = done.try_recv() {
            panic!("the statement returned {result:?} instead of blocking");
        }
        assert!(Instant::now() < deadline, "the statement neither blocked nor returned");
        thread::yield_now();
    }
    assert_eq!(handle.waiting_for(), Some(holder), "blocked on the wrong transaction");
    Blocked { handle, done }
}

impl<T> Blocked<T> {
    /// Whether the statement is still waiting.
    pub fn is_waiting(&self) -> bool {
        self.handle.waiting_for().is_some()
    }

    /// The session's kill handle.
    pub fn handle(&self) -> &SessionHandle {
        &self.handle
    }

    /// Waits for the statement to return (the transaction it waited for has ended); gives back the session and
    /// the statement's result.
    pub fn finish(self) -> (EngineSession, Result<T, Error>) {
        self.done.recv_timeout(PATIENCE).expect("the statement is still blocked")
    }
}
