//! A local MariaDB Galera cluster that a test (or `isocheck cluster up`) can start, inspect, fault and
//! stop: N `mariadbd` processes with the Galera provider on 127.0.0.1, their configs, data, logs and pids
//! under one directory, described by `DIR/cluster.json`. The first node bootstraps the cluster
//! (`--wsrep-new-cluster`) and the others join by state transfer (rsync SST); every address Galera
//! listens on (client, group communication, IST, SST) is set to 127.0.0.1, since Galera's own defaults
//! listen on every interface. Run as root, the servers run as `mysql` (rsync SST's daemon cannot write a
//! root-owned directory). This module owns the processes and their faults (SIGKILL and a restart by IST,
//! SIGSTOP/SIGCONT, a whole-cluster restart from kept data); talking to a node as a system under test is
//! `adapters::MariadbSystem`'s, and when to inject a fault is the runner's nemesis's.
//!
//! Processes are found by pid: the pid each server was started with (`DIR/nX/server.pid`), and, for
//! `down` and after a kill, every server or state-transfer process whose command line names the
//! cluster's directory or that descends from a server (the SST scripts and the `rsync --daemon` they
//! start, which outlive a failed join).

use std::io::{BufRead, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use mysql::{Conn, OptsBuilder};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};

use crate::error::ClusterError;
use crate::node_layout::NodeLayout;

pub use crate::bootstrap::Bootstrap;
use crate::bootstrap::{Grastate, Known, SavedState, WsrepPosition, ZERO_UUID, choose_bootstrap};

/// Where Debian's galera-4 puts the provider.
pub const GALERA_PROVIDER: &str = "/usr/lib/galera/libgalera_smm.so";

/// The database `up` creates for runs.
pub const DATABASE: &str = "isocheck";

/// How long one node may take to become Synced and ready (generous: the machine may be loaded).
const SYNC_TIMEOUT: Duration = Duration::from_secs(180);

/// How long a gracefully stopped server may take to exit before it is killed.
const STOP_TIMEOUT: Duration = Duration::from_secs(60);

fn io(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> ClusterError {
    let path = path.to_path_buf();
    move |source| ClusterError::Io { what, path, source }
}

/// `cluster.json`: what `up` started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Layout {
    base_port: u16,
    /// The user the servers run as (`mysql` when started by root), if not the caller.
    user: Option<String>,
    nodes: Vec<NodeLayout>,
}

impl Layout {
    /// Node `i` (from 0) gets four consecutive ports from `base + 4i`: client, group communication, IST, SST.
    fn new(nodes: usize, base_port: u16, user: Option<String>) -> Result<Layout, ClusterError> {
        if nodes == 0 {
            return Err(ClusterError::Invalid("a cluster needs at least one node".into()));
        }
        let last = u32::from(base_port) + 4 * nodes as u32;
        if base_port < 1024 || last > 65535 {
            return Err(ClusterError::Invalid(format!(
                "--base-port {base_port} with {nodes} nodes needs ports {base_port}..{last}, outside 1024..65535"
            )));
        }
        let nodes = (0..nodes)
            .map(|i| {
                let base = base_port + 4 * i as u16;
                NodeLayout {
                    name: format!("n{}", i + 1),
                    port: base,
                    gcomm_port: base + 1,
                    ist_port: base + 2,
                    sst_port: base + 3,
                }
            })
            .collect();
        Ok(Layout { base_port, user, nodes })
    }
}

impl Layout {
    /// An error unless every port lies outside `range` (the kernel's ephemeral ports, which it hands to
    /// outgoing connections: a client's connection may take a node's port while the node is down, and
    /// its restart then fails on a busy port).
    fn outside(&self, (low, high): (u16, u16)) -> Result<(), ClusterError> {
        let last = self.nodes.last().map_or(self.base_port, |n| n.sst_port);
        if last < low || self.base_port > high {
            return Ok(());
        }
        Err(ClusterError::Invalid(format!(
            "--base-port {} gives the nodes ports {}..={last}, inside the kernel's ephemeral range {low}..={high} \
             (net.ipv4.ip_local_port_range), where an outgoing connection can take a node's port while it restarts; \
             choose a base port outside it (the default, 25700, is)",
            self.base_port, self.base_port
        )))
    }
}

/// The kernel's ephemeral port range (`/proc/sys/net/ipv4/ip_local_port_range`), if it can be read.
fn ephemeral_range() -> Option<(u16, u16)> {
    let text = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range").ok()?;
    let mut parts = text.split_whitespace().map(|p| p.parse::<u16>());
    Some((parts.next()?.ok()?, parts.next()?.ok()?))
}

/// How a crashed node rejoined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejoin {
    /// From its recovered position (`UUID:SEQNO`), by incremental state transfer.
    Ist {
        /// The recovered position.
        position: String,
    },
    /// By a full state snapshot transfer, since its data did not recover.
    Sst {
        /// InnoDB's errors on recovery.
        why: String,
    },
}

