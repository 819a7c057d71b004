//! `isocheck overlap`: is the concurrency real? N clients meet at a barrier; each begins, writes its own
//! row, holds the transaction open for the hold time, and commits. A system that runs transactions at
//! once finishes a round in about one hold; one that serializes them (a global lock, a single writer)
//! takes about N holds, or longer when a lock-based system makes clients back off and retry. A client
//! whose transaction aborts retries it until it commits, and the retries are counted by cause. The median
//! round decides the verdict (`checker::timing`), and a serialized one raises the `fully-serialized` flag.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use adapters::{Failure, Session, System};
use anyhow::{Context, anyhow, bail};
use checker::timing::{self, HoldTiming};
use histories::Key;
use serde_json::json;

use crate::cli::{FailOn, OutputFormat, OverlapArgs};
use crate::commands::run::{open, serialized_by_design};
use crate::exit;

/// How long a client keeps retrying its transaction in one round before the round fails.
const RETRY_FOR: Duration = Duration::from_secs(30);

/// What one round measured.
struct Round {
    elapsed: Duration,
    retries: BTreeMap<String, u64>,
}

pub fn run(args: &OverlapArgs) -> anyhow::Result<u8> {
    let system = open(args.db, args.url.as_deref(), args.defect.as_deref(), args.sqlite_begin)?;
    let support = system.level(args.isolation);
    if !support.is_runnable() {
        bail!("{} cannot run {}: {}", system.name(), args.isolation, support.describe());
    }
    let clients = usize::from(args.clients);
    let hold = Duration::from_millis(args.hold_ms);
    let rows: Vec<(Key, i64)> = (0..clients as i64).map(|c| (Key::Int(c), 0)).collect();
    system.prepare(&rows).context("preparing the system")?;
    let mut rounds = Vec::with_capacity(usize::from(args.rounds));
    for round in 0..u64::from(args.rounds) {
        rounds.push(one_round(&system, args, clients, hold, round).with_context(|| format!("round {}", round + 1))?);
    }
    let mut sorted: Vec<Duration> = rounds.iter().map(|r| r.elapsed).collect();
    sorted.sort_unstable();
    let median = sorted[sorted.len() / 2];
    let verdict = timing::overlap_verdict(clients, clients as u64, hold, median);
    let timing = HoldTiming { clients, hold, holds: clients as u64, elapsed: median };
    let documented = serialized_by_design(system.as_ref());
    let flags: Vec<checker::Flag> = timing::fully_serialized(&timing, "overlap", documented).into_iter().collect();
    let mut retries: BTreeMap<String, u64> = BTreeMap::new();
    for round in &rounds {
        for (cause, n) in &round.retries {
            *retries.entry(cause.clone()).or_default() += n;
        }
    }
    let ms = |d: Duration| (d.as_secs_f64() * 10_000.0).round() / 10.0;
    let ratio = (median.as_secs_f64() / hold.as_secs_f64() * 100.0).round() / 100.0;
    let report = json!({
        "db": system.name(),
        "clients": clients,
        "hold_ms": args.hold_ms,
        "rounds": args.rounds,
        "elapsed_ms": ms(median),
        "ratio": ratio,
        "verdict": verdict.name(),
        "system_version": system.version(),
        "isolation": args.isolation.name(),
        "level_mapping": support.describe(),
        "defect": args.defect,
        "rounds_ms": rounds.iter().map(|r| ms(r.elapsed)).collect::<Vec<_>>(),
        "retries_by_cause": retries,
        "note": documented,
        "flags": flags,
    });
    let text = match args.format {
        OutputFormat::Json => serde_json::to_string_pretty(&report)? + "\n",
        OutputFormat::Text => text(&report, &flags),
    };
    std::io::stdout().lock().write_all(text.as_bytes())?;
    let failing = args.fail_on.contains(&FailOn::Flags) && !flags.is_empty();
    Ok(if failing { exit::INVALID } else { exit::VALID })
}

