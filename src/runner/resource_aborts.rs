//! Aborts that come from the server's resources rather than from conflicts: PostgreSQL's SQLSTATE
//! class 53 (insufficient resources; 53200 "out of shared memory" when the predicate-lock table of
//! serializable transactions is full), SQLite's `SQLITE_FULL`, `SQLITE_NOMEM` and `SQLITE_IOERR`. The
//! adapters record them as aborts (`fail`, the cause being the code), so a run goes on; this module owns
//! the `resource-aborts` flag a run raises when they make up most of its aborts, naming the setting the
//! server's own hint names. Classifying an error is the adapters' business, not this module's.

use std::collections::BTreeMap;

use checker::Flag;
use serde_json::json;

/// Whether an abort cause is a resource limit of the system.
pub fn is_resource_cause(cause: &str) -> bool {
    (cause.len() == 5 && cause.starts_with("53")) || matches!(cause, "SQLITE_FULL" | "SQLITE_NOMEM" | "SQLITE_IOERR")
}

/// The `resource-aborts` flag: raised when resource causes account for at least half of the run's
/// aborts (`fail`). `causes` counts failures by cause, `messages` holds the system's first message for
/// each.
pub fn resource_aborts(fail: u64, causes: &BTreeMap<String, u64>, messages: &BTreeMap<String, String>) -> Option<Flag> {
    let resource: Vec<(&String, u64)> =
        causes.iter().filter(|(c, _)| is_resource_cause(c)).map(|(c, n)| (c, *n)).collect();
    let total: u64 = resource.iter().map(|(_, n)| n).sum();
    if total == 0 || total * 2 < fail {
        return None;
    }
    let (top, top_n) = resource.iter().max_by_key(|(c, n)| (*n, std::cmp::Reverse(*c))).copied()?;
    let message = messages.get(top).map(String::as_str).unwrap_or("");
    let setting = setting_named(message);
    let said = if message.is_empty() { String::new() } else { format!(" (the system said: {message})") };
    let advice = match &setting {
        Some(setting) => format!(
            "Raise {setting}, as the server's hint says (for PostgreSQL it takes a restart), or run fewer clients at \
             once"
        ),
        None => "Give the system more of the resource it ran out of, or run fewer clients at once".to_string(),
    };
    let text = format!(
        "{total} of the {fail} aborted transactions failed for lack of a resource, not on a conflict; most were {top} \
         ({top_n}){said}. Such transactions are recorded as aborts and the run goes on, but the abort rate then \
         measures the system's limits more than its concurrency control. {advice}."
    );
    let mut figures = serde_json::Map::new();
    figures.insert("resource_aborts".into(), json!(total));
    figures.insert("aborts".into(), json!(fail));
    figures
        .insert("by_cause".into(), json!(resource.iter().map(|(c, n)| ((*c).clone(), *n)).collect::<BTreeMap<_, _>>()));
    if let Some(setting) = setting {
        figures.insert("setting".into(), json!(setting));
    }
    Some(Flag { name: "resource-aborts".into(), message: text, figures })
}

/// The setting a server's hint asks to raise: PostgreSQL 15 writes "You might need to increase
/// max_pred_locks_per_transaction.", PostgreSQL 18 quotes the name ("... increase
/// \"max_pred_locks_per_transaction\".").
fn setting_named(message: &str) -> Option<String> {
    let rest = &message[message.find("increase ")? + "increase ".len()..];
    let rest = rest.strip_prefix('"').unwrap_or(rest);
    let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PG_53200: &str =
        "ERROR: out of shared memory (hint: You might need to increase max_pred_locks_per_transaction.)";

    fn counts(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
        pairs.iter().map(|(c, n)| (c.to_string(), *n)).collect()
    }

    fn messages(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(c, m)| (c.to_string(), m.to_string())).collect()
    }

    #[test]
    fn mostly_53200_names_the_setting_from_the_servers_hint() {
        let flag = resource_aborts(100, &counts(&[("53200", 60), ("40001", 40)]), &messages(&[("53200", PG_53200)]));
        let flag = flag.expect("the flag");
        assert_eq!(flag.name, "resource-aborts");
        assert_eq!(flag.figures["setting"], json!("max_pred_locks_per_transaction"));
        assert_eq!(flag.figures["resource_aborts"], json!(60));
        assert!(
            flag.message.starts_with("60 of the 100 aborted transactions failed for lack of a resource"),
            "{}",
            flag.message
        );
        assert!(flag.message.contains("Raise max_pred_locks_per_transaction, as the server's hint says"));
    }

    #[test]
    fn postgresql_18s_quoted_setting_is_named_too() {
        let pg18 = "ERROR: out of shared memory (hint: You might need to increase \"max_pred_locks_per_transaction\".)";
        let flag = resource_aborts(100, &counts(&[("53200", 60)]), &messages(&[("53200", pg18)])).expect("the flag");
        assert_eq!(flag.figures["setting"], json!("max_pred_locks_per_transaction"));
        assert_eq!(setting_named("You might need to increase \"\"."), None);
    }

    #[test]
    fn near_miss_a_minority_of_resource_aborts_raises_nothing() {
        let flag = resource_aborts(100, &counts(&[("53200", 49), ("40001", 51)]), &messages(&[("53200", PG_53200)]));
        assert_eq!(flag, None);
        assert_eq!(resource_aborts(10, &counts(&[("40001", 10)]), &BTreeMap::new()), None);
    }

    #[test]
    fn without_a_hint_the_flag_names_no_setting() {
        let flag = resource_aborts(
            4,
            &counts(&[("SQLITE_FULL", 4)]),
            &messages(&[("SQLITE_FULL", "database or disk is full")]),
        );
        let flag = flag.expect("the flag");
        assert!(!flag.figures.contains_key("setting"));
        assert!(
            flag.message.contains("most were SQLITE_FULL (4) (the system said: database or disk is full)"),
            "{}",
            flag.message
        );
    }

    #[test]
    fn resource_causes_are_class_53_and_sqlites_own() {
        for cause in ["53200", "53100", "53000", "SQLITE_NOMEM"] {
            assert!(is_resource_cause(cause), "{cause}");
        }
        for cause in ["40001", "5320", "SQLITE_BUSY", "connection lost"] {
            assert!(!is_resource_cause(cause), "{cause}");
        }
    }
}
