//! Running a scenario step by step: one thread per session, the steps issued in script order. A step
//! that does not return within a short window and is waiting for another transaction's lock is
//! *blocked*: the script moves on, and its completion is recorded when it comes, as a person running
//! Hermitage by hand would see it. A step that is merely slow (a busy machine) is waited for, so the
//! script's order stays the order the system saw; only where the system cannot say whether a session
//! waits (SQLite) does the window alone decide. Errors (serialization
//! failure, busy, deadlock) are recorded where they happen. The execution becomes a history: the
//! initial rows as an `init` operation, each session's transaction as an invocation and a completion
//! with the micro-ops it executed, and a final read of every row by an observer, after everything else,
//! so the checker can order each row's last versions. This module owns the schedule and the record; what
//! the outcome means is `verdict`'s.

use std::collections::BTreeMap;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use adapters::{Change, Failure, Level, Session, System, TxnError};
use anyhow::{Context, anyhow};
use histories::{Function, History, Key, Mop, Observed, Op, OpType, OpValue, Position, Predicate, Process, Rows};

use super::scenario::{Action, Scenario};

/// How long a step may take before the runner asks whether it is blocked.
pub const BLOCKED_AFTER: Duration = Duration::from_millis(300);

/// How often the runner asks again whether a slow step is waiting for a lock.
const WAITING_POLL: Duration = Duration::from_millis(20);

/// How long a blocked step may stay blocked once the script has run out, before its session is killed.
const GIVE_UP_AFTER: Duration = Duration::from_secs(15);

/// What running a scenario did.
#[derive(Debug)]
pub struct Execution {
    /// The history.
    pub history: History,
    /// Steps (by position in the script) that blocked.
    pub blocked: Vec<usize>,
    /// Each session's transaction: its completion's index in the history, and how it ended.
    pub transactions: BTreeMap<usize, (u64, OpType, Option<TxnError>)>,
}

/// A step's result.
enum Outcome {
    Done,
    Read(Option<i64>),
    Rows(Rows),
    Changed(Vec<(Key, i64, i64)>),
}

struct Reply {
    step: usize,
    result: Result<Outcome, TxnError>,
    at: i64,
}

