//! The shared adapter checks, run against the embedded engine: it must answer through the `Session`
//! interface exactly as the SQL systems do.

use crate::common;
use adapters::EngineSystem;

#[test]
fn statements_round_trip() {
    common::statements_round_trip(&EngineSystem::new(None));
}

#[test]
fn string_keys_keep_their_type() {
    common::string_keys_keep_their_type(&EngineSystem::new(None));
}

#[test]
fn rollback_discards_and_needs_no_transaction() {
    common::rollback_discards_and_needs_no_transaction(&EngineSystem::new(None));
}

#[test]
fn records_round_trip() {
    common::records_round_trip(&EngineSystem::new(None));
}

#[test]
fn predicate_writes_report_what_they_saw() {
    common::predicate_writes_report_what_they_saw(&EngineSystem::new(None));
}
