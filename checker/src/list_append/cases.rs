//! List-append anomalies that need no dependency graph, each as Elle's `elle.list-append` finds it:
//! aborted reads (`G1a`), intermediate reads (`G1b`), reads of elements nobody appended
//! (`garbage-read`), reads that contradict the transaction's own writes (`internal`) or observe its
//! later ones (`future-read`), repeated elements (`duplicate-elements`), reads no single order of
//! appends explains (`incompatible-order`), committed appends after aborted ones (`dirty-update`), and
//! two committed transactions that read the same version and both appended (`lost-update`).

use std::collections::BTreeMap;

use histories::{ListText, Mop, Observed, OpType};
use rustc_hash::FxHashMap;
use serde_json::json;

use super::{Index, KeyId, NO_TXN, ReadAt, read_list};
use crate::explain::{case, facts, mop_json};
use crate::graph::TxnId;
use crate::result::Case;
use crate::txn::Txns;

type Cases = BTreeMap<&'static str, Vec<Case>>;

pub(super) fn all(index: &Index<'_>, txns: &Txns<'_>) -> Cases {
    let mut cases = Cases::new();
    for t in txns.ids() {
        match txns.outcome(t) {
            OpType::Ok => {
                reads_of_bad_writes(index, txns, t, &mut cases);
                internal(index, txns, t, &mut cases);
                future_read(index, txns, t, &mut cases);
                duplicates(txns, t, &mut cases);
            }
            OpType::Info => duplicates(txns, t, &mut cases),
            _ => {}
        }
    }
    incompatible_orders(index, txns, &mut cases);
    dirty_updates(index, txns, &mut cases);
    lost_updates(index, txns, &mut cases);
    cases.retain(|_, v| !v.is_empty());
    cases
}

fn push(cases: &mut Cases, name: &'static str, c: Case) {
    cases.entry(name).or_default().push(c);
}

/// `G1a` (an element appended by a failed transaction), `garbage-read` (an element nobody appended) and
/// `G1b` (a last element its writer later appended past) in a committed read.
fn reads_of_bad_writes(index: &Index<'_>, txns: &Txns<'_>, t: TxnId, cases: &mut Cases) {
    for (i, mop) in txns.mops(t).iter().enumerate() {
        let Mop::Read { key, value: Observed::List(list) } = mop else { continue };
        let k = index.key_of(t, i);
        let me = txns.name(t);
        let mut garbage = Vec::new();
        for &e in list {
            match index.elem(k, e) {
                // No entry: no operation appended it, and no longest read showed it either.
                None => garbage.push(e),
                Some(el) if el.writer == NO_TXN => garbage.push(e),
                Some(el) if txns.outcome(el.writer) == OpType::Fail => {
                    let w = el.writer;
                    let text = format!(
                        "{me} read key {key} = {}, which includes {e}; but {e} was appended by {}, which aborted",
                        ListText(list),
                        txns.name(w)
                    );
                    push(
                        cases,
                        "G1a",
                        case(txns, &[t, w], Some(key), facts([("mop", mop_json(mop)), ("element", json!(e))]), text),
                    );
                }
                _ => {}
            }
        }
        if !garbage.is_empty() {
            let text = format!(
                "{me} read key {key} = {}, but no operation appended {} to key {key}",
                ListText(list),
                ListText(&garbage)
            );
            push(
                cases,
                "garbage-read",
                case(txns, &[t], Some(key), facts([("mop", mop_json(mop)), ("elements", json!(garbage))]), text),
            );
        }
        if let Some(&last) = list.last()
            && let Some(el) = index.elem(k, last).filter(|el| el.intermediate && el.writer != t && el.writer != NO_TXN)
        {
            {
                let w = el.writer;
                let later = later_append(txns.mops(w), key, last);
                let text = format!(
                    "{me} read key {key} = {}, ending in {last}; but {} appended {last} and then {} to key {key}, so {me} saw a state {} never committed",
                    ListText(list),
                    txns.name(w),
                    later.map_or("more".to_string(), |x| x.to_string()),
                    txns.name(w)
                );
                push(
                    cases,
                    "G1b",
                    case(txns, &[t, w], Some(key), facts([("mop", mop_json(mop)), ("element", json!(last))]), text),
                );
            }
        }
    }
}

