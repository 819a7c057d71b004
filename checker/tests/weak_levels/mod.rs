//! The weak levels (`read-committed-cerone`, `read-atomic`, `causal-cerone`): against an exhaustive
//! oracle (`oracle`), and each of Plume's fourteen patterns as a saved history with its verdict at each
//! level and a near-miss that must pass (`patterns`).

mod oracle;
mod oracle_lists;
mod patterns;
