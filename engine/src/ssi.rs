//! Serializable snapshot isolation: rw-antidependencies and the dangerous-structure check.
//!
//! Owns: the registry of serializable transactions (kept past commit while any overlapping transaction runs), the
//! rw-antidependency edges between them, the predicate (range) SIREAD locks of scans, and the decision whether a
//! commit must abort. Does not own per-key SIREAD locks (they live on the key's chain, `version_chain.rs`) or the
//! commit protocol that calls [`Ssi::pre_commit`] under the commit lock (`commit.rs`).
//!
//! The algorithm is Cahill, Röhm & Fekete 2008 ("Serializable isolation for snapshot databases") as refined by Ports
//! & Grittner 2012 ("Serializable Snapshot Isolation in PostgreSQL"): an edge `R -rw-> W` is recorded when a
//! serializable `R` reads a version a concurrent serializable `W` wrote but `R` cannot see (read side), or when `W`
//! writes a key or into a range that a concurrent `R` holds a SIREAD lock on (write side). Every cycle under snapshot
//! isolation contains a pivot `T1 -rw-> T2 -rw-> T3` (Fekete et al. 2005), and it is only dangerous if `T3` commits
//! first; if `T1` is read-only, only if `T3` committed before `T1`'s snapshot. Edges are checked at commit, where all
//! of them are known: the committer is checked as the pivot (and aborts) and as `T1`; as `T1` it aborts itself if
//! the pivot already committed, and otherwise dooms the running pivot, as PostgreSQL prefers, which then fails at its
//! next statement or commit. Unlike PostgreSQL, a committing `T3` does not doom a pivot whose `T1` is still running:
//! that `T1` may turn out read-only and make the structure harmless, and if it is not, `T1`'s or the pivot's own
//! commit catches the structure anyway.
//!
//! A committed transaction is forgotten once its commit precedes every live snapshot: no new edge can touch it then.
//! What a later check still needs from it, the earliest commit among its out-neighbours, is summarised on each
//! in-neighbour when the out-neighbour commits (PostgreSQL's `earliestOutConflictCommit`).

use std::collections::{HashMap, VecDeque};

use crate::defect::Defect;
use crate::error::{Conflict, Via};
use crate::key::{KeyRange, RowKey};
use crate::snapshot::EngineTxnId;
use crate::sync::{Arc, AtomicBool, AtomicU64, Mutex, Ordering, RwLock, lock, read, write};

/// The part of a serializable transaction's state that SIREAD locks point at, readable without the registry lock.
#[derive(Debug)]
pub(crate) struct SxactShared {
    pub(crate) id: EngineTxnId,
    snapshot: u64,
    /// 0 until the transaction commits.
    commit_ts: AtomicU64,
    /// Set once the registry forgets the transaction: its SIREAD locks are then dropped lazily.
    released: AtomicBool,
    /// Set when another commit doomed this transaction; its next statement fails.
    doomed: AtomicBool,
}

impl SxactShared {
    /// Whether SSI has forgotten this transaction.
    pub(crate) fn is_released(&self) -> bool {
        self.released.load(Ordering::Acquire)
    }

    /// Whether another commit doomed this transaction.
    pub(crate) fn is_doomed(&self) -> bool {
        self.doomed.load(Ordering::Acquire)
    }

    /// Whether this reader overlapped a writer whose snapshot is `writer_snapshot`: it had not committed before
    /// that snapshot. A reader that committed earlier read nothing the writer could have changed under it.
    pub(crate) fn concurrent_with(&self, writer_snapshot: u64) -> bool {
        let committed = self.commit_ts.load(Ordering::Acquire);
        !self.is_released() && (committed == 0 || committed > writer_snapshot)
    }
}

/// The earliest commit among a transaction's out-neighbours: the `T3` a check needs.
#[derive(Debug, Clone)]
struct OutCommit {
    ts: u64,
    t3: EngineTxnId,
    via: Via,
}

#[derive(Debug)]
struct Sxact {
    shared: Arc<SxactShared>,
    commit_ts: Option<u64>,
    read_only: bool,
    doom: Option<Conflict>,
    /// `t1 -rw-> self`, with what `t1` read.
    ins: HashMap<EngineTxnId, Via>,
    /// `self -rw-> t3`, with what `self` read.
    outs: HashMap<EngineTxnId, Via>,
    earliest_out: Option<OutCommit>,
}

