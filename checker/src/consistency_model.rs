//! The anomaly taxonomy and the consistency-model lattice, as data: which anomaly implies which, which
//! model implies which, and which anomalies each model directly proscribes. It follows Elle's
//! `elle.consistency-model` table for table, whose sources are Adya 1999, Adya, Liskov & O'Neil 2000,
//! Berenson et al. 1995, Bailis et al. 2013 (HATs), Cerone, Bernardi & Gotsman 2015, Cerone & Gotsman
//! 2016, Fekete et al. 2005, Daudjee & Salem 2004/2006 and Kleppmann's Hermitage. The one addition is
//! `garbage-read` (a read of a value no operation wrote), which Elle misses: no isolation level permits
//! it, so read-uncommitted, the weakest model, proscribes it.
//!
//! This module owns names and their relations; it finds nothing in histories.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::LazyLock;

/// Anomaly `a` implies anomalies `b...`: seeing `a` means `b` happened too.
const IMPLIED_ANOMALIES: &[(&str, &[&str])] = &[
    ("G0", &["G1c", "G0-process"]),
    ("G0-process", &["G1c-process", "G0-realtime"]),
    ("G0-realtime", &["G1c-realtime"]),
    ("G1a", &["G1"]),
    ("G1b", &["G1"]),
    ("G1c", &["G1", "G1c-process"]),
    ("G1c-process", &["G1c-realtime", "G1-process"]),
    ("G1c-realtime", &["G1-realtime"]),
    ("G1", &["G1-process"]),
    ("G1-process", &["G1-realtime"]),
    ("G-single-item", &["G-single", "G-single-item-process", "G-nonadjacent-item"]),
    ("G-single-item-process", &["G-single-process", "G-single-item-realtime", "G-nonadjacent-item-process"]),
    ("G-single-item-realtime", &["G-single-realtime", "G-nonadjacent-item-realtime"]),
    ("G-single", &["G-nonadjacent", "GSIb", "G-single-process"]),
    ("G-single-process", &["G-nonadjacent-process", "G-single-realtime"]),
    ("G-single-realtime", &["G-nonadjacent-realtime"]),
    ("G-nonadjacent-item", &["G-nonadjacent", "G2-item", "G-nonadjacent-item-process"]),
    ("G-nonadjacent-item-process", &["G-nonadjacent-process", "G2-item-process", "G-nonadjacent-item-realtime"]),
    ("G-nonadjacent-item-realtime", &["G2-item-realtime", "G-nonadjacent-realtime"]),
    ("G-nonadjacent", &["G2", "G-nonadjacent-process"]),
    ("G-nonadjacent-process", &["G2-process", "G-nonadjacent-realtime"]),
    ("G-nonadjacent-realtime", &["G2-realtime"]),
    ("G2", &["G2-process"]),
    ("G2-item", &["G2", "G2-item-process"]),
    ("G2-item-process", &["G2-process", "G2-item-realtime"]),
    ("G2-item-realtime", &["G2-realtime"]),
    ("G2-process", &["G2-realtime"]),
    ("GSIa", &["GSI"]),
    ("GSIb", &["GSI"]),
    ("incompatible-order", &["G1a"]),
    ("future-read", &["G1c"]),
    ("dirty-update", &["G1a"]),
    ("lost-update", &["write-skew", "G2-item"]),
    ("write-skew", &["G2"]),
    // Final reads (`final_reads`): a read that began after an acknowledged write and misses it follows
    // the writer in real time, yet an anti-dependency leads back to the writer.
    ("lost", &["G-single-item-realtime"]),
    ("stale", &["G-single-item-realtime"]),
    // The exact decisions (`exact`): no order of a history's writes satisfying a model means none
    // satisfies any stronger model either.
    ("no-snapshot-isolation-order", &["no-serializable-order", "no-strong-session-snapshot-isolation-order"]),
    ("no-serializable-order", &["no-strong-session-serializable-order"]),
    (
        "no-strong-session-snapshot-isolation-order",
        &["no-strong-session-serializable-order", "no-strong-snapshot-isolation-order"],
    ),
    ("no-strong-session-serializable-order", &["no-strict-serializable-order"]),
    ("no-strong-snapshot-isolation-order", &["no-strict-serializable-order"]),
    // Plume's patterns (see `weak_levels`) that are also anomalies Elle names.
    ("thin-air-read", &["garbage-read"]),
    ("aborted-read", &["G1a"]),
    ("intermediate-read", &["G1b"]),
    ("not-my-own-write", &["internal"]),
    ("not-my-last-write", &["internal"]),
    ("non-repeatable-read", &["internal"]),
    ("cyclic-causal-order", &["G1c-process"]),
];

