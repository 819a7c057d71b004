//! Final reads (`lost`, `stale`), each proven both ways on the saved histories of
//! `testdata/final-reads/`: where it must fire, with the write, its node and the faults around it, and
//! the near misses where it must not (an indeterminate write, a final read that overlapped the write, a
//! register overwritten later). Both are real-time findings: a model without real time does not report
//! them unless asked for by name.

use checker::{Anomaly, Options, Validity, check};
use histories::{Format, History, parse};

fn load(name: &str) -> History {
    let path = format!("{}/../testdata/final-reads/{name}.jsonl", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    parse(&text, Format::JsonLines, &path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn options(models: &[&str], anomalies: &[&str]) -> Options {
    let own = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    Options::new(&own(models), &own(anomalies)).expect("valid options")
}

/// The anomaly names the history shows under strict serializability.
fn strict(name: &str) -> checker::CheckResult {
    check(&load(name), &options(&["strict-serializable"], &[])).expect("the history checks")
}

fn case(anomaly: &Anomaly) -> &checker::Case {
    match anomaly {
        Anomaly::Case(c) => c,
        Anomaly::Cycle(_) => panic!("a case, not a cycle"),
    }
}

#[test]
fn an_acknowledged_append_no_final_read_shows_is_lost_with_its_node_and_the_faults_around_it() {
    let result = strict("lost");
    assert_eq!(result.valid, Validity::Invalid);
    // Elle's inference places the unread append after the read elements, and finds the real-time cycles
    // too; `lost` says what happened to the data.
    assert!(result.anomaly_types.contains(&"lost".to_string()), "{:?}", result.anomaly_types);
    assert!(!result.anomaly_types.contains(&"stale".to_string()), "no final read shows the append");
    let lost = &result.anomalies["lost"];
    assert_eq!(lost.len(), 1);
    let c = case(&lost[0]);
    assert_eq!(c.txns, vec![1, 7, 9], "the write, then each final read that misses it");
    assert_eq!(c.facts["value"], 1);
    assert_eq!(c.facts["node"], "n1");
    assert_eq!(c.facts["acknowledged_time"], 2000);
    assert_eq!(c.facts["fault_before"], serde_json::Value::Null);
    assert_eq!(c.facts["fault_after"]["f"], "kill-all");
    assert!(
        c.explanation.contains("T1 wrote 1 to key \"x\" and was acknowledged at 0.000 s on n1"),
        "{}",
        c.explanation
    );
    assert!(c.explanation.contains("the next kill-all"), "{}", c.explanation);
    let alone = checker::consistency_model::impossible_models(["lost"]);
    assert!(alone.contains("PL-SS") && !alone.contains("PL-3"), "lost rules out real-time models only: {alone:?}");
}

#[test]
fn an_indeterminate_append_is_never_lost() {
    let result = strict("lost-near-miss-indeterminate");
    assert_eq!(result.valid, Validity::Valid, "{:?}", result.anomaly_types);
}

#[test]
fn a_final_read_that_overlapped_the_append_may_precede_it_so_nothing_is_lost() {
    let result = strict("lost-near-miss-overlapping");
    assert_eq!(result.valid, Validity::Valid, "{:?}", result.anomaly_types);
}

#[test]
fn a_final_read_begun_after_an_append_that_another_final_read_shows_is_stale() {
    let result = strict("stale");
    assert!(result.anomaly_types.contains(&"stale".to_string()), "{:?}", result.anomaly_types);
    assert!(!result.anomaly_types.contains(&"lost".to_string()), "a final read shows the append");
    let c = case(&result.anomalies["stale"][0]);
    assert_eq!(c.txns, vec![5, 3], "the stale read, then the writer it missed");
    assert_eq!(c.facts["missed"], serde_json::json!([2]));
    assert_eq!(c.facts["read"], serde_json::json!([1]));
    assert!(strict("stale-near-miss").anomaly_types.is_empty(), "the read began before the append was acknowledged");
}

#[test]
fn a_register_final_read_of_the_never_written_state_loses_the_write_but_a_later_value_does_not() {
    let result = strict("register-lost");
    assert!(result.anomaly_types.contains(&"lost".to_string()), "{:?}", result.anomaly_types);
    assert_eq!(case(&result.anomalies["lost"][0]).txns, vec![1, 5]);
    let near = strict("register-lost-near-miss");
    assert!(!near.anomaly_types.iter().any(|a| a == "lost" || a == "stale"), "{:?}", near.anomaly_types);
}

#[test]
fn without_real_time_a_lost_write_is_reported_only_when_asked_for() {
    let history = load("lost");
    let serializable = check(&history, &options(&["serializable"], &[])).unwrap();
    assert!(!serializable.anomaly_types.contains(&"lost".to_string()), "serializable has no real time");
    let asked = check(&history, &options(&["serializable"], &["lost"])).unwrap();
    assert_eq!(asked.valid, Validity::Invalid);
    assert!(asked.anomaly_types.contains(&"lost".to_string()));
}
