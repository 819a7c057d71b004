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
    assert!(out.stdout.contains("2 keys, 1 with a version order the history shows; dependencies: realtime 2"));
    assert!(
        out.stdout
            .contains("Could not see: 1 of the 1 keys written more than once have writes the checker could not order")
    );
    assert!(out.stdout.contains("Could not see: no transaction read a value another transaction wrote"));
    let json = isocheck(&["check", path.to_str().unwrap(), "--format", "json"], None);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["checked"]["workload"], "rw-register");
    assert_eq!(v["stats"]["ordered_keys"], 1);
    assert_eq!(v["stats"]["blind_spots"].as_array().unwrap().len(), 2);
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