/// Not implication but severity: `a` is usually worse than `b`, so it is searched for first.
const ANOMALY_SEVERITY: &[(&str, &[&str])] = &[
    ("G0", &["G1c"]),
    ("G0-process", &["G1c-process"]),
    ("G0-realtime", &["G1c-realtime"]),
    ("G1c", &["G-single", "G2-item"]),
    ("G1c-process", &["G-single-process", "G2-item-process"]),
    ("G1c-realtime", &["G-single-realtime", "G2-item-realtime"]),
    ("G2", &["G0-process"]),
    ("G2-process", &["G0-realtime"]),
];

/// Friendly model names and the canonical names (Adya's, mostly) they stand for.
const CANONICAL_MODEL_NAMES: &[(&str, &str)] = &[
    ("consistent-view", "PL-2+"),
    ("conflict-serializable", "PL-3"),
    ("cursor-stability", "PL-CS"),
    ("forward-consistent-view", "PL-FCV"),
    ("monotonic-snapshot-read", "PL-MSR"),
    ("monotonic-view", "PL-2L"),
    ("read-committed", "PL-2"),
    ("read-uncommitted", "PL-1"),
    ("repeatable-read", "PL-2.99"),
    ("serializable", "PL-3"),
    ("snapshot-isolation", "PL-SI"),
    ("strict-serializable", "PL-SS"),
    ("strong-serializable", "PL-SS"),
    ("update-serializable", "PL-3U"),
    ("strong-session-read-uncommitted", "strong-session-PL-1"),
    ("strong-session-read-committed", "strong-session-PL-2"),
    ("strong-read-uncommitted", "strong-PL-1"),
    ("strong-read-committed", "strong-PL-2"),
];

