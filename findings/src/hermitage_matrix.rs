//! The Hermitage matrix of `isocheck hermitage` (Kleppmann's Hermitage, with the read-only anomaly of
//! Fekete, O'Neil and O'Neil 2004 beside it): rows are system and level, columns the anomalies, each
//! cell prevented (✓) or anomaly (—, found by the checker), another anomaly (!: the column's was not
//! found, but one the level forbids was, among the scenario's transactions), or `n/a` where the system
//! lacks the level; a column holding several scenarios shows an anomaly if any of them does, and each scenario's result
//! is listed below with how it was prevented. This module owns that typed matrix and its rendering as
//! text, Markdown and HTML, every name and message passing through `escape`; running the scenarios and
//! deciding each result are the runner's and the checker's, and the JSON of the cells the command's.

use std::fmt::Write;

use crate::escape::{self, Xml, markdown as md};

/// What one scenario showed on one system at one level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScenarioVerdict {
    /// The anomaly did not occur.
    Prevented,
    /// The checker found it.
    Anomaly,
    /// The checker did not find it, but found another anomaly the level forbids among the scenario's
    /// transactions: the script showed something else than it was written for.
    OtherAnomaly,
    /// The system does not offer the level.
    Unsupported,
}

impl ScenarioVerdict {
    /// `prevented`, `anomaly`, `other-anomaly` or `unsupported`.
    pub fn word(self) -> &'static str {
        match self {
            ScenarioVerdict::Prevented => "prevented",
            ScenarioVerdict::Anomaly => "anomaly",
            ScenarioVerdict::OtherAnomaly => "other-anomaly",
            ScenarioVerdict::Unsupported => "unsupported",
        }
    }

    /// The matrix's mark for it.
    fn symbol(self) -> &'static str {
        match self {
            ScenarioVerdict::Prevented => "✓",
            ScenarioVerdict::Anomaly => "—",
            ScenarioVerdict::OtherAnomaly => "!",
            ScenarioVerdict::Unsupported => "n/a",
        }
    }
}

/// One scenario's result on one system at one level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioResult {
    /// The system (`engine`, `engine (ssi-off)`).
    pub db: String,
    /// The level asked for (`read-committed (as serializable)` when the system runs it as another).
    pub isolation: String,
    /// The scenario's name.
    pub scenario: String,
    /// Its column.
    pub column: String,
    /// What it showed.
    pub verdict: ScenarioVerdict,
    /// How: `blocked`, `aborted (40001)`, `not observed`, the anomaly classes, or why unsupported.
    pub how: String,
    /// Its history, relative to where the matrix is written, when kept.
    pub history: Option<String>,
}

/// The whole matrix: its columns, in order, and every scenario's result, rows in order of appearance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HermitageMatrix {
    /// The columns (`G0`, `G1a`, ..., `read-only`).
    pub columns: Vec<String>,
    /// Every scenario's result.
    pub results: Vec<ScenarioResult>,
}

impl HermitageMatrix {
    /// The rows, in order: (system, level) pairs as they first appear.
    pub fn rows(&self) -> Vec<(&str, &str)> {
        let mut rows: Vec<(&str, &str)> = Vec::new();
        for r in &self.results {
            let row = (r.db.as_str(), r.isolation.as_str());
            if !rows.contains(&row) {
                rows.push(row);
            }
        }
        rows
    }

    /// A column's verdict for a row, with the results it summarises: an anomaly if any of its scenarios
    /// showed one, else another anomaly if any showed one, else unsupported if any was, else prevented; `None` when the row has no scenario in it.
    pub fn column_verdict(
        &self,
        db: &str,
        isolation: &str,
        column: &str,
    ) -> Option<(ScenarioVerdict, Vec<&ScenarioResult>)> {
        let mine: Vec<&ScenarioResult> =
            self.results.iter().filter(|r| r.db == db && r.isolation == isolation && r.column == column).collect();
        let has = |v: ScenarioVerdict| mine.iter().any(|r| r.verdict == v);
        let verdict = if has(ScenarioVerdict::Anomaly) {
            ScenarioVerdict::Anomaly
        } else if has(ScenarioVerdict::OtherAnomaly) {
            ScenarioVerdict::OtherAnomaly
        } else if has(ScenarioVerdict::Unsupported) {
            ScenarioVerdict::Unsupported
        } else {
            mine.first()?.verdict
        };
        Some((verdict, mine))
    }

