//! Hunting rare anomalies: `run --repeat N` and `run --until-invalid --max-runs N` run the same
//! configuration again and again with successive seeds (and, with `--vary`, clients, key counts and
//! transaction lengths drawn from each seed), keep every failing run's evidence (its history, `run.json`,
//! findings and shrunk history) under `OUT/runs/NNN-seed-S/`, drop the passing runs' files, and write
//! `OUT/summary.json`: how many runs failed, with which anomaly, and where each one's evidence is.
//! Ctrl-C ends the run under way early, and the hunt stops with what it has. Running one run is
//! `run`'s ([`super::run::execute`]); this module owns the loop, the variation and the summary.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use anyhow::Context;
use checker::Validity;
use findings::{FailingRun, HuntSummary};

use super::run::{Variation, execute};
use crate::cli::{OutputFormat, RunArgs};
use crate::exit;
use isocheck::runner;

/// Why the hunt stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stopped {
    /// It made every run asked for.
    Completed,
    /// `--until-invalid` found a failing run.
    FoundInvalid,
    /// Ctrl-C.
    Interrupted,
}

impl Stopped {
    fn name(self) -> &'static str {
        match self {
            Stopped::Completed => "completed",
            Stopped::FoundInvalid => "found-invalid",
            Stopped::Interrupted => "interrupted",
        }
    }
}

pub fn run(args: &RunArgs) -> anyhow::Result<u8> {
    let out = super::run::out_dir(args)?;
    let runs_dir = out.join("runs");
    std::fs::create_dir_all(&runs_dir).with_context(|| format!("creating {}", runs_dir.display()))?;
    install_interrupt_handler();
    let max = args.repeat.unwrap_or(args.max_runs);
    let mut made = 0u32;
    let mut failing = Vec::new();
    let mut by_anomaly: BTreeMap<String, u64> = BTreeMap::new();
    let mut unknown = 0u32;
    let mut stopped = Stopped::Completed;
    for n in 1..=max {
        if runner::interrupted() {
            stopped = Stopped::Interrupted;
            break;
        }
        let variation = variation(args, n);
        let name = format!("{n:03}-seed-{}", variation.seed);
        let dir = runs_dir.join(&name);
        let done = execute(args, &variation, &dir, false, true)
            .with_context(|| format!("run {n} (seed {})", variation.seed))?;
        made = n;
        let interrupted = runner::interrupted();
        let mut anomalies = done.result.anomaly_types.clone();
        anomalies.extend(done.result.invariants.iter().filter(|i| !i.holds).map(|i| i.name.clone()));
        match done.result.valid {
            Validity::Invalid => {
                for anomaly in &anomalies {
                    *by_anomaly.entry(anomaly.clone()).or_default() += 1;
                }
                eprintln!(
                    "isocheck: run {n}/{max} (seed {}): INVALID {} (kept in {})",
                    variation.seed,
                    anomalies.join(", "),
                    dir.display()
                );
                failing.push(FailingRun {
                    run: n,
                    seed: variation.seed,
                    clients: variation.clients,
                    key_count: variation.key_count,
                    max_txn_len: variation.max_txn_len,
                    dir: format!("runs/{name}"),
                    anomalies,
                    shrunk_txns: done.shrunk.as_ref().map(|s| s.kept.len()),
                    interrupted,
                });
            }
            valid => {
                if valid == Validity::Unknown {
                    unknown += 1;
                }
                eprintln!("isocheck: run {n}/{max} (seed {}): {}", variation.seed, findings::verdict_word(valid));
                std::fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
            }
        }
        if interrupted {
            stopped = Stopped::Interrupted;
            break;
        }
        if args.until_invalid && done.result.valid == Validity::Invalid {
            stopped = Stopped::FoundInvalid;
            break;
        }
    }
    let summary = HuntSummary {
        runs: made,
        failed: failing.len(),
        unknown,
        stopped: stopped.name().to_string(),
        by_anomaly,
        failing,
        db: args.system.spec()?.name().to_string(),
        isolation: args.isolation.name().to_string(),
        defect: args.system.defect.map(|d| d.to_string()),
        first_seed: args.seed,
        vary: args.vary,
        out_dir: out.display().to_string(),
    };
    write_summary(&out, &summary)?;
    let report = match args.format {
        OutputFormat::Text => findings::hunt_text(&summary),
        OutputFormat::Json => serde_json::to_string_pretty(&summary)? + "\n",
    };
    std::io::stdout().lock().write_all(report.as_bytes())?;
    Ok(if summary.failed > 0 {
        exit::INVALID
    } else if unknown > 0 {
        exit::for_validity(Validity::Unknown)
    } else {
        exit::VALID
    })
}

