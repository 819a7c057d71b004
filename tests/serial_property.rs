//! Property tests of the list-append checker against the serial reference executor
//! (`generators::serial`). A history the executor builds is strict-serializable by construction: its
//! transactions ran one at a time, and whatever completed before another was invoked also committed
//! before it. So the checker must find every such history valid; and after one targeted corruption
//! (a read shown one version stale, an append lost, a read of an aborted write) it must flag it, with
//! the evidence that corruption leaves: the cycles through the transaction it touched, the aborted
//! reads it made. Each property runs a fixed number of cases, small enough for CI; a failing case
//! prints its recipe (`SerialCase`, which rebuilds it) and the corrupted history as JSON Lines. The
//! rw-register checker's properties are in `serial_register_property.rs`.

use std::collections::{BTreeMap, BTreeSet};

use checker::{Anomaly, CheckResult, Kind, Options, Validity, check};
use generators::strategies::{SerialCase, serial_case};
use histories::{History, Key, Mop, Observed, Op, OpType, OpValue, write_jsonl};
use proptest::prelude::*;
use proptest::sample::Index;

/// Cases per property: enough to meet every key distribution, client count and overlap many times,
/// few enough for a CI run on two cores.
const CASES: u32 = 128;

fn config() -> ProptestConfig {
    // Failures are kept as named regression tests below, not in a proptest-regressions file.
    ProptestConfig { cases: CASES, max_shrink_iters: 2_048, failure_persistence: None, ..ProptestConfig::default() }
}

fn jsonl(history: &History) -> String {
    let mut out = Vec::new();
    write_jsonl(history.ops(), &mut out).expect("writing to memory");
    String::from_utf8(out).expect("JSON is UTF-8")
}

fn rebuilt(ops: Vec<Op>) -> History {
    History::from_ops(ops).expect("a corruption keeps the history well formed")
}

/// A completed transaction, by the positions of its operations.
#[derive(Debug, Clone, Copy)]
struct Txn {
    invoke_at: usize,
    completion_at: usize,
    outcome: OpType,
}

impl Txn {
    fn op<'h>(&self, history: &'h History) -> &'h Op {
        &history.ops()[self.completion_at]
    }

    /// The index that names it in a check's result (its completion's).
    fn index(&self, history: &History) -> u64 {
        self.op(history).index
    }
}

/// Every transaction (serial histories complete them all).
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

fn committed(history: &History) -> Vec<Txn> {
    completed(history).into_iter().filter(|t| t.outcome == OpType::Ok).collect()
}

/// Who appended each element to each key, whatever their outcome.
fn writers(txns: &[Txn], history: &History) -> BTreeMap<(Key, i64), Txn> {
    let mut writers = BTreeMap::new();
    for t in txns {
        for mop in t.op(history).mops() {
            if let Mop::Append { key, value } = mop {
                writers.insert((key.clone(), *value), *t);
            }
        }
    }
    writers
}

fn list(mop: &Mop) -> Option<(&Key, &[i64])> {
    match mop {
        Mop::Read { key, value: Observed::List(list) } => Some((key, list)),
        _ => None,
    }
}

fn cycles(result: &CheckResult) -> impl Iterator<Item = (&str, &checker::Cycle)> {
    result.anomalies.iter().flat_map(|(name, found)| {
        found.iter().filter_map(move |a| match a {
            Anomaly::Cycle(c) => Some((name.as_str(), c)),
            Anomaly::Case(_) => None,
        })
    })
}

/// A cycle class, or a model-level cycle-exists anomaly (evidenced by a cycle too).
fn is_cycle_class(name: &str) -> bool {
    name.ends_with("-cycle-exists") || checker::cycle_class::all_classes().iter().any(|c| c.name == name)
}

