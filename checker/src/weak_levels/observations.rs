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

/// A transaction as the axioms see it: 0 is the initial state, the others index `Observations::txn`.
pub(crate) type Node = u32;
/// The initial state.
pub(crate) const INIT: Node = 0;

/// One external read: of `key`, from `from`, the `mop`-th micro-op of its transaction.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Read {
    pub key: u32,
    pub from: Node,
    pub mop: u32,
}

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
    pub reads: Vec<Vec<Read>>,
    /// Each node's written keys, sorted.
    pub writes: Vec<Vec<u32>>,
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
        for t in txns.ids() {
            last.clear();
            for (i, mop) in txns.mops(t).iter().enumerate() {
                if matches!(mop, Mop::Append { .. } | Mop::Read { value: Observed::List(_), .. }) {
                    return Err(CheckError::Workload {
                        at: txns.op(t).at,
                        message: format!("{mop} is a list-append micro-op, but the weak levels read rw-register ones"),
                    });
                }
                let Some(key) = mop.key() else { continue };
                let k = *key_ids.entry(key).or_insert_with(|| {
                    keys.push(key);
                    keys.len() as u32 - 1
                });
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
        }
        // Each committed transaction's reads, resolved to their writers.
        let mut bad = Vec::new();
        let mut ext: Vec<Vec<(u32, Option<TxnId>, u32)>> = vec![Vec::new(); txns.len()];
        let mut read_from = vec![false; txns.len()];
        // A transaction's own last write of each key so far.
        let mut own: FxHashMap<u32, i64> = FxHashMap::default();
        for t in txns.ids().filter(|&t| txns.outcome(t) == OpType::Ok) {
            own.clear();
            for (i, mop) in txns.mops(t).iter().enumerate() {
                let (Some(key), i) = (mop.key(), i as u32) else { continue };
                let k = key_ids[key];
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
                            (None, _) => ext[t as usize].push((k, None, i)),
                            (Some(_), None) => flag("thin-air-read", None),
                            (Some(_), Some(w)) if w.txn == t => flag("future-read", Some(t)),
                            (Some(_), Some(w)) if txns.outcome(w.txn) == OpType::Fail => {
                                flag("aborted-read", Some(w.txn))
                            }
                            (Some(_), Some(w)) if w.overwritten => flag("intermediate-read", Some(w.txn)),
                            (Some(_), Some(w)) => {
                                read_from[w.txn as usize] = true;
                                ext[t as usize].push((k, Some(w.txn), i));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
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
        let reads = txn
            .iter()
            .map(|&t| {
                if t == TxnId::MAX {
                    return Vec::new();
                }
                ext[t as usize]
                    .iter()
                    .map(|&(key, from, mop)| Read { key, from: from.map_or(INIT, |w| node_of[w as usize]), mop })
                    .collect()
            })
            .collect();
        let writes = txn
            .iter()
            .map(|&t| {
                if t == TxnId::MAX {
                    return Vec::new();
                }
                let mut ks: Vec<u32> = txns
                    .mops(t)
                    .iter()
                    .filter(|m| matches!(m, Mop::Write { .. }))
                    .filter_map(|m| m.key().map(|k| key_ids[k]))
                    .collect();
                ks.sort_unstable();
                ks.dedup();
                ks
            })
            .collect();
        Ok(Observations { keys, txn, session, place, sessions, reads, writes, bad })
    }

    /// The number of nodes, the initial state included.
    pub fn len(&self) -> usize {
        self.txn.len()
    }

    /// Whether node `n` wrote key `k` (the initial state wrote every key).
    pub fn wrote(&self, n: Node, k: u32) -> bool {
        n == INIT || self.writes[n as usize].binary_search(&k).is_ok()
    }
}
