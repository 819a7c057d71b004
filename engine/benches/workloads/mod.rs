//! The measured workloads, shared by the Criterion bench (`benches/engine.rs`) and the report example
//! (`examples/measure.rs`): the overlap test, the bank-withdraw test and a YCSB-A-like mix.

#![allow(dead_code)]

use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use engine::{Engine, Error, Isolation, RowKey, Value};
pub use generators::SplitMix64;

/// YCSB's Zipfian generator (Gray et al. 1994, "Quickly generating billion-record synthetic databases"), with
/// YCSB's default constant 0.99: item 0 is the hottest.
#[derive(Debug, Clone)]
pub struct Zipfian {
    items: u64,
    theta: f64,
    alpha: f64,
    zetan: f64,
    eta: f64,
}

impl Zipfian {
    pub fn new(items: u64) -> Zipfian {
        let theta = 0.99;
        let zeta = |n: u64| (1..=n).map(|i| 1.0 / (i as f64).powf(theta)).sum::<f64>();
        let zetan = zeta(items);
        let zeta2 = zeta(2);
        let alpha = 1.0 / (1.0 - theta);
        let eta = (1.0 - (2.0 / items as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
        Zipfian { items, theta, alpha, zetan, eta }
    }

    pub fn next(&self, rng: &mut SplitMix64) -> u64 {
        let u = rng.next_f64();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 0;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return 1;
        }
        ((self.items as f64) * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64 % self.items
    }
}

/// The overlap test: `clients` sessions meet at a barrier, each begins, writes its own key, holds the transaction
/// open for `hold`, and commits. Returns the time from the first client's start to the last commit.
pub fn overlap(engine: &Engine, clients: usize, hold: Duration) -> Duration {
    let barrier = Arc::new(Barrier::new(clients));
    let workers: Vec<_> = (0..clients as i64)
        .map(|i| {
            let (engine, barrier) = (engine.clone(), Arc::clone(&barrier));
            thread::spawn(move || -> Result<(Instant, Instant), Error> {
                let mut s = engine.session();
                barrier.wait();
                let started = Instant::now();
                s.begin(Isolation::Serializable)?;
                s.write(i, i)?;
                thread::sleep(hold);
                s.commit()?;
                Ok((started, Instant::now()))
            })
        })
        .collect();
    // From the first client's start to the last commit, both as the clients saw them: a clock started by
    // another thread after the barrier could start late on a busy machine and measure less than a hold.
    let spans: Vec<(Instant, Instant)> =
        workers.into_iter().map(|w| w.join().expect("client").expect("overlap txn")).collect();
    match (spans.iter().map(|s| s.0).min(), spans.iter().map(|s| s.1).max()) {
        (Some(start), Some(end)) => end - start,
        _ => Duration::ZERO,
    }
}

/// What a bank run ended with.
#[derive(Debug, Clone, Copy)]
pub struct BankOutcome {
    pub final_total: i64,
    pub lowest_total_seen: i64,
    pub commits: u64,
    pub aborts: u64,
}

/// The free-running bank-withdraw workload: 5 accounts of 200, `clients` threads each running `txns`
/// transactions that read every balance and, if the total is at least 100, withdraw 100 from a random account.
/// Every fourth transaction sleeps 1 ms between its reads and its write, which is what lets snapshot isolation go
/// negative reliably.
pub fn bank(engine: &Engine, level: Isolation, clients: usize, txns: usize, seed: u64) -> BankOutcome {
    let mut setup = engine.session();
    setup.begin(Isolation::Serializable).expect("begin");
    for a in 0..5 {
        setup.write(a, 200).expect("write");
    }
    setup.commit().expect("commit");
    let workers: Vec<_> = (0..clients as u64)
        .map(|c| {
            let engine = engine.clone();
            thread::spawn(move || {
                let mut rng = SplitMix64::new(seed ^ (c + 1).wrapping_mul(0x9e37_79b9));
                let mut s = engine.session();
                let mut lowest = i64::MAX;
                for t in 0..txns {
                    let account = (rng.next_u64() % 5) as i64;
                    let result = (|| -> Result<(), Error> {
                        s.begin(level)?;
                        let mut balances = Vec::with_capacity(5);
                        for a in 0..5 {
                            balances.push(match s.read(&RowKey::Int(a))? {
                                Some(Value::Int(b)) => b,
                                _ => 0,
                            });
                        }
                        let total: i64 = balances.iter().sum();
                        lowest = lowest.min(total);
                        if t.is_multiple_of(4) {
                            thread::sleep(Duration::from_millis(1));
                        }
                        if total >= 100 {
                            s.write(account, balances[account as usize] - 100)?;
                        }
                        s.commit()
                    })();
                    if result.is_err() {
                        let _ = s.rollback();
                    }
                }
                lowest
            })
        })
        .collect();
    let lowest_seen = workers.into_iter().map(|w| w.join().expect("client")).min().unwrap_or(0);
    let mut check = engine.session();
    check.begin(Isolation::Serializable).expect("begin");
    let final_total = (0..5)
        .map(|a| match check.read(&RowKey::Int(a)) {
            Ok(Some(Value::Int(b))) => b,
            _ => 0,
        })
        .sum();
    check.commit().expect("commit");
    let stats = engine.stats();
    BankOutcome {
        final_total,
        lowest_total_seen: lowest_seen.min(final_total),
        commits: stats.commits,
        aborts: stats.aborts(),
    }
}

/// YCSB-A-like settings: `records` keys of ten 100-byte fields, transactions of `ops` operations, half reads and
/// half updates (a whole new record), keys drawn from a Zipfian distribution.
#[derive(Debug, Clone, Copy)]
pub struct Ycsb {
    pub records: u64,
    pub ops: usize,
    pub level: Isolation,
}

impl Ycsb {
    pub fn key(n: u64) -> RowKey {
        RowKey::Str(format!("user{n:06}"))
    }

    /// Loads the records.
    pub fn load(&self, engine: &Engine) {
        let mut s = engine.session();
        s.begin(Isolation::SnapshotIsolation).expect("begin");
        for n in 0..self.records {
            s.write(Ycsb::key(n), Value::Bytes(vec![b'x'; 1000])).expect("load");
        }
        s.commit().expect("commit");
    }

    /// Runs `txns` transactions per client on `clients` threads; returns the elapsed time and (commits, aborts).
    pub fn run(&self, engine: &Engine, clients: usize, txns: usize, seed: u64) -> (Duration, u64, u64) {
        let before = engine.stats();
        let barrier = Arc::new(Barrier::new(clients + 1));
        let zipf = Zipfian::new(self.records);
        let workers: Vec<_> = (0..clients as u64)
            .map(|c| {
                let (engine, barrier, zipf, cfg) = (engine.clone(), Arc::clone(&barrier), zipf.clone(), *self);
                thread::spawn(move || {
                    let mut rng = SplitMix64::new(seed.wrapping_add(c.wrapping_mul(0x2545_f491_4f6c_dd1d)));
                    let mut s = engine.session();
                    barrier.wait();
                    for _ in 0..txns {
                        let result = (|| -> Result<(), Error> {
                            s.begin(cfg.level)?;
                            for _ in 0..cfg.ops {
                                let key = Ycsb::key(zipf.next(&mut rng));
                                if rng.next_u64().is_multiple_of(2) {
                                    s.read(&key)?;
                                } else {
                                    let byte = (rng.next_u64() % 26) as u8 + b'a';
                                    s.write(key, Value::Bytes(vec![byte; 1000]))?;
                                }
                            }
                            s.commit()
                        })();
                        if result.is_err() {
                            let _ = s.rollback();
                        }
                    }
                })
            })
            .collect();
        barrier.wait();
        let start = Instant::now();
        for w in workers {
            w.join().expect("client");
        }
        let elapsed = start.elapsed();
        let after = engine.stats();
        (elapsed, after.commits - before.commits, after.aborts() - before.aborts())
    }
}
