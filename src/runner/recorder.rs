//! Recording a run: each client keeps its own list of operations, timestamped by one shared monotonic
//! clock (nanoseconds since the run began), so no lock is taken on the hot path. At the end the lists are
//! merged by time into one history. A completion is timed after the system answered and an invocation
//! before the client asked, so "completed before invoked" in the merged history is always true of the
//! real run: real-time edges are never invented.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use anyhow::anyhow;
use histories::{History, Op};

/// The run's monotonic clock.
#[derive(Debug, Clone, Copy)]
pub struct Clock(Instant);

impl Clock {
    /// Starts the clock.
    pub fn start() -> Clock {
        Clock(Instant::now())
    }

    /// Time since the start.
    pub fn elapsed(&self) -> Duration {
        self.0.elapsed()
    }

    /// Nanoseconds since the start.
    pub fn now(&self) -> i64 {
        i64::try_from(self.0.elapsed().as_nanos()).unwrap_or(i64::MAX)
    }
}

/// What a log sends the online checker (`run --online`): each operation as it is recorded, with the
/// log's place among the logs merged and the operation's place in its log (the merge's order), and that
/// the log is done.
#[derive(Debug)]
pub enum Tapped {
    /// An operation: the log's slot, its place in the log, the operation.
    Op(usize, usize, Op),
    /// The log of this slot will record nothing timed before this (nanoseconds since the run began).
    Floor(usize, i64),
    /// The log of this slot will record no more.
    Done(usize),
    /// A fence (the time it was drawn at, the keys): every transaction naming these keys was drawn
    /// before that time, so each client's is invoked by the client's first invocation timed at or
    /// after it.
    Fence(i64, Vec<histories::Key>),
}

/// Where a log sends a copy of each operation it records, for the online checker; says the log is done
/// when dropped. A tap that `takes` the operations is their only way into the history (the checker
/// thread writes the history as it merges it: `run --online`): the log keeps none.
#[derive(Debug)]
pub struct Tap {
    slot: usize,
    sender: std::sync::mpsc::SyncSender<Tapped>,
    takes: bool,
}

impl Tap {
    /// A tap for the log merged in `slot`; with `takes`, the log keeps no operation of its own.
    pub fn new(slot: usize, sender: std::sync::mpsc::SyncSender<Tapped>, takes: bool) -> Tap {
        Tap { slot, sender, takes }
    }
}

impl Drop for Tap {
    fn drop(&mut self) {
        // The checker may have stopped listening (it found what stops the run): nothing to tell it.
        let _ = self.sender.send(Tapped::Done(self.slot));
    }
}

/// One client's log of what it did: its operations and its counts, merged into the history when the run
/// ends (or, through a tap that takes them, merged and written as the run goes: then it keeps only its
/// counts).
#[derive(Debug, Default)]
pub struct ClientLog {
    /// Its operations, in the order it performed them (none when its tap takes them).
    pub ops: Vec<Op>,
    /// How many operations it recorded (kept or not).
    pub recorded: usize,
    /// One above the highest client process id it recorded (0 if none).
    pub next_process: u64,
    /// Where a copy of each goes as it is recorded, when the run is checked online.
    pub tap: Option<Tap>,
    /// Committed transactions.
    pub ok: u64,
    /// Aborted transactions.
    pub fail: u64,
    /// Indeterminate transactions.
    pub info: u64,
    /// Failures by cause.
    pub causes: BTreeMap<String, u64>,
    /// The system's message the first time each cause failed a transaction (PostgreSQL's includes its
    /// hint, which names the setting to raise for a resource error).
    pub messages: BTreeMap<String, String>,
    /// The keys its operations named, when it keeps them ([`ClientLog::keeping_touched`]): a log whose
    /// tap takes its operations keeps these for the final reads after a nemesis.
    pub touched: BTreeSet<histories::Key>,
    keeps_touched: bool,
}

impl ClientLog {
    /// A log whose operations are also sent to the online checker through `tap`, if any.
    pub fn tapped(tap: Option<Tap>) -> ClientLog {
        ClientLog { tap, ..ClientLog::default() }
    }

    /// The same log, keeping the keys its operations name ([`ClientLog::touched`]).
    pub fn keeping_touched(self) -> ClientLog {
        ClientLog { keeps_touched: true, ..self }
    }

    /// Records an operation (and sends a copy through the tap, or the operation itself if the tap takes
    /// it).
    pub fn push(&mut self, op: Op) {
        let seq = self.recorded;
        self.recorded += 1;
        if let histories::Process::Client(p) = op.process() {
            self.next_process = self.next_process.max(p + 1);
        }
        if self.keeps_touched {
            for key in op.mops().iter().filter_map(histories::Mop::key) {
                if !self.touched.contains(key) {
                    self.touched.insert(key.clone());
                }
            }
        }
        if let Some(tap) = &self.tap {
            if tap.takes {
                // The checker thread listens until every log is done when it writes the history.
                let _ = tap.sender.send(Tapped::Op(tap.slot, seq, op));
                return;
            }
            // A checker that stopped listening has what it needed.
            let _ = tap.sender.send(Tapped::Op(tap.slot, seq, op.clone()));
        }
        self.ops.push(op);
    }

    /// Says the log will record nothing timed before `time`, taken from the run's clock.
    pub fn floor(&self, time: i64) {
        if let Some(tap) = &self.tap {
            let _ = tap.sender.send(Tapped::Floor(tap.slot, time));
        }
    }

    /// Says the keys `retired` will be named by no transaction drawn after `time`, taken from the run's
    /// clock before the next invocation (the online checker's fence).
    pub fn fence(&self, time: i64, retired: Vec<histories::Key>) {
        if let Some(tap) = &self.tap {
            let _ = tap.sender.send(Tapped::Fence(time, retired));
        }
    }

    /// Says the log is done: the online checker need not wait for it.
    pub fn close_tap(&mut self) {
        self.tap = None;
    }
}

/// The order in which the merge places an operation: its time, its log's slot, its place in the log.
pub fn merge_key(op: &Op, slot: usize, seq: usize) -> (i64, usize, usize) {
    (op.time().unwrap_or(0), slot, seq)
}

/// Merges the clients' records into one history, by time; indices follow the merged order.
pub fn merge(records: Vec<ClientLog>) -> anyhow::Result<History> {
    History::from_ops(merged_ops(records)).map_err(|(at, problem)| anyhow!("operation {}: {problem}", at.line))
}

/// The clients' records' operations in the merged order (by time, then log, then place in the log),
/// indexed from 0 in that order, as recorded.
pub fn merged_ops(records: Vec<ClientLog>) -> Vec<Op> {
    let mut ops: Vec<(i64, usize, usize, Op)> = Vec::new();
    for (client, record) in records.into_iter().enumerate() {
        for (seq, op) in record.ops.into_iter().enumerate() {
            let (time, client, seq) = merge_key(&op, client, seq);
            ops.push((time, client, seq, op));
        }
    }
    // A client's own operations are already in time order; ties across clients break by client.
    ops.sort_by_key(|(time, client, seq, _)| (*time, *client, *seq));
    ops.into_iter()
        .enumerate()
        .map(|(i, (_, _, _, mut op))| {
            op.index = i as u64;
            op.at = histories::Position::new(i as u32 + 1, 1);
            op
        })
        .collect()
}
