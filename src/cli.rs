//! The command line as clap parses it: raw flags, before they are checked and turned into the specs and
//! options the libraries take (`settings`, and each command module). Every flag is documented here,
//! which is what `--help` prints; the flags that say which system to run ([`SystemFlags`]) are declared
//! once and flattened into every command that runs one.

use std::path::PathBuf;
use std::time::Duration;

use adapters::Level;
use clap::{Args, Parser, Subcommand, ValueEnum};
use isocheck::system_spec::SystemKind;
use isocheck::workload_spec::WorkloadKind;

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
    /// Writes history.jsonl and run.json to --out (default: a fresh directory under runs/). Scenario
    /// workloads (bank, write-skew) also have their invariants checked; flags (zero aborts under
    /// contention, transactions that ran one at a time) print as warnings.
    /// Exit code: 0 valid, 1 an anomaly or a broken invariant (or a flag, with --fail-on flags), 2 bad
    /// input, usage or an unreachable system, 3 unknown.
    Run(Box<RunArgs>),
    /// The overlap test: is the concurrency real? Clients meet at a barrier; each begins, writes its own
    /// row, holds the transaction open, and commits. Concurrent transactions take about one hold; a
    /// system that serializes them takes about clients x hold.
    ///
    /// Prints the median elapsed time over the rounds, its ratio to the hold, and a verdict:
    /// concurrent, serialized or partial. Exit code: 0, or 1 with --fail-on flags when the transactions
    /// ran one at a time; 2 bad usage or an unreachable system.
    Overlap(OverlapArgs),
    /// Run every classic anomaly as a scripted interleaving (Hermitage's scenarios) on each system at
    /// each level, judge each by the checker, and print the matrix.
    ///
    /// Exit code: 0 when it ran (whatever the matrix shows), 2 for bad input or an unreachable system.
    Hermitage(HermitageArgs),
    /// Run the same workload and seed against several systems and levels, several rounds each, and
    /// report them side by side: commits, aborts by cause, throughput (and its ratio to SQLite's), latency,
    /// anomalies, flags and the overlap verdict.
    ///
    /// Exit code: 0 when it ran (whatever it found), 2 for bad input or an unreachable system.
    Compare(CompareArgs),
    /// Shrink a failing history to the smallest sub-history (by transactions, then by micro-ops) on which
    /// the checker still reports the anomaly, and say why each kept transaction is needed.
    ///
    /// Prints the kept transactions with why each is needed, the test shorthand and the history.
    /// Exit code: 1 shrunk (the history shows the anomaly), 0 nothing to shrink (the history is valid),
    /// 2 bad input or usage, or a history that shows none of the anomalies named.
    Shrink(ShrinkArgs),
    /// Write a history in another format: JSON Lines, the JSON array elle-cli reads, or Jepsen EDN (for
    /// Elle and adya), keeping indices, processes, times, errors, nemesis ops and unknown fields.
    ///
    /// Exit code: 0 written, 2 bad input or usage.
    Convert(ConvertArgs),
    /// A local MariaDB Galera cluster on 127.0.0.1 for `--db galera` (MariaDB and galera-4): `up` starts
    /// it and prints, last, the --url to use; `status` prints each node's cluster size, state and
    /// readiness; `down` stops every process it started.
    ///
    /// Exit code: 0 done, 2 bad usage or a cluster that would not form (with the failing node's log).
    Cluster(ClusterArgs),
    /// Serve the embedded engine over the exec protocol on standard input and output (docs/EXEC.md):
    /// what `--db exec --cmd 'isocheck serve-exec'` starts, for the tests.
    #[command(hide = true)]
    ServeExec(ServeExecArgs),
}

/// `isocheck cluster`.
#[derive(Debug, Args)]
pub struct ClusterArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: ClusterAction,
}

