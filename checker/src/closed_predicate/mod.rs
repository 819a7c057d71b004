//! Predicate reads, with the semantics of Elle's experimental `elle.closed-predicate` workload. An `init`
//! op fixes the universe's initial rows; transactions insert (`[insert k v]`), update (`[w k v]`),
//! delete (`[delete k]`) and read (`[r k v]`) rows, and read by predicate (`[rp pred rows]`, every row
//! the predicate matched). Under the closed-universe assumption every version of every key is known: the
//! initial row (or the unborn version, before an insert), then each write of a committed or
//! indeterminate transaction. Their order is only what the history proves ([`versions`]): Elle orders
//! them by when their writers completed, which is exact for its generator (each key mutated once after
//! `init`) but not for writers that overlapped, whose completions may be recorded in either order. Unborn
//! and deleted versions match no predicate. So a predicate read's version set (Adya's VSet(P)) is known
//! beyond the rows it returned: for a key it did not return, if exactly one version fails the predicate,
//! that version is the one it selected (if none fails, the read missed a row: `predicate-read-miss`).
//!
//! Edges, as Elle's `ww-graph`, `wr-graph` and `rw-graph`, over the proven order: `ww` from the writer
//! of a version to the writer of each version proven next; `wr` from a version's writer to each item read
//! of it; `rw` from each item read of a version to the writer of each version proven next (the
//! transaction that installed it, even as an intermediate version of its own); `wrp` from the writer of
//! each version in a predicate read's version set to the reader; and `rwp` from the reader to the writer
//! of every version proven later that changes whether the predicate matches. A cycle with an `rwp` edge is `G-single`, `G-nonadjacent` or `G2`
//! proper. Where we differ from Elle: plain writes (`w`) have `ww` edges too (Elle's `ww-graph` matches
//! a `:write` micro-op that does not exist), predicate dependencies are their own kinds (`wrp`, `rwp`)
//! where Elle names them `wr` and `rw` with a flag, a key deleted twice is refused (its two dead
//! versions could not be told apart), and the item-read anomalies (`G1a`, `G1b`, `internal`,
//! `lost-update`, `garbage-read`) are checked here as for registers.

mod explain;
mod versions;

use std::collections::BTreeMap;

use histories::{Function, Mop, OpType, Predicate};
use rustc_hash::FxHashMap;
use serde_json::json;

use crate::commit_order::CommitOrder;
use crate::error::CheckError;
use crate::explain::{case, facts, mop_json};
use crate::graph::{EdgeList, TxnId};
use crate::item::{ItemIndex, ItemOp, KeyId, NO_TXN, cases as item_cases};
use crate::kind::Kind;
use crate::options::Workload;
use crate::result::Case;
use crate::txn::Txns;

pub use explain::ClosedPredicateExplainer;
pub(crate) use versions::{KeyVersions, Version};

/// What a predicate read that did not return a key must have selected of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unseen {
    /// This version: the only one the predicate does not match.
    Selected(Version),
    /// Several versions fail the predicate; any could have been selected.
    Ambiguous,
    /// Every version matches, so the key should have been returned; Elle charitably takes the unborn
    /// version as selected.
    EveryVersionMatches,
}

/// The indexes every closed-predicate analysis shares.
pub struct Index<'h> {
    pub(crate) items: ItemIndex<'h>,
    pub(crate) keys: Vec<KeyVersions>,
    /// For each predicate a read used, what a read of it that did not return each key selected.
    pub(crate) unseen: FxHashMap<Predicate, Vec<Unseen>>,
    order: CommitOrder,
    /// The `incompatible-order` anomalies of the recorded commit order.
    contradictions: Vec<Case>,
}

