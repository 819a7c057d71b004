//! Shrinking end to end, on a saved history: a 10,000-transaction run on the engine with `ssi-off` at
//! serializable (`testdata/shrink/ssi-off-g2-item.jsonl`, its `run.json` beside it) in which the checker
//! finds exactly one G2-item, between T8682 and T8686. The shrunk history keeps those two, cut to the
//! micro-ops the cycle needs, and exactly the transactions that wrote the values their kept reads show (without which the rest would show a
//! garbage read); each kept transaction is needed; and the shrunk cycle's replay recurs on the engine
//! below serializable and is refused at serializable.

use crate::util;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::OnceLock;

use crate::util::{isocheck, repo};
use checker::{Options, check};
use histories::{Mop, Observed};

const FIXTURE: &str = "testdata/shrink/ssi-off-g2-item.jsonl";

/// `check --shrink --out DIR` of the fixture, once for every test here.
fn shrunk_dir() -> &'static (tempfile::TempDir, PathBuf) {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let out = dir.path().join("check");
        let fixture = repo(FIXTURE);
        let output = isocheck(&["check", fixture.to_str().unwrap(), "--shrink", "--out", out.to_str().unwrap()], None);
        assert_eq!(output.code, 1, "the fixture shows its G2-item: {}", output.stderr);
        assert!(output.stdout.contains("shrunk to "), "{}", output.stdout);
        (dir, out.join("shrunk"))
    })
}

fn shrunk_history() -> histories::History {
    histories::read_file(&shrunk_dir().1.join("history.jsonl")).expect("the shrunk history reads")
}

/// Whether a sub-history still shows the fixture's anomaly: G2-item, and nothing the whole history
/// does not show.
fn shows_g2_item(history: &histories::History) -> bool {
    let result = check(history, &Options::default()).expect("the history checks");
    result.anomaly_types == ["G2-item"]
}

#[test]
fn the_shrunk_history_is_the_cycle_and_the_writers_of_what_it_read() {
    let history = shrunk_history();
    let result = check(&history, &Options::default()).unwrap();
    assert_eq!(result.anomaly_types, ["G2-item"]);
    let cycle = result.anomalies["G2-item"][0].as_cycle().unwrap();
    assert_eq!(cycle.cycle.iter().copied().collect::<BTreeSet<u64>>(), BTreeSet::from([8682, 8686]));

    // What the cycle's transactions read (the micro-ops they keep), and who in the whole history wrote it.
    let whole = histories::read_file(&repo(FIXTURE)).unwrap();
    let cycle_txns: Vec<_> = history.transactions().filter(|t| [8682, 8686].contains(&t.op().index)).collect();
    let mut read = BTreeSet::new();
    for t in &cycle_txns {
        for mop in t.op().mops() {
            if let Mop::Read { key, value: Observed::List(list) } = mop {
                read.extend(list.iter().map(|v| (key.clone(), *v)));
            }
        }
    }
    let mut expected: BTreeSet<u64> = BTreeSet::from([8682, 8686]);
    for t in whole.transactions() {
        if t.op()
            .mops()
            .iter()
            .any(|m| matches!(m, Mop::Append { key, value } if read.contains(&(key.clone(), *value))))
        {
            expected.insert(t.op().index);
        }
    }
    let kept: BTreeSet<u64> = history.transactions().map(|t| t.op().index).collect();
    assert_eq!(kept, expected);
    assert!(kept.len() < 40, "{} transactions kept", kept.len());

    let why: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(shrunk_dir().1.join("shrink.json")).unwrap()).unwrap();
    for entry in why["kept"].as_array().unwrap() {
        let index = entry["index"].as_u64().unwrap();
        let need = entry["need"].as_str().unwrap();
        let expected = if [8682, 8686].contains(&index) { "cycle-edge" } else { "wrote-values-read" };
        assert_eq!(need, expected, "T{index}: {}", entry["why"]);
    }
}

#[test]
fn removing_any_kept_transaction_loses_the_anomaly() {
    let history = shrunk_history();
    assert!(shows_g2_item(&history));
    let txns: Vec<_> = history.transactions().map(|t| (t.invoke_at, t.completion_at)).collect();
    for (invoke, completion) in txns {
        let ops: Vec<histories::Op> = history
            .ops()
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != invoke && Some(*i) != completion)
            .map(|(_, op)| op.clone())
            .collect();
        let without = histories::History::from_ops(ops).unwrap();
        let index = history.ops()[completion.unwrap_or(invoke)].index;
        assert!(!shows_g2_item(&without), "T{index} is kept but not needed");
        if [8682, 8686].contains(&index) {
            let result = check(&without, &Options::default()).unwrap();
            assert!(!result.anomaly_types.contains(&"G2-item".to_string()), "without T{index}, no cycle");
        }
    }
}

