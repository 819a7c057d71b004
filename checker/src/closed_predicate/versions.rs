//! The versions of each key of a closed-predicate history and the order among them that the history
//! proves. Every version is known (the closed universe: the initial row or the unborn key, then each
//! write of a committed or indeterminate transaction), but not their order: a version precedes another
//! only for one of three reasons a person can check in the history. The initial row (or the unborn key)
//! precedes every write ([`OrderSource::Initial`]); a transaction's own writes of a key are installed in
//! the order it made them ([`OrderSource::OwnWrites`]); and a version a transaction observed (by an item
//! read, or a row its predicate read returned) before its first write of the key precedes that write
//! ([`OrderSource::ReadThenWrite`]: in any serial order that explains the read, the version's writer
//! came first). The order in which writers' completions were *recorded* is never used: a client can be
//! descheduled between a commit and its recording, so writers that overlapped may be recorded in either
//! order.
//!
//! A transaction observes one version of a key before writing it, so each version has at most one proven
//! predecessor and the proven order is a tree rooted at the initial version; the versions proven later
//! than `v` are `v`'s subtree. Where the facts close a cycle (two transactions each wrote over what the
//! other wrote, which no serial order explains and whose reads the graph shows as a cycle of its own),
//! one fact of the cycle is set aside, which only loses edges.

use std::fmt;

use histories::{Mop, OpType, Predicate};
use rustc_hash::FxHashMap;

use crate::commit_order::CommitOrder;
use crate::error::CheckError;
use crate::graph::TxnId;
use crate::item::{ItemIndex, ItemOp, KeyId, NO_TXN};
use crate::txn::Txns;

/// One version of a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Version {
    /// Before the key was inserted.
    Unborn,
    /// A row holding this value.
    Value(i64),
    /// After the key was deleted.
    Dead,
}

impl Version {
    /// Whether a row at this version matches the predicate: unborn and dead rows never do.
    pub(crate) fn matches(self, predicate: Predicate) -> bool {
        match self {
            Version::Value(v) => predicate.matches(v),
            Version::Unborn | Version::Dead => false,
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Version::Unborn => write!(f, "unborn"),
            Version::Value(v) => write!(f, "{v}"),
            Version::Dead => write!(f, "dead"),
        }
    }
}

/// Why one version of a key is known to come right before another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OrderSource {
    /// The initial row, or the unborn key, precedes every write.
    Initial,
    /// This transaction wrote the key more than once: its writes are installed in the order it made them.
    OwnWrites(TxnId),
    /// This transaction observed the earlier version before it wrote the later one.
    ReadThenWrite(TxnId),
    /// The database's recorded commit order places the first transaction right before the second among
    /// the key's writers.
    CommitOrder(TxnId, TxnId),
}

impl OrderSource {
    /// Why the source orders the two versions, in words a person can check against the history.
    pub(crate) fn reason(self, txns: &Txns<'_>) -> String {
        match self {
            OrderSource::Initial => "the initial state precedes every write".to_string(),
            OrderSource::OwnWrites(t) => format!("{} wrote the key twice, in that order", txns.name(t)),
            OrderSource::ReadThenWrite(t) => {
                format!("{} read the first version before it wrote the second", txns.name(t))
            }
            OrderSource::CommitOrder(a, b) => crate::commit_order::placed_before(txns, a, b),
        }
    }
}

/// One key's versions (the initial one first, the others in no particular order) and their proven order.
#[derive(Debug, Default)]
pub(crate) struct KeyVersions {
    pub versions: Vec<Version>,
    /// The transaction whose write (or `init` row) installed each version (`NO_TXN` for unborn).
    pub installer: Vec<TxnId>,
    /// The installer, if this was its last write of the key (Elle's external write); else `NO_TXN`.
    pub writer: Vec<TxnId>,
    position: FxHashMap<Version, u32>,
    /// Each version's proven predecessor and why (version 0 has none: `u32::MAX`).
    parent: Vec<(u32, OrderSource)>,
    /// The versions in pre-order of the proven tree, and each version's place in it: the versions
    /// proven later than `v` are `pre_order[place[v] + 1..end[v]]`.
    pre_order: Vec<u32>,
    place: Vec<u32>,
    end: Vec<u32>,
    /// Each version's successors are `child_list[child_span[v].0..child_span[v].1]`.
    child_list: Vec<u32>,
    child_span: Vec<(u32, u32)>,
    /// How many distinct transactions installed versions after the first.
    pub(crate) installers: usize,
}

impl KeyVersions {
    fn push(&mut self, version: Version, installer: TxnId, writer: TxnId) -> u32 {
        let id = self.versions.len() as u32;
        self.position.insert(version, id);
        self.versions.push(version);
        self.installer.push(installer);
        self.writer.push(writer);
        self.parent.push((u32::MAX, OrderSource::Initial));
        id
    }

