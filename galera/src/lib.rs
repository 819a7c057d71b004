//! A local MariaDB Galera cluster for tests and for `isocheck cluster`: N `mariadbd` processes on
//! 127.0.0.1 under one directory ([`GaleraCluster`]), the faults the runner's nemesis injects into them
//! (SIGKILL and a restart, SIGSTOP/SIGCONT, a network partition through cgroup v2 and iptables, a
//! whole-cluster restart), and the choice of the node a restarted cluster bootstraps from
//! ([`bootstrap`]).
//!
//! This crate owns the processes, their directories and their faults. It does not talk to a node as a
//! system under test (that is `adapters::MariadbSystem`'s, over the nodes' URLs), nor decide when to
//! inject a fault (the runner's nemesis does), nor know the command line.
#![deny(missing_docs)]

pub mod bootstrap;
pub mod cluster;
mod error;
mod node_layout;
mod partition;

pub use bootstrap::Bootstrap;
pub use cluster::{DATABASE, GALERA_PROVIDER, GaleraCluster, NodeStatus, Rejoin};
pub use error::ClusterError;
pub use node_layout::NodeLayout;
