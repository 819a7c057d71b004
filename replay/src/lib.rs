//! A cycle as something a person can run step by step: its transactions become the sessions of a
//! Hermitage-style scenario ([`generators::hermitage`]), their statements issued in an order that makes
//! each edge of the cycle happen, so that `isocheck hermitage --scenario-dir` (or a person at two `psql`
//! prompts) can replay it on any system and level and see whether the anomaly recurs.
//!
//! Each edge asks for an order between two statements, strongest first: a write-read dependency wants
//! the writer committed before the reader begins (else before the read, else, as a last resort, the write
//! before the read: a dirty read); a write-write dependency wants the first writer committed before the
//! second begins (else before its write, else only the writes in order, which a locking system answers
//! by blocking); an anti-dependency wants the read before the writer commits; a process or real-time
//! order wants one transaction over before the other begins. The read is the one the history shows
//! seeing (or missing) the other's write. Every edge first takes its weakest order; if even those
//! contradict each other the cycle has no schedule and says so. Then the edges are strengthened a step
//! at a time, as far as the others allow: write-read edges first, so a read waits for a commit rather
//! than reading dirty wherever any schedule allows it, then write-write edges, so writes need not block. Among the statements an order leaves free, begins
//! come first, then reads, then writes, then commits: transactions overlap as much as the cycle permits.
//!
//! Registers stand in for lists: an append of `e` becomes a write of `e`, a list read a register read,
//! which keeps every dependency of the cycle. A first write of a key the transaction has not read is
//! preceded by a read of it, as an append reads the list it extends: the replay's history then proves
//! each key's version order (a version read before a write precedes it), which blind writes would not.
//!
//! The steps are chosen by `forcing`: an order under which every edge must happen at read committed and
//! snapshot isolation if possible, else at one of them; the scenario says at which levels its steps
//! force the cycle (`forces`) and, for the others, which edge no order can force and why
//! (`cannot_force`). Only when no order forces the cycle anywhere are the steps the best effort below. String keys are numbered in order of appearance. Cycles
//! through predicates are not reproduced here (the scenario format can express them, but the rows a
//! predicate saw come from transactions outside the cycle). This module decides the steps; running
//! them is the runner's, whether they reproduce the anomaly the checker's, and showing them `findings`'.
//!
//! This crate owns that schedule and its hand-over to the reports ([`report_replays`]). It depends on
//! `checker` (the cycle it schedules), `generators` (the scenario type it fills), `findings` (the replay
//! types the reports receive) and `histories`; none of them depends on it. It neither judges histories,
//! nor runs the steps, nor renders them.
#![deny(missing_docs)]

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use checker::{Cycle, Kind, TxnView};
use generators::hermitage::{Action, Involving, Scenario, ScenarioStep};
use histories::{Key, Mop, Observed};

/// Why a cycle has no step-by-step reproduction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unreproducible {
    /// The anomaly is not one a scenario can probe for (a cycle-exists verdict, for instance).
    #[error("{0} is not a cycle class a scenario can look for")]
    Class(String),
    /// The cycle runs through predicate reads or writes, or through inserts and deletes.
    #[error("the cycle runs through {0}, which reproductions do not replay yet")]
    Operation(&'static str),
    /// An edge's statements are missing from its transactions.
    #[error("{0}")]
    Edge(String),
    /// No order of the statements makes every edge happen.
    #[error("no order of the statements makes every edge of the cycle happen{}; at read committed, {}", if *.realtime {
        " (a real-time cycle like this one usually needs a stale read, which no schedule can force)"
    } else {
        ""
    }, .why)]
    NoSchedule {
        /// Whether the cycle has a real-time or process edge.
        realtime: bool,
        /// The edge no order forces at read committed, and why.
        why: String,
    },
}