/// `isocheck cluster up|status|down`.
#[derive(Debug, Subcommand)]
pub enum ClusterAction {
    /// Start the nodes (the first bootstraps, the others join by rsync SST) and wait until every one is
    /// Synced and ready; print the --url listing them, last.
    Up {
        /// The directory for the nodes' configs, data, logs and pids (created; must hold no cluster).
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
        /// How many nodes.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u16).range(1..=16))]
        nodes: u16,
        /// The first node's client port; node i (from 0) uses base+4i (client), +1 (group
        /// communication), +2 (IST) and +3 (SST).
        #[arg(long, default_value_t = 25700)]
        base_port: u16,
    },
    /// Print each node's pid, wsrep_cluster_size, wsrep_local_state_comment and wsrep_ready.
    Status {
        /// The cluster's directory.
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
    },
    /// Stop every server and helper process (SST scripts, rsync) the cluster started; data stays.
    Down {
        /// The cluster's directory.
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
    },
}

/// Flags of the hidden `isocheck serve-exec`.
#[derive(Debug, Args)]
pub struct ServeExecArgs {
    /// A planted engine defect, as for --db engine.
    #[arg(long, value_name = "NAME")]
    pub defect: Option<engine::Defect>,

    /// Exit (status 3) on receiving the Nth request of this op, without answering it: OP:N, e.g.
    /// commit:3 (a program that dies, for the tests).
    #[arg(long, value_name = "OP:N")]
    pub crash_on: Option<adapters::exec_server::PlantedFault>,

    /// Stop answering on receiving the Nth request of this op: OP:N (a program that hangs, for the
    /// tests).
    #[arg(long, value_name = "OP:N", conflicts_with = "crash_on")]
    pub hang_on: Option<adapters::exec_server::PlantedFault>,

    /// Answer the Nth request of this op with a fatal error and go on serving: OP:N (a run that
    /// cannot go on, for the tests).
    #[arg(long, value_name = "OP:N", conflicts_with_all = ["crash_on", "hang_on"])]
    pub fatal_on: Option<adapters::exec_server::PlantedFault>,
}

/// Flags of `isocheck shrink`.
#[derive(Debug, Args)]
pub struct ShrinkArgs {
    /// The history file (.jsonl, .json or .edn); `-` reads standard input.
    pub file: PathBuf,

    /// What to check, as for `check`. `--anomaly` also names what to shrink for: the shrunk history shows
    /// one of these (umbrella classes count for their members); without it, any class the whole history
    /// shows.
    #[command(flatten)]
    pub check: CheckFlags,

    /// The workload of the micro-ops (detected when absent).
    #[arg(long, value_enum)]
    pub workload: Option<WorkloadName>,

    /// Also write the shrunk history to this file, in the format its extension names (.jsonl, .json or
    /// .edn; JSON Lines otherwise).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

/// Flags of `isocheck convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The history file (.jsonl, .json or .edn); `-` reads standard input.
    pub file: PathBuf,

    /// The format to write.
    #[arg(long, value_enum)]
    pub to: HistoryFormat,

    /// Write to this file instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// A history file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HistoryFormat {
    /// JSON Lines: one operation object a line (isocheck's own).
    Jsonl,
    /// One JSON array of operation objects (elle-cli).
    Json,
    /// Jepsen EDN: one operation map a line (Elle, adya).
    Edn,
}

impl HistoryFormat {
    /// The library's format.
    pub fn format(self) -> histories::Format {
        match self {
            HistoryFormat::Jsonl => histories::Format::JsonLines,
            HistoryFormat::Json => histories::Format::JsonArray,
            HistoryFormat::Edn => histories::Format::Edn,
        }
    }
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

    /// The database's own commit order, as adya and Elle take it: a JSON object from a completion's
    /// index to the transaction's position in the database's commit order (`{"1": 0, "3": 1}`). Each
    /// rw-register key's writes are then ordered by it (as a history's own `commit_order` fields would
    /// order them, which it replaces); what it contradicts in the history is `incompatible-order`.
    #[arg(long, value_name = "FILE")]
    pub transaction_order: Option<PathBuf>,

    /// When the history satisfies the models checked and one of them was decided exactly (see
    /// --solver-timeout), write the certificate to FILE: the history with a `commit_order` on every
    /// transaction that took effect, such that `isocheck check FILE` under the same model finds it valid
    /// by inference alone, trusting no solver.
    #[arg(long, value_name = "FILE")]
    pub witness: Option<PathBuf>,

