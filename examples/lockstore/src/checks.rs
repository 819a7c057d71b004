//! isocheck's three checks driven from Rust code, as the `isocheck` binary drives them, against any
//! `adapters::System`: a workload run and its verdict ([`run`]), the overlap test ([`overlap`]) and
//! Hermitage's scenarios ([`hermitage`]). Each is a few calls into the `isocheck` library: build the
//! workload, run the clients (`isocheck::runner`), judge the history (`isocheck::judge`); measure the
//! rounds (`isocheck::overlap_summary`); execute each scenario and judge its cell (`isocheck::hermitage`).

use std::sync::Arc;

use adapters::{Level, System};
use checker::{CheckResult, Options};
use generators::Params;
use isocheck::hermitage::{scenario, step_runner, verdict};
use isocheck::runner::overlap::OverlapConfig;
use isocheck::runner::workload::{BankParams, YcsbParams};
use isocheck::runner::{Limit, RunConfig};
use isocheck::workload_spec::{WorkloadKind, WorkloadSpec};

/// Runs `txns` transactions of a workload on `clients` clients at `level` and checks the history against
/// the model the level promises.
pub fn run(
    system: &Arc<dyn System>,
    workload: WorkloadKind,
    level: Level,
    clients: usize,
    txns: u64,
    seed: u64,
) -> anyhow::Result<CheckResult> {
    let spec = WorkloadSpec::new(workload, Params::default(), BankParams::default(), 2, None, YcsbParams::default())?;
    let source = spec.build(seed, clients)?;
    let config = RunConfig {
        system: Arc::clone(system),
        level,
        workload: Arc::clone(&source),
        clients,
        limit: Limit::Txns(txns),
        progress: false,
        nemesis: None,
        record: true,
        online: None,
    };
    let outcome = isocheck::runner::run(&config)?;
    let options = Options::new(&[level.promised_model().to_string()], &[])?;
    let (result, _) = isocheck::judge::judge(&outcome, source.as_ref(), &options, level, clients, system.as_ref())?;
    Ok(result)
}

/// The overlap test: `clients` clients each hold a write transaction open for `hold`, `rounds` times;
/// the verdict is `concurrent`, `serialized` or `partial`.
pub fn overlap(
    system: &Arc<dyn System>,
    clients: usize,
    hold: std::time::Duration,
    rounds: usize,
) -> anyhow::Result<findings::OverlapSummary> {
    let config = OverlapConfig { level: Level::Serializable, clients, hold, rounds };
    isocheck::overlap_summary::overlap_summary(system, &config, None)
}

/// Every bundled Hermitage scenario at `level` (the common script where another system has a variant of
/// its own), each judged by the checker: one cell per scenario.
pub fn hermitage(system: &dyn System, level: Level) -> anyhow::Result<Vec<verdict::MatrixCell>> {
    let mut cells = Vec::new();
    let bundled = scenario::bundled()?;
    for s in scenario::for_system(&bundled, system.name()) {
        let execution = step_runner::execute(system, level, s)?;
        cells.push(verdict::cell(system.name(), level.name(), level, s, &execution)?);
    }
    Ok(cells)
}
