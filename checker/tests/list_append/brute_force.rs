//! The cycle search against brute force: on thousands of small seeded random graphs, every simple
//! cycle is enumerated and classified, and the search must agree. For each cycle class, in the order
//! the search takes them, skipping classes implied by one already found (as Elle does): if some simple
//! cycle of the class exists, the search reports the class, with a cycle no longer than the shortest
//! simple one (and exactly as long if its cycle is simple); whatever it reports is a closed walk of
//! the graph that classifies as its class. The search may report a closed walk where no simple cycle of
//! the class exists (its module says why); that happens only for G-nonadjacent-item, beside a G0 or G1c
//! in the same component, where Elle would report G2-item instead (the models ruled out are the same).

use std::collections::BTreeSet;

use checker::Kind;
use checker::consistency_model::{implied_anomalies, search_rank};
use checker::cycle_class::{CycleClass, all_classes, classify};
use checker::cycle_search::search_component;
use checker::graph::{DepGraph, EdgeList, TxnId};

/// splitmix64: a seeded generator, so every run checks the same graphs.
struct Seeded(u64);

impl Seeded {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Every simple cycle of `members`, each once, as its vertices starting from its smallest.
fn simple_cycles(graph: &DepGraph, members: &[TxnId]) -> Vec<Vec<TxnId>> {
    fn extend(graph: &DepGraph, members: &[TxnId], path: &mut Vec<TxnId>, out: &mut Vec<Vec<TxnId>>) {
        let last = *path.last().expect("a path has a vertex");
        for (next, _) in graph.successors(last) {
            if next == path[0] {
                out.push(path.clone());
            } else if next > path[0] && members.contains(&next) && !path.contains(&next) {
                path.push(next);
                extend(graph, members, path, out);
                path.pop();
            }
        }
    }
    let mut out = Vec::new();
    for &start in members {
        extend(graph, members, &mut vec![start], &mut out);
    }
    out
}

/// The labels of a closed walk through `vertices` as `class` reads its edges, if it may use them all.
fn labels(graph: &DepGraph, class: &CycleClass, vertices: &[TxnId]) -> Option<Vec<Kind>> {
    (0..vertices.len()).map(|i| class.label(graph.kinds(vertices[i], vertices[(i + 1) % vertices.len()]))).collect()
}

#[test]
fn the_search_finds_every_class_that_has_a_simple_cycle_and_only_real_cycles() {
    let mut rng = Seeded(2024);
    let (mut graphs, mut classes_found, mut walks) = (0, 0, 0);
    for _ in 0..3000 {
        let n = 2 + rng.below(5) as usize;
        let order = [None, Some(Kind::Process), Some(Kind::Realtime)][rng.below(3) as usize];
        let mut kinds = vec![Kind::Ww, Kind::Wr, Kind::Rw];
        kinds.extend(order);
        let mut list = EdgeList::new();
        for _ in 0..rng.below(3 * n as u64 + 1) {
            let (from, to) = (rng.below(n as u64) as TxnId, rng.below(n as u64) as TxnId);
            let kind = kinds[rng.below(kinds.len() as u64) as usize];
            // Process and real-time orders are partial orders: as in a history, they run forward only.
            if matches!(kind, Kind::Process | Kind::Realtime) && from > to {
                list.add(to, from, kind);
            } else {
                list.add(from, to, kind);
            }
        }
        let graph = DepGraph::build(n, list);
        let classes: Vec<CycleClass> =
            all_classes().into_iter().filter(|c| c.variant.is_none() || c.variant == order).collect();
        let mut in_search_order: Vec<&CycleClass> = classes.iter().collect();
        in_search_order.sort_by(|a, b| search_rank(a.name).cmp(&search_rank(b.name)));
        for component in graph.cyclic_components() {
            graphs += 1;
            let found = search_component(&graph, component, &classes);
            for f in &found {
                let class = classes.iter().find(|c| c.name == f.class).expect("a searched class");
                let vertices: Vec<TxnId> = f.steps.iter().map(|s| s.0).collect();
                let walked = labels(&graph, class, &vertices).expect("every step is an edge the class may use");
                let reported: Vec<Kind> = f.steps.iter().map(|s| s.1).collect();
                assert_eq!(walked, reported, "{} {:?}", f.class, f.steps);
                assert_eq!(classify(&reported), f.class, "{:?}", f.steps);
            }
            let cycles = simple_cycles(&graph, component);
            let mut redundant: BTreeSet<&str> = BTreeSet::new();
            for class in &in_search_order {
                if redundant.contains(class.name) {
                    assert!(found.iter().all(|f| f.class != class.name), "{} is implied, yet reported", class.name);
                    continue;
                }
                let shortest = cycles
                    .iter()
                    .filter(|c| labels(&graph, class, c).is_some_and(|l| classify(&l) == class.name))
                    .map(Vec::len)
                    .min();
                let reported = found.iter().find(|f| f.class == class.name);
                match (shortest, reported) {
                    (Some(len), Some(f)) => {
                        let distinct: BTreeSet<TxnId> = f.steps.iter().map(|s| s.0).collect();
                        assert!(f.steps.len() <= len, "{}: {:?} is longer than {len}", class.name, f.steps);
                        if distinct.len() == f.steps.len() {
                            assert_eq!(f.steps.len(), len, "{}: {:?}", class.name, f.steps);
                        }
                    }
                    (Some(len), None) => {
                        panic!("{}: a simple cycle of length {len} exists but none was found in {cycles:?}", class.name)
                    }
                    (None, Some(f)) => {
                        // Only a G-nonadjacent walk can be shortest without being simple: it splits into
                        // a G2-item and a cycle with no anti-dependency, a G0 or G1c that is reported too
                        // and already rules out every model the walk does.
                        let distinct: BTreeSet<TxnId> = f.steps.iter().map(|s| s.0).collect();
                        assert!(distinct.len() < f.steps.len(), "{}: {:?} is simple", class.name, f.steps);
                        assert!(class.name.starts_with("G-nonadjacent-item"), "{}: {:?}", class.name, f.steps);
                        let no_anti = |name: &str| name.starts_with("G0") || name.starts_with("G1c");
                        assert!(found.iter().any(|f| no_anti(f.class)), "{:?}", found);
                        walks += 1;
                    }
                    (None, None) => {}
                }
                if reported.is_some() {
                    classes_found += 1;
                    redundant.extend(implied_anomalies([class.name]));
                }
            }
        }
    }
    eprintln!("{graphs} components, {classes_found} classes found, {walks} of them as closed walks only");
    assert!(graphs > 1000 && classes_found > 1000, "the graphs are cyclic enough to test something");
}
