//! Named shapes of a cycle: patterns the literature has a name for, recognised on a cycle already found
//! and explained, so a report can say which one it is. One shape so far: the read-only anomaly of
//! Fekete, O'Neil and O'Neil ("A Read-Only Transaction Anomaly Under Snapshot Isolation", SIGMOD Record
//! 2004), in the roles Cahill et al. (2008) name: a transaction `T_in` that wrote nothing has an
//! anti-dependency on a pivot, the pivot one on `T_out`, and `T_out` precedes `T_in` by dependencies
//! that are not anti-dependencies (`T_in` saw `T_out`'s effects, the pivot missed them, and `T_in`
//! missed the pivot's). This module owns the recognition, from the cycle's steps and its transactions
//! as recorded; the [`Shape`] type is the result's (`result.rs`); the cycle's class is `cycle_class`'s, and the sentence a person reads is the `findings`
//! crate's.

use histories::{Mop, OpType};

use crate::result::{Shape, Step, TxnView};

/// The named shape of a cycle, if it has one. `steps[i]` goes from `steps[i].from` to `steps[i].to`,
/// and the last step returns to the first transaction; `ops` are the cycle's transactions as recorded.
pub fn shape_of(steps: &[Step], ops: &[TxnView]) -> Option<Shape> {
    read_only_anomaly(steps, ops)
}

/// Exactly two anti-dependencies, one right after the other (`T_in -rw-> pivot -rw-> T_out`), three
/// distinct transactions in those roles, each visited once, and `T_in` committed with no write.
fn read_only_anomaly(steps: &[Step], ops: &[TxnView]) -> Option<Shape> {
    let n = steps.len();
    let anti: Vec<usize> = (0..n).filter(|&i| steps[i].kind.is_anti()).collect();
    let [a, b] = anti[..] else { return None };
    let first = if (a + 1) % n == b {
        a
    } else if (b + 1) % n == a {
        b
    } else {
        return None;
    };
    let into_pivot = &steps[first];
    let out_of_pivot = &steps[(first + 1) % n];
    let (read_only, pivot, t_out) = (into_pivot.from, into_pivot.to, out_of_pivot.to);
    if read_only == pivot || pivot == t_out || t_out == read_only {
        return None;
    }
    let mut visited: Vec<u64> = steps.iter().map(|s| s.from).collect();
    visited.sort_unstable();
    if visited.windows(2).any(|w| w[0] == w[1]) {
        return None;
    }
    let view = ops.iter().find(|v| v.index == read_only)?;
    (view.outcome == OpType::Ok && only_reads(&view.value)).then_some(Shape::ReadOnlyAnomaly {
        read_only,
        pivot,
        t_out,
    })
}

/// Whether these micro-ops read and never write.
fn only_reads(mops: &[Mop]) -> bool {
    !mops.is_empty() && mops.iter().all(|m| matches!(m, Mop::Read { .. } | Mop::PredicateRead { .. }))
}

#[cfg(test)]
mod tests {
    use histories::{Key, Observed};

    use super::*;
    use crate::kind::Kind;

    fn step(from: u64, kind: Kind, to: u64) -> Step {
        Step { kind, key: None, from, to, explanation: String::new() }
    }

    fn view(index: u64, outcome: OpType, value: Vec<Mop>) -> TxnView {
        TxnView {
            index,
            invoke_index: index,
            process: "0".into(),
            outcome,
            value,
            init_rows: None,
            invoke_time: None,
            complete_time: None,
            error: None,
        }
    }

    fn read() -> Mop {
        Mop::Read { key: Key::Int(1), value: Observed::List(vec![1].into()) }
    }

    fn append() -> Mop {
        Mop::Append { key: Key::Int(2), value: 3 }
    }

    /// E-s3103's cycle: T3606 -wr-> T3620 -rw-> T3604 -rw-> T3606.
    fn fekete_steps() -> Vec<Step> {
        vec![step(3606, Kind::Wr, 3620), step(3620, Kind::Rw, 3604), step(3604, Kind::Rw, 3606)]
    }

    fn writers_and(read_only: Vec<Mop>, outcome: OpType) -> Vec<TxnView> {
        vec![
            view(3606, OpType::Ok, vec![append(), read()]),
            view(3620, outcome, read_only),
            view(3604, OpType::Ok, vec![read(), append()]),
        ]
    }

    #[test]
    fn the_three_transaction_shape_is_the_read_only_anomaly() {
        let shape = shape_of(&fekete_steps(), &writers_and(vec![read(), read()], OpType::Ok));
        assert_eq!(shape, Some(Shape::ReadOnlyAnomaly { read_only: 3620, pivot: 3604, t_out: 3606 }));
        let json = serde_json::to_value(shape).unwrap_or_default();
        assert_eq!(
            json,
            serde_json::json!({"name": "read-only-anomaly", "read_only": 3620, "pivot": 3604, "t_out": 3606})
        );
    }

    #[test]
    fn a_longer_path_from_t_out_to_the_reader_keeps_the_shape() {
        // B-s1059's steps, had T778 only read: T772 -ww-> T774 -wr-> T778 -rw-> T800 -rw-> T772.
        let steps = vec![
            step(772, Kind::Ww, 774),
            step(774, Kind::Wr, 778),
            step(778, Kind::Rw, 800),
            step(800, Kind::Rw, 772),
        ];
        let ops = vec![
            view(772, OpType::Ok, vec![append()]),
            view(774, OpType::Ok, vec![append()]),
            view(778, OpType::Ok, vec![read()]),
            view(800, OpType::Ok, vec![read(), append()]),
        ];
        assert_eq!(shape_of(&steps, &ops), Some(Shape::ReadOnlyAnomaly { read_only: 778, pivot: 800, t_out: 772 }));
    }

    #[test]
    fn near_miss_the_reader_also_wrote() {
        assert_eq!(shape_of(&fekete_steps(), &writers_and(vec![read(), append()], OpType::Ok)), None);
    }

    #[test]
    fn near_miss_the_reader_did_not_commit() {
        assert_eq!(shape_of(&fekete_steps(), &writers_and(vec![read()], OpType::Info)), None);
    }

    #[test]
    fn near_miss_write_skew_has_two_anti_dependencies_but_no_third_transaction() {
        let steps = vec![step(1, Kind::Rw, 2), step(2, Kind::Rw, 1)];
        let ops = vec![view(1, OpType::Ok, vec![read()]), view(2, OpType::Ok, vec![read(), append()])];
        assert_eq!(shape_of(&steps, &ops), None);
    }

    #[test]
    fn near_miss_anti_dependencies_apart_have_no_pivot() {
        // T1 -rw-> T2 -wr-> T3 -rw-> T4 -wr-> T1, T1 read-only: two anti-dependencies, not adjacent.
        let steps = vec![step(1, Kind::Rw, 2), step(2, Kind::Wr, 3), step(3, Kind::Rw, 4), step(4, Kind::Wr, 1)];
        let ops = vec![
            view(1, OpType::Ok, vec![read()]),
            view(2, OpType::Ok, vec![append()]),
            view(3, OpType::Ok, vec![read(), append()]),
            view(4, OpType::Ok, vec![append()]),
        ];
        assert_eq!(shape_of(&steps, &ops), None);
    }

    #[test]
    fn near_miss_three_anti_dependencies() {
        let mut steps = fekete_steps();
        steps[0].kind = Kind::Rw;
        assert_eq!(shape_of(&steps, &writers_and(vec![read()], OpType::Ok)), None);
    }
}