/// What one node says about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NodeStatus {
    /// The node's name.
    pub name: String,
    /// Its client port.
    pub port: u16,
    /// The server's pid, if it is running.
    pub pid: Option<u32>,
    /// `wsrep_cluster_size`, if the node answered.
    pub size: Option<u64>,
    /// `wsrep_local_state_comment` (`Synced`, `Donor/Desynced`, `Joining`, ...), if it answered.
    pub state: Option<String>,
    /// `wsrep_ready`, if it answered.
    pub ready: Option<bool>,
    /// Why it did not answer.
    pub error: Option<String>,
}

impl NodeStatus {
    /// Synced and ready in a cluster of `size` nodes.
    pub fn synced(&self, size: usize) -> bool {
        self.size == Some(size as u64) && self.state.as_deref() == Some("Synced") && self.ready == Some(true)
    }
}

impl std::fmt::Display for NodeStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pid = self.pid.map_or_else(|| "not running".to_string(), |p| format!("pid {p}"));
        match &self.error {
            Some(e) => write!(f, "{} port {} {pid}: {e}", self.name, self.port),
            None => write!(
                f,
                "{} port {} {pid}: size {} state {} ready {}",
                self.name,
                self.port,
                self.size.map_or_else(|| "?".into(), |s| s.to_string()),
                self.state.as_deref().unwrap_or("?"),
                match self.ready {
                    Some(true) => "ON",
                    Some(false) => "OFF",
                    None => "?",
                }
            ),
        }
    }
}

/// A cluster under a directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GaleraCluster {
    dir: PathBuf,
    layout: Layout,
}

impl GaleraCluster {
    /// Starts `nodes` nodes under `dir` (created if missing; it must hold no cluster), ports from
    /// `base_port`, and waits until each is Synced and ready in a cluster of `nodes`. On failure the
    /// servers started are stopped again.
    pub fn up(dir: &Path, nodes: usize, base_port: u16) -> Result<GaleraCluster, ClusterError> {
        std::fs::create_dir_all(dir).map_err(io("creating", dir))?;
        let dir = dir.canonicalize().map_err(io("resolving", dir))?;
        if dir.join("cluster.json").exists() {
            return Err(ClusterError::DirectoryInUse {
                dir,
                message: "already holds a cluster (cluster.json); `isocheck cluster down --dir` it first".into(),
            });
        }
        let user = nix::unistd::geteuid().is_root().then(|| "mysql".to_string());
        let layout = Layout::new(nodes, base_port, user)?;
        if let Some(range) = ephemeral_range() {
            layout.outside(range)?;
        }
        let cluster = GaleraCluster { layout, dir };
        let layout = serde_json::to_string_pretty(&cluster.layout).unwrap_or_default();
        let file = cluster.dir.join("cluster.json");
        std::fs::write(&file, layout).map_err(io("writing", &file))?;
        let started = cluster.start_all();
        if let Err(e) = started {
            let _ = cluster.stop_everything();
            return Err(e);
        }
        Ok(cluster)
    }

    fn start_all(&self) -> Result<(), ClusterError> {
        for i in 0..self.layout.nodes.len() {
            self.write_config(i)?;
        }
        self.install_first()?;
        self.chown()?;
        self.spawn(0, &["--wsrep-new-cluster"])?;
        self.wait_synced(0, 1)?;
        self.create_database()?;
        for i in 1..self.layout.nodes.len() {
            self.spawn(i, &[])?;
            self.wait_synced(i, i + 1)?;
        }
        Ok(())
    }

