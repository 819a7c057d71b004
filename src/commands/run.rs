//! `isocheck run`: open the system, run the workload, write the history and `run.json`, check the history
//! against the model the requested level promises, print the verdict with the run's counts and throughput.
//! Under `--online` the runner may have written the history as it went; a valid list-append run then takes
//! the online rounds' verdict and never reads it back (docs/online-checking.md, "The history on disk").
//! Scenario workloads (bank, write skew) also have their invariants checked; where the dependency graph
//! cannot be checked on their micro-ops, the invariants alone decide, and the report says so. The timing
//! flags (zero-abort-under-contention, fully-serialized) come from the history and the holds. One run
//! only: `--repeat` and `--until-invalid` are `hunt`'s, which runs this module's `execute` again and again.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use anyhow::{Context, bail};
use checker::{CheckResult, Options};
use findings::{RunSummary, ShrunkSummary};
use serde::Serialize;

use crate::cli::{FailOn, NemesisName, OutputFormat, RunArgs};
use crate::exit;

use isocheck::judge::{judge, judge_streamed};
use isocheck::run_summary::{RunSettings, run_summary};
use isocheck::runner::nemesis::Fault;
use isocheck::runner::online::{OnlineConfig, OnlineSummary};
use isocheck::runner::{self, Limit, RunConfig};
use isocheck::system_spec::SystemKind;

/// Transactions in a run when neither --txns nor --duration is given.
const DEFAULT_TXNS: u64 = 10_000;

