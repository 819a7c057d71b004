//! Summarizing a run: what `run.json` says of it (docs/CONTRACTS.md), built typed from the system, the
//! workload and the run's outcome as a [`findings::RunSummary`], which the reports render and
//! `run.json` holds. Measuring is the runner's, the contended pairs the checker's timing analysis;
//! this module only gathers the figures.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::SystemTime;

use adapters::{Level, System};
use findings::{ContendedPairs, Documented, HoldFigures, RunSummary};
use histories::{Function, History};

use crate::runner::RunOutcome;
use crate::runner::cluster_health;
use crate::runner::workload::TxnSource;

/// What one run was asked to be, beside what it did: the figures of `run.json` the outcome does not
/// hold.
#[derive(Debug, Clone, Copy)]
pub struct RunSettings<'a> {
    /// The level each transaction began at.
    pub level: Level,
    /// The seed of the transaction stream.
    pub seed: u64,
    /// Concurrent clients.
    pub clients: usize,
    /// The planted engine defect, if any.
    pub defect: Option<engine::Defect>,
    /// When the run began, if known.
    pub started_at: Option<SystemTime>,
    /// Where the run writes its files.
    pub out_dir: &'a Path,
}

/// The summary of a run of `source` on `system`.
pub fn run_summary(
    system: &dyn System,
    source: &dyn TxnSource,
    outcome: &RunOutcome,
    settings: &RunSettings<'_>,
) -> RunSummary {
    let elapsed = outcome.elapsed.as_secs_f64();
    let txns = outcome.ok + outcome.fail + outcome.info;
    // A streamed history is not held: its tallies stand in, its contended pairs as the stream counted them.
    let streamed = outcome.streamed.as_ref().filter(|_| outcome.history.is_empty()).map(|s| &s.tally);
    let contention = match streamed {
        None => Some(checker::timing::contention(&outcome.history)),
        Some(tally) => tally.contention.clone(),
    };
    let level = settings.level;
    RunSummary {
        tool: format!("isocheck {}", env!("CARGO_PKG_VERSION")),
        db: system.name().to_string(),
        system_version: system.version(),
        isolation: level.name().to_string(),
        level_mapping: system.level(level).describe(),
        documented_behaviour: adapters::documented_behaviour(system.name(), level)
            .map(|d| Documented { quote: d.quote.to_string(), link: d.link.to_string() }),
        system_settings: system.system_settings().into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        workload: source.name().to_string(),
        parameters: match source.parameters() {
            serde_json::Value::Object(map) => map,
            serde_json::Value::Null => serde_json::Map::new(),
            other => serde_json::Map::from_iter([("value".to_string(), other)]),
        },
        seed: Some(settings.seed),
        clients: Some(settings.clients as u64),
        defect: settings.defect.map(|d| d.to_string()),
        nemesis: None,
        round: None,
        started_at: settings.started_at.map(|t| humantime::format_rfc3339_seconds(t).to_string()).unwrap_or_default(),
        ok: outcome.ok,
        fail: outcome.fail,
        info: outcome.info,
        aborts_by_cause: outcome.causes.clone(),
        elapsed_s: round3(elapsed),
        throughput_tps: if elapsed > 0.0 { (txns as f64 / elapsed).round() as u64 } else { 0 },
        operations: streamed.map_or_else(|| operations(&outcome.history), |t| t.operations.clone()),
        contended_pairs: contention.map(|contention| ContendedPairs {
            write_write: contention.write_write as u64,
            read_write: contention.read_write as u64,
        }),
        holds: source.holds().map(|h| HoldFigures {
            hold_ms: h.hold.as_secs_f64() * 1000.0,
            count: h.count,
            busy_ms: round3(h.busy.as_secs_f64() * 1000.0),
        }),
        graph_check: None,
        shrunk: None,
        stopped_early: outcome.ended_early.clone(),
        commits_per_node: streamed
            .map_or_else(|| cluster_health::commits_per_node(&outcome.history), |t| t.commits_per_node.clone()),
        out_dir: settings.out_dir.display().to_string(),
        extra: serde_json::Map::new(),
    }
}

/// Transactions by name (`f`) and outcome: `{"withdraw": {"ok": 10, "fail": 3}, "read": {"ok": 1}}`.
fn operations(history: &History) -> BTreeMap<String, BTreeMap<String, u64>> {
    let mut by_f: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    for t in history.transactions().filter(|t| *t.invoke.f() != Function::Init) {
        *by_f.entry(t.invoke.f().to_string()).or_default().entry(t.outcome().as_str().to_string()).or_default() += 1;
    }
    by_f
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
