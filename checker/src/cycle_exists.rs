//! Cycle existence, Elle's model-level check (`elle.txn/cycle-exists-specs`): for each model, the
//! subgraph that must be acyclic if the model holds, and whether a component of the dependency graph has a
//! cycle in it. It matters where cycle classes cannot see: a class labels each edge by its first kind, so
//! an edge that is both an anti-dependency and a real-time order counts as the anti-dependency, and a
//! cycle through it may belong to no `-realtime` class; but as a real-time edge it still rules out strong
//! snapshot isolation. Each check uses every kind an edge carries. Snapshot isolation's subgraph is
//! Cerone & Gotsman's: `(ww ∪ wr) ; rw?` must be acyclic, the sequential extension of `ww ∪ wr` by `rw`.
//!
//! A cycle-exists anomaly is reported only for a model no specific anomaly already rules out (as Elle
//! does), with the component and one concrete cycle as evidence. This module owns the specs and the
//! check; the cycle classes and their search are `cycle_class` and `cycle_search`.

use petgraph::Directed;
use petgraph::csr::Csr;

use crate::consistency_model;
use crate::graph::{DepGraph, TxnId};
use crate::kind::{Kind, Kinds};

/// One model's acyclicity requirement.
#[derive(Debug, Clone, Copy)]
struct Spec {
    /// The canonical model name.
    model: &'static str,
    /// Edges of these kinds.
    base: Kinds,
    /// And, if set, compositions `a -base-> b -extension-> c` as edges `a -> c`.
    extension: Option<Kinds>,
}

const WW: Kinds = Kinds::of(&[Kind::Ww, Kind::Wwp]);
const WR: Kinds = Kinds::of(&[Kind::Wr, Kind::Wrp]);
const RW: Kinds = Kinds::of(&[Kind::Rw, Kind::Rwp]);
const P: Kinds = Kind::Process.only();
const RT: Kinds = Kind::Realtime.only();

const SPECS: [Spec; 12] = [
    Spec { model: "PL-1", base: WW, extension: None },
    Spec { model: "PL-2", base: WW.union(WR), extension: None },
    Spec { model: "PL-SI", base: WW.union(WR), extension: Some(RW) },
    Spec { model: "PL-3", base: WW.union(WR).union(RW), extension: None },
    Spec { model: "strong-session-PL-1", base: WW.union(P), extension: None },
    Spec { model: "strong-session-PL-2", base: WW.union(WR).union(P), extension: None },
    Spec { model: "strong-session-snapshot-isolation", base: WW.union(WR).union(P), extension: Some(RW) },
    Spec { model: "strong-session-serializable", base: WW.union(WR).union(RW).union(P), extension: None },
    Spec { model: "strong-PL-1", base: WW.union(RT), extension: None },
    Spec { model: "strong-PL-2", base: WW.union(WR).union(RT), extension: None },
    Spec { model: "strong-snapshot-isolation", base: WW.union(WR).union(RT), extension: Some(RW) },
    Spec { model: "PL-SS", base: WW.union(WR).union(RW).union(RT), extension: None },
];

/// A model a component's cycles rule out, with evidence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CycleExists {
    /// The anomaly's name: `<canonical model>-cycle-exists`.
    pub name: String,
    /// The model's friendly name.
    pub not: &'static str,
    /// The subgraph, in Elle's notation (`[:extension [:union ww wr] rw]`).
    pub subgraph: String,
    /// The transactions of the smallest strongly connected component of that subgraph.
    pub component: Vec<TxnId>,
    /// One cycle in it: each transaction with the kind of its edge to the next.
    pub witness: Vec<(TxnId, Kind)>,
}

/// The cycle-exists anomalies of one component, for models the classes found (`found`) do not already
/// rule out; `order` says which order kind the graph holds.
pub fn cycle_exists(graph: &DepGraph, component: &[TxnId], found: &[&str], order: Option<Kind>) -> Vec<CycleExists> {
    let ruled_out = consistency_model::impossible_models(found.iter().copied());
    let mut redundant: Vec<&'static str> = Vec::new();
    let mut cases = Vec::new();
    for spec in SPECS {
        let uses = spec.base.union(spec.extension.unwrap_or(Kinds::NONE));
        let order_kinds = Kinds::of(&[Kind::Process, Kind::Realtime]);
        let needs_order = !uses.intersection(order_kinds).is_empty();
        if needs_order && order.is_none_or(|o| !uses.contains(o)) {
            continue;
        }
        if redundant.contains(&spec.model) {
            continue;
        }
        let Some((members, witness)) = smallest_cycle(graph, component, spec) else { continue };
        redundant.extend(consistency_model::impossible_models([format!("{}-cycle-exists", spec.model).as_str()]));
        redundant.extend(models_implying(spec.model));
        if ruled_out.contains(spec.model) {
            continue;
        }
        cases.push(CycleExists {
            name: format!("{}-cycle-exists", spec.model),
            not: consistency_model::friendly_model_name(spec.model),
            subgraph: notation(spec),
            component: members,
            witness,
        });
    }
    cases
}

