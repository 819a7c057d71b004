//! The sentence that explains one closed-predicate dependency, in Elle's words: "T1 set key x to 1,
//! which T2 overwrote with 2" (`ww`), "T1 wrote x = 1, which was read by T2" (`wr`), "T1 read key x = 1,
//! which was overwritten by T2's write of 2" (`rw`), and for predicate reads "T1 set key x to 1, which
//! was in the version set of T2's predicate read ..." (`wrp`) and "T1 performed a predicate read ... of
//! key x and selected version 1, which was overwritten by T2's write of 2, which also changed whether the
//! predicate would have matched" (`rwp`), each with the key's version order. A version set entry the
//! read did not return says why the read must have selected it. Each is found again from the indexes
//! the edge came from, so an explanation can never disagree with the graph.

use histories::{Key, Mop};

use super::versions::OrderSource;
use super::{Index, Version};
use crate::explain::DataExplainer;
use crate::graph::TxnId;
use crate::item::{ItemOp, KeyId};
use crate::kind::Kind;
use crate::txn::Txns;

/// Explains closed-predicate dependencies.
pub struct ClosedPredicateExplainer<'a, 'h> {
    index: &'a Index<'h>,
    txns: &'a Txns<'h>,
}

impl<'a, 'h> ClosedPredicateExplainer<'a, 'h> {
    /// An explainer over these indexes.
    pub fn new(index: &'a Index<'h>, txns: &'a Txns<'h>) -> Self {
        ClosedPredicateExplainer { index, txns }
    }

