//! The weak levels on list-append histories against an exhaustive oracle, as `oracle` does for registers.
//! A list read returns the appends of whole transactions in commit order, up to the transaction that
//! appended its last element (`docs/weak-models.md`); the oracle tries every commit order and checks
//! that each read is exactly that list, that session order and write-read (from every appender a read
//! shows) lie inside the order, and the level's axiom with the last element's appender as the writer read
//! from. A read after the transaction's own append of the key must end with its own appends so far, and
//! is no other observation. Histories are seeded: each key's appends are shuffled into one order, and
//! reads return prefixes of it (often cut inside a transaction's appends, or showing a later, aborted or
//! own append), now and then a prefix of another order or an element nobody appended.

use std::collections::BTreeMap;

use checker::weak_levels::verdicts;

use super::permutations;
use histories::{History, Key, Mop, Observed, Op, OpType};
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Histories per run of `cargo test`: each is decided at all three levels.
const HISTORIES: usize = 100_000;

const KEYS: [&str; 2] = ["x", "y"];

#[derive(Debug, Clone)]
pub(super) struct Txn {
    session: u64,
    outcome: OpType,
    mops: Vec<Mop>,
}

fn key_index(key: &Key) -> usize {
    KEYS.iter().position(|name| Key::from(*name) == *key).expect("a known key")
}

fn list(l: &[i64]) -> Observed {
    Observed::List(l.to_vec().into())
}

pub(super) fn generate(rng: &mut Xoshiro256PlusPlus) -> Vec<Txn> {
    let n = rng.random_range(1..=5);
    let sessions = rng.random_range(1..=3u64);
    let keys = rng.random_range(1..=2usize);
    let mut next = [1i64; 2];
    let mut txns: Vec<Txn> = (0..n)
        .map(|_| {
            let outcome = match rng.random_range(0..100) {
                0..84 => OpType::Ok,
                84..92 => OpType::Fail,
                _ => OpType::Info,
            };
            let size = rng.random_range(1..=3);
            let mops = (0..size)
                .map(|_| {
                    let k = rng.random_range(0..keys);
                    let key: Key = KEYS[k].into();
                    if rng.random_bool(0.5) {
                        next[k] += 1;
                        Mop::Append { key, value: next[k] - 1 }
                    } else {
                        Mop::Read { key, value: list(&[]) }
                    }
                })
                .collect();
            Txn { session: rng.random_range(0..sessions), outcome, mops }
        })
        .collect();
    // Each key's appends, by transaction, in one shuffled order of the transactions.
    let orders: Vec<Vec<(usize, Vec<i64>)>> = (0..KEYS.len())
        .map(|k| {
            let mut by_txn: Vec<(usize, Vec<i64>)> = txns
                .iter()
                .enumerate()
                .map(|(t, txn)| {
                    let mine = txn
                        .mops
                        .iter()
                        .filter_map(|m| match m {
                            Mop::Append { key, value } if key_index(key) == k => Some(*value),
                            _ => None,
                        })
                        .collect();
                    (t, mine)
                })
                .filter(|(_, mine): &(usize, Vec<i64>)| !mine.is_empty())
                .collect();
            by_txn.shuffle(rng);
            by_txn
        })
        .collect();
    for (t, txn) in txns.iter_mut().enumerate() {
        let mut own: BTreeMap<usize, Vec<i64>> = BTreeMap::new();
        for mop in &mut txn.mops {
            match mop {
                Mop::Append { key, value } => own.entry(key_index(key)).or_default().push(*value),
                Mop::Read { key, value } => {
                    let k = key_index(key);
                    let others: Vec<i64> = orders[k]
                        .iter()
                        .filter(|(w, _)| !own.contains_key(&k) || *w != t)
                        .flat_map(|(_, l)| l.clone())
                        .collect();
                    let mut shown: Vec<i64> = others[..rng.random_range(0..=others.len())].to_vec();
                    if let Some(mine) = own.get(&k)
                        && rng.random_bool(0.8)
                    {
                        shown.extend(mine);
                    }
                    match rng.random_range(0..20) {
                        0 => shown.push(99),
                        1 => shown.shuffle(rng),
                        _ => {}
                    }
                    *value = list(&shown);
                }
                _ => {}
            }
        }
    }
    txns
}

