//! The history model of isocheck and its file formats.
//!
//! A history is what every client asked and saw: operations (`invoke`, then `ok`, `fail` or `info`) whose
//! values are transactions of micro-ops, as in Jepsen and Elle. This crate reads histories from JSON
//! Lines, a JSON array (elle-cli's shape) and Jepsen EDN, checks that they are well formed (every
//! error names the file, line and column, and what was expected), and writes all three back. It knows
//! nothing of dependency graphs or anomalies (the `checker` crate), of running transactions (the runner
//! and `adapters`) or of rendering a verdict (`findings`): every other crate stands on it.
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
mod fast_json;
mod growing;
mod history;
mod json;
mod key;
mod leniency;
mod mop;
mod mop_kinds;
mod mop_rules;
mod nesting;
mod op;
mod parsed_op;
mod plume;
mod position;
mod read_lists;
#[doc(hidden)]
pub mod reader_comparison;
mod shared_slice;
mod transaction_order;
mod well_formed;
mod write;
mod write_version;

use std::path::Path;

pub use error::{HistoryError, Problem};
pub use growing::Growing;
pub use history::{History, Transaction};
pub use json::write_jsonl;
pub use key::Key;
pub use leniency::{Leniency, LeniencyKind};
pub use mop::{ListText, Mop, Observed, ObservedText, Predicate, Rows, RowsText};
pub use mop_kinds::{MopKind, MopKinds};
pub use nesting::MAX_DEPTH;
pub use op::{Function, Op, OpType, OpValue, Process};
pub use position::Position;
pub use shared_slice::{BlockWriter, SharedSlice};
pub use transaction_order::TransactionOrder;
pub use write::{write_edn, write_history, write_json_array};
pub use write_version::WriteVersion;

/// A history file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One JSON operation object a line (`.jsonl`), our own format.
    JsonLines,
    /// One JSON array of operation objects (`.json`), as elle-cli takes.
    JsonArray,
    /// Jepsen EDN (`.edn`): a stream of operation maps, or one vector of them.
    Edn,
    /// Plume's text format, which AWDIT reads and writes too: `r(key,value,session,txn)` a line. Told
    /// by its contents only, and read only (see `plume`).
    Plume,
}

impl Format {
    /// The format's name, as messages give it.
    pub fn name(self) -> &'static str {
        match self {
            Format::JsonLines => "JSON Lines",
            Format::JsonArray => "a JSON array",
            Format::Edn => "EDN",
            Format::Plume => "Plume's text format",
        }
    }

    /// The format a file's extension names, if it names one.
    pub fn from_extension(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()? {
            "jsonl" | "ndjson" => Some(Format::JsonLines),
            "json" => Some(Format::JsonArray),
            "edn" => Some(Format::Edn),
            _ => None,
        }
    }

    /// Guesses the format from the text itself: `{"` starts JSON Lines, `[{"` a JSON array, a keyword
    /// (`{:`) or a comment EDN, and `r(` or `w(` Plume's text format.
    pub fn sniff(text: &str) -> Format {
        let mut chars = text.chars().filter(|c| !c.is_whitespace() && *c != ',');
        match (chars.next(), chars.next(), chars.next()) {
            (Some(';'), _, _) | (Some('{'), Some(':'), _) | (Some('['), Some('{'), Some(':')) => Format::Edn,
            (Some('['), _, _) => Format::JsonArray,
            (Some('r' | 'w'), Some('('), _) => Format::Plume,
            _ => Format::JsonLines,
        }
    }
}

/// Reads a history file, choosing the format by extension or, failing that, by its contents; a file
/// whose contents are in another format than its extension names is read by its contents (see
/// [`read_path`], which also says so).
pub fn read_file(path: &Path) -> Result<History, HistoryError> {
    read_path(path).map(|read| read.history)
}

/// A history read from a file, with what the reader noticed on the way.
#[derive(Debug)]
pub struct ReadHistory {
    /// The history.
    pub history: History,
    /// Set when the file's extension names one format and its contents are another, which was used.
    pub mismatch: Option<FormatMismatch>,
}

/// A file whose extension names one format while its contents are in another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormatMismatch {
    /// The format the extension names.
    pub named: Format,
    /// The format the contents are in, and were read as.
    pub read_as: Format,
}

