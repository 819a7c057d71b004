//! `isocheck check FILE`: read a saved history, check it, print the verdict, and exit with its code. A
//! scenario history (bank, write skew) also has its invariants checked, and where the dependency graph
//! cannot be checked on it, the invariants alone decide.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use checker::invariants::GraphPolicy;
use histories::{Format, History};

use super::checking::{check, located, options, read_history, workload, write_report};
use crate::cli::{CheckArgs, OutputFormat};
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
