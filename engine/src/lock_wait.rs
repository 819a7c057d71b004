//! Waiting for another transaction's uncommitted write: transaction locks, the wait-for graph, deadlock detection,
//! and how a kill wakes a waiting session.
//!
//! Owns: [`TxnLock`], which a writing transaction holds from its first write until it commits or rolls back
//! (PostgreSQL's lock on a transaction's own xid, which the second writer of a row waits on); [`WaitGraph`], which
//! transaction each blocked one waits for, and the deadlock check made before blocking; and [`Interrupt`], through
//! which `SessionHandle::kill` wakes a session's waiting statement. Does not own when a write must wait (the
//! first-updater rule in `version_chain.rs`) or what it does after waking (`txn.rs` checks the key again).
//!
//! A blocked transaction waits for exactly one other, so the wait-for relation is a set of chains, and each
//! insertion checks that the new edge closes no cycle: the graph stays acyclic, and the transaction whose wait
//! would close a cycle fails with [`Error::Deadlock`] instead of blocking. An edge `W -> H` only exists while `W` is
//! inside [`WaitGraph::wait`], and `H` can only end after leaving its own wait, so every path followed here runs
//! through running transactions and a reported cycle is real. PostgreSQL instead blocks first and runs its check
//! after `deadlock_timeout`; checking up front finds the same cycles without the second's delay.
//!
//! Locks: the graph's mutex, a session's wait slot and a transaction lock's state are each taken alone, never while
//! holding a chain, so a waiter holds nothing another statement needs except its own uncommitted versions.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::key::RowKey;
use crate::snapshot::EngineTxnId;
use crate::sync::{Arc, AtomicBool, Condvar, Mutex, Ordering, lock, wait_timeout};

/// How a transaction ended, as its waiters learn it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fate {
    Running,
    Committed,
    RolledBack,
}

/// A writing transaction's lock: later writers of its keys wait on it until it ends.
#[derive(Debug)]
pub(crate) struct TxnLock {
    id: EngineTxnId,
    fate: Mutex<Fate>,
    ended: Condvar,
}

impl TxnLock {
    pub(crate) fn new(id: EngineTxnId) -> Arc<TxnLock> {
        Arc::new(TxnLock { id, fate: Mutex::new(Fate::Running), ended: Condvar::new() })
    }

    /// The transaction holding the lock.
    pub(crate) fn id(&self) -> EngineTxnId {
        self.id
    }

    /// Ends the transaction and wakes every waiter. Called once its versions are installed or removed, so a waiter
    /// that wakes finds the key as the ending transaction left it. Only the first fate counts.
    pub(crate) fn release(&self, fate: Fate) {
        let mut current = lock(&self.fate);
        if *current == Fate::Running {
            *current = fate;
        }
        drop(current);
        self.ended.notify_all();
    }

    /// Blocks until the transaction ends, `killed` is set, or `timeout` passes.
    fn wait_end(&self, killed: &AtomicBool, timeout: Duration) -> Result<Fate> {
        let deadline = Instant::now() + timeout;
        let mut fate = lock(&self.fate);
        loop {
            // Checked under the fate mutex, which `Interrupt::kill` takes to notify, so a kill is never missed.
            if killed.load(Ordering::SeqCst) {
                return Err(Error::Killed);
            }
            if *fate != Fate::Running {
                return Ok(*fate);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(Error::LockTimeout { waited: timeout });
            }
            fate = wait_timeout(&self.ended, fate, deadline - now);
        }
    }

    /// Wakes the waiters without ending the transaction, so that a killed one notices.
    fn wake(&self) {
        let _fate = lock(&self.fate);
        self.ended.notify_all();
    }
}

/// What lets `SessionHandle::kill` reach a session's statement while it waits: the kill flag, and the lock the
/// statement is waiting on. One per session, shared with each of its transactions.
#[derive(Debug, Default)]
pub(crate) struct Interrupt {
    killed: AtomicBool,
    waiting_on: Mutex<Option<Arc<TxnLock>>>,
}

impl Interrupt {
    /// Marks the session killed and wakes its statement if it is waiting.
    pub(crate) fn kill(&self) {
        self.killed.store(true, Ordering::SeqCst);
        // A waiter that stores its lock after this read checks the flag after storing it, so it sees the kill.
        let holder = lock(&self.waiting_on).clone();
        if let Some(holder) = holder {
            holder.wake();
        }
    }

    pub(crate) fn is_killed(&self) -> bool {
        self.killed.load(Ordering::SeqCst)
    }

    /// The transaction the session's statement is waiting for, if it is waiting.
    pub(crate) fn waiting_for(&self) -> Option<EngineTxnId> {
        lock(&self.waiting_on).as_ref().map(|h| h.id())
    }

    fn block_on(&self, holder: &Arc<TxnLock>, timeout: Duration) -> Result<Fate> {
        *lock(&self.waiting_on) = Some(Arc::clone(holder));
        let fate = holder.wait_end(&self.killed, timeout);
        *lock(&self.waiting_on) = None;
        fate
    }
}

/// The wait-for relation between blocked transactions: waiter → the transaction it waits for.
#[derive(Debug, Default)]
pub(crate) struct WaitGraph {
    edges: Mutex<HashMap<EngineTxnId, EngineTxnId>>,
}

