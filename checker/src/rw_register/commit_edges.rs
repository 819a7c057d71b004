//! The recorded commit order's evidence about registers (see `crate::commit_order`): the version edges
//! it gives each key's graph, and what it contradicts in a register history (a committed read of a
//! version whose writer the order places after the reader, besides the positions' own contradictions).
//! The positions are `commit_order`'s; the version graph `version_graph`'s.

use crate::commit_order::CommitOrder;
use crate::graph::TxnId;
use crate::item::{Ext, ItemIndex};
use crate::result::Case;
use crate::txn::Txns;

use super::version_graph::{Source, VersionEdge, Versions};

impl CommitOrder {
    /// For each key, the version edges between its writes consecutive in the commit order: from the
    /// value of each positioned writer to the value of the next (writers that failed, and writers at a
    /// position another transaction shares, are left out: those contradictions are reported instead).
    pub(crate) fn version_edges(
        &self,
        txns: &Txns<'_>,
        ext: &[&[Ext]],
        versions: &[Versions],
    ) -> Vec<Vec<VersionEdge>> {
        let shared = self.shared_positions();
        let mut writes: Vec<Vec<(i64, TxnId, u32)>> = vec![Vec::new(); versions.len()];
        for (t, exts) in ext.iter().enumerate() {
            let t = t as TxnId;
            let Some(p) = self.orders(txns, t, &shared) else { continue };
            for e in exts.iter() {
                if let Some(value) = e.write
                    && let Some(id) = versions[e.key as usize].id(value)
                {
                    writes[e.key as usize].push((p, t, id));
                }
            }
        }
        writes
            .into_iter()
            .map(|mut ws| {
                ws.sort_unstable();
                ws.windows(2)
                    .filter(|w| w[0].2 != w[1].2)
                    .map(|w| (w[0].2, w[1].2, Source::CommitOrder(w[0].1, w[1].1)))
                    .collect()
            })
            .collect()
    }

    /// The `incompatible-order` anomalies of a register history: what the recorded order contradicts in
    /// the history itself.
    pub(crate) fn contradictions(
        &self,
        txns: &Txns<'_>,
        items: &ItemIndex<'_>,
        ext: &[&[Ext]],
        versions: &[Versions],
    ) -> Vec<Case> {
        let mut cases = self.placements(txns);
        for (t, exts) in ext.iter().enumerate() {
            let t = t as TxnId;
            for e in exts.iter() {
                let Some(value) = e.read else { continue };
                let kv = &versions[e.key as usize];
                let Some(id) = kv.id(value) else { continue };
                cases.extend(self.read_ahead(txns, t, kv.ext_writer[id as usize], items.key(e.key), value));
            }
        }
        cases
    }
}
