//! Prints the engine's measured figures: the overlap test, the bank-withdraw test and YCSB-A-like throughput,
//! each as the median of several runs. Run with `cargo run --release -p engine --example measure`.

#[path = "../benches/workloads/mod.rs"]
mod workloads;

use std::time::Duration;

use engine::{Defect, Engine, Isolation};
use workloads::Ycsb;

const RUNS: usize = 5;

fn median<T: Copy + PartialOrd>(mut xs: Vec<T>) -> T {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    xs[xs.len() / 2]
}

fn main() {
    println!("overlap: 4 clients each hold a transaction open for 100 ms (median of {RUNS})");
    for defect in [None, Some(Defect::GlobalLock)] {
        let engine = Engine::with_defect(defect);
        let ms: Vec<f64> =
            (0..RUNS).map(|_| workloads::overlap(&engine, 4, Duration::from_millis(100)).as_secs_f64() * 1e3).collect();
        let name = defect.map_or("correct".to_owned(), |d| d.to_string());
        println!("  {name:<12} {:>6.1} ms  (runs: {ms:.1?})", median(ms.clone()));
    }

    println!("bank: 5 accounts of 200, 4 clients x 50 withdrawals of 100 (median of {RUNS})");
    let cases = [
        (Isolation::ReadCommitted, None),
        (Isolation::SnapshotIsolation, None),
        (Isolation::Serializable, None),
        (Isolation::Serializable, Some(Defect::SsiOff)),
    ];
    for (level, defect) in cases {
        let outcomes: Vec<_> =
            (0..RUNS as u64).map(|seed| workloads::bank(&Engine::with_defect(defect), level, 4, 50, seed)).collect();
        let negative = outcomes.iter().filter(|o| o.final_total < 0).count();
        let name = format!("{level}{}", defect.map_or(String::new(), |d| format!(" +{d}")));
        println!(
            "  {name:<28} final total median {:>5}, lowest {:>5}; aborts median {:>3}; negative in {negative}/{RUNS} runs",
            median(outcomes.iter().map(|o| o.final_total).collect()),
            outcomes.iter().map(|o| o.lowest_total_seen).min().unwrap_or(0),
            median(outcomes.iter().map(|o| o.aborts).collect()),
        );
    }

    const TXNS: usize = 20_000;
    println!("ycsb-a: 1000 records of 1000 bytes, transactions of 4 ops, 50/50 read/update, zipfian 0.99");
    println!("        {TXNS} transactions per client, median of {RUNS}");
    for level in [Isolation::SnapshotIsolation, Isolation::Serializable] {
        for clients in [1, 2] {
            let cfg = Ycsb { records: 1000, ops: 4, level };
            let runs: Vec<(f64, u64, u64)> = (0..RUNS as u64)
                .map(|seed| {
                    let engine = Engine::default();
                    cfg.load(&engine);
                    let (elapsed, commits, aborts) = cfg.run(&engine, clients, TXNS, seed);
                    (commits as f64 / elapsed.as_secs_f64(), commits, aborts)
                })
                .collect();
            let tps = median(runs.iter().map(|r| r.0).collect());
            let aborts = median(runs.iter().map(|r| r.2).collect());
            let rate = aborts as f64 / (clients * TXNS) as f64 * 100.0;
            println!("  {level:<19} {clients} client(s): {tps:>9.0} commits/s, aborts median {aborts} ({rate:.2}%)");
        }
    }
}