fn later_append(mops: &[Mop], key: &histories::Key, after: i64) -> Option<i64> {
    let mut seen = false;
    for mop in mops {
        if let Mop::Append { key: k, value } = mop
            && k == key
        {
            if seen {
                return Some(*value);
            }
            seen = *value == after;
        }
    }
    None
}

/// What a transaction expects a key to hold, from its own earlier micro-ops.
#[derive(Clone)]
enum Expected {
    /// Exactly this list.
    Exactly(Vec<i64>),
    /// Some unknown prefix, then these elements.
    EndsWith(Vec<i64>),
}

/// `internal`: a read that disagrees with the transaction's own earlier reads and appends (Cerone et
/// al.'s axiom INT).
fn internal(index: &Index<'_>, txns: &Txns<'_>, t: TxnId, cases: &mut Cases) {
    let mut state: Vec<(KeyId, Expected)> = Vec::new();
    for (i, mop) in txns.mops(t).iter().enumerate() {
        let k = index.key_of(t, i);
        let slot = state.iter().position(|(key, _)| *key == k);
        match mop {
            Mop::Append { value, .. } => match slot {
                Some(s) => match &mut state[s].1 {
                    Expected::Exactly(list) | Expected::EndsWith(list) => list.push(*value),
                },
                None => state.push((k, Expected::EndsWith(vec![*value]))),
            },
            Mop::Read { key, value } => {
                let read: &[i64] = match value {
                    Observed::List(list) => list,
                    _ => &[],
                };
                if let Some(s) = slot {
                    let ok = match &state[s].1 {
                        Expected::Exactly(list) => list.as_slice() == read,
                        Expected::EndsWith(tail) => {
                            read.len() >= tail.len() && &read[read.len() - tail.len()..] == tail.as_slice()
                        }
                    };
                    if !ok {
                        let expected = match &state[s].1 {
                            Expected::Exactly(list) => ListText(list).to_string(),
                            Expected::EndsWith(tail) => {
                                format!("[... {}]", ListText(tail).to_string().trim_matches(['[', ']']))
                            }
                        };
                        let text = format!(
                            "{} read key {key} = {}, but its own earlier micro-ops mean it should have read {expected}",
                            txns.name(t),
                            ListText(read)
                        );
                        push(
                            cases,
                            "internal",
                            case(
                                txns,
                                &[t],
                                Some(key),
                                facts([("mop", mop_json(mop)), ("expected", json!(expected))]),
                                text,
                            ),
                        );
                        return;
                    }
                    state[s].1 = Expected::Exactly(read.to_vec());
                } else {
                    state.push((k, Expected::Exactly(read.to_vec())));
                }
            }
            _ => {}
        }
    }
}

/// `future-read`: a read that shows an element the same transaction appends only later.
fn future_read(index: &Index<'_>, txns: &Txns<'_>, t: TxnId, cases: &mut Cases) {
    let mops = txns.mops(t);
    for (i, mop) in mops.iter().enumerate() {
        let Mop::Append { key, value } = mop else { continue };
        let k = index.key_of(t, i);
        let earlier = mops[..i].iter().enumerate().find(|(j, m)| {
            index.key_of(t, *j) == k
                && matches!(m, Mop::Read { value: Observed::List(list), .. } if list.contains(value))
        });
        if let Some((_, read)) = earlier {
            let text = format!(
                "{} read {read}, which includes {value}, before it appended {value} to key {key} itself",
                txns.name(t)
            );
            push(
                cases,
                "future-read",
                case(txns, &[t], Some(key), facts([("mop", mop_json(read)), ("element", json!(value))]), text),
            );
            return;
        }
    }
}

