//! The plain-text report: the verdict on the first line (with the workload and any register
//! assumptions made), the anomalies and the models they rule out, each anomaly's explanation, and what
//! the checker saw, including what it could not see, so a valid verdict on a history that showed little
//! reads differently from a clean one. Long lists are cut with a count of what was left out; the JSON
//! holds everything.

use std::fmt::Write;

use checker::{Anomaly, CheckResult, Validity};

use crate::shape_sentence::shape_sentence;

/// How many anomalies of one class the text shows.
const SHOWN_PER_CLASS: usize = 5;

/// `VALID`, `INVALID` or `UNKNOWN`.
pub fn verdict_word(valid: Validity) -> &'static str {
    match valid {
        Validity::Valid => "VALID",
        Validity::Invalid => "INVALID",
        Validity::Unknown => "UNKNOWN",
    }
}

/// The report for a check of `source`.
pub fn text(result: &CheckResult, source: &str) -> String {
    let source = crate::escape::terminal(source);
    let mut out = String::new();
    let checked = &result.checked;
    let against = if checked.models.is_empty() { String::new() } else { checked.models.join(", ") };
    let also = if checked.anomalies.is_empty() {
        String::new()
    } else {
        format!("{}anomalies {}", if against.is_empty() { "" } else { "; " }, checked.anomalies.join(", "))
    };
    let mut workload = if checked.assumptions.is_empty() {
        checked.workload.clone()
    } else {
        format!("{} assuming {}", checked.workload, checked.assumptions.join(", "))
    };
    if checked.commit_ordered > 0 {
        let _ = write!(
            workload,
            ", writes ordered by the database's commit order of {} transactions",
            checked.commit_ordered
        );
    }
    if checked.numbered_writes > 0 {
        let _ = write!(
            workload,
            ", writes ordered by the version numbers the database gave {} of them",
            checked.numbered_writes
        );
    }
    let checked_for =
        if against.is_empty() && also.is_empty() { String::new() } else { format!(", checked for {against}{also}") };
    let _ = writeln!(out, "{source}: {} ({workload}{checked_for})", verdict_word(result.valid));
    let s = &result.stats;
    if !s.blind_spots.is_empty() {
        let data: usize =
            s.edges.iter().filter(|(k, _)| !matches!(k.as_str(), "process" | "realtime")).map(|(_, n)| n).sum();
        let _ = writeln!(
            out,
            "Caution: a partial view: {} of {} keys with a version order the history shows, {data} data dependencies \
             inferred (see \"Could not see\" below)",
            s.ordered_keys, s.keys
        );
    }
    if let Some(exact) = crate::exact_sentence(result) {
        let _ = writeln!(out, "Exact: {exact}");
    }
    if !result.anomaly_types.is_empty() {
        let counts: Vec<String> = result
            .anomaly_types
            .iter()
            .map(|t| format!("{t} ({})", result.anomalies.get(t).map_or(0, Vec::len)))
            .collect();
        let _ = writeln!(out, "Anomalies: {}", counts.join(", "));
    }
    if !result.not.is_empty() {
        let _ = writeln!(out, "Not: {}", result.not.join(", "));
    }
    if !result.also_not.is_empty() {
        let _ = writeln!(out, "Also not: {}", result.also_not.join(", "));
    }
    for flag in &result.flags {
        let _ = writeln!(out, "Warning: {}: {}", flag.name, flag.message);
    }
    for invariant in result.invariants.iter().filter(|i| i.holds) {
        let _ = writeln!(out, "Invariant held: {}: {}", invariant.name, invariant.explanation);
    }
    for invariant in result.invariants.iter().filter(|i| !i.holds) {
        if invariant.promised {
            let _ = writeln!(out, "\nInvariant broken: {}", invariant.name);
        } else {
            let _ = writeln!(
                out,
                "\nInvariant broken, as the models checked permit ({} can break it; the verdict stands): {}",
                invariant.broken_by.join(", "),
                invariant.name
            );
        }
        for line in invariant.explanation.lines() {
            let _ = writeln!(out, "  {line}");
        }
    }
    for (name, anomalies) in &result.anomalies {
        for (i, anomaly) in anomalies.iter().take(SHOWN_PER_CLASS).enumerate() {
            anomaly_block(&mut out, name, i + 1, anomaly);
        }
        if anomalies.len() > SHOWN_PER_CLASS {
            let _ =
                writeln!(out, "\n... and {} more {name} (all are in --format json)", anomalies.len() - SHOWN_PER_CLASS);
        }
    }
    let _ = write!(out, "\n{}", crate::seen::sentence(s, str::to_string));
    out.push('\n');
    for spot in &s.blind_spots {
        let _ = writeln!(out, "Could not see: {spot}");
    }
    crate::escape::terminal_text(&out).into_owned()
}

/// One anomaly as the report explains it, after a blank line: its name, number and transactions, the
/// sentence naming its shape, and its explanation, indented (unescaped: the caller escapes the whole).
pub(crate) fn anomaly_block(out: &mut String, name: &str, number: usize, anomaly: &Anomaly) {
    let txns: Vec<String> = anomaly.txn_indices().iter().map(|t| format!("T{t}")).collect();
    let _ = writeln!(
        out,
        "\n{name} #{number}{}",
        if txns.is_empty() { String::new() } else { format!(": {}", txns.join(", ")) }
    );
    if let Some(sentence) = anomaly.as_cycle().and_then(shape_sentence) {
        let _ = writeln!(out, "  {sentence}\n");
    }
    for line in anomaly.explanation().lines() {
        if line.is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "  {line}");
        }
    }
}