    /// The cluster `up` started under `dir`.
    pub fn open(dir: &Path) -> Result<GaleraCluster, ClusterError> {
        let not = |message: String| ClusterError::NotACluster { dir: dir.to_path_buf(), message };
        let dir = dir.canonicalize().map_err(|e| not(e.to_string()))?;
        let text = std::fs::read_to_string(dir.join("cluster.json")).map_err(|e| not(e.to_string()))?;
        let layout: Layout = serde_json::from_str(&text).map_err(|e| not(format!("cluster.json: {e}")))?;
        Ok(GaleraCluster { dir, layout })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The nodes, in order.
    pub fn nodes(&self) -> &[NodeLayout] {
        &self.layout.nodes
    }

    /// The URL listing every node, as `--url` takes it (`mysql://root@127.0.0.1:P1,127.0.0.1:P2/isocheck`).
    pub fn url(&self) -> String {
        let hosts: Vec<String> = self.layout.nodes.iter().map(|n| format!("127.0.0.1:{}", n.port)).collect();
        format!("mysql://root@{}/{DATABASE}", hosts.join(","))
    }

    /// What each node says about itself now.
    pub fn status(&self) -> Vec<NodeStatus> {
        (0..self.layout.nodes.len()).map(|i| self.node_status(i)).collect()
    }

    /// Stops every server (gracefully, then by SIGKILL after a minute) and every helper process left
    /// (SST scripts, rsync); returns the pids stopped. Data and logs stay; `cluster.json` is removed, so
    /// the directory can hold a new cluster.
    pub fn down(&self) -> Result<Vec<u32>, ClusterError> {
        let stopped = self.stop_everything()?;
        crate::partition::clean_up(&crate::partition::cluster_tag(&self.dir), &self.layout.nodes);
        let file = self.dir.join("cluster.json");
        std::fs::remove_file(&file).map_err(io("removing", &file))?;
        Ok(stopped)
    }

    /// SIGKILLs node `i`'s server and its helpers, and waits until they are gone.
    pub fn kill_node(&self, i: usize) -> Result<(), ClusterError> {
        let node = self.node(i)?;
        if let Some(pid) = self.pid(i) {
            signal(pid, Signal::SIGKILL);
            wait_gone(pid, STOP_TIMEOUT);
        }
        for pid in self.helpers_of(&node.name) {
            signal(pid, Signal::SIGKILL);
        }
        Ok(())
    }

    /// Starts node `i` again after a crash, at the position its data recovers to
    /// (`mariadbd --wsrep-recover`, then `--wsrep-start-position`, so it rejoins by IST rather than a full
    /// SST), and waits until it is Synced and ready in a cluster of every node running. When InnoDB
    /// cannot recover its data (it has refused a page as corrupt after SIGKILL here), the node starts
    /// without a position and gets a full copy by SST; the answer says which.
    pub fn restart_node(&self, i: usize) -> Result<Rejoin, ClusterError> {
        let rejoin = match self.recover(i) {
            Ok(position) => {
                self.spawn(i, &[&format!("--wsrep-start-position={position}")])?;
                Rejoin::Ist { position }
            }
            Err(ClusterError::NoRecoveredPosition { log_tail, .. }) => {
                let why = log_tail.lines().filter(|l| l.contains("[ERROR]")).take(2).collect::<Vec<_>>().join(" / ");
                self.spawn(i, &[])?;
                Rejoin::Sst { why }
            }
            Err(e) => return Err(e),
        };
        self.wait_synced(i, 0)?;
        Ok(rejoin)
    }

    /// Cuts node `i` off from the other nodes (`partition`): its Galera traffic to and from them is
    /// dropped, its clients' connections are not.
    pub fn partition(&self, i: usize) -> Result<(), ClusterError> {
        self.node(i)?;
        let tag = crate::partition::cluster_tag(&self.dir);
        crate::partition::cut(&tag, &self.layout.nodes, i, self.pid(i))
    }

    /// Heals node `i`'s partition and waits until it is Synced and ready in a cluster of every node running.
    pub fn heal_partition(&self, i: usize) -> Result<(), ClusterError> {
        self.node(i)?;
        let tag = crate::partition::cluster_tag(&self.dir);
        crate::partition::heal(&tag, &self.layout.nodes, i)?;
        self.wait_synced(i, 0)
    }

    /// SIGSTOPs node `i`'s server (a process that stops answering, as under a long GC pause or a VM stall),
    /// and returns once every one of its threads is stopped (a thread busy in the kernel stops only when
    /// it leaves it), so that nothing sent to the node afterwards is answered before it resumes; or, if
    /// one has not stopped within `STOP_TIMEOUT`, then.
    pub fn pause_node(&self, i: usize) -> Result<(), ClusterError> {
        self.node(i)?;
        if let Some(pid) = self.pid(i) {
            signal(pid, Signal::SIGSTOP);
            wait_stopped(pid, STOP_TIMEOUT);
        }
        Ok(())
    }

    /// SIGCONTs node `i`'s server.
    pub fn resume_node(&self, i: usize) -> Result<(), ClusterError> {
        self.node(i)?;
        if let Some(pid) = self.pid(i) {
            signal(pid, Signal::SIGCONT);
        }
        Ok(())
    }

    /// Stops every node gracefully, last node first, and starts the cluster again from the kept data as
    /// [`GaleraCluster::recover_cluster`] does: from the most advanced node, never a stale one (a node
    /// that was down before the restart has older data, and bootstrapping from it would overwrite the
    /// others' newer commits by state transfer). Waits until every node is Synced and ready.
    pub fn restart_cluster(&self) -> Result<Bootstrap, ClusterError> {
        for i in (0..self.layout.nodes.len()).rev() {
            self.stop_node(i);
        }
        self.recover_cluster()
    }

    /// SIGKILLs every node at once (a power failure) and every helper process, and waits until they
    /// are gone; [`GaleraCluster::recover_cluster`] starts the cluster again.
    pub fn kill_all(&self) -> Result<(), ClusterError> {
        let servers: Vec<u32> = (0..self.layout.nodes.len()).filter_map(|i| self.pid(i)).collect();
        for &pid in &servers {
            signal(pid, Signal::SIGKILL);
        }
        for &pid in &servers {
            wait_gone(pid, STOP_TIMEOUT);
        }
        for node in &self.layout.nodes {
            for pid in self.helpers_of(&node.name) {
                signal(pid, Signal::SIGKILL);
            }
        }
        Ok(())
    }

    /// Starts a cluster whose servers are all stopped (gracefully or not) from their kept data, as
    /// Galera documents a whole-cluster recovery: each node's position is read from its `grastate.dat`
    /// or, when that says `-1` (it did not stop cleanly), recovered by `mariadbd --wsrep-recover`; the
    /// node with the highest seqno bootstraps (a tie goes to the node Galera marked
    /// `safe_to_bootstrap: 1`, the last to leave, then to the first node), and the others rejoin from
    /// their positions. A node whose data holds no cluster state (the zero UUID: it never finished a
    /// state transfer) rejoins by SST. When the positions cannot tell (a node's data does not recover,
    /// or the nodes belong to different cluster histories) nothing is started and the error names every
    /// node and its position: a wrong choice would destroy committed data. A server still running is
    /// stopped first.
    pub fn recover_cluster(&self) -> Result<Bootstrap, ClusterError> {
        for i in (0..self.layout.nodes.len()).rev() {
            self.stop_node(i);
        }
        let mut states = Vec::with_capacity(self.layout.nodes.len());
        for i in 0..self.layout.nodes.len() {
            states.push(self.saved_state(i)?);
        }
        let chosen = choose_bootstrap(&states)?;
        let positions: Vec<(String, String)> = states.iter().map(|s| (s.node.clone(), s.position.describe())).collect();
        let Known::At(position) = &states[chosen].position else {
            return Err(ClusterError::Invalid("the bootstrap node has no position (a bug)".into()));
        };
        let position = position.to_string();
        let file = self.node_dir(chosen).join("data/grastate.dat");
        let grastate = std::fs::read_to_string(&file).map_err(io("reading", &file))?;
        if !grastate.contains("safe_to_bootstrap: 1") {
            // Galera asks for this by hand after a crash of every node, once the most advanced is known.
            let fixed = grastate.replace("safe_to_bootstrap: 0", "safe_to_bootstrap: 1");
            std::fs::write(&file, fixed).map_err(io("writing", &file))?;
        }
        self.spawn(chosen, &["--wsrep-new-cluster", &format!("--wsrep-start-position={position}")])?;
        self.wait_synced(chosen, 1)?;
        let mut running = 1;
        for (i, state) in states.iter().enumerate() {
            if i == chosen {
                continue;
            }
            match &state.position {
                Known::At(p) => self.spawn(i, &[&format!("--wsrep-start-position={p}")])?,
                _ => self.spawn(i, &[])?,
            };
            running += 1;
            self.wait_synced(i, running)?;
        }
        Ok(Bootstrap { node: states[chosen].node.clone(), position, positions })
    }

    /// Node `i`'s saved position, its server stopped: `grastate.dat`'s when it stopped cleanly, else
    /// what `mariadbd --wsrep-recover` finds.
    fn saved_state(&self, i: usize) -> Result<SavedState, ClusterError> {
        let node = self.node(i)?.name.clone();
        let file = self.node_dir(i).join("data/grastate.dat");
        let grastate = std::fs::read_to_string(&file).map(|t| Grastate::parse(&t)).unwrap_or_default();
        let safe = grastate.safe_to_bootstrap;
        let position = match WsrepPosition::new(&grastate.uuid, grastate.seqno) {
            Some(p) if p.seqno >= 0 => Known::At(p),
            _ => match self.recover(i) {
                Ok(text) => Known::from_recovered(&text),
                Err(ClusterError::NoRecoveredPosition { log_tail, .. }) => {
                    let zero = log_tail.contains(&format!("Recovered position: {ZERO_UUID}:-1"));
                    if zero {
                        Known::Empty
                    } else {
                        let why =
                            log_tail.lines().filter(|l| l.contains("[ERROR]")).take(2).collect::<Vec<_>>().join(" / ");
                        Known::Unknown(if why.is_empty() { "no position recovered".into() } else { why })
                    }
                }
                Err(e) => return Err(e),
            },
        };
        Ok(SavedState { node, position, safe_to_bootstrap: safe })
    }

    /// Waits until node `i` is Synced and ready in a cluster of `size` (0: of every node whose server
    /// runs); an error with its log's tail if it does not in time or its server exits.
    pub fn wait_synced(&self, i: usize, size: usize) -> Result<(), ClusterError> {
        let node = self.node(i)?;
        let started = Instant::now();
        loop {
            let status = self.node_status(i);
            let size =
                if size == 0 { (0..self.layout.nodes.len()).filter(|&n| self.pid(n).is_some()).count() } else { size };
            if status.synced(size) {
                return Ok(());
            }
            let aborted = status.pid.is_some_and(|pid| {
                let offset = std::fs::read_to_string(self.node_dir(i).join("log.offset"))
                    .ok()
                    .and_then(|t| t.trim().parse().ok())
                    .unwrap_or(0);
                aborted_since_start(&self.node_dir(i).join("error.log"), offset, pid)
            });
            let problem = if status.pid.is_none() {
                Some("exited".to_string())
            } else if aborted {
                // A server that logged "Aborting" (a busy port, a failed state transfer) may linger for
                // minutes in its shutdown; it will not sync, so it is stopped and reported now.
                if let Some(pid) = status.pid {
                    signal(pid, Signal::SIGKILL);
                    wait_gone(pid, STOP_TIMEOUT);
                }
                Some("aborted".to_string())
            } else if started.elapsed() > SYNC_TIMEOUT {
                Some(format!("did not sync within {} s", SYNC_TIMEOUT.as_secs()))
            } else {
                None
            };
            if let Some(problem) = problem {
                let log = self.node_dir(i).join("error.log");
                return Err(ClusterError::NotSynced {
                    node: node.name.clone(),
                    port: node.port,
                    problem,
                    status: status.to_string(),
                    log_tail: tail(&log, 20),
                    log,
                });
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    fn node(&self, i: usize) -> Result<&NodeLayout, ClusterError> {
        self.layout.nodes.get(i).ok_or_else(|| {
            ClusterError::Invalid(format!("no node {} in a cluster of {}", i + 1, self.layout.nodes.len()))
        })
    }

    fn node_dir(&self, i: usize) -> PathBuf {
        self.dir.join(format!("n{}", i + 1))
    }

    /// Node `i`'s server pid, if it is running.
    pub fn pid(&self, i: usize) -> Option<u32> {
        let text = std::fs::read_to_string(self.node_dir(i).join("server.pid")).ok()?;
        let pid = text.trim().parse::<u32>().ok()?;
        alive(pid).then_some(pid)
    }

    fn config_path(&self, i: usize) -> PathBuf {
        self.node_dir(i).join("my.cnf")
    }

    fn write_config(&self, i: usize) -> Result<(), ClusterError> {
        let node = &self.layout.nodes[i];
        let dir = self.node_dir(i);
        std::fs::create_dir_all(dir.join("data")).map_err(io("creating", &dir))?;
        let members: Vec<String> = self.layout.nodes.iter().map(|n| format!("127.0.0.1:{}", n.gcomm_port)).collect();
        let user = self.layout.user.as_ref().map(|u| format!("user={u}\n")).unwrap_or_default();
        let d = dir.display();
        // Galera declares a silent peer gone after `evs.suspect_timeout` (5 s by default) and the nodes left
        // without a majority stop taking writes. A loaded machine has starved a node's threads for 12 s
        // here, which split the cluster in the middle of a state transfer it never finished; peers are
        // given 20 s instead. A killed node's peers then wait up to 20 s before its view changes, which
        // the clients' 15 s statement timeouts meet as indeterminate operations, as they should.
        let config = format!(
            "[mariadbd]\n\
             {user}datadir={d}/data\n\
             socket={d}/mysqld.sock\n\
             pid-file={d}/mysqld.pid\n\
             log-error={d}/error.log\n\
             port={port}\n\
             bind-address=127.0.0.1\n\
             max_connections=300\n\
             binlog_format=ROW\n\
             default_storage_engine=InnoDB\n\
             innodb_autoinc_lock_mode=2\n\
             innodb_flush_log_at_trx_commit=0\n\
             innodb_buffer_pool_size=64M\n\
             wsrep_on=ON\n\
             wsrep_provider={GALERA_PROVIDER}\n\
             wsrep_cluster_name=isocheck\n\
             wsrep_cluster_address=gcomm://{members}\n\
             wsrep_node_name={name}\n\
             wsrep_node_address=127.0.0.1:{gcomm}\n\
             wsrep_node_incoming_address=127.0.0.1:{port}\n\
             wsrep_sst_method=rsync\n\
             wsrep_sst_receive_address=127.0.0.1:{sst}\n\
             wsrep_slave_threads=2\n\
             wsrep_provider_options=\"base_host=127.0.0.1;base_port={gcomm};gmcast.listen_addr=tcp://127.0.0.1:{gcomm};\
             ist.recv_addr=127.0.0.1:{ist};gcache.size=32M;\
             evs.suspect_timeout=PT20S;evs.inactive_timeout=PT40S;evs.install_timeout=PT20S\"\n",
            port = node.port,
            members = members.join(","),
            name = node.name,
            gcomm = node.gcomm_port,
            sst = node.sst_port,
            ist = node.ist_port,
        );
        let path = self.config_path(i);
        std::fs::write(&path, config).map_err(io("writing", &path))
    }

    /// The first node's system tables, with root reachable over TCP without a password (the others get
    /// theirs by SST).
    fn install_first(&self) -> Result<(), ClusterError> {
        let dir = self.node_dir(0);
        let log = dir.join("install.log");
        let out = std::fs::File::create(&log).map_err(io("creating", &log))?;
        let err = out.try_clone().map_err(io("creating", &log))?;
        let mut cmd = Command::new("mariadb-install-db");
        cmd.arg("--no-defaults")
            .arg(format!("--datadir={}", dir.join("data").display()))
            .arg("--auth-root-authentication-method=normal")
            .arg("--skip-test-db")
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        if let Some(user) = &self.layout.user {
            cmd.arg(format!("--user={user}"));
            self.chown()?;
        }
        let status = cmd.status().map_err(io("running", Path::new("mariadb-install-db")))?;
        if !status.success() {
            return Err(ClusterError::Invalid(format!(
                "mariadb-install-db failed ({status}); the end of {}:\n{}",
                log.display(),
                tail(&log, 20)
            )));
        }
        Ok(())
    }

    /// Hands the directory to the servers' user, if they run as another, and checks that user can reach
    /// it (every parent directory searchable).
    fn chown(&self) -> Result<(), ClusterError> {
        let Some(user) = &self.layout.user else { return Ok(()) };
        let status = Command::new("chown")
            .arg("-R")
            .arg(format!("{user}:{user}"))
            .arg(&self.dir)
            .status()
            .map_err(io("running chown on", &self.dir))?;
        if !status.success() {
            return Err(ClusterError::Invalid(format!("chown -R {user} {} failed ({status})", self.dir.display())));
        }
        let reachable = Command::new("runuser")
            .args(["-u", user, "--", "test", "-w"])
            .arg(&self.dir)
            .status()
            .map_err(io("running runuser for", &self.dir))?;
        if reachable.success() {
            Ok(())
        } else {
            Err(ClusterError::Invalid(format!(
                "the servers run as {user}, who cannot reach {}: a directory above it is not searchable by {user} \
                 (choose a directory under /tmp, or chmod o+x its parents)",
                self.dir.display()
            )))
        }
    }

    /// Starts node `i`'s server with these extra arguments, detached (its own process group, no
    /// standard streams), and records its pid.
    fn spawn(&self, i: usize, extra: &[&str]) -> Result<u32, ClusterError> {
        use std::os::unix::process::CommandExt;
        // Where this server's part of the log begins, for [`aborted_since_start`].
        let log_len = std::fs::metadata(self.node_dir(i).join("error.log")).map_or(0, |m| m.len());
        let offset = self.node_dir(i).join("log.offset");
        std::fs::write(&offset, format!("{log_len}\n")).map_err(io("writing", &offset))?;
        let tag = crate::partition::cluster_tag(&self.dir);
        let mut child = crate::partition::spawn_command(&mariadbd(), &tag, &self.layout.nodes[i].name)
            .arg(format!("--defaults-file={}", self.config_path(i).display()))
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(io("starting", Path::new("mariadbd")))?;
        let pid = child.id();
        let file = self.node_dir(i).join("server.pid");
        std::fs::write(&file, format!("{pid}\n")).map_err(io("writing", &file))?;
        // Reaped when it exits, so a killed server is gone rather than a zombie that still has a pid.
        std::thread::spawn(move || child.wait());
        Ok(pid)
    }

    fn create_database(&self) -> Result<(), ClusterError> {
        let node = &self.layout.nodes[0];
        let mut conn = connect(node.port).map_err(|e| ClusterError::Invalid(format!("node n1: {e}")))?;
        conn.query_drop(format!("CREATE DATABASE IF NOT EXISTS {DATABASE}"))
            .map_err(|e| ClusterError::Invalid(format!("node n1: creating the database {DATABASE}: {e}")))
    }

    fn node_status(&self, i: usize) -> NodeStatus {
        let node = &self.layout.nodes[i];
        let mut status = NodeStatus {
            name: node.name.clone(),
            port: node.port,
            pid: self.pid(i),
            size: None,
            state: None,
            ready: None,
            error: None,
        };
        if status.pid.is_none() {
            status.error = Some("not running".into());
            return status;
        }
        let answer = connect(node.port).and_then(|mut conn| {
            conn.query::<(String, String), _>(
                "SHOW GLOBAL STATUS WHERE Variable_name IN \
                 ('wsrep_cluster_size', 'wsrep_local_state_comment', 'wsrep_ready')",
            )
        });
        match answer {
            Ok(rows) => {
                for (name, value) in rows {
                    match name.as_str() {
                        "wsrep_cluster_size" => status.size = value.parse().ok(),
                        "wsrep_local_state_comment" => status.state = Some(value),
                        "wsrep_ready" => status.ready = Some(value == "ON"),
                        _ => {}
                    }
                }
            }
            Err(e) => status.error = Some(e.to_string()),
        }
        status
    }

    /// Node `i`'s recovered position (`UUID:SEQNO`), from `mariadbd --wsrep-recover`.
    fn recover(&self, i: usize) -> Result<String, ClusterError> {
        let node = self.node(i)?;
        let log = self.node_dir(i).join("recover.log");
        let _ = std::fs::remove_file(&log);
        let status = Command::new(mariadbd())
            .arg(format!("--defaults-file={}", self.config_path(i).display()))
            .arg("--wsrep-recover")
            .arg(format!("--log-error={}", log.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(io("running", Path::new("mariadbd --wsrep-recover")))?;
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let position = text
            .lines()
            .filter_map(|line| line.split_once("WSREP: Recovered position: ").map(|(_, p)| p.trim().to_string()))
            .next_back();
        match position {
            Some(p) if status.success() && !p.ends_with(":-1") => Ok(p),
            _ => Err(ClusterError::NoRecoveredPosition { node: node.name.clone(), log_tail: tail(&log, 20) }),
        }
    }

    /// Stops node `i` gracefully (SIGTERM), by SIGKILL if it has not exited within a minute: it leaves
    /// the cluster at once, which goes on without it.
    pub fn stop_node(&self, i: usize) {
        if let Some(pid) = self.pid(i) {
            // A paused server cannot shut down.
            signal(pid, Signal::SIGCONT);
            signal(pid, Signal::SIGTERM);
            if !wait_gone(pid, STOP_TIMEOUT) {
                signal(pid, Signal::SIGKILL);
                wait_gone(pid, STOP_TIMEOUT);
            }
        }
    }

    /// Stops every server, then every process left that names the directory or descends from a server.
    fn stop_everything(&self) -> Result<Vec<u32>, ClusterError> {
        let servers: Vec<u32> = (0..self.layout.nodes.len()).filter_map(|i| self.pid(i)).collect();
        let mut helpers = processes_naming(&self.dir);
        helpers.extend(servers.iter().flat_map(|&p| descendants(p)));
        for i in (0..self.layout.nodes.len()).rev() {
            self.stop_node(i);
        }
        helpers.extend(processes_naming(&self.dir));
        helpers.sort_unstable();
        helpers.dedup();
        for &pid in &helpers {
            if !servers.contains(&pid) {
                signal(pid, Signal::SIGKILL);
                wait_gone(pid, Duration::from_secs(5));
            }
        }
        let mut stopped = servers;
        stopped.extend(helpers);
        stopped.sort_unstable();
        stopped.dedup();
        Ok(stopped)
    }

    /// The helper processes of node `name` (SST scripts, rsync), by its directory in their command lines.
    fn helpers_of(&self, name: &str) -> Vec<u32> {
        processes_naming(&self.dir.join(name))
    }
}

/// The server binary: `mariadbd` on `PATH`, else Debian's `/usr/sbin/mariadbd`.
fn mariadbd() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("mariadbd"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("/usr/sbin/mariadbd"))
}

/// A root connection to the node on `port`, with short timeouts (status polling must not hang on a
/// paused node).
fn connect(port: u16) -> Result<Conn, mysql::Error> {
    let opts = OptsBuilder::new()
        .ip_or_hostname(Some("127.0.0.1"))
        .tcp_port(port)
        .user(Some("root"))
        .prefer_socket(false)
        .tcp_connect_timeout(Some(Duration::from_secs(5)))
        .read_timeout(Some(Duration::from_secs(5)))
        .write_timeout(Some(Duration::from_secs(5)));
    Conn::new(opts)
}

fn signal(pid: u32, sig: Signal) {
    if let Ok(pid) = i32::try_from(pid) {
        // The process may have exited meanwhile; there is nothing else to do then.
        let _ = kill(Pid::from_raw(pid), sig);
    }
}

/// The state letter (`R`, `S`, `D`, `T`, `Z`, ...) of a `/proc/.../stat` line: the first field after the
/// command's closing parenthesis (the command itself may hold any character).
fn state_letter(stat: &str) -> Option<char> {
    stat.rsplit_once(") ").and_then(|(_, rest)| rest.chars().next())
}

/// Whether `pid` is a live process (not a zombie).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !matches!(state_letter(&stat), Some('Z' | 'X')),
        Err(_) => false,
    }
}

/// The state letters of each thread of `pid`; empty once it is gone.
fn thread_states(pid: u32) -> Vec<char> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return Vec::new() };
    tasks
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("stat")).ok())
        .filter_map(|stat| state_letter(&stat))
        .collect()
}

