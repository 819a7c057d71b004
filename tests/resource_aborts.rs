//! A PostgreSQL run that hits SQLSTATE 53200 ("out of shared memory": the predicate-lock table of
//! serializable transactions is full) goes on: the transactions that hit it are recorded as `fail` with
//! cause 53200, the history checks valid, and the run raises the `resource-aborts` flag naming the setting
//! the server's hint names (`max_pred_locks_per_transaction`).
//!
//! The table is filled deterministically, whatever the server's size: one serializable transaction stays
//! open, so every serializable transaction that commits after it began keeps its predicate locks; then
//! transactions that each read 100 tables (one relation lock apiece) commit one after another until the
//! server answers 53200. The table then has room for fewer than 100 more locks, and the run's transactions
//! keep theirs too, so the run must hit 53200 within its first hundred reads. While the table is full every
//! serializable read on the server fails, so this test has a binary of its own: `cargo test` runs test
//! binaries one at a time, and no other test shares the server meanwhile (scripts/test starts the server).

// The integration harness's helpers; this binary uses two of them.
#[allow(dead_code)]
mod util;

use crate::util::{pg_urls, run_json};
use postgres::{Client, NoTls};

/// Relations each filling transaction reads.
const TABLES: usize = 100;
/// Filling transactions at most: PostgreSQL's lock table holds 2 × max_pred_locks_per_transaction ×
/// (backends) locks, about 28,000 with the test server's 200 connections.
const MAX_FILLERS: usize = 5_000;

/// The tables this test made, dropped when it ends (a failed assertion included).
struct Hog {
    url: String,
    prefix: String,
}

impl Drop for Hog {
    fn drop(&mut self) {
        if let Ok(mut c) = Client::connect(&self.url, NoTls) {
            let tables: Vec<String> = (0..TABLES).map(|i| format!("{}_{i}", self.prefix)).collect();
            let _ = c.batch_execute(&format!("DROP TABLE IF EXISTS {}_w, {}", self.prefix, tables.join(", ")));
        }
    }
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn a_postgres_run_that_fills_the_predicate_lock_table_records_53200_as_fail_and_goes_on() {
    for url in pg_urls("a_postgres_run_that_fills_the_predicate_lock_table_records_53200_as_fail_and_goes_on") {
        let hog = Hog { url: url.clone(), prefix: format!("isocheck_hog_{}", std::process::id()) };
        let mut setup = Client::connect(&url, NoTls).expect("PostgreSQL reachable");
        let mut ddl =
            format!("CREATE TABLE {0}_w (k int PRIMARY KEY, v int); INSERT INTO {0}_w VALUES (1, 0);", hog.prefix);
        for i in 0..TABLES {
            ddl.push_str(&format!("CREATE TABLE {}_{i} (k int);", hog.prefix));
        }
        setup.batch_execute(&ddl).expect("the tables are created");

        // The holder: its snapshot predates every filler, so their locks outlive their commits.
        let mut holder = Client::connect(&url, NoTls).expect("a second connection");
        holder.batch_execute("BEGIN ISOLATION LEVEL SERIALIZABLE; SELECT 1").expect("the holder begins");
        let read_all = format!(
            "SELECT {}",
            (0..TABLES).map(|i| format!("(SELECT count(*) FROM {}_{i})", hog.prefix)).collect::<Vec<_>>().join(" + ")
        );
        let filler = format!(
            "BEGIN ISOLATION LEVEL SERIALIZABLE; {read_all}; UPDATE {0}_w SET v = v + 1 WHERE k = 1; COMMIT",
            hog.prefix
        );
        let mut filled = None;
        for n in 0..MAX_FILLERS {
            if let Err(e) = setup.batch_execute(&filler) {
                let code = e.code().map(|c| c.code().to_string());
                assert_eq!(code.as_deref(), Some("53200"), "a filler failed otherwise: {e}");
                setup.batch_execute("ROLLBACK").expect("the failed filler rolls back");
                filled = Some(n);
                break;
            }
        }
        let fillers = filled.unwrap_or_else(|| panic!("{MAX_FILLERS} fillers never filled the predicate-lock table"));
        eprintln!("the predicate-lock table filled after {fillers} transactions of {TABLES} relation locks");

        let (code, json, dir) = run_json(&[
            "--db",
            "postgres",
            "--url",
            &url,
            "--isolation",
            "serializable",
            "--clients",
            "2",
            "--txns",
            "300",
        ]);
        holder.batch_execute("ROLLBACK").expect("the holder ends");
        assert_eq!(code, 0, "the run completes and checks valid: {json}");
        let causes = &json["run"]["aborts_by_cause"];
        let resource = causes["53200"].as_u64().unwrap_or(0);
        assert!(resource >= 1, "some transactions hit 53200: {causes}");
        assert_eq!(
            json["run"]["ok"].as_u64().unwrap_or(0)
                + json["run"]["fail"].as_u64().unwrap_or(0)
                + json["run"]["info"].as_u64().unwrap_or(0),
            300
        );
        let history = std::fs::read_to_string(dir.path().join("run/history.jsonl")).expect("the history was written");
        let failed =
            history.lines().filter(|l| l.contains(r#""type":"fail""#) && l.contains(r#""error":"53200""#)).count();
        assert_eq!(failed as u64, resource, "each 53200 is a fail op with its SQLSTATE as the cause");
        let flags = json["flags"].as_array().expect("flags");
        let flag = flags.iter().find(|f| f["name"] == "resource-aborts").unwrap_or_else(|| panic!("the flag: {json}"));
        assert_eq!(flag["figures"]["setting"], "max_pred_locks_per_transaction", "{flag}");
        drop(hog);
    }
}
