//! The command line as clap parses it: raw flags, before they are checked and turned into the options
//! the libraries take (in each command module). Every flag is documented here, which is what `--help`
//! prints.

use std::path::PathBuf;
use std::time::Duration;

use adapters::Level;
use clap::{Args, Parser, Subcommand, ValueEnum};

/// isocheck tells database developers, with evidence, whether their transactions are as isolated as they
/// claim: it checks histories of transactions for isolation anomalies, Elle-style, and explains each one.
#[derive(Debug, Parser)]
#[command(name = "isocheck", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// Log what isocheck does on stderr (repeat for more: -v steps, -vv files and figures, -vvv
    /// everything). Results go to stdout either way.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,

    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check a saved history (JSON Lines, a JSON array, or Jepsen EDN) for isolation anomalies.
    ///
    /// Exit code: 0 valid, 1 an anomaly, 2 bad input or usage, 3 unknown.
    Check(CheckArgs),
    /// Run a workload against a system, record the history, and check it against the model the
    /// requested isolation level promises.
    ///
    /// With no flags: the embedded engine, list-append, serializable, 4 clients, 10,000 transactions.
    /// Writes history.jsonl and run.json to --out (default: a fresh directory under runs/).
    /// Exit code: 0 valid, 1 an anomaly, 2 bad input, usage or an unreachable system, 3 unknown.
    Run(RunArgs),
    /// Run every classic anomaly as a scripted interleaving (Hermitage's scenarios) on each system at
    /// each level, judge each by the checker, and print the matrix.
    ///
    /// Exit code: 0 when it ran (whatever the matrix shows), 2 for bad input or an unreachable system.
    Hermitage(HermitageArgs),
}

/// Flags of `isocheck check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The history file: .jsonl (one op a line), .json (an array of ops) or .edn (Jepsen); `-` reads
    /// standard input. Other extensions are recognised by their contents.
    pub file: PathBuf,

    #[command(flatten)]
    pub check: CheckFlags,

    /// The workload the history's micro-ops belong to; detected from the micro-ops when absent
    /// (appends and list reads: list-append; register writes and reads: rw-register; an init op,
    /// inserts, deletes and predicate reads: closed-predicate). Micro-ops of another workload are then
    /// an error.
    #[arg(long, value_enum)]
    pub workload: Option<WorkloadName>,

    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,

    /// Also write the findings into this directory: findings.json, report.html, report.md, junit.xml,
    /// and a DOT file and an SVG picture per reported cycle under cycles/.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    #[command(flatten)]
    pub report: ReportFlags,
}

/// How the findings files are drawn; shared by every command that writes them.
#[derive(Debug, Args)]
pub struct ReportFlags {
    /// Draw cycles/*.svg with Graphviz's dot when it is installed (default: drawn in process, no
    /// Graphviz needed; report.html always draws in process).
    #[arg(long)]
    pub graphviz: bool,
}

/// What to check for; shared by every command that checks.
#[derive(Debug, Args)]
pub struct CheckFlags {
    /// A consistency model the history must satisfy (repeatable), by Elle's names: read-uncommitted,
    /// read-committed, repeatable-read, snapshot-isolation, serializable, strict-serializable,
    /// strong-session-snapshot-isolation, ... Defaults to strict-serializable unless --anomaly is given.
    #[arg(long = "model", value_name = "MODEL")]
    pub models: Vec<String>,

    /// An anomaly to look for (repeatable), by Elle's names, including the umbrella classes G1, G2 and
    /// G-single: G0, G1a, G1b, G1c, G-single-item, G2-item, lost-update, ... Given without --model,
    /// only these anomalies (and those that imply them) are checked.
    #[arg(long = "anomaly", value_name = "ANOMALY")]
    pub anomalies: Vec<String>,

    /// rw-register: assume that within a transaction, a write of a key follows the version it read of
    /// it (Elle's :wfr-keys?), to order that key's versions.
    #[arg(long)]
    pub wfr_keys: bool,

    /// rw-register: assume each key is sequentially consistent, so each process sees its versions in
    /// order (Elle's :sequential-keys?), to order versions along process order.
    #[arg(long)]
    pub sequential_keys: bool,

    /// rw-register: assume each key is linearizable (Elle's :linearizable-keys?), to order versions
    /// along real-time order. Without one of these three assumptions a register history shows little
    /// order; the report says how little.
    #[arg(long)]
    pub linearizable_keys: bool,
}

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// A report for people.
    Text,
    /// One JSON object (DESIGN.md §3).
    Json,
}

/// `--workload` for checking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WorkloadName {
    /// Appends to and reads of lists: [append k v], [r k list].
    ListAppend,
    /// Writes and reads of registers: [w k v], [r k v].
    RwRegister,
    /// Elle's closed-predicate: an init op, then [insert k v], [delete k], [w k v], [r k v] and
    /// predicate reads [rp pred rows].
    ClosedPredicate,
}

