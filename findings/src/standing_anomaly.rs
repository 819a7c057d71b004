//! An anomaly reported while its history still grows (`isocheck check --follow`, `isocheck run
//! --online`): the checker says it *stands*, so the finished history shows it too
//! (docs/online-checking.md). In text it is the report's own block for the anomaly, under a line saying
//! after how many operations it stood and whether the models checked prohibit it; in JSON, one line
//! holding one object, so that a program reading the stream sees each as it comes, before the final
//! verdict's object.

use std::fmt::Write;

use checker::StandingAnomaly;
use serde::Serialize;

/// `found`, the `number`th standing anomaly of its type, that stood after `ops` operations of the
/// history `source`, as text: a header line and the anomaly explained as the report explains it.
pub fn standing_text(found: &StandingAnomaly, number: usize, ops: usize, source: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} stands after {ops} operations{}",
        crate::escape::terminal(source),
        found.name,
        if found.prohibited {
            ": the models checked prohibit it, whatever the rest of the history holds"
        } else {
            " (the models checked permit it)"
        }
    );
    crate::text::anomaly_block(&mut out, &found.name, number, &found.anomaly);
    out.push('\n');
    crate::escape::terminal_text(&out).into_owned()
}

/// The same as one line of JSON: `{"standing": {"name", "number", "prohibited", "after_ops",
/// "anomaly"}}`, the anomaly as the result's `anomalies` give it.
pub fn standing_json(found: &StandingAnomaly, number: usize, ops: usize) -> String {
    #[derive(Serialize)]
    struct Line<'a> {
        standing: Inner<'a>,
    }
    #[derive(Serialize)]
    struct Inner<'a> {
        name: &'a str,
        number: usize,
        prohibited: bool,
        after_ops: usize,
        anomaly: &'a checker::Anomaly,
    }
    let line = Line {
        standing: Inner {
            name: &found.name,
            number,
            prohibited: found.prohibited,
            after_ops: ops,
            anomaly: &found.anomaly,
        },
    };
    // An anomaly is plain data (strings, numbers, lists): serializing it cannot fail.
    serde_json::to_string(&line).unwrap_or_default() + "\n"
}
