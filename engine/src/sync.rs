//! Every lock and atomic the engine uses, in one place.
//!
//! Owns: the choice of concurrency primitives (std's today) and the rule for lock poisoning. Does not own: what the
//! locks protect; each module documents its own critical sections and the lock order lives in `engine.rs`. Following
//! redb's `src/sync.rs`, routing all primitives through this module means they could be swapped for loom's
//! model-checked ones without touching the engine.
//!
//! Poisoning: a panic while a lock is held (only possible through a bug or a panicking test hook) must not turn every
//! later statement into a panic too, so the helpers below recover the guard. The data a poisoned lock protects is
//! still consistent here because every critical section either completes its update or changes nothing before the
//! code that could panic.

pub(crate) use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
pub(crate) use std::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};
pub(crate) use std::thread::yield_now;
use std::time::Duration;

/// Locks `mutex`, recovering the guard if another thread panicked while holding it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Takes `lock` shared, recovering the guard if a writer panicked.
pub(crate) fn read<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Takes `lock` exclusively, recovering the guard if a holder panicked.
pub(crate) fn write<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Waits on `condvar` for at most `timeout`, recovering the guard if another thread panicked while holding the
/// mutex. Wakeups may be spurious, so callers re-check their condition in a loop.
pub(crate) fn wait_timeout<'a, T>(condvar: &Condvar, guard: MutexGuard<'a, T>, timeout: Duration) -> MutexGuard<'a, T> {
    match condvar.wait_timeout(guard, timeout) {
        Ok((guard, _)) => guard,
        Err(poisoned) => poisoned.into_inner().0,
    }
}