/// Checks a serial history under each model it satisfies, asserting it valid. A history with no
/// dependency at all (every transaction concurrent with every other, none reading another's write)
/// is `unknown` with `empty-transaction-graph`, as in Elle: that is the one allowed exception.
fn assert_valid_under_every_model(history: &History) -> Result<(), TestCaseError> {
    for model in
        ["strict-serializable", "strong-session-serializable", "serializable", "snapshot-isolation", "read-committed"]
    {
        let options = Options::new(&[model.to_string()], &[]).expect("a known model");
        let result = check(history, &options).expect("a list-append history checks");
        if result.stats.edges.is_empty() {
            prop_assert_eq!(result.valid, Validity::Unknown);
            prop_assert_eq!(&result.anomaly_types, &vec!["empty-transaction-graph".to_string()]);
        } else {
            prop_assert_eq!(
                result.valid,
                Validity::Valid,
                "serial history invalid under {}: {:?}\n{}",
                model,
                result.anomaly_types,
                jsonl(history)
            );
        }
    }
    Ok(())
}

/// The stale-read corruption: R's read of k loses its last element, written by W, which completed
/// before R was invoked.
struct StaleRead {
    corrupted: History,
    r_index: u64,
    w_index: u64,
    key: Key,
    /// Whether W also appended the element R now ends with, so R ends in W's intermediate state.
    ends_intermediate: bool,
}

impl StaleRead {
    /// Picks one of the reads that can be made stale (R touches k nowhere else), if there is one.
    fn pick(history: &History, pick: Index) -> Option<StaleRead> {
        let txns = committed(history);
        let writers = writers(&completed(history), history);
        let mut candidates = Vec::new();
        for r in &txns {
            let mops = r.op(history).mops();
            for (i, mop) in mops.iter().enumerate() {
                let Some((key, l)) = list(mop) else { continue };
                let Some(&last) = l.last() else { continue };
                let w = writers[&(key.clone(), last)];
                let alone = mops.iter().enumerate().all(|(j, m)| j == i || m.key() != Some(key));
                if alone && w.outcome == OpType::Ok && w.completion_at < r.invoke_at {
                    let before_last = l.len().checked_sub(2).map(|p| writers[&(key.clone(), l[p])].completion_at);
                    candidates.push((*r, i, w, before_last == Some(w.completion_at)));
                }
            }
        }
        if candidates.is_empty() {
            return None;
        }
        let (r, i, w, ends_intermediate) = candidates[pick.index(candidates.len())];
        let mut ops = history.ops().to_vec();
        let OpValue::Txn(mops) = &mut ops[r.completion_at].value else { unreachable!("a transaction") };
        let key = mops.edit(|mops| {
            let Mop::Read { key, value: Observed::List(l) } = &mut mops[i] else { unreachable!("a list read") };
            l.edit(|l| l.pop());
            key.clone()
        });
        let corrupted = rebuilt(ops);
        let (r_index, w_index) = (r.index(&corrupted), w.index(&corrupted));
        Some(StaleRead { corrupted, r_index, w_index, key, ends_intermediate })
    }

    fn shown(&self) -> String {
        format!("R = T{}, W = T{}, key {}\n{}", self.r_index, self.w_index, self.key, jsonl(&self.corrupted))
    }
}

