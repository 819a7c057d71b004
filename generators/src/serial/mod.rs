//! Serial histories: transactions executed one at a time by the reference executor ([`SerialDb`]),
//! recorded as a history whose concurrency is consistent with that serial order ([`schedule`]). Every
//! such history is strict-serializable by construction, so a checker must find it valid; with one
//! targeted corruption it must not. This module owns building those histories; the streams of
//! transactions are the workloads', and judging the histories is the checker's.
//!
//! The serial order is a seeded shuffle of the transactions given, so a workload's values (1, 2, 3, ...
//! per key) are appended in an order unrelated to their size. Operations are numbered densely from 0
//! in history order, with times in nanoseconds that increase with the index.

mod db;
mod schedule;

use histories::{Function, History, Mop, Op, OpType, OpValue, Position, Process};

pub use db::SerialDb;

use crate::draw::Draw;
use schedule::{Event, schedule};

/// The largest gap between two operations' times, in nanoseconds.
const MAX_GAP_NS: u64 = 1_000_000;

/// A serial execution and the history that records it.
#[derive(Debug, Clone)]
pub struct SerialRun {
    /// The history: each transaction invoked, then completed `ok`.
    pub history: History,
    /// The serial order: `order[i]` is the position, in the transactions given, of the `i`-th to
    /// commit (transactions added by [`SerialRun::then_alone`] are numbered on from the last).
    pub order: Vec<usize>,
    /// For each transaction in serial order, the position of its invocation in the history.
    pub invocations: Vec<usize>,
    /// The database after the last commit.
    pub db: SerialDb,
    draw: Draw,
}

impl SerialRun {
    /// Executes `txns` (invocations' micro-ops) serially in a seeded random order, and records them as
    /// a history on `clients` processes where each transaction's span holds at most `max_overlap`
    /// other commits on either side (see [`schedule`]'s rules).
    ///
    /// # Panics
    /// If `clients` is zero, or on a micro-op [`SerialDb::apply`] refuses.
    pub fn new(txns: &[Vec<Mop>], seed: u64, clients: usize, max_overlap: usize) -> SerialRun {
        let mut draw = Draw::new(seed);
        let mut order: Vec<usize> = (0..txns.len()).collect();
        draw.shuffle(&mut order);
        let events = schedule(txns.len(), clients, max_overlap, &mut draw);
        let mut db = SerialDb::new();
        let mut completed: Vec<Option<Vec<Mop>>> = vec![None; txns.len()];
        let mut process_of = vec![0u64; txns.len()];
        let mut invocations = vec![0usize; txns.len()];
        let mut ops = Vec::with_capacity(2 * txns.len());
        let mut time = draw.below(MAX_GAP_NS) as i64;
        for event in events {
            let (kind, process, value) = match event {
                Event::Invoke { txn, process } => {
                    process_of[txn] = process;
                    invocations[txn] = ops.len();
                    (OpType::Invoke, process, txns[order[txn]].clone())
                }
                Event::Commit { txn } => {
                    completed[txn] = Some(db.apply(&txns[order[txn]]));
                    continue;
                }
                Event::Complete { txn } => {
                    (OpType::Ok, process_of[txn], completed[txn].take().expect("completes after committing"))
                }
            };
            time += 1 + draw.below(MAX_GAP_NS) as i64;
            ops.push(op(ops.len() as u64, kind, process, time, value));
        }
        let history = History::from_ops(ops).expect("a serial schedule is a well-formed history");
        SerialRun { history, order, invocations, db, draw }
    }

    /// Runs one more transaction after every other has completed: invoked, committed on the final
    /// state and completed on process 0 before anything else happens. The usual use is
    /// `run.then_alone(&run.db.read_all())`, a final read of every key, so every append is observed by
    /// a transaction in its writer's real-time future.
    pub fn then_alone(&mut self, txn: &[Mop]) {
        let mut ops = std::mem::take(&mut self.history).into_ops();
        let mut time = ops.last().and_then(|op| op.time).unwrap_or(0);
        let completed = self.db.apply(txn);
        self.invocations.push(ops.len());
        for (kind, value) in [(OpType::Invoke, txn.to_vec()), (OpType::Ok, completed)] {
            time += 1 + self.draw.below(MAX_GAP_NS) as i64;
            ops.push(op(ops.len() as u64, kind, 0, time, value));
        }
        self.order.push(self.order.len());
        self.history = History::from_ops(ops).expect("a transaction alone keeps the history well formed");
    }
}

