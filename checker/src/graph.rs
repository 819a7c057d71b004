//! The dependency graph between transactions: nodes are transactions (dense ids), each edge carries the
//! set of dependency kinds that order its ends. The dependencies are bucketed by target in flat arrays
//! (compressed sparse rows), which scale to millions of transactions; strongly connected components come
//! from an iterative Tarjan on that reversed graph, and only the edges between the transactions of cyclic
//! components are then kept, merged, as they are the only ones a cycle search follows. This module owns
//! building the graph and splitting it into components; it neither infers dependencies (the workload
//! analyses do) nor searches cycles (`cycle_search`).

use fixedbitset::FixedBitSet;
use petgraph::Directed;
use petgraph::csr::Csr;
use rayon::prelude::*;

use crate::kind::{Kind, Kinds};

/// A transaction's dense id: its position among the history's client transactions.
pub type TxnId = u32;

/// Dependencies as they are inferred, before merging: kept in the parts they were inferred in (by range,
/// by key, the order), never copied into one vector; a big history's millions of dependencies are held
/// once, and each part is freed as soon as the graph has taken it. A part holds dependencies of one kind,
/// as pairs (8 bytes each), or as the sources of one target after another (4 bytes each: a
/// [`SourcesByTarget`]), the form the real-time order comes in: most of a big history's dependencies are real-time ones.
#[derive(Debug, Default)]
pub struct EdgeList {
    pairs: Vec<Pairs>,
    /// For each kind, the part of `pairs` that [`EdgeList::add`] extends, if any.
    open: [Option<usize>; Kind::ALL.len()],
    by_target: Vec<SourcesByTarget>,
}

/// Dependencies of one kind as (from, to) pairs.
#[derive(Debug)]
struct Pairs {
    kind: Kind,
    pairs: Vec<(TxnId, TxnId)>,
}

/// Sources a [`SourcesByTarget`] keeps in one block, about: the graph frees each block as it takes it,
/// so that a big history's real-time order is never held beside the whole graph.
const SOURCES_PER_BLOCK: usize = 1 << 20;

/// Dependencies of one kind into one target after another, in blocks of about `SOURCES_PER_BLOCK`
/// sources.
#[derive(Debug)]
pub struct SourcesByTarget {
    kind: Kind,
    /// About how many sources a block holds: [`SOURCES_PER_BLOCK`] but in tests.
    per_block: usize,
    blocks: Vec<Block>,
}

/// Consecutive targets and their sources: the block's `i`th target, `targets[i]`, depends on every
/// transaction in `sources[ends[i - 1]..ends[i]]` (from 0 for the first).
#[derive(Debug)]
struct Block {
    /// Which target, of all the [`SourcesByTarget`]'s, the block's first is.
    first: usize,
    targets: Vec<TxnId>,
    ends: Vec<usize>,
    sources: Vec<TxnId>,
}

impl Block {
    fn sources_of(&self, i: usize) -> &[TxnId] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.sources[start..self.ends[i]]
    }
}

impl SourcesByTarget {
    /// No dependencies yet, of `kind`.
    pub fn new(kind: Kind) -> SourcesByTarget {
        SourcesByTarget { kind, per_block: SOURCES_PER_BLOCK, blocks: Vec::new() }
    }

    /// Records that `to` depends on each of `sources` but itself (a self-dependency is no edge).
    pub fn add(&mut self, to: TxnId, sources: &[TxnId]) {
        let full = self
            .blocks
            .last()
            .is_none_or(|b| !b.targets.is_empty() && b.sources.len() + sources.len() > self.per_block);
        if full {
            let first = self.target_count();
            self.blocks.push(Block { first, targets: Vec::new(), ends: Vec::new(), sources: Vec::new() });
        }
        if let Some(block) = self.blocks.last_mut() {
            block.targets.push(to);
            block.sources.extend(sources.iter().filter(|&&from| from != to));
            block.ends.push(block.sources.len());
        }
    }

