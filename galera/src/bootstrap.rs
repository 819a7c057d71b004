//! Which node a Galera cluster restarts from after every node stopped (a restart, a power failure):
//! the most advanced one, as Galera's documentation prescribes for a whole-cluster recovery
//! (<https://galeracluster.com/library/documentation/crash-recovery.html>): each node's position is
//! `UUID:SEQNO`, from `grastate.dat` after a clean stop or from `mariadbd --wsrep-recover` after a crash;
//! the highest seqno bootstraps, a tie going to the node Galera marked `safe_to_bootstrap: 1` (the last
//! to leave). Bootstrapping a stale node starts a new history from its older data, and the others are
//! then overwritten by state transfer from it: committed data destroyed. So when the positions cannot
//! tell (a node's data does not recover, or the nodes hold different cluster histories) the choice is
//! refused, naming every node and its position. Reading the files and starting the servers is
//! [`crate::GaleraCluster`]'s; this module owns the positions and the choice.

use crate::error::ClusterError;

/// The UUID of a node that holds no cluster state (it never finished a state transfer).
pub const ZERO_UUID: &str = "00000000-0000-0000-0000-000000000000";

/// A node's place in a cluster history: the history's UUID and the last write-set applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WsrepPosition {
    /// The cluster history's UUID.
    pub uuid: String,
    /// The seqno of the last write-set the node applied (-1: none known).
    pub seqno: i64,
}

impl WsrepPosition {
    /// A position from its parts; `None` for the zero UUID or an empty one.
    pub fn new(uuid: &str, seqno: i64) -> Option<WsrepPosition> {
        let uuid = uuid.trim();
        (!uuid.is_empty() && uuid != ZERO_UUID).then(|| WsrepPosition { uuid: uuid.to_string(), seqno })
    }

    /// Parses `UUID:SEQNO`, as `--wsrep-recover` prints it.
    pub fn parse(text: &str) -> Option<WsrepPosition> {
        let (uuid, seqno) = text.trim().rsplit_once(':')?;
        WsrepPosition::new(uuid, seqno.trim().parse().ok()?)
    }
}

impl std::fmt::Display for WsrepPosition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.uuid, self.seqno)
    }
}

/// What a stopped node's data says of its position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Known {
    /// A position in a cluster history.
    At(WsrepPosition),
    /// No cluster state at all (the zero UUID): nothing of the cluster's to lose.
    Empty,
    /// The position could not be read: the reason.
    Unknown(String),
}

impl Known {
    /// From `--wsrep-recover`'s `UUID:SEQNO`.
    pub fn from_recovered(text: &str) -> Known {
        match WsrepPosition::parse(text) {
            Some(p) if p.seqno >= 0 => Known::At(p),
            Some(p) => Known::Unknown(format!("recovered {p}, no seqno")),
            None if text.trim().starts_with(ZERO_UUID) => Known::Empty,
            None => Known::Unknown(format!("recovered {text:?}, not a position")),
        }
    }

    /// In words, for errors and records: the position, `empty`, or `unknown (why)`.
    pub fn describe(&self) -> String {
        match self {
            Known::At(p) => p.to_string(),
            Known::Empty => "empty (no cluster state)".into(),
            Known::Unknown(why) => format!("unknown ({why})"),
        }
    }
}

/// One stopped node's saved state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedState {
    /// The node's name.
    pub node: String,
    /// Its position.
    pub position: Known,
    /// Whether Galera marked it `safe_to_bootstrap: 1` (it left the cluster last, cleanly).
    pub safe_to_bootstrap: bool,
}

/// `grastate.dat`'s fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grastate {
    /// `uuid:`.
    pub uuid: String,
    /// `seqno:` (-1 while the server runs or after a crash).
    pub seqno: i64,
    /// `safe_to_bootstrap: 1`.
    pub safe_to_bootstrap: bool,
}

impl Grastate {
    /// Reads the fields of `grastate.dat`'s text; a missing field takes its default (seqno -1).
    pub fn parse(text: &str) -> Grastate {
        let mut state = Grastate { seqno: -1, ..Grastate::default() };
        for line in text.lines() {
            let Some((name, value)) = line.split_once(':') else { continue };
            let value = value.trim();
            match name.trim() {
                "uuid" => state.uuid = value.to_string(),
                "seqno" => state.seqno = value.parse().unwrap_or(-1),
                "safe_to_bootstrap" => state.safe_to_bootstrap = value == "1",
                _ => {}
            }
        }
        state
    }
}

/// What a whole-cluster recovery did: the node that bootstrapped, its position, and every node's
/// position before the restart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bootstrap {
    /// The node that bootstrapped.
    pub node: String,
    /// Its position.
    pub position: String,
    /// Every node's position before the restart, in words, by node.
    pub positions: Vec<(String, String)>,
}

