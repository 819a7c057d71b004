//! Deciding a [`Polygraph`]: is there a choice of one side per constraint that leaves no forbidden
//! cycle? The lazy loop of the notes behind Cobra and PolySI: a SAT solver (CaDiCaL) chooses the sides,
//! the graph of the choice is searched for forbidden cycles, and each cycle found becomes the clause
//! "not all of these sides"; the loop ends when a choice leaves the graph acyclic (a witness: its
//! topological order fixes every key's version order) or when the clauses admit no choice (a
//! refutation). A refutation is then made small, and explainable: the constraints whose clauses suffice
//! (CaDiCaL's failed assumptions over one selector per constraint), minimised by deleting one constraint
//! at a time (each deletion decided by the same loop), and unfolded into a tree of cases whose every leaf
//! is a cycle closed by the sides supposed on its way.
//!
//! A cycle is forbidden by one of two rules: any cycle (serializability), or a cycle without two
//! adjacent anti-dependencies (snapshot isolation, Cerone & Gotsman, PODC 2016): a cycle of
//! `D ∪ D;rw` with `D` every other dependency. The second is searched as a plain cycle of a graph with
//! two copies of each transaction, "reached by a dependency" and "reached by an anti-dependency", where
//! an anti-dependency may leave only the first copy.
//!
//! Every variable's first guess (CaDiCaL's default phase, true) is the side that agrees with a
//! topological order of the known edges, so that a history the known edges nearly order is decided in
//! few rounds. The budget is a deadline, checked between rounds and by CaDiCaL as it searches; past it
//! the decision is [`Decision::OutOfBudget`], never a verdict.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::time::Instant;

use crate::graph::TxnId;
use crate::kind::Kind;
use crate::polygraph::{ConstraintId, KeySpan, Polygraph, Side};

/// Which cycles a model forbids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CycleRule {
    /// Every cycle (serializability).
    Any,
    /// Every cycle without two adjacent anti-dependencies (snapshot isolation).
    NonAdjacentRw,
}

/// An edge of a cycle: a known one, or one a supposed side adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CycleEdge {
    pub from: TxnId,
    pub to: TxnId,
    pub kind: Kind,
    /// The side that adds it; `None` for a known edge.
    pub side: Option<Side>,
}

/// One leaf of a refutation: the sides supposed on the way to it, and the cycle they close.
#[derive(Debug, Clone)]
pub(crate) struct Alternative {
    pub supposed: Vec<Side>,
    pub cycle: Vec<CycleEdge>,
}

/// Why no choice of sides leaves the graph free of forbidden cycles.
#[derive(Debug, Clone)]
pub(crate) struct Refutation {
    /// The constraints the refutation needs: every choice of their sides closes a forbidden cycle with
    /// the known edges alone, whatever the other constraints.
    pub core: Vec<ConstraintId>,
    /// Whether deleting any one of them would leave a choice free of forbidden cycles (false when the
    /// budget ran out while minimising).
    pub minimal: bool,
    /// Each case of the core's sides with the cycle it closes; together they cover every choice.
    pub alternatives: Vec<Alternative>,
}

/// What the solver decided.
#[derive(Debug, Clone)]
pub(crate) enum Decision {
    /// A choice leaves no forbidden cycle: the transactions in an order that respects every edge of it
    /// (for snapshot isolation, every edge but the anti-dependencies), which ranks each key's writes as
    /// the choice does.
    Acyclic { order: Vec<TxnId> },
    /// No choice does.
    Cyclic(Refutation),
    /// The budget ran out first.
    OutOfBudget(Progress),
}

/// How far the solver got.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Progress {
    /// The constraints the polygraph has.
    pub constraints: usize,
    /// Rounds of the loop completed.
    pub rounds: usize,
    /// Cycles found and turned into clauses.
    pub clauses: usize,
}

/// At most this many cycles become clauses per component per round.
const CYCLES_PER_COMPONENT: usize = 64;

