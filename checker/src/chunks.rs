//! Work on every core: the transactions cut into ranges of consecutive ids, each range analysed on its
//! own (rayon), and the results handed back in id order, so a parallel analysis produces exactly what a
//! sequential walk would. This module owns the cutting and the ordering; what is done with a range is
//! the caller's.

use std::ops::Range;

use rayon::iter::{IntoParallelIterator, ParallelIterator};

use crate::graph::{EdgeList, TxnId};

/// Transactions in a range: enough that the work outweighs handing it to a thread.
const MIN_CHUNK: usize = 8192;

/// Ranges per core: more than one, so a core that finishes early takes another.
const CHUNKS_PER_THREAD: usize = 8;

/// Runs `work` on consecutive ranges of the ids `0..count`, on all cores; the results come back in the
/// order of their ranges.
pub fn per_chunk<T: Send>(count: usize, work: impl Fn(Range<TxnId>) -> T + Sync + Send) -> Vec<T> {
    ranges(count).into_par_iter().map(work).collect()
}

/// The consecutive ranges `0..count` is cut into, in order.
pub fn ranges(count: usize) -> Vec<Range<TxnId>> {
    let chunks = (count / MIN_CHUNK).clamp(1, rayon::current_num_threads() * CHUNKS_PER_THREAD);
    let size = count.div_ceil(chunks).max(1);
    (0..count).step_by(size).map(|start| start as TxnId..(start + size).min(count) as TxnId).collect()
}

/// The edges `work` finds in each range, in range order.
pub fn edges_per_chunk(count: usize, work: impl Fn(Range<TxnId>) -> EdgeList + Sync + Send) -> EdgeList {
    let mut all = EdgeList::new();
    for edges in per_chunk(count, work) {
        all.extend(edges);
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_is_in_exactly_one_range_and_ranges_come_back_in_order() {
        for count in [0, 1, 7, MIN_CHUNK, MIN_CHUNK + 1, 10 * MIN_CHUNK + 3, 1_000_003] {
            let ranges = per_chunk(count, |r| r);
            let ids: Vec<TxnId> = ranges.into_iter().flatten().collect();
            assert_eq!(ids, (0..count as TxnId).collect::<Vec<_>>(), "{count} ids");
        }
    }
}
