//! The hold inside a scenario transaction: a sleep between its reads and its writes, so that
//! transactions overlap for as long as the hold lasts. Overlap is what makes write skew possible under
//! snapshot isolation and what a serializable system must resolve with aborts or waits. Each hold's
//! start and end are kept, so the run can tell whether holds really overlapped: the time during which
//! some transaction was holding, against the holds laid end to end, is the measure behind the
//! `fully-serialized` flag, and it does not depend on how long the work around the holds took. Nor on a
//! busy machine: a sleep there ends late, so the holds are measured as they happened, and the union is
//! compared with their actual lengths added up, which only holds one at a time match exactly (no two
//! overlap; see `checker::timing::MIN_DISJOINT_HOLDS`).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::Holds;

/// A hold, and when each one happened.
#[derive(Debug)]
pub(crate) struct Hold {
    hold: Duration,
    origin: Instant,
    spans: Mutex<Vec<(Duration, Duration)>>,
}

impl Hold {
    pub(crate) fn new(hold: Duration) -> Hold {
        Hold { hold, origin: Instant::now(), spans: Mutex::new(Vec::new()) }
    }

    /// Sleeps for the hold (if any), keeping when.
    pub(crate) fn hold(&self) {
        if self.hold.is_zero() {
            return;
        }
        let start = self.origin.elapsed();
        std::thread::sleep(self.hold);
        let end = self.origin.elapsed();
        self.spans.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push((start, end));
    }

    /// The hold, how many transactions held, and for how long some transaction was holding, if the
    /// workload holds at all.
    pub(crate) fn holds(&self) -> Option<Holds> {
        if self.hold.is_zero() {
            return None;
        }
        let mut spans = self.spans.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        let slept = spans.iter().map(|(start, end)| end.saturating_sub(*start)).sum();
        Some(Holds { hold: self.hold, count: spans.len() as u64, busy: union(&mut spans), slept })
    }

    pub(crate) fn millis(&self) -> f64 {
        self.hold.as_secs_f64() * 1000.0
    }
}

/// The total length of the union of the spans.
fn union(spans: &mut [(Duration, Duration)]) -> Duration {
    spans.sort_unstable();
    let mut total = Duration::ZERO;
    let mut current: Option<(Duration, Duration)> = None;
    for &(start, end) in spans.iter() {
        current = match current {
            Some((s, e)) if start <= e => Some((s, e.max(end))),
            Some((s, e)) => {
                total += e - s;
                Some((start, end))
            }
            None => Some((start, end)),
        };
    }
    total + current.map_or(Duration::ZERO, |(s, e)| e - s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn flagged(spans: &[(u64, u64)]) -> bool {
        let hold = Hold::new(ms(1));
        hold.spans.lock().unwrap().extend(spans.iter().map(|&(s, e)| (ms(s), ms(e))));
        checker::timing::fully_serialized(&hold.holds().unwrap().timing(2), "run", None).is_some()
    }

    #[test]
    fn holds_that_end_late_on_a_busy_machine_but_overlap_are_not_fully_serialized() {
        // Two clients' 1 ms holds that each took 5 ms (late wake-ups) and overlapped: together they span
        // more than two holds of 1 ms, but less than their lengths laid end to end.
        let overlapping: Vec<(u64, u64)> =
            (0..20).flat_map(|i| [(10 * i, 10 * i + 5), (10 * i + 1, 10 * i + 6)]).collect();
        assert!(!flagged(&overlapping));
        // On a very busy machine, most holds meet none: as long as one pair overlaps, they did not run one
        // at a time.
        let mut sparse: Vec<(u64, u64)> = (0..40).map(|i| (10 * i, 10 * i + 5)).collect();
        sparse.push((3, 7));
        assert!(!flagged(&sparse));
        // The same holds one at a time are.
        let one_at_a_time: Vec<(u64, u64)> = (0..40).map(|i| (5 * i, 5 * i + 5)).collect();
        assert!(flagged(&one_at_a_time));
        assert!(!flagged(&one_at_a_time[..4]), "too few holds to tell");
    }

    #[test]
    fn the_union_counts_overlapping_holds_once() {
        assert_eq!(union(&mut []), Duration::ZERO);
        assert_eq!(union(&mut [(ms(0), ms(10)), (ms(5), ms(12)), (ms(20), ms(30)), (ms(21), ms(22))]), ms(22));
        assert_eq!(union(&mut [(ms(10), ms(20)), (ms(0), ms(10))]), ms(20), "touching spans");
    }
}
