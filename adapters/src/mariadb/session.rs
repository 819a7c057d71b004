//! One MariaDB session: a connection running each call as it comes, its statements for lists,
//! registers, records and predicates, and the level clause each transaction begins with. This module
//! owns the statements; what an error means is `faults`', the tables' names the system's.

use std::sync::Arc;

use histories::{Key, Predicate, Rows};
use mysql::prelude::{FromValue, Queryable};
use mysql::{Conn, Row, Value};

use super::faults::{Fault, classify, fault};
use super::kill::MyKill;
use crate::level::Level;
use crate::session::{Change, KillSwitch, Record, Session, TxnError};
use crate::sql::{key_of_text, key_text, predicate_condition};
use crate::tables::Tables;

/// One session's connection, running each call as it comes (see [`Tracked`] for the state around it).
pub(super) struct MyConn {
    pub(super) conn: Conn,
    pub(super) tables: Tables,
    pub(super) kill: Arc<MyKill>,
    pub(super) committing: bool,
    /// Whether an error said the connection is gone; nothing more is sent on it.
    pub(super) lost: bool,
    /// The cluster node it is connected to (Galera).
    pub(super) node: Option<String>,
}

impl MyConn {
    fn rows(&mut self, sql: String, params: Vec<Value>) -> Result<Vec<Row>, TxnError> {
        let result = self.conn.exec::<Row, _, _>(sql, params);
        result.map_err(|e| self.error(&e))
    }

    /// Runs a statement; the rows it matched.
    fn execute(&mut self, sql: String, params: Vec<Value>) -> Result<u64, TxnError> {
        let result = self.conn.exec_drop(sql, params);
        result.map(|()| self.conn.affected_rows()).map_err(|e| self.error(&e))
    }

    fn text(&mut self, sql: &str) -> Result<(), TxnError> {
        let result = self.conn.query_drop(sql);
        result.map_err(|e| self.error(&e))
    }

    fn error(&mut self, e: &mysql::Error) -> TxnError {
        let error = classify(fault(e), self.committing, e.to_string());
        self.lost |= error.session_lost;
        error
    }
}

pub(super) fn level_sql(level: Level) -> &'static str {
    match level {
        Level::ReadUncommitted => "SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED",
        Level::ReadCommitted => "SET TRANSACTION ISOLATION LEVEL READ COMMITTED",
        Level::SnapshotIsolation | Level::RepeatableRead => "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ",
        Level::Serializable => "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
    }
}

/// A row's column, or a fatal error if it is missing or does not decode.
pub(super) fn column<T: FromValue>(row: &Row, i: usize) -> Result<T, TxnError> {
    match row.get_opt::<T, usize>(i) {
        Some(Ok(value)) => Ok(value),
        Some(Err(e)) => Err(TxnError::fatal("mysql-client", format!("column {i}: {e}"))),
        None => Err(TxnError::fatal("mysql-client", format!("no column {i}"))),
    }
}

/// The key in a row's first column.
pub(super) fn key_column(row: &Row) -> Result<Key, TxnError> {
    let bytes: Vec<u8> = column(row, 0)?;
    let text = String::from_utf8(bytes)
        .map_err(|e| TxnError::fatal("bad-key", format!("the key column holds bytes that are not UTF-8: {e}")))?;
    key_of_text(&text)
}

/// A list as the text column holds it: elements separated by commas.
pub(super) fn list_of_text(text: &str) -> Result<Vec<i64>, TxnError> {
    text.split(',').map(|e| e.parse::<i64>()).collect::<Result<_, _>>().map_err(|_| {
        TxnError::fatal("bad-list", format!("the list column holds {text:?}, which isocheck did not write"))
    })
}

/// A predicate's condition with `?` placeholders, and its values as parameters.
pub(super) fn condition(predicate: &Predicate) -> (String, Vec<Value>) {
    let (condition, values) = predicate_condition(predicate, |_| "?".to_string());
    (condition, values.into_iter().map(Value::from).collect())
}

impl Session for MyConn {
    fn begin(&mut self, level: Level) -> Result<(), TxnError> {
        self.text(level_sql(level))?;
        self.text("START TRANSACTION")
    }

    fn read_list(&mut self, key: &Key) -> Result<Vec<i64>, TxnError> {
        let sql = format!("SELECT v FROM {} WHERE k = ?", self.tables.lists);
        let rows = self.rows(sql, vec![key_text(key).into()])?;
        rows.first().map_or(Ok(Vec::new()), |row| list_of_text(&column::<String>(row, 0)?))
    }

    fn append(&mut self, key: &Key, element: i64) -> Result<(), TxnError> {
        let sql = format!(
            "INSERT INTO {} (k, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = CONCAT_WS(',', v, VALUES(v))",
            self.tables.lists
        );
        self.execute(sql, vec![key_text(key).into(), element.to_string().into()]).map(drop)
    }

    fn read(&mut self, key: &Key) -> Result<Option<i64>, TxnError> {
        let sql = format!("SELECT v FROM {} WHERE k = ?", self.tables.registers);
        let rows = self.rows(sql, vec![key_text(key).into()])?;
        rows.first().map(|row| column(row, 0)).transpose()
    }

    fn write(&mut self, key: &Key, value: i64) -> Result<(), TxnError> {
        self.write_versioned(key, value).map(drop)
    }

