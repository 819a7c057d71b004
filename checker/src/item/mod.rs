//! Item reads and writes (Adya's term, as against predicate reads) of register-like keys, as the
//! rw-register and closed-predicate workloads share them: `[r k v]` reads one value (`null` for none),
//! `[w k v]` and `[insert k v]` install one, `[delete k]` installs none, and the rows of a predicate read
//! are reads of their keys. This module owns the key ids, who wrote each value of each key (of any
//! outcome, so aborted and intermediate writes can be recognised when read), and each transaction's
//! external reads and writes as Elle's `jepsen.txn/ext-reads` and `ext-writes` define them: the first
//! micro-op on a key if it is a read, and the last write of it. The checks that need no graph are in
//! [`cases`]; the version orders and edges are each workload's.

pub(crate) mod cases;

use histories::{Key, Mop, Observed};
use rustc_hash::FxHashMap;

use crate::error::CheckError;
use crate::graph::TxnId;
use crate::key_ids::KeyIds;
use crate::key_slots::KeySlots;
use crate::options::Workload;
use crate::txn::Txns;

/// A key's dense id.
pub(crate) type KeyId = u32;

/// No transaction.
pub(crate) const NO_TXN: TxnId = TxnId::MAX;
/// The micro-op names no key (a predicate read).
pub(crate) const NO_KEY: KeyId = KeyId::MAX;

/// One item operation: a read or a write of one key. `None` is `null`: a read of no value (the initial
/// state, or a deleted row), or a delete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ItemOp {
    Read(Option<i64>),
    Write(Option<i64>),
}

impl ItemOp {
    /// The item operation a micro-op is, if it is one.
    pub(crate) fn of(mop: &Mop) -> Option<ItemOp> {
        match mop {
            Mop::Read { value: Observed::Int(v), .. } => Some(ItemOp::Read(Some(*v))),
            Mop::Read { value: Observed::Nil, .. } => Some(ItemOp::Read(None)),
            Mop::Write { value, .. } | Mop::Insert { value, .. } => Some(ItemOp::Write(Some(*value))),
            Mop::Delete { .. } => Some(ItemOp::Write(None)),
            _ => None,
        }
    }
}

/// A value as Elle prints it: the integer, or `nil`.
pub(crate) fn value_text(value: Option<i64>) -> String {
    value.map_or_else(|| "nil".to_string(), |v| v.to_string())
}

/// Who wrote one value of one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Written {
    /// The transaction that wrote it, of any outcome.
    pub writer: TxnId,
    /// Whether that transaction wrote the key again afterwards.
    pub intermediate: bool,
}

/// A transaction's external read and write of one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ext {
    pub key: KeyId,
    /// The value its first micro-op on the key read, if that micro-op is a read.
    pub read: Option<Option<i64>>,
    /// The value its last write of the key installed (`None` inside: a delete), if it wrote the key.
    pub write: Option<Option<i64>>,
    /// The version number the database gave that last write, if the history records one
    /// ([`Mop::Write::version`]).
    pub version: Option<i64>,
}

/// The key ids and writers of a register-like history.
pub(crate) struct ItemIndex<'h> {
    keys: Vec<&'h Key>,
    ids: KeyIds<'h>,
    /// For each transaction, the key id of each micro-op, flattened (`NO_KEY` for a predicate read);
    /// `mop_start[t]` is where transaction `t` begins.
    mop_keys: Vec<KeyId>,
    mop_start: Vec<u32>,
    /// Per key, each written value's writer.
    written: Vec<FxHashMap<i64, Written>>,
}

