//! Exact checking of three weak levels defined over session order and write-read alone, with no version
//! order: read committed as Biswas & Enea define it ("On the Complexity of Checking Transactional
//! Consistency", OOPSLA 2019; `read-committed-cerone` here, apart from Elle's `read-committed`, which is
//! Adya's PL-2), and Cerone, Bernardi & Gotsman's read atomic and causal consistency ("A Framework for
//! Transactional Consistency Models with Atomic Visibility", CONCUR 2015; `read-atomic`,
//! `causal-cerone`), which Biswas & Enea restate axiomatically. Each violation is named by its pattern
//! after Plume (Liu et al., "Plume: Efficient and Complete Black-Box Checking of Weak Isolation Levels",
//! OOPSLA 2024), with Elle's name where one exists. The reads are resolved in `observations` (rw-register and
//! list-append histories; a list read shows the version order, which the commit order then contains),
//! the forced commit-order edges and their cycles are `saturation`'s, the words `explain`'s.

mod explain;
mod observations;
mod ragged;
mod saturation;

use std::collections::BTreeMap;

use histories::{History, Mop, Observed};

pub use saturation::WeakLevel;

use crate::consistency_model as cm;
use crate::error::CheckError;
use crate::options::{Options, Workload};
use crate::result::Case;
use crate::txn::Txns;
use explain::{PATTERNS, Words};
use observations::Observations;
use saturation::{Found, analyse};

/// Cases by pattern name.
type Cases = BTreeMap<&'static str, Vec<Case>>;

/// Every pattern name, as Plume orders them (TAP-a to TAP-n).
pub fn pattern_names() -> impl Iterator<Item = &'static str> {
    PATTERNS.iter().map(|(name, _, _)| *name)
}

/// The weakest level a pattern breaks.
fn pattern_level(pattern: &str) -> WeakLevel {
    match pattern {
        "non-repeatable-read" | "fractured-read-causal" | "fractured-read-arbitration" => WeakLevel::ReadAtomic,
        "causal-conflict-arbitration" | "conflict-arbitration" => WeakLevel::Causal,
        _ => WeakLevel::ReadCommitted,
    }
}

/// The strongest level the options ask for by name (a model or one of its patterns), if any.
pub(crate) fn level_asked(options: &Options) -> Option<WeakLevel> {
    let by_model = options
        .models()
        .iter()
        .filter_map(|m| cm::canonical_model_name(m))
        .filter_map(|m| WeakLevel::ALL.into_iter().find(|l| l.model() == m));
    let by_anomaly =
        options.anomalies().iter().filter(|a| pattern_names().any(|p| p == a.as_str())).map(|a| pattern_level(a));
    by_model.chain(by_anomaly).max()
}