    /// The sources of the `i`th target added.
    pub fn sources_of(&self, i: usize) -> &[TxnId] {
        let b = self.blocks.partition_point(|b| b.first <= i).saturating_sub(1);
        let block = &self.blocks[b];
        block.sources_of(i - block.first)
    }

    /// The number of targets added.
    pub fn target_count(&self) -> usize {
        self.blocks.last().map_or(0, |b| b.first + b.targets.len())
    }

    /// The number of dependencies.
    fn len(&self) -> usize {
        self.blocks.iter().map(|b| b.sources.len()).sum()
    }

    /// Each (from, to) dependency, in the order added.
    #[cfg(test)]
    fn iter(&self) -> impl Iterator<Item = (TxnId, TxnId)> + '_ {
        self.blocks.iter().flat_map(|b| {
            (0..b.targets.len()).flat_map(move |i| b.sources_of(i).iter().map(move |&from| (from, b.targets[i])))
        })
    }
}

impl EdgeList {
    /// An empty list.
    pub fn new() -> EdgeList {
        EdgeList::default()
    }

    /// Records that `from` must precede `to` because of `kind`. Self-dependencies are not edges.
    pub fn add(&mut self, from: TxnId, to: TxnId, kind: Kind) {
        if from != to {
            let part = match self.open[kind as usize] {
                Some(part) => part,
                None => {
                    self.pairs.push(Pairs { kind, pairs: Vec::new() });
                    self.open[kind as usize] = Some(self.pairs.len() - 1);
                    self.pairs.len() - 1
                }
            };
            self.pairs[part].pairs.push((from, to));
        }
    }

    /// Appends another list (its parts, not a copy of them).
    pub fn extend(&mut self, other: EdgeList) {
        self.pairs.extend(other.pairs.into_iter().filter(|part| !part.pairs.is_empty()));
        self.by_target.extend(other.by_target.into_iter().filter(|part| part.len() > 0));
    }

    /// Appends dependencies recorded target by target.
    pub fn extend_by_target(&mut self, part: SourcesByTarget) {
        if part.len() > 0 {
            self.by_target.push(part);
        }
    }

    /// The dependencies, as recorded, part by part.
    #[cfg(test)]
    pub(crate) fn iter(&self) -> impl Iterator<Item = (TxnId, TxnId, Kind)> + '_ {
        let pairs = self.pairs.iter().flat_map(|p| p.pairs.iter().map(move |&(from, to)| (from, to, p.kind)));
        let by_target = self.by_target.iter().flat_map(|p| p.iter().map(move |(from, to)| (from, to, p.kind)));
        pairs.chain(by_target)
    }

    /// Calls `f` with each dependency (from, to, kind), as recorded, part by part.
    pub fn for_each(&self, mut f: impl FnMut(TxnId, TxnId, Kind)) {
        for p in &self.pairs {
            for &(from, to) in &p.pairs {
                f(from, to, p.kind);
            }
        }
        for p in &self.by_target {
            for b in &p.blocks {
                for (i, &to) in b.targets.iter().enumerate() {
                    for &from in b.sources_of(i) {
                        f(from, to, p.kind);
                    }
                }
            }
        }
    }

    /// The number of (unmerged) dependencies.
    pub fn len(&self) -> usize {
        self.pairs.iter().map(|p| p.pairs.len()).sum::<usize>()
            + self.by_target.iter().map(SourcesByTarget::len).sum::<usize>()
    }

    /// Whether no dependency was recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The dependency graph over `node_count` transactions: its cyclic components, and the edges between
/// their transactions, each carrying the kinds of every dependency between its ends. Those are the only
/// edges a cycle search follows (a cycle never leaves its component), so no other is kept: the graph's
/// millions of dependencies are bucketed by target only to find the components, and then dropped. A
/// valid history's graph has no component, and nothing is sorted or merged.
pub struct DepGraph {
    node_count: usize,
    kind_counts: [usize; 8],
    /// How many dependencies were inferred, before merging.
    dependency_count: usize,
    /// The strongly connected components of more than one transaction, each sorted, in order of their
    /// smallest members.
    components: Vec<Vec<TxnId>>,
    /// Every transaction of a component, sorted; the edges out of `members[i]` are
    /// `edges[starts[i]..starts[i + 1]]`.
    members: Vec<TxnId>,
    starts: Vec<usize>,
    /// The edges between members as (from, to, kinds), sorted, one for each pair.
    edges: Vec<(TxnId, TxnId, Kinds)>,
}

