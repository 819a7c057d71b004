//! Version orders of registers, inferred as Elle's `elle.rw-register/version-graphs` infers them: a
//! register read shows one value, not the history before it, so each key's order is a graph of what can
//! be shown, built from sources applied in turn. `initial-state`: `nil` precedes every value.
//! `commit-order`, when the history records the database's own commit order: each key's writes in that
//! order (see [`crate::commit_order`]). `write-version`, when the history records the numbers the database
//! gave its writes: each key's committed writes in number order (see [`super::write_versions`]). With
//! `--wfr-keys`, a committed transaction's external read precedes its external write of the key. With
//! `--sequential-keys`, along each process (its committed transactions, in order), the last value one
//! transaction left a key at precedes the first value the next transaction to touch the key found or
//! wrote. With `--linearizable-keys`, the same along real-time order: for each committed `a` and each
//! `b` invoked after `a` completed with no transaction touching the key completed in between. (Elle
//! walks its transitively reduced real-time graph to find those `b`; real-time order is an interval
//! order, so the nearest transactions touching a key are found here directly from their invocation and
//! completion positions, which gives the same version edges.)
//!
//! When a source closes a cycle in a key's graph, that source's edges are dropped for that key and the
//! cycle is a `cyclic-versions` anomaly naming the sources that produced it. Elle drops the source for
//! every key when any key's graph becomes cyclic; dropping it only where it contradicts keeps what it
//! shows about the other keys. Each edge remembers the first source that gave it and the transactions
//! behind it, so every inferred order can be explained.

use histories::{OpType, Process};
use rayon::iter::{
    IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator, IntoParallelRefMutIterator,
    ParallelIterator,
};
use rustc_hash::FxHashMap;

use super::version_graph::{Source, VersionEdge, Versions};
use super::write_versions::WriteVersions;
use crate::buckets::Buckets;
use crate::chunks;
use crate::commit_order::CommitOrder;
use crate::graph::TxnId;
use crate::item::{Ext, KeyId, NO_TXN};
use crate::options::Inference;
use crate::txn::Txns;

/// A source that closed a cycle in a key's version graph: the cycle, edge by edge, and the sources
/// applied up to and including the one dropped.
#[derive(Debug, Clone)]
pub(crate) struct CyclicVersions {
    pub key: KeyId,
    pub cycle: Vec<VersionEdge>,
    pub sources: Vec<&'static str>,
}

/// What one transaction's external operations on a key say about its order: the first value it found
/// or wrote there, and the last value it left.
#[derive(Debug, Clone, Copy)]
struct Touch {
    txn: TxnId,
    first: u32,
    last: u32,
}

