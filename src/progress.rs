//! Progress on stderr for work a person waits on: a spinner with the elapsed time while a long check
//! runs and a bar over the rounds of a repeated measurement, beside the runner's transaction bar. Both draw only when stderr is a terminal (indicatif hides
//! them otherwise), so logs, pipes and CI output stay clean, and stdout carries only results.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A spinner saying `message` with the time spent so far; clear it with `finish_and_clear`.
pub fn spinner(message: impl Into<String>) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
        bar.set_style(style);
    }
    bar.set_message(message.into());
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

/// A bar over `total` repetitions of a measurement (rounds of `overlap`, cells of `compare`), saying
/// `message`; advance it with `inc(1)` and clear it with `finish_and_clear`.
pub fn rounds(total: u64, message: impl Into<String>) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({elapsed})") {
        bar.set_style(style);
    }
    bar.set_message(message.into());
    bar
}
