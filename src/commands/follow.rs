//! `isocheck check --follow FILE`: follow a history file another process is still writing, one
//! operation a line. As the file grows, rounds of the online checker (`checker::Online`) check the
//! complete lines read so far and print each anomaly that stands, at once; once the file has not grown
//! for `--idle`, or on Ctrl-C, the file is checked whole by `check`'s own code, whose output and exit code
//! are the command's. A round checks the whole prefix again, so rounds are spaced by at least the time the
//! last one took: the checker never falls further behind than one round (docs/online-checking.md).

use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use checker::Online;
use histories::{Format, Growing};

use crate::cli::{CheckArgs, OutputFormat};
use crate::settings::FollowSettings;

/// How often the file's size is looked at while it stands still.
const POLL: Duration = Duration::from_millis(50);

/// The least time between the starts of two rounds: a file that grows a line at a time is not checked
/// once a line.
const ROUND_GAP: Duration = Duration::from_millis(200);

/// Set by Ctrl-C: the history counts as finished now.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

pub fn run(args: &CheckArgs) -> anyhow::Result<u8> {
    let settings = args.follow_settings()?;
    install_interrupt_handler();
    follow(args, &settings)?;
    super::check::run(args)
}

/// Follows the file until it has been idle for the settings' time or Ctrl-C, printing what stands.
fn follow(args: &CheckArgs, settings: &FollowSettings) -> anyhow::Result<()> {
    let path = &settings.path;
    let source = path.display().to_string();
    let mut file = std::fs::File::open(path).with_context(|| format!("{source}: cannot open the history to follow"))?;
    let check_options =
        super::checking::options(&args.check)?.with_workload(args.workload.map(super::checking::workload));
    let mut online = Online::new(check_options);
    let mut growing = Growing::new();
    let mut format = settings.format;
    let mut numbers: BTreeMap<String, usize> = BTreeMap::new();
    let mut buffer = vec![0; 1 << 16];
    let mut last_growth = Instant::now();
    let mut next_round = Instant::now();
    let mut checked = 0;
    // A prefix that does not read is a malformed line: it stays so, and the final check says where.
    let mut readable = true;
    while !INTERRUPTED.load(Ordering::Relaxed) {
        let read = file.read(&mut buffer).with_context(|| format!("{source}: cannot read the history"))?;
        if read > 0 {
            growing.push(&buffer[..read]);
            last_growth = Instant::now();
            continue;
        }
        let length = file.seek(SeekFrom::End(0)).with_context(|| format!("{source}: cannot read the history"))?;
        if length < growing.len() as u64 {
            bail!("{source}: the file shrank from {} to {length} bytes while it was followed", growing.len());
        }
        file.seek(SeekFrom::Start(growing.len() as u64))
            .with_context(|| format!("{source}: cannot read the history"))?;
        if format.is_none() && growing.complete_len() > 0 {
            format = Some(line_format(&growing, &source)?);
        }
        if let Some(format) =
            format.filter(|_| readable && growing.complete_len() > checked && Instant::now() >= next_round)
        {
            let started = Instant::now();
            checked = growing.complete_len();
            match growing.prefix(format, &source) {
                Err(e) => {
                    log::info!("the history being followed does not read yet ({e}); the final check will say");
                    readable = false;
                }
                Ok(prefix) => {
                    let ops = prefix.len();
                    // A prefix may not check yet (its workload not yet told by its micro-ops); a longer one may.
                    match online.round(&prefix) {
                        Ok(found) => print_standing(&found, ops, &mut numbers, args.format, &source)?,
                        Err(e) => log::debug!("a prefix of {ops} operations does not check yet: {e}"),
                    }
                }
            }
            let took = started.elapsed();
            log::debug!("round {} over {} bytes took {:.3} s", online.rounds(), checked, took.as_secs_f64());
            next_round = Instant::now() + took.max(ROUND_GAP);
            continue;
        }
        if last_growth.elapsed() >= settings.idle {
            log::info!(
                "{source} has not grown for {}: the history is taken as finished",
                humantime::format_duration(settings.idle)
            );
            break;
        }
        std::thread::sleep(POLL);
    }
    Ok(())
}

/// Prints the anomalies a round found standing, each numbered within its type.
fn print_standing(
    found: &[checker::StandingAnomaly],
    ops: usize,
    numbers: &mut BTreeMap<String, usize>,
    format: OutputFormat,
    source: &str,
) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    for anomaly in found {
        let number = numbers.entry(anomaly.name.clone()).or_default();
        *number += 1;
        let text = match format {
            OutputFormat::Text => findings::standing_text(anomaly, *number, ops, source),
            OutputFormat::Json => findings::standing_json(anomaly, *number, ops),
        };
        stdout.write_all(text.as_bytes())?;
    }
    stdout.flush()?;
    Ok(())
}

/// The format of a file whose extension names none, told from its first complete line; a JSON array
/// is not one operation a line.
fn line_format(growing: &Growing, source: &str) -> anyhow::Result<Format> {
    let complete = growing.complete();
    let head = &complete[..complete.len().min(4096)];
    match Format::sniff(&String::from_utf8_lossy(head)) {
        Format::JsonArray => {
            bail!("{source}: --follow reads a history of one operation a line (JSON Lines or EDN), not a JSON array")
        }
        format => Ok(format),
    }
}

/// Ctrl-C ends the following: the history counts as finished and is checked whole; a second exits at once.
fn install_interrupt_handler() {
    let result = ctrlc::set_handler(|| {
        if INTERRUPTED.swap(true, Ordering::Relaxed) {
            std::process::exit(130);
        }
        eprintln!("\nisocheck: interrupted; checking the file as it stands");
    });
    if let Err(e) = result {
        log::warn!("Ctrl-C will not end --follow cleanly: {e}");
    }
}
