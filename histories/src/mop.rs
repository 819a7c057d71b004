//! Micro-operations: the reads and writes inside one transaction, in Elle's shape (`["append", k, v]`,
//! `["r", k, v]`, `["w", k, v]`) plus the predicate micro-ops of Elle's `closed-predicate` workload
//! (`["insert", k, v]`, `["delete", k]`, `["rp", pred, rows]`). This module owns their model and their
//! JSON form; which micro-ops a workload allows is the checker's business.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

use crate::key::Key;
use crate::shared_slice::{BlockWriter, SharedSlice, too_long};
use crate::write_version::WriteVersion;

/// Rows returned by a predicate read, or fixed by an `init` op: keys to integer values.
pub type Rows = BTreeMap<Key, i64>;

/// What a read returned.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Observed {
    /// `null`: in an invoke or an `info` completion, not known; in an `ok` list read, the empty list;
    /// in an `ok` register read, the initial, never-written state.
    Nil,
    /// A list, as a list-append read returns it.
    List(SharedSlice<i64>),
    /// An integer, as a register read returns it.
    Int(i64),
}

/// A predicate of a predicate read, over a row's value (Elle's `closed-predicate` workload).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Predicate {
    /// Every row: `"true"`.
    True,
    /// Rows whose value equals this: `["=", v]`.
    Eq(i64),
    /// Rows whose value is `r` modulo `m`: `["mod", m, r]`.
    Mod {
        /// The modulus.
        m: i64,
        /// The remainder.
        r: i64,
    },
}

impl Predicate {
    /// Whether a row holding `value` satisfies this predicate.
    pub fn matches(&self, value: i64) -> bool {
        match *self {
            Predicate::True => true,
            Predicate::Eq(v) => value == v,
            // SQL's `%` truncates toward zero, and so does this, so a history agrees with the database.
            Predicate::Mod { m, r } => m != 0 && value.wrapping_rem(m) == r,
        }
    }
}

impl fmt::Display for Predicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Predicate::True => write!(f, "true"),
            Predicate::Eq(v) => write!(f, "value = {v}"),
            Predicate::Mod { m, r } => write!(f, "value mod {m} = {r}"),
        }
    }
}

/// One micro-operation of a transaction.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Mop {
    /// `["append", k, v]`: appends `v` to the list at `k`.
    Append {
        /// The list's key.
        key: Key,
        /// The element appended.
        value: i64,
    },
    /// `["r", k, v]`: reads a list or a register.
    Read {
        /// The key read.
        key: Key,
        /// What the read returned.
        value: Observed,
    },
    /// `["w", k, v]`: writes a register; `["w", k, v, version]` on a completion also says which version
    /// of the key the write installed, as the database numbered it (see [`Mop::Write::version`]).
    Write {
        /// The register's key.
        key: Key,
        /// The value written.
        value: i64,
        /// On a completion: the number the database gave the version this write installed, larger for
        /// later versions of the same key (white-box evidence of the key's version order, as a per-row
        /// version counter gives it; see docs/CONTRACTS.md). `None` when not recorded.
        version: Option<WriteVersion>,
    },
    /// `["insert", k, v]`: inserts a row (predicate workloads).
    Insert {
        /// The row's key.
        key: Key,
        /// The row's value.
        value: i64,
    },
    /// `["delete", k]`: deletes a row (predicate workloads).
    Delete {
        /// The row's key.
        key: Key,
    },
    /// `["rp", pred, {k: v, ...}]`: every row the predicate matched.
    PredicateRead {
        /// The predicate.
        predicate: Predicate,
        /// The rows returned; `None` when not known (an invoke or an `info` completion). Boxed, as
        /// predicate reads are rare: a micro-op is then 48 bytes rather than 56, in histories of
        /// millions of them.
        rows: Option<Box<Rows>>,
    },
}

impl Mop {
    /// A read's micro-op with its value unknown, as an invocation says it (`["r", k, nil]`, or a
    /// predicate read with no rows); `None` for any other micro-op.
    pub fn with_read_unknown(&self) -> Option<Mop> {
        match self {
            Mop::Read { key, .. } => Some(Mop::Read { key: key.clone(), value: Observed::Nil }),
            Mop::PredicateRead { predicate, .. } => Some(Mop::PredicateRead { predicate: *predicate, rows: None }),
            _ => None,
        }
    }

