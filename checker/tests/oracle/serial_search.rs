//! The brute-force oracle: does some serial order of a history's transactions explain every read it
//! shows? It tries every order of the committed transactions, with each indeterminate one (`info`, or
//! never completed) in or out, replaying each from the initial state (the `init` op's rows, if any):
//! every read of a committed transaction must return what the serial state holds (a list, a register,
//! a row, or the rows a predicate matches), while reads of indeterminate transactions are unknown and
//! constrain nothing. Failed transactions are out. For strict serializability, a transaction that
//! completed `ok` before another was invoked comes first (one whose invoke was not recorded follows
//! nothing in real time). Elle's register assumptions, when asked, are
//! claims about the system, so the order must also satisfy them: a key's versions (the serial order of
//! its external writes, after `nil`) must follow each committed transaction's read-then-write
//! (`wfr-keys`), each process's committed transactions (`sequential-keys`), and real time
//! (`linearizable-keys`), in the sense `checker`'s `rw_register::versions` infers from them.
//!
//! This module owns nothing but that search, and knows nothing of the checker's inferences: it reads
//! the history as `histories` parses it.

use std::collections::HashSet;

use checker::Inference;
use histories::{Function, History, Key, Mop, Observed, OpType, OpValue, Process};

/// One key's state: its list (list-append) and its value (registers and rows; `None`: nil, no row).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
struct Cell {
    list: Vec<i64>,
    value: Option<i64>,
}

type State = Vec<Cell>;

/// A transaction that may take part in a serial order.
struct Candidate<'h> {
    index: u64,
    committed: bool,
    mops: &'h [Mop],
    /// The earliest position it may have been invoked at; `None`: unknown (no invoke was recorded).
    invoked_after: Option<usize>,
    completion_at: Option<usize>,
    process: Process,
}

/// A history, ready to be searched.
pub struct SerialSearch<'h> {
    keys: Vec<&'h Key>,
    initial: State,
    candidates: Vec<Candidate<'h>>,
    /// For each candidate, the committed candidates that completed before it was invoked (a bit set).
    before: Vec<u32>,
    committed: u32,
}

/// What a candidate did to one key, as Elle's external reads and writes define it: the value its first
/// micro-op on the key read (when that micro-op is a read), and the last value it wrote.
#[derive(Debug, Clone, Copy)]
struct Touch {
    key: usize,
    read: Option<Option<i64>>,
    write: Option<Option<i64>>,
}

impl Touch {
    fn first(&self) -> Option<i64> {
        self.read.or(self.write).flatten()
    }

    fn last(&self) -> Option<i64> {
        self.write.or(self.read).flatten()
    }
}

impl<'h> SerialSearch<'h> {
    /// The transactions of `history` that may take part (up to 32).
    pub fn new(history: &'h History) -> SerialSearch<'h> {
        let mut keys: Vec<&'h Key> = Vec::new();
        let mut intern = |key: &'h Key| match keys.iter().position(|k| *k == key) {
            Some(at) => at,
            None => {
                keys.push(key);
                keys.len() - 1
            }
        };
        let mut init_rows = Vec::new();
        let mut candidates = Vec::new();
        for t in history.transactions() {
            if *t.invoke.f() == Function::Init {
                if let Some(OpValue::Rows(rows)) = t.completion.map(|c| &c.value) {
                    init_rows.extend(rows.iter().map(|(k, &v)| (intern(k), v)));
                }
                continue;
            }
            let outcome = t.outcome();
            if outcome == OpType::Fail {
                continue;
            }
            let mops = match t.completion {
                Some(c) if !c.mops().is_empty() => c.mops(),
                _ => t.invoke.mops(),
            };
            for mop in mops {
                match mop {
                    Mop::PredicateRead { rows, .. } => rows.iter().flat_map(|rows| rows.iter()).for_each(|(k, _)| {
                        intern(k);
                    }),
                    other => {
                        if let Some(k) = other.key() {
                            intern(k);
                        }
                    }
                }
            }
            candidates.push(Candidate {
                index: t.op().index,
                committed: outcome == OpType::Ok,
                mops,
                invoked_after: t.invoked_after,
                completion_at: t.completion_at,
                process: t.invoke.process(),
            });
        }
        assert!(candidates.len() <= 32, "the search takes up to 32 transactions");
        let mut initial: State = vec![Cell::default(); keys.len()];
        for (k, v) in init_rows {
            initial[k].value = Some(v);
        }
        let before = candidates
            .iter()
            .map(|b| {
                candidates.iter().enumerate().fold(0u32, |set, (i, a)| match a.completion_at {
                    Some(done) if a.committed && b.invoked_after.is_some_and(|b_invoked| done < b_invoked) => {
                        set | 1 << i
                    }
                    _ => set,
                })
            })
            .collect();
        let committed =
            candidates.iter().enumerate().fold(0u32, |set, (i, c)| if c.committed { set | 1 << i } else { set });
        SerialSearch { keys, initial, candidates, before, committed }
    }

