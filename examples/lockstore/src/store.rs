//! The engine: lists and registers in two `BTreeMap`s behind one mutex, and one *turn* that a transaction
//! takes at `begin` and gives back at `commit` or `rollback`, so transactions run one at a time and every
//! execution is serial (strict serializability by one global lock, the simplest correct design). A
//! transaction writes in place and keeps an undo log for its rollback. This module knows nothing of
//! isocheck; `system` plugs it in.
//!
//! [`TurnStore::without_turns`] plants the defect a lock-free rewrite would have: no turn, so transactions
//! interleave and read each other's uncommitted writes (isocheck reports G1a, aborted reads, and more).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// The store's tables.
#[derive(Debug, Default)]
struct Tables<K> {
    lists: BTreeMap<K, Vec<i64>>,
    registers: BTreeMap<K, i64>,
}

#[derive(Debug)]
struct State<K> {
    tables: Tables<K>,
    /// The transaction whose turn it is.
    turn: Option<u64>,
    next_txn: u64,
}

/// A store of lists and registers keyed by `K`.
#[derive(Debug)]
pub struct TurnStore<K> {
    state: Mutex<State<K>>,
    turn_free: Condvar,
    turns: bool,
}

/// How often a transaction waiting for its turn checks whether it was cancelled.
const WAIT_SLICE: Duration = Duration::from_millis(5);

/// A transaction that could not begin: it was cancelled while it waited for its turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

/// One change a transaction made, as the way to undo it.
#[derive(Debug)]
enum Undo<K> {
    List(K, Option<Vec<i64>>),
    Register(K, Option<i64>),
}

/// An open transaction: its id and undo log.
#[derive(Debug)]
pub struct TurnTxn<K> {
    id: u64,
    undo: Vec<Undo<K>>,
}

impl<K: Ord + Clone> TurnStore<K> {
    /// An empty store whose transactions take turns.
    pub fn new() -> TurnStore<K> {
        TurnStore::with_turns(true)
    }

    /// An empty store whose transactions do not take turns: the planted defect.
    pub fn without_turns() -> TurnStore<K> {
        TurnStore::with_turns(false)
    }

    fn with_turns(turns: bool) -> TurnStore<K> {
        let state =
            State { tables: Tables { lists: BTreeMap::new(), registers: BTreeMap::new() }, turn: None, next_txn: 1 };
        TurnStore { state: Mutex::new(state), turn_free: Condvar::new(), turns }
    }

    fn state(&self) -> MutexGuard<'_, State<K>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Empties the store and loads these registers (no transaction may be open).
    pub fn reset(&self, registers: impl IntoIterator<Item = (K, i64)>) {
        let mut state = self.state();
        state.tables = Tables { lists: BTreeMap::new(), registers: registers.into_iter().collect() };
    }

    /// Waits for the turn and begins a transaction; `waiting` is set while it waits, and `cancel` ends
    /// the wait.
    pub fn begin(&self, waiting: &AtomicBool, cancel: &AtomicBool) -> Result<TurnTxn<K>, Cancelled> {
        let mut state = self.state();
        let id = state.next_txn;
        state.next_txn += 1;
        if self.turns {
            waiting.store(true, Ordering::Relaxed);
            while state.turn.is_some() {
                if cancel.load(Ordering::Relaxed) {
                    waiting.store(false, Ordering::Relaxed);
                    return Err(Cancelled);
                }
                state = self.turn_free.wait_timeout(state, WAIT_SLICE).unwrap_or_else(PoisonError::into_inner).0;
            }
            waiting.store(false, Ordering::Relaxed);
            state.turn = Some(id);
        }
        Ok(TurnTxn { id, undo: Vec::new() })
    }

    /// Appends to a list.
    pub fn append(&self, txn: &mut TurnTxn<K>, key: &K, element: i64) {
        let mut state = self.state();
        let list = state.tables.lists.entry(key.clone()).or_default();
        txn.undo.push(Undo::List(key.clone(), Some(list.clone()).filter(|l| !l.is_empty())));
        list.push(element);
    }