impl std::fmt::Display for FormatMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the extension names {} but the contents are {}: read as {}",
            self.named.name(),
            self.read_as.name(),
            self.read_as.name()
        )
    }
}

/// Reads a history file as [`read_file`] does, and says whether its extension disagreed with its
/// contents. The extension's format is tried first; only when that fails to read and the format the
/// contents look like reads cleanly is the file read by its contents, so a misnamed file is never
/// read as something it is not. JSON Lines are read in large blocks, each parsed on all cores, so a
/// large history is never held in memory as text. Invalid UTF-8 is refused with its line and byte offset.
pub fn read_path(path: &Path) -> Result<ReadHistory, HistoryError> {
    let file = path.display().to_string();
    let io = |source| HistoryError::Io { file: file.clone(), source };
    let malformed = |(at, problem)| HistoryError::Malformed { file: file.clone(), at, problem };
    let named = Format::from_extension(path);
    if named == Some(Format::JsonLines) {
        let input = std::fs::File::open(path).map_err(io)?;
        let parsed = match json::read_lines_from(input) {
            Ok(parsed) => parsed,
            Err(json::StreamError::Io(source)) => return Err(io(source)),
            Err(json::StreamError::Malformed(located)) => {
                let bytes = std::fs::read(path).map_err(io)?;
                let text = utf8(&bytes).map_err(malformed)?;
                return by_contents(text, Format::JsonLines, located).map_err(malformed);
            }
        };
        let history = well_formed::settle(parsed).map_err(malformed)?;
        return Ok(ReadHistory { history, mismatch: None });
    }
    let bytes = std::fs::read(path).map_err(io)?;
    let text = utf8(&bytes).map_err(malformed)?;
    match named {
        None => {
            let history = read_ops(text, Format::sniff(text)).and_then(well_formed::settle).map_err(malformed)?;
            Ok(ReadHistory { history, mismatch: None })
        }
        Some(named) => match read_ops(text, named) {
            Ok(parsed) => {
                let history = well_formed::settle(parsed).map_err(malformed)?;
                Ok(ReadHistory { history, mismatch: None })
            }
            Err(located) => by_contents(text, named, located).map_err(malformed),
        },
    }
}

/// A file that did not read as the format its extension names, read by its contents if they are
/// clearly another format; otherwise the extension's error stands.
fn by_contents(text: &str, named: Format, failure: error::Located) -> Result<ReadHistory, error::Located> {
    let sniffed = Format::sniff(text);
    if sniffed == named {
        return Err(failure);
    }
    match read_ops(text, sniffed) {
        Ok(parsed) => {
            let history = well_formed::settle(parsed)?;
            Ok(ReadHistory { history, mismatch: Some(FormatMismatch { named, read_as: sniffed }) })
        }
        Err(_) => Err(failure),
    }
}

/// Parses a history from text in the given format; `file` names it in errors.
pub fn parse(text: &str, format: Format, file: &str) -> Result<History, HistoryError> {
    read_ops(text, format).and_then(well_formed::settle).map_err(|(at, problem)| HistoryError::Malformed {
        file: file.to_string(),
        at,
        problem,
    })
}

/// Parses a history from bytes, which must be UTF-8 (invalid UTF-8 is refused with its line and byte
/// offset), in the given format; `file` names it in errors.
pub fn parse_bytes(bytes: &[u8], format: Format, file: &str) -> Result<History, HistoryError> {
    let text = utf8(bytes).map_err(|(at, problem)| HistoryError::Malformed { file: file.to_string(), at, problem })?;
    parse(text, format, file)
}

fn read_ops(text: &str, format: Format) -> Result<parsed_op::ParsedOps, error::Located> {
    match format {
        Format::JsonLines => json::read_lines(text),
        Format::JsonArray => json::read_array(text),
        Format::Edn => edn::read(text).map(Into::into),
        Format::Plume => plume::read(text),
    }
}

/// The bytes as text, or where the first invalid UTF-8 is.
fn utf8(bytes: &[u8]) -> Result<&str, error::Located> {
    std::str::from_utf8(bytes).map_err(|e| {
        let offset = e.valid_up_to();
        let line_start = bytes[..offset].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let line = bytes[..line_start].iter().filter(|&&b| b == b'\n').count() + 1;
        let at = Position::new(line as u32, (offset - line_start + 1) as u32);
        (at, Problem::InvalidUtf8 { offset: offset as u64, byte: bytes[offset] })
    })
}
