//! Checking a history: decide its workload (as asked, or from its micro-ops), infer the workload's
//! dependencies and find the anomalies that need no graph, add the process or real-time order when the
//! models asked for need it (as Elle does), search every cyclic component for every cycle class, and
//! decide the verdict from what the options prohibit. This module owns that sequence and the verdict;
//! each step is its own module's.

use std::collections::BTreeMap;

use histories::{History, OpType};

use crate::closed_predicate::{self, ClosedPredicateExplainer};
use crate::consistency_model::{self as cm, UNKNOWN_ANOMALIES};
use crate::cycle_class::{CycleClass, all_classes};
use crate::cycle_exists::{CycleExists, cycle_exists};
use crate::cycle_search::{FoundCycle, search_component};
use crate::cycle_shape::shape_of;
use crate::error::CheckError;
use crate::exact::{self, EXACT_MODELS, ExactModel, ExactSource};
use crate::explain::{DataExplainer, case, cycle_text, facts, txn_view};
use crate::final_reads;
use crate::graph::{DepGraph, EdgeList, TxnId};
use crate::kind::Kind;
use crate::list_append::{self, ListAppendExplainer};
use crate::options::{Options, Workload};
use crate::orders;
use crate::phase::Phase;
use crate::result::{Anomaly, Case, CheckResult, Checked, Cycle, MissingRealtime, Stats, Step, Validity};
use crate::rw_register::{self, RwRegisterExplainer};
use crate::txn::Txns;
use crate::weak_levels;
use crate::workload;

/// Checks a history against the options.
pub fn check(history: &History, options: &Options) -> Result<CheckResult, CheckError> {
    let phase = Phase::start();
    // The transactions need no workload (but the closed-predicate one, whose `init` op is one too): they
    // are gathered beside telling the workload.
    let (workload, txns) = rayon::join(
        || match options.workload() {
            Some(workload) => Ok(workload),
            None => workload::detect(history),
        },
        || Txns::new(history),
    );
    let workload = workload?;
    phase.done("workload, beside the transactions");
    // When the weak levels' exact check decides alone, no graph is built (see `weak_levels::decide_alone`).
    let alone = weak_levels::decide_alone(options, workload);
    match workload {
        Workload::ListAppend => {
            // The order needs only the transactions' times: it is built beside the index.
            let (index, order) = rayon::join(|| list_append::Index::new(&txns), || order_edges(&txns, options));
            phase.done("list-append index, beside the process or real-time order");
            let index = index?;
            let dependencies = dependencies(|| index.edges(&txns));
            let (cases, deferred, built) =
                cases_beside_graph(&txns, workload, options, || index.cases(&txns), dependencies, order, alone)?;
            phase.done("list-append anomalies without cycles, beside the graph and its components");
            let found = Found {
                built,
                cases,
                deferred,
                keys: index.key_count(),
                ordered_keys: index.ordered_key_count(),
                blind_spots: Vec::new(),
                commit_ordered: 0,
                numbered_writes: 0,
            };
            let explainer = ListAppendExplainer::new(&index, &txns);
            let exact = Exact { source: &index, unordered: None };
            Ok(conclude(history, &txns, workload, found, &explainer, Some(exact), options))
        }
        Workload::RwRegister => {
            workload::refuse_init(history, workload)?;
            if alone {
                let order = order_edges(&txns, options);
                if !order.edges.is_empty() {
                    return weak_levels_alone(history, &txns, workload, order, options);
                }
            }
            let (index, order) =
                rayon::join(|| rw_register::Index::new(&txns, options.inference()), || order_edges(&txns, options));
            phase.done("rw-register index, beside the process or real-time order");
            let index = index?;
            let dependencies = dependencies(|| index.edges());
            let (cases, deferred, built) =
                cases_beside_graph(&txns, workload, options, || index.cases(&txns), dependencies, order, alone)?;
            phase.done("rw-register anomalies without cycles, beside the graph and its components");
            let unordered = index.unordered_writes();
            let found = Found {
                built,
                cases,
                deferred,
                keys: index.key_count(),
                ordered_keys: index.ordered_key_count(),
                blind_spots: index.blind_spots().into_iter().filter(|s| Some(s) != unordered.as_ref()).collect(),
                commit_ordered: index.commit_ordered(),
                numbered_writes: index.numbered_writes(),
            };
            let explainer = RwRegisterExplainer::new(&index, &txns);
            let exact = Exact { source: &index, unordered };
            Ok(conclude(history, &txns, workload, found, &explainer, Some(exact), options))
        }
        Workload::ClosedPredicate => {
            drop(txns);
            let txns = Txns::with_init(history);
            let index = closed_predicate::Index::new(&txns)?;
            let order = order_edges(&txns, options);
            let found = Found {
                built: Built::new(&txns, dependencies(|| index.edges(&txns)), order, false),
                cases: index.cases(&txns),
                deferred: BTreeMap::new(),
                keys: index.key_count(),
                ordered_keys: index.ordered_key_count(),
                blind_spots: index.blind_spots(),
                commit_ordered: index.commit_ordered(),
                numbered_writes: 0,
            };
            let explainer = ClosedPredicateExplainer::new(&index, &txns);
            Ok(conclude(history, &txns, workload, found, &explainer, None, options))
        }
    }
}

