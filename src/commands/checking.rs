//! Checking a saved history as every command that checks one does: reading it (from a file or standard
//! input), the checker options and register-inference assumptions the flags ask for, the check itself
//! with a spinner, a checker error located in the file, and writing the findings files. `check`,
//! `shrink`, `follow`, `convert` and `run` share this; each command's own flow is its module's.

use std::io::Read;
use std::path::Path;

use anyhow::Context;
use checker::{CheckError, Inference, Options, Workload};
use histories::{Format, History};

use crate::cli::{CheckFlags, ReportFlags, WorkloadName};

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
