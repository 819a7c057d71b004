//! The oracle's histories: small (up to 7 transactions on up to 3 keys), of any of the three
//! workloads, and often not serializable. A [`Recipe`] is what proptest draws and shrinks; [`Recipe::
//! simulate`] runs its transactions against a store at a chosen isolation (serial, read committed,
//! snapshot isolation with or without first-committer-wins and with stale snapshots, read uncommitted
//! without rollback), in an interleaving the recipe chooses, one step per tick: a begin, each micro-op,
//! then a commit or an abort. Versions are installed in commit order. Then the history is recorded as
//! a busy client would record it: each invocation up to a tick and a half before the transaction
//! began, each completion up to six ticks after it committed, so completions are recorded in an order
//! that differs from the commit order while real time stays true (a completion recorded before an
//! invocation always committed before that transaction began). Indeterminate transactions may or may
//! not have taken effect, and may never complete; their reads are recorded unknown, or, now and then,
//! as they were observed. Now and then a transaction's invoke is not recorded at all (Elle's histories of
//! completions alone), and real time knows only when it completed.
//!
//! This module owns the recipe and the simulation; the result is the test shorthand's (`support`), so a
//! history prints as the code that rebuilds it ([`Generated::shorthand`]).

use std::fmt::Write as _;

use histories::{History, Mop, Observed, Predicate, Rows};
use proptest::collection::vec;
use proptest::prelude::*;

use crate::support::{self, Outcome, Txn};

/// The keys, as the shorthand names them.
pub const KEYS: [&str; 3] = ["x", "y", "z"];

/// The workload a recipe's transactions belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    ListAppend,
    RwRegister,
    ClosedPredicate,
}

impl Flavor {
    pub fn workload(self) -> checker::Workload {
        match self {
            Flavor::ListAppend => checker::Workload::ListAppend,
            Flavor::RwRegister => checker::Workload::RwRegister,
            Flavor::ClosedPredicate => checker::Workload::ClosedPredicate,
        }
    }
}

/// How the simulated store isolates transactions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isolation {
    /// One transaction at a time, in the order the recipe lists them.
    Serial,
    /// Each read sees the latest committed state, and the transaction's own writes.
    ReadCommitted,
    /// Each read sees the state committed when the snapshot was taken (up to `lag` ticks before the
    /// transaction began), and its own writes; concurrent writers all commit (lost updates).
    Snapshot,
    /// [`Isolation::Snapshot`], but a writer whose key was committed by another since its snapshot aborts.
    FirstCommitterWins,
    /// Writes take effect at once, and an abort does not undo them.
    ReadUncommitted,
}

/// How a transaction ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    Commit,
    Abort,
    /// Recorded `info`; whether it took effect.
    Indeterminate {
        applied: bool,
    },
    /// Never completes; whether it took effect.
    Pending {
        applied: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Read,
    Write,
    /// A predicate read (closed-predicate only; a plain read elsewhere).
    PredicateRead,
}

/// One micro-op to be: what it does, to which key (modulo the key count), and a free choice (which
/// predicate, whether an update deletes).
#[derive(Debug, Clone, Copy)]
pub struct Intent {
    pub verb: Verb,
    pub key: u8,
    pub choice: u8,
}

/// One transaction to be.
#[derive(Debug, Clone)]
pub struct Plan {
    pub intents: Vec<Intent>,
    pub fate: Fate,
    /// In quarter ticks, how long before it began its invocation is recorded.
    pub early: u8,
    /// In quarter ticks, how long after it committed (or aborted) its completion is recorded.
    pub late: u8,
    /// In ticks, how stale its snapshot is (snapshot isolation only).
    pub lag: u8,
    /// Which free process runs it (modulo the free processes and a new one).
    pub process: u8,
    /// Its invoke is not recorded (Elle's histories of completions alone; list-append and rw-register).
    pub uninvoked: bool,
}

/// Everything that makes one history.
#[derive(Debug, Clone)]
pub struct Recipe {
    pub flavor: Flavor,
    pub isolation: Isolation,
    pub keys: u8,
    /// List-append only: every transaction reads every key it appends to, after its last append to
    /// it, so every version the history holds is read by its writer (Elle's traceability).
    pub traceable: bool,
    /// Indeterminate transactions' completions carry the values their reads observed.
    pub info_reads_known: bool,
    /// Closed-predicate only: which keys the `init` op creates.
    pub init: [bool; 3],
    pub txns: Vec<Plan>,
    /// How many of the first unfinished transactions may take the next step: 1 runs them one at a
    /// time, more lets them overlap.
    pub window: u8,
    /// At each tick, which of those transactions takes a step (modulo their number).
    pub schedule: Vec<u8>,
}