/// Builds every key's versions and version graph from the transactions' external operations
/// (`ext[t]`, already restricted to what each transaction is known to have done).
pub(crate) fn infer(
    txns: &Txns<'_>,
    key_count: usize,
    ext: &[&[Ext]],
    inference: Inference,
    order: &CommitOrder,
    numbers: &WriteVersions,
) -> (Vec<Versions>, Vec<CyclicVersions>) {
    // Each key's versions are its own, so the keys are shared out among the cores, each walking its
    // externals in transaction order.
    // Every external read and write, by key: each key's in transaction order, copied out of the
    // transactions so that one key's walk reads one stretch of memory.
    let blank = KeyExt { txn: NO_TXN, read: None, write: None };
    let ranges = chunks::ranges(ext.len());
    let by_key = Buckets::from_sources(key_count, blank, ranges.len(), |s| {
        ranges[s].clone().flat_map(|t| {
            ext[t as usize].iter().map(move |e| (e.key as usize, KeyExt { txn: t, read: e.read, write: e.write }))
        })
    });
    let (mut versions, touches): (Vec<Versions>, Vec<Vec<Touch>>) =
        (0..key_count).into_par_iter().with_min_len(256).map(|k| key_versions(by_key.of(k))).unzip();
    let mut sources: Vec<&'static str> = Vec::new();
    let mut cyclic = Vec::new();
    // Each key takes a source's edges on its own, so the keys are shared out among the cores; the cycles
    // come back in key order.
    let mut apply = |name: &'static str, candidates: Vec<Vec<VersionEdge>>, versions: &mut Vec<Versions>| {
        sources.push(name);
        let found: Vec<CyclicVersions> = versions
            .par_iter_mut()
            .zip(candidates.into_par_iter())
            .enumerate()
            .with_min_len(256)
            .filter_map(|(k, (kv, mut new))| {
                let merged = merged_edges(&kv.edges, &mut new)?;
                match find_cycle(kv.values.len(), &merged) {
                    Some(cycle) => Some(CyclicVersions { key: k as KeyId, cycle, sources: sources.clone() }),
                    None => {
                        kv.edges = merged;
                        None
                    }
                }
            })
            .collect();
        cyclic.extend(found);
    };
    let initial: Vec<Vec<VersionEdge>> =
        versions.iter().map(|kv| (1..kv.values.len() as u32).map(|v| (0, v, Source::InitialState)).collect()).collect();
    apply("initial-state", initial, &mut versions);
    if order.recorded() > 0 {
        let recorded = order.version_edges(txns, ext, &versions);
        apply("commit-order", recorded, &mut versions);
    }
    if numbers.recorded() > 0 {
        let numbered = numbers.version_edges(&versions);
        apply("write-version", numbered, &mut versions);
    }
    if inference.wfr_keys {
        let candidates = (0..key_count)
            .into_par_iter()
            .with_min_len(256)
            .map(|k| {
                let kv = &versions[k];
                let mut candidates = Vec::new();
                for e in by_key.of(k) {
                    let t = e.txn;
                    if txns.outcome(t) != OpType::Ok {
                        continue;
                    }
                    if let (Some(Some(r)), Some(w)) = (e.read, e.write) {
                        let (Some(r), Some(w)) = (kv.id(Some(r)), kv.id(w)) else { continue };
                        if r != w {
                            candidates.push((r, w, Source::WfrKeys(t)));
                        }
                    }
                }
                candidates
            })
            .collect();
        apply("wfr-keys", candidates, &mut versions);
    }
    if inference.sequential_keys {
        apply("sequential-keys", sequential(txns, &touches), &mut versions);
    }
    if inference.linearizable_keys {
        apply("linearizable-keys", linearizable(txns, &touches), &mut versions);
    }
    (versions, cyclic)
}

/// One transaction's external read and write of a key, as [`Ext`] without the key and the number.
#[derive(Debug, Clone, Copy)]
struct KeyExt {
    txn: TxnId,
    read: Option<Option<i64>>,
    write: Option<Option<i64>>,
}

/// One key's versions, from its externals (in transaction order), and what each transaction
/// that touched it found first and left last.
fn key_versions(entries: &[KeyExt]) -> (Versions, Vec<Touch>) {
    let mut kv = Versions::new();
    let mut touches = Vec::with_capacity(entries.len());
    let mut reads = Vec::with_capacity(entries.len());
    for e in entries {
        let t = e.txn;
        let read = e.read.map(|v| kv.node(v));
        let write = e.write.map(|v| kv.node(v));
        if let Some(r) = read {
            reads.push((r, t));
        }
        if let Some(w) = write
            && kv.ext_writer[w as usize] == NO_TXN
        {
            kv.ext_writer[w as usize] = t;
        }
        if let (Some(first), Some(last)) = (read.or(write), write.or(read)) {
            touches.push(Touch { txn: t, first, last });
        }
    }
    kv.set_readers(&reads);
    (kv, touches)
}

/// Version edges along each process's committed transactions: per key, from the touches of its
/// committed transactions in completion order.
fn sequential(txns: &Txns<'_>, touches: &[Vec<Touch>]) -> Vec<Vec<VersionEdge>> {
    touches
        .par_iter()
        .with_min_len(256)
        .map(|mine| {
            let mut committed: Vec<(usize, Touch)> = mine
                .iter()
                .filter(|touch| txns.outcome(touch.txn) == OpType::Ok)
                .filter_map(|&touch| txns.completion_position(touch.txn).map(|c| (c, touch)))
                .collect();
            committed.sort_unstable_by_key(|&(c, touch)| (c, touch.txn));
            let mut last: FxHashMap<Process, Touch> = FxHashMap::default();
            let mut candidates = Vec::new();
            for (_, touch) in committed {
                let b = touch.txn;
                if let Some(before) = last.insert(txns.invoke(b).process(), touch)
                    && before.last != touch.first
                {
                    candidates.push((before.last, touch.first, Source::SequentialKeys(before.txn, b)));
                }
            }
            candidates
        })
        .collect()
}

