//! Shrinking a failing history: the smallest sub-history, by transactions and then by micro-ops, on
//! which the checker still reports the anomaly, found by delta debugging (Zeller & Hildebrandt, "Simplifying
//! and Isolating Failure-Inducing Input", TSE 2002), with the checker as the test. A sub-history keeps
//! whole transactions (an invocation with its completion, at their original indices, processes and
//! times), the `init` op, and, of each transaction, a subset of its micro-ops; nemesis ops are dropped,
//! since checks skip them. Every operation of a sub-history happened as recorded; for list-append, a
//! sub-history's reads only show less of each version order than the whole's, and real-time and process
//! order only lose intermediate transactions, so a dependency it infers is one the whole implies (directly,
//! or through versions and transactions it left out).
//!
//! A sub-history *shows* the anomaly when the checker reports one of the wanted classes and no class the
//! whole history did not: cutting the writer of a value some kept read shows would otherwise make a
//! `garbage-read` out of nothing. To be fast on long histories, shrinking starts from the transactions
//! that touch the keys of the anomaly's cycle, cut to their micro-ops on those keys; only when that
//! does not show the anomaly does it start from the whole history. Then it alternates ddmin over
//! transactions and over micro-ops until neither removes anything, and finally removes each kept
//! transaction alone, which both proves that each is needed and says why. This module decides the
//! sub-history; printing it is the `findings` crate's.

use std::collections::BTreeSet;

use histories::{History, Key, Mop, Observed, Op, OpValue};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::consistency_model::{self as cm, UNKNOWN_ANOMALIES};
use crate::error::CheckError;
use crate::kind::Kind;
use crate::options::{Options, Workload};
use crate::result::{Anomaly, CheckResult, Step};

/// Why a history could not be shrunk.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ShrinkError {
    /// The check itself could not run.
    #[error(transparent)]
    Check(#[from] CheckError),
    /// The history does not show what was asked for.
    #[error("the history shows none of {wanted}: the checker reports {reported}")]
    NotShown {
        /// The anomalies asked for.
        wanted: String,
        /// What the checker reports instead.
        reported: String,
    },
}

/// A shrunk history, with why each transaction in it is needed.
#[derive(Debug, Clone)]
pub struct Shrunk {
    /// The sub-history: operations at their original indices.
    pub history: History,
    /// The checker's result on it.
    pub result: CheckResult,
    /// The anomaly classes it was shrunk for (any one of them counts).
    pub wanted: Vec<String>,
    /// Each kept transaction (by its completion's index, or its invocation's), in history order, and why
    /// it is needed.
    pub kept: Vec<Kept>,
    /// Client transactions in the original history.
    pub original_txns: usize,
    /// Micro-ops of client transactions in the original history.
    pub original_mops: usize,
    /// Micro-ops in the shrunk history's transactions.
    pub mops: usize,
    /// How many sub-histories were checked.
    pub checks: usize,
}

/// A transaction the shrunk history keeps.
#[derive(Debug, Clone)]
pub struct Kept {
    /// Its index (the completion's, else the invocation's), as in the original history.
    pub index: u64,
    /// Why it is needed: what happens without it.
    pub need: Need,
}

/// Why a kept transaction is needed. Each is what the checker reported on the shrunk history without
/// that transaction, so each is true by construction.
#[derive(Debug, Clone)]
pub enum Need {
    /// It is one of the cycle's transactions: these are its edges.
    CycleEdge(Vec<Step>),
    /// It reads a key of the cycle, and its read fixes that key's version order, from which the cycle's
    /// write-write or anti-dependency edges are inferred.
    VersionOrder(Vec<Key>),
    /// Without it the cycle's order edges (real-time or process) are not inferred.
    OrderWitness,
    /// It wrote values kept reads show: without it the rest shows these classes the history does not.
    Wrote(Vec<String>),
    /// Without it the checker no longer reports the anomaly, for a reason none of the above names.
    Other,
}