    /// Reads a list.
    pub fn read_list(&self, key: &K) -> Vec<i64> {
        self.state().tables.lists.get(key).cloned().unwrap_or_default()
    }

    /// Reads a register.
    pub fn read(&self, key: &K) -> Option<i64> {
        self.state().tables.registers.get(key).copied()
    }

    /// Writes a register; returns what it held.
    pub fn write(&self, txn: &mut TurnTxn<K>, key: &K, value: i64) -> Option<i64> {
        let old = self.state().tables.registers.insert(key.clone(), value);
        txn.undo.push(Undo::Register(key.clone(), old));
        old
    }

    /// Deletes a register; returns what it held.
    pub fn delete(&self, txn: &mut TurnTxn<K>, key: &K) -> Option<i64> {
        let old = self.state().tables.registers.remove(key);
        txn.undo.push(Undo::Register(key.clone(), old));
        old
    }

    /// Every register whose value satisfies `matches`.
    pub fn scan(&self, matches: impl Fn(i64) -> bool) -> Vec<(K, i64)> {
        let state = self.state();
        state.tables.registers.iter().filter(|(_, v)| matches(**v)).map(|(k, v)| (k.clone(), *v)).collect()
    }

    /// Commits: the changes stay, the turn passes on.
    pub fn commit(&self, txn: TurnTxn<K>) {
        self.end(txn.id);
    }

    /// Rolls back: the changes are undone, last first, and the turn passes on.
    pub fn rollback(&self, txn: TurnTxn<K>) {
        let mut state = self.state();
        for undo in txn.undo.into_iter().rev() {
            match undo {
                Undo::List(k, Some(list)) => drop(state.tables.lists.insert(k, list)),
                Undo::List(k, None) => drop(state.tables.lists.remove(&k)),
                Undo::Register(k, Some(v)) => drop(state.tables.registers.insert(k, v)),
                Undo::Register(k, None) => drop(state.tables.registers.remove(&k)),
            }
        }
        drop(state);
        self.end(txn.id);
    }

    fn end(&self, id: u64) {
        let mut state = self.state();
        if state.turn == Some(id) {
            state.turn = None;
            self.turn_free.notify_all();
        }
    }
}

impl<K: Ord + Clone> Default for TurnStore<K> {
    fn default() -> TurnStore<K> {
        TurnStore::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rollback_undoes_every_change_and_a_commit_keeps_them() {
        let store: TurnStore<u32> = TurnStore::new();
        store.reset([(1, 10)]);
        let (waiting, cancel) = (AtomicBool::new(false), AtomicBool::new(false));
        let mut t = store.begin(&waiting, &cancel).unwrap();
        store.append(&mut t, &7, 1);
        store.write(&mut t, &1, 11);
        store.delete(&mut t, &1);
        store.rollback(t);
        assert_eq!((store.read_list(&7), store.read(&1)), (vec![], Some(10)));
        let mut t = store.begin(&waiting, &cancel).unwrap();
        store.append(&mut t, &7, 2);
        store.commit(t);
        assert_eq!(store.read_list(&7), vec![2]);
    }

    #[test]
    fn a_second_transaction_waits_for_the_turn_until_cancelled() {
        let store: TurnStore<u32> = TurnStore::new();
        let (waiting, cancel) = (AtomicBool::new(false), AtomicBool::new(false));
        let first = store.begin(&waiting, &cancel).unwrap();
        cancel.store(true, Ordering::Relaxed);
        assert_eq!(store.begin(&waiting, &cancel).unwrap_err(), Cancelled);
        store.commit(first);
        cancel.store(false, Ordering::Relaxed);
        assert!(store.begin(&waiting, &cancel).is_ok(), "the turn is free again");
    }
}
