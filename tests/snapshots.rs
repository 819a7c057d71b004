//! The exact text of `run`, `overlap` and `hermitage`, snapshot-tested (insta), so a change of wording
//! is a reviewed diff. Only the figures that vary from one run to the next are masked (elapsed times,
//! throughput, temporary paths, the overlap's measured milliseconds, how a prevented Hermitage cell was
//! prevented); every configuration here is chosen so the rest holds on a busy machine too: runs of one
//! client (nothing overlaps, so the counts follow from the seed alone), and the overlap of the
//! `global-lock` defect, which runs its holds one at a time however loaded the machine is (a busy
//! machine can only make them slower, and slower is still serialized).

use crate::util::isocheck;

/// Runs `isocheck` and returns its standard output, asserting the exit code.
fn stdout(args: &[&str], code: i32) -> String {
    let out = isocheck(args, None);
    assert_eq!(out.code, code, "{args:?}: {}{}", out.stdout, out.stderr);
    out.stdout
}

/// Masks the figures of a run's text that vary from run to run.
macro_rules! run_filters {
    () => {
        vec![
            (r"in [0-9]+\.[0-9]+ s \([0-9]+ txn/s\)", "in [elapsed] s ([throughput] txn/s)"),
            (r"History: .*history\.jsonl", "History: [dir]/history.jsonl"),
            (r"(?m)^.*history\.jsonl: ", "[dir]/history.jsonl: "),
            (r"holding for [0-9.]+ ms in all", "holding for [busy] ms in all"),
        ]
    };
}

#[test]
fn run_text_of_a_clean_list_append_run() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("run");
    let text =
        stdout(&["run", "--clients", "1", "--txns", "30", "--seed", "3", "--out", out.to_str().expect("UTF-8")], 0);
    insta::with_settings!({filters => run_filters!()}, {
        insta::assert_snapshot!("run_list_append", text);
    });
}

#[test]
fn run_text_of_a_bank_run_with_its_holds_and_invariants() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("run");
    let text = stdout(
        &["run", "--workload", "bank", "--clients", "1", "--txns", "20", "--out", out.to_str().expect("UTF-8")],
        0,
    );
    insta::with_settings!({filters => run_filters!()}, {
        insta::assert_snapshot!("run_bank", text);
    });
}

#[test]
fn overlap_text_of_the_global_lock_defect() {
    let text = stdout(&["overlap", "--defect", "global-lock", "--clients", "2", "--hold-ms", "50", "--rounds", "2"], 0);
    let filters = vec![
        (r"Rounds: [0-9., ]+ ms", "Rounds: [rounds] ms"),
        (r"Median: [0-9.]+ ms = [0-9.]+ x the hold", "Median: [median] ms = [ratio] x the hold"),
        (r"they spanned [0-9.]+ ms", "they spanned [median] ms"),
    ];
    insta::with_settings!({filters => filters}, {
        insta::assert_snapshot!("overlap_global_lock", text);
    });
}

#[test]
fn hermitage_text_of_two_scenarios_on_the_engine() {
    let text = stdout(
        &["hermitage", "--scenario", "G1c", "--scenario", "G2-item", "--isolation", "read-committed,serializable"],
        0,
    );
    // Whether a prevented cell's step blocked or was simply never observed depends on how long a step
    // took; that the anomaly was prevented does not.
    let filters = vec![(r"(?m)^(engine [a-z-]+ [A-Za-z0-9-]+ +)prevented  .*$", "${1}prevented  [how]")];
    insta::with_settings!({filters => filters}, {
        insta::assert_snapshot!("hermitage_engine", text);
    });
}