/// Runs a scenario at a level.
pub fn execute(system: &dyn System, level: Level, scenario: &Scenario) -> anyhow::Result<Execution> {
    let rows: Vec<(Key, i64)> = scenario.rows.iter().map(|&(k, v)| (Key::Int(k), v)).collect();
    system.prepare(&rows).context("preparing the table")?;
    let clock = Instant::now();
    let now = || i64::try_from(clock.elapsed().as_nanos()).unwrap_or(i64::MAX);
    let mut sessions: Vec<Box<dyn Session>> = Vec::new();
    for s in 1..=scenario.sessions() {
        sessions.push(system.connect().with_context(|| format!("connecting session {s}"))?);
    }
    let kills: Vec<_> = sessions.iter().map(|s| s.kill_switch()).collect();
    let (reply_tx, reply_rx) = mpsc::channel::<Reply>();
    let mut issued_at: Vec<i64> = vec![0; scenario.steps.len()];
    let mut results: Vec<Option<(Result<Outcome, TxnError>, i64)>> = (0..scenario.steps.len()).map(|_| None).collect();
    let mut blocked = Vec::new();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        let mut senders = Vec::new();
        for mut session in sessions {
            let (tx, rx) = mpsc::channel::<(usize, Action)>();
            let replies = reply_tx.clone();
            let clock = &clock;
            scope.spawn(move || {
                for (step, action) in rx {
                    let result = perform(session.as_mut(), level, &action);
                    let at = i64::try_from(clock.elapsed().as_nanos()).unwrap_or(i64::MAX);
                    if replies.send(Reply { step, result, at }).is_err() {
                        break;
                    }
                }
                let _ = session.rollback();
            });
            senders.push(tx);
        }
        let receive = |results: &mut Vec<Option<(Result<Outcome, TxnError>, i64)>>, timeout: Duration| -> bool {
            match reply_rx.recv_timeout(timeout) {
                Ok(reply) => {
                    results[reply.step] = Some((reply.result, reply.at));
                    true
                }
                Err(_) => false,
            }
        };
        for (i, step) in scenario.steps.iter().enumerate() {
            issued_at[i] = now();
            senders[step.s - 1].send((i, step.action.clone())).map_err(|_| anyhow!("session {} stopped", step.s))?;
            let deadline = Instant::now() + BLOCKED_AFTER;
            let give_up = Instant::now() + GIVE_UP_AFTER;
            while results[i].is_none() {
                let left = deadline.saturating_duration_since(Instant::now());
                if !left.is_zero() {
                    receive(&mut results, left);
                    continue;
                }
                // A slow step is not a blocked one: where the system can tell, the script moves on only
                // once the step is waiting for a lock, and otherwise waits for it.
                match kills[step.s - 1].as_ref().and_then(|k| k.waiting()) {
                    Some(false) if Instant::now() < give_up => {
                        receive(&mut results, WAITING_POLL);
                    }
                    Some(false) => {
                        return Err(anyhow!(
                            "step {} ({:?}) ran for {GIVE_UP_AFTER:?} without returning or waiting for a lock",
                            i + 1,
                            step.action
                        ));
                    }
                    Some(true) | None => {
                        blocked.push(i);
                        break;
                    }
                }
            }
        }
        drop(senders);
        let deadline = Instant::now() + GIVE_UP_AFTER;
        let mut killed = false;
        while results.iter().any(Option::is_none) {
            let left = deadline.saturating_duration_since(Instant::now());
            if !receive(&mut results, left.max(Duration::from_millis(50))) && left.is_zero() {
                if killed {
                    return Err(anyhow!("steps still blocked after their sessions were killed"));
                }
                // Nothing will unblock what is left: break those sessions' connections.
                for (i, r) in results.iter().enumerate() {
                    if r.is_none()
                        && let Some(kill) = &kills[scenario.steps[i].s - 1]
                    {
                        kill.kill();
                    }
                }
                killed = true;
            }
        }
        Ok(())
    })?;
    let results: Vec<(Result<Outcome, TxnError>, i64)> =
        results.into_iter().map(|r| r.expect("every step has a result after the scope")).collect();
    let final_rows = observe(system)?;
    record(scenario, &issued_at, results, blocked, &rows, final_rows, now())
}

fn perform(session: &mut dyn Session, level: Level, action: &Action) -> Result<Outcome, TxnError> {
    Ok(match action {
        Action::Begin => session.begin(level).map(|()| Outcome::Done)?,
        Action::Commit => session.commit().map(|()| Outcome::Done)?,
        Action::Rollback => session.rollback().map(|()| Outcome::Done)?,
        Action::Read { key } => Outcome::Read(session.read(&Key::Int(*key))?),
        Action::Scan { predicate } => Outcome::Rows(session.scan(predicate)?),
        Action::Write { key, value } => session.write(&Key::Int(*key), *value).map(|()| Outcome::Done)?,
        Action::Insert { key, value } => session.insert(&Key::Int(*key), *value).map(|()| Outcome::Done)?,
        Action::Delete { key } => session.delete(&Key::Int(*key)).map(|_| Outcome::Done)?,
        Action::DeleteWhere { predicate } => Outcome::Rows(session.delete_where(predicate)?),
        Action::UpdateWhere { predicate, set, add } => {
            let change = match (set, add) {
                (Some(x), _) => Change::Set(*x),
                (None, Some(d)) => Change::Add(*d),
                (None, None) => return Err(TxnError::fatal("bad-scenario", "update_where without set or add")),
            };
            Outcome::Changed(session.update_where(predicate, change)?)
        }
    })
}

/// The final rows, read by a transaction of its own after every session is done.
fn observe(system: &dyn System) -> anyhow::Result<Rows> {
    let mut session = system.connect().context("connecting the observer")?;
    session.begin(Level::Serializable).map_err(|e| anyhow!("the observer could not begin: {e}"))?;
    let rows = session.scan(&Predicate::True).map_err(|e| anyhow!("the observer could not read: {e}"))?;
    session.commit().map_err(|e| anyhow!("the observer could not commit: {e}"))?;
    Ok(rows)
}

