//! `isocheck overlap`: is the concurrency real? Measures and summarizes the overlap
//! (`isocheck::overlap_summary`: N clients each hold a write transaction open at once, several rounds),
//! prints the summary (`findings::overlap_text`, or its JSON), and turns its flags into the exit code.

use std::io::Write;
use std::time::Duration;

use anyhow::bail;
use isocheck::overlap_summary::overlap_summary;
use isocheck::runner::overlap::OverlapConfig;

use crate::cli::{FailOn, OutputFormat, OverlapArgs};
use crate::exit;

pub fn run(args: &OverlapArgs) -> anyhow::Result<u8> {
    let spec = args.system.spec()?;
    let system = spec.open()?;
    let support = system.level(args.isolation);
    if !support.is_runnable() {
        bail!("{} cannot run {}: {}", system.name(), args.isolation, support.describe());
    }
    let config = OverlapConfig {
        level: args.isolation,
        clients: usize::from(args.clients),
        hold: Duration::from_millis(args.hold_ms),
        rounds: usize::from(args.rounds),
    };
    let summary = overlap_summary(&system, &config, spec.defect())?;
    let text = match args.format {
        OutputFormat::Json => serde_json::to_string_pretty(&summary)? + "\n",
        OutputFormat::Text => findings::overlap_text(&summary),
    };
    std::io::stdout().lock().write_all(text.as_bytes())?;
    let failing = args.fail_on.contains(&FailOn::Flags) && !summary.flags.is_empty();
    Ok(if failing { exit::INVALID } else { exit::VALID })
}
