//! The scenarios `isocheck hermitage` runs: the format is `generators::hermitage`'s; this module adds
//! the one check only the checker can make, that each scenario's `probe` names an anomaly it knows.

use std::path::Path;

use anyhow::bail;

use crate::system_spec::SystemKind;
pub use generators::hermitage::{Action, COLUMNS, Involving, Scenario, ScenarioStep};

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

/// The scenario, or an error naming `file` if the checker does not know its probe or a system it is
/// the variant for is not one `--db` names.
fn probed(scenario: Scenario, file: &str) -> anyhow::Result<Scenario> {
    if checker::consistency_model::anomaly_name(&scenario.probe).is_none() {
        bail!("{file}: scenario {}: probe {:?} is not an anomaly the checker knows", scenario.name, scenario.probe);
    }
    for system in &scenario.systems {
        if <SystemKind as clap::ValueEnum>::from_str(system, false).is_err() {
            bail!(
                "{file}: scenario {}: systems names {system:?}, not a system --db names (engine, sqlite, postgres, \
                 mariadb, galera, exec)",
                scenario.name
            );
        }
    }
    Ok(scenario)
}

/// The scenarios to run on `system` (a `--db` name), in their order: of the files sharing a name, the
/// variant for that system when there is one, else the file for every system.
pub fn for_system<'a>(scenarios: &'a [Scenario], system: &str) -> Vec<&'a Scenario> {
    let is_for = |s: &Scenario| s.systems.iter().any(|n| n == system);
    scenarios
        .iter()
        .filter(|s| {
            if s.systems.is_empty() {
                !scenarios.iter().any(|other| other.name == s.name && is_for(other))
            } else {
                is_for(s)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_probe_is_an_anomaly_the_checker_knows() {
        assert_eq!(bundled().unwrap().len(), 17);
    }

    #[test]
    fn a_system_runs_its_own_variant_of_a_scenario_and_the_others_the_common_one() {
        let scenarios = bundled().unwrap();
        let pmp_write = |system: &str| {
            let mine = for_system(&scenarios, system);
            assert_eq!(mine.len(), 16, "{system}: one file per scenario name");
            mine.iter().filter(|s| s.name == "PMP-write").map(|s| s.systems.clone()).collect::<Vec<_>>()
        };
        let mariadb = vec![vec!["mariadb".to_string(), "galera".to_string()]];
        assert_eq!(pmp_write("mariadb"), mariadb);
        assert_eq!(pmp_write("galera"), mariadb);
        assert_eq!(pmp_write("postgres"), [Vec::<String>::new()]);
        assert_eq!(pmp_write("engine"), [Vec::<String>::new()]);
    }

    #[test]
    fn a_variant_for_an_unknown_system_is_refused_with_the_file() {
        let text = "name = \"x\"\ncolumn = \"G0\"\ntitle = \"t\"\nprobe = \"G0\"\nsystems = [\"mysql\"]\nrows = []\nsteps = []\n";
        let e = parse(text, "x.toml").unwrap_err();
        assert!(
            e.to_string().starts_with("x.toml: scenario x: systems names \"mysql\", not a system --db names"),
            "{e}"
        );
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