/// Model `a` implies models `b...`: a history satisfying `a` satisfies each `b`. Names may be friendly;
/// they are canonicalised when the lattice is built.
const MODELS: &[(&str, &[&str])] = &[
    ("causal-cerone", &["read-atomic"]),
    ("consistent-view", &["cursor-stability", "monotonic-view"]),
    ("conflict-serializable", &["view-serializable"]),
    ("cursor-stability", &["read-committed", "PL-2"]),
    ("forward-consistent-view", &["consistent-view"]),
    ("PL-2", &["PL-1"]),
    ("PL-3", &["repeatable-read", "update-serializable"]),
    ("update-serializable", &["forward-consistent-view"]),
    ("monotonic-atomic-view", &["read-committed"]),
    ("monotonic-view", &["PL-2"]),
    ("monotonic-snapshot-read", &["PL-2"]),
    ("parallel-snapshot-isolation", &["causal-cerone", "ROLA"]),
    // Biswas & Enea's read committed: its commit order contains session order, write-read and (as a
    // version order) write-write, so it rules out G1c with process edges; read atomic adds to its axiom.
    ("read-committed-cerone", &["strong-session-read-committed"]),
    ("prefix", &["causal-cerone"]),
    ("read-atomic", &["monotonic-atomic-view", "read-committed-cerone"]),
    ("read-committed", &["read-uncommitted"]),
    ("repeatable-read", &["cursor-stability", "monotonic-atomic-view"]),
    ("ROLA", &["read-atomic"]),
    ("serializable", &["repeatable-read", "snapshot-isolation", "view-serializable"]),
    ("session-serializable", &["1SR"]),
    // Cerone's models (parallel snapshot isolation, prefix, causal, read atomic) include session order,
    // which Adya's snapshot isolation does not: strong-session snapshot isolation implies them (Elle has
    // snapshot isolation imply them, which would let a session violation rule out snapshot isolation).
    ("snapshot-isolation", &["forward-consistent-view", "monotonic-atomic-view", "monotonic-snapshot-read"]),
    (
        "strict-serializable",
        &[
            "PL-3",
            "serializable",
            "linearizable",
            "snapshot-isolation",
            "strong-snapshot-isolation",
            "strong-session-serializable",
        ],
    ),
    ("strong-session-PL-1", &["PL-1"]),
    ("strong-session-PL-2", &["PL-2", "strong-session-PL-1"]),
    ("strong-PL-1", &["strong-session-PL-1"]),
    ("strong-PL-2", &["strong-session-PL-2", "strong-PL-1"]),
    ("strong-session-serializable", &["serializable", "strong-session-snapshot-isolation"]),
    (
        "strong-session-snapshot-isolation",
        &["snapshot-isolation", "strong-session-PL-2", "parallel-snapshot-isolation", "prefix"],
    ),
    ("strong-serializable", &["session-serializable"]),
    ("strong-snapshot-isolation", &["strong-session-snapshot-isolation", "strong-PL-2"]),
    ("linearizable", &["sequential"]),
    ("sequential", &["causal"]),
    ("causal", &["writes-follow-reads", "PRAM"]),
    ("PRAM", &["monotonic-reads", "monotonic-writes", "read-your-writes"]),
];

/// The anomalies each model proscribes directly (beyond those of the models it implies).
const DIRECT_PROSCRIBED: &[(&str, &[&str])] = &[
    ("causal-cerone", &["internal", "G1a", "causal-conflict-arbitration", "conflict-arbitration"]),
    ("cursor-stability", &["G1", "G-cursor", "lost-update"]),
    ("monotonic-view", &["G1", "G-monotonic"]),
    ("monotonic-snapshot-read", &["G1", "G-MSR"]),
    ("consistent-view", &["G1", "G-single"]),
    ("forward-consistent-view", &["G1", "G-SIb"]),
    ("parallel-snapshot-isolation", &["internal", "G1a"]),
    ("PL-3", &["G1", "G2", "predicate-read-miss", "PL-3-cycle-exists"]),
    ("PL-2", &["G1", "PL-2-cycle-exists"]),
    ("PL-1", &["G0", "duplicate-elements", "cyclic-versions", "PL-1-cycle-exists", "garbage-read"]),
    ("prefix", &["internal", "G1a"]),
    ("serializable", &["internal", "no-serializable-order"]),
    (
        "snapshot-isolation",
        &["internal", "G1", "G-SI", "G-nonadjacent", "PL-SI-cycle-exists", "no-snapshot-isolation-order"],
    ),
    (
        "read-atomic",
        &[
            "internal",
            "G1a",
            "future-read",
            "non-repeatable-read",
            "fractured-read-causal",
            "fractured-read-arbitration",
        ],
    ),
    (
        "read-committed-cerone",
        &[
            "thin-air-read",
            "aborted-read",
            "future-read",
            "not-my-own-write",
            "not-my-last-write",
            "intermediate-read",
            "cyclic-causal-order",
            "non-monotonic-read-causal",
            "non-monotonic-read-arbitration",
        ],
    ),
    ("repeatable-read", &["G1", "G2-item", "PL-2.99-cycle-exists", "lost-update"]),
    ("ROLA", &["lost-update"]),
    (
        "strict-serializable",
        &["G1", "G1c-realtime", "G2-realtime", "PL-SS-cycle-exists", "no-strict-serializable-order"],
    ),
    ("strong-session-PL-1", &["strong-session-PL-1-cycle-exists", "G0-process"]),
    ("strong-session-PL-2", &["strong-session-PL-2-cycle-exists", "G1c-process"]),
    ("strong-PL-1", &["strong-PL-1-cycle-exists", "G0-realtime"]),
    ("strong-PL-2", &["strong-PL-2-cycle-exists", "G1c-realtime"]),
    (
        "strong-session-snapshot-isolation",
        &[
            "internal",
            "G1-process",
            "G-nonadjacent-process",
            "strong-session-snapshot-isolation-cycle-exists",
            "no-strong-session-snapshot-isolation-order",
        ],
    ),
    (
        "strong-snapshot-isolation",
        &[
            "internal",
            "G1-realtime",
            "G-nonadjacent-realtime",
            "strong-snapshot-isolation-cycle-exists",
            "no-strong-snapshot-isolation-order",
        ],
    ),
    (
        "strong-session-serializable",
        &[
            "G1-process",
            "G2-process",
            "strong-session-serializable-cycle-exists",
            "no-strong-session-serializable-order",
        ],
    ),
    ("update-serializable", &["G1", "G-update"]),
];