/// The micro-ops a step announces before it runs: what it will read is not known yet.
fn planned(action: &Action) -> Vec<Mop> {
    match action {
        Action::Read { key } => vec![Mop::Read { key: Key::Int(*key), value: Observed::Nil }],
        Action::Scan { predicate } | Action::DeleteWhere { predicate } | Action::UpdateWhere { predicate, .. } => {
            vec![Mop::PredicateRead { predicate: *predicate, rows: None }]
        }
        Action::Write { key, value } => vec![Mop::Write { key: Key::Int(*key), value: *value, version: None }],
        Action::Insert { key, value } => vec![Mop::Insert { key: Key::Int(*key), value: *value }],
        Action::Delete { key } => vec![Mop::Delete { key: Key::Int(*key) }],
        Action::Begin | Action::Commit | Action::Rollback => Vec::new(),
    }
}

/// The micro-ops a step executed, with what it saw.
fn executed(action: &Action, outcome: &Outcome) -> Vec<Mop> {
    match (action, outcome) {
        (Action::Read { key }, Outcome::Read(v)) => {
            vec![Mop::Read { key: Key::Int(*key), value: v.map_or(Observed::Nil, Observed::Int) }]
        }
        // `select * from test where P` is, in Adya's model, a predicate read of the rows P matched and an
        // item read of each row it returned: the values were read too.
        (Action::Scan { predicate }, Outcome::Rows(rows)) => {
            let mut mops = vec![Mop::PredicateRead { predicate: *predicate, rows: Some(Box::new(rows.clone())) }];
            mops.extend(rows.iter().map(|(k, v)| Mop::Read { key: k.clone(), value: Observed::Int(*v) }));
            mops
        }
        (Action::DeleteWhere { predicate }, Outcome::Rows(rows)) => {
            let mut mops = vec![Mop::PredicateRead { predicate: *predicate, rows: Some(Box::new(rows.clone())) }];
            mops.extend(rows.keys().map(|k| Mop::Delete { key: k.clone() }));
            mops
        }
        (Action::UpdateWhere { predicate, .. }, Outcome::Changed(changed)) => {
            let seen: Rows = changed.iter().map(|(k, old, _)| (k.clone(), *old)).collect();
            // `update ... set value = value + d where P` reads each matched row's value, then writes it.
            let mut mops = vec![Mop::PredicateRead { predicate: *predicate, rows: Some(Box::new(seen)) }];
            for (k, old, new) in changed {
                mops.push(Mop::Read { key: k.clone(), value: Observed::Int(*old) });
                mops.push(Mop::Write { key: k.clone(), value: *new, version: None });
            }
            mops
        }
        _ => planned(action),
    }
}

