//! Shorthand for writing list-append histories in tests, after Elle's own test suite: a transaction is
//! a string of micro-ops such as `"ax1ry12"` (append 1 to x, then read y = [1 2]). Keys are the string
//! keys `x y z t u`; each digit after a key is one element, so `rx123` reads [1 2 3], `rx` reads the
//! empty list, and `rx?` is a read whose value is unknown (`null`, as an `info` completion records it).
//!
//! Transactions become a history through one of the layouts below. Every layout writes JSON Lines and
//! reads it back with `histories::parse`, so the tests go through the same reader as a user's file.
//! An operation's index is its position in the history and its time is a millisecond per position, so
//! a transaction is named (`T` and a number) by the position of its completion:
//! - [`concurrent`]: every invocation, then every completion: transaction `i` of `n` is `T(n + i)`, and
//!   no transaction precedes another in real time or process order.
//! - [`sequential`]: each completes before the next is invoked: transaction `i` is `T(2i + 1)`, and each
//!   precedes the next in real time.
//! - [`interleaved`]: any order, given as transaction numbers: the first mention of a transaction is its
//!   invocation and the second its completion (a transaction mentioned once never completes).
//!
//! The string layouts put transaction `i` on process `i` and commit it; [`ok`], [`fail`] and [`info`]
//! choose the process and the outcome.
//!
//! Registers have their own shorthand, after Elle's `rw_register_test.clj`: `"wx1ry2"` writes 1 to x,
//! then reads y = 2; `_` reads `nil` (`"rx_"`), `?` reads an unknown value, and a value may have
//! several digits (`"wx12"`). [`reg`] parses it; [`rok`], [`rfail`], [`rinfo`] and [`registers`] make
//! transactions of it for the same layouts. Predicate histories begin with an `init` op
//! ([`with_init`]), and their micro-ops are written with [`insert`], [`delete`], [`write`], [`rread`]
//! and [`rp`].

#![allow(dead_code)] // Each test file uses a different part of this module.

use checker::{Anomaly, Case, CheckResult, Cycle, Options, Validity, check};
use histories::{Format, History, Key, Mop, Observed, Predicate, Rows, SharedSlice};

/// How a transaction ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Committed.
    Ok,
    /// Aborted.
    Fail,
    /// Indeterminate.
    Info,
}

impl Outcome {
    fn name(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Fail => "fail",
            Outcome::Info => "info",
        }
    }
}

/// One transaction: who ran it, how it ended, and the micro-ops its completion reports.
#[derive(Debug, Clone)]
pub struct Txn {
    pub process: u64,
    pub outcome: Outcome,
    pub mops: Vec<Mop>,
}

/// A committed transaction on `process`.
pub fn ok(process: u64, txn: &str) -> Txn {
    Txn { process, outcome: Outcome::Ok, mops: mops(txn) }
}

/// An aborted transaction on `process`.
pub fn fail(process: u64, txn: &str) -> Txn {
    Txn { process, outcome: Outcome::Fail, mops: mops(txn) }
}

/// An indeterminate transaction on `process`.
pub fn info(process: u64, txn: &str) -> Txn {
    Txn { process, outcome: Outcome::Info, mops: mops(txn) }
}

/// A committed transaction on `process` with micro-ops made by hand (for keys and values the shorthand
/// cannot spell).
pub fn ok_mops(process: u64, mops: Vec<Mop>) -> Txn {
    Txn { process, outcome: Outcome::Ok, mops }
}

/// `[append key value]`.
pub fn append(key: &str, value: i64) -> Mop {
    Mop::Append { key: key.into(), value }
}

/// `[r key list]`; `None` is an unknown value (`null`).
pub fn read(key: &str, list: Option<&[i64]>) -> Mop {
    Mop::Read { key: key.into(), value: list.map_or(Observed::Nil, |l| Observed::List(l.to_vec().into())) }
}

