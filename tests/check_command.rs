//! `isocheck check` end to end: verdicts and exit codes (0 valid, 1 invalid, 2 bad input, 3 unknown),
//! one clear located error per malformed file, and the files `--out` leaves.

use crate::util::{isocheck, repo, temp_file};

const SERIAL: &str = r#"{"type":"invoke","process":0,"value":[["append","x",1]]}
{"type":"ok","process":0,"value":[["append","x",1]]}
{"type":"invoke","process":1,"value":[["r","x",null]]}
{"type":"ok","process":1,"value":[["r","x",[1]]]}
"#;

#[test]
fn a_valid_history_exits_0_and_says_valid() {
    let (_dir, path) = temp_file("serial.jsonl", SERIAL);
    let out = isocheck(&["check", path.to_str().unwrap()], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains(": VALID (list-append, checked for strict-serializable)"), "{}", out.stdout);
}

#[test]
fn the_bundled_example_exits_1_with_its_g2_item_explained() {
    let out = isocheck(&["check", repo("examples/write-skew.jsonl").to_str().unwrap()], None);
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("Anomalies: G2-item (1)"), "{}", out.stdout);
    assert!(
        out.stdout.contains("However, T7 < T6, because T7 did not observe T6's append of 2 to \"x\": a contradiction!")
    );
}

#[test]
fn the_postgresql_15_finding_prints_its_g2_item_as_the_read_only_anomaly() {
    let path = repo("testdata/postgres-15-serializable/E-s3103.jsonl");
    let out = isocheck(&["check", path.to_str().unwrap(), "--model", "serializable"], None);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stdout.contains("Anomalies: G2-item (1)\n"), "{}", out.stdout);
    assert!(
        out.stdout.contains(
            "G2-item #1: T3606, T3620, T3604\n  This is the read-only anomaly (Fekete, O'Neil and O'Neil 2004): T3620 \
             only read, yet it read T3606's write (T3606 < T3620) and missed T3604's write (T3620 < T3604), while \
             T3604 missed T3606's write (T3604 < T3606)."
        ),
        "{}",
        out.stdout
    );
    let si = isocheck(&["check", path.to_str().unwrap(), "--model", "snapshot-isolation"], None);
    assert_eq!(si.code, 0, "snapshot isolation permits it: {}", si.stdout);
}

#[test]
fn json_output_is_one_object_with_the_designed_fields() {
    let out = isocheck(&["check", repo("examples/write-skew.jsonl").to_str().unwrap(), "--format", "json"], None);
    assert_eq!(out.code, 1);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("stdout is one JSON object");
    assert_eq!(v["valid"], serde_json::json!(false));
    assert_eq!(v["anomaly_types"], serde_json::json!(["G2-item"]));
    assert_eq!(v["not"], serde_json::json!(["repeatable-read"]));
    assert_eq!(v["anomalies"]["G2-item"][0]["cycle"], serde_json::json!([6, 7]));
    assert_eq!(v["anomalies"]["G2-item"][0]["steps"][0]["type"], serde_json::json!("rw"));
    assert_eq!(v["stats"]["ok"], serde_json::json!(5));
}

#[test]
fn a_history_with_no_dependencies_is_unknown_and_exits_3() {
    let (_dir, path) = temp_file(
        "one.jsonl",
        "{\"type\":\"invoke\",\"process\":0,\"value\":[[\"append\",\"x\",1]]}\n{\"type\":\"ok\",\"process\":0,\"value\":[[\"append\",\"x\",1]]}\n",
    );
    let out = isocheck(&["check", path.to_str().unwrap()], None);
    assert_eq!(out.code, 3, "{}", out.stdout);
    assert!(out.stdout.contains("UNKNOWN"));
    assert!(out.stdout.contains("empty-transaction-graph"));
}

#[test]
fn histories_read_from_standard_input() {
    let out = isocheck(&["check", "-"], Some(SERIAL));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("<stdin>: VALID"));
}

