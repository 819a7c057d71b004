//! The files a run or check leaves in `--out DIR`: `findings.json` (the whole result), `report.html`,
//! `report.md`, `junit.xml`, and under `cycles/` one DOT file and one SVG picture per reported cycle,
//! named after its class and number, and where the report holds the cycle's replay
//! (`Report::with_replays`), that replay as a scenario file for `isocheck hermitage --scenario-dir`. The
//! SVG is drawn in process, or by Graphviz when asked for and installed.

use std::io;
use std::path::{Path, PathBuf};

use checker::{Anomaly, CheckResult};

use crate::graphviz::Graphviz;
use crate::junit::{JunitOptions, report_junit};
use crate::report::Report;

/// Choices for the files written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OutOptions {
    /// Draw `cycles/*.svg` with Graphviz's `dot` when it is installed (else in process).
    pub graphviz: bool,
    /// Choices for `junit.xml`.
    pub junit: JunitOptions,
}

/// Writes every file of a report into `dir` (created if missing); returns the paths written.
pub fn write_report(dir: &Path, report: &Report<'_>, options: &OutOptions) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    let mut write = |name: &str, contents: String| -> io::Result<()> {
        let path = dir.join(name);
        std::fs::write(&path, contents)?;
        log::debug!("wrote {}", path.display());
        written.push(path);
        Ok(())
    };
    write("findings.json", crate::json(report.result) + "\n")?;
    write("report.html", crate::html::report_html(report))?;
    write("report.md", crate::markdown::report_markdown(report))?;
    write("junit.xml", report_junit(report, options.junit))?;

    let graphviz = if options.graphviz {
        let found = Graphviz::find();
        if found.is_none() {
            log::warn!("--graphviz: Graphviz's dot is not on PATH; drawing cycles in process instead");
        }
        found
    } else {
        None
    };
    for (name, anomalies) in &report.result.anomalies {
        for (i, anomaly) in anomalies.iter().enumerate() {
            if let Anomaly::Cycle(cycle) = anomaly {
                let stem = format!("cycles/{name}-{}", i + 1);
                if i == 0 {
                    std::fs::create_dir_all(dir.join("cycles"))?;
                }
                let dot = crate::dot(name, i + 1, cycle);
                let svg = match graphviz.as_ref().map(|g| g.svg(&dot)) {
                    Some(Ok(svg)) => svg,
                    Some(Err(e)) => {
                        log::warn!("Graphviz could not draw {name} #{}: {e}; drawn in process instead", i + 1);
                        crate::cycle_svg(name, i + 1, cycle)
                    }
                    None => crate::cycle_svg(name, i + 1, cycle),
                };
                write(&format!("{stem}.dot"), dot)?;
                write(&format!("{stem}.svg"), svg)?;
                match report.replays.get(name, i + 1) {
                    Some(Ok(replay)) => {
                        write(&format!("{stem}.toml"), crate::escape::toml_text(&replay.toml).into_owned())?;
                    }
                    Some(Err(why)) => log::info!("{name} #{} has no step-by-step replay: {why}", i + 1),
                    None => {}
                }
            }
        }
    }
    Ok(written)
}

/// Writes the files of a check of a history whose source is unnamed, with default options and no replays.
pub fn write_out_dir(dir: &Path, result: &CheckResult) -> io::Result<Vec<PathBuf>> {
    write_report(dir, &Report::check("history", result), &OutOptions::default())
}
