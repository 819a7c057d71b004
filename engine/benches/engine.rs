//! Criterion benchmarks: the overlap test (real elapsed time of four 100 ms transactions, correct engine versus
//! `global-lock`) and YCSB-A-like throughput with one and two clients. Abort counts, which Criterion cannot
//! report, are printed to stderr; `cargo run --release -p engine --example measure` prints every figure at once.

mod workloads;

use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use engine::{Defect, Engine, Isolation};
use workloads::Ycsb;

fn overlap(c: &mut Criterion) {
    let mut group = c.benchmark_group("overlap-4x100ms");
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(7));
    for defect in [None, Some(Defect::GlobalLock)] {
        let name = defect.map_or("correct".to_owned(), |d| d.to_string());
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let engine = Engine::with_defect(defect);
                (0..iters).map(|_| workloads::overlap(&engine, 4, Duration::from_millis(100))).sum()
            })
        });
    }
    group.finish();
}

fn ycsb_a(c: &mut Criterion) {
    let mut group = c.benchmark_group("ycsb-a");
    group.sample_size(10).measurement_time(Duration::from_secs(4));
    const TXNS: usize = 500;
    for level in [Isolation::SnapshotIsolation, Isolation::Serializable] {
        for clients in [1, 2] {
            let cfg = Ycsb { records: 1000, ops: 4, level };
            let engine = Engine::default();
            cfg.load(&engine);
            let (mut commits, mut aborts) = (0, 0);
            group.throughput(Throughput::Elements((TXNS * clients) as u64));
            group.bench_function(format!("{level}/{clients}-client"), |b| {
                b.iter_custom(|iters| {
                    (0..iters)
                        .map(|i| {
                            let (elapsed, c, a) = cfg.run(&engine, clients, TXNS, i);
                            commits += c;
                            aborts += a;
                            elapsed
                        })
                        .sum()
                })
            });
            eprintln!("ycsb-a {level} {clients} client(s): {commits} commits, {aborts} aborts");
        }
    }
    group.finish();
}

criterion_group!(benches, overlap, ycsb_a);
criterion_main!(benches);
