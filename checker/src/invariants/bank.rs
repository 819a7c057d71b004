//! The bank's invariants. Withdraw: no read shows a total below zero; the final total is the initial
//! total less the committed withdrawals; the committed withdrawals never take more than the initial total
//! (with a fixed amount: never more withdrawals than the total allowed), and those that did are named,
//! with the withdrawals that committed while they ran. Transfer (Jepsen's bank): every read of all
//! accounts sees the initial total, and no balance is ever negative.
//!
//! A withdrawal's amount is what it read of the account it wrote, less what it wrote. A withdrawal
//! whose outcome is unknown (`info`) may or may not have happened: its reads are unknown, so it is taken
//! to withdraw the amount the committed ones did, and the final total may be either.

use serde_json::json;

use super::{SHOWN, Txn, View, figures, group_by_values, list, names, op_names};
use crate::graph::TxnId;
use crate::result::Invariant;

/// A committed or possible withdrawal.
struct Withdrawal<'v, 'h> {
    txn: &'v Txn<'h>,
    /// What it took (unknown for an indeterminate one).
    amount: Option<i64>,
}

fn withdrawals<'v, 'h>(view: &'v View<'h>) -> (Vec<Withdrawal<'v, 'h>>, Vec<Withdrawal<'v, 'h>>) {
    let is_withdrawal = |t: &Txn<'_>| t.f == op_names::WITHDRAW && !t.writes.is_empty();
    let committed = view
        .committed()
        .into_iter()
        .filter(|t| is_withdrawal(t))
        .map(|txn| {
            let amount = txn.writes.iter().map(|&(k, after)| txn.read(k).map(|before| before - after)).sum();
            Withdrawal { txn, amount }
        })
        .collect();
    let possible = view
        .all
        .iter()
        .filter(|t| t.outcome == histories::OpType::Info && is_withdrawal(t))
        .map(|txn| Withdrawal { txn, amount: None })
        .collect();
    (committed, possible)
}

pub(super) fn withdraw(view: &View<'_>) -> Vec<Invariant> {
    let initial = view.initial_total();
    let (committed, possible) = withdrawals(view);
    let amounts: Vec<i64> = committed.iter().filter_map(|w| w.amount).collect();
    let withdrawn: i64 = amounts.iter().sum();
    let fixed_amount = amounts.first().copied().filter(|a| amounts.iter().all(|x| x == a));
    let overdrew = overdrawing(view, initial, &committed);
    vec![
        never_negative(view, &overdrew),
        final_total(view, initial, withdrawn, fixed_amount, committed.len(), possible.len()),
        within_total(view, initial, withdrawn, fixed_amount, &committed, &overdrew),
    ]
}

/// The committed withdrawals after which, in commit order, the total was below zero; with each, the
/// withdrawals that committed while it ran.
fn overdrawing(view: &View<'_>, initial: i64, committed: &[Withdrawal<'_, '_>]) -> Vec<(TxnId, String)> {
    let mut total = initial;
    let mut out = Vec::new();
    for (i, w) in committed.iter().enumerate() {
        let before = total;
        total -= w.amount.unwrap_or(0);
        if total >= 0 {
            continue;
        }
        let read: i64 = w.txn.reads.iter().map(|&(_, v)| v).sum();
        let during: Vec<String> = committed[..i]
            .iter()
            .filter(|other| other.txn.completed > w.txn.invoked)
            .map(|other| view.name(other.txn.id))
            .collect();
        let (key, _) = w.txn.writes[0];
        let mut text = format!(
            "{} read a total of {read} and withdrew {} from account {key}, but only {before} was left: after it the \
             total was {total}",
            view.name(w.txn.id),
            w.amount.unwrap_or(0),
        );
        if !during.is_empty() && read > before {
            text.push_str(&format!(
                "; it did not see {} withdrawn by withdrawals that committed while it ran ({}): write skew",
                read - before,
                list(&during)
            ));
        }
        out.push((w.txn.id, text));
    }
    out
}

