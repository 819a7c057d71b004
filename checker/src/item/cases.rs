//! Anomalies of item reads that need no dependency graph, as Elle's `elle.rw-register` finds them (and,
//! for the rows of predicate reads, as the same definitions apply): a committed read of a value written
//! by an aborted transaction (`G1a`) or overwritten by its writer in the same transaction (`G1b`); a read
//! that disagrees with the transaction's own earlier write or read of the key (`internal`); two committed
//! transactions that read the same version of a key and both wrote it (`lost-update`); and a read of a
//! value no operation wrote (`garbage-read`), which Elle misses (its own test suite marks it as a bug).
//! A value an `info` transaction wrote may have been installed, so reading it is no anomaly.
//!
//! Two deliberate differences from Elle's `internal`: a read of `null` followed by a read of a value,
//! with no write between, is reported (Elle takes `null` as "not known yet"; in a committed register
//! read it is the initial state, so the transaction saw the key change under it); and a predicate read
//! that misses, or returns another value for, a row the transaction itself wrote or read is reported.

use std::collections::BTreeMap;

use std::ops::Range;

use histories::{Key, Mop, OpType, Predicate, Rows};
use serde_json::json;

use super::{ItemIndex, ItemOp, KeyId, NO_KEY, value_text};
use crate::chunks;
use crate::explain::{case, facts, mop_json};
use crate::graph::TxnId;
use crate::result::Case;
use crate::txn::Txns;

pub(crate) type Cases = BTreeMap<&'static str, Vec<Case>>;

pub(crate) fn push(cases: &mut Cases, name: &'static str, c: Case) {
    cases.entry(name).or_default().push(c);
}

/// Every item-read anomaly of the history.
pub(crate) fn all(index: &ItemIndex<'_>, txns: &Txns<'_>) -> Cases {
    // The transactions' reads are independent: the cores take ranges of them, and the cases come back in
    // transaction order.
    let mut cases = Cases::new();
    for found in chunks::per_chunk(txns.len(), |ids| of_reads(index, txns, ids)) {
        for (name, mut list) in found {
            cases.entry(name).or_default().append(&mut list);
        }
    }
    lost_updates(index, txns, &mut cases);
    cases
}

/// The anomalies of the reads of the committed transactions among `ids`.
fn of_reads(index: &ItemIndex<'_>, txns: &Txns<'_>, ids: Range<TxnId>) -> Cases {
    let mut cases = Cases::new();
    // What `internal` keeps per transaction, one allocation for the range.
    let mut known = Vec::new();
    for t in ids.filter(|&t| txns.outcome(t) == OpType::Ok) {
        for (i, mop) in txns.mops(t).iter().enumerate() {
            match (ItemOp::of(mop), mop) {
                (Some(ItemOp::Read(Some(v))), _) => read_of(index, txns, t, i, index.key_of(t, i), v, mop, &mut cases),
                (_, Mop::PredicateRead { rows: Some(rows), .. }) => {
                    for (key, &v) in rows.iter() {
                        let k = index.id(key).unwrap_or(NO_KEY);
                        read_of(index, txns, t, i, k, v, mop, &mut cases);
                    }
                }
                _ => {}
            }
        }
        internal(index, txns, t, &mut known, &mut cases);
    }
    cases
}

/// `garbage-read`, `G1a`, `G1b` and `future-read` for one committed read of `value` at key `k`, the
/// transaction's micro-op `at`.
#[allow(clippy::too_many_arguments)]
fn read_of(
    index: &ItemIndex<'_>,
    txns: &Txns<'_>,
    t: TxnId,
    at: usize,
    k: KeyId,
    value: i64,
    mop: &Mop,
    cases: &mut Cases,
) {
    let written = index.written(k, value);
    match written {
        Some(w) if w.writer == t && writes_later(index, txns, t, at, k, value) => {}
        Some(w) if txns.outcome(w.writer) != OpType::Fail && !(w.intermediate && w.writer != t) => return,
        _ => {}
    }
    // Most reads are of committed writes: what names the case is put together only for an anomaly.
    let key = index.key(k);
    let me = txns.name(t);
    let through = match mop {
        Mop::PredicateRead { .. } => format!(" through the predicate read {mop}"),
        _ => String::new(),
    };
    let the_facts = || facts([("mop", mop_json(mop)), ("value", json!(value))]);
    match written {
        None => {
            let text = format!("{me} read key {key} = {value}{through}, but no operation wrote {value} to key {key}");
            push(cases, "garbage-read", case(txns, &[t], Some(key), the_facts(), text));
        }
        Some(w) if txns.outcome(w.writer) == OpType::Fail => {
            let text = format!(
                "{me} read key {key} = {value}{through}; but {value} was written by {}, which aborted",
                txns.name(w.writer)
            );
            push(cases, "G1a", case(txns, &[t, w.writer], Some(key), the_facts(), text));
        }
        Some(w) if w.intermediate && w.writer != t => {
            let later = later_write(index, txns, w.writer, k, value);
            let text = format!(
                "{me} read key {key} = {value}{through}; but {} wrote {value} and then {} to key {key}, so {me} saw a \
                 state {} never committed",
                txns.name(w.writer),
                later,
                txns.name(w.writer)
            );
            push(cases, "G1b", case(txns, &[t, w.writer], Some(key), the_facts(), text));
        }
        Some(w) if w.writer == t => {
            let text = format!(
                "{me} read key {key} = {value}{through}, which {me} itself wrote only later: a read of the future"
            );
            let mut the_facts = the_facts();
            the_facts.insert("pattern".to_string(), json!("future-read"));
            push(cases, "future-read", case(txns, &[t], Some(key), the_facts, text));
        }
        Some(_) => {}
    }
}

