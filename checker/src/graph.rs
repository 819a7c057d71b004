//! The dependency graph between transactions: nodes are transactions (dense ids), each edge carries the
//! set of dependency kinds that order its ends. Storage is petgraph's compressed sparse row graph, which
//! scales to millions of transactions; strongly connected components come from petgraph's Tarjan. This
//! module owns building the graph and splitting it into components; it neither infers dependencies (the
//! workload analyses do) nor searches cycles (`cycle_search`).

use petgraph::Directed;
use petgraph::csr::Csr;

use crate::kind::{Kind, Kinds};

/// A transaction's dense id: its position among the history's client transactions.
pub type TxnId = u32;

/// Dependencies as they are inferred, before merging.
#[derive(Debug, Default)]
pub struct EdgeList {
    edges: Vec<(TxnId, TxnId, Kind)>,
}

impl EdgeList {
    /// An empty list.
    pub fn new() -> EdgeList {
        EdgeList::default()
    }

    /// Records that `from` must precede `to` because of `kind`. Self-dependencies are not edges.
    pub fn add(&mut self, from: TxnId, to: TxnId, kind: Kind) {
        if from != to {
            self.edges.push((from, to, kind));
        }
    }

    /// Appends another list.
    pub fn extend(&mut self, other: EdgeList) {
        if self.edges.is_empty() {
            self.edges = other.edges;
        } else {
            self.edges.extend(other.edges);
        }
    }

    /// The number of (unmerged) dependencies.
    pub fn len(&self) -> usize {
        self.edges.len()
    }

    /// Whether no dependency was recorded.
    pub fn is_empty(&self) -> bool {
        self.edges.is_empty()
    }
}

/// The dependency graph over `node_count` transactions.
pub struct DepGraph {
    csr: Csr<(), Kinds, Directed, u32>,
    kind_counts: [usize; 8],
}

impl DepGraph {
    /// Merges a list of dependencies into a graph over `node_count` transactions: parallel
    /// dependencies between one pair become one edge carrying all their kinds.
    pub fn build(node_count: usize, list: EdgeList) -> DepGraph {
        let mut kind_counts = [0; 8];
        // Bucket by source (a counting sort), then sort each small bucket by target: cheaper than one
        // global sort of millions of edges.
        let mut starts = vec![0usize; node_count + 1];
        for &(from, _, kind) in &list.edges {
            starts[from as usize + 1] += 1;
            kind_counts[kind as usize] += 1;
        }
        for i in 0..node_count {
            starts[i + 1] += starts[i];
        }
        let mut fill = starts.clone();
        let mut bucketed = vec![(0u32, Kinds::NONE); list.edges.len()];
        for (from, to, kind) in list.edges {
            let slot = &mut fill[from as usize];
            bucketed[*slot] = (to, kind.only());
            *slot += 1;
        }
        let mut merged: Vec<(u32, u32, Kinds)> = Vec::with_capacity(bucketed.len());
        for from in 0..node_count {
            let bucket = &mut bucketed[starts[from]..starts[from + 1]];
            bucket.sort_unstable_by_key(|&(to, _)| to);
            for &(to, kinds) in bucket.iter() {
                match merged.last_mut() {
                    Some(last) if last.0 == from as u32 && last.1 == to => last.2 = last.2.union(kinds),
                    _ => merged.push((from as u32, to, kinds)),
                }
            }
        }
        let mut csr: Csr<(), Kinds, Directed, u32> =
            Csr::from_sorted_edges(&merged).expect("edges are sorted by (from, to) and merged");
        while csr.node_count() < node_count {
            csr.add_node(());
        }
        DepGraph { csr, kind_counts }
    }

    /// A graph over `node_count` transactions with these dependencies: the shorthand tests use.
    pub fn from_edges(node_count: usize, edges: &[(TxnId, TxnId, Kind)]) -> DepGraph {
        let mut list = EdgeList::new();
        for &(from, to, kind) in edges {
            list.add(from, to, kind);
        }
        DepGraph::build(node_count, list)
    }