/// Every model that implies `model` (including it), canonical names.
fn models_implying(model: &'static str) -> Vec<&'static str> {
    consistency_model::impossible_models([format!("{model}-cycle-exists").as_str()]).into_iter().collect()
}

fn notation(spec: Spec) -> String {
    let names = |k: Kinds| {
        let n: Vec<&str> = k.iter().map(Kind::name).collect();
        if n.len() == 1 { n[0].to_string() } else { format!("[:union {}]", n.join(" ")) }
    };
    match spec.extension {
        None => names(spec.base),
        Some(ext) => format!("[:extension {} {}]", names(spec.base), names(ext)),
    }
}

/// An edge of a spec's subgraph: from, to, and the path in the dependency graph it stands for.
type SubEdge = (u32, u32, [(TxnId, Kind); 2], u8);

/// A strongly connected component of a spec's subgraph, and a cycle in it.
type Found = (Vec<TxnId>, Vec<(TxnId, Kind)>);

fn smallest_cycle(graph: &DepGraph, component: &[TxnId], spec: Spec) -> Option<Found> {
    let local = |t: TxnId| component.binary_search(&t).ok().map(|i| i as u32);
    let mut edges: Vec<SubEdge> = Vec::new();
    for (a, &ta) in component.iter().enumerate() {
        for (tb, kinds) in graph.successors(ta) {
            let Some(b) = local(tb) else { continue };
            let Some(first) = kinds.intersection(spec.base).label() else { continue };
            edges.push((a as u32, b, [(ta, first), (tb, first)], 1));
            let Some(ext) = spec.extension else { continue };
            for (tc, kinds2) in graph.successors(tb) {
                let Some(c) = local(tc) else { continue };
                if let Some(second) = kinds2.intersection(ext).label() {
                    edges.push((a as u32, c, [(ta, first), (tb, second)], 2));
                }
            }
        }
    }
    edges.sort_unstable_by_key(|e| (e.0, e.1, e.3));
    edges.dedup_by_key(|e| (e.0, e.1));
    // A self-loop (a ww b rw a, composed) is a cycle on its own.
    let self_loop = edges.iter().find(|e| e.0 == e.1);
    let pairs: Vec<(u32, u32)> = edges.iter().map(|e| (e.0, e.1)).collect();
    let mut csr: Csr<(), (), Directed, u32> = Csr::from_sorted_edges(&pairs).expect("sorted, unique edges");
    while csr.node_count() < component.len() {
        csr.add_node(());
    }
    let sccs = crate::graph::tarjan_on_big_stack(&csr);
    let best = sccs.into_iter().filter(|c| c.len() > 1).min_by_key(|c| (c.len(), c.iter().min().copied()));
    let members: Vec<u32> = match (best, self_loop) {
        (Some(scc), _) => scc,
        (None, Some(e)) => vec![e.0],
        (None, None) => return None,
    };
    let witness = witness(&edges, &members)?;
    let mut txns: Vec<TxnId> = members.iter().map(|&m| component[m as usize]).collect();
    txns.sort_unstable();
    Some((txns, witness))
}

/// A cycle through the component's smallest member, found by breadth-first search, with each subgraph
/// edge expanded to the dependency edges it stands for.
fn witness(edges: &[SubEdge], members: &[u32]) -> Option<Vec<(TxnId, Kind)>> {
    let start = *members.iter().min()?;
    let inside = |v: u32| members.contains(&v);
    let mut parent: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    let mut closing = None;
    'search: while let Some(v) = queue.pop_front() {
        let from = edges.partition_point(|e| e.0 < v);
        for (i, e) in edges[from..].iter().enumerate().take_while(|(_, e)| e.0 == v) {
            if !inside(e.1) {
                continue;
            }
            if e.1 == start {
                closing = Some(from + i);
                break 'search;
            }
            if let std::collections::hash_map::Entry::Vacant(slot) = parent.entry(e.1) {
                slot.insert(from + i);
                queue.push_back(e.1);
            }
        }
    }
    let mut path = vec![closing?];
    let mut v = edges[path[0]].0;
    while v != start {
        let e = parent[&v];
        path.push(e);
        v = edges[e].0;
    }
    path.reverse();
    Some(path.iter().flat_map(|&e| edges[e].2[..edges[e].3 as usize].iter().copied()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, edges: &[(u32, u32, Kind)]) -> DepGraph {
        DepGraph::from_edges(n, edges)
    }

    #[test]
    fn an_edge_both_anti_dependency_and_realtime_still_rules_out_strong_si() {
        // T0 -rw/realtime-> T1 -rw-> T0: as classes see it, a G2-item; as real time, T0 finished before T1
        // began yet T1 missed T0's write, which no strong snapshot isolation allows.
        let g = graph(2, &[(0, 1, Kind::Rw), (0, 1, Kind::Realtime), (1, 0, Kind::Rw)]);
        let cases = cycle_exists(&g, &[0, 1], &["G2-item"], Some(Kind::Realtime));
        let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["strong-snapshot-isolation-cycle-exists"]);
        assert_eq!(cases[0].not, "strong-snapshot-isolation");
        // The composed edge 0 -realtime-> 1 -rw-> 0 is a self-loop of the extension: the component is T0.
        assert_eq!(cases[0].component, vec![0]);
        assert_eq!(cases[0].witness, vec![(0, Kind::Realtime), (1, Kind::Rw)]);
    }

    #[test]
    fn nothing_is_reported_when_a_found_class_already_rules_the_model_out() {
        let g = graph(2, &[(0, 1, Kind::Ww), (1, 0, Kind::Ww)]);
        assert!(cycle_exists(&g, &[0, 1], &["G0"], None).is_empty());
    }

    #[test]
    fn a_pure_anti_dependency_cycle_is_snapshot_isolation() {
        let g = graph(2, &[(0, 1, Kind::Rw), (1, 0, Kind::Rw)]);
        let cases = cycle_exists(&g, &[0, 1], &[], None);
        let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["PL-3-cycle-exists"], "adjacent rw edges do not break SI");
    }
}
