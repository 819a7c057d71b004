//! Exact verdicts for the models that a total order of transactions defines, when inference leaves
//! write orders open: serializable, strict-serializable and strong-session-serializable (no cycle of
//! dependencies, with nothing, real time or each process's order added), snapshot-isolation,
//! strong-snapshot-isolation and strong-session-snapshot-isolation (no cycle without two adjacent
//! anti-dependencies, Cerone & Gotsman, PODC 2016, with the same additions). Inference runs first and
//! explains what it finds in Elle's words; where it has already ruled a model out, nothing more is
//! decided for it. Otherwise the history's [`Polygraph`] is decided by [`polygraph_solver`]: a model
//! holds exactly when some order of each key's writes leaves no cycle it forbids.
//!
//! Each model the options prohibit gets one of three outcomes. Refuted: the anomaly `no-<model>-order`,
//! one entry per case of the refutation, each the cycle its supposed write orders close, explained edge
//! by edge. Decided consistent: a [`Witness`], the transactions in an order under which every key's
//! writes are ranked and the history is checked valid by the ordinary checker without any solver
//! (`check --transaction-order`). Undecided in the budget: `solver-timeout`, which makes the verdict
//! unknown, never valid. Models are decided from the strongest down: a model that holds implies those it
//! implies, and a model refuted is reported only where no weaker one asked for is refuted too.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use histories::Key;
use serde_json::json;

use crate::consistency_model::{UNKNOWN_ANOMALIES, canonical_model_name, impossible_models};
use crate::cycle_class::classify;
use crate::cycle_shape::shape_of;
use crate::explain::{DataExplainer, case, cycle_text, txn_view};
use crate::graph::{EdgeList, TxnId};
use crate::item::KeyId;
use crate::kind::Kind;
use crate::orders;
use crate::polygraph::{KeyWrites, KnownEdge, Polygraph};
use crate::polygraph_solver::{self, CycleEdge, CycleRule, Decision, Progress, Refutation};
use crate::result::{Anomaly, Cycle, Step, Witness};
use crate::txn::Txns;

/// A model an exact decision covers: its name, the anomaly that refutes it, the cycles it forbids and
/// the order it adds to the dependencies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ExactModel {
    pub model: &'static str,
    pub anomaly: &'static str,
    rule: CycleRule,
    order: Option<Kind>,
}

/// Every model decided exactly, strongest first (a model implies every later one it is comparable to).
pub(crate) const EXACT_MODELS: [ExactModel; 6] = [
    ExactModel {
        model: "strict-serializable",
        anomaly: "no-strict-serializable-order",
        rule: CycleRule::Any,
        order: Some(Kind::Realtime),
    },
    ExactModel {
        model: "strong-session-serializable",
        anomaly: "no-strong-session-serializable-order",
        rule: CycleRule::Any,
        order: Some(Kind::Process),
    },
    ExactModel {
        model: "strong-snapshot-isolation",
        anomaly: "no-strong-snapshot-isolation-order",
        rule: CycleRule::NonAdjacentRw,
        order: Some(Kind::Realtime),
    },
    ExactModel { model: "serializable", anomaly: "no-serializable-order", rule: CycleRule::Any, order: None },
    ExactModel {
        model: "strong-session-snapshot-isolation",
        anomaly: "no-strong-session-snapshot-isolation-order",
        rule: CycleRule::NonAdjacentRw,
        order: Some(Kind::Process),
    },
    ExactModel {
        model: "snapshot-isolation",
        anomaly: "no-snapshot-isolation-order",
        rule: CycleRule::NonAdjacentRw,
        order: None,
    },
];

/// The anomaly that makes a verdict unknown when the solver's budget runs out.
pub(crate) const SOLVER_TIMEOUT: &str = "solver-timeout";

impl ExactModel {
    /// Whether a history satisfying this model satisfies `other`.
    fn implies(&self, other: &ExactModel) -> bool {
        let rule = self.rule == CycleRule::Any || other.rule == CycleRule::NonAdjacentRw;
        let rank = |o: Option<Kind>| match o {
            None => 0,
            Some(Kind::Process) => 1,
            _ => 2,
        };
        rule && rank(self.order) >= rank(other.order)
    }

