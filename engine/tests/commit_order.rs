//! The commit timestamps a session reports (`EngineSession::last_commit_timestamp`) are the engine's commit order
//! and the order each key's versions were installed in, which is what lets a history record them as the
//! database's own commit order: a second writer that waited for the first commits after it and its value is
//! the key's latest, with or without first-committer-wins; a commit that took no timestamp, or failed,
//! reports none.

use crate::support::{blocks, committed, engine_with, int, is_write_conflict};
use engine::{Defect, Isolation};

use Isolation::{ReadCommitted as RC, Serializable as SER, SnapshotIsolation as SI};

#[test]
fn a_writer_that_waited_commits_later_and_installs_the_later_version() {
    for (level, defect) in
        [(RC, None), (SI, Some(Defect::NoFirstCommitterWins)), (SER, Some(Defect::NoFirstCommitterWins))]
    {
        let engine = engine_with(defect, &[(1, 10)]);
        let (mut t1, mut t2) = (engine.session(), engine.session());
        t1.begin(level).unwrap();
        t2.begin(level).unwrap();
        t1.write(1, 11).unwrap();
        let second = blocks(t2, &t1, |t2| t2.write(1, 12));
        t1.commit().unwrap();
        let first = t1.last_commit_timestamp().expect("a writer's commit takes a timestamp");
        let (mut t2, written) = second.finish();
        written.unwrap();
        t2.commit().unwrap();
        let then = t2.last_commit_timestamp().expect("a writer's commit takes a timestamp");
        assert!(first < then, "{level}: {first} then {then}");
        assert_eq!(committed(&engine, &[1]), vec![int(12)], "{level}: the later commit's version is the latest");
    }
}

#[test]
fn a_commit_that_takes_no_timestamp_or_fails_reports_none() {
    let engine = engine_with(None, &[(1, 10)]);
    let (mut t1, mut t2) = (engine.session(), engine.session());
    t1.begin(SI).unwrap();
    t1.write(1, 11).unwrap();
    t1.commit().unwrap();
    assert!(t1.last_commit_timestamp().is_some());
    t1.begin(RC).unwrap();
    assert_eq!(t1.read(&crate::support::k(1)).unwrap(), int(11));
    t1.commit().unwrap();
    assert_eq!(t1.last_commit_timestamp(), None, "a read-only read-committed commit takes no timestamp");
    t1.begin(SER).unwrap();
    assert_eq!(t1.read(&crate::support::k(1)).unwrap(), int(11));
    t1.commit().unwrap();
    assert!(t1.last_commit_timestamp().is_some(), "a serializable commit takes one, read-only or not");

    t1.begin(SI).unwrap();
    t2.begin(SI).unwrap();
    t1.write(1, 12).unwrap();
    let second = blocks(t2, &t1, |t2| t2.write(1, 13));
    t1.commit().unwrap();
    let (mut t2, written) = second.finish();
    assert!(is_write_conflict(&written), "{written:?}");
    t2.rollback().unwrap();
    assert!(t2.commit().is_err(), "nothing to commit");
    assert_eq!(t2.last_commit_timestamp(), None);
}
