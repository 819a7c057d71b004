//! Deterministic interleavings of the classic anomalies, one statement at a time on two or three sessions.
//!
//! Each test states what PostgreSQL does for the same interleaving (read committed, repeatable read = our snapshot
//! isolation, serializable), after Hermitage's test scripts, and asserts the engine does the same; then that the
//! planted defect meant to break the case does break it. Where PostgreSQL makes a statement wait for another
//! transaction (a second writer of a row), the statement runs on its own thread (`support::blocks`), the test
//! checks that it is waiting for that transaction, and the script moves on, as Hermitage's "BLOCKS" steps do.

use crate::support::{
    blocks, committed, engine_with, int, is_deadlock, is_serialization_failure, is_write_conflict, k,
};
use engine::{Defect, Engine, EngineConfig, EngineTxnId, Error, Isolation, RowKey, RowPredicate, Value};

use Isolation::{ReadCommitted as RC, Serializable as SER, SnapshotIsolation as SI};

/// G1a/G1b, dirty read: T2 never sees T1's uncommitted write at any level (PostgreSQL: all levels read 10).
#[test]
fn dirty_read_is_prevented_at_every_level() {
    for level in Isolation::ALL {
        let engine = engine_with(None, &[(1, 10)]);
        let (mut t1, mut t2) = (engine.session(), engine.session());
        t1.begin(level).unwrap();
        t2.begin(level).unwrap();
        t1.write(1, 101).unwrap();
        assert_eq!(t2.read(&k(1)).unwrap(), int(10), "{level}: uncommitted write seen");
        t1.rollback().unwrap();
        assert_eq!(t2.read(&k(1)).unwrap(), int(10), "{level}: aborted write seen");
        t2.commit().unwrap();
    }
}

#[test]
fn dirty_read_defect_shows_uncommitted_and_aborted_writes() {
    for level in Isolation::ALL {
        let engine = engine_with(Some(Defect::DirtyRead), &[(1, 10)]);
        let (mut t1, mut t2) = (engine.session(), engine.session());
        t1.begin(level).unwrap();
        t2.begin(level).unwrap();
        t1.write(1, 101).unwrap();
        assert_eq!(t2.read(&k(1)).unwrap(), int(101), "{level}");
        t1.rollback().unwrap();
        assert_eq!(t2.read(&k(1)).unwrap(), int(10), "{level}: the aborted version is gone");
    }
}

/// G0, dirty write (Hermitage): T1 writes x = 11; T2's write of x = 12 blocks; T1 writes y = 21 and commits,
/// which unblocks T2; T2 writes y = 22 and commits. PostgreSQL read committed ends with T2's values on both keys, so
/// the writes never interleave into a cycle; repeatable read and serializable fail T2's blocked update with 40001
/// once T1 commits, leaving T1's values. (Before the engine waited, it aborted T2 at once at every level.)
#[test]
fn dirty_write_waits_for_the_first_writer() {
    for level in Isolation::ALL {
        let engine = engine_with(None, &[(1, 10), (2, 20)]);
        let (mut t1, mut t2) = (engine.session(), engine.session());
        t1.begin(level).unwrap();
        t2.begin(level).unwrap();
        t1.write(1, 11).unwrap();
        let second = blocks(t2, &t1, |t2| t2.write(1, 12));
        t1.write(2, 21).unwrap();
        assert!(second.is_waiting(), "{level}: T2 waits for T1's commit, not for its next statement");
        t1.commit().unwrap();
        let (mut t2, second) = second.finish();
        if level == RC {
            second.unwrap();
            t2.write(2, 22).unwrap();
            t2.commit().unwrap();
            assert_eq!(committed(&engine, &[1, 2]), vec![int(12), int(22)]);
        } else {
            assert!(is_write_conflict(&second), "{level}: {second:?}");
            assert_eq!(t2.write(2, 22), Err(Error::InFailedTransaction));
            t2.rollback().unwrap();
            assert_eq!(committed(&engine, &[1, 2]), vec![int(11), int(21)], "{level}");
        }
        assert_eq!(engine.stats().lock_waits, 1, "{level}");
    }
}

/// How the first writer ends in a [`blocked_lost_update`].
#[derive(Debug, Clone, Copy, PartialEq)]
enum End {
    Commit,
    Rollback,
}

