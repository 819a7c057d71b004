//! Whether an order of a cycle's begins, statements and commits *forces* the cycle at an isolation
//! level: run as written on a system that implements the level and commits every transaction, each
//! edge of the cycle must happen, exactly, and the history the replay records must prove it. This module
//! searches for such an order, and when there is none, names the edge that no order can force together
//! with the others. Which steps a scenario shows, and what happens when none forces the cycle, is the
//! parent module's.
//!
//! The rules follow Adya (1999), with versions installed in commit order, as every system here does:
//! - *Writers.* Two transactions that write one key never overlap: one commits before the other begins.
//!   Under snapshot isolation first-committer-wins aborts one of two overlapping writers. Under read
//!   committed the second would wait for the first's lock, or read an older version than the one it
//!   overwrites: the replay's history proves a key's version order only by the version each writer read
//!   before writing it (the parent module adds that read where the history had none), so that read must
//!   see the version its write follows.
//! - *ww* `Ti → Tj` on `k`: `Tj` commits right after `Ti` among the writers of `k`.
//! - *wr* `Ti → Tj` on `k`: the read of `Tj` that saw `Ti` sees `Ti`'s version: `Ti` is the last writer
//!   of `k` to commit before the read's *view*.
//! - *rw* `Ti → Tj` on `k`: the read of `Ti` that missed `Tj` sees the version `Tj` overwrites: `Tj` is
//!   the first writer of `k` to commit after the read's view.
//! - *process* and *real-time* `Ti → Tj`: `Ti` commits before `Tj` begins.
//!
//! A read's view is the read itself under read committed and the transaction's snapshot under snapshot
//! isolation. Engines take the snapshot at `begin`, PostgreSQL at the first statement, so a transaction's
//! `begin` is always issued right before its first statement, and the two agree. A serializable system
//! runs the snapshot-isolation order and must refuse it (any cycle is G2 or stronger).
//!
//! The search is a depth-first walk over interleavings that checks each rule as soon as the step it
//! concerns is taken, and remembers the states (each transaction's progress, each key's last committer
//! and the writer each key must see next) from which no order completes.

use std::cell::Cell;
use std::collections::{BTreeMap, HashSet};

use checker::Kind;
use generators::hermitage::Action;

use super::{Point, Txn};

/// An isolation level a schedule can force a cycle at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ForcingLevel {
    /// Read committed: each statement sees the latest commits.
    ReadCommitted,
    /// Snapshot isolation (PostgreSQL's repeatable read): each transaction sees the commits before its
    /// snapshot; first-committer-wins.
    SnapshotIsolation,
}

impl ForcingLevel {
    /// Every level, weakest first.
    pub const ALL: [ForcingLevel; 2] = [ForcingLevel::ReadCommitted, ForcingLevel::SnapshotIsolation];

    /// The name `isocheck --isolation` takes.
    pub fn name(self) -> &'static str {
        match self {
            ForcingLevel::ReadCommitted => "read-committed",
            ForcingLevel::SnapshotIsolation => "snapshot-isolation",
        }
    }

    /// The level in prose.
    pub fn text(self) -> &'static str {
        match self {
            ForcingLevel::ReadCommitted => "read committed",
            ForcingLevel::SnapshotIsolation => "snapshot isolation",
        }
    }

    /// The level a name denotes.
    pub fn named(name: &str) -> Option<ForcingLevel> {
        ForcingLevel::ALL.into_iter().find(|l| l.name() == name)
    }
}

/// An edge of the cycle, by position of its transactions in the cycle.
#[derive(Debug, Clone)]
pub(super) struct Edge {
    pub kind: Kind,
    pub from: usize,
    pub to: usize,
    /// The key, for data dependencies (as the replay numbers it).
    pub key: Option<i64>,
    /// The statement that reads the key: the reader's (`to` for wr, `from` for rw).
    pub read: Option<usize>,
}