/// Flags of `isocheck run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The system under test.
    #[arg(long, value_enum, default_value_t = DbName::Engine)]
    pub db: DbName,

    /// PostgreSQL's connection URL (postgres://user@host:port/db).
    #[arg(long, env = "ISOCHECK_PG_URL", hide_env_values = true)]
    pub url: Option<String>,

    /// The isolation level every transaction begins at: read-committed, snapshot-isolation,
    /// repeatable-read or serializable. The history is checked against the model of that name unless
    /// --model says otherwise.
    #[arg(long, default_value = "serializable")]
    pub isolation: Level,

    /// What the clients run.
    #[arg(long, value_enum, default_value_t = RunWorkloadName::ListAppend)]
    pub workload: RunWorkloadName,

    /// How many concurrent clients.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..))]
    pub clients: u16,

    /// Stop after this many transactions (default 10000 unless --duration is given).
    #[arg(long, conflicts_with = "duration")]
    pub txns: Option<u64>,

    /// Stop after this long (e.g. 10s, 2m).
    #[arg(long, value_parser = humantime::parse_duration)]
    pub duration: Option<Duration>,

    /// The seed of the transaction stream: the same seed draws the same transactions.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// A planted engine defect: global-lock, ssi-off, no-first-committer-wins, dirty-read,
    /// non-atomic-commit (engine only).
    #[arg(long, value_name = "NAME")]
    pub defect: Option<String>,

    #[command(flatten)]
    pub shape: ShapeFlags,

    /// Inject faults while the clients run: kill-connections breaks every client's connection
    /// (PostgreSQL: pg_terminate_backend; SQLite, engine: the session is dropped); commands runs
    /// --nemesis-cmd and --heal-cmd alternately. Each fault is recorded in the history as an operation of
    /// the nemesis process.
    #[arg(long, value_enum)]
    pub nemesis: Option<NemesisName>,

    /// How often the nemesis acts.
    #[arg(long, value_parser = humantime::parse_duration, default_value = "1s")]
    pub nemesis_every: Duration,

    /// With --nemesis commands: a shell command that breaks something.
    #[arg(long, value_name = "CMD", requires = "heal_cmd")]
    pub nemesis_cmd: Option<String>,

    /// With --nemesis commands: a shell command that heals what --nemesis-cmd broke.
    #[arg(long, value_name = "CMD", requires = "nemesis_cmd")]
    pub heal_cmd: Option<String>,

    /// SQLite only: how transactions begin (deferred takes the write lock at the first write, immediate
    /// at BEGIN).
    #[arg(long, value_enum, default_value_t = SqliteBegin::Deferred)]
    pub sqlite_begin: SqliteBegin,

    #[command(flatten)]
    pub check: CheckFlags,

    /// Where to write history.jsonl, run.json and the findings (findings.json, report.html, report.md,
    /// junit.xml, cycles/) (default: a fresh directory under runs/).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    #[command(flatten)]
    pub report: ReportFlags,

    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

/// The shape of generated transactions (Elle's generator options).
#[derive(Debug, Args)]
pub struct ShapeFlags {
    /// Keys active at once.
    #[arg(long, default_value_t = 8)]
    pub key_count: usize,

    /// The fewest micro-ops in a transaction.
    #[arg(long, default_value_t = 1)]
    pub min_txn_len: usize,

    /// The most micro-ops in a transaction.
    #[arg(long, default_value_t = 4)]
    pub max_txn_len: usize,

    /// Writes a key takes before a fresh key replaces it.
    #[arg(long, default_value_t = 32)]
    pub max_writes_per_key: u64,

    /// How keys are chosen: uniform, exponential or zipfian.
    #[arg(long, default_value = "exponential")]
    pub key_dist: String,
}

/// `--db`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DbName {
    /// The embedded MVCC engine (no setup).
    Engine,
    /// SQLite (bundled), a database file in a temporary directory.
    Sqlite,
    /// PostgreSQL at --url.
    Postgres,
}

/// `--workload` for runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RunWorkloadName {
    /// Appends of unique values to lists, and whole-list reads (Elle's list-append).
    ListAppend,
    /// Writes of unique values to registers, and reads (Elle's rw-register).
    RwRegister,
}

/// `--nemesis`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum NemesisName {
    /// Break every client's connection.
    KillConnections,
    /// Run --nemesis-cmd, then --heal-cmd, alternately.
    Commands,
}

/// `--sqlite-begin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SqliteBegin {
    /// BEGIN DEFERRED.
    Deferred,
    /// BEGIN IMMEDIATE.
    Immediate,
}

/// Flags of `isocheck hermitage`.
#[derive(Debug, Args)]
pub struct HermitageArgs {
    /// The systems, comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [DbName::Engine])]
    pub db: Vec<DbName>,

    /// PostgreSQL's connection URL.
    #[arg(long, env = "ISOCHECK_PG_URL", hide_env_values = true)]
    pub url: Option<String>,

    /// The levels, comma-separated; a level a system lacks is shown as such.
    #[arg(long, value_delimiter = ',', default_values_t = [Level::ReadCommitted, Level::RepeatableRead, Level::Serializable])]
    pub isolation: Vec<Level>,

    /// A planted engine defect (engine only).
    #[arg(long, value_name = "NAME")]
    pub defect: Option<String>,

    /// Only these scenarios (repeatable), by name: G0, G1a, ..., G2-two-edges.
    #[arg(long = "scenario", value_name = "NAME")]
    pub scenarios: Vec<String>,

    /// Read scenarios from this directory of TOML files instead of the bundled ones (see hermitage/README.md).
    #[arg(long, value_name = "DIR")]
    pub scenario_dir: Option<PathBuf>,

    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = MatrixFormat::Text)]
    pub format: MatrixFormat,

    /// Also write matrix.json, matrix.md, matrix.html and each scenario's history to this directory.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// SQLite only: how transactions begin.
    #[arg(long, value_enum, default_value_t = SqliteBegin::Deferred)]
    pub sqlite_begin: SqliteBegin,
}

/// `--format` of the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MatrixFormat {
    /// A table for people.
    Text,
    /// One JSON object: {"matrix": [cells]}.
    Json,
    /// A Markdown table.
    Markdown,
    /// A self-contained HTML page.
    Html,
}