impl Sxact {
    fn note_out_commit(&mut self, ts: u64, t3: EngineTxnId, via: Via) {
        if self.earliest_out.as_ref().is_none_or(|e| ts < e.ts) {
            self.earliest_out = Some(OutCommit { ts, t3, via });
        }
    }

    /// Still running and not already doomed: will commit after anything that commits now, if at all.
    fn live(&self) -> bool {
        self.commit_ts.is_none() && !self.shared.is_doomed()
    }
}

#[derive(Debug, Default)]
struct Registry {
    sxacts: HashMap<EngineTxnId, Sxact>,
    /// Committed transactions in commit order, for forgetting them.
    committed: VecDeque<(u64, EngineTxnId)>,
}

impl Registry {
    fn forget(&mut self, id: EngineTxnId) {
        if let Some(gone) = self.sxacts.remove(&id) {
            gone.shared.released.store(true, Ordering::Release);
            for n in gone.ins.keys().chain(gone.outs.keys()) {
                if let Some(s) = self.sxacts.get_mut(n) {
                    s.ins.remove(&id);
                    s.outs.remove(&id);
                }
            }
        }
    }
}

#[derive(Debug)]
struct RangeLock {
    range: KeyRange,
    reader: Arc<SxactShared>,
}

/// What a pre-commit check decided.
#[derive(Debug, Default)]
struct Checked {
    abort: Option<Conflict>,
    doom: Vec<(EngineTxnId, Conflict)>,
}

/// The SSI state of one engine.
#[derive(Debug)]
pub(crate) struct Ssi {
    registry: Mutex<Registry>,
    ranges: RwLock<Vec<RangeLock>>,
    defect: Option<Defect>,
}

impl Ssi {
    pub(crate) fn new(defect: Option<Defect>) -> Ssi {
        Ssi { registry: Mutex::default(), ranges: RwLock::default(), defect }
    }

    /// Registers a serializable transaction at `begin`.
    pub(crate) fn begin(&self, id: EngineTxnId, snapshot: u64) -> Arc<SxactShared> {
        let shared = Arc::new(SxactShared {
            id,
            snapshot,
            commit_ts: AtomicU64::new(0),
            released: AtomicBool::new(false),
            doomed: AtomicBool::new(false),
        });
        let sxact = Sxact {
            shared: Arc::clone(&shared),
            commit_ts: None,
            read_only: false,
            doom: None,
            ins: HashMap::new(),
            outs: HashMap::new(),
            earliest_out: None,
        };
        lock(&self.registry).sxacts.insert(id, sxact);
        shared
    }

    /// Takes a predicate SIREAD lock on `range` for a scan. Must happen before the scan reads any chain, so that a
    /// concurrent writer either sees the lock or wrote a version the scan sees.
    pub(crate) fn lock_range(&self, range: KeyRange, reader: &Arc<SxactShared>) {
        let mut ranges = write(&self.ranges);
        ranges.retain(|r| !r.reader.is_released());
        ranges.push(RangeLock { range, reader: Arc::clone(reader) });
    }

    /// Concurrent scanners (other than `me`) whose locked ranges contain `key`, with the range each scanned.
    pub(crate) fn range_readers(
        &self,
        key: &RowKey,
        me: EngineTxnId,
        writer_snapshot: u64,
    ) -> Vec<(EngineTxnId, KeyRange)> {
        read(&self.ranges)
            .iter()
            .filter(|r| r.reader.id != me && r.range.contains(key) && r.reader.concurrent_with(writer_snapshot))
            .map(|r| (r.reader.id, r.range.clone()))
            .collect()
    }

    /// Records rw-antidependencies `reader -rw-> writer`. Edges to or from a transaction SSI has forgotten (aborted,
    /// or committed before every live snapshot) are dropped: they can be part of no dangerous structure.
    pub(crate) fn add_edges(&self, edges: impl IntoIterator<Item = (EngineTxnId, EngineTxnId, Via)>) {
        let mut reg = lock(&self.registry);
        for (reader, writer, via) in edges {
            if reader == writer || !reg.sxacts.contains_key(&reader) {
                continue;
            }
            let Some(w) = reg.sxacts.get_mut(&writer) else {
                continue;
            };
            w.ins.entry(reader).or_insert_with(|| via.clone());
            let writer_commit = w.commit_ts;
            if let Some(r) = reg.sxacts.get_mut(&reader) {
                r.outs.entry(writer).or_insert_with(|| via.clone());
                if let Some(ts) = writer_commit {
                    r.note_out_commit(ts, writer, via);
                }
            }
        }
    }

