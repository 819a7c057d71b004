//! Every saved history under `testdata/` and `examples/`, fed to the online checker a line at a time
//! through [`histories::Growing`] (each line in two pieces, so that a line being written is seen too),
//! with rounds along the way: what a round reports as standing, the finished history shows (every model
//! it rules out, the whole history's check rules out), and the finished history's verdict is the one the
//! file checked whole gets: the same validity, anomaly types and transactions.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use checker::consistency_model::impossible_models;
use checker::{CheckResult, Online, Options, Validity, check};
use histories::{Format, Growing};

/// Rounds on a history of this many lines or fewer run after every line; longer ones get this many.
const ROUNDS: usize = 12;

fn saved_histories() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    let mut dirs = vec![root.join("testdata"), root.join("examples")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("a test data directory") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if matches!(path.extension().and_then(|e| e.to_str()), Some("jsonl" | "edn")) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The verdict as the test compares it: validity, and each anomaly type's transactions.
fn verdict(result: &CheckResult) -> (Validity, BTreeMap<String, Vec<Vec<u64>>>) {
    let anomalies =
        result.anomalies.iter().map(|(name, list)| (name.clone(), list.iter().map(|a| a.txn_indices()).collect()));
    (result.valid, anomalies.collect())
}

#[test]
fn online_and_offline_verdicts_agree_on_every_saved_history_fed_line_by_line() {
    let paths = saved_histories();
    assert!(paths.len() >= 40, "the saved histories are found: {}", paths.len());
    let mut early = 0;
    for path in &paths {
        let name = path.display().to_string();
        let text = std::fs::read(path).expect("a saved history");
        let format = Format::from_extension(path).expect("a line format");
        let whole = histories::read_file(path).expect("a saved history reads");
        let options = Options::default();
        let offline = check(&whole, &options);
        let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
        let every = lines.len().div_ceil(ROUNDS).max(1);
        let mut growing = Growing::new();
        let mut online = Online::new(options.clone());
        let mut standing = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let (head, tail) = line.split_at(line.len() / 2);
            growing.push(head);
            growing.push(tail);
            if (i + 1) % every != 0 || i + 1 == lines.len() {
                continue;
            }
            // A prefix that does not check yet (say, its workload not yet told) may once it grows.
            if let Ok(found) =
                growing.prefix(format, &name).map_err(|_| ()).and_then(|h| online.round(&h).map_err(|_| ()))
            {
                early += found.len();
                standing.extend(found);
            }
        }
        let finished = growing.finished(format, &name).expect("the finished history reads");
        let online_result = check(&finished, online.options());
        match (&offline, &online_result) {
            (Ok(offline), Ok(online_result)) => {
                assert_eq!(verdict(online_result), verdict(offline), "{name}");
                let ruled_out = impossible_models(offline.anomaly_types.iter().map(String::as_str));
                for found in &standing {
                    let by_it = impossible_models([found.name.as_str()]);
                    assert!(
                        by_it.is_subset(&ruled_out),
                        "{name}: {} {:?} stood in a prefix, ruling out {by_it:?}; the whole rules out {ruled_out:?}",
                        found.name,
                        found.anomaly.txn_indices()
                    );
                    if found.prohibited {
                        assert_eq!(offline.valid, Validity::Invalid, "{name}: {} stood", found.name);
                    }
                }
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{name}"),
            (a, b) => panic!("{name}: offline {:?}, online {:?}", a.as_ref().err(), b.as_ref().err()),
        }
    }
    assert!(early > 0, "no round reported an anomaly before its history ended: the test shows nothing");
}
