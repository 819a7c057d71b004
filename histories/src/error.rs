//! What can be wrong with a history file, said so a person can fix it: the file, the line and column,
//! and what was expected there. A malformed history is an error; an inconsistent one is a verdict, and
//! verdicts belong to the checker.

use thiserror::Error;

use crate::op::OpType;
use crate::position::Position;

/// A history that could not be read.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum HistoryError {
    /// The file could not be opened or read.
    /// Its cause is its `source`, printed once by whoever prints the chain (`{:#}` in anyhow).
    #[error("{file}: cannot read the history")]
    Io {
        /// The file's name as given.
        file: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file was read but is not a well-formed history.
    #[error("{file}:{at}: {problem}")]
    Malformed {
        /// The file's name as given.
        file: String,
        /// Where the problem is.
        at: Position,
        /// What is wrong, and what was expected.
        problem: Problem,
    },
}

impl HistoryError {
    /// The problem and its position, when the file was read but is malformed.
    pub fn malformed(&self) -> Option<(Position, &Problem)> {
        match self {
            HistoryError::Malformed { at, problem, .. } => Some((*at, problem)),
            HistoryError::Io { .. } => None,
        }
    }
}

/// What is wrong with a history, and what was expected instead.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Problem {
    /// Not valid JSON or EDN, or a value of the wrong kind (the parser's own words).
    #[error("{0}")]
    Syntax(String),
    /// Bytes that are not UTF-8.
    #[error("invalid UTF-8 at byte offset {offset} (byte 0x{byte:02x}): a history must be UTF-8 text")]
    InvalidUtf8 {
        /// The offset of the first invalid byte from the start of the file.
        offset: u64,
        /// That byte.
        byte: u8,
    },
    /// Well-formed text that is not an operation as the history format describes.
    #[error("{0}")]
    Shape(String),
    /// A completion with no invocation in flight on its process.
    #[error(
        "an {kind} completion by process {process} with no invoke in flight: expected an invoke by process {process} before it"
    )]
    CompletionWithoutInvoke {
        /// The completion's process, as written.
        process: String,
        /// The completion's type.
        kind: OpType,
    },
    /// An invocation while the same process already has one in flight.
    #[error(
        "a second invoke by process {process} while its invoke at line {first_line} is in flight: expected that invoke's completion (ok, fail or info) first"
    )]
    TwoInvokesInFlight {
        /// The process, as written.
        process: String,
        /// Where the earlier invocation is.
        first_line: u32,
    },
    /// A completion while several invokes are in flight on its process, none of which it can be paired
    /// with: their micro-ops differ from its own.
    #[error(
        "an {kind} completion by process {process} matches none of the {in_flight} invokes in flight on it (the first at line {first_line}): expected the completion of one of them, with the same micro-ops"
    )]
    CompletionMatchesNoInvoke {
        /// The completion's process, as written.
        process: String,
        /// The completion's type.
        kind: OpType,
        /// How many invokes were in flight on the process.
        in_flight: usize,
        /// Where the earliest of them is.
        first_line: u32,
    },
    /// Integer and string keys in one history.
    #[error(
        "key {key} is a {found}, but the key at line {first_line} is a{article} {expected}: a history's keys must be all integers or all strings"
    )]
    MixedKeyTypes {
        /// The offending key.
        key: String,
        /// Its type.
        found: &'static str,
        /// The type of the first key in the history.
        expected: &'static str,
        /// `n` before a vowel.
        article: &'static str,
        /// Where the first key is.
        first_line: u32,
    },
    /// One value appended (or written) twice to one key.
    #[error(
        "value {value} is {verb} to key {key} twice (also at line {first_line}): each value must be {verb} to a key at most once, or versions cannot be told apart"
    )]
    DuplicateWrite {
        /// `appended` or `written`.
        verb: &'static str,
        /// The key.
        key: String,
        /// The value.
        value: i64,
        /// The other operation's line.
        first_line: u32,
    },
    /// One index on two operations.
    #[error("index {index} is used twice (also at line {first_line}): indices must be unique")]
    DuplicateIndex {
        /// The index.
        index: u64,
        /// The other operation's line.
        first_line: u32,
    },
}

/// A problem at a position, before the file name is attached.
pub(crate) type Located = (Position, Problem);
