//! The bank workload, in two modes over a few accounts holding a fixed total.
//!
//! - `withdraw` (the write-skew form): each transaction reads every balance and, if the total is at
//!   least the amount, withdraws the amount from one account chosen at random. Serializability keeps the
//!   total from going below zero; snapshot isolation does not (two transactions each see enough and
//!   withdraw from different accounts). Balances only ever fall, so each written value is unique per
//!   account and the graph check reads these histories soundly.
//! - `transfer` (Jepsen's bank): half the transactions move a random amount (1 to the amount) between two
//!   accounts, never below zero; the other half read every balance, which must always add up to the
//!   initial total. Balances repeat, so versions cannot be told apart by value: the graph check does not
//!   apply, and the invariants carry the verdict.
//!
//! The history names each transaction (`f`: `withdraw`, `transfer`, `read`) and records the micro-ops it
//! executed (`["r", account, balance]`, `["w", account, balance]`); after the clients, a final `read` of
//! every account shows where the money ended. The invariants themselves are checked by
//! `checker::invariants`, from the history alone.

use checker::invariants::{GraphPolicy, op_names};
use histories::{Function, Key, Mop, Observed};

use super::hold::Hold;
use super::rng::ClientRngs;
use super::{Body, Holds, TxnPlan, TxnSource};
use adapters::{Session, TxnError};

/// Which bank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BankMode {
    /// Read every balance; withdraw from one account if the total allows it.
    Withdraw,
    /// Move money between two accounts; read every balance.
    Transfer,
}

impl BankMode {
    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            BankMode::Withdraw => "withdraw",
            BankMode::Transfer => "transfer",
        }
    }
}

/// The bank's shape.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BankParams {
    /// Which bank.
    pub mode: BankMode,
    /// How many accounts.
    pub accounts: u32,
    /// The money in all accounts together at the start, spread evenly (the remainder in account 0).
    pub total: i64,
    /// What a withdrawal takes; the most a transfer moves.
    pub amount: i64,
    /// How long each transaction sleeps between its reads and its writes.
    pub hold: std::time::Duration,
}

impl Default for BankParams {
    /// Five accounts holding 1,000, withdrawals of 100, no hold.
    fn default() -> BankParams {
        BankParams { mode: BankMode::Withdraw, accounts: 5, total: 1000, amount: 100, hold: std::time::Duration::ZERO }
    }
}

/// The bank workload.
pub struct Bank {
    params: BankParams,
    seed: u64,
    rngs: ClientRngs,
    hold: std::sync::Arc<Hold>,
}

impl Bank {
    /// A bank for `clients` clients.
    pub fn new(params: BankParams, seed: u64, clients: usize) -> anyhow::Result<Bank> {
        let least = if params.mode == BankMode::Transfer { 2 } else { 1 };
        anyhow::ensure!(params.accounts >= least, "a {} bank needs at least {least} accounts", params.mode.name());
        anyhow::ensure!(params.total >= 0, "the bank's total cannot be negative");
        anyhow::ensure!(params.amount > 0, "the amount must be above zero");
        Ok(Bank {
            params,
            seed,
            rngs: ClientRngs::new(seed, clients),
            hold: std::sync::Arc::new(Hold::new(params.hold)),
        })
    }

    fn accounts(&self) -> Vec<Key> {
        (0..i64::from(self.params.accounts)).map(Key::Int).collect()
    }

    fn withdraw(&self, client: usize) -> TxnPlan {
        let accounts = self.accounts();
        let n = accounts.len() as u64;
        let account = self.rngs.with(client, |rng| rng.below(n)) as usize;
        let amount = self.params.amount;
        let hold = std::sync::Arc::clone(&self.hold);
        let invoke = unknown_reads(&accounts);
        let body: Body = Box::new(move |session| {
            let (balances, mut mops) = read_all(session, &accounts)?;
            hold.hold();
            if balances.iter().sum::<i64>() >= amount {
                let balance = balances[account] - amount;
                session.write(&accounts[account], balance)?;
                mops.push(Mop::Write { key: accounts[account].clone(), value: balance, version: None });
            }
            Ok(mops)
        });
        TxnPlan { f: Function::parse(op_names::WITHDRAW), invoke, body }
    }

    fn transfer(&self, client: usize) -> TxnPlan {
        let n = u64::from(self.params.accounts);
        let max = self.params.amount as u64;
        let (from, to, amount) = self.rngs.with(client, |rng| {
            let from = rng.below(n);
            let to = (from + 1 + rng.below(n - 1)) % n;
            (from as i64, to as i64, 1 + rng.below(max) as i64)
        });
        let (from, to) = (Key::Int(from), Key::Int(to));
        let hold = std::sync::Arc::clone(&self.hold);
        let invoke = unknown_reads(&[from.clone(), to.clone()]);
        let body: Body = Box::new(move |session| {
            let (balances, mut mops) = read_all(session, &[from.clone(), to.clone()])?;
            hold.hold();
            if balances[0] >= amount {
                let (from_after, to_after) = (balances[0] - amount, balances[1] + amount);
                session.write(&from, from_after)?;
                session.write(&to, to_after)?;
                mops.push(Mop::Write { key: from, value: from_after, version: None });
                mops.push(Mop::Write { key: to, value: to_after, version: None });
            }
            Ok(mops)
        });
        TxnPlan { f: Function::parse(op_names::TRANSFER), invoke, body }
    }