/// The check of an rw-register history when the weak levels decide alone (`weak_levels::decide_alone`)
/// and the process order already gives the graph a dependency, so that it is not empty: neither
/// inference nor a graph. What inference finds without a graph (aborted or intermediate reads, versions
/// in a cycle, ...) is no more needed than its cycles: a history the weak levels pass has a commit order
/// satisfying each model asked for, and inference, making no assumption, only proves what every such
/// order shows. The report counts the keys but no version order, as none was inferred.
fn weak_levels_alone(
    history: &History,
    txns: &Txns<'_>,
    workload: Workload,
    order: OrderEdges,
    options: &Options,
) -> Result<CheckResult, CheckError> {
    let phase = Phase::start();
    let (mut cases, keys) = weak_levels::cases(txns, workload, options)?;
    final_reads::add_cases(txns, &mut cases);
    phase.done("weak levels alone: no inference, no graph");
    let found = Found {
        built: Built::new(txns, EdgeList::new(), order, true),
        cases,
        deferred: BTreeMap::new(),
        keys,
        ordered_keys: 0,
        blind_spots: Vec::new(),
        commit_ordered: 0,
        numbered_writes: 0,
    };
    Ok(conclude(history, txns, workload, found, &NoDependencies, None, options))
}

/// Explains no dependency: for a check that inferred none.
struct NoDependencies;

impl DataExplainer for NoDependencies {
    fn explain(&self, _: TxnId, _: TxnId, _: Kind) -> Option<(Option<histories::Key>, String)> {
        None
    }
}

/// What an exact decision needs beside the analysis: the analysis as its source, and inference's blind
/// spot that the decision covers.
struct Exact<'a> {
    source: &'a dyn ExactSource,
    unordered: Option<String>,
}

/// What a workload's analysis found before the cycle search: the graph of its dependencies, the
/// anomalies that need no graph, and how much of the version order it could see.
struct Found {
    built: Built,
    cases: BTreeMap<&'static str, Vec<Case>>,
    /// Cases to add where the cycle search finds no cycle of their name (`weak_levels::merge`).
    deferred: BTreeMap<&'static str, Vec<Case>>,
    keys: usize,
    ordered_keys: usize,
    blind_spots: Vec<String>,
    /// How many transactions the database's recorded commit order placed (rw-register).
    commit_ordered: usize,
    /// How many committed writes carried the database's version number (rw-register).
    numbered_writes: usize,
}

