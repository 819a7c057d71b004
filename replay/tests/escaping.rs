//! Text from a history is text, never markup: keys and error messages holding `<script>` (and other
//! tags, quotes and ampersands) come out escaped in the HTML report and in every SVG picture, and as
//! plain text in Markdown.

use replay::report_replays::replays;

use crate::common::{check, parse};
use findings::{JunitOptions, Report};

const SCRIPT_KEY: &str = "<script>alert('key')</script>";
const IMG_KEY: &str = "\"><img src=x onerror=alert(1)>";
const SCRIPT_ERROR: &str = "<script>alert(\"error\")</script> & more";

/// A write skew on two keys whose names are markup, and an aborted append whose error is markup (read
/// by a later transaction: a G1a).
fn hostile_history() -> checker::CheckResult {
    let k1 = serde_json::to_string(SCRIPT_KEY).unwrap();
    let k2 = serde_json::to_string(IMG_KEY).unwrap();
    let err = serde_json::to_string(SCRIPT_ERROR).unwrap();
    let text = format!(
        r#"{{"type":"invoke","process":0,"time":0,"value":[["append",{k1},1],["r",{k2},null]]}}
{{"type":"invoke","process":1,"time":10,"value":[["append",{k2},1],["r",{k1},null]]}}
{{"type":"ok","process":0,"time":20,"value":[["append",{k1},1],["r",{k2},[]]]}}
{{"type":"ok","process":1,"time":30,"value":[["append",{k2},1],["r",{k1},[]]]}}
{{"type":"invoke","process":2,"time":40,"value":[["append",{k1},9]]}}
{{"type":"fail","process":2,"time":50,"value":[["append",{k1},9]],"error":{err}}}
{{"type":"invoke","process":3,"time":60,"value":[["r",{k1},null],["r",{k2},null]]}}
{{"type":"ok","process":3,"time":70,"value":[["r",{k1},[1,9]],["r",{k2},[1]]]}}
"#
    );
    let result = check(&parse(&text), &[]);
    assert!(result.anomaly_types.contains(&"G2-item".to_string()), "{:?}", result.anomaly_types);
    assert!(result.anomaly_types.contains(&"G1a".to_string()), "{:?}", result.anomaly_types);
    result
}

fn assert_no_markup(doc: &str) {
    let lower = doc.to_lowercase();
    assert!(!lower.contains("<script"), "a <script> tag got through");
    assert!(!lower.contains("<img"), "an <img> tag got through");
}

#[test]
fn the_html_report_shows_markup_in_keys_and_errors_as_text() {
    let result = hostile_history();
    let report = Report::check("<script>source</script>.jsonl", &result).with_replays(replays(&result));
    let html = findings::report_html(&report);
    assert_no_markup(&html);
    assert!(html.contains("&lt;script&gt;alert(&#39;key&#39;)&lt;/script&gt;"), "the key is shown, escaped");
    assert!(html.contains("&lt;script&gt;alert(&quot;error&quot;)&lt;/script&gt; &amp; more"), "the error too");
    assert!(html.contains("&lt;script&gt;source&lt;/script&gt;.jsonl"), "and the source's name");
}

#[test]
fn cycle_pictures_hold_markup_as_text_nodes() {
    let result = hostile_history();
    let cycle = result.anomalies["G2-item"][0].as_cycle().unwrap();
    let svg = findings::cycle_svg("G2-item", 1, cycle);
    assert_no_markup(&svg);
    let doc = roxmltree::Document::parse(&svg).expect("the picture is well-formed XML");
    let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).collect();
    assert!(texts.iter().any(|t| t.contains(SCRIPT_KEY)), "the key is in the picture as text: {texts:?}");
    assert!(texts.iter().any(|t| t.contains(IMG_KEY)));
    assert!(doc.descendants().all(|n| !matches!(n.tag_name().name(), "script" | "img")));
}

#[test]
fn timelines_hold_error_messages_as_text_nodes() {
    let result = hostile_history();
    let g1a = &result.anomalies["G1a"][0];
    let svg = findings::timeline_svg("G1a", g1a.ops()).expect("the history has times");
    assert_no_markup(&svg);
    let doc = roxmltree::Document::parse(&svg).expect("well-formed");
    assert!(doc.descendants().filter_map(|n| n.text()).any(|t| t.contains(SCRIPT_ERROR)));
}

#[test]
fn markdown_and_junit_keep_markup_inert() {
    let result = hostile_history();
    let report = Report::check("h.jsonl", &result).with_replays(replays(&result));
    let md = findings::report_markdown(&report);
    // Code blocks hold text verbatim (no Markdown renderer runs HTML inside them); outside them, no tag.
    let outside_code: String = md.split("```").step_by(2).collect();
    assert_no_markup(&outside_code);
    let junit = findings::report_junit(&report, JunitOptions::default());
    assert_no_markup(&junit);
    roxmltree::Document::parse(&junit).expect("junit.xml is well-formed");
}

#[test]
fn a_runs_parameters_and_operation_names_are_escaped_in_their_tables() {
    let run = findings::RunSummary::from_json(&serde_json::json!({
        "db": "engine", "workload": "bank",
        "parameters": {SCRIPT_KEY: IMG_KEY, "accounts": 5},
        "operations": {SCRIPT_ERROR: {"ok": 1, "fail": 2}},
        "contended_pairs": {"write_write": 4, "read_write": 0},
    }))
    .expect("a summary");
    let result = check(
        &parse(
            r#"{"type":"invoke","process":0,"value":[["r","x",null]]}
{"type":"ok","process":0,"value":[["r","x",[]]]}"#,
        ),
        &[],
    );
    let report = Report::check("run.jsonl", &result).with_run(run);
    let html = findings::report_html(&report);
    assert_no_markup(&html);
    assert!(html.contains("<h3>Parameters</h3>") && html.contains("<h3>Operations</h3>"), "tables, not JSON");
    assert!(html.contains("<td><code>accounts</code></td><td>5</td>"), "a parameter is a row");
    assert!(html.contains("<td>wrote a key in common</td><td>4</td>"), "a contended pair count is a row");
    let md = findings::report_markdown(&report);
    assert_no_markup(&md);
    assert!(md.contains("| <code>accounts</code> | 5 |"), "{md}");
    assert!(md.contains("| 1 | 2 | 0 |"), "an operation's counts are a row: {md}");
}