proptest! {
    #![proptest_config(config())]

    /// Every serial history checks valid under strict serializability and each weaker model, and
    /// checking never panics.
    #[test]
    fn serial_histories_check_valid(case in serial_case(1..=150)) {
        assert_valid_under_every_model(&case.list_append().history)?;
    }

    /// A read shown one version stale: an `ok` transaction R read key k = L (non-empty) where the
    /// writer W of L's last element completed before R was invoked, and R touches k nowhere else;
    /// the read is replaced with L minus its last element. The only dependency against the serial
    /// order is then R -rw-> W on k, so: the history is invalid; at least one cycle is reported and
    /// every reported cycle takes the step R -rw-> W on k; at most one of `G-single-item` and
    /// `G-single-item-realtime` is reported (`G-single-item` when a path of ww and wr edges leads from
    /// W to R), and when neither is, a cycle with more anti-dependencies is (Elle reads an edge that is
    /// both an anti-dependency and a real-time edge as the anti-dependency, so the real-time path from
    /// W to R may count as anti-dependencies, and then `strong-snapshot-isolation-cycle-exists` shows
    /// it, with a witness cycle through the same step); and the only other anomalies possible are `G1b`,
    /// exactly when W appended L's last two elements (R now ends in W's intermediate state), and the exact
    /// decision's refutations (`no-...-order`).
    #[test]
    fn a_read_one_version_stale_is_a_cycle_through_its_anti_dependency(
        case in serial_case(2..=150),
        pick in any::<Index>(),
    ) {
        let Some(stale) = StaleRead::pick(&case.list_append().history, pick) else {
            return Err(TestCaseError::reject("no committed read follows its last writer in real time"));
        };
        let result = check(&stale.corrupted, &Options::default()).expect("a list-append history checks");
        let shown = || stale.shown();
        prop_assert_eq!(result.valid, Validity::Invalid, "{}", shown());
        let mut cycle_count = 0;
        // Inference's cycles, that is: the exact decision's refutations (`no-...-order`) are cases over
        // orders of unranked writes, and a case may close its cycle through another edge (two appends to one
        // key nobody read, the second supposed first, and a read that missed it).
        let exact = |name: &str| name.starts_with("no-") && name.ends_with("-order");
        for (name, cycle) in cycles(&result).filter(|(name, _)| !exact(name)) {
            cycle_count += 1;
            let takes_the_step = cycle.steps.iter().any(|s| {
                s.kind == Kind::Rw && s.from == stale.r_index && s.to == stale.w_index && s.key.as_ref() == Some(&stale.key)
            });
            prop_assert!(takes_the_step, "{} cycle {:?} misses R -rw-> W: {}", name, cycle.cycle, shown());
        }
        prop_assert!(cycle_count >= 1, "{:?}: {}", result.anomaly_types, shown());
        let has = |t: &str| result.anomaly_types.iter().any(|a| a == t);
        let singles = usize::from(has("G-single-item")) + usize::from(has("G-single-item-realtime"));
        prop_assert!(singles <= 1, "{:?}: {}", result.anomaly_types, shown());
        if singles == 0 {
            let more = ["G-nonadjacent-item", "G2-item", "G-nonadjacent-item-realtime", "G2-item-realtime"];
            prop_assert!(more.iter().any(|t| has(t)), "{:?}: {}", result.anomaly_types, shown());
        }
        // Inference reads an edge that is both process and real-time order as real time, so the
        // strong-session models, which take no real time, may be left to the exact decision: it rules
        // them out as `no-strong-session-...-order` when R and W share a process. And snapshot isolation
        // may be ruled out exactly where the corrupted read lets two appends to one key run concurrently.
        let others: Vec<&String> =
            result.anomaly_types.iter().filter(|t| !is_cycle_class(t) && !exact(t)).collect();
        let expected_others: Vec<&str> = if stale.ends_intermediate { vec!["G1b"] } else { vec![] };
        prop_assert_eq!(others, expected_others, "{}", shown());
    }

    /// A read shown one version stale breaks strong snapshot isolation, whatever the cycle classes: R
    /// began after W committed, yet missed W's append. So the models ruled out include
    /// `strong-snapshot-isolation`, and checking against that model finds the history invalid.
    #[test]
    fn a_read_one_version_stale_is_not_strong_snapshot_isolation(
        case in serial_case(2..=150),
        pick in any::<Index>(),
    ) {
        let Some(stale) = StaleRead::pick(&case.list_append().history, pick) else {
            return Err(TestCaseError::reject("no committed read follows its last writer in real time"));
        };
        let result = check(&stale.corrupted, &Options::default()).expect("a list-append history checks");
        let ruled_out = result.not.iter().chain(&result.also_not).any(|m| m == "strong-snapshot-isolation");
        prop_assert!(
            ruled_out,
            "{:?} rules out only {:?} and {:?}: {}",
            result.anomaly_types,
            result.not,
            result.also_not,
            stale.shown()
        );
        let strong_si = Options::new(&["strong-snapshot-isolation".to_string()], &[]).expect("a known model");
        let result = check(&stale.corrupted, &strong_si).expect("a list-append history checks");
        prop_assert_eq!(result.valid, Validity::Invalid, "{}", stale.shown());
    }

    /// An append lost: an `ok` transaction W appended e to k, and a final transaction, invoked after
    /// every other completed, read every key; e is removed from every read. Every dependency against
    /// the serial order then points into W (the final read's rw edge to W, and the ww edge from the
    /// writer of k's last element), so the history is invalid, at least one cycle is reported, every
    /// reported cycle passes through W, and every other anomaly reported involves W.
    #[test]
    fn a_lost_append_is_a_cycle_through_its_writer(
        case in serial_case(1..=150).prop_map(|c| SerialCase { final_read: true, ..c }),
        pick in any::<Index>(),
    ) {
        let history = case.list_append().history;
        let txns = committed(&history);
        let appends: Vec<(Txn, Key, i64)> = txns
            .iter()
            .flat_map(|t| {
                t.op(&history).mops().iter().filter_map(move |m| match m {
                    Mop::Append { key, value } => Some((*t, key.clone(), *value)),
                    _ => None,
                })
            })
            .collect();
        prop_assume!(!appends.is_empty());
        let (w, key, e) = appends[pick.index(appends.len())].clone();
        let mut ops = history.into_ops();
        for op in ops.iter_mut().filter(|op| op.kind == OpType::Ok) {
            if let OpValue::Txn(mops) = &mut op.value {
                mops.edit(|mops| {
                    for mop in mops.iter_mut() {
                        if let Mop::Read { key: k, value: Observed::List(l) } = mop
                            && *k == key
                        {
                            l.edit(|l| l.retain(|&x| x != e));
                        }
                    }
                });
            }
        }
        let corrupted = rebuilt(ops);
        let result = check(&corrupted, &Options::default()).expect("a list-append history checks");
        let w_index = w.index(&corrupted);
        let shown = || format!("W = T{w_index}, lost {e} on key {key}\n{}", jsonl(&corrupted));
        prop_assert_eq!(result.valid, Validity::Invalid, "{}", shown());
        prop_assert!(cycles(&result).count() >= 1, "{:?}: {}", result.anomaly_types, shown());
        for (name, anomalies) in &result.anomalies {
            for anomaly in anomalies {
                prop_assert!(
                    anomaly.txn_indices().contains(&w_index),
                    "{} {:?} does not involve W: {}",
                    name,
                    anomaly.txn_indices(),
                    shown()
                );
            }
        }
    }

    /// A read of an aborted write: an `ok` transaction W appended e to k, and another `ok`
    /// transaction R read it; W's completion becomes `fail`. The history is invalid with `G1a`, and
    /// its cases are exactly one per committed read of one of W's elements, naming that reader, W
    /// and the element (among them R, W and e); the only other anomaly possible is `dirty-update`
    /// (a committed append after W's in a version order).
    #[test]
    fn a_read_of_an_aborted_write_is_g1a(case in serial_case(2..=150), pick in any::<Index>()) {
        let history = case.list_append().history;
        let writers = writers(&completed(&history), &history);
        let mut candidates = Vec::new();
        for r in &committed(&history) {
            for mop in r.op(&history).mops() {
                let Some((key, l)) = list(mop) else { continue };
                for &e in l {
                    let w = writers[&(key.clone(), e)];
                    if w.outcome == OpType::Ok && w.completion_at != r.completion_at {
                        candidates.push((*r, w, e));
                    }
                }
            }
        }
        prop_assume!(!candidates.is_empty());
        let (r, w, e) = candidates[pick.index(candidates.len())];
        let mut ops = history.into_ops();
        ops[w.completion_at].kind = OpType::Fail;
        let corrupted = rebuilt(ops);
        let result = check(&corrupted, &Options::default()).expect("a list-append history checks");
        let (r_index, w_index) = (r.index(&corrupted), w.index(&corrupted));
        let shown = || format!("R = T{r_index}, W = T{w_index}, element {e}\n{}", jsonl(&corrupted));
        prop_assert_eq!(result.valid, Validity::Invalid, "{}", shown());
        let others: BTreeSet<&str> =
            result.anomaly_types.iter().map(String::as_str).filter(|t| *t != "G1a").collect();
        // With W gone, a history of few transactions may have no dependency left at all.
        let allowed = BTreeSet::from(["dirty-update", "empty-transaction-graph"]);
        prop_assert!(others.is_subset(&allowed), "{:?}: {}", others, shown());
        // One case per committed read mop and element of W's.
        let mut expected: Vec<(Vec<u64>, i64)> = Vec::new();
        for t in committed(&corrupted) {
            for mop in t.op(&corrupted).mops() {
                let Some((key, l)) = list(mop) else { continue };
                for &x in l {
                    if writers[&(key.clone(), x)].completion_at == w.completion_at {
                        expected.push((vec![t.index(&corrupted), w_index], x));
                    }
                }
            }
        }
        let mut found: Vec<(Vec<u64>, i64)> = result
            .anomalies
            .get("G1a")
            .map(|cases| {
                cases
                    .iter()
                    .map(|a| match a {
                        Anomaly::Case(c) => (c.txns.clone(), c.facts["element"].as_i64().expect("an element")),
                        Anomaly::Cycle(_) => panic!("G1a is not a cycle"),
                    })
                    .collect()
            })
            .unwrap_or_default();
        expected.sort();
        found.sort();
        prop_assert!(expected.contains(&(vec![r_index, w_index], e)));
        prop_assert_eq!(found, expected, "{}", shown());
    }
}