/// What a generated history records of the store's version order, as an adapter would.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recorded {
    /// Nothing: the history alone.
    Nothing,
    /// Each committed transaction's commit position (the engine's and SQLite's adapters).
    Positions,
    /// Each committed register write's version number (the PostgreSQL and MariaDB adapters).
    Numbers,
}

/// A generated history in the shorthand's terms: `support::interleaved(txns, order)`, or with an `init`
/// op first for closed-predicate.
#[derive(Debug, Clone)]
pub struct Generated {
    pub flavor: Flavor,
    pub traceable: bool,
    pub init: Option<Vec<(&'static str, i64)>>,
    pub txns: Vec<Txn>,
    pub order: Vec<usize>,
    /// The transactions whose invoke is not recorded.
    pub uninvoked: Vec<usize>,
    /// Each committed transaction's position in the store's commit order (the tick it committed at:
    /// versions are installed in commit order, but under read uncommitted, where writes take effect at
    /// once); `None` for the others, as an adapter records it.
    pub positions: Vec<Option<i64>>,
}

fn intent() -> impl Strategy<Value = Intent> {
    let verb = prop_oneof![8 => Just(Verb::Read), 10 => Just(Verb::Write), 3 => Just(Verb::PredicateRead)];
    (verb, 0u8..3, any::<u8>()).prop_map(|(verb, key, choice)| Intent { verb, key, choice })
}

fn fate() -> impl Strategy<Value = Fate> {
    prop_oneof![
        12 => Just(Fate::Commit),
        3 => Just(Fate::Abort),
        4 => any::<bool>().prop_map(|applied| Fate::Indeterminate { applied }),
        1 => any::<bool>().prop_map(|applied| Fate::Pending { applied }),
    ]
}

fn plan() -> impl Strategy<Value = Plan> {
    let late = prop_oneof![2 => Just(0u8), 3 => 0u8..=24];
    (vec(intent(), 1..=4), fate(), 0u8..=6, late, 0u8..=8, any::<u8>(), proptest::bool::weighted(0.1)).prop_map(
        |(intents, fate, early, late, lag, process, uninvoked)| Plan {
            intents,
            fate,
            early,
            late,
            lag,
            process,
            uninvoked,
        },
    )
}

fn isolation() -> impl Strategy<Value = Isolation> {
    prop_oneof![
        3 => Just(Isolation::Serial),
        4 => Just(Isolation::ReadCommitted),
        5 => Just(Isolation::Snapshot),
        3 => Just(Isolation::FirstCommitterWins),
        4 => Just(Isolation::ReadUncommitted),
    ]
}

/// Recipes of one workload.
pub fn recipe(flavor: Flavor) -> impl Strategy<Value = Recipe> {
    (
        isolation(),
        prop_oneof![2 => Just(1u8), 3 => Just(2u8), 2 => Just(3u8)],
        any::<bool>(),
        proptest::bool::weighted(0.2),
        any::<[bool; 3]>(),
        vec(plan(), 1..=7),
        2u8..=7,
        vec(any::<u8>(), 64),
    )
        .prop_map(move |(isolation, keys, traceable, info_reads_known, init, txns, window, schedule)| Recipe {
            flavor,
            isolation,
            keys,
            traceable: traceable && flavor == Flavor::ListAppend,
            info_reads_known,
            init,
            txns,
            window,
            schedule,
        })
}

/// A store's state: each key's list (list-append) and value (registers, rows; `None`: no row).
#[derive(Debug, Clone, Default, PartialEq)]
struct State {
    lists: [Vec<i64>; 3],
    cells: [Option<i64>; 3],
}

/// A transaction while it runs.
#[derive(Debug, Default)]
struct Running {
    step: usize,
    begun: usize,
    snapshot: State,
    /// The tick its snapshot was taken at.
    snapshot_at: usize,
    appended: [Vec<i64>; 3],
    written: [Option<Option<i64>>; 3],
    mops: Vec<Mop>,
    ended: Option<usize>,
    outcome: Option<Fate>,
}

impl Running {
    fn wrote(&self, k: usize) -> bool {
        !self.appended[k].is_empty() || self.written[k].is_some()
    }
}

impl Recipe {
    /// The micro-ops each transaction will try: the recipe's, with a closing read of each appended key
    /// when the recipe is traceable.
    fn programs(&self) -> Vec<Vec<Intent>> {
        let keys = self.keys.max(1);
        self.txns
            .iter()
            .map(|plan| {
                let mut intents: Vec<Intent> =
                    plan.intents.iter().map(|i| Intent { key: i.key % keys, ..*i }).collect();
                if self.traceable {
                    for k in 0..keys {
                        let last = intents.iter().rposition(|i| i.key == k);
                        if let Some(at) = last
                            && intents[at].verb == Verb::Write
                        {
                            intents.push(Intent { verb: Verb::Read, key: k, choice: 0 });
                        }
                    }
                }
                intents
            })
            .collect()
    }

