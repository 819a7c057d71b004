//! For tests that hold the fast path to the general reader (not part of the API): an object or a
//! JSON Lines text read both ways, for the tests and fuzzers to compare. The readers are `fast_json`'s
//! and `json`'s; this module only runs both.

use crate::json::{ObjectReader, parse_object_in_general, read_lines_by};
use crate::op::{Op, Process};
use crate::parsed_op::{ParsedOp, ParsedOps};
use crate::position::Position;
use crate::read_lists::ReadLists;

/// What one operation object reads as: the index and process it gave, and the operation.
pub type ReadObject = (Option<u64>, Option<Process>, Op);

/// The object `text` (at line 1, column 1) as the fast path reads it (`None` where it declines) and as
/// the general reader does (or its error, as `line:column: problem`).
pub fn read_object_both_ways(text: &str) -> (Option<ReadObject>, Result<ReadObject, String>) {
    let origin = Position::new(1, 1);
    let as_tuple = |p: ParsedOp| (p.index, p.process, p.op);
    let mut read = ParsedOps::default();
    let fast = crate::fast_json::parse_into(text, origin, &ReadLists::for_text(text.len()), &mut read)
        .then(|| read.into_vec().into_iter().map(as_tuple).next())
        .flatten();
    let general =
        parse_object_in_general(text, origin).map(as_tuple).map_err(|(at, problem)| format!("{at}: {problem}"));
    (fast, general)
}

/// JSON Lines `text` read with the fast path and without it, each as the settled history (its debug
/// form: every operation, its pairing and the leniencies applied) or the error (`line:column: problem`).
pub fn read_lines_both_ways(text: &str) -> (Result<String, String>, Result<String, String>) {
    let read = |reader| {
        read_lines_by(text, reader)
            .and_then(crate::well_formed::settle)
            .map(|history| format!("{history:?}"))
            .map_err(|(at, problem)| format!("{at}: {problem}"))
    };
    (read(ObjectReader::Fast), read(ObjectReader::General))
}
