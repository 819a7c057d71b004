//! The model test: random interleaved schedules at serializable must be equivalent to some serial order.
//!
//! Several sessions run short transactions over a few keys, one statement at a time in a random interleaving, and
//! commit or roll back at random. Afterwards the committed transactions are re-executed one after another against
//! a plain `BTreeMap`, as redb's fuzzer checks against a reference (`fuzz/fuzz_targets/fuzz_redb.rs`): the commit
//! order first, then a backtracking search over the other orders. Some order must reproduce every read, scan and
//! delete result each transaction saw and the engine's final state; that is what serializability means for the
//! committed transactions (Adya 1999). The same check must fail for some schedule when `ssi-off` is planted, which
//! shows that it can.

mod support;

use std::collections::BTreeMap;

use engine::{Defect, Engine, Isolation, Key, Predicate, Value};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};

/// Register keys (read, written, deleted, scanned) and list keys (appended, read) are kept apart, so no statement
/// fails on a type mismatch in one order and not another.
const REGISTERS: std::ops::Range<i64> = 0..4;
const LISTS: std::ops::Range<i64> = 10..12;

#[derive(Debug, Clone, PartialEq)]
enum Op {
    Read(i64),
    /// Writes a value unique to this statement, assigned when the schedule runs.
    Write(i64),
    Append(i64),
    Delete(i64),
    Scan(Predicate),
}

#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    Read(Option<Value>),
    Done,
    Deleted(bool),
    Rows(Vec<(Key, Value)>),
}

#[derive(Debug, Clone)]
struct TxnPlan {
    ops: Vec<Op>,
    commit: bool,
}

#[derive(Debug, Clone)]
struct Schedule {
    sessions: Vec<Vec<TxnPlan>>,
    /// Which session takes the next step; after it runs out, sessions finish in turn.
    order: Vec<usize>,
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => REGISTERS.prop_map(Op::Read),
        3 => REGISTERS.prop_map(Op::Write),
        1 => REGISTERS.prop_map(Op::Delete),
        2 => LISTS.prop_map(Op::Append),
        1 => LISTS.prop_map(Op::Read),
        1 => prop_oneof![Just(Predicate::All), Just(Predicate::Mod { modulus: 2, remainder: 0 })].prop_map(Op::Scan),
    ]
}

/// The named generator of schedules: 2 to 4 sessions, each running 1 to 3 transactions of 1 to 4 statements, 85%
/// of them asking to commit, interleaved by a random order of session steps.
fn schedule_strategy() -> impl Strategy<Value = Schedule> {
    let txn = (prop::collection::vec(op_strategy(), 1..=4), prop::bool::weighted(0.85))
        .prop_map(|(ops, commit)| TxnPlan { ops, commit });
    prop::collection::vec(prop::collection::vec(txn, 1..=3), 2..=4).prop_flat_map(|sessions| {
        let n = sessions.len();
        let steps: usize = sessions.iter().flatten().map(|t| t.ops.len() + 2).sum();
        (Just(sessions), prop::collection::vec(0..n, steps)).prop_map(|(sessions, order)| Schedule { sessions, order })
    })
}

/// A committed transaction: its statements with what each returned.
#[derive(Debug, Clone)]
struct Committed {
    steps: Vec<(Op, Value, Outcome)>,
}

struct Cursor {
    txn: usize,
    op: usize,
    active: bool,
    log: Vec<(Op, Value, Outcome)>,
}

/// Runs `schedule` at `level`, returning the committed transactions in commit order.
fn run(engine: &Engine, schedule: &Schedule, level: Isolation) -> Vec<Committed> {
    let mut sessions: Vec<_> = schedule.sessions.iter().map(|_| engine.session()).collect();
    let mut cursors: Vec<Cursor> =
        schedule.sessions.iter().map(|_| Cursor { txn: 0, op: 0, active: false, log: Vec::new() }).collect();
    let mut committed = Vec::new();
    let mut unique = 0;
    let total: usize = schedule.order.len();
    let tail = (0..schedule.sessions.len()).cycle().take(total * 2 + 64);
    for s in schedule.order.iter().copied().chain(tail) {
        let (session, cursor, plans) = (&mut sessions[s], &mut cursors[s], &schedule.sessions[s]);
        let Some(plan) = plans.get(cursor.txn) else {
            continue;
        };
        if !cursor.active {
            session.begin(level).expect("begin never fails on the correct engine");
            cursor.active = true;
            continue;
        }
        let finished = match plan.ops.get(cursor.op) {
            Some(op) => {
                unique += 1;
                let arg = Value::Int(unique);
                let result = match op {
                    Op::Read(k) => session.read(&Key::Int(*k)).map(Outcome::Read),
                    Op::Write(k) => session.write(*k, arg.clone()).map(|()| Outcome::Done),
                    Op::Append(k) => session.append(*k, unique).map(|()| Outcome::Done),
                    Op::Delete(k) => session.delete(&Key::Int(*k)).map(Outcome::Deleted),
                    Op::Scan(p) => {
                        session.scan(Key::Int(REGISTERS.start)..Key::Int(REGISTERS.end), *p).map(Outcome::Rows)
                    }
                };
                cursor.op += 1;
                match result {
                    Ok(outcome) => {
                        cursor.log.push((op.clone(), arg, outcome));
                        false
                    }
                    Err(e) => {
                        assert!(e.is_retryable(), "unexpected error {e}");
                        session.rollback().expect("rollback");
                        true
                    }
                }
            }
            None if plan.commit => {
                if session.commit().is_ok() {
                    committed.push(Committed { steps: std::mem::take(&mut cursor.log) });
                }
                true
            }
            None => {
                session.rollback().expect("rollback");
                true
            }
        };
        if finished {
            *cursor = Cursor { txn: cursor.txn + 1, op: 0, active: false, log: Vec::new() };
        }
    }
    assert!(cursors.iter().zip(&schedule.sessions).all(|(c, s)| c.txn == s.len()), "schedule did not finish");
    committed
}

