//! Values and value predicates.
//!
//! Owns: [`Value`] (an integer register, an integer list for list-append, or bytes for YCSB-style records) and
//! [`RowPredicate`], the `WHERE` clause of a scan (`value = 30`, `value % 3 = 0`), matching Elle's closed-predicate
//! workload (`"true"`, `["=", v]`, `["mod", m, r]`, as histories write them). Does not own: how a predicate read is
//! locked for SSI (`ssi.rs`; the lock covers the whole key range, like PostgreSQL's relation-level fallback, so it
//! never misses a row that starts or stops matching).

use std::fmt;

/// A stored value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Value {
    /// An integer register.
    Int(i64),
    /// A list of integers, grown by [`crate::EngineSession::append`].
    List(Vec<i64>),
    /// Opaque bytes, e.g. a YCSB record of ten 100-byte fields.
    Bytes(Vec<u8>),
}

impl Value {
    /// The name of this value's type, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Int(_) => "int",
            Value::List(_) => "list",
            Value::Bytes(_) => "bytes",
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(i) => write!(f, "{i}"),
            Value::List(l) => write!(f, "{l:?}"),
            Value::Bytes(b) => write!(f, "<{} bytes>", b.len()),
        }
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Int(i)
    }
}

impl From<Vec<i64>> for Value {
    fn from(l: Vec<i64>) -> Value {
        Value::List(l)
    }
}

/// Which rows of a scanned range a predicate read returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RowPredicate {
    /// Every row (`WHERE true`).
    All,
    /// Integer rows equal to the given value (`WHERE value = v`).
    Eq(i64),
    /// Integer rows whose value modulo `modulus` is `remainder` (`WHERE value % m = r`, with SQL's truncating `%`).
    Mod {
        /// The divisor; a zero divisor matches nothing rather than failing, as the predicate is data.
        modulus: i64,
        /// The wanted remainder.
        remainder: i64,
    },
}

impl RowPredicate {
    /// Whether `value` satisfies the predicate. Only [`RowPredicate::All`] matches non-integer values.
    pub fn matches(&self, value: &Value) -> bool {
        match (self, value) {
            (RowPredicate::All, _) => true,
            (RowPredicate::Eq(want), Value::Int(v)) => v == want,
            (RowPredicate::Mod { modulus, remainder }, Value::Int(v)) => {
                v.checked_rem(*modulus).is_some_and(|r| r == *remainder)
            }
            _ => false,
        }
    }
}

impl fmt::Display for RowPredicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowPredicate::All => write!(f, "true"),
            RowPredicate::Eq(v) => write!(f, "value = {v}"),
            RowPredicate::Mod { modulus, remainder } => write!(f, "value % {modulus} = {remainder}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predicates_match_like_sql() {
        assert!(RowPredicate::Eq(30).matches(&Value::Int(30)));
        assert!(!RowPredicate::Eq(30).matches(&Value::Int(31)));
        let mod3 = RowPredicate::Mod { modulus: 3, remainder: 0 };
        assert!(mod3.matches(&Value::Int(9)));
        assert!(!mod3.matches(&Value::Int(10)));
        assert!(!mod3.matches(&Value::List(vec![3])));
        assert!(!RowPredicate::Mod { modulus: 0, remainder: 0 }.matches(&Value::Int(0)));
        assert!(RowPredicate::All.matches(&Value::Bytes(vec![])));
        assert_eq!(mod3.to_string(), "value % 3 = 0");
    }
}