    /// Refuse a history that leaves out what the history format asks for (completions with no invoke,
    /// several invokes in flight on one process), instead of reading it as Elle does with a warning.
    #[arg(long)]
    pub strict: bool,

    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,

    /// Also write the findings into this directory: findings.json, report.html, report.md, junit.xml,
    /// and a DOT file and an SVG picture per reported cycle under cycles/.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// When the history shows an anomaly, also shrink it (as `isocheck shrink` does) and print the shrunk
    /// history after the report; with --out, write it, why each transaction is kept, and its replays
    /// under DIR/shrunk/, and show it first in report.html.
    #[arg(long)]
    pub shrink: bool,

    /// Follow FILE while another process still writes it (JSON Lines or EDN, one operation a line):
    /// print each anomaly as soon as it stands (what the rest of the history cannot take back:
    /// docs/online-checking.md); once the file has not grown for --idle, or on Ctrl-C, print the verdict
    /// on the whole file exactly as `check` does, and exit with its code.
    #[arg(long)]
    pub follow: bool,

    /// With --follow: how long the file may stay the same size before the history counts as finished
    /// (e.g. 2s, 1m; default 5s).
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration, requires = "follow")]
    pub idle: Option<Duration>,

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
    /// strong-session-snapshot-isolation, ...; and, checked exactly over session order and write-read
    /// (rw-register), read-committed-cerone (Biswas & Enea's read committed), read-atomic and
    /// causal-cerone (docs/weak-models.md). Defaults to strict-serializable unless --anomaly is given.
    #[arg(long = "model", value_name = "MODEL")]
    pub models: Vec<String>,

    /// An anomaly to look for (repeatable), by Elle's names, including the umbrella classes G1, G2 and
    /// G-single: G0, G1a, G1b, G1c, G-single-item, G2-item, lost-update, ...; or by Plume's pattern
    /// names (fractured-read-causal, non-monotonic-read-causal, ...: docs/weak-models.md). Given without
    /// --model, only these anomalies (and those that imply them) are checked.
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

    /// How long the exact decision of each model may take (serializable, snapshot-isolation and their
    /// strong-session and real-time forms, on rw-register histories whose write orders the history does
    /// not show). Past it, that model's verdict is unknown (exit 3), never valid.
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration, default_value = "60s")]
    pub solver_timeout: Duration,
}

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// A report for people.
    Text,
    /// One JSON object: the check result (docs/CONTRACTS.md, "Check result").
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
    #[command(flatten)]
    pub system: SystemFlags,

    /// The isolation level every transaction begins at: read-uncommitted, read-committed,
    /// snapshot-isolation, repeatable-read or serializable. The history is checked against the model of that name unless
    /// --model says otherwise.
    #[arg(long, default_value = "serializable")]
    pub isolation: Level,

    /// What the clients run.
    #[arg(long, value_enum, default_value_t = WorkloadKind::ListAppend)]
    pub workload: WorkloadKind,

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

    #[command(flatten)]
    pub shape: ShapeFlags,

    /// Inject faults while the clients run: kill-connections breaks every client's connection
    /// (PostgreSQL: pg_terminate_backend; MariaDB: KILL CONNECTION; SQLite, engine: the session is
    /// dropped); commands runs --nemesis-cmd and --heal-cmd alternately; kill-node, pause-node,
    /// partition, restart-cluster and kill-all fault the nodes of a Galera cluster (--db galera
    /// --cluster-dir). Repeat it to mix faults: they take turns, each healed before the next acts. Each
    /// fault is recorded in the history as an operation of the nemesis process; once the last has
    /// healed, every client reads every key it touched again (final reads).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub nemesis: Vec<NemesisName>,

    /// How often the nemesis acts.
    #[arg(long, value_parser = humantime::parse_duration, default_value = "1s")]
    pub nemesis_every: Duration,

    /// With --nemesis commands: a shell command that breaks something.
    #[arg(long, value_name = "CMD", requires = "heal_cmd")]
    pub nemesis_cmd: Option<String>,

    /// With --nemesis commands: a shell command that heals what --nemesis-cmd broke.
    #[arg(long, value_name = "CMD", requires = "nemesis_cmd")]
    pub heal_cmd: Option<String>,

    #[command(flatten)]
    pub check: CheckFlags,

    #[command(flatten)]
    pub scenario: ScenarioFlags,

    /// Also exit 1 for findings that are not anomalies: `flags` (zero-abort-under-contention,
    /// fully-serialized).
    #[arg(long, value_enum, value_name = "WHAT")]
    pub fail_on: Vec<FailOn>,

    /// Where to write history.jsonl, run.json and the findings (findings.json, report.html, report.md,
    /// junit.xml, cycles/) (default: a fresh directory under runs/).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// When the run shows an anomaly, also shrink its history (as `isocheck shrink` does) and write the
    /// shrunk history, why each transaction is kept, and its replays under OUT/shrunk/; report.html
    /// shows it first.
    #[arg(long)]
    pub shrink: bool,

    /// Hunt a rare anomaly: run the same configuration N times with successive seeds (--seed, --seed + 1,
    /// ...), keep every failing run's evidence (history, findings, shrunk history) under
    /// OUT/runs/NNN-seed-S/, and write OUT/summary.json: how many runs failed, with which anomaly.
    /// Ctrl-C ends the run under way early (transactions in flight complete), judges and keeps what it
    /// has, and writes the summary.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), conflicts_with = "until_invalid")]
    pub repeat: Option<u32>,

    /// Like --repeat, but stop at the first run that fails (or after --max-runs).
    #[arg(long)]
    pub until_invalid: bool,

    /// With --until-invalid: the most runs to make.
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..), requires = "until_invalid")]
    pub max_runs: u32,

    /// With --repeat or --until-invalid: also vary, from each run's seed, the clients (1 to --clients), the
    /// key count (a quarter of --key-count to four times it) and the longest transaction (--min-txn-len
    /// to twice --max-txn-len).
    #[arg(long)]
    pub vary: bool,

    /// Check the history while it is recorded: print each anomaly as soon as it stands (the rest of the
    /// run cannot take it back: docs/online-checking.md), explained as `check` explains it, and stop the
    /// run at the first one the models prohibit (exit 1), keeping the history and the findings. The
    /// verdict at the end is the ordinary check's, on the history recorded.
    #[arg(long, conflicts_with_all = ["repeat", "until_invalid"])]
    pub online: bool,

    /// With --online: do not stop at the first prohibited anomaly; run to the end, reporting each as
    /// it stands.
    #[arg(long, requires = "online")]
    pub keep_going: bool,

    #[command(flatten)]
    pub report: ReportFlags,

    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

