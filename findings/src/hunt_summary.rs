//! What a hunt for a rare anomaly found (`run --repeat`, `run --until-invalid`; `OUT/summary.json`):
//! how many runs it made and why it stopped, how many failed and with which anomaly, and where each
//! failing run's evidence is. The hunt's loop builds this value; this module owns it and its text.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::{Deserialize, Serialize};

/// A hunt's summary: `summary.json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct HuntSummary {
    /// Runs made.
    pub runs: u32,
    /// Runs that failed.
    pub failed: usize,
    /// Runs whose verdict was unknown.
    pub unknown: u32,
    /// Why the hunt stopped: `completed`, `found-invalid` or `interrupted`.
    pub stopped: String,
    /// Failing runs by anomaly (and broken invariant).
    pub by_anomaly: BTreeMap<String, u64>,
    /// Each failing run.
    pub failing: Vec<FailingRun>,
    /// The system hunted on.
    pub db: String,
    /// The level.
    pub isolation: String,
    /// The planted engine defect, if any.
    pub defect: Option<String>,
    /// The first run's seed; run n took the seed after run n - 1's.
    pub first_seed: u64,
    /// Whether each run's shape was drawn from its seed (`--vary`).
    pub vary: bool,
    /// Where the hunt wrote.
    pub out_dir: String,
}

/// One failing run of a hunt, and where its evidence is.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct FailingRun {
    /// Its number, from 1.
    pub run: u32,
    /// Its seed.
    pub seed: u64,
    /// Its clients.
    pub clients: u16,
    /// Its key count.
    pub key_count: usize,
    /// Its longest transaction.
    pub max_txn_len: usize,
    /// Its directory, relative to the hunt's (`runs/003-seed-9`).
    pub dir: String,
    /// The anomalies (and broken invariants) it showed.
    pub anomalies: Vec<String>,
    /// Transactions in its shrunk history, when it was shrunk.
    pub shrunk_txns: Option<usize>,
    /// Whether Ctrl-C ended it early.
    pub interrupted: bool,
}

/// A hunt's summary as text.
pub fn hunt_text(h: &HuntSummary) -> String {
    let mut out = format!(
        "Hunted with {} run(s) of {} at {} (seeds from {}{}), {}: {} failed",
        h.runs,
        h.db,
        h.isolation,
        h.first_seed,
        if h.vary { ", shapes varied" } else { "" },
        h.stopped,
        h.failed,
    );
    if !h.by_anomaly.is_empty() {
        let counts: Vec<String> = h.by_anomaly.iter().map(|(a, n)| format!("{a} in {n}")).collect();
        let _ = write!(out, " ({})", counts.join(", "));
    }
    out.push('\n');
    for run in &h.failing {
        let _ = writeln!(
            out,
            "  run {} (seed {}): {}; shrunk to {} transactions; evidence in {}/",
            run.run,
            run.seed,
            run.anomalies.join(", "),
            run.shrunk_txns.map_or_else(|| "null".to_string(), |n| n.to_string()),
            run.dir,
        );
    }
    let _ = writeln!(out, "Summary: {}/summary.json", h.out_dir);
    crate::escape::terminal_text(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_counts_the_failures_by_anomaly_and_points_at_each_runs_evidence() {
        let h = HuntSummary {
            runs: 3,
            failed: 1,
            stopped: "found-invalid".into(),
            by_anomaly: BTreeMap::from([("G2-item".to_string(), 1)]),
            failing: vec![FailingRun {
                run: 3,
                seed: 9,
                clients: 4,
                key_count: 8,
                max_txn_len: 4,
                dir: "runs/003-seed-9".into(),
                anomalies: vec!["G2-item".into()],
                shrunk_txns: Some(2),
                interrupted: false,
            }],
            db: "engine".into(),
            isolation: "serializable".into(),
            first_seed: 7,
            out_dir: "hunt".into(),
            ..HuntSummary::default()
        };
        assert_eq!(
            hunt_text(&h),
            "Hunted with 3 run(s) of engine at serializable (seeds from 7), found-invalid: 1 failed (G2-item in 1)\n  \
             run 3 (seed 9): G2-item; shrunk to 2 transactions; evidence in runs/003-seed-9/\nSummary: hunt/summary.json\n"
        );
        let text = serde_json::to_string(&h).unwrap();
        assert_eq!(serde_json::from_str::<HuntSummary>(&text).unwrap(), h);
    }
}