impl DepGraph {
    /// The graph of a list of dependencies over `node_count` transactions.
    pub fn build(node_count: usize, list: EdgeList) -> DepGraph {
        let EdgeList { pairs, by_target, .. } = list;
        let mut kind_counts = [0; 8];
        // Bucket by target (a counting sort): each part of the list holds its dependencies in order of
        // target (the analyses infer them target by target), so filling the buckets writes forward
        // through memory rather than all over it. The sources and kinds are kept apart (5 bytes a
        // dependency, not 8 as pairs).
        let mut offsets = vec![0usize; node_count + 1];
        for part in &pairs {
            kind_counts[part.kind as usize] += part.pairs.len();
            for &(_, to) in &part.pairs {
                offsets[to as usize + 1] += 1;
            }
        }
        for part in &by_target {
            kind_counts[part.kind as usize] += part.len();
            for block in &part.blocks {
                for (i, &to) in block.targets.iter().enumerate() {
                    offsets[to as usize + 1] += block.sources_of(i).len();
                }
            }
        }
        for i in 0..node_count {
            offsets[i + 1] += offsets[i];
        }
        let dependency_count = offsets[node_count];
        let mut sources: Vec<TxnId> = vec![0; dependency_count];
        let mut kinds = vec![Kinds::NONE; dependency_count];
        // `offsets[t]` is where the next dependency into `t` goes (no array of its own: at 10M transactions
        // that was 80 MB more at the peak); once all are in, it is where `t`'s dependencies end, so the
        // offsets are moved up one place after.
        let mut put = |from: TxnId, to: TxnId, kind: Kinds| {
            let slot = &mut offsets[to as usize];
            sources[*slot] = from;
            kinds[*slot] = kind;
            *slot += 1;
        };
        // Each part, and each block of sources, is freed as soon as it is taken.
        for part in pairs {
            let kind = part.kind.only();
            part.pairs.into_iter().for_each(|(from, to)| put(from, to, kind));
        }
        for part in by_target {
            let kind = part.kind.only();
            for block in part.blocks {
                for (i, &to) in block.targets.iter().enumerate() {
                    block.sources_of(i).iter().for_each(|&from| put(from, to, kind));
                }
            }
        }
        offsets.copy_within(..node_count, 1);
        offsets[0] = 0;
        // The reversed graph has the same components; repeated dependencies change none.
        let mut components: Vec<Vec<TxnId>> = strongly_connected(&offsets, &sources)
            .into_iter()
            .map(|mut c| {
                c.sort_unstable();
                c
            })
            .collect();
        components.sort_unstable_by_key(|c| c[0]);
        let mut members: Vec<TxnId> = components.iter().flatten().copied().collect();
        members.sort_unstable();
        let in_cycle = FixedBitSet::from_iter(members.iter().map(|&t| t as usize));
        // The dependencies between the members, forward, sorted, those between the same two merged.
        let mut edges: Vec<(TxnId, TxnId, Kinds)> = members
            .par_iter()
            .flat_map_iter(|&to| {
                let into = offsets[to as usize]..offsets[to as usize + 1];
                sources[into.clone()]
                    .iter()
                    .zip(&kinds[into])
                    .filter(|(from, _)| in_cycle.contains(**from as usize))
                    .map(move |(&from, &kind)| (from, to, kind))
            })
            .collect();
        drop((offsets, sources, kinds));
        edges.par_sort_unstable_by_key(|&(from, to, _)| (from, to));
        edges.dedup_by(|later, kept| {
            let same = (later.0, later.1) == (kept.0, kept.1);
            if same {
                kept.2 = kept.2.union(later.2);
            }
            same
        });
        let starts = members.iter().map(|&m| edges.partition_point(|e| e.0 < m)).chain([edges.len()]).collect();
        DepGraph { node_count, kind_counts, dependency_count, components, members, starts, edges }
    }

