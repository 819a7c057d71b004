//! `run --online`: the run's history checked while it is recorded. Each client's log (and the nemesis's)
//! sends a copy of every operation it records to one checker thread; the thread merges them in the order
//! the run's final merge will (time, then log, then place in the log: `recorder::merge_key`), so the
//! prefix it checks is the finished history's and a transaction's index is the same in both. An
//! operation joins the prefix once no log can still record one timed before it: a log's next operation
//! is timed after its last (or after the floor a sleeping nemesis sends). Rounds of
//! `checker::Online` check the operations still held as the prefix grows (retiring list-append
//! transactions on the fences the clients send: `Merger::passed_fences`) and report the anomalies that stand
//! (docs/online-checking.md); the first one the options prohibit stops the run, unless it is to keep
//! going. Without a nemesis the thread also writes the history file as the prefix grows
//! (`super::stream`), and the rounds' verdict (`Online::finish`) is the run's when it finds the history
//! valid; otherwise the final verdict is the ordinary check's, on the whole history.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use checker::online::Witness;
use checker::{Anomaly, Online, Options, StandingAnomaly};
use histories::{Key, Op, OpType, Position};

use super::Shared;
use super::recorder::{Tapped, merge_key};
use super::stream::HistoryStream;

/// The least time between the starts of two rounds.
const ROUND_GAP: Duration = Duration::from_millis(250);

/// How an online check reports a standing anomaly: the anomaly, and after how many operations it stood.
pub type OnlineReporter = Box<dyn Fn(&StandingAnomaly, usize) + Send + Sync>;

/// What `run --online` asks for.
pub struct OnlineConfig {
    /// What the history is checked against (the final check's options).
    pub options: Options,
    /// Run to the end whatever stands, rather than stop at the first prohibited anomaly.
    pub keep_going: bool,
    /// Called with each anomaly as it stands, in order.
    pub report: OnlineReporter,
    /// Where to write the history as it is recorded (`super::stream`): the clients' logs then keep no
    /// operation (under a nemesis, only the keys they named), and the run's outcome holds no history.
    pub stream_to: Option<std::path::PathBuf>,
}

/// The online check's figures, for the progress bar while it runs.
#[derive(Debug, Default)]
pub struct OnlineStatus {
    /// Standing anomalies reported so far.
    pub anomalies: AtomicU64,
    /// How far behind the recorder the last round's prefix ended, in milliseconds.
    pub lag_ms: AtomicU64,
    /// Operations checked by the last round.
    pub checked_ops: AtomicU64,
}

/// What an online check did.
#[derive(Debug, Clone, Default)]
pub struct OnlineSummary {
    /// Rounds run.
    pub rounds: u64,
    /// Standing anomalies reported.
    pub anomalies: u64,
    /// The prohibited anomaly that stopped the run, and after how many operations it stood.
    pub stopped_by: Option<(String, usize)>,
    /// The most the checker's prefix lagged behind the recorder at the end of a round, in milliseconds.
    pub max_lag_ms: u64,
    /// The last round: the operations it checked (those held) and how long it took, in milliseconds.
    pub last_round: (usize, u64),
    /// Transactions retired by the rounds (on the workload's fences).
    pub retired_txns: u64,
    /// The most operations held after a round (once it retired what it could).
    pub most_held: usize,
    /// The rounds' checks of what they held again with the solver's budget before retiring
    /// (`checker::Online::exact_rechecks`): how many, and their time in milliseconds together.
    pub exact_rechecks: (u64, u64),
    /// Keys the rounds released (retired, and every transaction naming them retired).
    pub released_keys: u64,
    /// Of those, how many the system under test forgot (`adapters::System::forget_lists`).
    pub forgotten_keys: u64,
    /// The rounds' verdict on the whole history (`checker::Online::finish`), by type, when the run ran
    /// to its end without a nemesis (whose final reads the rounds do not see).
    pub final_anomalies: Option<BTreeMap<String, BTreeSet<Witness>>>,
    /// The same verdict's anomalies as `finish` gave them (for the run's result when the history was
    /// streamed to disk and is not held).
    pub verdict: Option<BTreeMap<String, Vec<Anomaly>>>,
}

/// Where the checker thread sends what it makes besides its summary.
pub(crate) struct Outputs<'s> {
    /// The history file, written as the prefix grows.
    pub(crate) stream: Option<HistoryStream>,
    /// The system under test, told the keys each round releases (`adapters::System::forget_lists`):
    /// the caller gives it only when nothing after the clients (a final read or transaction) names
    /// every key again.
    pub(crate) forget_on: Option<&'s dyn adapters::System>,
}

