//! The parameters of a transaction stream, Elle's options for `elle.txn/wr-txns` under our names: how
//! many keys are active at once, how long a transaction is, how many writes a key takes before a fresh
//! key replaces it (and, optionally, how many transactions it stays active at most), how keys are
//! chosen, and how often a micro-op reads. This module owns the
//! parameters, their defaults and their validation; the stream itself is [`crate::wr_txns`]'s.

use std::fmt;

use crate::key_dist::KeyDist;

/// The shape of a transaction stream. The defaults are Elle's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Keys active at any time (Elle's `:key-count`; default 10).
    pub key_count: usize,
    /// The fewest micro-ops in a transaction (`:min-txn-length`; default 1).
    pub min_txn_len: usize,
    /// The most micro-ops in a transaction (`:max-txn-length`; default 2).
    pub max_txn_len: usize,
    /// Writes (appends) a key takes before a fresh key replaces it among the active ones
    /// (`:max-writes-per-key`; default 32).
    pub max_writes_per_key: u64,
    /// How keys are chosen (`:key-dist`; default Elle's exponential, base 2).
    pub key_dist: KeyDist,
    /// The most transactions drawn while a key is active: a key still active that many transactions
    /// after it entered is replaced by a fresh key, whatever its writes (default `None`: no bound, as
    /// Elle). Not Elle's: it bounds every key's lifetime, so that an online checker's fences close
    /// every key within a bounded window (docs/online-checking.md), however seldom the key is drawn.
    pub key_lifetime: Option<u64>,
    /// The chance that a micro-op is a read rather than a write (Elle: one half).
    pub read_fraction: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            key_count: 10,
            min_txn_len: 1,
            max_txn_len: 2,
            max_writes_per_key: 32,
            key_dist: KeyDist::exponential(),
            key_lifetime: None,
            read_fraction: 0.5,
        }
    }
}

impl Params {
    /// Checks that a stream can be drawn with these parameters.
    pub fn validate(&self) -> Result<(), InvalidParams> {
        let problem = if self.key_count == 0 {
            Some("at least one key must be active".to_string())
        } else if self.min_txn_len == 0 {
            Some("a transaction needs at least one micro-op".to_string())
        } else if self.min_txn_len > self.max_txn_len {
            Some(format!(
                "the shortest transaction ({} micro-ops) is longer than the longest ({})",
                self.min_txn_len, self.max_txn_len
            ))
        } else if self.max_writes_per_key == 0 {
            Some("each key must take at least one write".to_string())
        } else if self.key_lifetime == Some(0) {
            Some("a key must stay active for at least one transaction".to_string())
        } else if !(0.0..=1.0).contains(&self.read_fraction) {
            Some(format!("the read fraction must be between 0 and 1, not {}", self.read_fraction))
        } else {
            self.key_dist.problem()
        };
        problem.map_or(Ok(()), |message| Err(InvalidParams { message }))
    }
}

/// Parameters no stream can be drawn with, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidParams {
    message: String,
}

impl fmt::Display for InvalidParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid workload parameters: {}", self.message)
    }
}

impl std::error::Error for InvalidParams {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_elles_and_valid() {
        let p = Params::default();
        assert_eq!((p.key_count, p.min_txn_len, p.max_txn_len, p.max_writes_per_key), (10, 1, 2, 32));
        assert_eq!(p.key_dist, KeyDist::Exponential { base: 2.0 });
        assert_eq!(p.key_lifetime, None);
        assert_eq!(p.validate(), Ok(()));
    }

    #[test]
    fn each_invalid_parameter_is_named() {
        let bad = |p: Params| p.validate().unwrap_err().to_string();
        let p = Params::default();
        assert!(bad(Params { key_count: 0, ..p }).contains("at least one key"));
        assert!(bad(Params { min_txn_len: 0, ..p }).contains("at least one micro-op"));
        assert!(bad(Params { min_txn_len: 3, max_txn_len: 2, ..p }).contains("longer than the longest (2)"));
        assert!(bad(Params { max_writes_per_key: 0, ..p }).contains("at least one write"));
        assert!(bad(Params { read_fraction: 1.5, ..p }).contains("between 0 and 1"));
        assert!(bad(Params { key_lifetime: Some(0), ..p }).contains("at least one transaction"));
        assert!(bad(Params { key_dist: KeyDist::Exponential { base: 0.5 }, ..p }).contains("greater than 1"));
    }
}
