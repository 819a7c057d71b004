//! What a run did to its cluster, read from its history: the `degraded-cluster` flag, raised when a
//! node the nemesis faulted failed to come back (its restart, or the fault itself, answered an error)
//! or stayed down longer than [`DOWN_THRESHOLD`], with the node, the reason its log gave and how long;
//! and the `one-node-commits` flag, raised when almost all of a run's commits went to one node of a
//! cluster, so that its verdict says little of the cluster as a whole. A run under such a fault tested
//! a smaller cluster than it was asked to, and Jepsen's reports call that out the same way. The commits
//! per node that flag reads are counted here too ([`commits_per_node`], also a figure of `run.json`).
//! Injecting the faults is the nemesis's; this module only reads what it recorded (`node` on every op,
//! an `error` in a fault's value).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use checker::Flag;
use histories::{Function, History, OpType, OpValue, Process};
use serde_json::json;

/// Committed transactions by the node their completion names (empty when no op names one).
pub fn commits_per_node(history: &History) -> BTreeMap<String, u64> {
    let mut by_node: BTreeMap<String, u64> = BTreeMap::new();
    for t in history.transactions().filter(|t| *t.invoke.f() != Function::Init) {
        if t.outcome() == OpType::Ok
            && let Some(node) = t.op().node()
        {
            *by_node.entry(node.to_string()).or_default() += 1;
        }
    }
    by_node
}

/// How long a node may be down (from the fault's invocation to the completion of the restart that
/// brought it back) before the run is degraded: a restart by IST takes seconds here, a full state
/// transfer tens.
pub const DOWN_THRESHOLD: Duration = Duration::from_secs(60);

/// The share of commits on one node above which `one-node-commits` is raised.
const ONE_NODE_SHARE: f64 = 0.9;

/// Fewer commits than this say nothing of how a run spread.
const ONE_NODE_MIN_COMMITS: u64 = 20;

/// The faults that take a node down, and the operation that brings it back.
const DOWN_UP: [(&str, &str); 3] =
    [("kill-node", "restart-node"), ("kill-all", "recover-cluster"), ("partition", "heal-partition")];

/// One spell of a node being down, as the history shows it.
#[derive(Debug, Clone, PartialEq)]
struct Spell {
    node: String,
    /// When the fault was invoked (nanoseconds since the run began).
    since: i64,
    /// When the completion that brought the node back came, if one did.
    until: Option<i64>,
    /// Why it did not come back when asked, from the error recorded.
    reason: Option<String>,
}

/// The `degraded-cluster` flag, if a node failed to come back or stayed down longer than `threshold`.
pub fn degraded_cluster(history: &History, threshold: Duration) -> Option<Flag> {
    let end = history.ops().iter().filter_map(|op| op.time()).max().unwrap_or(0);
    // Spells under way (not back yet), by node, and those over.
    let mut open: BTreeMap<String, Spell> = BTreeMap::new();
    let mut spells: Vec<Spell> = Vec::new();
    for op in history.ops().iter().filter(|op| op.process() == Process::Nemesis) {
        let f = op.f().as_str();
        let value = match &op.value {
            OpValue::Other(v) => v.as_ref().clone(),
            _ => serde_json::Value::Null,
        };
        let named = value.get("node").and_then(|n| n.as_str()).or(op.node()).map(str::to_string);
        let nodes: Vec<String> = match named.as_deref() {
            Some("all") => match value.get("positions").and_then(|p| p.as_object()) {
                Some(p) => p.keys().cloned().collect(),
                None if !open.is_empty() => open.keys().cloned().collect(),
                None => vec!["all".to_string()],
            },
            Some(node) => vec![node.to_string()],
            None => Vec::new(),
        };
        let time = op.time().unwrap_or(end);
        if op.kind == OpType::Invoke {
            if DOWN_UP.iter().any(|(fault, _)| *fault == f) {
                for node in nodes {
                    open.entry(node.clone()).or_insert(Spell { node, since: time, until: None, reason: None });
                }
            }
            continue;
        }
        let heals = DOWN_UP.iter().any(|(_, up)| *up == f) || f == "restart-cluster";
        match value.get("error").and_then(|e| e.as_str()).map(reason_from) {
            // A fault or its healing failed: the node is down from here (or since its fault) on.
            Some(reason) => {
                for node in nodes {
                    let spell =
                        open.entry(node.clone()).or_insert(Spell { node, since: time, until: None, reason: None });
                    spell.reason = Some(reason.clone());
                }
            }
            None if heals => {
                let back: Vec<String> = if f == "restart-cluster" || named.as_deref() == Some("all") {
                    open.keys().cloned().collect()
                } else {
                    nodes
                };
                for node in back {
                    if let Some(mut spell) = open.remove(&node) {
                        spell.until = Some(time);
                        spells.push(spell);
                    }
                }
            }
            None => {}
        }
    }
    spells.extend(open.into_values());
    let threshold_ns = i64::try_from(threshold.as_nanos()).unwrap_or(i64::MAX);
    let down_ns = |s: &Spell| s.until.unwrap_or(end) - s.since;
    let bad: Vec<&Spell> = spells.iter().filter(|s| s.until.is_none() || down_ns(s) > threshold_ns).collect();
    if bad.is_empty() {
        return None;
    }
    let words: Vec<String> = bad
        .iter()
        .map(|s| {
            let how = if s.until.is_some() { "came back" } else { "did not come back before the run ended" };
            let why = s.reason.as_ref().map(|r| format!(" ({r})")).unwrap_or_default();
            format!("{} was down {:.1} s and {how}{why}", s.node, down_ns(s) as f64 / 1e9)
        })
        .collect();
    let message = format!(
        "The cluster ran degraded: {}. Meanwhile the clients ran on the other nodes only, so this run tested a \
         smaller cluster than it was asked to; see each node's error.log in the cluster's directory.",
        words.join("; ")
    );
    let nodes: Vec<serde_json::Value> = bad
        .iter()
        .map(|s| {
            json!({
                "node": s.node,
                "down_s": (down_ns(s) as f64 / 1e6).round() / 1e3,
                "came_back": s.until.is_some(),
                "reason": s.reason,
            })
        })
        .collect();
    let mut figures = serde_json::Map::new();
    figures.insert("nodes".into(), json!(nodes));
    figures.insert("threshold_s".into(), json!(threshold.as_secs_f64()));
    Some(Flag { name: "degraded-cluster".into(), message, figures })
}

