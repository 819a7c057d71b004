//! The database's own commit order, when a history records it (`commit_order` on completions, which
//! `check --transaction-order FILE` can also supply): white-box evidence for version orders, used by the
//! rw-register and closed-predicate checkers alike.
//! Each key's writes are ordered by their transactions' positions, the assumption Elle's and adya's
//! `transaction-order` make (a database installs a key's versions in its commit order; an adapter
//! records a position only where its system makes that exact). What the order contradicts in the
//! history itself is an `incompatible-order` anomaly: two transactions at one position (a commit order
//! places each transaction once), a transaction the client saw fail that the database placed in its
//! commit order, and a committed read of a value whose writer the order places after the reader (the
//! reader saw a write before it was committed, or the order is wrong). What the order contradicts under a
//! model (a read of a version it says was overwritten) is left to the dependency graph, as any other
//! version order's consequences. This module owns the positions and those contradictions; the version
//! graphs are each workload's, and so are the version edges the positions give them (the registers' in
//! `rw_register::commit_edges`, the closed predicates' in `closed_predicate::versions`).

use histories::{Key, OpType};
use rustc_hash::FxHashMap;
use serde_json::json;

use crate::explain::{case, facts};
use crate::graph::TxnId;
use crate::item::{NO_TXN, value_text};
use crate::result::Case;
use crate::txn::Txns;

/// Each transaction's position in the database's commit order, as its completion recorded it.
pub(crate) struct CommitOrder {
    position: Vec<Option<i64>>,
    recorded: usize,
}

impl CommitOrder {
    /// The positions the history's completions record.
    pub(crate) fn new(txns: &Txns<'_>) -> CommitOrder {
        let position: Vec<Option<i64>> =
            txns.ids().map(|t| txns.completion(t).and_then(|op| op.commit_order())).collect();
        let recorded = position.iter().filter(|p| p.is_some()).count();
        CommitOrder { position, recorded }
    }

    /// How many transactions have a recorded position.
    pub(crate) fn recorded(&self) -> usize {
        self.recorded
    }

    /// The transaction's recorded position, if any.
    pub(crate) fn position(&self, t: TxnId) -> Option<i64> {
        self.position.get(t as usize).copied().flatten()
    }

    /// Whether the transaction's position may order its writes: it has one, it did not fail, and no other
    /// transaction shares it (those contradictions are reported instead).
    pub(crate) fn orders(&self, txns: &Txns<'_>, t: TxnId, shared: &FxHashMap<i64, Vec<TxnId>>) -> Option<i64> {
        let p = self.position(t)?;
        (txns.outcome(t) != OpType::Fail && !shared.contains_key(&p)).then_some(p)
    }

    /// The positions two or more transactions share, with those transactions.
    pub(crate) fn shared_positions(&self) -> FxHashMap<i64, Vec<TxnId>> {
        let mut at: FxHashMap<i64, Vec<TxnId>> = FxHashMap::default();
        for (t, p) in self.position.iter().enumerate() {
            if let Some(p) = p {
                at.entry(*p).or_default().push(t as TxnId);
            }
        }
        at.retain(|_, ts| ts.len() > 1);
        at
    }

    /// The `incompatible-order` anomalies of the positions alone: two transactions at one position, and a
    /// failed transaction with one.
    pub(crate) fn placements(&self, txns: &Txns<'_>) -> Vec<Case> {
        let mut cases = Vec::new();
        let mut shared: Vec<(i64, Vec<TxnId>)> = self.shared_positions().into_iter().collect();
        shared.sort_unstable();
        for (p, ts) in shared {
            let names: Vec<String> = ts.iter().map(|&t| txns.name(t)).collect();
            let text = format!(
                "{} are all at position {p} of the database's commit order, which places each transaction once",
                names.join(", ")
            );
            cases.push(case(txns, &ts, None, facts([("position", json!(p))]), text));
        }
        for t in txns.ids().filter(|&t| txns.outcome(t) == OpType::Fail) {
            if let Some(p) = self.position(t) {
                let text = format!(
                    "{} failed, so it had no effect; yet the database placed it at position {p} of its commit order",
                    txns.name(t)
                );
                cases.push(case(txns, &[t], None, facts([("position", json!(p))]), text));
            }
        }
        cases
    }

    /// The `incompatible-order` anomaly of a committed transaction `reader` that read `value` of `key`,
    /// which `writer` wrote, when the order places the writer after the reader.
    pub(crate) fn read_ahead(
        &self,
        txns: &Txns<'_>,
        reader: TxnId,
        writer: TxnId,
        key: &Key,
        value: Option<i64>,
    ) -> Option<Case> {
        if writer == NO_TXN || writer == reader || txns.outcome(reader) != OpType::Ok {
            return None;
        }
        let (pt, pw) = (self.position(reader)?, self.position(writer)?);
        if pw <= pt {
            return None;
        }
        let text = format!(
            "{} read key {key} = {}, which {} wrote; yet the database's commit order places {} (position {pw}) after \
             {} (position {pt}): the reader saw a write before it was committed, or the order is wrong",
            txns.name(reader),
            value_text(value),
            txns.name(writer),
            txns.name(writer),
            txns.name(reader),
        );
        let the_facts =
            facts([("value", json!(value)), ("reader_position", json!(pt)), ("writer_position", json!(pw))]);
        Some(case(txns, &[writer, reader], Some(key), the_facts, text))
    }
}

/// Why the recorded commit order puts `a`'s version before `b`'s, in words.
pub(crate) fn placed_before(txns: &Txns<'_>, a: TxnId, b: TxnId) -> String {
    let position =
        |t: TxnId| txns.completion(t).and_then(|op| op.commit_order()).map_or_else(String::new, |p| p.to_string());
    format!(
        "the database's commit order places {} (position {}) before {} (position {})",
        txns.name(a),
        position(a),
        txns.name(b),
        position(b)
    )
}