    /// Why a doomed transaction must abort.
    pub(crate) fn doom_of(&self, id: EngineTxnId) -> Option<Conflict> {
        lock(&self.registry).sxacts.get(&id).and_then(|s| s.doom.clone())
    }

    /// The SSI check at commit, under the commit lock: either marks `id` committed at `ts` or returns the dangerous
    /// structure that forbids it. `read_only` says the transaction wrote nothing.
    pub(crate) fn pre_commit(&self, id: EngineTxnId, read_only: bool, ts: u64) -> Result<(), Box<Conflict>> {
        let mut reg = lock(&self.registry);
        let checked = self.check(&reg, id, read_only);
        if let Some(conflict) = checked.abort {
            return Err(Box::new(conflict));
        }
        for (pivot, conflict) in checked.doom {
            if let Some(s) = reg.sxacts.get_mut(&pivot) {
                s.doom.get_or_insert(conflict);
                s.shared.doomed.store(true, Ordering::Release);
            }
        }
        let Some(me) = reg.sxacts.get_mut(&id) else {
            return Ok(());
        };
        me.commit_ts = Some(ts);
        me.read_only = read_only;
        me.shared.commit_ts.store(ts, Ordering::Release);
        let ins: Vec<(EngineTxnId, Via)> = me.ins.iter().map(|(t, v)| (*t, v.clone())).collect();
        for (reader, via) in ins {
            if let Some(r) = reg.sxacts.get_mut(&reader) {
                r.note_out_commit(ts, id, via);
            }
        }
        reg.committed.push_back((ts, id));
        Ok(())
    }

    /// Looks for dangerous structures that committing `id` now would complete.
    fn check(&self, reg: &Registry, id: EngineTxnId, read_only: bool) -> Checked {
        // The `ssi-off` defect: the check returns early, so serializable is snapshot isolation with extra bookkeeping.
        if self.defect == Some(Defect::SsiOff) {
            return Checked::default();
        }
        let mut checked = Checked::default();
        let Some(me) = reg.sxacts.get(&id) else {
            return checked;
        };
        if let Some(conflict) = &me.doom {
            checked.abort = Some(conflict.clone());
            return checked;
        }
        // `id` as the pivot: some T1 -rw-> id -rw-> T3, T3 committed, and T1 has not committed before T3.
        if let Some(out) = &me.earliest_out {
            for (t1, via) in &me.ins {
                let Some(s1) = reg.sxacts.get(t1) else {
                    continue;
                };
                let dangerous = match s1.commit_ts {
                    None => !s1.shared.is_doomed(),
                    Some(c1) => c1 >= out.ts && !(s1.read_only && out.ts > s1.shared.snapshot),
                };
                if dangerous {
                    checked.abort = Some(conflict(*t1, id, out, via, id));
                    return checked;
                }
            }
        }
        // `id` as T1: id -rw-> T2 -rw-> T3 with T3 committed before T2. A committed T2 leaves only us to abort; a
        // running T2 is the pivot and is doomed instead, as PostgreSQL prefers.
        for (t2, via) in &me.outs {
            let Some(s2) = reg.sxacts.get(t2) else {
                continue;
            };
            let Some(out) = &s2.earliest_out else {
                continue;
            };
            if read_only && out.ts > me.shared.snapshot {
                continue;
            }
            match s2.commit_ts {
                Some(c2) if c2 > out.ts => {
                    checked.abort = Some(conflict(id, *t2, out, via, id));
                    return checked;
                }
                Some(_) => {}
                None if s2.live() => checked.doom.push((*t2, conflict(id, *t2, out, via, *t2))),
                None => {}
            }
        }
        checked
    }

    /// Forgets an aborted transaction and its edges.
    pub(crate) fn release(&self, id: EngineTxnId) {
        lock(&self.registry).forget(id);
    }

    /// Forgets committed transactions whose commit precedes `horizon`, the oldest live snapshot.
    pub(crate) fn cleanup(&self, horizon: u64) {
        let mut reg = lock(&self.registry);
        while let Some(&(ts, id)) = reg.committed.front() {
            if ts > horizon {
                break;
            }
            reg.committed.pop_front();
            reg.forget(id);
        }
    }

