//! `--db exec` end to end: the embedded engine served over the exec protocol (`isocheck serve-exec`)
//! checks valid where `--db engine` does, and every planted defect is caught through the protocol exactly
//! as in process (the same table as `defaults.rs` and `run_command.rs`). A program that dies, hangs past
//! `--exec-timeout` or answers out of protocol is planted deterministically (serve-exec's `--crash-on` and
//! `--hang-on`, a liar script): its commit in flight is `info`, any other statement in flight `fail`, the
//! run ends with exit 2 and an error naming the line isocheck sent, and the history it kept checks valid.
//! No assertion depends on timing: the hung program's timeout is generous and only bounds the test.

use serde_json::Value;

use crate::defaults::{ATTEMPTS, CAUGHT, Shows, WORKLOADS, broken_promises, flag_names, run_all, until_caught};
use crate::util::{self, anomaly_types, isocheck, run_json};

/// `--cmd` for the engine served over the protocol, with these serve-exec flags.
fn serve_exec(flags: &str) -> String {
    format!("'{}' serve-exec {flags}", env!("CARGO_BIN_EXE_isocheck"))
}

/// `run --db exec --cmd CMD` with these flags, as `util::run_json` runs it.
fn run_exec(cmd: &str, extra: &[&str]) -> (i32, Value, tempfile::TempDir) {
    let mut args = vec!["--db", "exec", "--cmd", cmd];
    args.extend_from_slice(extra);
    run_json(&args)
}

/// The completions of a saved history (every op that is not an invocation).
fn completions(dir: &tempfile::TempDir) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.path().join("run/history.jsonl")).expect("the history is written");
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a JSON line"))
        .filter(|op| op["type"] != "invoke")
        .collect()
}

#[test]
fn the_correct_engine_through_exec_checks_valid_on_list_append_and_rw_register_at_every_level() {
    let mut jobs = Vec::new();
    for workload in ["list-append", "rw-register"] {
        for level in ["read-committed", "snapshot-isolation", "serializable"] {
            let args = ["--workload", workload, "--isolation", level, "--txns", "2000"];
            let mut job = vec!["--db".to_string(), "exec".into(), "--cmd".into(), serve_exec("")];
            job.extend(args.iter().map(|s| s.to_string()));
            jobs.push(job);
        }
    }
    let wrong: Vec<String> = run_all(jobs, |args, code, json| {
        let anomalies = anomaly_types(json);
        // The engine's commit order crosses the protocol: a register run orders every key's writes.
        let registers = args.contains(&"rw-register".to_string());
        let ordered = !registers || json["stats"]["keys"] == json["stats"]["ordered_keys"];
        let fine = code == 0 && anomalies.is_empty() && json["run"]["db"] == "exec" && json["run"]["info"] == 0;
        let fine = fine && ordered;
        (!fine).then(|| format!("{}: exit {code}, anomalies {anomalies:?}", args.join(" ")))
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(wrong.is_empty(), "false positives through exec:\n{}", wrong.join("\n"));
}

#[test]
fn run_json_names_the_program_its_hello_named() {
    let (code, json, dir) = run_exec(&serve_exec(""), &["--txns", "200"]);
    assert_eq!(code, 0, "{json}");
    let run: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("run/run.json")).unwrap()).unwrap();
    assert_eq!(run["db"], "exec");
    let settings = &run["system_settings"];
    assert_eq!(settings["exec_program"], "isocheck serve-exec");
    assert_eq!(settings["exec_protocol"], "1");
    assert!(settings["exec_program_version"].as_str().unwrap().contains("planted defect: none"), "{settings}");
    assert!(settings["exec_command"].as_str().unwrap().ends_with("serve-exec "), "{settings}");
}

/// How a planted defect shows in a default list-append run at serializable (`run_command.rs`'s cells).
const LIST_APPEND: [(&str, &[&str]); 4] = [
    ("ssi-off", &["G2-item"]),
    ("dirty-read", &["G1a", "G1b"]),
    ("no-first-committer-wins", &["lost-update", "G0", "G-single-item", "incompatible-order"]),
    ("non-atomic-commit", &["G-single-item"]),
];

#[test]
fn every_planted_defect_is_caught_through_exec_as_in_process() {
    let named: Vec<&str> = LIST_APPEND.iter().map(|(d, _)| *d).chain(CAUGHT.iter().map(|(d, _, _)| *d)).collect();
    for defect in engine::Defect::ALL {
        assert!(named.contains(&defect.name()), "{defect} has no cell here");
    }
    let cells = LIST_APPEND.len() + CAUGHT.len();
    let job = |i: usize, seed: u64| -> Vec<String> {
        let (defect, flags): (&str, &[&str]) = match LIST_APPEND.get(i) {
            Some((defect, _)) => (defect, &[]),
            None => {
                let (defect, workload, _) = CAUGHT[i - LIST_APPEND.len()];
                (defect, WORKLOADS.iter().find(|(name, _)| *name == workload).map_or(&[][..], |(_, f)| *f))
            }
        };
        let mut job = vec!["--db".into(), "exec".into(), "--cmd".into(), serve_exec(&format!("--defect {defect}"))];
        job.extend(flags.iter().map(|s| s.to_string()));
        job.extend(["--seed".to_string(), seed.to_string()]);
        job
    };
    let missed = until_caught(cells, job, |i, code, json| match LIST_APPEND.get(i) {
        Some((_, classes)) => code == 1 && classes.iter().any(|c| anomaly_types(json).contains(&c.to_string())),
        None => match CAUGHT[i - LIST_APPEND.len()].2 {
            Shows::Invalid => code == 1 && (!anomaly_types(json).is_empty() || !broken_promises(json).is_empty()),
            Shows::Flag => !flag_names(json).is_empty(),
        },
    });
    assert!(missed.is_empty(), "planted defects {ATTEMPTS} runs through exec each missed:\n{}", missed.join("\n"));
}