    /// The number of transactions.
    pub fn node_count(&self) -> usize {
        self.csr.node_count()
    }

    /// The number of edges (pairs of transactions with at least one dependency).
    pub fn edge_count(&self) -> usize {
        self.csr.edge_count()
    }

    /// How many dependencies of each kind were inferred, before merging.
    pub fn kind_count(&self, kind: Kind) -> usize {
        self.kind_counts[kind as usize]
    }

    /// The transactions `from` must precede, with the kinds of each edge.
    pub fn successors(&self, from: TxnId) -> impl Iterator<Item = (TxnId, Kinds)> + '_ {
        self.csr.neighbors_slice(from).iter().copied().zip(self.csr.edges_slice(from).iter().copied())
    }

    /// The kinds on the edge `from -> to`, if there is one.
    pub fn kinds(&self, from: TxnId, to: TxnId) -> Kinds {
        let targets = self.csr.neighbors_slice(from);
        match targets.binary_search(&to) {
            Ok(i) => self.csr.edges_slice(from)[i],
            Err(_) => Kinds::NONE,
        }
    }

    /// The strongly connected components with more than one transaction: every cycle lies in one.
    /// Each component is sorted; components come in order of their smallest member.
    pub fn cyclic_components(&self) -> Vec<Vec<TxnId>> {
        let sccs = tarjan_on_big_stack(&self.csr);
        let mut cyclic: Vec<Vec<TxnId>> = sccs
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|mut c| {
                c.sort_unstable();
                c
            })
            .collect();
        cyclic.sort_unstable_by_key(|c| c[0]);
        cyclic
    }
}

/// petgraph's Tarjan (its components in reverse topological order). It recurses once per node on a
/// path, and a history's graph can hold a path through every transaction, so it runs on a thread whose
/// stack grows with the graph.
pub fn tarjan_on_big_stack<E: Sync>(csr: &Csr<(), E, Directed, u32>) -> Vec<Vec<u32>> {
    let stack = 64 * 1024 * 1024 + csr.node_count() * 512;
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("scc".into())
            .stack_size(stack)
            .spawn_scoped(scope, || petgraph::algo::tarjan_scc(csr))
            .expect("the SCC thread starts")
            .join()
            .expect("the SCC search does not panic")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, edges: &[(u32, u32, Kind)]) -> DepGraph {
        DepGraph::from_edges(n, edges)
    }

    #[test]
    fn parallel_dependencies_merge_into_one_edge() {
        let g = graph(3, &[(0, 1, Kind::Ww), (0, 1, Kind::Realtime), (1, 2, Kind::Rw), (0, 1, Kind::Ww)]);
        assert_eq!(g.edge_count(), 2);
        assert_eq!(g.kinds(0, 1), Kinds::of(&[Kind::Ww, Kind::Realtime]));
        assert_eq!(g.kinds(1, 0), Kinds::NONE);
        assert_eq!(g.kind_count(Kind::Ww), 2);
        assert_eq!(g.node_count(), 3);
    }

    #[test]
    fn components_hold_exactly_the_cycles() {
        let g = graph(6, &[(0, 1, Kind::Ww), (1, 2, Kind::Wr), (2, 0, Kind::Rw), (2, 3, Kind::Ww), (4, 5, Kind::Ww)]);
        assert_eq!(g.cyclic_components(), vec![vec![0, 1, 2]]);
        assert!(graph(3, &[(0, 1, Kind::Ww), (1, 2, Kind::Ww)]).cyclic_components().is_empty());
    }

    #[test]
    fn a_chain_of_a_million_transactions_does_not_overflow_the_stack() {
        let n = 1_000_000u32;
        let mut edges: Vec<_> = (0..n - 1).map(|i| (i, i + 1, Kind::Ww)).collect();
        edges.push((n - 1, 0, Kind::Rw));
        let g = graph(n as usize, &edges);
        let sccs = g.cyclic_components();
        assert_eq!(sccs.len(), 1);
        assert_eq!(sccs[0].len(), n as usize);
    }
}