    fn key(&self, key: &Key) -> usize {
        self.keys.iter().position(|k| *k == key).expect("every key is interned")
    }

    /// A serial order (the transactions' indices) that explains the history, respecting real time when
    /// `strict`, and satisfying the register assumptions `inference` makes; `None` if there is none.
    pub fn order(&self, strict: bool, inference: Inference) -> Option<Vec<u64>> {
        let mut order = Vec::with_capacity(self.candidates.len());
        let mut dead_ends = HashSet::new();
        self.extend(strict, inference, 0, &self.initial, &mut order, &mut dead_ends)
            .then(|| order.iter().map(|&i| self.candidates[i].index).collect())
    }

    /// Extends `order` (whose members are `placed`) to an order that explains the history.
    fn extend(
        &self,
        strict: bool,
        inference: Inference,
        placed: u32,
        state: &State,
        order: &mut Vec<usize>,
        dead_ends: &mut HashSet<(u32, State)>,
    ) -> bool {
        if placed & self.committed == self.committed && self.assumptions_hold(inference, placed, order) {
            return true;
        }
        // Without assumptions, whether an order extends depends only on who is placed and the state.
        let memo = !inference.any();
        if memo && dead_ends.contains(&(placed, state.clone())) {
            return false;
        }
        for (i, _) in self.candidates.iter().enumerate() {
            if placed & (1 << i) != 0 || (strict && self.before[i] & !placed != 0) {
                continue;
            }
            let Some(next) = self.apply(i, state) else { continue };
            order.push(i);
            if self.extend(strict, inference, placed | 1 << i, &next, order, dead_ends) {
                return true;
            }
            order.pop();
        }
        if memo {
            dead_ends.insert((placed, state.clone()));
        }
        false
    }

    /// The state after candidate `i` runs alone on `state`, if its reads are what that state shows.
    fn apply(&self, i: usize, state: &State) -> Option<State> {
        let candidate = &self.candidates[i];
        let mut state = state.clone();
        for mop in candidate.mops {
            match mop {
                Mop::Append { key, value } => state[self.key(key)].list.push(*value),
                Mop::Write { key, value, .. } | Mop::Insert { key, value } => state[self.key(key)].value = Some(*value),
                Mop::Delete { key } => state[self.key(key)].value = None,
                // An indeterminate transaction's reads are not observations: it may never have run.
                _ if !candidate.committed => {}
                Mop::Read { key, value } => {
                    let cell = &state[self.key(key)];
                    let shown = match value {
                        Observed::Nil => cell.list.is_empty() && cell.value.is_none(),
                        Observed::List(list) => cell.list == list.as_slice(),
                        Observed::Int(v) => cell.value == Some(*v),
                    };
                    if !shown {
                        return None;
                    }
                }
                Mop::PredicateRead { predicate, rows } => {
                    let Some(rows) = rows else { continue };
                    let matching = self
                        .keys
                        .iter()
                        .zip(&state)
                        .filter(|(_, cell)| cell.value.is_some_and(|v| predicate.matches(v)))
                        .count();
                    let returned = rows.iter().all(|(key, &v)| {
                        self.keys.iter().position(|k| *k == key).is_some_and(|k| state[k].value == Some(v))
                    });
                    if !returned || rows.len() != matching || rows.values().any(|&v| !predicate.matches(v)) {
                        return None;
                    }
                }
            }
        }
        Some(state)
    }