    /// Its name, with what it adds in words.
    fn described(&self) -> String {
        match self.order {
            None => self.model.to_string(),
            Some(Kind::Process) => format!("{} (each process's order included)", self.model),
            Some(_) => format!("{} (real-time order included)", self.model),
        }
    }
}

/// The model an exact decision's anomaly (`no-<model>-order`) refutes, if `name` is one.
pub(crate) fn refuted_model(name: &str) -> Option<&'static ExactModel> {
    EXACT_MODELS.iter().find(|m| m.anomaly == name)
}

/// The model a `solver-timeout` anomaly could not decide.
pub(crate) fn undecided_model(anomaly: &Anomaly) -> Option<&'static ExactModel> {
    match anomaly {
        Anomaly::Case(case) => {
            let model = case.facts.get("model").and_then(serde_json::Value::as_str)?;
            EXACT_MODELS.iter().find(|m| m.model == model)
        }
        Anomaly::Cycle(_) => None,
    }
}

/// Adds to `found`, the inferred anomalies of a verdict assembled from parts of a history (the online
/// checker's settled anomalies and its last check), the exact decision's part as the check of the whole
/// history reports it, given each part's `refutations` (by anomaly name, one part's each) and timeouts
/// (by model): only for the models asked for (`prohibited`) that the inferred anomalies leave open (the
/// whole check decides only those); of the models refuted, only those no weaker one refuted asked for
/// is refuted beside (as [`decide`] reports them); and a model's timeout only where no refutation
/// decides it. One refutation a model, as the whole check gives one.
pub(crate) fn as_the_whole_reports(
    found: &mut BTreeMap<String, Vec<Anomaly>>,
    refutations: &BTreeMap<String, Vec<Anomaly>>,
    timeouts: &BTreeMap<String, Anomaly>,
    prohibited: &BTreeSet<&'static str>,
) {
    let inferred = found.keys().map(String::as_str).filter(|n| !UNKNOWN_ANOMALIES.contains(n));
    let ruled_out = impossible_models(inferred);
    let open: Vec<&ExactModel> = EXACT_MODELS
        .iter()
        .filter(|m| prohibited.contains(m.anomaly))
        .filter(|m| canonical_model_name(m.model).is_none_or(|c| !ruled_out.contains(c)))
        .collect();
    let refuted: Vec<&ExactModel> = open.iter().copied().filter(|m| refutations.contains_key(m.anomaly)).collect();
    for m in &refuted {
        if !refuted.iter().any(|w| w != m && m.implies(w)) {
            found.insert(m.anomaly.to_string(), refutations[m.anomaly].clone());
        }
    }
    for m in &open {
        if let Some(timeout) = timeouts.get(m.model)
            && !refuted.iter().any(|r| m.implies(r))
        {
            found.entry(SOLVER_TIMEOUT.to_string()).or_default().push(timeout.clone());
        }
    }
}

