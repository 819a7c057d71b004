//! What a run or check concludes, rendered for the people and programs that read it: plain text for a
//! terminal, JSON for programs (docs/CONTRACTS.md, "Check result"), `report.html` for a developer reproducing an
//! anomaly (one self-contained page: verdicts, charts, each cycle drawn, each transaction on a timeline),
//! `report.md` for a pull-request comment, `junit.xml` for a CI page, and each cycle as Graphviz DOT and
//! as SVG drawn in process; beside them, the side-by-side comparison of `isocheck compare`
//! ([`comparison`]) and the Hermitage matrix of `isocheck hermitage` ([`HermitageMatrix`]). This crate
//! decides nothing: the verdict, the anomalies and their explanations are the checker's, the run's
//! figures the runner's, a cycle's replay the `replay` crate's (handed over as [`Replays`]); here they are only
//! laid out. Every piece of text that comes from a history (keys, values, error messages) is escaped for
//! the format it goes into (`escape`).
//!
//! A [`Report`] gathers what the renderers need; [`write_report`] writes every file into a directory.
//! The pieces (the page shell and tables in `page`, the sections in `html`, the tables in `markdown`,
//! the charts in `chart`, [`cycle_svg`], [`timeline_svg`]) are public so that a side-by-side report of
//! several runs can be built from them.
//!
//! ```
//! use checker::{check, Options};
//! use histories::{parse, Format};
//!
//! let text = r#"{"type":"invoke","process":0,"value":[["append","x",1],["r","y",null]]}
//! {"type":"invoke","process":1,"value":[["append","y",2],["r","x",null]]}
//! {"type":"ok","process":0,"value":[["append","x",1],["r","y",[]]]}
//! {"type":"ok","process":1,"value":[["append","y",2],["r","x",[]]]}"#;
//! let history = parse(text, Format::JsonLines, "skew.jsonl").unwrap();
//! let result = check(&history, &Options::default()).unwrap();
//! assert!(findings::text(&result, "skew.jsonl").starts_with("skew.jsonl: INVALID"));
//! let cycle = result.anomalies["G2-item"][0].as_cycle().unwrap();
//! assert!(findings::dot("G2-item", 1, cycle).contains("rw"));
//! assert!(findings::cycle_svg("G2-item", 1, cycle).starts_with("<svg"));
//!
//! let report = findings::Report::check("skew.jsonl", &result).with_history(&history);
//! assert!(findings::report_html(&report).contains("data-anomaly=\"G2-item\""));
//! assert!(findings::report_markdown(&report).contains("| <code>strict-serializable</code> | ❌ broken |"));
//! assert!(findings::report_junit(&report, Default::default()).contains("<failure"));
//! ```
#![deny(missing_docs)]

mod activity;
pub mod chart;
pub mod comparison;
mod cycle_layout;
mod cycle_svg;
mod dot;
pub mod escape;
mod graphviz;
mod hermitage_matrix;
pub mod html;
mod hunt_summary;
mod junit;
mod kind_style;
pub mod markdown;
mod out_dir;
mod overlap_summary;
pub mod page;
mod replay;
mod report;
mod run_summary;
mod seen;
mod shape_sentence;
pub mod shrunk;
mod standing_anomaly;
pub mod svg;
mod text;
mod timeline;
mod verdicts;

pub use activity::{Activity, Slice};
pub use cycle_svg::cycle_svg;
pub use dot::dot;
pub use graphviz::Graphviz;
pub use hermitage_matrix::{
    HermitageMatrix, ScenarioResult, ScenarioVerdict, hermitage_html, hermitage_markdown, hermitage_text,
};
pub use html::report_html;
pub use hunt_summary::{FailingRun, HuntSummary, hunt_text};
pub use junit::{JunitOptions, report_junit};
pub use markdown::report_markdown;
pub use out_dir::{OutOptions, write_out_dir, write_report};
pub use overlap_summary::{OverlapSummary, overlap_text};
pub use replay::{Replay, ReplayStep, Replays};
pub use report::Report;
pub use run_summary::{ContendedPairs, Documented, HoldFigures, RunSummary, ShrunkSummary, run_text};
pub use standing_anomaly::{standing_json, standing_text};
pub use text::{text, verdict_word};
pub use timeline::timeline_svg;
pub use verdicts::{Standing, Subject, Verdict, exact_sentence, verdicts};

/// The result as one JSON object (docs/CONTRACTS.md, "Check result").
pub fn json(result: &checker::CheckResult) -> String {
    let text = serde_json::to_string_pretty(result).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    escape::json_safe(&text).into_owned()
}
