//! The cycle search: for each strongly connected component and each cycle class, a shortest cycle of
//! that class, or a proof that the component has none. Elle searches with a time limit and gives up on
//! large components (`cycle-search-timeout`); this search is complete.
//!
//! A class is a small automaton over edge labels (see `cycle_class`), so a cycle of the class is a closed
//! walk in the product of the component and the automaton. Every cycle is rotated to begin at its
//! distinguishing edge (its first anti-dependency, or its `wr` for G1c), so for each such edge `u -> v`
//! the search is a breadth-first search from `v` back to `u` in an accepting state: the shortest over all
//! start edges is a shortest cycle of the class. Two bounds keep it fast on components of thousands of
//! transactions: once a cycle of length `L` is known, no search goes deeper than `L - 1`; and the
//! product graph's own strongly connected components, numbered in topological order, prune every state
//! that cannot reach the target. Shortest closed walks are simple cycles whenever the class's sub-cycles
//! would belong to a class searched earlier (Elle's search order); otherwise the walk is reported as it
//! is, which Adya's definitions and Elle's own cycle-exists checks count as a cycle.
//!
//! This module owns the search; the classes are `cycle_class`'s and the graph is `graph`'s.

use std::collections::{BTreeSet, VecDeque};

use petgraph::Directed;
use petgraph::csr::Csr;

use crate::consistency_model;
use crate::cycle_class::{CycleClass, WALK_STATES, WalkState};
use crate::graph::{DepGraph, TxnId};
use crate::kind::{Kind, Kinds};

/// A cycle found: each transaction with the label of its edge to the next; the last returns to the first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundCycle {
    /// The class's name.
    pub class: &'static str,
    /// `(transaction, label of the edge to the next transaction)`, starting at the smallest id.
    pub steps: Vec<(TxnId, Kind)>,
}

/// Searches one component for each class in `classes`, most severe first, skipping classes implied by
/// one already found (as Elle does). Returns one shortest cycle per class found.
pub fn search_component(graph: &DepGraph, component: &[TxnId], classes: &[CycleClass]) -> Vec<FoundCycle> {
    let local = Component::new(graph, component);
    let mut order: Vec<&CycleClass> = classes.iter().collect();
    order.sort_by(|a, b| consistency_model::search_rank(a.name).cmp(&consistency_model::search_rank(b.name)));
    let mut redundant: BTreeSet<&'static str> = BTreeSet::new();
    let mut found = Vec::new();
    for class in order {
        if redundant.contains(class.name) || !local.could_hold(class) {
            continue;
        }
        if let Some(cycle) = ClassSearch::new(&local, class).shortest() {
            redundant.extend(consistency_model::implied_anomalies([class.name]));
            found.push(FoundCycle {
                class: class.name,
                steps: rotate_to_smallest(cycle.into_iter().map(|(v, k)| (component[v as usize], k)).collect()),
            });
        }
    }
    found
}

fn rotate_to_smallest(mut steps: Vec<(TxnId, Kind)>) -> Vec<(TxnId, Kind)> {
    if let Some(first) = steps.iter().enumerate().min_by_key(|(_, (t, _))| *t).map(|(i, _)| i) {
        steps.rotate_left(first);
    }
    steps
}

/// A component with local ids `0..n` and its internal edges.
struct Component {
    starts: Vec<u32>,
    targets: Vec<u32>,
    kinds: Vec<Kinds>,
    present: Kinds,
}

impl Component {
    fn new(graph: &DepGraph, members: &[TxnId]) -> Component {
        let mut starts = Vec::with_capacity(members.len() + 1);
        let mut targets = Vec::new();
        let mut kinds = Vec::new();
        let mut present = Kinds::NONE;
        starts.push(0);
        for &m in members {
            for (to, k) in graph.successors(m) {
                if let Ok(local) = members.binary_search(&to) {
                    targets.push(local as u32);
                    kinds.push(k);
                    present = present.union(k);
                }
            }
            starts.push(targets.len() as u32);
        }
        Component { starts, targets, kinds, present }
    }

    fn len(&self) -> usize {
        self.starts.len() - 1
    }

    fn edges(&self, v: u32) -> impl Iterator<Item = (u32, Kinds)> + '_ {
        let range = self.starts[v as usize] as usize..self.starts[v as usize + 1] as usize;
        self.targets[range.clone()].iter().copied().zip(self.kinds[range].iter().copied())
    }

    /// Whether the component has the kinds a cycle of this class needs at all.
    fn could_hold(&self, class: &CycleClass) -> bool {
        let usable = self.present.intersection(class.allowed);
        let variant_ok = class.variant.is_none_or(|k| usable.contains(k));
        let start_ok = usable.iter().any(|k| class.can_start(k));
        let predicate_ok = class.predicate != crate::cycle_class::PredicateRule::Required || usable.contains(Kind::Rwp);
        variant_ok && start_ok && predicate_ok
    }
}

