//! List-append anomalies that need no dependency graph, each as Elle's `elle.list-append` finds it:
//! aborted reads (`G1a`), intermediate reads (`G1b`), reads of elements nobody appended
//! (`garbage-read`), reads that contradict the transaction's own writes (`internal`) or observe its
//! later ones (`future-read`), repeated elements (`duplicate-elements`), reads no single order of
//! appends explains (`incompatible-order`), committed appends after aborted ones (`dirty-update`), and
//! two committed transactions that read the same version and both appended (`lost-update`).

use std::collections::BTreeMap;
use std::ops::Range;

use histories::{Key, ListText, Mop, Observed, OpType};
use rustc_hash::FxHashMap;
use serde_json::json;

use super::{Index, KeyId, NO_TXN, ReadAt, bits, read_list};
use crate::chunks;
use crate::explain::{case, facts, mop_json};
use crate::graph::TxnId;
use crate::key_slots::KeySlots;
use crate::result::Case;
use crate::txn::Txns;

type Cases = BTreeMap<&'static str, Vec<Case>>;

pub(super) fn all(index: &Index<'_>, txns: &Txns<'_>) -> Cases {
    let mut cases = Cases::new();
    let mut incompatible = vec![false; index.keys.len()];
    for (found, bad_keys) in chunks::per_chunk(txns.len(), |ids| of_reads(index, txns, ids)) {
        for (name, mut list) in found {
            cases.entry(name).or_default().append(&mut list);
        }
        for k in bad_keys {
            incompatible[k as usize] = true;
        }
    }
    incompatible_orders(index, txns, &incompatible, &mut cases);
    dirty_updates(index, txns, &mut cases);
    lost_updates(index, txns, &mut cases);
    cases.retain(|_, v| !v.is_empty());
    cases
}

/// The anomalies of the reads of the transactions `ids`, and the keys some read of which is not a prefix
/// of the key's longest read. The index's pass over the reads marked which reads need which look (the
/// bits), so only those reads' lists are touched here.
fn of_reads<'h>(index: &Index<'_>, txns: &Txns<'h>, ids: Range<TxnId>) -> (Cases, Vec<KeyId>) {
    const LOOKS: u8 = bits::NOT_PREFIX | bits::CHECK_DUPLICATES | bits::CHECK_BAD_WRITES | bits::INTERMEDIATE_READ;
    let mut cases = Cases::new();
    let mut scratch = Scratch::default();
    let mut incompatible = Vec::new();
    for t in ids {
        // An indeterminate transaction's reads are not observations: it may never have committed.
        if txns.outcome(t) != OpType::Ok {
            continue;
        }
        let mops = index.mops_of(t);
        let start = mops.start;
        for j in mops {
            let b = index.mop_bits[j];
            if b & LOOKS == 0 {
                continue;
            }
            let mop = &txns.mops(t)[j - start];
            let Mop::Read { key, value: Observed::List(list) } = mop else { continue };
            let k = index.mop_keys[j];
            if b & bits::NOT_PREFIX != 0 {
                incompatible.push(k);
            }
            if b & bits::CHECK_DUPLICATES != 0 {
                duplicates(txns, t, mop, key, list, &mut cases);
            }
            if b & bits::CHECK_BAD_WRITES != 0 {
                reads_of_bad_writes(index, txns, t, k, mop, key, list, &mut cases);
            }
            if b & bits::INTERMEDIATE_READ != 0 {
                intermediate_read(index, txns, t, k, mop, key, list, &mut cases);
            }
        }
        if repeats_a_key(index, t) {
            internal(index, txns, t, &mut scratch, &mut cases);
            future_read(index, txns, t, &mut scratch, &mut cases);
        }
    }
    (cases, incompatible)
}

fn push(cases: &mut Cases, name: &'static str, c: Case) {
    cases.entry(name).or_default().push(c);
}