/// Shrinks `history` to the smallest sub-history on which `options`' check reports one of `wanted`
/// (Elle's names, umbrella classes included; empty: any class the whole history reports).
pub fn shrink(history: &History, options: &Options, wanted: &[String]) -> Result<Shrunk, ShrinkError> {
    for name in wanted {
        if cm::anomaly_name(name).is_none() {
            let known: Vec<&str> = cm::all_anomalies().into_iter().collect();
            return Err(CheckError::UnknownAnomaly { name: name.clone(), known: known.join(", ") }.into());
        }
    }
    let original = crate::check(history, options)?;
    let workload = Workload::parse(&original.checked.workload);
    let options = options.clone().with_workload(workload);
    let reported: BTreeSet<String> = original.anomaly_types.iter().cloned().collect();
    let targets: BTreeSet<String> = if wanted.is_empty() {
        reported.iter().filter(|a| !UNKNOWN_ANOMALIES.contains(&a.as_str())).cloned().collect()
    } else {
        let implying = cm::anomalies_implying(wanted.iter().map(String::as_str));
        reported.iter().filter(|a| implying.contains(a.as_str())).cloned().collect()
    };
    if targets.is_empty() {
        return Err(ShrinkError::NotShown {
            wanted: if wanted.is_empty() { "any anomaly".into() } else { wanted.join(", ") },
            reported: if reported.is_empty() {
                "none".into()
            } else {
                reported.iter().cloned().collect::<Vec<_>>().join(", ")
            },
        });
    }
    let mut search = Search::new(history, &options, targets, reported);
    let seeds = search.seeds(&original);
    let mut start = None;
    for (units, masks) in seeds {
        if search.shows(&units, &masks).is_some() {
            start = Some((units, masks));
            break;
        }
    }
    let (mut units, mut masks) = match start {
        Some(start) => start,
        None => search.whole(),
    };
    loop {
        let before = (units.len(), count(&masks, &units));
        units = search.ddmin_units(units, &masks);
        search.ddmin_mops(&units, &mut masks);
        if (units.len(), count(&masks, &units)) == before {
            break;
        }
    }
    let kept = search.prove_needed(&mut units, &masks);
    let ops = search.build(&units, &masks);
    let history = History::from_ops(ops).map_err(|(at, problem)| CheckError::Workload {
        at,
        message: format!("the shrunk history is not well formed: {problem}"),
    })?;
    let result = crate::check(&history, &options)?;
    Ok(Shrunk {
        mops: count(&masks, &units),
        original_txns: search.units.len(),
        original_mops: search.units.iter().map(|u| search.ops[u.main()].mops().len()).sum(),
        history,
        result,
        wanted: search.targets.iter().cloned().collect(),
        kept,
        checks: search.checks,
    })
}

/// One client transaction: the positions of its invocation and completion.
#[derive(Debug, Clone, Copy)]
struct Unit {
    invoke: usize,
    completion: Option<usize>,
}

impl Unit {
    /// The operation that names the transaction: its completion, else its invocation.
    fn main(&self) -> usize {
        self.completion.unwrap_or(self.invoke)
    }
}

/// Which micro-ops of a transaction are kept, by position in its completion (or invocation).
type Mask = Vec<bool>;

fn count(masks: &[Mask], units: &[usize]) -> usize {
    units.iter().map(|&u| masks[u].iter().filter(|&&b| b).count()).sum()
}

struct Search<'a> {
    ops: &'a [Op],
    options: &'a Options,
    units: Vec<Unit>,
    /// Positions always kept: `init` ops.
    fixed: Vec<usize>,
    targets: BTreeSet<String>,
    allowed: BTreeSet<String>,
    checks: usize,
}

impl<'a> Search<'a> {
    fn new(history: &'a History, options: &'a Options, targets: BTreeSet<String>, allowed: BTreeSet<String>) -> Self {
        let ops = history.ops();
        let mut units = Vec::new();
        let mut fixed = Vec::new();
        for t in history.transactions() {
            if t.invoke.f() == &histories::Function::Init {
                fixed.push(t.invoke_at);
                fixed.extend(t.completion_at);
            } else {
                // A completion with no invocation (a history that recorded only completions) stands alone.
                let completion = t.completion_at.filter(|&c| c != t.invoke_at);
                units.push(Unit { invoke: t.invoke_at, completion });
            }
        }
        Search { ops, options, units, fixed, targets, allowed, checks: 0 }
    }

    fn full_masks(&self) -> Vec<Mask> {
        self.units.iter().map(|u| vec![true; self.ops[u.main()].mops().len()]).collect()
    }

    fn whole(&self) -> (Vec<usize>, Vec<Mask>) {
        ((0..self.units.len()).collect(), self.full_masks())
    }

