//! `isocheck hermitage`: every classic anomaly as a scripted interleaving (Kleppmann's Hermitage), run on
//! each system at each level, recorded as a history, and judged by the checker, summarised as Hermitage's
//! matrix. The scenarios are data (`scenario`), the runner issues their steps and notices blocking
//! (`step_runner`), the checker decides each cell (`verdict`), and `matrix` lays the cells out.

pub mod matrix;
pub mod scenario;
pub mod step_runner;
pub mod verdict;
