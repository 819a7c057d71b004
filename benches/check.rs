//! Reading and checking generated list-append histories of 100k and 1M transactions, measured apart:
//! `parse` turns JSON Lines text into a well-formed history (what `isocheck check` does before checking),
//! `check` checks that history for strict serializability (the default, realtime edges included). The
//! histories are generated here, in memory, by the generator `generators/examples/generate_history` uses (seed 1), so
//! nothing large is kept in git. A 1M iteration takes seconds: `cargo bench -p isocheck --bench check --
//! '/100000$'` measures only the smaller size. Whole runs against adya are `scripts/bench-vs-adya`'s.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use generators::{ListAppend, Params, serial::SerialRun};
use histories::Format;

const SIZES: [usize; 2] = [100_000, 1_000_000];

fn history_text(n: usize) -> String {
    let params = Params { key_count: 10, min_txn_len: 1, max_txn_len: 4, max_writes_per_key: 32, ..Params::default() };
    let txns: Vec<_> = ListAppend::new(params, 1).expect("valid parameters").take(n).collect();
    let run = SerialRun::new(&txns, 1, 10, 5);
    let mut out = Vec::new();
    histories::write_jsonl(run.history.ops(), &mut out).expect("writing to memory");
    String::from_utf8(out).expect("JSON is UTF-8")
}

fn parse(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse list-append");
    group.sample_size(10);
    for n in SIZES {
        let text = history_text(n);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, text| {
            b.iter(|| histories::parse(text, Format::JsonLines, "bench.jsonl").expect("a generated history parses"));
        });
    }
    group.finish();
}

fn check(c: &mut Criterion) {
    let mut group = c.benchmark_group("check list-append");
    group.sample_size(10);
    for n in SIZES {
        let history = histories::parse(&history_text(n), Format::JsonLines, "bench.jsonl").expect("it parses");
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &history, |b, history| {
            b.iter(|| {
                let result = checker::check(history, &checker::Options::default()).expect("it checks");
                assert_eq!(result.valid, checker::Validity::Valid);
            });
        });
    }
    group.finish();
}

criterion_group!(benches, parse, check);
criterion_main!(benches);
