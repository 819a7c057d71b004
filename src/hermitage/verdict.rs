//! What a scenario's execution shows, decided by the checker: the history is checked for the scenario's
//! anomaly (its `probe`, Elle's name, with everything that implies it); the cell is an *anomaly* when the
//! checker finds one among the transactions the scenario names, and otherwise *prevented*, with how:
//! the system blocked a step, aborted a transaction (and with what error), or simply never let the
//! anomaly be observed. Nothing here knows what a system should do.

use adapters::Failure;
use histories::OpType;
use serde::Serialize;

use super::scenario::{Involving, Scenario};
use super::step_runner::Execution;

/// What a matrix cell shows: the anomaly prevented, shown, or the level not offered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CellVerdict {
    /// The anomaly did not occur.
    Prevented,
    /// The checker found it.
    Anomaly,
    /// The system does not offer the level.
    Unsupported,
}

/// One scenario's result on one system and level.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    /// The system.
    pub db: String,
    /// The level asked for.
    pub isolation: String,
    /// The scenario.
    pub anomaly: String,
    /// Its Hermitage column.
    pub column: String,
    /// Anomaly, prevented or unsupported.
    pub outcome: CellVerdict,
    /// How: `blocked`, `aborted (40001)`, `not observed`, the anomaly classes, or why unsupported.
    pub how: String,
    /// The anomaly classes the checker reported for the scenario's probe.
    pub checker: Vec<String>,
    /// The scenario's history, relative to `--out` (`histories/engine-serializable-G0.jsonl`), when kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<String>,
}

/// The cell an execution makes.
pub fn cell(db: &str, isolation: &str, scenario: &Scenario, execution: &Execution) -> anyhow::Result<Cell> {
    let options = checker::Options::new(&[], std::slice::from_ref(&scenario.probe))?;
    let result = checker::check(&execution.history, &options)?;
    let involved: Vec<u64> = match &scenario.involving {
        Involving::All => execution.transactions.values().map(|t| t.0).collect(),
        Involving::Sessions(sessions) => {
            sessions.iter().filter_map(|s| execution.transactions.get(s).map(|t| t.0)).collect()
        }
        Involving::Any => Vec::new(),
    };
    let prohibited = options.prohibited();
    let found: Vec<String> = result
        .anomalies
        .iter()
        .filter(|(name, _)| prohibited.contains(name.as_str()))
        .filter(|(_, cases)| {
            cases.iter().any(|case| {
                let txns = case.txn_indices();
                // An anomaly about committed transactions must involve those the scenario names.
                involved.iter().filter(|t| committed(execution, **t)).all(|t| txns.contains(t))
            })
        })
        .map(|(name, _)| name.clone())
        .collect();
    let (outcome, how) = if found.is_empty() {
        (CellVerdict::Prevented, prevention(execution))
    } else {
        (CellVerdict::Anomaly, found.join(", "))
    };
    Ok(Cell {
        db: db.to_string(),
        isolation: isolation.to_string(),
        anomaly: scenario.name.clone(),
        column: scenario.column.clone(),
        outcome,
        how,
        checker: found,
        history: None,
    })
}

fn committed(execution: &Execution, index: u64) -> bool {
    execution.transactions.values().any(|t| t.0 == index && t.1 == OpType::Ok)
}

/// How the system kept the anomaly out.
fn prevention(execution: &Execution) -> String {
    let mut how = Vec::new();
    if !execution.blocked.is_empty() {
        how.push("blocked".to_string());
    }
    let mut causes: Vec<String> = execution
        .transactions
        .values()
        .filter_map(|t| t.2.as_ref())
        .filter(|e| e.failure == Failure::Aborted)
        .map(|e| e.cause.clone())
        .collect();
    causes.sort();
    causes.dedup();
    if !causes.is_empty() {
        let busy = causes.iter().all(|c| c.starts_with("SQLITE_BUSY"));
        how.push(format!("{} ({})", if busy { "busy" } else { "aborted" }, causes.join(", ")));
    }
    if how.is_empty() { "not observed".to_string() } else { how.join(", then ") }
}