/// The shapes of the scenario workloads (bank, write-skew, ycsb-a).
#[derive(Debug, Args)]
pub struct ScenarioFlags {
    /// bank: withdraw (read every balance, withdraw from one account if the total allows) or transfer
    /// (move money between two accounts; read every balance).
    #[arg(long, value_enum, default_value_t = BankMode::Withdraw)]
    pub bank_mode: BankMode,

    /// bank: how many accounts.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub accounts: u32,

    /// bank: the money in all accounts together at the start.
    #[arg(long, default_value_t = 1000)]
    pub total: i64,

    /// bank: what a withdrawal takes; the most a transfer moves.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(i64).range(1..))]
    pub amount: i64,

    /// write-skew: how many doctors (rows); at least one must stay on call.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(2..))]
    pub doctors: u32,

    /// bank and write-skew: how long each transaction sleeps between its reads and its writes, so that
    /// transactions overlap even on a system whose transactions take microseconds; also measures whether
    /// they really ran at once. Default 1ms for those workloads; 0ms turns it off.
    #[arg(long, value_parser = humantime::parse_duration)]
    pub hold: Option<Duration>,

    /// ycsb-a: records in the table.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    pub records: u64,

    /// ycsb-a: fields per record.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..))]
    pub fields: u16,

    /// ycsb-a: bytes per field (at least 8).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(8..))]
    pub field_length: u32,
}

