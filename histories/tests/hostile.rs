//! The hostile inputs of issue 20, each with the exact message it must get: the corpus in
//! `tests/hostile/` (read as a user's file) and nesting too deep to commit, built here. None may crash
//! the reader, and each is refused where it goes wrong, or (a misnamed file) read with a warning.

use std::path::{Path, PathBuf};

use histories::{Format, FormatMismatch, HistoryError, MAX_DEPTH, parse, read_path};

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile").join(name)
}

/// The message for a corpus file, without the directory.
fn refusal(name: &str) -> String {
    let err = read_path(&corpus(name)).expect_err(name);
    assert!(matches!(err, HistoryError::Malformed { .. }), "{err:?}");
    let text = err.to_string();
    let dir = corpus("").display().to_string();
    text.strip_prefix(&dir).unwrap_or(&text).to_string()
}

#[test]
fn invalid_utf8_is_located_by_line_and_byte_offset_and_said_once() {
    assert_eq!(
        refusal("invalid-utf8-line-2.jsonl"),
        "invalid-utf8-line-2.jsonl:2:51: invalid UTF-8 at byte offset 96 (byte 0xff): a history must be UTF-8 text"
    );
}

#[test]
fn numbers_are_quoted_as_written() {
    let range = "values must fit in a signed 64-bit integer (-9223372036854775808 to 9223372036854775807)";
    assert_eq!(
        refusal("integer-out-of-range.jsonl"),
        format!("integer-out-of-range.jsonl:1:79: integer -9223372036854775809 is out of range: {range}")
    );
    assert_eq!(
        refusal("integer-out-of-range.edn"),
        format!("integer-out-of-range.edn:1:49: integer -9223372036854775809 is out of range: {range}")
    );
    assert_eq!(refusal("non-integer.json"), "non-integer.json:1:63: non-integer value 1.5: values must be integers");
}

#[test]
fn duplicate_json_keys_are_refused_where_they_repeat() {
    assert_eq!(
        refusal("duplicate-field.jsonl"),
        "duplicate-field.jsonl:1:39: duplicate field \"type\" in the operation: each field may appear once"
    );
    assert_eq!(
        refusal("duplicate-row-key.jsonl"),
        "duplicate-row-key.jsonl:2:70: duplicate key \"1\" in the rows: each key may appear once"
    );
}

#[test]
fn index_and_time_of_the_wrong_type_or_sign_are_refused() {
    assert_eq!(
        refusal("index-null.jsonl"),
        "index-null.jsonl:1:32: \"index\" must be a non-negative integer, not null"
    );
    assert_eq!(
        refusal("time-negative.jsonl"),
        "time-negative.jsonl:1:29: \"time\" must be a non-negative integer (nanoseconds), not -1"
    );
    assert_eq!(
        refusal("time-negative.edn"),
        "time-negative.edn:1:1: :time must be a non-negative integer (nanoseconds), not -1"
    );
}

#[test]
fn a_near_miss_zero_time_and_index_are_fine() {
    let text = "{\"type\": \"invoke\", \"index\": 0, \"time\": 0, \"process\": 0, \"value\": []}\n";
    assert_eq!(parse(text, Format::JsonLines, "t.jsonl").unwrap().len(), 1);
}

#[test]
fn a_file_whose_extension_disagrees_with_its_contents_is_read_by_its_contents_with_a_warning() {
    let read = read_path(&corpus("json-lines-named.edn")).unwrap();
    assert_eq!(read.history.len(), 2);
    let mismatch = read.mismatch.expect("a warning");
    assert_eq!(mismatch, FormatMismatch { named: Format::Edn, read_as: Format::JsonLines });
    assert_eq!(mismatch.to_string(), "the extension names EDN but the contents are JSON Lines: read as JSON Lines");
}

#[test]
fn a_file_that_matches_its_extension_gets_no_warning() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.jsonl");
    std::fs::copy(corpus("json-lines-named.edn"), &path).unwrap();
    assert_eq!(read_path(&path).unwrap().mismatch, None);
}

#[test]
fn an_unreadable_file_says_its_cause_once() {
    let err = read_path(Path::new("no/such/history.jsonl")).unwrap_err();
    assert_eq!(err.to_string(), "no/such/history.jsonl: cannot read the history");
    let source = std::error::Error::source(&err).expect("the I/O error is the source").to_string();
    assert!(source.starts_with("No such file or directory"), "{source}");
}

/// `open` × n, then `close` × n, after `prefix`.
fn nested(prefix: &str, open: &str, inner: &str, close: &str, n: usize) -> String {
    format!("{prefix}{}{inner}{}", open.repeat(n), close.repeat(n))
}

#[test]
fn edn_nested_past_the_limit_is_refused_where_it_gets_too_deep_not_a_crash() {
    let message = format!(
        "values nested more than {MAX_DEPTH} deep (vectors, lists, maps, sets and tags count): an operation nests a few levels at most"
    );
    // The first crashing depths the issue found, and deeper.
    let cases = [
        ("vector", nested("", "[", "", "]", 100_000), 129),
        ("list", nested("", "(", "", ")", 100_000), 129),
        ("map", nested("", "{:a ", "1", "}", 20_000), 4 * 128 + 1),
        ("set", nested("", "#{", "", "}", 40_000), 2 * 128 + 1),
        ("tag", nested("", "#t ", "1", "", 50_000), 3 * 128 + 1),
        ("vector, a million deep", nested("", "[", "", "]", 1_000_000), 129),
    ];
    for (what, text, column) in cases {
        let err = parse(&text, Format::Edn, "deep.edn").unwrap_err();
        assert_eq!(err.to_string(), format!("deep.edn:1:{column}: {message}"), "{what}");
    }
}

#[test]
fn edn_nested_to_the_limit_is_read_without_a_crash() {
    // A valid operation whose extra field nests to the limit: read, and the nesting kept.
    let deep = nested("", "[", "1", "]", MAX_DEPTH - 1);
    let text = format!("{{:type :invoke, :process 0, :value [], :extra {deep}}}");
    assert_eq!(parse(&text, Format::Edn, "h.edn").unwrap().len(), 1);
}

#[test]
fn json_nested_a_million_deep_is_refused_cleanly() {
    for format in [Format::JsonLines, Format::JsonArray] {
        for field in ["value", "extra"] {
            let op = nested(&format!("{{\"type\": \"invoke\", \"process\": 0, \"{field}\": "), "[", "", "]", 1_000_000);
            let text = if format == Format::JsonArray { format!("[{op}}}]") } else { format!("{op}}}") };
            let err = parse(&text, format, "deep.json").unwrap_err();
            // A micro-op list refuses a list where a micro-op's name belongs before nesting further; a
            // field kept as it is reaches serde_json's limit.
            let expected = if field == "value" { "expected a string" } else { "recursion limit exceeded" };
            assert!(err.to_string().contains(expected), "{field}: {err}");
        }
    }
}

#[test]
fn an_empty_predicate_is_refused_not_a_panic() {
    // Found by the fuzz harness: `[:rp [] nil]` indexed past the empty vector.
    assert_eq!(
        refusal("empty-predicate.edn"),
        "empty-predicate.edn:1:1: expected a predicate: true, [:= v] or [:mod m r], found []"
    );
}
