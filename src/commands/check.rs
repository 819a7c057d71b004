//! `isocheck check FILE`: read a saved history, check it, print the verdict, and exit with its code. A
//! scenario history (bank, write skew) also has its invariants checked, and where the dependency graph
//! cannot be checked on it, the invariants alone decide.

use std::io::{Read, Write};
use std::path::Path;

use anyhow::Context;
use checker::invariants::GraphPolicy;
use checker::{CheckError, Inference, Options, Workload};
use histories::{Format, History};

use crate::cli::{CheckArgs, CheckFlags, OutputFormat, ReportFlags, WorkloadName};
use crate::exit;

pub fn run(args: &CheckArgs) -> anyhow::Result<u8> {
    let started = std::time::Instant::now();
    let (history, source) = read_history(&args.file)?;
    log::info!(
        "read {} operations from {} in {:.3} s",
        history.len(),
        findings::escape::terminal(&source),
        started.elapsed().as_secs_f64()
    );
    let history = match &args.transaction_order {
        None => history,
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("{}: cannot read the transaction order", path.display()))?;
            let order = histories::TransactionOrder::parse(&text, &path.display().to_string())?;
            log::info!("the transaction order places {} completions", order.len());
            order.apply(&history)?
        }
    };
    if args.strict {
        history.refuse_leniency(&source)?;
    }
    for leniency in history.leniencies() {
        log::warn!(
            "{}:{}: read leniently ({} op{}, the first here): {}",
            findings::escape::terminal(&source),
            leniency.first,
            leniency.ops,
            if leniency.ops == 1 { "" } else { "s" },
            leniency.kind.missing()
        );
    }
    let options = options(&args.check)?.with_workload(args.workload.map(workload)).with_witness(args.witness.is_some());
    let result = match checker::invariants::InvariantSuite::detect(&history) {
        None => check(&history, &options).map_err(|e| located(e, &source))?,
        Some(suite) => {
            let graph = suite.graph_check_unsound().map_or(GraphPolicy::WhereReadable, GraphPolicy::Unsound);
            let checked = isocheck::judge::check_with_invariants(&history, &options, suite.name(), graph);
            checked.map_err(|e| located(e, &source))?.0
        }
    };
    let shrunk = match args.shrink {
        true => super::shrink::shrink_into(args.out.as_deref(), &history, &result, &options, &source)?,
        false => None,
    };
    let report = match (args.format, &shrunk) {
        (OutputFormat::Text, None) => findings::text(&result, &source),
        (OutputFormat::Text, Some(shrunk)) => {
            findings::text(&result, &source) + "\n" + &findings::shrunk::shrunk_text(shrunk, &source)
        }
        (OutputFormat::Json, _) => {
            let mut value = serde_json::to_value(&result)?;
            if let (Some(object), Some(shrunk)) = (value.as_object_mut(), &shrunk) {
                object.insert("shrunk".into(), findings::shrunk::shrunk_json(shrunk));
            }
            serde_json::to_string_pretty(&value)? + "\n"
        }
    };
    std::io::stdout().lock().write_all(report.as_bytes())?;
    if let Some(dir) = &args.out {
        let mut report = findings::Report::check(&source, &result)
            .with_history(&history)
            .with_replays(replay::report_replays::replays(&result));
        if let Some(shrunk) = &shrunk {
            report = report.with_shrunk(shrunk);
        }
        write_report(dir, &report, &args.report)?;
    }
    if let Some(path) = &args.witness {
        write_witness(path, &history, &result)?;
    }
    let code = exit::for_validity(result.valid);
    // The process ends once the verdict is out: freeing a large history piece by piece would only delay
    // the exit (0.3-0.7 s at a million transactions), and the operating system takes the memory back
    // whole.
    std::mem::forget(history);
    Ok(code)
}