/// What an exact decision needs of a workload's analysis.
pub(crate) trait ExactSource {
    /// Each key's writes that took effect, with their readers and the pairs inference ranks.
    fn key_writes(&self, txns: &Txns<'_>) -> Vec<KeyWrites>;
    /// The data dependencies inference proves.
    fn dependencies(&self, txns: &Txns<'_>) -> EdgeList;
    /// A key's name.
    fn key_name(&self, k: KeyId) -> Key;
    /// Which transactions took effect, as far as their writes show: those with a write in `key_writes`
    /// (a write there took effect).
    fn in_effect(&self, txns: &Txns<'_>, key_writes: &[KeyWrites]) -> Vec<bool> {
        let mut in_effect = vec![false; txns.len()];
        for key in key_writes {
            for &(t, _, _) in &key.writes {
                in_effect[t as usize] = true;
            }
        }
        in_effect
    }
    /// A write in words, for the explanation of a supposed order: `writer`'s write of `value` to `key`.
    fn write_text(&self, writer: &str, key: &Key, value: i64) -> String {
        format!("{writer}'s write of key {key} = {value}")
    }
}

/// What the exact decisions found.
#[derive(Debug, Default)]
pub(crate) struct ExactFound {
    /// `no-<model>-order` and `solver-timeout` anomalies, by name.
    pub anomalies: BTreeMap<String, Vec<Anomaly>>,
    /// An order under which the strongest model decided consistent holds, if any was.
    pub witness: Option<Witness>,
    /// How many pairs of writes inference left unordered.
    pub unordered_pairs: usize,
}

/// Decides each of `models` (those not already ruled out), within `budget` each; inference's cycle search
/// added `searched_order` to the dependencies.
pub(crate) fn decide(
    txns: &Txns<'_>,
    source: &dyn ExactSource,
    explainer: &dyn DataExplainer,
    models: &[ExactModel],
    searched_order: Option<Kind>,
    want_witness: bool,
    budget: Duration,
) -> ExactFound {
    let mut found = ExactFound::default();
    let key_writes = source.key_writes(txns);
    let in_effect = source.in_effect(txns, &key_writes);
    found.unordered_pairs = key_writes.iter().map(|k| k.open_pairs().count()).sum();
    // The polygraph is built only for a model the solver must decide: when inference ranked every pair
    // of writes, its cycle search often decided already.
    let mut key_writes = Some(key_writes);
    let mut base: Option<Polygraph> = None;
    // The transactions a witness places: the committed ones, and the indeterminate ones whose writes took
    // effect (somebody read one), with a completion to carry the place. An indeterminate one nobody read
    // is left unplaced: it may never have committed.
    let took_effect = |t: TxnId| {
        txns.completion(t).is_some()
            && (txns.outcome(t) == histories::OpType::Ok
                || (txns.outcome(t) == histories::OpType::Info && in_effect[t as usize]))
    };
    let mut outcomes: Vec<(ExactModel, Outcome)> = Vec::new();
    for m in models {
        if outcomes.iter().any(|(stronger, o)| matches!(o, Outcome::Holds) && stronger.implies(m)) {
            outcomes.push((*m, Outcome::Holds));
            continue;
        }
        if found.unordered_pairs == 0 && !want_witness && m.order == searched_order && m.order != Some(Kind::Process) {
            // Inference ranked every pair of writes, and its cycle search, over this model's order, found
            // nothing the model forbids: that search was already exact. (Its process order holds committed
            // transactions only, as Elle's does; the exact one also puts each indeterminate one after its
            // process's last committed one.)
            outcomes.push((*m, Outcome::Holds));
            continue;
        }
        let base = base.get_or_insert_with(|| {
            let dependencies = source.dependencies(txns);
            let mut known = Vec::with_capacity(dependencies.len());
            dependencies.for_each(|from, to, kind| known.push(KnownEdge { from, to, kind }));
            drop(dependencies);
            Polygraph::new(txns.len(), known, key_writes.take().unwrap_or_default())
        });
        let graph = with_order(base, txns, m.order);
        let deadline = Instant::now().checked_add(budget);
        let started = Instant::now();
        let decision = polygraph_solver::decide(&graph, m.rule, deadline);
        log::info!(
            "{}: {} constraints decided in {:.3} s: {}",
            m.model,
            graph.constraints.len(),
            started.elapsed().as_secs_f64(),
            match &decision {
                Decision::Acyclic { .. } => "holds",
                Decision::Cyclic(_) => "refuted",
                Decision::OutOfBudget(_) => "out of budget",
            }
        );
        let outcome = match decision {
            Decision::Acyclic { order, .. } => {
                if want_witness && found.witness.is_none() {
                    found.witness = Some(Witness {
                        model: m.model.to_string(),
                        order: order.iter().filter(|&&t| took_effect(t)).map(|&t| txns.index(t)).collect(),
                    });
                }
                Outcome::Holds
            }
            Decision::Cyclic(refutation) => Outcome::Refuted(Box::new((graph, refutation))),
            Decision::OutOfBudget(progress) => Outcome::OutOfBudget(progress),
        };
        outcomes.push((*m, outcome));
    }
    for (m, outcome) in &outcomes {
        match outcome {
            Outcome::Holds => {}
            Outcome::Refuted(refuted) => {
                let weaker_refuted =
                    outcomes.iter().any(|(w, o)| w != m && m.implies(w) && matches!(o, Outcome::Refuted(_)));
                if !weaker_refuted {
                    let (graph, refutation) = refuted.as_ref();
                    let cycles = explain_refutation(txns, graph, refutation, m, source, explainer);
                    found.anomalies.insert(m.anomaly.to_string(), cycles.into_iter().map(Anomaly::Cycle).collect());
                }
            }
            Outcome::OutOfBudget(progress) => {
                let text = format!(
                    "The solver could not decide {} within {:.1} s: inference left {} pairs of writes unordered, \
                     and {} rounds found {} cycles to rule out before the budget ran out. So the verdict for this \
                     model is unknown, not valid; a longer --solver-timeout may decide it.",
                    m.described(),
                    budget.as_secs_f64(),
                    progress.constraints,
                    progress.rounds,
                    progress.clauses
                );
                let facts = crate::explain::facts([
                    ("model", json!(m.model)),
                    ("constraints", json!(progress.constraints)),
                    ("rounds", json!(progress.rounds)),
                    ("clauses", json!(progress.clauses)),
                    ("budget_s", json!(budget.as_secs_f64())),
                ]);
                found.anomalies.entry(SOLVER_TIMEOUT.to_string()).or_default().push(Anomaly::Case(case(
                    txns,
                    &[],
                    None,
                    facts,
                    text,
                )));
            }
        }
    }
    found
}

enum Outcome {
    Holds,
    Refuted(Box<(Polygraph, Refutation)>),
    OutOfBudget(Progress),
}

/// The polygraph with the model's order (process or real time) among its known edges.
fn with_order(base: &Polygraph, txns: &Txns<'_>, order: Option<Kind>) -> Polygraph {
    let edges = match order {
        None => EdgeList::new(),
        Some(Kind::Process) => orders::session_edges(txns),
        Some(_) => orders::realtime_edges(txns),
    };
    let mut known = base.known.clone();
    edges.for_each(|from, to, kind| known.push(KnownEdge { from, to, kind }));
    base.with_known(known)
}

/// A refutation as cycles: one per case, each saying which write orders it supposes and why each of
/// its edges holds.
fn explain_refutation(
    txns: &Txns<'_>,
    graph: &Polygraph,
    refutation: &Refutation,
    m: &ExactModel,
    source: &dyn ExactSource,
    explainer: &dyn DataExplainer,
) -> Vec<Cycle> {
    let key = |k: KeyId| source.key_name(k);
    let key = &key;
    let write_text = |w: u32| {
        let write = graph.writes[w as usize];
        source.write_text(&txns.name(write.txn), &key(write.key), write.value)
    };
    let pairs: Vec<String> = refutation
        .core
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let constraint = graph.constraints[c as usize];
            format!("  {}. {} and {}", i + 1, write_text(constraint.first), write_text(constraint.second))
        })
        .collect();
    let open = graph.constraints.len();
    let preamble = if refutation.core.is_empty() {
        format!("The dependencies the history proves already close a cycle {} forbids.", m.described())
    } else {
        format!(
            "No order of the writes makes this history {}. Inference leaves {open} pair{} of writes unordered; \
             however {} ordered, a cycle the model forbids closes{}:\n{}\nThe cases, which together cover every \
             order of {}:",
            m.described(),
            if open == 1 { "" } else { "s" },
            if refutation.core.len() == 1 { "this pair is" } else { "these pairs are" },
            if refutation.minimal { "" } else { " (the solver's budget ran out before this list was made minimal)" },
            pairs.join("\n"),
            if refutation.core.len() == 1 { "it" } else { "them" },
        )
    };
    let count = refutation.alternatives.len();
    refutation
        .alternatives
        .iter()
        .enumerate()
        .map(|(i, alternative)| {
            let steps: Vec<Step> =
                alternative.cycle.iter().map(|edge| step(txns, graph, edge, key, explainer, &write_text)).collect();
            let mut members: Vec<TxnId> = Vec::new();
            for e in &alternative.cycle {
                if !members.contains(&e.from) {
                    members.push(e.from);
                }
            }
            let ops: Vec<_> = members.iter().map(|&t| txn_view(txns, t)).collect();
            let kinds: Vec<Kind> = alternative.cycle.iter().map(|e| e.kind).collect();
            let class = classify(&kinds);
            let supposed: Vec<String> = alternative
                .supposed
                .iter()
                .map(|&s| {
                    let (earlier, later) = graph.ends(s);
                    format!("{} came before {}", write_text(earlier), write_text(later))
                })
                .collect();
            let case_text = if supposed.is_empty() {
                format!("Case {} of {count}: whatever the order, a {class} cycle closes:\n", i + 1)
            } else {
                format!(
                    "Case {} of {count}: suppose {}. Then a {class} cycle closes:\n",
                    i + 1,
                    supposed.join(", and ")
                )
            };
            let mut explanation = format!("{preamble}\n\n{case_text}{}", cycle_text(&ops, &steps));
            if members.len() < steps.len() {
                explanation.push_str(
                    "\n(This cycle passes through a transaction twice: it is a closed walk of dependencies, which \
                     rules out the model as a simple cycle would.)",
                );
            }
            let shape = shape_of(&steps, &ops);
            let supposed_json: Vec<serde_json::Value> = alternative
                .supposed
                .iter()
                .map(|&s| {
                    let (earlier, later) = graph.ends(s);
                    let w = |id: u32| {
                        let write = graph.writes[id as usize];
                        json!({"txn": txns.index(write.txn), "value": write.value})
                    };
                    json!({"key": key(graph.writes[earlier as usize].key), "earlier": w(earlier), "later": w(later)})
                })
                .collect();
            let facts = serde_json::Map::from_iter([
                ("model".to_string(), json!(m.model)),
                ("class".to_string(), json!(class)),
                ("case".to_string(), json!(i + 1)),
                ("cases".to_string(), json!(count)),
                ("supposed".to_string(), json!(supposed_json)),
                ("unordered_pairs".to_string(), json!(open)),
                ("deciding_pairs".to_string(), json!(refutation.core.len())),
                ("minimal".to_string(), json!(refutation.minimal)),
            ]);
            Cycle {
                cycle: alternative.cycle.iter().map(|e| txns.index(e.from)).collect(),
                steps,
                explanation,
                ops,
                shape,
                facts,
            }
        })
        .collect()
}

