//! `report.html`: one run's or check's findings as one self-contained page. In order: the verdict and
//! what was checked; the verdict on each model and anomaly asked about; for a run, its figures with
//! its throughput over time and its aborts by cause as charts; invariant results; flags with their
//! figures; then every anomaly with its explanation, the picture of its cycle, the timeline of its
//! transactions and the transactions as recorded. Each section is its own public function, so a
//! side-by-side report can place the same sections in its cells. All text from the history is escaped
//! (`page.rs` and `svg.rs` do it; nothing here writes history text any other way).

use std::fmt::Write;

use checker::{Anomaly, Kind, TxnView};

use crate::chart::{FAIL_COLOUR, activity_chart, bar_chart};
use crate::cycle_svg::{cycle_svg, step_label};
use crate::escape::Xml;
use crate::kind_style::{colour, meaning};
use crate::page::{Cell, badge, document, facts_table, figure, json_text, para, table, validity_class};
use crate::replay::Replay;
use crate::report::Report;
use crate::seen;
use crate::shape_sentence::shape_sentence;
use crate::text::verdict_word;
use crate::timeline::{first_invocation, span_text, timeline_svg};
use crate::verdicts::verdicts;

/// How many anomalies of one class the page shows in full (the rest are in findings.json).
pub const SHOWN_PER_CLASS: usize = 20;

/// The whole page.
pub fn report_html(report: &Report<'_>) -> String {
    let mut body = header(report);
    if let Some(shrunk) = report.shrunk {
        body.push_str(&crate::shrunk::shrunk_html(shrunk));
    }
    body.push_str(&summary_section(report));
    body.push_str(&verdicts_section(report));
    if report.run.is_some() || report.activity.is_some() {
        body.push_str(&run_section(report));
    }
    body.push_str(&invariants_section(report));
    body.push_str(&flags_section(report));
    body.push_str(&anomalies_section(report));
    body.push_str(
        "<footer>Written by isocheck. Anomaly names and the models they rule out follow Jepsen's Elle; \
                   every figure here is also in findings.json.</footer>\n",
    );
    document(&report.title(), &body)
}

fn header(report: &Report<'_>) -> String {
    let result = report.result;
    let mut out = format!("<header>\n<h1>{}</h1>\n", Xml(&report.title()));
    let _ = writeln!(
        out,
        "<p class=\"verdict\">{} <span class=\"muted\">{}</span></p>",
        badge(validity_class(result.valid), verdict_word(result.valid)),
        Xml(&checked_line(report))
    );
    out.push_str("<nav>");
    if report.shrunk.is_some() {
        out.push_str("<a href=\"#shrunk\">Shrunk</a>");
    }
    out.push_str("<a href=\"#summary\">Summary</a><a href=\"#verdicts\">Verdicts</a>");
    if report.run.is_some() {
        out.push_str("<a href=\"#run\">Run</a>");
    } else if report.activity.is_some() {
        out.push_str("<a href=\"#run\">Activity</a>");
    }
    out.push_str("<a href=\"#invariants\">Invariants</a><a href=\"#flags\">Flags</a><a href=\"#anomalies\">Anomalies</a></nav>\n");
    out.push_str("</header>\n");
    out
}

/// "list-append history <source>, checked for <models>; anomalies <names>".
fn checked_line(report: &Report<'_>) -> String {
    let checked = &report.result.checked;
    let mut line = format!("{} history {}", checked.workload, report.source);
    if !checked.models.is_empty() {
        let _ = write!(line, ", checked for {}", checked.models.join(", "));
    }
    if !checked.anomalies.is_empty() {
        let _ = write!(line, "; anomalies {}", checked.anomalies.join(", "));
    }
    line
}

