//! `isocheck compare`: the same workload and seed on several systems and levels, several rounds each,
//! then one side-by-side report (`findings::comparison`). Rounds are interleaved (round 1 on every
//! system and level, then round 2, ...) so a ratio to SQLite compares runs made under the same load.
//! Each run is checked against the model its level promises; the overlap test runs once per system and
//! level with as many rounds.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use adapters::{Level, LevelSupport, System};
use anyhow::Context;
use checker::{Options, Validity};
use findings::comparison::{Comparison, ComparisonRow, OverlapCell, Percentiles, RunEvidence};
use histories::{History, OpType};
use isocheck::judge::judge;
use isocheck::overlap_summary::overlap_summary;
use isocheck::run_summary::{RunSettings, run_summary};
use isocheck::runner::overlap::OverlapConfig;
use isocheck::runner::workload::TxnSource;
use isocheck::runner::{self, Limit, RunConfig, RunOutcome};
use isocheck::system_spec::{SystemKind, SystemSpec, column_labels};
use isocheck::workload_spec::WorkloadSpec;

use crate::cli::{CompareArgs, MatrixFormat};
use crate::exit;
use crate::settings::DefectScope;

/// What the rounds of one system and level gathered.
#[derive(Default)]
struct Tally {
    verdict: Option<Validity>,
    commits: u64,
    txns: u64,
    causes: BTreeMap<String, u64>,
    tps: Vec<f64>,
    ratios: Vec<f64>,
    latencies: Vec<Percentiles>,
    anomalies: BTreeSet<String>,
    flags: BTreeSet<String>,
    runs: Vec<RunEvidence>,
}

pub fn run(args: &CompareArgs) -> anyhow::Result<u8> {
    let specs = args.system.specs(&[SystemKind::Engine, SystemKind::Sqlite], DefectScope::EngineOnly)?;
    let workload = crate::settings::workload_spec(args.workload, &args.shape, &args.scenario, false)?;
    let mut opened: Vec<Arc<dyn System>> = Vec::new();
    for spec in &specs {
        opened.push(spec.open()?);
    }
    let versions: Vec<String> = opened.iter().map(|s| s.version()).collect();
    let labels = column_labels(&specs, &versions);
    let systems: Vec<(String, Arc<dyn System>)> = labels.iter().cloned().zip(opened).collect();
    // A run's directory is named for its system: by kind, or by its column when the kind repeats.
    let dir_names: Vec<String> = specs
        .iter()
        .zip(&labels)
        .map(|(spec, label)| {
            if specs.iter().filter(|s| s.kind() == spec.kind()).count() > 1 {
                label.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' { c } else { '-' }).collect()
            } else {
                spec.name().to_string()
            }
        })
        .collect();
    let clients = usize::from(args.clients);
    let cells: Vec<(usize, Level)> =
        (0..systems.len()).flat_map(|s| args.isolation.iter().map(move |&l| (s, l))).collect();
    let mut tallies: Vec<Tally> = cells.iter().map(|_| Tally::default()).collect();
    let runnable = |(s, l): (usize, Level)| systems[s].1.level(l).is_runnable();
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir.join("runs"))
            .with_context(|| format!("creating {}", dir.join("runs").display()))?;
    }
    let progress = isocheck::progress::rounds(
        u64::from(args.rounds) * cells.iter().filter(|c| runnable(**c)).count() as u64,
        "compare",
    );
    for round in 0..args.rounds {
        let mut round_tps: BTreeMap<(usize, Level), f64> = BTreeMap::new();
        for (i, &(s, level)) in cells.iter().enumerate() {
            if !runnable((s, level)) {
                continue;
            }
            let (label, system) = &systems[s];
            let kept = args.out.as_ref().map(|dir| {
                let name = format!("{}-{}-{}", dir_names[s], level.name(), round + 1);
                (dir.join("runs").join(&name), format!("runs/{name}"), usize::from(round) + 1)
            });
            let (tps, verdict) =
                one_run(args, &workload, &specs[s], system, level, clients, &mut tallies[i], kept.as_ref())
                    .with_context(|| format!("round {} on {label} at {level}", round + 1))?;
            round_tps.insert((s, level), tps);
            let worst = tallies[i].verdict.map_or(verdict, |v| worse(v, verdict));
            tallies[i].verdict = Some(worst);
            progress.inc(1);
        }
        // The ratio column compares each row with SQLite's at the same level, in the same round.
        let sqlite = specs.iter().position(|spec| spec.kind() == SystemKind::Sqlite);
        for (i, &(s, level)) in cells.iter().enumerate() {
            if let (Some(mine), Some(base)) =
                (round_tps.get(&(s, level)), sqlite.and_then(|q| round_tps.get(&(q, level))))
                && *base > 0.0
            {
                tallies[i].ratios.push(mine / base);
            }
        }
    }
    progress.finish_and_clear();
    let mut rows = Vec::with_capacity(cells.len());
    for (i, &(s, level)) in cells.iter().enumerate() {
        let (label, system) = &systems[s];
        let support = system.level(level);
        let overlap = if args.no_overlap || !support.is_runnable() {
            None
        } else {
            Some(overlap_cell(system, level, clients, args).with_context(|| format!("overlap on {label} at {level}"))?)
        };
        rows.push(row(label, level, &support, std::mem::take(&mut tallies[i]), overlap));
    }
    let comparison = Comparison {
        workload: args.workload.name().to_string(),
        seed: args.seed,
        clients,
        txns_per_round: args.txns,
        rounds: usize::from(args.rounds),
        rows,
    };
    let report = match args.format {
        MatrixFormat::Text => findings::comparison::comparison_text(&comparison),
        MatrixFormat::Json => serde_json::to_string_pretty(&comparison)? + "\n",
        MatrixFormat::Markdown => findings::comparison::comparison_markdown(&comparison),
        MatrixFormat::Html => findings::comparison::comparison_html(&comparison),
    };
    std::io::stdout().lock().write_all(report.as_bytes())?;
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        std::fs::write(dir.join("comparison.json"), serde_json::to_string_pretty(&comparison)?)?;
        std::fs::write(dir.join("report.md"), findings::comparison::comparison_markdown(&comparison))?;
        std::fs::write(dir.join("report.html"), findings::comparison::comparison_html(&comparison))?;
        eprintln!(
            "isocheck: wrote the comparison and every run's evidence (runs/) to {} (open {})",
            dir.display(),
            dir.join("report.html").display()
        );
    }
    Ok(exit::VALID)
}

