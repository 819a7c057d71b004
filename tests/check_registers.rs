//! `isocheck check` on register and predicate histories end to end: the workload detected or named
//! with `--workload`, Elle's register assumptions as flags, what the report says it could not see, and
//! a history mixing workloads refused with the file, line and operations to blame.

use crate::util::{isocheck, temp_file};

/// Two writes of x nobody read, and y written and read by one transaction.
const BLIND: &str = r#"{"type":"invoke","process":0,"value":[["w","x",1]]}
{"type":"ok","process":0,"value":[["w","x",1]]}
{"type":"invoke","process":1,"value":[["w","x",2]]}
{"type":"ok","process":1,"value":[["w","x",2]]}
{"type":"invoke","process":2,"value":[["w","y",1],["r","y",null]]}
{"type":"ok","process":2,"value":[["w","y",1],["r","y",1]]}
"#;

#[test]
fn a_register_history_that_shows_little_is_valid_with_what_could_not_be_seen() {
    let (_dir, path) = temp_file("blind.jsonl", BLIND);
    let out = isocheck(&["check", path.to_str().unwrap()], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(lines[0].ends_with(": VALID (rw-register, checked for strict-serializable)"), "{}", out.stdout);
    assert_eq!(
        lines[1],
        r#"Caution: a partial view: 1 of 2 keys with a version order the history shows, 0 data dependencies inferred (see "Could not see" below)"#
    );
    // x's two writes are unordered, but the exact decision covered both orders: no blind spot there.
    assert!(lines[2].starts_with("Exact: decided exactly (over both orders of the 1 pair of writes"), "{}", out.stdout);
    assert!(out.stdout.contains("2 keys, 1 with a version order the history shows; dependencies: realtime 2"));
    assert!(!out.stdout.contains("keys written more than once"), "{}", out.stdout);
    assert!(out.stdout.contains("Could not see: no transaction read a value another transaction wrote"));
    let json = isocheck(&["check", path.to_str().unwrap(), "--format", "json"], None);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["checked"]["workload"], "rw-register");
    assert_eq!(v["stats"]["ordered_keys"], 1);
    assert_eq!(v["checked"]["unordered_pairs"], 1);
    assert_eq!(v["stats"]["blind_spots"].as_array().unwrap().len(), 1);
    // Read committed is inference's alone, and it says what it could not order.
    let weak = isocheck(&["check", path.to_str().unwrap(), "--model", "read-committed"], None);
    assert!(
        weak.stdout
            .contains("Could not see: 1 of the 1 keys written more than once have writes the checker could not order"),
        "{}",
        weak.stdout
    );
}

#[test]
fn an_assumption_flag_orders_more_and_is_reported() {
    let (_dir, path) = temp_file("blind.jsonl", BLIND);
    let out = isocheck(&["check", path.to_str().unwrap(), "--model", "serializable", "--linearizable-keys"], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains(": VALID (rw-register assuming linearizable-keys, checked for serializable)"));
    assert!(out.stdout.contains("2 keys, 2 with a version order the history shows; dependencies: ww 1"));
    let json =
        isocheck(&["check", path.to_str().unwrap(), "--format", "json", "--wfr-keys", "--sequential-keys"], None);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["checked"]["assumptions"], serde_json::json!(["wfr-keys", "sequential-keys"]));
}

