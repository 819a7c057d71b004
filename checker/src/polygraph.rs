//! The polygraph of a history whose write orders inference left open (Papadimitriou 1979; Cobra, OSDI
//! 2020 §3; PolySI, VLDB 2023 §3). Its nodes are the transactions; its known edges are the dependencies
//! the history proves (write-read, the write-write and anti-dependencies of every version order inference
//! found, and the process or real-time order a model includes); and for each key and each pair of the
//! key's writes that no known version order ranks, a [`Constraint`] with two sides: either the first
//! write precedes the second (`ww` from the first writer to the second, and `rw` from every reader of the
//! first to the second), or the mirror image. A history satisfies serializability exactly when some
//! choice of sides leaves the graph acyclic; snapshot isolation exactly when some choice leaves no cycle
//! without two adjacent anti-dependencies (Cerone & Gotsman, PODC 2016). This module owns the polygraph
//! and the edges of each side; choosing the sides is [`crate::polygraph_solver`]'s, and which histories
//! and models get one is [`crate::exact`]'s.

use fixedbitset::FixedBitSet;

use crate::graph::TxnId;
use crate::item::KeyId;
use crate::kind::Kind;

/// A write's position among the polygraph's writes.
pub(crate) type WriteId = u32;

/// A constraint's position among the polygraph's constraints.
pub(crate) type ConstraintId = u32;

/// A dependency the history proves, whatever the write orders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct KnownEdge {
    pub from: TxnId,
    pub to: TxnId,
    pub kind: Kind,
}

/// A write that took effect: the last write of a key by a committed transaction, or by an indeterminate
/// one that somebody read (so it committed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Write {
    pub txn: TxnId,
    pub key: KeyId,
    /// The value written.
    pub value: i64,
    /// Where its readers are in [`Polygraph::readers`].
    readers: (u32, u32),
}

/// Two writes of one key that no known order ranks: one must precede the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Constraint {
    pub first: WriteId,
    pub second: WriteId,
}

/// Which way a constraint goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Side {
    pub constraint: ConstraintId,
    /// Whether the constraint's `first` write precedes its `second`.
    pub first_before_second: bool,
}

/// One key's writes, as a workload's analysis hands them over: each write with its external readers
/// (not its writer), and the pairs of them a known version order already ranks.
#[derive(Debug, Default)]
pub(crate) struct KeyWrites {
    pub key: KeyId,
    /// (writer, value, readers).
    pub writes: Vec<(TxnId, i64, Vec<TxnId>)>,
    /// `ordered[i][j]`: the known version order ranks write `i` before write `j`.
    pub ordered: Vec<Vec<bool>>,
}

impl KeyWrites {
    /// The pairs `(i, j)`, `i < j`, of the key's writes that no known order ranks, by two transactions:
    /// one constraint each.
    pub(crate) fn open_pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let n = self.writes.len();
        let ranked = |i: usize, j: usize| self.ordered.get(i).and_then(|row| row.get(j)).copied().unwrap_or(false);
        (0..n)
            .flat_map(move |i| (i + 1..n).map(move |j| (i, j)))
            .filter(move |&(i, j)| !ranked(i, j) && !ranked(j, i) && self.writes[i].0 != self.writes[j].0)
    }
}

/// One key's writes and constraints: where they sit among the polygraph's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KeySpan {
    /// The key's writes are `writes.0..writes.1`.
    pub writes: (WriteId, WriteId),
    /// The key's constraints are `constraints.0..constraints.1`.
    pub constraints: (ConstraintId, ConstraintId),
}

impl KeySpan {
    /// Whether every pair of the key's writes is a constraint (no known order ranks any), in which case
    /// the constraint of writes `i < j` (positions within the key) is [`KeySpan::pair`]'s.
    pub(crate) fn all_open(&self) -> bool {
        let n = u64::from(self.writes.1 - self.writes.0);
        u64::from(self.constraints.1 - self.constraints.0) == n * n.saturating_sub(1) / 2
    }

    /// The constraint of the key's writes at positions `i < j`, when [`KeySpan::all_open`].
    pub(crate) fn pair(&self, i: u32, j: u32) -> ConstraintId {
        let n = self.writes.1 - self.writes.0;
        // Pairs are numbered row by row: row `i` holds `(i, i + 1) .. (i, n - 1)`.
        let row = (u64::from(i) * u64::from(2 * n - i - 1) / 2) as u32;
        self.constraints.0 + row + (j - i - 1)
    }
}