/// Builds the history: the initial rows, each session's transaction, the observer's read.
fn record(
    scenario: &Scenario,
    issued_at: &[i64],
    results: Vec<(Result<Outcome, TxnError>, i64)>,
    blocked: Vec<usize>,
    rows: &[(Key, i64)],
    final_rows: Rows,
    end: i64,
) -> anyhow::Result<Execution> {
    let initial: Rows = rows.iter().cloned().collect();
    let mut ops = vec![
        Op::new(OpType::Invoke, Process::Client(0), Function::Init, OpValue::Rows(Box::new(initial.clone())))
            .with_time(0),
        Op::new(OpType::Ok, Process::Client(0), Function::Init, OpValue::Rows(Box::new(initial))).with_time(1),
    ];
    // Per session: the transaction being built (invocation time, planned and executed micro-ops, first error).
    struct Building {
        invoked: i64,
        planned: Vec<Mop>,
        executed: Vec<Mop>,
        error: Option<TxnError>,
    }
    let mut open: BTreeMap<usize, Building> = BTreeMap::new();
    // Per session: the finished transaction.
    struct Ended {
        session: usize,
        invoked: i64,
        kind: OpType,
        planned: Vec<Mop>,
        executed: Vec<Mop>,
        error: Option<TxnError>,
        at: i64,
    }
    let mut ends: Vec<Ended> = Vec::new();
    for (i, (step, (result, at))) in scenario.steps.iter().zip(results).enumerate() {
        if step.action == Action::Begin {
            let planned = scenario.steps[i..]
                .iter()
                .filter(|s| s.s == step.s)
                .take_while(|s| !matches!(s.action, Action::Commit | Action::Rollback))
                .flat_map(|s| planned(&s.action))
                .collect();
            open.insert(step.s, Building { invoked: issued_at[i], planned, executed: Vec::new(), error: None });
        }
        let Some(txn) = open.get_mut(&step.s) else { continue };
        match result {
            Ok(outcome) => {
                if txn.error.is_none() {
                    txn.executed.extend(executed(&step.action, &outcome));
                }
            }
            Err(e) if e.failure == Failure::Fatal => return Err(anyhow!("step {} ({:?}): {e}", i + 1, step.action)),
            Err(e) => {
                txn.error.get_or_insert(e);
            }
        }
        if matches!(step.action, Action::Commit | Action::Rollback) {
            let txn = open.remove(&step.s).expect("the transaction is open");
            let kind = match (&txn.error, &step.action) {
                (Some(e), _) if e.failure == Failure::Indeterminate => OpType::Info,
                (Some(_), _) | (None, Action::Rollback) => OpType::Fail,
                (None, _) => OpType::Ok,
            };
            ends.push(Ended {
                session: step.s,
                invoked: txn.invoked,
                kind,
                planned: txn.planned,
                executed: txn.executed,
                error: txn.error,
                at,
            });
        }
    }
    for e in &ends {
        let process = e.session as u64;
        ops.push(Op::txn(OpType::Invoke, process, e.planned.clone()).with_time(e.invoked));
        let (value, cause) = match e.kind {
            OpType::Ok => (e.executed.clone(), None),
            _ => (
                e.planned.clone(),
                Some(e.error.as_ref().map_or_else(|| "rolled back".to_string(), |x| x.cause.clone())),
            ),
        };
        ops.push(Op::txn(e.kind, process, value).with_time(e.at).with_error(cause));
    }
    let observer = vec![Mop::PredicateRead { predicate: Predicate::True, rows: Some(Box::new(final_rows)) }];
    ops.push(
        Op::txn(OpType::Invoke, 0, vec![Mop::PredicateRead { predicate: Predicate::True, rows: None }]).with_time(end),
    );
    ops.push(Op::txn(OpType::Ok, 0, observer).with_time(end + 1));
    // The initial rows take times 0 and 1 and everything else comes after them: a history's times are
    // non-negative, as the history format asks, so `isocheck check` reads the saved history again.
    for op in &mut ops[2..] {
        op.set_time(op.time().map(|t| t + 2));
    }
    // History order is time order; an invocation and its completion keep their order.
    ops.sort_by_key(|o| (o.time(), o.kind != OpType::Invoke));
    for (i, o) in ops.iter_mut().enumerate() {
        o.index = i as u64;
        o.at = Position::new(i as u32 + 1, 1);
    }
    let history = History::from_ops(ops)
        .map_err(|(at, problem)| anyhow!("the scenario's history is malformed at {}: {problem}", at.line))?;
    let mut transactions = BTreeMap::new();
    for t in history.transactions() {
        if let Process::Client(p) = t.invoke.process()
            && p > 0
        {
            let error = ends.iter().find(|e| e.session == p as usize).and_then(|e| e.error.clone());
            transactions.insert(p as usize, (t.op().index, t.outcome(), error));
        }
    }
    Ok(Execution { history, blocked, transactions })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use adapters::{AdapterError, EngineSystem, KillSwitch, LevelSupport};

    use super::*;

    /// The engine, with every commit of session 1 (the first connected) taking longer than
    /// [`BLOCKED_AFTER`], as on a busy machine: slow, but never waiting for a lock.
    struct SlowCommits {
        engine: EngineSystem,
        connected: std::sync::atomic::AtomicUsize,
    }

    struct SlowSession {
        inner: Box<dyn Session>,
        slow: bool,
    }

    impl System for SlowCommits {
        fn name(&self) -> &'static str {
            "slow-engine"
        }
        fn version(&self) -> String {
            self.engine.version()
        }
        fn level(&self, requested: Level) -> LevelSupport {
            self.engine.level(requested)
        }
        fn prepare(&self, registers: &[(Key, i64)]) -> Result<(), AdapterError> {
            self.engine.prepare(registers)
        }
        fn connect(&self) -> Result<Box<dyn Session>, AdapterError> {
            let n = self.connected.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(Box::new(SlowSession { inner: self.engine.connect()?, slow: n == 0 }))
        }
    }

    impl Session for SlowSession {
        fn begin(&mut self, level: Level) -> Result<(), TxnError> {
            self.inner.begin(level)
        }
        fn read_list(&mut self, key: &Key) -> Result<Vec<i64>, TxnError> {
            self.inner.read_list(key)
        }
        fn append(&mut self, key: &Key, element: i64) -> Result<(), TxnError> {
            self.inner.append(key, element)
        }
        fn read(&mut self, key: &Key) -> Result<Option<i64>, TxnError> {
            self.inner.read(key)
        }
        fn write(&mut self, key: &Key, value: i64) -> Result<(), TxnError> {
            self.inner.write(key, value)
        }
        fn insert(&mut self, key: &Key, value: i64) -> Result<(), TxnError> {
            self.inner.insert(key, value)
        }
        fn delete(&mut self, key: &Key) -> Result<bool, TxnError> {
            self.inner.delete(key)
        }
        fn scan(&mut self, predicate: &Predicate) -> Result<Rows, TxnError> {
            self.inner.scan(predicate)
        }
        fn delete_where(&mut self, predicate: &Predicate) -> Result<Rows, TxnError> {
            self.inner.delete_where(predicate)
        }
        fn update_where(&mut self, predicate: &Predicate, change: Change) -> Result<Vec<(Key, i64, i64)>, TxnError> {
            self.inner.update_where(predicate, change)
        }
        fn commit(&mut self) -> Result<(), TxnError> {
            if self.slow {
                std::thread::sleep(BLOCKED_AFTER * 2);
            }
            self.inner.commit()
        }
        fn rollback(&mut self) -> Result<(), TxnError> {
            self.inner.rollback()
        }
        fn kill_switch(&self) -> Option<Arc<dyn KillSwitch>> {
            self.inner.kill_switch()
        }
    }

    fn scenario(steps: &str) -> Scenario {
        let text = format!(
            "name = \"t\"\ncolumn = \"G1c\"\ntitle = \"t\"\nprobe = \"G1c\"\nrows = [[1, 10]]\nsteps = [{steps}]\n"
        );
        generators::hermitage::parse(&text, "t.toml").unwrap()
    }

    /// What session 2's read of key 1 returned.
    fn second_read(execution: &Execution) -> Option<Observed> {
        let index = execution.transactions[&2].0;
        let op = execution.history.ops().iter().find(|o| o.index == index).unwrap();
        let OpValue::Txn(mops) = &op.value else { panic!("{op:?}") };
        mops.iter().find_map(|m| match m {
            Mop::Read { value, .. } => Some(value.clone()),
            _ => None,
        })
    }

    #[test]
    fn a_slow_commit_is_waited_for_not_taken_for_a_blocked_step() {
        let system = SlowCommits { engine: EngineSystem::new(None), connected: Default::default() };
        let scenario = scenario(
            "{ s = 1, do = \"begin\" }, { s = 1, do = \"write\", key = 1, value = 11 }, { s = 1, do = \"commit\" }, \
             { s = 2, do = \"begin\" }, { s = 2, do = \"read\", key = 1 }, { s = 2, do = \"commit\" }",
        );
        let execution = execute(&system, Level::ReadCommitted, &scenario).unwrap();
        assert!(execution.blocked.is_empty(), "{:?}", execution.blocked);
        // Session 2 read after session 1's commit, as the script says.
        assert_eq!(second_read(&execution), Some(Observed::Int(11)));
    }

    #[test]
    fn a_write_waiting_for_a_lock_is_blocked_and_the_script_moves_on() {
        let system = EngineSystem::new(None);
        let scenario = scenario(
            "{ s = 1, do = \"begin\" }, { s = 1, do = \"write\", key = 1, value = 11 }, { s = 2, do = \"begin\" }, \
             { s = 2, do = \"write\", key = 1, value = 12 }, { s = 1, do = \"commit\" }, { s = 2, do = \"read\", key = 1 }, \
             { s = 2, do = \"commit\" }",
        );
        let execution = execute(&system, Level::ReadCommitted, &scenario).unwrap();
        assert_eq!(execution.blocked, [3]);
        assert_eq!(second_read(&execution), Some(Observed::Int(12)));
    }
}
