//! The list-append micro-ops flattened: for each micro-op its key id, its kind ([`super::bits`]) and its
//! element, in three flat arrays in transaction order, so later passes walk arrays rather than every
//! transaction's micro-ops through a pointer each. Built on all cores: each range of transactions
//! (`chunks`) is flattened with keys numbered by the range, then the ranges' keys are numbered in range
//! order, which gives every key the id of its first appearance in the whole history, as a sequential
//! walk would. This module owns the flattening; what is learnt from the arrays is the index's.

use histories::{Key, Mop, Observed, OpType};
use rayon::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

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

/// One range's micro-ops, with key ids of the range's own.
struct Part<'h> {
    keys: Vec<&'h Key>,
    mop_keys: Vec<KeyId>,
    mop_bits: Vec<u8>,
    mop_elems: Vec<i64>,
    /// Per key, the length of its longest committed read in the range, and the first such read.
    longest: Vec<(usize, Option<ReadAt>)>,
}

/// Flattens the micro-ops of `txns`, refusing those that are not list-append's (the first in
/// transaction order, as a sequential walk would).
pub(super) fn flatten<'h>(txns: &Txns<'h>) -> Result<Flat<'h>, CheckError> {
    let mut mop_start = Vec::with_capacity(txns.len() + 1);
    let mut total = 0u32;
    for t in txns.ids() {
        mop_start.push(total);
        total += txns.mops(t).len() as u32;
    }
    mop_start.push(total);
    let parts = chunks::ranges(txns.len()).into_par_iter().map(|ids| part(txns, ids)).collect::<Vec<_>>();
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
    let parts: Vec<Part<'h>> = parts
        .into_par_iter()
        .zip(renames)
        .map(|(mut part, rename)| {
            for k in &mut part.mop_keys {
                *k = rename[*k as usize];
            }
            part
        })
        .collect();
    let mut flat = Flat {
        keys,
        mop_start,
        mop_keys: Vec::with_capacity(total as usize),
        mop_bits: Vec::with_capacity(total as usize),
        mop_elems: Vec::with_capacity(total as usize),
        longest: longest.into_iter().map(|(_, at)| at).collect(),
    };
    for part in parts {
        flat.mop_keys.extend_from_slice(&part.mop_keys);
        flat.mop_bits.extend_from_slice(&part.mop_bits);
        flat.mop_elems.extend_from_slice(&part.mop_elems);
    }
    Ok(flat)
}

fn part<'h>(txns: &Txns<'h>, ids: std::ops::Range<TxnId>) -> Result<Part<'h>, CheckError> {
    let mut keys = KeyIds::default();
    let mut part = Part {
        keys: Vec::new(),
        mop_keys: Vec::new(),
        mop_bits: Vec::new(),
        mop_elems: Vec::new(),
        longest: Vec::new(),
    };
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
            part.mop_keys.push(k);
            part.mop_bits.push(b);
            part.mop_elems.push(e);
        }
    }
    Ok(part)
}