/// The scenario that replays anomaly `name` number `number` (from 1), or why there is none.
pub fn reproduction(name: &str, number: usize, cycle: &Cycle) -> Result<Scenario, Unreproducible> {
    let (probe, column) = probe_and_column(name, cycle)?;
    let keys = KeyNumbers::of(&cycle.ops)?;
    let txns: Vec<Txn> = cycle.ops.iter().map(|op| Txn::of(op, &keys)).collect::<Result<_, _>>()?;
    let position = |index: u64| {
        cycle
            .ops
            .iter()
            .position(|o| o.index == index)
            .ok_or_else(|| Unreproducible::Edge(format!("T{index} is not among the cycle's operations")))
    };
    let mut orders = Vec::new();
    let mut edges = Vec::new();
    for step in &cycle.steps {
        let (from, to) = (position(step.from)?, position(step.to)?);
        let key = step.key.as_ref().map(|k| keys.number(k)).transpose()?;
        let (order, edge) = EdgeOrders::of(step.kind, from, to, key, &txns)?;
        orders.push(order);
        edges.push(edge);
    }
    let forcing = forcing::forcing(&txns, &edges);
    log::debug!("{name} #{number}: the replay search looked at {} partial orders", forcing.searched);
    let schedule = match forcing.schedule {
        Some(points) => Schedule(points),
        // Nothing forces the cycle: the steps come as close as the weakest orders allow, and the claim says
        // which edge they cannot force.
        None => Schedule::new(&txns, &orders).ok_or_else(|| Unreproducible::NoSchedule {
            realtime: has_order_edge(cycle),
            why: forcing.cannot.get(&ForcingLevel::ReadCommitted).cloned().unwrap_or_default(),
        })?,
    };
    let sessions: Vec<String> =
        txns.iter().enumerate().map(|(i, t)| format!("session {} is T{}", i + 1, t.index)).collect();
    let mut title = format!("{name} #{number} replayed step by step: {}", sessions.join(", "));
    if !keys.named.is_empty() {
        let named: Vec<String> = keys.named.iter().map(|(k, n)| format!("key {n} is {k}")).collect();
        title.push_str(&format!("; {}", named.join(", ")));
    }
    Ok(Scenario {
        name: format!("{name}-{number}"),
        column: column.to_string(),
        title,
        probe,
        // The replay's transactions are the cycle's: the class recurring among them, in a cycle as long
        // or shorter, is the anomaly recurring.
        involving: Involving::Any,
        systems: Vec::new(),
        forces: forcing.forces.iter().map(|l| l.name().to_string()).collect(),
        cannot_force: forcing.cannot.iter().map(|(l, why)| (l.name().to_string(), why.clone())).collect(),
        rows: keys.initial_rows(&txns),
        steps: schedule.steps(&txns),
    })
}

/// One step of a scenario as a report lists it: its session, the transaction of the history the session
/// replays (from the note on its `begin`), and the statement in SQL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayStatement {
    /// The session, from 1.
    pub session: usize,
    /// The transaction the session replays (`T12`), once its `begin` said so.
    pub replays: Option<String>,
    /// The statement in SQL.
    pub sql: String,
}

/// Each step of a scenario as its session, the transaction that session replays, and its SQL.
pub fn statements(scenario: &Scenario) -> Vec<ReplayStatement> {
    let mut replays: BTreeMap<usize, String> = BTreeMap::new();
    scenario
        .steps
        .iter()
        .map(|step| {
            if let (Action::Begin, Some(txn)) = (&step.action, &step.note) {
                replays.insert(step.s, txn.clone());
            }
            ReplayStatement { session: step.s, replays: replays.get(&step.s).cloned(), sql: step.action.sql() }
        })
        .collect()
}

/// The anomaly the scenario looks for and its Hermitage column: the cycle's class with its item and
/// order qualifiers dropped (umbrella classes match their item forms), and `-realtime` when the cycle
/// needs an order edge, as the replay has no processes but runs its sessions in real time.
fn probe_and_column(name: &str, cycle: &Cycle) -> Result<(String, &'static str), Unreproducible> {
    let base = name.trim_end_matches("-realtime").trim_end_matches("-process");
    let (probe, column) = match base {
        "G0" => ("G0", "G0"),
        "G1c" => ("G1c", "G1c"),
        "G-single" | "G-single-item" => ("G-single", "G-single"),
        "G-nonadjacent" | "G-nonadjacent-item" => ("G-nonadjacent", "G2"),
        "G2-item" => ("G2-item", "G2-item"),
        "G2" => ("G2", "G2"),
        _ => return Err(Unreproducible::Class(name.to_string())),
    };
    Ok((if has_order_edge(cycle) { format!("{probe}-realtime") } else { probe.to_string() }, column))
}

/// Whether the cycle runs through a process or real-time order.
fn has_order_edge(cycle: &Cycle) -> bool {
    cycle.steps.iter().any(|s| matches!(s.kind, Kind::Process | Kind::Realtime))
}

/// Integer keys as they are; string keys numbered past the largest integer key, in order of appearance.
struct KeyNumbers {
    numbers: BTreeMap<Key, i64>,
    /// The string keys and their numbers, for the title.
    named: Vec<(String, i64)>,
}