pub(super) fn history(txns: &[Txn]) -> History {
    let mut ops = Vec::new();
    for t in txns {
        let invoke: Vec<Mop> = t
            .mops
            .iter()
            .map(|m| match m {
                Mop::Read { key, .. } => Mop::Read { key: key.clone(), value: Observed::Nil },
                other => other.clone(),
            })
            .collect();
        ops.push(Op::txn(OpType::Invoke, t.session, invoke));
        ops.push(Op::txn(t.outcome, t.session, t.mops.clone()));
    }
    for (i, op) in ops.iter_mut().enumerate() {
        op.index = i as u64;
    }
    History::from_ops(ops).expect("a generated history is well formed")
}

/// One external read: key, the list, and the transactions (indices into the history) it shows.
struct ListRead {
    key: usize,
    list: Vec<i64>,
    shows: Vec<usize>,
}

/// Whether each level holds, by brute force over every commit order.
fn oracle(txns: &[Txn]) -> [bool; 3] {
    let mut appender: BTreeMap<(usize, i64), usize> = BTreeMap::new();
    for (t, txn) in txns.iter().enumerate() {
        for m in &txn.mops {
            if let Mop::Append { key, value } = m {
                appender.insert((key_index(key), *value), t);
            }
        }
    }
    let appends = |t: usize, k: usize| -> Vec<i64> {
        txns[t]
            .mops
            .iter()
            .filter_map(|m| match m {
                Mop::Append { key, value } if key_index(key) == k => Some(*value),
                _ => None,
            })
            .collect()
    };
    // The committed transactions' external reads; a read after the transaction's own append must end
    // with its own appends so far.
    let mut reads: Vec<Vec<ListRead>> = (0..txns.len()).map(|_| Vec::new()).collect();
    for (t, txn) in txns.iter().enumerate().filter(|(_, x)| x.outcome == OpType::Ok) {
        for (i, m) in txn.mops.iter().enumerate() {
            let Mop::Read { key, value: Observed::List(l) } = m else { continue };
            let k = key_index(key);
            let own: Vec<i64> = txn.mops[..i]
                .iter()
                .filter_map(|n| match n {
                    Mop::Append { key, value } if key_index(key) == k => Some(*value),
                    _ => None,
                })
                .collect();
            if !own.is_empty() {
                if !l.ends_with(&own) {
                    return [false; 3];
                }
                continue;
            }
            let mut shows = Vec::new();
            for e in l.iter() {
                // An element nobody appended, or this transaction's own: no commit order gives it.
                match appender.get(&(k, *e)) {
                    Some(&w) if w != t => {
                        if !shows.contains(&w) {
                            shows.push(w)
                        }
                    }
                    _ => return [false; 3],
                }
            }
            reads[t].push(ListRead { key: k, list: l.to_vec(), shows });
        }
    }
    let read_from: Vec<bool> = (0..txns.len()).map(|w| reads.iter().flatten().any(|r| r.shows.contains(&w))).collect();
    let optional: Vec<usize> = (0..txns.len()).filter(|&t| txns[t].outcome == OpType::Info && !read_from[t]).collect();
    let mut holds = [false; 3];
    for subset in 0..1u32 << optional.len() {
        let included: Vec<usize> = (0..txns.len())
            .filter(|&t| match txns[t].outcome {
                OpType::Ok => true,
                OpType::Info => {
                    read_from[t] || optional.iter().position(|&o| o == t).is_some_and(|i| subset >> i & 1 == 1)
                }
                _ => false,
            })
            .collect();
        for (level, h) in holds.iter_mut().enumerate() {
            *h = *h || some_commit_order(txns, &included, &reads, &appends, level);
        }
    }
    holds
}