/// Hermitage's P4 with the second write blocking: both read x = 10; T1 writes 11; T2's write of 12 blocks; T1 ends,
/// which unblocks T2; T2 commits if its write succeeded. Returns T2's write and commit results and the final x.
fn blocked_lost_update(engine: &Engine, level: Isolation, first: End) -> (Result<(), Error>, Option<Value>) {
    let (mut t1, mut t2) = (engine.session(), engine.session());
    t1.begin(level).unwrap();
    t2.begin(level).unwrap();
    assert_eq!(t1.read(&k(1)).unwrap(), int(10));
    assert_eq!(t2.read(&k(1)).unwrap(), int(10));
    t1.write(1, 11).unwrap();
    let second = blocks(t2, &t1, |t2| t2.write(1, 12));
    match first {
        End::Commit => t1.commit().unwrap(),
        End::Rollback => t1.rollback().unwrap(),
    }
    let (mut t2, second) = second.finish();
    let outcome = second.and_then(|()| t2.commit());
    (outcome, committed(engine, &[1]).remove(0))
}

/// P4, lost update, with the second write blocking. PostgreSQL read committed lets T2 proceed once T1 commits and
/// overwrite it: T1's update is lost (final 12). Repeatable read and serializable fail T2's update with 40001
/// ("could not serialize access due to concurrent update"); the engine's `WriteConflict`.
#[test]
fn blocked_lost_update_is_allowed_only_at_read_committed() {
    for level in Isolation::ALL {
        let engine = engine_with(None, &[(1, 10)]);
        let (t2, x) = blocked_lost_update(&engine, level, End::Commit);
        if level == RC {
            assert_eq!((t2, x), (Ok(()), int(12)), "T1's update is lost, as in PostgreSQL");
        } else {
            assert!(is_write_conflict(&t2), "{level}: {t2:?}");
            assert_eq!(x, int(11), "{level}");
        }
        let stats = engine.stats();
        assert_eq!((stats.lock_waits, stats.write_conflicts), (1, u64::from(level != RC)), "{level}");
    }
}

/// If the first writer rolls back instead, PostgreSQL lets the waiting update proceed at every level.
#[test]
fn a_waiting_write_proceeds_when_the_first_writer_rolls_back() {
    for level in Isolation::ALL {
        let engine = engine_with(None, &[(1, 10)]);
        assert_eq!(blocked_lost_update(&engine, level, End::Rollback), (Ok(()), int(12)), "{level}");
    }
}

/// With first-committer-wins planted off, snapshot isolation loses the update even after waiting: T2 wakes to T1's
/// commit and overwrites it. Serializable still refuses it at commit, through SSI's rw-cycle.
#[test]
fn no_first_committer_wins_defect_overwrites_after_waiting() {
    for level in [SI, SER] {
        let engine = engine_with(Some(Defect::NoFirstCommitterWins), &[(1, 10)]);
        let (t2, x) = blocked_lost_update(&engine, level, End::Commit);
        if level == SI {
            assert_eq!((t2, x), (Ok(()), int(12)), "T1's update is lost");
        } else {
            assert!(is_serialization_failure(&t2), "{t2:?}");
            assert_eq!(x, int(11));
        }
    }
}

/// P4, lost update with the first commit before the second write. PostgreSQL read committed lets T2 overwrite T1
/// (the update is lost); repeatable read and serializable fail T2's update with 40001.
#[test]
fn lost_update_is_allowed_only_at_read_committed() {
    for level in Isolation::ALL {
        let engine = engine_with(None, &[(1, 10)]);
        let (mut t1, mut t2) = (engine.session(), engine.session());
        t1.begin(level).unwrap();
        t2.begin(level).unwrap();
        assert_eq!(t1.read(&k(1)).unwrap(), int(10));
        assert_eq!(t2.read(&k(1)).unwrap(), int(10));
        t1.write(1, 11).unwrap();
        t1.commit().unwrap();
        let overwrite = t2.write(1, 11);
        if level == RC {
            overwrite.unwrap();
            t2.commit().unwrap();
        } else {
            assert!(is_write_conflict(&overwrite), "{level}: {overwrite:?}");
        }
        assert_eq!(committed(&engine, &[1]), vec![int(11)]);
        assert_eq!(engine.stats().write_conflicts, u64::from(level != RC), "{level}");
    }
}

