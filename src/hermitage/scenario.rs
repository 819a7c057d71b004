//! The scenarios `isocheck hermitage` runs: the format is `generators::hermitage`'s; this module adds
//! the one check only the checker can make, that each scenario's `probe` names an anomaly it knows.

use std::path::Path;

use anyhow::bail;
pub use generators::hermitage::{Action, COLUMNS, Involving, Scenario, Step};

/// The bundled scenarios.
pub fn bundled() -> anyhow::Result<Vec<Scenario>> {
    generators::hermitage::bundled()?.into_iter().map(|s| probed(s, "bundled")).collect()
}

/// Every `*.toml` scenario in a directory, by file name.
pub fn from_dir(dir: &Path) -> anyhow::Result<Vec<Scenario>> {
    generators::hermitage::scenario_files(dir)?
        .iter()
        .map(|path| probed(generators::hermitage::read(path)?, &path.display().to_string()))
        .collect()
}

/// Parses and checks one scenario file.
pub fn parse(text: &str, file: &str) -> anyhow::Result<Scenario> {
    probed(generators::hermitage::parse(text, file)?, file)
}

/// The scenario, or an error naming `file` if the checker does not know its probe.
fn probed(scenario: Scenario, file: &str) -> anyhow::Result<Scenario> {
    if checker::consistency_model::anomaly_name(&scenario.probe).is_none() {
        bail!("{file}: scenario {}: probe {:?} is not an anomaly the checker knows", scenario.name, scenario.probe);
    }
    Ok(scenario)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_probe_is_an_anomaly_the_checker_knows() {
        assert_eq!(bundled().unwrap().len(), 16);
    }

    #[test]
    fn a_probe_the_checker_does_not_know_is_refused_with_the_file() {
        let text = "name = \"x\"\ncolumn = \"G0\"\ntitle = \"t\"\nprobe = \"G9\"\nrows = []\nsteps = []\n";
        let e = parse(text, "x.toml").unwrap_err();
        assert_eq!(e.to_string(), "x.toml: scenario x: probe \"G9\" is not an anomaly the checker knows");
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("x.toml"), text).unwrap();
        let e = from_dir(dir.path()).unwrap_err();
        assert!(e.to_string().ends_with("x.toml: scenario x: probe \"G9\" is not an anomaly the checker knows"), "{e}");
    }
}