#[test]
fn a_register_anomaly_is_explained_in_elles_words() {
    let history = r#"{"type":"invoke","process":0,"value":[["w","x",1],["r","y",null]]}
{"type":"invoke","process":1,"value":[["w","y",1],["r","x",null]]}
{"type":"ok","process":0,"value":[["w","x",1],["r","y",1]]}
{"type":"ok","process":1,"value":[["w","y",1],["r","x",1]]}
"#;
    let (_dir, path) = temp_file("g1c.jsonl", history);
    let out = isocheck(&["check", path.to_str().unwrap()], None);
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("Anomalies: G1c (1)"), "{}", out.stdout);
    assert!(out.stdout.contains(r#"T2 < T3, because T2 wrote "x" = 1, which was read by T3."#), "{}", out.stdout);
}

#[test]
fn a_predicate_phantom_is_g2_and_the_workload_can_be_named() {
    let history = r#"{"type":"invoke","process":9,"f":"init","value":{"1":10,"2":20}}
{"type":"ok","process":9,"f":"init","value":{"1":10,"2":20}}
{"type":"invoke","process":0,"value":[["rp",["mod",3,0],null],["insert",3,30]]}
{"type":"invoke","process":1,"value":[["rp",["mod",3,0],null],["insert",4,42]]}
{"type":"ok","process":0,"value":[["rp",["mod",3,0],{}],["insert",3,30]]}
{"type":"ok","process":1,"value":[["rp",["mod",3,0],{}],["insert",4,42]]}
"#;
    let (_dir, path) = temp_file("g2.jsonl", history);
    let out = isocheck(&["check", path.to_str().unwrap(), "--model", "serializable"], None);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stdout.contains(": INVALID (closed-predicate, checked for serializable)"), "{}", out.stdout);
    assert!(out.stdout.contains("Anomalies: G2 (1)"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("T4 performed a predicate read [rp (value mod 3 = 0) {}] of key 4 and selected version unborn")
    );
    let si = isocheck(
        &["check", path.to_str().unwrap(), "--model", "snapshot-isolation", "--workload", "closed-predicate"],
        None,
    );
    assert_eq!(si.code, 0, "{}", si.stdout);
}

#[test]
fn mixed_workloads_and_a_forced_wrong_workload_exit_2_located() {
    let mixed = r#"{"type":"invoke","process":0,"value":[["append","x",1]]}
{"type":"ok","process":0,"value":[["append","x",1]]}
{"type":"invoke","process":1,"value":[["w","x",2]]}
{"type":"ok","process":1,"value":[["w","x",2]]}
"#;
    let (_dir, path) = temp_file("mixed.jsonl", mixed);
    let out = isocheck(&["check", path.to_str().unwrap()], None);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains(&format!(
            r#"{}:4:1: [w "x" 2] uses key "x" as a register, but [append "x" 1] at line 2 uses it as a list"#,
            path.display()
        )),
        "{}",
        out.stderr
    );
    let (_dir, path) = temp_file("blind.jsonl", BLIND);
    let out = isocheck(&["check", path.to_str().unwrap(), "--workload", "list-append"], None);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("is a register micro-op, but this history is checked as list-append"),
        "{}",
        out.stderr
    );
}

#[test]
fn help_documents_the_workloads_and_assumptions() {
    let help = isocheck(&["check", "--help"], None);
    assert_eq!(help.code, 0);
    for text in ["--wfr-keys", "--sequential-keys", "--linearizable-keys", "rw-register", "closed-predicate"] {
        assert!(help.stdout.contains(text), "--help documents {text}");
    }
}

/// A write skew on registers whose write orders the history does not show: T1 wrote x and y, then T4
/// and T5 each read both and overwrote one.
const WRITE_SKEW: &str = include_str!("../testdata/exact/write-skew.jsonl");

#[test]
fn a_history_valid_under_a_model_decided_exactly_writes_a_witness_that_inference_alone_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let (_h, path) = temp_file("write-skew.jsonl", WRITE_SKEW);
    let witness = dir.path().join("witness.jsonl");
    let out = isocheck(
        &["check", path.to_str().unwrap(), "--model", "snapshot-isolation", "--witness", witness.to_str().unwrap()],
        None,
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("Exact: decided exactly (over every order of the 2 pairs of writes"), "{}", out.stdout);
    assert!(out.stderr.contains("wrote a witness for snapshot-isolation"), "{}", out.stderr);
    // Every transaction that took effect has its place, and the checker needs no solver to accept it.
    let text = std::fs::read_to_string(&witness).unwrap();
    assert_eq!(text.lines().filter(|l| l.contains("\"commit_order\"")).count(), 3, "{text}");
    let again =
        isocheck(&["check", witness.to_str().unwrap(), "--model", "snapshot-isolation", "--format", "json"], None);
    assert_eq!(again.code, 0, "{}", again.stdout);
    let v: serde_json::Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(v["checked"]["commit_ordered"], 3);
    assert_eq!(v["checked"]["unordered_pairs"].as_u64().unwrap_or(0), 0, "the witness ranks every pair of writes");
    // Under serializable the same history has no order at all: no witness, and exit 1.
    let none = dir.path().join("none.jsonl");
    let out = isocheck(
        &["check", path.to_str().unwrap(), "--model", "serializable", "--witness", none.to_str().unwrap()],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stdout.contains("Anomalies: no-serializable-order (3)"), "{}", out.stdout);
    assert!(out.stderr.contains("no witness written"), "{}", out.stderr);
    assert!(!none.exists());
}

#[test]
fn an_exact_decision_past_its_budget_is_unknown_never_valid() {
    let (_h, path) = temp_file("write-skew.jsonl", WRITE_SKEW);
    let out =
        isocheck(&["check", path.to_str().unwrap(), "--model", "snapshot-isolation", "--solver-timeout", "0s"], None);
    assert_eq!(out.code, 3, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains(": UNKNOWN (rw-register"), "{}", out.stdout);
    assert!(out.stdout.contains("Anomalies: solver-timeout (1)"), "{}", out.stdout);
    assert!(out.stdout.contains("The solver could not decide snapshot-isolation within 0.0 s"), "{}", out.stdout);
}