/// One round: connect every client, release them together, and time until the last commit.
fn one_round(
    system: &Arc<dyn System>,
    args: &OverlapArgs,
    clients: usize,
    hold: Duration,
    round: u64,
) -> anyhow::Result<Round> {
    let sessions: Vec<Box<dyn Session>> = (0..clients)
        .map(|c| system.connect().with_context(|| format!("connecting client {c}")))
        .collect::<anyhow::Result<_>>()?;
    let barrier = Barrier::new(clients + 1);
    let level = args.isolation;
    let (start, outcomes) = std::thread::scope(|scope| {
        let barrier = &barrier;
        let handles: Vec<_> = sessions
            .into_iter()
            .enumerate()
            .map(|(c, session)| {
                let value = (round * clients as u64 + c as u64 + 1) as i64;
                scope.spawn(move || hold_once(system.as_ref(), session, level, c, value, hold, barrier))
            })
            .collect();
        barrier.wait();
        let start = Instant::now();
        let outcomes: Vec<_> =
            handles.into_iter().map(|h| h.join().map_err(|_| anyhow!("a client thread panicked"))).collect();
        (start, outcomes)
    });
    let mut end = start;
    let mut retries = BTreeMap::new();
    for outcome in outcomes {
        let (committed, causes) = outcome??;
        end = end.max(committed);
        for (cause, n) in causes {
            *retries.entry(cause).or_default() += n;
        }
    }
    Ok(Round { elapsed: end - start, retries })
}

/// One client's part of a round: after the barrier, begin, write its row, hold, commit; again after
/// each abort. Returns when it committed and its aborts by cause.
fn hold_once(
    system: &dyn System,
    mut session: Box<dyn Session>,
    level: adapters::Level,
    client: usize,
    value: i64,
    hold: Duration,
    barrier: &Barrier,
) -> anyhow::Result<(Instant, BTreeMap<String, u64>)> {
    let key = Key::Int(client as i64);
    let mut aborts: BTreeMap<String, u64> = BTreeMap::new();
    barrier.wait();
    let deadline = Instant::now() + RETRY_FOR;
    loop {
        let attempt = session.begin(level).and_then(|()| session.write(&key, value)).and_then(|()| {
            std::thread::sleep(hold);
            session.commit()
        });
        let e = match attempt {
            Ok(()) => return Ok((Instant::now(), aborts)),
            Err(e) => e,
        };
        if e.failure == Failure::Fatal {
            bail!("client {client}: {e}");
        }
        *aborts.entry(e.cause.clone()).or_default() += 1;
        if Instant::now() > deadline {
            bail!("client {client} could not commit for {} s: last {e}", RETRY_FOR.as_secs());
        }
        if e.session_lost {
            session = system.connect().with_context(|| format!("reconnecting client {client}"))?;
        } else {
            // The transaction is over either way; a failing rollback only means it already was.
            let _ = session.rollback();
        }
    }
}

fn text(report: &serde_json::Value, flags: &[checker::Flag]) -> String {
    let rounds: Vec<String> =
        report["rounds_ms"].as_array().map_or_else(Vec::new, |a| a.iter().map(|r| format!("{r}")).collect());
    let retries = report["retries_by_cause"]
        .as_object()
        .filter(|m| !m.is_empty())
        .map(|m| {
            let causes: Vec<String> = m.iter().map(|(k, v)| format!("{k} {v}")).collect();
            format!("Retries after aborts: {}\n", causes.join(", "))
        })
        .unwrap_or_default();
    let clients = report["clients"].as_u64().unwrap_or(0);
    let hold = report["hold_ms"].as_u64().unwrap_or(0);
    let mut out = format!(
        "Overlap on {} ({}; {}){}: {clients} clients each held a write transaction open {hold} ms, {} rounds\n\
         Rounds: {} ms\n{retries}Median: {} ms = {} x the hold\n\
         Verdict: {} (at once: about {hold} ms; one at a time: about {} ms)\n",
        report["system_version"].as_str().unwrap_or("?"),
        report["isolation"].as_str().unwrap_or("?"),
        report["level_mapping"].as_str().unwrap_or("?"),
        report["defect"].as_str().map_or(String::new(), |d| format!(", planted defect {d}")),
        report["rounds"],
        rounds.join(", "),
        report["elapsed_ms"],
        report["ratio"],
        report["verdict"].as_str().unwrap_or("?"),
        clients * hold,
    );
    for flag in flags {
        out.push_str(&format!("Warning: {}: {}\n", flag.name, flag.message));
    }
    out
}
