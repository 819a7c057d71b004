//! `isocheck hermitage`: the Hermitage matrix for the systems and levels asked for.

use std::io::Write;

use anyhow::{Context, bail};

use isocheck::system_spec::{SystemKind, column_labels};
use serde::Serialize;

use crate::cli::{HermitageArgs, MatrixFormat};
use crate::exit;
use crate::settings::DefectScope;
use isocheck::hermitage::matrix;
use isocheck::hermitage::scenario::{self, Scenario};
use isocheck::hermitage::step_runner;
use isocheck::hermitage::verdict::{self, CellVerdict, MatrixCell};

pub fn run(args: &HermitageArgs) -> anyhow::Result<u8> {
    let mut scenarios = match &args.scenario_dir {
        Some(dir) => scenario::from_dir(dir)?,
        None => scenario::bundled()?,
    };
    if !args.scenarios.is_empty() {
        for wanted in &args.scenarios {
            if !scenarios.iter().any(|s| &s.name == wanted) {
                let mut known: Vec<&str> = scenarios.iter().map(|s| s.name.as_str()).collect();
                known.dedup();
                bail!("unknown scenario {wanted:?}; known: {}", known.join(", "));
            }
        }
        scenarios.retain(|s| args.scenarios.contains(&s.name));
    }
    let mut cells = Vec::new();
    let specs = args.system.specs(&[SystemKind::Engine], DefectScope::EverySystem)?;
    let mut systems = Vec::with_capacity(specs.len());
    for spec in &specs {
        systems.push(spec.open()?);
    }
    let versions: Vec<String> = systems.iter().map(|s| s.version()).collect();
    for ((spec, system), db_label) in specs.iter().zip(&systems).zip(column_labels(&specs, &versions)) {
        for &level in &args.isolation {
            let support = system.level(level);
            let label = match &support {
                adapters::LevelSupport::Mapped { to, .. } => format!("{level} (as {to})"),
                _ => level.to_string(),
            };
            for s in scenario::for_system(&scenarios, spec.name()) {
                if !support.is_runnable() {
                    cells.push(unsupported(&db_label, &label, s, &support.describe()));
                    continue;
                }
                let execution = step_runner::execute(system.as_ref(), level, s)
                    .with_context(|| format!("running {} on {db_label} at {label}", s.name))?;
                let mut cell = verdict::cell(&db_label, &label, level, s, &execution)?;
                if let Some(dir) = &args.out {
                    cell.history = Some(write_history(dir, &db_label, &label, s, &execution.history)?);
                }
                cells.push(cell);
            }
        }
    }
    let report = match args.format {
        MatrixFormat::Text => findings::hermitage_text(&matrix::matrix(&cells)),
        MatrixFormat::Json => serde_json::to_string_pretty(&MatrixJson { matrix: &cells })? + "\n",
        MatrixFormat::Markdown => findings::hermitage_markdown(&matrix::matrix(&cells)),
        MatrixFormat::Html => findings::hermitage_html(&matrix::matrix(&cells)),
    };
    std::io::stdout().lock().write_all(report.as_bytes())?;
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)?;
        std::fs::write(dir.join("matrix.json"), serde_json::to_string_pretty(&MatrixJson { matrix: &cells })?)?;
        std::fs::write(dir.join("matrix.md"), findings::hermitage_markdown(&matrix::matrix(&cells)))?;
        std::fs::write(dir.join("matrix.html"), findings::hermitage_html(&matrix::matrix(&cells)))?;
    }
    Ok(exit::VALID)
}

/// `hermitage --format json` and `matrix.json`: `{"matrix": [cells]}`.
#[derive(Serialize)]
struct MatrixJson<'a> {
    matrix: &'a [MatrixCell],
}

fn unsupported(db: &str, isolation: &str, s: &Scenario, why: &str) -> MatrixCell {
    MatrixCell {
        db: db.to_string(),
        isolation: isolation.to_string(),
        anomaly: s.name.clone(),
        column: s.column.clone(),
        outcome: CellVerdict::Unsupported,
        how: why.to_string(),
        checker: Vec::new(),
        history: None,
    }
}

fn write_history(
    dir: &std::path::Path,
    db: &str,
    level: &str,
    s: &Scenario,
    history: &histories::History,
) -> anyhow::Result<String> {
    let safe =
        |x: &str| x.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect::<String>();
    let sub = dir.join("histories");
    std::fs::create_dir_all(&sub)?;
    let name = format!("{}-{}-{}.jsonl", safe(db), safe(level), safe(&s.name));
    let path = sub.join(&name);
    let mut file = std::fs::File::create(&path).with_context(|| format!("creating {}", path.display()))?;
    histories::write_jsonl(history.ops(), &mut file)?;
    Ok(format!("histories/{name}"))
}
