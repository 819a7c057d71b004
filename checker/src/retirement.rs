//! Retiring transactions from a list-append history checked while it grows, so that the online checker
//! holds a bounded part of it: the rule that decides which transactions can no longer take part in any
//! anomaly with a transaction still held or still to come, and the rewriting of what stays. It needs
//! *fences* from the workload: a key is retired when every transaction that will ever name it has been
//! invoked (the generators rotate a key out after `max_writes_per_key` writes, or once it has been active
//! `key_lifetime` transactions, and never name it again).
//! The history alone cannot tell that, so without fences nothing is retired. The rule and the argument
//! that it hides no anomaly are in docs/online-checking.md ("Bounded memory").
//!
//! In short: a transaction is a candidate when it completed and each of its keys is *closed* (retired,
//! and every held transaction naming it completed). Candidates are then dropped from the set, each one
//! that breaks a condition (not every candidate of a key that does), until no held transaction outside
//! it has a dependency into it: none precedes a member in its process or in
//! real time, none wrote what a member read, and on every shared key the members' appends are exactly
//! the same prefix of every outside read (so no outside read misses a member's append, and no outside
//! append comes before one). The set is retired: its transactions are dropped, and that common prefix
//! is cut from the outside reads, which leaves the dependencies among the outside transactions as they
//! were.

use std::collections::{BTreeMap, BTreeSet};

use histories::{History, Key, Mop, Observed, Op, OpType, OpValue};

use crate::kind::Kind;

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
    let member: Vec<bool> =
        txns.iter().map(|t| t.completion_at.is_some() && t.appends.keys().all(|k| closed.contains(k))).collect();
    // Shrink to the greatest set with no dependency into it from a held transaction outside it: each
    // transaction leaves the set at most once, and its leaving is propagated to its keys and to the
    // process and real-time orders, so a round stays about linear in what is held.
    let mut shrink = Shrink::new(&txns, member, keep_process_order, order == Some(Kind::Realtime));
    shrink.settle(&by_key);
    let member = shrink.member;
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

/// The shrinking of the candidates to the set no held transaction outside it has a dependency into.
struct Shrink<'t> {
    txns: &'t [Held],
    /// Whether each held transaction is (still) in the set.
    member: Vec<bool>,
    /// Transactions that left the set and whose leaving is not yet propagated.
    left: Vec<usize>,
    /// Process order (where it is kept): per process, its transactions by invocation, the least
    /// invocation of an outside one, and how many of them (from the first) may still be members.
    by_process: BTreeMap<histories::Process, (Vec<usize>, usize, usize)>,
    /// Real-time order (where it is kept): every transaction by invocation, the least completion of an
    /// outside one, and how many (from the first) may still be members.
    by_invoke: Option<(Vec<usize>, usize, usize)>,
}

