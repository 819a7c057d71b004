//! Which workload to run, validated: the workload flags (`--workload`, the shape of generated
//! transactions, the scenario workloads' settings) become one [`WorkloadSpec`], checked once, which
//! [`WorkloadSpec::build`] turns into a transaction source for a seed and a number of clients. Every
//! command that runs a workload (`run`, `run --repeat`, `compare`) builds it here. The workloads
//! themselves live in `runner::workload`; parsing the flags is the binary's.

use std::sync::Arc;
use std::time::Duration;

use generators::Params;

use crate::runner::workload::{Bank, BankParams, GeneratedWorkload, TxnSource, WriteSkew, YcsbA, YcsbParams};

/// `--workload` for runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum WorkloadKind {
    /// Appends of unique values to lists, and whole-list reads (Elle's list-append).
    ListAppend,
    /// Writes of unique values to registers, and reads (Elle's rw-register).
    RwRegister,
    /// Accounts with a fixed total (--bank-mode withdraw or transfer); invariants checked.
    Bank,
    /// Doctors on call: at least one must stay on call (--doctors); invariants checked.
    WriteSkew,
    /// YCSB workload A: 50% reads, 50% updates of byte records, scrambled Zipfian keys (--records,
    /// --fields, --field-length); for throughput and aborts.
    YcsbA,
}

impl WorkloadKind {
    /// The workload's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            WorkloadKind::ListAppend => "list-append",
            WorkloadKind::RwRegister => "rw-register",
            WorkloadKind::Bank => "bank",
            WorkloadKind::WriteSkew => "write-skew",
            WorkloadKind::YcsbA => "ycsb-a",
        }
    }

    /// Whether its transactions hold between their reads and their writes (`--hold`).
    pub fn holds(self) -> bool {
        matches!(self, WorkloadKind::Bank | WorkloadKind::WriteSkew)
    }
}

/// The bank and write-skew workloads' hold when `--hold` is not given: long enough that transactions
/// overlap on every system, the embedded engine included (whose transactions otherwise take
/// microseconds, so a planted `ssi-off` would never show), short enough that a default run of 10,000
/// transactions by 4 clients takes a few seconds.
pub const DEFAULT_HOLD: Duration = Duration::from_millis(1);

/// A workload to run, validated: which one, and every setting of every kind (each kind reads its own).
#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadSpec {
    /// Which workload.
    pub kind: WorkloadKind,
    /// The shape of generated transactions (list-append, rw-register).
    pub params: Params,
    /// The bank's settings, its hold included.
    pub bank: BankParams,
    /// write-skew: how many doctors.
    pub doctors: u32,
    /// write-skew: how long each transaction holds.
    pub hold: Duration,
    /// ycsb-a: the record table.
    pub ycsb: YcsbParams,
}

impl WorkloadSpec {
    /// Checks the settings that only some workloads take: a `hold` (`--hold`) only for those that
    /// hold; without one they hold [`DEFAULT_HOLD`].
    pub fn new(
        kind: WorkloadKind,
        params: Params,
        bank: BankParams,
        doctors: u32,
        hold: Option<Duration>,
        ycsb: YcsbParams,
    ) -> anyhow::Result<WorkloadSpec> {
        if hold.is_some() && !kind.holds() {
            anyhow::bail!("--hold applies to the bank and write-skew workloads");
        }
        let hold = hold.unwrap_or(DEFAULT_HOLD);
        Ok(WorkloadSpec { kind, params, bank: BankParams { hold, ..bank }, doctors, hold, ycsb })
    }

    /// The workload's transaction source for this seed and this many clients.
    pub fn build(&self, seed: u64, clients: usize) -> anyhow::Result<Arc<dyn TxnSource>> {
        Ok(match self.kind {
            WorkloadKind::ListAppend => Arc::new(GeneratedWorkload::list_append(self.params, seed)?),
            WorkloadKind::RwRegister => Arc::new(GeneratedWorkload::rw_register(self.params, seed)?),
            WorkloadKind::Bank => Arc::new(Bank::new(self.bank, seed, clients)?),
            WorkloadKind::WriteSkew => Arc::new(WriteSkew::new(self.doctors, self.hold, seed, clients)?),
            WorkloadKind::YcsbA => Arc::new(YcsbA::new(self.ycsb, seed, clients)?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(kind: WorkloadKind, hold: Option<Duration>) -> anyhow::Result<WorkloadSpec> {
        WorkloadSpec::new(kind, Params::default(), BankParams::default(), 2, hold, YcsbParams::default())
    }

    #[test]
    fn a_hold_is_only_for_the_workloads_that_hold_and_defaults_to_one_millisecond() {
        let err = spec(WorkloadKind::ListAppend, Some(Duration::from_millis(5))).map_err(|e| e.to_string());
        assert_eq!(err.err().as_deref(), Some("--hold applies to the bank and write-skew workloads"));
        let bank = spec(WorkloadKind::Bank, None).expect("a bank");
        assert_eq!((bank.hold, bank.bank.hold), (DEFAULT_HOLD, DEFAULT_HOLD));
        let held = spec(WorkloadKind::WriteSkew, Some(Duration::ZERO)).expect("a write skew");
        assert_eq!(held.hold, Duration::ZERO);
    }

    #[test]
    fn each_kind_builds_the_workload_of_its_name() {
        for kind in [
            WorkloadKind::ListAppend,
            WorkloadKind::RwRegister,
            WorkloadKind::Bank,
            WorkloadKind::WriteSkew,
            WorkloadKind::YcsbA,
        ] {
            let source = spec(kind, None).and_then(|s| s.build(1, 4)).expect("it builds");
            assert_eq!(source.name(), kind.name());
        }
    }
}