/// The checker thread: receives the logs' operations until every log is done (or the run is over),
/// checking the prefix in rounds. `slots` is how many logs the history merges: the first holds `init`,
/// the history's opening `init` operation (if any), the others send (`Shared::tap`). With a stream
/// (`outputs`), every operation merged is written to the history file as it joins the prefix, and the
/// thread listens until every log is done, whatever stopped the rounds: the written history is the
/// whole run's.
pub(crate) fn check_online(
    received: Receiver<Tapped>,
    slots: usize,
    init: Vec<Op>,
    shared: &Shared,
    config: &OnlineConfig,
    status: &Arc<OnlineStatus>,
    outputs: Outputs<'_>,
) -> (OnlineSummary, Option<HistoryStream>) {
    let Outputs { mut stream, forget_on } = outputs;
    let mut online = Online::new(config.options.clone());
    let registers = config.options.workload() == Some(checker::Workload::RwRegister);
    let mut merger = Merger::new(slots);
    merger.nemesis = (slots > 1 + shared.clients).then_some(slots - 1);
    for (seq, op) in init.into_iter().enumerate() {
        merger.queues[0].push_back((seq, op));
    }
    let mut summary = OnlineSummary::default();
    let mut next_round = Instant::now();
    loop {
        let open = match received.recv_timeout(Duration::from_millis(20)) {
            Ok(first) => {
                merger.take(first);
                // Everything already waiting, in one go.
                while let Ok(more) = received.try_recv() {
                    merger.take(more);
                }
                true
            }
            Err(RecvTimeoutError::Timeout) => true,
            Err(RecvTimeoutError::Disconnected) => false,
        };
        if shared.finished.load(Ordering::Relaxed) || !open || merger.all_done() {
            break;
        }
        if Instant::now() < next_round || !merger.advance() {
            continue;
        }
        let started = Instant::now();
        // The newly merged operations join the held ones (and the history file); the fences every client
        // has passed retire their keys (only once every transaction naming them is pushed).
        for op in std::mem::take(&mut merger.prefix) {
            if let Some(stream) = &mut stream {
                stream.write(&op);
            }
            online.push(op);
        }
        for key in merger.passed_fences() {
            online.retire_key(key);
        }
        let ops = merger.merged;
        let found = online.check_held();
        release(&mut online, &mut stream, forget_on, registers, &mut summary);
        summary.rounds += 1;
        summary.last_round = (online.held().len(), started.elapsed().as_millis() as u64);
        summary.most_held = summary.most_held.max(online.held().len());
        summary.retired_txns = online.retired_txns();
        summary.exact_rechecks = rechecks(&online);
        let lag = shared.clock.now().saturating_sub(merger.checked_time).max(0) / 1_000_000;
        summary.max_lag_ms = summary.max_lag_ms.max(lag as u64);
        status.lag_ms.store(lag as u64, Ordering::Relaxed);
        status.checked_ops.store(ops as u64, Ordering::Relaxed);
        let found = match found {
            Ok(found) => found,
            Err(e) => {
                // Held operations that do not check yet (their workload not yet told): more may.
                log::debug!("the {} held operations do not check yet: {e}", online.held().len());
                Vec::new()
            }
        };
        for anomaly in &found {
            (config.report)(anomaly, ops);
            summary.anomalies += 1;
            status.anomalies.fetch_add(1, Ordering::Relaxed);
            if anomaly.prohibited && !config.keep_going {
                // The first is what stops the run; the final check reports every one.
                summary.stopped_by = Some((anomaly.name.clone(), ops));
                break;
            }
        }
        if summary.stopped_by.is_some() {
            shared.stop.store(true, Ordering::Relaxed);
            break;
        }
        next_round = started + started.elapsed().max(ROUND_GAP);
    }
    if stream.is_some() {
        // The history file must hold every operation: wait for every log to be done (each says so when
        // its client stops, whatever stopped the run).
        while !merger.all_done() {
            match received.recv_timeout(Duration::from_millis(20)) {
                Ok(more) => merger.take(more),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
    }
    let verdict_wanted = summary.stopped_by.is_none() && merger.nemesis.is_none();
    if verdict_wanted || stream.is_some() {
        // Every client's log is done once the run is: the rest is merged, and the verdict of the rounds
        // (settled anomalies and a last check of what is held) is kept beside the ordinary check's.
        while let Ok(more) = received.try_recv() {
            merger.take(more);
        }
    }
    let verdict_reachable = verdict_wanted && merger.all_done();
    if !verdict_reachable && let Some(stream) = &mut stream {
        merger.advance();
        for op in std::mem::take(&mut merger.prefix) {
            stream.write(&op);
        }
    }
    if verdict_reachable {
        {
            merger.advance();
            for op in std::mem::take(&mut merger.prefix) {
                if let Some(stream) = &mut stream {
                    stream.write(&op);
                }
                online.push(op);
            }
            for key in merger.passed_fences() {
                online.retire_key(key);
            }
            if let Ok(found) = online.check_held() {
                for anomaly in &found {
                    (config.report)(anomaly, merger.merged);
                    summary.anomalies += 1;
                }
            }
            release(&mut online, &mut stream, forget_on, registers, &mut summary);
            summary.retired_txns = online.retired_txns();
            summary.exact_rechecks = rechecks(&online);
            match online.finish() {
                Ok(anomalies) => {
                    summary.final_anomalies = Some(by_type(&anomalies));
                    summary.verdict = Some(anomalies);
                }
                Err(e) => log::debug!("the online verdict is not reached: {e}"),
            }
        }
    }
    (summary, stream)
}

/// How many times `online`'s rounds decided the exact models again before retiring, and their time
/// in milliseconds.
fn rechecks(online: &Online) -> (u64, u64) {
    let (count, time) = online.exact_rechecks();
    (count, time.as_millis() as u64)
}

/// Hands the keys the last round released to the history stream's tally and, with `forget_on`, to the
/// system under test to forget. Every transaction naming such a key completed (the round retired them
/// all), and none still to come names it (the fence), so the system drops nothing a transaction in
/// flight or to come needs.
fn release(
    online: &mut Online,
    stream: &mut Option<HistoryStream>,
    forget_on: Option<&dyn adapters::System>,
    registers: bool,
    summary: &mut OnlineSummary,
) {
    let released = online.take_released_keys();
    if released.is_empty() {
        return;
    }
    // Only where nothing after the clients names them again: a nemesis's final reads and a final
    // transaction would count them again.
    if let Some(stream) = stream.as_mut().filter(|_| forget_on.is_some()) {
        stream.forget_keys(&released);
    }
    summary.released_keys += released.len() as u64;
    if let Some(system) = forget_on {
        summary.forgotten_keys += match registers {
            true => system.forget_registers(&released),
            false => system.forget_lists(&released),
        } as u64;
    }
}

/// Anomalies as the online and offline verdicts are compared: each type's witnesses
/// (`checker::online::comparable`).
pub fn by_type(anomalies: &BTreeMap<String, Vec<Anomaly>>) -> BTreeMap<String, BTreeSet<Witness>> {
    checker::online::comparable(anomalies)
}

/// The logs' operations, merged into the prefix of the history as far as no log can still add one
/// before them.
struct Merger {
    /// Per log: the operations received and not yet merged, with their places in the log.
    queues: Vec<VecDeque<(usize, Op)>>,
    /// Per log: nothing it records later is timed before this.
    floors: Vec<i64>,
    /// Per log: whether it is done.
    done: Vec<bool>,
    /// The operations merged since the caller last took them, indexed.
    prefix: Vec<Op>,
    /// How many operations were merged in all.
    merged: usize,
    /// The time of the prefix's last operation.
    checked_time: i64,
    /// Per log: the time of its last invocation merged.
    last_invoke: Vec<i64>,
    /// The fences not yet passed: when each was drawn, and its keys.
    fences: Vec<(i64, Vec<Key>)>,
    /// The nemesis's slot, if the run has one.
    nemesis: Option<usize>,
}

impl Merger {
    /// A merger of `slots` logs, the first of which is the history's `init` operation, known already.
    fn new(slots: usize) -> Merger {
        let mut done = vec![false; slots];
        done[0] = true;
        Merger {
            queues: (0..slots).map(|_| VecDeque::new()).collect(),
            floors: vec![0; slots],
            done,
            prefix: Vec::new(),
            merged: 0,
            checked_time: 0,
            last_invoke: vec![i64::MIN; slots],
            fences: Vec::new(),
            nemesis: None,
        }
    }

    fn take(&mut self, tapped: Tapped) {
        match tapped {
            Tapped::Op(slot, seq, op) => {
                if let Some(time) = op.time() {
                    self.floors[slot] = self.floors[slot].max(time);
                }
                self.queues[slot].push_back((seq, op));
            }
            Tapped::Floor(slot, time) => self.floors[slot] = self.floors[slot].max(time),
            Tapped::Done(slot) => self.done[slot] = true,
            Tapped::Fence(time, keys) => self.fences.push((time, keys)),
        }
    }

    /// The keys of the fences every log has passed: each log is done and merged whole, or has an
    /// invocation timed at or after the fence merged (a client invokes what it drew in order, so
    /// whatever it drew before the fence is merged by then). The nemesis invokes no transaction: its
    /// log counts as passed.
    fn passed_fences(&mut self) -> Vec<Key> {
        let passed = |time: i64| {
            (1..self.floors.len()).all(|slot| {
                (self.done[slot] && self.queues[slot].is_empty())
                    || self.last_invoke[slot] >= time
                    || self.nemesis == Some(slot)
            })
        };
        let mut keys = Vec::new();
        let mut kept = Vec::new();
        for (time, fence) in std::mem::take(&mut self.fences) {
            if passed(time) {
                keys.extend(fence);
            } else {
                kept.push((time, fence));
            }
        }
        self.fences = kept;
        keys
    }

    fn all_done(&self) -> bool {
        self.done.iter().all(|&d| d)
    }

    /// Moves into the prefix every operation timed before what a log not done may still record;
    /// returns whether the prefix grew.
    fn advance(&mut self) -> bool {
        let watermark = (0..self.floors.len())
            .filter(|&slot| !self.done[slot])
            .map(|slot| self.floors[slot])
            .min()
            .unwrap_or(i64::MAX);
        let mut ready: Vec<((i64, usize, usize), Op)> = Vec::new();
        for (slot, queue) in self.queues.iter_mut().enumerate() {
            while queue.front().is_some_and(|(_, op)| op.time().unwrap_or(0) < watermark) {
                if let Some((seq, op)) = queue.pop_front() {
                    ready.push((merge_key(&op, slot, seq), op));
                }
            }
        }
        if ready.is_empty() {
            return false;
        }
        ready.sort_by_key(|(key, _)| *key);
        for (key, mut op) in ready {
            let index = self.merged;
            self.merged += 1;
            if op.kind == OpType::Invoke && op.is_client() {
                self.last_invoke[key.1] = self.last_invoke[key.1].max(key.0);
            }
            op.index = index as u64;
            op.at = Position::new(index as u32 + 1, 1);
            self.checked_time = key.0;
            self.prefix.push(op);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use histories::{Function, OpType, OpValue, Process};

    use super::*;
    use crate::runner::recorder::{ClientLog, merge};

    fn op(process: u64, kind: OpType, time: i64) -> Op {
        let value = OpValue::Txn(vec![histories::Mop::Append { key: histories::Key::Int(1), value: time }].into());
        Op::new(kind, Process::Client(process), Function::Txn, value).with_time(time)
    }

    /// Two clients' logs: (slot, place in the log, operation).
    fn logs() -> Vec<(usize, usize, Op)> {
        vec![
            (1, 0, op(0, OpType::Invoke, 10)),
            (2, 0, op(1, OpType::Invoke, 20)),
            (1, 1, op(0, OpType::Ok, 30)),
            (2, 1, op(1, OpType::Ok, 30)),
        ]
    }

    fn times(merger: &Merger) -> Vec<(u64, i64)> {
        merger.prefix.iter().map(|op| (op.index, op.time().unwrap_or(-1))).collect()
    }

    #[test]
    fn an_operation_joins_the_prefix_once_no_log_can_record_one_before_it() {
        let mut merger = Merger::new(3);
        let mut logs = logs().into_iter();
        for (slot, seq, op) in logs.by_ref().take(3) {
            merger.take(Tapped::Op(slot, seq, op));
        }
        // Slot 2's last is at 20: what it records next may be timed 20 too, so only 10 is safe.
        assert!(merger.advance());
        assert_eq!(times(&merger), [(0, 10)]);
        assert!(!merger.advance(), "nothing more is safe");
        merger.take(Tapped::Floor(2, 25));
        assert!(merger.advance());
        assert_eq!(times(&merger), [(0, 10), (1, 20)]);
        // Both logs now hold 30: neither is merged until both can record nothing before it.
        for (slot, seq, op) in logs {
            merger.take(Tapped::Op(slot, seq, op));
        }
        assert!(!merger.advance());
        merger.take(Tapped::Done(1));
        assert!(!merger.advance(), "slot 2 may still record at 30");
        merger.take(Tapped::Done(2));
        assert!(merger.all_done());
        assert!(merger.advance());
        assert_eq!(times(&merger), [(0, 10), (1, 20), (2, 30), (3, 30)]);
    }

    fn invoke(process: u64, key: i64, time: i64) -> Op {
        let value = OpValue::Txn(vec![histories::Mop::Append { key: histories::Key::Int(key), value: 1 }].into());
        Op::new(OpType::Invoke, Process::Client(process), Function::Txn, value).with_time(time)
    }

    #[test]
    fn a_fence_is_passed_once_every_client_has_invoked_what_it_drew_before_it() {
        // Two clients (slots 1 and 2) and a nemesis (slot 3); client 1 drew the fence at time 50.
        let mut merger = Merger::new(4);
        merger.nemesis = Some(3);
        merger.take(Tapped::Fence(50, vec![histories::Key::Int(7)]));
        merger.take(Tapped::Op(1, 0, invoke(0, 7, 40)));
        merger.take(Tapped::Op(1, 1, invoke(0, 8, 60)));
        merger.take(Tapped::Op(2, 0, invoke(1, 7, 45)));
        merger.take(Tapped::Floor(3, 100));
        merger.take(Tapped::Floor(2, 100));
        assert!(merger.advance());
        // Client 2 may still invoke, at or after 50, a transaction it drew before the fence.
        assert!(merger.passed_fences().is_empty());
        merger.take(Tapped::Op(2, 1, invoke(1, 7, 70)));
        merger.take(Tapped::Floor(1, 100));
        assert!(merger.advance());
        assert_eq!(merger.passed_fences(), [histories::Key::Int(7)]);
        assert!(merger.passed_fences().is_empty(), "a fence is passed once");
    }

    #[test]
    fn a_fence_waits_for_a_done_log_until_its_operations_are_merged() {
        let mut merger = Merger::new(2);
        merger.take(Tapped::Fence(50, vec![histories::Key::Int(7)]));
        merger.take(Tapped::Op(1, 0, invoke(0, 7, 40)));
        merger.take(Tapped::Done(1));
        assert!(merger.passed_fences().is_empty(), "the invocation at 40 is not merged yet");
        assert!(merger.advance());
        assert_eq!(merger.passed_fences(), [histories::Key::Int(7)]);
    }

    #[test]
    fn the_prefix_is_ordered_and_indexed_as_the_final_merge_orders_the_history() {
        let mut merger = Merger::new(3);
        let mut records = vec![ClientLog::default(), ClientLog::default()];
        for (slot, seq, op) in logs() {
            records[slot - 1].ops.push(op.clone());
            merger.take(Tapped::Op(slot, seq, op));
        }
        merger.take(Tapped::Done(1));
        merger.take(Tapped::Done(2));
        assert!(merger.advance());
        let history = merge(records).expect("a well-formed history");
        let merged: Vec<(u64, i64, String)> =
            history.ops().iter().map(|op| (op.index, op.time().unwrap_or(-1), format!("{:?}", op.process()))).collect();
        let online: Vec<(u64, i64, String)> =
            merger.prefix.iter().map(|op| (op.index, op.time().unwrap_or(-1), format!("{:?}", op.process()))).collect();
        assert_eq!(online, merged);
    }

    #[test]
    fn the_history_streamed_as_it_is_merged_is_the_final_merges_byte_for_byte() {
        let mut merger = Merger::new(3);
        let mut records = vec![ClientLog::default(), ClientLog::default()];
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("history.jsonl");
        let mut stream = HistoryStream::create(&path).expect("created");
        // In two steps, as rounds take the prefix: 10 and 20 first, the rest once the logs are done.
        let mut logs = logs().into_iter();
        for (slot, seq, op) in logs.by_ref().take(2) {
            records[slot - 1].ops.push(op.clone());
            merger.take(Tapped::Op(slot, seq, op));
        }
        merger.take(Tapped::Floor(1, 25));
        merger.take(Tapped::Floor(2, 25));
        assert!(merger.advance());
        for op in std::mem::take(&mut merger.prefix) {
            stream.write(&op);
        }
        for (slot, seq, op) in logs {
            records[slot - 1].ops.push(op.clone());
            merger.take(Tapped::Op(slot, seq, op));
        }
        merger.take(Tapped::Done(1));
        merger.take(Tapped::Done(2));
        assert!(merger.advance());
        for op in std::mem::take(&mut merger.prefix) {
            stream.write(&op);
        }
        let streamed = stream.finish().expect("written");
        let history = merge(records).expect("a well-formed history");
        let mut whole = Vec::new();
        histories::write_jsonl(history.ops(), &mut whole).expect("written");
        assert_eq!(
            String::from_utf8(std::fs::read(&path).expect("read")).expect("UTF-8"),
            String::from_utf8(whole).expect("UTF-8")
        );
        assert_eq!((streamed.tally.ops, streamed.tally.txns, streamed.tally.ok), (4, 2, 2));
    }
}
