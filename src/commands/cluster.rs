//! `isocheck cluster up|status|down`: a local Galera cluster for `--db galera`. The flags only; starting,
//! inspecting and stopping the nodes is the `galera` crate's.

use galera::GaleraCluster;

use crate::cli::{ClusterAction, ClusterArgs};
use crate::exit;

/// Runs `cluster up`, `status` or `down`.
pub fn run(args: &ClusterArgs) -> anyhow::Result<u8> {
    match &args.action {
        ClusterAction::Up { dir, nodes, base_port } => {
            let cluster = GaleraCluster::up(dir, usize::from(*nodes), *base_port)?;
            for status in cluster.status() {
                println!("{status}");
            }
            println!("{}", cluster.url());
            Ok(exit::VALID)
        }
        ClusterAction::Status { dir } => {
            let cluster = GaleraCluster::open(dir)?;
            for status in cluster.status() {
                println!("{status}");
            }
            Ok(exit::VALID)
        }
        ClusterAction::Down { dir } => {
            let cluster = GaleraCluster::open(dir)?;
            let stopped = cluster.down()?;
            let pids: Vec<String> = stopped.iter().map(u32::to_string).collect();
            println!("stopped {} process(es): {}", pids.len(), pids.join(" "));
            Ok(exit::VALID)
        }
    }
}