/// The search for one class in one component.
struct ClassSearch<'a> {
    component: &'a Component,
    class: &'a CycleClass,
    /// Dense ids of the automaton states reachable from any start: `dense[state] = id`.
    dense: [u8; WALK_STATES],
    states: Vec<WalkState>,
    /// `transition[id][label] = next id`, `u8::MAX` where the class refuses the label.
    transition: Vec<[u8; 8]>,
    /// For each product node `v * states + s`, its strongly connected component, numbered so that a
    /// node can reach only nodes with a number no greater than its own.
    rank: Vec<u32>,
    /// For each product node, its strongly connected component once every start edge `u -> v` also
    /// closes, from `u` in each accepting state back to `v` in the start's state. A start edge can begin
    /// a cycle of the class only if both its ends share one (every node of such a cycle does too): the
    /// test that spares a breadth-first search from every start edge of a large component that has no
    /// cycle of the class, which made process- and real-time-ordered searches quadratic.
    closing: Vec<u32>,
}

const NONE: u8 = u8::MAX;

impl<'a> ClassSearch<'a> {
    fn new(component: &'a Component, class: &'a CycleClass) -> ClassSearch<'a> {
        let mut dense = [NONE; WALK_STATES];
        let mut states = Vec::new();
        let mut queue: VecDeque<WalkState> =
            Kind::ALL.into_iter().filter(|&k| class.can_start(k)).filter_map(|k| class.start(k)).collect();
        while let Some(s) = queue.pop_front() {
            if dense[s.0 as usize] != NONE {
                continue;
            }
            dense[s.0 as usize] = states.len() as u8;
            states.push(s);
            queue.extend(Kind::ALL.into_iter().filter_map(|k| class.step(s, k)));
        }
        let transition = states
            .iter()
            .map(|&s| Kind::ALL.map(|k| class.step(s, k).map_or(NONE, |next| dense[next.0 as usize])))
            .collect();
        let mut search =
            ClassSearch { component, class, dense, states, transition, rank: Vec::new(), closing: Vec::new() };
        search.rank = search.product_ranks(false);
        search.closing = search.product_ranks(true);
        search
    }

    fn product(&self, v: u32, state: u8) -> usize {
        v as usize * self.states.len() + state as usize
    }

    /// Numbers the product graph's strongly connected components in petgraph's Tarjan order (sinks
    /// first): along any edge the number never increases. With `closing`, each start edge also closes
    /// (see `ClassSearch::closing`), and only which component a node is in is meaningful.
    fn product_ranks(&self, closing: bool) -> Vec<u32> {
        let n = self.component.len() * self.states.len();
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for v in 0..self.component.len() as u32 {
            for s in 0..self.states.len() as u8 {
                let from = self.product(v, s) as u32;
                let start = edges.len();
                let accepting = closing && self.class.accepts(self.states[s as usize]);
                for (w, kinds) in self.component.edges(v) {
                    let Some(label) = self.class.label(kinds) else { continue };
                    let next = self.transition[s as usize][label as usize];
                    if next != NONE {
                        edges.push((from, self.product(w, next) as u32));
                    }
                    if accepting
                        && self.class.can_start(label)
                        && let Some(first) = self.class.start(label)
                    {
                        edges.push((from, self.product(w, self.dense[first.0 as usize]) as u32));
                    }
                }
                edges[start..].sort_unstable();
                let mut kept = start;
                for i in start..edges.len() {
                    if i == start || edges[i] != edges[kept - 1] {
                        edges[kept] = edges[i];
                        kept += 1;
                    }
                }
                edges.truncate(kept);
            }
        }
        let mut csr: Csr<(), (), Directed, u32> = Csr::from_sorted_edges(&edges).expect("edges are sorted and unique");
        while csr.node_count() < n {
            csr.add_node(());
        }
        let sccs = crate::graph::tarjan_on_big_stack(&csr);
        let mut rank = vec![0u32; n];
        for (i, scc) in sccs.iter().enumerate() {
            for &node in scc {
                rank[node as usize] = i as u32;
            }
        }
        rank
    }

    /// A shortest cycle of the class, as `(local transaction, label)` steps.
    fn shortest(&self) -> Option<Vec<(u32, Kind)>> {
        let n = self.component.len() * self.states.len();
        let accepting: Vec<u8> =
            (0..self.states.len() as u8).filter(|&s| self.class.accepts(self.states[s as usize])).collect();
        if accepting.is_empty() {
            return None;
        }
        let mut best: Option<Vec<(u32, Kind)>> = None;
        let mut bfs = Bfs { stamp: vec![0; n], parent: vec![(u32::MAX, 0); n], generation: 0, queue: VecDeque::new() };
        for u in 0..self.component.len() as u32 {
            for (v, kinds) in self.component.edges(u) {
                let Some(label) = self.class.label(kinds) else { continue };
                if !self.class.can_start(label) {
                    continue;
                }
                let Some(first) = self.class.start(label) else { continue };
                let first = self.dense[first.0 as usize];
                let begin = self.closing[self.product(v, first)];
                if !accepting.iter().any(|&s| self.closing[self.product(u, s)] == begin) {
                    continue;
                }
                // A cycle of length 2 cannot be beaten.
                let limit = best.as_ref().map_or(usize::MAX, |b| b.len() - 1);
                if limit <= 1 {
                    return best;
                }
                if let Some(path) = self.path(&mut bfs, (v, first), u, &accepting, limit - 1) {
                    let mut cycle = vec![(u, label)];
                    cycle.extend(path);
                    best = Some(cycle);
                }
            }
        }
        best
    }

    /// A shortest path of at most `max_edges` edges from product node `from` to `target` in an
    /// accepting state, as `(transaction, label)` steps starting at `from`'s transaction.
    fn path(
        &self,
        bfs: &mut Bfs,
        from: (u32, u8),
        target: u32,
        accepting: &[u8],
        max_edges: usize,
    ) -> Option<Vec<(u32, Kind)>> {
        let targets: Vec<usize> = accepting.iter().map(|&s| self.product(target, s)).collect();
        let floor = targets.iter().map(|&t| self.rank[t]).min()?;
        let start = self.product(from.0, from.1);
        if self.rank[start] < floor {
            return None;
        }
        bfs.generation += 1;
        let generation = bfs.generation;
        bfs.queue.clear();
        bfs.stamp[start] = generation;
        bfs.parent[start] = (u32::MAX, 0);
        bfs.queue.push_back((start, 0usize));
        while let Some((node, depth)) = bfs.queue.pop_front() {
            if targets.contains(&node) {
                return Some(self.unwind(bfs, node, start));
            }
            if depth == max_edges {
                continue;
            }
            let (v, s) = (node / self.states.len(), (node % self.states.len()) as u8);
            for (w, kinds) in self.component.edges(v as u32) {
                let Some(label) = self.class.label(kinds) else { continue };
                let next = self.transition[s as usize][label as usize];
                if next == NONE {
                    continue;
                }
                let p = self.product(w, next);
                if bfs.stamp[p] == generation || self.rank[p] < floor || self.closing[p] != self.closing[start] {
                    continue;
                }
                bfs.stamp[p] = generation;
                bfs.parent[p] = (node as u32, label as u8);
                bfs.queue.push_back((p, depth + 1));
            }
        }
        None
    }

    fn unwind(&self, bfs: &Bfs, mut node: usize, start: usize) -> Vec<(u32, Kind)> {
        let mut reversed = Vec::new();
        while node != start {
            let (prev, label) = bfs.parent[node];
            reversed.push(((prev as usize / self.states.len()) as u32, Kind::ALL[label as usize]));
            node = prev as usize;
        }
        reversed.reverse();
        reversed
    }
}