/// The steps every workload shares: the orders the options need, the graph, the cycle search in each
/// component, and the verdict.
fn conclude(
    history: &History,
    txns: &Txns<'_>,
    workload: Workload,
    found: Found,
    explainer: &dyn DataExplainer,
    exact: Option<Exact<'_>>,
    options: &Options,
) -> CheckResult {
    let Found { built, cases, deferred, keys, ordered_keys, blind_spots, commit_ordered, numbered_writes } = found;
    let Built { graph, order, empty, edges } = built;
    let components = graph.as_ref().map_or(&[][..], DepGraph::cyclic_components);
    let mut found: BTreeMap<String, Vec<Anomaly>> = cases
        .into_iter()
        .map(|(name, cases)| (name.to_string(), cases.into_iter().map(Anomaly::Case).collect()))
        .collect();
    let phase = Phase::start();
    if empty {
        let text = "no transaction depends on any other: without dependencies there is nothing to check".to_string();
        found.insert("empty-transaction-graph".into(), vec![Anomaly::Case(case(txns, &[], None, facts([]), text))]);
    }
    let classes: Vec<CycleClass> =
        all_classes().into_iter().filter(|c| c.variant.is_none() || c.variant == order).collect();
    for (graph, component) in graph.iter().flat_map(|g| components.iter().map(move |c| (g, c))) {
        let cycles = search_component(graph, component, &classes);
        let classes_found: Vec<&str> = cycles.iter().map(|c| c.class).collect();
        for exists in cycle_exists(graph, component, &classes_found, order) {
            let evidence = explain_exists(txns, explainer, &exists);
            found.entry(exists.name.clone()).or_default().push(Anomaly::Cycle(evidence));
        }
        for cycle in cycles {
            let evidence = explain_cycle(txns, explainer, &cycle);
            found.entry(cycle.class.to_string()).or_default().push(Anomaly::Cycle(evidence));
        }
    }
    for (name, cases) in deferred {
        found.entry(name.to_string()).or_insert_with(|| cases.into_iter().map(Anomaly::Case).collect());
    }
    phase.done("cycle search and explanations");
    let mut witness = None;
    let mut exactly = (Vec::new(), 0);
    let mut blind_spots = blind_spots;
    if let Some(Exact { source, unordered }) = exact {
        let models = exact_models(options, &found);
        if !models.is_empty() {
            // Deciding regardless of inference, the shortcut of a model whose order inference's search
            // already covered does not hold (that search may have found what the model forbids): asking
            // for a witness turns it off.
            let want_witness = options.witness() || options.exact_regardless();
            let decided = exact::decide(txns, source, explainer, &models, order, want_witness, options.solver_budget());
            for (name, anomalies) in decided.anomalies {
                found.entry(name).or_default().extend(anomalies);
            }
            witness = decided.witness;
            exactly = (models.iter().map(|m| m.model.to_string()).collect(), decided.unordered_pairs);
            phase.done("exact decisions");
        }
        // What inference could not order is a blind spot only where no exact decision covered it.
        if let Some(spot) = unordered.filter(|_| exactly.0.is_empty()) {
            blind_spots.insert(0, spot);
        }
    }
    let mut stats = stats(history, txns, edges, components);
    stats.keys = keys;
    stats.ordered_keys = ordered_keys;
    stats.blind_spots = blind_spots;
    let assumptions = match workload {
        Workload::RwRegister => options.inference().names().into_iter().map(str::to_string).collect(),
        _ => Vec::new(),
    };
    let checked = Checked {
        workload: workload.name().to_string(),
        models: options.models().to_vec(),
        anomalies: options.anomalies().to_vec(),
        assumptions,
        commit_ordered,
        numbered_writes,
        exact_models: exactly.0,
        unordered_pairs: exactly.1,
        missing_realtime: history
            .leniencies()
            .iter()
            .map(|l| MissingRealtime {
                name: l.kind.name().to_string(),
                first_line: l.first.line,
                ops: l.ops,
                missing: l.kind.missing().to_string(),
            })
            .collect(),
    };
    let mut result = verdict(found, options, stats, checked);
    if result.valid == Validity::Valid {
        result.witness = witness;
    }
    result
}