/// A refutation is unfolded into cases only over at most this many constraints (at most 2^this
/// leaves); a larger core is shown by the cycles of its clauses.
const MAX_TREE_CORE: usize = 10;

/// Decides the polygraph under the rule, by the deadline.
pub(crate) fn decide(graph: &Polygraph, rule: CycleRule, deadline: Option<Instant>) -> Decision {
    let started = Instant::now();
    let expanded = Expanded::new(graph, rule);
    let mut progress = Progress { constraints: graph.constraints.len(), ..Progress::default() };
    // The known edges alone: a forbidden cycle among them needs no constraint at all.
    let known = expanded.build_sides(graph, &[]);
    let rank = match known.topological_order() {
        Some(order) => order,
        None => {
            let cycle = known.cycles(1).into_iter().next().unwrap_or_default();
            return Decision::Cyclic(Refutation {
                core: Vec::new(),
                minimal: true,
                alternatives: vec![Alternative { supposed: Vec::new(), cycle }],
            });
        }
    };
    let mut position = vec![0u32; expanded.nodes];
    for (at, &node) in rank.iter().enumerate() {
        position[node as usize] = at as u32;
    }
    // A constraint's variable is true for the side whose `ww` edge goes forward in that order.
    let forward: Vec<bool> = graph
        .constraints
        .iter()
        .map(|c| {
            let a = expanded.node(graph.writes[c.first as usize].txn);
            let b = expanded.node(graph.writes[c.second as usize].txn);
            position[a as usize] <= position[b as usize]
        })
        .collect();
    let count = graph.constraints.len();
    let vars = Vars { forward, dense: Vec::new() };
    let mut solver = new_solver(deadline);
    let mut learned: Vec<Vec<Side>> = Vec::new();
    // Sides that close a forbidden cycle with the known edges alone are ruled out before the first
    // round (Cobra's pruning, one pass): a constraint with both sides ruled out is a refutation of one.
    for side in closed_by_known(graph, &expanded, &known, &rank, count) {
        if learned.last().is_some_and(|last: &Vec<Side>| last[0].constraint == side.constraint) {
            let other = learned.pop().unwrap_or_default();
            log::debug!("polygraph: both sides of a constraint close a cycle with the known edges alone");
            return refute(graph, &expanded, vars, vec![other, vec![side]], deadline);
        }
        solver.add_clause([-vars.lit(side)]);
        learned.push(vec![side]);
        progress.clauses += 1;
    }
    if !learned.is_empty() {
        log::debug!(
            "polygraph: {} sides ruled out by the known edges alone, in {:.3} s",
            learned.len(),
            started.elapsed().as_secs_f64()
        );
    }
    loop {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Decision::OutOfBudget(progress);
        }
        let solved = solver.solve();
        match solved {
            None => return Decision::OutOfBudget(progress),
            Some(false) => break,
            Some(true) => {}
        }
        let sides: Vec<bool> = (0..count).map(|c| vars.first_before_second(c, solver.value(vars.var(c)))).collect();
        let built = expanded.build(graph, &sides);
        progress.rounds += 1;
        let cycles = built.cycles(CYCLES_PER_COMPONENT);
        if cycles.is_empty() {
            log::debug!(
                "polygraph: a choice free of forbidden cycles after {} rounds and {} clauses, in {:.3} s",
                progress.rounds,
                progress.clauses,
                started.elapsed().as_secs_f64()
            );
            let order = built.topological_order().unwrap_or_default();
            let order = expanded.txn_order(&order);
            return Decision::Acyclic { order };
        }
        for cycle in cycles {
            let clause = clause_sides(&shortcut(graph, rule, &sides, cycle));
            solver.add_clause(clause.iter().map(|&s| -vars.lit(s)));
            learned.push(clause);
            progress.clauses += 1;
        }
    }
    log::debug!(
        "polygraph: no choice free of forbidden cycles after {} rounds and {} clauses, in {:.3} s",
        progress.rounds,
        progress.clauses,
        started.elapsed().as_secs_f64()
    );
    drop(solver);
    refute(graph, &expanded, vars, learned, deadline)
}

