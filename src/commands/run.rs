//! `isocheck run`: open the system, run the workload, write the history and `run.json`, check the history
//! against the model the requested level promises, print the verdict with the run's counts and throughput.
//! Scenario workloads (bank, write skew) also have their invariants checked; where the dependency graph
//! cannot be checked on their micro-ops, the invariants alone decide, and the report says so. The timing
//! flags (zero-abort-under-contention, fully-serialized) come from the history and the holds.

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use adapters::System;
use anyhow::{Context, bail};
use checker::timing;
use checker::{CheckResult, Options};
use generators::{KeyDist, Params};
use serde_json::json;

use crate::cli::{self, FailOn, NemesisName, OutputFormat, RunArgs, RunWorkloadName, ScenarioFlags, ShapeFlags};
use crate::exit;

use isocheck::runner::nemesis::Fault;
use isocheck::runner::resource_aborts::resource_aborts;
use isocheck::runner::workload::{
    Bank, BankMode, BankParams, GeneratedWorkload, Workload, WriteSkew, YcsbA, YcsbParams,
};
use isocheck::runner::{self, Limit, RunConfig, RunOutcome};

/// Transactions in a run when neither --txns nor --duration is given.
const DEFAULT_TXNS: u64 = 10_000;

pub fn run(args: &RunArgs) -> anyhow::Result<u8> {
    if args.repeat.is_some() || args.until_invalid {
        return super::hunt::run(args);
    }
    let out_dir = out_dir(args)?;
    let done = execute(args, &Variation::of(args), &out_dir, true, args.shrink)?;
    let report = match args.format {
        OutputFormat::Text => text(&done.summary, &done.result, &done.history_path),
        OutputFormat::Json => json(&done.summary, &done.result)? + "\n",
    };
    std::io::stdout().lock().write_all(report.as_bytes())?;
    Ok(exit_code(&done.result, &args.fail_on))
}

/// What varies between the runs of `run --repeat`: the seed and, with `--vary`, the clients, the key count
/// and the longest transaction. A single run takes them from the flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variation {
    pub seed: u64,
    pub clients: u16,
    pub key_count: usize,
    pub max_txn_len: usize,
}

impl Variation {
    /// The flags' own values.
    pub fn of(args: &RunArgs) -> Variation {
        Variation {
            seed: args.seed,
            clients: args.clients,
            key_count: args.shape.key_count,
            max_txn_len: args.shape.max_txn_len,
        }
    }
}

/// One run, done: its verdict, `run.json`'s contents, its shrunk history (when asked and it failed), and
/// where its history is.
pub struct Executed {
    pub result: CheckResult,
    pub summary: serde_json::Value,
    pub shrunk: Option<checker::shrink::Shrunk>,
    pub history_path: PathBuf,
}

