//! What recording a history costs: the same run against the embedded engine (list-append,
//! serializable, 4 clients, 20,000 transactions) with recording on and off. The difference, divided by
//! the transactions, is the harness's per-transaction overhead in docs/performance.md.

use std::sync::Arc;

use adapters::{EngineSystem, Level};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use generators::Params;
use isocheck::runner::workload::GeneratedWorkload;
use isocheck::runner::{Limit, RunConfig, run};

const TXNS: u64 = 20_000;

fn config(record: bool) -> RunConfig {
    let params = Params { key_count: 8, max_txn_len: 4, ..Params::default() };
    RunConfig {
        system: Arc::new(EngineSystem::new(None)),
        level: Level::Serializable,
        workload: Arc::new(GeneratedWorkload::list_append(params, 1).expect("valid parameters")),
        clients: 4,
        limit: Limit::Txns(TXNS),
        progress: false,
        nemesis: None,
        record,
        online: None,
    }
}

fn recording(c: &mut Criterion) {
    let mut group = c.benchmark_group("engine run, 20k list-append transactions");
    group.sample_size(10);
    group.throughput(Throughput::Elements(TXNS));
    for (name, record) in [("recording on", true), ("recording off", false)] {
        group.bench_function(name, |b| b.iter(|| run(&config(record)).expect("the run completes")));
    }
    group.finish();
}

criterion_group!(benches, recording);
criterion_main!(benches);