/// The reason a failed fault gives: the first `[ERROR]` line of the log tail its error quotes, or the
/// error's first line.
fn reason_from(error: &str) -> String {
    let line = error.lines().find(|l| l.contains("[ERROR]")).or_else(|| error.lines().next()).unwrap_or(error);
    let line = line.split_once("[ERROR] ").map_or(line, |(_, rest)| rest);
    line.trim().to_string()
}

/// The `one-node-commits` flag, if the history ran on more than one node and at least 90% of its
/// commits (of at least 20) went to one.
pub fn one_node_commits(history: &History, commits_per_node: &BTreeMap<String, u64>) -> Option<Flag> {
    let nodes: BTreeSet<&str> = history.ops().iter().filter_map(|op| op.node()).collect();
    one_node_commits_among(nodes.len(), commits_per_node)
}

/// [`one_node_commits`] of a history whose operations name `nodes` nodes in all.
pub fn one_node_commits_among(nodes: usize, commits_per_node: &BTreeMap<String, u64>) -> Option<Flag> {
    let total: u64 = commits_per_node.values().sum();
    let (top, top_n) = commits_per_node.iter().max_by_key(|(node, n)| (**n, std::cmp::Reverse(*node)))?;
    if nodes < 2 || total < ONE_NODE_MIN_COMMITS || (*top_n as f64) < ONE_NODE_SHARE * total as f64 {
        return None;
    }
    let share = *top_n as f64 / total as f64;
    let message = format!(
        "{top_n} of the {total} commits ({:.0}%) went to {top}, of the {} nodes the history names: the verdict says \
         little of the other nodes, nor of how they interleave (a node down, or clients that could reach only {top}; \
         with --node-affinity it is by design).",
        share * 100.0,
        nodes
    );
    let mut figures = serde_json::Map::new();
    figures.insert("node".into(), json!(top));
    figures.insert("commits".into(), json!(top_n));
    figures.insert("total".into(), json!(total));
    figures.insert("commits_per_node".into(), json!(commits_per_node));
    Some(Flag { name: "one-node-commits".into(), message, figures })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(lines: &[String]) -> History {
        histories::parse(&lines.join("\n"), histories::Format::JsonLines, "t.jsonl").expect("a history")
    }

    fn nemesis(kind: &str, f: &str, node: &str, time_s: f64, value: serde_json::Value) -> String {
        let time = (time_s * 1e9) as i64;
        json!({"type": kind, "process": "nemesis", "f": f, "node": node, "time": time, "value": value}).to_string()
    }

    fn txn(process: u64, node: &str, time_s: f64, key: i64) -> [String; 2] {
        let time = (time_s * 1e9) as i64;
        [
            json!({"type": "invoke", "process": process, "node": node, "time": time, "value": [["append", key, 1]]})
                .to_string(),
            json!({"type": "ok", "process": process, "node": node, "time": time + 1000, "value": [["append", key, 1]]})
                .to_string(),
        ]
    }

    #[test]
    fn a_node_whose_restart_failed_degrades_the_run_with_its_reason_and_time() {
        let error = "node n2 (port 27180) exited; last status: n2 not running; the end of its log:\n\
                     2026-12-04 21:00:00 0 [Note] starting\n\
                     2026-12-04 21:00:01 0 [ERROR] Can't start server: Bind on TCP/IP port. Got error: 98: Address already in use\n\
                     2026-12-04 21:00:01 0 [ERROR] Aborting";
        let mut lines = vec![
            nemesis("invoke", "kill-node", "n2", 1.0, json!(null)),
            nemesis("info", "kill-node", "n2", 1.1, json!({"node": "n2"})),
            nemesis("invoke", "restart-node", "n2", 2.0, json!(null)),
            nemesis("info", "restart-node", "n2", 3.0, json!({"node": "n2", "error": error})),
        ];
        lines.extend(txn(0, "n1", 9.0, 1));
        let flag = degraded_cluster(&history(&lines), DOWN_THRESHOLD).expect("degraded");
        assert_eq!(flag.name, "degraded-cluster");
        assert_eq!(
            flag.figures["nodes"],
            json!([{"node": "n2", "down_s": 8.0, "came_back": false,
                    "reason": "Can't start server: Bind on TCP/IP port. Got error: 98: Address already in use"}])
        );
        assert!(
            flag.message.starts_with("The cluster ran degraded: n2 was down 8.0 s and did not come back"),
            "{}",
            flag.message
        );
    }

    #[test]
    fn a_node_back_within_the_threshold_is_no_flag_and_one_back_late_is() {
        let lines = |back_s: f64| {
            let mut lines = vec![
                nemesis("invoke", "kill-node", "n1", 1.0, json!(null)),
                nemesis("info", "kill-node", "n1", 1.1, json!({"node": "n1"})),
                nemesis("invoke", "restart-node", "n1", 2.0, json!(null)),
                nemesis("info", "restart-node", "n1", back_s, json!({"node": "n1", "rejoined": "ist"})),
            ];
            lines.extend(txn(0, "n2", back_s + 1.0, 1));
            history(&lines)
        };
        assert_eq!(degraded_cluster(&lines(5.0), DOWN_THRESHOLD), None);
        let flag = degraded_cluster(&lines(71.0), DOWN_THRESHOLD).expect("down 70 s");
        assert_eq!(flag.figures["nodes"], json!([{"node": "n1", "down_s": 70.0, "came_back": true, "reason": null}]));
    }

    #[test]
    fn a_killed_node_never_restarted_is_down_until_the_end() {
        let mut lines = vec![nemesis("invoke", "kill-node", "n3", 1.0, json!(null))];
        lines.extend(txn(0, "n1", 4.0, 1));
        let flag = degraded_cluster(&history(&lines), DOWN_THRESHOLD).expect("degraded");
        assert_eq!(flag.figures["nodes"][0]["came_back"], false);
        assert_eq!(flag.figures["nodes"][0]["down_s"], 3.0);
    }

    #[test]
    fn a_failed_restart_cluster_degrades_every_node_it_names() {
        let error = "cannot choose the node to bootstrap the cluster from: the position of n1 is unknown";
        let lines = vec![
            nemesis("invoke", "restart-cluster", "all", 1.0, json!(null)),
            nemesis("info", "restart-cluster", "all", 2.0, json!({"node": "all", "error": error})),
        ];
        let flag = degraded_cluster(&history(&lines), DOWN_THRESHOLD).expect("degraded");
        assert_eq!(flag.figures["nodes"][0]["node"], "all");
        assert!(flag.message.contains("the position of n1 is unknown"), "{}", flag.message);
    }

    #[test]
    fn commits_almost_all_on_one_node_are_flagged_and_a_spread_run_is_not() {
        let mut lines = Vec::new();
        for i in 0..19 {
            lines.extend(txn(0, "n1", f64::from(i), i64::from(i)));
        }
        lines.extend(txn(1, "n2", 30.0, 99));
        let history = history(&lines);
        let per_node = commits_per_node(&history);
        assert_eq!(per_node, BTreeMap::from([("n1".to_string(), 19), ("n2".to_string(), 1)]));
        let flag = one_node_commits(&history, &per_node).expect("19 of 20 on n1");
        assert_eq!(flag.figures["node"], "n1");
        assert!(flag.message.starts_with("19 of the 20 commits (95%) went to n1, of the 2 nodes"), "{}", flag.message);

        let spread: BTreeMap<String, u64> = BTreeMap::from([("n1".to_string(), 17), ("n2".to_string(), 3)]);
        assert_eq!(one_node_commits(&history, &spread), None, "85% is not almost all");
        let few: BTreeMap<String, u64> = BTreeMap::from([("n1".to_string(), 10)]);
        assert_eq!(one_node_commits(&history, &few), None, "too few commits to say");
    }
}