#[test]
fn global_lock_through_exec_is_valid_and_never_conflicts() {
    let (code, json, _dir) = run_exec(&serve_exec("--defect global-lock"), &["--txns", "3000"]);
    assert_eq!(code, 0, "{json}");
    assert_eq!(json["run"]["fail"], 0, "one transaction at a time never conflicts");
}

/// The one completion the lost program left, checked: the history kept checks valid.
fn lost_completion(code: i32, json: &Value, dir: &tempfile::TempDir) -> Value {
    assert_eq!(code, 2, "a run whose program was lost ends with exit 2: {json}");
    // Too short a history may have no dependency to check (unknown); it never shows an anomaly.
    assert_ne!(json["valid"], false, "what the history kept shows no anomaly: {json}");
    let lost: Vec<Value> = completions(dir).into_iter().filter(|op| op["error"] == adapters::LOST_CAUSE).collect();
    assert_eq!(lost.len(), 1, "one client, one transaction in flight: {lost:?}");
    lost.into_iter().next().unwrap_or_default()
}

/// Runs a one-client exec run whose program is lost, returning its exit code, JSON, directory and stderr.
fn run_lost(cmd: &str, extra: &[&str]) -> (i32, Value, tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("run");
    let mut args = vec!["run", "--format", "json", "--out", out.to_str().unwrap(), "--db", "exec", "--cmd", cmd];
    args.extend_from_slice(&["--clients", "1", "--txns", "50"]);
    args.extend_from_slice(extra);
    let output = isocheck(&args, None);
    assert!(!output.stderr.contains("panicked"), "{}", output.stderr);
    let json = serde_json::from_str(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", output.stderr));
    (output.code, json, dir, output.stderr)
}

#[test]
fn a_program_that_dies_on_a_commit_leaves_that_transaction_info() {
    let (code, json, dir, stderr) = run_lost(&serve_exec("--crash-on commit:12"), &[]);
    let lost = lost_completion(code, &json, &dir);
    assert_eq!(lost["type"], "info", "its commit may have happened: {lost}");
    assert_eq!(json["run"]["ok"], 11, "eleven commits answered before it died: {json}");
    assert!(stderr.contains("the run ended early"), "{stderr}");
    assert!(stderr.contains(r#""op":"commit""#), "the error names the line sent: {stderr}");
}

#[test]
fn a_program_that_dies_before_a_commit_leaves_that_transaction_failed() {
    let (code, json, dir, stderr) = run_lost(&serve_exec("--crash-on append:30"), &[]);
    let lost = lost_completion(code, &json, &dir);
    assert_eq!(lost["type"], "fail", "a dead program cannot commit what it was never asked to: {lost}");
    assert!(stderr.contains(r#""op":"append""#), "the error names the line sent: {stderr}");
}

#[test]
fn a_run_that_dies_on_a_fatal_error_keeps_its_history_and_reports_why() {
    // The 12th begin gets a fatal error (as MariaDB's 1146, a table gone): the run cannot go on.
    let (code, json, dir, stderr) = run_lost(&serve_exec("--fatal-on begin:12"), &[]);
    assert_eq!(code, 2, "a run that dies ends with exit 2: {json}");
    assert!(stderr.contains("the run ended early: client 0:"), "{stderr}");
    assert!(stderr.contains("a planted fatal error at begin 12"), "{stderr}");
    assert_eq!(json["run"]["ok"], 11, "eleven commits before it: {json}");
    let stopped = json["run"]["stopped_early"].as_str().unwrap_or_else(|| panic!("no stopped_early: {json}"));
    assert!(stopped.contains("a planted fatal error at begin 12"), "{stopped}");
    assert_ne!(json["valid"], false, "what the history kept shows no anomaly: {json}");
    // The history so far is kept, the transaction that met the error `info` (its fate is unknown).
    let ops = completions(&dir);
    assert_eq!(ops.iter().filter(|op| op["type"] == "ok").count(), 11, "{ops:?}");
    let fatal: Vec<&Value> = ops.iter().filter(|op| op["error"] == "planted-fatal").collect();
    assert_eq!(fatal.len(), 1, "{ops:?}");
    assert_eq!(fatal[0]["type"], "info", "{}", fatal[0]);
    // The report and run.json say why it stopped.
    let report = std::fs::read_to_string(dir.path().join("run/report.md")).expect("report.md");
    assert!(report.contains("stopped early") && report.contains("a planted fatal error at begin 12"), "{report}");
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("run/run.json")).expect("run.json")).unwrap();
    assert_eq!(run["stopped_early"], json["run"]["stopped_early"]);

    // The near miss: the same program without the fault runs to its limit, and nothing says it stopped.
    let (code, json, _dir, stderr) = run_lost(&serve_exec(""), &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(json["run"]["ok"], 50, "{json}");
    assert!(json["run"].get("stopped_early").is_none(), "{json}");
}

#[test]
fn a_program_that_hangs_on_a_commit_is_killed_after_the_exec_timeout() {
    // Generous: under load a healthy answer never takes this long, and a hung program ends the run here.
    let (code, json, dir, stderr) = run_lost(&serve_exec("--hang-on commit:12"), &["--exec-timeout", "20s"]);
    let lost = lost_completion(code, &json, &dir);
    assert_eq!(lost["type"], "info", "{lost}");
    assert!(stderr.contains("--exec-timeout"), "{stderr}");
    assert!(stderr.contains(r#""op":"commit""#), "{stderr}");
}

/// A program that answers `hello` as the protocol asks and `begin` with a line that is not JSON.
const LIAR: &str = r#"
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    if r["op"] == "hello":
        value = {"protocol": 1, "name": "liar", "version": "0", "ops": ["append", "read_list"],
                 "levels": ["serializable"]}
        print(json.dumps({"id": r["id"], "ok": True, "value": value}), flush=True)
    elif r["op"] == "begin":
        print("this is not JSON", flush=True)
    else:
        print(json.dumps({"id": r["id"], "ok": True}), flush=True)
"#;

#[test]
fn a_program_that_answers_out_of_protocol_is_lost_with_the_lines_both_ways() {
    let (_tmp, liar) = util::temp_file("liar.py", LIAR);
    let cmd = format!("python3 '{}'", liar.display());
    let (code, json, dir, stderr) = run_lost(&cmd, &[]);
    let lost = lost_completion(code, &json, &dir);
    assert_eq!(lost["type"], "fail", "{lost}");
    assert!(stderr.contains("this is not JSON"), "the error quotes the answer: {stderr}");
    assert!(stderr.contains(r#""op":"begin""#), "and the line sent: {stderr}");
    let other_level = isocheck(&["run", "--db", "exec", "--cmd", &cmd, "--isolation", "read-committed"], None);
    assert_eq!(other_level.code, 2);
    assert!(other_level.stderr.contains("liar lists no read-committed in its hello"), "{}", other_level.stderr);
}

#[test]
fn exec_without_a_runnable_command_is_a_usage_error() {
    let none = isocheck(&["run", "--db", "exec"], None);
    assert_eq!(none.code, 2);
    assert!(none.stderr.contains("--db exec needs --cmd"), "{}", none.stderr);
    let missing = isocheck(&["run", "--db", "exec", "--cmd", "/nonexistent/isocheck-exec-program"], None);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("could not start"), "{}", missing.stderr);
    let unbalanced = isocheck(&["run", "--db", "exec", "--cmd", "'python3"], None);
    assert_eq!(unbalanced.code, 2);
    assert!(unbalanced.stderr.contains("expected a program and its arguments"), "{}", unbalanced.stderr);
}

/// `--cmd` for the reference program over SQLite (Python's standard library only).
fn sqlite_server() -> String {
    format!("python3 '{}'", util::repo("examples/exec/sqlite_server.py").display())
}

#[test]
fn the_python_reference_program_over_sqlite_checks_valid() {
    let mut jobs = Vec::new();
    for flags in [&["--workload", "list-append"][..], &["--workload", "rw-register"], &["--workload", "bank"]] {
        let mut job = vec!["--db".to_string(), "exec".into(), "--cmd".into(), sqlite_server(), "--txns".into()];
        job.push("500".into());
        job.extend(flags.iter().map(|s| s.to_string()));
        jobs.push(job);
    }
    let found = run_all(jobs, |args, code, json| (args.join(" "), code, json.clone()));
    for (args, code, json) in found {
        assert_eq!(code, 0, "{args}: {json}");
        assert_eq!(json["valid"], true, "{args}: {json}");
        if args.contains("rw-register") {
            // The program numbers its writes (`{"version": N}`): every key's committed writes are ordered.
            assert!(json["checked"]["numbered_writes"].as_u64().unwrap_or(0) > 0, "{args}: {}", json["checked"]);
            assert_eq!(json["stats"]["ordered_keys"], json["stats"]["keys"], "{args}: {}", json["stats"]);
        }
        assert_eq!(json["run"]["info"], 0, "{args}: {json}");
        // How many commit is the machine's business (a busy machine makes SQLite busier: a bank run under
        // load committed 11 of 500); that the history checks valid is the program's.
        assert!(json["run"]["ok"].as_u64().unwrap_or(0) > 0, "{args}: {json}");
        assert_eq!(json["run"]["system_settings"]["exec_program"], "sqlite_server.py", "{args}: {json}");
    }
}