/// The node (by index) to bootstrap from: the highest seqno, a tie to `safe_to_bootstrap`, then to the
/// first. An error naming every node and its position when a node's position is unknown, when the
/// nodes hold different cluster histories, or when no node holds any state.
pub fn choose_bootstrap(states: &[SavedState]) -> Result<usize, ClusterError> {
    let listed =
        || states.iter().map(|s| format!("{} {}", s.node, s.position.describe())).collect::<Vec<_>>().join(", ");
    let refuse = |why: &str| Err(ClusterError::CannotBootstrap { why: why.to_string(), positions: listed() });
    if let Some(unknown) = states.iter().find(|s| matches!(s.position, Known::Unknown(_))) {
        return refuse(&format!("the position of {} is unknown, so it may be the most advanced", unknown.node));
    }
    let known: Vec<(usize, &SavedState, &WsrepPosition)> = states
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match &s.position {
            Known::At(p) => Some((i, s, p)),
            _ => None,
        })
        .collect();
    let Some((_, _, first)) = known.first() else { return refuse("no node holds any cluster state") };
    if known.iter().any(|(_, _, p)| p.uuid != first.uuid) {
        return refuse("the nodes hold different cluster histories (UUIDs)");
    }
    let chosen =
        known.iter().max_by_key(|(i, s, p)| (p.seqno, s.safe_to_bootstrap, std::cmp::Reverse(*i))).map(|(i, _, _)| *i);
    chosen.map_or_else(|| refuse("no node holds any cluster state"), Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    const U: &str = "7ba71e21-f028-11f1-b75e-02aa798b55dd";

    fn at(node: &str, seqno: i64, safe: bool) -> SavedState {
        SavedState {
            node: node.into(),
            position: Known::At(WsrepPosition::new(U, seqno).unwrap()),
            safe_to_bootstrap: safe,
        }
    }

    #[test]
    fn the_highest_seqno_bootstraps_even_when_another_node_is_marked_safe() {
        // n1 was down before the restart: older data, though it may be the one marked safe.
        let states = [at("n1", 10, true), at("n2", 42, false), at("n3", 41, false)];
        assert_eq!(choose_bootstrap(&states).unwrap(), 1);
    }

    #[test]
    fn a_tie_goes_to_the_node_marked_safe_then_to_the_first() {
        assert_eq!(choose_bootstrap(&[at("n1", 42, false), at("n2", 42, false), at("n3", 42, true)]).unwrap(), 2);
        assert_eq!(choose_bootstrap(&[at("n1", 42, false), at("n2", 42, false), at("n3", 41, true)]).unwrap(), 0);
    }

    #[test]
    fn an_empty_node_is_passed_over_and_an_unknown_one_refuses_naming_every_position() {
        let empty = SavedState { node: "n1".into(), position: Known::Empty, safe_to_bootstrap: false };
        assert_eq!(choose_bootstrap(&[empty, at("n2", 5, false)]).unwrap(), 1);
        let unknown = SavedState {
            node: "n1".into(),
            position: Known::Unknown("InnoDB: page corrupt".into()),
            safe_to_bootstrap: false,
        };
        let err = choose_bootstrap(&[unknown, at("n2", 5, false)]).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "cannot choose the node to bootstrap the cluster from: the position of n1 is unknown, so it may be \
                 the most advanced; positions: n1 unknown (InnoDB: page corrupt), n2 {U}:5"
            )
        );
    }

    #[test]
    fn different_histories_or_no_state_refuse() {
        let other = SavedState {
            node: "n2".into(),
            position: Known::At(WsrepPosition::new("11111111-f028-11f1-b75e-02aa798b55dd", 50).unwrap()),
            safe_to_bootstrap: false,
        };
        let err = choose_bootstrap(&[at("n1", 5, false), other]).unwrap_err().to_string();
        assert!(err.contains("different cluster histories"), "{err}");
        let empty = SavedState { node: "n1".into(), position: Known::Empty, safe_to_bootstrap: true };
        let err = choose_bootstrap(&[empty]).unwrap_err().to_string();
        assert!(err.contains("no node holds any cluster state"), "{err}");
    }

    #[test]
    fn grastate_and_recovered_positions_parse() {
        let text = format!("# GALERA saved state\nversion: 2.1\nuuid:    {U}\nseqno:   17\nsafe_to_bootstrap: 1\n");
        assert_eq!(Grastate::parse(&text), Grastate { uuid: U.into(), seqno: 17, safe_to_bootstrap: true });
        assert_eq!(Grastate::parse("").seqno, -1);
        assert_eq!(Known::from_recovered(&format!("{U}:9")), Known::At(WsrepPosition { uuid: U.into(), seqno: 9 }));
        assert_eq!(Known::from_recovered(&format!("{ZERO_UUID}:-1")), Known::Empty);
        assert!(matches!(Known::from_recovered(&format!("{U}:-1")), Known::Unknown(_)));
    }
}
