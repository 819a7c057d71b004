//! What a history shows the axioms of the weak levels: the transactions that took part (every committed
//! one, and every indeterminate one someone read from, since that read proves it committed), each
//! session's order, each transaction's external reads in program order with the transaction each read
//! from, and the keys each one wrote. The initial state is a transaction of its own, node 0, writing
//! every key before anything else. Reads that no commit order can explain are Plume's non-cycle
//! patterns (thin-air, aborted, future, not-my-own-write, not-my-last-write, intermediate read), found
//! here as the reads are resolved. As Jepsen does, an indeterminate transaction's reads are no
//! observations, and its writes may or may not have taken effect: one nobody read from is left out,
//! the reading most favourable to the history (leaving a transaction out only removes constraints).
//! Follows Biswas & Enea, "On the Complexity of Checking Transactional Consistency" (OOPSLA 2019),
//! §2, and Plume (Liu et al., OOPSLA 2024), §3.2.

use histories::{Key, Mop, Observed, OpType, Process};
use rustc_hash::FxHashMap;

use crate::error::CheckError;
use crate::graph::TxnId;
use crate::txn::Txns;

use super::ragged::Ragged;

/// A transaction as the axioms see it: 0 is the initial state, the others index `Observations::txn`.
pub(crate) type Node = u32;
/// The initial state.
pub(crate) const INIT: Node = 0;

/// One external read: of `key`, from `from`, the `mop`-th micro-op of its transaction. A list read also
/// saw the appenders of the elements before the last one: `Observations::seen[seen.0..seen.1]`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Read {
    pub key: u32,
    pub from: Node,
    pub mop: u32,
    pub seen: (u32, u32),
}

/// An external read as first resolved: key, writer (`None`: the initial state), micro-op, and the other
/// transactions it saw.
type ExtRead = (u32, Option<TxnId>, u32, Vec<TxnId>);

/// A read no commit order explains, with the transaction that wrote what it read, if any.
#[derive(Debug, Clone)]
pub(crate) struct BadRead {
    /// The pattern's name (`thin-air-read`, ...).
    pub pattern: &'static str,
    pub reader: TxnId,
    pub mop: u32,
    pub writer: Option<TxnId>,
}

/// Where a value was written: by which transaction, and whether it wrote the key again afterwards.
#[derive(Debug, Clone, Copy)]
struct WriteAt {
    txn: TxnId,
    mop: u32,
    overwritten: bool,
}

/// The observations of a history.
pub(crate) struct Observations<'h> {
    pub keys: Vec<&'h Key>,
    /// Each node's transaction (`TxnId::MAX` for the initial state).
    pub txn: Vec<TxnId>,
    /// Each node's session and place in it (`u32::MAX` for the initial state).
    pub session: Vec<u32>,
    pub place: Vec<u32>,
    /// Each session's nodes, in order.
    pub sessions: Vec<Vec<Node>>,
    /// Each node's external reads, in program order.
    pub reads: Ragged<Read>,
    /// Each node's written keys, sorted.
    pub writes: Ragged<u32>,
    /// The other transactions list reads saw (see [`Read`]).
    pub seen: Vec<Node>,
    /// Version order a list history shows, which the commit order must contain: (before, after, key,
    /// whether one read shows both appends).
    pub ww: Vec<(Node, Node, u32, bool)>,
    /// The reads no commit order explains, in transaction order.
    pub bad: Vec<BadRead>,
}

