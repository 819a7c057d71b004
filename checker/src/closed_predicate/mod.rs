//! Predicate reads, with the semantics of Elle's experimental `elle.closed-predicate` workload. An `init`
//! op fixes the universe's initial rows; transactions insert (`[insert k v]`), update (`[w k v]`),
//! delete (`[delete k]`) and read (`[r k v]`) rows, and read by predicate (`[rp pred rows]`, every row
//! the predicate matched). Under the closed-universe assumption every version of every key is known: the
//! initial row (or the unborn version, before an insert), then each write of a committed or
//! indeterminate transaction, in the order their writers completed (Elle's all-versions; its generator
//! mutates each key once after `init`, where that order is exact). Unborn and deleted versions match no
//! predicate. So a predicate read's version set (Adya's VSet(P)) is known beyond the rows it returned:
//! for a key it did not return, if exactly one version fails the predicate, that version is the one it
//! selected (if none fails, the read missed a row: `predicate-read-miss`).
//!
//! Edges, as Elle's `ww-graph`, `wr-graph` and `rw-graph`: `ww` from the writer of a version to the
//! writer of the next; `wr` from a version's writer to each item read of it; `rw` from each item read of a
//! version to the writer of the next one (the transaction that installed it, even as an intermediate
//! version of its own); `wrp` from the writer of each version in a predicate read's
//! version set to the reader; and `rwp` from the reader to the writer of every later version that changes
//! whether the predicate matches. A cycle with an `rwp` edge is `G-single`, `G-nonadjacent` or `G2`
//! proper. Where we differ from Elle: plain writes (`w`) have `ww` edges too (Elle's `ww-graph` matches
//! a `:write` micro-op that does not exist), predicate dependencies are their own kinds (`wrp`, `rwp`)
//! where Elle names them `wr` and `rw` with a flag, a key deleted twice is refused (its two dead
//! versions could not be told apart), and the item-read anomalies (`G1a`, `G1b`, `internal`,
//! `lost-update`, `garbage-read`) are checked here as for registers.

mod explain;

use std::collections::BTreeMap;
use std::fmt;

use histories::{Function, Mop, OpType, Predicate};
use rustc_hash::FxHashMap;
use serde_json::json;

use crate::error::CheckError;
use crate::explain::{case, facts, mop_json};
use crate::graph::{EdgeList, TxnId};
use crate::item::{ItemIndex, ItemOp, KeyId, NO_TXN, cases as item_cases};
use crate::kind::Kind;
use crate::options::Workload;
use crate::result::Case;
use crate::txn::Txns;

pub use explain::ClosedPredicateExplainer;

/// One version of a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Version {
    /// Before the key was inserted.
    Unborn,
    /// A row holding this value.
    Value(i64),
    /// After the key was deleted.
    Dead,
}

impl Version {
    /// Whether a row at this version matches the predicate: unborn and dead rows never do.
    pub(crate) fn matches(self, predicate: Predicate) -> bool {
        match self {
            Version::Value(v) => predicate.matches(v),
            Version::Unborn | Version::Dead => false,
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Version::Unborn => write!(f, "unborn"),
            Version::Value(v) => write!(f, "{v}"),
            Version::Dead => write!(f, "dead"),
        }
    }
}

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

/// One key's versions in order, with who installed each.
#[derive(Debug, Default)]
pub(crate) struct KeyVersions {
    pub order: Vec<Version>,
    /// The transaction whose write (or `init` row) installed each version (`NO_TXN` for unborn).
    pub installer: Vec<TxnId>,
    /// The installer, if this was its last write of the key (Elle's external write); else `NO_TXN`.
    pub writer: Vec<TxnId>,
    position: FxHashMap<Version, u32>,
    /// How many distinct transactions installed versions after the first.
    installers: usize,
}

impl KeyVersions {
    pub(crate) fn position(&self, version: Version) -> Option<u32> {
        self.position.get(&version).copied()
    }

    /// The position of the version right after `version`. The unborn version comes before every
    /// other, even when `init` created the key and it is not in the order.
    pub(crate) fn after(&self, version: Version) -> Option<usize> {
        let next = match (version, self.order.first()) {
            (Version::Unborn, Some(first)) if *first != Version::Unborn => 0,
            _ => self.position(version)? as usize + 1,
        };
        (next < self.order.len()).then_some(next)
    }

    /// What a read of `null` observed: the unborn version, or the dead one, if only one of them is a
    /// version of the key (unborn if neither is, as Elle assumes); `None` when both are.
    pub(crate) fn resolve_nil(&self) -> Option<Version> {
        let unborn = self.order.first() == Some(&Version::Unborn);
        let dead = self.position.contains_key(&Version::Dead);
        match (unborn, dead) {
            (true, true) => None,
            (false, true) => Some(Version::Dead),
            _ => Some(Version::Unborn),
        }
    }

    /// The versions in Elle's notation: `[unborn 30 dead]`.
    pub(crate) fn order_text(&self) -> String {
        let parts: Vec<String> = self.order.iter().map(Version::to_string).collect();
        format!("[{}]", parts.join(" "))
    }
}

/// The indexes every closed-predicate analysis shares.
pub struct Index<'h> {
    pub(crate) items: ItemIndex<'h>,
    pub(crate) keys: Vec<KeyVersions>,
    /// For each predicate a read used, what a read of it that did not return each key selected.
    pub(crate) unseen: FxHashMap<Predicate, Vec<Unseen>>,
}

