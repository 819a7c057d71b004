//! `isocheck run --online` end to end, on the embedded engine: a planted defect (`ssi-off`) stops the run
//! at the first anomaly that stands, printed as `check` explains it, with exit 1, the history and the
//! findings kept; `--keep-going` runs to the end and reports each; a correct engine runs to the end and
//! stays valid. As for `run`'s own tests of the planted defects, a default-sized engine run with `ssi-off`
//! shows a G2-item; whether it stopped early is read from what the run wrote, never from its timing.

use crate::util::{isocheck, temp_file};

/// Runs `isocheck run --online` with `extra` into a fresh directory: the exit code, stdout, stderr,
/// `run.json`, the findings' anomaly types and the directory.
pub(crate) fn online_run(extra: &[&str]) -> (i32, String, String, serde_json::Value, Vec<String>, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("run");
    let mut args = vec!["run", "--online", "--out", out.to_str().expect("a UTF-8 path")];
    args.extend_from_slice(extra);
    let output = isocheck(&args, None);
    assert!(!output.stderr.contains("panicked"), "{}", output.stderr);
    let read = |name: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(out.join(name)).unwrap_or_else(|e| panic!("{name}: {e}\n{}", output.stderr));
        serde_json::from_str(&text).expect("JSON")
    };
    let summary = read("run.json");
    let findings = read("findings.json");
    let types = findings["anomaly_types"]
        .as_array()
        .map_or_else(Vec::new, |a| a.iter().filter_map(|t| t.as_str().map(str::to_string)).collect());
    (output.code, output.stdout, output.stderr, summary, types, dir)
}

/// The transactions a run invoked, from `run.json`.
fn transactions(summary: &serde_json::Value) -> u64 {
    ["ok", "fail", "info"].iter().map(|k| summary[*k].as_u64().expect("a count")).sum()
}

#[test]
fn a_planted_defect_stops_an_online_run_at_the_first_anomaly_that_stands() {
    // Without --online, this run would take a minute; stopped, it ends at the anomaly.
    let (code, stdout, stderr, summary, types, dir) = online_run(&["--defect", "ssi-off", "--duration", "60s"]);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    let stopped = &summary["online"]["stopped_by"];
    let name = stopped["anomaly"].as_str().unwrap_or_else(|| panic!("the online check stopped the run: {summary}"));
    assert!(types.contains(&name.to_string()), "the final check shows {name} too: {types:?}");
    assert!(summary["elapsed_s"].as_f64().expect("elapsed") < 60.0, "the run stopped before its limit");
    let after = stopped["after_ops"].as_u64().expect("after how many operations");
    // What stood is printed first, explained as check explains it, naming where it stood.
    let first = stdout.lines().next().expect("stdout says something");
    assert!(
        first.ends_with(&format!(
            "history.jsonl: {name} stands after {after} operations: the models checked prohibit it, whatever the rest of the history holds"
        )),
        "{first}"
    );
    assert!(stdout.contains(&format!("\n{name} #1: T")), "{stdout}");
    assert!(stdout.contains("a contradiction!"), "{stdout}");
    assert!(stderr.contains(&format!("{name} stood after {after} operations: the run stopped there")), "{stderr}");
    // The history kept is the one the anomaly stood in, and more: check finds it there.
    let history = dir.path().join("run").join("history.jsonl");
    let lines = std::fs::read_to_string(&history).expect("the history is kept").lines().count() as u64;
    assert!(lines >= after, "{lines} operations kept, the anomaly stood after {after}");
    let again = isocheck(&["check", history.to_str().expect("a UTF-8 path"), "--model", "serializable"], None);
    assert_eq!(again.code, 1, "{}", again.stdout);
    assert!(again.stdout.contains(&format!("{name} (")), "{}", again.stdout);
}

#[test]
fn keep_going_runs_to_the_end_reporting_each_anomaly_as_it_stands() {
    let (code, stdout, stderr, summary, types, _dir) =
        online_run(&["--defect", "ssi-off", "--txns", "10000", "--keep-going"]);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert_eq!(transactions(&summary), 10_000, "the run went to its end");
    assert!(summary["online"]["stopped_by"].is_null(), "{summary}");
    let printed: Vec<&str> = stdout.lines().filter(|l| l.contains(" stands after ")).collect();
    assert_eq!(printed.len() as u64, summary["online"]["standing_anomalies"].as_u64().expect("a count"));
    for line in printed {
        let name = line.split(": ").nth(1).and_then(|rest| rest.split(' ').next()).expect("the anomaly's name");
        assert!(types.contains(&name.to_string()), "{name} stood, so the final check shows it: {types:?}");
    }
}

