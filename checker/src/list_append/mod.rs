//! The list-append workload, with the semantics of Elle's `elle.list-append`: transactions append unique
//! integers to lists and read whole lists, so every read reveals the order of the appends before it. The
//! longest read of a key is its version order (every other read must be a prefix of it); from it follow
//! write-write (`ww`), write-read (`wr`) and anti-dependency (`rw`) edges, and the non-cycle anomalies in
//! [`cases`]. Only committed and indeterminate transactions (`ok`, `info`) take part in the graph, as in
//! Elle; failed ones matter only as the writers of aborted reads and dirty updates (their reads, like
//! indeterminate ones', are not observations). Only committed
//! transactions' reads are observations: an indeterminate one may never have committed, and then what it
//! read (should its completion say) constrains nothing.
//!
//! This module owns the indexes and the edges; the checks that need no graph are in `cases`, the
//! sentences that explain an edge in `explain`.

mod cases;
mod elems;
mod explain;

use std::collections::BTreeMap;
use std::ops::Range;

use histories::{Key, Mop, Observed, OpType};

use crate::chunks;
use crate::error::CheckError;
use crate::graph::{EdgeList, TxnId};
use crate::key_ids::KeyIds;
use crate::key_slots::KeySlots;
use crate::kind::Kind;
use crate::phase::Phase;
use crate::result::Case;
use crate::txn::Txns;

use self::elems::{Elem, ElemMap, NO_TXN, UNORDERED};
pub use explain::ListAppendExplainer;

type KeyId = u32;

/// A read's position: which transaction, and which of its micro-ops.
#[derive(Debug, Clone, Copy)]
struct ReadAt {
    txn: TxnId,
    mop: u32,
}

/// The indexes every list-append analysis shares.
pub struct Index<'h> {
    keys: Vec<&'h Key>,
    /// For each transaction, the key id of each of its micro-ops, flattened; `mop_start[t]` is where
    /// transaction `t` begins.
    mop_keys: Vec<KeyId>,
    mop_start: Vec<u32>,
    /// Per key, its elements.
    elems: Vec<ElemMap>,
    /// Per key, the longest read by an `ok` transaction: the version order.
    longest: Vec<Option<ReadAt>>,
    /// Per key, the distinct elements of the longest read, in order.
    versions: Vec<Vec<i64>>,
    /// Readers by version, as one compressed table: key `k`'s version `v` (0 the initial state, `p + 1`
    /// the state ending at the element in position `p`) is row `version_base[k] + v`.
    version_base: Vec<u32>,
    reader_start: Vec<u32>,
    readers: Vec<TxnId>,
}

/// The previous version of a key before an append: an element, or the initial state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Previous {
    Initial,
    Element(i64),
}

