//! Summarizing the overlap test: the rounds measured (`runner::overlap`), their median and its ratio to
//! the hold, the verdict (`checker::timing`) and the `fully-serialized` flag, as a typed
//! [`findings::OverlapSummary`] that `overlap` prints and `compare` shows in a column. A system that
//! runs one writer at a time by design says so beside the flag. Rendering is `findings`'.

use std::sync::Arc;
use std::time::Duration;

use adapters::System;
use checker::timing::{self, HoldTiming};
use findings::OverlapSummary;

use crate::runner::overlap::{self, OverlapConfig};

/// Measures the overlap on `system` and summarizes it; `defect` is the engine's planted defect, for the
/// report.
pub fn overlap_summary(
    system: &Arc<dyn System>,
    config: &OverlapConfig,
    defect: Option<engine::Defect>,
) -> anyhow::Result<OverlapSummary> {
    let outcome = overlap::measure(system, config)?;
    let (clients, hold) = (config.clients, config.hold);
    let median = outcome.median();
    let verdict = timing::overlap_verdict(clients, clients as u64, hold, median);
    let timing = HoldTiming { clients, hold, holds: clients as u64, elapsed: median, disjoint: None };
    let note = system.serialized_by_design();
    let ms = |d: Duration| (d.as_secs_f64() * 10_000.0).round() / 10.0;
    Ok(OverlapSummary {
        db: system.name().to_string(),
        clients: clients as u64,
        hold_ms: u64::try_from(hold.as_millis()).unwrap_or(u64::MAX),
        rounds: config.rounds as u64,
        elapsed_ms: ms(median),
        ratio: (median.as_secs_f64() / hold.as_secs_f64() * 100.0).round() / 100.0,
        verdict: verdict.name().to_string(),
        system_version: system.version(),
        isolation: config.level.name().to_string(),
        level_mapping: system.level(config.level).describe(),
        defect: defect.map(|d| d.to_string()),
        rounds_ms: outcome.rounds.iter().map(|&r| ms(r)).collect(),
        retries_by_cause: outcome.retries,
        note: note.map(str::to_string),
        flags: timing::fully_serialized(&timing, "overlap", note).into_iter().collect(),
    })
}
