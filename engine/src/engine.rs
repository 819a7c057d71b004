//! The engine handle, its configuration, and the state every transaction shares.
//!
//! Owns: [`Engine`] (a cheap, shareable handle), [`EngineConfig`] (the planted defect, the lock timeout and test
//! hooks), and `EngineInner`, which ties the clock, the key space, SSI, the wait-for graph and the counters
//! together. Does not own a transaction's begin, end and statements (`txn.rs`), the commit protocol (`commit.rs`),
//! waiting (`lock_wait.rs`) or sessions (`session.rs`, which also opens one: [`Engine::session`]).
//!
//! Lock order, outermost first: a session's state; the commit lock; then exactly one of a chain, the SSI registry,
//! the predicate-lock table, a store shard, the active-snapshot set, the wait-for graph, a session's wait slot, a
//! transaction lock's state or the list of forgotten keys waiting to be dropped, never two of those at once, except
//! that the forgotten-key set is taken inside a store shard (`store.rs`). A statement waiting for another transaction holds only its
//! session's state (and blocks on the other's transaction lock); `kill` wakes it before taking that state. The
//! transaction gate exists only for the `global-lock` defect; `begin` takes it inside the session's state lock and
//! before anything else.

use std::fmt;
use std::time::{Duration, Instant};

use crate::defect::Defect;
use crate::error::{Error, Result};
use crate::key::RowKey;
use crate::lock_wait::WaitGraph;
use crate::snapshot::Clock;
use crate::ssi::Ssi;
use crate::stats::{Counters, EngineStats, StorageStats};
use crate::store::Store;
use crate::sync::{Arc, Condvar, Mutex, lock, wait_timeout};

/// A callback run during commit after each write is installed, with the written key. Tests use it to pause a commit
/// half-way and show that readers cannot see half a commit (or can, with the `non-atomic-commit` defect).
pub type InstallHook = Arc<dyn Fn(&RowKey) + Send + Sync>;

/// How to build an [`Engine`].
#[derive(Clone)]
pub struct EngineConfig {
    pub(crate) defect: Option<Defect>,
    pub(crate) lock_timeout: Duration,
    pub(crate) install_hook: Option<InstallHook>,
}

impl Default for EngineConfig {
    fn default() -> EngineConfig {
        EngineConfig { defect: None, lock_timeout: Duration::from_secs(10), install_hook: None }
    }
}

impl fmt::Debug for EngineConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EngineConfig")
            .field("defect", &self.defect)
            .field("lock_timeout", &self.lock_timeout)
            .field("install_hook", &self.install_hook.as_ref().map(|_| "<fn>"))
            .finish()
    }
}

impl EngineConfig {
    /// The correct engine: no defect, a 10 s lock timeout, no hook.
    pub fn new() -> EngineConfig {
        EngineConfig::default()
    }

    /// Plants `defect` (or none).
    pub fn defect(mut self, defect: Option<Defect>) -> EngineConfig {
        self.defect = defect;
        self
    }

    /// How long a wait for a lock may last before failing with [`Error::LockTimeout`]: a write waiting for another
    /// transaction's uncommitted version, or `begin` waiting for the transaction lock of the `global-lock` defect.
    /// A last resort against a transaction left open forever (deadlocks are detected without it); the default,
    /// 10 s, is far beyond any wait a running workload causes.
    pub fn lock_timeout(mut self, timeout: Duration) -> EngineConfig {
        self.lock_timeout = timeout;
        self
    }

    /// Runs `hook` during every commit after each of its writes is installed (see [`InstallHook`]). The hook runs
    /// under the commit lock, so it must not commit on this engine itself.
    pub fn install_hook(mut self, hook: impl Fn(&RowKey) + Send + Sync + 'static) -> EngineConfig {
        self.install_hook = Some(Arc::new(hook));
        self
    }
}

/// The embedded MVCC engine. Cloning is cheap and shares the data; it is `Send + Sync`.
#[derive(Clone, Debug)]
pub struct Engine {
    inner: Arc<EngineInner>,
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new(EngineConfig::default())
    }
}

impl Engine {
    /// An empty engine built with `config`.
    pub fn new(config: EngineConfig) -> Engine {
        let ssi = Ssi::new(config.defect);
        let inner = EngineInner {
            config,
            clock: Clock::default(),
            store: Store::default(),
            ssi,
            commit_lock: Mutex::new(()),
            waits: WaitGraph::default(),
            gate: Gate::default(),
            counters: Counters::default(),
            forgotten_waiting: Mutex::new(Vec::new()),
        };
        Engine { inner: Arc::new(inner) }
    }

    /// An empty engine with `defect` planted (or the correct engine for `None`).
    pub fn with_defect(defect: Option<Defect>) -> Engine {
        Engine::new(EngineConfig::new().defect(defect))
    }

    /// The planted defect, if any.
    pub fn defect(&self) -> Option<Defect> {
        self.inner.config.defect
    }

    /// Commits and aborts so far.
    pub fn stats(&self) -> EngineStats {
        self.inner.counters.snapshot()
    }

    /// What the engine holds in memory now. Walks every chain, so it is meant for tests and reports, not hot paths.
    pub fn storage_stats(&self) -> StorageStats {
        let chains = self.inner.store.all();
        let (tracked_transactions, predicate_locks) = self.inner.ssi.tracked();
        let (forgotten_keys, forgotten_entries) = self.inner.store.forgotten();
        let mut stats = StorageStats {
            keys: chains.len(),
            tracked_transactions,
            predicate_locks,
            forgotten_keys,
            forgotten_entries,
            forgotten_waiting: lock(&self.inner.forgotten_waiting).len(),
            ..StorageStats::default()
        };
        for chain in chains {
            let c = chain.lock();
            stats.versions += c.version_count();
            stats.max_chain = stats.max_chain.max(c.version_count());
            stats.siread_locks += c.reader_count();
        }
        stats
    }

