//! Snapshots of every text the findings render for two fixed anomalous histories: the bundled write
//! skew (one G2-item cycle) and `realtime-g1a-g1c.jsonl` (a stale read as a real-time cycle, a read of
//! an aborted append, and a three-transaction write-read cycle). A change of wording or layout shows up
//! here as a reviewed diff (`cargo insta review`, or `INSTA_UPDATE=always cargo test`).

use replay::report_replays::replays;

use crate::common::{check, example, run_summary};
use checker::Anomaly;
use findings::{JunitOptions, Report};

fn cycles(result: &checker::CheckResult) -> Vec<(String, usize, &checker::Cycle)> {
    let mut out = Vec::new();
    for (name, anomalies) in &result.anomalies {
        for (i, anomaly) in anomalies.iter().enumerate() {
            if let Anomaly::Cycle(c) = anomaly {
                out.push((name.clone(), i + 1, c));
            }
        }
    }
    out
}

#[test]
fn write_skew() {
    let (history, source) = example("write-skew.jsonl");
    let result = check(&history, &[]);
    let report = Report::check(&source, &result).with_replays(replays(&result)).with_history(&history);
    insta::assert_snapshot!("write_skew.txt", findings::text(&result, &source));
    insta::assert_snapshot!("write_skew.json", findings::json(&result));
    insta::assert_snapshot!("write_skew.md", findings::report_markdown(&report));
    insta::assert_snapshot!("write_skew.junit.xml", findings::report_junit(&report, JunitOptions::default()));
    let (name, n, cycle) = cycles(&result).remove(0);
    insta::assert_snapshot!("write_skew.G2-item-1.dot", findings::dot(&name, n, cycle));
    insta::assert_snapshot!("write_skew.G2-item-1.svg", findings::cycle_svg(&name, n, cycle));
}

#[test]
fn realtime_g1a_g1c() {
    let (history, source) = example("realtime-g1a-g1c.jsonl");
    let result = check(&history, &["strict-serializable", "snapshot-isolation"]);
    assert_eq!(result.anomaly_types, ["G-single-item-realtime", "G1a", "G1c"]);
    let report = Report::check(&source, &result).with_replays(replays(&result)).with_history(&history);
    insta::assert_snapshot!("realtime_g1a_g1c.txt", findings::text(&result, &source));
    insta::assert_snapshot!("realtime_g1a_g1c.json", findings::json(&result));
    insta::assert_snapshot!("realtime_g1a_g1c.md", findings::report_markdown(&report));
    insta::assert_snapshot!("realtime_g1a_g1c.junit.xml", findings::report_junit(&report, JunitOptions::default()));
    for (name, n, cycle) in cycles(&result) {
        insta::assert_snapshot!(format!("realtime_g1a_g1c.{name}-{n}.dot"), findings::dot(&name, n, cycle));
    }
}

#[test]
fn read_only_anomaly() {
    // The shape of the PostgreSQL 15 finding (testdata/postgres-15-serializable/E-s3103.jsonl), cut down:
    // T6 only reads, sees T4's append to 612 and misses T7's to 604, and T7 missed T4's append.
    let (history, source) = example("read-only-anomaly.jsonl");
    let result = check(&history, &["serializable"]);
    assert_eq!(result.anomaly_types, ["G2-item"]);
    let report = Report::check(&source, &result).with_replays(replays(&result)).with_history(&history);
    insta::assert_snapshot!("read_only_anomaly.txt", findings::text(&result, &source));
    insta::assert_snapshot!("read_only_anomaly.json", findings::json(&result));
    insta::assert_snapshot!("read_only_anomaly.md", findings::report_markdown(&report));
    let sentence = "This is the read-only anomaly (Fekete, O&#39;Neil and O&#39;Neil 2004): T6 only read";
    let html = findings::report_html(&report);
    assert!(html.contains(&format!("<p class=\"shape\">{sentence}")), "{html}");
}

#[test]
fn near_miss_a_write_skew_is_not_labelled_read_only() {
    // The write skew's cycle has two anti-dependencies, but both its transactions wrote.
    let (history, source) = example("write-skew.jsonl");
    let result = check(&history, &["serializable"]);
    let report = Report::check(&source, &result).with_replays(replays(&result)).with_history(&history);
    assert!(!findings::text(&result, &source).contains("read-only anomaly"));
    assert!(!findings::report_markdown(&report).contains("read-only anomaly"));
    assert!(!findings::report_html(&report).contains("read-only anomaly"));
    assert!(!findings::json(&result).contains("\"shape\""));
}

#[test]
fn a_run_report_shows_its_figures_and_aborts_by_cause() {
    let (history, _) = example("write-skew.jsonl");
    let result = check(&history, &["serializable"]);
    let report = Report::check("runs/x/history.jsonl", &result)
        .with_replays(replays(&result))
        .with_history(&history)
        .with_run(run_summary());
    insta::assert_snapshot!("run.md", findings::report_markdown(&report));
    insta::assert_snapshot!("run.junit.xml", findings::report_junit(&report, JunitOptions::default()));
}
