//! The matrix: rows are system and level, columns Hermitage's anomalies, each cell prevented (✓, and how)
//! or anomaly (—, with the checker's classes); a level a system lacks is shown as such. A column holding
//! several scenarios shows an anomaly if any of them does. Rendered as text, Markdown and HTML; the JSON
//! is the cells themselves (DESIGN.md §4).

use std::fmt::Write;

use super::scenario::COLUMNS;
use super::verdict::{Cell, CellVerdict};

/// The rows, in order: (db, isolation) pairs as they first appear.
fn rows(cells: &[Cell]) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> = Vec::new();
    for c in cells {
        let row = (c.db.clone(), c.isolation.clone());
        if !rows.contains(&row) {
            rows.push(row);
        }
    }
    rows
}

/// A column's outcome for a row: anomaly if any of its scenarios showed one.
pub fn column_outcome<'a>(
    cells: &'a [Cell],
    db: &str,
    isolation: &str,
    column: &str,
) -> Option<(&'a CellVerdict, Vec<&'a Cell>)> {
    let mine: Vec<&Cell> =
        cells.iter().filter(|c| c.db == db && c.isolation == isolation && c.column == column).collect();
    let outcome = mine
        .iter()
        .map(|c| &c.outcome)
        .find(|o| **o == CellVerdict::Anomaly)
        .or_else(|| mine.iter().map(|c| &c.outcome).find(|o| **o == CellVerdict::Unsupported))
        .or_else(|| mine.first().map(|c| &c.outcome))?;
    Some((outcome, mine))
}

fn symbol(outcome: &CellVerdict) -> &'static str {
    match outcome {
        CellVerdict::Prevented => "✓",
        CellVerdict::Anomaly => "—",
        CellVerdict::Unsupported => "n/a",
    }
}

/// The matrix as text, then each scenario's detail.
pub fn text(cells: &[Cell]) -> String {
    let rows = rows(cells);
    let label = |r: &(String, String)| format!("{} {}", r.0, r.1);
    let width = rows.iter().map(|r| label(r).chars().count()).max().unwrap_or(0);
    let mut out = format!("{:width$}", "");
    for column in COLUMNS {
        let _ = write!(out, "  {column:>w$}", w = column.len().max(3));
    }
    out.push('\n');
    for row in &rows {
        let _ = write!(out, "{:width$}", label(row));
        for column in COLUMNS {
            let s = column_outcome(cells, &row.0, &row.1, column).map_or("", |(o, _)| symbol(o));
            let _ = write!(out, "  {s:>w$}", w = column.len().max(3));
        }
        out.push('\n');
    }
    out.push_str("\n✓ prevented   — anomaly (found by the checker)   n/a level not offered\n\n");
    for c in cells {
        let _ = writeln!(
            out,
            "{} {} {:<22} {:<10} {}",
            c.db,
            c.isolation,
            c.anomaly,
            format!("{:?}", c.outcome).to_lowercase(),
            c.how
        );
    }
    out
}

/// The matrix as a Markdown table, with each cell's how as a hover-free footnote list.
pub fn markdown(cells: &[Cell]) -> String {
    let mut out = String::from("| system | level |");
    for column in COLUMNS {
        let _ = write!(out, " {column} |");
    }
    out.push_str("\n|---|---|");
    out.push_str(&":-:|".repeat(COLUMNS.len()));
    out.push('\n');
    for row in rows(cells) {
        let _ = write!(out, "| {} | {} |", row.0, row.1);
        for column in COLUMNS {
            let s = column_outcome(cells, &row.0, &row.1, column).map_or("", |(o, _)| symbol(o));
            let _ = write!(out, " {s} |");
        }
        out.push('\n');
    }
    out.push_str("\n✓ prevented, — anomaly (found by the checker), n/a level not offered.\n\n| system | level | scenario | outcome | how | history |\n|---|---|---|---|---|---|\n");
    for c in cells {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            c.db,
            c.isolation,
            c.anomaly,
            format!("{:?}", c.outcome).to_lowercase(),
            c.how.replace('|', "\\|"),
            c.history.as_ref().map_or(String::new(), |h| format!("[{h}]({h})"))
        );
    }
    out
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The matrix as one self-contained HTML page.
pub fn html(cells: &[Cell]) -> String {
    let mut out = String::from(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>isocheck hermitage</title><style>\
         body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse}\
         td,th{border:1px solid #ccc;padding:4px 8px;text-align:center}td.l{text-align:left}\
         .prevented{background:#e6f4ea}.anomaly{background:#fce8e6}.unsupported{background:#eee}</style></head><body>\
         <h1>Hermitage matrix</h1><table><tr><th>system</th><th>level</th>",
    );
    for column in COLUMNS {
        let _ = write!(out, "<th>{}</th>", escape(column));
    }
    out.push_str("</tr>");
    for row in rows(cells) {
        let _ = write!(out, "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td>", escape(&row.0), escape(&row.1));
        for column in COLUMNS {
            match column_outcome(cells, &row.0, &row.1, column) {
                Some((o, mine)) => {
                    let title: Vec<String> = mine.iter().map(|c| format!("{}: {}", c.anomaly, c.how)).collect();
                    let class = format!("{o:?}").to_lowercase();
                    let _ =
                        write!(out, "<td class=\"{class}\" title=\"{}\">{}</td>", escape(&title.join("; ")), symbol(o));
                }
                None => out.push_str("<td></td>"),
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</table><p>✓ prevented, — anomaly (found by the checker), n/a level not offered.</p><h2>Scenarios</h2><table><tr><th>system</th><th>level</th><th>scenario</th><th>outcome</th><th>how</th><th>history</th></tr>");
    for c in cells {
        let class = format!("{:?}", c.outcome).to_lowercase();
        let history = c.history.as_ref().map_or(String::new(), |h| format!("<a href=\"{0}\">{0}</a>", escape(h)));
        let _ = write!(
            out,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"{class}\">{class}</td><td class=\"l\">{}</td><td class=\"l\">{history}</td></tr>",
            escape(&c.db),
            escape(&c.isolation),
            escape(&c.anomaly),
            escape(&c.how)
        );
    }
    out.push_str("</table></body></html>\n");
    out
}
