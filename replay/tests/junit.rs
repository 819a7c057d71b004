//! `junit.xml` parses back (with an XML parser of its own, not quick-junit) into the structure CI
//! systems read: `testsuites` > `testsuite` > `testcase`, with `failure` or `error` children, and
//! `tests`/`failures`/`errors` counts that agree with the cases.

use replay::report_replays::replays;

use crate::common::{check, example, parse, run_summary};
use checker::Invariant;
use findings::{JunitOptions, Report};
use roxmltree::{Document, Node};

fn count(node: Node<'_, '_>, attribute: &str) -> usize {
    node.attribute(attribute).unwrap_or_else(|| panic!("{} has {attribute}", node.tag_name().name())).parse().unwrap()
}

/// Checks the counts at every level and returns (suite name, case name, status, message) rows.
fn cases(xml: &str) -> Vec<(String, String, &'static str, String)> {
    let doc = Document::parse(xml).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let suites: Vec<Node<'_, '_>> = root.children().filter(|n| n.has_tag_name("testsuite")).collect();
    assert!(!suites.is_empty());
    let mut rows = Vec::new();
    let (mut tests, mut failures, mut errors) = (0, 0, 0);
    for suite in suites {
        let name = suite.attribute("name").expect("a suite has a name").to_string();
        let testcases: Vec<Node<'_, '_>> = suite.children().filter(|n| n.has_tag_name("testcase")).collect();
        let failed = testcases.iter().filter(|c| c.children().any(|n| n.has_tag_name("failure"))).count();
        let errored = testcases.iter().filter(|c| c.children().any(|n| n.has_tag_name("error"))).count();
        assert_eq!(count(suite, "tests"), testcases.len(), "{name}: tests");
        assert_eq!(count(suite, "failures"), failed, "{name}: failures");
        assert_eq!(count(suite, "errors"), errored, "{name}: errors");
        tests += testcases.len();
        failures += failed;
        errors += errored;
        for case in testcases {
            assert!(case.attribute("classname").is_some_and(|c| c.starts_with("isocheck.")));
            let outcome = case.children().find(|n| n.has_tag_name("failure") || n.has_tag_name("error"));
            let (status, message) = match outcome {
                Some(n) => {
                    let message = n.attribute("message").expect("a failure has a message").to_string();
                    assert!(n.attribute("type").is_some(), "a failure has a type");
                    let body = n.text().unwrap_or_default();
                    (if n.has_tag_name("failure") { "failure" } else { "error" }, format!("{message}\n{body}"))
                }
                None => (
                    "pass",
                    case.children()
                        .find(|n| n.has_tag_name("system-out"))
                        .and_then(|n| n.text())
                        .unwrap_or_default()
                        .to_string(),
                ),
            };
            rows.push((name.clone(), case.attribute("name").unwrap().to_string(), status, message));
        }
    }
    assert_eq!(count(root, "tests"), tests);
    assert_eq!(count(root, "failures"), failures);
    assert_eq!(count(root, "errors"), errors);
    rows
}

#[test]
fn each_model_asked_about_is_a_test_case_and_a_broken_one_carries_the_explanation() {
    let (history, source) = example("write-skew.jsonl");
    let result = check(&history, &["snapshot-isolation", "serializable"]);
    let rows = cases(&findings::report_junit(
        &Report::check(&source, &result).with_replays(replays(&result)),
        JunitOptions::default(),
    ));
    assert_eq!(rows.len(), 2);
    assert_eq!((rows[0].1.as_str(), rows[0].2), ("snapshot-isolation", "pass"));
    assert_eq!((rows[1].1.as_str(), rows[1].2), ("serializable", "failure"));
    assert!(rows[1].3.starts_with("model serializable is ruled out by G2-item"), "{}", rows[1].3);
    assert!(rows[1].3.contains("T7 did not observe T6's append of 2 to \"x\""), "{}", rows[1].3);
}

#[test]
fn an_unknown_verdict_is_an_error_not_a_pass() {
    let history = parse(
        "{\"type\":\"invoke\",\"process\":0,\"value\":[[\"append\",\"x\",1]]}\n{\"type\":\"ok\",\"process\":0,\"value\":[[\"append\",\"x\",1]]}\n",
    );
    let result = check(&history, &[]);
    let rows = cases(&findings::report_junit(
        &Report::check("one.jsonl", &result).with_replays(replays(&result)),
        JunitOptions::default(),
    ));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].2, "error");
    assert!(rows[0].3.contains("could not tell (empty-transaction-graph)"), "{}", rows[0].3);
}

#[test]
fn invariants_and_flags_are_test_cases_of_their_own() {
    let (history, source) = example("write-skew.jsonl");
    let mut result = check(&history, &["snapshot-isolation"]);
    let figures = serde_json::Map::from_iter([("contended_pairs".to_string(), serde_json::json!(412))]);
    result.flags.push(checker::Flag {
        name: "zero-abort-under-contention".into(),
        message: "no transaction aborted though 412 pairs conflicted".into(),
        figures: figures.clone(),
    });
    let invariants = vec![
        Invariant {
            name: "total-conserved".into(),
            holds: true,
            explanation: "the total stayed 1000".into(),
            figures: figures.clone(),
            txns: Vec::new(),
            ops: Vec::new(),
            broken_by: vec!["lost-update".into()],
            promised: true,
        },
        Invariant {
            name: "never-negative".into(),
            holds: false,
            explanation: "T12 read a total of -100".into(),
            figures: figures.clone(),
            txns: Vec::new(),
            ops: Vec::new(),
            broken_by: vec!["G2-item".into()],
            promised: true,
        },
        Invariant {
            name: "final-total".into(),
            holds: false,
            explanation: "T14 overwrote T13's withdrawal".into(),
            figures,
            txns: Vec::new(),
            ops: Vec::new(),
            broken_by: vec!["lost-update".into()],
            promised: false,
        },
    ];
    let report = Report::check(&source, &result)
        .with_replays(replays(&result))
        .with_run(run_summary())
        .with_invariants(invariants);

    let rows = cases(&findings::report_junit(&report, JunitOptions::default()));
    let suites: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        suites,
        [
            "engine serializable: models",
            "engine serializable: invariants",
            "engine serializable: invariants",
            "engine serializable: invariants",
            "engine serializable: flags"
        ]
    );
    // Broken where the models checked permit it: not a failure.
    assert_eq!((rows[3].1.as_str(), rows[3].2), ("final-total", "pass"));
    let rows: Vec<_> = rows.into_iter().enumerate().filter(|(i, _)| *i != 3).map(|(_, r)| r).collect();
    assert_eq!(rows[1].2, "pass");
    assert_eq!((rows[2].1.as_str(), rows[2].2), ("never-negative", "failure"));
    assert!(rows[2].3.contains("T12 read a total of -100") && rows[2].3.contains("contended_pairs = 412"));
    assert_eq!((rows[3].1.as_str(), rows[3].2), ("zero-abort-under-contention", "pass"));
    assert!(rows[3].3.starts_with("warning: no transaction aborted"), "{}", rows[3].3);

    let strict = cases(&findings::report_junit(&report, JunitOptions { flags_fail: true }));
    assert_eq!(strict[4].2, "failure", "--fail-on flags makes a flag fail");
}