    /// The micro-op's name as it appears in a history (`append`, `r`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Mop::Append { .. } => "append",
            Mop::Read { .. } => "r",
            Mop::Write { .. } => "w",
            Mop::Insert { .. } => "insert",
            Mop::Delete { .. } => "delete",
            Mop::PredicateRead { .. } => "rp",
        }
    }

    /// The key this micro-op names; predicate reads name none.
    pub fn key(&self) -> Option<&Key> {
        match self {
            Mop::Append { key, .. }
            | Mop::Read { key, .. }
            | Mop::Write { key, .. }
            | Mop::Insert { key, .. }
            | Mop::Delete { key } => Some(key),
            Mop::PredicateRead { .. } => None,
        }
    }
}

impl fmt::Display for Mop {
    /// Elle's compact notation: `[append 3 12]`, `[r 4 [1 2 9]]`, `[r x nil]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mop::Append { key, value } => write!(f, "[append {key} {value}]"),
            Mop::Read { key, value } => write!(f, "[r {key} {}]", ObservedText(value)),
            Mop::Write { key, value, version: None } => write!(f, "[w {key} {value}]"),
            Mop::Write { key, value, version: Some(n) } => write!(f, "[w {key} {value} version {n}]"),
            Mop::Insert { key, value } => write!(f, "[insert {key} {value}]"),
            Mop::Delete { key } => write!(f, "[delete {key}]"),
            Mop::PredicateRead { predicate, rows } => {
                write!(f, "[rp ({predicate}) ")?;
                match rows {
                    None => write!(f, "nil]"),
                    Some(rows) => write!(f, "{}]", RowsText(rows)),
                }
            }
        }
    }
}

/// Displays an observed value as Elle does: `nil`, `7` or `[1 2 3]`.
pub struct ObservedText<'a>(pub &'a Observed);

impl fmt::Display for ObservedText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Observed::Nil => write!(f, "nil"),
            Observed::Int(i) => write!(f, "{i}"),
            Observed::List(list) => write!(f, "{}", ListText(list)),
        }
    }
}

/// Displays a list as Elle does: `[1 2 3]`.
pub struct ListText<'a>(pub &'a [i64]);

impl fmt::Display for ListText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[")?;
        for (i, x) in self.0.iter().enumerate() {
            if i > 0 {
                write!(f, " ")?;
            }
            write!(f, "{x}")?;
        }
        write!(f, "]")
    }
}

/// Displays rows as `{k v, k v}`.
pub struct RowsText<'a>(pub &'a Rows);

impl fmt::Display for RowsText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{")?;
        for (i, (k, v)) in self.0.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{k} {v}")?;
        }
        write!(f, "}}")
    }
}

impl Serialize for Observed {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Observed::Nil => s.serialize_none(),
            Observed::Int(i) => s.serialize_i64(*i),
            Observed::List(list) => list.serialize(s),
        }
    }
}

impl Serialize for Predicate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Predicate::True => s.serialize_str("true"),
            Predicate::Eq(v) => ("=", v).serialize(s),
            Predicate::Mod { m, r } => ("mod", m, r).serialize(s),
        }
    }
}

/// Serializes rows as a JSON object; integer keys become member names, as JSON requires.
pub(crate) struct RowsJson<'a>(pub &'a Rows);

impl Serialize for RowsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            match k {
                Key::Int(i) => map.serialize_entry(&i.to_string(), v)?,
                Key::Str(name) => map.serialize_entry(&**name, v)?,
            }
        }
        map.end()
    }
}

impl Serialize for Mop {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let len = match self {
            Mop::Delete { .. } => 2,
            Mop::Write { version: Some(_), .. } => 4,
            _ => 3,
        };
        let mut seq = s.serialize_seq(Some(len))?;
        seq.serialize_element(self.name())?;
        match self {
            Mop::Append { key, value } | Mop::Insert { key, value } => {
                seq.serialize_element(key)?;
                seq.serialize_element(value)?;
            }
            Mop::Write { key, value, version } => {
                seq.serialize_element(key)?;
                seq.serialize_element(value)?;
                if let Some(version) = version {
                    seq.serialize_element(version)?;
                }
            }
            Mop::Read { key, value } => {
                seq.serialize_element(key)?;
                seq.serialize_element(value)?;
            }
            Mop::Delete { key } => seq.serialize_element(key)?,
            Mop::PredicateRead { predicate, rows } => {
                seq.serialize_element(predicate)?;
                seq.serialize_element(&rows.as_deref().map(RowsJson))?;
            }
        }
        seq.end()
    }
}

