//! An invocation whose completion is the same call keeps the completion's micro-ops rather than its
//! own (`Op::reads_unknown` when only its reads differ), in every format, and still says, writes and
//! compares as it was read; any other invocation keeps its own.

use std::borrow::Cow;

use histories::{Format, History, Key, Mop, Observed, Op, OpType, Position, parse, write_history};

/// One transaction of each kind, as JSON Lines: (invocation, completion).
const PAIRS: [(&str, &str); 5] = [
    // The same call, but for what the read returned.
    (
        r#"{"index": 0, "type": "invoke", "process": 0, "value": [["append", "x", 1], ["r", "y", null]]}"#,
        r#"{"index": 1, "type": "ok", "process": 0, "value": [["append", "x", 1], ["r", "y", [1, 2]]]}"#,
    ),
    // Exactly the same call: an indeterminate completion repeats its invocation.
    (
        r#"{"index": 2, "type": "invoke", "process": 1, "value": [["append", "y", 3], ["r", "x", null]]}"#,
        r#"{"index": 3, "type": "info", "process": 1, "value": [["append", "y", 3], ["r", "x", null]]}"#,
    ),
    // A completion without micro-ops.
    (
        r#"{"index": 4, "type": "invoke", "process": 2, "value": [["r", "x", null]]}"#,
        r#"{"index": 5, "type": "fail", "process": 2, "value": null}"#,
    ),
    // An invocation whose read says a value of its own.
    (
        r#"{"index": 6, "type": "invoke", "process": 3, "value": [["r", "x", [9]]]}"#,
        r#"{"index": 7, "type": "ok", "process": 3, "value": [["r", "x", [1]]]}"#,
    ),
    // A completion of other micro-ops than those invoked.
    (
        r#"{"index": 8, "type": "invoke", "process": 4, "value": [["r", "x", null], ["append", "x", 2]]}"#,
        r#"{"index": 9, "type": "ok", "process": 4, "value": [["r", "x", [1]], ["append", "x", 7]]}"#,
    ),
];

fn read(ops: &str) -> Vec<Mop> {
    let line = format!(r#"{{"type": "ok", "process": 0, "value": {ops}}}"#);
    parse(&line, Format::JsonLines, "mops.jsonl").expect("micro-ops").ops()[0].mops().to_vec()
}

/// The operations, at no place in a file (a history written again puts them on other lines).
fn placeless(ops: &[Op]) -> Vec<Op> {
    ops.iter()
        .map(|op| {
            let mut op = op.clone();
            op.at = Position::default();
            op
        })
        .collect()
}

fn written(op: &Op) -> Vec<Mop> {
    op.written_mops().map(Cow::into_owned).collect()
}

/// For each transaction: whether its invocation knows no read, whether it holds its completion's
/// micro-ops, and the micro-ops it said.
fn invocations(history: &History) -> Vec<(bool, bool, Vec<Mop>)> {
    history
        .transactions()
        .map(|t| {
            let completion = t.completion.expect("completed");
            let held = t.invoke.held_mops();
            let shares = !held.is_empty() && held.as_ptr() == completion.mops().as_ptr();
            (t.invoke.reads_unknown(), shares, written(t.invoke))
        })
        .collect()
}

#[test]
fn an_invocation_keeps_its_completions_micro_ops_only_when_they_are_the_same_call() {
    let text: String = PAIRS.iter().flat_map(|(i, c)| [*i, "\n", *c, "\n"]).collect();
    let history = parse(&text, Format::JsonLines, "h.jsonl").expect("a well-formed history");
    let expected = vec![
        (true, true, read(r#"[["append", "x", 1], ["r", "y", null]]"#)),
        (false, true, read(r#"[["append", "y", 3], ["r", "x", null]]"#)),
        (false, false, read(r#"[["r", "x", null]]"#)),
        (false, false, read(r#"[["r", "x", [9]]]"#)),
        (false, false, read(r#"[["r", "x", null], ["append", "x", 2]]"#)),
    ];
    assert_eq!(invocations(&history), expected);
    // The invocation that knows no read holds the completion's, which say what it returned.
    let first = &history.ops()[0];
    assert_eq!(first.held_mops()[1], Mop::Read { key: Key::from("y"), value: Observed::List(vec![1, 2].into()) });
    // Written in every format and read back, each says the same, and the history compares equal.
    for format in [Format::JsonLines, Format::JsonArray, Format::Edn] {
        let mut out = Vec::new();
        write_history(history.ops(), format, &mut out).expect("written");
        let again = parse(std::str::from_utf8(&out).expect("UTF-8"), format, "again").expect("read back");
        assert_eq!(invocations(&again), expected, "{format:?}");
        assert_eq!(placeless(again.ops()), placeless(history.ops()), "{format:?}");
    }
    let mut out = Vec::new();
    write_history(&history.ops()[..1], Format::JsonLines, &mut out).expect("written");
    assert!(String::from_utf8_lossy(&out).contains(r#"["r","y",null]"#), "{}", String::from_utf8_lossy(&out));
}

#[test]
fn an_invocation_that_keeps_its_completions_micro_ops_equals_one_that_keeps_its_own() {
    let text = format!("{}\n{}\n", PAIRS[0].0, PAIRS[0].1);
    let history = parse(&text, Format::JsonLines, "h.jsonl").expect("a well-formed history");
    let invoke = &history.ops()[0];
    assert!(invoke.reads_unknown());
    let own = |mops: &str| {
        let mut op = Op::txn(OpType::Invoke, 0, read(mops));
        op.at = invoke.at;
        op
    };
    let same = own(r#"[["append", "x", 1], ["r", "y", null]]"#);
    assert!(!same.reads_unknown());
    assert_eq!(*invoke, same);
    assert_eq!(same, *invoke);
    // Near misses: the same but for one append, or with the read's value said, are not equal.
    assert_ne!(*invoke, own(r#"[["append", "x", 2], ["r", "y", null]]"#));
    assert_ne!(*invoke, own(r#"[["append", "x", 1], ["r", "y", [1, 2]]]"#));
    assert_eq!(history.ops()[1].kind, OpType::Ok);
}
