//! The key space: a sharded, ordered map from keys to version chains.
//!
//! Owns: finding and creating a key's [`Chain`], listing the chains in a range, and the keys the engine was told to
//! forget (`crate::forgotten`): a lookup that misses a forgotten key fails rather than finds it absent. Does not own
//! anything inside a chain. Keys are spread over [`SHARDS`] ordered maps by hash, each behind a reader-writer lock
//! that is held only to look up, insert or remove an `Arc<Chain>`, never while a chain is locked, so statements on
//! different keys contend at most for a shared read lock, and a range scan merges the shards' ranges.
//!
//! Forgetting a key takes three steps, in this order (`crate::Engine::forget`): the key joins the forgotten set; its
//! chain is marked forgotten under the chain's lock; the chain leaves its shard. A statement looks the key up, then
//! locks the chain and checks the mark (`ChainState::check_live`), so whichever step it meets it fails: the set
//! once the chain is gone, the mark while it is still found. The forgotten set is taken only inside a shard lock or
//! alone, never the other way round.

use std::collections::BTreeMap;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};

use crate::error::{Error, Result};
use crate::forgotten::Forgotten;
use crate::key::{KeyRange, RowKey};
use crate::sync::{Arc, RwLock, read, write};
use crate::version_chain::Chain;

/// How many shards the key space is split into; a power of two well above the client counts we run.
pub(crate) const SHARDS: usize = 32;

/// The sharded key space.
#[derive(Debug)]
pub(crate) struct Store {
    shards: Vec<RwLock<BTreeMap<RowKey, Arc<Chain>>>>,
    forgotten: RwLock<Forgotten>,
}

impl Default for Store {
    fn default() -> Store {
        Store { shards: (0..SHARDS).map(|_| RwLock::default()).collect(), forgotten: RwLock::default() }
    }
}

impl Store {
    fn shard(&self, key: &RowKey) -> &RwLock<BTreeMap<RowKey, Arc<Chain>>> {
        // A fixed-key hasher, so shard placement (and thus any timing) is the same on every run.
        let hash = BuildHasherDefault::<DefaultHasher>::default().hash_one(key);
        &self.shards[(hash as usize) % SHARDS]
    }

    /// The key's chain, if the key was ever written or read under serializable; an error if it was forgotten
    /// (a chain still found may be marked forgotten: the caller checks it under the chain's lock).
    pub(crate) fn get(&self, key: &RowKey) -> Result<Option<Arc<Chain>>> {
        let shard = read(self.shard(key));
        match shard.get(key) {
            Some(chain) => Ok(Some(Arc::clone(chain))),
            None if read(&self.forgotten).contains(key) => Err(Error::ForgottenKey { key: key.clone() }),
            None => Ok(None),
        }
    }

    /// The key's chain, created empty if needed; an error if the key was forgotten.
    pub(crate) fn get_or_create(&self, key: &RowKey) -> Result<Arc<Chain>> {
        if let Some(chain) = self.get(key)? {
            return Ok(chain);
        }
        let mut shard = write(self.shard(key));
        // Checked again under the write lock: a key forgotten since must not be created afresh.
        if !shard.contains_key(key) && read(&self.forgotten).contains(key) {
            return Err(Error::ForgottenKey { key: key.clone() });
        }
        Ok(Arc::clone(shard.entry(key.clone()).or_default()))
    }

    /// The chains whose keys lie in `range`, in key order; an error if a forgotten key lies in it (a chain found may
    /// be marked forgotten: the caller checks each under its lock).
    pub(crate) fn range(&self, range: &KeyRange) -> Result<Vec<(RowKey, Arc<Chain>)>> {
        let mut found: Vec<(RowKey, Arc<Chain>)> = Vec::new();
        for shard in &self.shards {
            found.extend(read(shard).range(range.clone()).map(|(k, c)| (k.clone(), Arc::clone(c))));
        }
        // After the chains are taken: a key forgotten meanwhile is in the set by the time its chain is gone.
        if read(&self.forgotten).intersects(range) {
            return Err(Error::ForgottenRange { range: range.clone() });
        }
        found.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(found)
    }

    /// The first step of forgetting `key`: it joins the forgotten set. Returns its chain, if it has one, for the
    /// caller to mark and then [`Store::remove`].
    pub(crate) fn forget(&self, key: &RowKey) -> Option<Arc<Chain>> {
        write(&self.forgotten).insert(key);
        read(self.shard(key)).get(key).cloned()
    }

    /// Drops `chain`, the chain of `key` (a forgotten key's, marked), from its shard.
    pub(crate) fn remove(&self, key: &RowKey, chain: &Arc<Chain>) {
        let mut shard = write(self.shard(key));
        if shard.get(key).is_some_and(|c| Arc::ptr_eq(c, chain)) {
            shard.remove(key);
        }
    }

    /// The chain of a forgotten key still in its shard (one whose dropping waits), whatever the set says.
    pub(crate) fn forgotten_chain(&self, key: &RowKey) -> Option<Arc<Chain>> {
        read(self.shard(key)).get(key).cloned()
    }

    /// Keys forgotten so far, and the entries the forgotten set holds.
    pub(crate) fn forgotten(&self) -> (u64, usize) {
        let forgotten = read(&self.forgotten);
        (forgotten.count(), forgotten.entries())
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
            store.get_or_create(&RowKey::Int(i)).expect("not forgotten");
        }
        let found = store.range(&KeyRange::new(RowKey::Int(10)..RowKey::Int(15))).expect("not forgotten");
        let keys: Vec<RowKey> = found.into_iter().map(|e| e.0).collect();
        assert_eq!(keys, (10..15).map(RowKey::Int).collect::<Vec<_>>());
        let three = || store.get_or_create(&RowKey::Int(3)).expect("not forgotten");
        assert!(Arc::ptr_eq(&three(), &three()));
    }

    #[test]
    fn a_forgotten_key_is_neither_found_absent_nor_created_again() {
        let store = Store::default();
        let (kept, gone, never) = (RowKey::Int(1), RowKey::Int(2), RowKey::Int(3));
        store.get_or_create(&kept).expect("not forgotten");
        let chain = store.get_or_create(&gone).expect("not forgotten");
        assert!(Arc::ptr_eq(&store.forget(&gone).expect("it has a chain"), &chain));
        store.remove(&gone, &chain);
        assert!(store.forget(&never).is_none(), "a key never named has no chain");
        for key in [&gone, &never] {
            let error = Error::ForgottenKey { key: key.clone() };
            assert_eq!(store.get(key).err(), Some(error.clone()));
            assert_eq!(store.get_or_create(key).err(), Some(error));
        }
        assert!(store.get(&kept).expect("not forgotten").is_some());
        assert_eq!(store.get(&RowKey::Int(4)).expect("not forgotten").map(|_| ()), None);
        assert_eq!(store.all().len(), 1);
        assert_eq!(store.forgotten(), (2, 1));
        let whole = KeyRange::new(RowKey::Int(0)..RowKey::Int(9));
        assert_eq!(store.range(&whole).err(), Some(Error::ForgottenRange { range: whole }));
        assert_eq!(store.range(&KeyRange::new(RowKey::Int(0)..RowKey::Int(2))).map(|f| f.len()), Ok(1));
    }
}