// ---- Reading micro-ops from JSON -------------------------------------------------------------

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a key (an integer or a string)")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Key, E> {
        Ok(Key::Int(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Key, E> {
        i64::try_from(v)
            .map(Key::Int)
            .map_err(|_| E::custom(format!("key {v} does not fit in a 64-bit signed integer")))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
        Ok(Key::Str(v.into()))
    }
}

/// An integer value: the only values histories carry.
pub(crate) struct IntValue(pub i64);

impl<'de> Deserialize<'de> for IntValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(IntVisitor).map(IntValue)
    }
}

struct IntVisitor;

impl<'de> Visitor<'de> for IntVisitor {
    type Value = i64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an integer value")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<i64, E> {
        Ok(v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<i64, E> {
        i64::try_from(v).map_err(|_| E::custom(format!("value {v} does not fit in a 64-bit signed integer")))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<i64, E> {
        Err(E::custom(format!("non-integer value {v}: values must be integers")))
    }
}

/// A write's version number: an integer above `i64::MIN`, or `null` for none.
struct VersionNumber(Option<WriteVersion>);

impl<'de> Deserialize<'de> for VersionNumber {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct VersionVisitor;
        impl<'de> Visitor<'de> for VersionVisitor {
            type Value = Option<WriteVersion>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a write's version: an integer (the number the database gave the version it installed)")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Option<WriteVersion>, E> {
                WriteVersion::read(v).map(Some).map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Option<WriteVersion>, E> {
                i64::try_from(v)
                    .map(WriteVersion::new)
                    .map_err(|_| E::custom(format!("version {v} does not fit in a 64-bit signed integer")))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Option<WriteVersion>, E> {
                Ok(None)
            }
            fn visit_none<E: de::Error>(self) -> Result<Option<WriteVersion>, E> {
                Ok(None)
            }
        }
        d.deserialize_any(VersionVisitor).map(VersionNumber)
    }
}

/// A read's value: `null`, an integer or a list of integers.
impl<'de> Deserialize<'de> for Observed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ObservedVisitor)
    }
}

struct ObservedVisitor;

impl<'de> Visitor<'de> for ObservedVisitor {
    type Value = Observed;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a read value: null, an integer, or a list of integers")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Observed, E> {
        Ok(Observed::Nil)
    }

    fn visit_none<E: de::Error>(self) -> Result<Observed, E> {
        Ok(Observed::Nil)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Observed, E> {
        Ok(Observed::Int(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Observed, E> {
        IntVisitor.visit_u64(v).map(Observed::Int)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Observed, E> {
        IntVisitor.visit_f64(v).map(Observed::Int)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Observed, A::Error> {
        // Collect into a reused buffer and copy out into this thread's block of lists: a history holds
        // millions of reads, and a vector each would cost an allocation each.
        thread_local! {
            static SCRATCH: std::cell::RefCell<(Vec<i64>, BlockWriter<i64>)> =
                std::cell::RefCell::new((Vec::new(), BlockWriter::new()));
        }
        SCRATCH.with(|scratch| {
            let (list, lists) = &mut *scratch.borrow_mut();
            list.clear();
            while let Some(IntValue(x)) = seq.next_element()? {
                list.push(x);
            }
            lists.copy(list).map(Observed::List).ok_or_else(|| too_long(list.len()))
        })
    }
}

impl<'de> Deserialize<'de> for Predicate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(PredicateVisitor)
    }
}

struct PredicateVisitor;

impl<'de> Visitor<'de> for PredicateVisitor {
    type Value = Predicate;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, r#"a predicate: "true", ["=", v] or ["mod", m, r]"#)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Predicate, E> {
        if v { Ok(Predicate::True) } else { Err(E::invalid_value(de::Unexpected::Bool(v), &self)) }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Predicate, E> {
        if v == "true" { Ok(Predicate::True) } else { Err(E::invalid_value(de::Unexpected::Str(v), &self)) }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Predicate, A::Error> {
        let name: String = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let predicate = match name.as_str() {
            "=" => {
                let IntValue(v) = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(1, &self))?;
                Predicate::Eq(v)
            }
            "mod" => {
                let IntValue(m) = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(1, &self))?;
                let IntValue(r) = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(2, &self))?;
                if m <= 0 {
                    return Err(de::Error::custom(format!("predicate modulus must be positive, not {m}")));
                }
                Predicate::Mod { m, r }
            }
            other => return Err(de::Error::invalid_value(de::Unexpected::Str(other), &self)),
        };
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::custom("predicate has too many elements"));
        }
        Ok(predicate)
    }
}

/// Rows as a JSON object (`{"1": 10}`) or as a list of pairs (`[[1, 10]]`); `null` for unknown.
pub(crate) struct MaybeRows(pub Option<Rows>);

