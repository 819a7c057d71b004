//! The exact verdicts against an exhaustive oracle: on small random histories (up to 8 transactions, 3
//! keys, 3 processes; committed, aborted and indeterminate transactions), the checker's verdict for each
//! of the six models it decides exactly must be the oracle's, both ways. Register histories read any
//! value a key was given; list-append histories read the committed list, or a prefix of it, often
//! followed by an append that is not next (uncommitted, aborted or later): many histories of both are
//! anomalous, and many list-append ones have appends no read shows, whose order only the exact decision
//! weighs.
//!
//! The oracle knows nothing of dependency graphs. It searches every commit order of the transactions
//! (each indeterminate one in or out, one that somebody read in), placing one at a time:
//! - serializable: each transaction reads, for every key it reads first, the state of the key the
//!   transactions placed before it leave (a register's last write; a list's appends, in order);
//! - snapshot isolation (Berenson et al. 1995; the operational definition Cerone, Bernardi & Gotsman,
//!   CONCUR 2015, show equal to the axiomatic one): each transaction reads from a snapshot, a prefix of
//!   the commit order before it, and that prefix holds every earlier writer of a key it writes (first
//!   committer wins);
//! - with each process's order (strong-session) or real time (strict, strong), a transaction is placed
//!   only after, and for snapshot isolation only with a snapshot holding, every committed transaction
//!   of its process before it, or every committed transaction that completed before it was invoked.
//!
//! `cargo test` checks [`HISTORIES`] histories of each workload from a fixed seed;
//! `ISOCHECK_EXACT_ORACLE_HISTORIES=N` checks N (and `ISOCHECK_EXACT_ORACLE_SEED` another seed). A
//! disagreement prints the history.

use std::collections::BTreeSet;

use checker::{Options, Validity, check};
use histories::{Format, History, parse};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Histories per `cargo test` run.
const HISTORIES: usize = 100_000;

/// Every model the checker decides exactly, with what the oracle needs to decide it.
const MODELS: [(&str, bool, Order); 6] = [
    ("serializable", false, Order::None),
    ("strong-session-serializable", false, Order::Process),
    ("strict-serializable", false, Order::Realtime),
    ("snapshot-isolation", true, Order::None),
    ("strong-session-snapshot-isolation", true, Order::Process),
    ("strong-snapshot-isolation", true, Order::Realtime),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    None,
    Process,
    Realtime,
}

/// The workload of a generated history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Workload {
    Registers,
    Lists,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Ok,
    Fail,
    Info,
}

/// A generated transaction.
#[derive(Debug, Clone)]
struct Txn {
    process: usize,
    outcome: Outcome,
    /// Positions of its invocation and completion among the history's operations.
    invoked: usize,
    completed: usize,
    /// Its micro-ops: (key, read?, value); a register read's value is what it saw (`None`: nil); a
    /// write's, what it wrote (appended, for lists).
    mops: Vec<(usize, bool, Option<i64>)>,
    /// What each of its list reads saw, in order (list-append histories).
    lists: Vec<Vec<i64>>,
}

impl Txn {
    /// The state each key it reads first was read in: a register's value (none: nil), a list's elements.
    fn external_reads(&self, workload: Workload) -> Vec<(usize, Vec<i64>)> {
        let mut lists = self.lists.iter();
        let mut out = Vec::new();
        for (i, &(k, read, v)) in self.mops.iter().enumerate() {
            if !read {
                continue;
            }
            let seen = match workload {
                Workload::Registers => v.into_iter().collect(),
                Workload::Lists => lists.next().cloned().unwrap_or_default(),
            };
            if !self.mops[..i].iter().any(|m| m.0 == k) {
                out.push((k, seen));
            }
        }
        out
    }

    /// The value of its last write of each key it writes.
    fn final_writes(&self) -> impl Iterator<Item = (usize, i64)> + '_ {
        self.mops.iter().enumerate().filter_map(|(i, &(k, read, v))| {
            (!read && !self.mops[i + 1..].iter().any(|m| m.0 == k && !m.1)).then_some((k, v.unwrap_or_default()))
        })
    }

    fn writes(&self, key: usize) -> bool {
        self.mops.iter().any(|m| m.0 == key && !m.1)
    }
}

/// A generated history: the transactions, and the same as JSON Lines.
struct Generated {
    txns: Vec<Txn>,
    text: String,
}