impl KeyNumbers {
    fn of(ops: &[TxnView]) -> Result<KeyNumbers, Unreproducible> {
        let mut keys = Vec::new();
        for op in ops {
            for mop in &op.value {
                keys.push(mop_key(mop)?.clone());
            }
        }
        let mut next = keys.iter().filter_map(|k| if let Key::Int(i) = k { Some(*i) } else { None }).max().unwrap_or(0);
        let mut numbers = BTreeMap::new();
        let mut named = Vec::new();
        for key in keys {
            if numbers.contains_key(&key) {
                continue;
            }
            let number = match &key {
                Key::Int(i) => *i,
                Key::Str(s) => {
                    next += 1;
                    named.push((s.to_string(), next));
                    next
                }
            };
            numbers.insert(key, number);
        }
        Ok(KeyNumbers { numbers, named })
    }

    fn number(&self, key: &Key) -> Result<i64, Unreproducible> {
        self.numbers
            .get(key)
            .copied()
            .ok_or_else(|| Unreproducible::Edge(format!("key {key} is not touched by the cycle's operations")))
    }

    /// A row per key, holding a value none of the transactions writes there, so that every version stays
    /// distinguishable.
    fn initial_rows(&self, txns: &[Txn]) -> Vec<(i64, i64)> {
        let mut rows: Vec<(i64, i64)> = self
            .numbers
            .values()
            .map(|&k| {
                let written: Vec<i64> = txns.iter().flat_map(|t| t.writes_to(k)).collect();
                let value = (0..).map(|i: i64| -i).find(|v| !written.contains(v)).unwrap_or(i64::MIN);
                (k, value)
            })
            .collect();
        rows.sort_unstable();
        rows
    }
}

/// The key a micro-op touches, or why the micro-op cannot be replayed.
fn mop_key(mop: &Mop) -> Result<&Key, Unreproducible> {
    match mop {
        Mop::Append { key, .. } | Mop::Read { key, .. } | Mop::Write { key, .. } => Ok(key),
        Mop::Insert { .. } | Mop::Delete { .. } => Err(Unreproducible::Operation("inserts and deletes")),
        Mop::PredicateRead { .. } => Err(Unreproducible::Operation("predicate reads")),
    }
}

/// A transaction of the cycle as the statements a session issues.
struct Txn {
    /// Its index in the history.
    index: u64,
    /// Its reads and writes, in order.
    statements: Vec<Action>,
    /// What each read returned in the history: the values it saw last and all it saw (a list read sees
    /// every element; a register read one value).
    observed: Vec<Option<Observed>>,
    /// Which statements the replay adds: the read before a first write of a key not read before.
    inserted: Vec<bool>,
}

impl Txn {
    fn of(op: &TxnView, keys: &KeyNumbers) -> Result<Txn, Unreproducible> {
        let mut txn = Txn { index: op.index, statements: Vec::new(), observed: Vec::new(), inserted: Vec::new() };
        for mop in &op.value {
            let key = keys.number(mop_key(mop)?)?;
            match mop {
                Mop::Append { value, .. } | Mop::Write { value, .. } => {
                    // A first write of a key the transaction has not read: read it first, as an append
                    // reads the list it extends, so that the replay's history proves the key's version
                    // order (a version read before a write precedes it).
                    if !txn
                        .statements
                        .iter()
                        .any(|a| matches!(a, Action::Read { key: k } | Action::Write { key: k, .. } if *k == key))
                    {
                        txn.push(Action::Read { key }, None, true);
                    }
                    txn.push(Action::Write { key, value: *value }, None, false);
                }
                Mop::Read { value, .. } => txn.push(Action::Read { key }, Some(value.clone()), false),
                _ => txn.push(Action::Read { key }, None, false),
            }
        }
        Ok(txn)
    }

    fn push(&mut self, statement: Action, observed: Option<Observed>, inserted: bool) {
        self.statements.push(statement);
        self.observed.push(observed);
        self.inserted.push(inserted);
    }

