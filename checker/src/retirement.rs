//! Retiring transactions from a list-append history checked while it grows, so that the online checker
//! holds a bounded part of it: the rule that decides which transactions can no longer take part in any
//! anomaly with a transaction still held or still to come, and the rewriting of what stays. It needs
//! *fences* from the workload: a key is retired when every transaction that will ever name it has been
//! invoked (the generators rotate a key out after `max_writes_per_key` writes and never name it again).
//! The history alone cannot tell that, so without fences nothing is retired. The rule and the argument
//! that it hides no anomaly are in docs/online-checking.md ("Bounded memory").
//!
//! In short: a transaction is a candidate when it completed and each of its keys is *closed* (retired,
//! and every held transaction naming it completed). Candidates are then dropped from the set until no
//! held transaction outside it has a dependency into it: none precedes a member in its process or in
//! real time, none wrote what a member read, and on every shared key the members' appends are exactly
//! the same prefix of every outside read (so no outside read misses a member's append, and no outside
//! append comes before one). The set is retired: its transactions are dropped, and that common prefix
//! is cut from the outside reads, which leaves the dependencies among the outside transactions as they
//! were.

use std::collections::{BTreeMap, BTreeSet};

use histories::{History, Key, Mop, Observed, Op, OpType, OpValue};

use crate::kind::Kind;

/// The most passes of the shrinking a round spends before it gives up retiring.
const MAX_PASSES: usize = 32;

/// What one round retires from the held operations.
#[derive(Debug, Default)]
pub(crate) struct Retirement {
    /// The positions (in the held history) of the retired transactions' operations.
    pub drop: BTreeSet<usize>,
    /// The retired transactions, by their invocations' indices (as anomalies name them).
    pub txns: BTreeSet<u64>,
    /// Per shared key, how many elements to cut from the front of every read the held transactions keep.
    pub strip: BTreeMap<Key, usize>,
}

/// One held transaction, as the rule reads it.
struct Held {
    invoke_at: usize,
    completion_at: Option<usize>,
    invoke_index: u64,
    process: histories::Process,
    outcome: OpType,
    /// Whether the history left its invocation in doubt (a completion with no invoke of its own, or
    /// one of several invokes in flight).
    lenient: bool,
    /// Per key: its appends, and its list reads (from every op of it that holds one).
    appends: BTreeMap<Key, Vec<i64>>,
    reads: BTreeMap<Key, Vec<Vec<i64>>>,
}

fn held_txns(history: &History) -> Vec<Held> {
    history
        .transactions()
        .map(|t| {
            let mut appends: BTreeMap<Key, Vec<i64>> = BTreeMap::new();
            let mut reads: BTreeMap<Key, Vec<Vec<i64>>> = BTreeMap::new();
            // `nil_is_empty`: an `ok` completion's `null` read is the empty list; elsewhere it is unknown.
            let mut note = |mops: &[Mop], with_appends: bool, nil_is_empty: bool| {
                for mop in mops {
                    match mop {
                        Mop::Append { key, value } if with_appends => {
                            appends.entry(key.clone()).or_default().push(*value);
                        }
                        Mop::Append { key, .. } => {
                            appends.entry(key.clone()).or_default();
                        }
                        Mop::Read { key, value } => {
                            let entry = reads.entry(key.clone()).or_default();
                            match value {
                                Observed::List(list) => entry.push(list.to_vec()),
                                Observed::Nil if nil_is_empty => entry.push(Vec::new()),
                                _ => {}
                            }
                        }
                        // Any other micro-op: not list-append; the caller retires nothing then.
                        _ => {}
                    }
                }
            };
            note(t.invoke.held_mops(), t.completion.is_none(), false);
            if let Some(c) = t.completion {
                note(c.held_mops(), true, c.kind == OpType::Ok);
            }
            // Every key named, appended or read, is a key of the transaction.
            let keys: Vec<Key> = reads.keys().cloned().collect();
            for key in keys {
                appends.entry(key).or_default();
            }
            Held {
                invoke_at: t.invoke_at,
                completion_at: t.completion_at,
                invoke_index: t.invoke.index,
                process: t.invoke.process(),
                outcome: t.outcome(),
                lenient: t.invoked_after != Some(t.invoke_at),
                appends,
                reads,
            }
        })
        .collect()
}