impl<'h> Index<'h> {
    /// Builds the version orders and version sets, refusing micro-ops that are not the workload's, a
    /// second `init` op, and a version installed twice.
    pub fn new(txns: &Txns<'h>) -> Result<Index<'h>, CheckError> {
        let items = ItemIndex::new(txns, Workload::ClosedPredicate)?;
        let inits: Vec<TxnId> = txns.ids().filter(|&t| txns.invoke(t).f() == &Function::Init).collect();
        if let [first, second, ..] = inits[..] {
            return Err(CheckError::Workload {
                at: txns.invoke(second).at,
                message: format!(
                    "a second init op (the first is at line {}): the initial rows must be fixed once",
                    txns.invoke(first).at.line
                ),
            });
        }
        let init = inits.first().copied().filter(|&t| txns.is_possible(t));
        let order = CommitOrder::new(txns);
        let keys = versions::key_versions(&items, txns, init, &order)?;
        let mut unseen: FxHashMap<Predicate, Vec<Unseen>> = FxHashMap::default();
        for t in txns.ids().filter(|&t| txns.outcome(t) == OpType::Ok) {
            for mop in txns.mops(t) {
                if let Mop::PredicateRead { predicate, .. } = mop {
                    unseen
                        .entry(*predicate)
                        .or_insert_with(|| keys.iter().map(|kv| unseen_of(kv, *predicate)).collect());
                }
            }
        }
        let mut index = Index { items, keys, unseen, order, contradictions: Vec::new() };
        if index.order.recorded() > 0 {
            index.contradictions = index.order_contradictions(txns);
        }
        Ok(index)
    }

    /// What the recorded commit order contradicts in the history: its placements, and each committed
    /// transaction's read (an item read or a row a predicate read returned) of a version whose installer
    /// the order places after the reader.
    fn order_contradictions(&self, txns: &Txns<'h>) -> Vec<Case> {
        let mut cases = self.order.placements(txns);
        for t in txns.ids().filter(|&t| txns.outcome(t) == OpType::Ok) {
            let mut read: Vec<(KeyId, Option<i64>)> = Vec::new();
            for (i, mop) in txns.mops(t).iter().enumerate() {
                match (ItemOp::of(mop), mop) {
                    (Some(ItemOp::Read(Some(v))), _) => read.push((self.items.key_of(t, i), Some(v))),
                    (None, Mop::PredicateRead { rows: Some(rows), .. }) => {
                        read.extend(rows.iter().filter_map(|(key, &v)| Some((self.items.id(key)?, Some(v)))));
                    }
                    _ => {}
                }
            }
            read.sort_unstable();
            read.dedup();
            for (k, value) in read {
                let kv = &self.keys[k as usize];
                let Some(p) = value.and_then(|v| kv.position(Version::Value(v))) else { continue };
                let writer = kv.installer[p as usize];
                cases.extend(self.order.read_ahead(txns, t, writer, self.items.key(k), value));
            }
        }
        cases
    }

    /// How many transactions the database's recorded commit order places.
    pub fn commit_ordered(&self) -> usize {
        self.order.recorded()
    }

    /// The number of keys.
    pub fn key_count(&self) -> usize {
        self.items.key_count()
    }

    /// The number of keys whose whole version order the history proves.
    pub fn ordered_key_count(&self) -> usize {
        self.keys.iter().filter(|kv| kv.is_total()).count()
    }

    /// The version a read of key `k` returning `value` observed, if it is a version of the key.
    pub(crate) fn read_version(&self, k: KeyId, value: Option<i64>) -> Option<Version> {
        let kv = &self.keys[k as usize];
        match value {
            Some(v) => kv.position(Version::Value(v)).map(|_| Version::Value(v)),
            None => kv.resolve_nil(),
        }
    }

    /// A predicate read's version set: each key with the version it returned or must have selected.
    pub(crate) fn version_set(&self, mop: &Mop) -> Vec<(KeyId, Version, bool)> {
        let Mop::PredicateRead { predicate, rows: Some(rows) } = mop else { return Vec::new() };
        let Some(unseen) = self.unseen.get(predicate) else { return Vec::new() };
        let mut set = Vec::with_capacity(self.keys.len());
        for (k, kv) in self.keys.iter().enumerate() {
            let key = self.items.key(k as KeyId);
            match rows.get(key) {
                Some(&v) => {
                    if kv.position(Version::Value(v)).is_some() {
                        set.push((k as KeyId, Version::Value(v), true));
                    }
                }
                None => match unseen[k] {
                    Unseen::Selected(v) => set.push((k as KeyId, v, false)),
                    Unseen::EveryVersionMatches => set.push((k as KeyId, Version::Unborn, false)),
                    Unseen::Ambiguous => {}
                },
            }
        }
        set
    }

    /// The `ww`, `wr`, `rw`, `wrp` and `rwp` edges.
    pub fn edges(&self, txns: &Txns<'h>) -> EdgeList {
        let mut edges = EdgeList::new();
        for kv in &self.keys {
            for p in 0..kv.versions.len() {
                // Whoever installed a version overwrote the external write before it.
                for (c, _) in kv.successors(kv.versions[p]) {
                    if kv.writer[p] != NO_TXN && kv.installer[c as usize] != NO_TXN {
                        edges.add(kv.writer[p], kv.installer[c as usize], Kind::Ww);
                    }
                }
            }
        }
        for t in txns.ids().filter(|&t| txns.outcome(t) == OpType::Ok) {
            for (i, mop) in txns.mops(t).iter().enumerate() {
                match (ItemOp::of(mop), mop) {
                    (Some(ItemOp::Read(value)), _) => {
                        let k = self.items.key_of(t, i);
                        let kv = &self.keys[k as usize];
                        let Some(v) = self.read_version(k, value) else { continue };
                        if let Some(w) = kv.position(v).map(|p| kv.writer[p as usize]).filter(|&w| w != NO_TXN) {
                            edges.add(w, t, Kind::Wr);
                        }
                        // Whoever installed a next version overwrote this one, even when that was not
                        // its last write of the key: its own final version comes later still.
                        for (next, _) in kv.successors(v) {
                            if kv.installer[next as usize] != NO_TXN {
                                edges.add(t, kv.installer[next as usize], Kind::Rw);
                            }
                        }
                    }
                    (None, Mop::PredicateRead { predicate, .. }) => {
                        for (k, v, _) in self.version_set(mop) {
                            let kv = &self.keys[k as usize];
                            if let Some(w) = kv.position(v).map(|p| kv.writer[p as usize]).filter(|&w| w != NO_TXN) {
                                edges.add(w, t, Kind::Wrp);
                            }
                            for &later in kv.later(v) {
                                let later = later as usize;
                                if kv.versions[later].matches(*predicate) != v.matches(*predicate)
                                    && kv.writer[later] != NO_TXN
                                {
                                    edges.add(t, kv.writer[later], Kind::Rwp);
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        edges
    }

    /// The anomalies that need no graph: the item-read anomalies and `predicate-read-miss`.
    pub fn cases(&self, txns: &Txns<'h>) -> BTreeMap<&'static str, Vec<Case>> {
        let mut cases = item_cases::all(&self.items, txns);
        for c in &self.contradictions {
            item_cases::push(&mut cases, "incompatible-order", c.clone());
        }
        for t in txns.ids().filter(|&t| txns.outcome(t) == OpType::Ok) {
            for mop in txns.mops(t) {
                let Mop::PredicateRead { predicate, rows: Some(rows) } = mop else { continue };
                let Some(unseen) = self.unseen.get(predicate) else { continue };
                for (k, kv) in self.keys.iter().enumerate() {
                    let key = self.items.key(k as KeyId);
                    if unseen[k] != Unseen::EveryVersionMatches || rows.contains_key(key) {
                        continue;
                    }
                    let text = format!(
                        "{}'s predicate read {mop} did not return key {key}, yet every version key {key} ever had \
                         ({}) matches {predicate}: whichever version the read selected, it should have returned the row",
                        txns.name(t),
                        kv.order_text()
                    );
                    let versions: Vec<String> = kv.versions.iter().map(Version::to_string).collect();
                    let facts = facts([("mop", mop_json(mop)), ("versions", json!(versions))]);
                    item_cases::push(&mut cases, "predicate-read-miss", case(txns, &[t], Some(key), facts, text));
                }
            }
        }
        cases
    }

    /// What the checker could not see: the keys whose version order the history proves only in part.
    pub fn blind_spots(&self) -> Vec<String> {
        let partial = self.keys.iter().filter(|kv| !kv.is_total()).count();
        if partial == 0 {
            return Vec::new();
        }
        vec![format!(
            "{partial} of the {} keys have versions whose order the history does not show (writes by several \
             transactions, none of which read what the other wrote); a version order is taken only from what the \
             history proves (the initial row first, a transaction's own writes in order, a version read before the \
             same transaction's write of the key, and the database's commit order where the history records it), never \
             from the order in which writers' completions were recorded, so the write-write and anti-dependencies between those writes are not inferred",
            self.keys.len()
        )]
    }
}

/// What a predicate read that did not return the key must have selected of it.
fn unseen_of(kv: &KeyVersions, predicate: Predicate) -> Unseen {
    let mut failing = kv.versions.iter().filter(|v| !v.matches(predicate));
    match (failing.next(), failing.next()) {
        (None, _) => Unseen::EveryVersionMatches,
        (Some(&v), None) => Unseen::Selected(v),
        (Some(_), Some(_)) => Unseen::Ambiguous,
    }
}