    fn writes_to(&self, key: i64) -> impl Iterator<Item = i64> + '_ {
        self.statements.iter().filter_map(move |a| match *a {
            Action::Write { key: k, value } if k == key => Some(value),
            _ => None,
        })
    }

    /// The first statement that writes `key`, and the last.
    fn writes(&self, key: i64) -> Option<(usize, usize)> {
        let mut at = self
            .statements
            .iter()
            .enumerate()
            .filter(|(_, a)| matches!(a, Action::Write { key: k, .. } if *k == key))
            .map(|(i, _)| i);
        let first = at.next()?;
        Some((first, at.next_back().unwrap_or(first)))
    }

    /// The reads of `key` before the transaction writes it: those that saw others' versions.
    fn external_reads(&self, key: i64) -> impl Iterator<Item = usize> + '_ {
        self.statements
            .iter()
            .take_while(move |a| !matches!(a, Action::Write { key: k, .. } if *k == key))
            .enumerate()
            .filter(move |(i, a)| **a == Action::Read { key } && !self.inserted[*i])
            .map(|(i, _)| i)
    }

    /// The read of `key` that saw `writer`'s version, as the history recorded it (the last value of a
    /// list, the value of a register), else the last read before the transaction writes the key.
    fn read_of(&self, key: i64, writer: &Txn) -> Option<usize> {
        let wrote: Vec<i64> = writer.writes_to(key).collect();
        let saw = |i: &usize| match &self.observed[*i] {
            Some(Observed::List(list)) => list.last().is_some_and(|e| wrote.contains(e)),
            Some(Observed::Int(v)) => wrote.contains(v),
            _ => false,
        };
        self.external_reads(key).filter(saw).last().or_else(|| self.external_reads(key).last())
    }

    /// The read of `key` that missed all of `writer`'s writes there, as the history recorded it, else the
    /// first read before the transaction writes the key.
    fn read_missing(&self, key: i64, writer: &Txn) -> Option<usize> {
        let wrote: Vec<i64> = writer.writes_to(key).collect();
        let missed = |i: &usize| match &self.observed[*i] {
            Some(Observed::List(list)) => !list.iter().any(|e| wrote.contains(e)),
            Some(Observed::Int(v)) => !wrote.contains(v),
            Some(Observed::Nil) => true,
            None => false,
        };
        self.external_reads(key).find(missed).or_else(|| self.external_reads(key).next())
    }
}

/// A point in the schedule: a transaction's begin, one of its statements, or its commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Point {
    Begin,
    Statement(usize),
    Commit,
}

/// One point (a transaction's, by position in the cycle) must come before another.
type Order = ((usize, Point), (usize, Point));

/// A free point's preference: lower first (its class: begin, read, write, commit; its transaction; the
/// point), reversed for a max-heap.
type Rank = Reverse<(u8, usize, Point)>;

/// The orders an edge can be made by, strongest first, and how much it matters that the edge gets
/// more than its weakest (lower first): a read that must see a commit, then a write that should not
/// have to block, then the rest.
struct EdgeOrders(Vec<Order>, u8);

impl EdgeOrders {
    /// The edge's orders, and the edge as the statements that make it.
    fn of(
        kind: Kind,
        from: usize,
        to: usize,
        key: Option<i64>,
        txns: &[Txn],
    ) -> Result<(EdgeOrders, Edge), Unreproducible> {
        let missing = |what: &str| {
            Unreproducible::Edge(format!("the {kind} edge T{} → T{} has no {what}", txns[from].index, txns[to].index))
        };
        let key = || key.ok_or_else(|| missing("key"));
        let (f, t) = (from, to);
        let orders = match kind {
            Kind::Ww => {
                let k = key()?;
                let (_, last) = txns[f].writes(k).ok_or_else(|| missing("first write"))?;
                let (first, _) = txns[t].writes(k).ok_or_else(|| missing("second write"))?;
                let orders = vec![
                    ((f, Point::Commit), (t, Point::Begin)),
                    ((f, Point::Commit), (t, Point::Statement(first))),
                    ((f, Point::Statement(last)), (t, Point::Statement(first))),
                ];
                return Ok((EdgeOrders(orders, 1), Edge { kind, from, to, key: Some(k), read: None }));
            }
            Kind::Wr => {
                let k = key()?;
                let (_, last) = txns[f].writes(k).ok_or_else(|| missing("write"))?;
                let read = txns[t].read_of(k, &txns[f]).ok_or_else(|| missing("read"))?;
                let orders = vec![
                    ((f, Point::Commit), (t, Point::Begin)),
                    ((f, Point::Commit), (t, Point::Statement(read))),
                    ((f, Point::Statement(last)), (t, Point::Statement(read))),
                ];
                return Ok((EdgeOrders(orders, 0), Edge { kind, from, to, key: Some(k), read: Some(read) }));
            }
            Kind::Rw => {
                let k = key()?;
                let read = txns[f].read_missing(k, &txns[t]).ok_or_else(|| missing("read"))?;
                txns[t].writes(k).ok_or_else(|| missing("write"))?;
                (vec![((f, Point::Statement(read)), (t, Point::Commit))], Some(k), Some(read))
            }
            Kind::Process | Kind::Realtime => (vec![((f, Point::Commit), (t, Point::Begin))], None, None),
            Kind::Wwp | Kind::Wrp | Kind::Rwp => return Err(Unreproducible::Operation("predicates")),
        };
        let (orders, key, read) = orders;
        Ok((EdgeOrders(orders, 2), Edge { kind, from, to, key, read }))
    }
}

