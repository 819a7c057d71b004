//! The two orders that are not data dependencies: a process's own order (each client is one thread, so
//! it ran its transactions one after another) and real-time order (T1 completed before T2 was invoked).
//! Real-time edges are built as Elle's `realtime-graph` builds them: a transitive reduction, linking each
//! invocation only from completed transactions that no later completion has superseded, which keeps the
//! graph linear in size. Process edges link each process's consecutive committed transactions, as Elle's
//! do; session edges, which the exact decisions use, are each process's own real-time order, reduced
//! the same way: an indeterminate transaction follows the committed ones its process completed before
//! invoking it. This module owns building and explaining these orders.

use histories::{OpType, Process};
use rustc_hash::FxHashMap;

use crate::buckets::Buckets;
use crate::graph::{EdgeList, SourcesByTarget, TxnId};
use crate::kind::Kind;
use crate::txn::Txns;

/// Real-time edges: `a -> b` when `a` committed before `b` was invoked, transitively reduced.
pub fn realtime_edges(txns: &Txns<'_>) -> EdgeList {
    frontier_edges(txns, Kind::Realtime, &vec![0; txns.len()], 1)
}

/// Edges of `kind`: `a -> b` when `a` committed before `b` (which committed or may have) was invoked
/// and both are of one group (`group[t]`, below `groups`), transitively reduced: each invocation is
/// linked only from its group's committed transactions that no later completion of the group has
/// superseded.
fn frontier_edges(txns: &Txns<'_>, kind: Kind, group: &[u32], groups: usize) -> EdgeList {
    let events = events_in_order(txns);
    // Each possible transaction depends on its group's frontier when it was invoked (exactly its
    // predecessors in real time within the group), recorded target by target: `target_of[t]` is which
    // target it is, so that its commit can read its predecessors back.
    let mut order = SourcesByTarget::new(kind);
    // Per group, committed transactions no later commit of the group has superseded, in no particular
    // order, and where each transaction stands in its group's (`NOT_IN`: it does not), so a commit
    // removes what it supersedes in time proportional to that, however many transactions are in flight.
    const NOT_IN: u32 = u32::MAX;
    let mut frontier: Vec<Vec<TxnId>> = vec![Vec::new(); groups];
    let mut place: Vec<u32> = vec![NOT_IN; txns.len()];
    let mut target_of: Vec<u32> = vec![NOT_IN; txns.len()];
    for (id, is_invoke) in events {
        let frontier = &mut frontier[group[id as usize] as usize];
        if is_invoke {
            if txns.is_possible(id) {
                target_of[id as usize] = order.target_count() as u32;
                order.add(id, frontier);
            }
        } else if txns.outcome(id) == OpType::Ok && target_of[id as usize] != NOT_IN {
            for &superseded in order.sources_of(target_of[id as usize] as usize) {
                let at = std::mem::replace(&mut place[superseded as usize], NOT_IN);
                if at != NOT_IN {
                    frontier.swap_remove(at as usize);
                    if let Some(&moved) = frontier.get(at as usize) {
                        place[moved as usize] = at;
                    }
                }
            }
            place[id as usize] = frontier.len() as u32;
            frontier.push(id);
        }
    }
    let mut edges = EdgeList::new();
    edges.extend_by_target(order);
    edges
}

/// Each transaction's invocation and completion, as (transaction, is it the invocation), in the order of
/// their positions in the history; at one position, invocations first (a transaction whose invocation
/// is not exactly known stands at the earliest position it may have been invoked at, which another
/// operation may hold), each kind in transaction order. Grouped by position (`Buckets`, a counting
/// sort: the positions are dense), the invocations as the first source and the completions as the second.
fn events_in_order(txns: &Txns<'_>) -> Vec<(TxnId, bool)> {
    let positions = txns
        .ids()
        .map(|id| txns.completion_position(id).unwrap_or(0).max(txns.invoke_position(id)) + 1)
        .max()
        .unwrap_or(0);
    let by_position = Buckets::from_sources(positions, (0, false), 2, |source| {
        txns.ids().filter_map(move |id| match source {
            0 => Some((txns.invoke_position(id), (id, true))),
            _ => txns.completion_position(id).map(|c| (c, (id, false))),
        })
    });
    by_position.into_parts().1
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
        let process = txns.invoke(id).process();
        if let Some((_, before)) = last.insert(process, (position, id)) {
            edges.add(before, id, Kind::Process);
        }
    }
    edges
}

