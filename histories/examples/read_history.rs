//! Reads a history file as `isocheck check` does and prints how long it took and how many operations
//! it held, for measuring the readers apart from the checker. The history is not dropped, so the
//! process's CPU time (`/usr/bin/time`, `perf stat`) is the reading's own, the file's read included:
//!
//! ```sh
//! cargo run --release -p histories --example read_history -- /tmp/h1m.jsonl
//! ```

use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: read_history FILE")?;
    let started = Instant::now();
    let history = histories::read_file(path.as_ref())?;
    println!("read {} operations in {:.3} s", history.len(), started.elapsed().as_secs_f64());
    // Freeing millions of operations takes a while, and the measure is of reading.
    std::mem::forget(history);
    Ok(())
}
