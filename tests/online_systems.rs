//! `isocheck run --online` on the systems beside the embedded engine: SQLite, the engine served over
//! the exec protocol, PostgreSQL (15, and 18 where the test command starts it) and MariaDB (Galera's
//! is in `galera.rs`, which holds the cluster's turn). Each run streams its history, and its verdict,
//! from the rounds or from the file read back, is exactly what `isocheck check` says of the file it
//! wrote (`run_online::online_run_agreeing_with_its_file`), also under SQLite's killed connections,
//! whose final reads follow the clients into the file; the serializable systems check valid;
//! PostgreSQL's repeatable read stops at the first G2-item that stands, as the engine's `ssi-off` does.
//!
//! No assertion depends on the interleaving: which verdict a run takes is read from what it found; the
//! write skew that stops PostgreSQL's repeatable read is asked of at most a few seeded runs
//! (`util::seeded_until`), and the history written by the one that showed it must show it again.

use crate::run_online::{online_run, online_run_agreeing_with_its_file};
use crate::util::{mysql_url, pg_urls, seeded_until};

#[test]
fn sqlite_checked_online_is_valid_and_agrees_with_its_file() {
    let run = online_run_agreeing_with_its_file(&["--db", "sqlite", "--txns", "1500", "--seed", "1"]);
    assert_eq!((run.code, run.types.len()), (0, 0), "{}", run.summary);
    assert_eq!(run.summary["db"], "sqlite");
}

#[test]
fn sqlite_checked_online_under_killed_connections_streams_its_final_reads_and_agrees_with_its_file() {
    let args = ["--db", "sqlite", "--txns", "1500", "--nemesis", "kill-connections", "--nemesis-every", "100ms"];
    let run = online_run_agreeing_with_its_file(&[&args[..], &["--seed", "1"]].concat());
    assert_eq!((run.code, run.types.len()), (0, 0), "{}", run.summary);
    assert!(run.ops.iter().any(|op| op["f"] == "final-read" && op["type"] == "ok"), "{}", run.summary);
}

