//! End-to-end tests of reading history files: every format, the pairing rules, and one clear error
//! (file:line:col and what was expected) for each kind of malformed input.

use std::path::{Path, PathBuf};

use histories::{
    Format, Function, HistoryError, Key, Mop, MopKind, Observed, OpType, Position, Problem, Process, parse, read_file,
};

fn elle(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/elle").join(name)
}

/// The error's position and message, for a history that must not parse.
fn error(text: &str, format: Format) -> (Position, Problem, String) {
    match parse(text, format, "h.txt") {
        Ok(_) => panic!("expected an error for {text}"),
        Err(e) => {
            let message = e.to_string();
            let (at, problem) = e.malformed().expect("a malformed-history error");
            (at, problem.clone(), message)
        }
    }
}

/// The error a strict reading (`--strict`) gives a history that needs a leniency to be read.
fn strict_error(text: &str, format: Format) -> (Position, Problem, String) {
    let history = parse(text, format, "h.txt").expect("a lenient reading succeeds");
    match history.refuse_leniency("h.txt") {
        Ok(()) => panic!("expected a strict reading to refuse {text}"),
        Err(e) => {
            let message = e.to_string();
            let (at, problem) = e.malformed().expect("a malformed-history error");
            (at, problem.clone(), message)
        }
    }
}

#[test]
fn json_lines_pair_invocations_with_completions_and_assign_indices() {
    let text = r#"{"type":"invoke","process":0,"value":[["append",1,1],["r",2,null]]}

{"type":"invoke","process":1,"f":"txn","value":[["r",1,null]]}
{"type":"ok","process":0,"value":[["append",1,1],["r",2,[3]]],"node":"n1"}
{"type":"fail","process":1,"value":[["r",1,null]],"error":"40001"}
"#;
    let h = parse(text, Format::JsonLines, "h.jsonl").unwrap();
    assert_eq!(h.ops().iter().map(|op| op.index).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    assert_eq!(h.ops()[2].at, Position::new(4, 1), "positions count blank lines");
    let txns: Vec<_> = h.transactions().collect();
    assert_eq!(txns.len(), 2);
    assert_eq!(txns[0].outcome(), OpType::Ok);
    assert_eq!(txns[0].completion_at, Some(2));
    assert_eq!(txns[0].op().mops()[1], Mop::Read { key: Key::Int(2), value: Observed::List(vec![3].into()) });
    assert_eq!(txns[1].outcome(), OpType::Fail);
    assert_eq!(txns[1].op().error(), Some("40001"));
    assert_eq!(h.ops()[2].extra(), vec![("node".into(), serde_json::json!("n1"))]);
}

#[test]
fn an_invocation_the_history_never_completes_is_indeterminate() {
    let h = parse(r#"{"type":"invoke","process":4,"value":[["append","x",1]]}"#, Format::JsonLines, "h").unwrap();
    let txn = h.transactions().next().unwrap();
    assert_eq!(txn.outcome(), OpType::Info);
    assert!(txn.completion.is_none());
}

#[test]
fn json_arrays_read_like_json_lines_and_locate_each_operation() {
    let text = "[\n  {\"type\":\"invoke\",\"process\":0,\"value\":[[\"w\",\"x\",1]]},\n  {\"type\":\"ok\",\"process\":0,\"value\":[[\"w\",\"x\",1]]}\n]\n";
    let h = parse(text, Format::JsonArray, "h.json").unwrap();
    assert_eq!(h.len(), 2);
    assert_eq!(h.ops()[1].at, Position::new(3, 3));
    assert_eq!(h.ops()[1].mops(), &[Mop::Write { key: "x".into(), value: 1, version: None }]);
    assert!(parse("[]", Format::JsonArray, "h.json").unwrap().is_empty());
}

#[test]
fn edn_streams_and_vectors_read_alike() {
    let stream = "{:type :invoke, :process 3, :f :txn, :value [[:append 1 2] [:r 1 nil]]}\n; a comment\n{:type :ok, :process 3, :f :txn, :value [[:append 1 2] [:r 1 [2]]], :time 5}\n";
    let vector = format!("[{}]", stream.replace("; a comment\n", ""));
    for text in [stream.to_string(), vector] {
        let h = parse(&text, Format::Edn, "h.edn").unwrap();
        assert_eq!(h.len(), 2);
        let txn = h.transactions().next().unwrap();
        assert_eq!(txn.invoke.process(), Process::Client(3));
        assert_eq!(txn.op().time(), Some(5));
        assert_eq!(txn.op().mops()[1], Mop::Read { key: Key::Int(1), value: Observed::List(vec![2].into()) });
    }
}

#[test]
fn the_elle_paper_example_has_no_processes_and_each_pair_gets_its_own() {
    let h = read_file(&elle("paper-example.edn")).unwrap();
    let txns: Vec<_> = h.transactions().collect();
    assert_eq!(txns.len(), 4);
    let processes: std::collections::BTreeSet<_> = txns.iter().map(|t| t.invoke.process()).collect();
    assert_eq!(processes.len(), 4, "one process per invoke/completion pair");
    assert!(txns.iter().all(|t| t.outcome() == OpType::Ok && t.completion.unwrap().process() == t.invoke.process()));
}

#[test]
fn the_huge_scc_history_reads_completely() {
    let h = read_file(&elle("huge-scc.edn")).unwrap();
    // 20,602 operations: 10,254 client transactions, the rest the nemesis's.
    assert_eq!(h.len(), 20_602);
    let outcomes = h.transactions().fold([0; 3], |mut n, t| {
        n[match t.outcome() {
            OpType::Ok => 0,
            OpType::Fail => 1,
            _ => 2,
        }] += 1;
        n
    });
    assert_eq!(h.transactions().count(), 10_254);
    assert_eq!(outcomes.iter().sum::<usize>(), 10_254);
    assert!(outcomes[0] > 2_900 && outcomes[1] > 7_000, "{outcomes:?}");
    assert!(h.ops().iter().all(|op| op.time().is_some()));
}

#[test]
fn sniffing_tells_the_formats_apart() {
    assert_eq!(Format::sniff("{\"type\": 1}"), Format::JsonLines);
    assert_eq!(Format::sniff("  [ {\"type\": 1}]"), Format::JsonArray);
    assert_eq!(Format::sniff("{:type :ok}"), Format::Edn);
    assert_eq!(Format::sniff("[{:type :ok}]"), Format::Edn);
    assert_eq!(Format::sniff("; comment\n{:type :ok}"), Format::Edn);
}

#[test]
fn json_lines_write_back_what_they_read() {
    let text = r#"{"index":0,"type":"invoke","process":0,"f":"txn","time":10,"value":[["append",1,1],["r",2,null]]}
{"index":1,"type":"ok","process":0,"f":"txn","time":20,"value":[["append",1,1],["r",2,[3]]],"node":"n1"}
{"index":2,"type":"invoke","process":"nemesis","f":"kill","value":{"nodes":["n1"]}}
"#;
    let h = parse(text, Format::JsonLines, "h").unwrap();
    let mut out = Vec::new();
    histories::write_jsonl(h.ops(), &mut out).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), text);
}