type Reference = BTreeMap<i64, Value>;

/// Re-executes `txn` on `state`; false if any statement's result differs from what the engine returned.
fn replay(state: &mut Reference, txn: &Committed) -> bool {
    for (op, arg, outcome) in &txn.steps {
        let expected = match op {
            Op::Read(k) => Outcome::Read(state.get(k).cloned()),
            Op::Write(k) => {
                state.insert(*k, arg.clone());
                Outcome::Done
            }
            Op::Append(k) => {
                let Value::Int(element) = arg else { unreachable!("append arguments are integers") };
                match state.entry(*k).or_insert_with(|| Value::List(Vec::new())) {
                    Value::List(list) => list.push(*element),
                    other => unreachable!("list key holds {other:?}"),
                }
                Outcome::Done
            }
            Op::Delete(k) => Outcome::Deleted(state.remove(k).is_some()),
            Op::Scan(p) => Outcome::Rows(
                state.range(REGISTERS).filter(|(_, v)| p.matches(v)).map(|(k, v)| (Key::Int(*k), v.clone())).collect(),
            ),
        };
        if &expected != outcome {
            return false;
        }
    }
    true
}

/// Depth-first search for a serial order of `txns` that reproduces every result and ends in `final_state`. Tries
/// the lowest remaining index first, so the commit order is the first candidate.
fn serial_order(txns: &[Committed], used: &mut Vec<bool>, state: &Reference, final_state: &Reference) -> bool {
    if used.iter().all(|u| *u) {
        return state == final_state;
    }
    for i in 0..txns.len() {
        if used[i] {
            continue;
        }
        let mut next = state.clone();
        if replay(&mut next, &txns[i]) {
            used[i] = true;
            if serial_order(txns, used, &next, final_state) {
                return true;
            }
            used[i] = false;
        }
    }
    false
}

fn final_state(engine: &Engine) -> Reference {
    let mut s = engine.session();
    s.begin(Isolation::SnapshotIsolation).expect("begin");
    let state = REGISTERS.chain(LISTS).filter_map(|k| s.read(&Key::Int(k)).expect("read").map(|v| (k, v))).collect();
    s.commit().expect("commit");
    state
}

/// Runs `schedule` on a fresh engine and checks that its committed transactions are serializable.
fn check(schedule: &Schedule, defect: Option<Defect>) -> Result<(), TestCaseError> {
    let engine = Engine::with_defect(defect);
    let committed = run(&engine, schedule, Isolation::Serializable);
    let end = final_state(&engine);
    let mut used = vec![false; committed.len()];
    prop_assert!(
        serial_order(&committed, &mut used, &Reference::new(), &end),
        "no serial order of {} committed transactions explains {committed:?}, final state {end:?}",
        committed.len()
    );
    Ok(())
}

fn config(cases: u32, seed: u64) -> Config {
    Config {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        max_shrink_iters: 200,
        ..Config::default()
    }
}

#[test]
fn serializable_schedules_are_equivalent_to_a_serial_order() {
    let mut runner = TestRunner::new(config(2000, 0x150c4ec));
    if let Err(e) = runner.run(&schedule_strategy(), |schedule| check(&schedule, None)) {
        panic!("{e}");
    }
}

#[test]
fn the_model_check_catches_ssi_off() {
    let mut runner = TestRunner::new(config(300, 0x150c4ec));
    let outcome = runner.run(&schedule_strategy(), |schedule| check(&schedule, Some(Defect::SsiOff)));
    assert!(outcome.is_err(), "300 schedules with ssi-off were all serializable: the check cannot fail");
}
