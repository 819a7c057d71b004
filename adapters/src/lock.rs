//! Locking a mutex whatever a panicking holder left behind: the adapters' shared state (tables created,
//! admin connections, the exec child) stays usable after a panic in another thread, since each holder
//! leaves it consistent between statements. This module owns that one helper.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// `mutex`'s guard, poisoned or not.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
