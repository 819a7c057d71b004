//! The version numbers a database gave its writes, when a history records them (`["w", k, v, version]`
//! on an `ok` completion): white-box evidence for register version orders, per key. A per-row version
//! counter incremented in the writing statement, under the lock the writer holds to its commit, numbers
//! every committed version of a row above the one it replaced, so each key's committed writes are
//! ordered by their numbers (the adapters record them only where that holds: PostgreSQL and MariaDB).
//! Only committed (`ok`) transactions' numbers count: a transaction that never committed may have left
//! its number to another writer, so an indeterminate one's number is not evidence, and a failed one
//! carrying a number is a contradiction.
//!
//! What the numbers contradict in the history itself is an `incompatible-order` anomaly: two committed
//! transactions that installed the same version of a key (one overwrote the other without seeing it, or
//! the numbering is not exact), a failed transaction with a numbered write, and a transaction that read
//! a version and then installed one numbered no later than it. What they contradict under a model is
//! left to the dependency graph. This module owns the numbers, the version edges they give and those
//! contradictions; commit positions are [`crate::commit_order`]'s and the version graph `version_graph`'s.

use histories::{Mop, OpType};
use rustc_hash::FxHashMap;
use serde_json::json;

use super::version_graph::{Source, VersionEdge, Versions};
use crate::explain::{case, facts};
use crate::graph::TxnId;
use crate::item::{Ext, ItemIndex, KeyId, NO_TXN, value_text};
use crate::result::Case;
use crate::txn::Txns;

/// The numbered writes of committed transactions, per key.
pub(crate) struct WriteVersions {
    /// Per key: (version, writer, value written), sorted.
    numbered: Vec<Vec<(i64, TxnId, i64)>>,
    recorded: usize,
}

impl WriteVersions {
    /// The numbers the committed transactions' external writes carry.
    pub(crate) fn new(txns: &Txns<'_>, key_count: usize, ext: &[&[Ext]]) -> WriteVersions {
        let mut numbered: Vec<Vec<(i64, TxnId, i64)>> = vec![Vec::new(); key_count];
        let mut recorded = 0;
        for (t, exts) in ext.iter().enumerate() {
            let t = t as TxnId;
            if txns.outcome(t) != OpType::Ok {
                continue;
            }
            for e in exts.iter() {
                if let (Some(version), Some(Some(value))) = (e.version, e.write) {
                    numbered[e.key as usize].push((version, t, value));
                    recorded += 1;
                }
            }
        }
        for writes in &mut numbered {
            writes.sort_unstable();
        }
        WriteVersions { numbered, recorded }
    }

    /// How many committed writes carry a version number.
    pub(crate) fn recorded(&self) -> usize {
        self.recorded
    }

    /// For each key, the version edges between writes consecutive in number, from the value of each to
    /// the value of the next; writes whose number another transaction shares are left out (reported
    /// instead).
    pub(crate) fn version_edges(&self, versions: &[Versions]) -> Vec<Vec<VersionEdge>> {
        self.numbered
            .iter()
            .zip(versions)
            .map(|(writes, kv)| {
                let unshared: Vec<(TxnId, u32)> = writes
                    .iter()
                    .enumerate()
                    .filter(|&(i, w)| {
                        let shares = |j: usize| writes.get(j).is_some_and(|o: &(i64, TxnId, i64)| o.0 == w.0);
                        !(shares(i + 1) || i > 0 && shares(i - 1))
                    })
                    .filter_map(|(_, &(_, t, value))| Some((t, kv.id(Some(value))?)))
                    .collect();
                unshared
                    .windows(2)
                    .filter(|w| w[0].1 != w[1].1)
                    .map(|w| (w[0].1, w[1].1, Source::WriteVersion(w[0].0, w[1].0)))
                    .collect()
            })
            .collect()
    }

    /// The `incompatible-order` anomalies: what the numbers contradict in the history itself.
    pub(crate) fn contradictions(
        &self,
        txns: &Txns<'_>,
        items: &ItemIndex<'_>,
        ext: &[&[Ext]],
        versions: &[Versions],
    ) -> Vec<Case> {
        let mut cases = Vec::new();
        for (k, writes) in self.numbered.iter().enumerate() {
            let key = items.key(k as KeyId);
            let mut shared: FxHashMap<i64, Vec<(TxnId, i64)>> = FxHashMap::default();
            for &(version, t, value) in writes {
                shared.entry(version).or_default().push((t, value));
            }
            let mut shared: Vec<(i64, Vec<(TxnId, i64)>)> = shared.into_iter().filter(|s| s.1.len() > 1).collect();
            shared.sort_unstable();
            for (version, writers) in shared {
                let ids: Vec<TxnId> = writers.iter().map(|w| w.0).collect();
                let wrote: Vec<String> =
                    writers.iter().map(|&(t, value)| format!("{} (which wrote {value})", txns.name(t))).collect();
                let text = format!(
                    "{} all committed version {version} of key {key}, which the database numbers once: one \
                     overwrote another without seeing it (a lost update), or the numbering is not exact",
                    wrote.join(", ")
                );
                cases.push(case(txns, &ids, Some(key), facts([("version", json!(version))]), text));
            }
        }
        for t in txns.ids().filter(|&t| txns.outcome(t) == OpType::Fail) {
            let Some(completion) = txns.completion(t) else { continue };
            for mop in completion.mops() {
                if let Mop::Write { key, value, version: Some(version) } = mop {
                    let text = format!(
                        "{} failed, so it had no effect; yet its write of key {key} = {value} carries version \
                         {version}, a number the database gives a committed version",
                        txns.name(t)
                    );
                    cases.push(case(txns, &[t], Some(key), facts([("version", json!(version))]), text));
                }
            }
        }
        for (t, exts) in ext.iter().enumerate() {
            let t = t as TxnId;
            if txns.outcome(t) != OpType::Ok {
                continue;
            }
            for e in exts.iter() {
                let (Some(Some(read)), Some(mine)) = (e.read, e.version) else { continue };
                let kv = &versions[e.key as usize];
                let Some(id) = kv.id(Some(read)) else { continue };
                let w = kv.ext_writer[id as usize];
                if w == NO_TXN || w == t {
                    continue;
                }
                // The writer's number for the key, if it committed (only committed numbers count).
                let numbered = |x: &Ext| (x.key == e.key).then_some(x.version).flatten();
                let seen = ext[w as usize].iter().find_map(numbered).filter(|_| txns.outcome(w) == OpType::Ok);
                let Some(seen) = seen else { continue };
                if mine <= seen {
                    let key = items.key(e.key);
                    let text = format!(
                        "{} read key {key} = {}, version {seen} (written by {}), and then installed version {mine} \
                         of it, which the database numbers as no later than the version it had read",
                        txns.name(t),
                        value_text(Some(read)),
                        txns.name(w),
                    );
                    let the_facts = facts([("read_version", json!(seen)), ("written_version", json!(mine))]);
                    cases.push(case(txns, &[w, t], Some(key), the_facts, text));
                }
            }
        }
        cases
    }
}