#[test]
fn the_engine_over_exec_checked_online_agrees_with_its_file_correct_or_not() {
    let cmd = |flags: &str| format!("'{}' serve-exec {flags}", env!("CARGO_BIN_EXE_isocheck"));
    let correct = cmd("");
    let run = online_run_agreeing_with_its_file(&["--db", "exec", "--cmd", &correct, "--txns", "1500", "--seed", "1"]);
    assert_eq!((run.code, run.types.len()), (0, 0), "{}", run.summary);
    // The near miss: the same program with a defect planted; whatever the run found, the verdict is
    // the file's.
    let dirty = cmd("--defect dirty-read");
    let run = online_run_agreeing_with_its_file(&["--db", "exec", "--cmd", &dirty, "--txns", "1500", "--seed", "1"]);
    assert_eq!(run.code, if run.types.is_empty() { 0 } else { 1 }, "{:?}", run.types);
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn postgres_serializable_checked_online_is_valid_and_agrees_with_its_file() {
    for url in pg_urls("postgres_serializable_checked_online_is_valid_and_agrees_with_its_file") {
        let args = ["--db", "postgres", "--url", &url, "--txns", "800", "--key-count", "6", "--seed", "1"];
        let run = online_run_agreeing_with_its_file(&args);
        assert_eq!((run.code, run.types.len()), (0, 0), "{url}: {}", run.summary);
    }
}

/// Runs `run --online` on PostgreSQL at `url` under repeatable read (8 clients on 3 keys, 1,000
/// transactions, with `extra`), asking at most [`crate::util::LIVE_ATTEMPTS`] seeded runs for one that
/// stops at a G2-item; that run printed it as it stood, exits 1, and its final check keeps it.
fn stops_at_the_first_g2_item_under_repeatable_read(url: &str, extra: &[&str]) {
    let args = [
        "--db",
        "postgres",
        "--url",
        url,
        "--isolation",
        "repeatable-read",
        "--txns",
        "1000",
        "--clients",
        "8",
        "--key-count",
        "3",
    ];
    let stopped = |run: &(i32, String, String, serde_json::Value, Vec<String>, tempfile::TempDir)| {
        run.3["online"]["stopped_by"]["anomaly"] == "G2-item"
    };
    let got = seeded_until(|seed| online_run(&[&args[..], extra, &["--seed", seed]].concat()), stopped);
    assert!(stopped(&got), "{url} {extra:?}: no run of {} stopped at a G2-item: {}", crate::util::LIVE_ATTEMPTS, got.3);
    let (code, stdout, stderr, _summary, types, _dir) = got;
    assert_eq!(code, 1, "{url} {extra:?}: {stderr}");
    assert!(stdout.contains("G2-item stands after"), "{url} {extra:?}: printed as it stood: {stdout}");
    assert!(types.contains(&"G2-item".to_string()), "{url} {extra:?}: the final check keeps it: {types:?}");
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn postgres_repeatable_read_checked_online_stops_at_the_first_g2_item() {
    for url in pg_urls("postgres_repeatable_read_checked_online_stops_at_the_first_g2_item") {
        stops_at_the_first_g2_item_under_repeatable_read(&url, &[]);
    }
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn mariadb_serializable_checked_online_is_valid_and_agrees_with_its_file() {
    let url = mysql_url("mariadb_serializable_checked_online_is_valid_and_agrees_with_its_file");
    let args =
        ["--db", "mariadb", "--url", &url, "--txns", "1500", "--clients", "8", "--key-count", "6", "--seed", "1"];
    let run = online_run_agreeing_with_its_file(&args);
    assert_eq!((run.code, run.types.len()), (0, 0), "{}", run.summary);
}

/// The numbered writes a register run on PostgreSQL or MariaDB records (`["w", k, v, version]`, the
/// version its adapter read back; no commit position): every committed write carries one.
fn every_committed_write_is_numbered(ops: &[serde_json::Value]) -> bool {
    let writes: Vec<&serde_json::Value> = ops
        .iter()
        .filter(|op| op["type"] == "ok")
        .filter_map(|op| op["value"].as_array())
        .flatten()
        .filter(|mop| mop[0] == "w")
        .collect();
    !writes.is_empty() && writes.iter().all(|mop| mop.as_array().is_some_and(|m| m.len() == 4 && m[3].is_i64()))
}

/// A register run on PostgreSQL checked online retires by the version numbers its writes carry (each key's
/// order rests on them alone: docs/online-checking.md, *The rule (rw-register)*) and takes its rounds'
/// verdict, which `isocheck check` of the file repeats; under repeatable read, a G2-item through the
/// read-write edges those numbers order stands in a round and stops the run. That the serializable run
/// retired something does not hang on the interleaving: keys rotate out every few dozen transactions, and
/// the first key's transactions, once all complete, have no transaction outside them on it.
#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn postgres_register_runs_checked_online_retire_by_version_numbers() {
    for url in pg_urls("postgres_register_runs_checked_online_retire_by_version_numbers") {
        let args = [
            "--db",
            "postgres",
            "--url",
            &url,
            "--workload",
            "rw-register",
            "--txns",
            "1500",
            "--key-count",
            "6",
            "--seed",
            "1",
        ];
        let run = online_run_agreeing_with_its_file(&args);
        assert_eq!((run.code, run.types.len()), (0, 0), "{url}: {}", run.summary);
        assert!(every_committed_write_is_numbered(&run.ops), "{url}: the writes carry version numbers");
        let retired = run.summary["online"]["retired_txns"].as_u64().expect("a count");
        assert!(retired > 0, "{url}: nothing retired: {}", run.summary);
        stops_at_the_first_g2_item_under_repeatable_read(&url, &["--workload", "rw-register"]);
    }
}

/// MariaDB's register writes are numbered as PostgreSQL's: a serializable register run checked online
/// retires by the numbers, takes its rounds' verdict (valid), and `isocheck check` of the file agrees.
#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn mariadb_register_run_checked_online_retires_by_version_numbers() {
    let url = mysql_url("mariadb_register_run_checked_online_retires_by_version_numbers");
    let args = [
        "--db",
        "mariadb",
        "--url",
        &url,
        "--workload",
        "rw-register",
        "--txns",
        "1500",
        "--clients",
        "8",
        "--key-count",
        "6",
        "--seed",
        "1",
    ];
    let run = online_run_agreeing_with_its_file(&args);
    assert_eq!((run.code, run.types.len()), (0, 0), "{}", run.summary);
    assert!(every_committed_write_is_numbered(&run.ops), "the writes carry version numbers");
    assert!(run.summary["online"]["retired_txns"].as_u64().expect("a count") > 0, "nothing retired: {}", run.summary);
}
