//! The matrix as `findings` renders it: each cell of a run becomes a typed [`findings::ScenarioResult`]
//! under Hermitage's columns (`generators::hermitage::COLUMNS`). The layout (rows are system and level, a
//! column an anomaly if any of its scenarios is) and its text, Markdown and HTML are `findings`'s, with
//! its escaping; the JSON is the cells themselves. The typed matrix lives in `findings`
//! rather than beside the scenario format in `generators` because it is a rendering input: `findings`
//! must not depend on `generators`, and only this root package sees both the cells and the columns.

use super::scenario::COLUMNS;
use super::verdict::{CellVerdict, MatrixCell};

/// The typed matrix of these cells, in their order.
pub fn matrix(cells: &[MatrixCell]) -> findings::HermitageMatrix {
    let results = cells
        .iter()
        .map(|c| findings::ScenarioResult {
            db: c.db.clone(),
            isolation: c.isolation.clone(),
            scenario: c.anomaly.clone(),
            column: c.column.clone(),
            verdict: match c.outcome {
                CellVerdict::Prevented => findings::ScenarioVerdict::Prevented,
                CellVerdict::Anomaly => findings::ScenarioVerdict::Anomaly,
                CellVerdict::OtherAnomaly => findings::ScenarioVerdict::OtherAnomaly,
                CellVerdict::Unsupported => findings::ScenarioVerdict::Unsupported,
            },
            how: c.how.clone(),
            history: c.history.clone(),
        })
        .collect();
    findings::HermitageMatrix { columns: COLUMNS.iter().map(|c| c.to_string()).collect(), results }
}
