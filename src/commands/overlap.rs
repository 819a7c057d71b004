//! `isocheck overlap`: is the concurrency real? Runs the overlap measurement (`runner::overlap`: N
//! clients each hold a write transaction open at once, several rounds), and reports the median round,
//! its ratio to the hold, and the verdict (`checker::timing`): concurrent, serialized or partial. A
//! serialized one raises the `fully-serialized` flag; for SQLite the report says that is its design.

use std::io::Write;
use std::time::Duration;

use anyhow::bail;
use checker::timing::{self, HoldTiming};
use isocheck::runner::overlap::{self, OverlapConfig};
use serde_json::json;

use crate::cli::{FailOn, OutputFormat, OverlapArgs};
use crate::commands::run::serialized_by_design;
use crate::exit;

pub fn run(args: &OverlapArgs) -> anyhow::Result<u8> {
    let defect = args.defect.as_deref().map(str::parse::<engine::Defect>).transpose()?;
    let system = super::systems::open(args.db, args.url.as_deref(), defect, args.sqlite_begin)?;
    let support = system.level(args.isolation);
    if !support.is_runnable() {
        bail!("{} cannot run {}: {}", system.name(), args.isolation, support.describe());
    }
    let clients = usize::from(args.clients);
    let hold = Duration::from_millis(args.hold_ms);
    let config = OverlapConfig { level: args.isolation, clients, hold, rounds: usize::from(args.rounds) };
    let outcome = overlap::measure(&system, &config)?;
    let median = outcome.median();
    let verdict = timing::overlap_verdict(clients, clients as u64, hold, median);
    let timing = HoldTiming { clients, hold, holds: clients as u64, elapsed: median };
    let documented = serialized_by_design(system.as_ref());
    let flags: Vec<checker::Flag> = timing::fully_serialized(&timing, "overlap", documented).into_iter().collect();
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
        "rounds_ms": outcome.rounds.iter().map(|&r| ms(r)).collect::<Vec<_>>(),
        "retries_by_cause": outcome.retries,
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
