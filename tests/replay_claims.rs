//! The replay scheduler's claims, checked on generated cycles (proptest): wherever a replay says its
//! steps force a cycle at a level, the level permits the cycle's class and the engine, running the steps
//! at that level, shows the anomaly (and at serializable refuses it); wherever it says they cannot, it
//! names the edge. The cycles are generated, never taken from a concurrent run, and each replay runs its
//! steps one at a time, so nothing here depends on timing.

use adapters::{EngineSystem, Level};
use checker::{Cycle, Kind, Step, TxnView};
use generators::hermitage::{CLAIM_LEVELS, Scenario};
use histories::{Key, Mop, Observed, OpType};
use isocheck::hermitage::{step_runner, verdict};
use proptest::prelude::*;
use replay::{Unreproducible, reproduction};

/// One edge of a generated cycle: its kind and key; it runs from transaction `i` to `i + 1`.
#[derive(Debug, Clone)]
struct EdgeSpec {
    kind: Kind,
    key: i64,
}

/// A generated cycle: its edges, and extra reads (transaction, position, key) and extra trailing
/// writes (transaction, key) that no edge needs.
#[derive(Debug, Clone)]
struct CycleSpec {
    edges: Vec<EdgeSpec>,
    extra_reads: Vec<(usize, usize, i64)>,
    extra_writes: Vec<(usize, i64)>,
}

fn specs() -> impl Strategy<Value = CycleSpec> {
    let edge = (prop_oneof![Just(Kind::Ww), Just(Kind::Wr), Just(Kind::Rw)], 1..=3i64)
        .prop_map(|(kind, key)| EdgeSpec { kind, key });
    (prop::collection::vec(edge, 2..=4), prop::collection::vec((0..4usize, 0..6usize, 1..=3i64), 0..3))
        .prop_flat_map(|(edges, extra_reads)| {
            let n = edges.len();
            (Just(edges), Just(extra_reads), prop::collection::vec((0..n, 1..=3i64), 0..2))
        })
        .prop_map(|(edges, extra_reads, extra_writes)| CycleSpec { edges, extra_reads, extra_writes })
}

/// The cycle: each transaction reads what its edges need it to read, then writes what they need it
/// to write (so every edge's read comes before the reader's own write of the key).
fn cycle(spec: &CycleSpec) -> Cycle {
    let n = spec.edges.len();
    let mut reads: Vec<Vec<i64>> = vec![Vec::new(); n];
    let mut writes: Vec<Vec<i64>> = vec![Vec::new(); n];
    for (i, e) in spec.edges.iter().enumerate() {
        let (from, to) = (i, (i + 1) % n);
        match e.kind {
            Kind::Ww => {
                writes[from].push(e.key);
                writes[to].push(e.key);
            }
            Kind::Wr => {
                writes[from].push(e.key);
                reads[to].push(e.key);
            }
            _ => {
                reads[from].push(e.key);
                writes[to].push(e.key);
            }
        }
    }
    for &(t, key) in &spec.extra_writes {
        writes[t % n].push(key);
    }
    let mut value = 0;
    let ops: Vec<TxnView> = (0..n)
        .map(|t| {
            let mut mops: Vec<Mop> =
                reads[t].iter().map(|&k| Mop::Read { key: Key::Int(k), value: Observed::Nil }).collect();
            for &(at, pos, key) in spec.extra_reads.iter().filter(|(at, _, _)| at % n == t) {
                let _ = at;
                mops.insert(pos.min(mops.len()), Mop::Read { key: Key::Int(key), value: Observed::Nil });
            }
            for &k in &writes[t] {
                value += 1;
                mops.push(Mop::Write { key: Key::Int(k), value, version: None });
            }
            let index = t as u64 + 1;
            TxnView {
                index,
                invoke_index: index,
                process: index.to_string(),
                outcome: OpType::Ok,
                value: mops,
                init_rows: None,
                invoke_time: None,
                complete_time: None,
                error: None,
            }
        })
        .collect();
    let steps = spec
        .edges
        .iter()
        .enumerate()
        .map(|(i, e)| Step {
            kind: e.kind,
            key: Some(Key::Int(e.key)),
            from: i as u64 + 1,
            to: ((i + 1) % n) as u64 + 1,
            explanation: String::new(),
        })
        .collect();
    Cycle {
        cycle: ops.iter().map(|o| o.index).collect(),
        steps,
        explanation: String::new(),
        ops,
        facts: Default::default(),
        shape: None,
    }
}

/// The replay's outcome on a fresh engine at `level`.
fn outcome(scenario: &Scenario, level: Level, name: &str) -> verdict::CellVerdict {
    let system = EngineSystem::new(None);
    let execution = step_runner::execute(&system, level, scenario).expect("the engine runs the replay");
    verdict::cell("engine", name, level, scenario, &execution).expect("the checker judges it").outcome
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_replay_that_claims_to_force_a_cycle_reproduces_it_and_one_that_cannot_names_the_edge(spec in specs()) {
        let cycle = cycle(&spec);
        let kinds: Vec<Kind> = cycle.steps.iter().map(|s| s.kind).collect();
        let class = checker::cycle_class::classify(&kinds);
        let scenario = match reproduction(&class, 1, &cycle) {
            Ok(scenario) => scenario,
            Err(Unreproducible::NoSchedule { why, .. }) => {
                prop_assert!(why.contains(" → T"), "{class}: no schedule, and no edge named: {why}");
                return Ok(());
            }
            Err(other) => return Err(TestCaseError::fail(format!("{class}: {other}"))),
        };
        for name in CLAIM_LEVELS {
            let level: Level = name.parse().expect("a claim level is a level");
            if scenario.forces.iter().any(|l| l == name) {
                let prohibited = checker::consistency_model::anomalies_prohibited_by([name]);
                prop_assert!(!prohibited.contains(class.as_str()), "claims to force {} at {}, which prohibits it", class, name);
                prop_assert_eq!(outcome(&scenario, level, name), verdict::CellVerdict::Anomaly, "{} at {}:\n{}", class, name, scenario);
                if level == Level::SnapshotIsolation {
                    prop_assert_eq!(outcome(&scenario, Level::Serializable, "serializable"), verdict::CellVerdict::Prevented, "{}:\n{}", class, scenario);
                }
            } else {
                let why = scenario.cannot_force.get(name).map(String::as_str).unwrap_or_default();
                prop_assert!(why.contains(" → T") || why.contains("leaving out any one edge"), "{} at {}: {:?}", class, name, why);
            }
        }
    }
}
