//! The readers under arbitrary and mutated input: whatever the bytes, JSON Lines, JSON array and EDN
//! reading returns a history or an error, never a panic, an abort or a hang. Each case feeds one input
//! to all three readers. `cargo test` runs a few thousand cases; `scripts/fuzz-readers N` runs N (the
//! `FUZZ_READERS_CASES` variable) in a release build. The inputs are mutations of valid histories in
//! the three formats (bytes replaced, inserted, deleted, slices repeated, brackets opened) and plain
//! random bytes, from proptest's seeded generator.

use histories::{Format, parse_bytes};
use proptest::prelude::*;

const SEEDS: [&str; 4] = [
    concat!(
        r#"{"type": "invoke", "process": 0, "time": 1, "value": [["append", 5, 1], ["r", 6, null]]}"#,
        "\n",
        r#"{"type": "ok", "process": 0, "time": 2, "value": [["append", 5, 1], ["r", 6, [1, 2]]]}"#,
        "\n",
        r#"{"type": "invoke", "process": 1, "f": "init", "value": {"1": 10}}"#,
        "\n",
        r#"{"type": "info", "process": 1, "index": 4, "value": [["rp", ["mod", 2, 0], {"1": 10}], ["w", 3, 4]]}"#,
        "\n"
    ),
    r#"[{"type": "invoke", "process": 0, "value": [["w", 1, 2]]}, {"type": "ok", "process": 0, "value": [["w", 1, 2], ["r", 1, 2]], "error": null}]"#,
    concat!(
        "{:type :invoke, :process 0, :time 1, :value [[:append :x 1] [:r :y nil]]}\n",
        "{:type :ok, :process 0, :time 2, :value [[:append :x 1] [:r :y [1 2]]]}\n",
        "{:type :info, :process :nemesis, :f :kill, :value #{:n1 \"n2\"}}\n",
        "{:type :invoke, :process 1, :value [[:rp [:= 1] nil]]}\n",
        "; a comment\n{:type :fail, :process 1, :value [[:rp [:= 1] {1 2}]] :error [:abort \"x\"]}\n"
    ),
    "[{:type :invoke :process 0 :value [[:w 1 2]]} {:type :ok :process 0 :value [[:w 1 2]] :extra #inst \"2024\"}]",
];

/// What a mutation does at a position.
#[derive(Debug, Clone)]
enum Mutation {
    Replace(usize, u8),
    Insert(usize, u8),
    Delete(usize, usize),
    Repeat(usize, usize, usize),
    Open(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let interesting = prop::sample::select(b"[]{}()\"\\:,;#-0123456789e.nul \n\xff\xc3\x1b".to_vec());
    let byte = prop_oneof![any::<u8>(), interesting];
    prop_oneof![
        (any::<usize>(), byte.clone()).prop_map(|(at, b)| Mutation::Replace(at, b)),
        (any::<usize>(), byte).prop_map(|(at, b)| Mutation::Insert(at, b)),
        (any::<usize>(), 1..16usize).prop_map(|(at, n)| Mutation::Delete(at, n)),
        (any::<usize>(), 1..32usize, 1..64usize).prop_map(|(at, n, times)| Mutation::Repeat(at, n, times)),
        (any::<usize>(), 1..300usize).prop_map(|(at, n)| Mutation::Open(at, n)),
    ]
}

fn apply(mut bytes: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        let len = bytes.len();
        let at = |i: usize| if len == 0 { 0 } else { i % (len + 1) };
        match *m {
            Mutation::Replace(i, b) if len > 0 => bytes[i % len] = b,
            Mutation::Replace(..) => {}
            Mutation::Insert(i, b) => bytes.insert(at(i), b),
            Mutation::Delete(i, n) => {
                let start = at(i);
                bytes.drain(start..(start + n).min(len));
            }
            Mutation::Repeat(i, n, times) => {
                let start = at(i);
                let slice = bytes[start..(start + n).min(len)].to_vec();
                for _ in 0..times {
                    bytes.splice(start..start, slice.iter().copied());
                }
            }
            Mutation::Open(i, n) => {
                let start = at(i);
                let bracket = [b'[', b'{', b'('][n % 3];
                bytes.splice(start..start, std::iter::repeat_n(bracket, n));
            }
        }
    }
    bytes
}

fn input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => (prop::sample::select(SEEDS.to_vec()), prop::collection::vec(mutation(), 1..8))
            .prop_map(|(seed, ms)| apply(seed.as_bytes().to_vec(), &ms)),
        1 => prop::collection::vec(any::<u8>(), 0..256),
    ]
}

fn cases() -> u32 {
    std::env::var("FUZZ_READERS_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(3000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn no_input_crashes_a_reader(bytes in input()) {
        for format in [Format::JsonLines, Format::JsonArray, Format::Edn] {
            if let Err(e) = parse_bytes(&bytes, format, "fuzz") {
                // Every refusal is located and says something.
                prop_assert!(e.to_string().starts_with("fuzz:"), "{e}");
            }
        }
    }
}

#[test]
fn the_seeds_are_valid_histories_in_their_formats() {
    let formats = [Format::JsonLines, Format::JsonArray, Format::Edn, Format::Edn];
    for (seed, format) in SEEDS.iter().zip(formats) {
        parse_bytes(seed.as_bytes(), format, "seed").unwrap_or_else(|e| panic!("{e}\n{seed}"));
    }
}