/// With first-committer-wins planted off, snapshot isolation loses the update. Serializable still refuses it: the
/// two reads and writes form an rw-cycle, which SSI catches on its own; the defect shows at serializable through
/// blind appends instead (`concurrent_appends_never_lose_an_element_unless_planted`).
#[test]
fn no_first_committer_wins_defect_loses_updates_at_snapshot_isolation() {
    for level in [SI, SER] {
        let engine = engine_with(Some(Defect::NoFirstCommitterWins), &[(1, 10)]);
        let (mut t1, mut t2) = (engine.session(), engine.session());
        t1.begin(level).unwrap();
        t2.begin(level).unwrap();
        assert_eq!(t1.read(&k(1)).unwrap(), int(10));
        assert_eq!(t2.read(&k(1)).unwrap(), int(10));
        t1.write(1, 11).unwrap();
        t1.commit().unwrap();
        t2.write(1, 11).unwrap();
        let second = t2.commit();
        if level == SI {
            second.unwrap();
        } else {
            assert!(is_serialization_failure(&second), "{second:?}");
        }
        assert_eq!(committed(&engine, &[1]), vec![int(11)], "{level}");
    }
}

/// Concurrent in-engine appends (`v = v || x`). PostgreSQL makes the second append wait for the first and then, at
/// read committed, re-applies it to the new list (no append lost) or, above, fails it with 40001. The engine does
/// the same; with `no-first-committer-wins` the second append extends its snapshot's list above read committed, and
/// the first element is lost. (Before the engine waited, it aborted the second append at once at every level.)
#[test]
fn concurrent_appends_never_lose_an_element_unless_planted() {
    for defect in [None, Some(Defect::NoFirstCommitterWins)] {
        for level in Isolation::ALL {
            let engine = Engine::with_defect(defect);
            let (mut t1, mut t2) = (engine.session(), engine.session());
            t1.begin(level).unwrap();
            t2.begin(level).unwrap();
            t1.append(1, 1).unwrap();
            let second = blocks(t2, &t1, |t2| t2.append(1, 2));
            t1.commit().unwrap();
            let (mut t2, second) = second.finish();
            let expected = match (defect, level) {
                (None, SI | SER) => {
                    assert!(is_write_conflict(&second), "{level}: {second:?}");
                    vec![1]
                }
                (None, RC) | (Some(_), RC) => {
                    second.unwrap();
                    t2.commit().unwrap();
                    vec![1, 2]
                }
                (Some(_), SI | SER) => {
                    second.unwrap();
                    t2.commit().unwrap();
                    vec![2]
                }
            };
            assert_eq!(committed(&engine, &[1]), vec![Some(Value::List(expected))], "{level} {defect:?}");
        }
    }
}

/// After waiting, a read committed insert or delete checks the row as the first writer left it, like PostgreSQL's
/// unique check and EvalPlanQual recheck: an insert of a key the first writer inserted fails with a duplicate key
/// (23505 in PostgreSQL), one the first writer rolled back succeeds, and a delete of a row the first writer
/// deleted deletes nothing.
#[test]
fn read_committed_rechecks_the_row_after_waiting() {
    for first in [End::Commit, End::Rollback] {
        let engine = engine_with(None, &[(1, 10)]);
        let (mut t1, mut t2) = (engine.session(), engine.session());
        t1.begin(RC).unwrap();
        t2.begin(RC).unwrap();
        t1.insert(3, 30).unwrap();
        let second = blocks(t2, &t1, |t2| t2.insert(3, 31));
        match first {
            End::Commit => t1.commit().unwrap(),
            End::Rollback => t1.rollback().unwrap(),
        }
        let (mut t2, second) = second.finish();
        match first {
            End::Commit => assert_eq!(second, Err(Error::AlreadyExists { key: k(3) })),
            End::Rollback => {
                second.unwrap();
                t2.commit().unwrap();
            }
        }
        assert_eq!(committed(&engine, &[3]), vec![if first == End::Commit { int(30) } else { int(31) }]);
    }
    let engine = engine_with(None, &[(1, 10)]);
    let (mut t1, mut t2) = (engine.session(), engine.session());
    t1.begin(RC).unwrap();
    t2.begin(RC).unwrap();
    assert!(t1.delete(&k(1)).unwrap());
    let second = blocks(t2, &t1, |t2| t2.delete(&k(1)));
    t1.commit().unwrap();
    let (mut t2, second) = second.finish();
    assert_eq!(second, Ok(false), "the row was already gone");
    t2.commit().unwrap();
}

