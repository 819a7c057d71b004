//! Items grouped by a dense bucket id (a key, a row of versions), each bucket's items in the order they
//! were given, with no vector per bucket. The analyses group millions of items this way (writes and
//! externals by key, appends by key, reads by version) to work on one bucket while its data is in cache.
//!
//! The grouping is a counting sort done in two steps, so that neither writes all over memory: first each
//! source of items (a range of transactions) splits its items among at most [`MAX_PARTITIONS`]
//! partitions of consecutive buckets, a stream each; then each partition, small enough to stay in cache,
//! is counted and laid out by bucket in its own stretch of the result. Both steps run on all cores.
//! Written in one step, every item went to its bucket's place directly: at 10M transactions, hundreds of
//! thousands of keys meant a cache miss an item, seconds on one core.
//!
//! This module owns the grouping; what is grouped, and what is done with a bucket, are the callers'. (The
//! graph groups its edges by source itself, since it frees each list of edges as it goes.)

use rayon::iter::{IntoParallelIterator, ParallelIterator};

/// Items by bucket: bucket `b`'s are `items[start[b]..start[b + 1]]`, in the order given.
#[derive(Debug)]
pub struct Buckets<T> {
    start: Vec<u32>,
    items: Vec<T>,
}

/// The most partitions the first step splits items among: few enough that their write positions stay
/// in cache, many enough that a partition of a big history's items does too.
const MAX_PARTITIONS: usize = 1024;

impl<T: Copy + Send + Sync> Buckets<T> {
    /// Groups the items of `sources` sources, source `s`'s being `items(s)`, each with its bucket (below
    /// `bucket_count`): within a bucket, source 0's items come first, then source 1's, and so on, each
    /// source's in the order it gave them. `items(s)` is called twice, from any thread, and must yield
    /// the same items both times. `blank` fills the room before it is written.
    pub fn from_sources<I: Iterator<Item = (usize, T)>>(
        bucket_count: usize,
        blank: T,
        sources: usize,
        items: impl Fn(usize) -> I + Sync,
    ) -> Buckets<T> {
        // Partition `p` holds the buckets `p << shift ..`.
        let shift = (0..usize::BITS).find(|&s| bucket_count >> s < MAX_PARTITIONS).unwrap_or(0);
        let partitions = if bucket_count == 0 { 0 } else { ((bucket_count - 1) >> shift) + 1 };
        // Step one: each source's items, bucket attached, by partition, counted first to be stored exactly.
        let split: Vec<Vec<Vec<(u32, T)>>> = (0..sources)
            .into_par_iter()
            .map(|s| {
                let mut counts = vec![0usize; partitions];
                for (b, _) in items(s) {
                    counts[b >> shift] += 1;
                }
                let mut parts: Vec<Vec<(u32, T)>> = counts.into_iter().map(Vec::with_capacity).collect();
                for (b, item) in items(s) {
                    parts[b >> shift].push((b as u32, item));
                }
                parts
            })
            .collect();
        let sizes: Vec<usize> = (0..partitions).map(|p| split.iter().map(|parts| parts[p].len()).sum()).collect();
        let total: usize = sizes.iter().sum();
        let mut start = vec![0u32; bucket_count + 1];
        start[bucket_count] = u32::try_from(total).expect("fewer than 2^32 items to group");
        let mut grouped = vec![blank; total];
        // Step two: each partition laid out by bucket in its own stretch of `start` and of the items.
        let mut jobs = Vec::with_capacity(partitions);
        let (mut starts_left, mut items_left) = (&mut start[..bucket_count], &mut grouped[..]);
        let mut base = 0u32;
        for (p, &size) in sizes.iter().enumerate() {
            let buckets = (bucket_count - (p << shift)).min(1 << shift);
            let (starts, rest) = starts_left.split_at_mut(buckets);
            starts_left = rest;
            let (out, rest) = items_left.split_at_mut(size);
            items_left = rest;
            jobs.push((p << shift, base, starts, out));
            base += size as u32;
        }
        jobs.into_par_iter().for_each(|(first, base, starts, out)| {
            let mut fill = vec![0u32; starts.len()];
            for parts in &split {
                for &(b, _) in &parts[first >> shift] {
                    fill[b as usize - first] += 1;
                }
            }
            let mut at = 0u32;
            for (start, fill) in starts.iter_mut().zip(&mut fill) {
                *start = base + at;
                (at, *fill) = (at + *fill, at);
            }
            for parts in &split {
                for &(b, item) in &parts[first >> shift] {
                    let fill = &mut fill[b as usize - first];
                    out[*fill as usize] = item;
                    *fill += 1;
                }
            }
        });
        Buckets { start, items: grouped }
    }

    /// Bucket `b`'s items, in the order given.
    pub fn of(&self, b: usize) -> &[T] {
        &self.items[self.start[b] as usize..self.start[b + 1] as usize]
    }

    /// Where each bucket starts in the items (and, last, their number), and the items.
    pub fn into_parts(self) -> (Vec<u32>, Vec<T>) {
        (self.start, self.items)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn each_bucket_holds_its_items_in_the_order_given() {
        let items = [(2, 'a'), (0, 'b'), (2, 'c'), (3, 'd'), (0, 'e'), (2, 'f')];
        let buckets = Buckets::from_sources(5, ' ', 1, |_| items.iter().copied());
        let got: Vec<String> = (0..5).map(|b| buckets.of(b).iter().collect()).collect();
        assert_eq!(got, ["be", "", "acf", "d", ""]);
        let (start, grouped) = buckets.into_parts();
        assert_eq!(start, [0, 2, 2, 5, 6, 6]);
        assert_eq!(grouped.iter().collect::<String>(), "beacfd");
    }

    #[test]
    fn no_buckets_no_items() {
        let buckets = Buckets::from_sources(0, 0u8, 3, |_| std::iter::empty());
        assert_eq!(buckets.into_parts(), (vec![0], vec![]));
    }

    proptest! {
        /// Many buckets (several to a partition) and several sources: each bucket holds source 0's items,
        /// then source 1's, each in the order given, as one walk over the sources would put them.
        #[test]
        fn sources_keep_their_order_within_each_bucket(
            bucket_count in 1..5000usize,
            sources in proptest::collection::vec(proptest::collection::vec(any::<u32>(), 0..300), 0..6),
        ) {
            let sources: Vec<Vec<(usize, (usize, usize))>> = sources
                .iter()
                .enumerate()
                .map(|(s, items)| items.iter().enumerate().map(|(i, &b)| (b as usize % bucket_count, (s, i))).collect())
                .collect();
            let buckets = Buckets::from_sources(bucket_count, (0, 0), sources.len(), |s| sources[s].iter().copied());
            let mut expected = vec![Vec::new(); bucket_count];
            for &(b, item) in sources.iter().flatten() {
                expected[b].push(item);
            }
            for (b, items) in expected.iter().enumerate() {
                prop_assert_eq!(buckets.of(b), &items[..]);
            }
        }
    }
}