    /// The id of a version, if the key has it.
    pub(crate) fn position(&self, version: Version) -> Option<u32> {
        self.position.get(&version).copied()
    }

    /// The versions proven to come right after `version`, each with why. The unborn version comes
    /// before every other, even when `init` created the key and unborn is not one of its versions.
    pub(crate) fn successors(&self, version: Version) -> impl Iterator<Item = (u32, OrderSource)> + '_ {
        let id = match (version, self.versions.first()) {
            (Version::Unborn, Some(first)) if *first != Version::Unborn => None,
            _ => self.position(version),
        };
        let unborn_before_init = id.is_none() && version == Version::Unborn && !self.versions.is_empty();
        let children = id.map(|p| self.children(p)).unwrap_or(&[]);
        unborn_before_init
            .then_some((0, OrderSource::Initial))
            .into_iter()
            .chain(children.iter().map(move |&c| (c, self.parent[c as usize].1)))
    }

    /// The versions proven to come after `version`, at any distance.
    pub(crate) fn later(&self, version: Version) -> &[u32] {
        match (version, self.versions.first()) {
            (Version::Unborn, Some(first)) if *first != Version::Unborn => &self.pre_order,
            _ => match self.position(version) {
                Some(p) => &self.pre_order[self.place[p as usize] as usize + 1..self.end[p as usize] as usize],
                None => &[],
            },
        }
    }

    /// The versions whose proven predecessor is `p`: they follow `p` in pre-order, each subtree whole.
    fn children(&self, p: u32) -> &[u32] {
        let (from, to) = self.child_span[p as usize];
        &self.child_list[from as usize..to as usize]
    }

    /// What a read of `null` observed: the unborn version, or the dead one, if only one of them is a
    /// version of the key (unborn if neither is, as Elle assumes); `None` when both are.
    pub(crate) fn resolve_nil(&self) -> Option<Version> {
        let unborn = self.versions.first() == Some(&Version::Unborn);
        let dead = self.position.contains_key(&Version::Dead);
        match (unborn, dead) {
            (true, true) => None,
            (false, true) => Some(Version::Dead),
            _ => Some(Version::Unborn),
        }
    }

    /// Whether the history proves the whole order: each version has at most one proven successor.
    pub(crate) fn is_total(&self) -> bool {
        self.child_span.iter().all(|&(from, to)| to - from <= 1)
    }

    /// The proven order in Elle's notation: `[unborn 30 dead]` when it is total; otherwise each branch
    /// from where it leaves another, `[unborn 30 31] [30 45]`, every version in one of them.
    pub(crate) fn order_text(&self) -> String {
        let mut chains: Vec<Vec<u32>> = Vec::new();
        for &v in &self.pre_order {
            let (p, _) = self.parent[v as usize];
            match chains.last_mut() {
                _ if p == u32::MAX => chains.push(vec![v]),
                Some(chain) if chain.last() == Some(&p) => chain.push(v),
                _ => chains.push(vec![p, v]),
            }
        }
        let text: Vec<String> = chains
            .iter()
            .map(|c| {
                let parts: Vec<String> = c.iter().map(|&v| self.versions[v as usize].to_string()).collect();
                format!("[{}]", parts.join(" "))
            })
            .collect();
        text.join(" ")
    }
}