/// G-single, read skew: T1 reads x, T2 moves 2 from y to x... (Hermitage: x = 12, y = 18) and commits, T1 reads y.
/// PostgreSQL read committed shows T1 the new y (x + y = 28); repeatable read and serializable keep T1's snapshot.
#[test]
fn read_skew_appears_only_at_read_committed() {
    for level in Isolation::ALL {
        let engine = engine_with(None, &[(1, 10), (2, 20)]);
        let (mut t1, mut t2) = (engine.session(), engine.session());
        t1.begin(level).unwrap();
        t2.begin(level).unwrap();
        assert_eq!(t1.read(&k(1)).unwrap(), int(10));
        assert_eq!(t2.read(&k(1)).unwrap(), int(10));
        assert_eq!(t2.read(&k(2)).unwrap(), int(20));
        t2.write(1, 12).unwrap();
        t2.write(2, 18).unwrap();
        t2.commit().unwrap();
        let y = t1.read(&k(2)).unwrap();
        assert_eq!(y, if level == RC { int(18) } else { int(20) }, "{level}");
        t1.commit().unwrap();
    }
}

/// Runs Hermitage's G2-item (write skew) at `level`: returns whether T2's commit was refused.
fn write_skew(engine: &Engine, level: Isolation) -> Result<(), Error> {
    let (mut t1, mut t2) = (engine.session(), engine.session());
    t1.begin(level).unwrap();
    t2.begin(level).unwrap();
    for t in [&mut t1, &mut t2] {
        assert_eq!(t.read(&k(1)).unwrap(), int(10));
        assert_eq!(t.read(&k(2)).unwrap(), int(20));
    }
    t1.write(1, 11).unwrap();
    t2.write(2, 21).unwrap();
    t1.commit().unwrap();
    t2.commit()
}

/// G2-item, write skew: PostgreSQL commits both at read committed and repeatable read; serializable fails T2's
/// commit with 40001.
#[test]
fn write_skew_is_aborted_only_at_serializable() {
    for level in Isolation::ALL {
        let engine = engine_with(None, &[(1, 10), (2, 20)]);
        let second = write_skew(&engine, level);
        if level == SER {
            assert!(is_serialization_failure(&second), "{second:?}");
            assert_eq!(committed(&engine, &[1, 2]), vec![int(11), int(20)]);
            assert_eq!(engine.stats().serialization_failures, 1);
        } else {
            second.unwrap();
            assert_eq!(committed(&engine, &[1, 2]), vec![int(11), int(21)], "{level}");
        }
        assert_eq!(engine.stats().lock_waits, 0, "{level}: writes of different keys never wait");
    }
}

#[test]
fn write_skew_failure_names_the_dangerous_structure() {
    let engine = engine_with(None, &[(1, 10), (2, 20)]);
    let Err(Error::SerializationFailure { conflict }) = write_skew(&engine, SER) else { panic!("no failure") };
    // T1 (the first committer) read y, which T2 wrote; T2 read x, which T1 wrote: T2 -rw-> T1 -rw-> T2, the
    // structure whose T3 = T1 committed first, and T2 is the victim.
    assert_eq!(conflict.t1, conflict.t3);
    assert_eq!(conflict.victim, conflict.t2);
    let text = conflict.to_string();
    assert!(text.contains("key 1") && text.contains("key 2"), "{text}");
}

#[test]
fn ssi_off_defect_lets_write_skew_commit_at_serializable() {
    let engine = engine_with(Some(Defect::SsiOff), &[(1, 10), (2, 20)]);
    write_skew(&engine, SER).unwrap();
    assert_eq!(committed(&engine, &[1, 2]), vec![int(11), int(21)]);
}

/// The read-only anomaly (Fekete, O'Neil & O'Neil 2004): checking x and savings y start at 0. T2 (withdraw 10 from
/// x, with a fee of 1 if x + y would go negative) reads both; T1 deposits 20 into y and commits; T3, read-only,
/// reports x = 0, y = 20 and commits; then T2 withdraws with the fee it computed from 0 + 0. Under snapshot
/// isolation all three commit, and T3's report fits no serial order. PostgreSQL serializable fails T2 with 40001
/// at its update; the engine checks at commit, so T2 fails there. Returns T2's outcome.
fn read_only_anomaly(engine: &Engine, level: Isolation, with_report: bool) -> Result<(), Error> {
    let (mut t1, mut t2, mut t3) = (engine.session(), engine.session(), engine.session());
    t2.begin(level).unwrap();
    assert_eq!(t2.read(&k(1)).unwrap(), int(0));
    assert_eq!(t2.read(&k(2)).unwrap(), int(0));
    t1.begin(level).unwrap();
    assert_eq!(t1.read(&k(2)).unwrap(), int(0));
    t1.write(2, 20).unwrap();
    t1.commit().unwrap();
    if with_report {
        t3.begin(level).unwrap();
        assert_eq!(t3.read(&k(1)).unwrap(), int(0));
        assert_eq!(t3.read(&k(2)).unwrap(), int(20));
        t3.commit().unwrap();
    }
    t2.write(1, -11).unwrap();
    t2.commit()
}