    /// How many transactions and predicate locks SSI is tracking.
    pub(crate) fn tracked(&self) -> (usize, usize) {
        (lock(&self.registry).sxacts.len(), read(&self.ranges).len())
    }
}

fn conflict(t1: EngineTxnId, t2: EngineTxnId, out: &OutCommit, via_12: &Via, victim: EngineTxnId) -> Conflict {
    Conflict { t1, t2, t3: out.t3, t1_t2: Some(via_12.clone()), t2_t3: Some(out.via.clone()), victim }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T1: EngineTxnId = EngineTxnId(1);
    const T2: EngineTxnId = EngineTxnId(2);
    const T3: EngineTxnId = EngineTxnId(3);

    fn via(k: i64) -> Via {
        Via::RowKey(RowKey::Int(k))
    }

    /// Three serializable transactions that all began at snapshot 0, with T1 -rw-> T2 -rw-> T3.
    fn structure(defect: Option<Defect>) -> Ssi {
        let ssi = Ssi::new(defect);
        for t in [T1, T2, T3] {
            ssi.begin(t, 0);
        }
        ssi.add_edges([(T1, T2, via(1)), (T2, T3, via(2))]);
        ssi
    }

    #[test]
    fn pivot_aborts_when_t3_committed_first_and_t1_is_running() {
        let ssi = structure(None);
        ssi.pre_commit(T3, false, 1).unwrap();
        let conflict = ssi.pre_commit(T2, false, 2).unwrap_err();
        assert_eq!((conflict.t1, conflict.t2, conflict.t3, conflict.victim), (T1, T2, T3, T2));
        assert_eq!((conflict.t1_t2.clone(), conflict.t2_t3.clone()), (Some(via(1)), Some(via(2))));
    }

    #[test]
    fn commit_ordering_refinement_spares_the_pivot_when_t1_committed_before_t3() {
        let ssi = structure(None);
        ssi.pre_commit(T1, false, 1).unwrap();
        ssi.pre_commit(T3, false, 2).unwrap();
        ssi.pre_commit(T2, false, 3).unwrap();
    }

    #[test]
    fn read_only_t1_is_safe_when_t3_committed_after_its_snapshot() {
        let ssi = structure(None);
        ssi.pre_commit(T3, false, 5).unwrap();
        // T1 began at 0 and read nothing T3 wrote; T3 committed at 5, after T1's snapshot.
        ssi.pre_commit(T1, true, 6).unwrap();
        ssi.pre_commit(T2, false, 7).unwrap();
    }

    #[test]
    fn committing_t1_dooms_a_running_pivot_instead_of_itself() {
        let ssi = structure(None);
        ssi.pre_commit(T3, false, 1).unwrap();
        ssi.pre_commit(T1, false, 2).unwrap();
        assert_eq!(ssi.doom_of(T2).map(|c| c.victim), Some(T2));
        assert!(ssi.pre_commit(T2, false, 3).is_err());
    }

    #[test]
    fn write_skew_aborts_the_second_committer() {
        let ssi = Ssi::new(None);
        ssi.begin(T1, 0);
        ssi.begin(T2, 0);
        ssi.add_edges([(T1, T2, via(2)), (T2, T1, via(1))]);
        ssi.pre_commit(T1, false, 1).unwrap();
        let conflict = ssi.pre_commit(T2, false, 2).unwrap_err();
        assert_eq!((conflict.t1, conflict.t2, conflict.t3, conflict.victim), (T1, T2, T1, T2));
    }

    #[test]
    fn ssi_off_never_aborts() {
        let ssi = structure(Some(Defect::SsiOff));
        ssi.pre_commit(T3, false, 1).unwrap();
        ssi.pre_commit(T2, false, 2).unwrap();
        ssi.pre_commit(T1, false, 3).unwrap();
    }

    #[test]
    fn committed_transactions_are_forgotten_once_no_snapshot_overlaps_them() {
        let ssi = structure(None);
        ssi.pre_commit(T3, false, 1).unwrap();
        ssi.release(T2);
        ssi.pre_commit(T1, false, 2).unwrap();
        ssi.cleanup(1);
        assert_eq!(ssi.tracked(), (1, 0));
        ssi.cleanup(2);
        assert_eq!(ssi.tracked(), (0, 0));
    }
}