/// The verdict, what was found, the models ruled out, and what the checker saw.
pub fn summary_section(report: &Report<'_>) -> String {
    let result = report.result;
    let s = &result.stats;
    let mut rows: Vec<(String, Cell)> = vec![
        ("verdict".into(), Cell::Html(badge(validity_class(result.valid), verdict_word(result.valid)))),
        ("history".into(), Cell::Code(report.source.clone())),
        ("workload".into(), Cell::Text(result.checked.workload.clone())),
    ];
    if !result.checked.models.is_empty() {
        rows.push(("models checked".into(), Cell::Text(result.checked.models.join(", "))));
    }
    if !result.checked.anomalies.is_empty() {
        rows.push(("anomalies checked".into(), Cell::Text(result.checked.anomalies.join(", "))));
    }
    let found: Vec<String> = result
        .anomaly_types
        .iter()
        .map(|t| {
            format!(
                "<a href=\"#{}\">{}</a> ({})",
                Xml(&anchor(t, 1)),
                Xml(t),
                result.anomalies.get(t).map_or(0, Vec::len)
            )
        })
        .collect();
    rows.push((
        "anomalies found".into(),
        if found.is_empty() { Cell::Text("none".into()) } else { Cell::Html(found.join(", ")) },
    ));
    if !result.not.is_empty() {
        rows.push(("not".into(), Cell::Text(result.not.join(", "))));
    }
    if !result.also_not.is_empty() {
        rows.push(("also not".into(), Cell::Text(result.also_not.join(", "))));
    }
    rows.push(("transactions".into(), Cell::Text(format!("{} in {} operations", seen::transactions(s), s.ops))));
    rows.push(("keys".into(), Cell::Text(seen::keys(s))));
    rows.push(("dependencies".into(), Cell::Text(seen::dependencies(s))));
    if let Some(cyclic) = seen::cyclic_components(s) {
        rows.push(("cyclic components".into(), Cell::Text(cyclic)));
    }
    if let Some(exact) = crate::exact_sentence(result) {
        rows.push(("exact".into(), Cell::Text(exact)));
    }
    for spot in &s.blind_spots {
        rows.push(("could not see".into(), Cell::Text(spot.clone())));
    }
    format!("<section id=\"summary\">\n<h2>Summary</h2>\n{}</section>\n", facts_table(&rows))
}

/// The verdict on each model and anomaly asked about.
pub fn verdicts_section(report: &Report<'_>) -> String {
    let rows: Vec<Vec<Cell>> = verdicts(report.result)
        .into_iter()
        .map(|v| vec![Cell::Code(v.name.clone()), Cell::Html(badge(v.word(), v.word())), Cell::Text(v.why())])
        .collect();
    let body = if rows.is_empty() {
        para("muted", "Nothing was asked about.")
    } else {
        table("verdicts", &["asked about", "verdict", "why"], &rows)
    };
    format!("<section id=\"verdicts\">\n<h2>Verdict per model</h2>\n{body}</section>\n")
}

/// What the run did: its settings and figures, throughput over time and aborts by cause (for a check,
/// only the history's completions over time).
pub fn run_section(report: &Report<'_>) -> String {
    let heading = if report.run.is_some() { "Run" } else { "Activity" };
    let mut out = format!("<section id=\"run\">\n<h2>{heading}</h2>\n");
    if let Some(run) = &report.run {
        let rows: Vec<(String, Cell)> = run.rows().into_iter().map(|(k, v)| (k, Cell::Text(v))).collect();
        out.push_str(&facts_table(&rows));
        out.push_str(&run_tables(run));
    }
    if let Some(activity) = &report.activity {
        let svg = activity_chart("Throughput over time", activity);
        out.push_str(&figure("chart throughput", &svg, "Transactions completed per second, by outcome"));
    }
    if let Some(run) = &report.run {
        if run.aborts_by_cause.is_empty() {
            out.push_str(&para("muted", "No transaction aborted or ended indeterminate."));
        } else {
            let mut rows: Vec<(String, f64)> =
                run.aborts_by_cause.iter().map(|(k, v)| (k.clone(), *v as f64)).collect();
            rows.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            let svg = bar_chart("Aborts by cause", &rows, FAIL_COLOUR);
            let caption = format!(
                "Aborts and indeterminate outcomes by cause ({:.1}% of transactions aborted)",
                run.abort_rate() * 100.0
            );
            out.push_str(&figure("chart aborts", &svg, &caption));
        }
    }
    out.push_str("</section>\n");
    out
}

/// A run's parameters, transactions by name and contended pairs, each as a table (absent ones left out).
fn run_tables(run: &crate::RunSummary) -> String {
    let mut out = String::new();
    let parameters: Vec<Vec<Cell>> =
        run.parameter_rows().into_iter().map(|(k, v)| vec![Cell::Code(k), Cell::Text(v)]).collect();
    if !parameters.is_empty() {
        out.push_str("<h3>Parameters</h3>\n");
        out.push_str(&table("parameters", &["parameter", "value"], &parameters));
    }
    let operations: Vec<Vec<Cell>> = run
        .operation_rows()
        .into_iter()
        .map(|(f, ok, fail, info)| {
            vec![Cell::Code(f), Cell::Text(ok.to_string()), Cell::Text(fail.to_string()), Cell::Text(info.to_string())]
        })
        .collect();
    if !operations.is_empty() {
        out.push_str("<h3>Operations</h3>\n");
        out.push_str(&table("operations", &["operation", "ok", "fail", "info"], &operations));
    }
    let pairs: Vec<Vec<Cell>> =
        run.contended_rows().into_iter().map(|(what, n)| vec![Cell::Text(what), Cell::Text(n.to_string())]).collect();
    if !pairs.is_empty() {
        out.push_str("<h3>Contended pairs</h3>\n");
        out.push_str(&para("muted", "Committed transactions that overlapped and conflicted, by their recorded times."));
        out.push_str(&table("contended", &["pairs that", "count"], &pairs));
    }
    out
}