    /// Where to start: for each reported anomaly of a wanted class (the first few), the transactions
    /// touching its cycle's keys, cut to those keys.
    fn seeds(&self, original: &CheckResult) -> Vec<(Vec<usize>, Vec<Mask>)> {
        let mut by_index: FxHashMap<u64, usize> = FxHashMap::default();
        for (u, unit) in self.units.iter().enumerate() {
            by_index.insert(self.ops[unit.invoke].index, u);
            if let Some(c) = unit.completion {
                by_index.insert(self.ops[c].index, u);
            }
        }
        let mut seeds = Vec::new();
        let anomalies = original.anomalies.iter().filter(|(name, _)| self.targets.contains(*name));
        for anomaly in anomalies.flat_map(|(_, list)| list.iter().take(3)) {
            let cycle: Vec<usize> = anomaly.txn_indices().iter().filter_map(|i| by_index.get(i).copied()).collect();
            let keys: FxHashSet<&Key> = match anomaly {
                Anomaly::Cycle(c) => c.steps.iter().filter_map(|s| s.key.as_ref()).collect(),
                Anomaly::Case(c) => c.key.iter().collect(),
            };
            let mut masks = self.full_masks();
            let mut units = Vec::new();
            for (u, unit) in self.units.iter().enumerate() {
                let mops = self.ops[unit.main()].mops();
                let mask: Mask = mops.iter().map(|m| m.key().is_some_and(|k| keys.contains(k))).collect();
                if mask.iter().any(|&b| b) || cycle.contains(&u) {
                    units.push(u);
                    // An invocation whose micro-ops do not line up with its completion's cannot be cut.
                    if self.lined_up(unit) {
                        masks[u] = mask;
                    }
                }
            }
            seeds.push((units, masks));
        }
        seeds
    }

    fn lined_up(&self, unit: &Unit) -> bool {
        match unit.completion {
            Some(c) => self.ops[c].mops().len() == self.ops[unit.invoke].held_mops().len(),
            None => true,
        }
    }

    /// The sub-history of these transactions and micro-ops, in history order.
    fn build(&self, units: &[usize], masks: &[Mask]) -> Vec<Op> {
        let mut positions: Vec<(usize, Option<&Mask>)> = self.fixed.iter().map(|&p| (p, None)).collect();
        for &u in units {
            let unit = self.units[u];
            positions.push((unit.invoke, Some(&masks[u])));
            if let Some(c) = unit.completion {
                positions.push((c, Some(&masks[u])));
            }
        }
        positions.sort_unstable_by_key(|(p, _)| *p);
        positions
            .into_iter()
            .map(|(p, mask)| {
                let mut op = self.ops[p].clone();
                if let (Some(mask), OpValue::Txn(mops)) = (mask, &mut op.value)
                    && mops.len() == mask.len()
                {
                    let mut keep = mask.iter();
                    *mops = mops.iter().filter(|_| keep.next().copied().unwrap_or(true)).cloned().collect();
                }
                op
            })
            .collect()
    }

    /// The check of this sub-history, when it shows the anomaly.
    fn shows(&mut self, units: &[usize], masks: &[Mask]) -> Option<CheckResult> {
        self.checks += 1;
        let history = History::from_ops(self.build(units, masks)).ok()?;
        let result = crate::check(&history, self.options).ok()?;
        let wanted = result.anomaly_types.iter().any(|a| self.targets.contains(a));
        let nothing_new = result.anomaly_types.iter().all(|a| self.allowed.contains(a));
        (wanted && nothing_new).then_some(result)
    }

    /// ddmin over the kept transactions.
    fn ddmin_units(&mut self, units: Vec<usize>, masks: &[Mask]) -> Vec<usize> {
        ddmin(units, |candidate| self.shows(candidate, masks).is_some())
    }

    /// ddmin over each kept transaction's micro-ops, one transaction at a time (at least one stays).
    fn ddmin_mops(&mut self, units: &[usize], masks: &mut [Mask]) {
        for &u in units {
            if !self.lined_up(&self.units[u]) {
                continue;
            }
            let on: Vec<usize> = (0..masks[u].len()).filter(|&i| masks[u][i]).collect();
            if on.len() <= 1 {
                continue;
            }
            let mut trial = masks.to_vec();
            let kept = ddmin(on, |candidate| {
                if candidate.is_empty() {
                    return false;
                }
                trial[u] = (0..masks[u].len()).map(|i| candidate.contains(&i)).collect();
                self.shows(units, &trial).is_some()
            });
            masks[u] = (0..masks[u].len()).map(|i| kept.contains(&i)).collect();
        }
    }