/// `G1a` (an element appended by a failed transaction) and `garbage-read` (an element nobody appended)
/// in a committed read.
#[allow(clippy::too_many_arguments)]
fn reads_of_bad_writes(
    index: &Index<'_>,
    txns: &Txns<'_>,
    t: TxnId,
    k: KeyId,
    mop: &Mop,
    key: &Key,
    list: &[i64],
    cases: &mut Cases,
) {
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
}

/// `G1b`: a committed read whose last element its writer later appended past.
#[allow(clippy::too_many_arguments)]
fn intermediate_read(
    index: &Index<'_>,
    txns: &Txns<'_>,
    t: TxnId,
    k: KeyId,
    mop: &Mop,
    key: &Key,
    list: &[i64],
    cases: &mut Cases,
) {
    let Some(&last) = list.last() else { return };
    let Some(el) = index.elem(k, last).filter(|el| el.intermediate && el.writer != t && el.writer != NO_TXN) else {
        return;
    };
    let (me, w) = (txns.name(t), el.writer);
    let later = later_append(txns.mops(w), key, last);
    let text = format!(
        "{me} read key {key} = {}, ending in {last}; but {} appended {last} and then {} to key {key}, so {me} saw a state {} never committed",
        ListText(list),
        txns.name(w),
        later.map_or("more".to_string(), |x| x.to_string()),
        txns.name(w)
    );
    push(cases, "G1b", case(txns, &[t, w], Some(key), facts([("mop", mop_json(mop)), ("element", json!(last))]), text));
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

/// Whether a transaction touches some key twice: only then can it contradict or foresee itself
/// (`internal`, `future-read`).
fn repeats_a_key(index: &Index<'_>, t: TxnId) -> bool {
    let keys = index.keys_of(t);
    if keys.len() <= LOOK_BACK {
        return (1..keys.len()).any(|i| keys[..i].contains(&keys[i]));
    }
    let mut seen = rustc_hash::FxHashSet::default();
    !keys.iter().all(|k| seen.insert(*k))
}

/// Up to this many micro-ops, `internal` and `future-read` look back over a transaction's earlier
/// micro-ops at each read or append, which needs no state and no allocation (most transactions are a
/// handful of micro-ops); past it, they keep state per key, so that a long transaction stays linear. Both
/// ways find the same case (a test below compares them).
const LOOK_BACK: usize = 16;

/// What a transaction's own micro-ops say a read of a key must show: the list last read (if a read came
/// first), and the elements appended since.
type Expected<'h> = (Option<&'h [i64]>, Vec<i64>);

/// What `internal` and `future-read` keep while they walk one long transaction, cleared and reused for
/// the next: a range's long transactions may be many, and each once had maps of its own.
#[derive(Default)]
struct Scratch<'h> {
    /// Per key, what a read must show; `None` until the transaction touches the key.
    expected: KeySlots<Option<Expected<'h>>>,
    /// Each (key, element) the transaction read, with its first read showing it.
    first_read_of: FxHashMap<(KeyId, i64), usize>,
}

/// The list a list-append read returned: `nil` is the empty list.
fn read_of(value: &Observed) -> &[i64] {
    match value {
        Observed::List(list) => list,
        _ => &[],
    }
}

/// The first read of a transaction that its own earlier micro-ops contradict: its position, and what
/// they say it must show.
struct Contradiction<'h> {
    read: usize,
    expected: Expected<'h>,
}

/// `internal`: a read that disagrees with the transaction's own earlier reads and appends (Cerone et
/// al.'s axiom INT). For each key the transaction expects what it last read (if it read it) followed by
/// what it appended since; without an earlier read, only the appended tail is known.
fn internal<'h>(index: &Index<'_>, txns: &Txns<'h>, t: TxnId, scratch: &mut Scratch<'h>, cases: &mut Cases) {
    let (mops, keys) = (txns.mops(t), index.keys_of(t));
    let found = match mops.len() <= LOOK_BACK {
        true => contradiction_by_look_back(mops, keys),
        false => contradiction_by_state(mops, keys, &mut scratch.expected),
    };
    let Some(Contradiction { read, expected: (base, tail) }) = found else { return };
    let Mop::Read { key, value } = &mops[read] else { return };
    let expected = match base {
        Some(base) => ListText(&[base, tail.as_slice()].concat()).to_string(),
        None => format!("[... {}]", ListText(&tail).to_string().trim_matches(['[', ']'])),
    };
    let text = format!(
        "{} read key {key} = {}, but its own earlier micro-ops mean it should have read {expected}",
        txns.name(t),
        ListText(read_of(value))
    );
    let facts = facts([("mop", mop_json(&mops[read])), ("expected", json!(expected))]);
    push(cases, "internal", case(txns, &[t], Some(key), facts, text));
}