impl<'de> Deserialize<'de> for MaybeRows {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(RowsVisitor)
    }
}

struct RowsVisitor;

impl<'de> Visitor<'de> for RowsVisitor {
    type Value = MaybeRows;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "rows: an object of keys to integer values, a list of [key, value] pairs, or null")
    }

    fn visit_unit<E: de::Error>(self) -> Result<MaybeRows, E> {
        Ok(MaybeRows(None))
    }

    fn visit_none<E: de::Error>(self) -> Result<MaybeRows, E> {
        Ok(MaybeRows(None))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MaybeRows, A::Error> {
        let mut rows = Rows::new();
        while let Some(name) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let IntValue(v) = map.next_value()?;
            if rows.insert(Key::from_member_name(&name), v).is_some() {
                return Err(de::Error::custom(format!("duplicate key {name:?} in the rows: each key may appear once")));
            }
        }
        Ok(MaybeRows(Some(rows)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<MaybeRows, A::Error> {
        let mut rows = Rows::new();
        while let Some((k, IntValue(v))) = seq.next_element::<(Key, IntValue)>()? {
            if rows.contains_key(&k) {
                return Err(de::Error::custom(format!("duplicate key {k} in the rows: each key may appear once")));
            }
            rows.insert(k, v);
        }
        Ok(MaybeRows(Some(rows)))
    }
}

impl<'de> Deserialize<'de> for Mop {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_seq(MopVisitor)
    }
}

struct MopVisitor;

impl MopVisitor {
    fn next<'de, T: Deserialize<'de>, A: SeqAccess<'de>>(seq: &mut A, what: &str) -> Result<T, A::Error> {
        seq.next_element()?.ok_or_else(|| de::Error::custom(format!("micro-op is missing its {what}")))
    }
}

impl<'de> Visitor<'de> for MopVisitor {
    type Value = Mop;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, r#"a micro-op such as ["append", k, v], ["r", k, v] or ["w", k, v]"#)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Mop, A::Error> {
        let name: std::borrow::Cow<'de, str> = Self::next(&mut seq, "name")?;
        let mop = match &*name {
            "append" => Mop::Append {
                key: Self::next(&mut seq, "key")?,
                value: Self::next::<IntValue, _>(&mut seq, "value")?.0,
            },
            "r" => Mop::Read {
                key: Self::next(&mut seq, "key")?,
                value: seq.next_element::<Observed>()?.unwrap_or(Observed::Nil),
            },
            "w" => Mop::Write {
                key: Self::next(&mut seq, "key")?,
                value: Self::next::<IntValue, _>(&mut seq, "value")?.0,
                version: seq.next_element::<VersionNumber>()?.and_then(|v| v.0),
            },
            "insert" => Mop::Insert {
                key: Self::next(&mut seq, "key")?,
                value: Self::next::<IntValue, _>(&mut seq, "value")?.0,
            },
            "delete" => {
                let key = Self::next(&mut seq, "key")?;
                // A trailing null is tolerated: some writers pad every micro-op to three elements.
                if let Some(Some(de::IgnoredAny)) = seq.next_element::<Option<de::IgnoredAny>>()? {
                    return Err(de::Error::custom("a delete micro-op takes only a key"));
                }
                Mop::Delete { key }
            }
            "rp" => Mop::PredicateRead {
                predicate: Self::next(&mut seq, "predicate")?,
                rows: seq.next_element::<MaybeRows>()?.and_then(|r| r.0).map(Box::new),
            },
            other => {
                return Err(de::Error::custom(format!(
                    "unknown micro-op {other:?}: expected append, r, w, insert, delete or rp"
                )));
            }
        };
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::custom(format!("micro-op {:?} has too many elements", mop.name())));
        }
        Ok(mop)
    }
}

/// Deserializes a transaction's list of micro-ops.
pub(crate) struct Mops;

