//! Doctors on call: at least one doctor stays on call, in every read of all doctors and at the end. A
//! positive row value means on call. When a read finds nobody on call, the transactions that took the
//! doctors it saw off call are named (written values are unique, so each value read names its writer),
//! with what each of them read: typically each saw another doctor still on call, in a snapshot that did
//! not include the other's leaving, which is write skew.

use serde_json::json;

use super::{SHOWN, View, figures, group_by_values, list, names, op_names};
use crate::graph::TxnId;
use crate::result::Invariant;

pub(super) fn check(view: &View<'_>) -> Vec<Invariant> {
    let reads = view.full_reads();
    let nobody: Vec<_> = reads.iter().filter(|(_, v)| v.iter().all(|&x| x <= 0)).collect();
    let doctors = view.keys.len();
    let every_read_figures = figures([
        ("doctors", json!(doctors)),
        ("reads_of_all_doctors", json!(reads.len())),
        ("reads_with_nobody_on_call", json!(nobody.len())),
    ]);
    let every_read = if nobody.is_empty() {
        let text = format!("Every one of {} reads of all {doctors} doctors found someone on call.", reads.len());
        view.invariant("on-call-in-every-read", &[], text, every_read_figures)
    } else {
        let n = nobody.len();
        let mut text =
            format!("{n} {} of all {doctors} doctors found nobody on call:", if n == 1 { "read" } else { "reads" });
        let mut ids: Vec<TxnId> = Vec::new();
        let groups = group_by_values(nobody.iter().map(|(t, values)| (t.id, values)));
        for (readers, values) in groups.iter().take(SHOWN) {
            text.push_str(&format!("\n  {} read {}", names(view, readers), view.rows_text(values)));
            ids.extend(readers);
            let leavers = leavers(view, values);
            if !leavers.is_empty() {
                let names: Vec<String> = leavers.iter().map(|(id, _)| view.name(*id)).collect();
                text.push_str(&format!("; the doctors were taken off call by {}:", list(&names)));
                for (id, seen) in &leavers {
                    text.push_str(&format!("\n    {} had read {}", view.name(*id), seen));
                    ids.push(*id);
                }
            }
        }
        if groups.len() > SHOWN {
            text.push_str(&format!("\n  ... and {} more states with nobody on call", groups.len() - SHOWN));
        }
        view.invariant("on-call-in-every-read", &ids, text, every_read_figures)
    };
    let last = reads.iter().rev().find(|(t, _)| t.f == op_names::READ);
    let at_the_end = match last {
        None => view.invariant(
            "on-call-at-the-end",
            &[],
            "The history has no final read of all doctors, so the end could not be checked.".into(),
            figures([("on_call_at_the_end", json!(null))]),
        ),
        Some((t, values)) => {
            let on_call = values.iter().filter(|&&v| v > 0).count();
            let text = format!("The final read ({}) found {on_call} of {doctors} doctors on call.", view.name(t.id));
            let broken = if on_call == 0 { vec![t.id] } else { Vec::new() };
            view.invariant("on-call-at-the-end", &broken, text, figures([("on_call_at_the_end", json!(on_call))]))
        }
    };
    vec![every_read, at_the_end]
}

/// The committed transactions that wrote the off-call values of a read, with what each had read.
fn leavers(view: &View<'_>, values: &[i64]) -> Vec<(TxnId, String)> {
    let mut out: Vec<(TxnId, String)> = Vec::new();
    for (key, &value) in view.keys.iter().zip(values) {
        let Some(&id) = view.writers.get(&(key, value)) else { continue };
        if out.iter().any(|(seen, _)| *seen == id) {
            continue;
        }
        let t = &view.all[id as usize];
        let seen = view.read_all(t).map_or_else(
            || t.reads.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", "),
            |v| view.rows_text(&v),
        );
        out.push((id, format!("{seen} and took doctor {key} off call")));
    }
    out
}
