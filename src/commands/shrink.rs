//! `isocheck shrink FILE`: the smallest sub-history that still shows the anomaly, with why each kept
//! transaction is needed (`checker::shrink`), printed as text or JSON (`findings::shrunk`) and written,
//! with `--out`, in the format the file's extension names. `run` and `check` with `--shrink` use
//! [`shrink_into`] to leave the same beside their report.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use checker::shrink::{ShrinkError, Shrunk};
use checker::{Options, Validity};
use histories::{Format, History};

use crate::cli::{OutputFormat, ShrinkArgs};
use crate::exit;

pub fn run(args: &ShrinkArgs) -> anyhow::Result<u8> {
    let (history, source) = super::checking::read_history(&args.file)?;
    let options = super::checking::options(&args.check)?.with_workload(args.workload.map(super::checking::workload));
    let shrunk = match shrink(&history, &options, &args.check.anomalies, &source)? {
        Some(shrunk) => shrunk,
        None => {
            eprintln!("isocheck: {source} is valid: there is no anomaly to shrink");
            return Ok(exit::VALID);
        }
    };
    if let Some(path) = &args.out {
        let format = Format::from_extension(path).unwrap_or(Format::JsonLines);
        write_history(&shrunk.history, format, path)?;
        eprintln!("isocheck: wrote the shrunk history to {}", path.display());
    }
    let report = match args.format {
        OutputFormat::Text => findings::shrunk::shrunk_text(&shrunk, &source),
        OutputFormat::Json => serde_json::to_string_pretty(&findings::shrunk::shrunk_json(&shrunk))? + "\n",
    };
    std::io::stdout().lock().write_all(report.as_bytes())?;
    Ok(exit::for_validity(shrunk.result.valid))
}

/// Shrinks `history`, with a spinner on stderr; `None` when it is valid (nothing to shrink).
pub fn shrink(history: &History, options: &Options, wanted: &[String], source: &str) -> anyhow::Result<Option<Shrunk>> {
    let spinner = isocheck::progress::spinner(format!("shrinking {} operations", history.len()));
    let started = std::time::Instant::now();
    let shrunk = checker::shrink::shrink(history, options, wanted);
    spinner.finish_and_clear();
    match shrunk {
        Ok(shrunk) => {
            log::info!(
                "shrank {source} to {} transactions in {:.3} s ({} checks)",
                shrunk.kept.len(),
                started.elapsed().as_secs_f64(),
                shrunk.checks
            );
            Ok(Some(shrunk))
        }
        Err(ShrinkError::NotShown { .. }) if wanted.is_empty() => Ok(None),
        Err(ShrinkError::Check(e)) => Err(super::checking::located(e, source)),
        Err(e) => Err(anyhow::anyhow!("{source}: {e}")),
    }
}

/// For `run` and `check` with `--shrink`: when the result is invalid, shrinks the history and, given a
/// directory, writes the shrunk history, why each transaction is kept, and its replays under
/// `dir/shrunk/`.
pub fn shrink_into(
    dir: Option<&Path>,
    history: &History,
    result: &checker::CheckResult,
    options: &Options,
    source: &str,
) -> anyhow::Result<Option<Shrunk>> {
    // Shrink for exactly what the verdict reported (a scenario workload's judge may set the graph check
    // aside); an anomaly the plain check does not show again is logged, not an error.
    let wanted: Vec<String> = result
        .anomaly_types
        .iter()
        .filter(|a| checker::consistency_model::anomaly_name(a).is_some())
        .cloned()
        .collect();
    if result.valid != Validity::Invalid || wanted.is_empty() {
        return Ok(None);
    }
    let shrunk = match shrink(history, options, &wanted, source) {
        Ok(Some(shrunk)) => shrunk,
        Ok(None) => return Ok(None),
        Err(e) => {
            log::warn!("not shrunk: {e:#}");
            return Ok(None);
        }
    };
    if let Some(dir) = dir {
        let dir = dir.join("shrunk");
        let written = findings::shrunk::write_shrunk(&dir, &shrunk, &replay::report_replays::replays(&shrunk.result))
            .with_context(|| format!("writing the shrunk history to {}", dir.display()))?;
        eprintln!(
            "isocheck: shrunk to {} transactions; wrote {} files to {}",
            shrunk.kept.len(),
            written.len(),
            dir.display()
        );
    }
    Ok(Some(shrunk))
}

fn write_history(history: &History, format: Format, path: &Path) -> anyhow::Result<()> {
    let file = std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    histories::write_history(history.ops(), format, &mut out)
        .and_then(|()| out.flush())
        .with_context(|| format!("writing {}", path.display()))
}
