//! The second measurement's figures, as medians: the overlap test (4 clients each holding a write
//! transaction open 100 ms), the bank withdraw run (5 accounts of 200, 4 clients, 2,000 transactions
//! holding 1 ms between reads and write) and YCSB-A (1,000 records of 10 x 100 bytes, 4 clients), on
//! the engine (correct, `ssi-off`, `global-lock`), SQLite, and PostgreSQL when `ISOCHECK_PG_URL` names a
//! server. Prints Markdown tables for docs/performance.md. Run with `cargo bench --bench scenarios`.

use std::sync::Arc;
use std::time::Duration;

use adapters::{EngineSystem, Level, PostgresSystem, SqliteBegin, SqliteSystem, System};
use checker::timing;
use isocheck::judge::judge;
use isocheck::overlap_summary::overlap_summary;
use isocheck::runner::overlap::OverlapConfig;
use isocheck::runner::workload::{Bank, BankParams, TxnSource, YcsbA, YcsbParams};
use isocheck::runner::{Limit, RunConfig, run};

/// Runs of each configuration; the tables show the median.
const RUNS: usize = 5;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn range(xs: &[f64]) -> String {
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!("{lo:.0}–{hi:.0}")
}

type Make = Box<dyn Fn() -> Arc<dyn System>>;

fn systems() -> Vec<(&'static str, Level, Make)> {
    let engine = |defect: Option<engine::Defect>| -> Make { Box::new(move || Arc::new(EngineSystem::new(defect))) };
    let mut systems: Vec<(&'static str, Level, Make)> = vec![
        ("engine, serializable", Level::Serializable, engine(None)),
        ("engine, serializable, `ssi-off`", Level::Serializable, engine(Some(engine::Defect::SsiOff))),
        ("engine, serializable, `global-lock`", Level::Serializable, engine(Some(engine::Defect::GlobalLock))),
        (
            "SQLite (WAL, deferred)",
            Level::Serializable,
            Box::new(|| Arc::new(SqliteSystem::new(SqliteBegin::Deferred).expect("SQLite opens"))),
        ),
    ];
    if let Ok(url) = std::env::var(PostgresSystem::URL_VAR) {
        for (name, level) in
            [("PostgreSQL, serializable", Level::Serializable), ("PostgreSQL, repeatable read", Level::RepeatableRead)]
        {
            let url = url.clone();
            systems.push((
                name,
                level,
                Box::new(move || Arc::new(PostgresSystem::new(&url).expect("PostgreSQL answers"))),
            ));
        }
    } else {
        eprintln!("{} is not set: PostgreSQL is left out", PostgresSystem::URL_VAR);
    }
    systems
}

fn overlap_table() {
    println!(
        "| overlap: 4 clients hold a write transaction 100 ms | median of 5 rounds, per run ({RUNS} runs) | verdict |"
    );
    println!("|---|---|---|");
    for (name, level, make) in systems() {
        if name.contains("ssi-off") || name.contains("repeatable") {
            continue;
        }
        let config = OverlapConfig { level, clients: 4, hold: Duration::from_millis(100), rounds: 5 };
        let medians: Vec<f64> =
            (0..RUNS).map(|_| overlap_summary(&make(), &config, None).expect("overlap runs").elapsed_ms).collect();
        let m = median(medians.clone());
        let verdict = timing::overlap_verdict(4, 4, config.hold, Duration::from_secs_f64(m / 1000.0));
        println!("| {name} | {m:.1} ms (runs: {} ms) | {} |", range(&medians), verdict.name());
    }
}

fn bank_table() {
    println!();
    println!(
        "| bank withdraw: 5 x 200, 4 clients, 2,000 transactions, 1 ms hold | aborts | committed withdrawals | final total | overdrawn runs | hold concurrency | flags |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (name, level, make) in systems() {
        let (mut aborts, mut withdrawals, mut finals, mut concurrency) = (vec![], vec![], vec![], vec![]);
        let (mut overdrawn, mut flags) = (0, std::collections::BTreeSet::new());
        for seed in 0..RUNS as u64 {
            let params = BankParams { hold: Duration::from_millis(1), ..BankParams::default() };
            let workload = Arc::new(Bank::new(params, seed + 1, 4).expect("bank"));
            let system = make();
            let config = RunConfig {
                system: Arc::clone(&system),
                level,
                workload: Arc::clone(&workload) as Arc<dyn TxnSource>,
                clients: 4,
                limit: Limit::Txns(2000),
                progress: false,
                nemesis: None,
                record: true,
                online: None,
            };
            let outcome = run(&config).expect("the run completes");
            let options = checker::Options::new(&[level.promised_model().to_string()], &[]).expect("the level's model");
            let (result, _) = judge(&outcome, workload.as_ref(), &options, level, 4, system.as_ref()).expect("judged");
            let invariants = &result.invariants;
            let figure = |inv: &str, fig: &str| {
                invariants.iter().find(|i| i.name == inv).and_then(|i| i.figures[fig].as_f64()).unwrap_or(f64::NAN)
            };
            aborts.push(outcome.fail as f64);
            withdrawals.push(figure("withdrawals-within-total", "committed_withdrawals"));
            finals.push(figure("final-total", "final_total"));
            overdrawn += usize::from(invariants.iter().any(|i| !i.holds));
            let holds = workload.holds().expect("the bank holds");
            concurrency.push(holds.count as f64 * holds.hold.as_secs_f64() / holds.busy.as_secs_f64());
            flags.extend(result.flags.into_iter().map(|f| f.name));
        }
        println!(
            "| {name} | {} | {} | {} | {overdrawn}/{RUNS} | {:.2} | {} |",
            median(aborts),
            median(withdrawals),
            median(finals),
            median(concurrency),
            if flags.is_empty() { "none".to_string() } else { flags.into_iter().collect::<Vec<_>>().join(", ") },
        );
    }
}

fn ycsb_table() {
    println!();
    println!(
        "| YCSB-A: 1,000 x 10 x 100 B, 50/50 read/update, scrambled Zipfian, 4 clients | operations | ops/s | aborts |"
    );
    println!("|---|---|---|---|");
    for (name, level, make) in systems() {
        if name.contains("ssi-off") || name.contains("repeatable") {
            continue;
        }
        let ops: u64 = if name.starts_with("engine") { 100_000 } else { 20_000 };
        let (mut tps, mut aborts) = (vec![], vec![]);
        for seed in 0..RUNS as u64 {
            let workload = Arc::new(YcsbA::new(YcsbParams::default(), seed + 1, 4).expect("ycsb"));
            let config = RunConfig {
                system: make(),
                level,
                workload,
                clients: 4,
                limit: Limit::Txns(ops),
                progress: false,
                nemesis: None,
                record: true,
                online: None,
            };
            let outcome = run(&config).expect("the run completes");
            tps.push(ops as f64 / outcome.elapsed.as_secs_f64());
            aborts.push(outcome.fail as f64 * 100.0 / ops as f64);
            if seed == 0 && !outcome.causes.is_empty() {
                eprintln!("{name}: aborts by cause {:?}", outcome.causes);
            }
        }
        println!("| {name} | {ops} | {:.0} (runs: {}) | {:.2}% |", median(tps.clone()), range(&tps), median(aborts));
    }
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not, and gets a quick no-op.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    overlap_table();
    bank_table();
    ycsb_table();
}
