//! Reaching a MariaDB server or a Galera cluster's nodes from a URL: the connection options of one node
//! (the `mariadb://` scheme, timeouts, `CLIENT_FOUND_ROWS`, the statements every session starts with),
//! the node URLs a Galera URL lists, and the session variables a URL may set that the `mysql` crate
//! does not know. This module owns reading the URL; connecting is the system's.

use std::time::Duration;

use mysql::consts::CapabilityFlags;
use mysql::{Opts, OptsBuilder};

use super::{GALERA, NAME, SNAPSHOT_PARAM};
use crate::session::AdapterError;

/// A node's connection options from its URL: `mariadb://` read as `mysql://`, the session parameters
/// of [`SESSION_PARAMS`] and `init` run in every session, a 10 s connect timeout unless the URL sets
/// one, and `timeout` (Galera) for every read and write.
pub(super) fn node_opts(
    system: &'static str,
    url: &str,
    timeout: Option<Duration>,
    init: &[String],
) -> Result<Opts, AdapterError> {
    // `mariadb://` says the same as `mysql://`, which is the only scheme the `mysql` crate knows.
    let url = match url.split_once("://") {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("mariadb") => format!("mysql://{rest}"),
        _ => url.to_string(),
    };
    let (url, session) = take_session_params(&url)?;
    let parsed =
        Opts::from_url(&url).map_err(|e| AdapterError::Unavailable { system, message: format!("bad URL: {e}") })?;
    let mut builder = OptsBuilder::from_opts(parsed.clone())
        // The URL's host and port, not a socket the server names: every session reaches the same server.
        .prefer_socket(false)
        // Affected rows count the rows matched, not only those whose value changed.
        .additional_capabilities(CapabilityFlags::CLIENT_FOUND_ROWS)
        .stmt_cache_size(256);
    if parsed.get_tcp_connect_timeout().is_none() {
        builder = builder.tcp_connect_timeout(Some(timeout.unwrap_or(Duration::from_secs(10))));
    }
    if let Some(timeout) = timeout {
        builder = builder.read_timeout(Some(timeout)).write_timeout(Some(timeout));
    }
    let statements = [parsed.get_init(), session.statements, init.to_vec()].concat();
    if !statements.is_empty() {
        builder = builder.init(statements);
    }
    Ok(Opts::from(builder))
}

/// The URL of each node a URL lists (`mysql://user@h1:p1,h2:p2/db?params`): the same URL with one host.
pub(super) fn node_urls(url: &str) -> Result<Vec<String>, AdapterError> {
    let bad = |why: &str| AdapterError::Unavailable { system: GALERA, message: format!("bad URL: {why}") };
    let (scheme, rest) = url.split_once("://").ok_or_else(|| bad("expected mysql://user@host:port,host:port/db"))?;
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    let (user, hosts) = match authority.rsplit_once('@') {
        Some((user, hosts)) => (format!("{user}@"), hosts),
        None => (String::new(), authority),
    };
    let hosts: Vec<&str> = hosts.split(',').collect();
    if hosts.iter().any(|h| h.is_empty()) {
        return Err(bad("an empty host in the list of nodes"));
    }
    Ok(hosts.iter().map(|host| format!("{scheme}://{user}{host}{path}")).collect())
}

/// Session variables a URL may set for every session, which the `mysql` crate does not know as URL
/// parameters: `innodb_snapshot_isolation` (`on` or `off`) and `innodb_lock_wait_timeout` (seconds).
pub(super) const SESSION_PARAMS: [&str; 2] = [SNAPSHOT_PARAM, "innodb_lock_wait_timeout"];

/// Session settings taken off a URL: each variable and the value to set it to.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct SessionParams {
    /// `innodb_snapshot_isolation`, if the URL sets it.
    pub(super) snapshot: Option<bool>,
    /// `SET SESSION` statements, in URL order.
    pub(super) statements: Vec<String>,
}

