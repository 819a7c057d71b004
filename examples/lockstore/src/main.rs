//! Runs isocheck's checks against lockstore, correct and with its planted defect, and prints what they
//! found: `cargo run -p lockstore`.

use std::sync::Arc;
use std::time::Duration;

use adapters::{Level, System};
use isocheck::workload_spec::WorkloadKind;
use lockstore::{LockStore, checks};

fn main() -> anyhow::Result<()> {
    for (label, store) in [("lockstore", LockStore::new()), ("lockstore without turns", LockStore::without_turns())] {
        let system: Arc<dyn System> = Arc::new(store);
        println!("{label}: {}", system.version());
        for workload in [WorkloadKind::ListAppend, WorkloadKind::RwRegister] {
            let result = checks::run(&system, workload, Level::Serializable, 4, 2000, 1)?;
            println!("  run {}: {:?} {:?}", workload.name(), result.valid, result.anomaly_types);
        }
        let overlap = checks::overlap(&system, 4, Duration::from_millis(50), 3)?;
        println!("  overlap: {} ({:.2} x the hold)", overlap.verdict, overlap.ratio);
        let cells = checks::hermitage(system.as_ref(), Level::Serializable)?;
        let anomalies: Vec<String> =
            cells.iter().filter(|c| !c.checker.is_empty()).map(|c| format!("{} {:?}", c.anomaly, c.checker)).collect();
        println!("  hermitage at serializable: {} scenarios, anomalies: {anomalies:?}", cells.len());
    }
    Ok(())
}
