//! `report.md`: the same findings as `report.html`, for a pull-request comment. Tables for the verdicts,
//! the run's figures, aborts by cause (with a bar drawn in block characters), invariants and flags; each
//! anomaly's explanation in a code block, its cycle as a Mermaid flowchart (which code hosts draw as a
//! picture) and its steps and transactions as tables. Text from the history is escaped for Markdown
//! (`escape.rs`): it can neither break a table nor become HTML. Anomalies per class are capped, since
//! comments have a size limit; findings.json has them all.

use std::fmt::Write;

use checker::{Anomaly, Cycle, TxnView};

use crate::cycle_svg::step_label;
use crate::escape::{markdown as md, markdown_code_block, mermaid};
use crate::kind_style::colour;
use crate::page::json_text;
use crate::replay::Replay;
use crate::report::Report;
use crate::shape_sentence::shape_sentence;
use crate::text::verdict_word;
use crate::timeline::{first_invocation, format_ns, span_text};
use crate::verdicts::{Standing, verdicts};

/// How many anomalies of one class the Markdown shows.
pub const SHOWN_PER_CLASS: usize = 5;

/// A Markdown table: a header row and rows of already-escaped cells.
pub fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = format!("| {} |\n|{}\n", headers.join(" | "), "---|".repeat(headers.len()));
    for row in rows {
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    out
}

/// `text` as inline code in a table cell: escaped text in `<code>`, which, unlike backticks, keeps
/// pipes and backticks inside from breaking the table.
fn code(text: &str) -> String {
    format!("<code>{}</code>", md(text).replace("\\`", "&#96;"))
}

/// A bar of `value / max` in block characters, `width` cells long at most.
pub fn bar(value: f64, max: f64, width: usize) -> String {
    if max <= 0.0 {
        return String::new();
    }
    let eighths = ((value / max) * width as f64 * 8.0).round() as usize;
    let mut out = "█".repeat(eighths / 8);
    let rest = eighths % 8;
    if rest > 0 {
        out.push(['▏', '▎', '▍', '▌', '▋', '▊', '▉'][rest - 1]);
    }
    out
}