    /// A graph over `node_count` transactions with these dependencies: the shorthand tests use.
    pub fn from_edges(node_count: usize, edges: &[(TxnId, TxnId, Kind)]) -> DepGraph {
        let mut list = EdgeList::new();
        for &(from, to, kind) in edges {
            list.add(from, to, kind);
        }
        DepGraph::build(node_count, list)
    }

    /// Whether no transaction depends on another.
    pub fn is_empty(&self) -> bool {
        self.dependency_count == 0
    }

    /// The number of transactions.
    pub fn node_count(&self) -> usize {
        self.node_count
    }

    /// How many dependencies of each kind were inferred, before merging.
    pub fn kind_count(&self, kind: Kind) -> usize {
        self.kind_counts[kind as usize]
    }

    /// The edges out of `from` to transactions of cyclic components: none unless it is in one.
    fn out_of(&self, from: TxnId) -> std::ops::Range<usize> {
        match self.members.binary_search(&from) {
            Ok(i) => self.starts[i]..self.starts[i + 1],
            Err(_) => 0..0,
        }
    }

    /// The transactions of cyclic components `from` must precede, each once with the kinds of its edge,
    /// in order, if `from` is in a cyclic component; none if it is not, as no cycle passes through it.
    pub fn successors(&self, from: TxnId) -> impl Iterator<Item = (TxnId, Kinds)> + '_ {
        self.edges[self.out_of(from)].iter().map(|&(_, to, kinds)| (to, kinds))
    }

    /// The kinds on the edge `from -> to`, if there is one and both are in cyclic components.
    pub fn kinds(&self, from: TxnId, to: TxnId) -> Kinds {
        let out = &self.edges[self.out_of(from)];
        out.binary_search_by_key(&to, |e| e.1).map_or(Kinds::NONE, |i| out[i].2)
    }

    /// The strongly connected components with more than one transaction: every cycle lies in one.
    /// Each component is sorted; components come in order of their smallest member.
    pub fn cyclic_components(&self) -> &[Vec<TxnId>] {
        &self.components
    }
}

/// Tarjan's strongly connected components of a graph in compressed sparse row form that have more than
/// one member (a transaction alone is in no cycle: the graph has no self-loops), with an explicit stack
/// instead of recursion, so a path through millions of transactions needs no deep call stack.
/// Components come in reverse topological order, as petgraph's `tarjan_scc` gives them; the lone
/// transactions, nearly all of a valid history's, are never copied out.
pub(crate) fn strongly_connected(offsets: &[usize], targets: &[TxnId]) -> Vec<Vec<TxnId>> {
    let n = offsets.len() - 1;
    let mut tarjan = Tarjan {
        offsets,
        index: vec![Tarjan::UNVISITED; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        path: Vec::new(),
        next_index: 0,
    };
    let mut components = Vec::new();
    for root in 0..n as TxnId {
        if tarjan.index[root as usize] != Tarjan::UNVISITED {
            continue;
        }
        tarjan.enter(root);
        while let Some(&mut (v, ref mut edge)) = tarjan.path.last_mut() {
            if *edge < offsets[v as usize + 1] {
                let w = targets[*edge];
                *edge += 1;
                if tarjan.index[w as usize] == Tarjan::UNVISITED {
                    tarjan.enter(w);
                } else if tarjan.on_stack[w as usize] {
                    tarjan.low[v as usize] = tarjan.low[v as usize].min(tarjan.index[w as usize]);
                }
                continue;
            }
            tarjan.path.pop();
            if let Some(&(parent, _)) = tarjan.path.last() {
                tarjan.low[parent as usize] = tarjan.low[parent as usize].min(tarjan.low[v as usize]);
            }
            if tarjan.low[v as usize] == tarjan.index[v as usize] {
                // The component is the stack down to v.
                let at = tarjan.stack.iter().rposition(|&w| w == v).expect("a component's root is on the stack");
                for &w in &tarjan.stack[at..] {
                    tarjan.on_stack[w as usize] = false;
                }
                if tarjan.stack.len() - at > 1 {
                    components.push(tarjan.stack[at..].iter().rev().copied().collect());
                }
                tarjan.stack.truncate(at);
            }
        }
    }
    components
}

/// The state of [`strongly_connected`]'s walk.
struct Tarjan<'g> {
    offsets: &'g [usize],
    /// Each node's order of discovery (`UNVISITED` before it is entered).
    index: Vec<u32>,
    /// The lowest discovery order each node reaches among the nodes still on the stack.
    low: Vec<u32>,
    on_stack: Vec<bool>,
    /// The nodes entered whose component is not complete yet.
    stack: Vec<TxnId>,
    /// The depth-first path: each node with the position of the next edge to follow.
    path: Vec<(TxnId, usize)>,
    next_index: u32,
}