/// Version edges along real-time order: from each committed transaction `a` to each `b` touching the key
/// that was invoked after `a` completed, with no committed transaction touching the key completed in
/// between.
fn linearizable(txns: &Txns<'_>, touches: &[Vec<Touch>]) -> Vec<Vec<VersionEdge>> {
    touches
        .par_iter()
        .with_min_len(256)
        .map(|mine| {
            // (invoked, completed if committed, touch), in transaction order before sorting.
            let mut items: Vec<(usize, usize, Touch)> = mine
                .iter()
                .map(|&touch| {
                    let t = touch.txn;
                    let completed = match txns.outcome(t) {
                        OpType::Ok => txns.completion_position(t).unwrap_or(usize::MAX),
                        _ => usize::MAX,
                    };
                    (txns.invoke_position(t), completed, touch)
                })
                .collect();
            let mut candidates = Vec::new();
            linearizable_key(&mut items, &mut candidates);
            candidates
        })
        .collect()
}

/// [`linearizable`]'s edges for one key's transactions: `(invoked, completed if committed, touch)`.
fn linearizable_key(items: &mut [(usize, usize, Touch)], candidates: &mut Vec<VersionEdge>) {
    items.sort_unstable_by_key(|i| i.0);
    // The earliest completion among the transactions invoked at or after each position.
    let mut earliest = vec![usize::MAX; items.len() + 1];
    for i in (0..items.len()).rev() {
        earliest[i] = earliest[i + 1].min(items[i].1);
    }
    for &(_, done, a) in items.iter() {
        if done == usize::MAX {
            continue;
        }
        let from = items.partition_point(|i| i.0 < done);
        let bound = earliest[from];
        let to = items.partition_point(|i| i.0 < bound);
        for &(_, _, b) in &items[from..to.max(from)] {
            if a.last != b.first {
                candidates.push((a.last, b.first, Source::LinearizableKeys(a.txn, b.txn)));
            }
        }
    }
}

/// The accepted edges `edges` (sorted by (from, to), one per pair) with the `new` ones, sorted the same
/// way, each pair once and with its first source (an accepted edge's before a new one's, and among new
/// ones the first in `new`'s order); `None` when `new` adds no pair, so the graph is unchanged.
fn merged_edges(edges: &[VersionEdge], new: &mut [VersionEdge]) -> Option<Vec<VersionEdge>> {
    // Stable, so equal pairs keep `new`'s order.
    new.sort_by_key(|e| (e.0, e.1));
    let mut merged = Vec::with_capacity(edges.len() + new.len());
    let mut old = edges.iter().peekable();
    let mut added = false;
    for &e in new.iter() {
        while let Some(&&o) = old.peek()
            && (o.0, o.1) < (e.0, e.1)
        {
            merged.push(o);
            old.next();
        }
        let same = |m: &VersionEdge| (m.0, m.1) == (e.0, e.1);
        if old.peek().is_some_and(|o| same(o)) || merged.last().is_some_and(same) {
            continue;
        }
        merged.push(e);
        added = true;
    }
    merged.extend(old);
    added.then_some(merged)
}