/// How many partial orders all the searches for one cycle may look at, together, before they give up:
/// a report writes a replay for every cycle it shows, and blaming an edge takes a search per edge, so a
/// budget per search would let one long cycle take minutes.
pub(super) const BUDGET: usize = 20_000;

/// The partial orders the searches for one cycle may still look at.
struct Budget {
    left: Cell<usize>,
}

impl Budget {
    fn new() -> Budget {
        Budget { left: Cell::new(BUDGET) }
    }

    /// Takes one partial order from the budget; false when none is left.
    fn take(&self) -> bool {
        match self.left.get() {
            0 => false,
            left => {
                self.left.set(left - 1);
                true
            }
        }
    }

    fn used(&self) -> usize {
        BUDGET - self.left.get()
    }
}

/// What a search found.
enum Found {
    /// The order, each transaction's points in turn (see [`Walk::points`]).
    Order(Vec<usize>),
    /// No order.
    None,
    /// The budget ran out.
    GaveUp,
}

/// What the best order forces, and why it forces nothing more.
pub(super) struct Forcing {
    /// The order's points, if some level has one.
    pub schedule: Option<Vec<(usize, Point)>>,
    /// The levels it forces the cycle at.
    pub forces: Vec<ForcingLevel>,
    /// Each other level, and why no order (or this one) forces the cycle there.
    pub cannot: BTreeMap<ForcingLevel, String>,
    /// How many partial orders the searches looked at, together (at most [`BUDGET`]).
    pub searched: usize,
}

/// The order that forces the cycle at the most levels (both, else snapshot isolation, else read
/// committed), and for every level it does not, the edge that cannot be forced and why.
pub(super) fn forcing(txns: &[Txn], edges: &[Edge]) -> Forcing {
    let all: Vec<usize> = (0..edges.len()).collect();
    let budget = Budget::new();
    let search = |levels: &[ForcingLevel]| Walk::new(txns, edges, &all, levels, &budget).search();
    // What each level alone allows, as far as it was searched: whether an order exists, or the search gave up.
    let mut alone: BTreeMap<ForcingLevel, Option<bool>> = BTreeMap::new();
    let mut chosen: Option<(Vec<usize>, Vec<ForcingLevel>)> = None;
    for levels in [&ForcingLevel::ALL[..], &[ForcingLevel::SnapshotIsolation], &[ForcingLevel::ReadCommitted]] {
        let found = search(levels);
        if let [level] = levels {
            alone.insert(
                *level,
                match found {
                    Found::Order(_) => Some(true),
                    Found::None => Some(false),
                    Found::GaveUp => None,
                },
            );
        }
        if let Found::Order(order) = found {
            chosen = Some((order, levels.to_vec()));
            break;
        }
    }
    let mut cannot = BTreeMap::new();
    for level in ForcingLevel::ALL {
        if chosen.as_ref().is_some_and(|(_, forced)| forced.contains(&level)) {
            continue;
        }
        let found = *alone.entry(level).or_insert_with(|| match search(&[level]) {
            Found::Order(_) => Some(true),
            Found::None => Some(false),
            Found::GaveUp => None,
        });
        let why = match (found, &chosen) {
            (None, _) => {
                format!("the search for an order gave up after {BUDGET} partial orders in all, so none is claimed")
            }
            (Some(false), _) => blame(txns, edges, level, &budget),
            (Some(true), Some((order, _))) => {
                // Another order forces it here, but not together with the levels the chosen one forces.
                let walk = Walk::new(txns, edges, &all, &[level], &budget);
                match walk.replay(order) {
                    Err(violation) => {
                        format!("these steps do not force it (other steps would): {}", walk.told(violation))
                    }
                    Ok(()) => "these steps do not force it (other steps would)".to_string(),
                }
            }
            // Not reached: a level with an order of its own is chosen when no stronger one has one.
            (Some(true), None) => blame(txns, edges, level, &budget),
        };
        cannot.insert(level, why);
    }
    let searched = budget.used();
    match chosen {
        Some((order, forces)) => {
            let walk = Walk::new(txns, edges, &all, &forces, &budget);
            Forcing { schedule: Some(walk.points(&order)), forces, cannot, searched }
        }
        None => Forcing { schedule: None, forces: Vec::new(), cannot, searched },
    }
}

