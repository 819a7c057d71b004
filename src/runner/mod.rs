//! The runner: N client threads, each with its own session and process id, take transactions from a
//! workload, run them statement by statement against the system under test, and record every
//! invocation and completion with monotonic nanosecond times. Recording is per client (no shared lock on
//! the hot path); the clients' records are merged by time when the run ends (under `--online`, by the checker thread as the run goes,
//! which writes the history to disk: `stream`; what runs after the clients follows into the file). After an indeterminate
//! (`info`) outcome a client continues under a fresh process id, as Jepsen's clients do, and after a lost
//! connection it reconnects. A workload's initial rows open the history as an `init` operation, and its
//! final transaction (a final read) runs once every client has finished, under a process id of its own.
//! This module owns the run loop; what to run is the workload's, how to talk to the system the
//! adapter's, and the verdict the checker's.

mod client;
pub mod cluster_health;
pub mod nemesis;
pub mod online;
pub mod overlap;
mod recorder;
pub mod resource_aborts;
pub mod stream;
pub mod workload;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use adapters::{Level, System};
use anyhow::Context;
use histories::History;

use self::client::Client;
use self::nemesis::{Fault, KillSwitches};
use self::recorder::Clock;
use self::workload::TxnSource;

/// When a run stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// After this many transactions have been invoked.
    Txns(u64),
    /// After this long.
    Duration(Duration),
}

/// What to run.
pub struct RunConfig {
    /// The system under test.
    pub system: Arc<dyn System>,
    /// The level each transaction begins at.
    pub level: Level,
    /// What the clients run.
    pub workload: Arc<dyn TxnSource>,
    /// How many clients.
    pub clients: usize,
    /// When to stop.
    pub limit: Limit,
    /// Whether to draw a progress bar on stderr (only drawn on a terminal).
    pub progress: bool,
    /// Faults to inject while the clients run, and how often.
    pub nemesis: Option<(Vec<Fault>, Duration)>,
    /// Whether to record the history (off only to measure what recording costs).
    pub record: bool,
    /// Check the history while it is recorded (`run --online`).
    pub online: Option<online::OnlineConfig>,
}

/// What a run did.
pub struct RunOutcome {
    /// The recorded history; empty when it was `streamed` to disk as it was recorded (read the file back
    /// for anything that needs it whole).
    pub history: History,
    /// Where the history was written as it was recorded, and what it held (`run --online`).
    pub streamed: Option<stream::Streamed>,
    /// Wall time from the first invocation to the last completion.
    pub elapsed: Duration,
    /// Committed transactions.
    pub ok: u64,
    /// Aborted transactions.
    pub fail: u64,
    /// Indeterminate transactions.
    pub info: u64,
    /// Aborts (and indeterminate outcomes) by cause.
    pub causes: BTreeMap<String, u64>,
    /// The system's message the first time each cause ended a transaction.
    pub messages: BTreeMap<String, String>,
    /// Why the run ended before its limit, if it did: the system is gone for good (an exec program that
    /// died, hung or broke the protocol), with the transactions in flight recorded as `fail` or `info`.
    pub ended_early: Option<String>,
    /// What the online check did, when the run was checked online.
    pub online: Option<online::OnlineSummary>,
}

/// Shared counters and the stop signal.
pub(crate) struct Shared {
    pub(crate) invoked: AtomicU64,
    pub(crate) completed: AtomicU64,
    /// Committed transactions, for the progress bar.
    pub(crate) committed: AtomicU64,
    pub(crate) stop: AtomicBool,
    /// Every client has finished: the nemesis stops too.
    pub(crate) finished: AtomicBool,
    pub(crate) switches: KillSwitches,
    pub(crate) limit: Limit,
    pub(crate) clock: Clock,
    pub(crate) clients: usize,
    pub(crate) record: bool,
    /// Why the run ended before its limit: the system is gone for good (an exec program that died).
    pub(crate) ended: std::sync::Mutex<Option<String>>,
    /// How long a client tries to reconnect before the run ends: longer under a nemesis, which may keep
    /// a whole cluster down while it recovers.
    pub(crate) reconnect_for: Duration,
    /// Where the logs send their operations when the run is checked online.
    pub(crate) tap: Option<std::sync::mpsc::SyncSender<recorder::Tapped>>,
    /// The checker thread writes the history as it merges it: the taps take the operations.
    pub(crate) stream: bool,
    /// The clients' logs keep the keys their transactions named (their operations go to the stream, and
    /// the final reads after a nemesis read every key each client touched).
    pub(crate) keep_touched: bool,
}

