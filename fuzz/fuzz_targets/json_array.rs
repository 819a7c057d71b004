//! Fuzzes the JsonArray reader: any bytes give a history or an error, never a panic or an abort.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = histories::parse_bytes(data, histories::Format::JsonArray, "fuzz");
});
