//! isocheck's checker (work in progress).
#![deny(missing_docs)]
pub mod consistency_model;
pub mod graph;
pub mod kind;
pub mod cycle_class;
pub mod cycle_search;
