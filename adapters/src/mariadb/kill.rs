//! Killing a MariaDB session as an operator would (`KILL CONNECTION` from a separate admin connection),
//! and asking InnoDB whether it waits for a lock (`information_schema.INNODB_TRX`). This module owns
//! the admin connection and the kill switch; the sessions are `session`'s.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mysql::prelude::{FromValue, Queryable};
use mysql::{Conn, Opts};

use crate::lock::lock;
use crate::session::KillSwitch;

/// A connection kept for killing sessions' connections.
pub(super) struct Admin {
    pub(super) opts: Opts,
    pub(super) conn: Mutex<Option<Conn>>,
}

/// Kills a MariaDB session with `KILL CONNECTION`, as an operator would.
pub(super) struct MyKill {
    pub(super) admin: Arc<Admin>,
    /// The session's connection id (`CONNECTION_ID()`).
    pub(super) id: u32,
}

impl MyKill {
    /// Runs `sql` on the admin connection, replacing a broken one once; `None` if it could not.
    fn admin_query<T: FromValue>(&self, sql: &str) -> Option<Option<T>> {
        let mut conn = lock(&self.admin.conn);
        for _ in 0..2 {
            if conn.is_none() {
                *conn = Conn::new(self.admin.opts.clone()).ok();
            }
            let c = conn.as_mut()?;
            match c.query_first::<T, _>(sql) {
                Ok(answer) => return Some(answer),
                // The connection answered: the statement itself failed (1094: no such connection any more).
                Err(mysql::Error::MySqlError(_)) => return None,
                Err(_) => *conn = None,
            }
        }
        None
    }
}

impl KillSwitch for MyKill {
    fn kill(&self) {
        self.admin_query::<i64>(&format!("KILL CONNECTION {}", self.id));
    }

    fn waiting(&self) -> Option<bool> {
        // InnoDB refreshes the cache behind INNODB_TRX only when nobody read it for 100 ms: a poller
        // reading it more often would see the transactions as they were at its first read for ever.
        // So reads from this process are spaced out, all systems together.
        static LAST_READ: Mutex<Option<Instant>> = Mutex::new(None);
        let mut last = lock(&LAST_READ);
        if let Some(at) = *last {
            std::thread::sleep(INNODB_TRX_REFRESH.saturating_sub(at.elapsed()));
        }
        let sql = format!(
            "SELECT COUNT(*) FROM information_schema.INNODB_TRX \
             WHERE trx_mysql_thread_id = {} AND trx_state = 'LOCK WAIT'",
            self.id
        );
        let answer = self.admin_query::<i64>(&sql).flatten().map(|n| n > 0);
        *last = Some(Instant::now());
        answer
    }
}

/// How long after a read of `information_schema.INNODB_TRX` the next one waits, so that InnoDB refreshes
/// the table's cache (which it does only when it was not read for `CACHE_MIN_REFRESH_TIME`, 100 ms).
pub(super) const INNODB_TRX_REFRESH: Duration = Duration::from_millis(150);