#[test]
fn read_only_anomaly_is_aborted_only_at_serializable() {
    for level in [SI, SER] {
        let engine = engine_with(None, &[(1, 0), (2, 0)]);
        let t2 = read_only_anomaly(&engine, level, true);
        assert_eq!(is_serialization_failure(&t2), level == SER, "{level}: {t2:?}");
    }
    // Without the read-only report there is no cycle (T2 -rw-> T1 alone serializes as T2, T1), and SSI, with its
    // commit-ordering refinement, commits T2.
    let engine = engine_with(None, &[(1, 0), (2, 0)]);
    read_only_anomaly(&engine, SER, false).unwrap();
}

#[test]
fn ssi_off_defect_lets_the_read_only_anomaly_commit() {
    let engine = engine_with(Some(Defect::SsiOff), &[(1, 0), (2, 0)]);
    read_only_anomaly(&engine, SER, true).unwrap();
}

const MOD3: RowPredicate = RowPredicate::Mod { modulus: 3, remainder: 0 };

/// PMP, a predicate read phantom: T1 scans `value = 30` (nothing), T2 inserts a row with 30 and commits, T1 scans
/// `value % 3 = 0`. PostgreSQL read committed sees the new row; repeatable read and serializable do not.
#[test]
fn scan_phantom_appears_only_at_read_committed() {
    for level in Isolation::ALL {
        let engine = engine_with(None, &[(1, 10), (2, 20)]);
        let (mut t1, mut t2) = (engine.session(), engine.session());
        t1.begin(level).unwrap();
        t2.begin(level).unwrap();
        assert_eq!(t1.scan(.., RowPredicate::Eq(30)).unwrap(), vec![]);
        t2.insert(3, 30).unwrap();
        t2.commit().unwrap();
        let rows = t1.scan(.., MOD3).unwrap();
        let expected = if level == RC { vec![(k(3), Value::Int(30))] } else { vec![] };
        assert_eq!(rows, expected, "{level}");
        t1.commit().unwrap();
    }
}

/// G2 with predicates: both scan `value % 3 = 0`, then each inserts a row the other's scan would have returned.
/// PostgreSQL repeatable read commits both; serializable fails T2's commit. Returns T2's outcome.
fn predicate_write_skew(engine: &Engine, level: Isolation) -> Result<(), Error> {
    let (mut t1, mut t2) = (engine.session(), engine.session());
    t1.begin(level).unwrap();
    t2.begin(level).unwrap();
    let range = RowKey::Int(0)..RowKey::Int(100);
    assert_eq!(t1.scan(range.clone(), MOD3).unwrap(), vec![]);
    assert_eq!(t2.scan(range, MOD3).unwrap(), vec![]);
    t1.insert(3, 30).unwrap();
    t2.insert(4, 42).unwrap();
    t1.commit().unwrap();
    t2.commit()
}

#[test]
fn predicate_write_skew_is_aborted_only_at_serializable() {
    for level in Isolation::ALL {
        let engine = engine_with(None, &[(1, 10), (2, 20)]);
        let t2 = predicate_write_skew(&engine, level);
        assert_eq!(is_serialization_failure(&t2), level == SER, "{level}: {t2:?}");
    }
    let engine = engine_with(Some(Defect::SsiOff), &[(1, 10), (2, 20)]);
    predicate_write_skew(&engine, SER).unwrap();
}

/// A predicate delete write skew: the invariant is "some row has `value % 3 = 0`". Both see rows 3 and 6; T1
/// deletes `value = 3`, T2 deletes `value = 6`. Snapshot isolation commits both and leaves no such row;
/// serializable (and PostgreSQL's, as for G2) fails T2.
#[test]
fn predicate_delete_write_skew_is_aborted_only_at_serializable() {
    for (level, defect) in [(SI, None), (SER, None), (SER, Some(Defect::SsiOff))] {
        let engine = engine_with(defect, &[(1, 3), (2, 6)]);
        let (mut t1, mut t2) = (engine.session(), engine.session());
        t1.begin(level).unwrap();
        t2.begin(level).unwrap();
        assert_eq!(t1.scan(.., MOD3).unwrap().len(), 2);
        assert_eq!(t2.scan(.., MOD3).unwrap().len(), 2);
        assert_eq!(t1.delete_where(.., RowPredicate::Eq(3)).unwrap(), vec![k(1)]);
        assert_eq!(t2.delete_where(.., RowPredicate::Eq(6)).unwrap(), vec![k(2)]);
        t1.commit().unwrap();
        let t2_commit = t2.commit();
        let aborted = level == SER && defect.is_none();
        assert_eq!(is_serialization_failure(&t2_commit), aborted, "{level} {defect:?}: {t2_commit:?}");
        let remaining = if aborted { vec![None, int(6)] } else { vec![None, None] };
        assert_eq!(committed(&engine, &[1, 2]), remaining);
    }
}