/// Reachability rows take at most this many bits in all (128 MiB): the pruning before the first round
/// is skipped on graphs larger than that, which the loop decides alone as before.
const MAX_REACHABILITY_BITS: usize = 1 << 30;

/// The sides (in constraint order, a constraint's first side before its second) each of which closes a
/// forbidden cycle with the known edges alone: one of its edges `u → v` where the known edges lead from
/// `v` back to `u`. It pays where a key has many writes, whose pairs grow as their square; it is done
/// wherever every node's reachability fits in [`MAX_REACHABILITY_BITS`]. `rank` is a topological order
/// of the `known` graph.
fn closed_by_known(graph: &Polygraph, expanded: &Expanded, known: &Built, rank: &[u32], count: usize) -> Vec<Side> {
    let n = expanded.nodes;
    if count == 0 || n.saturating_mul(n) > MAX_REACHABILITY_BITS {
        return Vec::new();
    }
    // Each node's row: the nodes a path of known edges leads to, built in reverse topological order.
    let mut reach = vec![fixedbitset::FixedBitSet::new(); n];
    for &v in rank.iter().rev() {
        let mut row = fixedbitset::FixedBitSet::with_capacity(n);
        for e in known.out(v) {
            let w = known.targets[e];
            row.insert(w as usize);
            row.union_with(&reach[w as usize]);
        }
        reach[v as usize] = row;
    }
    let mut closed = Vec::new();
    let mut edges = Vec::new();
    for c in 0..count as ConstraintId {
        for first_before_second in [true, false] {
            let side = Side { constraint: c, first_before_second };
            edges.clear();
            graph.side_edges(side, |from, to, kind| {
                expanded.push(&mut edges, CycleEdge { from, to, kind, side: Some(side) })
            });
            if edges.iter().any(|&(u, v, _)| reach[v as usize].contains(u as usize)) {
                closed.push(side);
            }
        }
    }
    closed
}

/// The cycle with each pair of edges through consecutive writes of one key replaced by the one edge of
/// the chosen side between the outer writes, where that closes a cycle the rule forbids too: an edge
/// into a write (`ww` from the write before, or `rw` from a reader of it) followed by `ww` to the next
/// write. A round's graph keeps only consecutive writes' edges, so its cycles walk along a key's order
/// write by write; their clauses would then name every side on the way and rule out only that walk,
/// where the shortcut's clause names one side and rules out every order that puts those two writes so.
/// Under snapshot isolation an `rw` shortcut arrives as an anti-dependency, so it is taken only when
/// the edge after it is a dependency.
fn shortcut(graph: &Polygraph, rule: CycleRule, sides: &[bool], mut cycle: Vec<CycleEdge>) -> Vec<CycleEdge> {
    let mut at = 0;
    while cycle.len() > 2 && at < cycle.len() {
        let next = (at + 1) % cycle.len();
        let (first, second) = (cycle[at], cycle[next]);
        let replaced = (|| {
            let (s1, s2) = (first.side?, second.side?);
            if second.kind != Kind::Ww {
                return None;
            }
            let (earlier, middle) = graph.ends(s1);
            let (middle2, later) = graph.ends(s2);
            if middle != middle2 {
                return None;
            }
            if first.kind.is_anti()
                && (first.from == second.to
                    || rule == CycleRule::NonAdjacentRw && cycle[(next + 1) % cycle.len()].kind.is_anti())
            {
                return None;
            }
            let span = graph.key_span(earlier);
            if !span.all_open() {
                return None;
            }
            let (i, j) = (earlier - span.writes.0, later - span.writes.0);
            let side = Side { constraint: span.pair(i.min(j), i.max(j)), first_before_second: i < j };
            (sides[side.constraint as usize] == side.first_before_second).then_some(CycleEdge {
                from: first.from,
                to: second.to,
                kind: first.kind,
                side: Some(side),
            })
        })();
        match replaced {
            Some(edge) => {
                cycle[at] = edge;
                cycle.remove(next);
                if next < at {
                    // The cycle's first edge was the second of the pair: the shortcut is now last.
                    at -= 1;
                }
            }
            None => at += 1,
        }
    }
    cycle
}