/// Whether every client micro-op of the history is a list append or a list (or nil) read.
fn list_append_only(history: &History) -> bool {
    history.ops().iter().filter(|op| op.is_client()).all(|op| {
        op.held_mops()
            .iter()
            .all(|m| matches!(m, Mop::Append { .. } | Mop::Read { value: Observed::List(_) | Observed::Nil, .. }))
    })
}

/// The transactions of `history` (the held operations) that can be retired, given the keys `retired`
/// (every transaction naming one has been invoked), by the rule above.
/// `order` is the process or real-time order the options' models draw edges of (`None`: neither); only
/// its edges into the set are ruled out (the real-time order holds the process order's edges too).
pub(crate) fn retirable(history: &History, retired: &BTreeSet<Key>, order: Option<Kind>) -> Retirement {
    if retired.is_empty() || !list_append_only(history) {
        return Retirement::default();
    }
    let txns = held_txns(history);
    // Where the history pairs completions with invocations leniently, which pairs it makes depends on
    // the operations around them: retiring a transaction while an earlier one of its process stays
    // could pair what stays differently. So then the process order is kept whatever the models.
    let keep_process_order = order.is_some() || txns.iter().any(|t| t.lenient);
    // Per key, the held transactions naming it.
    let mut by_key: BTreeMap<&Key, Vec<usize>> = BTreeMap::new();
    for (i, t) in txns.iter().enumerate() {
        for key in t.appends.keys() {
            by_key.entry(key).or_default().push(i);
        }
    }
    let closed: BTreeSet<&Key> = by_key
        .iter()
        .filter(|(key, named)| retired.contains(**key) && named.iter().all(|&i| txns[i].completion_at.is_some()))
        .map(|(key, _)| *key)
        .collect();
    let mut member: Vec<bool> =
        txns.iter().map(|t| t.completion_at.is_some() && t.appends.keys().all(|k| closed.contains(k))).collect();
    // Shrink to the greatest set with no dependency into it from a held transaction outside it. Each
    // pass costs the held transactions once; a round that has not settled within `MAX_PASSES` retires
    // nothing (always sound), so that a round stays linear in what is held.
    let mut passes = 0;
    loop {
        passes += 1;
        if passes > MAX_PASSES {
            return Retirement::default();
        }
        let mut changed = false;
        // Process and real-time order: the earliest invocation, per process and overall, of an outside
        // transaction, and the earliest completion of one.
        let mut first_outside_invoke: BTreeMap<histories::Process, usize> = BTreeMap::new();
        let mut first_outside_completion = usize::MAX;
        for (i, t) in txns.iter().enumerate() {
            if member[i] {
                continue;
            }
            let at = first_outside_invoke.entry(t.process).or_insert(usize::MAX);
            *at = (*at).min(t.invoke_at);
            if let Some(c) = t.completion_at {
                first_outside_completion = first_outside_completion.min(c);
            }
        }
        for (i, t) in txns.iter().enumerate() {
            if !member[i] {
                continue;
            }
            let process_before =
                keep_process_order && first_outside_invoke.get(&t.process).is_some_and(|&at| at < t.invoke_at);
            // Real time: an outside transaction completed before this one was invoked.
            let realtime_before = order == Some(Kind::Realtime) && first_outside_completion < t.invoke_at;
            if process_before || realtime_before {
                member[i] = false;
                changed = true;
            }
        }
        for (key, named) in &by_key {
            let members: Vec<usize> = named.iter().copied().filter(|&i| member[i]).collect();
            if members.is_empty() {
                continue;
            }
            if !key_retires(key, named, &members, &txns, &member) {
                for i in members {
                    member[i] = false;
                }
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut out = Retirement::default();
    for (i, t) in txns.iter().enumerate() {
        if member[i] {
            out.drop.insert(t.invoke_at);
            if let Some(c) = t.completion_at {
                out.drop.insert(c);
            }
            out.txns.insert(t.invoke_index);
        }
    }
    for (key, named) in &by_key {
        let outside = named.iter().any(|&i| !member[i]);
        let n: usize = named
            .iter()
            .filter(|&&i| member[i] && txns[i].outcome != OpType::Fail)
            .map(|&i| txns[i].appends.get(*key).map_or(0, Vec::len))
            .sum();
        if outside && n > 0 {
            out.strip.insert((*key).clone(), n);
        }
    }
    out
}

/// Whether the members naming `key` can leave while the outside transactions naming it stay: no
/// dependency on `key` from an outside transaction into a member.
fn key_retires(key: &Key, named: &[usize], members: &[usize], txns: &[Held], member: &[bool]) -> bool {
    let outside: Vec<usize> = named.iter().copied().filter(|&i| !member[i]).collect();
    if outside.is_empty() {
        return true;
    }
    let appends_of = |i: usize| txns[i].appends.get(key).map_or(&[][..], Vec::as_slice);
    let reads_of = |i: usize| txns[i].reads.get(key).map_or(&[][..], Vec::as_slice);
    // The members' appends that took effect (or may have): they must all come before every outside one.
    let effective: BTreeSet<i64> = members
        .iter()
        .filter(|&&i| txns[i].outcome != OpType::Fail)
        .flat_map(|&i| appends_of(i).iter().copied())
        .collect();
    let every_member_append: BTreeSet<i64> = members.iter().flat_map(|&i| appends_of(i).iter().copied()).collect();
    let outside_appends: BTreeSet<i64> = outside.iter().flat_map(|&i| appends_of(i).iter().copied()).collect();
    // An element both sides appended: which writer a read shows is in doubt.
    if !outside_appends.is_disjoint(&every_member_append) {
        return false;
    }
    // A member read an outside append: a write-read dependency into the set.
    if members.iter().flat_map(|&i| reads_of(i)).any(|r| r.iter().any(|v| outside_appends.contains(v))) {
        return false;
    }
    let outside_reads: Vec<&Vec<i64>> = outside.iter().flat_map(|&i| reads_of(i)).collect();
    let n = effective.len();
    match outside_reads.first() {
        Some(first) => {
            // Every outside read starts with the same list, holding exactly the members' effective appends,
            // and shows no member's append after it.
            if first.len() < n {
                return false;
            }
            let prefix = &first[..n];
            if prefix.iter().copied().collect::<BTreeSet<i64>>() != effective || prefix.len() != effective.len() {
                return false;
            }
            outside_reads
                .iter()
                .all(|r| r.len() >= n && &r[..n] == prefix && r[n..].iter().all(|v| !every_member_append.contains(v)))
        }
        None => {
            // No outside read: every effective member append must be shown by a member's read, so that
            // the outside appends, which none shows, come after all of them.
            let shown: BTreeSet<i64> = members.iter().flat_map(|&i| reads_of(i)).flatten().copied().collect();
            effective.is_subset(&shown)
        }
    }
}

/// The held operations once `retirement` is applied: its transactions' operations dropped, and each
/// shared key's common prefix cut from the reads that stay.
pub(crate) fn apply(ops: Vec<Op>, retirement: &Retirement) -> Vec<Op> {
    ops.into_iter()
        .enumerate()
        .filter(|(position, _)| !retirement.drop.contains(position))
        .map(|(_, mut op)| {
            if retirement.strip.is_empty() || !op.is_client() {
                return op;
            }
            let mops = op.held_mops();
            if !mops
                .iter()
                .any(|m| matches!(m, Mop::Read { key, value: Observed::List(_) } if retirement.strip.contains_key(key)))
            {
                return op;
            }
            let rewritten: Vec<Mop> = mops
                .iter()
                .map(|m| match m {
                    Mop::Read { key, value: Observed::List(list) } => match retirement.strip.get(key) {
                        Some(&n) => Mop::Read {
                            key: key.clone(),
                            value: Observed::List(list.iter().skip(n).copied().collect::<Vec<i64>>().into()),
                        },
                        None => m.clone(),
                    },
                    other => other.clone(),
                })
                .collect();
            op.value = OpValue::Txn(rewritten.into());
            op
        })
        .collect()
}
