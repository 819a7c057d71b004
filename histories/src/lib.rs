//! The history model of isocheck and its file formats.
//!
//! A history is what every client asked and saw: operations (`invoke`, then `ok`, `fail` or `info`) whose
//! values are transactions of micro-ops, as in Jepsen and Elle. This crate reads histories from JSON
//! Lines, a JSON array (elle-cli's shape) and Jepsen EDN, checks that they are well formed (every
//! error names the file, line and column, and what was expected), and writes JSON Lines. It knows
//! nothing of dependency graphs or anomalies: that is the `checker` crate.
//!
//! ```
//! use histories::{parse, Format, Mop, OpType};
//!
//! let text = r#"{"type": "invoke", "process": 0, "value": [["append", "x", 1]]}
//! {"type": "ok", "process": 0, "value": [["append", "x", 1]]}"#;
//! let history = parse(text, Format::JsonLines, "example.jsonl").unwrap();
//! let txn = history.transactions().next().unwrap();
//! assert_eq!(txn.outcome(), OpType::Ok);
//! assert_eq!(txn.op().mops(), &[Mop::Append { key: "x".into(), value: 1 }]);
//! ```
#![deny(missing_docs)]

mod edn;
mod error;
mod history;
mod json;
mod key;
mod leniency;
mod mop;
mod op;
mod position;
mod well_formed;

use std::path::Path;

pub use error::{HistoryError, Problem};
pub use history::{History, Transaction};
pub use json::write_jsonl;
pub use key::Key;
pub use leniency::{Leniency, LeniencyKind};
pub use mop::{ListText, Mop, Observed, ObservedText, Predicate, Rows, RowsText};
pub use op::{Function, Op, OpType, OpValue, Process};
pub use position::Position;

/// A history file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One JSON operation object a line (`.jsonl`), our own format.
    JsonLines,
    /// One JSON array of operation objects (`.json`), as elle-cli takes.
    JsonArray,
    /// Jepsen EDN (`.edn`): a stream of operation maps, or one vector of them.
    Edn,
}

impl Format {
    /// The format a file's extension names, if it names one.
    pub fn from_extension(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()? {
            "jsonl" | "ndjson" => Some(Format::JsonLines),
            "json" => Some(Format::JsonArray),
            "edn" => Some(Format::Edn),
            _ => None,
        }
    }

    /// Guesses the format from the text itself: `{"` starts JSON Lines, `[{"` a JSON array, and a
    /// keyword (`{:`) or a comment EDN.
    pub fn sniff(text: &str) -> Format {
        let mut chars = text.chars().filter(|c| !c.is_whitespace() && *c != ',');
        match (chars.next(), chars.next(), chars.next()) {
            (Some(';'), _, _) | (Some('{'), Some(':'), _) | (Some('['), Some('{'), Some(':')) => Format::Edn,
            (Some('['), _, _) => Format::JsonArray,
            _ => Format::JsonLines,
        }
    }
}

/// Reads a history file, choosing the format by extension or, failing that, by its contents. JSON Lines
/// are read a line at a time, so a large history is never held in memory as text.
pub fn read_file(path: &Path) -> Result<History, HistoryError> {
    let file = path.display().to_string();
    let io = |source| HistoryError::Io { file: file.clone(), source };
    if Format::from_extension(path) == Some(Format::JsonLines) {
        let input = std::io::BufReader::with_capacity(1 << 20, std::fs::File::open(path).map_err(io)?);
        let parsed = match json::read_lines_from(input) {
            Ok(parsed) => parsed,
            Err(json::StreamError::Io(source)) => return Err(io(source)),
            Err(json::StreamError::Malformed((at, problem))) => {
                return Err(HistoryError::Malformed { file, at, problem });
            }
        };
        return well_formed::settle(parsed).map_err(|(at, problem)| HistoryError::Malformed { file, at, problem });
    }
    let text = std::fs::read_to_string(path).map_err(io)?;
    let format = Format::from_extension(path).unwrap_or_else(|| Format::sniff(&text));
    parse(&text, format, &file)
}

/// Parses a history from text in the given format; `file` names it in errors.
pub fn parse(text: &str, format: Format, file: &str) -> Result<History, HistoryError> {
    let parsed = match format {
        Format::JsonLines => json::read_lines(text),
        Format::JsonArray => json::read_array(text),
        Format::Edn => edn::read(text),
    };
    parsed.and_then(well_formed::settle).map_err(|(at, problem)| HistoryError::Malformed {
        file: file.to_string(),
        at,
        problem,
    })
}
