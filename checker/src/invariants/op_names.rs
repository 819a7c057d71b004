//! The operation names (a history's `f`) by which a history says which invariant suite it belongs to,
//! and which of its transactions read every row: the runner's workloads write them and the invariants
//! read them, so both take them from here.

/// A withdrawal from one account of the withdraw bank (it reads every balance first).
pub const WITHDRAW: &str = "withdraw";
/// A transfer between two accounts of the transfer bank.
pub const TRANSFER: &str = "transfer";
/// A doctor going off call (doctors on call).
pub const OFF_CALL: &str = "off-call";
/// A doctor going on call (doctors on call).
pub const ON_CALL: &str = "on-call";
/// A read of every row, which the invariants check totals and on-call counts against.
pub const READ: &str = "read";