    /// Each candidate's external reads and writes, per key.
    fn touches(&self, i: usize) -> Vec<Touch> {
        let candidate = &self.candidates[i];
        let mut touches: Vec<Touch> = Vec::new();
        for mop in candidate.mops {
            let (key, read, write) = match mop {
                // An indeterminate transaction's reads are unknown.
                Mop::Read { key, value } if candidate.committed => match value {
                    Observed::Int(v) => (key, Some(Some(*v)), None),
                    _ => (key, Some(None), None),
                },
                Mop::Write { key, value, .. } | Mop::Insert { key, value } => (key, None, Some(Some(*value))),
                Mop::Delete { key } => (key, None, Some(None)),
                _ => continue,
            };
            let k = self.key(key);
            match touches.iter_mut().find(|t| t.key == k) {
                Some(touch) => touch.write = write.or(touch.write),
                None => touches.push(Touch { key: k, read, write }),
            }
        }
        touches
    }

    /// Whether the versions the serial `order` installs satisfy the register assumptions.
    fn assumptions_hold(&self, inference: Inference, placed: u32, order: &[usize]) -> bool {
        if !inference.any() {
            return true;
        }
        // Each key's versions: nil (position 0), then each external write, in serial order.
        let mut position: Vec<Vec<(Option<i64>, usize)>> = vec![vec![(None, 0)]; self.keys.len()];
        for &i in order {
            for touch in self.touches(i) {
                if let Some(w) = touch.write {
                    let versions = &mut position[touch.key];
                    let next = versions.len();
                    versions.push((w, next));
                }
            }
        }
        let pos =
            |key: usize, value: Option<i64>| position[key].iter().rev().find(|(v, _)| *v == value).map(|&(_, p)| p);
        // `a` left the key at a version no later than the one `b` first found or wrote.
        let ordered = |a: &Touch, b: &Touch| match (pos(a.key, a.last()), pos(b.key, b.first())) {
            (Some(x), Some(y)) => x <= y,
            _ => true,
        };
        let committed: Vec<usize> = (0..self.candidates.len()).filter(|&i| self.candidates[i].committed).collect();
        if inference.wfr_keys {
            for &i in &committed {
                for touch in self.touches(i) {
                    if let (Some(r), Some(w)) = (touch.read, touch.write)
                        && let (Some(x), Some(y)) = (pos(touch.key, r), pos(touch.key, w))
                        && x >= y
                    {
                        return false;
                    }
                }
            }
        }
        if inference.sequential_keys {
            let mut by_completion = committed.clone();
            by_completion.sort_by_key(|&i| self.candidates[i].completion_at);
            for (n, &b) in by_completion.iter().enumerate() {
                for tb in self.touches(b) {
                    // The same process's latest earlier committed transaction that touched the key.
                    let earlier = by_completion[..n].iter().rev().find_map(|&a| {
                        (self.candidates[a].process == self.candidates[b].process)
                            .then(|| self.touches(a).into_iter().find(|t| t.key == tb.key))
                            .flatten()
                    });
                    if let Some(ta) = earlier
                        && !ordered(&ta, &tb)
                    {
                        return false;
                    }
                }
            }
        }
        if inference.linearizable_keys {
            for b in (0..self.candidates.len()).filter(|&b| placed & (1 << b) != 0) {
                for a in (0..self.candidates.len()).filter(|&a| self.before[b] & (1 << a) != 0) {
                    for tb in self.touches(b) {
                        if let Some(ta) = self.touches(a).into_iter().find(|t| t.key == tb.key)
                            && !ordered(&ta, &tb)
                        {
                            return false;
                        }
                    }
                }
            }
        }
        true
    }
}

/// The search itself, verdict by verdict, on histories written in the shorthand.
mod tests {
    use checker::Inference;

    use super::SerialSearch;
    use crate::support::*;

    fn orders(history: &histories::History, inference: Inference) -> (Option<Vec<u64>>, Option<Vec<u64>>) {
        let search = SerialSearch::new(history);
        (search.order(false, inference), search.order(true, inference))
    }

