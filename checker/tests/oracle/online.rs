//! The online checker against the exhaustive oracle, fed incrementally: every generated list-append
//! history (committed, failed and indeterminate transactions, overlapping, completions recorded late)
//! is cut after each of its operations, and each prefix is checked in a round, as `check --follow` and
//! `run --online` do. Whatever a round reports as standing must hold of the finished history: under
//! `serializable` and `strict-serializable`, a standing prohibited anomaly means the brute-force search
//! finds no serial order of the whole history; and every model a standing anomaly rules out, the
//! ordinary check of the whole history rules out too. The tally shows the rounds do report early.

use std::collections::{BTreeMap, BTreeSet};

use checker::consistency_model::impossible_models;
use checker::online::{Witness, comparable};
use checker::{Inference, Online, Options, Workload, check};
use histories::{History, Key, Mop, Observed, OpValue};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;

use super::compare::MODELS;
use super::config;
use super::generate::{Flavor, KEYS, recipe};
use super::serial_search::SerialSearch;

/// Histories fed: each is cut after every operation.
const CASES: usize = 150;

#[test]
fn what_a_prefix_reports_as_standing_the_finished_history_shows() {
    let strategy = recipe(Flavor::ListAppend);
    let mut runner = TestRunner::new(config(1));
    let (mut early, mut standing) = (0, 0);
    for case in 0..CASES {
        let generated = strategy.new_tree(&mut runner).expect("recipes never reject").current().simulate();
        let history = generated.history();
        let search = SerialSearch::new(&history);
        for model in MODELS {
            let options = Options::new(&[model.to_string()], &[])
                .expect("a known model")
                .with_workload(Some(Workload::ListAppend));
            let whole = check(&history, &options).expect("the generated history checks");
            let ruled_out = impossible_models(whole.anomaly_types.iter().map(String::as_str));
            let serial = search.order(model == "strict-serializable", Inference::default());
            let mut online = Online::new(options.clone());
            let ops = history.ops();
            for cut in 1..=ops.len() {
                let prefix = History::from_ops(ops[..cut].to_vec()).expect("a prefix of a history is one");
                for found in online.round(&prefix).expect("a prefix checks") {
                    standing += 1;
                    early += usize::from(cut < ops.len());
                    let context = format!(
                        "case {case}, {model}, after {cut} of {} ops: {} {:?} stands\n{}",
                        ops.len(),
                        found.name,
                        found.anomaly.txn_indices(),
                        generated.shorthand()
                    );
                    if found.prohibited {
                        assert!(serial.is_none(), "{context}, yet the serial order {serial:?} explains the history");
                    }
                    let by_it = impossible_models([found.name.as_str()]);
                    assert!(
                        by_it.is_subset(&ruled_out),
                        "{context}, ruling out {by_it:?}, but the whole only {ruled_out:?}"
                    );
                }
            }
        }
    }
    eprintln!("{standing} standing anomalies reported, {early} before the history ended");
    assert!(early > 0, "no round reported an anomaly before its history ended: the test shows nothing");
}

/// Segments chained into one fenced history.
const SEGMENTS: usize = 4;

/// Fenced histories fed with retirement on.
const FENCED_CASES: usize = 50;

/// `SEGMENTS` generated list-append histories one after the other, as one history: segment `s`'s keys
/// `x`, `y`, `z` become `2s`, `2s + 1`, `2s + 2`, so each segment shares a key with the next (whose reads
/// do not show the earlier segment's appends: anomalies across the seam), its elements are offset so
/// that they stay unique, and processes carry over (process and real-time order across the seam).
fn chained(segments: &[History]) -> History {
    let mut ops = Vec::new();
    for (s, history) in segments.iter().enumerate() {
        for op in history.ops() {
            let OpValue::Txn(mops) = &op.value else { continue };
            let renamed: Vec<Mop> = mops
                .iter()
                .map(|mop| match mop {
                    Mop::Append { key, value } => Mop::Append { key: rename(key, s), value: value + 100 * s as i64 },
                    Mop::Read { key, value: Observed::List(list) } => Mop::Read {
                        key: rename(key, s),
                        value: Observed::List(list.iter().map(|v| v + 100 * s as i64).collect::<Vec<i64>>().into()),
                    },
                    Mop::Read { key, value } => Mop::Read { key: rename(key, s), value: value.clone() },
                    other => other.clone(),
                })
                .collect();
            let mut op = op.clone();
            op.value = OpValue::Txn(renamed.into());
            op.index = ops.len() as u64;
            ops.push(op);
        }
    }
    History::from_ops(ops).expect("chained histories are one")
}