impl<'h> Observations<'h> {
    /// Reads the transactions of an rw-register history.
    pub fn of_registers(txns: &Txns<'h>) -> Result<Observations<'h>, CheckError> {
        let mut key_ids: FxHashMap<&'h Key, u32> = FxHashMap::default();
        let mut keys: Vec<&'h Key> = Vec::new();
        let mut written: FxHashMap<(u32, i64), WriteAt> = FxHashMap::default();
        // Every write of any outcome, so a read of an aborted or overwritten value is recognised.
        let mut last: FxHashMap<u32, (u32, i64)> = FxHashMap::default();
        // Made as large as it will be at once, rather than grown (and rehashed) step by step.
        let writes = txns.ids().map(|t| txns.mops(t).iter().filter(|m| matches!(m, Mop::Write { .. })).count()).sum();
        written.reserve(writes);
        // Each micro-op's key id (`u32::MAX`: none), so the reads below look no key up again.
        let mut key_of: Ragged<u32> = Ragged::with_capacity(txns.len(), 2 * writes);
        for t in txns.ids() {
            last.clear();
            for (i, mop) in txns.mops(t).iter().enumerate() {
                if matches!(mop, Mop::Append { .. } | Mop::Read { value: Observed::List(_), .. }) {
                    return Err(CheckError::Workload {
                        at: txns.op(t).at,
                        message: format!("{mop} is a list-append micro-op, but the weak levels read rw-register ones"),
                    });
                }
                let Some(key) = mop.key() else {
                    key_of.push(u32::MAX);
                    continue;
                };
                let k = *key_ids.entry(key).or_insert_with(|| {
                    keys.push(key);
                    keys.len() as u32 - 1
                });
                key_of.push(k);
                if let Mop::Write { value, .. } = mop {
                    if let Some(&(_, before)) = last.get(&k)
                        && let Some(w) = written.get_mut(&(k, before))
                    {
                        w.overwritten = true;
                    }
                    last.insert(k, (i as u32, *value));
                    let at = WriteAt { txn: t, mop: i as u32, overwritten: false };
                    if let Some(other) = written.insert((k, *value), at)
                        && other.txn != t
                    {
                        return Err(CheckError::Workload {
                            at: txns.op(t).at,
                            message: format!(
                                "{} writes {value} to key {key}, but {} wrote it too: each value must be written to a \
                                 key at most once, or reads cannot name their writer",
                                txns.name(t),
                                txns.name(other.txn)
                            ),
                        });
                    }
                }
            }
            key_of.close();
        }
        // Each committed transaction's reads, resolved to their writers.
        let mut bad = Vec::new();
        let mut ext: Ragged<ExtRead> = Ragged::with_capacity(txns.len(), txns.len());
        let mut read_from = vec![false; txns.len()];
        // A transaction's own last write of each key so far.
        let mut own: FxHashMap<u32, i64> = FxHashMap::default();
        for t in txns.ids() {
            if txns.outcome(t) != OpType::Ok {
                ext.close();
                continue;
            }
            own.clear();
            for ((i, mop), &k) in txns.mops(t).iter().enumerate().zip(&key_of[t as usize]) {
                let i = i as u32;
                if k == u32::MAX {
                    continue;
                }
                match mop {
                    Mop::Write { value, .. } => {
                        own.insert(k, *value);
                    }
                    Mop::Read { value, .. } => {
                        let v = match value {
                            Observed::Int(v) => Some(*v),
                            Observed::Nil => None,
                            Observed::List(_) => continue,
                        };
                        let at = v.and_then(|v| written.get(&(k, v)).copied());
                        let mut flag = |pattern: &'static str, writer: Option<TxnId>| {
                            bad.push(BadRead { pattern, reader: t, mop: i, writer })
                        };
                        if let Some(&mine) = own.get(&k) {
                            match at {
                                Some(_) if v == Some(mine) => {}
                                Some(w) if w.txn == t && w.mop > i => flag("future-read", Some(t)),
                                Some(w) if w.txn == t => flag("not-my-last-write", Some(t)),
                                _ => flag("not-my-own-write", at.map(|w| w.txn)),
                            }
                            continue;
                        }
                        match (v, at) {
                            (None, _) => ext.push((k, None, i, Vec::new())),
                            (Some(_), None) => flag("thin-air-read", None),
                            (Some(_), Some(w)) if w.txn == t => flag("future-read", Some(t)),
                            (Some(_), Some(w)) if txns.outcome(w.txn) == OpType::Fail => {
                                flag("aborted-read", Some(w.txn))
                            }
                            (Some(_), Some(w)) if w.overwritten => flag("intermediate-read", Some(w.txn)),
                            (Some(_), Some(w)) => {
                                read_from[w.txn as usize] = true;
                                ext.push((k, Some(w.txn), i, Vec::new()));
                            }
                        }
                    }
                    _ => {}
                }
            }
            ext.close();
        }
        let written_keys = |t: TxnId, keys: &mut Vec<u32>| {
            let mops = txns.mops(t).iter().zip(&key_of[t as usize]);
            keys.extend(mops.filter(|(m, _)| matches!(m, Mop::Write { .. })).map(|(_, &k)| k))
        };
        Ok(assemble(txns, keys, ext, &read_from, written_keys, |_| Vec::new(), bad))
    }