/// Found by `a_read_one_version_stale_is_not_strong_snapshot_isolation`, shrunk by hand to its two
/// transactions: T1 reads key 1 empty and appends 1 to key 2; T3 begins after T1 committed, reads key
/// 2 empty and appends 1 to key 1. Each missed the other's append (T1 -rw-> T3 -rw-> T1, a G2-item), and
/// T3 began after T1 committed, so T3's snapshot had to include T1's append: not strong snapshot
/// isolation. Elle reports `strong-snapshot-isolation-cycle-exists` here (its cycle-exists check
/// projects edges by every kind they carry, so T1 -> T3 counts as real time). The checker reads the
/// edge T1 -> T3, both rw and real time, only as rw, finds no G-single-item-realtime, and has no
/// cycle-exists check: it rules out only repeatable-read and stronger, and finds the history valid
/// under `--model strong-snapshot-isolation`. The same holds for process edges and
/// strong-session-snapshot-isolation.
#[test]
fn write_skew_across_real_time_is_not_strong_snapshot_isolation() {
    let text = r#"{"index":0,"type":"invoke","process":0,"value":[["r",1,null],["append",2,1]]}
{"index":1,"type":"ok","process":0,"value":[["r",1,[]],["append",2,1]]}
{"index":2,"type":"invoke","process":1,"value":[["r",2,null],["append",1,1]]}
{"index":3,"type":"ok","process":1,"value":[["r",2,[]],["append",1,1]]}"#;
    let history = histories::parse(text, histories::Format::JsonLines, "write-skew-across-real-time.jsonl").unwrap();
    let result = check(&history, &Options::default()).unwrap();
    assert_eq!(result.valid, Validity::Invalid);
    assert!(result.anomaly_types.contains(&"G2-item".to_string()));
    assert!(
        result.not.iter().chain(&result.also_not).any(|m| m == "strong-snapshot-isolation"),
        "rules out only {:?} and {:?}",
        result.not,
        result.also_not
    );
    let strong_si = Options::new(&["strong-snapshot-isolation".to_string()], &[]).unwrap();
    assert_eq!(check(&history, &strong_si).unwrap().valid, Validity::Invalid);
}