/// Runs the workload once with `variation`, writes the history, `run.json` and the findings (and, with
/// `shrink` and an anomaly, the shrunk history) into `out_dir`, and returns the verdict.
pub fn execute(
    args: &RunArgs,
    variation: &Variation,
    out_dir: &Path,
    progress: bool,
    shrink: bool,
) -> anyhow::Result<Executed> {
    let system = open_system(args)?;
    let support = system.level(args.isolation);
    if !support.is_runnable() {
        bail!("{} cannot run {}: {}", system.name(), args.isolation, support.describe());
    }
    let shape = ShapeFlags {
        key_count: variation.key_count,
        min_txn_len: args.shape.min_txn_len,
        max_txn_len: variation.max_txn_len,
        max_writes_per_key: args.shape.max_writes_per_key,
        key_dist: args.shape.key_dist.clone(),
    };
    let clients = usize::from(variation.clients);
    let workload = workload_for(args.workload, &shape, &args.scenario, variation.seed, clients)?;
    let limit = match (args.txns, args.duration) {
        (Some(n), _) => Limit::Txns(n),
        (None, Some(d)) => Limit::Duration(d),
        (None, None) => Limit::Txns(DEFAULT_TXNS),
    };
    let started_at = SystemTime::now();
    let config = RunConfig {
        system: Arc::clone(&system),
        level: args.isolation,
        workload: Arc::clone(&workload),
        clients,
        limit,
        progress,
        nemesis: nemesis(args)?,
        record: true,
    };
    let outcome = runner::run(&config)?;
    std::fs::create_dir_all(out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let history_path = out_dir.join("history.jsonl");
    let mut file = std::io::BufWriter::new(
        std::fs::File::create(&history_path).with_context(|| format!("creating {}", history_path.display()))?,
    );
    histories::write_jsonl(outcome.history.ops(), &mut file)?;
    file.flush()?;
    let models = if args.check.models.is_empty() && args.check.anomalies.is_empty() {
        vec![args.isolation.promised_model().to_string()]
    } else {
        args.check.models.clone()
    };
    let options = Options::new(&models, &args.check.anomalies)?.with_inference(super::check::inference(&args.check));
    log::info!(
        "ran {} transactions in {:.3} s; checking against {}",
        outcome.ok + outcome.fail + outcome.info,
        outcome.elapsed.as_secs_f64(),
        models.join(", ")
    );
    let (result, graph_check) = judge(&outcome, workload.as_ref(), &options, args.isolation, clients, system.as_ref())?;
    let mut summary = summary(args, variation, system.as_ref(), workload.as_ref(), &outcome, out_dir, started_at);
    if let Some(object) = summary.as_object_mut() {
        object.insert("graph_check".into(), json!(graph_check.describe()));
    }
    let source = history_path.display().to_string();
    let shrunk = match shrink {
        true => super::shrink::shrink_into(Some(out_dir), &outcome.history, &result, &options, &source)?,
        false => None,
    };
    if let (Some(object), Some(shrunk)) = (summary.as_object_mut(), &shrunk) {
        object.insert(
            "shrunk".into(),
            json!({
                "txns": shrunk.kept.len(),
                "mops": shrunk.mops,
                "anomaly_types": shrunk.result.anomaly_types,
                "history": out_dir.join("shrunk").join("history.jsonl").display().to_string(),
            }),
        );
    }
    std::fs::write(out_dir.join("run.json"), serde_json::to_string_pretty(&summary)? + "\n")?;
    let mut report = findings::Report::check(source, &result)
        .with_history(&outcome.history)
        .with_run(findings::RunSummary::from_json(&summary)?)
        .with_replays(isocheck::replays::replays(&result));
    if let Some(shrunk) = &shrunk {
        report = report.with_shrunk(shrunk);
    }
    if progress {
        super::check::write_report(out_dir, &report, &args.report)?;
    } else {
        let options = findings::OutOptions { graphviz: args.report.graphviz, ..Default::default() };
        findings::write_report(out_dir, &report, &options)
            .with_context(|| format!("writing findings to {}", out_dir.display()))?;
    }
    Ok(Executed { result, summary, shrunk, history_path })
}

/// A run's verdict: its history checked (invariants and, where sound, the dependency graph), with the
/// flags its timing raises. Every command that runs a workload judges it so.
pub fn judge(
    outcome: &RunOutcome,
    workload: &dyn Workload,
    options: &Options,
    level: adapters::Level,
    clients: usize,
    system: &dyn System,
) -> anyhow::Result<(CheckResult, checker::invariants::GraphCheck)> {
    let graph = match workload.graph_check_unsound() {
        Some(why) => checker::invariants::GraphPolicy::Unsound(why),
        None if workload.name() == "list-append" => checker::invariants::GraphPolicy::Required,
        None => checker::invariants::GraphPolicy::WhereReadable,
    };
    let (mut result, graph_check) =
        super::check::check_with_invariants(&outcome.history, options, workload.name(), graph)?;
    result.flags.extend(timing::zero_abort_under_contention(&outcome.history, level.promised_model()));
    result.flags.extend(resource_aborts(outcome.fail, &outcome.causes, &outcome.messages));
    if let Some(holds) = workload.holds() {
        let timing = holds.timing(clients);
        result.flags.extend(timing::fully_serialized(&timing, "run", serialized_by_design(system)));
    }
    Ok((result, graph_check))
}

/// The verdict's exit code; with `--fail-on flags`, a flag makes it 1.
pub fn exit_code(result: &CheckResult, fail_on: &[FailOn]) -> u8 {
    if fail_on.contains(&FailOn::Flags) && !result.flags.is_empty() {
        return exit::INVALID;
    }
    exit::for_validity(result.valid)
}

/// Why a system runs one transaction at a time by design, when it does.
pub fn serialized_by_design(system: &dyn System) -> Option<&'static str> {
    (system.name() == "sqlite").then_some(
        "This is SQLite's documented design, not a defect: one connection writes at a time \
         (https://www.sqlite.org/isolation.html, https://www.sqlite.org/wal.html).",
    )
}

fn nemesis(args: &RunArgs) -> anyhow::Result<Option<(Fault, std::time::Duration)>> {
    let fault = match (args.nemesis, &args.nemesis_cmd, &args.heal_cmd) {
        (None, None, _) => return Ok(None),
        (None, Some(_), _) => bail!("--nemesis-cmd needs --nemesis commands"),
        (Some(NemesisName::KillConnections), None, _) => Fault::KillConnections,
        (Some(NemesisName::KillConnections), Some(_), _) => {
            bail!("--nemesis-cmd goes with --nemesis commands, not kill-connections")
        }
        (Some(NemesisName::Commands), Some(b), Some(h)) => {
            Fault::Commands { break_cmd: b.clone(), heal_cmd: h.clone() }
        }
        (Some(NemesisName::Commands), _, _) => bail!("--nemesis commands needs --nemesis-cmd and --heal-cmd"),
    };
    if args.nemesis_every.is_zero() {
        bail!("--nemesis-every must be longer than zero");
    }
    Ok(Some((fault, args.nemesis_every)))
}