/// The distinct sides a cycle's edges come from.
fn clause_sides(cycle: &[CycleEdge]) -> Vec<Side> {
    let mut sides: Vec<Side> = cycle.iter().filter_map(|e| e.side).collect();
    sides.sort_unstable();
    sides.dedup();
    sides
}

/// The solver's variables, each true for its constraint's forward side. In the main loop constraint `c`
/// is variable `c + 1`. While refuting, only the constraints the clauses name have variables, numbered
/// densely (so that the solver's tables stay the size of the refutation, not of the polygraph): the
/// `p`-th is variable `2p + 1`, and its selector `2p + 2`.
struct Vars {
    forward: Vec<bool>,
    /// While refuting, each constraint's position among those the clauses name (`u32::MAX` for the
    /// others); empty in the main loop.
    dense: Vec<u32>,
}

impl Vars {
    fn var(&self, c: usize) -> i32 {
        if self.dense.is_empty() { c as i32 + 1 } else { 2 * self.dense[c] as i32 + 1 }
    }

    fn selector(&self, c: ConstraintId) -> i32 {
        2 * self.dense[c as usize] as i32 + 2
    }

    fn lit(&self, side: Side) -> i32 {
        let var = self.var(side.constraint as usize);
        if side.first_before_second == self.forward[side.constraint as usize] { var } else { -var }
    }

    /// Whether the variable's value (`None`: either) puts the constraint's first write first.
    fn first_before_second(&self, c: usize, value: Option<bool>) -> bool {
        let forward = value.unwrap_or(true);
        forward == self.forward[c]
    }
}

/// CaDiCaL's callbacks: stop at the deadline.
struct Deadline(Option<Instant>);

impl cadical::Callbacks for Deadline {
    fn terminate(&mut self) -> bool {
        self.0.is_some_and(|d| Instant::now() >= d)
    }
}

fn new_solver(deadline: Option<Instant>) -> cadical::Solver<Deadline> {
    let mut solver: cadical::Solver<Deadline> = cadical::Solver::new();
    solver.set_callbacks(Some(Deadline(deadline)));
    solver
}

/// Makes a refutation from the clauses that made the problem unsatisfiable: the constraints they need,
/// fewer by deletion while the budget lasts, and the cases over those.
fn refute(
    graph: &Polygraph,
    expanded: &Expanded,
    vars: Vars,
    learned: Vec<Vec<Side>>,
    deadline: Option<Instant>,
) -> Decision {
    let started = Instant::now();
    let mut solver = new_solver(deadline);
    let mut all: Vec<ConstraintId> = learned.iter().flatten().map(|s| s.constraint).collect();
    all.sort_unstable();
    all.dedup();
    let mut dense = vec![u32::MAX; graph.constraints.len()];
    for (p, &c) in all.iter().enumerate() {
        dense[c as usize] = p as u32;
    }
    let vars = &Vars { forward: vars.forward, dense };
    let add = |solver: &mut cadical::Solver<Deadline>, clause: &[Side]| {
        let mut constraints: Vec<ConstraintId> = clause.iter().map(|s| s.constraint).collect();
        constraints.dedup();
        solver.add_clause(clause.iter().map(|&s| -vars.lit(s)).chain(constraints.iter().map(|&c| -vars.selector(c))));
    };
    for clause in &learned {
        add(&mut solver, clause);
    }
    let mut core = match subset_decision(graph, expanded, vars, &mut solver, &all, &add) {
        Subset::Refuted(core) => core,
        // The clauses alone were unsatisfiable a moment ago: only the budget stops this.
        Subset::Satisfiable | Subset::OutOfBudget => all,
    };
    log::debug!(
        "polygraph refutation: {} constraints in the solver's core, {:.3} s",
        core.len(),
        started.elapsed().as_secs_f64()
    );
    let mut minimal = true;
    let mut at = 0;
    while at < core.len() {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            minimal = false;
            break;
        }
        let without: Vec<ConstraintId> = core.iter().copied().filter(|&c| c != core[at]).collect();
        match subset_decision(graph, expanded, vars, &mut solver, &without, &add) {
            Subset::Refuted(smaller) => core = smaller,
            Subset::Satisfiable => at += 1,
            Subset::OutOfBudget => {
                minimal = false;
                break;
            }
        }
    }
    log::debug!(
        "polygraph refutation: minimised to {} constraints, {:.3} s",
        core.len(),
        started.elapsed().as_secs_f64()
    );
    let alternatives = if core.len() <= MAX_TREE_CORE {
        let mut leaves = Vec::new();
        cases(graph, expanded, &core, &mut Vec::new(), &mut leaves);
        leaves
    } else {
        // Too many constraints to unfold: each clause over the core is a case with its own cycle.
        learned
            .iter()
            .filter(|clause| clause.iter().all(|s| core.contains(&s.constraint)))
            .filter_map(|clause| {
                let cycle = shortest_cycle(graph, expanded, clause)?;
                Some(Alternative { supposed: clause.clone(), cycle })
            })
            .collect()
    };
    Decision::Cyclic(Refutation { core, minimal, alternatives })
}

