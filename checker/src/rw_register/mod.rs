//! The rw-register workload, with the semantics of Elle's `elle.rw-register`: transactions write unique
//! values to registers (`[w k v]`) and read them (`[r k v]`, `nil` for the initial state). A read shows
//! one value, not the order of the writes before it, so each key's version order is only what can be
//! inferred (see [`versions`]): `nil` first, and, under Elle's assumptions when asked, writes following
//! reads, process order and real-time order. From the version graph follow write-read (`wr`: the
//! writer of a value to its external readers), write-write (`ww`) and anti-dependency (`rw`) edges:
//! for each version edge `v1 -> v2`, from the writer and the readers of `v1` to the writer of `v2`.
//! External reads and writes only, as Elle: a transaction's first micro-op on a key if it reads, and
//! its last write of it. Committed and indeterminate transactions take part; an indeterminate one's
//! reads are not observations (it may never have committed, and then they constrain nothing). (Elle indexes only committed transactions here; an
//! `info` transaction whose write someone read did commit, and the list-append checker counts it, so
//! this one does too.)
//!
//! Because so little order is visible, this module also says what it could not infer: the keys whose
//! writes it could not order and the dependencies it never saw, as `blind_spots`.
//!
//! The submodules, lowest first: `version_graph` (a key's versions and the edges between them),
//! `commit_edges` and `write_versions` (the edges and contradictions of a recorded commit order and of
//! recorded version numbers), `versions` (every key's graph, inferred from all of them) and `explain`.

mod commit_edges;
mod explain;
mod version_graph;
mod versions;
mod write_versions;

use std::collections::BTreeMap;
use std::ops::Range;

use histories::OpType;
use rayon::iter::{IndexedParallelIterator, IntoParallelRefIterator, ParallelIterator};

use crate::chunks;
use crate::error::CheckError;
use crate::exact::ExactSource;
use crate::explain::case;
use crate::graph::{EdgeList, TxnId};
use crate::item::{Ext, ItemIndex, KeyId, NO_TXN, cases as item_cases, value_text};
use crate::kind::Kind;
use crate::options::{Inference, Workload};
use crate::phase::Phase;
use crate::polygraph::{self, KeyWrites};
use crate::result::Case;
use crate::txn::Txns;

use crate::commit_order::CommitOrder;
pub use explain::RwRegisterExplainer;
use version_graph::Versions;
use versions::CyclicVersions;
use write_versions::WriteVersions;

/// The indexes every rw-register analysis shares.
pub struct Index<'h> {
    items: ItemIndex<'h>,
    /// Each transaction's externals, flattened (empty for a failed one; an indeterminate one's reads
    /// left out); `ext_start[t]` is where transaction `t` begins.
    ext: Vec<Ext>,
    ext_start: Vec<u32>,
    versions: Vec<Versions>,
    cyclic: Vec<CyclicVersions>,
    inference: Inference,
    order: CommitOrder,
    numbers: WriteVersions,
    /// The `incompatible-order` anomalies of the recorded commit order and write versions.
    contradictions: Vec<Case>,
}

