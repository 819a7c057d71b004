//! The key space: a sharded, ordered map from keys to version chains.
//!
//! Owns: finding and creating a key's [`Chain`] and listing the chains in a range. Does not own anything inside a
//! chain. Keys are spread over [`SHARDS`] ordered maps by hash, each behind a reader-writer lock that is held only to
//! look up or insert an `Arc<Chain>`, never while a chain is locked, so statements on different keys contend at most
//! for a shared read lock, and a range scan merges the shards' ranges.

use std::collections::BTreeMap;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};

use crate::key::{KeyRange, RowKey};
use crate::sync::{Arc, RwLock, read, write};
use crate::version_chain::Chain;

/// How many shards the key space is split into; a power of two well above the client counts we run.
pub(crate) const SHARDS: usize = 32;

/// The sharded key space.
#[derive(Debug)]
pub(crate) struct Store {
    shards: Vec<RwLock<BTreeMap<RowKey, Arc<Chain>>>>,
}

impl Default for Store {
    fn default() -> Store {
        Store { shards: (0..SHARDS).map(|_| RwLock::default()).collect() }
    }
}

impl Store {
    fn shard(&self, key: &RowKey) -> &RwLock<BTreeMap<RowKey, Arc<Chain>>> {
        // A fixed-key hasher, so shard placement (and thus any timing) is the same on every run.
        let hash = BuildHasherDefault::<DefaultHasher>::default().hash_one(key);
        &self.shards[(hash as usize) % SHARDS]
    }

    /// The key's chain, if the key was ever written or read under serializable.
    pub(crate) fn get(&self, key: &RowKey) -> Option<Arc<Chain>> {
        read(self.shard(key)).get(key).cloned()
    }

    /// The key's chain, created empty if needed.
    pub(crate) fn get_or_create(&self, key: &RowKey) -> Arc<Chain> {
        if let Some(chain) = self.get(key) {
            return chain;
        }
        Arc::clone(write(self.shard(key)).entry(key.clone()).or_default())
    }

    /// The chains whose keys lie in `range`, in key order.
    pub(crate) fn range(&self, range: &KeyRange) -> Vec<(RowKey, Arc<Chain>)> {
        let mut found: Vec<(RowKey, Arc<Chain>)> = Vec::new();
        for shard in &self.shards {
            found.extend(read(shard).range(range.clone()).map(|(k, c)| (k.clone(), Arc::clone(c))));
        }
        found.sort_by(|a, b| a.0.cmp(&b.0));
        found
    }

    /// Every chain, for storage statistics.
    pub(crate) fn all(&self) -> Vec<Arc<Chain>> {
        self.shards.iter().flat_map(|s| read(s).values().cloned().collect::<Vec<_>>()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_merges_shards_in_key_order() {
        let store = Store::default();
        for i in (0..50).rev() {
            store.get_or_create(&RowKey::Int(i));
        }
        let keys: Vec<RowKey> =
            store.range(&KeyRange::new(RowKey::Int(10)..RowKey::Int(15))).into_iter().map(|e| e.0).collect();
        assert_eq!(keys, (10..15).map(RowKey::Int).collect::<Vec<_>>());
        assert!(Arc::ptr_eq(&store.get_or_create(&RowKey::Int(3)), &store.get_or_create(&RowKey::Int(3))));
    }
}
