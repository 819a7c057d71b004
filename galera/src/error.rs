//! What went wrong with a cluster ([`ClusterError`]), for every module of the crate: starting and
//! stopping the processes (`cluster`), choosing the node to bootstrap from (`bootstrap`) and cutting a
//! node off (`partition`).

use std::path::PathBuf;

/// What went wrong with a cluster.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClusterError {
    /// A file or process could not be created, read or started.
    #[error("{what} {}: {source}", path.display())]
    Io {
        /// What was being done.
        what: &'static str,
        /// The file or program.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The directory holds no cluster (`cluster.json` missing or unreadable).
    #[error("{}: not a cluster directory ({message}); start one with `isocheck cluster up --dir DIR`", dir.display())]
    NotACluster {
        /// The directory.
        dir: PathBuf,
        /// Why.
        message: String,
    },
    /// `up` on a directory that already holds a cluster, or not empty.
    #[error("{}: {message}", dir.display())]
    DirectoryInUse {
        /// The directory.
        dir: PathBuf,
        /// What is there.
        message: String,
    },
    /// A node did not become Synced and ready in time, or its server exited.
    #[error("node {node} (port {port}) {problem}; last status: {status}; the end of its log ({}):\n{log_tail}", log.display())]
    NotSynced {
        /// The node's name.
        node: String,
        /// Its client port.
        port: u16,
        /// What happened: "did not sync within 180 s", "exited", "aborted".
        problem: String,
        /// What the node last said (or why it could not be asked).
        status: String,
        /// Its error log.
        log: PathBuf,
        /// The log's last lines.
        log_tail: String,
    },
    /// A setting that cannot make a cluster.
    #[error("{0}")]
    Invalid(String),
    /// A whole-cluster restart cannot tell which node is the most advanced.
    #[error("cannot choose the node to bootstrap the cluster from: {why}; positions: {positions}")]
    CannotBootstrap {
        /// Why not.
        why: String,
        /// Every node and its position.
        positions: String,
    },
    /// `mariadbd --wsrep-recover` found no position.
    #[error("node {node}: mariadbd --wsrep-recover found no position; the end of its log:\n{log_tail}")]
    NoRecoveredPosition {
        /// The node's name.
        node: String,
        /// The recovery log's last lines.
        log_tail: String,
    },
}
