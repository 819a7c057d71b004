//! The reference serial executor: a database that runs one transaction at a time on an in-memory
//! `BTreeMap`, as redb's fuzzer checks its engine against a plain `BTreeMap`. A transaction goes in
//! as an invocation's micro-ops and comes out completed, each read filled in with what the state held
//! at that point of the transaction (its own earlier writes included). Lists take appends and
//! registers take writes; a key never written reads `null` (the empty list or the initial register, as
//! the history format reads `null` in an `ok` completion). This module owns that state and its semantics.

use std::collections::BTreeMap;

use histories::{Key, Mop, Observed};

/// What a key holds.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Value {
    List(Vec<i64>),
    Register(i64),
}

/// An in-memory database that applies transactions serially.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SerialDb {
    state: BTreeMap<Key, Value>,
}

impl SerialDb {
    /// An empty database: every key unwritten.
    pub fn new() -> SerialDb {
        SerialDb::default()
    }

    /// Applies a transaction, micro-op by micro-op, and returns its completed micro-ops: appends and
    /// writes as given, reads with the value read.
    ///
    /// # Panics
    /// On a predicate workload's micro-op (`insert`, `delete`, `rp`), or on an append to a register or a
    /// write to a list: the executor runs list-append and rw-register transactions only.
    pub fn apply(&mut self, txn: &[Mop]) -> Vec<Mop> {
        txn.iter()
            .map(|mop| match mop {
                Mop::Append { key, value } => {
                    match self.state.entry(key.clone()).or_insert_with(|| Value::List(Vec::new())) {
                        Value::List(list) => list.push(*value),
                        Value::Register(_) => panic!("key {key} holds a register: {mop} cannot append to it"),
                    }
                    mop.clone()
                }
                Mop::Write { key, value, .. } => {
                    match self.state.entry(key.clone()).or_insert(Value::Register(*value)) {
                        Value::Register(register) => *register = *value,
                        Value::List(_) => panic!("key {key} holds a list: {mop} cannot write it"),
                    }
                    mop.clone()
                }
                Mop::Read { key, .. } => Mop::Read { key: key.clone(), value: self.read(key) },
                other => panic!("the serial executor runs list-append and rw-register micro-ops, not {other}"),
            })
            .collect()
    }

    /// What a read of `key` returns now: its list, its register, or `null` if never written.
    pub fn read(&self, key: &Key) -> Observed {
        match self.state.get(key) {
            None => Observed::Nil,
            Some(Value::List(list)) => Observed::List(list.clone().into()),
            Some(Value::Register(v)) => Observed::Int(*v),
        }
    }

    /// The keys written so far, in order.
    pub fn keys(&self) -> impl Iterator<Item = &Key> + '_ {
        self.state.keys()
    }

    /// An invocation that reads every key written so far, in key order.
    pub fn read_all(&self) -> Vec<Mop> {
        self.keys().map(|key| Mop::Read { key: key.clone(), value: Observed::Nil }).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn append(k: i64, v: i64) -> Mop {
        Mop::Append { key: Key::Int(k), value: v }
    }

    fn read(k: i64) -> Mop {
        Mop::Read { key: Key::Int(k), value: Observed::Nil }
    }

    fn read_list(k: i64, list: &[i64]) -> Mop {
        Mop::Read { key: Key::Int(k), value: Observed::List(list.to_vec().into()) }
    }

    #[test]
    fn list_append_reads_see_earlier_transactions_and_their_own_appends() {
        let mut db = SerialDb::new();
        // T1: ax1 ry ax2 — T2: rx ay3 ry — T3: rx ry
        assert_eq!(db.apply(&[append(1, 1), read(2), append(1, 2)]), vec![append(1, 1), read(2), append(1, 2)]);
        assert_eq!(
            db.apply(&[read(1), append(2, 3), read(2)]),
            vec![read_list(1, &[1, 2]), append(2, 3), read_list(2, &[3])]
        );
        assert_eq!(db.apply(&[read(1), read(2), read(3)]), vec![read_list(1, &[1, 2]), read_list(2, &[3]), read(3)]);
        assert_eq!(db.read_all(), vec![read(1), read(2)]);
    }

    #[test]
    fn registers_hold_the_last_write() {
        let mut db = SerialDb::new();
        let w = |v| Mop::Write { key: "x".into(), value: v, version: None };
        let r = |value| Mop::Read { key: "x".into(), value };
        assert_eq!(
            db.apply(&[r(Observed::Nil), w(1), r(Observed::Nil)]),
            vec![r(Observed::Nil), w(1), r(Observed::Int(1))]
        );
        assert_eq!(db.apply(&[w(2), w(3), r(Observed::Nil)]), vec![w(2), w(3), r(Observed::Int(3))]);
        assert_eq!(db.read(&"x".into()), Observed::Int(3));
    }

    #[test]
    #[should_panic(expected = "holds a list")]
    fn a_register_write_to_a_list_is_refused() {
        let mut db = SerialDb::new();
        db.apply(&[append(1, 1), Mop::Write { key: Key::Int(1), value: 2, version: None }]);
    }
}