/// Invariant results with their figures.
pub fn invariants_section(report: &Report<'_>) -> String {
    let body = if report.invariants.is_empty() {
        para(
            "muted",
            &format!(
                "None checked: the {} workload has no invariants beyond isolation.",
                report.result.checked.workload
            ),
        )
    } else {
        let rows: Vec<Vec<Cell>> = report
            .invariants
            .iter()
            .map(|i| {
                let (word, class) = match (i.holds, i.permitted()) {
                    (true, _) => ("holds", "holds"),
                    (false, None) => ("broken", "broken"),
                    (false, Some(_)) => ("broken, permitted", "unknown"),
                };
                vec![
                    Cell::Code(i.name.clone()),
                    Cell::Html(badge(class, word)),
                    Cell::Text(i.explanation.clone()),
                    figures_cell(&i.figures),
                ]
            })
            .collect();
        table("invariants", &["invariant", "verdict", "what", "figures"], &rows)
    };
    format!("<section id=\"invariants\">\n<h2>Invariants</h2>\n{body}</section>\n")
}

/// Flags raised, each with what it means and the figures behind it.
pub fn flags_section(report: &Report<'_>) -> String {
    let flags = &report.result.flags;
    let body = if flags.is_empty() {
        para("muted", "None raised.")
    } else {
        let rows: Vec<Vec<Cell>> = flags
            .iter()
            .map(|f| {
                vec![Cell::Html(badge("warning", &f.name)), Cell::Text(f.message.clone()), figures_cell(&f.figures)]
            })
            .collect();
        table("flags", &["flag", "what it could mean", "figures"], &rows)
    };
    format!("<section id=\"flags\">\n<h2>Flags</h2>\n{body}</section>\n")
}

fn figures_cell(figures: &serde_json::Map<String, serde_json::Value>) -> Cell {
    if figures.is_empty() {
        return Cell::Text(String::new());
    }
    let rows: Vec<(String, Cell)> = figures.iter().map(|(k, v)| (k.clone(), Cell::Code(json_text(v)))).collect();
    Cell::Html(facts_table(&rows))
}

/// The id of the `n`th anomaly of class `name`.
fn anchor(name: &str, n: usize) -> String {
    format!("{name}-{n}")
}

/// Every anomaly, by class.
pub fn anomalies_section(report: &Report<'_>) -> String {
    let mut out = String::from("<section id=\"anomalies\">\n<h2>Anomalies</h2>\n");
    if report.result.anomalies.is_empty() {
        out.push_str(&para("muted", "None found."));
    } else {
        out.push_str(&legend());
    }
    for (name, anomalies) in &report.result.anomalies {
        for (i, anomaly) in anomalies.iter().take(SHOWN_PER_CLASS).enumerate() {
            out.push_str(&anomaly_article(name, i + 1, anomaly, report.replays.get(name, i + 1)));
        }
        if anomalies.len() > SHOWN_PER_CLASS {
            out.push_str(&para(
                "muted",
                &format!("… and {} more {name}, all in findings.json.", anomalies.len() - SHOWN_PER_CLASS),
            ));
        }
    }
    out.push_str("</section>\n");
    out
}

/// What each edge colour means.
fn legend() -> String {
    let mut out = String::from("<p class=\"legend\">");
    for kind in [Kind::Ww, Kind::Wr, Kind::Rw, Kind::Process, Kind::Realtime] {
        let style = match kind {
            Kind::Process => "dashed",
            Kind::Realtime => "dotted",
            _ => "solid",
        };
        let _ = write!(
            out,
            "<span><i style=\"border-top-color: {}; border-top-style: {style}\"></i><b>{}</b> {}</span>",
            colour(kind),
            kind.name(),
            Xml(meaning(kind))
        );
    }
    out.push_str("</p>\n");
    out
}

