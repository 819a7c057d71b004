//! `isocheck convert` end to end: a history written in each format reads back as the same operations and
//! checks to the same verdict; an unreadable history is an error naming its file and line (exit 2).

use crate::util::{isocheck, repo, temp_file};

#[test]
fn every_format_reads_back_as_the_same_history_and_verdict() {
    let source = repo("examples/realtime-g1a-g1c.jsonl");
    let original = histories::read_file(&source).unwrap();
    let verdict = isocheck(&["check", source.to_str().unwrap(), "--format", "json"], None);
    let expected: serde_json::Value = serde_json::from_str(&verdict.stdout).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (to, extension) in [("jsonl", "jsonl"), ("json", "json"), ("edn", "edn")] {
        let path = dir.path().join(format!("history.{extension}"));
        let output =
            isocheck(&["convert", source.to_str().unwrap(), "--to", to, "--out", path.to_str().unwrap()], None);
        assert_eq!(output.code, 0, "{to}: {}", output.stderr);
        let back = histories::read_file(&path).unwrap();
        let strip = |h: &histories::History| {
            h.ops()
                .iter()
                .map(|op| {
                    let mut op = op.clone();
                    op.at = histories::Position::new(1, 1);
                    op
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(&back), strip(&original), "{to}");
        let verdict = isocheck(&["check", path.to_str().unwrap(), "--format", "json"], None);
        let got: serde_json::Value = serde_json::from_str(&verdict.stdout).unwrap();
        assert_eq!(got["anomaly_types"], expected["anomaly_types"], "{to}");
        assert_eq!(got["anomalies"], expected["anomalies"], "{to}");
    }
}

#[test]
fn convert_writes_to_standard_output_and_reads_standard_input() {
    let text = std::fs::read_to_string(repo("examples/write-skew.jsonl")).unwrap();
    let output = isocheck(&["convert", "-", "--to", "edn"], Some(&text));
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert!(output.stdout.starts_with("{:index 0, :type :invoke, :process 0, :f :txn, :time "), "{}", output.stdout);
    assert_eq!(output.stdout.lines().count(), text.lines().count());
}

#[test]
fn an_unreadable_history_is_an_error_naming_file_and_line() {
    let (_dir, path) = temp_file("bad.jsonl", "{\"type\":\"invoke\",\"process\":0,\"value\":[]}\n{\"type\":\"ok\",\n");
    let output = isocheck(&["convert", path.to_str().unwrap(), "--to", "edn"], None);
    assert_eq!(output.code, 2);
    assert!(output.stderr.contains("bad.jsonl:2:"), "{}", output.stderr);
    assert!(output.stdout.is_empty());
}