#[test]
fn a_correct_engine_checked_online_runs_to_the_end_and_stays_valid() {
    let (code, stdout, stderr, summary, types, _dir) = online_run(&["--txns", "3000"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(types.is_empty(), "{types:?}");
    assert_eq!(transactions(&summary), 3000);
    assert!(!stdout.contains(" stands after "), "{stdout}");
    assert_eq!(summary["online"]["standing_anomalies"], 0);
    assert!(summary["online"]["stopped_by"].is_null());
}

#[test]
fn keep_going_needs_online_and_online_is_one_run() {
    let out = isocheck(&["run", "--keep-going"], None);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("--online"), "{}", out.stderr);
    let (_dir, path) = temp_file("unused", "");
    let dir = path.to_str().expect("a UTF-8 path");
    let out = isocheck(&["run", "--online", "--repeat", "2", "--out", dir], None);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("--repeat"), "{}", out.stderr);
}

/// The rounds' verdict (anomalies settled on transactions retired on the generator's fences, and a last
/// check of what was held) is the ordinary check's of the history the run wrote: `run.json` says whether
/// they agree. Seeded engine runs, planted defect and correct; the assertion is on the agreement, whatever
/// the interleaving made of the run (how much it retired depends on that: docs/online-checking.md).
///
/// The history is streamed to disk as it is merged; a run the rounds find valid takes their verdict
/// (`verdict_from: rounds`) and never holds the history, and then `isocheck check` of the file written
/// must say the same, exactly: valid, no anomaly. A run with anomalies reads the file back and is
/// checked as without `--online` (`verdict_from: check`), its rounds' verdict compared.
#[test]
fn an_online_runs_rounds_reach_the_checks_verdict() {
    let mut from_rounds = 0;
    for (seed, defect) in [("1", Some("ssi-off")), ("2", Some("ssi-off")), ("3", None), ("4", None)] {
        let mut extra = vec!["--txns", "3000", "--seed", seed];
        extra.extend(defect.map(|d| ["--defect", d]).into_iter().flatten());
        let run = online_run_agreeing_with_its_file(&extra);
        assert_eq!(run.code, if run.types.is_empty() { 0 } else { 1 }, "seed {seed}: {:?}", run.types);
        from_rounds += usize::from(run.from_rounds);
    }
    // The correct engine aborts some of 3,000 contended serializable transactions (first committer wins):
    // its runs take the rounds' verdict.
    assert!(from_rounds > 0, "no run took the rounds' verdict: the test shows nothing of it");
}

/// A run that aborted nothing takes the rounds' verdict too where `zero-abort-under-contention` cannot
/// fire, judged on the contended pairs the stream counted: one client's transactions never overlap, so
/// none conflicts and the history is never read back; run.json's contended pairs are the stream's (zero,
/// and the file's: checked by [`online_run_agreeing_with_its_file`]).
#[test]
fn a_run_that_aborted_nothing_takes_the_rounds_verdict_when_nothing_was_contended() {
    for workload in ["list-append", "rw-register"] {
        let run = online_run_agreeing_with_its_file(&["--workload", workload, "--clients", "1", "--txns", "2000"]);
        assert_eq!((run.code, run.summary["fail"].as_u64()), (0, Some(0)), "{workload}: {}", run.summary);
        assert!(run.from_rounds, "{workload}: {}", run.summary["online"]);
        assert_eq!(run.summary["contended_pairs"], serde_json::json!({"write_write": 0, "read_write": 0}));
    }
}

/// What [`online_run_agreeing_with_its_file`] saw of a run.
pub(crate) struct AgreeingRun {
    pub code: i32,
    pub summary: serde_json::Value,
    pub types: Vec<String>,
    /// Whether the run took the rounds' verdict (`online.verdict_from: rounds`).
    pub from_rounds: bool,
    /// The history written, as JSON, an operation a line.
    pub ops: Vec<serde_json::Value>,
}