    /// Reads the transactions of a list-append history. A read returns the list its key held: the
    /// appends of every transaction before, in commit order, the one that appended its last element (a
    /// transaction's appends to a key stay together, as one write of a new version). So a read of `[1 2 3]`
    /// reads from the appender of 3, sees the appenders of 1 and 2, and shows the version order 1, 2, 3;
    /// a committed append that no read shows follows every append reads show. A read after the
    /// transaction's own append of the key must end with its own appends so far; what comes before them
    /// is not taken as an observation.
    pub fn of_lists(txns: &Txns<'h>) -> Result<Observations<'h>, CheckError> {
        let mut key_ids: FxHashMap<&'h Key, u32> = FxHashMap::default();
        let mut keys: Vec<&'h Key> = Vec::new();
        // Who appended each (key, element), of any outcome, and each transaction's appends to each key.
        let mut appended: FxHashMap<(u32, i64), TxnId> = FxHashMap::default();
        let mut own_appends: FxHashMap<(TxnId, u32), Vec<i64>> = FxHashMap::default();
        let mut appenders: Vec<Vec<TxnId>> = Vec::new();
        for t in txns.ids() {
            for mop in txns.mops(t) {
                if matches!(mop, Mop::Write { .. } | Mop::Read { value: Observed::Int(_), .. }) {
                    return Err(CheckError::Workload {
                        at: txns.op(t).at,
                        message: format!("{mop} is a register micro-op, but this history is read as list-append"),
                    });
                }
                let Some(key) = mop.key() else { continue };
                let k = *key_ids.entry(key).or_insert_with(|| {
                    keys.push(key);
                    appenders.push(Vec::new());
                    keys.len() as u32 - 1
                });
                if let Mop::Append { value, .. } = mop {
                    if let Some(other) = appended.insert((k, *value), t)
                        && other != t
                    {
                        return Err(CheckError::Workload {
                            at: txns.op(t).at,
                            message: format!(
                                "{} appends {value} to key {key}, but {} appended it too: each element must be \
                                 appended to a key at most once",
                                txns.name(t),
                                txns.name(other)
                            ),
                        });
                    }
                    let mine = own_appends.entry((t, k)).or_default();
                    if mine.is_empty() {
                        appenders[k as usize].push(t);
                    }
                    mine.push(*value);
                }
            }
        }
        let mut bad = Vec::new();
        let mut ext: Ragged<ExtRead> = Ragged::with_capacity(txns.len(), txns.len());
        let mut read_from = vec![false; txns.len()];
        // Per key, the longest list read, which every other must be a prefix of.
        let mut longest: Vec<&'h [i64]> = vec![&[]; keys.len()];
        let mut own: FxHashMap<u32, usize> = FxHashMap::default();
        for t in txns.ids() {
            if txns.outcome(t) != OpType::Ok {
                ext.close();
                continue;
            }
            own.clear();
            for (i, mop) in txns.mops(t).iter().enumerate() {
                let (Some(key), i) = (mop.key(), i as u32) else { continue };
                let k = key_ids[key];
                let list: &'h [i64] = match mop {
                    Mop::Append { .. } => {
                        *own.entry(k).or_insert(0) += 1;
                        continue;
                    }
                    Mop::Read { value: Observed::List(l), .. } => l.as_slice(),
                    Mop::Read { value: Observed::Nil, .. } => &[],
                    _ => continue,
                };
                let mut flag = |pattern: &'static str, writer: Option<TxnId>| {
                    bad.push(BadRead { pattern, reader: t, mop: i, writer })
                };
                if let Some(&n) = own.get(&k) {
                    let mine = &own_appends[&(t, k)][..n];
                    if !list.ends_with(mine) {
                        let last = list.last().and_then(|e| appended.get(&(k, *e)).copied());
                        match last {
                            Some(w) if w == t => flag("not-my-last-write", Some(t)),
                            _ => flag("not-my-own-write", last),
                        }
                    }
                    continue;
                }
                // Each element's appender; the runs of one appender's elements must be its whole
                // appends to the key (the last run may stop short: an intermediate read).
                let mut runs: Vec<(TxnId, usize)> = Vec::new();
                let mut problem: Option<(&'static str, Option<TxnId>)> = None;
                for e in list {
                    let Some(&w) = appended.get(&(k, *e)) else {
                        problem = Some(("thin-air-read", None));
                        break;
                    };
                    if w == t {
                        problem = Some(("future-read", Some(t)));
                        break;
                    }
                    if txns.outcome(w) == OpType::Fail {
                        problem = Some(("aborted-read", Some(w)));
                        break;
                    }
                    match runs.last_mut() {
                        Some((last, n)) if *last == w => *n += 1,
                        _ => runs.push((w, 1)),
                    }
                }
                if problem.is_none() {
                    let mut at = 0;
                    for (r, &(w, n)) in runs.iter().enumerate() {
                        let all = &own_appends[&(w, k)];
                        let run = &list[at..at + n];
                        at += n;
                        let repeated = runs[..r].iter().any(|&(v, _)| v == w);
                        if repeated || !all.starts_with(run) {
                            problem = Some(("incompatible-order", Some(w)));
                        } else if run.len() < all.len() {
                            problem = Some(if r + 1 == runs.len() {
                                ("intermediate-read", Some(w))
                            } else {
                                ("incompatible-order", Some(w))
                            });
                        }
                        if problem.is_some() {
                            break;
                        }
                    }
                }
                if problem.is_none() {
                    let l = &mut longest[k as usize];
                    if list.len() > l.len() && list.starts_with(l) {
                        *l = list;
                    } else if !l.starts_with(list) {
                        problem = Some(("incompatible-order", None));
                    }
                }
                if let Some((pattern, writer)) = problem {
                    flag(pattern, writer);
                    continue;
                }
                let from = runs.last().map(|&(w, _)| w);
                let others: Vec<TxnId> = runs.iter().rev().skip(1).map(|&(w, _)| w).collect();
                for &(w, _) in &runs {
                    read_from[w as usize] = true;
                }
                ext.push((k, from, i, others));
            }
            ext.close();
        }
        let written_keys = |t: TxnId, keys: &mut Vec<u32>| {
            keys.extend(
                txns.mops(t)
                    .iter()
                    .filter(|m| matches!(m, Mop::Append { .. }))
                    .filter_map(|m| m.key().map(|k| key_ids[k])),
            )
        };
        let version_order = |included: &dyn Fn(TxnId) -> bool| {
            let mut ww = Vec::new();
            for (k, list) in longest.iter().enumerate() {
                let mut shown: Vec<TxnId> = Vec::new();
                for e in list.iter() {
                    let w = appended[&(k as u32, *e)];
                    if shown.last() != Some(&w) {
                        shown.push(w);
                    }
                }
                for pair in shown.windows(2) {
                    ww.push((pair[0], pair[1], k as u32, true));
                }
                if let Some(&last) = shown.last() {
                    for &w in appenders[k].iter().filter(|w| included(**w) && !shown.contains(w)) {
                        ww.push((last, w, k as u32, false));
                    }
                }
            }
            ww
        };
        Ok(assemble(txns, keys, ext, &read_from, written_keys, version_order, bad))
    }