/// Waits until every thread of `pid` is stopped (or it is gone), for up to `timeout`.
fn wait_stopped(pid: u32, timeout: Duration) {
    let started = Instant::now();
    while thread_states(pid).iter().any(|&state| !matches!(state, 'T' | 't' | 'Z' | 'X')) && started.elapsed() < timeout
    {
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits up to `timeout` for `pid` to be gone; whether it is.
fn wait_gone(pid: u32, timeout: Duration) -> bool {
    let started = Instant::now();
    while alive(pid) {
        if started.elapsed() > timeout {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    true
}

/// Every server or state-transfer helper (`mariadbd`, `wsrep_sst_*`, `rsync`) other than this process
/// whose command line mentions `dir`: never another program that merely names the directory (a run
/// with `--cluster-dir`, a `tail -f` of a log).
fn processes_naming(dir: &Path) -> Vec<u32> {
    let needle = dir.as_os_str().as_encoded_bytes();
    let contains = |haystack: &[u8], needle: &[u8]| haystack.windows(needle.len()).any(|w| w == needle);
    let own = std::process::id();
    all_pids()
        .into_iter()
        .filter(|&pid| pid != own)
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmdline| {
                contains(&cmdline, needle) && HELPERS.iter().any(|program| contains(&cmdline, program.as_bytes()))
            })
        })
        .collect()
}

/// What the servers and their state transfers run: the processes `down` and `kill_node` look for.
const HELPERS: [&str; 3] = ["mariadbd", "wsrep_sst", "rsync"];

/// Every live process descending from `root`.
fn descendants(root: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = all_pids()
        .into_iter()
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let (_, rest) = stat.rsplit_once(") ")?;
            let ppid = rest.split_whitespace().nth(1)?.parse().ok()?;
            Some((pid, ppid))
        })
        .collect();
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(parents.iter().filter(|(_, pp)| *pp == parent).map(|(p, _)| *p));
        i += 1;
    }
    found.remove(0);
    found
}

