//! What the exec protocol costs per statement: one session reads a register in a transaction that stays
//! open, in process and through the protocol, for the embedded engine (`isocheck serve-exec`) and for
//! SQLite (the bundled adapter beside `examples/exec/sqlite_server.py`, which needs `python3`). The
//! difference per read is the protocol's overhead per statement in docs/systems.md: a JSON line each way
//! through two pipes, and the program's own parsing.

use std::sync::Arc;
use std::time::Duration;

use adapters::{EngineSystem, ExecSystem, Level, Session, SqliteBegin, SqliteSystem, System};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use histories::Key;

/// A session with a transaction open, the register it reads, and the system (kept alive with it).
fn reading(system: Arc<dyn System>) -> (Arc<dyn System>, Box<dyn Session>) {
    system.prepare(&[(Key::Int(1), 10)]).expect("the table");
    let mut session = system.connect().expect("a session");
    session.begin(Level::Serializable).expect("a transaction");
    (system, session)
}

fn exec(command: &str) -> Arc<dyn System> {
    Arc::new(ExecSystem::start(command, Duration::from_secs(60)).expect("the program starts"))
}

fn statement(c: &mut Criterion) {
    let engine = format!("'{}' serve-exec", env!("CARGO_BIN_EXE_isocheck"));
    let sqlite_server = format!("python3 '{}/examples/exec/sqlite_server.py'", env!("CARGO_MANIFEST_DIR"));
    let systems: Vec<(&str, Arc<dyn System>)> = vec![
        ("engine in process", Arc::new(EngineSystem::new(None))),
        ("engine through exec (serve-exec)", exec(&engine)),
        ("sqlite in process", Arc::new(SqliteSystem::new(SqliteBegin::Deferred).expect("a database"))),
        ("sqlite through exec (sqlite_server.py)", exec(&sqlite_server)),
    ];
    let mut group = c.benchmark_group("one register read");
    group.throughput(Throughput::Elements(1));
    for (name, system) in systems {
        let (_system, mut session) = reading(system);
        group.bench_function(name, |b| b.iter(|| session.read(&Key::Int(1)).expect("the read")));
        session.rollback().expect("the rollback");
    }
    group.finish();
}

criterion_group!(benches, statement);
criterion_main!(benches);
