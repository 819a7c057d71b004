//! Item reads and writes (Adya's term, as against predicate reads) of register-like keys, as the
//! rw-register and closed-predicate workloads share them: `[r k v]` reads one value (`null` for none),
//! `[w k v]` and `[insert k v]` install one, `[delete k]` installs none, and the rows of a predicate read
//! are reads of their keys. This module owns the key ids, who wrote each value of each key (of any
//! outcome, so aborted and intermediate writes can be recognised when read), and each transaction's
//! external reads and writes as Elle's `jepsen.txn/ext-reads` and `ext-writes` define them: the first
//! micro-op on a key if it is a read, and the last write of it. The checks that need no graph are in
//! [`cases`]; the version orders and edges are each workload's.

pub(crate) mod cases;

use std::ops::Range;

use histories::{Key, Mop, Observed, WriteVersion};
use rayon::iter::{
    IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator, IntoParallelRefMutIterator,
    ParallelIterator,
};

use crate::buckets::Buckets;
use crate::chunks;
use crate::error::CheckError;
use crate::graph::TxnId;
use crate::int_table::{IntTable, Slot};
use crate::key_ids::{self, KeyIds};
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

impl Slot for Written {
    const ABSENT: Written = Written { writer: NO_TXN, intermediate: false };

    fn is_absent(&self) -> bool {
        self.writer == NO_TXN
    }
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
    /// Per key, each written value's writer: a vector by value while a key's values are dense, as
    /// generated ones are (a read's writer is looked up for every read).
    written: Vec<IntTable<Written>>,
}

impl<'h> ItemIndex<'h> {
    /// Indexes the transactions, refusing micro-ops the workload does not have (`workload` is
    /// rw-register or closed-predicate) and a value written to one key twice: of several such faults, the
    /// first in history order.
    ///
    /// The cores take ranges of transactions, each naming its keys in order of first appearance; the
    /// ranges' keys, joined in order, get their ids as one walk would give them; then the cores take keys,
    /// each recording its writers in transaction order.
    pub(crate) fn new(txns: &Txns<'h>, workload: Workload) -> Result<ItemIndex<'h>, CheckError> {
        let mut scans = chunks::per_chunk(txns.len(), |ids| RangeScan::new(txns, ids, workload));
        let (keys, ids, globals) = key_ids::join_ranges(scans.iter().map(|scan| &scan.keys[..]));
        scans.par_iter_mut().zip(globals.par_iter()).for_each(|(scan, global)| scan.rename(global));
        let mut mop_keys = Vec::with_capacity(scans.iter().map(|s| s.mop_keys.len()).sum());
        let mut mop_start = Vec::with_capacity(txns.len() + 1);
        let mut first: Option<Fault> = None;
        for scan in &mut scans {
            let base = mop_keys.len() as u32;
            mop_start.extend(scan.mop_start.iter().map(|&s| base + s));
            mop_keys.append(&mut scan.mop_keys);
            if first.is_none() {
                first = scan.refused.take();
            }
        }
        mop_start.push(mop_keys.len() as u32);
        // Every write, by key: each key's in history order.
        let blank = KeyWrite { key: NO_KEY, value: 0, txn: NO_TXN, position: 0, intermediate: false };
        let writes = Buckets::from_sources(keys.len(), blank, scans.len(), |s| {
            scans[s].writes.iter().map(|w| (w.key as usize, *w))
        });
        drop(scans);
        let per_key: Vec<(IntTable<Written>, Option<Fault>)> = (0..keys.len())
            .into_par_iter()
            .with_min_len(256)
            .map(|k| writers(txns, &keys, k as KeyId, writes.of(k)))
            .collect();
        let mut written = Vec::with_capacity(keys.len());
        for (map, fault) in per_key {
            written.push(map);
            if let Some(f) = fault
                && first.as_ref().is_none_or(|g| (f.txn, f.position) < (g.txn, g.position))
            {
                first = Some(f);
            }
        }
        if let Some(fault) = first {
            return Err(fault.error);
        }
        Ok(ItemIndex { keys, ids, mop_keys, mop_start, written })
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
        self.written[k as usize].get(value).copied()
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
                    Mop::Write { version, .. } => version.map(WriteVersion::get),
                    _ => None,
                };
            }
        }
    }
}

/// A fault of the history found in some part of it, with where it is: the transaction, and the position
/// among its `init` rows and then its micro-ops. Of several, the first in history order is reported.
struct Fault {
    txn: TxnId,
    position: u32,
    error: CheckError,
}

