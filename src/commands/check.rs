//! `isocheck check FILE`: read a saved history, check it, print the verdict, and exit with its code. A
//! scenario history (bank, write skew) also has its invariants checked, and where the dependency graph
//! cannot be checked on it, the invariants alone decide.

use std::io::{Read, Write};
use std::path::Path;

use anyhow::Context;
use checker::Options;
use histories::{Format, History};

use crate::cli::{CheckArgs, CheckFlags, OutputFormat};
use crate::exit;

pub fn run(args: &CheckArgs) -> anyhow::Result<u8> {
    let (history, source) = read_history(&args.file)?;
    let options = options(&args.check)?;
    let result = match checker::invariants::Scenario::detect(&history) {
        None => checker::check(&history, &options)?,
        Some(scenario) => {
            let unsound = scenario.graph_check_unsound();
            checker::invariants::check_history(&history, &options, scenario.name(), unsound, true)?.0
        }
    };
    let report = match args.format {
        OutputFormat::Text => findings::text(&result, &source),
        OutputFormat::Json => findings::json(&result) + "\n",
    };
    std::io::stdout().lock().write_all(report.as_bytes())?;
    if let Some(dir) = &args.out {
        let written =
            findings::write_out_dir(dir, &result).with_context(|| format!("writing findings to {}", dir.display()))?;
        eprintln!("isocheck: wrote {} files to {}", written.len(), dir.display());
    }
    Ok(exit::for_validity(result.valid))
}

/// The checker options the flags ask for.
pub fn options(flags: &CheckFlags) -> anyhow::Result<Options> {
    Ok(Options::new(&flags.models, &flags.anomalies)?)
}

fn read_history(path: &Path) -> anyhow::Result<(History, String)> {
    if path == Path::new("-") {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).context("reading the history from standard input")?;
        let history = histories::parse(&text, Format::sniff(&text), "<stdin>")?;
        return Ok((history, "<stdin>".into()));
    }
    Ok((histories::read_file(path)?, path.display().to_string()))
}
