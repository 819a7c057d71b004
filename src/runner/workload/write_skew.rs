//! The write-skew workload: doctors on call (Berenson et al. 1995's example, Fekete et al. 2005's
//! write skew), over N rows. At least one doctor must stay on call. An `off-call` transaction reads
//! every doctor's row and takes its doctor off call if some other doctor is still on; an `on-call`
//! transaction reads its doctor's row and puts the doctor back on call. Two `off-call` transactions that
//! overlap can each see the other on call and both leave: serializability forbids it, snapshot isolation
//! lets it happen.
//!
//! Rows hold integers: positive means on call, negative off call, and the magnitude is unique to each
//! write (every row starts at 1; writes count up from 2), so the graph check can tell versions apart and
//! the invariant check can name the transaction that wrote each value a read saw.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use checker::invariants::op_names;
use histories::{Function, Key, Mop};

use super::bank::{read_all, unknown_reads};
use super::hold::Hold;
use super::rng::ClientRngs;
use super::{Body, Holds, TxnPlan, TxnSource};

/// The doctors-on-call workload.
pub struct WriteSkew {
    doctors: u32,
    seed: u64,
    rngs: ClientRngs,
    hold: Arc<Hold>,
    /// The magnitude of the next write.
    next: Arc<AtomicI64>,
}

impl WriteSkew {
    /// `doctors` rows (at least 2), for `clients` clients, each transaction holding `hold` between its
    /// reads and its write.
    pub fn new(doctors: u32, hold: std::time::Duration, seed: u64, clients: usize) -> anyhow::Result<WriteSkew> {
        anyhow::ensure!(doctors >= 2, "write skew needs at least 2 doctors");
        Ok(WriteSkew {
            doctors,
            seed,
            rngs: ClientRngs::new(seed, clients),
            hold: Arc::new(Hold::new(hold)),
            next: Arc::new(AtomicI64::new(2)),
        })
    }

    fn rows(&self) -> Vec<Key> {
        (0..i64::from(self.doctors)).map(Key::Int).collect()
    }

    fn off_call(&self, doctor: usize) -> TxnPlan {
        let rows = self.rows();
        let (hold, next) = (Arc::clone(&self.hold), Arc::clone(&self.next));
        let invoke = unknown_reads(&rows);
        let body: Body = Box::new(move |session| {
            let (values, mut mops) = read_all(session, &rows)?;
            hold.hold();
            let others_on_call = values.iter().enumerate().any(|(d, &v)| d != doctor && v > 0);
            if values[doctor] > 0 && others_on_call {
                let value = -next.fetch_add(1, Ordering::Relaxed);
                session.write(&rows[doctor], value)?;
                mops.push(Mop::Write { key: rows[doctor].clone(), value, version: None });
            }
            Ok(mops)
        });
        TxnPlan { f: Function::parse(op_names::OFF_CALL), invoke, body }
    }

    fn on_call(&self, doctor: usize) -> TxnPlan {
        let row = Key::Int(doctor as i64);
        let (hold, next) = (Arc::clone(&self.hold), Arc::clone(&self.next));
        let invoke = unknown_reads(std::slice::from_ref(&row));
        let body: Body = Box::new(move |session| {
            let (values, mut mops) = read_all(session, std::slice::from_ref(&row))?;
            hold.hold();
            if values[0] <= 0 {
                let value = next.fetch_add(1, Ordering::Relaxed);
                session.write(&row, value)?;
                mops.push(Mop::Write { key: row, value, version: None });
            }
            Ok(mops)
        });
        TxnPlan { f: Function::parse(op_names::ON_CALL), invoke, body }
    }
}

impl TxnSource for WriteSkew {
    fn name(&self) -> &str {
        "write-skew"
    }

    fn parameters(&self) -> serde_json::Value {
        serde_json::json!({
            "doctors": self.doctors,
            "hold_ms": self.hold.millis(),
            "encoding": "a positive value is on call, a negative one off call; magnitudes are unique per write",
            "seed": self.seed,
        })
    }

    fn initial_registers(&self) -> Vec<(Key, i64)> {
        self.rows().into_iter().map(|k| (k, 1)).collect()
    }

    fn next(&self, client: usize) -> Option<TxnPlan> {
        let n = u64::from(self.doctors);
        let (off, doctor) = self.rngs.with(client, |rng| (rng.below(2) == 0, rng.below(n) as usize));
        Some(if off { self.off_call(doctor) } else { self.on_call(doctor) })
    }

    fn final_plan(&self) -> Option<TxnPlan> {
        let rows = self.rows();
        let invoke = unknown_reads(&rows);
        let body: Body = Box::new(move |session| read_all(session, &rows).map(|(_, mops)| mops));
        Some(TxnPlan { f: Function::parse(op_names::READ), invoke, body })
    }

    fn holds(&self) -> Option<Holds> {
        self.hold.holds()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adapters::{EngineSystem, Level, System};

    #[test]
    fn one_at_a_time_a_doctor_stays_on_call_and_every_write_is_unique() {
        let workload = WriteSkew::new(3, std::time::Duration::ZERO, 5, 1).unwrap();
        let system = EngineSystem::new(None);
        system.prepare(&workload.initial_registers()).unwrap();
        let mut s = system.connect().unwrap();
        let mut written = std::collections::BTreeSet::new();
        for _ in 0..300 {
            let plan = workload.next(0).unwrap();
            s.begin(Level::Serializable).unwrap();
            for mop in (plan.body)(s.as_mut()).unwrap() {
                if let Mop::Write { value, .. } = mop {
                    assert!(written.insert(value.abs()), "{value} written twice");
                }
            }
            s.commit().unwrap();
            let plan = workload.final_plan().unwrap();
            s.begin(Level::Serializable).unwrap();
            let on_call = (plan.body)(s.as_mut())
                .unwrap()
                .iter()
                .filter(|m| matches!(m, Mop::Read { value: histories::Observed::Int(v), .. } if *v > 0))
                .count();
            s.commit().unwrap();
            assert!(on_call >= 1);
        }
        assert!(written.len() > 50, "doctors came and went: {}", written.len());
    }
}