/// The whole Markdown report.
pub fn report_markdown(report: &Report<'_>) -> String {
    let result = report.result;
    let mut out = format!("## {}: {}\n\n", md(&report.title()), verdict_word(result.valid));
    let checked = &result.checked;
    let _ = write!(out, "{} history {}", md(&checked.workload), code(&report.source));
    if !checked.models.is_empty() {
        let _ = write!(out, ", checked for {}", md(&checked.models.join(", ")));
    }
    if !checked.anomalies.is_empty() {
        let _ = write!(out, "; anomalies {}", md(&checked.anomalies.join(", ")));
    }
    out.push_str(".\n\n");
    if !result.anomaly_types.is_empty() {
        let counts: Vec<String> = result
            .anomaly_types
            .iter()
            .map(|t| format!("**{}** ({})", md(t), result.anomalies.get(t).map_or(0, Vec::len)))
            .collect();
        let _ = writeln!(out, "- Anomalies: {}", counts.join(", "));
    }
    if !result.not.is_empty() {
        let _ = writeln!(out, "- Not: {}", md(&result.not.join(", ")));
    }
    if !result.also_not.is_empty() {
        let _ = writeln!(out, "- Also not: {}", md(&result.also_not.join(", ")));
    }
    let s = &result.stats;
    let _ = writeln!(out, "- {}", crate::seen::sentence(s, md));
    if let Some(exact) = crate::exact_sentence(result) {
        let _ = writeln!(out, "- Exact: {}", md(&exact));
    }
    for spot in &s.blind_spots {
        let _ = writeln!(out, "- Could not see: {}", md(spot));
    }

    out.push_str("\n### Verdict per model\n\n");
    let rows: Vec<Vec<String>> = verdicts(result)
        .into_iter()
        .map(|v| {
            let mark = match &v.standing {
                Standing::Holds => "✅ holds",
                Standing::Broken(_) => "❌ broken",
                Standing::Unknown(_) => "❔ unknown",
            };
            vec![code(&v.name), mark.to_string(), md(&v.why())]
        })
        .collect();
    out.push_str(&table(&["asked about", "verdict", "why"], &rows));

    if let Some(run) = &report.run {
        out.push_str("\n### Run\n\n");
        let rows: Vec<Vec<String>> = run.rows().into_iter().map(|(k, v)| vec![md(&k), md(&v)]).collect();
        out.push_str(&table(&["figure", "value"], &rows));
        let parameters: Vec<Vec<String>> =
            run.parameter_rows().into_iter().map(|(k, v)| vec![code(&k), md(&v)]).collect();
        if !parameters.is_empty() {
            out.push_str("\nParameters:\n\n");
            out.push_str(&table(&["parameter", "value"], &parameters));
        }
        let operations: Vec<Vec<String>> = run
            .operation_rows()
            .into_iter()
            .map(|(f, ok, fail, info)| vec![code(&f), ok.to_string(), fail.to_string(), info.to_string()])
            .collect();
        if !operations.is_empty() {
            out.push_str("\nOperations:\n\n");
            out.push_str(&table(&["operation", "ok", "fail", "info"], &operations));
        }
        let pairs: Vec<Vec<String>> =
            run.contended_rows().into_iter().map(|(what, n)| vec![md(&what), n.to_string()]).collect();
        if !pairs.is_empty() {
            out.push_str("\nContended pairs (committed transactions that overlapped and conflicted):\n\n");
            out.push_str(&table(&["pairs that", "count"], &pairs));
        }
        if !run.aborts_by_cause.is_empty() {
            out.push_str("\nAborts by cause:\n\n");
            let max = run.aborts_by_cause.values().copied().max().unwrap_or(0) as f64;
            let mut causes: Vec<(&String, &u64)> = run.aborts_by_cause.iter().collect();
            causes.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let rows: Vec<Vec<String>> =
                causes.into_iter().map(|(k, v)| vec![code(k), v.to_string(), bar(*v as f64, max, 20)]).collect();
            out.push_str(&table(&["cause", "count", ""], &rows));
        }
    }
    if let Some(activity) = &report.activity {
        let rates: Vec<f64> = activity.slices.iter().map(|s| activity.per_second(s)).collect();
        let peak = rates.iter().copied().fold(0.0, f64::max);
        let spark: String = rates.iter().map(|r| spark(*r, peak)).collect();
        let _ = writeln!(
            out,
            "\nThroughput over time ({} slices, peak {} txn/s): `{spark}`",
            format_ns(activity.slice_ns),
            crate::chart::figure(peak.round())
        );
    }

    out.push_str("\n### Invariants\n\n");
    if report.invariants.is_empty() {
        let _ =
            writeln!(out, "None checked: the {} workload has no invariants beyond isolation.", md(&checked.workload));
    } else {
        let rows: Vec<Vec<String>> = report
            .invariants
            .iter()
            .map(|i| {
                vec![
                    code(&i.name),
                    match (i.holds, i.permitted()) {
                        (true, _) => "✅ holds".to_string(),
                        (false, None) => "❌ broken".to_string(),
                        (false, Some(by)) => format!("⚠️ broken, permitted ({})", md(&by.join(", "))),
                    },
                    md(&i.explanation),
                    figures(&i.figures),
                ]
            })
            .collect();
        out.push_str(&table(&["invariant", "verdict", "what", "figures"], &rows));
    }

    out.push_str("\n### Flags\n\n");
    if result.flags.is_empty() {
        out.push_str("None raised.\n");
    } else {
        let rows: Vec<Vec<String>> = result
            .flags
            .iter()
            .map(|f| vec![format!("⚠️ {}", code(&f.name)), md(&f.message), figures(&f.figures)])
            .collect();
        out.push_str(&table(&["flag", "what it could mean", "figures"], &rows));
    }

    out.push_str("\n### Anomalies\n");
    if result.anomalies.is_empty() {
        out.push_str("\nNone found.\n");
    }
    for (name, anomalies) in &result.anomalies {
        for (i, anomaly) in anomalies.iter().take(SHOWN_PER_CLASS).enumerate() {
            out.push_str(&anomaly_markdown(name, i + 1, anomaly, report.replays.get(name, i + 1)));
        }
        if anomalies.len() > SHOWN_PER_CLASS {
            let _ =
                writeln!(out, "\n… and {} more {}, all in findings.json.", anomalies.len() - SHOWN_PER_CLASS, md(name));
        }
    }
    out
}

fn spark(rate: f64, peak: f64) -> char {
    const LEVELS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    if peak <= 0.0 || rate <= 0.0 {
        return ' ';
    }
    LEVELS[(((rate / peak) * 7.0).round() as usize).min(7)]
}

fn figures(figures: &serde_json::Map<String, serde_json::Value>) -> String {
    figures.iter().map(|(k, v)| format!("{} = {}", md(k), code(&json_text(v)))).collect::<Vec<_>>().join("<br>")
}