/// [`internal`]'s look for a short transaction (`keys` are its micro-ops' key ids): at each read, the
/// key's last read before it and the appends since are found by looking back.
fn contradiction_by_look_back<'h>(mops: &'h [Mop], keys: &[KeyId]) -> Option<Contradiction<'h>> {
    for (i, mop) in mops.iter().enumerate() {
        let Mop::Read { value, .. } = mop else { continue };
        let k = keys[i];
        let same_key = |j: &usize| keys[*j] == k && matches!(mops[*j], Mop::Read { .. } | Mop::Append { .. });
        let Some(first) = (0..i).find(same_key) else { continue };
        let last_read = (first..i).rev().filter(same_key).find(|&j| matches!(mops[j], Mop::Read { .. }));
        let tail = || {
            (last_read.map_or(first, |j| j + 1)..i).filter(same_key).filter_map(|j| match &mops[j] {
                Mop::Append { value, .. } => Some(*value),
                _ => None,
            })
        };
        let (read, tail_len) = (read_of(value), tail().count());
        let base = last_read.map(|j| match &mops[j] {
            Mop::Read { value, .. } => read_of(value),
            _ => &[],
        });
        let consistent = match base {
            Some(base) => {
                read.len() == base.len() + tail_len
                    && read.starts_with(base)
                    && tail().eq(read[base.len()..].iter().copied())
            }
            None => read.len() >= tail_len && tail().eq(read[read.len() - tail_len..].iter().copied()),
        };
        if !consistent {
            return Some(Contradiction { read: i, expected: (base, tail().collect()) });
        }
    }
    None
}

/// [`internal`]'s look for a long transaction: per key, what a read must show, kept as the micro-ops
/// are walked.
fn contradiction_by_state<'h>(
    mops: &'h [Mop],
    keys: &[KeyId],
    state: &mut KeySlots<Option<Expected<'h>>>,
) -> Option<Contradiction<'h>> {
    state.clear();
    for (i, mop) in mops.iter().enumerate() {
        let slot = state.entry(keys[i], || None);
        match mop {
            Mop::Append { value, .. } => match slot {
                Some((_, tail)) => tail.push(*value),
                None => *slot = Some((None, vec![*value])),
            },
            Mop::Read { value, .. } => {
                let read = read_of(value);
                let Some((base, tail)) = slot else {
                    *slot = Some((Some(read), Vec::new()));
                    continue;
                };
                let consistent = match base {
                    Some(base) => {
                        read.len() == base.len() + tail.len() && read.starts_with(base) && read.ends_with(tail)
                    }
                    None => read.ends_with(tail),
                };
                if !consistent {
                    return Some(Contradiction { read: i, expected: (*base, std::mem::take(tail)) });
                }
                *base = Some(read);
                tail.clear();
            }
            _ => {}
        }
    }
    None
}

/// `future-read`: a read that shows an element the same transaction appends only later.
fn future_read<'h>(index: &Index<'_>, txns: &Txns<'h>, t: TxnId, scratch: &mut Scratch<'h>, cases: &mut Cases) {
    let (mops, keys) = (txns.mops(t), index.keys_of(t));
    let found = match mops.len() <= LOOK_BACK {
        true => future_read_by_look_back(mops, keys),
        false => future_read_by_state(mops, keys, &mut scratch.first_read_of),
    };
    let Some((read, append)) = found else { return };
    let (Mop::Read { .. }, Mop::Append { key, value }) = (&mops[read], &mops[append]) else { return };
    let text = format!(
        "{} read {}, which includes {value}, before it appended {value} to key {key} itself",
        txns.name(t),
        mops[read]
    );
    push(
        cases,
        "future-read",
        case(txns, &[t], Some(key), facts([("mop", mop_json(&mops[read])), ("element", json!(value))]), text),
    );
}

