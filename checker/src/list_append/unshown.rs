//! The appends no read showed. A list's reads reveal the order of every append they show, and an append
//! none of them shows came after every one they show (a read taken after it would have shown it); but
//! the order among a key's unshown appends is open, and under snapshot isolation it can decide the
//! verdict (two transactions that both appended to a key cannot have run concurrently). Two sources
//! close it. The database's commit order, when the history records one (`commit_order`, which `check
//! --transaction-order` or an exact decision's witness supplies), ranks them as it ranks register writes:
//! a `ww` dependency from each unshown append's transaction to the next one's. Where the order is silent,
//! the exact decision gets each pair of them as a choice ([`ExactSource`]). Unshown appends have no
//! readers, so a choice adds only its `ww` dependency. This module owns the unshown appends, their
//! commit-order chain, and what the exact decision is handed.
//!
//! Only transactions whose appends took effect take part: committed ones, and indeterminate ones some
//! read showed an append of (an indeterminate transaction none showed may never have committed, and one
//! with no dependency out of it is in no cycle). A transaction that some read showed appending to the
//! key is not unshown there: its appends are contiguous in the version order, so the shown one already
//! ranks it before every unshown transaction.

use histories::{Key, OpType};

use super::elems::{ElemMap, NO_TXN, UNORDERED};
use super::{Index, KeyId as ListKeyId};
use crate::commit_order::CommitOrder;
use crate::exact::ExactSource;
use crate::graph::{EdgeList, TxnId};
use crate::item::KeyId;
use crate::polygraph::KeyWrites;
use crate::txn::Txns;

/// One transaction's unshown appends to one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Unshown {
    pub txn: TxnId,
    /// The last element it appended to the key.
    pub value: i64,
    /// Its position in the database's commit order, when the key's unshown appends are ranked by it.
    pub position: Option<i64>,
    /// The unshown transaction just before it in that order (`NO_TXN`: none).
    pub after: TxnId,
}

/// A key's unshown appends, one per transaction, in transaction order, from its appends (transaction,
/// element) in transaction order and its elements once the version order placed them.
pub(super) fn unshown(
    txns: &Txns<'_>,
    appends: &[(TxnId, i64)],
    elems: &ElemMap,
    commit: Option<&CommitOrder>,
) -> Vec<Unshown> {
    let mut out: Vec<Unshown> = Vec::new();
    // A transaction's appends to the key are consecutive here.
    for group in appends.chunk_by(|a, b| a.0 == b.0) {
        let t = group[0].0;
        if !txns.is_possible(t) {
            continue;
        }
        // An element appended twice belongs to its first writer; a read showing it is another anomaly.
        let own =
            group.iter().filter_map(|&(_, v)| elems.get(v).filter(|el| el.writer == t).map(|el| (v, el.position)));
        let mut last_unshown = None;
        let mut shown = false;
        for (v, position) in own {
            if position == UNORDERED {
                last_unshown = Some(v);
            } else {
                shown = true;
            }
        }
        if let (false, Some(value)) = (shown, last_unshown) {
            out.push(Unshown { txn: t, value, position: None, after: NO_TXN });
        }
    }
    if let Some(commit) = commit {
        rank_by_commit_order(txns, commit, &mut out);
    }
    out
}

/// Ranks a key's unshown appends by the database's commit order: only when every one of them has a
/// position and no two share one (otherwise the order says nothing certain of them, and the
/// contradiction is the register checker's to report where it matters).
fn rank_by_commit_order(txns: &Txns<'_>, commit: &CommitOrder, unshown: &mut [Unshown]) {
    let mut placed: Vec<(i64, usize)> = Vec::with_capacity(unshown.len());
    for (i, u) in unshown.iter().enumerate() {
        match commit.position(u.txn) {
            Some(p) if txns.outcome(u.txn) != OpType::Fail => placed.push((p, i)),
            _ => return,
        }
    }
    placed.sort_unstable();
    if placed.windows(2).any(|w| w[0].0 == w[1].0) {
        return;
    }
    let mut previous = NO_TXN;
    for (p, i) in placed {
        unshown[i].position = Some(p);
        unshown[i].after = previous;
        previous = unshown[i].txn;
    }
}

impl Index<'_> {
    /// The unshown transaction the commit order puts just before `t`'s unshown appends to `k`, if any.
    pub(super) fn unshown_after(&self, k: ListKeyId, t: TxnId) -> Option<TxnId> {
        let list = &self.unshown[k as usize];
        let i = list.binary_search_by_key(&t, |u| u.txn).ok()?;
        Some(list[i].after).filter(|&a| a != NO_TXN)
    }

    /// The `ww` dependencies the commit order gives between unshown appends of each key.
    pub(super) fn unshown_edges(&self, edges: &mut EdgeList) {
        for list in &self.unshown {
            for u in list.iter().filter(|u| u.after != NO_TXN) {
                edges.add(u.after, u.txn, crate::kind::Kind::Ww);
            }
        }
    }
}

impl ExactSource for Index<'_> {
    fn key_writes(&self, txns: &Txns<'_>) -> Vec<KeyWrites> {
        let in_effect = self.in_effect(txns, &[]);
        self.unshown
            .iter()
            .enumerate()
            .filter_map(|(k, list)| {
                let kept: Vec<&Unshown> = list.iter().filter(|u| in_effect[u.txn as usize]).collect();
                if kept.len() < 2 {
                    return None;
                }
                let writes = kept.iter().map(|u| (u.txn, u.value, Vec::new())).collect();
                let ordered = kept
                    .iter()
                    .map(|a| {
                        kept.iter().map(|b| matches!((a.position, b.position), (Some(p), Some(q)) if p < q)).collect()
                    })
                    .collect();
                Some(KeyWrites { key: k as KeyId, writes, ordered })
            })
            .collect()
    }

    fn dependencies(&self, txns: &Txns<'_>) -> EdgeList {
        self.edges(txns)
    }

    fn key_name(&self, k: KeyId) -> Key {
        self.keys[k as usize].clone()
    }

    fn in_effect(&self, txns: &Txns<'_>, _key_writes: &[KeyWrites]) -> Vec<bool> {
        // Committed transactions, and indeterminate ones a committed read showed an append of.
        let mut in_effect: Vec<bool> = txns.ids().map(|t| txns.outcome(t) == OpType::Ok).collect();
        for &w in self.row_writers.iter().filter(|&&w| w != NO_TXN) {
            in_effect[w as usize] = true;
        }
        in_effect
    }

    fn write_text(&self, writer: &str, key: &Key, value: i64) -> String {
        format!("{writer}'s append of {value} to key {key}")
    }
}