/// Builds every key's versions and the order among them that the history proves, refusing a version
/// installed twice. `init` is the `init` op, if it may have happened.
pub(crate) fn key_versions(
    items: &ItemIndex<'_>,
    txns: &Txns<'_>,
    init: Option<TxnId>,
    order: &CommitOrder,
) -> Result<Vec<KeyVersions>, CheckError> {
    let mut keys: Vec<KeyVersions> = (0..items.key_count()).map(|_| KeyVersions::default()).collect();
    let initial_rows = init.and_then(|t| txns.init_rows(t));
    for (k, kv) in keys.iter_mut().enumerate() {
        match initial_rows.and_then(|rows| rows.get(items.key(k as KeyId))) {
            Some(&v) => kv.push(Version::Value(v), init.unwrap_or(NO_TXN), init.unwrap_or(NO_TXN)),
            None => kv.push(Version::Unborn, NO_TXN, NO_TXN),
        };
    }
    // Each transaction's first version of a key, with what it observed of the key before writing it.
    let mut first_writes: Vec<(KeyId, u32, Option<Option<i64>>, TxnId)> = Vec::new();
    let mut touched: Vec<(KeyId, Option<Option<i64>>, Option<u32>)> = Vec::new();
    for t in txns.ids().filter(|&t| txns.is_possible(t) && Some(t) != init) {
        touched.clear();
        for (i, mop) in txns.mops(t).iter().enumerate() {
            if let Mop::PredicateRead { rows: Some(rows), .. } = mop {
                for (key, &value) in rows.iter() {
                    let Some(k) = items.id(key) else { continue };
                    if !touched.iter().any(|e| e.0 == k) {
                        touched.push((k, Some(Some(value)), None));
                    }
                }
                continue;
            }
            let k = items.key_of(t, i);
            let at = match touched.iter().position(|e| e.0 == k) {
                Some(at) => at,
                None => {
                    let observed = match ItemOp::of(mop) {
                        // `null` in an `info` completion is a read whose value is not known.
                        Some(ItemOp::Read(value)) if value.is_some() || txns.outcome(t) == OpType::Ok => Some(value),
                        _ => None,
                    };
                    touched.push((k, observed, None));
                    touched.len() - 1
                }
            };
            let Some(ItemOp::Write(value)) = ItemOp::of(mop) else { continue };
            let version = value.map_or(Version::Dead, Version::Value);
            let kv = &mut keys[k as usize];
            if let Some(p) = kv.position(version) {
                let before = kv.installer[p as usize];
                let by = if before == NO_TXN { String::new() } else { format!(" by {}", txns.name(before)) };
                return Err(CheckError::Workload {
                    at: txns.op(t).at,
                    message: format!(
                        "{} installs version {version} of key {} again (it was installed{by}): each version of a key \
                         must be installed once, or versions cannot be told apart",
                        txns.name(t),
                        items.key(k)
                    ),
                });
            }
            let id = kv.push(version, t, NO_TXN);
            let (_, observed, own) = &mut touched[at];
            match *own {
                Some(previous) => kv.parent[id as usize] = (previous, OrderSource::OwnWrites(t)),
                None => {
                    kv.installers += 1;
                    first_writes.push((k, id, *observed, t));
                }
            }
            *own = Some(id);
        }
        for &(k, _, own) in &touched {
            if let Some(last) = own {
                keys[k as usize].writer[last as usize] = t;
            }
        }
    }
    for (k, id, observed, t) in first_writes {
        let kv = &mut keys[k as usize];
        let seen = match observed {
            Some(Some(v)) => kv.position(Version::Value(v)),
            Some(None) => kv.resolve_nil().and_then(|v| kv.position(v)),
            None => None,
        };
        if let Some(seen) = seen.filter(|&s| kv.installer[s as usize] != t) {
            kv.parent[id as usize] = (seen, OrderSource::ReadThenWrite(t));
        }
    }
    if order.recorded() > 0 {
        let shared = order.shared_positions();
        for kv in &mut keys {
            kv.chain_by_commit_order(txns, init, order, &shared);
        }
    }
    for kv in &mut keys {
        kv.order_tree();
    }
    Ok(keys)
}

impl KeyVersions {
    /// Orders the writers the database's commit order places: each one's first version of the key comes
    /// right after the last version of the writer placed before it (a database installs a key's versions
    /// in its commit order). What this replaces (a read-then-write fact against the order) is reported
    /// as `incompatible-order` by the index; writers without a position keep what the history proves.
    fn chain_by_commit_order(
        &mut self,
        txns: &Txns<'_>,
        init: Option<TxnId>,
        order: &CommitOrder,
        shared: &FxHashMap<i64, Vec<TxnId>>,
    ) {
        // (position, writer, its first version, its last version), versions numbered in write order.
        let mut chain: Vec<(i64, TxnId, u32, u32)> = Vec::new();
        let mut at: FxHashMap<TxnId, usize> = FxHashMap::default();
        for (id, &t) in self.installer.iter().enumerate() {
            if t == NO_TXN || Some(t) == init {
                continue;
            }
            let Some(p) = order.orders(txns, t, shared) else { continue };
            match at.get(&t) {
                Some(&i) => chain[i].3 = id as u32,
                None => {
                    at.insert(t, chain.len());
                    chain.push((p, t, id as u32, id as u32));
                }
            }
        }
        chain.sort_unstable();
        for w in chain.windows(2) {
            self.parent[w[1].2 as usize] = (w[0].3, OrderSource::CommitOrder(w[0].1, w[1].1));
        }
    }