    /// Each item read of transaction `t`: its key and the version it observed.
    fn reads(&self, t: TxnId) -> impl Iterator<Item = (KeyId, Version)> + '_ {
        self.txns.mops(t).iter().enumerate().filter_map(move |(i, mop)| match ItemOp::of(mop) {
            Some(ItemOp::Read(value)) => {
                let k = self.index.items.key_of(t, i);
                Some((k, self.index.read_version(k, value)?))
            }
            _ => None,
        })
    }

    fn key(&self, k: KeyId) -> &'h Key {
        self.index.items.key(k)
    }

    fn ww(&self, from: TxnId, to: TxnId) -> Option<(KeyId, String)> {
        let (a, b) = (self.txns.name(from), self.txns.name(to));
        self.index.keys.iter().enumerate().find_map(|(k, kv)| {
            let (p, (c, source)) = (0..kv.versions.len()).filter(|&p| kv.writer[p] == from).find_map(|p| {
                kv.successors(kv.versions[p]).find(|&(c, _)| kv.installer[c as usize] == to).map(|found| (p, found))
            })?;
            let key = self.key(k as KeyId);
            let first = match kv.versions[p] {
                Version::Dead => format!("{a} deleted key {key}"),
                v => format!("{a} set key {key} to {v}"),
            };
            let then = match kv.versions[c as usize] {
                Version::Dead => format!("which {b} deleted"),
                v => format!("which {b} overwrote with {v}"),
            };
            Some((k as KeyId, format!("{first}, {then}{}", because(source, self.txns))))
        })
    }

    fn wr(&self, from: TxnId, to: TxnId) -> Option<(KeyId, String)> {
        let (a, b) = (self.txns.name(from), self.txns.name(to));
        self.reads(to).find_map(|(k, v)| {
            let kv = &self.index.keys[k as usize];
            (kv.writer[kv.position(v)? as usize] == from).then(|| {
                let key = self.key(k);
                let text = match v {
                    Version::Dead => format!("{a} deleted key {key}, which {b} read as nil"),
                    _ => format!("{a} wrote {key} = {v}, which was read by {b}"),
                };
                (k, text)
            })
        })
    }

    fn rw(&self, from: TxnId, to: TxnId) -> Option<(KeyId, String)> {
        let (a, b) = (self.txns.name(from), self.txns.name(to));
        self.reads(from).find_map(|(k, v)| {
            let kv = &self.index.keys[k as usize];
            let (next, source) = kv.successors(v).find(|&(c, _)| kv.installer[c as usize] == to)?;
            let key = self.key(k);
            let read = match v {
                Version::Value(x) => format!("{a} read key {key} = {x}"),
                other => format!("{a} read key {key} = nil ({other})"),
            };
            let then = match kv.versions[next as usize] {
                Version::Dead => format!("which {b} then deleted"),
                w => format!("which was overwritten by {b}'s write of {w}"),
            };
            Some((k, format!("{read}, {then}{}", because(source, self.txns))))
        })
    }

    /// Each predicate read of `t` with its version set.
    fn predicate_reads(&self, t: TxnId) -> impl Iterator<Item = (&'h Mop, Vec<(KeyId, Version, bool)>)> + '_ {
        self.txns
            .mops(t)
            .iter()
            .filter(|m| matches!(m, Mop::PredicateRead { .. }))
            .map(|m| (m, self.index.version_set(m)))
    }

    fn wrp(&self, from: TxnId, to: TxnId) -> Option<(KeyId, String)> {
        let (a, b) = (self.txns.name(from), self.txns.name(to));
        self.predicate_reads(to).find_map(|(mop, set)| {
            set.into_iter().find_map(|(k, v, returned)| {
                let kv = &self.index.keys[k as usize];
                (kv.writer[kv.position(v)? as usize] == from).then(|| {
                    let key = self.key(k);
                    let how = if returned {
                        format!("which {b}'s predicate read {mop} returned")
                    } else {
                        format!(
                            "which was in the version set of {b}'s predicate read {mop}: the read did not return key \
                             {key}, and {v} is the only version of it the predicate does not match"
                        )
                    };
                    let wrote = match v {
                        Version::Dead => format!("{a} deleted key {key}"),
                        _ => format!("{a} set key {key} to {v}"),
                    };
                    (k, format!("{wrote}, {how}. Note that the version order of key {key} was {}", kv.order_text()))
                })
            })
        })
    }

    fn rwp(&self, from: TxnId, to: TxnId) -> Option<(KeyId, String)> {
        let (a, b) = (self.txns.name(from), self.txns.name(to));
        self.predicate_reads(from).find_map(|(mop, set)| {
            let Mop::PredicateRead { predicate, .. } = mop else { return None };
            set.into_iter().find_map(|(k, v, _)| {
                let kv = &self.index.keys[k as usize];
                let later = kv
                    .later(v)
                    .iter()
                    .map(|&p| p as usize)
                    .find(|&p| kv.writer[p] == to && kv.versions[p].matches(*predicate) != v.matches(*predicate))?;
                let key = self.key(k);
                Some((
                    k,
                    format!(
                        "{a} performed a predicate read {mop} of key {key} and selected version {v}, which was \
                         overwritten by {b}'s write of {}, which also changed whether the predicate would have \
                         matched. Note that key {key}'s version order was {}",
                        kv.versions[later],
                        kv.order_text()
                    ),
                ))
            })
        })
    }
}

impl DataExplainer for ClosedPredicateExplainer<'_, '_> {
    fn explain(&self, from: TxnId, to: TxnId, kind: Kind) -> Option<(Option<Key>, String)> {
        let found = match kind {
            Kind::Ww => self.ww(from, to),
            Kind::Wr => self.wr(from, to),
            Kind::Rw => self.rw(from, to),
            Kind::Wrp => self.wrp(from, to),
            Kind::Rwp => self.rwp(from, to),
            _ => None,
        };
        found.map(|(k, text)| (Some(self.key(k).clone()), text))
    }
}

/// Why the proven order puts one version right after another, as a parenthesis; nothing when the earlier
/// one is the initial state, which precedes every write.
fn because(source: OrderSource, txns: &Txns<'_>) -> String {
    match source {
        OrderSource::Initial => String::new(),
        other => format!(" ({})", other.reason(txns)),
    }
}
