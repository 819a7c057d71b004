//! Recording a run: each client keeps its own list of operations, timestamped by one shared monotonic
//! clock (nanoseconds since the run began), so no lock is taken on the hot path. At the end the lists are
//! merged by time into one history. A completion is timed after the system answered and an invocation
//! before the client asked, so "completed before invoked" in the merged history is always true of the
//! real run: real-time edges are never invented.

use std::collections::BTreeMap;
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

/// One client's log of what it did: its operations and its counts, merged into the history when the run ends.
#[derive(Debug, Default)]
pub struct ClientLog {
    /// Its operations, in the order it performed them.
    pub ops: Vec<Op>,
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
}

/// Merges the clients' records into one history, by time; indices follow the merged order.
pub fn merge(records: Vec<ClientLog>) -> anyhow::Result<History> {
    let mut ops: Vec<(i64, usize, usize, Op)> = Vec::new();
    for (client, record) in records.into_iter().enumerate() {
        for (seq, op) in record.ops.into_iter().enumerate() {
            ops.push((op.time().unwrap_or(0), client, seq, op));
        }
    }
    // A client's own operations are already in time order; ties across clients break by client.
    ops.sort_by_key(|(time, client, seq, _)| (*time, *client, *seq));
    let ops: Vec<Op> = ops
        .into_iter()
        .enumerate()
        .map(|(i, (_, _, _, mut op))| {
            op.index = i as u64;
            op.at = histories::Position::new(i as u32 + 1, 1);
            op
        })
        .collect();
    History::from_ops(ops).map_err(|(at, problem)| anyhow!("operation {}: {problem}", at.line))
}
