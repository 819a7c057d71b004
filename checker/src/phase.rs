//! Timing the steps of a check for the debug log (`-vv`), so a large history shows where its time goes.
//! This module owns only the timer; each step names itself.

/// The time each step of a check takes, in the debug log (`-vv`): where a large history's time goes.
pub(crate) struct Phase {
    started: std::cell::Cell<std::time::Instant>,
}

impl Phase {
    pub(crate) fn start() -> Phase {
        Phase { started: std::cell::Cell::new(std::time::Instant::now()) }
    }

    /// Logs the step that ends now, and starts timing the next.
    pub(crate) fn done(&self, step: &str) {
        let now = std::time::Instant::now();
        log::debug!("{step}: {:.3} s", (now - self.started.get()).as_secs_f64());
        self.started.set(now);
    }
}
