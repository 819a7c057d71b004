//! The side-by-side report of `isocheck compare`: the same workload and seed on several systems and
//! levels, several rounds each, one row per system and level: commits, aborts by cause, abort rate,
//! median throughput and its ratio to SQLite's in the same rounds, latency percentiles, the anomalies
//! and flags found, and the overlap verdict, each anomaly linked to the rounds whose evidence was kept
//! (`compare --out`). A level a system does not offer is a row that says so. This
//! module owns the data and its rendering as text, Markdown and HTML; running the rounds is the command's.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use crate::escape::markdown as md;
use crate::page::{self, Cell};

/// The whole comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// The workload every row ran.
    pub workload: String,
    /// Its seed: every row ran the same transactions.
    pub seed: u64,
    /// Clients per run.
    pub clients: usize,
    /// Transactions per run.
    pub txns_per_round: u64,
    /// Rounds per system and level.
    pub rounds: usize,
    /// One row per system and level.
    pub rows: Vec<ComparisonRow>,
}

/// One system at one level.
#[derive(Debug, Clone, Serialize)]
pub struct ComparisonRow {
    /// The system.
    pub db: String,
    /// The level asked for.
    pub isolation: String,
    /// How the system ran it, in short (`SERIALIZABLE`, `as serializable`, `not offered`).
    pub as_run: String,
    /// How the system ran it, with the reason (`native: SERIALIZABLE`, `mapped to ...: why`).
    pub level: String,
    /// Whether it ran at all.
    pub supported: bool,
    /// The verdict over all rounds: `valid`, `invalid` or `unknown` (the worst round's).
    pub verdict: String,
    /// Committed transactions, over all rounds.
    pub commits: u64,
    /// Aborted and indeterminate transactions by cause, over all rounds.
    pub aborts_by_cause: BTreeMap<String, u64>,
    /// Aborted transactions over all transactions.
    pub abort_rate: f64,
    /// Median transactions per second over the rounds.
    pub throughput_tps: f64,
    /// Median over the rounds of this row's throughput divided by SQLite's in the same round.
    pub ratio_to_sqlite: Option<f64>,
    /// Median over the rounds of committed transactions' latency percentiles, in milliseconds.
    pub latency_ms: Option<Percentiles>,
    /// Anomalies found in any round (against the model the level promises).
    pub anomalies: Vec<String>,
    /// Flags raised in any round.
    pub flags: Vec<String>,
    /// The overlap test at this level.
    pub overlap: Option<OverlapCell>,
    /// Each round's evidence, when the comparison kept it (`compare --out`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<RunEvidence>,
}

/// Where one round's history and findings were kept, and what it found.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunEvidence {
    /// The round, from 1.
    pub round: usize,
    /// The run's directory, relative to the comparison's (`runs/engine-serializable-1`): it holds
    /// `history.jsonl`, `run.json` and the findings (`findings.json`, `report.html`, ...).
    pub dir: String,
    /// The round's verdict: `valid`, `invalid` or `unknown`.
    pub verdict: String,
    /// The anomalies (and broken invariants) the round found.
    pub anomalies: Vec<String>,
}

/// Latency percentiles.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct Percentiles {
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
}

impl Percentiles {
    /// The percentiles of these latencies (in nanoseconds), in milliseconds; `None` for none.
    pub fn of(mut nanos: Vec<i64>) -> Option<Percentiles> {
        if nanos.is_empty() {
            return None;
        }
        nanos.sort_unstable();
        let at = |q: f64| {
            let i = ((nanos.len() as f64 - 1.0) * q).round() as usize;
            nanos[i.min(nanos.len() - 1)] as f64 / 1e6
        };
        Some(Percentiles { p50: at(0.50), p95: at(0.95), p99: at(0.99) })
    }
}