/// `duplicate-elements`: a read holding one element more than once.
fn duplicates(txns: &Txns<'_>, t: TxnId, cases: &mut Cases) {
    for mop in txns.mops(t) {
        let Mop::Read { key, value: Observed::List(list) } = mop else { continue };
        let mut sorted = list.clone();
        sorted.sort_unstable();
        if sorted.windows(2).all(|w| w[0] != w[1]) {
            continue;
        }
        let mut counts: BTreeMap<i64, usize> = BTreeMap::new();
        for e in list {
            *counts.entry(*e).or_default() += 1;
        }
        counts.retain(|_, n| *n > 1);
        let listed: Vec<String> = counts.iter().map(|(e, n)| format!("{e} ({n} times)")).collect();
        let text = format!(
            "{} read key {key} = {}, which holds {}; each element is appended once, so no version can hold it twice",
            txns.name(t),
            ListText(list),
            listed.join(", ")
        );
        let dups: serde_json::Map<String, serde_json::Value> =
            counts.iter().map(|(e, n)| (e.to_string(), json!(n))).collect();
        push(
            cases,
            "duplicate-elements",
            case(txns, &[t], Some(key), facts([("mop", mop_json(mop)), ("duplicates", json!(dups))]), text),
        );
    }
}

/// `incompatible-order`: reads of one key that are not all prefixes of its longest read, so no single
/// order of appends explains them. Reported once per key, with the first pair (by length) that
/// disagrees, as Elle does.
fn incompatible_orders(index: &Index<'_>, txns: &Txns<'_>, cases: &mut Cases) {
    let mut bad_keys: Vec<KeyId> = Vec::new();
    for t in txns.ids().filter(|&t| txns.is_possible(t)) {
        for (i, mop) in txns.mops(t).iter().enumerate() {
            let Mop::Read { value: Observed::List(list), .. } = mop else { continue };
            let k = index.key_of(t, i);
            let Some(longest) = index.longest[k as usize] else { continue };
            let longest = read_list(txns, longest);
            if !longest.starts_with(list) && !bad_keys.contains(&k) {
                bad_keys.push(k);
            }
        }
    }
    bad_keys.sort_unstable();
    for k in bad_keys {
        let mut values: Vec<(&[i64], TxnId)> = Vec::new();
        for t in txns.ids().filter(|&t| txns.is_possible(t)) {
            for (i, mop) in txns.mops(t).iter().enumerate() {
                if let Mop::Read { value: Observed::List(list), .. } = mop
                    && index.key_of(t, i) == k
                    && !list.is_empty()
                    && !values.iter().any(|(v, _)| *v == list.as_slice())
                {
                    values.push((list, t));
                }
            }
        }
        values.sort_by(|a, b| a.0.len().cmp(&b.0.len()).then_with(|| a.0.cmp(b.0)));
        let Some(pair) = values.windows(2).find(|w| !w[1].0.starts_with(w[0].0)) else { continue };
        let ((a, ta), (b, tb)) = (pair[0], pair[1]);
        let key = index.keys[k as usize];
        let text = format!(
            "{} read key {key} = {} and {} read it = {}; neither is a prefix of the other, so no single order of appends explains both",
            txns.name(ta),
            ListText(a),
            txns.name(tb),
            ListText(b)
        );
        push(cases, "incompatible-order", case(txns, &[ta, tb], Some(key), facts([("values", json!([a, b]))]), text));
    }
}

