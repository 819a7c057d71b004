//! Network partitions of a local Galera cluster: cutting one node off from the others and healing it,
//! on loopback, where every node shares 127.0.0.1 and ports are all that tell nodes apart.
//!
//! A node's outgoing connections come from ephemeral ports, so a port rule alone cannot tell a packet
//! node 1 sends to node 2 from one node 3 sends to node 2. The kernel can tell by the sender's cgroup
//! (iptables' `cgroup` match, cgroup v2): each server starts in a cgroup of its own
//! ([`spawn_command`] moves the shell that `exec`s it there, so every socket it opens is tagged), and a
//! partition of node i is rules in `OUTPUT` on `lo`, each tagged with a comment naming the cluster,
//! that drop both directions of every connection between node i's Galera ports (group communication,
//! IST, SST) and the others' ([`rules`]). Clients' connections (the SQL port) are
//! left alone, as in Jepsen, whose clients are not partitioned from their nodes. Needs root, cgroup v2
//! and `iptables` (Debian's `iptables` package); without them a partition is an error saying which is
//! missing. This module owns those rules and cgroups; the processes are `cluster`'s.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::ClusterError;
use crate::node_layout::NodeLayout;

/// Where cgroup v2 is mounted, if it is (`/sys/fs/cgroup` on current systems, `/sys/fs/cgroup/unified`
/// on hybrid ones).
pub(crate) fn cgroup2_mount() -> Option<PathBuf> {
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    mounts.lines().find_map(|line| {
        // `ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS ... - FSTYPE SOURCE SUPER`
        let (before, after) = line.split_once(" - ")?;
        let mount = before.split(' ').nth(4)?;
        (after.split_whitespace().next() == Some("cgroup2")).then(|| PathBuf::from(mount))
    })
}

/// A short tag naming the cluster under `dir` (an FNV-1a hash of its path), for cgroup names and rule
/// comments.
pub(crate) fn cluster_tag(dir: &Path) -> String {
    let hash = dir
        .to_string_lossy()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3));
    format!("isocheck-{:08x}", hash as u32)
}

/// The cgroup (relative to the cgroup v2 root) node `name` of the cluster tagged `tag` runs in.
fn node_cgroup(tag: &str, name: &str) -> String {
    format!("{tag}-{name}")
}

/// The command that starts `program` in node `name`'s cgroup, when this process may create one (root,
/// cgroup v2): a shell that moves itself into it and `exec`s the program, so the pid is the server's
/// and every socket it opens carries the cgroup. Otherwise the program itself.
pub(crate) fn spawn_command(program: &Path, tag: &str, name: &str) -> Command {
    let Some(root) = cgroup2_mount().filter(|_| nix::unistd::geteuid().is_root()) else {
        return Command::new(program);
    };
    let cgroup = root.join(node_cgroup(tag, name));
    if std::fs::create_dir_all(&cgroup).is_err() {
        return Command::new(program);
    }
    let mut command = Command::new("sh");
    command.arg("-c").arg("echo $$ > \"$0\" && exec \"$@\"").arg(cgroup.join("cgroup.procs")).arg(program);
    command
}

/// Whether `pid` runs in node `name`'s cgroup.
fn in_cgroup(pid: u32, tag: &str, name: &str) -> bool {
    let want = format!("0::/{}", node_cgroup(tag, name));
    std::fs::read_to_string(format!("/proc/{pid}/cgroup")).is_ok_and(|t| t.lines().any(|l| l.trim() == want))
}

/// The rules that cut node `i` off, as `iptables` arguments after `-A`/`-D OUTPUT`, in order. Both
/// directions of every connection between node i and another node are dropped, whichever side opened
/// it: a connection another node opened to node i by its ports (what is sent to them, and what node i's
/// cgroup sends from them); one node i opened to another by the connection's mark, set on node i's
/// first packet to the other's ports and matched on every packet of that connection either way (on
/// loopback both directions share one conntrack entry). A cut in one direction only would leave node i
/// hearing the others while they do not hear it.
fn rules(tag: &str, nodes: &[NodeLayout], i: usize) -> Vec<Vec<String>> {
    let ports = |n: &NodeLayout| format!("{},{},{}", n.gcomm_port, n.ist_port, n.sst_port);
    let comment = format!("{tag} partition {}", nodes[i].name);
    let mark = format!("0x{:x}", PARTITION_MARK + i as u32);
    let words = |w: &[&str]| w.iter().map(|s| (*s).to_string()).collect::<Vec<String>>();
    let cgroup = node_cgroup(tag, &nodes[i].name);
    let own = ports(&nodes[i]);
    let drop = ["-j", "DROP"];
    let mut rules = vec![
        words(&[&["-o", "lo", "-p", "tcp", "-m", "multiport", "--dports", &own][..], &drop].concat()),
        words(
            &[
                &["-o", "lo", "-p", "tcp", "-m", "cgroup", "--path", &cgroup, "-m", "multiport", "--sports", &own][..],
                &drop,
            ]
            .concat(),
        ),
    ];
    for (j, other) in nodes.iter().enumerate() {
        if j != i {
            let theirs = ports(other);
            rules.push(words(&[
                "-o",
                "lo",
                "-p",
                "tcp",
                "-m",
                "cgroup",
                "--path",
                &cgroup,
                "-m",
                "multiport",
                "--dports",
                &theirs,
                "-j",
                "CONNMARK",
                "--set-mark",
                &mark,
            ]));
        }
    }
    rules.push(words(&[&["-o", "lo", "-m", "connmark", "--mark", &mark][..], &drop].concat()));
    for rule in &mut rules {
        let at = rule.len() - if rule.contains(&"CONNMARK".to_string()) { 4 } else { 2 };
        rule.splice(at..at, words(&["-m", "comment", "--comment", &comment]));
    }
    rules
}