struct Bfs {
    stamp: Vec<u32>,
    parent: Vec<(u32, u8)>,
    generation: u32,
    queue: VecDeque<(usize, usize)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cycle_class::{all_classes, classify};
    use Kind::*;

    fn graph(n: usize, edges: &[(u32, u32, Kind)]) -> DepGraph {
        DepGraph::from_edges(n, edges)
    }

    fn found(g: &DepGraph) -> Vec<(String, Vec<(TxnId, Kind)>)> {
        g.cyclic_components()
            .iter()
            .flat_map(|c| search_component(g, c, &all_classes()))
            .map(|f| {
                let labels: Vec<Kind> = f.steps.iter().map(|s| s.1).collect();
                assert_eq!(classify(&labels), f.class, "a found cycle classifies as its class");
                (f.class.to_string(), f.steps)
            })
            .collect()
    }

    #[test]
    fn a_write_skew_is_g2_item_and_nothing_worse() {
        let g = graph(2, &[(0, 1, Rw), (1, 0, Rw)]);
        assert_eq!(found(&g), vec![("G2-item".to_string(), vec![(0, Rw), (1, Rw)])]);
    }

    #[test]
    fn the_shortest_cycle_of_each_class_is_found_and_implied_classes_are_skipped() {
        // 0 -ww-> 1 -wr-> 2 -rw-> 0 is G-single-item (length 3); a longer G-single-item through 3 exists
        // too, and G2-item is implied, so it is not reported.
        let g = graph(4, &[(0, 1, Ww), (1, 2, Wr), (2, 0, Rw), (2, 3, Ww), (3, 0, Rw), (1, 3, Rw), (3, 1, Rw)]);
        let f = found(&g);
        assert_eq!(f, vec![("G-single-item".to_string(), vec![(0, Ww), (1, Wr), (2, Rw)])]);
    }

