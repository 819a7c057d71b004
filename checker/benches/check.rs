//! Checking generated list-append histories of 10k and 100k transactions (strict-serializable, the
//! default), from JSON Lines text to verdict: the figures in the README's performance section. A
//! 1M-transaction history is measured with the command line instead (see the README), because one
//! iteration takes seconds.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use generators::{ListAppend, Params, serial::SerialRun};
use histories::Format;

fn history_text(n: usize) -> String {
    let params = Params { key_count: 10, min_txn_len: 1, max_txn_len: 4, max_writes_per_key: 32, ..Params::default() };
    let txns: Vec<_> = ListAppend::new(params, 1).expect("valid parameters").take(n).collect();
    let run = SerialRun::new(&txns, 1, 10, 5);
    let mut out = Vec::new();
    histories::write_jsonl(run.history.ops(), &mut out).expect("writing to memory");
    String::from_utf8(out).expect("JSON is UTF-8")
}

fn check(c: &mut Criterion) {
    let mut group = c.benchmark_group("check list-append");
    group.sample_size(10);
    for n in [10_000, 100_000] {
        let text = history_text(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, text| {
            b.iter(|| {
                let history =
                    histories::parse(text, Format::JsonLines, "bench.jsonl").expect("a generated history parses");
                let result = checker::check(&history, &checker::Options::default()).expect("it checks");
                assert_eq!(result.valid, checker::Validity::Valid);
            });
        });
    }
    group.finish();
}

criterion_group!(benches, check);
criterion_main!(benches);