/// Anomalies that make a verdict unknown rather than invalid.
pub const UNKNOWN_ANOMALIES: &[&str] = &["empty-transaction-graph", "cycle-search-timeout", "solver-timeout"];

/// A directed graph over names, as adjacency both ways.
#[derive(Default)]
struct NameGraph {
    out: BTreeMap<&'static str, BTreeSet<&'static str>>,
    inn: BTreeMap<&'static str, BTreeSet<&'static str>>,
}

impl NameGraph {
    fn from_table(
        table: &[(&'static str, &'static [&'static str])],
        rename: impl Fn(&'static str) -> &'static str,
    ) -> Self {
        let mut g = NameGraph::default();
        for &(a, bs) in table {
            for &b in bs {
                g.link(rename(a), rename(b));
            }
        }
        g
    }

    fn link(&mut self, a: &'static str, b: &'static str) {
        self.out.entry(a).or_default().insert(b);
        self.inn.entry(b).or_default().insert(a);
        self.out.entry(b).or_default();
        self.inn.entry(a).or_default();
    }

    fn vertices(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.out.keys().copied()
    }

    /// Everything reachable from `start` (including `start`), following `out` or `in` edges.
    fn reach(&self, start: impl IntoIterator<Item = &'static str>, forward: bool) -> BTreeSet<&'static str> {
        let edges = if forward { &self.out } else { &self.inn };
        let mut seen: BTreeSet<&'static str> = BTreeSet::new();
        let mut queue: VecDeque<&'static str> = start.into_iter().collect();
        while let Some(v) = queue.pop_front() {
            if seen.insert(v) {
                queue.extend(edges.get(v).into_iter().flatten().copied());
            }
        }
        seen
    }

    /// Longest-path depth of each vertex from the roots: a topological rank.
    fn depths(&self) -> BTreeMap<&'static str, usize> {
        let mut indegree: BTreeMap<&'static str, usize> = self.inn.iter().map(|(v, ins)| (*v, ins.len())).collect();
        let mut depth: BTreeMap<&'static str, usize> = BTreeMap::new();
        let mut ready: VecDeque<&'static str> = indegree.iter().filter(|(_, d)| **d == 0).map(|(v, _)| *v).collect();
        while let Some(v) = ready.pop_front() {
            let d = *depth.entry(v).or_insert(0);
            for &w in &self.out[v] {
                let e = depth.entry(w).or_insert(0);
                *e = (*e).max(d + 1);
                let n = indegree.get_mut(w).expect("every vertex has an indegree");
                *n -= 1;
                if *n == 0 {
                    ready.push_back(w);
                }
            }
        }
        depth
    }
}

/// The lattice, built once from the tables.
struct Lattice {
    implied: NameGraph,
    models: NameGraph,
    proscribed: NameGraph,
    depth: BTreeMap<&'static str, usize>,
}

fn canonical(model: &'static str) -> &'static str {
    CANONICAL_MODEL_NAMES.iter().find(|(friendly, _)| *friendly == model).map_or(model, |(_, canonical)| canonical)
}

static LATTICE: LazyLock<Lattice> = LazyLock::new(|| {
    let implied = NameGraph::from_table(IMPLIED_ANOMALIES, |a| a);
    let mut severity = NameGraph::from_table(IMPLIED_ANOMALIES, |a| a);
    for &(a, bs) in ANOMALY_SEVERITY {
        for &b in bs {
            severity.link(a, b);
        }
    }
    let models = NameGraph::from_table(MODELS, canonical);
    let proscribed = NameGraph::from_table(DIRECT_PROSCRIBED, canonical);
    let mut depth = severity.depths();
    for (model, anomalies) in &proscribed.out {
        if models.out.contains_key(model) || CANONICAL_MODEL_NAMES.iter().any(|(_, c)| c == model) {
            for a in anomalies {
                depth.entry(a).or_insert(0);
            }
        }
    }
    Lattice { implied, models, proscribed, depth }
});

/// The friendly name of a model: `PL-3` is `serializable`, `PL-SS` `strict-serializable`.
pub fn friendly_model_name(model: &str) -> &str {
    match model {
        "PL-3" => "serializable",
        "PL-SS" => "strict-serializable",
        _ => CANONICAL_MODEL_NAMES.iter().find(|(_, c)| *c == model).map_or(model, |(friendly, _)| friendly),
    }
}

/// The canonical name of a model, if it is one Elle knows.
pub fn canonical_model_name(model: &str) -> Option<&'static str> {
    let name = ALL_MODELS.get(model)?;
    Some(canonical(name))
}

/// Every model name, made once: a check looks names up several times.
static ALL_MODELS: LazyLock<BTreeSet<&'static str>> = LazyLock::new(|| {
    let mut all: BTreeSet<&'static str> = LATTICE.models.vertices().collect();
    for (friendly, canonical) in CANONICAL_MODEL_NAMES {
        all.insert(friendly);
        all.insert(canonical);
    }
    all
});

/// Every model name, friendly and canonical.
pub fn all_models() -> BTreeSet<&'static str> {
    ALL_MODELS.clone()
}

/// Every anomaly name the lattice knows.
pub fn all_anomalies() -> BTreeSet<&'static str> {
    let mut all: BTreeSet<&'static str> = LATTICE.depth.keys().copied().collect();
    all.extend(UNKNOWN_ANOMALIES);
    all
}