#[test]
fn out_dir_holds_findings_json_and_a_dot_file_per_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("findings");
    let out = isocheck(
        &["check", repo("examples/write-skew.jsonl").to_str().unwrap(), "--out", out_dir.to_str().unwrap()],
        None,
    );
    assert_eq!(out.code, 1);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("findings.json")).unwrap()).unwrap();
    assert_eq!(json["anomaly_types"], serde_json::json!(["G2-item"]));
    let dot = std::fs::read_to_string(out_dir.join("cycles/G2-item-1.dot")).unwrap();
    assert!(dot.starts_with("digraph \"G2-item #1\""));
    assert!(dot.contains("T6 -> T7 [label=\"rw \\\"y\\\"\""), "{dot}");
}

#[test]
fn models_and_anomalies_narrow_the_check() {
    let path = repo("examples/write-skew.jsonl");
    let path = path.to_str().unwrap();
    assert_eq!(isocheck(&["check", path, "--model", "snapshot-isolation"], None).code, 0, "SI permits write skew");
    assert_eq!(isocheck(&["check", path, "--model", "repeatable-read"], None).code, 1);
    assert_eq!(isocheck(&["check", path, "--anomaly", "G1"], None).code, 0);
    assert_eq!(isocheck(&["check", path, "--anomaly", "G2"], None).code, 1);
}

// ---- Bad input: exit 2, one located error, never a panic -------------------------------------

fn bad(name: &str, text: &str) -> (i32, String) {
    let (_dir, path) = temp_file(name, text);
    let out = isocheck(&["check", path.to_str().unwrap()], None);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    assert!(out.stdout.is_empty(), "nothing on stdout for bad input: {}", out.stdout);
    let name_at = format!("{}:", path.display());
    assert!(out.stderr.contains(&name_at), "the error names the file: {}", out.stderr);
    (out.code, out.stderr)
}

#[test]
fn truncated_json_exits_2_with_the_line_and_column() {
    let (code, err) = bad("t.jsonl", "{\"type\":\"invoke\",\"process\":0,\"value\":[]}\n{\"type\":\"ok\",\"proc");
    assert_eq!(code, 2);
    assert!(err.contains("t.jsonl:2:"), "{err}");
}

#[test]
fn bad_edn_exits_2_with_the_line() {
    let (code, err) = bad("b.edn", "{:type :invoke, :process 0, :value []}\n{:type :ok, :process 0, :value [}\n");
    assert_eq!(code, 2);
    assert!(err.contains("b.edn:2:"), "{err}");
}

#[test]
fn a_stray_completion_exits_2_under_strict_naming_what_was_expected() {
    let (_dir, path) = temp_file("s.jsonl", "{\"type\":\"ok\",\"process\":3,\"value\":[]}\n");
    let out = isocheck(&["check", "--strict", path.to_str().unwrap()], None);
    assert_eq!(out.code, 2);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(
        out.stderr.contains("s.jsonl:1:1: an ok completion by process 3 with no invoke in flight"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_wrong_micro_op_exits_2_naming_the_micro_op() {
    let (code, err) = bad("m.jsonl", "{\"type\":\"invoke\",\"process\":0,\"value\":[[\"cas\",\"x\",1,2]]}\n");
    assert_eq!(code, 2);
    assert!(err.contains("m.jsonl:1:") && err.contains("unknown micro-op \"cas\""), "{err}");
}

#[test]
fn a_missing_file_and_an_unknown_model_exit_2() {
    let out = isocheck(&["check", "/nonexistent/h.jsonl"], None);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("/nonexistent/h.jsonl: cannot read the history"), "{}", out.stderr);
    let out =
        isocheck(&["check", repo("examples/write-skew.jsonl").to_str().unwrap(), "--model", "serialisable"], None);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("unknown consistency model \"serialisable\""), "{}", out.stderr);
}

#[test]
fn bad_usage_exits_2_and_help_exits_0() {
    assert_eq!(isocheck(&["check"], None).code, 2);
    assert_eq!(isocheck(&["frobnicate"], None).code, 2);
    let help = isocheck(&["check", "--help"], None);
    assert_eq!(help.code, 0);
    for flag in ["--model", "--anomaly", "--format", "--out", "--workload"] {
        assert!(help.stdout.contains(flag), "--help documents {flag}");
    }
}

#[test]
fn a_completion_only_history_is_read_with_one_warning_and_refused_with_strict() {
    let path = repo("testdata/elle/readme-example.edn");
    let file = path.to_str().unwrap();
    let out = isocheck(&["check", file, "--model", "serializable"], None);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stdout.contains("Anomalies: G1c (1)"), "{}", out.stdout);
    let warnings: Vec<&str> = out.stderr.lines().filter(|l| l.contains("read leniently")).collect();
    assert_eq!(warnings.len(), 1, "{}", out.stderr);
    assert!(warnings[0].contains(&format!("{file}:1:1: read leniently (3 ops, the first here)")), "{}", warnings[0]);
    let out = isocheck(&["check", file, "--strict"], None);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains(&format!(
            "{file}:1:1: an ok completion by process 0 with no invoke in flight: expected an invoke by process 0 before it"
        )),
        "{}",
        out.stderr
    );
}