impl<'h> Index<'h> {
    /// Builds the indexes and infers the version orders, refusing micro-ops that are not rw-register's.
    pub fn new(txns: &Txns<'h>, inference: Inference) -> Result<Index<'h>, CheckError> {
        let phase = Phase::start();
        let items = ItemIndex::new(txns, Workload::RwRegister)?;
        phase.done("rw-register items");
        // Each transaction's externals are its own: the cores take ranges of transactions, and the
        // pieces are joined in transaction order.
        let pieces = chunks::per_chunk(txns.len(), |ids| externals_of(txns, &items, ids));
        let mut ext = Vec::with_capacity(pieces.iter().map(|(e, _)| e.len()).sum());
        let mut ext_start = Vec::with_capacity(txns.len() + 1);
        for (piece, counts) in pieces {
            let mut at = ext.len() as u32;
            for count in counts {
                ext_start.push(at);
                at += count;
            }
            ext.extend(piece);
        }
        ext_start.push(ext.len() as u32);
        let per_txn: Vec<&[Ext]> =
            (0..txns.len()).map(|t| &ext[ext_start[t] as usize..ext_start[t + 1] as usize]).collect();
        phase.done("rw-register external reads and writes");
        let order = CommitOrder::new(txns);
        let numbers = WriteVersions::new(txns, items.key_count(), &per_txn);
        let (versions, cyclic) = versions::infer(txns, items.key_count(), &per_txn, inference, &order, &numbers);
        phase.done("rw-register version orders");
        let mut contradictions =
            if order.recorded() > 0 { order.contradictions(txns, &items, &per_txn, &versions) } else { Vec::new() };
        // A failed transaction's numbered write is not among the externals: always look.
        contradictions.extend(numbers.contradictions(txns, &items, &per_txn, &versions));
        Ok(Index { items, ext, ext_start, versions, cyclic, inference, order, numbers, contradictions })
    }

    fn externals(&self, t: TxnId) -> &[Ext] {
        &self.ext[self.ext_start[t as usize] as usize..self.ext_start[t as usize + 1] as usize]
    }

    /// The number of keys.
    pub fn key_count(&self) -> usize {
        self.items.key_count()
    }

    /// How many transactions the database's recorded commit order places.
    pub fn commit_ordered(&self) -> usize {
        self.order.recorded()
    }

    /// How many committed writes carry the version number the database gave them.
    pub fn numbered_writes(&self) -> usize {
        self.numbers.recorded()
    }

    /// The number of keys whose versions the inferred order ranks totally.
    pub fn ordered_key_count(&self) -> usize {
        self.versions.iter().filter(|kv| kv.is_total()).count()
    }

    /// The `wr`, `ww` and `rw` edges among `ok` and `info` transactions.
    pub fn edges(&self) -> EdgeList {
        // Keys are independent: the cores share them out, and the lists come back in key order.
        let per_key: Vec<EdgeList> = self.versions.par_iter().with_min_len(256).map(key_edges).collect();
        let mut edges = EdgeList::new();
        for list in per_key {
            edges.extend(list);
        }
        edges
    }

    /// The anomalies that need no graph, by name: the item-read anomalies and `cyclic-versions`.
    pub fn cases(&self, txns: &Txns<'h>) -> BTreeMap<&'static str, Vec<Case>> {
        let mut cases = item_cases::all(&self.items, txns);
        for c in &self.cyclic {
            item_cases::push(&mut cases, "cyclic-versions", self.cyclic_case(txns, c));
        }
        for c in &self.contradictions {
            item_cases::push(&mut cases, "incompatible-order", c.clone());
        }
        cases
    }

    fn cyclic_case(&self, txns: &Txns<'h>, c: &CyclicVersions) -> Case {
        let key = self.items.key(c.key);
        let kv = &self.versions[c.key as usize];
        let value = |v: u32| value_text(kv.values[v as usize]);
        let mut involved: Vec<TxnId> = Vec::new();
        let mut steps = Vec::new();
        for &(from, to, source) in &c.cycle {
            for t in source.txns() {
                if !involved.contains(&t) {
                    involved.push(t);
                }
            }
            steps.push(format!("{} < {}, because {}", value(from), value(to), source.reason(txns, key)));
        }
        let dropped = c.sources.last().copied().unwrap_or("initial-state");
        let text = format!(
            "The versions of key {key} inferred from {} form a cycle: {}. So the {dropped} order was not used for key \
             {key}.",
            c.sources.join(", "),
            steps.join("; ")
        );
        let cycle: Vec<serde_json::Value> =
            c.cycle.iter().map(|&(v, _, _)| serde_json::json!(kv.values[v as usize])).collect();
        let facts =
            crate::explain::facts([("versions", serde_json::json!(cycle)), ("sources", serde_json::json!(c.sources))]);
        case(txns, &involved, Some(key), facts, text)
    }

    /// Each key's writes that took effect (committed writers', and those of indeterminate writers some of
    /// whose writes somebody read, so that they did commit), with their external readers and the pairs the inferred version
    /// order ranks: what an exact decision needs (see [`crate::exact`]). An indeterminate writer nobody
    /// read may never have committed; leaving its writes out can only remove cycles it could be in, and
    /// it has no edge out of it (its reads are not observations), so it is in none.
    fn writes_by_key(&self, txns: &Txns<'_>) -> Vec<KeyWrites> {
        // An indeterminate transaction committed if any of its writes was read, and then all of them
        // took effect.
        let mut read_from = vec![false; txns.len()];
        for kv in &self.versions {
            for (v, &w) in kv.ext_writer.iter().enumerate() {
                if w != NO_TXN && kv.readers(v as u32).iter().any(|&r| r != w) {
                    read_from[w as usize] = true;
                }
            }
        }
        self.versions
            .par_iter()
            .enumerate()
            .with_min_len(64)
            .filter_map(|(k, kv)| {
                let kept: Vec<u32> = (1..kv.values.len() as u32)
                    .filter(|&v| {
                        let w = kv.ext_writer[v as usize];
                        w != NO_TXN
                            && kv.values[v as usize].is_some()
                            && (txns.outcome(w) == OpType::Ok || read_from[w as usize])
                    })
                    .collect();
                if kept.len() < 2 {
                    return None;
                }
                let edges: Vec<(u32, u32)> = kv.edges.iter().map(|&(a, b, _)| (a, b)).collect();
                let reach = polygraph::reachability(kv.values.len(), &edges, &kept);
                let writes = kept
                    .iter()
                    .map(|&v| {
                        let value = kv.values[v as usize].unwrap_or_default();
                        (kv.ext_writer[v as usize], value, kv.readers(v).to_vec())
                    })
                    .collect();
                let ordered =
                    reach.iter().map(|row| kept.iter().map(|&b| row.contains(b as usize)).collect()).collect();
                Some(KeyWrites { key: k as KeyId, writes, ordered })
            })
            .collect()
    }

    /// What the checker could not infer, in words: keys whose writes it could not order, and
    /// dependencies it never saw.
    pub fn blind_spots(&self) -> Vec<String> {
        let mut spots: Vec<String> = self.unordered_writes().into_iter().collect();
        spots.extend(self.unseen_reads());
        spots
    }

    /// The keys whose writes inference could not order, in words, if any: a blind spot of inference,
    /// which an exact decision then covers.
    pub fn unordered_writes(&self) -> Option<String> {
        let mut spots = Vec::new();
        let written_twice: Vec<&Versions> =
            self.versions.iter().filter(|kv| kv.ext_writer.iter().filter(|&&w| w != NO_TXN).count() > 1).collect();
        let unordered = written_twice.iter().filter(|kv| !kv.is_total()).count();
        if unordered > 0 {
            let of = format!("{unordered} of the {} keys written more than once", written_twice.len());
            spots.push(if self.order.recorded() > 0 {
                format!(
                    "{of} have writes neither the database's recorded commit order nor the history orders (writers \
                     with no recorded position, such as indeterminate ones): no ww dependency, and no rw dependency \
                     but from a read of nil, can be inferred between those writes"
                )
            } else if self.inference.any() {
                format!(
                    "{of} have writes the version order leaves unordered even assuming {}: no ww dependency, and no rw \
                     dependency but from a read of nil, can be inferred between those writes",
                    self.inference.names().join(", ")
                )
            } else {
                format!(
                    "{of} have writes the checker could not order: a register read shows one value, not the writes \
                     before it, so without --wfr-keys, --sequential-keys or --linearizable-keys (assumptions about the \
                     system) two writes of a key are never ordered, and no ww dependency, nor any rw dependency but \
                     from a read of nil, can be inferred"
                )
            });
        }
        spots.pop()
    }

    /// That no transaction read another's write, in words, if so.
    fn unseen_reads(&self) -> Option<String> {
        let mut spots = Vec::new();
        let any_write = self.versions.iter().any(|kv| kv.ext_writer.iter().any(|&w| w != NO_TXN));
        let read_another = self.versions.iter().any(|kv| {
            kv.ext_writer.iter().enumerate().any(|(v, &w)| w != NO_TXN && kv.readers(v as u32).iter().any(|&r| r != w))
        });
        if any_write && !read_another {
            spots.push(
                "no transaction read a value another transaction wrote, so there is no wr dependency: nothing shows \
                 what one transaction saw of another's writes"
                    .to_string(),
            );
        }
        spots.pop()
    }
}

impl ExactSource for Index<'_> {
    fn key_writes(&self, txns: &Txns<'_>) -> Vec<KeyWrites> {
        self.writes_by_key(txns)
    }

    fn dependencies(&self, _txns: &Txns<'_>) -> EdgeList {
        self.edges()
    }

    fn key_name(&self, k: KeyId) -> histories::Key {
        self.items.key(k).clone()
    }
}

/// The externals of the transactions `ids`, flattened, and how many each transaction has: none for a
/// failed one, and an indeterminate one's reads left out.
fn externals_of(txns: &Txns<'_>, items: &ItemIndex<'_>, ids: Range<TxnId>) -> (Vec<Ext>, Vec<u32>) {
    let mut ext = Vec::new();
    let mut counts = Vec::with_capacity(ids.len());
    let mut scratch = Vec::new();
    for t in ids {
        let outcome = txns.outcome(t);
        if outcome == OpType::Fail {
            counts.push(0);
            continue;
        }
        items.externals(txns, t, &mut scratch);
        counts.push(scratch.len() as u32);
        for e in &scratch {
            // An indeterminate transaction's reads are not observations: it may never have committed.
            let read = if outcome == OpType::Info { None } else { e.read };
            ext.push(Ext { read, ..*e });
        }
    }
    (ext, counts)
}

/// The `wr`, `ww` and `rw` edges one key's versions give.
fn key_edges(kv: &Versions) -> EdgeList {
    let mut edges = EdgeList::new();
    for (v, &w) in kv.ext_writer.iter().enumerate() {
        if w != NO_TXN {
            for &r in kv.readers(v as u32) {
                edges.add(w, r, Kind::Wr);
            }
        }
    }
    for &(v1, v2, _) in &kv.edges {
        let w2 = kv.ext_writer[v2 as usize];
        if w2 == NO_TXN {
            continue;
        }
        let w1 = kv.ext_writer[v1 as usize];
        if w1 != NO_TXN {
            edges.add(w1, w2, Kind::Ww);
        }
        for &r in kv.readers(v1) {
            edges.add(r, w2, Kind::Rw);
        }
    }
    edges
}