/// Parses the shorthand: `a` appends, `r` reads, `x y z t u` are keys, each digit is an element, and
/// `?` after a read's key makes its value unknown.
pub fn mops(txn: &str) -> Vec<Mop> {
    let mut out: Vec<Mop> = Vec::new();
    let mut verb: Option<char> = None;
    for c in txn.chars() {
        match c {
            'a' | 'r' => verb = Some(c),
            'x' | 'y' | 'z' | 't' | 'u' => {
                let key: Key = c.to_string().as_str().into();
                out.push(match verb.expect("a key follows a or r") {
                    'a' => Mop::Append { key, value: i64::MIN },
                    _ => Mop::Read { key, value: Observed::List(SharedSlice::new()) },
                });
            }
            '?' => match out.last_mut() {
                Some(Mop::Read { value, .. }) => *value = Observed::Nil,
                _ => panic!("? follows a read's key in {txn:?}"),
            },
            d if d.is_ascii_digit() => {
                let e = i64::from(d.to_digit(10).expect("a digit"));
                match out.last_mut() {
                    Some(Mop::Append { value, .. }) if *value == i64::MIN => *value = e,
                    Some(Mop::Append { .. }) => panic!("an append takes one digit in {txn:?}"),
                    Some(Mop::Read { value: Observed::List(list), .. }) => list.edit(|l| l.push(e)),
                    _ => panic!("a digit follows a key in {txn:?}"),
                }
            }
            other => panic!("unexpected {other:?} in {txn:?}"),
        }
    }
    assert!(
        out.iter().all(|m| !matches!(m, Mop::Append { value: i64::MIN, .. })),
        "every append has a value in {txn:?}"
    );
    out
}

/// Parses the register shorthand: `w` writes, `r` reads, `x y z t u` are keys, digits make a value,
/// `_` after a read's key reads `nil`, and `?` makes the read's value unknown.
pub fn reg(txn: &str) -> Vec<Mop> {
    let mut out: Vec<Mop> = Vec::new();
    let mut verb: Option<char> = None;
    // Whether the last micro-op still takes digits.
    let mut open = false;
    for c in txn.chars() {
        match c {
            'w' | 'r' => verb = Some(c),
            'x' | 'y' | 'z' | 't' | 'u' => {
                let key: Key = c.to_string().as_str().into();
                out.push(match verb.expect("a key follows w or r") {
                    'w' => Mop::Write { key, value: i64::MIN, version: None },
                    _ => Mop::Read { key, value: Observed::Int(i64::MIN) },
                });
                open = true;
            }
            '_' | '?' => match out.last_mut() {
                // Unknown reads are nil in a history too; `?` only says the test means "unknown".
                Some(Mop::Read { value, .. }) if open => {
                    *value = Observed::Nil;
                    open = false;
                }
                _ => panic!("{c} follows a read's key in {txn:?}"),
            },
            d if d.is_ascii_digit() => {
                let e = i64::from(d.to_digit(10).expect("a digit"));
                let fold = |v: &mut i64| *v = if *v == i64::MIN { e } else { *v * 10 + e };
                match out.last_mut() {
                    Some(Mop::Write { value, .. }) if open => fold(value),
                    Some(Mop::Read { value: Observed::Int(v), .. }) if open => fold(v),
                    _ => panic!("a digit follows a key in {txn:?}"),
                }
            }
            other => panic!("unexpected {other:?} in {txn:?}"),
        }
    }
    assert!(
        out.iter().all(|m| !matches!(
            m,
            Mop::Write { value: i64::MIN, .. } | Mop::Read { value: Observed::Int(i64::MIN), .. }
        )),
        "every register micro-op has a value in {txn:?}"
    );
    out
}

/// A committed register transaction on `process`.
pub fn rok(process: u64, txn: &str) -> Txn {
    Txn { process, outcome: Outcome::Ok, mops: reg(txn) }
}

/// An aborted register transaction on `process`.
pub fn rfail(process: u64, txn: &str) -> Txn {
    Txn { process, outcome: Outcome::Fail, mops: reg(txn) }
}