    /// Runs the recipe and records its history.
    pub fn simulate(&self) -> Generated {
        let programs = self.programs();
        let n = programs.len();
        let steps: Vec<usize> = programs.iter().map(|p| p.len() + 2).collect();
        let mut next_value = [1i64; 3];
        let mut init_rows = Vec::new();
        let mut committed = State::default();
        if self.flavor == Flavor::ClosedPredicate {
            for k in 0..usize::from(self.keys.max(1)) {
                if self.init[k] {
                    committed.cells[k] = Some(next_value[k]);
                    init_rows.push((KEYS[k], next_value[k]));
                    next_value[k] += 1;
                }
            }
        }
        // Committed states by the tick they were committed at, for stale snapshots.
        let mut log: Vec<(usize, State)> = vec![(0, committed.clone())];
        let mut last_commit = [0usize; 3];
        let mut dirty = committed.clone();
        let mut deleted = [false; 3];
        let mut running: Vec<Running> = (0..n).map(|_| Running::default()).collect();
        let mut tick = 0;
        loop {
            let active: Vec<usize> =
                (0..n).filter(|&t| running[t].step < steps[t]).take(usize::from(self.window.max(1))).collect();
            let Some(&first) = active.first() else { break };
            let t = match self.isolation {
                Isolation::Serial => first,
                _ => active[usize::from(self.schedule[tick % self.schedule.len().max(1)]) % active.len()],
            };
            let plan = &self.txns[t];
            let r = &mut running[t];
            if r.step == 0 {
                r.begun = tick;
                r.snapshot_at = tick.saturating_sub(usize::from(plan.lag));
                r.snapshot =
                    log.iter().rev().find(|(at, _)| *at <= r.snapshot_at).map_or_else(State::default, |s| s.1.clone());
            } else if r.step <= programs[t].len() {
                let intent = programs[t][r.step - 1];
                let k = usize::from(intent.key);
                // What this transaction sees of the store.
                let mut view = match self.isolation {
                    Isolation::Snapshot | Isolation::FirstCommitterWins => r.snapshot.clone(),
                    Isolation::ReadUncommitted => dirty.clone(),
                    Isolation::Serial | Isolation::ReadCommitted => committed.clone(),
                };
                if self.isolation != Isolation::ReadUncommitted {
                    for j in 0..3 {
                        view.lists[j].extend_from_slice(&r.appended[j]);
                        if let Some(w) = r.written[j] {
                            view.cells[j] = w;
                        }
                    }
                }
                let key = || KEYS[k].into();
                let mop = match (self.flavor, intent.verb) {
                    (Flavor::ListAppend, Verb::Write) if next_value[k] <= 9 => {
                        let e = next_value[k];
                        next_value[k] += 1;
                        r.appended[k].push(e);
                        dirty.lists[k].push(e);
                        Mop::Append { key: key(), value: e }
                    }
                    (Flavor::ListAppend, _) => {
                        Mop::Read { key: key(), value: Observed::List(view.lists[k].clone().into()) }
                    }
                    (_, Verb::Write) => {
                        let present = view.cells[k].is_some();
                        let value = next_value[k];
                        let (mop, after) = match self.flavor {
                            Flavor::ClosedPredicate if !present => (Mop::Insert { key: key(), value }, Some(value)),
                            Flavor::ClosedPredicate if !deleted[k] && intent.choice.is_multiple_of(3) => {
                                deleted[k] = true;
                                (Mop::Delete { key: key() }, None)
                            }
                            _ => (Mop::Write { key: key(), value, version: None }, Some(value)),
                        };
                        if after.is_some() {
                            next_value[k] += 1;
                        }
                        r.written[k] = Some(after);
                        dirty.cells[k] = after;
                        mop
                    }
                    (Flavor::ClosedPredicate, Verb::PredicateRead) => {
                        let present: Vec<i64> = view.cells.iter().flatten().copied().collect();
                        let predicate = match intent.choice % 4 {
                            0 => Predicate::True,
                            1 => Predicate::Mod { m: 2, r: 0 },
                            2 => Predicate::Mod { m: 2, r: 1 },
                            _ => Predicate::Eq(
                                present
                                    .get(usize::from(intent.choice / 4) % present.len().max(1))
                                    .copied()
                                    .unwrap_or(1),
                            ),
                        };
                        let rows: Rows = (0..3)
                            .filter_map(|j| {
                                view.cells[j].filter(|&v| predicate.matches(v)).map(|v| (KEYS[j].into(), v))
                            })
                            .collect();
                        Mop::PredicateRead { predicate, rows: Some(Box::new(rows)) }
                    }
                    _ => Mop::Read { key: key(), value: view.cells[k].map_or(Observed::Nil, Observed::Int) },
                };
                r.mops.push(mop);
            } else {
                let mut fate = plan.fate;
                let conflict = self.isolation == Isolation::FirstCommitterWins
                    && (0..3).any(|j| r.wrote(j) && last_commit[j] > r.snapshot_at);
                if conflict {
                    fate = Fate::Abort;
                }
                let applied = match fate {
                    Fate::Commit => true,
                    Fate::Abort => false,
                    Fate::Indeterminate { applied } | Fate::Pending { applied } => applied,
                };
                if applied && self.isolation != Isolation::ReadUncommitted {
                    for (j, last) in last_commit.iter_mut().enumerate() {
                        if r.wrote(j) {
                            committed.lists[j].extend_from_slice(&r.appended[j]);
                            if let Some(w) = r.written[j] {
                                committed.cells[j] = w;
                            }
                            *last = tick;
                        }
                    }
                    log.push((tick, committed.clone()));
                }
                if self.isolation == Isolation::ReadUncommitted {
                    committed = dirty.clone();
                }
                r.ended = Some(tick);
                r.outcome = Some(fate);
            }
            r.step += 1;
            tick += 1;
        }
        self.record(running, init_rows)
    }

