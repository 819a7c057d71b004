//! The weak levels against an exhaustive oracle: seeded random rw-register histories of up to five
//! transactions, in up to three sessions, on up to three keys, with committed, aborted and
//! indeterminate transactions and reads of any value written (later, aborted or overwritten ones
//! included), are decided by enumerating every total commit order and testing the axioms as Biswas &
//! Enea (OOPSLA 2019, Def. 2.3–2.5) state them: session order and write-read inside the commit order,
//! and, for a read of x in T3 from T1 and another writer T2 of x, T2 before T1 whenever T2 wrote what an
//! earlier read of T3 read (read committed), precedes T3 in session order or write-read (read atomic),
//! or in their transitive closure (causal). An indeterminate transaction nobody read from may or may
//! not have committed: the oracle tries both. Nothing here shares code with the checker but the history
//! types.

use std::collections::BTreeMap;

use checker::weak_levels::verdicts;

use super::permutations;
use histories::{History, Key, Mop, Observed, Op, OpType};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Histories per run of `cargo test`: each is decided at all three levels.
const HISTORIES: usize = 100_000;

#[derive(Debug, Clone)]
pub(super) struct Txn {
    session: u64,
    outcome: OpType,
    mops: Vec<Mop>,
}

const KEYS: [&str; 3] = ["x", "y", "z"];