/// The overlap verdict of one system and level.
#[derive(Debug, Clone, Serialize)]
pub struct OverlapCell {
    /// `concurrent`, `serialized` or `partial`.
    pub verdict: String,
    /// Median round, in milliseconds.
    pub elapsed_ms: f64,
    /// Median round over the hold time.
    pub ratio: f64,
}

fn ms(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

fn causes(row: &ComparisonRow) -> String {
    if row.aborts_by_cause.is_empty() {
        return "none".to_string();
    }
    row.aborts_by_cause.iter().map(|(c, n)| format!("{c} {n}")).collect::<Vec<_>>().join(", ")
}

/// Each row's cells as text, in column order.
fn cells(row: &ComparisonRow) -> Vec<String> {
    if !row.supported {
        let mut cells = vec![row.db.clone(), row.isolation.clone(), row.as_run.clone()];
        cells.extend(std::iter::repeat_n("—".to_string(), HEADERS.len() - 3));
        return cells;
    }
    vec![
        row.db.clone(),
        row.isolation.clone(),
        row.as_run.clone(),
        row.verdict.clone(),
        row.commits.to_string(),
        causes(row),
        format!("{:.1}%", row.abort_rate * 100.0),
        format!("{:.0}", row.throughput_tps),
        row.ratio_to_sqlite.map_or("—".to_string(), |r| format!("{r:.2}x")),
        row.latency_ms.map_or("—".to_string(), |p| format!("{} / {} / {}", ms(p.p50), ms(p.p95), ms(p.p99))),
        anomalies_text(row),
        if row.flags.is_empty() { "none".to_string() } else { row.flags.join(", ") },
        row.overlap
            .as_ref()
            .map_or("—".to_string(), |o| format!("{} ({} ms, {:.2}x)", o.verdict, ms(o.elapsed_ms), o.ratio)),
    ]
}

/// The anomalies, each with the rounds that found it when the runs were kept (`G2-item (round 2)`).
fn anomalies_text(row: &ComparisonRow) -> String {
    if row.anomalies.is_empty() {
        return "none".to_string();
    }
    let named: Vec<String> = row
        .anomalies
        .iter()
        .map(|a| {
            let rounds: Vec<String> =
                row.runs.iter().filter(|r| r.anomalies.contains(a)).map(|r| r.round.to_string()).collect();
            match rounds.len() {
                0 => a.clone(),
                1 => format!("{a} (round {})", rounds[0]),
                _ => format!("{a} (rounds {})", rounds.join(", ")),
            }
        })
        .collect();
    named.join(", ")
}

/// Every kept run that found something: (system, level, round, directory, anomalies).
fn failing_runs(c: &Comparison) -> Vec<(&ComparisonRow, &RunEvidence)> {
    c.rows.iter().flat_map(|row| row.runs.iter().filter(|r| !r.anomalies.is_empty()).map(move |r| (row, r))).collect()
}

fn kept_note(c: &Comparison) -> Option<String> {
    let kept: usize = c.rows.iter().map(|r| r.runs.len()).sum();
    (kept > 0).then(|| {
        format!(
            "Every run's history.jsonl, run.json and findings are kept under runs/<system>-<level>-<round>/ ({kept} runs)."
        )
    })
}

/// The columns, in order.
pub const HEADERS: [&str; 13] = [
    "system",
    "level",
    "as run",
    "verdict",
    "commits",
    "aborts by cause",
    "abort rate",
    "txn/s (median)",
    "vs SQLite",
    "latency ms p50/p95/p99",
    "anomalies",
    "flags",
    "overlap",
];

/// The reasons behind levels run as another, once each.
fn mappings(c: &Comparison) -> Vec<String> {
    let mut notes: Vec<String> = Vec::new();
    for row in c.rows.iter().filter(|r| !r.level.starts_with("native")) {
        let note = format!("{} at {}: {}", row.db, row.isolation, row.level);
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    notes
}

fn preamble(c: &Comparison) -> String {
    format!(
        "{} with seed {}, {} clients, {} transactions a round, {} rounds per system and level. Throughput is the \
         median of the rounds; \"vs SQLite\" the median of each round's ratio to SQLite at the same level. Anomalies \
         are checked against the model each level promises.",
        c.workload, c.seed, c.clients, c.txns_per_round, c.rounds
    )
}

/// The comparison as text.
pub fn comparison_text(c: &Comparison) -> String {
    let rows: Vec<Vec<String>> = c.rows.iter().map(cells).collect();
    let widths: Vec<usize> = (0..HEADERS.len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).chain([HEADERS[i].len()]).max().unwrap_or(0))
        .collect();
    let mut out = preamble(c) + "\n\n";
    let line = |cells: &[String], out: &mut String| {
        for (i, cell) in cells.iter().enumerate() {
            let _ = write!(out, "{cell:<w$}  ", w = widths[i]);
        }
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        out.push('\n');
    };
    line(&HEADERS.map(str::to_string), &mut out);
    for row in &rows {
        line(row, &mut out);
    }
    for note in mappings(c) {
        let _ = writeln!(out, "\n{note}");
    }
    if let Some(note) = kept_note(c) {
        let _ = writeln!(out, "\n{note}");
        for (row, run) in failing_runs(c) {
            let _ = writeln!(
                out,
                "  {} at {}, round {}: {} in {}/",
                row.db,
                row.isolation,
                run.round,
                run.anomalies.join(", "),
                run.dir
            );
        }
    }
    out
}

/// The comparison as Markdown.
pub fn comparison_markdown(c: &Comparison) -> String {
    let rows: Vec<Vec<String>> = c.rows.iter().map(|r| cells(r).iter().map(|x| md(x)).collect()).collect();
    let mut out = format!("# isocheck compare\n\n{}\n\n{}", md(&preamble(c)), crate::markdown::table(&HEADERS, &rows));
    for note in mappings(c) {
        let _ = write!(out, "\n- {}", md(&note));
    }
    out.push('\n');
    if let Some(note) = kept_note(c) {
        let _ = writeln!(out, "\n{}\n", md(&note));
        for (row, run) in failing_runs(c) {
            let _ = writeln!(
                out,
                "- {} at {}, round {}: {} ([report]({}/report.html), [history]({}/history.jsonl))",
                md(&row.db),
                md(&row.isolation),
                run.round,
                md(&run.anomalies.join(", ")),
                run.dir,
                run.dir
            );
        }
    }
    out
}

/// The comparison as one self-contained HTML page.
pub fn comparison_html(c: &Comparison) -> String {
    let rows: Vec<Vec<Cell>> = c
        .rows
        .iter()
        .map(|r| {
            cells(r)
                .into_iter()
                .enumerate()
                .map(|(i, text)| match i {
                    3 if r.supported => Cell::Html(page::badge(&r.verdict, &text)),
                    10 if !r.runs.is_empty() && !r.anomalies.is_empty() => Cell::Html(anomaly_links(r)),
                    _ => Cell::Text(text),
                })
                .collect()
        })
        .collect();
    let mut body = format!(
        "<header><h1>isocheck compare</h1>{}</header>\n<h2>Systems and levels</h2>\n{}",
        page::para("muted", &preamble(c)),
        page::table("comparison", &HEADERS, &rows)
    );
    for note in mappings(c) {
        body.push_str(&page::para("muted", &note));
    }
    if let Some(note) = kept_note(c) {
        body.push_str(&page::para("muted", &note));
    }
    page::document("isocheck compare", &body)
}

/// Each anomaly with a link to the report of every round that found it.
fn anomaly_links(row: &ComparisonRow) -> String {
    let mut out = String::new();
    for (i, anomaly) in row.anomalies.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{}", crate::escape::Xml(anomaly));
        let links: Vec<String> = row
            .runs
            .iter()
            .filter(|r| r.anomalies.contains(anomaly))
            .map(|r| format!("<a href=\"{}/report.html\">round {}</a>", crate::escape::Xml(&r.dir), r.round))
            .collect();
        if !links.is_empty() {
            let _ = write!(out, " ({})", links.join(", "));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(db: &str, supported: bool) -> ComparisonRow {
        ComparisonRow {
            db: db.into(),
            isolation: "serializable".into(),
            as_run: if supported { "serializable".into() } else { "not offered".into() },
            level: if supported { "native: serializable".into() } else { "unsupported: no".into() },
            supported,
            verdict: "invalid".into(),
            commits: 90,
            aborts_by_cause: BTreeMap::from([("40001".to_string(), 10)]),
            abort_rate: 0.1,
            throughput_tps: 1234.0,
            ratio_to_sqlite: Some(2.5),
            latency_ms: Percentiles::of(vec![1_000_000, 2_000_000, 3_000_000]),
            anomalies: vec!["G2-item".into()],
            flags: vec![],
            overlap: Some(OverlapCell { verdict: "concurrent".into(), elapsed_ms: 100.4, ratio: 1.0 }),
            runs: vec![],
        }
    }

    #[test]
    fn each_anomaly_names_and_links_the_rounds_that_found_it() {
        let mut r = row("engine", true);
        r.runs = vec![
            RunEvidence {
                round: 1,
                dir: "runs/engine-serializable-1".into(),
                verdict: "valid".into(),
                anomalies: vec![],
            },
            RunEvidence {
                round: 2,
                dir: "runs/engine-serializable-2".into(),
                verdict: "invalid".into(),
                anomalies: vec!["G2-item".into()],
            },
        ];
        assert_eq!(anomalies_text(&r), "G2-item (round 2)");
        assert_eq!(anomaly_links(&r), "G2-item (<a href=\"runs/engine-serializable-2/report.html\">round 2</a>)");
        let c = Comparison {
            workload: "list-append".into(),
            seed: 1,
            clients: 4,
            txns_per_round: 10,
            rounds: 2,
            rows: vec![r],
        };
        let md = comparison_markdown(&c);
        assert!(
            md.contains("- engine at serializable, round 2: G2-item ([report](runs/engine-serializable-2/report.html), [history](runs/engine-serializable-2/history.jsonl))"),
            "{md}"
        );
        // Without kept runs, the anomalies are named alone.
        assert_eq!(anomalies_text(&row("engine", true)), "G2-item");
    }

    #[test]
    fn percentiles_pick_the_nearest_rank() {
        let p = Percentiles::of((1..=100).map(|i| i * 1_000_000).collect()).unwrap();
        assert_eq!((p.p50, p.p95, p.p99), (51.0, 95.0, 99.0));
        assert_eq!(Percentiles::of(vec![]), None);
    }

    #[test]
    fn every_row_fills_every_column_and_an_unsupported_level_says_so() {
        let c = Comparison {
            workload: "list-append".into(),
            seed: 1,
            clients: 4,
            txns_per_round: 100,
            rounds: 3,
            rows: vec![row("engine", true), row("sqlite", false)],
        };
        let text = comparison_text(&c);
        let engine: Vec<&str> = text
            .lines()
            .find(|l| l.starts_with("engine"))
            .unwrap()
            .split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        assert_eq!(
            engine,
            vec![
                "engine",
                "serializable",
                "serializable",
                "invalid",
                "90",
                "40001 10",
                "10.0%",
                "1234",
                "2.50x",
                "2.00 / 3.00 / 3.00",
                "G2-item",
                "none",
                "concurrent (100 ms, 1.00x)"
            ]
        );
        assert!(text.contains("not offered") && text.contains("sqlite at serializable: unsupported: no"), "{text}");
        let md = comparison_markdown(&c);
        assert_eq!(md.lines().filter(|l| l.starts_with("| engine") || l.starts_with("| sqlite")).count(), 2);
        let html = comparison_html(&c);
        assert!(html.contains("<span class=\"badge invalid\">invalid</span>"));
    }
}
