//! The validated-settings step between clap's raw flags (`cli`) and the specs the library takes: the
//! system flags become [`SystemSpec`]s (one per `--db`), the workload flags a [`WorkloadSpec`], each
//! checked once, so a command never parses a flag itself (ripgrep's `lowargs.rs` → `hiargs.rs`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use generators::{KeyDist, Params};
use histories::Format;
use isocheck::runner::workload::{BankMode, BankParams, YcsbParams};
use isocheck::system_spec::{ExecCommand, GaleraSpec, SystemKind, SystemSpec, url_for};
use isocheck::workload_spec::{WorkloadKind, WorkloadSpec};

use crate::cli::{self, ScenarioFlags, ShapeFlags, SystemFlags};

/// The environment variable that gives `--cluster-dir` when the flag does not (`--db galera`).
pub const GALERA_DIR_VAR: &str = "ISOCHECK_GALERA_DIR";

/// Which systems a planted defect goes into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefectScope {
    /// Every system named: a defect with another system than the engine is an error.
    EverySystem,
    /// The engine's rows only (`compare`, which runs the engine beside others).
    EngineOnly,
}

impl SystemFlags {
    /// The one system a command runs against (`--db`, default the engine).
    pub fn spec(&self) -> anyhow::Result<SystemSpec> {
        if !self.labels.is_empty() {
            bail!("--label names a column of compare's and hermitage's reports; this command has none");
        }
        let mut specs = self.specs(&[SystemKind::Engine], DefectScope::EverySystem)?;
        if specs.len() > 1 {
            bail!("--db names one system here, not {}", specs.len());
        }
        Ok(specs.remove(0))
    }

    /// The URL of the `nth` (from 0) of `servers` servers of `kind` that `--db` names: the `nth` `--url`
    /// whose scheme is its, else (for a lone server) its environment variable (`ISOCHECK_PG_URL`,
    /// `ISOCHECK_MYSQL_URL`); `None` for a system in process.
    fn url_for(&self, kind: SystemKind, nth: usize, servers: usize) -> anyhow::Result<Option<String>> {
        if kind == SystemKind::Galera {
            return Ok(url_for(kind, nth, servers, &self.url)?.map(str::to_string));
        }
        let Some((var, _)) = kind.url_var() else { return Ok(None) };
        if let Some(url) = url_for(kind, nth, servers, &self.url)? {
            return Ok(Some(url.to_string()));
        }
        Ok(std::env::var(var).ok().filter(|url| !url.is_empty()))
    }

    /// Every system `--db` names (or `default` when it names none), validated.
    pub fn specs(&self, default: &[SystemKind], scope: DefectScope) -> anyhow::Result<Vec<SystemSpec>> {
        let kinds = if self.db.is_empty() { default } else { &self.db };
        let begin = match self.sqlite_begin {
            cli::SqliteBeginFlag::Deferred => adapters::SqliteBegin::Deferred,
            cli::SqliteBeginFlag::Immediate => adapters::SqliteBegin::Immediate,
        };
        if self.labels.len() > kinds.len() {
            bail!(
                "{} --label for {} system(s): give at most one label per --db, in its order",
                self.labels.len(),
                kinds.len()
            );
        }
        kinds
            .iter()
            .enumerate()
            .map(|(i, &kind)| {
                let defect = match scope {
                    DefectScope::EverySystem => self.defect,
                    DefectScope::EngineOnly => self.defect.filter(|_| kind == SystemKind::Engine),
                };
                let nth = kinds[..i].iter().filter(|&&k| k == kind).count();
                let servers = kinds.iter().filter(|&&k| k == kind).count();
                let url = self.url_for(kind, nth, servers)?;
                let exec = self
                    .cmd
                    .as_ref()
                    .map(|command| ExecCommand { command: command.clone(), timeout: self.exec_timeout });
                let galera = GaleraSpec {
                    cluster_dir: self.cluster_dir.clone().or_else(|| {
                        std::env::var_os(GALERA_DIR_VAR).filter(|d| !d.is_empty()).map(std::path::PathBuf::from)
                    }),
                    options: adapters::GaleraOptions {
                        affinity: self.node_affinity.map(|n| usize::from(n) - 1),
                        sync_wait: self.galera_sync_wait,
                    },
                };
                Ok(SystemSpec::new(kind, url.as_deref(), defect, begin)?
                    .with_exec(exec)?
                    .with_galera(galera)?
                    .with_user_label(self.labels.get(i).cloned()))
            })
            .collect()
    }
}