/// Writes the result's witness, the history with each transaction's place in it as its `commit_order`,
/// to `path`; says why on stderr when there is none.
fn write_witness(path: &Path, history: &History, result: &checker::CheckResult) -> anyhow::Result<()> {
    let Some(witness) = &result.witness else {
        eprintln!(
            "isocheck: no witness written to {}: {}",
            path.display(),
            match result.valid {
                checker::Validity::Valid => {
                    "no model checked is one decided exactly (serializable, snapshot-isolation and their \
                     strong-session and real-time forms, on rw-register histories)"
                }
                _ => "the history does not satisfy the models checked",
            }
        );
        return Ok(());
    };
    let order = histories::TransactionOrder::from_positions(
        witness.order.iter().enumerate().map(|(position, &index)| (index, position as i64)),
        &path.display().to_string(),
    );
    let placed = order.apply(history)?;
    let file = std::fs::File::create(path).with_context(|| format!("{}: cannot create the witness", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    histories::write_history(placed.ops(), Format::JsonLines, &mut out)
        .with_context(|| format!("{}: cannot write the witness", path.display()))?;
    out.flush()?;
    eprintln!(
        "isocheck: wrote a witness for {} to {}: `isocheck check {} --model {}` checks it without a solver",
        witness.model,
        path.display(),
        path.display(),
        witness.model
    );
    Ok(())
}

/// Checks a history, with a spinner on stderr while it runs and its duration in the log.
pub fn check(history: &History, options: &Options) -> Result<checker::CheckResult, CheckError> {
    let spinner = isocheck::progress::spinner(format!("checking {} operations", history.len()));
    let started = std::time::Instant::now();
    let result = checker::check(history, options);
    spinner.finish_and_clear();
    let result = result?;
    log::info!(
        "checked {} transactions in {:.3} s: {} dependencies, {} cyclic components, verdict {}",
        result.stats.txns,
        started.elapsed().as_secs_f64(),
        result.stats.edges.values().sum::<usize>(),
        result.stats.cyclic_components,
        findings::verdict_word(result.valid)
    );
    Ok(result)
}

/// Writes the findings files of `report` into `dir`, and says where on stderr.
pub fn write_report(dir: &Path, report: &findings::Report<'_>, flags: &ReportFlags) -> anyhow::Result<()> {
    let options = findings::OutOptions { graphviz: flags.graphviz, ..Default::default() };
    let written = findings::write_report(dir, report, &options)
        .with_context(|| format!("writing findings to {}", dir.display()))?;
    eprintln!(
        "isocheck: wrote {} files to {} (open {})",
        written.len(),
        dir.display(),
        dir.join("report.html").display()
    );
    Ok(())
}

/// The checker options the flags ask for.
pub fn options(flags: &CheckFlags) -> anyhow::Result<Options> {
    Ok(Options::new(&flags.models, &flags.anomalies)?
        .with_inference(inference(flags))
        .with_solver_budget(flags.solver_timeout))
}

/// The register-inference assumptions the flags make.
pub fn inference(flags: &CheckFlags) -> Inference {
    Inference {
        wfr_keys: flags.wfr_keys,
        sequential_keys: flags.sequential_keys,
        linearizable_keys: flags.linearizable_keys,
    }
}

/// A checker error about an operation, located in the file as a malformed history's errors are.
pub fn located(error: CheckError, source: &str) -> anyhow::Error {
    match error {
        CheckError::Workload { at, message } => anyhow::anyhow!("{source}:{at}: {message}"),
        other => other.into(),
    }
}

pub fn workload(name: WorkloadName) -> Workload {
    match name {
        WorkloadName::ListAppend => Workload::ListAppend,
        WorkloadName::RwRegister => Workload::RwRegister,
        WorkloadName::ClosedPredicate => Workload::ClosedPredicate,
    }
}

pub fn read_history(path: &Path) -> anyhow::Result<(History, String)> {
    if path == Path::new("-") {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).context("reading the history from standard input")?;
        let history = histories::parse(&text, Format::sniff(&text), "<stdin>")?;
        return Ok((history, "<stdin>".into()));
    }
    let read = histories::read_path(path)?;
    let source = path.display().to_string();
    if let Some(mismatch) = read.mismatch {
        eprintln!("isocheck: warning: {}: {mismatch}", findings::escape::terminal(&source));
    }
    Ok((read.history, source))
}