/// The `n`th run's seed and, with `--vary`, its clients, key count and longest transaction, drawn from
/// that seed so the same hunt varies the same way.
fn variation(args: &RunArgs, n: u32) -> Variation {
    let mut v = Variation::of(args);
    v.seed = args.seed.wrapping_add(u64::from(n) - 1);
    if args.vary {
        let mut rng = generators::SplitMix64::new(v.seed);
        let mut draw = |lo: u64, hi: u64| lo + rng.next_u64() % (hi - lo + 1);
        v.clients = draw(1, u64::from(args.clients)) as u16;
        let keys = args.shape.key_count.max(1) as u64;
        v.key_count = draw((keys / 4).max(1), keys * 4) as usize;
        let min = args.shape.min_txn_len.max(1) as u64;
        v.max_txn_len = draw(min, (args.shape.max_txn_len as u64 * 2).max(min)) as usize;
    }
    v
}

/// The first Ctrl-C ends the run under way early and stops the hunt; a second exits at once.
fn install_interrupt_handler() {
    let result = ctrlc::set_handler(|| {
        if runner::interrupted() {
            std::process::exit(130);
        }
        eprintln!("\nisocheck: interrupted; finishing the transactions in flight and keeping what the hunt has");
        runner::interrupt();
    });
    if let Err(e) = result {
        log::warn!("Ctrl-C will not stop the hunt cleanly: {e}");
    }
}

fn write_summary(out: &Path, summary: &HuntSummary) -> anyhow::Result<()> {
    let path = out.join("summary.json");
    std::fs::write(&path, serde_json::to_string_pretty(summary)? + "\n")
        .with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::variation;
    use crate::cli::{Cli, Command, RunArgs};

    fn run_args(flags: &[&str]) -> RunArgs {
        let cli = Cli::try_parse_from([&["isocheck", "run"][..], flags].concat()).unwrap();
        match cli.command {
            Command::Run(args) => *args,
            other => panic!("parsed as {other:?}"),
        }
    }

    #[test]
    fn successive_runs_take_successive_seeds_and_keep_their_shape_unless_varied() {
        let args = run_args(&["--repeat", "3", "--seed", "10", "--clients", "8"]);
        let seeds: Vec<u64> = (1..=3).map(|n| variation(&args, n).seed).collect();
        assert_eq!(seeds, [10, 11, 12]);
        assert!((1..=3).all(|n| variation(&args, n).clients == 8 && variation(&args, n).key_count == 8));
    }

    #[test]
    fn varied_runs_draw_their_shape_from_their_seed_within_the_flags_bounds() {
        let args = run_args(&["--repeat", "50", "--vary", "--clients", "16", "--key-count", "8", "--max-txn-len", "4"]);
        let shapes: Vec<_> = (1..=50).map(|n| variation(&args, n)).collect();
        for v in &shapes {
            assert!((1..=16).contains(&v.clients), "{v:?}");
            assert!((2..=32).contains(&v.key_count), "{v:?}");
            assert!((1..=8).contains(&v.max_txn_len), "{v:?}");
        }
        assert_eq!(
            shapes,
            (1..=50).map(|n| variation(&args, n)).collect::<Vec<_>>(),
            "the same hunt varies the same way"
        );
        let clients: std::collections::BTreeSet<u16> = shapes.iter().map(|v| v.clients).collect();
        assert!(clients.len() > 4, "clients vary: {clients:?}");
    }
}