    #[test]
    fn a_write_skew_has_no_serial_order_and_its_near_miss_has_one() {
        let skew = concurrent(&["rxay1", "ryax1"]);
        assert_eq!(orders(&skew, Inference::default()), (None, None));
        let one_saw_the_other = concurrent(&["rxay1", "ry1ax1"]);
        assert_eq!(orders(&one_saw_the_other, Inference::default()), (Some(vec![2, 3]), Some(vec![2, 3])));
    }

    #[test]
    fn a_stale_read_is_serializable_but_not_strict_serializable() {
        // T3 began after T1 appended 1 to x and committed, yet read x empty.
        let stale = sequential(&["ax1", "rx"]);
        assert_eq!(orders(&stale, Inference::default()), (Some(vec![3, 1]), None));
        let fresh = sequential(&["ax1", "rx1"]);
        assert_eq!(orders(&fresh, Inference::default()), (Some(vec![1, 3]), Some(vec![1, 3])));
    }

    #[test]
    fn an_indeterminate_transaction_is_in_when_read_and_out_when_not() {
        // T3's read of 1 needs T2, which crashed; T4's read of x empty before 2 needs T2 out or after it.
        let read = concurrent_of(vec![info(0, "ax1"), ok(1, "rx1"), ok(2, "ry")]);
        assert_eq!(orders(&read, Inference::default()).0, Some(vec![3, 4, 5]));
        let unread = concurrent_of(vec![info(0, "ax1ay1"), ok(1, "rx"), ok(2, "ry")]);
        assert_eq!(orders(&unread, Inference::default()).0, Some(vec![4, 5]));
        // Failed transactions are never in: a read of an aborted append has no order.
        let aborted = concurrent_of(vec![fail(0, "ax1"), ok(1, "rx1")]);
        assert_eq!(orders(&aborted, Inference::default()).0, None);
    }

    #[test]
    fn an_indeterminate_transactions_reads_constrain_nothing() {
        // Nobody appended 5: had T3 committed, no order would explain its read.
        let h = concurrent_of(vec![info(0, "rx5"), ok(1, "ax1")]);
        assert!(orders(&h, Inference::default()).0.is_some());
        let h = concurrent_of(vec![ok(0, "rx5"), ok(1, "ax1")]);
        assert_eq!(orders(&h, Inference::default()).0, None);
    }

    #[test]
    fn register_assumptions_restrict_the_version_order() {
        // Process 0 wrote x = 1 and then read x = nil: serializable (read first), but not if each key
        // is sequentially consistent, since process 0 saw 1 before nil.
        let h = sequential_of(vec![rok(0, "wx1"), rok(0, "rx_")]);
        let sequential = Inference { sequential_keys: true, ..Inference::default() };
        let linearizable = Inference { linearizable_keys: true, ..Inference::default() };
        assert_eq!(orders(&h, Inference::default()).0, Some(vec![3, 1]));
        assert_eq!(orders(&h, sequential).0, None);
        assert_eq!(orders(&h, linearizable).0, None);
        // On two processes, sequential consistency allows it; linearizability does not.
        let h = sequential_of(vec![rok(0, "wx1"), rok(1, "rx_")]);
        assert_eq!(orders(&h, sequential).0, Some(vec![3, 1]));
        assert_eq!(orders(&h, linearizable).0, None);
    }

    #[test]
    fn predicate_reads_return_exactly_the_matching_rows() {
        use histories::Predicate;
        let txns = vec![ok_mops(0, vec![insert("y", 2)]), ok_mops(1, vec![rp(Predicate::True, &[("x", 1)])])];
        // T4's predicate read missed y = 2, so it ran before T3: serializable, but not in real time.
        let h = with_init(&[("x", 1)], txns.clone(), &[0, 0, 1, 1]);
        assert_eq!(orders(&h, Inference::default()), (Some(vec![5, 3]), None));
        let txns = vec![ok_mops(0, vec![insert("y", 2)]), ok_mops(1, vec![rp(Predicate::Eq(3), &[("x", 1)])])];
        let h = with_init(&[("x", 1)], txns, &[0, 0, 1, 1]);
        assert_eq!(orders(&h, Inference::default()), (None, None), "x = 1 does not match value = 3");
    }
}