enum Subset {
    /// No choice of these constraints' sides is free of forbidden cycles; the constraints that shows it
    /// needs (a subset).
    Refuted(Vec<ConstraintId>),
    Satisfiable,
    OutOfBudget,
}

/// Decides the polygraph restricted to `subset` (the other constraints' edges left out), by the same
/// loop, adding what it learns to `solver` under selectors.
fn subset_decision(
    graph: &Polygraph,
    expanded: &Expanded,
    vars: &Vars,
    solver: &mut cadical::Solver<Deadline>,
    subset: &[ConstraintId],
    add: &dyn Fn(&mut cadical::Solver<Deadline>, &[Side]),
) -> Subset {
    loop {
        match solver.solve_with(subset.iter().map(|&c| vars.selector(c))) {
            None => return Subset::OutOfBudget,
            Some(false) => {
                let core: Vec<ConstraintId> =
                    subset.iter().copied().filter(|&c| solver.failed(vars.selector(c))).collect();
                return Subset::Refuted(core);
            }
            Some(true) => {}
        }
        let sides: Vec<Side> = subset
            .iter()
            .map(|&c| Side {
                constraint: c,
                first_before_second: vars.first_before_second(c as usize, solver.value(vars.var(c as usize))),
            })
            .collect();
        let cycles = expanded.build_sides(graph, &sides).cycles(CYCLES_PER_COMPONENT);
        if cycles.is_empty() {
            return Subset::Satisfiable;
        }
        for cycle in cycles {
            add(solver, &clause_sides(&cycle));
        }
    }
}

/// Unfolds the cases over `core`: with the sides `supposed` so far, either a forbidden cycle closes
/// (a leaf), or the next constraint of the core is supposed each way in turn.
fn cases(
    graph: &Polygraph,
    expanded: &Expanded,
    core: &[ConstraintId],
    supposed: &mut Vec<Side>,
    leaves: &mut Vec<Alternative>,
) {
    if let Some(cycle) = shortest_cycle(graph, expanded, supposed) {
        leaves.push(Alternative { supposed: supposed.clone(), cycle });
        return;
    }
    let Some(&next) = core.iter().find(|&&c| !supposed.iter().any(|s| s.constraint == c)) else {
        // Cannot happen for a refuted core: every choice of its sides closes a cycle.
        return;
    };
    for first_before_second in [true, false] {
        supposed.push(Side { constraint: next, first_before_second });
        cases(graph, expanded, core, supposed, leaves);
        supposed.pop();
    }
}