fn below(rng: &mut Xoshiro256PlusPlus, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

/// A random history from `rng`: processes take turns at random to invoke their next transaction or
/// complete the one in flight; reads see the committed state half the time; otherwise a register read
/// sees any value the key was given (or nil), and a list read a prefix of the committed list, followed
/// half the time by another of the key's appends (not its own); an indeterminate transaction is its
/// process's last.
fn generate(rng: &mut Xoshiro256PlusPlus, workload: Workload) -> Generated {
    let txn_count = 1 + below(rng, 8);
    let keys = 1 + below(rng, 3);
    let processes = 1 + below(rng, 3);
    let mut txns: Vec<Txn> = Vec::new();
    let mut in_flight: Vec<Option<usize>> = vec![None; processes];
    let mut done: Vec<bool> = vec![false; processes];
    let mut lines: Vec<String> = Vec::new();
    let mut next_value = 1i64;
    let mut committed: Vec<Option<i64>> = vec![None; keys];
    let mut committed_lists: Vec<Vec<i64>> = vec![Vec::new(); keys];
    let mut given: Vec<Vec<i64>> = vec![Vec::new(); keys];
    let mut started = 0;
    let mops_json = |txn: &Txn, with_reads: bool| -> String {
        let mut lists = txn.lists.iter();
        let parts: Vec<String> = txn
            .mops
            .iter()
            .map(|&(k, read, v)| {
                let value = match (read, with_reads, v) {
                    (true, true, _) if workload == Workload::Lists => match lists.next() {
                        Some(list) => format!("{list:?}").replace(' ', ""),
                        None => "null".to_string(),
                    },
                    (true, false, _) | (true, true, None) => "null".to_string(),
                    (_, _, Some(v)) => v.to_string(),
                    (false, _, None) => "null".to_string(),
                };
                let f = match (read, workload) {
                    (true, _) => "r",
                    (false, Workload::Registers) => "w",
                    (false, Workload::Lists) => "append",
                };
                format!("[\"{f}\",\"k{k}\",{value}]")
            })
            .collect();
        format!("[{}]", parts.join(","))
    };
    loop {
        let can_start = started < txn_count;
        let candidates: Vec<usize> =
            (0..processes).filter(|&p| !done[p] && (in_flight[p].is_some() || can_start)).collect();
        if candidates.is_empty() {
            break;
        }
        let p = candidates[below(rng, candidates.len())];
        match in_flight[p] {
            None => {
                let mut mops = Vec::new();
                let mut used = BTreeSet::new();
                for _ in 0..1 + below(rng, 3) {
                    let k = below(rng, keys);
                    if !used.insert(k) {
                        continue;
                    }
                    match below(rng, 3) {
                        0 => mops.push((k, true, None)),
                        1 => {
                            mops.push((k, false, Some(next_value)));
                            next_value += 1;
                        }
                        _ => {
                            mops.push((k, true, None));
                            mops.push((k, false, Some(next_value)));
                            next_value += 1;
                        }
                    }
                }
                for &(k, read, v) in &mops {
                    if !read {
                        given[k].push(v.unwrap_or_default());
                    }
                }
                let txn =
                    Txn { process: p, outcome: Outcome::Ok, invoked: lines.len(), completed: 0, mops, lists: vec![] };
                lines.push(format!("{{\"type\":\"invoke\",\"process\":{p},\"value\":{}}}", mops_json(&txn, false)));
                txns.push(txn);
                in_flight[p] = Some(txns.len() - 1);
                started += 1;
            }
            Some(t) => {
                let roll = below(rng, 20);
                let outcome = match roll {
                    0..=1 => Outcome::Fail,
                    2..=3 => Outcome::Info,
                    _ => Outcome::Ok,
                };
                let own: Vec<i64> = txns[t].mops.iter().filter(|m| !m.1).map(|m| m.2.unwrap_or_default()).collect();
                if outcome == Outcome::Ok && workload == Workload::Lists {
                    let mut lists = Vec::new();
                    for &(k, read, _) in &txns[t].mops {
                        if read {
                            let mut list = committed_lists[k].clone();
                            if below(rng, 2) == 1 {
                                list.truncate(below(rng, list.len() + 1));
                                let others: Vec<i64> = given[k]
                                    .iter()
                                    .copied()
                                    .filter(|v| !own.contains(v) && !list.contains(v))
                                    .collect();
                                if let Some(&extra) = others.get(below(rng, 2 * others.len() + 1)) {
                                    list.push(extra);
                                }
                            }
                            lists.push(list);
                        }
                    }
                    txns[t].lists = lists;
                    for &(k, read, v) in &txns[t].mops {
                        if !read {
                            committed_lists[k].push(v.unwrap_or_default());
                        }
                    }
                } else if outcome == Outcome::Ok {
                    let mut seen: Vec<Option<i64>> = Vec::new();
                    for &(k, read, _) in &txns[t].mops {
                        if read {
                            let value = if below(rng, 2) == 0 {
                                committed[k]
                            } else {
                                let others: Vec<i64> = given[k].iter().copied().filter(|v| !own.contains(v)).collect();
                                let pick = below(rng, others.len() + 1);
                                others.get(pick).copied()
                            };
                            seen.push(value);
                        }
                    }
                    let mut seen = seen.into_iter();
                    for m in txns[t].mops.iter_mut() {
                        if m.1 {
                            m.2 = seen.next().flatten();
                        }
                    }
                    for &(k, read, v) in &txns[t].mops {
                        if !read {
                            committed[k] = v;
                        }
                    }
                }
                let kind = match outcome {
                    Outcome::Ok => "ok",
                    Outcome::Fail => "fail",
                    Outcome::Info => "info",
                };
                lines.push(format!(
                    "{{\"type\":\"{kind}\",\"process\":{p},\"value\":{}}}",
                    mops_json(&txns[t], outcome == Outcome::Ok)
                ));
                txns[t].outcome = outcome;
                txns[t].completed = lines.len() - 1;
                in_flight[p] = None;
                if outcome == Outcome::Info {
                    done[p] = true;
                }
            }
        }
    }
    Generated { txns, text: lines.join("\n") + "\n" }
}

/// Whether some commit order (and, for snapshot isolation, snapshots) explains the history.
struct Oracle<'a> {
    txns: &'a [Txn],
    workload: Workload,
    snapshot: bool,
    /// Each transaction's external reads: the key, and the state it saw.
    reads: Vec<Vec<(usize, Vec<i64>)>>,
    required: Vec<bool>,
    possible: Vec<bool>,
    /// Transactions that must come first, and be in the snapshot.
    before: Vec<Vec<usize>>,
}

