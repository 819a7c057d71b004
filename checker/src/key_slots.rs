//! A map for the keys one transaction touches, cleared and refilled for every transaction of a large
//! history: a vector searched linearly while it is short (most transactions touch a handful of keys, and
//! then a scan beats hashing), indexed by a hash map once it grows, so a transaction of many keys stays
//! linear. This module owns that structure; what is kept per key is the caller's.

use rustc_hash::FxHashMap;

/// Entries beyond which a hash map indexes the vector.
const SHORT: usize = 16;

/// Values by key id for one transaction's keys, in the order the keys were first seen.
#[derive(Debug)]
pub struct KeySlots<V> {
    entries: Vec<(u32, V)>,
    index: FxHashMap<u32, usize>,
}

impl<V> Default for KeySlots<V> {
    fn default() -> Self {
        KeySlots { entries: Vec::new(), index: FxHashMap::default() }
    }
}

impl<V> KeySlots<V> {
    /// Empties the map, keeping its memory for the next transaction.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.index.clear();
    }

    /// The value of key `k`, if it has one.
    #[cfg(test)]
    fn get(&self, k: u32) -> Option<&V> {
        self.slot(k).map(|slot| &self.entries[slot].1)
    }

    /// The value of key `k`, made by `new` if it had none.
    pub fn entry(&mut self, k: u32, new: impl FnOnce() -> V) -> &mut V {
        let slot = match self.slot(k) {
            Some(slot) => slot,
            None => {
                self.entries.push((k, new()));
                if self.entries.len() > SHORT {
                    if self.index.is_empty() {
                        self.index.extend(self.entries.iter().enumerate().map(|(i, (key, _))| (*key, i)));
                    } else {
                        self.index.insert(k, self.entries.len() - 1);
                    }
                }
                self.entries.len() - 1
            }
        };
        &mut self.entries[slot].1
    }

    fn slot(&self, k: u32) -> Option<usize> {
        match self.entries.len() > SHORT {
            true => self.index.get(&k).copied(),
            false => self.entries.iter().position(|(key, _)| *key == k),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn short_and_long_maps_agree_with_a_reference_map() {
        let mut slots: KeySlots<u64> = KeySlots::default();
        // Key counts on both sides of the switch to the index, each map reused after a clear.
        for distinct in [1u32, 3, SHORT as u32, SHORT as u32 + 1, 200] {
            slots.clear();
            let mut reference: BTreeMap<u32, u64> = BTreeMap::new();
            for i in 0..5 * distinct {
                let k = (i * 37 + 11) % distinct;
                *slots.entry(k, || 1000) += u64::from(i);
                *reference.entry(k).or_insert(1000) += u64::from(i);
            }
            for k in 0..distinct + 3 {
                assert_eq!(slots.get(k).copied(), reference.get(&k).copied(), "key {k} of {distinct}");
            }
        }
    }
}
