//! Results at scale: the analyses cut a large history into ranges of transactions (and keys) worked on
//! all cores, and put the results back in order. A saved history with anomalies, copied many times over
//! disjoint keys and processes, each copy after the last in real time, holds exactly each copy's
//! anomalies: the same classes, as many times as there are copies, over the same transactions shifted
//! copy by copy, in copy order. The copies run to tens of thousands of transactions, so every analysis
//! works on many ranges at once: a range boundary that lost, doubled or reordered a finding fails here.

use std::collections::BTreeMap;

use checker::{Anomaly, CheckResult, Inference, Options, check};
use histories::{History, Key, Mop, OpValue, Process};

/// Transactions a copied history reaches at least: three of the checker's ranges (8192 transactions).
const AT_LEAST: usize = 3 * 8192 + 1;

/// Copies at most: a history of a handful of transactions would be copied into thousands of anomalies,
/// each explained, which says no more than a few hundred do.
const MOST_COPIES: usize = 80;

/// `copies` copies of `history`, one after another: keys, processes, times and commit positions of copy
/// `c` moved past every earlier copy's, each operation's index its position.
fn replicate(history: &History, copies: usize) -> History {
    let ops = history.ops();
    let processes = 1 + ops
        .iter()
        .filter_map(|op| match op.process() {
            Process::Client(p) => Some(p),
            Process::Nemesis => None,
        })
        .max()
        .unwrap_or(0);
    let time_span = 1 + ops.iter().filter_map(|op| op.time()).max().unwrap_or(0);
    let order_span = 1 + ops.iter().filter_map(|op| op.commit_order()).max().unwrap_or(0);
    let mut all = Vec::with_capacity(ops.len() * copies);
    for c in 0..copies {
        for op in ops {
            let key = |k: &Key| match k {
                Key::Int(i) => Key::Int(i + 1_000_000 * c as i64),
                Key::Str(s) => Key::Str(format!("{s}#{c}").into()),
            };
            let mops: Vec<Mop> = op
                .written_mops()
                .map(|m| match m.as_ref() {
                    Mop::Append { key: k, value } => Mop::Append { key: key(k), value: *value },
                    Mop::Read { key: k, value } => Mop::Read { key: key(k), value: value.clone() },
                    Mop::Write { key: k, value, version } => {
                        Mop::Write { key: key(k), value: *value, version: *version }
                    }
                    other => panic!("a copied history holds list-append and register micro-ops only, not {other}"),
                })
                .collect();
            let mut copy = op.clone();
            copy.index = all.len() as u64;
            copy.set_process(match op.process() {
                Process::Client(p) => Process::Client(p + processes * c as u64),
                Process::Nemesis => Process::Nemesis,
            });
            copy.set_time(op.time().map(|t| t + time_span * c as i64));
            copy.set_commit_order(op.commit_order().map(|o| o + order_span * c as i64));
            if let OpValue::Txn(_) = op.value {
                copy.value = OpValue::Txn(mops.into());
            }
            all.push(copy);
        }
    }
    History::from_ops(all).unwrap_or_else(|(at, problem)| panic!("a copied history is well formed: {at:?} {problem}"))
}

/// Each anomaly class, with the transactions (by index) of each of its anomalies, in order.
fn findings(result: &CheckResult) -> BTreeMap<String, Vec<Vec<u64>>> {
    result
        .anomalies
        .iter()
        .map(|(name, list)| {
            let txns = list
                .iter()
                .map(|a| match a {
                    Anomaly::Cycle(c) => c.cycle.clone(),
                    Anomaly::Case(c) => c.txns.clone(),
                })
                .collect();
            (name.clone(), txns)
        })
        .collect()
}