/// Opens the system under test the flags name; an unreachable system is an error (exit 2).
pub fn open_system(args: &RunArgs) -> anyhow::Result<Arc<dyn System>> {
    let defect = args.defect.as_deref().map(str::parse::<engine::Defect>).transpose()?;
    super::systems::open(args.db, args.url.as_deref(), defect, args.sqlite_begin)
}

/// The workload these flags describe; every command that runs one shares this.
pub fn workload_for(
    kind: RunWorkloadName,
    shape: &ShapeFlags,
    scenario: &ScenarioFlags,
    seed: u64,
    clients: usize,
) -> anyhow::Result<Arc<dyn Workload>> {
    let key_dist = KeyDist::parse(&shape.key_dist).with_context(|| {
        format!("unknown --key-dist {:?}: expected uniform, exponential or zipfian", shape.key_dist)
    })?;
    let params = Params {
        key_count: shape.key_count,
        min_txn_len: shape.min_txn_len,
        max_txn_len: shape.max_txn_len,
        max_writes_per_key: shape.max_writes_per_key,
        key_dist,
        ..Params::default()
    };
    let holds = matches!(kind, RunWorkloadName::Bank | RunWorkloadName::WriteSkew);
    if scenario.hold.is_some() && !holds {
        bail!("--hold applies to the bank and write-skew workloads");
    }
    let hold = scenario.hold.unwrap_or(DEFAULT_HOLD);
    Ok(match kind {
        RunWorkloadName::ListAppend => Arc::new(GeneratedWorkload::list_append(params, seed)?),
        RunWorkloadName::RwRegister => Arc::new(GeneratedWorkload::rw_register(params, seed)?),
        RunWorkloadName::Bank => {
            let mode = match scenario.bank_mode {
                cli::BankMode::Withdraw => BankMode::Withdraw,
                cli::BankMode::Transfer => BankMode::Transfer,
            };
            let params =
                BankParams { mode, accounts: scenario.accounts, total: scenario.total, amount: scenario.amount, hold };
            Arc::new(Bank::new(params, seed, clients)?)
        }
        RunWorkloadName::WriteSkew => Arc::new(WriteSkew::new(scenario.doctors, hold, seed, clients)?),
        RunWorkloadName::YcsbA => {
            let params = YcsbParams {
                records: scenario.records,
                fields: usize::from(scenario.fields),
                field_len: scenario.field_length as usize,
            };
            Arc::new(YcsbA::new(params, seed, clients)?)
        }
    })
}

/// The bank and write-skew workloads' hold when `--hold` is not given: long enough that transactions
/// overlap on every system, the embedded engine included (whose transactions otherwise take
/// microseconds, so a planted `ssi-off` would never show), short enough that a default run of 10,000
/// transactions by 4 clients takes a few seconds.
pub const DEFAULT_HOLD: std::time::Duration = std::time::Duration::from_millis(1);

/// Where the run (or, for `--repeat`, the hunt) writes: `--out`, or a fresh directory under `runs/`.
pub fn out_dir(args: &RunArgs) -> anyhow::Result<PathBuf> {
    if let Some(dir) = &args.out {
        return Ok(dir.clone());
    }
    let stamp = humantime::format_rfc3339_seconds(SystemTime::now()).to_string().replace(':', "");
    let base = Path::new("runs").join(format!("{stamp}-{}-{}", super::systems::db_name(args.db), args.isolation));
    let mut dir = base.clone();
    let mut n = 1;
    while dir.exists() {
        n += 1;
        dir = PathBuf::from(format!("{}-{n}", base.display()));
    }
    Ok(dir)
}