/// How long `check --follow` waits for a file to grow before taking its history as finished, unless
/// `--idle` says otherwise.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(5);

/// What `check --follow` follows, validated: a file (standard input has no size to watch), in a format
/// of one operation a line (the extension's, or told from the first line when it names none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FollowSettings {
    /// The file.
    pub path: PathBuf,
    /// Its format, when the extension names it.
    pub format: Option<Format>,
    /// How long it may stay the same size before its history counts as finished.
    pub idle: Duration,
}

impl cli::CheckArgs {
    /// The settings of `--follow`, validated.
    pub fn follow_settings(&self) -> anyhow::Result<FollowSettings> {
        if self.file == Path::new("-") {
            bail!("--follow follows a file that grows; standard input cannot be followed");
        }
        let format = Format::from_extension(&self.file);
        if format == Some(Format::JsonArray) {
            bail!(
                "--follow reads a history of one operation a line (JSON Lines or EDN); {} names a JSON array",
                self.file.display()
            );
        }
        let idle = self.idle.unwrap_or(DEFAULT_IDLE);
        if idle.is_zero() {
            bail!("--idle must be longer than zero");
        }
        Ok(FollowSettings { path: self.file.clone(), format, idle })
    }
}

/// How many transactions a list-append or rw-register key stays active at most under `run --online` unless
/// `--key-lifetime` says otherwise: every key then closes within a bounded window, so that retirement
/// bounds what the online checker holds (docs/online-checking.md, "Lifetime fences").
pub const ONLINE_KEY_LIFETIME: u64 = 1000;