impl<'de> DeserializeSeed<'de> for Mops {
    type Value = Vec<Mop>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Mop>, D::Error> {
        struct MopsVisitor;
        impl<'de> Visitor<'de> for MopsVisitor {
            type Value = Vec<Mop>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a list of micro-ops")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Mop>, A::Error> {
                let mut mops = Vec::with_capacity(seq.size_hint().unwrap_or(4));
                while let Some(mop) = seq.next_element()? {
                    mops.push(mop);
                }
                mops.shrink_to_fit();
                Ok(mops)
            }
        }
        d.deserialize_seq(MopsVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write_version::VERSION_RANGE;

    fn mop(json: &str) -> Result<Mop, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn reads_every_micro_op_shape() {
        assert_eq!(mop(r#"["append", 3, 12]"#), Ok(Mop::Append { key: Key::Int(3), value: 12 }));
        assert_eq!(
            mop(r#"["r", 4, [1, 2, 9]]"#),
            Ok(Mop::Read { key: Key::Int(4), value: Observed::List(vec![1, 2, 9].into()) })
        );
        assert_eq!(mop(r#"["r", "x", 5]"#), Ok(Mop::Read { key: "x".into(), value: Observed::Int(5) }));
        assert_eq!(mop(r#"["r", "x", null]"#), Ok(Mop::Read { key: "x".into(), value: Observed::Nil }));
        assert_eq!(mop(r#"["w", "x", 5]"#), Ok(Mop::Write { key: "x".into(), value: 5, version: None }));
        assert_eq!(
            mop(r#"["w", "x", 5, 3]"#),
            Ok(Mop::Write { key: "x".into(), value: 5, version: WriteVersion::new(3) })
        );
        assert_eq!(mop(r#"["w", "x", 5, null]"#), Ok(Mop::Write { key: "x".into(), value: 5, version: None }));
        assert!(mop(r#"["w", "x", 5, "v3"]"#).unwrap_err().contains("a write's version: an integer"));
        assert!(mop(r#"["w", "x", 5, -9223372036854775808]"#).unwrap_err().contains(VERSION_RANGE));
        assert_eq!(
            mop(r#"["w", "x", 5, -9223372036854775807]"#),
            Ok(Mop::Write { key: "x".into(), value: 5, version: WriteVersion::new(WriteVersion::MIN) })
        );
        assert!(mop(r#"["w", "x", 5, 3, 4]"#).unwrap_err().contains("too many elements"));
        assert_eq!(mop(r#"["delete", 1]"#), Ok(Mop::Delete { key: Key::Int(1) }));
        assert_eq!(
            mop(r#"["rp", ["mod", 3, 0], {"1": 30, "2": 60}]"#),
            Ok(Mop::PredicateRead {
                predicate: Predicate::Mod { m: 3, r: 0 },
                rows: Some(Box::new(Rows::from([(Key::Int(1), 30), (Key::Int(2), 60)]))),
            })
        );
    }

    #[test]
    fn refuses_unknown_micro_ops_and_non_integer_values() {
        assert!(mop(r#"["cas", 1, 2]"#).unwrap_err().contains("unknown micro-op \"cas\""));
        assert!(mop(r#"["append", 1, 2.5]"#).unwrap_err().contains("non-integer value 2.5"));
        assert!(mop(r#"["append", 1, "a"]"#).unwrap_err().contains("an integer value"));
        assert!(mop(r#"["append", 1]"#).unwrap_err().contains("missing its value"));
        assert!(mop(r#"["append", 1, 2, 3]"#).unwrap_err().contains("too many elements"));
        assert!(mop(r#"["r", [1], 2]"#).unwrap_err().contains("a key"));
        assert!(mop(r#"["r", 1, [1, "b"]]"#).unwrap_err().contains("an integer value"));
    }

    #[test]
    fn writes_back_what_it_read() {
        for json in [
            r#"["append",3,12]"#,
            r#"["r",4,[1,2,9]]"#,
            r#"["r","x",null]"#,
            r#"["w","x",5]"#,
            r#"["delete",1]"#,
            r#"["rp",["=",20],{"1":20}]"#,
            r#"["rp","true",null]"#,
        ] {
            let parsed: Mop = serde_json::from_str(json).unwrap();
            assert_eq!(serde_json::to_string(&parsed).unwrap(), json);
        }
    }

    #[test]
    fn predicates_match_by_value() {
        assert!(Predicate::True.matches(-4));
        assert!(Predicate::Eq(20).matches(20) && !Predicate::Eq(20).matches(21));
        let third = Predicate::Mod { m: 3, r: 0 };
        assert!(third.matches(30) && third.matches(-3) && !third.matches(31));
        assert!(!Predicate::Mod { m: 3, r: 2 }.matches(-1), "-1 % 3 is -1 in SQL");
    }

    #[test]
    fn displays_in_elles_notation() {
        let m = Mop::Read { key: Key::Int(4), value: Observed::List(vec![1, 2].into()) };
        assert_eq!(m.to_string(), "[r 4 [1 2]]");
        assert_eq!(Mop::Append { key: "x".into(), value: 3 }.to_string(), "[append \"x\" 3]");
    }
}