/// An indeterminate register transaction on `process`.
pub fn rinfo(process: u64, txn: &str) -> Txn {
    Txn { process, outcome: Outcome::Info, mops: reg(txn) }
}

/// Committed register transactions, transaction `i` on process `i`.
pub fn registers(txns: &[&str]) -> Vec<Txn> {
    txns.iter().enumerate().map(|(i, t)| rok(i as u64, t)).collect()
}

/// `[w key value]`.
pub fn write(key: &str, value: i64) -> Mop {
    Mop::Write { key: key.into(), value, version: None }
}

/// `[r key value]` of a register or row; `None` reads `nil`.
pub fn rread(key: &str, value: Option<i64>) -> Mop {
    Mop::Read { key: key.into(), value: value.map_or(Observed::Nil, Observed::Int) }
}

/// `[insert key value]`.
pub fn insert(key: &str, value: i64) -> Mop {
    Mop::Insert { key: key.into(), value }
}

/// `[delete key]`.
pub fn delete(key: &str) -> Mop {
    Mop::Delete { key: key.into() }
}

/// `[rp predicate rows]`: a predicate read that returned these rows.
pub fn rp(predicate: Predicate, rows: &[(&str, i64)]) -> Mop {
    Mop::PredicateRead {
        predicate,
        rows: Some(Box::new(rows.iter().map(|&(k, v)| (Key::from(k), v)).collect::<Rows>())),
    }
}

/// A history that begins with an `init` op installing `rows` (invoked and completed `ok` on a process
/// of its own, at positions 0 and 1, so it is `T1`), followed by [`interleaved`]'s operations for
/// `txns` and `order`, each position shifted by two.
pub fn with_init(rows: &[(&str, i64)], txns: Vec<Txn>, order: &[usize]) -> History {
    let init: serde_json::Map<String, serde_json::Value> =
        rows.iter().map(|&(k, v)| (k.to_string(), serde_json::json!(v))).collect();
    let mut text = String::new();
    for (index, kind) in [(0, "invoke"), (1, "ok")] {
        let op = serde_json::json!({"index": index, "type": kind, "process": 1000, "f": "init",
                                    "time": index * 1_000_000, "value": init});
        text.push_str(&op.to_string());
        text.push('\n');
    }
    for line in jsonl(&txns, order).lines() {
        let mut op: serde_json::Value = serde_json::from_str(line).expect("jsonl writes JSON");
        let index = op["index"].as_i64().expect("an index") + 2;
        op["index"] = serde_json::json!(index);
        op["time"] = serde_json::json!(index * 1_000_000);
        text.push_str(&op.to_string());
        text.push('\n');
    }
    parse(&text)
}

/// Checks with these options.
pub fn check_with(history: &History, options: &Options) -> CheckResult {
    check(history, options).expect("the history checks")
}

/// Committed transactions, transaction `i` on process `i`.
pub fn committed(txns: &[&str]) -> Vec<Txn> {
    txns.iter().enumerate().map(|(i, t)| ok(i as u64, t)).collect()
}

/// All invocations first, then all completions, in order.
pub fn concurrent(txns: &[&str]) -> History {
    concurrent_of(committed(txns))
}

/// Each transaction completes before the next is invoked.
pub fn sequential(txns: &[&str]) -> History {
    sequential_of(committed(txns))
}

/// [`concurrent`] for transactions with chosen processes and outcomes.
pub fn concurrent_of(txns: Vec<Txn>) -> History {
    let n = txns.len();
    let order: Vec<usize> = (0..n).chain(0..n).collect();
    interleaved(txns, &order)
}

/// [`sequential`] for transactions with chosen processes and outcomes.
pub fn sequential_of(txns: Vec<Txn>) -> History {
    let order: Vec<usize> = (0..txns.len()).flat_map(|i| [i, i]).collect();
    interleaved(txns, &order)
}

/// The history whose operations are, in order, the invocation (first mention) or completion (second
/// mention) of the transactions numbered in `order`.
pub fn interleaved(txns: Vec<Txn>, order: &[usize]) -> History {
    parse(&jsonl(&txns, order))
}

