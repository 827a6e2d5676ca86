//! Polyhedral analysis of a SCoP with isl: the model, exact dependences, live ranges, coalescing.

pub mod coalescing;
pub mod import;
pub mod isl_ctx;
pub mod live_ranges;
pub mod quasi;
pub mod transfers;
