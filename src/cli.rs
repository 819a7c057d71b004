//! The command line as clap parses it: raw flags, before they are checked and turned into the options
//! the libraries take (in each command module). Every flag is documented here, which is what `--help`
//! prints.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// isocheck tells database developers, with evidence, whether their transactions are as isolated as they
/// claim: it checks histories of transactions for isolation anomalies, Elle-style, and explains each one.
#[derive(Debug, Parser)]
#[command(name = "isocheck", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
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
}

/// Flags of `isocheck check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The history file: .jsonl (one op a line), .json (an array of ops) or .edn (Jepsen); `-` reads
    /// standard input. Other extensions are recognised by their contents.
    pub file: PathBuf,

    #[command(flatten)]
    pub check: CheckFlags,

    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,

    /// Also write findings.json and a Graphviz DOT file per reported cycle into this directory.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
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

    /// The workload the history's micro-ops belong to; detected from the micro-ops when absent.
    #[arg(long, value_enum)]
    pub workload: Option<WorkloadName>,
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
}
