//! Items grouped by a dense bucket id (a key, a row of versions), each bucket's items in the order they
//! were given: a counting sort in two passes over the items, one count and one fill, with no vector per
//! bucket. The analyses group millions of items this way (writes and externals by key, appends by key,
//! reads by version) to work on one bucket while its data is in cache. This module owns the grouping; what
//! is grouped, and what is done with a bucket, are the callers'. (The graph groups its edges by source
//! itself, since it frees each list of edges as it goes.)

/// Items by bucket: bucket `b`'s are `items[start[b]..start[b + 1]]`, in the order given.
#[derive(Debug)]
pub struct Buckets<T> {
    start: Vec<u32>,
    items: Vec<T>,
}

impl<T: Copy> Buckets<T> {
    /// Groups the items `items()` yields, each with its bucket (below `bucket_count`); `items` is called
    /// twice and must yield the same items both times. `blank` fills the room before it is written.
    pub fn new<I: Iterator<Item = (usize, T)>>(bucket_count: usize, blank: T, items: impl Fn() -> I) -> Buckets<T> {
        let mut start = vec![0u32; bucket_count + 1];
        for (b, _) in items() {
            start[b + 1] += 1;
        }
        for b in 0..bucket_count {
            start[b + 1] += start[b];
        }
        let mut fill = start.clone();
        let mut grouped = vec![blank; start[bucket_count] as usize];
        for (b, item) in items() {
            grouped[fill[b] as usize] = item;
            fill[b] += 1;
        }
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
    use super::*;

    #[test]
    fn each_bucket_holds_its_items_in_the_order_given() {
        let items = [(2, 'a'), (0, 'b'), (2, 'c'), (3, 'd'), (0, 'e'), (2, 'f')];
        let buckets = Buckets::new(5, ' ', || items.iter().copied());
        let got: Vec<String> = (0..5).map(|b| buckets.of(b).iter().collect()).collect();
        assert_eq!(got, ["be", "", "acf", "d", ""]);
        let (start, grouped) = buckets.into_parts();
        assert_eq!(start, [0, 2, 2, 5, 6, 6]);
        assert_eq!(grouped.iter().collect::<String>(), "beacfd");
    }
}
