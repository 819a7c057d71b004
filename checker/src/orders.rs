//! The two orders that are not data dependencies: a process's own order (each client is one thread, so
//! it ran its transactions one after another) and real-time order (T1 completed before T2 was invoked).
//! Real-time edges are built as Elle's `realtime-graph` builds them: a transitive reduction, linking each
//! invocation only from completed transactions that no later completion has superseded, which keeps the
//! graph linear in size. Process edges link each process's consecutive committed transactions. This
//! module owns building and explaining both orders.

use histories::{OpType, Process};
use rustc_hash::FxHashMap;

use crate::graph::{EdgeList, TxnId};
use crate::kind::Kind;
use crate::txn::Txns;

/// Real-time edges: `a -> b` when `a` committed before `b` was invoked, transitively reduced.
pub fn realtime_edges(txns: &Txns<'_>) -> EdgeList {
    let mut events: Vec<(usize, bool, TxnId)> = Vec::with_capacity(txns.len() * 2);
    for id in txns.ids() {
        events.push((txns.invoke_position(id), true, id));
        if let Some(c) = txns.completion_position(id) {
            events.push((c, false, id));
        }
    }
    // At one position, invocations first: a transaction whose invocation is unknown stands at 0, before
    // any completion, even one at position 0.
    events.sort_unstable_by_key(|e| (e.0, !e.1));
    let mut edges = EdgeList::new();
    // Committed transactions no later commit has superseded.
    let mut frontier: Vec<TxnId> = Vec::new();
    // For each transaction in flight, the frontier when it was invoked (exactly its predecessors): a
    // range of one shared vector, so no transaction needs a vector of its own.
    let mut predecessors: Vec<TxnId> = Vec::new();
    let mut predecessors_at: Vec<(usize, usize)> = vec![(0, 0); txns.len()];
    for (_, is_invoke, id) in events {
        if is_invoke {
            if txns.is_possible(id) {
                for &before in &frontier {
                    edges.add(before, id, Kind::Realtime);
                }
            }
            predecessors_at[id as usize] = (predecessors.len(), frontier.len());
            predecessors.extend_from_slice(&frontier);
        } else if txns.outcome(id) == OpType::Ok {
            let (start, len) = predecessors_at[id as usize];
            let preds = &predecessors[start..start + len];
            frontier.retain(|f| !preds.contains(f));
            frontier.push(id);
        }
    }
    edges
}

/// Process edges: each process's committed transactions, in order.
pub fn process_edges(txns: &Txns<'_>) -> EdgeList {
    let mut last: FxHashMap<Process, (usize, TxnId)> = FxHashMap::default();
    let mut committed: Vec<(usize, TxnId)> = txns
        .ids()
        .filter(|&id| txns.outcome(id) == OpType::Ok)
        .filter_map(|id| txns.completion_position(id).map(|c| (c, id)))
        .collect();
    committed.sort_unstable();
    let mut edges = EdgeList::new();
    for (position, id) in committed {
        let process = txns.invoke(id).process;
        if let Some((_, before)) = last.insert(process, (position, id)) {
            edges.add(before, id, Kind::Process);
        }
    }
    edges
}

/// Why `from` precedes `to` in process or real-time order.
pub fn explain(txns: &Txns<'_>, from: TxnId, to: TxnId, kind: Kind) -> Option<String> {
    match kind {
        Kind::Process => {
            Some(format!("process {} executed {} before {}", txns.invoke(from).process, txns.name(from), txns.name(to)))
        }
        Kind::Realtime => {
            let done = txns.completion(from)?;
            let begun = txns.invoke(to);
            let gap = match (done.time, begun.time) {
                (Some(a), Some(b)) if b > a => format!(" {:.3} seconds", (b - a) as f64 / 1e9),
                (Some(_), Some(_)) => " just".to_string(),
                _ => String::new(),
            };
            Some(format!(
                "{} completed at index {},{gap} before the invocation of {}, at index {}",
                txns.name(from),
                done.index,
                txns.name(to),
                begun.index
            ))
        }
        _ => None,
    }
}