/// Whether transaction `t` writes `value` to key `k` after its micro-op `at` (and not before it).
fn writes_later(index: &ItemIndex<'_>, txns: &Txns<'_>, t: TxnId, at: usize, k: KeyId, value: i64) -> bool {
    let wrote_at = |i: usize| {
        index.key_of(t, i) == k && matches!(ItemOp::of(&txns.mops(t)[i]), Some(ItemOp::Write(Some(v))) if v == value)
    };
    let n = txns.mops(t).len();
    !(0..at).any(wrote_at) && (at + 1..n).any(wrote_at)
}

/// What `writer` wrote to key `k` after `value`: the next value, or "deleted it".
fn later_write(index: &ItemIndex<'_>, txns: &Txns<'_>, writer: TxnId, k: KeyId, value: i64) -> String {
    let mut seen = false;
    for (i, mop) in txns.mops(writer).iter().enumerate() {
        if index.key_of(writer, i) != k {
            continue;
        }
        match ItemOp::of(mop) {
            Some(ItemOp::Write(v)) if seen => return v.map_or_else(|| "deleted".to_string(), |v| v.to_string()),
            Some(ItemOp::Write(v)) => seen = v == Some(value),
            _ => {}
        }
    }
    "more".to_string()
}

/// What a transaction last did to a key: wrote or read this value.
#[derive(Debug, Clone, Copy)]
struct Known {
    key: KeyId,
    value: Option<i64>,
    wrote: bool,
}

/// `internal`: the first read of the transaction that disagrees with what it last wrote or read of
/// the key (Elle's `op-internal-case`, one case per transaction).
/// `known` is scratch space, cleared here.
fn internal(index: &ItemIndex<'_>, txns: &Txns<'_>, t: TxnId, known: &mut Vec<Known>, cases: &mut Cases) {
    let mops = txns.mops(t);
    if mops.len() < 2 {
        return;
    }
    known.clear();
    for (i, mop) in mops.iter().enumerate() {
        let k = index.key_of(t, i);
        match (ItemOp::of(mop), mop) {
            (Some(op), _) => {
                let (value, wrote) = match op {
                    ItemOp::Read(v) => (v, false),
                    ItemOp::Write(v) => (v, true),
                };
                let slot = known.iter().position(|s| s.key == k);
                if let (false, Some(s)) = (wrote, slot.map(|s| known[s]))
                    && s.value != value
                {
                    let text = format!(
                        "{} read key {} = {}, but it had {} {} there earlier in the transaction",
                        txns.name(t),
                        index.key(k),
                        value_text(value),
                        if s.wrote { "written" } else { "read" },
                        value_text(s.value)
                    );
                    let facts = facts([("mop", mop_json(mop)), ("expected", json!(s.value))]);
                    push(cases, "internal", case(txns, &[t], Some(index.key(k)), facts, text));
                    return;
                }
                match slot {
                    Some(s) => known[s] = Known { key: k, value, wrote },
                    None => known.push(Known { key: k, value, wrote }),
                }
            }
            (None, Mop::PredicateRead { predicate, rows: Some(rows) }) => {
                if let Some(c) = predicate_internal(index, txns, t, mop, *predicate, rows, known) {
                    push(cases, "internal", c);
                    return;
                }
                for (key, &v) in rows.iter() {
                    let Some(k) = index.id(key) else { continue };
                    match known.iter_mut().find(|s| s.key == k) {
                        Some(s) => *s = Known { key: k, value: Some(v), wrote: false },
                        None => known.push(Known { key: k, value: Some(v), wrote: false }),
                    }
                }
            }
            _ => {}
        }
    }
}

