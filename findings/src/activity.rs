//! What a history did over time: transactions completed per time slice, by outcome, from the times
//! the history recorded. The reports draw it as the run's throughput chart; a history without times
//! has none. This module owns the slicing; drawing it is `chart.rs`'s.

use histories::{History, OpType};

/// Completions in one time slice.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Slice {
    /// Committed.
    pub ok: u64,
    /// Aborted.
    pub fail: u64,
    /// Indeterminate.
    pub info: u64,
}

impl Slice {
    /// Every completion in the slice.
    pub fn total(&self) -> u64 {
        self.ok + self.fail + self.info
    }
}

/// Completions over time, in slices of equal length from the first invocation.
#[derive(Debug, Clone, PartialEq)]
pub struct Activity {
    /// Each slice's length, in nanoseconds.
    pub slice_ns: i64,
    /// The slices, in time order.
    pub slices: Vec<Slice>,
}

impl Activity {
    /// At most this many slices.
    pub const MAX_SLICES: usize = 60;

    /// The history's completions in at most [`Activity::MAX_SLICES`] slices, or `None` when the
    /// history recorded no times (or none of its transactions completed).
    pub fn of(history: &History) -> Option<Activity> {
        let mut start = i64::MAX;
        let mut completions: Vec<(i64, OpType)> = Vec::new();
        for txn in history.transactions() {
            if let Some(t) = txn.invoke.time() {
                start = start.min(t);
            }
            if let Some(done) = txn.completion
                && let Some(t) = done.time()
            {
                completions.push((t, done.kind));
            }
        }
        let end = completions.iter().map(|&(t, _)| t).max()?;
        if start == i64::MAX {
            start = completions.iter().map(|&(t, _)| t).min()?;
        }
        let span = (end - start).max(1);
        let slice_ns = nice_slice(span / Activity::MAX_SLICES as i64 + 1);
        let count = usize::try_from(span / slice_ns + 1).unwrap_or(1);
        let mut slices = vec![Slice::default(); count];
        for (t, kind) in completions {
            let i = usize::try_from((t - start).max(0) / slice_ns).unwrap_or(0).min(count - 1);
            let slice = &mut slices[i];
            match kind {
                OpType::Ok => slice.ok += 1,
                OpType::Fail => slice.fail += 1,
                _ => slice.info += 1,
            }
        }
        Some(Activity { slice_ns, slices })
    }

    /// Completions per second in slice `i` (all outcomes).
    pub fn per_second(&self, slice: &Slice) -> f64 {
        slice.total() as f64 * 1e9 / self.slice_ns as f64
    }
}

/// The smallest of 1, 2 or 5 times a power of ten that is at least `ns`: slices a reader can add up.
fn nice_slice(ns: i64) -> i64 {
    let mut unit = 1i64;
    loop {
        for m in [1, 2, 5] {
            if unit.saturating_mul(m) >= ns {
                return unit.saturating_mul(m);
            }
        }
        unit = unit.saturating_mul(10);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_are_round_lengths() {
        assert_eq!(nice_slice(1), 1);
        assert_eq!(nice_slice(3), 5);
        assert_eq!(nice_slice(16_667), 20_000);
        assert_eq!(nice_slice(100_000_000), 100_000_000);
    }

    #[test]
    fn completions_fall_in_their_slices_by_outcome() {
        let text = r#"{"type":"invoke","process":0,"time":0,"value":[["append","x",1]]}
{"type":"ok","process":0,"time":10,"value":[["append","x",1]]}
{"type":"invoke","process":1,"time":20,"value":[["append","x",2]]}
{"type":"fail","process":1,"time":600,"value":[["append","x",2]]}"#;
        let history = histories::parse(text, histories::Format::JsonLines, "t.jsonl").unwrap();
        let activity = Activity::of(&history).unwrap();
        assert_eq!(activity.slice_ns, 20);
        assert_eq!(activity.slices[0], Slice { ok: 1, fail: 0, info: 0 });
        assert_eq!(activity.slices[30], Slice { ok: 0, fail: 1, info: 0 });
        assert_eq!(activity.slices.iter().map(Slice::total).sum::<u64>(), 2);
    }
}