/// One run: its throughput, and its verdict against the model the level promises. With `kept` (its
/// directory, that directory as the report names it, and the round), the run's history, `run.json` and
/// findings are written there.
#[allow(clippy::too_many_arguments)]
fn one_run(
    args: &CompareArgs,
    workload: &WorkloadSpec,
    spec: &SystemSpec,
    system: &Arc<dyn System>,
    level: Level,
    clients: usize,
    tally: &mut Tally,
    kept: Option<&(PathBuf, String, usize)>,
) -> anyhow::Result<(f64, Validity)> {
    let workload = workload.build(args.seed, clients)?;
    let config = RunConfig {
        system: Arc::clone(system),
        level,
        workload: Arc::clone(&workload),
        clients,
        limit: Limit::Txns(args.txns),
        progress: false,
        nemesis: None,
        record: true,
        online: None,
    };
    let outcome = runner::run(&config)?;
    let options = Options::new(&[level.promised_model().to_string()], &[])?;
    let (result, _) = judge(&outcome, workload.as_ref(), &options, level, clients, system.as_ref())?;
    let txns = outcome.ok + outcome.fail + outcome.info;
    let tps = txns as f64 / outcome.elapsed.as_secs_f64().max(1e-9);
    tally.commits += outcome.ok;
    tally.txns += txns;
    for (cause, n) in &outcome.causes {
        *tally.causes.entry(cause.clone()).or_default() += n;
    }
    tally.tps.push(tps);
    if let Some(p) = Percentiles::of(latencies(&outcome.history)) {
        tally.latencies.push(p);
    }
    tally.anomalies.extend(result.anomaly_types.iter().cloned());
    tally.anomalies.extend(result.invariants.iter().filter(|i| !i.holds && i.promised).map(|i| i.name.clone()));
    tally.flags.extend(result.flags.iter().map(|f| f.name.clone()));
    if let Some((dir, relative, round)) = kept {
        let settings =
            RunSettings { level, seed: args.seed, clients, defect: spec.defect(), started_at: None, out_dir: dir };
        keep_evidence(&settings, system.as_ref(), *round, &outcome, workload.as_ref(), &result)
            .with_context(|| format!("keeping the run's evidence in {}", dir.display()))?;
        let mut anomalies = result.anomaly_types.clone();
        anomalies.extend(result.invariants.iter().filter(|i| !i.holds).map(|i| i.name.clone()));
        tally.runs.push(RunEvidence {
            round: *round,
            dir: relative.clone(),
            verdict: findings::page::validity_class(result.valid).to_string(),
            anomalies,
        });
    }
    Ok((tps, result.valid))
}