/// Each process's order, as far as it is proven: `a -> b` when `a` committed before `b` (which
/// committed or may have) was invoked by the same process, transitively reduced. So each indeterminate
/// transaction follows the committed ones its process completed before invoking it (if it took effect,
/// it did so after them), and nothing follows it: it may have taken effect after its process went on.
/// A transaction whose invocation the history does not give (a completion alone) may have begun at the
/// history's start and follows nothing; it does not hide what its process's other transactions prove:
/// the order is each process's real-time order, not a chain of its transactions by invocation, which
/// such a transaction (or two invocations in flight at once) would break.
pub fn session_edges(txns: &Txns<'_>) -> EdgeList {
    let mut dense: FxHashMap<Process, u32> = FxHashMap::default();
    let group: Vec<u32> = txns
        .ids()
        .map(|t| {
            let next = dense.len() as u32;
            *dense.entry(txns.invoke(t).process()).or_insert(next)
        })
        .collect();
    frontier_edges(txns, Kind::Process, &group, dense.len())
}

/// Why `from` precedes `to` in process or real-time order.
pub fn explain(txns: &Txns<'_>, from: TxnId, to: TxnId, kind: Kind) -> Option<String> {
    match kind {
        Kind::Process => Some(format!(
            "process {} executed {} before {}",
            txns.invoke(from).process(),
            txns.name(from),
            txns.name(to)
        )),
        Kind::Realtime => {
            let done = txns.completion(from)?;
            let begun = txns.invoke(to);
            let gap = match (done.time(), begun.time()) {
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use histories::{History, Op, OpType};

    use super::*;

    /// A history of `n` transactions, one process each, whose invocations and completions are shuffled
    /// (each invocation before its completion) by a seeded generator; every fifth fails. With
    /// `unknown_invocations`, every seventh transaction's invocation is left out (its completion stands
    /// alone, its invocation unknown: it may have begun at the history's start).
    fn shuffled(n: usize, seed: u64, unknown_invocations: bool) -> History {
        shuffled_on(n, seed, unknown_invocations, n as u64)
    }

    /// [`shuffled`], transaction `t` run by process `t % processes` (so a process may have several
    /// transactions in flight, paired leniently).
    fn shuffled_on(n: usize, seed: u64, unknown_invocations: bool, processes: u64) -> History {
        let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let mut next = |bound: usize| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 33) as usize) % bound
        };
        let mut pending: Vec<(u64, bool)> = (0..n as u64).map(|t| (t, false)).collect();
        let mut ops = Vec::new();
        while !pending.is_empty() {
            let at = next(pending.len());
            let (t, invoked) = pending[at];
            let kind = match (invoked, t % 5) {
                (false, _) => OpType::Invoke,
                (true, 4) => OpType::Fail,
                (true, _) => OpType::Ok,
            };
            if kind != OpType::Invoke || !unknown_invocations || t % 7 != 3 {
                let mut op = Op::txn(kind, t % processes, Vec::new());
                op.index = ops.len() as u64;
                ops.push(op);
            }
            if invoked {
                pending.swap_remove(at);
            } else {
                pending[at].1 = true;
            }
        }
        History::from_ops(ops).expect("a shuffled history is well formed")
    }

    /// Asserts that the real-time edges of `history` are those a brute force finds.
    fn assert_brute_force(history: &History, label: &str) {
        let txns = Txns::new(history);
        let got: BTreeSet<(TxnId, TxnId)> = realtime_edges(&txns).iter().map(|(a, b, _)| (a, b)).collect();
        // `a -> b` when `a` committed before `b` was invoked and no transaction that committed before `b`
        // was invoked began after `a` completed (it would stand between them).
        let done = |t: TxnId| txns.completion_position(t).expect("every transaction completes");
        let committed: Vec<TxnId> = txns.ids().filter(|&t| txns.outcome(t) == OpType::Ok).collect();
        let mut expected = BTreeSet::new();
        for b in txns.ids().filter(|&b| txns.is_possible(b)) {
            let begun = txns.invoke_position(b);
            for &a in committed.iter().filter(|&&a| done(a) < begun) {
                let between = committed.iter().any(|&c| done(a) < txns.invoke_position(c) && done(c) < begun);
                if !between {
                    expected.insert((a, b));
                }
            }
        }
        assert_eq!(got, expected, "{label}");
    }

    #[test]
    fn real_time_edges_are_the_frontier_edges_found_by_brute_force() {
        for (seed, unknown_invocations) in (0..40).flat_map(|seed| [(seed, false), (seed, true)]) {
            let history = shuffled(40, seed, unknown_invocations);
            let txns = Txns::new(&history);
            let unknown = txns.ids().filter(|&t| txns.invoke_position(t) == 0).count();
            assert_eq!(unknown > 1, unknown_invocations, "several transactions stand at position 0");
            assert_brute_force(&history, &format!("seed {seed}, unknown invocations {unknown_invocations}"));
        }
    }

    #[test]
    fn a_transaction_of_unknown_invocation_may_have_begun_before_a_completion_at_the_same_position() {
        // The history opens with a completion whose invocation is unknown: its transaction (0) and the
        // last one (2), also of unknown invocation, both stand at position 0, where 0 also completed; 2
        // may have begun before 0 completed, so only 1, invoked after, follows 0 in real time.
        let mut ops = vec![
            Op::txn(OpType::Ok, 0, Vec::new()),
            Op::txn(OpType::Invoke, 1, Vec::new()),
            Op::txn(OpType::Ok, 1, Vec::new()),
            Op::txn(OpType::Ok, 2, Vec::new()),
        ];
        for (i, op) in ops.iter_mut().enumerate() {
            op.index = i as u64;
        }
        let history = History::from_ops(ops).expect("completions without invocations are taken leniently");
        let txns = Txns::new(&history);
        let edges: Vec<(u64, u64)> =
            realtime_edges(&txns).iter().map(|(a, b, _)| (txns.index(a), txns.index(b))).collect();
        // Transactions by their operations' indices: 0's completion (0) and 1's completion (2).
        assert_eq!(edges, vec![(0, 2)]);
        assert_brute_force(&history, "a completion first");
    }

    #[test]
    fn transactions_all_in_flight_at_once_have_no_real_time_order() {
        let n = 2000u64;
        let mut ops: Vec<Op> = (0..n).map(|t| Op::txn(OpType::Invoke, t, Vec::new())).collect();
        ops.extend((0..n).map(|t| Op::txn(OpType::Ok, t, Vec::new())));
        for (i, op) in ops.iter_mut().enumerate() {
            op.index = i as u64;
        }
        let history = History::from_ops(ops).expect("well formed");
        assert!(realtime_edges(&Txns::new(&history)).is_empty());
    }

    /// Asserts that the session edges of `history` are those a brute force finds: `a -> b` when one
    /// process ran both, `a` committed before `b` (committed or indeterminate) was invoked, and no
    /// committed transaction of the process stands between them.
    fn assert_session_brute_force(history: &History, label: &str) {
        let txns = Txns::new(history);
        let got: BTreeSet<(TxnId, TxnId)> = session_edges(&txns).iter().map(|(a, b, _)| (a, b)).collect();
        let done = |t: TxnId| txns.completion_position(t);
        let process = |t: TxnId| txns.invoke(t).process();
        let committed: Vec<TxnId> = txns.ids().filter(|&t| txns.outcome(t) == OpType::Ok).collect();
        let before =
            |a: TxnId, b: TxnId| process(a) == process(b) && done(a).is_some_and(|d| d < txns.invoke_position(b));
        let mut expected = BTreeSet::new();
        for b in txns.ids().filter(|&b| txns.is_possible(b)) {
            for &a in committed.iter().filter(|&&a| before(a, b)) {
                if !committed.iter().any(|&c| before(a, c) && before(c, b)) {
                    expected.insert((a, b));
                }
            }
        }
        assert_eq!(got, expected, "{label}");
    }

    #[test]
    fn session_edges_are_each_process_real_time_order_found_by_brute_force() {
        for (seed, unknown_invocations) in (0..40).flat_map(|seed| [(seed, false), (seed, true)]) {
            let history = shuffled_on(40, seed, unknown_invocations, 3);
            assert_session_brute_force(&history, &format!("seed {seed}, unknown invocations {unknown_invocations}"));
        }
    }

    #[test]
    fn a_completion_alone_does_not_hide_its_process_order() {
        // One process: 0 completes with its invocation unknown, 1 is invoked and completes, 2 completes
        // with its invocation unknown. 0 completed before 1 was invoked, so 1 follows 0; 0 and 2 stand
        // at position 0 and follow nothing. (Chained by invocation, 2 came between 0 and 1 and the edge
        // was lost: an exact decision then missed the refutation a prefix of the history gave, isocheck
        // issue 45.)
        let mut ops = vec![
            Op::txn(OpType::Ok, 0, Vec::new()),
            Op::txn(OpType::Invoke, 0, Vec::new()),
            Op::txn(OpType::Ok, 0, Vec::new()),
            Op::txn(OpType::Ok, 0, Vec::new()),
        ];
        for (i, op) in ops.iter_mut().enumerate() {
            op.index = i as u64;
        }
        let history = History::from_ops(ops).expect("completions without invocations are taken leniently");
        let txns = Txns::new(&history);
        let edges: Vec<(u64, u64)> =
            session_edges(&txns).iter().map(|(a, b, _)| (txns.index(a), txns.index(b))).collect();
        // Transactions by their operations' indices: 0's completion (0) and 1's completion (2).
        assert_eq!(edges, vec![(0, 2)]);
        assert_session_brute_force(&history, "a completion first");
        // The near miss: 1 invoked before 0 completed follows nothing either.
        let mut ops = vec![
            Op::txn(OpType::Invoke, 0, Vec::new()),
            Op::txn(OpType::Ok, 0, Vec::new()),
            Op::txn(OpType::Ok, 0, Vec::new()),
            Op::txn(OpType::Ok, 0, Vec::new()),
        ];
        for (i, op) in ops.iter_mut().enumerate() {
            op.index = i as u64;
        }
        let history = History::from_ops(ops).expect("completions without invocations are taken leniently");
        assert!(session_edges(&Txns::new(&history)).is_empty());
    }
}