impl<'h> Index<'h> {
    /// Builds the version orders and version sets, refusing micro-ops that are not the workload's, a
    /// second `init` op, and a version installed twice.
    pub fn new(txns: &Txns<'h>) -> Result<Index<'h>, CheckError> {
        let items = ItemIndex::new(txns, Workload::ClosedPredicate)?;
        let inits: Vec<TxnId> = txns.ids().filter(|&t| txns.invoke(t).f == Function::Init).collect();
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
        let mut keys: Vec<KeyVersions> = (0..items.key_count()).map(|_| KeyVersions::default()).collect();
        let initial_rows = init.and_then(|t| txns.init_rows(t));
        for (k, kv) in keys.iter_mut().enumerate() {
            let key = items.key(k as KeyId);
            match initial_rows.and_then(|rows| rows.get(key)) {
                Some(&v) => kv.push(Version::Value(v), init.unwrap_or(NO_TXN), init.unwrap_or(NO_TXN)),
                None => kv.push(Version::Unborn, NO_TXN, NO_TXN),
            }
        }
        // Writers in the order they completed; those that never did, last, in invocation order.
        let mut writers: Vec<(usize, usize, TxnId)> = txns
            .ids()
            .filter(|&t| txns.is_possible(t) && Some(t) != init)
            .map(|t| (txns.completion_position(t).unwrap_or(usize::MAX), txns.invoke_position(t), t))
            .collect();
        writers.sort_unstable();
        for (_, _, t) in writers {
            // Each key's last version this transaction installed: its external write.
            let mut last: Vec<(KeyId, usize)> = Vec::new();
            for (i, mop) in txns.mops(t).iter().enumerate() {
                let Some(ItemOp::Write(value)) = ItemOp::of(mop) else { continue };
                let k = items.key_of(t, i);
                let version = value.map_or(Version::Dead, Version::Value);
                let kv = &mut keys[k as usize];
                if let Some(p) = kv.position(version) {
                    let before = kv.installer[p as usize];
                    let by = if before == NO_TXN { String::new() } else { format!(" by {}", txns.name(before)) };
                    return Err(CheckError::Workload {
                        at: txns.op(t).at,
                        message: format!(
                            "{} installs version {version} of key {} again (it was installed{by}): each version of a \
                             key must be installed once, or versions cannot be told apart",
                            txns.name(t),
                            items.key(k)
                        ),
                    });
                }
                kv.push(version, t, NO_TXN);
                match last.iter_mut().find(|(key, _)| *key == k) {
                    Some(slot) => slot.1 = kv.order.len() - 1,
                    None => {
                        last.push((k, kv.order.len() - 1));
                        kv.installers += 1;
                    }
                }
            }
            for (k, p) in last {
                keys[k as usize].writer[p] = t;
            }
        }
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
        Ok(Index { items, keys, unseen })
    }

    /// The number of keys.
    pub fn key_count(&self) -> usize {
        self.items.key_count()
    }

    /// The number of keys whose order the history fixes without the completion-order assumption: those
    /// that at most one transaction wrote.
    pub fn ordered_key_count(&self) -> usize {
        self.keys.iter().filter(|kv| kv.installers <= 1).count()
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
            for p in 1..kv.order.len() {
                // Whoever installed a version overwrote the external write before it.
                if kv.writer[p - 1] != NO_TXN && kv.installer[p] != NO_TXN {
                    edges.add(kv.writer[p - 1], kv.installer[p], Kind::Ww);
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
                        // Whoever installed the next version overwrote this one, even when that was not
                        // its last write of the key: its own final version comes later still.
                        if let Some(next) = kv.after(v)
                            && kv.installer[next] != NO_TXN
                        {
                            edges.add(t, kv.installer[next], Kind::Rw);
                        }
                    }
                    (None, Mop::PredicateRead { predicate, .. }) => {
                        for (k, v, _) in self.version_set(mop) {
                            let kv = &self.keys[k as usize];
                            if let Some(w) = kv.position(v).map(|p| kv.writer[p as usize]).filter(|&w| w != NO_TXN) {
                                edges.add(w, t, Kind::Wrp);
                            }
                            let Some(first) = kv.after(v) else { continue };
                            for later in first..kv.order.len() {
                                if kv.order[later].matches(*predicate) != v.matches(*predicate)
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
                    let versions: Vec<String> = kv.order.iter().map(Version::to_string).collect();
                    let facts = facts([("mop", mop_json(mop)), ("versions", json!(versions))]);
                    item_cases::push(&mut cases, "predicate-read-miss", case(txns, &[t], Some(key), facts, text));
                }
            }
        }
        cases
    }

    /// What the checker took on trust: the keys whose versions only the order their writers completed in
    /// orders.
    pub fn blind_spots(&self) -> Vec<String> {
        let assumed = self.keys.iter().filter(|kv| kv.installers > 1).count();
        if assumed == 0 {
            return Vec::new();
        }
        vec![format!(
            "{assumed} of the {} keys were written by more than one transaction; their versions are ordered by when \
             their writers completed, as Elle's closed-predicate checker assumes, since no read shows that order: a \
             system that installs a key's versions in another order could be misjudged",
            self.keys.len()
        )]
    }
}

impl KeyVersions {
    fn push(&mut self, version: Version, installer: TxnId, writer: TxnId) {
        self.position.insert(version, self.order.len() as u32);
        self.order.push(version);
        self.installer.push(installer);
        self.writer.push(writer);
    }
}

/// What a predicate read that did not return the key must have selected of it.
fn unseen_of(kv: &KeyVersions, predicate: Predicate) -> Unseen {
    let mut failing = kv.order.iter().filter(|v| !v.matches(predicate));
    match (failing.next(), failing.next()) {
        (None, _) => Unseen::EveryVersionMatches,
        (Some(&v), None) => Unseen::Selected(v),
        (Some(_), Some(_)) => Unseen::Ambiguous,
    }
}