/// A cycle in the graph on `n` nodes with these edges (sorted by source), as its edges in order.
fn find_cycle(n: usize, edges: &[VersionEdge]) -> Option<Vec<VersionEdge>> {
    const WHITE: u8 = 0;
    const GREY: u8 = 1;
    const BLACK: u8 = 2;
    // Where each node's edges start: node v's are `start[v]..start[v + 1]`.
    let mut start = vec![0usize; n + 1];
    for e in edges {
        start[e.0 as usize + 1] += 1;
    }
    for v in 0..n {
        start[v + 1] += start[v];
    }
    let out = |v: u32| start[v as usize]..start[v as usize + 1];
    let mut colour = vec![WHITE; n];
    // The edge by which each grey node was entered.
    let mut entered: Vec<usize> = vec![usize::MAX; n];
    for root in 0..n as u32 {
        if colour[root as usize] != WHITE {
            continue;
        }
        colour[root as usize] = GREY;
        let mut stack: Vec<(u32, std::ops::Range<usize>)> = vec![(root, out(root))];
        while let Some((v, range)) = stack.last_mut() {
            let v = *v;
            let Some(e) = range.next() else {
                colour[v as usize] = BLACK;
                stack.pop();
                continue;
            };
            let w = edges[e].1;
            match colour[w as usize] {
                WHITE => {
                    colour[w as usize] = GREY;
                    entered[w as usize] = e;
                    stack.push((w, out(w)));
                }
                GREY => {
                    // Walk back from v to w along the edges that entered each node.
                    let mut cycle = vec![edges[e]];
                    let mut at = v;
                    while at != w {
                        let back = edges[entered[at as usize]];
                        cycle.push(back);
                        at = back.0;
                    }
                    cycle.reverse();
                    return Some(cycle);
                }
                _ => {}
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Source = Source::InitialState;

    #[test]
    fn merging_keeps_each_pair_once_with_its_first_source_and_says_when_nothing_is_new() {
        let w = |t| Source::WfrKeys(t);
        let accepted = vec![(0, 1, S), (0, 2, S), (1, 2, w(7))];
        // Nothing new: pairs already accepted, even from other sources.
        assert_eq!(merged_edges(&accepted, &mut [(1, 2, w(9)), (0, 1, w(9))]), None);
        assert_eq!(merged_edges(&accepted, &mut []), None);
        // New pairs, out of order and repeated: each once, the first source given, accepted ones kept.
        let mut new = [(2, 1, w(3)), (1, 2, w(4)), (0, 3, w(5)), (2, 1, w(6)), (3, 0, w(8))];
        assert_eq!(
            merged_edges(&accepted, &mut new),
            Some(vec![(0, 1, S), (0, 2, S), (0, 3, w(5)), (1, 2, w(7)), (2, 1, w(3)), (3, 0, w(8))])
        );
    }

    #[test]
    fn a_cycle_is_found_edge_by_edge_and_an_acyclic_graph_has_none() {
        let mut edges = vec![(0, 1, S), (1, 2, S), (2, 3, S), (3, 1, S), (0, 3, S)];
        edges.sort_by_key(|e| (e.0, e.1));
        let cycle = find_cycle(4, &edges).expect("1 -> 2 -> 3 -> 1");
        let nodes: Vec<(u32, u32)> = cycle.iter().map(|e| (e.0, e.1)).collect();
        assert_eq!(nodes, vec![(1, 2), (2, 3), (3, 1)]);
        assert!(find_cycle(4, &[(0, 1, S), (0, 2, S), (1, 3, S), (2, 3, S)]).is_none());
    }

    #[test]
    fn each_version_keeps_its_external_readers_in_transaction_order_and_its_first_writer() {
        let ext = |txn, read: Option<Option<i64>>, write: Option<Option<i64>>| KeyExt { txn, read, write };
        // Transaction 0 reads nil; 1 writes 5; 2 and 4 read 5; 3 reads nil and writes 7; 5 reads 7 and
        // writes 5 again; 6 writes 9, which nobody reads.
        let entries = [
            ext(0, Some(None), None),
            ext(1, None, Some(Some(5))),
            ext(2, Some(Some(5)), None),
            ext(3, Some(None), Some(Some(7))),
            ext(4, Some(Some(5)), None),
            ext(5, Some(Some(7)), Some(Some(5))),
            ext(6, None, Some(Some(9))),
        ];
        let (kv, touches) = key_versions(&entries);
        assert_eq!(kv.values, vec![None, Some(5), Some(7), Some(9)]);
        let readers: Vec<&[TxnId]> = (0..4).map(|v| kv.readers(v)).collect();
        assert_eq!(readers, vec![&[0, 3][..], &[2, 4][..], &[5][..], &[][..]]);
        assert_eq!(kv.ext_writer, vec![NO_TXN, 1, 3, 6]);
        assert_eq!(touches.len(), 7);
        // A key nobody touched: the initial state alone, read by nobody.
        let (none, _) = key_versions(&[]);
        assert_eq!(none.readers(0), &[] as &[TxnId]);
    }

    #[test]
    fn a_version_order_is_total_only_when_one_chain_orders_every_version() {
        let mut kv = Versions::new();
        for v in [1, 2] {
            kv.node(Some(v));
        }
        kv.edges = vec![(0, 1, S), (0, 2, S)];
        assert!(!kv.is_total(), "1 and 2 are unordered");
        kv.edges = vec![(0, 1, S), (0, 2, S), (1, 2, S)];
        assert!(kv.is_total());
        assert!(Versions::new().is_total(), "nil alone is ordered");
    }
}