/// The anomaly name as the lattice spells it, if it knows it.
pub fn anomaly_name(name: &str) -> Option<&'static str> {
    all_anomalies().into_iter().find(|a| *a == name)
}

/// Anomalies that would imply any of these (including these): what to look for when asked for them.
pub fn anomalies_implying<'a>(anomalies: impl IntoIterator<Item = &'a str>) -> BTreeSet<&'static str> {
    LATTICE.implied.reach(anomalies.into_iter().filter_map(anomaly_name), false)
}

/// Anomalies implied by these (including these).
pub fn implied_anomalies<'a>(anomalies: impl IntoIterator<Item = &'a str>) -> BTreeSet<&'static str> {
    LATTICE.implied.reach(anomalies.into_iter().filter_map(anomaly_name), true)
}

/// Anomalies that cannot occur if all these models hold.
pub fn anomalies_prohibited_by<'a>(models: impl IntoIterator<Item = &'a str>) -> BTreeSet<&'static str> {
    let models = LATTICE.models.reach(models.into_iter().filter_map(canonical_model_name), true);
    let direct: Vec<&'static str> =
        models.iter().flat_map(|m| LATTICE.proscribed.out.get(m).into_iter().flatten().copied()).collect();
    LATTICE.implied.reach(direct, false)
}