/// Runs `isocheck run --online --keep-going` with `extra` and asserts what holds of any such run, on any
/// system and whatever the interleaving made of it: the history was streamed to disk, two lines a
/// transaction (the final reads and final transaction included); the rounds decided the exact models
/// again at most once a round; the verdict came from the rounds exactly when the run had no nemesis and
/// a generated workload (list-append or rw-register), the rounds found it valid and
/// `zero-abort-under-contention` did not fire (the stream counts the contended pairs), and otherwise from
/// the check
/// of the file read back, with the rounds' verdict agreeing where they reached one (no nemesis); and
/// `isocheck check FILE` against the models the run checked gives the run's anomaly types and exit code.
pub(crate) fn online_run_agreeing_with_its_file(extra: &[&str]) -> AgreeingRun {
    let (code, stdout, stderr, summary, types, dir) = online_run(&[&["--keep-going"], extra].concat());
    let findings: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("run").join("findings.json")).expect("the findings are written"),
    )
    .expect("JSON");
    let models: Vec<&str> = findings["checked"]["models"]
        .as_array()
        .map_or_else(Vec::new, |a| a.iter().filter_map(serde_json::Value::as_str).collect());
    assert!(!models.is_empty(), "{extra:?}: {findings}");
    let online = &summary["online"];
    let context = format!("{extra:?}: {online}");
    assert_eq!(online["streamed"], serde_json::json!(true), "{context}");
    assert!(online["retired_txns"].is_u64(), "{context}");
    // A round decides the exact models again only before it retires, so at most once a round.
    let rechecks = online["exact_rechecks"]["count"].as_u64().expect("a count");
    assert!(rechecks <= online["rounds"].as_u64().expect("a count"), "{context}");
    assert!(online["exact_rechecks"]["seconds"].is_f64(), "{context}");
    let nemesis = !summary["nemesis"].is_null();
    let generated = summary["workload"] == "list-append" || summary["workload"] == "rw-register";
    let zero_abort = findings["flags"]
        .as_array()
        .is_some_and(|flags| flags.iter().any(|f| f["name"] == "zero-abort-under-contention"));
    let from_rounds = !nemesis && generated && types.is_empty() && !zero_abort && code == 0;
    if from_rounds {
        assert_eq!(online["verdict_from"], "rounds", "{context}\n{summary}");
        // No graph of the whole history was built: the statistics say so rather than "none".
        assert_eq!(findings["stats"]["counts_only"], serde_json::json!(true), "{context}");
        assert!(stdout.contains("; dependencies: not counted ("), "{context}\n{stdout}");
    } else {
        assert!(findings["stats"].get("counts_only").is_none(), "{context}");
        assert_eq!(online["verdict_from"], "check", "{context}");
        // Under a nemesis the rounds reach no verdict: they do not see the final reads.
        let agrees = if nemesis { serde_json::Value::Null } else { serde_json::json!(true) };
        assert_eq!(online["final_agrees"], agrees, "{context}\n{stdout}\n{stderr}");
    }
    let history = dir.path().join("run").join("history.jsonl");
    let ops: Vec<serde_json::Value> = std::fs::read_to_string(&history)
        .expect("the history is written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let transaction_ops = ops.iter().filter(|op| op["process"] != "nemesis" && op["f"] != "init").count();
    assert_eq!(transaction_ops as u64, 2 * transactions(&summary), "{extra:?}: every invocation and its completion");
    for (i, op) in ops.iter().enumerate() {
        assert_eq!(op["index"], i, "{extra:?}: the file is indexed in order");
    }
    // The contended pairs in run.json (counted as the history streamed, or on the history read back) are
    // those of the file.
    let text = std::fs::read_to_string(&history).expect("the history is written");
    let written = histories::parse(&text, histories::Format::JsonLines, "history.jsonl").expect("the history reads");
    let contention = checker::timing::contention(&written);
    assert_eq!(
        (&summary["contended_pairs"]["write_write"], &summary["contended_pairs"]["read_write"]),
        (&serde_json::json!(contention.write_write), &serde_json::json!(contention.read_write)),
        "{extra:?}: {summary}"
    );
    let mut check = vec!["check", history.to_str().expect("a UTF-8 path"), "--format", "json"];
    check.extend(models.iter().flat_map(|m| ["--model", m]));
    let again = isocheck(&check, None);
    let checked: serde_json::Value = serde_json::from_str(&again.stdout).expect("JSON");
    let checked_types: Vec<String> = checked["anomaly_types"]
        .as_array()
        .map_or_else(Vec::new, |a| a.iter().filter_map(|t| t.as_str().map(str::to_string)).collect());
    assert_eq!(checked_types, types, "{extra:?}: the online run's verdict is the check's of its history");
    assert_eq!(again.code, code, "{extra:?}: {stderr}");
    AgreeingRun { code, summary, types, from_rounds, ops }
}