    fn read(&self, hold: Option<std::sync::Arc<Hold>>) -> TxnPlan {
        let accounts = self.accounts();
        let invoke = unknown_reads(&accounts);
        let body: Body = Box::new(move |session| {
            let (_, mops) = read_all(session, &accounts)?;
            if let Some(hold) = hold {
                hold.hold();
            }
            Ok(mops)
        });
        TxnPlan { f: Function::parse(op_names::READ), invoke, body }
    }
}

/// Reads every key as a balance (a missing account is a fault of the run, not an outcome).
pub(super) fn read_all(session: &mut dyn Session, keys: &[Key]) -> Result<(Vec<i64>, Vec<Mop>), TxnError> {
    let mut values = Vec::with_capacity(keys.len());
    let mut mops = Vec::with_capacity(keys.len() + 2);
    for key in keys {
        let value = session.read(key)?.ok_or_else(|| {
            TxnError::fatal("missing-row", format!("row {key} is missing: the workload never deletes one"))
        })?;
        values.push(value);
        mops.push(Mop::Read { key: key.clone(), value: Observed::Int(value) });
    }
    Ok((values, mops))
}

/// Reads of these keys, their values unknown: what an invocation announces.
pub(super) fn unknown_reads(keys: &[Key]) -> Vec<Mop> {
    keys.iter().map(|key| Mop::Read { key: key.clone(), value: Observed::Nil }).collect()
}

impl TxnSource for Bank {
    fn name(&self) -> &str {
        "bank"
    }

    fn parameters(&self) -> serde_json::Value {
        serde_json::json!({
            "mode": self.params.mode.name(),
            "accounts": self.params.accounts,
            "total": self.params.total,
            "amount": self.params.amount,
            "hold_ms": self.hold.millis(),
            "seed": self.seed,
        })
    }

    fn initial_registers(&self) -> Vec<(Key, i64)> {
        let n = i64::from(self.params.accounts);
        let each = self.params.total / n;
        let rest = self.params.total - each * n;
        (0..n).map(|a| (Key::Int(a), if a == 0 { each + rest } else { each })).collect()
    }

    fn next(&self, client: usize) -> Option<TxnPlan> {
        Some(match self.params.mode {
            BankMode::Withdraw => self.withdraw(client),
            BankMode::Transfer if self.rngs.with(client, |rng| rng.below(2)) == 0 => {
                self.read(Some(std::sync::Arc::clone(&self.hold)))
            }
            BankMode::Transfer => self.transfer(client),
        })
    }

    fn final_plan(&self) -> Option<TxnPlan> {
        Some(self.read(None))
    }

    fn holds(&self) -> Option<Holds> {
        self.hold.holds()
    }

    fn graph_policy(&self) -> GraphPolicy<'static> {
        let suite = match self.params.mode {
            BankMode::Withdraw => checker::invariants::InvariantSuite::Withdraw,
            BankMode::Transfer => checker::invariants::InvariantSuite::Transfer,
        };
        suite.graph_check_unsound().map_or(GraphPolicy::WhereReadable, GraphPolicy::Unsound)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adapters::{EngineSystem, Level, System};

    fn run_one(system: &EngineSystem, plan: TxnPlan) -> Vec<Mop> {
        let mut s = system.connect().unwrap();
        s.begin(Level::Serializable).unwrap();
        let mops = (plan.body)(s.as_mut()).unwrap();
        s.commit().unwrap();
        mops
    }

    #[test]
    fn the_total_is_spread_evenly_with_the_remainder_in_account_0() {
        let bank = Bank::new(BankParams { total: 1003, ..BankParams::default() }, 1, 1).unwrap();
        let balances: Vec<i64> = bank.initial_registers().into_iter().map(|(_, v)| v).collect();
        assert_eq!(balances, [203, 200, 200, 200, 200]);
    }

    #[test]
    fn a_withdrawal_reads_every_balance_then_takes_the_amount_until_the_total_is_short() {
        let bank = Bank::new(BankParams { accounts: 2, total: 250, ..BankParams::default() }, 3, 1).unwrap();
        let system = EngineSystem::new(None);
        system.prepare(&bank.initial_registers()).unwrap();
        let first = run_one(&system, bank.next(0).unwrap());
        assert_eq!(first.len(), 3, "two reads and a write: {first:?}");
        assert!(matches!(first[2], Mop::Write { .. }));
        run_one(&system, bank.next(0).unwrap());
        let third = run_one(&system, bank.next(0).unwrap());
        assert_eq!(third.len(), 2, "50 left, less than 100: reads only: {third:?}");
        let total: i64 = third
            .iter()
            .map(|m| match m {
                Mop::Read { value: Observed::Int(v), .. } => *v,
                _ => 0,
            })
            .sum();
        assert_eq!(total, 50);
    }

    #[test]
    fn transfers_keep_the_total_and_never_go_below_zero() {
        let params =
            BankParams { mode: BankMode::Transfer, accounts: 3, total: 30, amount: 25, ..BankParams::default() };
        let bank = Bank::new(params, 9, 1).unwrap();
        let system = EngineSystem::new(None);
        system.prepare(&bank.initial_registers()).unwrap();
        for _ in 0..200 {
            run_one(&system, bank.next(0).unwrap());
        }
        let last = run_one(&system, bank.final_plan().unwrap());
        let balances: Vec<i64> = last
            .iter()
            .map(|m| match m {
                Mop::Read { value: Observed::Int(v), .. } => *v,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(balances.iter().sum::<i64>(), 30);
        assert!(balances.iter().all(|&b| b >= 0), "{balances:?}");
    }

    #[test]
    fn a_transfer_bank_needs_two_accounts() {
        let params = BankParams { mode: BankMode::Transfer, accounts: 1, ..BankParams::default() };
        assert!(Bank::new(params, 1, 1).is_err());
    }
}
