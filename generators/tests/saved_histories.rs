//! The seeded generated histories kept in `testdata/golden/` (`generated-list-append-s7.jsonl`,
//! `generated-rw-register-s7.jsonl`), whose check results the checker's golden test pins: each file is
//! exactly what the generators write for its seed, byte for byte, so the checker's test reads a saved
//! history (the checker does not depend on `generators`) and still checks what the generators make.
//! After a change that is meant to alter what a seed draws, rewrite them with
//! `ISOCHECK_BLESS=1 cargo test -p generators --test tests saved_histories::`, then bless the golden
//! results (`ISOCHECK_BLESS=1 cargo test -p checker --test tests golden::`).

use std::path::{Path, PathBuf};

use generators::serial::{Schedule, SerialRun};
use generators::{ListAppend, Params, RwRegister};
use histories::{History, write_jsonl};

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/golden").join(name)
}

/// Compares `history` as JSON Lines with the saved file `name`, or writes it there when `ISOCHECK_BLESS`
/// is set.
fn compare(name: &str, history: &History) -> Option<String> {
    let mut got = Vec::new();
    write_jsonl(history.ops(), &mut got).expect("writing to memory");
    let path = golden(name);
    if std::env::var_os("ISOCHECK_BLESS").is_some() {
        std::fs::write(&path, &got).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return None;
    }
    let expected =
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e} (ISOCHECK_BLESS=1 writes it)", path.display()));
    (got != expected).then(|| format!("{} differs from what seed 7 draws", path.display()))
}

#[test]
fn the_saved_seeded_histories_with_aborts_and_lost_outcomes_are_what_the_generators_write() {
    let params = Params { key_count: 6, min_txn_len: 1, max_txn_len: 4, max_writes_per_key: 16, ..Params::default() };
    let schedule = Schedule { clients: 5, max_overlap: 4, fail_fraction: 0.1, info_fraction: 0.05 };
    let appends: Vec<_> = ListAppend::new(params, 7).expect("valid parameters").take(1500).collect();
    let registers: Vec<_> = RwRegister::new(params, 7).expect("valid parameters").take(1500).collect();
    let list_append = SerialRun::with_schedule(&appends, 7, schedule).history;
    let rw_register = SerialRun::with_schedule(&registers, 7, schedule).history;
    let mismatches: Vec<String> = [
        compare("generated-list-append-s7.jsonl", &list_append),
        compare("generated-rw-register-s7.jsonl", &rw_register),
    ]
    .into_iter()
    .flatten()
    .collect();
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