/// What the levels up to `strongest` find in the observations: the cases by pattern, and the weakest
/// level broken with its pattern.
fn find(txns: &Txns<'_>, obs: &Observations<'_>, strongest: WeakLevel) -> (Cases, Option<(WeakLevel, &'static str)>) {
    let words = Words { txns, obs };
    let mut cases = Cases::new();
    let mut broken = None;
    for bad in &obs.bad {
        broken = broken.or(Some((WeakLevel::ReadCommitted, bad.pattern)));
        cases.entry(bad.pattern).or_default().push(words.bad_read(bad));
    }
    match analyse(obs, strongest) {
        Found::Nothing => {}
        Found::NonRepeatable(repeated) => {
            for &(n, first, second) in &repeated {
                cases.entry("non-repeatable-read").or_default().push(words.non_repeatable(n, first, second));
            }
            broken = broken.or(Some((WeakLevel::ReadAtomic, "non-repeatable-read")));
        }
        Found::Cycle(v) => {
            broken = broken.or(Some((v.level, v.pattern)));
            cases.entry(v.pattern).or_default().push(words.violation(&v));
        }
    }
    (cases, broken)
}

/// Whether the exact check of the weak levels decides the verdict alone, so that a check need not build
/// the dependency graph nor search it for cycles: every model asked for is one of the three weak levels,
/// no anomaly is asked for by name, and rw-register inference makes no assumption. Then a history the
/// saturation passes at the strongest level asked for has a commit order satisfying each model asked for
/// (the saturation is exact: `checker/tests/weak_levels/oracle*.rs`), hence, by the model lattice
/// (`consistency_model`: `read-committed-cerone` implies `strong-session-read-committed`, whose commit
/// order is a version order and contains session order and write-read), no cycle of inferred
/// dependencies that those models prohibit, nor any other anomaly inference proves (aborted reads,
/// versions in a cycle, ...): the inference made without assumptions only draws what every such commit
/// order shows. A history it fails breaks a model asked for whatever else is found. So inference is not
/// run either, but where it must tell whether the graph has any dependency (no process ran two
/// transactions): a graph with none makes the verdict unknown, as in a full check
/// (`checker/tests/weak_levels/shortcut.rs` holds the two to the same verdicts).
///
/// Only rw-register histories take the shortcut. A list read after the transaction's own append shows the
/// list before that append too, which `Observations::of_lists` does not take as an observation but
/// inference does: T1 appends 1 to x and reads [3 1], then T2 appends 3 in the same session is a G0
/// with process order that the weak levels alone pass.
pub(crate) fn decide_alone(options: &Options, workload: Workload) -> bool {
    let weak =
        |m: &String| cm::canonical_model_name(m).is_some_and(|c| WeakLevel::ALL.into_iter().any(|l| l.model() == c));
    workload == Workload::RwRegister
        && !options.every_step()
        && !options.inference().any()
        && options.anomalies().is_empty()
        && !options.models().is_empty()
        && options.models().iter().all(weak)
}

/// The cases of the levels the options ask for (rw-register and list-append; none for other workloads),
/// and how many keys the history has (0 when no level is asked for).
pub(crate) fn cases(txns: &Txns<'_>, workload: Workload, options: &Options) -> Result<(Cases, usize), CheckError> {
    let Some(strongest) = level_asked(options) else { return Ok((Cases::new(), 0)) };
    let phase = crate::phase::Phase::start();
    let obs = match workload {
        Workload::RwRegister => Observations::of_registers(txns)?,
        Workload::ListAppend => Observations::of_lists(txns)?,
        Workload::ClosedPredicate => return Ok((Cases::new(), 0)),
    };
    phase.done("weak levels: observations");
    let cases = find(txns, &obs, strongest).0;
    phase.done("weak levels: saturation and explanations");
    Ok((cases, obs.keys.len()))
}

/// Adds the weak levels' `found` cases to the workload's `cases`. A name the workload's own analysis
/// already reports (`incompatible-order`, `future-read` of a list) keeps the workload's cases. A cycle of
/// version and causal order (G1c) is returned instead when the check searches cycles (not `alone`, see
/// [`decide_alone`]): the cycle search's own G1c is explained better, but the weak levels' version order
/// is not all inference's (a committed append no read shows follows every append reads show), so the
/// check adds the returned cases where its search found no cycle of that name.
pub(crate) fn merge(found: Cases, cases: &mut Cases, alone: bool) -> Cases {
    let mut deferred = Cases::new();
    for (name, found) in found {
        if cases.contains_key(name) {
            continue;
        }
        if alone || !name.starts_with("G1c") {
            cases.insert(name, found);
        } else {
            deferred.insert(name, found);
        }
    }
    deferred
}

/// For each level, weakest first, the pattern that breaks it (`None`: the level holds): the verdicts
/// alone, for tests and benchmarks. A history with an append or a list read is read as list-append,
/// any other as rw-register.
pub fn verdicts(history: &History) -> Result<[Option<&'static str>; 3], CheckError> {
    let txns = Txns::new(history);
    let lists = txns.ids().any(|t| {
        txns.mops(t).iter().any(|m| matches!(m, Mop::Append { .. } | Mop::Read { value: Observed::List(_), .. }))
    });
    let obs = if lists { Observations::of_lists(&txns)? } else { Observations::of_registers(&txns)? };
    let (_, broken) = find(&txns, &obs, WeakLevel::Causal);
    Ok(WeakLevel::ALL.map(|level| broken.filter(|(weakest, _)| *weakest <= level).map(|(_, p)| p)))
}