pub fn run(args: &RunArgs) -> anyhow::Result<u8> {
    let out_dir = out_dir(args)?;
    let done = execute(args, &Variation::of(args), &out_dir, true, args.shrink)?;
    let report = match args.format {
        OutputFormat::Text => findings::run_text(&done.summary, &done.result, &done.history_path.display().to_string()),
        OutputFormat::Json => {
            serde_json::to_string_pretty(&RunJson { result: &done.result, run: &done.summary })? + "\n"
        }
    };
    std::io::stdout().lock().write_all(report.as_bytes())?;
    if let Some(why) = &done.ended_early {
        // The history up to the loss is written and checked above; the run itself did not finish.
        eprintln!("isocheck: the run ended early: {}", findings::escape::terminal_text(why));
        return Ok(exit::USAGE);
    }
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
    pub summary: RunSummary,
    pub shrunk: Option<checker::shrink::Shrunk>,
    pub history_path: PathBuf,
    /// Why the run ended before its limit (its system gone for good), if it did.
    pub ended_early: Option<String>,
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
    let spec = args.system.spec()?;
    let mut workload_spec = crate::settings::workload_spec(args.workload, &args.shape, &args.scenario, args.online)?;
    workload_spec.params.key_count = variation.key_count;
    workload_spec.params.max_txn_len = variation.max_txn_len;
    // Checked before the system is opened: a nemesis that cannot work is bad usage, whatever the system.
    let nemesis = nemesis(args)?;
    let system = spec.open()?;
    let support = system.level(args.isolation);
    if !support.is_runnable() {
        bail!("{} cannot run {}: {}", system.name(), args.isolation, support.describe());
    }
    let clients = usize::from(variation.clients);
    let workload = workload_spec.build(variation.seed, clients)?;
    let limit = match (args.txns, args.duration) {
        (Some(n), _) => Limit::Txns(n),
        (None, Some(d)) => Limit::Duration(d),
        (None, None) => Limit::Txns(DEFAULT_TXNS),
    };
    let models = if args.check.models.is_empty() && args.check.anomalies.is_empty() {
        vec![args.isolation.promised_model().to_string()]
    } else {
        args.check.models.clone()
    };
    // A run with a nemesis ends with final reads: an acknowledged write none of them shows is looked for
    // at every level (`lost`), since every level promises that a committed write stays committed.
    let mut anomalies = args.check.anomalies.clone();
    if !args.nemesis.is_empty() && !anomalies.iter().any(|a| a == "lost") {
        anomalies.push("lost".to_string());
    }
    let options = Options::new(&models, &anomalies)?.with_inference(super::checking::inference(&args.check));
    std::fs::create_dir_all(out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let history_path = out_dir.join("history.jsonl");
    let online = args.online.then(|| online_config(args, &options, workload.name(), &history_path));
    let started_at = SystemTime::now();
    let config = RunConfig {
        system: Arc::clone(&system),
        level: args.isolation,
        workload: Arc::clone(&workload),
        clients,
        limit,
        progress,
        nemesis,
        record: true,
        online,
    };
    let mut outcome = runner::run(&config)?;
    // A streamed history is written already (`runner::stream`).
    if outcome.streamed.is_none() {
        let mut file = std::io::BufWriter::new(
            std::fs::File::create(&history_path).with_context(|| format!("creating {}", history_path.display()))?,
        );
        histories::write_jsonl(outcome.history.ops(), &mut file)?;
        file.flush()?;
    }
    if let Some(online) = &outcome.online {
        log::info!(
            "the online check ran {} rounds, reported {} standing anomalies, and lagged the recorder by at most {:.3} s",
            online.rounds,
            online.anomalies,
            online.max_lag_ms as f64 / 1000.0
        );
        if let Some((name, ops)) = &online.stopped_by {
            eprintln!("isocheck: {name} stood after {ops} operations: the run stopped there");
        }
    }
    log::info!(
        "ran {} transactions in {:.3} s; checking against {}",
        outcome.ok + outcome.fail + outcome.info,
        outcome.elapsed.as_secs_f64(),
        models.join(", ")
    );
    // A streamed run the rounds found valid takes their verdict, and the history stays on disk; any
    // other reads it back and is judged as a run without --online is.
    let rounds = match (&outcome.streamed, outcome.online.as_ref().and_then(|o| o.verdict.as_ref())) {
        (Some(_), Some(anomalies)) => {
            judge_streamed(&outcome, anomalies, workload.as_ref(), &options, args.isolation, clients, system.as_ref())
        }
        _ => None,
    };
    if rounds.is_none() && outcome.streamed.is_some() {
        outcome.history = super::checking::read_history(&history_path)?.0;
    }
    let from_rounds = rounds.is_some();
    let (result, graph_check) = match rounds {
        Some(judged) => judged,
        None => judge(&outcome, workload.as_ref(), &options, args.isolation, clients, system.as_ref())?,
    };
    let settings = RunSettings {
        level: args.isolation,
        seed: variation.seed,
        clients: usize::from(variation.clients),
        defect: spec.defect(),
        started_at: Some(started_at),
        out_dir,
    };
    let mut summary = run_summary(system.as_ref(), workload.as_ref(), &outcome, &settings);
    summary.nemesis = nemesis_name(args);
    if let Some(online) = &outcome.online {
        let mut json = online_json(online);
        json["streamed"] = serde_json::json!(outcome.streamed.is_some());
        json["verdict_from"] = serde_json::json!(if from_rounds { "rounds" } else { "check" });
        if let Some(found) = online.final_anomalies.as_ref().filter(|_| !from_rounds) {
            // The rounds' verdict (settled on retired transactions, and a last check of what was held)
            // must be the ordinary check's: a disagreement is a checker bug, said loudly.
            let agrees = *found == isocheck::runner::online::by_type(&result.anomalies);
            if !agrees {
                log::warn!(
                    "the online verdict ({:?}) differs from the check of the history ({:?}): a checker bug",
                    found.keys().collect::<Vec<_>>(),
                    result.anomaly_types
                );
            }
            json["final_agrees"] = serde_json::json!(agrees);
        }
        summary.extra.insert("online".into(), json);
    }
    summary.graph_check = Some(graph_check.describe().to_string());
    let source = history_path.display().to_string();
    let shrunk = match shrink {
        true => super::shrink::shrink_into(Some(out_dir), &outcome.history, &result, &options, &source)?,
        false => None,
    };
    if let Some(shrunk) = &shrunk {
        summary.shrunk = Some(ShrunkSummary {
            txns: shrunk.kept.len() as u64,
            mops: shrunk.mops as u64,
            anomaly_types: shrunk.result.anomaly_types.clone(),
            history: out_dir.join("shrunk").join("history.jsonl").display().to_string(),
        });
    }
    std::fs::write(out_dir.join("run.json"), serde_json::to_string_pretty(&summary)? + "\n")?;
    let mut report = findings::Report::check(source, &result)
        .with_history(&outcome.history)
        .with_run(summary.clone())
        .with_replays(replay::report_replays::replays(&result));
    if let Some(shrunk) = &shrunk {
        report = report.with_shrunk(shrunk);
    }
    if progress {
        super::checking::write_report(out_dir, &report, &args.report)?;
    } else {
        let options = findings::OutOptions { graphviz: args.report.graphviz, ..Default::default() };
        findings::write_report(out_dir, &report, &options)
            .with_context(|| format!("writing findings to {}", out_dir.display()))?;
    }
    Ok(Executed { result, summary, shrunk, history_path, ended_early: outcome.ended_early })
}

/// The verdict's exit code; with `--fail-on flags`, a flag makes it 1.
pub fn exit_code(result: &CheckResult, fail_on: &[FailOn]) -> u8 {
    if fail_on.contains(&FailOn::Flags) && !result.flags.is_empty() {
        return exit::INVALID;
    }
    exit::for_validity(result.valid)
}

fn nemesis(args: &RunArgs) -> anyhow::Result<Option<(Vec<Fault>, std::time::Duration)>> {
    let commands = args.nemesis.contains(&NemesisName::Commands);
    match (commands, &args.nemesis_cmd, &args.heal_cmd) {
        (false, Some(_), _) if args.nemesis.is_empty() => bail!("--nemesis-cmd needs --nemesis commands"),
        (false, Some(_), _) => bail!("--nemesis-cmd goes with --nemesis commands"),
        (true, Some(_), Some(_)) => {}
        (true, _, _) => bail!("--nemesis commands needs --nemesis-cmd and --heal-cmd"),
        (false, None, _) => {}
    }
    if args.nemesis.is_empty() {
        return Ok(None);
    }
    let mut cluster = None;
    let mut faults = Vec::with_capacity(args.nemesis.len());
    for &name in &args.nemesis {
        let fault = match name {
            NemesisName::KillConnections => Fault::KillConnections,
            NemesisName::Commands => Fault::Commands {
                break_cmd: args.nemesis_cmd.clone().unwrap_or_default(),
                heal_cmd: args.heal_cmd.clone().unwrap_or_default(),
            },
            node => {
                if cluster.is_none() {
                    let spec = args.system.spec()?;
                    let name = fault_name(node);
                    if spec.kind() != SystemKind::Galera {
                        bail!("--nemesis {name} faults the nodes of a Galera cluster: it needs --db galera");
                    }
                    let Some(dir) = spec.cluster_dir() else {
                        bail!("--nemesis {name} needs --cluster-dir DIR (the cluster's pids), not only a --url")
                    };
                    cluster = Some(galera::GaleraCluster::open(dir)?);
                }
                let cluster = cluster.clone().unwrap_or_else(|| unreachable!("opened above"));
                match node {
                    NemesisName::KillNode => Fault::KillNode(cluster),
                    NemesisName::PauseNode => Fault::PauseNode(cluster),
                    NemesisName::Partition => Fault::Partition(cluster),
                    NemesisName::KillAll => Fault::KillAll(cluster),
                    _ => Fault::RestartCluster(cluster),
                }
            }
        };
        faults.push(fault);
    }
    if args.nemesis_every.is_zero() {
        bail!("--nemesis-every must be longer than zero");
    }
    Ok(Some((faults, args.nemesis_every)))
}

/// Where the run (or, for `--repeat`, the hunt) writes: `--out`, or a fresh directory under `runs/`.
pub fn out_dir(args: &RunArgs) -> anyhow::Result<PathBuf> {
    if let Some(dir) = &args.out {
        return Ok(dir.clone());
    }
    let stamp = humantime::format_rfc3339_seconds(SystemTime::now()).to_string().replace(':', "");
    let base = Path::new("runs").join(format!("{stamp}-{}-{}", args.system.spec()?.name(), args.isolation));
    let mut dir = base.clone();
    let mut n = 1;
    while dir.exists() {
        n += 1;
        dir = PathBuf::from(format!("{}-{n}", base.display()));
    }
    Ok(dir)
}

/// A fault's name, as `--nemesis` takes it.
fn fault_name(name: NemesisName) -> &'static str {
    match name {
        NemesisName::KillConnections => "kill-connections",
        NemesisName::KillNode => "kill-node",
        NemesisName::PauseNode => "pause-node",
        NemesisName::RestartCluster => "restart-cluster",
        NemesisName::KillAll => "kill-all",
        NemesisName::Partition => "partition",
        NemesisName::Commands => "commands",
    }
}

