//! Helpers shared by the engine's integration tests.

#![allow(dead_code)]

use engine::{Defect, Engine, Error, Isolation, Key, Value};

/// Integer key `i`.
pub fn k(i: i64) -> Key {
    Key::Int(i)
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

/// Whether `result` is a write-write conflict.
pub fn is_write_conflict<T: std::fmt::Debug>(result: &Result<T, Error>) -> bool {
    matches!(result, Err(Error::WriteConflict { .. }))
}
