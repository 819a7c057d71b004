//! What a check concludes, rendered for the people and programs that read it: plain text for a
//! terminal, JSON for programs (DESIGN.md §3), and a Graphviz DOT picture of each cycle. This crate
//! decides nothing: the verdict, the anomalies and their explanations are the checker's; here they are
//! only laid out.
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
//! let report = findings::text(&result, "skew.jsonl");
//! assert!(report.starts_with("skew.jsonl: INVALID"));
//! assert!(findings::dot("G2-item", 1, result.anomalies["G2-item"][0].as_cycle().unwrap()).contains("rw"));
//! ```
#![deny(missing_docs)]

mod activity;
pub mod chart;
mod cycle_layout;
mod cycle_svg;
mod dot;
pub mod escape;
mod graphviz;
pub mod html;
mod junit;
mod kind_style;
pub mod markdown;
mod out_dir;
pub mod page;
mod report;
mod run_summary;
pub mod svg;
mod text;
mod timeline;
mod verdicts;

pub use activity::{Activity, Slice};
pub use cycle_svg::cycle_svg;
pub use dot::dot;
pub use graphviz::Graphviz;
pub use html::report_html;
pub use junit::{JunitOptions, report_junit};
pub use markdown::report_markdown;
pub use out_dir::{OutOptions, write_out_dir, write_report};
pub use report::{Invariant, Report};
pub use run_summary::RunSummary;
pub use text::{text, verdict_word};
pub use timeline::timeline_svg;
pub use verdicts::{Outcome, Subject, Verdict, verdicts};

/// The result as one JSON object (DESIGN.md §3).
pub fn json(result: &checker::CheckResult) -> String {
    serde_json::to_string_pretty(result).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}