/// One anomaly in Markdown, with the cycle's replay (or why it has none) when given.
pub fn anomaly_markdown(name: &str, n: usize, anomaly: &Anomaly, replay: Option<&Result<Replay, String>>) -> String {
    let txns: Vec<String> = anomaly.txn_indices().iter().map(|t| format!("T{t}")).collect();
    let mut out = format!("\n#### {} #{n}: {}\n\n", md(name), txns.join(", "));
    if let Some(cycle) = anomaly.as_cycle() {
        out.push_str(&mermaid_cycle(cycle));
        out.push('\n');
    }
    if let Some(sentence) = anomaly.as_cycle().and_then(shape_sentence) {
        let _ = writeln!(out, "**{}**\n", md(&sentence));
    }
    out.push_str(&markdown_code_block("text", anomaly.explanation()));
    if let Anomaly::Cycle(cycle) = anomaly {
        let rows: Vec<Vec<String>> = cycle
            .steps
            .iter()
            .map(|s| vec![format!("T{} → T{}", s.from, s.to), code(&step_label(s)), md(&s.explanation)])
            .collect();
        out.push('\n');
        out.push_str(&table(&["dependency", "kind", "because"], &rows));
    }
    if !anomaly.ops().is_empty() {
        out.push('\n');
        out.push_str(&ops_table(anomaly.ops()));
    }
    if let Some(replay) = replay {
        out.push('\n');
        out.push_str(&replay_markdown(replay));
    }
    out
}

/// The cycle's step-by-step replay (`cycles/NAME-N.toml`), or why there is none.
fn replay_markdown(replay: &Result<Replay, String>) -> String {
    let scenario = match replay {
        Ok(scenario) => scenario,
        Err(why) => return format!("No step-by-step replay: {}.\n", md(why)),
    };
    let rows: Vec<Vec<String>> = scenario
        .statements()
        .into_iter()
        .enumerate()
        .map(|(i, (session, sql))| vec![(i + 1).to_string(), md(&session), code(&sql)])
        .collect();
    format!(
        "<details><summary>Replay step by step: cycles/{}.toml</summary>\n\n{}. Table `test` before: {}. From this directory: {}\n\n{}\n\n{}\n</details>\n",
        md(&scenario.name),
        md(&scenario.title),
        md(&scenario.rows_text()),
        code(&scenario.command()),
        md(&scenario.claims_text()),
        table(&["step", "session", "statement"], &rows)
    )
}

/// A cycle as a Mermaid flowchart: boxes for transactions, arrows labelled with kind and key,
/// coloured by kind.
pub fn mermaid_cycle(cycle: &Cycle) -> String {
    let mut out = String::from("```mermaid\nflowchart LR\n");
    for op in &cycle.ops {
        let _ = writeln!(out, "  T{}[\"T{} · p{} {}\"]", op.index, op.index, mermaid(&op.process), op.outcome);
    }
    for (i, step) in cycle.steps.iter().enumerate() {
        let arrow = match step.kind {
            checker::Kind::Process | checker::Kind::Realtime => "-.->",
            _ => "-->",
        };
        let _ = writeln!(out, "  T{} {arrow}|\"{}\"| T{}", step.from, mermaid(&step_label(step)), step.to);
        let _ = writeln!(out, "  linkStyle {i} stroke:{c},color:{c}", c = colour(step.kind));
    }
    out.push_str("```\n");
    out
}

/// The transactions as the history recorded them.
pub fn ops_table(ops: &[TxnView]) -> String {
    let start = first_invocation(ops);
    let rows: Vec<Vec<String>> = ops
        .iter()
        .map(|op| {
            let mops: Vec<String> = op.value.iter().map(ToString::to_string).collect();
            let when = span_text(start, op);
            vec![
                format!("T{}", op.index),
                md(&op.process),
                op.outcome.to_string(),
                when,
                code(&mops.join(" ")),
                op.error.as_deref().map(md).unwrap_or_default(),
            ]
        })
        .collect();
    table(&["txn", "process", "outcome", "invoked → completed", "micro-ops", "error"], &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_are_drawn_in_eighths() {
        assert_eq!(bar(10.0, 10.0, 4), "████");
        assert_eq!(bar(5.0, 10.0, 4), "██");
        assert_eq!(bar(1.0, 16.0, 2), "▏");
        assert_eq!(bar(1.0, 0.0, 4), "");
    }
}
