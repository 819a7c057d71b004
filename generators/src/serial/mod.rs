//! Serial histories: transactions executed one at a time by the reference executor ([`SerialDb`]),
//! recorded as a history whose concurrency is consistent with that serial order, with, if asked,
//! aborted (`fail`) and indeterminate (`info`) transactions among them. Every such history is
//! strict-serializable by construction, so a checker must find it valid; with one targeted corruption
//! it must not. This module owns building those histories; the streams of transactions are the
//! workloads', and judging the histories is the checker's.
//!
//! The rules of the record: each client runs one transaction at a time; a transaction is invoked
//! before its commit point and completes after it, at random; and its span holds at most
//! `max_overlap` other commit points on either side. So whatever completes before another is invoked
//! also committed before it: real-time order agrees with the serial order.
//!
//! The serial order is a seeded shuffle of the transactions given, so a workload's values (1, 2, 3, ...
//! per key) are appended in an order unrelated to their size. Operations are numbered densely from 0
//! in history order, with times in nanoseconds that increase with the index.

mod db;
mod schedule;

use histories::{History, Mop, Op, OpType};

pub use db::SerialDb;

use crate::draw::Draw;
use schedule::{Event, events};

/// The largest gap between two operations' times, in nanoseconds.
const MAX_GAP_NS: u64 = 1_000_000;

/// How a serial run is recorded: how many clients, how far transactions overlap, and how many end
/// other than `ok`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schedule {
    /// Client threads; each runs one transaction at a time.
    pub clients: usize,
    /// Other commits a transaction's span may hold on either side of its own.
    pub max_overlap: usize,
    /// The chance that a transaction aborts: it has no effect and completes `fail`.
    pub fail_fraction: f64,
    /// The chance that a transaction's outcome is lost: it takes effect or not (even odds) and
    /// completes `info`; its client goes on under a fresh process, as a Jepsen client does.
    pub info_fraction: f64,
}

impl Schedule {
    /// `clients` clients, spans of at most `max_overlap` other commits on either side, every
    /// transaction `ok`.
    pub fn new(clients: usize, max_overlap: usize) -> Schedule {
        Schedule { clients, max_overlap, fail_fraction: 0.0, info_fraction: 0.0 }
    }
}

/// How one transaction ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Ok,
    Fail,
    Info { took_effect: bool },
}

/// A serial execution and the history that records it.
#[derive(Debug, Clone)]
pub struct SerialRun {
    /// The history: each transaction invoked, then completed `ok` (or, as the schedule asks, `fail`
    /// or `info`).
    pub history: History,
    /// The serial order: `order[i]` is the position, in the transactions given, of the `i`-th to
    /// commit, abort or take effect if it does (transactions added by [`SerialRun::then_alone`] are
    /// numbered on from the last).
    pub order: Vec<usize>,
    /// For each transaction in serial order, the position of its invocation in the history.
    pub invocations: Vec<usize>,
    /// The database after the last commit.
    pub db: SerialDb,
    draw: Draw,
    /// The next process no client has used.
    fresh_process: u64,
}

impl SerialRun {
    /// Executes `txns` (invocations' micro-ops) serially in a seeded random order, and records them as
    /// a history on `clients` processes where each transaction's span holds at most `max_overlap`
    /// other commits on either side (see the module's rules). Every transaction completes `ok`.
    ///
    /// # Panics
    /// If `clients` is zero, or on a micro-op [`SerialDb::apply`] refuses.
    pub fn new(txns: &[Vec<Mop>], seed: u64, clients: usize, max_overlap: usize) -> SerialRun {
        SerialRun::with_schedule(txns, seed, Schedule::new(clients, max_overlap))
    }