impl WaitGraph {
    /// Blocks `me`, which wants to write `key`, until `holder` commits or rolls back, and returns how it ended.
    /// Fails at once with [`Error::Deadlock`] if `holder` already waits, directly or transitively, for `me`; with
    /// [`Error::Killed`] if `me`'s session is killed meanwhile; with [`Error::LockTimeout`] after `timeout`.
    pub(crate) fn wait(
        &self,
        me: EngineTxnId,
        key: &RowKey,
        holder: &Arc<TxnLock>,
        interrupt: &Interrupt,
        timeout: Duration,
    ) -> Result<Fate> {
        {
            let mut edges = lock(&self.edges);
            let mut cycle = vec![me];
            let mut at = holder.id();
            // The graph is acyclic, so following the one edge out of each waiter ends within `edges.len()` steps.
            while cycle.len() <= edges.len() + 1 {
                if at == me {
                    return Err(Error::Deadlock { key: key.clone(), cycle });
                }
                cycle.push(at);
                match edges.get(&at) {
                    Some(next) => at = *next,
                    None => break,
                }
            }
            edges.insert(me, holder.id());
        }
        let fate = interrupt.block_on(holder, timeout);
        lock(&self.edges).remove(&me);
        fate
    }

    /// How many transactions are blocked now.
    #[cfg(test)]
    fn waiting(&self) -> usize {
        lock(&self.edges).len()
    }
}

#[cfg(test)]
mod tests {
    use std::thread;

    use super::*;

    const LONG: Duration = Duration::from_secs(10);

    /// Spins until `interrupt`'s statement is waiting (the waiter runs on another thread).
    fn until_waiting(interrupt: &Interrupt) {
        while interrupt.waiting_for().is_none() {
            thread::yield_now();
        }
    }

    #[test]
    fn a_waiter_learns_how_the_holder_ended() {
        for fate in [Fate::Committed, Fate::RolledBack] {
            let (graph, interrupt, holder) = (WaitGraph::default(), Interrupt::default(), TxnLock::new(EngineTxnId(1)));
            thread::scope(|s| {
                let waiter = s.spawn(|| graph.wait(EngineTxnId(2), &RowKey::Int(1), &holder, &interrupt, LONG));
                until_waiting(&interrupt);
                assert_eq!((interrupt.waiting_for(), graph.waiting()), (Some(EngineTxnId(1)), 1));
                holder.release(fate);
                assert_eq!(waiter.join().unwrap(), Ok(fate));
            });
            assert_eq!((interrupt.waiting_for(), graph.waiting()), (None, 0));
        }
    }

    #[test]
    fn waiting_for_an_ended_transaction_returns_at_once() {
        let (graph, interrupt, holder) = (WaitGraph::default(), Interrupt::default(), TxnLock::new(EngineTxnId(1)));
        holder.release(Fate::Committed);
        holder.release(Fate::RolledBack);
        assert_eq!(graph.wait(EngineTxnId(2), &RowKey::Int(1), &holder, &interrupt, LONG), Ok(Fate::Committed));
    }

    #[test]
    fn a_wait_that_would_close_a_cycle_is_a_deadlock() {
        let graph = WaitGraph::default();
        let locks: Vec<Arc<TxnLock>> = (1..=3).map(|i| TxnLock::new(EngineTxnId(i))).collect();
        let interrupts: Vec<Interrupt> = (0..2).map(|_| Interrupt::default()).collect();
        thread::scope(|s| {
            // T1 waits for T2, T2 waits for T3; T3 wanting T1's key would close T3 -> T1 -> T2 -> T3.
            let t1 = s.spawn(|| graph.wait(EngineTxnId(1), &RowKey::Int(2), &locks[1], &interrupts[0], LONG));
            until_waiting(&interrupts[0]);
            let t2 = s.spawn(|| graph.wait(EngineTxnId(2), &RowKey::Int(3), &locks[2], &interrupts[1], LONG));
            until_waiting(&interrupts[1]);
            let third = graph.wait(EngineTxnId(3), &RowKey::Int(1), &locks[0], &Interrupt::default(), LONG);
            assert_eq!(
                third,
                Err(Error::Deadlock {
                    key: RowKey::Int(1),
                    cycle: vec![EngineTxnId(3), EngineTxnId(1), EngineTxnId(2)]
                })
            );
            locks[2].release(Fate::RolledBack);
            assert_eq!(t2.join().unwrap(), Ok(Fate::RolledBack));
            locks[1].release(Fate::Committed);
            assert_eq!(t1.join().unwrap(), Ok(Fate::Committed));
        });
    }

    #[test]
    fn a_kill_wakes_the_waiter() {
        let (graph, interrupt, holder) = (WaitGraph::default(), Interrupt::default(), TxnLock::new(EngineTxnId(1)));
        thread::scope(|s| {
            let waiter = s.spawn(|| graph.wait(EngineTxnId(2), &RowKey::Int(1), &holder, &interrupt, LONG));
            until_waiting(&interrupt);
            interrupt.kill();
            assert_eq!(waiter.join().unwrap(), Err(Error::Killed));
        });
        assert!(interrupt.is_killed());
        assert_eq!(graph.waiting(), 0);
    }

    #[test]
    fn a_wait_times_out_as_a_last_resort() {
        let (graph, interrupt, holder) = (WaitGraph::default(), Interrupt::default(), TxnLock::new(EngineTxnId(1)));
        let waited = Duration::from_millis(20);
        assert_eq!(
            graph.wait(EngineTxnId(2), &RowKey::Int(1), &holder, &interrupt, waited),
            Err(Error::LockTimeout { waited })
        );
    }
}