/// Set when the user asked every run to stop (Ctrl-C): runs under way invoke no more transactions, let
/// those in flight complete, and return the history so far.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Asks every run under way, and every later one, to stop early (from a Ctrl-C handler).
pub fn interrupt() {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// Whether [`interrupt`] was called.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

impl Shared {
    /// The tap of client `log`'s log (the nemesis's is `clients`), when the run is checked online: its
    /// slot among the logs merged, after the `init` operation's.
    pub(crate) fn tap(&self, log: usize) -> Option<recorder::Tap> {
        self.tap.as_ref().map(|sender| recorder::Tap::new(log + 1, sender.clone(), self.stream))
    }

    /// Claims the next transaction slot, or `None` when the run is over.
    pub(crate) fn claim(&self) -> Option<u64> {
        if self.stop.load(Ordering::Relaxed) || interrupted() {
            return None;
        }
        match self.limit {
            Limit::Txns(n) => {
                let slot = self.invoked.fetch_add(1, Ordering::Relaxed);
                (slot < n).then_some(slot)
            }
            Limit::Duration(d) => (self.clock.elapsed() < d).then(|| self.invoked.fetch_add(1, Ordering::Relaxed)),
        }
    }
}

/// Runs the workload and returns the history.
pub fn run(config: &RunConfig) -> anyhow::Result<RunOutcome> {
    let initial = config.workload.initial_registers();
    config.system.prepare(&initial).context("preparing the system for the run")?;
    if let Some((fields, records)) = config.workload.initial_records() {
        config.system.prepare_records(fields, &records).context("loading the records")?;
    }
    let (tap, tapped) = match config.online.is_some() && config.record {
        true => {
            // Bounded: a client whose operation finds the checker that far behind waits for it, so what
            // waits to be merged stays bounded however slow the rounds are on a loaded machine.
            let (sender, receiver) = std::sync::mpsc::sync_channel(TAP_BACKLOG);
            (Some(sender), Some(receiver))
        }
        false => (None, None),
    };
    // The history is written as it is merged; what runs after the clients (a nemesis's final reads, the
    // workload's final transaction) is timed after everything merged, and follows it into the file.
    let stream_to = match (&config.online, &tapped) {
        (Some(online), Some(_)) => online.stream_to.clone(),
        _ => None,
    };
    let mut stream = match &stream_to {
        Some(path) => {
            Some(stream::HistoryStream::create(path).with_context(|| format!("creating {}", path.display()))?)
        }
        None => None,
    };
    let shared = Arc::new(Shared {
        invoked: AtomicU64::new(0),
        completed: AtomicU64::new(0),
        committed: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        finished: AtomicBool::new(false),
        switches: KillSwitches::new(config.clients),
        limit: config.limit,
        clock: Clock::start(),
        clients: config.clients,
        record: config.record,
        ended: std::sync::Mutex::new(None),
        reconnect_for: if config.nemesis.is_some() { RECONNECT_UNDER_NEMESIS } else { RECONNECT },
        tap,
        keep_touched: stream.is_some() && config.nemesis.is_some(),
        stream: stream.is_some(),
    });
    let mut clients = Vec::with_capacity(config.clients);
    for c in 0..config.clients {
        let session = config.system.connect().with_context(|| format!("connecting client {c}"))?;
        clients.push(Client::new(
            c,
            session,
            Arc::clone(&config.system),
            config.level,
            Arc::clone(&config.workload),
            Arc::clone(&shared),
        ));
    }
    let progress = progress_bar(config);
    let status = Arc::new(online::OnlineStatus::default());
    let started = Instant::now();
    let mut online_summary = None;
    let mut stream_left = None;
    let records = std::thread::scope(|scope| -> anyhow::Result<Vec<recorder::ClientLog>> {
        // The logs merged: the `init` operation's, each client's, the nemesis's.
        let slots = 1 + config.clients + usize::from(config.nemesis.is_some());
        let checker = match (&config.online, tapped) {
            (Some(online), Some(received)) => {
                let init = match initial.is_empty() {
                    true => Vec::new(),
                    false => init_record(initial.clone()).ops,
                };
                let (shared, status, stream) = (&shared, &status, stream.take());
                // Final reads (under a nemesis) and a final transaction name keys the rounds released.
                let forget_on = (config.nemesis.is_none() && config.workload.final_plan().is_none())
                    .then_some(config.system.as_ref());
                let outputs = online::Outputs { stream, forget_on };
                Some(scope.spawn(move || online::check_online(received, slots, init, shared, online, status, outputs)))
            }
            _ => None,
        };
        let handles: Vec<_> = clients.into_iter().map(|client| scope.spawn(move || client.run())).collect();
        let nemesis = config.nemesis.as_ref().map(|(faults, every)| {
            let shared = &shared;
            scope.spawn(move || nemesis::run(faults, *every, &shared.switches, shared))
        });
        while handles.iter().any(|h| !h.is_finished()) {
            progress.set_position(shared.completed.load(Ordering::Relaxed));
            progress.set_message(progress_message(&shared, config.online.as_ref().map(|_| status.as_ref())));
            std::thread::sleep(Duration::from_millis(50));
        }
        shared.finished.store(true, Ordering::Relaxed);
        if let Some(checker) = checker {
            let (summary, written) = checker.join().map_err(|_| anyhow::anyhow!("the online checker panicked"))?;
            online_summary = Some(summary);
            stream_left = written;
        }
        let mut records = Vec::new();
        for handle in handles {
            let record = handle.join().map_err(|_| anyhow::anyhow!("a client thread panicked"))??;
            records.push(record);
        }
        if let Some(nemesis) = nemesis {
            records.push(nemesis.join().map_err(|_| anyhow::anyhow!("the nemesis thread panicked"))?);
        }
        Ok(records)
    });
    progress.finish_and_clear();
    let mut records = records?;
    let elapsed = started.elapsed();
    if config.record && !initial.is_empty() && stream_left.is_none() {
        records.insert(0, init_record(initial));
    }
    let ended_early = shared.ended.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
    // What runs after the clients (final reads, final transaction) is timed after every operation the
    // checker thread merged: a streamed history takes it at its end, where the final merge puts it.
    let after_clients = records.len();
    if config.nemesis.is_some() && config.record && ended_early.is_none() && !interrupted() {
        let finals = final_reads(config, &shared, &records);
        records.extend(finals);
    }
    if config.workload.final_plan().is_some() && ended_early.is_none() {
        records.push(final_transaction(config, &shared, &records)?);
    }
    let mut causes: BTreeMap<String, u64> = BTreeMap::new();
    let mut messages: BTreeMap<String, String> = BTreeMap::new();
    let (mut ok, mut fail, mut info) = (0, 0, 0);
    for r in &records {
        ok += r.ok;
        fail += r.fail;
        info += r.info;
        for (cause, n) in &r.causes {
            *causes.entry(cause.clone()).or_default() += n;
        }
        for (cause, message) in &r.messages {
            messages.entry(cause.clone()).or_insert_with(|| message.clone());
        }
    }
    let streamed = match stream_left {
        Some(mut stream) => {
            stream.append(recorder::merged_ops(records.split_off(after_clients)));
            Some(stream.finish().context("writing the history as it was recorded")?)
        }
        None => None,
    };
    // A streamed history is on disk already: the logs kept no operation.
    let history = recorder::merge(records).context("the recorded history is not well formed (a runner bug)")?;
    Ok(RunOutcome { history, streamed, elapsed, ok, fail, info, causes, messages, ended_early, online: online_summary })
}

/// How many of the logs' messages may wait for the online checker (`run --online`) before a client
/// recording another waits: some 10 to 20 MB of operations, a second or so of the engine's throughput.
const TAP_BACKLOG: usize = 1 << 16;

/// How long a client tries to reconnect to a system that refuses it.
const RECONNECT: Duration = Duration::from_secs(25);

/// How long under a nemesis: a whole Galera cluster recovering from `kill-all` (each node's position
/// recovered, one node bootstrapped, the others rejoined) takes a minute on a loaded machine.
const RECONNECT_UNDER_NEMESIS: Duration = Duration::from_secs(180);

/// Attempts at the final transaction before giving up on it (each is recorded).
const FINAL_ATTEMPTS: usize = 10;

/// The initial rows as an `init` operation (an invocation and its completion) at time 0, on process 0,
/// before any client's first transaction.
fn init_record(rows: Vec<(histories::Key, i64)>) -> recorder::ClientLog {
    let rows: histories::Rows = rows.into_iter().collect();
    let op = |kind| {
        let value = histories::OpValue::Rows(Box::new(rows.clone()));
        histories::Op::new(kind, histories::Process::Client(0), histories::Function::Init, value).with_time(0)
    };
    let mut log = recorder::ClientLog::default();
    log.ops = vec![op(histories::OpType::Invoke), op(histories::OpType::Ok)];
    log
}

/// Keys a final read takes at once: a client may have touched thousands.
const FINAL_READ_KEYS: usize = 100;

/// After the nemesis has healed what it broke: each client, on a fresh session and under a process id
/// no one used, reads every key it touched, a chunk of keys a transaction named `final-read`, each
/// chunk again after an abort (up to [`FINAL_ATTEMPTS`] times; each attempt is recorded), the clients at
/// once. A client that cannot connect reads nothing (its log says why); the checker only counts the
/// final reads that committed.
fn final_reads(config: &RunConfig, shared: &Arc<Shared>, records: &[recorder::ClientLog]) -> Vec<recorder::ClientLog> {
    let base = next_process(config, records);
    let touched: Vec<Vec<histories::Key>> = (0..config.clients)
        .map(|c| {
            // A streamed client's log kept the keys, not the operations.
            let keys: std::collections::BTreeSet<&histories::Key> = records
                .get(c)
                .map(|r| {
                    r.ops.iter().flat_map(|op| op.mops()).filter_map(histories::Mop::key).chain(&r.touched).collect()
                })
                .unwrap_or_default();
            keys.into_iter().cloned().collect()
        })
        .collect();
    if touched.iter().all(Vec::is_empty) || config.workload.final_read(Vec::new()).is_none() {
        return Vec::new();
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = touched
            .into_iter()
            .enumerate()
            .map(|(c, keys)| {
                scope.spawn(move || -> Option<recorder::ClientLog> {
                    let session = (0..FINAL_ATTEMPTS).find_map(|attempt| {
                        std::thread::sleep(Duration::from_millis(200 * attempt as u64));
                        config.system.connect().map_err(|e| log::warn!("final read of client {c}: {e}")).ok()
                    })?;
                    let client = Client::new(
                        c,
                        session,
                        Arc::clone(&config.system),
                        config.level,
                        Arc::clone(&config.workload),
                        Arc::clone(shared),
                    )
                    .with_process(base + c as u64);
                    client.final_reads(&keys, FINAL_READ_KEYS, FINAL_ATTEMPTS).map_err(|e| log::warn!("{e}")).ok()
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok().flatten()).collect()
    })
}

/// A process id above every one the records used (and above the clients').
fn next_process(config: &RunConfig, records: &[recorder::ClientLog]) -> u64 {
    let recorded = records.iter().map(|r| r.next_process);
    // The `init` record's operations are not pushed: process 0, below the clients' count anyway.
    let listed = records.iter().flat_map(|r| &r.ops).filter_map(|op| match op.process() {
        histories::Process::Client(p) => Some(p + 1),
        histories::Process::Nemesis => None,
    });
    recorded.chain(listed).max().unwrap_or(0).max(config.clients as u64)
}

/// Runs the workload's final transaction on a fresh session, under a process id no client used.
fn final_transaction(
    config: &RunConfig,
    shared: &Arc<Shared>,
    records: &[recorder::ClientLog],
) -> anyhow::Result<recorder::ClientLog> {
    let process = next_process(config, records);
    let session = config.system.connect().context("connecting for the final read")?;
    let client = Client::new(
        config.clients,
        session,
        Arc::clone(&config.system),
        config.level,
        Arc::clone(&config.workload),
        Arc::clone(shared),
    );
    client.with_process(process).finish(FINAL_ATTEMPTS)
}

fn progress_bar(config: &RunConfig) -> indicatif::ProgressBar {
    if !config.progress {
        return indicatif::ProgressBar::hidden();
    }
    let bar = match config.limit {
        Limit::Txns(n) => indicatif::ProgressBar::new(n),
        Limit::Duration(_) => indicatif::ProgressBar::new_spinner(),
    };
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{spinner} {elapsed_precise} [{bar:40}] {pos}/{len} transactions {per_sec} {msg}",
    ) {
        bar.set_style(style);
    }
    bar
}

/// The progress bar's message: the transactions committed and, checked online, the anomalies that stood
/// so far and how far the checker is behind the recorder.
fn progress_message(shared: &Shared, online: Option<&online::OnlineStatus>) -> String {
    let committed = shared.committed.load(Ordering::Relaxed);
    match online {
        None => format!("({committed} committed)"),
        Some(status) => {
            let anomalies = status.anomalies.load(Ordering::Relaxed);
            format!(
                "({committed} committed; {anomalies} anomal{} so far; checker {:.1} s behind)",
                if anomalies == 1 { "y" } else { "ies" },
                status.lag_ms.load(Ordering::Relaxed) as f64 / 1000.0
            )
        }
    }
}
