//! Property tests of the rw-register checker against the serial reference executor
//! (`generators::serial`), as `serial_property.rs` does for list-append. A serial history is
//! strict-serializable by construction, and each of Elle's register assumptions holds of it (writes
//! follow reads inside a transaction; process and real-time order agree with the serial order), so the
//! checker must find it valid under every model and every combination of assumptions. After one
//! targeted corruption it must flag exactly what the corruption did: a read of a value nobody wrote is
//! `garbage-read`; a read of a write whose transaction is made to abort is `G1a`; a read turned back to
//! the initial state after its writer completed is a cycle through that read's anti-dependency. And a
//! history without reads of other transactions' writes says how little it could infer.
//!
//! Each property runs a fixed number of cases, small enough for CI; a failing case prints its recipe
//! (`SerialCase`) and the history as JSON Lines.

use std::collections::BTreeSet;

use checker::{Anomaly, CheckResult, Inference, Kind, Options, Validity, Workload, check};
use generators::strategies::{SerialCase, serial_case};
use histories::{History, Key, Mop, Observed, Op, OpType, OpValue, write_jsonl};
use proptest::prelude::*;
use proptest::sample::Index;

const CASES: u32 = 128;

fn config() -> ProptestConfig {
    ProptestConfig { cases: CASES, max_shrink_iters: 2_048, failure_persistence: None, ..ProptestConfig::default() }
}

fn jsonl(history: &History) -> String {
    let mut out = Vec::new();
    write_jsonl(history.ops(), &mut out).expect("writing to memory");
    String::from_utf8(out).expect("JSON is UTF-8")
}

/// Every combination of Elle's three assumptions.
fn every_inference() -> impl Iterator<Item = Inference> {
    (0..8u8).map(|bits| Inference {
        wfr_keys: bits & 1 != 0,
        sequential_keys: bits & 2 != 0,
        linearizable_keys: bits & 4 != 0,
    })
}

fn options(model: &str, inference: Inference) -> Options {
    Options::new(&[model.to_string()], &[])
        .expect("a known model")
        .with_workload(Some(Workload::RwRegister))
        .with_inference(inference)
}

fn run(history: &History, options: &Options) -> CheckResult {
    check(history, options).expect("an rw-register history checks")
}

/// A committed transaction, by the positions of its operations.
#[derive(Debug, Clone, Copy)]
struct Txn {
    invoke_at: usize,
    completion_at: usize,
    outcome: OpType,
}

fn completed(history: &History) -> Vec<Txn> {
    history
        .transactions()
        .map(|t| Txn {
            invoke_at: t.invoke_at,
            completion_at: t.completion_at.expect("serial histories complete every transaction"),
            outcome: t.outcome(),
        })
        .collect()
}

/// Each `ok` read of a value, where it is the transaction's only micro-op on that key: `(reader, mop
/// position, key, value)`.
fn lone_reads(history: &History) -> Vec<(Txn, usize, Key, i64)> {
    let mut found = Vec::new();
    for t in completed(history).into_iter().filter(|t| t.outcome == OpType::Ok) {
        let mops = history.ops()[t.completion_at].mops();
        for (i, mop) in mops.iter().enumerate() {
            if let Mop::Read { key, value: Observed::Int(v) } = mop
                && mops.iter().enumerate().all(|(j, m)| j == i || m.key() != Some(key))
            {
                found.push((t, i, key.clone(), *v));
            }
        }
    }
    found
}

/// The transaction that wrote `value` to `key`.
fn writer(history: &History, key: &Key, value: i64) -> Txn {
    completed(history)
        .into_iter()
        .find(|t| {
            history.ops()[t.completion_at]
                .mops()
                .iter()
                .any(|m| matches!(m, Mop::Write { key: k, value: v, .. } if k == key && *v == value))
        })
        .expect("every value read was written")
}

/// Replaces the value of the read at `(completion, mop)`.
fn with_read(history: &History, completion_at: usize, mop: usize, value: Observed) -> History {
    let mut ops: Vec<Op> = history.ops().to_vec();
    let OpValue::Txn(mops) = &mut ops[completion_at].value else { unreachable!("a transaction") };
    mops.edit(|mops| {
        let Mop::Read { value: read, .. } = &mut mops[mop] else { unreachable!("a read") };
        *read = value;
    });
    History::from_ops(ops).expect("a corruption keeps the history well formed")
}

fn other_types(result: &CheckResult, expected: &str) -> BTreeSet<String> {
    result.anomaly_types.iter().filter(|t| *t != expected && *t != "empty-transaction-graph").cloned().collect()
}