fn never_negative(view: &View<'_>, overdrew: &[(TxnId, String)]) -> Invariant {
    let reads = view.full_reads();
    let negative: Vec<(&Txn<'_>, i64, &Vec<i64>)> =
        reads.iter().map(|(t, v)| (*t, v.iter().sum::<i64>(), v)).filter(|(_, total, _)| *total < 0).collect();
    let lowest = reads.iter().map(|(_, v)| v.iter().sum::<i64>()).min();
    let figures = figures([
        ("reads_of_all_accounts", json!(reads.len())),
        ("lowest_total_read", json!(lowest)),
        ("reads_below_zero", json!(negative.len())),
    ]);
    if negative.is_empty() {
        let text = format!(
            "No read of all accounts shows a total below 0 ({} reads, the lowest {}).",
            reads.len(),
            lowest.map_or("none".to_string(), |l| l.to_string())
        );
        return view.invariant("total-never-negative", &[], text, figures);
    }
    let n = negative.len();
    let mut text =
        format!("{n} {} of all accounts {} a total below 0:", reads_word(n), if n == 1 { "shows" } else { "show" });
    let groups = group_by_values(negative.iter().map(|(t, _, values)| (t.id, *values)));
    for (readers, values) in groups.iter().take(SHOWN) {
        let total: i64 = values.iter().sum();
        text.push_str(&format!("\n  {} read {} (total {total})", names(view, readers), view.rows_text(values)));
    }
    if groups.len() > SHOWN {
        text.push_str(&format!("\n  ... and {} more states below 0", groups.len() - SHOWN));
    }
    if !overdrew.is_empty() {
        text.push_str(&format!(
            "\nThe withdrawals that overdrew: {}.",
            list(&overdrew.iter().map(|(id, _)| view.name(*id)).collect::<Vec<_>>())
        ));
    }
    let ids: Vec<TxnId> = negative.iter().map(|(t, _, _)| t.id).collect();
    view.invariant("total-never-negative", &ids, text, figures)
}

fn final_total(
    view: &View<'_>,
    initial: i64,
    withdrawn: i64,
    amount: Option<i64>,
    committed: usize,
    possible: usize,
) -> Invariant {
    let last = view.full_reads().into_iter().rfind(|(t, _)| t.f == op_names::READ);
    let highest = initial - withdrawn;
    // Each indeterminate withdrawal may have taken the amount too.
    let lowest = amount.map(|a| highest - a * possible as i64);
    let expected = match (possible, lowest) {
        (0, _) => json!(highest),
        (_, Some(low)) => json!([low, highest]),
        (_, None) => json!([null, highest]),
    };
    let mut figures = figures([
        ("initial_total", json!(initial)),
        ("committed_withdrawals", json!(committed)),
        ("withdrawn", json!(withdrawn)),
        ("indeterminate_withdrawals", json!(possible)),
        ("expected_final_total", expected),
    ]);
    let Some((t, values)) = last else {
        figures.insert("final_total".into(), json!(null));
        let text = "The history has no final read of all accounts, so the final total could not be checked.".into();
        return view.invariant("final-total", &[], text, figures);
    };
    let total: i64 = values.iter().sum();
    figures.insert("final_total".into(), json!(total));
    let fits = total <= highest && lowest.is_none_or(|low| total >= low);
    let expectation = if possible == 0 {
        format!("{initial} - {withdrawn} = {highest}")
    } else {
        format!(
            "between {} and {highest}, as {possible} withdrawals may or may not have happened",
            lowest.map_or("anything".to_string(), |l| l.to_string())
        )
    };
    if fits {
        let text = format!(
            "The final read ({}) found a total of {total}: the initial {initial} less the {committed} committed \
             withdrawals ({expectation}).",
            view.name(t.id)
        );
        return view.invariant("final-total", &[], text, figures);
    }
    let text = format!(
        "The final read ({}) found a total of {total} ({}), but the initial total less the {committed} committed \
         withdrawals is {expectation}: {}",
        view.name(t.id),
        view.rows_text(&values),
        if total > highest {
            "some committed withdrawal was lost (a lost update) or undone"
        } else {
            "money left that no committed withdrawal took"
        }
    );
    view.invariant("final-total", &[t.id], text, figures)
}

fn within_total(
    view: &View<'_>,
    initial: i64,
    withdrawn: i64,
    amount: Option<i64>,
    committed: &[Withdrawal<'_, '_>],
    overdrew: &[(TxnId, String)],
) -> Invariant {
    let allowed = amount.map(|a| initial.max(0) / a);
    let figures = figures([
        ("initial_total", json!(initial)),
        ("amount", json!(amount)),
        ("allowed_withdrawals", json!(allowed)),
        ("committed_withdrawals", json!(committed.len())),
        ("withdrawn", json!(withdrawn)),
        ("overdrawing_withdrawals", json!(overdrew.len())),
    ]);
    let bound = match (amount, allowed) {
        (Some(a), Some(n)) => {
            format!("{} withdrawals of {a} took {withdrawn}, and {initial} allowed {n}", committed.len())
        }
        _ => format!("{} withdrawals took {withdrawn} of {initial}", committed.len()),
    };
    if overdrew.is_empty() {
        return view.invariant("withdrawals-within-total", &[], format!("{bound}: within the total."), figures);
    }
    let n = overdrew.len();
    let mut text = format!("{bound}: {n} {} overdrew.", if n == 1 { "withdrawal" } else { "withdrawals" });
    for (_, why) in overdrew.iter().take(SHOWN) {
        text.push_str(&format!("\n  {why}."));
    }
    if overdrew.len() > SHOWN {
        text.push_str(&format!("\n  ... and {} more", overdrew.len() - SHOWN));
    }
    let ids: Vec<TxnId> = overdrew.iter().map(|(id, _)| *id).collect();
    view.invariant("withdrawals-within-total", &ids, text, figures)
}

pub(super) fn transfer(view: &View<'_>) -> Vec<Invariant> {
    let initial = view.initial_total();
    let reads: Vec<_> = view.full_reads().into_iter().filter(|(t, _)| t.f == op_names::READ).collect();
    let wrong: Vec<_> = reads.iter().filter(|(_, v)| v.iter().sum::<i64>() != initial).collect();
    let totals: Vec<i64> = reads.iter().map(|(_, v)| v.iter().sum()).collect();
    let preserved_figures = figures([
        ("initial_total", json!(initial)),
        ("reads_of_all_accounts", json!(reads.len())),
        ("wrong_totals", json!(wrong.len())),
        ("lowest_total_read", json!(totals.iter().min())),
        ("highest_total_read", json!(totals.iter().max())),
    ]);
    let preserved = if wrong.is_empty() {
        let text = format!("Every one of {} reads of all accounts saw the initial total, {initial}.", reads.len());
        view.invariant("total-preserved", &[], text, preserved_figures)
    } else {
        let mut text = format!(
            "{} of {} {} of all accounts saw a total other than the initial {initial}:",
            wrong.len(),
            reads.len(),
            reads_word(reads.len())
        );
        let groups = group_by_values(wrong.iter().map(|(t, values)| (t.id, values)));
        for (readers, values) in groups.iter().take(SHOWN) {
            let total: i64 = values.iter().sum();
            text.push_str(&format!("\n  {} read {} (total {total})", names(view, readers), view.rows_text(values)));
        }
        if groups.len() > SHOWN {
            text.push_str(&format!("\n  ... and {} more wrong states", groups.len() - SHOWN));
        }
        let ids: Vec<TxnId> = wrong.iter().map(|(t, _)| t.id).collect();
        view.invariant("total-preserved", &ids, text, preserved_figures)
    };
    let negative: Vec<(&Txn<'_>, &histories::Key, i64)> = view
        .committed()
        .into_iter()
        .flat_map(|t| t.reads.iter().filter(|(_, v)| *v < 0).map(move |&(k, v)| (t, k, v)))
        .collect();
    let negative_figures = figures([("negative_balances_read", json!(negative.len()))]);
    let never_negative = if negative.is_empty() {
        view.invariant("no-negative-balance", &[], "No read shows a negative balance.".into(), negative_figures)
    } else {
        let n = negative.len();
        let mut text = format!("{n} {} a negative balance:", if n == 1 { "read shows" } else { "reads show" });
        for (t, k, v) in negative.iter().take(SHOWN) {
            text.push_str(&format!("\n  {} read account {k} = {v}", view.name(t.id)));
        }
        let ids: Vec<TxnId> = negative.iter().map(|(t, _, _)| t.id).collect();
        view.invariant("no-negative-balance", &ids, text, negative_figures)
    };
    vec![preserved, never_negative]
}

fn reads_word(n: usize) -> &'static str {
    if n == 1 { "read" } else { "reads" }
}