/// The workload the flags describe, validated. `online`: the run is checked online (`run --online`),
/// which bounds generated keys' lifetimes by default.
pub fn workload_spec(
    kind: WorkloadKind,
    shape: &ShapeFlags,
    scenario: &ScenarioFlags,
    online: bool,
) -> anyhow::Result<WorkloadSpec> {
    let key_dist = KeyDist::parse(&shape.key_dist).with_context(|| {
        format!("unknown --key-dist {:?}: expected uniform, exponential or zipfian", shape.key_dist)
    })?;
    let params = Params {
        key_count: shape.key_count,
        min_txn_len: shape.min_txn_len,
        max_txn_len: shape.max_txn_len,
        max_writes_per_key: shape.max_writes_per_key,
        key_dist,
        key_lifetime: match shape.key_lifetime {
            Some(0) => None,
            Some(n) => Some(n),
            None if online && matches!(kind, WorkloadKind::ListAppend | WorkloadKind::RwRegister) => {
                Some(ONLINE_KEY_LIFETIME)
            }
            None => None,
        },
        ..Params::default()
    };
    let mode = match scenario.bank_mode {
        cli::BankMode::Withdraw => BankMode::Withdraw,
        cli::BankMode::Transfer => BankMode::Transfer,
    };
    let bank = BankParams {
        mode,
        accounts: scenario.accounts,
        total: scenario.total,
        amount: scenario.amount,
        hold: Default::default(),
    };
    let ycsb = YcsbParams {
        records: scenario.records,
        fields: usize::from(scenario.fields),
        field_len: scenario.field_length as usize,
    };
    WorkloadSpec::new(kind, params, bank, scenario.doctors, scenario.hold, ycsb)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, Command};

    fn system_flags(args: &[&str]) -> SystemFlags {
        let cli = Cli::try_parse_from(args).expect("the flags parse");
        match cli.command {
            Command::Run(args) => args.system,
            Command::Overlap(args) => args.system,
            Command::Compare(args) => args.system,
            Command::Hermitage(args) => args.system,
            other => panic!("parsed as {other:?}"),
        }
    }

    fn labels(specs: anyhow::Result<Vec<SystemSpec>>) -> Vec<String> {
        specs.expect("valid specs").iter().map(SystemSpec::label).collect()
    }

    #[test]
    fn one_system_by_default_and_a_named_one_with_its_defect() {
        let run = system_flags(&["isocheck", "run", "--defect", "ssi-off"]);
        assert_eq!(run.spec().map(|s| s.label()).ok().as_deref(), Some("engine (ssi-off)"));
        let two = system_flags(&["isocheck", "overlap", "--db", "engine,sqlite"]);
        assert_eq!(two.spec().map_err(|e| e.to_string()).err().as_deref(), Some("--db names one system here, not 2"));
    }

    #[test]
    fn compare_plants_the_defect_in_the_engines_rows_and_hermitage_refuses_it_elsewhere() {
        let compare = system_flags(&["isocheck", "compare", "--defect", "dirty-read"]);
        let default = [SystemKind::Engine, SystemKind::Sqlite];
        assert_eq!(labels(compare.specs(&default, DefectScope::EngineOnly)), ["engine (dirty-read)", "sqlite"]);
        let hermitage = system_flags(&["isocheck", "hermitage", "--db", "engine,sqlite", "--defect", "dirty-read"]);
        let refused = hermitage.specs(&[SystemKind::Engine], DefectScope::EverySystem).map_err(|e| e.to_string());
        assert_eq!(
            refused.err().as_deref(),
            Some("--defect plants a defect in the embedded engine; it cannot be used with --db sqlite")
        );
    }

    #[test]
    fn two_servers_of_one_kind_each_take_their_url_and_label_in_the_order_of_db() {
        let urls = ["--url", "postgres://a@h:1/db", "--url", "postgres://b@h:2/db"];
        let listed = system_flags(
            &[&["isocheck", "compare", "--db", "postgres,postgres", "--label", "old"][..], &urls].concat(),
        );
        let repeated = system_flags(&[
            "isocheck",
            "hermitage",
            "--db",
            "postgres",
            "--url",
            "postgres://a@h:1/db",
            "--db",
            "postgres",
            "--url",
            "postgres://b@h:2/db",
            "--label",
            "old",
        ]);
        for flags in [listed, repeated] {
            let specs = flags.specs(&[SystemKind::Engine], DefectScope::EverySystem).expect("valid");
            let labels: Vec<String> = specs.iter().map(|s| s.column_label("PostgreSQL 15.18 (Debian)")).collect();
            assert_eq!(labels, ["postgres 15.18 [old]", "postgres 15.18"]);
            assert_eq!(format!("{specs:?}").matches("postgres://a@h:1/db").count(), 1);
            assert!(format!("{:?}", specs[1]).contains("postgres://b@h:2/db"), "{specs:?}");
        }
        let one_url = system_flags(&["isocheck", "compare", "--db", "postgres,postgres", "--url", "postgres://a@h/db"]);
        let refused = one_url.specs(&[SystemKind::Engine], DefectScope::EngineOnly).map_err(|e| e.to_string());
        assert!(
            refused.err().is_some_and(|e| e.starts_with("--db names 2 postgres server(s) but 1 --url is for postgres"))
        );
        let run = system_flags(&["isocheck", "run", "--db", "engine", "--label", "a"]);
        assert_eq!(
            run.spec().map_err(|e| e.to_string()).err().as_deref(),
            Some("--label names a column of compare's and hermitage's reports; this command has none")
        );
        let labels = system_flags(&["isocheck", "compare", "--db", "engine", "--label", "a", "--label", "b"]);
        let refused = labels.specs(&[SystemKind::Engine], DefectScope::EngineOnly).map_err(|e| e.to_string());
        assert_eq!(
            refused.err().as_deref(),
            Some("2 --label for 1 system(s): give at most one label per --db, in its order")
        );
    }

    #[test]
    fn an_unknown_defect_is_a_usage_error_naming_the_defects() {
        let err = Cli::try_parse_from(["isocheck", "hermitage", "--defect", "ssi_off"]).expect_err("refused");
        assert!(err.use_stderr());
        assert!(err.to_string().contains("expected one of: global-lock, ssi-off"), "{err}");
    }

    #[test]
    fn online_generated_runs_bound_key_lifetimes_unless_told_otherwise() {
        let lifetime = |args: &[&str]| match Cli::try_parse_from(args).expect("the flags parse").command {
            Command::Run(run) => {
                workload_spec(run.workload, &run.shape, &run.scenario, run.online).expect("valid").params.key_lifetime
            }
            other => panic!("parsed as {other:?}"),
        };
        assert_eq!(lifetime(&["isocheck", "run"]), None, "offline runs draw Elle's stream");
        assert_eq!(lifetime(&["isocheck", "run", "--online"]), Some(ONLINE_KEY_LIFETIME));
        assert_eq!(lifetime(&["isocheck", "run", "--online", "--key-lifetime", "0"]), None);
        assert_eq!(lifetime(&["isocheck", "run", "--key-lifetime", "50"]), Some(50));
        assert_eq!(lifetime(&["isocheck", "run", "--online", "--workload", "rw-register"]), Some(ONLINE_KEY_LIFETIME));
        assert_eq!(lifetime(&["isocheck", "run", "--workload", "rw-register"]), None);
    }
}