/// Four list-append transactions: T4 and T5 each append to `k` and nobody reads `k`, so only the
/// solver orders them; exactly one order of the two is strict-serializable (T5 first).
const UNSHOWN_ONE_ORDER: &str = include_str!("../testdata/exact/unshown-appends-one-order.jsonl");

/// The history with each transaction's `commit_order` given by `order` (index of the completion → position).
fn with_commit_order(witness: &str, order: &dyn Fn(u64, u64) -> u64) -> String {
    let mut out = String::new();
    for line in witness.lines() {
        let mut op: serde_json::Value = serde_json::from_str(line).unwrap();
        if let Some(position) = op.get("commit_order").and_then(|p| p.as_u64()) {
            let index = op["index"].as_u64().unwrap();
            op["commit_order"] = serde_json::json!(order(index, position));
        }
        out.push_str(&op.to_string());
        out.push('\n');
    }
    out
}

#[test]
fn a_list_append_witness_orders_the_unshown_appends_and_the_other_order_is_refuted() {
    let dir = tempfile::tempdir().unwrap();
    let (_h, path) = temp_file("unshown.jsonl", UNSHOWN_ONE_ORDER);
    let witness = dir.path().join("witness.jsonl");
    let out = isocheck(
        &["check", path.to_str().unwrap(), "--model", "strict-serializable", "--witness", witness.to_str().unwrap()],
        None,
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("Exact: decided exactly (over both orders of the 1 pair of writes"), "{}", out.stdout);
    let text = std::fs::read_to_string(&witness).unwrap();
    assert_eq!(text.lines().filter(|l| l.contains("\"commit_order\"")).count(), 4, "{text}");
    // The witness ranks k's two appends by its commit order: inference alone accepts it.
    let again =
        isocheck(&["check", witness.to_str().unwrap(), "--model", "strict-serializable", "--format", "json"], None);
    assert_eq!(again.code, 0, "{}", again.stdout);
    let v: serde_json::Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(v["checked"]["unordered_pairs"].as_u64().unwrap_or(0), 0, "{}", again.stdout);
    assert!(
        v["stats"]["edges"]["ww"].as_u64().unwrap_or(0) >= 1,
        "the commit order ranks k's appends: {}",
        again.stdout
    );
    // The same positions with T4 (completion 4) and T5 (completion 5) swapped put T4's append first:
    // T4 < T5 (k), T5 < T6 (T6 read T5's append to p), T6 < T4 (T6 read q empty, which T4 appended to).
    let (p4, p5) = {
        let pos = |index: u64| {
            text.lines()
                .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
                .find(|op| op["index"] == index)
                .and_then(|op| op["commit_order"].as_u64())
                .unwrap()
        };
        (pos(4), pos(5))
    };
    assert!(p5 < p4, "the only order puts T5 first: {text}");
    let swapped = with_commit_order(&text, &|index, position| match index {
        4 => p5,
        5 => p4,
        _ => position,
    });
    let (_s, swapped_path) = temp_file("swapped.jsonl", &swapped);
    let out = isocheck(
        &["check", swapped_path.to_str().unwrap(), "--model", "strict-serializable", "--format", "json"],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.stdout);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let cases = v["anomalies"]["G-single-item"].as_array().expect("a G-single-item");
    assert_eq!(cases.len(), 1, "{}", out.stdout);
    let mut txns: Vec<u64> = cases[0]["cycle"].as_array().unwrap().iter().map(|t| t.as_u64().unwrap()).collect();
    txns.sort_unstable();
    assert_eq!(txns, vec![4, 5, 6], "{}", out.stdout);
}