    fn symbol(&self, db: &str, isolation: &str, column: &str) -> &'static str {
        self.column_verdict(db, isolation, column).map_or("", |(v, _)| v.symbol())
    }
}

/// The matrix as terminal text, then each scenario's result.
pub fn hermitage_text(m: &HermitageMatrix) -> String {
    let rows = m.rows();
    let label = |(db, isolation): (&str, &str)| escape::terminal(&format!("{db} {isolation}")).into_owned();
    let columns: Vec<String> = m.columns.iter().map(|c| escape::terminal(c).into_owned()).collect();
    let width = rows.iter().map(|r| label(*r).chars().count()).max().unwrap_or(0);
    let mut out = format!("{:width$}", "");
    for column in &columns {
        let _ = write!(out, "  {column:>w$}", w = column.chars().count().max(3));
    }
    out.push('\n');
    for &(db, isolation) in &rows {
        let _ = write!(out, "{:width$}", label((db, isolation)));
        for (column, shown) in m.columns.iter().zip(&columns) {
            let s = m.symbol(db, isolation, column);
            let _ = write!(out, "  {s:>w$}", w = shown.chars().count().max(3));
        }
        out.push('\n');
    }
    out.push_str("\n✓ prevented   — anomaly (found by the checker)   ! another anomaly the level forbids   n/a level not offered\n\n");
    for r in &m.results {
        let _ = writeln!(
            out,
            "{} {} {:<22} {:<10} {}",
            escape::terminal(&r.db),
            escape::terminal(&r.isolation),
            escape::terminal(&r.scenario),
            r.verdict.word(),
            escape::terminal(&r.how)
        );
    }
    out
}

/// The matrix as a Markdown table, then each scenario's result as a table of its own.
pub fn hermitage_markdown(m: &HermitageMatrix) -> String {
    let mut out = String::from("| system | level |");
    for column in &m.columns {
        let _ = write!(out, " {} |", md(column));
    }
    out.push_str("\n|---|---|");
    out.push_str(&":-:|".repeat(m.columns.len()));
    out.push('\n');
    for (db, isolation) in m.rows() {
        let _ = write!(out, "| {} | {} |", md(db), md(isolation));
        for column in &m.columns {
            let _ = write!(out, " {} |", m.symbol(db, isolation, column));
        }
        out.push('\n');
    }
    out.push_str("\n✓ prevented, — anomaly (found by the checker), ! another anomaly the level forbids, n/a level not offered.\n\n| system | level | scenario | outcome | how | history |\n|---|---|---|---|---|---|\n");
    for r in &m.results {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            md(&r.db),
            md(&r.isolation),
            md(&r.scenario),
            r.verdict.word(),
            md(&r.how),
            r.history.as_deref().map_or(String::new(), |h| escape::markdown_link(h, h))
        );
    }
    out
}

