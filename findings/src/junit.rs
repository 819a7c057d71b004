//! `junit.xml`: the findings as test results a CI page can show, written with `quick-junit`. One test
//! suite each for the models (and anomalies) asked about, the invariants and the flags, one test case
//! per item: a model ruled out is a failure whose message names the anomalies and whose body carries
//! their explanations; a verdict the checker could not reach is an error (CI must not read it as a
//! pass); a broken invariant is a failure. A flag is not an anomaly: it passes with its warning and
//! figures in the test's output, unless the caller asks flags to fail (`--fail-on flags`).

use std::fmt::Write;

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};

use crate::report::Report;
use crate::verdicts::{Standing, Subject, verdicts};

/// How many anomalies of one class a failure's text explains.
const EXPLAINED_PER_CLASS: usize = 3;

/// Choices for the JUnit file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JunitOptions {
    /// Whether a raised flag is a failure (else a passing test with a warning).
    pub flags_fail: bool,
}

/// The JUnit XML of a report.
pub fn report_junit(report: &Report<'_>, options: JunitOptions) -> String {
    let mut junit = quick_junit::Report::new("isocheck");
    let prefix = match &report.run {
        Some(run) => format!("{} {}", run.db, run.isolation),
        None => report.source.clone(),
    };

    let mut models = TestSuite::new(format!("{prefix}: models"));
    models.add_property(Property::new("workload", report.result.checked.workload.as_str()));
    models.add_property(Property::new("history", report.source.as_str()));
    for verdict in verdicts(report.result) {
        let status = match &verdict.standing {
            Standing::Holds => TestCaseStatus::success(),
            Standing::Broken(by) => {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status.set_message(verdict.sentence()).set_type("anomaly").set_description(explanations(report, by));
                status
            }
            Standing::Unknown(why) => {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
                status.set_message(verdict.sentence()).set_type("unknown").set_description(explanations(report, why));
                status
            }
        };
        let mut case = TestCase::new(verdict.name.as_str(), status);
        case.set_classname(match verdict.subject {
            Subject::Model => "isocheck.model",
            Subject::Anomaly => "isocheck.anomaly",
        });
        models.add_test_case(case);
    }
    junit.add_test_suite(models);

    if !report.invariants.is_empty() {
        let mut suite = TestSuite::new(format!("{prefix}: invariants"));
        for invariant in &report.invariants {
            let text = format!("{}\n{}", invariant.explanation, figures(&invariant.figures));
            let status = if !invariant.fails() {
                TestCaseStatus::success()
            } else {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status.set_message(invariant.explanation.as_str()).set_type("invariant").set_description(text.clone());
                status
            };
            let mut case = TestCase::new(invariant.name.as_str(), status);
            case.set_classname("isocheck.invariant");
            if !invariant.fails() {
                case.set_system_out(text);
            }
            suite.add_test_case(case);
        }
        junit.add_test_suite(suite);
    }

    if !report.result.flags.is_empty() {
        let mut suite = TestSuite::new(format!("{prefix}: flags"));
        for flag in &report.result.flags {
            let text = format!("{}\n{}", flag.message, figures(&flag.figures));
            let status = if options.flags_fail {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status.set_message(flag.message.as_str()).set_type("flag").set_description(text.clone());
                status
            } else {
                TestCaseStatus::success()
            };
            let mut case = TestCase::new(flag.name.as_str(), status);
            case.set_classname("isocheck.flag");
            if !options.flags_fail {
                case.set_system_out(format!("warning: {text}"));
            }
            suite.add_test_case(case);
        }
        junit.add_test_suite(suite);
    }
    let xml =
        junit.to_string().unwrap_or_else(|e| format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- {e} -->\n"));
    // quick-junit has escaped the markup; what could still steer a CI log or a page is shown as \u{..}.
    crate::escape::terminal_text(&xml).into_owned()
}

/// The explanations of the first few anomalies of each named class.
fn explanations(report: &Report<'_>, names: &[String]) -> String {
    let mut out = String::new();
    for name in names {
        let Some(anomalies) = report.result.anomalies.get(name) else { continue };
        for (i, anomaly) in anomalies.iter().take(EXPLAINED_PER_CLASS).enumerate() {
            let _ = writeln!(out, "{name} #{}:\n{}\n", i + 1, anomaly.explanation());
        }
        if anomalies.len() > EXPLAINED_PER_CLASS {
            let _ =
                writeln!(out, "... and {} more {name} (all in findings.json)\n", anomalies.len() - EXPLAINED_PER_CLASS);
        }
    }
    out.trim_end().to_string()
}

fn figures(figures: &serde_json::Map<String, serde_json::Value>) -> String {
    figures.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join("\n")
}