    /// Removes each kept transaction alone: one whose removal still shows the anomaly goes; for the
    /// others, what the checker reports without them says why they are needed.
    fn prove_needed(&mut self, units: &mut Vec<usize>, masks: &[Mask]) -> Vec<Kept> {
        let mut i = 0;
        while i < units.len() {
            let mut without = units.clone();
            without.remove(i);
            if self.shows(&without, masks).is_some() {
                *units = without;
                i = 0;
            } else {
                i += 1;
            }
        }
        let Some(shrunk) = self.shows(units, masks) else {
            return Vec::new();
        };
        let cycles: Vec<&Anomaly> = shrunk
            .anomalies
            .iter()
            .filter(|(name, _)| self.targets.contains(*name))
            .flat_map(|(_, list)| list)
            .collect();
        let order_keys: FxHashSet<&Key> = cycles
            .iter()
            .filter_map(|a| a.as_cycle())
            .flat_map(|c| &c.steps)
            .filter(|s| matches!(s.kind, Kind::Ww | Kind::Rw))
            .filter_map(|s| s.key.as_ref())
            .collect();
        let has_order_edge = cycles
            .iter()
            .filter_map(|a| a.as_cycle())
            .flat_map(|c| &c.steps)
            .any(|s| matches!(s.kind, Kind::Realtime | Kind::Process));
        let mut kept = Vec::new();
        for (i, &u) in units.iter().enumerate() {
            let unit = self.units[u];
            let index = self.ops[unit.main()].index;
            let mut without = units.clone();
            without.remove(i);
            self.checks += 1;
            let after =
                History::from_ops(self.build(&without, masks)).ok().and_then(|h| crate::check(&h, self.options).ok());
            let new: Vec<String> =
                after.iter().flat_map(|r| &r.anomaly_types).filter(|a| !self.allowed.contains(*a)).cloned().collect();
            let steps: Vec<Step> = cycles
                .iter()
                .filter_map(|a| a.as_cycle())
                .flat_map(|c| &c.steps)
                .filter(|s| s.from == index || s.to == index)
                .cloned()
                .collect();
            let reads: Vec<Key> = self.ops[unit.main()]
                .mops()
                .iter()
                .zip(&masks[u])
                .filter(|(_, on)| **on)
                .filter_map(|(m, _)| match m {
                    Mop::Read { key, value } if *value != Observed::Nil && order_keys.contains(key) => {
                        Some(key.clone())
                    }
                    _ => None,
                })
                .collect();
            let need = if !steps.is_empty() {
                Need::CycleEdge(steps)
            } else if !new.is_empty() {
                Need::Wrote(new)
            } else if !reads.is_empty() {
                let mut reads = reads;
                reads.dedup();
                Need::VersionOrder(reads)
            } else if has_order_edge {
                Need::OrderWitness
            } else {
                Need::Other
            };
            kept.push(Kept { index, need });
        }
        kept
    }
}

/// Zeller's ddmin: a 1-minimal subset of `items` on which `fails` holds (it holds on `items`).
fn ddmin<T: Clone>(mut items: Vec<T>, mut fails: impl FnMut(&[T]) -> bool) -> Vec<T> {
    let mut n = 2usize;
    while items.len() >= 2 {
        let chunk = items.len().div_ceil(n);
        let chunks: Vec<Vec<T>> = items.chunks(chunk).map(<[T]>::to_vec).collect();
        let mut reduced = false;
        for c in &chunks {
            if c.len() < items.len() && fails(c) {
                items = c.clone();
                n = 2;
                reduced = true;
                break;
            }
        }
        if !reduced && chunks.len() > 2 {
            for i in 0..chunks.len() {
                let complement: Vec<T> =
                    chunks.iter().enumerate().filter(|(j, _)| *j != i).flat_map(|(_, c)| c.iter().cloned()).collect();
                if fails(&complement) {
                    items = complement;
                    n = (n - 1).max(2);
                    reduced = true;
                    break;
                }
            }
        }
        if !reduced {
            if n >= items.len() {
                break;
            }
            n = (n * 2).min(items.len());
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::ddmin;

    #[test]
    fn ddmin_finds_a_one_minimal_subset() {
        let items: Vec<u32> = (0..100).collect();
        let kept = ddmin(items, |s| s.contains(&7) && s.contains(&42) && s.contains(&99));
        assert_eq!(kept, vec![7, 42, 99]);
        assert_eq!(ddmin(vec![1, 2, 3], |s| s.contains(&2)), vec![2]);
    }
}