/// rw-register stands in what no later write or read can change (docs/online-checking.md): with the
/// engine's commit positions recorded and no assumption made, a key's version order only grows, so a
/// read of an aborted write (`dirty-read`) or a cycle through read-write edges (`ssi-off`) stops a
/// register run as `ssi-off`'s G2-item stops a list-append one; the final check of the history kept
/// rules out every model the anomaly that stopped it does.
#[test]
fn a_register_run_with_a_planted_defect_stops_at_the_first_anomaly_that_stands() {
    for defect in ["dirty-read", "ssi-off"] {
        let (code, stdout, stderr, summary, types, _dir) =
            online_run(&["--workload", "rw-register", "--defect", defect, "--duration", "60s", "--seed", "1"]);
        assert_eq!(code, 1, "{defect}: {stdout}\n{stderr}");
        let name = summary["online"]["stopped_by"]["anomaly"]
            .as_str()
            .unwrap_or_else(|| panic!("{defect}: the online check stopped the run: {summary}"));
        let by_it = checker::consistency_model::impossible_models([name]);
        let by_final = checker::consistency_model::impossible_models(types.iter().map(String::as_str));
        assert!(
            !by_it.is_empty() && by_it.is_subset(&by_final),
            "{defect}: {name} rules out {by_it:?}, the final check ({types:?}) only {by_final:?}"
        );
        assert!(summary["elapsed_s"].as_f64().expect("elapsed") < 60.0, "{defect}: the run stopped before its limit");
    }
}

/// The keys the rounds release (retired on the generator's fences, every transaction naming them retired)
/// are forgotten by the engine, so its memory stays flat (issue 45); the verdict is still the check's of
/// the history written, exactly, and the streamed tally still counts every key once. A correct run takes
/// the rounds' verdict; a planted defect is still caught.
#[test]
fn an_online_engine_run_forgets_the_keys_its_rounds_release_and_keeps_the_checks_verdict() {
    for (seed, defect) in [("3", None), ("1", Some("ssi-off"))] {
        let mut extra = vec!["--keep-going", "--txns", "20000", "--seed", seed];
        extra.extend(defect.map(|d| ["--defect", d]).into_iter().flatten());
        let (code, stdout, stderr, summary, types, dir) = online_run(&extra);
        let online = &summary["online"];
        let released = online["released_keys"].as_u64().expect("a count");
        assert_eq!(online["forgotten_keys"].as_u64(), Some(released), "seed {seed}: the engine forgets each: {online}");
        let history = dir.path().join("run").join("history.jsonl");
        let again = isocheck(
            &["check", history.to_str().expect("a UTF-8 path"), "--model", "serializable", "--format", "json"],
            None,
        );
        let checked: serde_json::Value = serde_json::from_str(&again.stdout).expect("JSON");
        let keys = checked["stats"]["keys"].as_u64().expect("a count");
        // Keys rotate out every few dozen transactions: most of the run's are released by its end.
        assert!(2 * released > keys && released <= keys, "seed {seed}: {released} of {keys} keys released");
        let findings: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join("run").join("findings.json")).expect("findings"),
        )
        .expect("JSON");
        assert_eq!(findings["stats"]["keys"].as_u64(), Some(keys), "seed {seed}: a released key counts once");
        let checked_types: Vec<String> = checked["anomaly_types"]
            .as_array()
            .map_or_else(Vec::new, |a| a.iter().filter_map(|t| t.as_str().map(str::to_string)).collect());
        assert_eq!(checked_types, types, "seed {seed}: the online run's verdict is the check's of its history");
        match defect {
            None => {
                assert_eq!((code, online["verdict_from"].as_str()), (0, Some("rounds")), "{stdout}\n{stderr}");
            }
            Some(_) => {
                assert_eq!(code, 1, "{stdout}\n{stderr}");
                assert!(types.contains(&"G2-item".to_string()), "seed {seed}: ssi-off is caught: {types:?}");
                assert_eq!(online["final_agrees"], serde_json::json!(true), "seed {seed}: {online}");
            }
        }
    }
}