/// The models to decide exactly: those whose refutation the options prohibit, but for those the anomalies
/// inference `found` already rule out; strongest first.
fn exact_models(options: &Options, found: &BTreeMap<String, Vec<Anomaly>>) -> Vec<ExactModel> {
    let prohibited = options.prohibited();
    let ruled_out = cm::impossible_models(found.keys().map(String::as_str));
    EXACT_MODELS
        .into_iter()
        .filter(|m| prohibited.contains(m.anomaly))
        .filter(|m| {
            options.exact_regardless() || cm::canonical_model_name(m.model).is_none_or(|c| !ruled_out.contains(c))
        })
        .collect()
}

/// The process or real-time order the options need (`None` when they need neither), and its edges.
struct OrderEdges {
    kind: Option<Kind>,
    edges: EdgeList,
}

fn order_edges(txns: &Txns<'_>, options: &Options) -> OrderEdges {
    let phase = Phase::start();
    let kind = order_needed(&options.reportable());
    let edges = match kind {
        Some(Kind::Realtime) => orders::realtime_edges(txns),
        Some(Kind::Process) => orders::process_edges(txns),
        _ => EdgeList::new(),
    };
    phase.done("process or real-time order");
    OrderEdges { kind, edges }
}

/// The dependency graph (the workload's dependencies and the order), with its cyclic components, or, when
/// the weak levels decide alone, only what the report says of it.
struct Built {
    /// `None` when no graph was built (see `weak_levels::decide_alone`).
    graph: Option<DepGraph>,
    /// The order among the graph's edges, if any.
    order: Option<Kind>,
    /// Whether no transaction depends on another.
    empty: bool,
    /// Dependencies by kind name: the graph's, or, with no graph, those inferred before merging.
    edges: BTreeMap<String, usize>,
}

/// Cases by anomaly name.
type CasesByName = BTreeMap<&'static str, Vec<Case>>;

/// The anomalies that need no cycle (`inferred`, the workload's inference's), beside the weak levels'
/// exact check, beside the graph and its components: the cases with the weak levels' merged in and the
/// final reads' added, the weak levels' cases left to the cycle search (`weak_levels::merge`), and the
/// graph. List-append and rw-register histories are checked alike from here.
fn cases_beside_graph(
    txns: &Txns<'_>,
    workload: Workload,
    options: &Options,
    inferred: impl FnOnce() -> CasesByName + Send,
    dependencies: EdgeList,
    order: OrderEdges,
    alone: bool,
) -> Result<(CasesByName, CasesByName, Built), CheckError> {
    let ((cases, weak), built) = rayon::join(
        || {
            rayon::join(
                || {
                    let phase = Phase::start();
                    let cases = inferred();
                    phase.done("inference's anomalies without cycles");
                    cases
                },
                || weak_levels::cases(txns, workload, options).map(|(cases, _)| cases),
            )
        },
        || Built::new(txns, dependencies, order, alone),
    );
    let mut cases = cases;
    let deferred = weak_levels::merge(weak?, &mut cases, alone);
    final_reads::add_cases(txns, &mut cases);
    Ok((cases, deferred, built))
}

/// The workload's dependencies, inferred by `infer` on all cores. They are inferred before the anomalies
/// that need no graph are looked for, not beside them: the graph's components are then found on one core
/// while those anomalies are looked for on the other, rather than on one core after them.
fn dependencies(infer: impl FnOnce() -> EdgeList) -> EdgeList {
    let phase = Phase::start();
    let dependencies = infer();
    phase.done("dependencies");
    dependencies
}