fn all_pids() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .map(|entries| entries.flatten().filter_map(|e| e.file_name().to_str()?.parse().ok()).collect())
        .unwrap_or_default()
}

/// Whether the server `pid` logged that it is aborting: "[ERROR] Aborting" after its own start line
/// ("Starting MariaDB ... as process PID"), in the log from `offset` (its length when the server was
/// spawned) on; an earlier server's abort in the same log does not count.
fn aborted_since_start(log: &Path, offset: u64, pid: u32) -> bool {
    let Ok(mut file) = std::fs::File::open(log) else { return false };
    if file.seek(SeekFrom::Start(offset)).is_err() {
        return false;
    }
    let mut bytes = Vec::new();
    if file.read_to_end(&mut bytes).is_err() {
        return false;
    }
    let text = String::from_utf8_lossy(&bytes);
    let Some(at) = text.find(&format!("as process {pid}\n")) else { return false };
    text[at..].contains("[ERROR] Aborting")
}

/// The last `lines` lines of a log file (its last 64 KiB at most), or why there are none.
pub fn tail(path: &Path, lines: usize) -> String {
    let Ok(mut file) = std::fs::File::open(path) else { return format!("({} cannot be read)", path.display()) };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let _ = file.seek(SeekFrom::Start(len.saturating_sub(64 * 1024)));
    let mut bytes = Vec::new();
    let _ = file.read_to_end(&mut bytes);
    let all: Vec<String> = bytes.lines().map_while(Result::ok).collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_node_gets_four_ports_in_a_row_and_a_name() {
        let layout = Layout::new(3, 25700, None).unwrap();
        assert_eq!(
            layout.nodes[2],
            NodeLayout { name: "n3".into(), port: 25708, gcomm_port: 25709, ist_port: 25710, sst_port: 25711 }
        );
        assert!(Layout::new(0, 25700, None).is_err());
        assert!(Layout::new(3, 65530, None).is_err());
        assert!(Layout::new(3, 80, None).is_err());
    }

    #[test]
    fn ports_inside_the_ephemeral_range_are_refused_and_ports_beside_it_are_not() {
        let range = (32768, 60999);
        assert!(Layout::new(3, 25700, None).unwrap().outside(range).is_ok());
        // 32756..=32767: the last port just below the range.
        assert!(Layout::new(3, 32756, None).unwrap().outside(range).is_ok());
        assert!(Layout::new(3, 61000, None).unwrap().outside(range).is_ok());
        let err = Layout::new(3, 32760, None).unwrap().outside(range).unwrap_err().to_string();
        assert!(err.starts_with("--base-port 32760 gives the nodes ports 32760..=32771, inside the kernel's ephemeral range 32768..=60999"), "{err}");
        assert!(Layout::new(3, 40000, None).unwrap().outside(range).is_err());
    }

    #[test]
    fn the_url_lists_every_node() {
        let cluster =
            GaleraCluster { dir: PathBuf::from("/x"), layout: Layout::new(3, 25700, Some("mysql".into())).unwrap() };
        assert_eq!(cluster.url(), "mysql://root@127.0.0.1:25700,127.0.0.1:25704,127.0.0.1:25708/isocheck");
    }

    #[test]
    fn a_directory_without_a_cluster_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let err = GaleraCluster::open(dir.path()).unwrap_err();
        assert!(err.to_string().contains("not a cluster directory"), "{err}");
    }

    #[test]
    fn a_node_that_is_not_running_is_an_error_naming_it_with_its_log_tail() {
        let dir = tempfile::tempdir().unwrap();
        let cluster = GaleraCluster { dir: dir.path().to_path_buf(), layout: Layout::new(2, 25700, None).unwrap() };
        std::fs::create_dir_all(dir.path().join("n2")).unwrap();
        let log: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        std::fs::write(dir.path().join("n2/error.log"), log).unwrap();
        let err = cluster.wait_synced(1, 2).unwrap_err().to_string();
        assert!(err.starts_with("node n2 (port 25704) exited; last status: n2 port 25704 not running"), "{err}");
        assert!(err.ends_with("line 11\nline 12\nline 13\nline 14\nline 15\nline 16\nline 17\nline 18\nline 19\nline 20\nline 21\nline 22\nline 23\nline 24\nline 25\nline 26\nline 27\nline 28\nline 29\nline 30"), "{err}");
        assert!(!err.contains("line 10\n"), "{err}");
    }

    #[test]
    fn only_the_current_servers_abort_counts() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("error.log");
        let start = |pid: u32| format!("2026-12-04 21:34:33 0 [Note] Starting MariaDB 10.11.19 as process {pid}\n");
        let aborting = "2026-12-04 21:35:15 0 [ERROR] Can't start server: Bind on TCP/IP port. Got error: 98\n\
                        2026-12-04 21:35:15 0 [ERROR] Aborting\n";
        let earlier = format!("{}{aborting}", start(10));
        std::fs::write(&log, &earlier).unwrap();
        assert!(aborted_since_start(&log, 0, 10));
        // A new server (pid 11) has not logged its start yet: the old abort is not its.
        assert!(!aborted_since_start(&log, earlier.len() as u64, 11));
        std::fs::write(&log, format!("{earlier}{}[Note] WSREP: joining\n", start(11))).unwrap();
        assert!(!aborted_since_start(&log, earlier.len() as u64, 11));
        std::fs::write(&log, format!("{earlier}{}{}{aborting}", "x".repeat(100_000), start(11))).unwrap();
        assert!(aborted_since_start(&log, earlier.len() as u64, 11), "however long the log between");
    }

    #[test]
    fn this_process_is_alive_and_a_made_up_one_is_not() {
        assert!(alive(std::process::id()));
        assert!(!alive(u32::MAX - 1));
    }
}