proptest! {
    #![proptest_config(config())]

    /// Every serial rw-register history checks valid under each model and each combination of
    /// assumptions (or unknown, with `empty-transaction-graph` alone, when no transaction depends on
    /// another), and never has a `cyclic-versions`.
    #[test]
    fn serial_register_histories_check_valid(case in serial_case(1..=60)) {
        let history = case.rw_register().history;
        for model in ["strict-serializable", "serializable", "snapshot-isolation", "read-committed"] {
            for inference in every_inference() {
                let result = run(&history, &options(model, inference));
                if result.stats.edges.is_empty() {
                    prop_assert_eq!(&result.anomaly_types, &vec!["empty-transaction-graph".to_string()]);
                } else {
                    prop_assert_eq!(
                        result.valid,
                        Validity::Valid,
                        "{} {:?}: {:?}\n{}",
                        model,
                        inference.names(),
                        result.anomaly_types,
                        jsonl(&history)
                    );
                }
            }
        }
    }

    /// A read of a value nobody wrote: one `ok` read of a value (alone on its key in its transaction)
    /// is made to return a value no operation wrote. `garbage-read` is reported once, naming the
    /// reader, the key and the value, under every assumption. Without process or real-time order it is
    /// the only anomaly. With them, the garbage takes a place in the key's version order, and what
    /// follows from that place is reported too: `cyclic-versions` on that key (a process read v, then
    /// the garbage, then v again), or a cycle through the reader (it read a version before v, yet v's
    /// writer precedes it).
    #[test]
    fn a_read_of_a_value_nobody_wrote_is_garbage(case in serial_case(1..=60), pick in any::<Index>()) {
        let history = case.rw_register().history;
        let reads = lone_reads(&history);
        prop_assume!(!reads.is_empty());
        let (r, mop, key, _) = reads[pick.index(reads.len())].clone();
        let garbage = 1_000_000_007;
        let corrupted = with_read(&history, r.completion_at, mop, Observed::Int(garbage));
        let r_index = corrupted.ops()[r.completion_at].index;
        for inference in every_inference() {
            let result = run(&corrupted, &options("strict-serializable", inference));
            let shown = || format!("R = T{r_index}, key {key}, {:?}\n{}", inference.names(), jsonl(&corrupted));
            prop_assert_eq!(result.valid, Validity::Invalid, "{}", shown());
            let others = other_types(&result, "garbage-read");
            if inference.sequential_keys || inference.linearizable_keys {
                for name in &others {
                    for anomaly in &result.anomalies[name] {
                        match anomaly {
                            Anomaly::Case(c) => prop_assert!(
                                name == "cyclic-versions" && c.key.as_ref() == Some(&key),
                                "{}: {}", name, shown()
                            ),
                            Anomaly::Cycle(c) => prop_assert!(c.cycle.contains(&r_index), "{} {:?}: {}", name, c.cycle, shown()),
                        }
                    }
                }
            } else {
                prop_assert!(others.is_empty(), "{:?}: {}", result.anomaly_types, shown());
            }
            let cases = &result.anomalies["garbage-read"];
            prop_assert_eq!(cases.len(), 1, "{}", shown());
            let Anomaly::Case(c) = &cases[0] else { panic!("garbage-read is a case") };
            prop_assert_eq!(&c.txns, &vec![r_index]);
            prop_assert_eq!(&c.facts["value"], &serde_json::json!(garbage));
            prop_assert_eq!(c.key.as_ref(), Some(&key));
        }
    }

    /// A read of an aborted write: the writer W of a value an `ok` transaction R read is made to fail.
    /// `G1a` is reported with one case per committed read of any of W's values (among them R's), and
    /// nothing else but, when W's dependencies were the only ones, `empty-transaction-graph`.
    #[test]
    fn a_read_of_an_aborted_write_is_g1a(case in serial_case(2..=60), pick in any::<Index>()) {
        let history = case.rw_register().history;
        let reads: Vec<_> = lone_reads(&history)
            .into_iter()
            .filter(|(r, _, key, v)| writer(&history, key, *v).completion_at != r.completion_at)
            .collect();
        prop_assume!(!reads.is_empty());
        let (r, _, key, value) = reads[pick.index(reads.len())].clone();
        let w = writer(&history, &key, value);
        prop_assume!(w.outcome == OpType::Ok);
        let mut ops = history.ops().to_vec();
        ops[w.completion_at].kind = OpType::Fail;
        let corrupted = History::from_ops(ops).expect("well formed");
        let (r_index, w_index) = (corrupted.ops()[r.completion_at].index, corrupted.ops()[w.completion_at].index);
        let w_values: Vec<(Key, i64)> = corrupted.ops()[w.completion_at]
            .mops()
            .iter()
            .filter_map(|m| match m {
                Mop::Write { key, value, .. } => Some((key.clone(), *value)),
                _ => None,
            })
            .collect();
        let mut expected: Vec<Vec<u64>> = Vec::new();
        for t in completed(&corrupted).into_iter().filter(|t| t.outcome == OpType::Ok) {
            for m in corrupted.ops()[t.completion_at].mops() {
                if let Mop::Read { key, value: Observed::Int(v) } = m
                    && w_values.contains(&(key.clone(), *v))
                {
                    expected.push(vec![corrupted.ops()[t.completion_at].index, w_index]);
                }
            }
        }
        let result = run(&corrupted, &options("strict-serializable", Inference::default()));
        let shown = || format!("R = T{r_index}, W = T{w_index}\n{}", jsonl(&corrupted));
        prop_assert_eq!(result.valid, Validity::Invalid, "{}", shown());
        prop_assert!(other_types(&result, "G1a").is_empty(), "{:?}: {}", result.anomaly_types, shown());
        let mut found: Vec<Vec<u64>> = result.anomalies["G1a"].iter().map(|a| a.txn_indices()).collect();
        found.sort();
        expected.sort();
        prop_assert!(expected.contains(&vec![r_index, w_index]));
        prop_assert_eq!(found, expected, "{}", shown());
    }

    /// A read turned back to the initial state after its writer completed: R read k = v, where v's
    /// writer W completed before R was invoked; R's read now returns `nil`. Checked for strict
    /// serializability, the history is invalid; every anomaly reported is a cycle (or cycle-exists
    /// witness) through an anti-dependency from R on k, since R's new read is the only change (for an
    /// exact refutation, one of its cases is).
    #[test]
    fn a_read_of_nil_after_a_completed_write_is_a_cycle_through_it(
        case in serial_case(2..=60),
        pick in any::<Index>(),
    ) {
        let history = case.rw_register().history;
        let reads: Vec<_> = lone_reads(&history)
            .into_iter()
            .filter(|(r, _, key, v)| {
                let w = writer(&history, key, *v);
                w.outcome == OpType::Ok && w.completion_at < r.invoke_at
            })
            .collect();
        prop_assume!(!reads.is_empty());
        let (r, mop, key, _) = reads[pick.index(reads.len())].clone();
        let corrupted = with_read(&history, r.completion_at, mop, Observed::Nil);
        let r_index = corrupted.ops()[r.completion_at].index;
        let shown = || format!("R = T{r_index}, key {key}\n{}", jsonl(&corrupted));
        let result = run(&corrupted, &options("strict-serializable", Inference::default()));
        prop_assert_eq!(result.valid, Validity::Invalid, "{}", shown());
        prop_assert!(!result.anomalies.is_empty());
        for (name, anomalies) in &result.anomalies {
            let mut through_r = Vec::new();
            for anomaly in anomalies {
                let Anomaly::Cycle(cycle) = anomaly else {
                    return Err(TestCaseError::fail(format!("{name} is not a cycle: {}", shown())));
                };
                through_r.push(cycle.steps.iter().any(|s| s.kind == Kind::Rw && s.from == r_index && s.key.as_ref() == Some(&key)));
            }
            // An exact refutation's cases cover every order of its writes: the serial order is among them,
            // and its case can close only through R's new read; the other cases may close elsewhere.
            if name.starts_with("no-") && name.ends_with("-order") {
                prop_assert!(through_r.iter().any(|&t| t), "no case of {} goes through R -rw-> on k: {}", name, shown());
            } else {
                prop_assert!(through_r.iter().all(|&t| t), "a cycle of {} misses R -rw-> on k: {}", name, shown());
            }
        }
    }

    /// A serial history of writes alone (no transaction reads another's write) checks valid or, with no
    /// dependency at all, unknown; and its result says what could not be seen: no wr dependency, and,
    /// when a key was written twice and no exact decision covered it, writes it could not order.
    #[test]
    fn a_history_without_reads_of_others_writes_says_how_little_it_saw(
        case in serial_case(1..=60).prop_map(|c| SerialCase {
            params: generators::Params { read_fraction: 0.0, ..c.params },
            final_read: false,
            ..c
        }),
    ) {
        let history = case.rw_register().history;
        let result = run(&history, &options("serializable", Inference::default()));
        let shown = || jsonl(&history);
        prop_assert!(matches!(result.valid, Validity::Valid | Validity::Unknown), "{:?}: {}", result.anomaly_types, shown());
        prop_assert_eq!(result.stats.edges.get("wr"), None);
        let spots = &result.stats.blind_spots;
        let writes_something =
            history.ops().iter().any(|op| matches!(op.kind, OpType::Ok | OpType::Info) && !op.mops().is_empty());
        prop_assert_eq!(spots.iter().any(|s| s.starts_with("no transaction read a value another")), writes_something, "{:?}", spots);
        // Writes inference could not order are no blind spot where an exact decision covered every order of
        // them, as it does for serializable; under read committed, they are.
        let unordered = result.stats.ordered_keys < result.stats.keys;
        prop_assert!(!spots.iter().any(|s| s.contains("keys written more than once")), "{:?}: {}", spots, shown());
        prop_assert_eq!(result.checked.exact_models.is_empty(), false);
        let weak = run(&history, &options("read-committed", Inference::default()));
        let weak_spots = &weak.stats.blind_spots;
        prop_assert_eq!(weak_spots.iter().any(|s| s.contains("keys written more than once")), unordered, "{:?}: {}", weak_spots, shown());
    }
}
