//! YCSB workload A (Cooper et al. 2010, "Benchmarking Cloud Serving Systems with YCSB"), as YCSB's
//! `CoreWorkload` defines it: a table of records (default 1,000) of ten 100-byte fields, keys named
//! `user` followed by the FNV-1a hash of the record number (`insertorder=hashed`), and operations that
//! are each one transaction, half reads of a whole record and half updates of one field chosen
//! uniformly, the record chosen by YCSB's scrambled Zipfian generator (constant 0.99; see
//! [`ScrambledZipfian`]). What it measures is throughput and aborts by cause on one shared table.
//!
//! The history records each field as a register, keyed `KEY/fieldN`: every update writes a fresh stamp
//! (a run-wide counter) into the first 8 bytes of the field it replaces and records `["w", field,
//! stamp]`; a read records the stamp of every field (`null` for a field never updated since the load).
//! Stamps are unique, so the graph check can read these histories as rw-register ones.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use adapters::{Record, TxnError};
use histories::{Function, Key, Mop, Observed};

use super::rng::{ClientRngs, SplitMix64};
use super::{Body, TxnPlan, TxnSource};

/// YCSB-A's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct YcsbParams {
    /// Records in the table.
    pub records: u64,
    /// Fields per record.
    pub fields: usize,
    /// Bytes per field (at least 8, for the stamp).
    pub field_len: usize,
}

impl Default for YcsbParams {
    /// YCSB's defaults: 1,000 records of 10 fields of 100 bytes.
    fn default() -> YcsbParams {
        YcsbParams { records: 1000, fields: 10, field_len: 100 }
    }
}

/// YCSB-A: 50% reads, 50% updates, scrambled Zipfian keys.
pub struct YcsbA {
    params: YcsbParams,
    seed: u64,
    rngs: ClientRngs,
    chooser: ScrambledZipfian,
    /// The records' keys, by record number.
    names: Vec<Arc<str>>,
    stamps: AtomicI64,
}

/// YCSB's fraction of reads in workload A.
const READ_PROPORTION: f64 = 0.5;

impl YcsbA {
    /// The workload for `clients` clients.
    pub fn new(params: YcsbParams, seed: u64, clients: usize) -> anyhow::Result<YcsbA> {
        anyhow::ensure!(params.records > 0, "YCSB needs at least one record");
        anyhow::ensure!(params.fields > 0, "YCSB needs at least one field");
        anyhow::ensure!(params.field_len >= 8, "YCSB fields must hold at least 8 bytes (the stamp)");
        let names = (0..params.records).map(|n| Arc::from(format!("user{}", fnv_hash64(n as i64)))).collect();
        Ok(YcsbA {
            params,
            seed,
            rngs: ClientRngs::new(seed, clients),
            // As CoreWorkload: the key space is one larger than the records (no inserts are expected), and a
            // key past the last record is drawn again.
            chooser: ScrambledZipfian::new(params.records + 1),
            names,
            stamps: AtomicI64::new(1),
        })
    }

    /// The register a field is recorded as in the history: `user123/field4`.
    fn field_key(name: &str, field: usize) -> Key {
        Key::from(format!("{name}/field{field}").as_str())
    }

    /// A field's bytes: the stamp, big-endian, then filler.
    fn field_bytes(&self, stamp: i64, rng: &mut SplitMix64) -> Vec<u8> {
        let mut bytes = stamp.to_be_bytes().to_vec();
        bytes.extend((8..self.params.field_len).map(|_| b' ' + rng.below(95) as u8));
        bytes
    }
}

fn stamp_of(field: &[u8]) -> Option<i64> {
    field.first_chunk::<8>().map(|b| i64::from_be_bytes(*b)).filter(|&s| s != 0)
}

fn missing(key: &Key) -> TxnError {
    TxnError::fatal("missing-record", format!("record {key} is missing: the workload never deletes one"))
}

impl TxnSource for YcsbA {
    fn name(&self) -> &str {
        "ycsb-a"
    }