/// One write of a value to a key: by which transaction, where in it (as [`Fault`] counts), and whether
/// the transaction wrote the key again afterwards.
#[derive(Debug, Clone, Copy)]
struct KeyWrite {
    key: KeyId,
    value: i64,
    txn: TxnId,
    position: u32,
    intermediate: bool,
}

/// What one range of transactions says, its keys numbered in order of first appearance within the
/// range until [`RangeScan::rename`] gives them their ids.
struct RangeScan<'h> {
    keys: Vec<&'h Key>,
    mop_keys: Vec<KeyId>,
    /// Where each transaction's micro-ops begin in `mop_keys`.
    mop_start: Vec<u32>,
    writes: Vec<KeyWrite>,
    /// The range's first micro-op the workload does not have; the range is scanned no further.
    refused: Option<Fault>,
}

impl<'h> RangeScan<'h> {
    fn new(txns: &Txns<'h>, ids: Range<TxnId>, workload: Workload) -> RangeScan<'h> {
        let mut scan = RangeScan {
            keys: Vec::new(),
            mop_keys: Vec::new(),
            mop_start: Vec::new(),
            writes: Vec::new(),
            refused: None,
        };
        let mut local = KeyIds::default();
        let mut intern = |keys: &mut Vec<&'h Key>, key: &'h Key| {
            let (k, new) = local.intern(key);
            if new {
                keys.push(key);
            }
            k
        };
        // Per key this transaction wrote: the entry in `writes` of its last write, `None` for a delete.
        let mut last_write: KeySlots<Option<Option<usize>>> = KeySlots::default();
        for t in ids {
            scan.mop_start.push(scan.mop_keys.len() as u32);
            if scan.refused.is_some() {
                continue;
            }
            let mut position = 0u32;
            if let Some(rows) = txns.init_rows(t) {
                for (key, &value) in rows {
                    let k = intern(&mut scan.keys, key);
                    scan.writes.push(KeyWrite { key: k, value, txn: t, position, intermediate: false });
                    position += 1;
                }
            }
            last_write.clear();
            for mop in txns.mops(t) {
                if let Err(error) = refuse_foreign(txns, t, mop, workload) {
                    scan.refused = Some(Fault { txn: t, position, error });
                    break;
                }
                let k = match mop {
                    Mop::PredicateRead { rows, .. } => {
                        for key in rows.iter().flat_map(|r| r.keys()) {
                            intern(&mut scan.keys, key);
                        }
                        NO_KEY
                    }
                    other => match other.key() {
                        Some(key) => intern(&mut scan.keys, key),
                        None => NO_KEY,
                    },
                };
                scan.mop_keys.push(k);
                if let Some(ItemOp::Write(value)) = ItemOp::of(mop) {
                    let entry = value.map(|_| scan.writes.len());
                    if let Some(Some(before)) = last_write.entry(k, || None).replace(entry) {
                        scan.writes[before].intermediate = true;
                    }
                    if let Some(value) = value {
                        scan.writes.push(KeyWrite { key: k, value, txn: t, position, intermediate: false });
                    }
                }
                position += 1;
            }
        }
        scan
    }

    /// Gives the range's keys their ids: `global[local id]`.
    fn rename(&mut self, global: &[KeyId]) {
        for k in self.mop_keys.iter_mut().filter(|k| **k != NO_KEY) {
            *k = global[*k as usize];
        }
        for w in &mut self.writes {
            w.key = global[w.key as usize];
        }
    }
}

/// Key `k`'s writers, from its writes in history order, and the first write of a value another
/// transaction had already written to it.
fn writers(txns: &Txns<'_>, keys: &[&Key], k: KeyId, writes: &[KeyWrite]) -> (IntTable<Written>, Option<Fault>) {
    let mut map: IntTable<Written> = IntTable::default();
    for w in writes {
        let slot = map.entry(w.value, Written { writer: w.txn, intermediate: false });
        if slot.writer != w.txn {
            let key = keys[k as usize];
            let error = CheckError::Workload {
                at: txns.op(w.txn).at,
                message: format!(
                    "{} writes {} to key {key}, but {} (line {}) wrote it too: each value must be written to a key \
                     at most once, or versions cannot be told apart",
                    txns.name(w.txn),
                    w.value,
                    txns.name(slot.writer),
                    txns.op(slot.writer).at.line
                ),
            };
            return (map, Some(Fault { txn: w.txn, position: w.position, error }));
        }
        slot.intermediate |= w.intermediate;
    }
    (map, None)
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