/// [`interleaved`], except that the transactions numbered in `uninvoked` have no invoke: their first
/// mention writes nothing, as in Elle's histories of completions alone. Indices keep their positions in
/// `order`, so transactions are named as in [`interleaved`].
pub fn interleaved_uninvoked(txns: Vec<Txn>, order: &[usize], uninvoked: &[usize]) -> History {
    parse(&jsonl_uninvoked(&txns, order, uninvoked))
}

/// The JSON Lines text of [`interleaved`].
pub fn jsonl(txns: &[Txn], order: &[usize]) -> String {
    jsonl_uninvoked(txns, order, &[])
}

/// The JSON Lines text of [`interleaved_uninvoked`].
pub fn jsonl_uninvoked(txns: &[Txn], order: &[usize], uninvoked: &[usize]) -> String {
    let mut mentioned = vec![0u8; txns.len()];
    let mut text = String::new();
    for (index, &t) in order.iter().enumerate() {
        let txn = &txns[t];
        mentioned[t] += 1;
        if mentioned[t] == 1 && uninvoked.contains(&t) {
            continue;
        }
        let (kind, value) = match mentioned[t] {
            1 => ("invoke", txn.mops.iter().map(unknown_reads).collect::<Vec<_>>()),
            2 => (txn.outcome.name(), txn.mops.clone()),
            _ => panic!("transaction {t} is mentioned more than twice"),
        };
        let op = serde_json::json!({
            "index": index,
            "type": kind,
            "process": txn.process,
            "f": "txn",
            "time": index as i64 * 1_000_000,
            "value": value,
        });
        text.push_str(&op.to_string());
        text.push('\n');
    }
    text
}

fn unknown_reads(mop: &Mop) -> Mop {
    match mop {
        Mop::Read { key, .. } => Mop::Read { key: key.clone(), value: Observed::Nil },
        Mop::PredicateRead { predicate, .. } => Mop::PredicateRead { predicate: *predicate, rows: None },
        other => other.clone(),
    }
}

/// Parses JSON Lines text, panicking on a malformed history.
pub fn parse(text: &str) -> History {
    histories::parse(text, Format::JsonLines, "test.jsonl").unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Checks against Elle's default, strict serializability.
pub fn check_default(history: &History) -> CheckResult {
    check(history, &Options::default()).expect("the history checks")
}

/// Checks these models only.
pub fn check_models(history: &History, models: &[&str]) -> CheckResult {
    let models: Vec<String> = models.iter().map(|m| m.to_string()).collect();
    check(history, &Options::new(&models, &[]).expect("known models")).expect("the history checks")
}

/// Checks these anomalies only (Elle's `:consistency-models nil, :anomalies [...]`).
pub fn check_anomalies(history: &History, anomalies: &[&str]) -> CheckResult {
    let anomalies: Vec<String> = anomalies.iter().map(|a| a.to_string()).collect();
    check(history, &Options::new(&[], &anomalies).expect("known anomalies")).expect("the history checks")
}

/// The verdict, the anomaly types reported and the weakest models ruled out.
pub fn summary(result: &CheckResult) -> (Validity, Vec<&str>, Vec<&str>) {
    (
        result.valid,
        result.anomaly_types.iter().map(String::as_str).collect(),
        result.not.iter().map(String::as_str).collect(),
    )
}

/// The one cycle reported as `name`.
pub fn only_cycle<'r>(result: &'r CheckResult, name: &str) -> &'r Cycle {
    let found = result.anomalies.get(name).unwrap_or_else(|| panic!("no {name} in {:?}", result.anomaly_types));
    assert_eq!(found.len(), 1, "one {name}");
    match &found[0] {
        Anomaly::Cycle(cycle) => cycle,
        Anomaly::Case(case) => panic!("{name} is a case, not a cycle: {}", case.explanation),
    }
}

