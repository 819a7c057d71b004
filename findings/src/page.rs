//! The HTML page every report is written into, and the small pieces its sections are built from: a
//! self-contained document (inline CSS, no scripts, no fonts or images fetched, and a Content Security
//! Policy that forbids both, so the page stays inert even opened from a CI artifact), tables whose cells
//! are escaped, and verdict badges. `html.rs` builds one run's report from these; a side-by-side
//! report builds its grid from the same pieces.

use std::fmt::Write;

use checker::Validity;

use crate::escape::Xml;

/// Forbids every fetch and every script: the page needs only its own inline styles.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

const CSS: &str = r#"
:root { --fg: #1d1d1f; --muted: #5f6368; --line: #dadce0; --bg: #ffffff; --panel: #f7f8fa;
  --ok: #1e7d32; --bad: #c62828; --unknown: #a15c00; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: var(--bg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1100px; margin: 0 auto; padding: 24px 20px 64px; }
h1 { font-size: 24px; margin: 0 0 4px; word-break: break-word; }
h2 { font-size: 19px; margin: 36px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 16px; margin: 24px 0 8px; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 13px; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px;
  overflow-x: auto; white-space: pre-wrap; word-break: break-word; }
table { border-collapse: collapse; margin: 8px 0 16px; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: 5px 10px; border-bottom: 1px solid var(--line); word-break: break-word; }
th { background: var(--panel); font-weight: 600; word-break: normal; white-space: nowrap; }
table.ops td:nth-child(-n+4), table.steps td:first-child, table.verdicts td:nth-child(-n+2) { white-space: nowrap; }
table.facts th { width: 220px; background: none; font-weight: 500; color: var(--muted); }
.badge { display: inline-block; padding: 1px 9px; border-radius: 10px; font-weight: 700; font-size: 13px; color: #fff; }
.badge.valid, .badge.holds { background: var(--ok); }
.badge.invalid, .badge.broken { background: var(--bad); }
.badge.unknown, .badge.warning { background: var(--unknown); }
header .verdict { font-size: 16px; margin: 8px 0; }
nav { margin: 12px 0; font-size: 14px; }
nav a { margin-right: 12px; }
.muted { color: var(--muted); }
figure { margin: 12px 0; overflow-x: auto; }
figure svg { max-width: 100%; height: auto; }
figcaption { font-size: 13px; color: var(--muted); }
article.anomaly { border: 1px solid var(--line); border-radius: 8px; padding: 4px 16px 12px; margin: 16px 0; }
.legend span { margin-right: 14px; white-space: nowrap; }
.legend i { display: inline-block; width: 22px; height: 0; border-top: 2px solid; vertical-align: middle; margin-right: 5px; }
footer { margin-top: 48px; font-size: 13px; color: var(--muted); }
"#;

/// A complete HTML document: `title` (escaped) and `body` (already HTML).
pub fn document(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n\
         <title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n{body}</main>\n</body>\n</html>\n",
        Xml(title)
    )
}

/// The CSS class and word of a verdict.
pub fn validity_class(valid: Validity) -> &'static str {
    match valid {
        Validity::Valid => "valid",
        Validity::Invalid => "invalid",
        Validity::Unknown => "unknown",
    }
}

/// A badge: `class` is one of the page's own classes (`valid`, `broken`, ...), `text` is escaped.
pub fn badge(class: &str, text: &str) -> String {
    format!("<span class=\"badge {class}\">{}</span>", Xml(text))
}

/// A table cell's content: text to escape, or HTML the caller built (from escaped parts).
pub enum Cell {
    /// Plain text, escaped when written.
    Text(String),
    /// Text in a monospace font, escaped when written.
    Code(String),
    /// HTML built by the caller.
    Html(String),
}

impl Cell {
    fn write(&self, out: &mut String) {
        let _ = match self {
            Cell::Text(t) => write!(out, "{}", Xml(t)),
            Cell::Code(t) => write!(out, "<code>{}</code>", Xml(t)),
            Cell::Html(h) => write!(out, "{h}"),
        };
    }
}

/// A table with a header row (escaped) and rows of cells.
pub fn table(class: &str, headers: &[&str], rows: &[Vec<Cell>]) -> String {
    let mut out = format!("<table class=\"{class}\">");
    if !headers.is_empty() {
        out.push_str("<thead><tr>");
        for h in headers {
            let _ = write!(out, "<th>{}</th>", Xml(h));
        }
        out.push_str("</tr></thead>");
    }
    out.push_str("<tbody>");
    for row in rows {
        out.push_str("<tr>");
        for cell in row {
            out.push_str("<td>");
            cell.write(&mut out);
            out.push_str("</td>");
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>\n");
    out
}

/// A two-column table of (name, value) facts, the names as row headers.
pub fn facts_table(rows: &[(String, Cell)]) -> String {
    let mut out = String::from("<table class=\"facts\"><tbody>");
    for (name, value) in rows {
        let _ = write!(out, "<tr><th scope=\"row\">{}</th><td>", Xml(name));
        value.write(&mut out);
        out.push_str("</td></tr>");
    }
    out.push_str("</tbody></table>\n");
    out
}

/// An inline SVG picture with a caption (escaped).
pub fn figure(class: &str, svg: &str, caption: &str) -> String {
    format!("<figure class=\"{class}\">{svg}<figcaption>{}</figcaption></figure>\n", Xml(caption))
}

/// A paragraph of escaped text.
pub fn para(class: &str, text: &str) -> String {
    format!("<p class=\"{class}\">{}</p>\n", Xml(text))
}

/// A figure's value as a table shows it: strings as they are, anything else as compact JSON.
pub fn json_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