impl Built {
    /// Adds the order's edges to the `dependencies`, and builds the graph, which finds its cyclic
    /// components; with `no_graph`, only counts the dependencies.
    fn new(txns: &Txns<'_>, mut dependencies: EdgeList, order: OrderEdges, no_graph: bool) -> Built {
        let phase = Phase::start();
        dependencies.extend(order.edges);
        if no_graph {
            let mut counts = [0usize; Kind::ALL.len()];
            dependencies.for_each(|_, _, kind| counts[kind as usize] += 1);
            let edges = Kind::ALL
                .iter()
                .filter(|&&k| counts[k as usize] > 0)
                .map(|&k| (k.name().to_string(), counts[k as usize]))
                .collect();
            phase.done("dependencies counted (no graph: the weak levels decide alone)");
            return Built { graph: None, order: order.kind, empty: dependencies.is_empty(), edges };
        }
        let graph = DepGraph::build(txns.len(), dependencies);
        phase.done("graph and its cyclic components");
        let edges = Kind::ALL
            .iter()
            .filter(|&&k| graph.kind_count(k) > 0)
            .map(|&k| (k.name().to_string(), graph.kind_count(k)))
            .collect();
        Built { empty: graph.is_empty(), graph: Some(graph), order: order.kind, edges }
    }
}

/// The order Elle adds for these reportable anomalies: real time if any real-time class matters (it
/// implies the process order, since a process runs one transaction at a time), else the process order
/// if any process class does.
pub(crate) fn order_needed(reportable: &std::collections::BTreeSet<&'static str>) -> Option<Kind> {
    let classes = all_classes();
    let wanted = |kind: Kind| classes.iter().any(|c| c.variant == Some(kind) && reportable.contains(c.name));
    if wanted(Kind::Realtime) {
        Some(Kind::Realtime)
    } else if wanted(Kind::Process) {
        Some(Kind::Process)
    } else {
        None
    }
}

fn explain_cycle(txns: &Txns<'_>, explainer: &dyn DataExplainer, cycle: &FoundCycle) -> Cycle {
    let n = cycle.steps.len();
    let steps: Vec<Step> = (0..n)
        .map(|i| {
            let (from, kind) = cycle.steps[i];
            let to = cycle.steps[(i + 1) % n].0;
            let (key, explanation) = match kind {
                Kind::Process | Kind::Realtime => (None, orders::explain(txns, from, to, kind)),
                _ => match explainer.explain(from, to, kind) {
                    Some((key, text)) => (key, Some(text)),
                    None => (None, None),
                },
            };
            Step {
                kind,
                key,
                from: txns.index(from),
                to: txns.index(to),
                explanation: explanation.unwrap_or_else(|| format!("of a {kind} dependency")),
            }
        })
        .collect();
    let mut members: Vec<TxnId> = Vec::with_capacity(n);
    for &(t, _) in &cycle.steps {
        if !members.contains(&t) {
            members.push(t);
        }
    }
    let ops: Vec<_> = members.iter().map(|&t| txn_view(txns, t)).collect();
    let mut explanation = cycle_text(&ops, &steps);
    if members.len() < n {
        explanation.push_str(
            "\n(This cycle passes through a transaction twice: no simple cycle of this class exists, but this closed walk \
             of dependencies is one in Adya's sense, and it rules out the same models.)",
        );
    }
    let shape = shape_of(&steps, &ops);
    Cycle {
        cycle: cycle.steps.iter().map(|&(t, _)| txns.index(t)).collect(),
        steps,
        explanation,
        ops,
        shape,
        facts: serde_json::Map::new(),
    }
}

