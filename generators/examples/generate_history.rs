//! Writes a strict-serializable list-append or rw-register history of N transactions as JSON Lines, for
//! benchmarks and for comparing checkers on the same input:
//!
//! ```sh
//! cargo run --release -p generators --example generate_history -- 100000 /tmp/h100k.jsonl [SEED] [WORKLOAD] [WRITES]
//! ```
//!
//! `WORKLOAD` is `list-append` (the default) or `rw-register`. Transactions are drawn as Elle's generator
//! draws them (10 active keys, exponential key choice, 1 to 4 micro-ops, `WRITES` writes per key, 32
//! unless given: Elle's `:max-writes-per-key`, whose larger values make longer lists), executed
//! serially, and recorded on 10 clients whose transactions overlap by up to 5 commits.

use std::io::{BufWriter, Write};

use generators::{ListAppend, Params, RwRegister, serial::SerialRun};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: generate_history N PATH [SEED] [list-append|rw-register] [WRITES-PER-KEY]";
    let n: usize = args.next().ok_or(usage)?.parse()?;
    let path = args.next().ok_or(usage)?;
    let seed: u64 = args.next().map_or(Ok(1), |s| s.parse())?;
    let workload = args.next().unwrap_or_else(|| "list-append".into());
    let max_writes_per_key: u64 = args.next().map_or(Ok(32), |s| s.parse())?;
    let params = Params { key_count: 10, min_txn_len: 1, max_txn_len: 4, max_writes_per_key, ..Params::default() };
    let txns: Vec<_> = match workload.as_str() {
        "list-append" => ListAppend::new(params, seed)?.take(n).collect(),
        "rw-register" => RwRegister::new(params, seed)?.take(n).collect(),
        _ => return Err(usage.into()),
    };
    let run = SerialRun::new(&txns, seed, 10, 5);
    let mut out = BufWriter::new(std::fs::File::create(&path)?);
    histories::write_jsonl(run.history.ops(), &mut out)?;
    out.flush()?;
    eprintln!("wrote {} operations to {path}", run.history.len());
    Ok(())
}