fn rename(key: &Key, segment: usize) -> Key {
    let j = match key {
        Key::Str(name) => KEYS.iter().position(|k| *k == &**name).expect("a generated key") as i64,
        Key::Int(j) => *j,
    };
    Key::Int(2 * segment as i64 + j)
}

/// Per position in the history, the keys whose last naming transaction is invoked there.
fn fences(history: &History) -> BTreeMap<usize, Vec<Key>> {
    let mut last: BTreeMap<Key, usize> = BTreeMap::new();
    for t in history.transactions() {
        for op in std::iter::once(t.invoke).chain(t.completion) {
            for mop in op.held_mops() {
                if let Mop::Append { key, .. } | Mop::Read { key, .. } = mop {
                    let at = last.entry(key.clone()).or_insert(t.invoke_at);
                    *at = (*at).max(t.invoke_at);
                }
            }
        }
    }
    let mut out: BTreeMap<usize, Vec<Key>> = BTreeMap::new();
    for (key, at) in last {
        out.entry(at).or_default().push(key);
    }
    out
}

/// The anomalies as the test compares them: each type's witnesses (transactions, or the key of an
/// anomaly reported once per key).
fn by_type(anomalies: &BTreeMap<String, Vec<checker::Anomaly>>) -> BTreeMap<String, BTreeSet<Witness>> {
    comparable(anomalies)
}

/// Retirement never hides an anomaly: fenced histories (generated segments chained on shared keys, each
/// key retired once the last transaction naming it is invoked) fed an operation at a time, with a round
/// after each, the anomalies settled on retired transactions and those of a last check of what is still
/// held are the anomalies the whole history's check finds (types and transactions), and its validity
/// follows; the tally shows transactions were retired with anomalies among them.
#[test]
fn retirement_on_fenced_histories_hides_no_anomaly() {
    let strategy = recipe(Flavor::ListAppend);
    let mut runner = TestRunner::new(config(1));
    let (mut retired, mut settled, mut compared) = (0u64, 0usize, 0usize);
    for case in 0..FENCED_CASES {
        let segments: Vec<_> = (0..SEGMENTS)
            .map(|_| strategy.new_tree(&mut runner).expect("recipes never reject").current().simulate())
            .collect();
        let history = chained(&segments.iter().map(|g| g.history()).collect::<Vec<_>>());
        let fences = fences(&history);
        // No order, the real-time order, the process order: the rule's three cases.
        for model in MODELS.into_iter().chain(["strong-session-serializable"]) {
            let options = Options::new(&[model.to_string()], &[])
                .expect("a known model")
                .with_workload(Some(Workload::ListAppend));
            let whole = check(&history, &options).expect("the generated history checks");
            let mut online = Online::new(options.clone());
            for (at, op) in history.ops().iter().enumerate() {
                online.push(op.clone());
                for key in fences.get(&at).into_iter().flatten() {
                    online.retire_key(key.clone());
                }
                online.check_held().expect("the held operations check");
            }
            let found = by_type(&online.finish().expect("the held operations check"));
            let expected = by_type(&whole.anomalies);
            let shorthand: Vec<String> = segments.iter().map(|g| g.shorthand()).collect();
            assert_eq!(
                found,
                expected,
                "case {case}, {model}: retired {} of {} transactions; segments:\n{}",
                online.retired_txns(),
                history.transactions().count(),
                shorthand.join("\n")
            );
            retired += online.retired_txns();
            settled += online.settled().values().map(Vec::len).sum::<usize>();
            compared += 1;
        }
    }
    eprintln!(
        "{compared} fenced histories compared, {retired} transactions retired, {settled} anomalies settled on them"
    );
    assert!(
        retired > 0 && settled > 0,
        "retirement retired nothing, or no anomaly was settled: the test shows nothing"
    );
}