/// Whether some order of the `included` transactions satisfies the level (0: read committed, 1: read
/// atomic, 2: causal).
fn some_commit_order(
    txns: &[Txn],
    included: &[usize],
    reads: &[Vec<ListRead>],
    appends: &dyn Fn(usize, usize) -> Vec<i64>,
    level: usize,
) -> bool {
    let n = included.len();
    // Reads of aborted or left-out transactions' appends can be in no order.
    if included.iter().any(|&t| reads[t].iter().any(|r| r.shows.iter().any(|w| !included.contains(w)))) {
        return false;
    }
    let node = |t: usize| included.iter().position(|&i| i == t).expect("included");
    let so = |a: usize, b: usize| a < b && txns[included[a]].session == txns[included[b]].session;
    let wr = |a: usize, b: usize| reads[included[b]].iter().any(|r| r.shows.contains(&included[a]));
    let mut hb: Vec<Vec<bool>> = (0..n).map(|a| (0..n).map(|b| so(a, b) || wr(a, b)).collect()).collect();
    for k in 0..n {
        let through = hb[k].clone();
        for row in hb.iter_mut().filter(|row| row[k]) {
            for (cell, &next) in row.iter_mut().zip(&through) {
                *cell |= next;
            }
        }
    }
    let writes = |a: usize, k: usize| !appends(included[a], k).is_empty();
    let satisfied = |position: &[usize]| {
        let before = |a: usize, b: usize| position[a] < position[b];
        for a in 0..n {
            for b in 0..n {
                if (so(a, b) || wr(a, b)) && !before(a, b) {
                    return false;
                }
            }
        }
        for t3 in 0..n {
            for (i, r) in reads[included[t3]].iter().enumerate() {
                let t1 = r.shows.last().map(|&w| node(w));
                // The list must be the appends, in commit order, of the appenders up to the last one.
                let mut upto: Vec<usize> =
                    (0..n).filter(|&a| writes(a, r.key) && t1.is_some_and(|t1| a == t1 || before(a, t1))).collect();
                upto.sort_by_key(|&a| position[a]);
                let expected: Vec<i64> = upto.iter().flat_map(|&a| appends(included[a], r.key)).collect();
                if expected != r.list {
                    return false;
                }
                for t2 in (0..n).filter(|&t2| t2 != t3 && Some(t2) != t1 && writes(t2, r.key)) {
                    let premise = match level {
                        0 => reads[included[t3]][..i].iter().any(|e| e.shows.contains(&included[t2])),
                        1 => so(t2, t3) || wr(t2, t3),
                        _ => hb[t2][t3],
                    };
                    if premise && t1.is_none_or(|t1| !before(t2, t1)) {
                        return false;
                    }
                }
            }
        }
        true
    };
    let mut order: Vec<usize> = (0..n).collect();
    permutations(&mut order, 0, &mut |perm| {
        let mut position = vec![0; n];
        for (p, &t) in perm.iter().enumerate() {
            position[t] = p;
        }
        satisfied(&position)
    })
}

fn shorthand(txns: &[Txn]) -> String {
    txns.iter()
        .map(|t| {
            let mops: Vec<String> = t.mops.iter().map(|m| m.to_string()).collect();
            format!("session {} {:?}: {}", t.session, t.outcome, mops.join(" "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_three_levels_agree_with_every_commit_order_on_100k_random_list_histories() {
    // One thread: histories this small take longer to share out than to check.
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a thread pool");
    pool.install(compare_with_the_oracle);
}

fn compare_with_the_oracle() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(4444);
    let mut tally = [[0usize; 2]; 3];
    for case in 0..HISTORIES {
        let txns = generate(&mut rng);
        let expected = oracle(&txns);
        let got = verdicts(&history(&txns)).expect("a generated history is checked");
        for level in 0..3 {
            assert_eq!(
                got[level].is_none(),
                expected[level],
                "list history {case}, level {level} (0 read committed, 1 read atomic, 2 causal): checker says {:?}, \
                 oracle says it {}\n{}",
                got[level],
                if expected[level] { "holds" } else { "fails" },
                shorthand(&txns)
            );
            tally[level][usize::from(expected[level])] += 1;
        }
    }
    for (level, [fails, holds]) in tally.iter().enumerate() {
        assert!(*fails > HISTORIES / 20 && *holds > HISTORIES / 20, "level {level}: {fails} fail, {holds} hold");
    }
    assert!(tally[0][0] < tally[1][0] && tally[1][0] < tally[2][0], "{tally:?}");
}
