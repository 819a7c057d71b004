//! `timing::ContentionStream`, which a streamed run counts its contended pairs with, against
//! `timing::contention` on the whole history: generated histories (overlapping transactions, completions
//! recorded late, pending ones), untimed (the history's order stands in) and timed with ties (two
//! operations to a tick), fed an operation at a time, count the same transactions, aborts and pairs of
//! each kind; a history with a completion recorded alone (which `contention` takes to have begun at the
//! history's start) has no streamed count.

use checker::timing::{ContentionStream, contention};
use histories::History;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;

use super::config;
use super::generate::{Flavor, recipe};

/// `history` with each operation timed `position / per_tick` (so `per_tick` operations share a time).
fn timed(history: &History, per_tick: usize) -> History {
    let ops = history
        .ops()
        .iter()
        .enumerate()
        .map(|(position, op)| {
            let mut op = op.clone();
            op.set_time(Some((position / per_tick) as i64));
            op
        })
        .collect();
    History::from_ops(ops).expect("a timed history is one")
}

#[test]
fn contention_stream_counts_what_contention_counts() {
    let mut runner = TestRunner::new(config(1));
    let (mut pairs, mut compared, mut alone) = (0, 0, 0);
    for flavor in [Flavor::ListAppend, Flavor::RwRegister] {
        let strategy = recipe(flavor);
        for case in 0..300 {
            let generated = strategy.new_tree(&mut runner).expect("recipes never reject").current().simulate();
            let plain = generated.history();
            for history in [timed(&plain, 2), timed(&plain, 1), plain.clone()] {
                let whole = contention(&history);
                let mut stream = ContentionStream::default();
                for (position, op) in history.ops().iter().enumerate() {
                    stream.push(op, position);
                }
                let Some(streamed) = stream.contention() else {
                    assert!(!generated.uninvoked.is_empty(), "{flavor:?} case {case}\n{}", generated.shorthand());
                    alone += 1;
                    continue;
                };
                assert!(generated.uninvoked.is_empty(), "{flavor:?} case {case}\n{}", generated.shorthand());
                let counts = |c: &checker::timing::Contention| (c.txns, c.aborted, c.write_write, c.read_write);
                assert_eq!(counts(streamed), counts(&whole), "{flavor:?} case {case}\n{}", generated.shorthand());
                pairs += whole.write_write + whole.read_write;
                compared += 1;
            }
        }
    }
    assert!(
        pairs > 100 && compared > 300 && alone > 0,
        "{pairs} contended pairs in {compared} histories, {alone} with a completion alone: the test shows little"
    );
}