    fn parameters(&self) -> serde_json::Value {
        serde_json::json!({
            "records": self.params.records,
            "fields": self.params.fields,
            "field_length": self.params.field_len,
            "read_proportion": READ_PROPORTION,
            "update_proportion": 1.0 - READ_PROPORTION,
            "request_distribution": "scrambled zipfian, constant 0.99",
            "seed": self.seed,
        })
    }

    fn initial_records(&self) -> Option<(usize, Vec<(Key, Record)>)> {
        let mut rng = SplitMix64::new(self.seed);
        let records = self
            .names
            .iter()
            .map(|name| (Key::from(&**name), (0..self.params.fields).map(|_| self.field_bytes(0, &mut rng)).collect()))
            .collect();
        Some((self.params.fields, records))
    }

    fn next(&self, client: usize) -> Option<TxnPlan> {
        let records = self.params.records;
        let (read, n, field, filler) = self.rngs.with(client, |rng| {
            let read = rng.next_f64() < READ_PROPORTION;
            let n = loop {
                let n = self.chooser.next(rng);
                if n < records {
                    break n;
                }
            };
            let field = rng.below(self.params.fields as u64) as usize;
            (read, n, field, rng.next_u64())
        });
        let name = Arc::clone(&self.names[n as usize]);
        let key = Key::from(&*name);
        if read {
            let fields = self.params.fields;
            let invoke =
                (0..fields).map(|f| Mop::Read { key: Self::field_key(&name, f), value: Observed::Nil }).collect();
            let body: Body = Box::new(move |session| {
                let record = session.read_record(&key)?.ok_or_else(|| missing(&key))?;
                Ok(record
                    .iter()
                    .enumerate()
                    .map(|(f, bytes)| Mop::Read {
                        key: Self::field_key(&name, f),
                        value: stamp_of(bytes).map_or(Observed::Nil, Observed::Int),
                    })
                    .collect())
            });
            return Some(TxnPlan { f: Function::parse("read"), invoke, body });
        }
        let stamp = self.stamps.fetch_add(1, Ordering::Relaxed);
        let bytes = self.field_bytes(stamp, &mut SplitMix64::new(filler));
        let write = Mop::Write { key: Self::field_key(&name, field), value: stamp, version: None };
        let body_write = write.clone();
        let body: Body = Box::new(move |session| {
            if !session.update_field(&key, field, &bytes)? {
                return Err(missing(&key));
            }
            Ok(vec![body_write])
        });
        Some(TxnPlan { f: Function::parse("update"), invoke: vec![write], body })
    }
}

/// YCSB's `Utils.fnvhash64`: FNV-1a over the 8 bytes of a long, low byte first, then the absolute value
/// (Java's `Math.abs`, which leaves `Long.MIN_VALUE` negative; it wraps here the same way).
pub fn fnv_hash64(value: i64) -> i64 {
    const OFFSET_BASIS: i64 = 0xCBF2_9CE4_8422_2325_u64 as i64;
    const PRIME: i64 = 1_099_511_628_211;
    let mut hash = OFFSET_BASIS;
    let mut v = value;
    for _ in 0..8 {
        let octet = v & 0xff;
        v >>= 8;
        hash ^= octet;
        hash = hash.wrapping_mul(PRIME);
    }
    hash.wrapping_abs()
}

/// YCSB's `ScrambledZipfianGenerator` with its constant 0.99: a Zipfian draw (Gray et al. 1994, "Quickly
/// Generating Billion-Record Synthetic Databases") over YCSB's fixed item space of 10^16 items, with
/// YCSB's precomputed zeta, hashed with FNV-1a into `0..items`, so the popular items are scattered over
/// the key space rather than clustered at its start. (YCSB's zeta constant was computed for 10^10 items
/// and kept when the item space grew; it is kept here too, to draw what YCSB draws.)
#[derive(Debug, Clone)]
pub struct ScrambledZipfian {
    items: u64,
    zipf_items: f64,
    eta: f64,
}