/// A register run's verdict, as a list-append run's, is its rounds' when they find it valid: the history
/// stays on disk, never read back, and `isocheck check` of the file says the same. Seeded engine runs under
/// both realtime and non-realtime models (retirement by commit position differs: docs/online-checking.md),
/// a correct one taking the rounds' verdict and one with `ssi-off` read back and checked, its rounds'
/// verdict compared.
#[test]
fn a_streamed_register_runs_rounds_reach_the_checks_verdict() {
    let mut from_rounds = 0;
    for (seed, model, defect) in
        [("5", "serializable", None), ("6", "strict-serializable", None), ("1", "serializable", Some("ssi-off"))]
    {
        let mut extra = vec!["--workload", "rw-register", "--txns", "3000", "--seed", seed, "--model", model];
        extra.extend(defect.map(|d| ["--defect", d]).into_iter().flatten());
        let run = online_run_agreeing_with_its_file(&extra);
        assert_eq!(run.code, if run.types.is_empty() { 0 } else { 1 }, "seed {seed}: {:?}", run.types);
        if defect.is_some() {
            assert!(run.types.contains(&"G2-item".to_string()), "seed {seed}: ssi-off is caught: {:?}", run.types);
        }
        from_rounds += usize::from(run.from_rounds);
    }
    assert!(from_rounds > 0, "no register run took the rounds' verdict: the test shows nothing of it");
}

/// What runs after the clients follows them into the streamed file, though their logs kept none of
/// their operations: under a nemesis, the final reads (after the last fault, every key a client touched
/// read by a committed one: the logs kept the keys); with a final transaction (bank), its read of every
/// account. Both runs are read back and checked, and agree with `isocheck check` of their files.
#[test]
fn what_follows_the_clients_is_streamed_after_them_under_a_nemesis_and_with_a_final_transaction() {
    let run = online_run_agreeing_with_its_file(&[
        "--duration",
        "1s",
        "--seed",
        "1",
        "--nemesis",
        "kill-connections",
        "--nemesis-every",
        "100ms",
    ]);
    assert_eq!((run.code, run.types.len()), (0, 0), "{}", run.summary);
    let keys = |f: &str, committed: bool| -> std::collections::BTreeSet<String> {
        run.ops
            .iter()
            .filter(|op| op["f"] == f && (!committed || op["type"] == "ok"))
            .flat_map(|op| op["value"].as_array().cloned().unwrap_or_default())
            .map(|mop| mop[1].to_string())
            .collect()
    };
    // Every key a committed transaction named is read back, and no key no transaction named.
    let (finals, touched) = (keys("final-read", true), keys("txn", false));
    assert!(!keys("txn", true).is_empty());
    assert!(keys("txn", true).is_subset(&finals), "the final reads cover every key committed to");
    assert!(finals.is_subset(&touched), "the final reads read only keys the clients touched");
    let last_fault = run.ops.iter().rposition(|op| op["process"] == "nemesis").expect("a second of faults");
    let first_final = run.ops.iter().position(|op| op["f"] == "final-read").expect("final reads");
    assert!(last_fault < first_final, "the final reads come after the last fault");

    // The near miss of a workload with a final transaction and no nemesis: its final read is last.
    let run = online_run_agreeing_with_its_file(&["--workload", "bank", "--txns", "2000", "--seed", "1"]);
    assert_eq!((run.code, run.types.len()), (0, 0), "{}", run.summary);
    let last = run.ops.last().expect("a history");
    assert_eq!((&last["f"], &last["type"]), (&serde_json::json!("read"), &serde_json::json!("ok")), "{last}");
    assert_eq!(run.ops.iter().filter(|op| op["f"] == "read").count(), 2, "one final read, invoked and completed");
}
