//! Keys: what a micro-op names. A history's keys are all integers or all strings (Elle refuses a mix,
//! and so do we: see [`crate::well_formed`]). This module owns the key type and its text forms; it does
//! not decide which keys a workload uses.

use std::fmt;

use serde::{Serialize, Serializer};

/// A key of a micro-op: an integer or a string.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Key {
    /// An integer key, as Elle's generators produce.
    Int(i64),
    /// A string key, as SQL adapters or hand-written histories may use.
    Str(Box<str>),
}

impl Key {
    /// The name of this key's type, for error messages about mixed key types.
    pub fn type_name(&self) -> &'static str {
        match self {
            Key::Int(_) => "integer",
            Key::Str(_) => "string",
        }
    }

    /// Reads a key from a JSON object's member name: members are always strings in JSON, so a name
    /// that is a decimal integer stands for an integer key.
    pub fn from_member_name(name: &str) -> Key {
        match name.parse::<i64>() {
            Ok(i) => Key::Int(i),
            Err(_) => Key::Str(name.into()),
        }
    }
}

impl From<i64> for Key {
    fn from(i: i64) -> Self {
        Key::Int(i)
    }
}

impl From<&str> for Key {
    fn from(s: &str) -> Self {
        Key::Str(s.into())
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Int(i) => write!(f, "{i}"),
            Key::Str(s) => write!(f, "{s:?}"),
        }
    }
}

impl Serialize for Key {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Key::Int(i) => serializer.serialize_i64(*i),
            Key::Str(s) => serializer.serialize_str(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_names_that_are_integers_become_integer_keys() {
        assert_eq!(Key::from_member_name("12"), Key::Int(12));
        assert_eq!(Key::from_member_name("-3"), Key::Int(-3));
        assert_eq!(Key::from_member_name("x"), Key::Str("x".into()));
        assert_eq!(Key::from_member_name("1.5"), Key::Str("1.5".into()));
    }

    #[test]
    fn string_keys_display_quoted_so_1_and_quoted_1_differ() {
        assert_eq!(Key::Int(1).to_string(), "1");
        assert_eq!(Key::from("1").to_string(), "\"1\"");
    }
}