/// A predicate delete sees what its level's snapshot shows: after T2 inserts and commits 60, T1's `DELETE WHERE
/// value % 3 = 0` removes it too at read committed, and only the row it can see otherwise (as in PostgreSQL).
#[test]
fn predicate_delete_sees_its_statement_snapshot() {
    for level in Isolation::ALL {
        let engine = engine_with(None, &[(1, 30)]);
        let (mut t1, mut t2) = (engine.session(), engine.session());
        t1.begin(level).unwrap();
        t2.begin(level).unwrap();
        assert_eq!(t1.scan(.., MOD3).unwrap().len(), 1);
        t2.insert(2, 60).unwrap();
        t2.commit().unwrap();
        let deleted = t1.delete_where(.., MOD3).unwrap();
        let expected = if level == RC { vec![k(1), k(2)] } else { vec![k(1)] };
        assert_eq!(deleted, expected, "{level}");
        t1.commit().unwrap();
    }
}

/// PMP-write (Hermitage): T1 runs `UPDATE test SET value = value + 10` (rows 1 = 10, 2 = 20 become 20 and 30);
/// T2's `DELETE FROM test WHERE value = 20` blocks on row 2, the one its snapshot shows with 20; T1 commits. At read
/// committed PostgreSQL re-checks row 2 (now 30), deletes nothing, and T2 then sees row 1 = 20, a row its delete
/// "missed"; repeatable read and serializable fail T2's delete with 40001.
#[test]
fn predicate_write_waits_and_rechecks_only_at_read_committed() {
    for level in Isolation::ALL {
        let engine = engine_with(None, &[(1, 10), (2, 20)]);
        let (mut t1, mut t2) = (engine.session(), engine.session());
        t1.begin(level).unwrap();
        t2.begin(level).unwrap();
        assert_eq!(t1.update_where(.., RowPredicate::All, 10).unwrap(), vec![(k(1), 10, 20), (k(2), 20, 30)]);
        let delete = blocks(t2, &t1, |t2| t2.delete_where(.., RowPredicate::Eq(20)));
        t1.commit().unwrap();
        let (mut t2, deleted) = delete.finish();
        if level == RC {
            assert_eq!(deleted, Ok(vec![]), "row 2 no longer matches");
            assert_eq!(t2.scan(.., RowPredicate::Eq(20)).unwrap(), vec![(k(1), Value::Int(20))]);
            t2.commit().unwrap();
        } else {
            assert!(is_write_conflict(&deleted), "{level}: {deleted:?}");
        }
        assert_eq!(committed(&engine, &[1, 2]), vec![int(20), int(30)], "{level}");
    }
}

/// A predicate update at read committed adds to the value the first writer committed, so no increment is lost;
/// above read committed the second fails, as PostgreSQL's `UPDATE SET value = value + 1` does.
#[test]
fn concurrent_increments_are_never_lost() {
    for level in Isolation::ALL {
        let engine = engine_with(None, &[(1, 10)]);
        let (mut t1, mut t2) = (engine.session(), engine.session());
        t1.begin(level).unwrap();
        t2.begin(level).unwrap();
        assert_eq!(t1.update_where(.., RowPredicate::All, 1).unwrap(), vec![(k(1), 10, 11)]);
        let second = blocks(t2, &t1, |t2| t2.update_where(.., RowPredicate::All, 1));
        t1.commit().unwrap();
        let (mut t2, second) = second.finish();
        if level == RC {
            assert_eq!(second, Ok(vec![(k(1), 11, 12)]), "T2 added to T1's committed value");
            t2.commit().unwrap();
            assert_eq!(committed(&engine, &[1]), vec![int(12)]);
        } else {
            assert!(is_write_conflict(&second), "{level}: {second:?}");
            assert_eq!(committed(&engine, &[1]), vec![int(11)]);
        }
    }
}