impl<'t> Shrink<'t> {
    fn new(txns: &'t [Held], member: Vec<bool>, process_order: bool, realtime: bool) -> Shrink<'t> {
        let by_invoke_at = |mut list: Vec<usize>| {
            list.sort_by_key(|&i| txns[i].invoke_at);
            list
        };
        let mut by_process: BTreeMap<histories::Process, Vec<usize>> = BTreeMap::new();
        if process_order {
            for (i, t) in txns.iter().enumerate() {
                by_process.entry(t.process).or_default().push(i);
            }
        }
        let by_process = by_process
            .into_iter()
            .map(|(process, list)| {
                let n = list.len();
                (process, (by_invoke_at(list), usize::MAX, n))
            })
            .collect();
        let by_invoke = realtime.then(|| (by_invoke_at((0..txns.len()).collect()), usize::MAX, txns.len()));
        let left = (0..txns.len()).filter(|&i| !member[i]).collect();
        Shrink { txns, member, left, by_process, by_invoke }
    }

    fn expel(&mut self, i: usize) {
        if self.member[i] {
            self.member[i] = false;
            self.left.push(i);
        }
    }

    /// Propagates the leaving of every transaction outside until the set settles: the process and
    /// real-time conditions, then each key a leaver names, again and again.
    fn settle(&mut self, by_key: &BTreeMap<&Key, Vec<usize>>) {
        // At first every key with a member is looked at, as its outside transactions are new.
        let mut dirty: BTreeSet<&Key> = by_key.keys().copied().collect();
        loop {
            while let Some(i) = self.left.pop() {
                self.order_after(i);
                dirty.extend(self.txns[i].appends.keys().filter_map(|k| by_key.get_key_value(k).map(|(k, _)| *k)));
            }
            let Some(key) = dirty.pop_first() else { break };
            for i in key_expels(key, &by_key[key], self.txns, &self.member) {
                self.expel(i);
            }
        }
    }

    /// `i` is outside: the members of its process invoked after it, and (real time) every member invoked
    /// after it completed, leave.
    fn order_after(&mut self, i: usize) {
        let t = &self.txns[i];
        let mut leave = Vec::new();
        if let Some((list, least, kept)) = self.by_process.get_mut(&t.process) {
            *least = (*least).min(t.invoke_at);
            while *kept > 0 && self.txns[list[*kept - 1]].invoke_at > *least {
                leave.push(list[*kept - 1]);
                *kept -= 1;
            }
        }
        if let (Some((list, least, kept)), Some(c)) = (self.by_invoke.as_mut(), t.completion_at) {
            *least = (*least).min(c);
            while *kept > 0 && self.txns[list[*kept - 1]].invoke_at > *least {
                leave.push(list[*kept - 1]);
                *kept -= 1;
            }
        }
        for j in leave {
            self.expel(j);
        }
    }
}

/// The members naming `key` that must leave the set for no dependency on `key` to run from an
/// outside transaction into it: with every outside transaction naming `key` read or written, the members
/// that stay must have appended exactly the elements of one list P that every outside read begins
/// with (those that took effect or may have), show no outside append in their reads, and appear
/// nowhere after P; with no outside read, every append of theirs that may have taken effect must be
/// shown by a member's read. Each member that breaks this leaves (and the caller looks at the key again,
/// as P may then be shorter); an element both sides appended sends every member away.
fn key_expels(key: &Key, named: &[usize], txns: &[Held], member: &[bool]) -> Vec<usize> {
    let (members, outside): (Vec<usize>, Vec<usize>) = named.iter().copied().partition(|&i| member[i]);
    if members.is_empty() || outside.is_empty() {
        return Vec::new();
    }
    let appends_of = |i: usize| txns[i].appends.get(key).map_or(&[][..], Vec::as_slice);
    let reads_of = |i: usize| txns[i].reads.get(key).map_or(&[][..], Vec::as_slice);
    let effective = |i: usize| txns[i].outcome != OpType::Fail;
    // Each member append's writer, and which of them took effect (or may have).
    let mut writer: BTreeMap<i64, usize> = BTreeMap::new();
    for &i in &members {
        for &v in appends_of(i) {
            writer.insert(v, i);
        }
    }
    let outside_appends: BTreeSet<i64> = outside.iter().flat_map(|&i| appends_of(i).iter().copied()).collect();
    // An element both sides appended: which writer a read shows is in doubt.
    if outside_appends.iter().any(|v| writer.contains_key(v)) {
        return members;
    }
    let mut leave: BTreeSet<usize> = BTreeSet::new();
    // A member that read an outside append: a write-read dependency into the set.
    for &i in &members {
        if reads_of(i).iter().flatten().any(|v| outside_appends.contains(v)) {
            leave.insert(i);
        }
    }
    let outside_reads: Vec<&Vec<i64>> = outside.iter().flat_map(|&i| reads_of(i)).collect();
    match outside_reads.split_first() {
        Some((first, rest)) => {
            // P: the longest prefix common to every outside read whose elements are distinct member
            // appends that took effect or may have.
            let common = rest
                .iter()
                .fold(first.len(), |n, r| n.min(r.iter().zip(first.iter()).take_while(|(a, b)| a == b).count()));
            let mut in_p: BTreeSet<i64> = BTreeSet::new();
            for &v in &first[..common] {
                if !writer.get(&v).is_some_and(|&w| effective(w)) || !in_p.insert(v) {
                    break;
                }
            }
            // A member whose effective append is not in P (an outside read misses it, or an outside
            // element comes before it), or whose append an outside read shows after P, leaves.
            for &i in &members {
                if effective(i) && appends_of(i).iter().any(|v| !in_p.contains(v)) {
                    leave.insert(i);
                }
            }
            for r in &outside_reads {
                for v in &r[in_p.len().min(r.len())..] {
                    if let Some(&w) = writer.get(v) {
                        leave.insert(w);
                    }
                }
            }
        }
        None => {
            // No outside read: each effective member append must be shown by a member's read, so that the
            // outside appends, which none shows, come after all of them.
            let shown: BTreeSet<i64> = members.iter().flat_map(|&i| reads_of(i)).flatten().copied().collect();
            for &i in &members {
                if effective(i) && appends_of(i).iter().any(|v| !shown.contains(v)) {
                    leave.insert(i);
                }
            }
        }
    }
    leave.into_iter().collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use histories::{Format, parse};

    /// T0 and T1 append 1 and 2 to x, T3 reads x = [1, 2]; T2 reads x = `seen` and appends to y, a key
    /// still active, so T2 stays held. x is retired.
    fn retirable_with_t2_seeing(seen: &str) -> (Retirement, Key) {
        let lines = [
            r#"{"type":"invoke","process":0,"value":[["append","x",1]]}"#.to_string(),
            r#"{"type":"ok","process":0,"value":[["append","x",1]]}"#.to_string(),
            r#"{"type":"invoke","process":1,"value":[["append","x",2]]}"#.to_string(),
            r#"{"type":"ok","process":1,"value":[["append","x",2]]}"#.to_string(),
            r#"{"type":"invoke","process":2,"value":[["r","x",null],["append","y",1]]}"#.to_string(),
            format!(r#"{{"type":"ok","process":2,"value":[["r","x",{seen}],["append","y",1]]}}"#),
            r#"{"type":"invoke","process":3,"value":[["r","x",null]]}"#.to_string(),
            r#"{"type":"ok","process":3,"value":[["r","x",[1,2]]]}"#.to_string(),
        ];
        let history = parse(&lines.join("\n"), Format::JsonLines, "h.jsonl").expect("a history");
        let x = match history.ops()[0].held_mops() {
            [Mop::Append { key, .. }] => key.clone(),
            other => panic!("{other:?}"),
        };
        (retirable(&history, &BTreeSet::from([x.clone()]), None), x)
    }

    #[test]
    fn a_stale_outside_read_keeps_only_the_members_after_what_it_saw() {
        // T2 saw [1]: T1's append (after what T2 saw: T2 anti-depends on T1) and T3 (which read it) stay;
        // T0 leaves, and its element is cut from the reads that stay.
        let (retirement, x) = retirable_with_t2_seeing("[1]");
        assert_eq!(retirement.txns, BTreeSet::from([0]));
        assert_eq!(retirement.strip, BTreeMap::from([(x, 1)]));
        assert_eq!(retirement.drop, BTreeSet::from([0, 1]));
        // T2 saw nothing: it anti-depends on T0 too, and nothing leaves.
        let (retirement, _) = retirable_with_t2_seeing("[]");
        assert!(retirement.txns.is_empty(), "{:?}", retirement.txns);
        // T2 saw both: every transaction of x but T2 leaves.
        let (retirement, x) = retirable_with_t2_seeing("[1,2]");
        assert_eq!(retirement.txns, BTreeSet::from([0, 2, 6]));
        assert_eq!(retirement.strip, BTreeMap::from([(x, 2)]));
    }
}
