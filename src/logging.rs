//! Logs on stderr, as `-v` asks: warnings by default, `-v` what each step does (info), `-vv` every file
//! written and figure computed (debug), `-vvv` everything (trace). `RUST_LOG` refines it further
//! (env_logger's syntax). Logs never go to stdout, which carries only results.

use log::LevelFilter;

/// Starts logging at the level `-v` repeated `verbose` times asks for.
pub fn init(verbose: u8) {
    let level = match verbose {
        0 => LevelFilter::Warn,
        1 => LevelFilter::Info,
        2 => LevelFilter::Debug,
        _ => LevelFilter::Trace,
    };
    let mut builder = env_logger::Builder::new();
    builder.filter_level(level).format_timestamp(None).format_target(false).target(env_logger::Target::Stderr);
    if let Ok(spec) = std::env::var("RUST_LOG") {
        builder.parse_filters(&spec);
    }
    let _ = builder.try_init();
}