/// `--nemesis` as `run.json` names it: the faults, comma-separated, in turn order.
fn nemesis_name(args: &RunArgs) -> Option<String> {
    if args.nemesis.is_empty() {
        return None;
    }
    let names: Vec<String> = args
        .nemesis
        .iter()
        .map(|&n| match n {
            NemesisName::Commands => format!(
                "commands ({} / {})",
                args.nemesis_cmd.as_deref().unwrap_or(""),
                args.heal_cmd.as_deref().unwrap_or("")
            ),
            other => fault_name(other).to_string(),
        })
        .collect();
    Some(names.join(","))
}

/// `run --format json`: the check result's JSON with the run's summary under `run`.
#[derive(Serialize)]
struct RunJson<'a> {
    #[serde(flatten)]
    result: &'a CheckResult,
    run: &'a RunSummary,
}

/// What `--online` asks of the runner: the final check's options, and each standing anomaly printed on
/// stdout as it stands (text, or a line of JSON with `--format json`), numbered within its type. The
/// rounds are told the workload's micro-ops (`workload`: its name), which a prefix may not yet show:
/// rw-register's anomalies stand only when it is said (`checker::online::standing`).
fn online_config(args: &RunArgs, options: &Options, workload: &str, history_path: &Path) -> OnlineConfig {
    let numbers = std::sync::Mutex::new(std::collections::BTreeMap::<String, usize>::new());
    let (format, source) = (args.format, history_path.display().to_string());
    let report = move |anomaly: &checker::StandingAnomaly, ops: usize| {
        let mut numbers = numbers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let number = numbers.entry(anomaly.name.clone()).or_default();
        *number += 1;
        let text = match format {
            OutputFormat::Text => findings::standing_text(anomaly, *number, ops, &source),
            OutputFormat::Json => findings::standing_json(anomaly, *number, ops),
        };
        let mut stdout = std::io::stdout().lock();
        // A closed stdout ends the command when the verdict is printed; the run need not stop for it.
        let _ = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush());
    };
    OnlineConfig {
        options: options.clone().with_workload(checker::Workload::parse(workload)),
        keep_going: args.keep_going,
        report: Box::new(report),
        stream_to: Some(history_path.to_path_buf()),
    }
}

/// `run.json`'s `online`: what the online check did.
fn online_json(online: &OnlineSummary) -> serde_json::Value {
    serde_json::json!({
        "rounds": online.rounds,
        "standing_anomalies": online.anomalies,
        "stopped_by": online.stopped_by.as_ref().map(|(name, ops)| serde_json::json!({"anomaly": name, "after_ops": ops})),
        "max_lag_s": online.max_lag_ms as f64 / 1000.0,
        "retired_txns": online.retired_txns,
        "most_held_ops": online.most_held,
        "exact_rechecks": {"count": online.exact_rechecks.0, "seconds": online.exact_rechecks.1 as f64 / 1000.0},
        "released_keys": online.released_keys,
        "forgotten_keys": online.forgotten_keys,
        "last_round": {"ops": online.last_round.0, "seconds": online.last_round.1 as f64 / 1000.0},
    })
}
