//! The `isocheck` command: parses arguments, runs the command, and turns its outcome into an exit code
//! (docs/checking.md: 0 valid, 1 anomaly, 2 bad input or usage, 3 unknown). Everything else lives in the
//! command modules and the library crates.

mod allocator;
mod cli;
mod commands;
mod exit;
mod logging;
mod settings;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // Parsing starts no thread, so the allocator may still be set up (and the program started again) after it.
    let parsed = cli::Cli::try_parse();
    allocator::configure(parsed.as_ref().is_ok_and(cli::Cli::huge_pages));
    let args = match parsed {
        Ok(args) => args,
        Err(e) => {
            let code = if e.use_stderr() { exit::USAGE } else { exit::VALID };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    logging::init(args.verbose);
    match commands::run(args) {
        Ok(code) => ExitCode::from(code),
        Err(e) if exit::is_broken_pipe(&e) => ExitCode::from(exit::VALID),
        Err(e) => {
            eprintln!("isocheck: {}", findings::escape::terminal_text(&format!("{e:#}")));
            ExitCode::from(exit::USAGE)
        }
    }
}