/// Why no order forces the cycle at `level`: the first edge without which some order would.
fn blame(txns: &[Txn], edges: &[Edge], level: ForcingLevel, budget: &Budget) -> String {
    for e in 0..edges.len() {
        let others: Vec<usize> = (0..edges.len()).filter(|&o| o != e).collect();
        match Walk::new(txns, edges, &others, &[level], budget).search() {
            Found::Order(_) => {
                return format!("{}: {}", edge_name(txns, &edges[e]), requirement(txns, &edges[e], level));
            }
            Found::GaveUp => {
                return format!(
                    "no order of the statements makes every edge happen at {}; the search for the edge to blame \
                     gave up after {BUDGET} partial orders in all, so none is named",
                    level.text()
                );
            }
            Found::None => {}
        }
    }
    format!(
        "no order of the statements makes every edge happen at {}, and leaving out any one edge does not help",
        level.text()
    )
}

/// `T3 → T1 (ww on key 2)`.
pub(super) fn edge_name(txns: &[Txn], edge: &Edge) -> String {
    let on = edge.key.map(|k| format!(" on key {k}")).unwrap_or_default();
    format!("T{} → T{} ({}{on})", txns[edge.from].index, txns[edge.to].index, edge.kind)
}

/// What `level` asks of the edge, and that the others rule it out.
fn requirement(txns: &[Txn], edge: &Edge, level: ForcingLevel) -> String {
    let (a, b) = (txns[edge.from].index, txns[edge.to].index);
    let k = edge.key.unwrap_or_default();
    let view = |reader: u64| match level {
        ForcingLevel::ReadCommitted => format!("T{reader}'s read of key {k}"),
        ForcingLevel::SnapshotIsolation => format!("T{reader}'s snapshot"),
    };
    let overlap = match level {
        ForcingLevel::ReadCommitted => {
            "the replay proves a key's version order only when each writer reads the version it overwrites, which \
             overlapping writers do not"
        }
        ForcingLevel::SnapshotIsolation => "first-committer-wins refuses overlapping writers of a key",
    };
    let need = match edge.kind {
        Kind::Ww => format!(
            "T{b} must begin after T{a} commits, with no other writer of key {k} committing between them ({overlap})"
        ),
        Kind::Wr => {
            format!("{} must come after T{a} commits and before any other writer of key {k} commits", view(b))
        }
        Kind::Rw => {
            format!("{} must come before T{b} commits, with no other writer of key {k} committing before T{b}", view(a))
        }
        _ => format!("T{a} must commit before T{b} begins"),
    };
    format!("{need}, and the cycle's other edges rule that out")
}

/// Why an order does not force the cycle: an edge that would not happen, or two writers of a key that
/// would overlap.
#[derive(Debug, Clone, Copy)]
enum Violation {
    Edge(usize),
    Overlap { a: usize, b: usize, key: i64 },
}

/// A search (or a check of one order) at some levels with some of the edges.
struct Walk<'a> {
    txns: &'a [Txn],
    edges: Vec<&'a Edge>,
    /// The indices of `edges` in the cycle's list, for naming them.
    numbers: Vec<usize>,
    all_edges: &'a [Edge],
    levels: Vec<ForcingLevel>,
    /// The keys, numbered from 0.
    keys: Vec<i64>,
    /// Each transaction's written keys, by number.
    written: Vec<Vec<usize>>,
    failed: HashSet<State>,
    budget: &'a Budget,
}

/// Where a search stands: each transaction's next point; per key, its last committed writer; per level
/// and key, the writer that must commit it next and the rw edge that says so.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct State {
    next: Vec<usize>,
    last: Vec<Option<usize>>,
    owed: Vec<Vec<Option<(usize, usize)>>>,
}