/// The shortest forbidden cycle the known edges and these sides close, if any.
fn shortest_cycle(graph: &Polygraph, expanded: &Expanded, supposed: &[Side]) -> Option<Vec<CycleEdge>> {
    expanded.build_sides(graph, supposed).cycles(usize::MAX).into_iter().min_by_key(Vec::len)
}

/// How transactions become nodes under a rule: one node each (any cycle), or two (a cycle without
/// adjacent anti-dependencies: node `2t` is `t` reached by a dependency or a start, `2t + 1` is `t`
/// reached by an anti-dependency).
struct Expanded {
    rule: CycleRule,
    nodes: usize,
    /// The known edges as the rule's edges, in [`Built::new`]'s order: every graph built has them.
    known: Vec<(u32, u32, CycleEdge)>,
}

impl Expanded {
    fn new(graph: &Polygraph, rule: CycleRule) -> Expanded {
        let nodes = match rule {
            CycleRule::Any => graph.node_count,
            CycleRule::NonAdjacentRw => 2 * graph.node_count,
        };
        let mut expanded = Expanded { rule, nodes, known: Vec::new() };
        let mut known = Vec::with_capacity(graph.known.len() * 2);
        for e in &graph.known {
            expanded.push(&mut known, CycleEdge { from: e.from, to: e.to, kind: e.kind, side: None });
        }
        known.sort_unstable_by_key(|&(a, b, _)| (a, b));
        expanded.known = known;
        expanded
    }

    /// Adds an edge as the rule's edges: itself (any cycle), or from the nodes it may leave to the node
    /// it reaches (an anti-dependency leaves only the node reached by a dependency).
    fn push(&self, edges: &mut Vec<(u32, u32, CycleEdge)>, e: CycleEdge) {
        match self.rule {
            CycleRule::Any => edges.push((e.from, e.to, e)),
            CycleRule::NonAdjacentRw => {
                if e.kind.is_anti() {
                    edges.push((2 * e.from, 2 * e.to + 1, e));
                } else {
                    edges.push((2 * e.from, 2 * e.to, e));
                    edges.push((2 * e.from + 1, 2 * e.to, e));
                }
            }
        }
    }

    /// The graph of the known edges and these sides.
    fn build_sides(&self, graph: &Polygraph, sides: &[Side]) -> Built {
        let mut edges = Vec::new();
        for &side in sides {
            graph.side_edges(side, |from, to, kind| {
                self.push(&mut edges, CycleEdge { from, to, kind, side: Some(side) })
            });
        }
        Built::new(self.nodes, &self.known, edges)
    }

    /// The node standing for transaction `t` reached by a dependency.
    fn node(&self, t: TxnId) -> u32 {
        match self.rule {
            CycleRule::Any => t,
            CycleRule::NonAdjacentRw => 2 * t,
        }
    }

    /// The transactions, in the order of their first nodes in `order`.
    fn txn_order(&self, order: &[u32]) -> Vec<TxnId> {
        match self.rule {
            CycleRule::Any => order.to_vec(),
            CycleRule::NonAdjacentRw => order.iter().filter(|&&n| n % 2 == 0).map(|&n| n / 2).collect(),
        }
    }

    /// The graph of the known edges and a side of every constraint.
    fn build(&self, graph: &Polygraph, sides: &[bool]) -> Built {
        let mut edges: Vec<(u32, u32, CycleEdge)> = Vec::new();
        let mut push = |e: CycleEdge| self.push(&mut edges, e);
        let mut score = Vec::new();
        for span in &graph.keys {
            let (first, end) = (span.constraints.0 as usize, span.constraints.1 as usize);
            let chosen = &sides[first..end];
            if span.all_open()
                && let Some(order) = chosen_order(graph, span, chosen, &mut score)
            {
                // The chosen sides order the key's writes totally: the sides of consecutive writes
                // reach everything the others' edges do (a later write through the writes between,
                // and an anti-dependency's target through a dependency, whose node reaches at least
                // as far), so their edges alone close the same forbidden cycles.
                for pair in order.windows(2) {
                    let (a, b) = (pair[0], pair[1]);
                    let side = Side { constraint: span.pair(a.min(b), a.max(b)), first_before_second: a < b };
                    graph.side_edges(side, |from, to, kind| push(CycleEdge { from, to, kind, side: Some(side) }));
                }
                continue;
            }
            for (c, &first_before_second) in chosen.iter().enumerate() {
                let side = Side { constraint: (first + c) as ConstraintId, first_before_second };
                graph.side_edges(side, |from, to, kind| push(CycleEdge { from, to, kind, side: Some(side) }));
            }
        }
        Built::new(self.nodes, &self.known, edges)
    }
}