    #[test]
    fn an_edge_with_several_kinds_is_read_as_its_first() {
        // 1 -> 0 is both ww and rw: Elle explains it as ww, so this is G0, not G2-item.
        let g = graph(2, &[(0, 1, Ww), (1, 0, Ww), (1, 0, Rw)]);
        assert_eq!(found(&g), vec![("G0".to_string(), vec![(0, Ww), (1, Ww)])]);
    }

    #[test]
    fn realtime_variants_need_a_realtime_edge_that_is_not_also_data() {
        let g = graph(2, &[(0, 1, Rw), (1, 0, Realtime)]);
        assert_eq!(found(&g), vec![("G-single-item-realtime".to_string(), vec![(0, Rw), (1, Realtime)])]);
        let g = graph(2, &[(0, 1, Rw), (1, 0, Realtime), (1, 0, Wr)]);
        assert_eq!(found(&g), vec![("G-single-item".to_string(), vec![(0, Rw), (1, Wr)])]);
    }

    #[test]
    fn nonadjacent_anti_dependencies_are_told_from_adjacent_ones() {
        // 0 -rw-> 1 -wr-> 2 -rw-> 3 -ww-> 0: two anti-dependencies, never adjacent.
        let g = graph(4, &[(0, 1, Rw), (1, 2, Wr), (2, 3, Rw), (3, 0, Ww)]);
        assert_eq!(found(&g), vec![("G-nonadjacent-item".to_string(), vec![(0, Rw), (1, Wr), (2, Rw), (3, Ww)])]);
        // Swap the order: 0 -rw-> 1 -rw-> 2 -wr-> 3 -ww-> 0 has an adjacent pair.
        let g = graph(4, &[(0, 1, Rw), (1, 2, Rw), (2, 3, Wr), (3, 0, Ww)]);
        assert_eq!(found(&g), vec![("G2-item".to_string(), vec![(0, Rw), (1, Rw), (2, Wr), (3, Ww)])]);
    }

    #[test]
    fn each_component_reports_its_own_cycles() {
        let g = graph(4, &[(0, 1, Ww), (1, 0, Ww), (2, 3, Rw), (3, 2, Wr)]);
        assert_eq!(
            found(&g),
            vec![("G0".to_string(), vec![(0, Ww), (1, Ww)]), ("G-single-item".to_string(), vec![(2, Rw), (3, Wr)])]
        );
    }

    #[test]
    fn a_long_cycle_in_a_large_component_is_found_without_giving_up() {
        // A ring of 20,000 transactions joined by ww edges and one rw edge, plus chords that make the
        // component dense but add no shorter G-single-item cycle.
        let n = 20_000u32;
        let mut edges: Vec<(u32, u32, Kind)> = (0..n - 1).map(|i| (i, i + 1, Ww)).collect();
        edges.push((n - 1, 0, Rw));
        for i in (0..n - 10).step_by(7) {
            edges.push((i, i + 10, Wr));
        }
        let g = graph(n as usize, &edges);
        let f = found(&g);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].0, "G-single-item");
        // The shortest such cycle is the rw edge plus a shortest ww/wr path from 0 to n - 1.
        let mut successors = vec![Vec::new(); n as usize];
        for &(a, b, k) in &edges {
            if k != Rw {
                successors[a as usize].push(b);
            }
        }
        let mut distance = vec![usize::MAX; n as usize];
        distance[0] = 0;
        let mut queue = VecDeque::from([0u32]);
        while let Some(v) = queue.pop_front() {
            for &b in &successors[v as usize] {
                if distance[b as usize] == usize::MAX {
                    distance[b as usize] = distance[v as usize] + 1;
                    queue.push_back(b);
                }
            }
        }
        assert_eq!(f[0].1.len(), distance[n as usize - 1] + 1);
    }
}
