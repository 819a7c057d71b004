//! Histories of completions alone (Elle's own tests, its README, logs): a completion with no invoke is a
//! transaction whose invocation time is unknown. It keeps its process order, and gets no real-time
//! predecessors: nothing proves it was invoked after anything completed. The near misses give the same
//! transactions their invokes, and real time then decides.

use checker::{Options, Validity, check};
use histories::{Format, parse};

fn checked(text: &str, model: &str) -> checker::CheckResult {
    let history = parse(text, Format::Edn, "h.edn").expect("read leniently");
    check(&history, &Options::new(&[model.into()], &[]).unwrap()).unwrap()
}

/// T0 appends 1 to x; T1, completing after it, read x empty. Had T1 been invoked after T0 completed,
/// that would be a stale read (G-single-item-realtime); its invocation is unknown, so it is not.
#[test]
fn a_completion_with_no_invoke_gets_no_real_time_predecessor() {
    let text = "{:type :ok, :process 0, :value [[:append :x 1]]}\n{:type :ok, :process 1, :value [[:r :x []]]}";
    let result = checked(text, "strict-serializable");
    assert_eq!(result.valid, Validity::Valid, "{:?}", result.anomaly_types);
    assert_eq!(result.checked.missing_realtime.len(), 1);
}

#[test]
fn the_same_read_invoked_after_the_append_completed_is_a_stale_read() {
    let text = "{:type :ok, :process 0, :value [[:append :x 1]]}\n{:type :invoke, :process 1, :value [[:r :x nil]]}\n\
                {:type :ok, :process 1, :value [[:r :x []]]}";
    let result = checked(text, "strict-serializable");
    assert_eq!(result.valid, Validity::Invalid);
    assert_eq!(result.anomaly_types, vec!["G-single-item-realtime"]);
}

/// A completion with no invoke may still be a real-time predecessor: it completed where it stands.
#[test]
fn a_completion_with_no_invoke_precedes_what_was_invoked_after_it() {
    let text = "{:type :ok, :process 0, :value [[:append :x 1]]}\n{:type :invoke, :process 1, :value [[:r :x nil]]}\n\
                {:type :ok, :process 1, :value [[:r :x [1]]]}";
    let result = checked(text, "strict-serializable");
    assert_eq!(result.valid, Validity::Valid);
    assert_eq!(result.stats.edges.get("realtime"), Some(&1));
}

/// Several invokes in flight on one process whose completions look alike: each is taken as invoked at
/// the earliest, so the read whose invoke may have come first gets no real-time predecessor it may not
/// have had.
#[test]
fn look_alike_invokes_in_flight_lose_real_time_rather_than_invent_it() {
    let text = "{:type :invoke, :process 1, :value [[:r :x nil]]}\n{:type :ok, :process 0, :value [[:append :x 1]]}\n\
                {:type :invoke, :process 1, :value [[:r :x nil]]}\n{:type :ok, :process 1, :value [[:r :x [1]]]}\n\
                {:type :ok, :process 1, :value [[:r :x []]]}";
    let result = checked(text, "strict-serializable");
    assert_eq!(result.valid, Validity::Valid, "{:?}", result.anomaly_types);
    let missing: Vec<&str> = result.checked.missing_realtime.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(missing, vec!["completion-without-invoke", "invokes-in-flight"]);
}