impl<'a> Walk<'a> {
    fn new(
        txns: &'a [Txn],
        all_edges: &'a [Edge],
        numbers: &[usize],
        levels: &[ForcingLevel],
        budget: &'a Budget,
    ) -> Walk<'a> {
        let mut keys: Vec<i64> = txns
            .iter()
            .flat_map(|t| t.statements.iter())
            .filter_map(|a| match a {
                Action::Read { key } | Action::Write { key, .. } => Some(*key),
                _ => None,
            })
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let number = |k: i64| keys.binary_search(&k).unwrap_or_default();
        let written = txns
            .iter()
            .map(|t| {
                let mut w: Vec<usize> = t
                    .statements
                    .iter()
                    .filter_map(|a| match a {
                        Action::Write { key, .. } => Some(number(*key)),
                        _ => None,
                    })
                    .collect();
                w.sort_unstable();
                w.dedup();
                w
            })
            .collect();
        Walk {
            txns,
            edges: numbers.iter().map(|&n| &all_edges[n]).collect(),
            numbers: numbers.to_vec(),
            all_edges,
            levels: levels.to_vec(),
            keys,
            written,
            failed: HashSet::new(),
            budget,
        }
    }

    fn key_number(&self, key: i64) -> usize {
        self.keys.binary_search(&key).unwrap_or_default()
    }

    /// How many points transaction `t` has: its begin (issued with its first statement), its other
    /// statements, its commit.
    fn len(&self, t: usize) -> usize {
        self.txns[t].statements.len().max(1) + 1
    }

    fn start(&self) -> State {
        State {
            next: vec![0; self.txns.len()],
            last: vec![None; self.keys.len()],
            owed: vec![vec![None; self.keys.len()]; self.levels.len()],
        }
    }

    fn done(&self, state: &State, t: usize) -> bool {
        state.next[t] == self.len(t)
    }

    fn active(&self, state: &State, t: usize) -> bool {
        state.next[t] > 0 && !self.done(state, t)
    }

    /// The state after transaction `t` takes its next point, or the rule that point breaks.
    fn step(&self, state: &State, t: usize) -> Result<State, Violation> {
        let mut next = state.clone();
        let p = state.next[t];
        let last_point = self.len(t) - 1;
        if p == 0 {
            for u in (0..self.txns.len()).filter(|&u| u != t && self.active(state, u)) {
                if let Some(&key) = self.written[t].iter().find(|k| self.written[u].contains(k)) {
                    return Err(Violation::Overlap { a: u, b: t, key: self.keys[key] });
                }
            }
            for (i, e) in self.edges.iter().enumerate() {
                if matches!(e.kind, Kind::Process | Kind::Realtime) && e.to == t && !self.done(state, e.from) {
                    return Err(Violation::Edge(self.numbers[i]));
                }
            }
            self.view(&mut next, t, None, ForcingLevel::SnapshotIsolation)?;
        }
        if p < last_point && !self.txns[t].statements.is_empty() {
            self.view(&mut next, t, Some(p), ForcingLevel::ReadCommitted)?;
        }
        if p == last_point {
            for &key in &self.written[t] {
                for owed in &mut next.owed {
                    match owed[key] {
                        Some((writer, _)) if writer == t => owed[key] = None,
                        Some((_, edge)) => return Err(Violation::Edge(edge)),
                        None => {}
                    }
                }
            }
            for (i, e) in self.edges.iter().enumerate() {
                if e.kind == Kind::Ww && e.to == t {
                    let key = self.key_number(e.key.unwrap_or_default());
                    if state.last[key] != Some(e.from) {
                        return Err(Violation::Edge(self.numbers[i]));
                    }
                }
            }
            for &key in &self.written[t] {
                next.last[key] = Some(t);
            }
        }
        next.next[t] += 1;
        Ok(next)
    }

    /// Checks the reads that `t` makes at this view, if the search holds `level`: at its snapshot
    /// (`statement` None) under snapshot isolation, at each read under read committed.
    fn view(&self, next: &mut State, t: usize, statement: Option<usize>, level: ForcingLevel) -> Result<(), Violation> {
        let Some(l) = self.levels.iter().position(|&x| x == level) else { return Ok(()) };
        for (i, e) in self.edges.iter().enumerate() {
            if statement.is_some() && e.read != statement {
                continue;
            }
            let key = self.key_number(e.key.unwrap_or_default());
            let number = self.numbers[i];
            match e.kind {
                Kind::Wr if e.to == t && next.last[key] != Some(e.from) => return Err(Violation::Edge(number)),
                Kind::Rw if e.from == t => {
                    if self.done(next, e.to) {
                        return Err(Violation::Edge(number));
                    }
                    match next.owed[l][key] {
                        Some((writer, _)) if writer != e.to => return Err(Violation::Edge(number)),
                        _ => next.owed[l][key] = Some((e.to, number)),
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The transactions whose next point may come next, in order of preference: begins, then reads,
    /// then writes, then commits, so that transactions overlap as much as the rules allow.
    fn candidates(&self, state: &State) -> Vec<usize> {
        let mut ready: Vec<(u8, usize)> = (0..self.txns.len())
            .filter(|&t| !self.done(state, t))
            .map(|t| {
                let p = state.next[t];
                let class = if p == 0 {
                    0
                } else if p == self.len(t) - 1 {
                    3
                } else if matches!(self.txns[t].statements[p], Action::Read { .. }) {
                    1
                } else {
                    2
                };
                (class, t)
            })
            .collect();
        ready.sort_unstable();
        ready.into_iter().map(|(_, t)| t).collect()
    }

    fn search(mut self) -> Found {
        let start = self.start();
        match self.extend(start) {
            Some(Some(mut order)) => {
                order.reverse();
                Found::Order(order)
            }
            Some(None) => Found::None,
            None => Found::GaveUp,
        }
    }

    /// The rest of an order from `state` (reversed), `Some(None)` if there is none, `None` if the
    /// budget ran out.
    fn extend(&mut self, state: State) -> Option<Option<Vec<usize>>> {
        if (0..self.txns.len()).all(|t| self.done(&state, t)) {
            return Some(Some(Vec::new()));
        }
        if self.failed.contains(&state) {
            return Some(None);
        }
        if !self.budget.take() {
            return None;
        }
        for t in self.candidates(&state) {
            if let Ok(next) = self.step(&state, t)
                && let Some(mut rest) = self.extend(next)?
            {
                rest.push(t);
                return Some(Some(rest));
            }
        }
        self.failed.insert(state);
        Some(None)
    }

    /// Checks one complete order.
    fn replay(&self, order: &[usize]) -> Result<(), Violation> {
        let mut state = self.start();
        for &t in order {
            state = self.step(&state, t)?;
        }
        Ok(())
    }

    /// An order as points: a begin followed by its first statement, the other statements, the commit.
    fn points(&self, order: &[usize]) -> Vec<(usize, Point)> {
        let mut next = vec![0; self.txns.len()];
        let mut points = Vec::new();
        for &t in order {
            let p = next[t];
            next[t] += 1;
            if p == 0 {
                points.push((t, Point::Begin));
                if !self.txns[t].statements.is_empty() {
                    points.push((t, Point::Statement(0)));
                }
            } else if p == self.len(t) - 1 {
                points.push((t, Point::Commit));
            } else {
                points.push((t, Point::Statement(p)));
            }
        }
        points
    }

    fn told(&self, violation: Violation) -> String {
        match violation {
            Violation::Edge(e) => format!("{} would not happen", edge_name(self.txns, &self.all_edges[e])),
            Violation::Overlap { a, b, key } => {
                format!("T{} and T{} would overlap, and both write key {key}", self.txns[a].index, self.txns[b].index)
            }
        }
    }
}