/// Executes `txns` serially in a seeded random order and records a history whose concurrency agrees
/// with that order: `clients` processes, each transaction's span holding at most `max_overlap` other
/// commits on either side. Strict-serializable by construction. See [`SerialRun::new`].
///
/// # Panics
/// If `clients` is zero, or on a micro-op [`SerialDb::apply`] refuses.
pub fn serial_history(txns: &[Vec<Mop>], seed: u64, clients: usize, max_overlap: usize) -> History {
    SerialRun::new(txns, seed, clients, max_overlap).history
}

fn op(index: u64, kind: OpType, process: u64, time: i64, value: Vec<Mop>) -> Op {
    Op {
        index,
        kind,
        process: Process::Client(process),
        f: Function::Txn,
        time: Some(time),
        value: OpValue::Txn(value),
        error: None,
        extra: Vec::new(),
        at: Position::default(),
    }
}

#[cfg(test)]
mod tests {
    use histories::{Key, Observed};

    use super::*;
    use crate::list_append::ListAppend;
    use crate::params::Params;

    fn append(k: i64, v: i64) -> Mop {
        Mop::Append { key: Key::Int(k), value: v }
    }

    fn read(k: i64) -> Mop {
        Mop::Read { key: Key::Int(k), value: Observed::Nil }
    }

    #[test]
    fn a_hand_computed_case() {
        // One client, no overlap: the history is the serial order itself.
        let txns = vec![vec![append(1, 1)], vec![read(1), append(1, 2)], vec![read(1)]];
        let run = SerialRun::new(&txns, 3, 1, 0);
        let ops = run.history.ops();
        assert_eq!(ops.len(), 6);
        let mut list = Vec::new();
        for (i, pair) in ops.chunks(2).enumerate() {
            let t = &txns[run.order[i]];
            assert_eq!((pair[0].kind, pair[1].kind), (OpType::Invoke, OpType::Ok));
            assert_eq!(pair[0].mops(), t.as_slice());
            let expected: Vec<Mop> = t
                .iter()
                .map(|m| match m {
                    Mop::Append { value, .. } => {
                        list.push(*value);
                        m.clone()
                    }
                    _ if list.is_empty() => read(1),
                    _ => Mop::Read { key: Key::Int(1), value: Observed::List(list.clone()) },
                })
                .collect();
            assert_eq!(pair[1].mops(), expected.as_slice());
        }
        assert_eq!(run.db.read(&Key::Int(1)), Observed::List(list));
    }

    #[test]
    fn histories_are_dense_timed_sequential_per_process_and_agree_with_the_serial_order() {
        let txns: Vec<Vec<Mop>> = ListAppend::new(Params::default(), 4).unwrap().take(300).collect();
        let mut run = SerialRun::new(&txns, 9, 5, 3);
        run.then_alone(&run.db.read_all());
        let ops = run.history.ops();
        assert_eq!(ops.len(), 2 * 301);
        assert!(ops.iter().enumerate().all(|(i, op)| op.index == i as u64));
        assert!(ops.windows(2).all(|w| w[0].time < w[1].time));
        assert!(run.history.transactions().all(|t| t.outcome() == OpType::Ok));
        // Real time agrees with the serial order: whatever completed before an invocation committed
        // before it.
        let spans: Vec<(usize, usize)> =
            run.invocations.iter().map(|&i| (i, run.history.partner(i).expect("completed"))).collect();
        for (a, &(_, a_done)) in spans.iter().enumerate() {
            for (b, &(b_invoked, _)) in spans.iter().enumerate() {
                assert!(a_done > b_invoked || a < b, "T{a} completed before T{b} was invoked, but committed after");
            }
        }
        // The last transaction ran alone, and the invocations match the transactions given.
        let (last_invoked, _) = spans[300];
        assert!(spans[..300].iter().all(|&(_, done)| done < last_invoked));
        for (i, &t) in run.order[..300].iter().enumerate() {
            assert_eq!(ops[run.invocations[i]].mops(), txns[t].as_slice());
        }
        // Processes run one transaction at a time (History::from_ops refuses otherwise), and several ran.
        let processes: std::collections::BTreeSet<_> = ops.iter().map(|o| o.process).collect();
        assert_eq!(processes.len(), 5);
    }

    #[test]
    fn the_same_seed_builds_the_same_history() {
        let txns: Vec<Vec<Mop>> = ListAppend::new(Params::default(), 4).unwrap().take(100).collect();
        let a = serial_history(&txns, 1, 4, 2);
        let b = serial_history(&txns, 1, 4, 2);
        assert_eq!(a.ops(), b.ops());
        assert_ne!(a.ops(), serial_history(&txns, 2, 4, 2).ops());
    }
}