/// Known edges and constraints.
#[derive(Debug, Default)]
pub(crate) struct Polygraph {
    /// How many transactions (nodes) there are.
    pub node_count: usize,
    /// The dependencies the history proves, deduplicated.
    pub known: Vec<KnownEdge>,
    pub writes: Vec<Write>,
    readers: Vec<TxnId>,
    pub constraints: Vec<Constraint>,
    /// Each key's writes and constraints, in the order of both.
    pub keys: Vec<KeySpan>,
}

impl Polygraph {
    /// The polygraph of `node_count` transactions with these `known` edges and these keys' writes: a
    /// constraint for every pair of a key's writes that its known order leaves unranked.
    pub(crate) fn new(node_count: usize, mut known: Vec<KnownEdge>, keys: Vec<KeyWrites>) -> Polygraph {
        normalize(&mut known);
        let mut graph = Polygraph { node_count, known, ..Polygraph::default() };
        for key in keys {
            let base = graph.writes.len() as WriteId;
            let first_constraint = graph.constraints.len() as ConstraintId;
            for (txn, value, readers) in &key.writes {
                let start = graph.readers.len() as u32;
                graph.readers.extend(readers.iter().copied().filter(|&r| r != *txn));
                graph.writes.push(Write {
                    txn: *txn,
                    key: key.key,
                    value: *value,
                    readers: (start, graph.readers.len() as u32),
                });
            }
            for (i, j) in key.open_pairs() {
                graph.constraints.push(Constraint { first: base + i as WriteId, second: base + j as WriteId });
            }
            graph.keys.push(KeySpan {
                writes: (base, graph.writes.len() as WriteId),
                constraints: (first_constraint, graph.constraints.len() as ConstraintId),
            });
        }
        graph
    }

    /// The same writes and constraints with other known edges.
    pub(crate) fn with_known(&self, mut known: Vec<KnownEdge>) -> Polygraph {
        normalize(&mut known);
        Polygraph {
            node_count: self.node_count,
            known,
            writes: self.writes.clone(),
            readers: self.readers.clone(),
            constraints: self.constraints.clone(),
            keys: self.keys.clone(),
        }
    }

    /// The span of the key a write writes.
    pub(crate) fn key_span(&self, w: WriteId) -> KeySpan {
        self.keys[self.keys.partition_point(|k| k.writes.1 <= w)]
    }

    /// The external readers of a write (never its writer).
    pub(crate) fn readers(&self, w: WriteId) -> &[TxnId] {
        let (start, end) = self.writes[w as usize].readers;
        &self.readers[start as usize..end as usize]
    }

    /// The earlier and the later write of a side.
    pub(crate) fn ends(&self, side: Side) -> (WriteId, WriteId) {
        let c = self.constraints[side.constraint as usize];
        if side.first_before_second { (c.first, c.second) } else { (c.second, c.first) }
    }

    /// The edges a side adds: `ww` from the earlier write's writer to the later's, and `rw` from each
    /// reader of the earlier write to the later's writer.
    pub(crate) fn side_edges(&self, side: Side, mut edge: impl FnMut(TxnId, TxnId, Kind)) {
        let (earlier, later) = self.ends(side);
        let to = self.writes[later as usize].txn;
        edge(self.writes[earlier as usize].txn, to, Kind::Ww);
        for &reader in self.readers(earlier) {
            if reader != to {
                edge(reader, to, Kind::Rw);
            }
        }
    }
}

/// Known edges as the polygraph keeps them: no self-dependency, sorted, each once.
fn normalize(known: &mut Vec<KnownEdge>) {
    known.retain(|e| e.from != e.to);
    known.sort_unstable();
    known.dedup();
}

/// Which of `n` versions each of `starts` reaches along a version graph's `edges`: row `i` holds the
/// versions a path leads to from `starts[i]`.
pub(crate) fn reachability(n: usize, edges: &[(u32, u32)], starts: &[u32]) -> Vec<FixedBitSet> {
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); n];
    for &(a, b) in edges {
        out[a as usize].push(b);
    }
    let mut stack = Vec::new();
    starts
        .iter()
        .map(|&start| {
            let mut row = FixedBitSet::with_capacity(n);
            stack.clear();
            stack.extend(out[start as usize].iter().copied());
            while let Some(v) = stack.pop() {
                if !row.put(v as usize) {
                    stack.extend(out[v as usize].iter().copied());
                }
            }
            row
        })
        .collect()
}