/// A two-transaction deadlock: T1 writes x, T2 writes y, T1's write of y blocks on T2, and T2's write of x would
/// block on T1. PostgreSQL detects the cycle (after `deadlock_timeout`) and fails one transaction with 40P01; the
/// other proceeds. The engine checks before blocking, so T2, whose wait would close the cycle, fails at once, and
/// its rollback lets T1 proceed at every level.
#[test]
fn a_deadlock_fails_one_transaction_and_the_other_proceeds() {
    for level in Isolation::ALL {
        let engine = engine_with(None, &[(1, 10), (2, 20)]);
        let (mut t1, mut t2) = (engine.session(), engine.session());
        t1.begin(level).unwrap();
        t2.begin(level).unwrap();
        t1.write(1, 11).unwrap();
        t2.write(2, 22).unwrap();
        let (id1, id2): (EngineTxnId, EngineTxnId) = (t1.txn_id().unwrap(), t2.txn_id().unwrap());
        let first = blocks(t1, &t2, |t1| t1.write(2, 21));
        let second = t2.write(1, 12);
        assert_eq!(second, Err(Error::Deadlock { key: k(1), cycle: vec![id2, id1] }), "{level}");
        assert!(is_deadlock(&second) && second.as_ref().unwrap_err().is_retryable());
        assert_eq!(t2.commit(), Err(Error::InFailedTransaction));
        let (mut t1, first) = first.finish();
        first.unwrap();
        t1.commit().unwrap();
        assert_eq!(committed(&engine, &[1, 2]), vec![int(11), int(21)], "{level}");
        assert_eq!(engine.stats().deadlocks, 1);
    }
}

/// Killing a session whose statement waits wakes it: the statement fails with `Killed` and the session is gone,
/// while the transaction it waited for is untouched. Killing the first writer instead rolls it back, which lets the
/// waiter proceed.
#[test]
fn a_killed_waiter_wakes_and_fails_with_killed() {
    let engine = engine_with(None, &[(1, 10)]);
    let (mut t1, mut t2) = (engine.session(), engine.session());
    t1.begin(RC).unwrap();
    t2.begin(RC).unwrap();
    t1.write(1, 11).unwrap();
    let second = blocks(t2, &t1, |t2| t2.write(1, 12));
    second.handle().kill();
    let (mut t2, second) = second.finish();
    assert_eq!(second, Err(Error::Killed));
    assert_eq!(t2.rollback(), Err(Error::Killed));
    t1.commit().unwrap();
    assert_eq!(committed(&engine, &[1]), vec![int(11)]);
    assert_eq!(engine.stats().killed, 1);

    let (mut t1, mut t3) = (engine.session(), engine.session());
    t1.begin(SI).unwrap();
    t3.begin(SI).unwrap();
    t1.write(1, 13).unwrap();
    let third = blocks(t3, &t1, |t3| t3.write(1, 14));
    t1.handle().kill();
    let (mut t3, third) = third.finish();
    third.unwrap();
    t3.commit().unwrap();
    assert_eq!(committed(&engine, &[1]), vec![int(14)]);
}

#[test]
fn insert_of_a_present_key_fails_and_aborts() {
    let engine = engine_with(None, &[(1, 10)]);
    let mut t = engine.session();
    t.begin(SI).unwrap();
    assert_eq!(t.insert(1, 11), Err(Error::AlreadyExists { key: k(1) }));
    assert_eq!(t.read(&k(1)), Err(Error::InFailedTransaction));
    assert_eq!(t.commit(), Err(Error::InFailedTransaction));
    t.begin(SI).unwrap();
    assert!(t.delete(&k(1)).unwrap());
    t.insert(1, 12).unwrap();
    t.commit().unwrap();
    assert_eq!(committed(&engine, &[1]), vec![int(12)]);
}

#[test]
fn global_lock_defect_makes_a_second_begin_wait_and_time_out() {
    let config =
        EngineConfig::new().defect(Some(Defect::GlobalLock)).lock_timeout(std::time::Duration::from_millis(50));
    let engine = Engine::new(config);
    let (mut t1, mut t2) = (engine.session(), engine.session());
    t1.begin(SER).unwrap();
    assert!(matches!(t2.begin(SER), Err(Error::LockTimeout { .. })));
    t1.commit().unwrap();
    t2.begin(SER).unwrap();
    t2.commit().unwrap();
    // The correct engine lets both run at once.
    let engine = Engine::default();
    let (mut t1, mut t2) = (engine.session(), engine.session());
    t1.begin(SER).unwrap();
    t2.begin(SER).unwrap();
}