    /// Like [`SerialRun::new`], with aborted and indeterminate transactions as `schedule` asks. An
    /// aborted transaction and an indeterminate one that took no effect are skipped by the executor;
    /// their completions repeat the invocation (reads unknown). Such a history is still
    /// strict-serializable: put the transactions that took no effect last.
    ///
    /// # Panics
    /// If `clients` is zero, if a fraction is negative or the two add up to more than 1, or on a
    /// micro-op [`SerialDb::apply`] refuses.
    pub fn with_schedule(txns: &[Vec<Mop>], seed: u64, schedule: Schedule) -> SerialRun {
        let Schedule { clients, max_overlap, fail_fraction, info_fraction } = schedule;
        assert!(
            fail_fraction >= 0.0 && info_fraction >= 0.0 && fail_fraction + info_fraction <= 1.0,
            "the fail ({fail_fraction}) and info ({info_fraction}) fractions must be non-negative and add up to at most 1"
        );
        let mut draw = Draw::new(seed);
        let mut order: Vec<usize> = (0..txns.len()).collect();
        draw.shuffle(&mut order);
        let outcomes: Vec<Outcome> = (0..txns.len())
            .map(|_| {
                let u = draw.unit();
                if u < fail_fraction {
                    Outcome::Fail
                } else if u < fail_fraction + info_fraction {
                    Outcome::Info { took_effect: draw.chance(0.5) }
                } else {
                    Outcome::Ok
                }
            })
            .collect();
        let events = events(txns.len(), clients, max_overlap, &mut draw);
        let mut db = SerialDb::new();
        let mut completed: Vec<Option<Vec<Mop>>> = vec![None; txns.len()];
        // Each client's current process: a fresh one after an indeterminate completion.
        let mut process_of_client: Vec<u64> = (0..clients as u64).collect();
        let mut fresh_process = clients as u64;
        let mut client_of = vec![0usize; txns.len()];
        let mut invocations = vec![0usize; txns.len()];
        let mut ops = Vec::with_capacity(2 * txns.len());
        let mut time = draw.below(MAX_GAP_NS) as i64;
        for event in events {
            let mut op = match event {
                Event::Invoke { txn, client } => {
                    client_of[txn] = client;
                    invocations[txn] = ops.len();
                    Op::txn(OpType::Invoke, process_of_client[client], txns[order[txn]].clone())
                }
                Event::Commit { txn } => {
                    let txn_mops = &txns[order[txn]];
                    completed[txn] = Some(match outcomes[txn] {
                        Outcome::Ok => db.apply(txn_mops),
                        Outcome::Info { took_effect: true } => {
                            db.apply(txn_mops);
                            txn_mops.clone()
                        }
                        Outcome::Fail | Outcome::Info { took_effect: false } => txn_mops.clone(),
                    });
                    continue;
                }
                Event::Complete { txn } => {
                    let client = client_of[txn];
                    let value = completed[txn].take().expect("completes after committing");
                    let mut op = Op::txn(OpType::Ok, process_of_client[client], value);
                    match outcomes[txn] {
                        Outcome::Ok => {}
                        Outcome::Fail => {
                            op.kind = OpType::Fail;
                            op.set_error(Some("aborted by the serial executor".into()));
                        }
                        Outcome::Info { .. } => {
                            op.kind = OpType::Info;
                            op.set_error(Some("outcome withheld by the serial executor".into()));
                            process_of_client[client] = fresh_process;
                            fresh_process += 1;
                        }
                    }
                    op
                }
            };
            time += 1 + draw.below(MAX_GAP_NS) as i64;
            op.index = ops.len() as u64;
            op.set_time(Some(time));
            ops.push(op);
        }
        let history = History::from_ops(ops).expect("a serial schedule is a well-formed history");
        SerialRun { history, order, invocations, db, draw, fresh_process }
    }

    /// Runs one more transaction after every other has completed: invoked, committed on the final
    /// state and completed `ok`, on a process of its own, before anything else happens. The usual use is
    /// `run.then_alone(&run.db.read_all())`, a final read of every key, so every append is observed by
    /// a transaction in its writer's real-time future.
    pub fn then_alone(&mut self, txn: &[Mop]) {
        let mut ops = std::mem::take(&mut self.history).into_ops();
        let mut time = ops.last().and_then(|op| op.time()).unwrap_or(0);
        let completed = self.db.apply(txn);
        self.invocations.push(ops.len());
        let process = self.fresh_process;
        self.fresh_process += 1;
        for (kind, value) in [(OpType::Invoke, txn.to_vec()), (OpType::Ok, completed)] {
            time += 1 + self.draw.below(MAX_GAP_NS) as i64;
            let mut op = Op::txn(kind, process, value).with_time(time);
            op.index = ops.len() as u64;
            ops.push(op);
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
            assert!(pair[0].written_mops().eq(t.iter().map(std::borrow::Cow::Borrowed)));
            let expected: Vec<Mop> = t
                .iter()
                .map(|m| match m {
                    Mop::Append { value, .. } => {
                        list.push(*value);
                        m.clone()
                    }
                    _ if list.is_empty() => read(1),
                    _ => Mop::Read { key: Key::Int(1), value: Observed::List(list.clone().into()) },
                })
                .collect();
            assert_eq!(pair[1].mops(), expected.as_slice());
        }
        assert_eq!(run.db.read(&Key::Int(1)), Observed::List(list.into()));
    }