    /// Prunes every key's versions that no live snapshot can see and drops the SIREAD locks SSI has
    /// released, as a commit does for the keys it writes (PostgreSQL's vacuum): a key no transaction
    /// writes any more keeps them otherwise. Also drops the forgotten keys whose dropping waited for a
    /// writer ([`Engine::forget`]). The engine runs it itself every [`VACUUM_EVERY`] commits.
    pub fn vacuum(&self) {
        self.inner.vacuum();
    }

    /// Forgets `keys`: the caller promises that no statement will ever name one again, and the engine drops
    /// each key's versions, SIREAD locks and place in the key space, so that a workload that moves on to fresh
    /// keys (Elle's list-append) runs in flat memory. A statement that names a forgotten key afterwards, or
    /// scans a range holding one, fails with [`Error::ForgottenKey`] (or [`Error::ForgottenRange`]) rather
    /// than reading it as absent; the forgotten keys are remembered compactly for that (runs of consecutive
    /// numbers, `crate::forgotten`).
    ///
    /// Meant for keys no running transaction names either. One that does is still safe: a transaction that
    /// holds an uncommitted version of the key commits or rolls it back as usual, and the key is dropped
    /// once it has (at the next `forget` or vacuum); any statement of it naming the key again fails. Versions
    /// of forgotten keys that were read before they were forgotten were read as they were.
    pub fn forget<'k>(&self, keys: impl IntoIterator<Item = &'k RowKey>) {
        self.inner.forget(keys);
    }

    /// Keys forgotten so far ([`Engine::forget`]), each counted once.
    pub fn forgotten_keys(&self) -> u64 {
        self.inner.store.forgotten().0
    }

    pub(crate) fn inner(&self) -> &EngineInner {
        &self.inner
    }
}

/// The shared state behind an [`Engine`].
#[derive(Debug)]
pub(crate) struct EngineInner {
    pub(crate) config: EngineConfig,
    pub(crate) clock: Clock,
    pub(crate) store: Store,
    pub(crate) ssi: Ssi,
    /// Serializes validation and installation of commits; held for a few chain operations per written key.
    pub(crate) commit_lock: Mutex<()>,
    /// Which blocked transaction waits for which, for deadlock detection.
    pub(crate) waits: WaitGraph,
    pub(crate) gate: Gate,
    pub(crate) counters: Counters,
    /// Forgotten keys whose chains still hold a running transaction's uncommitted version, to drop once it ended.
    pub(crate) forgotten_waiting: Mutex<Vec<RowKey>>,
}

/// Commits between two vacuums (`Engine::vacuum`): a sweep of every key costs about as much as this many
/// commits' own pruning, so it stays a small share of the work.
pub const VACUUM_EVERY: u64 = 1 << 16;

impl EngineInner {
    pub(crate) fn defect(&self) -> Option<Defect> {
        self.config.defect
    }

    /// [`Engine::vacuum`]: each chain in turn, under its own lock, with the horizon at that moment (every
    /// live snapshot is at or after it, as when a commit prunes).
    pub(crate) fn vacuum(&self) {
        self.drop_forgotten_waiting();
        for chain in self.store.all() {
            let horizon = self.clock.horizon();
            chain.lock().vacuum(horizon);
        }
    }

    /// [`Engine::forget`], in the order `store.rs` gives: the key joins the forgotten set, its chain is marked,
    /// and the chain leaves the store unless a running transaction's uncommitted version holds it.
    pub(crate) fn forget<'k>(&self, keys: impl IntoIterator<Item = &'k RowKey>) {
        let mut waiting = Vec::new();
        for key in keys {
            if let Some(chain) = self.store.forget(key) {
                let droppable = chain.lock().forget();
                match droppable {
                    true => self.store.remove(key, &chain),
                    false => waiting.push(key.clone()),
                }
            }
        }
        self.drop_forgotten_waiting();
        lock(&self.forgotten_waiting).extend(waiting);
    }

    /// Drops the waiting forgotten keys' chains whose writers have ended.
    fn drop_forgotten_waiting(&self) {
        let keys = std::mem::take(&mut *lock(&self.forgotten_waiting));
        let mut still = Vec::new();
        for key in keys {
            if let Some(chain) = self.store.forgotten_chain(&key) {
                let droppable = chain.lock().forget();
                match droppable {
                    true => self.store.remove(&key, &chain),
                    false => still.push(key),
                }
            }
        }
        lock(&self.forgotten_waiting).extend(still);
    }
}

/// The single transaction lock of the `global-lock` defect: a flag and a condition variable rather than a mutex
/// guard, because it is held across calls (from `begin` to `commit`) and may be released by another thread (`kill`).
#[derive(Debug, Default)]
pub(crate) struct Gate {
    held: Mutex<bool>,
    freed: Condvar,
}

impl Gate {
    pub(crate) fn acquire(&self, timeout: Duration) -> Result<()> {
        let deadline = Instant::now() + timeout;
        let mut held = lock(&self.held);
        while *held {
            let now = Instant::now();
            if now >= deadline {
                return Err(Error::LockTimeout { waited: timeout });
            }
            held = wait_timeout(&self.freed, held, deadline - now);
        }
        *held = true;
        Ok(())
    }

    pub(crate) fn release(&self) {
        *lock(&self.held) = false;
        self.freed.notify_one();
    }
}