impl<'h> Index<'h> {
    /// Builds the indexes, refusing micro-ops that are not list-append's.
    pub fn new(txns: &Txns<'h>) -> Result<Index<'h>, CheckError> {
        let mut index = Index {
            keys: Vec::new(),
            mop_keys: Vec::new(),
            mop_start: Vec::with_capacity(txns.len() + 1),
            elems: Vec::new(),
            longest: Vec::new(),
            versions: Vec::new(),
            version_base: Vec::new(),
            reader_start: Vec::new(),
            readers: Vec::new(),
        };
        let phase = Phase::start();
        index.intern_and_record_writes(txns)?;
        phase.done("list-append keys and appends");
        index.order_versions(txns);
        phase.done("list-append version orders");
        index.record_readers(txns);
        phase.done("list-append readers");
        Ok(index)
    }

    fn intern_and_record_writes(&mut self, txns: &Txns<'h>) -> Result<(), CheckError> {
        let mut ids = KeyIds::default();
        // Per key, the length of its longest committed read so far.
        let mut longest_len: Vec<usize> = Vec::new();
        // Per key this transaction appended to, the last element it appended to it so far.
        let mut last_append: KeySlots<Option<i64>> = KeySlots::default();
        let total: usize = txns.ids().map(|t| txns.mops(t).len()).sum();
        self.mop_keys.reserve_exact(total);
        for t in txns.ids() {
            self.mop_start.push(self.mop_keys.len() as u32);
            last_append.clear();
            let committed = txns.outcome(t) == OpType::Ok;
            for (i, mop) in txns.mops(t).iter().enumerate() {
                let key = match mop {
                    Mop::Append { key, .. } | Mop::Read { key, value: Observed::Nil | Observed::List(_) } => key,
                    other => return Err(not_list_append(txns, t, other)),
                };
                let (k, new) = ids.intern(key);
                if new {
                    self.keys.push(key);
                    self.elems.push(ElemMap::default());
                    self.longest.push(None);
                    longest_len.push(0);
                }
                self.mop_keys.push(k);
                match mop {
                    Mop::Append { value, .. } => {
                        let elems = &mut self.elems[k as usize];
                        let previous = last_append.entry(k, || None).replace(*value);
                        if let Some(previous) = previous
                            && let Some(e) = elems.get_mut(previous)
                            && e.writer == t
                        {
                            e.intermediate = true;
                        }
                        let elem = elems.entry(*value);
                        if elem.writer == NO_TXN {
                            elem.writer = t;
                        }
                    }
                    // The first of the longest committed reads is the key's version order.
                    Mop::Read { value: Observed::List(list), .. }
                        if committed && list.len() > longest_len[k as usize] =>
                    {
                        longest_len[k as usize] = list.len();
                        self.longest[k as usize] = Some(ReadAt { txn: t, mop: i as u32 });
                    }
                    _ => {}
                }
            }
        }
        self.mop_start.push(self.mop_keys.len() as u32);
        Ok(())
    }

    fn order_versions(&mut self, txns: &Txns<'h>) {
        self.versions = vec![Vec::new(); self.keys.len()];
        for k in 0..self.keys.len() {
            let Some(at) = self.longest[k] else { continue };
            let list = read_list(txns, at);
            let mut order = Vec::with_capacity(list.len());
            for &e in list {
                let elem = self.elems[k].entry(e);
                // A duplicated element keeps its first position, as Elle's `distinct` does.
                if elem.position == UNORDERED {
                    elem.position = order.len() as u32;
                    order.push(e);
                }
            }
            self.versions[k] = order;
        }
    }

    /// The row of the readers table for the version a read of `list` (on key `k`) observed, if that
    /// version is in the order: reads of any other version are never asked about.
    fn version_row(&self, k: KeyId, last: Option<i64>) -> Option<usize> {
        let offset = match last {
            None => 0,
            Some(e) => self.elem(k, e).map(|el| el.position).filter(|&p| p != UNORDERED)? as usize + 1,
        };
        Some(self.version_base[k as usize] as usize + offset)
    }

    fn record_readers(&mut self, txns: &Txns<'h>) {
        let mut base = 0u32;
        self.version_base = self
            .versions
            .iter()
            .map(|v| {
                let b = base;
                base += v.len() as u32 + 1;
                b
            })
            .collect();
        let rows = base as usize;
        // Two passes over the reads, counting then filling, build the table without a vector per version.
        let mut reads: Vec<(u32, TxnId)> = Vec::new();
        // Only committed reads are observations: an indeterminate transaction may never have committed,
        // and then what it read constrains nothing.
        for t in txns.ids().filter(|&t| txns.outcome(t) == OpType::Ok) {
            for (i, mop) in txns.mops(t).iter().enumerate() {
                let Mop::Read { value, .. } = mop else { continue };
                let last = match value {
                    Observed::List(list) => list.last().copied(),
                    _ => None,
                };
                if let Some(row) = self.version_row(self.key_of(t, i), last) {
                    reads.push((row as u32, t));
                }
            }
        }
        let mut start = vec![0u32; rows + 1];
        for &(row, _) in &reads {
            start[row as usize + 1] += 1;
        }
        for r in 0..rows {
            start[r + 1] += start[r];
        }
        let mut fill = start.clone();
        let mut readers = vec![0; reads.len()];
        for (row, t) in reads {
            readers[fill[row as usize] as usize] = t;
            fill[row as usize] += 1;
        }
        self.reader_start = start;
        self.readers = readers;
    }

    fn key_of(&self, t: TxnId, mop: usize) -> KeyId {
        self.mop_keys[self.mop_start[t as usize] as usize + mop]
    }

    fn elem(&self, k: KeyId, e: i64) -> Option<&Elem> {
        self.elems[k as usize].get(e)
    }

    /// The transaction that appended `e` to `k`, if it committed or may have.
    fn possible_writer(&self, txns: &Txns<'h>, k: KeyId, e: i64) -> Option<TxnId> {
        self.elem(k, e).map(|el| el.writer).filter(|&w| w != NO_TXN && txns.is_possible(w))
    }

    /// The version an append of `e` to `k` overwrote: the element before it in the version order, or,
    /// if no read showed `e`, the last element any read showed (it came after that), or the initial
    /// state.
    fn previous(&self, k: KeyId, e: i64) -> Previous {
        let order = &self.versions[k as usize];
        match self.elem(k, e).map(|el| el.position) {
            Some(p) if p != UNORDERED => {
                if p == 0 {
                    Previous::Initial
                } else {
                    Previous::Element(order[p as usize - 1])
                }
            }
            _ => order.last().map_or(Previous::Initial, |&last| Previous::Element(last)),
        }
    }

    fn readers_of(&self, k: KeyId, version: Previous) -> &[TxnId] {
        let last = match version {
            Previous::Initial => None,
            Previous::Element(e) => Some(e),
        };
        match self.version_row(k, last) {
            Some(row) => &self.readers[self.reader_start[row] as usize..self.reader_start[row + 1] as usize],
            None => &[],
        }
    }

    /// The number of keys.
    pub fn key_count(&self) -> usize {
        self.keys.len()
    }

    /// The number of keys some read ordered.
    pub fn ordered_key_count(&self) -> usize {
        self.versions.iter().filter(|v| !v.is_empty()).count()
    }

    /// The `ww`, `wr` and `rw` edges among `ok` and `info` transactions.
    pub fn edges(&self, txns: &Txns<'h>) -> EdgeList {
        chunks::edges_per_chunk(txns.len(), |ids| self.edges_of(txns, ids))
    }

    /// The edges into the transactions `ids`.
    fn edges_of(&self, txns: &Txns<'h>, ids: Range<TxnId>) -> EdgeList {
        let mut edges = EdgeList::new();
        for t in ids.filter(|&t| txns.is_possible(t)) {
            for (i, mop) in txns.mops(t).iter().enumerate() {
                let k = self.key_of(t, i);
                match mop {
                    Mop::Append { value, .. } => {
                        let previous = self.previous(k, *value);
                        if let Previous::Element(p) = previous
                            && let Some(w) = self.possible_writer(txns, k, p)
                        {
                            edges.add(w, t, Kind::Ww);
                        }
                        for &r in self.readers_of(k, previous) {
                            edges.add(r, t, Kind::Rw);
                        }
                    }
                    Mop::Read { value: Observed::List(list), .. } if txns.outcome(t) == OpType::Ok => {
                        if let Some(w) = list.last().and_then(|&last| self.possible_writer(txns, k, last)) {
                            edges.add(w, t, Kind::Wr);
                        }
                    }
                    _ => {}
                }
            }
        }
        edges
    }

    /// The anomalies that need no graph, by name.
    pub fn cases(&self, txns: &Txns<'h>) -> BTreeMap<&'static str, Vec<Case>> {
        cases::all(self, txns)
    }
}

/// The list a read at `at` returned.
fn read_list<'h>(txns: &Txns<'h>, at: ReadAt) -> &'h [i64] {
    match &txns.mops(at.txn)[at.mop as usize] {
        Mop::Read { value: Observed::List(list), .. } => list,
        _ => &[],
    }
}

fn not_list_append(txns: &Txns<'_>, t: TxnId, mop: &Mop) -> CheckError {
    let kind = match mop {
        Mop::Read { value: Observed::Int(_), .. } | Mop::Write { .. } => "a register micro-op",
        _ => "a predicate micro-op",
    };
    CheckError::Workload {
        at: txns.op(t).at,
        message: format!(
            "{mop} is {kind}, but this history is checked as list-append, whose micro-ops are [append k v] and [r k list]"
        ),
    }
}
