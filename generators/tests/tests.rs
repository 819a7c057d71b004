//! The `generators` integration tests, one harness with a module per concern: the histories the
//! generators write, read back by the JSON Lines reader's fast path exactly as by its general reader
//! (`fast_json_reading`), and the seeded histories saved for the checker's golden results, still what the
//! generators write (`saved_histories`).

mod fast_json_reading;
mod saved_histories;