/// [`future_read`]'s look for a short transaction: the first append whose element an earlier read of
/// its key shows, and the first such read, as (read, append) positions.
fn future_read_by_look_back(mops: &[Mop], keys: &[KeyId]) -> Option<(usize, usize)> {
    mops.iter().enumerate().find_map(|(i, mop)| {
        let Mop::Append { value, .. } = mop else { return None };
        let shows = |j: &usize| {
            keys[*j] == keys[i]
                && matches!(&mops[*j], Mop::Read { value: Observed::List(list), .. } if list.contains(value))
        };
        (0..i).find(shows).map(|j| (j, i))
    })
}

/// [`future_read`]'s look for a long transaction: each (key, element) read is remembered with its first
/// read.
fn future_read_by_state(
    mops: &[Mop],
    keys: &[KeyId],
    first_read_of: &mut FxHashMap<(KeyId, i64), usize>,
) -> Option<(usize, usize)> {
    // Clearing costs the map's capacity: one long read must not tax every transaction after it.
    match first_read_of.capacity() > 4096 {
        true => *first_read_of = FxHashMap::default(),
        false => first_read_of.clear(),
    }
    for (i, mop) in mops.iter().enumerate() {
        match mop {
            Mop::Read { value: Observed::List(list), .. } => {
                for &e in list.iter() {
                    first_read_of.entry((keys[i], e)).or_insert(i);
                }
            }
            Mop::Append { value, .. } => {
                if let Some(&j) = first_read_of.get(&(keys[i], *value)) {
                    return Some((j, i));
                }
            }
            _ => {}
        }
    }
    None
}