impl<'h> ItemIndex<'h> {
    /// Indexes the transactions, refusing micro-ops the workload does not have (`workload` is
    /// rw-register or closed-predicate) and a value written to one key twice.
    pub(crate) fn new(txns: &Txns<'h>, workload: Workload) -> Result<ItemIndex<'h>, CheckError> {
        let mut index = ItemIndex {
            keys: Vec::new(),
            ids: KeyIds::default(),
            mop_keys: Vec::new(),
            mop_start: Vec::with_capacity(txns.len() + 1),
            written: Vec::new(),
        };
        let mut last_write: KeySlots<Option<Option<i64>>> = KeySlots::default();
        for t in txns.ids() {
            index.mop_start.push(index.mop_keys.len() as u32);
            if let Some(rows) = txns.init_rows(t) {
                for (key, &value) in rows {
                    let k = index.intern(key);
                    index.record_write(txns, t, k, value)?;
                }
            }
            last_write.clear();
            for mop in txns.mops(t) {
                refuse_foreign(txns, t, mop, workload)?;
                let k = match mop {
                    Mop::PredicateRead { rows, .. } => {
                        for key in rows.iter().flat_map(|r| r.keys()) {
                            index.intern(key);
                        }
                        NO_KEY
                    }
                    other => match other.key() {
                        Some(key) => index.intern(key),
                        None => NO_KEY,
                    },
                };
                index.mop_keys.push(k);
                let Some(ItemOp::Write(value)) = ItemOp::of(mop) else { continue };
                // The value this transaction last wrote to the key (`Some(None)`: it deleted it).
                let previous = last_write.entry(k, || None).replace(value);
                if let Some(Some(p)) = previous
                    && let Some(w) = index.written[k as usize].get_mut(&p)
                    && w.writer == t
                {
                    w.intermediate = true;
                }
                if let Some(v) = value {
                    index.record_write(txns, t, k, v)?;
                }
            }
        }
        index.mop_start.push(index.mop_keys.len() as u32);
        Ok(index)
    }

    fn intern(&mut self, key: &'h Key) -> KeyId {
        let (k, new) = self.ids.intern(key);
        if new {
            self.keys.push(key);
            self.written.push(FxHashMap::default());
        }
        k
    }

    fn record_write(&mut self, txns: &Txns<'h>, t: TxnId, k: KeyId, value: i64) -> Result<(), CheckError> {
        let slot = self.written[k as usize].entry(value).or_insert(Written { writer: t, intermediate: false });
        if slot.writer != t {
            let key = self.keys[k as usize];
            return Err(CheckError::Workload {
                at: txns.op(t).at,
                message: format!(
                    "{} writes {value} to key {key}, but {} (line {}) wrote it too: each value must be written to a key \
                     at most once, or versions cannot be told apart",
                    txns.name(t),
                    txns.name(slot.writer),
                    txns.op(slot.writer).at.line
                ),
            });
        }
        Ok(())
    }

    /// The number of keys.
    pub(crate) fn key_count(&self) -> usize {
        self.keys.len()
    }

    /// The key of an id.
    pub(crate) fn key(&self, k: KeyId) -> &'h Key {
        self.keys[k as usize]
    }

    /// The id of a key, if the history names it.
    pub(crate) fn id(&self, key: &Key) -> Option<KeyId> {
        self.ids.get(key)
    }

    /// The key id of transaction `t`'s micro-op `mop` (`NO_KEY` for a predicate read).
    pub(crate) fn key_of(&self, t: TxnId, mop: usize) -> KeyId {
        self.mop_keys[self.mop_start[t as usize] as usize + mop]
    }

    /// Who wrote `value` to key `k`, if anyone did.
    pub(crate) fn written(&self, k: KeyId, value: i64) -> Option<Written> {
        self.written[k as usize].get(&value).copied()
    }

    /// Transaction `t`'s external reads and writes, one entry per key it touched with an item
    /// operation, in the order it first touched them.
    pub(crate) fn externals(&self, txns: &Txns<'h>, t: TxnId, out: &mut Vec<Ext>) {
        out.clear();
        for (i, mop) in txns.mops(t).iter().enumerate() {
            let Some(op) = ItemOp::of(mop) else { continue };
            let k = self.key_of(t, i);
            let at = match out.iter().position(|e| e.key == k) {
                Some(at) => at,
                None => {
                    let read = match op {
                        ItemOp::Read(v) => Some(v),
                        ItemOp::Write(_) => None,
                    };
                    out.push(Ext { key: k, read, write: None, version: None });
                    out.len() - 1
                }
            };
            if let ItemOp::Write(v) = op {
                out[at].write = Some(v);
                out[at].version = match mop {
                    Mop::Write { version, .. } => *version,
                    _ => None,
                };
            }
        }
    }
}

/// Refuses a micro-op the workload does not have.
fn refuse_foreign(txns: &Txns<'_>, t: TxnId, mop: &Mop, workload: Workload) -> Result<(), CheckError> {
    let register = matches!(mop, Mop::Write { .. } | Mop::Read { value: Observed::Int(_) | Observed::Nil, .. });
    let predicate = matches!(mop, Mop::Insert { .. } | Mop::Delete { .. } | Mop::PredicateRead { .. });
    let (ok, expected) = match workload {
        Workload::RwRegister => (register, "[w k v] and [r k v]"),
        Workload::ClosedPredicate => {
            (register || predicate, "[insert k v], [delete k], [w k v], [r k v] and [rp pred rows]")
        }
        Workload::ListAppend => (!register && !predicate, "[append k v] and [r k list]"),
    };
    if ok {
        return Ok(());
    }
    let kind = match mop {
        Mop::Append { .. } | Mop::Read { value: Observed::List(_), .. } => "a list-append micro-op",
        _ if predicate => "a predicate micro-op",
        _ => "a register micro-op",
    };
    Err(CheckError::Workload {
        at: txns.op(t).at,
        message: format!(
            "{mop} is {kind}, but this history is checked as {}, whose micro-ops are {expected}",
            workload.name()
        ),
    })
}