    /// The number of nodes, the initial state included.
    pub fn len(&self) -> usize {
        self.txn.len()
    }

    /// Every transaction a read saw: the one it read from, and for a list, the appenders before it.
    pub fn saw(&self, r: &Read) -> impl Iterator<Item = Node> + '_ {
        std::iter::once(r.from).chain(self.seen[r.seen.0 as usize..r.seen.1 as usize].iter().copied())
    }

    /// Whether node `n` wrote key `k` (the initial state wrote every key).
    pub fn wrote(&self, n: Node, k: u32) -> bool {
        n == INIT || self.writes[n as usize].binary_search(&k).is_ok()
    }
}

/// The observations, from each transaction's resolved external reads, whether each was read from, the
/// keys each wrote, and the version order (in transactions) the history shows given who takes part.
fn assemble<'h>(
    txns: &Txns<'h>,
    keys: Vec<&'h Key>,
    ext: Ragged<ExtRead>,
    read_from: &[bool],
    written_keys: impl Fn(TxnId, &mut Vec<u32>),
    version_order: impl FnOnce(&dyn Fn(TxnId) -> bool) -> Vec<(TxnId, TxnId, u32, bool)>,
    bad: Vec<BadRead>,
) -> Observations<'h> {
    // The nodes: committed transactions and indeterminate ones read from, by session in invocation
    // order.
    let included = |t: TxnId| match txns.outcome(t) {
        OpType::Ok => true,
        OpType::Info => read_from[t as usize],
        _ => false,
    };
    let mut node_of = vec![INIT; txns.len()];
    let mut txn = vec![TxnId::MAX];
    let mut session = vec![u32::MAX];
    let mut place = vec![u32::MAX];
    let mut sessions: Vec<Vec<Node>> = Vec::new();
    let mut session_of: FxHashMap<Process, u32> = FxHashMap::default();
    for t in txns.ids().filter(|&t| included(t)) {
        let node = txn.len() as Node;
        node_of[t as usize] = node;
        txn.push(t);
        let s = *session_of.entry(txns.invoke(t).process()).or_insert_with(|| {
            sessions.push(Vec::new());
            sessions.len() as u32 - 1
        });
        session.push(s);
        place.push(sessions[s as usize].len() as u32);
        sessions[s as usize].push(node);
    }
    let mut seen = Vec::new();
    let mut reads = Ragged::with_capacity(txn.len(), ext.items());
    let mut writes = Ragged::with_capacity(txn.len(), ext.items());
    let mut scratch = Vec::new();
    for &t in &txn {
        if t != TxnId::MAX {
            for (key, from, mop, others) in &ext[t as usize] {
                let start = seen.len() as u32;
                seen.extend(others.iter().map(|&o| node_of[o as usize]));
                reads.push(Read {
                    key: *key,
                    from: from.map_or(INIT, |w| node_of[w as usize]),
                    mop: *mop,
                    seen: (start, seen.len() as u32),
                });
            }
            scratch.clear();
            written_keys(t, &mut scratch);
            scratch.sort_unstable();
            scratch.dedup();
            for &k in &scratch {
                writes.push(k);
            }
        }
        reads.close();
        writes.close();
    }
    drop(ext);
    let ww = version_order(&included)
        .into_iter()
        .map(|(a, b, k, shown)| (node_of[a as usize], node_of[b as usize], k, shown))
        .collect();
    Observations { keys, txn, session, place, sessions, reads, writes, seen, ww, bad }
}