/// The cases reported as `name`.
pub fn cases<'r>(result: &'r CheckResult, name: &str) -> Vec<&'r Case> {
    let found = result.anomalies.get(name).unwrap_or_else(|| panic!("no {name} in {:?}", result.anomaly_types));
    found
        .iter()
        .map(|a| match a {
            Anomaly::Case(case) => case,
            Anomaly::Cycle(cycle) => panic!("{name} is a cycle, not a case: {}", cycle.explanation),
        })
        .collect()
}

/// The one case reported as `name`.
pub fn only_case<'r>(result: &'r CheckResult, name: &str) -> &'r Case {
    let found = cases(result, name);
    assert_eq!(found.len(), 1, "one {name}");
    found[0]
}

/// A cycle's steps as `(from, kind, key, to)`; the key is empty for process and real-time steps.
pub fn steps(cycle: &Cycle) -> Vec<(u64, &'static str, String, u64)> {
    cycle.steps.iter().map(|s| (s.from, s.kind.name(), s.key.as_ref().map_or(String::new(), key_name), s.to)).collect()
}

/// A key as the shorthand writes it: `x`, not `"x"`.
pub fn key_name(key: &Key) -> String {
    match key {
        Key::Int(i) => i.to_string(),
        Key::Str(s) => s.to_string(),
    }
}

/// Each step's explanation.
pub fn explanations(cycle: &Cycle) -> Vec<&str> {
    cycle.steps.iter().map(|s| s.explanation.as_str()).collect()
}

/// Options for these models and anomalies (none of either: strict serializability), with Elle's
/// register assumptions named as the flags name them (`wfr-keys`, `sequential-keys`,
/// `linearizable-keys`).
pub fn assuming(models: &[&str], anomalies: &[&str], assumptions: &[&str]) -> Options {
    let models: Vec<String> = models.iter().map(|m| m.to_string()).collect();
    let anomalies: Vec<String> = anomalies.iter().map(|a| a.to_string()).collect();
    let inference = checker::Inference {
        wfr_keys: assumptions.contains(&"wfr-keys"),
        sequential_keys: assumptions.contains(&"sequential-keys"),
        linearizable_keys: assumptions.contains(&"linearizable-keys"),
    };
    assert_eq!(inference.names().len(), assumptions.len(), "known assumptions: {assumptions:?}");
    Options::new(&models, &anomalies).expect("known names").with_inference(inference)
}

/// The history with these transactions' completions (named by index, as `T` names them) carrying a
/// position in the database's commit order (`commit_order`).
pub fn with_commit_order(history: &History, positions: &[(u64, i64)]) -> History {
    let mut ops = history.ops().to_vec();
    for &(index, position) in positions {
        let op = ops.iter_mut().find(|op| op.index == index).unwrap_or_else(|| panic!("no op {index}"));
        assert_ne!(op.kind, histories::OpType::Invoke, "op {index} is a completion");
        op.set_commit_order(Some(position));
    }
    History::from_ops(ops).expect("still well formed")
}

/// `history` with version numbers on completions' writes: `(op index, key, version)` numbers the last
/// write of `key` in that completion, as a database's per-row version counter would.
pub fn with_write_versions(history: &History, numbers: &[(u64, &str, i64)]) -> History {
    let mut ops = history.ops().to_vec();
    for &(index, key, number) in numbers {
        let op = ops.iter_mut().find(|op| op.index == index).unwrap_or_else(|| panic!("no op {index}"));
        assert_ne!(op.kind, histories::OpType::Invoke, "op {index} is a completion");
        let histories::OpValue::Txn(mops) = &mut op.value else { panic!("op {index} is a transaction") };
        mops.edit(|mops| {
            let write = mops
                .iter_mut()
                .rev()
                .find_map(|m| match m {
                    Mop::Write { key: k, version, .. } if *k == Key::from(key) => Some(version),
                    _ => None,
                })
                .unwrap_or_else(|| panic!("op {index} writes no {key}"));
            *write = Some(histories::WriteVersion::new(number).expect("a version above i64::MIN"));
        });
    }
    History::from_ops(ops).expect("still well formed")
}