// ---- One clear error for each malformed input ------------------------------------------------

#[test]
fn truncated_json_names_the_line_and_column() {
    let (at, problem, message) = error(
        "{\"type\":\"invoke\",\"process\":0,\"value\":[]}\n{\"type\":\"ok\",\"process\":0,\"val",
        Format::JsonLines,
    );
    assert_eq!(at.line, 2);
    assert!(matches!(problem, Problem::Syntax(_)));
    assert!(message.starts_with("h.txt:2:"), "{message}");
    assert!(message.contains("EOF"), "{message}");
}

#[test]
fn a_bad_micro_op_is_located_inside_the_line() {
    let line = r#"{"type":"invoke","process":0,"value":[["append",1,1],["cas",1,2,3]]}"#;
    let (at, problem, message) = error(line, Format::JsonLines);
    assert_eq!(at.line, 1);
    assert!(at.column as usize > line.find("cas").unwrap(), "column {} should point at the micro-op", at.column);
    assert!(matches!(problem, Problem::Syntax(ref m) if m.contains("unknown micro-op \"cas\"")), "{message}");
}

#[test]
fn non_integer_values_are_refused() {
    let (_, problem, _) = error(r#"{"type":"invoke","process":0,"value":[["append",1,1.5]]}"#, Format::JsonLines);
    assert!(matches!(problem, Problem::Syntax(ref m) if m.contains("non-integer value 1.5")), "{problem}");
    let (_, problem, _) = error("{:type :invoke :process 0 :value [[:append 1 :x]]}", Format::Edn);
    assert!(matches!(problem, Problem::Shape(ref m) if m.contains("non-integer value :x")), "{problem}");
}

#[test]
fn a_completion_without_an_invoke_is_refused_by_a_strict_reading() {
    let text = "{\"type\":\"invoke\",\"process\":0,\"value\":[]}\n{\"type\":\"ok\",\"process\":0,\"value\":[]}\n{\"type\":\"ok\",\"process\":0,\"value\":[]}";
    let (at, problem, message) = strict_error(text, Format::JsonLines);
    assert_eq!(at, Position::new(3, 1));
    assert_eq!(problem, Problem::CompletionWithoutInvoke { process: "0".into(), kind: OpType::Ok });
    assert!(message.contains("expected an invoke by process 0 before it"), "{message}");
}

#[test]
fn two_invokes_in_flight_on_one_process_are_refused_by_a_strict_reading() {
    let text = "{\"type\":\"invoke\",\"process\":7,\"value\":[]}\n{\"type\":\"invoke\",\"process\":7,\"value\":[]}";
    let (at, problem, _) = strict_error(text, Format::JsonLines);
    assert_eq!(at.line, 2);
    assert_eq!(problem, Problem::TwoInvokesInFlight { process: "7".into(), first_line: 1 });
}

#[test]
fn a_process_up_to_the_largest_long_is_read_and_one_above_is_refused_with_its_line() {
    let op = |process: &str, kind: &str| format!("{{\"type\":\"{kind}\",\"process\":{process},\"value\":[]}}\n");
    let largest = Process::MAX_CLIENT.to_string();
    for format in [Format::JsonLines, Format::JsonArray] {
        let lines = [op(&largest, "invoke"), op(&largest, "ok")];
        let text = match format {
            Format::JsonArray => format!("[{}]", lines.iter().map(|l| l.trim()).collect::<Vec<_>>().join(",\n")),
            _ => lines.concat(),
        };
        let h = parse(&text, format, "h").unwrap();
        assert!(h.ops().iter().all(|o| o.process() == Process::Client(Process::MAX_CLIENT)), "{format:?}");
    }
    // Operations that name no process are given ones after the largest named.
    let unnamed = [op(&largest, "invoke"), op(&largest, "ok")].concat()
        + "{\"type\":\"invoke\",\"value\":[]}\n{\"type\":\"ok\",\"value\":[]}\n";
    let h = parse(&unnamed, Format::JsonLines, "h").unwrap();
    assert_eq!(h.ops()[2].process(), Process::Client(Process::MAX_CLIENT + 1));
    let above = (Process::MAX_CLIENT + 1).to_string();
    let text = [op("1", "invoke"), op("1", "ok"), op(&above, "invoke")].concat();
    let (at, _, message) = error(&text, Format::JsonLines);
    assert_eq!(at.line, 3);
    assert!(message.contains("process 9223372036854775808 is above the largest a history may name"), "{message}");
}

#[test]
fn ops_without_processes_must_alternate() {
    let text = "{:type :invoke :value []}\n{:type :invoke :value []}";
    let (at, problem, _) = error(text, Format::Edn);
    assert_eq!(at.line, 2);
    assert!(matches!(problem, Problem::TwoInvokesInFlight { first_line: 1, .. }));
    let (_, problem, _) = strict_error("{:type :ok :value []}", Format::Edn);
    assert!(matches!(problem, Problem::CompletionWithoutInvoke { .. }));
}

#[test]
fn completion_only_histories_are_transactions_whose_invocation_is_unknown() {
    let text = "{:type :ok, :process 0, :value [[:append :x 1]]}\n{:type :invoke, :process 1, :value [[:r :x nil]]}\n\
                {:type :ok, :process 1, :value [[:r :x [1]]]}\n{:type :ok, :process 0, :value [[:append :x 2]]}";
    let history = parse(text, Format::Edn, "h.edn").expect("read leniently");
    let txns: Vec<_> = history.transactions().map(|t| (t.invoke_at, t.completion_at, t.invoked_after)).collect();
    assert_eq!(txns, vec![(0, Some(0), None), (1, Some(2), Some(1)), (3, Some(3), None)]);
    let lenient: Vec<_> = history.leniencies().iter().map(|l| (l.kind, l.first.line, l.ops)).collect();
    assert_eq!(lenient, vec![(histories::LeniencyKind::CompletionWithoutInvoke, 1, 2)]);
}

#[test]
fn a_well_formed_history_needs_no_leniency() {
    let text = "{\"type\":\"invoke\",\"process\":0,\"value\":[]}\n{\"type\":\"ok\",\"process\":0,\"value\":[]}";
    let history = parse(text, Format::JsonLines, "h.jsonl").expect("well formed");
    assert!(history.leniencies().is_empty());
    assert!(history.refuse_leniency("h.jsonl").is_ok());
}

#[test]
fn invokes_in_flight_on_one_process_pair_with_the_completions_of_the_same_micro_ops() {
    let text = "{:type :invoke, :process 0, :value [[:append :x 1]]}\n{:type :invoke, :process 0, :value [[:append :x 2]]}\n\
                {:type :ok, :process 0, :value [[:append :x 2]]}\n{:type :ok, :process 0, :value [[:append :x 1]]}";
    let history = parse(text, Format::Edn, "h.edn").expect("read leniently");
    let txns: Vec<_> = history.transactions().map(|t| (t.invoke_at, t.completion_at, t.invoked_after)).collect();
    // Each pairs with its own completion, and the values leave no doubt about when each was invoked.
    assert_eq!(txns, vec![(0, Some(3), Some(0)), (1, Some(2), Some(1))]);
    let lenient: Vec<_> = history.leniencies().iter().map(|l| (l.kind, l.first.line, l.ops)).collect();
    assert_eq!(lenient, vec![(histories::LeniencyKind::InvokesInFlight, 2, 1)]);
}

#[test]
fn invokes_in_flight_that_look_alike_are_taken_as_invoked_at_the_earliest() {
    let text = "{:type :invoke, :process 0, :value [[:r :x nil]]}\n{:type :invoke, :process 0, :value [[:r :x nil]]}\n\
                {:type :ok, :process 0, :value [[:r :x [1]]]}\n{:type :ok, :process 0, :value [[:r :x [1 2]]]}";
    let history = parse(text, Format::Edn, "h.edn").expect("read leniently");
    let txns: Vec<_> = history.transactions().map(|t| (t.invoke_at, t.completion_at, t.invoked_after)).collect();
    assert_eq!(txns, vec![(0, Some(2), Some(0)), (1, Some(3), Some(0))]);
}

#[test]
fn a_completion_that_matches_no_invoke_in_flight_is_refused() {
    let text = "{:type :invoke, :process 0, :value [[:append :x 1]]}\n{:type :invoke, :process 0, :value [[:append :x 2]]}\n\
                {:type :ok, :process 0, :value [[:append :x 3]]}";
    let (at, problem, message) = error(text, Format::Edn);
    assert_eq!(at.line, 3);
    assert_eq!(
        problem,
        Problem::CompletionMatchesNoInvoke { process: "0".into(), kind: OpType::Ok, in_flight: 2, first_line: 1 }
    );
    assert!(message.contains("matches none of the 2 invokes in flight"), "{message}");
}

#[test]
fn mixed_key_types_are_refused() {
    let text = "{\"type\":\"invoke\",\"process\":0,\"value\":[[\"append\",1,1]]}\n{\"type\":\"invoke\",\"process\":1,\"value\":[[\"append\",\"x\",1]]}";
    let (at, problem, message) = error(text, Format::JsonLines);
    assert_eq!(at.line, 2);
    assert!(matches!(problem, Problem::MixedKeyTypes { found: "string", expected: "integer", first_line: 1, .. }));
    assert!(message.contains("must be all integers or all strings"), "{message}");
}

#[test]
fn duplicate_appends_of_one_value_to_one_key_are_refused() {
    let text = "{\"type\":\"invoke\",\"process\":0,\"value\":[[\"append\",1,5]]}\n{\"type\":\"ok\",\"process\":0,\"value\":[[\"append\",1,5]]}\n{\"type\":\"invoke\",\"process\":1,\"value\":[[\"append\",1,5]]}";
    let (at, problem, _) = error(text, Format::JsonLines);
    assert_eq!(at.line, 3);
    assert_eq!(problem, Problem::DuplicateWrite { verb: "appended", key: "1".into(), value: 5, first_line: 1 });
}

/// A completion with no invoke stands for its transaction, whose writes count once: a value it repeats is
/// found (whatever was sorted while the operations were paired), and one it shares with no other is not.
#[test]
fn a_completion_with_no_invoke_that_repeats_an_append_is_refused_where_it_repeats() {
    let lines = [
        r#"{"type":"invoke","process":0,"value":[["append",1,5],["append",2,6]]}"#,
        r#"{"type":"ok","process":0,"value":[["append",1,5],["append",2,6]]}"#,
        r#"{"type":"ok","process":1,"value":[["append",3,7],["append",2,6]]}"#,
    ];
    let (at, problem, _) = error(&lines.join("\n"), Format::JsonLines);
    assert_eq!((at.line, at.column), (3, 1));
    assert_eq!(problem, Problem::DuplicateWrite { verb: "appended", key: "2".into(), value: 6, first_line: 1 });
    let alone = r#"{"type":"ok","process":1,"value":[["append",3,7],["append",2,8]]}"#;
    let near_miss = [lines[0], lines[1], alone].join("\n");
    let history = parse(&near_miss, Format::JsonLines, "h.txt").expect("no value appended twice");
    assert_eq!(history.transactions().count(), 2);
}

#[test]
fn bad_edn_is_located() {
    let (at, problem, message) =
        error("{:type :invoke :process 0 :value []}\n{:type :ok :process 0 :value [}", Format::Edn);
    assert_eq!(at.line, 2);
    assert!(matches!(problem, Problem::Syntax(_)));
    assert!(message.starts_with("h.txt:2:"), "{message}");
    let (_, problem, _) = error("{:type :invoke :process 0 :value [[:cas 1 2]]}", Format::Edn);
    assert!(matches!(problem, Problem::Shape(ref m) if m.contains("unknown micro-op :cas")));
}

#[test]
fn an_unknown_type_or_a_missing_type_is_refused() {
    let (_, problem, _) = error(r#"{"type":"done","process":0,"value":[]}"#, Format::JsonLines);
    assert!(matches!(problem, Problem::Syntax(ref m) if m.contains("unknown type \"done\"")), "{problem}");
    let (_, problem, _) = error(r#"{"process":0,"value":[]}"#, Format::JsonLines);
    assert!(matches!(problem, Problem::Shape(ref m) if m.contains("no \"type\"")), "{problem}");
}

#[test]
fn duplicate_indices_are_refused() {
    let text = "{\"index\":3,\"type\":\"invoke\",\"process\":0,\"value\":[]}\n{\"index\":3,\"type\":\"ok\",\"process\":0,\"value\":[]}";
    let (_, problem, _) = error(text, Format::JsonLines);
    assert_eq!(problem, Problem::DuplicateIndex { index: 3, first_line: 1 });
}

#[test]
fn a_missing_file_is_an_io_error_naming_it() {
    let err = read_file(Path::new("/nonexistent/h.jsonl")).unwrap_err();
    assert!(matches!(err, HistoryError::Io { .. }));
    assert!(err.to_string().starts_with("/nonexistent/h.jsonl: cannot read"));
}

#[test]
fn jepsen_nemesis_ops_and_info_completions_are_read_as_jepsen_writes_them() {
    let text = r#"{:type :invoke, :f :txn, :value [[:append :x 1]], :process 0, :time 10, :index 0}
{:type :info, :f :start-partition, :value nil, :process :nemesis, :time 11, :index 1}
{:type :info, :f :start-partition, :value [:isolated {"n1" #{"n2"}}], :process :nemesis, :time 12, :index 2}
{:type :ok, :f :txn, :value [[:append :x 1]], :process 0, :time 13, :index 3}
{:type :invoke, :f :txn, :value [[:r :x nil]], :process 1, :time 14, :index 4}
{:type :info, :f :txn, :value [[:r :x nil]], :process 1, :time 15, :index 5, :error :timeout}
{:type :info, :f :stop-partition, :value :network-healed, :process :nemesis, :time 19, :index 9}"#;
    let history = parse(text, Format::Edn, "h.edn").expect("a Jepsen history");
    let nemesis = history.ops().iter().filter(|op| op.process() == Process::Nemesis).count();
    assert_eq!(nemesis, 3);
    let outcomes: Vec<OpType> = history.transactions().map(|t| t.outcome()).collect();
    assert_eq!(outcomes, vec![OpType::Ok, OpType::Info]);
    assert!(history.leniencies().is_empty(), "{:?}", history.leniencies());
}

#[test]
fn a_commit_order_is_read_on_completions_in_json_and_edn_and_refused_on_an_invoke() {
    let json = r#"{"type":"invoke","process":0,"value":[["w",1,5]]}
{"type":"ok","process":0,"value":[["w",1,5]],"commit_order":-7}
"#;
    let h = parse(json, Format::JsonLines, "h.jsonl").unwrap();
    assert_eq!(h.ops()[0].commit_order(), None);
    assert_eq!(h.ops()[1].commit_order(), Some(-7));
    assert!(h.ops()[1].extra().is_empty(), "a known field, not an unknown one");
    let edn = "{:type :invoke, :process 0, :value [[:w 1 5]]}\n{:type :ok, :process 0, :value [[:w 1 5]], :commit-order 12}\n";
    assert_eq!(parse(edn, Format::Edn, "h.edn").unwrap().ops()[1].commit_order(), Some(12));

    let (at, _, message) =
        error(r#"{"type":"invoke","process":0,"value":[["w",1,5]],"commit_order":3}"#, Format::JsonLines);
    assert_eq!(at.line, 1);
    assert!(message.contains("an invoke with a commit_order"), "{message}");
    let (at, _, message) = error(
        "{:type :ok, :process 0, :value [[:w 1 5]]}\n{:type :invoke, :process 1, :value [], :commit-order 1}\n",
        Format::Edn,
    );
    assert_eq!(at.line, 2);
    assert!(message.contains("an invoke with a commit_order"), "{message}");
    let (at, _, message) =
        error(r#"{"type":"ok","process":0,"value":[["w",1,5]],"commit_order":"first"}"#, Format::JsonLines);
    assert_eq!(at.line, 1);
    assert!(message.contains(r#""commit_order" must be an integer"#) && message.contains("\"first\""), "{message}");
}

#[test]
fn a_writes_version_is_read_on_completions_in_json_and_edn_written_back_and_refused_on_an_invoke() {
    let json = r#"{"type":"invoke","process":0,"value":[["w",1,5],["w",2,6]]}
{"type":"ok","process":0,"value":[["w",1,5,4],["w",2,6]]}
"#;
    let h = parse(json, Format::JsonLines, "h.jsonl").unwrap();
    let versioned = Mop::Write { key: Key::Int(1), value: 5, version: histories::WriteVersion::new(4) };
    let plain = Mop::Write { key: Key::Int(2), value: 6, version: None };
    assert_eq!(h.ops()[1].mops(), &[versioned.clone(), plain.clone()]);
    let edn = "{:type :invoke, :process 0, :value [[:w 1 5] [:w 2 6]]}\n{:type :ok, :process 0, :value [[:w 1 5 4] [:w 2 6 nil]]}\n";
    let from_edn = parse(edn, Format::Edn, "h.edn").unwrap();
    assert_eq!(from_edn.ops()[1].mops(), &[versioned.clone(), plain.clone()]);

    // Written back in either format, the version survives.
    for format in [Format::JsonLines, Format::JsonArray, Format::Edn] {
        let mut out = Vec::new();
        histories::write_history(h.ops(), format, &mut out).unwrap();
        let again = parse(std::str::from_utf8(&out).unwrap(), format, "again").unwrap();
        assert_eq!(again.ops()[1].mops(), &[versioned.clone(), plain.clone()], "{format:?}");
    }

    let (at, _, message) = error(r#"{"type":"invoke","process":0,"value":[["w",1,5,2]]}"#, Format::JsonLines);
    assert_eq!(at.line, 1);
    assert!(message.contains("an invoke with a write's version"), "{message}");
    let (at, _, message) =
        error("{:type :ok, :process 0, :value []}\n{:type :invoke, :process 1, :value [[:w 1 5 2]]}\n", Format::Edn);
    assert_eq!(at.line, 2);
    assert!(message.contains("an invoke with a write's version"), "{message}");
    let (at, _, message) = error(r#"{"type":"ok","process":0,"value":[["w",1,5,"v2"]]}"#, Format::JsonLines);
    assert_eq!(at.line, 1);
    assert!(message.contains("a write's version: an integer"), "{message}");
    let (_, _, message) = error("{:type :ok, :process 0, :value [[:w 1 5 :v2]]}\n", Format::Edn);
    assert!(message.contains("a write's version must be an integer"), "{message}");

    // The one integer a version may not be: i64::MIN, refused in both formats with where it is.
    let min = "{\"type\":\"invoke\",\"process\":0,\"value\":[[\"w\",1,5]]}\n{\"type\":\"ok\",\"process\":0,\"value\":[[\"w\",1,5,-9223372036854775808]]}\n";
    let (at, _, message) = error(min, Format::JsonLines);
    assert_eq!(at.line, 2);
    assert!(message.contains("version -9223372036854775808 is out of range"), "{message}");
    let (at, _, message) = error(
        "{:type :invoke, :process 0, :value [[:w 1 5]]}\n{:type :ok, :process 0, :value [[:w 1 5 -9223372036854775808]]}\n",
        Format::Edn,
    );
    assert_eq!(at.line, 2);
    assert!(message.contains("version -9223372036854775808 is out of range"), "{message}");
    let edge = min.replace("-9223372036854775808", "-9223372036854775807");
    let read = parse(&edge, Format::JsonLines, "edge.jsonl").unwrap();
    assert_eq!(
        read.ops()[1].mops()[0],
        Mop::Write { key: Key::Int(1), value: 5, version: histories::WriteVersion::new(i64::MIN + 1) }
    );
}

/// Every history file under `dir`, however deep.
fn history_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            history_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "edn" || e == "json" || e == "jsonl") {
            into.push(path);
        }
    }
}

/// The micro-op kinds a checker tells a workload by are gathered as operations are read, not walked for
/// afterwards: on every history in `testdata/` (JSON Lines, JSON arrays and EDN, Elle's among them), they
/// must be exactly those a walk over every client operation finds, `init` ops included.
#[test]
fn the_micro_op_kinds_gathered_in_reading_are_those_of_every_client_operation() {
    let mut files = Vec::new();
    history_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata"), &mut files);
    // testdata holds no closed-predicate history: one, with its `init` op.
    let predicate = r#"{"type": "invoke", "process": 0, "f": "init", "value": {"1": 10}}
{"type": "ok", "process": 0, "f": "init"}
{"type": "invoke", "process": 1, "value": [["rp", "true", null], ["insert", 2, 20], ["delete", 1]]}
{"type": "ok", "process": 1, "value": [["rp", "true", {"1": 10}], ["insert", 2, 20], ["delete", 1]]}
"#;
    let mut histories =
        vec![("the closed-predicate history".to_string(), parse(predicate, Format::JsonLines, "p.jsonl"))];
    // Result files and deliberately malformed histories sit beside the histories.
    histories.extend(files.iter().map(|f| (f.display().to_string(), read_file(f))));
    let mut read = 0;
    let mut every_kind = std::collections::BTreeSet::new();
    let mut with_init = 0;
    for (file, history) in &histories {
        let Ok(history) = history else { continue };
        read += 1;
        let clients = || history.ops().iter().filter(|op| op.is_client());
        let walked: std::collections::BTreeSet<MopKind> =
            clients().flat_map(|op| op.written_mops().map(|mop| MopKind::of(&mop))).collect();
        let gathered: std::collections::BTreeSet<MopKind> = history.mop_kinds().kinds().collect();
        assert_eq!(gathered, walked, "{file}");
        let init = clients().any(|op| *op.f() == Function::Init);
        assert_eq!(history.mop_kinds().has_init(), init, "{file}");
        with_init += usize::from(init);
        every_kind.extend(walked);
    }
    assert!(read >= 10, "only {read} histories read from testdata");
    // The histories cover the three workloads: lists, registers and predicates (with their `init` ops).
    for kind in MopKind::ALL {
        assert!(every_kind.contains(&kind), "no history holds a {kind:?}: {every_kind:?}");
    }
    assert!(with_init > 0);
}

/// A nemesis operation's micro-ops are no client's: they count for no workload.
#[test]
fn a_nemesis_operations_micro_ops_are_not_among_the_kinds() {
    let text = r#"{"type":"invoke","process":0,"value":[["append",1,1]]}
{"type":"info","process":"nemesis","f":"txn","value":[["w",1,1]]}
{"type":"ok","process":0,"value":[["append",1,1]]}
"#;
    let history = parse(text, Format::JsonLines, "h.jsonl").expect("a history");
    assert_eq!(history.mop_kinds().kinds().collect::<Vec<_>>(), vec![MopKind::Append]);
    assert!(!history.mop_kinds().has_init());
}
