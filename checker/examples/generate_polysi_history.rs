//! Writes a black-box rw-register history of the kind PolySI (VLDB 2023) and VeriStrong (VLDB 2026)
//! publish, as JSON Lines, for `scripts/bench-exact`:
//!
//! ```sh
//! cargo run --release -p checker --example generate_polysi_history -- 10000 /tmp/polysi.jsonl \
//!     [SEED] [SESSIONS] [KEYS] [OPS] [uniform|zipfian]
//! ```
//!
//! Defaults: seed 1, 20 sessions, 10,000 keys, 8 micro-ops a transaction, keys drawn uniformly (`zipfian`:
//! YCSB's constant 0.99), half the micro-ops reads, every written value unique, and no version or
//! commit order recorded (the database is a black box). The transactions run under snapshot isolation
//! with first-committer-wins, as the databases those papers test do: at each step a random session either
//! begins its next transaction (taking a snapshot) or, if one is open, commits it (or aborts it, recorded
//! `fail`, if a transaction that committed since its snapshot wrote a key it writes). Each transaction's
//! invocation is recorded when it begins and its completion when it ends, so transactions overlap in real
//! time as they did in the run. The history satisfies snapshot isolation, and serializability unless a
//! write skew happened to commit (rare with many keys, frequent with few hot ones).

use std::collections::HashMap;
use std::io::{BufWriter, Write};

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A micro-op: a read (its value filled in when it runs) or a write of a unique value.
#[derive(Clone, Copy)]
enum Mop {
    Read(u32, Option<i64>),
    Write(u32, i64),
}

/// A transaction open in a session: its snapshot (commit timestamp it sees up to) and micro-ops.
struct Open {
    snapshot: u64,
    mops: Vec<Mop>,
    invoked: u64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: generate_polysi_history N PATH [SEED] [SESSIONS] [KEYS] [OPS] [uniform|zipfian]";
    let n: usize = args.next().ok_or(usage)?.parse()?;
    let path = args.next().ok_or(usage)?;
    let seed: u64 = args.next().map_or(Ok(1), |s| s.parse())?;
    let sessions: usize = args.next().map_or(Ok(20), |s| s.parse())?;
    let keys: u32 = args.next().map_or(Ok(10_000), |s| s.parse())?;
    let ops: usize = args.next().map_or(Ok(8), |s| s.parse())?;
    let zipfian = match args.next().as_deref() {
        None | Some("uniform") => false,
        Some("zipfian") => true,
        Some(_) => return Err(usage.into()),
    };
    if sessions == 0 || keys == 0 || ops == 0 {
        return Err("SESSIONS, KEYS and OPS must be positive".into());
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    // The cumulative Zipfian weights, for drawing a key by inverting them.
    let cumulative: Vec<f64> = if zipfian {
        let mut total = 0.0;
        (0..keys)
            .map(|i| {
                total += 1.0 / f64::from(i + 1).powf(0.99);
                total
            })
            .collect()
    } else {
        Vec::new()
    };
    let draw_key = |rng: &mut Xoshiro256PlusPlus| -> u32 {
        if zipfian {
            let u = rng.random::<f64>() * cumulative[cumulative.len() - 1];
            cumulative.partition_point(|&c| c < u).min(keys as usize - 1) as u32
        } else {
            rng.random_range(0..keys)
        }
    };
    // Each key's committed versions: (commit timestamp, value), oldest first.
    let mut versions: HashMap<u32, Vec<(u64, i64)>> = HashMap::new();
    let mut open: Vec<Option<Open>> = (0..sessions).map(|_| None).collect();
    let mut out = BufWriter::new(std::fs::File::create(&path)?);
    let (mut begun, mut ended, mut clock, mut index, mut next_value) = (0usize, 0usize, 0u64, 0u64, 1i64);
    let text = |mops: &[Mop], with_reads: bool| -> String {
        let parts: Vec<String> = mops
            .iter()
            .map(|m| match *m {
                Mop::Read(k, Some(v)) if with_reads => format!("[\"r\",{k},{v}]"),
                Mop::Read(k, _) => format!("[\"r\",{k},null]"),
                Mop::Write(k, v) => format!("[\"w\",{k},{v}]"),
            })
            .collect();
        format!("[{}]", parts.join(","))
    };
    while ended < n {
        let s = rng.random_range(0..sessions);
        clock += 1;
        match open[s].take() {
            None if begun < n => {
                let mops: Vec<Mop> = (0..ops)
                    .map(|_| {
                        let k = draw_key(&mut rng);
                        if rng.random_bool(0.5) {
                            Mop::Read(k, None)
                        } else {
                            next_value += 1;
                            Mop::Write(k, next_value - 1)
                        }
                    })
                    .collect();
                writeln!(
                    out,
                    "{{\"index\":{index},\"type\":\"invoke\",\"process\":{s},\"f\":\"txn\",\"time\":{clock},\"value\":{}}}",
                    text(&mops, false)
                )?;
                index += 1;
                begun += 1;
                open[s] = Some(Open { snapshot: clock, mops, invoked: clock });
            }
            None => {}
            Some(mut txn) => {
                // Reads see the snapshot, then the transaction's own earlier writes.
                let mut own: HashMap<u32, i64> = HashMap::new();
                for m in &mut txn.mops {
                    match *m {
                        Mop::Read(k, _) => {
                            let seen = own.get(&k).copied().or_else(|| {
                                versions
                                    .get(&k)
                                    .and_then(|vs| vs.iter().rev().find(|&&(ts, _)| ts <= txn.snapshot))
                                    .map(|&(_, v)| v)
                            });
                            *m = Mop::Read(k, seen);
                        }
                        Mop::Write(k, v) => {
                            own.insert(k, v);
                        }
                    }
                }
                let conflict = own
                    .keys()
                    .any(|k| versions.get(k).and_then(|vs| vs.last()).is_some_and(|&(ts, _)| ts > txn.snapshot));
                let kind = if conflict { "fail" } else { "ok" };
                if !conflict {
                    for (&k, &v) in &own {
                        versions.entry(k).or_default().push((clock, v));
                    }
                }
                debug_assert!(txn.invoked < clock);
                writeln!(
                    out,
                    "{{\"index\":{index},\"type\":\"{kind}\",\"process\":{s},\"f\":\"txn\",\"time\":{clock},\"value\":{}}}",
                    text(&txn.mops, !conflict)
                )?;
                index += 1;
                ended += 1;
            }
        }
    }
    out.flush()?;
    eprintln!("wrote {index} operations ({n} transactions, {sessions} sessions, {keys} keys) to {path}");
    Ok(())
}