    /// The row's version counter `ver` goes up by one in the writing statement itself: InnoDB's
    /// `INSERT ... ON DUPLICATE KEY UPDATE` reads the row's latest committed version under an exclusive
    /// lock it holds to the end of the transaction, so every committed version of a row has a larger `ver`
    /// than the one it replaced. MariaDB has no `UPDATE ... RETURNING`: the transaction then reads its
    /// own row back (its own change, which no one else can change while it holds the lock).
    fn write_versioned(&mut self, key: &Key, value: i64) -> Result<Option<i64>, TxnError> {
        let sql = format!(
            "INSERT INTO {} (k, v, ver) VALUES (?, ?, 1) ON DUPLICATE KEY UPDATE v = VALUES(v), ver = ver + 1",
            self.tables.registers
        );
        self.execute(sql, vec![key_text(key).into(), value.into()])?;
        let sql = format!("SELECT ver FROM {} WHERE k = ?", self.tables.registers);
        let rows = self.rows(sql, vec![key_text(key).into()])?;
        rows.first().map(|row| column(row, 0)).transpose()
    }

    fn insert(&mut self, key: &Key, value: i64) -> Result<(), TxnError> {
        let sql = format!("INSERT INTO {} (k, v) VALUES (?, ?)", self.tables.registers);
        self.execute(sql, vec![key_text(key).into(), value.into()]).map(drop)
    }

    fn delete(&mut self, key: &Key) -> Result<bool, TxnError> {
        let sql = format!("DELETE FROM {} WHERE k = ?", self.tables.registers);
        self.execute(sql, vec![key_text(key).into()]).map(|n| n > 0)
    }

    fn scan(&mut self, predicate: &Predicate) -> Result<Rows, TxnError> {
        let (condition, params) = condition(predicate);
        let sql = format!("SELECT k, v FROM {} WHERE {condition}", self.tables.registers);
        let rows = self.rows(sql, params)?;
        rows.iter().map(|row| Ok((key_column(row)?, column(row, 1)?))).collect()
    }

    fn read_record(&mut self, key: &Key) -> Result<Option<Record>, TxnError> {
        let sql = format!("SELECT * FROM {} WHERE k = ?", self.tables.records);
        let rows = self.rows(sql, vec![key_text(key).into()])?;
        rows.first().map(|row| (1..row.len()).map(|i| column::<Vec<u8>>(row, i)).collect()).transpose()
    }

    fn update_field(&mut self, key: &Key, field: usize, value: &[u8]) -> Result<bool, TxnError> {
        let sql = format!("UPDATE {} SET field{field} = ? WHERE k = ?", self.tables.records);
        // Rows matched, not rows changed (CLIENT_FOUND_ROWS): an update to the same bytes still found it.
        self.execute(sql, vec![value.into(), key_text(key).into()]).map(|n| n > 0)
    }

    fn delete_where(&mut self, predicate: &Predicate) -> Result<Rows, TxnError> {
        let (condition, params) = condition(predicate);
        let sql = format!("DELETE FROM {} WHERE {condition} RETURNING k, v", self.tables.registers);
        let rows = self.rows(sql, params)?;
        rows.iter().map(|row| Ok((key_column(row)?, column(row, 1)?))).collect()
    }

    fn update_where(&mut self, predicate: &Predicate, change: Change) -> Result<Vec<(Key, i64, i64)>, TxnError> {
        if matches!(change, Change::Set(_)) && !matches!(predicate, Predicate::Eq(_)) {
            // The same contract as every adapter's, although the locking read below knows the old values.
            return Err(Change::set_needs_equality(predicate));
        }
        let (condition, params) = condition(predicate);
        let sql = format!("SELECT k, v FROM {} WHERE {condition} FOR UPDATE", self.tables.registers);
        let rows = self.rows(sql, params)?;
        let mut changed = Vec::with_capacity(rows.len());
        for row in &rows {
            let (key, old): (Key, i64) = (key_column(row)?, column(row, 1)?);
            let new = change.apply(old);
            let sql = format!("UPDATE {} SET v = ?, ver = ver + 1 WHERE k = ?", self.tables.registers);
            self.execute(sql, vec![new.into(), key_text(&key).into()])?;
            changed.push((key, old, new));
        }
        Ok(changed)
    }

    fn commit(&mut self) -> Result<(), TxnError> {
        self.committing = true;
        let result = self.text("COMMIT");
        self.committing = false;
        result
    }

    fn rollback(&mut self) -> Result<(), TxnError> {
        if self.lost {
            return Err(classify(Fault::Lost, false, "the connection was lost".into()));
        }
        self.text("ROLLBACK")
    }

    fn kill_switch(&self) -> Option<Arc<dyn KillSwitch>> {
        Some(Arc::clone(&self.kill) as Arc<dyn KillSwitch>)
    }

    fn node(&self) -> Option<&str> {
        self.node.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Failure;

    #[test]
    fn lists_are_comma_separated_and_anything_else_is_fatal() {
        assert_eq!(list_of_text("5").unwrap(), vec![5]);
        assert_eq!(list_of_text("5,-6,7").unwrap(), vec![5, -6, 7]);
        for text in ["", "5,", "x", "1,,2"] {
            assert_eq!(list_of_text(text).unwrap_err().failure, Failure::Fatal, "{text:?}");
        }
    }

    #[test]
    fn every_level_sets_its_own_isolation_clause() {
        assert_eq!(level_sql(Level::ReadUncommitted), "SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED");
        assert_eq!(level_sql(Level::ReadCommitted), "SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
        assert_eq!(level_sql(Level::SnapshotIsolation), "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
        assert_eq!(level_sql(Level::RepeatableRead), "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
        assert_eq!(level_sql(Level::Serializable), "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE");
    }
}