/// Models (canonical names) that cannot hold when these anomalies are present.
pub fn impossible_models<'a>(anomalies: impl IntoIterator<Item = &'a str>) -> BTreeSet<&'static str> {
    let implied = implied_anomalies(anomalies);
    let direct: Vec<&'static str> =
        implied.iter().flat_map(|a| LATTICE.proscribed.inn.get(a).into_iter().flatten().copied()).collect();
    LATTICE.models.reach(direct, false)
}

/// The models these anomalies rule out, split as Elle's `friendly-boundary`: `not`, the weakest ruled
/// out, and `also_not`, the stronger rest; both with friendly names, sorted.
pub fn boundary<'a>(anomalies: impl IntoIterator<Item = &'a str>) -> (Vec<String>, Vec<String>) {
    let impossible = impossible_models(anomalies);
    let weakest: BTreeSet<&'static str> = impossible
        .iter()
        .copied()
        .filter(|m| {
            !LATTICE.models.reach([*m], true).iter().any(|implied| implied != m && impossible.contains(implied))
        })
        .collect();
    let friendly = |set: &BTreeSet<&'static str>| -> Vec<String> {
        set.iter().map(|m| friendly_model_name(m).to_string()).collect::<BTreeSet<_>>().into_iter().collect()
    };
    let rest: BTreeSet<&'static str> = impossible.difference(&weakest).copied().collect();
    (friendly(&weakest), friendly(&rest))
}