impl<'a> Oracle<'a> {
    /// `None` when some read can be explained by no order at all (it saw an aborted write).
    fn new(txns: &'a [Txn], workload: Workload, snapshot: bool, order: Order) -> Option<Oracle<'a>> {
        let writer_of = |k: usize, v: i64| txns.iter().position(|t| t.final_writes().any(|w| w == (k, v)));
        let mut reads = Vec::new();
        let mut required: Vec<bool> = txns.iter().map(|t| t.outcome == Outcome::Ok).collect();
        for t in txns {
            let mut these = Vec::new();
            if t.outcome == Outcome::Ok {
                for (k, seen) in t.external_reads(workload) {
                    for &v in &seen {
                        let w = writer_of(k, v)?;
                        if txns[w].outcome == Outcome::Fail {
                            return None;
                        }
                        required[w] = true;
                    }
                    these.push((k, seen));
                }
            }
            reads.push(these);
        }
        let possible = txns.iter().map(|t| t.outcome != Outcome::Fail).collect();
        let before = txns
            .iter()
            .enumerate()
            .map(|(i, t)| {
                (0..txns.len())
                    .filter(|&j| {
                        let u = &txns[j];
                        j != i
                            && u.outcome == Outcome::Ok
                            && match order {
                                Order::None => false,
                                Order::Process => u.process == t.process && u.completed < t.invoked,
                                Order::Realtime => u.completed < t.invoked,
                            }
                    })
                    .collect()
            })
            .collect();
        Some(Oracle { txns, workload, snapshot, reads, required, possible, before })
    }

    /// The state of `key` the transactions `placed` leave, in order: a register's last write (none:
    /// nil), a list's appends.
    fn state(&self, key: usize, placed: &[usize]) -> Vec<i64> {
        let mut written = placed.iter().filter_map(|&u| self.txns[u].final_writes().find(|w| w.0 == key).map(|w| w.1));
        match self.workload {
            Workload::Registers => written.next_back().into_iter().collect(),
            Workload::Lists => written.collect(),
        }
    }

    fn holds(&self) -> bool {
        let mut placed: Vec<usize> = Vec::new();
        let mut position = vec![usize::MAX; self.txns.len()];
        self.search(&mut placed, &mut position)
    }

    fn search(&self, placed: &mut Vec<usize>, position: &mut [usize]) -> bool {
        if (0..self.txns.len()).all(|t| !self.required[t] || position[t] != usize::MAX) {
            return true;
        }
        for t in 0..self.txns.len() {
            if position[t] != usize::MAX || !self.possible[t] || !self.placeable(t, placed, position) {
                continue;
            }
            position[t] = placed.len();
            placed.push(t);
            if self.search(placed, position) {
                return true;
            }
            placed.pop();
            position[t] = usize::MAX;
        }
        false
    }

    /// Whether `t` can come next, with some snapshot (the whole prefix, unless snapshot isolation).
    fn placeable(&self, t: usize, placed: &[usize], position: &[usize]) -> bool {
        let k = placed.len();
        let mut low = 0;
        for &u in &self.before[t] {
            if position[u] == usize::MAX {
                return false;
            }
            low = low.max(position[u] + 1);
        }
        let lows = if self.snapshot {
            for (i, &u) in placed.iter().enumerate() {
                if self.txns[t].final_writes().any(|(key, _)| self.txns[u].writes(key)) {
                    low = low.max(i + 1);
                }
            }
            low..=k
        } else {
            k..=k
        };
        lows.into_iter().any(|p| self.reads[t].iter().all(|(key, seen)| self.state(*key, &placed[..p]) == *seen))
    }
}

/// The models the checker rules out, of those it decides exactly, and whether it timed out.
fn checked(history: &History) -> Result<BTreeSet<String>, String> {
    let models: Vec<String> = MODELS.iter().map(|m| m.0.to_string()).collect();
    let options = Options::new(&models, &[]).map_err(|e| e.to_string())?;
    let result = check(history, &options).map_err(|e| e.to_string())?;
    if result.anomaly_types.iter().any(|a| a == "solver-timeout" || a == "cycle-search-timeout") {
        return Err(format!("the checker could not decide: {:?}", result.anomaly_types));
    }
    let out: BTreeSet<String> = result.not.iter().chain(&result.also_not).cloned().collect();
    if (result.valid == Validity::Invalid) == out.is_empty() {
        return Err(format!("verdict {:?} with models ruled out {out:?}", result.valid));
    }
    Ok(out)
}

fn histories_to_check() -> (usize, u64) {
    let count = std::env::var("ISOCHECK_EXACT_ORACLE_HISTORIES").ok().and_then(|s| s.parse().ok());
    let seed = std::env::var("ISOCHECK_EXACT_ORACLE_SEED").ok().and_then(|s| s.parse().ok());
    (count.unwrap_or(HISTORIES), seed.unwrap_or(43))
}

#[test]
fn exact_register_verdicts_agree_with_every_commit_order() {
    let (count, seed) = histories_to_check();
    // Histories this small are checked faster on one thread than by waking a pool for each.
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a thread pool");
    pool.install(|| compare_histories(Workload::Registers, count, seed));
}

#[test]
fn exact_list_append_verdicts_agree_with_every_commit_order() {
    let (count, seed) = histories_to_check();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a thread pool");
    pool.install(|| compare_histories(Workload::Lists, count, seed + 1));
}

fn compare_histories(workload: Workload, count: usize, seed: u64) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut invalid = [0usize; MODELS.len()];
    let mut disagreements = Vec::new();
    for _ in 0..count {
        let generated = generate(&mut rng, workload);
        let history = parse(&generated.text, Format::JsonLines, "generated.jsonl").expect("a well-formed history");
        let ruled_out = match checked(&history) {
            Ok(out) => out,
            Err(e) => {
                disagreements.push(format!("{e}\n{}", generated.text));
                continue;
            }
        };
        for (i, &(model, snapshot, order)) in MODELS.iter().enumerate() {
            let holds = Oracle::new(&generated.txns, workload, snapshot, order).is_some_and(|o| o.holds());
            if !holds {
                invalid[i] += 1;
            }
            if holds == ruled_out.contains(model) {
                disagreements.push(format!(
                    "{model}: the oracle says {}, the checker rules out {ruled_out:?}\n{}",
                    if holds { "it holds" } else { "it does not hold" },
                    generated.text
                ));
            }
        }
        if disagreements.len() >= 5 {
            break;
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreements; the first:\n{}",
        disagreements.len(),
        disagreements.join("\n\n")
    );
    // The generator must give both verdicts for every model, or the comparison shows little.
    for (i, &(model, _, _)) in MODELS.iter().enumerate() {
        assert!(
            invalid[i] > count / 20 && invalid[i] < count - count / 20,
            "{model}: {} of {count} invalid",
            invalid[i]
        );
    }
}