/// Writes one run's `history.jsonl`, `run.json` and findings into its directory.
fn keep_evidence(
    settings: &RunSettings<'_>,
    system: &dyn System,
    round: usize,
    outcome: &RunOutcome,
    workload: &dyn TxnSource,
    result: &checker::CheckResult,
) -> anyhow::Result<()> {
    let dir = settings.out_dir;
    std::fs::create_dir_all(dir)?;
    let history_path = dir.join("history.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&history_path)?);
    histories::write_jsonl(outcome.history.ops(), &mut file)?;
    file.flush()?;
    let mut summary = run_summary(system, workload, outcome, settings);
    summary.round = Some(round as u64);
    std::fs::write(dir.join("run.json"), serde_json::to_string_pretty(&summary)? + "\n")?;
    let report = findings::Report::check(history_path.display().to_string(), result)
        .with_history(&outcome.history)
        .with_run(summary)
        .with_replays(replay::report_replays::replays(result));
    let options = findings::OutOptions::default();
    findings::write_report(dir, &report, &options)?;
    Ok(())
}

/// Committed transactions' latencies, invocation to completion, in nanoseconds.
fn latencies(history: &History) -> Vec<i64> {
    history
        .transactions()
        .filter(|t| t.outcome() == OpType::Ok)
        .filter_map(|t| Some(t.completion?.time()? - t.invoke.time()?))
        .collect()
}

fn overlap_cell(
    system: &Arc<dyn System>,
    level: Level,
    clients: usize,
    args: &CompareArgs,
) -> anyhow::Result<OverlapCell> {
    let hold = Duration::from_millis(args.hold_ms);
    let config = OverlapConfig { level, clients, hold, rounds: usize::from(args.rounds) };
    let summary = overlap_summary(system, &config, None)?;
    Ok(OverlapCell { verdict: summary.verdict, elapsed_ms: summary.elapsed_ms, ratio: summary.ratio })
}

fn worse(a: Validity, b: Validity) -> Validity {
    let rank = |v: Validity| match v {
        Validity::Valid => 0,
        Validity::Unknown => 1,
        Validity::Invalid => 2,
    };
    if rank(a) >= rank(b) { a } else { b }
}

fn median(mut xs: Vec<f64>) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    Some(xs[xs.len() / 2])
}

fn row(label: &str, level: Level, support: &LevelSupport, tally: Tally, overlap: Option<OverlapCell>) -> ComparisonRow {
    let aborts: u64 = tally.causes.values().sum();
    let latency = |f: fn(&Percentiles) -> f64| median(tally.latencies.iter().map(f).collect());
    ComparisonRow {
        db: label.to_string(),
        isolation: level.to_string(),
        as_run: match support {
            LevelSupport::Native { name } => name.clone(),
            LevelSupport::Mapped { to, .. } => format!("as {to}"),
            LevelSupport::Unsupported { .. } => "not offered".to_string(),
        },
        level: support.describe(),
        supported: support.is_runnable(),
        verdict: tally.verdict.map_or("—", findings::page::validity_class).to_string(),
        commits: tally.commits,
        abort_rate: if tally.txns == 0 { 0.0 } else { aborts as f64 / tally.txns as f64 },
        aborts_by_cause: tally.causes,
        throughput_tps: median(tally.tps).unwrap_or(0.0).round(),
        ratio_to_sqlite: median(tally.ratios).map(|r| (r * 100.0).round() / 100.0),
        latency_ms: match (latency(|p| p.p50), latency(|p| p.p95), latency(|p| p.p99)) {
            (Some(p50), Some(p95), Some(p99)) => Some(Percentiles { p50, p95, p99 }),
            _ => None,
        },
        anomalies: tally.anomalies.into_iter().collect(),
        flags: tally.flags.into_iter().collect(),
        overlap,
        runs: tally.runs,
    }
}