/// `--bank-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BankMode {
    /// Withdraw from one account if the total of all allows it (write skew can overdraw).
    Withdraw,
    /// Move money between two accounts (Jepsen's bank).
    Transfer,
}

/// `--fail-on`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Flags (zero-abort-under-contention, fully-serialized) fail the command with exit code 1.
    Flags,
}

/// Flags of `isocheck overlap`.
#[derive(Debug, Args)]
pub struct OverlapArgs {
    #[command(flatten)]
    pub system: SystemFlags,

    /// The isolation level each transaction begins at.
    #[arg(long, default_value = "serializable")]
    pub isolation: Level,

    /// How many clients hold a transaction open at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..))]
    pub clients: u16,

    /// How long each client holds its transaction open, in milliseconds.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    pub hold_ms: u64,

    /// How many rounds; the median is reported.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..))]
    pub rounds: u16,

    /// Also exit 1 when the transactions ran one at a time (the fully-serialized flag).
    #[arg(long, value_enum, value_name = "WHAT")]
    pub fail_on: Vec<FailOn>,

    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

/// The shape of generated transactions (Elle's generator options).
#[derive(Debug, Clone, Args)]
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

    /// Transactions a key stays active at most: a key still active N transactions after it entered is
    /// replaced by a fresh key, however few writes it took (0: no bound). Default: no bound, except for
    /// list-append under `run --online`, where it is 1000, so that the online checker's fences close
    /// every key soon and what it holds stays bounded (docs/online-checking.md).
    #[arg(long, value_name = "N")]
    pub key_lifetime: Option<u64>,

    /// How keys are chosen: uniform, exponential or zipfian.
    #[arg(long, default_value = "exponential")]
    pub key_dist: String,
}

/// `--nemesis`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum NemesisName {
    /// Break every client's connection.
    KillConnections,
    /// --db galera with --cluster-dir: SIGKILL one node (each in turn), restart it one interval later
    /// from its recovered position, and wait until it has rejoined.
    KillNode,
    /// --db galera with --cluster-dir: SIGSTOP one node (each in turn), SIGCONT it one interval later.
    PauseNode,
    /// --db galera with --cluster-dir: stop every node and start them again from their data.
    RestartCluster,
    /// --db galera with --cluster-dir: SIGKILL every node at once (a power failure), then start the
    /// cluster again from the most advanced node.
    KillAll,
    /// --db galera with --cluster-dir, as root: cut one node (each in turn) off from the others
    /// (iptables on loopback), heal it one interval later and wait until it has rejoined. An interval
    /// under Galera's 20 s suspect timeout leaves the cluster whole.
    Partition,
    /// Run --nemesis-cmd, then --heal-cmd, alternately.
    Commands,
}

/// Which system (or systems) to run against, and how to reach it: declared once, flattened into
/// `run`, `overlap`, `compare` and `hermitage`, and validated once into `SystemSpec`s (`settings`).
#[derive(Debug, Args)]
pub struct SystemFlags {
    /// The system under test: engine, sqlite, postgres, mariadb, galera or exec (default: engine). compare and
    /// hermitage take several, comma-separated or repeated, one kind several times included (versions side
    /// by side; compare's default: engine,sqlite).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "DB")]
    pub db: Vec<SystemKind>,

    /// A server's connection URL, whose scheme says which system it is for: postgres://user@host:port/db
    /// (or key=value pairs) for PostgreSQL, mysql://user@host:port/db for MariaDB,
    /// mysql://user@host:port,host:port/db (several hosts) for Galera. Repeat it for several servers,
    /// several of one kind included (`--db postgres,postgres --url A --url B`: the first URL of a kind for
    /// the first --db of that kind). A lone server without one is reached at ISOCHECK_PG_URL or
    /// ISOCHECK_MYSQL_URL.
    #[arg(long, value_name = "URL")]
    pub url: Vec<String>,

    /// compare and hermitage: a label of your own for a system, one per --db in its order (repeatable);
    /// the reports show it after the system's name and the release the server reported (`postgres 18.6
    /// [candidate]`).
    #[arg(long = "label", value_name = "LABEL")]
    pub labels: Vec<String>,

