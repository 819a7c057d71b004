//! What a scenario's execution shows, decided by the checker: the history is checked for the scenario's
//! anomaly (its `probe`, Elle's name, with everything that implies it); the cell is an *anomaly* when the
//! checker finds one among the transactions the scenario names. When it finds none, the history is
//! checked again against the model the level promises: an anomaly the level forbids among those
//! transactions makes the cell an *other anomaly*, marked as not the probe's (a script may show another
//! class than the one it was written for: on a snapshot engine without SSI, G1c's script is a write
//! skew at serializable), so a cell never reads *prevented* beside a history the checker finds invalid
//! for its level. Only then is
//! it *prevented*, with how: the system blocked a step, aborted a transaction (and with what error), or
//! simply never let the anomaly be observed. Nothing here knows what a system should do.

use adapters::{Failure, Level};
use histories::OpType;
use serde::Serialize;

use super::scenario::{Involving, Scenario};
use super::step_runner::Execution;

/// What a matrix cell shows: the anomaly prevented, shown, or the level not offered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CellVerdict {
    /// The anomaly did not occur.
    Prevented,
    /// The checker found it.
    Anomaly,
    /// The checker did not find the probe but another anomaly the level forbids, among the scenario's
    /// transactions (`other-anomaly`).
    OtherAnomaly,
    /// The system does not offer the level.
    Unsupported,
}

/// One scenario's result on one system and level.
#[derive(Debug, Clone, Serialize)]
pub struct MatrixCell {
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
    /// The anomaly classes the checker reported: the probe's, or (`other-anomaly`) those the level forbids.
    pub checker: Vec<String>,
    /// The scenario's history, relative to `--out` (`histories/engine-serializable-G0.jsonl`), when kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<String>,
}

/// The cell an execution at `level` makes.
pub fn cell(
    db: &str,
    isolation: &str,
    level: Level,
    scenario: &Scenario,
    execution: &Execution,
) -> anyhow::Result<MatrixCell> {
    let probe = checker::Options::new(&[], std::slice::from_ref(&scenario.probe))?;
    let found = found_in(&probe, Among::Named(&scenario.involving), execution)?;
    let (outcome, how, found) = if !found.is_empty() {
        (CellVerdict::Anomaly, found.join(", "), found)
    } else {
        let promised = checker::Options::new(&[level.promised_model().to_string()], &[])?;
        let other = found_in(&promised, Among::AnySession, execution)?;
        if other.is_empty() {
            (CellVerdict::Prevented, prevention(execution), other)
        } else {
            let how = format!(
                "{} (not {}, the probe; forbidden at {})",
                other.join(", "),
                scenario.probe,
                level.promised_model()
            );
            (CellVerdict::OtherAnomaly, how, other)
        }
    };
    Ok(MatrixCell {
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

/// Which cases of an anomaly count.
enum Among<'a> {
    /// Those involving every committed transaction of the sessions the scenario names (the probe's).
    Named(&'a Involving),
    /// Those involving any session's transaction (what the level forbids: an anomaly of T2 alone, such
    /// as an internal inconsistency, is still the scenario's).
    AnySession,
}

/// The anomalies `options` prohibits that the checker finds in the execution's history, among the
/// scenario's transactions as `among` says.
fn found_in(options: &checker::Options, among: Among<'_>, execution: &Execution) -> anyhow::Result<Vec<String>> {
    let result = checker::check(&execution.history, options)?;
    let sessions: Vec<u64> = execution.transactions.values().map(|t| t.0).collect();
    let involved: Vec<u64> = match among {
        Among::Named(Involving::All) | Among::AnySession => sessions.clone(),
        Among::Named(Involving::Sessions(named)) => {
            named.iter().filter_map(|s| execution.transactions.get(s).map(|t| t.0)).collect()
        }
        Among::Named(Involving::Any) => Vec::new(),
    };
    let prohibited = options.prohibited();
    let found = result
        .anomalies
        .iter()
        .filter(|(name, _)| prohibited.contains(name.as_str()))
        .filter(|(_, cases)| {
            cases.iter().any(|case| {
                let txns = case.txn_indices();
                match among {
                    // An anomaly about committed transactions must involve those the scenario names.
                    Among::Named(_) => involved.iter().filter(|t| committed(execution, **t)).all(|t| txns.contains(t)),
                    Among::AnySession => involved.iter().any(|t| txns.contains(t)),
                }
            })
        })
        .map(|(name, _)| name.clone())
        .collect();
    Ok(found)
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use histories::{Format, Process};

    use super::*;

    /// An execution as `step_runner` would make it from a saved history: each session's transaction (its
    /// process) and how it ended, nothing blocked.
    fn saved(file: &str) -> Execution {
        let path = format!("{}/testdata/hermitage-mariadb/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let history = histories::parse(&text, Format::JsonLines, file).expect("a saved history");
        let mut transactions = BTreeMap::new();
        for t in history.transactions() {
            if let Process::Client(p) = t.invoke.process()
                && p > 0
            {
                transactions.insert(p as usize, (t.op().index, t.outcome(), None));
            }
        }
        Execution { history, blocked: Vec::new(), transactions }
    }

    fn pmp_write_for_mariadb() -> Scenario {
        let scenarios = super::super::scenario::bundled().expect("bundled");
        super::super::scenario::for_system(&scenarios, "mariadb")
            .into_iter()
            .find(|s| s.name == "PMP-write")
            .expect("MariaDB's PMP-write")
            .clone()
    }

    #[test]
    fn a_cell_is_never_prevented_beside_an_anomaly_its_level_forbids() {
        // MariaDB 10.11 at repeatable read: T2 reads every row, its delete waits for T1 and then deletes
        // the row T1 made 20, while its reads still show T1's predecessors. The probe (G-single) is not
        // among what the checker finds; G2-item and lost-update, which repeatable read forbids, are.
        let s = pmp_write_for_mariadb();
        let rr =
            cell("mariadb", "repeatable-read", Level::RepeatableRead, &s, &saved("pmp-write-repeatable-read.jsonl"))
                .expect("checked");
        assert_eq!(rr.outcome, CellVerdict::OtherAnomaly);
        assert_eq!(rr.checker, ["G2-item", "lost-update"]);
        assert_eq!(rr.how, "G2-item, lost-update (not G-single, the probe; forbidden at repeatable-read)");
        // The same history at read uncommitted, which forbids neither, is prevented as before.
        let ru =
            cell("mariadb", "read-uncommitted", Level::ReadUncommitted, &s, &saved("pmp-write-repeatable-read.jsonl"))
                .expect("checked");
        assert_eq!((ru.outcome, ru.how.as_str()), (CellVerdict::Prevented, "not observed"));
        // Read committed's history shows the probe's class: an anomaly, no other mark.
        let rc = cell("mariadb", "read-committed", Level::ReadCommitted, &s, &saved("pmp-write-read-committed.jsonl"))
            .expect("checked");
        assert_eq!((rc.outcome, rc.how.as_str()), (CellVerdict::Anomaly, "G-single-item"));
        // Serializable's, where T2's delete waited for T1 and then ran after it, is serial: prevented.
        let sr = cell("mariadb", "serializable", Level::Serializable, &s, &saved("pmp-write-serializable.jsonl"))
            .expect("checked");
        assert_eq!((sr.outcome, sr.checker.len()), (CellVerdict::Prevented, 0));
    }
}