/// `duplicate-elements`: a read holding one element more than once.
fn duplicates(txns: &Txns<'_>, t: TxnId, mop: &Mop, key: &Key, list: &[i64], cases: &mut Cases) {
    let mut counts: BTreeMap<i64, usize> = BTreeMap::new();
    for e in list {
        *counts.entry(*e).or_default() += 1;
    }
    counts.retain(|_, n| *n > 1);
    if counts.is_empty() {
        return;
    }
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

/// `incompatible-order`: reads of one key that are not all prefixes of its longest read, so no single
/// order of appends explains them. Reported once per key, with the first pair (by length) that
/// disagrees, as Elle does.
fn incompatible_orders(index: &Index<'_>, txns: &Txns<'_>, bad_keys: &[bool], cases: &mut Cases) {
    if !bad_keys.contains(&true) {
        return;
    }
    // One pass gathers every read of every bad key, in transaction order.
    let mut reads: BTreeMap<KeyId, Vec<(&[i64], TxnId)>> = BTreeMap::new();
    for t in txns.ids().filter(|&t| txns.outcome(t) == OpType::Ok) {
        for (i, mop) in txns.mops(t).iter().enumerate() {
            let k = index.key_of(t, i);
            if let Mop::Read { value: Observed::List(list), .. } = mop
                && bad_keys[k as usize]
                && !list.is_empty()
            {
                reads.entry(k).or_default().push((list, t));
            }
        }
    }
    for (k, mut values) in reads {
        // A stable sort keeps equal reads in transaction order, so deduplication keeps the first reader.
        values.sort_by(|a, b| a.0.len().cmp(&b.0.len()).then_with(|| a.0.cmp(b.0)));
        values.dedup_by(|later, first| later.0 == first.0);
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

/// `dirty-update`: in a key's version order, a committed append that follows an append by a failed
/// transaction. The order is the committed reads' only: Elle counts reads by failed transactions too, but
/// a transaction that did not commit constrains nothing, and with no committed read showing the aborted
/// append, the committed transactions alone may be serial.
fn dirty_updates(index: &Index<'_>, txns: &Txns<'_>, cases: &mut Cases) {
    for (k, versions) in index.versions.iter().enumerate() {
        // The initial state counts as committed.
        let mut state = OpType::Ok;
        let mut since: Option<TxnId> = None;
        let mut run: Vec<i64> = Vec::new();
        // The key's version order: its longest read's distinct elements, each where it first appears.
        for &e in versions {
            let Some(w) = index.elem(k as KeyId, e).map(|el| el.writer).filter(|&w| w != NO_TXN) else { continue };
            let outcome = txns.outcome(w);
            if state == OpType::Ok && outcome == OpType::Ok {
                // The common case, with nothing to remember but the writer.
                since = Some(w);
                run.clear();
                run.push(e);
                continue;
            }
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
    // Every (key, last element of the version read, transaction, the read) of a committed transaction
    // that read a key and then appended to it, in transaction order.
    let parts = chunks::per_chunk(txns.len(), |ids| read_then_appended(index, txns, ids));
    let mut updates: Vec<Update> = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    // Each range's part freed once copied, and a sort that needs no room of its own: a transaction
    // reads-then-appends a key at most once, so ordering by transaction too keeps each group of one
    // version in transaction order.
    parts.into_iter().for_each(|part| updates.extend(part));
    updates.sort_unstable_by_key(|&(k, version, t, _)| (k, version, t));
    let mut found: Vec<&[Update]> =
        updates.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)).filter(|group| group.len() > 1).collect();
    found.sort_unstable_by_key(|group| (group[0].0, group[0].2));
    for group in found {
        let k = group[0].0;
        let key = index.keys[k as usize];
        let ids: Vec<TxnId> = group.iter().map(|&(_, _, t, _)| t).collect();
        let read = read_list(txns, group[0].3);
        let names: Vec<String> = ids.iter().map(|&t| txns.name(t)).collect();
        let text = format!(
            "{} all read key {key} = {} and then appended to it, and all committed: each appended without seeing the \
             others' appends, though they all read the same version, which no serial order allows (Elle's lost \
             update: the appends need not be missing from later reads)",
            names.join(", "),
            ListText(read)
        );
        push(cases, "lost-update", case(txns, &ids, Some(key), facts([("value", json!(read))]), text));
    }
}

/// A committed transaction's read of a key and then append to it: the key, the last element of the
/// version read, the transaction, and the read.
type Update = (KeyId, Option<i64>, TxnId, ReadAt);

/// A transaction's first read of a key: the last element of the version read, and the read.
type FirstRead = (Option<i64>, ReadAt);

/// For each committed transaction among `ids` and each key it read before its first append to it: the
/// key, the last element of the version its first read of the key saw, the transaction and that read.
fn read_then_appended(index: &Index<'_>, txns: &Txns<'_>, ids: Range<TxnId>) -> Vec<Update> {
    let mut updates = Vec::new();
    // Per key this transaction touched: its first read, if it came before the transaction's first
    // append to that key (`None` once an append came first: later reads of the key are not external),
    // and whether it appended.
    let mut keys: KeySlots<(Option<FirstRead>, bool)> = KeySlots::default();
    for t in ids.filter(|&t| txns.outcome(t) == OpType::Ok) {
        keys.clear();
        let mops = index.mops_of(t);
        let start = mops.start;
        for j in mops {
            let k = index.mop_keys[j];
            let b = index.mop_bits[j];
            let (first_read, written) = keys.entry(k, || (None, false));
            if b & bits::READ != 0 {
                if first_read.is_none() && !*written {
                    let last = (b & bits::HAS_LAST != 0).then_some(index.mop_elems[j]);
                    *first_read = Some((last, ReadAt { txn: t, mop: (j - start) as u32 }));
                }
            } else if !*written {
                *written = true;
                if let Some((version, at)) = *first_read {
                    updates.push((k, version, t, at));
                }
            }
        }
    }
    updates
}

#[cfg(test)]
mod tests {
    use histories::{Key, Mop, Observed};
    use proptest::prelude::*;
    use rustc_hash::FxHashMap;

    use super::*;

    fn append(k: u32, v: i64) -> Mop {
        Mop::Append { key: Key::Int(k.into()), value: v }
    }

    fn read(k: u32, list: Option<Vec<i64>>) -> Mop {
        Mop::Read { key: Key::Int(k.into()), value: list.map_or(Observed::Nil, |l| Observed::List(l.into())) }
    }

    fn keys(mops: &[Mop]) -> Vec<KeyId> {
        mops.iter()
            .map(|m| match m.key() {
                Some(Key::Int(k)) => *k as KeyId,
                _ => unreachable!("the tests' micro-ops have integer keys"),
            })
            .collect()
    }

    /// A contradiction as plain data: (read, base, tail).
    type Found = Option<(usize, Option<Vec<i64>>, Vec<i64>)>;

    /// Both looks of `internal`.
    fn contradictions(mops: &[Mop]) -> [Found; 2] {
        let keys = keys(mops);
        let plain = |c: Option<Contradiction<'_>>| c.map(|c| (c.read, c.expected.0.map(<[i64]>::to_vec), c.expected.1));
        [
            plain(contradiction_by_look_back(mops, &keys)),
            plain(contradiction_by_state(mops, &keys, &mut KeySlots::default())),
        ]
    }

    fn future_reads(mops: &[Mop]) -> [Option<(usize, usize)>; 2] {
        let keys = keys(mops);
        [future_read_by_look_back(mops, &keys), future_read_by_state(mops, &keys, &mut FxHashMap::default())]
    }

    #[test]
    fn a_read_must_show_the_last_read_and_the_appends_since() {
        // [r 0 [1]] [append 0 2] [r 0 [1 2]]: consistent; then [r 0 [1 3]] contradicts [1 2].
        let ok = [read(0, Some(vec![1])), append(0, 2), append(1, 7), read(0, Some(vec![1, 2]))];
        assert_eq!(contradictions(&ok), [None, None]);
        let bad = [read(0, Some(vec![1])), append(0, 2), read(1, None), read(0, Some(vec![1, 3]))];
        assert_eq!(contradictions(&bad), [Some((3, Some(vec![1]), vec![2])), Some((3, Some(vec![1]), vec![2]))]);
        // Without an earlier read only the tail is known: [append 0 5] then a read ending in 4.
        let tail = [append(0, 5), read(0, Some(vec![3, 4]))];
        assert_eq!(contradictions(&tail), [Some((1, None, vec![5])), Some((1, None, vec![5]))]);
        assert_eq!(contradictions(&[append(0, 5), read(0, Some(vec![3, 5]))]), [None, None]);
    }

    #[test]
    fn a_read_showing_a_later_append_of_its_own_is_found_with_the_first_such_read() {
        let mops = [read(1, Some(vec![4])), read(0, Some(vec![2, 9])), read(0, Some(vec![9])), append(0, 9)];
        assert_eq!(future_reads(&mops), [Some((1, 3)), Some((1, 3))]);
        // The same element read of another key, or read only after the append, is no future read.
        let near = [read(1, Some(vec![9])), append(0, 9), read(0, Some(vec![9]))];
        assert_eq!(future_reads(&near), [None, None]);
    }

    fn mop() -> impl Strategy<Value = Mop> {
        prop_oneof![
            (0..3u32, 1..5i64).prop_map(|(k, v)| append(k, v)),
            (0..3u32, proptest::option::weighted(0.8, proptest::collection::vec(1..5i64, 0..4)))
                .prop_map(|(k, list)| read(k, list)),
        ]
    }

    proptest! {
        /// A short transaction's looks back agree with the per-key state a long one keeps.
        #[test]
        fn looking_back_finds_what_keeping_state_finds(mops in proptest::collection::vec(mop(), 0..=LOOK_BACK)) {
            let [back, state] = contradictions(&mops);
            prop_assert_eq!(back, state);
            let [back, state] = future_reads(&mops);
            prop_assert_eq!(back, state);
        }
    }
}
