//! The model test: random interleaved schedules at serializable must be equivalent to some serial order.
//!
//! Several sessions run short transactions over a few keys, one statement at a time in a random interleaving, and
//! commit or roll back at random. Each session runs on its own thread, driven step by step: a statement that waits
//! for another transaction's write is left blocked, the schedule moves on without that session, and its result is
//! taken when the transaction it waited for has ended (as Hermitage's scripts treat a blocked step). Afterwards the
//! committed transactions are re-executed one after another against a plain `BTreeMap`, as redb's fuzzer checks
//! against a reference (`fuzz/fuzz_targets/fuzz_redb.rs`): the commit order first, then a backtracking search over
//! the other orders. Some order must reproduce every read, scan and delete result each transaction saw and the
//! engine's final state; that is what serializability means for the committed transactions (Adya 1999). The same
//! check must fail for some schedule when `ssi-off` is planted, which shows that it can.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::thread;
use std::time::{Duration, Instant};

use engine::{
    Defect, Engine, EngineSession, EngineStats, EngineTxnId, Error, Isolation, RowKey, RowPredicate, SessionHandle,
    Value,
};
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
    Scan(RowPredicate),
}

#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    Read(Option<Value>),
    Done,
    Deleted(bool),
    Rows(Vec<(RowKey, Value)>),
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
        1 => prop_oneof![Just(RowPredicate::All), Just(RowPredicate::Mod { modulus: 2, remainder: 0 })]
            .prop_map(Op::Scan),
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

/// What the driver asks a session's thread to do.
enum Cmd {
    Begin(Isolation),
    /// A statement, with the unique integer its write or append uses.
    Op(Op, i64),
    Commit,
    Rollback,
}

/// What a session's thread answers.
enum Reply {
    Begun(EngineTxnId),
    Op(Result<Outcome, Error>),
    Ended(Result<(), Error>),
}

/// Runs one statement.
fn execute(session: &mut EngineSession, op: &Op, unique: i64) -> Result<Outcome, Error> {
    match op {
        Op::Read(k) => session.read(&RowKey::Int(*k)).map(Outcome::Read),
        Op::Write(k) => session.write(*k, unique).map(|()| Outcome::Done),
        Op::Append(k) => session.append(*k, unique).map(|()| Outcome::Done),
        Op::Delete(k) => session.delete(&RowKey::Int(*k)).map(Outcome::Deleted),
        Op::Scan(p) => session.scan(RowKey::Int(REGISTERS.start)..RowKey::Int(REGISTERS.end), *p).map(Outcome::Rows),
    }
}

/// A session's thread: runs each command it is sent and answers.
fn serve(mut session: EngineSession, cmds: Receiver<Cmd>, replies: Sender<Reply>) {
    for cmd in cmds {
        let reply = match cmd {
            Cmd::Begin(level) => {
                session.begin(level).expect("begin never fails on the correct engine");
                Reply::Begun(session.txn_id().expect("a transaction just began"))
            }
            Cmd::Op(op, unique) => Reply::Op(execute(&mut session, &op, unique)),
            Cmd::Commit => Reply::Ended(session.commit()),
            Cmd::Rollback => Reply::Ended(session.rollback()),
        };
        if replies.send(reply).is_err() {
            return;
        }
    }
}

/// The step a session was sent and has not answered yet.
enum InFlight {
    Begin,
    Op(Op, Value),
    Commit,
    Rollback,
}

/// The driver's view of one session.
struct Client {
    cmds: Sender<Cmd>,
    replies: Receiver<Reply>,
    handle: SessionHandle,
    /// Which planned transaction and statement come next.
    txn: usize,
    op: usize,
    /// The running transaction, once begun.
    running: Option<EngineTxnId>,
    log: Vec<(Op, Value, Outcome)>,
    in_flight: Option<InFlight>,
}

impl Client {
    fn send(&mut self, cmd: Cmd, in_flight: InFlight) {
        self.cmds.send(cmd).expect("the session's thread runs");
        self.in_flight = Some(in_flight);
    }

    fn next_transaction(&mut self) {
        (self.txn, self.op, self.running) = (self.txn + 1, 0, None);
        self.log.clear();
    }
}

/// How long a step may take to answer or block before the test fails (a hang is a bug).
const PATIENCE: Duration = Duration::from_secs(10);

/// Drives the sessions of one schedule, step by step.
struct Driver {
    clients: Vec<Client>,
    committed: Vec<Committed>,
}

impl Driver {
    /// Applies `reply` from client `s` to the driver's view.
    fn on_reply(&mut self, s: usize, reply: Reply) {
        let client = &mut self.clients[s];
        let in_flight = client.in_flight.take().expect("a reply answers a step");
        match (in_flight, reply) {
            (InFlight::Begin, Reply::Begun(id)) => client.running = Some(id),
            (InFlight::Op(op, arg), Reply::Op(Ok(outcome))) => client.log.push((op, arg, outcome)),
            (InFlight::Op(..), Reply::Op(Err(e))) => {
                // The engine already ended the transaction; the session still wants a rollback.
                assert!(e.is_retryable(), "unexpected error {e}");
                client.cmds.send(Cmd::Rollback).expect("the session's thread runs");
                match client.replies.recv_timeout(PATIENCE) {
                    Ok(Reply::Ended(Ok(()))) => {}
                    _ => panic!("rollback failed or hung"),
                }
                client.next_transaction();
            }
            (InFlight::Commit, Reply::Ended(result)) => {
                if result.is_ok() {
                    self.committed.push(Committed { steps: std::mem::take(&mut client.log) });
                }
                client.next_transaction();
            }
            (InFlight::Rollback, Reply::Ended(result)) => {
                result.expect("rollback");
                client.next_transaction();
            }
            _ => unreachable!("a reply of the wrong kind"),
        }
    }