impl ScrambledZipfian {
    const THETA: f64 = 0.99;
    const ZETAN: f64 = 26.469_028_201_783_02;
    const ITEM_COUNT: i64 = 10_000_000_000_000_000;

    /// Draws from `0..items`.
    pub fn new(items: u64) -> ScrambledZipfian {
        // ZipfianGenerator(0, ITEM_COUNT): ITEM_COUNT + 1 items.
        let zipf_items = (Self::ITEM_COUNT + 1) as f64;
        let zeta2 = 1.0 + 0.5f64.powf(Self::THETA);
        let eta = (1.0 - (2.0 / zipf_items).powf(1.0 - Self::THETA)) / (1.0 - zeta2 / Self::ZETAN);
        ScrambledZipfian { items: items.max(1), zipf_items, eta }
    }

    fn zipfian(&self, u: f64) -> i64 {
        let uz = u * Self::ZETAN;
        if uz < 1.0 {
            return 0;
        }
        if uz < 1.0 + 0.5f64.powf(Self::THETA) {
            return 1;
        }
        let alpha = 1.0 / (1.0 - Self::THETA);
        (self.zipf_items * (self.eta * u - self.eta + 1.0).powf(alpha)) as i64
    }

    /// The next item.
    pub(crate) fn next(&self, rng: &mut SplitMix64) -> u64 {
        let hashed = fnv_hash64(self.zipfian(rng.next_f64()));
        // Java's `%` keeps the sign; only Long.MIN_VALUE's hash could be negative.
        hashed.rem_euclid(self.items as i64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_hash64_matches_ycsb() {
        // Values of YCSB's Utils.fnvhash64: CoreWorkload names record 0 "user6284781860667377211".
        assert_eq!(fnv_hash64(0), 6_284_781_860_667_377_211);
        assert_eq!(fnv_hash64(1), 8_517_097_267_634_966_620);
        assert_eq!(fnv_hash64(999), 2_071_219_101_098_386_137);
        assert!((0..10_000).all(|n| fnv_hash64(n) >= 0));
    }

    #[test]
    fn the_scrambled_zipfian_is_skewed_but_scattered() {
        let chooser = ScrambledZipfian::new(1000);
        let mut rng = SplitMix64::new(1);
        let mut counts = vec![0u32; 1000];
        for _ in 0..200_000 {
            counts[chooser.next(&mut rng) as usize] += 1;
        }
        let mut sorted = counts.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        let top10: u32 = sorted[..10].iter().sum();
        assert!(top10 > 200_000 / 10, "the 10 hottest of 1000 records take over a tenth of the draws: {top10}");
        let hottest = counts.iter().position(|&c| c == sorted[0]).unwrap();
        assert_ne!(hottest, 0, "scrambled: the hottest record is not record 0");
        assert!(counts.iter().filter(|&&c| c > 0).count() > 900, "nearly every record is drawn");
    }

    #[test]
    fn a_stamp_is_the_first_8_bytes_and_zero_means_loaded() {
        let ycsb = YcsbA::new(YcsbParams { records: 3, fields: 2, field_len: 12 }, 1, 1).unwrap();
        let bytes = ycsb.field_bytes(42, &mut SplitMix64::new(3));
        assert_eq!(bytes.len(), 12);
        assert_eq!(stamp_of(&bytes), Some(42));
        assert_eq!(stamp_of(&ycsb.field_bytes(0, &mut SplitMix64::new(3))), None);
        let (fields, records) = ycsb.initial_records().unwrap();
        assert_eq!((fields, records.len()), (2, 3));
        assert!(records.iter().all(|(k, r)| matches!(k, Key::Str(s) if s.starts_with("user")) && r.len() == 2));
        let plan = ycsb.next(0).unwrap();
        let Some(Mop::Read { key: Key::Str(field), .. } | Mop::Write { key: Key::Str(field), .. }) =
            plan.invoke.first()
        else {
            panic!("{:?}", plan.invoke)
        };
        assert!(field.starts_with("user") && field.contains("/field"), "{field}");
    }
}
