//! A list of lists kept as one flat list and where each inner list starts: each transaction's reads
//! and written keys, hundreds of thousands of short lists, without an allocation (and a free) each.

use std::ops::Index;

/// Lists of `T`, numbered from 0, built by pushing items to the last list and closing it.
#[derive(Debug, Clone)]
pub(crate) struct Ragged<T> {
    /// List `i` is `items[start[i]..start[i + 1]]`; `start` has one more entry than there are lists.
    start: Vec<u32>,
    items: Vec<T>,
}

impl<T> Ragged<T> {
    /// No lists, room for about `lists` lists of `items` items in all.
    pub fn with_capacity(lists: usize, items: usize) -> Ragged<T> {
        let mut start = Vec::with_capacity(lists + 1);
        start.push(0);
        Ragged { start, items: Vec::with_capacity(items) }
    }

    /// Adds an item to the list being built (the one the next [`Ragged::close`] ends).
    pub fn push(&mut self, item: T) {
        self.items.push(item);
    }

    /// Ends the list being built: the next items go to a new one.
    pub fn close(&mut self) {
        self.start.push(self.items.len() as u32);
    }

    /// Every list, in order.
    pub fn iter(&self) -> impl Iterator<Item = &[T]> + '_ {
        self.start.windows(2).map(|w| &self.items[w[0] as usize..w[1] as usize])
    }

    /// How many items there are in all.
    pub fn items(&self) -> usize {
        self.items.len()
    }
}

impl<T> Index<usize> for Ragged<T> {
    type Output = [T];

    fn index(&self, i: usize) -> &[T] {
        &self.items[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::Ragged;

    #[test]
    fn lists_come_back_as_pushed_empty_ones_included() {
        let mut r = Ragged::with_capacity(3, 3);
        r.push(1);
        r.push(2);
        r.close();
        r.close();
        r.push(3);
        r.close();
        assert_eq!((&r[0], &r[1], &r[2]), (&[1, 2][..], &[][..], &[3][..]));
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![&[1, 2][..], &[][..], &[3][..]]);
        assert_eq!(r.items(), 3);
    }
}