#[test]
fn a_history_copied_past_many_ranges_shows_each_copys_anomalies_exactly() {
    let models = |m: &str| Options::new(&[m.to_string()], &[]).expect("a model");
    let both = Inference { wfr_keys: true, linearizable_keys: true, sequential_keys: false };
    let mut compared = Vec::new();
    for (name, path) in crate::golden::saved_histories() {
        let history = histories::read_file(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let register = name.starts_with("rw-register");
        let options = match register {
            true => vec![models("strict-serializable").with_inference(both), models("read-committed")],
            false => vec![models("strict-serializable"), models("read-committed")],
        };
        let first = check(&history, &options[0]).unwrap_or_else(|e| panic!("{name}: {e}"));
        let usable = !history.ops().is_empty()
            && history.leniencies().is_empty()
            && ["list-append", "rw-register"].contains(&first.checked.workload.as_str())
            && !first.anomalies.is_empty();
        if !usable {
            continue;
        }
        let copies = AT_LEAST.div_ceil(first.stats.txns.max(1));
        if copies > MOST_COPIES {
            continue;
        }
        let big = replicate(&history, copies);
        // Where each operation of the original stands in it, by index.
        let position: BTreeMap<u64, u64> =
            history.ops().iter().enumerate().map(|(i, op)| (op.index, i as u64)).collect();
        let (position, len) = (&position, history.len() as u64);
        for options in &options {
            let small = check(&history, options).unwrap_or_else(|e| panic!("{name}: {e}"));
            let large = check(&big, options).unwrap_or_else(|e| panic!("{name} copied: {e}"));
            let expected: BTreeMap<String, Vec<Vec<u64>>> = findings(&small)
                .into_iter()
                .map(|(class, list)| {
                    let shifted = (0..copies as u64)
                        .flat_map(|c| list.iter().map(move |txns| txns.iter().map(|i| c * len + position[i]).collect()))
                        .collect();
                    (class, shifted)
                })
                .collect();
            assert_eq!(findings(&large), expected, "{name} copied {copies} times, under {:?}", options.models());
            assert_eq!(large.valid, small.valid, "{name}");
            assert_eq!(large.stats.txns, small.stats.txns * copies, "{name}");
            for kind in ["ww", "wr", "rw"] {
                let edges = |r: &CheckResult| r.stats.edges.get(kind).copied().unwrap_or(0);
                assert_eq!(edges(&large), edges(&small) * copies, "{name}: {kind} edges");
            }
        }
        compared.push(name);
    }
    // The histories this holds for, pinned: a change that made one unusable is noticed.
    assert!(compared.len() >= 8, "only {compared:?} were compared");
    assert!(compared.iter().any(|n| n.starts_with("elle")), "{compared:?}");
    assert!(compared.iter().any(|n| n.starts_with("rw-register")), "{compared:?}");
}

/// A register history of `n` transactions, each writing a value of its own to a key of its own, with
/// some transactions' micro-ops replaced.
fn registers_with(n: usize, replaced: &[(usize, Mop)]) -> History {
    let mut ops = Vec::with_capacity(2 * n);
    for t in 0..n {
        let mop = replaced.iter().find(|(at, _)| *at == t).map_or_else(
            || Mop::Write { key: Key::Int(t as i64), value: t as i64, version: None },
            |(_, mop)| mop.clone(),
        );
        let invoke = histories::Op::txn(histories::OpType::Invoke, 0, vec![mop.clone()]);
        let ok = histories::Op::txn(histories::OpType::Ok, 0, vec![mop]);
        for mut op in [invoke, ok] {
            op.index = ops.len() as u64;
            ops.push(op);
        }
    }
    History::from_ops(ops).unwrap_or_else(|(at, problem)| panic!("a register history is well formed: {at:?} {problem}"))
}

#[test]
fn of_several_faults_in_different_ranges_the_first_in_history_order_is_reported() {
    let n = AT_LEAST;
    let options = Options::new(&["serializable".to_string()], &[])
        .expect("a model")
        .with_workload(Some(checker::Workload::RwRegister));
    let message = |replaced: &[(usize, Mop)]| match check(&registers_with(n, replaced), &options) {
        Ok(result) => panic!("a faulty history was checked: {:?}", result.valid),
        Err(e) => e.to_string(),
    };
    // Appends and list reads of keys of their own, which only the register workload refuses.
    let append = |t: usize| (t, Mop::Append { key: Key::Int(1_000_000 + t as i64), value: 1 });
    let late = message(&[append(24_000)]);
    assert!(late.contains("[append 1024000 1] is a list-append micro-op"), "{late}");
    // Faults in three ranges, given out of order: the earliest is named.
    let first = message(&[append(24_000), append(3_000), append(17_000)]);
    assert!(first.contains("[append 1003000 1] is a list-append micro-op"), "{first}");
    // A list read in the range before an append: the read.
    let read = (9_000, Mop::Read { key: Key::Int(2_000_000), value: histories::Observed::List(vec![1].into()) });
    let second = message(&[append(17_000), read]);
    assert!(second.contains("[r 2000000 [1]] is a list-append micro-op"), "{second}");
}