    /// Records the simulated transactions: events in the order of their recorded times, processes
    /// assigned as a client pool would (a process runs one transaction at a time and is retired after an
    /// indeterminate one).
    fn record(&self, running: Vec<Running>, init_rows: Vec<(&'static str, i64)>) -> Generated {
        // (time in quarter ticks, completion before invocation at equal times, transaction)
        let mut events: Vec<(i64, u8, usize)> = Vec::new();
        for (t, r) in running.iter().enumerate() {
            let plan = &self.txns[t];
            events.push((r.begun as i64 * 4 - i64::from(plan.early), 1, t));
            if !matches!(r.outcome, Some(Fate::Pending { .. })) {
                let ended = r.ended.expect("every transaction ends");
                events.push((ended as i64 * 4 + i64::from(plan.late), 0, t));
            }
        }
        events.sort_unstable();
        let mut process_of = vec![0u64; running.len()];
        // Per process: whether it is free to run another transaction.
        let mut free: Vec<bool> = Vec::new();
        let mut seen = vec![false; running.len()];
        for &(_, _, t) in &events {
            if !seen[t] {
                seen[t] = true;
                let mut candidates: Vec<usize> = (0..free.len()).filter(|&p| free[p]).collect();
                candidates.push(free.len());
                let p = candidates[usize::from(self.txns[t].process) % candidates.len()];
                if p == free.len() {
                    free.push(false);
                }
                free[p] = false;
                process_of[t] = p as u64;
            } else {
                let p = process_of[t] as usize;
                free[p] = !matches!(running[t].outcome, Some(Fate::Indeterminate { .. }));
            }
        }
        // A transaction that never completed needs its invoke; a predicate history's init layout has none
        // to leave out.
        let uninvoked: Vec<usize> = (0..running.len())
            .filter(|&t| {
                self.txns[t].uninvoked
                    && self.flavor != Flavor::ClosedPredicate
                    && !matches!(running[t].outcome, Some(Fate::Pending { .. }))
            })
            .collect();
        let positions = running
            .iter()
            .map(|r| match (r.outcome, r.ended) {
                (Some(Fate::Commit), Some(at)) => Some(at as i64),
                _ => None,
            })
            .collect();
        let txns = running
            .into_iter()
            .enumerate()
            .map(|(t, r)| {
                let fate = r.outcome.expect("every transaction ends");
                let outcome = match fate {
                    Fate::Commit => Outcome::Ok,
                    Fate::Abort => Outcome::Fail,
                    Fate::Indeterminate { .. } | Fate::Pending { .. } => Outcome::Info,
                };
                let mops = if outcome == Outcome::Info && !self.info_reads_known {
                    r.mops.iter().map(unknown).collect()
                } else {
                    r.mops
                };
                Txn { process: process_of[t], outcome, mops }
            })
            .collect();
        Generated {
            flavor: self.flavor,
            traceable: self.traceable,
            init: (self.flavor == Flavor::ClosedPredicate).then_some(init_rows),
            txns,
            order: events.iter().map(|e| e.2).collect(),
            uninvoked,
            positions,
        }
    }
}

/// A read whose value was not recorded.
fn unknown(mop: &Mop) -> Mop {
    match mop {
        Mop::Read { key, .. } => Mop::Read { key: key.clone(), value: Observed::Nil },
        Mop::PredicateRead { predicate, .. } => Mop::PredicateRead { predicate: *predicate, rows: None },
        other => other.clone(),
    }
}

impl Generated {
    /// The history, built by the shorthand's layouts.
    pub fn history(&self) -> History {
        match &self.init {
            Some(rows) => support::with_init(rows, self.txns.clone(), &self.order),
            None => support::interleaved_uninvoked(self.txns.clone(), &self.order, &self.uninvoked),
        }
    }