/// `run.json`, also the `run` object of the JSON output.
fn summary(
    args: &RunArgs,
    variation: &Variation,
    system: &dyn System,
    workload: &dyn Workload,
    outcome: &RunOutcome,
    out_dir: &Path,
    started_at: SystemTime,
) -> serde_json::Value {
    let elapsed = outcome.elapsed.as_secs_f64();
    let txns = outcome.ok + outcome.fail + outcome.info;
    let contention = timing::contention(&outcome.history);
    let holds = workload.holds().map(|h| {
        json!({"hold_ms": h.hold.as_secs_f64() * 1000.0, "count": h.count, "busy_ms": round3(h.busy.as_secs_f64() * 1000.0)})
    });
    json!({
        "tool": format!("isocheck {}", env!("CARGO_PKG_VERSION")),
        "db": system.name(),
        "system_version": system.version(),
        "isolation": args.isolation.name(),
        "level_mapping": system.level(args.isolation).describe(),
        "documented_behaviour": adapters::documented_behaviour(system.name(), args.isolation)
            .map(|d| json!({"quote": d.quote, "link": d.link})),
        "workload": workload.name(),
        "parameters": workload.parameters(),
        "seed": variation.seed,
        "clients": variation.clients,
        "defect": args.defect,
        "nemesis": args.nemesis.map(|n| match n {
            NemesisName::KillConnections => "kill-connections".to_string(),
            NemesisName::Commands => format!("commands ({} / {})", args.nemesis_cmd.as_deref().unwrap_or(""), args.heal_cmd.as_deref().unwrap_or("")),
        }),
        "started_at": humantime::format_rfc3339_seconds(started_at).to_string(),
        "ok": outcome.ok,
        "fail": outcome.fail,
        "info": outcome.info,
        "aborts_by_cause": outcome.causes,
        "elapsed_s": round3(elapsed),
        "throughput_tps": if elapsed > 0.0 { (txns as f64 / elapsed).round() as u64 } else { 0 },
        "operations": operations(&outcome.history),
        "contended_pairs": {"write_write": contention.write_write, "read_write": contention.read_write},
        "holds": holds,
        "out_dir": out_dir.display().to_string(),
    })
}

/// Transactions by name (`f`) and outcome: `{"withdraw": {"ok": 10, "fail": 3}, "read": {"ok": 1}}`.
fn operations(history: &histories::History) -> serde_json::Value {
    let mut by_f: std::collections::BTreeMap<String, std::collections::BTreeMap<&'static str, u64>> =
        std::collections::BTreeMap::new();
    for t in history.transactions().filter(|t| t.invoke.f != histories::Function::Init) {
        *by_f.entry(t.invoke.f.to_string()).or_default().entry(t.outcome().as_str()).or_default() += 1;
    }
    json!(by_f)
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn json(summary: &serde_json::Value, result: &CheckResult) -> anyhow::Result<String> {
    let mut value = serde_json::to_value(result)?;
    if let Some(object) = value.as_object_mut() {
        object.insert("run".into(), summary.clone());
    }
    Ok(serde_json::to_string_pretty(&value)?)
}

fn text(summary: &serde_json::Value, result: &CheckResult, history: &Path) -> String {
    let causes = summary["aborts_by_cause"]
        .as_object()
        .map(|m| m.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", "))
        .unwrap_or_default();
    let mut out = format!(
        "Ran {} on {} ({}; {}) with {} clients{}: {} ok, {} fail{}, {} info in {:.2} s ({} txn/s)\nHistory: {}\n\n",
        summary["workload"].as_str().unwrap_or("?"),
        summary["system_version"].as_str().unwrap_or("?"),
        summary["isolation"].as_str().unwrap_or("?"),
        summary["level_mapping"].as_str().unwrap_or("?"),
        summary["clients"],
        summary["defect"].as_str().map_or(String::new(), |d| format!(", planted defect {d}")),
        summary["ok"],
        summary["fail"],
        if causes.is_empty() { String::new() } else { format!(" ({causes})") },
        summary["info"],
        summary["elapsed_s"].as_f64().unwrap_or(0.0),
        summary["throughput_tps"],
        history.display(),
    );
    out.pop();
    let pairs = &summary["contended_pairs"];
    let _ = writeln!(
        out,
        "Contended pairs (committed transactions that overlapped and conflicted): {} wrote a key in common, {} each wrote a key the other read",
        pairs["write_write"], pairs["read_write"]
    );
    if let Some(holds) = summary["holds"].as_object() {
        let _ = writeln!(
            out,
            "Holds: {} transactions held {} ms each; some transaction was holding for {} ms in all",
            holds["count"], holds["hold_ms"], holds["busy_ms"]
        );
    }
    if let Some(graph) = summary["graph_check"].as_str().filter(|g| *g != "checked") {
        let _ = writeln!(out, "Graph check: {graph}");
    }
    out.push('\n');
    let report = findings::text(result, &history.display().to_string());
    let (verdict, rest) = report.split_once('\n').unwrap_or((&report, ""));
    let _ = writeln!(out, "{verdict}");
    // A level its system documents as weaker than its name is quoted beside the verdict, which still
    // follows the model checked.
    if let Some(documented) = findings::RunSummary::from_json(summary).ok().and_then(|run| run.documented_behaviour) {
        let _ = writeln!(out, "Note: {documented}; the verdict above is by the model checked (--model).");
    }
    out.push_str(rest);
    out
}