/// The shrunk cycle's replay on the engine at `level`: (outcome, how, checker classes).
fn replay(level: &str) -> (String, String, Vec<String>) {
    let cycles = shrunk_dir().1.join("cycles");
    let args = ["hermitage", "--format", "json", "--scenario-dir", cycles.to_str().unwrap(), "--db", "engine"];
    let output = isocheck(&[&args[..], &["--isolation", level, "--scenario", "G2-item-1"]].concat(), None);
    assert_eq!(output.code, 0, "{}", output.stderr);
    let json: serde_json::Value = serde_json::from_str(&output.stdout).unwrap();
    let cell = &json["matrix"][0];
    let checker = cell["checker"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect();
    (cell["outcome"].as_str().unwrap().into(), cell["how"].as_str().unwrap().into(), checker)
}

#[test]
fn the_shrunk_cycle_replays_on_the_engine_below_serializable_only() {
    let (outcome, how, checker) = replay("snapshot-isolation");
    assert_eq!(outcome, "anomaly", "{how}");
    assert!(checker.contains(&"G2-item".to_string()), "{checker:?}");
    let (outcome, how, _) = replay("serializable");
    assert_eq!((outcome.as_str(), how.as_str()), ("prevented", "aborted (serialization-failure)"));
}

#[test]
fn the_report_shows_the_shrunk_history_first() {
    let html = std::fs::read_to_string(shrunk_dir().1.join("../report.html")).unwrap();
    let shrunk = html.find("<section id=\"shrunk\">").expect("a shrunk section");
    let summary = html.find("id=\"summary\"").expect("a summary section");
    assert!(shrunk < summary);
    assert!(html.contains("T8682"));
}

#[test]
fn a_valid_history_has_nothing_to_shrink_and_an_absent_anomaly_is_an_error() {
    let (_dir, valid) = util::temp_file(
        "valid.jsonl",
        "{\"type\":\"invoke\",\"process\":0,\"value\":[[\"append\",\"x\",1]]}\n{\"type\":\"ok\",\"process\":0,\"value\":[[\"append\",\"x\",1]]}\n",
    );
    let output = isocheck(&["shrink", valid.to_str().unwrap()], None);
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert!(output.stderr.contains("is valid: there is no anomaly to shrink"), "{}", output.stderr);

    let skew = repo("examples/write-skew.jsonl");
    let output = isocheck(&["shrink", skew.to_str().unwrap(), "--anomaly", "G1c"], None);
    assert_eq!(output.code, 2, "{}", output.stdout);
    assert!(output.stderr.contains("shows none of G1c"), "{}", output.stderr);
}

#[test]
fn shrink_prints_the_test_shorthand_and_writes_the_format_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("small.edn");
    let skew = repo("examples/write-skew.jsonl");
    let output = isocheck(&["shrink", skew.to_str().unwrap(), "--out", out.to_str().unwrap()], None);
    assert_eq!(output.code, 1, "{}", output.stderr);
    assert!(output.stdout.contains("As a test (checker/tests/support):\n  interleaved(vec![ok("), "{}", output.stdout);
    let back = histories::read_file(&out).expect("the EDN written reads back");
    assert!(shows_anything(&back));
}

fn shows_anything(history: &histories::History) -> bool {
    !check(history, &Options::default()).unwrap().anomaly_types.is_empty()
}

#[test]
fn a_transaction_whose_read_fixes_the_version_order_is_kept_and_says_so() {
    // Elle's README example (completions only): T0 and T1 form a G1c cycle whose ww edge on x is known only
    // from T2's read of x = [1 2].
    let readme = repo("testdata/elle/readme-example.edn");
    let output = isocheck(&["shrink", readme.to_str().unwrap(), "--format", "json"], None);
    assert_eq!(output.code, 1, "{}", output.stderr);
    let json: serde_json::Value = serde_json::from_str(&output.stdout).unwrap();
    assert_eq!(json["anomaly_types"], serde_json::json!(["G1c"]));
    let kept: Vec<(u64, &str)> = json["kept"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["index"].as_u64().unwrap(), k["need"].as_str().unwrap()))
        .collect();
    assert_eq!(kept, [(0, "cycle-edge"), (1, "cycle-edge"), (2, "version-order")]);
    assert!(json["kept"][2]["why"].as_str().unwrap().contains("its read of key \"x\""));
}
