//! Dense ids for a history's keys, in order of first appearance, so the analyses index flat vectors by
//! key. Integer keys, what generated histories use, are looked up by value, without following a
//! pointer to the key, in an [`IntTable`] (generated keys are numbered densely, so it is a vector). This
//! module owns the interning; what is kept per key is each analysis's.

use histories::Key;
use rustc_hash::FxHashMap;

use crate::int_table::IntTable;

/// Keys to dense ids (`u32`), the first key seen 0.
#[derive(Debug, Default)]
pub struct KeyIds<'h> {
    ints: IntTable<u32>,
    others: FxHashMap<&'h Key, u32>,
}

impl<'h> KeyIds<'h> {
    /// The key's id, and whether it is new.
    #[inline]
    pub fn intern(&mut self, key: &'h Key) -> (u32, bool) {
        let next = (self.ints.len() + self.others.len()) as u32;
        let k = match key {
            Key::Int(i) => *self.ints.entry(*i, next),
            other => *self.others.entry(other).or_insert(next),
        };
        (k, k == next)
    }

    /// The key's id, if it has one.
    pub fn get(&self, key: &Key) -> Option<u32> {
        match key {
            Key::Int(i) => self.ints.get(*i).copied(),
            other => self.others.get(other).copied(),
        }
    }
}

/// Ids for the keys ranges of a history named, each range's keys in order of first appearance within it:
/// joined in range order, they give each key the id one walk over the whole history would. Returns the keys
/// by id, their ids, and for each range the id of each of its keys.
pub fn join_ranges<'h, 'r>(ranges: impl Iterator<Item = &'r [&'h Key]>) -> (Vec<&'h Key>, KeyIds<'h>, Vec<Vec<u32>>)
where
    'h: 'r,
{
    let mut ids = KeyIds::default();
    let mut keys = Vec::new();
    let renames = ranges
        .map(|range| {
            range
                .iter()
                .map(|&key| {
                    let (k, new) = ids.intern(key);
                    if new {
                        keys.push(key);
                    }
                    k
                })
                .collect()
        })
        .collect();
    (keys, ids, renames)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_and_string_keys_get_ids_in_order_of_first_appearance() {
        let keys = [Key::Int(5), Key::from("x"), Key::Int(5), Key::Int(-1), Key::from("x"), Key::from("5")];
        let mut ids = KeyIds::default();
        let got: Vec<(u32, bool)> = keys.iter().map(|k| ids.intern(k)).collect();
        assert_eq!(got, vec![(0, true), (1, true), (0, false), (2, true), (1, false), (3, true)]);
        assert_eq!(ids.get(&Key::Int(-1)), Some(2));
        assert_eq!(ids.get(&Key::from("5")), Some(3));
        assert_eq!(ids.get(&Key::Int(6)), None);
    }
}