    /// Roots every version without a proven predecessor at the initial one, sets aside one fact of each
    /// cycle, and lays the tree out in pre-order.
    fn order_tree(&mut self) {
        let n = self.versions.len();
        // 0: not yet reached from the root; 1: on the walk in progress; 2: reached.
        let mut state = vec![0u8; n];
        state[0] = 2;
        let mut walk: Vec<u32> = Vec::new();
        for start in 1..n as u32 {
            let mut v = start;
            while state[v as usize] == 0 {
                state[v as usize] = 1;
                walk.push(v);
                let (p, _) = self.parent[v as usize];
                if p == u32::MAX {
                    self.parent[v as usize] = (0, OrderSource::Initial);
                    break;
                }
                if state[p as usize] == 1 {
                    // The walk came back to itself: the facts form a cycle; set this one aside.
                    self.parent[v as usize] = (0, OrderSource::Initial);
                    break;
                }
                v = p;
            }
            for &w in &walk {
                state[w as usize] = 2;
            }
            walk.clear();
        }
        let mut count = vec![0u32; n + 1];
        for v in 1..n {
            count[self.parent[v].0 as usize + 1] += 1;
        }
        for i in 1..=n {
            count[i] += count[i - 1];
        }
        self.child_span = (0..n).map(|p| (count[p], count[p + 1])).collect();
        let mut next = count.clone();
        self.child_list = vec![0; n.saturating_sub(1)];
        for v in 1..n {
            let p = self.parent[v].0 as usize;
            self.child_list[next[p] as usize] = v as u32;
            next[p] += 1;
        }
        self.pre_order = Vec::with_capacity(n);
        self.place = vec![0; n];
        self.end = vec![0; n];
        if n == 0 {
            return;
        }
        // Iterative depth-first walk: a frame is a version and how many of its children are done.
        let mut stack: Vec<(u32, u32)> = vec![(0, 0)];
        self.place[0] = 0;
        self.pre_order.push(0);
        while let Some(&mut (v, ref mut done)) = stack.last_mut() {
            let (from, to) = self.child_span[v as usize];
            if from + *done < to {
                let c = self.child_list[(from + *done) as usize];
                *done += 1;
                self.place[c as usize] = self.pre_order.len() as u32;
                self.pre_order.push(c);
                stack.push((c, 0));
            } else {
                self.end[v as usize] = self.pre_order.len() as u32;
                stack.pop();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Versions 0..n of values 0..n, with these proven predecessors (`None`: none).
    fn tree(parents: &[Option<u32>]) -> KeyVersions {
        let mut kv = KeyVersions::default();
        for (v, parent) in parents.iter().enumerate() {
            let id = kv.push(Version::Value(v as i64), v as TxnId, v as TxnId);
            if let Some(p) = parent {
                kv.parent[id as usize] = (*p, OrderSource::ReadThenWrite(v as TxnId));
            }
        }
        kv.order_tree();
        kv
    }

    fn later(kv: &KeyVersions, v: i64) -> Vec<u32> {
        let mut later = kv.later(Version::Value(v)).to_vec();
        later.sort_unstable();
        later
    }

    #[test]
    fn a_chain_is_total_and_everything_after_a_version_is_later() {
        let kv = tree(&[None, Some(0), Some(1), Some(2)]);
        assert!(kv.is_total());
        assert_eq!(kv.order_text(), "[0 1 2 3]");
        assert_eq!(later(&kv, 1), vec![2, 3]);
        assert_eq!(kv.successors(Version::Value(1)).map(|s| s.0).collect::<Vec<_>>(), vec![2]);
    }

    #[test]
    fn unordered_writes_branch_from_the_initial_version_and_are_not_later_than_each_other() {
        // 1 and 3 have no proven predecessor; 2 follows 1.
        let kv = tree(&[None, None, Some(1), None]);
        assert!(!kv.is_total());
        assert_eq!(kv.order_text(), "[0 1 2] [0 3]");
        assert_eq!(later(&kv, 0), vec![1, 2, 3]);
        assert_eq!(later(&kv, 1), vec![2]);
        assert_eq!(later(&kv, 3), Vec::<u32>::new());
        assert_eq!(
            kv.successors(Version::Value(0)).map(|s| (s.0, s.1)).collect::<Vec<_>>(),
            vec![(1, OrderSource::Initial), (3, OrderSource::Initial)]
        );
    }

    #[test]
    fn facts_that_close_a_cycle_lose_one_fact_and_every_version_stays_in_the_tree() {
        // 1 after 2 and 2 after 1: no serial order; one of the two facts is set aside.
        let kv = tree(&[None, Some(2), Some(1)]);
        assert_eq!(kv.pre_order.len(), 3);
        // The walk from 1 reaches 2, whose fact leads back to 1: 2's fact is the one set aside.
        assert_eq!(kv.order_text(), "[0 2 1]");
        assert_eq!(later(&kv, 2), vec![1]);
        assert_eq!(later(&kv, 1), Vec::<u32>::new());
    }
}