/// The connection mark of node i's partition is this plus i.
const PARTITION_MARK: u32 = 0x4c00;

fn iptables(action: &str, rule: &[String]) -> Result<(), ClusterError> {
    let out = Command::new("iptables").args(["-w", action, "OUTPUT"]).args(rule).output().map_err(|e| {
        ClusterError::Invalid(format!("a partition needs iptables (Debian package iptables), run as root: {e}"))
    })?;
    if out.status.success() {
        Ok(())
    } else {
        Err(ClusterError::Invalid(format!(
            "iptables {action} OUTPUT {}: {}",
            rule.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

/// Cuts node `i` (whose server is `pid`) off from the other nodes.
pub(crate) fn cut(tag: &str, nodes: &[NodeLayout], i: usize, pid: Option<u32>) -> Result<(), ClusterError> {
    let name = &nodes[i].name;
    match pid {
        Some(pid) if in_cgroup(pid, tag, name) => {}
        Some(pid) => {
            return Err(ClusterError::Invalid(format!(
                "node {name} (pid {pid}) does not run in its cgroup {} (a partition needs the servers started \
                 by this version of `isocheck cluster up`, as root, with cgroup v2)",
                node_cgroup(tag, name)
            )));
        }
        None => return Err(ClusterError::Invalid(format!("node {name} is not running"))),
    }
    for rule in rules(tag, nodes, i) {
        if let Err(e) = iptables("-A", &rule) {
            let _ = heal(tag, nodes, i);
            return Err(e);
        }
    }
    Ok(())
}

/// Removes the rules that cut node `i` off (each as often as it was added; none is not an error).
pub(crate) fn heal(tag: &str, nodes: &[NodeLayout], i: usize) -> Result<(), ClusterError> {
    for rule in rules(tag, nodes, i) {
        while iptables("-D", &rule).is_ok() {}
    }
    Ok(())
}

/// Removes every partition rule of the cluster and its nodes' cgroups (once their servers are gone).
pub(crate) fn clean_up(tag: &str, nodes: &[NodeLayout]) {
    for i in 0..nodes.len() {
        let _ = heal(tag, nodes, i);
    }
    if let Some(root) = cgroup2_mount() {
        for node in nodes {
            let _ = std::fs::remove_dir(root.join(node_cgroup(tag, &node.name)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes() -> Vec<NodeLayout> {
        (0..3)
            .map(|i| {
                let base = 27000 + 4 * i;
                NodeLayout {
                    name: format!("n{}", i + 1),
                    port: base,
                    gcomm_port: base + 1,
                    ist_port: base + 2,
                    sst_port: base + 3,
                }
            })
            .collect()
    }

    #[test]
    fn cutting_a_node_drops_what_reaches_its_galera_ports_and_what_its_cgroup_sends_to_the_others() {
        let rules = rules("isocheck-1", &nodes(), 1);
        let text: Vec<String> = rules.iter().map(|r| r.join(" ")).collect();
        assert_eq!(text.len(), 5, "{text:#?}");
        assert!(text[0].starts_with("-o lo -p tcp -m multiport --dports 27005,27006,27007 -m comment"), "{}", text[0]);
        assert!(text[1].contains("--path isocheck-1-n2 -m multiport --sports 27005,27006,27007"), "{}", text[1]);
        assert!(text[2].contains("--path isocheck-1-n2 -m multiport --dports 27001,27002,27003"), "{}", text[2]);
        assert!(text[2].ends_with("-j CONNMARK --set-mark 0x4c01"), "{}", text[2]);
        assert!(text[3].contains("--dports 27009,27010,27011"), "{}", text[3]);
        assert!(text[4].starts_with("-o lo -m connmark --mark 0x4c01 -m comment"), "{}", text[4]);
        for (k, rule) in text.iter().enumerate() {
            assert!(rule.contains("--comment isocheck-1 partition n2 -j"), "{rule}");
            assert_eq!(rule.ends_with("-j DROP"), k != 2 && k != 3, "{rule}");
        }
        assert!(text.iter().all(|r| !r.contains("27004") && !r.contains("27008")), "the SQL ports stay open");
    }

    #[test]
    fn the_tag_tells_clusters_apart() {
        assert_ne!(cluster_tag(Path::new("/tmp/a")), cluster_tag(Path::new("/tmp/b")));
        assert_eq!(cluster_tag(Path::new("/tmp/a")), cluster_tag(Path::new("/tmp/a")));
    }
}
