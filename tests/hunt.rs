//! Hunting rare anomalies end to end: `run --repeat` and `run --until-invalid` on the engine with
//! `ssi-off` (write skew with a hold, so anomalies are likely but not certain). The tests assert only
//! what does not depend on how many runs happened to fail: every failing run's evidence is kept and
//! every passing run's is not, the summary's counts are the kept runs' own findings, `--until-invalid`
//! stops at its first failure, and Ctrl-C stops the hunt with a summary of what it has.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::util::isocheck;

const HUNT: [&str; 9] = ["run", "--workload", "write-skew", "--defect", "ssi-off", "--hold", "1ms", "--format", "json"];

/// The run directories kept under `out/runs`, by name.
fn kept(out: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(out.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Asserts the summary agrees with the files: one kept directory per failing run, with its evidence,
/// and the counts by anomaly are those of the kept runs' findings.
fn assert_summary_matches_files(out: &Path, summary: &serde_json::Value) {
    let failing = summary["failing"].as_array().unwrap();
    assert_eq!(summary["failed"].as_u64().unwrap() as usize, failing.len());
    let dirs: Vec<String> =
        failing.iter().map(|f| f["dir"].as_str().unwrap().strip_prefix("runs/").unwrap().to_string()).collect();
    assert_eq!(kept(out), dirs, "exactly the failing runs are kept");
    let mut by_anomaly: BTreeMap<String, u64> = BTreeMap::new();
    for f in failing {
        let dir = out.join(f["dir"].as_str().unwrap());
        for file in ["history.jsonl", "run.json", "findings.json", "report.html", "shrunk/history.jsonl"] {
            assert!(dir.join(file).is_file(), "{}/{file} is missing", dir.display());
        }
        let findings: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("findings.json")).unwrap()).unwrap();
        assert_eq!(findings["valid"], false, "{}", dir.display());
        let mut anomalies: Vec<String> =
            findings["anomaly_types"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect();
        for invariant in findings["invariants"].as_array().into_iter().flatten() {
            if invariant["holds"] == false {
                anomalies.push(invariant["name"].as_str().unwrap().to_string());
            }
        }
        assert_eq!(f["anomalies"], serde_json::json!(anomalies), "{}", dir.display());
        for a in anomalies {
            *by_anomaly.entry(a).or_default() += 1;
        }
        let run: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
        assert_eq!(run["seed"], f["seed"], "{}", dir.display());
    }
    assert_eq!(summary["by_anomaly"], serde_json::json!(by_anomaly));
    let on_disk: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(&on_disk, summary);
}

#[test]
fn repeat_keeps_every_failing_run_and_the_summary_counts_them() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("hunt");
    let args = [&HUNT[..], &["--txns", "60", "--repeat", "3", "--out", out.to_str().unwrap()]].concat();
    let output = isocheck(&args, None);
    let summary: serde_json::Value =
        serde_json::from_str(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", output.stderr));
    assert_eq!((summary["runs"].as_u64(), summary["stopped"].as_str()), (Some(3), Some("completed")));
    assert_summary_matches_files(&out, &summary);
    let failed = summary["failed"].as_u64().unwrap();
    assert_eq!(output.code, if failed > 0 { 1 } else { 0 }, "{}", output.stderr);
    let seeds: Vec<u64> = summary["failing"].as_array().unwrap().iter().map(|f| f["seed"].as_u64().unwrap()).collect();
    assert!(seeds.iter().all(|s| (1..=3).contains(s)), "successive seeds from --seed: {seeds:?}");
}

#[test]
fn until_invalid_stops_at_the_first_failing_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("hunt");
    let args = [
        &HUNT[..],
        &["--txns", "60", "--until-invalid", "--max-runs", "4", "--seed", "7", "--out", out.to_str().unwrap()],
    ]
    .concat();
    let output = isocheck(&args, None);
    let summary: serde_json::Value =
        serde_json::from_str(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", output.stderr));
    assert_summary_matches_files(&out, &summary);
    let runs = summary["runs"].as_u64().unwrap();
    match summary["failed"].as_u64().unwrap() {
        0 => assert_eq!((runs, summary["stopped"].as_str()), (4, Some("completed"))),
        1 => {
            assert_eq!(summary["stopped"], "found-invalid");
            assert_eq!(summary["failing"][0]["run"].as_u64(), Some(runs), "the failing run is the last");
            assert_eq!(summary["failing"][0]["seed"].as_u64(), Some(7 + runs - 1));
        }
        more => panic!("{more} failing runs: --until-invalid stops at the first"),
    }
}

#[test]
fn ctrl_c_stops_the_hunt_with_a_summary_of_what_it_has() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("hunt");
    let args = [&HUNT[..], &["--txns", "100", "--repeat", "1000", "--out", out.to_str().unwrap()]].concat();
    let mut child = Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    // The handler is installed before the first run: once a run has reported, Ctrl-C is handled.
    let mut line = String::new();
    loop {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "the hunt ended before its first run reported");
        if line.contains("run 1/1000") {
            break;
        }
    }
    let drain = std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    drain.join().unwrap().unwrap();
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["stopped"], "interrupted");
    assert!(summary["runs"].as_u64().unwrap() < 1000);
    assert_summary_matches_files(&out, &summary);
    assert!([0, 1].contains(&output.status.code().unwrap()), "{:?}", output.status);
}