/// One edge of a case's cycle, explained: a known one as inference explains it, a supposed one by the
/// write order supposed.
fn step(
    txns: &Txns<'_>,
    graph: &Polygraph,
    edge: &CycleEdge,
    key: &dyn Fn(KeyId) -> Key,
    explainer: &dyn DataExplainer,
    write_text: &dyn Fn(u32) -> String,
) -> Step {
    let (from, to) = (txns.index(edge.from), txns.index(edge.to));
    let (key, explanation): (Option<Key>, Option<String>) = match edge.side {
        Some(side) => {
            let (earlier, later) = graph.ends(side);
            let write = graph.writes[earlier as usize];
            let k = key(write.key);
            let text = match edge.kind {
                Kind::Ww => format!("we suppose {} came before {}", write_text(earlier), write_text(later)),
                _ => format!(
                    "{} read key {k} = {}, which {} wrote, and we suppose that write came before {}",
                    txns.name(edge.from),
                    write.value,
                    txns.name(write.txn),
                    write_text(later)
                ),
            };
            (Some(k), Some(text))
        }
        None => match edge.kind {
            Kind::Process | Kind::Realtime => (None, orders::explain(txns, edge.from, edge.to, edge.kind)),
            kind => match explainer.explain(edge.from, edge.to, kind) {
                Some((key, text)) => (key, Some(text)),
                None => (None, None),
            },
        },
    };
    let kind = edge.kind;
    Step { kind, key, from, to, explanation: explanation.unwrap_or_else(|| format!("of a {kind} dependency")) }
}
