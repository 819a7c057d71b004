//! Exit codes, as docs/checking.md lists them, and the verdict each stands for.

use checker::Validity;

/// The history is valid.
pub const VALID: u8 = 0;
/// An anomaly or a broken invariant was found.
pub const INVALID: u8 = 1;
/// Bad input, bad usage, or a system that could not be reached.
pub const USAGE: u8 = 2;
/// The checker could not tell.
pub const UNKNOWN: u8 = 3;

/// The exit code for a verdict.
pub fn for_validity(valid: Validity) -> u8 {
    match valid {
        Validity::Valid => VALID,
        Validity::Invalid => INVALID,
        Validity::Unknown => UNKNOWN,
    }
}

/// Whether an error is stdout closing under us (`isocheck check h.jsonl | head`): not a failure.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
