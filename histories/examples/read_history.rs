//! Reads a history file as `isocheck check` does and prints how long it took and how many operations
//! it held (and how long dropping it took), for measuring the readers apart from the checker:
//!
//! ```sh
//! cargo run --release -p histories --example read_history -- /tmp/h1m.jsonl [RUNS]
//! ```

use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: read_history FILE [RUNS]";
    let path = args.next().ok_or(usage)?;
    let runs: usize = args.next().map_or(Ok(1), |s| s.parse())?;
    for _ in 0..runs {
        let started = Instant::now();
        let history = histories::read_file(path.as_ref())?;
        let read = started.elapsed();
        let ops = history.len();
        let started = Instant::now();
        drop(history);
        let dropped = started.elapsed();
        println!(
            "read {ops} operations in {:.3} s (then dropped in {:.3} s)",
            read.as_secs_f64(),
            dropped.as_secs_f64()
        );
    }
    Ok(())
}