    /// The history, recording what `recorded` says of the store's version order.
    pub fn history_recording(&self, recorded: Recorded) -> History {
        match recorded {
            Recorded::Nothing => self.history(),
            Recorded::Positions => self.history_positioned(),
            Recorded::Numbers => self.history_numbered(),
        }
    }

    /// [`Generated::history`], each committed transaction's completion recording its position in the
    /// store's commit order (`commit_order`), as the engine's and SQLite's adapters record it.
    pub fn history_positioned(&self) -> History {
        self.with_completions(|completion, t| completion.set_commit_order(self.positions[t]))
    }

    /// [`Generated::history`], each completion (of transaction `t`) rewritten by `rewrite(op, t)`.
    fn with_completions(&self, rewrite: impl Fn(&mut histories::Op, usize)) -> History {
        let mut mentioned = vec![0u8; self.txns.len()];
        let ops = self
            .history()
            .ops()
            .iter()
            .zip(self.order.iter().filter(|&&t| {
                mentioned[t] += 1;
                !(mentioned[t] == 1 && self.uninvoked.contains(&t))
            }))
            .map(|(op, &t)| {
                let mut op = op.clone();
                if op.kind != histories::OpType::Invoke {
                    rewrite(&mut op, t);
                }
                op
            })
            .collect();
        History::from_ops(ops).expect("the history, rewritten, is one")
    }

    /// [`Generated::history`], each committed transaction's completion numbering its register writes as
    /// the PostgreSQL and MariaDB adapters record them (`["w", k, v, version]`): per key, the committed
    /// transactions' writes in commit order are versions 1, 2, ... (a transaction writing a key twice
    /// takes two), and no other write carries a number. No commit position is recorded.
    pub fn history_numbered(&self) -> History {
        let mut committed: Vec<usize> = (0..self.txns.len()).filter(|&t| self.positions[t].is_some()).collect();
        committed.sort_by_key(|&t| self.positions[t]);
        let mut next: std::collections::BTreeMap<histories::Key, i64> = std::collections::BTreeMap::new();
        let mut numbers: Vec<Vec<Option<i64>>> = vec![Vec::new(); self.txns.len()];
        for t in committed {
            numbers[t] = self.txns[t]
                .mops
                .iter()
                .map(|mop| match mop {
                    Mop::Write { key, .. } => {
                        let n = next.entry(key.clone()).or_insert(0);
                        *n += 1;
                        Some(*n)
                    }
                    _ => None,
                })
                .collect();
        }
        self.with_completions(|completion, t| {
            if numbers[t].is_empty() {
                return;
            }
            let numbered: Vec<Mop> = completion
                .held_mops()
                .iter()
                .zip(&numbers[t])
                .map(|(mop, number)| match (mop, number) {
                    (Mop::Write { key, value, .. }, Some(n)) => {
                        Mop::Write { key: key.clone(), value: *value, version: histories::WriteVersion::new(*n) }
                    }
                    (other, _) => other.clone(),
                })
                .collect();
            completion.value = histories::OpValue::Txn(numbered.into());
        })
    }