/// One anomaly: its explanation, its cycle's picture and steps, the timeline and the transactions, and
/// the cycle's replay (or why it has none) when given.
pub fn anomaly_article(name: &str, n: usize, anomaly: &Anomaly, replay: Option<&Result<Replay, String>>) -> String {
    let txns: Vec<String> = anomaly.txn_indices().iter().map(|t| format!("T{t}")).collect();
    let mut out = format!(
        "<article class=\"anomaly\" id=\"{}\" data-anomaly=\"{}\">\n<h3>{} #{n} <span class=\"muted\">{}</span></h3>\n",
        Xml(&anchor(name, n)),
        Xml(name),
        Xml(name),
        Xml(&txns.join(", "))
    );
    if let Some(cycle) = anomaly.as_cycle() {
        out.push_str(&figure(
            "cycle",
            &cycle_svg(name, n, cycle),
            "The dependency cycle: hover an arrow for why it holds",
        ));
    }
    if let Some(sentence) = anomaly.as_cycle().and_then(shape_sentence) {
        out.push_str(&para("shape", &sentence));
    }
    let _ = writeln!(out, "<pre class=\"explanation\">{}</pre>", Xml(anomaly.explanation()));
    match anomaly {
        Anomaly::Cycle(cycle) => {
            let rows: Vec<Vec<Cell>> = cycle
                .steps
                .iter()
                .map(|s| {
                    vec![
                        Cell::Code(format!("T{} → T{}", s.from, s.to)),
                        Cell::Html(format!("<b style=\"color: {}\">{}</b>", colour(s.kind), Xml(&step_label(s)))),
                        Cell::Text(s.explanation.clone()),
                    ]
                })
                .collect();
            out.push_str(&table("steps", &["dependency", "kind", "because"], &rows));
            if !cycle.facts.is_empty() {
                let rows: Vec<(String, Cell)> =
                    cycle.facts.iter().map(|(k, v)| (k.clone(), Cell::Code(json_text(v)))).collect();
                out.push_str(&facts_table(&rows));
            }
        }
        Anomaly::Case(case) => {
            let mut rows: Vec<(String, Cell)> = Vec::new();
            if let Some(key) = &case.key {
                rows.push(("key".into(), Cell::Code(key.to_string())));
            }
            rows.extend(case.facts.iter().map(|(k, v)| (k.clone(), Cell::Code(json_text(v)))));
            if !rows.is_empty() {
                out.push_str(&facts_table(&rows));
            }
        }
    }
    if let Some(svg) = timeline_svg(&format!("When the transactions of {name} #{n} ran"), anomaly.ops()) {
        out.push_str(&figure(
            "timeline",
            &svg,
            "Invocation to completion of each transaction, from the first invocation shown",
        ));
    }
    if !anomaly.ops().is_empty() {
        out.push_str(&ops_table(anomaly.ops()));
    }
    if let Some(replay) = replay {
        out.push_str(&replay_html(replay));
    }
    out.push_str("</article>\n");
    out
}

/// The cycle's step-by-step replay (`cycles/NAME-N.toml`), or why there is none.
fn replay_html(replay: &Result<Replay, String>) -> String {
    let scenario = match replay {
        Ok(scenario) => scenario,
        Err(why) => {
            return format!("<p class=\"muted replay\">No step-by-step replay: {}.</p>\n", Xml(why));
        }
    };
    let rows: Vec<Vec<Cell>> = scenario
        .statements()
        .into_iter()
        .enumerate()
        .map(|(i, (session, sql))| vec![Cell::Text((i + 1).to_string()), Cell::Text(session), Cell::Code(sql)])
        .collect();
    format!(
        "<details class=\"replay\"><summary>Replay step by step: <code>cycles/{}.toml</code></summary>\n<p>{}. Table <code>test</code> before: {}. From this directory: <code>{}</code></p>\n<p class=\"claims\">{}</p>\n{}</details>\n",
        Xml(&scenario.name),
        Xml(&scenario.title),
        Xml(&scenario.rows_text()),
        Xml(&scenario.command()),
        Xml(&scenario.claims_text()),
        table("replay", &["step", "session", "statement"], &rows)
    )
}

/// The transactions as the history recorded them.
pub fn ops_table(ops: &[TxnView]) -> String {
    let start = first_invocation(ops);
    let rows: Vec<Vec<Cell>> = ops
        .iter()
        .map(|op| {
            let mops: Vec<String> = op.value.iter().map(ToString::to_string).collect();
            let when = span_text(start, op);
            vec![
                Cell::Code(format!("T{}", op.index)),
                Cell::Text(op.process.clone()),
                Cell::Text(op.outcome.to_string()),
                Cell::Text(when),
                Cell::Code(mops.join(" ")),
                Cell::Text(op.error.clone().unwrap_or_default()),
            ]
        })
        .collect();
    table("ops", &["txn", "process", "outcome", "invoked → completed", "micro-ops", "error"], &rows)
}
