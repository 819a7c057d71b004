//! The list-append micro-ops flattened: for each micro-op its key id, its kind ([`super::bits`]) and its
//! element, in three flat arrays in transaction order, so later passes walk arrays rather than every
//! transaction's micro-ops through a pointer each. Built on all cores: each range of transactions
//! (`chunks`) is flattened into its own stretch of the arrays with keys numbered by the range, then the
//! ranges' keys are numbered in range order and renamed in place, which gives every key the id of its first appearance in the whole history, as a sequential
//! walk would. This module owns the flattening; what is learnt from the arrays is the index's.

use histories::{Key, Mop, Observed, OpType};
use rayon::iter::{IndexedParallelIterator, IntoParallelIterator, IntoParallelRefMutIterator, ParallelIterator};

use super::{KeyId, ReadAt, bits, not_list_append};
use crate::chunks;
use crate::error::CheckError;
use crate::graph::TxnId;
use crate::key_ids::{self, KeyIds};
use crate::txn::Txns;

/// Every micro-op of a history, flattened.
pub(super) struct Flat<'h> {
    /// The keys by id, in order of first appearance.
    pub keys: Vec<&'h Key>,
    /// Where each transaction's micro-ops begin (and, last, their total).
    pub mop_start: Vec<u32>,
    pub mop_keys: Vec<KeyId>,
    pub mop_bits: Vec<u8>,
    /// An append's element, or a read's last one (0 for an empty read, whose bits lack `HAS_LAST`).
    pub mop_elems: Vec<i64>,
    /// Per key, the first of its longest reads by an `ok` transaction.
    pub longest: Vec<Option<ReadAt>>,
}

/// What flattening one range learnt besides its stretch of the flat arrays: its keys, numbered by the
/// range, and per key the length of its longest committed read in the range and the first such read.
struct Part<'h> {
    keys: Vec<&'h Key>,
    longest: Vec<(usize, Option<ReadAt>)>,
}

/// One range's stretch of the flat arrays, its key ids the range's own until renamed.
struct Stretch<'a> {
    mop_keys: &'a mut [KeyId],
    mop_bits: &'a mut [u8],
    mop_elems: &'a mut [i64],
}

/// Flattens the micro-ops of `txns`, refusing those that are not list-append's (the first in
/// transaction order, as a sequential walk would). Each range writes its own stretch of the arrays, so
/// nothing is copied afterwards but the keys' renaming, in place.
pub(super) fn flatten<'h>(txns: &Txns<'h>) -> Result<Flat<'h>, CheckError> {
    let mut mop_start = Vec::with_capacity(txns.len() + 1);
    let mut total = 0u32;
    for t in txns.ids() {
        mop_start.push(total);
        total += txns.mops(t).len() as u32;
    }
    mop_start.push(total);
    let mut mop_keys = vec![0; total as usize];
    let mut mop_bits = vec![0; total as usize];
    let mut mop_elems = vec![0; total as usize];
    let ranges = chunks::ranges(txns.len());
    let mut stretches = Vec::with_capacity(ranges.len());
    let (mut keys_left, mut bits_left, mut elems_left) = (&mut mop_keys[..], &mut mop_bits[..], &mut mop_elems[..]);
    for ids in &ranges {
        let len = (mop_start[ids.end as usize] - mop_start[ids.start as usize]) as usize;
        let (mop_keys, rest) = keys_left.split_at_mut(len);
        keys_left = rest;
        let (mop_bits, rest) = bits_left.split_at_mut(len);
        bits_left = rest;
        let (mop_elems, rest) = elems_left.split_at_mut(len);
        elems_left = rest;
        stretches.push(Stretch { mop_keys, mop_bits, mop_elems });
    }
    let parts = ranges
        .into_par_iter()
        .zip(stretches.par_iter_mut())
        .map(|(ids, stretch)| part(txns, ids, stretch))
        .collect::<Vec<_>>();
    let parts = parts.into_iter().collect::<Result<Vec<Part<'h>>, CheckError>>()?;
    // The ranges' keys in range order: each key's global id is that of its first appearance.
    let (keys, _, renames) = key_ids::join_ranges(parts.iter().map(|part| &part.keys[..]));
    let mut longest: Vec<(usize, Option<ReadAt>)> = vec![(0, None); keys.len()];
    // A later range's read replaces an earlier one's only if it is longer: the first longest stays.
    for (part, rename) in parts.iter().zip(&renames) {
        for (local, &(len, at)) in part.longest.iter().enumerate() {
            let global = &mut longest[rename[local] as usize];
            if len > global.0 {
                *global = (len, at);
            }
        }
    }
    stretches.into_par_iter().zip(renames).for_each(|(stretch, rename)| {
        for k in stretch.mop_keys.iter_mut() {
            *k = rename[*k as usize];
        }
    });
    Ok(Flat {
        keys,
        mop_start,
        mop_keys,
        mop_bits,
        mop_elems,
        longest: longest.into_iter().map(|(_, at)| at).collect(),
    })
}

/// Flattens the transactions `ids` into `stretch`, numbering their keys as the range meets them.
fn part<'h>(txns: &Txns<'h>, ids: std::ops::Range<TxnId>, stretch: &mut Stretch<'_>) -> Result<Part<'h>, CheckError> {
    let mut keys = KeyIds::default();
    let mut part = Part { keys: Vec::new(), longest: Vec::new() };
    let mut j = 0;
    for t in ids {
        let committed = txns.outcome(t) == OpType::Ok;
        for (i, mop) in txns.mops(t).iter().enumerate() {
            let (key, b, e) = match mop {
                Mop::Append { key, value } => (key, bits::APPEND, *value),
                Mop::Read { key, value: Observed::List(list) } => match list.last() {
                    Some(&last) => (key, bits::READ | bits::HAS_LAST, last),
                    None => (key, bits::READ, 0),
                },
                Mop::Read { key, value: Observed::Nil } => (key, bits::READ, 0),
                other => return Err(not_list_append(txns, t, other)),
            };
            let (k, new) = keys.intern(key);
            if new {
                part.keys.push(key);
                part.longest.push((0, None));
            }
            // The first of the longest committed reads is the key's version order.
            if let Mop::Read { value: Observed::List(list), .. } = mop
                && committed
                && list.len() > part.longest[k as usize].0
            {
                part.longest[k as usize] = (list.len(), Some(ReadAt { txn: t, mop: i as u32 }));
            }
            stretch.mop_keys[j] = k;
            stretch.mop_bits[j] = b;
            stretch.mop_elems[j] = e;
            j += 1;
        }
    }
    Ok(part)
}