/// A predicate read that disagrees with a row the transaction already knows: it returned another
/// value for it, or left out a value that matches the predicate.
fn predicate_internal(
    index: &ItemIndex<'_>,
    txns: &Txns<'_>,
    t: TxnId,
    mop: &Mop,
    predicate: Predicate,
    rows: &Rows,
    known: &[Known],
) -> Option<Case> {
    for s in known {
        let key = index.key(s.key);
        let how = if s.wrote { "written" } else { "read" };
        let text = match (rows.get(key), s.value) {
            (Some(&got), expected) if Some(got) != expected => format!(
                "{}'s predicate read {mop} returned key {key} = {got}, but it had {how} {} there earlier in the \
                 transaction",
                txns.name(t),
                value_text(expected)
            ),
            (None, Some(expected)) if predicate.matches(expected) => format!(
                "{}'s predicate read {mop} did not return key {key}, but it had {how} {expected} there earlier in the \
                 transaction, which matches {predicate}",
                txns.name(t)
            ),
            _ => continue,
        };
        let facts = facts([("mop", mop_json(mop)), ("expected", json!(s.value))]);
        return Some(case(txns, &[t], Some(key), facts, text));
    }
    None
}

/// `lost-update`: committed transactions that read the same version of a key as their first micro-op
/// on it and then wrote it (Elle's `lost-update-cases`, over external reads). A read of `nil` names no
/// one version of a key that may be both unborn (no `init` row) and deleted: one transaction may have
/// read it before the delete and another after, so such reads are left out.
fn lost_updates(index: &ItemIndex<'_>, txns: &Txns<'_>, cases: &mut Cases) {
    // Keys some `init` row gives a value, and keys some transaction deletes.
    let marked = chunks::per_chunk(txns.len(), |ids| initial_and_deleted(index, txns, ids));
    let mut initial = vec![false; index.key_count()];
    let mut deleted = vec![false; index.key_count()];
    for (inits, deletes) in marked {
        for k in inits {
            initial[k as usize] = true;
        }
        for k in deletes {
            deleted[k as usize] = true;
        }
    }
    // Every (key, version read, transaction) of a committed read-then-write, in transaction order; a stable
    // sort groups the versions and keeps each group in transaction order.
    let mut updates: Vec<Update> =
        chunks::per_chunk(txns.len(), |ids| read_then_wrote(index, txns, ids, &initial, &deleted)).concat();
    updates.sort_by_key(|&(k, read, _)| (k, read));
    let mut found: Vec<&[Update]> =
        updates.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)).filter(|group| group.len() > 1).collect();
    found.sort_unstable_by_key(|group| (group[0].0, group[0].2));
    for group in found {
        let (k, value, _) = group[0];
        let ids: Vec<TxnId> = group.iter().map(|&(_, _, t)| t).collect();
        let key: &Key = index.key(k);
        let names: Vec<String> = ids.iter().map(|&t| txns.name(t)).collect();
        let text = format!(
            "{} all read key {key} = {} and then wrote it, and all committed: each wrote over the version the others \
             also read, so every write but the last to commit was overwritten by a transaction that had not seen it \
             (Elle's lost update)",
            names.join(", "),
            value_text(value)
        );
        push(cases, "lost-update", case(txns, &ids, Some(key), facts([("value", json!(value))]), text));
    }
}

/// The keys an `init` op among `ids` gives a row, and the keys a transaction among them deletes (of
/// committed and indeterminate transactions).
fn initial_and_deleted(index: &ItemIndex<'_>, txns: &Txns<'_>, ids: Range<TxnId>) -> (Vec<KeyId>, Vec<KeyId>) {
    let (mut initial, mut deleted) = (Vec::new(), Vec::new());
    for t in ids.filter(|&t| txns.is_possible(t)) {
        initial.extend(txns.init_rows(t).into_iter().flat_map(|rows| rows.keys()).filter_map(|key| index.id(key)));
        for mop in txns.mops(t) {
            if let Mop::Delete { key } = mop
                && let Some(k) = index.id(key)
            {
                deleted.push(k);
            }
        }
    }
    (initial, deleted)
}

/// A committed transaction's external read of a key followed by a write of it: the key, the version
/// read, and the transaction.
type Update = (KeyId, Option<i64>, TxnId);

/// For each committed transaction among `ids` and each key whose external read it followed by a write:
/// the key, the version read and the transaction. A read of `nil` is left out where `nil` is ambiguous
/// (the key may be both unborn and deleted).
fn read_then_wrote(
    index: &ItemIndex<'_>,
    txns: &Txns<'_>,
    ids: Range<TxnId>,
    initial: &[bool],
    deleted: &[bool],
) -> Vec<Update> {
    let mut updates = Vec::new();
    let mut ext = Vec::new();
    for t in ids.filter(|&t| txns.outcome(t) == OpType::Ok) {
        index.externals(txns, t, &mut ext);
        for e in &ext {
            let nil_is_ambiguous = deleted[e.key as usize] && !initial[e.key as usize];
            if let (Some(read), Some(_)) = (e.read, e.write)
                && !(read.is_none() && nil_is_ambiguous)
            {
                updates.push((e.key, read, t));
            }
        }
    }
    updates
}
