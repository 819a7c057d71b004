//! Retirement keeps what the online checker holds bounded: a long list-append history drawn from the
//! seeded generator (keys rotated out after `max_writes_per_key` writes, each retired once the
//! transaction that rotated it out is invoked, as `run --online` fences them), executed serially by the
//! reference executor with three transactions in flight at a time, fed an operation at a time. The held
//! transactions stay within a bound however long the history, and the verdict the rounds reach is the
//! whole history's (valid, as the executor is serial).

use std::collections::BTreeSet;

use checker::{Online, Options, Workload, check};
use generators::serial::SerialDb;
use generators::{ListAppend, Params};
use histories::{History, Key, Mop, Op, OpType};

/// Transactions drawn.
const TXNS: usize = 6_000;

/// Operations between two rounds.
const ROUND_EVERY: usize = 40;

/// The most transactions that may be held at the end of a round: a few keys' lifetimes (a key read
/// often and written seldom stays active, and holds its transactions, longer), far below `TXNS`.
const HELD_BOUND: usize = 600;

#[test]
fn retirement_keeps_the_held_transactions_bounded_on_a_long_fenced_history() {
    let params = Params { key_count: 5, max_txn_len: 4, max_writes_per_key: 8, ..Params::default() };
    let mut stream = ListAppend::new(params, 7).expect("valid parameters");
    let mut db = SerialDb::new();
    let options = Options::new(&["strict-serializable".to_string()], &[])
        .expect("a known model")
        .with_workload(Some(Workload::ListAppend));
    let mut online = Online::new(options.clone());
    let mut ops: Vec<Op> = Vec::new();
    let mut invoked: Vec<Vec<Mop>> = Vec::new();
    let (mut most_held, mut since_round) = (0, 0);
    let push = |op: Op, online: &mut Online, ops: &mut Vec<Op>| {
        let mut op = op;
        op.index = ops.len() as u64;
        ops.push(op.clone());
        online.push(op);
    };
    for i in 0..TXNS + 2 {
        if i < TXNS {
            let before: BTreeSet<i64> = stream.active_keys().iter().copied().collect();
            let txn = stream.next().expect("an endless stream");
            let after: BTreeSet<i64> = stream.active_keys().iter().copied().collect();
            push(Op::txn(OpType::Invoke, (i % 3) as u64, txn.clone()), &mut online, &mut ops);
            invoked.push(txn);
            // Rotated out while this transaction was drawn: no later one names it.
            for key in before.difference(&after) {
                online.retire_key(Key::Int(*key));
            }
        }
        // Three in flight: each completes, in the serial order, once the second after it is invoked.
        if i >= 2 {
            let j = i - 2;
            let done = db.apply(&invoked[j]);
            push(Op::txn(OpType::Ok, (j % 3) as u64, done), &mut online, &mut ops);
        }
        since_round += 2;
        if since_round >= ROUND_EVERY {
            since_round = 0;
            online.check_held().expect("the held operations check");
            let held = online.held().iter().filter(|op| op.kind == OpType::Invoke).count();
            most_held = most_held.max(held);
        }
    }
    online.check_held().expect("the held operations check");
    let whole = History::from_ops(ops).expect("a well-formed history");
    assert!(online.retired_txns() as usize > TXNS * 9 / 10, "retired only {} of {TXNS}", online.retired_txns());
    assert!(most_held <= HELD_BOUND, "held up to {most_held} transactions");
    let offline = check(&whole, &options).expect("the history checks");
    let verdict = online.finish().expect("the held operations check");
    let types = |anomalies: &std::collections::BTreeMap<String, Vec<checker::Anomaly>>| {
        anomalies.keys().cloned().collect::<Vec<String>>()
    };
    assert_eq!(types(&verdict), types(&offline.anomalies));
    assert!(offline.anomalies.is_empty(), "{:?}", offline.anomaly_types);
    eprintln!("{TXNS} transactions, {} retired, at most {most_held} held after a round", online.retired_txns());
}
