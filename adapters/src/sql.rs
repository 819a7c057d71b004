//! What the two SQL adapters (SQLite, PostgreSQL) share in their SQL: how a [`Key`] is stored in a
//! `text` column, and how a [`Predicate`] becomes a `WHERE` clause. A history's keys are all integers or
//! all strings, but a table column has one type, so each key is stored with its type as a prefix
//! (`i:42`, `s:x`): the text round-trips to the same key, and `Key::Int(1)` never meets `Key::Str("1")`.
//! Predicates keep SQL's own semantics: `%` truncates toward zero in both systems, as
//! [`Predicate::matches`] does, so a recorded predicate read agrees with what the database returned.

use histories::{Key, Predicate};

use crate::session::TxnError;

/// A key as stored in a `text` column.
pub(crate) fn key_text(key: &Key) -> String {
    match key {
        Key::Int(i) => format!("i:{i}"),
        Key::Str(s) => format!("s:{s}"),
    }
}

/// The key a `text` column holds; a fatal error if the text is not one [`key_text`] wrote.
pub(crate) fn key_of_text(text: &str) -> Result<Key, TxnError> {
    if let Some(s) = text.strip_prefix("s:") {
        return Ok(Key::Str(s.into()));
    }
    text.strip_prefix("i:").and_then(|i| i.parse::<i64>().ok()).map(Key::Int).ok_or_else(|| {
        TxnError::fatal("bad-key", format!("the key column holds {text:?}, which isocheck did not write"))
    })
}

/// A predicate as a `WHERE` condition on the register value column `v`, with its parameters;
/// `placeholder(i)` writes the system's marker for the `i`th parameter (1-based).
pub(crate) fn predicate_condition(predicate: &Predicate, placeholder: impl Fn(usize) -> String) -> (String, Vec<i64>) {
    match *predicate {
        Predicate::True => ("true".to_string(), Vec::new()),
        Predicate::Eq(x) => (format!("v = {}", placeholder(1)), vec![x]),
        // `v % 0` is an error in PostgreSQL and NULL in SQLite; `Predicate::matches` says no row matches.
        Predicate::Mod { m: 0, .. } => ("false".to_string(), Vec::new()),
        Predicate::Mod { m, r } => (format!("v % {} = {}", placeholder(1), placeholder(2)), vec![m, r]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_with_their_type() {
        for key in [Key::Int(0), Key::Int(-7), Key::Int(i64::MAX), Key::from("1"), Key::from(""), Key::from("s:i:1")] {
            assert_eq!(key_of_text(&key_text(&key)).unwrap(), key, "{key}");
        }
        assert_ne!(key_text(&Key::Int(1)), key_text(&Key::from("1")));
    }

    #[test]
    fn text_isocheck_did_not_write_is_a_fatal_error() {
        for text in ["1", "i:x", "i:", "x:1"] {
            let err = key_of_text(text).unwrap_err();
            assert_eq!(err.failure, crate::Failure::Fatal, "{text}");
        }
    }

    #[test]
    fn predicates_become_conditions_on_v() {
        let dollar = |i: usize| format!("${i}");
        assert_eq!(predicate_condition(&Predicate::True, dollar), ("true".to_string(), vec![]));
        assert_eq!(predicate_condition(&Predicate::Eq(-3), dollar), ("v = $1".to_string(), vec![-3]));
        assert_eq!(
            predicate_condition(&Predicate::Mod { m: 3, r: -1 }, |i| format!("?{i}")),
            ("v % ?1 = ?2".to_string(), vec![3, -1])
        );
        assert_eq!(predicate_condition(&Predicate::Mod { m: 0, r: 0 }, dollar), ("false".to_string(), vec![]));
    }
}
