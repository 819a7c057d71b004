//! When each transaction of a serial order is invoked, commits and completes, and on which client.
//! The transactions commit one at a time in the serial order; each is invoked before its commit point
//! and completes after it, at random, so invocations and completions of different transactions
//! interleave the way a real run's do. Two rules keep the history honest:
//!
//! - each client runs one transaction at a time (a client is one thread);
//! - a transaction's span contains at most `max_overlap` other commit points on each side: it is
//!   invoked no earlier than `max_overlap` commits before its own, and completes before the
//!   `max_overlap + 1`-th commit after it.
//!
//! Whatever completes before another is invoked also commits before it, so real-time order agrees
//! with the serial order and every such history is strict-serializable by construction (Herlihy &
//! Wing's linearizability, lifted to transactions by Papadimitriou's strict serializability). This
//! module owns the schedule; executing and recording it is the parent module's.

use crate::draw::Draw;

/// One step of a schedule; `txn` is a position in the serial order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Event {
    /// The transaction is invoked by the client.
    Invoke { txn: usize, client: usize },
    /// The transaction takes effect (not an operation of the history: it only orders them).
    Commit { txn: usize },
    /// The transaction's completion is recorded.
    Complete { txn: usize },
}

#[derive(Clone, Copy)]
enum Action {
    Invoke,
    Commit,
    Complete,
}

/// A random schedule of `n` transactions committing in order `0..n` on `clients` clients (`0..clients`).
///
/// # Panics
/// If `clients` is zero.
pub(crate) fn events(n: usize, clients: usize, max_overlap: usize, draw: &mut Draw) -> Vec<Event> {
    assert!(clients > 0, "a schedule needs at least one client");
    let mut events = Vec::with_capacity(3 * n);
    let mut invoked = vec![false; n];
    let mut idle: Vec<usize> = (0..clients).collect();
    let mut client_of = vec![0usize; n];
    // Committed transactions still running.
    let mut running: Vec<usize> = Vec::new();
    // The next transaction to commit.
    let mut next: usize = 0;
    loop {
        // Transactions that may be invoked now: `next`, and those at most `max_overlap` commits
        // ahead of it. While `next` waits for a process, look-ahead invocations leave one idle, so
        // `next` can always start: every other running transaction has committed and can complete.
        let window_end = n.min(next.saturating_add(max_overlap).saturating_add(1));
        let may_look_ahead = next >= n || invoked[next] || idle.len() >= 2;
        let invocable: Vec<usize> =
            (next..window_end).filter(|&t| !invoked[t] && !idle.is_empty() && (t == next || may_look_ahead)).collect();
        // `next` may commit once invoked, unless a running transaction's span would then hold too
        // many later commits.
        let may_commit = next < n && invoked[next] && running.iter().all(|&t| next - t <= max_overlap);
        let mut actions = Vec::with_capacity(3);
        if !invocable.is_empty() {
            actions.push(Action::Invoke);
        }
        if may_commit {
            actions.push(Action::Commit);
        }
        if !running.is_empty() {
            actions.push(Action::Complete);
        }
        if actions.is_empty() {
            debug_assert!(next == n && running.is_empty(), "the schedule cannot be stuck");
            return events;
        }
        match actions[draw.index(actions.len())] {
            Action::Invoke => {
                let txn = invocable[draw.index(invocable.len())];
                let client = idle.swap_remove(draw.index(idle.len()));
                invoked[txn] = true;
                client_of[txn] = client;
                events.push(Event::Invoke { txn, client });
            }
            Action::Commit => {
                events.push(Event::Commit { txn: next });
                running.push(next);
                next += 1;
            }
            Action::Complete => {
                let txn = running.swap_remove(draw.index(running.len()));
                idle.push(client_of[txn]);
                events.push(Event::Complete { txn });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks every rule of a schedule, returning the largest number of transactions in flight at once.
    fn check(events: &[Event], n: usize, clients: usize, max_overlap: usize) -> usize {
        let mut invoked_at = vec![None; n];
        let mut committed_at = vec![None; n];
        let mut completed_at = vec![None; n];
        let mut busy = vec![None; clients];
        let mut in_flight = 0usize;
        let mut most = 0;
        let mut commits = 0;
        for (i, e) in events.iter().enumerate() {
            match *e {
                Event::Invoke { txn, client } => {
                    assert!(invoked_at[txn].is_none());
                    assert_eq!(busy[client], None, "client {client} already busy");
                    busy[client] = Some(txn);
                    invoked_at[txn] = Some((i, commits));
                    in_flight += 1;
                    most = most.max(in_flight);
                }
                Event::Commit { txn } => {
                    assert_eq!(txn, commits, "commits follow the serial order");
                    assert!(invoked_at[txn].is_some(), "committed before invoked");
                    committed_at[txn] = Some(commits);
                    commits += 1;
                }
                Event::Complete { txn } => {
                    assert!(committed_at[txn].is_some(), "completed before committing");
                    let client = busy.iter().position(|b| *b == Some(txn)).unwrap();
                    busy[client] = None;
                    completed_at[txn] = Some((i, commits));
                    in_flight -= 1;
                }
            }
        }
        for t in 0..n {
            let (_, commits_before_invoke) = invoked_at[t].unwrap();
            let (_, commits_before_complete) = completed_at[t].unwrap();
            assert!(t - commits_before_invoke <= max_overlap, "T{t} invoked too early");
            assert!(commits_before_complete - (t + 1) <= max_overlap, "T{t} completed too late");
        }
        most
    }

    #[test]
    fn schedules_keep_every_rule() {
        for seed in 0..200 {
            let mut draw = Draw::new(seed);
            let (n, clients, overlap) = (1 + draw.index(40), 1 + draw.index(6), draw.index(5));
            let events = events(n, clients, overlap, &mut draw);
            assert_eq!(events.len(), 3 * n);
            assert!(check(&events, n, clients, overlap) <= clients);
        }
    }

    #[test]
    fn one_client_runs_one_transaction_at_a_time() {
        let events = events(20, 1, 3, &mut Draw::new(5));
        assert_eq!(check(&events, 20, 1, 3), 1);
    }

    #[test]
    fn many_clients_overlap() {
        let events = events(200, 8, 4, &mut Draw::new(6));
        assert!(check(&events, 200, 8, 4) >= 4, "transactions run concurrently");
    }
}