/// The matrix as one self-contained HTML page.
pub fn hermitage_html(m: &HermitageMatrix) -> String {
    let mut out = String::from(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>isocheck hermitage</title><style>\
         body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse}\
         td,th{border:1px solid #ccc;padding:4px 8px;text-align:center}td.l{text-align:left}\
         .prevented{background:#e6f4ea}.anomaly{background:#fce8e6}.other-anomaly{background:#fef3e0}.unsupported{background:#eee}</style></head><body>\
         <h1>Hermitage matrix</h1><table><tr><th>system</th><th>level</th>",
    );
    for column in &m.columns {
        let _ = write!(out, "<th>{}</th>", Xml(column));
    }
    out.push_str("</tr>");
    for (db, isolation) in m.rows() {
        let _ = write!(out, "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td>", Xml(db), Xml(isolation));
        for column in &m.columns {
            match m.column_verdict(db, isolation, column) {
                Some((verdict, mine)) => {
                    let title: Vec<String> = mine.iter().map(|r| format!("{}: {}", r.scenario, r.how)).collect();
                    let _ = write!(
                        out,
                        "<td class=\"{}\" title=\"{}\">{}</td>",
                        verdict.word(),
                        Xml(&title.join("; ")),
                        verdict.symbol()
                    );
                }
                None => out.push_str("<td></td>"),
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</table><p>✓ prevented, — anomaly (found by the checker), ! another anomaly the level forbids, n/a level not offered.</p><h2>Scenarios</h2><table><tr><th>system</th><th>level</th><th>scenario</th><th>outcome</th><th>how</th><th>history</th></tr>");
    for r in &m.results {
        let class = r.verdict.word();
        let history = r.history.as_deref().map_or(String::new(), |h| format!("<a href=\"{0}\">{0}</a>", Xml(h)));
        let _ = write!(
            out,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"{class}\">{class}</td><td class=\"l\">{}</td><td class=\"l\">{history}</td></tr>",
            Xml(&r.db),
            Xml(&r.isolation),
            Xml(&r.scenario),
            Xml(&r.how)
        );
    }
    out.push_str("</table></body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(db: &str, scenario: &str, column: &str, verdict: ScenarioVerdict, how: &str) -> ScenarioResult {
        ScenarioResult {
            db: db.into(),
            isolation: "serializable".into(),
            scenario: scenario.into(),
            column: column.into(),
            verdict,
            how: how.into(),
            history: None,
        }
    }

    #[test]
    fn a_column_is_an_anomaly_if_any_scenario_is_and_prevented_only_if_all_are() {
        let m = HermitageMatrix {
            columns: vec!["G-single".into(), "G0".into()],
            results: vec![
                result("engine", "G-single", "G-single", ScenarioVerdict::Prevented, "blocked"),
                result("engine", "G-single-write-1", "G-single", ScenarioVerdict::Anomaly, "G-single"),
                result("engine", "G0", "G0", ScenarioVerdict::Prevented, "blocked"),
                result("engine", "G0-bis", "G0", ScenarioVerdict::Prevented, "not observed"),
            ],
        };
        let (verdict, mine) = m.column_verdict("engine", "serializable", "G-single").unwrap();
        assert_eq!((verdict, mine.len()), (ScenarioVerdict::Anomaly, 2));
        let (verdict, mine) = m.column_verdict("engine", "serializable", "G0").unwrap();
        assert_eq!((verdict, mine.len()), (ScenarioVerdict::Prevented, 2));
        assert_eq!(m.column_verdict("engine", "read-committed", "G0"), None);
        assert_eq!(m.rows(), vec![("engine", "serializable")]);
    }

    #[test]
    fn the_text_matrix_lines_up_each_column_under_its_name() {
        let m = HermitageMatrix {
            columns: vec!["G0".into(), "G-single".into()],
            results: vec![
                result("engine", "G0", "G0", ScenarioVerdict::Prevented, "blocked"),
                result("engine", "G-single", "G-single", ScenarioVerdict::Anomaly, "G-single"),
                result("sqlite", "G0", "G0", ScenarioVerdict::Unsupported, "not offered"),
            ],
        };
        assert_eq!(
            hermitage_text(&m),
            "                      G0  G-single\n\
             engine serializable    ✓         —\n\
             sqlite serializable  n/a          \n\
             \n✓ prevented   — anomaly (found by the checker)   ! another anomaly the level forbids   n/a level not offered\n\n\
             engine serializable G0                     prevented  blocked\n\
             engine serializable G-single               anomaly    G-single\n\
             sqlite serializable G0                     unsupported not offered\n"
        );
    }
}