pub(super) fn generate(rng: &mut Xoshiro256PlusPlus) -> Vec<Txn> {
    let n = rng.random_range(1..=5);
    let sessions = rng.random_range(1..=3u64);
    let keys = rng.random_range(1..=3usize);
    // Shapes first, writes numbered per key, then each read given a value: nil, or any value written.
    let mut next = [1i64; 3];
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
                        Mop::Write { key, value: next[k] - 1, version: None }
                    } else {
                        Mop::Read { key, value: Observed::Nil }
                    }
                })
                .collect();
            Txn { session: rng.random_range(0..sessions), outcome, mops }
        })
        .collect();
    for t in &mut txns {
        for mop in &mut t.mops {
            if let Mop::Read { key, value } = mop {
                let k = KEYS.iter().position(|name| Key::from(*name) == *key).expect("a known key");
                let written = next[k] - 1;
                if written > 0 && rng.random_bool(0.75) {
                    *value = Observed::Int(rng.random_range(1..=written));
                }
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

/// A transaction as the axioms see it: its session, external reads (key, writer; `None` the initial
/// state) and written keys.
struct Node {
    session: u64,
    reads: Vec<(Key, Option<usize>)>,
    writes: Vec<Key>,
}

/// Whether each level holds, by brute force.
fn oracle(txns: &[Txn]) -> [bool; 3] {
    // Who wrote each (key, value), of any outcome, and whether it wrote the key again after.
    let mut writer: BTreeMap<(Key, i64), (usize, bool)> = BTreeMap::new();
    for (t, txn) in txns.iter().enumerate() {
        for (i, m) in txn.mops.iter().enumerate() {
            if let Mop::Write { key, value, .. } = m {
                let later = txn.mops[i + 1..].iter().any(|n| matches!(n, Mop::Write { key: k, .. } if k == key));
                writer.insert((key.clone(), *value), (t, later));
            }
        }
    }
    // Resolve the committed transactions' reads; any read no commit order explains breaks every level.
    let mut reads: Vec<Vec<(Key, Option<usize>)>> = vec![Vec::new(); txns.len()];
    for (t, txn) in txns.iter().enumerate().filter(|(_, x)| x.outcome == OpType::Ok) {
        for (i, m) in txn.mops.iter().enumerate() {
            let Mop::Read { key, value } = m else { continue };
            let own = txn.mops[..i].iter().rev().find_map(|n| match n {
                Mop::Write { key: k, value, .. } if k == key => Some(*value),
                _ => None,
            });
            let v = match value {
                Observed::Int(v) => Some(*v),
                _ => None,
            };
            if let Some(own) = own {
                if v != Some(own) {
                    return [false; 3];
                }
                continue;
            }
            match v {
                None => reads[t].push((key.clone(), None)),
                Some(v) => match writer.get(&(key.clone(), v)) {
                    Some(&(w, false)) if w != t && txns[w].outcome != OpType::Fail => {
                        reads[t].push((key.clone(), Some(w)))
                    }
                    _ => return [false; 3],
                },
            }
        }
    }
    let read_from: Vec<bool> =
        (0..txns.len()).map(|w| reads.iter().flatten().any(|(_, from)| *from == Some(w))).collect();
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
        let nodes: Vec<Node> = included
            .iter()
            .map(|&t| Node {
                session: txns[t].session,
                reads: reads[t]
                    .iter()
                    .map(|(k, from)| {
                        (k.clone(), from.map(|w| included.iter().position(|&i| i == w).expect("read from")))
                    })
                    .collect(),
                writes: txns[t]
                    .mops
                    .iter()
                    .filter_map(|m| match m {
                        Mop::Write { key, .. } => Some(key.clone()),
                        _ => None,
                    })
                    .collect(),
            })
            .collect();
        for (level, h) in holds.iter_mut().enumerate() {
            *h = *h || some_commit_order(&nodes, level);
        }
    }
    holds
}

/// Whether some total order of the nodes satisfies the level's axioms (0: read committed, 1: read
/// atomic, 2: causal), trying every order.
fn some_commit_order(nodes: &[Node], level: usize) -> bool {
    let n = nodes.len();
    let so = |a: usize, b: usize| a < b && nodes[a].session == nodes[b].session;
    let wr = |a: usize, b: usize| nodes[b].reads.iter().any(|(_, from)| *from == Some(a));
    // Causal order, the transitive closure of session order and write-read (Warshall's algorithm).
    let mut hb: Vec<Vec<bool>> = (0..n).map(|a| (0..n).map(|b| so(a, b) || wr(a, b)).collect()).collect();
    for k in 0..n {
        let through = hb[k].clone();
        for row in hb.iter_mut().filter(|row| row[k]) {
            for (cell, &next) in row.iter_mut().zip(&through) {
                *cell |= next;
            }
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
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
            for (i, (x, t1)) in nodes[t3].reads.iter().enumerate() {
                for t2 in (0..n).filter(|&t2| t2 != t3 && Some(t2) != *t1 && nodes[t2].writes.contains(x)) {
                    let premise = match level {
                        0 => nodes[t3].reads[..i].iter().any(|(_, from)| *from == Some(t2)),
                        1 => so(t2, t3) || wr(t2, t3),
                        _ => hb[t2][t3],
                    };
                    // The initial state precedes everything: nothing can come before it.
                    if premise && t1.is_none_or(|t1| !before(t2, t1)) {
                        return false;
                    }
                }
            }
        }
        true
    };
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
fn the_three_levels_agree_with_every_commit_order_on_100k_random_histories() {
    // One thread: histories this small take longer to share out than to check.
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a thread pool");
    pool.install(compare_with_the_oracle);
}

fn compare_with_the_oracle() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(44);
    let mut tally = [[0usize; 2]; 3];
    for case in 0..HISTORIES {
        let txns = generate(&mut rng);
        let expected = oracle(&txns);
        let got = verdicts(&history(&txns)).expect("a generated history is checked");
        for level in 0..3 {
            assert_eq!(
                got[level].is_none(),
                expected[level],
                "history {case}, level {level} (0 read committed, 1 read atomic, 2 causal): checker says {:?}, \
                 oracle says it {}\n{}",
                got[level],
                if expected[level] { "holds" } else { "fails" },
                shorthand(&txns)
            );
            tally[level][usize::from(expected[level])] += 1;
        }
    }
    // The generator must give each level both verdicts in numbers, or the comparison proves little.
    for (level, [fails, holds]) in tally.iter().enumerate() {
        assert!(*fails > HISTORIES / 20 && *holds > HISTORIES / 20, "level {level}: {fails} fail, {holds} hold");
    }
    // Each level is strictly stronger than the one before on these histories.
    assert!(tally[0][0] < tally[1][0] && tally[1][0] < tally[2][0], "{tally:?}");
}