/// The order in which to search for anomalies: by depth in the implication and severity graphs, so an
/// anomaly comes before every anomaly it implies, then by name.
pub fn search_rank(anomaly: &str) -> (usize, &str) {
    (LATTICE.depth.get(anomaly).copied().unwrap_or(usize::MAX), anomaly)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(set: BTreeSet<&'static str>) -> Vec<&'static str> {
        set.into_iter().collect()
    }

    #[test]
    fn the_anomaly_and_model_graphs_are_acyclic() {
        for graph in [&LATTICE.implied, &LATTICE.models] {
            let depths = graph.depths();
            assert_eq!(depths.len(), graph.out.len(), "every vertex gets a depth only if the graph is acyclic");
        }
    }

    #[test]
    fn every_name_in_a_table_is_reachable_by_its_proper_name() {
        for (model, anomalies) in DIRECT_PROSCRIBED {
            assert!(canonical_model_name(model).is_some(), "{model}");
            for a in *anomalies {
                assert!(anomaly_name(a).is_some(), "{a}");
            }
        }
    }

    #[test]
    fn g2_item_rules_out_repeatable_read_and_stronger_but_not_snapshot_isolation() {
        let (not, also_not) = boundary(["G2-item"]);
        assert_eq!(not, vec!["repeatable-read"]);
        for stronger in ["serializable", "strict-serializable", "strong-session-serializable"] {
            assert!(also_not.contains(&stronger.to_string()), "{stronger} in {also_not:?}");
        }
        assert!(!also_not.contains(&"snapshot-isolation".to_string()), "SI permits G2-item");
    }

    #[test]
    fn each_cycle_class_rules_out_exactly_the_models_elle_names() {
        let cases: &[(&str, &[&str])] = &[
            ("G0", &["read-uncommitted"]),
            ("G1a", &["read-committed"]),
            ("G1c", &["read-committed"]),
            ("G-single-item", &["consistent-view", "repeatable-read"]),
            ("G-nonadjacent-item", &["repeatable-read", "snapshot-isolation"]),
            ("G2-item", &["repeatable-read"]),
            ("G2", &["serializable"]),
            ("lost-update", &["ROLA", "cursor-stability"]),
            // Snapshot isolation (Adya's, without sessions) no longer implies Cerone's read atomic.
            ("internal", &["read-atomic", "snapshot-isolation"]),
            ("G1c-realtime", &["strong-read-committed"]),
            ("G2-item-realtime", &["strict-serializable"]),
            ("G-single-item-process", &["strong-session-snapshot-isolation"]),
            ("G0-process", &["strong-session-read-uncommitted"]),
            ("garbage-read", &["read-uncommitted"]),
        ];
        for (anomaly, expected) in cases {
            let (not, _) = boundary([*anomaly]);
            assert_eq!(not, expected.to_vec(), "{anomaly}");
        }
    }

    #[test]
    fn strict_serializable_prohibits_every_cycle_class_and_read_committed_only_g0_and_g1() {
        let strict = anomalies_prohibited_by(["strict-serializable"]);
        for a in [
            "G0",
            "G1a",
            "G1b",
            "G1c",
            "G-single-item",
            "G2-item",
            "G2-item-realtime",
            "G-single-realtime",
            "lost-update",
        ] {
            assert!(strict.contains(a), "{a}");
        }
        let rc = names(anomalies_prohibited_by(["read-committed"]));
        assert!(rc.contains(&"G1c") && rc.contains(&"G0") && rc.contains(&"dirty-update"));
        assert!(!rc.contains(&"G2-item") && !rc.contains(&"G-single-item") && !rc.contains(&"G1c-realtime"));
        let si = anomalies_prohibited_by(["snapshot-isolation"]);
        assert!(si.contains("G-single-item") && si.contains("G-nonadjacent-item") && !si.contains("G2-item"));
    }

    #[test]
    fn umbrella_classes_expand_to_what_implies_them() {
        let g2 = anomalies_implying(["G2"]);
        for a in ["G2-item", "G-single-item", "G-nonadjacent", "lost-update", "write-skew"] {
            assert!(g2.contains(a), "{a}");
        }
        assert!(!g2.contains("G1c"));
    }

    #[test]
    fn search_order_puts_each_anomaly_before_what_it_implies() {
        for (a, bs) in IMPLIED_ANOMALIES {
            for b in *bs {
                assert!(search_rank(a) < search_rank(b), "{a} before {b}");
            }
        }
    }

    #[test]
    fn the_weak_levels_sit_below_strong_session_snapshot_isolation_and_above_read_committed() {
        let (not, also_not) = boundary(["fractured-read-causal"]);
        assert_eq!(not, vec!["read-atomic"]);
        for stronger in ["causal-cerone", "strong-session-snapshot-isolation", "strict-serializable"] {
            assert!(also_not.contains(&stronger.to_string()), "{stronger} in {also_not:?}");
        }
        // Adya's levels have no sessions: a session's violation does not rule them out.
        for adya in ["snapshot-isolation", "serializable", "read-committed", "read-committed-cerone"] {
            assert!(!also_not.contains(&adya.to_string()), "{adya} in {also_not:?}");
        }
        assert_eq!(boundary(["non-monotonic-read-causal"]).0, vec!["read-committed-cerone"]);
        assert_eq!(boundary(["conflict-arbitration"]).0, vec!["causal-cerone"]);
        // Biswas & Enea's read committed implies Adya's PL-2, with session order.
        let rc = anomalies_prohibited_by(["read-committed-cerone"]);
        assert!(rc.contains("G1c-process") && rc.contains("G1a") && !rc.contains("fractured-read-causal"));
        assert!(!anomalies_prohibited_by(["read-committed"]).contains("non-monotonic-read-causal"));
        assert_eq!(boundary(["aborted-read"]).0, vec!["read-committed"]);
    }

    #[test]
    fn model_names_canonicalise_both_ways() {
        assert_eq!(canonical_model_name("serializable"), Some("PL-3"));
        assert_eq!(canonical_model_name("repeatable-read"), Some("PL-2.99"));
        assert_eq!(canonical_model_name("no-such-model"), None);
        assert_eq!(friendly_model_name("PL-SI"), "snapshot-isolation");
        assert_eq!(friendly_model_name("PL-3"), "serializable");
    }
}