    /// Whether client `s` has a step in flight that is not simply waiting for a transaction still running: it is
    /// about to answer, or woke up because the transaction it waited for ended.
    fn unsettled(&self, s: usize) -> bool {
        let client = &self.clients[s];
        client.in_flight.is_some()
            && !client.handle.waiting_for().is_some_and(|holder| self.clients.iter().any(|c| c.running == Some(holder)))
    }

    /// Takes every answer that is coming, until each step in flight has answered or waits for a running
    /// transaction. A step's answer can end a transaction and so wake others, hence the loop.
    fn settle(&mut self) {
        let deadline = Instant::now() + PATIENCE;
        while let Some(s) = (0..self.clients.len()).find(|&s| self.unsettled(s)) {
            match self.clients[s].replies.recv_timeout(Duration::from_micros(200)) {
                Ok(reply) => self.on_reply(s, reply),
                Err(RecvTimeoutError::Timeout) => {
                    assert!(Instant::now() < deadline, "a step neither answered nor blocked")
                }
                Err(RecvTimeoutError::Disconnected) => panic!("a session's thread died"),
            }
        }
    }

    /// Sends client `s` its next step, unless it is blocked or done; returns whether it had one.
    fn step(&mut self, s: usize, plans: &[TxnPlan], level: Isolation, unique: &mut i64) -> bool {
        let client = &mut self.clients[s];
        if client.in_flight.is_some() {
            return false;
        }
        let Some(plan) = plans.get(client.txn) else {
            return false;
        };
        if client.running.is_none() {
            client.send(Cmd::Begin(level), InFlight::Begin);
        } else {
            match plan.ops.get(client.op) {
                Some(op) => {
                    *unique += 1;
                    client.op += 1;
                    client.send(Cmd::Op(op.clone(), *unique), InFlight::Op(op.clone(), Value::Int(*unique)));
                }
                None if plan.commit => client.send(Cmd::Commit, InFlight::Commit),
                None => client.send(Cmd::Rollback, InFlight::Rollback),
            }
        }
        self.settle();
        true
    }
}

/// Runs `schedule` at `level`, returning the committed transactions in commit order.
fn run(engine: &Engine, schedule: &Schedule, level: Isolation) -> Vec<Committed> {
    thread::scope(|scope| {
        let clients = schedule
            .sessions
            .iter()
            .map(|_| {
                let session = engine.session();
                let handle = session.handle();
                let (cmds, cmd_rx) = channel();
                let (reply_tx, replies) = channel();
                scope.spawn(move || serve(session, cmd_rx, reply_tx));
                Client { cmds, replies, handle, txn: 0, op: 0, running: None, log: Vec::new(), in_flight: None }
            })
            .collect();
        let mut driver = Driver { clients, committed: Vec::new() };
        let mut unique = 0;
        for &s in &schedule.order {
            driver.step(s, &schedule.sessions[s], level, &mut unique);
        }
        // Then the sessions finish in turn; a blocked one is skipped until the transaction it waits for ends.
        while driver.clients.iter().zip(&schedule.sessions).any(|(c, plans)| c.txn < plans.len()) {
            let mut stepped = false;
            for (s, plans) in schedule.sessions.iter().enumerate() {
                stepped |= driver.step(s, plans, level, &mut unique);
            }
            // A blocked session waits for a running transaction, whose session can take a step.
            assert!(stepped, "every unfinished session is blocked: an undetected deadlock");
        }
        let Driver { clients, committed } = driver;
        // Closing the command channels ends the sessions' threads, which the scope joins.
        drop(clients);
        committed
    })
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
                state
                    .range(REGISTERS)
                    .filter(|(_, v)| p.matches(v))
                    .map(|(k, v)| (RowKey::Int(*k), v.clone()))
                    .collect(),
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
    let state = REGISTERS.chain(LISTS).filter_map(|k| s.read(&RowKey::Int(k)).expect("read").map(|v| (k, v))).collect();
    s.commit().expect("commit");
    state
}

/// Runs `schedule` on a fresh engine and checks that its committed transactions are serializable; adds the
/// engine's counts to `stats`.
fn check(schedule: &Schedule, defect: Option<Defect>, stats: &Cell<EngineStats>) -> Result<(), TestCaseError> {
    let engine = Engine::with_defect(defect);
    let committed = run(&engine, schedule, Isolation::Serializable);
    let end = final_state(&engine);
    let (seen, now) = (stats.get(), engine.stats());
    stats.set(EngineStats {
        lock_waits: seen.lock_waits + now.lock_waits,
        deadlocks: seen.deadlocks + now.deadlocks,
        ..seen
    });
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
    let stats = Cell::new(EngineStats::default());
    if let Err(e) = runner.run(&schedule_strategy(), |schedule| check(&schedule, None, &stats)) {
        panic!("{e}");
    }
    // The schedules exercise blocked writes and deadlocks, not only interleavings that never conflict.
    let stats = stats.get();
    assert!(stats.lock_waits > 100 && stats.deadlocks > 0, "{stats:?}");
}

#[test]
fn the_model_check_catches_ssi_off() {
    let mut runner = TestRunner::new(config(300, 0x150c4ec));
    let outcome = runner.run(&schedule_strategy(), |schedule| check(&schedule, Some(Defect::SsiOff), &Cell::default()));
    assert!(outcome.is_err(), "300 schedules with ssi-off were all serializable: the check cannot fail");
}