    /// Rust code that rebuilds the history with the test shorthand (`checker/tests/support`).
    pub fn shorthand(&self) -> String {
        let mut out = String::new();
        let txns: Vec<String> = self.txns.iter().map(|t| self.txn_shorthand(t)).collect();
        let order: Vec<String> = self.order.iter().map(usize::to_string).collect();
        let list = format!("vec![\n    {},\n]", txns.join(",\n    "));
        match &self.init {
            Some(rows) => {
                let rows: Vec<String> = rows.iter().map(|(k, v)| format!("({k:?}, {v})")).collect();
                let _ = write!(out, "with_init(&[{}], {list}, &[{}])", rows.join(", "), order.join(", "));
            }
            None if self.uninvoked.is_empty() => {
                let _ = write!(out, "interleaved({list}, &[{}])", order.join(", "));
            }
            None => {
                let uninvoked: Vec<String> = self.uninvoked.iter().map(usize::to_string).collect();
                let _ =
                    write!(out, "interleaved_uninvoked({list}, &[{}], &[{}])", order.join(", "), uninvoked.join(", "));
            }
        }
        out
    }

    fn txn_shorthand(&self, txn: &Txn) -> String {
        let outcome = match txn.outcome {
            Outcome::Ok => "ok",
            Outcome::Fail => "fail",
            Outcome::Info => "info",
        };
        let mut text = String::new();
        match self.flavor {
            Flavor::ListAppend => {
                for mop in &txn.mops {
                    match mop {
                        Mop::Append { key, value } => {
                            let _ = write!(text, "a{}{value}", support::key_name(key));
                        }
                        Mop::Read { key, value: Observed::List(list) } => {
                            let _ = write!(text, "r{}", support::key_name(key));
                            list.iter().for_each(|e| text.push_str(&e.to_string()));
                        }
                        Mop::Read { key, .. } => {
                            let _ = write!(text, "r{}?", support::key_name(key));
                        }
                        other => unreachable!("{other} is not list-append's"),
                    }
                }
                debug_assert_eq!(support::mops(&text), txn.mops);
                format!("{outcome}({}, {text:?})", txn.process)
            }
            Flavor::RwRegister => {
                for mop in &txn.mops {
                    match mop {
                        Mop::Write { key, value, .. } => {
                            let _ = write!(text, "w{}{value}", support::key_name(key));
                        }
                        Mop::Read { key, value: Observed::Int(v) } => {
                            let _ = write!(text, "r{}{v}", support::key_name(key));
                        }
                        Mop::Read { key, .. } => {
                            let _ = write!(text, "r{}_", support::key_name(key));
                        }
                        other => unreachable!("{other} is not rw-register's"),
                    }
                }
                debug_assert_eq!(support::reg(&text), txn.mops);
                format!("r{outcome}({}, {text:?})", txn.process)
            }
            Flavor::ClosedPredicate => {
                let mops: Vec<String> = txn.mops.iter().map(predicate_mop).collect();
                let outcome = match txn.outcome {
                    Outcome::Ok => "Ok",
                    Outcome::Fail => "Fail",
                    Outcome::Info => "Info",
                };
                format!(
                    "Txn {{ process: {}, outcome: Outcome::{outcome}, mops: vec![{}] }}",
                    txn.process,
                    mops.join(", ")
                )
            }
        }
    }
}

fn predicate_mop(mop: &Mop) -> String {
    match mop {
        Mop::Insert { key, value } => format!("insert({key}, {value})"),
        Mop::Write { key, value, .. } => format!("write({key}, {value})"),
        Mop::Delete { key } => format!("delete({key})"),
        Mop::Read { key, value: Observed::Int(v) } => format!("rread({key}, Some({v}))"),
        Mop::Read { key, .. } => format!("rread({key}, None)"),
        Mop::PredicateRead { predicate, rows: Some(rows) } => {
            let rows: Vec<String> = rows.iter().map(|(k, v)| format!("({k}, {v})")).collect();
            format!("rp(Predicate::{predicate:?}, &[{}])", rows.join(", "))
        }
        Mop::PredicateRead { predicate, rows: None } => {
            format!("Mop::PredicateRead {{ predicate: Predicate::{predicate:?}, rows: None }}")
        }
        other => unreachable!("{other} is not closed-predicate's"),
    }
}