    /// A planted engine defect (engine only): global-lock (serializes every transaction), ssi-off,
    /// no-first-committer-wins, dirty-read, non-atomic-commit.
    #[arg(long, value_name = "NAME")]
    pub defect: Option<engine::Defect>,

    /// SQLite only: how transactions begin (deferred takes the write lock at the first write, immediate
    /// at BEGIN).
    #[arg(long, value_enum, default_value_t = SqliteBeginFlag::Deferred)]
    pub sqlite_begin: SqliteBeginFlag,

    /// --db exec: the program to start, with its arguments (split as a shell splits words, no shell
    /// run), which speaks the exec protocol on its standard input and output (docs/EXEC.md). One
    /// program serves every client of a run.
    #[arg(long, value_name = "'PROGRAM ARGS'")]
    pub cmd: Option<String>,

    /// --db exec: how long to wait for any one answer of the program (a statement waiting for a lock
    /// included) before it counts as hung: it is killed, the transactions in flight end (a commit's as
    /// indeterminate), and the run ends (e.g. 30s, 2m).
    #[arg(long, value_parser = humantime::parse_duration, default_value = "60s")]
    pub exec_timeout: Duration,
    /// --db galera: the directory of a cluster `isocheck cluster up` started (its nodes are read from
    /// it, and the node nemeses need its pids); default ISOCHECK_GALERA_DIR. Instead, --url may list the nodes:
    /// mysql://root@127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3/isocheck.
    #[arg(long, value_name = "DIR")]
    pub cluster_dir: Option<PathBuf>,

    /// --db galera: put every client on this node (1 for the first), rather than round robin over all.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub node_affinity: Option<u16>,

    /// --db galera: set wsrep_sync_wait to N in every session (1: reads first wait until the node has
    /// applied every write committed before them; recorded in run.json).
    #[arg(long, value_name = "N")]
    pub galera_sync_wait: Option<u32>,
}

/// `--sqlite-begin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SqliteBeginFlag {
    /// BEGIN DEFERRED.
    Deferred,
    /// BEGIN IMMEDIATE.
    Immediate,
}

/// Flags of `isocheck hermitage`.
#[derive(Debug, Args)]
pub struct HermitageArgs {
    // The systems (comma-separated; default: engine) and how to reach them.
    #[command(flatten)]
    pub system: SystemFlags,

    /// The levels, comma-separated; a level a system lacks is shown as such.
    #[arg(long, value_delimiter = ',', default_values_t = [Level::ReadCommitted, Level::RepeatableRead, Level::Serializable])]
    pub isolation: Vec<Level>,

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

/// Flags of `isocheck compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    // The systems (comma-separated; default: engine,sqlite) and how to reach them; --defect plants its
    // defect in the engine's rows only.
    #[command(flatten)]
    pub system: SystemFlags,

    /// The levels, comma-separated; a level a system lacks is shown as such.
    #[arg(long, value_delimiter = ',', default_values_t = [Level::ReadCommitted, Level::SnapshotIsolation, Level::Serializable])]
    pub isolation: Vec<Level>,

    /// What every run runs.
    #[arg(long, value_enum, default_value_t = WorkloadKind::ListAppend)]
    pub workload: WorkloadKind,

    /// Clients per run (and per overlap round).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..))]
    pub clients: u16,

    /// Transactions per run.
    #[arg(long, default_value_t = 2000)]
    pub txns: u64,

    /// Runs (and overlap rounds) per system and level.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u16).range(1..))]
    pub rounds: u16,

    /// The seed of the transaction stream, the same for every run.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// How long each overlap client holds its transaction open, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub hold_ms: u64,

    /// Skip the overlap test.
    #[arg(long)]
    pub no_overlap: bool,

    #[command(flatten)]
    pub shape: ShapeFlags,

    #[command(flatten)]
    pub scenario: ScenarioFlags,

    /// Also write comparison.json, report.md and report.html to this directory.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = MatrixFormat::Text)]
    pub format: MatrixFormat,
}