/// `dirty-update`: in a key's version order (reads by failed transactions included, as Elle does), a
/// committed append that follows an append by a failed transaction.
fn dirty_updates(index: &Index<'_>, txns: &Txns<'_>, cases: &mut Cases) {
    for k in 0..index.keys.len() {
        let Some(at) = index.longest_any[k] else { continue };
        let mut seen = Vec::new();
        // The initial state counts as committed.
        let mut state = OpType::Ok;
        let mut since: Option<TxnId> = None;
        let mut run: Vec<i64> = Vec::new();
        for &e in read_list(txns, at) {
            if seen.contains(&e) {
                continue;
            }
            seen.push(e);
            let Some(w) = index.elem(k as KeyId, e).map(|el| el.writer).filter(|&w| w != NO_TXN) else { continue };
            let outcome = txns.outcome(w);
            run.push(e);
            match (state, outcome) {
                (OpType::Fail, OpType::Ok) => {
                    let failed = since.expect("a failed state has a writer");
                    let key = index.keys[k];
                    let text = format!(
                        "key {key} took the versions {}: {} aborted after appending {}, yet {} committed an append ({e}) after it",
                        ListText(&run),
                        txns.name(failed),
                        run[0],
                        txns.name(w)
                    );
                    push(
                        cases,
                        "dirty-update",
                        case(txns, &[failed, w], Some(key), facts([("values", json!(run))]), text),
                    );
                    (state, since, run) = (OpType::Ok, Some(w), vec![e]);
                }
                (_, OpType::Ok) | (OpType::Ok | OpType::Info, OpType::Fail) => {
                    (state, since, run) = (outcome, Some(w), vec![e])
                }
                _ => {}
            }
        }
    }
}

/// `lost-update`: two committed transactions that read the same version of a key (before writing it)
/// and then both appended to it.
fn lost_updates(index: &Index<'_>, txns: &Txns<'_>, cases: &mut Cases) {
    // (key, last element of the version read) to the transactions that read it and then appended.
    type Version = (KeyId, Option<i64>);
    let mut groups: FxHashMap<Version, Vec<(TxnId, ReadAt)>> = FxHashMap::default();
    for t in txns.ids().filter(|&t| txns.outcome(t) == OpType::Ok) {
        // Each key's first read, if it came before the transaction's first append to that key.
        type FirstRead = (KeyId, Option<(Option<i64>, ReadAt)>);
        let mut first_read: Vec<FirstRead> = Vec::new();
        let mut written: Vec<KeyId> = Vec::new();
        for (i, mop) in txns.mops(t).iter().enumerate() {
            let k = index.key_of(t, i);
            match mop {
                Mop::Read { value, .. } if !first_read.iter().any(|(key, _)| *key == k) => {
                    let last = match value {
                        Observed::List(list) => list.last().copied(),
                        _ => None,
                    };
                    first_read.push((k, Some((last, ReadAt { txn: t, mop: i as u32 }))));
                }
                Mop::Append { .. } if !written.contains(&k) => {
                    written.push(k);
                    match first_read.iter().find(|(key, _)| *key == k) {
                        Some((_, Some((version, at)))) => groups.entry((k, *version)).or_default().push((t, *at)),
                        // A write before any read: later reads of this key are not external.
                        _ => first_read.push((k, None)),
                    }
                }
                _ => {}
            }
        }
    }
    let mut found: Vec<_> = groups.into_iter().filter(|(_, ts)| ts.len() > 1).collect();
    found.sort_unstable_by_key(|((k, _), ts)| (*k, ts[0].0));
    for ((k, _), group) in found {
        let key = index.keys[k as usize];
        let ids: Vec<TxnId> = group.iter().map(|(t, _)| *t).collect();
        let read = read_list(txns, group[0].1);
        let names: Vec<String> = ids.iter().map(|&t| txns.name(t)).collect();
        let text = format!(
            "{} all read key {key} = {} and then appended to it, and all committed: each overwrote a state the others had also read, so an update was lost",
            names.join(", "),
            ListText(read)
        );
        push(cases, "lost-update", case(txns, &ids, Some(key), facts([("value", json!(read))]), text));
    }
}