    #[test]
    fn histories_are_dense_timed_sequential_per_process_and_agree_with_the_serial_order() {
        let txns: Vec<Vec<Mop>> = ListAppend::new(Params::default(), 4).unwrap().take(300).collect();
        let mut run = SerialRun::new(&txns, 9, 5, 3);
        run.then_alone(&run.db.read_all());
        let ops = run.history.ops();
        assert_eq!(ops.len(), 2 * 301);
        assert!(ops.iter().enumerate().all(|(i, op)| op.index == i as u64));
        assert!(ops.windows(2).all(|w| w[0].time() < w[1].time()));
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
            assert!(ops[run.invocations[i]].written_mops().eq(txns[t].iter().map(std::borrow::Cow::Borrowed)));
        }
        // Processes run one transaction at a time (History::from_ops refuses otherwise), and all ran.
        let processes: std::collections::BTreeSet<_> = ops.iter().map(|o| o.process()).collect();
        assert_eq!(processes.len(), 6, "five clients, and one for the transaction run alone");
    }

    #[test]
    fn aborted_and_indeterminate_transactions_are_recorded_as_asked() {
        let txns: Vec<Vec<Mop>> = ListAppend::new(Params::default(), 6).unwrap().take(400).collect();
        let schedule = Schedule { clients: 4, max_overlap: 2, fail_fraction: 0.2, info_fraction: 0.2 };
        let mut run = SerialRun::with_schedule(&txns, 13, schedule);
        run.then_alone(&run.db.read_all());
        let count = |kind| run.history.transactions().filter(|t| t.outcome() == kind).count();
        let (ok, fail, info) = (count(OpType::Ok), count(OpType::Fail), count(OpType::Info));
        assert_eq!(ok + fail + info, 401);
        assert!((50..110).contains(&fail) && (50..110).contains(&info), "{fail} failed, {info} indeterminate");
        // Neither carries read values: they repeat their invocation.
        for t in run.history.transactions().filter(|t| t.outcome() != OpType::Ok) {
            assert_eq!(t.completion.unwrap().mops(), t.invoke.mops());
            assert!(t.completion.unwrap().error().is_some());
        }
        // What the final read shows: every committed append, some indeterminate ones, no aborted one.
        let final_read = run.history.transactions().last().unwrap();
        let shown: std::collections::BTreeSet<(Key, i64)> = final_read
            .op()
            .mops()
            .iter()
            .flat_map(|m| match m {
                Mop::Read { key, value: Observed::List(l) } => l.iter().map(|&e| (key.clone(), e)).collect(),
                _ => Vec::new(),
            })
            .collect();
        let mut info_shown = 0;
        for t in run.history.transactions() {
            for mop in t.invoke.written_mops() {
                let Mop::Append { key, value } = mop.as_ref() else { continue };
                let seen = shown.contains(&(key.clone(), *value));
                match t.outcome() {
                    OpType::Ok => assert!(seen),
                    OpType::Fail => assert!(!seen),
                    _ => info_shown += usize::from(seen),
                }
            }
        }
        assert!(info_shown > 0);
        // After an indeterminate completion its client goes on under a fresh process.
        let processes: std::collections::BTreeSet<_> = run.history.ops().iter().map(|o| o.process()).collect();
        assert_eq!(processes.len(), 4 + info + 1);
    }

    #[test]
    #[should_panic(expected = "add up to at most 1")]
    fn outcome_fractions_beyond_one_are_refused() {
        let schedule = Schedule { clients: 1, max_overlap: 0, fail_fraction: 0.6, info_fraction: 0.6 };
        SerialRun::with_schedule(&[], 0, schedule);
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
