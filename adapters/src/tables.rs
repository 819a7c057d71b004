//! The tables a SQL adapter (PostgreSQL, MariaDB) creates for a run, under names no other run uses, and
//! the bookkeeping of the ones it created and has not dropped yet. This module owns the names, the
//! bookkeeping and the statement that drops a run's tables; creating them, in each system's SQL, and
//! running the statements is each adapter's.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

/// The tables a system created and has not dropped yet.
#[derive(Debug, Default)]
pub(crate) struct Created {
    /// The current run's.
    pub current: Option<Tables>,
    /// Earlier runs' that could not be dropped yet (a session still held them).
    pub stale: Vec<Tables>,
}

impl Created {
    /// Every run's tables, the current one's last, for dropping; none is current any more. What could
    /// not be dropped goes back into [`Created::stale`].
    pub fn take_all(&mut self) -> Vec<Tables> {
        let mut all = std::mem::take(&mut self.stale);
        all.extend(self.current.take());
        all
    }
}

/// Drops each run's `tables` with `run`, which runs one statement and says whether it succeeded (both
/// systems drop several tables in one `DROP TABLE IF EXISTS`); the tables it could not drop, a session
/// still holding them, to try again later.
pub(crate) fn drop_each(tables: Vec<Tables>, mut run: impl FnMut(String) -> bool) -> Vec<Tables> {
    tables
        .into_iter()
        .filter(|t| !run(format!("DROP TABLE IF EXISTS {}, {}, {}", t.lists, t.registers, t.records)))
        .collect()
}

/// One run's tables (the records table exists only once `prepare_records` made it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tables {
    pub lists: String,
    pub registers: String,
    pub records: String,
}

impl Tables {
    /// Names no run of any process has used: the process id, the time, and a count of this process's
    /// runs. The longest is 56 characters, under PostgreSQL's 63 and MariaDB's 64.
    pub fn fresh() -> Tables {
        static RUNS: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default().as_nanos();
        let run = RUNS.fetch_add(1, Ordering::Relaxed);
        let suffix = format!("{}_{nanos}_{run}", std::process::id());
        Tables {
            lists: format!("isocheck_lists_{suffix}"),
            registers: format!("isocheck_registers_{suffix}"),
            records: format!("isocheck_records_{suffix}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_tables_never_share_a_name_and_fit_postgresql_and_mariadb_identifiers() {
        let (a, b) = (Tables::fresh(), Tables::fresh());
        assert_ne!(a.lists, b.lists);
        assert_ne!(a.registers, b.registers);
        assert_ne!(a.records, b.records);
        for name in [&a.lists, &a.registers, &a.records] {
            assert!(name.len() <= 63, "{name} is longer than PostgreSQL's NAMEDATALEN - 1 (MariaDB allows 64)");
        }
    }

    #[test]
    fn dropping_keeps_only_the_runs_whose_statement_failed() {
        let (a, b) = (Tables::fresh(), Tables::fresh());
        let mut statements = Vec::new();
        let kept = drop_each(vec![a.clone(), b.clone()], |sql| {
            let ok = !sql.contains(&b.lists);
            statements.push(sql);
            ok
        });
        assert_eq!(kept, vec![b.clone()]);
        assert_eq!(statements[0], format!("DROP TABLE IF EXISTS {}, {}, {}", a.lists, a.registers, a.records));
        assert_eq!(statements.len(), 2);
    }

    #[test]
    fn taking_all_leaves_nothing_current_and_puts_the_current_run_last() {
        let (old, now) = (Tables::fresh(), Tables::fresh());
        let mut created = Created { current: Some(now.clone()), stale: vec![old.clone()] };
        assert_eq!(created.take_all(), vec![old, now]);
        assert!(created.current.is_none() && created.stale.is_empty());
        assert_eq!(created.take_all(), Vec::new());
    }
}