/// The URL without the parameters of [`SESSION_PARAMS`], and what they set.
pub(super) fn take_session_params(url: &str) -> Result<(String, SessionParams), AdapterError> {
    let Some((base, query)) = url.split_once('?') else { return Ok((url.to_string(), SessionParams::default())) };
    let bad = |name: &str, value: &str, expected: &str| AdapterError::Unavailable {
        system: NAME,
        message: format!("bad URL: {name}={value:?}, expected {expected}"),
    };
    let mut kept = Vec::new();
    let mut params = SessionParams::default();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        if !SESSION_PARAMS.contains(&name) {
            kept.push(pair);
            continue;
        }
        let setting = if name == SNAPSHOT_PARAM {
            let on = match value.to_ascii_lowercase().as_str() {
                "on" | "1" | "true" => true,
                "off" | "0" | "false" => false,
                _ => return Err(bad(name, value, "on or off")),
            };
            params.snapshot = Some(on);
            if on { "ON".to_string() } else { "OFF".to_string() }
        } else {
            value.parse::<u32>().map_err(|_| bad(name, value, "a whole number of seconds"))?.to_string()
        };
        params.statements.push(format!("SET SESSION {name} = {setting}"));
    }
    let url = if kept.is_empty() { base.to_string() } else { format!("{base}?{}", kept.join("&")) };
    Ok((url, params))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::mariadb::{GALERA, GALERA_STATEMENT_TIMEOUT, NAME};

    #[test]
    fn session_parameters_leave_the_url_and_become_set_statements() {
        let url = "mysql://root@127.0.0.1:3306/isocheck";
        assert_eq!(take_session_params(url).unwrap(), (url.to_string(), SessionParams::default()));
        let (rest, params) = take_session_params(&format!("{url}?innodb_snapshot_isolation=ON")).unwrap();
        assert_eq!(rest, url);
        assert_eq!(params.snapshot, Some(true));
        assert_eq!(params.statements, ["SET SESSION innodb_snapshot_isolation = ON"]);
        let (rest, params) = take_session_params(&format!(
            "{url}?prefer_socket=false&innodb_lock_wait_timeout=1&innodb_snapshot_isolation=off"
        ))
        .unwrap();
        assert_eq!(rest, format!("{url}?prefer_socket=false"));
        assert_eq!(params.snapshot, Some(false));
        assert_eq!(
            params.statements,
            ["SET SESSION innodb_lock_wait_timeout = 1", "SET SESSION innodb_snapshot_isolation = OFF"]
        );
        for bad in ["innodb_snapshot_isolation=maybe", "innodb_lock_wait_timeout=1;DROP", "innodb_lock_wait_timeout"] {
            assert!(take_session_params(&format!("{url}?{bad}")).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_galera_url_lists_its_nodes_and_each_gets_the_rest_of_the_url() {
        assert_eq!(
            node_urls("mysql://root@127.0.0.1:1,127.0.0.1:2/isocheck?innodb_lock_wait_timeout=3").unwrap(),
            [
                "mysql://root@127.0.0.1:1/isocheck?innodb_lock_wait_timeout=3",
                "mysql://root@127.0.0.1:2/isocheck?innodb_lock_wait_timeout=3"
            ]
        );
        assert_eq!(node_urls("mysql://u:p@h:1/db").unwrap(), ["mysql://u:p@h:1/db"]);
        assert_eq!(node_urls("mysql://h1,h2").unwrap(), ["mysql://h1", "mysql://h2"]);
        assert!(node_urls("mysql://root@h1,,h2/db").is_err());
        assert!(node_urls("h1,h2").is_err());
    }

    #[test]
    fn a_galera_session_times_out_and_sets_sync_wait() {
        let init = ["SET SESSION wsrep_sync_wait = 1".to_string()];
        let opts = node_opts(GALERA, "mysql://root@h:1/db", Some(GALERA_STATEMENT_TIMEOUT), &init).unwrap();
        assert_eq!(opts.get_read_timeout(), Some(&GALERA_STATEMENT_TIMEOUT));
        assert_eq!(opts.get_write_timeout(), Some(&GALERA_STATEMENT_TIMEOUT));
        assert_eq!(opts.get_init(), init);
        let plain = node_opts(NAME, "mariadb://root@h:1/db", None, &[]).unwrap();
        assert_eq!(plain.get_read_timeout(), None);
        assert_eq!(plain.get_tcp_connect_timeout(), Some(Duration::from_secs(10)));
    }
}