impl Tarjan<'_> {
    const UNVISITED: u32 = u32::MAX;

    /// Discovers `v`: numbers it, and puts it on the stack and at the end of the path.
    fn enter(&mut self, v: TxnId) {
        self.index[v as usize] = self.next_index;
        self.low[v as usize] = self.next_index;
        self.next_index += 1;
        self.stack.push(v);
        self.on_stack[v as usize] = true;
        self.path.push((v, self.offsets[v as usize]));
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

    /// A seeded stream of numbers below the bound each call asks for.
    fn below(seed: u64) -> impl FnMut(u64) -> u64 {
        let mut seed = seed;
        move |bound| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % bound
        }
    }

    /// Every edge of `g` with its kinds, in order of source and then target.
    fn edges_of(g: &DepGraph) -> Vec<((u32, u32), Kinds)> {
        (0..g.node_count() as u32)
            .flat_map(|from| g.successors(from).map(move |(to, kinds)| ((from, to), kinds)))
            .collect()
    }

    #[test]
    fn parallel_dependencies_in_a_cycle_merge_into_one_edge_and_no_edge_leads_out_of_the_cyclic_components() {
        let g = graph(
            4,
            &[
                (0, 1, Kind::Ww),
                (0, 1, Kind::Realtime),
                (1, 0, Kind::Rw),
                (1, 2, Kind::Rw),
                (0, 1, Kind::Ww),
                (2, 3, Kind::Wr),
            ],
        );
        assert_eq!(g.cyclic_components(), vec![vec![0, 1]]);
        assert_eq!(g.kinds(0, 1), Kinds::of(&[Kind::Ww, Kind::Realtime]));
        assert_eq!(g.kinds(1, 0), Kinds::of(&[Kind::Rw]));
        // An edge out of the component is never followed, and not kept.
        assert_eq!(g.successors(1).collect::<Vec<_>>(), vec![(0, Kind::Rw.only())]);
        assert_eq!(g.kinds(1, 2), Kinds::NONE);
        assert_eq!(g.successors(0).collect::<Vec<_>>(), vec![(1, Kinds::of(&[Kind::Ww, Kind::Realtime]))]);
        // 2 is in no cycle: its edge is never followed.
        assert_eq!(g.successors(2).count(), 0);
        assert_eq!(g.kinds(2, 3), Kinds::NONE);
        assert_eq!(g.kind_count(Kind::Ww), 2);
        assert_eq!(g.node_count(), 4);
        assert!(!g.is_empty());
        assert!(graph(2, &[(0, 0, Kind::Ww), (1, 1, Kind::Rw)]).is_empty());
    }

    #[test]
    fn components_hold_exactly_the_cycles() {
        let g = graph(6, &[(0, 1, Kind::Ww), (1, 2, Kind::Wr), (2, 0, Kind::Rw), (2, 3, Kind::Ww), (4, 5, Kind::Ww)]);
        assert_eq!(g.cyclic_components(), vec![vec![0, 1, 2]]);
        assert!(graph(3, &[(0, 1, Kind::Ww), (1, 2, Kind::Ww)]).cyclic_components().is_empty());
    }

    #[test]
    fn the_iterative_tarjan_finds_petgraphs_components_of_several_transactions_in_petgraphs_order() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |bound: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % bound
        };
        for round in 0..300 {
            let n = 1 + next(60) as usize;
            let m = next(3 * n as u64 + 1) as usize;
            let mut pairs: Vec<(u32, u32)> = (0..m).map(|_| (next(n as u64) as u32, next(n as u64) as u32)).collect();
            pairs.sort_unstable();
            pairs.dedup();
            let edges: Vec<(u32, u32, Kind)> = pairs.iter().map(|&(a, b)| (a, b, Kind::Ww)).collect();
            // The graph in compressed sparse row form, as `DepGraph::build` gives it to the search.
            let mut offsets = vec![0usize; n + 1];
            let targets: Vec<u32> = pairs.iter().filter(|(a, b)| a != b).map(|&(_, b)| b).collect();
            for &(a, _) in pairs.iter().filter(|(a, b)| a != b) {
                offsets[a as usize + 1] += 1;
            }
            for i in 0..n {
                offsets[i + 1] += offsets[i];
            }
            let sorted = |components: Vec<Vec<u32>>| -> Vec<Vec<u32>> {
                components
                    .into_iter()
                    .map(|mut c| {
                        c.sort_unstable();
                        c
                    })
                    .collect()
            };
            let ours = sorted(strongly_connected(&offsets, &targets));
            assert_eq!(graph(n, &edges).cyclic_components(), {
                let mut by_first = ours.clone();
                by_first.sort_unstable_by_key(|c| c[0]);
                by_first
            });
            let mut csr: Csr<(), (), Directed, u32> =
                Csr::from_sorted_edges(&pairs.iter().filter(|(a, b)| a != b).copied().collect::<Vec<_>>())
                    .expect("sorted");
            while csr.node_count() < n {
                csr.add_node(());
            }
            let theirs = sorted(petgraph::algo::tarjan_scc(&csr).into_iter().filter(|c| c.len() > 1).collect());
            assert_eq!(ours, theirs, "round {round}: {n} nodes, edges {pairs:?}");
        }
    }

    #[test]
    fn a_graph_holds_exactly_the_edges_within_its_cyclic_component_merged() {
        let n = 100_003u32;
        // A ring through the first transactions makes them one component; the others only lead forward,
        // so each is in none.
        let ring = 90_000u32;
        let mut next = below(7);
        let mut reference: std::collections::BTreeMap<(u32, u32), Kinds> = Default::default();
        let mut edges: Vec<(u32, u32, Kind)> = (0..ring).map(|i| (i, (i + 1) % ring, Kind::Ww)).collect();
        for _ in 0..600_000 {
            let from = next(u64::from(n)) as u32;
            // Clustered targets, so pairs repeat with different kinds.
            let to = (from + next(8) as u32).min(n - 1);
            let kind = Kind::ALL[next(Kind::ALL.len() as u64) as usize];
            edges.push((from, to, kind));
        }
        for &(from, to, kind) in &edges {
            if from != to && from < ring && to < ring {
                let kinds = reference.entry((from, to)).or_insert(Kinds::NONE);
                *kinds = kinds.union(kind.only());
            }
        }
        let g = graph(n as usize, &edges);
        let reference = reference.into_iter().collect::<Vec<_>>();
        assert_eq!(g.cyclic_components(), vec![(0..ring).collect::<Vec<_>>()]);
        assert_eq!(edges_of(&g), reference);
        assert_eq!(g.node_count(), n as usize);
        // The same dependencies recorded in parts, as the analyses do (by range, by key, the order): lists
        // extended by others, empty ones among them, and added to after an extension.
        let mut joined = EdgeList::new();
        let mut rest = &edges[..];
        for size in [0, 1, 99_999, 0, 250_000, 3, 50_000] {
            let (part, after) = rest.split_at(size);
            let mut list = EdgeList::new();
            part.iter().for_each(|&(from, to, kind)| list.add(from, to, kind));
            joined.extend(list);
            rest = after;
        }
        rest.iter().for_each(|&(from, to, kind)| joined.add(from, to, kind));
        let mut kept: Vec<_> = edges.iter().copied().filter(|&(from, to, _)| from != to).collect();
        kept.sort_unstable();
        // A list holds exactly the dependencies given but self-dependencies, and builds the reference graph.
        let builds_the_reference = |list: EdgeList| -> DepGraph {
            assert_eq!(list.len(), kept.len());
            let mut recorded: Vec<_> = list.iter().collect();
            recorded.sort_unstable();
            assert_eq!(recorded, kept);
            let g = DepGraph::build(n as usize, list);
            assert_eq!(g.cyclic_components(), vec![(0..ring).collect::<Vec<_>>()]);
            assert_eq!(edges_of(&g), reference);
            g
        };
        builds_the_reference(joined);
        // The same dependencies recorded target by target, one part per kind, each target's sources
        // given at once (a target's own id among them, which is no edge), beside pairs.
        let mut by_target: std::collections::BTreeMap<(Kind, u32), Vec<u32>> = Default::default();
        for &(from, to, kind) in &edges {
            by_target.entry((kind, to)).or_default().push(from);
        }
        let mut mixed = EdgeList::new();
        let mut parts: std::collections::BTreeMap<Kind, SourcesByTarget> = Default::default();
        for ((kind, to), sources) in by_target {
            if to % 3 == 0 {
                sources.iter().for_each(|&from| mixed.add(from, to, kind));
            } else {
                parts.entry(kind).or_insert_with(|| SourcesByTarget::new(kind)).add(to, &sources);
            }
        }
        parts.into_values().for_each(|part| mixed.extend_by_target(part));
        let g = builds_the_reference(mixed);
        for kind in Kind::ALL {
            assert_eq!(g.kind_count(kind), kept.iter().filter(|e| e.2 == kind).count(), "{kind:?}");
        }
    }

    #[test]
    fn sources_by_target_in_many_blocks_give_back_what_was_added_and_build_the_same_graph() {
        let n = 500u32;
        let mut next = below(11);
        // Blocks of about 7 sources: targets with none, with a few, with their own id among them, and
        // with more than a block alone.
        let mut by_target = SourcesByTarget { per_block: 7, ..SourcesByTarget::new(Kind::Realtime) };
        let mut pairs = EdgeList::new();
        let mut added: Vec<Vec<u32>> = Vec::new();
        for i in 0..300u32 {
            let to = next(u64::from(n)) as u32;
            let count = if i % 50 == 0 { 20 } else { next(6) };
            let sources: Vec<u32> =
                (0..count).map(|_| next(u64::from(n)) as u32).chain((i % 9 == 0).then_some(to)).collect();
            by_target.add(to, &sources);
            sources.iter().for_each(|&from| pairs.add(from, to, Kind::Realtime));
            added.push(sources.into_iter().filter(|&from| from != to).collect());
        }
        assert!(by_target.blocks.len() > 40, "{} blocks", by_target.blocks.len());
        assert_eq!(by_target.target_count(), added.len());
        for (i, sources) in added.iter().enumerate() {
            assert_eq!(by_target.sources_of(i), &sources[..], "target {i}");
        }
        assert_eq!(by_target.len(), pairs.len());
        let mut list = EdgeList::new();
        list.extend_by_target(by_target);
        let mut recorded: Vec<_> = list.iter().collect();
        let mut expected: Vec<_> = pairs.iter().collect();
        recorded.sort_unstable();
        expected.sort_unstable();
        assert_eq!(recorded, expected);
        let (ours, theirs) = (DepGraph::build(n as usize, list), DepGraph::build(n as usize, pairs));
        assert!(!theirs.cyclic_components().is_empty());
        assert_eq!(ours.cyclic_components(), theirs.cyclic_components());
        assert_eq!(edges_of(&ours), edges_of(&theirs));
        assert_eq!(ours.kind_count(Kind::Realtime), theirs.kind_count(Kind::Realtime));
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
