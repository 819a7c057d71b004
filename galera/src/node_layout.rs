//! One node's name and ports ([`NodeLayout`]), as `cluster.json` records them: what starting a node
//! (`cluster`) and cutting its traffic (`partition`) both need.

use serde::{Deserialize, Serialize};

/// One node's ports and name, as `cluster.json` records them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeLayout {
    /// `n1`, `n2`, ...
    pub name: String,
    /// The client (SQL) port.
    pub port: u16,
    /// Galera's group-communication port.
    pub gcomm_port: u16,
    /// The incremental state transfer port.
    pub ist_port: u16,
    /// The (rsync) state snapshot transfer port.
    pub sst_port: u16,
}
