//! One module per command; this one dispatches. Each command returns its exit code, or an error that
//! means bad input or usage (exit 2).

mod check;
mod checking;
mod cluster;
mod compare;
mod convert;
mod follow;
mod hermitage;
mod hunt;
mod overlap;
mod run;
mod serve_exec;
mod shrink;

use crate::cli::{Cli, Command};

/// Runs the parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<u8> {
    match cli.command {
        Command::Check(args) if args.follow => follow::run(&args),
        Command::Check(args) => check::run(&args),
        Command::Run(args) if args.repeat.is_some() || args.until_invalid => hunt::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Overlap(args) => overlap::run(&args),
        Command::Hermitage(args) => hermitage::run(&args),
        Command::Compare(args) => compare::run(&args),
        Command::Shrink(args) => shrink::run(&args),
        Command::Convert(args) => convert::run(&args),
        Command::Cluster(args) => cluster::run(&args),
        Command::ServeExec(args) => serve_exec::run(&args),
    }
}