#[test]
fn killed_session_is_rolled_back_and_reports_connection_lost() {
    let engine = engine_with(None, &[(1, 10)]);
    let mut victim = engine.session();
    victim.begin(SI).unwrap();
    victim.write(1, 11).unwrap();
    victim.handle().kill();
    assert_eq!(victim.read(&k(1)), Err(Error::Killed));
    assert_eq!(victim.rollback(), Err(Error::Killed));
    assert_eq!(victim.begin(SI), Err(Error::Killed));
    // Its uncommitted write is gone, so another session can write the key at once.
    let mut replacement = engine.session();
    replacement.begin(SI).unwrap();
    assert_eq!(replacement.read(&k(1)).unwrap(), int(10));
    replacement.write(1, 12).unwrap();
    replacement.commit().unwrap();
    assert_eq!(engine.stats().killed, 1);
}

#[test]
fn dropping_a_session_rolls_back() {
    let engine = engine_with(None, &[(1, 10)]);
    {
        let mut t = engine.session();
        t.begin(SER).unwrap();
        t.write(1, 11).unwrap();
    }
    assert_eq!(committed(&engine, &[1]), vec![int(10)]);
    assert_eq!(engine.stats().rollbacks, 1);
    assert_eq!(engine.storage_stats().tracked_transactions, 0);
}

#[test]
fn statements_outside_a_transaction_are_refused() {
    let engine = Engine::default();
    let mut s = engine.session();
    assert_eq!(s.read(&k(1)), Err(Error::NoTransaction));
    assert_eq!(s.commit(), Err(Error::NoTransaction));
    s.rollback().unwrap();
    s.begin(RC).unwrap();
    assert_eq!(s.begin(RC), Err(Error::TransactionInProgress));
    s.append(1, 5).unwrap();
    assert_eq!(s.read(&k(1)).unwrap(), Some(Value::List(vec![5])));
    s.write(2, 1).unwrap();
    assert_eq!(s.append(2, 5), Err(Error::TypeMismatch { key: k(2), found: "int" }));
}

/// A commit of x = 1 and y = 1 (over x = y = 0) is paused between installing x and installing y, by the install
/// hook; readers at every level then read both. The correct engine has not published the commit yet, so every
/// reader sees x = 0, y = 0; with `non-atomic-commit` the commit's timestamp is already published and every reader
/// sees x = 1, y = 0, half a transaction.
#[test]
fn readers_never_see_half_a_commit_unless_non_atomic_commit_is_planted() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex, mpsc};

    for defect in [None, Some(Defect::NonAtomicCommit)] {
        let armed = Arc::new(AtomicBool::new(false));
        let (paused_tx, paused_rx) = mpsc::channel::<()>();
        let (resume_tx, resume_rx) = mpsc::channel::<()>();
        let channels = Mutex::new((paused_tx, resume_rx));
        let hook_armed = Arc::clone(&armed);
        let config = EngineConfig::new().defect(defect).install_hook(move |_key| {
            if hook_armed.swap(false, Ordering::SeqCst) {
                let channels = channels.lock().unwrap();
                channels.0.send(()).unwrap();
                channels.1.recv().unwrap();
            }
        });
        let engine = Engine::new(config);
        crate::support::load(&engine, &[(1, 0), (2, 0)]);
        armed.store(true, Ordering::SeqCst);
        let writer = std::thread::spawn({
            let engine = engine.clone();
            move || {
                let mut t = engine.session();
                t.begin(SI)?;
                t.write(1, 1)?;
                t.write(2, 1)?;
                t.commit()
            }
        });
        paused_rx.recv().unwrap();
        let mut seen = Vec::new();
        for level in Isolation::ALL {
            let mut reader = engine.session();
            reader.begin(level).unwrap();
            seen.push((level, reader.read(&k(1)).unwrap(), reader.read(&k(2)).unwrap()));
            // Not commit: a serializable commit would wait for the commit lock the paused writer holds.
            reader.rollback().unwrap();
        }
        resume_tx.send(()).unwrap();
        writer.join().unwrap().unwrap();
        let x = if defect.is_some() { int(1) } else { int(0) };
        let expected: Vec<_> = Isolation::ALL.iter().map(|l| (*l, x.clone(), int(0))).collect();
        assert_eq!(seen, expected, "{defect:?}");
        assert_eq!(committed(&engine, &[1, 2]), vec![int(1), int(1)]);
    }
}
