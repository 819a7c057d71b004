//! MariaDB end to end (the server the test command starts, `ISOCHECK_MYSQL_URL`): `run` at serializable
//! holds the bank's invariants and checks list-append valid, with aborts counted by MariaDB's error
//! numbers, also while its connections are killed; repeatable read is checked as Elle's
//! `repeatable-read` and quotes MariaDB's documentation; `hermitage` decides every cell of the matrix as
//! measured; `overlap` finds the holds at once; `compare` runs the four systems side by side.
//!
//! Each assertion holds for any interleaving a busy machine produces: serializable's invariants and
//! validity, the scripted Hermitage steps (each waits for the server's own report that a step waits for a
//! lock), shapes and labels. Counts that depend on timing (how many withdrawals overdraw at repeatable
//! read, how many transactions abort) are measured by the commands of docs/systems.md, never asserted.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::util::{self, isocheck, mysql_url, pg_urls, run_json};

fn db_args(url: &str) -> [&str; 4] {
    ["--db", "mariadb", "--url", url]
}

/// Every abort cause is one of MariaDB's error numbers for an abort, or a killed connection.
fn assert_mariadb_causes(json: &Value, allowed: &[&str]) {
    let causes = json["run"]["aborts_by_cause"].as_object().unwrap_or_else(|| panic!("{json}"));
    for cause in causes.keys() {
        assert!(allowed.contains(&cause.as_str()), "an abort with cause {cause}: {json}");
    }
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn mariadb_bank_at_serializable_holds_its_invariants_and_counts_aborts_by_cause() {
    let url = mysql_url("mariadb_bank_at_serializable_holds_its_invariants_and_counts_aborts_by_cause");
    let mut args = db_args(&url).to_vec();
    args.extend(["--workload", "bank", "--hold", "1ms", "--txns", "1500", "--clients", "8"]);
    let (code, json, _dir) = run_json(&args);
    assert_eq!(code, 0, "{json}");
    assert_eq!(json["run"]["level_mapping"], "native: SERIALIZABLE");
    assert!(json["run"]["documented_behaviour"].is_null(), "MariaDB's serializable is as its name says");
    let invariants = json["invariants"].as_array().unwrap();
    assert_eq!(invariants.len(), 3, "{json}");
    assert!(invariants.iter().all(|i| i["holds"] == true), "{json}");
    assert_mariadb_causes(&json, &["1213", "1205"]);
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn mariadb_list_append_at_serializable_checks_valid() {
    let url = mysql_url("mariadb_list_append_at_serializable_checks_valid");
    let mut args = db_args(&url).to_vec();
    args.extend(["--txns", "1500", "--clients", "8", "--key-count", "6"]);
    let (code, json, _dir) = run_json(&args);
    assert_eq!(code, 0, "{json}");
    assert_eq!(json["run"]["graph_check"], "checked", "{json}");
    assert_mariadb_causes(&json, &["1213", "1205"]);
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn mariadb_repeatable_read_is_checked_as_repeatable_read_and_quotes_mariadbs_documentation() {
    let url = mysql_url("mariadb_repeatable_read_is_checked_as_repeatable_read_and_quotes_mariadbs_documentation");
    let mut args = db_args(&url).to_vec();
    args.extend(["--isolation", "repeatable-read", "--workload", "write-skew", "--txns", "600"]);
    let (code, json, dir) = run_json(&args);
    // Whether this run's doctors overlapped is the machine's business; what the run promises is not.
    assert!(code == 0 || code == 1, "{json}");
    assert_eq!(json["run"]["level_mapping"], "native: REPEATABLE READ");
    let documented = &json["run"]["documented_behaviour"];
    assert_eq!(documented["link"], "https://mariadb.com/kb/en/transactions-repeatable-read", "{documented}");
    assert!(documented["quote"].as_str().unwrap_or("").starts_with("All consistent reads"), "{documented}");
    let run: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("run/run.json")).unwrap()).unwrap();
    assert_eq!(run["system_settings"]["innodb_snapshot_isolation"], "OFF", "{run}");
    assert!(run["system_version"].as_str().unwrap_or("").starts_with("MariaDB "), "{run}");
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn mariadb_snapshot_isolation_runs_as_repeatable_read_and_says_it_is_not() {
    let url = mysql_url("mariadb_snapshot_isolation_runs_as_repeatable_read_and_says_it_is_not");
    let mut args = db_args(&url).to_vec();
    args.extend(["--isolation", "snapshot-isolation", "--txns", "200"]);
    let (code, json, _dir) = run_json(&args);
    assert!(code == 0 || code == 1, "{json}");
    let mapping = json["run"]["level_mapping"].as_str().unwrap();
    assert!(
        mapping.starts_with("mapped to REPEATABLE READ: MariaDB's repeatable read is not snapshot isolation"),
        "{mapping}"
    );
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn mariadb_survives_killed_connections() {
    let url = mysql_url("mariadb_survives_killed_connections");
    let mut args = db_args(&url).to_vec();
    args.extend(["--txns", "1500", "--nemesis", "kill-connections", "--nemesis-every", "100ms"]);
    let (code, json, dir) = run_json(&args);
    // Killed transactions are `fail` (killed before COMMIT) or `info` (killed during it): never an anomaly.
    assert_eq!(code, 0, "{json}");
    assert_mariadb_causes(&json, &["1213", "1205", "connection lost"]);
    let history = std::fs::read_to_string(dir.path().join("run/history.jsonl")).unwrap();
    assert!(history.contains(r#""process":"nemesis""#), "the faults are in the history");
}

/// The scenarios the checker found an anomaly in, by level, `NAME (other)` where the anomaly found is not
/// the scenario's probe but another the level forbids (every other scenario was prevented).
fn anomalies_by_level(json: &Value) -> BTreeMap<String, Vec<String>> {
    let mut by_level: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for cell in json["matrix"].as_array().unwrap() {
        assert!(cell["db"].as_str().unwrap().starts_with("mariadb 1"), "the column names the release: {cell}");
        let level = by_level.entry(cell["isolation"].as_str().unwrap().to_string()).or_default();
        match cell["outcome"].as_str().unwrap() {
            "anomaly" => level.push(cell["anomaly"].as_str().unwrap().to_string()),
            "other-anomaly" => level.push(format!("{} (other)", cell["anomaly"].as_str().unwrap())),
            "prevented" => {}
            other => panic!("{other}: {cell}"),
        }
    }
    by_level
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn mariadb_hermitage_matrix_is_the_one_measured_and_hermitages_mysql_column_where_the_scripts_agree() {
    let url =
        mysql_url("mariadb_hermitage_matrix_is_the_one_measured_and_hermitages_mysql_column_where_the_scripts_agree");
    let mut args = vec![
        "hermitage",
        "--format",
        "json",
        "--isolation",
        "read-uncommitted,read-committed,repeatable-read,serializable",
    ];
    args.extend(db_args(&url));
    let out = isocheck(&args, None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let json: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout));
    let by_level = anomalies_by_level(&json);
    let below_rr =
        ["PMP", "P4", "G-single", "G-single-dependencies", "G-single-write-1", "G2-item", "G2", "G2-two-edges"];
    let mut read_uncommitted = vec!["G1a", "G1b", "G1c"];
    read_uncommitted.extend(below_rr);
    read_uncommitted.push("read-only");
    // MariaDB's PMP-write (T2 reads before its delete, as Hermitage's MySQL script): at read committed
    // the probe's G-single-item; at repeatable read G2-item and lost-update, which the level forbids
    // (docs/hermitage.md says why), as is G1c's script, whose reads miss each other's writes: a write skew.
    let mut read_committed = vec!["PMP", "PMP-write"];
    read_committed.extend(&below_rr[1..]);
    read_committed.push("read-only");
    // Repeatable read: lost update, read skew with a write (Hermitage's "R/O"), write skew, and the
    // read-only anomaly; its snapshot reads prevent the rest.
    let repeatable_read =
        ["G1c (other)", "PMP-write (other)", "P4", "G-single-write-1", "G2-item", "G2", "G2-two-edges", "read-only"];
    let expected: BTreeMap<String, Vec<String>> = [
        ("read-committed", read_committed),
        ("read-uncommitted", read_uncommitted),
        ("repeatable-read", repeatable_read.to_vec()),
        ("serializable", Vec::new()),
    ]
    .into_iter()
    .map(|(level, names)| (level.to_string(), names.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(by_level, expected);
    let serializable_how: Vec<&str> = json["matrix"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["isolation"] == "serializable")
        .map(|c| c["how"].as_str().unwrap())
        .collect();
    assert!(serializable_how.iter().all(|how| how.starts_with("blocked")), "two-phase locking: {serializable_how:?}");
    assert!(serializable_how.iter().any(|how| how.contains("aborted (1213)")), "deadlocks: {serializable_how:?}");
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn mariadb_holds_transactions_at_once() {
    let url = mysql_url("mariadb_holds_transactions_at_once");
    let args = ["overlap", "--rounds", "3", "--hold-ms", "300", "--format", "json", "--db", "mariadb", "--url", &url];
    // The first of up to three measurements that finds the holds at once, so that a scheduler's delay of
    // one client does not decide it (as tests/overlap.rs does for PostgreSQL).
    let mut last = Value::Null;
    for _ in 0..3 {
        let out = isocheck(&args, None);
        assert_eq!(out.code, 0, "{}", out.stderr);
        last = serde_json::from_str(&out.stdout).unwrap();
        if last["verdict"] == "concurrent" {
            break;
        }
    }
    assert_eq!(last["verdict"], "concurrent", "{last}");
    assert_eq!(last["level_mapping"], "native: SERIALIZABLE", "{last}");
}

#[test]
#[ignore = "needs PostgreSQL and MariaDB: set ISOCHECK_PG_URL and ISOCHECK_MYSQL_URL, or run scripts/test"]
fn compare_runs_the_four_systems_side_by_side() {
    let my = mysql_url("compare_runs_the_four_systems_side_by_side");
    for pg in pg_urls("compare_runs_the_four_systems_side_by_side") {
        let args = [
            "compare",
            "--db",
            "engine,sqlite,postgres,mariadb",
            "--url",
            &pg,
            "--url",
            &my,
            "--workload",
            "write-skew",
            "--txns",
            "300",
            "--rounds",
            "1",
            "--no-overlap",
            "--format",
            "json",
        ];
        let out = isocheck(&args, None);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let json: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout));
        let rows = json["rows"].as_array().unwrap();
        // A server's column names the release it reported (`postgres 15.18`, `mariadb 10.11.19`).
        let shape: Vec<(&str, &str)> = rows
            .iter()
            .map(|r| (util::system_of(r["db"].as_str().unwrap()), r["isolation"].as_str().unwrap()))
            .collect();
        let mut expected = Vec::new();
        for db in ["engine", "sqlite", "postgres", "mariadb"] {
            for level in ["read-committed", "snapshot-isolation", "serializable"] {
                expected.push((db, level));
            }
        }
        assert_eq!(shape, expected, "one row per system and level, in order");
        for row in rows {
            assert!(row["commits"].as_u64().unwrap() > 0, "{row}");
        }
        let is_mariadb = |r: &Value| r["db"].as_str().is_some_and(|db| db.starts_with("mariadb 1"));
        let mariadb_si = rows.iter().find(|r| is_mariadb(r) && r["isolation"] == "snapshot-isolation").unwrap();
        assert!(
            mariadb_si["level"].as_str().unwrap().contains("MariaDB's repeatable read is not snapshot isolation"),
            "{mariadb_si}"
        );
        let mariadb_serializable = rows.iter().find(|r| is_mariadb(r) && r["isolation"] == "serializable").unwrap();
        assert!(mariadb_serializable["anomalies"].as_array().unwrap().is_empty(), "{mariadb_serializable}");
    }
}

#[test]
#[ignore = "needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"]
fn mariadb_numbers_its_register_writes_so_a_register_run_orders_every_key() {
    let url = mysql_url("mariadb_numbers_its_register_writes_so_a_register_run_orders_every_key");
    for level in ["serializable", "repeatable-read"] {
        let mut args = db_args(&url).to_vec();
        args.extend(["--workload", "rw-register", "--isolation", level, "--txns", "600"]);
        let (_, json, dir) = run_json(&args);
        let (numbered, unnumbered, elsewhere) = crate::util::write_versions(dir.path());
        assert!(numbered > 0 && unnumbered == 0 && elsewhere == 0, "{level}: {numbered} {unnumbered} {elsewhere}");
        assert_eq!(json["stats"]["ordered_keys"], json["stats"]["keys"], "{level}: {}", json["stats"]);
        assert_eq!(json["stats"]["blind_spots"], serde_json::json!([]), "{level}: {}", json["stats"]);
        let checked = json["checked"]["numbered_writes"].as_u64().unwrap_or(0) as usize;
        assert!(checked > 0 && checked <= numbered, "external writes only: {checked} of {numbered}");
        // Whatever MariaDB allows at a level, its numbers never contradict what its clients saw.
        let types = crate::util::anomaly_types(&json);
        for contradiction in ["incompatible-order", "cyclic-versions"] {
            assert!(!types.iter().any(|t| t == contradiction), "{level}: {types:?}");
        }
    }
}