/// The points of every transaction in the order they are issued.
struct Schedule(Vec<(usize, Point)>);

impl Schedule {
    /// A schedule meeting one order of each edge, each as strong as the others allow; `None` if even the
    /// weakest orders contradict each other. Edges are strengthened a step at a time, all edges one step
    /// before any a second, so that no edge's strongest order costs another its only non-dirty one.
    fn new(txns: &[Txn], edges: &[EdgeOrders]) -> Option<Schedule> {
        let mut chosen: Vec<usize> = edges.iter().map(|e| e.0.len() - 1).collect();
        let orders = |chosen: &[usize]| -> Vec<Order> { edges.iter().zip(chosen).map(|(e, &c)| e.0[c]).collect() };
        let mut schedule = Schedule::ordered(txns, &orders(&chosen))?;
        let mut by_priority: Vec<usize> = (0..edges.len()).collect();
        by_priority.sort_by_key(|&e| edges[e].1);
        let most = edges.iter().map(|e| e.0.len()).max().unwrap_or(0);
        for step in 1..most {
            for &e in &by_priority {
                let Some(stronger) = (edges[e].0.len() - 1).checked_sub(step) else { continue };
                let mut trial = chosen.clone();
                trial[e] = stronger;
                if let Some(s) = Schedule::ordered(txns, &orders(&trial)) {
                    chosen = trial;
                    schedule = s;
                }
            }
        }
        Some(schedule)
    }

    /// The points in program order and these orders, the free ones by preference (begins, reads, writes,
    /// commits; then by transaction and statement); `None` if the orders form a cycle.
    fn ordered(txns: &[Txn], orders: &[Order]) -> Option<Schedule> {
        let mut points: Vec<(usize, Point)> = Vec::new();
        for (t, txn) in txns.iter().enumerate() {
            points.push((t, Point::Begin));
            points.extend((0..txn.statements.len()).map(|i| (t, Point::Statement(i))));
            points.push((t, Point::Commit));
        }
        let id = |p: &(usize, Point)| points.binary_search(p).ok();
        let mut after: Vec<Vec<usize>> = vec![Vec::new(); points.len()];
        let mut waiting = vec![0usize; points.len()];
        let mut link = |a: usize, b: usize| {
            after[a].push(b);
            waiting[b] += 1;
        };
        for i in 1..points.len() {
            if points[i].0 == points[i - 1].0 {
                link(i - 1, i);
            }
        }
        for (before, later) in orders {
            link(id(before)?, id(later)?);
        }
        let rank = |i: usize| {
            let (t, point) = points[i];
            let class = match point {
                Point::Begin => 0,
                Point::Statement(s) if matches!(txns[t].statements[s], Action::Read { .. }) => 1,
                Point::Statement(_) => 2,
                Point::Commit => 3,
            };
            Reverse((class, t, point))
        };
        let mut ready: BinaryHeap<(Rank, usize)> =
            (0..points.len()).filter(|&i| waiting[i] == 0).map(|i| (rank(i), i)).collect();
        let mut order = Vec::with_capacity(points.len());
        while let Some((_, i)) = ready.pop() {
            order.push(points[i]);
            for &j in &after[i] {
                waiting[j] -= 1;
                if waiting[j] == 0 {
                    ready.push((rank(j), j));
                }
            }
        }
        (order.len() == points.len()).then_some(Schedule(order))
    }

    fn steps(&self, txns: &[Txn]) -> Vec<ScenarioStep> {
        self.0
            .iter()
            .map(|&(t, point)| {
                let (action, note) = match point {
                    Point::Begin => (Action::Begin, Some(format!("T{}", txns[t].index))),
                    Point::Statement(s) => (txns[t].statements[s].clone(), None),
                    Point::Commit => (Action::Commit, None),
                };
                ScenarioStep { s: t + 1, action, note }
            })
            .collect()
    }
}

mod forcing;
pub mod report_replays;
#[cfg(test)]
mod tests;

use forcing::Edge;
pub use forcing::ForcingLevel;