/// A cycle-exists anomaly, explained with its witness cycle.
fn explain_exists(txns: &Txns<'_>, explainer: &dyn DataExplainer, exists: &CycleExists) -> Cycle {
    let mut cycle =
        explain_cycle(txns, explainer, &FoundCycle { class: "cycle-exists", steps: exists.witness.clone() });
    let scc: Vec<u64> = exists.component.iter().map(|&t| txns.index(t)).collect();
    cycle.explanation = format!(
        "The dependencies {} have a cycle among {} transactions, so {} cannot hold. No cycle class names it, because an \
         edge of it that is also an anti-dependency counts as one for the classes. One such cycle:\n{}",
        exists.subgraph,
        scc.len(),
        exists.not,
        cycle.explanation
    );
    cycle.facts = serde_json::Map::from_iter([
        ("not".to_string(), serde_json::json!(exists.not)),
        ("subgraph".to_string(), serde_json::json!(exists.subgraph)),
        ("scc_size".to_string(), serde_json::json!(scc.len())),
        ("scc".to_string(), serde_json::json!(scc)),
    ]);
    cycle
}

fn stats(history: &History, txns: &Txns<'_>, edges: BTreeMap<String, usize>, components: &[Vec<TxnId>]) -> Stats {
    let count = |o: OpType| txns.ids().filter(|&t| txns.outcome(t) == o).count();
    Stats {
        ops: history.len(),
        txns: txns.len(),
        ok: count(OpType::Ok),
        fail: count(OpType::Fail),
        info: count(OpType::Info),
        edges,
        keys: 0,
        ordered_keys: 0,
        cyclic_components: components.len(),
        largest_component: components.iter().map(Vec::len).max().unwrap_or(0),
        blind_spots: Vec::new(),
        counts_only: false,
    }
}

/// Elle's `remove-redundant-cycle-exists`: a cycle-exists anomaly for a model that some specific
/// anomaly already rules out says nothing more.
pub(crate) fn without_redundant_cycle_exists(
    mut found: BTreeMap<String, Vec<Anomaly>>,
) -> BTreeMap<String, Vec<Anomaly>> {
    let specific: Vec<&str> = found.keys().map(String::as_str).filter(|n| !n.ends_with("-cycle-exists")).collect();
    let ruled_out = cm::impossible_models(specific);
    found.retain(|name, _| name.strip_suffix("-cycle-exists").is_none_or(|model| !ruled_out.contains(model)));
    found
}

/// The result of anomalies found without a check of the whole history (`run --online`'s rounds:
/// `Online::finish`), decided as [`check`] decides it from what it found, with the statistics and the
/// description of what was checked that the caller gathered.
pub fn result_of(
    found: BTreeMap<String, Vec<Anomaly>>,
    options: &Options,
    stats: Stats,
    checked: Checked,
) -> CheckResult {
    verdict(found, options, stats, checked)
}

/// Elle's `result-map`: report the reportable anomalies; invalid if any is prohibited, unknown if only
/// unknown ones are; the models ruled out follow from every anomaly found.
fn verdict(found: BTreeMap<String, Vec<Anomaly>>, options: &Options, stats: Stats, checked: Checked) -> CheckResult {
    let prohibited = options.prohibited();
    let reportable = options.reportable();
    let found = without_redundant_cycle_exists(found);
    let found_names: Vec<String> = found.keys().cloned().collect();
    let anomalies: BTreeMap<String, Vec<Anomaly>> =
        found.into_iter().filter(|(name, _)| reportable.contains(name.as_str())).collect();
    let valid = if anomalies.is_empty() {
        Validity::Valid
    } else if anomalies.keys().any(|name| prohibited.contains(name.as_str())) {
        Validity::Invalid
    } else {
        Validity::Unknown
    };
    let (not, also_not) = if anomalies.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        cm::boundary(found_names.iter().map(String::as_str).filter(|n| !UNKNOWN_ANOMALIES.contains(n)))
    };
    CheckResult {
        valid,
        anomaly_types: anomalies.keys().cloned().collect(),
        not,
        also_not,
        anomalies,
        flags: Vec::new(),
        invariants: Vec::new(),
        stats,
        witness: None,
        checked,
    }
}