/// The key's writes (positions within the key) in the order the `chosen` sides of its constraints give,
/// if together they order the writes totally: a tournament is transitive exactly when the numbers of
/// writes put before each are all different.
fn chosen_order(graph: &Polygraph, span: &KeySpan, chosen: &[bool], score: &mut Vec<u32>) -> Option<Vec<u32>> {
    let base = span.writes.0;
    let n = (span.writes.1 - base) as usize;
    score.clear();
    score.resize(n, 0);
    for (c, side) in chosen.iter().enumerate() {
        let constraint = graph.constraints[span.constraints.0 as usize + c];
        let later = if *side { constraint.second } else { constraint.first };
        score[(later - base) as usize] += 1;
    }
    let mut order = vec![u32::MAX; n];
    for (w, &s) in score.iter().enumerate() {
        let slot = order.get_mut(s as usize)?;
        if *slot != u32::MAX {
            return None;
        }
        *slot = w as u32;
    }
    Some(order)
}

/// One round's graph, in compressed rows.
struct Built {
    start: Vec<usize>,
    targets: Vec<u32>,
    labels: Vec<CycleEdge>,
}

impl Built {
    /// The graph of `known` edges (sorted by their ends) and the `supposed` ones.
    fn new(nodes: usize, known: &[(u32, u32, CycleEdge)], mut supposed: Vec<(u32, u32, CycleEdge)>) -> Built {
        supposed.sort_unstable_by_key(|&(a, b, _)| (a, b));
        // Known edges first among parallel ones, so a cycle uses a supposed edge only where it must.
        let mut edges = Vec::with_capacity(known.len() + supposed.len());
        let mut rest = supposed.into_iter().peekable();
        for &k in known {
            while let Some(s) = rest.next_if(|s| (s.0, s.1) < (k.0, k.1)) {
                edges.push(s);
            }
            edges.push(k);
        }
        edges.extend(rest);
        edges.dedup_by_key(|&mut (a, b, e)| (a, b, e.kind.is_anti()));
        let mut start = vec![0usize; nodes + 1];
        for &(a, _, _) in &edges {
            start[a as usize + 1] += 1;
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let targets = edges.iter().map(|&(_, b, _)| b).collect();
        let labels = edges.into_iter().map(|(_, _, e)| e).collect();
        Built { start, targets, labels }
    }

    fn nodes(&self) -> usize {
        self.start.len() - 1
    }

    fn out(&self, v: u32) -> std::ops::Range<usize> {
        self.start[v as usize]..self.start[v as usize + 1]
    }

    /// A topological order of the nodes, or `None` if there is a cycle (Kahn's algorithm, the lowest
    /// ready node first: transactions are numbered in invocation order, so the order stays close to the
    /// history's, which is what a database that respects real time committed).
    fn topological_order(&self) -> Option<Vec<u32>> {
        let n = self.nodes();
        let mut indegree = vec![0u32; n];
        for &t in &self.targets {
            indegree[t as usize] += 1;
        }
        let mut ready: BinaryHeap<Reverse<u32>> =
            (0..n as u32).filter(|&v| indegree[v as usize] == 0).map(Reverse).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(Reverse(v)) = ready.pop() {
            order.push(v);
            for e in self.out(v) {
                let t = self.targets[e] as usize;
                indegree[t] -= 1;
                if indegree[t] == 0 {
                    ready.push(Reverse(t as u32));
                }
            }
        }
        (order.len() == n).then_some(order)
    }

    /// Each node's strongly connected component, `u32::MAX` for a node in no cycle (the graph has no
    /// self-loops: every edge joins two transactions).
    fn components(&self) -> Vec<u32> {
        let mut component = vec![u32::MAX; self.nodes()];
        for (c, members) in crate::graph::strongly_connected(&self.start, &self.targets).into_iter().enumerate() {
            for v in members {
                component[v as usize] = c as u32;
            }
        }
        component
    }

    /// Up to `per_component` cycles in each cyclic component, each the shortest through one edge a side
    /// added (through any edge, in a component with none), each edge tried at most once.
    fn cycles(&self, per_component: usize) -> Vec<Vec<CycleEdge>> {
        let component = self.components();
        let components = component.iter().filter(|&&c| c != u32::MAX).max().map_or(0, |&c| c as usize + 1);
        if components == 0 {
            return Vec::new();
        }
        let mut supposed_in: Vec<Vec<usize>> = vec![Vec::new(); components];
        let mut any_in: Vec<Option<usize>> = vec![None; components];
        for v in 0..self.nodes() as u32 {
            let c = component[v as usize];
            if c == u32::MAX {
                continue;
            }
            for e in self.out(v) {
                if component[self.targets[e] as usize] == c {
                    any_in[c as usize].get_or_insert(e);
                    if self.labels[e].side.is_some() {
                        supposed_in[c as usize].push(e);
                    }
                }
            }
        }
        let mut found = Vec::new();
        let mut parent = vec![u32::MAX; self.nodes()];
        let mut touched: Vec<u32> = Vec::new();
        for c in 0..components {
            let tries: Vec<usize> = if supposed_in[c].is_empty() {
                any_in[c].into_iter().collect()
            } else {
                supposed_in[c].iter().copied().take(per_component).collect()
            };
            for e in tries {
                let from = self.source_of(e);
                if let Some(path) =
                    self.path(self.targets[e], from, |v| component[v as usize] == c as u32, &mut parent, &mut touched)
                {
                    let mut cycle = vec![self.labels[e]];
                    cycle.extend(path.into_iter().map(|pe| self.labels[pe]));
                    found.push(cycle);
                }
            }
        }
        found
    }

    /// The node edge `e` leaves.
    fn source_of(&self, e: usize) -> u32 {
        (self.start.partition_point(|&s| s <= e) - 1) as u32
    }

    /// The edges of a shortest path from `from` to `to` through nodes `inside` accepts (breadth first).
    fn path(
        &self,
        from: u32,
        to: u32,
        inside: impl Fn(u32) -> bool,
        parent: &mut [u32],
        touched: &mut Vec<u32>,
    ) -> Option<Vec<usize>> {
        for &v in touched.iter() {
            parent[v as usize] = u32::MAX;
        }
        touched.clear();
        const ROOT: u32 = u32::MAX - 1;
        let mut queue = VecDeque::new();
        parent[from as usize] = ROOT;
        touched.push(from);
        queue.push_back(from);
        let mut reached = from == to;
        while let Some(v) = queue.pop_front() {
            if reached {
                break;
            }
            for e in self.out(v) {
                let w = self.targets[e];
                if parent[w as usize] == u32::MAX && inside(w) {
                    parent[w as usize] = e as u32;
                    touched.push(w);
                    if w == to {
                        reached = true;
                        break;
                    }
                    queue.push_back(w);
                }
            }
        }
        if !reached {
            return None;
        }
        let mut edges = Vec::new();
        let mut v = to;
        while parent[v as usize] != ROOT {
            let e = parent[v as usize] as usize;
            edges.push(e);
            v = self.source_of(e);
        }
        edges.reverse();
        Some(edges)
    }
}
